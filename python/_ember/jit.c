/* Bindings for @em.jit: the C compiler as a JIT and the CPU kernel
 * launcher (ember/kernel.h). */
#include "ember/kernel.h"
#include "pyember.h"

#include <stdlib.h>
#include <string.h>

static PyObject *pyem__cc_available(PyObject *self, PyObject *unused) {
    return PyBool_FromLong(em_cc_available());
}

static PyObject *pyem__cc_why(PyObject *self, PyObject *unused) {
    if (em_cc_available()) return PyUnicode_FromString(em_cc_command());
    return PyUnicode_FromString(em_last_error());
}

/* _cc_load(src, name) -> handle (an int; the object lives for the process). */
static PyObject *pyem__cc_load(PyObject *self, PyObject *args) {
    const char *src, *name;
    if (!PyArg_ParseTuple(args, "ss", &src, &name)) return NULL;
    em_cc_lib *lib = NULL;
    em_status s;
    Py_BEGIN_ALLOW_THREADS s = em_cc_load(src, name, &lib);
    Py_END_ALLOW_THREADS if (s != EM_OK) return pyem_raise(s);
    return PyLong_FromVoidPtr(lib);
}

/* _cc_sym(handle, sym) -> the symbol's address as an int, or None. */
static PyObject *pyem__cc_sym(PyObject *self, PyObject *args) {
    PyObject *h;
    const char *sym;
    if (!PyArg_ParseTuple(args, "Os", &h, &sym)) return NULL;
    em_cc_lib *lib = PyLong_AsVoidPtr(h);
    if (!lib) {
        if (!PyErr_Occurred())
            PyErr_SetString(PyExc_ValueError, "_cc_sym: a handle from _cc_load is required");
        return NULL;
    }
    void *p = em_cc_sym(lib, sym);
    if (!p) Py_RETURN_NONE;
    return PyLong_FromVoidPtr(p);
}

#define PYEM_JIT_MAXSLOTS 1024
#define PYEM_JIT_MAXPARAMS 128

/* One parameter's slots from a Python value; returns slots used or -1. */
static int pyem__jit_array(PyObject *o, char kind, int ndim, em_dtype dt, PyObject *pname,
                           int64_t *slots, Py_buffer *view, int *has_view) {
    const char *data;
    const int64_t *shape, *strides;
    int64_t itemsize = em_dtype_get(dt)->size;
    Py_ssize_t vshape[1];
    if (EmArray_Check(o)) {
        if (pyem_touch(o, "kernel argument") < 0)
            return -1; /* pending readers of a written array go first */
        em_array *a = EMARR(o);
        if (em_array_device(a).kind != EM_CPU) {
            PyErr_Format(PyExc_ValueError, "argument '%U' is on %s, not the CPU", pname,
                         em_device_kind_name(em_array_device(a).kind));
            return -1;
        }
        if (a->dtype != dt || a->ndim != ndim) {
            PyErr_Format(PyExc_TypeError, "argument '%U': expected a %d-d %s array, got %d-d %s",
                         pname, ndim, em_dtype_get(dt)->name, a->ndim,
                         em_dtype_get(a->dtype)->name);
            return -1;
        }
        if (kind == 'W' && !(a->flags & EM_WRITEABLE)) {
            PyErr_Format(PyExc_TypeError, "argument '%U' is read-only but the kernel writes to it",
                         pname);
            return -1;
        }
        data = a->data, shape = a->shape, strides = a->strides;
    } else {
        int flags = PyBUF_RECORDS_RO | (kind == 'W' ? PyBUF_WRITABLE : 0);
        if (PyObject_GetBuffer(o, view, flags) < 0) {
            PyErr_Clear();
            if (kind == 'W' && PyObject_GetBuffer(o, view, PyBUF_RECORDS_RO) == 0) {
                PyBuffer_Release(view);
                PyErr_Format(PyExc_TypeError,
                             "argument '%U' is read-only but the kernel writes to it", pname);
                return -1;
            }
            PyErr_Clear();
            PyErr_Format(PyExc_TypeError, "argument '%U' must be an array, not %.100s", pname,
                         Py_TYPE(o)->tp_name);
            return -1;
        }
        *has_view = 1;
        /* a NumPy array the kernel writes: pending readers of its memory go first */
        if (kind == 'W' && pyem_touch_host(o, "kernel argument") < 0) return -1;
        if (view->ndim != ndim || view->itemsize != itemsize) {
            PyErr_Format(PyExc_TypeError, "argument '%U': expected a %d-d %s array", pname, ndim,
                         em_dtype_get(dt)->name);
            return -1;
        }
        data = view->buf;
        /* Py_ssize_t and int64_t have the same size on the platforms we build for. */
        shape = ndim ? (const int64_t *)view->shape : (const int64_t *)vshape;
        strides = (const int64_t *)view->strides;
    }
    slots[0] = (int64_t)(intptr_t)data;
    for (int d = 0; d < ndim; d++) {
        if (strides[d] % itemsize) {
            PyErr_Format(PyExc_ValueError,
                         "argument '%U': strides must be multiples of the item size", pname);
            return -1;
        }
        slots[1 + d] = shape[d];
        slots[1 + ndim + d] = strides[d] / itemsize;
    }
    return 1 + 2 * ndim;
}

