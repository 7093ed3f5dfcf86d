/* User kernels from Python: the C `Function` type whose call is the
 * per-launch path of em.RawKernel (ember/_kernels.py subclasses it), the
 * module-loading helpers it is built from, and the call of compiled CPU
 * expression kernels (ember/_expr.py).
 *
 * A call k(grid, block, args, shared_mem=0, stream=None) parses the launch
 * configuration, packs the arguments (below), finds the kernel loaded on the
 * current CUDA device (cached per device in the object; the first call on a
 * device asks the Python subclass's _load(dev) -> function handle, which
 * compiles) and launches it.  Everything a launch needs is checked before
 * the device is touched, so argument errors are the same without a GPU.
 *
 * Argument packing (CuPy's rules): an ember array or an object with
 * __cuda_array_interface__ passes its device pointer; a NumPy scalar passes
 * its bytes; Python bool, int, float and complex pass as bool, int64,
 * float64 and complex128.  Values sit in one buffer, each aligned to its
 * size (at most 16), and the driver gets the usual array of their addresses.
 */
#include "ember/cuda.h"
#include "ember/kernel.h"
#include "pyember.h"

#include <limits.h>
#include <string.h>

#define PYEM_KARG_BYTES 4096 /* the classic CUDA limit on a kernel's parameters */
#define PYEM_KARG_MAX 512
#define PYEM_KDEV 64

typedef struct {
    PyObject_HEAD vectorcallfunc vectorcall; /* Function_vectorcall once initialised */
    PyObject *name;                          /* str: the kernel's name, for messages and _load */
    const char *cname;
    void *fn[PYEM_KDEV]; /* the loaded kernel per CUDA device id (NULL: not yet) */
} FunctionObject;

typedef struct {
    _Alignas(16) unsigned char buf[PYEM_KARG_BYTES];
    void *ptr[PYEM_KARG_MAX];
    size_t used;
    int n;
} pyem_kargs;

static PyObject *pyem__np_ndarray;
PyObject *pyem__np_generic; /* numpy.generic, shared with jit_launch.c */

/* *out = o.name (new reference), or NULL with nothing raised when o has no
 * such attribute; -1 on another error. */
static int pyem__optattr(PyObject *o, const char *name, PyObject **out) {
    *out = PyObject_GetAttrString(o, name);
    if (*out) return 1;
    if (!PyErr_ExceptionMatches(PyExc_AttributeError)) return -1;
    PyErr_Clear();
    return 0;
}

/* Append size bytes of val, aligned to min(size, 16). */
static int pyem__put(pyem_kargs *k, const void *val, size_t size, int pos, const char *kname) {
    size_t align = size >= 16 ? 16 : size >= 8 ? 8 : size >= 4 ? 4 : size >= 2 ? 2 : 1;
    size_t off = (k->used + align - 1) & ~(align - 1);
    if (k->n >= PYEM_KARG_MAX || off + size > PYEM_KARG_BYTES) {
        PyErr_Format(PyExc_ValueError,
                     "kernel '%s': argument %d does not fit: the arguments may take "
                     "at most %d bytes",
                     kname, pos, PYEM_KARG_BYTES);
        return -1;
    }
    memset(k->buf + k->used, 0, off - k->used); /* padding: the same bytes every launch */
    memcpy(k->buf + off, val, size);
    k->ptr[k->n++] = k->buf + off;
    k->used = off + size;
    return 0;
}

/* An ember array's device pointer, checking where it lives (kdev: the
 * current CUDA device, or -1 when the current device is not a GPU). */
static int pyem__put_array(pyem_kargs *k, PyObject *o, int kdev, int pos, const char *kname) {
    /* A kernel may write any argument: pending readers of it go first. */
    if (pyem_touch(o, "kernel argument") < 0) return -1;
    em_status live = em_array_live(EMARR(o)); /* lost in a device reset: never passed */
    if (live != EM_OK) return pyem_raise(live), -1;
    em_device d = em_array_device(EMARR(o));
    if (d.kind != EM_CUDA) {
        PyErr_Format(PyExc_ValueError,
                     "kernel '%s': argument %d is an array on %s; raw CUDA kernels "
                     "take arrays on a CUDA device",
                     kname, pos, em_device_kind_name(d.kind));
        return -1;
    }
    if (kdev >= 0 && d.id != kdev) {
        PyErr_Format(PyExc_ValueError,
                     "kernel '%s': argument %d is on cuda:%d but the kernel runs on "
                     "cuda:%d (the current device)",
                     kname, pos, d.id, kdev);
        return -1;
    }
    void *p = EMARR(o)->data;
    return pyem__put(k, &p, sizeof p, pos, kname);
}

