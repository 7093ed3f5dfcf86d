/* The partition kernels: NumPy's partition / argpartition of an array
 * whose k-th values the radix select has found (codegen/run_part.c drives
 * them).  One template for CUDA and OpenCL.
 *
 * kv holds the m selected values in ascending order (m distinct ranks).
 * Each element x falls in one of B = 2m + 1 buckets by its key (the
 * select's: NumPy's order, NaNs last): with c = #{j : key(kv[j]) <
 * key(x)}, bucket 2c + 1 when x's key is kv[c]'s, else 2c.  Written bucket
 * after bucket the output has every element below kv[0], then those equal
 * to it, then those between kv[0] and kv[1] ... -- the k-th position of
 * each selection lies inside its "equal" bucket, which is NumPy's contract
 * (the k-th element in place, no larger one before, no smaller one after).
 * Within a bucket the order is fixed (the same every run) but not the
 * input's: NumPy's partition promises none.
 *
 * Kernels (tiles of EM_PT_TILE elements, 256 threads x EM_PT_ITEMS striped
 * ones, tid + 256 i; each thread's per-bucket counts packed 4 to a 64-bit
 * word, 16 bits each, so one block scan serves 4 buckets):
 *  EM_PT_COUNT  part[b * ntile + t] = bucket b's count in tile t;
 *  EM_PT_PREFIX one block: part[0 .. B * ntile) -> exclusive prefixes (in
 *               that order: bucket-major is the output's order);
 *  EM_PT_WRITE  each element to its bucket's place: out[pos] = x (or its
 *               index, int64, with arg), the tile ordered by bucket in
 *               shared memory first so that the stores are coalesced.
 *
 * The number of selections m is an argument (one kernel per dtype serves
 * every m: the word loops run to the most words and skip the unused).
 *
 * Argument (packed, every field 8 bytes): char *a, *kv, *part, *out;
 *   long long n, ntile, m. */
#ifndef EM_RENDER_PART_H
#define EM_RENDER_PART_H

#include "codegen/dialect.h"
#include "codegen/render.h"

#define EM_PT_MAXK 8 /* selections per partition (17 buckets); more: the sort */
#define EM_PT_ITEMS 16
#define EM_PT_TILE (256 * EM_PT_ITEMS)

typedef enum em_pt_mode { EM_PT_COUNT, EM_PT_PREFIX, EM_PT_WRITE } em_pt_mode;

typedef struct em_pt_spec {
    int mode; /* em_pt_mode */
    em_dtype dtype;
    bool arg; /* WRITE: indices rather than values */
} em_pt_spec;

/* The kernel (named EM_KNAME) for k, prelude included; EM_EUNSUPPORTED for
 * the C dialect or a dtype without a key (complex). */
EM_API em_status em_render_part(const em_dialect *d, const em_pt_spec *k, em_sbuf *src);

#endif
