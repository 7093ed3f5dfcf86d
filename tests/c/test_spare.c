/* em_spare (src/core/spare.h): blocks come back for reuse, a full set of
 * slots frees the rest, and threads taking and giving at once never get one
 * block twice (run under ASan in CI, which would also see a double free). */
#include "core/spare.h"
#include "ctest.h"

#include <pthread.h>
#include <stdint.h>

static void test_reuse_and_overflow(void) {
    static em_spare s;
    void *a = em_spare_alloc(&s, 64);
    CHECK(a != NULL);
    em_spare_free(&s, a);
    CHECK(em_spare_alloc(&s, 64) == a); /* the same block again */
    void *b[EM_SPARE_SLOTS + 3];
    for (int i = 0; i < EM_SPARE_SLOTS + 3; i++) b[i] = i ? em_spare_alloc(&s, 64) : a;
    for (int i = 0; i < EM_SPARE_SLOTS + 3; i++) em_spare_free(&s, b[i]); /* 3 go to free() */
    int back = 0;
    void *c[EM_SPARE_SLOTS];
    for (int i = 0; i < EM_SPARE_SLOTS; i++) {
        c[i] = em_spare_alloc(&s, 64);
        for (int k = 0; k < EM_SPARE_SLOTS + 3; k++) back += c[i] == b[k];
    }
    CHECK(back == EM_SPARE_SLOTS); /* every slot held one of ours */
    for (int i = 0; i < EM_SPARE_SLOTS; i++) free(c[i]);
    em_spare_free(&s, NULL); /* no-op */
}

static em_spare shared;

/* Each block carries its owner's mark while held: a block handed to two
 * threads at once would show the other's mark. */
static void *hammer(void *arg) {
    uintptr_t me = (uintptr_t)arg;
    long bad = 0;
    for (int i = 0; i < 200000; i++) {
        uintptr_t *p = em_spare_alloc(&shared, 64);
        if (!p) return (void *)1;
        *p = me;
        for (volatile int k = 0; k < 8; k++) {}
        bad += *p != me;
        em_spare_free(&shared, p);
    }
    return (void *)bad;
}

static void test_threads(void) {
    pthread_t t[6];
    for (uintptr_t i = 0; i < 6; i++)
        CHECK(pthread_create(&t[i], NULL, hammer, (void *)(i + 1)) == 0);
    for (int i = 0; i < 6; i++) {
        void *r;
        pthread_join(t[i], &r);
        CHECK(r == NULL);
    }
    for (int i = 0; i < EM_SPARE_SLOTS; i++) free(em_spare_alloc(&shared, 64));
}

int main(void) {
    RUN(test_reuse_and_overflow);
    RUN(test_threads);
    return ctest_summary();
}
