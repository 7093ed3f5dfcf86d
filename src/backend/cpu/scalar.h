/* Scalar helpers: the C spellings of include/ember/ops.def.
 *
 * Each op's spelling (em_floor_divide(a, b), em_sign(a), ...) is a macro
 * dispatching with C11 _Generic on the operand type to a small static inline
 * function of that type, so the typed loops in loops_*.c inline it.  Every
 * helper is a self-contained expression of its operands (no state, no
 * errors): the CUDA and OpenCL preludes define the same names with the same
 * bodies.  The semantics are NumPy's, including its answers where C has
 * undefined behaviour: integer division by zero gives 0, INT_MIN // -1
 * wraps, shifts by >= the bit width give 0 (-1 for a negative value shifted
 * right), int ** negative gives 0 (the binding raises before that).
 *
 * Naming: em_<op>_<suffix> with suffix b (bool), i8..i64, u8..u64, f32,
 * f64, c64, c128.  Built with -fwrapv, so signed overflow wraps.
 */
#ifndef EM_CPU_SCALAR_H
#define EM_CPU_SCALAR_H

#include <complex.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

/* ---- type lists: M(suffix, T, U or math-suffix, ...) ---------------------- */
#define EM__SINTS(M) M(i8, int8_t, uint8_t) M(i16, int16_t, uint16_t) M(i32, int32_t, uint32_t) \
    M(i64, int64_t, uint64_t)
#define EM__UINTS(M) M(u8, uint8_t, uint8_t) M(u16, uint16_t, uint16_t) \
    M(u32, uint32_t, uint32_t) M(u64, uint64_t, uint64_t)
#define EM__INTS(M) EM__SINTS(M) EM__UINTS(M)
/* Floats: M(suffix, T, libm suffix); complex: M(suffix, T, real T, libm suffix). */
#define EM__FLOATS(M) M(f32, float, f) M(f64, double, )
#define EM__CPLXS(M) M(c64, float _Complex, float, f) M(c128, double _Complex, double, )

/* _Generic association lists for one family each; end a list with EM__GEND. */
#define EM__GB(f) bool : f##_b,
#define EM__GS(f) int8_t : f##_i8, int16_t : f##_i16, int32_t : f##_i32, int64_t : f##_i64,
#define EM__GU(f) uint8_t : f##_u8, uint16_t : f##_u16, uint32_t : f##_u32, uint64_t : f##_u64,
#define EM__GF(f) float : f##_f32, double : f##_f64,
#define EM__GC(f) float _Complex : f##_c64, double _Complex : f##_c128,
#define EM__GEND default : em__no_loop
void em__no_loop(void); /* never defined: selecting it is a compile error */

#define EM__ALL(f, a) _Generic((a), EM__GB(f) EM__GS(f) EM__GU(f) EM__GF(f) EM__GC(f) EM__GEND)
#define EM__REAL(f, a) _Generic((a), EM__GB(f) EM__GS(f) EM__GU(f) EM__GF(f) EM__GEND)
#define EM__NUM(f, a) _Generic((a), EM__GS(f) EM__GU(f) EM__GF(f) EM__GC(f) EM__GEND)
#define EM__INTF(f, a) _Generic((a), EM__GS(f) EM__GU(f) EM__GF(f) EM__GEND)
#define EM__INT(f, a) _Generic((a), EM__GS(f) EM__GU(f) EM__GEND)
#define EM__FC(f, a) _Generic((a), EM__GF(f) EM__GC(f) EM__GEND)
#define EM__F(f, a) _Generic((a), EM__GF(f) EM__GEND)

/* ---- plain operators (valid for every type; bool results are cast) -------- */
#define em_add(a, b) ((a) + (b))
#define em_subtract(a, b) ((a) - (b))
/* Complex multiplication is NumPy's plain formula: C's Annex G one recovers
 * infinities from NaN parts ((inf + 0i) * (inf + inf i) = inf + inf i where
 * NumPy gives NaN + NaN i). */
