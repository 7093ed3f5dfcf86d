/* Loaded code above the backend table, once for every backend that builds:
 * the in-memory cache of modules by key, Ember's kernels (rendered, built,
 * looked up) and the raw-module API's bookkeeping (keys, argument checks),
 * over the table's module_build / function / launch (backend.h).
 *
 * The cache maps (backend, device, key) to loaded code: for Ember's kernels
 * a structural key from a renderer, naming everything the source depends
 * on (the function's name too when one source holds several kernels; the
 * device's architecture is part of the device), to a module and function;
 * for raw modules their source, options and name expressions to a module.
 * Entries live for the process, so handles given out stay valid.  Each
 * entry keeps the device's generation (em_device_generation) from before it
 * was built: after a reset the old context's code is never found.
 */
#include "codegen/diskcache.h"
#include "codegen/render.h"
#include "codegen/run.h"
#include "codegen/sbuf.h"
#include "core/core.h"
#include "ember/cuda.h"
#include "ember/opencl.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define EM_MC_BUCKETS 1024

/* Readers walk the buckets without the lock: an entry is complete before a
 * release store publishes it, its fields never change, and entries are
 * never removed. */
typedef struct em__ment {
    struct em__ment *next;
    uint64_t hash;
    const em_backend *be;
    int dev;
    uint32_t gen;
    size_t klen;
    void *mod;
    em_kfn k;      /* Ember's kernels: the function */
    char *lowered; /* raw modules: the lowered names of the name expressions */
    char key[];    /* NUL-terminated */
} em__ment;

static _Atomic(em__ment *) em__mc[EM_MC_BUCKETS];
static pthread_mutex_t em__mc_lock = PTHREAD_MUTEX_INITIALIZER;

static const em__ment *em__find(const em_backend *be, int id, const char *key, size_t klen,
                                uint64_t hash) {
    em__ment *e = atomic_load_explicit(&em__mc[hash % EM_MC_BUCKETS], memory_order_acquire);
    uint32_t gen = em_device_generation((em_device){be->kind, id});
    for (; e; e = e->next)
        if (e->hash == hash && e->be == be && e->dev == id && e->gen == gen && e->klen == klen &&
            !memcmp(e->key, key, klen))
            return e;
    return NULL;
}

/* Publish v (its key filled in here) for the process; NULL without memory. */
static const em__ment *em__put(const em__ment *v, const char *key, size_t klen) {
    em__ment *e = malloc(sizeof *e + klen + 1);
    if (!e) return NULL;
    *e = *v;
    e->klen = klen;
    memcpy(e->key, key, klen);
    e->key[klen] = 0;
    _Atomic(em__ment *) *b = &em__mc[e->hash % EM_MC_BUCKETS];
    pthread_mutex_lock(&em__mc_lock);
    /* A racing duplicate is harmless: both work. */
    e->next = atomic_load_explicit(b, memory_order_relaxed);
    atomic_store_explicit(b, e, memory_order_release);
    pthread_mutex_unlock(&em__mc_lock);
    return e;
}

const em_kfn *em_run_find(const em_backend *be, int id, const char *key, size_t klen,
                          uint64_t hash) {
    const em__ment *e = em__find(be, id, key, klen, hash);
    if (!e) return NULL;
    /* Every launch hits: logged one level above the disk cache's log. */
    if (em_debug_level() >= 3)
        fprintf(stderr, "ember: kernel cache hit (memory) '%s' key %s\n", e->k.name, key);
    return &e->k;
}

