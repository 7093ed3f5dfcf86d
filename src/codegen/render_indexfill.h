/* Fills by index (em_index_fill, ember.h): each element's value is a
 * function of its position alone, so nothing is read.  What the CUDA
 * libraries' epilogues need around a factorization (the identities inv
 * solves against, the other triangle of a Cholesky factor cleared, the
 * arrays of matrix pointers the batched calls take) made on the device,
 * queued on the current stream: one template for CUDA and OpenCL
 * (codegen/run_indexfill.c drives it).
 *
 * The kernel writes elements of `words` words of `wbytes` (4 or 8) bytes
 * each, so one kernel serves every dtype of a size; a grid-stride loop over
 * the `total` elements e of a C-contiguous array, with k = e % (n * n),
 * i = k / n, j = k % n (row i, column j of e's matrix):
 *   EM_IFILL_EYE   word 0 = i == j ? one : 0, the other words 0;
 *   EM_IFILL_TRIL  zero where j > i (the lower triangle kept);
 *   EM_IFILL_TRIU  zero where j < i;
 *   EM_IFILL_STEP  e = b0 + e * d, modulo 2^(8 wbytes) (one word).
 *
 * Argument (packed, every field 8 bytes): char *a; long long n, total;
 *   unsigned long long b0 (EYE: one's bits), d. */
#ifndef EM_RENDER_INDEXFILL_H
#define EM_RENDER_INDEXFILL_H

#include "codegen/dialect.h"
#include "codegen/render.h"

typedef struct em_ifill_spec {
    int kind;   /* em_index_fill_kind */
    int wbytes; /* 4 or 8 */
    int words;  /* words per element: 1, 2 or 4 */
} em_ifill_spec;

/* The kernel (named EM_KNAME) for k, prelude included; EM_EUNSUPPORTED for
 * the C dialect. */
EM_API em_status em_render_indexfill(const em_dialect *d, const em_ifill_spec *k, em_sbuf *src);

#endif
