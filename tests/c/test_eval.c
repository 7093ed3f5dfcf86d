/* The block interpreter through em_ufunc / em_copy_into / em_astype: every
 * dtype pair of casts against C conversions, broadcasting, strided and
 * negative-stride operands, and outputs that alias an input. */
#include "ctest.h"

#include <complex.h>
#include <math.h>
#include <stdlib.h>

static const em_device cpu = {EM_CPU, 0};
#define EM_DTYPE_SIZE(dt) ((size_t)em_dtype_get(dt)->size)

/* A value as the oracle sees it: complex covers every dtype. */
typedef double _Complex cval;

static void put(em_dtype dt, void *p, cval v) {
    double r = creal(v);
    switch (dt) {
    case EM_BOOL: *(bool *)p = r != 0; break;
    case EM_INT8: *(int8_t *)p = (int8_t)(int64_t)r; break;
    case EM_INT16: *(int16_t *)p = (int16_t)(int64_t)r; break;
    case EM_INT32: *(int32_t *)p = (int32_t)(int64_t)r; break;
    case EM_INT64: *(int64_t *)p = (int64_t)r; break;
    case EM_UINT8: *(uint8_t *)p = (uint8_t)(int64_t)r; break;
    case EM_UINT16: *(uint16_t *)p = (uint16_t)(int64_t)r; break;
    case EM_UINT32: *(uint32_t *)p = (uint32_t)(int64_t)r; break;
    case EM_UINT64: *(uint64_t *)p = (uint64_t)(int64_t)r; break;
    case EM_FLOAT16: *(_Float16 *)p = (_Float16)r; break;
    case EM_FLOAT32: *(float *)p = (float)r; break;
    case EM_FLOAT64: *(double *)p = r; break;
    case EM_COMPLEX64: *(float _Complex *)p = (float _Complex)v; break;
    case EM_COMPLEX128: *(double _Complex *)p = v; break;
    default: abort();
    }
}

/* Expected bytes of casting the element at p (dtype from) to dtype to, by C's
 * own conversions: float -> int truncates through int64 (what NumPy's x86
 * build gives for in-range values), complex -> real keeps the real part. */
static void expect(em_dtype from, const void *p, em_dtype to, void *out) {
    char kf = em_dtype_get(from)->kind, kt = em_dtype_get(to)->kind;
    int64_t i = 0;
    uint64_t u = 0;
    double _Complex c = 0;
    switch (from) {
    case EM_BOOL: i = *(const bool *)p; break;
    case EM_INT8: i = *(const int8_t *)p; break;
    case EM_INT16: i = *(const int16_t *)p; break;
    case EM_INT32: i = *(const int32_t *)p; break;
    case EM_INT64: i = *(const int64_t *)p; break;
    case EM_UINT8: u = *(const uint8_t *)p; break;
    case EM_UINT16: u = *(const uint16_t *)p; break;
    case EM_UINT32: u = *(const uint32_t *)p; break;
    case EM_UINT64: u = *(const uint64_t *)p; break;
    case EM_FLOAT16: c = *(const _Float16 *)p; break;
    case EM_FLOAT32: c = *(const float *)p; break;
    case EM_FLOAT64: c = *(const double *)p; break;
    case EM_COMPLEX64: c = *(const float _Complex *)p; break;
    case EM_COMPLEX128: c = *(const double _Complex *)p; break;
    default: abort();
    }
    if (kf == 'u') i = (int64_t)u;
    bool isf = kf == 'f' || kf == 'c';
    if (kt == 'b') {
        *(bool *)out = isf ? c != 0 : i != 0;
        return;
    }
    if (isf && (kt == 'i' || kt == 'u')) i = (int64_t)creal(c), isf = false;
    if (!isf && kt != 'f' && kt != 'c') {
        put(to, out, 0);
        memcpy(out, &i, EM_DTYPE_SIZE(to)); /* int -> int: the low bytes (little endian) */
        return;
    }
    if (!isf) {
        /* integer -> float: convert from the exact integer type, as C does */
        if (kf == 'u')
            c = (double)u;
        else
            c = (double)i;
        float f32 = kf == 'u' ? (float)u : (float)i;
        _Float16 f16 = kf == 'u' ? (_Float16)u : (_Float16)i;
        if (to == EM_FLOAT32) *(float *)out = f32;
        if (to == EM_FLOAT16) *(_Float16 *)out = f16;
        if (to == EM_COMPLEX64) *(float _Complex *)out = f32;
        if (to == EM_FLOAT32 || to == EM_FLOAT16 || to == EM_COMPLEX64) return;
    }
    put(to, out, c);
}

