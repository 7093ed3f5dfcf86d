/* The runtime's public entry points on any device: streams and events
 * (em_stream_* / em_event_*) and pinned host memory (em_pinned_*), over the
 * backend table's primitives (backend.h), after a check of the device. */
#include "backend/backend.h"
#include "core/core.h"

/* The status of finding a device's backend *be, for its streams and events:
 * a backend fills all of those fields or none (every backend Ember has fills
 * them), and one that has none says so instead of a NULL call. */
static em_status em__rt(em_status found, const em_backend *const *be) {
    if (found != EM_OK || (*be)->stream_create) return found;
    return em_error(EM_EUNSUPPORTED, "streams and events are not available on %s devices yet",
                    (*be)->name);
}

em_status em_stream_create(em_device dev, bool nonblocking, void **out) {
    const em_backend *be;
    EM_CHECK(em__rt(em__backend_for(dev, &be), &be));
    return be->stream_create(dev.id, nonblocking, out);
}

em_status em_stream_destroy(em_device dev, void *s) {
    const em_backend *be;
    EM_CHECK(em__rt(em__backend_for(dev, &be), &be));
    return be->stream_destroy(dev.id, s);
}

em_status em_stream_synchronize(em_device dev, void *s) {
    const em_backend *be;
    EM_CHECK(em__rt(em__backend_for(dev, &be), &be));
    return be->stream_synchronize(dev.id, s);
}

em_status em_stream_wait_event(em_device dev, void *s, void *e) {
    const em_backend *be;
    EM_CHECK(em__rt(em__backend_for(dev, &be), &be));
    return be->stream_wait_event(dev.id, s, e);
}

em_status em_stream_wait(em_device dev, void *waiter, void *producer) {
    if (waiter == producer) return EM_OK; /* one stream: already in order */
    const em_backend *be;
    EM_CHECK(em__rt(em__backend_for(dev, &be), &be));
    void *e;
    EM_CHECK(be->event_create(dev.id, false, &e));
    em_status s = be->event_record(dev.id, e, producer);
    if (s == EM_OK) s = be->stream_wait_event(dev.id, waiter, e);
    be->event_destroy(dev.id, e); /* released once the wait is satisfied */
    return s;
}

/* The current stream is read per launch (python/_ember/kernel.c): only the
 * kind is checked, so that no device count is asked for. */
static em_status em__kind(em_device dev, const em_backend **out) {
    *out = (unsigned)dev.kind < EM_NKINDS ? em__backend(dev.kind) : NULL;
    if (!*out) return em_error(EM_EDEVICE, "no backend for device kind %d", (int)dev.kind);
    return EM_OK;
}

em_status em_stream_set(em_device dev, void *s) {
    const em_backend *be;
    EM_CHECK(em__rt(em__kind(dev, &be), &be));
    be->stream_set(dev.id, s);
    return EM_OK;
}

em_status em_stream_get(em_device dev, void **out) {
    const em_backend *be;
    EM_CHECK(em__rt(em__kind(dev, &be), &be));
    *out = be->stream_get(dev.id);
    return EM_OK;
}

em_status em_event_create(em_device dev, bool timing, void **out) {
    const em_backend *be;
    EM_CHECK(em__rt(em__backend_for(dev, &be), &be));
    return be->event_create(dev.id, timing, out);
}

em_status em_event_destroy(em_device dev, void *e) {
    const em_backend *be;
    EM_CHECK(em__rt(em__backend_for(dev, &be), &be));
    return be->event_destroy(dev.id, e);
}

em_status em_event_record(em_device dev, void *e, void *s) {
    const em_backend *be;
    EM_CHECK(em__rt(em__backend_for(dev, &be), &be));
    return be->event_record(dev.id, e, s);
}

em_status em_event_synchronize(em_device dev, void *e) {
    const em_backend *be;
    EM_CHECK(em__rt(em__backend_for(dev, &be), &be));
    return be->event_synchronize(dev.id, e);
}

em_status em_event_query(em_device dev, void *e, bool *done) {
    const em_backend *be;
    EM_CHECK(em__rt(em__backend_for(dev, &be), &be));
    return be->event_query(dev.id, e, done);
}

em_status em_event_elapsed(em_device dev, void *start, void *end, float *ms) {
    const em_backend *be;
    EM_CHECK(em__rt(em__backend_for(dev, &be), &be));
    return be->event_elapsed(dev.id, start, end, ms);
}

em_status em_pinned_alloc(em_device dev, size_t n, void **out) {
    const em_backend *be;
    EM_CHECK(em__backend_for(dev, &be));
    if (!be->host_alloc)
        return em_error(EM_EUNSUPPORTED,
                        "%s devices have no pinned host memory (their memory "
                        "is the host's)",
                        be->name);
    return be->host_alloc(dev.id, n, true, out);
}

em_status em_pinned_free(em_device dev, void *p) {
    const em_backend *be;
    if (!p) return EM_OK;
    EM_CHECK(em__backend_for(dev, &be));
    return be->host_free ? be->host_free(dev.id, p) : EM_OK;
}
