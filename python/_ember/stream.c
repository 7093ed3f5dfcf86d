/* Streams and events from Python, on any device (em_stream_* / em_event_*,
 * ember.h).  They cross into Python as integers (the backend's handles);
 * ember/cuda_runtime.py wraps them in objects that own them.  A device
 * argument is what pyem_parse_device takes (None: the current device). */
#include "pyember.h"

/* Note: callers compute s before reading h (argument order is unspecified). */
static PyObject *pyem__handle(em_status s, void *h) {
    return s == EM_OK ? PyLong_FromVoidPtr(h) : pyem_raise(s);
}

/* stream_create(device, nonblocking=False) -> handle */
static PyObject *f_stream_create(PyObject *self, PyObject *args) {
    PyObject *o;
    int nonblocking = 0;
    em_device dev;
    void *h = NULL;
    if (!PyArg_ParseTuple(args, "O|p", &o, &nonblocking) || pyem_parse_device(o, &dev) < 0)
        return NULL;
    em_status s = em_stream_create(dev, nonblocking, &h);
    return pyem__handle(s, h);
}

/* event_create(device, timing=True) -> handle */
static PyObject *f_event_create(PyObject *self, PyObject *args) {
    PyObject *o;
    int timing = 1;
    em_device dev;
    void *h = NULL;
    if (!PyArg_ParseTuple(args, "O|p", &o, &timing) || pyem_parse_device(o, &dev) < 0) return NULL;
    em_status s = em_event_create(dev, timing, &h);
    return pyem__handle(s, h);
}

/* stream_call(op, device, h1, h2=None) for the calls that return a status
 * (event_elapsed: the milliseconds; event_query: 1.0 when done, else 0.0);
 * the waits release the GIL. */
static PyObject *f_stream_call(PyObject *self, PyObject *args) {
    const char *op;
    PyObject *o, *o1, *o2 = Py_None;
    em_device dev;
    if (!PyArg_ParseTuple(args, "sOO|O", &op, &o, &o1, &o2) || pyem_parse_device(o, &dev) < 0)
        return NULL;
    void *h1 = o1 == Py_None ? NULL : PyLong_AsVoidPtr(o1),
         *h2 = o2 == Py_None ? NULL : PyLong_AsVoidPtr(o2);
    if (PyErr_Occurred()) return NULL;
    if ((!strcmp(op, "stream_sync") || !strcmp(op, "event_record")) &&
        pyem_fusion_flush(dev, op) < 0) /* pending work is queued work */
        return NULL;
    /* Work still pending on a stream is queued before the stream goes. */
    if (!strcmp(op, "stream_destroy") && h1 && pyem_fusion_flush_stream(dev, h1, op) < 0)
        return NULL;
    em_status s;
    float ms = 0;
    bool done = false;
    Py_BEGIN_ALLOW_THREADS if (!strcmp(op, "stream_destroy")) s = em_stream_destroy(dev, h1);
    else if (!strcmp(op, "stream_sync")) s = em_stream_synchronize(dev, h1);
    else if (!strcmp(op, "stream_wait")) s = em_stream_wait(dev, h1, h2);
    else if (!strcmp(op, "event_destroy")) s = em_event_destroy(dev, h1);
    else if (!strcmp(op, "event_record")) s = em_event_record(dev, h1, h2);
    else if (!strcmp(op, "event_sync")) s = em_event_synchronize(dev, h1);
    else if (!strcmp(op, "event_query")) s = em_event_query(dev, h1, &done), ms = done;
    else if (!strcmp(op, "event_elapsed")) s = em_event_elapsed(dev, h1, h2, &ms);
    else s = em_error(EM_EVALUE, "unknown stream call '%s'", op);
    Py_END_ALLOW_THREADS if (s != EM_OK) return pyem_raise(s);
    return PyFloat_FromDouble(ms);
}

/* stream_get(device=None) -> this thread's current stream on device's kind, or None */
static PyObject *f_stream_get(PyObject *self, PyObject *args) {
    PyObject *o = Py_None;
    em_device dev;
    void *h = NULL;
    if (!PyArg_ParseTuple(args, "|O", &o) || pyem_parse_device(o, &dev) < 0) return NULL;
    em_status s = em_stream_get(dev, &h);
    if (s != EM_OK) return pyem_raise(s);
    return h ? PyLong_FromVoidPtr(h) : Py_NewRef(Py_None);
}

/* stream_set(device, handle or None) -> the previous handle or None */
static PyObject *f_stream_set(PyObject *self, PyObject *args) {
    PyObject *o, *oh;
    em_device dev;
    void *prev = NULL;
    if (!PyArg_ParseTuple(args, "OO", &o, &oh) || pyem_parse_device(o, &dev) < 0) return NULL;
    void *h = oh == Py_None ? NULL : PyLong_AsVoidPtr(oh);
    if (PyErr_Occurred()) return NULL;
    /* This thread's pending work is queued on the stream it was asked on
     * before another becomes current; other threads' streams do not change. */
    em_device every = {dev.kind, -1};
    if (pyem_fusion_flush_mine(every, "stream change") < 0) return NULL;
    em_status s = em_stream_get(dev, &prev);
    if (s == EM_OK) s = em_stream_set(dev, h);
    if (s != EM_OK) return pyem_raise(s);
    return prev ? PyLong_FromVoidPtr(prev) : Py_NewRef(Py_None);
}

PyMethodDef pyem_stream_functions[] = {
    {"stream_create", f_stream_create, METH_VARARGS,
     "stream_create(device, nonblocking=False) -> handle"},
    {"event_create", f_event_create, METH_VARARGS, "event_create(device, timing=True) -> handle"},
    {"stream_call", f_stream_call, METH_VARARGS,
     "stream_call(op, device, h1, h2=None) -> float (ms for event_elapsed, 1.0/0.0 for "
     "event_query)"},
    {"stream_get", f_stream_get, METH_VARARGS,
     "stream_get(device=None) -> this thread's current stream handle or None"},
    {"stream_set", f_stream_set, METH_VARARGS,
     "stream_set(device, handle or None) -> previous handle or None"},
    {NULL, NULL, 0, NULL}};
