/* Philox4x32-10 (Salmon, Moraes, Dror, Shaw, "Parallel random numbers: as
 * easy as 1, 2, 3", SC 2011), with the constants of Random123, cuRAND and
 * NumPy's Philox.  A pure function of (counter, key): no state, so any block
 * of a stream can be computed anywhere, in any order, on any device.  Written
 * in the C subset that CUDA and OpenCL C also accept, so the GPU backends can
 * render the same text into their kernels. */
#ifndef EM_PHILOX_H
#define EM_PHILOX_H

#include <stdint.h>

#define EM_PHILOX_M0 0xD2511F53u
#define EM_PHILOX_M1 0xCD9E8D57u
#define EM_PHILOX_W0 0x9E3779B9u /* golden ratio */
#define EM_PHILOX_W1 0xBB67AE85u /* sqrt(3) - 1 */

/* One round: two 32x32->64 multiplies, the halves mixed with the key. */
static inline void em_philox_round(uint32_t c[4], const uint32_t k[2]) {
    uint64_t p0 = (uint64_t)EM_PHILOX_M0 * c[0];
    uint64_t p1 = (uint64_t)EM_PHILOX_M1 * c[2];
    uint32_t hi0 = (uint32_t)(p0 >> 32), lo0 = (uint32_t)p0;
    uint32_t hi1 = (uint32_t)(p1 >> 32), lo1 = (uint32_t)p1;
    uint32_t n0 = hi1 ^ c[1] ^ k[0], n2 = hi0 ^ c[3] ^ k[1];
    c[0] = n0;
    c[1] = lo1;
    c[2] = n2;
    c[3] = lo0;
}

/* out = Philox4x32-10(ctr, key): ten rounds, the key bumped between them. */
static inline void em_philox4x32_10(const uint32_t ctr[4], const uint32_t key[2],
                                    uint32_t out[4]) {
    uint32_t c[4] = {ctr[0], ctr[1], ctr[2], ctr[3]}, k[2] = {key[0], key[1]};
    for (int r = 0; r < 10; r++) {
        if (r) k[0] += EM_PHILOX_W0, k[1] += EM_PHILOX_W1;
        em_philox_round(c, k);
    }
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
