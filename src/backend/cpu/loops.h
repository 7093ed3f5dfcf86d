/* Precompiled typed loops for the CPU block interpreter.
 *
 * A loop computes n results of one op for one loop dtype into contiguous
 * out.  Each input is either contiguous (step 1) or one value repeated
 * (step 0, a broadcast scalar).  Inputs arrive already converted to the
 * loop dtype (input 0 of WHERE arrives as bool); the output is the loop's
 * natural dtype (em_loop_out_dtype).  float16 has no loops: the resolver
 * computes it in float32.
 */
#ifndef EM_CPU_LOOPS_H
#define EM_CPU_LOOPS_H

#include "ember/ember.h"

typedef void (*em_loop_fn)(int64_t n, void *out, const void *const *in, const int64_t *steps);

/* em_cpu_loops[op][loop dtype], NULL where the op has no loop. */
extern em_loop_fn em_cpu_loops[EM_NOPS][EM_NDTYPES];
void em_cpu_loops_init(void);

/* Each loops_*.c registers its loops with one of these. */
void em_cpu_loops_init_arith(void);
void em_cpu_loops_init_math(void);

/* Generators.  T is the loop type, OT the output type, EXPR uses x (and y, z). */
#define EM_LOOP1(NAME, T, OT, EXPR)                                                                \
    static void NAME(int64_t n, void *out, const void *const *in, const int64_t *st) {            \
        OT *o = out;                                                                               \
        const T *a = in[0];                                                                        \
        if (st[0]) {                                                                               \
            for (int64_t i = 0; i < n; i++) {                                                      \
                T x = a[i];                                                                        \
                o[i] = (OT)(EXPR);                                                                 \
            }                                                                                      \
        } else {                                                                                   \
            T x = a[0];                                                                            \
            OT r = (OT)(EXPR);                                                                     \
            for (int64_t i = 0; i < n; i++) o[i] = r;                                              \
        }                                                                                          \
    }

#define EM_LOOP2(NAME, T, OT, EXPR)                                                                \
    static void NAME(int64_t n, void *out, const void *const *in, const int64_t *st) {            \
        OT *o = out;                                                                               \
        const T *a = in[0], *b = in[1];                                                            \
        if (st[0] && st[1]) {                                                                      \
            for (int64_t i = 0; i < n; i++) {                                                      \
                T x = a[i], y = b[i];                                                              \
                o[i] = (OT)(EXPR);                                                                 \
            }                                                                                      \
        } else if (st[1]) {                                                                        \
            const T x = a[0];                                                                      \
            for (int64_t i = 0; i < n; i++) {                                                      \
                T y = b[i];                                                                        \
                o[i] = (OT)(EXPR);                                                                 \
            }                                                                                      \
        } else if (st[0]) {                                                                        \
            const T y = b[0];                                                                      \
            for (int64_t i = 0; i < n; i++) {                                                      \
                T x = a[i];                                                                        \
                o[i] = (OT)(EXPR);                                                                 \
            }                                                                                      \
        } else {                                                                                   \
            T x = a[0], y = b[0];                                                                  \
            OT r = (OT)(EXPR);                                                                     \
            for (int64_t i = 0; i < n; i++) o[i] = r;                                              \
        }                                                                                          \
    }

#define EM_LOOP3(NAME, T0, T, OT, EXPR)                                                            \
    static void NAME(int64_t n, void *out, const void *const *in, const int64_t *st) {            \
        OT *o = out;                                                                               \
        const T0 *a = in[0];                                                                       \
        const T *b = in[1], *c = in[2];                                                            \
        for (int64_t i = 0; i < n; i++) {                                                          \
            T0 x = a[i * st[0]];                                                                   \
            T y = b[i * st[1]], z = c[i * st[2]];                                                  \
            o[i] = (OT)(EXPR);                                                                     \
        }                                                                                          \
    }

/* Register NAME_<DTYPE> for op. */
#define EM_REG(op, dt, fn) (em_cpu_loops[EM_OP_##op][EM_##dt] = (fn))

#endif
