/* QR of stacks of small matrices in one kernel (codegen/run_smallla.c
 * drives it): m x n with m, n <= EM_SQR_MAXN, EM_SQR_T(cap) threads a matrix
 * (a thread a column) and several matrices a block, one template for CUDA
 * and OpenCL.
 *
 * Why: cuSOLVER has no batched orgqr, so Q of a stack was formed in Python
 * from geqrfBatched's reflectors, one batched product per reflector (about
 * seven launches each: 0.69 ms for 10^4 8 x 8 on the H100); CuPy and
 * PyTorch loop over the stack (hundreds of ms).
 *
 * Householder as LAPACK's geqr2 / larfg and org2r / ung2r, so R's signs and
 * Q are NumPy's: for column j, beta = -sign(Re a_jj) |(a_jj, x)|, tau =
 * (beta - a_jj) / beta, v = (1, x / (a_jj - beta)); the trailing columns get
 * H^H = I - conj(tau) v v^H; Q = H_0 ... H_{k-1} applied to the identity's
 * first columns, last first.  The matrix sits in shared memory row-major,
 * a thread owns a column: the thread that owns column j + 1 forms its
 * reflector right after updating it, so a column step is one barrier, and
 * Q's columns (one a thread, each independent) need none.
 *
 * Argument (packed, every field 8 bytes): char *a, *q, *r, *tau;
 *   long long m, n, batch, mode.  a: batch m x n, C-contiguous.  mode
 *   EM_SQR_REDUCED: q batch m x k, r batch k x n; EM_SQR_COMPLETE: q m x m,
 *   r m x n; EM_SQR_R: r k x n (q unused); EM_SQR_RAW: q is NumPy's h,
 *   batch n x m (the factors transposed), tau batch k. */
#ifndef EM_RENDER_SMALLQR_H
#define EM_RENDER_SMALLQR_H

#include "codegen/dialect.h"
#include "codegen/render.h"

#define EM_SQR_MAXN 32

enum { EM_SQR_REDUCED = 0, EM_SQR_COMPLETE = 1, EM_SQR_R = 2, EM_SQR_RAW = 3 };

typedef struct em_sqr_spec {
    em_dtype dtype; /* float32, float64, complex64, complex128 */
    int cap;        /* the largest of m and n this kernel takes: 8, 16 or 32 */
} em_sqr_spec;

/* The matrices a block of the kernel for spec takes (its threads are that
 * times cap), as its shared memory allows. */
EM_API int em_sqr_per_block(const em_sqr_spec *k);

/* The kernel (named EM_KNAME) for k, prelude included; EM_EUNSUPPORTED for
 * the C dialect, a dtype it does not take or a cap not in 8, 16, 32. */
EM_API em_status em_render_smallqr(const em_dialect *d, const em_sqr_spec *k, em_sbuf *src);

struct em_backend;
/* The driver: a (..., m, n) C-contiguous of a dtype the kernel takes, 1 <=
 * m, n <= EM_SQR_MAXN; q and r made here as mode says (q left empty for
 * EM_SQR_R; for EM_SQR_RAW q is h and r is tau). */
EM_API em_status em_run_smallqr(const struct em_backend *be, int mode, const em_array *a,
                                em_array *q, em_array *r);

#endif
