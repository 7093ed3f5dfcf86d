/* The kernel disk cache's API (src/codegen/diskcache.h) without a compiler:
 * round trip, every kind of bad entry reads as a miss, and directories keep
 * their modes; the compile wrapper of NVRTC and OpenCL with a counting
 * stand-in compiler; entries of a binary and a string table.
 * (test_diskcache.py covers the same through the C JIT.) */
#include "codegen/diskcache.h"
#include "ctest.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char root[64];

static void setdir(const char *sub, char *path, size_t len) {
    snprintf(path, len, "%s/%s", root, sub);
    setenv("EMBER_CACHE_DIR", path, 1);
}

static bool hit(const char *name, const char *want) {
    void *d = NULL;
    size_t n = 0;
    bool ok = em_diskcache_get(name, &d, &n);
    if (ok) ok = n == strlen(want) && !memcmp(d, want, n);
    free(d);
    return ok;
}

static void test_round_trip_and_bad_entries(void) {
    char dir[128], path[256], other[256];
    setdir("a", dir, sizeof dir);
    CHECK(em_diskcache_put("k1.bin", "payload one", 11));
    CHECK(hit("k1.bin", "payload one"));
    struct stat st;
    CHECK(stat(dir, &st) == 0 && (st.st_mode & 0777) == 0700);
    snprintf(path, sizeof path, "%s/k1.bin", dir);
    /* Each byte flipped in turn, header and payload: a miss every time. */
    FILE *f = fopen(path, "rb");
    unsigned char good[64];
    size_t n = f ? fread(good, 1, sizeof good, f) : 0;
    if (f) fclose(f);
    CHECK(n == 24 + 11);
    int missed = 0;
    for (size_t i = 0; i < n; i++) {
        unsigned char bad[64];
        memcpy(bad, good, n);
        bad[i] ^= 0x10;
        f = fopen(path, "wb");
        if (f) fwrite(bad, 1, n, f), fclose(f);
        missed += !hit("k1.bin", "payload one");
    }
    CHECK(missed == (int)n);
    /* Truncated to every length, and one byte too long. */
    for (size_t len = 0; len <= n; len++) {
        f = fopen(path, "wb");
        if (f) fwrite(good, 1, len, f), fclose(f);
        CHECK(hit("k1.bin", "payload one") == (len == n));
    }
    f = fopen(path, "ab");
    if (f) fputc(0, f), fclose(f);
    CHECK(!hit("k1.bin", "payload one"));
    /* A valid entry under another name. */
    CHECK(em_diskcache_put("k1.bin", "payload one", 11));
    CHECK(em_diskcache_put("k2.bin", "payload two", 11));
    snprintf(other, sizeof other, "%s/k2.bin", dir);
    CHECK(rename(path, other) == 0);
    CHECK(!hit("k2.bin", "payload one") && !hit("k2.bin", "payload two"));
    /* A FIFO: no hang, a miss, and put replaces it. */
    CHECK(mkfifo(path, 0600) == 0);
    CHECK(!hit("k1.bin", "payload one"));
    CHECK(em_diskcache_put("k1.bin", "payload one", 11) && hit("k1.bin", "payload one"));
    /* A link to a valid entry is not followed. */
    CHECK(em_diskcache_put("k3.bin", "payload one", 11));
    snprintf(other, sizeof other, "%s/k3.bin", dir);
    CHECK(unlink(path) == 0 && symlink(other, path) == 0);
    CHECK(!hit("k1.bin", "payload one"));
}

static void test_modes_are_kept(void) {
    const int modes[] = {0777, 01777, 0755, 0750, 0700};
    for (int i = 0; i < 5; i++) {
        char dir[128], sub[200];
        char name[16];
        snprintf(name, sizeof name, "m%o", modes[i]);
        setdir(name, dir, sizeof dir);
        CHECK(mkdir(dir, 0700) == 0 && chmod(dir, (mode_t)modes[i]) == 0);
        CHECK(em_diskcache_put("k.bin", "x", 1) && hit("k.bin", "x"));
        struct stat st;
        CHECK(stat(dir, &st) == 0 && (int)(st.st_mode & 07777) == modes[i]);
        char got[300];
        CHECK(em_diskcache_dir(got, sizeof got));
        snprintf(sub, sizeof sub, "%s/ember-%lu", dir, (unsigned long)geteuid());
        CHECK(!strcmp(got, (modes[i] & 077) ? sub : dir));
    }
}

static void test_file_instead_of_dir(void) {
    char path[128], got[300];
    setdir("file", path, sizeof path);
    FILE *f = fopen(path, "w");
    if (f) fputs("keep", f), fclose(f);
    CHECK(chmod(path, 0644) == 0);
    CHECK(!em_diskcache_dir(got, sizeof got));
    CHECK(!em_diskcache_put("k.bin", "x", 1) && !hit("k.bin", "x"));
    struct stat st;
    CHECK(stat(path, &st) == 0 && (st.st_mode & 07777) == 0644 && st.st_size == 4);
}

/* A stand-in compiler: counts its builds and offers, refuses while told to. */
typedef struct fake {
    int builds, takes;
    bool refuse, no_binary, fail;
} fake;

