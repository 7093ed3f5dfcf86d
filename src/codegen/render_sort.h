/* The radix-sort renderer: the kernels of a stable LSD radix sort (and the
 * binary search that shares its keys) as one source per spec, in the
 * dialect-neutral subset (CUDA C and OpenCL C render from the same text;
 * codegen/run_sort.c drives them and explains the algorithm).
 *
 * Keys.  Every element maps to unsigned bits whose unsigned order is
 * NumPy's sort order (em_sort_key_bits): bool and unsigned as they are,
 * signed with the sign bit flipped, floats with the sign bit flipped for
 * positives and all bits flipped for negatives, every NaN the largest key
 * (last, as NumPy), -0.0 the key of +0.0 when spec.canon (ties then keep
 * their order); complex values in NumPy's four classes (numbers by real
 * then imaginary part, then imaginary NaN by real, real NaN by imaginary,
 * both NaN: render_sort.c's em_ck), complex64 as one 64-bit key (high word
 * << 32 | low word), complex128 as two 64-bit words (word 1 the high).
 * Descending flips the key's bits (NaNs then first, as the Array API's
 * descending argsort of NumPy's order).
 *
 * Kernels (names EM_SORT_*), all grid-stride over blocks of EM_SORT_B
 * threads; a tile is EM_SORT_TILE consecutive elements:
 *   KEYS    keys[i] = key of element src(i) (word p.word: 0 low, 1 the
 *           real part of complex128, 2 the segment src / len); src(i) = i,
 *           or vals_in[i] when p.mode == 1 (a later word gathered through
 *           the permutation so far); with p.mode == 0 and p.hasvals,
 *           vals_out[i] = i.  Per tile, the OR and the AND of its keys.
 *   ORAND   one block: the OR and AND over all tiles (a digit where they
 *           agree is the same in every key: that pass is skipped).
 *   COUNT   per tile, the number of keys of each 4-bit digit at p.shift:
 *           counts[digit * nb + tile].
 *   SCAN    one block per digit: its row of counts scanned (exclusive) in
 *           place; the row's total to counts[16 * nb + digit].
 *   SCATTER per tile, each key's stable rank among the tile's keys of its
 *           digit; written to keys_out (and its value to vals_out) at the
 *           digit's start + the tiles' before it + that rank.
 *   OUT     p.mode 0: out[i] = the value decoded from keys[i] (sort,
 *           one word); 1: out[i] = element vals[i] (sort through the
 *           permutation); 2: out[i] = vals[i] % len (argsort, int64).
 *   SEARCH  searchsorted: out (b5, int64) [i] for element i of the needles
 *           (b1, C order over shape/st) = the number of elements of the
 *           sorted 1-D haystack (b0: len elements hst bytes apart, read
 *           through the int64 sorter b3 when p.hasvals) whose key is < its
 *           key (side left, p.mode 0) or <= (side right, p.mode 1).
 *   SEARCH_SH the same with the haystack's keys (one word) in shared memory:
 *           all of them, or EM_SORT_SEARCH_KEYS samples that narrow the
 *           global search (render_sort.c).
 *
 * Input elements (b0 for the sort kernels) are addressed by their C-order
 * index over shape/st: the sort runs along the last dimension, so row r of
 * the output is segment r.
 *
 * Argument (the template form of codegen/tmpl.h): seven buffers b0..b6
 * (b6: the output of the onesweep kernels' fused last pass),
 * then em_i64 n, len, nb, shift, mode, word, hasvals, hst, shape[EM_ND],
 * st[EM_ND] (byte strides), all 8 bytes; CUDA takes it as one struct,
 * OpenCL as each buffer and its offset then the struct with the buffers'
 * slots as numbers (em_run_launch packs both from one layout).
 */
#ifndef EM_RENDER_SORT_H
#define EM_RENDER_SORT_H

#include "codegen/render.h"

