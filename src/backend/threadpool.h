/* A fixed pool of worker threads (one per core) for data-parallel loops.
 * One job runs at a time; a caller that finds the pool busy (another Python
 * thread, or a nested call from a worker) runs its job inline instead of
 * waiting, so the pool can never deadlock.  Shared by the backends (the CPU
 * backend's loops, the CUDA backend's staged host copies) and the CPU
 * kernel launcher, so it lives beside them rather than inside either. */
#ifndef EM_THREADPOOL_H
#define EM_THREADPOOL_H

#include <stdint.h>

/* fn(ctx, begin, end, worker) over [0, n) split into at most one contiguous
 * range per worker, each at least grain long.  worker < em_pool_workers(). */
typedef void (*em_range_fn)(void *ctx, int64_t begin, int64_t end, int worker);
void em_parallel_for(int64_t n, int64_t grain, em_range_fn fn, void *ctx);
/* Upper bound on the worker index passed to fn. */
int em_pool_workers(void);

#endif
