/* em_copy_checked (ember.h; codegen/render_copycheck.h): the copy against
 * the strided source read here, and the flag against the values, on the CPU
 * (the host loop) and, where one is, an OpenCL device (the template that
 * CUDA's eigh launches: cudalib/solver.c) -- every float dtype, transposed,
 * reversed and sliced layouts, more axes than the kernel's three, empty
 * arrays, each kind of flagged word (NaN, infinities, at and past the
 * bound, the imaginary part), and the refusals. */
#include "ctest.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>

static const em_dtype dts[] = {EM_FLOAT32, EM_FLOAT64, EM_COMPLEX64, EM_COMPLEX128};

/* Part q of element e, written as a double into a host buffer of dt. */
static void put(em_dtype dt, unsigned char *host, int64_t e, int q, double v) {
    if (dt == EM_FLOAT32 || dt == EM_COMPLEX64) {
        float f = (float)v;
        memcpy(host + (e * (dt == EM_COMPLEX64 ? 2 : 1) + q) * 4, &f, 4);
    } else
        memcpy(host + (e * (dt == EM_COMPLEX128 ? 2 : 1) + q) * 8, &v, 8);
}

/* A (4, 6, 5) array of dt (values e + q / 2), viewed through a layout made
 * by em_view_* calls, copied and checked; bad (when not 0) written first at
 * element bad_at, part bad_q. */
static void check_case(em_device dev, em_dtype dt, int layout, double bad, int64_t bad_at,
                       int bad_q, double bound, int want_flag) {
    const em_dtype_info *t = em_dtype_get(dt);
    int64_t sh[3] = {4, 6, 5}, total = 120;
    unsigned char *host = calloc((size_t)(total * t->size), 1);
    int parts = t->kind == 'c' ? 2 : 1;
    for (int64_t e = 0; e < total; e++)
        for (int q = 0; q < parts; q++) put(dt, host, e, q, (double)e + q * 0.5);
    if (bad != 0) put(dt, host, bad_at, bad_q, bad);
    em_array h = {0}, a = {0}, v = {0}, out = {0}, flag = {0}, want = {0};
    CHECK(em_array_wrap(&h, host, dt, 3, sh, NULL, (em_device){EM_CPU, 0}, NULL, NULL) == EM_OK);
    CHECK(em_to_device(&h, dev, &a) == EM_OK);
    if (layout == 1) { /* the last two axes swapped: eigh's a.mT */
        CHECK(em_view_transpose(&a, (int[]){0, 2, 1}, &v) == EM_OK);
    } else if (layout == 2) { /* a[::-1, 0:5:2, ::-2]: negative and stepped strides */
        em_index_item it[3] = {{EM_IX_SLICE, INT64_MAX, INT64_MIN, -1},
                               {EM_IX_SLICE, 0, 5, 2},
                               {EM_IX_SLICE, INT64_MAX, INT64_MIN, -2}};
        CHECK(em_view_index(&a, 3, it, &v) == EM_OK);
    } else if (layout == 3) { /* four axes that merge nowhere: (2, 2, 6, 5).transpose(1, 0, 3, 2) */
        int64_t s4[4] = {2, 2, 6, 5};
        em_array r = {0};
        CHECK(em_view_reshape(&a, 4, s4, &r) == EM_OK);
        CHECK(em_view_transpose(&r, (int[]){1, 0, 3, 2}, &v) == EM_OK);
        em_array_release(&r);
    } else {
        CHECK(em_view_transpose(&a, (int[]){0, 1, 2}, &v) == EM_OK);
    }
    int64_t one = 1;
    int32_t zero = 0, got = -1;
    CHECK(em_array_empty(&flag, EM_INT32, 1, &one, dev) == EM_OK);
    CHECK(em_fill(&flag, EM_INT32, &zero) == EM_OK);
    CHECK(em_copy_checked(&v, bound, &out, &flag) == EM_OK);
    CHECK(em_array_read(&flag, &got, 4) == EM_OK);
    CHECK(got == want_flag);
    /* the copy: what em_astype makes of the same view, byte for byte */
    CHECK(em_astype(&v, EM_NDTYPES, &want) == EM_OK);
    CHECK(em_array_is_c_contiguous(&out) && out.ndim == v.ndim && out.dtype == dt);
    size_t nb = (size_t)em_array_size(&v) * t->size;
    unsigned char *x = malloc(nb + 1), *y = malloc(nb + 1);
    CHECK(em_array_read(&out, x, nb) == EM_OK && em_array_read(&want, y, nb) == EM_OK);
    CHECK(memcmp(x, y, nb) == 0);
    if (got != want_flag)
        fprintf(stderr, "  %s %s layout %d bad %g at %lld.%d bound %g: flag %d\n",
                em_device_kind_name(dev.kind), t->name, layout, bad, (long long)bad_at, bad_q,
                bound, got);
    free(x), free(y), free(host);
    em_array_release(&out), em_array_release(&want), em_array_release(&flag);
    em_array_release(&v), em_array_release(&a), em_array_release(&h);
}

