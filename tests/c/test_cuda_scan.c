/* CUDA scans without a GPU: the choice of form, render errors, a golden
 * source for the tile kernels, NVRTC compiles of every dtype in both forms,
 * and the kernels run on the host (scan_emul.h: POSIX threads as a block)
 * against a sequential scan, on lengths around the tile boundaries.  NVRTC
 * and C++ parts skip when the tool is missing.
 * EMBER_REGEN_GOLDEN=1 rewrites tests/golden/scan_tiles_f32_axis1.cu. */
#include "backend/cuda/cuda_internal.h"
#include "codegen/run_scan.h"
#include "codegen/render_scan.h"
#include "ctest.h"
#include "scan_emul.h"

#include <stdlib.h>
#include <unistd.h>

static void test_choose(void) {
    em_scan_plan p = em_run_scan_choose(4, (int64_t)1 << 22, false, EM_FLOAT32, 132);
    CHECK(p.mode == 'T' && p.nlines == 4 && p.ntiles == ((int64_t)1 << 22) / EM_SCAN_TILE);
    p = em_run_scan_choose(1, EM_SCAN_TILE + 1, false, EM_INT64, 132);
    CHECK(p.mode == 'T' && p.ntiles == 2);
    p = em_run_scan_choose(1000, 300, false, EM_COMPLEX128, 132); /* one tile per line */
    CHECK(p.mode == 'T' && p.ntiles == 1);
    p = em_run_scan_choose(1000000, 16, false, EM_FLOAT64, 132); /* short lines */
    CHECK(p.mode == 'L' && p.ntiles == 1);
    p = em_run_scan_choose(132 * 256, 1000, true, EM_FLOAT64, 132); /* many interleaved lines */
    CHECK(p.mode == 'L');
    p = em_run_scan_choose(132 * 256 - 1, 1000, true, EM_FLOAT64, 132);
    CHECK(p.mode == 'T');
    p = em_run_scan_choose(132 * 256, 1000, false, EM_FLOAT64, 132); /* lines not interleaved */
    CHECK(p.mode == 'T');
    p = em_run_scan_choose(1, (int64_t)1 << 22, false, EM_FLOAT16,
                           132); /* float16: NumPy's rounding */
    CHECK(p.mode == 'H');
    p = em_run_scan_choose(500, 300, false, EM_FLOAT16, 132);
    CHECK(p.mode == 'L');
}

static void test_render_errors(void) {
    em_sbuf s = {0};
    em_scan_spec c = {EM_RED_SUM, EM_FLOAT32, EM_FLOAT32, 2, 1, true};
    CHECK(em_render_scan(&em_dialect_cuda, &c, &s) == EM_EVALUE &&
          strstr(em_last_error(), "cumsum and cumprod"));
    c.op = EM_RED_CUMSUM, c.axis = 2;
    CHECK(em_render_scan(&em_dialect_cuda, &c, &s) == EM_EVALUE &&
          strstr(em_last_error(), "along axis 2"));
    c.axis = 1, c.out = EM_FLOAT16;
    CHECK(em_render_scan(&em_dialect_cuda, &c, &s) == EM_EUNSUPPORTED &&
          strstr(em_last_error(), "float16"));
    c.tiles = false;
    CHECK(em_render_scan(&em_dialect_cuda, &c, &s) == EM_OK &&
          strstr(s.s, "em_h2f(em_f2h(em_add_f32(a, b)))"));
    /* The look-back spins: CUDA's alone (OpenCL promises no forward progress). */
    c.out = EM_FLOAT32, c.tiles = true, c.onepass = true;
    CHECK(em_render_scan(&em_dialect_opencl, &c, &s) == EM_EUNSUPPORTED &&
          strstr(em_last_error(), "single-pass"));
    c.tiles = false;
    CHECK(em_render_scan(&em_dialect_cuda, &c, &s) == EM_EUNSUPPORTED);
    em_sbuf_free(&s);
}

