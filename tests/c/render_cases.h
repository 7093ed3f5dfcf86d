/* Every kernel template in its variants, rendered for one dialect: each
 * reduction op over the dtype classes (block, split and warp forms, several
 * axes, fused producers), each scan (line and tile kernels, flattened and
 * along an axis), every gather/scatter/nonzero mode, the flat take/put and
 * every random kind, the tiled matmul.  Shared by test_render_cuda_all.c (NVRTC, and a dump
 * for comparing the CUDA text before and after a change) and
 * test_render_opencl.c (built with the OpenCL compiler).
 *
 * render_cases(d, fn, ctx) calls fn(ctx, name, status, source) once per
 * case; the source is NULL when the renderer refused (status says why).
 * A case refused for the dialect by design has a status other than EM_OK:
 * the callers decide which refusals they accept.  Names are unique and
 * usable as file names. */
#ifndef EM_TEST_RENDER_CASES_H
#define EM_TEST_RENDER_CASES_H

#include "codegen/render_gather.h"
#include "codegen/render_gemm.h"
#include "codegen/render_histogram.h"
#include "codegen/render_scatter.h"
#include "codegen/render_index.h"
#include "codegen/render_copycheck.h"
#include "codegen/render_indexfill.h"
#include "codegen/render_random.h"
#include "codegen/render_reduce.h"
#include "codegen/render_scan.h"
#include "codegen/render_part.h"
#include "codegen/render_select.h"
#include "codegen/render_unique.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef void (*rc_fn)(void *ctx, const char *name, em_status st, const char *src);

static const em_device rc_cpu = {EM_CPU, 0};

/* NumPy's result dtype of a full reduction of dt (the callers' rule). */
static em_dtype rc_red_out(em_reduce_op op, em_dtype dt) {
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
    case EM_RED_ALL:
    case EM_RED_LOGICAL_XOR: return EM_BOOL;
    default: return dt;
    }
}

static const char *rc_red_name(int op) {
    static const char *const names[] = {
#define EM_REDUCE(E, name) #name,
#include "ember/reductions.def"
#undef EM_REDUCE
    };
    return names[op];
}

static void rc_emit(rc_fn fn, void *ctx, const char *name, em_status st, em_sbuf *s) {
    fn(ctx, name, st, st == EM_OK ? s->s : NULL);
    em_sbuf_free(s);
}

static void rc_op_node(em_node *n, em_op op, const em_node *x, const em_node *y) {
    em_dtype p = y ? em_promote(x->dtype, y->dtype) : x->dtype, loop = p, odt = p;
    if (em_op_resolve(op, p, &loop, &odt) != EM_OK) fprintf(stderr, "render_cases: resolve\n");
    *n = (em_node){.op = op, .loop = loop, .dtype = odt, .nin = y ? 2 : 1, .in = {x, y}};
}

/* op over axes of a (5, 6, 7) array of dt; form: 0 block, 1 split, 2 warp,
 * 3 columns (split in 3; axes {0}: the kept dims are the contiguous ones). */
static void rc_reduce(const em_dialect *d, em_reduce_op op, em_dtype dt, int naxes, const int *axes,
                      int form, rc_fn fn, void *ctx) {
    static em_rplan p;
    int64_t sh[3] = {5, 6, 7}, osh[3];
    int on = 0;
    for (int i = 0; i < 3; i++) {
        bool red = naxes < 0;
        for (int j = 0; j < naxes; j++) red = red || axes[j] == i;
        if (!red) osh[on++] = sh[i];
    }
    em_array a, o;
    em_array_empty(&a, dt, 3, sh, rc_cpu), em_array_empty(&o, rc_red_out(op, dt), on, osh, rc_cpu);
    em_sbuf s = {0};
    em_status st = em_rplan_make(op, &a, naxes, axes, EM_NDTYPES, 1, &o, &p);
    if (st == EM_OK) {
        p.nsplit = form == 1 || form == 3 ? 3 : 1, p.warp = form == 2, p.col = form == 3;
        st = em_render_reduce(d, &p, &s);
    }
    char name[96];
    snprintf(name, sizeof name, "reduce_%s_%s_ax%d%d_%s", rc_red_name(op), em_dtype_get(dt)->name,
             naxes, naxes > 0 ? axes[0] : 9,
             form == 0   ? "block"
             : form == 1 ? "split"
             : form == 2 ? "warp"
                         : "cols");
    rc_emit(fn, ctx, name, st, &s);
    em_array_release(&a), em_array_release(&o);
}

