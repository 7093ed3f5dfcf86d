"""The Python side of the CUDA backend against the fake driver
(tests/c/fake_libcuda.c, loaded through EMBER_LIBCUDA): the lazy default
device, properties, the memory pool object, streams and events.  Kernels
do not run under the fake, so no values are checked here."""
import os
import subprocess
import sys

from helpers import nvrtc_available


HERE = os.path.dirname(os.path.abspath(__file__))
PYPATH = os.path.join(HERE, "..", "..", "python")


def _run(lib, code):
    env = dict(os.environ, PYTHONPATH=PYPATH, EMBER_LIBCUDA=lib)
    env.pop("EMBER_DEVICE", None)
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=60)
    assert r.returncode == 0, r.stderr
    return r.stdout.split()


def test_default_device_is_first_gpu(fake_lib):
    out = _run(fake_lib, "import ember as em\n"
                         "print(em.cuda.is_available(), em.get_device(), em.Device('cuda:0').name.replace(' ', '_'))\n"
                         "print(em.Device('cuda:0').compute_capability, em.Device('cuda:0').multiprocessor_count)")
    assert out == ["True", "cuda:0", "Fake_GPU", "90", "4"]


def test_memory_pool_object(fake_lib):
    out = _run(fake_lib, "import ember as em\n"
                         "pool = em.get_default_memory_pool()\n"
                         "x = em.empty((1000,), dtype=em.float32, device='cuda:0')\n"
                         "print(pool.used_bytes(), pool.total_bytes())\n"
                         "del x\n"
                         "print(pool.used_bytes(), pool.total_bytes())\n"
                         "pool.free_all_blocks()\n"
                         "print(pool.total_bytes())\n"
                         "pool.set_limit(size=1024)\n"
                         "try:\n"
                         "    em.empty((1000,), dtype=em.float32, device='cuda:0')\n"
                         "except em.OutOfMemoryError as e:\n"
                         "    print('OOM', 'limit' in str(e))\n")
    assert out == ["4096", "4096", "0", "4096", "0", "OOM", "True"]


def test_stream_event(fake_lib):
    out = _run(fake_lib, "import ember as em\n"
                         "s = em.Stream(non_blocking=True)\n"
                         "a, b = em.Event(), em.Event()\n"
                         "with s:\n"
                         "    a.record(); b.record(s)\n"
                         "b.synchronize(); s.synchronize()\n"
                         "print(em.get_elapsed_time(a, b), a.done, b.done, s._dev)\n"
                         "c = em.Event(disable_timing=True); c.record(); print(c.done)")
    assert out == ["1.5", "True", "True", "cuda:0", "True"]


def test_null_stream_and_nesting(fake_lib):
    out = _run(fake_lib, "import ember as em\n"
                         "from ember import _ember\n"
                         "s = em.Stream()\n"
                         "with s:\n"
                         "    inner = _ember.stream_get() == s.ptr\n"
                         "    with em.Stream.null:\n"
                         "        null = _ember.stream_get() is None\n"
                         "    back = _ember.stream_get() == s.ptr\n"
                         "print(inner, null, back, _ember.stream_get() is None)")
    assert out == ["True", "True", "True", "True"]


def test_pinned_memory_owner_and_numpy_view(fake_lib):
    # The owner exports its bytes, numpy keeps it alive as the array's base,
    # and dropping both unpins (the fake frees) without a crash.
    out = _run(fake_lib, "import gc, numpy as np, ember as em\n"
                         "m = em.cuda.alloc_pinned_memory(64)\n"
                         "print(m.size, m.ptr != 0, type(m).__name__)\n"
                         "a = em.cuda.pinned_empty((2, 3), 'float32')\n"
                         "a[...] = np.arange(6).reshape(2, 3)\n"
                         "print(a.shape, a.dtype, a.sum(), a.base is not None)\n"
                         "z = em.cuda.pinned_empty(0, 'int8'); print(z.shape)\n"
                         "try:\n"
                         "    em.cuda.pinned_empty((-1, 2))\n"
                         "except ValueError as e: print('ValueError')\n"
                         "try:\n"
                         "    em.cuda.alloc_pinned_memory(-1)\n"
                         "except ValueError as e: print('ValueError' if 'negative' in str(e) else e)\n"
                         "del a, m, z; gc.collect(); print('ok')\n")
    assert out == ["64", "True", "PinnedMemory", "(2,", "3)", "float32", "15.0", "True", "(0,)",
                   "ValueError", "ValueError", "ok"]


def test_nvrtc_options_reach_embers_kernels(fake_lib, tmp_path):
    # EMBER_NVRTC_OPTIONS joins the options of Ember's own kernels (and the
    # disk cache key): a bad one is NVRTC's compile error, naming it.
    import pytest
    if not nvrtc_available():
        pytest.skip("NVRTC is not installed")
    code = ("import numpy as np, ember as em\n"
            "a = em.asarray(np.ones(8, np.float32), device='cuda:0')\n"
            "try:\n"
            "    em.eval(a * 3 + 1)\n"
            "    print('compiled')\n"
            "except em.CompileError as e:\n"
            "    print('CompileError', '--no-such-option' in str(e))\n"
            "s = em._ember._kernel_stats()\n"
            "print(s['evals'], s['kernels'])\n")
    env = dict(os.environ, PYTHONPATH=PYPATH, EMBER_LIBCUDA=fake_lib, EMBER_CACHE_DIR=str(tmp_path))
    env.pop("EMBER_DEVICE", None)
    good = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=120)
    env["EMBER_NVRTC_OPTIONS"] = "--no-such-option"
    bad = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=120)
    assert good.stdout.split() == ["compiled", "1", "1"], good.stderr
    assert bad.stdout.split()[:2] == ["CompileError", "True"], bad.stderr


