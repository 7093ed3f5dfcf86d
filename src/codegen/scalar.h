/* The scalar library: NumPy's semantics of every op of include/ember/ops.def,
 * written once for every dialect.
 *
 * One function per op and loop dtype, em_<op>_<suffix>, <op> the ops.def
 * name and <suffix> one of b, i8..i64, u8..u64, f16 (storage only: float16
 * computes in float32, nextafter excepted), f32, f64, c64, c128.  The CPU
 * loops (src/backend/cpu/loops.c), the C, CUDA and OpenCL preludes and the
 * renderers all call these names, so fused == unfused and CPU == device.
 *
 * Written in the subset that C11, CUDA C++ (NVRTC) and OpenCL C 1.2 all
 * accept: no templates, no overloading, no _Generic, no C99 complex, no
 * headers, and no float used as a truth value (OpenCL C forbids `!x`,
 * `x ? :` and `if (x)` on floats: compare with 0).  The dialect's head,
 * pasted before this file, provides:
 *   EM_FN                 the function qualifier (static inline, __device__ ...)
 *   em_i8 .. em_u64, em_f32, em_f64, bool
 *   em_f16                struct { unsigned short x; } with em_h2f / em_f2h
 *   em_c64, em_c128       struct { re, im } (the CPU's float _Complex layout)
 *   C's math names        sqrtf, floor, fmodf, isnan ... (OpenCL maps them
 *                         onto its overloaded builtins)
 *   EM_ISLESS, EM_ISGREATER  quiet comparisons (no FE_INVALID on NaN)
 *   EM_NANF, EM_NAN       quiet NaNs
 *   EM_LIBM_COMPLEX       defined where C's <complex.h> is there (the CPU):
 *                         then the complex exp/log/sqrt/trig/power fall back
 *                         on libm's (NumPy's own), else on the formulas below
 *                         (the devices' since the first CUDA prelude).
 * scalar_complex.h follows it (complex bodies, kept apart for length).
 * It includes nothing: a leaf that any layer may include (the layer checker
 * lists it so), the CPU backend included.
 *
 * The semantics are NumPy's, including its answers where C has undefined
 * behaviour: integer division by zero gives 0, MIN // -1 wraps, shifts by
 * >= the bit width give 0 (-1 for a negative value shifted right), int **
 * negative gives 0 (the binding raises before that).  The CPU builds with
 * -fwrapv, the devices wrap; every integer result is cast back to its type.
 *
 * Adding an op: its ops.def row, then one body here per type family its
 * kinds allow (a family macro below, instantiated over EM__SINTS ...).
 */
#ifndef EM_CODEGEN_SCALAR_H
#define EM_CODEGEN_SCALAR_H

/* ---- type lists: M(suffix, T, U) for ints (U: same-width unsigned),
 * M(suffix, T, libm suffix) for floats, M(suffix, C, R, libm suffix) complex */
#define EM__SINTS(M) \
    M(i8, em_i8, em_u8) M(i16, em_i16, em_u16) M(i32, em_i32, em_u32) M(i64, em_i64, em_u64)
#define EM__UINTS(M) \
    M(u8, em_u8, em_u8) M(u16, em_u16, em_u16) M(u32, em_u32, em_u32) M(u64, em_u64, em_u64)
#define EM__INTS(M) EM__SINTS(M) EM__UINTS(M)
/* EM_NO_FP64: an OpenCL device without cl_khr_fp64 (head_opencl.cl), where
 * the type double does not exist: the lists stop at float32 and complex64. */
#ifdef EM_NO_FP64
#define EM__FLOATS(M) M(f32, em_f32, f)
#define EM__CPLXS(M) M(c64, em_c64, em_f32, f)
#else
#define EM__FLOATS(M) M(f32, em_f32, f) M(f64, em_f64, )
#define EM__CPLXS(M) M(c64, em_c64, em_f32, f) M(c128, em_c128, em_f64, )
#endif

EM_FN em_c64 em_mk_c64(em_f32 re, em_f32 im) {
    em_c64 c;
    c.re = re, c.im = im;
    return c;
}
#ifndef EM_NO_FP64
EM_FN em_c128 em_mk_c128(em_f64 re, em_f64 im) {
    em_c128 c;
    c.re = re, c.im = im;
    return c;
}
#endif