/* A NumPy scalar's bytes (numeric and bool dtypes only). */
static int pyem__put_npscalar(pyem_kargs *k, PyObject *o, int pos, const char *kname) {
    PyObject *dt = PyObject_GetAttrString(o, "dtype");
    em_dtype e;
    int bad = !dt || pyem_dtype_from_obj(dt, &e, 0) < 0;
    Py_XDECREF(dt);
    if (bad) {
        PyErr_Clear();
        PyErr_Format(PyExc_TypeError,
                     "kernel '%s': argument %d is a NumPy scalar of unsupported type "
                     "'%s' (bool, integer, float and complex types are allowed)",
                     kname, pos, Py_TYPE(o)->tp_name);
        return -1;
    }
    Py_buffer view;
    if (PyObject_GetBuffer(o, &view, PyBUF_SIMPLE) < 0) return -1;
    int r = -1;
    if (view.len == em_dtype_get(e)->size)
        r = pyem__put(k, view.buf, (size_t)view.len, pos, kname);
    else
        PyErr_Format(PyExc_TypeError,
                     "kernel '%s': argument %d: a NumPy scalar of %zd bytes for dtype %s", kname,
                     pos, view.len, em_dtype_get(e)->name);
    PyBuffer_Release(&view);
    return r;
}

/* The pointer in o.__cuda_array_interface__["data"][0]; 1 if o has no
 * such attribute (nothing raised), -1 on error. */
static int pyem__put_cai(pyem_kargs *k, PyObject *o, int pos, const char *kname) {
    PyObject *cai;
    if (pyem__optattr(o, "__cuda_array_interface__", &cai) <= 0) return PyErr_Occurred() ? -1 : 1;
    PyObject *data =
        PyDict_Check(cai) ? PyDict_GetItemString(cai, "data") : NULL; /* borrowed from cai */
    int ok = data && PyTuple_Check(data) && PyTuple_GET_SIZE(data) >= 1;
    void *p = ok ? PyLong_AsVoidPtr(PyTuple_GET_ITEM(data, 0)) : NULL;
    Py_DECREF(cai);
    if (!ok || PyErr_Occurred()) {
        PyErr_Clear();
        PyErr_Format(PyExc_TypeError,
                     "kernel '%s': argument %d has a __cuda_array_interface__ without "
                     "a valid 'data': (pointer, readonly) entry",
                     kname, pos);
        return -1;
    }
    return pyem__put(k, &p, sizeof p, pos, kname);
}

static int pyem__put_other(pyem_kargs *k, PyObject *o, int pos, const char *kname) {
    if (PyObject_TypeCheck(o, (PyTypeObject *)pyem__np_generic))
        return pyem__put_npscalar(k, o, pos, kname);
    if (PyBool_Check(o)) {
        unsigned char b = o == Py_True;
        return pyem__put(k, &b, 1, pos, kname);
    }
    if (PyLong_Check(o)) {
        long long v = PyLong_AsLongLong(o);
        if (v == -1 && PyErr_Occurred()) {
            PyErr_Format(PyExc_OverflowError,
                         "kernel '%s': argument %d: Python int %R does not fit "
                         "int64; pass a NumPy scalar of the kernel's type (e.g. np.uint64(x))",
                         kname, pos, o);
            return -1;
        }
        return pyem__put(k, &v, sizeof v, pos, kname);
    }
    if (PyFloat_Check(o)) {
        double v = PyFloat_AS_DOUBLE(o);
        return pyem__put(k, &v, sizeof v, pos, kname);
    }
    if (PyComplex_Check(o)) {
        double v[2] = {PyComplex_RealAsDouble(o), PyComplex_ImagAsDouble(o)};
        return pyem__put(k, v, sizeof v, pos, kname);
    }
    int r = pyem__put_cai(k, o, pos, kname);
    if (r <= 0) return r;
    if (PyObject_TypeCheck(o, (PyTypeObject *)pyem__np_ndarray))
        PyErr_Format(PyExc_TypeError,
                     "kernel '%s': argument %d is a numpy.ndarray (host memory); copy "
                     "it to the device first with em.asarray(x, device='cuda:0')",
                     kname, pos);
    else
        PyErr_Format(
            PyExc_TypeError,
            "kernel '%s': argument %d has unsupported type '%s'; expected an "
            "ember array, an object with __cuda_array_interface__, or a NumPy or Python scalar",
            kname, pos, Py_TYPE(o)->tp_name);
    return -1;
}

