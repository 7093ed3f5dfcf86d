/* OpenCL streams and events: the backend table's fields and ember/opencl.h's
 * em_opencl_stream_* / em_opencl_event_*.  A stream is an in-order command
 * queue of the device's context, with profiling; the device's own queue is
 * the default stream.  An event is a marker queued on one.  The runtime
 * sends all work to em_cl_queue, which honours the thread's current stream.
 *
 * OpenCL queues never order against each other by themselves, while CUDA's
 * blocking streams order against the legacy default stream.  Ember's arrays
 * are written on whichever queue was current (an em.ones() fill on the
 * default queue, a kernel inside `with stream:`) and read after a switch, so
 * switching the current queue orders the new one after the old one (a
 * marker, no host wait): `with s:` sees what came before, and what follows
 * sees what ran on s.  Queues used explicitly (event waits, raw launches on
 * a given stream) order only as their caller asks. */
#include "backend/opencl/cl_internal.h"

#include <stdlib.h>

/* A table event: the marker of its last record (NULL before the first). */
typedef struct em__cl_event {
    cl_event ev;
    bool timing;
} em__cl_event;

/* Work queued on waiter after this runs after the work queued on producer
 * so far: a marker on producer that a marker on waiter waits for (a marker
 * in an in-order queue holds back what follows it). */
static cl_int em__order(cl_command_queue waiter, cl_command_queue producer) {
    cl_event e = NULL;
    cl_int err = em__cl.clEnqueueMarkerWithWaitList(producer, 0, NULL, &e);
    if (!err) err = em__cl.clEnqueueMarkerWithWaitList(waiter, 1, &e, NULL);
    if (e) em__cl.clReleaseEvent(e);
    return err;
}

/* Make s (NULL: d's own queue) current for this thread, ordered after the
 * queue current before when that is d's too. */
static cl_int em__switch(em_cl_dev *d, cl_command_queue s) {
    cl_command_queue old = em_cl_cur_dev == d && em_cl_cur_queue ? em_cl_cur_queue : NULL;
    cl_command_queue from = old ? old : (d ? d->queue : NULL);
    cl_command_queue to = s ? s : (d ? d->queue : NULL);
    em_cl_cur_queue = s;
    em_cl_cur_dev = s ? d : NULL;
    return from && to && from != to ? em__order(to, from) : 0;
}

em_status em_cl_stream_create(int id, bool nonblocking, void **out) {
    EM_UNUSED(nonblocking); /* every OpenCL queue is independent of the default one */
    em_cl_dev *d;
    EM_CHECK(em_cl_open(id, &d));
    cl_int err = 0;
    cl_command_queue q =
        em__cl.clCreateCommandQueue(d->ctx, d->dev, EM_CL_QUEUE_PROFILING_ENABLE, &err);
    if (!q || err) return em_cl_fail(err, "clCreateCommandQueue");
    *out = q;
    return EM_OK;
}

em_status em_cl_stream_destroy(int id, void *s) {
    if (!s) return EM_OK;
    if (em_cl_cur_queue == s) {
        em_cl_dev *d;
        EM_CHECK(em_cl_open(id, &d));
        em__switch(d, NULL); /* the default queue goes on after s's work */
    }
    cl_int err = em__cl.clFinish(s); /* its pooled blocks may be reused anywhere after this */
    if (!err) err = em__cl.clReleaseCommandQueue(s);
    return err ? em_cl_fail(err, "releasing a stream") : EM_OK;
}

/* The table's stream_set returns nothing: a failed ordering marker (only on
 * a lost device) shows at the next call on the queue. */
void em_cl_stream_set(int id, void *s) {
    em_cl_dev *d = NULL;
    if (em_cl_open(id, &d) != EM_OK) d = NULL;
    if (d || !s) em__switch(d, s);
}

void *em_cl_stream_get(int id) {
    EM_UNUSED(id); /* one current queue per thread, whose device it is */
    return em_cl_cur_queue;
}

em_status em_cl_stream_sync(int id, void *s) {
    em_cl_dev *d;
    EM_CHECK(em_cl_open(id, &d));
    cl_int err = em__cl.clFinish(s ? s : d->queue);
    return err ? em_cl_fail(err, "synchronizing a stream") : EM_OK;
}

em_status em_cl_stream_wait_event(int id, void *s, void *e) {
    em_cl_dev *d;
    EM_CHECK(em_cl_open(id, &d));
    const em__cl_event *ev = e;
    if (!ev || !ev->ev) return EM_OK; /* never recorded: nothing to wait for */
    cl_int err = em__cl.clEnqueueMarkerWithWaitList(s ? s : d->queue, 1, &ev->ev, NULL);
    return err ? em_cl_fail(err, "making a stream wait for an event") : EM_OK;
}

em_status em_cl_event_create(int id, bool timing, void **out) {
    EM_UNUSED(id);
    em__cl_event *e = calloc(1, sizeof *e);
    if (!e) return em_error(EM_ENOMEM, "out of host memory for an event");
    e->timing = timing;
    *out = e;
    return EM_OK;
}

em_status em_cl_event_destroy(int id, void *e) {
    EM_UNUSED(id);
    em__cl_event *ev = e;
    if (ev && ev->ev) em__cl.clReleaseEvent(ev->ev);
    free(ev);
    return EM_OK;
}

/* The marker is flushed at once, so that it is timed when the device
 * reaches it and not when someone first waits. */
