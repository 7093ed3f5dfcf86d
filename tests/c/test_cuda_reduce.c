/* CUDA reductions without a GPU: the plan's merged dims, the 32-bit index
 * decision, and the rendered kernels run on the host (reduce_emul.h) over
 * strided, transposed, reversed, broadcast-leaf, 0-d and empty inputs, in
 * warp mode, block mode and block mode split in two passes.  Each result
 * is compared bit for bit with the combination order that the kernels
 * promise (render_reduce.c: each lane's elements in increasing k, then
 * the warp's shuffles or the block's tree), computed here from the arrays'
 * own strides, not from the plan: merging dims must not change a bit.
 * With no argument the test runs itself again under a few
 * EMBER_REDUCE_TUNE variants (read once per process).  The C++ parts skip
 * when there is no compiler. */
#include "codegen/render_reduce.h"
#include "core/core.h"
#include "ctest.h"
#include "reduce_emul.h"

#include <dlfcn.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

static const em_device cpu = {EM_CPU, 0};

/* A case: a view (element strides, negative allowed) of a random buffer,
 * reduced over axes, plain or fused: x * x, or x * y with y a broadcast
 * view of its own (ysh, ystr: y's shape and strides, right-aligned). */
typedef struct rcase {
    em_dtype dt;
    int nd;
    int64_t sh[4], str[4];
    int naxes, axes[4];
    char fuse; /* 0, 's' (x * x), 'y' (x * y) */
    int ynd;
    int64_t ysh[4], ystr[4];
    char mode;    /* 'w' warp, 'b' block, 's' block split in 3 */
    int grid_cap; /* 0: a block per 8 units (warp) or per unit */
    int no, ni;   /* the dims the plan should have after merging */
} rcase;

typedef struct rdata {
    em_array x, y, a, o;
    em_node lx, ly, prod;
    void *xbuf, *ybuf, *obuf, *abuf, *part;
    size_t xlen, ylen;
} rdata;

/* A buffer for n elements of a view with these strides, and the offset of
 * element 0 (negative strides count back from it). */
static int64_t view_span(int nd, const int64_t *sh, const int64_t *st, int64_t *off) {
    int64_t span = 1;
    *off = 0;
    for (int i = 0; i < nd; i++) {
        if (sh[i] == 0) return 0;
        span += (sh[i] - 1) * (st[i] < 0 ? -st[i] : st[i]);
        if (st[i] < 0) *off += (sh[i] - 1) * -st[i];
    }
    return span;
}

static unsigned long long rng = 88172645463325252ULL;
static double rnd(void) {
    rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
    return ((double)(rng >> 11) / 9007199254740992.0 - 0.5) *
           (double)(1 << (rng % 7)); /* mixed magnitudes */
}

/* The view's buffer is mapped, not allocated, and only its elements are
 * written: a view may span more than 4 GiB in a few pages (offsets past
 * 32 bits with 32-bit loop indices). */
static em_status wrap_view(em_array *v, void **buf, size_t *len, em_dtype dt, int nd,
                           const int64_t *sh, const int64_t *st) {
    int64_t off, span = view_span(nd, sh, st, &off), esz = em_dtype_get(dt)->size, bst[4], n = 1;
    *len = (size_t)((span ? span : 1) * esz);
    *buf = mmap(NULL, *len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1,
                0);
    if (*buf == MAP_FAILED) return *buf = NULL, EM_ENOMEM;
    for (int i = 0; i < nd; i++) bst[i] = st[i] * esz, n *= sh[i];
    char *e0 = (char *)*buf + off * esz;
    for (int64_t i = 0; i < n; i++) {
        char *q = e0;
        for (int64_t d = nd - 1, r = i; d >= 0; d--) q += r % sh[d] * bst[d], r /= sh[d];
        if (dt == EM_FLOAT32)
            *(float *)q = (float)rnd();
        else
            *(double *)q = rnd();
    }
    return em_array_wrap(v, e0, dt, nd, sh, bst, cpu, NULL, NULL);
}

