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

/* out = a @ b with the tiled kernel (run_gemm.c): a (..., m, k), b
 * (..., k, n) of one dtype and one batch shape (any strides, 0 included),
 * out C-contiguous (..., m, n) of that dtype; k == 0 is the caller's (a
 * fill). */
EM_API em_status em_run_matmul(const em_backend *be, const em_array *a, const em_array *b,
                               em_array *out);

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

/* Loaded code (run_module.c): the cache of modules by (backend, device,
 * key) over the table's module_build / function / launch.  em_run_find:
 * the loaded kernel for a structural key of klen bytes whose em_key_hash
 * is hash, or NULL: no lock, no allocation (a small op's launch path); the
 * key names everything the source depends on.  em_run_get: the same, else
 * rendered by render(ctx, src), built and loaded; fname is the kernel's
 * name in the source, name the one messages give it. */
const em_kfn *em_run_find(const em_backend *be, int id, const char *key, size_t klen,
                          uint64_t hash);
em_status em_run_get(const em_backend *be, int id, const char *key, size_t klen, uint64_t hash,
                     const char *name, const char *fname, em_render_cb render, const void *ctx,
                     const em_kfn **out);
/* Launch k on the calling thread's current stream, grid x block threads in
 * one dimension: arg is the packed struct (kargs false: a dialect with
 * args_struct) or an em_kargs (kargs true). */
em_status em_run_launch1(const em_backend *be, int id, const em_kfn *k, unsigned grid,
                         unsigned block, unsigned shmem, void *arg, bool kargs);
/* A module built from src on dev with o's options (the raw-module API:
 * em_cuda_module_load_ex is this on EM_CUDA), kept for the process by
 * (device, options, name expressions, source); *lowered (with name
 * expressions) points at their lowered names, owned by the cache. */
EM_API em_status em_run_module(em_device dev, const char *src, const em_build_opts *o,
                               const char *name, void **module, const char **lowered);

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
