/* Typed kernels of the CPU reductions and scans: one family of functions
 * per loop dtype, generated from the templates below (see
 * reduce_kernels.h for the contracts).  Contiguous runs get their own loop
 * so the compiler can vectorise them. */
#include "backend/cpu/reduce_kernels.h"
#include "codegen/head_c.h"
#include "codegen/scalar.h" /* gcd and lcm: NumPy's, as the elementwise ops */

#include <stdbool.h>
#include <string.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

/* Native 16-byte GCC vectors (and their compare masks): eight values of a
 * type are 8 * sizeof(T) / 16 of them.  (Wider vector types are lowered
 * badly where the target lacks them.) */
typedef float em_v4f __attribute__((vector_size(16)));
typedef int32_t em_v4i __attribute__((vector_size(16)));
typedef double em_v2d __attribute__((vector_size(16)));
typedef int64_t em_v2l __attribute__((vector_size(16)));

/* The hot loops are compiled for baseline x86-64 and for AVX2 (x86-64-v3),
 * picked at load time (GCC function multiversioning), as the elementwise
 * loops are: NumPy's own reductions dispatch to AVX2 too. */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && !defined(EM_NO_CLONES)
#define EM_RK_ATTR __attribute__((target_clones("arch=x86-64-v3", "default")))
#else
#define EM_RK_ATTR
#endif

#define EM_AT(T, p, i, s) (*(const T *)((p) + (i) * (s)))

/* ---- combine operators (a: accumulator, x: new value) ------------------- */

#define EM_C_SUM(a, x) ((a) + (x))
#define EM_C_PROD(a, x) ((a) * (x))
/* bool sums and products (sum(dtype=bool)) are logical or / and, as in NumPy. */
#define EM_C_OR(a, x) ((a) || (x))
#define EM_C_AND(a, x) ((a) && (x))
/* Integers (and bool, as 0/1). */
#define EM_C_IMIN(a, x) ((x) < (a) ? (x) : (a))
#define EM_C_IMAX(a, x) ((x) > (a) ? (x) : (a))
/* Bits (bool: &, |, ^ of 0/1 are its and, or, xor). */
#define EM_C_BAND(a, x) ((a) & (x))
#define EM_C_BOR(a, x) ((a) | (x))
#define EM_C_BXOR(a, x) ((a) ^ (x))
/* Floats: a NaN, once met, sticks (x != x is "x is NaN"). */
#define EM_C_FMIN(a, x) (((x) < (a) || (x) != (x)) ? (x) : (a))
#define EM_C_FMAX(a, x) (((x) > (a) || (x) != (x)) ? (x) : (a))

/* ---- generic templates ---------------------------------------------------- */

#define EM_FOLD(NAME, T, COMB)                                                     \
    EM_RK_ATTR static void NAME(int64_t n, const char *p, int64_t s, void *accp) { \
        T a = *(T *)accp;                                                          \
        if (s == (int64_t)sizeof(T)) {                                             \
            const T *q = (const T *)p;                                             \
            for (int64_t i = 0; i < n; i++) a = COMB(a, q[i]);                     \
        } else {                                                                   \
            for (int64_t i = 0; i < n; i++) a = COMB(a, EM_AT(T, p, i, s));        \
        }                                                                          \
        *(T *)accp = a;                                                            \
    }

#define EM_ACCUM(NAME, T, COMB)                                                    \
    EM_RK_ATTR static void NAME(int64_t n, void *accp, const char *p, int64_t s) { \
        T *a = accp;                                                               \
        if (s == (int64_t)sizeof(T)) {                                             \
            const T *q = (const T *)p;                                             \
            for (int64_t i = 0; i < n; i++) a[i] = COMB(a[i], q[i]);               \
        } else {                                                                   \
            for (int64_t i = 0; i < n; i++) a[i] = COMB(a[i], EM_AT(T, p, i, s));  \
        }                                                                          \
    }

/* Four rows a pass (em_rk_accum4_fn): the accumulator vector is loaded and stored
 * once for four rows instead of once a row, in the same order of operations.
 * Session 18, the 2-core VM under load, one thread, interleaved A/B (median us,
 * a row a pass -> four): sum(axis=0) of 1024^2 float32 195 -> 140 (NumPy 209),
 * float64 1371 -> 923, max float32 281 -> 185; 256 x 1024 44 -> 36. */
