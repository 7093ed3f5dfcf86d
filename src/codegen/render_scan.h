/* The scan renderer: inclusive cumsum / cumprod -> CUDA C source.
 *
 * A scan runs along lines: nlines lines of len elements each.  Along an
 * axis (axis >= 0), line l is the l-th index (C order) over the other
 * dimensions and element t sits t * stride[axis] further; flattened
 * (axis < 0), there is one line, element t is the t-th element in C order
 * of the input, and out is C-contiguous.
 *
 * Two forms (codegen/run_scan.c chooses, and explains why they are right):
 *  - the line kernel (EM_KNAME): one thread per line, sequential;
 *  - the tile kernels, one source: the line is cut into tiles of
 *    EM_SCAN_TILE elements; EM_SCAN_UP writes each tile's total to part,
 *    EM_SCAN_MID scans each line's totals in place (one block per line),
 *    EM_SCAN_DOWN rescans each tile starting from the previous tile's
 *    scanned total and writes out.  With one tile per line DOWN alone does.
 *  - on CUDA, EM_SCAN_ONE beside them (onepass): one launch, each tile's
 *    prefix from its predecessors' published totals (decoupled look-back:
 *    read n, write n); part is then its status area (render_scan.c).
 *
 * Argument (every field 8 bytes, no padding): char *in, *out, *part;
 * long long nlines, len, ntiles, epoch, shape[nd], ist[nd], ost[nd]  (byte
 * strides; ost unused when flattened).  part holds nlines * ntiles
 * accumulator values (em_scan_acc), line-major.  epoch: EM_SCAN_ONE's call
 * number on a status area kept between calls (run_scan.c), 0 for a zeroed one.
 */
#ifndef EM_RENDER_SCAN_H
#define EM_RENDER_SCAN_H

#include "codegen/render.h"

#define EM_SCAN_BLOCK 256 /* threads per block, every kernel */
#define EM_SCAN_ITEMS 8   /* consecutive elements per thread in a tile */
#define EM_SCAN_TILE (EM_SCAN_BLOCK * EM_SCAN_ITEMS)
#define EM_SCAN_UP "em_scan_up"
#define EM_SCAN_MID "em_scan_mid"
#define EM_SCAN_DOWN "em_scan_down"
#define EM_SCAN_ONE "em_scan_one"
/* The regs form's block: 512 threads x 16 float32 (a tile of 8192) ran cumsum of
 * 2^24 float32 in 0.0854 / 0.0724 ms (single / back to back) where 256 x 16 ran
 * 0.0865 / 0.0757 (H100, session 17, one process; 256 x 32 0.0848 / 0.0722,
 * 128 x 16 0.0924 / 0.0800, 256 x 8 0.1082 / 0.0969; PyTorch 0.0894 / 0.0711):
 * half the tiles, half the look-backs. */
#define EM_SCAN_REGS_BLOCK 512
#define EM_SCAN_LBQ 1 /* the regs form's look-back windows a round (em_lookback; run_scan.c) */

typedef struct em_scan_spec {
    em_reduce_op op;  /* EM_RED_CUMSUM or EM_RED_CUMPROD */
    em_dtype in, out; /* input and output dtypes */
    int nd, axis;     /* 1 <= nd <= EM_MAXDIMS; axis < 0: flattened */
    bool tiles;       /* the tile kernels, else the line kernel */
    bool onepass;     /* with tiles, CUDA only: EM_SCAN_ONE added (decoupled look-back) */
    bool warp;        /* with tiles, CUDA only: the block scan and the look-back by warp
                       * shuffles, a tile's loads unrolled (render_scan.c's em__warp_text) */
    bool unpacked;    /* onepass: flags and values apart even where em_scan_packed */
    bool regs;        /* onepass with warp: the tile scanned in registers (em__regs_text in
                       * render_scan.c), its own tile size (em_scan_regs_tile) */
    bool vin, vout;   /* regs: a full tile's loads / stores as 16-byte vectors (the host checks
                       * that every line is contiguous and every tile aligned) */
    bool byblock;     /* regs: tile = block index (dispatch order), not the ticket counter */
    int block, items; /* regs: threads a block, elements a thread; 0 for the defaults */
    int lbq;          /* onepass with warp: windows of 32 tiles a look-back round (0: 1;
                       * the regs form's default EM_SCAN_LBQ) */
} em_scan_spec;

/* Whether the single pass keeps each tile's flag and 4-byte value in one
 * 64-bit word (onepass with warp, a 4-byte accumulator, not unpacked): then
 * the scratch after the 16-byte counter is 8 bytes a tile, all zeroed. */
EM_API bool em_scan_packed(const em_scan_spec *c);

/* The single pass's status words and warp look-back (em_lookback, EM_PUB,
 * EM_STATUS: render_scan.c's em__status_text), packed, with lbq windows a
 * round (0: EM_SCAN_LBQ), for another single-pass kernel (render_unique.c's):
 * it defines em_scan_acc (4 bytes), em_op and ${zero} first, and its
 * argument's part points at the 16-byte ticket counter and the tiles' words. */
EM_API void em_scan_lookback_text(em_sbuf *t, int lbq);

/* The regs form's shape: threads a block, elements a vector (a 16-byte load
 * of the wider of in and out), elements a thread (a multiple of the vector). */
EM_API void em_scan_regs_shape(const em_scan_spec *c, int *block, int *vec, int *items);

/* The accumulator dtype: out's, except float32 for float16 (NumPy rounds
 * every float16 partial: the line kernel does too; the tile kernels refuse
 * float16 output). */
EM_API em_dtype em_scan_acc(em_dtype out);
/* The source, prelude included.  EM_EVALUE for a bad op, nd or axis;
 * EM_EUNSUPPORTED for tiles with float16 output. */
/* In dialect d (CUDA only so far: EM_EUNSUPPORTED for another). */
EM_API em_status em_render_scan(const em_dialect *d, const em_scan_spec *c, em_sbuf *src);
/* The structural key (everything the source depends on). */
EM_API void em_scan_key(const em_scan_spec *c, em_sbuf *key);

#endif
