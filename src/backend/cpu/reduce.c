/* Reductions and scans on the CPU: planning and threading; the typed
 * arithmetic is in reduce_kernels.c.
 *
 * The plan: mark each dimension reduced or kept, drop length-1 dimensions,
 * make strides positive where order does not matter, sort the dimensions by
 * input stride (largest first) and merge neighbours that are contiguous
 * with each other.  Then one of two shapes of loop:
 *
 *   inner mode  the fastest dimension is reduced: each output element folds
 *               its runs (pairwise for float sums).  Work is split over the
 *               output elements, or, for few outputs, over pieces of the
 *               reduction combined at the end (NumPy's pairwise tree for a
 *               float sum, so the result does not depend on the threads).
 *   outer mode  the fastest dimension is kept (sum(axis=0) of a C matrix):
 *               rows are accumulated into a vector of outputs (four rows a
 *               pass for real floats, in the same order: accum4), in chunks
 *               that stay in cache, split over the threads.
 *
 * Inputs of another dtype than the loop dtype are converted a block at a
 * time into scratch (as NumPy's buffered iterator does).
 */
#include "backend/cpu/cast.h"
#include "backend/cpu/cpu.h"
#include "backend/cpu/reduce_kernels.h"
#include "backend/reduce_src.h"
#include "host/threadpool.h"
#include "core/core.h"
#include "mem/hostpool.h"

#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define EM_RBLOCK 8192  /* elements converted at a time (NumPy's buffer size) */
#define EM_RCHUNK 8192  /* accumulator vector length in outer mode (<= EM_RBLOCK) */
#define EM_RGRAIN 65536 /* elements of work worth waking a thread for */
#define EM_RSLOT 16     /* bytes of the widest dtype */

typedef struct em__rdim {
    int64_t n, is, os; /* length, input and output byte strides */
    bool red;
} em__rdim;

/* The first failure of a virtual input's fill (reduce_src.h), from any worker. */
typedef struct em__vfail {
    atomic_int failed;
    em_status status;
    char msg[256];
} em__vfail;

typedef struct em__rplan {
    em_rk_op kop;
    int mode;           /* 0 fold, 1 arg (ARGMIN/ARGMAX), 2 scan */
    int which;          /* arg: 0 min / 1 max; scan: 0 sum / 1 prod */
    em_dtype in_dt, dt; /* input dtype, loop dtype */
    int isz, lsz;       /* their item sizes */
    int osz;            /* output item size (int64 for arg) */
    const em_rk_table *k;
    const char *ip;
    char *op;
    /* inner run (inner mode) or vector dim (outer mode) */
    em__rdim in;
    bool outer;
    int nk, nr; /* other kept dims, other reduced dims (outer to inner) */
    em__rdim kd[EM_MAXDIMS], rd[EM_MAXDIMS];
    int64_t K, R;  /* their products */
    int64_t chunk; /* outer mode: accumulator vector length per work item */
    bool pairwise; /* float sum of an unconverted input */
    bool nonzero;  /* COUNT_NONZERO: SUM of (x != 0) */
    bool convert;  /* input values go through em__convert */
    bool half;     /* scan with float16 output: float32 loop, rounded every step */
    bool virt;     /* a full reduction of a virtual input (reduce_src.h) */
    em_cpu_rsource src;
    em__vfail *vf;
} em__rplan;

_Thread_local em_cpu_rsource em_cpu_reduce_source;

/* ---- planning ------------------------------------------------------------- */

static void em__sort_dims(em__rdim *d, int nd) {
    for (int i = 1; i < nd; i++) {
        em__rdim t = d[i];
        int64_t key = llabs(t.is);
        int j = i;
        while (j > 0 && llabs(d[j - 1].is) < key) d[j] = d[j - 1], j--;
        d[j] = t;
    }
}

static int em__coalesce_dims(em__rdim *d, int nd) {
    int m = 0;
    for (int i = 0; i < nd; i++) {
        if (m > 0) {
            em__rdim *o = &d[m - 1];
            if (o->red == d[i].red && o->is == d[i].is * d[i].n && o->os == d[i].os * d[i].n) {
                o->n *= d[i].n;
                o->is = d[i].is, o->os = d[i].os;
                continue;
            }
        }
        d[m++] = d[i];
    }
    return m;
}

/* Collect dims: flip where allowed, drop length 1, sort, merge. */
static int em__collect_dims(em__rplan *p, const em_array *a, const bool *red, const int64_t *os,
                            em__rdim *d) {
    int nd = 0;
    char *ip = a->data;
    for (int i = 0; i < a->ndim; i++) {
        if (a->shape[i] == 1) continue;
        em__rdim x = {a->shape[i], a->strides[i], os[i], red[i]};
        /* The order along a reduced (arg) or scanned dim matters; elsewhere not. */
        bool keep_order = red[i] && p->mode != 0;
        if (x.is < 0 && !keep_order) {
            ip += (x.n - 1) * x.is;
            p->op += (x.n - 1) * x.os;
            x.is = -x.is, x.os = -x.os;
        }
        d[nd++] = x;
    }
    p->ip = ip;
    em__sort_dims(d, nd);
    return em__coalesce_dims(d, nd);
}