/* sum (or op) of a fused tree over axes {1} of (4, 8) / seed 004's rows:
 * x * y - b with b broadcast along the reduced axis; one leaf may be made a
 * host scalar ('P'). */
static void rc_fused(const em_dialect *d, const char *tag, em_reduce_op op, em_dtype dx,
                     em_dtype dy, int warp, bool host_scalar, rc_fn fn, void *ctx) {
    static em_rplan p;
    int64_t sx[2] = {4, 8}, sb[2] = {4, 1}, so[1] = {4}, one[1] = {1};
    em_array x, y, b, a, o;
    em_array_empty(&x, dx, 2, sx, rc_cpu), em_array_empty(&b, dx, 2, sb, rc_cpu);
    em_array_empty(&y, dy, host_scalar ? 1 : 2, host_scalar ? one : sx, rc_cpu);
    em_node lx, ly, lb, m, r;
    em_node_leaf(&lx, &x), em_node_leaf(&ly, &y), em_node_leaf(&lb, &b);
    rc_op_node(&m, EM_OP_MULTIPLY, &lx, &ly);
    rc_op_node(&r, EM_OP_SUBTRACT, &m, &lb);
    em_array_empty(&a, r.dtype, 2, sx, rc_cpu);
    em_array_empty(&o, rc_red_out(op, r.dtype), 1, so, rc_cpu);
    int axes[1] = {1};
    em_sbuf s = {0};
    em_status st = em_rplan_make(op, &a, 1, axes, EM_NDTYPES, 0, &o, &p);
    if (st == EM_OK) st = em_rplan_fuse(&p, &r, &a, 1, axes, &o);
    if (st == EM_OK) {
        for (int k = 1; host_scalar && k < p.tree.nops; k++)
            if (p.tree.leaves[k] == &ly) p.tree.cls[k] = 'P';
        p.warp = warp; /* OpenCL: warp units through local memory */
        st = em_render_reduce(d, &p, &s);
    }
    char name[96];
    snprintf(name, sizeof name, "fused_%s", tag);
    rc_emit(fn, ctx, name, st, &s);
    em_array_release(&x), em_array_release(&y), em_array_release(&b);
    em_array_release(&a), em_array_release(&o);
}

/* Fused elementwise chains whose rendering carries a NumPy rule:
 * power(x, s) with a broadcast (or host) scalar exponent tests s == 0.5 for
 * NumPy's sqrt path, for float32 and float64; remainder(negative(x), 7) and
 * remainder(absolute(x), 1000) of the narrow integers wrap each
 * intermediate in its own dtype. */
static void rc_elementwise(const em_dialect *d, rc_fn fn, void *ctx) {
    static const em_dtype fl[2] = {EM_FLOAT32, EM_FLOAT64};
    int64_t sx[2] = {4, 8}, s1[1] = {1};
    for (int i = 0; i < 6; i++) {
        bool pw = i < 4, host = i % 2;
        em_dtype dt = pw ? fl[i / 2] : i == 4 ? EM_INT16 : EM_INT32;
        em_array x, y, o;
        em_array_empty(&x, dt, 2, sx, rc_cpu), em_array_empty(&y, dt, 1, s1, rc_cpu);
        em_node lx, ly, m, r;
        em_node_leaf(&lx, &x), em_node_leaf(&ly, &y);
        if (pw) {
            rc_op_node(&r, EM_OP_POWER, &lx, &ly);
        } else {
            rc_op_node(&m, i == 4 ? EM_OP_NEGATIVE : EM_OP_ABSOLUTE, &lx, NULL);
            rc_op_node(&r, EM_OP_REMAINDER, &m, &ly);
        }
        em_array_empty(&o, r.dtype, 2, sx, rc_cpu);
        static em_kplan p;
        em_sbuf s = {0};
        em_status st = em_kplan_make(&r, &o, &p);
        for (int k = 1; st == EM_OK && host && k < p.nops; k++)
            if (p.leaves[k] == &ly) p.cls[k] = 'P';
        if (st == EM_OK) st = em_render_full(d, &p, &s);
        char name[96];
        snprintf(name, sizeof name, "ew_%s_%s%s",
                 pw       ? "power_half"
                 : i == 4 ? "negrem"
                          : "absrem",
                 em_dtype_get(dt)->name, host ? "_host" : "");
        rc_emit(fn, ctx, name, st, &s);
        em_array_release(&x), em_array_release(&y), em_array_release(&o);
    }
}

