/* The CUDA runtime's surface for the bindings of the CUDA libraries in
 * src/backend/cudalib/ (cuBLAS; cuFFT and cuSOLVER beside it), the one
 * folder outside this one allowed to include it (tools/check_layers.py):
 * the driver's types, a device's context, the calling thread's current
 * stream and a library's loading.  A binding keeps its entry points in its
 * own .fn table and loads it with em_cu_lib_open under its own
 * pthread_once, as loader.c does for the driver and NVRTC. */
#ifndef EM_CUDA_LIBS_H
#define EM_CUDA_LIBS_H

#include "backend/cuda/cuda_api.h"

#include <stddef.h>

/* The calling thread's current stream (NULL: the legacy default stream):
 * a library call goes there, like a kernel. */
CUstream em_cu_stream(void);

/* dlopen the first of names (NULL-terminated) that loads, or NULL with why
 * ("could not load <each name>") written for messages; lib names the
 * library in the EMBER_DEBUG=1 line said on failure. */
void *em_cu_lib_open(const char *lib, const char *const *names, char *why, size_t whylen);

#endif