static void em__split_dims(em__rplan *p, em__rdim *d, int nd) {
    bool any_red = false;
    for (int i = 0; i < nd; i++) any_red |= d[i].red;
    if (!any_red) d[nd++] = (em__rdim){1, 0, 0, true}; /* a reduction over one element */
    p->in = d[nd - 1];
    p->outer = !p->in.red;
    p->nk = p->nr = 0;
    p->K = p->R = 1;
    for (int i = 0; i < nd - 1; i++) {
        if (d[i].red)
            p->rd[p->nr++] = d[i], p->R *= d[i].n;
        else
            p->kd[p->nk++] = d[i], p->K *= d[i].n;
    }
}

/* Byte offsets (input, output) of linear index idx over dims d. */
static void em__offsets(const em__rdim *d, int nd, int64_t idx, int64_t *io, int64_t *oo) {
    int64_t i_off = 0, o_off = 0;
    for (int j = nd - 1; j >= 0; j--) {
        int64_t q = idx % d[j].n;
        idx /= d[j].n;
        i_off += q * d[j].is;
        o_off += q * d[j].os;
    }
    *io = i_off;
    if (oo) *oo = o_off;
}

/* ---- scratch and conversion ---------------------------------------------- */

typedef struct em__scratch {
    char *raw, *cvt, *acc, *acc2;    /* gathered input, converted input, accumulators */
    char *nz;                        /* count_nonzero: the input as bool */
    _Alignas(16) char one[EM_RSLOT]; /* the accumulator of a single reduction */
} em__scratch;

#define EM_RSCRATCH ((size_t)EM_RBLOCK * EM_RSLOT)

/* Big buffers only where a plan needs them (conversion, vectors), from the
 * host pool so that small reductions stay cheap. */
static bool em__scratch_new(const em__rplan *p, em__scratch *s) {
    s->raw = s->cvt = s->acc2 = s->nz = NULL;
    s->acc = s->one;
    if (!p->convert && !p->outer && !p->half) return true;
    s->raw = em_host_alloc(5 * EM_RSCRATCH);
    if (!s->raw) return false;
    s->cvt = s->raw + EM_RSCRATCH, s->acc = s->cvt + EM_RSCRATCH, s->acc2 = s->acc + EM_RSCRATCH;
    s->nz = s->acc2 + EM_RSCRATCH;
    return true;
}

static void em__scratch_free(em__scratch *s) {
    if (s->raw) em_host_free(s->raw, 5 * EM_RSCRATCH);
}

/* n (<= EM_RBLOCK) input values at p (stride st) as contiguous loop-dtype values. */
static const char *em__convert(const em__rplan *p, em__scratch *sc, int64_t n, const char *src,
                               int64_t st) {
    if (st != p->isz) {
        em_gather(n, p->isz, src, st, sc->raw);
        src = sc->raw;
    }
    if (p->nonzero || (p->half && p->in_dt != EM_FLOAT16)) {
        /* count_nonzero tests for nonzero first; a float16 scan rounds its
         * inputs to float16 first (NumPy casts to dtype=float16). */
        em_dtype mid = p->nonzero ? EM_BOOL : EM_FLOAT16;
        em_cast_table[p->in_dt][mid](n, src, sc->nz);
        em_cast_table[mid][p->dt](n, sc->nz, sc->cvt);
    } else {
        em_cast_table[p->in_dt][p->dt](n, src, sc->cvt);
    }
    return sc->cvt;
}

/* One value of the input as the loop dtype (the first element of a min/max). */
static void em__load1(const em__rplan *p, const char *src, void *dst) {
    em_cast_table[p->in_dt][p->dt](1, src, dst);
}

/* The identity of the fold in the loop dtype, n times: 1 for PROD and LCM
 * (the core hands LCM no single-element reduction: lcm(1, x) is |x|), all
 * ones for AND, else 0. */
static void em__identity(const em__rplan *p, int64_t n, char *dst) {
    if (p->kop != EM_RK_PROD && p->kop != EM_RK_LCM && p->kop != EM_RK_AND) {
        memset(dst, 0, (size_t)(n * p->lsz));
        return;
    }
    int64_t one = p->kop == EM_RK_AND ? -1 : 1;
    em_cast_table[EM_INT64][p->dt](1, &one, dst);
    for (int64_t i = 1; i < n; i++) memcpy(dst + i * p->lsz, dst, (size_t)p->lsz);
}

/* ---- inner mode ----------------------------------------------------------- */

/* acc (op)= the run of n values at src (stride st); i0 is the run's first index (arg). */
static void em__fold_run(const em__rplan *p, em__scratch *sc, int64_t n, const char *src,
                         int64_t st, void *acc, int64_t *bi, int64_t i0) {
    for (int64_t b = 0; b < n;) {
        int64_t m = !p->convert ? n : (n - b < EM_RBLOCK ? n - b : EM_RBLOCK);
        const char *q = src + b * st;
        int64_t qs = st;
        if (p->convert) q = em__convert(p, sc, m, q, st), qs = p->lsz;
        if (p->mode == 1)
            p->k->argfold[p->which](m, q, qs, acc, bi, i0 + b);
        else
            p->k->fold[p->kop](m, q, qs, acc);
        b += m;
    }
}

