/* CUDA's single-pass unique (EM_UQ_ONE, render_unique.c) without a GPU:
 * render errors, and the kernel run on the host (scan_emul.h: POSIX threads
 * as a block, blocks one after another, a third of the tiles left at their
 * totals so that look-backs walk over several) against a sequential pass
 * through the kernel's own em_uq_eq: values byte for byte, first indices,
 * indices through a permutation, the inverse and nu, on sorted data with
 * runs, -0.0 beside 0.0 and NaN tails, lengths around the tile, vector and
 * scalar loads, and a grid that loops.  Skips when there is no C++ compiler. */
#include "codegen/render_unique.h"
#include "ctest.h"
#include "scan_emul.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char UQ_POST[] =
    "\n// ---- harness ----\n"
    "#define EM_B 256\n"
    "typedef void (*em_kfn)(const em_args);\n"
    "static em_args em_cur_a;\n"
    "static void *em_thread(void *v) {\n"
    "    threadIdx.x = (unsigned)(size_t)v, threadIdx.y = threadIdx.z = 0;\n"
    "    for (unsigned b = 0; b < gridDim.x; b++) {\n"
    "        blockIdx.x = b, blockIdx.y = blockIdx.z = 0;\n"
    "        em_kernel(em_cur_a);\n"
    "        pthread_barrier_wait(&em_bar);\n"
    "    }\n"
    "    return 0;\n"
    "}\n"
    "static void em_launch(const em_args &a, unsigned grid) {\n"
    "    blockDim.x = EM_B, blockDim.y = blockDim.z = 1, gridDim.x = grid, gridDim.y = gridDim.z = 1;\n"
    "    em_cur_a = a;\n"
    "    pthread_t t[EM_B];\n"
    "    pthread_barrier_init(&em_bar, 0, EM_B);\n"
    "    for (int w = 0; w < EM_B / 32; w++) pthread_barrier_init(&em_swbar[w], 0, 32);\n"
    "    for (size_t i = 0; i < EM_B; i++) if (pthread_create(&t[i], 0, em_thread, (void *)i)) abort();\n"
    "    for (int i = 0; i < EM_B; i++) pthread_join(t[i], 0);\n"
    "    pthread_barrier_destroy(&em_bar);\n"
    "    for (int w = 0; w < EM_B / 32; w++) pthread_barrier_destroy(&em_swbar[w]);\n"
    "}\n"
    "static unsigned long long em_rs = 88172645463325252ULL;\n"
    "static unsigned em_rnd(unsigned n) { em_rs ^= em_rs << 13; em_rs ^= em_rs >> 7; em_rs ^= em_rs << 17; return (unsigned)(em_rs % n); }\n"
    "// Level l's value (ascending in l); nan: a NaN (floats), z: -0.0 for 0.\n"
    "template <class T> static void em_set(T &x, long long l, bool nan, bool z) { x = (T)(l > 100 ? 100 : l); }\n"
    "static void em_set(bool &x, long long l, bool nan, bool z) { x = l > 0; }\n"
    "static double em_fv(long long l, bool nan, bool z) {\n"
    "    if (nan) return (l & 1) ? -NAN : NAN;\n"
    "    const double v = (double)(l - 40) * 0.5;\n"
    "    return v == 0 && z ? -0.0 : l > 200 ? INFINITY : v;\n"
    "}\n"
    "static void em_set(float &x, long long l, bool nan, bool z) { x = (float)em_fv(l, nan, z); }\n"
    "static void em_set(double &x, long long l, bool nan, bool z) { x = em_fv(l, nan, z); }\n"
    "static void em_set(em_f16 &x, long long l, bool nan, bool z) { x = em_d2h(em_fv(l > 60 ? 60 : l, nan, z)); }\n"
    "static void em_set(em_c64 &x, long long l, bool nan, bool z) {\n"
    "    x.re = (float)em_fv(l / 3, nan && (l & 2), z), x.im = (float)em_fv(l % 3, nan && !(l & 2), z);\n"
    "}\n"
    "static void em_set(em_c128 &x, long long l, bool nan, bool z) {\n"
    "    x.re = em_fv(l / 3, nan && (l & 2), z), x.im = em_fv(l % 3, nan && !(l & 2), z);\n"
    "}\n"
    "int main(int argc, char **argv) {\n"
    "    // n grid step(1/step: a new level) seed\n"
    "    const long long n = atoll(argv[1]);\n"
    "    const unsigned grid = (unsigned)atoi(argv[2]), step = (unsigned)atoi(argv[3]);\n"
    "    em_rs += (unsigned long long)atoll(argv[4]) * 0x9E3779B97F4A7C15ULL;\n"
    "    const long long nt = (n + EM_UQ_T1 - 1) / EM_UQ_T1;\n"
    "    em_t *s = (em_t *)aligned_alloc(16, (size_t)(n + 16) * sizeof(em_t));\n"
    "    long long l = 0, nn = n / 10; // the last tenth NaN (floats)\n"
    "    for (long long j = 0; j < n; j++) {\n"
    "        if (em_rnd(step) == 0) l++;\n"
    "        em_set(s[j], l, j >= n - nn, em_rnd(2));\n"
    "    }\n"
    "    long long *perm = (long long *)calloc((size_t)n, 8);\n"
    "    for (long long j = 0; j < n; j++) perm[j] = n - 1 - j;\n"
    "    em_t *vals = (em_t *)calloc((size_t)n, sizeof(em_t)), *rv = (em_t *)calloc((size_t)n, sizeof(em_t));\n"
    "    long long *first = (long long *)calloc((size_t)n, 8), *idx = (long long *)calloc((size_t)n, 8),\n"
    "              *inv = (long long *)calloc((size_t)n, 8), *rf = (long long *)calloc((size_t)n, 8),\n"
    "              *ri = (long long *)calloc((size_t)n, 8);\n"
    "    long long nu = 0;\n"
    "    for (long long j = 0; j < n; j++) {\n"
    "        if (j == 0 || !em_uq_eq(s[j - 1], s[j])) rv[nu] = s[j], rf[nu++] = j;\n"
    "        ri[perm[j]] = nu - 1;\n"
    "    }\n"
    "    char *part = (char *)calloc((size_t)(24 + 8 * nt), 1);\n"
    "    em_args p; memset(&p, 0, sizeof p);\n"
    "    p.s = (char *)s, p.vals = (char *)vals, p.first = (char *)first, p.perm = (char *)perm;\n"
    "    p.idx = (char *)idx, p.inv = (char *)inv, p.part = part, p.n = n, p.ntile = nt;\n"
    "    em_launch(p, grid);\n"
    "    long long bad = 0, got = *(long long *)(part + 16 + 8 * nt);\n"
    "    if (got != nu) fprintf(stderr, \"nu %lld, want %lld\\n\", got, nu), bad++;\n"
    "    for (long long k = 0; k < nu && bad < 5; k++) {\n"
    "        if (memcmp(&vals[k], &rv[k], sizeof(em_t))) fprintf(stderr, \"vals[%lld]\\n\", k), bad++;\n"
    "        if (EM_UQ_FIRST && first[k] != rf[k]) fprintf(stderr, \"first[%lld] %lld want %lld\\n\", k, first[k], rf[k]), bad++;\n"
    "        if (EM_UQ_IDX && idx[k] != perm[rf[k]]) fprintf(stderr, \"idx[%lld]\\n\", k), bad++;\n"
    "    }\n"
    "    for (long long j = 0; EM_UQ_INV && j < n && bad < 5; j++)\n"
    "        if (inv[j] != ri[j]) fprintf(stderr, \"inv[%lld] %lld want %lld\\n\", j, inv[j], ri[j]), bad++;\n"
    "    if (bad) fprintf(stderr, \"n=%lld grid=%u step=%u: wrong\\n\", n, grid, step);\n"
    "    return bad ? 1 : 0;\n"
    "}\n";