em_status em_cl_event_record(int id, void *e, void *s) {
    em_cl_dev *d;
    EM_CHECK(em_cl_open(id, &d));
    em__cl_event *ev = e;
    cl_command_queue q = s ? s : d->queue;
    cl_event m = NULL;
    cl_int err = em__cl.clEnqueueMarkerWithWaitList(q, 0, NULL, &m);
    if (!err) err = em__cl.clFlush(q);
    if (err) {
        if (m) em__cl.clReleaseEvent(m);
        return em_cl_fail(err, "recording an event");
    }
    if (ev->ev) em__cl.clReleaseEvent(ev->ev);
    ev->ev = m;
    return EM_OK;
}

em_status em_cl_event_sync(int id, void *e) {
    EM_UNUSED(id);
    const em__cl_event *ev = e;
    cl_int err = ev->ev ? em__cl.clWaitForEvents(1, &ev->ev) : 0;
    return err ? em_cl_fail(err, "waiting for an event") : EM_OK;
}

em_status em_cl_event_query(int id, void *e, bool *done) {
    EM_UNUSED(id);
    const em__cl_event *ev = e;
    cl_int st = EM_CL_COMPLETE;
    cl_int err = ev->ev ? em__cl.clGetEventInfo(ev->ev, EM_CL_EVENT_COMMAND_EXECUTION_STATUS,
                                                sizeof st, &st, NULL)
                        : 0;
    if (err) return em_cl_fail(err, "querying an event");
    if (st < 0) return em_cl_fail(st, "the work an event recorded"); /* it failed */
    *done = st == EM_CL_COMPLETE;
    return EM_OK;
}

/* The ends of the two markers, as CUDA times an event when the device
 * reaches it; both must have completed (CUDA's cuEventElapsedTime). */
em_status em_cl_event_elapsed(int id, void *start, void *end, float *ms) {
    const em__cl_event *a = start, *b = end;
    if (!a->ev || !b->ev || !a->timing || !b->timing)
        return em_error(EM_EDEVICE, "elapsed time between two events: both must be timing "
                                    "events, and recorded");
    bool da = false, db = false;
    EM_CHECK(em_cl_event_query(id, start, &da));
    EM_CHECK(em_cl_event_query(id, end, &db));
    if (!da || !db)
        return em_error(EM_EDEVICE, "elapsed time between two events: the work they recorded "
                                    "has not completed yet (synchronize the later one first)");
    cl_ulong ta = 0, tb = 0;
    cl_int err =
        em__cl.clGetEventProfilingInfo(a->ev, EM_CL_PROFILING_COMMAND_END, sizeof ta, &ta, NULL);
    if (!err)
        err = em__cl.clGetEventProfilingInfo(b->ev, EM_CL_PROFILING_COMMAND_END, sizeof tb, &tb,
                                             NULL);
    if (err) return em_cl_fail(err, "reading an event's time");
    *ms = (float)((double)(int64_t)(tb - ta) * 1e-6);
    return EM_OK;
}

/* ---- ember/opencl.h's entry points (an event there is the marker itself) ---- */

em_status em_opencl_stream_create(int id, void **out) {
    return em_cl_stream_create(id, false, out);
}

em_status em_opencl_stream_destroy(int id, void *s) { return em_cl_stream_destroy(id, s); }

em_status em_opencl_stream_set(int id, void *s) {
    em_cl_dev *d = NULL;
    if (s)
        EM_CHECK(em_cl_open(id, &d));
    else if (em_cl_open(id, &d) != EM_OK)
        d = NULL;
    cl_int err = em__switch(d, s);
    return err ? em_cl_fail(err, "ordering a stream after the previous one") : EM_OK;
}

void *em_opencl_stream_get(void) { return em_cl_cur_queue; }

em_status em_opencl_stream_sync(int id, void *s) { return em_cl_stream_sync(id, s); }

em_status em_opencl_event_record(int id, void *s, void **out) {
    em_cl_dev *d;
    EM_CHECK(em_cl_open(id, &d));
    cl_event e = NULL;
    cl_int err = em__cl.clEnqueueMarkerWithWaitList(s ? s : em_cl_queue(d), 0, NULL, &e);
    if (err) return em_cl_fail(err, "recording an event");
    *out = e;
    return EM_OK;
}

em_status em_opencl_event_sync(void *e) {
    cl_event ev = e;
    cl_int err = e ? em__cl.clWaitForEvents(1, &ev) : 0;
    return err ? em_cl_fail(err, "waiting for an event") : EM_OK;
}

em_status em_opencl_event_elapsed(void *a, void *b, float *ms) {
    cl_ulong ta = 0, tb = 0;
    EM_CHECK(em_opencl_event_sync(a));
    EM_CHECK(em_opencl_event_sync(b));
    cl_int err =
        em__cl.clGetEventProfilingInfo(a, EM_CL_PROFILING_COMMAND_END, sizeof ta, &ta, NULL);
    if (!err)
        err = em__cl.clGetEventProfilingInfo(b, EM_CL_PROFILING_COMMAND_END, sizeof tb, &tb, NULL);
    if (err) return em_cl_fail(err, "reading an event's time");
    *ms = (float)((double)((int64_t)(tb - ta)) * 1e-6);
    return EM_OK;
}

void em_opencl_event_destroy(void *e) {
    if (e) em__cl.clReleaseEvent(e);
}
