/* Raw OpenCL C programs from the user (em.opencl.Program, RawKernel with
 * backend="opencl"): their kernels, launched over 1 to 3 dimensions with
 * the arguments the Python side packed.  Building one (through the disk
 * cache, kept in memory by device, options and source) is the table's
 * module_build under codegen/run_module.c's cache (em_opencl_program_build
 * is there). */
#include "backend/opencl/cl_internal.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

em_status em_opencl_kernel_create(int id, void *program, const char *name, void **kernel) {
    if (!program || !name || !kernel) return em_error(EM_EVALUE, "NULL program or kernel name");
    em_cl_dev *d;
    EM_CHECK(em_cl_open(id, &d));
    cl_int err = 0;
    cl_kernel k = em__cl.clCreateKernel(program, name, &err);
    if (err == EM_CL_INVALID_KERNEL_NAME || (!k && !err))
        return em_error(EM_EVALUE, "the program has no kernel named '%s'", name);
    if (!k || err) return em_cl_fail(err, "clCreateKernel");
    *kernel = k;
    return EM_OK;
}

void em_opencl_kernel_release(void *kernel) {
    if (!kernel) return;
    em_cl_link_forget();
    em__cl.clReleaseKernel(kernel);
}

em_status em_opencl_kernel_nargs(void *kernel, int *nargs) {
    cl_uint n = 0;
    cl_int err = em__cl.clGetKernelInfo(kernel, EM_CL_KERNEL_NUM_ARGS, sizeof n, &n, NULL);
    if (err) return em_cl_fail(err, "clGetKernelInfo");
    *nargs = (int)n;
    return EM_OK;
}

/* The most work-groups one launch may have (EM_CL_MAX_GROUPS - 1): PoCL's
 * CPU scheduler numbers a launch's work-groups in 32-bit unsigned ints
 * (pthread_scheduler.c, get_wg_index_range) and aborts the whole process
 * on an assertion past that, with no error to return; CUDA's grid, under
 * NVIDIA's OpenCL, stops at 2^31 - 1 blocks in x.  One bound for every
 * device rather than one per platform: 2^32 groups of 256 items are 2^40
 * work-items, more elements than any device holds at one per item.
 * Without a local size the implementation picks the work-group size,
 * possibly 1 (a prime global size), so then the work-items are bounded. */
#define EM_CL_MAX_GROUPS ((uint64_t)1 << 32)

/* "(a, b, c)" of ndim sizes, cut short if it does not fit. */
static void em__sizes_text(char *out, size_t cap, int ndim, const size_t *v) {
    size_t len = 0;
    for (int i = 0; i < ndim && len < cap; i++) {
        int n = snprintf(out + len, cap - len, "%s%zu", i ? ", " : "(", v[i]);
        if (n < 0) break;
        len += (size_t)n;
    }
    if (len < cap) snprintf(out + len, cap - len, ")");
}

/* The global sizes against that bound, before the implementation sees
 * them (a ValueError naming what was given and what is allowed). */
static em_status em__check_global(int id, const char *name, int ndim, const size_t *global,
                                  const size_t *local) {
    uint64_t groups = 1, items = 1; /* saturating at UINT64_MAX */
    for (int i = 0; i < ndim; i++) {
        uint64_t g = global[i], n = local ? g / local[i] + (g % local[i] != 0) : g;
        if (g == 0) return EM_OK; /* nothing runs, whatever the other sizes */
        groups = groups > UINT64_MAX / n ? UINT64_MAX : groups * n;
        items = items > UINT64_MAX / g ? UINT64_MAX : items * g;
    }
    if (groups < EM_CL_MAX_GROUPS) return EM_OK;
    char gs[80], ls[80];
    em__sizes_text(gs, sizeof gs, ndim, global);
    const unsigned long long most = EM_CL_MAX_GROUPS - 1;
    if (!local)
        return em_error(EM_EVALUE,
                        "kernel '%s': global size %s is %s%llu work-items; without a local "
                        "size a launch on opencl:%d may have at most %llu (2^32 - 1): give a "
                        "local size, or launch in parts",
                        name, gs, items == UINT64_MAX ? "over " : "", (unsigned long long)items, id,
                        most);
    em__sizes_text(ls, sizeof ls, ndim, local);
    return em_error(EM_EVALUE,
                    "kernel '%s': global size %s with local size %s is %s%llu work-groups; a "
                    "launch on opencl:%d may have at most %llu (2^32 - 1): launch in parts",
                    name, gs, ls, groups == UINT64_MAX ? "over " : "", (unsigned long long)groups,
                    id, most);
}