#define NV 6
static const double vals[NV] = {0, 1, 3, 100, -2, 2.5};

static void test_cast_all_pairs(void) {
    int bad = 0;
    for (int f = 0; f < EM_NDTYPES; f++) {
        int64_t n = NV;
        em_array a;
        CHECK(em_array_empty(&a, f, 1, &n, cpu) == EM_OK);
        int fs = (int)EM_DTYPE_SIZE(f);
        for (int k = 0; k < NV; k++) put(f, a.data + k * fs, vals[k] + (k == 3 ? 4 * I : 0));
        for (int t = 0; t < EM_NDTYPES; t++) {
            em_array b;
            if (em_astype(&a, t, &b) != EM_OK) {
                bad++;
                continue;
            }
            int ts = (int)EM_DTYPE_SIZE(t);
            for (int k = 0; k < NV; k++) {
                char want[16] = {0};
                expect(f, a.data + k * fs, t, want);
                if (memcmp(want, b.data + k * ts, (size_t)ts)) {
                    bad++;
                    fprintf(stderr, "cast %s -> %s of element %d differs\n", em_dtype_get(f)->name,
                            em_dtype_get(t)->name, k);
                }
            }
            em_array_release(&b);
        }
        em_array_release(&a);
    }
    CHECK(bad == 0);
}

/* Float -> int of values beyond the int32 range and NaN: defined results, no UB. */
static void test_cast_out_of_range(void) {
    double v[] = {3e9, -3e9, 1e300, -1e300, 0.0 / 0.0, 1.0 / 0.0, -7.9};
    int64_t n = 7;
    em_array a, b;
    CHECK(em_array_empty(&a, EM_FLOAT64, 1, &n, cpu) == EM_OK);
    CHECK(em_array_write(&a, v, sizeof v) == EM_OK);
    CHECK(em_astype(&a, EM_INT64, &b) == EM_OK);
    int64_t *r = (int64_t *)b.data;
    CHECK(r[0] == 3000000000LL && r[1] == -3000000000LL && r[2] == INT64_MIN && r[6] == -7);
    em_array_release(&b);
    /* Narrow targets follow NumPy on x86: through int32, INT32_MIN when out
     * of range or NaN, then the low bits. */
    CHECK(em_astype(&a, EM_INT32, &b) == EM_OK);
    int32_t *r32 = (int32_t *)b.data;
    CHECK(r32[0] == INT32_MIN && r32[1] == INT32_MIN && r32[4] == INT32_MIN && r32[6] == -7);
    em_array_release(&b);
    CHECK(em_astype(&a, EM_INT16, &b) == EM_OK);
    CHECK(((int16_t *)b.data)[0] == 0 && ((int16_t *)b.data)[5] == 0 &&
          ((int16_t *)b.data)[6] == -7);
    em_array_release(&b);
    CHECK(em_astype(&a, EM_UINT32, &b) == EM_OK);
    CHECK(((uint32_t *)b.data)[0] == 3000000000u && ((uint32_t *)b.data)[6] == (uint32_t)-7);
    em_array_release(&b);
    em_array_release(&a);
}

/* float16 conversions (bit-manipulated in cast.c) against the compiler's
 * _Float16 conversions: every half value, and floats around every rounding
 * boundary, subnormals, overflow, infinities and NaN. */
