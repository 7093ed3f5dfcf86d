/* The slice of the CUDA driver and NVRTC APIs that Ember uses,
 * declared here so that building needs no CUDA headers.  The entry points
 * are function pointers filled by dlsym from the .fn tables (loader.c);
 * nothing is loaded until a CUDA device is first asked about.
 *
 * Invariant: em__cu.* may be called only after em_cu_init() returned a
 * count > 0; em__nvrtc.* only after em_nvrtc_init() returned EM_OK.
 */
#ifndef EM_CUDA_API_H
#define EM_CUDA_API_H

#include "core/core.h"

/* The devices Ember addresses (a device id indexes per-device tables). */
#define EM_CU_MAXDEV 64

typedef int CUresult;
typedef int CUdevice;
typedef unsigned long long CUdeviceptr;
typedef struct CUctx_st *CUcontext;
typedef struct CUmod_st *CUmodule;
typedef struct CUfunc_st *CUfunction;
typedef struct CUstream_st *CUstream;
typedef struct CUevent_st *CUevent;
typedef int nvrtcResult;
typedef struct _nvrtcProgram *nvrtcProgram;

enum {
    EM_CU_SUCCESS = 0,
    EM_CU_ERROR_OUT_OF_MEMORY = 2,
    EM_CU_ERROR_NO_DEVICE = 100,
    /* cuDeviceGetAttribute */
    EM_CU_ATTR_MAX_THREADS_PER_BLOCK = 1,
    EM_CU_ATTR_MAX_BLOCK_DIM_X = 2,
    EM_CU_ATTR_MAX_GRID_DIM_X = 5,
    EM_CU_ATTR_SHARED_MEMORY_PER_BLOCK = 8,
    EM_CU_ATTR_MULTIPROCESSOR_COUNT = 16,
    EM_CU_ATTR_CC_MAJOR = 75,
    EM_CU_ATTR_CC_MINOR = 76,
    /* cuPointerGetAttribute, cuEventCreate */
    EM_CU_POINTER_MEMORY_TYPE = 2,
    EM_CU_EVENT_DISABLE_TIMING = 2,
};

#define EM_FN(ret, field, sym, params) ret(*field) params;
typedef struct em__cu_api {
#include "backend/cuda/libcuda.fn"
} em__cu_api;
typedef struct em__nvrtc_api {
#include "backend/cuda/libnvrtc.fn"
} em__nvrtc_api;
#undef EM_FN

extern em__cu_api em__cu;
extern em__nvrtc_api em__nvrtc;

/* Load the driver once (thread-safe) and return the number of visible
 * devices; 0, never an error, when there is no driver or no GPU (the reason
 * is printed to stderr with EMBER_DEBUG >= 1). */
int em_cu_init(void);
/* Load NVRTC once; EM_EDEVICE naming the sonames tried if it is missing. */
EM_API em_status em_nvrtc_init(void);
/* At a device's first use: start loading NVRTC on a background thread if
 * em_cuda_prefetch_nvrtc(true) asked for it (em_nvrtc_init then waits for
 * it).  Nothing is reported; em_nvrtc_init says why. */
void em_nvrtc_prefetch(void);
/* NVRTC version as major * 1000 + minor * 10 (0 before em_nvrtc_init). */
int em_nvrtc_version(void);
/* Why the driver gave no devices ("" if it did). */
const char *em_cu_why(void);
/* Map a failed driver call to EM_EDEVICE (EM_ENOMEM for out-of-memory)
 * with the driver's error name and what was being done (printf's format). */
em_status em_cu_fail(CUresult r, const char *what, ...) __attribute__((format(printf, 2, 3)));
#define EM_CU(call, what)                                           \
    do {                                                            \
        CUresult em__r = (call);                                    \
        if (em__r != EM_CU_SUCCESS) return em_cu_fail(em__r, what); \
    } while (0)

/* Make device id's primary context current on this thread, retaining it on
 * first use. */
em_status em_cu_ctx(int id);

#endif
