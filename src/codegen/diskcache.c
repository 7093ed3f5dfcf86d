/* The on-disk kernel cache (see diskcache.h). */
#include "codegen/diskcache.h"
#include "backend/backend.h"
#include "codegen/sbuf.h"

#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define EM_DC_MAGIC "EMKC0002"
#define EM_DC_HEADER 24
#define EM_DC_MAXSIZE ((size_t)1 << 30)

uint64_t em_fnv1a(uint64_t h, const void *data, size_t n) {
    const unsigned char *p = data;
    for (size_t i = 0; i < n; i++) h = (h ^ p[i]) * 0x100000001b3ULL;
    return h;
}

/* One warning per process: a cache that cannot be used is worth knowing
 * about once, not once per kernel. */
static atomic_int em__dc_warned;

static void em__dc_warn(const char *what, const char *path, int err) {
    if (atomic_exchange(&em__dc_warned, 1)) return;
    fprintf(stderr,
            "ember: warning: kernel cache %s %s%s%s; compiling without the disk cache "
            "(set EMBER_CACHE_DIR to a directory of yours)\n",
            what, path, err ? ": " : "", err ? strerror(err) : "");
}

/* mkdir -p; components we create are 0700, existing ones are left as they are. */
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

/* A directory we may keep binaries in: a real directory (not a link), ours,
 * and closed to group and others (anyone who can write there could feed us
 * code; anyone who can read could learn our kernels). */
static bool em__private_dir(const char *path, struct stat *st) {
    return lstat(path, st) == 0 && S_ISDIR(st->st_mode) && st->st_uid == geteuid() &&
           (st->st_mode & 077) == 0;
}

bool em_diskcache_dir(char *buf, size_t len) {
    const char *over = getenv("EMBER_CACHE_DIR"), *xdg = getenv("XDG_CACHE_HOME");
    const char *home = getenv("HOME");
    int n;
    if (over && *over)
        n = snprintf(buf, len, "%s", over);
    else if (xdg && *xdg)
        n = snprintf(buf, len, "%s/ember/kernels", xdg);
    else if (home && *home)
        n = snprintf(buf, len, "%s/.cache/ember/kernels", home);
    else
        return false;
    if (n < 0 || (size_t)n >= len) return false;
    int err = em__mkdirs(buf) ? 0 : errno;
    struct stat st;
    if (err || stat(buf, &st) != 0) {
        em__dc_warn("directory", buf, err ? err : errno);
        return false;
    }
    if (!S_ISDIR(st.st_mode)) {
        em__dc_warn("directory", buf, ENOTDIR);
        return false;
    }
    if (em__private_dir(buf, &st)) return true;
    /* Shared, another user's, or a link: our own private subdirectory, so
     * the user's directory keeps its modes. */
    size_t base = (size_t)n;
    n = snprintf(buf + base, len - base, "/ember-%lu", (unsigned long)geteuid());
    if (n < 0 || (size_t)n >= len - base) return false;
    err = mkdir(buf, 0700) == 0 || errno == EEXIST ? 0 : errno;
    if (err || !em__private_dir(buf, &st)) {
        em__dc_warn(err ? "directory" : "directory (not a private directory of this user)", buf,
                    err);
        return false;
    }
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

/* The checksum binds the payload to its name (see diskcache.h). */
static uint64_t em__sum(const char *name, const void *data, size_t n) {
    return em_fnv1a(em_fnv1a(EM_FNV_BASIS, name, strlen(name) + 1), data, n);
}

static bool em__read_full(int fd, void *buf, size_t n) {
    for (size_t off = 0; off < n;) {
        ssize_t r = read(fd, (char *)buf + off, n - off);
        if (r < 0 && errno == EINTR) continue;
        if (r <= 0) return false;
        off += (size_t)r;
    }
    return true;
}

static bool em__write_full(int fd, const void *buf, size_t n) {
    for (size_t off = 0; off < n;) {
        ssize_t w = write(fd, (const char *)buf + off, n - off);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) return false;
        off += (size_t)w;
    }
    return true;
}

bool em_diskcache_get(const char *name, void **data, size_t *n) {
    char path[4200];
    if (!em__path(name, path, sizeof path)) return false;
    /* O_NONBLOCK: opening a FIFO must not wait for a writer; O_NOFOLLOW: the
     * entry itself, not what a link points to. */
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0) return false;
    struct stat st;
    unsigned char hdr[EM_DC_HEADER];
    uint64_t size = 0, sum = 0;
    void *buf = NULL;
    bool ok = fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size >= EM_DC_HEADER;
    ok = ok && em__read_full(fd, hdr, sizeof hdr) && !memcmp(hdr, EM_DC_MAGIC, 8);
    if (ok) {
        memcpy(&size, hdr + 8, 8);
        memcpy(&sum, hdr + 16, 8);
        ok = size > 0 && size <= EM_DC_MAXSIZE && (uint64_t)st.st_size == EM_DC_HEADER + size &&
             (buf = malloc(size)) != NULL;
    }
    ok = ok && em__read_full(fd, buf, size) && em__sum(name, buf, size) == sum;
    close(fd);
    if (!ok) {
        free(buf);
        if (em_debug_level() >= 2)
            fprintf(stderr,
                    "ember: kernel cache entry %s is corrupt or not a regular file; "
                    "rebuilding\n",
                    path);
        return false;
    }
    *data = buf;
    *n = size;
    return true;
}

bool em_diskcache_put(const char *name, const void *data, size_t n) {
    char path[4200], tmp[4300];
    if (!em__path(name, path, sizeof path)) return false;
    snprintf(tmp, sizeof tmp, "%s.tmp.XXXXXX", path);
    int fd = mkstemp(tmp);
    if (fd < 0) {
        em__dc_warn("entries cannot be written in the directory of", path, errno);
        return false;
    }
    unsigned char hdr[EM_DC_HEADER];
    uint64_t size = n, sum = em__sum(name, data, n);
    memcpy(hdr, EM_DC_MAGIC, 8);
    memcpy(hdr + 8, &size, 8);
    memcpy(hdr + 16, &sum, 8);
    bool ok = em__write_full(fd, hdr, sizeof hdr) && em__write_full(fd, data, n);
    ok = close(fd) == 0 && ok;
    int err = ok ? 0 : errno;
    ok = ok && rename(tmp, path) == 0;
    if (!ok) {
        if (!err) err = errno;
        unlink(tmp);
        em__dc_warn("entry could not be written:", path, err);
    }
    return ok;
}

em_status em_compile_error(const char *head, const char *log, const char *src) {
    const char *end = strstr(src, EM_PRELUDE_END), *body = src;
    int line = 1;
    if (end) {
        body = end + strlen(EM_PRELUDE_END);
        for (const char *c = src; c < body; c++) line += *c == '\n';
    }
    em_sbuf m = {0};
    em_sbuf_printf(&m, "%s\n%s\n", head, log);
    if (line > 1)
        em_sbuf_printf(&m, "-- source (prelude lines 1-%d omitted) --\n", line - 1);
    else
        em_sbuf_printf(&m, "-- source --\n");
    for (const char *c = body; *c;) {
        size_t n = strcspn(c, "\n");
        em_sbuf_printf(&m, "%4d  %.*s\n", line++, (int)n, c);
        c += n + (c[n] == '\n');
    }
    em_status s = em_error(EM_ECOMPILE, "%s", m.s ? m.s : head);
    if (em_debug_level() >= 1 && m.s) fprintf(stderr, "ember: %s\n", m.s);
    em_sbuf_free(&m);
    return s;
}
