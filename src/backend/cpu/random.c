/* Philox4x32-10 streams on the CPU, over the thread pool.
 *
 * The work is split by Philox block: block j of the stream fills elements
 * [j*E, (j+1)*E) (E = 4 for 32-bit outputs, 2 for 64-bit ones, see ember.h),
 * so a range of blocks is independent of every other range and the result
 * does not depend on the number of threads. */
#include "backend/cpu/cpu.h"
#include "backend/cpu/rmath_avx2.h"
#include "host/threadpool.h"
#include "codegen/philox.h"
#include "codegen/rand_dist.h"
#include "core/core.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define EM__TWO_PI 6.283185307179586476925286766559

/* Blocks are made EM__LANES at a time, lane l holding block j + l, in
 * structure-of-arrays form so each round is a few SIMD instructions (SSE2
 * everywhere on x86-64, AVX2 where the CPU has it, scalar elsewhere).  The
 * result is em_philox_block() per block (tests/c/test_random.c checks). */
#define EM__LANES 8

typedef struct {
    uint32_t w[4][EM__LANES];
} em__lanes;

/* Lane l's counter: {lo32(first + l), hi32(first + l), w2, w3} (em_random_fill's
 * blocks: w2 = w3 = 0; rand_dist.h's: block j of element first + l, "DIST"). */
static void em__lanes_init(uint64_t first, uint32_t w2, uint32_t w3, em__lanes *x) {
    for (int l = 0; l < EM__LANES; l++) {
        uint64_t c = first + (uint64_t)l;
        x->w[0][l] = (uint32_t)c, x->w[1][l] = (uint32_t)(c >> 32);
        x->w[2][l] = w2, x->w[3][l] = w3;
    }
}

#if defined(__SSE2__)
#include <immintrin.h>

/* hi and lo halves of the 32x32->64 products m * a, four lanes at once
 * (SSE2 multiplies lanes 0 and 2; lanes 1 and 3 go through a shift). */
static inline void em__mulhilo4(__m128i a, __m128i m, __m128i *hi, __m128i *lo) {
    const __m128i low = _mm_set1_epi64x(0xffffffff);
    __m128i even = _mm_mul_epu32(a, m), odd = _mm_mul_epu32(_mm_srli_epi64(a, 32), m);
    *hi = _mm_or_si128(_mm_srli_epi64(even, 32), _mm_andnot_si128(low, odd));
    *lo = _mm_or_si128(_mm_and_si128(even, low), _mm_slli_epi64(odd, 32));
}

/* x = the blocks of the counters em__lanes_init describes. */
static void em__philox_lanes_sse2(uint64_t key, uint64_t first, uint32_t w2, uint32_t w3,
                                  em__lanes *x) {
    em__lanes_init(first, w2, w3, x);
    const __m128i m0 = _mm_set1_epi32((int)EM_PHILOX_M0), m1 = _mm_set1_epi32((int)EM_PHILOX_M1);
    for (int h = 0; h < EM__LANES; h += 4) {
        __m128i c0 = _mm_loadu_si128((const __m128i *)&x->w[0][h]);
        __m128i c1 = _mm_loadu_si128((const __m128i *)&x->w[1][h]);
        __m128i c2 = _mm_set1_epi32((int)w2), c3 = _mm_set1_epi32((int)w3);
        uint32_t k0 = (uint32_t)key, k1 = (uint32_t)(key >> 32);
        for (int r = 0; r < 10; r++) {
            __m128i hi0, lo0, hi1, lo1;
            em__mulhilo4(c0, m0, &hi0, &lo0);
            em__mulhilo4(c2, m1, &hi1, &lo1);
            c0 = _mm_xor_si128(_mm_xor_si128(hi1, c1), _mm_set1_epi32((int)k0));
            c2 = _mm_xor_si128(_mm_xor_si128(hi0, c3), _mm_set1_epi32((int)k1));
            c1 = lo1, c3 = lo0;
            k0 += EM_PHILOX_W0, k1 += EM_PHILOX_W1;
        }
        _mm_storeu_si128((__m128i *)&x->w[0][h], c0);
        _mm_storeu_si128((__m128i *)&x->w[1][h], c1);
        _mm_storeu_si128((__m128i *)&x->w[2][h], c2);
        _mm_storeu_si128((__m128i *)&x->w[3][h], c3);
    }
}

/* The same with AVX2, chosen at run time where the CPU has it: each word
 * in the low half of a 64-bit slot, 4 lanes a register, two registers of
 * lanes in flight.  _mm256_mul_epu32 then gives a round's whole 32x32->64
 * product in place (hi = product >> 32, and the product itself serves as
 * lo), where splitting the products of 8 packed words out of even and odd
 * slots took 9 instructions a multiply.  A slot's high half carries garbage
 * from the product, harmlessly: each word is only multiplied (which reads
 * the low half), xored (lane-wise) or stored as its low half. */
__attribute__((target("avx2"))) static void
em__philox_lanes_avx2(uint64_t key, uint64_t first, uint32_t w2, uint32_t w3, em__lanes *x) {
    const __m256i m0 = _mm256_set1_epi64x(EM_PHILOX_M0), m1 = _mm256_set1_epi64x(EM_PHILOX_M1);
    __m256i c[2][4]; /* lanes 0-3, 4-7; words 0-3 */
    /* the counters made in registers: loading words just stored one by one
     * stalls (a wide load cannot forward from narrow stores) */
    for (int h = 0; h < 2; h++) {
        const __m256i f =
            _mm256_add_epi64(_mm256_set1_epi64x((long long)first),
                             _mm256_setr_epi64x(4 * h, 4 * h + 1, 4 * h + 2, 4 * h + 3));
        c[h][0] = f, c[h][1] = _mm256_srli_epi64(f, 32); /* f's high half: garbage, as below */
        c[h][2] = _mm256_set1_epi64x(w2), c[h][3] = _mm256_set1_epi64x(w3);
    }
    uint32_t k0 = (uint32_t)key, k1 = (uint32_t)(key >> 32);
    for (int r = 0; r < 10; r++) {
        const __m256i kk0 = _mm256_set1_epi64x(k0), kk1 = _mm256_set1_epi64x(k1);
        for (int h = 0; h < 2; h++) {
            const __m256i p0 = _mm256_mul_epu32(c[h][0], m0), p1 = _mm256_mul_epu32(c[h][2], m1);
            c[h][0] = _mm256_xor_si256(_mm256_xor_si256(_mm256_srli_epi64(p1, 32), c[h][1]), kk0);
            c[h][2] = _mm256_xor_si256(_mm256_xor_si256(_mm256_srli_epi64(p0, 32), c[h][3]), kk1);
            c[h][1] = p1, c[h][3] = p0;
        }
        k0 += EM_PHILOX_W0, k1 += EM_PHILOX_W1;
    }
    /* the low halves of the slots, packed back: words 0, 2, 4, 6 of each register */
    const __m256i lows = _mm256_setr_epi32(0, 2, 4, 6, 1, 3, 5, 7);
    for (int h = 0; h < 2; h++)
        for (int w = 0; w < 4; w++)
            _mm_storeu_si128((__m128i *)&x->w[w][4 * h],
                             _mm256_castsi256_si128(_mm256_permutevar8x32_epi32(c[h][w], lows)));
}

