/* Renderers asked for OpenCL C: the elementwise kernel in OpenCL's form
 * (buffers as their own __global arguments, the struct holding only
 * numbers), checked for its shape and, where clang is on the PATH, compiled
 * as OpenCL C 1.2 (-fsyntax-only) over a stand-in prelude; every kernel
 * template in its variants (render_cases.h) built by the OpenCL platform's
 * compiler (PoCL in CI) with the generated prelude, skipped where no
 * platform loads.  EMBER_CL_CASES=<prefix> builds only those cases;
 * EMBER_RENDER_DUMP=DIR writes each source to DIR/<case>.cl. */
#include "codegen/render.h"
#include "codegen/render_gather.h"
#include "codegen/render_index.h"
#include "codegen/render_random.h"
#include "codegen/render_reduce.h"
#include "codegen/render_scan.h"
#include "backend/backend.h"
#include "backend/opencl/opencl.h"
#include "ctest.h"
#include "render_cases.h"

#include <stdlib.h>
#include <unistd.h>

static const em_device cpu = {EM_CPU, 0};

/* Just enough of a prelude for the ops used here (the scalar library's
 * names, em_<op>_<suffix>). */
static const char stand_in[] =
    "typedef char em_i8; typedef short em_i16; typedef int em_i32; typedef long em_i64;\n"
    "typedef uchar em_u8; typedef ushort em_u16; typedef uint em_u32; typedef ulong em_u64;\n"
    "#define em_add_f32(a, b) ((a) + (b))\n#define em_multiply_f64(a, b) ((a) * (b))\n"
    "#define em_sqrt_f64(a) sqrt(a)\n";

static void mk(em_array *a, em_dtype dt, int nd, const int64_t *shape) {
    CHECK(em_array_empty(a, dt, nd, shape, cpu) == EM_OK);
}

static void op_node(em_node *n, em_op op, int nin, const em_node *x, const em_node *y) {
    em_dtype p = nin > 1 ? em_promote(x->dtype, y->dtype) : x->dtype, loop, odt;
    CHECK(em_op_resolve(op, p, &loop, &odt) == EM_OK);
    *n = (em_node){.op = op, .loop = loop, .dtype = odt, .nin = nin, .in = {x, y}};
}

static bool have_clang(void) { return system("clang --version > /dev/null 2>&1") == 0; }

/* clang -x cl on the stand-in prelude and src: true when it compiles. */
static bool cl_compiles(const char *src) {
    char path[] = "/tmp/ember_cl_XXXXXX";
    int fd = mkstemp(path);
    if (fd < 0) return false;
    FILE *f = fdopen(fd, "w");
    fprintf(f, "%s%s", stand_in, src);
    fclose(f);
    char cmd[256];
    snprintf(cmd, sizeof cmd, "clang -x cl -cl-std=CL1.2 -fsyntax-only -Werror %s", path);
    int rc = system(cmd);
    unlink(path);
    return rc == 0;
}

static void render_cl(const em_node *root, const em_array *out, em_sbuf *s) {
    em_kplan p;
    CHECK(em_kplan_make(root, out, &p) == EM_OK);
    CHECK(em_render_ew(&em_dialect_opencl, &p, s) == EM_OK && s->s);
}

static void test_contiguous_add(void) {
    int64_t sh[1] = {1000};
    em_array a, b, o;
    mk(&a, EM_FLOAT32, 1, sh), mk(&b, EM_FLOAT32, 1, sh), mk(&o, EM_FLOAT32, 1, sh);
    em_node la, lb, r;
    em_node_leaf(&la, &a), em_node_leaf(&lb, &b);
    op_node(&r, EM_OP_ADD, 2, &la, &lb);
    em_sbuf s = {0};
    render_cl(&r, &o, &s);
    CHECK(strstr(s.s, "__kernel void __attribute__((reqd_work_group_size(256, 1, 1))) em_kernel("
                      "__global char *d0, ulong o0, __global char *d1, ulong o1, "
                      "__global char *d2, ulong o2, const em_args p)"));
    CHECK(strstr(s.s, "((__global const float *)d1)[i]"));
    CHECK(strstr(s.s, "((__global float *)d0)[i] ="));
    CHECK(strstr(s.s, "get_group_id(0)") && strstr(s.s, "get_num_groups(0)"));
    /* The wide loop where all three are 16-byte aligned: one float4 each. */
    CHECK(strstr(s.s, "if (((ulong)d0 | (ulong)d1 | (ulong)d2) % 16 == 0)") &&
          strstr(s.s, "u1.v = ((__global const float4 *)d1)[g];") &&
          strstr(s.s, "((__global float4 *)d0)[g] = uo.v;"));
    /* Views: each buffer's byte offset comes beside it (backend.h's em_kargs). */
    CHECK(strstr(s.s, "    d2 += o2;\n") && !strstr(s.s, "off["));
    /* Nothing of CUDA's spelling, no pointer in the struct, no C++ template. */
    CHECK(!strstr(s.s, "p.d[") && !strstr(s.s, "blockIdx") && !strstr(s.s, "em_ldg") &&
          !strstr(s.s, "long long") && !strstr(s.s, "char *d["));
    if (have_clang()) CHECK(cl_compiles(s.s));
    em_sbuf_free(&s);
    em_array_release(&a), em_array_release(&b), em_array_release(&o);
}

