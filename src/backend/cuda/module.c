/* Modules and launches: the table's module_build (NVRTC through the disk
 * cache, then cuModuleLoadData), function and launch (3-d, checked against
 * the device's limits), used alike by Ember's kernels, expression kernels,
 * @em.jit and raw modules.  The cache of loaded modules by key and the
 * raw-module API's bookkeeping are above the table (codegen/run_module.c).
 */
#include "backend/cuda/cuda_internal.h"

#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum {
    EM_CU_ERROR_INVALID_VALUE = 1,
    EM_CU_ERROR_NOT_FOUND = 500,
    EM_CU_ERROR_LAUNCH_OUT_OF_RESOURCES = 701,
    EM_CU_ATTR_SHARED_OPTIN = 97,      /* CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN */
    EM_CU_FUNC_MAX_THREADS = 0,        /* CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK */
    EM_CU_FUNC_SHARED_SIZE = 1,        /* CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES (static) */
    EM_CU_FUNC_MAX_DYNAMIC_SHARED = 8, /* CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES */
};

/* The table's module_build: NVRTC (or the disk cache), then loaded into
 * cuda:id.  Ember's own kernels get its extra options (compile.c:
 * em_cuda_compile); a raw module the user's. */
em_status em_cu_module_build(int id, const char *src, const char *name, const em_build_opts *o,
                             void **mod, char **lowered) {
    const em_device_props *pr;
    EM_CHECK(em_cu_props(id, &pr));
    int arch = pr->compute_capability[0] * 10 + pr->compute_capability[1];
    void *cubin = NULL;
    size_t n = 0;
    char *low = NULL;
    em_status s = o->raw ? em_cuda_compile_ex(src, arch, name, o->opts, o->nopt, o->nnames,
                                              o->names, &cubin, &n, &low)
                         : em_cuda_compile(src, arch, name, &cubin, &n);
    if (s == EM_OK) s = em_cu_ctx(id);
    if (s == EM_OK) {
        CUmodule m;
        CUresult r = em__cu.cuModuleLoadData(&m, cubin);
        if (r != EM_CU_SUCCESS)
            s = em_cu_fail(r, "loading the compiled module '%s'", name);
        else
            *mod = m;
    }
    free(cubin);
    if (s == EM_OK && lowered)
        *lowered = low;
    else
        free(low); /* set only when compiling succeeded */
    return s;
}

em_status em_cu_function(int id, void *mod, const char *name, void **fn) {
    EM_CHECK(em_cu_ctx(id));
    CUfunction f;
    CUresult r = em__cu.cuModuleGetFunction(&f, mod, name);
    if (r == EM_CU_ERROR_NOT_FOUND)
        return em_error(EM_EVALUE,
                        "the module has no kernel named '%s' (a kernel is found by its "
                        "extern \"C\" name; C++ names are mangled)",
                        name);
    if (r != EM_CU_SUCCESS) return em_cu_fail(r, "cuModuleGetFunction");
    *fn = f;
    return EM_OK;
}

em_status em_cuda_func_attribute(int dev, void *fn, int attr, int *value) {
    if (!fn || !value) return em_error(EM_EVALUE, "em_cuda_func_attribute: NULL argument");
    EM_CHECK(em_cu_ctx(dev));
    int v;
    EM_CU(em__cu.cuFuncGetAttribute(&v, attr, fn), "cuFuncGetAttribute");
    *value = v;
    return EM_OK;
}

/* The device's opt-in limit of dynamic shared memory per block (queried
 * once; -1 when the device has none beyond the default, 0 not asked yet). */
static _Atomic int em__optin[EM_CU_MAXDEV];

/* Dynamic shared memory past the default against the device's opt-in limit
 * (EM_ELAUNCH); grid and block are checked above the table
 * (codegen/run_module.c), by every launch that reaches this one. */
