/* OpenCL devices: properties (read when the loader lists them) and the
 * context and in-order queue, made the first time a device is used and
 * kept for the process, as CUDA's primary contexts are. */
#include "backend/opencl/cl_internal.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

extern em_cl_dev em_cl_devs[EM_CL_MAXDEV];
static pthread_mutex_t em__open_lock = PTHREAD_MUTEX_INITIALIZER;

static void em__str(cl_device_id d, cl_uint what, char *buf, size_t len) {
    buf[0] = 0;
    if (em__cl.clGetDeviceInfo(d, what, len - 1, buf, NULL) != EM_CL_SUCCESS) buf[0] = 0;
    buf[len - 1] = 0;
}

static cl_ulong em__u64(cl_device_id d, cl_uint what) {
    cl_ulong v = 0;
    em__cl.clGetDeviceInfo(d, what, sizeof v, &v, NULL);
    return v;
}

static bool em__has_ext(const char *exts, const char *name) {
    size_t n = strlen(name);
    for (const char *c = exts; (c = strstr(c, name)); c += n)
        if ((c == exts || c[-1] == ' ') && (c[n] == ' ' || c[n] == 0)) return true;
    return false;
}

/* Called once per device by the loader (opencl.c). */
void em_cl_read_info(em_cl_dev *d) {
    em_opencl_info *in = &d->info;
    em_device_props *p = &d->props;
    em__str(d->dev, EM_CL_DEVICE_NAME, in->name, sizeof in->name);
    em__str(d->dev, EM_CL_DEVICE_VENDOR, in->vendor, sizeof in->vendor);
    em__str(d->dev, EM_CL_DEVICE_VERSION, in->version, sizeof in->version);
    em__str(d->dev, EM_CL_DRIVER_VERSION, in->driver, sizeof in->driver);
    in->platform[0] = 0;
    em__cl.clGetPlatformInfo(d->plat, EM_CL_PLATFORM_NAME, sizeof in->platform - 1, in->platform,
                             NULL);
    in->platform[sizeof in->platform - 1] = 0;
    d->link_wait = em_cl_link_waits(in);
    cl_ulong type = em__u64(d->dev, EM_CL_DEVICE_TYPE);
    snprintf(in->type, sizeof in->type, "%s",
             type & EM_CL_DEVICE_TYPE_GPU   ? "gpu"
             : type & EM_CL_DEVICE_TYPE_CPU ? "cpu"
                                            : "accelerator");
    cl_uint cu = 0;
    em__cl.clGetDeviceInfo(d->dev, EM_CL_DEVICE_MAX_COMPUTE_UNITS, sizeof cu, &cu, NULL);
    in->compute_units = (int)cu;
    size_t wg = 0, dims[3] = {0, 0, 0};
    em__cl.clGetDeviceInfo(d->dev, EM_CL_DEVICE_MAX_WORK_GROUP_SIZE, sizeof wg, &wg, NULL);
    em__cl.clGetDeviceInfo(d->dev, EM_CL_DEVICE_MAX_WORK_ITEM_SIZES, sizeof dims, dims, NULL);
    in->max_work_group_size = wg;
    in->local_memory = (size_t)em__u64(d->dev, EM_CL_DEVICE_LOCAL_MEM_SIZE);
    in->total_memory = (size_t)em__u64(d->dev, EM_CL_DEVICE_GLOBAL_MEM_SIZE);
    in->max_alloc = (size_t)em__u64(d->dev, EM_CL_DEVICE_MAX_MEM_ALLOC_SIZE);
    size_t n = 0;
    em__cl.clGetDeviceInfo(d->dev, EM_CL_DEVICE_EXTENSIONS, 0, NULL, &n);
    char *ext = calloc(n + 1, 1);
    if (ext && em__cl.clGetDeviceInfo(d->dev, EM_CL_DEVICE_EXTENSIONS, n, ext, NULL) == 0) {
        in->fp64 = em__has_ext(ext, "cl_khr_fp64");
        in->fp16 = em__has_ext(ext, "cl_khr_fp16");
    }
    free(ext);
    /* A switch for tests of the refusal on devices that have fp64 (PoCL). */
    const char *no64 = getenv("EMBER_OPENCL_NO_FP64");
    if (no64 && no64[0] && strcmp(no64, "0")) in->fp64 = false;
    /* Ember's kernels match the CPU's results: division and sqrt correctly
     * rounded where the device can (OpenCL allows 2.5 ulp by default). */
    cl_ulong fpc = em__u64(d->dev, EM_CL_DEVICE_SINGLE_FP_CONFIG);
    /* -w: a compiler's warnings about the prelude are not the user's (PoCL
     * prints them on stderr). */
    snprintf(d->opts, sizeof d->opts, "-w%s",
             fpc & EM_CL_FP_CORRECTLY_ROUNDED_DIVIDE_SQRT
                 ? " -cl-fp32-correctly-rounded-divide-sqrt"
                 : "");
    /* The generic properties: OpenCL's work-group is CUDA's block; there is
     * no grid limit beyond size_t, so the grid's is INT_MAX. */
    snprintf(p->name, sizeof p->name, "%s", in->name);
    p->multiprocessor_count = in->compute_units;
    p->max_threads_per_block = wg > INT_MAX ? INT_MAX : (int)wg;
    for (int i = 0; i < 3; i++) {
        p->max_block_dim[i] = dims[i] > INT_MAX ? INT_MAX : (int)dims[i];
        p->max_grid_dim[i] = INT_MAX;
    }
    p->shared_memory_per_block = in->local_memory;
    p->total_memory = in->total_memory;
}

