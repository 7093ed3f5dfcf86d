/* Declarations shared by the CUDA backend's files. */
#ifndef EM_CUDA_INTERNAL_H
#define EM_CUDA_INTERNAL_H

#include "backend/backend.h"
#include "backend/cuda/cuda_api.h"
#include "backend/cuda/libs.h"
#include "backend/cuda/pool.h"
#include "ember/cuda.h"

#include <string.h>

/* Compile CUDA source for sm_<arch> to a cubin (*cubin malloc'ed), through
 * the disk cache.  Needs NVRTC only, not a GPU (exported for the tests). */
EM_API em_status em_cuda_compile(const char *src, int arch, const char *name, void **cubin,
                                 size_t *n);
/* The same with the user's options after Ember's (compile.c says which of
 * Ember's a user option replaces) and C++ name expressions (template
 * instances, "f<float>"): *lowered gets their lowered names, each
 * NUL-terminated, in order (malloc'ed; untouched when nnames is 0).  The
 * disk cache key covers all of them. */
EM_API em_status em_cuda_compile_ex(const char *src, int arch, const char *name,
                                    const char *const *uopts, int nuopt, int nnames,
                                    const char *const *names, void **cubin, size_t *n,
                                    char **lowered);

/* Cached properties of device id (queried once). */
em_status em_cu_props(int id, const em_device_props **out);

/* The table's modules and launch (module.c; backend.h says what each does). */
em_status em_cu_module_build(int id, const char *src, const char *name, const em_build_opts *o,
                             void **mod, char **lowered);
em_status em_cu_function(int id, void *mod, const char *name, void **fn);
em_status em_cu_launch(int dev, void *fn, const char *name, const unsigned grid[3],
                       const unsigned block[3], unsigned shmem, void *stream, void *params);

/* A wait for the calling thread's current stream (libs.h: em_cu_stream),
 * before host copies. */
em_status em_cu_wait_current(void);
/* The table's streams and events (stream.c; backend.h says what each does). */
void em_cu_stream_set(int id, void *s);
void *em_cu_stream_get(int id);
em_status em_cu_stream_create(int id, bool nonblocking, void **out);
em_status em_cu_stream_destroy(int id, void *s);
em_status em_cu_stream_sync(int id, void *s);
em_status em_cu_stream_wait_event(int id, void *s, void *e);
em_status em_cu_event_create(int id, bool timing, void **out);
em_status em_cu_event_destroy(int id, void *e);
em_status em_cu_event_record(int id, void *e, void *s);
em_status em_cu_event_sync(int id, void *e);
em_status em_cu_event_query(int id, void *e, bool *done);
em_status em_cu_event_elapsed(int id, void *a, void *b, float *ms);
/* Work queued on waiter after this runs after what producer holds now (an
 * event, no host wait); 1 is the legacy default stream, as NULL. */
em_status em_cu_order(int id, void *waiter, void *producer);

/* Pinned host memory and queued host copies (hostmem.c; backend.h). */
em_status em_cu_host_alloc(int id, size_t n, bool all_devices, void **out);
em_status em_cu_host_free(int id, void *p);
bool em_cu_host_known(int id, const void *p, size_t n);
em_status em_cu_to_host_async(int id, void *dst, const void *src, size_t n, void *s);
em_status em_cu_from_host_async(int id, void *dst, const void *src, size_t n, void *s);

/* Recovery after a faulting kernel (reset.c): a sticky error marks the current
 * device lost; em_cu_ctx then resets its primary context (em_cu_recover) after
 * each cache of the old context is forgotten (pool.c, staging.c, blas.c). */
bool em_cu_sticky(CUresult r);
void em_cu_note_fault(CUresult r);
void em_cu_note_current(int id);
bool em_cu_lost(int id);
/* The reset failed (a real driver keeps a sticky error for the process): every
 * later use of the device raises one error saying the process must restart. */
bool em_cu_dead(int id);
em_status em_cu_recover(int id, CUcontext *ctx);
unsigned em_cu_resets(void);
void em_cu_pool_forget(int id);
void em_cu_blas_forget(int id);

/* The name of the last kernel launched on this thread (for fault messages). */
extern _Thread_local char em_cu_last_kernel[64];

/* Keep name as the last kernel launched: a bounded copy, since snprintf
 * cost more than the rest of a small op's host path. */
static inline void em_cu_note_kernel(const char *name) {
    /* One copy, not a loop: GCC re-reads a TLS address per iteration. */
    size_t n = strnlen(name, sizeof em_cu_last_kernel - 1);
    char *d = em_cu_last_kernel;
    memcpy(d, name, n);
    d[n] = 0;
}

#endif