static void test_golden_tiles(void) {
    em_sbuf s = {0};
    em_scan_spec c = {EM_RED_CUMSUM, EM_FLOAT32, EM_FLOAT32, 2, 1, true};
    CHECK(em_render_scan(&em_dialect_cuda, &c, &s) == EM_OK && s.s);
    if (!s.s) return;
    const char *body = s.s + strlen(em_render_prelude());
    const char *f0 = __FILE__, *slash = strrchr(f0, '/');
    char path[4096];
    snprintf(path, sizeof path, "%.*s/../golden/scan_tiles_f32_axis1.cu",
             (int)(slash ? slash - f0 : 1), slash ? f0 : ".");
    if (getenv("EMBER_REGEN_GOLDEN")) {
        FILE *f = fopen(path, "w");
        CHECK(f && fputs(body, f) >= 0);
        if (f) fclose(f);
    }
    FILE *f = fopen(path, "r");
    static char want[32768];
    CHECK(f != NULL);
    if (f) want[fread(want, 1, sizeof want - 1, f)] = 0, fclose(f);
    if (strcmp(want, body))
        fprintf(stderr, "golden scan_tiles_f32_axis1.cu differs; got:\n%s\n", body);
    CHECK(!strcmp(want, body));
    em_sbuf_free(&s);
}

static bool compiles(const em_scan_spec *c) {
    em_sbuf src = {0};
    void *cubin = NULL;
    size_t n = 0;
    em_status s = em_render_scan(&em_dialect_cuda, c, &src);
    if (s == EM_OK) s = em_cuda_compile(src.s, 90, "scan", &cubin, &n);
    if (s != EM_OK)
        fprintf(stderr, "%s %s -> %s axis %d %s: %.2000s\n",
                c->op == EM_RED_CUMSUM ? "cumsum" : "cumprod", em_dtype_get(c->in)->name,
                em_dtype_get(c->out)->name, c->axis, c->tiles ? "tiles" : "line", em_last_error());
    free(cubin), em_sbuf_free(&src);
    return s == EM_OK;
}

/* Every input dtype into its default output (NumPy's sum dtype) in the tile
 * kernels, a few in the line kernel, both ops; casts to other outputs; both
 * addressing forms. */
static void test_nvrtc_every_dtype(void) {
    if ((ctest_compilers_off() || em_nvrtc_init() != EM_OK)) return;
    static const em_dtype dflt[] = {
        [EM_BOOL] = EM_INT64,          [EM_INT8] = EM_INT64,           [EM_INT16] = EM_INT64,
        [EM_INT32] = EM_INT64,         [EM_INT64] = EM_INT64,          [EM_UINT8] = EM_UINT64,
        [EM_UINT16] = EM_UINT64,       [EM_UINT32] = EM_UINT64,        [EM_UINT64] = EM_UINT64,
        [EM_FLOAT16] = EM_FLOAT16,     [EM_FLOAT32] = EM_FLOAT32,      [EM_FLOAT64] = EM_FLOAT64,
        [EM_COMPLEX64] = EM_COMPLEX64, [EM_COMPLEX128] = EM_COMPLEX128};
    for (int dt = 0; dt < EM_NDTYPES; dt++)
        for (int form = 0; form < 2; form++) {
            if ((form && dflt[dt] == EM_FLOAT16) || (!form && dt % 3))
                continue; /* the line kernel: a few */
            em_scan_spec c = {dt % 2 ? EM_RED_CUMPROD : EM_RED_CUMSUM,
                              (em_dtype)dt,
                              dflt[dt],
                              3,
                              dt % 3 - 1,
                              form};
            CHECK(compiles(&c));
            c.onepass = form; /* the single pass beside the tile kernels */
            if (form) CHECK(compiles(&c));
            c.warp = form; /* both by warp shuffles */
            if (form) CHECK(compiles(&c));
            c.regs = c.vin = c.vout = form; /* the single pass in registers, vectors */
            if (form && c.warp) CHECK(compiles(&c));
        }
    static const em_dtype casts[][2] = {{EM_FLOAT32, EM_FLOAT16}, {EM_INT32, EM_FLOAT16},
                                        {EM_FLOAT64, EM_INT8},    {EM_COMPLEX64, EM_COMPLEX128},
                                        {EM_FLOAT16, EM_FLOAT32}, {EM_BOOL, EM_BOOL},
                                        {EM_INT64, EM_COMPLEX64}};
    for (size_t i = 0; i < sizeof casts / sizeof *casts; i++) {
        em_scan_spec c = {EM_RED_CUMPROD,           casts[i][0], casts[i][1], 2, (int)i % 2 - 1,
                          casts[i][1] != EM_FLOAT16};
        CHECK(compiles(&c));
    }
}

/* Run the kernels of c on the host for each shape (grid blocks, one after
 * another); false if the build or any run fails. */
