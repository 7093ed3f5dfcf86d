/* Gather, scatter and nonzero on the CPU.
 *
 * A gather position b turns its indices into a byte offset in a (bounds
 * checked, negatives wrapped once), then copies the block a[offset + rest]
 * (the dimensions after the indexed ones) to or from a contiguous buffer.
 * Gathers and nonzero run on the thread pool; scatters check every index
 * first (in parallel) and then write in order on one thread so that, as in
 * NumPy, the last write to a repeated index wins. */
#include "backend/cpu/cast.h"
#include "backend/cpu/compact.h"
#include "backend/cpu/cpu.h"
#include "host/threadpool.h"
#include "core/core.h"

#include <stdlib.h>
#include <string.h>

/* The first out-of-bounds index met by one worker. */
typedef struct em__bad {
    int64_t pos; /* gather position (INT64_MAX: none) */
    int64_t value, size;
    int axis;
} em__bad;

typedef struct em__gather {
    const em_array *a;
    int m, nidx;
    const int64_t *ix[EM_MAXDIMS];
    int64_t total; /* prod(a.shape[:m]) for flat indices */
    int size;      /* itemsize */
    int rnd;       /* the block: a's dimensions m.. */
    int64_t rshape[EM_MAXDIMS], rstrides[EM_MAXDIMS];
    int64_t inner; /* elements per block */
    bool rcontig;  /* block is one contiguous run */
    char *buf;     /* take: out; put: values (contiguous) */
    char *base;    /* a->data */
    em__bad *bad;  /* one per worker */
} em__gather;

/* Byte offset of position b in a, or false (recording why) when out of bounds. */
static inline bool em__offset(const em__gather *g, int64_t b, int64_t *off, em__bad *bad) {
    const em_array *a = g->a;
    int64_t o = 0;
    if (g->nidx == g->m) {
        for (int k = 0; k < g->m; k++) {
            int64_t v = g->ix[k][b], n = a->shape[k];
            if (v < 0) v += n;
            if (v < 0 || v >= n) {
                *bad = (em__bad){b, g->ix[k][b], n, k};
                return false;
            }
            o += v * a->strides[k];
        }
    } else {
        int64_t v = g->ix[0][b];
        if (v < 0) v += g->total;
        if (v < 0 || v >= g->total) {
            *bad = (em__bad){b, g->ix[0][b], g->total, 0};
            return false;
        }
        for (int k = g->m - 1; k >= 0; k--) {
            o += (v % a->shape[k]) * a->strides[k];
            v /= a->shape[k];
        }
    }
    *off = o;
    return true;
}

/* Copy one block between the strided view (p, the block's dims) and the
 * contiguous buffer c; to_c picks the direction. */
static void em__block(const em__gather *g, char *p, char *c, bool to_c) {
    int64_t row = g->rnd ? g->rshape[g->rnd - 1] : 1;
    int64_t rs = g->rnd ? g->rstrides[g->rnd - 1] : g->size;
    int64_t idx[EM_MAXDIMS] = {0};
    for (int64_t done = 0; done < g->inner; done += row) {
        if (to_c)
            em_gather(row, g->size, p, rs, c);
        else
            em_scatter(row, g->size, c, p, rs);
        c += row * g->size;
        for (int k = g->rnd - 2; k >= 0; k--) { /* next row: odometer over outer dims */
            p += g->rstrides[k];
            if (++idx[k] < g->rshape[k]) break;
            p -= g->rstrides[k] * g->rshape[k];
            idx[k] = 0;
        }
    }
}

/* Copy one element or block; the common sizes get fixed-size copies. */
static inline void em__move(const em__gather *g, char *p, char *c, bool to_c) {
    if (g->inner == 1 || g->rcontig) {
        size_t n = (size_t)(g->inner * g->size);
        char *d = to_c ? c : p, *s = to_c ? p : c;
        switch (n) {
        case 1: *d = *s; return;
        case 2: memcpy(d, s, 2); return;
        case 4: memcpy(d, s, 4); return;
        case 8: memcpy(d, s, 8); return;
        case 16: memcpy(d, s, 16); return;
        default: memcpy(d, s, n); return;
        }
    }
    em__block(g, p, c, to_c);
}

