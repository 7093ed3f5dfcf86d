/* Page-locked ("pinned") host memory.
 *
 * Copies between a device and pinned memory go by DMA at the bus's full
 * rate; pageable memory is staged by the driver through its own pinned
 * buffers, at roughly half that.  The memory is allocated PORTABLE so that
 * every context (every device) sees it as pinned.  Pinning is a scarce
 * resource (it takes RAM away from the OS), so it is only ever allocated on
 * request: em.cuda.alloc_pinned_memory / em.cuda.pinned_empty.
 */
#include "backend/cuda/cuda_internal.h"

#include <stdio.h>

enum { EM_HOSTALLOC_PORTABLE = 1 };

em_status em_cuda_pinned_alloc(int id, size_t n, void **out) {
    EM_CHECK(em_cu_ctx(id));
    void *p = NULL;
    CUresult r = em__cu.cuMemHostAlloc(&p, n ? n : 1, EM_HOSTALLOC_PORTABLE);
    if (r != EM_CU_SUCCESS) {
        char what[80];
        snprintf(what, sizeof what, "pinning %zu bytes of host memory (cuMemHostAlloc)", n);
        return em_cu_fail(r, what);
    }
    *out = p;
    return EM_OK;
}

em_status em_cuda_pinned_free(void *p) {
    if (!p) return EM_OK;
    EM_CU(em__cu.cuMemFreeHost(p), "cuMemFreeHost");
    return EM_OK;
}
