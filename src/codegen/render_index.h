/* The flat-position gather and scatter kernel: out = a.ravel()[idx],
 * a.ravel()[idx] = values.  A flat position is mapped to a's memory through
 * a's shape and strides, so a need not be contiguous; idx and values are
 * read through their own strides (values broadcast to idx's shape).
 * Negative indices wrap; an index out of range sets an error word (the
 * first bad index wins) that the driver reads back.  Argument (packed, all
 * fields 8 bytes):
 *   char *a, *idx, *v, *out; long long *err; long long n, size;
 *   long long ashape[na], ast[na], ishape[ni], ist[ni], vst[ni]
 */
#ifndef EM_RENDER_INDEX_H
#define EM_RENDER_INDEX_H

#include "codegen/dialect.h"
#include "codegen/render.h"

/* The kernel (named EM_KNAME) for put (else take) of a with idx (and v's
 * dtype when put), na and ni dimensions (a 0-d array counts as one), prelude
 * included.  CUDA only so far. */
EM_API em_status em_render_index(const em_dialect *d, bool put, em_dtype a, em_dtype v, int na,
                                 int ni, em_sbuf *src);

#endif
