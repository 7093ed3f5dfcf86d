/* The unique kernels: the distinct values of a sorted array in one
 * flag-and-compact pass (codegen/run_unique.c drives them and explains the
 * algorithm).  One template for CUDA and OpenCL.
 *
 * The input s is sorted, C-contiguous, n elements.  Element i starts a new
 * value (its flag) when i == 0 or s[i] differs from s[i - 1]: == in s's
 * dtype, so -0.0 and 0.0 are one value and, with equal_nan, so are all
 * NaNs (they sort last, together; a complex one with a NaN part counts).
 * The flags are never stored: each kernel computes them from s.
 *
 * Kernels (tiles of EM_UQ_TILE elements, 256 threads x EM_UQ_ITEMS):
 *  EM_UQ_COUNT  the flags per tile into part[t];
 *  EM_UQ_PREFIX one block: part[0..ntile) -> exclusive prefixes, part[ntile]
 *               = the number of distinct values;
 *  EM_UQ_WRITE  per tile, each flagged i with rank k: vals[k] = s[i],
 *               first[k] = i (EM_UQ_FIRST), idx[k] = perm[i] (EM_UQ_IDX);
 *               every i: inv[perm[i]] = its value's rank (EM_UQ_INV);
 *  EM_UQ_COUNTS counts[k] = first[k + 1] - first[k] (first[nu] read as n;
 *               nu read from part[ntile], so it is queued before the host knows it);
 *  EM_UQ_ISIN   out[i] = whether s[i] is in the sorted o (no elements), a
 *               binary search per element (s in any order) among EM_UQ_SPL
 *               chunk heads of o in shared memory, then in one chunk;
 *               != invert;
 *  EM_UQ_MERGE  vals = the sorted s and o merged, stable (s first among
 *               equals): s[i] goes to i + #{o < s[i]}, o[j] to j + #{s <= o[j]};
 *               by merge path, a tile of EM_UQ_TILE outputs a block, its
 *               ends in s read from part[t], part[t + 1];
 *  EM_UQ_CUTS   part[t] = how many of the merge's first t * EM_UQ_TILE
 *               outputs come from s, t = 0 .. ntile (one thread each);
 *  EM_UQ_ONE    (CUDA, filt 0) COUNT, PREFIX and WRITE in one launch over
 *               tiles of 256 * em_uq_one_items(dtype, bytes) elements, each tile's
 *               first rank by decoupled look-back (render_scan.c's
 *               em_lookback): part holds a 16-byte ticket counter and one
 *               8-byte word a tile, zeroed by the host, then nu (written by
 *               the last tile); n < 2^31.
 * With filt (the set operations), COUNT and WRITE flag only the first of
 * each value whose membership in the sorted o (a binary search, == as the
 * dtype's, so a NaN is in nothing) is filt == 1 (in o) or filt == 2 (not in
 * o): intersect1d and setdiff1d in one pass over the sorted s.  filt == 3
 * (setxor1d's last pass) flags instead the elements equal to neither
 * neighbour, with equal_nan off (NaNs differ); o is s and no its length.
 *
 * Argument (packed, every field 8 bytes):
 *   char *s, *vals, *first, *perm, *idx, *inv, *cnt, *part, *o;
 *   long long n, nu, ntile, no
 */
#ifndef EM_RENDER_UNIQUE_H
#define EM_RENDER_UNIQUE_H

#include "codegen/dialect.h"
#include "codegen/render.h"

#define EM_UQ_ITEMS 16
#define EM_UQ_TILE (256 * EM_UQ_ITEMS)
#define EM_UQ_SPL 1024 /* ISIN: the chunk heads of o in shared memory */

typedef enum em_uq_mode {
    EM_UQ_COUNT,
    EM_UQ_PREFIX,
    EM_UQ_WRITE,
    EM_UQ_COUNTS,
    EM_UQ_ISIN,
    EM_UQ_MERGE,
    EM_UQ_CUTS,
    EM_UQ_ONE
} em_uq_mode;

typedef struct em_uq_spec {
    int mode;             /* em_uq_mode */
    em_dtype dtype;       /* s's */
    bool equal_nan;       /* all NaNs one value */
    bool first, idx, inv; /* EM_UQ_WRITE's (and EM_UQ_ONE's) optional outputs */
    bool vin;             /* EM_UQ_ONE: s is 16-byte aligned (a full tile's loads as vectors) */
    int minb;             /* EM_UQ_ONE: > 0, blocks an SM asked of the compiler (registers) */
    int bytes;            /* EM_UQ_ONE: a thread's bytes of the tile (0: EM_UQ_ONE_BYTES) */
    int lbq;              /* EM_UQ_ONE: look-back windows of 32 tiles a round trip (0: 1) */
    bool pf;              /* EM_UQ_ONE: the next tile's loads in flight during the look-back */
    int filt; /* COUNT/WRITE: 0, 1 keep values in o, 2 not in o, 3 those equal to neither
               * neighbour (o = s, no = n); ISIN: 1 invert */
} em_uq_spec;

#define EM_UQ_ONE_BYTES 64 /* a thread's bytes of the tile where the spec gives none */

/* EM_UQ_ONE's elements a thread for dtype dt: bytes of them (0:
 * EM_UQ_ONE_BYTES), 4 to 32 (a tile's flags are one 32-bit word a thread;
 * a row of 16 bytes, at least 2 rows). */
EM_API int em_uq_one_items(em_dtype dt, int bytes);

/* The kernel (named EM_KNAME) for k, prelude included; EM_EUNSUPPORTED for
 * the C dialect. */
EM_API em_status em_render_unique(const em_dialect *d, const em_uq_spec *k, em_sbuf *src);

#endif