/* The reduction dtypes: each class, and float16 / the complexes apart. */
static const em_dtype rc_red_dtypes[] = {EM_BOOL,      EM_INT8,      EM_INT32,   EM_INT64,
                                         EM_UINT64,    EM_FLOAT16,   EM_FLOAT32, EM_FLOAT64,
                                         EM_COMPLEX64, EM_COMPLEX128};
#define RC_NRED_DTYPES ((int)(sizeof rc_red_dtypes / sizeof *rc_red_dtypes))

/* The bitwise ops take bool and the integers, GCD and LCM the integers
 * (int64 and the narrow unsigned ones left out: PoCL's build time), and
 * LOGICAL_XOR any dtype. */
static bool rc_red_takes(int op, em_dtype dt) {
    char k = em_dtype_get(dt)->kind;
    switch (op) {
    case EM_RED_BITWISE_AND:
    case EM_RED_BITWISE_OR:
    case EM_RED_BITWISE_XOR: return k == 'b' || dt == EM_INT8 || dt == EM_INT32 || dt == EM_UINT64;
    case EM_RED_GCD:
    case EM_RED_LCM: return dt == EM_INT8 || dt == EM_INT32 || dt == EM_UINT64;
    default: return true;
    }
}

/* full: every op x dtype x axes x form; else every op x dtype, one form,
 * and the other forms and axes for float32 only. */
static void rc_reductions(const em_dialect *d, bool full, rc_fn fn, void *ctx) {
    static const int ax1[1] = {1}, ax0[1] = {0}, ax02[2] = {0, 2};
    for (int op = 0; op < EM_RED_CUMSUM; op++)
        for (int i = 0; i < RC_NRED_DTYPES; i++) {
            em_dtype dt = rc_red_dtypes[i];
            if ((op == EM_RED_VAR || op == EM_RED_STD) && em_dtype_get(dt)->kind == 'c') continue;
            if (!rc_red_takes(op, dt)) continue;
            bool all = full || dt == EM_FLOAT32;
            rc_reduce(d, op, dt, -1, NULL, 1, fn, ctx);
            /* The column form: every op in float32, every dtype for sum and max (PoCL's
             * build time per kernel keeps the OpenCL test inside its limit). */
            if (all || op == EM_RED_SUM || op == EM_RED_MAX)
                rc_reduce(d, op, dt, 1, ax0, 3, fn, ctx);
            if (!all) continue;
            rc_reduce(d, op, dt, -1, NULL, 0, fn, ctx);
            rc_reduce(d, op, dt, 1, ax1, 0, fn, ctx);
            rc_reduce(d, op, dt, 1, ax1, 2, fn, ctx);
            rc_reduce(d, op, dt, 2, ax02, 0, fn, ctx);
            rc_reduce(d, op, dt, 2, ax02, 1, fn, ctx);
        }
    rc_fused(d, "sum_f32", EM_RED_SUM, EM_FLOAT32, EM_FLOAT32, 0, false, fn, ctx);
    rc_fused(d, "sum_f32_warp", EM_RED_SUM, EM_FLOAT32, EM_FLOAT32, 1, false, fn, ctx);
    rc_fused(d, "sum_f64_scalar", EM_RED_SUM, EM_FLOAT64, EM_FLOAT64, 0, true, fn, ctx);
    rc_fused(d, "max_i32_f64", EM_RED_MAX, EM_INT32, EM_FLOAT64, 0, false, fn, ctx);
    rc_fused(d, "argmin_f32", EM_RED_ARGMIN, EM_FLOAT32, EM_FLOAT32, 1, false, fn, ctx);
    rc_fused(d, "mean_c64", EM_RED_MEAN, EM_COMPLEX64, EM_COMPLEX64, 0, false, fn, ctx);
    rc_fused(d, "var_f16_i8", EM_RED_VAR, EM_FLOAT16, EM_INT8, 0, false, fn, ctx);
    rc_fused(d, "sum_i64_u8_scalar", EM_RED_SUM, EM_INT64, EM_UINT8, 1, true, fn, ctx);
    rc_fused(d, "bitwise_or_i32", EM_RED_BITWISE_OR, EM_INT32, EM_INT32, 1, false, fn, ctx);
    rc_fused(d, "logical_xor_f32", EM_RED_LOGICAL_XOR, EM_FLOAT32, EM_FLOAT32, 0, false, fn, ctx);
    rc_fused(d, "gcd_i64_scalar", EM_RED_GCD, EM_INT64, EM_INT64, 0, true, fn, ctx);
}