#define em_multiply(a, b)                                                                         \
    _Generic((a), float _Complex : em__cmul_c64(a, b), double _Complex : em__cmul_c128(a, b),      \
             default : (a) * (b))
/* Complex division is NumPy's (Smith's algorithm, as the CUDA prelude), not
 * C's Annex G one, which gives 1 / (inf + inf i) = 0 where NumPy gives NaN. */
#define em_divide(a, b)                                                                           \
    _Generic((a), float _Complex : em__cdiv_c64(a, b), double _Complex : em__cdiv_c128(a, b),      \
             default : (a) / (b))
#define em_negative(a) (-(a))
#define em_equal(a, b) ((a) == (b))
#define em_not_equal(a, b) ((a) != (b))

/* A complex from its parts (re + im * I would turn an infinite part into a
 * NaN of the other: 0 * inf). */
#define EM__CMK(S, T, R, M)                                                                        \
    static inline T em__cmk_##S(R re, R im) {                                                      \
        R p[2] = {re, im};                                                                         \
        T z;                                                                                       \
        memcpy(&z, p, sizeof z);                                                                   \
        return z;                                                                                  \
    }
EM__CPLXS(EM__CMK)

#define EM__CDIV(S, T, R, M)                                                                       \
    static inline T em__cdiv_##S(T a, T b) {                                                       \
        R ar = creal##M(a), ai = cimag##M(a), br = creal##M(b), bi = cimag##M(b);                  \
        R abr = fabs##M(br), abi = fabs##M(bi);                                                    \
        if (abr >= abi) {                                                                          \
            if (abr == 0 && abi == 0) return em__cmk_##S(ar / abr, ai / abr);                      \
            R rat = bi / br, scl = (R)1 / (br + bi * rat);                                         \
            return em__cmk_##S((ar + ai * rat) * scl, (ai - ar * rat) * scl);                      \
        }                                                                                          \
        R rat = br / bi, scl = (R)1 / (bi + br * rat);                                             \
        return em__cmk_##S((ar * rat + ai) * scl, (ai * rat - ar) * scl);                         \
    }
EM__CPLXS(EM__CDIV)

#define EM__CMUL(S, T, R, M)                                                                       \
    static inline T em__cmul_##S(T a, T b) {                                                       \
        R ar = creal##M(a), ai = cimag##M(a), br = creal##M(b), bi = cimag##M(b);                  \
        return em__cmk_##S(ar * br - ai * bi, ar * bi + ai * br);                                  \
    }
EM__CPLXS(EM__CMUL)

/* ---- integer division and powers ------------------------------------------ */
/* Python's floor division and modulo; b == 0 gives 0, b == -1 avoids the
 * INT_MIN / -1 trap (the quotient wraps, the remainder is 0). */
#define EM__SDIV(S, T, U)                                                                          \
    static inline T em_floor_divide_##S(T a, T b) {                                                \
        if (b == 0) return 0;                                                                      \
        if (b == -1) return (T)(0u - (U)a);                                                        \
        T q = (T)(a / b);                                                                          \
        return (T)(q - ((a % b != 0) & ((a < 0) != (b < 0))));                                     \
    }                                                                                              \
    static inline T em_remainder_##S(T a, T b) {                                                   \
        if (b == 0 || b == -1) return 0;                                                           \
        T r = (T)(a % b);                                                                          \
        return (T)(r != 0 && (r < 0) != (b < 0) ? r + b : r);                                      \
    }                                                                                              \
    static inline T em_fmod_##S(T a, T b) { return (T)(b == 0 || b == -1 ? 0 : a % b); }         \
    static inline T em_reciprocal_##S(T a) { return (T)(a == 0 ? 0 : 1 / a); }                   \
    static inline T em_power_##S(T a, T b) {                                                       \
        if (b < 0) return (T)(a == 1 ? 1 : a == -1 ? ((b & 1) ? -1 : 1) : 0);                      \
        U r = 1, x = (U)a;                                                                         \
        for (U e = (U)b; e; e >>= 1, x *= x)                                                       \
            if (e & 1) r *= x;                                                                     \
        return (T)r;                                                                               \
    }
