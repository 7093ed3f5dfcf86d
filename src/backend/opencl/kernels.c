/* Ember's own OpenCL kernels: the in-memory cache by (device, structural
 * key), built through build.c, and the launch of one with an em_kargs
 * (backend.h): each buffer as its cl_mem and byte offset, then the struct
 * of numbers, then the dynamic __local memory when asked for. */
#include "backend/opencl/cl_internal.h"
#include "codegen/sbuf.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define EM_KC_BUCKETS 1024

/* Readers walk the buckets without the lock: an entry is complete before a
 * release store publishes it and is never changed or removed. */
typedef struct em__kent {
    struct em__kent *next;
    uint64_t hash;
    int dev;
    size_t klen;
    cl_program prog;
    em_kfn k;
    char key[];
} em__kent;

static _Atomic(em__kent *) em__kc[EM_KC_BUCKETS];
static pthread_mutex_t em__kc_lock = PTHREAD_MUTEX_INITIALIZER;

const em_kfn *em_cl_kernel_find(int id, const char *key, size_t klen, uint64_t hash) {
    em__kent *e = atomic_load_explicit(&em__kc[hash % EM_KC_BUCKETS], memory_order_acquire);
    for (; e; e = e->next)
        if (e->hash == hash && e->dev == id && e->klen == klen && !memcmp(e->key, key, klen))
            return &e->k;
    return NULL;
}

/* FP_CONTRACT off: OpenCL C may fuse a * b + c into an fma by default,
 * which the CPU's loops do not (fused results must equal unfused ones). */
static const char em__head[] = "#pragma OPENCL FP_CONTRACT OFF\n";
/* A device without fp64 (or EMBER_OPENCL_NO_FP64 pretending so): the
 * extension's macro goes (the prelude then leaves out its double parts) and
 * so does the type, so a kernel that still names double fails to build on
 * PoCL as it would on the device -- what tests of the fp64-less rendering
 * rely on. */
static const char em__no_fp64[] = "#undef cl_khr_fp64\n#define double em_no_fp64_on_this_device\n";

static em_status em__build(em_cl_dev *d, const char *name, const char *fname, em_render_cb render,
                           const void *ctx, cl_program *prog, cl_kernel *kern) {
    em_sbuf src = {0};
    em_sbuf_printf(&src, "%s%s", em__head, d->info.fp64 ? "" : em__no_fp64);
    em_status s = render(ctx, &src);
    if (s == EM_EUNSUPPORTED) {
        /* A template without an OpenCL rendering yet: say which op and where. */
        char why[400];
        snprintf(why, sizeof why, "%s", em_last_error());
        em_sbuf_free(&src);
        return em_error(EM_EUNSUPPORTED, "'%s' is not implemented on OpenCL devices yet (%s: %s)",
                        name, d->info.name, why);
    }
    if (s == EM_OK && src.oom) s = em_error(EM_ENOMEM, "out of host memory rendering a kernel");
    if (s == EM_OK) s = em_cl_program(d, src.s, d->opts, name, prog);
    em_sbuf_free(&src);
    if (s != EM_OK) return s;
    cl_int err = 0;
    *kern = em__cl.clCreateKernel(*prog, fname, &err);
    if (!*kern || err != EM_CL_SUCCESS) {
        em__cl.clReleaseProgram(*prog);
        return em_cl_fail(err, "clCreateKernel");
    }
    return EM_OK;
}

