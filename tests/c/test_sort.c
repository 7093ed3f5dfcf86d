/* The radix sort's kernels (codegen/render_sort.c) and driver
 * (codegen/run_sort.c) without a GPU:
 *   - every dtype's source renders for CUDA and OpenCL, compiles with NVRTC
 *     where it loads and with the OpenCL platform where one loads (PoCL);
 *   - the CUDA text runs on the host: the driver em_run_sort drives a fake
 *     backend whose module_build builds the rendered source as C++ (CUDA's
 *     block model on one OS thread: a coroutine per thread, blocks one
 *     after another, __shared__ as statics, __syncthreads() a yield; a
 *     grid of at most 3 blocks, so every kernel's block loop turns) and
 *     whose memory is host memory.  Results are compared with a stable
 *     merge sort by NumPy's order written here independently (NaNs last,
 *     -0.0 == 0.0, complex by real then imaginary part). */
#include "backend/backend.h"
#include "backend/cuda/cuda_internal.h"
#include "backend/opencl/opencl.h"
#include "codegen/diskcache.h"
#include "codegen/render_sort.h"
#include "codegen/run_sort.h"
#include "ctest.h"

#include <dlfcn.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <unistd.h>

static const em_sort_spec *specs(int *count) {
    static em_sort_spec all[EM_NDTYPES * 4];
    int n = 0;
    for (int dt = 0; dt < EM_NDTYPES; dt++)
        for (int v = 0; v < 4; v++) {
            int kb = em_sort_key_bits((em_dtype)dt);
            bool seghi = v == 3 && kb <= 32;
            all[n++] = (em_sort_spec){(em_dtype)dt, kb == 64 || seghi ? 64 : (v == 2 ? 64 : 32),
                                      v & 1,        v >= 2,
                                      seghi,        1 + v};
        }
    *count = n;
    return all;
}

static void test_render(void) {
    int n;
    const em_sort_spec *c = specs(&n);
    for (int i = 0; i < n; i++) {
        em_sbuf s = {0}, o = {0}, k = {0};
        CHECK(em_render_sort(&em_dialect_cuda, &c[i], &s) == EM_OK);
        CHECK(em_render_sort(&em_dialect_opencl, &c[i], &o) == EM_OK);
        CHECK(s.s && strstr(s.s, "em_sort_scatter(const em_args p)") && !strstr(s.s, "${"));
        CHECK(o.s && strstr(o.s, "__global char *d7, ulong o7, const em_argv a)") &&
              !strstr(o.s, "${"));
        /* onesweep is CUDA's only (OpenCL: no forward progress between groups) */
        CHECK(strstr(s.s, "em_sort_onesweep(") && !strstr(o.s, "em_sort_onesweep("));
        em_sort_key(&c[i], &k);
        CHECK(k.s && strstr(k.s, "SORT"));
        em_sbuf_free(&s), em_sbuf_free(&o), em_sbuf_free(&k);
    }
    em_sbuf s = {0};
    em_sort_spec bad = {EM_FLOAT64, 32, false, true, false, 1};
    CHECK(em_render_sort(&em_dialect_cuda, &bad, &s) == EM_EVALUE);
    bad = (em_sort_spec){EM_INT32, 32, false, true, true, 1}; /* seghi needs 64-bit keys */
    CHECK(em_render_sort(&em_dialect_cuda, &bad, &s) == EM_EVALUE);
    bad = (em_sort_spec){EM_INT32, 32, false, true, false, 0};
    CHECK(em_render_sort(&em_dialect_cuda, &bad, &s) == EM_EVALUE);
    bad.nd = 1;
    CHECK(em_render_sort(&em_dialect_c, &bad, &s) == EM_EUNSUPPORTED);
    /* a pass kernel over 48 KiB of shared memory, or a block not of warps */
    bad = (em_sort_spec){EM_INT32, 32, false, true, false, 1};
    bad.ob = 384, bad.oi = 32;
    CHECK(em_render_sort(&em_dialect_cuda, &bad, &s) == EM_EVALUE);
    bad.ob = 300, bad.oi = 4;
    CHECK(em_render_sort(&em_dialect_cuda, &bad, &s) == EM_EVALUE);
    CHECK(em_sort_os_smem(256, 16, 32, true, 0) <= 48 * 1024);
    /* the warps' counters share the tile's words: 384 x 24 keys with 32-bit
     * values fit, 384 x 25 do not; a small tile still holds the counters */
    CHECK(em_sort_os_smem(384, 24, 32, true, 0) <= 48 * 1024);
    CHECK(em_sort_os_smem(384, 25, 32, true, 0) > 48 * 1024);
    CHECK(em_sort_os_smem(1024, 1, 32, false, 0) >= 32 * 1024);
    /* variant 2 (keys alone): the counters beside the tile, not in its words */
    CHECK(em_sort_os_smem(384, 22, 32, false, 2) <= 48 * 1024);
    CHECK(em_sort_os_smem(384, 23, 32, false, 2) > 48 * 1024);
    CHECK(em_sort_os_smem(384, 23, 32, false, 1) <= 48 * 1024);
    CHECK(em_sort_os_smem(384, 24, 32, true, 2) == em_sort_os_smem(384, 24, 32, true, 0));
    em_sbuf_free(&s);
}

