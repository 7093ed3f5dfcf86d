/* Loaded code: the in-memory cache and launching Ember's kernels.
 *
 * The cache maps (device, key) to loaded code: for Ember's kernels a
 * structural key from the renderer, naming everything the source depends
 * on (the function's name too when one source holds several kernels; the
 * device's architecture is part of the device), to a CUfunction; for raw
 * modules (module.c) their source and options to a CUmodule.  Entries live
 * for the process.
 */
#include "backend/cuda/cuda_internal.h"
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
    size_t klen;
    em_cu_code code;
    char key[]; /* NUL-terminated */
} em__kent;

static _Atomic(em__kent *) em__kc[EM_KC_BUCKETS];
static pthread_mutex_t em__kc_lock = PTHREAD_MUTEX_INITIALIZER;

const em_cu_code *em_cu_code_find(int id, const char *key, size_t klen, uint64_t hash) {
    em__kent *e = atomic_load_explicit(&em__kc[hash % EM_KC_BUCKETS], memory_order_acquire);
    uint32_t gen = em_device_generation((em_device){EM_CUDA, id});
    for (; e; e = e->next)
        if (e->hash == hash && e->dev == id && e->code.gen == gen && e->klen == klen &&
            !memcmp(e->key, key, klen))
            return &e->code;
    return NULL;
}

const em_cu_code *em_cu_code_put(int id, const char *key, size_t klen, uint64_t hash,
                                 const em_cu_code *code) {
    em__kent *e = malloc(sizeof *e + klen + 1);
    if (!e) return NULL;
    e->hash = hash, e->dev = id, e->klen = klen, e->code = *code;
    memcpy(e->key, key, klen);
    e->key[klen] = 0;
    _Atomic(em__kent *) *b = &em__kc[hash % EM_KC_BUCKETS];
    pthread_mutex_lock(&em__kc_lock);
    /* A racing duplicate is harmless: both work. */
    e->next = atomic_load_explicit(b, memory_order_relaxed);
    atomic_store_explicit(b, e, memory_order_release);
    pthread_mutex_unlock(&em__kc_lock);
    return &e->code;
}

const em_cu_kfn *em_cu_kernel_find(int id, const char *key, size_t klen, uint64_t hash) {
    const em_cu_code *c = em_cu_code_find(id, key, klen, hash);
    if (!c) return NULL;
    /* Every launch hits: logged one level above the disk cache's log. */
    if (em_debug_level() >= 3)
        fprintf(stderr, "ember: kernel cache hit (memory) '%s' key %s\n", c->k.name, key);
    return &c->k;
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
    /* The generation before building: a reset meanwhile makes the code old. */
    em_cu_code c = {.gen = em_device_generation((em_device){EM_CUDA, id})};
    CUfunction fn = NULL;
    EM_CHECK(em__build(id, name, fname, render, ctx, &c.mod, &fn));
    c.k.fn = fn;
    snprintf(c.k.name, sizeof c.k.name, "%s", name);
    const em_cu_code *e = em_cu_code_put(id, key, klen, hash, &c);
    if (!e) return em_error(EM_ENOMEM, "out of host memory for the kernel cache");
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
