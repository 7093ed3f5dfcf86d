/* Reductions and scans from Python: argument parsing (axis as None, an int
 * or a tuple), NumPy's AxisError for bad axes, then em_reduce / em_scan
 * without the GIL for large inputs. */
#include "pyember.h"

#include "ember/fusion.h"

#include <limits.h>
#include <stdio.h>
#include <string.h>

static const char *const pyem__red_names[EM_NREDUCE] = {
#define EM_REDUCE(E, name) #name,
#include "ember/reductions.def"
#undef EM_REDUCE
};

static int pyem__red_op(const char *name, em_reduce_op *op) {
    for (int i = 0; i < EM_NREDUCE; i++)
        if (strcmp(pyem__red_names[i], name) == 0) {
            *op = (em_reduce_op)i;
            return 0;
        }
    PyErr_Format(PyExc_ValueError, "unknown reduction '%s'", name);
    return -1;
}

/* Raise numpy.exceptions.AxisError (a ValueError and an IndexError) for an
 * axis the core rejected; other statuses as usual. */
static PyObject *pyem__raise(em_status s) {
    if (s != EM_EINDEX) return pyem_raise(s);
    PyObject *mod = PyImport_ImportModule("numpy.exceptions");
    PyObject *cls = mod ? PyObject_GetAttrString(mod, "AxisError") : NULL;
    Py_XDECREF(mod);
    if (!cls) return NULL;
    PyObject *exc = PyObject_CallFunction(cls, "s", em_last_error());
    Py_DECREF(cls);
    if (exc) {
        PyErr_SetObject((PyObject *)Py_TYPE(exc), exc);
        Py_DECREF(exc);
    }
    return NULL;
}

/* axis: None -> *n = -1; an int -> 1; a tuple or list of ints. */
static int pyem__axes(PyObject *o, int *n, int *axes) {
    if (!o || o == Py_None) {
        *n = -1;
        return 0;
    }
    if (PyTuple_Check(o) || PyList_Check(o)) {
        Py_ssize_t k = PySequence_Fast_GET_SIZE(o);
        if (k > EM_MAXDIMS) {
            PyErr_Format(PyExc_ValueError, "%zd axes given; at most %d allowed", k, EM_MAXDIMS);
            return -1;
        }
        for (Py_ssize_t i = 0; i < k; i++) {
            long v = PyLong_AsLong(PySequence_Fast_GET_ITEM(o, i));
            if (v == -1 && PyErr_Occurred()) return -1;
            axes[i] = v < INT_MIN + 1 ? INT_MIN + 1 : v > INT_MAX ? INT_MAX : (int)v;
        }
        *n = (int)k;
        return 0;
    }
    if (PyBool_Check(o) || !PyIndex_Check(o)) {
        PyErr_Format(PyExc_TypeError, "'%.100s' object cannot be interpreted as an integer",
                     Py_TYPE(o)->tp_name);
        return -1;
    }
    long v = PyLong_AsLong(o);
    if (v == -1 && PyErr_Occurred()) return -1;
    axes[0] = v < INT_MIN + 1 ? INT_MIN + 1 : v > INT_MAX ? INT_MAX : (int)v;
    *n = 1;
    return 0;
}

/* NumPy's ufunc reductions and scans take an integer axis 0 or -1 of a 0-d
 * array as the whole of it (a tuple of axes, and mean, var and std, keep
 * the AxisError): *naxes becomes -1 (all). */
static void pyem__zero_d_axis(const em_array *a, PyObject *axo, em_reduce_op op, int *naxes,
                              const int *axes) {
    if (a->ndim == 0 && *naxes == 1 && (axes[0] == 0 || axes[0] == -1) && !PyTuple_Check(axo) &&
        !PyList_Check(axo) && op != EM_RED_MEAN && op != EM_RED_VAR && op != EM_RED_STD)
        *naxes = -1;
}

/* The input as a view, and out (None or an ndarray). */
static int pyem__operands(PyObject *ao, PyObject **out, em_array *a) {
    if (*out == Py_None) *out = NULL;
    if (*out && !EmArray_Check(*out)) {
        PyErr_Format(PyExc_TypeError, "out must be an ember.ndarray, not %.100s",
                     Py_TYPE(*out)->tp_name);
        return -1;
    }
    if (EmArray_Check(ao)) {
        em_array_view(a, EMARR_META(ao)); /* the caller forces a pending one */
        return 0;
    }
    return pyem_as_array(ao, EM_NDTYPES, pyem_current_device(), -1, a);
}

/* "reduction sum": the evaluation reason of a reduction's input. */
static const char *pyem__red_reason(em_reduce_op op) {
    static char reasons[EM_NREDUCE][40];
    if (!reasons[op][0])
        snprintf(reasons[op], sizeof reasons[op], "reduction %s", pyem__red_names[op]);
    return reasons[op];
}

/* The reduction of a pending array whose elementwise producer fuses into
 * it (em_expr_reduce_fuses): the array itself stays pending. */
static PyObject *pyem__reduce_pending(PyObject *ao, em_reduce_op op, int naxes, const int *axes,
                                      int keepdims, em_dtype dt, double ddof) {
    em_expr *x = ((EmArrayObject *)ao)->pending;
    em_expr_incref(x);
    em_array res = {0};
    bool fused;
    em_status s;
    /* The GIL stays held: the expression is read while it runs. */
    s = em_expr_reduce(op, x, naxes, axes, keepdims, dt, ddof, &res, &fused);
    if (s == EM_OK) em_expr_consume(x); /* read: dropping it unread later runs nothing */
    em_expr_decref(x);
    if (s != EM_OK) return pyem__raise(s);
    return pyem_wrap(&res);
}