static void test_nvrtc(void) {
    if ((ctest_compilers_off() || em_nvrtc_init() != EM_OK)) {
        printf("skip test_nvrtc: %s\n", em_last_error());
        return;
    }
    int n;
    const em_sort_spec *c = specs(&n);
    for (int i = 0; i < n; i++) {
        if (i % 4 != (int)c[i].dtype % 4 || c[i].dtype == EM_INT16 || c[i].dtype == EM_UINT32)
            continue; /* one variant per dtype, the key functions once each: compiles are slow */
        em_sbuf s = {0};
        CHECK(em_render_sort(&em_dialect_cuda, &c[i], &s) == EM_OK);
        void *cubin = NULL;
        size_t len = 0;
        em_status st = em_cuda_compile(s.s, 90, "sort", &cubin, &len);
        if (st != EM_OK)
            fprintf(stderr, "CUDA sort of %s does not compile: %.2000s\n",
                    em_dtype_get(c[i].dtype)->name, em_last_error());
        CHECK(st == EM_OK && len > 0);
        free(cubin);
        em_sbuf_free(&s);
    }
    /* The pass kernel's shapes run_sort.c picks (and a tuning one) compile. */
    static const int shp[][6] = {{EM_FLOAT32, 32, 384, 22, 2, 0}, {EM_INT32, 32, 512, 14, 1, 0},
                                 {EM_FLOAT64, 64, 256, 18, 0, 0}, {EM_UINT8, 32, 288, 3, 0, 1},
                                 {EM_FLOAT32, 32, 384, 26, 2, 0}, {EM_FLOAT32, 32, 384, 20, 2, 1},
                                 {EM_INT64, 64, 384, 13, 2, 1},   {EM_INT32, 32, 256, 16, 3, 1},
                                 {EM_FLOAT32, 32, 384, 24, 2, 1}, {EM_FLOAT64, 64, 384, 14, 2, 0},
                                 {EM_FLOAT32, 32, 384, 22, 3, 0}, {EM_INT32, 32, 256, 32, 4, 0},
                                 {EM_INT64, 64, 384, 10, 2, 0},   {EM_FLOAT32, 32, 384, 24, 2, 1}};
    for (size_t i = 0; i < sizeof shp / sizeof *shp; i++) {
        em_sort_spec c1 = {(em_dtype)shp[i][0], shp[i][1], i & 1, false, false, 1};
        c1.ob = shp[i][2], c1.oi = shp[i][3], c1.om = shp[i][4], c1.ov = shp[i][5];
        c1.omatch = i == 4 || i == 5; /* the match instruction (EMBER_SORT_MATCH=1) */
        c1.ovar = i < 10 ? 0 : i < 12 ? 63 : i < 13 ? 3 : 1; /* variants (EMBER_SORT_VAR) */
        em_sbuf s = {0};
        CHECK(em_render_sort(&em_dialect_cuda, &c1, &s) == EM_OK);
        void *cubin = NULL;
        size_t len = 0;
        em_status st = em_cuda_compile(s.s, 90, "sort", &cubin, &len);
        if (st != EM_OK)
            fprintf(stderr, "shape %zu does not compile: %.2000s\n", i, em_last_error());
        CHECK(st == EM_OK && len > 0);
        free(cubin);
        em_sbuf_free(&s);
    }
}

static void test_opencl(void) {
    if ((ctest_compilers_off() || em_opencl_init() != EM_OK)) {
        printf("skip test_opencl: %s\n", em_last_error());
        return;
    }
    int n;
    const em_sort_spec *c = specs(&n);
    for (int i = 0; i < n; i++) {
        if (i % 4 != ((int)c[i].dtype + 1) % 4) continue; /* one variant per dtype */
        em_sbuf s = {0};
        CHECK(em_render_sort(&em_dialect_opencl, &c[i], &s) == EM_OK);
        char *log = NULL;
        em_status st = em_opencl_build(s.s, "-cl-std=CL1.2", &log);
        if (st != EM_OK)
            fprintf(stderr, "OpenCL sort of %s does not build: %.3000s\n",
                    em_dtype_get(c[i].dtype)->name, log ? log : em_last_error());
        CHECK(st == EM_OK);
        free(log);
        em_sbuf_free(&s);
    }
}

/* ---- the fake backend: host memory, kernels built as C++ ---------------- */

/* A block on one OS thread: each kernel thread is a coroutine (ucontext)
 * and __syncthreads() returns to the scheduler, which runs every thread of
 * the block to its next barrier in turn -- a barrier is a round.  The
 * kernels' barriers are block-uniform, so every round ends with all threads
 * at the same barrier (or done), as on a GPU. */