#define EM_ACCUM4(NAME, T, COMB)                                                              \
    EM_RK_ATTR static void NAME(int64_t n, void *accp, const char *p, int64_t rs) {           \
        T *a = accp;                                                                          \
        const T *q0 = (const T *)p, *q1 = (const T *)(p + rs), *q2 = (const T *)(p + 2 * rs), \
                *q3 = (const T *)(p + 3 * rs);                                                \
        for (int64_t i = 0; i < n; i++) {                                                     \
            T v = COMB(a[i], q0[i]); /* one step a statement: COMB repeats its operands */    \
            v = COMB(v, q1[i]);                                                               \
            v = COMB(v, q2[i]);                                                               \
            a[i] = COMB(v, q3[i]);                                                            \
        }                                                                                     \
    }

#define EM_SCAN(NAME, T, COMB)                                                                \
    static void NAME(int64_t n, const char *p, int64_t s, char *o, int64_t os, void *carry) { \
        T c = *(T *)carry;                                                                    \
        for (int64_t i = 0; i < n; i++) {                                                     \
            c = COMB(c, EM_AT(T, p, i, s));                                                   \
            *(T *)(o + i * os) = c;                                                           \
        }                                                                                     \
        *(T *)carry = c;                                                                      \
    }

/* BETTER(x, b): x replaces the current best b; ISNAN(v) for the NaN rule. */
#define EM_ARGFOLD(NAME, T, BETTER, ISNAN)                                                        \
    static void NAME(int64_t n, const char *p, int64_t s, void *bestp, int64_t *bi, int64_t i0) { \
        T b = *(T *)bestp;                                                                        \
        int64_t k = *bi;                                                                          \
        for (int64_t i = 0; i < n && !ISNAN(b); i++) {                                            \
            T x = EM_AT(T, p, i, s);                                                              \
            if (BETTER(x, b) || ISNAN(x)) b = x, k = i0 + i;                                      \
        }                                                                                         \
        *(T *)bestp = b;                                                                          \
        *bi = k;                                                                                  \
    }

#define EM_ARGACCUM(NAME, T, BETTER, ISNAN)                                                      \
    static void NAME(int64_t n, void *bestp, int64_t *bi, const char *p, int64_t s, int64_t r) { \
        T *b = bestp;                                                                            \
        for (int64_t i = 0; i < n; i++) {                                                        \
            T x = EM_AT(T, p, i, s);                                                             \
            if (!ISNAN(b[i]) && (BETTER(x, b[i]) || ISNAN(x))) b[i] = x, bi[i] = r;              \
        }                                                                                        \
    }

#define EM_LT(x, b) ((x) < (b))
#define EM_GT(x, b) ((x) > (b))
#define EM_NONAN(v) ((void)(v), 0)
#define EM_ISNANF(v) ((v) != (v))

/* ---- float min/max folds ---------------------------------------------------
 * Contiguous runs: eight lanes of a GCC vector take the max (a compare and
 * a bitwise select: NaN never wins there), and chk += x - x turns NaN if
 * any x was NaN or infinite; only then is the run scanned for its first
 * NaN.  Strided runs: a scalar loop with a NaN flag. */

/* PICK(V, I, x, m) is x CMP m ? x : m lane-wise: SSE's max/min where we
 * have it (exactly that rule, one instruction), else a compare mask and a
 * bitwise select.  chk accumulates x - x, which is NaN once any x was NaN
 * or infinite. */
#if defined(__SSE2__)
#define EM_VPICK_GT(V, I, x, m)                                \
    _Generic((x), em_v4f                                       \
             : (V)_mm_max_ps((__m128)(x), (__m128)(m)), em_v2d \
             : (V)_mm_max_pd((__m128d)(x), (__m128d)(m)))
#define EM_VPICK_LT(V, I, x, m)                                \
    _Generic((x), em_v4f                                       \
             : (V)_mm_min_ps((__m128)(x), (__m128)(m)), em_v2d \
             : (V)_mm_min_pd((__m128d)(x), (__m128d)(m)))
