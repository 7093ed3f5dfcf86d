/* Philox4x32-10 (Salmon, Moraes, Dror, Shaw, "Parallel random numbers: as
 * easy as 1, 2, 3", SC 2011), with the constants of Random123, cuRAND and
 * NumPy's Philox.  A pure function of (counter, key): no state, so any block
 * of a stream can be computed anywhere, in any order, on any device.
 *
 * The function is written once, below, as the macro EM__PHILOX_TEXT in the
 * C subset that CUDA C and OpenCL C also accept.  The host expands it
 * (em_philox: the CPU backend and the tests); the kernel renderer pastes its
 * stringified tokens (em_philox_src) into device source after defining the
 * three names it leaves open: EM_PHILOX_FN (the dialect's helper-function
 * qualifiers), em_u32 (the prelude's unsigned 32-bit type) and em_mulhi32
 * (the high half of a 32x32-bit product: __umulhi, mul_hi, or a 64-bit
 * multiply).  So there is one round function; the CPU's SIMD lanes
 * (backend/cpu/random.c) are an optimisation that tests/c/test_random.c
 * checks against it. */
#ifndef EM_PHILOX_H
#define EM_PHILOX_H

#include <stdint.h>

#define EM_PHILOX_M0 0xD2511F53u
#define EM_PHILOX_M1 0xCD9E8D57u
#define EM_PHILOX_W0 0x9E3779B9u /* golden ratio */
#define EM_PHILOX_W1 0xBB67AE85u /* sqrt(3) - 1 */

/* Ten rounds on c in place, the key bumped between rounds; each round is
 * two 32x32->64 multiplies whose halves are mixed with the key.  The body
 * names no macro of its own (the constants are spelled out) so that its
 * stringified form needs nothing but the three open names. */
#define EM__PHILOX_TEXT(FN, U32, MULHI)                                         \
    FN void em_philox(U32 c[4], U32 k0, U32 k1) {                               \
        for (int r = 0; r < 10; r++) {                                          \
            if (r) {                                                            \
                k0 += 0x9E3779B9u;                                              \
                k1 += 0xBB67AE85u;                                              \
            }                                                                   \
            const U32 hi0 = MULHI(0xD2511F53u, c[0]), lo0 = 0xD2511F53u * c[0]; \
            const U32 hi1 = MULHI(0xCD9E8D57u, c[2]), lo1 = 0xCD9E8D57u * c[2]; \
            const U32 n0 = hi1 ^ c[1] ^ k0, n2 = hi0 ^ c[3] ^ k1;               \
            c[0] = n0;                                                          \
            c[1] = lo1;                                                         \
            c[2] = n2;                                                          \
            c[3] = lo0;                                                         \
        }                                                                       \
    }

#define EM__PHILOX_STR(...) #__VA_ARGS__
#define EM__PHILOX_XSTR(...) EM__PHILOX_STR(__VA_ARGS__)
/* The device text: one line, "EM_PHILOX_FN void em_philox(em_u32 c[4], ...". */
#define EM_PHILOX_SRC EM__PHILOX_XSTR(EM__PHILOX_TEXT(EM_PHILOX_FN, em_u32, em_mulhi32))

/* The host copy. */
#define EM__PHILOX_MULHI(a, b) ((uint32_t)(((uint64_t)(a) * (b)) >> 32))
EM__PHILOX_TEXT(static inline, uint32_t, EM__PHILOX_MULHI)

/* out = Philox4x32-10(ctr, key). */
static inline void em_philox4x32_10(const uint32_t ctr[4], const uint32_t key[2], uint32_t out[4]) {
    uint32_t c[4] = {ctr[0], ctr[1], ctr[2], ctr[3]};
    em_philox(c, key[0], key[1]);
    out[0] = c[0], out[1] = c[1], out[2] = c[2], out[3] = c[3];
}

/* Block j of the stream (key, counter), as ember.h defines it. */
static inline void em_philox_block(uint64_t key, uint64_t counter, uint64_t j, uint32_t out[4]) {
    uint64_t c = counter + j;
    uint32_t ctr[4] = {(uint32_t)c, (uint32_t)(c >> 32), 0, 0};
    uint32_t k[2] = {(uint32_t)key, (uint32_t)(key >> 32)};
    em_philox4x32_10(ctr, k, out);
}

#endif
