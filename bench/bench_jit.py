"""@em.jit benchmarks: compile time, launch overhead, the seeds' kernels.

    python bench/bench_jit.py [--device cpu|cuda:0] [--quick]

Rows (each the median of several timed runs; GPU rows synchronise once per
timed batch):
  * first call: compile + launch of a new kernel with an empty kernel cache
    (EMBER_CACHE_DIR points at a fresh directory), then the same kernel in a
    new process with the disk cache warm;
  * cached launch overhead: k[1, 1](a) of an empty kernel (host time);
  * seed 001 vector add b[i] += a[i], 2^20 float32, as [2^20, 4] (the seed's
    configuration) and [2^12, 256]; NumPy's b += a for reference; on a GPU
    also its device time between events as a share of the bandwidth of a
    copy of the same size (both fit in L2: the launch is most of the time);
  * seed 002 smoothing, 8192^2 int32: the cuda.jit-style kernel with
    em.grid(2), @em.stencil, and (CPU) the @em.jit loops; NumPy slicing for
    reference.
Numba runs the same kernels where it imports (on the H100 it needs
``numpy.row_stack = numpy.vstack`` before ``import numba``, done below).
"""
import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python"))
import ember as em  # noqa: E402

if not hasattr(np, "row_stack"):
    np.row_stack = np.vstack
try:
    import numba  # noqa: E402
    from numba import cuda as ncuda  # noqa: E402
except Exception:  # not installed, or no CUDA toolkit for it
    numba = ncuda = None


def timeit(fn, sync, min_time=0.2, runs=5):
    fn()
    sync()
    n = 1
    while True:
        t = time.perf_counter()
        for _ in range(n):
            fn()
        sync()
        dt = time.perf_counter() - t
        if dt >= min_time / runs or n >= 1 << 20:
            break
        n *= 2
    times = []
    for _ in range(runs):
        t = time.perf_counter()
        for _ in range(n):
            fn()
        sync()
        times.append((time.perf_counter() - t) / n)
    return statistics.median(times)


def fmt(t):
    return f"{t * 1e6:10.2f} us" if t < 1e-3 else f"{t * 1e3:10.3f} ms"


@em.jit
def noop(a):
    pass


@em.jit
def vec_add(a, b, n):
    idx = em.threadIdx.x + em.blockIdx.x * em.blockDim.x
    if idx < n:
        b[idx] += a[idx]


@em.jit
def smooth_gpu(x, out):
    i, j = em.grid(2)
    n, m = x.shape
    if 1 <= i < n - 1 and 1 <= j < m - 1:
        out[i, j] = (x[i-1, j-1] + x[i-1, j] + x[i-1, j+1] +
                     x[i, j-1] + x[i, j] + x[i, j+1] +
                     x[i+1, j-1] + x[i+1, j] + x[i+1, j+1]) // 9


@em.jit
def smooth_cols(x, out):
    # the same, with x (the fastest thread index) on the contiguous dimension
    j, i = em.grid(2)
    n, m = x.shape
    if 1 <= i < n - 1 and 1 <= j < m - 1:
        out[i, j] = (x[i-1, j-1] + x[i-1, j] + x[i-1, j+1] +
                     x[i, j-1] + x[i, j] + x[i, j+1] +
                     x[i+1, j-1] + x[i+1, j] + x[i+1, j+1]) // 9


@em.stencil
def smooth_stencil(x):
    return (x[-1, -1] + x[-1, 0] + x[-1, 1] +
            x[0, -1] + x[0, 0] + x[0, 1] +
            x[1, -1] + x[1, 0] + x[1, 1]) // 9


@em.jit
def smooth_loops(x, out):
    for i in range(1, x.shape[0] - 1):
        for j in range(1, x.shape[1] - 1):
            out[i, j] = (x[i-1, j-1] + x[i-1, j] + x[i-1, j+1] +
                         x[i, j-1] + x[i, j] + x[i, j+1] +
                         x[i+1, j-1] + x[i+1, j] + x[i+1, j+1]) // 9


def smooth_numpy(x, out):
    out[1:-1, 1:-1] = (x[:-2, :-2] + x[:-2, 1:-1] + x[:-2, 2:] + x[1:-1, :-2] + x[1:-1, 1:-1] +
                       x[1:-1, 2:] + x[2:, :-2] + x[2:, 1:-1] + x[2:, 2:]) // 9


FIRST_CALL = """
import time, numpy as np, ember as em
@em.jit
def k(a, b, n):
    i = em.grid(1)
    if i < n:
        b[i] = a[i] * 2.0 + 1.0
a = em.ones(1024, dtype="float32", device="{dev}"); b = em.zeros(1024, dtype="float32", device="{dev}")
t = time.perf_counter(); k[4, 256](a, b, 1024); em.synchronize(); print(time.perf_counter() - t)
"""


