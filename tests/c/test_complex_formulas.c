/* The scalar library's complex formulas -- the CUDA and OpenCL path, compiled
 * here for the CPU by leaving EM_LIBM_COMPLEX undefined -- against glibc's
 * complex functions (NumPy's own on this machine): asinh, asin and sqrt on a
 * grid with both signs of zero on the branch cuts.  The textbook asinh lost
 * every digit for re(z) < 0 and the device sqrt put -0 imaginary parts on
 * the wrong side of its cut (sqrt(-4 - 0i) gave +2i). */
#include "codegen/head_c.h"
#undef EM_LIBM_COMPLEX
#include "codegen/scalar.h"
#include "codegen/scalar_complex.h"
#include "ctest.h"

#include <float.h>

static const double vals[] = {0.0, 0.01, 0.5, 0.99, 1.0, 1.5, 3.0, 10.0, 212.1, 1e5, 1e30, 0.3333};

/* Max-norm error of got against want in units of eps * |want|. */
static double err(double gr, double gi, double complex want, double eps) {
    double d = fmax(fabs(gr - creal(want)), fabs(gi - cimag(want)));
    double m = cabs(want);
    return m > 0 ? d / m / eps : d / DBL_MIN;
}

static void test_double(void) {
    int n = (int)(sizeof vals / sizeof *vals);
    double worst[3] = {0, 0, 0};
    for (int i = 0; i < 2 * n; i++)
        for (int j = 0; j < 2 * n; j++) {
            double re = i < n ? vals[i] : -vals[i - n], im = j < n ? vals[j] : -vals[j - n];
            em_c128 a = em_mk_c128(re, im);
            double complex z = __builtin_complex(re, im);
            em_c128 r[3] = {em_arcsinh_c128(a), em_arcsin_c128(a), em_sqrt_c128(a)};
            double complex w[3] = {casinh(z), casin(z), csqrt(z)};
            for (int k = 0; k < 3; k++) {
                double e = err(r[k].re, r[k].im, w[k], DBL_EPSILON);
                if (e > worst[k]) worst[k] = e;
                /* the same side of every branch cut: signs of the parts agree */
                CHECK(signbit(r[k].re) == signbit(creal(w[k])) || creal(w[k]) == 0);
                CHECK(signbit(r[k].im) == signbit(cimag(w[k])) || cimag(w[k]) == 0);
            }
        }
    CHECK(worst[0] <= 8 && worst[1] <= 8 && worst[2] <= 2);
    if (worst[0] > 8 || worst[1] > 8 || worst[2] > 2)
        printf("worst ulp: asinh %g asin %g sqrt %g\n", worst[0], worst[1], worst[2]);
}

static void test_float(void) {
    int n = (int)(sizeof vals / sizeof *vals) - 1; /* 1e30 is beyond float */
    double worst = 0;
    for (int i = 0; i < 2 * n; i++)
        for (int j = 0; j < 2 * n; j++) {
            float re = (float)(i < n ? vals[i] : -vals[i - n]);
            float im = (float)(j < n ? vals[j] : -vals[j - n]);
            em_c64 r = em_arcsinh_c64(em_mk_c64(re, im));
            float complex w = casinhf(__builtin_complex(re, im));
            double e = err(r.re, r.im, (double complex)w, FLT_EPSILON);
            if (e > worst) worst = e;
            CHECK(signbit(r.im) == signbit(cimagf(w)) || cimagf(w) == 0);
        }
    CHECK(worst <= 8);
    if (worst > 8) printf("worst float asinh ulp: %g\n", worst);
}

int main(void) {
    RUN(test_double);
    RUN(test_float);
    return ctest_summary();
}
