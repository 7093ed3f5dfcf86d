/* The fusion planner in C (ember/fusion.h, src/graph/): expressions equal
 * the chain of em_ufunc calls byte for byte, limits are named, reads are
 * found, row evaluation and fused reductions equal em_reduce of the
 * evaluated producer, and host scalars travel by value in CUDA kernel
 * arguments (rendered source and packed argument, no GPU needed). */
#include "codegen/render.h"
#include "core/core.h"
#include "ctest.h"
#include "graph/expr.h"

#include <stdlib.h>

static const em_device cpu = {EM_CPU, 0};

static em_array iota(em_dtype dt, int nd, const int64_t *shape, double scale) {
    em_array d, a;
    CHECK(em_array_empty(&d, EM_FLOAT64, nd, shape, cpu) == EM_OK);
    for (int64_t i = 0; i < em_array_size(&d); i++) ((double *)d.data)[i] = (double)(i % 97) * scale - 3;
    CHECK(em_astype(&d, dt, &a) == EM_OK);
    em_array_release(&d);
    return a;
}

static em_array scalar(double v) {
    em_array s;
    CHECK(em_array_empty(&s, EM_FLOAT64, 0, NULL, cpu) == EM_OK);
    *(double *)s.data = v;
    return s;
}

static em_expr *op2(em_op op, em_expr *a, em_expr *b) {
    const em_array pa = {.dtype = a->dtype}, pb = {.dtype = b->dtype};
    em_dtype loop, odt;
    CHECK(em_op_resolve(op, em_promote(pa.dtype, pb.dtype), &loop, &odt) == EM_OK);
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

/* ((x * 0.5 + y) * x) as one expression and as three em_ufunc calls. */
static void test_expression_equals_eager_chain(void) {
    int64_t sx[2] = {50, 80}, sy[1] = {80};
    em_dtype dts[] = {EM_FLOAT16, EM_FLOAT32, EM_FLOAT64, EM_INT32, EM_COMPLEX64};
    for (size_t k = 0; k < sizeof dts / sizeof *dts; k++) {
        em_array x = iota(dts[k], 2, sx, 0.37), y = iota(dts[k], 1, sy, 1.5), h = scalar(0.5);
        em_array hh;
        CHECK(em_astype(&h, dts[k], &hh) == EM_OK);
        em_expr *ex = leaf(&x), *ey = leaf(&y), *eh = leaf(&hh);
        em_expr *m = op2(EM_OP_MULTIPLY, ex, eh), *a = op2(EM_OP_ADD, m, ey), *r = op2(EM_OP_MULTIPLY, a, ex);
        em_array fused = {0}, t1 = {0}, t2 = {0}, want = {0};
        CHECK(em_expr_eval(r, "test", &fused) == EM_OK);
        const em_array *i1[2] = {&x, &hh}, *i2[2] = {&t1, &y}, *i3[2] = {&t2, &x};
        CHECK(em_ufunc(EM_OP_MULTIPLY, 2, i1, EM_NDTYPES, &t1) == EM_OK);
        CHECK(em_ufunc(EM_OP_ADD, 2, i2, EM_NDTYPES, &t2) == EM_OK);
        CHECK(em_ufunc(EM_OP_MULTIPLY, 2, i3, EM_NDTYPES, &want) == EM_OK);
        CHECK(same_bytes(&fused, &want));
        CHECK(r->depth == 3 && r->nnodes == 7 && em_expr_nleaves(r, 15) == 3); /* x counted twice in the tree */
        /* Once evaluated, a node is a leaf to later expressions. */
        em_expr_set_value(a, &t2);
        CHECK(em_expr_ready(a) && em_expr_nleaves(r, 15) == 2);
        em_array again = {0};
        CHECK(em_expr_eval(r, "test", &again) == EM_OK && same_bytes(&again, &want));
        em_expr_decref(r), em_expr_decref(a), em_expr_decref(m);
        em_expr_decref(ex), em_expr_decref(ey), em_expr_decref(eh);
        em_array_release(&fused), em_array_release(&again), em_array_release(&t1);
        em_array_release(&t2), em_array_release(&want), em_array_release(&x);
        em_array_release(&y), em_array_release(&h), em_array_release(&hh);
    }
}

static void test_limits_are_named(void) {
    int64_t s[1] = {4};
    em_array x = iota(EM_FLOAT64, 1, s, 1.0);
    em_expr *e = leaf(&x), *one = NULL;
    em_array o = scalar(1.0);
    one = leaf(&o);
    em_expr *r = e;
    em_expr_incref(r);
    for (int i = 0; i < EM_FUSE_MAXDEPTH; i++) {
        em_expr *n = op2(EM_OP_ADD, r, one);
        em_expr_decref(r);
        r = n;
        CHECK(em_expr_over_limit(r) == NULL);
    }
    em_expr *n = op2(EM_OP_ADD, r, one);
    CHECK(em_expr_over_limit(n) && !strcmp(em_expr_over_limit(n), "limit: depth"));
    em_expr_decref(n), em_expr_decref(r);
    /* sixteen distinct arrays */
    em_array xs[16];
    em_expr *sum = leaf(&x);
    for (int i = 0; i < 16; i++) {
        xs[i] = iota(EM_FLOAT64, 1, s, i + 2.0);
        em_expr *l = leaf(&xs[i]), *t = op2(EM_OP_ADD, sum, l);
        em_expr_decref(l), em_expr_decref(sum);
        sum = t;
    }
    CHECK(em_expr_over_limit(sum) && !strcmp(em_expr_over_limit(sum), "limit: distinct inputs"));
    em_expr_decref(sum), em_expr_decref(e), em_expr_decref(one);
    for (int i = 0; i < 16; i++) em_array_release(&xs[i]);
    em_array_release(&x), em_array_release(&o);
}

static void test_reads_and_shared_leaves(void) {
    int64_t s[1] = {10};
    em_array x = iota(EM_FLOAT64, 1, s, 1.0), y = iota(EM_FLOAT64, 1, s, 2.0), v;
    em_index_item it = {.kind = EM_IX_SLICE, .start = 2, .stop = 5, .step = 1};
    CHECK(em_view_index(&x, 1, &it, &v) == EM_OK);
    em_expr *ex1 = leaf(&x), *ex2 = leaf(&x);  /* two leaves of one view: one operand */
    em_expr *sq1 = op2(EM_OP_MULTIPLY, ex1, ex1), *sq2 = op2(EM_OP_MULTIPLY, ex2, ex2);
    em_expr *r = op2(EM_OP_ADD, sq1, sq2);
    CHECK(em_expr_nleaves(r, 15) == 1);
    CHECK(em_expr_reads(r, &v) && !em_expr_reads(r, &y));
    em_array got = {0};
    CHECK(em_expr_eval(r, "test", &got) == EM_OK);
    for (int i = 0; i < 10; i++) {
        double xi = ((double *)x.data)[i];
        CHECK(((double *)got.data)[i] == xi * xi + xi * xi);
    }
    em_expr_decref(r), em_expr_decref(sq1), em_expr_decref(sq2), em_expr_decref(ex1), em_expr_decref(ex2);
    em_array_release(&got), em_array_release(&v), em_array_release(&x), em_array_release(&y);
}

/* sum(x * x, axis=(1, 2)) fused vs em_reduce of the evaluated product. */
static void test_fused_reduction_equals_unfused(void) {
    int64_t s[3] = {64, 5, 333};
    em_reduce_op ops[] = {EM_RED_SUM, EM_RED_PROD, EM_RED_MAX, EM_RED_MEAN, EM_RED_VAR, EM_RED_ARGMIN};
    em_dtype dts[] = {EM_FLOAT32, EM_FLOAT16, EM_INT16, EM_COMPLEX128};
    for (size_t d = 0; d < sizeof dts / sizeof *dts; d++) {
        em_array x = iota(dts[d], 3, s, 0.01);
        em_expr *ex = leaf(&x), *sq = op2(EM_OP_MULTIPLY, ex, ex);
        em_array prod = {0};
        CHECK(em_expr_eval(sq, "test", &prod) == EM_OK);
        for (size_t k = 0; k < sizeof ops / sizeof *ops; k++) {
            if (ops[k] == EM_RED_ARGMIN && dts[d] == EM_COMPLEX128) continue;
            int axes2[2] = {1, 2}, axes1[1] = {-1};
            bool arg = ops[k] == EM_RED_ARGMIN;
            const int *axes = arg ? axes1 : axes2;
            int naxes = arg ? 1 : 2;
            em_array want = {0}, got = {0};
            bool fused = false;
            CHECK(em_reduce(ops[k], &prod, naxes, axes, false, EM_NDTYPES, 0.0, &want) == EM_OK);
            CHECK(em_expr_reduce_fuses(ops[k], sq, naxes, axes));
            CHECK(em_expr_reduce(ops[k], sq, naxes, axes, false, EM_NDTYPES, 0.0, &got, &fused) == EM_OK);
            CHECK(fused && same_bytes(&got, &want));
            em_array_release(&want), em_array_release(&got);
        }
        /* A reduced leading axis is not fused, and still right. */
        int ax0[1] = {0};
        em_array want = {0}, got = {0};
        bool fused = true;
        CHECK(!em_expr_reduce_fuses(EM_RED_SUM, sq, 1, ax0));
        CHECK(em_reduce(EM_RED_SUM, &prod, 1, ax0, true, EM_NDTYPES, 0.0, &want) == EM_OK);
        CHECK(em_expr_reduce(EM_RED_SUM, sq, 1, ax0, true, EM_NDTYPES, 0.0, &got, &fused) == EM_OK);
        CHECK(!fused && same_bytes(&got, &want));
        em_array_release(&want), em_array_release(&got), em_array_release(&prod);
        em_expr_decref(sq), em_expr_decref(ex), em_array_release(&x);
    }
}

/* A host scalar read by a "device" kernel is a by-value operand: the class,
 * the rendered load and the packed argument. */
static void test_host_scalar_by_value(void) {
    static char mem[8 * 100];
    int64_t s[1] = {100};
    em_device fake = {EM_CUDA, 0};
    em_array x = {0}, o = {0}, h = scalar(2.5);
    CHECK(em_array_wrap(&x, mem, EM_FLOAT64, 1, s, NULL, fake, NULL, NULL) == EM_OK);
    CHECK(em_array_wrap(&o, mem, EM_FLOAT64, 1, s, NULL, fake, NULL, NULL) == EM_OK);
    em_node lx, lh, r = {.op = EM_OP_MULTIPLY, .loop = EM_FLOAT64, .dtype = EM_FLOAT64, .nin = 2};
    em_node_leaf(&lx, &x), em_node_leaf(&lh, &h);
    r.in[0] = &lx, r.in[1] = &lh;
    em_kplan p;
    CHECK(em_kplan_make(&r, &o, &p) == EM_OK);
    CHECK(p.nops == 3 && p.cls[1] == 'C' && p.cls[2] == 'P' && p.contig);
    em_sbuf src = {0}, key = {0};
    CHECK(em_render_ew(&p, &src) == EM_OK);
    CHECK(src.s && strstr(src.s, "const double x2 = *(const double *)&p.d[2];"));
    em_kplan_key(&p, &key);
    CHECK(key.s && strchr(key.s, 'P'));
    unsigned char args[256];
    size_t n = em_kplan_args(&p, args, sizeof args);
    double v;
    memcpy(&v, args + 16, 8);
    CHECK(n == 8 * 4 && v == 2.5);
    /* Another value: the same key. */
    *(double *)h.data = -7.0;
    em_sbuf key2 = {0};
    CHECK(em_kplan_make(&r, &o, &p) == EM_OK);
    em_kplan_key(&p, &key2);
    CHECK(key2.s && !strcmp(key.s, key2.s));
    em_sbuf_free(&src), em_sbuf_free(&key), em_sbuf_free(&key2);
    em_array_release(&x), em_array_release(&o), em_array_release(&h);
}

static void test_bad_arguments(void) {
    em_expr *e = NULL;
    em_array unset = {0};
    CHECK(em_expr_leaf(&unset, &e) == EM_EVALUE && e == NULL);
    int64_t s3[1] = {3}, s4[1] = {4};
    em_array a = iota(EM_FLOAT64, 1, s3, 1), b = iota(EM_FLOAT64, 1, s4, 1);
    em_expr *ea = leaf(&a), *eb = leaf(&b), *in[2] = {ea, eb}, *r = NULL;
    CHECK(em_expr_op(EM_OP_ADD, 2, in, EM_FLOAT64, EM_FLOAT64, &r) == EM_ESHAPE && r == NULL);
    CHECK(em_expr_op(EM_OP_ADD, 1, in, EM_FLOAT64, EM_FLOAT64, &r) == EM_EVALUE && r == NULL);
    em_array out = {0};
    CHECK(em_expr_eval_rows(ea, 2, 5, &out) == EM_EVALUE);
    em_expr_decref(ea), em_expr_decref(eb);
    em_array_release(&a), em_array_release(&b);
}

int main(void) {
    RUN(test_expression_equals_eager_chain);
    RUN(test_limits_are_named);
    RUN(test_reads_and_shared_leaves);
    RUN(test_fused_reduction_equals_unfused);
    RUN(test_host_scalar_by_value);
    RUN(test_bad_arguments);
    return ctest_summary();
}
