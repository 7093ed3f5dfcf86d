/* Stream compaction for a[mask] on the CPU.
 *
 * The portable path is branchless (a mask is unpredictable: a branch per
 * element cost 10x NumPy's compress): every value is stored at a cursor that
 * advances only on a true.  That is a store and a dependent add per element,
 * which left a[mask] of float32 slower than NumPy's compress on one thread.
 * With AVX2, 4- and 8-byte values go 8 (or 4) at a time: the truth bytes
 * become a bit mask (compare with zero, movemask), a table turns the mask
 * into the indices of its set lanes, one permute packs those lanes to the
 * front and one full-width store writes them; the cursor advances by the
 * mask's popcount.  The store writes lanes past the last kept one, which is
 * why dst has EM_COMPACT_SLACK values of room past cnt. */
#include "backend/cpu/compact.h"

#include <pthread.h>
#include <string.h>

#define EM__COMPACT_PORTABLE(T)                                                                 \
    static int64_t em__compact_##T(const char *src, const uint8_t *m, int64_t cnt, char *dst) { \
        const T *s = (const T *)src;                                                            \
        T *d = (T *)dst;                                                                        \
        int64_t k = 0;                                                                          \
        for (int64_t j = 0; j < cnt; j++) {                                                     \
            d[k] = s[j];                                                                        \
            k += m[j] != 0;                                                                     \
        }                                                                                       \
        return k;                                                                               \
    }
EM__COMPACT_PORTABLE(uint8_t)
EM__COMPACT_PORTABLE(uint16_t)
EM__COMPACT_PORTABLE(uint32_t)
EM__COMPACT_PORTABLE(uint64_t)
#undef EM__COMPACT_PORTABLE

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>

/* Row b: the 32-bit lane indices that pack the set bits of b to the front,
 * for 8 lanes of 4 bytes (lut32) and 4 lanes of 8 bytes (lut64, b < 16: the
 * two halves 2i, 2i + 1 of each kept lane i).  Filled once. */
static uint8_t em__lut32[256][8], em__lut64[16][8];
static pthread_once_t em__lut_once = PTHREAD_ONCE_INIT;

static void em__lut_init(void) {
    for (int b = 0; b < 256; b++) {
        int k = 0;
        for (int i = 0; i < 8; i++)
            if (b >> i & 1) em__lut32[b][k++] = (uint8_t)i;
    }
    for (int b = 0; b < 16; b++) {
        int k = 0;
        for (int i = 0; i < 4; i++)
            if (b >> i & 1) {
                em__lut64[b][k++] = (uint8_t)(2 * i);
                em__lut64[b][k++] = (uint8_t)(2 * i + 1);
            }
    }
}

/* The truth bits of m[0, 8): bit i set where m[i] != 0. */
__attribute__((target("avx2"))) static inline unsigned em__bits8(const uint8_t *m) {
    const __m128i z = _mm_cmpeq_epi8(_mm_loadl_epi64((const __m128i *)m), _mm_setzero_si128());
    return ~(unsigned)_mm_movemask_epi8(z) & 0xffu;
}

__attribute__((target("avx2,popcnt"))) static int64_t
em__compact4_avx2(const char *src, const uint8_t *m, int64_t cnt, char *dst) {
    int64_t k = 0, j = 0;
    for (; j + 8 <= cnt; j += 8) {
        const unsigned b = em__bits8(m + j);
        const __m256i idx = _mm256_cvtepu8_epi32(_mm_loadl_epi64((const __m128i *)em__lut32[b]));
        const __m256i v = _mm256_loadu_si256((const __m256i *)(src + 4 * j));
        _mm256_storeu_si256((__m256i *)(dst + 4 * k), _mm256_permutevar8x32_epi32(v, idx));
        k += __builtin_popcount(b);
    }
    return k + em__compact_uint32_t(src + 4 * j, m + j, cnt - j, dst + 4 * k);
}

__attribute__((target("avx2,popcnt"))) static int64_t
em__compact8_avx2(const char *src, const uint8_t *m, int64_t cnt, char *dst) {
    int64_t k = 0, j = 0;
    for (; j + 8 <= cnt; j += 8) {
        const unsigned b = em__bits8(m + j);
        for (int h = 0; h < 2; h++) { /* 4 values a register */
            const unsigned bh = b >> (4 * h) & 15u;
            const __m256i idx =
                _mm256_cvtepu8_epi32(_mm_loadl_epi64((const __m128i *)em__lut64[bh]));
            const __m256i v = _mm256_loadu_si256((const __m256i *)(src + 8 * (j + 4 * h)));
            _mm256_storeu_si256((__m256i *)(dst + 8 * k), _mm256_permutevar8x32_epi32(v, idx));
            k += __builtin_popcount(bh);
        }
    }
    return k + em__compact_uint64_t(src + 8 * j, m + j, cnt - j, dst + 8 * k);
}
#endif

em_compact_fn em_compact_pick(int size) {
#if defined(__x86_64__) || defined(__i386__)
    if ((size == 4 || size == 8) && __builtin_cpu_supports("avx2") &&
        __builtin_cpu_supports("popcnt")) {
        pthread_once(&em__lut_once, em__lut_init);
        return size == 4 ? em__compact4_avx2 : em__compact8_avx2;
    }
#endif
    switch (size) {
    case 1: return em__compact_uint8_t;
    case 2: return em__compact_uint16_t;
    case 4: return em__compact_uint32_t;
    case 8: return em__compact_uint64_t;
    default: return NULL;
    }
}
