/* Gather, scatter and nonzero: validation and allocation; the backend moves
 * data.  Index arrays are brought to one broadcast shape as C-contiguous
 * int64 (a no-op for indices that already are), so backends see one form. */
#include "backend/backend.h"
#include "codegen/render_scatter.h"
#include "codegen/run.h"
#include "core/core.h"

#include <string.h>

/* A set of index arrays prepared for a backend. */
typedef struct em__ixset {
    int n;
    em_array ix[EM_MAXDIMS];
    int ndim; /* the broadcast shape B */
    int64_t shape[EM_MAXDIMS];
} em__ixset;

static void em__ixset_release(em__ixset *s) {
    for (int k = 0; k < s->n; k++) em_array_release(&s->ix[k]);
    s->n = 0;
}

static em_status em__check_index(const em_array *a, const em_array *ix, int k) {
    char kind = em_dtype_get(ix->dtype)->kind;
    if (kind != 'i' && kind != 'u')
        return em_error(EM_ETYPE, "index array %d has dtype %s; index arrays must be integers", k,
                        em_dtype_get(ix->dtype)->name);
    em_device d = em_array_device(a), e = em_array_device(ix);
    if (d.kind != e.kind || d.id != e.id)
        return em_error(EM_EDEVICE, "index array %d is on %s:%d but the array is on %s:%d", k,
                        em_device_kind_name(e.kind), e.id, em_device_kind_name(d.kind), d.id);
    return EM_OK;
}

/* One index array as C-contiguous int64 of shape (nd, shape). */
static em_status em__index_as_int64(const em_array *ix, int nd, const int64_t *shape,
                                    em_array *out) {
    em_array b;
    EM_CHECK(em_view_broadcast_to(ix, nd, shape, &b));
    em_status s = EM_OK;
    if (b.dtype == EM_INT64 && em_array_is_c_contiguous(&b))
        *out = b;
    else {
        s = em_astype(&b, EM_INT64, out);
        em_array_release(&b);
    }
    return s;
}

static em_status em__ixset_make(const em_array *a, int nidx, const em_array *idx, em__ixset *set) {
    const int64_t *shapes[EM_MAXDIMS] = {0};
    int ndims[EM_MAXDIMS] = {0};
    if (nidx < 1 || nidx > EM_MAXDIMS)
        return em_error(EM_EVALUE, "%d index arrays given; 1 to %d are allowed", nidx, EM_MAXDIMS);
    for (int k = 0; k < nidx; k++) {
        EM_CHECK(em__check_index(a, &idx[k], k));
        shapes[k] = idx[k].shape, ndims[k] = idx[k].ndim;
    }
    EM_CHECK(em_broadcast_shapes(nidx, ndims, shapes, &set->ndim, set->shape));
    set->n = 0;
    for (int k = 0; k < nidx; k++) {
        em_status s = em__index_as_int64(&idx[k], set->ndim, set->shape, &set->ix[k]);
        if (s != EM_OK) {
            em__ixset_release(set);
            return s;
        }
        set->n++;
    }
    return EM_OK;
}

/* The gather result shape B + a.shape[m:]. */
static em_status em__gather_shape(const em_array *a, int m, const em__ixset *set, int *nd,
                                  int64_t *shape) {
    int n = set->ndim + a->ndim - m;
    if (n > EM_MAXDIMS)
        return em_error(EM_EVALUE, "indexing result would have %d dimensions; at most %d allowed",
                        n, EM_MAXDIMS);
    memcpy(shape, set->shape, sizeof(int64_t) * (size_t)set->ndim);
    memcpy(shape + set->ndim, a->shape + m, sizeof(int64_t) * (size_t)(a->ndim - m));
    *nd = n;
    return EM_OK;
}

/* take with the indices addressing a's first m dims (one array each, or one
 * flat array when nidx == 1 != m). */
static em_status em__take(const em_array *a, int m, int nidx, const em_array *idx, em_array *out) {
    EM_CHECK(em_array_live(a));
    em__ixset set;
    EM_CHECK(em__ixset_make(a, nidx, idx, &set));
    int nd = 0;
    int64_t shape[EM_MAXDIMS];
    em_array r = {0};
    em_status s = em__gather_shape(a, m, &set, &nd, shape);
    if (s == EM_OK) s = em_array_empty(&r, a->dtype, nd, shape, em_array_device(a));
    if (s == EM_OK) s = em_algo_take(em__backend(em_array_device(a).kind), a, m, nidx, set.ix, &r);
    em__ixset_release(&set);
    if (s != EM_OK) {
        em_array_release(&r);
        return s;
    }
    *out = r;
    return EM_OK;
}

