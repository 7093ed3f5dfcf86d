/* The CUDA backend's entry points beyond the backend table, for the Python
 * extension (python/_ember/cuda.c, kernel.c) and the backend itself
 * (src/backend/cuda/), declared once here; id is the CUDA device number.
 * Streams and events are the device-neutral em_stream_* / em_event_* of
 * ember.h (on CUDA: the driver's handles as void *). */
#ifndef EMBER_CUDA_H
#define EMBER_CUDA_H

#include "ember/ember.h"

/* Load NVRTC on a background thread when a CUDA device is first opened, so
 * that the context creation hides the load (dlopen of libnvrtc takes
 * milliseconds, more than a kernel-cache hit).  Off by default: whoever turns
 * it on must call em_cuda_prefetch_wait() before the process exits, since a
 * process that exits while libnvrtc's constructors run can crash.  The
 * Python binding turns it on and waits from an atexit callback. */
EM_API void em_cuda_prefetch_nvrtc(bool on);
/* Wait for a prefetch under way, and start none after this. */
EM_API void em_cuda_prefetch_wait(void);

/* The device memory pool (src/backend/cuda/pool.h): bytes in live blocks
 * and live + cached; release the cached blocks to the driver; cap the bytes
 * held on device id (0: no limit). */
EM_API void em_cuda_pool_stats(int id, size_t *used, size_t *total);
EM_API void em_cuda_pool_free_all(int id);
EM_API void em_cuda_pool_set_limit(int id, size_t limit);
/* out = a @ b through cuBLAS (float/complex stacks of equal batch shape on
 * one CUDA device; out is a new C-contiguous array). */
EM_API em_status em_cuda_matmul(const em_array *a, const em_array *b, em_array *out);

/* ---- raw modules: CUDA C from the user or a code generator (module.c) ----
 * Modules and functions are the driver's handles as void *; a module lives
 * for the process (loading the same source and options on the same device
 * again returns the same module). */

/* Compile CUDA C (NVRTC, through the disk cache; opts are appended after
 * Ember's: the device's architecture, --fmad=false unless the user passes
 * --fmad=true, -std=c++17) and load it on cuda:dev.  Compile errors are
 * EM_ECOMPILE with the NVRTC log and the numbered source; name_for_messages
 * names the module in messages (NULL: "raw module"). */
EM_API em_status em_cuda_module_load(int dev, const char *src, const char *const *opts, int nopt,
                                     const char *name_for_messages, void **module);
/* The same with C++ name expressions (template instances such as
 * "scale<float>", NVRTC's nvrtcAddNameExpression): *lowered points at their
 * lowered names, each NUL-terminated, in order, owned by the module cache
 * (valid for the process); pass one to em_cuda_module_function. */
EM_API em_status em_cuda_module_load_ex(int dev, const char *src, const char *const *opts, int nopt,
                                        const char *const *names, int nnames,
                                        const char *name_for_messages, void **module,
                                        const char **lowered);
/* The kernel called name (its extern "C" or lowered name) in module;
 * EM_EVALUE when the module has no such kernel. */
EM_API em_status em_cuda_module_function(int dev, void *module, const char *name, void **fn);
/* cuLaunchKernel with a 3-d grid and block on stream (NULL: the default
 * stream); a stream other than the calling thread's current one first waits
 * for the work queued on the current one (where Ember made the arguments'
 * values), without blocking the host.  Each dimension, the threads per block and shmem (bytes of
 * dynamic shared memory) are checked against cuda:dev's limits first:
 * EM_ELAUNCH says which limit was exceeded.  params is the usual void *[]
 * of argument addresses (the driver copies the values before returning). */
EM_API em_status em_cuda_launch(int dev, void *fn, const char *name, const unsigned grid[3],
                                const unsigned block[3], unsigned shmem, void *stream,
                                void **params);
/* A function attribute (cuFuncGetAttribute's CU_FUNC_ATTRIBUTE_* number). */
EM_API em_status em_cuda_func_attribute(int dev, void *fn, int attr, int *value);

#endif
