/* Small solve / inv / det in one launch (render_smallla.h): one block per
 * matrix, kernels keyed by (mode, dtype, size class). */
#include "codegen/render_smallla.h"
#include "codegen/run.h"
#include "core/core.h"

#include <stdio.h>
#include <string.h>

typedef struct em__sla {
    const em_backend *be;
    em_sla_spec k;
} em__sla;

static em_status em__sla_render(const void *ctx, void *sb) {
    const em__sla *x = ctx;
    const em_dialect *d;
    EM_CHECK(em_run_dialect(x->be, &d));
    return em_render_smallla(d, &x->k, sb);
}

typedef struct em__slaargs {
    void *p[4]; /* a, b, x, info */
    int64_t n, k, batch, mode;
} em__slaargs;

/* The size class of the kernel for n: CUDA's per n (a block of 64 threads
 * and 0.6 KiB for an 8 x 8; NVRTC builds in a fraction of a second), one
 * for every n elsewhere (PoCL takes seconds a build). */
static bool em__sla_cuda(const em_backend *be) {
    const em_dialect *d;
    return em_run_dialect(be, &d) == EM_OK && d->id == EM_DIALECT_CUDA;
}

static int em__sla_class(const em_backend *be, int n, int maxn) {
    return em__sla_cuda(be) ? em_sla_cap(n) : maxn;
}

/* Get the kernel for spec and launch it over batch matrices. */
static em_status em__sla_launch(const em_backend *be, int id, em_sla_spec spec, em__slaargs *g) {
    char key[48], name[48];
    snprintf(key, sizeof key, "SLA%d|%d|%d|%d", spec.mode, (int)spec.dtype, spec.cap, spec.alg);
    static const char *const names[] = {"small_lu", "small_solve", "small_inv", "small_det",
                                        "small_eigh"};
    snprintf(name, sizeof name, "%s%d_%s", names[spec.mode + 1], spec.cap,
             em_dtype_get(spec.dtype)->name);
    em__sla ctx = {be, spec};
    const em_kfn *f;
    EM_CHECK(em_run_kernel(be, id, key, name, EM_KNAME, em__sla_render, &ctx, &f));
    unsigned char blob[sizeof *g];
    memcpy(blob, g, sizeof *g);
    int slots[4];
    int nt = em_sla_threads(spec.cap), per = 1; /* per: matrices a block */
    if (spec.mode == EM_SLA_EIGH) em_sla_eigh_geometry(&spec, &nt, &per);
    int64_t grid = (g->batch + per - 1) / per;
    if (grid > 65535 * 16) grid = 65535 * 16;
    return em_run_launch(be, id, f, (unsigned)grid, (unsigned)nt, 0, blob, sizeof blob, slots,
                         em_run_slots(slots, 0, 4));
}

em_status em_run_smallla_eigh(const em_backend *be, const em_array *a, bool vectors, bool upper,
                              em_array *w, em_array *v, em_array *info) {
    memset(w, 0, sizeof *w), memset(v, 0, sizeof *v), memset(info, 0, sizeof *info);
    const em_device dev = em_array_device(a);
    const int nd = a->ndim;
    const int64_t n = nd >= 2 ? a->shape[nd - 1] : 0;
    const bool cplx = a->dtype == EM_COMPLEX64 || a->dtype == EM_COMPLEX128;
    const int maxn = !em_sla_maxn(a->dtype) ? 0 : cplx ? EM_SLA_EIGHW_MAXN : EM_SLA_EIGH_MAXN;
    if (nd < 2 || a->shape[nd - 2] != n || n < 1 || n > maxn || !em_array_is_c_contiguous(a))
        return em_error(EM_EVALUE,
                        "small eigh: a C-contiguous stack of n x n matrices, float32/64 with "
                        "1 <= n <= %d or complex64/128 with n <= %d",
                        EM_SLA_EIGH_MAXN, EM_SLA_EIGHW_MAXN);
    int64_t batch = 1;
    for (int i = 0; i < nd - 2; i++) batch *= a->shape[i];
    const em_dtype wt = a->dtype == EM_COMPLEX64    ? EM_FLOAT32
                        : a->dtype == EM_COMPLEX128 ? EM_FLOAT64
                                                    : a->dtype;
    em_status s = em_array_empty(w, wt, nd - 1, a->shape, dev);
    if (s == EM_OK && vectors) s = em_array_empty(v, a->dtype, nd, a->shape, dev);
    if (s == EM_OK) s = em_array_empty(info, EM_INT32, nd - 2, a->shape, dev);
    if (s == EM_OK && batch) {
        em_sla_spec spec = {.mode = EM_SLA_EIGH,
                            .dtype = a->dtype,
                            .cap = n <= EM_SLA_EIGHW_MAXN
                                       ? em__sla_class(be, (int)n, EM_SLA_EIGHW_MAXN)
                                       : em__sla_class(be, (int)n, maxn),
                            .alg = em_sla_eigh_alg()};
        em__slaargs g = {.p = {a->data, w->data, vectors ? v->data : NULL, info->data},
                         .n = n,
                         .k = (vectors ? 1 : 0) | (upper ? 2 : 0),
                         .batch = batch};
        s = em__sla_launch(be, dev.id, spec, &g);
    }
    if (s != EM_OK) em_array_release(w), em_array_release(v), em_array_release(info);
    return s;
}