typedef void (*em__philox_fn)(uint64_t key, uint64_t first, uint32_t w2, uint32_t w3, em__lanes *x);

static em__philox_fn em__philox_pick(void) {
    return __builtin_cpu_supports("avx2") ? em__philox_lanes_avx2 : em__philox_lanes_sse2;
}
#else
typedef void (*em__philox_fn)(uint64_t key, uint64_t first, uint32_t w2, uint32_t w3, em__lanes *x);

static void em__philox_lanes(uint64_t key, uint64_t first, uint32_t w2, uint32_t w3, em__lanes *x) {
    em__lanes_init(first, w2, w3, x);
    for (int l = 0; l < EM__LANES; l++) {
        uint32_t ctr[4] = {x->w[0][l], x->w[1][l], x->w[2][l], x->w[3][l]},
                 k[2] = {(uint32_t)key, (uint32_t)(key >> 32)}, out[4];
        em_philox4x32_10(ctr, k, out);
        for (int i = 0; i < 4; i++) x->w[i][l] = out[i];
    }
}

static em__philox_fn em__philox_pick(void) { return em__philox_lanes; }
#endif

typedef struct em__rand_ctx em__rand_ctx;
/* Convert the words of EM__LANES blocks into their elements (lane order). */
typedef void (*em__rand_conv)(const em__rand_ctx *c, const em__lanes *x, void *out);

struct em__rand_ctx {
    char *data;
    int64_t n;     /* elements */
    int per_block; /* elements per Philox block */
    int itemsize;
    em__rand_conv conv;
    em__philox_fn philox;
    const em_random_req *req;
};

/* 64 bits k (0 or 1) of lane l: words 2k (low) and 2k+1 (high). */
static inline uint64_t em__b64(const em__lanes *x, int l, int k) {
    return (uint64_t)x->w[2 * k][l] | (uint64_t)x->w[2 * k + 1][l] << 32;
}

/* Through int64_t: the value fits in 53 bits, and the signed conversion is
 * one instruction where the unsigned one is not. */
static inline double em__u53(uint64_t b) { return (double)(int64_t)(b >> 11) * 0x1p-53; }
static inline float em__u24(uint32_t w) { return (float)(int32_t)(w >> 8) * 0x1p-24f; }

static void em__conv_bits32(const em__rand_ctx *c, const em__lanes *x, void *v) {
    uint32_t *o = v;
    for (int l = 0; l < EM__LANES; l++)
        for (int k = 0; k < 4; k++) o[4 * l + k] = x->w[k][l];
}

static void em__conv_bits64(const em__rand_ctx *c, const em__lanes *x, void *v) {
    uint64_t *o = v;
    for (int l = 0; l < EM__LANES; l++)
        o[2 * l] = em__b64(x, l, 0), o[2 * l + 1] = em__b64(x, l, 1);
}

static void em__conv_unif32(const em__rand_ctx *c, const em__lanes *x, void *v) {
    float *o = v;
    for (int l = 0; l < EM__LANES; l++)
        for (int k = 0; k < 4; k++) o[4 * l + k] = em__u24(x->w[k][l]);
}

static void em__conv_unif64(const em__rand_ctx *c, const em__lanes *x, void *v) {
    double *o = v;
    for (int l = 0; l < EM__LANES; l++)
        o[2 * l] = em__u53(em__b64(x, l, 0)), o[2 * l + 1] = em__u53(em__b64(x, l, 1));
}

/* Box-Muller: 1 - u1 is in (0, 1], so the log is finite.  float32 uses the
 * float functions (a few ulps, like the GPU's fast paths would be). */
static void em__conv_norm32(const em__rand_ctx *c, const em__lanes *x, void *v) {
    float *o = v;
    for (int l = 0; l < EM__LANES; l++)
        for (int k = 0; k < 4; k += 2) {
            float r = sqrtf(-2.0f * logf(1.0f - em__u24(x->w[k][l])));
            float t = (float)EM__TWO_PI * em__u24(x->w[k + 1][l]);
            o[4 * l + k] = r * cosf(t), o[4 * l + k + 1] = r * sinf(t);
        }
}

static void em__conv_norm64(const em__rand_ctx *c, const em__lanes *x, void *v) {
    double *o = v;
    for (int l = 0; l < EM__LANES; l++) {
        double r = sqrt(-2.0 * log(1.0 - em__u53(em__b64(x, l, 0))));
        double t = EM__TWO_PI * em__u53(em__b64(x, l, 1));
        o[2 * l] = r * cos(t), o[2 * l + 1] = r * sin(t);
    }
}

#if defined(EM_HAVE_RMATH_AVX2)
/* The same Box-Muller with rmath_avx2.h's log and sincos, 4 pairs at once:
 * within an ulp or two of libm's values (machines without AVX2 and FMA, and
 * EMBER_RANDOM_LIBM=1, keep libm), and 3x as fast. */

/* Lanes h .. h+3 of word w as doubles (exact: below 2^32). */
__attribute__((target("avx2,fma"))) static inline __m256d em__wd(const em__lanes *x, int w, int h) {
    const __m256i v = _mm256_cvtepu32_epi64(_mm_loadu_si128((const __m128i *)&x->w[w][h]));
    return _mm256_sub_pd(
        _mm256_castsi256_pd(_mm256_or_si256(v, _mm256_set1_epi64x(0x4330000000000000))),
        _mm256_set1_pd(0x1p52));
}

/* em__u53(em__b64(x, l, k)) for lanes h .. h+3: the high word's 32 bits and
 * the low word's top 21 add exactly. */
