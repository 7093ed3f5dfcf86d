/* Stream compaction of one block of values by its truth bytes (a[mask],
 * compress, extract on the CPU: backend/cpu/index.c). */
#ifndef EM_CPU_COMPACT_H
#define EM_CPU_COMPACT_H

#include <stdint.h>

/* Appends the values of src[0, cnt) (each size bytes) whose truth byte in
 * m is nonzero to dst, in order, and returns how many.  dst must have room
 * for cnt + EM_COMPACT_SLACK values: a vector path stores whole registers. */
typedef int64_t (*em_compact_fn)(const char *src, const uint8_t *m, int64_t cnt, char *dst);

enum { EM_COMPACT_SLACK = 8 };

/* The fastest compaction of size-byte values on this CPU. */
em_compact_fn em_compact_pick(int size);

#endif
