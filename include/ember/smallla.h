/* Small dense linear algebra on devices that compile kernels (CUDA,
 * OpenCL): solve, inv and det of stacks of n x n matrices, n up to 64
 * (complex128: 32), in one launch each (src/codegen/render_smallla.h).
 * LU with LAPACK's partial pivoting; info per matrix is LAPACK's (0, or
 * the first zero pivot's 1-based column), returned on the device, not
 * read. */
#ifndef EMBER_SMALLLA_H
#define EMBER_SMALLLA_H

#include "ember/ember.h"

enum { EM_SMALLLA_SOLVE = 0, EM_SMALLLA_INV = 1, EM_SMALLLA_DET = 2 };

/* The largest n em_small_linalg takes for dtype (0: a dtype it does not). */
EM_API int em_small_linalg_maxn(em_dtype dtype);

/* mode SOLVE: x = a^-1 b, a (..., n, n), b (..., n, k) of a's dtype and
 * batch; INV: x = a^-1; DET: x (...) the determinants.  Any layout (a
 * C-contiguous copy is made where needed); info int32 of the batch shape.
 * EM_EUNSUPPORTED for a device that compiles no kernels, a dtype or n it
 * does not take, or float64 on an OpenCL device without it. */
EM_API em_status em_small_linalg(int mode, const em_array *a, const em_array *b, em_array *x,
                                 em_array *info);

/* eigh of stacks of real symmetric matrices, n <= 32, float32/64, or of
 * complex Hermitian ones, n <= 16, by Jacobi sweeps in one launch (a warp a
 * matrix up to n = 16, a block above): w (..., n) ascending, of the real
 * dtype; v (..., n, n) whose columns are the vectors (when vectors; else v
 * is left unset), from the lower (or, with upper, the upper) triangle; info
 * 1 where a matrix did not converge.  EM_EUNSUPPORTED as em_small_linalg. */
EM_API em_status em_small_eigh(const em_array *a, bool vectors, bool upper, em_array *w,
                               em_array *v, em_array *info);

/* QR of stacks of small matrices, m, n <= 32, float32/64 or complex64/128,
 * by Householder reflections in one launch (LAPACK's geqr2 and org2r, so
 * the signs are NumPy's).  mode REDUCED: q (..., m, k), r (..., k, n), k =
 * min(m, n); COMPLETE: q (..., m, m), r (..., m, n); R: r alone (q left
 * unset); RAW: q is NumPy's h (..., n, m) and r its tau (..., k).  Any
 * layout.  EM_EUNSUPPORTED as em_small_linalg (a dtype or size it does not
 * take, a device that compiles no kernels). */
enum { EM_SMALLQR_REDUCED = 0, EM_SMALLQR_COMPLETE = 1, EM_SMALLQR_R = 2, EM_SMALLQR_RAW = 3 };
EM_API em_status em_small_qr(int mode, const em_array *a, em_array *q, em_array *r);

#endif
