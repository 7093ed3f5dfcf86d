/* The general gather, scatter and nonzero on CUDA (the vtable's take, put
 * and nonzero; index.c keeps the flat-position gather it predates).
 *
 * A gather position b (one of the broadcast index shape B) addresses a's
 * first m dimensions -- one index array per dimension, or one array of flat
 * C-order positions -- and selects the block a[pos, ...] of the remaining
 * dimensions.  Element j of the result is position j / inner, element
 * j % inner of its block.  Kernels copy elements by size (1..16 bytes), so
 * one kernel serves every dtype of that size.
 *
 * Scatter keeps NumPy's rule that the last write to a repeated position
 * wins: a first pass marks, for each position b, whether a later position
 * writes the same place -- through a winner array (atomicMax of b per
 * target) when the targets are few enough to afford one int per target,
 * else by comparing with every later position (small B) -- and only the
 * last writer writes.  Bounds are checked in that first pass, so a bad
 * index raises before anything is written.
 *
 * nonzero is a three-kernel compaction over tiles of 4096 elements: count
 * the true values per tile, an exclusive scan of the tile counts (one
 * block), then each tile ranks its elements again and writes their
 * coordinates in C order; the total is the one value read back.
 */
#include "backend/cuda/cuda_internal.h"
#include "codegen/render.h"

#include <limits.h>
#include <stdio.h>
#include <string.h>

enum { EM_G_TAKE, EM_G_WIN, EM_G_KEEP, EM_G_DUPS, EM_G_PUT, EM_G_COUNT, EM_G_PREFIX, EM_G_COORDS };

/* nonzero tiles: 256 threads x 16 consecutive elements. */
#define EM_NZ_ITEMS 16
#define EM_NZ_TILE (256 * EM_NZ_ITEMS)

typedef struct em__gk {
    int mode, size; /* size: element bytes (copy kinds) */
    int m, nidx, r; /* indexed dims, index arrays, rest dims (>= 1) */
} em__gk;

static const char *em__copy_type(int size) {
    switch (size) {
    case 1: return "unsigned char";
    case 2: return "unsigned short";
    case 4: return "unsigned int";
    case 8: return "unsigned long long";
    default: return "em_b16";
    }
}

