/* OpenCL from Python (ember/opencl.py): device information, the buffer
 * pool, and raw programs built and launched the PyOpenCL way. */
#include "ember/opencl.h"
#include "pyember.h"

#define PYEM_CL_MAXARGS 128

static PyObject *f_opencl_info(PyObject *self, PyObject *arg) {
    int id = PyLong_AsLong(arg);
    if (id == -1 && PyErr_Occurred()) return NULL;
    em_opencl_info in;
    em_status s = em_opencl_device_info(id, &in);
    if (s != EM_OK) return pyem_raise(s);
    return Py_BuildValue(
        "{s:s,s:s,s:s,s:s,s:s,s:s,s:i,s:n,s:n,s:n,s:n,s:O,s:O}", "name", in.name, "vendor",
        in.vendor, "platform", in.platform, "version", in.version, "driver_version", in.driver,
        "type", in.type, "compute_units", in.compute_units, "max_work_group_size",
        (Py_ssize_t)in.max_work_group_size, "local_memory", (Py_ssize_t)in.local_memory,
        "total_memory", (Py_ssize_t)in.total_memory, "max_alloc", (Py_ssize_t)in.max_alloc, "fp64",
        in.fp64 ? Py_True : Py_False, "fp16", in.fp16 ? Py_True : Py_False);
}

/* opencl_pool(id[, "free_all" | "set_limit", limit]) -> (used, total) */
static PyObject *f_opencl_pool(PyObject *self, PyObject *args) {
    int id;
    const char *op = NULL;
    Py_ssize_t limit = 0;
    if (!PyArg_ParseTuple(args, "i|sn", &id, &op, &limit)) return NULL;
    if (op && !strcmp(op, "free_all"))
        em_opencl_pool_free_all(id);
    else if (op && !strcmp(op, "set_limit"))
        em_opencl_pool_set_limit(id, limit < 0 ? 0 : (size_t)limit);
    else if (op)
        return PyErr_Format(PyExc_ValueError, "unknown pool operation '%s'", op);
    size_t used, total;
    em_opencl_pool_stats(id, &used, &total);
    return Py_BuildValue("(nn)", (Py_ssize_t)used, (Py_ssize_t)total);
}

/* opencl_launches(id) -> int: Ember's own kernels queued on opencl:id */
static PyObject *f_opencl_launches(PyObject *self, PyObject *arg) {
    (void)self;
    int id = (int)PyLong_AsLong(arg);
    if (id == -1 && PyErr_Occurred()) return NULL;
    return PyLong_FromUnsignedLongLong((unsigned long long)em_opencl_launch_count(id));
}

/* opencl_link_waits() -> int: launches that waited for PoCL's link */
static PyObject *f_opencl_link_waits(PyObject *self, PyObject *arg) {
    (void)self, (void)arg;
    return PyLong_FromUnsignedLongLong((unsigned long long)em_opencl_link_waits());
}

/* opencl_program(id, source, options) -> int (a handle kept for the process) */
static PyObject *f_opencl_program(PyObject *self, PyObject *args) {
    int id;
    const char *src, *opts;
    if (!PyArg_ParseTuple(args, "iss", &id, &src, &opts)) return NULL;
    void *prog = NULL;
    em_status s;
    Py_BEGIN_ALLOW_THREADS s = em_opencl_program_build(id, src, opts, &prog);
    Py_END_ALLOW_THREADS if (s != EM_OK) return pyem_raise(s);
    return PyLong_FromVoidPtr(prog);
}

static void pyem__kernel_free(PyObject *cap) {
    em_opencl_kernel_release(PyCapsule_GetPointer(cap, "ember.opencl.kernel"));
}

/* opencl_kernel(id, program, name) -> (capsule, nargs) */
static PyObject *f_opencl_kernel(PyObject *self, PyObject *args) {
    int id;
    PyObject *ph;
    const char *name;
    if (!PyArg_ParseTuple(args, "iOs", &id, &ph, &name)) return NULL;
    void *prog = PyLong_AsVoidPtr(ph), *k = NULL;
    if (!prog && PyErr_Occurred()) return NULL;
    em_status s = em_opencl_kernel_create(id, prog, name, &k);
    int n = 0;
    if (s == EM_OK && (s = em_opencl_kernel_nargs(k, &n)) != EM_OK) em_opencl_kernel_release(k);
    if (s != EM_OK) return pyem_raise(s);
    PyObject *cap = PyCapsule_New(k, "ember.opencl.kernel", pyem__kernel_free);
    if (!cap) {
        em_opencl_kernel_release(k);
        return NULL;
    }
    return Py_BuildValue("(Ni)", cap, n);
}

static int pyem__sizes(PyObject *t, size_t *out, const char *what) {
    Py_ssize_t n = PyTuple_GET_SIZE(t);
    for (Py_ssize_t i = 0; i < n; i++) {
        Py_ssize_t v = PyLong_AsSsize_t(PyTuple_GET_ITEM(t, i));
        if (v == -1 && PyErr_Occurred()) return -1;
        if (v < 0) {
            PyErr_Format(PyExc_ValueError, "%s size %zd is negative", what, v);
            return -1;
        }
        out[i] = (size_t)v;
    }
    return 0;
}

