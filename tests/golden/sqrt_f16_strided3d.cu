
// elementwise
struct em_args {
    char *d[2];
    long long n;
    long long shape[3];
    long long st[2][3];
};

extern "C" __global__ void __launch_bounds__(256) em_kernel(const em_args p) {
    typedef int em_idx;
    const em_idx n = (em_idx)p.n, step = (em_idx)blockDim.x * gridDim.x;
    em_idx i0 = 0;
    for (em_idx i = i0 + (em_idx)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += step) {
        em_idx r = i, o0 = 0, o1 = 0;
        { const em_idx c = r % (em_idx)p.shape[2]; r /= (em_idx)p.shape[2]; o0 += c * (em_idx)p.st[0][2]; o1 += c * (em_idx)p.st[1][2]; }
        { const em_idx c = r % (em_idx)p.shape[1]; r /= (em_idx)p.shape[1]; o0 += c * (em_idx)p.st[0][1]; o1 += c * (em_idx)p.st[1][1]; }
        { const em_idx c = r; o0 += c * (em_idx)p.st[0][0]; o1 += c * (em_idx)p.st[1][0]; }
        const em_f16 x1 = *(const em_f16 *)(p.d[1] + o1);
        const em_f16 t0 = em_f2h((em_sqrt_f32(em_h2f(x1))));
        *(float *)(p.d[0] + o0) = em_h2f(t0);
    }
}
