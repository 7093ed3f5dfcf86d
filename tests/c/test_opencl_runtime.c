/* The OpenCL runtime through the backend table, on opencl:0 (PoCL's CPU
 * device in CI): synthetic addresses, the pool, copies, fills, a kernel of
 * Ember's launched with an em_kargs, and a raw program.  Skips (passes)
 * when no OpenCL platform loads. */
#include "backend/backend.h"
#include "backend/opencl/cl_internal.h"
#include "codegen/run.h"
#include "codegen/sbuf.h"
#include "ctest.h"
#include "ember/opencl.h"

#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static const em_backend *be;

static void test_props(void) {
    em_device_props p;
    em_opencl_info in;
    CHECK(be->props(0, &p) == EM_OK && em_opencl_device_info(0, &in) == EM_OK);
    CHECK(p.name[0] && !strcmp(p.name, in.name) && p.total_memory == in.total_memory);
    CHECK(p.max_threads_per_block == (int)in.max_work_group_size && in.max_alloc > 0);
    CHECK(em_opencl_device_info(99, &in) == EM_EDEVICE);
}

static void test_addresses_and_pool(void) {
    void *a = NULL, *b = NULL, *m = NULL;
    size_t off = 1;
    CHECK(be->alloc(0, 1000, &a) == EM_OK && a);
    CHECK(em_opencl_decode((char *)a + 24, &m, &off) == EM_OK && m && off == 24);
    CHECK(em_opencl_decode((void *)(uintptr_t)12345, &m, &off) == EM_EVALUE); /* slot 0 */
    size_t used, held;
    em_opencl_pool_stats(0, &used, &held);
    CHECK(used >= 1024 && held >= used);
    be->free(0, a, 1000);
    CHECK(be->alloc(0, 900, &b) == EM_OK && b == a); /* the cached block comes back */
    be->free(0, b, 900);
    em_opencl_pool_set_limit(0, 4096);
    CHECK(be->alloc(0, 8192, &b) == EM_ENOMEM && strstr(em_last_error(), "pool limit"));
    em_opencl_pool_set_limit(0, 0);
    em_opencl_pool_free_all(0);
    em_opencl_pool_stats(0, &used, &held);
    CHECK(held == used);
}

static void test_copies_and_fill(void) {
    int32_t h[64], back[64];
    for (int i = 0; i < 64; i++) h[i] = i * 3 - 7;
    void *a, *b;
    CHECK(be->alloc(0, sizeof h, &a) == EM_OK && be->alloc(0, sizeof h, &b) == EM_OK);
    CHECK(be->from_host(0, a, h, sizeof h) == EM_OK);
    CHECK(be->copy(0, (char *)b + 8, (char *)a + 4, 40) == EM_OK); /* offsets on both sides */
    CHECK(be->fill(0, b, 2, 4, 0xdeadbeefu) == EM_OK);
    CHECK(be->to_host(0, back, b, 48) == EM_OK);
    CHECK((uint32_t)back[0] == 0xdeadbeefu && (uint32_t)back[1] == 0xdeadbeefu);
    for (int i = 0; i < 10; i++) CHECK(back[2 + i] == h[1 + i]);
    CHECK(be->fill(0, (char *)a + 1, 5, 1, 0x7f) == EM_OK);
    CHECK(be->fill(0, (char *)a + 1, 5, 2, 0) == EM_EUNSUPPORTED); /* misaligned pattern */
    CHECK(be->to_host(0, back, a, 8) == EM_OK && be->synchronize(0) == EM_OK);
    CHECK(((unsigned char *)back)[0] == (unsigned char)h[0] && ((char *)back)[1] == 0x7f &&
          ((char *)back)[5] == 0x7f);
    be->free(0, a, sizeof h), be->free(0, b, sizeof h);
}

static em_status render_scale(const void *ctx, void *src) {
    (void)ctx;
    em_sbuf_printf(src, "typedef struct { long n; float f; } em_args;\n"
                        "__kernel void k(__global char *d0, ulong o0, __global char *d1, "
                        "ulong o1, const em_args p) {\n"
                        "    d0 += o0; d1 += o1;\n"
                        "    for (long i = get_global_id(0); i < p.n; i += get_global_size(0))\n"
                        "        ((__global float *)d0)[i] = p.f * ((__global float *)d1)[i];\n"
                        "}\n");
    return EM_OK;
}