/* Pack args (a tuple or list) into k. */
static int pyem__pack(pyem_kargs *k, PyObject *args, int kdev, const char *kname) {
    if (!PyTuple_Check(args) && !PyList_Check(args)) {
        PyErr_Format(PyExc_TypeError,
                     "kernel '%s': args must be a tuple or list of kernel arguments, "
                     "not '%s'",
                     kname, Py_TYPE(args)->tp_name);
        return -1;
    }
    k->used = 0, k->n = 0;
    k->ptr[0] = k->buf; /* never a NULL parameter array, even with no arguments */
    Py_ssize_t n = PySequence_Fast_GET_SIZE(args);
    PyObject **items = PySequence_Fast_ITEMS(args);
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *o = items[i];
        int r;
        if (EmArray_Check(o)) {
            r = pyem__put_array(k, o, kdev, (int)i, kname);
        } else if (PyFloat_CheckExact(o)) {
            double v = PyFloat_AS_DOUBLE(o);
            r = pyem__put(k, &v, sizeof v, (int)i, kname);
        } else {
            r = pyem__put_other(k, o, (int)i, kname);
        }
        if (r < 0) return -1;
    }
    return 0;
}

/* grid or block: an int or a tuple/list of 1 to 3 ints, each in [1, 2^31). */
static int pyem__dims(PyObject *o, const char *what, const char *kname, unsigned out[3]) {
    out[0] = out[1] = out[2] = 1;
    PyObject *items[3] = {o, NULL, NULL};
    Py_ssize_t n = 1;
    if (PyTuple_Check(o) || PyList_Check(o)) {
        n = PySequence_Fast_GET_SIZE(o);
        if (n < 1 || n > 3) {
            PyErr_Format(PyExc_ValueError,
                         "kernel '%s': %s must be an int or a tuple of 1 to 3 ints, "
                         "got %zd values",
                         kname, what, n);
            return -1;
        }
        for (Py_ssize_t i = 0; i < n; i++) items[i] = PySequence_Fast_GET_ITEM(o, i);
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        if (!PyIndex_Check(items[i]) || PyBool_Check(items[i])) {
            PyErr_Format(PyExc_TypeError,
                         "kernel '%s': %s must be an int or a tuple of 1 to 3 ints, "
                         "got %s",
                         kname, what, Py_TYPE(items[i])->tp_name);
            return -1;
        }
        long long v = PyLong_AsLongLong(items[i]);
        if (v == -1 && PyErr_Occurred()) PyErr_Clear(), v = -2;
        if (v < 1 || v > 0x7fffffffLL) {
            PyErr_Format(PyExc_ValueError,
                         "kernel '%s': %s[%zd] = %R is out of range: each dimension "
                         "must be >= 1 and < 2**31",
                         kname, what, i, items[i]);
            return -1;
        }
        out[i] = (unsigned)v;
    }
    return 0;
}

static int pyem__shmem(PyObject *o, const char *kname, unsigned *out) {
    long long v = PyIndex_Check(o) && !PyBool_Check(o) ? PyLong_AsLongLong(o) : -2;
    if (v == -1 && PyErr_Occurred()) PyErr_Clear(), v = -2;
    if (v < 0 || v > 0xffffffffLL) {
        PyErr_Format(PyExc_ValueError,
                     "kernel '%s': shared_mem must be an int of bytes in [0, 2**32), "
                     "got %R",
                     kname, o);
        return -1;
    }
    *out = (unsigned)v;
    return 0;
}

/* None: this thread's current stream; an int handle; or an object with
 * .ptr (ember.Stream, a CuPy stream), which must not be an ember.Stream of
 * another kind of device than the launch's.  (Also @em.jit's launch path,
 * jit_launch.c.) */
int pyem_kernel_stream(PyObject *o, em_device_kind kind, const char *kname, void **out) {
    if (o == Py_None) { /* CUDA's current stream is one per thread, whatever the device */
        em_device cuda = {EM_CUDA, 0};
        return em_stream_get(cuda, out) == EM_OK ? 0 : (pyem_raise(EM_EDEVICE), -1);
    }
    PyObject *ptr = NULL, *dev = NULL;
    /* Only a class named Stream (ember's) is asked for _dev: a failed lookup
     * raises and clears an AttributeError, a microsecond per launch with a
     * CuPy stream. */
    if (!PyLong_Check(o) && !strcmp(Py_TYPE(o)->tp_name, "Stream") &&
        pyem__optattr(o, "_dev", &dev) < 0)
        return -1;
    const char *d = dev && PyUnicode_Check(dev) ? PyUnicode_AsUTF8(dev) : NULL;
    const char *want = em_device_kind_name(kind);
    int foreign = d && strncmp(d, want, strlen(want)) != 0;
    Py_XDECREF(dev);
    if (foreign) {
        PyErr_Format(PyExc_ValueError, "kernel '%s': stream %R is not a %s stream", kname, o, want);
        return -1;
    }
    if (!PyLong_Check(o) && pyem__optattr(o, "ptr", &ptr) < 0) return -1;
    PyObject *h = ptr ? ptr : o;
    void *v = PyLong_Check(h) && !PyBool_Check(h) ? PyLong_AsVoidPtr(h) : NULL;
    int bad = !PyLong_Check(h) || PyBool_Check(h) || PyErr_Occurred();
    Py_XDECREF(ptr);
    if (bad) {
        PyErr_Clear();
        PyErr_Format(PyExc_TypeError,
                     "kernel '%s': stream must be an ember.Stream, an object with an "
                     "int .ptr (a CuPy stream), an int handle or None, not '%s'",
                     kname, Py_TYPE(o)->tp_name);
        return -1;
    }
    *out = v;
    return 0;
}

