/* The cache of freed device blocks behind the device pools (CUDA's
 * cuda/pool.c, OpenCL's opencl/mem.c): the policy they share.
 *
 * Sizes are rounded up to 512 bytes.  A freed block is kept, not freed,
 * with the stream (queue) it was freed on, and reused only on that stream
 * -- work queued there before the free then runs before the new owner's --
 * for a request of at least half its size (the best fit wins; an exact one
 * ends the search).  Each pool releases the blocks itself (drain) when an
 * allocation would pass its limit or the driver refuses one.  The caller
 * holds its pool's lock around every call. */
#ifndef EM_BLOCKCACHE_H
#define EM_BLOCKCACHE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define EM_BLOCK_ROUND ((size_t)512)

typedef struct em_block {
    uint64_t handle; /* the pool's: a device address, a slot (never 0) */
    size_t size;
    const void *stream; /* freed on this stream: reused only there */
    struct em_block *next;
} em_block;

typedef struct em_block_cache {
    em_block *list;  /* the cached blocks */
    em_block *nodes; /* list nodes not in use: a small op frees and takes one */
    size_t bytes;    /* the cached blocks' sizes, summed */
} em_block_cache;

/* n bytes rounded up to a whole number of EM_BLOCK_ROUND (0 takes one);
 * the caller has checked that n + EM_BLOCK_ROUND does not overflow. */
static inline size_t em_block_round(size_t n) {
    return n ? (n + EM_BLOCK_ROUND - 1) / EM_BLOCK_ROUND * EM_BLOCK_ROUND : EM_BLOCK_ROUND;
}

/* Take the best-fitting block freed on stream for a request of size bytes
 * out of the cache; 0 when none fits. */
uint64_t em_block_take(em_block_cache *c, size_t size, const void *stream);
/* Keep a freed block; false when there is no host memory for its node (the
 * caller frees the block). */
bool em_block_keep(em_block_cache *c, uint64_t handle, size_t size, const void *stream);
/* Empty the cache, handing each block to release (NULL: forget them, as
 * after a device reset took their memory). */
void em_block_drain(em_block_cache *c, void (*release)(void *ctx, uint64_t handle, size_t size),
                    void *ctx);

#endif
