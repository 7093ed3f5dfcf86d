"""The CUDA backend on a machine without a working GPU: absent is a status,
never a crash, and nothing CUDA happens at import."""
import os
import subprocess
import sys

import pytest

import ember as em

NOGPU = not em.cuda.is_available()
needs_nogpu = pytest.mark.skipif(not NOGPU, reason="a CUDA device is present")
PYPATH = os.path.join(os.path.dirname(__file__), "..", "..", "python")


def _run(code, **env):
    e = dict(os.environ, PYTHONPATH=PYPATH, **env)
    e.pop("EMBER_DEVICE", None)
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=e, timeout=60)


@needs_nogpu
def test_not_available():
    assert em.cuda.is_available() is False
    assert em.cuda.device_count() == 0
    assert [str(d) for d in em.devices()][:1] == ["cpu"]
    assert all(d.kind != "cuda" for d in em.devices())


@needs_nogpu
def test_device_raises_clear_error():
    with pytest.raises(em.DeviceError, match=r"no device cuda:0 \(0 cuda devices available: .+\)"):
        em.Device("cuda:0")
    with pytest.raises(em.DeviceError, match="no device cuda:3"):
        em.asarray([1.0], device="cuda:3")
    # The process keeps working.
    assert em.asarray([1.0, 2.0]).get().tolist() == [1.0, 2.0]


@needs_nogpu
def test_debug_prints_reason():
    r = _run("import ember as em; print(em.cuda.is_available())", EMBER_DEBUG="1")
    assert r.returncode == 0 and r.stdout.strip() == "False"
    assert "ember: CUDA driver unavailable:" in r.stderr


def test_import_loads_no_driver():
    code = ("import ember as em\n"
            "maps = open('/proc/self/maps').read()\n"
            "print('libcuda' in maps, 'libnvrtc' in maps)")
    r = _run(code)
    assert r.returncode == 0, r.stderr
    assert r.stdout.split() == ["False", "False"]


@needs_nogpu
def test_default_device_is_cpu_without_gpu():
    r = _run("import ember as em; print(em.get_device(), em.asarray([1]).device)")
    assert r.returncode == 0, r.stderr
    assert r.stdout.split() == ["cpu", "cpu"]


def test_memory_pool_api():
    pool = em.get_default_memory_pool()
    assert pool is em.get_default_memory_pool()
    used, total = pool.used_bytes(), pool.total_bytes()
    assert 0 <= used <= total
    pool.free_all_blocks()
    assert pool.total_bytes() == pool.used_bytes()
    with pytest.raises(ValueError, match="fraction must be in"):
        pool.set_limit(fraction=2)
    with pytest.raises(ValueError, match="size or fraction"):
        pool.set_limit(size=1, fraction=0.5)


@pytest.mark.skipif(NOGPU, reason="no CUDA device")
def test_memory_pool_counts_and_limit():
    pool = em.get_default_memory_pool()
    pool.free_all_blocks()
    before = pool.used_bytes()
    x = em.zeros(1 << 20, dtype=em.float32, device="cuda:0")
    assert pool.used_bytes() - before == 4 << 20
    del x
    assert pool.used_bytes() == before and pool.total_bytes() >= before + (4 << 20)
    pool.free_all_blocks()
    assert pool.total_bytes() == pool.used_bytes()
    pool.set_limit(size=1 << 20)
    try:
        with pytest.raises(em.OutOfMemoryError, match="out of memory allocating 4194304 bytes"):
            em.zeros(1 << 20, dtype=em.float32, device="cuda:0")
    finally:
        pool.set_limit(size=0)
    assert em.zeros(1 << 20, dtype=em.float32, device="cuda:0").shape == (1 << 20,)


@needs_nogpu
def test_cuda_stream_and_event_need_a_gpu():
    # em.Stream() and em.Event() are the current device's: here the CPU's
    # (tests/python/test_streams.py); a CUDA one is a DeviceError.
    from ember import _ember
    with pytest.raises(em.DeviceError, match="no device cuda:0"):
        _ember.stream_create("cuda:0")
    with pytest.raises(em.DeviceError, match="no device cuda:0"):
        _ember.event_create("cuda:0")
    assert em.Stream()._dev == "cpu:0" and em.Event()._dev == "cpu:0"


@pytest.mark.skipif(NOGPU, reason="no CUDA device")
def test_stream_event_timing():
    import numpy as np
    x = em.asarray(np.arange(1 << 20, dtype=np.float32), device="cuda:0")
    s = em.Stream(non_blocking=True)
    start, end = em.Event(), em.Event()
    with s:
        start.record(s)
        y = x + x
        end.record(s)
    end.synchronize()
    assert em.get_elapsed_time(start, end) >= 0
    s.synchronize()
    np.testing.assert_array_equal(y.get(), 2 * np.arange(1 << 20, dtype=np.float32))


def test_cublas_matmul_rejects_bad_input():
    from ember import _ember
    a = em.asarray([[1.0, 2.0]], device="cpu")
    with pytest.raises(em.DeviceError, match="one CUDA device"):
        _ember.cuda_matmul(a, a.T)
    with pytest.raises(ValueError, match="same ndim >= 2, got 1-d and 1-d"):
        _ember.cuda_matmul(em.asarray([1.0]), em.asarray([1.0]))
    with pytest.raises(TypeError, match="one dtype among float16, float32, float64, complex64 and "
                                        "complex128, got int64 and int64"):
        _ember.cuda_matmul(em.asarray([[1]]), em.asarray([[1]]))
    with pytest.raises(ValueError, match="batch dimensions differ"):
        _ember.cuda_matmul(em.ones((2, 1, 1)), em.ones((3, 1, 1)))
    with pytest.raises(ValueError, match="a has 2 columns but b has 3 rows"):
        _ember.cuda_matmul(em.ones((1, 2)), em.ones((3, 1)))


@needs_nogpu
def test_pinned_memory_needs_a_gpu():
    with pytest.raises(em.DeviceError):
        em.cuda.pinned_empty((4,), "float32")


@pytest.mark.skipif(NOGPU, reason="no CUDA device")
def test_pinned_round_trip():
    import numpy as np
    src = em.cuda.pinned_empty((1000, 3), "float32")
    src[...] = np.random.default_rng(0).standard_normal((1000, 3))
    x = em.asarray(src, device="cuda:0")
    back = em.cuda.pinned_empty((1000, 3), "float32")
    x.get(out=back)
    np.testing.assert_array_equal(back, src)