/* Plan c as the CUDA backend would (em_run_reduce: make, fuse, split). */
static em_status plan(const rcase *c, rdata *d, em_rplan *p) {
    memset(d, 0, sizeof *d);
    int64_t osh[4];
    int on = 0;
    for (int i = 0; i < c->nd; i++) {
        bool red = c->naxes < 0;
        for (int j = 0; j < c->naxes; j++) red = red || c->axes[j] == i;
        if (!red) osh[on++] = c->sh[i];
    }
    int64_t nout = 1;
    for (int i = 0; i < on; i++) nout *= osh[i];
    em_status s = wrap_view(&d->x, &d->xbuf, &d->xlen, c->dt, c->nd, c->sh, c->str);
    if (s == EM_OK && c->fuse == 'y')
        s = wrap_view(&d->y, &d->ybuf, &d->ylen, c->dt, c->ynd, c->ysh, c->ystr);
    d->obuf = calloc((size_t)(nout ? nout : 1), 8);
    if (s == EM_OK) s = em_array_wrap(&d->o, d->obuf, c->dt, on, osh, NULL, cpu, NULL, NULL);
    if (s != EM_OK) return s;
    if (!c->fuse)
        return em_rplan_make(EM_RED_SUM, &d->x, c->naxes, c->axes, EM_NDTYPES, 0, &d->o, p);
    d->abuf = calloc(1, 16); /* the placeholder: never read */
    s = em_array_wrap(&d->a, d->abuf, c->dt, c->nd, c->sh, NULL, cpu, NULL, NULL);
    em_node_leaf(&d->lx, &d->x);
    if (c->fuse == 'y') em_node_leaf(&d->ly, &d->y);
    d->prod = (em_node){.op = EM_OP_MULTIPLY,
                        .loop = c->dt,
                        .dtype = c->dt,
                        .nin = 2,
                        .in = {&d->lx, c->fuse == 'y' ? &d->ly : &d->lx}};
    if (s == EM_OK)
        s = em_rplan_make(EM_RED_SUM, &d->a, c->naxes, c->axes, EM_NDTYPES, 0, &d->o, p);
    if (s == EM_OK) s = em_rplan_fuse(p, &d->prod, &d->a, c->naxes, c->axes, &d->o);
    return s;
}

static void set_split(const rcase *c, rdata *d, em_rplan *p) {
    p->warp = c->mode == 'w';
    p->nsplit = c->mode == 's' ? 3 : 1;
    if (p->nsplit > 1)
        d->part = calloc((size_t)(p->nout * p->nsplit), EM_RSTATE_MAX), p->part = d->part;
}

static void release(rdata *d) {
    em_array_release(&d->x), em_array_release(&d->y), em_array_release(&d->a),
        em_array_release(&d->o);
    if (d->xbuf) munmap(d->xbuf, d->xlen);
    if (d->ybuf) munmap(d->ybuf, d->ylen);
    free(d->obuf), free(d->abuf), free(d->part);
}

/* ---- the reference: the kernels' promised order, from the view itself ---- */

static double elem(const em_array *v, const int64_t *idx, bool f32) {
    const char *q = v->data;
    for (int i = 0; i < v->ndim; i++) q += idx[i] * v->strides[i];
    return f32 ? *(const float *)q : *(const double *)q;
}

/* The producer's value at x's index idx (y right-aligned, broadcast). */
static double value(const rcase *c, const rdata *d, const int64_t *idx) {
    bool f32 = c->dt == EM_FLOAT32;
    double xv = elem(&d->x, idx, f32), r = xv;
    if (c->fuse == 's') r = xv * xv;
    if (c->fuse == 'y') {
        int64_t yi[4];
        for (int i = 0; i < c->ynd; i++) yi[i] = c->ysh[i] == 1 ? 0 : idx[c->nd - c->ynd + i];
        r = xv * elem(&d->y, yi, f32);
    }
    return f32 ? (float)r : r; /* one rounding: float's product, exactly */
}

