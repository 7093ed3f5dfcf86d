/* The fusion planner in C (ember/fusion.h, src/graph/): expressions equal
 * the chain of em_ufunc calls byte for byte, limits are named, reads are
 * found, row evaluation and fused reductions equal em_reduce of the
 * evaluated producer, and host scalars travel by value in CUDA kernel
 * arguments (rendered source and packed argument, no GPU needed). */
#include "backend/cuda/cuda_internal.h"
#include "codegen/render.h"
#include "codegen/render_reduce.h"
#include "core/core.h"
#include "ctest.h"
#include "graph/expr.h"

#include <stdlib.h>

static const em_device cpu = {EM_CPU, 0};

static em_array iota(em_dtype dt, int nd, const int64_t *shape, double scale) {
    em_array d, a;
    CHECK(em_array_empty(&d, EM_FLOAT64, nd, shape, cpu) == EM_OK);
    for (int64_t i = 0; i < em_array_size(&d); i++)
        ((double *)d.data)[i] = (double)(i % 97) * scale - 3;
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
        em_expr *m = op2(EM_OP_MULTIPLY, ex, eh), *a = op2(EM_OP_ADD, m, ey),
                *r = op2(EM_OP_MULTIPLY, a, ex);
        em_array fused = {0}, t1 = {0}, t2 = {0}, want = {0};
        CHECK(em_expr_eval(r, "test", &fused) == EM_OK);
        const em_array *i1[2] = {&x, &hh}, *i2[2] = {&t1, &y}, *i3[2] = {&t2, &x};
        CHECK(em_ufunc(EM_OP_MULTIPLY, 2, i1, EM_NDTYPES, &t1) == EM_OK);
        CHECK(em_ufunc(EM_OP_ADD, 2, i2, EM_NDTYPES, &t2) == EM_OK);
        CHECK(em_ufunc(EM_OP_MULTIPLY, 2, i3, EM_NDTYPES, &want) == EM_OK);
        CHECK(same_bytes(&fused, &want));
        CHECK(r->depth == 3 && r->nnodes == 7 &&
              em_expr_nleaves(r, 15) == 3); /* x counted twice in the tree */
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
    em_expr *ex1 = leaf(&x), *ex2 = leaf(&x); /* two leaves of one view: one operand */
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
    em_expr_decref(r), em_expr_decref(sq1), em_expr_decref(sq2), em_expr_decref(ex1),
        em_expr_decref(ex2);
    em_array_release(&got), em_array_release(&v), em_array_release(&x), em_array_release(&y);
}

/* sum(x * x, axis=(1, 2)) fused vs em_reduce of the evaluated product. */
static void test_fused_reduction_equals_unfused(void) {
    int64_t s[3] = {64, 5, 333};
    em_reduce_op ops[] = {EM_RED_SUM,  EM_RED_PROD, EM_RED_MAX,
                          EM_RED_MEAN, EM_RED_VAR,  EM_RED_ARGMIN};
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
            CHECK(em_expr_reduce(ops[k], sq, naxes, axes, false, EM_NDTYPES, 0.0, &got, &fused) ==
                  EM_OK);
            CHECK(fused && same_bytes(&got, &want));
            em_array_release(&want), em_array_release(&got);
        }
        /* A reduced leading axis with few kept values fetches bands of rows
         * (fuse_reduce.c); axes neither a prefix nor a suffix are not fused,
         * and still right. */
        int ax0[1] = {0}, ax02[2] = {0, 2};
        em_array want = {0}, got = {0};
        bool fused = false;
        CHECK(em_expr_reduce_fuses(EM_RED_SUM, sq, 1, ax0));
        CHECK(em_reduce(EM_RED_SUM, &prod, 1, ax0, true, EM_NDTYPES, 0.0, &want) == EM_OK);
        CHECK(em_expr_reduce(EM_RED_SUM, sq, 1, ax0, true, EM_NDTYPES, 0.0, &got, &fused) == EM_OK);
        CHECK(fused && same_bytes(&got, &want));
        em_array_release(&want), em_array_release(&got);
        fused = true;
        CHECK(!em_expr_reduce_fuses(EM_RED_SUM, sq, 2, ax02));
        CHECK(em_reduce(EM_RED_SUM, &prod, 2, ax02, true, EM_NDTYPES, 0.0, &want) == EM_OK);
        CHECK(em_expr_reduce(EM_RED_SUM, sq, 2, ax02, true, EM_NDTYPES, 0.0, &got, &fused) ==
              EM_OK);
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
    CHECK(em_render_ew(&em_dialect_cuda, &p, &src) == EM_OK);
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