/* Sizes against the device's limits (as CUDA's launch checks grid/block). */
static em_status em__check(em_cl_dev *d, int id, void *k, const char *name, int ndim,
                           const size_t *global, const size_t *local) {
    if (ndim < 1 || ndim > 3)
        return em_error(EM_ELAUNCH, "kernel '%s': %d dimensions (1 to 3 are allowed)", name, ndim);
    if (!local) return em__check_global(id, name, ndim, global, NULL);
    size_t items = 1, kmax = 0;
    for (int i = 0; i < ndim; i++) {
        if (local[i] == 0 || local[i] > (size_t)d->props.max_block_dim[i])
            return em_error(EM_ELAUNCH,
                            "kernel '%s': local size %zu in dimension %d is outside the "
                            "device limit 1..%d on opencl:%d",
                            name, local[i], i, d->props.max_block_dim[i], id);
        if (global[i] % local[i])
            return em_error(EM_ELAUNCH,
                            "kernel '%s': global size %zu in dimension %d is not a multiple of "
                            "the local size %zu (OpenCL 1.2)",
                            name, global[i], i, local[i]);
        items *= local[i];
    }
    EM_CHECK(em__check_global(id, name, ndim, global, local));
    em__cl.clGetKernelWorkGroupInfo(k, d->dev, EM_CL_KERNEL_WORK_GROUP_SIZE, sizeof kmax, &kmax,
                                    NULL);
    size_t lim = kmax ? kmax : d->info.max_work_group_size;
    if (items > lim)
        return em_error(EM_ELAUNCH,
                        "kernel '%s': a work-group of %zu items exceeds the limit of %zu on "
                        "opencl:%d",
                        name, items, lim, id);
    return EM_OK;
}

em_status em_opencl_launch_raw(int id, void *kernel, const char *name, int ndim,
                               const size_t *global, const size_t *local, int nargs,
                               const em_clarg *args) {
    if (!name) name = "raw kernel";
    if (!kernel || !global || (nargs && !args))
        return em_error(EM_EVALUE, "kernel '%s': NULL kernel, sizes or arguments", name);
    em_cl_dev *d;
    EM_CHECK(em_cl_open(id, &d));
    EM_CHECK(em__check(d, id, kernel, name, ndim, global, local));
    for (int i = 0; i < ndim; i++)
        if (global[i] == 0) return EM_OK; /* nothing to run, as PyOpenCL */
    pthread_mutex_lock(&d->launch_lock);
    em_status s = EM_OK;
    cl_int err = 0;
    for (int i = 0; i < nargs && s == EM_OK && !err; i++) {
        const em_clarg *a = &args[i];
        if (a->kind == EM_CLARG_BUFFER) {
            cl_mem m = NULL;
            size_t off = 0;
            s = em_cl_ptr(a->value, &m, &off);
            if (s == EM_OK && off)
                s = em_error(EM_EVALUE,
                             "kernel '%s': argument %d is a view at byte offset %zu into its "
                             "buffer; an OpenCL kernel gets whole buffers (pass a copy, or "
                             "the base array and the offset)",
                             name, i, off);
            if (s == EM_OK) err = em__cl.clSetKernelArg(kernel, (cl_uint)i, sizeof m, &m);
        } else if (a->kind == EM_CLARG_LOCAL) {
            err = em__cl.clSetKernelArg(kernel, (cl_uint)i, a->size, NULL);
        } else {
            err = em__cl.clSetKernelArg(kernel, (cl_uint)i, a->size, a->value);
        }
        if (err && s == EM_OK) {
            char what[128];
            snprintf(what, sizeof what, "argument %d of kernel '%s' (%zu bytes)", i, name, a->size);
            s = em_cl_fail(err, what);
            if (s == EM_EDEVICE) s = em_error(EM_EVALUE, "%s", em_last_error());
        }
    }
    if (s == EM_OK) {
        cl_command_queue q = em_cl_queue(d);
        err = em__cl.clEnqueueNDRangeKernel(q, kernel, (cl_uint)ndim, NULL, global, local, 0, NULL,
                                            NULL);
        if (!err) err = em_cl_link_wait(d, q, kernel, (cl_uint)ndim, global, local);
        if (err) {
            char what[96];
            snprintf(what, sizeof what, "launch of kernel '%s'", name);
            s = em_cl_fail(err, what);
            if (s == EM_EDEVICE) s = em_error(EM_ELAUNCH, "%s", em_last_error());
        }
    }
    pthread_mutex_unlock(&d->launch_lock);
    return s;
}