/* Argument i, an ember.ndarray, forced and checked to be on opencl:id; NULL
 * with the exception set if not. */
static const em_array *pyem__cl_array(PyObject *o, const char *what, const char *name, Py_ssize_t i,
                                      int id) {
    if (pyem_touch(o, what) < 0) return NULL;
    const em_array *arr = EMARR(o);
    em_device d = em_array_device(arr);
    if (d.kind == EM_OPENCL && d.id == id) return arr;
    PyErr_Format(PyExc_ValueError,
                 "kernel '%s': argument %zd is on %s:%d, the kernel runs on opencl:%d", name, i,
                 em_device_kind_name(d.kind), d.id, id);
    return NULL;
}

/* opencl_launch(id, kernel, name, global, local_or_None, args): each arg an
 * ember.ndarray on opencl:id, bytes (a value), an int (bytes of __local
 * memory, from em.opencl.LocalMemory), or a 1-tuple (ndarray,): two kernel
 * arguments, the whole buffer and the view's byte offset into it as a
 * ulong (the em_kargs contract of backend.h, which @em.jit kernels use). */
static PyObject *f_opencl_launch(PyObject *self, PyObject *args) {
    int id;
    PyObject *cap, *g, *l, *a;
    const char *name;
    if (!PyArg_ParseTuple(args, "iOsO!OO!", &id, &cap, &name, &PyTuple_Type, &g, &l, &PyTuple_Type,
                          &a))
        return NULL;
    void *k = PyCapsule_GetPointer(cap, "ember.opencl.kernel");
    if (!k) return NULL;
    size_t gs[3], ls[3];
    int nd = (int)PyTuple_GET_SIZE(g);
    if (nd < 1 || nd > 3)
        return PyErr_Format(PyExc_ValueError, "global size must have 1 to 3 dimensions, got %d",
                            nd);
    if (pyem__sizes(g, gs, "global") < 0) return NULL;
    if (l != Py_None) {
        if (!PyTuple_Check(l) || PyTuple_GET_SIZE(l) != nd)
            return PyErr_Format(PyExc_ValueError,
                                "local size must be None or have as many dimensions as the "
                                "global size (%d)",
                                nd);
        if (pyem__sizes(l, ls, "local") < 0) return NULL;
    }
    Py_ssize_t na = PyTuple_GET_SIZE(a);
    if (na > PYEM_CL_MAXARGS)
        return PyErr_Format(PyExc_ValueError, "at most %d kernel arguments", PYEM_CL_MAXARGS);
    em_clarg cargs[PYEM_CL_MAXARGS];
    uint64_t offs[PYEM_CL_MAXARGS];
    int j = 0; /* kernel arguments: a (view,) tuple is two */
    for (Py_ssize_t i = 0; i < na; i++, j++) {
        PyObject *o = PyTuple_GET_ITEM(a, i);
        if (PyTuple_Check(o) && PyTuple_GET_SIZE(o) == 1 && EmArray_Check(PyTuple_GET_ITEM(o, 0))) {
            o = PyTuple_GET_ITEM(o, 0);
            if (j + 2 > PYEM_CL_MAXARGS)
                return PyErr_Format(PyExc_ValueError, "at most %d kernel arguments",
                                    PYEM_CL_MAXARGS);
            const em_array *arr = pyem__cl_array(o, "an OpenCL kernel argument", name, i, id);
            if (!arr) return NULL;
            void *mem = NULL;
            size_t off = 0;
            if (arr->data && em_opencl_decode(arr->data, &mem, &off) != EM_OK)
                return pyem_raise(EM_EVALUE);
            offs[j] = off;
            /* The buffer's own address (offset 0), then the offset as a value; an
             * empty array has no buffer: a NULL one. */
            static const void *const nul = NULL;
            cargs[j] = arr->data ? (em_clarg){EM_CLARG_BUFFER, sizeof(void *),
                                              (const char *)arr->data - off}
                                 : (em_clarg){EM_CLARG_BYTES, sizeof nul, &nul};
            j++;
            cargs[j] = (em_clarg){EM_CLARG_BYTES, sizeof(uint64_t), &offs[j - 1]};
            continue;
        }
        if (j >= PYEM_CL_MAXARGS)
            return PyErr_Format(PyExc_ValueError, "at most %d kernel arguments", PYEM_CL_MAXARGS);
        if (EmArray_Check(o)) {
            const em_array *arr = pyem__cl_array(o, "a raw OpenCL kernel argument", name, i, id);
            if (!arr) return NULL;
            cargs[j] = (em_clarg){EM_CLARG_BUFFER, sizeof(void *), arr->data};
        } else if (PyBytes_Check(o)) {
            cargs[j] =
                (em_clarg){EM_CLARG_BYTES, (size_t)PyBytes_GET_SIZE(o), PyBytes_AS_STRING(o)};
        } else if (PyLong_Check(o)) {
            Py_ssize_t n = PyLong_AsSsize_t(o);
            if (n <= 0) return PyErr_Format(PyExc_ValueError, "local memory of %zd bytes", n);
            cargs[j] = (em_clarg){EM_CLARG_LOCAL, (size_t)n, NULL};
        } else {
            return PyErr_Format(PyExc_TypeError, "kernel argument %zd: unsupported %.100s", i,
                                Py_TYPE(o)->tp_name);
        }
    }
    em_status s;
    Py_BEGIN_ALLOW_THREADS s =
        em_opencl_launch_raw(id, k, name, nd, gs, l == Py_None ? NULL : ls, j, cargs);
    Py_END_ALLOW_THREADS if (s != EM_OK) return pyem_raise(s);
    Py_RETURN_NONE;
}

