/* Views over one buffer: index, transpose, broadcast_to, reshape (and when it
 * must copy), component views, wrapped memory, overflow checks, devices. */
#include "ctest.h"

#include <stdlib.h>

static const em_device cpu = {EM_CPU, 0};

/* A 2x3x4 int32 array holding 0..23. */
static em_array iota234(void) {
    em_array a;
    int64_t shape[] = {2, 3, 4};
    if (em_array_empty(&a, EM_INT32, 3, shape, cpu) != EM_OK) abort();
    for (int i = 0; i < 24; i++) ((int32_t *)a.data)[i] = i;
    return a;
}

/* Element of an int32 view at a multi-index. */
static int32_t at(const em_array *a, const int64_t *idx) {
    const char *p = a->data;
    for (int i = 0; i < a->ndim; i++) p += idx[i] * a->strides[i];
    return *(const int32_t *)p;
}

static void test_index_items(void) {
    em_array a = iota234(), v;
    em_index_item it[] = {
        {EM_IX_INT, -1, 0, 0}, {EM_IX_NEWAXIS, 0, 0, 0}, {EM_IX_SLICE, INT64_MAX, INT64_MIN, -2}};
    CHECK(em_view_index(&a, 3, it, &v) == EM_OK); /* a[-1, None, ::-2] -> (1, 2, 4) */
    CHECK(v.ndim == 3 && v.shape[0] == 1 && v.shape[1] == 2 && v.shape[2] == 4);
    CHECK(v.buf == a.buf);
    int64_t i0[] = {0, 0, 1}, i1[] = {0, 1, 3};
    CHECK(at(&v, i0) == 12 + 8 + 1); /* a[1, 2, 1] */
    CHECK(at(&v, i1) == 12 + 0 + 3); /* a[1, 0, 3] */
    em_array_release(&v);
    em_index_item ell[] = {{EM_IX_ELLIPSIS, 0, 0, 0}, {EM_IX_INT, 2, 0, 0}};
    CHECK(em_view_index(&a, 2, ell, &v) == EM_OK); /* a[..., 2] -> (2, 3) */
    int64_t j[] = {1, 2};
    CHECK(v.ndim == 2 && v.shape[1] == 3 && at(&v, j) == 22);
    em_array_release(&v);
    em_index_item empty[] = {{EM_IX_SLICE, 3, 1, 1}};
    CHECK(em_view_index(&a, 1, empty, &v) == EM_OK && v.shape[0] == 0);
    em_array_release(&v);
    em_array_release(&a);
}

static void test_index_errors(void) {
    em_array a = iota234(), v = {0};
    em_index_item oob[] = {{EM_IX_INT, 2, 0, 0}};
    CHECK(em_view_index(&a, 1, oob, &v) == EM_EINDEX);
    CHECK(strstr(em_last_error(), "out of bounds for axis 0 with size 2") != NULL);
    em_index_item neg[] = {{EM_IX_INT, -3, 0, 0}};
    CHECK(em_view_index(&a, 1, neg, &v) == EM_EINDEX);
    em_index_item many[] = {
        {EM_IX_INT, 0, 0, 0}, {EM_IX_INT, 0, 0, 0}, {EM_IX_INT, 0, 0, 0}, {EM_IX_INT, 0, 0, 0}};
    CHECK(em_view_index(&a, 4, many, &v) == EM_EINDEX);
    CHECK(strstr(em_last_error(), "too many indices") != NULL);
    em_index_item ells[] = {{EM_IX_ELLIPSIS, 0, 0, 0}, {EM_IX_ELLIPSIS, 0, 0, 0}};
    CHECK(em_view_index(&a, 2, ells, &v) == EM_EINDEX);
    em_index_item step0[] = {{EM_IX_SLICE, 0, 2, 0}};
    CHECK(em_view_index(&a, 1, step0, &v) == EM_EVALUE);
    CHECK(v.buf == NULL); /* the out-pointer is untouched on failure */
    em_index_item newax[EM_MAXDIMS];
    for (int i = 0; i < EM_MAXDIMS; i++) newax[i] = (em_index_item){EM_IX_NEWAXIS, 0, 0, 0};
    CHECK(em_view_index(&a, EM_MAXDIMS, newax, &v) == EM_EINDEX); /* 35 dims */
    em_array_release(&a);
}

/* Slices keep their dimension: a 32-d array indexed with 32 slices and one
 * newaxis would have 33 dimensions and must be refused before shape[32] is
 * written (the check used to count the slices as removed). */
