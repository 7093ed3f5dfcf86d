/* CUDA's math libraries beside the driver: cuFFT and cuSOLVER, loaded at
 * run time with dlopen like the driver and cuBLAS (src/backend/cuda/
 * loader.c), so that building needs no CUDA headers and a machine without
 * them still runs.  This folder is the one place outside src/backend/cuda/
 * allowed to include that backend's private headers (tools/check_layers.py, LIBRARY_OF):
 * the libraries run on its contexts, streams and memory pool.
 *
 * Invariant: em__cufft.* only after em_cufft_init() returned EM_OK,
 * em__cusolver.* only after em_cusolver_init() did. */
#ifndef EM_CUDALIB_H
#define EM_CUDALIB_H

#include "backend/cuda/cuda_internal.h"
#include "ember/cudalib.h"

typedef int cufftResult;
typedef int cufftHandle;
typedef int cusolverStatus;
typedef struct cusolverDnContext *cusolverDnHandle;
typedef struct cusolverDnParams_st *cusolverDnParams;
typedef struct syevjInfo_st *syevjInfo;
typedef struct gesvdjInfo_st *gesvdjInfo;
typedef struct cublasContext *cublasHandle; /* as blas.c declares it */

#define EM_FN(ret, field, sym, params) ret(*field) params;
typedef struct em__cufft_api {
#include "backend/cudalib/libcufft.fn"
} em__cufft_api;
typedef struct em__cusolver_api {
#include "backend/cudalib/libcusolver.fn"
} em__cusolver_api;
typedef struct em__cublasb_api {
#include "backend/cudalib/libcublas_batched.fn"
} em__cublasb_api;
#undef EM_FN

extern em__cufft_api em__cufft;
extern em__cusolver_api em__cusolver;
extern em__cublasb_api em__cublasb;

/* Load the library once (thread-safe); EM_EDEVICE naming what was tried
 * when it is missing. */
em_status em_cufft_init(void);
em_status em_cusolver_init(void);
/* cuBLAS's batched LU (libcublas_batched.fn); EM_EDEVICE when missing. */
em_status em_cublasb_init(void);

/* ---- batched.c: stacks of small matrices (n <= EM_CUDALIB_SMALL) in one
 * call each, through device arrays of pointers.  The caller holds the
 * device's solver lock (solver.c) and has made device id's context
 * current.  A is the stack's contiguous data: batch matrices of n x n
 * (column-major, leading dimension n); dt is the cudaDataType. */
enum { EM_CUDALIB_SMALL = 32 };
em_status em_cudalib_getrf_batched(int id, int dt, int n, int batch, char *A, int *ipiv, int *info);
/* B: batch n x k column-major right-hand sides, overwritten by X. */
em_status em_cudalib_getrs_batched(int id, int dt, int trans, int n, int k, int batch, char *lu,
                                   const int *ipiv, char *B);
/* QR of batch m x n matrices (m >= n): A overwritten as geqrf's, tau
 * (min(m, n) per matrix, contiguous). */
em_status em_cudalib_geqrf_batched(int id, int dt, int m, int n, int batch, char *A, char *tau);
em_status em_cudalib_potrf_batched(cusolverDnHandle h, int id, int dt, int upper, int n, int batch,
                                   char *A, int *info);

/* ---- epilogue.c: small kernels around a factorization, queued on the
 * current stream.  tri_clear zeroes the strict upper (upper=0) or lower
 * triangle of batch n x n column-major matrices of isz-byte elements; eye
 * writes batch identities of cudaDataType dt. */
em_status em_cudalib_tri_clear(int id, int upper, int64_t n, int64_t batch, int64_t isz, char *A);
em_status em_cudalib_eye(int id, int dt, int64_t n, int64_t batch, char *A);

/* A look at a solver's input that does not wait for the solver: start
 * queues out = a's C-contiguous copy (em_copy_checked) with its flag in a
 * pinned slot, then the slot's event, on the current stream; end, called
 * once the solver is queued, waits for that event alone and says whether
 * a real or imaginary part was NaN, infinite or at least bound (true too
 * when it could not be read).  A start that failed holds nothing; one
 * that succeeded needs its end (the slot is held until then). */
typedef struct em_cudalib_look {
    int id, slot;
} em_cudalib_look;
em_status em_cudalib_look_start(const em_array *a, double bound, em_array *out, em_cudalib_look *k);
em_status em_cudalib_look_end(em_cudalib_look *k, bool *flagged);

/* cudaDataType of an Ember dtype (float32/64, complex64/128), -1 otherwise. */
int em_cudalib_dtype(em_dtype t);

#endif