/* The common case, one index per element of a 1-d (or flat contiguous)
 * source: a tight loop the compiler can keep in registers, so many loads
 * are in flight at once.  Returns the first bad position or end. */
#define EM__TAKE1(T)                                                                             \
    static int64_t em__take1_##T(const char *base, int64_t stride, int64_t n, const int64_t *ix, \
                                 T *restrict out, int64_t begin, int64_t end) {                  \
        for (int64_t b = begin; b < end; b++) {                                                  \
            int64_t v = ix[b];                                                                   \
            v += v < 0 ? n : 0;                                                                  \
            if ((uint64_t)v >= (uint64_t)n) return b;                                            \
            memcpy(&out[b], base + v * stride, sizeof(T));                                       \
        }                                                                                        \
        return end;                                                                              \
    }
typedef struct {
    uint64_t lo, hi;
} em__u128;
EM__TAKE1(uint8_t)
EM__TAKE1(uint16_t)
EM__TAKE1(uint32_t)
EM__TAKE1(uint64_t)
EM__TAKE1(em__u128)

/* Whether the fast loop applies: single elements addressed by one stride. */
static bool em__take1_ok(const em__gather *g, int64_t *stride) {
    const em_array *a = g->a;
    if (g->inner != 1 || g->nidx != 1) return false;
    if (g->m == 1) return *stride = a->strides[0], true;
    if (g->m == 0) return *stride = 0, true;
    int64_t want = g->size;
    for (int k = a->ndim - 1; k >= 0; k--) {
        if (a->shape[k] != 1 && a->strides[k] != want) return false;
        want *= a->shape[k];
    }
    return *stride = g->size, true;
}

static int64_t em__take1(const em__gather *g, int64_t stride, int64_t begin, int64_t end) {
    const char *b = g->base;
    const int64_t *ix = g->ix[0];
    int64_t n = g->total;
    switch (g->size) {
    case 1: return em__take1_uint8_t(b, stride, n, ix, (uint8_t *)g->buf, begin, end);
    case 2: return em__take1_uint16_t(b, stride, n, ix, (uint16_t *)g->buf, begin, end);
    case 4: return em__take1_uint32_t(b, stride, n, ix, (uint32_t *)g->buf, begin, end);
    case 8: return em__take1_uint64_t(b, stride, n, ix, (uint64_t *)g->buf, begin, end);
    default: return em__take1_em__u128(b, stride, n, ix, (em__u128 *)g->buf, begin, end);
    }
}

static void em__take_range(void *ctx, int64_t begin, int64_t end, int worker) {
    em__gather *g = ctx;
    int64_t step = g->inner * g->size, off, stride;
    if (em__take1_ok(g, &stride)) {
        begin = em__take1(g, stride, begin, end);
        if (begin == end) return;
    }
    for (int64_t b = begin; b < end; b++) {
        if (!em__offset(g, b, &off, &g->bad[worker])) return;
        em__move(g, g->base + off, g->buf + b * step, true);
    }
}

/* Fill g from the arguments; false when out of memory. */
static bool em__gather_init(em__gather *g, const em_array *a, int m, int nidx, const em_array *idx,
                            char *buf) {
    memset(g, 0, sizeof *g);
    g->a = a, g->m = m, g->nidx = nidx, g->buf = buf, g->base = a->data;
    g->size = EM_DTYPE_SIZE(a->dtype);
    for (int k = 0; k < nidx; k++) g->ix[k] = (const int64_t *)idx[k].data;
    g->total = 1;
    for (int k = 0; k < m; k++) g->total *= a->shape[k];
    g->rnd = a->ndim - m;
    g->inner = 1;
    int64_t want = g->size;
    g->rcontig = true;
    for (int k = a->ndim - 1; k >= m; k--) {
        g->rshape[k - m] = a->shape[k];
        g->rstrides[k - m] = a->strides[k];
        g->inner *= a->shape[k];
        if (a->shape[k] != 1 && a->strides[k] != want) g->rcontig = false;
        want *= a->shape[k];
    }
    int nw = em_pool_workers();
    g->bad = malloc(sizeof(em__bad) * (size_t)nw);
    if (!g->bad) return false;
    for (int w = 0; w < nw; w++) g->bad[w].pos = INT64_MAX;
    return true;
}