__attribute__((target("avx2,fma"))) static inline __m256d em__u53x4(const em__lanes *x, int k,
                                                                    int h) {
    const __m256i lo = _mm256_srli_epi64(
        _mm256_cvtepu32_epi64(_mm_loadu_si128((const __m128i *)&x->w[2 * k][h])), 11);
    const __m256d dlo = _mm256_sub_pd(
        _mm256_castsi256_pd(_mm256_or_si256(lo, _mm256_set1_epi64x(0x4330000000000000))),
        _mm256_set1_pd(0x1p52));
    return _mm256_fmadd_pd(em__wd(x, 2 * k + 1, h), _mm256_set1_pd(0x1p-32),
                           _mm256_mul_pd(dlo, _mm256_set1_pd(0x1p-53)));
}

/* r cos(t), r sin(t) of Box-Muller from uniforms u1, u2. */
__attribute__((target("avx2,fma"))) static inline void em__bm4(__m256d u1, __m256d u2, __m256d *c,
                                                               __m256d *s) {
    const __m256d r = _mm256_sqrt_pd(
        _mm256_mul_pd(_mm256_set1_pd(-2.0), em__rm_log(_mm256_sub_pd(_mm256_set1_pd(1.0), u1))));
    __m256d sn, cs;
    em__rm_sincos(_mm256_mul_pd(_mm256_set1_pd(EM__TWO_PI), u2), &sn, &cs);
    *c = _mm256_mul_pd(r, cs), *s = _mm256_mul_pd(r, sn);
}

__attribute__((target("avx2,fma"))) static void em__conv_norm64_avx2(const em__rand_ctx *c,
                                                                     const em__lanes *x, void *v) {
    double *o = v;
    for (int h = 0; h < EM__LANES; h += 4) {
        __m256d cs, sn;
        em__bm4(em__u53x4(x, 0, h), em__u53x4(x, 1, h), &cs, &sn);
        const __m256d lo = _mm256_unpacklo_pd(cs, sn), hi = _mm256_unpackhi_pd(cs, sn);
        _mm256_storeu_pd(o + 2 * h, _mm256_permute2f128_pd(lo, hi, 0x20));
        _mm256_storeu_pd(o + 2 * h + 4, _mm256_permute2f128_pd(lo, hi, 0x31));
    }
}

/* float32 in double: em__u24 of each word is exact there, and one rounding
 * at the end is closer than logf/cosf's few ulps. */
__attribute__((target("avx2,fma"))) static void em__conv_norm32_avx2(const em__rand_ctx *c,
                                                                     const em__lanes *x, void *v) {
    float *o = v;
    for (int h = 0; h < EM__LANES; h += 4)
        for (int k = 0; k < 4; k += 2) {
            const __m256d u1 = _mm256_mul_pd(
                _mm256_floor_pd(_mm256_mul_pd(em__wd(x, k, h), _mm256_set1_pd(0x1p-8))),
                _mm256_set1_pd(0x1p-24));
            const __m256d u2 = _mm256_mul_pd(
                _mm256_floor_pd(_mm256_mul_pd(em__wd(x, k + 1, h), _mm256_set1_pd(0x1p-8))),
                _mm256_set1_pd(0x1p-24));
            __m256d cs, sn;
            em__bm4(u1, u2, &cs, &sn);
            float fc[4], fs[4];
            _mm_storeu_ps(fc, _mm256_cvtpd_ps(cs));
            _mm_storeu_ps(fs, _mm256_cvtpd_ps(sn));
            for (int l = 0; l < 4; l++) o[4 * (h + l) + k] = fc[l], o[4 * (h + l) + k + 1] = fs[l];
        }
}
#endif

/* Whether the CPU's draws use rmath_avx2.h (AVX2 and FMA, and not
 * EMBER_RANDOM_LIBM=1: libm's values, for comparison). */
static int em__rmath(void) {
    static int on = -1;
    if (on < 0) {
#if defined(EM_HAVE_RMATH_AVX2)
        const char *e = getenv("EMBER_RANDOM_LIBM");
        on = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") &&
             !(e && *e && strcmp(e, "0") != 0);
#else
        on = 0;
#endif
    }
    return on;
}

/* low + floor(b * range / 2^64) (range 0: 2^64), wrapping in 64 bits; the
 * core checked that every result fits the dtype, so truncating is exact. */
static inline uint64_t em__scale(uint64_t b, uint64_t low, uint64_t range) {
    if (!range) return low + b;
    return low + (uint64_t)(((unsigned __int128)b * range) >> 64);
}

#define EM__CONV_INT(bits)                                                               \
    static void em__conv_int##bits(const em__rand_ctx *c, const em__lanes *x, void *v) { \
        uint##bits##_t *o = v;                                                           \
        uint64_t low = c->req->low, range = c->req->range;                               \
        for (int l = 0; l < EM__LANES; l++)                                              \
            for (int k = 0; k < 2; k++)                                                  \
                o[2 * l + k] = (uint##bits##_t)em__scale(em__b64(x, l, k), low, range);  \
    }
EM__CONV_INT(8)
EM__CONV_INT(16)
EM__CONV_INT(32)
EM__CONV_INT(64)
#undef EM__CONV_INT

/* GEOMETRIC (em_random_fill_post): max(ceil(log1p(-v) / pa), 1) as int64
 * of v, each float64 uniform of the stream (two a block), with pa =
 * log1p(-p); the cast as the devices' em_f2u (defined past int64's range).
 * The devices' formula, so their numbers. */
static inline int64_t em__geom_k(double k) {
    k = k >= 1.0 ? k : 1.0;
    return k < 9223372036854775808.0    ? (int64_t)k
           : k < 18446744073709551616.0 ? (int64_t)(uint64_t)k
                                        : INT64_MIN;
}

static void em__conv_geom(const em__rand_ctx *c, const em__lanes *x, void *v) {
    int64_t *o = v;
    const double pa = c->req->pa;
    for (int l = 0; l < EM__LANES; l++)
        for (int k = 0; k < 2; k++)
            o[2 * l + k] = em__geom_k(ceil(log1p(-em__u53(em__b64(x, l, k))) / pa));
}

#if defined(EM_HAVE_RMATH_AVX2)
/* The same with rmath_avx2.h's log of 1 - v (exact in double, so the same
 * number as log1p(-v) to an ulp): the value differs from libm's only where
 * the quotient lies within an ulp or two of an integer (about 10^-15 of the
 * elements at p = 0.2). */
