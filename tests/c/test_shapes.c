/* C unit tests for the core: shapes, broadcasting, overflow, slices, views. */
#include "ctest.h"

static void test_shape_size(void) {
    int64_t n;
    int64_t s1[] = {2, 3, 4};
    CHECK(em_shape_size(3, s1, &n) == EM_OK && n == 24);
    int64_t s2[] = {2, -1};
    CHECK(em_shape_size(2, s2, &n) == EM_EVALUE);
    int64_t s3[] = {INT64_MAX / 2, 3};
    CHECK(em_shape_size(2, s3, &n) == EM_EOVERFLOW);
    CHECK(strstr(em_last_error(), "overflow") != NULL);
}

static void test_broadcast(void) {
    int64_t a[] = {3, 1}, b[] = {4}, out[EM_MAXDIMS];
    const int64_t *shapes[] = {a, b};
    int nd[] = {2, 1}, ond;
    CHECK(em_broadcast_shapes(2, nd, shapes, &ond, out) == EM_OK);
    CHECK(ond == 2 && out[0] == 3 && out[1] == 4);
    int64_t c[] = {3}, d[] = {4};
    const int64_t *bad[] = {c, d};
    int nd1[] = {1, 1};
    CHECK(em_broadcast_shapes(2, nd1, bad, &ond, out) == EM_ESHAPE);
}

static void test_slices(void) {
    int64_t b = INT64_MAX, e = INT64_MIN, n;
    CHECK(em_slice_normalize(5, &b, &e, -1, &n) == EM_OK && n == 5 && b == 4);
    b = 1, e = INT64_MAX;
    CHECK(em_slice_normalize(5, &b, &e, 2, &n) == EM_OK && n == 2);
    b = -100, e = 100;
    CHECK(em_slice_normalize(5, &b, &e, 3, &n) == EM_OK && n == 2 && b == 0);
    CHECK(em_slice_normalize(5, &b, &e, 0, &n) == EM_EVALUE);
}

static void test_views_and_copy(void) {
    em_device cpu = {EM_CPU, 0};
    em_array a, t, c;
    int64_t shape[] = {2, 3};
    CHECK(em_array_empty(&a, EM_INT32, 2, shape, cpu) == EM_OK);
    for (int i = 0; i < 6; i++) ((int32_t *)a.data)[i] = i;
    CHECK(em_view_transpose(&a, NULL, &t) == EM_OK);
    CHECK(t.shape[0] == 3 && t.strides[0] == 4 && !em_array_is_c_contiguous(&t));
    CHECK(em_astype(&t, EM_FLOAT64, &c) == EM_OK);
    double want[] = {0, 3, 1, 4, 2, 5};
    for (int i = 0; i < 6; i++) CHECK(((double *)c.data)[i] == want[i]);
    int64_t bad[] = {4, 2};
    em_array r;
    CHECK(em_view_reshape(&a, 2, bad, &r) == EM_EVALUE);
    em_array_release(&c);
    em_array_release(&t);
    em_array_release(&a);
    CHECK(a.buf == NULL);
}

static void test_promotion(void) {
    CHECK(em_promote(EM_INT8, EM_UINT8) == EM_INT16);
    CHECK(em_promote(EM_UINT64, EM_INT64) == EM_FLOAT64);
    CHECK(em_promote(EM_INT16, EM_FLOAT16) == EM_FLOAT32);
    CHECK(em_promote(EM_COMPLEX64, EM_FLOAT64) == EM_COMPLEX128);
    CHECK(em_promote(EM_BOOL, EM_INT8) == EM_INT8);
    CHECK(em_can_cast_same_kind(EM_FLOAT64, EM_FLOAT32));
    CHECK(!em_can_cast_same_kind(EM_FLOAT64, EM_INT64));
}

/* em_dtype_from_name: every table name round-trips; NumPy's "bool_" alias;
 * unknown names give EM_NDTYPES (the public API's "not found"). */
static void test_dtype_from_name(void) {
    for (int i = 0; i < EM_NDTYPES; i++)
        CHECK(em_dtype_from_name(em_dtype_get((em_dtype)i)->name) == (em_dtype)i);
    CHECK(em_dtype_from_name("float32") == EM_FLOAT32);
    CHECK(em_dtype_from_name("bool_") == EM_BOOL);
    CHECK(em_dtype_from_name("flaot32") == EM_NDTYPES);
    CHECK(em_dtype_from_name("") == EM_NDTYPES);
}

int main(void) {
    RUN(test_shape_size);
    RUN(test_broadcast);
    RUN(test_slices);
    RUN(test_views_and_copy);
    RUN(test_promotion);
    RUN(test_dtype_from_name);
    return ctest_summary();
}
