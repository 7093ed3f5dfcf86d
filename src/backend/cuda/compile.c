/* NVRTC compilation to cubin, through the disk cache.
 *
 * Ember's options come first: the real architecture (a cubin, not PTX, so
 * the driver never JITs), --fmad=false so results equal the CPU's bit for
 * bit, C++17.  Raw modules append the user's options; one that sets the
 * architecture, -fmad or -std replaces Ember's.  The disk cache key covers
 * the source, every option, the NVRTC version and Ember's version; the
 * lookup, store and log are codegen/diskcache_compile.c's, shared with
 * OpenCL.  A failure is EM_ECOMPILE with the NVRTC log and the numbered
 * kernel source (em_compile_error: the prelude's lines are counted but not
 * repeated).
 */
#include "backend/cuda/cuda_internal.h"
#include "codegen/diskcache.h"
#include "codegen/sbuf.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The lowered (mangled) names of the name expressions, each NUL-terminated,
 * in their order, into a malloc'ed table of *len bytes. */
static em_status em__lowered(nvrtcProgram prog, const char *name, int nnames,
                             const char *const *names, char **table, size_t *len) {
    em_sbuf t = {0};
    for (int i = 0; i < nnames; i++) {
        const char *low = NULL;
        if (em__nvrtc.nvrtcGetLoweredName(prog, names[i], &low) != 0 || !low) {
            em_sbuf_free(&t);
            return em_error(
                EM_EVALUE,
                "kernel '%s': NVRTC has no lowered name for the name expression "
                "'%s' (is it a __global__ function or template instance in the source?)",
                name, names[i]);
        }
        em_sbuf_printf(&t, "%s", low);
        em_sbuf_putc(&t, '\0');
    }
    if (t.oom) {
        em_sbuf_free(&t);
        return em_error(EM_ENOMEM, "no host memory for the lowered names");
    }
    *table = t.s, *len = t.len;
    return EM_OK;
}

/* Compile c (em_diskcache_compile's build); *img is the cubin, or with
 * name expressions the cubin and the table of their lowered names as one
 * entry (em_diskcache_join: what the disk cache stores). */
