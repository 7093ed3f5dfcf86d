/* The scalar library, complex part: follows scalar.h (same head, same
 * rules; see there).  Complex values are struct { re, im }; the formulas
 * are NumPy's: plain products, Smith's division, lexicographic ordering
 * where a NaN anywhere makes a comparison false.  The transcendental
 * functions use libm's where the head defines EM_LIBM_COMPLEX (the CPU,
 * whose <complex.h> NumPy itself calls) and the formulas below elsewhere.
 */
/* clang-format 14 rewrites this file's macro bodies differently on each pass (it is not
 * idempotent there), so the file keeps its own layout. */
// clang-format off
#ifndef EM_CODEGEN_SCALAR_COMPLEX_H
#define EM_CODEGEN_SCALAR_COMPLEX_H

/* The product is NumPy's plain formula and the quotient Smith's (NumPy's
 * loops), in every dialect: C's Annex G operators recover infinities from
 * NaN parts ((inf + 0i) * (inf + inf i) = inf + inf i, 1 / (inf + inf i) = 0)
 * where NumPy gives NaN.  Each product goes through EM_OPAQUE (head_c.h: an
 * empty asm on the CPU, nothing on the devices) so that the CPU never fuses
 * it into the following sum, vectorised or not: fused == unfused. */
#define EM__CMUL(S, a, b) em_plain_multiply_##S(a, b)
#define EM__CDIV(S, a, b) em_smith_divide_##S(a, b)

