/* Raw CUDA modules (src/backend/cuda/module.c) without a GPU: the user's
 * NVRTC options (appended, replacing Ember's where they set the same thing,
 * part of the disk cache key), and the module API against the fake driver
 * (fake_libcuda.c, loaded through EMBER_LIBCUDA): the in-memory module
 * cache, missing kernels, the 3-d launch and its limit checks.  Skips the
 * parts that need NVRTC or a C compiler when they are missing. */
#include "backend/cuda/cuda_internal.h"
#include "ctest.h"

#include <dlfcn.h>
#include <stdlib.h>

static char tmpdir[64],
    cachedir[96]; /* cachedir is tmpdir/cache; the fake driver is built in tmpdir */
static unsigned *last_cfg;
static void **last_stream;

static const char *FMA_SRC = "extern \"C\" __global__ void f(const float *a, float *o) {\n"
                             "#ifndef SCALE\n#error SCALE is not defined\n#endif\n"
                             "    o[0] = a[0] * a[1] + a[2] * SCALE;\n}\n";

static int cache_entries(void) {
    char cmd[128], line[256];
    snprintf(cmd, sizeof cmd, "ls %s", cachedir);
    FILE *ls = popen(cmd, "r");
    int n = 0;
    while (ls && fgets(line, sizeof line, ls)) n++;
    if (ls) pclose(ls);
    return n;
}

static void test_user_options(void) {
    void *c1 = NULL, *c2 = NULL, *c3 = NULL;
    size_t n1 = 0, n2 = 0, n3 = 0;
    const char *def[] = {"-DSCALE=2"}, *fma[] = {"-DSCALE=2", "--fmad=true"};
    /* Without the define the source does not compile: the options are passed. */
    CHECK(em_cuda_compile_ex(FMA_SRC, 90, "f", NULL, 0, 0, NULL, &c1, &n1, NULL) == EM_ECOMPILE);
    CHECK(strstr(em_last_error(), "SCALE is not defined") != NULL);
    int before = cache_entries();
    CHECK(em_cuda_compile_ex(FMA_SRC, 90, "f", def, 1, 0, NULL, &c1, &n1, NULL) == EM_OK);
    CHECK(em_cuda_compile_ex(FMA_SRC, 90, "f", fma, 2, 0, NULL, &c2, &n2, NULL) == EM_OK);
    /* --fmad=true replaces Ember's --fmad=false (NVRTC would reject both): the
     * multiply-add fuses, so the binary differs; each has its own cache entry. */
    CHECK(cache_entries() == before + 2);
    CHECK(n1 != n2 || memcmp(c1, c2, n1) != 0);
    /* The same options again: a disk cache hit with the same bytes. */
    CHECK(em_cuda_compile_ex(FMA_SRC, 90, "f", def, 1, 0, NULL, &c3, &n3, NULL) == EM_OK &&
          n3 == n1 && !memcmp(c1, c3, n1));
    CHECK(cache_entries() == before + 2);
    free(c1), free(c2), free(c3);
    /* An option NVRTC rejects: its error string stands in for the empty log. */
    const char *bad[] = {"--no-such-option"};
    CHECK(em_cuda_compile_ex(FMA_SRC, 90, "f", bad, 1, 0, NULL, &c1, &n1, NULL) == EM_ECOMPILE);
    CHECK(strstr(em_last_error(), "NVRTC could not compile kernel 'f'") != NULL);
    const char *nul[] = {NULL};
    CHECK(em_cuda_compile_ex(FMA_SRC, 90, "f", nul, 1, 0, NULL, &c1, &n1, NULL) == EM_EVALUE);
    CHECK(em_cuda_compile_ex(FMA_SRC, 90, "f", def, -1, 0, NULL, &c1, &n1, NULL) == EM_EVALUE);
}

static const char *TEMPLATE_SRC =
    "template <class T> __global__ void scale(T *x, T a) { x[threadIdx.x] *= a; }\n";

