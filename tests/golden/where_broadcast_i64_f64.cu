
// elementwise
struct em_args {
    char *d[5];
    long long n;
    long long shape[3];
    long long st[5][3];
};

extern "C" __global__ void __launch_bounds__(256) em_kernel(const em_args p) {
    typedef int em_idx;
    const em_i64 x3 = *(const em_i64 *)p.d[3];
    const em_idx n = (em_idx)p.n, step = (em_idx)blockDim.x * gridDim.x;
    em_idx i0 = 0;
    for (em_idx i = i0 + (em_idx)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += step) {
        em_idx r = i, o0 = 0, o1 = 0, o2 = 0, o4 = 0;
        { const em_idx c = r % (em_idx)p.shape[2]; r /= (em_idx)p.shape[2]; o0 += c * (em_idx)p.st[0][2]; o1 += c * (em_idx)p.st[1][2]; o2 += c * (em_idx)p.st[2][2]; o4 += c * (em_idx)p.st[4][2]; }
        { const em_idx c = r % (em_idx)p.shape[1]; r /= (em_idx)p.shape[1]; o0 += c * (em_idx)p.st[0][1]; o1 += c * (em_idx)p.st[1][1]; o2 += c * (em_idx)p.st[2][1]; o4 += c * (em_idx)p.st[4][1]; }
        { const em_idx c = r; o0 += c * (em_idx)p.st[0][0]; o1 += c * (em_idx)p.st[1][0]; o2 += c * (em_idx)p.st[2][0]; o4 += c * (em_idx)p.st[4][0]; }
        const bool x1 = *(const bool *)(p.d[1] + o1);
        const em_i64 x2 = *(const em_i64 *)(p.d[2] + o2);
        const double x4 = *(const double *)(p.d[4] + o4);
        const em_i64 t0 = em_multiply_i64(x2, x3);
        const double t1 = em_where_f64(x1, (double)t0, x4);
        *(double *)(p.d[0] + o0) = t1;
    }
}
