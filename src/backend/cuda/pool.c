/* The CUDA caching memory pool (see pool.h for the policy; the cache of
 * freed blocks is backend/blockcache.h's, shared with OpenCL's pool). */
#include "backend/cuda/pool.h"
#include "backend/blockcache.h"
#include "backend/cuda/cuda_internal.h"

#include <pthread.h>
#include <stdlib.h>

typedef struct em__pool {
    pthread_mutex_t lock;
    em_block_cache cache;
    size_t used, limit;
} em__pool;

static em__pool em__pools[EM_CU_MAXDEV];
static pthread_once_t em__pools_once = PTHREAD_ONCE_INIT;

static void em__pools_init(void) {
    for (int i = 0; i < EM_CU_MAXDEV; i++) pthread_mutex_init(&em__pools[i].lock, NULL);
}

static em__pool *em__pool_get(int id) {
    pthread_once(&em__pools_once, em__pools_init);
    return (unsigned)id < EM_CU_MAXDEV ? &em__pools[id] : NULL;
}

static void em__cu_free(void *ctx, uint64_t ptr, size_t size) {
    (void)ctx, (void)size;
    em__cu.cuMemFree((CUdeviceptr)ptr);
}

static void em__release_cached(em__pool *p) { em_block_drain(&p->cache, em__cu_free, NULL); }

/* cuMemAlloc, retrying once after the cache is emptied.  Lock held. */
static em_status em__fresh(em__pool *p, int id, size_t size, CUdeviceptr *out) {
    if (p->limit && p->used + p->cache.bytes + size > p->limit) em__release_cached(p);
    if (p->limit && p->used + size > p->limit)
        return em_error(EM_ENOMEM,
                        "out of memory allocating %zu bytes on cuda:%d: the pool limit is %zu "
                        "bytes and %zu are in use",
                        size, id, p->limit, p->used);
    CUresult r = em__cu.cuMemAlloc(out, size);
    if (r == EM_CU_ERROR_OUT_OF_MEMORY) {
        em__release_cached(p);
        r = em__cu.cuMemAlloc(out, size);
    }
    if (r == EM_CU_ERROR_OUT_OF_MEMORY) {
        size_t fr = 0, tot = 0;
        em__cu.cuMemGetInfo(&fr, &tot);
        return em_error(EM_ENOMEM,
                        "out of memory allocating %zu bytes on cuda:%d (%zu bytes free of %zu)",
                        size, id, fr, tot);
    }
    return r == EM_CU_SUCCESS ? EM_OK : em_cu_fail(r, "cuMemAlloc");
}

em_status em_cu_pool_alloc(int id, size_t nbytes, void **ptr) {
    em__pool *p = em__pool_get(id);
    if (!p)
        return em_error(EM_EDEVICE, "cuda:%d is beyond the %d devices Ember supports", id,
                        EM_CU_MAXDEV);
    if (em_cu_lost(id)) EM_CHECK(em_cu_ctx(id)); /* reset first: no block of before */
    if (nbytes > SIZE_MAX - EM_BLOCK_ROUND)
        return em_error(EM_EOVERFLOW, "allocation of %zu bytes is too large", nbytes);
    size_t size = em_block_round(nbytes);
    pthread_mutex_lock(&p->lock);
    CUdeviceptr d = (CUdeviceptr)em_block_take(&p->cache, size, em_cu_stream());
    /* The context only for the driver's allocation: a cached block needs
     * no driver call (callers make it current before they use the memory). */
    em_status s = d ? EM_OK : em_cu_ctx(id);
    if (s == EM_OK && !d) s = em__fresh(p, id, size, &d);
    if (s == EM_OK) p->used += size;
    pthread_mutex_unlock(&p->lock);
    if (s == EM_OK) *ptr = (void *)(uintptr_t)d;
    return s;
}

/* A block comes back: it is cached, not freed (free_all_blocks frees). */
void em_cu_pool_free(int id, void *ptr, size_t nbytes) {
    em__pool *p = em__pool_get(id);
    size_t size = em_block_round(nbytes);
    pthread_mutex_lock(&p->lock);
    p->used -= size;
    if (!em_block_keep(&p->cache, (uintptr_t)ptr, size, em_cu_stream()))
        em__cu.cuMemFree((CUdeviceptr)(uintptr_t)ptr); /* no host memory to keep it */
    pthread_mutex_unlock(&p->lock);
}

/* The device was reset (reset.c): its blocks are gone with the old context.
 * Forget them without cuMemFree; live arrays of before are never freed back
 * (core/array.c compares generations), so nothing of them stays counted. */
void em_cu_pool_forget(int id) {
    em__pool *p = em__pool_get(id);
    if (!p) return;
    pthread_mutex_lock(&p->lock);
    em_block_drain(&p->cache, NULL, NULL);
    p->used = 0;
    pthread_mutex_unlock(&p->lock);
}

void em_cuda_pool_stats(int id, size_t *used, size_t *total) {
    em__pool *p = em__pool_get(id);
    *used = *total = 0;
    if (!p) return;
    pthread_mutex_lock(&p->lock);
    *used = p->used;
    *total = p->used + p->cache.bytes;
    pthread_mutex_unlock(&p->lock);
}

void em_cuda_pool_free_all(int id) {
    em__pool *p = em__pool_get(id);
    if (!p || !p->cache.list || em_cu_ctx(id) != EM_OK) return;
    pthread_mutex_lock(&p->lock);
    em__release_cached(p);
    pthread_mutex_unlock(&p->lock);
}

void em_cuda_pool_set_limit(int id, size_t limit) {
    em__pool *p = em__pool_get(id);
    if (!p) return;
    pthread_mutex_lock(&p->lock);
    p->limit = limit;
    pthread_mutex_unlock(&p->lock);
}
