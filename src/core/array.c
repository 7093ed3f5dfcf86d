/* Buffers and array views. */
#include "ember/opencl.h"
#include "backend/backend.h"
#include "core/core.h"
#include "core/spare.h"

#include <stdlib.h>
#include <string.h>

/* ---- buffers ------------------------------------------------------------ */

static em_spare em__buffer_spare; /* headers: a small op makes two and drops two */

em_status em__buffer_new(em_device dev, size_t nbytes, em_buffer **out) {
    const em_backend *be = (unsigned)dev.kind < EM_NKINDS ? em__backend(dev.kind) : NULL;
    if (!be) return em_error(EM_EDEVICE, "no backend for device kind %d", (int)dev.kind);
    if (dev.id < 0 || dev.id >= be->device_count())
        return em_error(EM_EDEVICE, "no device %s:%d", em_device_kind_name(dev.kind), dev.id);
    em_buffer *b = em_spare_alloc(&em__buffer_spare, sizeof *b);
    if (!b) return em_error(EM_ENOMEM, "out of host memory for a buffer header");
    void *p = NULL;
    em_status s = be->alloc(dev.id, nbytes, &p);
    if (s != EM_OK) {
        em_spare_free(&em__buffer_spare, b);
        return s;
    }
    atomic_init(&b->refcount, 1);
    b->device = dev;
    b->gen = em_device_generation(dev);
    b->ptr = p;
    b->nbytes = nbytes;
    b->pooled = true;
    b->fusable = true;
    b->autohome = false;
    b->release = NULL;
    b->ctx = NULL;
    *out = b;
    return EM_OK;
}

em_status em__buffer_wrap(em_device dev, void *ptr, size_t nbytes, void (*release)(void *),
                          void *ctx, em_buffer **out) {
    em_buffer *b = em_spare_alloc(&em__buffer_spare, sizeof *b);
    if (!b) return em_error(EM_ENOMEM, "out of host memory for a buffer header");
    atomic_init(&b->refcount, 1);
    b->device = dev;
    b->gen = em_device_generation(dev);
    b->ptr = ptr;
    b->nbytes = nbytes;
    b->pooled = false;
    b->fusable = false;
    b->autohome = false;
    b->release = release;
    b->ctx = ctx;
    *out = b;
    return EM_OK;
}

void em__buffer_incref(em_buffer *b) {
    atomic_fetch_add_explicit(&b->refcount, 1, memory_order_relaxed);
}

void em__buffer_decref(em_buffer *b) {
    if (atomic_fetch_sub_explicit(&b->refcount, 1, memory_order_acq_rel) != 1) return;
    /* Memory of an older generation went with the device's reset: nothing to free (its
     * address may already belong to a new allocation). */
    if (b->pooled && b->gen == em_device_generation(b->device))
        em__backend(b->device.kind)->free(b->device.id, b->ptr, b->nbytes);
    else if (b->release)
        b->release(b->ctx);
    em_spare_free(&em__buffer_spare, b);
}

void *em_buffer_ptr(const em_buffer *b) { return b->ptr; }
size_t em_buffer_size(const em_buffer *b) { return b->nbytes; }

/* ---- arrays ------------------------------------------------------------- */

static em_status em__check_dtype(em_dtype dt) {
    if ((unsigned)dt >= EM_NDTYPES) return em_error(EM_ETYPE, "unknown dtype code %d", (int)dt);
    return EM_OK;
}

em_status em_array_empty(em_array *out, em_dtype dt, int ndim, const int64_t *shape,
                         em_device dev) {
    EM_CHECK(em__check_dtype(dt));
    /* An OpenCL device without double precision holds no float64 array:
     * refused here, where every device array is made, with the device named
     * (a kernel would otherwise fail to build with a compiler's message). */
    if (dev.kind == EM_OPENCL) EM_CHECK(em_opencl_check_dtype(dev.id, dt));
    int64_t n, nbytes;
    EM_CHECK(em_shape_size(ndim, shape, &n));
    EM_CHECK(em__size_mul(n, EM_DTYPE_SIZE(dt), &nbytes));
    em_buffer *b;
    EM_CHECK(em__buffer_new(dev, (size_t)nbytes, &b));
    out->buf = b;
    out->data = b->ptr;
    out->dtype = dt;
    out->ndim = ndim;
    out->flags = EM_WRITEABLE;
    if (ndim > 0) /* shape may be NULL for 0-d: memcpy(dst, NULL, 0) is still UB */
        memcpy(out->shape, shape, sizeof(int64_t) * (size_t)ndim);
    em__contig_strides(ndim, shape, EM_DTYPE_SIZE(dt), out->strides);
    return EM_OK;
}

