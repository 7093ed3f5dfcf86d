/* The CUDA backend's table: devices, memory, copies, modules and launch.
 * Everything reaches the driver through the dlopen'ed table, and nothing
 * runs until a CUDA device is first asked about. */
#include "backend/cuda/cuda_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int em__count(void) {
    int n = em_cu_init();
    if (n == 0) em_error(EM_EDEVICE, "%s", em_cu_why()); /* the reason, for em_device_parse */
    return n;
}

static em_status em__props(int id, em_device_props *out) {
    const em_device_props *p;
    EM_CHECK(em_cu_props(id, &p));
    *out = *p;
    return EM_OK;
}

static em_status em__mem_info(int id, size_t *fr, size_t *tot) {
    EM_CHECK(em_cu_ctx(id));
    EM_CU(em__cu.cuMemGetInfo(fr, tot), "cuMemGetInfo");
    return EM_OK;
}

/* The driver's synchronous copies (large pageable ones are staged above
 * the table: codegen/run_copy.c). */
static em_status em__to_host(int id, void *dst, const void *src, size_t n) {
    EM_CHECK(em_cu_ctx(id));
    EM_CHECK(em_cu_wait_current());
    EM_CU(em__cu.cuMemcpyDtoH(dst, (CUdeviceptr)(uintptr_t)src, n), "a device-to-host copy");
    return EM_OK;
}

static em_status em__from_host(int id, void *dst, const void *src, size_t n) {
    EM_CHECK(em_cu_ctx(id));
    EM_CHECK(em_cu_wait_current());
    EM_CU(em__cu.cuMemcpyHtoD((CUdeviceptr)(uintptr_t)dst, src, n), "a host-to-device copy");
    return EM_OK;
}

static em_status em__copy(int id, void *dst, const void *src, size_t n) {
    EM_CHECK(em_cu_ctx(id));
    EM_CU(em__cu.cuMemcpyDtoDAsync((CUdeviceptr)(uintptr_t)dst, (CUdeviceptr)(uintptr_t)src, n,
                                   em_cu_stream()),
          "a device-to-device copy");
    return EM_OK;
}

/* The driver's memset: its launch costs the host less than a kernel's. */
static em_status em__fill(int id, void *dst, size_t n, int width, uint32_t v) {
    EM_CHECK(em_cu_ctx(id));
    CUdeviceptr d = (CUdeviceptr)(uintptr_t)dst;
    CUstream st = em_cu_stream();
    CUresult r = width == 1   ? em__cu.cuMemsetD8Async(d, (unsigned char)v, n, st)
                 : width == 2 ? em__cu.cuMemsetD16Async(d, (unsigned short)v, n, st)
                              : em__cu.cuMemsetD32Async(d, v, n, st);
    return r == EM_CU_SUCCESS ? EM_OK : em_cu_fail(r, "a memset");
}

static em_status em__sync(int id) {
    EM_CHECK(em_cu_ctx(id));
    EM_CU(em__cu.cuCtxSynchronize(), "synchronize");
    return EM_OK;
}

const em_backend em_cuda_backend = {
    .name = "cuda",
    .kind = EM_CUDA,
    .device_count = em__count,
    .props = em__props,
    .mem_info = em__mem_info,
    .alloc = em_cu_pool_alloc,
    .free = em_cu_pool_free,
    .to_host = em__to_host,
    .from_host = em__from_host,
    .copy = em__copy,
    .fill = em__fill,
    .synchronize = em__sync,
    .dialect = "cuda",
    .props_ref = em_cu_props,
    .module_build = em_cu_module_build,
    .function = em_cu_function,
    .launch = em_cu_launch,
    .ops = NULL, /* every algorithm is codegen/run_*.c's over the primitives above */
    .stream_create = em_cu_stream_create,
    .stream_destroy = em_cu_stream_destroy,
    .stream_synchronize = em_cu_stream_sync,
    .stream_wait_event = em_cu_stream_wait_event,
    .stream_set = em_cu_stream_set,
    .stream_get = em_cu_stream_get,
    .event_create = em_cu_event_create,
    .event_destroy = em_cu_event_destroy,
    .event_record = em_cu_event_record,
    .event_synchronize = em_cu_event_sync,
    .event_query = em_cu_event_query,
    .event_elapsed = em_cu_event_elapsed,
    .host_alloc = em_cu_host_alloc,
    .host_free = em_cu_host_free,
    .host_known = em_cu_host_known,
    .to_host_async = em_cu_to_host_async,
    .from_host_async = em_cu_from_host_async,
};