/* ---- every type: copy, positive, where, comparisons, logical ---------------- */
#define EM__ANY(S, T)                      \
    EM_FN T em_copy_##S(T a) { return a; } \
    EM_FN T em_where_##S(bool c, T a, T b) { return c ? a : b; }
#define EM__ORD(S, T)                                         \
    EM_FN T em_positive_##S(T a) { return a; }                \
    EM_FN bool em_equal_##S(T a, T b) { return a == b; }      \
    EM_FN bool em_not_equal_##S(T a, T b) { return a != b; }  \
    EM_FN bool em_less_##S(T a, T b) { return a < b; }        \
    EM_FN bool em_less_equal_##S(T a, T b) { return a <= b; } \
    EM_FN bool em_greater_##S(T a, T b) { return b < a; }     \
    EM_FN bool em_greater_equal_##S(T a, T b) { return b <= a; }
#define EM__ANYI(S, T, U) EM__ANY(S, T) EM__ORD(S, T)
#define EM__ANYF(S, T, M) EM__ANY(S, T) EM__ORD(S, T)
#define EM__ANYC(S, T, R, M) EM__ANY(S, T)
EM__ANY(b, bool)
EM__ANY(f16, em_f16) /* storage only: moved, never computed on */
EM__ORD(b, bool)
EM__INTS(EM__ANYI)
EM__FLOATS(EM__ANYF)
EM__CPLXS(EM__ANYC)

/* Logical ops: the BOOL resolver gives them bool operands. */
EM_FN bool em_logical_and_b(bool a, bool b) { return a && b; }
EM_FN bool em_logical_or_b(bool a, bool b) { return a || b; }
EM_FN bool em_logical_xor_b(bool a, bool b) { return a != b; }
EM_FN bool em_logical_not_b(bool a) { return !a; }

/* ---- bool ------------------------------------------------------------------ */
EM_FN bool em_add_b(bool a, bool b) { return a || b; }
EM_FN bool em_multiply_b(bool a, bool b) { return a && b; }
EM_FN bool em_maximum_b(bool a, bool b) { return a || b; }
EM_FN bool em_minimum_b(bool a, bool b) { return a && b; }
EM_FN bool em_fmax_b(bool a, bool b) { return a || b; }
EM_FN bool em_fmin_b(bool a, bool b) { return a && b; }
EM_FN bool em_absolute_b(bool a) { return a; }
EM_FN bool em_isnan_b(bool a) { return false; }
EM_FN bool em_isinf_b(bool a) { return false; }
EM_FN bool em_isfinite_b(bool a) { return true; }
EM_FN bool em_signbit_b(bool a) { return false; }
EM_FN bool em_floor_b(bool a) { return a; }
EM_FN bool em_ceil_b(bool a) { return a; }
EM_FN bool em_trunc_b(bool a) { return a; }
EM_FN bool em_real_b(bool a) { return a; }
EM_FN bool em_imag_b(bool a) { return false; }
EM_FN bool em_invert_b(bool a) { return !a; }
EM_FN bool em_bitwise_and_b(bool a, bool b) { return a && b; }
EM_FN bool em_bitwise_or_b(bool a, bool b) { return a || b; }
EM_FN bool em_bitwise_xor_b(bool a, bool b) { return a != b; }

/* ---- integers: arithmetic, bits, ordering ------------------------------------ */
/* Wrapping arithmetic is done in unsigned types (1u * (U)a is at least an
 * unsigned int, so uint16 * uint16 is no signed int overflow either): NVRTC
 * and OpenCL have no -fwrapv, and their optimisers use signed overflow being
 * undefined.  With abs(x) = x < 0 ? 0 - x : x in int64, NVRTC took the result
 * as never negative and dropped remainder's sign fix: abs(INT64_MIN) % 1000
 * gave -808 on CUDA (NumPy 192), in a fused loop of the fuzzer. */
/* EM_WRAP32/64 (identity but on CUDA: head_cuda.cuh) hold a wrapping narrow
 * result in a 32- or 64-bit unsigned value that the compiler cannot narrow
 * back into a 16-bit op or an abs; EM__N32 applies it to the 8- and 16-bit
 * types only (the int32 and int64 ops wrap natively). */
