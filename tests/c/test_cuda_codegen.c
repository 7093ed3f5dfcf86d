/* CUDA codegen without a GPU: golden sources, NVRTC compiles of every op,
 * and the disk kernel cache.  NVRTC tests skip when libnvrtc is missing.
 * EMBER_REGEN_GOLDEN=1 rewrites tests/golden/ from the current renderer. */
#include "backend/cuda/cuda_internal.h"
#include "codegen/diskcache.h"
#include "codegen/render.h"
#include "codegen/philox.h"
#include "codegen/render_gather.h"
#include "codegen/render_index.h"
#include "codegen/render_random.h"
#include "codegen/render_reduce.h"
#include "codegen/render_scan.h"
#include "ctest.h"

#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

static const em_device cpu = {EM_CPU, 0};

static void mk(em_array *a, em_dtype dt, int nd, const int64_t *shape) {
    CHECK(em_array_empty(a, dt, nd, shape, cpu) == EM_OK);
}

static void op_node(em_node *n, em_op op, int nin, const em_node *x, const em_node *y,
                    const em_node *z) {
    em_dtype p = op == EM_OP_WHERE ? em_promote(y->dtype, z->dtype)
                 : nin > 1         ? em_promote(x->dtype, y->dtype)
                                   : x->dtype,
             loop, odt;
    CHECK(em_op_resolve(op, p, &loop, &odt) == EM_OK);
    *n = (em_node){.op = op, .loop = loop, .dtype = odt, .nin = nin, .in = {x, y, z}};
}

static char *golden_path(const char *name) {
    static char path[4096];
    const char *f = __FILE__, *slash = strrchr(f, '/');
    snprintf(path, sizeof path, "%.*s/../golden/%s", (int)(slash ? slash - f : 1), slash ? f : ".",
             name);
    return path;
}

/* Compare the rendered kernel (prelude excluded) with tests/golden/name. */
static void golden(const char *name, const em_node *root, const em_array *out) {
    em_kplan p;
    em_sbuf s = {0};
    CHECK(em_kplan_make(root, out, &p) == EM_OK);
    CHECK(em_render_ew(&em_dialect_cuda, &p, &s) == EM_OK && s.s);
    const char *path = golden_path(name);
    if (getenv("EMBER_REGEN_GOLDEN")) {
        FILE *f = fopen(path, "w");
        CHECK(f && fputs(s.s, f) >= 0);
        if (f) fclose(f);
    }
    FILE *f = fopen(path, "r");
    CHECK(f != NULL);
    char want[16384] = {0};
    if (f) {
        size_t n = fread(want, 1, sizeof want - 1, f);
        want[n] = 0;
        fclose(f);
    }
    if (strcmp(want, s.s)) fprintf(stderr, "golden %s differs; got:\n%s\n", name, s.s);
    CHECK(!strcmp(want, s.s));
    em_sbuf_free(&s);
}

/* A builder on the caller's buffer stays there while it fits, then moves
 * its text to the heap (putc and printf alike); free leaves the caller's. */
static void test_sbuf_on_caller_buffer(void) {
    char small[8];
    em_sbuf b = em_sbuf_on(small, sizeof small);
    em_sbuf_putc(&b, 'a'), em_sbuf_putc(&b, 'b');
    CHECK(b.s == small && !strcmp(b.s, "ab"));
    em_sbuf_printf(&b, "%s", "cdefghij");
    CHECK(b.s != small && !b.fixed && !strcmp(b.s, "abcdefghij") && b.len == 10);
    em_sbuf_free(&b);
    em_sbuf c = em_sbuf_on(small, sizeof small);
    for (int i = 0; i < 300; i++) em_sbuf_putc(&c, (char)('a' + i % 26));
    CHECK(c.s != small && c.len == 300 && c.s[299] == 'a' + 299 % 26 && c.s[300] == 0);
    em_sbuf_free(&c);
    em_sbuf d = em_sbuf_on(small, sizeof small);
    em_sbuf_printf(&d, "%d", 42);
    CHECK(d.s == small && !strcmp(small, "42"));
    em_sbuf_free(&d); /* the caller's buffer: nothing freed */
}

