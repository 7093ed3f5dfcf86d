/* OpenCL program builds through the disk cache.  The key covers the source,
 * the options, the device (name, vendor), its driver and OpenCL versions
 * and Ember's version; the entry is the device binary, which a later
 * process gives clCreateProgramWithBinary (and still builds: OpenCL wants
 * it, but a binary builds in milliseconds where PoCL's LLVM takes about a
 * second from source).  A failure is EM_ECOMPILE with the build log and
 * the source after the prelude, numbered as the compiler counts it. */
#include "backend/opencl/cl_internal.h"
#include "codegen/diskcache.h"
#include "codegen/sbuf.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
    const char *end = strstr(src, EM_PRELUDE_END);
    int line = 1;
    const char *body = src;
    if (end) {
        body = end + strlen(EM_PRELUDE_END);
        for (const char *c = src; c < body; c++) line += *c == '\n';
    }
    em_sbuf m = {0};
    em_sbuf_printf(&m, "OpenCL could not build kernel '%s' for %s:\n%s\n", name, d->info.name,
                   log && log[0] ? log : "(no build log)");
    if (line > 1)
        em_sbuf_printf(&m, "-- source (prelude lines 1-%d omitted) --\n", line - 1);
    else
        em_sbuf_printf(&m, "-- source --\n");
    for (const char *c = body; *c;) {
        size_t n = strcspn(c, "\n");
        em_sbuf_printf(&m, "%4d  %.*s\n", line++, (int)n, c);
        c += n + (c[n] == '\n');
    }
    em_status s = em_error(EM_ECOMPILE, "%s", m.s ? m.s : "OpenCL build failed");
    if (em_debug_level() >= 1 && m.s) fprintf(stderr, "ember: %s\n", m.s);
    em_sbuf_free(&m);
    return s;
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

static em_status em__from_source(em_cl_dev *d, const char *src, const char *opts, const char *name,
                                 cl_program *out) {
    cl_int err = 0;
    cl_program p = em__cl.clCreateProgramWithSource(d->ctx, 1, &src, NULL, &err);
    if (!p || err != EM_CL_SUCCESS) return em_cl_fail(err, "clCreateProgramWithSource");
    err = em__cl.clBuildProgram(p, 1, &d->dev, opts, NULL, NULL);
    if (err != EM_CL_SUCCESS) {
        char *log = em__log(d, p);
        em__cl.clReleaseProgram(p);
        em_status s = err == EM_CL_BUILD_PROGRAM_FAILURE || log
                          ? em__compile_error(d, name, src, log)
                          : em_cl_fail(err, "clBuildProgram");
        free(log);
        return s;
    }
    *out = p;
    return EM_OK;
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

em_status em_cl_program(em_cl_dev *d, const char *src, const char *options, const char *name,
                        cl_program *prog) {
    const char *opts = options ? options : "";
    char file[80];
    const char *parts[] = {src,
                           opts,
                           d->info.name,
                           d->info.vendor,
                           d->info.driver,
                           d->info.version,
                           "ember " EM_VERSION " opencl"};
    em_diskcache_name(7, parts, file, sizeof file);
    if (em_debug_level() >= 4) fprintf(stderr, "ember: kernel '%s' source:\n%s\n", name, src);
    void *bin = NULL;
    size_t n = 0;
    if (em_diskcache_get(file, &bin, &n)) {
        bool ok = em__from_binary(d, bin, n, opts, prog);
        free(bin);
        if (ok) {
            if (em_debug_level() >= 2)
                fprintf(stderr, "ember: kernel cache hit (disk) %s for '%s'\n", file, name);
            return EM_OK;
        }
    }
    EM_CHECK(em__from_source(d, src, opts, name, prog));
    if ((bin = em__binary(*prog, &n))) {
        bool stored = em_diskcache_put(file, bin, n);
        if (em_debug_level() >= 2)
            fprintf(stderr, "ember: kernel cache miss %s for '%s'%s\n", file, name,
                    stored ? "" : " (not stored)");
        free(bin);
    }
    return EM_OK;
}