static const char emul_pre[] =
    "#include <ucontext.h>\n#include <cstring>\n#include <cstdlib>\n#include <cmath>\n"
    "#include <math.h>\n"
    "using std::isinf; using std::isfinite; using std::signbit; using std::isnan;\n"
    "#define __device__\n#define __forceinline__ inline\n#define __global__\n"
    "#define __launch_bounds__(n)\n#define __shared__ static\n"
    "struct em_dim3 { unsigned x, y, z; };\n"
    "static em_dim3 threadIdx, blockIdx, blockDim, gridDim;\n"
    "static ucontext_t em_main, em_co[1024];\n"
    "static int em_t;\n"
    "#define __syncthreads() swapcontext(&em_co[em_t], &em_main)\n"
    /* Warp operations as rounds too: every lane of the block reaches the
     * same ones in the same order (the kernels are written so), so a
     * round holds one warp operation of every lane.  Atomics are plain:
     * one OS thread. */
    "static unsigned em_wv[1024];\n"
    "static void em_round() { swapcontext(&em_co[em_t], &em_main); }\n"
    "static unsigned __match_any_sync(unsigned, unsigned v) {\n"
    "    const int me = em_t;\n"
    "    em_wv[me] = v;\n"
    "    em_round(); // every lane has written\n"
    "    unsigned r = 0;\n"
    "    for (int l = 0; l < 32; l++) r |= (unsigned)(em_wv[(me & ~31) + l] == v) << l;\n"
    "    em_round(); // every lane has read\n"
    "    return r;\n"
    "}\n"
    "static unsigned __ballot_sync(unsigned, int pred) {\n"
    "    const int me = em_t;\n"
    "    em_wv[me] = pred != 0;\n"
    "    em_round();\n"
    "    unsigned r = 0;\n"
    "    for (int l = 0; l < 32; l++) r |= em_wv[(me & ~31) + l] << l;\n"
    "    em_round();\n"
    "    return r;\n"
    "}\n"
    "static unsigned __shfl_up_sync(unsigned, unsigned v, unsigned d) {\n"
    "    const int me = em_t;\n"
    "    em_wv[me] = v;\n"
    "    em_round();\n"
    "    const unsigned r = (unsigned)(me & 31) >= d ? em_wv[me - (int)d] : v;\n"
    "    em_round();\n"
    "    return r;\n"
    "}\n"
    "static unsigned __shfl_sync(unsigned, unsigned v, int src) {\n"
    "    const int me = em_t;\n"
    "    em_wv[me] = v;\n"
    "    em_round();\n"
    "    const unsigned r = em_wv[(me & ~31) + (src & 31)];\n"
    "    em_round();\n"
    "    return r;\n"
    "}\n"
    /* Block-wide: every thread's predicate, then the OR read by each. */
    "static int __syncthreads_or(int pred) {\n"
    "    const int me = em_t;\n"
    "    em_wv[me] = pred != 0;\n"
    "    em_round();\n"
    "    int r = 0;\n"
    "    for (unsigned l = 0; l < blockDim.x; l++) r |= (int)em_wv[l];\n"
    "    em_round();\n"
    "    return r;\n"
    "}\n"
    "#define __clz(x) __builtin_clz((unsigned)(x))\n"
    "#define __syncwarp() em_round()\n"
    "static unsigned atomicAdd(unsigned *a, unsigned v) {\n"
    "    const unsigned o = *a;\n"
    "    *a = o + v;\n"
    "    return o;\n"
    "}\n"
    "#define __popc __builtin_popcount\n"
    "#define __ffs __builtin_ffs\n"
    "struct uint4 { unsigned x, y, z, w; };\n"
    "static uint4 make_uint4(unsigned x, unsigned y, unsigned z, unsigned w) {\n"
    "    uint4 r = {x, y, z, w};\n"
    "    return r;\n"
    "}\n";

static const char emul_post[] =
    "\ntypedef void (*em_kf)(const em_args);\n"
    "static em_kf em_cur; static em_args em_arg; static bool em_done[1024];\n"
    "static void em_entry() { em_cur(em_arg); em_done[em_t] = true; }\n"
    "extern \"C\" int em_emul_launch(void *k, unsigned grid, unsigned block, const void *arg) {\n"
    "    enum { STACK = 64 * 1024 };\n"
    "    static char *stacks;\n"
    "    if (!stacks && !(stacks = (char *)malloc((size_t)STACK * 1024))) return 1;\n"
    "    const int nt = (int)block;\n"
    "    blockDim.x = block, blockDim.y = blockDim.z = 1, gridDim.x = grid;\n"
    "    em_cur = (em_kf)k;\n"
    "    memcpy(&em_arg, arg, sizeof em_arg);\n"
    "    for (unsigned b = 0; b < grid; b++) {\n"
    "        blockIdx.x = b;\n"
    "        for (int t = 0; t < nt; t++) {\n"
    "            getcontext(&em_co[t]);\n"
    "            em_co[t].uc_stack.ss_sp = stacks + (size_t)t * STACK;\n"
    "            em_co[t].uc_stack.ss_size = STACK;\n"
    "            em_co[t].uc_link = &em_main;\n"
    "            makecontext(&em_co[t], em_entry, 0);\n"
    "            em_done[t] = false;\n"
    "        }\n"
    "        for (bool any = true; any;) { // one round: every thread to its next barrier\n"
    "            any = false;\n"
    "            for (int t = 0; t < nt; t++) {\n"
    "                if (em_done[t]) continue;\n"
    "                em_t = t, threadIdx.x = (unsigned)t;\n"
    "                swapcontext(&em_main, &em_co[t]);\n"
    "                any = true;\n"
    "            }\n"
    "        }\n"
    "    }\n"
    "    return 0;\n"
    "}\n";

typedef int (*emul_launch_fn)(void *, unsigned, unsigned, const void *);
typedef struct emul_kernel {
    void *fn;
    emul_launch_fn launch;
} emul_kernel;

#define EMUL_MAX 64
static struct {
    char key[200];
    void *lib;
} libs[EMUL_MAX];
static int nlibs;
static emul_kernel ekern[EMUL_MAX * 8];
static int nkfns;
static char emul_dir[] = "/tmp/ember_sort_emul_XXXXXX";
static int launches;

/* Launches are checked against these above the table (codegen/run_module.c);
 * a grid of at most 3 blocks makes every driver's grid-stride loops loop. */
static em_device_props fake_props = {.name = "emulated",
                                     .multiprocessor_count = 1,
                                     .max_threads_per_block = 1024,
                                     .max_block_dim = {1024, 1, 1},
                                     .max_grid_dim = {3, 1, 1}};

static em_status f_props_ref(int id, const em_device_props **out) {
    (void)id;
    *out = &fake_props;
    return EM_OK;
}
static em_status f_alloc(int id, size_t n, void **p) {
    (void)id;
    *p = malloc(n ? n : 1);
    /* Poison: a kernel that reads what nobody wrote shows up. */
    if (*p) memset(*p, 0xa5, n);
    return *p ? EM_OK : EM_ENOMEM;
}
static void f_free(int id, void *p, size_t n) { (void)id, (void)n, free(p); }
static em_status f_copy(int id, void *dst, const void *src, size_t n) {
    (void)id;
    memcpy(dst, src, n);
    return EM_OK;
}

/* The library built from one rendered source (several kernels share one:
 * built once; the cache above the table asks once per kernel). */