static void test_index_dim_limit(void) {
    em_array a, v = {0};
    int64_t ones[EM_MAXDIMS];
    for (int i = 0; i < EM_MAXDIMS; i++) ones[i] = 1;
    CHECK(em_array_empty(&a, EM_INT32, EM_MAXDIMS, ones, cpu) == EM_OK);
    em_index_item it[EM_MAXDIMS + 1];
    for (int i = 0; i < EM_MAXDIMS; i++) it[i] = (em_index_item){EM_IX_SLICE, 0, 1, 1};
    it[EM_MAXDIMS] = (em_index_item){EM_IX_NEWAXIS, 0, 0, 0};
    CHECK(em_view_index(&a, EM_MAXDIMS + 1, it, &v) == EM_EINDEX);
    CHECK(strstr(em_last_error(), "indexing result would have 33") != NULL);
    CHECK(v.buf == NULL);
    it[0] = (em_index_item){EM_IX_INT, 0, 0, 0}; /* one integer makes room for the newaxis */
    CHECK(em_view_index(&a, EM_MAXDIMS + 1, it, &v) == EM_OK && v.ndim == EM_MAXDIMS);
    em_array_release(&v);
    em_array_release(&a);
}

static void test_transpose(void) {
    em_array a = iota234(), t;
    int perm[] = {2, 0, 1};
    CHECK(em_view_transpose(&a, perm, &t) == EM_OK);
    CHECK(t.shape[0] == 4 && t.shape[1] == 2 && t.shape[2] == 3);
    int64_t i[] = {3, 1, 2};
    CHECK(at(&t, i) == 12 + 8 + 3);
    em_array_release(&t);
    int neg[] = {-1, 0, 1};
    CHECK(em_view_transpose(&a, neg, &t) == EM_OK && t.shape[0] == 4);
    em_array_release(&t);
    int rep[] = {0, 0, 1}, oob[] = {0, 1, 3};
    CHECK(em_view_transpose(&a, rep, &t) == EM_EVALUE);
    CHECK(strstr(em_last_error(), "repeated axis") != NULL);
    CHECK(em_view_transpose(&a, oob, &t) == EM_EVALUE);
    em_array_release(&a);
}

static void test_broadcast_to(void) {
    em_array a = iota234(), b;
    int64_t s[] = {5, 2, 3, 4};
    CHECK(em_view_broadcast_to(&a, 4, s, &b) == EM_OK);
    CHECK(b.strides[0] == 0 && b.shape[0] == 5);
    int64_t i[] = {4, 1, 1, 1};
    CHECK(at(&b, i) == 17);
    em_array_release(&b);
    int64_t bad[] = {2, 5, 4};
    CHECK(em_view_broadcast_to(&a, 3, bad, &b) == EM_ESHAPE);
    int64_t fewer[] = {3, 4};
    CHECK(em_view_broadcast_to(&a, 2, fewer, &b) == EM_ESHAPE);
    int64_t neg[] = {2, -3, 4};
    CHECK(em_view_broadcast_to(&a, 3, neg, &b) == EM_EVALUE);
    em_array_release(&a);
}

static void test_reshape(void) {
    em_array a = iota234(), r, t, r2;
    int64_t s[] = {6, -1};
    CHECK(em_view_reshape(&a, 2, s, &r) == EM_OK && r.shape[1] == 4 && r.buf == a.buf);
    em_array_release(&r);
    /* A slice along the first axis keeps the rest contiguous: still a view. */
    em_index_item it[] = {{EM_IX_SLICE, INT64_MAX, INT64_MIN, -1}};
    em_array rev;
    CHECK(em_view_index(&a, 1, it, &rev) == EM_OK);
    int64_t s12[] = {2, 12};
    CHECK(em_view_reshape(&rev, 2, s12, &r) == EM_OK);
    int64_t i[] = {0, 5};
    CHECK(at(&r, i) == 12 + 5);
    em_array_release(&r);
    em_array_release(&rev);
    /* A transpose cannot be flattened without a copy. */
    CHECK(em_view_transpose(&a, NULL, &t) == EM_OK);
    int64_t flat[] = {24};
    CHECK(em_view_reshape(&t, 1, flat, &r2) == EM_EUNSUPPORTED);
    em_array_release(&t);
    int64_t two[] = {-1, -1}, wrong[] = {5, 5}, nodiv[] = {7, -1};
    CHECK(em_view_reshape(&a, 2, two, &r) == EM_EVALUE);
    CHECK(em_view_reshape(&a, 2, wrong, &r) == EM_EVALUE);
    CHECK(em_view_reshape(&a, 2, nodiv, &r) == EM_EVALUE);
    int64_t huge[] = {INT64_MAX, 4};
    CHECK(em_view_reshape(&a, 2, huge, &r) == EM_EOVERFLOW);
    em_array_release(&a);
}

static void test_component(void) {
    em_array c, re, bad;
    int64_t s[] = {2};
    CHECK(em_array_empty(&c, EM_COMPLEX64, 1, s, cpu) == EM_OK);
    float v[] = {1, 2, 3, 4};
    CHECK(em_array_write(&c, v, sizeof v) == EM_OK);
    CHECK(em_view_component(&c, 1, &re) == EM_OK);
    CHECK(re.dtype == EM_FLOAT32 && re.strides[0] == 8 && ((float *)re.data)[2] == 4);
    em_array_release(&re);
    em_array i = iota234();
    CHECK(em_view_component(&i, 0, &bad) == EM_ETYPE);
    em_array_release(&i);
    em_array_release(&c);
}

