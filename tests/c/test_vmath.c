/* The libmvec loops of src/backend/cpu/vmath.c, every variant this machine
 * runs (em_cpu_vmath_select: scalar, AVX2, AVX-512), every op, float32 and
 * float64, every length 0..70 (no vector, whole vectors, every tail size)
 * on heap buffers of exactly n elements: under ASan (tools/dev.sh asan) a
 * read or write past element n-1 is a report; without it the output's
 * sentinels past n catch a write.  Each value must be the scalar libm loop's
 * within libmvec's documented 4 ulp (docs/precision.md), NaN where it is
 * NaN, and a broadcast input (step 0) must give the contiguous value. */
#include "backend/cpu/loops.h"
#include "ctest.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#define MAXN 70
#define GUARD 16

static const struct {
    em_op op;
    const char *name;
    double lo, hi; /* the inputs' range: inside the function's domain */
} ops[] = {
    {EM_OP_EXP, "exp", -20, 20},
    {EM_OP_EXP2, "exp2", -20, 20},
    {EM_OP_EXPM1, "expm1", -5, 5},
    {EM_OP_LOG, "log", 1e-3, 1e3},
    {EM_OP_LOG2, "log2", 1e-3, 1e3},
    {EM_OP_LOG10, "log10", 1e-3, 1e3},
    {EM_OP_LOG1P, "log1p", -0.9, 10},
    {EM_OP_SIN, "sin", -10, 10},
    {EM_OP_COS, "cos", -10, 10},
    {EM_OP_TAN, "tan", -1.4, 1.4},
    {EM_OP_SINH, "sinh", -10, 10},
    {EM_OP_COSH, "cosh", -10, 10},
    {EM_OP_TANH, "tanh", -5, 5},
    {EM_OP_ARCSIN, "arcsin", -0.99, 0.99},
    {EM_OP_ARCCOS, "arccos", -0.99, 0.99},
    {EM_OP_ARCTAN, "arctan", -50, 50},
    {EM_OP_ARCSINH, "arcsinh", -50, 50},
    {EM_OP_ARCCOSH, "arccosh", 1, 50},
    {EM_OP_ARCTANH, "arctanh", -0.99, 0.99},
    {EM_OP_CBRT, "cbrt", -100, 100},
};
#define NOPS ((int)(sizeof ops / sizeof ops[0]))

/* Distance in units in the last place between two finite values of one sign
 * class (the ordered integer images of the floats). */
static int64_t ord64(double x) {
    int64_t i;
    memcpy(&i, &x, sizeof i);
    return i < 0 ? INT64_MIN - i : i;
}
static int64_t ord32(float x) {
    int32_t i;
    memcpy(&i, &x, sizeof i);
    return i < 0 ? INT32_MIN - (int64_t)i : i;
}
static bool close_enough(double got, double want, int is64) {
    if (isnan(want) || isnan(got)) return isnan(want) && isnan(got);
    if (isinf(want) || isinf(got)) return got == want;
    int64_t d = is64 ? ord64(got) - ord64(want) : ord32((float)got) - ord32((float)want);
    return llabs(d) <= 4;
}

/* Inputs spread over [lo, hi], with the last element NaN where n > 2 (the
 * special-value lane of a vector). */
static void fill(void *buf, int is64, int n, double lo, double hi) {
    for (int i = 0; i < n; i++) {
        double x = lo + (hi - lo) * (i + 0.5) / (n + 1);
        if (n > 2 && i == n - 1) x = NAN;
        if (is64)
            ((double *)buf)[i] = x;
        else
            ((float *)buf)[i] = (float)x;
    }
}
static double at(const void *buf, int is64, int i) {
    return is64 ? ((const double *)buf)[i] : ((const float *)buf)[i];
}

/* One op, one dtype, one length, under the variant bound now against the
 * scalar reference `ref` (n values).  Returns the number of mismatches. */