/* Start value of one reduction whose first element is at src. */
static void em__fold_init(const em__rplan *p, const char *src, void *acc, int64_t *bi) {
    *bi = 0;
    if (p->mode == 1 || p->kop == EM_RK_MIN || p->kop == EM_RK_MAX)
        em__load1(p, src, acc);
    else
        em__identity(p, 1, acc);
}

/* Fold the runs [r0, r1) (indices over the outer reduced dims) of the
 * reduction whose first element is at base.  Arg ops have a single
 * reduced dim, so for them this is the one run with index origin 0. */
static void em__reduce_one(const em__rplan *p, em__scratch *sc, const char *base, int64_t r0,
                           int64_t r1, void *acc, int64_t *bi) {
    for (int64_t r = r0; r < r1; r++) {
        int64_t off;
        em__offsets(p->rd, p->nr, r, &off, NULL);
        em__fold_run(p, sc, p->in.n, base + off, p->in.is, acc, bi, 0);
    }
}

static void em__store(const em__rplan *p, char *dst, const void *acc, int64_t bi) {
    if (p->mode == 1)
        memcpy(dst, &bi, sizeof bi);
    else
        memcpy(dst, acc, (size_t)p->lsz);
}

/* ---- virtual input (reduce_src.h) ------------------------------------------
 * A reduction whose outputs each fold one run of in.n elements (R == 1:
 * all axes, or a suffix of them) of a C-contiguous input fetched in bands.  The runs a thread folds, and the blocks inside them,
 * are those of the materialised input: a pairwise float sum is cut only at
 * nodes of its pairwise tree (each band is one subtree, summed by the same
 * kernel); every other fold is cut at multiples of EM_RBLOCK from the run's
 * start (where em__fold_run's conversion blocks start anyway) and carries
 * its accumulator, which for those kernels is the same as one call. */

/* Elements [i0, i0 + n) of the input into *hold; false (failure kept) if not. */
static bool em__vfetch(const em__rplan *p, int64_t i0, int64_t n, em_array *hold, const char **q) {
    if (atomic_load(&p->vf->failed)) return false;
    em_status s = p->src.fill(p->src.ctx, i0, n, hold, q);
    if (s == EM_OK) return true;
    int zero = 0;
    if (atomic_compare_exchange_strong(&p->vf->failed, &zero, 1)) {
        p->vf->status = s; /* the message is this thread's: copy it for the caller */
        snprintf(p->vf->msg, sizeof p->vf->msg, "%s", em_last_error());
    }
    return false;
}

/* -0.0 in the loop dtype (float or complex): x + -0.0 is x for every x. */
static void em__negzero(const em__rplan *p, char *v) {
    bool f32 = p->dt == EM_FLOAT32 || p->dt == EM_COMPLEX64;
    int parts = p->dt == EM_COMPLEX64 || p->dt == EM_COMPLEX128 ? 2 : 1;
    for (int i = 0; i < parts; i++) {
        if (f32)
            ((float *)v)[i] = -0.0f;
        else
            ((double *)v)[i] = -0.0;
    }
}

/* *val = the pairwise sum of elements [i0, i0 + n), as the kernel's own
 * recursion computes it (its split depends on n alone). */
static void em__vpairwise(const em__rplan *p, int64_t i0, int64_t n, char *val) {
    if (n <= p->src.band) {
        em__negzero(p, val);
        em_array hold = {0};
        const char *q;
        if (em__vfetch(p, i0, n, &hold, &q)) p->k->fold[EM_RK_SUM](n, q, p->isz, val);
        em_array_release(&hold);
        return;
    }
    int64_t n2 = em_rk_pairwise_split(n);
    _Alignas(16) char right[EM_RSLOT];
    em__vpairwise(p, i0, n2, val);
    em__vpairwise(p, i0 + n2, n - n2, right);
    p->k->fold[EM_RK_SUM](1, right, p->lsz, val); /* left + right, as the kernel adds them */
}

/* em__fold_run of elements [i0, i0 + n) of the virtual input, in the
 * reduction whose first element is element org (arg indices count from it). */
static void em__vfold_run(const em__rplan *p, em__scratch *sc, int64_t i0, int64_t n, int64_t org,
                          void *acc, int64_t *bi) {
    if (p->pairwise) {
        _Alignas(16) char v[EM_RSLOT];
        em__vpairwise(p, i0, n, v);
        p->k->fold[EM_RK_SUM](1, v, p->lsz, acc);
        return;
    }
    for (int64_t b = 0; b < n; b += p->src.band) {
        int64_t m = n - b < p->src.band ? n - b : p->src.band;
        em_array hold = {0};
        const char *q;
        if (em__vfetch(p, i0 + b, m, &hold, &q))
            em__fold_run(p, sc, m, q, p->isz, acc, bi, i0 + b - org);
        em_array_release(&hold);
    }
}

/* em__fold_init of a fold starting at element i0 of the virtual input (org
 * as for em__vfold_run). */
static void em__vfold_init(const em__rplan *p, int64_t i0, int64_t org, void *acc, int64_t *bi) {
    *bi = i0 - org;
    if (p->mode != 1 && p->kop != EM_RK_MIN && p->kop != EM_RK_MAX) {
        em__identity(p, 1, acc);
        return;
    }
    em_array hold = {0};
    const char *q;
    if (em__vfetch(p, i0, 1, &hold, &q))
        em__load1(p, q, acc);
    else
        em__identity(p, 1, acc); /* any value: the failure is reported */
    em_array_release(&hold);
}