__attribute__((target("avx2,fma"))) static void em__conv_geom_avx2(const em__rand_ctx *c,
                                                                   const em__lanes *x, void *v) {
    int64_t *o = v;
    const __m256d pa = _mm256_set1_pd(c->req->pa), one = _mm256_set1_pd(1.0);
    for (int h = 0; h < EM__LANES; h += 4)
        for (int k = 0; k < 2; k++) {
            const __m256d u = _mm256_sub_pd(one, em__u53x4(x, k, h));
            const __m256d q = _mm256_ceil_pd(_mm256_div_pd(em__rm_log(u), pa));
            const __m256d m = _mm256_max_pd(q, one); /* q > 1 ? q : 1, as em__geom_k */
            double d[4];
            _mm256_storeu_pd(d, m);
            if (!_mm256_movemask_pd(_mm256_cmp_pd(m, _mm256_set1_pd(0x1p52), _CMP_NLT_UQ))) {
                /* integers in [1, 2^52): their bits past 2^52's */
                const __m256i r4 =
                    _mm256_sub_epi64(_mm256_castpd_si256(_mm256_add_pd(m, _mm256_set1_pd(0x1p52))),
                                     _mm256_castpd_si256(_mm256_set1_pd(0x1p52)));
                int64_t r[4];
                _mm256_storeu_si256((__m256i *)r, r4);
                for (int l = 0; l < 4; l++) o[2 * (h + l) + k] = r[l];
            } else {
                for (int l = 0; l < 4; l++) o[2 * (h + l) + k] = em__geom_k(d[l]);
            }
        }
}
#endif

/* Blocks [b, e), EM__LANES at a time: whole groups straight into place, a
 * group cut short by e or by the array's end through a scratch buffer. */
static void em__rand_range(void *ctx, int64_t b, int64_t e, int worker) {
    EM_UNUSED(worker);
    const em__rand_ctx *c = ctx;
    int64_t group = (int64_t)EM__LANES * c->per_block; /* elements per group */
    for (int64_t j = b; j < e; j += EM__LANES) {
        em__lanes x;
        c->philox(c->req->key, c->req->counter + (uint64_t)j, 0, 0, &x);
        int64_t first = j * c->per_block;
        int64_t want = (e - j < EM__LANES ? e - j : EM__LANES) * c->per_block;
        if (want > c->n - first) want = c->n - first;
        char *dst = c->data + first * c->itemsize;
        if (want == group) {
            c->conv(c, &x, dst);
        } else {
            uint64_t tmp[4 * EM__LANES];
            c->conv(c, &x, tmp);
            memcpy(dst, tmp, (size_t)(want * c->itemsize));
        }
    }
}

/* Groups [b, e) of EM__LANES blocks, clipped to the array's blocks. */
static void em__rand_groups(void *ctx, int64_t b, int64_t e, int worker) {
    const em__rand_ctx *c = ctx;
    int64_t blocks = (c->n + c->per_block - 1) / c->per_block;
    int64_t last = e * EM__LANES < blocks ? e * EM__LANES : blocks;
    em__rand_range(ctx, b * EM__LANES, last, worker);
}

static em__rand_conv em__pick(em_random_kind kind, int itemsize) {
    switch (kind) {
    case EM_RAND_UNIFORM: return itemsize == 4 ? em__conv_unif32 : em__conv_unif64;
    case EM_RAND_NORMAL:
#if defined(EM_HAVE_RMATH_AVX2)
        if (em__rmath()) return itemsize == 4 ? em__conv_norm32_avx2 : em__conv_norm64_avx2;
#endif
        return itemsize == 4 ? em__conv_norm32 : em__conv_norm64;
    case EM_RAND_BITS: return itemsize == 4 ? em__conv_bits32 : em__conv_bits64;
    default:
        return itemsize == 1   ? em__conv_int8
               : itemsize == 2 ? em__conv_int16
               : itemsize == 4 ? em__conv_int32
                               : em__conv_int64;
    }
}

/* The rejection samplers: codegen/rand_dist.h's text, the one the devices
 * compile, expanded here with its block refill redirected.  Element i's
 * block j is Philox({lo32(c + i), hi32(c + i), j, "DIST"}); one at a time,
 * these scalar Philox calls were most of a draw's time here (a gamma: two
 * blocks, 20 rounds of dependent multiplies, beside one log and one sincos).
 * So em__dist_range makes blocks 0 .. nb-1 of EM__LANES elements at once
 * with the SIMD lanes above, and the text's em_philox calls (the macro
 * below) read them while the block index is below nb, computing only a
 * rejection's later blocks one at a time.  Where each block comes from is
 * all that changes: the values are the shared text's, bit for bit. */
#define EM__DIST_MAXNB 3

/* The refill of em_rs_u(s): block w[2] of the element whose counter is w[0], w[1]. */
static inline void em__dist_block(void *s, uint32_t w[4], uint32_t k0, uint32_t k1);

#define em_philox(w, k0, k1) em__dist_block(s, w, k0, k1)
EM__DIST_TEXT(static inline, uint32_t, uint64_t, int64_t)
#undef em_philox

/* A sampler's state with the element's precomputed blocks.  s is first, so
 * the em_rs * the text passes around points at this whole struct. */
typedef struct {
    em_rs s;
    const em__lanes *blk; /* blocks 0 .. nb-1 of EM__LANES elements */
    int nb, lane;         /* how many; the element's lane */
} em__dist_state;

static inline void em__dist_block(void *s, uint32_t w[4], uint32_t k0, uint32_t k1) {
    const em__dist_state *d = s;
    if (w[2] < (uint32_t)d->nb) {
        const em__lanes *b = &d->blk[w[2]];
        const int l = d->lane;
        w[0] = b->w[0][l], w[1] = b->w[1][l], w[2] = b->w[2][l], w[3] = b->w[3][l];
        return;
    }
    em_philox(w, k0, k1);
}

#if defined(EM_HAVE_RMATH_AVX2)
/* Marsaglia-Tsang's first try for 4 elements of shape k with the normal x:
 * the text's em_rs_gamma's first pass (the squeeze u < 1 - 0.0331 x^4, then
 * the log test, with rmath_avx2.h's log), for
 * k >= 1 (and 0 < k < 1 where small: the text's k + 1, whose U^(1/k) the
 * caller applies); *ok marks the lanes it accepts, whose d v^3 it returns. */