#ifndef EM_WRAP32
#define EM_WRAP32(x) (x)
#define EM_WRAP64(x) (x)
#endif
#define EM__N32(T, U, x) (sizeof(T) < 4 ? (em_u64)EM_WRAP32((em_u32)(x)) : (em_u64)(U)(x))
#define EM__IALL(S, T, U)                                                            \
    EM_FN T em_add_##S(T a, T b) { return (T)EM__N32(T, U, 0u + (U)a + (U)b); }      \
    EM_FN T em_subtract_##S(T a, T b) { return (T)EM__N32(T, U, 0u + (U)a - (U)b); } \
    EM_FN T em_multiply_##S(T a, T b) { return (T)EM__N32(T, U, 1u * (U)a * (U)b); } \
    EM_FN T em_square_##S(T a) { return (T)EM__N32(T, U, 1u * (U)a * (U)a); }        \
    EM_FN T em_negative_##S(T a) { return (T)EM__N32(T, U, 0u - (U)a); }             \
    EM_FN T em_conjugate_##S(T a) { return a; }                                      \
    EM_FN T em_real_##S(T a) { return a; }                                           \
    EM_FN T em_imag_##S(T a) { return 0; }                                           \
    EM_FN T em_floor_##S(T a) { return a; }                                          \
    EM_FN T em_ceil_##S(T a) { return a; }                                           \
    EM_FN T em_trunc_##S(T a) { return a; }                                          \
    EM_FN T em_maximum_##S(T a, T b) { return a > b ? a : b; }                       \
    EM_FN T em_minimum_##S(T a, T b) { return a < b ? a : b; }                       \
    EM_FN T em_fmax_##S(T a, T b) { return a > b ? a : b; }                          \
    EM_FN T em_fmin_##S(T a, T b) { return a < b ? a : b; }                          \
    EM_FN bool em_isnan_##S(T a) { return false; }                                   \
    EM_FN bool em_isinf_##S(T a) { return false; }                                   \
    EM_FN bool em_isfinite_##S(T a) { return true; }                                 \
    EM_FN T em_invert_##S(T a) { return (T)~a; }                                     \
    EM_FN T em_bitwise_and_##S(T a, T b) { return (T)(a & b); }                      \
    EM_FN T em_bitwise_or_##S(T a, T b) { return (T)(a | b); }                       \
    EM_FN T em_bitwise_xor_##S(T a, T b) { return (T)(a ^ b); }                      \
    /* Shifts by a negative count or >= the width give 0 (npy_lshift). */            \
    EM_FN T em_left_shift_##S(T a, T b) {                                            \
        return (T)((em_u64)b < sizeof(T) * 8 ? (U)((U)a << b) : 0);                  \
    }
EM__INTS(EM__IALL)

/* Python's floor division and modulo; b == 0 gives 0, b == -1 avoids the
 * MIN / -1 trap (the quotient wraps, the remainder is 0).  Without branches:
 * the special divisors select a safe one (1) and the result, and the sign
 * fix is a select.  With early returns, a fused chain of them
 * (x = abs(x) % 1000; x = x // 2 + 3 ...) made NVRTC's compile time explode
 * (25 int64 ops never finished). */
