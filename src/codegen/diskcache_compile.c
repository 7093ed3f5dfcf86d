/* A compile through the disk cache, once for every compiler that keeps its
 * binaries there (NVRTC in backend/cuda/compile.c, OpenCL's program build
 * in backend/opencl/build.c): the key, the lookup, the build and store on a
 * miss, the log (diskcache.h: em_diskcache_compile), and the entry format of
 * an image with a table of strings after it. */
#include "codegen/diskcache.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double em__clock(clockid_t c) {
    struct timespec ts;
    clock_gettime(c, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}
static double em__now(void) { return em__clock(CLOCK_MONOTONIC); }
/* The thread's CPU time: a compile whose wall time is far above it waited
 * (page faults on a cold disk, a busy machine). */
static double em__cpu(void) { return em__clock(CLOCK_THREAD_CPUTIME_ID); }

/* The entry's file name: the key's parts in their order; the name
 * expressions after a separator that no option has (\001). */
static bool em__key(const em_cache_compile *c, char *file, size_t len) {
    int np = 0, max = 2 + c->nopt + c->nids + c->nnames;
    const char **parts = malloc((size_t)max * sizeof *parts);
    if (!parts) return false;
    parts[np++] = c->src;
    for (int i = 0; i < c->nopt; i++) parts[np++] = c->opts[i];
    for (int i = 0; i < c->nids; i++) parts[np++] = c->ids[i];
    if (c->nnames) parts[np++] = "\001name expressions:";
    for (int i = 0; i < c->nnames; i++) parts[np++] = c->names[i];
    em_diskcache_name(np, parts, file, len);
    free(parts);
    return true;
}

em_status em_diskcache_compile(const em_cache_compile *c, void **bin, size_t *n) {
    char file[80];
    if (!em__key(c, file, sizeof file))
        return em_error(EM_ENOMEM, "no host memory for a cache key");
    if (em_debug_level() >= 4) fprintf(stderr, "ember: kernel '%s' source:\n%s\n", c->name, c->src);
    double t0 = em__now(), c0 = em__cpu();
    void *got = NULL;
    size_t gn = 0;
    if (em_diskcache_get(file, &got, &gn)) {
        if (!c->take || c->take(c, got, gn)) {
            if (em_debug_level() >= 2)
                fprintf(stderr, "ember: kernel cache hit (disk) %s for '%s' in %.3f ms\n", file,
                        c->name, (em__now() - t0) * 1e3);
            *bin = got, *n = gn;
            return EM_OK;
        }
        free(got); /* the driver refused it: built again, and replaced */
        got = NULL, gn = 0;
    }
    EM_CHECK(c->build(c, &got, &gn));
    double t1 = em__now(), c1 = em__cpu();
    bool stored = got && em_diskcache_put(file, got, gn);
    if (em_debug_level() >= 2)
        fprintf(stderr,
                "ember: kernel cache miss %s for '%s': compiled in %.1f ms (%s %.1f, "
                "of it CPU %.1f; store %.1f)%s\n",
                file, c->name, (em__now() - t0) * 1e3, c->compiler, (t1 - t0) * 1e3,
                (c1 - c0) * 1e3, (em__now() - t1) * 1e3,
                stored ? ""
                : !got ? " (not stored: the compiler gave no binary)"
                       : " (not stored: cache directory unusable)");
    *bin = got, *n = gn;
    return EM_OK;
}

void *em_diskcache_join(void *bin, size_t n, const char *table, size_t tlen, size_t *len) {
    char *e = malloc(8 + n + tlen);
    if (e) {
        uint64_t n64 = n;
        memcpy(e, &n64, 8);
        memcpy(e + 8, bin, n);
        if (tlen) memcpy(e + 8 + n, table, tlen);
        *len = 8 + n + tlen;
    }
    free(bin);
    return e;
}

bool em_diskcache_split(char *entry, size_t n, int nstrings, size_t *bin_n, char **table) {
    uint64_t sz;
    if (n < 8) return false;
    memcpy(&sz, entry, 8);
    if (sz > n - 8) return false;
    size_t tlen = n - 8 - sz;
    const char *t = entry + 8 + sz;
    int count = 0;
    for (size_t i = 0; i < tlen; i++) count += t[i] == '\0';
    if (count != nstrings || (tlen && t[tlen - 1] != '\0')) return false;
    char *copy = malloc(tlen ? tlen : 1);
    if (!copy) return false;
    memcpy(copy, t, tlen);
    memmove(entry, entry + 8, sz);
    *bin_n = sz, *table = copy;
    return true;
}
