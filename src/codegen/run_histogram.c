/* The atomic histogram's driver (render_histogram.h).  On a backend that
 * builds: one kernel, its bins privatised in shared memory when they fit
 * (replicated per warp group while the replicas fit too), else
 * accumulated in global memory.  On the CPU (precompiled ops, no
 * compiler): the samples converted to the comparison dtype, then one serial
 * loop here with the same bin rule. */
#include "codegen/render_histogram.h"
#include "codegen/run.h"
#include "core/core.h"
#include "host/threadpool.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Shared memory a kernel may take for its bins and edges: below the 48 KiB
 * every CUDA device gives a block statically, and leaving room for two
 * blocks per multiprocessor. */
#define EM__SHMEM (32 * 1024)

/* The CPU's loop: one dimension's parameters hoisted out of it. */
typedef struct em__hdim {
    int mode;
    int64_t nb;
    const void *e; /* its edges */
    double lo, scale;
} em__hdim;

typedef struct em__hctx {
    int nd;
    em__hdim dim[EM_HIST_MAXDIM];
    const void *x, *w;
    em_dtype c, wdt;
    void *out;     /* weights: out itself; counts: */
    int64_t *priv; /* NULL (out) or a worker's nbin counts each */
    int64_t nbin;
} em__hctx;

/* The bin of v in one dimension's edges e (nb + 1 of them), or -1 when v
 * falls outside them (NaN included): the kernel's rule.  The search keeps
 * e[b] <= v with the answer in [b, b + len), branch-free. */
#define EM__FIND(T, S)                                                                      \
    static inline int64_t em__find_##S(const em__hdim *h, T v) {                            \
        const T *e = h->e;                                                                  \
        const int64_t nb = h->nb;                                                           \
        if (!(v >= e[0] && v <= e[nb])) return -1;                                          \
        int64_t b = 0;                                                                      \
        if (h->mode == EM_HIST_UNIFORM) {                                                   \
            double f = ((double)v - h->lo) * h->scale;                                      \
            b = f < 1 ? 0 : f >= (double)nb ? nb - 1 : (int64_t)f;                          \
            while (b > 0 && v < e[b]) b--;                                                  \
            while (b < nb - 1 && v >= e[b + 1]) b++;                                        \
        } else {                                                                            \
            for (int64_t len = nb; len > 1;) {                                              \
                int64_t half = len / 2;                                                     \
                b = e[b + half] <= v ? b + half : b;                                        \
                len -= half;                                                                \
            }                                                                               \
        }                                                                                   \
        return b;                                                                           \
    }                                                                                       \
    /* The flat bin of sample i, or -1. */                                                  \
    static inline int64_t em__bin_##S(const em__hctx *c, const T *x, int64_t i) {           \
        int64_t bin = 0;                                                                    \
        for (int d = 0; d < c->nd; d++) {                                                   \
            const T v = x[i * c->nd + d];                                                   \
            const em__hdim *h = &c->dim[d];                                                 \
            int64_t b;                                                                      \
            if (h->mode == EM_HIST_COUNT) {                                                 \
                b = (int64_t)v;                                                             \
                if (b < 0 || b >= h->nb) return -1;                                         \
            } else if ((b = em__find_##S(h, v)) < 0) {                                      \
                return -1;                                                                  \
            }                                                                               \
            bin = bin * h->nb + b;                                                          \
        }                                                                                   \
        return bin;                                                                         \
    }                                                                                       \
    /* Samples [b, e): counts into the worker's own bins (or out), weights */               \
    /* into out in sample order (NumPy's order of the additions). */                        \
    static void em__range_##S(void *ctx, int64_t b, int64_t e, int worker) {                \
        const em__hctx *c = ctx;                                                            \
        const T *x = c->x;                                                                  \
        if (c->wdt == EM_NDTYPES) {                                                         \
            int64_t *o = c->priv ? c->priv + (int64_t)worker * c->nbin : c->out;            \
            for (int64_t i = b; i < e; i++) {                                               \
                int64_t bin = em__bin_##S(c, x, i);                                         \
                if (bin >= 0) o[bin]++;                                                     \
            }                                                                               \
            return;                                                                         \
        }                                                                                   \
        const int nc = c->wdt == EM_COMPLEX64 || c->wdt == EM_COMPLEX128 ? 2 : 1;           \
        const bool f32 = c->wdt == EM_FLOAT32 || c->wdt == EM_COMPLEX64;                    \
        for (int64_t i = b; i < e; i++) {                                                   \
            int64_t bin = em__bin_##S(c, x, i);                                             \
            if (bin < 0) continue;                                                          \
            for (int k = 0; k < nc; k++) {                                                  \
                if (f32)                                                                    \
                    ((float *)c->out)[bin * nc + k] += ((const float *)c->w)[i * nc + k];   \
                else                                                                        \
                    ((double *)c->out)[bin * nc + k] += ((const double *)c->w)[i * nc + k]; \
            }                                                                               \
        }                                                                                   \
    }