#define EM__UDIV(S, T, U)                                                                          \
    static inline T em_floor_divide_##S(T a, T b) { return (T)(b ? a / b : 0); }                   \
    static inline T em_remainder_##S(T a, T b) { return (T)(b ? a % b : 0); }                      \
    static inline T em_fmod_##S(T a, T b) { return (T)(b ? a % b : 0); }                           \
    static inline T em_reciprocal_##S(T a) { return (T)(a ? 1 / a : 0); }                          \
    static inline T em_power_##S(T a, T b) {                                                       \
        T r = 1;                                                                                   \
        for (; b; b >>= 1, a *= a)                                                                 \
            if (b & 1) r *= a;                                                                     \
        return r;                                                                                  \
    }
EM__SINTS(EM__SDIV)
EM__UINTS(EM__UDIV)

/* NumPy's npy_divmod: fmod, moved to the divisor's sign, quotient snapped
 * to an integer; b == 0 gives a / b and fmod's NaN. */
#define EM__FDIV(S, T, M)                                                                          \
    static inline T em__divmod_##S(T a, T b, T *mod) {                                             \
        T m = fmod##M(a, b);                                                                       \
        if (!b) return *mod = m, a / b;                                                            \
        T div = (a - m) / b;                                                                       \
        if (m) {                                                                                   \
            if (isless(b, (T)0) != isless(m, (T)0)) m += b, div -= 1;                              \
        } else {                                                                                   \
            m = copysign##M(0, b);                                                                 \
        }                                                                                          \
        *mod = m;                                                                                  \
        if (!div) return copysign##M(0, a / b);                                                    \
        T fl = floor##M(div);                                                                      \
        return isgreater(div - fl, (T)0.5) ? fl + 1 : fl;                                          \
    }                                                                                              \
    static inline T em_floor_divide_##S(T a, T b) {                                                \
        T m;                                                                                       \
        return b ? em__divmod_##S(a, b, &m) : a / b;                                               \
    }                                                                                              \
    static inline T em_remainder_##S(T a, T b) {                                                   \
        T m;                                                                                       \
        if (!b) return fmod##M(a, b);                                                              \
        em__divmod_##S(a, b, &m);                                                                  \
        return m;                                                                                  \
    }                                                                                              \
    static inline T em_fmod_##S(T a, T b) { return fmod##M(a, b); }                               \
    static inline T em_power_##S(T a, T b) { return pow##M(a, b); }                               \
    static inline T em_reciprocal_##S(T a) { return 1 / a; }
EM__FLOATS(EM__FDIV)

/* bool floor_divide/remainder/power never run: the resolver computes in int8. */
#define em_floor_divide(a, b) EM__INTF(em_floor_divide, a)(a, b)
#define em_remainder(a, b) EM__INTF(em_remainder, a)(a, b)
#define em_fmod(a, b) EM__INTF(em_fmod, a)(a, b)

/* Complex powers as NumPy's npy_cpow: b == 0 gives 1, a == 0 gives 0 for
 * re(b) > 0 and NaN otherwise; integer exponents below 100 by repeated
 * (plain) multiplication, 1, 2 and 3 unrolled, negative ones divided into
 * 1 (so the special values come out as NumPy's); cpow otherwise. */
