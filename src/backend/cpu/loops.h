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

void em_cpu_loops_init_table(void); /* every op of ops.def (loops.c) */
void em_cpu_loops_init_vmath(void); /* libmvec SIMD exp, log, trig (vmath.c), when present */

/* vmath.c's variants.  em_cpu_vmath_select binds the widest one at most
 * `want` that the CPU and libmvec have (the scalar loops for EM_VMATH_OFF)
 * and returns it; em_cpu_vmath_isa is the one bound now.  Not thread-safe:
 * for start-up (EMBER_VMATH) and tests. */
enum { EM_VMATH_OFF, EM_VMATH_AVX2, EM_VMATH_AVX512 };
int em_cpu_vmath_select(int want);
int em_cpu_vmath_isa(void);

/* Every loop is compiled for baseline x86-64 and for AVX2 (x86-64-v3) and
 * picked at load time (GCC function multiversioning): the contiguous paths
 * are bound by load/store width, where NumPy's own AVX2 loops would
 * otherwise be faster.  Other architectures get one plain version. */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && !defined(EM_NO_CLONES)
#define EM_LOOP_ATTR __attribute__((target_clones("arch=x86-64-v3", "default")))
#else
#define EM_LOOP_ATTR
#endif

/* Generators.  T is the loop type, OT the output type, F the scalar-library
 * function (codegen/scalar.h) computing one OT from one, two or three T
 * (where: a bool and two T). */
#define EM_LOOP1(NAME, T, OT, F)                                               \
    EM_LOOP_ATTR static void NAME(int64_t n, void *out, const void *const *in, \
                                  const int64_t *st) {                         \
        OT *o = out;                                                           \
        const T *a = in[0];                                                    \
        if (st[0]) {                                                           \
            for (int64_t i = 0; i < n; i++) {                                  \
                o[i] = F(a[i]);                                                \
            }                                                                  \
        } else {                                                               \
            OT r = F(a[0]);                                                    \
            for (int64_t i = 0; i < n; i++) o[i] = r;                          \
        }                                                                      \
    }

#define EM_LOOP2(NAME, T, OT, F)                                               \
    EM_LOOP_ATTR static void NAME(int64_t n, void *out, const void *const *in, \
                                  const int64_t *st) {                         \
        OT *o = out;                                                           \
        const T *a = in[0], *b = in[1];                                        \
        if (st[0] && st[1]) {                                                  \
            for (int64_t i = 0; i < n; i++) {                                  \
                o[i] = F(a[i], b[i]);                                          \
            }                                                                  \
        } else if (st[1]) {                                                    \
            const T x = a[0];                                                  \
            for (int64_t i = 0; i < n; i++) o[i] = F(x, b[i]);                 \
        } else if (st[0]) {                                                    \
            const T y = b[0];                                                  \
            for (int64_t i = 0; i < n; i++) o[i] = F(a[i], y);                 \
        } else {                                                               \
            OT r = F(a[0], b[0]);                                              \
            for (int64_t i = 0; i < n; i++) o[i] = r;                          \
        }                                                                      \
    }

#define EM_LOOP3(NAME, T, OT, F)                                                            \
    static void NAME(int64_t n, void *out, const void *const *in, const int64_t *st) {      \
        OT *o = out;                                                                        \
        const bool *a = in[0];                                                              \
        const T *b = in[1], *c = in[2];                                                     \
        for (int64_t i = 0; i < n; i++) o[i] = F(a[i * st[0]], b[i * st[1]], c[i * st[2]]); \
    }

/* Register NAME_<DTYPE> for op. */
#define EM_REG(op, dt, fn) (em_cpu_loops[EM_OP_##op][EM_##dt] = (fn))

#endif
