/* The radix select kernels: the k-th smallest elements of an array without
 * sorting it (codegen/run_select.c drives them and explains the algorithm).
 * One template for CUDA and OpenCL.
 *
 * Each element maps to an unsigned key of its width whose order is NumPy's
 * sort order: integers with the sign bit flipped, floats with every bit
 * flipped when negative and the sign bit set when not, every NaN the
 * largest key (NaNs sort last).  A selection s of the EM_SEL_N in one launch
 * keeps its state in st: the key prefix fixed so far and the rank k still
 * to find among the keys with that prefix, then a histogram of 256 counts.
 *
 * Kernels:
 *  EM_SEL_HIST  count the keys whose digits above `shift + 8` equal the
 *               prefix's (hmask says which bits), by their 8-bit digit at
 *               shift: per block in shared memory, then added to st;
 *               selections with one prefix (every one on the first pass, a
 *               median's two middle ranks until their digits part) share
 *               the first one's histogram: one shared-memory atomic per
 *               key, not one per selection (the atomics bound this pass);
 *  EM_SEL_PICK  one block: each selection's bucket holding its rank k in
 *               the histogram of its prefix -- the digit joins the prefix,
 *               k drops by the counts below it, the histograms are zeroed
 *               for the next pass;
 *  EM_SEL_OUT   out[s] = the value whose key is the prefix (all digits fixed).
 *
 * Argument (packed, every field 8 bytes): char *a, *st, *out;
 *   long long n, shift; unsigned long long hmask.
 * st: EM_SEL_N x {unsigned long long prefix, k}, then EM_SEL_N x 256
 * unsigned int counts. */
#ifndef EM_RENDER_SELECT_H
#define EM_RENDER_SELECT_H

#include "codegen/dialect.h"
#include "codegen/render.h"

#define EM_SEL_MAXN 8 /* selections per launch: percentile([5, 50, 95])'s 6 in one */

typedef enum em_sel_mode { EM_SEL_HIST, EM_SEL_PICK, EM_SEL_OUT } em_sel_mode;

typedef struct em_sel_spec {
    int mode; /* em_sel_mode */
    em_dtype dtype;
    int nsel; /* 1..EM_SEL_MAXN */
} em_sel_spec;

/* Whether dt has a key (bool, integers, float16/32/64). */
EM_API bool em_sel_dtype_ok(em_dtype dt);
/* Template text defining em_key(em_t) -> EM_K, the unsigned key whose order
 * is NumPy's sort order (every NaN one largest key), and em_unkey back; the
 * text before it typedefs em_t and EM_K (the dtype's width, 32 bits at
 * least).  The partition kernels (render_part.c) share it. */
EM_API void em_render_sel_keys(const em_dialect *d, em_dtype dt, em_sbuf *t);
/* The kernel (named EM_KNAME) for k, prelude included; EM_EUNSUPPORTED for
 * the C dialect or a dtype without a key. */
EM_API em_status em_render_select(const em_dialect *d, const em_sel_spec *k, em_sbuf *src);

#endif
