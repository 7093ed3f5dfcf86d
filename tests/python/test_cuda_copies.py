"""Host<->device copies against the fake driver (tests/c/fake_libcuda.c):
large pageable copies go through Ember's pinned staging buffers
(src/backend/cuda/staging.c), pinned memory keeps the driver's direct copy.
The fake's device memory is host memory and its async copies run deferred,
as a DMA would, so every byte read back is checked, and a copy that reused
a staging buffer too early would read wrong bytes.  Each test runs in a
fresh process: the staging buffers are made once per process."""
import os
import subprocess
import sys


HERE = os.path.dirname(os.path.abspath(__file__))
PYPATH = os.path.join(HERE, "..", "..", "python")

# Before ember loads the driver: 256 MiB of fake device memory, and the
# fake's counters and failure switch.
PRELUDE = """
import ctypes, os, threading
import numpy as np
fk = ctypes.CDLL(os.environ["EMBER_LIBCUDA"])
fk.fake_set(1024, ctypes.c_size_t(256 << 20))
fk.fake_calls.argtypes = [ctypes.c_char_p]
fk.fake_fail_call.argtypes = [ctypes.c_char_p, ctypes.c_int, ctypes.c_int, ctypes.c_int]
calls = lambda name: fk.fake_calls(name.encode())
import ember as em
stats = em._ember._cuda_copy_stats
M = 1 << 20

def data(n, seed, dtype=np.uint8):
    raw = np.random.default_rng(seed).integers(0, 256, n * np.dtype(dtype).itemsize, dtype=np.uint8)
    return raw.view(dtype)

def round_trip(n, seed, dtype=np.uint8):
    # Two arrays, each read after the other's copy: bytes left in a staging
    # buffer by the other copy would show.
    a, b = data(n, seed, dtype), data(n, seed + 1, dtype)
    same = lambda x, y: x.dtype == y.dtype and np.array_equal(x.view(np.uint8), y.view(np.uint8))  # NaN bits too
    da, db = em.asarray(a, device="cuda:0"), em.asarray(b, device="cuda:0")
    out = np.full_like(a, 7)
    da.get(out=out)
    return same(out, a) and same(db.get(), b) and same(em.asarray(a).get(), a)
"""


def _run(lib, code, extra_env=None):
    env = dict(os.environ, PYTHONPATH=PYPATH, EMBER_LIBCUDA=lib, **(extra_env or {}))
    env.pop("EMBER_DEVICE", None)
    r = subprocess.run([sys.executable, "-c", PRELUDE + code], capture_output=True, text=True, env=env,
                       timeout=240)
    assert r.returncode == 0, r.stderr
    return r.stdout.split(), r.stderr


def test_sizes_around_the_threshold(fake_lib):
    # 4 MiB is the threshold, chunks are a quarter of the copy up to 8 MiB.
    out, _ = _run(fake_lib, """
for n, dt in [(4 * M - 1, np.uint8), (4 * M, np.uint8), (4 * M + 1, np.uint8), (M + 1, np.float32),
              (8 * M + 1, np.uint8), (4 * M, np.float64), (33 * M + 7, np.uint8)]:
    s0 = stats()["staged"]
    print(round_trip(n, n, dt), stats()["staged"] - s0)
print(calls("async_pageable"), stats()["known"], stats()["unstaged"])
""")
    assert out == ["True", "0", "True", "6", "True", "6", "True", "6", "True", "6", "True", "6", "True", "6",
                   "0", "0", "0"]


def test_threads_copy_at_once(fake_lib):
    # Threads copying at once (small chunks: many buffer reuses) while
    # another keeps the CPU pool busy: every copy's bytes are its own.
    out, _ = _run(fake_lib, """
em._ember._cuda_copy_tune(1000, 8192)
bad = []
def copier(t):
    # Long copies (~50 chunks), few Python steps between them: they overlap.
    hs = [data(300_000 + 9973 * i + 131 * t, 100 * t + i) for i in range(4)]
    ds = [em.asarray(h, device="cuda:0") for h in hs]
    for i in range(12):
        j = i % 4
        ds[j] = em.asarray(hs[j], device="cuda:0")
        back = np.empty_like(hs[j - 1])
        ds[j - 1].get(out=back)
        if not np.array_equal(back, hs[j - 1]):
            bad.append((t, i))
def cpu_work():
    x = em.asarray(np.ones(2_000_000), device="cpu")
    for _ in range(20):
        em.eval(x * 2 + 1)
ts = [threading.Thread(target=copier, args=(t,)) for t in range(4)] + [threading.Thread(target=cpu_work)]
for t in ts: t.start()
for t in ts: t.join()
print(bad, stats()["staged"], calls("async_pageable"), fk.fake_pending())
""")
    assert out == ["[]", str(4 * (4 + 12 * 2)), "0", "0"]


