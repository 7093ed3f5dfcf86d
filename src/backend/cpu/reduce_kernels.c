/* Typed kernels of the CPU reductions and scans: one family of functions
 * per loop dtype, generated from the templates below (see
 * reduce_kernels.h for the contracts).  Contiguous runs get their own loop
 * so the compiler can vectorise them. */
#include "backend/cpu/reduce_kernels.h"

#include <stdbool.h>

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
/* Floats: a NaN, once met, sticks (x != x is "x is NaN"). */
#define EM_C_FMIN(a, x) (((x) < (a) || (x) != (x)) ? (x) : (a))
#define EM_C_FMAX(a, x) (((x) > (a) || (x) != (x)) ? (x) : (a))

/* ---- generic templates ---------------------------------------------------- */

#define EM_FOLD(NAME, T, COMB)                                                                     \
    static void NAME(int64_t n, const char *p, int64_t s, void *accp) {                           \
        T a = *(T *)accp;                                                                          \
        if (s == (int64_t)sizeof(T)) {                                                             \
            const T *q = (const T *)p;                                                             \
            for (int64_t i = 0; i < n; i++) a = COMB(a, q[i]);                                     \
        } else {                                                                                   \
            for (int64_t i = 0; i < n; i++) a = COMB(a, EM_AT(T, p, i, s));                        \
        }                                                                                          \
        *(T *)accp = a;                                                                            \
    }

#define EM_ACCUM(NAME, T, COMB)                                                                    \
    static void NAME(int64_t n, void *accp, const char *p, int64_t s) {                           \
        T *a = accp;                                                                               \
        if (s == (int64_t)sizeof(T)) {                                                             \
            const T *q = (const T *)p;                                                             \
            for (int64_t i = 0; i < n; i++) a[i] = COMB(a[i], q[i]);                               \
        } else {                                                                                   \
            for (int64_t i = 0; i < n; i++) a[i] = COMB(a[i], EM_AT(T, p, i, s));                  \
        }                                                                                          \
    }

#define EM_SCAN(NAME, T, COMB)                                                                     \
    static void NAME(int64_t n, const char *p, int64_t s, char *o, int64_t os, void *carry) {     \
        T c = *(T *)carry;                                                                         \
        for (int64_t i = 0; i < n; i++) {                                                          \
            c = COMB(c, EM_AT(T, p, i, s));                                                        \
            *(T *)(o + i * os) = c;                                                                \
        }                                                                                          \
        *(T *)carry = c;                                                                           \
    }

/* BETTER(x, b): x replaces the current best b; ISNAN(v) for the NaN rule. */
#define EM_ARGFOLD(NAME, T, BETTER, ISNAN)                                                         \
    static void NAME(int64_t n, const char *p, int64_t s, void *bestp, int64_t *bi, int64_t i0) { \
        T b = *(T *)bestp;                                                                         \
        int64_t k = *bi;                                                                           \
        for (int64_t i = 0; i < n && !ISNAN(b); i++) {                                             \
            T x = EM_AT(T, p, i, s);                                                               \
            if (BETTER(x, b) || ISNAN(x)) b = x, k = i0 + i;                                       \
        }                                                                                          \
        *(T *)bestp = b;                                                                           \
        *bi = k;                                                                                   \
    }

#define EM_ARGACCUM(NAME, T, BETTER, ISNAN)                                                        \
    static void NAME(int64_t n, void *bestp, int64_t *bi, const char *p, int64_t s, int64_t r) {  \
        T *b = bestp;                                                                              \
        for (int64_t i = 0; i < n; i++) {                                                          \
            T x = EM_AT(T, p, i, s);                                                               \
            if (!ISNAN(b[i]) && (BETTER(x, b[i]) || ISNAN(x))) b[i] = x, bi[i] = r;                \
        }                                                                                          \
    }

#define EM_LT(x, b) ((x) < (b))
#define EM_GT(x, b) ((x) > (b))
#define EM_NONAN(v) ((void)(v), 0)
#define EM_ISNANF(v) ((v) != (v))

/* ---- float min/max folds: vectorisable max plus a NaN flag --------------- */

