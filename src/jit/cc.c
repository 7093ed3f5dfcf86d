/* The system C compiler as a JIT (ember/kernel.h). */
#define _GNU_SOURCE /* memfd_create */
#include "ember/kernel.h"
#include "codegen/diskcache.h"
#include "codegen/sbuf.h"
#include "core/core.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

#define EM_CC_MAXARGS 32
#define EM_CC_FLAGS "-std=gnu11 -O2 -fPIC -shared -fwrapv -ffp-contract=off -fno-fast-math"

struct em_cc_lib {
    char key[80];
    void *handle;
    struct em_cc_lib *next;
};

static pthread_once_t em__cc_once = PTHREAD_ONCE_INIT;
static pthread_mutex_t em__cc_lock = PTHREAD_MUTEX_INITIALIZER;
static char em__cc_cmd[512];   /* the compiler command, "" when none */
static char em__cc_ident[256]; /* first line of `cc --version` */
static char em__cc_why[512];   /* why none was found */
static em_cc_lib *em__cc_libs; /* loaded objects, newest first */

static double em__cc_now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Split cmd (copied into buf) on blanks into argv; returns argc, 0 if empty. */
static int em__cc_split(const char *cmd, char *buf, size_t len, char **argv, int max) {
    snprintf(buf, len, "%s", cmd);
    int n = 0;
    char *save = NULL;
    for (char *t = strtok_r(buf, " \t", &save); t && n < max - 1; t = strtok_r(NULL, " \t", &save))
        argv[n++] = t;
    argv[n] = NULL;
    return n;
}

/* Run argv with stdout and stderr going to fd out; returns the exit status
 * (-1 if it could not be started or was killed). */