def test_pinned_memory_keeps_the_direct_copy(fake_lib):
    # Ember's pinned arrays, and pinned memory from anyone else (the fake's
    # cuMemHostAlloc called directly): the driver's direct copy, no staging.
    out, _ = _run(fake_lib, """
n = 6 * M
a = em.cuda.pinned_empty(n, np.uint8)
a[...] = data(n, 1)
p = ctypes.c_void_p()
assert fk.cuMemHostAlloc(ctypes.byref(p), ctypes.c_size_t(n), 0) == 0
other = np.ctypeslib.as_array((ctypes.c_uint8 * n).from_address(p.value))
other[...] = data(n, 2)
sync0, async0 = calls("cuMemcpyHtoD") + calls("cuMemcpyDtoH"), calls("cuMemcpyHtoDAsync") + calls("cuMemcpyDtoHAsync")
ok = True
for h in (a, other, a[4096:-4096]):
    d = em.asarray(h, device="cuda:0")
    back = h.copy()
    h[...] = 0
    d.get(out=h)
    ok = ok and np.array_equal(h, back)
st = stats()
print(ok, st["known"], st["staged"], calls("cuMemcpyHtoD") + calls("cuMemcpyDtoH") - sync0,
      calls("cuMemcpyHtoDAsync") + calls("cuMemcpyDtoHAsync") - async0, calls("cuMemHostAlloc"))
""")
    # 6 direct copies; only Ember's pinned array and the fake's own block were pinned.
    assert out == ["True", "6", "0", "6", "0", "2"]


def test_failure_mid_pipeline_then_next_copy(fake_lib):
    out, _ = _run(fake_lib, """
em._ember._cuda_copy_tune(1000, 4096)
h = data(50000, 3)
d = em.asarray(h, device="cuda:0")
for call, what in [("cuMemcpyHtoDAsync", "host-to-device"), ("cuMemcpyDtoHAsync", "device-to-host")]:
    fk.fake_fail_call(call.encode(), 6, 1, 1)
    try:
        em.asarray(h, device="cuda:0") if what[0] == "h" else d.get()
        print("no error")
    except em.DeviceError as e:
        print(type(e).__name__, str(e).startswith(f"a {what} copy failed: CUDA error during {call}: "
                                                  "CUDA_ERROR_INVALID_VALUE"))
    s0 = stats()["staged"]
    print(fk.fake_pending(), round_trip(50000, 9), stats()["staged"] - s0)
""")
    assert out == ["DeviceError", "True", "0", "True", "6", "DeviceError", "True", "0", "True", "6"]


def test_no_pinned_memory_falls_back(fake_lib):
    # Pinning the second buffer fails: the first is given back, the copies
    # take the driver's path (no error), and pinning is not tried again.
    out, err = _run(fake_lib, """
fk.fake_fail_call(b"cuMemHostAlloc", 2, 1, 2)
print(round_trip(9 * M, 1), round_trip(5 * M, 2))
st = stats()
print(st["staged"], st["unstaged"], calls("cuMemHostAlloc"), calls("cuMemFreeHost"), calls("cuMemcpyHtoDAsync"))
""", {"EMBER_DEBUG": "1"})
    assert out == ["True", "True", "0", "12", "2", "1", "0"]
    assert "no pinned staging buffers" in err


def test_round_trips_on_the_device(device):
    # In-process on each available device: on a GPU the staged copies with
    # the real driver, at the threshold and chunk boundaries, and after a
    # kernel queued on a non-blocking stream; on the CPU plain copies.
    import numpy as np

    import ember as em
    rng, mib = np.random.default_rng(1), 1 << 20
    for n in (4 * mib - 1, 4 * mib + 1, 8 * mib, 33 * mib + 7):
        a, b = rng.integers(0, 256, n, np.uint8), rng.integers(0, 256, n, np.uint8)
        da, db = em.asarray(a, device=device), em.asarray(b, device=device)
        out = np.empty_like(a)
        da.get(out=out)
        assert np.array_equal(out, a) and np.array_equal(db.get(), b), n
    if str(device).startswith("cuda"):
        x = rng.random(3 * mib)
        with em.Stream(non_blocking=True):
            y = em.asarray(x, device=device) * 2 + 1
            got = y.get()
        assert np.array_equal(got, x * 2 + 1)


def test_fills_queue_a_kernel_not_a_copy(fake_lib):
    # em.zeros / ones / full and x[...] = v on a device: a fill value of at
    # most 8 bytes is never copied to the device first (a synchronous copy,
    # which also waited for all queued work); a complex128 value still is.
    # A value whose bytes repeat every 1, 2 or 4 bytes is the driver's
    # memset (the fake runs those, so the values are checked here), any
    # other a kernel with the value in its argument (the fake runs no
    # kernels: those values are checked on a real GPU by test_creation).
    from helpers import nvrtc_available
    if not nvrtc_available():
        import pytest
        pytest.skip("NVRTC is not installed")
    out, _ = _run(fake_lib, """
dev = em.Device("cuda:0")
def copies():
    return sum(calls(n) for n in ("cuMemcpyHtoD", "cuMemcpyHtoDAsync"))
x = em.zeros(1000, dtype=em.float32, device=dev)
c0, m0 = copies(), calls("cuMemset")
z = em.zeros(1000, dtype=em.float32, device=dev); i8 = em.ones(10, dtype=em.int8, device=dev)
f64 = em.full((3, 4), 2.5, dtype=em.float64, device=dev); b = em.full(7, True, device=dev)
x[...] = 3; x[2:5] = -1.5; z[::2] = 1.0
print(copies() - c0, calls("cuMemset") - m0)
print(np.all(x.get()[[0, 1, 5, 999]] == 3), np.all(x.get()[2:5] == -1.5), np.all(z.get() == 0),
      np.all(i8.get() == 1), np.all(b.get()))
em.full(4, 1 + 2j, dtype=em.complex128, device=dev)
print(copies() - c0 > 0)
""")
    # memsets: z, i8, b, x[...], x[2:5]; kernels: f64 (2.5 has no short
    # pattern) and z[::2] (strided: z stays all zero here, where no kernel runs)
    assert out == ["0", "5", "True", "True", "True", "True", "True", "True"]