static em_status em__put(em_array *a, int m, int nidx, const em_array *idx,
                         const em_array *values) {
    if (!(a->flags & EM_WRITEABLE))
        return em_error(EM_EVALUE, "assignment destination is read-only");
    EM_CHECK(em_array_live(a));
    EM_CHECK(em_array_live(values));
    em__ixset set;
    EM_CHECK(em__ixset_make(a, nidx, idx, &set));
    int nd = 0;
    int64_t shape[EM_MAXDIMS];
    em_array v = {0};
    em_status s = em__gather_shape(a, m, &set, &nd, shape);
    /* values broadcast and cast into a private buffer: also guards against
     * values that alias a. */
    if (s == EM_OK) s = em_array_empty(&v, a->dtype, nd, shape, em_array_device(a));
    if (s == EM_OK) s = em_copy_into(&v, values);
    if (s == EM_OK) s = em_algo_put(em__backend(em_array_device(a).kind), a, m, nidx, set.ix, &v);
    em__ixset_release(&set);
    em_array_release(&v);
    return s;
}

static em_status em__check_nidx(const em_array *a, int nidx) {
    if (nidx > a->ndim)
        return em_error(EM_EINDEX,
                        "too many indices for array: array is %d-dimensional, but %d were indexed",
                        a->ndim, nidx);
    return EM_OK;
}

em_status em_take(const em_array *a, int nidx, const em_array *idx, em_array *out) {
    EM_CHECK(em__check_nidx(a, nidx));
    return em__take(a, nidx, nidx, idx, out);
}

em_status em_put(em_array *a, int nidx, const em_array *idx, const em_array *values) {
    EM_CHECK(em__check_nidx(a, nidx));
    return em__put(a, nidx, nidx, idx, values);
}

em_status em_take_flat(const em_array *a, const em_array *idx, em_array *out) {
    return em__take(a, a->ndim, 1, idx, out);
}

em_status em_put_flat(em_array *a, const em_array *idx, const em_array *values) {
    return em__put(a, a->ndim, 1, idx, values);
}

em_status em_mask_select(const em_array *a, const em_array *mask, em_array *out) {
    if (a->ndim == 0 || mask->ndim != a->ndim ||
        memcmp(a->shape, mask->shape, sizeof(int64_t) * (size_t)a->ndim))
        return em_error(EM_ESHAPE, "mask_select: the mask must have the array's shape (ndim >= 1)");
    if (!em_array_is_c_contiguous(a))
        return em_error(EM_EVALUE, "mask_select: the array must be C-contiguous");
    em_device dv = em_array_device(a), dm = em_array_device(mask);
    if (dv.kind != dm.kind || dv.id != dm.id)
        return em_error(EM_EDEVICE, "mask_select: the mask is on another device");
    const em_backend *be = em__backend(dv.kind);
    if (!be->ops) return em_run_mask_select(be, a, mask, out);
    if (!be->ops->mask_select)
        return em_error(EM_EVALUE, "mask_select: the %s backend has no mask_select", be->name);
    return be->ops->mask_select(a, mask, out);
}

em_status em_nonzero(const em_array *a, em_array *out) {
    if (a->ndim == 0)
        return em_error(EM_EVALUE, "nonzero of a 0-d array is not allowed; reshape it to 1-d");
    return em_algo_nonzero(em__backend(em_array_device(a).kind), a, out);
}

em_status em_scatter_accum(em_array *out, const em_array *idx, const em_array *values, em_op op) {
    em_scatter_op sc = op == EM_OP_ADD        ? EM_SC_ADD
                       : op == EM_OP_SUBTRACT ? EM_SC_SUBTRACT
                       : op == EM_OP_MULTIPLY ? EM_SC_MULTIPLY
                       : op == EM_OP_MAXIMUM  ? EM_SC_MAXIMUM
                       : op == EM_OP_MINIMUM  ? EM_SC_MINIMUM
                                              : EM_SC_NOPS;
    if (sc == EM_SC_NOPS)
        return em_error(EM_EVALUE, "scatter: op %d has no accumulating scatter", (int)op);
    return em_run_scatter(em__backend(em_array_device(out).kind), sc, out, idx, values);
}