static int em__cc_spawn(char **argv, int out) {
    posix_spawn_file_actions_t fa;
    if (posix_spawn_file_actions_init(&fa) != 0) return -1;
    posix_spawn_file_actions_adddup2(&fa, out, 1);
    posix_spawn_file_actions_adddup2(&fa, out, 2);
    pid_t pid;
    int r = posix_spawnp(&pid, argv[0], &fa, NULL, argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    if (r != 0) return -1;
    int st = 0;
    while (waitpid(pid, &st, 0) < 0)
        if (errno != EINTR) return -1;
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* Whether `cmd --version` succeeds; its first output line goes to ident. */
static bool em__cc_try(const char *cmd, char *ident, size_t len) {
    char buf[512], *argv[EM_CC_MAXARGS + 2];
    int n = em__cc_split(cmd, buf, sizeof buf, argv, EM_CC_MAXARGS);
    if (n == 0) return false;
    argv[n] = "--version";
    argv[n + 1] = NULL;
    FILE *tmp = tmpfile();
    if (!tmp) return false;
    bool ok = em__cc_spawn(argv, fileno(tmp)) == 0;
    rewind(tmp);
    ident[0] = 0;
    if (ok && !fgets(ident, (int)len, tmp)) ok = false;
    fclose(tmp);
    ident[strcspn(ident, "\n")] = 0;
    return ok && ident[0];
}

static void em__cc_probe(void) {
    const char *cands[5] = {getenv("EMBER_CC"), getenv("CC"), "cc", "gcc", "clang"};
    for (int i = 0; i < 5; i++) {
        if (!cands[i] || !cands[i][0]) continue;
        if (em__cc_try(cands[i], em__cc_ident, sizeof em__cc_ident)) {
            snprintf(em__cc_cmd, sizeof em__cc_cmd, "%s", cands[i]);
            return;
        }
        /* An explicit choice that does not work is not silently replaced. */
        if (i < 2) {
            snprintf(em__cc_why, sizeof em__cc_why,
                     "the C compiler '%s' (from %s) does not run: fix or unset %s", cands[i],
                     i == 0 ? "EMBER_CC" : "CC", i == 0 ? "EMBER_CC" : "CC");
            return;
        }
    }
    snprintf(em__cc_why, sizeof em__cc_why,
             "no C compiler found (tried $EMBER_CC, $CC, cc, gcc, clang): set EMBER_CC or "
             "install gcc or clang");
}

bool em_cc_available(void) {
    pthread_once(&em__cc_once, em__cc_probe);
    if (!em__cc_cmd[0]) em_error(EM_EUNSUPPORTED, "%s", em__cc_why);
    return em__cc_cmd[0] != 0;
}

const char *em_cc_command(void) {
    pthread_once(&em__cc_once, em__cc_probe);
    return em__cc_cmd;
}

static const char *em__cc_flags(void) {
    const char *p = getenv("EMBER_CC_PORTABLE");
    return p && !strcmp(p, "1") ? EM_CC_FLAGS : EM_CC_FLAGS " -march=native";
}

/* A private temporary directory for one compile (mkdtemp: 0700, a fresh
 * name), removed by the caller: nothing of a build outlives it, so no
 * directory is left behind at exit whatever the cache's state. */
static bool em__cc_tmpdir(char *buf, size_t len) {
    const char *t = getenv("TMPDIR");
    int n = snprintf(buf, len, "%s/ember-cc-XXXXXX", t && *t ? t : "/tmp");
    return n > 0 && (size_t)n < len && mkdtemp(buf) != NULL;
}

/* EM_ECOMPILE with the compiler's output and the numbered source. */
static em_status em__cc_error(const char *name, const char *src, const char *log, int rc) {
    char head[1024];
    snprintf(head, sizeof head,
             "the C compiler (%s) could not compile '%s' (exit status %d):", em__cc_cmd, name, rc);
    return em_compile_error(head, log, src);
}

/* Read up to len-1 bytes of a file into buf (NUL-terminated). */
static void em__cc_slurp(const char *path, char *buf, size_t len) {
    buf[0] = 0;
    FILE *f = fopen(path, "rb");
    if (!f) return;
    size_t n = fread(buf, 1, len - 1, f);
    buf[n] = 0;
    fclose(f);
}

/* Read a whole regular file (that we just built) into memory. */
static bool em__cc_read_file(const char *path, void **data, size_t *n) {
    int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0) return false;
    struct stat st;
    char *buf = NULL;
    bool ok = fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0 &&
              (buf = malloc((size_t)st.st_size)) != NULL;
    size_t off = 0;
    while (ok && off < (size_t)st.st_size) {
        ssize_t r = read(fd, buf + off, (size_t)st.st_size - off);
        if (r < 0 && errno == EINTR) continue;
        if (r <= 0)
            ok = false;
        else
            off += (size_t)r;
    }
    close(fd);
    if (!ok) {
        free(buf);
        return false;
    }
    *data = buf, *n = off;
    return true;
}

/* Compile src in a private temporary directory; the object's bytes come
 * back in *obj (malloc'ed) and the directory is gone on return. */
static em_status em__cc_build(const char *src, const char *name, void **obj, size_t *objn) {
    char dir[300], csrc[400], tmpso[400], logp[400], buf[1024], *argv[EM_CC_MAXARGS + 16];
    if (!em__cc_tmpdir(dir, sizeof dir))
        return em_error(EM_EDEVICE,
                        "cannot create a temporary directory for the C compiler "
                        "(set TMPDIR): %s",
                        strerror(errno));
    snprintf(csrc, sizeof csrc, "%s/kernel.c", dir);
    snprintf(logp, sizeof logp, "%s/kernel.log", dir);
    snprintf(tmpso, sizeof tmpso, "%s/kernel.so", dir);
    em_status s = EM_OK;
    int fd = open(csrc, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    size_t len = strlen(src), off = 0;
    while (fd >= 0 && off < len) {
        ssize_t w = write(fd, src + off, len - off);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) break;
        off += (size_t)w;
    }
    if (fd < 0 || off != len)
        s = em_error(EM_EDEVICE, "cannot write C source in %s: %s", dir, strerror(errno));
    if (fd >= 0) close(fd);
    int logfd = s == EM_OK ? open(logp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600) : -1;
    if (s == EM_OK && logfd < 0)
        s = em_error(EM_EDEVICE, "cannot create a compiler log in %s: %s", dir, strerror(errno));
    if (s == EM_OK) {
        char flags[256];
        snprintf(flags, sizeof flags, "%s", em__cc_flags());
        int n = em__cc_split(em__cc_cmd, buf, sizeof buf, argv, EM_CC_MAXARGS);
        char *save = NULL;
        for (char *t = strtok_r(flags, " ", &save); t; t = strtok_r(NULL, " ", &save))
            argv[n++] = t;
        argv[n++] = "-o";
        argv[n++] = tmpso;
        argv[n++] = csrc;
        argv[n++] = "-lm";
        argv[n] = NULL;
        int rc = em__cc_spawn(argv, logfd);
        if (rc != 0) {
            char *log = malloc(12000);
            if (log) em__cc_slurp(logp, log, 12000);
            s = em__cc_error(name, src, log ? log : "", rc);
            free(log);
        } else if (!em__cc_read_file(tmpso, obj, objn)) {
            s = em_error(EM_EDEVICE, "cannot read the compiled object %s: %s", tmpso,
                         strerror(errno));
        }
    }
    if (logfd >= 0) close(logfd);
    unlink(csrc);
    unlink(logp);
    unlink(tmpso);
    rmdir(dir);
    return s;
}

/* dlopen an object held in memory.  It goes to an anonymous memory file
 * (memfd: no one else can change or truncate it under the mapping, and a
 * noexec /tmp does not matter) reached through a link in a private
 * temporary directory (glibc knows loaded objects by the path string, so
 * "/proc/self/fd/N" itself would be taken for an earlier object whose
 * descriptor had the same number); without memfd or /proc the object is a
 * file in that directory.  The directory is removed once the object is
 * loaded.  NULL if it does not load; *why says why. */
static void *em__cc_dlopen_image(const void *obj, size_t n, char *why, size_t wlen) {
    char path[400], dir[300], target[64];
    if (!em__cc_tmpdir(dir, sizeof dir)) {
        snprintf(why, wlen, "cannot create a temporary directory (set TMPDIR): %s",
                 strerror(errno));
        return NULL;
    }
    snprintf(path, sizeof path, "%s/kernel.so", dir);
    int fd = memfd_create("ember-kernel", MFD_CLOEXEC);
    if (fd >= 0) {
        snprintf(target, sizeof target, "/proc/self/fd/%d", fd);
        if (access(target, F_OK) != 0 || symlink(target, path) != 0) {
            close(fd);
            fd = -1;
        }
    }
    if (fd < 0) fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0700);
    void *h = NULL;
    size_t off = 0;
    while (fd >= 0 && off < n) {
        ssize_t w = write(fd, (const char *)obj + off, n - off);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) break;
        off += (size_t)w;
    }
    if (fd < 0 || off != n)
        snprintf(why, wlen, "cannot stage the object: %s", strerror(errno));
    else if (!(h = dlopen(path, RTLD_NOW | RTLD_LOCAL)))
        snprintf(why, wlen, "%s", dlerror());
    if (fd >= 0) close(fd);
    unlink(path);
    rmdir(dir);
    return h;
}

