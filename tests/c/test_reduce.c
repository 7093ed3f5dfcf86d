/* C unit tests for em_reduce / em_scan: axes, default dtypes, keepdims,
 * out=, empty reductions, NaN rules, pairwise accuracy and the errors. */
#include "ctest.h"

#include <limits.h>
#include <math.h>

static const em_device cpu = {EM_CPU, 0};

/* A C-contiguous float64 array 0, 1, 2, ... of the given shape. */
static em_array iota(int nd, const int64_t *shape, em_dtype dt) {
    em_array a = {0}, d = {0};
    CHECK(em_array_empty(&d, EM_FLOAT64, nd, shape, cpu) == EM_OK);
    for (int64_t i = 0; i < em_array_size(&d); i++) ((double *)d.data)[i] = (double)i;
    if (dt == EM_FLOAT64) return d;
    CHECK(em_astype(&d, dt, &a) == EM_OK);
    em_array_release(&d);
    return a;
}

static void test_sum_axes(void) {
    int64_t shape[] = {2, 3, 4};
    em_array a = iota(3, shape, EM_FLOAT64), r = {0};
    int ax0[] = {0}, axm1[] = {-1}, ax02[] = {2, 0};
    CHECK(em_reduce(EM_RED_SUM, &a, -1, NULL, false, EM_NDTYPES, 0, &r) == EM_OK);
    CHECK(r.ndim == 0 && r.dtype == EM_FLOAT64 && ((double *)r.data)[0] == 276.0);
    em_array_release(&r);
    CHECK(em_reduce(EM_RED_SUM, &a, 1, ax0, false, EM_NDTYPES, 0, &r) == EM_OK);
    CHECK(r.ndim == 2 && r.shape[0] == 3 && r.shape[1] == 4);
    CHECK(((double *)r.data)[0] == 12.0 && ((double *)r.data)[11] == 11.0 + 23.0);
    em_array_release(&r);
    CHECK(em_reduce(EM_RED_MAX, &a, 1, axm1, true, EM_NDTYPES, 0, &r) == EM_OK);
    CHECK(r.ndim == 3 && r.shape[2] == 1 && ((double *)r.data)[5] == 23.0);
    em_array_release(&r);
    CHECK(em_reduce(EM_RED_SUM, &a, 2, ax02, false, EM_NDTYPES, 0, &r) == EM_OK);
    /* row j of the middle axis: sum over i, k of 12 i + 4 j + k */
    CHECK(r.ndim == 1 && r.shape[0] == 3 && ((double *)r.data)[1] == 12 * 4 + 4 * 8 + 6 * 2);
    em_array_release(&r);
    em_array_release(&a);
}

static void test_default_dtypes(void) {
    int64_t shape[] = {5};
    em_array a = iota(1, shape, EM_INT8), r = {0};
    CHECK(em_reduce(EM_RED_SUM, &a, -1, NULL, false, EM_NDTYPES, 0, &r) == EM_OK);
    CHECK(r.dtype == EM_INT64 && ((int64_t *)r.data)[0] == 10);
    em_array_release(&r);
    CHECK(em_reduce(EM_RED_MEAN, &a, -1, NULL, false, EM_NDTYPES, 0, &r) == EM_OK);
    CHECK(r.dtype == EM_FLOAT64 && ((double *)r.data)[0] == 2.0);
    em_array_release(&r);
    CHECK(em_reduce(EM_RED_ARGMAX, &a, -1, NULL, false, EM_NDTYPES, 0, &r) == EM_OK);
    CHECK(r.dtype == EM_INT64 && ((int64_t *)r.data)[0] == 4);
    em_array_release(&r);
    CHECK(em_reduce(EM_RED_VAR, &a, -1, NULL, false, EM_NDTYPES, 1.0, &r) == EM_OK);
    CHECK(r.dtype == EM_FLOAT64 && ((double *)r.data)[0] == 2.5);
    em_array_release(&r);
    em_array_release(&a);
    em_array u = iota(1, shape, EM_UINT16);
    CHECK(em_reduce(EM_RED_PROD, &u, -1, NULL, false, EM_NDTYPES, 0, &r) == EM_OK);
    CHECK(r.dtype == EM_UINT64 && ((uint64_t *)r.data)[0] == 0);
    em_array_release(&r);
    CHECK(em_reduce(EM_RED_ANY, &u, -1, NULL, false, EM_NDTYPES, 0, &r) == EM_OK);
    CHECK(r.dtype == EM_BOOL && ((bool *)r.data)[0]);
    em_array_release(&r);
    CHECK(em_reduce(EM_RED_ALL, &u, -1, NULL, false, EM_NDTYPES, 0, &r) == EM_OK);
    CHECK(r.dtype == EM_BOOL && !((bool *)r.data)[0]);
    em_array_release(&r);
    CHECK(em_reduce(EM_RED_COUNT_NONZERO, &u, -1, NULL, false, EM_NDTYPES, 0, &r) == EM_OK);
    CHECK(r.dtype == EM_INT64 && ((int64_t *)r.data)[0] == 4);
    em_array_release(&r);
    em_array_release(&u);
}

