/* C unit tests for gather / scatter / nonzero (src/core/index.c and the CPU backend). */
#include "ctest.h"

static em_device cpu = {EM_CPU, 0};

/* A new 1-d int64 array holding v[0..n). */
static em_array ints(int64_t n, const int64_t *v) {
    em_array a;
    em_array_empty(&a, EM_INT64, 1, &n, cpu);
    memcpy(a.data, v, (size_t)n * 8);
    return a;
}

/* 0..n-1 as float64 of the given shape. */
static em_array iota(int nd, const int64_t *shape) {
    em_array a;
    em_array_empty(&a, EM_FLOAT64, nd, shape, cpu);
    for (int64_t i = 0; i < em_array_size(&a); i++) ((double *)a.data)[i] = (double)i;
    return a;
}

static void test_take_rows_and_elements(void) {
    int64_t shape[] = {4, 3}, iv[] = {3, -4, 1}, jv[] = {2, 0, -1};
    em_array a = iota(2, shape), i = ints(3, iv), j = ints(3, jv), out;
    CHECK(em_take(&a, 1, &i, &out) == EM_OK);
    CHECK(out.ndim == 2 && out.shape[0] == 3 && out.shape[1] == 3);
    CHECK(((double *)out.data)[0] == 9 && ((double *)out.data)[3] == 0 &&
          ((double *)out.data)[8] == 5);
    em_array_release(&out);
    em_array ij[2] = {i, j};
    CHECK(em_take(&a, 2, ij, &out) == EM_OK);
    CHECK(out.ndim == 1 && ((double *)out.data)[0] == 11 && ((double *)out.data)[1] == 0 &&
          ((double *)out.data)[2] == 5);
    em_array_release(&out);
    em_array t;
    CHECK(em_view_transpose(&a, NULL, &t) == EM_OK); /* flat take on a non-contiguous view */
    CHECK(em_take_flat(&t, &j, &out) == EM_OK);
    CHECK(((double *)out.data)[0] == 6 && ((double *)out.data)[1] == 0 &&
          ((double *)out.data)[2] == 11);
    em_array_release(&out);
    em_array_release(&t);
    em_array_release(&a), em_array_release(&i), em_array_release(&j);
}

static void test_take_errors(void) {
    int64_t shape[] = {5}, bad[] = {0, 10}, low[] = {INT64_MIN};
    em_array a = iota(1, shape), i = ints(2, bad), k = ints(1, low), out = {0};
    CHECK(em_take(&a, 1, &i, &out) == EM_EINDEX && out.buf == NULL);
    CHECK(strcmp(em_last_error(), "index 10 is out of bounds for axis 0 with size 5") == 0);
    CHECK(em_take(&a, 1, &k, &out) == EM_EINDEX);
    CHECK(strstr(em_last_error(), "index -9223372036854775808 is out of bounds") != NULL);
    CHECK(em_take(&a, 2, (em_array[]){i, i}, &out) == EM_EINDEX); /* more indices than dims */
    em_array f;
    em_array_empty(&f, EM_FLOAT32, 1, shape, cpu);
    CHECK(em_take(&a, 1, &f, &out) == EM_ETYPE); /* float indices */
    CHECK(strstr(em_last_error(), "must be integers") != NULL);
    em_array_release(&f), em_array_release(&a), em_array_release(&i), em_array_release(&k);
}

static void test_put_last_write_wins_and_readonly(void) {
    int64_t shape[] = {4}, iv[] = {1, 1, -1}, vshape[] = {3};
    em_array a = iota(1, shape), i = ints(3, iv), v = iota(1, vshape);
    CHECK(em_put(&a, 1, &i, &v) == EM_OK);
    double *d = (double *)a.data;
    CHECK(d[0] == 0 && d[1] == 1 && d[2] == 2 && d[3] == 2);
    a.flags &= ~(uint32_t)EM_WRITEABLE;
    CHECK(em_put(&a, 1, &i, &v) == EM_EVALUE);
    CHECK(strstr(em_last_error(), "read-only") != NULL);
    em_array_release(&a), em_array_release(&i), em_array_release(&v);
}

static void test_nonzero(void) {
    int64_t shape[] = {2, 3};
    em_array a = iota(2, shape), out, t;
    ((double *)a.data)[4] = -0.0;
    CHECK(em_nonzero(&a, &out) == EM_OK);
    CHECK(out.shape[0] == 4 && out.shape[1] == 2);
    int64_t *c = (int64_t *)out.data;
    CHECK(c[0] == 0 && c[1] == 1 && c[6] == 1 && c[7] == 2);
    em_array_release(&out);
    CHECK(em_view_transpose(&a, NULL, &t) == EM_OK); /* strided input */
    CHECK(em_nonzero(&t, &out) == EM_OK && out.shape[0] == 4);
    c = (int64_t *)out.data;
    CHECK(c[0] == 0 && c[1] == 1 && c[2] == 1 && c[3] == 0);
    em_array_release(&out), em_array_release(&t), em_array_release(&a);
}

int main(void) {
    RUN(test_take_rows_and_elements);
    RUN(test_take_errors);
    RUN(test_put_last_write_wins_and_readonly);
    RUN(test_nonzero);
    return ctest_summary();
}