static void *emul_lib(const char *text) {
    uint64_t h = em_fnv1a(EM_FNV_BASIS, text, strlen(text));
    char base[200];
    snprintf(base, sizeof base, "%016llx", (unsigned long long)h);
    for (int i = 0; i < nlibs; i++)
        if (!strcmp(libs[i].key, base)) return libs[i].lib;
    if (nlibs == EMUL_MAX) return NULL;
    em_sbuf s = {0};
    em_sbuf_printf(&s, "%s%s%s", emul_pre, text, emul_post);
    char src[300], so[300], cmd[1000];
    snprintf(src, sizeof src, "%s/k%d.cpp", emul_dir, nlibs);
    snprintf(so, sizeof so, "%s/k%d.so", emul_dir, nlibs);
    FILE *f = fopen(src, "w");
    bool ok = f && fputs(s.s, f) >= 0;
    if (f) fclose(f);
    em_sbuf_free(&s);
    snprintf(cmd, sizeof cmd, "c++ -std=c++17 -O0 -fwrapv -w -shared -fPIC -o %s %s", so, src);
    if (!ok || system(cmd) != 0) {
        fprintf(stderr, "could not build %s\n", src);
        return NULL;
    }
    void *lib = dlopen(so, RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
        fprintf(stderr, "dlopen %s: %s\n", so, dlerror());
        return NULL;
    }
    snprintf(libs[nlibs].key, sizeof libs[nlibs].key, "%s", base);
    libs[nlibs++].lib = lib;
    return lib;
}

static em_status f_build(int id, const char *src, const char *name, const em_build_opts *o,
                         void **mod, char **lowered) {
    (void)id, (void)name, (void)o, (void)lowered;
    return (*mod = emul_lib(src)) ? EM_OK : em_error(EM_ECOMPILE, "emulation build failed");
}

static em_status f_function(int id, void *mod, const char *fname, void **fn) {
    (void)id;
    if (nkfns == EMUL_MAX * 8) return em_error(EM_ECOMPILE, "too many kernels");
    ekern[nkfns] = (emul_kernel){dlsym(mod, fname), (emul_launch_fn)dlsym(mod, "em_emul_launch")};
    if (!ekern[nkfns].fn || !ekern[nkfns].launch) return em_error(EM_ECOMPILE, "no %s", fname);
    *fn = &ekern[nkfns++];
    return EM_OK;
}

/* CUDA's dialect: args is the kernelParams array, its one entry the struct. */
static em_status f_launch(int id, void *fn, const char *name, const unsigned grid[3],
                          const unsigned block[3], unsigned shmem, void *stream, void *args) {
    (void)id, (void)name, (void)shmem, (void)stream;
    const emul_kernel *e = fn;
    if (block[0] < 32 || block[0] > 1024 || block[0] % 32 || grid[0] < 1 || grid[0] > 3)
        return em_error(EM_ELAUNCH, "bad launch");
    launches++;
    return e->launch(e->fn, grid[0], block[0], ((void **)args)[0])
               ? em_error(EM_ELAUNCH, "no threads")
               : EM_OK;
}

static const em_backend fake = {.name = "emulated",
                                .kind = EM_CPU,
                                .alloc = f_alloc,
                                .free = f_free,
                                .to_host = f_copy,
                                .from_host = f_copy,
                                .copy = f_copy,
                                .dialect = "cuda",
                                .props_ref = f_props_ref,
                                .module_build = f_build,
                                .function = f_function,
                                .launch = f_launch};

/* ---- the reference: NumPy's order, a stable merge sort ------------------ */

static double rd(const char *p, em_dtype dt, int part) {
    switch (dt) {
    case EM_BOOL: return *(const bool *)p;
    case EM_INT8: return *(const int8_t *)p;
    case EM_INT16: return *(const int16_t *)p;
    case EM_INT32: return *(const int32_t *)p;
    case EM_UINT8: return *(const uint8_t *)p;
    case EM_UINT16: return *(const uint16_t *)p;
    case EM_UINT32: return *(const uint32_t *)p;
    case EM_FLOAT16: return (double)*(const _Float16 *)p;
    case EM_FLOAT32: return *(const float *)p;
    case EM_FLOAT64: return *(const double *)p;
    case EM_COMPLEX64: return ((const float *)p)[part];
    case EM_COMPLEX128: return ((const double *)p)[part];
    default: return 0; /* 64-bit integers: compared exactly in cmp */
    }
}

static int cmp1(double x, double y) {
    if (isnan(x) || isnan(y)) return isnan(x) - isnan(y);
    return (x > y) - (x < y);
}

static int cmp(const char *x, const char *y, em_dtype dt) {
    if (dt == EM_INT64) {
        int64_t a = *(const int64_t *)x, b = *(const int64_t *)y;
        return (a > b) - (a < b);
    }
    if (dt == EM_UINT64) {
        uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;
        return (a > b) - (a < b);
    }
    if (dt == EM_COMPLEX64 || dt == EM_COMPLEX128) {
        /* NumPy's classes: numbers (by real, then imaginary), imaginary NaN
         * (by real), real NaN (by imaginary), both NaN (equal). */
        const double xr = rd(x, dt, 0), xi = rd(x, dt, 1), yr = rd(y, dt, 0), yi = rd(y, dt, 1);
        const int cx = isnan(xr) ? 2 + !!isnan(xi) : !!isnan(xi);
        const int cy = isnan(yr) ? 2 + !!isnan(yi) : !!isnan(yi);
        if (cx != cy) return (cx > cy) - (cx < cy);
        if (cx == 0) return cmp1(xr, yr) ? cmp1(xr, yr) : cmp1(xi, yi);
        return cx == 1 ? cmp1(xr, yr) : cx == 2 ? cmp1(xi, yi) : 0;
    }
    return cmp1(rd(x, dt, 0), rd(y, dt, 0));
}