/* Element k of output o: o over the kept axes, k over the reduced ones,
 * both in C order of x's axes. */
static double value_ok(const rcase *c, const rdata *d, int64_t o, int64_t k) {
    int64_t idx[4];
    for (int i = c->nd - 1; i >= 0; i--) {
        bool red = c->naxes < 0;
        for (int j = 0; j < c->naxes; j++) red = red || c->axes[j] == i;
        int64_t *q = red ? &k : &o;
        idx[i] = *q % c->sh[i], *q /= c->sh[i];
    }
    return value(c, d, idx);
}

static double add(bool f32, double a, double b) { return f32 ? (double)(float)(a + b) : a + b; }

/* Split s of output o: lane l combines groups s*rw + l + j*rw*nsplit
 * (v elements each, in order) from 0, then the lanes' tree (the warp's
 * shuffles down by 16..1 give lane 0 the same sums as halving). */
static double ref_split(const rcase *c, const rdata *d, const em_rplan *p, int64_t o, int64_t s) {
    bool f32 = c->dt == EM_FLOAT32;
    int rw = p->warp ? 32 : 256, v = f32 ? 4 : 2;
    double acc[256];
    for (int l = 0; l < rw; l++) {
        acc[l] = 0;
        for (int64_t g = s * rw + l; g * v < p->m; g += rw * p->nsplit)
            for (int64_t k = g * v; k < g * v + v && k < p->m; k++)
                acc[l] = add(f32, acc[l], value_ok(c, d, o, k));
    }
    for (int w = rw / 2; w > 0; w /= 2)
        for (int l = 0; l < w; l++) acc[l] = add(f32, acc[l], acc[l + w]);
    return acc[0];
}

/* Output o: one split, or pass 2's block tree over the splits' states. */
static double ref_out(const rcase *c, const rdata *d, const em_rplan *p, int64_t o) {
    if (p->nsplit == 1) return ref_split(c, d, p, o, 0);
    bool f32 = c->dt == EM_FLOAT32;
    double acc[256];
    for (int t = 0; t < 256; t++) {
        acc[t] = 0;
        for (int64_t s = t; s < p->nsplit; s += 256)
            acc[t] = add(f32, acc[t], ref_split(c, d, p, o, s));
    }
    for (int w = 128; w > 0; w /= 2)
        for (int t = 0; t < w; t++) acc[t] = add(f32, acc[t], acc[t + w]);
    return acc[0];
}

/* ---- the cases ---- */