#define EM__CPOW(S, T, R, M)                                                                       \
    static inline T em_power_##S(T a, T b) {                                                       \
        R br = creal##M(b), bi = cimag##M(b);                                                      \
        if (br == 0 && bi == 0) return 1;                                                          \
        if (a == 0) return br > 0 ? (T)0 : em__cmk_##S(NAN, NAN);                                  \
        if (bi == 0 && br == floor##M(br) && fabs##M(br) < 100) {                                  \
            long n = (long)br;                                                                     \
            if (n == 1) return a;                                                                  \
            if (n == 2) return em__cmul_##S(a, a);                                                 \
            if (n == 3) return em__cmul_##S(a, em__cmul_##S(a, a));                                \
            T aa = 1, p = a;                                                                       \
            long m = n < 0 ? -n : n;                                                               \
            for (long mask = 1;; mask <<= 1, p = em__cmul_##S(p, p)) {                            \
                if (m & mask) aa = em__cmul_##S(aa, p);                                            \
                if (m < (mask << 1)) break;                                                        \
            }                                                                                      \
            return n < 0 ? em__cdiv_##S(1, aa) : aa;                                               \
        }                                                                                          \
        return cpow##M(a, b);                                                                      \
    }                                                                                              \
    static inline T em_reciprocal_##S(T a) { /* NumPy's: 1 / (inf + inf i) is NaN */             \
        R ar = creal##M(a), ai = cimag##M(a);                                                      \
        if (fabs##M(ai) <= fabs##M(ar)) {                                                          \
            R r = ai / ar, d = ar + ai * r;                                                        \
            return em__cmk_##S(1 / d, -r / d);                                                     \
        }                                                                                          \
        R r = ar / ai, d = ar * r + ai;                                                            \
        return em__cmk_##S(r / d, -1 / d);                                                        \
    }
EM__CPLXS(EM__CPOW)
#define em_power(a, b) EM__NUM(em_power, a)(a, b)
#define em_reciprocal(a) EM__NUM(em_reciprocal, a)(a)

/* ---- bits ------------------------------------------------------------------ */
/* Shifts by a negative count or >= the width give 0 (right shift of a
 * negative value: -1), NumPy's npy_lshift/npy_rshift. */
#define EM__SHIFT(S, T, U)                                                                         \
    static inline T em_left_shift_##S(T a, T b) {                                                  \
        return (T)((uint64_t)b < sizeof(T) * 8 ? (U)((U)a << b) : 0);                              \
    }                                                                                              \
    static inline T em_invert_##S(T a) { return (T)~a; }
#define EM__SRSHIFT(S, T, U)                                                                       \
    static inline T em_right_shift_##S(T a, T b) {                                                 \
        return (T)((uint64_t)b < sizeof(T) * 8 ? a >> b : (a < 0 ? -1 : 0));                       \
    }
#define EM__URSHIFT(S, T, U)                                                                       \
    static inline T em_right_shift_##S(T a, T b) { return (T)(b < sizeof(T) * 8 ? a >> b : 0); }
EM__SINTS(EM__SRSHIFT)
EM__UINTS(EM__URSHIFT)
EM__INTS(EM__SHIFT)
static inline bool em_invert_b(bool a) { return !a; }
#define em_left_shift(a, b) EM__INT(em_left_shift, a)(a, b)
#define em_right_shift(a, b) EM__INT(em_right_shift, a)(a, b)
#define em_invert(a) _Generic((a), EM__GB(em_invert) EM__GS(em_invert) EM__GU(em_invert) EM__GEND)(a)
#define em_bitwise_and(a, b) ((a) & (b))
#define em_bitwise_or(a, b) ((a) | (b))
#define em_bitwise_xor(a, b) ((a) ^ (b))
#define em_logical_and(a, b) ((a) && (b))
#define em_logical_or(a, b) ((a) || (b))
#define em_logical_xor(a, b) (!(a) != !(b))
#define em_logical_not(a) (!(a))

/* ---- integer and bool unary / ordering --------------------------------------- */
#define EM__IUN(S, T, U)                                                                           \
    static inline T em_rint_##S(T a) { return a; }                                                 \
    static inline T em_maximum_##S(T a, T b) { return a > b ? a : b; }                             \
    static inline T em_minimum_##S(T a, T b) { return a < b ? a : b; }                             \
    static inline bool em_isnan_##S(T a) { return (void)a, false; }                                \
    static inline bool em_isinf_##S(T a) { return (void)a, false; }                                \
    static inline bool em_isfinite_##S(T a) { return (void)a, true; }                              \
    static inline bool em_less_##S(T a, T b) { return a < b; }                                     \
    static inline bool em_less_equal_##S(T a, T b) { return a <= b; }
