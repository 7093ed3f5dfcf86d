/* The host memory pool: reuse, size classes, stats, release, threads. */
#include "ctest.h"
#include "mem/hostpool.h"

#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>

/* Whether the pool caches in this build (off under the sanitizers). */
static int pool_caches(void) {
    void *p = em_host_alloc(1000);
    em_host_free(p, 1000);
    size_t cached = 0;
    em_host_pool_stats(NULL, &cached);
    em_host_pool_release();
    return cached > 0;
}

static void test_alloc_alignment_and_stats(void) {
    size_t used0, used, cached;
    em_host_pool_stats(&used0, NULL);
    size_t sizes[] = {1, 63, 64, 65, 1000, 4096, 100000, 3 << 20};
    void *p[8];
    for (int i = 0; i < 8; i++) {
        p[i] = em_host_alloc(sizes[i]);
        CHECK(p[i] != NULL);
        CHECK(((uintptr_t)p[i] % 64) == 0);
        memset(p[i], 0xab, sizes[i]); /* the whole block is usable */
    }
    em_host_pool_stats(&used, NULL);
    size_t want = 0;
    for (int i = 0; i < 8; i++) want += sizes[i];
    CHECK(used - used0 >= want);                     /* rounded up to a size class... */
    CHECK(used - used0 <= want + want / 4 + 8 * 64); /* ...with at most 25% slack */
    for (int i = 0; i < 8; i++) em_host_free(p[i], sizes[i]);
    em_host_pool_stats(&used, &cached);
    CHECK(used == used0);
    em_host_pool_release();
    em_host_pool_stats(NULL, &cached);
    CHECK(cached == 0);
    em_host_free(NULL, 10); /* freeing NULL is a no-op */
}

static void test_reuse_by_size_class(void) {
    if (!pool_caches()) return; /* EMBER_HOST_POOL=0 or a sanitizer build */
    void *a = em_host_alloc(5000);
    em_host_free(a, 5000);
    size_t cached;
    em_host_pool_stats(NULL, &cached);
    CHECK(cached >= 5000);
    void *b = em_host_alloc(4900); /* same class as 5000: the cached block */
    CHECK(a == b);
    em_host_free(b, 4900);
    void *c = em_host_alloc(20000); /* another class: a fresh block */
    CHECK(c != a);
    em_host_free(c, 20000);
    em_host_pool_release();
    em_host_pool_stats(NULL, &cached);
    CHECK(cached == 0);
}

#define NTHREADS 8
#define ROUNDS 2000

static void *churn(void *arg) {
    unsigned seed = (unsigned)(uintptr_t)arg;
    void *held[16] = {0};
    size_t sz[16] = {0};
    int bad = 0;
    for (int r = 0; r < ROUNDS; r++) {
        int k = (int)(rand_r(&seed) % 16);
        if (held[k]) {
            /* the pattern written at allocation must still be there */
            if (((unsigned char *)held[k])[sz[k] - 1] != (unsigned char)k) bad++;
            em_host_free(held[k], sz[k]);
        }
        sz[k] = 1 + rand_r(&seed) % 70000;
        held[k] = em_host_alloc(sz[k]);
        if (!held[k]) return (void *)1;
        memset(held[k], k, sz[k]);
    }
    for (int k = 0; k < 16; k++) em_host_free(held[k], sz[k]);
    return (void *)(intptr_t)(bad != 0);
}

static void test_threads(void) {
    size_t used0, used;
    em_host_pool_stats(&used0, NULL);
    pthread_t t[NTHREADS];
    for (int i = 0; i < NTHREADS; i++)
        CHECK(pthread_create(&t[i], NULL, churn, (void *)(uintptr_t)(i + 1)) == 0);
    for (int i = 0; i < NTHREADS; i++) {
        void *rc;
        pthread_join(t[i], &rc);
        CHECK(rc == NULL);
    }
    em_host_pool_stats(&used, NULL);
    CHECK(used == used0); /* every byte handed out came back */
    em_host_pool_release();
}

int main(void) {
    RUN(test_alloc_alignment_and_stats);
    RUN(test_reuse_by_size_class);
    RUN(test_threads);
    return ctest_summary();
}
