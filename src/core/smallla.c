/* em_small_linalg (ember/smallla.h): the checks and C-order copies, then
 * the device driver (codegen/run_smallla.c). */
#include "ember/smallla.h"
#include "codegen/render_smallla.h"
#include "codegen/render_smallqr.h"
#include "core/core.h"

#include <string.h>

int em_small_linalg_maxn(em_dtype dtype) { return em_sla_maxn(dtype); }

static em_status em__corder(const em_array *a, em_array *out) {
    if (em_array_is_c_contiguous(a)) {
        em_array_view(out, a);
        return EM_OK;
    }
    return em_astype(a, a->dtype, out);
}

/* The backend of a's device when it compiles kernels (not the CPU's,
 * whose linalg is NumPy's), else NULL with EM_EUNSUPPORTED's message. */
static const em_backend *em__sla_backend(const em_array *a, const char *what) {
    const em_device_kind kind = em_array_device(a).kind;
    const em_backend *be = kind == EM_CPU ? NULL : em__backend(kind);
    if (be && be->module_build && be->dialect) return be;
    em_error(EM_EUNSUPPORTED, "%s runs on devices that compile kernels", what);
    return NULL;
}

em_status em_small_eigh(const em_array *a, bool vectors, bool upper, em_array *w, em_array *v,
                        em_array *info) {
    if (!a || !a->buf || !w || !v || !info)
        return em_error(EM_EVALUE, "em_small_eigh: a, w, v and info must be set");
    memset(w, 0, sizeof *w), memset(v, 0, sizeof *v), memset(info, 0, sizeof *info);
    const em_backend *be = em__sla_backend(a, "em_small_eigh");
    if (!be) return EM_EUNSUPPORTED;
    int64_t n = a->ndim >= 2 ? a->shape[a->ndim - 1] : 0;
    const bool cplx = a->dtype == EM_COMPLEX64 || a->dtype == EM_COMPLEX128;
    const int maxn = !em_sla_maxn(a->dtype) ? 0 : cplx ? EM_SLA_EIGHW_MAXN : EM_SLA_EIGH_MAXN;
    if (n < 1 || n > maxn)
        return em_error(
            EM_EUNSUPPORTED, "em_small_eigh: n = %lld of %s (float32/64 n <= %d, complex n <= %d)",
            (long long)n, em_dtype_get(a->dtype)->name, EM_SLA_EIGH_MAXN, EM_SLA_EIGHW_MAXN);
    em_array ca = {0};
    em_status s = em__corder(a, &ca);
    if (s == EM_OK) s = em_run_smallla_eigh(be, &ca, vectors, upper, w, v, info);
    em_array_release(&ca);
    return s;
}

em_status em_small_linalg(int mode, const em_array *a, const em_array *b, em_array *x,
                          em_array *info) {
    if (!a || !a->buf || !x || !info || (mode == EM_SMALLLA_SOLVE && (!b || !b->buf)))
        return em_error(EM_EVALUE, "em_small_linalg: a (and b for solve), x and info must be set");
    memset(x, 0, sizeof *x), memset(info, 0, sizeof *info);
    const em_backend *be = em__sla_backend(a, "em_small_linalg");
    if (!be) return EM_EUNSUPPORTED;
    int maxn = em_sla_maxn(a->dtype);
    int64_t n = a->ndim >= 2 ? a->shape[a->ndim - 1] : 0;
    if (!maxn || n < 1 || n > maxn)
        return em_error(EM_EUNSUPPORTED, "em_small_linalg: n = %lld of %s (1 <= n <= %d)",
                        (long long)n, em_dtype_get(a->dtype)->name, maxn);
    em_array ca = {0}, cb = {0};
    em_status s = em__corder(a, &ca);
    if (s == EM_OK && mode == EM_SMALLLA_SOLVE) s = em__corder(b, &cb);
    if (s == EM_OK)
        s = em_run_smallla(be, mode, &ca, mode == EM_SMALLLA_SOLVE ? &cb : NULL, x, info);
    em_array_release(&ca);
    if (cb.buf) em_array_release(&cb);
    return s;
}

em_status em_small_qr(int mode, const em_array *a, em_array *q, em_array *r) {
    if (!a || !a->buf || !q || !r)
        return em_error(EM_EVALUE, "em_small_qr: a, q and r must be set");
    memset(q, 0, sizeof *q), memset(r, 0, sizeof *r);
    if (mode < EM_SMALLQR_REDUCED || mode > EM_SMALLQR_RAW)
        return em_error(EM_EVALUE, "em_small_qr: mode %d", mode);
    const em_backend *be = em__sla_backend(a, "em_small_qr");
    if (!be) return EM_EUNSUPPORTED;
    const int nd = a->ndim;
    const int64_t m = nd >= 2 ? a->shape[nd - 2] : 0, n = nd >= 2 ? a->shape[nd - 1] : 0;
    if (!em_sla_maxn(a->dtype) || m < 1 || n < 1 || m > EM_SQR_MAXN || n > EM_SQR_MAXN)
        return em_error(EM_EUNSUPPORTED, "em_small_qr: %lld x %lld of %s (1 <= m, n <= %d)",
                        (long long)m, (long long)n, em_dtype_get(a->dtype)->name, EM_SQR_MAXN);
    em_array ca = {0};
    em_status s = em__corder(a, &ca);
    if (s == EM_OK) s = em_run_smallqr(be, mode, &ca, q, r);
    em_array_release(&ca);
    return s;
}
