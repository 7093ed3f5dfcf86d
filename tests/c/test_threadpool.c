/* The thread pool: every index once, nesting runs inline, concurrent callers. */
#include "ctest.h"
#include "backend/threadpool.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>

typedef struct {
    atomic_uchar *hits;
    atomic_int calls;
    int nested;
} cover_ctx;

static void mark(void *p, int64_t b, int64_t e, int worker) {
    cover_ctx *c = p;
    atomic_fetch_add(&c->calls, 1);
    if (worker < 0 || worker >= em_pool_workers()) return; /* leaves holes: caught below */
    for (int64_t i = b; i < e; i++) atomic_fetch_add(&c->hits[i], 1);
}

/* Run em_parallel_for(n, grain) and check every index was visited once. */
static int covers_once(int64_t n, int64_t grain) {
    cover_ctx c = {calloc((size_t)(n > 0 ? n : 1), 1), 0, 0};
    em_parallel_for(n, grain, mark, &c);
    int ok = 1;
    for (int64_t i = 0; i < n; i++) ok &= c.hits[i] == 1;
    if (n <= 0) ok &= atomic_load(&c.calls) == 0;
    free(c.hits);
    return ok;
}

static void test_cover_exactly_once(void) {
    int64_t sizes[] = {0, -3, 1, 2, 3, 7, 64, 1000, 4097, 100003};
    int64_t grains[] = {0, 1, 2, 10, 1000, 1 << 20};
    for (int t = 1; t <= 4; t++) {
        em_set_num_threads(t);
        for (int i = 0; i < 10; i++)
            for (int g = 0; g < 6; g++) CHECK(covers_once(sizes[i], grains[g]));
    }
    em_set_num_threads(0); /* clamps to 1 */
    CHECK(em_get_num_threads() == 1);
    em_set_num_threads(2);
}

static void inner(void *p, int64_t b, int64_t e, int worker) {
    atomic_long *sum = p;
    atomic_fetch_add(sum, e - b);
    (void)worker;
}

static void outer(void *p, int64_t b, int64_t e, int worker) {
    atomic_long *sum = p;
    for (int64_t i = b; i < e; i++) em_parallel_for(100, 1, inner, sum); /* runs inline */
    (void)worker;
}

static void test_nested_runs_inline(void) {
    em_set_num_threads(4);
    atomic_long sum = 0;
    em_parallel_for(50, 1, outer, &sum);
    CHECK(atomic_load(&sum) == 50 * 100);
    em_set_num_threads(2);
}

static void *caller(void *arg) {
    (void)arg;
    for (int r = 0; r < 200; r++)
        if (!covers_once(5000 + r, 100)) return (void *)1;
    return NULL;
}

static void test_concurrent_callers(void) {
    em_set_num_threads(3);
    pthread_t t[4];
    for (int i = 0; i < 4; i++) CHECK(pthread_create(&t[i], NULL, caller, NULL) == 0);
    for (int i = 0; i < 4; i++) {
        void *rc;
        pthread_join(t[i], &rc);
        CHECK(rc == NULL);
    }
    em_set_num_threads(2);
}

int main(void) {
    RUN(test_cover_exactly_once);
    RUN(test_nested_runs_inline);
    RUN(test_concurrent_callers);
    return ctest_summary();
}