/* _ember.reduce(name, a, axis=None, keepdims=False, dtype=None, ddof=0.0, out=None) */
static PyObject *f_reduce_on(PyObject *self, PyObject *args, PyObject *kw) {
    static char *kwlist[] = {"name", "a", "axis", "keepdims", "dtype", "ddof", "out", NULL};
    const char *name;
    PyObject *ao, *axo = Py_None, *dto = Py_None, *out = Py_None;
    int keepdims = 0;
    double ddof = 0.0;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "sO|OpOdO", kwlist, &name, &ao, &axo, &keepdims,
                                     &dto, &ddof, &out))
        return NULL;
    em_reduce_op op;
    em_dtype dt;
    int naxes, axes[EM_MAXDIMS];
    em_array a = {0}, res = {0};
    if (pyem__red_op(name, &op) < 0 || pyem_dtype_from_obj(dto, &dt, 1) < 0 ||
        pyem__axes(axo, &naxes, axes) < 0 || pyem__operands(ao, &out, &a) < 0)
        return NULL;
    if ((op == EM_RED_ARGMIN || op == EM_RED_ARGMAX) && (PyTuple_Check(axo) || PyList_Check(axo))) {
        em_array_release(&a);
        return PyErr_Format(PyExc_TypeError, "'%.100s' object cannot be interpreted as an integer",
                            Py_TYPE(axo)->tp_name);
    }
    pyem__zero_d_axis(&a, axo, op, &naxes, axes);
    if (!out && pyem_is_pending(ao) &&
        em_expr_reduce_fuses(op, ((EmArrayObject *)ao)->pending, naxes, axes)) {
        em_array_release(&a);
        return pyem__reduce_pending(ao, op, naxes, axes, keepdims, dt, ddof);
    }
    if ((EmArray_Check(ao) && pyem_force(ao, pyem__red_reason(op)) < 0) ||
        (out && pyem_touch(out, "write into an input") < 0)) {
        em_array_release(&a);
        return NULL;
    }
    if (EmArray_Check(ao)) { /* the values, now that they exist */
        em_array_release(&a);
        em_array_view(&a, EMARR_META(ao));
    }
    em_array *dst = out ? EMARR(out) : &res;
    em_status s;
    PYEM_CALL(s, em_array_size(&a), em_reduce(op, &a, naxes, axes, keepdims, dt, ddof, dst));
    em_array_release(&a);
    if (s != EM_OK) return pyem__raise(s);
    return out ? Py_NewRef(out) : pyem_wrap(&res);
}

/* An auto array is placed first (auto.c). */
static PyObject *f_reduce(PyObject *self, PyObject *args, PyObject *kw) {
    return pyem_auto_call("reduction", f_reduce_on, self, args, kw, 1, 6);
}

/* _ember.scan(name, a, axis=None, dtype=None, out=None); axis None: flattened. */
static PyObject *f_scan_on(PyObject *self, PyObject *args, PyObject *kw) {
    static char *kwlist[] = {"name", "a", "axis", "dtype", "out", NULL};
    const char *name;
    PyObject *ao, *axo = Py_None, *dto = Py_None, *out = Py_None;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "sO|OOO", kwlist, &name, &ao, &axo, &dto, &out))
        return NULL;
    em_reduce_op op;
    em_dtype dt;
    int naxes, axes[EM_MAXDIMS];
    em_array a = {0}, res = {0};
    if (pyem__red_op(name, &op) < 0 || pyem_dtype_from_obj(dto, &dt, 1) < 0 ||
        pyem__axes(axo, &naxes, axes) < 0)
        return NULL;
    if (naxes > 1 || naxes == 0)
        return PyErr_Format(PyExc_TypeError, "%s takes one axis or None", name);
    if (pyem__operands(ao, &out, &a) < 0) return NULL;
    if ((EmArray_Check(ao) && pyem_force(ao, pyem__red_reason(op)) < 0) ||
        (out && pyem_touch(out, "write into an input") < 0)) {
        em_array_release(&a);
        return NULL;
    }
    if (EmArray_Check(ao)) {
        em_array_release(&a);
        em_array_view(&a, EMARR_META(ao));
    }
    pyem__zero_d_axis(&a, axo, op, &naxes, axes);
    int axis = naxes < 0 ? INT_MIN : axes[0];
    em_array *dst = out ? EMARR(out) : &res;
    em_status s;
    PYEM_CALL(s, em_array_size(&a), em_scan(op, &a, axis, dt, dst));
    em_array_release(&a);
    if (s != EM_OK) return pyem__raise(s);
    return out ? Py_NewRef(out) : pyem_wrap(&res);
}

static PyObject *f_scan(PyObject *self, PyObject *args, PyObject *kw) {
    return pyem_auto_call("scan", f_scan_on, self, args, kw, 1, 4);
}

PyMethodDef pyem_reduce_functions[] = {
    {"reduce", (PyCFunction)(void (*)(void))f_reduce, METH_VARARGS | METH_KEYWORDS,
     "reduce(name, a, axis=None, keepdims=False, dtype=None, ddof=0.0, out=None)"},
    {"scan", (PyCFunction)(void (*)(void))f_scan, METH_VARARGS | METH_KEYWORDS,
     "scan(name, a, axis=None, dtype=None, out=None): cumsum / cumprod"},
    {NULL, NULL, 0, NULL}};
