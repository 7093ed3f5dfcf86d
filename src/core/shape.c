/* Shapes, strides and broadcasting, with overflow checks. */
#include "core/core.h"

em_status em__size_mul(int64_t a, int64_t b, int64_t *out) {
    int64_t r;
    if (__builtin_mul_overflow(a, b, &r))
        return em_error(EM_EOVERFLOW, "array size overflows: %lld * %lld", (long long)a,
                        (long long)b);
    *out = r;
    return EM_OK;
}

em_status em_shape_size(int ndim, const int64_t *shape, int64_t *n) {
    if (ndim < 0 || ndim > EM_MAXDIMS)
        return em_error(EM_EVALUE, "number of dimensions must be within [0, %d], got %d",
                        EM_MAXDIMS, ndim);
    int64_t total = 1;
    for (int i = 0; i < ndim; i++) {
        if (shape[i] < 0)
            return em_error(EM_EVALUE, "negative dimensions are not allowed (dimension %d is %lld)",
                            i, (long long)shape[i]);
        EM_CHECK(em__size_mul(total, shape[i], &total));
    }
    *n = total;
    return EM_OK;
}

void em__contig_strides(int ndim, const int64_t *shape, int64_t itemsize, int64_t *strides) {
    int64_t s = itemsize;
    for (int i = 0; i < ndim; i++)
        if (shape[i] == 0) s = 0; /* NumPy 2: an empty array's strides are all 0 */
    for (int i = ndim - 1; i >= 0; i--) {
        strides[i] = s;
        s *= shape[i] > 0 ? shape[i] : 1;
    }
}

em_status em_broadcast_shapes(int nshapes, const int *ndims, const int64_t *const *shapes,
                              int *out_ndim, int64_t *out_shape) {
    int nd = 0;
    bool same = nshapes > 0; /* the common case: equal shapes, nothing to broadcast */
    for (int k = 0; k < nshapes; k++) {
        nd = ndims[k] > nd ? ndims[k] : nd;
        same = same && ndims[k] == ndims[0];
        for (int i = 0; same && k > 0 && i < ndims[0]; i++) same = shapes[k][i] == shapes[0][i];
    }
    if (same && nd <= EM_MAXDIMS) {
        *out_ndim = nd;
        for (int i = 0; i < nd; i++) out_shape[i] = shapes[0][i];
        return EM_OK;
    }
    if (nd > EM_MAXDIMS)
        return em_error(EM_EVALUE, "broadcast result has %d dimensions; at most %d allowed", nd,
                        EM_MAXDIMS);
    int64_t res[EM_MAXDIMS];
    for (int i = 0; i < nd; i++) res[i] = 1;
    for (int k = 0; k < nshapes; k++) {
        int off = nd - ndims[k];
        for (int i = 0; i < ndims[k]; i++) {
            int64_t d = shapes[k][i];
            if (d == res[off + i] || d == 1) continue;
            if (res[off + i] != 1)
                return em_error(EM_ESHAPE,
                                "operands could not be broadcast together: dimension %d has "
                                "sizes %lld and %lld",
                                off + i, (long long)res[off + i], (long long)d);
            res[off + i] = d;
        }
    }
    *out_ndim = nd;
    for (int i = 0; i < nd; i++) out_shape[i] = res[i];
    return EM_OK;
}

/* CPython's PySlice_AdjustIndices on int64: huge starts and stops clamp. */
static int64_t em__clamp_index(int64_t v, int64_t len, int64_t step) {
    if (v < 0) {
        v = v < -len ? -1 : v + len; /* compare first: v + len must not overflow */
        if (v < 0) v = step < 0 ? -1 : 0;
    } else if (v >= len) {
        v = step < 0 ? len - 1 : len;
    }
    return v;
}

em_status em_slice_normalize(int64_t len, int64_t *start, int64_t *stop, int64_t step,
                             int64_t *count) {
    if (step == 0) return em_error(EM_EVALUE, "slice step cannot be zero");
    if (step == INT64_MIN) step = -INT64_MAX; /* so that -step exists */
    int64_t b = em__clamp_index(*start, len, step), e = em__clamp_index(*stop, len, step);
    int64_t n = 0;
    if (step > 0 && e > b) n = (e - b - 1) / step + 1;
    if (step < 0 && b > e) n = (b - e - 1) / (-step) + 1;
    *start = b;
    *stop = e;
    *count = n;
    return EM_OK;
}

/* Byte strides of a read as if broadcast to out's shape: 0 where a has a
 * missing or size-1 dimension.  Shared by every backend's evaluator. */
em_status em__broadcast_strides(const em_array *a, const em_array *out, int64_t *st) {
    int off = out->ndim - a->ndim;
    if (off < 0) return em_error(EM_ESHAPE, "input has more dimensions than the output");
    for (int i = 0; i < out->ndim; i++) {
        int64_t d = i < off ? 1 : a->shape[i - off];
        if (d != out->shape[i] && d != 1)
            return em_error(EM_ESHAPE, "input dimension %d of size %lld does not broadcast to %lld",
                            i, (long long)d, (long long)out->shape[i]);
        st[i] = (i < off || d == 1) ? 0 : a->strides[i - off];
    }
    return EM_OK;
}
