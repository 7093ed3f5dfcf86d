"""Kernels: raw CUDA launch overhead and bandwidth, expression kernels.

    python bench/bench_kernels.py [--json FILE] [--n-launch N]

GPU (when ember sees one; CuPy beside it when importable):
  * the host time of a cached RawKernel launch of an empty kernel (µs per
    launch, queued without synchronising; the target is <= 5 µs);
  * vector add of 2**20 float32 (RawKernel and ElementwiseKernel) as a share
    of the device-to-device copy bandwidth (bytes moved: 12 per element for
    the add, 8 for the copy), timed with CUDA events;
  * the l2norm ReductionKernel over 2**24 float32 in GB/s.
CPU: ElementwiseKernel and ReductionKernel against the NumPy expression they
compute, at 2**20 elements and at 1000 (host overhead).
Each number is the median of several timed runs.
"""
import argparse
import json
import os
import statistics
import sys
import time

import numpy as np

try:
    import ember as em
except ImportError:
    sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "python"))
    import ember as em

NOOP = 'extern "C" __global__ void noop(float *x) {}'
ADD = r'''extern "C" __global__ void add(const float *x, const float *y, float *z, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) z[i] = x[i] + y[i];
}'''


def median_time(fn, repeat=7, number=None, sync=lambda: None):
    """Median seconds per call of fn (number calls per run, chosen to last ~20 ms)."""
    if number is None:
        number, t = 1, 0.0
        while t < 0.02:
            number *= 2
            t0 = time.perf_counter()
            for _ in range(number):
                fn()
            sync()
            t = time.perf_counter() - t0
    runs = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        for _ in range(number):
            fn()
        sync()
        runs.append((time.perf_counter() - t0) / number)
    return statistics.median(runs)


def event_time(fn, iters=50, repeat=5):
    """Median device seconds per call of fn, between CUDA events."""
    fn()
    em.synchronize()
    runs = []
    for _ in range(repeat):
        a, b = em.Event(), em.Event()
        a.record()
        for _ in range(iters):
            fn()
        b.record()
        b.synchronize()
        runs.append(em.get_elapsed_time(a, b) / 1e3 / iters)
    return statistics.median(runs)


def _cupy_event_time(cp, fn, iters=20, repeat=7):
    fn()
    cp.cuda.Device().synchronize()
    runs = []
    for _ in range(repeat):
        a, b = cp.cuda.Event(), cp.cuda.Event()
        a.record()
        for _ in range(iters):
            fn()
        b.record()
        b.synchronize()
        runs.append(cp.cuda.get_elapsed_time(a, b) / 1e3 / iters)
    return statistics.median(runs)


def expression_kernels():
    """ElementwiseKernel and ReductionKernel at bandwidth scale, Ember and
    CuPy side by side (the same kernel strings), GB/s of the bytes each
    must move; Ember's built-in expression beside them."""
    res = {}
    n = 1 << 26
    ew = ("T x, T y", "T z", "z = x + y", "ek_add")
    rk = ("T x", "T y", "x * x", "a + b", "y = sqrt(a)", "0", "l2norm")
    rows = {"elementwise add 2^26 f32": 12 * n, "l2norm 2^26 f32": 4 * n, "l2norm rows (4096, 16384) f32": 4 * n,
            "l2norm cols (16384, 4096) axis 0 f32": 4 * n}
    xs = np.random.rand(n).astype(np.float32)
    ys = np.random.rand(n).astype(np.float32)
    with em.Device("cuda:0"):
        x, y, z = em.asarray(xs), em.asarray(ys), em.empty(n, dtype=em.float32)
        ek, l2 = em.ElementwiseKernel(*ew), em.ReductionKernel(*rk)
        x2 = x.reshape(4096, 16384)
        x3 = x.reshape(16384, 4096)
        t = {"elementwise add 2^26 f32": event_time(lambda: ek(x, y, z)),
             "l2norm 2^26 f32": event_time(lambda: l2(x), iters=10),
             "l2norm rows (4096, 16384) f32": event_time(lambda: l2(x2, axis=1), iters=10),
             "l2norm cols (16384, 4096) axis 0 f32": event_time(lambda: l2(x3, axis=0), iters=10)}
        tb = event_time(lambda: em.sqrt(em.sum(x * x)), iters=10)
        np.testing.assert_allclose(float(l2(x)), np.sqrt(np.sum(xs.astype(np.float64) ** 2)), rtol=1e-4)
        np.testing.assert_allclose(l2(x2, axis=1).get(), np.sqrt((xs.reshape(4096, -1).astype(np.float64) ** 2)
                                                                 .sum(1)), rtol=1e-4)
    for k, tt in t.items():
        res[f"ember {k} GB/s"] = rows[k] / tt / 1e9
    res["ember sqrt(sum(x*x)) 2^26 f32 GB/s"] = 4 * n / tb / 1e9
    try:
        import cupy as cp
    except ImportError:
        return res
    cx, cy, cz = cp.asarray(xs), cp.asarray(ys), cp.empty(n, cp.float32)
    cek, cl2 = cp.ElementwiseKernel(*ew), cp.ReductionKernel(*rk)
    cx2, cx3 = cx.reshape(4096, 16384), cx.reshape(16384, 4096)
    ct = {"elementwise add 2^26 f32": _cupy_event_time(cp, lambda: cek(cx, cy, cz)),
          "l2norm 2^26 f32": _cupy_event_time(cp, lambda: cl2(cx), iters=10),
          "l2norm rows (4096, 16384) f32": _cupy_event_time(cp, lambda: cl2(cx2, axis=1), iters=10),
          "l2norm cols (16384, 4096) axis 0 f32": _cupy_event_time(cp, lambda: cl2(cx3, axis=0), iters=10)}
    for k, tt in ct.items():
        res[f"cupy  {k} GB/s"] = rows[k] / tt / 1e9
    return res