def test_small_ops_in_a_loop_compile_once(fake_lib):
    # The CUDA evaluation hands the statistics its kernel key: a loop of
    # dropped lazy results evaluates each and counts one kernel.
    import pytest
    if not nvrtc_available():
        pytest.skip("NVRTC is not installed")
    out = _run(fake_lib, "import numpy as np, ember as em\n"
                         "a = em.asarray(np.ones(1000, np.float32), device='cuda:0')\n"
                         "b = em.asarray(np.ones(1000, np.float32), device='cuda:0')\n"
                         "s0 = em._ember._kernel_stats()\n"
                         "for _ in range(50):\n"
                         "    a + b\n"
                         "s = em._ember._kernel_stats()\n"
                         "print(s['evals'] - s0['evals'], s['kernels'] - s0['kernels'], s['pending'])")
    assert out == ["50", "1", "0"]


def test_reduction_keys_merge_dims(fake_lib, tmp_path):
    """Seed 004's form, sqrt(sum(x**2, axis=-1)), has one kept dim whatever
    the number of leading dims: (2, 200, 100) and (4, 10, 10, 100) share one
    warp kernel with 32-bit indices (key R<op>|<dtypes>|no|ni|W|I|U<groups
    in flight>); the middle axis of a C-contiguous array keeps two (they
    cannot merge).  Sixteen groups in flight only where the reduced run is
    contiguous.  Where the kept run is the contiguous one (the middle axis,
    a column sum over axis 0) the column form runs (C), its rows split in
    chunks when they are many, with a second pass (em_kernel2)."""
    import pytest
    if not nvrtc_available():
        pytest.skip("NVRTC is not installed")
    code = ("import numpy as np, ember as em\n"
            "for sh in [(2, 200, 100), (4, 10, 10, 100)]:\n"
            "    em.eval(em.sqrt(em.sum(em.asarray(np.ones(sh)) ** 2, axis=-1)))\n"
            "em.eval(em.sum(em.asarray(np.ones((20, 30, 40))), axis=1))\n"
            "em.eval(em.sum(em.asarray(np.ones((300, 300))), axis=0))\n")
    env = dict(os.environ, PYTHONPATH=PYPATH, EMBER_LIBCUDA=fake_lib, EMBER_DEBUG="2", EMBER_CACHE_DIR=str(tmp_path))
    env.pop("EMBER_DEVICE", None)
    env.pop("EMBER_REDUCE_TUNE", None)
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=300)
    assert r.returncode == 0, r.stderr
    keys = [ln.split(" key ")[1] for ln in r.stderr.splitlines() if "cache miss (memory) 'reduce" in ln]
    assert len(keys) == 4, r.stderr
    assert keys[0].startswith("R0|11|11|11|1|1|W|I|U16|F"), keys
    assert keys[1] == "R0|11|11|11|2|1|C|I|U8|em_kernel", keys
    assert keys[2] == "R0|11|11|11|1|1|C|I|U8|em_kernel", keys
    assert keys[3] == "R0|11|11|11|1|1|C|I|U8|em_kernel2", keys


def test_exit_while_nvrtc_loads(fake_lib):
    # A device's first use starts loading NVRTC on a thread; a process that
    # ends at once must wait for it (a detached load crashed exit() with
    # SIGSEGV about one time in three here), and still exit cleanly.
    if not nvrtc_available():
        import pytest
        pytest.skip("NVRTC is not installed")
    for _ in range(8):
        assert _run(fake_lib, "import ember as em\nprint(em.Device('cuda:0').name)") == ["Fake", "GPU"]


def test_device_recovers_after_a_sticky_fault(fake_lib):
    # A faulting kernel leaves the CUDA context sticky (simulated by the fake); the next
    # use of the device resets it: the array of before raises a clear DeviceError, new
    # arrays work, and so does the pool.
    out = _run(fake_lib, "import ctypes, numpy as np, ember as em\n"
                         "fake = ctypes.CDLL(%r)\n"
                         "x = em.asarray(np.arange(8, dtype=np.float32), device='cuda:0')\n"
                         "fake.fake_sticky_fault(700)\n"
                         "try:\n"
                         "    em.Device('cuda:0').synchronize()\n"
                         "except Exception as e:\n"
                         "    print(type(e).__name__, 'ILLEGAL_ADDRESS' in str(e))\n"
                         "em.Device('cuda:0').synchronize()\n"
                         "print(ctypes.c_int.in_dll(fake, 'fake_resets').value)\n"
                         "try:\n"
                         "    em.asnumpy(x)\n"
                         "except em.DeviceError as e:\n"
                         "    print('lost', isinstance(e, RuntimeError), 'memory was lost' in str(e))\n"
                         "y = em.asarray(np.arange(8, dtype=np.float32), device='cuda:0')\n"
                         "print(em.asnumpy(y).tolist() == list(range(8)))\n"
                         "del x\n"
                         "print(em.get_default_memory_pool().used_bytes())\n" % fake_lib)
    assert out == ["DeviceError", "True", "1", "lost", "True", "True", "True", "512"]