static em_status em__g_render(const void *ctx, void *sb) {
    const em__gk *k = ctx;
    em_sbuf *s = sb;
    em_sbuf_printf(s, "%s\nstruct __align__(8) em_b16 { unsigned long long lo, hi; };\n"
                      "typedef %s em_t;\n#define EM_M %d\n#define EM_NIDX %d\n#define EM_R %d\n",
                   em_render_prelude(), em__copy_type(k->size), k->m, k->nidx, k->r);
    em_sbuf_printf(s, "struct em_args {\n    char *a, *buf;\n    const long long *ix[EM_NIDX];\n"
                      "    long long *err;\n    int *win;\n    unsigned char *keep;\n"
                      "    long long nb, inner, total;\n    long long ashape[EM_M], ast[EM_M], rshape[EM_R], rst[EM_R];\n};\n");
    /* Position b -> flat target in a's first m dims and its byte offset. */
    em_sbuf_printf(s, "EM_D bool em_pos(const em_args &p, long long b, long long *flat, long long *off) {\n"
                      "    long long f = 0, o = 0;\n"
                      "    if (EM_NIDX == 1 && EM_M > 1) {\n"
                      "        long long v = p.ix[0][b];\n        if (v < 0) v += p.total;\n"
                      "        if (v < 0 || v >= p.total) {\n"
                      "            if (atomicCAS((unsigned long long *)p.err, 0ull, 1ull) == 0ull) {"
                      " p.err[1] = p.ix[0][b]; p.err[2] = 0; p.err[3] = p.total; }\n"
                      "            return false;\n        }\n        f = v;\n"
                      "        for (int d = EM_M - 1; d >= 0; d--) { o += (v %% p.ashape[d]) * p.ast[d]; v /= p.ashape[d]; }\n"
                      "    } else {\n"
                      "        for (int d = 0; d < EM_M; d++) {\n"
                      "            long long v = p.ix[EM_NIDX == 1 ? 0 : d][b], n = p.ashape[d];\n"
                      "            if (v < 0) v += n;\n"
                      "            if (v < 0 || v >= n) {\n"
                      "                if (atomicCAS((unsigned long long *)p.err, 0ull, 1ull) == 0ull) {"
                      " p.err[1] = p.ix[EM_NIDX == 1 ? 0 : d][b]; p.err[2] = d; p.err[3] = n; }\n"
                      "                return false;\n            }\n"
                      "            o += v * p.ast[d];\n            f = f * n + v;\n        }\n    }\n"
                      "    *flat = f;\n    *off = o;\n    return true;\n}\n");
    em_sbuf_printf(s, "EM_D long long em_rest(const em_args &p, long long r) {\n"
                      "    long long o = 0;\n"
                      "    for (int d = EM_R - 1; d >= 0; d--) { o += (r %% p.rshape[d]) * p.rst[d]; r /= p.rshape[d]; }\n"
                      "    return o;\n}\n");
    const char *head = "extern \"C\" __global__ void __launch_bounds__(256) em_kernel(const em_args p) {\n"
                       "    const long long step = (long long)blockDim.x * gridDim.x;\n";
    em_sbuf_printf(s, "%s", head);
    switch (k->mode) {
    case EM_G_TAKE:
    case EM_G_PUT:
        em_sbuf_printf(s, "    for (long long j = blockIdx.x * (long long)blockDim.x + threadIdx.x; j < p.nb * p.inner; j += step) {\n"
                          "        const long long b = j / p.inner;\n        long long f, o;\n");
        if (k->mode == EM_G_PUT) em_sbuf_printf(s, "        if (!p.keep[b]) continue;\n");
        em_sbuf_printf(s, "        if (!em_pos(p, b, &f, &o)) continue;\n        o += em_rest(p, j - b * p.inner);\n");
        em_sbuf_printf(s, k->mode == EM_G_TAKE ? "        ((em_t *)p.buf)[j] = *(const em_t *)(p.a + o);\n"
                                               : "        *(em_t *)(p.a + o) = ((const em_t *)p.buf)[j];\n");
        em_sbuf_printf(s, "    }\n");
        break;
    case EM_G_WIN:
    case EM_G_KEEP:
    case EM_G_DUPS:
        em_sbuf_printf(s, "    for (long long b = blockIdx.x * (long long)blockDim.x + threadIdx.x; b < p.nb; b += step) {\n"
                          "        long long f, o;\n        if (!em_pos(p, b, &f, &o)) continue;\n");
        if (k->mode == EM_G_WIN) em_sbuf_printf(s, "        atomicMax(p.win + f, (int)b);\n");
        else if (k->mode == EM_G_KEEP) em_sbuf_printf(s, "        p.keep[b] = p.win[f] == (int)b;\n");
        else
            em_sbuf_printf(s, "        unsigned char last = 1;\n"
                              "        for (long long c = b + 1; c < p.nb && last; c++) {\n"
                              "            long long f2, o2;\n            if (em_pos(p, c, &f2, &o2) && f2 == f) last = 0;\n"
                              "        }\n        p.keep[b] = last;\n");
        em_sbuf_printf(s, "    }\n");
        break;
    case EM_G_COUNT: /* a: truth (bool, C order); buf: one int64 count per tile */
        em_sbuf_printf(s, "    __shared__ long long sh[256];\n"
                          "    for (long long t = blockIdx.x; t * %d < p.nb; t += gridDim.x) {\n"
                          "        const long long j0 = t * %d + threadIdx.x * %d;\n        long long c = 0;\n"
                          "        for (int i = 0; i < %d && j0 + i < p.nb; i++) c += ((const bool *)p.a)[j0 + i];\n"
                          "        sh[threadIdx.x] = c;\n        __syncthreads();\n"
                          "        for (int w = 128; w > 0; w >>= 1) { if ((int)threadIdx.x < w) sh[threadIdx.x] += sh[threadIdx.x + w]; __syncthreads(); }\n"
                          "        if (threadIdx.x == 0) ((long long *)p.buf)[t] = sh[0];\n        __syncthreads();\n    }\n",
                       EM_NZ_TILE, EM_NZ_TILE, EM_NZ_ITEMS, EM_NZ_ITEMS);
        break;
    case EM_G_PREFIX: /* one block: buf[0..nb) counts -> exclusive prefixes, buf[nb] = total */
        em_sbuf_printf(s, "    __shared__ long long sh[256];\n"
                          "    long long *c = (long long *)p.buf;\n"
                          "    const long long per = (p.nb + 255) / 256, b0 = threadIdx.x * per;\n"
                          "    long long mine = 0;\n"
                          "    for (long long i = b0; i < b0 + per && i < p.nb; i++) mine += c[i];\n"
                          "    sh[threadIdx.x] = mine;\n    __syncthreads();\n"
                          "    for (int w = 1; w < 256; w <<= 1) {\n"
                          "        const long long v = (int)threadIdx.x >= w ? sh[threadIdx.x - w] : 0;\n"
                          "        __syncthreads();\n        sh[threadIdx.x] += v;\n        __syncthreads();\n    }\n"
                          "    long long run = sh[threadIdx.x] - mine;\n"
                          "    for (long long i = b0; i < b0 + per && i < p.nb; i++) { const long long v = c[i]; c[i] = run; run += v; }\n"
                          "    if (threadIdx.x == 255) c[p.nb] = sh[255];\n");
        break;
    default: /* EM_G_COORDS: a truth, buf tile prefixes, ix[0] the (nnz, m) output; C order kept */
        em_sbuf_printf(s, "    __shared__ long long sh[256];\n"
                          "    for (long long t = blockIdx.x; t * %d < p.nb; t += gridDim.x) {\n"
                          "        const long long j0 = t * %d + threadIdx.x * %d;\n        long long c = 0;\n"
                          "        for (int i = 0; i < %d && j0 + i < p.nb; i++) c += ((const bool *)p.a)[j0 + i];\n"
                          "        sh[threadIdx.x] = c;\n        __syncthreads();\n"
                          "        for (int w = 1; w < 256; w <<= 1) {\n"
                          "            const long long v = (int)threadIdx.x >= w ? sh[threadIdx.x - w] : 0;\n"
                          "            __syncthreads();\n            sh[threadIdx.x] += v;\n            __syncthreads();\n        }\n"
                          "        long long k = ((const long long *)p.buf)[t] + sh[threadIdx.x] - c;\n"
                          "        for (int i = 0; i < %d && j0 + i < p.nb; i++) {\n"
                          "            if (!((const bool *)p.a)[j0 + i]) continue;\n"
                          "            long long *row = (long long *)p.ix[0] + (k++) * EM_M, r = j0 + i;\n"
                          "            for (int d = EM_M - 1; d >= 0; d--) { row[d] = r %% p.ashape[d]; r /= p.ashape[d]; }\n"
                          "        }\n        __syncthreads();\n    }\n",
                       EM_NZ_TILE, EM_NZ_TILE, EM_NZ_ITEMS, EM_NZ_ITEMS, EM_NZ_ITEMS);
    }
    em_sbuf_printf(s, "}\n");
    return s->oom ? em_error(EM_ENOMEM, "out of host memory rendering a kernel") : EM_OK;
}

