/* Kernels from outside the op table: compiled user and generated code on
 * the CPU, for the Python extension (python/_ember/jit.c, kernel.c) and any
 * C caller.  Three parts, each implemented in libember:
 *   - the system C compiler as a JIT (src/jit/cc.c),
 *   - the launcher of @em.jit kernels rendered to C (src/jit/cpu_launch.c),
 *   - the runner of compiled expression kernels (src/backend/cpu/xkernel.c).
 * CUDA modules and launches are in ember/cuda.h.  Every function that can
 * fail returns an em_status with the message in em_last_error(); the launch
 * functions are called per kernel launch and do no allocation of their own
 * beyond what they document.
 */
#ifndef EMBER_KERNEL_H
#define EMBER_KERNEL_H

#include "ember/ember.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- the C compiler as a JIT ------------------------------------------- */

/* The system C compiler as a JIT: C11 source in, a loaded shared object out.
 *
 * The compiler is $EMBER_CC, else $CC, else the first of cc, gcc, clang on
 * PATH that answers `--version` (probed once per process).  The command may
 * carry arguments ("ccache gcc"); it is split on blanks and run without a
 * shell.  Objects are built with
 *   -std=gnu11 -O2 -fPIC -shared -fwrapv -ffp-contract=off -fno-fast-math
 *   [-march=native unless EMBER_CC_PORTABLE=1] -lm
 * in a private temporary directory (removed when the build ends); the object's
 * bytes are stored as the kernel cache entry <key>.so (a header with size and
 * a checksum, written to a temporary name and renamed, verified before use,
 * so a truncated, corrupt, misnamed or non-regular entry is rebuilt rather
 * than loaded).  Objects are loaded from memory (a memfd, else a private
 * temporary file removed once loaded), never mapped from the cache directory,
 * where a file could shrink under the mapping.  An unusable cache directory
 * means compiling every process (warned once).  The key hashes the source,
 * the flags, the compiler identity (the first line of `cc --version`) and
 * EM_VERSION.  Loaded objects are kept for the life of
 * the process (dlopen RTLD_LOCAL, never closed) in an in-memory table under
 * the same key, so loading the same source twice is a hash lookup.
 * EMBER_DEBUG=2 logs hits and misses with times; 4 also prints the source.
 */

typedef struct em_cc_lib em_cc_lib; /* a loaded shared object; lives for the process */

/* Whether a C compiler is usable.  false -> em_last_error() says why. */
EM_API bool em_cc_available(void);
/* Compile and load src (see above).  EM_ECOMPILE carries the compiler's
 * output and the numbered source; EM_EUNSUPPORTED when there is no compiler.
 * `name` is for messages and logs only. */
EM_API em_status em_cc_load(const char *src, const char *name, em_cc_lib **out);
/* The address of symbol sym in lib, NULL if absent. */
EM_API void *em_cc_sym(em_cc_lib *lib, const char *sym);
/* The compiler command in use ("" when none), for messages and tests. */
EM_API const char *em_cc_command(void);

/* ---- @em.jit kernels on the CPU ---------------------------------------- */

/* Running @em.jit kernels on the CPU.
 *
 * The Python front end renders a kernel into C (python/ember/_jit/) that
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
 * Faults: every piece of the launch runs under em_fpe_run (src/host/fpe_guard.h), so
 * a SIGFPE in the kernel (raw C dividing by zero) stops the launch with
 * EM_EZERODIV instead of killing the process; pieces not yet started are
 * skipped.  @em.jit kernels never trap (their // and % return 0 for a zero
 * divisor) but set ctx->divz, which also ends in EM_EZERODIV.
 */

#define EM_JIT_ABI 2

typedef struct em_jit_ctx {
    int64_t tid[3], bid[3], bdim[3], gdim[3];
    char *shared;       /* this block's shared memory: static arrays, then dynamic */
    int64_t shared_dyn; /* bytes of dynamic shared memory */
    void (*print)(struct em_jit_ctx *c, const char *fmt, ...);
    void (*sync)(struct em_jit_ctx *c);
    int oob;          /* an index was out of bounds (bounds-checked kernels) */
    int thread;       /* linear thread id in the block (coroutines) */
    void *out;        /* where print() appends */
    void *sched;      /* the block's coroutine scheduler, NULL when threads run in order */
    char scratch[64]; /* out-of-bounds accesses land here once oob is set */
    int divz;         /* an integer // or % by zero returned 0 (@em.jit kernels) */
} em_jit_ctx;

typedef void (*em_jit_range_fn)(em_jit_ctx *c, const int64_t *args, int64_t b0, int64_t b1);
typedef void (*em_jit_thread_fn)(em_jit_ctx *c, const int64_t *args);