static bool have_cxx(void) { return ctest_have_cxx(); }

/* Build k's kernel with the harness and run it on each "n grid step seed". */
static bool emulate(const char *dir, const em_uq_spec *k, int nruns, const char *const *runs) {
    char src[600], exe[600], cmd[1400];
    snprintf(src, sizeof src, "%s/uq.cpp", dir), snprintf(exe, sizeof exe, "%s/uq", dir);
    em_sbuf s = {0};
    em_sbuf_printf(&s, "%sstatic int __popc(unsigned x) { return __builtin_popcount(x); }\n",
                   EMUL_PRE);
    bool ok = em_render_unique(&em_dialect_cuda, k, &s) == EM_OK;
    em_sbuf_printf(&s, "%s", UQ_POST);
    FILE *f = ok && !s.oom ? fopen(src, "w") : NULL;
    ok = f && fputs(s.s, f) >= 0;
    if (f) fclose(f);
    em_sbuf_free(&s);
    snprintf(cmd, sizeof cmd, "c++ -std=c++17 -O1 -fwrapv -ffp-contract=off -w -pthread -o %s %s",
             exe, src);
    if (ok && system(cmd) != 0) {
        fprintf(stderr, "could not build %s\n", src);
        return false;
    }
    for (int i = 0; ok && i < nruns; i++) {
        snprintf(cmd, sizeof cmd, "%s %s", exe, runs[i]);
        ok = system(cmd) == 0;
        if (!ok) fprintf(stderr, "failed: %s (kernel source %s, dtype %d)\n", cmd, src, k->dtype);
    }
    return ok;
}