/* A fused reduction kernel: sum(sqrt(x * 2.5 + y), axes) where x has the
 * producer's shape, y broadcasts and 2.5 is a host scalar, on a "device"
 * (host memory labelled CUDA: planning and rendering never read it).  The
 * argument and key are taken here, while the tree (on this stack) lives. */
static int g_warp, g_plain; /* render_fused: the warp form; without the producer */

static em_status render_fused(em_reduce_op op, em_dtype dt, int naxes, const int *axes,
                              em_sbuf *src, em_rplan *p, unsigned char *args, size_t *nargs,
                              em_sbuf *key) {
    static char mem[8 * 16 * 2 * 6 * 7];
    em_device fake = {EM_CUDA, 0};
    int64_t sh[3] = {5, 6, 7}, ysh[2] = {1, 7}, osh[3];
    em_array x = {0}, y = {0}, a = {0}, o = {0}, h = scalar(2.5), hh = {0};
    em_status s = em_array_wrap(&x, mem, dt, 3, sh, NULL, fake, NULL, NULL);
    if (s == EM_OK) s = em_array_wrap(&y, mem, dt, 2, ysh, NULL, fake, NULL, NULL);
    if (s == EM_OK) s = em_astype(&h, dt, &hh);
    int on = 0;
    for (int i = 0; i < 3; i++) {
        bool red = false;
        for (int j = 0; j < naxes; j++) red = red || axes[j] == i;
        if (!red) osh[on++] = sh[i];
    }
    em_node lx, ly, lh, m, ad, sq;
    em_node_leaf(&lx, &x), em_node_leaf(&ly, &y), em_node_leaf(&lh, &hh);
    em_dtype loop, odt, l2, o2;
    CHECK(em_op_resolve(EM_OP_MULTIPLY, dt, &loop, &odt) == EM_OK);
    m = (em_node){.op = EM_OP_MULTIPLY, .loop = loop, .dtype = odt, .nin = 2, .in = {&lx, &lh}};
    ad = (em_node){.op = EM_OP_ADD, .loop = loop, .dtype = odt, .nin = 2, .in = {&m, &ly}};
    CHECK(em_op_resolve(EM_OP_SQRT, odt, &l2, &o2) == EM_OK);
    sq = (em_node){.op = EM_OP_SQRT, .loop = l2, .dtype = o2, .nin = 1, .in = {&ad}};
    em_dtype acc = op == EM_RED_ARGMAX ? o2 : o2 == EM_FLOAT16 ? EM_FLOAT32 : o2;
    em_dtype odtype = op == EM_RED_ARGMAX ? EM_INT64 : acc;
    if (s == EM_OK) s = em_array_wrap(&a, mem, o2, 3, sh, NULL, fake, NULL, NULL);
    if (s == EM_OK) s = em_array_wrap(&o, mem, odtype, on, osh, NULL, fake, NULL, NULL);
    if (s == EM_OK) s = em_rplan_make(op, &a, naxes, axes, acc, 0, &o, p);
    if (s == EM_OK) s = em_rplan_fuse(p, &sq, &a, naxes, axes, &o);
    if (s == EM_OK) {
        p->warp = g_warp;
        if (g_plain) p->root = NULL;
        s = em_render_reduce(&em_dialect_cuda, p, src);
    }
    if (s == EM_OK && args) *nargs = em_rplan_args(p, args, 2048); /* while the tree lives */
    if (s == EM_OK && key) em_rplan_key(p, key);
    em_array_release(&x), em_array_release(&y), em_array_release(&a), em_array_release(&o);
    em_array_release(&h), em_array_release(&hh);
    return s;
}