#else
#define EM_VPICK_GT(V, I, x, m) ((V)(((I)(x) & ((x) > (m))) | ((I)(m) & ~((x) > (m)))))
#define EM_VPICK_LT(V, I, x, m) ((V)(((I)(x) & ((x) < (m))) | ((I)(m) & ~((x) < (m)))))
#endif
#define EM_VSTEP(V, I, PICK, m, chk, x) \
    do {                                \
        (m) = PICK(V, I, x, m);         \
        (chk) += (x) - (x);             \
    } while (0)

#define EM_FMINMAX_FOLD(NAME, T, V, I, CMP, PICK)                                         \
    static T NAME##_scalar(int64_t n, const char *p, int64_t s, T a, int *nan) {          \
        for (int64_t i = 0; i < n; i++) {                                                 \
            T x = EM_AT(T, p, i, s);                                                      \
            *nan |= x != x;                                                               \
            a = x CMP a ? x : a;                                                          \
        }                                                                                 \
        return a;                                                                         \
    }                                                                                     \
    /* Four 16-byte vectors per step (16 floats or 8 doubles), each a named */            \
    /* variable so that they stay in registers: four independent chains. */               \
    EM_RK_ATTR static T NAME##_vector(int64_t n, const T *q, T a, int *nan) {             \
        enum { L = sizeof(V) / sizeof(T), S = 4 * L };                                    \
        V m0, m1, m2, m3, c0, c1, c2, c3, x;                                              \
        memcpy(&m0, q, sizeof(V)), memcpy(&m1, q + L, sizeof(V));                         \
        memcpy(&m2, q + 2 * L, sizeof(V)), memcpy(&m3, q + 3 * L, sizeof(V));             \
        c0 = m0 - m0, c1 = m1 - m1, c2 = m2 - m2, c3 = m3 - m3;                           \
        int64_t i;                                                                        \
        for (i = S; i + S <= n; i += S) {                                                 \
            memcpy(&x, q + i, sizeof(V));                                                 \
            EM_VSTEP(V, I, PICK, m0, c0, x);                                              \
            memcpy(&x, q + i + L, sizeof(V));                                             \
            EM_VSTEP(V, I, PICK, m1, c1, x);                                              \
            memcpy(&x, q + i + 2 * L, sizeof(V));                                         \
            EM_VSTEP(V, I, PICK, m2, c2, x);                                              \
            memcpy(&x, q + i + 3 * L, sizeof(V));                                         \
            EM_VSTEP(V, I, PICK, m3, c3, x);                                              \
        }                                                                                 \
        V mm[4] = {m0, m1, m2, m3}, cc[4] = {c0, c1, c2, c3};                             \
        T c = 0;                                                                          \
        for (int v = 0; v < 4; v++)                                                       \
            for (int j = 0; j < L; j++) c += cc[v][j], a = mm[v][j] CMP a ? mm[v][j] : a; \
        *nan |= c != c;                                                                   \
        return NAME##_scalar(n - i, (const char *)(q + i), (int64_t)sizeof(T), a, nan);   \
    }                                                                                     \
    static void NAME(int64_t n, const char *p, int64_t s, void *accp) {                   \
        T a = *(T *)accp;                                                                 \
        if (a != a) return;                                                               \
        int nan = 0;                                                                      \
        if (s == (int64_t)sizeof(T) && n >= 32)                                           \
            a = NAME##_vector(n, (const T *)p, a, &nan);                                  \
        else                                                                              \
            a = NAME##_scalar(n, p, s, a, &nan);                                          \
        for (int64_t i = 0; nan && i < n; i++)                                            \
            if (EM_AT(T, p, i, s) != EM_AT(T, p, i, s)) {                                 \
                a = EM_AT(T, p, i, s);                                                    \
                break;                                                                    \
            }                                                                             \
        *(T *)accp = a;                                                                   \
    }

/* ---- fast argmin/argmax for real types ---------------------------------------
 * Blocks of 256: the block's extreme comes from the (vectorised) fold; a
 * block only becomes the candidate when strictly better, so the first
 * occurrence wins; the winning block is searched once at the end.  A NaN
 * block is searched at once (the first NaN wins). */