/* A transposed, reversed view: the strided form's shape and strides. */
static void test_strided_with_broadcast_scalar(void) {
    int64_t sh[3] = {4, 6, 8}, one[1] = {1};
    em_array a, t, c, o;
    mk(&a, EM_FLOAT64, 3, sh), mk(&c, EM_FLOAT64, 1, one);
    mk(&o, EM_FLOAT64, 3, (int64_t[]){8, 6, 4});
    int perm[3] = {2, 1, 0};
    CHECK(em_view_transpose(&a, perm, &t) == EM_OK);
    em_node lt, lc, m, r;
    em_node_leaf(&lt, &t), em_node_leaf(&lc, &c);
    op_node(&m, EM_OP_SQRT, 1, &lt, NULL);
    op_node(&r, EM_OP_MULTIPLY, 2, &m, &lc);
    em_sbuf s = {0};
    render_cl(&r, &o, &s);
    CHECK(strstr(s.s, "    long shape[") && strstr(s.s, "*(__global const double *)(d1 + o1)"));
    /* The broadcast scalar, read once. */
    CHECK(strstr(s.s, "const double x2 = *(__global const double *)d2;"));
    if (have_clang()) CHECK(cl_compiles(s.s));
    em_sbuf_free(&s);
    em_array_release(&a), em_array_release(&t), em_array_release(&c), em_array_release(&o);
}

/* bool is stored as uchar (OpenCL's bool has no defined size) and the
 * em_kargs packer lists the buffers and writes n, shape and strides. */
static void test_bool_storage_and_kargs(void) {
    int64_t sh[2] = {3, 5};
    em_array a, t, o;
    mk(&a, EM_FLOAT32, 2, sh), mk(&o, EM_BOOL, 2, (int64_t[]){5, 3});
    CHECK(em_view_transpose(&a, (int[]){1, 0}, &t) == EM_OK);
    em_node lt, r;
    em_node_leaf(&lt, &t);
    op_node(&r, EM_OP_ISNAN, 1, &lt, NULL);
    em_kplan p;
    CHECK(em_kplan_make(&r, &o, &p) == EM_OK);
    em_sbuf s = {0};
    CHECK(em_render_ew(&em_dialect_opencl, &p, &s) == EM_OK);
    CHECK(strstr(s.s, "*(__global uchar *)(d0 + o0) =") && !strstr(s.s, "bool *"));
    CHECK(!strstr(s.s, "EM_V")); /* strided: no wide loop */
    em_kargs ka;
    int64_t blob[32];
    size_t n = em_kplan_kargs(&p, &ka, blob, sizeof blob);
    CHECK(n == 8 * (1 + 2 + 2 * 2) && ka.blob == blob && ka.blob_size == n);
    CHECK(ka.nbuf == 2 && ka.buf[0] == o.data && ka.buf[1] == t.data);
    CHECK(blob[0] == 15 && blob[1] == 5 && blob[2] == 3);                 /* n, then the shape */
    CHECK(blob[3] == 3 && blob[4] == 1 && blob[5] == 4 && blob[6] == 20); /* byte strides */
    CHECK(em_kplan_kargs(&p, &ka, blob, 16) == 0); /* too small: refused, not overrun */
    em_sbuf_free(&s);
    em_array_release(&a), em_array_release(&t), em_array_release(&o);
}

/* What a dialect cannot run is refused, with nothing half-written: the C
 * dialect renders no templates (the CPU has its loops).  OpenCL's warp form
 * of a reduction has no shuffles: its units meet in local memory, every
 * work-item at every barrier (the batch loop), 5 steps of a 32-lane
 * segment. */
static void test_refusals(void) {
    em_sbuf s = {0};
    const em_dialect *c = &em_dialect_c;
    em_gather_spec g = {.mode = EM_G_TAKE, .size = 4, .m = 1, .nidx = 1, .r = 1};
    CHECK(em_render_gather(c, &g, &s) == EM_EUNSUPPORTED);
    CHECK(em_render_index(c, false, EM_FLOAT32, EM_FLOAT32, 1, 1, &s) == EM_EUNSUPPORTED);
    CHECK(em_render_random(c, EM_RAND_UNIFORM, EM_FLOAT32, &s) == EM_EUNSUPPORTED);
    em_scan_spec sc = {EM_RED_CUMSUM, EM_FLOAT32, EM_FLOAT32, 1, 0, false};
    CHECK(em_render_scan(c, &sc, &s) == EM_EUNSUPPORTED);
    static em_rplan p;
    int64_t sh[1] = {10};
    em_array a, o;
    mk(&a, EM_FLOAT32, 1, sh), mk(&o, EM_FLOAT32, 0, sh);
    CHECK(em_rplan_make(EM_RED_SUM, &a, -1, NULL, EM_NDTYPES, 0, &o, &p) == EM_OK);
    CHECK(em_render_reduce(c, &p, &s) == EM_EUNSUPPORTED);
    CHECK(s.len == 0);
    p.warp = 1;
    CHECK(em_render_reduce(&em_dialect_opencl, &p, &s) == EM_OK && s.s);
    const char *k = s.s ? strstr(s.s, "em_kernel(") : NULL;
    CHECK(k && strstr(k, "ub < units; ub += EM_USTEP") && strstr(k, "EM_LANE < w") &&
          !strstr(s.s, "shfl"));
    CHECK(s.s && strstr(s.s, "#define EM_RW 32") && !strstr(s.s, "em_kernel2"));
    em_sbuf_free(&s);
    p.warp = 0;
    CHECK(em_render_reduce(&em_dialect_opencl, &p, &s) == EM_OK && s.len > 0);
    CHECK(s.s && strstr(s.s, "#define EM_RW 256") && strstr(s.s, "em_kernel2"));
    em_array_release(&a), em_array_release(&o);
    em_sbuf_free(&s);
}

