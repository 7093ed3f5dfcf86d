"""Seed 002 ("Numba, GPUs and Dask"): smoothing a 2-d image with a 3x3 box
filter, three ways -- an @em.jit loop compiled for the CPU, an @em.stencil,
and a CUDA-style kernel with em.grid(2) -- all checked against NumPy."""
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


def reference(x):
    s = np.zeros_like(x)
    s[1:-1, 1:-1] = sum(x[1 + di:x.shape[0] - 1 + di, 1 + dj:x.shape[1] - 1 + dj]
                        for di in (-1, 0, 1) for dj in (-1, 0, 1)) // 9
    return s


if __name__ == "__main__":
    n = 4096 if em.get_device().kind == "cuda" else 1024
    x = np.random.default_rng(0).integers(0, 256, (n, n), dtype=np.int32)
    want = reference(x)

    t0 = time.perf_counter()
    got = _smooth(x)
    t1 = time.perf_counter()
    inner = (slice(1, -1), slice(1, -1))
    print(f"@em.jit loop (CPU):   equal={np.array_equal(np.asarray(got)[inner], want[inner])}  "
          f"{(t1 - t0) * 1e3:.1f} ms incl. compile")

    got = _smooth_stencil(em.asarray(x))
    print(f"@em.stencil ({em.get_device()}): equal={np.array_equal(em.asnumpy(got), want)}")

    xd = em.asarray(x)
    out = em.zeros_like(xd)
    threads = (16, 16)
    blocks = ((n + 15) // 16, (n + 15) // 16)
    smooth_gpu[blocks, threads](xd, out)
    em.get_device().synchronize()
    t0 = time.perf_counter()
    smooth_gpu[blocks, threads](xd, out)
    em.get_device().synchronize()
    t1 = time.perf_counter()
    print(f"em.grid(2) kernel ({em.get_device()}): equal={np.array_equal(out.get(), want)}  "
          f"{(t1 - t0) * 1e3:.2f} ms")
