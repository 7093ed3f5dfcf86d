/* Contiguous dtype conversion and strided gather/scatter for the CPU.
 * Conversions follow NumPy's unsafe casting: complex -> real keeps the real
 * part, anything -> bool tests for nonzero, float -> int truncates.  Float
 * values out of the target's range (and NaN) never reach C's undefined
 * behaviour: for int8/16/32 and uint8/16 the results equal NumPy's on x86
 * (through int32, INT32_MIN when out of range); for int64 they are the
 * "integer indefinite" INT64_MIN; for uint32/uint64 they are defined but may
 * differ from NumPy's, which warns "invalid value encountered in cast". */
#ifndef EM_CPU_CAST_H
#define EM_CPU_CAST_H

#include "ember/ember.h"

/* Put before a loop function to compile it three times -- AVX-512 (x86-64-v4),
 * AVX2 and the x86-64 baseline -- and pick one at load time (an ifunc).  The
 * casts use it: simple loops that the compiler vectorises run up to several
 * times faster on wide vectors, while the build stays portable.  Results do
 * not change (no FP contraction; conversions are exact or correctly
 * rounded).  Typed loops elsewhere may use it the same way. */
#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__) && defined(__linux__)
#if __GNUC__ >= 12 /* x86-64-v4 as a clone target */
#define EM_CLONES __attribute__((target_clones("arch=x86-64-v4", "avx2", "default")))
#else
#define EM_CLONES __attribute__((target_clones("avx2", "default")))
#endif
#else
#define EM_CLONES
#endif

typedef void (*em_cast_fn)(int64_t n, const void *src, void *dst);
/* em_cast_table[from][to]; the diagonal is a memcpy. */
extern const em_cast_fn em_cast_table[EM_NDTYPES][EM_NDTYPES];

/* n elements of size bytes from src (byte stride) into contiguous dst, and back. */
void em_gather(int64_t n, int size, const char *src, int64_t stride, char *dst);
void em_scatter(int64_t n, int size, const char *src, char *dst, int64_t stride);

#endif