static void test_golden_add_contiguous(void) {
    int64_t sh[1] = {1000};
    em_array a, b, o;
    mk(&a, EM_FLOAT32, 1, sh), mk(&b, EM_FLOAT32, 1, sh), mk(&o, EM_FLOAT32, 1, sh);
    em_node la, lb, r;
    em_node_leaf(&la, &a), em_node_leaf(&lb, &b);
    op_node(&r, EM_OP_ADD, 2, &la, &lb, NULL);
    golden("add_f32_contig.cu", &r, &o);
    em_array_release(&a), em_array_release(&b), em_array_release(&o);
}

static void test_golden_where_broadcast_mixed(void) {
    int64_t sc[3] = {3, 1, 5}, sa[2] = {4, 5}, sb[3] = {3, 4, 1}, so[3] = {3, 4, 5}, s0[1] = {1};
    em_array c, a, b, two, o;
    mk(&c, EM_BOOL, 3, sc), mk(&a, EM_INT64, 2, sa), mk(&b, EM_FLOAT64, 3, sb);
    mk(&two, EM_INT64, 0, s0), mk(&o, EM_FLOAT64, 3, so);
    em_node lc, la, lb, l2, m, r;
    em_node_leaf(&lc, &c), em_node_leaf(&la, &a), em_node_leaf(&lb, &b), em_node_leaf(&l2, &two);
    op_node(&m, EM_OP_MULTIPLY, 2, &la, &l2, NULL);
    op_node(&r, EM_OP_WHERE, 3, &lc, &m, &lb);
    golden("where_broadcast_i64_f64.cu", &r, &o);
    em_array_release(&c), em_array_release(&a), em_array_release(&b);
    em_array_release(&two), em_array_release(&o);
}

static void test_golden_strided_3d(void) {
    int64_t sh[3] = {4, 6, 8};
    em_array a, t, v, o;
    mk(&a, EM_FLOAT16, 3, sh), mk(&o, EM_FLOAT32, 3, (int64_t[]){8, 6, 4});
    int perm[3] = {2, 1, 0};
    CHECK(em_view_transpose(&a, perm, &t) == EM_OK);
    em_index_item it[3] = {{EM_IX_SLICE, 0, INT64_MAX, 1},
                           {EM_IX_SLICE, INT64_MAX, INT64_MIN, -1},
                           {EM_IX_SLICE, 0, INT64_MAX, 1}};
    CHECK(em_view_index(&t, 3, it, &v) == EM_OK);
    em_node lv, r;
    em_node_leaf(&lv, &v);
    op_node(&r, EM_OP_SQRT, 1, &lv, NULL, NULL);
    golden("sqrt_f16_strided3d.cu", &r, &o);
    em_array_release(&a), em_array_release(&t), em_array_release(&v), em_array_release(&o);
}

/* Overwrite the last two letters of each `word` with a tag for op. */
static void rename_apart(char *s, const char *word, int op) {
    size_t n = strlen(word);
    for (char *q = s; (q = strstr(q, word)) != NULL; q += n) {
        q[n - 2] = (char)('A' + op % 26);
        q[n - 1] = (char)('a' + op / 26);
    }
}

/* Every op over a few dtypes through NVRTC for sm_90: one program per dtype,
 * the kernels renamed apart. */
static void compile_all_ops(em_dtype dt, int *ncompiled) {
    int64_t sh[2] = {7, 3};
    em_array a, b, c, o;
    mk(&a, dt, 2, sh), mk(&b, dt, 2, sh), mk(&c, EM_BOOL, 2, sh);
    em_sbuf all = {0};
    em_sbuf_printf(&all, "%s", em_render_prelude());
    for (int op = 0; op < EM_NOPS; op++) {
        em_dtype loop, odt;
        int nin = em_op_get(op)->nin;
        if (em_op_resolve(op, dt, &loop, &odt) != EM_OK) continue;
        CHECK(em_array_empty(&o, odt, 2, sh, cpu) == EM_OK);
        em_node la, lb, lc, r;
        em_node_leaf(&la, op == EM_OP_WHERE ? &c : &a), em_node_leaf(&lb, &b),
            em_node_leaf(&lc, &a);
        r = (em_node){.op = op, .loop = loop, .dtype = odt, .nin = nin, .in = {&la, &lb, &lc}};
        em_kplan p;
        em_sbuf k = {0};
        CHECK(em_kplan_make(&r, &o, &p) == EM_OK &&
              em_render_ew(&em_dialect_cuda, &p, &k) == EM_OK);
        /* Rename em_kernel / em_args apart: kernel_<op>. */
        rename_apart(k.s, "em_args", op);
        rename_apart(k.s, EM_KNAME, op);
        em_sbuf_printf(&all, "%s", k.s);
        em_sbuf_free(&k);
        em_array_release(&o);
        ++*ncompiled;
    }
    void *cubin = NULL;
    size_t n = 0;
    em_status s = em_cuda_compile(all.s, 90, em_dtype_get(dt)->name, &cubin, &n);
    if (s != EM_OK) fprintf(stderr, "%.3000s\n", em_last_error());
    CHECK(s == EM_OK && n > 0);
    free(cubin);
    em_sbuf_free(&all);
    em_array_release(&a), em_array_release(&b), em_array_release(&c);
}

