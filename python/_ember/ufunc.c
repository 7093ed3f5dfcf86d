/* Elementwise calls from Python: operands, NumPy 2 promotion with "weak"
 * Python scalars (NEP 50), out= and dtype=, then em_ufunc. */
#include "pyember.h"

#include <string.h>

typedef struct {
    em_array a;    /* strong operands, and weak ones once materialised */
    char weak;     /* 0 for arrays; 'b' 'i' 'f' 'c' for Python scalars */
    PyObject *obj; /* the Python scalar (borrowed) */
} pyem__operand;

/* 1: ok; 0: not a type we take (operators return NotImplemented); -1: error. */
static int pyem__operand_of(PyObject *o, em_device dev, pyem__operand *op) {
    memset(op, 0, sizeof *op);
    op->obj = o;
    if (EmArray_Check(o)) {
        em_array_view(&op->a, EMARR(o));
        return 1;
    }
    if (PyBool_Check(o)) op->weak = 'b';
    else if (PyLong_CheckExact(o)) op->weak = 'i';
    else if (PyFloat_CheckExact(o)) op->weak = 'f';
    else if (PyComplex_CheckExact(o)) op->weak = 'c';
    if (op->weak) return 1;
    if (pyem_as_array(o, EM_NDTYPES, dev, -1, &op->a) < 0) {
        if (!PyErr_ExceptionMatches(PyExc_TypeError)) return -1;
        PyErr_Clear();
        return 0;
    }
    return 1;
}

static void pyem__operands_release(pyem__operand *ops, int n) {
    for (int i = 0; i < n; i++) em_array_release(&ops[i].a);
}

static em_dtype pyem__weak_default(char w) {
    return w == 'b' ? EM_BOOL : w == 'i' ? EM_INT64 : w == 'f' ? EM_FLOAT64 : EM_COMPLEX128;
}

/* NEP 50: a Python scalar takes the array's dtype unless its kind is higher. */
static em_dtype pyem__with_weak(em_dtype strong, char w) {
    char k = em_dtype_get(strong)->kind;
    switch (w) {
    case 'i': return k == 'b' ? EM_INT64 : strong;
    case 'f': return k == 'b' || k == 'i' || k == 'u' ? EM_FLOAT64 : strong;
    case 'c':
        if (k == 'c') return strong;
        if (k == 'f') return strong == EM_FLOAT64 ? EM_COMPLEX128 : EM_COMPLEX64;
        return EM_COMPLEX128;
    default: return strong;
    }
}

static em_dtype pyem__promote(em_op op, pyem__operand *ops, int n) {
    int first = op == EM_OP_WHERE ? 1 : 0, have = 0;
    em_dtype d = EM_BOOL;
    for (int i = first; i < n; i++)
        if (!ops[i].weak) d = have++ ? em_promote(d, ops[i].a.dtype) : ops[i].a.dtype;
    if (!have) {
        for (int i = first; i < n; i++)
            d = have++ ? em_promote(d, pyem__weak_default(ops[i].weak))
                       : pyem__weak_default(ops[i].weak);
        return d;
    }
    for (int i = first; i < n; i++)
        if (ops[i].weak) d = pyem__with_weak(d, ops[i].weak);
    return d;
}

/* Turn each Python scalar into a 0-d array of the dtype it computes in.
 * A comparison with an integer the dtype cannot hold widens instead of
 * failing, as NumPy 2 does. */
static int pyem__materialise(em_op op, pyem__operand *ops, int n, em_device dev,
                             em_dtype *promoted) {
    for (int i = 0; i < n; i++) {
        if (!ops[i].weak) continue;
        em_dtype dt = op == EM_OP_WHERE && i == 0 ? EM_BOOL : *promoted;
        if (em_op_get(op)->resolver == EM_RES_BOOL) dt = pyem__weak_default(ops[i].weak);
        if (pyem_as_array(ops[i].obj, dt, dev, -1, &ops[i].a) == 0) continue;
        if (em_op_get(op)->resolver != EM_RES_CMP || !PyErr_ExceptionMatches(PyExc_OverflowError))
            return -1;
        PyErr_Clear();
        *promoted = EM_FLOAT64;
        for (int j = 0; j < n; j++)
            if (ops[j].weak) em_array_release(&ops[j].a);
        return pyem__materialise(op, ops, n, dev, promoted);
    }
    return 0;
}

static em_device pyem__device_of(PyObject *const *objs, int n, PyObject *out) {
    if (out && EmArray_Check(out)) return em_array_device(EMARR(out));
    for (int i = 0; i < n; i++)
        if (EmArray_Check(objs[i])) return em_array_device(EMARR(objs[i]));
    return pyem_current_device();
}

/* The shared path.  out may be NULL; dtype EM_NDTYPES means promote.
 * Returns Py_NotImplemented (new ref) when notimpl and an operand is foreign. */
