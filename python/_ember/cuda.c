/* CUDA-only helpers from Python: the device memory pool, pinned memory,
 * cuBLAS, the staged copies' knobs (streams and events, on any device, are
 * stream.c's). */
#include "pyember.h"
#include "ember/cuda.h"

/* cuda_matmul(a, b) -> a @ b through cuBLAS: float/complex stacks of equal batch shape on one CUDA device. */
static PyObject *f_cuda_matmul(PyObject *self, PyObject *args) {
    PyObject *oa, *ob;
    if (!PyArg_ParseTuple(args, "O!O!", EmArray_Type, &oa, EmArray_Type, &ob)) return NULL;
    em_array out = {0};
    em_status s;
    Py_BEGIN_ALLOW_THREADS s = em_cuda_matmul(EMARR(oa), EMARR(ob), &out);
    Py_END_ALLOW_THREADS return s == EM_OK ? pyem_wrap(&out) : pyem_raise(s);
}

/* Pinned host memory: an owner object exporting the bytes through the
 * buffer protocol (numpy.frombuffer takes it; the owner stays alive as the
 * array's base) and unpinning them when the last reference goes. */
typedef struct {
    PyObject_HEAD void *p;
    Py_ssize_t n;
    em_device dev;
} PyemPinned;

static void pyem__pinned_dealloc(PyObject *o) {
    PyemPinned *m = (PyemPinned *)o;
    PyTypeObject *tp = Py_TYPE(o);
    if (em_pinned_free(m->dev, m->p) != EM_OK) PyErr_WriteUnraisable(o);
    tp->tp_free(o);
    Py_DECREF(tp);
}

/* Each export holds a reference (view->obj), so the memory outlives it. */
static int pyem__pinned_getbuffer(PyObject *o, Py_buffer *view, int flags) {
    PyemPinned *m = (PyemPinned *)o;
    return PyBuffer_FillInfo(view, o, m->p, m->n, 0, flags);
}

static PyObject *pyem__pinned_repr(PyObject *o) {
    PyemPinned *m = (PyemPinned *)o;
    return PyUnicode_FromFormat("<ember pinned host memory, %zd bytes at %p>", m->n, m->p);
}

static PyObject *pyem__pinned_ptr(PyObject *o, void *c) {
    (void)c;
    return PyLong_FromVoidPtr(((PyemPinned *)o)->p);
}

static PyObject *pyem__pinned_len(PyObject *o, void *c) {
    (void)c;
    return PyLong_FromSsize_t(((PyemPinned *)o)->n);
}

static PyGetSetDef pyem__pinned_getset[] = {
    {"ptr", pyem__pinned_ptr, NULL, "address of the first byte", NULL},
    {"size", pyem__pinned_len, NULL, "bytes", NULL},
    {NULL, NULL, NULL, NULL, NULL}};

static PyType_Slot pyem__pinned_slots[] = {{Py_tp_dealloc, pyem__pinned_dealloc},
                                           {Py_tp_repr, pyem__pinned_repr},
                                           {Py_tp_getset, pyem__pinned_getset},
                                           {Py_bf_getbuffer, pyem__pinned_getbuffer},
                                           {0, NULL}};

static PyType_Spec pyem__pinned_spec = {"ember.cuda.PinnedMemory", sizeof(PyemPinned), 0,
                                        Py_TPFLAGS_DEFAULT, pyem__pinned_slots};

/* cuda_pinned_alloc(id, nbytes) -> PinnedMemory (the type is made on first use). */
static PyObject *f_cuda_pinned_alloc(PyObject *self, PyObject *args) {
    static PyTypeObject *tp;
    int id;
    Py_ssize_t n;
    if (!PyArg_ParseTuple(args, "in", &id, &n)) return NULL;
    if (n < 0)
        return PyErr_Format(PyExc_ValueError, "cannot pin a negative number of bytes (%zd)", n);
    if (!tp && !(tp = (PyTypeObject *)PyType_FromSpec(&pyem__pinned_spec))) return NULL;
    void *p = NULL;
    em_device dev = {EM_CUDA, id};
    em_status s;
    Py_BEGIN_ALLOW_THREADS s = em_pinned_alloc(dev, (size_t)n, &p);
    Py_END_ALLOW_THREADS if (s != EM_OK) return pyem_raise(s);
    PyemPinned *m = PyObject_New(PyemPinned, tp);
    if (!m) {
        em_pinned_free(dev, p);
        return NULL;
    }
    Py_INCREF(tp); /* each instance holds its heap type */
    m->p = p, m->n = n, m->dev = dev;
    return (PyObject *)m;
}

/* cuda_pool(id, action="stats", limit=0) -> (used, total) bytes, after
 * action: "stats", "free_all" (release cached blocks) or "set_limit". */