/* The earliest failure recorded by any worker, as an em_status. */
static em_status em__gather_done(em__gather *g) {
    em__bad first = {INT64_MAX, 0, 0, 0};
    for (int w = 0; w < em_pool_workers(); w++)
        if (g->bad[w].pos < first.pos) first = g->bad[w];
    free(g->bad);
    if (first.pos == INT64_MAX) return EM_OK;
    return em_error(EM_EINDEX, "index %lld is out of bounds for axis %d with size %lld",
                    (long long)first.value, first.axis, (long long)first.size);
}

em_status em_cpu_take(const em_array *a, int m, int nidx, const em_array *idx, em_array *out) {
    em__gather g;
    if (!em__gather_init(&g, a, m, nidx, idx, out->data))
        return em_error(EM_ENOMEM, "out of memory in take");
    int64_t nb = em_array_size(&idx[0]);
    int64_t grain = 16384 / (g.inner > 0 ? g.inner : 1) + 1;
    em_parallel_for(nb, grain, em__take_range, &g);
    return em__gather_done(&g);
}

/* Scatter twin of EM__TAKE1 (in order: the last write wins). */
#define EM__PUT1(T)                                                                       \
    static int64_t em__put1_##T(char *base, int64_t stride, int64_t n, const int64_t *ix, \
                                const T *vals, int64_t end) {                             \
        for (int64_t b = 0; b < end; b++) {                                               \
            int64_t v = ix[b];                                                            \
            v += v < 0 ? n : 0;                                                           \
            if ((uint64_t)v >= (uint64_t)n) return b;                                     \
            memcpy(base + v * stride, &vals[b], sizeof(T));                               \
        }                                                                                 \
        return end;                                                                       \
    }
EM__PUT1(uint8_t)
EM__PUT1(uint16_t)
EM__PUT1(uint32_t)
EM__PUT1(uint64_t)
EM__PUT1(em__u128)

static int64_t em__put1(const em__gather *g, int64_t stride, int64_t end) {
    const int64_t *ix = g->ix[0];
    int64_t n = g->total;
    switch (g->size) {
    case 1: return em__put1_uint8_t(g->base, stride, n, ix, (const uint8_t *)g->buf, end);
    case 2: return em__put1_uint16_t(g->base, stride, n, ix, (const uint16_t *)g->buf, end);
    case 4: return em__put1_uint32_t(g->base, stride, n, ix, (const uint32_t *)g->buf, end);
    case 8: return em__put1_uint64_t(g->base, stride, n, ix, (const uint64_t *)g->buf, end);
    default: return em__put1_em__u128(g->base, stride, n, ix, (const em__u128 *)g->buf, end);
    }
}

/* Bounds of positions [begin, end), without touching memory. */
static void em__check_range(void *ctx, int64_t begin, int64_t end, int worker) {
    em__gather *g = ctx;
    int64_t off;
    for (int64_t b = begin; b < end; b++)
        if (!em__offset(g, b, &off, &g->bad[worker])) return;
}

/* Every index is checked before the first write (NumPy's setitem does the
 * same), so a bad index leaves a as it was. */
