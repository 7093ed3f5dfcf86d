/* Philox4x32-10 against the Random123 known-answer vectors, and the stream
 * layout of em_random_fill / em_random_integers (ember.h). */
#include "codegen/philox.h"
#include "codegen/rand_dist.h"
#include "codegen/sbuf.h"
#include "ctest.h"
#include "ember/kernel.h"

#include <math.h>

static void kat(const uint32_t ctr[4], const uint32_t key[2], const uint32_t want[4]) {
    uint32_t out[4];
    em_philox4x32_10(ctr, key, out);
    for (int i = 0; i < 4; i++) CHECK(out[i] == want[i]);
}

static void test_philox_known_answers(void) {
    const uint32_t z[4] = {0, 0, 0, 0}, zk[2] = {0, 0};
    const uint32_t w0[4] = {0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8};
    kat(z, zk, w0);
    const uint32_t f[4] = {0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff};
    const uint32_t fk[2] = {0xffffffff, 0xffffffff};
    const uint32_t w1[4] = {0x408f276d, 0x41c83b0e, 0xa20bc7c6, 0x6d5451fd};
    kat(f, fk, w1);
    const uint32_t p[4] = {0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344};
    const uint32_t pk[2] = {0xa4093822, 0x299f31d0};
    const uint32_t w2[4] = {0xd16cfe09, 0x94fdcceb, 0x5001e420, 0x24126ea1};
    kat(p, pk, w2);
}

/* The device text (EM_PHILOX_SRC, what render_random.c pastes into kernels)
 * compiled by the system C compiler with the names a dialect fills in:
 * the same known answers as the host expansion.  Skips without a compiler. */
static void test_device_text_known_answers(void) {
    if (!em_cc_available()) return;
    static const char head[] =
        "#include <stdint.h>\ntypedef uint32_t em_u32;\n#define EM_PHILOX_FN\n"
        "#define em_mulhi32(a, b) ((em_u32)(((uint64_t)(a) * (b)) >> 32))\n";
    char src[4096];
    snprintf(src, sizeof src, "%s%s\n", head, EM_PHILOX_SRC);
    em_cc_lib *lib = NULL;
    CHECK(em_cc_load(src, "philox_text", &lib) == EM_OK);
    void (*f)(uint32_t *, uint32_t, uint32_t) =
        lib ? (void (*)(uint32_t *, uint32_t, uint32_t))em_cc_sym(lib, "em_philox") : NULL;
    CHECK(f != NULL);
    if (!f) return;
    uint32_t c[4] = {0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344};
    f(c, 0xa4093822, 0x299f31d0);
    CHECK(c[0] == 0xd16cfe09 && c[1] == 0x94fdcceb && c[2] == 0x5001e420 && c[3] == 0x24126ea1);
    uint32_t z[4] = {0, 0, 0, 0};
    f(z, 0, 0);
    CHECK(z[0] == 0x6627e8d5 && z[1] == 0xe169c58d && z[2] == 0xbc57ac4c && z[3] == 0x9b00dbd8);
}

static em_array make(em_dtype dt, int64_t n) {
    em_array a = {0};
    em_device cpu = {EM_CPU, 0};
    CHECK(em_array_empty(&a, dt, 1, &n, cpu) == EM_OK);
    return a;
}

/* uint32 bits of stream (0, 0) start with the first known-answer block. */
static void test_fill_bits_layout(void) {
    em_array a = make(EM_UINT32, 10);
    uint64_t next = 0;
    CHECK(em_random_fill(&a, EM_RAND_BITS, 0, 0, &next) == EM_OK);
    CHECK(next == 3); /* ceil(10 / 4) blocks */
    const uint32_t *v = (const uint32_t *)a.data;
    CHECK(v[0] == 0x6627e8d5 && v[1] == 0xe169c58d && v[2] == 0xbc57ac4c && v[3] == 0x9b00dbd8);
    uint32_t w[4];
    em_philox_block(0, 0, 2, w);
    CHECK(v[8] == w[0] && v[9] == w[1]);
    em_array b = make(EM_UINT64, 3);
    CHECK(em_random_fill(&b, EM_RAND_BITS, 0, 0, &next) == EM_OK);
    CHECK(next == 2);
    CHECK(((const uint64_t *)b.data)[0] == (0xe169c58dull << 32 | 0x6627e8d5ull));
    em_array_release(&a);
    em_array_release(&b);
}

/* The CPU's SIMD lanes and thread split give the scalar definition, across
 * a 32-bit carry in the counter and a partial last block. */