/* ---- interop (ember/opencl.py: PyOpenCL; DLPack) ---- */

/* opencl_handles(id) -> (cl_context, cl_command_queue, cl_device_id) as ints */
static PyObject *f_opencl_handles(PyObject *self, PyObject *arg) {
    int id = PyLong_AsLong(arg);
    if (id == -1 && PyErr_Occurred()) return NULL;
    void *ctx, *queue, *dev;
    em_status s = em_opencl_handles(id, &ctx, &queue, &dev);
    if (s != EM_OK) return pyem_raise(s);
    return Py_BuildValue("(NNN)", PyLong_FromVoidPtr(ctx), PyLong_FromVoidPtr(queue),
                         PyLong_FromVoidPtr(dev));
}

/* opencl_export(array) -> (cl_mem, byte offset): the array's pending
 * result evaluated first, its buffer marked shared (mem.c). */
static PyObject *f_opencl_export(PyObject *self, PyObject *o) {
    if (!EmArray_Check(o)) return PyErr_Format(PyExc_TypeError, "an ember.ndarray is needed");
    if (pyem_touch(o, "an exported OpenCL array") < 0) return NULL;
    const em_array *arr = EMARR(o);
    if (em_array_device(arr).kind != EM_OPENCL)
        return PyErr_Format(PyExc_ValueError, "the array is not on an OpenCL device");
    if (!arr->data)
        return PyErr_Format(PyExc_ValueError, "an empty array has no OpenCL buffer to share");
    void *mem;
    size_t off;
    em_status s = em_opencl_export(arr->data, &mem, &off);
    if (s != EM_OK) return pyem_raise(s);
    return Py_BuildValue("(Nn)", PyLong_FromVoidPtr(mem), (Py_ssize_t)off);
}

/* opencl_adopt(id, cl_mem) -> device pointer (int) of Ember's for the buffer */
static PyObject *f_opencl_adopt(PyObject *self, PyObject *args) {
    int id;
    PyObject *m;
    if (!PyArg_ParseTuple(args, "iO", &id, &m)) return NULL;
    void *mem = PyLong_AsVoidPtr(m), *ptr;
    if (!mem) return PyErr_Occurred() ? NULL : PyErr_Format(PyExc_ValueError, "a NULL cl_mem");
    em_status s = em_opencl_adopt(id, mem, &ptr);
    if (s != EM_OK) return pyem_raise(s);
    return PyLong_FromVoidPtr(ptr);
}

static PyObject *f_opencl_unadopt(PyObject *self, PyObject *arg) {
    void *ptr = PyLong_AsVoidPtr(arg);
    if (!ptr && PyErr_Occurred()) return NULL;
    em_opencl_unadopt(ptr);
    Py_RETURN_NONE;
}

PyMethodDef pyem_opencl_functions[] = {
    {"opencl_handles", f_opencl_handles, METH_O, "opencl_handles(id) -> (context, queue, device)"},
    {"opencl_export", f_opencl_export, METH_O, "opencl_export(array) -> (cl_mem, offset)"},
    {"opencl_adopt", f_opencl_adopt, METH_VARARGS, "opencl_adopt(id, cl_mem) -> pointer"},
    {"opencl_unadopt", f_opencl_unadopt, METH_O, "opencl_unadopt(pointer)"},
    {"opencl_info", f_opencl_info, METH_O, "opencl_info(id) -> dict"},
    {"opencl_launches", f_opencl_launches, METH_O, "opencl_launches(id) -> int"},
    {"opencl_link_waits", f_opencl_link_waits, METH_NOARGS, "opencl_link_waits() -> int"},
    {"opencl_pool", f_opencl_pool, METH_VARARGS, "opencl_pool(id[, op, limit]) -> (used, total)"},
    {"opencl_program", f_opencl_program, METH_VARARGS, "opencl_program(id, src, opts) -> handle"},
    {"opencl_kernel", f_opencl_kernel, METH_VARARGS, "opencl_kernel(id, prog, name)"},
    {"opencl_launch", f_opencl_launch, METH_VARARGS,
     "opencl_launch(id, kernel, name, global, local, args)"},
    {NULL, NULL, 0, NULL},
};