static void rc_scans(const em_dialect *d, rc_fn fn, void *ctx) {
    static const em_dtype in[] = {EM_BOOL,    EM_INT32,   EM_UINT8,     EM_FLOAT16,
                                  EM_FLOAT32, EM_FLOAT64, EM_COMPLEX64, EM_COMPLEX128};
    static const em_dtype out[] = {EM_INT64,   EM_INT64,   EM_UINT64,    EM_FLOAT16,
                                   EM_FLOAT32, EM_FLOAT64, EM_COMPLEX64, EM_COMPLEX128};
    for (size_t i = 0; i < sizeof in / sizeof *in; i++)
        for (int op = EM_RED_CUMSUM; op <= EM_RED_CUMPROD; op++)
            for (int axis = -1; axis < 3; axis++)
                for (int tiles = 0; tiles < 2; tiles++) {
                    if (axis == 1) continue;
                    if (tiles && out[i] == EM_FLOAT16) continue; /* refused by design */
                    em_scan_spec c = {op, in[i], out[i], 3, axis, tiles};
                    em_sbuf s = {0};
                    em_status st = em_render_scan(d, &c, &s);
                    char name[96];
                    snprintf(name, sizeof name, "scan_%s_%s_%s_ax%d_%s", rc_red_name(op),
                             em_dtype_get(in[i])->name, em_dtype_get(out[i])->name, axis,
                             tiles ? "tiles" : "line");
                    rc_emit(fn, ctx, name, st, &s);
                }
}

static void rc_gathers(const em_dialect *d, rc_fn fn, void *ctx) {
    static const int shapes[][3] = {{1, 1, 1}, {2, 2, 1}, {2, 1, 2}, {3, 1, 1}};
    static const int sizes[] = {1, 2, 4, 8, 16};
    for (int mode = EM_G_TAKE; mode <= EM_G_COORDS; mode++)
        for (int j = 0; j < 4; j++)
            for (int z = 0; z < 5; z++) {
                bool copy = mode == EM_G_TAKE || mode == EM_G_PUT;
                if (!copy && z != 2) continue; /* size is the copy kinds' only */
                if (mode >= EM_G_COUNT && j != 3) continue;
                em_gather_spec k = {.mode = mode,
                                    .size = sizes[z],
                                    .m = shapes[j][0],
                                    .nidx = shapes[j][1],
                                    .r = shapes[j][2]};
                em_sbuf s = {0};
                em_status st = em_render_gather(d, &k, &s);
                char name[96];
                snprintf(name, sizeof name, "gather_mode%d_%dB_m%d_n%d_r%d", mode, sizes[z], k.m,
                         k.nidx, k.r);
                rc_emit(fn, ctx, name, st, &s);
            }
    for (int z = 0; z < 5; z++) { /* a[mask]: every element size; out and values as ix */
        em_gather_spec k = {.mode = EM_G_SELECT, .size = sizes[z], .m = 1, .nidx = 2, .r = 1};
        em_sbuf s = {0};
        em_status st = em_render_gather(d, &k, &s);
        char name[96];
        snprintf(name, sizeof name, "gather_select_%dB", sizes[z]);
        rc_emit(fn, ctx, name, st, &s);
    }
    /* The staged nonzero passes (CUDA's; the same text as above elsewhere): the
     * count, coordinates of 1-d and 3-d arrays, and a[mask] of every element size. */
    for (int z = 0; z < 8; z++) {
        int mode = z < 5 ? EM_G_SELECT : z == 5 ? EM_G_COUNT : EM_G_COORDS;
        em_gather_spec k = {.mode = mode,
                            .size = z < 5 ? sizes[z] : 1,
                            .m = z == 6   ? 1
                                 : z == 7 ? 3
                                          : 1,
                            .nidx = mode == EM_G_SELECT ? 2 : 1,
                            .r = 1,
                            .stage = true};
        em_sbuf s = {0};
        em_status st = em_render_gather(d, &k, &s);
        char name[96];
        snprintf(name, sizeof name, "gather_staged_mode%d_%dB_m%d", mode, k.size, k.m);
        rc_emit(fn, ctx, name, st, &s);
    }
}

