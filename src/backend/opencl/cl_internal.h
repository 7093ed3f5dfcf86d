/* Declarations shared by the OpenCL backend's files: the few OpenCL types
 * (handles are opaque pointers, integers have the widths of the OpenCL 1.2
 * headers, which the build never needs), the dlsym'ed table, the devices. */
#ifndef EM_CL_INTERNAL_H
#define EM_CL_INTERNAL_H

#include "backend/backend.h"
#include "backend/opencl/opencl.h"
#include "core/core.h"
#include "ember/opencl.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>

typedef int32_t cl_int;
typedef uint32_t cl_uint;
typedef uint64_t cl_ulong;
typedef struct _cl_platform_id *cl_platform_id;
typedef struct _cl_device_id *cl_device_id;
typedef struct _cl_context *cl_context;
typedef struct _cl_command_queue *cl_command_queue;
typedef struct _cl_mem *cl_mem;
typedef struct _cl_program *cl_program;
typedef struct _cl_kernel *cl_kernel;
typedef struct _cl_event *cl_event;

enum {
    EM_CL_SUCCESS = 0,
    EM_CL_MEM_OBJECT_ALLOCATION_FAILURE = -4,
    EM_CL_OUT_OF_RESOURCES = -5,
    EM_CL_OUT_OF_HOST_MEMORY = -6,
    EM_CL_BUILD_PROGRAM_FAILURE = -11,
    EM_CL_INVALID_KERNEL_NAME = -46,
    EM_CL_INVALID_BUFFER_SIZE = -61,
    EM_CL_DEVICE_TYPE_CPU = 2,
    EM_CL_DEVICE_TYPE_GPU = 4,
    EM_CL_DEVICE_TYPE_ACCELERATOR = 8,
    EM_CL_PLATFORM_VERSION = 0x0901,
    EM_CL_PLATFORM_NAME = 0x0902,
    EM_CL_DEVICE_TYPE = 0x1000,
    EM_CL_DEVICE_MAX_COMPUTE_UNITS = 0x1002,
    EM_CL_DEVICE_SINGLE_FP_CONFIG = 0x101B,
    EM_CL_FP_CORRECTLY_ROUNDED_DIVIDE_SQRT = 1 << 7,
    EM_CL_DEVICE_MAX_WORK_GROUP_SIZE = 0x1004,
    EM_CL_DEVICE_MAX_WORK_ITEM_SIZES = 0x1005,
    EM_CL_DEVICE_MAX_MEM_ALLOC_SIZE = 0x1010,
    EM_CL_DEVICE_GLOBAL_MEM_SIZE = 0x101F,
    EM_CL_DEVICE_LOCAL_MEM_SIZE = 0x1023,
    EM_CL_DEVICE_NAME = 0x102B,
    EM_CL_DEVICE_VENDOR = 0x102C,
    EM_CL_DRIVER_VERSION = 0x102D,
    EM_CL_DEVICE_VERSION = 0x102F,
    EM_CL_DEVICE_EXTENSIONS = 0x1030,
    EM_CL_QUEUE_PROFILING_ENABLE = 2,
    EM_CL_MEM_READ_WRITE = 1,
    EM_CL_MEM_USE_HOST_PTR = 1 << 3,
    EM_CL_MEM_SIZE = 0x1102,
    EM_CL_MEM_CONTEXT = 0x1106,
    EM_CL_PROGRAM_BINARY_SIZES = 0x1165,
    EM_CL_PROGRAM_BINARIES = 0x1166,
    EM_CL_PROGRAM_BUILD_LOG = 0x1183,
    EM_CL_KERNEL_NUM_ARGS = 0x1191,
    EM_CL_KERNEL_WORK_GROUP_SIZE = 0x11B0,
    EM_CL_PROFILING_COMMAND_END = 0x1283,
    EM_CL_EVENT_COMMAND_EXECUTION_STATUS = 0x11D3,
    EM_CL_COMPLETE = 0,
};

typedef struct em__cl_api {
#define EM_FN(ret, field, sym, params) ret(*field) params;
#include "backend/opencl/libOpenCL.fn"
#undef EM_FN
} em__cl_api;

extern em__cl_api em__cl;

#define EM_CL_MAXDEV 32

