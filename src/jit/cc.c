/* The system C compiler as a JIT (ember/kernel.h). */
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

/* The working directory: the kernel cache, else a private temporary one. */
static bool em__cc_dir(char *buf, size_t len) {
    if (em_diskcache_dir(buf, len)) return true;
    static char tmpdir[256];
    if (!tmpdir[0]) {
        const char *t = getenv("TMPDIR");
        snprintf(tmpdir, sizeof tmpdir, "%s/ember-cc-XXXXXX", t && *t ? t : "/tmp");
        if (!mkdtemp(tmpdir)) {
            tmpdir[0] = 0;
            return false;
        }
    }
    snprintf(buf, len, "%s", tmpdir);
    return true;
}

/* EM_ECOMPILE with the compiler's output and the numbered source. */
static em_status em__cc_error(const char *name, const char *src, const char *log, int rc) {
    em_sbuf m = {0};
    em_sbuf_printf(&m, "the C compiler (%s) could not compile '%s' (exit status %d):\n%s\n-- source --\n",
                   em__cc_cmd, name, rc, log);
    int line = 1;
    for (const char *c = src; *c;) {
        size_t n = strcspn(c, "\n");
        em_sbuf_printf(&m, "%4d  %.*s\n", line++, (int)n, c);
        c += n + (c[n] == '\n');
    }
    em_status s = em_error(EM_ECOMPILE, "%s", m.s ? m.s : "C compilation failed");
    if (em_debug_level() >= 1 && m.s) fprintf(stderr, "ember: %s\n", m.s);
    em_sbuf_free(&m);
    return s;
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

/* Write src to a fresh file made from tmpl (mkstemps with suffix length sl). */
static bool em__cc_write_src(char *tmpl, int sl, const char *src) {
    int fd = mkstemps(tmpl, sl);
    if (fd < 0) return false;
    size_t n = strlen(src), off = 0;
    while (off < n) {
        ssize_t w = write(fd, src + off, n - off);
        if (w <= 0 && errno != EINTR) break;
        if (w > 0) off += (size_t)w;
    }
    close(fd);
    return off == n;
}

/* Compile src into `so` (a temporary object renamed into place). */
static em_status em__cc_build(const char *dir, const char *src, const char *name, const char *so) {
    char csrc[4200], tmpso[4200], logp[4200], buf[1024], *argv[EM_CC_MAXARGS + 16];
    snprintf(csrc, sizeof csrc, "%s/jit-XXXXXX.c", dir);
    snprintf(logp, sizeof logp, "%s/jit-XXXXXX.log", dir);
    if (!em__cc_write_src(csrc, 2, src)) return em_error(EM_EDEVICE, "cannot write C source in %s: %s", dir, strerror(errno));
    int logfd = mkstemps(logp, 4);
    if (logfd < 0) {
        unlink(csrc);
        return em_error(EM_EDEVICE, "cannot create a compiler log in %s: %s", dir, strerror(errno));
    }
    snprintf(tmpso, sizeof tmpso, "%.*s.so", (int)(strlen(csrc) - 2), csrc);
    char flags[256];
    snprintf(flags, sizeof flags, "%s", em__cc_flags());
    int n = em__cc_split(em__cc_cmd, buf, sizeof buf, argv, EM_CC_MAXARGS);
    char *save = NULL;
    for (char *t = strtok_r(flags, " ", &save); t; t = strtok_r(NULL, " ", &save)) argv[n++] = t;
    argv[n++] = "-o";
    argv[n++] = tmpso;
    argv[n++] = csrc;
    argv[n++] = "-lm";
    argv[n] = NULL;
    int rc = em__cc_spawn(argv, logfd);
    close(logfd);
    em_status s = EM_OK;
    if (rc != 0) {
        char *log = malloc(12000);
        if (log) em__cc_slurp(logp, log, 12000);
        s = em__cc_error(name, src, log ? log : "", rc);
        free(log);
        unlink(tmpso);
    } else if (rename(tmpso, so) != 0) {
        s = em_error(EM_EDEVICE, "cannot move the compiled object to %s: %s", so, strerror(errno));
        unlink(tmpso);
    }
    unlink(csrc);
    unlink(logp);
    return s;
}

static em_cc_lib *em__cc_find(const char *key) {
    for (em_cc_lib *l = em__cc_libs; l; l = l->next)
        if (!strcmp(l->key, key)) return l;
    return NULL;
}

/* Load (building first if needed) the object for key; called with the lock. */
static em_status em__cc_load_locked(const char *src, const char *name, const char *key, em_cc_lib **out) {
    char dir[4096], so[4200];
    if (!em__cc_dir(dir, sizeof dir))
        return em_error(EM_EDEVICE, "no usable directory for compiled kernels (set EMBER_CACHE_DIR)");
    snprintf(so, sizeof so, "%s/%s.so", dir, key);
    double t0 = em__cc_now();
    void *h = access(so, R_OK) == 0 ? dlopen(so, RTLD_NOW | RTLD_LOCAL) : NULL;
    bool hit = h != NULL;
    if (!h) {
        /* Absent, or a corrupt object left by a crash: build it afresh. */
        if (em_debug_level() >= 4) fprintf(stderr, "ember: C kernel '%s' source:\n%s\n", name, src);
        EM_CHECK(em__cc_build(dir, src, name, so));
        h = dlopen(so, RTLD_NOW | RTLD_LOCAL);
        if (!h) return em_error(EM_ECOMPILE, "cannot load the compiled '%s' (%s): %s", name, so, dlerror());
    }
    em_cc_lib *l = calloc(1, sizeof *l);
    if (!l) return em_error(EM_ENOMEM, "no memory for a compiled object");
    snprintf(l->key, sizeof l->key, "%s", key);
    l->handle = h;
    l->next = em__cc_libs;
    em__cc_libs = l;
    if (em_debug_level() >= 2)
        fprintf(stderr, "ember: C kernel cache %s %s for '%s' in %.1f ms\n", hit ? "hit (disk)" : "miss",
                key, name, (em__cc_now() - t0) * 1e3);
    *out = l;
    return EM_OK;
}

em_status em_cc_load(const char *src, const char *name, em_cc_lib **out) {
    if (!src || !out) return em_error(EM_EVALUE, "em_cc_load: source and result pointer are required");
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
        if (em_debug_level() >= 3) fprintf(stderr, "ember: C kernel cache hit (memory) for '%s'\n", name ? name : "?");
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
