
// cumsum of float32 -> float32, tiles
typedef float em_scan_in;
typedef float em_scan_acc;
typedef float em_scan_out;
#define EM_ND 2
#define EM_AX 1
#ifndef EM_B
#define EM_B 256
#define EM_K 8
#endif
#define EM_T (EM_B * EM_K)
struct em_args { char *in, *out, *part; long long nlines, len, ntiles, epoch, shape[EM_ND], ist[EM_ND], ost[EM_ND]; };
EM_D em_scan_acc em_load(em_scan_in x) { return x; }
EM_D em_scan_acc em_op(em_scan_acc a, em_scan_acc b) { return em_add_f32(a, b); }
EM_D em_scan_out em_store(em_scan_acc a) { return a; }
// Byte offset of line l's first element (strides st): l over the dims but the axis, C order.
EM_D long long em_base(const em_args &p, long long l, const long long *st) {
    long long b = 0;
    for (int d = EM_ND - 1; d >= 0; d--) {
        if (d == EM_AX) continue;
        b += (l % p.shape[d]) * st[d];
        l /= p.shape[d];
    }
    return b;
}
EM_D const em_scan_in *em_src(const em_args &p, long long b, long long t) {
    return (const em_scan_in *)(p.in + b + t * p.ist[EM_AX]);
}
EM_D em_scan_out *em_dst(const em_args &p, long long b, long long t) {
    return (em_scan_out *)(p.out + b + t * p.ost[EM_AX]);
}
#define EM_UP_TREE 0
// s[0..m) (1 <= m <= EM_T, the same m in every thread) holds a tile, filled by
// the block before the call.  On return s[j] = c (+) s[0] (+) ... (+) s[j] (c
// only when has), and every thread gets s[m - 1].  Thread i owns s[iK, iK+K):
// it folds its elements, a Hillis-Steele scan over the owners' totals gives
// each owner its prefix, and each owner rescans its elements from it.  Only
// owners (i < nv) take part, reading only lower owners: no identity is needed,
// so signed zeros, infinities and NaNs come out as in a sequential scan.
// s is padded (EM_P: a word skipped every 32) so that the owners' strided
// reads of their EM_K consecutive elements fall in different banks.
#define EM_P(j) ((j) + ((j) >> 5))
// (full: false asks for the total alone; this form scans s all the same.)
EM_D em_scan_acc em_tile_scan(em_scan_acc *s, em_scan_acc *tot, int m, bool has, em_scan_acc c, bool full) {
    const int i = threadIdx.x, lo = i * EM_K, hi = lo + EM_K < m ? lo + EM_K : m;
    const int nv = (m + EM_K - 1) / EM_K;
    __syncthreads(); // s is filled
    if (lo < hi) {
        em_scan_acc r = s[EM_P(lo)];
        for (int j = lo + 1; j < hi; j++) r = em_op(r, s[EM_P(j)]);
        tot[i] = r;
    }
    __syncthreads();
    for (int off = 1; off < nv; off <<= 1) {
        // invariant: tot[i] folds owners max(0, i - off + 1) .. i
        const bool act = i < nv && i >= off;
        const em_scan_acc v = act ? em_op(tot[i - off], tot[i]) : em_scan_acc();
        __syncthreads(); // every read of this step before any write
        if (act) tot[i] = v;
        __syncthreads();
    }
    if (lo < hi) {
        em_scan_acc r = s[EM_P(lo)];
        if (i > 0) r = em_op(has ? em_op(c, tot[i - 1]) : tot[i - 1], r);
        else if (has) r = em_op(c, r);
        s[EM_P(lo)] = r;
        for (int j = lo + 1; j < hi; j++) s[EM_P(j)] = r = em_op(r, s[EM_P(j)]);
    }
    __syncthreads(); // s is scanned
    return s[EM_P(m - 1)];
}
EM_D void em_tile_load(em_scan_acc *s, const em_args &p, long long bi, long long t0, int m) {
    for (int j = threadIdx.x; j < m; j += EM_B) s[EM_P(j)] = em_load(*em_src(p, bi, t0 + j));
}
// The tile (line l, tile k) for block index b = l * ntiles + k: first element t0, m elements.
#define EM_TILE(b)                                                    \
    const long long l = (b) / p.ntiles, t0 = ((b) - l * p.ntiles) * EM_T; \
    const int m = p.len - t0 < EM_T ? (int)(p.len - t0) : EM_T;       \
    const long long bi = em_base(p, l, p.ist);                         \
    __syncthreads(); /* the last tile's readers of s are done */       \
    em_tile_load(s, p, bi, t0, m);