em_status em_run_get(const em_backend *be, int id, const char *key, size_t klen, uint64_t hash,
                     const char *name, const char *fname, em_render_cb render, const void *ctx,
                     const em_kfn **out) {
    if ((*out = em_run_find(be, id, key, klen, hash))) return EM_OK;
    if (!be->module_build)
        return em_error(EM_EUNSUPPORTED, "the %s backend compiles no kernels", be->name);
    if (em_debug_level() >= 2)
        fprintf(stderr, "ember: kernel cache miss (memory) '%s' key %s\n", name, key);
    /* The generation before building: a reset meanwhile makes the code old. */
    em__ment v = {.hash = hash, .be = be, .dev = id};
    v.gen = em_device_generation((em_device){be->kind, id});
    em_sbuf src = {0};
    em_status s = render(ctx, &src);
    if (s == EM_EUNSUPPORTED) {
        /* A template without a rendering in this dialect: say which op and where. */
        char why[400];
        snprintf(why, sizeof why, "%s", em_last_error());
        s = em_error(EM_EUNSUPPORTED, "'%s' is not implemented on %s devices yet (%s)", name,
                     be->kind == EM_OPENCL ? "OpenCL" : be->name, why);
    }
    if (s == EM_OK && src.oom) s = em_error(EM_ENOMEM, "out of host memory rendering a kernel");
    const em_build_opts own = {0};
    if (s == EM_OK) s = be->module_build(id, src.s, name, &own, &v.mod, NULL);
    em_sbuf_free(&src);
    if (s == EM_OK) s = be->function(id, v.mod, fname, &v.k.fn);
    EM_CHECK(s);
    snprintf(v.k.name, sizeof v.k.name, "%s", name);
    const em__ment *e = em__put(&v, key, klen);
    if (!e) return em_error(EM_ENOMEM, "out of host memory for the kernel cache");
    *out = &e->k;
    return EM_OK;
}

/* A launch's grid and block against the device's limits (EM_ELAUNCH saying
 * which), once for every backend, before every launch that passes here:
 * Ember's kernels, and raw CUDA kernels and @em.jit's (em_cuda_launch).
 * The runtime checks what only it knows (CUDA: dynamic shared memory past
 * the default, which a kernel may opt in to). */
static em_status em__check_launch(const em_backend *be, int dev, const char *name,
                                  const unsigned grid[3], const unsigned block[3]) {
    static const char axis[3] = {'x', 'y', 'z'};
    const em_device_props *p; /* no lock once the device is open */
    EM_CHECK(be->props_ref(dev, &p));
    for (int i = 0; i < 3; i++) {
        if (grid[i] == 0 || grid[i] > (unsigned)p->max_grid_dim[i])
            return em_error(EM_ELAUNCH,
                            "kernel '%s': grid.%c = %u is outside the device limit 1..%d", name,
                            axis[i], grid[i], p->max_grid_dim[i]);
        if (block[i] == 0 || block[i] > (unsigned)p->max_block_dim[i])
            return em_error(EM_ELAUNCH,
                            "kernel '%s': block.%c = %u is outside the device limit 1..%d", name,
                            axis[i], block[i], p->max_block_dim[i]);
    }
    uint64_t threads = (uint64_t)block[0] * block[1] * block[2];
    if (threads > (uint64_t)p->max_threads_per_block)
        return em_error(EM_ELAUNCH,
                        "kernel '%s': a block of %u x %u x %u = %llu threads exceeds the "
                        "device limit of %d threads per block",
                        name, block[0], block[1], block[2], (unsigned long long)threads,
                        p->max_threads_per_block);
    return EM_OK;
}

em_status em_run_launch1(const em_backend *be, int id, const em_kfn *k, unsigned grid,
                         unsigned block, unsigned shmem, void *arg, bool kargs) {
    const unsigned g[3] = {grid, 1, 1}, b[3] = {block, 1, 1};
    void *params[1] = {arg}; /* a dialect with args_struct: the one struct argument */
    EM_CHECK(em__check_launch(be, id, k->name, g, b));
    return be->launch(id, k->fn, k->name, g, b, shmem, EM_STREAM_CURRENT, kargs ? arg : params);
}

/* ---- raw modules ---- */

static em_status em__check_list(const char *name, const char *what, const char *const *v, int n) {
    if (n < 0 || (n && !v)) return em_error(EM_EVALUE, "module '%s': bad %s list", name, what);
    for (int i = 0; i < n; i++)
        if (!v[i]) return em_error(EM_EVALUE, "module '%s': %s %d is NULL", name, what, i);
    return EM_OK;
}

/* The cache key: \002 (no renderer key begins with it), each option, a
 * \001 separator, each name expression, then the source, each followed
 * by a NUL. */
static char *em__mkey(const char *src, const em_build_opts *o, size_t *len) {
    em_sbuf k = {0};
    em_sbuf_putc(&k, '\002');
    for (int i = 0; i < o->nopt; i++) em_sbuf_put(&k, o->opts[i], strlen(o->opts[i]) + 1);
    em_sbuf_put(&k, "\001", 2);
    for (int i = 0; i < o->nnames; i++) em_sbuf_put(&k, o->names[i], strlen(o->names[i]) + 1);
    em_sbuf_put(&k, src, strlen(src) + 1);
    if (k.oom) {
        em_sbuf_free(&k);
        return NULL;
    }
    *len = k.len;
    return k.s;
}

