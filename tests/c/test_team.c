/* Helper-thread teams (host/team.h): every index once, in at most
 * em_team_size() parts, on the team's threads as well as the caller's, many
 * jobs in a row, and two teams driven from two threads at once (two
 * devices' staged copies). */
#include "ctest.h"
#include "host/team.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <time.h>

typedef struct {
    atomic_uchar *hits;
    atomic_int parts;
    pthread_t caller;
    atomic_int others; /* parts run on a thread other than the caller's */
} cover;

static void mark(void *p, int64_t b, int64_t e, int worker) {
    cover *c = p;
    atomic_fetch_add(&c->parts, 1);
    if (worker < 0 || worker >= em_team_size()) return; /* leaves holes: caught below */
    if (!pthread_equal(pthread_self(), c->caller)) atomic_fetch_add(&c->others, 1);
    for (int64_t i = b; i < e; i++) atomic_fetch_add(&c->hits[i], 1);
    /* long enough that the helpers wake while parts are left */
    for (volatile int k = 0; k < 2000; k++) {}
}

/* One job of n indices, grain g, on team t: (every index once, parts, others). */
static int covers_once(em_team *t, int64_t n, int64_t g, int *others) {
    cover c = {calloc((size_t)(n > 0 ? n : 1), 1), 0, pthread_self(), 0};
    em_team_run(t, n, g, mark, &c);
    int ok = 1;
    for (int64_t i = 0; i < n; i++) ok &= c.hits[i] == 1;
    int64_t most = g > 0 ? n / g : n;
    ok &= atomic_load(&c.parts) <= (most > em_team_size() ? em_team_size() : most > 1 ? most : 1);
    if (n <= 0) ok &= atomic_load(&c.parts) == 0;
    if (others) *others += atomic_load(&c.others);
    free(c.hits);
    return ok;
}

static em_team *team_new(void) {
    em_team *t = calloc(1, sizeof *t);
    pthread_mutex_init(&t->lock, NULL);
    pthread_cond_init(&t->go, NULL);
    pthread_cond_init(&t->done, NULL);
    return t;
}

static void test_cover_exactly_once(void) {
    CHECK(em_team_size() == 4); /* EMBER_STAGE_THREADS, set in main */
    em_team *t = team_new();
    const int64_t sizes[] = {0, 1, 3, 4, 5, 64, 1000, 4097};
    const int64_t grains[] = {0, 1, 2, 7, 100, 5000};
    int others = 0;
    for (int i = 0; i < 8; i++)
        for (int g = 0; g < 6; g++) CHECK(covers_once(t, sizes[i], grains[g], &others));
    for (int r = 0; r < 300; r++) CHECK(covers_once(t, 4096, 64, &others));
    CHECK(others > 0); /* the helpers took parts: the work is not all the caller's */
    CHECK(t->helpers == 3);
}

static void *drive(void *arg) {
    em_team *t = arg;
    for (int r = 0; r < 300; r++)
        if (!covers_once(t, 3000 + r, 16, NULL)) return (void *)1;
    return NULL;
}

static void test_two_teams_at_once(void) {
    em_team *t[2] = {team_new(), team_new()};
    pthread_t th[2];
    for (int i = 0; i < 2; i++) CHECK(pthread_create(&th[i], NULL, drive, t[i]) == 0);
    for (int i = 0; i < 2; i++) {
        void *rc = NULL;
        pthread_join(th[i], &rc);
        CHECK(rc == NULL);
    }
}

/* Helpers that watch for the next job (EMBER_STAGE_SPIN_US) before they
 * sleep: the same coverage, jobs back to back (taken while watching) and
 * after a pause longer than the watch (taken after a wake). */
static void test_watching_helpers(void) {
    setenv("EMBER_STAGE_SPIN_US", "2000", 1);
    em_team *t = team_new();
    int others = 0;
    for (int r = 0; r < 300; r++) CHECK(covers_once(t, 4096, 64, &others));
    CHECK(t->spin_ns == 2000000);
    for (int r = 0; r < 3; r++) {
        struct timespec pause = {0, 5000000}; /* 5 ms: past the watch */
        nanosleep(&pause, NULL);
        CHECK(covers_once(t, 4096, 64, &others));
    }
    CHECK(others > 0);
    test_two_teams_at_once();
    setenv("EMBER_STAGE_SPIN_US", "0", 1);
    CHECK(covers_once(t, 4096, 64, NULL));
    CHECK(t->spin_ns == 0);
}

int main(void) {
    setenv("EMBER_STAGE_THREADS", "4", 1); /* read once, at the first job */
    RUN(test_cover_exactly_once);
    RUN(test_two_teams_at_once);
    RUN(test_watching_helpers);
    return ctest_summary();
}