#define EM__SINT(S, T, U)                                                                          \
    EM_FN T em_floor_divide_##S(T a, T b) {                                                        \
        const bool z = b == 0, m1 = b == -1;                                                       \
        const T d = (T)(z || m1 ? 1 : b);                                                          \
        const T q = (T)(a / d), r = (T)(a % d);                                                    \
        const T f = (T)(q - ((r != 0) & ((r < 0) != (d < 0))));                                    \
        return (T)(z ? 0 : m1 ? (T)(0u - (U)a) : f); /* MIN // -1 wraps */                         \
    }                                                                                              \
    EM_FN T em_remainder_##S(T a, T b) {                                                           \
        const bool z = b == 0 || b == -1;                                                          \
        const T d = (T)(z ? 1 : b);                                                                \
        const T r = (T)(a % d);                                                                    \
        const T f = (T)((r != 0) & ((r < 0) != (d < 0)) ? r + d : r);                              \
        return (T)(z ? 0 : f);                                                                     \
    }                                                                                              \
    EM_FN T em_fmod_##S(T a, T b) {                                                                \
        const bool z = b == 0 || b == -1;                                                          \
        const T r = (T)(a % (T)(z ? 1 : b));                                                       \
        return (T)(z ? 0 : r);                                                                     \
    }                                                                                              \
    EM_FN T em_reciprocal_##S(T a) { return (T)(a == 0 ? 0 : 1 / a); }                             \
    EM_FN T em_power_##S(T a, T b) {                                                               \
        if (b < 0) return (T)(a == 1 ? 1 : a == -1 ? ((b & 1) ? -1 : 1) : 0);                      \
        U r = 1, x = (U)a;                                                                         \
        for (U e = (U)b; e; e >>= 1, x = (U)(x * x))                                               \
            if (e & 1) r = (U)(r * x);                                                             \
        return (T)r;                                                                               \
    }                                                                                              \
    EM_FN T em_right_shift_##S(T a, T b) {                                                         \
        return (T)((em_u64)b < sizeof(T) * 8 ? a >> b : (a < 0 ? -1 : 0));                         \
    }                                                                                              \
    /* int8-int32 through 64 bits: abs(MIN) wraps to MIN (EM_WRAP64 above). */                     \
    EM_FN T em_absolute_##S(T a) {                                                                 \
        return (T)(sizeof(T) < 8 ? EM_WRAP64(a < 0 ? 0ull - (em_u64)(em_i64)a : (em_u64)(em_i64)a) \
                                 : (em_u64)(U)(a < 0 ? 0u - (U)a : 0u + (U)a));                    \
    }                                                                                              \
    EM_FN T em_sign_##S(T a) { return (T)((a > 0) - (a < 0)); }                                    \
    EM_FN bool em_signbit_##S(T a) { return a < 0; }                                               \
    /* gcd by Euclid on magnitudes (|MIN| wraps, as in NumPy); lcm from it. */                     \
    EM_FN T em_gcd_##S(T a, T b) {                                                                 \
        U x = (U)(a < 0 ? 0 - (U)a : (U)a), y = (U)(b < 0 ? 0 - (U)b : (U)b);                      \
        while (y) {                                                                                \
            U t = (U)(x % y);                                                                      \
            x = y, y = t;                                                                          \
        }                                                                                          \
        return (T)x;                                                                               \
    }                                                                                              \
    EM_FN T em_lcm_##S(T a, T b) {                                                                 \
        T g = em_gcd_##S(a, b);                                                                    \
        U x = (U)(a < 0 ? 0 - (U)a : (U)a), y = (U)(b < 0 ? 0 - (U)b : (U)b);                      \
        return (T)(g ? (U)(x / (U)g * y) : 0);                                                     \
    }
#define EM__UINT(S, T, U)                                                                       \
    /* As the signed ones: a safe divisor, then a select (no branch). */                        \
    EM_FN T em_floor_divide_##S(T a, T b) { return (T)(b == 0 ? 0 : a / (T)(b == 0 ? 1 : b)); } \
    EM_FN T em_remainder_##S(T a, T b) { return (T)(b == 0 ? 0 : a % (T)(b == 0 ? 1 : b)); }    \
    EM_FN T em_fmod_##S(T a, T b) { return em_remainder_##S(a, b); }                            \
    EM_FN T em_reciprocal_##S(T a) { return (T)(a ? 1 / a : 0); }                               \
    EM_FN T em_power_##S(T a, T b) {                                                            \
        T r = 1;                                                                                \
        for (; b; b >>= 1, a = (T)(a * a))                                                      \
            if (b & 1) r = (T)(r * a);                                                          \
        return r;                                                                               \
    }                                                                                           \
    EM_FN T em_right_shift_##S(T a, T b) { return (T)(b < sizeof(T) * 8 ? a >> b : 0); }        \
    EM_FN T em_absolute_##S(T a) { return a; }                                                  \
    EM_FN T em_sign_##S(T a) { return (T)(a > 0); }                                             \
    EM_FN bool em_signbit_##S(T a) { return false; }                                            \
    EM_FN T em_gcd_##S(T a, T b) {                                                              \
        while (b) {                                                                             \
            T t = (T)(a % b);                                                                   \
            a = b, b = t;                                                                       \
        }                                                                                       \
        return a;                                                                               \
    }                                                                                           \
    EM_FN T em_lcm_##S(T a, T b) {                                                              \
        T g = em_gcd_##S(a, b);                                                                 \
        return (T)(g ? a / g * b : 0);                                                          \
    }