/* Stable sort of idx[0..n) by the elements at base + idx * step. */
static void msort(int64_t *idx, int64_t *tmp, int64_t n, const char *base, int64_t step,
                  em_dtype dt, bool desc) {
    if (n < 2) return;
    int64_t h = n / 2;
    msort(idx, tmp, h, base, step, dt, desc);
    msort(idx + h, tmp, n - h, base, step, dt, desc);
    int64_t i = 0, j = h, k = 0;
    while (i < h && j < n) {
        int c = cmp(base + idx[j] * step, base + idx[i] * step, dt);
        if (desc ? c > 0 : c < 0)
            tmp[k++] = idx[j++];
        else
            tmp[k++] = idx[i++];
    }
    while (i < h) tmp[k++] = idx[i++];
    while (j < n) tmp[k++] = idx[j++];
    memcpy(idx, tmp, (size_t)n * sizeof *idx);
}

static uint64_t rs = 88172645463325252ULL;
static uint64_t rnd(void) {
    rs ^= rs << 13, rs ^= rs >> 7, rs ^= rs << 17;
    return rs;
}

/* Element values with ties, extremes, infinities, NaNs (both signs) and -0.0. */
static void fill(char *p, em_dtype dt) {
    const uint64_t r = rnd();
    const size_t sz = em_dtype_get(dt)->size;
    static const double fl[] = {0.0,      -0.0,      1.0, -1.0, 2.5,  -2.5,
                                INFINITY, -INFINITY, NAN, -NAN, 1e-3, 65504.0};
    if (em_dtype_get(dt)->kind == 'f' || em_dtype_get(dt)->kind == 'c') {
        for (int part = 0; part < (em_dtype_get(dt)->kind == 'c' ? 2 : 1); part++) {
            uint64_t q = rnd();
            double v = q % 3 ? fl[q % 12] : (double)(int64_t)(q % 2001) / 8 - 125;
            if (dt == EM_FLOAT16)
                *(_Float16 *)p = (_Float16)v;
            else if (dt == EM_FLOAT32 || dt == EM_COMPLEX64)
                ((float *)p)[part] = (float)v;
            else
                ((double *)p)[part] = v;
        }
        return;
    }
    if (dt == EM_BOOL) {
        *(bool *)p = r & 1;
        return;
    }
    /* integers: a small range with ties, sometimes any bits (the extremes) */
    uint64_t v = r % 4 ? (uint64_t)((int64_t)(r >> 8) % 37 - 18) : rnd();
    memcpy(p, &v, sz);
}

static bool same(const char *x, const char *y, em_dtype dt) { return cmp(x, y, dt) == 0; }

/* Sort an nrow x len array laid out with byte steps (row step, element
 * step: negative and gapped allowed) four ways and compare. */
static bool run_case(em_dtype dt, int64_t nrow, int64_t len, bool desc, bool arg, int gap,
                     bool flip) {
    const int64_t n = nrow * len, sz = (int64_t)em_dtype_get(dt)->size;
    char *mem = malloc((size_t)(n * gap * sz + 16));
    for (int64_t i = 0; i < n * gap; i++) fill(mem + i * sz, dt);
    em_device cpu = {EM_CPU, 0};
    em_array out = {0}, a = {0};
    int64_t shape[2] = {nrow, len};
    CHECK(em_array_empty(&out, arg ? EM_INT64 : dt, 2, shape, cpu) == EM_OK);
    CHECK(em_array_empty(&a, dt, 1, shape + 1, cpu) == EM_OK); /* a buffer to hold the view */
    a.ndim = 2, a.shape[0] = nrow, a.shape[1] = len;
    a.strides[1] = gap * sz, a.strides[0] = len * gap * sz;
    a.data = mem;
    if (flip) { /* rows in reverse order: a negative stride */
        a.data = mem + (nrow - 1) * a.strides[0];
        a.strides[0] = -a.strides[0];
    }
    em_status st = em_run_sort(&fake, &a, len, desc, arg, &out);
    bool ok = st == EM_OK;
    if (!ok) fprintf(stderr, "em_run_sort: %s\n", em_last_error());
    int64_t *idx = malloc((size_t)(len + 1) * 8), *tmp = malloc((size_t)(len + 1) * 8);
    long bad = 0;
    for (int64_t r = 0; ok && r < nrow; r++) {
        const char *row = a.data + r * a.strides[0];
        for (int64_t i = 0; i < len; i++) idx[i] = i;
        msort(idx, tmp, len, row, a.strides[1], dt, desc);
        for (int64_t i = 0; i < len; i++) {
            bool good;
            if (arg)
                good = ((int64_t *)out.data)[r * len + i] == idx[i];
            else
                good = same(out.data + (r * len + i) * sz, row + idx[i] * a.strides[1], dt);
            if (!good && bad++ < 4)
                fprintf(
                    stderr,
                    "%s %s%s row %lld of %lldx%lld: element %lld wrong (want index %lld, got %lld)\n",
                    em_dtype_get(dt)->name, arg ? "argsort" : "sort", desc ? " desc" : "",
                    (long long)r, (long long)nrow, (long long)len, (long long)i, (long long)idx[i],
                    arg ? (long long)((int64_t *)out.data)[r * len + i] : -1LL);
        }
    }
    free(idx), free(tmp);
    a.data = NULL;
    em_array_release(&a), em_array_release(&out);
    free(mem);
    return ok && !bad;
}

/* em_run_argsort_keys on one strided row: the indices as a stable merge
 * sort's, the values byte for byte the elements they index (-0.0 beside
 * 0.0 and NaNs of either sign copied, not decoded); complex64 is not done
 * (the caller gathers). */