em_status em_array_wrap(em_array *out, void *data, em_dtype dt, int ndim, const int64_t *shape,
                        const int64_t *strides, em_device dev, void (*release)(void *ctx),
                        void *ctx) {
    EM_CHECK(em__check_dtype(dt));
    int64_t n;
    EM_CHECK(em_shape_size(ndim, shape, &n));
    em_array tmp = {0};
    tmp.data = data;
    tmp.dtype = dt;
    tmp.ndim = ndim;
    tmp.flags = EM_WRITEABLE;
    if (ndim > 0) /* shape may be NULL for 0-d */
        memcpy(tmp.shape, shape, sizeof(int64_t) * (size_t)ndim);
    if (strides && ndim > 0)
        memcpy(tmp.strides, strides, sizeof(int64_t) * (size_t)ndim);
    else
        em__contig_strides(ndim, shape, EM_DTYPE_SIZE(dt), tmp.strides);
    char *lo, *hi;
    em_array_extent(&tmp, &lo, &hi);
    EM_CHECK(em__buffer_wrap(dev, lo, (size_t)(hi - lo), release, ctx, &tmp.buf));
    *out = tmp;
    return EM_OK;
}

void em_array_allow_fusion(em_array *a) {
    if (a->buf) a->buf->fusable = true;
}

void em_array_set_auto(em_array *a, bool on) {
    if (a->buf) a->buf->autohome = on;
}

bool em_array_is_auto(const em_array *a) { return a->buf && a->buf->autohome; }

/* Referenced by this view alone: no other view, pending expression or leaf
 * would see the move.  A wrap counts too: its owner's memory is then let go
 * (device="auto" promises no aliasing once Ember moves an array). */
bool em_array_movable(const em_array *a) {
    return a->buf && atomic_load_explicit(&a->buf->refcount, memory_order_acquire) == 1;
}

void em_array_release(em_array *a) {
    if (a->buf) em__buffer_decref(a->buf);
    a->buf = NULL;
    a->data = NULL;
}

void em_array_view(em_array *dst, const em_array *src) {
    if (dst != src) em_array_assign(dst, src);
    if (dst->buf) em__buffer_incref(dst->buf);
}

int64_t em_array_size(const em_array *a) {
    int64_t n = 1;
    for (int i = 0; i < a->ndim; i++) n *= a->shape[i];
    return n;
}

int64_t em_array_nbytes(const em_array *a) { return em_array_size(a) * EM_DTYPE_SIZE(a->dtype); }

em_device em_array_device(const em_array *a) {
    em_device cpu = {EM_CPU, 0};
    return a->buf ? a->buf->device : cpu;
}

/* NumPy's rule: an empty array is contiguous whatever its strides (a
 * zero-length dimension anywhere, not only before the first mismatch),
 * and a length-1 dimension's stride is never looked at. */
static bool em__has_zero_dim(const em_array *a) {
    for (int i = 0; i < a->ndim; i++)
        if (a->shape[i] == 0) return true;
    return false;
}

bool em_array_is_c_contiguous(const em_array *a) {
    int64_t s = EM_DTYPE_SIZE(a->dtype);
    if (em__has_zero_dim(a)) return true;
    for (int i = a->ndim - 1; i >= 0; i--) {
        if (a->shape[i] != 1 && a->strides[i] != s) return false;
        s *= a->shape[i];
    }
    return true;
}

bool em_array_is_f_contiguous(const em_array *a) {
    int64_t s = EM_DTYPE_SIZE(a->dtype);
    if (em__has_zero_dim(a)) return true;
    for (int i = 0; i < a->ndim; i++) {
        if (a->shape[i] != 1 && a->strides[i] != s) return false;
        s *= a->shape[i];
    }
    return true;
}

void em_array_extent(const em_array *a, char **lo, char **hi) {
    char *l = a->data, *h = a->data;
    if (em_array_size(a) == 0) {
        *lo = *hi = a->data;
        return;
    }
    for (int i = 0; i < a->ndim; i++) {
        int64_t span = (a->shape[i] - 1) * a->strides[i];
        if (span < 0)
            l += span;
        else
            h += span;
    }
    *lo = l;
    *hi = h + EM_DTYPE_SIZE(a->dtype);
}

bool em_arrays_overlap(const em_array *a, const em_array *b) {
    if (!a->buf || !b->buf) return false;
    if (a->buf != b->buf && a->buf->ptr != b->buf->ptr) {
        /* Different buffers can still alias (two wraps of one memory). */
        if (a->buf->device.kind != b->buf->device.kind) return false;
    }
    char *alo, *ahi, *blo, *bhi;
    em_array_extent(a, &alo, &ahi);
    em_array_extent(b, &blo, &bhi);
    return alo < bhi && blo < ahi;
}
