/* The reduction renderer: a reduction of one array -> kernel source.
 *
 * Data model: the input's axes split into kept ("outer", one output element
 * per index) and reduced ("inner", m elements per output).  A work unit is
 * (output o, split s): when there are few outputs, each output's m elements
 * are split into nsplit interleaved parts so that the whole device works;
 * pass 1 (em_kernel) reduces each unit in one block or one warp -- a
 * strided loop per thread, then a tree in shared memory or warp shuffles
 * -- and writes either the final value
 * (nsplit == 1) or a partial state; pass 2 (em_kernel2, rendered in block
 * mode only: a warp's units are never split) combines the nsplit states of
 * each output.  The state and its four functions (identity, load,
 * combine, final) are rendered per op; the kernels are the same text for
 * every op.  Offsets are 64-bit; loop indices (em_ix: units, groups,
 * elements within a unit) are 32-bit where the plan's extents leave room
 * (the key says "|I").
 *
 * Planning drops size-1 dims and merges neighbouring kept dims (and
 * neighbouring reduced dims) over which every operand read steps whole
 * (em__merge_dims): the output index and the flat reduced index k name
 * the same elements as before the merge, so the combination order -- and
 * every result, bit for bit -- does not depend on it.
 *
 * The kernels are one template (codegen/tmpl.h) for CUDA and OpenCL; CUDA
 * alone has warp shuffles (OpenCL's warp units meet in local memory) and
 * the wide loads (em_ldg, em_pack).
 *
 * Argument (em_rplan_args): char *in, *out, *part; long long nout, m,
 * nsplit; double ddof; long long oshape[no], ost[no], ishape[ni],
 * ist[ni]  (byte strides; no, ni >= 1).
 */
#ifndef EM_RENDER_REDUCE_H
#define EM_RENDER_REDUCE_H

#include "codegen/render.h"

#define EM_RSTATE_MAX 48 /* bytes of the largest partial state */

typedef struct em_rplan {
    em_reduce_op op;
    em_dtype in, acc, out; /* input, accumulate and output dtypes */
    char *data, *outp, *part;
    int no, ni;
    int64_t oshape[EM_MAXDIMS], ost[EM_MAXDIMS], ishape[EM_MAXDIMS], ist[EM_MAXDIMS];
    int64_t nout, m, nsplit;
    double ddof;
    /* warp: one warp per work unit instead of one block (short reductions
     * of many outputs: no block-wide barrier per output). */
    int warp;
    /* col: the column form (em_rplan_columns says when it can run): the
     * outputs' innermost dim is contiguous and the reduced dims are not, so
     * 32 neighbouring outputs share a block, each thread reading a row of
     * them at a time (coalesced) and folding its rows; nsplit cuts the rows
     * into chunks, one block each, whose states pass 2 combines per output
     * (part is then split-major: part[s * nout + o]). */
    int col;
    /* lastrun: the product of the array's trailing kept (logical) dims, 0
     * when its last axis is reduced.  A fused reduction picks the column form
     * by it, not by its leaves' strides: then it sums in the order that the
     * unfused one, over a C-contiguous temporary, does (fused equals unfused
     * bit for bit).  For a C-contiguous input the two rules agree. */
    int64_t lastrun;
    /* A fused producer (em_rplan_fuse): the input values are root's,
     * computed per element from its leaves instead of loaded from data.
     * Leaf k's byte strides over the kept / reduced dims: lost, list. */
    const em_node *root;
    em_kplan tree;
    int64_t lost[EM_KMAXOPS][EM_MAXDIMS], list[EM_KMAXOPS][EM_MAXDIMS];
} em_rplan;

/* Plan op over axes (naxes < 0: all) of a into out (C-contiguous, size =
 * the kept extent).  acc == EM_NDTYPES accumulates in out's dtype. */
EM_API em_status em_rplan_make(em_reduce_op op, const em_array *a, int naxes, const int *axes,
                               em_dtype acc, double ddof, const em_array *out, em_rplan *p);
/* Make p (planned by em_rplan_make for a C-contiguous array a of root's
 * shape and dtype, whose data is never read) compute a's values from the
 * tree root: one pass, no materialised producer.  The dims are merged
 * again, as the leaves allow (in, ost and ist are then unused: zero).  The argument then ends
 * with char *ld[nl] ('P' leaves: their value's bytes); long long
 * lost[nl][no], list[nl][ni]  (nl = tree.nops, slot 0 unused). */
EM_API em_status em_rplan_fuse(em_rplan *p, const em_node *root, const em_array *a, int naxes,
                               const int *axes, const em_array *out);
/* Whether the column form suits p: every operand steps one element (or
 * not at all) along the innermost kept dim, and the input (or some leaf)
 * does not along the innermost reduced one. */
EM_API bool em_rplan_columns(const em_rplan *p);
EM_API void em_rplan_key(const em_rplan *p, em_sbuf *key);
/* EMBER_REDUCE_TUNE's "b1" (render_reduce.c): block units only where the
 * dialect has no shuffles, for measuring OpenCL's warp units against them. */
EM_API bool em_rplan_tune_blocks(void);
/* The kernels of p in dialect d, d's prelude included: CUDA, or OpenCL in
 * the em_kargs form (codegen/tmpl.h; warp units through local memory).
 * EM_EUNSUPPORTED for the C dialect. */
EM_API em_status em_render_reduce(const em_dialect *d, const em_rplan *p, em_sbuf *src);
EM_API size_t em_rplan_args(const em_rplan *p, void *buf, size_t cap);
/* The 8-byte slots of em_rplan_args' argument that are buffers in the
 * em_kargs form, in order (-1: a NULL buffer -- a fused leaf passed by
 * value, or leaf slot 0); returns how many (at most 3 + EM_KMAXOPS). */
EM_API int em_rplan_buffers(const em_rplan *p, int *slots);

#endif