static bool run_keys_case(em_dtype dt, int64_t len, bool desc, int gap) {
    const int64_t sz = (int64_t)em_dtype_get(dt)->size;
    char *mem = malloc((size_t)(len * gap * sz + 16));
    for (int64_t i = 0; i < len * gap; i++) fill(mem + i * sz, dt);
    em_device cpu = {EM_CPU, 0};
    em_array idx = {0}, keys = {0}, a = {0};
    CHECK(em_array_empty(&idx, EM_INT64, 1, &len, cpu) == EM_OK);
    CHECK(em_array_empty(&keys, dt, 1, &len, cpu) == EM_OK);
    CHECK(em_array_empty(&a, dt, 1, &len, cpu) == EM_OK);
    memset(keys.data, 0x5a, (size_t)(len * sz));
    char *own = a.data;
    a.data = mem, a.strides[0] = gap * sz;
    bool done = false;
    em_status st = em_run_argsort_keys(&fake, &a, desc, &idx, &keys, &done);
    bool ok = st == EM_OK && done == (dt != EM_COMPLEX64 && dt != EM_COMPLEX128);
    if (!ok)
        fprintf(stderr, "em_run_argsort_keys %s: %s\n", em_dtype_get(dt)->name, em_last_error());
    int64_t *want = malloc((size_t)(len + 1) * 8), *tmp = malloc((size_t)(len + 1) * 8);
    for (int64_t i = 0; i < len; i++) want[i] = i;
    msort(want, tmp, len, mem, gap * sz, dt, desc);
    long bad = 0;
    for (int64_t i = 0; ok && i < len; i++) {
        const int64_t got = ((int64_t *)idx.data)[i];
        bool good = got == want[i];
        if (good && done) good = !memcmp(keys.data + i * sz, mem + got * gap * sz, (size_t)sz);
        if (!good && bad++ < 4)
            fprintf(stderr,
                    "argsort_keys %s%s of %lld: element %lld wrong (want index %lld, got %lld)\n",
                    em_dtype_get(dt)->name, desc ? " desc" : "", (long long)len, (long long)i,
                    (long long)want[i], (long long)got);
    }
    free(want), free(tmp), free(mem);
    a.data = own;
    em_array_release(&a), em_array_release(&idx), em_array_release(&keys);
    return ok && !bad;
}

static bool have_emul;

