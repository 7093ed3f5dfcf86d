/* em_unique_sorted (ember.h): the checks, then the device driver
 * (codegen/run_unique.c).  Like the sort, devices that compile kernels
 * only: the CPU's unique is NumPy's. */
#include "codegen/render_part.h"
#include "codegen/render_select.h"
#include "codegen/run_unique.h"
#include "core/core.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static const em_backend *em__uq_backend(const em_array *a, const char *what) {
    const em_backend *be = em__backend(em_array_device(a).kind);
    if (be && be->module_build) return be;
    em_error(EM_EUNSUPPORTED, "em_%s runs on devices that compile kernels, not on %s", what,
             be ? be->name : "this device");
    return NULL;
}

static bool em__same_dev(const em_array *a, const em_array *b) {
    em_device x = em_array_device(a), y = em_array_device(b);
    return x.kind == y.kind && x.id == y.id;
}

em_status em_unique_sorted(const em_array *s, const em_array *perm, bool equal_nan, bool index,
                           bool inverse, bool counts, em_array out[4]) {
    if (!s || !s->buf || !out)
        return em_error(EM_EVALUE, "em_unique_sorted: s and out must be set");
    memset(out, 0, 4 * sizeof *out);
    const em_backend *be = em__uq_backend(s, "unique_sorted");
    if (!be) return EM_EUNSUPPORTED;
    if (s->ndim != 1 || !em_array_is_c_contiguous(s))
        return em_error(EM_EVALUE, "em_unique_sorted: s must be 1-D and C-contiguous");
    if ((index || inverse) && (!perm || !perm->buf || perm->ndim != 1 || perm->dtype != EM_INT64 ||
                               !em_array_is_c_contiguous(perm) || perm->shape[0] != s->shape[0] ||
                               !em__same_dev(s, perm)))
        return em_error(EM_EVALUE, "em_unique_sorted: index and inverse need s's permutation "
                                   "(int64, C-contiguous, s's length, s's device)");
    return em_run_unique(be, s, perm, equal_nan, index, inverse, counts, out);
}

em_status em_setop_sorted(const em_array *s, const em_array *o, int mode, em_array *out) {
    if (!s || !s->buf || !o || !o->buf || !out)
        return em_error(EM_EVALUE, "em_setop_sorted: s, o and out must be set");
    memset(out, 0, sizeof *out);
    if (mode < EM_SETOP_IN || mode > EM_SETOP_SINGLE)
        return em_error(EM_EVALUE, "em_setop_sorted: no set operation %d", mode);
    const em_backend *be = em__uq_backend(s, "setop_sorted");
    if (!be) return EM_EUNSUPPORTED;
    if (!em__same_dev(s, o))
        return em_error(EM_EVALUE, "em_setop_sorted: s and o must be on one device");
    if (s->dtype != o->dtype)
        return em_error(EM_ETYPE, "em_setop_sorted: s is %s and o %s (one dtype)",
                        em_dtype_get(s->dtype)->name, em_dtype_get(o->dtype)->name);
    if (s->dtype == EM_COMPLEX64 || s->dtype == EM_COMPLEX128)
        return em_error(EM_ETYPE, "em_setop_sorted: no order of %s", em_dtype_get(s->dtype)->name);
    const bool any_shape = mode == EM_SETOP_ISIN || mode == EM_SETOP_ISNOTIN;
    if ((!any_shape && s->ndim != 1) || o->ndim != 1 || !em_array_is_c_contiguous(s) ||
        !em_array_is_c_contiguous(o))
        return em_error(EM_EVALUE, "em_setop_sorted: s and o must be C-contiguous, o 1-D%s",
                        any_shape ? "" : " and s 1-D");
    return em_run_setop(be, s, o, mode, out);
}

em_status em_select_kth(const em_array *a, int nk, const int64_t *ks, em_array *out) {
    if (!a || !a->buf || !out || nk < 0 || (nk && !ks))
        return em_error(EM_EVALUE, "em_select_kth: a, ks and out must be set");
    memset(out, 0, sizeof *out);
    const em_backend *be = em__uq_backend(a, "select_kth");
    if (!be) return EM_EUNSUPPORTED;
    if (!em_sel_dtype_ok(a->dtype))
        return em_error(EM_ETYPE, "select_kth: no order statistic of %s",
                        em_dtype_get(a->dtype)->name);
    const int64_t n = em_array_size(a);
    if (n > (int64_t)UINT32_MAX)
        return em_error(EM_EUNSUPPORTED, "select_kth: more than 2^32-1 elements");
    for (int i = 0; i < nk; i++)
        if (ks[i] < 0 || ks[i] >= n)
            return em_error(EM_EINDEX, "kth(=%lld) out of bounds (%lld)", (long long)ks[i],
                            (long long)n);
    em_array c = {0}, res = {0};
    int64_t m = nk;
    em_status s = EM_OK;
    if (em_array_is_c_contiguous(a))
        em_array_view(&c, a);
    else
        s = em_astype(a, a->dtype, &c); /* a C-order copy */
    if (s == EM_OK) s = em_array_empty(&res, a->dtype, 1, &m, em_array_device(a));
    if (s == EM_OK && nk) s = em_run_select(be, &c, nk, ks, &res);
    em_array_release(&c);
    if (s == EM_OK)
        *out = res;
    else
        em_array_release(&res);
    return s;
}

static int em__cmp64(const void *x, const void *y) {
    const int64_t a = *(const int64_t *)x, b = *(const int64_t *)y;
    return (a > b) - (a < b);
}

em_status em_partition(const em_array *a, int nk, const int64_t *ks, bool arg, em_array *out) {
    if (!a || !a->buf || !out || nk < 1 || !ks)
        return em_error(EM_EVALUE, "em_partition: a, ks (at least one) and out must be set");
    memset(out, 0, sizeof *out);
    const em_backend *be = em__uq_backend(a, "partition");
    if (!be) return EM_EUNSUPPORTED;
    if (!em_sel_dtype_ok(a->dtype))
        return em_error(EM_ETYPE, "partition: no order of %s", em_dtype_get(a->dtype)->name);
    const int64_t n = em_array_size(a);
    if (nk > 64) return em_error(EM_EUNSUPPORTED, "em_partition: at most 64 ranks");
    int64_t u[64];
    for (int i = 0; i < nk; i++) {
        if (ks[i] < 0 || ks[i] >= n)
            return em_error(EM_EINDEX, "kth(=%lld) out of bounds (%lld)", (long long)ks[i],
                            (long long)n);
        u[i] = ks[i];
    }
    qsort(u, (size_t)nk, sizeof *u, em__cmp64);
    int m = 0; /* the distinct ranks, ascending: the buckets' order */
    for (int i = 0; i < nk; i++)
        if (!m || u[m - 1] != u[i]) u[m++] = u[i];
    if (m > EM_PT_MAXK)
        return em_error(EM_EUNSUPPORTED, "em_partition: at most %d distinct ranks", EM_PT_MAXK);
    em_array c = {0}, kv = {0};
    em_status s = EM_OK;
    if (em_array_is_c_contiguous(a))
        em_array_view(&c, a);
    else
        s = em_astype(a, a->dtype, &c); /* a C-order copy */
    if (s == EM_OK) s = em_select_kth(&c, m, u, &kv);
    if (s == EM_OK) s = em_run_part(be, &c, &kv, arg, out);
    em_array_release(&c), em_array_release(&kv);
    return s;
}