#define EM__SUN(S, T, U)                                                                           \
    static inline T em_absolute_##S(T a) { return (T)(a < 0 ? -a : a); }                          \
    static inline T em_sign_##S(T a) { return (T)((a > 0) - (a < 0)); }                           \
    static inline bool em_signbit_##S(T a) { return a < 0; }
#define EM__UUN(S, T, U)                                                                           \
    static inline T em_absolute_##S(T a) { return a; }                                            \
    static inline T em_sign_##S(T a) { return a > 0; }                                            \
    static inline bool em_signbit_##S(T a) { return (void)a, false; }
EM__INTS(EM__IUN)
EM__IUN(b, bool, bool)
EM__SINTS(EM__SUN)
EM__UINTS(EM__UUN)
EM__UUN(b, bool, bool)

/* ---- floats ---------------------------------------------------------------- */
/* maximum/minimum propagate NaN; fmax/fmin ignore it (C's fmax/fmin). */
#define EM__FUN(S, T, M)                                                                           \
    static inline T em_absolute_##S(T a) { return fabs##M(a); }                                    \
    static inline T em_sign_##S(T a) { return a > 0 ? 1 : a < 0 ? -1 : a == 0 ? 0 : a; }          \
    static inline T em_rint_##S(T a) { return rint##M(a); }                                        \
    static inline T em_maximum_##S(T a, T b) { return a >= b || a != a ? a : b; }                 \
    static inline T em_minimum_##S(T a, T b) { return a <= b || a != a ? a : b; }                 \
    static inline T em_fmax_##S(T a, T b) { return fmax##M(a, b); }                                \
    static inline T em_fmin_##S(T a, T b) { return fmin##M(a, b); }                                \
    static inline bool em_isnan_##S(T a) { return isnan(a); }                                      \
    static inline bool em_isinf_##S(T a) { return isinf(a); }                                      \
    static inline bool em_isfinite_##S(T a) { return isfinite(a); }                                \
    static inline bool em_signbit_##S(T a) { return signbit(a); }                                  \
    static inline bool em_less_##S(T a, T b) { return a < b; }                                     \
    static inline bool em_less_equal_##S(T a, T b) { return a <= b; }                              \
    static inline T em_logaddexp_##S(T a, T b) {                                                   \
        if (a == b) return a + (T)0.693147180559945309417232121458176568;                         \
        T d = a - b;                                                                               \
        return d > 0 ? a + log1p##M(exp##M(-d)) : d <= 0 ? b + log1p##M(exp##M(d)) : d;           \
    }
EM__FLOATS(EM__FUN)

/* logaddexp2, heaviside, cbrt, degrees <-> radians (NumPy's formulas). */
#define EM__FMORE(S, T, M)                                                                         \
    static inline T em_logaddexp2_##S(T a, T b) {                                                  \
        const T log2e = (T)1.442695040888963407359924681001892137;                                \
        if (a == b) return a + 1;                                                                  \
        T d = a - b;                                                                               \
        return d > 0 ? a + log2e * log1p##M(exp2##M(-d))                                           \
                     : d <= 0 ? b + log2e * log1p##M(exp2##M(d)) : d;                               \
    }                                                                                              \
    static inline T em_heaviside_##S(T a, T b) {                                                   \
        return a != a ? a : a == 0 ? b : a < 0 ? 0 : 1;                                            \
    }                                                                                              \
    static inline T em_deg2rad_##S(T a) { return a * (T)(3.141592653589793238462643383279502884 / 180); } \
    static inline T em_rad2deg_##S(T a) { return a * (T)(180 / 3.141592653589793238462643383279502884); } \
    static inline T em_cbrt_##S(T a) { return cbrt##M(a); }
