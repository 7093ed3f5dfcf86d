/* The atomic histogram's driver (render_histogram.h).  On a backend that
 * builds: one kernel, its bins privatised in shared memory when they fit
 * (replicated per warp group while the replicas fit too), else
 * accumulated in global memory.  On the CPU (precompiled ops, no
 * compiler): the samples converted to the comparison dtype, then one serial
 * loop here with the same bin rule. */
#include "codegen/render_histogram.h"
#include "codegen/run.h"
#include "core/core.h"

#include <stdio.h>
#include <string.h>

/* Shared memory a kernel may take for its bins and edges: below the 48 KiB
 * every CUDA device gives a block statically, and leaving room for two
 * blocks per multiprocessor. */
#define EM__SHMEM (32 * 1024)

/* The bin of v in one dimension's edges e (nb + 1 of them), or -1 when v
 * falls outside them (NaN included): the kernel's rule. */
#define EM__FIND(T, S)                                                                            \
    static int64_t em__find_##S(const T *e, int64_t nb, T v, int mode, double lo, double scale) { \
        if (!(v >= e[0] && v <= e[nb])) return -1;                                                \
        int64_t b = 0;                                                                            \
        if (mode == EM_HIST_UNIFORM) {                                                            \
            double f = ((double)v - lo) * scale;                                                  \
            b = f < 1 ? 0 : f >= (double)nb ? nb - 1 : (int64_t)f;                                \
            while (b > 0 && v < e[b]) b--;                                                        \
            while (b < nb - 1 && v >= e[b + 1]) b++;                                              \
        } else {                                                                                  \
            int64_t hi = nb;                                                                      \
            while (hi - b > 1) {                                                                  \
                int64_t m = (b + hi) >> 1;                                                        \
                if (e[m] <= v)                                                                    \
                    b = m;                                                                        \
                else                                                                              \
                    hi = m;                                                                       \
            }                                                                                     \
        }                                                                                         \
        return b;                                                                                 \
    }
EM__FIND(float, f32)
EM__FIND(double, f64)
EM__FIND(int64_t, i64)
EM__FIND(uint64_t, u64)

/* The serial loop over samples x (already of the comparison type T). */
#define EM__LOOP(T, S)                                                                             \
    static void em__loop_##S(const em_hist_spec *s, const T *x, const T *e, int64_t n,             \
                             const int64_t *eoff, void *out, em_dtype wdt, const void *w) {        \
        const int nd = s->ndim;                                                                    \
        for (int64_t i = 0; i < n; i++) {                                                          \
            int64_t bin = 0;                                                                       \
            int d = 0;                                                                             \
            for (; d < nd; d++) {                                                                  \
                const T v = x[i * nd + d];                                                         \
                int64_t b;                                                                         \
                if (s->mode[d] == EM_HIST_COUNT) {                                                 \
                    b = (int64_t)v;                                                                \
                    if (b < 0 || b >= s->nb[d]) break;                                             \
                } else {                                                                           \
                    b = em__find_##S(e + eoff[d], s->nb[d], v, s->mode[d], s->lo[d], s->scale[d]); \
                    if (b < 0) break;                                                              \
                }                                                                                  \
                bin = bin * s->nb[d] + b;                                                          \
            }                                                                                      \
            if (d < nd) continue;                                                                  \
            switch ((int)wdt) {                                                                    \
            case EM_NDTYPES: ((int64_t *)out)[bin]++; break;                                       \
            case EM_FLOAT32: ((float *)out)[bin] += ((const float *)w)[i]; break;                  \
            case EM_FLOAT64: ((double *)out)[bin] += ((const double *)w)[i]; break;                \
            case EM_COMPLEX64:                                                                     \
                ((float *)out)[2 * bin] += ((const float *)w)[2 * i];                              \
                ((float *)out)[2 * bin + 1] += ((const float *)w)[2 * i + 1];                      \
                break;                                                                             \
            default:                                                                               \
                ((double *)out)[2 * bin] += ((const double *)w)[2 * i];                            \
                ((double *)out)[2 * bin + 1] += ((const double *)w)[2 * i + 1];                    \
                break;                                                                             \
            }                                                                                      \
        }                                                                                          \
    }
EM__LOOP(float, f32)
EM__LOOP(double, f64)
EM__LOOP(int64_t, i64)
EM__LOOP(uint64_t, u64)

static em_status em__serial(const em_hist_spec *s, em_array *out, const em_array *x, em_dtype c,
                            const em_array *edges, const int64_t *eoff, const em_array *w) {
    em_array xc = {0};
    const em_array *xs = x;
    if (x->dtype != c) {
        EM_CHECK(em_astype(x, c, &xc));
        xs = &xc;
    }
    const void *e = edges ? edges->data : NULL, *wv = w ? w->data : NULL;
    em_dtype wdt = w ? w->dtype : EM_NDTYPES;
    int64_t n = em_array_size(x) / s->ndim;
    switch ((int)c) {
    case EM_FLOAT32: em__loop_f32(s, (const void *)xs->data, e, n, eoff, out->data, wdt, wv); break;
    case EM_FLOAT64: em__loop_f64(s, (const void *)xs->data, e, n, eoff, out->data, wdt, wv); break;
    case EM_INT64: em__loop_i64(s, (const void *)xs->data, e, n, eoff, out->data, wdt, wv); break;
    default: em__loop_u64(s, (const void *)xs->data, e, n, eoff, out->data, wdt, wv); break;
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
    char key[128];
    int at = snprintf(key, sizeof key, "HG|%d|%d|%d|%d|%lld|%d|%lld|", (int)k.x, (int)k.c, (int)k.w,
                      nd, (long long)k.cap, k.reps, (long long)k.ecap);
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