EM__SINTS(EM__SINT)
EM__UINTS(EM__UINT)

/* ---- floats ------------------------------------------------------------------ */
/* NumPy's npy_divmod: fmod, moved to the divisor's sign, quotient snapped
 * to an integer; b == 0 gives a / b and fmod's NaN.  Quiet comparisons, so
 * a NaN raises no FE_INVALID the CPU's error state would report. */
#define EM__FLT(S, T, M)                                                                          \
    EM_FN T em_add_##S(T a, T b) { return a + b; }                                                \
    EM_FN T em_subtract_##S(T a, T b) { return a - b; }                                           \
    EM_FN T em_multiply_##S(T a, T b) { return a * b; }                                           \
    EM_FN T em_square_##S(T a) { return a * a; }                                                  \
    EM_FN T em_divide_##S(T a, T b) { return a / b; }                                             \
    EM_FN T em_negative_##S(T a) { return -a; }                                                   \
    EM_FN T em_conjugate_##S(T a) { return a; }                                                   \
    EM_FN T em_real_##S(T a) { return a; }                                                        \
    EM_FN T em_imag_##S(T a) { return 0; }                                                        \
    EM_FN T em_reciprocal_##S(T a) { return 1 / a; }                                              \
    EM_FN T em_divmod_##S(T a, T b, T *mod) {                                                     \
        T m = fmod##M(a, b);                                                                      \
        if (b == 0) return *mod = m, a / b;                                                       \
        T div = (a - m) / b;                                                                      \
        if (m != 0) {                                                                             \
            if (EM_ISLESS(b, (T)0) != EM_ISLESS(m, (T)0)) m += b, div -= 1;                       \
        } else {                                                                                  \
            m = copysign##M((T)0, b);                                                             \
        }                                                                                         \
        *mod = m;                                                                                 \
        if (div == 0) return copysign##M((T)0, a / b);                                            \
        T fl = floor##M(div);                                                                     \
        return EM_ISGREATER(div - fl, (T)0.5) ? fl + 1 : fl;                                      \
    }                                                                                             \
    EM_FN T em_floor_divide_##S(T a, T b) {                                                       \
        T m;                                                                                      \
        return b != 0 ? em_divmod_##S(a, b, &m) : a / b;                                          \
    }                                                                                             \
    EM_FN T em_remainder_##S(T a, T b) {                                                          \
        T m;                                                                                      \
        if (b == 0) return fmod##M(a, b);                                                         \
        em_divmod_##S(a, b, &m);                                                                  \
        return m;                                                                                 \
    }                                                                                             \
    EM_FN T em_fmod_##S(T a, T b) { return fmod##M(a, b); }                                       \
    EM_FN T em_power_##S(T a, T b) { return pow##M(a, b); }                                       \
    EM_FN T em_absolute_##S(T a) { return fabs##M(a); }                                           \
    EM_FN T em_sign_##S(T a) { return a > 0 ? 1 : a < 0 ? -1 : a == 0 ? 0 : a; }                  \
    EM_FN T em_rint_##S(T a) { return rint##M(a); }                                               \
    EM_FN T em_floor_##S(T a) { return floor##M(a); }                                             \
    EM_FN T em_ceil_##S(T a) { return ceil##M(a); }                                               \
    EM_FN T em_trunc_##S(T a) { return trunc##M(a); }                                             \
    /* maximum/minimum propagate NaN; fmax/fmin ignore it (C's fmax/fmin). */                     \
    EM_FN T em_maximum_##S(T a, T b) { return a >= b || a != a ? a : b; }                         \
    EM_FN T em_minimum_##S(T a, T b) { return a <= b || a != a ? a : b; }                         \
    EM_FN T em_fmax_##S(T a, T b) { return fmax##M(a, b); }                                       \
    EM_FN T em_fmin_##S(T a, T b) { return fmin##M(a, b); }                                       \
    EM_FN bool em_isnan_##S(T a) { return a != a; }                                               \
    EM_FN bool em_isinf_##S(T a) { return isinf(a) != 0; }                                        \
    EM_FN bool em_isfinite_##S(T a) { return isfinite(a) != 0; }                                  \
    EM_FN bool em_signbit_##S(T a) { return signbit(a) != 0; }                                    \
    EM_FN T em_sqrt_##S(T a) { return sqrt##M(a); }                                               \
    EM_FN T em_exp_##S(T a) { return exp##M(a); }                                                 \
    EM_FN T em_exp2_##S(T a) { return exp2##M(a); }                                               \
    EM_FN T em_expm1_##S(T a) { return expm1##M(a); }                                             \
    EM_FN T em_log_##S(T a) { return log##M(a); }                                                 \
    EM_FN T em_log1p_##S(T a) { return log1p##M(a); }                                             \
    EM_FN T em_log2_##S(T a) { return log2##M(a); }                                               \
    EM_FN T em_log10_##S(T a) { return log10##M(a); }                                             \
    EM_FN T em_sin_##S(T a) { return sin##M(a); }                                                 \
    EM_FN T em_cos_##S(T a) { return cos##M(a); }                                                 \
    EM_FN T em_tan_##S(T a) { return tan##M(a); }                                                 \
    EM_FN T em_arcsin_##S(T a) { return asin##M(a); }                                             \
    EM_FN T em_arccos_##S(T a) { return acos##M(a); }                                             \
    EM_FN T em_arctan_##S(T a) { return atan##M(a); }                                             \
    EM_FN T em_sinh_##S(T a) { return sinh##M(a); }                                               \
    EM_FN T em_cosh_##S(T a) { return cosh##M(a); }                                               \
    EM_FN T em_tanh_##S(T a) { return tanh##M(a); }                                               \
    EM_FN T em_arcsinh_##S(T a) { return asinh##M(a); }                                           \
    EM_FN T em_arccosh_##S(T a) { return acosh##M(a); }                                           \
    EM_FN T em_arctanh_##S(T a) { return atanh##M(a); }                                           \
    EM_FN T em_cbrt_##S(T a) { return cbrt##M(a); }                                               \
    EM_FN T em_arctan2_##S(T a, T b) { return atan2##M(a, b); }                                   \
    EM_FN T em_hypot_##S(T a, T b) { return hypot##M(a, b); }                                     \
    EM_FN T em_copysign_##S(T a, T b) { return copysign##M(a, b); }                               \
    EM_FN T em_nextafter_##S(T a, T b) { return nextafter##M(a, b); }                             \
    EM_FN T em_deg2rad_##S(T a) { return a * (T)(3.141592653589793238462643383279502884 / 180); } \
    EM_FN T em_rad2deg_##S(T a) { return a * (T)(180 / 3.141592653589793238462643383279502884); } \
    EM_FN T em_heaviside_##S(T a, T b) { return a != a ? a : a == 0 ? b : a < 0 ? 0 : 1; }        \
    EM_FN T em_logaddexp_##S(T a, T b) {                                                          \
        if (a == b) return a + (T)0.693147180559945309417232121458176568;                         \
        T d = a - b;                                                                              \
        return d > 0 ? a + log1p##M(exp##M(-d)) : d <= 0 ? b + log1p##M(exp##M(d)) : d;           \
    }                                                                                             \
    EM_FN T em_logaddexp2_##S(T a, T b) {                                                         \
        const T log2e = (T)1.442695040888963407359924681001892137;                                \
        if (a == b) return a + 1;                                                                 \
        T d = a - b;                                                                              \
        return d > 0    ? a + log2e * log1p##M(exp2##M(-d))                                       \
               : d <= 0 ? b + log2e * log1p##M(exp2##M(d))                                        \
                        : d;                                                                      \
    }
EM__FLOATS(EM__FLT)

/* float16 steps in its own ulps, so nextafter has a float16 loop: move the
 * bit pattern one unit towards b. */
EM_FN em_f16 em_nextafter_f16(em_f16 a, em_f16 b) {
    em_f32 fa = em_h2f(a), fb = em_h2f(b);
    if (fa != fa || fb != fb) return em_f2h(fa + fb);
    if (fa == fb) return b;
    em_f16 r = a;
    if (fa == 0)
        r.x = (unsigned short)(fb > 0 ? 1 : 0x8001);
    else
        r.x = (unsigned short)((fa < fb) == (fa > 0) ? a.x + 1 : a.x - 1);
    return r;
}

#endif