static void run_device(em_device dev) {
    for (size_t i = 0; i < sizeof dts / sizeof *dts; i++) {
        em_dtype dt = dts[i];
        const bool cplx = dt == EM_COMPLEX64 || dt == EM_COMPLEX128;
        for (int layout = 0; layout < 4; layout++) {
            check_case(dev, dt, layout, 0, 0, 0, 1e6, 0); /* every value below the bound */
            /* element 119 (value 119) is in every layout but the sliced one */
            check_case(dev, dt, layout, 0, 0, 0, 119, layout != 2);
            check_case(dev, dt, layout, NAN, 0, 0, 1e6, 1); /* element 0: in every layout */
        }
        check_case(dev, dt, 0, INFINITY, 77, 0, 1e6, 1);
        check_case(dev, dt, 1, -INFINITY, 119, 0, 1e6, 1);
        check_case(dev, dt, 0, -1e6, 5, 0, 1e6, 1);    /* at the bound: flagged */
        check_case(dev, dt, 0, -999999, 5, 0, 1e6, 0); /* below it: not */
        check_case(dev, dt, 0, 0, 0, 0, INFINITY, 0);
        check_case(dev, dt, 0, INFINITY, 3, 0, INFINITY, 1);
        if (cplx) check_case(dev, dt, 1, NAN, 42, 1, 1e6, 1); /* the imaginary part */
    }
    /* An empty array: nothing copied, the flag untouched. */
    int64_t sh[2] = {0, 3}, one = 1;
    int32_t seven = 7, got = 0;
    em_array a = {0}, out = {0}, flag = {0};
    CHECK(em_array_empty(&a, EM_FLOAT64, 2, sh, dev) == EM_OK);
    CHECK(em_array_empty(&flag, EM_INT32, 1, &one, dev) == EM_OK);
    CHECK(em_fill(&flag, EM_INT32, &seven) == EM_OK);
    CHECK(em_copy_checked(&a, 1, &out, &flag) == EM_OK);
    CHECK(out.ndim == 2 && out.shape[0] == 0 && out.shape[1] == 3);
    CHECK(em_array_read(&flag, &got, 4) == EM_OK && got == 7);
    em_array_release(&out), em_array_release(&flag), em_array_release(&a);
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
    int64_t sh[2] = {3, 3}, one = 1;
    em_array a = {0}, out = {0}, flag = {0}, i = {0}, f64 = {0};
    CHECK(em_array_empty(&flag, EM_INT32, 1, &one, cpu) == EM_OK);
    CHECK(em_copy_checked(&a, 1, &out, &flag) == EM_EVALUE); /* unset */
    CHECK(em_array_empty(&i, EM_INT32, 2, sh, cpu) == EM_OK);
    CHECK(em_copy_checked(&i, 1, &out, &flag) == EM_ETYPE); /* integers */
    CHECK(em_array_empty(&a, EM_FLOAT16, 2, sh, cpu) == EM_OK);
    CHECK(em_copy_checked(&a, 1, &out, &flag) == EM_ETYPE); /* 2-byte floats */
    em_array_release(&a);
    CHECK(em_array_empty(&a, EM_FLOAT64, 2, sh, cpu) == EM_OK);
    CHECK(em_copy_checked(&a, NAN, &out, &flag) == EM_EVALUE);
    CHECK(em_array_empty(&f64, EM_FLOAT64, 1, &one, cpu) == EM_OK);
    CHECK(em_copy_checked(&a, 1, &out, &f64) == EM_EVALUE); /* the flag's dtype */
    CHECK(out.buf == NULL);
    em_array_release(&a), em_array_release(&i), em_array_release(&f64), em_array_release(&flag);
}

int main(void) {
    RUN(test_cpu);
    RUN(test_opencl);
    RUN(test_refusals);
    return ctest_summary();
}
