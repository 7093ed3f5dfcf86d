#include "backend/cpu/cast.h"

#include <complex.h>
#include <stdint.h>
#include <string.h>

/* float -> 64-bit integer bits without undefined behaviour. */
static inline uint64_t em__f2u(double v) {
    if (v >= -9223372036854775808.0 && v < 9223372036854775808.0) return (uint64_t)(int64_t)v;
    if (v >= 9223372036854775808.0 && v < 18446744073709551616.0) return (uint64_t)v;
    return (uint64_t)1 << 63;
}

#define EM_ISFLT(k) ((k) == 'f' || (k) == 'c')
#define EM_ISINT(k) ((k) == 'i' || (k) == 'u')

/* The kinds are constants, so each instance folds to one branch. */
#define EM_CVT(fk, tk, TT, x)                                                                      \
    ((tk) == 'b'                    ? (TT)((x) != 0)                                               \
     : EM_ISFLT(fk) && EM_ISINT(tk) ? (TT)em__f2u((double)(x))                                     \
                                    : (TT)(x))

/* Float -> integer of at most 32 bits: a chunk whose values all lie in the
 * int32 range converts with a plain (vectorisable) truncation, which gives the
 * same bits as the general path; other chunks (NaN, inf, huge) take that path. */
#define EM_F2I_CHUNK 512
#define EM_CAST_F2I32(FT, TT, fk, tk)                                                              \
    for (int64_t b = 0; b < n; b += EM_F2I_CHUNK) {                                                \
        int64_t e = n - b < EM_F2I_CHUNK ? n : b + EM_F2I_CHUNK;                                   \
        int ok = 1;                                                                                \
        for (int64_t i = b; i < e; i++) {                                                          \
            double v = (double)src[i];                                                             \
            ok &= (v >= -2147483648.0) & (v < 2147483648.0);                                       \
        }                                                                                          \
        if (ok) {                                                                                  \
            for (int64_t i = b; i < e; i++) dst[i] = (TT)(int32_t)(double)src[i];                  \
        } else {                                                                                   \
            for (int64_t i = b; i < e; i++) dst[i] = EM_CVT(fk, tk, TT, src[i]);                   \
        }                                                                                          \
    }

#define EM_CAST_FN(FE, FT, fk, TE, TT, tk)                                                         \
    static void em__cast_##FE##_##TE(int64_t n, const void *s, void *d) {                        \
        const FT *src = s;                                                                         \
        TT *dst = d;                                                                               \
        if (EM_ISFLT(fk) && EM_ISINT(tk) && sizeof(TT) <= 4) {                                     \
            EM_CAST_F2I32(FT, TT, fk, tk)                                                          \
            return;                                                                                \
        }                                                                                          \
        for (int64_t i = 0; i < n; i++) dst[i] = EM_CVT(fk, tk, TT, src[i]);                       \
    }

#define EM_CAST_FROM(FE, FT, fk)                                                                   \
    EM_CAST_FN(FE, FT, fk, BOOL, bool, 'b')                                                        \
    EM_CAST_FN(FE, FT, fk, INT8, int8_t, 'i')                                                      \
    EM_CAST_FN(FE, FT, fk, INT16, int16_t, 'i')                                                    \
    EM_CAST_FN(FE, FT, fk, INT32, int32_t, 'i')                                                    \
    EM_CAST_FN(FE, FT, fk, INT64, int64_t, 'i')                                                    \
    EM_CAST_FN(FE, FT, fk, UINT8, uint8_t, 'u')                                                    \
    EM_CAST_FN(FE, FT, fk, UINT16, uint16_t, 'u')                                                  \
    EM_CAST_FN(FE, FT, fk, UINT32, uint32_t, 'u')                                                  \
    EM_CAST_FN(FE, FT, fk, UINT64, uint64_t, 'u')                                                  \
    EM_CAST_FN(FE, FT, fk, FLOAT16, _Float16, 'f')                                                 \
    EM_CAST_FN(FE, FT, fk, FLOAT32, float, 'f')                                                    \
    EM_CAST_FN(FE, FT, fk, FLOAT64, double, 'f')                                                   \
    EM_CAST_FN(FE, FT, fk, COMPLEX64, float _Complex, 'c')                                         \
    EM_CAST_FN(FE, FT, fk, COMPLEX128, double _Complex, 'c')

#define EM_DTYPE(E, name, ctype, kind, size, buf) EM_CAST_FROM(E, ctype, kind)
#include "ember/dtypes.def"
#undef EM_DTYPE

#define EM_CAST_ROW(FE)                                                                            \
    {em__cast_##FE##_BOOL,    em__cast_##FE##_INT8,    em__cast_##FE##_INT16,                      \
     em__cast_##FE##_INT32,   em__cast_##FE##_INT64,   em__cast_##FE##_UINT8,                      \
     em__cast_##FE##_UINT16,  em__cast_##FE##_UINT32,  em__cast_##FE##_UINT64,                     \
     em__cast_##FE##_FLOAT16, em__cast_##FE##_FLOAT32, em__cast_##FE##_FLOAT64,                    \
     em__cast_##FE##_COMPLEX64, em__cast_##FE##_COMPLEX128},

const em_cast_fn em_cast_table[EM_NDTYPES][EM_NDTYPES] = {
#define EM_DTYPE(E, name, ctype, kind, size, buf) EM_CAST_ROW(E)
#include "ember/dtypes.def"
#undef EM_DTYPE
};

/* Typed gather for an element stride k: the constant strides 2 and -1 (every
 * other element, reversed) get their own loops, which the compiler turns into
 * vector shuffles; other strides are a plain loop, unrolled by the compiler. */
#define EM_GATHER_TYPED(T)                                                                         \
    static void em__gather_##T(int64_t n, const T *s, int64_t k, T *d) {                          \
        if (k == 2) {                                                                              \
            for (int64_t i = 0; i < n; i++) d[i] = s[2 * i];                                       \
        } else if (k == -1) {                                                                      \
            for (int64_t i = 0; i < n; i++) d[i] = s[-i];                                          \
        } else {                                                                                   \
            for (int64_t i = 0; i < n; i++) d[i] = s[i * k];                                       \
        }                                                                                          \
    }
EM_GATHER_TYPED(uint8_t)
EM_GATHER_TYPED(uint16_t)
EM_GATHER_TYPED(uint32_t)
EM_GATHER_TYPED(uint64_t)

void em_gather(int64_t n, int size, const char *src, int64_t stride, char *dst) {
    if (stride == size) {
        memcpy(dst, src, (size_t)(n * size));
        return;
    }
    if (stride % size == 0 && ((uintptr_t)src % (uintptr_t)size) == 0) {
        int64_t k = stride / size;
        switch (size) {
        case 1: em__gather_uint8_t(n, (const uint8_t *)src, k, (uint8_t *)dst); return;
        case 2: em__gather_uint16_t(n, (const uint16_t *)src, k, (uint16_t *)dst); return;
        case 4: em__gather_uint32_t(n, (const uint32_t *)src, k, (uint32_t *)dst); return;
        case 8: em__gather_uint64_t(n, (const uint64_t *)src, k, (uint64_t *)dst); return;
        default: break;
        }
    }
    for (int64_t i = 0; i < n; i++) memcpy(dst + i * size, src + i * stride, (size_t)size);
}

void em_scatter(int64_t n, int size, const char *src, char *dst, int64_t stride) {
    if (stride == size) {
        memcpy(dst, src, (size_t)(n * size));
        return;
    }
    for (int64_t i = 0; i < n; i++) memcpy(dst + i * stride, src + (int64_t)i * size, (size_t)size);
}