EM__FIND(float, f32)
EM__FIND(double, f64)
EM__FIND(int64_t, i64)
EM__FIND(uint64_t, u64)

/* Counts spread over the pool's workers when each can have its own bins
 * (at most this many bytes of them in all); weights stay serial. */
#define EM__PRIV_MAX ((int64_t)64 << 20)

static em_status em__serial(const em_hist_spec *s, em_array *out, const em_array *x, em_dtype c,
                            const em_array *edges, const int64_t *eoff, const em_array *w) {
    em_array xc = {0};
    const em_array *xs = x;
    if (x->dtype != c) {
        EM_CHECK(em_astype(x, c, &xc));
        xs = &xc;
    }
    em__hctx h = {.nd = s->ndim,
                  .x = xs->data,
                  .w = w ? w->data : NULL,
                  .c = c,
                  .wdt = w ? w->dtype : EM_NDTYPES,
                  .out = out->data,
                  .nbin = out->shape[0]};
    size_t esz = em_dtype_get(c)->size;
    for (int d = 0; d < s->ndim; d++)
        h.dim[d] =
            (em__hdim){s->mode[d], s->nb[d], edges ? edges->data + (size_t)eoff[d] * esz : NULL,
                       s->lo[d], s->scale[d]};
    em_range_fn fn = c == EM_FLOAT32   ? em__range_f32
                     : c == EM_FLOAT64 ? em__range_f64
                     : c == EM_INT64   ? em__range_i64
                                       : em__range_u64;
    int64_t n = em_array_size(x) / s->ndim, nw = em_pool_workers();
    if (!w && nw > 1 && n >= 65536 && h.nbin * nw * 8 <= EM__PRIV_MAX)
        h.priv = calloc((size_t)(h.nbin * nw), 8);
    if (h.priv) {
        em_parallel_for(n, 16384, fn, &h);
        int64_t *o = (int64_t *)(void *)out->data;
        for (int64_t k = 0; k < nw; k++)
            for (int64_t b = 0; b < h.nbin; b++) o[b] += h.priv[k * h.nbin + b];
        free(h.priv);
    } else {
        fn(&h, 0, n, 0);
    }
    em_array_release(&xc);
    return EM_OK;
}

static em_status em__render(const void *ctx, void *src) {
    const void *const *c = ctx;
    return em_render_histogram(c[0], c[1], src);
}

static bool em__same(em_device a, em_device b) { return a.kind == b.kind && a.id == b.id; }

