/* The CUDA runtime's surface for the bindings of the CUDA libraries in
 * src/backend/cudalib/ (cuBLAS; cuFFT and cuSOLVER beside it), the one
 * folder outside this one allowed to include it (tools/check_layers.py):
 * the driver's types, a device's context and the calling thread's current
 * stream.  A binding keeps its entry points in its own .fn table and loads
 * it with backend/dynlib.h under its own pthread_once, as loader.c does for
 * the driver and NVRTC. */
#ifndef EM_CUDA_LIBS_H
#define EM_CUDA_LIBS_H

#include "backend/cuda/cuda_api.h"

#include <stddef.h>

/* The calling thread's current stream (NULL: the legacy default stream):
 * a library call goes there, like a kernel. */
CUstream em_cu_stream(void);

#endif