#define EM_ARG_BLOCK 1024

/* The first i < n with x[i] == b (one exists).  Floats compare four or two
 * at a time where SSE2 is there. */
#define EM_FIND_SCALAR(NAME, T)                                     \
    static int64_t NAME(int64_t n, const char *p, int64_t s, T b) { \
        int64_t i = 0;                                              \
        while (i < n - 1 && EM_AT(T, p, i, s) != b) i++;            \
        return i;                                                   \
    }
#if defined(__SSE2__)
#define EM_FIND_SSE(NAME, T, M, SET1, LOADU, CMPEQ, MOVEMASK)          \
    EM_FIND_SCALAR(NAME##_scalar, T)                                   \
    static int64_t NAME(int64_t n, const char *p, int64_t s, T b) {    \
        enum { L = 16 / sizeof(T) };                                   \
        if (s != (int64_t)sizeof(T)) return NAME##_scalar(n, p, s, b); \
        const T *q = (const T *)p;                                     \
        M bv = SET1(b);                                                \
        int64_t i = 0;                                                 \
        for (; i + L <= n; i += L) {                                   \
            int mask = MOVEMASK(CMPEQ(LOADU(q + i), bv));              \
            if (mask) return i + __builtin_ctz((unsigned)mask);        \
        }                                                              \
        return i + NAME##_scalar(n - i, (const char *)(q + i), s, b);  \
    }
EM_FIND_SSE(find_f32, float, __m128, _mm_set1_ps, _mm_loadu_ps, _mm_cmpeq_ps, _mm_movemask_ps)
EM_FIND_SSE(find_f64, double, __m128d, _mm_set1_pd, _mm_loadu_pd, _mm_cmpeq_pd, _mm_movemask_pd)
#else
EM_FIND_SCALAR(find_f32, float)
EM_FIND_SCALAR(find_f64, double)
#endif

#define EM_FAST_ARGFOLD(NAME, T, FOLD, CMP, ISNAN, FIND)                                          \
    static void NAME(int64_t n, const char *p, int64_t s, void *bestp, int64_t *bi, int64_t i0) { \
        T b = *(T *)bestp;                                                                        \
        int64_t k = *bi, blk = -1;                                                                \
        if (ISNAN(b)) return;                                                                     \
        for (int64_t j = 0; j < n; j += EM_ARG_BLOCK) {                                           \
            int64_t m = n - j < EM_ARG_BLOCK ? n - j : EM_ARG_BLOCK;                              \
            const char *q = p + j * s;                                                            \
            T e = *(const T *)q;                                                                  \
            FOLD(m, q, s, &e);                                                                    \
            if (ISNAN(e)) {                                                                       \
                int64_t i = 0;                                                                    \
                while (!ISNAN(EM_AT(T, q, i, s))) i++;                                            \
                *(T *)bestp = e;                                                                  \
                *bi = i0 + j + i;                                                                 \
                return;                                                                           \
            }                                                                                     \
            if (e CMP b) b = e, blk = j;                                                          \
        }                                                                                         \
        if (blk >= 0) {                                                                           \
            int64_t m = n - blk < EM_ARG_BLOCK ? n - blk : EM_ARG_BLOCK;                          \
            k = i0 + blk + FIND(m, p + blk * s, s, b);                                            \
        }                                                                                         \
        *(T *)bestp = b;                                                                          \
        *bi = k;                                                                                  \
    }

/* ---- float pairwise sums (NumPy's pairwise_sum) -------------------------- */

#define EM_PAIRWISE(NAME, T)                                                           \
    static T NAME(int64_t n, const char *p, int64_t s) {                               \
        if (n < 8) {                                                                   \
            T res = (T)-0.0;                                                           \
            for (int64_t i = 0; i < n; i++) res += EM_AT(T, p, i, s);                  \
            return res;                                                                \
        }                                                                              \
        if (n <= 128) {                                                                \
            T r[8];                                                                    \
            for (int j = 0; j < 8; j++) r[j] = EM_AT(T, p, j, s);                      \
            int64_t i;                                                                 \
            for (i = 8; i < n - (n % 8); i += 8)                                       \
                for (int j = 0; j < 8; j++) r[j] += EM_AT(T, p, i + j, s);             \
            T res = ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7])); \
            for (; i < n; i++) res += EM_AT(T, p, i, s);                               \
            return res;                                                                \
        }                                                                              \
        int64_t n2 = em_rk_pairwise_split(n);                                          \
        return NAME(n2, p, s) + NAME(n - n2, p + n2 * s, s);                           \
    }

