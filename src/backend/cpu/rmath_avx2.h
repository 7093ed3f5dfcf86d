/* log and sincos of 4 doubles with AVX2 and FMA, for the CPU's random draws.
 *
 * Why: Box-Muller through glibc's scalar log and sincos was most of a normal
 * draw's time (and of a gamma's or beta's first try), where NumPy's ziggurat
 * needs neither; four lanes at once of the same fdlibm formulas glibc's old
 * libm used are within 1 ulp (tests/c/test_rmath.c measures them against
 * glibc on 10^7 points) at a fraction of the cost.  Arguments outside the
 * fast range (log: not a positive normal finite number; sincos: |t| >= 2^19
 * or not finite) are handed to glibc lane by lane, so every input gives
 * libm's special values.
 *
 * The caller checks __builtin_cpu_supports("avx2") and ("fma") before
 * calling; the functions carry the target attribute themselves, so the file
 * including this needs no -mavx2. */
#ifndef EM_CPU_RMATH_AVX2_H
#define EM_CPU_RMATH_AVX2_H

#if defined(__x86_64__) && defined(__GNUC__)
#define EM_HAVE_RMATH_AVX2 1
#include <immintrin.h>
#include <math.h>
#include <stdint.h>

#define EM__RM_TARGET __attribute__((target("avx2,fma"), unused)) static inline

#define EM__RM_C(v) _mm256_set1_pd(v)
#define EM__RM_FMA(a, b, c) _mm256_fmadd_pd(a, b, c)

/* fdlibm's e_log.c: x = 2^k (1 + f), with 1 + f in [sqrt(2)/2, sqrt(2));
 * s = f / (2 + f), log(1 + f) = f - f^2/2 + s (f^2/2 + R(s^2)). */
EM__RM_TARGET __m256d em__rm_log(__m256d x) {
    const __m256i bits = _mm256_castpd_si256(x);
    __m256i hx = _mm256_srli_epi64(bits, 32);
    __m256i k = _mm256_srli_epi64(hx, 20); /* biased exponent (sign 0 on the fast path) */
    hx = _mm256_and_si256(hx, _mm256_set1_epi64x(0x000fffff));
    /* i = 0x100000 where the mantissa is >= sqrt(2): then 1 + f is m / 2 */
    const __m256i i = _mm256_and_si256(_mm256_add_epi64(hx, _mm256_set1_epi64x(0x95f64)),
                                       _mm256_set1_epi64x(0x100000));
    hx = _mm256_or_si256(hx, _mm256_xor_si256(i, _mm256_set1_epi64x(0x3ff00000)));
    k = _mm256_add_epi64(k, _mm256_srli_epi64(i, 20));
    const __m256d m = _mm256_castsi256_pd(_mm256_or_si256(
        _mm256_slli_epi64(hx, 32), _mm256_and_si256(bits, _mm256_set1_epi64x(0xffffffff))));
    /* k - 1023 as a double: k sits in the low mantissa bits of 2^52 */
    const __m256d dk = _mm256_sub_pd(
        _mm256_castsi256_pd(_mm256_or_si256(k, _mm256_set1_epi64x(0x4330000000000000))),
        EM__RM_C(0x1p52 + 1023.0));
    const __m256d f = _mm256_sub_pd(m, EM__RM_C(1.0));
    const __m256d s = _mm256_div_pd(f, _mm256_add_pd(EM__RM_C(2.0), f));
    const __m256d z = _mm256_mul_pd(s, s), w = _mm256_mul_pd(z, z);
    __m256d t1 =
        EM__RM_FMA(w, EM__RM_C(1.531383769920937332e-01), EM__RM_C(2.222219843214978396e-01));
    t1 = EM__RM_FMA(w, t1, EM__RM_C(3.999999999940941908e-01));
    t1 = _mm256_mul_pd(w, t1);
    __m256d t2 =
        EM__RM_FMA(w, EM__RM_C(1.479819860511658591e-01), EM__RM_C(1.818357216161805012e-01));
    t2 = EM__RM_FMA(w, t2, EM__RM_C(2.857142874366239149e-01));
    t2 = EM__RM_FMA(w, t2, EM__RM_C(6.666666666666735130e-01));
    t2 = _mm256_mul_pd(z, t2);
    const __m256d R = _mm256_add_pd(t2, t1);
    const __m256d hfsq = _mm256_mul_pd(_mm256_mul_pd(EM__RM_C(0.5), f), f);
    /* dk*ln2_hi - ((hfsq - (s*(hfsq + R) + dk*ln2_lo)) - f); ln2_hi has 32
     * trailing zero bits, so dk*ln2_hi is exact */
    const __m256d inner = EM__RM_FMA(s, _mm256_add_pd(hfsq, R),
                                     _mm256_mul_pd(dk, EM__RM_C(1.90821492927058770002e-10)));
    __m256d r = _mm256_sub_pd(_mm256_mul_pd(dk, EM__RM_C(6.93147180369123816490e-01)),
                              _mm256_sub_pd(_mm256_sub_pd(hfsq, inner), f));
    /* zero, negative, subnormal, inf, NaN: glibc's log */
    const __m256d ok = _mm256_and_pd(_mm256_cmp_pd(x, EM__RM_C(0x1p-1022), _CMP_GE_OQ),
                                     _mm256_cmp_pd(x, EM__RM_C(INFINITY), _CMP_LT_OQ));
    const int good = _mm256_movemask_pd(ok);
    if (__builtin_expect(good != 15, 0)) {
        double xs[4], rs[4];
        _mm256_storeu_pd(xs, x);
        _mm256_storeu_pd(rs, r);
        for (int l = 0; l < 4; l++)
            if (!(good >> l & 1)) rs[l] = log(xs[l]);
        r = _mm256_loadu_pd(rs);
    }
    return r;
}

