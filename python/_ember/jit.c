/* Bindings for @em.jit: the C compiler as a JIT (src/jit/cc.h) and the CPU
 * kernel launcher (src/jit/cpu_launch.h). */
#include "pyember.h"

#include "../../src/jit/cc.h"

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
    Py_END_ALLOW_THREADS
    if (s != EM_OK) return pyem_raise(s);
    return PyLong_FromVoidPtr(lib);
}

/* _cc_sym(handle, sym) -> the symbol's address as an int, or None. */
static PyObject *pyem__cc_sym(PyObject *self, PyObject *args) {
    PyObject *h;
    const char *sym;
    if (!PyArg_ParseTuple(args, "Os", &h, &sym)) return NULL;
    em_cc_lib *lib = PyLong_AsVoidPtr(h);
    if (!lib) {
        if (!PyErr_Occurred()) PyErr_SetString(PyExc_ValueError, "_cc_sym: a handle from _cc_load is required");
        return NULL;
    }
    void *p = em_cc_sym(lib, sym);
    if (!p) Py_RETURN_NONE;
    return PyLong_FromVoidPtr(p);
}

PyMethodDef pyem_jit_functions[] = {
    {"_cc_available", pyem__cc_available, METH_NOARGS, "Whether a C compiler is usable (probed once)."},
    {"_cc_why", pyem__cc_why, METH_NOARGS, "The compiler command, or why there is none."},
    {"_cc_load", pyem__cc_load, METH_VARARGS, "_cc_load(src, name) -> handle: compile C source and load it."},
    {"_cc_sym", pyem__cc_sym, METH_VARARGS, "_cc_sym(handle, name) -> address (int) or None."},
    {NULL, NULL, 0, NULL}};
