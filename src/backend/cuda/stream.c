/* Streams and events: the backend table's primitives (backend.h).
 *
 * Each thread has a current stream (NULL: the legacy default stream, which
 * orders against every blocking stream), one for all CUDA devices.  Kernels
 * and device-to-device copies go onto it; host copies first wait for it, so
 * a host read always sees the results of the work queued before it.  The
 * pool tags freed blocks with the stream they were freed on and reuses them
 * only on that stream (pool.c), so a block is never handed to another
 * stream while queued work may still use it.  Exchanges with other
 * libraries (DLPack, the CUDA array interface) order streams with an event,
 * never by making the host wait (em_stream_wait, src/core/stream.c).
 */
#include "backend/cuda/cuda_internal.h"

enum { EM_CU_ERROR_NOT_READY = 600 };

static _Thread_local CUstream em__stream;
static _Thread_local unsigned em__stream_resets; /* em_cu_resets() when it was set */

/* A stream set before a device reset (reset.c) belongs to the old context:
 * the thread falls back to the default stream. */
CUstream em_cu_stream(void) {
    return em__stream && em__stream_resets != em_cu_resets() ? NULL : em__stream;
}

void em_cu_stream_set(int id, void *s) {
    (void)id; /* one current stream per thread (see above) */
    em__stream = s;
    em__stream_resets = em_cu_resets();
}

/* What was set (a stream of before a reset too: stream_destroy needs it). */
void *em_cu_stream_get(int id) {
    (void)id;
    return em__stream;
}

em_status em_cu_wait_current(void) {
    CUstream s = em_cu_stream();
    if (s) EM_CU(em__cu.cuStreamSynchronize(s), "waiting for the current stream");
    return EM_OK;
}

em_status em_cu_stream_create(int id, bool nonblocking, void **out) {
    EM_CHECK(em_cu_ctx(id));
    CUstream s;
    EM_CU(em__cu.cuStreamCreate(&s, nonblocking ? 1u : 0u), "cuStreamCreate");
    *out = s;
    return EM_OK;
}

em_status em_cu_stream_destroy(int id, void *s) {
    EM_CHECK(em_cu_ctx(id));
    if (em__stream == s) em__stream = NULL;
    EM_CU(em__cu.cuStreamDestroy(s), "cuStreamDestroy");
    return EM_OK;
}

em_status em_cu_stream_sync(int id, void *s) {
    EM_CHECK(em_cu_ctx(id));
    EM_CU(em__cu.cuStreamSynchronize(s), "synchronizing a stream");
    return EM_OK;
}

em_status em_cu_stream_wait_event(int id, void *s, void *e) {
    EM_CHECK(em_cu_ctx(id));
    EM_CU(em__cu.cuStreamWaitEvent(s, e, 0), "making one stream wait for another");
    return EM_OK;
}

em_status em_cu_event_create(int id, bool timing, void **out) {
    EM_CHECK(em_cu_ctx(id));
    CUevent e;
    EM_CU(em__cu.cuEventCreate(&e, timing ? 0u : EM_CU_EVENT_DISABLE_TIMING), "cuEventCreate");
    *out = e;
    return EM_OK;
}

em_status em_cu_event_destroy(int id, void *e) {
    EM_CHECK(em_cu_ctx(id));
    EM_CU(em__cu.cuEventDestroy(e), "cuEventDestroy");
    return EM_OK;
}

em_status em_cu_event_record(int id, void *e, void *s) {
    EM_CHECK(em_cu_ctx(id));
    EM_CU(em__cu.cuEventRecord(e, s), "cuEventRecord");
    return EM_OK;
}

em_status em_cu_event_sync(int id, void *e) {
    EM_CHECK(em_cu_ctx(id));
    EM_CU(em__cu.cuEventSynchronize(e), "cuEventSynchronize");
    return EM_OK;
}

em_status em_cu_event_query(int id, void *e, bool *done) {
    EM_CHECK(em_cu_ctx(id));
    CUresult r = em__cu.cuEventQuery(e);
    if (r != EM_CU_SUCCESS && r != EM_CU_ERROR_NOT_READY) return em_cu_fail(r, "cuEventQuery");
    *done = r == EM_CU_SUCCESS;
    return EM_OK;
}

em_status em_cu_event_elapsed(int id, void *a, void *b, float *ms) {
    EM_CHECK(em_cu_ctx(id));
    EM_CU(em__cu.cuEventElapsedTime(ms, a, b),
          "cuEventElapsedTime (were both events recorded and completed?)");
    return EM_OK;
}

/* DLPack and the CUDA array interface name the legacy default stream 1. */
static CUstream em__stream_handle(void *s) { return s == (void *)1 ? NULL : s; }

em_status em_cu_order(int id, void *waiter, void *producer) {
    CUstream w = em__stream_handle(waiter), p = em__stream_handle(producer);
    if (w == p) return EM_OK; /* one stream: already in order */
    EM_CHECK(em_cu_ctx(id));
    CUevent e;
    EM_CU(em__cu.cuEventCreate(&e, EM_CU_EVENT_DISABLE_TIMING), "cuEventCreate");
    CUresult r = em__cu.cuEventRecord(e, p);
    if (r == EM_CU_SUCCESS) r = em__cu.cuStreamWaitEvent(w, e, 0);
    em__cu.cuEventDestroy(e); /* released once the wait is satisfied */
    return r == EM_CU_SUCCESS ? EM_OK : em_cu_fail(r, "making one stream wait for another");
}
