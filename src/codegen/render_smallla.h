/* Small dense linear algebra in one kernel (codegen/run_smallla.c drives
 * it): solve, inv and det of matrices up to EM_SLA_MAXN x EM_SLA_MAXN, one
 * block per matrix (a grid-stride loop over the stack), one template for
 * CUDA and OpenCL.
 *
 * Why: a cuSOLVER solve of one 64 x 64 matrix is getrf's and getrs's
 * kernels plus a separate info reduction and read; here the factorization,
 * the triangular solves and LAPACK's info are one launch, so the success
 * path is that launch and one 4-byte read.
 *
 * The matrix (row-major, as NumPy holds it) sits in shared memory, rows
 * padded by one element (column walks hit distinct banks).  LU with
 * partial pivoting as LAPACK's getf2 does it: the pivot is the first
 * largest |a_ij| of the column (|re| + |im| for complex, i?amax's measure),
 * rows swapped whole, the multipliers scaled by the pivot's reciprocal, a
 * zero pivot left unscaled and reported in info (the first such column,
 * 1-based).  Each column step is three barriers: the pivot search (CUDA:
 * one warp's shuffles; OpenCL: one thread) while the other threads scale
 * the previous column, the row swap, the trailing update.
 *
 * solve / inv: the right-hand sides (b's columns, or the identity's) go
 * through shared memory EM_SLA_KS columns at a time: permuted, then
 * forward through L (unit) and back through U as LAPACK's trsm does
 * (x_k = b_k / u_kk, then b_i -= x_k u_ik), one barrier a step.
 * det: the product of U's diagonal times the swaps' sign.
 *
 * Argument (packed, every field 8 bytes): char *a, *b, *x, *info;
 *   long long n, k, batch, mode.  a: batch n x n, C-contiguous; b (solve):
 *   batch n x k; x: batch n x k (solve), n x n (inv) or batch values
 *   (det); info: batch int32. */
#ifndef EM_RENDER_SMALLLA_H
#define EM_RENDER_SMALLLA_H

#include "codegen/dialect.h"
#include "codegen/render.h"

#define EM_SLA_MAXN 64

/* EM_SLA_ANY: solve, inv or det as the argument's mode says (one kernel a
 * dtype; OpenCL's choice: PoCL builds take seconds). */
typedef enum em_sla_mode {
    EM_SLA_ANY = -1,
    EM_SLA_SOLVE,
    EM_SLA_INV,
    EM_SLA_DET,
    EM_SLA_EIGH
} em_sla_mode;
/* eigh: real symmetric (float32, float64) up to this n, by Jacobi; the
 * argument's b is w (batch x n), x is V (batch x n x n, columns the
 * vectors), k's bit 0 asks for vectors and bit 1 reads the upper triangle,
 * info 1 where the sweeps did not converge. */
#define EM_SLA_EIGH_MAXN 32
/* eigh up to this n (real and complex) runs a warp a matrix, this many
 * matrices a block (render_smalleig.c); w is then of the real dtype. */
#define EM_SLA_EIGHW_MAXN 16
#define EM_SLA_EIGHW_WARPS 4

typedef struct em_sla_spec {
    int mode;       /* em_sla_mode */
    em_dtype dtype; /* float32, float64, complex64, complex128 */
    int cap;        /* the largest n this kernel takes: 8, 16, 32 or 64 */
    int nt;         /* the block's threads (solve / inv / det): 0 is em_sla_threads's */
} em_sla_spec;

/* The largest n the kernel for dtype takes (its shared memory: complex128
 * stops at 32), 0 for a dtype it does not take. */
EM_API int em_sla_maxn(em_dtype dtype);
/* The cap class for n (8, 16, 32, 64) and the threads a block of it runs. */
EM_API int em_sla_cap(int n);
EM_API int em_sla_threads(int cap);

/* The kernel texts shared by render_smallla.c and render_smalleig.c: la_*
 * arithmetic on em_t (real or complex), the two eigh kernels. */
extern const char em_sla_real_ops[], em_sla_complex_ops[];
extern const char em_sla_eigh_block[], em_sla_eigh_warp[];
/* eigh's kernel for k (render_smalleig.c): its text after the la_* ops,
 * and the threads a block and matrices a block it runs. */
void em_sla_eigh_text(const em_sla_spec *k, em_sbuf *t);
EM_API void em_sla_eigh_geometry(const em_sla_spec *k, int *threads, int *per);

/* The kernel (named EM_KNAME) for k, prelude included; EM_EUNSUPPORTED for
 * the C dialect or a dtype / size it does not take. */
EM_API em_status em_render_smallla(const em_dialect *d, const em_sla_spec *k, em_sbuf *src);

struct em_backend;
/* The driver (run_smallla.c): a (..., n, n) C-contiguous of a dtype the
 * kernel takes, 1 <= n <= em_sla_maxn; b (solve) (..., n, k) C-contiguous,
 * a's dtype and batch; x and info made here: x (..., n, k), (..., n, n) or
 * (...), info int32 (...). */
EM_API em_status em_run_smallla(const struct em_backend *be, int mode, const em_array *a,
                                const em_array *b, em_array *x, em_array *info);
/* eigh of a (..., n, n) C-contiguous float32/64 with 1 <= n <= EM_SLA_EIGH_MAXN,
 * or complex64/128 with n <= EM_SLA_EIGHW_MAXN:
 * w (..., n) ascending, v (..., n, n) (vectors: else left empty), info. */
EM_API em_status em_run_smallla_eigh(const struct em_backend *be, const em_array *a, bool vectors,
                                     bool upper, em_array *w, em_array *v, em_array *info);

#endif
