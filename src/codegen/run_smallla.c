/* Small solve / inv / det in one launch (render_smallla.h): one block per
 * matrix, kernels keyed by (mode, dtype, size class). */
#include "codegen/render_smallla.h"
#include "codegen/render_smallqr.h"
#include "codegen/run.h"
#include "core/core.h"

#include <stdio.h>
#include <stdlib.h>
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

/* EMBER_SMALLLA_NT: the threads a block of solve / inv / det for every cap
 * it can serve (a power of two from 64 to 1024, at least the cap), read at
 * each call so that bench/probe_smallla.py can time several in one process;
 * an A/B knob, not a setting (0: the default, em_sla_threads). */
static int em__sla_nt(int cap) {
    const char *e = getenv("EMBER_SMALLLA_NT");
    const int nt = e ? atoi(e) : 0;
    return nt >= 64 && nt <= 1024 && !(nt & (nt - 1)) && nt >= cap ? nt : 0;
}

/* inv of one matrix (or a few) on CUDA: the block is the whole device's
 * work, so more threads a column pay (H100, session 20, bench/probe_smallla.py,
 * ms at 256 / 512 / 1024 threads: 64^2 float64 0.150 / 0.126 / 0.117, float32
 * 0.146 / 0.108 / 0.108, complex64 0.162 / 0.127 / 0.135; 32^2 float64 at
 * 128 0.066, 256 0.053).  Stacks keep em_sla_threads (10^4 x 8^2 at 256:
 * 0.137 against 0.080; 1000 x 32^2: 0.110 against 0.092). */
static int em__sla_inv_nt(int cap, const em_array *a) {
    const bool cplx = a->dtype == EM_COMPLEX64 || a->dtype == EM_COMPLEX128;
    return cap >= 64 ? (cplx ? 512 : 1024) : cap == 32 ? 256 : 0;
}

/* Get the kernel for spec and launch it over batch matrices. */
static em_status em__sla_launch(const em_backend *be, int id, em_sla_spec spec, em__slaargs *g) {
    char key[64], name[48];
    snprintf(key, sizeof key, "SLA%d|%d|%d|%d", spec.mode, (int)spec.dtype, spec.cap, spec.nt);
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
    if (spec.mode == EM_SLA_EIGH)
        em_sla_eigh_geometry(&spec, &nt, &per);
    else if (spec.nt)
        nt = spec.nt;
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
                                       : em__sla_class(be, (int)n, maxn)};
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
        em_sla_spec spec = {.mode = em__sla_cuda(be) ? mode : EM_SLA_ANY,
                            .dtype = a->dtype,
                            .cap = cap,
                            .nt = em__sla_nt(cap)};
        if (!spec.nt && spec.mode == EM_SLA_INV && batch <= 16) spec.nt = em__sla_inv_nt(cap, a);
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

typedef struct em__sqr {
    const em_backend *be;
    em_sqr_spec k;
} em__sqr;

static em_status em__sqr_render(const void *ctx, void *sb) {
    const em__sqr *x = ctx;
    const em_dialect *d;
    EM_CHECK(em_run_dialect(x->be, &d));
    return em_render_smallqr(d, &x->k, sb);
}

em_status em_run_smallqr(const em_backend *be, int mode, const em_array *a, em_array *q,
                         em_array *r) {
    memset(q, 0, sizeof *q), memset(r, 0, sizeof *r);
    const em_device dev = em_array_device(a);
    const int nd = a->ndim;
    const int64_t m = nd >= 2 ? a->shape[nd - 2] : 0, n = nd >= 2 ? a->shape[nd - 1] : 0;
    const bool ok_dt = a->dtype == EM_FLOAT32 || a->dtype == EM_FLOAT64 ||
                       a->dtype == EM_COMPLEX64 || a->dtype == EM_COMPLEX128;
    if (nd < 2 || m < 1 || n < 1 || m > EM_SQR_MAXN || n > EM_SQR_MAXN || !ok_dt ||
        !em_array_is_c_contiguous(a))
        return em_error(EM_EVALUE,
                        "small qr: a C-contiguous stack of m x n matrices, 1 <= m, n <= %d, "
                        "of float32/64 or complex64/128",
                        EM_SQR_MAXN);
    if (mode < EM_SQR_REDUCED || mode > EM_SQR_RAW)
        return em_error(EM_EVALUE, "small qr: mode %d", mode);
    const int64_t k = m < n ? m : n;
    int64_t batch = 1, s1[EM_MAXDIMS], s2[EM_MAXDIMS];
    for (int i = 0; i < nd - 2; i++) batch *= a->shape[i];
    memcpy(s1, a->shape, sizeof(int64_t) * (size_t)nd);
    memcpy(s2, a->shape, sizeof(int64_t) * (size_t)nd);
    int n1 = nd, n2 = nd; /* q (or h) and r (or tau) */
    if (mode == EM_SQR_RAW) {
        s1[nd - 2] = n, s1[nd - 1] = m;
        s2[nd - 2] = k, n2 = nd - 1;
    } else {
        s1[nd - 1] = mode == EM_SQR_COMPLETE ? m : k;
        s2[nd - 2] = mode == EM_SQR_COMPLETE ? m : k;
    }
    em_status s = mode == EM_SQR_R ? EM_OK : em_array_empty(q, a->dtype, n1, s1, dev);
    if (s == EM_OK) s = em_array_empty(r, a->dtype, n2, s2, dev);
    if (s == EM_OK && batch) {
        const int mx = (int)(m > n ? m : n);
        /* CUDA: a kernel a size class; elsewhere one for every size (PoCL's builds) */
        em__sqr ctx = {be, {.dtype = a->dtype, .cap = em__sla_cuda(be) ? em_sla_cap(mx) : 32}};
        if (ctx.k.cap < 8) ctx.k.cap = 8;
        char key[48], name[48];
        snprintf(key, sizeof key, "SQR|%d|%d", (int)ctx.k.dtype, ctx.k.cap);
        snprintf(name, sizeof name, "small_qr%d_%s", ctx.k.cap, em_dtype_get(a->dtype)->name);
        const em_kfn *f;
        s = em_run_kernel(be, dev.id, key, name, EM_KNAME, em__sqr_render, &ctx, &f);
        if (s == EM_OK) {
            em__slaargs g = {.p = {a->data, mode == EM_SQR_R ? NULL : q->data,
                                   mode == EM_SQR_RAW ? NULL : r->data,
                                   mode == EM_SQR_RAW ? r->data : NULL},
                             .n = m, /* the fields in order: m, n, batch, mode */
                             .k = n,
                             .batch = batch,
                             .mode = mode};
            unsigned char blob[sizeof g];
            memcpy(blob, &g, sizeof g);
            int slots[4];
            const int per = em_sqr_per_block(&ctx.k);
            int64_t grid = (batch + per - 1) / per;
            if (grid > 65535 * 16) grid = 65535 * 16;
            s = em_run_launch(be, dev.id, f, (unsigned)grid, (unsigned)(per * ctx.k.cap), 0, blob,
                              sizeof blob, slots, em_run_slots(slots, 0, 4));
        }
    }
    if (s != EM_OK) em_array_release(q), em_array_release(r);
    return s;
}