static em_status em__nvrtc_run(const em_cache_compile *c, void **img, size_t *n) {
    nvrtcProgram prog = NULL;
    if (em__nvrtc.nvrtcCreateProgram(&prog, c->src, "ember_kernel.cu", 0, NULL, NULL) != 0)
        return em_error(EM_ENOMEM, "nvrtcCreateProgram failed for kernel '%s'", c->name);
    em_status s = EM_OK;
    char *table = NULL;
    size_t tlen = 0;
    for (int i = 0; i < c->nnames; i++) em__nvrtc.nvrtcAddNameExpression(prog, c->names[i]);
    int r = em__nvrtc.nvrtcCompileProgram(prog, c->nopt, c->opts);
    if (r != 0) {
        size_t ln = 0;
        em__nvrtc.nvrtcGetProgramLogSize(prog, &ln);
        char *log = malloc(ln + 1);
        if (log) {
            log[0] = 0;
            em__nvrtc.nvrtcGetProgramLog(prog, log);
        }
        char head[256];
        snprintf(head, sizeof head, "NVRTC could not compile kernel '%s':", c->name);
        s = em_compile_error(head, log && log[0] ? log : em__nvrtc.nvrtcGetErrorString(r), c->src);
        free(log);
        goto done;
    }
    if (c->nnames && (s = em__lowered(prog, c->name, c->nnames, c->names, &table, &tlen)) != EM_OK)
        goto done;
    size_t sz = 0;
    em__nvrtc.nvrtcGetCUBINSize(prog, &sz);
    char *buf = sz ? malloc(sz) : NULL;
    if (buf) em__nvrtc.nvrtcGetCUBIN(prog, buf);
    if (buf && c->nnames) buf = em_diskcache_join(buf, sz, table, tlen, &sz);
    if (!buf) {
        s = em_error(EM_ENOMEM, "no host memory for a %zu-byte cubin", sz);
        goto done;
    }
    *img = buf;
    *n = sz;
done:
    free(table);
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

/* opts = Ember's options that no user option replaces, then the user's
 * (at most EM_NVRTC_MAXOPT in all: the caller checked nuopt). */
static em_status em__options(const char *name, const char *archopt, const char *const *uopts,
                             int nuopt, const char **opts, int *nopt) {
    const char *ours[] = {archopt, "--fmad=false", "-std=c++17"};
    int n = 0;
    for (int i = 0; i < nuopt; i++)
        if (!uopts[i])
            return em_error(EM_EVALUE, "kernel '%s': compiler option %d is NULL", name, i);
    for (int k = 0; k < 3; k++) {
        bool replaced = false;
        for (int i = 0; i < nuopt && !replaced; i++) replaced = em__overrides(uopts[i], ours[k]);
        if (!replaced) opts[n++] = ours[k];
    }
    for (int i = 0; i < nuopt; i++) opts[n++] = uopts[i];
    *nopt = n;
    return EM_OK;
}

em_status em_cuda_compile_ex(const char *src, int arch, const char *name, const char *const *uopts,
                             int nuopt, int nnames, const char *const *names, void **cubin,
                             size_t *n, char **lowered) {
    EM_CHECK(em_nvrtc_init());
    if (arch < 50 || arch > 200) return em_error(EM_EVALUE, "bad GPU architecture sm_%d", arch);
    if (nuopt < 0 || nuopt > EM_NVRTC_MAXOPT - 3 || (nuopt && !uopts))
        return em_error(EM_EVALUE, "kernel '%s': %d compiler options given; at most %d are allowed",
                        name, nuopt, EM_NVRTC_MAXOPT - 3);
    if (nnames < 0 || nnames > EM_NVRTC_MAXOPT || (nnames && (!names || !lowered)))
        return em_error(EM_EVALUE, "kernel '%s': %d name expressions given; at most %d are allowed",
                        name, nnames, EM_NVRTC_MAXOPT);
    char archopt[40], ver[64];
    snprintf(archopt, sizeof archopt, "--gpu-architecture=sm_%d", arch);
    const char *opts[EM_NVRTC_MAXOPT], *ids[] = {ver};
    int nopt = 0;
    EM_CHECK(em__options(name, archopt, uopts, nuopt, opts, &nopt));
    for (int i = 0; i < nnames; i++)
        if (!names[i])
            return em_error(EM_EVALUE, "kernel '%s': name expression %d is NULL", name, i);
    snprintf(ver, sizeof ver, "nvrtc %d ember %s", em_nvrtc_version(), EM_VERSION);
    const em_cache_compile c = {.compiler = "NVRTC",
                                .name = name,
                                .src = src,
                                .opts = opts,
                                .nopt = nopt,
                                .ids = ids,
                                .nids = 1,
                                .names = names,
                                .nnames = nnames,
                                .build = em__nvrtc_run};
    void *img = NULL;
    size_t in = 0;
    EM_CHECK(em_diskcache_compile(&c, &img, &in));
    if (nnames && !em_diskcache_split(img, in, nnames, &in, lowered)) {
        free(img);
        return em_error(EM_EINTERNAL, "kernel '%s': malformed compiled image with name expressions",
                        name);
    }
    *cubin = img, *n = in;
    return EM_OK;
}

/* Ember's own kernels need none of the CUDA runtime's device API, so they
 * compile with -minimal where NVRTC has it (12.4 on): the same cubin, about
 * a tenth less time.  Raw modules do not get it: their code may use
 * cudaStream_t and the like.  EMBER_NVRTC_OPTIONS (space-separated, read
 * once) adds options to Ember's own kernels, for measuring compile-time
 * and code trade-offs such as --Ofast-compile; they join the cache key. */
#define EM__XOPT 16
static char em__xbuf[512];
static const char *em__xopts[EM__XOPT + 1];
static int em__nxopt;
static pthread_once_t em__xonce = PTHREAD_ONCE_INIT;

static void em__read_xopts(void) {
    if (em_nvrtc_version() >= 12040) em__xopts[em__nxopt++] = "-minimal";
    const char *v = getenv("EMBER_NVRTC_OPTIONS");
    if (!v) return;
    snprintf(em__xbuf, sizeof em__xbuf, "%s", v);
    for (char *t = strtok(em__xbuf, " \t"); t && em__nxopt < EM__XOPT; t = strtok(NULL, " \t"))
        em__xopts[em__nxopt++] = t;
}

em_status em_cuda_compile(const char *src, int arch, const char *name, void **cubin, size_t *n) {
    EM_CHECK(em_nvrtc_init());
    pthread_once(&em__xonce, em__read_xopts);
    return em_cuda_compile_ex(src, arch, name, em__xopts, em__nxopt, 0, NULL, cubin, n, NULL);
}