EM__FLOATS(EM__FMORE)
#define em_logaddexp2(a, b) EM__F(em_logaddexp2, a)(a, b)
#define em_heaviside(a, b) EM__F(em_heaviside, a)(a, b)
#define em_deg2rad(a) EM__F(em_deg2rad, a)(a)
#define em_rad2deg(a) EM__F(em_rad2deg, a)(a)
#define em_cbrt(a) EM__F(em_cbrt, a)(a)

/* gcd by Euclid on magnitudes (|INT_MIN| wraps, as in NumPy); lcm from it. */
#define EM__GCD(S, T, U)                                                                           \
    static inline T em_gcd_##S(T a, T b) {                                                         \
        U x = (U)(a < 0 ? -(U)a : (U)a), y = (U)(b < 0 ? -(U)b : (U)b);                           \
        while (y) {                                                                                \
            U t = (U)(x % y);                                                                      \
            x = y, y = t;                                                                          \
        }                                                                                          \
        return (T)x;                                                                               \
    }                                                                                              \
    static inline T em_lcm_##S(T a, T b) {                                                         \
        T g = em_gcd_##S(a, b);                                                                    \
        U x = (U)(a < 0 ? -(U)a : (U)a), y = (U)(b < 0 ? -(U)b : (U)b);                           \
        return (T)(g ? (U)(x / (U)g * y) : 0);                                                     \
    }
#define EM__UGCD(S, T, U)                                                                          \
    static inline T em_gcd_##S(T a, T b) {                                                         \
        while (b) {                                                                                \
            T t = (T)(a % b);                                                                      \
            a = b, b = t;                                                                          \
        }                                                                                          \
        return a;                                                                                  \
    }                                                                                              \
    static inline T em_lcm_##S(T a, T b) {                                                         \
        T g = em_gcd_##S(a, b);                                                                    \
        return (T)(g ? a / g * b : 0);                                                             \
    }
EM__SINTS(EM__GCD)
EM__UINTS(EM__UGCD)
#define em_gcd(a, b) EM__INT(em_gcd, a)(a, b)
#define em_lcm(a, b) EM__INT(em_lcm, a)(a, b)

/* ---- complex --------------------------------------------------------------- */
/* Ordering is NumPy's: lexicographic on (real, imag), a NaN anywhere makes a
 * comparison false; maximum/minimum propagate a NaN operand, fmax/fmin
 * prefer the other one. */
#define EM__CLT(ar, ai, br, bi) ((ar < br && ai == ai && bi == bi) || (ar == br && ai < bi))
#define EM__CLE(ar, ai, br, bi) ((ar < br && ai == ai && bi == bi) || (ar == br && ai <= bi))
#define EM__CUN(S, T, R, M)                                                                        \
    static inline bool em_less_##S(T a, T b) {                                                     \
        R ar = creal##M(a), ai = cimag##M(a), br = creal##M(b), bi = cimag##M(b);                  \
        return EM__CLT(ar, ai, br, bi);                                                            \
    }                                                                                              \
    static inline bool em_less_equal_##S(T a, T b) {                                               \
        R ar = creal##M(a), ai = cimag##M(a), br = creal##M(b), bi = cimag##M(b);                  \
        return EM__CLE(ar, ai, br, bi);                                                            \
    }                                                                                              \
    static inline bool em_isnan_##S(T a) { return isnan(creal##M(a)) || isnan(cimag##M(a)); }     \
    static inline bool em_isinf_##S(T a) { return isinf(creal##M(a)) || isinf(cimag##M(a)); }     \
    static inline bool em_isfinite_##S(T a) {                                                      \
        return isfinite(creal##M(a)) && isfinite(cimag##M(a));                                     \
    }                                                                                              \
    static inline T em_maximum_##S(T a, T b) {                                                     \
        return em_isnan_##S(a) || em_less_equal_##S(b, a) ? a : b;                                 \
    }                                                                                              \
    static inline T em_minimum_##S(T a, T b) {                                                     \
        return em_isnan_##S(a) || em_less_equal_##S(a, b) ? a : b;                                 \
    }                                                                                              \
    static inline T em_fmax_##S(T a, T b) {                                                        \
        return em_isnan_##S(b) || em_less_equal_##S(b, a) ? a : b;                                 \
    }                                                                                              \
    static inline T em_fmin_##S(T a, T b) {                                                        \
        return em_isnan_##S(b) || em_less_equal_##S(a, b) ? a : b;                                 \
    }                                                                                              \
    static inline T em__cmake_##S(R re, R im) { return __builtin_complex(re, im); }                        \
    static inline T em_rint_##S(T a) { return em__cmake_##S(rint##M(creal##M(a)), rint##M(cimag##M(a))); } \
    static inline T em_sign_##S(T a) {                                                             \
        R re = creal##M(a), im = cimag##M(a);                                                      \
        if (isnan(re) || isnan(im)) return em__cmake_##S(NAN, NAN);                                \
        if (isinf(re)) return isinf(im) ? em__cmake_##S(NAN, NAN) : (re > 0 ? 1 : -1);             \
        if (isinf(im)) return em__cmake_##S(0, im > 0 ? 1 : -1);                                   \
        if (re == 0 && im == 0) return 0;                                                          \
        R h = hypot##M(re, im);                                                                    \
        return em__cmake_##S(re / h, im / h);                                                      \
    }