/* fdlibm's __kernel_sin and __kernel_cos (tail y = 0) on |y| <= pi/4. */
EM__RM_TARGET __m256d em__rm_ksin(__m256d x, __m256d z) {
    __m256d r =
        EM__RM_FMA(z, EM__RM_C(1.58969099521155010221e-10), EM__RM_C(-2.50507602534068634195e-08));
    r = EM__RM_FMA(z, r, EM__RM_C(2.75573137070700676789e-06));
    r = EM__RM_FMA(z, r, EM__RM_C(-1.98412698298579493134e-04));
    r = EM__RM_FMA(z, r, EM__RM_C(8.33333333332248946124e-03));
    const __m256d v = _mm256_mul_pd(z, x);
    return EM__RM_FMA(v, EM__RM_FMA(z, r, EM__RM_C(-1.66666666666666324348e-01)), x);
}

EM__RM_TARGET __m256d em__rm_kcos(__m256d x, __m256d z) {
    __m256d r =
        EM__RM_FMA(z, EM__RM_C(-1.13596475577881948265e-11), EM__RM_C(2.08757232129817482790e-09));
    r = EM__RM_FMA(z, r, EM__RM_C(-2.75573143513906633035e-07));
    r = EM__RM_FMA(z, r, EM__RM_C(2.48015872894767294178e-05));
    r = EM__RM_FMA(z, r, EM__RM_C(-1.38888888888741095749e-03));
    r = EM__RM_FMA(z, r, EM__RM_C(4.16666666666666019037e-02));
    r = _mm256_mul_pd(z, r);
    /* 1 - (z/2 - z r), the subtraction split at qx (x/4 truncated to 21
     * bits, at most 0.28125) where |x| >= 0.3 so the leading terms stay exact */
    const __m256d ax = _mm256_andnot_pd(EM__RM_C(-0.0), x);
    __m256d qx =
        _mm256_castsi256_pd(_mm256_and_si256(_mm256_castpd_si256(_mm256_mul_pd(ax, EM__RM_C(0.25))),
                                             _mm256_set1_epi64x((long long)0xffffffff00000000ull)));
    qx = _mm256_min_pd(qx, EM__RM_C(0.28125));
    qx = _mm256_and_pd(qx, _mm256_cmp_pd(ax, EM__RM_C(0.3), _CMP_GE_OQ));
    const __m256d hz = _mm256_sub_pd(_mm256_mul_pd(EM__RM_C(0.5), z), qx);
    const __m256d a = _mm256_sub_pd(EM__RM_C(1.0), qx);
    return _mm256_sub_pd(a, _mm256_fnmadd_pd(z, r, hz));
}