static void test_errors(void) {
    int64_t shape[] = {2, 3};
    em_array a = iota(2, shape, EM_FLOAT64), r = {0};
    int bad[] = {2}, dup[] = {0, -2}, two[] = {0, 1};
    CHECK(em_reduce(EM_RED_SUM, &a, 1, bad, false, EM_NDTYPES, 0, &r) == EM_EINDEX);
    CHECK(strcmp(em_last_error(), "axis 2 is out of bounds for array of dimension 2") == 0);
    CHECK(em_reduce(EM_RED_SUM, &a, 2, dup, false, EM_NDTYPES, 0, &r) == EM_EVALUE);
    CHECK(strstr(em_last_error(), "duplicate value in 'axis'") != NULL);
    CHECK(em_reduce(EM_RED_ARGMIN, &a, 2, two, false, EM_NDTYPES, 0, &r) == EM_EVALUE);
    CHECK(em_reduce(EM_RED_CUMSUM, &a, -1, NULL, false, EM_NDTYPES, 0, &r) == EM_EVALUE);
    CHECK(em_scan(EM_RED_CUMSUM, &a, 5, EM_NDTYPES, &r) == EM_EINDEX);
    CHECK(r.buf == NULL); /* nothing written on failure */
    em_array out = {0};
    int64_t oshape[] = {4};
    CHECK(em_array_empty(&out, EM_FLOAT64, 1, oshape, cpu) == EM_OK);
    int ax0[] = {0};
    CHECK(em_reduce(EM_RED_SUM, &a, 1, ax0, false, EM_NDTYPES, 0, &out) == EM_EVALUE);
    CHECK(strstr(em_last_error(), "output array has shape (4,) but sum gives shape (3,)") != NULL);
    em_array_release(&out);
    em_array_release(&a);
}

static void test_empty(void) {
    int64_t shape[] = {0, 3};
    em_array a = {0}, r = {0};
    CHECK(em_array_empty(&a, EM_FLOAT32, 2, shape, cpu) == EM_OK);
    CHECK(em_reduce(EM_RED_SUM, &a, -1, NULL, false, EM_NDTYPES, 0, &r) == EM_OK);
    CHECK(r.dtype == EM_FLOAT32 && ((float *)r.data)[0] == 0.0f);
    em_array_release(&r);
    CHECK(em_reduce(EM_RED_PROD, &a, -1, NULL, false, EM_NDTYPES, 0, &r) == EM_OK);
    CHECK(((float *)r.data)[0] == 1.0f);
    em_array_release(&r);
    CHECK(em_reduce(EM_RED_MAX, &a, -1, NULL, false, EM_NDTYPES, 0, &r) == EM_EVALUE);
    CHECK(strcmp(em_last_error(),
                 "zero-size array to reduction operation maximum which has no identity") == 0);
    int ax1[] = {1};
    CHECK(em_reduce(EM_RED_MAX, &a, 1, ax1, false, EM_NDTYPES, 0, &r) == EM_OK);
    CHECK(r.ndim == 1 && r.shape[0] == 0);
    em_array_release(&r);
    CHECK(em_reduce(EM_RED_ARGMIN, &a, -1, NULL, false, EM_NDTYPES, 0, &r) == EM_EVALUE);
    CHECK(em_reduce(EM_RED_ALL, &a, -1, NULL, false, EM_NDTYPES, 0, &r) == EM_OK);
    CHECK(((bool *)r.data)[0]);
    em_array_release(&r);
    em_array_release(&a);
}