/* full: each dtype taken and put from each value dtype, two shapes; else
 * each dtype taken (one shape) and put from one value dtype. */
static void rc_index(const em_dialect *d, bool full, rc_fn fn, void *ctx) {
    static const em_dtype dts[] = {EM_BOOL,    EM_INT16,   EM_UINT64,    EM_FLOAT16,
                                   EM_FLOAT32, EM_FLOAT64, EM_COMPLEX64, EM_COMPLEX128};
    static const em_dtype vdts[] = {EM_FLOAT32, EM_INT64, EM_COMPLEX128, EM_BOOL};
    for (size_t i = 0; i < sizeof dts / sizeof *dts; i++)
        for (int put = 0; put < 2; put++)
            for (size_t v = 0; v < (put ? sizeof vdts / sizeof *vdts : 1); v++)
                for (int shape = 0; shape < 2; shape++) {
                    if (!full && (shape != (int)(i % 2) || (put && v != i % 4))) continue;
                    em_dtype vt = put ? vdts[v] : dts[i];
                    int na = shape ? 3 : 1, ni = shape ? 2 : 1;
                    em_sbuf s = {0};
                    em_status st = em_render_index(d, put, dts[i], vt, na, ni, &s);
                    char name[96];
                    snprintf(name, sizeof name, "index_%s_%s_%s_na%d_ni%d", put ? "put" : "take",
                             em_dtype_get(dts[i])->name, em_dtype_get(vt)->name, na, ni);
                    rc_emit(fn, ctx, name, st, &s);
                }
}

static void rc_randoms(const em_dialect *d, rc_fn fn, void *ctx) {
    for (int kind = EM_RAND_UNIFORM; kind <= EM_RAND_BINOMIAL; kind++)
        for (int dt = 0; dt < EM_NDTYPES; dt++) {
            int per;
            if (em_random_per_block(kind, dt, &per) != EM_OK) continue;
            em_sbuf s = {0};
            em_status st = em_render_random(d, kind, dt, &s);
            char name[96];
            snprintf(name, sizeof name, "random_%d_%s", kind, em_dtype_get(dt)->name);
            rc_emit(fn, ctx, name, st, &s);
        }
    /* the fills with a transform (em_random_post) */
    static const struct {
        em_random_kind kind;
        em_dtype dt;
        em_random_post post;
    } posts[] = {{EM_RAND_NORMAL, EM_FLOAT64, EM_RPOST_AFFINE},
                 {EM_RAND_UNIFORM, EM_FLOAT64, EM_RPOST_AFFINE},
                 {EM_RAND_UNIFORM, EM_FLOAT64, EM_RPOST_EXPONENTIAL},
                 {EM_RAND_UNIFORM, EM_FLOAT32, EM_RPOST_EXPONENTIAL},
                 {EM_RAND_UNIFORM, EM_FLOAT64, EM_RPOST_GEOMETRIC}};
    for (size_t i = 0; i < sizeof posts / sizeof posts[0]; i++) {
        em_sbuf s = {0};
        em_status st = em_render_random_post(d, posts[i].kind, posts[i].dt, posts[i].post, &s);
        char name[96];
        snprintf(name, sizeof name, "random_post%d_%d_%s", (int)posts[i].post, (int)posts[i].kind,
                 em_dtype_get(posts[i].dt)->name);
        rc_emit(fn, ctx, name, st, &s);
    }
    /* em_random_choice's gather, each element size */
    for (int size = 1; size <= 16; size *= 2) {
        em_sbuf s = {0};
        em_status st = em_render_random_choice(d, size, &s);
        char name[96];
        snprintf(name, sizeof name, "random_choice_%dB", size);
        rc_emit(fn, ctx, name, st, &s);
    }
}