static em_cc_lib *em__cc_find(const char *key) {
    for (em_cc_lib *l = em__cc_libs; l; l = l->next)
        if (!strcmp(l->key, key)) return l;
    return NULL;
}

/* Load (building first if needed) the object for key; called with the lock.
 * A cache entry is verified (diskcache.h) before it is loaded; one that
 * fails, or that verifies and still does not load, is rebuilt and replaced. */
static em_status em__cc_load_locked(const char *src, const char *name, const char *key,
                                    em_cc_lib **out) {
    char file[96], why[512] = "";
    snprintf(file, sizeof file, "%s.so", key);
    double t0 = em__cc_now();
    void *obj = NULL, *h = NULL;
    size_t objn = 0;
    if (em_diskcache_get(file, &obj, &objn)) {
        h = em__cc_dlopen_image(obj, objn, why, sizeof why);
        if (!h && em_debug_level() >= 1)
            fprintf(stderr, "ember: cached C kernel %s does not load (%s); rebuilding\n", file,
                    why);
        free(obj);
    }
    bool hit = h != NULL;
    if (!h) {
        if (em_debug_level() >= 4) fprintf(stderr, "ember: C kernel '%s' source:\n%s\n", name, src);
        EM_CHECK(em__cc_build(src, name, &obj, &objn));
        h = em__cc_dlopen_image(obj, objn, why, sizeof why);
        if (h) em_diskcache_put(file, obj, objn);
        free(obj);
        if (!h) return em_error(EM_ECOMPILE, "cannot load the compiled '%s': %s", name, why);
    }
    em_cc_lib *l = calloc(1, sizeof *l);
    if (!l) return em_error(EM_ENOMEM, "no memory for a compiled object");
    snprintf(l->key, sizeof l->key, "%s", key);
    l->handle = h;
    l->next = em__cc_libs;
    em__cc_libs = l;
    if (em_debug_level() >= 2)
        fprintf(stderr, "ember: C kernel cache %s %s for '%s' in %.1f ms\n",
                hit ? "hit (disk)" : "miss", key, name, (em__cc_now() - t0) * 1e3);
    *out = l;
    return EM_OK;
}

em_status em_cc_load(const char *src, const char *name, em_cc_lib **out) {
    if (!src || !out)
        return em_error(EM_EVALUE, "em_cc_load: source and result pointer are required");
    if (!em_cc_available()) return EM_EUNSUPPORTED;
    char ver[64], file[80];
    snprintf(ver, sizeof ver, "ember %s", EM_VERSION);
    const char *parts[] = {src, em__cc_flags(), em__cc_ident, ver, em__cc_cmd};
    em_diskcache_name(5, parts, file, sizeof file);
    file[strcspn(file, ".")] = 0; /* the name ends in .cubin: keep the hash */
    pthread_mutex_lock(&em__cc_lock);
    em_cc_lib *l = em__cc_find(file);
    em_status s = EM_OK;
    if (l) {
        if (em_debug_level() >= 3)
            fprintf(stderr, "ember: C kernel cache hit (memory) for '%s'\n", name ? name : "?");
    } else {
        s = em__cc_load_locked(src, name ? name : "kernel", file, &l);
    }
    pthread_mutex_unlock(&em__cc_lock);
    if (s == EM_OK) *out = l;
    return s;
}

void *em_cc_sym(em_cc_lib *lib, const char *sym) {
    if (!lib || !sym) return NULL;
    return dlsym(lib->handle, sym);
}