static void test_name_expressions(void) {
    const char *names[] = {"scale<float>", "scale<double>"}, *bad[] = {"scale<nope>"};
    void *c1 = NULL, *c2 = NULL;
    char *low1 = NULL, *low2 = NULL;
    size_t n1 = 0, n2 = 0;
    CHECK(em_cuda_compile_ex(TEMPLATE_SRC, 90, "t", NULL, 0, 2, names, &c1, &n1, &low1) == EM_OK);
    /* Each lowered name is a mangled instance: _Z5scaleIfEvPT_S0_ and the double one. */
    CHECK(low1 && !strcmp(low1, "_Z5scaleIfEvPT_S0_") &&
          !strcmp(low1 + strlen(low1) + 1, "_Z5scaleIdEvPT_S0_"));
    /* Again, from the disk cache: the same cubin and names come back apart. */
    CHECK(em_cuda_compile_ex(TEMPLATE_SRC, 90, "t", NULL, 0, 2, names, &c2, &n2, &low2) == EM_OK);
    CHECK(n1 == n2 && !memcmp(c1, c2, n1) && low2 && !strcmp(low1, low2));
    CHECK(n1 > 4 && !memcmp(c1, "\177ELF", 4)); /* the cubin, without the header */
    free(c1), free(c2), free(low1), free(low2);
    CHECK(em_cuda_compile_ex(TEMPLATE_SRC, 90, "t", NULL, 0, 1, bad, &c1, &n1, &low1) != EM_OK);
    CHECK(em_cuda_compile_ex(TEMPLATE_SRC, 90, "t", NULL, 0, 1, names, &c1, &n1, NULL) ==
          EM_EVALUE);
}

static void test_module_api(void) {
    const char *src = "extern \"C\" __global__ void k(int *x) { x[threadIdx.x] = 1; }\n";
    void *m1 = NULL, *m2 = NULL, *fn = NULL;
    CHECK(em_cuda_module_load(0, src, NULL, 0, "k", &m1) == EM_OK && m1);
    int before = cache_entries();
    CHECK(em_cuda_module_load(0, src, NULL, 0, "k", &m2) == EM_OK && m2 == m1);
    CHECK(cache_entries() == before); /* from memory: not even the disk cache */
    CHECK(em_cuda_module_load(0, NULL, NULL, 0, "k", &m2) == EM_EVALUE);
    CHECK(em_cuda_module_load(0, src, NULL, 1, "k", &m2) == EM_EVALUE);
    CHECK(em_cuda_module_load(5, src, NULL, 0, "k", &m2) == EM_EDEVICE);
    CHECK(strstr(em_last_error(), "no device cuda:5") != NULL);
    CHECK(em_cuda_module_load(0, "syntax error here", NULL, 0, "bad", &m2) == EM_ECOMPILE);
    CHECK(strstr(em_last_error(), "   1  syntax error here") != NULL);
    CHECK(em_cuda_module_function(0, m1, "no_such", &fn) == EM_EVALUE);
    CHECK(strstr(em_last_error(), "no kernel named 'no_such'") != NULL);
    CHECK(em_cuda_module_function(0, m1, "k", &fn) == EM_OK && fn);

    unsigned grid[3] = {2, 3, 4}, block[3] = {8, 4, 2};
    /* The fake driver copies 4096 bytes from params[0] (it records whole
     * packed arguments): give it that much to read. */
    static unsigned char dummy[4096];
    void *params[] = {dummy};
    void *stream = (void *)0x1234;
    CHECK(em_cuda_launch(0, fn, "k", grid, block, 128, stream, params) == EM_OK);
    CHECK(last_cfg[0] == 2 && last_cfg[1] == 3 && last_cfg[2] == 4 && last_cfg[3] == 8 &&
          last_cfg[4] == 4 && last_cfg[5] == 2 && last_cfg[6] == 128 && *last_stream == stream);
    unsigned big[3] = {32, 32, 2}, zero[3] = {1, 0, 1}, gy[3] = {1, 65536, 1};
    CHECK(em_cuda_launch(0, fn, "k", grid, big, 0, NULL, params) == EM_ELAUNCH);
    CHECK(strstr(em_last_error(), "32 x 32 x 2 = 2048 threads exceeds the device limit of 1024") !=
          NULL);
    CHECK(em_cuda_launch(0, fn, "k", grid, zero, 0, NULL, params) == EM_ELAUNCH);
    CHECK(strstr(em_last_error(), "block.y = 0 is outside the device limit 1..1024") != NULL);
    CHECK(em_cuda_launch(0, fn, "k", gy, block, 0, NULL, params) == EM_ELAUNCH);
    CHECK(strstr(em_last_error(), "grid.y = 65536 is outside the device limit 1..65535") != NULL);
    CHECK(em_cuda_launch(0, fn, "k", grid, block, 49153, NULL, params) == EM_ELAUNCH);
    CHECK(strstr(em_last_error(), "49153 bytes of dynamic shared memory exceed") != NULL);
    CHECK(em_cuda_launch(0, NULL, "k", grid, block, 0, NULL, params) == EM_EVALUE);
    int v = -1;
    CHECK(em_cuda_func_attribute(0, fn, 4, &v) == EM_OK && v == 0);
    /* Name expressions through the module cache: the lowered names live with the module. */
    const char *names[] = {"scale<int>"}, *low = NULL, *low2 = NULL;
    CHECK(em_cuda_module_load_ex(0, TEMPLATE_SRC, NULL, 0, names, 1, "t", &m1, &low) == EM_OK);
    CHECK(low && !strcmp(low, "_Z5scaleIiEvPT_S0_"));
    CHECK(em_cuda_module_load_ex(0, TEMPLATE_SRC, NULL, 0, names, 1, "t", &m2, &low2) == EM_OK);
    CHECK(m2 == m1 && low2 == low);
    CHECK(em_cuda_module_load_ex(0, TEMPLATE_SRC, NULL, 0, names, 1, "t", &m2, NULL) == EM_EVALUE);
}

