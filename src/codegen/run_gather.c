/* The general gather, scatter and nonzero over a backend's primitives
 * (em_run_take, em_run_put, em_run_nonzero; run_index.c keeps the
 * flat-position gather it predates).
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
#include "codegen/render_gather.h"
#include "codegen/run.h"
#include "core/core.h"

#include <limits.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

typedef struct em__gctx {
    const em_backend *be;
    const em_gather_spec *k;
} em__gctx;

static em_status em__g_render(const void *ctx, void *sb) {
    const em__gctx *c = ctx;
    const em_dialect *d;
    EM_CHECK(em_run_dialect(c->be, &d));
    return em_render_gather(d, c->k, sb);
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
    em_gather_spec k;
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

static em_status em__glaunch(const em_backend *be, int id, em__gplan *p, int mode, int64_t work) {
    if (work <= 0) return EM_OK;
    p->k.mode = mode;
    char key[96], name[48];
    /* nonzero's passes staged (render_gather.h) unless EMBER_NZ_STAGE=0, for A/B */
    const char *sg = getenv("EMBER_NZ_STAGE");
    p->k.stage = mode >= EM_G_COUNT && mode != EM_G_PREFIX && !(sg && strcmp(sg, "0") == 0);
    snprintf(key, sizeof key, "GX%d|%d|%d|%d|%d|%d", mode, p->k.size, p->k.m, p->k.nidx, p->k.r,
             (int)p->k.stage);
    static const char *const names[] = {"take",           "scatter_win", "scatter_keep",
                                        "scatter_dups",   "put",         "nonzero_count",
                                        "nonzero_prefix", "nonzero",     "mask_select"};
    snprintf(name, sizeof name, "%s_%dB", names[mode], p->k.size);
    const em_kfn *f;
    em__gctx c = {be, &p->k};
    EM_CHECK(em_run_kernel(be, id, key, name, EM_KNAME, em__g_render, &c, &f));
    const em_device_props *pr;
    EM_CHECK(be->props_ref(id, &pr));
    em__gargs g;
    em__gpack(p, &g);
    /* work: elements, one per thread -- or, for the nonzero kernels, blocks. */
    bool tiles = mode >= EM_G_COUNT;
    int64_t grid = tiles ? work : (work + 255) / 256, cap = (int64_t)pr->multiprocessor_count * 32;
    int slots[5 + EM_MAXDIMS]; /* a, buf, ix[nidx], err, win, keep */
    return em_run_launch(be, id, f, (unsigned)(grid < cap ? grid : cap), 256, 0, g.b, g.n, slots,
                         em_run_slots(slots, 0, 5 + p->k.nidx));
}

/* The plan shared by take and put; err: 4 int64 on the device, zeroed. */
static em_status em__gplan_make(const em_array *a, int m, int nidx, const em_array *idx,
                                em__gplan *p) {
    memset(p, 0, sizeof *p);
    if (m < 1 || m > a->ndim || nidx < 1 || nidx > EM_MAXDIMS || (nidx != 1 && nidx != m))
        return em_error(EM_EVALUE, "gather: %d index arrays for %d of %d dimensions", nidx, m,
                        a->ndim);
    int size = em_dtype_get(a->dtype)->size;
    p->k = (em_gather_spec){.size = size, .m = m, .nidx = nidx, .r = a->ndim > m ? a->ndim - m : 1};
    p->a = a;
    p->nb = em_array_size(&idx[0]);
    p->inner = 1, p->total = 1;
    for (int d = m; d < a->ndim; d++) p->inner *= a->shape[d];
    for (int d = 0; d < m; d++) p->total *= a->shape[d];
    for (int i = 0; i < nidx; i++) {
        if (idx[i].dtype != EM_INT64 || !em_array_is_c_contiguous(&idx[i]) ||
            em_array_size(&idx[i]) != p->nb)
            return em_error(EM_EVALUE,
                            "gather: indices must be C-contiguous int64 arrays of one shape");
        p->ix[i] = (const int64_t *)idx[i].data;
    }
    return EM_OK;
}

/* Read the error words back: EM_EINDEX with NumPy's message when set. */
static em_status em__gcheck(const em_backend *be, int id, int64_t *err) {
    int64_t got[4] = {0};
    EM_CHECK(be->to_host(id, got, err, sizeof got));
    if (got[0])
        return em_error(EM_EINDEX, "index %lld is out of bounds for axis %d with size %lld",
                        (long long)got[1], (int)got[2], (long long)got[3]);
    return EM_OK;
}

/* Zeroed by the backend's memset where it has one: queued, where CUDA's
 * host-to-device copy first waits for the stream (the work before the take,
 * as choice's index fill) and then for the copy: one host round trip less. */
