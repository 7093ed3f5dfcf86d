#include "host/threadpool.h"
#include "core/core.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#define EM_MAX_WORKERS 256
/* How long a worker that finished a job (EM_SPIN_WORKER_NS), and a caller
 * waiting for its workers (EM_SPIN_CALLER_NS), spin before sleeping on a
 * condition variable.  Waking a sleeping thread costs tens of microseconds
 * (measured ~45 us on the 2-core VM), as long as half of a 1e6-element op:
 * back-to-back ops find the workers still spinning.  The worker's spin is
 * short so that an idle Ember gives its cores back quickly. */
#define EM_SPIN_WORKER_NS 50000
#define EM_SPIN_CALLER_NS 100000

static struct {
    pthread_mutex_t lock; /* guards the fields below and the condvars */
    pthread_cond_t start, done;
    pthread_mutex_t busy;            /* held by the thread that owns the running job */
    int nthreads;                    /* threads used per job, the caller included */
    int spawned;                     /* workers started so far */
    atomic_uint_fast64_t generation; /* written under lock, read by spinners */
    atomic_int pending;              /* parts of the current job not yet done */
    int active; /* workers taking part in the current job, the caller included */
    em_range_fn fn;
    void *ctx;
    int64_t n, chunk;
    /* claimed[p] is set by whichever thread runs part p: its worker, or the
     * caller once it has finished its own part and finds p not yet started
     * (a worker descheduled on a busy machine then delays nobody). */
    atomic_int claimed[EM_MAX_WORKERS];
} em__tp = {PTHREAD_MUTEX_INITIALIZER,
            PTHREAD_COND_INITIALIZER,
            PTHREAD_COND_INITIALIZER,
            PTHREAD_MUTEX_INITIALIZER,
            0,
            0,
            0,
            0,
            0,
            NULL,
            NULL,
            0,
            0,
            {0}};

static _Thread_local int em__in_worker;

#if defined(__x86_64__) || defined(__i386__)
#define EM_PAUSE() __builtin_ia32_pause()
#else
#define EM_PAUSE() ((void)0)
#endif

static int64_t em__now_ns(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (int64_t)t.tv_sec * 1000000000 + t.tv_nsec;
}

/* Spin until the generation moves past old or the time is up; whether it moved. */
static int em__spin_gen(uint64_t old) {
    int64_t end = em__now_ns() + EM_SPIN_WORKER_NS;
    for (int i = 0;; i++) {
        if (atomic_load_explicit(&em__tp.generation, memory_order_acquire) != old) return 1;
        if ((i & 63) == 63 && em__now_ns() > end) return 0;
        EM_PAUSE();
    }
}

static int em__spin_done(void) {
    int64_t end = em__now_ns() + EM_SPIN_CALLER_NS;
    for (int i = 0;; i++) {
        if (atomic_load_explicit(&em__tp.pending, memory_order_acquire) == 0) return 1;
        if ((i & 63) == 63 && em__now_ns() > end) return 0;
        EM_PAUSE();
    }
}

static void em__run_part(int part) {
    int64_t b = (int64_t)part * em__tp.chunk, e = b + em__tp.chunk;
    if (e > em__tp.n) e = em__tp.n;
    if (b < e) em__tp.fn(em__tp.ctx, b, e, part);
}

/* Run part if nobody has claimed it yet, then count it done. */
static void em__try_part(int part) {
    if (atomic_exchange(&em__tp.claimed[part], 1)) return;
    em__run_part(part);
    if (atomic_fetch_sub(&em__tp.pending, 1) != 1) return;
    pthread_mutex_lock(&em__tp.lock); /* the last part: wake a sleeping caller */
    pthread_cond_signal(&em__tp.done);
    pthread_mutex_unlock(&em__tp.lock);
}

static void *em__worker(void *arg) {
    int part = (int)(intptr_t)arg;
    em__in_worker = 1;
    uint64_t seen = 0;
    pthread_mutex_lock(&em__tp.lock);
    for (;;) {
        if (atomic_load(&em__tp.generation) == seen) {
            pthread_mutex_unlock(&em__tp.lock);
            em__spin_gen(seen);
            pthread_mutex_lock(&em__tp.lock);
        }
        while (atomic_load(&em__tp.generation) == seen)
            pthread_cond_wait(&em__tp.start, &em__tp.lock);
        seen = atomic_load(&em__tp.generation);
        if (part >= em__tp.active) continue;
        pthread_mutex_unlock(&em__tp.lock);
        em__try_part(part);
        pthread_mutex_lock(&em__tp.lock);
    }
    return NULL;
}