/* The kernel on cuda:id: the cached handle, else self._load(id). */
static void *pyem__function_on(FunctionObject *self, int id) {
    if (id < PYEM_KDEV && self->fn[id]) return self->fn[id];
    PyObject *r = PyObject_CallMethod((PyObject *)self, "_load", "i", id);
    if (!r) return NULL;
    void *fn = PyLong_AsVoidPtr(r);
    Py_DECREF(r);
    if (!fn) {
        if (!PyErr_Occurred())
            PyErr_Format(Em_EmberError, "kernel '%s': _load returned a NULL function handle",
                         self->cname);
        return NULL;
    }
    if (id < PYEM_KDEV) self->fn[id] = fn;
    return fn;
}

static PyObject *pyem__no_cuda(const char *kname, em_device cur) {
    int n = 0;
    if (em_device_count(EM_CUDA, &n) != EM_OK) n = 0;
    return PyErr_Format(Em_DeviceError,
                        "kernel '%s': raw CUDA kernels need a CUDA device; the current "
                        "device is %s (%s)",
                        kname, em_device_kind_name(cur.kind),
                        n ? "make one current with `with em.Device('cuda:0'):`"
                          : "no CUDA device is available");
}

static int pyem__kwargs(PyObject *kw, const char *kname, PyObject **shm, PyObject **stream) {
    Py_ssize_t pos = 0;
    PyObject *key, *val;
    while (kw && PyDict_Next(kw, &pos, &key, &val)) {
        if (PyUnicode_CompareWithASCIIString(key, "shared_mem") == 0)
            *shm = val;
        else if (PyUnicode_CompareWithASCIIString(key, "stream") == 0)
            *stream = val;
        else {
            PyErr_Format(PyExc_TypeError,
                         "kernel '%s': unexpected keyword argument %R (expected "
                         "shared_mem or stream)",
                         kname, key);
            return -1;
        }
    }
    return 0;
}

/* Where a launch runs: the device of the first ember array argument (as
 * for @em.jit kernels), else the thread's current device. */
static em_device pyem__kernel_device(PyObject *kargs) {
    if (PyTuple_Check(kargs) || PyList_Check(kargs)) {
        Py_ssize_t n = PySequence_Fast_GET_SIZE(kargs);
        PyObject **items = PySequence_Fast_ITEMS(kargs);
        for (Py_ssize_t i = 0; i < n; i++)
            if (EmArray_Check(items[i])) return em_array_device(EMARR(items[i]));
    }
    return pyem_current_device();
}

/* The launch: grid, block, args and, where given, shm and st (None: the current stream). */
static PyObject *pyem__function_launch(PyObject *o, PyObject *const *pos, PyObject *shm,
                                       PyObject *st) {
    FunctionObject *self = (FunctionObject *)o;
    const char *kname = self->cname;
    unsigned grid[3], block[3], shmem = 0;
    void *stream;
    em_device cur = pyem__kernel_device(pos[2]);
    if (pyem__dims(pos[0], "grid", kname, grid) < 0 ||
        pyem__dims(pos[1], "block", kname, block) < 0 ||
        (shm && pyem__shmem(shm, kname, &shmem) < 0) ||
        pyem_kernel_stream(st, cur.kind, kname, &stream) < 0)
        return NULL;
    if (cur.kind == EM_CPU) /* the C subset of CUDA through the C compiler (ember/_rawcpu.py) */
        return PyObject_CallMethod(o, "_cpu_call", "OOOO", pos[0], pos[1], pos[2],
                                   shm ? shm : Py_False);
    pyem_kargs k;
    if (pyem__pack(&k, pos[2], cur.kind == EM_CUDA ? cur.id : -1, kname) < 0) return NULL;
    if (cur.kind != EM_CUDA) return pyem__no_cuda(kname, cur);
    void *fn = pyem__function_on(self, cur.id);
    if (!fn) return NULL;
    em_status s = em_cuda_launch(cur.id, fn, kname, grid, block, shmem, stream, k.ptr);
    if (s != EM_OK) return pyem_raise(s);
    Py_RETURN_NONE;
}

