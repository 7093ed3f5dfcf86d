/* The kernel disk cache's API (src/codegen/diskcache.h) without a compiler:
 * round trip, every kind of bad entry reads as a miss, and directories keep
 * their modes.  (test_diskcache.py covers the same through the C JIT.) */
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

int main(void) {
    snprintf(root, sizeof root, "/tmp/ember-test-dc-XXXXXX");
    if (!mkdtemp(root)) return 1;
    RUN(test_round_trip_and_bad_entries);
    RUN(test_modes_are_kept);
    RUN(test_file_instead_of_dir);
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf %s", root);
    if (system(cmd) != 0) fprintf(stderr, "could not remove %s\n", root);
    return ctest_summary();
}