static void em__inner_range(void *ctx, int64_t b, int64_t e, int worker) {
    EM_UNUSED(worker);
    const em__rplan *p = ctx;
    em__scratch sc;
    if (!em__scratch_new(p, &sc)) return;        /* the caller made a trial allocation */
    for (int64_t k = b; k < e && p->virt; k++) { /* R == 1: one run per output */
        int64_t io, oo, bi;
        em__offsets(p->kd, p->nk, k, &io, &oo);
        em__vfold_init(p, io / p->isz, io / p->isz, sc.acc, &bi);
        em__vfold_run(p, &sc, io / p->isz, p->in.n, io / p->isz, sc.acc, &bi);
        em__store(p, p->op + oo, sc.acc, bi);
    }
    for (int64_t k = b; k < e && !p->virt; k++) {
        int64_t io, oo;
        em__offsets(p->kd, p->nk, k, &io, &oo);
        int64_t bi;
        em__fold_init(p, p->ip + io, sc.acc, &bi);
        em__reduce_one(p, &sc, p->ip + io, 0, p->R, sc.acc, &bi);
        em__store(p, p->op + oo, sc.acc, bi);
    }
    em__scratch_free(&sc);
}

/* One output split into pieces: piece i folds into parts[i]. */
typedef struct em__split {
    const em__rplan *p;
    const char *base;
    int64_t base_idx; /* virtual input: the element base is */
    int npieces;
    int64_t start[64], len[64]; /* run pieces (R == 1) or reduced-index ranges */
    char *parts;                /* npieces accumulators */
    int64_t bis[64];            /* arg ops: the index of each piece's best */
} em__split;

static void em__piece_range(void *ctx, int64_t b, int64_t e, int worker) {
    EM_UNUSED(worker);
    em__split *s = ctx;
    const em__rplan *p = s->p;
    em__scratch sc;
    if (!em__scratch_new(p, &sc)) return;
    for (int64_t i = b; i < e; i++) {
        char *acc = s->parts + i * EM_RSLOT;
        if (p->virt) { /* R == 1 */
            int64_t i0 = s->base_idx + s->start[i];
            em__vfold_init(p, i0, s->base_idx, acc, &s->bis[i]);
            em__vfold_run(p, &sc, i0, s->len[i], s->base_idx, acc, &s->bis[i]);
            continue;
        }
        const char *first = s->base + s->start[i] * p->in.is;
        s->bis[i] = s->start[i];
        if (p->mode == 1 || p->kop == EM_RK_MIN || p->kop == EM_RK_MAX)
            em__load1(p, first, acc);
        else
            em__identity(p, 1, acc);
        if (p->R == 1)
            em__fold_run(p, &sc, s->len[i], first, p->in.is, acc, &s->bis[i], s->start[i]);
        else
            em__reduce_one(p, &sc, s->base, s->start[i], s->start[i] + s->len[i], acc, NULL);
    }
    em__scratch_free(&sc);
}

/* Split [0, n) into 2^depth pieces the way NumPy's pairwise recursion does. */
static int em__pairwise_pieces(int64_t start, int64_t n, int depth, int64_t *st, int64_t *ln) {
    if (depth == 0 || n <= 128) {
        st[0] = start, ln[0] = n;
        return 1;
    }
    int64_t n2 = em_rk_pairwise_split(n);
    int a = em__pairwise_pieces(start, n2, depth - 1, st, ln);
    return a + em__pairwise_pieces(start + n2, n - n2, depth - 1, st + a, ln + a);
}

/* Combine pairwise pieces in the same tree (pieces of a full tree of the given depth). */
static void em__pairwise_combine(const em__rplan *p, char *parts, int n) {
    while (n > 1) {
        for (int i = 0; i < n / 2; i++) {
            char *a = parts + 2 * i * EM_RSLOT, *b = a + EM_RSLOT;
            p->k->fold[EM_RK_SUM](1, b, p->lsz, a); /* a += b (a run of one is exact) */
            memmove(parts + i * EM_RSLOT, a, EM_RSLOT);
        }
        n /= 2;
    }
}

static void em__split_pieces(em__split *s, int nthreads) {
    const em__rplan *p = s->p;
    if (p->R == 1 && p->pairwise) {
        int depth = 0;
        while ((1 << depth) < nthreads && depth < 6) depth++;
        s->npieces = em__pairwise_pieces(0, p->in.n, depth, s->start, s->len);
        return;
    }
    int64_t total = p->R == 1 ? p->in.n : p->R, unit = p->R == 1 ? EM_RBLOCK : 1;
    int64_t units = (total + unit - 1) / unit;
    int n = nthreads < 64 ? nthreads : 64;
    if (units < n) n = (int)units;
    int64_t per = (units + n - 1) / n * unit;
    s->npieces = 0;
    for (int64_t b = 0; b < total; b += per) {
        s->start[s->npieces] = b;
        s->len[s->npieces++] = total - b < per ? total - b : per;
    }
}

