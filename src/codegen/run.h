/* The algorithms above the backends: host drivers that render a kernel
 * template (codegen/render_*.c), get it compiled and launch it through a
 * backend's primitives (backend.h), so each is written once for every
 * backend that compiles.  em_algo_* is how the core calls an operation: the
 * backend's precompiled one where it has ops (the CPU), else the driver.
 *
 * The drivers' contracts are backend.h's em_backend_ops entries, with the
 * backend first.  Launch shapes are 1-D: EM_RUN_BLOCK threads per block
 * unless a driver says otherwise.
 */
#ifndef EM_RUN_H
#define EM_RUN_H

#include "backend/backend.h"
#include "codegen/dialect.h"

#define EM_RUN_BLOCK 256

em_status em_run_eval(const em_backend *be, const em_node *root, em_array *out, uint64_t *key);
EM_API em_status em_run_reduce(const em_backend *be, em_reduce_op op, const em_array *a, int naxes,
                               const int *axes, em_dtype dt, double ddof, const em_node *fused,
                               em_array *out);
EM_API em_status em_run_scan(const em_backend *be, em_reduce_op op, const em_array *a, int axis,
                             em_array *out);
EM_API em_status em_run_take(const em_backend *be, const em_array *a, int m, int nidx,
                             const em_array *idx, em_array *out);
EM_API em_status em_run_put(const em_backend *be, em_array *a, int m, int nidx, const em_array *idx,
                            const em_array *values);
EM_API em_status em_run_nonzero(const em_backend *be, const em_array *a, em_array *out);
/* a[mask]: mask of a's shape (any dtype: its truth), a C-contiguous, ndim >= 1. */
EM_API em_status em_run_mask_select(const em_backend *be, const em_array *a, const em_array *mask,
                                    em_array *out);
EM_API em_status em_run_random(const em_backend *be, em_array *a, const em_random_req *req);

/* The flat-position gather over all of a (any layout): out = a.ravel()[idx]
 * (run_index.c; em_run_take's path for nidx == 1, m == ndim). */
EM_API em_status em_run_take_flat(const em_backend *be, const em_array *a, const em_array *idx,
                                  em_array *out);

/* be's dialect table, or an error status (a backend that names none). */
em_status em_run_dialect(const em_backend *be, const em_dialect **out);

/* Launch k on be with a template's packed argument (blob, size bytes, the
 * layout its render_*.h gives, pointers in 8-byte slots): as it is where
 * be's dialect takes the struct, else (OpenCL) as an em_kargs whose
 * buffers are the slots listed in order (-1 or a NULL pointer: a slot the
 * kernel never reads, passed as another of its buffers), the blob
 * passed whole as the kernel's numbers (codegen/tmpl.h: em_argv keeps a
 * slot per pointer).  The one place a driver's argument becomes the
 * backend's. */
em_status em_run_launch(const em_backend *be, int id, const em_kfn *k, unsigned grid,
                        unsigned block, unsigned shmem, void *blob, size_t size, const int *slots,
                        int nslots);
/* Slots first, first + 1, ..., first + n - 1 into slots; returns n. */
int em_run_slots(int *slots, int first, int n);

/* The loaded kernel for a NUL-terminated key: be's cache, else rendered,
 * compiled and loaded (the drivers that launch rarely enough to hash a key
 * per call). */
em_status em_run_kernel(const em_backend *be, int id, const char *key, const char *name,
                        const char *fname, em_render_cb render, const void *ctx,
                        const em_kfn **out);

/* Host copies of n contiguous bytes (run_copy.c): large ones from or to
 * pageable memory staged through pinned buffers where be has host_alloc,
 * the rest be's to_host / from_host; the same semantics either way. */
em_status em_algo_to_host(const em_backend *be, int id, void *dst, const void *src, size_t n);
em_status em_algo_from_host(const em_backend *be, int id, void *dst, const void *src, size_t n);

static inline em_status em_algo_eval(const em_backend *be, const em_node *root, em_array *out,
                                     uint64_t *key) {
    return be->ops ? be->ops->eval(root, out, key) : em_run_eval(be, root, out, key);
}
static inline em_status em_algo_reduce(const em_backend *be, em_reduce_op op, const em_array *a,
                                       int naxes, const int *axes, em_dtype dt, double ddof,
                                       const em_node *fused, em_array *out) {
    return be->ops ? be->ops->reduce(op, a, naxes, axes, dt, ddof, fused, out)
                   : em_run_reduce(be, op, a, naxes, axes, dt, ddof, fused, out);
}
static inline em_status em_algo_scan(const em_backend *be, em_reduce_op op, const em_array *a,
                                     int axis, em_array *out) {
    return be->ops ? be->ops->scan(op, a, axis, out) : em_run_scan(be, op, a, axis, out);
}
static inline em_status em_algo_take(const em_backend *be, const em_array *a, int m, int nidx,
                                     const em_array *idx, em_array *out) {
    return be->ops ? be->ops->take(a, m, nidx, idx, out) : em_run_take(be, a, m, nidx, idx, out);
}
static inline em_status em_algo_put(const em_backend *be, em_array *a, int m, int nidx,
                                    const em_array *idx, const em_array *values) {
    return be->ops ? be->ops->put(a, m, nidx, idx, values)
                   : em_run_put(be, a, m, nidx, idx, values);
}
static inline em_status em_algo_nonzero(const em_backend *be, const em_array *a, em_array *out) {
    return be->ops ? be->ops->nonzero(a, out) : em_run_nonzero(be, a, out);
}
static inline em_status em_algo_random(const em_backend *be, em_array *a,
                                       const em_random_req *req) {
    return be->ops ? be->ops->random(a, req) : em_run_random(be, a, req);
}

#endif