static void test_fused_reduction_kernels(void) {
    int ax1[1] = {2}, ax2[2] = {0, 2};
    em_rplan p;
    em_sbuf src = {0};
    unsigned char args[2048];
    size_t n = 0;
    em_sbuf key = {0};
    CHECK(render_fused(EM_RED_SUM, EM_FLOAT32, 1, ax1, &src, &p, args, &n, &key) == EM_OK && src.s);
    CHECK(p.root && p.tree.nops == 4 && p.tree.cls[2] == 'P');
    CHECK(src.s && strstr(src.s, "em_at(p, lb, k + e)") &&
          strstr(src.s, "*(const float *)&p.ld[2]"));
    size_t base = 8 * (3 + 3 + 1 + 2 * (size_t)p.no + 2 * (size_t)p.ni);
    float v;
    memcpy(&v, args + base + 16, 4);
    CHECK(n == base + 8 * 4 * (1 + (size_t)p.no + (size_t)p.ni));
    CHECK(v == 2.5f);
    /* leaf y (shape (1, 7)) steps 0 over the kept dims, 4 bytes along the
     * reduced one; x and y both step over the kept (5, 6) whole: one dim */
    CHECK(p.no == 1 && p.oshape[0] == 30 && p.ni == 1);
    CHECK(p.lost[3][0] == 0 && p.list[3][0] == 4 && p.lost[1][0] == 28);
    CHECK(key.s && strstr(key.s, "|F"));
    em_sbuf_free(&key), em_sbuf_free(&src);
    if ((ctest_compilers_off() || em_nvrtc_init() != EM_OK))
        return; /* the compiles need libnvrtc */
    em_reduce_op ops[] = {EM_RED_SUM,  EM_RED_MAX, EM_RED_ARGMAX, EM_RED_MEAN,
                          EM_RED_PROD, EM_RED_VAR, EM_RED_ANY};
    em_dtype dts[] = {EM_FLOAT32, EM_FLOAT64, EM_FLOAT16};
    for (size_t i = 0; i < sizeof ops / sizeof *ops; i++)
        for (size_t j = 0; j < sizeof dts / sizeof *dts; j++) {
            em_sbuf s2 = {0};
            bool two = ops[i] != EM_RED_ARGMAX && j != 1;
            CHECK(render_fused(ops[i], dts[j], two ? 2 : 1, two ? ax2 : ax1, &s2, &p, NULL, NULL,
                               NULL) == EM_OK);
            void *cubin = NULL;
            size_t nb = 0;
            em_status s = em_cuda_compile(s2.s, 90, "fused reduction", &cubin, &nb);
            if (s != EM_OK)
                fprintf(stderr, "%s\n%.3000s\n", em_last_error(),
                        s2.s + strlen(em_render_prelude()));
            CHECK(s == EM_OK);
            free(cubin);
            em_sbuf_free(&s2);
            /* The warp-per-output form, fused and plain (shuffled states of
             * every size: 1-byte bools, structs). */
            for (g_plain = 0; g_plain < 2; g_plain++) {
                em_sbuf s3 = {0};
                g_warp = 1;
                CHECK(render_fused(ops[i], dts[j], two ? 2 : 1, two ? ax2 : ax1, &s3, &p, NULL,
                                   NULL, NULL) == EM_OK);
                g_warp = 0;
                CHECK(s3.s && strstr(s3.s, "#define EM_RW 32"));
                cubin = NULL;
                s = em_cuda_compile(s3.s, 90, "warp reduction", &cubin, &nb);
                if (s != EM_OK) fprintf(stderr, "%s\n", em_last_error());
                CHECK(s == EM_OK);
                free(cubin);
                em_sbuf_free(&s3);
            }
            g_plain = 0;
        }
}

