/* The OpenCL backend's entry points beyond the backend table, for the
 * Python extension (python/_ember/opencl.c) and the core, declared once
 * here.  id is the OpenCL device number (opencl:N: every GPU, CPU and
 * accelerator device of every platform, in the ICD loader's order). */
#ifndef EMBER_OPENCL_H
#define EMBER_OPENCL_H

#include "ember/ember.h"

#include <stdint.h>

/* What em_device_props has no field for. */
typedef struct em_opencl_info {
    char name[256];
    char vendor[128];
    char platform[128];
    char version[128]; /* CL_DEVICE_VERSION, "OpenCL 3.0 PoCL ..." */
    char driver[64];   /* CL_DRIVER_VERSION (part of the disk cache key) */
    char type[16];     /* "gpu", "cpu", "accelerator" */
    int compute_units;
    size_t max_work_group_size;
    size_t local_memory;
    size_t total_memory;
    size_t max_alloc; /* the largest single buffer */
    bool fp64;        /* cl_khr_fp64 (EMBER_OPENCL_NO_FP64=1 hides it, for tests) */
    bool fp16;        /* cl_khr_fp16 (float16 arrays need only vload_half: core 1.2) */
} em_opencl_info;

EM_API em_status em_opencl_device_info(int id, em_opencl_info *out);
/* EM_ETYPE naming the device when opencl:id cannot compute in dt (float64
 * and complex128 without cl_khr_fp64), else EM_OK. */
EM_API em_status em_opencl_check_dtype(int id, em_dtype dt);

/* The buffer pool (as em_cuda_pool_*): bytes in live blocks and live +
 * cached; release the cached blocks; cap the bytes held (0: no limit). */
EM_API void em_opencl_pool_stats(int id, size_t *used, size_t *total);
EM_API void em_opencl_pool_free_all(int id);
EM_API void em_opencl_pool_set_limit(int id, size_t limit);

/* Ember's own kernels queued on opencl:id so far (the templates' launches,
 * not raw programs' nor copies and fills): tests count them to see that a
 * fused expression stays one kernel.  0 for a device that does not open. */
EM_API uint64_t em_opencl_launch_count(int id);

/* Launches that waited for PoCL's link of a new kernel shape so far, on any
 * device (src/backend/opencl/linkwait.c says why they wait). */
EM_API uint64_t em_opencl_link_waits(void);

/* A device pointer Ember handed out (see src/backend/opencl/mem.c): the
 * cl_mem holding it and the byte offset into it; EM_EVALUE if it is none. */
EM_API em_status em_opencl_decode(const void *ptr, void **mem, size_t *offset);

/* Interop with other OpenCL code in the process (PyOpenCL, DLPack).
 * handles: opencl:id's cl_context, the calling thread's cl_command_queue
 * there and its cl_device_id (Ember keeps its references).  export: decode
 * as em_opencl_decode and mark the buffer shared, so that freeing it in
 * Ember releases it (the other side holds its own reference) instead of
 * caching it for reuse.  adopt: a device pointer of Ember's for a buffer
 * made elsewhere in opencl:id's context (retained; EM_EVALUE for another
 * context), at offset 0; unadopt releases it (no pool involved). */
EM_API em_status em_opencl_handles(int id, void **context, void **queue, void **device);
EM_API em_status em_opencl_export(const void *ptr, void **mem, size_t *offset);
EM_API em_status em_opencl_adopt(int id, void *mem, void **ptr);
EM_API void em_opencl_unadopt(void *ptr);

/* Raw OpenCL C programs (em.opencl.Program): built for opencl:id through
 * the disk cache and kept for the process (a handle stays valid).  A build
 * failure is EM_ECOMPILE with the build log and the numbered source. */
EM_API em_status em_opencl_program_build(int id, const char *src, const char *options,
                                         void **program);
/* The kernel called name in program: a new cl_kernel, released by
 * em_opencl_kernel_release (EM_EVALUE when there is none). */
EM_API em_status em_opencl_kernel_create(int id, void *program, const char *name, void **kernel);
EM_API void em_opencl_kernel_release(void *kernel);
/* Number of arguments of a kernel. */
EM_API em_status em_opencl_kernel_nargs(void *kernel, int *nargs);

/* One argument of a raw launch: a device pointer of Ember's (passed as its
 * cl_mem; the offset must be 0), size bytes of value, or size bytes of
 * __local memory. */
typedef enum { EM_CLARG_BUFFER, EM_CLARG_BYTES, EM_CLARG_LOCAL } em_clarg_kind;
typedef struct em_clarg {
    em_clarg_kind kind;
    size_t size;
    const void *value;
} em_clarg;
/* Queue kernel over ndim (1..3) global sizes, local sizes or NULL (the
 * driver picks), checked against the device's limits (EM_ELAUNCH). */
EM_API em_status em_opencl_launch_raw(int id, void *kernel, const char *name, int ndim,
                                      const size_t *global, const size_t *local, int nargs,
                                      const em_clarg *args);

/* Streams (in-order queues of the device's context) and events (markers
 * with profiling), as em_cuda_stream_* / em_cuda_event_*.  A stream made
 * current (stream_set) takes this thread's work for that device; NULL: the
 * device's own queue.  Only the pool's blocks freed by the same thread's
 * current queue are reused without a wait, so destroy waits for a stream. */
EM_API em_status em_opencl_stream_create(int id, void **out);
EM_API em_status em_opencl_stream_destroy(int id, void *s);
EM_API em_status em_opencl_stream_set(int id, void *s);
EM_API void *em_opencl_stream_get(void);
EM_API em_status em_opencl_stream_sync(int id, void *s);
EM_API em_status em_opencl_event_record(int id, void *s, void **out);
EM_API em_status em_opencl_event_sync(void *e);
/* Milliseconds between two recorded events (waits for both). */
EM_API em_status em_opencl_event_elapsed(void *a, void *b, float *ms);
EM_API void em_opencl_event_destroy(void *e);

#endif