def gpu_results(n_launch):
    res = {}
    dev = em.Device("cuda:0")
    with dev:
        noop = em.RawKernel(NOOP, "noop")
        x = em.zeros(1, dtype=em.float32)
        args = (x,)
        noop(1, 1, args)
        dev.synchronize()
        t0 = time.perf_counter()
        for _ in range(n_launch):
            noop(1, 1, args)
        t_host = (time.perf_counter() - t0) / n_launch
        dev.synchronize()
        res["rawkernel_launch_us"] = t_host * 1e6

        n = 1 << 20
        xs = em.asarray(np.random.rand(n).astype(np.float32))
        ys = em.asarray(np.random.rand(n).astype(np.float32))
        zs = em.empty(n, dtype=em.float32)
        add = em.RawKernel(ADD, "add")
        nn = np.int32(n)
        t_add = event_time(lambda: add(((n + 255) // 256,), (256,), (xs, ys, zs, nn)))
        t_copy = event_time(lambda: xs.copy())
        ek = em.ElementwiseKernel("T x, T y", "T z", "z = x + y", "ek_add")
        t_ek = event_time(lambda: ek(xs, ys, zs))
        copy_bw = 8 * n / t_copy
        res["copy_GBps"] = copy_bw / 1e9
        res["rawkernel_add_pct_of_copy"] = 100 * (12 * n / t_add) / copy_bw
        res["elementwise_add_pct_of_copy"] = 100 * (12 * n / t_ek) / copy_bw
        np.testing.assert_allclose(zs.get(), xs.get() + ys.get())

        big = em.asarray(np.random.rand(1 << 24).astype(np.float32))
        l2 = em.ReductionKernel("T x", "T y", "x * x", "a + b", "y = sqrt(a)", "0", "l2norm")
        t_l2 = event_time(lambda: l2(big), iters=10)
        res["l2norm_2^24_GBps"] = 4 * (1 << 24) / t_l2 / 1e9
    res.update(expression_kernels())
    try:
        import cupy as cp
    except ImportError:
        return res
    knoop = cp.RawKernel(NOOP, "noop")
    cx = cp.zeros(1, dtype=cp.float32)
    knoop((1,), (1,), (cx,))
    cp.cuda.Device().synchronize()
    t0 = time.perf_counter()
    for _ in range(n_launch):
        knoop((1,), (1,), (cx,))
    res["cupy_rawkernel_launch_us"] = (time.perf_counter() - t0) / n_launch * 1e6
    cp.cuda.Device().synchronize()
    return res


def cpu_results():
    res = {}
    with em.Device("cpu"):
        sq = em.ElementwiseKernel("T x, T y", "T z", "z = (x - y) * (x - y)", "squared_diff")
        l2 = em.ReductionKernel("T x", "T y", "x * x", "a + b", "y = sqrt(a)", "0", "l2norm")
        for n in (1 << 20, 1000):
            xn, yn = np.random.rand(n).astype(np.float32), np.random.rand(n).astype(np.float32)
            x, y = em.asarray(xn), em.asarray(yn)
            res[f"squared_diff_{n}_ember_us"] = median_time(lambda: sq(x, y)) * 1e6
            res[f"squared_diff_{n}_numpy_us"] = median_time(lambda: (xn - yn) * (xn - yn)) * 1e6
            res[f"l2norm_{n}_ember_us"] = median_time(lambda: l2(x)) * 1e6
            res[f"l2norm_{n}_numpy_us"] = median_time(lambda: np.sqrt(np.sum(xn * xn))) * 1e6
    return res


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--json", help="write the results here")
    ap.add_argument("--n-launch", type=int, default=20000)
    a = ap.parse_args()
    res = {"cpu": cpu_results()}
    if em.cuda.is_available():
        res["gpu"] = gpu_results(a.n_launch)
        res["gpu_name"] = em.Device("cuda:0").name
    for section in ("cpu", "gpu"):
        for k, v in res.get(section, {}).items():
            print(f"{section:4s} {k:48s} {v:10.2f}")
    if a.json:
        with open(a.json, "w") as f:
            json.dump(res, f, indent=2)


if __name__ == "__main__":
    main()