static void test_emulated(void) {
    if (!have_emul) {
        printf("skip: no C++ compiler\n");
        return;
    }
    /* Each case builds a C++ library (seconds), so the cases are few; the
     * other dtypes' kernels differ only in the key functions, which the
     * Python tests run on PoCL and on the GPU.  Over a tile (4096) and under, one row
     * and several (the row in the key's high half, or its own word), both
     * directions, values and indices, strided and reversed layouts. */
    static const struct {
        em_dtype dt;
        int nrow, len, desc, arg, gap, flip;
    } cases[] = {
        /* onesweep: over a tile of 384 x 24 (the shapes below: many small tiles) */
        {EM_FLOAT32, 1, 3 * 4096 + 5, 0, 1, 1, 0},
        {EM_INT16, 1, 4096, 1, 0, 1, 0},
        {EM_UINT64, 30, 300, 0, 1, 1, 1}, /* rows shorter than EM_SORT_ROWS_MIN: segments */
        {EM_FLOAT32, 25, 400, 1, 0, 1, 0},
        {EM_INT8, 3, 1, 0, 1, 1, 0},
        {EM_INT32, 1, 1, 0, 1, 1, 0}, /* one key: no byte varies, the identity still made */
        {EM_COMPLEX128, 1, 4097, 1, 1, 2, 0},
        {EM_FLOAT64, 1, 2 * 4096 + 1, 1, 1, 1, 0},
        /* rows of EM_SORT_ROWS_MIN .. a tile: a block per row */
        {EM_FLOAT32, 4, 4096, 0, 0, 1, 1},
        {EM_FLOAT64, 3, 600, 1, 1, 2, 0},
        {EM_COMPLEX64, 2, 1000, 0, 0, 1, 0},
        {EM_INT8, 2, 512, 1, 0, 1, 0},
        {EM_UINT16, 2, 3001, 0, 1, 1, 1},
        /* the reduce-then-scan kernels (what OpenCL runs): EMBER_SORT_ONESWEEP=0 */
        {EM_FLOAT32, 1, 4097, 0, 0, 1, 0},
        {EM_FLOAT32, 1, 4097, 1, 1, 2, 0},
        {EM_INT64, 2, 700, 1, 1, 1, 1},
        {EM_COMPLEX128, 1, 500, 0, 0, 1, 0},
        {EM_UINT8, 3, 900, 0, 0, 1, 1},
        {EM_FLOAT16, 1, 300, 1, 1, 1, 0},
        {EM_COMPLEX64, 1, 300, 1, 0, 1, 0}, /* decoded: real parts -0.0 and 0.0 tie */
        {EM_COMPLEX64, 1, 700, 0, 1, 1, 0}, /* NumPy's NaN classes: 2+0j before 1+nanj */
        {EM_BOOL, 1, 5000, 0, 0, 1, 0},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        setenv("EMBER_SORT_ONESWEEP", i >= 13 ? "0" : "1", 1);
        CHECK(run_case(cases[i].dt, cases[i].nrow, cases[i].len, cases[i].desc, cases[i].arg,
                       cases[i].gap, cases[i].flip));
    }
    unsetenv("EMBER_SORT_ONESWEEP");
    /* Other pass-kernel shapes (EMBER_SORT_OS: threads, keys a thread,
     * blocks an SM): small tiles, so that a block takes several and the
     * look-back crosses many; blocks of 384 and 288 threads (digit threads
     * a part of the block, warps not a power of two). */
    static const struct {
        const char *os;
        em_dtype dt;
        int len, desc, arg;
    } shapes[] = {
        {"256,2,0", EM_FLOAT32, 5000, 0, 0},
        {"384,3,2", EM_INT32, 6001, 1, 0},
        {"288,3,0", EM_FLOAT32, 4000, 0, 1},
        {"384,2,2", EM_FLOAT64, 3001, 1, 1},
        /* tiles larger than the warps' counters and smaller (32-bit values) */
        {"384,9,2", EM_INT32, 9000, 0, 1},
        {"256,3,0", EM_UINT16, 2500, 1, 1},
    };
    for (size_t i = 0; i < sizeof shapes / sizeof *shapes; i++) {
        setenv("EMBER_SORT_OS", shapes[i].os, 1);
        CHECK(run_case(shapes[i].dt, 1, shapes[i].len, shapes[i].desc, shapes[i].arg, 1, 0));
    }
    unsetenv("EMBER_SORT_OS");
    /* the lanes of a digit found by the match instruction (EMBER_SORT_MATCH=1) */
    setenv("EMBER_SORT_MATCH", "1", 1);
    CHECK(run_case(EM_FLOAT32, 1, 2 * 9216 + 77, 0, 1, 1, 0));
    CHECK(run_case(EM_INT64, 1, 6000, 1, 0, 1, 0));
    unsetenv("EMBER_SORT_MATCH");
    /* The pass kernel's variants (EMBER_SORT_VAR): whole tiles without the
     * tests of their end (1), keys moved while ranked (2), both; several
     * whole tiles and a part, keys alone and with values (argsort: 2 does
     * not apply), 4- and 8-byte keys, the union kept where 2 does not fit. */
    static const struct {
        const char *var, *os;
        em_dtype dt;
        int len, desc, arg;
    } vars[] = {
        {"1", "256,2,0", EM_FLOAT32, 5000, 0, 0},
        {"1", "288,3,0", EM_INT32, 4000, 1, 1},
        {"2", "256,3,0", EM_FLOAT32, 3 * 768 + 5, 1, 0},
        {"2", "384,2,2", EM_INT64, 3001, 0, 0},
        {"3", "256,3,0", EM_INT32, 4 * 768, 0, 0},
        {"3", "384,3,2", EM_FLOAT32, 6001, 1, 1},
        {"3", "384,22,3", EM_FLOAT32, 2 * 8448 + 1, 0, 0},
        {"3", "384,24,2", EM_UINT16, 9217, 1, 0},
        /* the first pass's loads before its keys (4), UPSWEEP's 8 keys a thread
         * (8; grids of 3 blocks: the steps loop and end inside one), all */
        {"4", "256,3,0", EM_FLOAT32, 3001, 1, 0},
        {"4", "256,2,0", EM_INT64, 2500, 0, 1},
        {"8", "256,3,0", EM_INT32, 7 * 2048 + 5, 0, 1},
        {"15", "256,3,0", EM_FLOAT64, 6145, 1, 0},
        {"15", "288,3,0", EM_FLOAT32, 6 * 2048, 0, 0},
        /* the PTX vote (16: here its C form -- the host has no PTX; NVRTC
         * compiles the PTX above); UPSWEEP's 16-byte vectors (32: several
         * grid steps, a tail of 1-3 keys, argsort; 8-byte and 2-byte keys
         * keep the scalar loop); all */
        {"16", "384,2,2", EM_FLOAT32, 9001, 0, 0},
        {"16", "256,3,0", EM_INT64, 4000, 1, 1},
        {"32", "256,3,0", EM_FLOAT32, 8 * 3072 + 403, 0, 0},
        {"32", "256,3,0", EM_UINT32, 3 * 2048 + 2, 1, 1},
        {"48", "256,2,0", EM_INT32, 5 * 512 + 1, 1, 0},
        {"63", "256,3,0", EM_FLOAT32, 7 * 768 + 3, 1, 1},
        {"63", "256,2,0", EM_FLOAT64, 2500, 0, 0},
        {"63", "256,3,0", EM_INT16, 3001, 0, 1},
    };
    for (size_t i = 0; i < sizeof vars / sizeof *vars; i++) {
        setenv("EMBER_SORT_VAR", vars[i].var, 1);
        setenv("EMBER_SORT_OS", vars[i].os, 1);
        CHECK(run_case(vars[i].dt, 1, vars[i].len, vars[i].desc, vars[i].arg, 1, 0));
    }
    /* every bit on strided input (4 through em_off, no vectors) and rows
     * (the row in the key's high half: 4 and 32 step aside) */
    setenv("EMBER_SORT_OS", "256,3,0", 1);
    setenv("EMBER_SORT_VAR", "63", 1);
    CHECK(run_case(EM_FLOAT32, 1, 3001, 0, 0, 2, 0));
    CHECK(run_case(EM_INT32, 7, 300, 1, 0, 1, 0));
    CHECK(run_case(EM_FLOAT32, 5, 301, 0, 0, 1, 1));
    /* the argsort that writes its sorted values too (unique's inverse) */
    CHECK(run_keys_case(EM_FLOAT32, 2 * 768 + 9, 0, 2));
    CHECK(run_keys_case(EM_FLOAT64, 3 * 768, 1, 1));
    CHECK(run_keys_case(EM_INT16, 1000, 1, 1));
    unsetenv("EMBER_SORT_VAR");
    unsetenv("EMBER_SORT_OS");
    CHECK(run_keys_case(EM_FLOAT32, 3 * 4096 + 5, 1, 1)); /* the default shape */
    CHECK(run_keys_case(EM_FLOAT16, 2000, 0, 1));
    CHECK(run_keys_case(EM_UINT8, 3000, 0, 1)); /* one byte: the first pass is the last */
    CHECK(run_keys_case(EM_INT32, 1, 0, 1));    /* no byte varies: byte 0 still runs */
    CHECK(run_keys_case(EM_BOOL, 700, 1, 3));
    CHECK(run_keys_case(EM_COMPLEX64, 300, 0, 1)); /* not done: the caller gathers */
    printf("%d emulated launches\n", launches);
}