em_status em_cpu_put(em_array *a, int m, int nidx, const em_array *idx, const em_array *values) {
    em__gather g;
    if (!em__gather_init(&g, a, m, nidx, idx, values->data))
        return em_error(EM_ENOMEM, "out of memory in put");
    int64_t nb = em_array_size(&idx[0]), step = g.inner * g.size, off, stride, b = 0;
    em_parallel_for(nb, 65536, em__check_range, &g);
    for (int w = 0; w < em_pool_workers(); w++)
        if (g.bad[w].pos != INT64_MAX) return em__gather_done(&g);
    if (em__take1_ok(&g, &stride)) b = em__put1(&g, stride, nb); /* stops at a bad index */
    for (; b < nb; b++) { /* the rest, or the bad index: recorded below */
        if (!em__offset(&g, b, &off, &g.bad[0])) break;
        em__move(&g, g.base + off, g.buf + b * step, false);
    }
    return em__gather_done(&g);
}

/* ---- nonzero ---------------------------------------------------------- */

enum { EM__NZ_BLOCK = 4096 };

typedef struct em__nz {
    const em_array *a;
    em_cast_fn tobool;
    bool contig;
    int size, ndim, nchunks;
    int64_t n, chunk;
    const int64_t *shape;
    int64_t *counts; /* per chunk; then the chunk's first output row */
    int64_t *out;
    volatile bool failed; /* a worker could not get its scratch buffer */
} em__nz;

/* Elements [s0, s0 + cnt) of a in C order, into tmp unless a is contiguous;
 * returns where they are. */
static const char *em__nz_read(const em__nz *z, int64_t s0, int64_t cnt, char *tmp) {
    const em_array *a = z->a;
    if (z->contig) return a->data + s0 * z->size;
    int nd = a->ndim, last = nd - 1;
    int64_t co[EM_MAXDIMS], v = s0;
    const char *p = a->data;
    for (int k = last; k >= 0; k--) {
        co[k] = v % a->shape[k], v /= a->shape[k];
        p += co[k] * a->strides[k];
    }
    for (int64_t done = 0; done < cnt;) {
        int64_t run = a->shape[last] - co[last];
        if (run > cnt - done) run = cnt - done;
        em_gather(run, z->size, p, a->strides[last], tmp + done * z->size);
        done += run;
        p += run * a->strides[last];
        co[last] += run;
        for (int k = last; k > 0 && co[k] == a->shape[k]; k--) { /* carry */
            p += a->strides[k - 1] - co[k] * a->strides[k];
            co[k] = 0;
            co[k - 1]++;
        }
    }
    return tmp;
}

/* The truth of elements [s0, s0 + cnt) as 0/1 bytes: bool data as it
 * lies (or gathered into tmp), other dtypes cast into buf. */
static const uint8_t *em__nz_mask(const em__nz *z, int64_t s0, int64_t cnt, char *tmp, bool *buf) {
    const char *p = em__nz_read(z, s0, cnt, tmp);
    if (z->a->dtype == EM_BOOL) return (const uint8_t *)p;
    z->tobool(cnt, p, buf);
    return (const uint8_t *)buf;
}

/* Runs BODY for each block [s0, s0 + cnt) of [begin, end), em__m its truth bytes. */
#define EM__NZ_SCAN(z, begin, end, BODY)                                      \
    do {                                                                      \
        bool em__b[EM__NZ_BLOCK];                                             \
        char *em__t = malloc((size_t)EM__NZ_BLOCK * 16);                      \
        for (int64_t s0 = (begin); em__t && s0 < (end); s0 += EM__NZ_BLOCK) { \
            int64_t cnt = (end)-s0 < EM__NZ_BLOCK ? (end)-s0 : EM__NZ_BLOCK;  \
            const uint8_t *em__m = em__nz_mask((z), s0, cnt, em__t, em__b);   \
            BODY                                                              \
        }                                                                     \
        if (!em__t) (z)->failed = true;                                       \
        free(em__t);                                                          \
    } while (0)

static int64_t em__count_bytes(const uint8_t *m, int64_t n) {
    int64_t k = 0;
    for (int64_t j = 0; j < n; j++) k += m[j];
    return k;
}

