/* The algorithms above the backends (codegen/run_*.c) on a stub backend
 * that has only the runtime primitives: its module build, function and
 * launch record what they are given, so the drivers are seen to render in
 * the backend's dialect, find kernels again by structural key (the cache
 * above the table: one build per key), and launch
 * with the packed argument -- on no particular device.  Also the dispatch
 * (em_algo_*): the CPU's precompiled ops where present, else the drivers. */
#include "backend/backend.h"
#include "codegen/render.h"
#include "codegen/run.h"
#include "ctest.h"

#include <stdlib.h>

static const em_device cpu = {EM_CPU, 0};
/* A device's limits, as every backend reports them: launches are checked
 * against them above the table (codegen/run_module.c). */
static em_device_props stub_props = {.multiprocessor_count = 4,
                                     .max_grid_dim = {1 << 30, 1, 1},
                                     .max_block_dim = {1024, 1, 1},
                                     .max_threads_per_block = 1024};

static struct {
    int finds, gets, launches;
    unsigned grid, block;
    bool kargs;  /* launches given an em_kargs (the templates' drivers) */
    em_kargs ka; /* the last such launch's argument */
    unsigned char blob[1024];
    char key[512], src[8192];
    em_kfn k;
    bool have;
} st;

static em_status stub_props_ref(int id, const em_device_props **out) {
    *out = &stub_props;
    return EM_OK;
}

/* The table's module primitives: a build records the kernel's source (the
 * cache above the table decides when there is one), a function is a
 * distinct handle, a launch records its shape and argument. */
static em_status stub_build(int id, const char *src, const char *name, const em_build_opts *o,
                            void **mod, char **lowered) {
    st.gets++;
    /* The kernel after the dialect's prelude (the scalar library, long). */
    const char *end = strstr(src, EM_PRELUDE_END);
    snprintf(st.src, sizeof st.src, "%s", end ? end + strlen(EM_PRELUDE_END) : src);
    snprintf(st.key, sizeof st.key, "%s", name);
    *mod = &st;
    return o->raw || lowered ? EM_EINTERNAL : EM_OK; /* the drivers build Ember's own */
}

static em_status stub_function(int id, void *mod, const char *fname, void **fn) {
    st.finds++;
    *fn = &st.k;
    return mod == &st ? EM_OK : EM_EINTERNAL;
}

static em_status stub_launch(int id, void *fn, const char *name, const unsigned grid[3],
                             const unsigned block[3], unsigned shmem, void *stream, void *arg) {
    st.launches++, st.grid = grid[0], st.block = block[0];
    if (fn != &st.k || stream != EM_STREAM_CURRENT || grid[1] != 1 || block[2] != 1)
        return EM_EINTERNAL;
    if (!st.kargs) return EM_OK; /* eval's OpenCL form is its own (render.h) */
    st.ka = *(const em_kargs *)arg;
    if (st.ka.blob_size <= sizeof st.blob) memcpy(st.blob, st.ka.blob, st.ka.blob_size);
    return EM_OK;
}

static const em_backend stub = {
    .name = "stub",
    .kind = EM_CPU,
    .dialect = "opencl",
    .props_ref = stub_props_ref,
    .module_build = stub_build,
    .function = stub_function,
    .launch = stub_launch,
};

static void test_eval_renders_in_the_backends_dialect(void) {
    int64_t sh[1] = {10000};
    em_array a, b, o;
    CHECK(em_array_empty(&a, EM_FLOAT32, 1, sh, cpu) == EM_OK);
    CHECK(em_array_empty(&b, EM_FLOAT32, 1, sh, cpu) == EM_OK);
    CHECK(em_array_empty(&o, EM_FLOAT32, 1, sh, cpu) == EM_OK);
    em_node la, lb, r;
    em_node_leaf(&la, &a), em_node_leaf(&lb, &b);
    em_dtype loop, odt;
    CHECK(em_op_resolve(EM_OP_ADD, EM_FLOAT32, &loop, &odt) == EM_OK);
    r = (em_node){.op = EM_OP_ADD, .loop = loop, .dtype = odt, .nin = 2, .in = {&la, &lb}};
    uint64_t h1 = 0, h2 = 0;
    CHECK(em_algo_eval(&stub, &r, &o, &h1) == EM_OK);
    CHECK(st.gets == 1 && st.launches == 1 && h1 != 0);
    CHECK(strstr(st.src, "__kernel void") && strstr(st.src, "__global char *d0"));
    /* The OpenCL form's wide loop (float4 loads, as CUDA's 4 floats per
     * thread): a work-item per group of 4, as the kernel's loop takes them. */
    CHECK(strstr(st.src, "((__global const float4 *)d1)[g]") != NULL);
    CHECK(st.block == EM_RUN_BLOCK && st.grid == (10000 / 4 + 255) / 256);
    /* The second launch finds the kernel: nothing rendered again. */
    CHECK(em_algo_eval(&stub, &r, &o, &h2) == EM_OK);
    CHECK(st.gets == 1 && st.launches == 2 && h2 == h1);
    /* A block past the device's limit is refused above the table, for any
     * backend, before the runtime sees the launch. */
    stub_props.max_threads_per_block = 128;
    CHECK(em_algo_eval(&stub, &r, &o, &h2) == EM_ELAUNCH && st.launches == 2);
    CHECK(strstr(em_last_error(), "'add_float32': a block of 256 x 1 x 1 = 256 threads exceeds "
                                  "the device limit of 128 threads per block") != NULL);
    stub_props.max_threads_per_block = 1024;
    em_array_release(&a), em_array_release(&b), em_array_release(&o);
}

