
// reduction 0: float -> float via float
typedef float em_state;
EM_D em_state em_ident() { return (float)0; }
EM_D em_state em_load(float x, long long k) { return x; }
EM_D em_state em_comb(em_state a, em_state b) { return em_add(a, b); }
EM_D float em_final(em_state s, long long m, double ddof) { return s; }
typedef float em_in;
typedef float em_out;
#define EM_NO 2
#define EM_NI 1
struct em_args {
    char *in, *out, *part;
    long long nout, m, nsplit, chunk;
    double ddof;
    long long oshape[EM_NO], ost[EM_NO], ishape[EM_NI], ist[EM_NI];
};

#define EM_RBLOCK 256
EM_D void em_tree(em_state *sh) {
    __syncthreads();
    for (int w = EM_RBLOCK / 2; w > 0; w >>= 1) {
        if ((int)threadIdx.x < w) sh[threadIdx.x] = em_comb(sh[threadIdx.x], sh[threadIdx.x + w]);
        __syncthreads();
    }
}

extern "C" __global__ void __launch_bounds__(EM_RBLOCK) em_kernel(const em_args p) {
    __shared__ em_state sh[EM_RBLOCK];
    for (long long u = blockIdx.x; u < p.nout * p.nsplit; u += gridDim.x) {
        const long long o = u / p.nsplit, s = u % p.nsplit;
        long long base = 0, r = o;
        for (int d = EM_NO - 1; d >= 0; d--) { base += (d ? r % p.oshape[d] : r) * p.ost[d]; r /= p.oshape[d]; }
        const long long k0 = s * p.chunk, k1 = k0 + p.chunk < p.m ? k0 + p.chunk : p.m;
        em_state acc = em_ident();
        long long k = k0 + threadIdx.x;
        if (EM_NI == 1) { /* four loads in flight per thread: bandwidth needs them */
            for (; k + 3 * EM_RBLOCK < k1; k += 4 * EM_RBLOCK) {
                const char *a = p.in + base + k * p.ist[0];
                const long long st = EM_RBLOCK * p.ist[0];
                const em_in v0 = *(const em_in *)a, v1 = *(const em_in *)(a + st);
                const em_in v2 = *(const em_in *)(a + 2 * st), v3 = *(const em_in *)(a + 3 * st);
                acc = em_comb(acc, em_load(v0, k));
                acc = em_comb(acc, em_load(v1, k + EM_RBLOCK));
                acc = em_comb(acc, em_load(v2, k + 2 * EM_RBLOCK));
                acc = em_comb(acc, em_load(v3, k + 3 * EM_RBLOCK));
            }
        }
        for (; k < k1; k += EM_RBLOCK) {
            long long off = base, q = k;
            for (int d = EM_NI - 1; d > 0; d--) { off += (q % p.ishape[d]) * p.ist[d]; q /= p.ishape[d]; }
            off += q * p.ist[0]; /* q < ishape[0]: no division for the outermost */
            acc = em_comb(acc, em_load(*(const em_in *)(p.in + off), k));
        }
        sh[threadIdx.x] = acc;
        em_tree(sh);
        if (threadIdx.x == 0) {
            if (p.nsplit == 1) ((em_out *)p.out)[o] = em_final(sh[0], p.m, p.ddof);
            else ((em_state *)p.part)[u] = sh[0];
        }
        __syncthreads();
    }
}

extern "C" __global__ void __launch_bounds__(EM_RBLOCK) em_kernel2(const em_args p) {
    __shared__ em_state sh[EM_RBLOCK];
    for (long long o = blockIdx.x; o < p.nout; o += gridDim.x) {
        em_state acc = em_ident();
        for (long long s = threadIdx.x; s < p.nsplit; s += EM_RBLOCK)
            acc = em_comb(acc, ((const em_state *)p.part)[o * p.nsplit + s]);
        sh[threadIdx.x] = acc;
        em_tree(sh);
        if (threadIdx.x == 0) ((em_out *)p.out)[o] = em_final(sh[0], p.m, p.ddof);
        __syncthreads();
    }
}
