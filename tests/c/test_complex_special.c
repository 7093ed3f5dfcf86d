/* The scalar library's complex formulas -- the CUDA and OpenCL path, compiled here for the
 * CPU by leaving EM_LIBM_COMPLEX undefined -- against glibc's complex functions (NumPy's
 * own on Linux, and Ember's CPU) on C99 Annex G's special values: every re + i im with re,
 * im among the infinities, NaN, signed zeros and ordinary, huge and tiny values, and a grid
 * of finite values near overflow (where |z| or an intermediate overflowed: sqrt and log of
 * 1e308 + 1.7e308i gave inf).  NaN must be NaN, an infinity or a zero the same one with its
 * sign; a finite part within 64 ulps of the value's magnitude.  The device formulas gave
 * sqrt(0 + inf i) = inf + NaN i, exp(inf + inf i) = NaN + NaN i, tanh(inf + inf i) =
 * 1 + NaN i, acosh(0 + NaN i) = NaN + NaN i and 275 more. */
#include "codegen/head_c.h"
#undef EM_LIBM_COMPLEX
#include "codegen/scalar.h"
#include "codegen/scalar_complex.h"
#include "ctest.h"

#include <float.h>

static int bad;

static int part_same(double got, double want, double tol) {
    if (isnan(want)) return isnan(got);
    if (!isfinite(want) || want == 0) return got == want && signbit(got) == signbit(want);
    return isfinite(got) && fabs(got - want) <= tol;
}

static void compare(const char *name, const char *dt, double re, double im, double gr, double gi,
                    double complex w, double eps) {
    double wr = creal(w), wi = cimag(w);
    double tol = 64 * eps * fmax(isfinite(wr) ? fabs(wr) : 0, isfinite(wi) ? fabs(wi) : 0);
    if (part_same(gr, wr, tol) && part_same(gi, wi, tol)) return;
    if (bad++ < 20)
        printf("  %s %s(%g%+gi) = %.9g%+.9gi, glibc %.9g%+.9gi\n", dt, name, re, im, gr, gi, wr,
               wi);
}

#define EM__SPECIAL_CHECK(S, R, T, M, name, ef, lf, g, n, eps) \
    for (int i = 0; i < (n); i++)                              \
        for (int j = 0; j < (n); j++) {                        \
            const R re = (R)(g)[i], im = (R)(g)[j];            \
            const T r = ef(em_mk_##S(re, im));                 \
            const R complex w = lf(__builtin_complex(re, im)); \
            compare(name, #S, re, im, r.re, r.im, w, eps);     \
        }
#define EM__SPECIAL_ALL(S, R, T, M, g, n, eps)                                   \
    EM__SPECIAL_CHECK(S, R, T, M, "sqrt", em_sqrt_##S, csqrt##M, g, n, eps)      \
    EM__SPECIAL_CHECK(S, R, T, M, "exp", em_exp_##S, cexp##M, g, n, eps)         \
    EM__SPECIAL_CHECK(S, R, T, M, "log", em_log_##S, clog##M, g, n, eps)         \
    EM__SPECIAL_CHECK(S, R, T, M, "sin", em_sin_##S, csin##M, g, n, eps)         \
    EM__SPECIAL_CHECK(S, R, T, M, "cos", em_cos_##S, ccos##M, g, n, eps)         \
    EM__SPECIAL_CHECK(S, R, T, M, "tan", em_tan_##S, ctan##M, g, n, eps)         \
    EM__SPECIAL_CHECK(S, R, T, M, "sinh", em_sinh_##S, csinh##M, g, n, eps)      \
    EM__SPECIAL_CHECK(S, R, T, M, "cosh", em_cosh_##S, ccosh##M, g, n, eps)      \
    EM__SPECIAL_CHECK(S, R, T, M, "tanh", em_tanh_##S, ctanh##M, g, n, eps)      \
    EM__SPECIAL_CHECK(S, R, T, M, "asin", em_arcsin_##S, casin##M, g, n, eps)    \
    EM__SPECIAL_CHECK(S, R, T, M, "acos", em_arccos_##S, cacos##M, g, n, eps)    \
    EM__SPECIAL_CHECK(S, R, T, M, "atan", em_arctan_##S, catan##M, g, n, eps)    \
    EM__SPECIAL_CHECK(S, R, T, M, "asinh", em_arcsinh_##S, casinh##M, g, n, eps) \
    EM__SPECIAL_CHECK(S, R, T, M, "acosh", em_arccosh_##S, cacosh##M, g, n, eps) \
    EM__SPECIAL_CHECK(S, R, T, M, "atanh", em_arctanh_##S, catanh##M, g, n, eps)

static const double grid[] = {0.0, -0.0, 1.5, -1.5, INFINITY, -INFINITY, NAN, 1e30, -1e-30};
static const double near_max_f[] = {1e38, 3e38, -3e38, -1e38, 0.5, -0.0};
static const double near_max_d[] = {1e308, -1e308, 1.7e308, 0.5, -0.0};
#define LEN(a) ((int)(sizeof(a) / sizeof *(a)))

static void test_special_grid(void) {
    bad = 0;
    EM__SPECIAL_ALL(c64, float, em_c64, f, grid, LEN(grid), FLT_EPSILON)
    EM__SPECIAL_ALL(c128, double, em_c128, , grid, LEN(grid), DBL_EPSILON)
    CHECK(bad == 0);
}

static void test_near_overflow(void) {
    bad = 0;
    EM__SPECIAL_ALL(c64, float, em_c64, f, near_max_f, LEN(near_max_f), FLT_EPSILON)
    EM__SPECIAL_ALL(c128, double, em_c128, , near_max_d, LEN(near_max_d), DBL_EPSILON)
    CHECK(bad == 0);
}

/* cpow (the general power, exp(b log a)) keeps glibc's infinities: its product is C's,
 * whose Annex G recovery makes (0.5 + 0i) * log(inf + iNaN) inf + iNaN, not NaN + iNaN */
static void test_cpow(void) {
    bad = 0;
    const double complex ex[] = {0.5, 2.5, 1.0 * I, 1.0 + 1.0 * I, 0.5 - 2.0 * I};
    for (int i = 0; i < LEN(grid); i++)
        for (int j = 0; j < LEN(grid); j++)
            for (int k = 0; k < LEN(ex); k++) {
                if (grid[i] == 0 && grid[j] == 0) continue; /* em_power's, not cpow's */
                const em_c128 r = em_cpow_c128(em_mk_c128(grid[i], grid[j]),
                                               em_mk_c128(creal(ex[k]), cimag(ex[k])));
                compare("cpow", "c128", grid[i], grid[j], r.re, r.im,
                        cpow(__builtin_complex(grid[i], grid[j]), ex[k]), DBL_EPSILON);
            }
    CHECK(bad == 0);
}

int main(void) {
    RUN(test_special_grid);
    RUN(test_near_overflow);
    RUN(test_cpow);
    return ctest_summary();
}