/* Few outputs, long reductions: each output is reduced by all threads. */
static em_status em__inner_split(const em__rplan *p) {
    em__split s = {.p = p};
    _Alignas(16) char parts[64 * EM_RSLOT];
    s.parts = parts;
    for (int64_t k = 0; k < p->K; k++) {
        int64_t io, oo;
        em__offsets(p->kd, p->nk, k, &io, &oo);
        if (p->virt)
            s.base_idx = io / p->isz; /* p->ip is no memory */
        else
            s.base = p->ip + io;
        em__split_pieces(&s, em_get_num_threads());
        em_parallel_for(s.npieces, 1, em__piece_range, &s);
        if (p->R == 1 && p->pairwise && (s.npieces & (s.npieces - 1)) == 0)
            em__pairwise_combine(p, parts, s.npieces);
        else if (p->mode == 1) /* in order, so ties keep the first piece */
            for (int i = 1; i < s.npieces; i++)
                p->k->argfold[p->which](1, parts + i * EM_RSLOT, p->lsz, parts, &s.bis[0],
                                        s.bis[i]);
        else
            for (int i = 1; i < s.npieces; i++)
                p->k->fold[p->kop](1, parts + i * EM_RSLOT, p->lsz, parts);
        em__store(p, p->op + oo, parts, s.bis[0]);
    }
    return EM_OK;
}

/* ---- outer mode ----------------------------------------------------------- */

/* Write n scanned loop-dtype values (contiguous, in v) to dst (stride os);
 * a float16 output gets them rounded, and v keeps the rounded values so the
 * next step continues from them. */
static void em__scan_store(const em__rplan *p, em__scratch *sc, int64_t n, char *v, char *dst,
                           int64_t os) {
    if (!p->half) {
        em_scatter(n, p->lsz, v, dst, os);
        return;
    }
    em_cast_table[EM_FLOAT32][EM_FLOAT16](n, v, sc->nz);
    em_cast_table[EM_FLOAT16][EM_FLOAT32](n, sc->nz, v);
    em_scatter(n, 2, sc->nz, dst, os);
}

static int64_t em__nchunks(const em__rplan *p) { return (p->in.n + p->chunk - 1) / p->chunk; }

/* Chunks of the vector: at most EM_RCHUNK, but small enough that every
 * thread gets one when there are few outer items. */
static void em__pick_chunk(em__rplan *p, int nt) {
    p->chunk = EM_RCHUNK;
    int64_t total = p->K * p->R * p->in.n;
    if (p->K * em__nchunks(p) >= nt || total < 2 * EM_RGRAIN) return;
    int64_t want = (nt + p->K - 1) / p->K;
    int64_t c = (p->in.n + want - 1) / want;
    c = (c + 63) / 64 * 64;
    p->chunk = c < 64 ? 64 : c > EM_RCHUNK ? EM_RCHUNK : c;
}

/* acc[0..n) (op)= one row; for arg ops bi holds indices and r is the row's. */
static void em__accum_row(const em__rplan *p, em__scratch *sc, int64_t n, const char *src,
                          void *acc, int64_t *bi, int64_t r) {
    int64_t st = p->in.is;
    if (p->convert) src = em__convert(p, sc, n, src, st), st = p->lsz;
    if (p->mode == 1)
        p->k->argaccum[p->which](n, acc, bi, src, st, r);
    else
        p->k->accum[p->kop](n, acc, src, st);
}

static void em__outer_init(const em__rplan *p, em__scratch *sc, int64_t n, const char *row0,
                           char *acc, int64_t *bi) {
    if (p->mode == 1 || p->kop == EM_RK_MIN || p->kop == EM_RK_MAX) {
        memcpy(acc, em__convert(p, sc, n, row0, p->in.is), (size_t)(n * p->lsz));
        for (int64_t i = 0; bi && i < n; i++) bi[i] = 0;
    } else {
        em__identity(p, n, acc);
    }
}

/* Where outer item `item` reads (base), writes (dst), and its length n. */
static int64_t em__item_geom(const em__rplan *p, int64_t item, const char **base, char **dst) {
    int64_t nc = em__nchunks(p), k = item / nc, v0 = (item % nc) * p->chunk;
    int64_t io, oo;
    em__offsets(p->kd, p->nk, k, &io, &oo);
    *base = p->ip + io + v0 * p->in.is;
    *dst = p->op + oo + v0 * p->in.os;
    return p->in.n - v0 < p->chunk ? p->in.n - v0 : p->chunk;
}

/* em__outer_rows of a virtual input whose item is the whole vector (one
 * reduced dim, no other kept dims: row r is elements [r n, r n + n)):
 * bands of whole rows, accumulated row by row as from memory. */
static void em__vouter_rows(const em__rplan *p, em__scratch *sc, int64_t n, int64_t r0, int64_t r1,
                            char *acc) {
    int64_t per = p->src.band / n > 0 ? p->src.band / n : 1;
    for (int64_t r = r0; r < r1; r += per) {
        int64_t m = r1 - r < per ? r1 - r : per;
        em_array hold = {0};
        const char *q;
        if (em__vfetch(p, r * n, m * n, &hold, &q)) {
            if (r == r0) em__outer_init(p, sc, n, q, acc, NULL);
            for (int64_t i = 0; i < m; i++)
                em__accum_row(p, sc, n, q + i * n * p->isz, acc, NULL, r + i);
        }
        em_array_release(&hold);
    }
}

