"""Kernel-shape experiments on the GPU, through CuPy's RawKernel (not Ember):
which load width, unroll and grid reach the bandwidth floor for the three
memory-bound shapes Ember renders -- a full sum, many short row sums (seed
004) and a binary elementwise op.  Prints one table; run on the device
machine: python3 tools/probe_kernels.py
"""
import cupy as cp
import numpy as np

SMS = cp.cuda.Device().attributes["MultiProcessorCount"]

SRC = r"""
extern "C" {
// ---- full sum: pass 1 writes one partial per block, pass 2 sums them
__global__ void __launch_bounds__(256) sum_s4(const float *x, long long n, float *part) {
    long long chunk = (n + gridDim.x - 1) / gridDim.x, k0 = blockIdx.x * chunk, k1 = min(k0 + chunk, n);
    float acc = 0;
    long long k = k0 + threadIdx.x;
    for (; k + 768 < k1; k += 1024) {
        float a = x[k], b = x[k + 256], c = x[k + 512], d = x[k + 768];
        acc += a; acc += b; acc += c; acc += d;
    }
    for (; k < k1; k += 256) acc += x[k];
    __shared__ float sh[256];
    sh[threadIdx.x] = acc; __syncthreads();
    for (int w = 128; w > 0; w >>= 1) { if (threadIdx.x < w) sh[threadIdx.x] += sh[threadIdx.x + w]; __syncthreads(); }
    if (threadIdx.x == 0) part[blockIdx.x] = sh[0];
}
}
template <int U> __device__ void sum_v(const float *x, long long n, float *part) {
    // chunks are whole float4s; every block's start is 16-byte aligned
    long long nv = n / 4, chunk = (nv + gridDim.x - 1) / gridDim.x, v0 = blockIdx.x * chunk, v1 = min(v0 + chunk, nv);
    const float4 *xv = (const float4 *)x;
    float acc = 0;
    long long v = v0 + threadIdx.x;
    for (; v + (U - 1) * 256 < v1; v += U * 256) {
        float4 t[U];
#pragma unroll
        for (int u = 0; u < U; u++) t[u] = xv[v + u * 256];
#pragma unroll
        for (int u = 0; u < U; u++) { acc += t[u].x; acc += t[u].y; acc += t[u].z; acc += t[u].w; }
    }
    for (; v < v1; v += 256) { float4 t = xv[v]; acc += t.x; acc += t.y; acc += t.z; acc += t.w; }
    if (blockIdx.x == gridDim.x - 1) for (long long k = nv * 4 + threadIdx.x; k < n; k += 256) acc += x[k];
    __shared__ float sh[256];
    sh[threadIdx.x] = acc; __syncthreads();
    for (int w = 128; w > 0; w >>= 1) { if (threadIdx.x < w) sh[threadIdx.x] += sh[threadIdx.x + w]; __syncthreads(); }
    if (threadIdx.x == 0) part[blockIdx.x] = sh[0];
}
extern "C" {
__global__ void __launch_bounds__(256) sum_v1(const float *x, long long n, float *p) { sum_v<1>(x, n, p); }
__global__ void __launch_bounds__(256) sum_v2(const float *x, long long n, float *p) { sum_v<2>(x, n, p); }
__global__ void __launch_bounds__(256) sum_v4(const float *x, long long n, float *p) { sum_v<4>(x, n, p); }
}
template <int U> __device__ void sum_g(const float *x, long long n, float *part) {
    // grid-stride over float4s: all blocks read one contiguous window at a time
    long long nv = n / 4, st = gridDim.x * 256LL, v = blockIdx.x * 256LL + threadIdx.x;
    const float4 *xv = (const float4 *)x;
    float acc = 0;
    for (; v + (U - 1) * st < nv; v += U * st) {
        float4 t[U];
#pragma unroll
        for (int u = 0; u < U; u++) t[u] = xv[v + u * st];
#pragma unroll
        for (int u = 0; u < U; u++) { acc += t[u].x; acc += t[u].y; acc += t[u].z; acc += t[u].w; }
    }
    for (; v < nv; v += st) { float4 t = xv[v]; acc += t.x; acc += t.y; acc += t.z; acc += t.w; }
    if (blockIdx.x == gridDim.x - 1) for (long long k = nv * 4 + threadIdx.x; k < n; k += 256) acc += x[k];
    __shared__ float sh[256];
    sh[threadIdx.x] = acc; __syncthreads();
    for (int w = 128; w > 0; w >>= 1) { if (threadIdx.x < w) sh[threadIdx.x] += sh[threadIdx.x + w]; __syncthreads(); }
    if (threadIdx.x == 0) part[blockIdx.x] = sh[0];
}
extern "C" {
__global__ void __launch_bounds__(256) sum_g1(const float *x, long long n, float *p) { sum_g<1>(x, n, p); }
__global__ void __launch_bounds__(256) sum_g2(const float *x, long long n, float *p) { sum_g<2>(x, n, p); }
__global__ void __launch_bounds__(256) sum_g4(const float *x, long long n, float *p) { sum_g<4>(x, n, p); }
__global__ void __launch_bounds__(256) sum_gs(const float *x, long long n, float *part) {
    // grid-stride scalar, four in flight
    long long st = gridDim.x * 256LL, k = blockIdx.x * 256LL + threadIdx.x;
    float acc = 0;
    for (; k + 3 * st < n; k += 4 * st) { float a = x[k], b = x[k + st], c = x[k + 2 * st], d = x[k + 3 * st];
        acc += a; acc += b; acc += c; acc += d; }
    for (; k < n; k += st) acc += x[k];
    __shared__ float sh[256];
    sh[threadIdx.x] = acc; __syncthreads();
    for (int w = 128; w > 0; w >>= 1) { if (threadIdx.x < w) sh[threadIdx.x] += sh[threadIdx.x + w]; __syncthreads(); }
    if (threadIdx.x == 0) part[blockIdx.x] = sh[0];
}
__global__ void __launch_bounds__(256) sum_p2(const float *part, int np, float *out) {
    float acc = 0;
    for (int s = threadIdx.x; s < np; s += 256) acc += part[s];
    __shared__ float sh[256];
    sh[threadIdx.x] = acc; __syncthreads();
    for (int w = 128; w > 0; w >>= 1) { if (threadIdx.x < w) sh[threadIdx.x] += sh[threadIdx.x + w]; __syncthreads(); }
    if (threadIdx.x == 0) out[0] = sh[0];
}

// ---- rows: out[r] = sqrt(sum(x[r, :]^2)), a warp per row
__device__ float wsum(float a) { for (int d = 16; d; d >>= 1) a += __shfl_down_sync(0xffffffffu, a, d); return a; }
__global__ void __launch_bounds__(256) rows_s4(const float *x, long long rows, long long m, float *out) {
    long long w0 = blockIdx.x * 8LL + threadIdx.x / 32, ws = gridDim.x * 8LL; int lane = threadIdx.x % 32;
    for (long long r = w0; r < rows; r += ws) {
        const float *a = x + r * m; float acc = 0; long long k = lane;
        for (; k + 96 < m; k += 128) { float p = a[k], q = a[k+32], s = a[k+64], t = a[k+96];
            acc += p*p; acc += q*q; acc += s*s; acc += t*t; }
        for (; k < m; k += 32) acc += a[k]*a[k];
        acc = wsum(acc); if (lane == 0) out[r] = sqrtf(acc);
    }
}
}
template <int U> __device__ void rows_v(const float *x, long long rows, long long m, float *out) {
    // m % 4 == 0 and x 16-byte aligned: every row starts aligned
    long long w0 = blockIdx.x * 8LL + threadIdx.x / 32, ws = gridDim.x * 8LL; int lane = threadIdx.x % 32;
    long long mv = m / 4;
    for (long long r = w0; r < rows; r += ws) {
        const float4 *a = (const float4 *)(x + r * m); float acc = 0; long long v = lane;
        for (; v + (U - 1) * 32 < mv; v += U * 32) {
            float4 t[U];
#pragma unroll
            for (int u = 0; u < U; u++) t[u] = a[v + u * 32];
#pragma unroll
            for (int u = 0; u < U; u++) { acc += t[u].x*t[u].x; acc += t[u].y*t[u].y; acc += t[u].z*t[u].z; acc += t[u].w*t[u].w; }
        }
        for (; v < mv; v += 32) { float4 t = a[v]; acc += t.x*t.x; acc += t.y*t.y; acc += t.z*t.z; acc += t.w*t.w; }
        acc = wsum(acc); if (lane == 0) out[r] = sqrtf(acc);
    }
}
extern "C" {
__global__ void __launch_bounds__(256) rows_v1(const float *x, long long r, long long m, float *o) { rows_v<1>(x, r, m, o); }
__global__ void __launch_bounds__(256) rows_v2(const float *x, long long r, long long m, float *o) { rows_v<2>(x, r, m, o); }
__global__ void __launch_bounds__(256) rows_v4(const float *x, long long r, long long m, float *o) { rows_v<4>(x, r, m, o); }

// ---- c = a + b
__global__ void __launch_bounds__(256) add_s(const float *a, const float *b, float *c, long long n) {
    for (long long i = blockIdx.x * 256LL + threadIdx.x; i < n; i += gridDim.x * 256LL) c[i] = a[i] + b[i];
}
__global__ void __launch_bounds__(256) add_s32(const float *a, const float *b, float *c, int n) {
    for (int i = blockIdx.x * 256 + threadIdx.x; i < n; i += gridDim.x * 256) c[i] = a[i] + b[i];
}
__global__ void __launch_bounds__(256) add_v(const float *a, const float *b, float *c, long long n) {
    const float4 *av = (const float4 *)a, *bv = (const float4 *)b; float4 *cv = (float4 *)c;
    long long nv = n / 4;
    for (long long i = blockIdx.x * 256LL + threadIdx.x; i < nv; i += gridDim.x * 256LL) {
        float4 x = av[i], y = bv[i];
        cv[i] = make_float4(x.x + y.x, x.y + y.y, x.z + y.z, x.w + y.w);
    }
}
__global__ void __launch_bounds__(256) add_v2(const float *a, const float *b, float *c, long long n) {
    const float4 *av = (const float4 *)a, *bv = (const float4 *)b; float4 *cv = (float4 *)c;
    long long nv = n / 4, st = gridDim.x * 256LL, i = blockIdx.x * 256LL + threadIdx.x;
    for (; i + st < nv; i += 2 * st) {
        float4 x = av[i], y = bv[i], x2 = av[i + st], y2 = bv[i + st];
        cv[i] = make_float4(x.x + y.x, x.y + y.y, x.z + y.z, x.w + y.w);
        cv[i + st] = make_float4(x2.x + y2.x, x2.y + y2.y, x2.z + y2.z, x2.w + y2.w);
    }
    for (; i < nv; i += st) { float4 x = av[i], y = bv[i]; cv[i] = make_float4(x.x + y.x, x.y + y.y, x.z + y.z, x.w + y.w); }
}
}
"""


