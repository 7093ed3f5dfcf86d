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
void em_cpu_loops_init_arith(void);   /* + - * / // % fmod ** and unary arithmetic */
void em_cpu_loops_init_compare(void); /* comparisons, maximum/minimum, predicates */
void em_cpu_loops_init_bitwise(void); /* logical, bitwise and shift ops */
void em_cpu_loops_init_math(void);    /* float math: sqrt, exp, trig, rounding */
void em_cpu_loops_init_complex(void); /* real, imag, conjugate */
void em_cpu_loops_init_vmath(void);   /* libmvec SIMD exp, log, trig (vmath.c), when present */

/* Apply M(DT, T, ...) to each loop dtype of a family (float16 has no loops:
 * it computes in float32). */
#define EM_FOR_SINTS(M, ...)                                                                       \
    M(INT8, int8_t, __VA_ARGS__) M(INT16, int16_t, __VA_ARGS__) M(INT32, int32_t, __VA_ARGS__)    \
    M(INT64, int64_t, __VA_ARGS__)
#define EM_FOR_UINTS(M, ...)                                                                       \
    M(UINT8, uint8_t, __VA_ARGS__) M(UINT16, uint16_t, __VA_ARGS__)                                \
    M(UINT32, uint32_t, __VA_ARGS__) M(UINT64, uint64_t, __VA_ARGS__)
#define EM_FOR_INTS(M, ...) EM_FOR_SINTS(M, __VA_ARGS__) EM_FOR_UINTS(M, __VA_ARGS__)
#define EM_FOR_FLOATS(M, ...) M(FLOAT32, float, __VA_ARGS__) M(FLOAT64, double, __VA_ARGS__)
#define EM_FOR_COMPLEX(M, ...)                                                                     \
    M(COMPLEX64, float _Complex, __VA_ARGS__) M(COMPLEX128, double _Complex, __VA_ARGS__)
#define EM_FOR_INEXACT(M, ...) EM_FOR_FLOATS(M, __VA_ARGS__) EM_FOR_COMPLEX(M, __VA_ARGS__)
#define EM_FOR_INTFLOAT(M, ...) EM_FOR_INTS(M, __VA_ARGS__) EM_FOR_FLOATS(M, __VA_ARGS__)
#define EM_FOR_NUM(M, ...) EM_FOR_INTS(M, __VA_ARGS__) EM_FOR_INEXACT(M, __VA_ARGS__)
#define EM_FOR_REAL(M, ...) M(BOOL, bool, __VA_ARGS__) EM_FOR_INTFLOAT(M, __VA_ARGS__)
#define EM_FOR_ALL(M, ...) M(BOOL, bool, __VA_ARGS__) EM_FOR_NUM(M, __VA_ARGS__)

/* Define a loop em__<OP>_<DT> computing EXPR of x (and y) and register it:
 * EM_DEF1/EM_DEF2 output the loop type, EM_DEF1B/EM_DEF2B output bool,
 * EM_DEF1R the real component type RT (passed as the first extra argument). */
#define EM_DEF1(DT, T, OP, EXPR) EM_LOOP1(em__##OP##_##DT, T, T, EXPR)
#define EM_DEF2(DT, T, OP, EXPR) EM_LOOP2(em__##OP##_##DT, T, T, EXPR)
#define EM_DEF1B(DT, T, OP, EXPR) EM_LOOP1(em__##OP##_##DT, T, bool, EXPR)
#define EM_DEF2B(DT, T, OP, EXPR) EM_LOOP2(em__##OP##_##DT, T, bool, EXPR)
#define EM_REG1(DT, T, OP, ...) EM_REG(OP, DT, em__##OP##_##DT);

/* Every loop is compiled for baseline x86-64 and for AVX2 (x86-64-v3) and
 * picked at load time (GCC function multiversioning): the contiguous paths
 * are bound by load/store width, where NumPy's own AVX2 loops would
 * otherwise be faster.  Other architectures get one plain version. */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && !defined(EM_NO_CLONES)
#define EM_LOOP_ATTR __attribute__((target_clones("arch=x86-64-v3", "default")))
#else
#define EM_LOOP_ATTR
#endif

/* Generators.  T is the loop type, OT the output type, EXPR uses x (and y, z). */
#define EM_LOOP1(NAME, T, OT, EXPR)                                                                \
    EM_LOOP_ATTR static void NAME(int64_t n, void *out, const void *const *in, const int64_t *st) {            \
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
    EM_LOOP_ATTR static void NAME(int64_t n, void *out, const void *const *in, const int64_t *st) {            \
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
