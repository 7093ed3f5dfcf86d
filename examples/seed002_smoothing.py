"""Seed 002 ("Numba, GPUs and Dask"): smoothing a 2-d image with a 3x3 box
filter, three ways -- an @em.jit loop compiled for the CPU, an @em.stencil,
and a CUDA-style kernel with em.grid(2) -- all checked against NumPy, each
timed warm (median of 5 runs after a warm-up call) beside NumPy's slices."""
import time

import numpy as np

import ember as em


@em.jit
def _smooth(x):
    out = np.empty_like(x)
    for i in range(1, x.shape[0] - 1):
        for j in range(1, x.shape[1] - 1):
            out[i, j] = (x[i-1, j-1] + x[i-1, j+0] + x[i-1, j+1] +
                         x[i+0, j-1] + x[i+0, j+0] + x[i+0, j+1] +
                         x[i+1, j-1] + x[i+1, j+0] + x[i+1, j+1]) // 9
    return out


@em.stencil
def _smooth_stencil(x):
    return (x[-1, -1] + x[-1, 0] + x[-1, 1] +
            x[ 0, -1] + x[ 0, 0] + x[ 0, 1] +
            x[ 1, -1] + x[ 1, 0] + x[ 1, 1]) // 9


@em.jit
def smooth_gpu(x, out):
    i, j = em.grid(2)
    n, m = x.shape
    if 1 <= i < n - 1 and 1 <= j < m - 1:
        out[i, j] = (x[i-1, j-1] + x[i-1, j] + x[i-1, j+1] +
                     x[i  , j-1] + x[i  , j] + x[i  , j+1] +
                     x[i+1, j-1] + x[i+1, j] + x[i+1, j+1]) // 9


def median_ms(fn, runs=5):
    """Median milliseconds of fn() over several runs after a warm-up call,
    the device synchronised before each clock stop."""
    fn()
    em.get_device().synchronize()
    times = []
    for _ in range(runs):
        t0 = time.perf_counter()
        fn()
        em.get_device().synchronize()
        times.append(time.perf_counter() - t0)
    return sorted(times)[len(times) // 2] * 1e3


def reference(x):
    s = np.zeros_like(x)
    s[1:-1, 1:-1] = sum(x[1 + di:x.shape[0] - 1 + di, 1 + dj:x.shape[1] - 1 + dj]
                        for di in (-1, 0, 1) for dj in (-1, 0, 1)) // 9
    return s


if __name__ == "__main__":
    n = 4096 if em.get_device().kind == "cuda" else 1024
    x = np.random.default_rng(0).integers(0, 256, (n, n), dtype=np.int32)
    want = reference(x)
    xd = em.asarray(x)

    t0 = time.perf_counter()
    got = _smooth(x)
    compile_s = time.perf_counter() - t0
    inner = (slice(1, -1), slice(1, -1))
    print(f"@em.jit loop (CPU):   equal={np.array_equal(np.asarray(got)[inner], want[inner])}  "
          f"{median_ms(lambda: _smooth(x)):.2f} ms (the first call compiled: {compile_s:.2f} s)")

    got = _smooth_stencil(em.asarray(x))
    print(f"@em.stencil ({em.get_device()}): equal={np.array_equal(em.asnumpy(got), want)}  "
          f"{median_ms(lambda: _smooth_stencil(xd)):.2f} ms")

    out = em.zeros_like(xd)
    threads = (16, 16)
    blocks = ((n + 15) // 16, (n + 15) // 16)
    smooth_gpu[blocks, threads](xd, out)
    print(f"em.grid(2) kernel ({em.get_device()}): equal={np.array_equal(out.get(), want)}  "
          f"{median_ms(lambda: smooth_gpu[blocks, threads](xd, out)):.2f} ms")
    print(f"NumPy slices (the reference): {median_ms(lambda: reference(x)):.2f} ms")