/* The packed argument (all fields 8 bytes: no padding). */
typedef struct em__gargs {
    unsigned char b[1024];
    size_t n;
} em__gargs;

static void em__put8(em__gargs *g, const void *v, int count) {
    memcpy(g->b + g->n, v, 8 * (size_t)count);
    g->n += 8 * (size_t)count;
}

typedef struct em__gplan {
    em__gk k;
    const em_array *a;
    char *buf;
    const int64_t *ix[EM_MAXDIMS];
    int64_t *err;
    int *win;
    unsigned char *keep;
    int64_t nb, inner, total;
} em__gplan;

static void em__gpack(const em__gplan *p, em__gargs *g) {
    const em_array *a = p->a;
    const void *ptrs[2] = {a->data, p->buf};
    g->n = 0;
    em__put8(g, ptrs, 2);
    em__put8(g, p->ix, p->k.nidx);
    const void *more[3] = {p->err, p->win, p->keep};
    em__put8(g, more, 3);
    int64_t v[3] = {p->nb, p->inner, p->total};
    em__put8(g, v, 3);
    em__put8(g, a->shape, p->k.m);
    em__put8(g, a->strides, p->k.m);
    int64_t one = 1, zero = 0;
    bool rest = a->ndim > p->k.m;
    em__put8(g, rest ? a->shape + p->k.m : &one, p->k.r);
    em__put8(g, rest ? a->strides + p->k.m : &zero, p->k.r);
}

