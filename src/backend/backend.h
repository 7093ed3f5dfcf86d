/* The backend table: one const instance per device kind; the core reaches
 * devices only through it, so a missing driver is a status, not a build
 * failure.  A backend that cannot do something returns EM_EUNSUPPORTED.
 *
 * A backend is a runtime: memory and copies, then -- where it compiles
 * kernels -- compile and launch.  The algorithms (elementwise eval,
 * reductions, scans, gather/scatter/nonzero, random) are written once above
 * it, as kernel templates in codegen/render_*.c and host drivers in
 * codegen/run_*.c that use only these primitives, so they run on any
 * backend that fills compile and launch.  A backend with precompiled
 * algorithms instead (the CPU: loops and a block interpreter, no compiler)
 * fills ops; codegen/run.h's em_algo_* call ops where present, else the
 * drivers, so the core dispatches one way for every backend.
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

/* A loaded kernel and the name messages give it (kept for the process). */
typedef struct em_kfn {
    void *fn; /* the backend's handle (a CUfunction) */
    char name[48];
} em_kfn;

/* Writes a kernel's source into src_sbuf (an em_sbuf, codegen/render.h). */
typedef em_status (*em_render_cb)(const void *ctx, void *src_sbuf);

/* The last line of every device prelude.  A compiling runtime numbers the
 * source of a compile error from the line after it, so the user reads their
 * kernel and not the prelude, without the runtime knowing the prelude. */
#define EM_PRELUDE_END "// ---- end of Ember's prelude ----\n"

/* Kernel arguments for a dialect without args_struct (OpenCL: a kernel
 * argument may not hold a device pointer).  Such a kernel's parameters are
 *     (__global char *d0, ulong o0, ..., __global char *d<nbuf-1>,
 *      ulong o<nbuf-1>, const em_args p [, __local char *em_dyn])
 * -- each buffer with the byte offset of the view into it (the kernel adds
 * it: d0 += o0), then the by-value struct of numbers, then, when the launch
 * asks for shared bytes, the dynamic local memory.  The driver lists the
 * device pointers it got from alloc (plus any byte offset, as with CUDA);
 * the runtime alone knows how a pointer maps to a buffer and an offset.
 * launch's arg then points to one of these instead of the packed struct. */
#define EM_KARGS_MAXBUF 40
typedef struct em_kargs {
    int nbuf;
    const void *buf[EM_KARGS_MAXBUF];
    const void *blob; /* the em_args struct */
    size_t blob_size;
} em_kargs;

/* Whole operations, for a backend that has them precompiled (see above). */
typedef struct em_backend_ops {
    /* Evaluate an elementwise tree into out (same device).  *key (when
     * key is not NULL) gets a hash of the structural key the kernel was
     * compiled by, or 0 where the backend compiles nothing (the fusion
     * statistics count distinct keys: graph/expr.c). */
    em_status (*eval)(const em_node *root, em_array *out, uint64_t *key);
    /* Reductions and scans; out is allocated by the caller.  fused (or
     * NULL): a is a placeholder whose values are this elementwise tree's,
     * computed in the reduction's pass instead of loaded (a backend that
     * cannot fuse is never given one: graph/fuse_reduce.c decides). */
    em_status (*reduce)(em_reduce_op op, const em_array *a, int naxes, const int *axes, em_dtype dt,
                        double ddof, const em_node *fused, em_array *out);
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
} em_backend_ops;

typedef struct em_backend {
    const char *name;
    em_device_kind kind;
    /* ---- devices and memory ---- */
    /* Devices present (0 if the driver is missing: never an error). */
    int (*device_count)(void);
    em_status (*props)(int id, em_device_props *props);
    em_status (*mem_info)(int id, size_t *free_bytes, size_t *total_bytes);
    em_status (*alloc)(int id, size_t nbytes, void **ptr);
    void (*free)(int id, void *ptr, size_t nbytes);
    /* Contiguous byte copies; host pointers are plain CPU memory.  to_host
     * and from_host return when the bytes are in place; copy is queued. */
    em_status (*to_host)(int id, void *dst, const void *src, size_t nbytes);
    em_status (*from_host)(int id, void *dst, const void *src, size_t nbytes);
    em_status (*copy)(int id, void *dst, const void *src, size_t nbytes);
    /* Optional (NULL: a kernel fills): set n elements of width 1, 2 or 4
     * bytes at dst to value, queued like a kernel. */
    em_status (*fill)(int id, void *dst, size_t n, int width, uint32_t value);
    em_status (*synchronize)(int id);

    /* ---- compile and launch (NULL where the backend compiles nothing) ---- */
    /* The language its kernels are rendered in, by name ("cuda": codegen's
     * em_dialect_find), so the table names no type of a layer above. */
    const char *dialect;
    /* Device id's properties, cached for the process (no copy per launch). */
    em_status (*props_ref)(int id, const em_device_props **out);
    /* The loaded kernel for a structural key of klen bytes whose
     * em_key_hash is hash, or NULL: no lock, no allocation (a small op's
     * launch path).  The key names everything the source depends on. */
    const em_kfn *(*kernel_find)(int id, const char *key, size_t klen, uint64_t hash);
    /* The same, else rendered by render(ctx, src), compiled (through the
     * disk cache) and loaded; fname is the kernel's name in the source. */
    em_status (*kernel_get)(int id, const char *key, size_t klen, uint64_t hash, const char *name,
                            const char *fname, em_render_cb render, const void *ctx,
                            const em_kfn **out);
    /* Queue k on the calling thread's current stream: grid x block threads
     * (one dimension), shmem bytes of dynamic shared memory, one packed
     * argument struct at arg (an em_kargs where the dialect has no
     * args_struct); checked against the device limits first. */
    em_status (*launch)(int id, const em_kfn *k, unsigned grid, unsigned block, unsigned shmem,
                        void *arg);

    /* ---- precompiled algorithms (NULL: codegen/run_*.c drive the primitives) ---- */
    const em_backend_ops *ops;
} em_backend;

const em_backend *em__backend(em_device_kind kind);

extern const em_backend em_cpu_backend;
extern const em_backend em_cuda_backend;
extern const em_backend em_opencl_backend;

#endif
