/* em_sort, em_argsort, em_searchsorted (ember.h): the checks and the axis,
 * then the device driver (codegen/run_sort.c), or on the CPU its radix sort
 * (backend/cpu/sort.c; em_searchsorted stays the devices': Ember's Python
 * layer searches CPU arrays with NumPy's host functions, in place). */
#include "codegen/run_sort.h"
#include "core/core.h"

#include <limits.h>
#include <string.h>

static const em_backend *em__sort_backend(const em_array *a, const char *what, bool cpu_sort) {
    const em_backend *be = em__backend(em_array_device(a).kind);
    if (be && be->module_build) return be;
    if (cpu_sort && be && be->ops && be->ops->sort) return be;
    em_error(EM_EUNSUPPORTED, "em_%s runs on devices that compile kernels, not on %s", what,
             be ? be->name : "this device");
    return NULL;
}

/* One sort of rows of len through the backend: the compiled driver, or
 * the precompiled sort of a C-contiguous copy where a is not one. */
static em_status em__sort_rows(const em_backend *be, const em_array *a, int64_t len,
                               bool descending, bool arg, em_array *out) {
    if (!be->ops) return em_run_sort(be, a, len, descending, arg, out);
    if (em_array_is_c_contiguous(a)) return be->ops->sort(a, len, descending, arg, out);
    em_array c = {0};
    EM_CHECK(em_astype(a, EM_NDTYPES, &c));
    em_status s = be->ops->sort(&c, len, descending, arg, out);
    em_array_release(&c);
    return s;
}

static em_status em__sort(const em_array *a, int axis, bool descending, bool arg, em_array *out) {
    if (!a || !a->buf || !out)
        return em_error(EM_EVALUE, "em_%s: a and out must be set", arg ? "argsort" : "sort");
    const em_backend *be = em__sort_backend(a, arg ? "argsort" : "sort", true);
    if (!be) return EM_EUNSUPPORTED;
    const em_dtype odt = arg ? EM_INT64 : a->dtype;
    const em_device dev = em_array_device(a);
    memset(out, 0, sizeof *out);
    if (axis == INT_MIN || a->ndim == 0) { /* flattened (a 0-d array: one element) */
        int64_t n = em_array_size(a);
        em_array res = {0};
        EM_CHECK(em_array_empty(&res, odt, a->ndim ? 1 : 0, &n, dev));
        em_status s = em__sort_rows(be, a, n ? n : 1, descending, arg, &res);
        if (s == EM_OK)
            *out = res;
        else
            em_array_release(&res);
        return s;
    }
    if (axis < -a->ndim || axis >= a->ndim)
        return em_error(EM_EINDEX, "axis %d is out of bounds for array of dimension %d", axis,
                        a->ndim);
    if (axis < 0) axis += a->ndim;
    /* The axis last: the driver sorts rows of the last dimension. */
    int perm[EM_MAXDIMS], inv[EM_MAXDIMS], k = 0;
    for (int d = 0; d < a->ndim; d++)
        if (d != axis) perm[k++] = d;
    perm[k] = axis;
    for (int d = 0; d < a->ndim; d++) inv[perm[d]] = d;
    em_array t = {0}, res = {0};
    em_status s = em_view_transpose(a, perm, &t);
    if (s == EM_OK) s = em_array_empty(&res, odt, t.ndim, t.shape, dev);
    if (s == EM_OK) s = em__sort_rows(be, &t, t.shape[t.ndim - 1], descending, arg, &res);
    if (s == EM_OK) s = em_view_transpose(&res, inv, out);
    em_array_release(&t), em_array_release(&res);
    return s;
}

em_status em_sort(const em_array *a, int axis, bool descending, em_array *out) {
    return em__sort(a, axis, descending, false, out);
}

em_status em_argsort(const em_array *a, int axis, bool descending, em_array *out) {
    return em__sort(a, axis, descending, true, out);
}

em_status em_argsort_keys(const em_array *a, bool descending, em_array *idx, em_array *keys) {
    if (!a || !a->buf || !idx || !keys)
        return em_error(EM_EVALUE, "em_argsort_keys: a, idx and keys must be set");
    memset(keys, 0, sizeof *keys);
    const em_backend *be = em__sort_backend(a, "argsort", true);
    if (!be) return EM_EUNSUPPORTED;
    if (be->ops) return em__sort(a, INT_MIN, descending, true, idx); /* the CPU: no values */
    memset(idx, 0, sizeof *idx);
    const int64_t n = em_array_size(a);
    const em_device dev = em_array_device(a);
    em_array res = {0}, k = {0};
    bool done = false;
    em_status s = em_array_empty(&res, EM_INT64, 1, &n, dev);
    if (s == EM_OK) s = em_array_empty(&k, a->dtype, 1, &n, dev);
    if (s == EM_OK) s = em_run_argsort_keys(be, a, descending, &res, &k, &done);
    if (s == EM_OK && done)
        *keys = k;
    else
        em_array_release(&k);
    if (s == EM_OK)
        *idx = res;
    else
        em_array_release(&res);
    return s;
}

em_status em_searchsorted(const em_array *a, const em_array *v, bool right, const em_array *sorter,
                          em_array *out) {
    if (!a || !a->buf || !v || !v->buf || !out)
        return em_error(EM_EVALUE, "em_searchsorted: a, v and out must be set");
    if (a->ndim != 1) return em_error(EM_EVALUE, "object too deep for desired array");
    const em_device dev = em_array_device(a), vd = em_array_device(v);
    if (dev.kind != vd.kind || dev.id != vd.id ||
        (sorter &&
         (em_array_device(sorter).kind != dev.kind || em_array_device(sorter).id != dev.id)))
        return em_error(EM_EDEVICE, "searchsorted: the arrays are on different devices");
    const em_backend *be = em__sort_backend(a, "searchsorted", false);
    if (!be) return EM_EUNSUPPORTED;
    if (sorter && sorter->shape[0] != a->shape[0])
        return em_error(EM_EVALUE, "sorter.size must equal a.size");
    em_array vc = {0}, so = {0}, res = {0};
    em_status s = EM_OK;
    if (v->dtype != a->dtype)
        s = em_astype(v, a->dtype, &vc);
    else
        em_array_view(&vc, v);
    if (s == EM_OK && sorter) {
        if (sorter->ndim != 1)
            s = em_error(EM_EVALUE, "sorter must be 1-d");
        else if (sorter->dtype == EM_INT64 && em_array_is_c_contiguous(sorter))
            em_array_view(&so, sorter);
        else
            s = em_astype(sorter, EM_INT64, &so);
    }
    if (s == EM_OK) s = em_array_empty(&res, EM_INT64, vc.ndim, vc.shape, dev);
    if (s == EM_OK) s = em_run_searchsorted(be, a, sorter ? &so : NULL, &vc, right, &res);
    if (s == EM_OK)
        *out = res;
    else
        em_array_release(&res);
    em_array_release(&vc), em_array_release(&so);
    return s;
}
