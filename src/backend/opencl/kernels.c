/* The table's modules and launch: programs built through build.c, their
 * kernels, and the launch of one with an em_kargs (backend.h): each buffer
 * as its cl_mem and byte offset, then the struct of numbers, then the
 * dynamic __local memory when asked for.  The cache of loaded kernels by
 * key is above the table (codegen/run_module.c). */
#include "backend/opencl/cl_internal.h"
#include "codegen/sbuf.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* FP_CONTRACT off: OpenCL C may fuse a * b + c into an fma by default,
 * which the CPU's loops do not (fused results must equal unfused ones). */
static const char em__head[] = "#pragma OPENCL FP_CONTRACT OFF\n";
/* A device without fp64 (or EMBER_OPENCL_NO_FP64 pretending so): the
 * extension's macro goes (the prelude then leaves out its double parts) and
 * so does the type, so a kernel that still names double fails to build on
 * PoCL as it would on the device -- what tests of the fp64-less rendering
 * rely on. */
static const char em__no_fp64[] = "#undef cl_khr_fp64\n#define double em_no_fp64_on_this_device\n";

/* The table's module_build: Ember's kernels with the head above and the
 * device's options, a user's with its options instead; *mod a built
 * cl_program. */
em_status em_cl_module_build(int id, const char *src, const char *name, const em_build_opts *o,
                             void **mod, char **lowered) {
    em_cl_dev *d;
    EM_CHECK(em_cl_open(id, &d));
    if (o->nnames || lowered)
        return em_error(EM_EUNSUPPORTED, "module '%s': OpenCL has no name expressions", name);
    em_sbuf text = {0}, opts = {0};
    if (!o->raw) em_sbuf_printf(&text, "%s%s", em__head, d->info.fp64 ? "" : em__no_fp64);
    em_sbuf_printf(&text, "%s", src);
    em_sbuf_printf(&opts, "%s", o->raw ? "" : d->opts);
    for (int i = 0; i < o->nopt; i++)
        em_sbuf_printf(&opts, "%s%s", opts.len ? " " : "", o->opts[i]);
    em_status s = text.oom || opts.oom ? em_error(EM_ENOMEM, "out of host memory") : EM_OK;
    cl_program prog = NULL;
    if (s == EM_OK) s = em_cl_program(d, text.s, opts.s, name, &prog);
    em_sbuf_free(&text), em_sbuf_free(&opts);
    if (s == EM_OK) *mod = prog;
    return s;
}

/* The table's function: a cl_kernel, kept for the process with its module. */
em_status em_cl_function(int id, void *mod, const char *fname, void **fn) {
    EM_UNUSED(id);
    cl_int err = 0;
    cl_kernel k = em__cl.clCreateKernel(mod, fname, &err);
    if (err == EM_CL_INVALID_KERNEL_NAME)
        return em_error(EM_EVALUE, "the program has no kernel named '%s'", fname);
    if (!k || err != EM_CL_SUCCESS) return em_cl_fail(err, "clCreateKernel");
    *fn = k;
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

/* The table's launch (a 1-d range: Ember's templates are 1-d; args an
 * em_kargs, backend.h). */
em_status em_cl_launch(int id, void *fn, const char *name, const unsigned grid3[3],
                       const unsigned block3[3], unsigned shmem, void *stream, void *arg) {
    em_cl_dev *d;
    EM_CHECK(em_cl_open(id, &d));
    const em_device_props *p = &d->props;
    unsigned grid = grid3[0], block = block3[0];
    if (grid3[1] != 1 || grid3[2] != 1 || block3[1] != 1 || block3[2] != 1)
        return em_error(EM_EUNSUPPORTED, "kernel '%s': a launch of more than one dimension", name);
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
    cl_kernel k = fn;
    cl_command_queue q = stream == EM_STREAM_CURRENT ? em_cl_queue(d) : stream ? stream : d->queue;
    size_t global = (size_t)grid * block, local = block;
    pthread_mutex_lock(&d->launch_lock);
    em_status s = em__set_args(k, name, arg, shmem);
    cl_int err = 0;
    if (s == EM_OK)
        err = em__cl.clEnqueueNDRangeKernel(q, k, 1, NULL, &global, &local, 0, NULL, NULL);
    if (s == EM_OK && !err) d->launches++;
    if (s == EM_OK && !err) err = em_cl_link_wait(d, q, k, 1, &global, &local);
    pthread_mutex_unlock(&d->launch_lock);
    if (s == EM_OK && err) {
        char what[96];
        snprintf(what, sizeof what, "launch of kernel '%s'", name);
        s = em_cl_fail(err, what);
        if (s == EM_EDEVICE) s = em_error(EM_ELAUNCH, "%s", em_last_error());
    }
    return s;
}

uint64_t em_opencl_launch_count(int id) {
    em_cl_dev *d;
    if (em_cl_open(id, &d) != EM_OK) return 0;
    pthread_mutex_lock(&d->launch_lock);
    uint64_t n = d->launches;
    pthread_mutex_unlock(&d->launch_lock);
    return n;
}