static bool fake_take(const em_cache_compile *c, const void *bin, size_t n) {
    fake *f = c->ctx;
    f->takes++;
    return !f->refuse && n == 6 && !memcmp(bin, "BINARY", 6);
}

static em_status fake_build(const em_cache_compile *c, void **bin, size_t *n) {
    fake *f = c->ctx;
    f->builds++;
    if (f->fail) return em_error(EM_ECOMPILE, "fake compiler failed");
    *bin = f->no_binary ? NULL : malloc(6);
    if (*bin) memcpy(*bin, "BINARY", 6), *n = 6;
    return EM_OK;
}

static void test_compile_through_the_cache(void) {
    char dir[128];
    setdir("compile", dir, sizeof dir);
    fake f = {0};
    const char *opts[] = {"-opt"}, *ids[] = {"v1"}, *names[] = {"f<int>"};
    em_cache_compile c = {.compiler = "fake",
                          .name = "k",
                          .src = "source",
                          .opts = opts,
                          .nopt = 1,
                          .ids = ids,
                          .nids = 1,
                          .ctx = &f,
                          .take = fake_take,
                          .build = fake_build};
    void *bin = NULL;
    size_t n = 0;
    /* A miss builds and stores; the same key then hits without a build. */
    CHECK(em_diskcache_compile(&c, &bin, &n) == EM_OK && n == 6 && f.builds == 1 && f.takes == 0);
    free(bin), bin = NULL;
    CHECK(em_diskcache_compile(&c, &bin, &n) == EM_OK && n == 6 && f.builds == 1 && f.takes == 1);
    CHECK(bin && !memcmp(bin, "BINARY", 6));
    free(bin), bin = NULL;
    /* Another option is another entry, named by source, options, ids in
     * that order (the names NVRTC's and OpenCL's entries always had). */
    opts[0] = "-other";
    CHECK(em_diskcache_compile(&c, &bin, &n) == EM_OK && f.builds == 2);
    free(bin), bin = NULL;
    char file[80];
    const char *key[] = {"source", "-other", "v1"};
    em_diskcache_name(3, key, file, sizeof file);
    CHECK(em_diskcache_get(file, &bin, &n) && n == 6);
    free(bin), bin = NULL;
    /* Name expressions are part of the key. */
    c.names = names, c.nnames = 1;
    CHECK(em_diskcache_compile(&c, &bin, &n) == EM_OK && f.builds == 3);
    free(bin), bin = NULL;
    c.nnames = 0;
    /* A refused entry is built again; without take every entry is used. */
    f.refuse = true;
    CHECK(em_diskcache_compile(&c, &bin, &n) == EM_OK && f.builds == 4 && f.takes == 2);
    free(bin), bin = NULL;
    c.take = NULL;
    CHECK(em_diskcache_compile(&c, &bin, &n) == EM_OK && f.builds == 4 && bin);
    free(bin), bin = NULL;
    /* A compiler without a binary stores nothing; a failure is the compiler's error. */
    ids[0] = "v2";
    f.no_binary = true;
    CHECK(em_diskcache_compile(&c, &bin, &n) == EM_OK && !bin && f.builds == 5);
    CHECK(em_diskcache_compile(&c, &bin, &n) == EM_OK && !bin && f.builds == 6);
    ids[0] = "v3";
    f.fail = true;
    CHECK(em_diskcache_compile(&c, &bin, &n) == EM_ECOMPILE && f.builds == 7);
    CHECK(strstr(em_last_error(), "fake compiler failed") != NULL);
}

static void test_join_and_split(void) {
    char *bin = malloc(5);
    memcpy(bin, "CUBIN", 5);
    const char table[] = "f<float>\0g<int>"; /* two strings, the last NUL included */
    size_t n = 0, bn = 0;
    char *e = em_diskcache_join(bin, 5, table, sizeof table, &n), *t = NULL;
    CHECK(e && n == 8 + 5 + sizeof table);
    CHECK(e && !em_diskcache_split(e, n, 3, &bn, &t));     /* not 3 strings */
    CHECK(e && !em_diskcache_split(e, 7, 2, &bn, &t));     /* shorter than its header */
    CHECK(e && !em_diskcache_split(e, n - 1, 2, &bn, &t)); /* table cut short */
    CHECK(e && em_diskcache_split(e, n, 2, &bn, &t) && bn == 5 && !memcmp(e, "CUBIN", 5));
    CHECK(t && !strcmp(t, "f<float>") && !strcmp(t + 9, "g<int>"));
    free(e), free(t);
}

int main(void) {
    snprintf(root, sizeof root, "/tmp/ember-test-dc-XXXXXX");
    if (!mkdtemp(root)) return 1;
    RUN(test_round_trip_and_bad_entries);
    RUN(test_modes_are_kept);
    RUN(test_file_instead_of_dir);
    RUN(test_compile_through_the_cache);
    RUN(test_join_and_split);
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf %s", root);
    if (system(cmd) != 0) fprintf(stderr, "could not remove %s\n", root);
    return ctest_summary();
}