/* NumPy's result dtype for a reduction of dt. */
static em_dtype red_out(em_reduce_op op, em_dtype dt) {
    char k = em_dtype_get(dt)->kind;
    switch (op) {
    case EM_RED_SUM:
    case EM_RED_PROD: return k == 'b' || k == 'i' ? EM_INT64 : k == 'u' ? EM_UINT64 : dt;
    case EM_RED_MEAN:
    case EM_RED_VAR:
    case EM_RED_STD:
        return k == 'f' ? dt : k == 'c' ? (op == EM_RED_MEAN ? dt : em_real_for(dt)) : EM_FLOAT64;
    case EM_RED_ARGMIN:
    case EM_RED_ARGMAX:
    case EM_RED_COUNT_NONZERO: return EM_INT64;
    case EM_RED_ANY:
    case EM_RED_ALL: return EM_BOOL;
    default: return dt;
    }
}

static em_status render_red(em_reduce_op op, em_dtype dt, int naxes, const int *axes,
                            em_sbuf *src) {
    int64_t sh[3] = {5, 6, 7}, osh[3];
    em_array a, o;
    mk(&a, dt, 3, sh);
    int on = 0;
    for (int i = 0; i < 3; i++) {
        bool red = naxes < 0;
        for (int j = 0; j < naxes; j++) red = red || axes[j] == i;
        if (!red) osh[on++] = sh[i];
    }
    mk(&o, red_out(op, dt), on, osh);
    em_rplan p;
    em_status s = em_rplan_make(op, &a, naxes, axes, EM_NDTYPES, 0, &o, &p);
    if (s == EM_OK) s = em_render_reduce(&em_dialect_cuda, &p, src);
    em_array_release(&a), em_array_release(&o);
    return s;
}

/* Compare a rendered reduction (prelude excluded) with tests/golden/name. */
static void golden_body(const char *name, const char *src) {
    const char *body = src + strlen(em_render_prelude());
    const char *path = golden_path(name);
    if (getenv("EMBER_REGEN_GOLDEN")) {
        FILE *f = fopen(path, "w");
        CHECK(f && fputs(body, f) >= 0);
        if (f) fclose(f);
    }
    FILE *f = fopen(path, "r");
    char want[16384] = {0};
    CHECK(f != NULL);
    if (f) want[fread(want, 1, sizeof want - 1, f)] = 0, fclose(f);
    if (strcmp(want, body)) fprintf(stderr, "golden %s differs; got:\n%s\n", name, body);
    CHECK(!strcmp(want, body));
}

static void test_golden_sum_reduction(void) {
    em_sbuf s = {0};
    int axes[1] = {1};
    CHECK(render_red(EM_RED_SUM, EM_FLOAT32, 1, axes, &s) == EM_OK && s.s);
    if (s.s) golden_body("sum_f32_axis1.cu", s.s);
    em_sbuf_free(&s);
}

/* sum(x * x - b, axis=1) with b broadcast along the reduced axis: the
 * producer inside the reduction, its leaves loaded wide or once per unit. */
