/* A copy that looks at what it copies (em_copy_checked, ember.h): out, a
 * C-contiguous copy of a stack read through byte strides, and a flag raised
 * where a float word is NaN, infinite or of magnitude at least a bound.
 * Why: a solver that can fail only on such input (syevjBatched's Jacobi
 * sweeps: cudalib/solver.c) needs its input's contiguous copy anyway, and a
 * flag found by that copy can be read before the solver has run, so the
 * success path never waits for the solver.  One template for CUDA and
 * OpenCL (codegen/run_copycheck.c drives it).
 *
 * The kernel copies element e (C order over shape (d0, d1, d2), d0 implied
 * by total) from a + i0 * s0 + i1 * s1 + i2 * s2 as `words` words of
 * `wbytes` (4: float, 8: double) bytes, and compares each word's bits with
 * the sign cleared against the bound's bits (IEEE order of non-negative
 * floats is their bits' integer order; NaN and infinity lie above every
 * finite bound).  Only a thread that finds such a word writes the flag (an
 * int32, set to 1), so the success path stores nothing there: the flag may
 * live in pinned host memory.
 *
 * Argument (packed, every field 8 bytes): char *a, *out, *flag;
 *   long long d1, d2, total, s0, s1, s2; unsigned long long bound (bits). */
#ifndef EM_RENDER_COPYCHECK_H
#define EM_RENDER_COPYCHECK_H

#include "codegen/dialect.h"
#include "codegen/render.h"

typedef struct em_copycheck_spec {
    int wbytes; /* 4 or 8 */
    int words;  /* words per element: 1 (real) or 2 (complex) */
} em_copycheck_spec;

/* The kernel (named EM_KNAME) for k, prelude included; EM_EUNSUPPORTED for
 * the C dialect. */
EM_API em_status em_render_copycheck(const em_dialect *d, const em_copycheck_spec *k, em_sbuf *src);

#endif