#define F64 EM_FLOAT64
#define F32 EM_FLOAT32
static const rcase cases[] = {
    /* seed 004's shape, small: kept (3, 40) merge into one dim */
    {F64, 3, {3, 40, 100}, {4000, 100, 1}, 1, {2}, 's', .mode = 'w', .no = 1, .ni = 1},
    {F64, 3, {3, 40, 100}, {4000, 100, 1}, 1, {2}, 0, .mode = 'w', .no = 1, .ni = 1},
    {F32,
     3,
     {3, 40, 101},
     {4040, 101, 1},
     1,
     {2},
     's',
     .mode = 'w',
     .no = 1,
     .ni = 1}, /* odd rows: misaligned */
    {F32, 3, {2, 70, 64}, {4480, 64, 1}, 1, {2}, 0, .mode = 'w', .grid_cap = 3, .no = 1, .ni = 1},
    /* every other row of a (6, 40, 50): still one kept dim; every other column: not wide */
    {F64, 3, {6, 20, 50}, {2000, 100, 1}, 1, {2}, 's', .mode = 'w', .no = 1, .ni = 1},
    {F64, 3, {6, 20, 25}, {1000, 50, 2}, 1, {2}, 0, .mode = 'w', .no = 1, .ni = 1},
    /* reversed kept dims (negative strides) merge; a reversed reduced dim */
    {F64, 3, {6, 7, 50}, {-350, -50, 1}, 1, {2}, 's', .mode = 'w', .no = 1, .ni = 1},
    {F64, 2, {12, 30}, {30, -1}, 1, {1}, 0, .mode = 'b', .no = 1, .ni = 1},
    /* transposed: kept (7, 5) with strides (1, 7*6): no merge */
    {F64, 3, {7, 5, 6}, {1, 42, 7}, 1, {2}, 0, .mode = 'b', .no = 2, .ni = 1},
    {F32, 3, {7, 5, 6}, {1, 42, 7}, 1, {2}, 's', .mode = 'b', .grid_cap = 4, .no = 2, .ni = 1},
    /* the middle axis of a C-contiguous array: kept (2, 5) cannot merge */
    {F64, 3, {2, 300, 5}, {1500, 5, 1}, 1, {1}, 's', .mode = 's', .no = 2, .ni = 1},
    /* two trailing reduced dims merge: the wide loop where there was none */
    {F64, 3, {4, 10, 30}, {300, 30, 1}, 2, {1, 2}, 's', .mode = 's', .no = 1, .ni = 1},
    {F32, 3, {4, 10, 30}, {300, 30, 1}, 2, {1, 2}, 0, .mode = 'b', .no = 1, .ni = 1},
    /* reduced (0, 2) of a C-contiguous array: no merge either side */
    {F64, 3, {5, 6, 7}, {42, 7, 1}, 2, {0, 2}, 's', .mode = 'b', .no = 1, .ni = 2},
    /* axis 0 of (600, 24); everything (axis=None), in one and in three splits */
    {F64, 2, {600, 24}, {24, 1}, 1, {0}, 's', .mode = 'b', .no = 1, .ni = 1},
    {F64, 3, {4, 5, 66}, {330, 66, 1}, -1, {0}, 's', .mode = 's', .no = 1, .ni = 1},
    {F32, 3, {4, 5, 66}, {330, 66, 1}, -1, {0}, 0, .mode = 'b', .no = 1, .ni = 1},
    /* a leaf broadcast over both kept dims merges with x; one broadcast
     * over one of them stops the merge for all */
    {F64, 3, {5, 30, 64}, {1920, 64, 1}, 1, {2}, 'y', 1, {64}, {1}, .mode = 'w', .no = 1, .ni = 1},
    {F64,
     3,
     {5, 30, 64},
     {1920, 64, 1},
     1,
     {2},
     'y',
     2,
     {30, 64},
     {64, 1},
     .mode = 'w',
     .no = 2,
     .ni = 1},
    {F64,
     3,
     {5, 30, 64},
     {1920, 64, 1},
     1,
     {2},
     'y',
     3,
     {5, 1, 64},
     {64, 64, 1},
     .mode = 'w',
     .no = 2,
     .ni = 1},
    /* y broadcast along the reduced axis: loaded once per unit */
    {F32,
     3,
     {5, 30, 64},
     {1920, 64, 1},
     1,
     {2},
     'y',
     3,
     {5, 30, 1},
     {30, 1, 1},
     .mode = 'w',
     .no = 1,
     .ni = 1},
    /* rows 2^31 + 8 bytes apart (32-bit loop indices, 64-bit offsets), odd
     * and misaligned rows: the per-element paths; reversed past 4 GiB */
    {F64, 2, {3, 37}, {268435457, 1}, 1, {1}, 's', .mode = 'w', .no = 1, .ni = 1},
    {F64, 2, {3, 37}, {268435457, 1}, 1, {1}, 0, .mode = 'b', .no = 1, .ni = 1},
    {F32, 3, {3, 2, 9}, {-536870913, 9, 1}, 2, {1, 2}, 's', .mode = 'b', .no = 1, .ni = 1},
    /* 0-d; an empty reduced axis */
    {F64, 0, {0}, {0}, -1, {0}, 's', .mode = 'b', .no = 1, .ni = 1},
    {F64, 2, {5, 0}, {1, 1}, 1, {1}, 0, .mode = 'w', .no = 1, .ni = 1},
};
#define NCASES ((int)(sizeof cases / sizeof *cases))