/* The templates' drivers launch an OpenCL backend with the em_kargs form
 * (backend.h): the pointer slots as buffers, in the kernel's order, and
 * the packed numbers whole. */
static void test_templates_launch_kargs(void) {
    int64_t sh[2] = {3, 5}, three[1] = {3};
    em_array a, o;
    CHECK(em_array_empty(&a, EM_FLOAT32, 2, sh, cpu) == EM_OK);
    CHECK(em_array_empty(&o, EM_FLOAT32, 1, three, cpu) == EM_OK);
    em_random_req req = {.kind = EM_RAND_UNIFORM, .key = 1};
    int before = st.launches;
    st.kargs = true;
    CHECK(em_algo_random(&stub, &a, &req) == EM_OK && st.launches == before + 1);
    CHECK(strstr(st.src, "__kernel void") && strstr(st.src, "const em_argv a)"));
    /* out, n, key, counter, low, range, then the transform's pa and pb */
    CHECK(st.ka.nbuf == 1 && st.ka.buf[0] == a.data && st.ka.blob_size == 64);
    uint64_t n = 0;
    memcpy(&n, st.blob + 8, 8);
    CHECK(n == 15);
    int axes[1] = {1};
    CHECK(em_algo_reduce(&stub, EM_RED_SUM, &a, 1, axes, EM_FLOAT32, 0, NULL, &o) == EM_OK);
    CHECK(strstr(st.src, "em_kernel(__global char *d0, ulong o0, __global char *d1, ulong o1, "
                         "__global char *d2, ulong o2, const em_argv a)"));
    /* in, out, part (none: one pass, so another buffer stands in); in the
     * blob: nout, m after the pointer slots */
    CHECK(st.ka.nbuf == 3 && st.ka.buf[0] == a.data && st.ka.buf[1] == o.data &&
          st.ka.buf[2] == a.data);
    int64_t nout = 0, m = 0;
    memcpy(&nout, st.blob + 24, 8), memcpy(&m, st.blob + 32, 8);
    CHECK(nout == 3 && m == 5 && st.ka.blob_size == 8 * (7 + 4));
    st.kargs = false;
    em_array_release(&a), em_array_release(&o);
}

/* The CPU has precompiled ops and compiles nothing; CUDA the reverse. */
static void test_tables(void) {
    CHECK(em_cpu_backend.ops && em_cpu_backend.ops->eval && !em_cpu_backend.module_build &&
          !em_cpu_backend.launch && !em_cpu_backend.dialect);
    CHECK(!em_cuda_backend.ops && em_cuda_backend.module_build && em_cuda_backend.function &&
          em_cuda_backend.launch && !strcmp(em_cuda_backend.dialect, "cuda"));
    CHECK(!em_opencl_backend.ops && em_opencl_backend.module_build && em_opencl_backend.function &&
          em_opencl_backend.launch && em_opencl_backend.stream_create &&
          !strcmp(em_opencl_backend.dialect, "opencl"));
    const em_dialect *d = NULL;
    CHECK(em_run_dialect(&em_cpu_backend, &d) == EM_EUNSUPPORTED && !d);
    CHECK(em_run_dialect(&em_cuda_backend, &d) == EM_OK && d == &em_dialect_cuda);
}

int main(void) {
    RUN(test_eval_renders_in_the_backends_dialect);
    RUN(test_templates_launch_kargs);
    RUN(test_tables);
    return ctest_summary();
}