em_status em_cl_kernel_get(int id, const char *key, size_t klen, uint64_t hash, const char *name,
                           const char *fname, em_render_cb render, const void *ctx,
                           const em_kfn **out) {
    if ((*out = em_cl_kernel_find(id, key, klen, hash))) return EM_OK;
    em_cl_dev *d;
    EM_CHECK(em_cl_open(id, &d));
    em__kent *e = malloc(sizeof *e + klen + 1);
    if (!e) return em_error(EM_ENOMEM, "out of host memory for the kernel cache");
    cl_kernel k = NULL;
    em_status s = em__build(d, name, fname, render, ctx, &e->prog, &k);
    if (s != EM_OK) {
        free(e);
        return s;
    }
    e->k.fn = k;
    e->hash = hash, e->dev = id, e->klen = klen;
    snprintf(e->k.name, sizeof e->k.name, "%s", name);
    memcpy(e->key, key, klen);
    e->key[klen] = 0;
    _Atomic(em__kent *) *b = &em__kc[hash % EM_KC_BUCKETS];
    pthread_mutex_lock(&em__kc_lock);
    e->next = atomic_load_explicit(b, memory_order_relaxed); /* a racing duplicate is harmless */
    atomic_store_explicit(b, e, memory_order_release);
    pthread_mutex_unlock(&em__kc_lock);
    *out = &e->k;
    return EM_OK;
}

/* Set the arguments from an em_kargs.  Launch lock held. */
static em_status em__set_args(cl_kernel k, const char *name, const em_kargs *a, unsigned shmem) {
    if (a->nbuf < 0 || a->nbuf > EM_KARGS_MAXBUF)
        return em_error(EM_EINTERNAL, "kernel '%s': %d buffers", name, a->nbuf);
    cl_uint i = 0;
    cl_int err = 0;
    for (int b = 0; b < a->nbuf && !err; b++) {
        cl_mem m;
        size_t off;
        EM_CHECK(em_cl_ptr(a->buf[b], &m, &off));
        cl_ulong o = off;
        err = em__cl.clSetKernelArg(k, i++, sizeof m, &m);
        if (!err) err = em__cl.clSetKernelArg(k, i++, sizeof o, &o);
    }
    if (!err) err = em__cl.clSetKernelArg(k, i++, a->blob_size, a->blob);
    if (!err && shmem) err = em__cl.clSetKernelArg(k, i++, shmem, NULL);
    if (err) {
        char what[96];
        snprintf(what, sizeof what, "setting argument %u of kernel '%s'", i - 1, name);
        return em_cl_fail(err, what);
    }
    return EM_OK;
}

em_status em_cl_launch(int id, const em_kfn *kf, unsigned grid, unsigned block, unsigned shmem,
                       void *arg) {
    em_cl_dev *d;
    EM_CHECK(em_cl_open(id, &d));
    const em_device_props *p = &d->props;
    const char *name = kf->name;
    if (block == 0 || block > (unsigned)p->max_threads_per_block ||
        block > (unsigned)p->max_block_dim[0])
        return em_error(EM_ELAUNCH,
                        "kernel '%s': a work-group of %u items exceeds the limit of %d on "
                        "opencl:%d",
                        name, block, p->max_threads_per_block, id);
    if (grid == 0) return em_error(EM_ELAUNCH, "kernel '%s': an empty grid", name);
    if (shmem > p->shared_memory_per_block)
        return em_error(EM_ELAUNCH,
                        "kernel '%s': %u bytes of local memory exceed the device limit of %zu",
                        name, shmem, p->shared_memory_per_block);
    cl_kernel k = kf->fn;
    size_t global = (size_t)grid * block, local = block;
    pthread_mutex_lock(&d->launch_lock);
    em_status s = em__set_args(k, name, arg, shmem);
    cl_int err = 0;
    if (s == EM_OK)
        err = em__cl.clEnqueueNDRangeKernel(em_cl_queue(d), k, 1, NULL, &global, &local, 0, NULL,
                                            NULL);
    pthread_mutex_unlock(&d->launch_lock);
    if (s == EM_OK && err) {
        char what[96];
        snprintf(what, sizeof what, "launch of kernel '%s'", name);
        s = em_cl_fail(err, what);
        if (s == EM_EDEVICE) s = em_error(EM_ELAUNCH, "%s", em_last_error());
    }
    return s;
}
