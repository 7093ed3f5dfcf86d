/* The backend table: one const instance per device kind; the core reaches
 * devices only through it, so a missing driver is a status, not a build
 * failure.  A backend that cannot do something returns EM_EUNSUPPORTED.
 *
 * A backend is a runtime: memory and copies, streams and events, then --
 * where it compiles kernels -- module build, function lookup and launch.  The algorithms (elementwise eval,
 * reductions, scans, gather/scatter/nonzero, random) are written once above
 * it, as kernel templates in codegen/render_*.c and host drivers in
 * codegen/run_*.c that use only these primitives, so they run on any
 * backend that fills module_build, function and launch.  A backend with precompiled
 * algorithms instead (the CPU: loops and a block interpreter, no compiler)
 * fills ops; codegen/run.h's em_algo_* call ops where present, else the
 * drivers, so the core dispatches one way for every backend.
 */
#ifndef EM_BACKEND_H
#define EM_BACKEND_H

#include "graph/node.h"

/* One random fill (see em_random_fill): for EM_RAND_INTEGERS also low and
 * range; for em_random_dist's kinds the parameter arrays (float64,
 * contiguous, on the device; p1 == p0 where the kind has one parameter) and
 * their element strides s0, s1 (0: one value for all, else 1); post, pa,
 * pb: em_random_fill_post's transform.  The array the backend gets is
 * C-contiguous and writeable. */
typedef struct em_random_req {
    em_random_kind kind;
    uint64_t key, counter;
    uint64_t low, range;
    const em_array *p0, *p1;
    uint64_t s0, s1;
    em_random_post post; /* the CPU gets EM_RPOST_NONE or GEOMETRIC */
    double pa, pb;
    /* INTEGERS only, devices that compile only (em_random_choice): store
     * src[j] (1-d, range its length) in place of each index j */
    const em_array *src;
} em_random_req;

/* A loaded kernel and the name messages give it (kept for the process). */
typedef struct em_kfn {
    void *fn; /* the backend's handle (a CUfunction, a cl_kernel) */
    char name[48];
} em_kfn;

/* launch's stream for "the calling thread's current stream": the runtime
 * resolves it (CUDA falls back to the default stream when the current one
 * belongs to a context reset since), which a handle read before cannot. */
#define EM_STREAM_CURRENT ((void *)~(uintptr_t)0)

/* What module_build compiles besides the source.  raw: a user's module
 * (em.RawModule, expression kernels, @em.jit), which gets none of the
 * options only Ember's own kernels take (CUDA's -minimal, OpenCL's
 * FP_CONTRACT OFF head).  opts: the user's compiler options, after
 * Ember's (one that sets what Ember's sets replaces it).  names: C++ name
 * expressions (CUDA; a backend without them refuses any). */