#define PYEM_FUNCTION_SIGNATURE "(grid, block, args, shared_mem=0, stream=None)"

/* k(grid, block, args, shared_mem=0, stream=None) */
static PyObject *Function_call(PyObject *o, PyObject *args, PyObject *kw) {
    FunctionObject *self = (FunctionObject *)o;
    const char *kname = self->cname;
    if (!kname)
        return PyErr_Format(PyExc_TypeError, "this kernel object was not initialised with a name");
    Py_ssize_t na = PyTuple_GET_SIZE(args);
    if (na < 3 || na > 5)
        return PyErr_Format(PyExc_TypeError,
                            "kernel '%s' takes " PYEM_FUNCTION_SIGNATURE ": %zd positional "
                            "arguments given",
                            kname, na);
    PyObject *shm = na > 3 ? PyTuple_GET_ITEM(args, 3) : NULL,
             *st = na > 4 ? PyTuple_GET_ITEM(args, 4) : Py_None;
    if (pyem__kwargs(kw, kname, &shm, &st) < 0) return NULL;
    return pyem__function_launch(o, &PyTuple_GET_ITEM(args, 0), shm, st);
}

/* The same call without an argument tuple (vectorcall). */
static PyObject *Function_vectorcall(PyObject *o, PyObject *const *args, size_t nargsf,
                                     PyObject *kwnames) {
    FunctionObject *self = (FunctionObject *)o;
    const char *kname = self->cname;
    Py_ssize_t na = PyVectorcall_NARGS(nargsf), nk = kwnames ? PyTuple_GET_SIZE(kwnames) : 0;
    if (na < 3 || na > 5)
        return PyErr_Format(PyExc_TypeError,
                            "kernel '%s' takes " PYEM_FUNCTION_SIGNATURE ": %zd positional "
                            "arguments given",
                            kname, na);
    PyObject *shm = na > 3 ? args[3] : NULL, *st = na > 4 ? args[4] : Py_None;
    for (Py_ssize_t i = 0; i < nk; i++) {
        PyObject *key = PyTuple_GET_ITEM(kwnames, i);
        if (PyUnicode_CompareWithASCIIString(key, "shared_mem") == 0)
            shm = args[na + i];
        else if (PyUnicode_CompareWithASCIIString(key, "stream") == 0)
            st = args[na + i];
        else
            return PyErr_Format(PyExc_TypeError,
                                "kernel '%s': unexpected keyword argument %R (expected "
                                "shared_mem or stream)",
                                kname, key);
    }
    return pyem__function_launch(o, args, shm, st);
}

/* _pack(args) -> (bytes, offsets): the packed argument buffer, for tests. */
static PyObject *Function_pack(PyObject *o, PyObject *args) {
    FunctionObject *self = (FunctionObject *)o;
    pyem_kargs k;
    em_device cur = pyem_current_device();
    if (!self->cname)
        return PyErr_Format(PyExc_TypeError, "this kernel object was not initialised with a name");
    if (pyem__pack(&k, args, cur.kind == EM_CUDA ? cur.id : -1, self->cname) < 0) return NULL;
    PyObject *offs = PyTuple_New(k.n);
    for (int i = 0; offs && i < k.n; i++)
        PyTuple_SET_ITEM(offs, i, PyLong_FromSsize_t((unsigned char *)k.ptr[i] - k.buf));
    PyObject *r =
        offs ? Py_BuildValue("(y#N)", (const char *)k.buf, (Py_ssize_t)k.used, offs) : NULL;
    return r;
}

/* _loaded(id) -> the cached function handle on cuda:id, or None. */
static PyObject *Function_loaded(PyObject *o, PyObject *arg) {
    FunctionObject *self = (FunctionObject *)o;
    long id = PyLong_AsLong(arg);
    if (id == -1 && PyErr_Occurred()) return NULL;
    void *fn = id >= 0 && id < PYEM_KDEV ? self->fn[id] : NULL;
    return fn ? PyLong_FromVoidPtr(fn) : Py_NewRef(Py_None);
}

