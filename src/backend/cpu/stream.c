/* Streams and events on the CPU (the backend table's primitives): every
 * operation has finished when its call returns, so a stream is an in-order
 * queue that is always complete, its waits return at once, and an event is
 * the host's clock when it was recorded -- enough for em.Stream, em.Event
 * and em.get_elapsed_time to behave as on a GPU. */
#include "backend/backend.h"
#include "backend/cpu/cpu.h"
#include "core/core.h"

#include <stdlib.h>
#include <time.h>

typedef struct em__cpu_event {
    bool timing, recorded;
    double ms; /* CLOCK_MONOTONIC at the record, in milliseconds */
} em__cpu_event;

static _Thread_local void *em__cpu_stream; /* the current one: only handed back */

void em_cpu_stream_set(int id, void *s) {
    EM_UNUSED(id);
    em__cpu_stream = s;
}

void *em_cpu_stream_get(int id) {
    EM_UNUSED(id);
    return em__cpu_stream;
}

/* A stream is a distinct handle and nothing else. */
em_status em_cpu_stream_create(int id, bool nonblocking, void **out) {
    EM_UNUSED(id), EM_UNUSED(nonblocking);
    if (!(*out = malloc(1))) return em_error(EM_ENOMEM, "out of host memory for a stream");
    return EM_OK;
}

em_status em_cpu_stream_destroy(int id, void *s) {
    EM_UNUSED(id);
    if (em__cpu_stream == s) em__cpu_stream = NULL;
    free(s);
    return EM_OK;
}

/* Synchronizing a stream, waiting for an event: nothing is ever queued. */
em_status em_cpu_stream_sync(int id, void *s) {
    EM_UNUSED(id), EM_UNUSED(s);
    return EM_OK;
}

em_status em_cpu_stream_wait_event(int id, void *s, void *e) {
    EM_UNUSED(id), EM_UNUSED(s), EM_UNUSED(e);
    return EM_OK;
}

em_status em_cpu_event_create(int id, bool timing, void **out) {
    EM_UNUSED(id);
    em__cpu_event *e = calloc(1, sizeof *e);
    if (!e) return em_error(EM_ENOMEM, "out of host memory for an event");
    e->timing = timing;
    *out = e;
    return EM_OK;
}

em_status em_cpu_event_destroy(int id, void *e) {
    EM_UNUSED(id);
    free(e);
    return EM_OK;
}

em_status em_cpu_event_record(int id, void *e, void *s) {
    EM_UNUSED(id), EM_UNUSED(s);
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    em__cpu_event *ev = e;
    ev->ms = (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec * 1e-6;
    ev->recorded = true;
    return EM_OK;
}

em_status em_cpu_event_sync(int id, void *e) {
    EM_UNUSED(id), EM_UNUSED(e);
    return EM_OK;
}

em_status em_cpu_event_query(int id, void *e, bool *done) {
    EM_UNUSED(id), EM_UNUSED(e);
    *done = true;
    return EM_OK;
}

em_status em_cpu_event_elapsed(int id, void *start, void *end, float *ms) {
    EM_UNUSED(id);
    const em__cpu_event *a = start, *b = end;
    if (!a->recorded || !b->recorded || !a->timing || !b->timing)
        return em_error(EM_EDEVICE, "elapsed time between two events: both must be timing "
                                    "events, and recorded");
    *ms = (float)(b->ms - a->ms);
    return EM_OK;
}