__attribute__((target("avx2,fma"))) static inline __m256d
em__gamma_try4(__m256d k, __m256d x, __m256d u, int small, __m256d *ok) {
    const __m256d one = _mm256_set1_pd(1.0);
    const __m256d lt1 = _mm256_cmp_pd(k, one, _CMP_LT_OQ);
    const __m256d kk = _mm256_add_pd(k, _mm256_and_pd(lt1, one));
    const __m256d d = _mm256_sub_pd(kk, _mm256_set1_pd(1.0 / 3.0));
    const __m256d c =
        _mm256_div_pd(_mm256_set1_pd(1.0), _mm256_sqrt_pd(_mm256_mul_pd(_mm256_set1_pd(9.0), d)));
    __m256d v = _mm256_add_pd(_mm256_set1_pd(1.0), _mm256_mul_pd(c, x));
    const __m256d pos = _mm256_cmp_pd(v, _mm256_setzero_pd(), _CMP_GT_OQ);
    v = _mm256_mul_pd(_mm256_mul_pd(v, v), v);
    const __m256d x2 = _mm256_mul_pd(x, x);
    const __m256d sq = _mm256_sub_pd(_mm256_set1_pd(1.0),
                                     _mm256_mul_pd(_mm256_mul_pd(_mm256_set1_pd(0.0331), x2), x2));
    const __m256d big = small ? _mm256_cmp_pd(k, _mm256_setzero_pd(), _CMP_GT_OQ)
                              : _mm256_cmp_pd(k, one, _CMP_GE_OQ); /* NaN: no */
    const __m256d live = _mm256_and_pd(pos, big);
    *ok = _mm256_and_pd(live, _mm256_cmp_pd(u, sq, _CMP_LT_OQ));
    const __m256d rest = _mm256_andnot_pd(*ok, live);
    if (_mm256_movemask_pd(rest)) { /* the text's second test, log(u) < x^2/2 + d (1 - v + log v) */
        const __m256d lu = em__rm_log(_mm256_blendv_pd(one, u, rest));
        const __m256d lv = em__rm_log(_mm256_blendv_pd(one, v, rest));
        const __m256d rhs =
            _mm256_add_pd(_mm256_mul_pd(_mm256_mul_pd(_mm256_set1_pd(0.5), x), x),
                          _mm256_mul_pd(d, _mm256_add_pd(_mm256_sub_pd(one, v), lv)));
        *ok = _mm256_or_pd(*ok, _mm256_and_pd(rest, _mm256_cmp_pd(lu, rhs, _CMP_LT_OQ)));
    }
    return _mm256_mul_pd(d, v);
}

/* The samplers' common first try, 4 elements at once (elements g + h ..
 * g + h + 3, lanes h .. h + 3 of the blocks): a gamma of shape > 0 whose
 * first normal is accepted, a beta (shapes >= 1) whose two gammas' are.
 * The normal is Box-Muller on block 0 through rmath_avx2.h (the text's
 * em_rs_n: cos half first, the sine half is the next normal), the squeeze's
 * uniform block 1's first (a beta's second gamma: its second).  Returns the
 * lanes done; the others are left to the text, which starts them afresh
 * with libm (so their values are libm's, and the done lanes' within ulps
 * of them). */
__attribute__((target("avx2,fma"))) static int
em__dist_fast4(const em__rand_ctx *c, const em__lanes *blk, int64_t g, int h, int cnt) {
    const em_random_req *r = c->req;
    const double *p0 = (const double *)r->p0->data, *p1 = (const double *)r->p1->data;
    /* the lanes that hold elements (a group cut short: cnt < 8), so that no
     * parameter is read, nor value stored, past the end */
    const __m256i in =
        _mm256_cmpgt_epi64(_mm256_set1_epi64x(cnt - h), _mm256_setr_epi64x(0, 1, 2, 3));
    const __m256d a = r->s0 ? _mm256_maskload_pd(p0 + g + h, in) : _mm256_set1_pd(p0[0]);
    __m256d cs, sn, ok;
    em__bm4(em__u53x4(&blk[0], 0, h), em__u53x4(&blk[0], 1, h), &cs, &sn);
    const int gam = r->kind == EM_RAND_GAMMA;
    __m256d x = em__gamma_try4(a, cs, em__u53x4(&blk[1], 0, h), gam, &ok);
    const int small =
        _mm256_movemask_pd(_mm256_and_pd(ok, _mm256_cmp_pd(a, _mm256_set1_pd(1.0), _CMP_LT_OQ)));
    if (small) { /* the text's d v pow(U, 1/k), U block 1's second uniform */
        double xs[4], as[4];
        _mm256_storeu_pd(xs, x), _mm256_storeu_pd(as, a);
        for (int l = 0; l < 4; l++)
            if (small >> l & 1) xs[l] *= pow(em__u53(em__b64(&blk[1], h + l, 1)), 1.0 / as[l]);
        x = _mm256_loadu_pd(xs);
    }
    __m256d res = x;
    if (!gam) {
        const __m256d b = r->s1 ? _mm256_maskload_pd(p1 + g + h, in) : _mm256_set1_pd(p1[0]);
        __m256d ok2;
        const __m256d y = em__gamma_try4(b, sn, em__u53x4(&blk[1], 1, h), 0, &ok2);
        ok = _mm256_and_pd(ok, ok2);
        res = _mm256_div_pd(x, _mm256_add_pd(x, y));
    }
    ok = _mm256_and_pd(ok, _mm256_castsi256_pd(in));
    _mm256_maskstore_pd((double *)c->data + g + h, _mm256_castpd_si256(ok), res);
    return _mm256_movemask_pd(ok);
}
#endif

#if defined(EM_HAVE_RMATH_AVX2)
/* The broadcast setup of NumPy's binomial inversion (em_rs_binv) or BTPE
 * (em_rs_btpe), as the text computes it per element: the same expressions,
 * so the same bits. */
typedef struct {
    int on;     /* one n and p for all, 0 < n < 2^52: 1 n r <= 30 (inversion), 2 BTPE */
    int mirror; /* p > 1/2: n - y */
    double n, p, q, qn, bound; /* the inversion's */
    double p1, xm, p4;         /* BTPE's */
} em__binv_setup;

