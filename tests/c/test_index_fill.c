/* em_index_fill (ember.h; codegen/render_indexfill.h): every kind on every
 * element width against the values worked out here, on the CPU (the host
 * loop) and, where one is, on an OpenCL device (the kernel template that
 * CUDA's linear-algebra epilogues launch: cudalib's batched.c and
 * epilogue.c); odd sizes (grid-stride tails), 1 x 1 and empty stacks, and
 * the refusals. */
#include "ctest.h"

#include <stdint.h>
#include <stdlib.h>

static const em_dtype dts[] = {EM_INT32,   EM_UINT32,    EM_FLOAT32,   EM_INT64,
                               EM_FLOAT64, EM_COMPLEX64, EM_COMPLEX128};

/* The bytes element e of kind should hold: 1 of the dtype on an EYE
 * diagonal, 0 where TRIL/TRIU clear, fill (the element's bytes before) else. */
static void expect(em_dtype dt, int kind, int64_t n, int64_t e, const unsigned char *before,
                   unsigned char *want) {
    const em_dtype_info *t = em_dtype_get(dt);
    size_t sz = t->size;
    int64_t q = e % (n * n), i = q / n, j = q % n;
    memcpy(want, before, sz);
    if (kind == EM_IFILL_TRIL ? j > i : kind == EM_IFILL_TRIU ? j < i : kind == EM_IFILL_EYE)
        memset(want, 0, sz);
    if (kind == EM_IFILL_EYE && i == j) {
        if (t->kind == 'f' || t->kind == 'c') {
            if ((t->kind == 'f' ? sz : sz / 2) == 4) {
                float one = 1;
                memcpy(want, &one, 4);
            } else {
                double one = 1;
                memcpy(want, &one, 8);
            }
        } else {
            want[0] = 1; /* little-endian */
        }
    }
}

static void check_matrix(em_device dev, em_dtype dt, int kind, int64_t batch, int64_t n) {
    size_t sz = em_dtype_get(dt)->size;
    int64_t sh[3] = {batch, n, n}, total = batch * n * n;
    unsigned char *host = malloc(total * sz + 1), *back = malloc(total * sz + 1), want[16];
    for (int64_t b = 0; b < total * (int64_t)sz; b++) host[b] = (unsigned char)(b * 37 + 11);
    em_array a = {0}, h = {0};
    CHECK(em_array_wrap(&h, host, dt, 3, sh, NULL, (em_device){EM_CPU, 0}, NULL, NULL) == EM_OK);
    CHECK(em_to_device(&h, dev, &a) == EM_OK);
    CHECK(em_index_fill(&a, kind, 0, 0) == EM_OK);
    CHECK(em_array_read(&a, back, total * sz) == EM_OK);
    int bad = 0;
    for (int64_t e = 0; e < total; e++) {
        expect(dt, kind, n, e, host + e * sz, want);
        bad += memcmp(back + e * sz, want, sz) != 0;
    }
    if (bad)
        fprintf(stderr, "  %s kind %d %s %lld x %lld^2: %d wrong\n", em_device_kind_name(dev.kind),
                kind, em_dtype_get(dt)->name, (long long)batch, (long long)n, bad);
    CHECK(bad == 0);
    em_array_release(&a), em_array_release(&h);
    free(host), free(back);
}

static void check_step(em_device dev, em_dtype dt, int64_t len, uint64_t b0, uint64_t d) {
    em_array a = {0};
    CHECK(em_array_empty(&a, dt, 1, &len, dev) == EM_OK);
    CHECK(em_index_fill(&a, EM_IFILL_STEP, b0, d) == EM_OK);
    size_t sz = em_dtype_get(dt)->size;
    unsigned char *back = malloc(len * sz + 1);
    CHECK(em_array_read(&a, back, len * sz) == EM_OK);
    int bad = 0;
    for (int64_t i = 0; i < len; i++) {
        uint64_t v = b0 + (uint64_t)i * d, got = 0;
        if (sz == 4) {
            uint32_t w;
            memcpy(&w, back + 4 * i, 4);
            got = w, v = (uint32_t)v;
        } else
            memcpy(&got, back + 8 * i, 8);
        bad += got != v;
    }
    CHECK(bad == 0);
    em_array_release(&a);
    free(back);
}

static void run_device(em_device dev) {
    static const int64_t sizes[][2] = {{1, 1}, {3, 5}, {7, 8}, {1, 64}, {300, 3}, {0, 4}, {2, 0}};
    for (int kind = EM_IFILL_EYE; kind <= EM_IFILL_TRIU; kind++)
        for (size_t t = 0; t < sizeof dts / sizeof *dts; t++)
            for (size_t s = 0; s < sizeof sizes / sizeof *sizes; s++)
                check_matrix(dev, dts[t], kind, sizes[s][0], sizes[s][1]);
    check_step(dev, EM_UINT64, 1000, 0x7f0000001000ull, 4096);
    check_step(dev, EM_INT64, 257, ~0ull - 5, 3); /* wraps past 2^64 */
    check_step(dev, EM_UINT32, 70001, 0xfffffff0u, 1);
    check_step(dev, EM_INT32, 1, 42, 0);
}

static void test_cpu(void) { run_device((em_device){EM_CPU, 0}); }

static void test_opencl(void) {
    int n = 0;
    if (em_device_count(EM_OPENCL, &n) != EM_OK || n == 0) {
        printf("  (no OpenCL device: its part is skipped)\n");
        return;
    }
    run_device((em_device){EM_OPENCL, 0});
}

static void test_refusals(void) {
    em_device cpu = {EM_CPU, 0};
    em_array a = {0}, v = {0};
    int64_t sq[2] = {3, 3}, rect[2] = {3, 4}, one = 5;
    CHECK(em_index_fill(&a, EM_IFILL_EYE, 0, 0) != EM_OK); /* unset */
    CHECK(em_array_empty(&a, EM_FLOAT16, 2, sq, cpu) == EM_OK);
    CHECK(em_index_fill(&a, EM_IFILL_EYE, 0, 0) == EM_ETYPE); /* 2-byte elements */
    em_array_release(&a);
    CHECK(em_array_empty(&a, EM_FLOAT32, 2, rect, cpu) == EM_OK);
    CHECK(em_index_fill(&a, EM_IFILL_TRIL, 0, 0) == EM_EVALUE); /* not square */
    em_array_release(&a);
    CHECK(em_array_empty(&a, EM_FLOAT32, 2, sq, cpu) == EM_OK);
    CHECK(em_view_transpose(&a, NULL, &v) == EM_OK);
    CHECK(em_index_fill(&v, EM_IFILL_EYE, 0, 0) == EM_EVALUE); /* not C-contiguous */
    em_array_release(&v);
    em_array_release(&a);
    CHECK(em_array_empty(&a, EM_FLOAT64, 1, &one, cpu) == EM_OK);
    CHECK(em_index_fill(&a, EM_IFILL_STEP, 0, 1) == EM_ETYPE); /* step: integers */
    CHECK(em_index_fill(&a, EM_IFILL_EYE, 0, 0) == EM_EVALUE); /* 1-d */
    CHECK(em_index_fill(&a, (em_index_fill_kind)9, 0, 0) == EM_EVALUE);
    em_array_release(&a);
}

int main(void) {
    RUN(test_cpu);
    RUN(test_opencl);
    RUN(test_refusals);
    return ctest_summary();
}