/* acc (n values) = the reduction of rows [r0, r1) of an item (mode 0). */
static void em__outer_rows(const em__rplan *p, em__scratch *sc, int64_t n, const char *base,
                           int64_t r0, int64_t r1, char *acc) {
    if (p->virt) {
        em__vouter_rows(p, sc, n, r0, r1, acc);
        return;
    }
    int64_t off;
    em__offsets(p->rd, p->nr, r0, &off, NULL);
    em__outer_init(p, sc, n, base + off, acc, NULL);
    int64_t r = r0;
    /* Four evenly spaced contiguous rows a pass where the dtype has the kernel. */
    em_rk_accum4_fn f4 = !p->convert && p->nr == 1 && p->in.is == p->lsz && p->kop < EM_RK_AND
                             ? p->k->accum4[p->kop]
                             : NULL;
    for (; f4 && r + 4 <= r1; r += 4) f4(n, acc, base + r * p->rd[0].is, p->rd[0].is);
    for (; r < r1; r++) {
        em__offsets(p->rd, p->nr, r, &off, NULL);
        em__accum_row(p, sc, n, base + off, acc, NULL, r);
    }
}

static void em__outer_item(const em__rplan *p, em__scratch *sc, int64_t item) {
    const char *base;
    char *dst;
    int64_t n = em__item_geom(p, item, &base, &dst);
    int64_t *bi = (int64_t *)sc->acc2;
    /* A contiguous output row is its own accumulator. */
    char *acc = p->mode == 0 && p->in.os == p->lsz ? dst : sc->acc;
    if (p->mode == 0) {
        em__outer_rows(p, sc, n, base, 0, p->R, acc);
        if (acc != dst) em_scatter(n, p->lsz, acc, dst, p->in.os);
        return;
    }
    em__outer_init(p, sc, n, base, acc, p->mode == 1 ? bi : NULL);
    for (int64_t r = 0; r < p->R; r++) {
        int64_t off, ooff;
        em__offsets(p->rd, p->nr, r, &off, &ooff);
        em__accum_row(p, sc, n, base + off, acc, bi, r);
        if (p->mode == 2) em__scan_store(p, sc, n, acc, dst + ooff, p->in.os);
    }
    if (p->mode == 1) em_scatter(n, 8, (const char *)bi, dst, p->in.os);
}

/* Few outer items and many rows (sum(axis=0) of a C matrix): each thread
 * reduces a band of rows into its own vector, combined at the end, so each
 * streams contiguous memory. */
typedef struct em__rowsplit {
    const em__rplan *p;
    int64_t item, n, per; /* the item, its length, rows per band */
    const char *base;
    char *parts; /* one accumulator vector per band */
} em__rowsplit;

static void em__band_range(void *ctx, int64_t b, int64_t e, int worker) {
    EM_UNUSED(worker);
    em__rowsplit *rs = ctx;
    const em__rplan *p = rs->p;
    em__scratch sc;
    if (!em__scratch_new(p, &sc)) return;
    for (int64_t t = b; t < e; t++) {
        int64_t r0 = t * rs->per, r1 = r0 + rs->per < p->R ? r0 + rs->per : p->R;
        em__outer_rows(p, &sc, rs->n, rs->base, r0, r1, rs->parts + t * rs->n * p->lsz);
    }
    em__scratch_free(&sc);
}

static em_status em__outer_bands(const em__rplan *p, int nt) {
    int64_t bands = nt < p->R ? nt : p->R;
    size_t bytes = (size_t)(bands * p->chunk * p->lsz);
    em__rowsplit rs = {.p = p, .per = (p->R + bands - 1) / bands, .parts = em_host_alloc(bytes)};
    if (!rs.parts)
        return em_error(EM_ENOMEM, "out of host memory for %zu bytes of partial sums", bytes);
    bands = (p->R + rs.per - 1) / rs.per;
    for (int64_t it = 0; it < p->K * em__nchunks(p); it++) {
        char *dst;
        rs.item = it;
        rs.n = em__item_geom(p, it, &rs.base, &dst);
        em_parallel_for(bands, 1, em__band_range, &rs);
        for (int64_t t = 1; t < bands; t++)
            p->k->accum[p->kop](rs.n, rs.parts, rs.parts + t * rs.n * p->lsz, p->lsz);
        em_scatter(rs.n, p->lsz, rs.parts, dst, p->in.os);
    }
    em_host_free(rs.parts, bytes);
    return EM_OK;
}

static void em__outer_range(void *ctx, int64_t b, int64_t e, int worker) {
    EM_UNUSED(worker);
    const em__rplan *p = ctx;
    em__scratch sc;
    if (!em__scratch_new(p, &sc)) return;
    for (int64_t it = b; it < e; it++) em__outer_item(p, &sc, it);
    em__scratch_free(&sc);
}

/* ---- scans: inner mode ---------------------------------------------------- */

/* float16 scans as NumPy's: every partial result is rounded to float16. */
static void em__scan_half(int which, int64_t n, const float *x, float *o, float *carry) {
    float c = *carry;
    for (int64_t i = 0; i < n; i++) o[i] = c = (float)(_Float16)(which ? c * x[i] : c + x[i]);
    *carry = c;
}

static void em__scan_block(const em__rplan *p, em__scratch *sc, int64_t m, const char *q,
                           int64_t qs, char *dst) {
    if (!p->half) {
        p->k->scan[p->which](m, q, qs, dst, p->in.os, sc->acc);
        return;
    }
    em__scan_half(p->which, m, (const float *)q, (float *)sc->acc2, (float *)sc->acc);
    em__scan_store(p, sc, m, sc->acc2, dst, p->in.os);
}

