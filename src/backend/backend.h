/* The backend vtable.  One const instance per device kind; the core reaches
 * devices only through it, so a missing driver is a status, not a build
 * failure.  A backend that cannot do something returns EM_EUNSUPPORTED.
 */
#ifndef EM_BACKEND_H
#define EM_BACKEND_H

#include "graph/node.h"

/* One random fill (see em_random_fill): for EM_RAND_INTEGERS also low and
 * range.  The array the backend gets is C-contiguous and writeable. */
typedef struct em_random_req {
    em_random_kind kind;
    uint64_t key, counter;
    uint64_t low, range;
} em_random_req;

typedef struct em_backend {
    const char *name;
    em_device_kind kind;
    /* Devices present (0 if the driver is missing: never an error). */
    int (*device_count)(void);
    em_status (*props)(int id, em_device_props *props);
    em_status (*mem_info)(int id, size_t *free_bytes, size_t *total_bytes);
    em_status (*alloc)(int id, size_t nbytes, void **ptr);
    void (*free)(int id, void *ptr, size_t nbytes);
    /* Contiguous byte copies; host pointers are plain CPU memory. */
    em_status (*to_host)(int id, void *dst, const void *src, size_t nbytes);
    em_status (*from_host)(int id, void *dst, const void *src, size_t nbytes);
    em_status (*copy)(int id, void *dst, const void *src, size_t nbytes);
    /* Optional (NULL: a kernel fills): set n elements of width 1, 2 or 4
     * bytes at dst to value, queued like a kernel. */
    em_status (*fill)(int id, void *dst, size_t n, int width, uint32_t value);
    /* Evaluate an elementwise tree into out (same device).  *key (when
     * key is not NULL) gets a hash of the structural key the kernel was
     * compiled by, or 0 where the backend compiles nothing (the fusion
     * statistics count distinct keys: graph/expr.c). */
    em_status (*eval)(const em_node *root, em_array *out, uint64_t *key);
    /* Reductions and scans; out is allocated by the caller. */
    em_status (*reduce)(em_reduce_op op, const em_array *a, int naxes, const int *axes,
                        em_dtype dt, double ddof, em_array *out);
    em_status (*scan)(em_reduce_op op, const em_array *a, int axis, em_array *out);
    /* Gather / scatter (em_take, em_put).  idx: nidx C-contiguous int64
     * arrays of one shape B.  The indices address a's first m dimensions:
     * one per dimension (nidx == m) or, with nidx == 1 != m, as
     * flat C-order positions in them.  Bounds are checked here.  take: out is
     * allocated, C-contiguous B + a.shape[m:]; put: values likewise, a's dtype. */
    em_status (*take)(const em_array *a, int m, int nidx, const em_array *idx, em_array *out);
    em_status (*put)(em_array *a, int m, int nidx, const em_array *idx, const em_array *values);
    /* (nnz, ndim) int64 coordinates of a's nonzero elements (a of any
     * layout, ndim >= 1); allocates out. */
    em_status (*nonzero)(const em_array *a, em_array *out);
    em_status (*random)(em_array *a, const em_random_req *req);
    em_status (*synchronize)(int id);
} em_backend;

const em_backend *em__backend(em_device_kind kind);

extern const em_backend em_cpu_backend;
extern const em_backend em_cuda_backend;

#endif