static void test_golden_fused_reduction(void) {
    int64_t sx[2] = {4, 8}, sb[2] = {4, 1}, so[1] = {4};
    em_array x, b, a, o;
    mk(&x, EM_FLOAT32, 2, sx), mk(&b, EM_FLOAT32, 2, sb), mk(&a, EM_FLOAT32, 2, sx),
        mk(&o, EM_FLOAT32, 1, so);
    em_node lx, lb, sq, r;
    em_node_leaf(&lx, &x), em_node_leaf(&lb, &b);
    op_node(&sq, EM_OP_MULTIPLY, 2, &lx, &lx, NULL);
    op_node(&r, EM_OP_SUBTRACT, 2, &sq, &lb, NULL);
    int axes[1] = {1};
    static em_rplan p;
    em_sbuf s = {0};
    em_status st = em_rplan_make(EM_RED_SUM, &a, 1, axes, EM_NDTYPES, 0, &o, &p);
    if (st == EM_OK) st = em_rplan_fuse(&p, &r, &a, 1, axes, &o);
    if (st == EM_OK) st = em_render_reduce(&em_dialect_cuda, &p, &s);
    CHECK(st == EM_OK && s.s);
    if (s.s) golden_body("sum_fused_f32_axis1.cu", s.s);
    if (s.s && em_nvrtc_init() == EM_OK) { /* on a machine with NVRTC: it compiles */
        void *cubin = NULL;
        size_t n = 0;
        st = em_cuda_compile(s.s, 90, "fused reduction", &cubin, &n);
        if (st != EM_OK) fprintf(stderr, "%.2000s\n", em_last_error());
        CHECK(st == EM_OK);
        free(cubin);
    }
    em_sbuf_free(&s);
    em_array_release(&x), em_array_release(&b), em_array_release(&a), em_array_release(&o);
}

/* Seed 004's kernel: sum(x * x, axis=-1) of a C-contiguous float64
 * (3, 40, 100), one warp per row: the kept dims merged into one (no
 * division per row), 32-bit loop indices, 16 groups in flight. */
static void test_golden_seed_reduction(void) {
    int64_t sx[3] = {3, 40, 100}, so[2] = {3, 40};
    em_array x, a, o;
    mk(&x, EM_FLOAT64, 3, sx), mk(&a, EM_FLOAT64, 3, sx), mk(&o, EM_FLOAT64, 2, so);
    em_node lx, sq;
    em_node_leaf(&lx, &x);
    op_node(&sq, EM_OP_MULTIPLY, 2, &lx, &lx, NULL);
    int axes[1] = {2};
    static em_rplan p;
    em_sbuf s = {0};
    em_status st = em_rplan_make(EM_RED_SUM, &a, 1, axes, EM_NDTYPES, 0, &o, &p);
    if (st == EM_OK) st = em_rplan_fuse(&p, &sq, &a, 1, axes, &o);
    p.warp = 1;
    if (st == EM_OK) st = em_render_reduce(&em_dialect_cuda, &p, &s);
    CHECK(st == EM_OK && s.s && p.no == 1 && p.oshape[0] == 120);
    if (s.s) golden_body("sum_sq_f64_warp.cu", s.s);
    if (s.s && em_nvrtc_init() == EM_OK) {
        void *cubin = NULL;
        size_t n = 0;
        st = em_cuda_compile(s.s, 90, "seed 004 reduction", &cubin, &n);
        if (st != EM_OK) fprintf(stderr, "%.2000s\n", em_last_error());
        CHECK(st == EM_OK);
        free(cubin);
    }
    em_sbuf_free(&s);
    em_array_release(&x), em_array_release(&a), em_array_release(&o);
}

/* Every reduction compiles (all ops for two dtypes, a few for the rest; the
 * integer-only ops for int64). */
static void test_nvrtc_reductions(void) {
    if ((ctest_compilers_off() || em_nvrtc_init() != EM_OK)) return;
    static const em_dtype all[] = {EM_FLOAT32, EM_INT64};
    static const em_dtype some[] = {EM_BOOL, EM_UINT8, EM_FLOAT16, EM_FLOAT64, EM_COMPLEX128};
    static const em_reduce_op some_ops[] = {EM_RED_SUM, EM_RED_MAX, EM_RED_ARGMIN, EM_RED_MEAN};
    int axes[2] = {0, 2};
    for (int pass = 0; pass < 2; pass++)
        for (size_t i = 0; i < (pass ? sizeof some / sizeof *some : 2); i++)
            for (int op = 0; op < EM_RED_CUMSUM; op++) {
                em_dtype dt = pass ? some[i] : all[i];
                bool take = !pass;
                for (size_t j = 0; pass && j < sizeof some_ops / sizeof *some_ops; j++)
                    take = take || (int)some_ops[j] == op;
                /* the bitwise ops, gcd and lcm take integers (and bool) only:
                 * em_reduce refuses the rest before anything is rendered; and
                 * logical_xor's loop is bool (em_reduce casts other dtypes to
                 * their truth first), which this direct plan does not do */
                bool intlike = dt == EM_INT64 || dt == EM_UINT8 || dt == EM_BOOL;
                bool ints_only = (op >= EM_RED_BITWISE_AND && op <= EM_RED_LOGICAL_XOR) ||
                                 op == EM_RED_GCD || op == EM_RED_LCM;
                if (!take || (ints_only && !intlike)) continue;
                em_sbuf src = {0};
                void *cubin = NULL;
                size_t n = 0;
                CHECK(render_red(op, dt, op % 2 ? 2 : -1, axes, &src) == EM_OK);
                em_status s = em_cuda_compile(src.s, 90, "reduction", &cubin, &n);
                if (s != EM_OK)
                    fprintf(stderr, "op %d dtype %s: %.2000s\n", op, em_dtype_get(dt)->name,
                            em_last_error());
                CHECK(s == EM_OK);
                free(cubin);
                em_sbuf_free(&src);
            }
}

