/* Helper-thread teams (host/team.h): one per device's staged copies. */
#include "host/team.h"

#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#define EM_TEAM_MAX 16
/* A caller whose helpers are still copying checks this many times (some
 * tens of microseconds) before sleeping: a part of an 8 MiB chunk takes
 * ~100 us, a condvar wake ~45 us. */
#define EM_TEAM_SPIN 20000

/* How long a helper that finished a job watches for the next one before it
 * sleeps on the condition variable: EMBER_STAGE_SPIN_US, default 0 (it
 * sleeps at once).  A staged copy hands its team one job per 8 MiB chunk,
 * ~180 us apart at 47 GB/s; a condvar wake costs ~45 us of each, which a
 * helper still watching does not pay.  Read at each job (a few hundred per
 * GiB), so a benchmark can compare both in one process. */
static int64_t em__team_spin_ns(void) {
    const char *v = getenv("EMBER_STAGE_SPIN_US");
    long us = v && *v ? atol(v) : 0;
    return us <= 0 ? 0 : us > 100000 ? (int64_t)100000000 : (int64_t)us * 1000;
}

static int64_t em__now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* Read at each job (a getenv, next to a job's ~10 us), so that one process
 * can compare sizes (bench/probe_stage.py); a team only grows. */
int em_team_size(void) {
    static atomic_long cores;
    long c = atomic_load_explicit(&cores, memory_order_relaxed);
    if (!c) atomic_store_explicit(&cores, c = sysconf(_SC_NPROCESSORS_ONLN), memory_order_relaxed);
    const char *v = getenv("EMBER_STAGE_THREADS");
    long n = v && *v ? atol(v) : c;
    return n < 1 ? 1 : n > EM_TEAM_MAX ? EM_TEAM_MAX : (int)n;
}

/* Claim and run parts of job gen until none is left. */
static void em__team_work(em_team *t, uint32_t gen, em_range_fn fn, void *ctx, int64_t n,
                          int64_t np) {
    for (;;) {
        uint_fast64_t c = atomic_load_explicit(&t->claim, memory_order_acquire);
        if ((uint32_t)(c >> 32) != gen || (int64_t)(c & 0xffffffffu) >= np) return;
        if (!atomic_compare_exchange_weak(&t->claim, &c, c + 1)) continue;
        int64_t p = (int64_t)(c & 0xffffffffu);
        fn(ctx, p * n / np, (p + 1) * n / np, (int)p);
        if (atomic_fetch_sub_explicit(&t->left, 1, memory_order_acq_rel) == 1) {
            pthread_mutex_lock(&t->lock); /* the caller checks left under it */
            pthread_cond_broadcast(&t->done);
            pthread_mutex_unlock(&t->lock);
        }
    }
}

typedef struct {
    em_team *t;
    uint32_t seen; /* the job number when it was started: it runs the next */
} em__helper_arg;

/* Watch the claim word (its job number is published after the job's
 * fields, under the lock) for up to spin_ns without the lock; the fields
 * are then read under the lock as after a wake. */
static void em__team_watch(em_team *t, uint32_t seen, int64_t spin_ns) {
    int64_t until = em__now_ns() + spin_ns;
    for (int i = 0;; i++) {
        uint_fast64_t c = atomic_load_explicit(&t->claim, memory_order_acquire);
        if ((uint32_t)(c >> 32) != seen) return;
        if ((i & 63) == 63 && em__now_ns() > until) return;
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
        __builtin_ia32_pause(); /* leave the core to a sibling thread's memcpy */
#endif
    }
}

static void *em__team_helper(void *arg) {
    em__helper_arg a = *(em__helper_arg *)arg;
    free(arg);
    em_team *t = a.t;
    pthread_mutex_lock(&t->lock);
    for (;;) {
        if (t->gen == a.seen && t->spin_ns > 0) {
            int64_t spin = t->spin_ns;
            pthread_mutex_unlock(&t->lock);
            em__team_watch(t, a.seen, spin);
            pthread_mutex_lock(&t->lock);
        }
        while (t->gen == a.seen) pthread_cond_wait(&t->go, &t->lock);
        a.seen = t->gen;
        em_range_fn fn = t->fn;
        void *ctx = t->ctx;
        int64_t n = t->n, np = t->nparts;
        pthread_mutex_unlock(&t->lock);
        em__team_work(t, a.seen, fn, ctx, n, np);
        pthread_mutex_lock(&t->lock);
    }
    return NULL;
}

/* Start helpers up to size - 1 (lock held); a failure leaves fewer. */
static void em__team_grow(em_team *t, int size) {
    while (t->helpers < size - 1) {
        em__helper_arg *a = malloc(sizeof *a);
        if (!a) return;
        a->t = t, a->seen = t->gen;
        pthread_attr_t at;
        pthread_t th;
        pthread_attr_init(&at);
        pthread_attr_setdetachstate(&at, PTHREAD_CREATE_DETACHED);
        int r = pthread_create(&th, &at, em__team_helper, a);
        pthread_attr_destroy(&at);
        if (r) {
            free(a);
            return;
        }
        t->helpers++;
    }
}

void em_team_run(em_team *t, int64_t n, int64_t grain, em_range_fn fn, void *ctx) {
    int size = em_team_size();
    int64_t np = grain > 0 ? n / grain : n;
    np = np > size ? size : np;
    if (np <= 1) {
        if (n > 0) fn(ctx, 0, n, 0);
        return;
    }
    int64_t spin = em__team_spin_ns();
    pthread_mutex_lock(&t->lock);
    em__team_grow(t, size);
    t->spin_ns = spin;
    uint32_t gen = ++t->gen;
    t->fn = fn, t->ctx = ctx, t->n = n, t->nparts = np;
    atomic_store_explicit(&t->left, np, memory_order_relaxed);
    atomic_store_explicit(&t->claim, (uint_fast64_t)gen << 32, memory_order_release);
    pthread_cond_broadcast(&t->go);
    pthread_mutex_unlock(&t->lock);
    em__team_work(t, gen, fn, ctx, n, np);
    for (int i = 0; i < EM_TEAM_SPIN; i++)
        if (atomic_load_explicit(&t->left, memory_order_acquire) == 0) return;
    pthread_mutex_lock(&t->lock);
    while (atomic_load_explicit(&t->left, memory_order_acquire) > 0)
        pthread_cond_wait(&t->done, &t->lock);
    pthread_mutex_unlock(&t->lock);
}