static int pyem__jit_scalar(PyObject *o, char kind, PyObject *pname, int64_t *slot) {
    if (kind == 'f') {
        double v = PyFloat_AsDouble(o);
        if (v == -1.0 && PyErr_Occurred()) goto bad;
        memcpy(slot, &v, sizeof v);
        return 1;
    }
    if (kind == 'b') {
        int t = PyObject_IsTrue(o);
        if (t < 0) goto bad;
        *slot = t;
        return 1;
    }
    PyObject *i = PyNumber_Index(o);
    if (!i) goto bad;
    if (kind == 'u') {
        unsigned long long u = PyLong_AsUnsignedLongLong(i);
        memcpy(slot, &u, sizeof u);
    } else {
        *slot = PyLong_AsLongLong(i);
    }
    Py_DECREF(i);
    if (PyErr_Occurred()) goto bad;
    return 1;
bad:
    PyErr_Clear();
    PyErr_Format(PyExc_TypeError, "argument '%U': cannot pass %.100s as this kernel's %s parameter",
                 pname, Py_TYPE(o)->tp_name,
                 kind == 'f'   ? "float"
                 : kind == 'b' ? "bool"
                               : "integer");
    return -1;
}

static int pyem__int3(PyObject *t, int64_t out[3], const char *what) {
    if (!PyTuple_Check(t) || PyTuple_GET_SIZE(t) != 3) {
        PyErr_Format(PyExc_TypeError, "%s must be a 3-tuple", what);
        return -1;
    }
    for (int d = 0; d < 3; d++) {
        out[d] = PyLong_AsLongLong(PyTuple_GET_ITEM(t, d));
        if (out[d] == -1 && PyErr_Occurred()) return -1;
    }
    return 0;
}

/* _jit_launch(spec, args, grid, block, shared_dyn) -> printed text or None.
 * spec = (range_addr, thread_addr or 0, name, shared_static, kinds: bytes,
 *         ndims: bytes, dtypes: bytes of em_dtype numbers, names: tuple). */
static PyObject *pyem__jit_launch(PyObject *self, PyObject *const *argv, Py_ssize_t argc) {
    if (argc != 5 || !PyTuple_Check(argv[1])) {
        PyErr_SetString(PyExc_TypeError, "_jit_launch(spec, args, grid, block, shared_dyn)");
        return NULL;
    }
    return pyem_jit_cpu_launch(argv[0], PySequence_Fast_ITEMS(argv[1]), PyTuple_GET_SIZE(argv[1]),
                               argv[2], argv[3], argv[4]);
}