/* The plan merges what it should, and only there. */
static void test_merged_dims(void) {
    for (int i = 0; i < NCASES; i++) {
        static em_rplan p;
        rdata d;
        em_status s = plan(&cases[i], &d, &p);
        CHECK(s == EM_OK);
        if (s == EM_OK && (p.no != cases[i].no || p.ni != cases[i].ni))
            fprintf(stderr, "case %d: no %d ni %d, want %d %d\n", i, p.no, p.ni, cases[i].no,
                    cases[i].ni);
        CHECK(s != EM_OK || (p.no == cases[i].no && p.ni == cases[i].ni));
        release(&d);
    }
}

/* 32-bit loop indices exactly where a row's bytes and the units fit in
 * 2^30 with room (the key says which). */
static void test_idx32_decision(void) {
    static char mem[64];
    int64_t big[2] = {2, (int64_t)1 << 27}, fits[2] = {2, (int64_t)1 << 25},
            many[2] = {(int64_t)1 << 31, 2};
    const int64_t *shapes[3] = {big, fits, many};
    bool want[3] = {false, true, false};
    for (int i = 0; i < 3; i++) {
        em_array x, o;
        int axes[1] = {1};
        static em_rplan p;
        em_sbuf key = {0};
        CHECK(em_array_wrap(&x, mem, EM_FLOAT64, 2, shapes[i], NULL, cpu, NULL, NULL) == EM_OK);
        CHECK(em_array_wrap(&o, mem, EM_FLOAT64, 1, shapes[i], NULL, cpu, NULL, NULL) == EM_OK);
        CHECK(em_rplan_make(EM_RED_SUM, &x, 1, axes, EM_NDTYPES, 0, &o, &p) == EM_OK);
        em_rplan_key(&p, &key);
        const char *tune = getenv("EMBER_REDUCE_TUNE");
        bool i64 = tune && strstr(tune, "i64");
        CHECK(key.s && (strstr(key.s, "|I") != NULL) == (want[i] && !i64));
        em_sbuf_free(&key);
        em_array_release(&x), em_array_release(&o);
    }
}

static bool have_cxx(void) { return ctest_have_cxx(); }

/* Replace every `extern "C" ` of a kernel body (namespaced in the library). */
static void put_body(em_sbuf *s, const char *body) {
    const char *ext = "extern \"C\" ";
    for (const char *q; (q = strstr(body, ext)); body = q + strlen(ext))
        em_sbuf_printf(s, "%.*s", (int)(q - body), body);
    em_sbuf_printf(s, "%s", body);
}

/* Render every case into one library, build it with c++, load it. */
static void *build_all(const char *dir, em_rplan *plans, rdata *ds) {
    em_sbuf s = {0};
    em_sbuf_printf(&s, "#define EMUL_OWN_SHFL_DOWN 1\n%s%s%s", EMUL_PRE, REMUL_PRE,
                   em_render_prelude());
    bool ok = true;
    for (int i = 0; i < NCASES && ok; i++) {
        ok = plan(&cases[i], &ds[i], &plans[i]) == EM_OK;
        set_split(&cases[i], &ds[i], &plans[i]);
        em_sbuf src = {0};
        ok = ok && em_render_reduce(&em_dialect_cuda, &plans[i], &src) == EM_OK && !src.oom;
        em_sbuf_printf(&s, "namespace e%d {\n", i);
        if (ok) put_body(&s, src.s + strlen(em_render_prelude()));
        if (ok && plans[i].warp) em_sbuf_printf(&s, "%s", REMUL_NO_K2);
        em_sbuf_printf(&s, REMUL_ENTRY, i, i, i);
        em_sbuf_free(&src);
    }
    char path[600], lib[600], cmd[1400];
    snprintf(path, sizeof path, "%s/reduce.cpp", dir),
        snprintf(lib, sizeof lib, "%s/reduce.so", dir);
    FILE *f = ok && !s.oom ? fopen(path, "w") : NULL;
    ok = f && fputs(s.s, f) >= 0;
    if (f) fclose(f);
    em_sbuf_free(&s);
    snprintf(cmd, sizeof cmd,
             "c++ -std=c++17 -O1 -fwrapv -ffp-contract=off -w -pthread -shared -fPIC -o %s %s", lib,
             path);
    if (ok && system(cmd) != 0) fprintf(stderr, "could not build %s\n", path), ok = false;
    void *h = ok ? dlopen(lib, RTLD_NOW | RTLD_LOCAL) : NULL;
    if (ok && !h) fprintf(stderr, "dlopen: %s\n", dlerror());
    return h;
}