def first_call(dev):
    """(cold cache, warm disk cache) seconds for compile + first launch, each in a new process."""
    env = dict(os.environ, PYTHONPATH=os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python"))
    with tempfile.TemporaryDirectory() as d:
        env["EMBER_CACHE_DIR"] = d
        out = []
        script = os.path.join(d, "first_call.py")  # @em.jit reads the source from a file
        with open(script, "w") as f:
            f.write(FIRST_CALL.format(dev=dev))
        for _ in range(2):
            r = subprocess.run([sys.executable, script], env=env, capture_output=True, text=True,
                               timeout=300)
            if r.returncode:
                raise RuntimeError(r.stderr)
            out.append(float(r.stdout.strip().splitlines()[-1]))
        return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--device", default="cuda:0" if em.cuda.is_available() else "cpu")
    ap.add_argument("--quick", action="store_true", help="smaller stencil (2048^2)")
    args = ap.parse_args()
    dev = args.device
    gpu = dev.startswith("cuda")
    sync = em.synchronize if gpu else (lambda: None)
    rows = []
    with em.Device(dev):
        cold, warm = first_call(dev)
        rows += [("first call: compile + launch (empty cache)", cold, None),
                 ("first call: new process, disk cache warm", warm, None)]
        a = em.zeros(16, device=dev)
        launch = noop[1, 1]
        rows.append(("cached launch k[1, 1](a), host time", timeit(lambda: launch(a), lambda: None), None))
        rows.append(("k[1, 1](a) with the [] each call", timeit(lambda: noop[1, 1](a), lambda: None), None))
        if gpu:
            rows.append(("cached launch + synchronize", timeit(lambda: launch(a), sync), None))

        n = 1 << 20
        rng = np.random.default_rng(1)
        ha, hb = rng.standard_normal(n).astype(np.float32), rng.standard_normal(n).astype(np.float32)
        ea, eb = em.asarray(ha.copy(), device=dev), em.asarray(hb.copy(), device=dev)
        t_np = timeit(lambda: np.add(hb, ha, out=hb), lambda: None)
        for cfg in ((n, 4), (n // 256, 256)):
            k = vec_add[cfg]
            t = timeit(lambda: k(ea, eb, n), sync)
            nb = None
            if numba is not None and gpu:
                na, nbb = ncuda.to_device(ha), ncuda.to_device(hb)
                nk = NUMBA_VEC[cfg]
                nb = timeit(lambda: nk(na, nbb, n), ncuda.synchronize)
            rows.append((f"seed 001 vector add 2^20 f32 [{cfg[0]}, {cfg[1]}]  (NumPy {fmt(t_np).strip()})", t, nb))
        if gpu:  # device time between events, against a copy of the same size
            from bench_kernels import event_time
            k = vec_add[n // 256, 256]
            t_add, t_copy = event_time(lambda: k(ea, eb, n)), event_time(lambda: ea.copy())
            share = (12 * n / t_add) / (8 * n / t_copy)
            rows.append((f"  same [4096, 256], device time: {12 * n / t_add / 1e9:.0f} GB/s = {100 * share:.0f} % "
                         f"of a 2^20 copy's {8 * n / t_copy / 1e9:.0f}", t_add, None))

        side = 2048 if args.quick else 8192
        hx = rng.integers(0, 256, (side, side)).astype(np.int32)
        ex = em.asarray(hx, device=dev)
        eo = em.zeros_like(ex)
        ho = np.zeros_like(hx)
        t_np = timeit(lambda: smooth_numpy(hx, ho), lambda: None, runs=3)
        tb = (16, 16)
        blocks = (-(-side // 16), -(-side // 16))
        k1, k2 = smooth_gpu[blocks, tb], smooth_cols[blocks, tb]
        nb = None
        if numba is not None and gpu:
            nx, no = ncuda.to_device(hx), ncuda.to_device(ho)
            nk = NUMBA_SMOOTH[blocks, tb]
            nb = timeit(lambda: nk(nx, no), ncuda.synchronize, runs=3)
        rows.append((f"seed 002 smooth {side}^2 i32, grid(2) kernel (NumPy {fmt(t_np).strip()})",
                     timeit(lambda: k1(ex, eo), sync, runs=3), nb))
        rows.append((f"seed 002 smooth {side}^2 i32, grid(2) x on columns",
                     timeit(lambda: k2(ex, eo), sync, runs=3), None))
        rows.append((f"seed 002 smooth {side}^2 i32, @em.stencil",
                     timeit(lambda: smooth_stencil(ex), sync, runs=3), None))
        if not gpu:
            nb = None
            if numba is not None:
                nj = numba.njit(smooth_loops.py_func)
                nb = timeit(lambda: nj(hx, ho), lambda: None, runs=3)
            rows.append((f"seed 002 smooth {side}^2 i32, @em.jit loops (one thread)",
                         timeit(lambda: smooth_loops(hx, ho), lambda: None, runs=3), nb))
    print(f"@em.jit on {dev} ({em._ember.num_threads()} CPU threads)" if not gpu else f"@em.jit on {dev}")
    print(f"{'case':72s} {'ember':>13s} {'numba':>13s}")
    for name, t, nb in rows:
        print(f"{name:72s} {fmt(t):>13s} {fmt(nb) if nb is not None else 'n/a':>13s}")


NUMBA_VEC = NUMBA_SMOOTH = None
if numba is not None:
    def _numba_kernels():
        global NUMBA_VEC, NUMBA_SMOOTH

        def nvec(a, b, n):
            idx = ncuda.threadIdx.x + ncuda.blockIdx.x * ncuda.blockDim.x
            if idx < n:
                b[idx] += a[idx]

        def nsmooth(x, out):
            i, j = ncuda.grid(2)
            n, m = x.shape
            if 1 <= i < n - 1 and 1 <= j < m - 1:
                out[i, j] = (x[i-1, j-1] + x[i-1, j] + x[i-1, j+1] + x[i, j-1] + x[i, j] +
                             x[i, j+1] + x[i+1, j-1] + x[i+1, j] + x[i+1, j+1]) // 9

        NUMBA_VEC = ncuda.jit(nvec)
        NUMBA_SMOOTH = ncuda.jit(nsmooth)

    _numba_kernels()

if __name__ == "__main__":
    main()
