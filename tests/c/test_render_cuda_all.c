/* Every kernel template rendered for CUDA (tests/c/render_cases.h, all
 * variants): each renders, and -- where NVRTC loads -- a sample of them
 * compiles (every gather mode, every random kind, the scans and a spread
 * of reductions; test_cuda_codegen.c and test_ops_table.c cover the rest).
 *
 * EMBER_RENDER_DUMP=DIR writes every rendered source to DIR/<case>.cu:
 * dumps made before and after a change of a template, diffed, show every
 * difference it makes to the CUDA text (the GPU-side review of a change
 * made without a GPU).  A dump run renders only (no NVRTC: seconds). */
#include "backend/cuda/cuda_internal.h"
#include "ctest.h"
#include "render_cases.h"

static int nrendered, ncompiled;
static bool have_nvrtc;

/* Compile one case in every n-th of each kind (all gathers, randoms and
 * scans: they are few and fast). */
static bool sampled(const char *name) {
    static unsigned count;
    if (strncmp(name, "reduce_", 7) && strncmp(name, "index_", 6)) return true;
    return count++ % 11 == 0;
}

static void on_case(void *ctx, const char *name, em_status st, const char *src) {
    (void)ctx;
    if (st != EM_OK) fprintf(stderr, "%s: %s\n", name, em_last_error());
    CHECK(st == EM_OK && src);
    if (!src) return;
    nrendered++;
    const char *dir = getenv("EMBER_RENDER_DUMP");
    if (dir) {
        char path[4096];
        snprintf(path, sizeof path, "%s/%s.cu", dir, name);
        FILE *f = fopen(path, "w");
        CHECK(f && fputs(src, f) >= 0);
        if (f) fclose(f);
    }
    if (!have_nvrtc || !sampled(name)) return;
    void *cubin = NULL;
    size_t n = 0;
    st = em_cuda_compile(src, 90, name, &cubin, &n);
    if (st != EM_OK) fprintf(stderr, "%s: %.2000s\n", name, em_last_error());
    CHECK(st == EM_OK);
    free(cubin);
    ncompiled++;
}

static void test_every_template_renders_and_compiles(void) {
    have_nvrtc = !getenv("EMBER_RENDER_DUMP") && !ctest_compilers_off() && em_nvrtc_init() == EM_OK;
    if (!have_nvrtc) printf("NVRTC missing (%s): rendering only\n", em_last_error());
    render_cases(&em_dialect_cuda, true, on_case, NULL);
    printf("%d CUDA kernels rendered, %d compiled\n", nrendered, ncompiled);
    CHECK(nrendered > 900);
}

int main(void) {
    RUN(test_every_template_renders_and_compiles);
    return ctest_summary();
}