static void em__nz_count(void *ctx, int64_t begin, int64_t end, int worker) {
    EM_UNUSED(worker);
    em__nz *z = ctx;
    for (int64_t c = begin; c < end; c++) {
        int64_t lo = c * z->chunk, hi = lo + z->chunk < z->n ? lo + z->chunk : z->n, k = 0;
        EM__NZ_SCAN(z, lo, hi, k += em__count_bytes(em__m, cnt););
        z->counts[c] = k;
    }
}

/* 1-d fill without a branch per element (masks are unpredictable): each
 * position is written to a scratch row that advances only on a nonzero,
 * then the block's hits are copied out. */
static void em__nz_fill1(em__nz *z, int64_t lo, int64_t hi, int64_t *row) {
    int64_t *hits = malloc(sizeof(int64_t) * EM__NZ_BLOCK);
    char *tmp = malloc((size_t)EM__NZ_BLOCK * 16);
    bool buf[EM__NZ_BLOCK];
    for (int64_t s0 = lo; hits && tmp && s0 < hi; s0 += EM__NZ_BLOCK) {
        int64_t cnt = hi - s0 < EM__NZ_BLOCK ? hi - s0 : EM__NZ_BLOCK, k = 0;
        const uint8_t *m = em__nz_mask(z, s0, cnt, tmp, buf);
        for (int64_t j = 0; j < cnt; j++) {
            hits[k] = s0 + j;
            k += m[j];
        }
        memcpy(row, hits, sizeof(int64_t) * (size_t)k);
        row += k;
    }
    if (!hits || !tmp) z->failed = true;
    free(hits);
    free(tmp);
}

static void em__nz_fill(void *ctx, int64_t begin, int64_t end, int worker) {
    EM_UNUSED(worker);
    em__nz *z = ctx;
    int nd = z->ndim;
    for (int64_t c = begin; c < end; c++) {
        int64_t lo = c * z->chunk, hi = lo + z->chunk < z->n ? lo + z->chunk : z->n;
        int64_t *row = z->out + z->counts[c] * nd, co[EM_MAXDIMS], v = lo;
        if (nd == 1) { /* the coordinate is the position */
            em__nz_fill1(z, lo, hi, row);
            continue;
        }
        for (int k = nd - 1; k >= 0; k--) co[k] = v % z->shape[k], v /= z->shape[k];
        EM__NZ_SCAN(z, lo, hi, {
            for (int64_t j = 0; j < cnt; j++) {
                if (em__m[j]) {
                    memcpy(row, co, sizeof(int64_t) * (size_t)nd);
                    row += nd;
                }
                for (int k = nd - 1; k >= 0 && ++co[k] == z->shape[k]; k--) co[k] = 0;
            }
        });
    }
}

/* z set up over mask a (chunks for the pool's workers), each chunk's trues
 * counted in parallel and made into its offset (an exclusive scan); *nnz the
 * total.  The caller frees z->counts. */
static em_status em__nz_count_all(em__nz *z, const em_array *a, const char *what, int64_t *nnz) {
    *z = (em__nz){.a = a,
                  .contig = em_array_is_c_contiguous(a),
                  .size = EM_DTYPE_SIZE(a->dtype),
                  .ndim = a->ndim,
                  .shape = a->shape,
                  .n = em_array_size(a)};
    z->tobool = em_cast_table[a->dtype][EM_BOOL];
    int nw = em_pool_workers();
    z->nchunks = z->n < 65536 || nw < 2 ? 1 : 4 * nw;
    z->chunk = (z->n + z->nchunks - 1) / z->nchunks;
    if (z->chunk == 0) z->chunk = 1;
    z->counts = malloc(sizeof(int64_t) * (size_t)z->nchunks);
    if (!z->counts) return em_error(EM_ENOMEM, "out of memory in %s", what);
    em_parallel_for(z->nchunks, 1, em__nz_count, z);
    int64_t t = 0;
    for (int c = 0; c < z->nchunks; c++) {
        int64_t k = z->counts[c];
        z->counts[c] = t;
        t += k;
    }
    *nnz = t;
    if (z->failed) {
        free(z->counts);
        return em_error(EM_ENOMEM, "out of memory in %s", what);
    }
    return EM_OK;
}

