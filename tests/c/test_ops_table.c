/* The op table walked row by row: every op of include/ember/ops.def and every
 * loop dtype its kinds and resolver give (em_op_resolve over all dtypes)
 *   - has a CPU loop (the table the build generates from ops.def), and
 *     tools/gen_scalar.c's output dtype agrees with em_op_resolve's;
 *   - renders as a one-op kernel (codegen/render_op.c) for CUDA, OpenCL and
 *     C, and the CUDA kernels compile with NVRTC where it loads and the
 *     OpenCL ones with the OpenCL platform where one loads (PoCL in CI).
 * So an op whose scalar-library body is missing for one dialect or dtype
 * fails here without a GPU.  The CPU values against NumPy are
 * tests/python/test_ops_table.py's. */
#include "backend/backend.h"
#include "backend/cpu/loops.h"
#include "backend/cuda/cuda_internal.h"
#include "backend/opencl/opencl.h"
#include "codegen/render_op.h"
#include "ctest.h"

#include <stdlib.h>

typedef struct pair {
    em_op op;
    em_dtype loop, out;
} pair;
static pair pairs[EM_NOPS * EM_NDTYPES];
static int npairs;

/* Every (op, loop dtype) that some input dtype resolves to, once each. */
static void collect(void) {
    bool seen[EM_NOPS][EM_NDTYPES] = {{false}};
    for (int op = 0; op < EM_NOPS; op++)
        for (int dt = 0; dt < EM_NDTYPES; dt++) {
            em_dtype loop, out;
            if (em_op_resolve((em_op)op, (em_dtype)dt, &loop, &out) != EM_OK) continue;
            if (seen[op][loop]) continue;
            seen[op][loop] = true;
            /* The loop's own output: resolving the loop dtype itself (an
             * int8 sqrt computes in float32 but stores float16). */
            em_dtype l2;
            if (em_op_resolve((em_op)op, loop, &l2, &out) != EM_OK || l2 != loop) out = EM_NDTYPES;
            pairs[npairs++] = (pair){(em_op)op, loop, out};
        }
}

static void test_every_row_has_cpu_loops(void) {
    em_cpu_loops_init();
    CHECK(npairs > 400);
    for (int i = 0; i < npairs; i++) {
        const pair *p = &pairs[i];
        if (!em_cpu_loops[p->op][p->loop])
            fprintf(stderr, "no CPU loop: %s on %s\n", em_op_get(p->op)->name,
                    em_dtype_get(p->loop)->name);
        CHECK(em_cpu_loops[p->op][p->loop] != NULL);
        CHECK(em_op1_out_dtype(p->op, p->loop) == p->out);
    }
    /* Every op has at least one loop: a row with no reachable dtype is a typo. */
    for (int op = 0; op < EM_NOPS; op++) {
        int n = 0;
        for (int i = 0; i < npairs; i++) n += pairs[i].op == (em_op)op;
        CHECK(n > 0);
    }
}

/* All pairs' kernels after the prelude, in one source, kernel k named em_k<k>. */
static char *render_all(const em_dialect *d) {
    em_sbuf s = {0};
    em_sbuf_printf(&s, "%s", d->prelude);
    for (int i = 0; i < npairs; i++) {
        char name[32];
        snprintf(name, sizeof name, "em_k%d", i);
        CHECK(em_render_op1(d, pairs[i].op, pairs[i].loop, name, &s) == EM_OK);
    }
    CHECK(!s.oom);
    return s.s;
}

/* One pair alone: after a batch fails, to name the ops that do. */
static char *render_one(const em_dialect *d, int i) {
    em_sbuf s = {0};
    em_sbuf_printf(&s, "%s", d->prelude);
    CHECK(em_render_op1(d, pairs[i].op, pairs[i].loop, NULL, &s) == EM_OK);
    return s.s;
}

static void test_render_every_dialect(void) {
    for (int id = 0; id < EM_NDIALECTS; id++) {
        const em_dialect *d = em_dialect_get((em_dialect_id)id);
        CHECK(d->prelude && strstr(d->prelude, "em_add_##S"));
        /* The CUDA runtime numbers compile errors after this last line. */
        size_t n = strlen(d->prelude), m = strlen(EM_PRELUDE_END);
        CHECK(n > m && strcmp(d->prelude + n - m, EM_PRELUDE_END) == 0);
        char *src = render_all(d);
        CHECK(src && strstr(src, "em_lcm_u64(in0[i], in1[i])"));
        free(src);
    }
    em_sbuf s = {0};
    CHECK(em_render_op1(&em_dialect_cuda, EM_NOPS, EM_FLOAT32, NULL, &s) == EM_EVALUE);
    CHECK(em_render_op1(NULL, EM_OP_ADD, EM_FLOAT32, NULL, &s) == EM_EVALUE);
    em_sbuf_free(&s);
}

static bool nvrtc_ok(const char *src, const char *what) {
    void *cubin = NULL;
    size_t n = 0;
    em_status st = em_cuda_compile(src, 90, what, &cubin, &n);
    free(cubin);
    return st == EM_OK;
}

static void test_cuda_compiles(void) {
    if ((ctest_compilers_off() || em_nvrtc_init() != EM_OK)) {
        printf("skip test_cuda_compiles: %s\n", em_last_error());
        return;
    }
    char *src = render_all(&em_dialect_cuda);
    bool ok = nvrtc_ok(src, "ops table");
    free(src);
    if (!ok) {
        fprintf(stderr, "%.2000s\n", em_last_error());
        for (int i = 0; i < npairs; i++) {
            char *one = render_one(&em_dialect_cuda, i);
            if (!nvrtc_ok(one, "one op"))
                fprintf(stderr, "CUDA: %s on %s does not compile\n", em_op_get(pairs[i].op)->name,
                        em_dtype_get(pairs[i].loop)->name);
            free(one);
        }
    }
    CHECK(ok);
}

static void test_opencl_compiles(void) {
    if ((ctest_compilers_off() || em_opencl_init() != EM_OK)) {
        printf("skip test_opencl_compiles: %s\n", em_last_error());
        return;
    }
    printf("OpenCL device: %s\n", em_opencl_device_name());
    char *src = render_all(&em_dialect_opencl), *log = NULL;
    em_status st = em_opencl_build(src, "-cl-std=CL1.2", &log);
    free(src);
    if (st != EM_OK) {
        fprintf(stderr, "%.3000s\n", log ? log : em_last_error());
        for (int i = 0; i < npairs; i++) {
            char *one = render_one(&em_dialect_opencl, i);
            if (em_opencl_build(one, "-cl-std=CL1.2", NULL) != EM_OK)
                fprintf(stderr, "OpenCL: %s on %s does not compile\n", em_op_get(pairs[i].op)->name,
                        em_dtype_get(pairs[i].loop)->name);
            free(one);
        }
    }
    free(log);
    CHECK(st == EM_OK);
    /* A broken source fails with a log that names the problem. */
    st = em_opencl_build("__kernel void k(__global float *o) { o[0] = em_nope_f32(1.0f); }", NULL,
                         &log);
    CHECK(st == EM_ECOMPILE && log && strstr(log, "em_nope_f32"));
    free(log);
}

int main(void) {
    collect();
    RUN(test_every_row_has_cpu_loops);
    RUN(test_render_every_dialect);
    RUN(test_cuda_compiles);
    RUN(test_opencl_compiles);
    return ctest_summary();
}
