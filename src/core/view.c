/* Views: basic indexing, transpose, broadcast_to, reshape, real/imag.
 * Each makes a new em_array over the same buffer; none copies data. */
#include "core/core.h"

#include <string.h>

static void em__view_init(em_array *out, const em_array *a) {
    *out = *a;
    out->ndim = 0;
}

/* Count items that consume an input dimension (ints and slices). */
static em_status em__index_consumed(const em_array *a, int nitems, const em_index_item *items,
                                    int *consumed, int *ellipsis) {
    int used = 0, ell = -1;
    for (int k = 0; k < nitems; k++) {
        if (items[k].kind == EM_IX_ELLIPSIS) {
            if (ell >= 0)
                return em_error(EM_EINDEX, "an index can only have a single ellipsis ('...')");
            ell = k;
        } else if (items[k].kind != EM_IX_NEWAXIS) {
            used++;
        }
    }
    if (used > a->ndim)
        return em_error(EM_EINDEX,
                        "too many indices for array: array is %d-dimensional, but %d were indexed",
                        a->ndim, used);
    *consumed = used;
    *ellipsis = ell;
    return EM_OK;
}

static em_status em__apply_item(em_array *o, const em_array *a, int *dim, const em_index_item *it,
                                char **data) {
    if (it->kind == EM_IX_NEWAXIS) {
        o->shape[o->ndim] = 1;
        o->strides[o->ndim++] = 0;
        return EM_OK;
    }
    int d = (*dim)++;
    int64_t len = a->shape[d];
    if (it->kind == EM_IX_INT) {
        int64_t i = it->start;
        if (i < -len || i >= len)
            return em_error(EM_EINDEX, "index %lld is out of bounds for axis %d with size %lld",
                            (long long)i, d, (long long)len);
        if (i < 0) i += len;
        *data += i * a->strides[d];
        return EM_OK;
    }
    int64_t b = it->start, e = it->stop, n;
    EM_CHECK(em_slice_normalize(len, &b, &e, it->step, &n));
    if (n > 0) *data += b * a->strides[d];
    o->shape[o->ndim] = n;
    o->strides[o->ndim++] = a->strides[d] * it->step;
    return EM_OK;
}

em_status em_view_index(const em_array *a, int nitems, const em_index_item *items, em_array *out) {
    int consumed = 0, ell = -1;
    EM_CHECK(em__index_consumed(a, nitems, items, &consumed, &ell));
    em_array o;
    em__view_init(&o, a);
    char *data = a->data;
    int dim = 0, nint = 0, nnew = 0;
    /* The result keeps every input dimension but those an integer removes
     * (a slice keeps its one), plus one per newaxis: count that, not the
     * items consumed, or 32 slices and a newaxis write past shape[]. */
    for (int k = 0; k < nitems; k++) {
        nnew += items[k].kind == EM_IX_NEWAXIS;
        nint += items[k].kind == EM_IX_INT;
    }
    if (a->ndim - nint + nnew > EM_MAXDIMS)
        return em_error(EM_EINDEX,
                        "number of dimensions must be within [0, %d], indexing result would "
                        "have %d",
                        EM_MAXDIMS, a->ndim - nint + nnew);
    for (int k = 0; k < nitems; k++) {
        if (items[k].kind == EM_IX_ELLIPSIS) {
            int skip = a->ndim - consumed;
            for (int j = 0; j < skip; j++, dim++) {
                o.shape[o.ndim] = a->shape[dim];
                o.strides[o.ndim++] = a->strides[dim];
            }
            continue;
        }
        EM_CHECK(em__apply_item(&o, a, &dim, &items[k], &data));
    }
    for (; dim < a->ndim; dim++) {
        o.shape[o.ndim] = a->shape[dim];
        o.strides[o.ndim++] = a->strides[dim];
    }
    o.data = data;
    em_array_view(out, &o);
    return EM_OK;
}

em_status em_view_transpose(const em_array *a, const int *perm, em_array *out) {
    int seen[EM_MAXDIMS] = {0};
    em_array o;
    em__view_init(&o, a);
    for (int i = 0; i < a->ndim; i++) {
        int p = perm ? perm[i] : a->ndim - 1 - i;
        if (p < 0) p += a->ndim;
        if (p < 0 || p >= a->ndim)
            return em_error(EM_EVALUE, "axis %d is out of bounds for array of dimension %d",
                            perm[i], a->ndim);
        if (seen[p]++) return em_error(EM_EVALUE, "repeated axis %d in transpose", p);
        o.shape[i] = a->shape[p];
        o.strides[i] = a->strides[p];
    }
    o.ndim = a->ndim;
    em_array_view(out, &o);
    return EM_OK;
}

