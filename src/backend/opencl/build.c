/* OpenCL program builds through the disk cache.  The key covers the source,
 * the options, the device (name, vendor), its driver and OpenCL versions,
 * PoCL's extra build flags and Ember's version; the entry is the device
 * binary, which a later process gives clCreateProgramWithBinary (and still
 * builds: OpenCL wants it, but a binary builds in milliseconds where PoCL's
 * LLVM takes about a second from source); the lookup, store and log are
 * codegen/diskcache_compile.c's, shared with NVRTC.  A failure is
 * EM_ECOMPILE with the build log and the source after the prelude, numbered
 * as the compiler counts it (em_compile_error, as NVRTC's). */
#include "backend/opencl/cl_internal.h"
#include "codegen/diskcache.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static char *em__log(em_cl_dev *d, cl_program p) {
    size_t n = 0;
    em__cl.clGetProgramBuildInfo(p, d->dev, EM_CL_PROGRAM_BUILD_LOG, 0, NULL, &n);
    char *text = malloc(n + 1);
    if (!text) return NULL;
    text[0] = 0;
    em__cl.clGetProgramBuildInfo(p, d->dev, EM_CL_PROGRAM_BUILD_LOG, n, text, NULL);
    text[n] = 0;
    return text;
}

static em_status em__compile_error(em_cl_dev *d, const char *name, const char *src,
                                   const char *log) {
    char head[400];
    snprintf(head, sizeof head, "OpenCL could not build kernel '%s' for %s:", name, d->info.name);
    return em_compile_error(head, log && log[0] ? log : "(no build log)", src);
}

/* The built program's binary, malloc'ed (NULL when the driver gives none). */
static void *em__binary(cl_program p, size_t *n) {
    size_t sz = 0;
    if (em__cl.clGetProgramInfo(p, EM_CL_PROGRAM_BINARY_SIZES, sizeof sz, &sz, NULL) != 0 || !sz)
        return NULL;
    unsigned char *b = malloc(sz);
    if (b && em__cl.clGetProgramInfo(p, EM_CL_PROGRAM_BINARIES, sizeof b, &b, NULL) != 0) {
        free(b);
        return NULL;
    }
    *n = sz;
    return b;
}

/* Builds made to fail as PoCL's kernel-cache race does, for the tests
 * (em_cl_build_flake). */
static _Atomic int em__flakes;

void em_cl_build_flake(int n) { em__flakes = n; }

/* Whether a failed build's log names no error: PoCL's kernel cache races
 * between processes building the same program (pocl/pocl#1480, #586), and
 * clBuildProgram then fails with only "Device ... failed to build the
 * program" while the same build passes a moment later.  A compile error's
 * log always says "error". */
static bool em__transient(const char *log) { return !log || !strstr(log, "error"); }

em_status em_cl_build_source(em_cl_dev *d, const char *src, const char *opts, cl_program *out,
                             cl_int *err, char **log) {
    *out = NULL, *log = NULL;
    for (int attempt = 0;; attempt++) {
        cl_program p = em__cl.clCreateProgramWithSource(d->ctx, 1, &src, NULL, err);
        if (!p || *err != EM_CL_SUCCESS) return em_cl_fail(*err, "clCreateProgramWithSource");
        *err = em__cl.clBuildProgram(p, 1, &d->dev, opts, NULL, NULL);
        if (*err == EM_CL_SUCCESS && em__flakes > 0) {
            em__flakes--;
            *err = EM_CL_BUILD_PROGRAM_FAILURE;
        }
        if (*err == EM_CL_SUCCESS) {
            *out = p;
            return EM_OK;
        }
        *log = em__log(d, p);
        em__cl.clReleaseProgram(p);
        if (*err != EM_CL_BUILD_PROGRAM_FAILURE || attempt == 2 || !em__transient(*log))
            return EM_OK;
        /* Two more tries, 20 and 200 ms later, for a failure naming no error. */
        free(*log);
        *log = NULL;
        struct timespec t = {0, attempt ? 200000000L : 20000000L};
        nanosleep(&t, NULL);
    }
}

static em_status em__from_source(em_cl_dev *d, const char *src, const char *opts, const char *name,
                                 cl_program *out) {
    cl_int err = 0;
    char *log = NULL;
    EM_CHECK(em_cl_build_source(d, src, opts, out, &err, &log));
    if (err == EM_CL_SUCCESS) return EM_OK;
    em_status s = err == EM_CL_BUILD_PROGRAM_FAILURE || log ? em__compile_error(d, name, src, log)
                                                            : em_cl_fail(err, "clBuildProgram");
    free(log);
    return s;
}

/* A cached binary; false (and nothing made) when the driver refuses it. */
static bool em__from_binary(em_cl_dev *d, const void *bin, size_t n, const char *opts,
                            cl_program *out) {
    cl_int err = 0, bst = 0;
    const unsigned char *b = bin;
    cl_program p = em__cl.clCreateProgramWithBinary(d->ctx, 1, &d->dev, &n, &b, &bst, &err);
    if (!p || err != EM_CL_SUCCESS || bst != EM_CL_SUCCESS) {
        if (p) em__cl.clReleaseProgram(p);
        return false;
    }
    if (em__cl.clBuildProgram(p, 1, &d->dev, opts, NULL, NULL) != EM_CL_SUCCESS) {
        em__cl.clReleaseProgram(p);
        return false;
    }
    *out = p;
    return true;
}

/* A build through the disk cache (em_diskcache_compile's take and build):
 * the device, and the program made. */
typedef struct em__job {
    em_cl_dev *d;
    cl_program prog;
} em__job;

static bool em__take(const em_cache_compile *c, const void *bin, size_t n) {
    em__job *j = c->ctx;
    return em__from_binary(j->d, bin, n, c->opts[0], &j->prog);
}

static em_status em__build(const em_cache_compile *c, void **bin, size_t *n) {
    em__job *j = c->ctx;
    EM_CHECK(em__from_source(j->d, c->src, c->opts[0], c->name, &j->prog));
    *bin = em__binary(j->prog, n);
    return EM_OK;
}

em_status em_cl_program(em_cl_dev *d, const char *src, const char *options, const char *name,
                        cl_program *prog) {
    em__job job = {d, NULL};
    const char *opts[] = {options ? options : ""};
    /* PoCL appends POCL_EXTRA_BUILD_FLAGS to every build's options (CI's
     * -cl-opt-disable: 3x faster builds of slower code); in the key, so an
     * unoptimised binary never serves a run without it. */
    const char *extra = getenv("POCL_EXTRA_BUILD_FLAGS");
    const char *ids[] = {d->info.name,    d->info.vendor,     d->info.driver,
                         d->info.version, extra ? extra : "", "ember " EM_VERSION " opencl"};
    const em_cache_compile c = {.compiler = "OpenCL",
                                .name = name,
                                .src = src,
                                .opts = opts,
                                .nopt = 1,
                                .ids = ids,
                                .nids = 6,
                                .ctx = &job,
                                .take = em__take,
                                .build = em__build};
    void *bin = NULL;
    size_t n = 0;
    EM_CHECK(em_diskcache_compile(&c, &bin, &n));
    free(bin);
    *prog = job.prog;
    return EM_OK;
}
