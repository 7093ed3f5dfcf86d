
// reduction 0: float -> float via float
typedef float em_state;
EM_D em_state em_ident() { return (float)0; }
EM_D em_state em_load(float x, long long k) { return x; }
EM_D em_state em_comb(em_state a, em_state b) { return em_add_f32(a, b); }
EM_D float em_final(em_state s, long long m, double ddof) { return s; }
typedef float em_in;
typedef float em_out;
typedef int em_ix;
#define EM_NO 2
#define EM_NI 1
#define EM_RW 256
#define EM_V 4
#define EM_U 4
struct em_args {
    char *in, *out, *part;
    long long nout, m, nsplit;
    double ddof;
    long long oshape[EM_NO], ost[EM_NO], ishape[EM_NI], ist[EM_NI];
};
#define EM_FAST_DONE(g, gs, Gf) \
    if ((g) + EM_U * (gs) >= (Gf)) { em_ix n_ = (g); while (n_ < (Gf)) n_ += (gs); return n_; }
EM_D em_ix em_run(const em_args &p, em_ix k) {
    return EM_NI == 1 ? (em_ix)p.m - k : (em_ix)p.ishape[EM_NI - 1] - k % (em_ix)p.ishape[EM_NI - 1];
}
#define EM_NB 1
EM_D void em_bases(const em_args &p, em_ix o, long long *lb) {
    long long base = 0;
    em_ix r = o;
    for (int d = EM_NO - 1; d > 0; d--) { base += (r % (em_ix)p.oshape[d]) * p.ost[d]; r /= (em_ix)p.oshape[d]; }
    lb[0] = base + r * p.ost[0]; /* r < oshape[0]: no division for the outermost */
}
EM_D long long em_off(const em_args &p, em_ix k) {
    long long off = 0;
    em_ix q = k;
    for (int d = EM_NI - 1; d > 0; d--) { off += (q % (em_ix)p.ishape[d]) * p.ist[d]; q /= (em_ix)p.ishape[d]; }
    return off + q * p.ist[0]; /* q < ishape[0]: no division for the outermost */
}
EM_D void em_group(const em_args &p, const long long *lb, em_ix k, em_in *v) {
    if (em_run(p, k) >= EM_V)
        em_ldg<em_in, EM_V>(v, p.in + lb[0] + em_off(p, k), p.ist[EM_NI - 1]);
    else
        for (int e = 0; e < EM_V; e++)
            if (k + e < p.m) v[e] = *(const em_in *)(p.in + lb[0] + em_off(p, k + e));
}
EM_D bool em_wide(const em_args &p, const long long *lb) {
    return EM_NI == 1 && p.ist[0] == (long long)sizeof(em_in) && em_packable<em_in, EM_V>(p.in + lb[0]);
}
EM_D em_ix em_fast(const em_args &p, const long long *lb, em_ix g, em_ix gs, em_state &acc) {
    typedef em_pack<em_in, EM_V> P;
    const em_ix Gf = (em_ix)(p.m / EM_V);
    for (; g < Gf; g += EM_U * gs) {
        P w[EM_U];
#pragma unroll
        for (int j = 0; j < EM_U; j++)
            if (g + j * gs < Gf) w[j] = *(const P *)(p.in + lb[0] + (g + j * gs) * (em_ix)sizeof(P));
#pragma unroll
        for (int j = 0; j < EM_U; j++)
#pragma unroll
            for (int e = 0; e < EM_V; e++)
                if (g + j * gs < Gf) acc = em_comb(acc, em_load(w[j].v[e], (g + j * gs) * EM_V + e));
        EM_FAST_DONE(g, gs, Gf);
    }
    return g;
}

#define EM_RBLOCK 256
#define EM_UPB (EM_RBLOCK / EM_RW)
#define EM_LANE ((int)threadIdx.x % EM_RW)
#define EM_U0 ((em_ix)blockIdx.x * EM_UPB + (em_ix)threadIdx.x / EM_RW)
#define EM_USTEP ((em_ix)gridDim.x * EM_UPB)
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

extern "C" __global__ void __launch_bounds__(EM_RBLOCK) em_kernel(const em_args p) {
    EM_UNIT_DECL
    const em_ix G = (em_ix)((p.m + EM_V - 1) / EM_V), ns = (em_ix)p.nsplit, gs = EM_RW * ns;
    const em_ix units = (em_ix)(p.nout * p.nsplit);
    for (em_ix u = EM_U0; u < units; u += EM_USTEP) {
        const em_ix o = ns == 1 ? u : u / ns, s = u - o * ns;
        long long lb[EM_NB];
        em_bases(p, o, lb);
        em_state acc = em_ident();
        em_ix g = s * EM_RW + EM_LANE;
        if (em_wide(p, lb)) g = em_fast(p, lb, g, gs, acc);
        for (; g < G; g += gs) {
            const em_ix k = g * EM_V;
            em_in v[EM_V];
            em_group(p, lb, k, v);
#pragma unroll
            for (int e = 0; e < EM_V; e++)
                if (k + e < p.m) acc = em_comb(acc, em_load(v[e], k + e));
        }
        /* The unit's result: the final value, or a partial state for pass 2. */
        const em_state tot = EM_UNIT_END(acc);
        if (EM_LANE == 0) {
            if (p.nsplit == 1) ((em_out *)p.out)[o] = em_final(tot, p.m, p.ddof);
            else ((em_state *)p.part)[u] = tot;
        }
        EM_UNIT_NEXT();
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