static void test_overflow(void) {
    em_array a = {0};
    int64_t s[] = {INT64_MAX / 4, 4}; /* elements fit, bytes do not */
    CHECK(em_array_empty(&a, EM_INT32, 2, s, cpu) == EM_EOVERFLOW);
    int64_t s2[] = {1 << 20, 1 << 20, 1 << 20, 1 << 20};
    CHECK(em_array_empty(&a, EM_INT8, 4, s2, cpu) == EM_EOVERFLOW);
    int64_t s3[] = {3, -1};
    CHECK(em_array_empty(&a, EM_INT8, 2, s3, cpu) == EM_EVALUE);
    CHECK(em_array_empty(&a, EM_INT8, EM_MAXDIMS + 1, s3, cpu) == EM_EVALUE);
    CHECK(em_array_empty(&a, (em_dtype)99, 1, s3, cpu) == EM_ETYPE);
    int64_t one = 1;
    em_device cpu3 = {EM_CPU, 3}, bogus = {(em_device_kind)7, 0};
    CHECK(em_array_empty(&a, EM_INT8, 1, &one, cpu3) == EM_EDEVICE);
    CHECK(em_array_empty(&a, EM_INT8, 1, &one, bogus) == EM_EDEVICE);
    CHECK(a.buf == NULL);
}

static int released;
static void on_release(void *ctx) { released += *(int *)ctx; }

static void test_wrap_release_once(void) {
    static double mem[6] = {0, 1, 2, 3, 4, 5};
    int one = 1;
    released = 0;
    em_array a, v, t;
    int64_t s[] = {2, 3};
    CHECK(em_array_wrap(&a, mem, EM_FLOAT64, 2, s, NULL, cpu, on_release, &one) == EM_OK);
    CHECK(em_view_transpose(&a, NULL, &t) == EM_OK);
    em_array_view(&v, &a);
    em_array_release(&a);
    em_array_release(&a); /* releasing an unset array is a no-op */
    em_array_release(&v);
    CHECK(released == 0); /* t still holds the buffer */
    CHECK(((double *)t.data)[1] == 1);
    em_array_release(&t);
    CHECK(released == 1);
    /* Strided wrap: the buffer covers the whole extent, negative strides too. */
    int64_t st[] = {-24, 8};
    CHECK(em_array_wrap(&a, mem + 3, EM_FLOAT64, 2, s, st, cpu, NULL, NULL) == EM_OK);
    CHECK(em_buffer_ptr(a.buf) == (void *)mem && em_buffer_size(a.buf) == sizeof mem);
    em_array_release(&a);
    int64_t neg[] = {-2, 3};
    CHECK(em_array_wrap(&a, mem, EM_FLOAT64, 2, neg, NULL, cpu, on_release, &one) == EM_EVALUE);
    CHECK(released == 1); /* a failed wrap never calls release */
}

static void test_device_parse(void) {
    em_device d = {EM_CUDA, 7};
    CHECK(em_device_parse("cpu", &d) == EM_OK && d.kind == EM_CPU && d.id == 0);
    CHECK(em_device_parse("cpu:0", &d) == EM_OK);
    const char *bad[] = {"gpu",   "",       "cpu:",          "cpu:x", "cpu:-1",
                         "cpu:1", "cpu:0x", "cuda:99999999", "CPU",   "opencl:"};
    for (int i = 0; i < 10; i++) {
        em_device e = {EM_CUDA, 7};
        CHECK(em_device_parse(bad[i], &e) == EM_EDEVICE);
        CHECK(e.kind == EM_CUDA && e.id == 7);
        CHECK(em_last_error()[0] != 0);
    }
    CHECK(em_device_parse("gpu", &d) == EM_EDEVICE && strstr(em_last_error(), "unknown device"));
    int n = -1;
    CHECK(em_device_count(EM_CPU, &n) == EM_OK && n == 1);
    CHECK(em_device_count((em_device_kind)9, &n) == EM_EVALUE);
    em_device_props p;
    CHECK(em_device_props_get(cpu, &p) == EM_OK && p.multiprocessor_count >= 1);
    em_device nope = {EM_CPU, 3};
    CHECK(em_device_props_get(nope, &p) == EM_EDEVICE);
    /* em_device_check: the parse's answer without the string. */
    CHECK(em_device_check(cpu) == EM_OK);
    CHECK(em_device_check(nope) == EM_EDEVICE &&
          strstr(em_last_error(), "no device cpu:3 (1 cpu device available)"));
    em_device negative = {EM_CPU, -1}, kind = {(em_device_kind)9, 0};
    CHECK(em_device_check(negative) == EM_EDEVICE);
    CHECK(em_device_check(kind) == EM_EDEVICE && strstr(em_last_error(), "unknown device kind 9"));
}

int main(void) {
    RUN(test_index_items);
    RUN(test_index_errors);
    RUN(test_index_dim_limit);
    RUN(test_transpose);
    RUN(test_broadcast_to);
    RUN(test_reshape);
    RUN(test_component);
    RUN(test_overflow);
    RUN(test_wrap_release_once);
    RUN(test_device_parse);
    return ctest_summary();
}