// Phase 1: part[b] = the total of tile b, a reduction: thread i folds elements
// i, i + EM_B, ... (each step one coalesced load per warp, EM_K in flight), then
// a tree over the threads holding elements (a prefix of them: no identity).
extern "C" __global__ void __launch_bounds__(EM_B) em_scan_up(const em_args p) {
#if EM_UP_TREE
    __shared__ em_scan_acc tot[EM_B];
    const int i = threadIdx.x;
    for (long long b = blockIdx.x; b < p.nlines * p.ntiles; b += gridDim.x) {
        const long long l = b / p.ntiles, t0 = (b - l * p.ntiles) * EM_T;
        const int m = p.len - t0 < EM_T ? (int)(p.len - t0) : EM_T;
        const long long bi = em_base(p, l, p.ist);
        __syncthreads(); // the last tile's readers of tot are done
        if (i < m) {
            em_scan_in x[EM_K];
#pragma unroll
            for (int e = 0; e < EM_K; e++)
                if (i + e * EM_B < m) x[e] = *em_src(p, bi, t0 + i + e * EM_B);
            em_scan_acc r = em_load(x[0]);
#pragma unroll
            for (int e = 1; e < EM_K; e++)
                if (i + e * EM_B < m) r = em_op(r, em_load(x[e]));
            tot[i] = r;
        }
        int n = m < EM_B ? m : EM_B;
        for (int w = EM_B / 2; w > 0; w >>= 1) {
            __syncthreads();
            if (i < w && i + w < n) tot[i] = em_op(tot[i], tot[i + w]);
            if (n > w) n = w;
        }
        __syncthreads();
        if (i == 0) ((em_scan_acc *)p.part)[b] = tot[0];
    }
#else
    // Floating point: the owners' consecutive runs, then their totals scanned, as
    // phase 3 does.  A tree over strided folds groups elements far apart, whose
    // product (or sum) can overflow where every running value of the scan is in
    // range (inf * 0 = nan: the H200 found it in a cumprod of +-1, 2 and 0.5s).
    __shared__ em_scan_acc s[EM_P(EM_T)], tot[EM_B];
    for (long long b = blockIdx.x; b < p.nlines * p.ntiles; b += gridDim.x) {
        EM_TILE(b)
        const em_scan_acc r = em_tile_scan(s, tot, m, false, em_scan_acc(), false);
        if (threadIdx.x == 0) ((em_scan_acc *)p.part)[b] = r;
    }
#endif
}
// Phase 2: each line's ntiles totals scanned in place, EM_T at a time, one block per line.
extern "C" __global__ void __launch_bounds__(EM_B) em_scan_mid(const em_args p) {
    __shared__ em_scan_acc s[EM_P(EM_T)], tot[EM_B];
    for (long long l = blockIdx.x; l < p.nlines; l += gridDim.x) {
        em_scan_acc *q = (em_scan_acc *)p.part + l * p.ntiles;
        em_scan_acc c = em_scan_acc();
        for (long long t0 = 0; t0 < p.ntiles; t0 += EM_T) {
            const int m = p.ntiles - t0 < EM_T ? (int)(p.ntiles - t0) : EM_T;
            __syncthreads(); // the last chunk's readers of s are done
            for (int j = threadIdx.x; j < m; j += EM_B) s[EM_P(j)] = q[t0 + j];
            c = em_tile_scan(s, tot, m, t0 > 0, c, true);
            for (int j = threadIdx.x; j < m; j += EM_B) q[t0 + j] = s[EM_P(j)];
        }
    }
}
// Phase 3: tile b rescanned from part[b - 1] (the line's tiles before it), written out.
extern "C" __global__ void __launch_bounds__(EM_B) em_scan_down(const em_args p) {
    __shared__ em_scan_acc s[EM_P(EM_T)], tot[EM_B];
    for (long long b = blockIdx.x; b < p.nlines * p.ntiles; b += gridDim.x) {
        EM_TILE(b)
        const bool has = t0 > 0;
        const em_scan_acc c = has ? ((const em_scan_acc *)p.part)[b - 1] : em_scan_acc();
        em_tile_scan(s, tot, m, has, c, true);
        const long long bo = em_base(p, l, p.ost);
        for (int j = threadIdx.x; j < m; j += EM_B) *em_dst(p, bo, t0 + j) = em_store(s[EM_P(j)]);
    }
}
