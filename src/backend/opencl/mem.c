/* OpenCL memory: synthetic device addresses over cl_mem buffers, and the
 * caching buffer pool.
 *
 * Why synthetic addresses: the core treats a device pointer as an address
 * (a view is base + byte offset, a reversed view points into the middle,
 * overlap checks compare ranges), but an OpenCL buffer is a handle with no
 * address (SVM is OpenCL 2.0 and optional).  So each buffer gets a slot and
 * its bytes the addresses (slot << 40) + offset: arithmetic on them stays
 * inside the buffer's range, distinct buffers never overlap, and launch and
 * the copies decode a pointer back to (cl_mem, offset).  Slot 0 is never
 * used, so no valid pointer is NULL; a buffer is below 1 TiB (2^40).
 *
 * Slots live in a two-level table read without a lock: an entry is written
 * before its address is handed out and never changes while the address is
 * live (a cached block keeps its slot and buffer).
 *
 * The pool (as CUDA's, backend/cuda/pool.c, over the same cache of freed
 * blocks, backend/blockcache.h): sizes rounded to 512 bytes, a freed block
 * cached and reused for a request between half its size and its size, on
 * the queue it was freed on (work queued there before the free is done
 * before the new owner's); an allocation beyond the limit or the device's
 * memory first releases the cached blocks, then fails with EM_ENOMEM and
 * the sizes.
 * OpenCL allocates lazily, so the device's global memory size is checked
 * here rather than trusting clCreateBuffer to fail.
 */
#include "backend/blockcache.h"
#include "backend/opencl/cl_internal.h"

#include <stdlib.h>
#include <string.h>

#define EM_SLOT_SHIFT 40
#define EM_SLOT_CHUNK 4096
#define EM_SLOT_CHUNKS 2048 /* 8 M slots: pointers stay below 2^63 */

typedef struct em__slot {
    cl_mem mem;
    size_t size;
    int dev;
    struct em__slot *next; /* the free-slot list */
    uint32_t index;
    /* Shared with another owner (em_opencl_export): released when Ember frees
     * it, never cached, since the other owner may still use the buffer. */
    bool exported;
} em__slot;

static _Atomic(em__slot *) em__chunks[EM_SLOT_CHUNKS];
static pthread_mutex_t em__slot_lock = PTHREAD_MUTEX_INITIALIZER;
static em__slot *em__free_slots;
static uint32_t em__next_slot = 1;

static em__slot *em__slot_at(uint64_t i) {
    if (i == 0 || i >= (uint64_t)EM_SLOT_CHUNK * EM_SLOT_CHUNKS) return NULL;
    em__slot *c = atomic_load_explicit(&em__chunks[i / EM_SLOT_CHUNK], memory_order_acquire);
    return c ? &c[i % EM_SLOT_CHUNK] : NULL;
}

static em__slot *em__slot_new(void) {
    pthread_mutex_lock(&em__slot_lock);
    em__slot *s = em__free_slots;
    if (s) {
        em__free_slots = s->next;
    } else if (em__next_slot < (uint64_t)EM_SLOT_CHUNK * EM_SLOT_CHUNKS) {
        uint32_t i = em__next_slot;
        _Atomic(em__slot *) *cp = &em__chunks[i / EM_SLOT_CHUNK];
        em__slot *c = atomic_load_explicit(cp, memory_order_relaxed);
        if (!c && (c = calloc(EM_SLOT_CHUNK, sizeof *c)))
            atomic_store_explicit(cp, c, memory_order_release);
        if (c) {
            s = &c[i % EM_SLOT_CHUNK];
            s->index = i;
            em__next_slot++;
        }
    }
    pthread_mutex_unlock(&em__slot_lock);
    return s;
}

static void em__slot_drop(em__slot *s) {
    em__cl.clReleaseMemObject(s->mem);
    s->mem = NULL;
    pthread_mutex_lock(&em__slot_lock);
    s->next = em__free_slots;
    em__free_slots = s;
    pthread_mutex_unlock(&em__slot_lock);
}

static void *em__addr(const em__slot *s) {
    return (void *)(uintptr_t)((uint64_t)s->index << EM_SLOT_SHIFT);
}

em_status em_cl_ptr(const void *p, cl_mem *mem, size_t *off) {
    uint64_t a = (uint64_t)(uintptr_t)p;
    em__slot *s = em__slot_at(a >> EM_SLOT_SHIFT);
    uint64_t o = a & (((uint64_t)1 << EM_SLOT_SHIFT) - 1);
    if (!s || !s->mem || o > s->size)
        return em_error(EM_EVALUE, "%p is not an OpenCL device pointer of Ember's", p);
    *mem = s->mem, *off = (size_t)o;
    return EM_OK;
}

