/* The tiled matrix product kernel: out[g] = a[g] @ b[g] for each of a
 * batch of matrices, on any dialect that compiles kernels (OpenCL's matmul;
 * CUDA has cuBLAS).  a[g] is m x k and b[g] k x n, read through any byte
 * strides (transposed and broadcast operands need no copy); out is C-
 * contiguous (batch, m, n).  Work-groups of 256 items (16 x 16) each make an
 * EM_GT x EM_GT tile of out, every item an EM_R x EM_R block of it in
 * registers, stepping over k by 16 through local-memory tiles of a and b.
 * Sums are NumPy's: in the dtype (integers wrap, bool is OR of ANDs), each
 * product and sum through the scalar library.  Argument (packed, 8-byte
 * fields):
 *   char *a, *b, *out; long long m, n, k, batch, ntiles;
 *   long long sa0, sa1, sb0, sb1;            row and column strides, bytes
 *   long long bshape[nb], bsa[nb], bsb[nb]   batch shape and strides (bytes)
 */
#ifndef EM_RENDER_GEMM_H
#define EM_RENDER_GEMM_H

#include "codegen/dialect.h"
#include "codegen/render.h"
#include "codegen/tmpl.h"

#define EM_GEMM_BLOCK 256

/* The argument's fields (above), the same for both kernels: f gets
 * EM_GEMM_NFIELDS of them, the batch arrays nb long. */
enum { EM_GEMM_NFIELDS = 15 };
EM_API void em_gemm_fields(em_tfield f[EM_GEMM_NFIELDS], int nb);

/* Items' block size per dtype (the tile is 16 * that): 4, 2 for complex128. */
EM_API int em_gemm_rblock(em_dtype dt);
/* The kernel (named EM_KNAME) for dtype dt, nb >= 1 batch dimensions;
 * a_kfast / b_nfast: which index the loads of a / b vary fastest across
 * neighbouring items (the one of the smaller stride, for coalescing). */
EM_API em_status em_render_gemm(const em_dialect *d, em_dtype dt, int nb, bool a_kfast,
                                bool b_nfast, em_sbuf *src);

/* The register-blocked float32 / float64 product on OpenCL
 * (render_gemm_blocked.c): items' blocks of tm x tn, k steps of bk, local
 * reads vw wide (4 for float32, 2 for float64); the same argument, the
 * strides and batch strides in elements rather than bytes. */
typedef struct em_gemm_tile {
    int tm, tn, bk, vw;
} em_gemm_tile;
/* Whether the kernel can be written for tl (the sizes it takes). */
EM_API bool em_gemm_blocked_ok(const em_gemm_tile *tl);
/* Its local memory in bytes for elements of elsize bytes. */
EM_API size_t em_gemm_blocked_local(const em_gemm_tile *tl, size_t elsize);
EM_API em_status em_render_gemm_blocked(const em_dialect *d, em_dtype dt, int nb, bool a_kfast,
                                        bool b_nfast, const em_gemm_tile *tl, em_sbuf *src);

#endif