static int em__default_threads(void) {
    const char *v = getenv("EMBER_NUM_THREADS");
    long n = v ? atol(v) : sysconf(_SC_NPROCESSORS_ONLN);
    if (n < 1) n = 1;
    return n > EM_MAX_WORKERS ? EM_MAX_WORKERS : (int)n;
}

void em_set_num_threads(int n) {
    pthread_mutex_lock(&em__tp.busy);
    pthread_mutex_lock(&em__tp.lock);
    em__tp.nthreads = n < 1 ? 1 : n > EM_MAX_WORKERS ? EM_MAX_WORKERS : n;
    pthread_mutex_unlock(&em__tp.lock);
    pthread_mutex_unlock(&em__tp.busy);
}

int em_get_num_threads(void) {
    pthread_mutex_lock(&em__tp.lock);
    if (!em__tp.nthreads) em__tp.nthreads = em__default_threads();
    int n = em__tp.nthreads;
    pthread_mutex_unlock(&em__tp.lock);
    return n;
}

int em_pool_workers(void) { return EM_MAX_WORKERS; }

/* A forked child has none of the parent's workers: start afresh. */
static void em__atfork_child(void) {
    pthread_mutex_init(&em__tp.lock, NULL);
    pthread_mutex_init(&em__tp.busy, NULL);
    pthread_cond_init(&em__tp.start, NULL);
    pthread_cond_init(&em__tp.done, NULL);
    em__tp.spawned = 0;
    atomic_store(&em__tp.pending, 0);
    em__in_worker = 0;
}

/* Start workers 1..nthreads-1 if not yet running; lock held. */
static int em__ensure_workers(void) {
    static int registered;
    if (!registered) registered = !pthread_atfork(NULL, NULL, em__atfork_child);
    for (; em__tp.spawned < em__tp.nthreads - 1; em__tp.spawned++) {
        pthread_t t;
        pthread_attr_t attr;
        pthread_attr_init(&attr);
        pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
        int rc = pthread_create(&t, &attr, em__worker, (void *)(intptr_t)(em__tp.spawned + 1));
        pthread_attr_destroy(&attr);
        if (rc != 0) break;
    }
    return em__tp.spawned + 1;
}

void em_parallel_for(int64_t n, int64_t grain, em_range_fn fn, void *ctx) {
    if (n <= 0) return;
    int nt = em_get_num_threads();
    if (grain < 1) grain = 1;
    int64_t parts = (n + grain - 1) / grain;
    if (nt <= 1 || parts <= 1 || em__in_worker || pthread_mutex_trylock(&em__tp.busy) != 0) {
        fn(ctx, 0, n, 0);
        return;
    }
    pthread_mutex_lock(&em__tp.lock);
    int avail = em__ensure_workers();
    int use = parts < avail ? (int)parts : avail;
    em__tp.fn = fn;
    em__tp.ctx = ctx;
    em__tp.n = n;
    em__tp.chunk = (n + use - 1) / use;
    atomic_store(&em__tp.pending, use - 1);
    em__tp.active = use; /* workers beyond use sit this job out */
    for (int p = 1; p < use; p++) atomic_store(&em__tp.claimed[p], 0);
    atomic_fetch_add(&em__tp.generation, 1);
    pthread_cond_broadcast(&em__tp.start);
    pthread_mutex_unlock(&em__tp.lock);
    em__in_worker = 1;
    em__run_part(0);
    for (int p = 1; p < use; p++) em__try_part(p); /* parts whose worker has not started */
    em__in_worker = 0;
    if (!em__spin_done()) {
        pthread_mutex_lock(&em__tp.lock);
        while (atomic_load(&em__tp.pending) > 0) pthread_cond_wait(&em__tp.done, &em__tp.lock);
        pthread_mutex_unlock(&em__tp.lock);
    }
    pthread_mutex_unlock(&em__tp.busy);
}