#define EM__CPX(S, T, R, M)                                                                        \
    EM_FN T em_positive_##S(T a) { return a; }                                                     \
    EM_FN T em_conjugate_##S(T a) { return em_mk_##S(a.re, -a.im); }                               \
    EM_FN R em_real_##S(T a) { return a.re; }                                                      \
    EM_FN R em_imag_##S(T a) { return a.im; }                                                      \
    EM_FN R em_absolute_##S(T a) { return hypot##M(a.re, a.im); }                                  \
    EM_FN T em_add_##S(T a, T b) { return em_mk_##S(a.re + b.re, a.im + b.im); }                   \
    EM_FN T em_subtract_##S(T a, T b) { return em_mk_##S(a.re - b.re, a.im - b.im); }              \
    /* NumPy's SIMD loops (x86 with FMA, AArch64) form the product as fma(a.re, b.re, -ii) +  \
     * i fma(a.re, b.im, ir); the plain formula differs from it in the last bit where both are \
     * finite (within the ULP bounds) and in the special values where rr - ii overflows or is  \
     * inf - inf: (1e30 + inf i)^2 in float is -inf + inf i, not NaN + inf i.  So the fused     \
     * form is taken only for a result that is not finite, behind one test.  (NumPy's scalar  \
     * arithmetic and its loops on a CPU without FMA give NaN + inf i: both are "an infinity" \
     * for C99 G.5.1.) */                                                                      \
    EM_FN T em__cmul_nf_##S(T a, T b, R ii, R ir) {                                                \
        return em_mk_##S(fma##M(a.re, b.re, -ii), fma##M(a.re, b.im, ir));                         \
    }                                                                                              \
    EM_FN T em_plain_multiply_##S(T a, T b) {                                                      \
        R rr = a.re * b.re, ii = a.im * b.im, ri = a.re * b.im, ir = a.im * b.re;                  \
        EM_OPAQUE(rr); EM_OPAQUE(ii); EM_OPAQUE(ri); EM_OPAQUE(ir);                              \
        const R re = rr - ii, im = ri + ir;                                                        \
        if (!isfinite(re) || !isfinite(im)) return em__cmul_nf_##S(a, b, ii, ir);                 \
        return em_mk_##S(re, im);                                                                  \
    }                                                                                              \
    /* the plain formula alone: NumPy's power multiplies so (scalar C, npy_cpow), and gives   \
     * (1e30 + inf i) ** 2 = NaN + inf i */                                                      \
    EM_FN T em__cmul_##S(T a, T b) {                                                               \
        R rr = a.re * b.re, ii = a.im * b.im, ri = a.re * b.im, ir = a.im * b.re;                  \
        EM_OPAQUE(rr); EM_OPAQUE(ii); EM_OPAQUE(ri); EM_OPAQUE(ir);                              \
        return em_mk_##S(rr - ii, ri + ir);                                                        \
    }                                                                                              \
    EM_FN T em_multiply_##S(T a, T b) { return EM__CMUL(S, a, b); }                                \
    EM_FN T em_square_##S(T a) { return em_multiply_##S(a, a); }                                   \
    EM_FN T em_negative_##S(T a) { return em_mk_##S(-a.re, -a.im); }                               \
    /* Smith's division, as NumPy's loops; by zero: each part over |0|. */                         \
    EM_FN T em_smith_divide_##S(T a, T b) {                                                        \
        R abr = fabs##M(b.re), abi = fabs##M(b.im);                                                \
        if (abr >= abi) {                                                                          \
            if (abr == 0 && abi == 0) return em_mk_##S(a.re / abr, a.im / abr);                    \
            R rat = b.im / b.re, bir = b.im * rat, air = a.im * rat, arr = a.re * rat;             \
            EM_OPAQUE(bir); EM_OPAQUE(air); EM_OPAQUE(arr);                                      \
            R scl = (R)1 / (b.re + bir);                                                           \
            return em_mk_##S((a.re + air) * scl, (a.im - arr) * scl);                              \
        }                                                                                          \
        R rat = b.re / b.im, brr = b.re * rat, arr = a.re * rat, air = a.im * rat;                 \
        EM_OPAQUE(brr); EM_OPAQUE(arr); EM_OPAQUE(air);                                          \
        R scl = (R)1 / (b.im + brr);                                                               \
        return em_mk_##S((arr + a.im) * scl, (air - a.re) * scl);                                  \
    }                                                                                              \
    EM_FN T em_divide_##S(T a, T b) { return EM__CDIV(S, a, b); }                                  \
    /* NumPy's reciprocal: 1 / (inf + inf i) is NaN, 1 / 0 NaN + NaN i. */                        \
    EM_FN T em_reciprocal_##S(T a) {                                                               \
        if (fabs##M(a.im) <= fabs##M(a.re)) {                                                      \
            R r = a.im / a.re, air = a.im * r;                                                     \
            EM_OPAQUE(air);                                                                        \
            R d = a.re + air;                                                                      \
            return em_mk_##S(1 / d, -r / d);                                                       \
        }                                                                                          \
        R r = a.re / a.im, arr = a.re * r;                                                         \
        EM_OPAQUE(arr);                                                                            \
        R d = arr + a.im;                                                                          \
        return em_mk_##S(r / d, -1 / d);                                                           \
    }                                                                                              \
    EM_FN bool em_equal_##S(T a, T b) { return a.re == b.re && a.im == b.im; }                     \
    EM_FN bool em_not_equal_##S(T a, T b) { return !(a.re == b.re && a.im == b.im); }              \
    EM_FN bool em_less_##S(T a, T b) {                                                             \
        return (a.re < b.re && a.im == a.im && b.im == b.im) || (a.re == b.re && a.im < b.im);     \
    }                                                                                              \
    EM_FN bool em_less_equal_##S(T a, T b) {                                                       \
        return (a.re < b.re && a.im == a.im && b.im == b.im) || (a.re == b.re && a.im <= b.im);    \
    }                                                                                              \
    EM_FN bool em_greater_##S(T a, T b) { return em_less_##S(b, a); }                              \
    EM_FN bool em_greater_equal_##S(T a, T b) { return em_less_equal_##S(b, a); }                  \
    EM_FN bool em_isnan_##S(T a) { return a.re != a.re || a.im != a.im; }                          \
    EM_FN bool em_isinf_##S(T a) { return isinf(a.re) || isinf(a.im); }                            \
    EM_FN bool em_isfinite_##S(T a) { return isfinite(a.re) && isfinite(a.im); }                   \
    /* maximum/minimum propagate a NaN operand, fmax/fmin prefer the other. */                     \
    EM_FN T em_maximum_##S(T a, T b) {                                                             \
        return em_isnan_##S(a) || em_less_equal_##S(b, a) ? a : b;                                 \
    }                                                                                              \
    EM_FN T em_minimum_##S(T a, T b) {                                                             \
        return em_isnan_##S(a) || em_less_equal_##S(a, b) ? a : b;                                 \
    }                                                                                              \
    EM_FN T em_fmax_##S(T a, T b) { return em_isnan_##S(b) || em_less_equal_##S(b, a) ? a : b; }   \
    EM_FN T em_fmin_##S(T a, T b) { return em_isnan_##S(b) || em_less_equal_##S(a, b) ? a : b; }   \
    EM_FN T em_rint_##S(T a) { return em_mk_##S(rint##M(a.re), rint##M(a.im)); }                   \
    /* NumPy's own loop (not C99's: it has no csign): z / |z|; where |z| is not finite, an  \
     * infinite part whose partner is finite or NaN gives +-1 along it (sign(inf + NaN i) is  \
     * 1, sign(NaN - inf i) -i), two infinities or a NaN alone NaN + NaN i, and finite parts \
     * whose modulus overflows NumPy's 0 +- i (sign(1.7e308 + 1e308i) is 1j, not 0.86 +      \
     * 0.51i: NumPy's value, the same on every platform, so followed). */                    \
    EM_FN T em__sign_nf_##S(T a) {                                                                 \
        if (isinf(a.re)) {                                                                         \
            if (isinf(a.im)) return em_mk_##S((R)EM_NAN, (R)EM_NAN);                             \
            return em_mk_##S(a.re > 0 ? 1 : -1, 0);                                                \
        }                                                                                          \
        if (isnan(a.re) || isnan(a.im)) {                                                          \
            if (isinf(a.im)) return em_mk_##S(0, a.im > 0 ? 1 : -1);                               \
            return em_mk_##S((R)EM_NAN, (R)EM_NAN);                                               \
        }                                                                                          \
        return em_mk_##S(0, a.im > 0 ? 1 : -1);                                                    \
    }                                                                                              \
    EM_FN T em_sign_##S(T a) {                                                                     \
        const R h = hypot##M(a.re, a.im);                                                          \
        if (!isfinite(h)) return em__sign_nf_##S(a);                                               \
        if (h == 0) return em_mk_##S(0, 0);                                                        \
        return em_mk_##S(a.re / h, a.im / h);                                                      \
    }
