/* CUDA's math libraries beside the driver: cuFFT and cuSOLVER, loaded at
 * run time with dlopen like the driver and cuBLAS (src/backend/cuda/
 * loader.c), so that building needs no CUDA headers and a machine without
 * them still runs.  This folder is the one place outside src/backend/cuda/
 * allowed to include that backend's private headers (tools/check_layers.py):
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

#define EM_FN(ret, field, sym, params) ret(*field) params;
typedef struct em__cufft_api {
#include "backend/cudalib/libcufft.fn"
} em__cufft_api;
typedef struct em__cusolver_api {
#include "backend/cudalib/libcusolver.fn"
} em__cusolver_api;
#undef EM_FN

extern em__cufft_api em__cufft;
extern em__cusolver_api em__cusolver;

/* Load the library once (thread-safe); EM_EDEVICE naming what was tried
 * when it is missing. */
em_status em_cufft_init(void);
em_status em_cusolver_init(void);

/* cudaDataType of an Ember dtype (float32/64, complex64/128), -1 otherwise. */
int em_cudalib_dtype(em_dtype t);

#endif