/* The contiguous twin: the same arithmetic with the eight accumulators in
 * GCC vectors (lane j is r[j]), so the block is vectorised whatever the
 * compiler's cost model thinks; the results are bit-identical. */
#define EM_PAIRWISE_C(NAME, T, V)                                                              \
    EM_RK_ATTR static T NAME(int64_t n, const char *p) {                                       \
        const T *q = (const T *)p;                                                             \
        if (n < 8) {                                                                           \
            T res = (T)-0.0;                                                                   \
            for (int64_t i = 0; i < n; i++) res += q[i];                                       \
            return res;                                                                        \
        }                                                                                      \
        if (n <= 128) {                                                                        \
            /* Lanes: f32 uses r0, r1 (4 each); f64 uses r0..r3 (2 each).  Named */            \
            /* variables, not an array, so they stay in registers. */                          \
            enum { L = sizeof(V) / sizeof(T), NV = 8 / L };                                    \
            V r0, r1, r2, r3, x;                                                               \
            memcpy(&r0, q, sizeof(V)), memcpy(&r1, q + L, sizeof(V));                          \
            r2 = r3 = r0 - r0;                                                                 \
            if (NV == 4) memcpy(&r2, q + 2 * L, sizeof(V)), memcpy(&r3, q + 3 * L, sizeof(V)); \
            int64_t i;                                                                         \
            for (i = 8; i < n - (n % 8); i += 8) {                                             \
                memcpy(&x, q + i, sizeof(V)), r0 += x;                                         \
                memcpy(&x, q + i + L, sizeof(V)), r1 += x;                                     \
                if (NV == 4) {                                                                 \
                    memcpy(&x, q + i + 2 * L, sizeof(V)), r2 += x;                             \
                    memcpy(&x, q + i + 3 * L, sizeof(V)), r3 += x;                             \
                }                                                                              \
            }                                                                                  \
            T a[8];                                                                            \
            memcpy(a, &r0, sizeof(V)), memcpy(a + L, &r1, sizeof(V));                          \
            if (NV == 4) memcpy(a + 2 * L, &r2, sizeof(V)), memcpy(a + 3 * L, &r3, sizeof(V)); \
            T res = ((a[0] + a[1]) + (a[2] + a[3])) + ((a[4] + a[5]) + (a[6] + a[7]));         \
            for (; i < n; i++) res += q[i];                                                    \
            return res;                                                                        \
        }                                                                                      \
        int64_t n2 = em_rk_pairwise_split(n);                                                  \
        return NAME(n2, p) + NAME(n - n2, p + n2 * (int64_t)sizeof(T));                        \
    }