/* The tiled matmul: every dtype it multiplies (full) or one of each
 * family, with both load orders and a batch of one and of two dimensions. */
static void rc_gemms(const em_dialect *d, bool full, rc_fn fn, void *ctx) {
    static const em_dtype few[] = {EM_BOOL, EM_INT8, EM_FLOAT32, EM_COMPLEX128};
    int n = full ? EM_NDTYPES : (int)(sizeof few / sizeof few[0]);
    for (int i = 0; i < n; i++) {
        em_dtype dt = full ? (em_dtype)i : few[i];
        if (dt == EM_FLOAT16) continue; /* not multiplied by the kernel */
        for (int v = 0; v < 2; v++) {
            em_sbuf s = {0};
            em_status st = em_render_gemm(d, dt, v + 1, v == 0, v == 1, &s);
            char name[96];
            snprintf(name, sizeof name, "gemm_%s_nb%d", em_dtype_get(dt)->name, v + 1);
            rc_emit(fn, ctx, name, st, &s);
        }
    }
    /* OpenCL's register-blocked float32 / float64 kernel: the tables'
     * tiles and a narrow one, each load order, batches of one and two. */
    if (d->id != EM_DIALECT_OPENCL) return;
    static const em_gemm_tile tiles[] = {{8, 8, 16, 4}, {4, 4, 16, 2}, {8, 4, 8, 2}};
    for (int i = 0; i < 3; i++)
        for (int v = 0; v < 4; v++) {
            const em_dtype dt = tiles[i].vw == 4 ? EM_FLOAT32 : EM_FLOAT64;
            em_sbuf s = {0};
            em_status st =
                em_render_gemm_blocked(d, dt, v / 2 + 1, v & 1, (v >> 1) & 1, &tiles[i], &s);
            char name[96];
            snprintf(name, sizeof name, "gemm_blocked_%s_%dx%dx%d_%d", em_dtype_get(dt)->name,
                     tiles[i].tm, tiles[i].tn, tiles[i].bk, v);
            rc_emit(fn, ctx, name, st, &s);
        }
}

/* The accumulating scatter: every op on every dtype it has (full), else
 * three (a native atomic, 64-bit and 32-bit compare-and-swap loops: each
 * PoCL build costs about a second; test_ufunc_methods runs more on it). */
static void rc_scatters(const em_dialect *d, bool full, rc_fn fn, void *ctx) {
    static const char *const ops[] = {"add", "subtract", "multiply", "maximum", "minimum"};
    for (int op = EM_SC_ADD; op < EM_SC_NOPS; op++)
        for (int dt = 0; dt < EM_NDTYPES; dt++) {
            bool few = (op == EM_SC_ADD && dt == EM_INT32) ||
                       (op == EM_SC_MAXIMUM && dt == EM_UINT64) ||
                       (op == EM_SC_MINIMUM && dt == EM_FLOAT32);
            if (!em_scatter_dtype_ok(dt) || (!full && !few)) continue;
            em_sbuf s = {0};
            em_status st = em_render_scatter(d, op, dt, &s);
            char name[96];
            snprintf(name, sizeof name, "scatter_%s_%s", ops[op], em_dtype_get(dt)->name);
            rc_emit(fn, ctx, name, st, &s);
        }
}

/* The atomic histogram: each bin mode, counts and every weight type, bins
 * and edges in shared or global memory, one and three dimensions (full:
 * every sample dtype too; each PoCL build costs about a second). */