static bool emulate_one(const char *dir, const em_scan_spec *c, int nshapes,
                        const char *const *shapes, int grid, int block, int items) {
    char src[600], exe[600], cmd[2400];
    snprintf(src, sizeof src, "%s/scan.cpp", dir), snprintf(exe, sizeof exe, "%s/scan", dir);
    em_sbuf s = {0};
    char k = em_dtype_get(c->out)->kind;
    em_sbuf_printf(&s,
                   "%s#define EMUL_TILES %d\n#define EMUL_ONEPASS %d\n#define EMUL_PROD %d\n"
                   "#define EMUL_FLOAT %d\n#define EMUL_CPLX %d\n#define EMUL_CONTIG %d\n",
                   EMUL_PRE, c->tiles, c->onepass, c->op == EM_RED_CUMPROD, k == 'f' || k == 'c',
                   k == 'c', c->regs && c->vin);
    if (block) em_sbuf_printf(&s, "#define EM_B %d\n#define EM_K %d\n", block, items);
    bool ok = em_render_scan(&em_dialect_cuda, c, &s) == EM_OK;
    em_sbuf_printf(&s, "%s", EMUL_POST);
    FILE *f = ok && !s.oom ? fopen(src, "w") : NULL;
    ok = f && fputs(s.s, f) >= 0;
    if (f) fclose(f);
    em_sbuf_free(&s);
    snprintf(cmd, sizeof cmd, "c++ -std=c++17 -O0 -fwrapv -ffp-contract=off -w -pthread -o %s %s",
             exe, src);
    if (ok && system(cmd) != 0) {
        fprintf(stderr, "could not build %s\n", src);
        return false;
    }
    for (int i = 0; ok && i < nshapes; i++) {
        snprintf(cmd, sizeof cmd, "%s %d %d %d %s", exe, grid, i, c->nd, shapes[i]);
        ok = system(cmd) == 0;
        if (!ok) fprintf(stderr, "failed: %s (kernel source %s)\n", cmd, src);
    }
    return ok;
}

/* The tile kernels in both block-scan forms (the generic one, then CUDA's warp
 * shuffles, emulated by scan_emul.h); anything else once. */
static bool emulate_bk(const char *dir, const em_scan_spec *c, int nshapes,
                       const char *const *shapes, int grid, int block, int items) {
    em_scan_spec w = *c;
    w.warp = false;
    bool ok = emulate_one(dir, &w, nshapes, shapes, grid, block, items);
    w.warp = true;
    return ok && (!c->tiles || emulate_one(dir, &w, nshapes, shapes, grid, block, items));
}

static bool emulate(const char *dir, const em_scan_spec *c, int nshapes, const char *const *shapes,
                    int grid) {
    return emulate_bk(dir, c, nshapes, shapes, grid, 0, 0);
}

static bool have_cxx(void) { return ctest_have_cxx(); }

/* The tile kernels: lengths 1, tile - 1, tile, tile + 1, several tiles + 1,
 * more tiles than phase 2 scans at once (with a shrunken tile: tile * tile + 1
 * elements of the real one is too slow here); a grid of 2 or 3 makes every
 * block loop; few and many lines. */
static void test_emulated_tiles(void) {
    if (!have_cxx()) {
        printf("skip: no C++ compiler\n");
        return;
    }
    char dir[] = "/tmp/ember_scan_emul_XXXXXX";
    if (!mkdtemp(dir)) return;
    /* The real tile (256 threads x 8). */
    static const char *const flat1[] = {"1", "2047", "2048", "2049", "8193"};
    em_scan_spec c = {EM_RED_CUMSUM, EM_FLOAT32, EM_FLOAT32, 1, 0, true};
    CHECK(emulate(dir, &c, 5, flat1, 2));
    static const char *const cols[] = {"4099 3"};
    c = (em_scan_spec){EM_RED_CUMPROD, EM_FLOAT64, EM_FLOAT64, 2, 0, true};
    CHECK(emulate(dir, &c, 1, cols, 2));
    /* A tile of 32 threads x 3 (96), to keep the host time low: the same
     * boundaries, and phase 2 looping over chunks of a line's 98+ totals. */
    static const char *const rows[] = {"3 193", "5 7", "2 96"};
    c = (em_scan_spec){EM_RED_CUMSUM, EM_INT8, EM_INT64, 2, 1, true};
    CHECK(emulate_bk(dir, &c, 3, rows, 3, 32, 3));
    static const char *const flat3[] = {"3 5 30", "2 1 97"};
    c = (em_scan_spec){EM_RED_CUMSUM, EM_COMPLEX64, EM_COMPLEX64, 3, -1, true};
    CHECK(emulate_bk(dir, &c, 2, flat3, 1, 32, 3));
    c = (em_scan_spec){EM_RED_CUMPROD, EM_COMPLEX128, EM_COMPLEX128, 3, 2, true};
    CHECK(emulate_bk(dir, &c, 2, flat3, 2, 32, 3));
    static const char *const many[] = {"95", "97", "9600", "2 9313"};
    c = (em_scan_spec){EM_RED_CUMSUM, EM_INT32, EM_INT64, 1, 0, true};
    CHECK(emulate_bk(dir, &c, 3, many, 3, 32, 3));
    c = (em_scan_spec){EM_RED_CUMSUM, EM_FLOAT64, EM_FLOAT64, 2, 1, true};
    CHECK(emulate_bk(dir, &c, 1, many + 3, 2, 32, 3));
    static const char *const one[] = {"500"};
    c = (em_scan_spec){EM_RED_CUMPROD, EM_UINT16, EM_UINT64, 1, 0, true};
    CHECK(emulate_bk(dir, &c, 1, one, 1, 32, 3));
    c = (em_scan_spec){EM_RED_CUMSUM, EM_BOOL, EM_BOOL, 1, 0, true};
    CHECK(emulate_bk(dir, &c, 1, one, 2, 32, 3));
    char cmd[100];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    if (system(cmd) != 0) fprintf(stderr, "could not remove %s\n", dir);
}