em_status em_view_broadcast_to(const em_array *a, int ndim, const int64_t *shape, em_array *out) {
    int64_t n;
    EM_CHECK(em_shape_size(ndim, shape, &n));
    if (ndim < a->ndim)
        return em_error(EM_ESHAPE, "cannot broadcast a %d-dimensional array to %d dimensions",
                        a->ndim, ndim);
    em_array o;
    em__view_init(&o, a);
    int off = ndim - a->ndim;
    for (int i = 0; i < ndim; i++) {
        int64_t d = i < off ? 1 : a->shape[i - off];
        int64_t st = i < off ? 0 : a->strides[i - off];
        if (d != shape[i]) {
            if (d != 1)
                return em_error(EM_ESHAPE,
                                "cannot broadcast dimension %d of size %lld to size %lld", i,
                                (long long)d, (long long)shape[i]);
            st = 0;
        }
        o.shape[i] = shape[i];
        o.strides[i] = st;
    }
    o.ndim = ndim;
    em_array_view(out, &o);
    return EM_OK;
}

/* Resolve one -1 and check the element count. */
static em_status em__reshape_target(const em_array *a, int ndim, const int64_t *shape,
                                    int64_t *res) {
    int infer = -1;
    int64_t known = 1, total = em_array_size(a);
    for (int i = 0; i < ndim; i++) {
        if (shape[i] == -1) {
            if (infer >= 0) return em_error(EM_EVALUE, "can only specify one unknown dimension");
            infer = i;
            continue;
        }
        if (shape[i] < 0) return em_error(EM_EVALUE, "negative dimensions not allowed in reshape");
        EM_CHECK(em__size_mul(known, shape[i], &known));
        res[i] = shape[i];
    }
    if (infer >= 0) {
        if (known == 0 || total % known)
            return em_error(EM_EVALUE, "cannot reshape array of size %lld into the requested shape",
                            (long long)total);
        res[infer] = total / known;
        known = total;
    }
    if (known != total)
        return em_error(EM_EVALUE, "cannot reshape array of size %lld into shape of size %lld",
                        (long long)total, (long long)known);
    return EM_OK;
}

/* NumPy's attempt_nocopy_reshape: walk matching groups of old and new dims;
 * each group of old dims must be contiguous among themselves. */
static bool em__nocopy_strides(const em_array *a, int nd, const int64_t *ns, int64_t *nst) {
    int64_t os[EM_MAXDIMS], ost[EM_MAXDIMS];
    int ond = 0;
    for (int i = 0; i < a->ndim; i++)
        if (a->shape[i] != 1) {
            os[ond] = a->shape[i];
            ost[ond++] = a->strides[i];
        }
    int oi = 0, oj = 1, ni = 0, nj = 1;
    while (ni < nd && oi < ond) {
        int64_t np = ns[ni], op = os[oi];
        while (np != op) {
            if (np < op)
                np *= ns[nj++];
            else
                op *= os[oj++];
        }
        for (int k = oi; k < oj - 1; k++)
            if (ost[k] != os[k + 1] * ost[k + 1]) return false;
        nst[nj - 1] = ost[oj - 1];
        for (int k = nj - 1; k > ni; k--) nst[k - 1] = nst[k] * ns[k];
        ni = nj++;
        oi = oj++;
    }
    int64_t last = ni > 0 ? nst[ni - 1] : EM_DTYPE_SIZE(a->dtype);
    for (int k = ni; k < nd; k++) nst[k] = last;
    return true;
}

em_status em_view_reshape(const em_array *a, int ndim, const int64_t *shape, em_array *out) {
    if (ndim < 0 || ndim > EM_MAXDIMS)
        return em_error(EM_EVALUE, "reshape to %d dimensions; at most %d allowed", ndim,
                        EM_MAXDIMS);
    em_array o;
    em__view_init(&o, a);
    EM_CHECK(em__reshape_target(a, ndim, shape, o.shape));
    o.ndim = ndim;
    if (em_array_size(a) == 0) { /* NumPy's reshape keeps products of the other dims */
        int64_t st = EM_DTYPE_SIZE(a->dtype);
        for (int i = ndim - 1; i >= 0; i--) {
            o.strides[i] = st;
            st *= o.shape[i] > 0 ? o.shape[i] : 1;
        }
    } else if (em_array_is_c_contiguous(a)) {
        em__contig_strides(ndim, o.shape, EM_DTYPE_SIZE(a->dtype), o.strides);
    } else if (!em__nocopy_strides(a, ndim, o.shape, o.strides)) {
        return em_error(EM_EUNSUPPORTED, "reshape needs a copy for this layout");
    }
    em_array_view(out, &o);
    return EM_OK;
}

em_status em_view_component(const em_array *a, int imag, em_array *out) {
    if (em_dtype_get(a->dtype)->kind != 'c')
        return em_error(EM_ETYPE, "real/imag views need a complex array, got %s",
                        em_dtype_get(a->dtype)->name);
    em_array o;
    em_array_view(&o, a);
    o.dtype = em_real_for(a->dtype);
    if (imag) o.data += EM_DTYPE_SIZE(o.dtype);
    *out = o;
    return EM_OK;
}