PyObject *pyem_jit_cpu_launch(PyObject *spec, PyObject *const *items, Py_ssize_t nargs,
                              PyObject *grid, PyObject *block, PyObject *shared_dyn) {
    if (!PyTuple_Check(spec) || PyTuple_GET_SIZE(spec) != 8) {
        PyErr_SetString(PyExc_TypeError,
                        "_jit_launch(spec, args, grid, block, shared_dyn): malformed spec");
        return NULL;
    }
    em_jit_launch L = {0};
    L.range = (em_jit_range_fn)PyLong_AsVoidPtr(PyTuple_GET_ITEM(spec, 0));
    L.thread = (em_jit_thread_fn)PyLong_AsVoidPtr(PyTuple_GET_ITEM(spec, 1));
    L.name = PyUnicode_AsUTF8(PyTuple_GET_ITEM(spec, 2));
    L.shared_static = PyLong_AsLongLong(PyTuple_GET_ITEM(spec, 3));
    L.shared_dyn = PyLong_AsLongLong(shared_dyn);
    PyObject *kinds = PyTuple_GET_ITEM(spec, 4), *ndims = PyTuple_GET_ITEM(spec, 5);
    PyObject *dtypes = PyTuple_GET_ITEM(spec, 6), *names = PyTuple_GET_ITEM(spec, 7);
    if (PyErr_Occurred() || !L.name || pyem__int3(grid, L.grid, "grid") < 0 ||
        pyem__int3(block, L.block, "block") < 0)
        return NULL;
    if (!PyBytes_Check(kinds) || !PyBytes_Check(ndims) || !PyBytes_Check(dtypes) ||
        !PyTuple_Check(names)) {
        PyErr_SetString(PyExc_TypeError, "_jit_launch: malformed spec");
        return NULL;
    }
    Py_ssize_t n = PyBytes_GET_SIZE(kinds);
    if (nargs != n || n > PYEM_JIT_MAXPARAMS) {
        PyErr_Format(PyExc_TypeError, "kernel '%s' takes %zd arguments, got %zd", L.name, n, nargs);
        return NULL;
    }
    int64_t slots[PYEM_JIT_MAXSLOTS];
    Py_buffer views[PYEM_JIT_MAXPARAMS];
    int has_view[PYEM_JIT_MAXPARAMS] = {0};
    const char *k = PyBytes_AS_STRING(kinds), *nd = PyBytes_AS_STRING(ndims),
               *dt = PyBytes_AS_STRING(dtypes);
    int used = 0, r = 0;
    PyObject *result = NULL;
    for (Py_ssize_t i = 0; i < n && r >= 0; i++) {
        PyObject *o = items[i], *pname = PyTuple_GET_ITEM(names, i);
        if (used + 1 + 2 * nd[i] > PYEM_JIT_MAXSLOTS) {
            PyErr_SetString(PyExc_TypeError, "too many kernel arguments");
            r = -1;
            break;
        }
        if (k[i] == 'R' || k[i] == 'W')
            r = pyem__jit_array(o, k[i], nd[i], (em_dtype)dt[i], pname, slots + used, &views[i],
                                &has_view[i]);
        else
            r = pyem__jit_scalar(o, k[i], pname, slots + used);
        used += r;
    }
    if (r >= 0) {
        L.args = slots;
        char *out = NULL;
        size_t outlen = 0;
        int oob = 0;
        em_status s;
        Py_BEGIN_ALLOW_THREADS s = em_jit_cpu_launch(&L, &out, &outlen, &oob);
        Py_END_ALLOW_THREADS if (s != EM_OK) pyem_raise(s);
        else if (oob) PyErr_Format(
            PyExc_IndexError,
            "kernel '%s': an array index was out of bounds (bounds checking is on)", L.name);
        else if (out) result = PyUnicode_DecodeUTF8(out, (Py_ssize_t)outlen, "replace");
        else result = Py_NewRef(Py_None);
        free(out);
    }
    for (Py_ssize_t i = 0; i < n; i++)
        if (has_view[i]) PyBuffer_Release(&views[i]);
    return result;
}

static PyObject *pyem__jit_check_launch(PyObject *self, PyObject *args) {
    const char *name;
    PyObject *g, *b;
    long long shmem;
    if (!PyArg_ParseTuple(args, "sOOL", &name, &g, &b, &shmem)) return NULL;
    int64_t grid[3], block[3];
    if (pyem__int3(g, grid, "grid") < 0 || pyem__int3(b, block, "block") < 0) return NULL;
    em_status s = em_jit_check_launch(name, grid, block, shmem);
    if (s != EM_OK) return pyem_raise(s);
    Py_RETURN_NONE;
}

/* jit_prelude(dialect) -> the prelude @em.jit kernels are rendered after
 * (src/codegen/jit_prelude_*: the Python renderer keeps no kernel text). */
static PyObject *pyem__jit_prelude(PyObject *self, PyObject *arg) {
    const char *name = PyUnicode_AsUTF8(arg);
    if (!name) return NULL;
    const char *p = em_jit_prelude(name);
    if (!p)
        return PyErr_Format(PyExc_ValueError,
                            "no @em.jit prelude for dialect '%s' (c, cuda, opencl)", name);
    return PyUnicode_FromString(p);
}