static void em__scan_range(void *ctx, int64_t b, int64_t e, int worker) {
    EM_UNUSED(worker);
    const em__rplan *p = ctx;
    em__scratch sc;
    if (!em__scratch_new(p, &sc)) return;
    for (int64_t k = b; k < e; k++) {
        int64_t io, oo;
        em__offsets(p->kd, p->nk, k, &io, &oo);
        em__identity(p, 1, sc.acc);
        for (int64_t i = 0; i < p->in.n; i += EM_RBLOCK) {
            int64_t m = p->in.n - i < EM_RBLOCK ? p->in.n - i : EM_RBLOCK;
            const char *q = p->ip + io + i * p->in.is;
            int64_t qs = p->in.is;
            if (p->convert) q = em__convert(p, &sc, m, q, qs), qs = p->lsz;
            em__scan_block(p, &sc, m, q, qs, p->op + oo + i * p->in.os);
        }
    }
    em__scratch_free(&sc);
}

/* ---- entry points --------------------------------------------------------- */

static em_status em__run(em__rplan *p) {
    em__scratch trial;
    if (!em__scratch_new(p, &trial))
        return em_error(EM_ENOMEM, "out of host memory for reduction scratch");
    em__scratch_free(&trial);
    int64_t total = p->K * p->R * p->in.n;
    int nt = em_get_num_threads();
    if (p->outer) {
        p->chunk = EM_RCHUNK;
        if (p->mode == 0 && p->K * em__nchunks(p) < nt && p->R >= 4 * nt && total >= 2 * EM_RGRAIN)
            return em__outer_bands(p, nt); /* bands of rows, whole vectors */
        em__pick_chunk(p, nt);
        int64_t items = p->K * em__nchunks(p);
        int64_t per = total / items;
        em_parallel_for(items, EM_RGRAIN / (per ? per : 1) + 1, em__outer_range, p);
    } else if (p->mode == 2) {
        int64_t per = p->in.n;
        em_parallel_for(p->K, EM_RGRAIN / (per ? per : 1) + 1, em__scan_range, p);
    } else if (p->K >= 4 * nt || total < 2 * EM_RGRAIN) {
        int64_t per = p->R * p->in.n;
        em_parallel_for(p->K, EM_RGRAIN / (per ? per : 1) + 1, em__inner_range, p);
    } else {
        return em__inner_split(p);
    }
    return EM_OK;
}

/* The reduction of a virtual input (reduce_src.h): in bands when each output
 * reduces one run (a full reduction, or a suffix of the axes, of the
 * C-contiguous input) and its fold may be cut, or when the outer mode
 * accumulates whole rows of at most EM_RCHUNK kept values (a reduced
 * leading axis: bands of rows, each row accumulated as from memory)
 * (not a float min/max on unconverted values: the vector kernel's lanes
 * could pick between -0.0 and 0.0 differently); otherwise the whole input
 * is fetched once and reduced as memory. */
static em_status em__run_virtual(em__rplan *p, const em_array *a) {
    em__vfail vf = {.status = EM_OK};
    atomic_init(&vf.failed, 0);
    p->vf = &vf;
    p->src = em_cpu_reduce_source;
    int64_t blocks = p->src.band / EM_RBLOCK * EM_RBLOCK;
    p->src.band = blocks > EM_RBLOCK ? blocks : EM_RBLOCK;
    char kind = em_dtype_get(p->dt)->kind;
    bool lanes = (p->kop == EM_RK_MIN || p->kop == EM_RK_MAX) && p->mode == 0 && !p->convert &&
                 (kind == 'f' || kind == 'c');
    /* Outer mode: one vector chunk of whole rows, never split by columns. */
    int nt = em_get_num_threads();
    bool rows = p->outer && p->mode == 0 && p->nk == 0 && p->nr == 1 && p->in.n <= EM_RCHUNK &&
                p->in.is == p->isz && p->rd[0].is == p->in.n * p->isz &&
                (p->R >= 4 * nt || p->R * p->in.n < 2 * EM_RGRAIN);
    em_array hold = {0};
    em_status s = EM_OK;
    if (rows || (p->R == 1 && !p->outer && p->mode != 2 && !lanes)) {
        p->virt = true;
        s = em__run(p);
    } else {
        const char *q;
        if (em__vfetch(p, 0, em_array_size(a), &hold, &q)) {
            p->ip = q; /* the placeholder is C-contiguous: its plan's offsets hold */
            s = em__run(p);
        }
    }
    em_array_release(&hold);
    if (s == EM_OK && atomic_load(&vf.failed)) s = em_error(vf.status, "%s", vf.msg);
    return s;
}