em_status em_cpu_nonzero(const em_array *a, em_array *out) {
    em__nz z;
    int64_t nnz;
    EM_CHECK(em__nz_count_all(&z, a, "nonzero", &nnz));
    int64_t shape[2] = {nnz, a->ndim};
    em_array r = {0};
    em_status s = em_array_empty(&r, EM_INT64, 2, shape, em_array_device(a));
    if (s == EM_OK) {
        z.out = (int64_t *)r.data;
        if (nnz && a->ndim) em_parallel_for(z.nchunks, 1, em__nz_fill, &z);
        if (z.failed) s = em_error(EM_ENOMEM, "out of memory in nonzero");
    }
    free(z.counts);
    if (s != EM_OK) {
        em_array_release(&r);
        return s;
    }
    *out = r;
    return EM_OK;
}

/* ---- a[mask] ---------------------------------------------------------- */

/* Two passes over the same chunks as nonzero: count each chunk's trues (in
 * parallel), then each chunk compacts its values to its own offset
 * (backend/cpu/compact.c: branchless, AVX2 where the CPU has it) into a
 * scratch block whose hits are copied out, so no store lands past the
 * chunk's share of out. */
typedef struct em__msel {
    em__nz z;      /* the mask: its truth in C order, chunks, counts */
    const char *a; /* the values, C-contiguous */
    char *out;
    int size;              /* the values' itemsize */
    em_compact_fn compact; /* for size; NULL: an itemsize of its own (a memcpy each) */
} em__msel;

/* Compacts cnt values at src whose truth bytes are m into dst; returns how many. */
static int64_t em__msel_block(const em__msel *q, const char *src, const uint8_t *m, int64_t cnt,
                              char *dst) {
    if (q->compact) return q->compact(src, m, cnt, dst);
    int64_t k = 0;
    const size_t size = (size_t)q->size;
    for (int64_t j = 0; j < cnt; j++) {
        memcpy(dst + (size_t)k * size, src + (size_t)j * size, size);
        k += m[j] != 0;
    }
    return k;
}

static void em__msel_fill(void *ctx, int64_t begin, int64_t end, int worker) {
    EM_UNUSED(worker);
    em__msel *q = ctx;
    em__nz *z = &q->z;
    size_t sz = (size_t)q->size;
    char *scratch = malloc((EM__NZ_BLOCK + EM_COMPACT_SLACK) * sz);
    for (int64_t c = begin; scratch && c < end; c++) {
        int64_t lo = c * z->chunk, hi = lo + z->chunk < z->n ? lo + z->chunk : z->n;
        char *row = q->out + (size_t)z->counts[c] * sz;
        EM__NZ_SCAN(z, lo, hi, {
            int64_t k = em__msel_block(q, q->a + (size_t)s0 * sz, em__m, cnt, scratch);
            memcpy(row, scratch, (size_t)k * sz);
            row += (size_t)k * sz;
        });
    }
    if (!scratch) z->failed = true;
    free(scratch);
}

em_status em_cpu_mask_select(const em_array *a, const em_array *mask, em_array *out) {
    em__msel q = {.a = a->data, .size = EM_DTYPE_SIZE(a->dtype)};
    q.compact = em_compact_pick(q.size);
    em__nz *z = &q.z;
    int64_t nnz;
    EM_CHECK(em__nz_count_all(z, mask, "mask_select", &nnz));
    em_array r = {0};
    em_status s = em_array_empty(&r, a->dtype, 1, &nnz, em_array_device(a));
    if (s == EM_OK && nnz) {
        q.out = r.data;
        em_parallel_for(z->nchunks, 1, em__msel_fill, &q);
        if (z->failed) s = em_error(EM_ENOMEM, "out of memory in mask_select");
    }
    free(z->counts);
    if (s != EM_OK) {
        em_array_release(&r);
        return s;
    }
    *out = r;
    return EM_OK;
}
