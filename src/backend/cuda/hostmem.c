/* Page-locked ("pinned") host memory and queued host copies: the table's
 * host_alloc, host_free, host_known, to_host_async and from_host_async,
 * with which codegen/run_copy.c stages large pageable copies.
 *
 * Copies between a device and pinned memory go by DMA at the bus's full
 * rate; pageable memory is staged by the driver through its own pinned
 * buffers, at roughly half that.  Pinning is a scarce resource (it takes RAM
 * away from the OS), so it is only ever allocated on request: the staging
 * buffers, em.cuda.alloc_pinned_memory / em.cuda.pinned_empty (PORTABLE:
 * pinned for every context, every device).
 */
#include "backend/cuda/cuda_internal.h"

#include <stdio.h>

enum { EM_HOSTALLOC_PORTABLE = 1 };

em_status em_cu_host_alloc(int id, size_t n, bool all_devices, void **out) {
    EM_CHECK(em_cu_ctx(id));
    void *p = NULL;
    CUresult r = em__cu.cuMemHostAlloc(&p, n ? n : 1, all_devices ? EM_HOSTALLOC_PORTABLE : 0);
    if (r != EM_CU_SUCCESS)
        return em_cu_fail(r, "pinning %zu bytes of host memory (cuMemHostAlloc)", n);
    *out = p;
    return EM_OK;
}

em_status em_cu_host_free(int id, void *p) {
    (void)id;
    if (!p) return EM_OK;
    EM_CU(em__cu.cuMemFreeHost(p), "cuMemFreeHost");
    return EM_OK;
}

/* Pinned, registered or managed memory has a memory type; pageable memory
 * is an invalid value to the driver.  Both ends are asked, for a range that
 * runs out of a registration. */
bool em_cu_host_known(int id, const void *p, size_t n) {
    unsigned type = 0;
    CUdeviceptr a = (CUdeviceptr)(uintptr_t)p;
    return em_cu_ctx(id) == EM_OK &&
           em__cu.cuPointerGetAttribute(&type, EM_CU_POINTER_MEMORY_TYPE, a) == EM_CU_SUCCESS &&
           em__cu.cuPointerGetAttribute(&type, EM_CU_POINTER_MEMORY_TYPE, a + n - 1) ==
               EM_CU_SUCCESS;
}

em_status em_cu_to_host_async(int id, void *dst, const void *src, size_t n, void *s) {
    EM_CHECK(em_cu_ctx(id));
    EM_CU(em__cu.cuMemcpyDtoHAsync(dst, (CUdeviceptr)(uintptr_t)src, n, s), "cuMemcpyDtoHAsync");
    return EM_OK;
}

em_status em_cu_from_host_async(int id, void *dst, const void *src, size_t n, void *s) {
    EM_CHECK(em_cu_ctx(id));
    EM_CU(em__cu.cuMemcpyHtoDAsync((CUdeviceptr)(uintptr_t)dst, src, n, s), "cuMemcpyHtoDAsync");
    return EM_OK;
}