static int Function_init(PyObject *o, PyObject *args, PyObject *kw) {
    FunctionObject *self = (FunctionObject *)o;
    static char *kwlist[] = {"name", NULL};
    PyObject *name;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "U", kwlist, &name)) return -1;
    Py_ssize_t len;
    const char *c = PyUnicode_AsUTF8AndSize(name, &len);
    if (!c) return -1;
    if (!len || strlen(c) != (size_t)len) {
        PyErr_SetString(PyExc_ValueError,
                        "a kernel name must be a non-empty str without NUL characters");
        return -1;
    }
    Py_XSETREF(self->name, Py_NewRef(name));
    self->cname = c;
    memset(self->fn, 0, sizeof self->fn);
    self->vectorcall = Function_vectorcall;
    return 0;
}

static void Function_dealloc(PyObject *o) {
    FunctionObject *self = (FunctionObject *)o;
    PyObject_GC_UnTrack(o);
    Py_CLEAR(self->name);
    Py_TYPE(o)->tp_free(o);
}

static int Function_traverse(PyObject *o, visitproc visit, void *arg) {
    Py_VISIT(((FunctionObject *)o)->name);
    Py_VISIT(Py_TYPE(o)); /* heap subclasses */
    return 0;
}

static PyObject *Function_getname(PyObject *o, void *unused) {
    FunctionObject *self = (FunctionObject *)o;
    return self->name ? Py_NewRef(self->name) : Py_NewRef(Py_None);
}

static PyTypeObject Function_Type;

/* _vectorcall_subclass(cls) -> bool: let a Python subclass that keeps
 * Function's call (em.RawKernel) be called without an argument tuple.
 * Python 3.12 does this itself; before, heap types never inherit
 * Py_TPFLAGS_HAVE_VECTORCALL.  (Assigning cls.__call__ later would not be
 * seen, so only Ember's own subclasses ask.) */
static PyObject *Function_vectorcall_subclass(PyObject *unused, PyObject *cls) {
    if (!PyType_Check(cls) || !PyType_IsSubtype((PyTypeObject *)cls, &Function_Type))
        return PyErr_Format(PyExc_TypeError, "_vectorcall_subclass: a subclass of Function, not %R",
                            cls);
    PyTypeObject *t = (PyTypeObject *)cls;
    if (t->tp_call != Function_call ||
        t->tp_vectorcall_offset != offsetof(FunctionObject, vectorcall))
        Py_RETURN_FALSE;
    t->tp_flags |= Py_TPFLAGS_HAVE_VECTORCALL;
    Py_RETURN_TRUE;
}

static PyMethodDef Function_methods[] = {
    {"_vectorcall_subclass", Function_vectorcall_subclass, METH_O | METH_STATIC,
     "_vectorcall_subclass(cls) -> bool: calls of cls skip the argument tuple (its call must be Function's)"},
    {"_pack", Function_pack, METH_O,
     "_pack(args) -> (bytes, offsets): the packed kernel arguments"},
    {"_loaded", Function_loaded, METH_O,
     "_loaded(id) -> the cached function handle on cuda:id, or None"},
    {NULL, NULL, 0, NULL}};

static PyGetSetDef Function_getset[] = {{"name", Function_getname, NULL, "the kernel's name", NULL},
                                        {NULL, NULL, NULL, NULL, NULL}};

static PyTypeObject Function_Type = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "ember._ember.Function",
    .tp_basicsize = sizeof(FunctionObject),
    .tp_flags =
        Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE | Py_TPFLAGS_HAVE_GC | Py_TPFLAGS_HAVE_VECTORCALL,
    .tp_vectorcall_offset = offsetof(FunctionObject, vectorcall),
    .tp_doc = "A CUDA kernel: k(grid, block, args, shared_mem=0, stream=None).  Subclasses "
              "provide _load(dev) -> function handle (ember.RawKernel).",
    .tp_new = PyType_GenericNew,
    .tp_init = Function_init,
    .tp_dealloc = Function_dealloc,
    .tp_traverse = Function_traverse,
    .tp_call = Function_call,
    .tp_methods = Function_methods,
    .tp_getset = Function_getset,
};

int pyem_kernel_init_type(PyObject *m) {
    PyObject *np = PyImport_ImportModule("numpy");
    if (!np) return -1;
    pyem__np_generic = PyObject_GetAttrString(np, "generic");
    pyem__np_ndarray = PyObject_GetAttrString(np, "ndarray");
    Py_DECREF(np);
    if (!pyem__np_generic || !pyem__np_ndarray || PyType_Ready(&Function_Type) < 0) return -1;
    return PyModule_AddObjectRef(m, "Function", (PyObject *)&Function_Type);
}

/* Options: a tuple or list of str -> a NULL-terminated array of UTF-8
 * pointers kept alive by the sequence (n written to *nopt). */