#define EM_FMINMAX_FOLD(NAME, T, CMP)                                                              \
    static void NAME(int64_t n, const char *p, int64_t s, void *accp) {                           \
        T a = *(T *)accp;                                                                          \
        if (a != a) return;                                                                        \
        int nan = 0;                                                                               \
        for (int64_t i = 0; i < n; i++) {                                                          \
            T x = EM_AT(T, p, i, s);                                                               \
            nan |= x != x;                                                                         \
            a = x CMP a ? x : a;                                                                   \
        }                                                                                          \
        if (nan)                                                                                   \
            for (int64_t i = 0; i < n; i++)                                                        \
                if (EM_AT(T, p, i, s) != EM_AT(T, p, i, s)) {                                      \
                    a = EM_AT(T, p, i, s);                                                         \
                    break;                                                                         \
                }                                                                                  \
        *(T *)accp = a;                                                                            \
    }

/* ---- float pairwise sums (NumPy's pairwise_sum) -------------------------- */

#define EM_PAIRWISE(NAME, T)                                                                       \
    static T NAME(int64_t n, const char *p, int64_t s) {                                           \
        if (n < 8) {                                                                               \
            T res = (T)-0.0;                                                                       \
            for (int64_t i = 0; i < n; i++) res += EM_AT(T, p, i, s);                              \
            return res;                                                                            \
        }                                                                                          \
        if (n <= 128) {                                                                            \
            T r[8];                                                                                \
            for (int j = 0; j < 8; j++) r[j] = EM_AT(T, p, j, s);                                  \
            int64_t i;                                                                             \
            for (i = 8; i < n - (n % 8); i += 8)                                                   \
                for (int j = 0; j < 8; j++) r[j] += EM_AT(T, p, i + j, s);                         \
            T res = ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]));             \
            for (; i < n; i++) res += EM_AT(T, p, i, s);                                           \
            return res;                                                                            \
        }                                                                                          \
        int64_t n2 = em_rk_pairwise_split(n);                                                      \
        return NAME(n2, p, s) + NAME(n - n2, p + n2 * s, s);                                       \
    }

/* The contiguous twin: same arithmetic, constant stride for the vectoriser. */
#define EM_PAIRWISE_C(NAME, T)                                                                     \
    static T NAME(int64_t n, const char *p) {                                                      \
        const T *q = (const T *)p;                                                                 \
        if (n < 8) {                                                                               \
            T res = (T)-0.0;                                                                       \
            for (int64_t i = 0; i < n; i++) res += q[i];                                           \
            return res;                                                                            \
        }                                                                                          \
        if (n <= 128) {                                                                            \
            T r[8];                                                                                \
            for (int j = 0; j < 8; j++) r[j] = q[j];                                               \
            int64_t i;                                                                             \
            for (i = 8; i < n - (n % 8); i += 8)                                                   \
                for (int j = 0; j < 8; j++) r[j] += q[i + j];                                      \
            T res = ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]));             \
            for (; i < n; i++) res += q[i];                                                        \
            return res;                                                                            \
        }                                                                                          \
        int64_t n2 = em_rk_pairwise_split(n);                                                      \
        return NAME(n2, p) + NAME(n - n2, p + n2 * (int64_t)sizeof(T));                            \
    }

