/* Running compiled user code (raw CUDA C and expression kernels on the CPU)
 * so that a SIGFPE it raises ends the work it was doing, not the process.
 *
 * x86 CPUs trap integer division by zero and INT_MIN / -1 (SIGFPE with
 * si_code FPE_INTDIV).  C leaves both undefined and we do not parse the
 * user's C text, so its divisions cannot be rewritten; instead em_fpe_run()
 * runs a piece of work with a recovery point on the calling thread, and a
 * SIGFPE the CPU raises while it runs returns there (siglongjmp) and is
 * reported.  Every thread that runs user code (the launching thread and the
 * pool's workers) calls em_fpe_run itself, so a fault on a worker ends that
 * worker's piece only; the launcher turns it into an error for the launch and
 * starts no further pieces.
 *
 * The handler is installed process-wide on the first em_fpe_run and stays,
 * as wasmtime's trap handlers do: installing and restoring it around every
 * launch would cost two system calls (~0.5 us, a quarter of an @em.jit
 * launch) and race between threads launching at once.  A SIGFPE outside
 * em_fpe_run, or one sent by kill()/raise() (si_code <= 0), goes on to the
 * handler that was installed before (pytest's faulthandler, say), else has
 * the default action: the process dies exactly as it would without Ember.
 * Installing another SIGFPE handler later without chaining to ours turns
 * kernel faults back into crashes.
 *
 * Jumping out of user code is sound because the guarded code is the
 * kernel's own (it takes no locks; its atomics are lock-free) and Ember's
 * print/barrier callbacks, which do not divide.  The jump may cross from a
 * coroutine's stack (kernels that call syncthreads()) to the thread's own:
 * the abandoned coroutines are then freed by their owner without resuming. */
#ifndef EM_HOST_FPE_GUARD_H
#define EM_HOST_FPE_GUARD_H

#include "ember/ember.h"

typedef void (*em_fpe_fn)(void *arg);

/* Run fn(arg) on this thread.  Returns 0 when fn returned, else the si_code
 * of the SIGFPE that ended it (FPE_INTDIV, FPE_INTOVF, FPE_FLTDIV, ...).
 * Locals of the caller that fn changes must be volatile (or reached through
 * arg) to be trusted after a fault.  Nesting is allowed. */
EM_API int em_fpe_run(em_fpe_fn fn, void *arg);

/* EM_EZERODIV for a fault with si_code `code` in the named kernel, saying
 * what it was and that the launch was stopped. */
EM_API em_status em_fpe_error(int code, const char *kernel);

#endif