static em_status em__glaunch(int id, em__gplan *p, int mode, int64_t work) {
    if (work <= 0) return EM_OK;
    p->k.mode = mode;
    char key[96], name[48];
    snprintf(key, sizeof key, "GX%d|%d|%d|%d|%d", mode, p->k.size, p->k.m, p->k.nidx, p->k.r);
    static const char *const names[] = {"take", "scatter_win", "scatter_keep", "scatter_dups", "put",
                                        "nonzero_count", "nonzero_prefix", "nonzero"};
    snprintf(name, sizeof name, "%s_%dB", names[mode], p->k.size);
    CUfunction f;
    EM_CHECK(em_cu_kernel(id, key, name, EM_KNAME, em__g_render, &p->k, &f));
    const em_device_props *pr;
    EM_CHECK(em_cu_props(id, &pr));
    em__gargs g;
    em__gpack(p, &g);
    /* work: elements, one per thread -- or, for the nonzero kernels, blocks. */
    bool tiles = mode >= EM_G_COUNT;
    int64_t grid = tiles ? work : (work + 255) / 256, cap = (int64_t)pr->multiprocessor_count * 32;
    return em_cu_launch(id, f, name, (unsigned)(grid < cap ? grid : cap), 256, 0, g.b);
}

/* The plan shared by take and put; err: 4 int64 on the device, zeroed. */
static em_status em__gplan_make(const em_array *a, int m, int nidx, const em_array *idx, em__gplan *p) {
    memset(p, 0, sizeof *p);
    if (m < 1 || m > a->ndim || nidx < 1 || nidx > EM_MAXDIMS || (nidx != 1 && nidx != m))
        return em_error(EM_EVALUE, "gather: %d index arrays for %d of %d dimensions", nidx, m, a->ndim);
    int size = em_dtype_get(a->dtype)->size;
    p->k = (em__gk){.size = size, .m = m, .nidx = nidx, .r = a->ndim > m ? a->ndim - m : 1};
    p->a = a;
    p->nb = em_array_size(&idx[0]);
    p->inner = 1, p->total = 1;
    for (int d = m; d < a->ndim; d++) p->inner *= a->shape[d];
    for (int d = 0; d < m; d++) p->total *= a->shape[d];
    for (int i = 0; i < nidx; i++) {
        if (idx[i].dtype != EM_INT64 || !em_array_is_c_contiguous(&idx[i]) || em_array_size(&idx[i]) != p->nb)
            return em_error(EM_EVALUE, "gather: indices must be C-contiguous int64 arrays of one shape");
        p->ix[i] = (const int64_t *)idx[i].data;
    }
    return EM_OK;
}

/* Read the error words back: EM_EINDEX with NumPy's message when set. */
static em_status em__gcheck(int id, int64_t *err) {
    int64_t got[4] = {0};
    EM_CHECK(em_cuda_backend.to_host(id, got, err, sizeof got));
    if (got[0])
        return em_error(EM_EINDEX, "index %lld is out of bounds for axis %d with size %lld", (long long)got[1],
                        (int)got[2], (long long)got[3]);
    return EM_OK;
}

static em_status em__gerr_alloc(int id, int64_t **err) {
    int64_t zero[4] = {0};
    EM_CHECK(em_cu_pool_alloc(id, sizeof zero, (void **)err));
    em_status s = em_cuda_backend.from_host(id, *err, zero, sizeof zero);
    if (s != EM_OK) em_cu_pool_free(id, *err, sizeof zero);
    return s;
}

/* A 0-d a is addressed as one dimension of size 1 (a borrowed view). */
static const em_array *em__as_1d(const em_array *a, int *m, em_array *tmp) {
    if (a->ndim) return a;
    *tmp = *a;
    tmp->ndim = 1, tmp->shape[0] = 1, tmp->strides[0] = em_dtype_get(a->dtype)->size;
    *m = 1;
    return tmp;
}

em_status em_cuda_gather(const em_array *a, int m, int nidx, const em_array *idx, em_array *out) {
    em__gplan p;
    em_array a1;
    a = em__as_1d(a, &m, &a1);
    EM_CHECK(em__gplan_make(a, m, nidx, idx, &p));
    if (!em_array_is_c_contiguous(out) || out->dtype != a->dtype || em_array_size(out) != p.nb * p.inner)
        return em_error(EM_EVALUE, "gather: out must be C-contiguous, of a's dtype and size B + a.shape[m:]");
    if (p.nb * p.inner == 0) return EM_OK;
    int id = em_array_device(a).id;
    p.buf = out->data;
    EM_CHECK(em__gerr_alloc(id, &p.err));
    em_status s = em__glaunch(id, &p, EM_G_TAKE, p.nb * p.inner);
    if (s == EM_OK) s = em__gcheck(id, p.err);
    em_cu_pool_free(id, p.err, 32);
    return s;
}

