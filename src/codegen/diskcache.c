/* The on-disk kernel cache (see diskcache.h). */
#include "codegen/diskcache.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define EM_DC_MAGIC "EMKC0001"
#define EM_DC_HEADER 24
#define EM_DC_MAXSIZE ((size_t)1 << 30)

uint64_t em_fnv1a(uint64_t h, const void *data, size_t n) {
    const unsigned char *p = data;
    for (size_t i = 0; i < n; i++) h = (h ^ p[i]) * 0x100000001b3ULL;
    return h;
}

/* mkdir -p with mode 0700 for each component we create. */
static bool em__mkdirs(char *path) {
    for (char *c = path + 1; *c; c++) {
        if (*c != '/') continue;
        *c = 0;
        bool ok = mkdir(path, 0700) == 0 || errno == EEXIST;
        *c = '/';
        if (!ok) return false;
    }
    return mkdir(path, 0700) == 0 || errno == EEXIST;
}

bool em_diskcache_dir(char *buf, size_t len) {
    const char *over = getenv("EMBER_CACHE_DIR"), *xdg = getenv("XDG_CACHE_HOME");
    const char *home = getenv("HOME");
    int n;
    if (over && *over) n = snprintf(buf, len, "%s", over);
    else if (xdg && *xdg) n = snprintf(buf, len, "%s/ember/kernels", xdg);
    else if (home && *home) n = snprintf(buf, len, "%s/.cache/ember/kernels", home);
    else return false;
    if (n < 0 || (size_t)n >= len || !em__mkdirs(buf)) return false;
    struct stat st;
    /* Another user's or a world-writable directory could feed us binaries. */
    if (stat(buf, &st) != 0 || st.st_uid != geteuid()) return false;
    if ((st.st_mode & 077) && chmod(buf, 0700) != 0) return false;
    return true;
}

void em_diskcache_name(int nparts, const char *const *parts, char *name, size_t len) {
    uint64_t a = 0xcbf29ce484222325ULL, b = 0x84222325cbf29ce4ULL;
    for (int i = 0; i < nparts; i++) {
        size_t n = strlen(parts[i]) + 1; /* the NUL separates the parts */
        a = em_fnv1a(a, parts[i], n);
        b = em_fnv1a(b ^ (uint64_t)i, parts[i], n);
    }
    snprintf(name, len, "%016llx%016llx.cubin", (unsigned long long)a, (unsigned long long)b);
}

static bool em__path(const char *name, char *path, size_t len) {
    char dir[4096];
    if (!em_diskcache_dir(dir, sizeof dir)) return false;
    int n = snprintf(path, len, "%s/%s", dir, name);
    return n > 0 && (size_t)n < len;
}

static bool em__read_all(FILE *f, void *buf, size_t n) { return fread(buf, 1, n, f) == n; }

bool em_diskcache_get(const char *name, void **data, size_t *n) {
    char path[4200];
    if (!em__path(name, path, sizeof path)) return false;
    FILE *f = fopen(path, "rb");
    if (!f) return false;
    unsigned char hdr[EM_DC_HEADER];
    uint64_t size = 0, sum = 0;
    void *buf = NULL;
    bool ok = em__read_all(f, hdr, sizeof hdr) && !memcmp(hdr, EM_DC_MAGIC, 8);
    if (ok) {
        memcpy(&size, hdr + 8, 8);
        memcpy(&sum, hdr + 16, 8);
        ok = size > 0 && size <= EM_DC_MAXSIZE && (buf = malloc(size)) != NULL;
    }
    ok = ok && em__read_all(f, buf, size) && fgetc(f) == EOF;
    ok = ok && em_fnv1a(EM_FNV_BASIS, buf, size) == sum;
    fclose(f);
    if (!ok) {
        free(buf);
        if (em_debug_level() >= 2) fprintf(stderr, "ember: kernel cache entry %s is corrupt; rebuilding\n", path);
        return false;
    }
    *data = buf;
    *n = size;
    return true;
}

bool em_diskcache_put(const char *name, const void *data, size_t n) {
    char path[4200], tmp[4300];
    if (!em__path(name, path, sizeof path)) return false;
    snprintf(tmp, sizeof tmp, "%s.tmp.%ld.%lx", path, (long)getpid(), (unsigned long)(uintptr_t)&tmp);
    int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL, 0600);
    if (fd < 0) return false;
    unsigned char hdr[EM_DC_HEADER];
    uint64_t size = n, sum = em_fnv1a(EM_FNV_BASIS, data, n);
    memcpy(hdr, EM_DC_MAGIC, 8);
    memcpy(hdr + 8, &size, 8);
    memcpy(hdr + 16, &sum, 8);
    bool ok = write(fd, hdr, sizeof hdr) == (ssize_t)sizeof hdr && write(fd, data, n) == (ssize_t)n;
    ok = close(fd) == 0 && ok;
    ok = ok && rename(tmp, path) == 0;
    if (!ok) unlink(tmp);
    return ok;
}