/* The single pass (decoupled look-back), with a third of the tiles left at
 * their totals (EM_LB_HOLD in scan_emul.h) so that look-backs walk over
 * several: one tile, several, several lines, every layout, a grid that loops. */
static void test_emulated_onepass(void) {
    if (!have_cxx()) return;
    char dir[] = "/tmp/ember_scan_emul_XXXXXX";
    if (!mkdtemp(dir)) return;
    static const char *const flat1[] = {"1", "2048", "2049", "10241"};
    em_scan_spec c = {EM_RED_CUMSUM, EM_FLOAT32, EM_FLOAT32, 1, 0, true, true};
    CHECK(emulate(dir, &c, 4, flat1, 2));
    static const char *const rows[] = {"3 193", "5 7", "2 96", "4 1000"};
    c = (em_scan_spec){EM_RED_CUMSUM, EM_INT8, EM_INT64, 2, 1, true, true};
    CHECK(emulate_bk(dir, &c, 4, rows, 3, 32, 3));
    c = (em_scan_spec){EM_RED_CUMPROD, EM_FLOAT64, EM_FLOAT64, 2, 0, true, true};
    CHECK(emulate_bk(dir, &c, 4, rows, 1, 32, 3));
    /* 4-byte accumulators: the warp form packs each tile's flag and value in
     * one word (em_scan_packed); the generic form keeps them apart. */
    c = (em_scan_spec){EM_RED_CUMSUM, EM_INT32, EM_INT32, 2, 1, true, true};
    CHECK(emulate_bk(dir, &c, 4, rows, 3, 32, 3));
    c = (em_scan_spec){EM_RED_CUMPROD, EM_UINT8, EM_UINT32, 2, 0, true, true};
    CHECK(emulate_bk(dir, &c, 4, rows, 2, 32, 3));
    static const char *const flat3[] = {"3 5 30", "2 1 97"};
    c = (em_scan_spec){EM_RED_CUMSUM, EM_COMPLEX64, EM_COMPLEX64, 3, -1, true, true};
    CHECK(emulate_bk(dir, &c, 2, flat3, 1, 32, 3));
    c = (em_scan_spec){EM_RED_CUMPROD, EM_COMPLEX128, EM_COMPLEX128, 3, 2, true, true};
    CHECK(emulate_bk(dir, &c, 2, flat3, 2, 32, 3));
    static const char *const one[] = {"500"};
    c = (em_scan_spec){EM_RED_CUMSUM, EM_BOOL, EM_BOOL, 1, 0, true, true};
    CHECK(emulate_bk(dir, &c, 1, one, 2, 32, 3));
    c = (em_scan_spec){EM_RED_CUMPROD, EM_UINT16, EM_UINT64, 1, 0, true, true};
    CHECK(emulate_bk(dir, &c, 1, one, 1, 32, 3));
    char cmd[100];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    if (system(cmd) != 0) fprintf(stderr, "could not remove %s\n", dir);
}

/* The single pass in registers (em_scan_spec.regs) with a block of 32 or 64
 * threads and two or three rows a thread: strided lines (scalar loads and
 * stores), contiguous ones (16-byte vectors for a full tile), partial last
 * tiles, tiles left at their totals, the ticket and the block index. */