static PyObject *f_cuda_pool(PyObject *self, PyObject *args) {
    int id;
    const char *action = "stats";
    Py_ssize_t limit = 0;
    if (!PyArg_ParseTuple(args, "i|sn", &id, &action, &limit)) return NULL;
    if (id < 0) return PyErr_Format(PyExc_ValueError, "device id must be >= 0, got %d", id);
    if (limit < 0)
        return PyErr_Format(PyExc_ValueError, "limit must be >= 0 bytes, got %zd", limit);
    if (!strcmp(action, "free_all")) {
        Py_BEGIN_ALLOW_THREADS em_cuda_pool_free_all(id);
        Py_END_ALLOW_THREADS
    } else if (!strcmp(action, "set_limit")) {
        em_cuda_pool_set_limit(id, (size_t)limit);
    } else if (strcmp(action, "stats")) {
        return PyErr_Format(PyExc_ValueError,
                            "unknown pool action '%s'; expected 'stats', 'free_all' or 'set_limit'",
                            action);
    }
    size_t used, total;
    em_cuda_pool_stats(id, &used, &total);
    return Py_BuildValue("(nn)", (Py_ssize_t)used, (Py_ssize_t)total);
}

/* _cuda_copy_tune(min_bytes=0, chunk=0): em_copy_tune, for tests and probes. */
static PyObject *f_copy_tune(PyObject *self, PyObject *args) {
    unsigned long long min_bytes = 0, chunk = 0;
    if (!PyArg_ParseTuple(args, "|KK", &min_bytes, &chunk)) return NULL;
    em_copy_tune((size_t)(min_bytes > SIZE_MAX ? SIZE_MAX : min_bytes), (size_t)chunk);
    Py_RETURN_NONE;
}

/* _cuda_copy_stats() -> dict of em_copy_stats. */
static PyObject *f_copy_stats(PyObject *self, PyObject *unused) {
    em_copy_stats st;
    em_copy_stats_get(&st);
    return Py_BuildValue("{sKsKsKsKsKsK}", "staged", (unsigned long long)st.staged, "known",
                         (unsigned long long)st.known, "unstaged", (unsigned long long)st.unstaged,
                         "min_bytes", (unsigned long long)st.min_bytes, "buffers",
                         (unsigned long long)st.buffers, "buffer_bytes",
                         (unsigned long long)st.buffer_bytes);
}

/* _host_pinned(ptr, nbytes, device_id=0) -> bool: em_host_pinned on a
 * CUDA device (the out-of-core planner's test for a source it need not
 * stage). */
static PyObject *f_host_pinned(PyObject *self, PyObject *args) {
    unsigned long long ptr, n;
    int id = 0;
    if (!PyArg_ParseTuple(args, "KK|i", &ptr, &n, &id)) return NULL;
    bool r;
    em_device dev = {EM_CUDA, id};
    Py_BEGIN_ALLOW_THREADS r = em_host_pinned(dev, (const void *)(uintptr_t)ptr, (size_t)n);
    Py_END_ALLOW_THREADS return PyBool_FromLong(r);
}

/* _ember._cuda_prefetch_wait(): see pyem_cuda_prefetch_init. */
static PyObject *f_prefetch_wait(PyObject *self, PyObject *unused) {
    Py_BEGIN_ALLOW_THREADS em_cuda_prefetch_wait();
    Py_END_ALLOW_THREADS Py_RETURN_NONE;
}

/* NVRTC loads while a device's context is made (em_cuda_prefetch_nvrtc);
 * the loading thread is waited for from Python's atexit, which runs before
 * any C-level exit handler (libnvrtc's own among them). */
int pyem_cuda_prefetch_init(PyObject *m) {
    PyObject *wait = PyObject_GetAttrString(m, "_cuda_prefetch_wait");
    PyObject *atexit = wait ? PyImport_ImportModule("atexit") : NULL;
    PyObject *r = atexit ? PyObject_CallMethod(atexit, "register", "O", wait) : NULL;
    Py_XDECREF(wait);
    Py_XDECREF(atexit);
    if (!r) return -1;
    Py_DECREF(r);
    em_cuda_prefetch_nvrtc(true);
    return 0;
}

PyMethodDef pyem_cuda_functions[] = {
    {"_cuda_prefetch_wait", f_prefetch_wait, METH_NOARGS,
     "_cuda_prefetch_wait(): wait for NVRTC's background load, if one is under way"},
    {"_cuda_copy_tune", f_copy_tune, METH_VARARGS,
     "_cuda_copy_tune(min_bytes=0, chunk=0): stage pageable host copies from min_bytes on (0: the default, "
     "2**64-1: never) in chunks of chunk bytes (0: the default); for tests and probes"},
    {"_host_pinned", f_host_pinned, METH_VARARGS,
     "_host_pinned(ptr, nbytes, device_id=0) -> bool: host memory a CUDA device copies as it is"},
    {"_cuda_copy_stats", f_copy_stats, METH_NOARGS,
     "_cuda_copy_stats() -> dict: staged copies, large copies of driver-known (pinned) memory, large pageable "
     "copies without staging buffers, and the settings"},
    {"cuda_pool", f_cuda_pool, METH_VARARGS,
     "cuda_pool(id, action='stats', limit=0) -> (used, total)"},
    {"cuda_matmul", f_cuda_matmul, METH_VARARGS,
     "cuda_matmul(a, b) -> a @ b via cuBLAS (float/complex stacks, equal batch dims, one CUDA device)"},
    {"cuda_pinned_alloc", f_cuda_pinned_alloc, METH_VARARGS,
     "cuda_pinned_alloc(id, nbytes) -> PinnedMemory"},
    {NULL, NULL, 0, NULL}};