static void test_nvrtc_take_put(void) {
    if ((ctest_compilers_off() || em_nvrtc_init() != EM_OK)) return;
    int64_t sh[2] = {4, 5}, ish[1] = {3};
    static const em_dtype dts[] = {EM_BOOL, EM_INT16, EM_FLOAT16, EM_FLOAT64, EM_COMPLEX128};
    for (size_t i = 0; i < sizeof dts / sizeof *dts; i++)
        for (int put = 0; put < 2; put++) {
            em_array a, idx, v;
            mk(&a, dts[i], 2, sh), mk(&idx, EM_INT64, 1, ish), mk(&v, EM_FLOAT32, 1, ish);
            em_sbuf src = {0};
            void *cubin = NULL;
            size_t n = 0;
            CHECK(em_render_index(&em_dialect_cuda, put, a.dtype, put ? v.dtype : a.dtype, 2, 1,
                                  &src) == EM_OK);
            em_status s = em_cuda_compile(src.s, 90, "take/put", &cubin, &n);
            if (s != EM_OK) fprintf(stderr, "%.2000s\n", em_last_error());
            CHECK(s == EM_OK);
            free(cubin), em_sbuf_free(&src);
            em_array_release(&a), em_array_release(&idx), em_array_release(&v);
        }
}

/* Every dtype-to-dtype conversion compiles: copy(a) of each dtype into an
 * output of each dtype, all in one program. */
static void test_nvrtc_all_casts(void) {
    if ((ctest_compilers_off() || em_nvrtc_init() != EM_OK)) return;
    int64_t sh[1] = {8};
    em_sbuf all = {0};
    em_sbuf_printf(&all, "%s", em_render_prelude());
    for (int from = 0; from < EM_NDTYPES; from++)
        for (int to = 0; to < EM_NDTYPES; to++) {
            em_array a, o;
            mk(&a, from, 1, sh), mk(&o, to, 1, sh);
            em_node la, r = {.op = EM_OP_COPY, .loop = from, .dtype = from, .nin = 1, .in = {&la}};
            em_node_leaf(&la, &a);
            em_kplan p;
            em_sbuf k = {0};
            CHECK(em_kplan_make(&r, &o, &p) == EM_OK &&
                  em_render_ew(&em_dialect_cuda, &p, &k) == EM_OK);
            int tag = from * EM_NDTYPES + to;
            rename_apart(k.s, "em_args", tag);
            rename_apart(k.s, EM_KNAME, tag);
            em_sbuf_printf(&all, "%s", k.s);
            em_sbuf_free(&k);
            em_array_release(&a), em_array_release(&o);
        }
    void *cubin = NULL;
    size_t n = 0;
    em_status s = em_cuda_compile(all.s, 90, "casts", &cubin, &n);
    if (s != EM_OK) fprintf(stderr, "%.3000s\n", em_last_error());
    CHECK(s == EM_OK);
    free(cubin), em_sbuf_free(&all);
}

