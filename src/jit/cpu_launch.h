/* Running @em.jit kernels on the CPU.
 *
 * The Python front end renders a kernel into C (python/ember/jit/) that
 * defines, for a kernel K,
 *   void K_range(em_jit_ctx *c, const int64_t *args, int64_t b0, int64_t b1)
 *       runs blocks b0..b1-1 (linear block ids), each block's threads in
 *       order (x fastest), in the calling OS thread;
 *   void K_thread(em_jit_ctx *c, const int64_t *args)
 *       runs one thread (c->tid, c->bid set by the caller).
 * The launcher spreads blocks over Ember's thread pool.  A kernel that calls
 * syncthreads() runs through K_thread instead: each block's threads are
 * coroutines (ucontext, small mmap'ed stacks with a guard page) switched at
 * every barrier, so all threads of a block reach barrier n before any passes
 * it.  print() output is buffered per block (per thread when threads
 * interleave) and returned in (block, thread) order, so it is the same on
 * every run.
 *
 * args holds one 8-byte slot per scalar (int64, double or bool widened) and,
 * for an array, its data pointer, its shape, then its strides in elements.
 * em_jit_ctx is shared with the generated code (its prelude declares the
 * same struct; EM_JIT_ABI is checked at load).
 *
 * Faults: every piece of the launch runs under em_fpe_run (fpe_guard.h), so
 * a SIGFPE in the kernel (raw C dividing by zero) stops the launch with
 * EM_EZERODIV instead of killing the process; pieces not yet started are
 * skipped.  @em.jit kernels never trap (their // and % return 0 for a zero
 * divisor) but set ctx->divz, which also ends in EM_EZERODIV.
 */
#ifndef EM_JIT_CPU_LAUNCH_H
#define EM_JIT_CPU_LAUNCH_H

#include "ember/ember.h"

#define EM_JIT_ABI 2

typedef struct em_jit_ctx {
    int64_t tid[3], bid[3], bdim[3], gdim[3];
    char *shared;        /* this block's shared memory: static arrays, then dynamic */
    int64_t shared_dyn;  /* bytes of dynamic shared memory */
    void (*print)(struct em_jit_ctx *c, const char *fmt, ...);
    void (*sync)(struct em_jit_ctx *c);
    int oob;             /* an index was out of bounds (bounds-checked kernels) */
    int thread;          /* linear thread id in the block (coroutines) */
    void *out;           /* where print() appends */
    void *sched;         /* the block's coroutine scheduler, NULL when threads run in order */
    char scratch[64];    /* out-of-bounds accesses land here once oob is set */
    int divz;            /* an integer // or % by zero returned 0 (@em.jit kernels) */
} em_jit_ctx;

typedef void (*em_jit_range_fn)(em_jit_ctx *c, const int64_t *args, int64_t b0, int64_t b1);
typedef void (*em_jit_thread_fn)(em_jit_ctx *c, const int64_t *args);

typedef struct em_jit_launch {
    int64_t grid[3], block[3];
    int64_t shared_static, shared_dyn; /* bytes per block */
    em_jit_range_fn range;             /* used when thread is NULL */
    em_jit_thread_fn thread;           /* set for kernels that call syncthreads() */
    const int64_t *args;
    const char *name;                  /* for messages */
} em_jit_launch;

/* Check a launch configuration against CUDA's limits (grid x <= 2^31-1,
 * y and z <= 65535; block x, y <= 1024, z <= 64, at most 1024 threads; all
 * >= 1; shared memory <= 48 KiB): EM_ELAUNCH naming the limit exceeded. */
EM_API em_status em_jit_check_launch(const char *name, const int64_t grid[3], const int64_t block[3],
                                     int64_t shared_bytes);
/* Run a launch.  *out (malloc'ed, may be NULL when nothing was printed) and
 * *outlen receive the printed text; *oob is set when a bounds check failed.
 * EM_EZERODIV (nothing in *out) when the kernel divided an integer by zero:
 * "integer division or modulo by zero in kernel 'name'". */
EM_API em_status em_jit_cpu_launch(const em_jit_launch *L, char **out, size_t *outlen, int *oob);

#endif