static bool load_fake(void) {
    char src[4096], lib[200], cmd[5000];
    const char *f = __FILE__, *slash = strrchr(f, '/');
    snprintf(src, sizeof src, "%.*s/fake_libcuda.c", (int)(slash ? slash - f : 1), slash ? f : ".");
    snprintf(lib, sizeof lib, "%s/libfakecuda.so", tmpdir);
    snprintf(cmd, sizeof cmd, "cc -shared -fPIC -O1 -o %s %s", lib, src);
    void *fake;
    if (system(cmd) != 0 || !(fake = dlopen(lib, RTLD_NOW | RTLD_GLOBAL))) return false;
    setenv("EMBER_LIBCUDA", lib, 1);
    last_cfg = dlsym(fake, "fake_last_cfg");
    last_stream = dlsym(fake, "fake_last_stream");
    return last_cfg && last_stream;
}

int main(void) {
    snprintf(tmpdir, sizeof tmpdir, "/tmp/ember_cuda_module_XXXXXX");
    if (!mkdtemp(tmpdir)) return 1;
    snprintf(cachedir, sizeof cachedir, "%s/cache", tmpdir);
    setenv("EMBER_CACHE_DIR", cachedir, 1);
    if (em_nvrtc_init() != EM_OK) {
        printf("skip: %s\n", em_last_error());
    } else {
        RUN(test_user_options);
        RUN(test_name_expressions);
        if (load_fake())
            RUN(test_module_api);
        else
            printf("skip: could not build the fake driver with cc\n");
    }
    char cmd[200];
    snprintf(cmd, sizeof cmd, "rm -rf %s", tmpdir);
    if (system(cmd) != 0) fprintf(stderr, "could not remove %s\n", tmpdir);
    return ctest_summary();
}