/* Run case i's kernels as em_run_reduce launches them; compare. */
static bool run_case(void *h, int i, em_rplan *p, rdata *d) {
    const rcase *c = &cases[i];
    char name[32];
    snprintf(name, sizeof name, "emul_%d", i);
    void (*fn)(const void *, unsigned, int);
    *(void **)&fn = dlsym(h, name);
    static long long args[256];
    if (!fn || !em_rplan_args(p, args, sizeof args)) return false;
    int64_t units = p->nout * p->nsplit, g = p->warp ? (units + 7) / 8 : units;
    if (c->grid_cap && g > c->grid_cap) g = c->grid_cap;
    if (p->nout > 0) {
        fn(args, (unsigned)(g < 1 ? 1 : g), 0);
        if (p->nsplit > 1)
            fn(args, (unsigned)(p->nout < c->grid_cap || !c->grid_cap ? p->nout : c->grid_cap), 1);
    }
    int64_t bad = 0;
    for (int64_t o = 0; o < p->nout; o++) {
        double want = ref_out(c, d, p, o), got;
        if (c->dt == EM_FLOAT32)
            got = ((float *)d->obuf)[o];
        else
            got = ((double *)d->obuf)[o];
        if (memcmp(&want, &got, 8) && bad++ < 3)
            fprintf(stderr, "case %d output %lld: got %.17g want %.17g\n", i, (long long)o, got,
                    want);
    }
    return bad == 0;
}

static void test_emulated_kernels(void) {
    if (!have_cxx()) {
        printf("skip: no C++ compiler\n");
        return;
    }
    char dir[] = "/tmp/ember_reduce_emul_XXXXXX", cmd[100];
    if (!mkdtemp(dir)) return;
    static em_rplan plans[NCASES];
    static rdata ds[NCASES];
    void *h = build_all(dir, plans, ds);
    CHECK(h != NULL);
    for (int i = 0; h && i < NCASES; i++) {
        bool ok = run_case(h, i, &plans[i], &ds[i]);
        if (!ok) fprintf(stderr, "case %d failed (source in %s)\n", i, dir);
        CHECK(ok);
    }
    if (h) dlclose(h);
    for (int i = 0; i < NCASES; i++) release(&ds[i]);
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    if (ctest_failures == 0 && system(cmd) != 0) fprintf(stderr, "could not remove %s\n", dir);
}

/* The same kernels under other EMBER_REDUCE_TUNE variants: this binary
 * again, in a process of its own each. */
static const char *g_self;

static void test_variants(void) {
    static const char *const tunes[] = {"u8,i64", "u3"}; /* 64-bit; an odd batch */
    for (size_t i = 0; i < sizeof tunes / sizeof *tunes; i++) {
        char cmd[1200];
        snprintf(cmd, sizeof cmd, "EMBER_REDUCE_TUNE=%s %s variant > /dev/null", tunes[i], g_self);
        bool ok = system(cmd) == 0;
        if (!ok) fprintf(stderr, "variant %s failed: %s\n", tunes[i], cmd);
        CHECK(ok);
    }
}

int main(int argc, char **argv) {
    RUN(test_merged_dims);
    RUN(test_idx32_decision);
    RUN(test_emulated_kernels);
    g_self = argv[0];
    if (argc < 2) RUN(test_variants);
    return ctest_summary();
}