em_status em_run_histogram(const em_backend *be, em_array *out, const em_array *x,
                           const em_array *edges, const em_array *w, const em_hist_spec *s) {
    int nd = s->ndim;
    if (nd < 1 || nd > EM_HIST_MAXDIM)
        return em_error(EM_EVALUE, "histogram: %d dimensions (1 to %d)", nd, EM_HIST_MAXDIM);
    bool all_count = true;
    int64_t nbin = 1, ne = 0, eoff[EM_HIST_MAXDIM] = {0};
    for (int d = 0; d < nd; d++) {
        if ((unsigned)s->mode[d] > EM_HIST_EDGES || s->nb[d] < 0 || (s->nb[d] == 0 && s->mode[d]))
            return em_error(EM_EVALUE, "histogram: dimension %d has %lld bins", d,
                            (long long)s->nb[d]);
        if (s->mode[d] != EM_HIST_COUNT) eoff[d] = ne, ne += s->nb[d] + 1, all_count = false;
        EM_CHECK(em__size_mul(nbin, s->nb[d], &nbin));
    }
    em_dtype c = edges ? edges->dtype : EM_INT64, wdt = w ? w->dtype : EM_NDTYPES;
    if (!em_hist_dtypes_ok(x->dtype, c, wdt))
        return em_error(EM_ETYPE, "histogram: no kernel for %s samples, %s edges and %s weights",
                        em_dtype_get(x->dtype)->name, em_dtype_get(c)->name,
                        w ? em_dtype_get(wdt)->name : "no");
    if (!all_count && !edges) return em_error(EM_EVALUE, "histogram: the edges are missing");
    if (out->dtype != (w ? wdt : EM_INT64))
        return em_error(EM_ETYPE, "histogram: out must be %s",
                        em_dtype_get(w ? wdt : EM_INT64)->name);
    bool xshape = nd == 1 ? x->ndim == 1 || (x->ndim == 2 && x->shape[1] == 1)
                          : x->ndim == 2 && x->shape[1] == nd;
    if (!xshape || !em_array_is_c_contiguous(x) || out->ndim != 1 || out->shape[0] != nbin ||
        !em_array_is_c_contiguous(out))
        return em_error(EM_EVALUE, "histogram: x must be (n, %d) and out (%lld,), contiguous", nd,
                        (long long)nbin);
    int64_t n = x->ndim ? x->shape[0] : 0;
    if (edges && (edges->ndim != 1 || edges->shape[0] != ne || !em_array_is_c_contiguous(edges)))
        return em_error(EM_EVALUE, "histogram: %lld edges expected", (long long)ne);
    if (w && (w->ndim != 1 || w->shape[0] != n || !em_array_is_c_contiguous(w)))
        return em_error(EM_EVALUE, "histogram: %lld weights expected", (long long)n);
    em_device dev = em_array_device(out);
    if (!em__same(em_array_device(x), dev) || (edges && !em__same(em_array_device(edges), dev)) ||
        (w && !em__same(em_array_device(w), dev)))
        return em_error(EM_EVALUE, "histogram: every array must be on one device");
    if (n == 0 || nbin == 0) return EM_OK;
    if (!be->module_build) return em__serial(s, out, x, c, edges, eoff, w);

    const em_dialect *d;
    EM_CHECK(em_run_dialect(be, &d));
    const em_device_props *pr;
    EM_CHECK(be->props_ref(dev.id, &pr));
    int nc = wdt == EM_COMPLEX64 || wdt == EM_COMPLEX128 ? 2 : 1;
    size_t acc = wdt == EM_NDTYPES ? 4 : (wdt == EM_FLOAT32 || wdt == EM_COMPLEX64 ? 4 : 8) * nc;
    size_t shmem = EM__SHMEM;
    if (pr->shared_memory_per_block && pr->shared_memory_per_block < shmem)
        shmem = pr->shared_memory_per_block;
    em_hist_kernel k = {.x = x->dtype, .c = c, .w = wdt, .ndim = nd, .reps = 1};
    for (int i = 0; i < nd; i++) k.mode[i] = (unsigned char)s->mode[i];
    /* Capacities rounded up (fewer kernels to compile): edges first, they
     * are read by every sample; then the bins. */
    size_t esz = em_dtype_get(c)->size, room = shmem;
    if (!all_count) {
        int64_t ec = (ne + 63) / 64 * 64;
        if ((size_t)ec * esz <= shmem / 2) k.ecap = ec, room -= (size_t)ec * esz;
    }
    int64_t cap = (nbin + 255) / 256 * 256;
    /* a block's 32-bit counts must not wrap: at most 2^31 samples a block */
    int64_t g = (n + 1023) / 1024, gmax = (int64_t)pr->multiprocessor_count * 8;
    if (g > gmax) g = gmax;
    bool fits = (size_t)cap * acc <= room && (wdt != EM_NDTYPES || n / g < ((int64_t)1 << 31));
    if (fits) {
        k.cap = cap;
        while (k.reps < 8 && (size_t)cap * acc * (size_t)k.reps * 2 <= room) k.reps *= 2;
    }
    /* One dimension of counts: the count kernel (H100, 2^24 float32, 256 bins:
     * 0.041-0.045 ms back to back, the general kernel 0.052) */
    k.fast = nd == 1 && wdt == EM_NDTYPES && k.cap > 0;
    char key[128];
    int at = snprintf(key, sizeof key, "HG|%d|%d|%d|%d|%lld|%d|%lld|%d|", (int)k.x, (int)k.c,
                      (int)k.w, nd, (long long)k.cap, k.reps, (long long)k.ecap, k.fast);
    for (int i = 0; i < nd && at < (int)sizeof key - 2; i++) key[at++] = (char)('0' + k.mode[i]);
    key[at] = 0;
    const void *ctx[2] = {d, &k};
    const em_kfn *kf;
    EM_CHECK(em_run_kernel(be, dev.id, key, "histogram", EM_KNAME, em__render, ctx, &kf));
    /* the packed argument: 4 pointers, n, nbin, then nb, eoff, lo and scale */
    enum { M = EM_HIST_MAXDIM };
    unsigned char args[8 * (6 + 4 * M)] = {0};
    const void *ptrs[4] = {out->data, x->data, edges ? edges->data : NULL, w ? w->data : NULL};
    int64_t nums[2 + 2 * M] = {n, nbin};
    double dbl[2 * M] = {0};
    for (int i = 0; i < nd; i++) {
        nums[2 + i] = s->nb[i], nums[2 + M + i] = eoff[i];
        dbl[i] = s->lo[i], dbl[M + i] = s->scale[i];
    }
    memcpy(args, ptrs, sizeof ptrs);
    memcpy(args + sizeof ptrs, nums, sizeof nums);
    memcpy(args + sizeof ptrs + sizeof nums, dbl, sizeof dbl);
    int slots[4];
    return em_run_launch(be, dev.id, kf, (unsigned)g, 256, 0, args, sizeof args, slots,
                         em_run_slots(slots, 0, 4));
}