static void test_emulated_regs(void) {
    if (!have_cxx()) return;
    char dir[] = "/tmp/ember_scan_emul_XXXXXX";
    if (!mkdtemp(dir)) return;
    static const char *const flat1[] = {"1", "255", "256", "257", "3000"};
    static const char *const rows[] = {"3 193", "2 128", "4 1000"};
    static const char *const flat3[] = {"3 5 30", "2 1 97"};
    struct {
        em_scan_spec c;
        int n;
        const char *const *shapes;
        int grid, rows;
    } cases[] = {
        {{EM_RED_CUMSUM, EM_FLOAT32, EM_FLOAT32, 1, 0, true}, 5, flat1, 2, 2},
        {{EM_RED_CUMSUM, EM_FLOAT32, EM_FLOAT32, 1, -1, true}, 5, flat1, 3, 3},
        {{EM_RED_CUMSUM, EM_INT8, EM_INT64, 2, 1, true}, 3, rows, 3, 2},
        {{EM_RED_CUMSUM, EM_INT32, EM_INT32, 2, 1, true}, 3, rows, 2, 3},
        {{EM_RED_CUMPROD, EM_UINT8, EM_UINT32, 2, 0, true}, 3, rows, 2, 2},
        {{EM_RED_CUMSUM, EM_FLOAT64, EM_FLOAT64, 2, 1, true}, 3, rows, 1, 2},
        {{EM_RED_CUMSUM, EM_COMPLEX64, EM_COMPLEX64, 3, -1, true}, 2, flat3, 1, 2},
        {{EM_RED_CUMSUM, EM_COMPLEX128, EM_COMPLEX128, 3, 2, true}, 2, flat3, 2, 3},
        {{EM_RED_CUMSUM, EM_BOOL, EM_BOOL, 1, 0, true}, 5, flat1, 2, 2},
        {{EM_RED_CUMPROD, EM_UINT16, EM_UINT64, 1, 0, true}, 5, flat1, 1, 2},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++)
        for (int form = 0; form < 3; form++) {
            em_scan_spec c = cases[i].c;
            c.onepass = c.warp = c.regs = true;
            /* Vectors where every line is contiguous and aligned: one line, or flattened
             * (the harness's input is contiguous then). */
            const bool vec = c.nd == 1 || c.axis < 0;
            if (form == 1 && !vec) continue;
            c.vin = c.vout = form > 0 && vec;
            c.byblock = form == 2;   /* every tile its own block: a grid of 64 covers them */
            c.unpacked = i % 2 == 1; /* 4-byte accumulators both ways */
            int b, v, k;
            em_scan_regs_shape(&c, &b, &v, &k);
            const int blk = i % 3 == 0 ? 64 : 32;
            if (!emulate_one(dir, &c, cases[i].n, cases[i].shapes, form == 2 ? 64 : cases[i].grid,
                             blk, v * cases[i].rows))
                CHECK(0);
        }
    char cmd[100];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    if (system(cmd) != 0) fprintf(stderr, "could not remove %s\n", dir);
}

/* The line kernel: float16 (every partial rounded), a flattened strided
 * scan, and more lines than threads in the grid. */
static void test_emulated_lines(void) {
    if (!have_cxx()) return;
    char dir[] = "/tmp/ember_scan_emul_XXXXXX";
    if (!mkdtemp(dir)) return;
    static const char *const s2[] = {"600 9", "3 1"};
    em_scan_spec c = {EM_RED_CUMSUM, EM_FLOAT16, EM_FLOAT16, 2, 0, false};
    CHECK(emulate(dir, &c, 2, s2, 2));
    c = (em_scan_spec){EM_RED_CUMPROD, EM_INT32, EM_FLOAT16, 2, -1, false};
    CHECK(emulate(dir, &c, 2, s2, 1));
    c = (em_scan_spec){EM_RED_CUMSUM, EM_FLOAT64, EM_FLOAT64, 2, 1, false};
    CHECK(emulate(dir, &c, 2, s2, 1));
    char cmd[100];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    if (system(cmd) != 0) fprintf(stderr, "could not remove %s\n", dir);
}

int main(void) {
    char dir[] = "/tmp/ember_scan_cache_XXXXXX", cmd[100];
    if (!mkdtemp(dir)) return 1;
    setenv("EMBER_CACHE_DIR", dir, 1);
    RUN(test_choose);
    RUN(test_render_errors);
    RUN(test_golden_tiles);
    RUN(test_nvrtc_every_dtype);
    RUN(test_emulated_tiles);
    RUN(test_emulated_onepass);
    RUN(test_emulated_regs);
    RUN(test_emulated_lines);
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    if (system(cmd) != 0) fprintf(stderr, "could not remove %s\n", dir);
    return ctest_summary();
}
