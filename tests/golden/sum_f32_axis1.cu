
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
#define EM_RW 256
struct em_args {
    char *in, *out, *part;
    long long nout, m, nsplit, chunk;
    double ddof;
    long long oshape[EM_NO], ost[EM_NO], ishape[EM_NI], ist[EM_NI];
};

#define EM_RBLOCK 256
#define EM_UPB (EM_RBLOCK / EM_RW)
#define EM_LANE ((int)threadIdx.x % EM_RW)
#define EM_U0 ((long long)blockIdx.x * EM_UPB + (long long)threadIdx.x / EM_RW)
#define EM_USTEP ((long long)gridDim.x * EM_UPB)
EM_D void em_tree(em_state *sh) {
    __syncthreads();
    for (int w = EM_RBLOCK / 2; w > 0; w >>= 1) {
        if ((int)threadIdx.x < w) sh[threadIdx.x] = em_comb(sh[threadIdx.x], sh[threadIdx.x + w]);
        __syncthreads();
    }
}
template <class T> EM_D T em_shfl_down(const T &v, int d) {
    unsigned w[(sizeof(T) + 3) / 4];
    memcpy(w, &v, sizeof(T));
    for (int i = 0; i < (int)((sizeof(T) + 3) / 4); i++) w[i] = __shfl_down_sync(0xffffffffu, w[i], d);
    T r;
    memcpy(&r, w, sizeof(T));
    return r;
}
#if EM_RW == EM_RBLOCK
#define EM_UNIT_DECL __shared__ em_state sh[EM_RBLOCK];
#define EM_UNIT_END(acc) (sh[threadIdx.x] = (acc), em_tree(sh), sh[0])
#define EM_UNIT_NEXT() __syncthreads()
#else
#define EM_UNIT_DECL
EM_D em_state em_warp_end(em_state acc) {
    for (int d = 16; d > 0; d >>= 1) acc = em_comb(acc, em_shfl_down(acc, d));
    return acc;
}
#define EM_UNIT_END(acc) em_warp_end(acc)
#define EM_UNIT_NEXT() ((void)0)
#endif
/* The unit's result: the final value, or a partial state for pass 2. */
#define EM_UNIT_STORE(acc) { \
    const em_state tot = EM_UNIT_END(acc); \
    if (EM_LANE == 0) { \
        if (p.nsplit == 1) ((em_out *)p.out)[o] = em_final(tot, p.m, p.ddof); \
        else ((em_state *)p.part)[u] = tot; \
    } \
    EM_UNIT_NEXT(); }

extern "C" __global__ void __launch_bounds__(EM_RBLOCK) em_kernel(const em_args p) {
    EM_UNIT_DECL
    for (long long u = EM_U0; u < p.nout * p.nsplit; u += EM_USTEP) {
        const long long o = u / p.nsplit, s = u % p.nsplit;
        long long base = 0, r = o;
        for (int d = EM_NO - 1; d >= 0; d--) { base += (d ? r % p.oshape[d] : r) * p.ost[d]; r /= p.oshape[d]; }
        const long long k0 = s * p.chunk, k1 = k0 + p.chunk < p.m ? k0 + p.chunk : p.m;
        em_state acc = em_ident();
        long long k = k0 + EM_LANE;
        if (EM_NI == 1) { /* four loads in flight per thread: bandwidth needs them */
            for (; k + 3 * EM_RW < k1; k += 4 * EM_RW) {
                const char *a = p.in + base + k * p.ist[0];
                const long long st = EM_RW * p.ist[0];
                const em_in v0 = *(const em_in *)a, v1 = *(const em_in *)(a + st);
                const em_in v2 = *(const em_in *)(a + 2 * st), v3 = *(const em_in *)(a + 3 * st);
                acc = em_comb(acc, em_load(v0, k));
                acc = em_comb(acc, em_load(v1, k + EM_RW));
                acc = em_comb(acc, em_load(v2, k + 2 * EM_RW));
                acc = em_comb(acc, em_load(v3, k + 3 * EM_RW));
            }
        }
        for (; k < k1; k += EM_RW) {
            long long off = base, q = k;
            for (int d = EM_NI - 1; d > 0; d--) { off += (q % p.ishape[d]) * p.ist[d]; q /= p.ishape[d]; }
            off += q * p.ist[0]; /* q < ishape[0]: no division for the outermost */
            acc = em_comb(acc, em_load(*(const em_in *)(p.in + off), k));
        }
        EM_UNIT_STORE(acc);
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