static void rc_histograms(const em_dialect *d, bool full, rc_fn fn, void *ctx) {
    static const struct {
        const char *name;
        em_hist_kernel k;
    } cases[] = {
        {"count_i64", {EM_INT64, EM_INT64, EM_NDTYPES, 1, {EM_HIST_COUNT}, 1024, 4, 0}},
        {"count_u8_w_f64", {EM_UINT8, EM_INT64, EM_FLOAT64, 1, {EM_HIST_COUNT}, 256, 2, 0}},
        {"uniform_f32", {EM_FLOAT32, EM_FLOAT32, EM_NDTYPES, 1, {EM_HIST_UNIFORM}, 256, 8, 320}},
        {"edges_f64_global", {EM_FLOAT64, EM_FLOAT64, EM_NDTYPES, 1, {EM_HIST_EDGES}, 0, 1, 0}},
        {"edges_i32_in_i64_w_f32",
         {EM_INT32, EM_INT64, EM_FLOAT32, 1, {EM_HIST_EDGES}, 512, 1, 64}},
        {"uniform_u64_w_c64", {EM_UINT64, EM_UINT64, EM_COMPLEX64, 1, {EM_HIST_UNIFORM}, 0, 1, 64}},
        {"dd3_f32_w_c128",
         {EM_FLOAT32,
          EM_FLOAT64,
          EM_COMPLEX128,
          3,
          {EM_HIST_UNIFORM, EM_HIST_EDGES, EM_HIST_UNIFORM},
          1024,
          1,
          128}},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        em_sbuf s = {0};
        em_status st = em_render_histogram(d, &cases[i].k, &s);
        char name[96];
        snprintf(name, sizeof name, "histogram_%s", cases[i].name);
        rc_emit(fn, ctx, name, st, &s);
    }
    for (int dt = 0; full && dt < EM_NDTYPES; dt++) {
        em_hist_kernel k = {(em_dtype)dt, EM_FLOAT64, EM_NDTYPES, 1, {EM_HIST_UNIFORM}, 256, 2, 64};
        if (!em_hist_dtypes_ok(k.x, k.c, k.w)) continue;
        em_sbuf s = {0};
        em_status st = em_render_histogram(d, &k, &s);
        char name[96];
        snprintf(name, sizeof name, "histogram_x_%s", em_dtype_get(k.x)->name);
        rc_emit(fn, ctx, name, st, &s);
    }
}

/* unique's write kernel and the select's histogram for every dtype (they
 * hold the dtype's comparison and key), the other modes for float32. */
static void rc_unique_select(const em_dialect *d, rc_fn fn, void *ctx) {
    for (int dt = 0; dt < EM_NDTYPES; dt++) {
        em_uq_spec u = {.mode = EM_UQ_WRITE,
                        .dtype = (em_dtype)dt,
                        .equal_nan = true,
                        .first = true,
                        .idx = true,
                        .inv = true};
        em_sbuf s = {0};
        em_status st = em_render_unique(d, &u, &s);
        char name[96];
        snprintf(name, sizeof name, "unique_write_%s", em_dtype_get((em_dtype)dt)->name);
        rc_emit(fn, ctx, name, st, &s);
        if (d->id == EM_DIALECT_CUDA) { /* the single pass is CUDA's */
            u.mode = EM_UQ_ONE, u.vin = true, u.minb = dt % 2 ? 4 : 0;
            u.bytes = dt % 3 ? 128 : 0, u.pf = dt % 3 != 1; /* run_unique.c's forms */
            em_sbuf s1 = {0};
            st = em_render_unique(d, &u, &s1);
            snprintf(name, sizeof name, "unique_one_%s", em_dtype_get((em_dtype)dt)->name);
            rc_emit(fn, ctx, name, st, &s1);
        }
        if (!em_sel_dtype_ok((em_dtype)dt)) continue;
        for (int m = EM_SEL_HIST; m <= EM_SEL_OUT; m++) {
            if (m != EM_SEL_HIST && dt != EM_FLOAT32 && dt != EM_FLOAT16) continue;
            em_sel_spec k = {.mode = m, .dtype = (em_dtype)dt, .nsel = 2};
            em_sbuf s2 = {0};
            st = em_render_select(d, &k, &s2);
            snprintf(name, sizeof name, "select_mode%d_%s", m, em_dtype_get((em_dtype)dt)->name);
            rc_emit(fn, ctx, name, st, &s2);
        }
    }
    for (int m = EM_UQ_COUNT; m <= EM_UQ_COUNTS; m++) {
        em_uq_spec u = {.mode = m, .dtype = EM_FLOAT32};
        em_sbuf s = {0};
        em_status st = em_render_unique(d, &u, &s);
        char name[96];
        snprintf(name, sizeof name, "unique_mode%d_float32", m);
        rc_emit(fn, ctx, name, st, &s);
    }
    em_sel_spec k = {.mode = EM_SEL_HIST, .dtype = EM_FLOAT64, .nsel = EM_SEL_MAXN};
    em_sbuf s = {0};
    em_status st = em_render_select(d, &k, &s);
    rc_emit(fn, ctx, "select_hist4_float64", st, &s);
}