#define EM_PWFOLD(NAME, T)                                                                         \
    EM_PAIRWISE(NAME##_pw, T)                                                                      \
    EM_PAIRWISE_C(NAME##_pwc, T)                                                                   \
    static void NAME(int64_t n, const char *p, int64_t s, void *accp) {                           \
        *(T *)accp += s == (int64_t)sizeof(T) ? NAME##_pwc(n, p) : NAME##_pw(n, p, s);            \
    }

/* ---- families ----------------------------------------------------------- */

#define EM_TABLE(SUF)                                                                              \
    static const em_rk_table em__rk_##SUF = {                                                      \
        {fold_sum_##SUF, fold_prod_##SUF, fold_min_##SUF, fold_max_##SUF},                         \
        {accum_sum_##SUF, accum_prod_##SUF, accum_min_##SUF, accum_max_##SUF},                     \
        {argfold_min_##SUF, argfold_max_##SUF},                                                    \
        {argaccum_min_##SUF, argaccum_max_##SUF},                                                  \
        {scan_sum_##SUF, scan_prod_##SUF}};

/* Integers and bool: plain loops (exact, wrapping). */
#define EM_INT_FAMILY(SUF, T, SUM, PROD)                                                           \
    EM_FOLD(fold_sum_##SUF, T, SUM)                                                                \
    EM_FOLD(fold_prod_##SUF, T, PROD)                                                              \
    EM_FOLD(fold_min_##SUF, T, EM_C_IMIN)                                                          \
    EM_FOLD(fold_max_##SUF, T, EM_C_IMAX)                                                          \
    EM_ACCUM(accum_sum_##SUF, T, SUM)                                                              \
    EM_ACCUM(accum_prod_##SUF, T, PROD)                                                            \
    EM_ACCUM(accum_min_##SUF, T, EM_C_IMIN)                                                        \
    EM_ACCUM(accum_max_##SUF, T, EM_C_IMAX)                                                        \
    EM_ARGFOLD(argfold_min_##SUF, T, EM_LT, EM_NONAN)                                              \
    EM_ARGFOLD(argfold_max_##SUF, T, EM_GT, EM_NONAN)                                              \
    EM_ARGACCUM(argaccum_min_##SUF, T, EM_LT, EM_NONAN)                                            \
    EM_ARGACCUM(argaccum_max_##SUF, T, EM_GT, EM_NONAN)                                            \
    EM_SCAN(scan_sum_##SUF, T, SUM)                                                                \
    EM_SCAN(scan_prod_##SUF, T, PROD)                                                              \
    EM_TABLE(SUF)

#define EM_FLOAT_FAMILY(SUF, T)                                                                    \
    EM_PWFOLD(fold_sum_##SUF, T)                                                                   \
    EM_FOLD(fold_prod_##SUF, T, EM_C_PROD)                                                         \
    EM_FMINMAX_FOLD(fold_min_##SUF, T, <)                                                          \
    EM_FMINMAX_FOLD(fold_max_##SUF, T, >)                                                          \
    EM_ACCUM(accum_sum_##SUF, T, EM_C_SUM)                                                         \
    EM_ACCUM(accum_prod_##SUF, T, EM_C_PROD)                                                       \
    EM_ACCUM(accum_min_##SUF, T, EM_C_FMIN)                                                        \
    EM_ACCUM(accum_max_##SUF, T, EM_C_FMAX)                                                        \
    EM_ARGFOLD(argfold_min_##SUF, T, EM_LT, EM_ISNANF)                                             \
    EM_ARGFOLD(argfold_max_##SUF, T, EM_GT, EM_ISNANF)                                             \
    EM_ARGACCUM(argaccum_min_##SUF, T, EM_LT, EM_ISNANF)                                           \
    EM_ARGACCUM(argaccum_max_##SUF, T, EM_GT, EM_ISNANF)                                           \
    EM_SCAN(scan_sum_##SUF, T, EM_C_SUM)                                                           \
    EM_SCAN(scan_prod_##SUF, T, EM_C_PROD)                                                         \
    EM_TABLE(SUF)

EM_INT_FAMILY(b, bool, EM_C_OR, EM_C_AND)
EM_INT_FAMILY(i8, int8_t, EM_C_SUM, EM_C_PROD)
EM_INT_FAMILY(i16, int16_t, EM_C_SUM, EM_C_PROD)
EM_INT_FAMILY(i32, int32_t, EM_C_SUM, EM_C_PROD)
EM_INT_FAMILY(i64, int64_t, EM_C_SUM, EM_C_PROD)
EM_INT_FAMILY(u8, uint8_t, EM_C_SUM, EM_C_PROD)
EM_INT_FAMILY(u16, uint16_t, EM_C_SUM, EM_C_PROD)
EM_INT_FAMILY(u32, uint32_t, EM_C_SUM, EM_C_PROD)
EM_INT_FAMILY(u64, uint64_t, EM_C_SUM, EM_C_PROD)
EM_FLOAT_FAMILY(f32, float)
EM_FLOAT_FAMILY(f64, double)

/* ---- complex: a pair of reals ------------------------------------------- */

/* Complex values as structs, so the templates' `a = COMB(a, x)` works. */
#define EM_CPLX_OPS(SUF, R)                                                                        \
    typedef struct { R re, im; } em_##SUF;                                                         \
    static inline int em_##SUF##_isnan(em_##SUF v) { return v.re != v.re || v.im != v.im; }      \
    static inline em_##SUF em_##SUF##_add(em_##SUF a, em_##SUF x) {                               \
        return (em_##SUF){a.re + x.re, a.im + x.im};                                               \
    }                                                                                              \
    /* NumPy's plain formula (no C99 Annex G rescaling). */                                        \
    static inline em_##SUF em_##SUF##_mul(em_##SUF a, em_##SUF x) {                               \
        return (em_##SUF){a.re * x.re - a.im * x.im, a.re * x.im + a.im * x.re};                   \
    }                                                                                              \
    static inline int em_##SUF##_lt(em_##SUF x, em_##SUF b) {                                      \
        return x.re < b.re || (x.re == b.re && x.im < b.im);                                       \
    }                                                                                              \
    static inline int em_##SUF##_gt(em_##SUF x, em_##SUF b) {                                      \
        return x.re > b.re || (x.re == b.re && x.im > b.im);                                       \
    }                                                                                              \
    /* NaN sticks; otherwise lexicographic (NumPy's minimum/maximum). */                          \
    static inline em_##SUF em_##SUF##_min(em_##SUF a, em_##SUF x) {                               \
        return !em_##SUF##_isnan(a) && (em_##SUF##_lt(x, a) || em_##SUF##_isnan(x)) ? x : a;      \
    }                                                                                              \
    static inline em_##SUF em_##SUF##_max(em_##SUF a, em_##SUF x) {                               \
        return !em_##SUF##_isnan(a) && (em_##SUF##_gt(x, a) || em_##SUF##_isnan(x)) ? x : a;      \
    }                                                                                              \
    /* Sum: each component pairwise. */                                                            \
    static void fold_sum_##SUF(int64_t n, const char *p, int64_t s, void *accp) {                 \
        R *acc = accp;                                                                             \
        fold_sum_##SUF##_part(n, p, s, &acc[0]);                                                   \
        fold_sum_##SUF##_part(n, p + sizeof(R), s, &acc[1]);                                       \
    }

static void fold_sum_c64_part(int64_t n, const char *p, int64_t s, void *acc) {
    *(float *)acc += fold_sum_f32_pw(n, p, s);
}
static void fold_sum_c128_part(int64_t n, const char *p, int64_t s, void *acc) {
    *(double *)acc += fold_sum_f64_pw(n, p, s);
}

#define EM_CPLX_FAMILY(SUF, R)                                                                     \
    EM_CPLX_OPS(SUF, R)                                                                            \
    EM_FOLD(fold_prod_##SUF, em_##SUF, em_##SUF##_mul)                                             \
    EM_FOLD(fold_min_##SUF, em_##SUF, em_##SUF##_min)                                              \
    EM_FOLD(fold_max_##SUF, em_##SUF, em_##SUF##_max)                                              \
    EM_ACCUM(accum_sum_##SUF, em_##SUF, em_##SUF##_add)                                            \
    EM_ACCUM(accum_prod_##SUF, em_##SUF, em_##SUF##_mul)                                           \
    EM_ACCUM(accum_min_##SUF, em_##SUF, em_##SUF##_min)                                            \
    EM_ACCUM(accum_max_##SUF, em_##SUF, em_##SUF##_max)                                            \
    EM_ARGFOLD(argfold_min_##SUF, em_##SUF, em_##SUF##_lt, em_##SUF##_isnan)                       \
    EM_ARGFOLD(argfold_max_##SUF, em_##SUF, em_##SUF##_gt, em_##SUF##_isnan)                       \
    EM_ARGACCUM(argaccum_min_##SUF, em_##SUF, em_##SUF##_lt, em_##SUF##_isnan)                     \
    EM_ARGACCUM(argaccum_max_##SUF, em_##SUF, em_##SUF##_gt, em_##SUF##_isnan)                     \
    EM_SCAN(scan_sum_##SUF, em_##SUF, em_##SUF##_add)                                              \
    EM_SCAN(scan_prod_##SUF, em_##SUF, em_##SUF##_mul)                                             \
    EM_TABLE(SUF)

EM_CPLX_FAMILY(c64, float)
EM_CPLX_FAMILY(c128, double)

const em_rk_table *em_rk_get(em_dtype dt) {
    static const em_rk_table *const tables[EM_NDTYPES] = {
        [EM_BOOL] = &em__rk_b,     [EM_INT8] = &em__rk_i8,        [EM_INT16] = &em__rk_i16,
        [EM_INT32] = &em__rk_i32,  [EM_INT64] = &em__rk_i64,      [EM_UINT8] = &em__rk_u8,
        [EM_UINT16] = &em__rk_u16, [EM_UINT32] = &em__rk_u32,     [EM_UINT64] = &em__rk_u64,
        [EM_FLOAT32] = &em__rk_f32, [EM_FLOAT64] = &em__rk_f64,   [EM_COMPLEX64] = &em__rk_c64,
        [EM_COMPLEX128] = &em__rk_c128};
    return (unsigned)dt < EM_NDTYPES ? tables[dt] : NULL;
}