/* *s = sin(t), *c = cos(t): t - q pi/2 in three FMA steps (pi/2 as three
 * doubles of 53 bits: exact enough for |t| < 2^19), then the kernels by
 * quadrant. */
EM__RM_TARGET void em__rm_sincos(__m256d t, __m256d *s, __m256d *c) {
    const __m256d q = _mm256_round_pd(_mm256_mul_pd(t, EM__RM_C(0.6366197723675814)),
                                      _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
    __m256d y = EM__RM_FMA(q, EM__RM_C(-1.5707963267948966), t);
    y = EM__RM_FMA(q, EM__RM_C(-6.123233995736766e-17), y);
    y = EM__RM_FMA(q, EM__RM_C(1.4973849048591698e-33), y);
    const __m256d z = _mm256_mul_pd(y, y);
    const __m256d ks = em__rm_ksin(y, z), kc = em__rm_kcos(y, z);
    /* quadrant n = q mod 4: bit 0 swaps sin and cos, sin is negated for
     * n = 2, 3 and cos for n = 1, 2 */
    /* q's low bits as an integer: q + 1.5 2^52 keeps the exponent for |q| < 2^51 */
    const __m256i n = _mm256_castpd_si256(_mm256_add_pd(q, EM__RM_C(0x1.8p52)));
    const __m256d swap = _mm256_castsi256_pd(
        _mm256_sub_epi64(_mm256_setzero_si256(), _mm256_and_si256(n, _mm256_set1_epi64x(1))));
    const __m256i n1 = _mm256_and_si256(n, _mm256_set1_epi64x(2)); /* n = 2, 3 */
    const __m256i n2 = _mm256_and_si256(_mm256_add_epi64(n, _mm256_set1_epi64x(1)),
                                        _mm256_set1_epi64x(2)); /* n = 1, 2 */
    const __m256d sneg = _mm256_castsi256_pd(_mm256_slli_epi64(n1, 62));
    const __m256d cneg = _mm256_castsi256_pd(_mm256_slli_epi64(n2, 62));
    __m256d rs = _mm256_xor_pd(_mm256_blendv_pd(ks, kc, swap), sneg);
    __m256d rc = _mm256_xor_pd(_mm256_blendv_pd(kc, ks, swap), cneg);
    const __m256d at = _mm256_andnot_pd(EM__RM_C(-0.0), t);
    rs = _mm256_blendv_pd(rs, t,
                          _mm256_cmp_pd(at, EM__RM_C(0x1p-27), _CMP_LT_OQ)); /* sin(-0) = -0 */
    const __m256d ok = _mm256_cmp_pd(at, EM__RM_C(0x1p19), _CMP_LT_OQ);
    const int good = _mm256_movemask_pd(ok);
    if (__builtin_expect(good != 15, 0)) {
        double ts[4], ss[4], cs[4];
        _mm256_storeu_pd(ts, t);
        _mm256_storeu_pd(ss, rs);
        _mm256_storeu_pd(cs, rc);
        for (int l = 0; l < 4; l++)
            if (!(good >> l & 1)) ss[l] = sin(ts[l]), cs[l] = cos(ts[l]);
        rs = _mm256_loadu_pd(ss), rc = _mm256_loadu_pd(cs);
    }
    *s = rs, *c = rc;
}

#undef EM__RM_C
#undef EM__RM_FMA
#endif
#endif