EM__CPLXS(EM__CUN)

#define em_absolute(a)                                                                             \
    _Generic((a), EM__GB(em_absolute) EM__GS(em_absolute) EM__GU(em_absolute)                     \
                      EM__GF(em_absolute) float _Complex : cabsf, double _Complex : cabs, EM__GEND)(a)
#define em_sign(a) EM__NUM(em_sign, a)(a)
#define em_rint(a) EM__NUM(em_rint, a)(a)
#define em_maximum(a, b) EM__ALL(em_maximum, a)(a, b)
#define em_minimum(a, b) EM__ALL(em_minimum, a)(a, b)
#define em_fmax(a, b)                                                                              \
    _Generic((a), EM__GB(em_maximum) EM__GS(em_maximum) EM__GU(em_maximum) EM__GF(em_fmax)        \
                      EM__GC(em_fmax) EM__GEND)(a, b)
#define em_fmin(a, b)                                                                              \
    _Generic((a), EM__GB(em_minimum) EM__GS(em_minimum) EM__GU(em_minimum) EM__GF(em_fmin)        \
                      EM__GC(em_fmin) EM__GEND)(a, b)
#define em_isnan(a) EM__ALL(em_isnan, a)(a)
#define em_isinf(a) EM__ALL(em_isinf, a)(a)
#define em_isfinite(a) EM__ALL(em_isfinite, a)(a)
#define em_signbit(a) EM__REAL(em_signbit, a)(a)
#define em_less(a, b) EM__ALL(em_less, a)(a, b)
#define em_less_equal(a, b) EM__ALL(em_less_equal, a)(a, b)
#define em_greater(a, b) em_less(b, a)
#define em_greater_equal(a, b) em_less_equal(b, a)
#define em_logaddexp(a, b) EM__F(em_logaddexp, a)(a, b)

/* floor/ceil/trunc keep integers as they are (NumPy 2). */
#define em_floor(a) _Generic((a), float : floorf(a), double : floor(a), default : (a))
#define em_ceil(a) _Generic((a), float : ceilf(a), double : ceil(a), default : (a))
#define em_trunc(a) _Generic((a), float : truncf(a), double : trunc(a), default : (a))

/* real/imag/conj: for real types the value, 0 and the value. */
#define em_real(a) _Generic((a), float _Complex : crealf(a), double _Complex : creal(a), default : (a))
#define em_imag(a) _Generic((a), float _Complex : cimagf(a), double _Complex : cimag(a), default : 0)
#define em_conj(a) _Generic((a), float _Complex : conjf(a), double _Complex : conj(a), default : (a))