/* The set operations' kernels (the filtered write, isin, merge: each holds
 * the dtype's order and search) and the partition kernels for every dtype
 * with an order; complex ones are refused. */
static void rc_setops_part(const em_dialect *d, rc_fn fn, void *ctx) {
    for (int dt = 0; dt < EM_NDTYPES; dt++) {
        if (!em_sel_dtype_ok((em_dtype)dt)) continue;
        const char *dn = em_dtype_get((em_dtype)dt)->name;
        char name[96];
        const em_uq_spec us[] = {
            {.mode = EM_UQ_WRITE, .dtype = (em_dtype)dt, .equal_nan = true, .filt = 1},
            {.mode = EM_UQ_ISIN, .dtype = (em_dtype)dt, .filt = 1},
            {.mode = EM_UQ_MERGE, .dtype = (em_dtype)dt}};
        for (int i = 0; i < 3; i++) {
            em_sbuf s = {0};
            em_status st = em_render_unique(d, &us[i], &s);
            snprintf(name, sizeof name, "setop_mode%d_%s", us[i].mode, dn);
            rc_emit(fn, ctx, name, st, &s);
        }
        /* setxor1d's SINGLE pass: unique's striped count and write, filt 3 */
        for (int m = EM_UQ_COUNT; m <= EM_UQ_WRITE; m += EM_UQ_WRITE - EM_UQ_COUNT) {
            const em_uq_spec one = {.mode = m, .dtype = (em_dtype)dt, .filt = 3};
            em_sbuf s = {0};
            em_status st = em_render_unique(d, &one, &s);
            snprintf(name, sizeof name, "setop_single%d_%s", m, dn);
            rc_emit(fn, ctx, name, st, &s);
        }
        for (int m = EM_PT_COUNT; m <= EM_PT_WRITE; m++) {
            em_pt_spec k = {.mode = m, .dtype = (em_dtype)dt, .arg = dt % 2};
            em_sbuf s = {0};
            em_status st = em_render_part(d, &k, &s);
            snprintf(name, sizeof name, "part_mode%d_%s", m, dn);
            rc_emit(fn, ctx, name, st, &s);
        }
    }
}

/* The index fills (em_index_fill): every kind of every element width. */
static void rc_index_fills(const em_dialect *d, rc_fn fn, void *ctx) {
    static const int shapes[][2] = {{4, 1}, {8, 1}, {4, 2}, {8, 2}};
    for (int kind = EM_IFILL_EYE; kind <= EM_IFILL_STEP; kind++)
        for (int i = 0; i < 4; i++) {
            if (kind == EM_IFILL_STEP && shapes[i][1] != 1) continue;
            em_ifill_spec k = {kind, shapes[i][0], shapes[i][1]};
            char name[64];
            em_sbuf s = {0};
            em_status st = em_render_indexfill(d, &k, &s);
            snprintf(name, sizeof name, "ifill_%d_%dx%d", kind, k.wbytes, k.words);
            rc_emit(fn, ctx, name, st, &s);
        }
}

/* The checked copy (em_copy_checked): float and double, real and complex. */
static void rc_copy_checks(const em_dialect *d, rc_fn fn, void *ctx) {
    for (int wb = 4; wb <= 8; wb += 4)
        for (int words = 1; words <= 2; words++) {
            em_copycheck_spec k = {wb, words};
            char name[64];
            em_sbuf s = {0};
            em_status st = em_render_copycheck(d, &k, &s);
            snprintf(name, sizeof name, "copycheck_%dx%d", wb, words);
            rc_emit(fn, ctx, name, st, &s);
        }
}

static void render_cases(const em_dialect *d, bool full, rc_fn fn, void *ctx) {
    rc_elementwise(d, fn, ctx);
    rc_reductions(d, full, fn, ctx);
    rc_scans(d, fn, ctx);
    rc_gathers(d, fn, ctx);
    rc_index(d, full, fn, ctx);
    rc_randoms(d, fn, ctx);
    rc_gemms(d, full, fn, ctx);
    rc_scatters(d, full, fn, ctx);
    rc_histograms(d, full, fn, ctx);
    rc_unique_select(d, fn, ctx);
    rc_setops_part(d, fn, ctx);
    rc_index_fills(d, fn, ctx);
    rc_copy_checks(d, fn, ctx);
}

#endif