static void test_render_errors(void) {
    em_sbuf s = {0};
    em_uq_spec k = {.mode = EM_UQ_ONE, .dtype = EM_FLOAT32, .equal_nan = true};
    CHECK(em_render_unique(&em_dialect_opencl, &k, &s) == EM_EUNSUPPORTED);
    em_sbuf_free(&s);
    k.filt = 1;
    CHECK(em_render_unique(&em_dialect_cuda, &k, &s) == EM_EUNSUPPORTED);
    em_sbuf_free(&s);
    k.filt = 0, k.dtype = EM_COMPLEX128;
    CHECK(em_render_unique(&em_dialect_cuda, &k, &s) == EM_OK && s.s && strstr(s.s, "em_lookback"));
    em_sbuf_free(&s);
    CHECK(em_uq_one_items(EM_INT8, 64) == 32 && em_uq_one_items(EM_FLOAT32, 64) == 16 &&
          em_uq_one_items(EM_COMPLEX128, 64) == 4 && em_uq_one_items(EM_FLOAT32, 128) == 32 &&
          em_uq_one_items(EM_COMPLEX128, 1) == 4 && em_uq_one_items(EM_INT8, 128) == 32);
}

static void test_emulated(void) {
    if (!have_cxx()) return;
    char dir[] = "/tmp/ember_uq_emul_XXXXXX";
    if (!mkdtemp(dir)) return;
    /* float32: tiles of 4096; every element its own value (step 1), long runs,
     * one element, a partial last tile, a grid of one block that loops */
    static const char *const f32[] = {"1 1 1 1",     "4095 1 1 2",   "4096 1 3 3",
                                      "4097 2 1 4",  "12305 4 2 5",  "12305 1 50 6",
                                      "16384 4 1 7", "9000 3 4000 8"};
    em_uq_spec k = {.mode = EM_UQ_ONE, .dtype = EM_FLOAT32, .equal_nan = true, .vin = true};
    CHECK(emulate(dir, &k, 8, f32));
    k.vin = false, k.first = k.idx = k.inv = true;
    CHECK(emulate(dir, &k, 4, f32 + 3));
    k.equal_nan = false, k.vin = true, k.minb = 4; /* __launch_bounds__(256, 4) */
    CHECK(emulate(dir, &k, 2, f32 + 4));
    /* the tuning forms: the next tile's loads during the look-back, tiles of
     * 128 bytes a thread (8 rows: 8-bit row counts), two windows a round */
    static const int tune[][3] = {{0, 0, 1}, {128, 2, 0}, {128, 1, 1}, {32, 4, 1}};
    for (int t = 0; t < 4; t++) {
        k = (em_uq_spec){.mode = EM_UQ_ONE, .dtype = EM_FLOAT32, .equal_nan = true, .vin = t != 1};
        k.bytes = tune[t][0], k.lbq = tune[t][1], k.pf = tune[t][2];
        k.first = k.inv = t % 2 == 1, k.idx = t == 3;
        CHECK(emulate(dir, &k, 8, f32));
        k.dtype = t % 2 ? EM_FLOAT64 : EM_COMPLEX128;
        CHECK(emulate(dir, &k, 4, f32 + 4));
    }
    static const char *const small[] = {"3 1 1 1", "2049 2 2 2", "6000 3 7 3"};
    static const em_dtype dts[] = {EM_BOOL,  EM_INT8,    EM_UINT16,    EM_FLOAT16,
                                   EM_INT64, EM_FLOAT64, EM_COMPLEX64, EM_COMPLEX128};
    for (int i = 0; i < 8; i++) {
        k = (em_uq_spec){.mode = EM_UQ_ONE, .dtype = dts[i], .equal_nan = true, .vin = true};
        k.first = k.inv = i % 2 == 0;
        CHECK(emulate(dir, &k, 3, small));
        k.bytes = 128, k.pf = true, k.first = !k.first;
        CHECK(emulate(dir, &k, 3, small));
    }
    char cmd[100];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    if (system(cmd) != 0) fprintf(stderr, "could not remove %s\n", dir);
}

int main(void) {
    RUN(test_render_errors);
    RUN(test_emulated);
    return ctest_summary();
}