static const char **pyem__options(PyObject *seq, int *nopt) {
    if (!PyTuple_Check(seq) && !PyList_Check(seq)) {
        PyErr_Format(PyExc_TypeError, "expected a tuple of str, not '%s'", Py_TYPE(seq)->tp_name);
        return NULL;
    }
    Py_ssize_t n = PySequence_Fast_GET_SIZE(seq);
    const char **v = PyMem_Calloc((size_t)n + 1, sizeof *v);
    if (!v) return (const char **)PyErr_NoMemory();
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *s = PySequence_Fast_GET_ITEM(seq, i);
        if (!PyUnicode_Check(s) || !(v[i] = PyUnicode_AsUTF8(s))) {
            if (!PyErr_Occurred())
                PyErr_Format(PyExc_TypeError, "expected a tuple of str, got an item of type %s",
                             Py_TYPE(s)->tp_name);
            PyMem_Free(v);
            return NULL;
        }
    }
    *nopt = (int)n;
    return v;
}

/* _cuda_module_load(dev, src, options, name, names=None) -> module handle,
 * or (handle, lowered names) with a tuple of name expressions (compiles
 * without the GIL). */
static PyObject *f_cuda_module_load(PyObject *self, PyObject *args) {
    int dev, nopt = 0, nnames = 0;
    const char *src, *name;
    PyObject *opts, *names = Py_None;
    if (!PyArg_ParseTuple(args, "isOs|O", &dev, &src, &opts, &name, &names)) return NULL;
    const char **v = pyem__options(opts, &nopt), **nv = NULL;
    if (!v) return NULL;
    if (names != Py_None && !(nv = pyem__options(names, &nnames))) {
        PyMem_Free(v);
        return NULL;
    }
    void *mod = NULL;
    const char *low = NULL;
    em_status s;
    Py_BEGIN_ALLOW_THREADS s =
        em_cuda_module_load_ex(dev, src, v, nopt, nv, nnames, name, &mod, &low);
    Py_END_ALLOW_THREADS PyMem_Free(v);
    PyMem_Free(nv);
    if (s != EM_OK) return pyem_raise(s);
    if (names == Py_None) return PyLong_FromVoidPtr(mod);
    PyObject *lt = PyTuple_New(nnames);
    for (int i = 0; lt && i < nnames; i++, low += strlen(low) + 1) {
        PyObject *u = PyUnicode_FromString(low);
        if (!u)
            Py_CLEAR(lt);
        else
            PyTuple_SET_ITEM(lt, i, u);
    }
    return lt ? Py_BuildValue("(NN)", PyLong_FromVoidPtr(mod), lt) : NULL;
}

/* _cuda_module_function(dev, module, name) -> function handle */
static PyObject *f_cuda_module_function(PyObject *self, PyObject *args) {
    int dev;
    PyObject *mo;
    const char *name;
    if (!PyArg_ParseTuple(args, "iOs", &dev, &mo, &name)) return NULL;
    void *mod = PyLong_AsVoidPtr(mo), *fn = NULL;
    if (PyErr_Occurred()) return NULL;
    em_status s = em_cuda_module_function(dev, mod, name, &fn);
    return s == EM_OK ? PyLong_FromVoidPtr(fn) : pyem_raise(s);
}

/* _cuda_func_attribute(dev, fn, attr) -> int */
static PyObject *f_cuda_func_attribute(PyObject *self, PyObject *args) {
    int dev, attr, v = 0;
    PyObject *fo;
    if (!PyArg_ParseTuple(args, "iOi", &dev, &fo, &attr)) return NULL;
    void *fn = PyLong_AsVoidPtr(fo);
    if (PyErr_Occurred()) return NULL;
    em_status s = em_cuda_func_attribute(dev, fn, attr, &v);
    return s == EM_OK ? PyLong_FromLong(v) : pyem_raise(s);
}

/* ---- expression kernels on the CPU ----------------------------------------
 * ember/_expr.py renders C for the system compiler (em_cc_load); libember
 * runs it over the worker threads (ember/kernel.h, em_xkernel_run, gives the
 * kernel's signature and what n0, n1 and the operands mean).  Scalars come
 * as one buffer, a scalar per 16 bytes. */
#define PYEM_XK_MAXOPS 64