static void test_float16_exhaustive(void) {
    int64_t n = 65536;
    em_array h, f, back;
    CHECK(em_array_empty(&h, EM_FLOAT16, 1, &n, cpu) == EM_OK);
    for (int64_t i = 0; i < n; i++) ((uint16_t *)h.data)[i] = (uint16_t)i;
    CHECK(em_astype(&h, EM_FLOAT32, &f) == EM_OK);
    int bad = 0;
    for (int64_t i = 0; i < n; i++) {
        _Float16 x;
        uint16_t bits = (uint16_t)i;
        memcpy(&x, &bits, 2);
        float want = (float)x, got = ((float *)f.data)[i];
        bad += x == x ? memcmp(&want, &got, 4) != 0 : got == got;
    }
    CHECK(bad == 0);
    /* Floats: every half, its neighbours and the midpoints between halves. */
    int64_t m = 4 * n;
    em_array fl;
    CHECK(em_array_empty(&fl, EM_FLOAT32, 1, &m, cpu) == EM_OK);
    float *v = (float *)fl.data;
    for (int64_t i = 0; i < n; i++) {
        float a = ((float *)f.data)[i], b = ((float *)f.data)[(i + 1) % n];
        v[4 * i] = a;
        v[4 * i + 1] = nextafterf(a, 1e30f);
        v[4 * i + 2] = nextafterf(a, -1e30f);
        v[4 * i + 3] = a / 2 + b / 2; /* the midpoint: ties round to even */
    }
    CHECK(em_astype(&fl, EM_FLOAT16, &back) == EM_OK);
    bad = 0;
    for (int64_t i = 0; i < m; i++) {
        _Float16 want = (_Float16)v[i], got;
        memcpy(&got, (uint16_t *)back.data + i, 2);
        bad += want == want ? memcmp(&want, &got, 2) != 0 : got == got;
    }
    CHECK(bad == 0);
    em_array_release(&back);
    em_array_release(&fl);
    em_array_release(&f);
    em_array_release(&h);
}

/* A float64 array of shape with values base + flat index. */
static em_array iota(int nd, const int64_t *shape, double base) {
    em_array a;
    if (em_array_empty(&a, EM_FLOAT64, nd, shape, cpu) != EM_OK) abort();
    for (int64_t i = 0; i < em_array_size(&a); i++) ((double *)a.data)[i] = base + (double)i;
    return a;
}

static double get2(const em_array *a, int64_t i, int64_t j) {
    return *(const double *)(a->data + i * a->strides[0] + j * a->strides[1]);
}

static void test_broadcast_add(void) {
    int64_t sc[] = {300, 1}, sr[] = {1, 5000};
    em_array c = iota(2, sc, 0), r = iota(2, sr, 1000), o = {0};
    const em_array *in[] = {&c, &r};
    CHECK(em_ufunc(EM_OP_ADD, 2, in, EM_NDTYPES, &o) == EM_OK);
    CHECK(o.ndim == 2 && o.shape[0] == 300 && o.shape[1] == 5000 && o.dtype == EM_FLOAT64);
    int bad = 0;
    for (int64_t i = 0; i < 300; i++)
        for (int64_t j = 0; j < 5000; j++) bad += get2(&o, i, j) != (double)i + 1000 + (double)j;
    CHECK(bad == 0);
    em_array_release(&o);
    int64_t s3[] = {3};
    em_array x = iota(1, s3, 0);
    const em_array *badin[] = {&r, &x}; /* 5000 vs 3 */
    CHECK(em_ufunc(EM_OP_ADD, 2, badin, EM_NDTYPES, &o) == EM_ESHAPE);
    CHECK(o.buf == NULL);
    em_array_release(&x);
    em_array_release(&c);
    em_array_release(&r);
}

/* Transposed and reversed operands, and a strided output. */
static void test_strided_layouts(void) {
    int64_t s[] = {700, 900};
    em_array a = iota(2, s, 0), t, rev, o = {0};
    CHECK(em_view_transpose(&a, NULL, &t) == EM_OK); /* (900, 700) */
    em_index_item it[] = {{EM_IX_SLICE, INT64_MAX, INT64_MIN, -1},
                          {EM_IX_SLICE, INT64_MAX, INT64_MIN, -1}};
    CHECK(em_view_index(&t, 2, it, &rev) == EM_OK); /* t[::-1, ::-1] */
    const em_array *in[] = {&t, &rev};
    CHECK(em_ufunc(EM_OP_SUBTRACT, 2, in, EM_NDTYPES, &o) == EM_OK);
    int bad = 0;
    for (int64_t i = 0; i < 900; i += 7)
        for (int64_t j = 0; j < 700; j++)
            bad += get2(&o, i, j) != get2(&a, j, i) - get2(&a, 699 - j, 899 - i);
    CHECK(bad == 0);
    /* Into a transposed out= view: out[j, i] = t[i, j] * 2 must land in a's layout. */
    int64_t so[] = {900, 700};
    em_array dst = iota(2, so, 0), dt2;
    CHECK(em_view_transpose(&dst, NULL, &dt2) == EM_OK); /* (700, 900), F-ordered */
    em_array two = {0};
    double v2 = 2;
    CHECK(em_array_wrap(&two, &v2, EM_FLOAT64, 0, NULL, NULL, cpu, NULL, NULL) == EM_OK);
    const em_array *in2[] = {&a, &two};
    CHECK(em_ufunc(EM_OP_MULTIPLY, 2, in2, EM_NDTYPES, &dt2) == EM_OK);
    bad = 0;
    for (int64_t i = 0; i < 700; i += 3)
        for (int64_t j = 0; j < 900; j++) bad += get2(&dst, j, i) != 2 * get2(&a, i, j);
    CHECK(bad == 0);
    em_array_release(&two);
    em_array_release(&dt2);
    em_array_release(&dst);
    em_array_release(&o);
    em_array_release(&rev);
    em_array_release(&t);
    em_array_release(&a);
}

