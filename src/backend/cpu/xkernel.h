/* Running compiled CPU expression kernels (ember/_expr.py renders them as
 * C for the system compiler, src/jit/cc.h) over the worker threads.
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
 * INT_MIN / -1) ends its piece of work (src/jit/fpe_guard.h), no further
 * pieces start, and fn is then called once more with lo = hi = -1: the
 * kernel must return at once from such a call, after recording the fault
 * where its caller looks (ember/_expr.py's kernels set an int in their
 * last scalar slot, since the Python caller cannot see a status). */
#ifndef EM_XKERNEL_H
#define EM_XKERNEL_H

#include "ember/ember.h"

typedef void (*em_xkernel_fn)(long long lo, long long hi, long long n1, char *const *p,
                              const long long *shape, const long long *st, const void *const *sc);

/* Run fn over [0, n0), split across the worker threads when the work
 * (n0 items of `cost` element steps each) is large enough to pay for them.
 * EM_EZERODIV after a SIGFPE in the kernel (see above), else EM_OK. */
EM_API em_status em_xkernel_run(em_xkernel_fn fn, int64_t n0, int64_t n1, int64_t cost, char *const *p,
                                const long long *shape, const long long *st, const void *const *sc);

#endif