EM__CPLXS(EM__CPX)

#ifdef EM_LIBM_COMPLEX
/* The head's em_z_<S> / em_c_<S> convert to and from C's complex type. */
#define EM__CLIB(S, T, M, op, cfn)                                                                 \
    EM_FN T em_##op##_##S(T a) { return em_c_##S(c##cfn##M(em_z_##S(a))); }
#define EM__CMATH(S, T, R, M)                                                                      \
    EM__CLIB(S, T, M, sqrt, sqrt) EM__CLIB(S, T, M, exp, exp) EM__CLIB(S, T, M, log, log)          \
    EM__CLIB(S, T, M, sin, sin) EM__CLIB(S, T, M, cos, cos) EM__CLIB(S, T, M, tan, tan)            \
    EM__CLIB(S, T, M, arcsin, asin) EM__CLIB(S, T, M, arccos, acos)                                \
    EM__CLIB(S, T, M, arctan, atan) EM__CLIB(S, T, M, sinh, sinh) EM__CLIB(S, T, M, cosh, cosh)    \
    EM__CLIB(S, T, M, tanh, tanh) EM__CLIB(S, T, M, arcsinh, asinh)                                \
    EM__CLIB(S, T, M, arccosh, acosh) EM__CLIB(S, T, M, arctanh, atanh)                            \
    EM_FN T em_cpow_##S(T a, T b) { return em_c_##S(cpow##M(em_z_##S(a), em_z_##S(b))); }
#else
/* Formulas on the components (the devices have no complex libm), with glibc's and C99
 * Annex G's care where the textbook ones overflow in an intermediate that the result does
 * not need: exp(x) or cosh(x) past the largest finite value times a zero sin(0) or a
 * cos(y) < 1 made NaN or inf of finite results (exp(800 + 0i) is inf + 0i, exp(720 + 1.5i)
 * finite in float64), and tanh = sinh / cosh gave inf / inf for |re| > 89 (float) or 710
 * where the result is +-1.  EM__CBIG is where exp(|x|) may overflow: past it the
 * exponential is formed as h * (h * c) with h = exp(|x| / 2).  tanh is Kahan's formula
 * (FreeBSD's ctanh), tan(z) = -i tanh(iz), sin(z) = -i sinh(iz), cos(z) = cosh(iz).  The
 * zero real or imaginary parts give the real function exactly (and C99's NaN + 0i for
 * NaN + 0i, as NumPy).
 * Infinite and NaN parts: C99 Annex G's tables (G.6.2, G.6.3), with glibc's choice where
 * C99 leaves a sign unspecified ("+-inf + iNaN"): glibc is the libm NumPy calls on Linux,
 * and Ember's CPU.  The finite path pays one test for them (EM__CNF, or a test on a value
 * it computes anyway such as |z|); the em__*_nf handlers run only for non-finite parts, and
 * for finite ones whose modulus overflows (sqrt and log of 1e308 + 1.7e308i: |z| / 2). */
