/* em_expr_retarget (src/graph/retarget.c), device="auto"'s way to place a
 * whole pending chain when it runs: the rebuilt expression evaluates to the
 * same bytes, shares one copy per distinct input, keeps host scalars and
 * evaluated nodes' values, leaves the old DAG alone; the input bytes and the
 * auto mark of every input.  The CPU is both ends here (the copy is real);
 * the fake CUDA driver's tests cover the move to cuda:0 from Python. */
#include "core/core.h"
#include "ctest.h"
#include "graph/expr.h"

#include <string.h>

static const em_device cpu = {EM_CPU, 0};

static em_array iota(em_dtype dt, int64_t n, double scale) {
    em_array d, a;
    CHECK(em_array_empty(&d, EM_FLOAT64, 1, &n, cpu) == EM_OK);
    for (int64_t i = 0; i < n; i++) ((double *)d.data)[i] = (double)(i % 31) * scale - 2;
    CHECK(em_astype(&d, dt, &a) == EM_OK);
    em_array_release(&d);
    return a;
}

static em_expr *op2(em_op op, em_expr *a, em_expr *b) {
    em_dtype loop, odt;
    CHECK(em_op_resolve(op, em_promote(a->dtype, b->dtype), &loop, &odt) == EM_OK);
    em_expr *in[2] = {a, b}, *r = NULL;
    CHECK(em_expr_op(op, 2, in, loop, odt, &r) == EM_OK);
    return r;
}

static em_expr *leaf(const em_array *a) {
    em_expr *e = NULL;
    CHECK(em_expr_leaf(a, &e) == EM_OK);
    return e;
}

static bool same_bytes(const em_array *a, const em_array *b) {
    return a->dtype == b->dtype && em_array_nbytes(a) == em_array_nbytes(b) &&
           !memcmp(a->data, b->data, (size_t)em_array_nbytes(a));
}

/* (x * y + x) * 0.5, with x * y evaluated before the move for one dtype. */
static void test_retarget_equals_original(void) {
    em_dtype dts[] = {EM_FLOAT32, EM_FLOAT64, EM_INT32, EM_COMPLEX64};
    for (size_t k = 0; k < sizeof dts / sizeof *dts; k++)
        for (int pre = 0; pre < 2; pre++) {
            em_array x = iota(dts[k], 1000, 0.25), y = iota(dts[k], 1000, 1.5), h;
            CHECK(em_array_empty(&h, EM_FLOAT64, 0, NULL, cpu) == EM_OK);
            *(double *)h.data = 0.5;
            em_array_set_auto(&x, true);
            em_expr *ex = leaf(&x), *ey = leaf(&y), *eh = leaf(&h);
            em_expr *xy = op2(EM_OP_MULTIPLY, ex, ey), *s = op2(EM_OP_ADD, xy, ex);
            em_expr *r = op2(EM_OP_MULTIPLY, s, eh);
            em_array v = {0};
            if (pre) { /* an evaluated node is read as a leaf from then on */
                CHECK(em_expr_eval(xy, "test", &v) == EM_OK);
                em_expr_set_value(xy, &v);
            }
            int64_t in = pre ? em_array_nbytes(&v) + em_array_nbytes(&x)
                             : em_array_nbytes(&x) + em_array_nbytes(&y);
            CHECK(em_expr_input_bytes(r) == in); /* x once, the scalar not at all */
            CHECK(!em_expr_all_auto(r));         /* y is not auto */
            em_expr *m = NULL;
            CHECK(em_expr_retarget(r, cpu, &m) == EM_OK && m != r);
            CHECK(em_expr_input_bytes(m) == in && em_expr_nleaves(m, 15) == em_expr_nleaves(r, 15));
            CHECK(m->in[1] == r->in[1]);  /* the host scalar is the same leaf */
            CHECK(!em_expr_reads(m, &x)); /* its inputs are copies */
            em_array want = {0}, got = {0};
            CHECK(em_expr_eval(r, "test", &want) == EM_OK);
            CHECK(em_expr_eval(m, "test", &got) == EM_OK);
            CHECK(same_bytes(&want, &got));
            em_expr_decref(m), em_expr_decref(r), em_expr_decref(s), em_expr_decref(xy);
            em_expr_decref(ex), em_expr_decref(ey), em_expr_decref(eh);
            em_array_release(&want), em_array_release(&got), em_array_release(&v);
            em_array_release(&x), em_array_release(&y), em_array_release(&h);
        }
}

static void test_all_auto(void) {
    em_array x = iota(EM_FLOAT32, 10, 1.0), y = iota(EM_FLOAT32, 10, 2.0);
    em_array_set_auto(&x, true), em_array_set_auto(&y, true);
    em_expr *ex = leaf(&x), *ey = leaf(&y), *r = op2(EM_OP_ADD, ex, ey);
    CHECK(em_expr_all_auto(r) && em_expr_input_bytes(r) == 80);
    em_expr *m = NULL;
    CHECK(em_expr_retarget(r, cpu, &m) == EM_OK);
    CHECK(em_expr_all_auto(m)); /* copies of auto data are auto */
    em_expr_decref(m), em_expr_decref(r), em_expr_decref(ex), em_expr_decref(ey);
    em_array_release(&x), em_array_release(&y);
}