static em_status em__check_id(int id) {
    int n = em_cl_count();
    if (id < 0 || id >= n)
        return em_error(EM_EDEVICE, "no device opencl:%d (%d OpenCL device%s available%s%s)", id, n,
                        n == 1 ? "" : "s", n ? "" : ": ", n ? "" : em_cl_why());
    return EM_OK;
}

/* Lock held. */
static em_status em__make(int id, em_cl_dev *d) {
    cl_int err = 0;
    d->ctx = em__cl.clCreateContext(NULL, 1, &d->dev, NULL, NULL, &err);
    if (!d->ctx || err != EM_CL_SUCCESS) return em_cl_fail(err, "clCreateContext");
    d->queue = em__cl.clCreateCommandQueue(d->ctx, d->dev, EM_CL_QUEUE_PROFILING_ENABLE, &err);
    if (!d->queue || err != EM_CL_SUCCESS) {
        em__cl.clReleaseContext(d->ctx);
        d->ctx = NULL;
        return em_cl_fail(err, "clCreateCommandQueue");
    }
    (void)id;
    return EM_OK;
}

em_status em_cl_open(int id, em_cl_dev **out) {
    if ((unsigned)id < EM_CL_MAXDEV &&
        atomic_load_explicit(&em_cl_devs[id].ready, memory_order_acquire)) {
        *out = &em_cl_devs[id];
        return EM_OK;
    }
    EM_CHECK(em__check_id(id));
    em_cl_dev *d = &em_cl_devs[id];
    pthread_mutex_lock(&em__open_lock);
    if (!d->ctx && d->status == EM_OK) {
        d->status = em__make(id, d);
        if (d->status != EM_OK)
            snprintf(d->why, sizeof d->why, "%s", em_last_error());
        else
            atomic_store_explicit(&d->ready, true, memory_order_release);
    }
    pthread_mutex_unlock(&em__open_lock);
    if (d->status != EM_OK) return em_error(d->status, "opencl:%d is unusable: %s", id, d->why);
    *out = d;
    return EM_OK;
}

/* The calling thread's current stream and the device it belongs to
 * (stream.c sets them); work for another device goes to that device's own
 * queue. */
_Thread_local cl_command_queue em_cl_cur_queue;
_Thread_local const em_cl_dev *em_cl_cur_dev;

cl_command_queue em_cl_queue(em_cl_dev *d) {
    return em_cl_cur_queue && em_cl_cur_dev == d ? em_cl_cur_queue : d->queue;
}

em_status em_opencl_device_info(int id, em_opencl_info *out) {
    EM_CHECK(em__check_id(id));
    *out = em_cl_devs[id].info;
    return EM_OK;
}

em_status em_opencl_handles(int id, void **context, void **queue, void **device) {
    em_cl_dev *d = NULL;
    EM_CHECK(em_cl_open(id, &d));
    *context = d->ctx, *queue = em_cl_queue(d), *device = d->dev;
    return EM_OK;
}

em_status em_opencl_check_dtype(int id, em_dtype dt) {
    if (dt != EM_FLOAT64 && dt != EM_COMPLEX128) return EM_OK;
    EM_CHECK(em__check_id(id));
    const em_opencl_info *in = &em_cl_devs[id].info;
    if (in->fp64) return EM_OK;
    return em_error(EM_ETYPE,
                    "%s is not supported on opencl:%d (%s): the device has no double precision "
                    "(cl_khr_fp64); use float32 or complex64",
                    em_dtype_get(dt)->name, id, in->name);
}