#define EM__CBIG(R) ((R)(sizeof(R) == 4 ? 88.0f : 709.0))
#define EM__CNF(a) (!isfinite((a).re) || !isfinite((a).im))
#define EM__CLN2 0.693147180559945309417232121458176568
#define EM__CMATH(S, T, R, M)                                                                      \
    EM_FN T em_exp_##S(T a) {                                                                      \
        if (a.im == 0) return em_mk_##S(exp##M(a.re), a.im);                                       \
        /* G.6.3.1: exp(+inf + i(inf or NaN)) is inf + iNaN, exp(-inf + i(inf or NaN)) 0 + 0i      \
         * (the sign of the imaginary zero glibc's: im's); cos(inf) made both NaN */               \
        if (!isfinite(a.im)) {                                                                     \
            if (!isinf(a.re)) return em_mk_##S((R)EM_NAN, (R)EM_NAN);                              \
            return a.re > 0 ? em_mk_##S(a.re, a.im - a.im) : em_mk_##S(0, copysign##M((R)0, a.im)); \
        }                                                                                          \
        const R c = cos##M(a.im), s = sin##M(a.im);                                                \
        if (a.re > EM__CBIG(R)) {                                                                  \
            const R h = exp##M(a.re / 2);                                                          \
            return em_mk_##S(h * (h * c), h * (h * s));                                            \
        }                                                                                          \
        const R e = exp##M(a.re);                                                                  \
        return em_mk_##S(e * c, e * s);                                                            \
    }                                                                                              \
    /* sinh and cosh: e^|x| / 2 as h * (h / 2) past EM__CBIG; a zero imaginary part gives          \
     * the real function and a signed zero (not inf * 0).  A zero real part keeps glibc's          \
     * sign, sinh(0) cos(y) (sinh(1e30i) is -0 + 0.0093i); +-0 + iNaN for a non-finite y           \
     * (G.6.2.5).  An infinite x with a non-finite y: +inf + iNaN, as glibc (G.6.2.4-5). */        \
    EM_FN T em_sinh_##S(T a) {                                                                     \
        if (a.im == 0) return em_mk_##S(sinh##M(a.re), a.im);                                      \
        if (a.re == 0) {                                                                           \
            const R c = cos##M(a.im);                                                              \
            return em_mk_##S(c == c ? a.re * c : a.re, sin##M(a.im));                              \
        }                                                                                          \
        const R c = cos##M(a.im), s = sin##M(a.im), x = fabs##M(a.re);                             \
        if (x > EM__CBIG(R)) {                                                                     \
            if (!isfinite(a.im)) return em_mk_##S(isinf(x) ? x : a.im - a.im, a.im - a.im);        \
            const R h = exp##M(x / 2), hc = h * ((R)0.5 * h * c);                                  \
            return em_mk_##S(signbit(a.re) ? -hc : hc, h * ((R)0.5 * h * s));                      \
        }                                                                                          \
        return em_mk_##S(sinh##M(a.re) * c, cosh##M(a.re) * s);                                    \
    }                                                                                              \
    /* cosh(NaN +- 0i) is NaN +- 0i (the NaN's sign bit is no sign: cos(NaN i) = cosh(-NaN)        \
     * is NaN + 0i, as glibc); cosh(+-0 + i(inf or NaN)) NaN + 0i (G.6.2.4) */                     \
    EM_FN T em_cosh_##S(T a) {                                                                     \
        if (a.im == 0)                                                                             \
            return em_mk_##S(cosh##M(a.re), isnan(a.re) || !signbit(a.re) ? a.im : -a.im);         \
        if (a.re == 0) {                                                                           \
            const R s = sin##M(a.im);                                                              \
            return em_mk_##S(cos##M(a.im), s == s ? a.re * s : 0);                                 \
        }                                                                                          \
        const R c = cos##M(a.im), s = sin##M(a.im), x = fabs##M(a.re);                             \
        if (x > EM__CBIG(R)) {                                                                     \
            if (!isfinite(a.im)) return em_mk_##S(isinf(x) ? x : a.im - a.im, a.im - a.im);        \
            const R h = exp##M(x / 2), hs = h * ((R)0.5 * h * s);                                  \
            return em_mk_##S(h * ((R)0.5 * h * c), signbit(a.re) ? -hs : hs);                      \
        }                                                                                          \
        return em_mk_##S(cosh##M(a.re) * c, sinh##M(a.re) * s);                                    \
    }                                                                                              \
    /* glibc's csin (G.6.2.5 through sin(z) = -i sinh(iz), with its signs: sin(+-inf +             \
     * i inf) is NaN + i inf, where -i sinh(iz) gave NaN - i inf) */                               \
    EM_FN T em__sin_nf_##S(T a) {                                                                  \
        if (isfinite(a.im)) /* an infinite or NaN real part */                                     \
            return a.im == 0 ? em_mk_##S(a.re - a.re, a.im) : em_mk_##S((R)EM_NAN, (R)EM_NAN);     \
        if (isnan(a.im)) return em_mk_##S(a.re == 0 ? a.re : (R)EM_NAN, a.im);                     \
        if (a.re == 0) return a;                                                                   \
        if (!isfinite(a.re)) return em_mk_##S(a.re - a.re, fabs##M(a.im));                         \
        return em_mk_##S(copysign##M(a.im, sin##M(a.re)), copysign##M(a.im, cos##M(a.re) * a.im)); \
    }                                                                                              \
    EM_FN T em_sin_##S(T a) {                                                                      \
        if (EM__CNF(a)) return em__sin_nf_##S(a);                                                  \
        const T r = em_sinh_##S(em_mk_##S(-a.im, a.re));                                           \
        return em_mk_##S(r.im, -r.re);                                                             \
    }                                                                                              \
    EM_FN T em_cos_##S(T a) { return em_cosh_##S(em_mk_##S(-a.im, a.re)); }                        \
    /* glibc's ctanh and ctan (G.6.2.6): tanh(+-inf + iy) is +-1 + i0 with the sign of             \
     * sin(2y) for a finite |y| > 1, of y otherwise; tanh(NaN + 0i) NaN + 0i, tanh(0 + i(inf       \
     * or NaN)) 0 + iNaN, NaN + iNaN otherwise */                                                  \
    EM_FN T em__tanh_nf_##S(T a) {                                                                 \
        if (isinf(a.re)) {                                                                         \
            const R y = isfinite(a.im) && fabs##M(a.im) > 1 ? sin##M(a.im) * cos##M(a.im) : a.im;  \
            return em_mk_##S(copysign##M((R)1, a.re), copysign##M((R)0, y));                       \
        }                                                                                          \
        if (a.im == 0) return a;                                                                   \
        return em_mk_##S(a.re == 0 ? a.re : (R)EM_NAN, (R)EM_NAN);                                 \
    }                                                                                              \
    EM_FN T em__tan_nf_##S(T a) {                                                                  \
        if (isinf(a.im)) {                                                                         \
            const R x = isfinite(a.re) && fabs##M(a.re) > 1 ? sin##M(a.re) * cos##M(a.re) : a.re;  \
            return em_mk_##S(copysign##M((R)0, x), copysign##M((R)1, a.im));                       \
        }                                                                                          \
        if (a.re == 0) return a;                                                                   \
        return em_mk_##S((R)EM_NAN, a.im == 0 ? a.im : (R)EM_NAN);                                 \
    }                                                                                              \
    /* Kahan: with t = tan(y), b = 1 + t^2, s = sinh(x), r = sqrt(1 + s^2) (= cosh x),             \
     * tanh(x + iy) = (b r s + i t) / (1 + b s^2); past |x| = 9 (float) or 22 the real part        \
     * is +-1 to the last bit and the imaginary part 4 sin(y) cos(y) e^(-2|x|). */                 \
    EM_FN T em_tanh_##S(T a) {                                                                     \
        if (EM__CNF(a)) return em__tanh_nf_##S(a);                                                 \
        const R x = a.re, y = a.im;                                                                \
        if (y == 0) return em_mk_##S(tanh##M(x), y);                                               \
        if (x == 0) return em_mk_##S(x, tan##M(y));                                                \
        if (fabs##M(x) >= (R)(sizeof(R) == 4 ? 9.0f : 22.0)) {                                     \
            const R e = exp##M(-fabs##M(x));                                                       \
            return em_mk_##S(signbit(x) ? -1 : 1, 4 * sin##M(y) * cos##M(y) * e * e);              \
        }                                                                                          \
        const R t = tan##M(y), b = 1 + t * t, s = sinh##M(x), r = sqrt##M(1 + s * s);              \
        const R d = 1 + b * s * s;                                                                 \
        return em_mk_##S(b * r * s / d, t / d);                                                    \
    }                                                                                              \
    EM_FN T em_tan_##S(T a) {                                                                      \
        if (EM__CNF(a)) return em__tan_nf_##S(a);                                                  \
        const T r = em_tanh_##S(em_mk_##S(-a.im, a.re));                                           \
        return em_mk_##S(r.im, -r.re);                                                             \
    }                                                                                              \
    /* |z| past the largest finite value (1e308 + 1.7e308i) is 2 |z / 2| */                        \
    EM_FN T em_log_##S(T a) {                                                                      \
        const R h = hypot##M(a.re, a.im);                                                          \
        if (isinf(h))                                                                              \
            return em_mk_##S(log##M(hypot##M(a.re / 2, a.im / 2)) + (R)EM__CLN2,                   \
                             atan2##M(a.im, a.re));                                                \
        return em_mk_##S(log##M(h), atan2##M(a.im, a.re));                                         \
    }                                                                                              \
    /* h = |z| (finite).  The sign bits: sqrt(-4 - 0i) is -2i, as C99 and NumPy (not +2i),         \
     * sqrt(-4 + -0i)'s real part +0 (fabs, not -im). */                                           \
    EM_FN T em__sqrt_fin_##S(R re, R im, R h) {                                                    \
        const R t = sqrt##M(fabs##M(re) / 2 + h / 2);                                              \
        if (re >= 0) return em_mk_##S(t, im / (2 * t));                                            \
        return em_mk_##S(fabs##M(im) / (2 * t), signbit(im) ? -t : t);                             \
    }                                                                                              \
    /* G.6.4.2: sqrt(x + i inf) is inf + i inf for any x, NaN included; sqrt(-inf + iy)            \
     * 0 + i inf (NaN + i inf for a NaN y), sqrt(inf + iy) inf + 0i (inf + iNaN); finite parts     \
     * whose modulus overflows: 2 sqrt(z / 4) */                                                   \
    EM_FN T em__sqrt_nf_##S(T a) {                                                                 \
        if (isinf(a.im)) return em_mk_##S(fabs##M(a.im), a.im);                                    \
        if (isinf(a.re)) {                                                                         \
            if (a.re < 0) return em_mk_##S(isnan(a.im) ? a.im : 0, copysign##M(a.re, a.im));       \
            return em_mk_##S(a.re, isnan(a.im) ? a.im : copysign##M((R)0, a.im));                  \
        }                                                                                          \
        if (isnan(a.re) || isnan(a.im)) return em_mk_##S((R)EM_NAN, (R)EM_NAN);                    \
        const R x = a.re / 4, y = a.im / 4;                                                        \
        const T r = em__sqrt_fin_##S(x, y, hypot##M(x, y));                                        \
        return em_mk_##S(2 * r.re, 2 * r.im);                                                      \
    }                                                                                              \
    EM_FN T em_sqrt_##S(T a) {                                                                     \
        if (a.re == 0 && a.im == 0) return em_mk_##S(0, a.im);                                     \
        const R h = hypot##M(a.re, a.im);                                                          \
        if (!isfinite(h)) return em__sqrt_nf_##S(a);                                               \
        return em__sqrt_fin_##S(a.re, a.im, h);                                                    \
    }                                                                                              \
    /* asinh is odd: it is computed for w = +-a with re(w) >= 0 (the sign bit, for the     \
     * branch cut's signed zeros), where w + sqrt(w*w + 1) cancels in neither part, as       \
     * log1p(u), u = w + w*w / (sqrt(w*w + 1) + 1) (so small |w| keeps its relative          \
     * accuracy); beyond 2^12 (float) or 2^26 (double) it is log(2w).  The textbook          \
     * log(a + sqrt(a*a + 1)) lost every digit for re(a) < 0 (8.7e15 ulp against libm). */  \
    EM_FN T em_arcsinh_##S(T a) {                                                                  \
        const bool neg = signbit(a.re) != 0;                                                       \
        const T w = neg ? em_mk_##S(-a.re, -a.im) : a;                                            \
        const R big = (R)(sizeof(R) == 4 ? 4096.0f : 67108864.0f);                                 \
        T r;                                                                                       \
        /* the axes exactly, with their signed zeros: asinh(x +- 0i) is asinh(x) +- 0i (C99   \
         * G.6.2.2: asinh(NaN + i0) NaN + i0, where log(NaN + i0) below was NaN + iNaN, and  \
         * the sum below lost -0), asinh(iy) i asin(y) for |y| <= 1 (asin(0.5 - 0i) was      \
         * 0.52 - 1e-17i) */                                                                      \
        if (a.im == 0) return em_mk_##S(asinh##M(a.re), a.im);                                     \
        if (a.re == 0 && fabs##M(a.im) <= 1) return em_mk_##S(a.re, asin##M(a.im));                \
        if (!(hypot##M(w.re, w.im) <= big)) { /* large, inf or nan */                              \
            r = em_log_##S(w);                                                                     \
            r.re += (R)0.693147180559945309417232121458176568;                                     \
        } else {                                                                                   \
            /* + 1 to the real parts only: the zero imaginary part keeps its sign */              \
            const T ww = em_multiply_##S(w, w), sq = em_sqrt_##S(em_mk_##S(ww.re + 1, ww.im));     \
            const T u = em_add_##S(w, em_smith_divide_##S(ww, em_mk_##S(sq.re + 1, sq.im)));       \
            r = em_mk_##S(log1p##M(u.re * (2 + u.re) + u.im * u.im) / 2,                           \
                          atan2##M(u.im, 1 + u.re));                                               \
        }                                                                                          \
        return neg ? em_mk_##S(-r.re, -r.im) : r;                                                  \
    }                                                                                              \
    EM_FN T em_arccosh_##S(T a) {                                                                  \
        /* C99 G.6.2.1: an infinite part gives +inf + i(0, pi/4, pi/2, 3pi/4 or pi), the sign  \
         * of a.im's (the product below made inf * 0 and inf - inf NaN) */                     \
        if (EM__CNF(a) && (isinf(a.re) || isinf(a.im))) {                                          \
            const R q = (R)0.785398163397448309615660845819875721;                                 \
            R im = isnan(a.re) || isnan(a.im) ? a.re + a.im                                        \
                   : isinf(a.im)              ? (isinf(a.re) ? (a.re > 0 ? q : 3 * q) : 2 * q)     \
                                              : (a.re > 0 ? 0 : 4 * q);                            \
            R inf = isinf(a.re) ? fabs##M(a.re) : fabs##M(a.im);                                 \
            return em_mk_##S(inf, isnan(im) ? im : copysign##M(im, a.im));                         \
        }                                                                                          \
        /* G.6.2.1: acosh(+-0 + iNaN) is NaN + i pi/2 */                                          \
        if (EM__CNF(a) && a.re == 0) return em_mk_##S(a.im, (R)1.57079632679489661923132169163975); \
        /* Kahan's form: no cancellation near z = 1, where log(z + sqrt(z+1) sqrt(z-1))      \
         * lost every digit (arccosh(1 + 1e-20j) was 0 + 1e-10j in float) */                   \
        const T p = em_sqrt_##S(em_mk_##S(a.re + 1, a.im)), q = em_sqrt_##S(em_mk_##S(a.re - 1, a.im)); \
        const R re = asinh##M(q.re * p.re + q.im * p.im);                                         \
        if (isinf(re) && !EM__CNF(a)) { /* the product overflowed: log(2z), exact this far out */ \
            const T l = em_log_##S(a);                                                             \
            return em_mk_##S(l.re + (R)EM__CLN2, l.im);                                            \
        }                                                                                          \
        return em_mk_##S(re, 2 * atan2##M(q.im, p.re));                                            \
    }                                                                                              \
    EM_FN T em_arctanh_##S(T a) {                                                                  \
        /* C99 G.6.2.3: an infinite part gives +-0 + i pi/2 (log's inf - inf made the real NaN) */ \
        if (EM__CNF(a)) {                                                                          \
            if (isinf(a.re) || isinf(a.im))                                                        \
                return em_mk_##S(copysign##M((R)0, a.re),                                          \
                                 isnan(a.im) ? a.im                                                \
                                     : copysign##M((R)1.57079632679489661923132169163975, a.im));  \
            /* a NaN and no infinity: +-0 + iNaN for a zero real part, else NaN + iNaN (the    \
             * 1/z branch below gave NaN + i pi/2 for NaN + 1e30i in float) */                  \
            return em_mk_##S(a.re == 0 ? a.re : (R)EM_NAN, (R)EM_NAN);                             \
        }                                                                                          \
        /* atanh(iy) = i atan(y) (C99: +-0 + i NaN stays so); arctanh is odd, so it is computed \
         * for re >= 0, where re = log1p(4x / ((1-x)^2 + y^2)) / 4 keeps tiny arguments (the     \
         * difference of two logs gave arctan(1e-30j) = 0); past 2^60 or 2^500 it is 1/z's.   */   \
        if (a.re == 0) return em_mk_##S(a.re, atan##M(a.im));                                     \
        const bool neg = signbit(a.re) != 0;                                                       \
        const R x = neg ? -a.re : a.re, y = neg ? -a.im : a.im;                                    \
        const R big = (R)(sizeof(R) == 4 ? 1.152921504606846976e18f : 3.273390607896142e150);      \
        R re, im;                                                                                  \
        if (x > big || fabs##M(y) > big) {                                                         \
            const R h = hypot##M(x, y);                                                            \
            re = x / h / h;                                                                        \
            im = copysign##M((R)1.57079632679489661923132169163975, y);                            \
        } else {                                                                                   \
            /* 4x / h^2 with h = |1 - z| in two divisions: h^2 underflows in float near z = 1 */ \
            const R h = hypot##M(1 - x, y), t = 4 * x / h, r = t / h;                              \
            re = isinf(r) ? (log##M(t) - log##M(h)) / 4 : log1p##M(r) / 4; \
            im = atan2##M(2 * y, (1 - x) * (1 + x) - y * y) / 2;                                   \
        }                                                                                          \
        return neg ? em_mk_##S(-re, -im) : em_mk_##S(re, im);                                      \
    }                                                                                              \
    /* -x with the sign bit flipped for a NaN too: PTX's neg gives an unsigned NaN, and asin   \
     * and atan of inf + iNaN take their result's signs from the rotated NaN's, as glibc's */    \
    EM_FN R em__negs_##S(R x) { return copysign##M(x, signbit(x) ? (R)1 : (R)-1); }             \
    EM_FN T em_arcsin_##S(T a) {                                                                   \
        T r = em_arcsinh_##S(em_mk_##S(em__negs_##S(a.im), a.re));                                 \
        return em_mk_##S(r.im, -r.re);                                                             \
    }                                                                                              \
    EM_FN T em_arccos_##S(T a) {                                                                   \
        const R big = (R)(sizeof(R) == 4 ? 4096.0f : 67108864.0f);                                 \
        const R h = hypot##M(a.re, a.im);                                                          \
        if (isinf(h) || isnan(h)) { /* C99's special values, as pi/2 - arcsin gives them */      \
            T s = em_arcsin_##S(a);                                                                \
            return em_mk_##S((R)1.57079632679489661923132169163975144 - s.re, -s.im);              \
        }                                                                                          \
        if (h > big) /* arg(z) - i log(2|z|), conjugated below the cut; pi/2 - arcsin cancelled */ \
            return em_mk_##S(atan2##M(fabs##M(a.im), a.re),                                        \
                             copysign##M(log##M(h) + (R)0.693147180559945309417232121458176568,   \
                                         -a.im));                                                  \
        /* Kahan's form: pi/2 - arcsin(z) cancelled near z = 1 (arccos(1 + 1e-20j) was 0) */     \
        const T p = em_sqrt_##S(em_mk_##S(1 + a.re, a.im)), q = em_sqrt_##S(em_mk_##S(1 - a.re, -a.im)); \
        return em_mk_##S(2 * atan2##M(q.re, p.re), asinh##M(p.re * q.im - p.im * q.re));          \
    }                                                                                              \
    EM_FN T em_arctan_##S(T a) {                                                                   \
        T r = em_arctanh_##S(em_mk_##S(em__negs_##S(a.im), a.re));                                 \
        return em_mk_##S(r.im, -r.re);                                                             \
    }                                                                                              \
    /* glibc's cpow is cexp(b * clog(a)) with C's product, whose Annex G recovery (G.5.1's   \
     * _Cmultf, GCC's __mulsc3) turns NaN + iNaN from an infinite operand back into an        \
     * infinity: (0.5 + 0i) * (inf + iNaN) is inf + iNaN, so (inf + iNaN) ** 0.5 inf + iNaN */  \
    EM_FN T em__cmul_annexg_##S(T z, T w) {                                                        \
        R a = z.re, b = z.im, c = w.re, d = w.im;                                                  \
        const T p = em__cmul_##S(z, w);                                                            \
        if (!isnan(p.re) || !isnan(p.im)) return p;                                                \
        bool again = false;                                                                        \
        if (isinf(a) || isinf(b)) {                                                                \
            a = copysign##M(isinf(a) ? (R)1 : (R)0, a), b = copysign##M(isinf(b) ? (R)1 : (R)0, b); \
            if (isnan(c)) c = copysign##M((R)0, c);                                                \
            if (isnan(d)) d = copysign##M((R)0, d);                                                \
            again = true;                                                                          \
        }                                                                                          \
        if (isinf(c) || isinf(d)) {                                                                \
            c = copysign##M(isinf(c) ? (R)1 : (R)0, c), d = copysign##M(isinf(d) ? (R)1 : (R)0, d); \
            if (isnan(a)) a = copysign##M((R)0, a);                                                \
            if (isnan(b)) b = copysign##M((R)0, b);                                                \
            again = true;                                                                          \
        }                                                                                          \
        if (!again && (isinf(z.re * w.re) || isinf(z.im * w.im) || isinf(z.re * w.im) ||           \
                       isinf(z.im * w.re))) {                                                      \
            if (isnan(a)) a = copysign##M((R)0, a);                                                \
            if (isnan(b)) b = copysign##M((R)0, b);                                                \
            if (isnan(c)) c = copysign##M((R)0, c);                                                \
            if (isnan(d)) d = copysign##M((R)0, d);                                                \
            again = true;                                                                          \
        }                                                                                          \
        if (!again) return p;                                                                      \
        const R inf = -log##M((R)0); /* no INFINITY macro in every dialect's head */              \
        return em_mk_##S(inf * (a * c - b * d), inf * (a * d + b * c));                            \
    }                                                                                              \
    EM_FN T em_cpow_##S(T a, T b) {                                                                \
        return em_exp_##S(em__cmul_annexg_##S(b, em_log_##S(a)));                                  \
    }