static em_status em__gerr_alloc(const em_backend *be, int id, int64_t **err) {
    int64_t zero[4] = {0};
    EM_CHECK(be->alloc(id, sizeof zero, (void **)err));
    em_status s = be->fill ? be->fill(id, *err, sizeof zero / 4, 4, 0)
                           : be->from_host(id, *err, zero, sizeof zero);
    if (s != EM_OK) be->free(id, *err, sizeof zero);
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

static em_status em__last_writers(const em_backend *be, int id, em__gplan *p);

static em_status em__gather(const em_backend *be, const em_array *a, int m, int nidx,
                            const em_array *idx, em_array *out) {
    em__gplan p;
    em_array a1;
    a = em__as_1d(a, &m, &a1);
    EM_CHECK(em__gplan_make(a, m, nidx, idx, &p));
    if (!em_array_is_c_contiguous(out) || out->dtype != a->dtype ||
        em_array_size(out) != p.nb * p.inner)
        return em_error(EM_EVALUE,
                        "gather: out must be C-contiguous, of a's dtype and size B + a.shape[m:]");
    if (p.nb * p.inner == 0) {
        /* Nothing to copy, but NumPy still checks the indices: into an
         * indexed dimension of size 0 every index is out of bounds. */
        for (int k = 0; p.nb && k < m; k++)
            if (a->shape[k] == 0)
                return em_error(EM_EINDEX, "index is out of bounds for axis %d with size 0", k);
        if (!p.nb) return EM_OK;
        /* Positions but blocks of size 0 (a 0 in a.shape[m:]): every index is still
         * checked, by the scatter's first pass (it reads only the indices).  Before, an
         * out-of-bounds index here gave an empty result on a device (the fuzzer's
         * ember_returns:index.int_array on CUDA). */
        int id = em_array_device(a).id;
        EM_CHECK(em__gerr_alloc(be, id, &p.err));
        em_status s = be->alloc(id, (size_t)p.nb, (void **)&p.keep);
        if (s == EM_OK) {
            s = em__last_writers(be, id, &p);
            be->free(id, p.keep, (size_t)p.nb);
        }
        be->free(id, p.err, 32);
        return s;
    }
    int id = em_array_device(a).id;
    p.buf = out->data;
    EM_CHECK(em__gerr_alloc(be, id, &p.err));
    em_status s = em__glaunch(be, id, &p, EM_G_TAKE, p.nb * p.inner);
    if (s == EM_OK) s = em__gcheck(be, id, p.err);
    be->free(id, p.err, 32);
    return s;
}

/* Mark the last writer of each target (p->keep), checking every index.  A
 * winner array costs 4 bytes per target: taken when the targets are few
 * (<= 2^26) or not many more than the positions; else comparing with the
 * later positions, quadratic, for B up to 2^15; else the winner array
 * anyway. */
static em_status em__last_writers(const em_backend *be, int id, em__gplan *p) {
    bool win = p->total <= (1 << 26) || p->total <= 64 * p->nb || p->nb > (1 << 15);
    if (p->nb > INT_MAX) return em_error(EM_EUNSUPPORTED, "scatter of more than 2^31-1 positions");
    em_status s = EM_OK;
    em_array w = {0};
    if (win) {
        int64_t n = p->total;
        s = em_array_empty(&w, EM_INT32, 1, &n, em_array_device(p->a));
        if (s == EM_OK) s = em_fill(&w, EM_INT32, &(int32_t){-1});
        p->win = (int *)w.data;
        if (s == EM_OK) s = em__glaunch(be, id, p, EM_G_WIN, p->nb);
        if (s == EM_OK) s = em__gcheck(be, id, p->err);
        if (s == EM_OK) s = em__glaunch(be, id, p, EM_G_KEEP, p->nb);
    } else {
        s = em__glaunch(be, id, p, EM_G_DUPS, p->nb);
        if (s == EM_OK) s = em__gcheck(be, id, p->err);
    }
    /* The winner array goes back to the pool after the queued kernels (one stream). */
    em_array_release(&w);
    p->win = NULL;
    return s;
}

em_status em_run_put(const em_backend *be, em_array *a, int m, int nidx, const em_array *idx,
                     const em_array *values) {
    em__gplan p;
    em_array a1;
    const em_array *a_ = em__as_1d(a, &m, &a1); /* before m is read */
    EM_CHECK(em__gplan_make(a_, m, nidx, idx, &p));
    if (!em_array_is_c_contiguous(values) || values->dtype != a->dtype ||
        em_array_size(values) != p.nb * p.inner)
        return em_error(
            EM_EVALUE,
            "scatter: values must be C-contiguous, of a's dtype and size B + a.shape[m:]");
    if (p.nb == 0) return EM_OK;
    int id = em_array_device(a).id;
    p.buf = values->data;
    EM_CHECK(em__gerr_alloc(be, id, &p.err));
    em_status s = be->alloc(id, (size_t)p.nb, (void **)&p.keep);
    if (s == EM_OK) {
        s = em__last_writers(be, id, &p);
        if (s == EM_OK && p.inner) s = em__glaunch(be, id, &p, EM_G_PUT, p.nb * p.inner);
        be->free(id, p.keep, (size_t)p.nb);
    }
    be->free(id, p.err, 32);
    return s;
}

/* The truth of a's elements as bool in C order: a itself when it already is
 * (the kernels only read it; a copy was a read and a write of n bytes and a
 * launch, 8 % of a[mask] of 2^24 float32 on the H100), else a cast copy. */
static em_status em__truth(const em_array *a, em_array *truth) {
    if (a->dtype != EM_BOOL || !em_array_is_c_contiguous(a)) return em_astype(a, EM_BOOL, truth);
    em_array_view(truth, a);
    return EM_OK;
}

/* nonzero's first two passes over p->a (bool, C order, p->nb elements):
 * the true values per tile into *counts (ntile + 1 slots of cbytes,
 * allocated here, the caller frees), their prefix, and the total read back. */
static em_status em__nz_count(const em_backend *be, int id, em__gplan *p, int64_t ntile,
                              size_t cbytes, void **counts, int64_t *nnz) {
    EM_CHECK(be->alloc(id, cbytes, counts));
    const int64_t n = p->nb;
    p->buf = *counts;
    em_status s = em__glaunch(be, id, p, EM_G_COUNT, ntile);
    if (s == EM_OK) {
        p->nb = ntile;
        s = em__glaunch(be, id, p, EM_G_PREFIX, 1);
        p->nb = n;
    }
    return s == EM_OK ? be->to_host(id, nnz, (char *)*counts + ntile * 8, 8) : s;
}

em_status em_run_nonzero(const em_backend *be, const em_array *a, em_array *out) {
    if (a->ndim < 1) return em_error(EM_EVALUE, "nonzero of a 0-d array: reshape it to 1-d first");
    int id = em_array_device(a).id;
    int64_t n = em_array_size(a), nnz = 0, ntile = (n + EM_NZ_TILE - 1) / EM_NZ_TILE;
    em_array truth = {0}, res = {0};
    void *counts = NULL;
    size_t cbytes = (size_t)(ntile + 1) * 8;
    em_status s = em__truth(a, &truth); /* C order, NaN is true: NumPy's nonzero */
    em__gplan p = {.k = {.size = 1, .m = a->ndim, .nidx = 1, .r = 1},
                   .a = &truth,
                   .nb = n,
                   .inner = 1,
                   .total = n};
    if (s == EM_OK && n) s = em__nz_count(be, id, &p, ntile, cbytes, &counts, &nnz);
    int64_t shape[2] = {nnz, a->ndim};
    if (s == EM_OK) s = em_array_empty(&res, EM_INT64, 2, shape, em_array_device(a));
    p.ix[0] = (const int64_t *)res.data;
    if (s == EM_OK && nnz) s = em__glaunch(be, id, &p, EM_G_COORDS, ntile);
    if (counts) be->free(id, counts, cbytes);
    em_array_release(&truth);
    if (s != EM_OK) {
        em_array_release(&res);
        return s;
    }
    *out = res;
    return EM_OK;
}

/* a[mask] (same shapes, a C-contiguous) as nonzero's passes, the last one
 * copying the selected values instead of writing coordinates that a
 * gather would then read: no (nnz, ndim) int64 array, one pass less. */
em_status em_run_mask_select(const em_backend *be, const em_array *a, const em_array *mask,
                             em_array *out) {
    int id = em_array_device(a).id;
    int64_t n = em_array_size(a), nnz = 0, ntile = (n + EM_NZ_TILE - 1) / EM_NZ_TILE;
    em_array truth = {0}, res = {0};
    void *counts = NULL;
    size_t cbytes = (size_t)(ntile + 1) * 8;
    em_status s = em__truth(mask, &truth); /* C order */
    em__gplan p = {.k = {.size = em_dtype_get(a->dtype)->size, .m = 1, .nidx = 2, .r = 1},
                   .a = &truth,
                   .nb = n,
                   .inner = 1,
                   .total = n};
    if (s == EM_OK && n) s = em__nz_count(be, id, &p, ntile, cbytes, &counts, &nnz);
    if (s == EM_OK) s = em_array_empty(&res, a->dtype, 1, &nnz, em_array_device(a));
    p.ix[0] = (const int64_t *)res.data, p.ix[1] = (const int64_t *)a->data;
    if (s == EM_OK && nnz) s = em__glaunch(be, id, &p, EM_G_SELECT, ntile);
    if (counts) be->free(id, counts, cbytes);
    em_array_release(&truth);
    if (s != EM_OK) {
        em_array_release(&res);
        return s;
    }
    *out = res;
    return EM_OK;
}

/* Flat positions over the whole array keep run_index.c's kernel (any
 * layout of a); the other forms are the general gather's. */
em_status em_run_take(const em_backend *be, const em_array *a, int m, int nidx, const em_array *idx,
                      em_array *out) {
    if (nidx == 1 && m == a->ndim) return em_run_take_flat(be, a, &idx[0], out);
    return em__gather(be, a, m, nidx, idx, out);
}