/* Random123's known-answer vectors for philox4x32_10. */
static void test_philox_known_answers(void) {
    uint32_t c1[4] = {0, 0, 0, 0};
    em_philox(c1, 0, 0);
    CHECK(c1[0] == 0x6627e8d5u && c1[1] == 0xe169c58du && c1[2] == 0xbc57ac4cu &&
          c1[3] == 0x9b00dbd8u);
    uint32_t c2[4] = {0xffffffffu, 0xffffffffu, 0xffffffffu, 0xffffffffu};
    em_philox(c2, 0xffffffffu, 0xffffffffu);
    CHECK(c2[0] == 0x408f276du && c2[1] == 0x41c83b0eu && c2[2] == 0xa20bc7c6u &&
          c2[3] == 0x6d5451fdu);
    uint32_t c3[4] = {0x243f6a88u, 0x85a308d3u, 0x13198a2eu, 0x03707344u};
    em_philox(c3, 0xa4093822u, 0x299f31d0u);
    CHECK(c3[0] == 0xd16cfe09u && c3[1] == 0x94fdccebu && c3[2] == 0x5001e420u &&
          c3[3] == 0x24126ea1u);
}

static void test_nvrtc_random(void) {
    if ((ctest_compilers_off() || em_nvrtc_init() != EM_OK)) return;
    static const struct {
        em_random_kind k;
        em_dtype dt;
    } cases[] = {
        {EM_RAND_BITS, EM_UINT32},     {EM_RAND_BITS, EM_UINT64},    {EM_RAND_UNIFORM, EM_FLOAT32},
        {EM_RAND_UNIFORM, EM_FLOAT64}, {EM_RAND_NORMAL, EM_FLOAT32}, {EM_RAND_NORMAL, EM_FLOAT64},
        {EM_RAND_INTEGERS, EM_BOOL},   {EM_RAND_INTEGERS, EM_INT8},  {EM_RAND_INTEGERS, EM_UINT64}};
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        em_sbuf src = {0};
        void *cubin = NULL;
        size_t n = 0;
        CHECK(em_render_random(&em_dialect_cuda, cases[i].k, cases[i].dt, &src) == EM_OK);
        em_status s = em_cuda_compile(src.s, 90, "philox", &cubin, &n);
        if (s != EM_OK) fprintf(stderr, "%.2000s\n", em_last_error());
        CHECK(s == EM_OK);
        free(cubin), em_sbuf_free(&src);
    }
    em_sbuf src = {0};
    CHECK(em_render_random(&em_dialect_cuda, EM_RAND_NORMAL, EM_INT32, &src) == EM_ETYPE);
    CHECK(strstr(em_last_error(), "float32 or float64") != NULL);
    em_sbuf_free(&src);
}

static void test_nvrtc_scans(void) {
    if ((ctest_compilers_off() || em_nvrtc_init() != EM_OK)) return;
    static const em_dtype in[] = {EM_BOOL, EM_INT32, EM_FLOAT16, EM_FLOAT64};
    static const em_dtype out[] = {EM_INT64, EM_INT64, EM_FLOAT16, EM_FLOAT64};
    for (size_t i = 0; i < sizeof in / sizeof *in; i++)
        for (int axis = -1; axis < 2; axis += 2) {
            em_sbuf src = {0};
            void *cubin = NULL;
            size_t n = 0;
            em_reduce_op op = i % 2 ? EM_RED_CUMPROD : EM_RED_CUMSUM;
            em_scan_spec c = {op, in[i], out[i], 3, axis < 0 ? -1 : axis, false};
            CHECK(em_render_scan(&em_dialect_cuda, &c, &src) == EM_OK);
            em_status s = em_cuda_compile(src.s, 90, "scan", &cubin, &n);
            if (s != EM_OK) fprintf(stderr, "%.2000s\n", em_last_error());
            CHECK(s == EM_OK);
            free(cubin), em_sbuf_free(&src);
        }
}

static char tmpdir[256];

static void test_nvrtc_every_op(void) {
    if ((ctest_compilers_off() || em_nvrtc_init() != EM_OK)) {
        printf("skip: %s\n", em_last_error());
        return;
    }
    int n = 0;
    static const em_dtype dts[] = {EM_BOOL,    EM_INT8,    EM_INT32,    EM_UINT64,
                                   EM_FLOAT16, EM_FLOAT64, EM_COMPLEX64};
    for (size_t i = 0; i < sizeof dts / sizeof *dts; i++) compile_all_ops(dts[i], &n);
    CHECK(n > 250);
}