#endif
EM__CPLXS(EM__CMATH)

/* NumPy's complex exp2/log2/log10/expm1/log1p, and powers: exact repeated
 * multiplication for small integer exponents (as NumPy does), the general
 * power otherwise.  The first product is a itself, not 1 * a: 1 * inf
 * would give NaN parts.  log2 and log10 multiply by log2(e) and log10(e), as
 * NumPy's nc_log2/nc_log10 do: dividing by ln 2 differs in the last bit for
 * half the inputs, and exp2(log2(-inf)) then flips the sign of an infinite
 * part (sin of pi one ulp above or below it). */
#define EM__CMORE(S, T, R, M)                                                                      \
    EM_FN T em_exp2_##S(T a) {                                                                     \
        const R ln2 = (R)0.693147180559945309417232121458176568;                                   \
        return em_exp_##S(em_mk_##S(a.re * ln2, a.im * ln2));                                      \
    }                                                                                              \
    EM_FN T em_log2_##S(T a) {                                                                     \
        T l = em_log_##S(a);                                                                       \
        const R log2e = (R)1.442695040888963407359924681001892137;                                 \
        return em_mk_##S(l.re * log2e, l.im * log2e);                                              \
    }                                                                                              \
    EM_FN T em_log10_##S(T a) {                                                                    \
        T l = em_log_##S(a);                                                                       \
        const R log10e = (R)0.434294481903251827651128918916605082;                                \
        return em_mk_##S(l.re * log10e, l.im * log10e);                                            \
    }                                                                                              \
    EM_FN T em_expm1_##S(T a) {                                                                    \
        R s = sin##M(a.im / 2);                                                                    \
        return em_mk_##S(expm1##M(a.re) * cos##M(a.im) - 2 * s * s, exp##M(a.re) * sin##M(a.im));  \
    }                                                                                              \
    EM_FN T em_log1p_##S(T a) {                                                                    \
        R re = a.re + 1;                                                                           \
        return em_mk_##S(log##M(hypot##M(re, a.im)), atan2##M(a.im, re));                          \
    }                                                                                              \
    /* NumPy's npy_cpow: b == 0 gives 1, a == 0 gives 0 for re(b) > 0 and    \
     * NaN otherwise; integer exponents below 100 by plain multiplication    \
     * (1, 2, 3 unrolled, the rest from 1 by squaring), negative ones        \
     * divided into 1, so the special values come out as NumPy's. */         \
    EM_FN T em_power_##S(T a, T b) {                                                               \
        R br = b.re, bi = b.im;                                                                    \
        if (br == 0 && bi == 0) return em_mk_##S(1, 0);                                            \
        if (a.re == 0 && a.im == 0)                                                                \
            return br > 0 ? em_mk_##S(0, 0) : em_mk_##S((R)EM_NAN, (R)EM_NAN);                     \
        if (bi == 0 && br == floor##M(br) && fabs##M(br) < 100) {                                  \
            em_i64 n = (em_i64)br;                                                                 \
            if (n == 1) return a;                                                                  \
            if (n == 2) return em__cmul_##S(a, a);                                              \
            if (n == 3) return em__cmul_##S(a, em__cmul_##S(a, a));                          \
            T aa = em_mk_##S(1, 0), p = a;                                                         \
            em_i64 m = n < 0 ? -n : n;                                                             \
            for (em_i64 mask = 1;; mask <<= 1, p = em__cmul_##S(p, p)) {                        \
                if (m & mask) aa = em__cmul_##S(aa, p);                                         \
                if (m < (mask << 1)) break;                                                        \
            }                                                                                      \
            return n < 0 ? em_smith_divide_##S(em_mk_##S(1, 0), aa) : aa;                          \
        }                                                                                          \
        return em_cpow_##S(a, b);                                                                  \
    }
EM__CPLXS(EM__CMORE)

#endif
// clang-format on