static em__binv_setup em__binv_prepare(const em_random_req *r) {
    em__binv_setup b = {0};
    if (r->kind != EM_RAND_BINOMIAL || r->s0 || r->s1) return b;
    const int64_t n = (int64_t)((const double *)r->p0->data)[0];
    const double pp = ((const double *)r->p1->data)[0];
    if (n <= 0 || n >= ((int64_t)1 << 52) || !(pp > 0.0)) return b;
    const double p = pp > 0.5 ? 1.0 - pp : pp;
    b.mirror = pp > 0.5, b.n = (double)n, b.p = p;
    if (!((double)n * p <= 30.0)) { /* BTPE: its region 1, u <= p1 */
        const double r1 = p, q = 1.0 - r1, fm = (double)n * r1 + r1, nrq = (double)n * r1 * q;
        const int64_t m = (int64_t)floor(fm);
        const double p1 = floor(2.195 * sqrt(nrq) - 4.6 * q) + 0.5, xm = (double)m + 0.5;
        const double xl = xm - p1, xr = xm + p1, c = 0.134 + 20.5 / (15.3 + (double)m);
        double a = (fm - xl) / (fm - xl * r1);
        const double laml = a * (1.0 + a / 2.0);
        a = (xr - fm) / (xr * q);
        const double lamr = a * (1.0 + a / 2.0);
        const double p2 = p1 * (1.0 + 2.0 * c), p3 = p2 + c / laml, p4 = p3 + c / lamr;
        b.on = 2, b.p1 = p1, b.xm = xm, b.p4 = p4;
        return b;
    }
    b.on = 1, b.q = 1.0 - p;
    b.qn = exp((double)n * log(b.q));
    const double np = (double)n * p;
    b.bound = fmin((double)n, np + 10.0 * sqrt(np * b.q + 1.0));
    return b;
}

/* A double in [0, 2^52) that is an integer, as an int64. */
__attribute__((target("avx2,fma"))) static inline __m256i em__d2i(__m256d v) {
    return _mm256_sub_epi64(_mm256_castpd_si256(_mm256_add_pd(v, _mm256_set1_pd(0x1p52))),
                            _mm256_castpd_si256(_mm256_set1_pd(0x1p52)));
}

/* The integer samplers' first try, 4 elements at once, bit for bit the
 * text's (basic arithmetic only, in its order, nothing fused): a poisson's
 * inversion below lam = 10 (libm's exp(-lam)) and PTRS's quick acceptance
 * (us >= 0.07, V <= vr) at and above, and the
 * binomial inversion's walk up the CDF until it passes u and BTPE's region
 * 1 (one n and p for all).  The lanes left (PTRS's other tests, the
 * inversion's restart past its bound, BTPE's other regions) go to the text, from their start.  Returns the lanes done. */
