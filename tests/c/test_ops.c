/* C tests of the op table through the public API: every op resolves as
 * NumPy does for a few dtypes, every (op, dtype) the resolver accepts has a
 * CPU loop that runs, and the integer corners C leaves undefined (division
 * by zero, INT_MIN / -1, shifts past the width) give NumPy's answers. */
#include "ctest.h"

static em_device cpu = {EM_CPU, 0};

static void test_resolve(void) {
    em_dtype l, o;
    CHECK(em_op_resolve(EM_OP_DIVIDE, EM_INT8, &l, &o) == EM_OK && o == EM_FLOAT64);
    CHECK(em_op_resolve(EM_OP_SQRT, EM_INT8, &l, &o) == EM_OK && o == EM_FLOAT16 &&
          l == EM_FLOAT32);
    CHECK(em_op_resolve(EM_OP_FLOOR_DIVIDE, EM_BOOL, &l, &o) == EM_OK && o == EM_INT8);
    CHECK(em_op_resolve(EM_OP_FLOOR, EM_INT32, &l, &o) == EM_OK && o == EM_INT32);
    CHECK(em_op_resolve(EM_OP_ABSOLUTE, EM_COMPLEX64, &l, &o) == EM_OK && o == EM_FLOAT32);
    CHECK(em_op_resolve(EM_OP_NEXTAFTER, EM_FLOAT16, &l, &o) == EM_OK && l == EM_FLOAT16);
    CHECK(em_op_resolve(EM_OP_SUBTRACT, EM_BOOL, &l, &o) == EM_ETYPE);
    CHECK(strstr(em_last_error(), "boolean subtract") != NULL);
    CHECK(em_op_resolve(EM_OP_SIGN, EM_BOOL, &l, &o) == EM_ETYPE);
    CHECK(em_op_resolve(EM_OP_BITWISE_AND, EM_FLOAT64, &l, &o) == EM_ETYPE);
    CHECK(em_op_resolve(EM_OP_REMAINDER, EM_COMPLEX128, &l, &o) == EM_ETYPE);
}

/* Every op on every dtype: either a type error or a run that succeeds (a
 * missing loop would crash here). */
static void test_every_loop_runs(void) {
    int64_t n = 5;
    for (int op = 0; op < EM_NOPS; op++) {
        for (int dt = 0; dt < EM_NDTYPES; dt++) {
            em_dtype l, o;
            if (em_op_resolve((em_op)op, (em_dtype)dt, &l, &o) != EM_OK) continue;
            em_array a, r = {0};
            CHECK(em_array_empty(&a, (em_dtype)dt, 1, &n, cpu) == EM_OK);
            memset(a.data, 0, (size_t)n * em_dtype_get((em_dtype)dt)->size);
            const em_array *in[3] = {&a, &a, &a};
            CHECK(em_ufunc((em_op)op, em_op_get((em_op)op)->nin, in, EM_NDTYPES, &r) == EM_OK);
            em_array_release(&r);
            em_array_release(&a);
        }
    }
}

/* out = op(x, y) on int64 pairs. */
static void run2(em_op op, const int64_t *x, const int64_t *y, int64_t *out, int64_t n) {
    em_array a, b, r = {0};
    CHECK(em_array_empty(&a, EM_INT64, 1, &n, cpu) == EM_OK);
    CHECK(em_array_empty(&b, EM_INT64, 1, &n, cpu) == EM_OK);
    em_array_write(&a, x, sizeof(int64_t) * (size_t)n);
    em_array_write(&b, y, sizeof(int64_t) * (size_t)n);
    const em_array *in[2] = {&a, &b};
    CHECK(em_ufunc(op, 2, in, EM_NDTYPES, &r) == EM_OK);
    CHECK(em_array_read(&r, out, sizeof(int64_t) * (size_t)n) == EM_OK);
    em_array_release(&a), em_array_release(&b), em_array_release(&r);
}

static void test_integer_corners(void) {
    int64_t x[] = {INT64_MIN, 7, -7, 7, -7, 5}, y[] = {-1, 0, 2, -2, 0, 3}, r[6];
    run2(EM_OP_FLOOR_DIVIDE, x, y, r, 6);
    CHECK(r[0] == INT64_MIN && r[1] == 0 && r[2] == -4 && r[3] == -4 && r[4] == 0 && r[5] == 1);
    run2(EM_OP_REMAINDER, x, y, r, 6);
    CHECK(r[0] == 0 && r[1] == 0 && r[2] == 1 && r[3] == -1 && r[4] == 0 && r[5] == 2);
    run2(EM_OP_FMOD, x, y, r, 6);
    CHECK(r[0] == 0 && r[1] == 0 && r[2] == -1 && r[3] == 1 && r[4] == 0 && r[5] == 2);
    int64_t s[] = {-8, 8, 1, -1, 3, 1}, c[] = {64, 64, 63, 100, -1, 0};
    run2(EM_OP_RIGHT_SHIFT, s, c, r, 6);
    CHECK(r[0] == -1 && r[1] == 0 && r[2] == 0 && r[3] == -1 && r[4] == 0 && r[5] == 1);
    run2(EM_OP_LEFT_SHIFT, s, c, r, 6);
    CHECK(r[0] == 0 && r[1] == 0 && r[2] == INT64_MIN && r[3] == 0 && r[4] == 0 && r[5] == 1);
    int64_t p[] = {2, -1, 1, 2, 3, 0}, e[] = {62, -3, -5, -1, 40, 0};
    run2(EM_OP_POWER, p, e, r, 6);
    CHECK(r[0] == (int64_t)1 << 62 && r[1] == -1 && r[2] == 1 && r[3] == 0 && r[5] == 1);
}

int main(void) {
    RUN(test_resolve);
    RUN(test_every_loop_runs);
    RUN(test_integer_corners);
    return ctest_summary();
}
