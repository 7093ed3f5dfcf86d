/* The CUDA backend's entry points beyond the backend vtable, for the Python
 * extension (python/_ember/cuda.c) and the backend itself
 * (src/backend/cuda/), declared once here.  Streams and events are the
 * driver's handles as void *; id is the CUDA device number. */
#ifndef EMBER_CUDA_H
#define EMBER_CUDA_H

#include "ember/ember.h"

/* The calling thread's current stream (NULL: the default stream). */
EM_API void em_cuda_stream_set(void *s);
EM_API void *em_cuda_stream_get(void);
EM_API em_status em_cuda_stream_create(int id, bool nonblocking, void **out);
EM_API em_status em_cuda_stream_destroy(int id, void *s);
EM_API em_status em_cuda_stream_sync(int id, void *s);
/* Work queued on `waiter` after this call runs after the work queued on
 * `producer` so far (an event; the host does not wait).  NULL or 1: the
 * legacy default stream. */
EM_API em_status em_cuda_stream_wait(int id, void *waiter, void *producer);
EM_API em_status em_cuda_event_create(int id, void **out);
EM_API em_status em_cuda_event_destroy(int id, void *e);
EM_API em_status em_cuda_event_record(int id, void *e, void *s);
EM_API em_status em_cuda_event_sync(int id, void *e);
EM_API em_status em_cuda_event_elapsed(int id, void *a, void *b, float *ms);

/* out = a @ b through cuBLAS (2-d float32/float64 on one CUDA device; out
 * is a new C-contiguous array). */
/* Page-locked host memory (portable: pinned for every device). */
EM_API em_status em_cuda_pinned_alloc(int id, size_t n, void **out);
EM_API em_status em_cuda_pinned_free(void *p);
EM_API em_status em_cuda_matmul(const em_array *a, const em_array *b, em_array *out);

#endif