em_status em_run_smallla(const em_backend *be, int mode, const em_array *a, const em_array *b,
                         em_array *x, em_array *info) {
    memset(x, 0, sizeof *x), memset(info, 0, sizeof *info);
    const em_device dev = em_array_device(a);
    const int nd = a->ndim;
    const int64_t n = nd >= 2 ? a->shape[nd - 1] : 0;
    if (nd < 2 || a->shape[nd - 2] != n || n < 1 || n > em_sla_maxn(a->dtype) ||
        !em_array_is_c_contiguous(a))
        return em_error(EM_EVALUE,
                        "small linalg: a C-contiguous stack of n x n matrices with "
                        "1 <= n <= %d of float32/64 or complex64/128",
                        em_sla_maxn(a->dtype) ? em_sla_maxn(a->dtype) : 64);
    int64_t batch = 1, k = mode == EM_SLA_INV ? n : 1;
    for (int i = 0; i < nd - 2; i++) batch *= a->shape[i];
    if (mode == EM_SLA_SOLVE) {
        bool ok = b && b->ndim == nd && b->dtype == a->dtype && em_array_is_c_contiguous(b) &&
                  b->shape[nd - 2] == n;
        em_device bd = ok ? em_array_device(b) : dev;
        ok = ok && bd.kind == dev.kind && bd.id == dev.id;
        for (int i = 0; ok && i < nd - 2; i++) ok = b->shape[i] == a->shape[i];
        if (!ok)
            return em_error(EM_EVALUE, "small linalg solve: b (..., n, k) C-contiguous of a's "
                                       "dtype, batch and device");
        k = b->shape[nd - 1];
    } else if (mode != EM_SLA_INV && mode != EM_SLA_DET) {
        return em_error(EM_EVALUE, "small linalg: mode %d", mode);
    }
    int64_t xs[EM_MAXDIMS];
    memcpy(xs, a->shape, sizeof(int64_t) * (size_t)nd);
    if (mode == EM_SLA_SOLVE) xs[nd - 1] = k;
    em_status s = em_array_empty(x, a->dtype, mode == EM_SLA_DET ? nd - 2 : nd, xs, dev);
    if (s == EM_OK) s = em_array_empty(info, EM_INT32, nd - 2, xs, dev);
    if (s == EM_OK && batch) { /* k == 0: the LU for info alone */
        int cap = em__sla_class(be, (int)n, em_sla_maxn(a->dtype));
        em_sla_spec spec = {
            .mode = em__sla_cuda(be) ? mode : EM_SLA_ANY, .dtype = a->dtype, .cap = cap};
        em__slaargs g = {.p = {a->data, mode == EM_SLA_SOLVE ? b->data : NULL, x->data, info->data},
                         .n = n,
                         .k = k,
                         .batch = batch,
                         .mode = mode};
        s = em__sla_launch(be, dev.id, spec, &g);
    }
    if (s != EM_OK) em_array_release(x), em_array_release(info);
    return s;
}