static em_expr *op1(em_op op, em_expr *a) {
    em_dtype loop, odt;
    CHECK(em_op_resolve(op, a->dtype, &loop, &odt) == EM_OK);
    em_expr *r = NULL;
    CHECK(em_expr_op(op, 1, &a, loop, odt, &r) == EM_OK);
    return r;
}

/* The op nodes a chain will evaluate, for auto's cost: a shared node once,
 * transcendental ones (exp, power) apart from arithmetic and sqrt, evaluated
 * nodes and leaves not at all. */
static void test_op_counts(void) {
    em_array x = iota(EM_FLOAT32, 10, 1.0), y = iota(EM_FLOAT32, 10, 2.0);
    em_expr *ex = leaf(&x), *ey = leaf(&y), *xy = op2(EM_OP_MULTIPLY, ex, ey);
    em_expr *s = op2(EM_OP_ADD, xy, xy), *e = op1(EM_OP_EXP, xy);
    em_expr *p = op2(EM_OP_POWER, ex, ey), *q = op1(EM_OP_SQRT, e);
    em_expr *t = op2(EM_OP_MULTIPLY, q, p);
    int ops = -1, tr = -1;
    em_expr_op_counts(ex, &ops, &tr);
    CHECK(ops == 0 && tr == 0);
    em_expr_op_counts(s, &ops, &tr);
    CHECK(ops == 2 && tr == 0); /* xy is read twice, evaluated once */
    em_expr_op_counts(t, &ops, &tr);
    CHECK(ops == 5 && tr == 2); /* multiply, sqrt, exp, xy, power */
    em_array v = {0};
    CHECK(em_expr_eval(xy, "test", &v) == EM_OK);
    em_expr_set_value(xy, &v);
    em_expr_op_counts(s, &ops, &tr);
    CHECK(ops == 1 && tr == 0); /* xy has its values now */
    em_array_release(&v);
    em_expr *all[] = {t, q, p, e, s, xy, ex, ey};
    for (int i = 0; i < 8; i++) em_expr_decref(all[i]);
    em_array_release(&x), em_array_release(&y);
}

/* Rows [r0, r1) of x * y + x on a (6, 4) x and a broadcast (4,) y: the rows
 * of the whole evaluation, byte for byte; bad ranges are errors. */
static void test_retarget_rows(void) {
    int64_t s2[2] = {6, 4}, s1 = 4;
    em_array x, y, d;
    CHECK(em_array_empty(&d, EM_FLOAT64, 2, s2, cpu) == EM_OK);
    for (int i = 0; i < 24; i++) ((double *)d.data)[i] = i * 0.75 - 3;
    CHECK(em_astype(&d, EM_FLOAT32, &x) == EM_OK);
    em_array_release(&d);
    y = iota(EM_FLOAT32, s1, 1.25);
    em_expr *ex = leaf(&x), *ey = leaf(&y), *xy = op2(EM_OP_MULTIPLY, ex, ey);
    em_expr *r = op2(EM_OP_ADD, xy, ex);
    em_array whole = {0};
    CHECK(em_expr_eval(r, "test", &whole) == EM_OK);
    int64_t bands[][2] = {{0, 6}, {0, 1}, {2, 5}, {5, 6}};
    for (int k = 0; k < 4; k++) {
        em_expr *m = NULL;
        CHECK(em_expr_retarget_rows(r, bands[k][0], bands[k][1], cpu, &m) == EM_OK);
        CHECK(m->shape[0] == bands[k][1] - bands[k][0] && m->shape[1] == 4);
        em_array got = {0};
        CHECK(em_expr_eval(m, "test", &got) == EM_OK);
        CHECK(!memcmp(got.data, (float *)whole.data + 4 * bands[k][0],
                      (size_t)em_array_nbytes(&got)));
        em_array_release(&got);
        em_expr_decref(m);
    }
    em_expr *m = NULL;
    CHECK(em_expr_retarget_rows(r, 3, 7, cpu, &m) == EM_EVALUE && !m);
    CHECK(em_expr_retarget_rows(r, 3, 3, cpu, &m) == EM_EVALUE && !m);
    em_expr_decref(r), em_expr_decref(xy), em_expr_decref(ex), em_expr_decref(ey);
    em_array_release(&whole), em_array_release(&x), em_array_release(&y);
}

int main(void) {
    RUN(test_retarget_equals_original);
    RUN(test_all_auto);
    RUN(test_retarget_rows);
    RUN(test_op_counts);
    return ctest_summary();
}
