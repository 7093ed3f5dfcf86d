/* A small team of helper threads owned by one user (a device's staged host
 * copies: codegen/run_copy.c), beside the process's one CPU pool.
 *
 * Why not the pool: it runs one job at a time, and a caller that finds it
 * busy runs inline on one thread.  Two GPUs' staged copies running at once
 * (the out-of-core stream's thread per device) would leave the second
 * device's pageable-to-pinned memcpy on one core, and its bus idle.  A team
 * per device lets each copy split its memcpy over threads of its own.
 *
 * One job at a time per team (its owner serialises: the device's staging
 * lock).  The caller takes parts too and the parts are claimed, not
 * assigned, so a helper that never wakes (none started, or a forked child
 * that has none) only slows the job down. */
#ifndef EM_TEAM_H
#define EM_TEAM_H

#include "host/threadpool.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>

typedef struct em_team {
    pthread_mutex_t lock;
    pthread_cond_t go, done;
    int helpers;    /* started so far */
    uint32_t gen;   /* the current job's number */
    em_range_fn fn; /* the current job */
    void *ctx;
    int64_t n, nparts;
    int64_t spin_ns; /* how long an idle helper watches for the next job */
    /* (gen << 32) | next part: a helper claims a part of its own job only */
    atomic_uint_fast64_t claim;
    atomic_int_fast64_t left; /* parts of the current job not yet done */
} em_team;

/* A team's lock and condition variables are initialised by its owner
 * (pthread_mutex_init, pthread_cond_init); the rest starts zeroed. */
/* Threads a team uses per job, the caller included: EMBER_STAGE_THREADS (read
 * at each job), else the cores, 1 to 16 (as many as the pool gave one
 * device's copy before; idle helpers sleep, so two devices' teams cost
 * nothing between copies). */
int em_team_size(void);

/* fn(ctx, begin, end, worker) over [0, n) in at most em_team_size() parts of
 * at least grain each, on t's threads and the caller's; returns when every
 * part is done.  worker is the part's index. */
void em_team_run(em_team *t, int64_t n, int64_t grain, em_range_fn fn, void *ctx);

#endif
