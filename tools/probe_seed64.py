"""Seed 004 in float64 -- sqrt(sum(x**2, axis=-1)) on (1000, 100, 1000) --
as CuPy RawKernels of several shapes, to find what reaches the read floor
before Ember's renderer changes: a warp per row (Ember's form) with 64- or
32-bit indices, unroll 8 or 16, streaming loads, sqrt fused into the store,
a persistent grid, half a warp per row.  Checks each against CuPy, then
prints a table of median kernel times (events).  Run on the device machine:
python3 tools/probe_seed64.py"""
import cupy as cp
import numpy as np

SMS = cp.cuda.Device().attributes["MultiProcessorCount"]

SRC = r"""
template <class I, int U, int LANES, bool SQRT, bool CS>
__device__ void rows(const double *x, I nrow, I m, double *out, I row0, I rstep) {
    const int lane = threadIdx.x % LANES;
    const I G = m / 2;
    for (I r = row0; r < nrow; r += rstep) {
        const double2 *xv = (const double2 *)(x + r * m);
        double acc = 0;
        I g = lane;
        for (; g < G; g += U * LANES) {
            double2 w[U];
#pragma unroll
            for (int j = 0; j < U; j++)
                if (g + j * LANES < G) w[j] = CS ? __ldcs(xv + g + j * LANES) : xv[g + j * LANES];
#pragma unroll
            for (int j = 0; j < U; j++)
                if (g + j * LANES < G) { acc += w[j].x * w[j].x; acc += w[j].y * w[j].y; }
        }
        if (m % 2 && lane == 0) { double v = x[r * m + m - 1]; acc += v * v; }
#pragma unroll
        for (int d = LANES / 2; d > 0; d >>= 1) acc += __shfl_down_sync(0xffffffffu, acc, d, LANES);
        if (lane == 0) out[r] = SQRT ? sqrt(acc) : acc;
    }
}
#define K(NAME, I, U, L, SQ, CS, PERSIST) \
extern "C" __global__ void __launch_bounds__(256) NAME(const double *x, long long nrow, long long m, double *out) { \
    const I per = 256 / L; \
    if (PERSIST) rows<I, U, L, SQ, CS>(x, (I)nrow, (I)m, out, (I)blockIdx.x * per + threadIdx.x / L, (I)gridDim.x * per); \
    else rows<I, U, L, SQ, CS>(x, (I)nrow, (I)m, out, (I)blockIdx.x * per + threadIdx.x / L, (I)nrow); \
}
K(w64_u8, long long, 8, 32, false, false, false)
K(w32_u8, int, 8, 32, false, false, false)
K(w64_u16, long long, 16, 32, false, false, false)
K(w32_u16, int, 16, 32, false, false, false)
K(w32_u8_sqrt, int, 8, 32, true, false, false)
K(w32_u16_sqrt, int, 16, 32, true, false, false)
K(w32_u16_cs, int, 16, 32, false, true, false)
K(w64_u8_sqrt, long long, 8, 32, true, false, false)
K(p32_u8, int, 8, 32, false, false, true)
K(p32_u16, int, 16, 32, false, false, true)
K(h32_u8, int, 8, 16, false, false, false)
K(h32_u16, int, 16, 16, false, false, false)
extern "C" __global__ void sqrt_k(const double *a, double *o, long long n) {
    long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;
    if (i < n) o[i] = sqrt(a[i]);
}
"""


def timed(fn, reps=30):
    s, e = cp.cuda.Event(), cp.cuda.Event()
    for _ in range(3):
        fn()
    ts = []
    for _ in range(reps):
        s.record(); fn(); e.record(); e.synchronize()
        ts.append(cp.cuda.get_elapsed_time(s, e))
    return float(np.median(ts)), float(np.min(ts))


def main():
    x = cp.random.random((1000, 100, 1000))
    nrow, m = 100000, 1000
    ref = cp.sqrt(cp.sum(x ** 2, axis=-1)).ravel()
    mod = cp.RawModule(code=SRC, options=("--std=c++17", "--fmad=false"))
    out = cp.empty(nrow)
    tmp = cp.empty(nrow)
    sq = mod.get_function("sqrt_k")
    y = cp.empty_like(x)
    cmed, _ = timed(lambda: cp.copyto(y, x))
    print(f"copy 800 MB: {cmed:.3f} ms, {2 * x.nbytes / cmed / 1e6:.0f} GB/s (read+write); "
          f"read floor for 800 MB at that rate: {x.nbytes / (2 * x.nbytes / cmed):.3f} ms")
    print(f"{'kernel':18s}{'grid':>8s}{'median ms':>11s}{'min ms':>9s}{'+sqrt ms':>10s}  ok")
    for name in ("w64_u8", "w32_u8", "w64_u16", "w32_u16", "w32_u16_cs", "w32_u8_sqrt", "w32_u16_sqrt",
                 "w64_u8_sqrt", "p32_u8", "p32_u16", "h32_u8", "h32_u16"):
        f = mod.get_function(name)
        lanes = 16 if name.startswith("h") else 32
        per = 256 // lanes
        grids = [SMS * 8, SMS * 16] if name.startswith("p") else [(nrow + per - 1) // per]
        fused = "sqrt" in name
        for g in grids:
            def run():
                f((g,), (256,), (x, np.int64(nrow), np.int64(m), tmp if not fused else out))
                if not fused:
                    sq(((nrow + 255) // 256,), (256,), (tmp, out, np.int64(nrow)))
            def run1():
                f((g,), (256,), (x, np.int64(nrow), np.int64(m), tmp if not fused else out))
            out.fill(-1)
            run()
            ok = bool(cp.allclose(out, ref, rtol=1e-12))
            med, mn = timed(run1)
            both, _ = timed(run)
            print(f"{name:18s}{g:8d}{med:11.4f}{mn:9.4f}{both:10.4f}  {ok}", flush=True)


if __name__ == "__main__":
    main()