/* out overlapping an input in another layout: inputs are read before writes. */
static void test_out_aliases_input(void) {
    int64_t n = 10001;
    em_array a = iota(1, &n, 0), rev;
    em_index_item it[] = {{EM_IX_SLICE, INT64_MAX, INT64_MIN, -1}};
    CHECK(em_view_index(&a, 1, it, &rev) == EM_OK);
    const em_array *in[] = {&a, &rev};
    CHECK(em_ufunc(EM_OP_ADD, 2, in, EM_NDTYPES, &a) == EM_OK); /* a += a[::-1] */
    int bad = 0;
    for (int64_t i = 0; i < n; i++) bad += ((double *)a.data)[i] != (double)(n - 1);
    CHECK(bad == 0);
    /* copy_into with overlap: a[1:] = a[:-1] shifts right, as NumPy does. */
    for (int64_t i = 0; i < n; i++) ((double *)a.data)[i] = (double)i;
    em_index_item hi[] = {{EM_IX_SLICE, 1, INT64_MAX, 1}}, lo[] = {{EM_IX_SLICE, 0, -1, 1}};
    em_array h, l;
    CHECK(em_view_index(&a, 1, hi, &h) == EM_OK && em_view_index(&a, 1, lo, &l) == EM_OK);
    CHECK(em_copy_into(&h, &l) == EM_OK);
    bad = 0;
    for (int64_t i = 1; i < n; i++) bad += ((double *)a.data)[i] != (double)(i - 1);
    CHECK(bad == 0 && ((double *)a.data)[0] == 0);
    em_array_release(&h);
    em_array_release(&l);
    em_array_release(&rev);
    em_array_release(&a);
}

static void test_copy_into_casts_and_broadcasts(void) {
    int64_t s[] = {4, 3}, s1[] = {3};
    em_array dst, src = iota(1, s1, 0.75);
    CHECK(em_array_empty(&dst, EM_INT16, 2, s, cpu) == EM_OK);
    CHECK(em_copy_into(&dst, &src) == EM_OK);
    int16_t *d = (int16_t *)dst.data;
    CHECK(d[0] == 0 && d[1] == 1 && d[2] == 2 && d[11] == 2);
    int32_t seven = 7;
    CHECK(em_fill(&dst, EM_INT32, &seven) == EM_OK && d[5] == 7);
    int64_t s4[] = {4};
    em_array wrong = iota(1, s4, 0);
    CHECK(em_copy_into(&dst, &wrong) == EM_ESHAPE);
    dst.flags = 0;
    CHECK(em_copy_into(&dst, &src) == EM_EVALUE);
    CHECK(strstr(em_last_error(), "read-only") != NULL);
    em_array_release(&wrong);
    em_array_release(&src);
    em_array_release(&dst);
}

static void test_empty_and_0d(void) {
    int64_t z[] = {0, 5};
    em_array e = iota(2, z, 0), o = {0};
    const em_array *in[] = {&e, &e};
    CHECK(em_ufunc(EM_OP_ADD, 2, in, EM_NDTYPES, &o) == EM_OK && o.shape[0] == 0);
    em_array_release(&o);
    em_array s = iota(0, NULL, 41);
    const em_array *in0[] = {&s, &s};
    CHECK(em_ufunc(EM_OP_ADD, 2, in0, EM_NDTYPES, &o) == EM_OK && o.ndim == 0);
    CHECK(*(double *)o.data == 82);
    em_array_release(&o);
    em_array_release(&s);
    em_array_release(&e);
}

int main(void) {
    RUN(test_cast_all_pairs);
    RUN(test_cast_out_of_range);
    RUN(test_float16_exhaustive);
    RUN(test_broadcast_add);
    RUN(test_strided_layouts);
    RUN(test_out_aliases_input);
    RUN(test_copy_into_casts_and_broadcasts);
    RUN(test_empty_and_0d);
    return ctest_summary();
}