__attribute__((target("avx2,fma"))) static int em__dist_int4(const em__rand_ctx *c,
                                                             const em__binv_setup *bs,
                                                             const em__lanes *blk, int64_t g, int h,
                                                             int cnt) {
    const em_random_req *r = c->req;
    const __m256i in =
        _mm256_cmpgt_epi64(_mm256_set1_epi64x(cnt - h), _mm256_setr_epi64x(0, 1, 2, 3));
    const __m256d u1 = em__u53x4(&blk[0], 0, h);
    __m256d ok;
    __m256i k;
    if (r->kind == EM_RAND_POISSON) {
        const double *p0 = (const double *)r->p0->data;
        const __m256d lam = r->s0 ? _mm256_maskload_pd(p0 + g + h, in) : _mm256_set1_pd(p0[0]);
        const __m256d slam = _mm256_sqrt_pd(lam);
        const __m256d b =
            _mm256_add_pd(_mm256_set1_pd(0.931), _mm256_mul_pd(_mm256_set1_pd(2.53), slam));
        const __m256d a =
            _mm256_add_pd(_mm256_set1_pd(-0.059), _mm256_mul_pd(_mm256_set1_pd(0.02483), b));
        const __m256d vr = _mm256_sub_pd(
            _mm256_set1_pd(0.9277),
            _mm256_div_pd(_mm256_set1_pd(3.6224), _mm256_sub_pd(b, _mm256_set1_pd(2.0))));
        const __m256d U = _mm256_sub_pd(u1, _mm256_set1_pd(0.5));
        const __m256d V = em__u53x4(&blk[0], 1, h);
        const __m256d us =
            _mm256_sub_pd(_mm256_set1_pd(0.5), _mm256_andnot_pd(_mm256_set1_pd(-0.0), U));
        __m256d kd = _mm256_div_pd(_mm256_mul_pd(_mm256_set1_pd(2.0), a), us);
        kd = _mm256_add_pd(_mm256_mul_pd(_mm256_add_pd(kd, b), U), lam);
        kd = _mm256_floor_pd(_mm256_add_pd(kd, _mm256_set1_pd(0.43)));
        /* (kd is PTRS's k where lam >= 10; the inversion's below) */
        ok = _mm256_and_pd(_mm256_cmp_pd(lam, _mm256_set1_pd(10.0), _CMP_GE_OQ),
                           _mm256_cmp_pd(lam, _mm256_set1_pd(0x1p50), _CMP_LT_OQ));
        ok = _mm256_and_pd(ok, _mm256_cmp_pd(us, _mm256_set1_pd(0.07), _CMP_GE_OQ));
        ok = _mm256_and_pd(ok, _mm256_cmp_pd(V, vr, _CMP_LE_OQ));
        ok = _mm256_and_pd(ok, _mm256_cmp_pd(kd, _mm256_setzero_pd(), _CMP_GE_OQ));
        /* PTRS's log test for the lanes that reach it with k >= 6 (em_loggam
         * without its recurrence), through rmath_avx2.h's log: a lane whose
         * test lands within ulps of its bound may decide otherwise than libm */
        __m256d t2 = _mm256_cmp_pd(lam, _mm256_set1_pd(10.0), _CMP_GE_OQ);
        t2 = _mm256_and_pd(t2, _mm256_cmp_pd(lam, _mm256_set1_pd(0x1p50), _CMP_LT_OQ));
        t2 = _mm256_and_pd(t2, _mm256_cmp_pd(kd, _mm256_set1_pd(6.0), _CMP_GE_OQ));
        t2 = _mm256_andnot_pd(ok, t2);
        t2 = _mm256_andnot_pd(_mm256_and_pd(_mm256_cmp_pd(us, _mm256_set1_pd(0.013), _CMP_LT_OQ),
                                            _mm256_cmp_pd(V, us, _CMP_GT_OQ)),
                              t2);
        if (_mm256_movemask_pd(t2)) {
            const __m256d invalpha = _mm256_add_pd(
                _mm256_set1_pd(1.1239),
                _mm256_div_pd(_mm256_set1_pd(1.1328), _mm256_sub_pd(b, _mm256_set1_pd(3.4))));
            /* inactive lanes get 1s: no special values in the way */
            const __m256d one = _mm256_set1_pd(1.0);
            const __m256d lv = em__rm_log(_mm256_blendv_pd(one, V, t2));
            const __m256d lia = em__rm_log(_mm256_blendv_pd(one, invalpha, t2));
            const __m256d hat = _mm256_add_pd(_mm256_div_pd(a, _mm256_mul_pd(us, us)), b);
            const __m256d lhs =
                _mm256_sub_pd(_mm256_add_pd(lv, lia), em__rm_log(_mm256_blendv_pd(one, hat, t2)));
            const __m256d x0 = _mm256_blendv_pd(_mm256_set1_pd(7.0), _mm256_add_pd(kd, one), t2);
            const __m256d x2 = _mm256_div_pd(one, _mm256_mul_pd(x0, x0));
            static const double cg[] = {
                1.796443723688307e-01,  -2.955065359477124e-02, 6.410256410256410e-03,
                -1.917526917526918e-03, 8.417508417508418e-04,  -5.952380952380952e-04,
                7.936507936507937e-04,  -2.777777777777778e-03, 8.333333333333333e-02};
            __m256d gg = _mm256_set1_pd(-1.39243221690590e+00);
            for (int j = 0; j < 9; j++)
                gg = _mm256_add_pd(_mm256_mul_pd(gg, x2), _mm256_set1_pd(cg[j]));
            __m256d gl =
                _mm256_add_pd(_mm256_div_pd(gg, x0), _mm256_set1_pd(0.91893853320467274178));
            gl = _mm256_add_pd(
                gl, _mm256_mul_pd(_mm256_sub_pd(x0, _mm256_set1_pd(0.5)), em__rm_log(x0)));
            gl = _mm256_sub_pd(gl, x0);
            const __m256d loglam = em__rm_log(_mm256_blendv_pd(one, lam, t2));
            const __m256d rhs = _mm256_sub_pd(
                _mm256_add_pd(_mm256_sub_pd(_mm256_setzero_pd(), lam), _mm256_mul_pd(kd, loglam)),
                gl);
            ok = _mm256_or_pd(ok, _mm256_and_pd(t2, _mm256_cmp_pd(lhs, rhs, _CMP_LE_OQ)));
        }
        /* 0 < lam < 10: the inversion, one uniform against the running CDF */
        const __m256d inv = _mm256_and_pd(_mm256_cmp_pd(lam, _mm256_setzero_pd(), _CMP_GT_OQ),
                                          _mm256_cmp_pd(lam, _mm256_set1_pd(10.0), _CMP_LT_OQ));
        const int im = _mm256_movemask_pd(_mm256_and_pd(inv, _mm256_castsi256_pd(in)));
        if (im) {
            double ls[4], es[4] = {0, 0, 0, 0};
            _mm256_storeu_pd(ls, lam);
            for (int l = 0; l < 4; l++)
                if (im >> l & 1) es[l] = r->s0 || l == 0 ? exp(-ls[l]) : es[0];
            const __m256d one = _mm256_set1_pd(1.0);
            __m256d p = _mm256_loadu_pd(es), cdf = p, x = _mm256_setzero_pd();
            __m256d live = _mm256_and_pd(inv, _mm256_cmp_pd(u1, cdf, _CMP_GT_OQ));
            while (_mm256_movemask_pd(live)) {
                x = _mm256_blendv_pd(x, _mm256_add_pd(x, one), live);
                p = _mm256_blendv_pd(p, _mm256_mul_pd(p, _mm256_div_pd(lam, x)), live);
                cdf = _mm256_blendv_pd(cdf, _mm256_add_pd(cdf, p), live);
                live = _mm256_and_pd(
                    live, _mm256_and_pd(_mm256_cmp_pd(u1, cdf, _CMP_GT_OQ),
                                        _mm256_cmp_pd(x, _mm256_set1_pd(200.0), _CMP_LT_OQ)));
            }
            const __m256d iok = _mm256_and_pd(inv, _mm256_cmp_pd(u1, cdf, _CMP_LE_OQ));
            kd = _mm256_blendv_pd(kd, x, iok);
            ok = _mm256_or_pd(ok, iok);
        }
        k = em__d2i(_mm256_and_pd(kd, ok));
    } else if (bs->on == 2) { /* u p4 <= p1: floor(xm - p1 v + u) */
        const __m256d u = _mm256_mul_pd(u1, _mm256_set1_pd(bs->p4)), p1 = _mm256_set1_pd(bs->p1);
        const __m256d v = em__u53x4(&blk[0], 1, h);
        __m256d y = _mm256_sub_pd(_mm256_set1_pd(bs->xm), _mm256_mul_pd(p1, v));
        y = _mm256_floor_pd(_mm256_add_pd(y, u));
        ok = _mm256_and_pd(_mm256_cmp_pd(u, p1, _CMP_LE_OQ),
                           _mm256_cmp_pd(y, _mm256_setzero_pd(), _CMP_GE_OQ));
        if (bs->mirror) y = _mm256_sub_pd(_mm256_set1_pd(bs->n), y);
        k = em__d2i(_mm256_and_pd(y, ok));
    } else {
        const __m256d n = _mm256_set1_pd(bs->n), p = _mm256_set1_pd(bs->p);
        const __m256d q = _mm256_set1_pd(bs->q), bound = _mm256_set1_pd(bs->bound);
        __m256d u = u1, px = _mm256_set1_pd(bs->qn), x = _mm256_setzero_pd();
        __m256d live = _mm256_cmp_pd(u, px, _CMP_GT_OQ), over = _mm256_setzero_pd();
        while (_mm256_movemask_pd(live)) {
            const __m256d x1 = _mm256_add_pd(x, _mm256_and_pd(live, _mm256_set1_pd(1.0)));
            over = _mm256_or_pd(over, _mm256_and_pd(live, _mm256_cmp_pd(x1, bound, _CMP_GT_OQ)));
            live = _mm256_andnot_pd(over, live);
            x = _mm256_blendv_pd(x, x1, live);
            u = _mm256_blendv_pd(u, _mm256_sub_pd(u, px), live);
            /* ((n - x + 1) p px) / (x q) */
            const __m256d num = _mm256_mul_pd(
                _mm256_mul_pd(_mm256_add_pd(_mm256_sub_pd(n, x), _mm256_set1_pd(1.0)), p), px);
            px = _mm256_blendv_pd(px, _mm256_div_pd(num, _mm256_mul_pd(x, q)), live);
            live = _mm256_and_pd(live, _mm256_cmp_pd(u, px, _CMP_GT_OQ));
        }
        ok = _mm256_andnot_pd(over, _mm256_castsi256_pd(_mm256_set1_epi64x(-1)));
        if (bs->mirror) x = _mm256_sub_pd(n, x);
        k = em__d2i(x);
    }
    ok = _mm256_and_pd(ok, _mm256_castsi256_pd(in));
    _mm256_maskstore_epi64((long long *)c->data + g + h, _mm256_castpd_si256(ok), k);
    return _mm256_movemask_pd(ok);
}
#endif