static void test_compile_error_message(void) {
    if ((ctest_compilers_off() || em_nvrtc_init() != EM_OK)) return;
    void *cubin = NULL;
    size_t n = 0;
    em_sbuf src = {0};
    em_sbuf_printf(&src,
                   "%sextern \"C\" __global__ void em_kernel() {\n    undeclared_thing();\n}\n",
                   em_render_prelude());
    CHECK(em_cuda_compile(src.s, 90, "broken", &cubin, &n) == EM_ECOMPILE);
    em_sbuf_free(&src);
    CHECK(strstr(em_last_error(), "undeclared_thing") != NULL);
    CHECK(strstr(em_last_error(), "'broken'") != NULL);
    CHECK(strstr(em_last_error(), "    undeclared_thing();") != NULL); /* numbered source */
}

static void test_disk_cache(void) {
    if ((ctest_compilers_off() || em_nvrtc_init() != EM_OK)) return;
    char dir[300];
    snprintf(dir, sizeof dir, "%s/sub/kernels", tmpdir);
    setenv("EMBER_CACHE_DIR", dir, 1);
    const char *src = "extern \"C\" __global__ void em_kernel(float *x) { x[0] = 1.0f; }\n";
    void *c1 = NULL, *c2 = NULL;
    size_t n1 = 0, n2 = 0;
    CHECK(em_cuda_compile(src, 90, "tiny", &c1, &n1) == EM_OK);
    struct stat st;
    CHECK(stat(dir, &st) == 0 && (st.st_mode & 0777) == 0700);
    /* Exactly one entry, no temp files left. */
    char cmd[600], line[512] = {0};
    snprintf(cmd, sizeof cmd, "ls %s", dir);
    FILE *ls = popen(cmd, "r");
    int files = 0;
    while (ls && fgets(line, sizeof line, ls)) {
        files++;
        CHECK(strstr(line, ".tmp") == NULL);
    }
    if (ls) pclose(ls);
    CHECK(files == 1);
    char path[900];
    line[strcspn(line, "\n")] = 0;
    snprintf(path, sizeof path, "%s/%s", dir, line);
    void *d = NULL;
    size_t dn = 0;
    CHECK(em_diskcache_get(line, &d, &dn) && dn == n1 && !memcmp(d, c1, n1));
    free(d);
    /* Corrupt the payload: detected as a miss, rebuilt, rewritten. */
    FILE *f = fopen(path, "r+b");
    CHECK(f && fseek(f, 40, SEEK_SET) == 0 && fputc('#', f) != EOF);
    if (f) fclose(f);
    CHECK(!em_diskcache_get(line, &d, &dn));
    CHECK(em_cuda_compile(src, 90, "tiny", &c2, &n2) == EM_OK && n2 == n1 && !memcmp(c1, c2, n1));
    CHECK(em_diskcache_get(line, &d, &dn) && dn == n1);
    free(d), free(c1), free(c2);
    /* A truncated entry is a miss too. */
    CHECK(truncate(path, 30) == 0 && !em_diskcache_get(line, &d, &dn));
}

static void test_no_gpu_is_not_an_error(void) {
    int n = -1;
    CHECK(em_device_count(EM_CUDA, &n) == EM_OK && n >= 0);
    if (n == 0) {
        em_device d;
        CHECK(em_device_parse("cuda:0", &d) == EM_EDEVICE);
        CHECK(strstr(em_last_error(), "no device cuda:0") != NULL);
    }
}

int main(void) {
    snprintf(tmpdir, sizeof tmpdir, "/tmp/ember_cuda_test_XXXXXX");
    if (!mkdtemp(tmpdir)) return 1;
    setenv("EMBER_CACHE_DIR", tmpdir, 1);
    RUN(test_sbuf_on_caller_buffer);
    RUN(test_golden_add_contiguous);
    RUN(test_golden_where_broadcast_mixed);
    RUN(test_golden_strided_3d);
    RUN(test_golden_sum_reduction);
    RUN(test_golden_fused_reduction);
    RUN(test_golden_seed_reduction);
    RUN(test_no_gpu_is_not_an_error);
    RUN(test_compile_error_message);
    RUN(test_disk_cache);
    RUN(test_nvrtc_every_op);
    RUN(test_nvrtc_reductions);
    RUN(test_nvrtc_take_put);
    RUN(test_nvrtc_all_casts);
    RUN(test_philox_known_answers);
    RUN(test_nvrtc_random);
    RUN(test_nvrtc_scans);
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf %s", tmpdir);
    if (system(cmd) != 0) fprintf(stderr, "could not remove %s\n", tmpdir);
    return ctest_summary();
}