#define CHECK_AT(i, got, want)                                                        \
    do {                                                                              \
        if ((got) != (want))                                                          \
            fprintf(stderr, "element %d: got %lld, want %lld\n", i, (long long)(got), \
                    (long long)(want));                                               \
        CHECK((got) == (want));                                                       \
    } while (0)

/* searchsorted: both sides, with a sorter, NaNs and -0.0. */
static void test_emulated_search(void) {
    if (!have_emul) return;
    /* searchsorted: both sides, with a sorter, NaNs and -0.0 */
    {
        float hay[] = {-INFINITY, -1.0f, -0.0f, 0.0f, 0.0f, 2.5f, INFINITY, NAN, NAN};
        float v[] = {0.0f, -0.0f, NAN, 3.0f, -INFINITY, -5.0f, 2.5f};
        int64_t want_l[] = {2, 2, 7, 6, 0, 1, 5}, want_r[] = {5, 5, 9, 6, 1, 1, 6};
        em_device cpu = {EM_CPU, 0};
        int64_t nh = 9, nv = 7;
        em_array h = {0}, va = {0}, o = {0}, so = {0};
        CHECK(em_array_empty(&h, EM_FLOAT32, 1, &nh, cpu) == EM_OK);
        CHECK(em_array_empty(&va, EM_FLOAT32, 1, &nv, cpu) == EM_OK);
        CHECK(em_array_empty(&o, EM_INT64, 1, &nv, cpu) == EM_OK);
        CHECK(em_array_empty(&so, EM_INT64, 1, &nh, cpu) == EM_OK);
        memcpy(va.data, v, sizeof v);
        /* the haystack stored reversed, read through a sorter */
        for (int i = 0; i < 9; i++)
            ((float *)h.data)[i] = hay[8 - i], ((int64_t *)so.data)[i] = 8 - i;
        for (int right = 0; right < 2; right++) {
            CHECK(em_run_searchsorted(&fake, &h, &so, &va, right, &o) == EM_OK);
            for (int i = 0; i < 7; i++)
                CHECK_AT(i, ((int64_t *)o.data)[i], (right ? want_r : want_l)[i]);
        }
        memcpy(h.data, hay, sizeof hay);
        CHECK(em_run_searchsorted(&fake, &h, NULL, &va, false, &o) == EM_OK);
        for (int i = 0; i < 7; i++) CHECK_AT(i, ((int64_t *)o.data)[i], want_l[i]);
        em_array_release(&h), em_array_release(&va), em_array_release(&o), em_array_release(&so);
    }
    /* A haystack longer than the shared keys (2048), searched whole and
     * through samples (EMBER_SEARCH_SAMPLE=1): runs of equal keys across
     * the samples' places, needles before, between and after, both sides,
     * against a count made here. */
    {
        enum { NH = 5003, NV = 700 };
        em_device cpu = {EM_CPU, 0};
        int64_t nh = NH, nv = NV;
        em_array h = {0}, va = {0}, o = {0};
        CHECK(em_array_empty(&h, EM_INT32, 1, &nh, cpu) == EM_OK);
        CHECK(em_array_empty(&va, EM_INT32, 1, &nv, cpu) == EM_OK);
        CHECK(em_array_empty(&o, EM_INT64, 1, &nv, cpu) == EM_OK);
        int32_t *hv = (int32_t *)h.data, *vv = (int32_t *)va.data;
        for (int i = 0; i < NH; i++) hv[i] = i / 7 - 300; /* sorted, runs of 7 */
        for (int i = 0; i < NV; i++) vv[i] = (int32_t)((i * 7919) % 1100) - 350;
        for (int mode = 0; mode < 4; mode++) {
            const int right = mode & 1;
            setenv("EMBER_SEARCH_SAMPLE", mode >= 2 ? "1" : "0", 1);
            CHECK(em_run_searchsorted(&fake, &h, NULL, &va, right, &o) == EM_OK);
            for (int i = 0; i < NV; i++) {
                int64_t want = 0;
                for (int j = 0; j < NH; j++) want += right ? hv[j] <= vv[i] : hv[j] < vv[i];
                CHECK_AT(i, ((int64_t *)o.data)[i], want);
            }
        }
        unsetenv("EMBER_SEARCH_SAMPLE");
        em_array_release(&h), em_array_release(&va), em_array_release(&o);
    }
}

/* An argument runs only the tests whose name holds it (while iterating). */
#define RUN_IF(fn) \
    if (argc < 2 || strstr(#fn, argv[1])) RUN(fn)

int main(int argc, char **argv) {
    char dir[] = "/tmp/ember_sort_cache_XXXXXX";
    if (!mkdtemp(dir)) return 1;
    setvbuf(stdout, NULL, _IONBF, 0);
    setenv("EMBER_CACHE_DIR", dir, 1);
    RUN_IF(test_render);
    have_emul = system("c++ --version > /dev/null 2>&1") == 0 && mkdtemp(emul_dir);
    RUN_IF(test_emulated_search);
    RUN_IF(test_emulated);
    RUN_IF(test_nvrtc);
    RUN_IF(test_opencl);
    char cmd[100];
    snprintf(cmd, sizeof cmd, "rm -rf %s", emul_dir);
    if (have_emul && system(cmd) != 0) fprintf(stderr, "could not remove %s\n", emul_dir);
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    if (system(cmd) != 0) fprintf(stderr, "could not remove %s\n", dir);
    return ctest_summary();
}
