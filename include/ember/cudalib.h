/* CUDA's math libraries (src/backend/cudalib/): FFTs through cuFFT and
 * dense factorizations through cuSOLVER, dlopen'ed at first use.  For the
 * Python extension (python/_ember/cudalib.c), which builds NumPy's
 * functions from these pieces.  When a library is missing every call
 * returns EM_EDEVICE saying so (em_cudalib_available tells beforehand). */
#ifndef EMBER_CUDALIB_H
#define EMBER_CUDALIB_H

#include "ember/ember.h"

/* EM_CUDALIB_CUBLAS: the batched LU entry points cudalib binds itself. */
enum { EM_CUDALIB_CUFFT = 0, EM_CUDALIB_CUSOLVER = 1, EM_CUDALIB_CUBLAS = 2 };

/* Whether the library loads (the first call loads it). */
EM_API bool em_cudalib_available(int which);
/* Bind the library file at path into a scratch table (not the one in
 * use), for the tests: EM_OK when every symbol Ember declares resolves. */
EM_API em_status em_cudalib_probe(int which, const char *path);

/* ---- cuFFT (fft.c) ------------------------------------------------------
 * out = the unnormalised DFT of x over its last rank (1 to 3) axes, the
 * leading axes a batch.  C2C: complex64/128 in and out, kind
 * EM_FFT_FORWARD (exp(-2 pi i jk/n)) or EM_FFT_INVERSE.  R2C: float32/64
 * in, complex out with the last axis n // 2 + 1 long.  C2R: complex in
 * with the last axis nlast // 2 + 1 long, real out with nlast.  x may be
 * any layout (a C-contiguous copy is made when needed; C2R always copies,
 * as cuFFT overwrites its input); out is a new C-contiguous array.  Plans
 * are cached by device, stream, type, sizes and batch; their work area
 * comes from Ember's memory pool at each call. */
enum { EM_FFT_FORWARD = 0, EM_FFT_INVERSE = 1, EM_FFT_R2C = 2, EM_FFT_C2R = 3 };
EM_API em_status em_cuda_fft(const em_array *x, int rank, int kind, int64_t nlast, em_array *out);
/* Destroy the cached plans (tests; also frees nothing else). */
EM_API void em_cuda_fft_plans_clear(void);
/* Number of cached plans, and of plans created since the process began. */
EM_API void em_cuda_fft_plans_stats(int *cached, int *created);

/* ---- cuSOLVER (solver.c) ------------------------------------------------
 * Stacks of COLUMN-MAJOR matrices: an array of shape (..., c, r) holds, in
 * each trailing C-contiguous block, the r x c column-major matrix (the
 * row-major transpose of what the array shows).  The Python layer chooses
 * the transposes; the C side never reorders data.  Inputs are copied
 * (cuSOLVER overwrites its operands); float32/64 and complex64/128; the
 * loops run over the batch (leading) axes.  info gets an int32 array of
 * the batch shape on the device (LAPACK's info of each matrix), left on
 * the device so that the caller decides when to look. */
/* LU with partial pivoting of square matrices: lu (the factors), ipiv
 * (1-based rows, int32: a stack of matrices up to 32 x 32 goes through
 * cuBLAS's batched LU in one call, anything else one typed getrf each;
 * getrs also takes int64 pivots, for the 64-bit API). */
EM_API em_status em_cuda_getrf(const em_array *a, em_array *lu, em_array *ipiv, em_array *info);
/* Solve op(A) X = B from getrf's lu and ipiv (trans 0: A, 1: A^T, 2: A^H);
 * b (..., k, n) holds n x k column-major right-hand sides. */
EM_API em_status em_cuda_getrs(const em_array *lu, const em_array *ipiv, const em_array *b,
                               int trans, em_array *x);
/* Cholesky factor in the upper (upper=true) or lower triangle; the other
 * triangle is left undefined (the batched call for stacks of matrices up
 * to 32 x 32 uses it as work space). */
EM_API em_status em_cuda_potrf(const em_array *a, bool upper, em_array *out, em_array *info);
/* potrf's factor with the other triangle zeroed by one kernel. */
EM_API em_status em_cuda_cholesky(const em_array *a, bool upper, em_array *out, em_array *info);
/* getrf + getrs in one call: x solves A X = B (b as getrs's). */
EM_API em_status em_cuda_gesv(const em_array *a, const em_array *b, em_array *x, em_array *info);
/* getrf + getrs against identities made on the device: x = A^-1. */
EM_API em_status em_cuda_inv(const em_array *a, em_array *x, em_array *info);
/* Whether any of info's entries (an int32 CUDA array, LAPACK's info per
 * matrix) is nonzero: one kernel for a stack, a queued copy of one int
 * into pinned memory and one wait for the current stream -- the one host
 * wait NumPy's semantics (raise at the call) need. */
EM_API em_status em_cuda_info_failed(const em_array *info, bool *failed);
/* QR: out holds R above the diagonal and the reflectors below, tau their
 * scales (min(m, n) per matrix). */
EM_API em_status em_cuda_geqrf(const em_array *a, em_array *out, em_array *tau, em_array *info);
/* Q's first ncols columns from a (..., ncols, m): m x ncols whose first
 * k = tau's length columns hold geqrf's reflectors. */
EM_API em_status em_cuda_orgqr(const em_array *a, const em_array *tau, em_array *q, em_array *info);
/* SVD of m x n matrices with m >= n: job 0 values only, 1 the reduced U
 * (m x n) and V^H (n x n), 2 the full U (m x m).  s is real. */
EM_API em_status em_cuda_gesvd(const em_array *a, int job, em_array *s, em_array *u, em_array *vt,
                               em_array *info);
/* The same SVD by Jacobi sweeps (gesvdj; gesvdjBatched for stacks of real
 * matrices up to 32 x 32): job 1 or 2 as gesvd's, U laid out as gesvd's,
 * but v holds V (n x n column-major), not V^H.  info per matrix: 0, or
 * min(m, n) + 1 where the sweeps did not converge (the caller may then
 * run gesvd). */
EM_API em_status em_cuda_gesvdj(const em_array *a, int job, em_array *s, em_array *u, em_array *v,
                                em_array *info);
/* Eigenvalues (ascending, real) of Hermitian matrices from their upper
 * (upper=true) or lower triangle, and the eigenvectors as columns when
 * vectors is true.  Batches of matrices up to 32 x 32 go in one Jacobi
 * call (syevjBatched), larger ones one syevd each.  A batch whose values
 * are finite and bounded (|x| < 2^((E - 2 ceil(log2 n) - 8) / 2), E 1024
 * for float64, 128 for float32: where the solvers converge) gets info left
 * empty (buf NULL): there is nothing to read, and the call has not waited
 * for the solver. */
EM_API em_status em_cuda_syevd(const em_array *a, bool vectors, bool upper, em_array *w,
                               em_array *v, em_array *info);

#endif