#define EM_SORT_B 256    /* threads per block, every kernel */
#define EM_SORT_ITEMS 16 /* keys per thread in a tile */
#define EM_SORT_TILE (EM_SORT_B * EM_SORT_ITEMS)
#define EM_SORT_RADIX 16 /* 4-bit digits: 16 x 256 per-thread counters fit shared memory */
#define EM_SORT_NBUF 8
#define EM_SORT_KEYS "em_sort_keys"
#define EM_SORT_ORAND "em_sort_orand"
#define EM_SORT_COUNT "em_sort_count"
#define EM_SORT_SCAN "em_sort_scan"
#define EM_SORT_SCATTER "em_sort_scatter"
#define EM_SORT_OUT "em_sort_out"
#define EM_SORT_SEARCH "em_sort_search"
#define EM_SORT_SEARCH_SH "em_sort_search_sh"
/* The onesweep kernels (CUDA only: render_onesweep.c explains them). */
#define EM_SORT_CLEAR "em_sort_clear"
#define EM_SORT_UPSWEEP "em_sort_upsweep"
#define EM_SORT_ONESWEEP "em_sort_onesweep"
#define EM_SORT_ROWS "em_sort_rows"
/* Rows from this long to a tile go to ROWS (a block per row); shorter
 * ones, many to a block being better than one, sort as segments of the
 * whole (the row in the key's high bits). */
#define EM_SORT_ROWS_MIN 512
#define EM_SORT_SEARCH_KEYS 2048     /* haystack keys in shared memory (SEARCH_SH) */
#define EM_SORT_META_WORDS (9 * 256) /* the metadata's 32-bit words before the tile status */

typedef struct em_sort_spec {
    em_dtype dtype; /* the elements' */
    int keybits;    /* 32 or 64: the width of the keys buffer */
    bool descending;
    bool canon; /* -0.0 keyed as +0.0 (stable ties); off only where keys are decoded */
    bool seghi; /* the segment (src / len) in the key's high 32 bits */
    int nd;     /* 1 <= nd <= EM_MAXDIMS: dimensions of the addressed array */
    /* The onesweep pass kernel's shape (CUDA; 0: the defaults below):
     * ob threads a block, oi keys a thread (a tile of ob * oi keys), om
     * blocks an SM for the register bound (0: none), ov whether values
     * travel with the keys (then every kernel's em_val_t, the values'
     * scratch, is 32-bit: the onesweep sort takes fewer than 2^30 keys). */
    int ob, oi, om;
    bool ov;
    /* The pass kernel's lanes of one digit find each other by the
     * __match_any_sync instruction, not 8 ballots (EMBER_SORT_MATCH=1;
     * slower on the H100: sort f32 2^24 0.839 ms against 0.697). */
    bool omatch;
    /* The pass kernel's variants, bits (EMBER_SORT_VAR; run_sort.c's
     * em__os_shape picks): 1 a whole tile skips the tests of its end, 2
     * (keys alone) ranking moves each key into shared memory at once, the
     * warps' counters in words of their own, 4 the first pass loads all
     * its elements before it keys any, 8 UPSWEEP loads 8 keys a thread
     * before counting them, 16 a lane's peers by CUB's PTX vote, 32
     * UPSWEEP reads a contiguous array of 4-byte keys as 16-byte vectors. */
    int ovar;
    /* The fused argsort's last pass also writes the sorted values into b7
     * (em_run_argsort_keys: unique's inverse needs both, and a gather of
     * the values through the indices costs a pass of its own). */
    bool okeys;
    /* SEARCH_SH's old form (EMBER_SEARCH_OLD=1, for A/B timing): an
     * unpadded shared haystack and a branching search. */
    bool sold;
} em_sort_spec;

#define EM_SORT_OS_B 256 /* the pass kernel's default block and keys a thread */
#define EM_SORT_OS_ITEMS 16

/* The pass kernel's static shared memory in bytes for a shape (CUDA takes
 * at most 48 KiB without opting in). */
EM_API int em_sort_os_smem(int ob, int oi, int keybits, bool ov, int ovar);

/* Bits of one key word of dt (8, 16, 32 or 64; complex128: 64 per word). */
EM_API int em_sort_key_bits(em_dtype dt);
/* The source, prelude included.  EM_EUNSUPPORTED for the C dialect (the
 * CPU sorts with NumPy's host functions) and for 64-bit keys where the
 * dialect has no 64-bit integers; EM_EVALUE for a bad spec. */
EM_API em_status em_render_sort(const em_dialect *d, const em_sort_spec *c, em_sbuf *src);
/* Append the onesweep kernels for a dialect that has them (CUDA), else nothing. */
void em_render_sort_onesweep(const em_dialect *d, em_sbuf *src);
/* The structural key (everything the source depends on). */
EM_API void em_sort_key(const em_sort_spec *c, em_sbuf *key);

#endif