static void test_fill_matches_scalar(void) {
    const int64_t n = 100003;
    const uint64_t key = 0x0123456789abcdefull, ctr = 0xfffffff0ull;
    em_array a = make(EM_UINT32, n), d = make(EM_FLOAT64, n);
    uint64_t next;
    CHECK(em_random_fill(&a, EM_RAND_BITS, key, ctr, &next) == EM_OK);
    CHECK(next == ctr + (uint64_t)(n + 3) / 4);
    CHECK(em_random_fill(&d, EM_RAND_UNIFORM, key, ctr, &next) == EM_OK);
    const uint32_t *v = (const uint32_t *)a.data;
    const double *u = (const double *)d.data;
    int bits_ok = 1, unif_ok = 1;
    for (int64_t i = 0; i < n; i++) {
        uint32_t w[4];
        em_philox_block(key, ctr, (uint64_t)(i / 4), w);
        bits_ok &= v[i] == w[i % 4];
        em_philox_block(key, ctr, (uint64_t)(i / 2), w);
        uint64_t b = (uint64_t)w[2 * (i % 2)] | (uint64_t)w[2 * (i % 2) + 1] << 32;
        unif_ok &= u[i] == (double)(b >> 11) * 0x1p-53;
    }
    CHECK(bits_ok);
    CHECK(unif_ok);
    em_array_release(&a);
    em_array_release(&d);
}

/* A fill that starts at counter c continues the stream where c left it. */
static void test_counter_continues(void) {
    em_array whole = make(EM_FLOAT64, 100), half = make(EM_FLOAT64, 50);
    uint64_t next = 0;
    CHECK(em_random_fill(&whole, EM_RAND_UNIFORM, 42, 7, &next) == EM_OK);
    CHECK(next == 57);
    CHECK(em_random_fill(&half, EM_RAND_UNIFORM, 42, 7 + 25, &next) == EM_OK);
    const double *w = (const double *)whole.data, *h = (const double *)half.data;
    int same = 1, inrange = 1;
    for (int i = 0; i < 50; i++) same &= w[50 + i] == h[i];
    for (int i = 0; i < 100; i++) inrange &= w[i] >= 0.0 && w[i] < 1.0;
    CHECK(same && inrange);
    em_array_release(&whole);
    em_array_release(&half);
}

static void test_integers(void) {
    em_array a = make(EM_INT8, 1000);
    uint64_t next = 0;
    CHECK(em_random_integers(&a, (uint64_t)-5, 11, 1, 0, &next) == EM_OK);
    CHECK(next == 500);
    int ok = 1, seen_lo = 0, seen_hi = 0;
    for (int i = 0; i < 1000; i++) {
        int8_t v = ((const int8_t *)a.data)[i];
        ok &= v >= -5 && v <= 5;
        seen_lo |= v == -5, seen_hi |= v == 5;
    }
    CHECK(ok && seen_lo && seen_hi);
    CHECK(em_random_integers(&a, 0, 300, 1, 0, &next) == EM_EVALUE);
    CHECK(em_random_integers(&a, (uint64_t)-129, 2, 1, 0, &next) == EM_EVALUE);
    em_array_release(&a);
}

/* A strided view is filled in its own C order, as a contiguous one would be;
 * a read-only view is refused. */
static void test_fill_views(void) {
    em_array base = {0}, t = {0}, c = make(EM_UINT32, 12);
    em_device cpu = {EM_CPU, 0};
    int64_t shape[2] = {3, 4};
    CHECK(em_array_empty(&base, EM_UINT32, 2, shape, cpu) == EM_OK);
    CHECK(em_view_transpose(&base, NULL, &t) == EM_OK); /* shape (4, 3), F order */
    uint64_t next;
    CHECK(em_random_fill(&t, EM_RAND_BITS, 5, 9, &next) == EM_OK && next == 12);
    CHECK(em_random_fill(&c, EM_RAND_BITS, 5, 9, &next) == EM_OK);
    const uint32_t *b = (const uint32_t *)base.data, *w = (const uint32_t *)c.data;
    int same = 1;
    for (int i = 0; i < 4; i++)
        for (int j = 0; j < 3; j++) same &= b[j * 4 + i] == w[i * 3 + j]; /* t[i, j] */
    CHECK(same);
    t.flags &= ~(uint32_t)EM_WRITEABLE;
    CHECK(em_random_fill(&t, EM_RAND_BITS, 5, 9, &next) == EM_EVALUE);
    CHECK(strstr(em_last_error(), "read-only") != NULL);
    em_array_release(&t);
    em_array_release(&base);
    em_array_release(&c);
}

static void test_bad_arguments(void) {
    em_array a = make(EM_INT32, 4);
    uint64_t next = 99;
    CHECK(em_random_fill(&a, EM_RAND_UNIFORM, 0, 0, &next) == EM_ETYPE);
    CHECK(strstr(em_last_error(), "int32") != NULL);
    CHECK(em_random_fill(&a, EM_RAND_INTEGERS, 0, 0, &next) == EM_EVALUE);
    CHECK(em_random_fill(&a, (em_random_kind)42, 0, 0, &next) == EM_EVALUE);
    CHECK(next == 99); /* untouched on failure */
    em_array unset = {0};
    CHECK(em_random_fill(&unset, EM_RAND_BITS, 0, 0, &next) == EM_EVALUE);
    em_array_release(&a);
}

