/* The gather, scatter and nonzero kernels (codegen/run_gather.c drives
 * them; it documents the algorithms).
 *
 * A gather position b (one of the broadcast index shape B) addresses a's
 * first m dimensions -- one index array per dimension, or one array of flat
 * C-order positions -- and selects the block a[pos, ...] of the remaining
 * dimensions.  Kernels copy elements by size (1..16 bytes), so one kernel
 * serves every dtype of that size.  Argument (packed, all fields 8 bytes):
 *   char *a, *buf; const long long *ix[nidx]; long long *err; int *win;
 *   unsigned char *keep; long long nb, inner, total;
 *   long long ashape[m], ast[m], rshape[r], rst[r]
 */
#ifndef EM_RENDER_GATHER_H
#define EM_RENDER_GATHER_H

#include "codegen/dialect.h"
#include "codegen/render.h"

/* The kernels: copy out (take), mark winners, keep the last writers
 * (through the winner array or by comparing with later positions), copy in
 * (put), and nonzero's count, prefix and coordinates passes. */
typedef enum em_gather_mode {
    EM_G_TAKE,
    EM_G_WIN,
    EM_G_KEEP,
    EM_G_DUPS,
    EM_G_PUT,
    EM_G_COUNT,
    EM_G_PREFIX,
    EM_G_COORDS,
    EM_G_SELECT /* nonzero's third pass writing the selected values: a[mask] */
} em_gather_mode;

/* nonzero tiles: 256 threads x 16 consecutive elements. */
#define EM_NZ_ITEMS 16
#define EM_NZ_TILE (256 * EM_NZ_ITEMS)

typedef struct em_gather_spec {
    int mode, size; /* size: element bytes (copy kinds) */
    int m, nidx, r; /* indexed dims, index arrays, rest dims (>= 1) */
    bool stage;     /* CUDA, COUNT/COORDS/SELECT: warp-shuffle block scans, and the tile's
                     * selected values (1-d positions, values <= 8 bytes) compacted in
                     * shared memory and written out coalesced (render_gather.c) */
} em_gather_spec;

/* The kernel (named EM_KNAME) for k, prelude included.  CUDA only so far. */
EM_API em_status em_render_gather(const em_dialect *d, const em_gather_spec *k, em_sbuf *src);

#endif
