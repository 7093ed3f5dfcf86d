/* Loaded kernels: the in-memory cache and launching.
 *
 * The cache maps (device, structural key) to a CUfunction; the key includes
 * the function's name when one source holds several kernels.  Keys come from
 * the renderer and name everything the source depends on; the device's
 * architecture is part of the device.  Entries live for the process.
 */
#include "backend/cuda/cuda_internal.h"
#include "codegen/diskcache.h"
#include "codegen/sbuf.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define EM_KC_BUCKETS 1024

/* Readers walk the buckets without the lock: an entry is complete before a
 * release store publishes it, its fields never change, and entries are
 * never removed. */
typedef struct em__kent {
    struct em__kent *next;
    uint64_t hash;
    int dev;
    uint32_t gen; /* the device's generation when loaded: older ones are never found */
    size_t klen;
    CUmodule mod;
    em_cu_kfn k;
    char key[]; /* NUL-terminated */
} em__kent;

static _Atomic(em__kent *) em__kc[EM_KC_BUCKETS];
static pthread_mutex_t em__kc_lock = PTHREAD_MUTEX_INITIALIZER;

const em_cu_kfn *em_cu_kernel_find(int id, const char *key, size_t klen, uint64_t hash) {
    em__kent *e = atomic_load_explicit(&em__kc[hash % EM_KC_BUCKETS], memory_order_acquire);
    em_device dev = {EM_CUDA, id};
    uint32_t gen = em_device_generation(dev);
    for (; e; e = e->next)
        if (e->hash == hash && e->dev == id && e->gen == gen && e->klen == klen &&
            !memcmp(e->key, key, klen)) {
            /* Every launch hits: logged one level above the disk cache's log. */
            if (em_debug_level() >= 3)
                fprintf(stderr, "ember: kernel cache hit (memory) '%s' key %s\n", e->k.name, key);
            return &e->k;
        }
    return NULL;
}

/* Render, compile (or read the disk cache) and load into device id. */
static em_status em__build(int id, const char *name, const char *fname, em_cu_render_fn render,
                           const void *ctx, CUmodule *mod, CUfunction *fn) {
    const em_device_props *pr;
    EM_CHECK(em_cu_props(id, &pr));
    em_sbuf src = {0};
    void *cubin = NULL;
    size_t n = 0;
    int arch = pr->compute_capability[0] * 10 + pr->compute_capability[1];
    em_status s = render(ctx, &src);
    if (s == EM_OK) s = em_cuda_compile(src.s, arch, name, &cubin, &n);
    em_sbuf_free(&src);
    if (s == EM_OK) s = em_cu_ctx(id);
    if (s == EM_OK) {
        CUresult r = em__cu.cuModuleLoadData(mod, cubin);
        if (r == EM_CU_SUCCESS) r = em__cu.cuModuleGetFunction(fn, *mod, fname);
        if (r != EM_CU_SUCCESS) s = em_cu_fail(r, "loading a compiled kernel");
    }
    free(cubin);
    return s;
}

em_status em_cu_kernel_get(int id, const char *key, size_t klen, uint64_t hash, const char *name,
                           const char *fname, em_cu_render_fn render, const void *ctx,
                           const em_cu_kfn **out) {
    if ((*out = em_cu_kernel_find(id, key, klen, hash))) return EM_OK;
    if (em_debug_level() >= 2)
        fprintf(stderr, "ember: kernel cache miss (memory) '%s' key %s\n", name, key);
    em__kent *e = malloc(sizeof *e + klen + 1);
    if (!e) return em_error(EM_ENOMEM, "out of host memory for the kernel cache");
    CUfunction fn = NULL;
    em_device dev = {EM_CUDA, id};
    e->gen = em_device_generation(dev); /* before building: a reset meanwhile makes it old */
    em_status s = em__build(id, name, fname, render, ctx, &e->mod, &fn);
    e->k.fn = fn;
    if (s != EM_OK) {
        free(e);
        return s;
    }
    e->hash = hash, e->dev = id, e->klen = klen;
    snprintf(e->k.name, sizeof e->k.name, "%s", name);
    memcpy(e->key, key, klen);
    e->key[klen] = 0;
    _Atomic(em__kent *) *b = &em__kc[hash % EM_KC_BUCKETS];
    pthread_mutex_lock(&em__kc_lock);
    e->next = atomic_load_explicit(
        b, memory_order_relaxed); /* a racing duplicate is harmless: both work */
    atomic_store_explicit(b, e, memory_order_release);
    pthread_mutex_unlock(&em__kc_lock);
    *out = &e->k;
    return EM_OK;
}

em_status em_cu_launch(int id, CUfunction f, const char *name, unsigned grid, unsigned block,
                       unsigned shmem, void *arg) {
    const em_device_props *p;
    EM_CHECK(em_cu_props(id, &p));
    if (block == 0 || block > (unsigned)p->max_threads_per_block ||
        block > (unsigned)p->max_block_dim[0])
        return em_error(EM_ELAUNCH,
                        "kernel '%s': block of %u threads exceeds the device limit of %d "
                        "threads per block",
                        name, block, p->max_threads_per_block);
    if (grid == 0 || grid > (unsigned)p->max_grid_dim[0])
        return em_error(EM_ELAUNCH,
                        "kernel '%s': grid of %u blocks is outside the device limit 1..%d", name,
                        grid, p->max_grid_dim[0]);
    if (shmem > p->shared_memory_per_block)
        return em_error(EM_ELAUNCH,
                        "kernel '%s': %u bytes of shared memory exceed the device limit "
                        "of %zu per block",
                        name, shmem, p->shared_memory_per_block);
    EM_CHECK(em_cu_ctx(id));
    em_cu_note_kernel(name);
    void *params[] = {arg};
    CUresult r =
        em__cu.cuLaunchKernel(f, grid, 1, 1, block, 1, 1, shmem, em_cu_stream(), params, NULL);
    if (r != EM_CU_SUCCESS) {
        char what[96];
        snprintf(what, sizeof what, "launch of kernel '%s'", name);
        em_status s = em_cu_fail(r, what);
        return s == EM_EDEVICE ? em_error(EM_ELAUNCH, "%s", em_last_error()) : s;
    }
    return EM_OK;
}
