/* The CUDA caching memory pool (see pool.h for the policy). */
#include "backend/cuda/pool.h"
#include "backend/cuda/cuda_internal.h"

#include <pthread.h>
#include <stdlib.h>

#define EM_POOL_ROUND ((size_t)512)

typedef struct em__blk {
    CUdeviceptr ptr;
    size_t size;
    CUstream stream; /* freed on this stream: reused only there */
    struct em__blk *next;
} em__blk;

typedef struct em__pool {
    pthread_mutex_t lock;
    em__blk *free_list;
    em__blk *nodes; /* list nodes not in use: a small op frees and takes one */
    size_t used, cached, limit;
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

/* Take the best-fitting cached block out of the list; 0 if none fits. */
static CUdeviceptr em__take_cached(em__pool *p, size_t size) {
    em__blk **best = NULL;
    CUstream st = em_cu_stream();
    for (em__blk **b = &p->free_list; *b; b = &(*b)->next) {
        size_t s = (*b)->size;
        if (s < size || s / 2 > size || (*b)->stream != st) continue;
        if (!best || s < (*best)->size) best = b;
        if (s == size) break;
    }
    if (!best) return 0;
    em__blk *blk = *best;
    CUdeviceptr ptr = blk->ptr;
    *best = blk->next;
    p->cached -= blk->size;
    blk->next = p->nodes;
    p->nodes = blk;
    return ptr;
}

static void em__release_cached(em__pool *p) {
    while (p->free_list) {
        em__blk *b = p->free_list;
        p->free_list = b->next;
        em__cu.cuMemFree(b->ptr);
        p->cached -= b->size;
        free(b);
    }
}

/* cuMemAlloc, retrying once after the cache is emptied.  Lock held. */
static em_status em__fresh(em__pool *p, int id, size_t size, CUdeviceptr *out) {
    if (p->limit && p->used + p->cached + size > p->limit) em__release_cached(p);
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
    if (nbytes > SIZE_MAX - EM_POOL_ROUND)
        return em_error(EM_EOVERFLOW, "allocation of %zu bytes is too large", nbytes);
    size_t size =
        nbytes ? (nbytes + EM_POOL_ROUND - 1) / EM_POOL_ROUND * EM_POOL_ROUND : EM_POOL_ROUND;
    pthread_mutex_lock(&p->lock);
    CUdeviceptr d = em__take_cached(p, size);
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
    size_t size =
        nbytes ? (nbytes + EM_POOL_ROUND - 1) / EM_POOL_ROUND * EM_POOL_ROUND : EM_POOL_ROUND;
    pthread_mutex_lock(&p->lock);
    em__blk *b = p->nodes;
    if (b)
        p->nodes = b->next;
    else
        b = malloc(sizeof *b);
    p->used -= size;
    if (b) {
        b->ptr = (CUdeviceptr)(uintptr_t)ptr;
        b->size = size;
        b->stream = em_cu_stream();
        b->next = p->free_list;
        p->free_list = b;
        p->cached += size;
    } else {
        em__cu.cuMemFree((CUdeviceptr)(uintptr_t)ptr);
    }
    pthread_mutex_unlock(&p->lock);
}

/* The device was reset (reset.c): its blocks are gone with the old context.
 * Forget them without cuMemFree; live arrays of before are never freed back
 * (core/array.c compares generations), so nothing of them stays counted. */
void em_cu_pool_forget(int id) {
    em__pool *p = em__pool_get(id);
    if (!p) return;
    pthread_mutex_lock(&p->lock);
    while (p->free_list) {
        em__blk *b = p->free_list;
        p->free_list = b->next;
        free(b);
    }
    p->used = p->cached = 0;
    pthread_mutex_unlock(&p->lock);
}

void em_cuda_pool_stats(int id, size_t *used, size_t *total) {
    em__pool *p = em__pool_get(id);
    *used = *total = 0;
    if (!p) return;
    pthread_mutex_lock(&p->lock);
    *used = p->used;
    *total = p->used + p->cached;
    pthread_mutex_unlock(&p->lock);
}

void em_cuda_pool_free_all(int id) {
    em__pool *p = em__pool_get(id);
    if (!p || !p->free_list || em_cu_ctx(id) != EM_OK) return;
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