em_status em_opencl_decode(const void *ptr, void **mem, size_t *offset) {
    cl_mem m = NULL;
    EM_CHECK(em_cl_ptr(ptr, &m, offset));
    *mem = m;
    return EM_OK;
}

/* ---- the pool ---- */

typedef struct em__pool {
    pthread_mutex_t lock;
    em_block_cache cache;     /* of slots */
    size_t used, held, limit; /* held: used + cached */
} em__pool;

static em__pool em__pools[EM_CL_MAXDEV];
static pthread_once_t em__pools_once = PTHREAD_ONCE_INIT;

static void em__pools_init(void) {
    for (int i = 0; i < EM_CL_MAXDEV; i++) pthread_mutex_init(&em__pools[i].lock, NULL);
}

static em__pool *em__pool_get(int id) {
    pthread_once(&em__pools_once, em__pools_init);
    return (unsigned)id < EM_CL_MAXDEV ? &em__pools[id] : NULL;
}

static void em__drop_cached(void *pool, uint64_t slot, size_t size) {
    ((em__pool *)pool)->held -= size;
    em__slot_drop((em__slot *)(uintptr_t)slot);
}

/* Lock held. */
static void em__release_cached(em__pool *p) { em_block_drain(&p->cache, em__drop_cached, p); }

/* A new buffer; the cache emptied once first when the request would pass
 * the limit or the device's memory, or when the driver refuses.  Lock held. */
static em_status em__fresh(em__pool *p, int id, size_t size, em__slot **out) {
    em_cl_dev *d;
    EM_CHECK(em_cl_open(id, &d));
    const em_opencl_info *in = &d->info;
    if (size > in->max_alloc)
        return em_error(EM_ENOMEM,
                        "out of memory allocating %zu bytes on opencl:%d (%s): the device's "
                        "largest buffer is %zu bytes",
                        size, id, in->name, in->max_alloc);
    size_t cap = p->limit && p->limit < in->total_memory ? p->limit : in->total_memory;
    if (p->held + size > cap) em__release_cached(p);
    if (p->used + size > cap)
        return em_error(EM_ENOMEM,
                        "out of memory allocating %zu bytes on opencl:%d: %s %zu bytes and %zu "
                        "are in use",
                        size, id, p->limit ? "the pool limit is" : "the device has", cap, p->used);
    em__slot *s = em__slot_new();
    if (!s) return em_error(EM_ENOMEM, "out of OpenCL buffer slots");
    cl_int err = 0;
    for (int attempt = 0; attempt < 2; attempt++) {
        s->mem = em_cl_guard_on()
                     ? em_cl_guard_buffer(d->ctx, size, &err)
                     : em__cl.clCreateBuffer(d->ctx, EM_CL_MEM_READ_WRITE, size, NULL, &err);
        if (s->mem && err == EM_CL_SUCCESS) break;
        s->mem = NULL;
        em__release_cached(p);
    }
    if (!s->mem) {
        pthread_mutex_lock(&em__slot_lock);
        s->next = em__free_slots;
        em__free_slots = s;
        pthread_mutex_unlock(&em__slot_lock);
        if (err == EM_CL_MEM_OBJECT_ALLOCATION_FAILURE || err == EM_CL_OUT_OF_RESOURCES ||
            err == EM_CL_OUT_OF_HOST_MEMORY || err == EM_CL_INVALID_BUFFER_SIZE)
            return em_error(EM_ENOMEM,
                            "out of memory allocating %zu bytes on opencl:%d (%zu bytes in use "
                            "of %zu)",
                            size, id, p->used, in->total_memory);
        return em_cl_fail(err, "clCreateBuffer");
    }
    s->size = size, s->dev = id, s->next = NULL;
    p->held += size;
    *out = s;
    return EM_OK;
}

em_status em_cl_alloc(int id, size_t nbytes, void **ptr) {
    em__pool *p = em__pool_get(id);
    if (!p) return em_error(EM_EDEVICE, "no device opencl:%d", id);
    if (nbytes >= ((size_t)1 << EM_SLOT_SHIFT))
        return em_error(EM_ENOMEM,
                        "out of memory allocating %zu bytes on opencl:%d: a buffer "
                        "is below 1 TiB",
                        nbytes, id);
    const bool guard = em_cl_guard_on(); /* exact sizes, nothing cached (guard.c) */
    size_t size = guard ? em_cl_guard_round(nbytes) : em_block_round(nbytes);
    em_cl_dev *d;
    EM_CHECK(em_cl_open(id, &d));
    pthread_mutex_lock(&p->lock);
    em__slot *s =
        guard ? NULL : (em__slot *)(uintptr_t)em_block_take(&p->cache, size, em_cl_queue(d));
    em_status st = s ? EM_OK : em__fresh(p, id, size, &s);
    if (st == EM_OK) p->used += s->size;
    pthread_mutex_unlock(&p->lock);
    if (st == EM_OK) *ptr = em__addr(s);
    return st;
}