typedef struct em_jit_launch {
    int64_t grid[3], block[3];
    int64_t shared_static, shared_dyn; /* bytes per block */
    em_jit_range_fn range;             /* used when thread is NULL */
    em_jit_thread_fn thread;           /* set for kernels that call syncthreads() */
    const int64_t *args;
    const char *name; /* for messages */
} em_jit_launch;

/* Check a launch configuration against CUDA's limits (grid x <= 2^31-1,
 * y and z <= 65535; block x, y <= 1024, z <= 64, at most 1024 threads; all
 * >= 1; shared memory <= 48 KiB): EM_ELAUNCH naming the limit exceeded. */
EM_API em_status em_jit_check_launch(const char *name, const int64_t grid[3],
                                     const int64_t block[3], int64_t shared_bytes);
/* Run a launch.  *out (malloc'ed, may be NULL when nothing was printed) and
 * *outlen receive the printed text; *oob is set when a bounds check failed.
 * EM_EZERODIV (nothing in *out) when the kernel divided an integer by zero:
 * "integer division or modulo by zero in kernel 'name'". */
EM_API em_status em_jit_cpu_launch(const em_jit_launch *L, char **out, size_t *outlen, int *oob);

/* ---- expression kernels on the CPU ------------------------------------- */

/* Running compiled CPU expression kernels (ember/_expr.py renders them as
 * C for the system compiler, em_cc_load above) over the worker threads.
 *
 * A kernel runs items [lo, hi) of n0 and has the signature
 *   void k(long long lo, long long hi, long long n1, char *const *p,
 *          const long long *shape, const long long *st, const void *const *sc)
 * elementwise: items are elements and n1 is n0 (the loop size, _ind.size());
 * reduction: items are outputs and n1 the elements reduced into each.
 * p holds the operands' data pointers (then raw arrays'), st the operands'
 * byte strides [operand][dimension] over the dimensions of shape, sc the
 * scalars.  Disjoint item ranges touch disjoint outputs, so ranges run on
 * different threads.
 *
 * A kernel is user C: a SIGFPE it raises (an integer divided by zero, or
 * INT_MIN / -1) ends its piece of work (src/host/fpe_guard.h), no further
 * pieces start, and fn is then called once more with lo = hi = -1: the
 * kernel must return at once from such a call, after recording the fault
 * where its caller looks (ember/_expr.py's kernels set an int in their
 * last scalar slot, since the Python caller cannot see a status). */

typedef void (*em_xkernel_fn)(long long lo, long long hi, long long n1, char *const *p,
                              const long long *shape, const long long *st, const void *const *sc);

/* Run fn over [0, n0), split across the worker threads when the work
 * (n0 items of `cost` element steps each) is large enough to pay for them.
 * EM_EZERODIV after a SIGFPE in the kernel (see above), else EM_OK. */
EM_API em_status em_xkernel_run(em_xkernel_fn fn, int64_t n0, int64_t n1, int64_t cost,
                                char *const *p, const long long *shape, const long long *st,
                                const void *const *sc);

/* ---- kernel text for front ends (src/codegen/) ------------------------- */

/* The prelude @em.jit kernels are rendered after, for dialect "c" (the CPU,
 * built by em_cc_load and run by em_jit_cpu_launch) or "cuda" (NVRTC); NULL
 * for any other name.  The string lives for the process. */
EM_API const char *em_jit_prelude(const char *dialect);
/* The prelude of expression kernels (ember/_expr.py: ElementwiseKernel,
 * ReductionKernel) for "c" or "cuda"; NULL for any other name. */
EM_API const char *em_expr_prelude(const char *dialect);
/* What raw CUDA C kernels need to build as C on the CPU (the index registers,
 * __shared__, __syncthreads, atomics and printf of ember/_rawcpu.py), for
 * "c" only (on CUDA the source is the user's as it is); NULL otherwise. */
EM_API const char *em_raw_prelude(const char *dialect);
/* Entry i (0, 1, ...) of the dialect table named dialect ("c", "cuda",
 * "opencl"; src/codegen/dialect.h says what each field spells): its field
 * name in *key and either its text in *str (NULL for a field that is
 * unset in this dialect, or a flag or a number) or, for flags and numbers,
 * its value in *num.  EM_EINDEX past the last entry, EM_EVALUE for an
 * unknown dialect.  The strings live for the process. */
EM_API em_status em_dialect_entry(const char *dialect, int i, const char **key, const char **str,
                                  int *num);

#ifdef __cplusplus
}
#endif
#endif /* EMBER_KERNEL_H */