/* expr_prelude(dialect) -> the prelude of expression kernels
 * (src/codegen/expr_prelude_*), for ember/_expr.py. */
static PyObject *pyem__expr_prelude(PyObject *self, PyObject *arg) {
    const char *name = PyUnicode_AsUTF8(arg);
    if (!name) return NULL;
    const char *p = em_expr_prelude(name);
    if (!p)
        return PyErr_Format(PyExc_ValueError,
                            "no expression-kernel prelude for dialect '%s' (c, cuda)", name);
    return PyUnicode_FromString(p);
}

/* raw_prelude(dialect) -> CUDA C's names for raw kernels built as C
 * (src/codegen/raw_prelude_c.inc), for ember/_rawcpu.py. */
static PyObject *pyem__raw_prelude(PyObject *self, PyObject *arg) {
    const char *name = PyUnicode_AsUTF8(arg);
    if (!name) return NULL;
    const char *p = em_raw_prelude(name);
    if (!p)
        return PyErr_Format(PyExc_ValueError, "no raw-kernel prelude for dialect '%s' (c)", name);
    return PyUnicode_FromString(p);
}

/* dialect(name) -> {field: str, int, bool or None}: the dialect table's
 * spellings (src/codegen/dialect.h), read once by the renderers. */
static PyObject *pyem__dialect(PyObject *self, PyObject *arg) {
    const char *name = PyUnicode_AsUTF8(arg);
    if (!name) return NULL;
    PyObject *d = PyDict_New();
    if (!d) return NULL;
    const char *key, *str;
    int num;
    em_status s;
    for (int i = 0; (s = em_dialect_entry(name, i, &key, &str, &num)) == EM_OK; i++) {
        PyObject *v;
        if (str)
            v = PyUnicode_FromString(str);
        else if (!strncmp(key, "has_", 4) || !strcmp(key, "args_struct"))
            v = PyBool_FromLong(num);
        else if (!strcmp(key, "warp_size"))
            v = PyLong_FromLong(num);
        else
            v = Py_NewRef(Py_None);
        if (!v || PyDict_SetItemString(d, key, v) < 0) {
            Py_XDECREF(v);
            Py_DECREF(d);
            return NULL;
        }
        Py_DECREF(v);
    }
    if (s != EM_EINDEX) {
        Py_DECREF(d);
        return pyem_raise(s);
    }
    return d;
}

PyMethodDef pyem_jit_functions[] = {
    {"jit_prelude", pyem__jit_prelude, METH_O,
     "jit_prelude(dialect) -> str: the prelude of @em.jit kernels for 'c' or 'cuda'."},
    {"expr_prelude", pyem__expr_prelude, METH_O,
     "expr_prelude(dialect) -> str: the prelude of expression kernels for 'c' or 'cuda'."},
    {"raw_prelude", pyem__raw_prelude, METH_O,
     "raw_prelude(dialect) -> str: CUDA C's names for raw kernels built as C ('c' only)."},
    {"dialect", pyem__dialect, METH_O,
     "dialect(name) -> dict: the kernel dialect table's spellings ('c', 'cuda', 'opencl')."},
    {"_jit_launch", (PyCFunction)(void (*)(void))pyem__jit_launch, METH_FASTCALL,
     "_jit_launch(spec, args, grid, block, shared_dyn): run a compiled @em.jit kernel on the CPU."},
    {"_jit_check_launch", pyem__jit_check_launch, METH_VARARGS,
     "_jit_check_launch(name, grid, block, shared_bytes): LaunchError if CUDA's limits are exceeded."},
    {"_cc_available", pyem__cc_available, METH_NOARGS,
     "Whether a C compiler is usable (probed once)."},
    {"_cc_why", pyem__cc_why, METH_NOARGS, "The compiler command, or why there is none."},
    {"_cc_load", pyem__cc_load, METH_VARARGS,
     "_cc_load(src, name) -> handle: compile C source and load it."},
    {"_cc_sym", pyem__cc_sym, METH_VARARGS, "_cc_sym(handle, name) -> address (int) or None."},
    {NULL, NULL, 0, NULL}};