void em_cl_free(int id, void *ptr, size_t nbytes) {
    (void)nbytes; /* the slot knows its size */
    em__pool *p = em__pool_get(id);
    em__slot *s = em__slot_at((uint64_t)(uintptr_t)ptr >> EM_SLOT_SHIFT);
    em_cl_dev *d;
    if (!p || !s || !s->mem || em_cl_open(id, &d) != EM_OK) return;
    pthread_mutex_lock(&p->lock);
    p->used -= s->size;
    /* An exported buffer goes with Ember's reference (the other owner keeps
     * it); so does one without host memory to keep it. */
    if (s->exported || em_cl_guard_on() ||
        !em_block_keep(&p->cache, (uintptr_t)s, s->size, em_cl_queue(d))) {
        s->exported = false;
        p->held -= s->size;
        em__slot_drop(s);
    }
    pthread_mutex_unlock(&p->lock);
}

/* ---- interop: buffers shared with other OpenCL code (PyOpenCL, DLPack) ---- */

em_status em_opencl_export(const void *ptr, void **mem, size_t *offset) {
    cl_mem m = NULL;
    EM_CHECK(em_cl_ptr(ptr, &m, offset));
    em__slot *s = em__slot_at((uint64_t)(uintptr_t)ptr >> EM_SLOT_SHIFT);
    em__pool *p = em__pool_get(s->dev);
    pthread_mutex_lock(&p->lock);
    s->exported = true;
    pthread_mutex_unlock(&p->lock);
    *mem = m;
    return EM_OK;
}

em_status em_opencl_adopt(int id, void *mem, void **ptr) {
    em_cl_dev *d = NULL;
    EM_CHECK(em_cl_open(id, &d));
    cl_context ctx = NULL;
    size_t size = 0;
    cl_int err = em__cl.clGetMemObjectInfo(mem, EM_CL_MEM_CONTEXT, sizeof ctx, &ctx, NULL);
    if (!err) err = em__cl.clGetMemObjectInfo(mem, EM_CL_MEM_SIZE, sizeof size, &size, NULL);
    if (err) return em_error(EM_EVALUE, "not an OpenCL buffer (clGetMemObjectInfo: %d)", err);
    if (ctx != d->ctx)
        return em_error(EM_EVALUE, "the buffer belongs to another OpenCL context than opencl:%d's",
                        id);
    if (size >= ((size_t)1 << EM_SLOT_SHIFT))
        return em_error(EM_EVALUE, "a buffer of %zu bytes is past Ember's 1 TiB", size);
    em__slot *s = em__slot_new();
    if (!s) return em_error(EM_ENOMEM, "out of OpenCL buffer slots");
    em__cl.clRetainMemObject(mem);
    s->mem = mem, s->size = size, s->dev = id, s->next = NULL, s->exported = false;
    *ptr = em__addr(s);
    return EM_OK;
}

void em_opencl_unadopt(void *ptr) {
    em__slot *s = em__slot_at((uint64_t)(uintptr_t)ptr >> EM_SLOT_SHIFT);
    if (s && s->mem) em__slot_drop(s);
}

void em_opencl_pool_stats(int id, size_t *used, size_t *total) {
    em__pool *p = em__pool_get(id);
    *used = *total = 0;
    if (!p) return;
    pthread_mutex_lock(&p->lock);
    *used = p->used, *total = p->held;
    pthread_mutex_unlock(&p->lock);
}

void em_opencl_pool_free_all(int id) {
    em__pool *p = em__pool_get(id);
    if (!p) return;
    /* Queued kernels may still read a cached block's buffer: OpenCL keeps a
     * released buffer alive until they finish, so no wait is needed. */
    pthread_mutex_lock(&p->lock);
    em__release_cached(p);
    pthread_mutex_unlock(&p->lock);
}

void em_opencl_pool_set_limit(int id, size_t limit) {
    em__pool *p = em__pool_get(id);
    if (!p) return;
    pthread_mutex_lock(&p->lock);
    p->limit = limit;
    pthread_mutex_unlock(&p->lock);
}