static em_status em__plan_init(em__rplan *p, const em_array *a, em_dtype dt, em_array *out) {
    p->in_dt = a->dtype;
    p->dt = dt;
    p->isz = EM_DTYPE_SIZE(a->dtype);
    p->lsz = EM_DTYPE_SIZE(dt);
    p->osz = EM_DTYPE_SIZE(out->dtype);
    p->k = em_rk_get(dt);
    p->convert = p->in_dt != dt || p->nonzero;
    p->op = out->data;
    if (!p->k || (p->mode == 0 && !p->k->fold[p->kop]))
        return em_error(EM_ETYPE, "no CPU reduction loop for %s", em_dtype_get(dt)->name);
    em_dtype want = p->mode == 1 ? EM_INT64 : p->half ? EM_FLOAT16 : dt;
    if (out->dtype != want)
        return em_error(EM_ETYPE, "reduction output has dtype %s; the backend writes %s",
                        em_dtype_get(out->dtype)->name,
                        p->mode == 1 ? "int64" : em_dtype_get(dt)->name);
    return EM_OK;
}

static em_status em__op_kernel(em_reduce_op op, em__rplan *p) {
    switch (op) {
    case EM_RED_SUM: p->kop = EM_RK_SUM; break;
    case EM_RED_COUNT_NONZERO: p->kop = EM_RK_SUM, p->nonzero = true; break;
    case EM_RED_PROD: p->kop = EM_RK_PROD; break;
    case EM_RED_MIN:
    case EM_RED_ALL: p->kop = EM_RK_MIN; break;
    case EM_RED_MAX:
    case EM_RED_ANY: p->kop = EM_RK_MAX; break;
    case EM_RED_BITWISE_AND: p->kop = EM_RK_AND; break;
    case EM_RED_BITWISE_OR: p->kop = EM_RK_OR; break;
    case EM_RED_BITWISE_XOR:
    case EM_RED_LOGICAL_XOR: p->kop = EM_RK_XOR; break; /* (bool loop: the input's truth) */
    case EM_RED_GCD: p->kop = EM_RK_GCD; break;
    case EM_RED_LCM: p->kop = EM_RK_LCM; break;
    case EM_RED_ARGMIN: p->mode = 1, p->which = 0; break;
    case EM_RED_ARGMAX: p->mode = 1, p->which = 1; break;
    default: return em_error(EM_EUNSUPPORTED, "the CPU backend does not reduce op %d", (int)op);
    }
    return EM_OK;
}

/* Contract: out is allocated by the core with the kept dims of a (in order)
 * and dtype dt (int64 for ARGMIN/ARGMAX, which take one axis); dt is the loop
 * dtype, never float16; the reduction is over at least one element. */
em_status em_cpu_reduce(em_reduce_op op, const em_array *a, int naxes, const int *axes, em_dtype dt,
                        double ddof, const em_node *fused, em_array *out) {
    EM_UNUSED(ddof);
    EM_UNUSED(fused); /* CPU fusion runs by bands (graph/fuse_reduce.c), never by tree */
    int64_t count;
    bool virt = em_cpu_reduce_source.buf && a->buf == em_cpu_reduce_source.buf;
    if (op == EM_RED_COUNT_NONZERO && naxes == a->ndim && out->dtype == EM_INT64 &&
        em_array_size(out) == 1 && !virt && em_cpu_count_all(a, &count)) {
        memcpy(out->data, &count, sizeof count);
        return EM_OK;
    }
    em__rplan p = {0};
    EM_CHECK(em__op_kernel(op, &p));
    EM_CHECK(em__plan_init(&p, a, dt, out));
    if (p.mode == 1 && naxes != 1)
        return em_error(EM_EVALUE, "argmin/argmax reduce exactly one axis, got %d", naxes);
    bool red[EM_MAXDIMS] = {0};
    int64_t os[EM_MAXDIMS];
    for (int i = 0; i < naxes; i++) red[axes[i]] = true;
    for (int i = 0, j = 0; i < a->ndim; i++) os[i] = red[i] ? 0 : out->strides[j++];
    em__rdim d[EM_MAXDIMS + 1];
    int nd = em__collect_dims(&p, a, red, os, d);
    em__split_dims(&p, d, nd);
    p.pairwise = p.kop == EM_RK_SUM && p.mode == 0 && !p.convert &&
                 (em_dtype_get(dt)->kind == 'f' || em_dtype_get(dt)->kind == 'c');
    if (em_array_size(out) == 0) return EM_OK;
    if (virt) return em__run_virtual(&p, a);
    return em__run(&p);
}

/* Contract: out has a's shape and the result dtype: the loop dtype, or
 * float16 (computed in float32 and rounded after every step, as NumPy). */
em_status em_cpu_scan(em_reduce_op op, const em_array *a, int axis, em_array *out) {
    em__rplan p = {.mode = 2};
    if (op != EM_RED_CUMSUM && op != EM_RED_CUMPROD)
        return em_error(EM_EUNSUPPORTED, "the CPU backend does not scan op %d", (int)op);
    p.which = op == EM_RED_CUMPROD;
    p.kop = p.which ? EM_RK_PROD : EM_RK_SUM;
    p.half = out->dtype == EM_FLOAT16;
    EM_CHECK(em__plan_init(&p, a, p.half ? EM_FLOAT32 : out->dtype, out));
    p.convert |= p.half; /* the float16 step reads contiguous float32 */
    bool red[EM_MAXDIMS] = {0};
    red[axis] = true;
    em__rdim d[EM_MAXDIMS + 1];
    int nd = em__collect_dims(&p, a, red, out->strides, d);
    em__split_dims(&p, d, nd);
    if (em_array_size(out) == 0) return EM_OK;
    return em__run(&p);
}