em_status em_run_module(em_device dev, const char *src, const em_build_opts *o, const char *name,
                        void **module, const char **lowered) {
    if (!name) name = "raw module";
    if (!src || !module || !o || (o->nnames && !lowered))
        return em_error(EM_EVALUE, "module '%s': NULL source or result pointer", name);
    EM_CHECK(em__check_list(name, "compiler option", o->opts, o->nopt));
    EM_CHECK(em__check_list(name, "name expression", o->names, o->nnames));
    const em_backend *be;
    EM_CHECK(em__backend_for(dev, &be));
    if (!be->module_build)
        return em_error(EM_EUNSUPPORTED, "the %s backend compiles no modules", be->name);
    size_t len = 0;
    char *key = em__mkey(src, o, &len);
    if (!key) return em_error(EM_ENOMEM, "out of host memory for the module cache");
    uint64_t h = em_fnv1a(EM_FNV_BASIS, key, len);
    em_status s = EM_OK;
    const em__ment *c = em__find(be, dev.id, key, len, h);
    if (c && em_debug_level() >= 2)
        fprintf(stderr, "ember: module cache hit (memory) for '%s' on %s:%d\n", name, be->name,
                dev.id);
    if (!c) {
        /* The generation before building: a reset meanwhile makes it old. */
        em__ment v = {.hash = h, .be = be, .dev = dev.id};
        v.gen = em_device_generation(dev);
        s = be->module_build(dev.id, src, name, o, &v.mod, o->nnames ? &v.lowered : NULL);
        if (s == EM_OK && !(c = em__put(&v, key, len))) {
            free(v.lowered); /* the module stays loaded: no memory to keep it */
            s = em_error(EM_ENOMEM, "out of host memory for the module cache");
        }
    }
    free(key);
    if (s == EM_OK) {
        *module = c->mod;
        if (o->nnames) *lowered = c->lowered;
    }
    return s;
}

/* ---- ember/cuda.h's raw-module entry points, over the above ---- */

em_status em_cuda_module_load_ex(int dev, const char *src, const char *const *opts, int nopt,
                                 const char *const *names, int nnames, const char *name,
                                 void **module, const char **lowered) {
    const em_build_opts o = {
        .raw = true, .nopt = nopt, .opts = opts, .nnames = nnames, .names = names};
    return em_run_module((em_device){EM_CUDA, dev}, src, &o, name, module, lowered);
}

em_status em_cuda_module_load(int dev, const char *src, const char *const *opts, int nopt,
                              const char *name, void **module) {
    return em_cuda_module_load_ex(dev, src, opts, nopt, NULL, 0, name, module, NULL);
}

em_status em_cuda_module_function(int dev, void *module, const char *name, void **fn) {
    if (!module || !name || !fn)
        return em_error(EM_EVALUE, "em_cuda_module_function: NULL argument");
    const em_backend *be;
    EM_CHECK(em__backend_for((em_device){EM_CUDA, dev}, &be));
    return be->function(dev, module, name, fn);
}

em_status em_cuda_launch(int dev, void *fn, const char *name, const unsigned grid[3],
                         const unsigned block[3], unsigned shmem, void *stream, void **params) {
    if (!name) name = "raw kernel";
    if (!fn || !grid || !block)
        return em_error(EM_EVALUE, "kernel '%s': NULL function or configuration", name);
    /* The launch path of every raw kernel: the table's, without a device
     * count (the caller has launched on the device before, or gets the
     * device's own error from props). */
    const em_backend *be = &em_cuda_backend;
    EM_CHECK(em__check_launch(be, dev, name, grid, block));
    return be->launch(dev, fn, name, grid, block, shmem, stream, params);
}

/* ---- ember/opencl.h's raw programs: options are one string there ---- */

em_status em_opencl_program_build(int id, const char *src, const char *options, void **program) {
    if (!src || !program) return em_error(EM_EVALUE, "em_opencl_program_build: NULL argument");
    const char *opts[1] = {options};
    const em_build_opts o = {.raw = true, .nopt = options && *options, .opts = opts};
    return em_run_module((em_device){EM_OPENCL, id}, src, &o, "raw program", program, NULL);
}