static em_status render_bad(const void *ctx, void *src) {
    (void)ctx;
    em_sbuf_printf(src, "%s__kernel void k(void) { undeclared_x = 1; }\n", EM_PRELUDE_END);
    return EM_OK;
}

/* A kernel no cache holds: a comment with the process id and the time. */
static em_status render_fresh(const void *ctx, void *src) {
    em_sbuf_printf(src, "// %s %ld %ld\n__kernel void k(__global int *a) { a[0] = 1; }\n",
                   (const char *)ctx, (long)getpid(), (long)time(NULL));
    return EM_OK;
}

/* PoCL's kernel-cache race (build.c): a build failing with no error in its
 * log is tried twice more; one that keeps failing is EM_ECOMPILE. */
static void test_build_retry(void) {
    const em_kfn *k = NULL;
    const char k1[] = "test_opencl_runtime retry 1", k2[] = "test_opencl_runtime retry 2";
    em_cl_build_flake(2);
    CHECK(em_run_get(be, 0, k1, sizeof k1 - 1, 11, "fresh", "k", render_fresh, "one", &k) == EM_OK);
    CHECK(k && !strcmp(k->name, "fresh"));
    em_cl_build_flake(3);
    CHECK(em_run_get(be, 0, k2, sizeof k2 - 1, 12, "fresh", "k", render_fresh, "two", &k) ==
          EM_ECOMPILE);
    CHECK(strstr(em_last_error(), "could not build kernel 'fresh'"));
    em_cl_build_flake(0);
    CHECK(em_run_get(be, 0, k2, sizeof k2 - 1, 12, "fresh", "k", render_fresh, "two", &k) == EM_OK);
}

/* An em_kargs launch: buffers with their offsets, then the struct; the
 * kernel built and found through the cache above the table
 * (codegen/run_module.c) over module_build and function. */
static void test_kargs_launch(void) {
    const em_kfn *k = NULL;
    const char key[] = "test_opencl_runtime scale";
    uint64_t h = 0x1234;
    CHECK(em_run_find(be, 0, key, sizeof key - 1, h) == NULL);
    CHECK(em_run_get(be, 0, key, sizeof key - 1, h, "scale", "k", render_scale, NULL, &k) == EM_OK);
    CHECK(em_run_find(be, 0, key, sizeof key - 1, h) == k && !strcmp(k->name, "scale"));
    CHECK(em_run_get(be, 0, "other", 5, h, "scale", "nope", render_scale, NULL, &k) == EM_EVALUE);
    CHECK(strstr(em_last_error(), "no kernel named 'nope'"));
    CHECK(em_run_get(be, 0, key, sizeof key - 1, h, "scale", "k", render_scale, NULL, &k) == EM_OK);
    float x[40], y[40] = {0};
    for (int i = 0; i < 40; i++) x[i] = (float)i;
    void *a, *b;
    CHECK(be->alloc(0, sizeof x, &a) == EM_OK && be->alloc(0, sizeof y, &b) == EM_OK);
    CHECK(be->from_host(0, a, x, sizeof x) == EM_OK && be->from_host(0, b, y, sizeof y) == EM_OK);
    struct {
        int64_t n;
        float f;
        int32_t pad;
    } blob = {30, 2.5f, 0};
    em_kargs ka = {
        .nbuf = 2, .buf = {(char *)b + 8, (char *)a + 4}, .blob = &blob, .blob_size = sizeof blob};
    CHECK(em_run_launch1(be, 0, k, 2, 16, 0, &ka, true) == EM_OK);
    /* beyond the work-group limit */
    CHECK(em_run_launch1(be, 0, k, 1, 1u << 30, 0, &ka, true) == EM_ELAUNCH);
    const unsigned g2[3] = {1, 2, 1}, b1[3] = {16, 1, 1};
    CHECK(be->launch(0, k->fn, "k", g2, b1, 0, NULL, &ka) == EM_EUNSUPPORTED);
    CHECK(be->to_host(0, y, b, sizeof y) == EM_OK);
    CHECK(y[0] == 0 && y[1] == 0 && y[2] == 2.5f * 1 && y[31] == 2.5f * 30 && y[32] == 0);
    be->free(0, a, sizeof x), be->free(0, b, sizeof y);
    const char bad[] = "test_opencl_runtime bad";
    CHECK(em_run_get(be, 0, bad, sizeof bad - 1, 7, "bad", "k", render_bad, NULL, &k) ==
          EM_ECOMPILE);
    CHECK(strstr(em_last_error(), "undeclared_x") && strstr(em_last_error(), ":3:") &&
          strstr(em_last_error(), "   3  __kernel") /* numbered as the compiler counts */);
}