static int run_one(int k, int is64, int n, const void *ref, const char *isa) {
    size_t w = is64 ? sizeof(double) : sizeof(float);
    em_loop_fn fn = em_cpu_loops[ops[k].op][is64 ? EM_FLOAT64 : EM_FLOAT32];
    void *in = malloc(n ? (size_t)n * w : 1), *out = malloc(n ? (size_t)n * w : 1);
    unsigned char *guarded = malloc((size_t)(n + GUARD) * w);
    fill(in, is64, n, ops[k].lo, ops[k].hi);
    memset(guarded, 0xa5, (size_t)(n + GUARD) * w);
    const void *ins[1] = {in};
    int64_t step = (int64_t)w, zero = 0;
    fn(n, out, ins, &step);     /* exact-size output: ASan sees an overrun */
    fn(n, guarded, ins, &step); /* sentinels past n: seen without ASan */
    int bad = 0;
    for (size_t b = (size_t)n * w; b < (size_t)(n + GUARD) * w; b++) bad += guarded[b] != 0xa5;
    for (int i = 0; i < n; i++) {
        if (!close_enough(at(out, is64, i), at(ref, is64, i), is64) ||
            memcmp((char *)out + i * w, guarded + i * w, w) != 0) {
            if (bad < 3)
                fprintf(stderr, "%s %s %s n=%d [%d]: %.17g, scalar %.17g\n", isa, ops[k].name,
                        is64 ? "float64" : "float32", n, i, at(out, is64, i), at(ref, is64, i));
            bad++;
        }
    }
    /* A broadcast input: every output is the vector function of in[0]. */
    if (n > 0) {
        fn(n, out, ins, &zero);
        for (int i = 0; i < n; i++) bad += !close_enough(at(out, is64, i), at(ref, is64, 0), is64);
    }
    free(in);
    free(out);
    free(guarded);
    return bad;
}

/* The scalar loops' values for every op, dtype and length. */
static double refs[NOPS][2][MAXN + 1][MAXN];

static void compute_refs(void) {
    CHECK(em_cpu_vmath_select(EM_VMATH_OFF) == EM_VMATH_OFF);
    for (int k = 0; k < NOPS; k++)
        for (int is64 = 0; is64 < 2; is64++)
            for (int n = 0; n <= MAXN; n++) {
                size_t w = is64 ? sizeof(double) : sizeof(float);
                void *in = malloc((size_t)(n + 1) * w), *out = malloc((size_t)(n + 1) * w);
                fill(in, is64, n, ops[k].lo, ops[k].hi);
                const void *ins[1] = {in};
                int64_t step = (int64_t)w;
                em_cpu_loops[ops[k].op][is64 ? EM_FLOAT64 : EM_FLOAT32](n, out, ins, &step);
                for (int i = 0; i < n; i++) refs[k][is64][n][i] = at(out, is64, i);
                free(in);
                free(out);
            }
}

static void check_variant(int want, const char *isa) {
    int got = em_cpu_vmath_select(want);
    printf("  %s: %s\n", isa, got == want ? "runs here" : "not on this machine (skipped)");
    if (got != want) return;
    CHECK(em_cpu_vmath_isa() == want);
    int bad = 0;
    for (int k = 0; k < NOPS; k++)
        for (int is64 = 0; is64 < 2; is64++)
            for (int n = 0; n <= MAXN; n++) {
                /* the reference in this dtype's buffer layout */
                size_t w = is64 ? sizeof(double) : sizeof(float);
                void *ref = malloc((size_t)(n + 1) * w);
                for (int i = 0; i < n; i++) {
                    if (is64)
                        ((double *)ref)[i] = refs[k][is64][n][i];
                    else
                        ((float *)ref)[i] = (float)refs[k][is64][n][i];
                }
                bad += run_one(k, is64, n, ref, isa);
                free(ref);
            }
    CHECK(bad == 0);
}

static void test_scalar(void) { check_variant(EM_VMATH_OFF, "scalar"); }
static void test_avx2(void) { check_variant(EM_VMATH_AVX2, "avx2"); }
static void test_avx512(void) { check_variant(EM_VMATH_AVX512, "avx512"); }

/* A variant the machine lacks falls back to a narrower one, never to none
 * at all where a narrower one runs, and selecting again restores the loops. */
static void test_fallback(void) {
    int best = em_cpu_vmath_select(EM_VMATH_AVX512);
    CHECK(best >= EM_VMATH_OFF && best <= EM_VMATH_AVX512);
    if (best == EM_VMATH_AVX512) CHECK(em_cpu_vmath_select(EM_VMATH_AVX2) == EM_VMATH_AVX2);
    CHECK(em_cpu_vmath_select(EM_VMATH_OFF) == EM_VMATH_OFF);
    em_loop_fn scalar = em_cpu_loops[EM_OP_EXP][EM_FLOAT64];
    if (em_cpu_vmath_select(EM_VMATH_AVX512) != EM_VMATH_OFF)
        CHECK(em_cpu_loops[EM_OP_EXP][EM_FLOAT64] != scalar);
    CHECK(em_cpu_vmath_select(EM_VMATH_OFF) == EM_VMATH_OFF);
    CHECK(em_cpu_loops[EM_OP_EXP][EM_FLOAT64] == scalar);
    em_cpu_vmath_select(best);
}

int main(void) {
    em_cpu_loops_init();
    compute_refs();
    RUN(test_scalar);
    RUN(test_avx2);
    RUN(test_avx512);
    RUN(test_fallback);
    return ctest_summary();
}