/* ---- float math -------------------------------------------------------------- */
/* tgmath-like: one spelling for float, double and their complex types.
 * NumPy's complex exp2/log2/log10/expm1/log1p are the formulas below. */
#define EM__MATH(fn, cfn, a)                                                                       \
    _Generic((a), float : fn##f, double : fn, float _Complex : c##cfn##f, double _Complex : c##cfn)(a)
#define em_sqrt(a) EM__MATH(sqrt, sqrt, a)
#define em_exp(a) EM__MATH(exp, exp, a)
#define em_log(a) EM__MATH(log, log, a)
#define em_sin(a) EM__MATH(sin, sin, a)
#define em_cos(a) EM__MATH(cos, cos, a)
#define em_tan(a) EM__MATH(tan, tan, a)
#define em_arcsin(a) EM__MATH(asin, asin, a)
#define em_arccos(a) EM__MATH(acos, acos, a)
#define em_arctan(a) EM__MATH(atan, atan, a)
#define em_sinh(a) EM__MATH(sinh, sinh, a)
#define em_cosh(a) EM__MATH(cosh, cosh, a)
#define em_tanh(a) EM__MATH(tanh, tanh, a)
#define em_arcsinh(a) EM__MATH(asinh, asinh, a)
#define em_arccosh(a) EM__MATH(acosh, acosh, a)
#define em_arctanh(a) EM__MATH(atanh, atanh, a)

#define EM__CMATH(S, T, R, M)                                                                      \
    static inline T em_exp2_##S(T a) { return cexp##M(a * (R)0.693147180559945309417232121458176568); } \
    static inline T em_log2_##S(T a) { return clog##M(a) / (R)0.693147180559945309417232121458176568; } \
    static inline T em_log10_##S(T a) { return clog##M(a) / (R)2.302585092994045684017991454684364208; } \
    static inline T em_expm1_##S(T a) {                                                            \
        R re = creal##M(a), im = cimag##M(a), s = sin##M(im / 2);                                  \
        return em__cmake_##S(expm1##M(re) * cos##M(im) - 2 * s * s, exp##M(re) * sin##M(im));     \
    }                                                                                              \
    static inline T em_log1p_##S(T a) {                                                            \
        R re = creal##M(a) + 1, im = cimag##M(a);                                                  \
        return em__cmake_##S(log##M(hypot##M(re, im)), atan2##M(im, re));                          \
    }
EM__CPLXS(EM__CMATH)
#define EM__MATHC(fn, a) _Generic((a), float : fn##f, double : fn, EM__GC(em_##fn) EM__GEND)(a)
#define em_exp2(a) EM__MATHC(exp2, a)
#define em_log2(a) EM__MATHC(log2, a)
#define em_log10(a) EM__MATHC(log10, a)
#define em_expm1(a) EM__MATHC(expm1, a)
#define em_log1p(a) EM__MATHC(log1p, a)

#define EM__MATH2(fn, a, b) _Generic((a), float : fn##f, double : fn)(a, b)
#define em_arctan2(a, b) EM__MATH2(atan2, a, b)
#define em_hypot(a, b) EM__MATH2(hypot, a, b)
#define em_copysign(a, b) EM__MATH2(copysign, a, b)
#define em_nextafter(a, b)                                                                         \
    _Generic((a), _Float16 : em_nextafter_f16, float : nextafterf, double : nextafter)(a, b)

/* float16 steps in its own ulps, so it has its own loop: move the bit
 * pattern one unit towards b. */
static inline _Float16 em_nextafter_f16(_Float16 a, _Float16 b) {
    if (a != a || b != b) return a + b;
    if (a == b) return b;
    union { _Float16 f; uint16_t u; } v = {a};
    if (a == 0) v.u = b > 0 ? 1 : 0x8001;
    else v.u = (uint16_t)((a < b) == (a > 0) ? v.u + 1 : v.u - 1);
    return v.f;
}

#endif