/* em_random_dist on the CPU against the device text (EM_DIST_SRC, what the
 * CUDA/OpenCL kernels compile) built by the system C compiler: the same
 * variates element by element (gammas within ulps: the CPU's SIMD first try
 * has its own log and sincos), so the stringified samplers are the host's.
 * Also the counter bookkeeping, a one-element parameter serving all, and the
 * errors.  Skips the compiled half without a compiler. */
static void test_dist_matches_device_text(void) {
    const int64_t n = 64;
    em_array g = make(EM_FLOAT64, n), po = make(EM_INT64, n), bi = make(EM_INT64, n);
    em_array k = make(EM_FLOAT64, n), lam = make(EM_FLOAT64, 1), bn = make(EM_FLOAT64, n);
    em_array bp = make(EM_FLOAT64, 1);
    double *kd = (double *)k.data, *nd = (double *)bn.data;
    for (int64_t i = 0; i < n; i++) kd[i] = 0.05 * (double)i, nd[i] = (double)(i * i * 37);
    *(double *)lam.data = 25.0, *(double *)bp.data = 0.3;
    uint64_t next = 0;
    CHECK(em_random_dist(&g, EM_RAND_GAMMA, &k, NULL, 9, 100, &next) == EM_OK && next == 164);
    CHECK(em_random_dist(&po, EM_RAND_POISSON, &lam, NULL, 9, 100, &next) == EM_OK);
    CHECK(em_random_dist(&bi, EM_RAND_BINOMIAL, &bn, &bp, 9, 100, &next) == EM_OK);
    CHECK(em_random_dist(&g, EM_RAND_POISSON, &lam, NULL, 9, 0, &next) != EM_OK);  /* dtype */
    CHECK(em_random_dist(&bi, EM_RAND_BINOMIAL, &bn, NULL, 9, 0, &next) != EM_OK); /* no p */
    em_array three = make(EM_FLOAT64, 3);
    CHECK(em_random_dist(&g, EM_RAND_GAMMA, &three, NULL, 9, 0, &next) != EM_OK); /* size */
    CHECK(em_random_dist(&g, EM_RAND_UNIFORM, &k, NULL, 9, 0, &next) != EM_OK);
    if (em_cc_available()) {
        static const char head[] =
            "#include <stdint.h>\n#include <math.h>\ntypedef uint32_t em_u32;\n"
            "#define em_u64 uint64_t\n#define em_i64 int64_t\n#define EM_PHILOX_FN\n"
            "#define em_mulhi32(a, b) ((em_u32)(((uint64_t)(a) * (b)) >> 32))\n";
        static const char tail[] =
            "void draw(int kind, uint64_t key, uint64_t ctr, double a, double q, void *out) {\n"
            "    em_rs s;\n    em_rs_init(&s, key, ctr);\n"
            "    if (kind == 0) *(double *)out = em_rs_gamma(&s, a);\n"
            "    else if (kind == 1) *(int64_t *)out = em_rs_poisson(&s, a);\n"
            "    else *(int64_t *)out = em_rs_binomial(&s, (int64_t)a, q);\n}\n";
        em_sbuf src = {0};
        em_sbuf_printf(&src, "%s%s\n%s\n%s", head, EM_PHILOX_SRC, EM_DIST_SRC, tail);
        em_cc_lib *lib = NULL;
        CHECK(!src.oom && em_cc_load(src.s, "dist_text", &lib) == EM_OK);
        void (*f)(int, uint64_t, uint64_t, double, double, void *) =
            lib ? (void (*)(int, uint64_t, uint64_t, double, double, void *))em_cc_sym(lib, "draw")
                : NULL;
        CHECK(f != NULL);
        for (int64_t i = 0; f && i < n; i++) {
            double x;
            int64_t y, z;
            f(0, 9, 100 + (uint64_t)i, kd[i], 0, &x);
            f(1, 9, 100 + (uint64_t)i, 25.0, 0, &y);
            f(2, 9, 100 + (uint64_t)i, nd[i], 0.3, &z);
            /* the CPU's first gamma try uses rmath_avx2.h's log and sincos
             * where the CPU has AVX2 and FMA: libm's value within ulps */
            CHECK(fabs(x - ((double *)g.data)[i]) <= 1e-13 * fabs(x));
            CHECK(y == ((int64_t *)po.data)[i]);
            CHECK(z == ((int64_t *)bi.data)[i]);
        }
        em_sbuf_free(&src);
    }
    em_array *all[] = {&g, &po, &bi, &k, &lam, &bn, &bp, &three};
    for (int i = 0; i < 8; i++) em_array_release(all[i]);
}

int main(void) {
    RUN(test_philox_known_answers);
    RUN(test_device_text_known_answers);
    RUN(test_fill_bits_layout);
    RUN(test_fill_matches_scalar);
    RUN(test_counter_continues);
    RUN(test_integers);
    RUN(test_fill_views);
    RUN(test_bad_arguments);
    RUN(test_dist_matches_device_text);
    return ctest_summary();
}
