/* NVRTC compilation to cubin, through the disk cache.
 *
 * Ember's options come first: the real architecture (a cubin, not PTX, so
 * the driver never JITs), --fmad=false so results equal the CPU's bit for
 * bit, C++17.  Raw modules append the user's options; one that sets the
 * architecture, -fmad or -std replaces Ember's.  The disk cache key covers
 * the source, every option, the NVRTC version and Ember's version.
 * EMBER_DEBUG=2 logs cache hits and misses with compile times; 4 prints the
 * source.  A failure is EM_ECOMPILE with the NVRTC log and the numbered
 * kernel source (the prelude's lines are counted but not repeated).
 */
#include "backend/cuda/cuda_internal.h"
#include "codegen/diskcache.h"
#include "codegen/render.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double em__now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* EM_ECOMPILE: the log, then the source after the prelude, numbered. */
static em_status em__compile_error(const char *name, const char *src, const char *log) {
    const char *pre = em_render_prelude();
    size_t plen = strlen(pre);
    int line = 1;
    const char *body = src;
    if (!strncmp(src, pre, plen)) {
        for (size_t i = 0; i < plen; i++) line += pre[i] == '\n';
        body = src + plen;
    }
    em_sbuf m = {0};
    em_sbuf_printf(&m, "NVRTC could not compile kernel '%s':\n%s\n", name, log);
    if (line > 1) em_sbuf_printf(&m, "-- source (prelude lines 1-%d omitted) --\n", line - 1);
    else em_sbuf_printf(&m, "-- source --\n");
    for (const char *c = body; *c;) {
        size_t n = strcspn(c, "\n");
        em_sbuf_printf(&m, "%4d  %.*s\n", line++, (int)n, c);
        c += n + (c[n] == '\n');
    }
    em_status s = em_error(EM_ECOMPILE, "%s", m.s ? m.s : "NVRTC failed (no memory for the log)");
    if (em_debug_level() >= 1 && m.s) fprintf(stderr, "ember: %s\n", m.s);
    em_sbuf_free(&m);
    return s;
}

static em_status em__nvrtc_run(const char *src, const char *name, const char *const *opts, int nopt,
                               void **cubin, size_t *n) {
    nvrtcProgram prog = NULL;
    if (em__nvrtc.nvrtcCreateProgram(&prog, src, "ember_kernel.cu", 0, NULL, NULL) != 0)
        return em_error(EM_ENOMEM, "nvrtcCreateProgram failed for kernel '%s'", name);
    em_status s = EM_OK;
    int r = em__nvrtc.nvrtcCompileProgram(prog, nopt, opts);
    if (r != 0) {
        size_t ln = 0;
        em__nvrtc.nvrtcGetProgramLogSize(prog, &ln);
        char *log = malloc(ln + 1);
        if (log) {
            log[0] = 0;
            em__nvrtc.nvrtcGetProgramLog(prog, log);
        }
        s = em__compile_error(name, src, log && log[0] ? log : em__nvrtc.nvrtcGetErrorString(r));
        free(log);
        goto done;
    }
    size_t sz = 0;
    em__nvrtc.nvrtcGetCUBINSize(prog, &sz);
    void *buf = sz ? malloc(sz) : NULL;
    if (!buf) {
        s = em_error(EM_ENOMEM, "no host memory for a %zu-byte cubin", sz);
        goto done;
    }
    em__nvrtc.nvrtcGetCUBIN(prog, buf);
    *cubin = buf;
    *n = sz;
done:
    em__nvrtc.nvrtcDestroyProgram(&prog);
    return s;
}

#define EM_NVRTC_MAXOPT 64

/* Whether a user option sets what Ember's option `ours` sets (same text up
 * to '=' or, for the architecture, any of its spellings). */
static bool em__overrides(const char *user, const char *ours) {
    while (*user == '-') user++;
    while (*ours == '-') ours++;
    if (!strncmp(ours, "gpu-architecture", 16))
        return !strncmp(user, "gpu-architecture", 16) || !strncmp(user, "arch", 4);
    size_t k = strcspn(ours, "=");
    return !strncmp(user, ours, k) && (user[k] == '=' || user[k] == ' ' || !user[k]);
}

em_status em_cuda_compile_ex(const char *src, int arch, const char *name, const char *const *uopts,
                             int nuopt, void **cubin, size_t *n) {
    EM_CHECK(em_nvrtc_init());
    if (arch < 50 || arch > 200) return em_error(EM_EVALUE, "bad GPU architecture sm_%d", arch);
    if (nuopt < 0 || nuopt > EM_NVRTC_MAXOPT - 3 || (nuopt && !uopts))
        return em_error(EM_EVALUE, "kernel '%s': %d compiler options given; at most %d are allowed",
                        name, nuopt, EM_NVRTC_MAXOPT - 3);
    char archopt[40], ver[64], file[80];
    snprintf(archopt, sizeof archopt, "--gpu-architecture=sm_%d", arch);
    const char *ours[] = {archopt, "--fmad=false", "-std=c++17"};
    const char *opts[EM_NVRTC_MAXOPT], *parts[EM_NVRTC_MAXOPT + 2];
    int nopt = 0;
    for (int k = 0; k < 3; k++) {
        bool replaced = false;
        for (int i = 0; i < nuopt && !replaced; i++) {
            if (!uopts[i]) return em_error(EM_EVALUE, "kernel '%s': compiler option %d is NULL", name, i);
            replaced = em__overrides(uopts[i], ours[k]);
        }
        if (!replaced) opts[nopt++] = ours[k];
    }
    for (int i = 0; i < nuopt; i++) opts[nopt++] = uopts[i];
    snprintf(ver, sizeof ver, "nvrtc %d ember %s", em_nvrtc_version(), EM_VERSION);
    parts[0] = src;
    for (int i = 0; i < nopt; i++) parts[1 + i] = opts[i];
    parts[1 + nopt] = ver;
    em_diskcache_name(nopt + 2, parts, file, sizeof file);
    if (em_debug_level() >= 4) fprintf(stderr, "ember: kernel '%s' source:\n%s\n", name, src);
    double t0 = em__now();
    if (em_diskcache_get(file, cubin, n)) {
        if (em_debug_level() >= 2)
            fprintf(stderr, "ember: kernel cache hit (disk) %s for '%s' in %.3f ms\n", file, name,
                    (em__now() - t0) * 1e3);
        return EM_OK;
    }
    EM_CHECK(em__nvrtc_run(src, name, opts, nopt, cubin, n));
    bool stored = em_diskcache_put(file, *cubin, *n);
    if (em_debug_level() >= 2)
        fprintf(stderr, "ember: kernel cache miss %s for '%s': compiled in %.1f ms%s\n", file, name,
                (em__now() - t0) * 1e3, stored ? "" : " (not stored: cache directory unusable)");
    return EM_OK;
}

em_status em_cuda_compile(const char *src, int arch, const char *name, void **cubin, size_t *n) {
    return em_cuda_compile_ex(src, arch, name, NULL, 0, cubin, n);
}
