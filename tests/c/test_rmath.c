/* The AVX2 log and sincos of src/backend/cpu/rmath_avx2.h (the CPU's
 * Box-Muller and samplers) against glibc on 10^7 points each: uniform
 * (0, 1] as Box-Muller feeds it, every exponent (random bit patterns:
 * tiny, huge, subnormal), near 1, 0 and the special values; t in
 * [0, 2 pi) as Box-Muller feeds it, [-2^19, 2^19], tiny, near multiples of
 * pi/2, past the fast range and the special values.  The largest error in
 * ulps of glibc's result must be at most 1 (glibc is itself within one);
 * NaN where glibc gives NaN.  Skips where the CPU lacks AVX2 or FMA. */
#include "backend/cpu/rmath_avx2.h"
#include "ctest.h"

#include <math.h>
#include <stdint.h>
#include <string.h>

#define NPTS 10000000

static uint64_t rng = 0x9e3779b97f4a7c15ull;
static uint64_t next64(void) { /* splitmix64 */
    uint64_t z = (rng += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}
static double unif(void) { return (double)(next64() >> 11) * 0x1p-53; }
static double from_bits(uint64_t b) {
    double d;
    memcpy(&d, &b, 8);
    return d;
}

/* |got - want| in units of want's last place; both NaN: 0; one NaN: huge. */
static double ulps(double got, double want) {
    if (isnan(want) || isnan(got)) return isnan(want) && isnan(got) ? 0 : 1e300;
    if (got == want) return 0;
    if (isinf(want) || isinf(got)) return 1e300;
    int e;
    frexp(want, &e);
    double u = ldexp(1.0, (e - 53 < -1074 ? -1074 : e - 53));
    return fabs(got - want) / u;
}

#if defined(EM_HAVE_RMATH_AVX2)
__attribute__((target("avx2,fma"))) static void log4(const double *x, double *r) {
    _mm256_storeu_pd(r, em__rm_log(_mm256_loadu_pd(x)));
}
__attribute__((target("avx2,fma"))) static void sincos4(const double *t, double *s, double *c) {
    __m256d vs, vc;
    em__rm_sincos(_mm256_loadu_pd(t), &vs, &vc);
    _mm256_storeu_pd(s, vs), _mm256_storeu_pd(c, vc);
}

static double log_input(int64_t i) {
    switch (i % 4) {
    case 0: return 1.0 - unif();             /* Box-Muller's (0, 1] */
    case 1: return from_bits(next64() >> 1); /* any positive: every exponent */
    case 2: return 1.0 + (unif() - 0.5) * ldexp(1.0, -(int)(next64() % 50)); /* near 1 */
    default: return from_bits(next64() % 0x0010000000000000ull);             /* subnormal */
    }
}

static double sin_input(int64_t i) {
    switch (i % 5) {
    case 0: return 6.283185307179586 * unif();             /* Box-Muller's t */
    case 1: return (unif() * 2 - 1) * 0x1p19;              /* the fast range */
    case 2: return ldexp(unif(), -(int)(next64() % 1100)); /* tiny, subnormal */
    case 3: {                                              /* near k pi/2 */
        double k = (double)(int64_t)(next64() % 2000) - 1000;
        return k * 1.5707963267948966 * (1 + (unif() - 0.5) * 1e-15);
    }
    default: return (unif() * 2 - 1) * 1e22; /* past it: glibc */
    }
}

static void test_log(void) {
    static const double special[8] = {0.0, -0.0, -1.0, INFINITY, -INFINITY, NAN, 0x1p-1074, 1.0};
    double x[4], r[4], worst = 0, at = 0;
    for (int h = 0; h < 8; h += 4) {
        log4(special + h, r);
        for (int l = 0; l < 4; l++) {
            double want = log(special[h + l]);
            CHECK(ulps(r[l], want) == 0);
        }
    }
    for (int64_t i = 0; i < NPTS; i += 4) {
        for (int l = 0; l < 4; l++) x[l] = log_input(i + l);
        log4(x, r);
        for (int l = 0; l < 4; l++) {
            double e = ulps(r[l], log(x[l]));
            if (e > worst) worst = e, at = x[l];
        }
    }
    printf("    log: max %.3f ulp (at %a)\n", worst, at);
    CHECK(worst <= 1.0);
}

static void test_sincos(void) {
    static const double special[8] = {0.0, -0.0, INFINITY, -INFINITY, NAN, 0x1p-1074, 0x1p19, -3.0};
    double t[4], s[4], c[4], worst_s = 0, worst_c = 0, at_s = 0, at_c = 0;
    for (int h = 0; h < 8; h += 4) {
        sincos4(special + h, s, c);
        for (int l = 0; l < 4; l++) {
            CHECK(ulps(s[l], sin(special[h + l])) <= 1);
            CHECK(ulps(c[l], cos(special[h + l])) <= 1);
            if (!isnan(s[l])) CHECK(signbit(s[l]) == signbit(sin(special[h + l]))); /* sin(-0) */
        }
    }
    for (int64_t i = 0; i < NPTS; i += 4) {
        for (int l = 0; l < 4; l++) t[l] = sin_input(i + l);
        sincos4(t, s, c);
        for (int l = 0; l < 4; l++) {
            double es = ulps(s[l], sin(t[l])), ec = ulps(c[l], cos(t[l]));
            if (es > worst_s) worst_s = es, at_s = t[l];
            if (ec > worst_c) worst_c = ec, at_c = t[l];
        }
    }
    printf("    sin: max %.3f ulp (at %a), cos: max %.3f ulp (at %a)\n", worst_s, at_s, worst_c,
           at_c);
    CHECK(worst_s <= 1.0 && worst_c <= 1.0);
}
#endif

int main(void) {
#if defined(EM_HAVE_RMATH_AVX2)
    if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) {
        RUN(test_log);
        RUN(test_sincos);
    } else {
        printf("skip: no AVX2 and FMA here\n");
    }
#else
    printf("skip: not x86-64\n");
#endif
    return ctest_summary();
}