static void test_raw_program(void) {
    void *prog = NULL, *k = NULL, *buf;
    CHECK(em_opencl_program_build(0,
                                  "__kernel void inc(__global int *a, int by) "
                                  "{ a[get_global_id(0)] += by; }",
                                  "", &prog) == EM_OK);
    CHECK(em_opencl_kernel_create(0, prog, "nope", &k) == EM_EVALUE);
    CHECK(em_opencl_kernel_create(0, prog, "inc", &k) == EM_OK);
    int n = 0;
    CHECK(em_opencl_kernel_nargs(k, &n) == EM_OK && n == 2);
    int32_t v[8] = {0}, by = 4;
    CHECK(be->alloc(0, sizeof v, &buf) == EM_OK && be->from_host(0, buf, v, sizeof v) == EM_OK);
    em_clarg args[2] = {{EM_CLARG_BUFFER, sizeof buf, buf}, {EM_CLARG_BYTES, 4, &by}};
    size_t g = 8, l = 3;
    CHECK(em_opencl_launch_raw(0, k, "inc", 1, &g, &l, 2, args) == EM_ELAUNCH); /* 8 % 3 */
    l = 4;
    CHECK(em_opencl_launch_raw(0, k, "inc", 1, &g, &l, 2, args) == EM_OK);
    CHECK(be->to_host(0, v, buf, sizeof v) == EM_OK && v[0] == 4 && v[7] == 4);
    args[0].value = (char *)buf + 4; /* a view: refused */
    CHECK(em_opencl_launch_raw(0, k, "inc", 1, &g, NULL, 2, args) == EM_EVALUE);
    em_opencl_kernel_release(k);
    be->free(0, buf, sizeof v);
}

/* A stream takes the thread's work; blocks freed on it are reused there
 * only; events time the work between them. */
static void test_streams_and_events(void) {
    void *st = NULL, *e0 = NULL, *e1 = NULL, *a = NULL, *b = NULL;
    int32_t v[256], back[256];
    for (int i = 0; i < 256; i++) v[i] = i;
    CHECK(em_opencl_stream_create(0, &st) == EM_OK && st);
    CHECK(be->alloc(0, sizeof v, &a) == EM_OK);
    be->free(0, a, sizeof v); /* cached on the device's own queue */
    CHECK(em_opencl_stream_set(0, st) == EM_OK && em_opencl_stream_get() == st);
    CHECK(be->alloc(0, sizeof v, &b) == EM_OK && b != a); /* not reused across queues */
    CHECK(em_opencl_event_record(0, NULL, &e0) == EM_OK);
    CHECK(be->from_host(0, b, v, sizeof v) == EM_OK && be->fill(0, b, 8, 4, 9) == EM_OK);
    CHECK(em_opencl_event_record(0, NULL, &e1) == EM_OK);
    float ms = -1;
    CHECK(em_opencl_event_elapsed(e0, e1, &ms) == EM_OK && ms >= 0);
    CHECK(em_opencl_stream_sync(0, st) == EM_OK && be->to_host(0, back, b, sizeof back) == EM_OK);
    CHECK(back[0] == 9 && back[7] == 9 && back[8] == 8 && back[255] == 255);
    be->free(0, b, sizeof v);
    CHECK(em_opencl_stream_set(0, NULL) == EM_OK && em_opencl_stream_get() == NULL);
    em_opencl_event_destroy(e0), em_opencl_event_destroy(e1);
    CHECK(em_opencl_stream_destroy(0, st) == EM_OK);
    em_opencl_pool_free_all(0);
}

int main(void) {
    int n = 0;
    be = em__backend(EM_OPENCL);
    if (em_device_count(EM_OPENCL, &n) != EM_OK || n == 0) {
        printf("skip test_opencl_runtime: no OpenCL device (%s)\n", em_last_error());
        return 0;
    }
    RUN(test_props);
    RUN(test_addresses_and_pool);
    RUN(test_copies_and_fill);
    RUN(test_kargs_launch);
    RUN(test_raw_program);
    RUN(test_build_retry);
    RUN(test_streams_and_events);
    return ctest_summary();
}