/* Elements [b, e) of an em_random_dist draw, EM__LANES at a time. */
static void em__dist_range(void *ctx, int64_t b, int64_t e, int worker) {
    EM_UNUSED(worker);
    const em__rand_ctx *c = ctx;
    const em_random_req *r = c->req;
    char *out = c->data;
    const double *p0 = (const double *)r->p0->data, *p1 = (const double *)r->p1->data;
    /* the blocks a typical element uses: a normal and a uniform for a gamma
     * (2), two gammas for a beta (3), one or two uniforms otherwise (1) */
    const int fast = em__rmath() && (r->kind == EM_RAND_GAMMA || r->kind == EM_RAND_BETA);
#if defined(EM_HAVE_RMATH_AVX2)
    const em__binv_setup bs = em__binv_prepare(r);
    const int ifast = em__rmath() && (r->kind == EM_RAND_POISSON || bs.on);
#endif
    /* (with the SIMD first try, a beta's third block is for the lanes it leaves) */
    const int nb = r->kind == EM_RAND_GAMMA || (fast && r->kind == EM_RAND_BETA) ? 2
                   : r->kind == EM_RAND_BETA                                     ? EM__DIST_MAXNB
                                                                                 : 1;
    /* BTPE's setup made once where n and p are one for all: the text's own
     * em_btpe_setup, so the same bits as per element (a fifth of a draw's
     * time went to redoing it for every element the SIMD try leaves) */
    em_btpe bt;
    int btpe = 0;
    int64_t bn = 0;
    double bp = 0.0, br = 0.0;
    if (r->kind == EM_RAND_BINOMIAL && !r->s0 && !r->s1) {
        bn = (int64_t)p0[0], bp = p1[0];
        br = bp > 0.5 ? 1.0 - bp : bp;
        /* em_rs_binomial's tests, in its order */
        btpe = !(bn <= 0 || !(bp > 0.0)) && !((double)bn * br <= 30.0);
        if (btpe) em_btpe_setup(&bt, bn, br);
    }
    em__lanes blk[EM__DIST_MAXNB];
    for (int64_t g = b; g < e; g += EM__LANES) {
        for (int j = 0; j < nb; j++)
            c->philox(r->key, r->counter + (uint64_t)g, (uint32_t)j, 0x44495354u, &blk[j]);
        const int64_t ge = e - g < EM__LANES ? e : g + EM__LANES;
        int done = 0; /* lanes the SIMD first try finished */
#if defined(EM_HAVE_RMATH_AVX2)
        /* every element the same way wherever its group is cut: a value
         * does not depend on how a draw is batched or split over threads */
        if (fast) {
            const int cnt = (int)(ge - g);
            done = em__dist_fast4(c, blk, g, 0, cnt);
            if (cnt > 4) done |= em__dist_fast4(c, blk, g, 4, cnt) << 4;
        } else if (ifast) {
            const int cnt = (int)(ge - g);
            done = em__dist_int4(c, &bs, blk, g, 0, cnt);
            if (cnt > 4) done |= em__dist_int4(c, &bs, blk, g, 4, cnt) << 4;
        }
#endif
        for (int64_t i = g; i < ge; i++) {
            if (done >> (i - g) & 1) continue;
            em__dist_state d = {.blk = blk, .nb = nb, .lane = (int)(i - g)};
            em_rs *s = &d.s;
            em_rs_init(s, r->key, r->counter + (uint64_t)i);
            const double a = p0[(uint64_t)i * r->s0], q = p1[(uint64_t)i * r->s1];
            if (r->kind == EM_RAND_GAMMA)
                ((double *)out)[i] = em_rs_gamma(s, a);
            else if (r->kind == EM_RAND_POISSON)
                ((int64_t *)out)[i] = em_rs_poisson(s, a);
            else if (r->kind == EM_RAND_BETA)
                ((double *)out)[i] = em_rs_beta(s, a, q);
            else if (btpe) {
                const int64_t y = em_rs_btpe_run(s, &bt, bn, br);
                ((int64_t *)out)[i] = bp > 0.5 ? bn - y : y;
            } else
                ((int64_t *)out)[i] = em_rs_binomial(s, (int64_t)a, q);
        }
    }
}

/* a is C-contiguous and writeable, its dtype checked by the core. */
em_status em_cpu_random(em_array *a, const em_random_req *req) {
    if (req->kind >= EM_RAND_GAMMA) {
        em__rand_ctx d = {.data = a->data, .n = em_array_size(a), .req = req};
        d.philox = em__philox_pick();
        em_parallel_for(d.n, 1024, em__dist_range, &d);
        return EM_OK;
    }
    em__rand_ctx c = {.data = a->data, .n = em_array_size(a), .req = req};
    c.itemsize = EM_DTYPE_SIZE(a->dtype);
    c.per_block = req->kind != EM_RAND_INTEGERS && c.itemsize == 4 ? 4 : 2;
    c.conv = em__pick(req->kind, c.itemsize);
    if (req->post == EM_RPOST_GEOMETRIC) { /* the float64 uniforms into int64 */
        c.per_block = 2;
#if defined(EM_HAVE_RMATH_AVX2)
        c.conv = em__rmath() ? em__conv_geom_avx2 : em__conv_geom;
#else
        c.conv = em__conv_geom;
#endif
    }
    c.philox = em__philox_pick();
    int64_t blocks = (c.n + c.per_block - 1) / c.per_block;
    /* Split at multiples of EM__LANES blocks, in jobs of >= 4096 blocks. */
    int64_t groups = (blocks + EM__LANES - 1) / EM__LANES;
    em_parallel_for(groups, 512, em__rand_groups, &c);
    return EM_OK;
}