typedef struct em_build_opts {
    bool raw;
    int nopt;
    const char *const *opts;
    int nnames;
    const char *const *names;
} em_build_opts;

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
    /* out = a[mask], 1-d (a C-contiguous, mask of a's shape, any dtype and
     * layout: its truth); allocates out. */
    em_status (*mask_select)(const em_array *a, const em_array *mask, em_array *out);
    em_status (*random)(em_array *a, const em_random_req *req);
    /* em_run_sort's contract (codegen/run_sort.h) for a C-contiguous a:
     * rows of len, stable, descending and arg as there; EM_EUNSUPPORTED
     * for a dtype it does not sort. */
    em_status (*sort)(const em_array *a, int64_t len, bool descending, bool arg, em_array *out);
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
     * and from_host wait for the calling thread's current stream, copy and
     * return when the bytes are in place (the core calls them through
     * em_algo_to_host/from_host, which stage large pageable copies where
     * the backend has host_alloc); copy is queued. */
    em_status (*to_host)(int id, void *dst, const void *src, size_t nbytes);
    em_status (*from_host)(int id, void *dst, const void *src, size_t nbytes);
    em_status (*copy)(int id, void *dst, const void *src, size_t nbytes);
    /* Optional (NULL: a kernel fills): set n elements of width 1, 2 or 4
     * bytes at dst to value, queued like a kernel. */
    em_status (*fill)(int id, void *dst, size_t n, int width, uint32_t value);
    em_status (*synchronize)(int id);

    /* ---- modules: build, look up, launch (NULL where the backend compiles nothing) ----
     * The primitives every kernel goes through (Ember's templates, expression
     * kernels, @em.jit, raw modules): codegen/run_module.c keeps the loaded
     * modules by key, renders, packs arguments and keeps the raw-module API's
     * bookkeeping, once for every backend. */
    /* The language its kernels are rendered in, by name ("cuda": codegen's
     * em_dialect_find), so the table names no type of a layer above. */
    const char *dialect;
    /* Device id's properties, cached for the process (no copy per launch). */
    em_status (*props_ref)(int id, const em_device_props **out);
    /* Compile src for device id through the disk cache and load it: *mod is
     * the backend's module handle (CUmodule, cl_program), kept for the
     * process.  One step, not two, because the disk cache holds the
     * backend's own binary and an OpenCL program is built from it again.
     * name names it in messages; o (never NULL) says whose source it is and
     * what the user added; with name expressions, *lowered gets their
     * lowered names, each NUL-terminated, in order (malloc'ed). */
    em_status (*module_build)(int id, const char *src, const char *name, const em_build_opts *o,
                              void **mod, char **lowered);
    /* The kernel called fname in mod (EM_EVALUE when there is none). */
    em_status (*function)(int id, void *mod, const char *fname, void **fn);
    /* Queue fn on stream (NULL: the device's default stream; EM_STREAM_CURRENT:
     * the calling thread's current one, as the runtime resolves it): grid x block
     * threads in three dimensions, shmem bytes of dynamic shared memory.
     * Grid and block come checked against the device's limits (props) by the
     * caller (codegen/run_module.c, every launch's way down); the runtime
     * checks what only it knows, such as its shared memory (EM_ELAUNCH
     * saying which).
     * args: where the dialect has args_struct, the driver's array of
     * argument addresses (CUDA's kernelParams); else an em_kargs.  name
     * names the kernel in messages. */
    em_status (*launch)(int id, void *fn, const char *name, const unsigned grid[3],
                        const unsigned block[3], unsigned shmem, void *stream, void *args);

    /* ---- precompiled algorithms (NULL: codegen/run_*.c drive the primitives) ---- */
    const em_backend_ops *ops;

    /* ---- streams and events (every backend fills all of them) ----
     * Handles are the backend's own, opaque to everyone above it; id is the
     * device the handle belongs to (each call makes it current as it needs).
     * A NULL stream is the device's default stream (CUDA: the legacy default
     * stream, which orders against every blocking stream).  Work queued on a
     * stream runs in the order it was queued.  A backend that queues nothing
     * (the CPU: every call has finished when it returns) makes streams that
     * are always complete and events that hold the host's clock at record.
     * The public em_stream_* / em_event_* (ember.h, src/core/stream.c) call
     * these after checking the device. */
    /* A new stream.  nonblocking: it does not order against the default
     * stream (CUDA's CU_STREAM_NON_BLOCKING; where every stream is
     * independent of the default one, ignored). */
    em_status (*stream_create)(int id, bool nonblocking, void **out);
    /* Destroy s; work already queued on it still runs.  If s is the calling
     * thread's current stream, the default stream becomes current. */
    em_status (*stream_destroy)(int id, void *s);
    /* Return when all work queued on s (NULL: the default stream) so far
     * has finished. */
    em_status (*stream_synchronize)(int id, void *s);
    /* Work queued on s after this call starts only after the work that e
     * recorded has finished; the host does not wait.  e may be destroyed
     * right after (the wait keeps what it needs). */
    em_status (*stream_wait_event)(int id, void *s, void *e);
    /* The calling thread's current stream: where launches, device copies,
     * fills and library calls go, and what host copies wait for first.  NULL:
     * the default stream.  No allocation, no lock, no driver call (it is read
     * per launch).  CUDA keeps one per thread for all its devices (a stream
     * belongs to its device: setting one of cuda:1 while using cuda:0 is the
     * caller's error, as in CuPy); a backend may keep one per device. */
    void (*stream_set)(int id, void *s);
    void *(*stream_get)(int id);
    /* A new event.  timing: it can be used with event_elapsed (CUDA creates
     * it without CU_EVENT_DISABLE_TIMING); an event only for ordering is
     * cheaper where the backend knows the difference. */
    em_status (*event_create)(int id, bool timing, void **out);
    em_status (*event_destroy)(int id, void *e);
    /* Mark the point in s (NULL: the default stream) that e stands for:
     * the work queued on s so far.  Recording again moves the mark. */
    em_status (*event_record)(int id, void *e, void *s);
    /* Return when the work e recorded has finished (at once if e was never
     * recorded). */
    em_status (*event_synchronize)(int id, void *e);
    /* *done: whether the work e recorded has finished; never waits. */
    em_status (*event_query)(int id, void *e, bool *done);
    /* Milliseconds between two recorded and completed timing events
     * (EM_EDEVICE, saying so, when either is not). */
    em_status (*event_elapsed)(int id, void *start, void *end, float *ms);

    /* ---- page-locked host memory and queued host copies (NULL where host
     * memory is the device's own: the CPU) ----
     * codegen/run_copy.c stages large copies of pageable memory through
     * buffers from host_alloc with these (em_algo_to_host/from_host). */
    /* n bytes of host memory the device reaches by DMA (CUDA: cuMemHostAlloc).
     * all_devices: for every device of the backend (CUDA's PORTABLE flag),
     * else at least for id. */
    em_status (*host_alloc)(int id, size_t n, bool all_devices, void **out);
    em_status (*host_free)(int id, void *p);
    /* Whether the runtime already knows host memory [p, p + n): memory from
     * host_alloc, or pinned, registered or managed by anyone (to_host and
     * from_host copy it by DMA already).  Never fails: false when unsure. */
    bool (*host_known)(int id, const void *p, size_t n);
    /* Queue a copy of n bytes on stream s (NULL: the default stream)
     * between device memory and host memory from host_alloc; it runs in
     * s's order, and an event recorded on s after it says when it is done. */
    em_status (*to_host_async)(int id, void *dst, const void *src, size_t n, void *s);
    em_status (*from_host_async)(int id, void *dst, const void *src, size_t n, void *s);
} em_backend;

const em_backend *em__backend(em_device_kind kind);
/* The backend of dev after checking that dev exists (EM_EDEVICE saying
 * what does; src/core/device.c). */
em_status em__backend_for(em_device dev, const em_backend **out);

extern const em_backend em_cpu_backend;
extern const em_backend em_cuda_backend;
extern const em_backend em_opencl_backend;

#endif