/* One OpenCL device: found at load, opened (context and queue) on first use. */
typedef struct em_cl_dev {
    cl_platform_id plat;
    cl_device_id dev;
    atomic_bool ready;
    em_status status;
    char why[256];
    cl_context ctx;
    cl_command_queue queue; /* in-order, with profiling: Ember's default stream */
    em_device_props props;
    em_opencl_info info;
    /* Build options of Ember's own kernels on this device (device.c). */
    char opts[96];
    /* clSetKernelArg then enqueue must not interleave between threads. */
    pthread_mutex_t launch_lock;
    /* Ember's own kernels queued (em_cl_launch), under launch_lock: what
     * tests count to see that a fused chain stays one kernel. */
    uint64_t launches;
    /* The first launch of each kernel shape waits for the queue (PoCL:
     * linkwait.c says why). */
    bool link_wait;
} em_cl_dev;

/* Devices found (0 without a loader or a platform; loads once). */
int em_cl_count(void);
/* The reason em_cl_count is 0. */
const char *em_cl_why(void);
/* Device id, opened (context and queue made once); an error status naming
 * opencl:id otherwise. */
em_status em_cl_open(int id, em_cl_dev **out);
/* The queue work on device id goes to from the calling thread (the
 * device's own unless a stream was made current: em_cl_stream_set). */
cl_command_queue em_cl_queue(em_cl_dev *d);
/* The thread's current stream and its device (stream.c sets them). */
extern _Thread_local cl_command_queue em_cl_cur_queue;
extern _Thread_local const em_cl_dev *em_cl_cur_dev;
/* An OpenCL error code as a status with its name and what failed. */
em_status em_cl_fail(cl_int err, const char *what);
/* The build-only device's context (em_opencl_build). */
em_status em_cl_first(em_cl_dev **out);

/* PoCL's first-run link (linkwait.c): whether the device's first launches
 * wait; the wait after a launch enqueued on q (launch lock held; an OpenCL
 * error code, 0 when done or not needed); forgetting every shape when a
 * kernel is released. */
bool em_cl_link_waits(const em_opencl_info *in);
cl_int em_cl_link_wait(const em_cl_dev *d, cl_command_queue q, const void *kernel, cl_uint ndim,
                       const size_t *global, const size_t *local);
void em_cl_link_forget(void);

/* Memory (mem.c): a device pointer decoded to its buffer and offset. */
em_status em_cl_ptr(const void *p, cl_mem *mem, size_t *off);
em_status em_cl_alloc(int id, size_t nbytes, void **ptr);
void em_cl_free(int id, void *ptr, size_t nbytes);
/* EMBER_OPENCL_GUARD=1 (guard.c): each buffer ends at an inaccessible page,
 * exactly sized (em_cl_guard_round) and never cached, so a kernel's access
 * past an array's end faults at once on a host-memory device (PoCL). */
bool em_cl_guard_on(void);
size_t em_cl_guard_round(size_t n);
cl_mem em_cl_guard_buffer(cl_context ctx, size_t size, cl_int *err);

/* Compile src for device d through the disk cache (build.c); *prog is
 * built.  name names it in messages. */
em_status em_cl_program(em_cl_dev *d, const char *src, const char *options, const char *name,
                        cl_program *prog);
/* Build src for d from source (build.c), every build from source in the
 * backend: a failure whose log names no error (PoCL's kernel cache racing
 * between processes) is tried twice more.  An error status only when no
 * program could be made; else *err is the build's result: *out the built
 * program on success, otherwise *log its log (malloc'ed, may be NULL). */
em_status em_cl_build_source(em_cl_dev *d, const char *src, const char *opts, cl_program *out,
                             cl_int *err, char **log);
/* The next n builds from source fail as PoCL's kernel-cache race makes them
 * fail (no error in the log), for the tests of the retry (build.c). */
void em_cl_build_flake(int n);

/* The table's modules and launch (kernels.c). */
em_status em_cl_module_build(int id, const char *src, const char *name, const em_build_opts *o,
                             void **mod, char **lowered);
em_status em_cl_function(int id, void *mod, const char *fname, void **fn);
em_status em_cl_launch(int id, void *fn, const char *name, const unsigned grid[3],
                       const unsigned block[3], unsigned shmem, void *stream, void *arg);

/* The table's streams and events (stream.c; backend.h says what each does). */
em_status em_cl_stream_create(int id, bool nonblocking, void **out);
em_status em_cl_stream_destroy(int id, void *s);
em_status em_cl_stream_sync(int id, void *s);
em_status em_cl_stream_wait_event(int id, void *s, void *e);
void em_cl_stream_set(int id, void *s);
void *em_cl_stream_get(int id);
em_status em_cl_event_create(int id, bool timing, void **out);
em_status em_cl_event_destroy(int id, void *e);
em_status em_cl_event_record(int id, void *e, void *s);
em_status em_cl_event_sync(int id, void *e);
em_status em_cl_event_query(int id, void *e, bool *done);
em_status em_cl_event_elapsed(int id, void *start, void *end, float *ms);

#endif