def bench(fn, reps=30):
    for _ in range(3):
        fn()
    s, e = cp.cuda.Event(), cp.cuda.Event()
    ts = []
    for _ in range(reps):
        s.record()
        fn()
        e.record()
        e.synchronize()
        ts.append(cp.cuda.get_elapsed_time(s, e))
    return float(np.median(ts))


def main():
    mod = cp.RawModule(code=SRC, options=("-std=c++17",))
    k = {name: mod.get_function(name) for name in
         "sum_s4 sum_v1 sum_v2 sum_v4 sum_g1 sum_g2 sum_g4 sum_gs sum_p2 rows_s4 rows_v1 rows_v2 rows_v4 add_s add_s32 add_v add_v2".split()}
    for name, f in k.items():
        print(f"{name:8s} regs {f.num_regs}")
    rows = []
    # the floor: a large device-to-device copy
    n1 = 2**26
    a = cp.random.random(n1, dtype=cp.float32)
    b = cp.random.random(n1, dtype=cp.float32)
    c = cp.empty_like(a)
    t = bench(lambda: c.__setitem__(Ellipsis, a))
    rows.append(("d2d copy 2^26 f32 (cupy)", t, 8 * n1 / t / 1e6))
    # a + b
    for name, grid, nn in [("add_s", SMS * 32, n1), ("add_s", n1 // 256, n1), ("add_s32", SMS * 32, n1),
                           ("add_v", SMS * 32, n1), ("add_v", SMS * 16, n1), ("add_v", n1 // 1024, n1),
                           ("add_v2", SMS * 16, n1), ("add_v2", SMS * 8, n1)]:
        nv = np.int32(nn) if name == "add_s32" else np.int64(nn)
        t = bench(lambda: k[name]((grid,), (256,), (a, b, c, nv)))
        rows.append((f"{name} grid {grid}", t, 12 * n1 / t / 1e6))
    assert cp.allclose(c, a + b)
    del a, b, c
    # full sum
    n2 = 2**28
    x = cp.random.random(n2, dtype=cp.float32)
    ref = float(x.astype(cp.float64).sum())
    part = cp.empty(SMS * 64, cp.float32)
    out = cp.empty(1, cp.float32)
    for name in ("sum_s4", "sum_v2", "sum_v4", "sum_g1", "sum_g2", "sum_g4", "sum_gs"):
        for per in (4, 8, 16):
            g = SMS * per

            def run():
                k[name]((g,), (256,), (x, np.int64(n2), part))
                k["sum_p2"]((1,), (256,), (part, np.int32(g), out))
            t = bench(run)
            err = abs(float(out[0]) - ref) / ref
            rows.append((f"{name} grid {g} (err {err:.1e})", t, 4 * n2 / t / 1e6))
    t = bench(lambda: x.sum())
    rows.append(("cupy x.sum()", t, 4 * n2 / t / 1e6))
    del x, part
    # seed 004 rows
    R, M = 100000, 1000
    x = cp.random.random((R, M), dtype=cp.float32)
    o = cp.empty(R, cp.float32)
    ref = cp.sqrt((x.astype(cp.float64) ** 2).sum(-1))
    for name in ("rows_s4", "rows_v1", "rows_v2", "rows_v4"):
        for g in (SMS * 8, SMS * 16, R // 8):
            t = bench(lambda: k[name]((g,), (256,), (x, np.int64(R), np.int64(M), o)))
            ok = bool(cp.allclose(o, ref, rtol=1e-5))
            rows.append((f"{name} grid {g} ok={ok}", t, 4 * R * M / t / 1e6))
    print(f"{'variant':44s} {'ms':>8s} {'GB/s':>8s}")
    for name, t, bw in rows:
        print(f"{name:44s} {t:8.4f} {bw:8.0f}")


if __name__ == "__main__":
    main()