/* The elementwise kernel with a by-value operand compiles. */
static void test_by_value_kernel_compiles(void) {
    if ((ctest_compilers_off() || em_nvrtc_init() != EM_OK)) return;
    static char mem[8 * 100];
    int64_t s[2] = {10, 10};
    em_device fake = {EM_CUDA, 0};
    em_dtype dts[] = {EM_BOOL, EM_INT8, EM_FLOAT16, EM_FLOAT32, EM_INT64, EM_COMPLEX64};
    for (size_t i = 0; i < sizeof dts / sizeof *dts; i++) {
        em_array x = {0}, o = {0}, h = scalar(3.0), hh = {0};
        CHECK(em_array_wrap(&x, mem, dts[i], 2, s, NULL, fake, NULL, NULL) == EM_OK);
        CHECK(em_array_wrap(&o, mem, dts[i], 2, s, NULL, fake, NULL, NULL) == EM_OK);
        CHECK(em_astype(&h, dts[i], &hh) == EM_OK);
        em_dtype loop, odt;
        em_op op = dts[i] == EM_BOOL ? EM_OP_LOGICAL_AND : EM_OP_ADD;
        CHECK(em_op_resolve(op, dts[i], &loop, &odt) == EM_OK);
        em_node lx, lh, r = {.op = op, .loop = loop, .dtype = odt, .nin = 2};
        em_node_leaf(&lx, &x), em_node_leaf(&lh, &hh);
        r.in[0] = &lh, r.in[1] = &lx;
        em_kplan p;
        em_sbuf src = {0};
        CHECK(em_kplan_make(&r, &o, &p) == EM_OK && p.cls[1] == 'P');
        CHECK(em_render_full(&em_dialect_cuda, &p, &src) == EM_OK);
        void *cubin = NULL;
        size_t nb = 0;
        em_status st = em_cuda_compile(src.s, 90, "by value", &cubin, &nb);
        if (st != EM_OK) fprintf(stderr, "%s\n", em_last_error());
        CHECK(st == EM_OK);
        free(cubin);
        em_sbuf_free(&src);
        em_array_release(&x), em_array_release(&o), em_array_release(&h), em_array_release(&hh);
    }
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

/* The launch path's key: em_kplan_key_into measures a key that does not fit
 * and writes the same characters em_kplan_key appends to an sbuf (also after
 * text already there); em_key_hash tells different keys apart. */
static void test_key_into_matches_sbuf_key(void) {
    static char mem[4 * 10];
    int64_t s[1] = {10};
    em_device fake = {EM_CUDA, 0};
    em_array x = {0}, o = {0};
    CHECK(em_array_wrap(&x, mem, EM_FLOAT32, 1, s, NULL, fake, NULL, NULL) == EM_OK);
    CHECK(em_array_wrap(&o, mem, EM_FLOAT32, 1, s, NULL, fake, NULL, NULL) == EM_OK);
    enum { DEPTH = 120 }; /* a chain of negatives: a key of over 600 characters */
    em_node leaf, chain[DEPTH];
    em_node_leaf(&leaf, &x);
    for (int i = 0; i < DEPTH; i++)
        chain[i] = (em_node){.op = EM_OP_NEGATIVE,
                             .loop = EM_FLOAT32,
                             .dtype = EM_FLOAT32,
                             .nin = 1,
                             .in = {i ? &chain[i - 1] : &leaf}};
    em_kplan p;
    CHECK(em_kplan_make(&chain[DEPTH - 1], &o, &p) == EM_OK);
    em_sbuf key = {0};
    em_kplan_key(&p, &key);
    CHECK(key.s && key.len > 512 && strlen(key.s) == key.len);
    char small[64];
    memset(small, 'x', sizeof small);
    size_t n = em_kplan_key_into(&p, small, sizeof small);
    CHECK(n == key.len && !memcmp(small, key.s, sizeof small)); /* measured, prefix written */
    char big[1024];
    CHECK(em_kplan_key_into(&p, big, sizeof big) == key.len && !strcmp(big, key.s));
    char exact[1024];
    CHECK(em_kplan_key_into(&p, exact, key.len + 1) == key.len && !strcmp(exact, key.s));
    em_sbuf pre = {0};
    em_sbuf_printf(&pre, "prefix:");
    em_kplan_key(&p, &pre);
    CHECK(pre.s && !strncmp(pre.s, "prefix:", 7) && !strcmp(pre.s + 7, key.s));
    char onstack[16]; /* a fixed buffer too small: moved to the heap */
    em_sbuf st = em_sbuf_on(onstack, sizeof onstack);
    em_kplan_key(&p, &st);
    CHECK(st.s && !st.fixed && !strcmp(st.s, key.s));
    /* One node fewer: another key, another hash; the same key, the same hash. */
    em_kplan q;
    CHECK(em_kplan_make(&chain[DEPTH - 2], &o, &q) == EM_OK);
    size_t m = em_kplan_key_into(&q, big, sizeof big);
    CHECK(m != key.len && em_key_hash(big, m) != em_key_hash(key.s, key.len));
    CHECK(em_key_hash(key.s, key.len) == em_key_hash(exact, key.len));
    CHECK(em_key_hash("abcdefgh1", 9) != em_key_hash("abcdefgh2", 9)); /* the tail counts */
    em_sbuf_free(&key), em_sbuf_free(&pre), em_sbuf_free(&st);
    em_array_release(&x), em_array_release(&o);
}

int main(void) {
    RUN(test_expression_equals_eager_chain);
    RUN(test_limits_are_named);
    RUN(test_reads_and_shared_leaves);
    RUN(test_fused_reduction_equals_unfused);
    RUN(test_host_scalar_by_value);
    RUN(test_key_into_matches_sbuf_key);
    RUN(test_fused_reduction_kernels);
    RUN(test_by_value_kernel_compiles);
    RUN(test_bad_arguments);
    return ctest_summary();
}