/* The em_kargs form (backend.h): buffers and offsets first, in the
 * struct's field order, then the numbers; the kernel rebuilds p. */
static void test_kargs_form(void) {
    em_sbuf s = {0};
    em_gather_spec g = {.mode = EM_G_TAKE, .size = 8, .m = 2, .nidx = 2, .r = 1};
    CHECK(em_render_gather(&em_dialect_opencl, &g, &s) == EM_OK && s.s);
    if (!s.s) return;
    CHECK(strstr(s.s, "em_kernel(__global char *d0, ulong o0, __global char *d1, ulong o1, "
                      "__global char *d2, ulong o2, __global char *d3, ulong o3, "
                      "__global char *d4, ulong o4, __global char *d5, ulong o5, "
                      "__global char *d6, ulong o6, const em_argv a)"));
    CHECK(strstr(s.s, "    p.ix[1] = (__global const long *)(d3 ? d3 + o3 : d3);\n"));
    CHECK(strstr(s.s, "atomic_cmpxchg((volatile __global int *)p.err, 0, 1) == 0"));
    /* Nothing of CUDA's spelling left in the text after the prelude. */
    const char *k = strstr(s.s, EM_PRELUDE_END);
    CHECK(k && !strstr(k, "long long") && !strstr(k, "threadIdx") && !strstr(k, "__syncthreads") &&
          !strstr(k, "${") && !strstr(k, "&p") && !strstr(k, "atomicCAS"));
    em_sbuf_free(&s);
}

/* Refusals by design: none left (warp-mode reductions meet in local
 * memory since OpenCL ran seed 004 in warp units). */
static bool refusal_expected(const char *name) {
    (void)name;
    return false;
}

static int nbuilt, nrefused;

static void on_case(void *ctx, const char *name, em_status st, const char *src) {
    const char *only = getenv("EMBER_CL_CASES"); /* a prefix: build just those */
    const bool build = *(const bool *)ctx;
    if (only && strncmp(name, only, strlen(only))) return;
    if (st != EM_OK) {
        if (!refusal_expected(name)) fprintf(stderr, "%s: %s\n", name, em_last_error());
        CHECK(refusal_expected(name) && st == EM_EUNSUPPORTED);
        nrefused++;
        return;
    }
    CHECK(!refusal_expected(name));
    if (!build) { /* EMBER_TEST_RENDER_ONLY: the text only */
        CHECK(src && strstr(src, "__kernel"));
        nbuilt++;
        return;
    }
    const char *dir = getenv("EMBER_RENDER_DUMP"); /* DIR/<case>.cl, for reading */
    if (dir) {
        char path[4096];
        snprintf(path, sizeof path, "%s/%s.cl", dir, name);
        FILE *f = fopen(path, "w");
        if (f) fputs(src, f), fclose(f);
    }
    char *log = NULL;
    st = em_opencl_build(src, "-cl-std=CL1.2", &log);
    if (st != EM_OK)
        fprintf(stderr, "%s does not build:\n%.3000s\n", name, log ? log : em_last_error());
    CHECK(st == EM_OK);
    free(log);
    nbuilt++;
}

/* Every template in its variants, rendered for OpenCL and built by the
 * platform's compiler (PoCL in CI); skipped where no platform loads. */
static void test_every_template_builds(void) {
    bool build = !ctest_compilers_off();
    if (build && em_opencl_init() != EM_OK) {
        printf("skip test_every_template_builds: %s\n", em_last_error());
        return;
    }
    if (build) printf("OpenCL device: %s\n", em_opencl_device_name());
    render_cases(&em_dialect_opencl, false, on_case, &build);
    printf("%d OpenCL kernels %s, %d refused by design\n", nbuilt, build ? "built" : "rendered",
           nrefused);
    CHECK(getenv("EMBER_CL_CASES") || nbuilt > 300);
}

int main(void) {
    RUN(test_contiguous_add);
    RUN(test_strided_with_broadcast_scalar);
    RUN(test_bool_storage_and_kargs);
    RUN(test_refusals);
    RUN(test_kargs_form);
    RUN(test_every_template_builds);
    return ctest_summary();
}