static PyObject *pyem__call(em_op op, PyObject *const *objs, int n, PyObject *out, em_dtype dtype,
                            int notimpl) {
    if (out && !EmArray_Check(out))
        return PyErr_Format(PyExc_TypeError, "out must be an ember.ndarray, not %.100s",
                            Py_TYPE(out)->tp_name);
    em_device dev = pyem__device_of(objs, n, out);
    pyem__operand ops[3];
    int k;
    for (k = 0; k < n; k++) {
        int r = pyem__operand_of(objs[k], dev, &ops[k]);
        if (r <= 0) {
            pyem__operands_release(ops, k);
            if (r == 0 && notimpl) Py_RETURN_NOTIMPLEMENTED;
            if (r == 0)
                PyErr_Format(PyExc_TypeError, "unsupported operand type for %s: '%.100s'",
                             em_op_get(op)->name, Py_TYPE(objs[k])->tp_name);
            return NULL;
        }
    }
    em_dtype promoted = dtype != EM_NDTYPES ? dtype : pyem__promote(op, ops, n);
    if (pyem__materialise(op, ops, n, dev, &promoted) < 0) {
        pyem__operands_release(ops, n);
        return NULL;
    }
    const em_array *in[3] = {&ops[0].a, n > 1 ? &ops[1].a : NULL, n > 2 ? &ops[2].a : NULL};
    int64_t big = 0;
    for (int i = 0; i < n; i++) big = em_array_size(in[i]) > big ? em_array_size(in[i]) : big;
    em_array res = {0}, *dst = out ? EMARR(out) : &res;
    em_status s;
    if (big > PYEM_NOGIL_ELEMS) {
        Py_BEGIN_ALLOW_THREADS s = em_ufunc(op, n, in, promoted, dst);
        Py_END_ALLOW_THREADS
    } else {
        s = em_ufunc(op, n, in, promoted, dst);
    }
    pyem__operands_release(ops, n);
    if (s != EM_OK) return pyem_raise(s);
    return out ? Py_NewRef(out) : pyem_wrap(&res);
}

PyObject *pyem_binary(em_op op, PyObject *a, PyObject *b) {
    PyObject *objs[2] = {a, b};
    return pyem__call(op, objs, 2, NULL, EM_NDTYPES, 1);
}

PyObject *pyem_inplace(em_op op, PyObject *a, PyObject *b) {
    PyObject *objs[2] = {a, b};
    return pyem__call(op, objs, 2, a, EM_NDTYPES, 1);
}

PyObject *pyem_unary(em_op op, PyObject *a) { return pyem__call(op, &a, 1, NULL, EM_NDTYPES, 0); }

/* _ember.ufunc(name, *inputs, out=None, dtype=None) */
static PyObject *f_ufunc(PyObject *self, PyObject *args, PyObject *kw) {
    Py_ssize_t n = PyTuple_GET_SIZE(args);
    if (n < 1 || !PyUnicode_Check(PyTuple_GET_ITEM(args, 0)))
        return PyErr_Format(PyExc_TypeError, "ufunc(name, *inputs, out=None, dtype=None)");
    const char *name = PyUnicode_AsUTF8(PyTuple_GET_ITEM(args, 0));
    em_op op = em_op_from_name(name);
    if (op == EM_NOPS) return PyErr_Format(PyExc_ValueError, "unknown ufunc '%s'", name);
    if (n - 1 != em_op_get(op)->nin)
        return PyErr_Format(PyExc_TypeError, "%s() takes %d positional arguments but %zd were given",
                            name, em_op_get(op)->nin, n - 1);
    PyObject *out = kw ? PyDict_GetItemString(kw, "out") : NULL;
    PyObject *dto = kw ? PyDict_GetItemString(kw, "dtype") : NULL;
    if (out == Py_None) out = NULL;
    if (out && PyTuple_Check(out)) {
        if (PyTuple_GET_SIZE(out) != 1)
            return PyErr_Format(PyExc_ValueError, "%s has 1 output, out= has %zd", name,
                                PyTuple_GET_SIZE(out));
        out = PyTuple_GET_ITEM(out, 0);
    }
    em_dtype dt = EM_NDTYPES;
    if (dto && pyem_dtype_from_obj(dto, &dt, 1) < 0) return NULL;
    PyObject *objs[3];
    for (Py_ssize_t i = 1; i < n; i++) objs[i - 1] = PyTuple_GET_ITEM(args, i);
    return pyem__call(op, objs, (int)(n - 1), out, dt, 0);
}

/* Loop and output dtypes for a promoted dtype (for tests and the Python layer). */
static PyObject *f_resolve(PyObject *self, PyObject *args) {
    const char *name;
    PyObject *dto;
    if (!PyArg_ParseTuple(args, "sO", &name, &dto)) return NULL;
    em_op op = em_op_from_name(name);
    em_dtype dt, loop, out;
    if (op == EM_NOPS) return PyErr_Format(PyExc_ValueError, "unknown ufunc '%s'", name);
    if (pyem_dtype_from_obj(dto, &dt, 0) < 0) return NULL;
    em_status s = em_op_resolve(op, dt, &loop, &out);
    if (s != EM_OK) return pyem_raise(s);
    return Py_BuildValue("(OO)", pyem_dtype_obj(loop), pyem_dtype_obj(out));
}

PyMethodDef pyem_ufunc_functions[] = {
    {"ufunc", (PyCFunction)(void (*)(void))f_ufunc, METH_VARARGS | METH_KEYWORDS,
     "ufunc(name, *inputs, out=None, dtype=None): run an elementwise op."},
    {"resolve", f_resolve, METH_VARARGS, "resolve(name, dtype) -> (loop dtype, output dtype)"},
    {NULL, NULL, 0, NULL}};
