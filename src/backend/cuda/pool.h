/* The CUDA caching memory pool: one per device.
 *
 * Sizes are rounded up to 512 bytes.  Freed blocks are kept in a per-device
 * cache (backend/blockcache.h, shared with OpenCL's pool) and reused
 * best-fit (the smallest cached block that is large enough and at most
 * twice the request, so a huge block is not spent on a tiny array).  When cuMemAlloc fails every cached block is released and
 * the allocation retried once (cuMemFree waits for the device, so blocks
 * freed on any stream are safe to release); a block is reused only on the
 * stream it was freed on; a second failure is EM_ENOMEM naming the
 * bytes asked for and the bytes cuMemGetInfo reports free.  A limit, if set,
 * caps the bytes held (live + cached).
 */
#ifndef EM_CUDA_POOL_H
#define EM_CUDA_POOL_H

#include "backend/cuda/cuda_api.h"

em_status em_cu_pool_alloc(int id, size_t nbytes, void **ptr);
void em_cu_pool_free(int id, void *ptr, size_t nbytes);
/* em_cuda_pool_stats, _free_all and _set_limit are ember/cuda.h's. */

#endif
