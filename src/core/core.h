/* Internal declarations shared by the core, graph and backends.
 *
 * em_buffer: one allocation on one device, refcounted atomically so views
 * may be created and dropped from any thread.  Memory comes either from the
 * device's pool (pooled, returned to the backend on the last reference) or
 * from an outside owner (release(ctx), if given, is called instead).
 */
#ifndef EM_CORE_H
#define EM_CORE_H

#include "ember/ember.h"
#include <stdatomic.h>

struct em_buffer {
    atomic_long refcount;
    em_device device;
    void *ptr;
    size_t nbytes;
    bool pooled;                /* from the backend's allocator: freed there */
    uint32_t gen;               /* the device's generation when allocated (em_array_live) */
    bool fusable;               /* wrapped, but pending expressions may read it (see
                                   em_array_allow_fusion) */
    bool autohome;              /* device="auto": Ember chooses, and may change, where it
                                   lives (em_array_set_auto; views share the flag) */
    void (*release)(void *ctx); /* else this, if set, tells the outside owner */
    void *ctx;
};

/* A new buffer of nbytes on dev, refcount 1. */
em_status em__buffer_new(em_device dev, size_t nbytes, em_buffer **out);
em_status em__buffer_wrap(em_device dev, void *ptr, size_t nbytes, void (*release)(void *),
                          void *ctx, em_buffer **out);
void em__buffer_incref(em_buffer *b);
/* A device's generation: bumped when its memory is lost (a CUDA context reset after a
 * faulting kernel, src/backend/cuda/reset.c).  Buffers remember the generation they were
 * made in; one from an older generation is never freed to the backend nor used. */
uint32_t em_device_generation(em_device dev);
void em_device_generation_bump(em_device dev);
void em__buffer_decref(em_buffer *b);

/* C-contiguous strides for shape and itemsize. */
void em__contig_strides(int ndim, const int64_t *shape, int64_t itemsize, int64_t *strides);
/* Strides of a broadcast to out's shape (0 where broadcast); EM_ESHAPE if it doesn't. */
em_status em__broadcast_strides(const em_array *a, const em_array *out, int64_t *st);
/* a + b and a * b on sizes, failing with EM_EOVERFLOW. */
em_status em__size_mul(int64_t a, int64_t b, int64_t *out);
struct em_node;
/* em_reduce where a is a placeholder whose values are the elementwise tree
 * root's (graph/expr.c, a fused reduction): the backend computes them
 * instead of loading a (the argument reaches it; nothing thread-local). */
em_status em__reduce_fused(em_reduce_op op, const em_array *a, int naxes, const int *axes,
                           bool keepdims, em_dtype dt, double ddof, const struct em_node *root,
                           em_array *out);

/* Dtype helpers for C code that switches on the table.  The sizes are a
 * table in every file, not a call into dtype.c: small ops ask often. */
static const uint8_t em__dtype_sizes[EM_NDTYPES] = {
#define EM_DTYPE(E, name, ctype, kind, size, buf) size,
#include "ember/dtypes.def"
#undef EM_DTYPE
};
#define EM_DTYPE_SIZE(dt) ((int)em__dtype_sizes[dt])

/* A 0-d host array of at most 8 bytes: device kernels take it by value
 * (codegen/render.h, class 'P'), so it may join arrays of any device.
 * Defined in core/ufunc.c; the fusion planner (graph/expr.c) asks too. */
bool em__host_scalar(const em_array *a);

#define EM_CHECK(expr)                    \
    do {                                  \
        em_status em__s = (expr);         \
        if (em__s != EM_OK) return em__s; \
    } while (0)

#define EM_UNUSED(x) ((void)(x))

#endif