/* Data pointers of CPU arrays and, with_strides, their strides (each must have nd dims). */
static int pyem__xk_arrays(PyObject *seq, int first, int nd, char **p, long long *st,
                           int with_strides) {
    Py_ssize_t n = PyTuple_GET_SIZE(seq);
    for (Py_ssize_t k = 0; k < n; k++) {
        PyObject *o = PyTuple_GET_ITEM(seq, k);
        if (EmArray_Check(o) && pyem_touch(o, "kernel argument") < 0) return -1;
        if (!EmArray_Check(o) || em_array_device(EMARR(o)).kind != EM_CPU) {
            PyErr_SetString(PyExc_TypeError,
                            "_cpu_kernel_call: operands must be ember arrays on the CPU");
            return -1;
        }
        const em_array *a = EMARR(o);
        if (with_strides && a->ndim != nd) {
            PyErr_Format(PyExc_ValueError,
                         "_cpu_kernel_call: operand %zd has %d dimensions, expected %d", k, a->ndim,
                         nd);
            return -1;
        }
        p[first + k] = a->data;
        for (int d = 0; with_strides && d < nd; d++) st[(first + k) * nd + d] = a->strides[d];
    }
    return 0;
}

/* _cpu_kernel_call(addr, n0, n1, cost, shape, operands, raws, scalars: bytes):
 * run items [0, n0) of cost element steps each (1 for an elementwise kernel,
 * n1 for a reduction), without the GIL when the work is large. */
static PyObject *f_cpu_kernel_call(PyObject *self, PyObject *args) {
    PyObject *addr, *shape, *ops, *raws;
    long long n0, n1, cost;
    Py_buffer sc;
    if (!PyArg_ParseTuple(args, "OLLLO!O!O!y*", &addr, &n0, &n1, &cost, &PyTuple_Type, &shape,
                          &PyTuple_Type, &ops, &PyTuple_Type, &raws, &sc))
        return NULL;
    PyObject *r = NULL;
    em_xkernel_fn fn = (em_xkernel_fn)PyLong_AsVoidPtr(addr);
    Py_ssize_t nd = PyTuple_GET_SIZE(shape), nops = PyTuple_GET_SIZE(ops),
               nraw = PyTuple_GET_SIZE(raws);
    Py_ssize_t nsc = sc.len / 16;
    if (!fn || nd > EM_MAXDIMS || nops + nraw > PYEM_XK_MAXOPS || nsc > PYEM_XK_MAXOPS || n0 < 0 ||
        n1 < 0 || cost < 0) {
        if (!PyErr_Occurred())
            PyErr_SetString(PyExc_ValueError,
                            "_cpu_kernel_call: bad kernel address, sizes or operand count");
        goto done;
    }
    long long sh[EM_MAXDIMS], st[PYEM_XK_MAXOPS * EM_MAXDIMS];
    char *p[PYEM_XK_MAXOPS];
    const void *scp[PYEM_XK_MAXOPS];
    for (Py_ssize_t d = 0; d < nd; d++)
        if ((sh[d] = PyLong_AsLongLong(PyTuple_GET_ITEM(shape, d))) < 0) {
            if (!PyErr_Occurred())
                PyErr_SetString(PyExc_ValueError, "_cpu_kernel_call: negative dimension");
            goto done;
        }
    if (pyem__xk_arrays(ops, 0, (int)nd, p, st, nd > 0) < 0 ||
        pyem__xk_arrays(raws, (int)nops, 0, p, st, 0) < 0)
        goto done;
    for (Py_ssize_t k = 0; k < nsc; k++) scp[k] = (const char *)sc.buf + 16 * k;
    long long work = cost > 1 && n0 > LLONG_MAX / cost ? LLONG_MAX : n0 * (cost > 1 ? cost : 1);
    if (work > PYEM_NOGIL_ELEMS) {
        Py_BEGIN_ALLOW_THREADS em_xkernel_run(fn, n0, n1, cost, p, sh, st, scp);
        Py_END_ALLOW_THREADS
    } else {
        em_xkernel_run(fn, n0, n1, cost, p, sh, st, scp);
    }
    r = Py_NewRef(Py_None);
done:
    PyBuffer_Release(&sc);
    return r;
}

PyMethodDef pyem_kernel_functions[] = {
    {"_cuda_module_load", f_cuda_module_load, METH_VARARGS,
     "_cuda_module_load(dev, src, options, name, names=None) -> module handle, or (handle, lowered "
     "names) with name expressions (NVRTC, disk and memory caches)"},
    {"_cuda_module_function", f_cuda_module_function, METH_VARARGS,
     "_cuda_module_function(dev, module, name) -> function handle"},
    {"_cuda_func_attribute", f_cuda_func_attribute, METH_VARARGS,
     "_cuda_func_attribute(dev, fn, attr) -> int (cuFuncGetAttribute)"},
    {"_cpu_kernel_call", f_cpu_kernel_call, METH_VARARGS,
     "_cpu_kernel_call(addr, n0, n1, cost, shape, operands, raws, scalars) -> None: run a compiled "
     "expression kernel"},
    {NULL, NULL, 0, NULL}};