static em_status em__check_shared(int dev, const em_device_props *p, const char *name,
                                  unsigned shmem) {
    int v = atomic_load_explicit(&em__optin[dev], memory_order_relaxed);
    if (!v) {
        CUdevice d;
        EM_CU(em__cu.cuDeviceGet(&d, dev), "cuDeviceGet");
        EM_CU(em__cu.cuDeviceGetAttribute(&v, EM_CU_ATTR_SHARED_OPTIN, d), "cuDeviceGetAttribute");
        if (v <= 0) v = -1;
        atomic_store_explicit(&em__optin[dev], v, memory_order_relaxed);
    }
    size_t optin = v > 0 ? (size_t)v : 0;
    size_t limit = optin > p->shared_memory_per_block ? optin : p->shared_memory_per_block;
    if (shmem > limit)
        return em_error(EM_ELAUNCH,
                        "kernel '%s': %u bytes of dynamic shared memory exceed the "
                        "device limit of %zu bytes per block",
                        name, shmem, limit);
    return EM_OK;
}

/* Above the default 48 KiB a kernel must opt in to its dynamic shared
 * memory; done here so that callers need not know. */
static em_status em__optin_shared(void *fn, const char *name, unsigned shmem) {
    int cur = 0;
    EM_CU(em__cu.cuFuncGetAttribute(&cur, EM_CU_FUNC_MAX_DYNAMIC_SHARED, fn), "cuFuncGetAttribute");
    if ((unsigned)cur >= shmem) return EM_OK;
    CUresult r = em__cu.cuFuncSetAttribute(fn, EM_CU_FUNC_MAX_DYNAMIC_SHARED, (int)shmem);
    if (r != EM_CU_SUCCESS) {
        int stat = 0;
        em__cu.cuFuncGetAttribute(&stat, EM_CU_FUNC_SHARED_SIZE, fn);
        return em_error(EM_ELAUNCH,
                        "kernel '%s': %u bytes of dynamic shared memory plus its %d "
                        "bytes of static shared memory exceed the device limit",
                        name, shmem, stat);
    }
    return EM_OK;
}

/* A launch the driver refused: say why when the kernel's own limits
 * (registers make its threads-per-block limit lower than the device's)
 * explain it. */
static em_status em__launch_failed(CUresult r, void *fn, const char *name,
                                   const unsigned block[3]) {
    int maxt = 0;
    unsigned threads = block[0] * block[1] * block[2];
    if ((r == EM_CU_ERROR_INVALID_VALUE || r == EM_CU_ERROR_LAUNCH_OUT_OF_RESOURCES) &&
        em__cu.cuFuncGetAttribute(&maxt, EM_CU_FUNC_MAX_THREADS, fn) == EM_CU_SUCCESS && maxt > 0 &&
        threads > (unsigned)maxt)
        return em_error(EM_ELAUNCH,
                        "kernel '%s': a block of %u threads exceeds this kernel's limit "
                        "of %d threads per block (set by its register use)",
                        name, threads, maxt);
    em_cu_last_kernel[0] = 0; /* a refused launch is not a fault of an earlier kernel */
    em_status s = em_cu_fail(r, "launch of kernel '%s'", name);
    return s == EM_EDEVICE ? em_error(EM_ELAUNCH, "%s", em_last_error()) : s;
}

/* The table's launch, for Ember's kernels and raw ones alike (their grid
 * and block checked by the caller above the table). */
em_status em_cu_launch(int dev, void *fn, const char *name, const unsigned grid[3],
                       const unsigned block[3], unsigned shmem, void *stream, void *params) {
    const em_device_props *p; /* no lock once the device is open (device.c) */
    EM_CHECK(em_cu_props(dev, &p));
    if (shmem > p->shared_memory_per_block) EM_CHECK(em__check_shared(dev, p, name, shmem));
    EM_CHECK(em_cu_ctx(dev));
    if (shmem > p->shared_memory_per_block) EM_CHECK(em__optin_shared(fn, name, shmem));
    /* Ember queues its own work (the arguments' values) on the current
     * stream: a launch on another stream starts after what is queued there
     * (a non-blocking stream does not wait for the legacy one by itself;
     * the H100 read a fresh em.ones() array as garbage). */
    if (stream == EM_STREAM_CURRENT)
        stream = em_cu_stream(); /* Ember's own kernels */
    else if (stream != em_cu_stream())
        EM_CHECK(em_cu_order(dev, stream, em_cu_stream()));
    CUresult r = em__cu.cuLaunchKernel(fn, grid[0], grid[1], grid[2], block[0], block[1], block[2],
                                       shmem, stream, params, NULL);
    if (r != EM_CU_SUCCESS) return em__launch_failed(r, fn, name, block);
    em_cu_note_kernel(name);
    return EM_OK;
}
