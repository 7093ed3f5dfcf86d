/* OpenCL streams and events (ember/opencl.h): a stream is an in-order
 * command queue of the device's context, an event a marker queued on one,
 * with profiling for the elapsed time between two.  Not in the backend
 * table yet (its stream and event fields are another branch's); the
 * runtime already sends all work to em_cl_queue, which honours the
 * thread's current stream. */
#include "backend/opencl/cl_internal.h"

em_status em_opencl_stream_create(int id, void **out) {
    em_cl_dev *d;
    EM_CHECK(em_cl_open(id, &d));
    cl_int err = 0;
    cl_command_queue q =
        em__cl.clCreateCommandQueue(d->ctx, d->dev, EM_CL_QUEUE_PROFILING_ENABLE, &err);
    if (!q || err) return em_cl_fail(err, "clCreateCommandQueue");
    *out = q;
    return EM_OK;
}

em_status em_opencl_stream_destroy(int id, void *s) {
    if (!s) return EM_OK;
    if (em_cl_cur_queue == s) em_cl_cur_queue = NULL, em_cl_cur_dev = NULL;
    cl_int err = em__cl.clFinish(s); /* its pooled blocks may be reused anywhere after this */
    if (!err) err = em__cl.clReleaseCommandQueue(s);
    (void)id;
    return err ? em_cl_fail(err, "releasing a stream") : EM_OK;
}

em_status em_opencl_stream_set(int id, void *s) {
    em_cl_dev *d = NULL;
    if (s) EM_CHECK(em_cl_open(id, &d));
    em_cl_cur_queue = s;
    em_cl_cur_dev = d;
    return EM_OK;
}

void *em_opencl_stream_get(void) { return em_cl_cur_queue; }

em_status em_opencl_stream_sync(int id, void *s) {
    em_cl_dev *d;
    EM_CHECK(em_cl_open(id, &d));
    cl_int err = em__cl.clFinish(s ? s : d->queue);
    return err ? em_cl_fail(err, "synchronizing a stream") : EM_OK;
}

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
    cl_int err = em__cl.clGetEventProfilingInfo(a, EM_CL_PROFILING_COMMAND_END, sizeof ta, &ta,
                                                NULL);
    if (!err)
        err = em__cl.clGetEventProfilingInfo(b, EM_CL_PROFILING_COMMAND_END, sizeof tb, &tb, NULL);
    if (err) return em_cl_fail(err, "reading an event's time");
    *ms = (float)((double)((int64_t)(tb - ta)) * 1e-6);
    return EM_OK;
}

void em_opencl_event_destroy(void *e) {
    if (e) em__cl.clReleaseEvent(e);
}