/* Mark the last writer of each target (p->keep), checking every index.  A
 * winner array costs 4 bytes per target: taken when the targets are few
 * (<= 2^26) or not many more than the positions; else comparing with the
 * later positions, quadratic, for B up to 2^15; else the winner array
 * anyway. */
static em_status em__last_writers(int id, em__gplan *p) {
    bool win = p->total <= (1 << 26) || p->total <= 64 * p->nb || p->nb > (1 << 15);
    if (p->nb > INT_MAX) return em_error(EM_EUNSUPPORTED, "scatter of more than 2^31-1 positions");
    em_status s = EM_OK;
    em_array w = {0};
    if (win) {
        int64_t n = p->total;
        s = em_array_empty(&w, EM_INT32, 1, &n, em_array_device(p->a));
        if (s == EM_OK) s = em_fill(&w, EM_INT32, &(int32_t){-1});
        p->win = (int *)w.data;
        if (s == EM_OK) s = em__glaunch(id, p, EM_G_WIN, p->nb);
        if (s == EM_OK) s = em__gcheck(id, p->err);
        if (s == EM_OK) s = em__glaunch(id, p, EM_G_KEEP, p->nb);
    } else {
        s = em__glaunch(id, p, EM_G_DUPS, p->nb);
        if (s == EM_OK) s = em__gcheck(id, p->err);
    }
    /* The winner array goes back to the pool after the queued kernels (one stream). */
    em_array_release(&w);
    p->win = NULL;
    return s;
}

em_status em_cuda_scatter(em_array *a, int m, int nidx, const em_array *idx, const em_array *values) {
    em__gplan p;
    em_array a1;
    const em_array *a_ = em__as_1d(a, &m, &a1); /* before m is read */
    EM_CHECK(em__gplan_make(a_, m, nidx, idx, &p));
    if (!em_array_is_c_contiguous(values) || values->dtype != a->dtype || em_array_size(values) != p.nb * p.inner)
        return em_error(EM_EVALUE, "scatter: values must be C-contiguous, of a's dtype and size B + a.shape[m:]");
    if (p.nb == 0) return EM_OK;
    int id = em_array_device(a).id;
    p.buf = values->data;
    EM_CHECK(em__gerr_alloc(id, &p.err));
    em_status s = em_cu_pool_alloc(id, (size_t)p.nb, (void **)&p.keep);
    if (s == EM_OK) {
        s = em__last_writers(id, &p);
        if (s == EM_OK && p.inner) s = em__glaunch(id, &p, EM_G_PUT, p.nb * p.inner);
        em_cu_pool_free(id, p.keep, (size_t)p.nb);
    }
    em_cu_pool_free(id, p.err, 32);
    return s;
}

em_status em_cuda_nonzero_dev(const em_array *a, em_array *out) {
    if (a->ndim < 1) return em_error(EM_EVALUE, "nonzero of a 0-d array: reshape it to 1-d first");
    int id = em_array_device(a).id;
    int64_t n = em_array_size(a), nnz = 0, ntile = (n + EM_NZ_TILE - 1) / EM_NZ_TILE;
    em_array truth = {0}, res = {0};
    void *counts = NULL;
    size_t cbytes = (size_t)(ntile + 1) * 8;
    em_status s = em_astype(a, EM_BOOL, &truth); /* C order, NaN is true: NumPy's nonzero */
    em__gplan p = {.k = {.size = 1, .m = a->ndim, .nidx = 1, .r = 1}, .a = &truth, .nb = n, .inner = 1,
                   .total = n};
    if (s == EM_OK && n) s = em_cu_pool_alloc(id, cbytes, &counts);
    p.buf = counts;
    if (s == EM_OK && n) s = em__glaunch(id, &p, EM_G_COUNT, ntile);
    if (s == EM_OK && n) {
        p.nb = ntile;
        s = em__glaunch(id, &p, EM_G_PREFIX, 1);
        p.nb = n;
    }
    if (s == EM_OK && n) s = em_cuda_backend.to_host(id, &nnz, (char *)counts + ntile * 8, 8);
    int64_t shape[2] = {nnz, a->ndim};
    if (s == EM_OK) s = em_array_empty(&res, EM_INT64, 2, shape, em_array_device(a));
    p.ix[0] = (const int64_t *)res.data;
    if (s == EM_OK && nnz) s = em__glaunch(id, &p, EM_G_COORDS, ntile);
    if (counts) em_cu_pool_free(id, counts, cbytes);
    em_array_release(&truth);
    if (s != EM_OK) {
        em_array_release(&res);
        return s;
    }
    *out = res;
    return EM_OK;
}