#define EM_PWFOLD(NAME, T, V)                                                          \
    EM_PAIRWISE(NAME##_pw, T)                                                          \
    EM_PAIRWISE_C(NAME##_pwc, T, V)                                                    \
    static void NAME(int64_t n, const char *p, int64_t s, void *accp) {                \
        *(T *)accp += s == (int64_t)sizeof(T) ? NAME##_pwc(n, p) : NAME##_pw(n, p, s); \
    }

/* ---- families ----------------------------------------------------------- */

#define EM_TABLE(SUF, ...) /* ...: accum4's initialiser */                     \
    static const em_rk_table em__rk_##SUF = {                                  \
        {fold_sum_##SUF, fold_prod_##SUF, fold_min_##SUF, fold_max_##SUF},     \
        {accum_sum_##SUF, accum_prod_##SUF, accum_min_##SUF, accum_max_##SUF}, \
        {argfold_min_##SUF, argfold_max_##SUF},                                \
        {argaccum_min_##SUF, argaccum_max_##SUF},                              \
        {scan_sum_##SUF, scan_prod_##SUF},                                     \
        __VA_ARGS__};

/* The bitwise folds of bool and the integers, then their gcd and lcm
 * (exact in any order: the threads' pieces may combine in any). */
#define EM_BITS_FAMILY(SUF, T)              \
    EM_FOLD(fold_and_##SUF, T, EM_C_BAND)   \
    EM_FOLD(fold_or_##SUF, T, EM_C_BOR)     \
    EM_FOLD(fold_xor_##SUF, T, EM_C_BXOR)   \
    EM_ACCUM(accum_and_##SUF, T, EM_C_BAND) \
    EM_ACCUM(accum_or_##SUF, T, EM_C_BOR)   \
    EM_ACCUM(accum_xor_##SUF, T, EM_C_BXOR)
#define EM_GCD_FAMILY(SUF, T)                  \
    EM_FOLD(fold_gcd_##SUF, T, em_gcd_##SUF)   \
    EM_FOLD(fold_lcm_##SUF, T, em_lcm_##SUF)   \
    EM_ACCUM(accum_gcd_##SUF, T, em_gcd_##SUF) \
    EM_ACCUM(accum_lcm_##SUF, T, em_lcm_##SUF)
#define EM_TABLE_INT(SUF, GCD, LCM, AGCD, ALCM)                                                \
    static const em_rk_table em__rk_##SUF = {                                                  \
        {fold_sum_##SUF, fold_prod_##SUF, fold_min_##SUF, fold_max_##SUF, fold_and_##SUF,      \
         fold_or_##SUF, fold_xor_##SUF, GCD, LCM},                                             \
        {accum_sum_##SUF, accum_prod_##SUF, accum_min_##SUF, accum_max_##SUF, accum_and_##SUF, \
         accum_or_##SUF, accum_xor_##SUF, AGCD, ALCM},                                         \
        {argfold_min_##SUF, argfold_max_##SUF},                                                \
        {argaccum_min_##SUF, argaccum_max_##SUF},                                              \
        {scan_sum_##SUF, scan_prod_##SUF}};

/* Integers and bool: plain loops (exact, wrapping). */
#define EM_INT_FAMILY(SUF, T, SUM, PROD)                                           \
    EM_FOLD(fold_sum_##SUF, T, SUM)                                                \
    EM_FOLD(fold_prod_##SUF, T, PROD)                                              \
    EM_FOLD(fold_min_##SUF, T, EM_C_IMIN)                                          \
    EM_FOLD(fold_max_##SUF, T, EM_C_IMAX)                                          \
    EM_ACCUM(accum_sum_##SUF, T, SUM)                                              \
    EM_ACCUM(accum_prod_##SUF, T, PROD)                                            \
    EM_ACCUM(accum_min_##SUF, T, EM_C_IMIN)                                        \
    EM_ACCUM(accum_max_##SUF, T, EM_C_IMAX)                                        \
    EM_FIND_SCALAR(find_##SUF, T)                                                  \
    EM_FAST_ARGFOLD(argfold_min_##SUF, T, fold_min_##SUF, <, EM_NONAN, find_##SUF) \
    EM_FAST_ARGFOLD(argfold_max_##SUF, T, fold_max_##SUF, >, EM_NONAN, find_##SUF) \
    EM_ARGACCUM(argaccum_min_##SUF, T, EM_LT, EM_NONAN)                            \
    EM_ARGACCUM(argaccum_max_##SUF, T, EM_GT, EM_NONAN)                            \
    EM_SCAN(scan_sum_##SUF, T, SUM)                                                \
    EM_SCAN(scan_prod_##SUF, T, PROD)                                              \
    EM_BITS_FAMILY(SUF, T)

#define EM_FLOAT_FAMILY(SUF, T, V, I)                                               \
    EM_PWFOLD(fold_sum_##SUF, T, V)                                                 \
    EM_FOLD(fold_prod_##SUF, T, EM_C_PROD)                                          \
    EM_FMINMAX_FOLD(fold_min_##SUF, T, V, I, <, EM_VPICK_LT)                        \
    EM_FMINMAX_FOLD(fold_max_##SUF, T, V, I, >, EM_VPICK_GT)                        \
    EM_ACCUM(accum_sum_##SUF, T, EM_C_SUM)                                          \
    EM_ACCUM(accum_prod_##SUF, T, EM_C_PROD)                                        \
    EM_ACCUM(accum_min_##SUF, T, EM_C_FMIN)                                         \
    EM_ACCUM(accum_max_##SUF, T, EM_C_FMAX)                                         \
    EM_FAST_ARGFOLD(argfold_min_##SUF, T, fold_min_##SUF, <, EM_ISNANF, find_##SUF) \
    EM_FAST_ARGFOLD(argfold_max_##SUF, T, fold_max_##SUF, >, EM_ISNANF, find_##SUF) \
    EM_ARGACCUM(argaccum_min_##SUF, T, EM_LT, EM_ISNANF)                            \
    EM_ARGACCUM(argaccum_max_##SUF, T, EM_GT, EM_ISNANF)                            \
    EM_SCAN(scan_sum_##SUF, T, EM_C_SUM)                                            \
    EM_SCAN(scan_prod_##SUF, T, EM_C_PROD)                                          \
    EM_ACCUM4(accum4_sum_##SUF, T, EM_C_SUM)                                        \
    EM_ACCUM4(accum4_prod_##SUF, T, EM_C_PROD)                                      \
    EM_ACCUM4(accum4_min_##SUF, T, EM_C_FMIN)                                       \
    EM_ACCUM4(accum4_max_##SUF, T, EM_C_FMAX)                                       \
    EM_TABLE(SUF, {accum4_sum_##SUF, accum4_prod_##SUF, accum4_min_##SUF, accum4_max_##SUF})

#define EM_INT_GCD(SUF, T)                     \
    EM_INT_FAMILY(SUF, T, EM_C_SUM, EM_C_PROD) \
    EM_GCD_FAMILY(SUF, T)                      \
    EM_TABLE_INT(SUF, fold_gcd_##SUF, fold_lcm_##SUF, accum_gcd_##SUF, accum_lcm_##SUF)

EM_INT_FAMILY(b, bool, EM_C_OR, EM_C_AND)
EM_TABLE_INT(b, NULL, NULL, NULL, NULL)
EM_INT_GCD(i8, int8_t)
EM_INT_GCD(i16, int16_t)
EM_INT_GCD(i32, int32_t)
EM_INT_GCD(i64, int64_t)
EM_INT_GCD(u8, uint8_t)
EM_INT_GCD(u16, uint16_t)
EM_INT_GCD(u32, uint32_t)
EM_INT_GCD(u64, uint64_t)
EM_FLOAT_FAMILY(f32, float, em_v4f, em_v4i)
EM_FLOAT_FAMILY(f64, double, em_v2d, em_v2l)

/* ---- complex: a pair of reals ------------------------------------------- */

/* Complex values as structs, so the templates' `a = COMB(a, x)` works. */
#define EM_CPLX_OPS(SUF, R)                                                                     \
    typedef struct {                                                                            \
        R re, im;                                                                               \
    } emr_##SUF;                                                                                \
    static inline int emr_##SUF##_isnan(emr_##SUF v) { return v.re != v.re || v.im != v.im; }   \
    static inline emr_##SUF emr_##SUF##_add(emr_##SUF a, emr_##SUF x) {                         \
        return (emr_##SUF){a.re + x.re, a.im + x.im};                                           \
    }                                                                                           \
    /* NumPy's plain formula (no C99 Annex G rescaling). */                                     \
    static inline emr_##SUF emr_##SUF##_mul(emr_##SUF a, emr_##SUF x) {                         \
        return (emr_##SUF){a.re * x.re - a.im * x.im, a.re * x.im + a.im * x.re};               \
    }                                                                                           \
    static inline int emr_##SUF##_lt(emr_##SUF x, emr_##SUF b) {                                \
        return x.re < b.re || (x.re == b.re && x.im < b.im);                                    \
    }                                                                                           \
    static inline int emr_##SUF##_gt(emr_##SUF x, emr_##SUF b) {                                \
        return x.re > b.re || (x.re == b.re && x.im > b.im);                                    \
    }                                                                                           \
    /* NaN sticks; otherwise lexicographic (NumPy's minimum/maximum). */                        \
    static inline emr_##SUF emr_##SUF##_min(emr_##SUF a, emr_##SUF x) {                         \
        return !emr_##SUF##_isnan(a) && (emr_##SUF##_lt(x, a) || emr_##SUF##_isnan(x)) ? x : a; \
    }                                                                                           \
    static inline emr_##SUF emr_##SUF##_max(emr_##SUF a, emr_##SUF x) {                         \
        return !emr_##SUF##_isnan(a) && (emr_##SUF##_gt(x, a) || emr_##SUF##_isnan(x)) ? x : a; \
    }                                                                                           \
    /* Sum: each component pairwise. */                                                         \
    static void fold_sum_##SUF(int64_t n, const char *p, int64_t s, void *accp) {               \
        R *acc = accp;                                                                          \
        fold_sum_##SUF##_part(n, p, s, &acc[0]);                                                \
        fold_sum_##SUF##_part(n, p + sizeof(R), s, &acc[1]);                                    \
    }

static void fold_sum_c64_part(int64_t n, const char *p, int64_t s, void *acc) {
    *(float *)acc += fold_sum_f32_pw(n, p, s);
}
static void fold_sum_c128_part(int64_t n, const char *p, int64_t s, void *acc) {
    *(double *)acc += fold_sum_f64_pw(n, p, s);
}

#define EM_CPLX_FAMILY(SUF, R)                                                    \
    EM_CPLX_OPS(SUF, R)                                                           \
    EM_FOLD(fold_prod_##SUF, emr_##SUF, emr_##SUF##_mul)                          \
    EM_FOLD(fold_min_##SUF, emr_##SUF, emr_##SUF##_min)                           \
    EM_FOLD(fold_max_##SUF, emr_##SUF, emr_##SUF##_max)                           \
    EM_ACCUM(accum_sum_##SUF, emr_##SUF, emr_##SUF##_add)                         \
    EM_ACCUM(accum_prod_##SUF, emr_##SUF, emr_##SUF##_mul)                        \
    EM_ACCUM(accum_min_##SUF, emr_##SUF, emr_##SUF##_min)                         \
    EM_ACCUM(accum_max_##SUF, emr_##SUF, emr_##SUF##_max)                         \
    EM_ARGFOLD(argfold_min_##SUF, emr_##SUF, emr_##SUF##_lt, emr_##SUF##_isnan)   \
    EM_ARGFOLD(argfold_max_##SUF, emr_##SUF, emr_##SUF##_gt, emr_##SUF##_isnan)   \
    EM_ARGACCUM(argaccum_min_##SUF, emr_##SUF, emr_##SUF##_lt, emr_##SUF##_isnan) \
    EM_ARGACCUM(argaccum_max_##SUF, emr_##SUF, emr_##SUF##_gt, emr_##SUF##_isnan) \
    EM_SCAN(scan_sum_##SUF, emr_##SUF, emr_##SUF##_add)                           \
    EM_SCAN(scan_prod_##SUF, emr_##SUF, emr_##SUF##_mul)                          \
    EM_TABLE(SUF, {NULL})

EM_CPLX_FAMILY(c64, float)
EM_CPLX_FAMILY(c128, double)

const em_rk_table *em_rk_get(em_dtype dt) {
    static const em_rk_table *const tables[EM_NDTYPES] = {
        [EM_BOOL] = &em__rk_b,         [EM_INT8] = &em__rk_i8,     [EM_INT16] = &em__rk_i16,
        [EM_INT32] = &em__rk_i32,      [EM_INT64] = &em__rk_i64,   [EM_UINT8] = &em__rk_u8,
        [EM_UINT16] = &em__rk_u16,     [EM_UINT32] = &em__rk_u32,  [EM_UINT64] = &em__rk_u64,
        [EM_FLOAT32] = &em__rk_f32,    [EM_FLOAT64] = &em__rk_f64, [EM_COMPLEX64] = &em__rk_c64,
        [EM_COMPLEX128] = &em__rk_c128};
    return (unsigned)dt < EM_NDTYPES ? tables[dt] : NULL;
}