static void test_nan_and_first_occurrence(void) {
    int64_t shape[] = {7};
    em_array a = {0}, r = {0};
    CHECK(em_array_empty(&a, EM_FLOAT64, 1, shape, cpu) == EM_OK);
    double v[] = {1, 9, NAN, 9, NAN, -3, -3};
    memcpy(a.data, v, sizeof v);
    CHECK(em_reduce(EM_RED_MAX, &a, -1, NULL, false, EM_NDTYPES, 0, &r) == EM_OK);
    CHECK(isnan(((double *)r.data)[0]));
    em_array_release(&r);
    CHECK(em_reduce(EM_RED_ARGMIN, &a, -1, NULL, false, EM_NDTYPES, 0, &r) == EM_OK);
    CHECK(((int64_t *)r.data)[0] == 2);
    em_array_release(&r);
    ((double *)a.data)[2] = ((double *)a.data)[4] = 0;
    CHECK(em_reduce(EM_RED_ARGMAX, &a, -1, NULL, false, EM_NDTYPES, 0, &r) == EM_OK);
    CHECK(((int64_t *)r.data)[0] == 1);
    em_array_release(&r);
    CHECK(em_reduce(EM_RED_ARGMIN, &a, -1, NULL, false, EM_NDTYPES, 0, &r) == EM_OK);
    CHECK(((int64_t *)r.data)[0] == 5);
    em_array_release(&r);
    em_array_release(&a);
}

/* Pairwise summation: 2^24 + many ones is exact in float64 but lost by a
 * naive float32 loop; the pairwise sum stays within float32 rounding. */
static void test_pairwise_accuracy(void) {
    int64_t n = 1 << 22;
    em_array a = {0}, r = {0};
    CHECK(em_array_empty(&a, EM_FLOAT32, 1, &n, cpu) == EM_OK);
    for (int64_t i = 0; i < n; i++) ((float *)a.data)[i] = 0.1f;
    CHECK(em_reduce(EM_RED_SUM, &a, -1, NULL, false, EM_NDTYPES, 0, &r) == EM_OK);
    double got = ((float *)r.data)[0], want = (double)0.1f * (double)n;
    CHECK(fabs(got - want) / want < 1e-6);
    em_array_release(&r);
    em_array_release(&a);
}

static void test_scan(void) {
    int64_t shape[] = {2, 3};
    em_array a = iota(2, shape, EM_INT32), r = {0};
    CHECK(em_scan(EM_RED_CUMSUM, &a, 1, EM_NDTYPES, &r) == EM_OK);
    CHECK(r.dtype == EM_INT64 && r.ndim == 2);
    int64_t want1[] = {0, 1, 3, 3, 7, 12};
    for (int i = 0; i < 6; i++) CHECK(((int64_t *)r.data)[i] == want1[i]);
    em_array_release(&r);
    CHECK(em_scan(EM_RED_CUMPROD, &a, INT_MIN, EM_FLOAT64, &r) == EM_OK);
    CHECK(r.ndim == 1 && r.shape[0] == 6 && ((double *)r.data)[5] == 0.0);
    em_array_release(&r);
    CHECK(em_scan(EM_RED_CUMSUM, &a, -2, EM_NDTYPES, &r) == EM_OK);
    int64_t want0[] = {0, 1, 2, 3, 5, 7};
    for (int i = 0; i < 6; i++) CHECK(((int64_t *)r.data)[i] == want0[i]);
    em_array_release(&r);
    em_array_release(&a);
}

int main(void) {
    RUN(test_sum_axes);
    RUN(test_default_dtypes);
    RUN(test_errors);
    RUN(test_empty);
    RUN(test_nan_and_first_occurrence);
    RUN(test_pairwise_accuracy);
    RUN(test_scan);
    return ctest_summary();
}
