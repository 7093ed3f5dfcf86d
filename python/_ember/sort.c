/* The device sort and binary search from Python (em_sort, em_argsort,
 * em_searchsorted): ember/_sorting.py calls these for arrays on devices
 * that compile kernels; the CPU keeps NumPy's host functions. */
#include "pyember.h"

#include <limits.h>

/* _ember.sort(a, axis, descending, arg): axis None sorts the flattened array. */
static PyObject *f_sort(PyObject *self, PyObject *args) {
    PyObject *ao, *axo;
    int desc, arg;
    if (!PyArg_ParseTuple(args, "O!Opp", EmArray_Type, &ao, &axo, &desc, &arg)) return NULL;
    int axis = INT_MIN;
    if (axo != Py_None) {
        long v = PyLong_AsLong(axo);
        if (v == -1 && PyErr_Occurred()) return NULL;
        axis = v < INT_MIN + 1 ? INT_MIN + 1 : v > INT_MAX ? INT_MAX : (int)v;
    }
    const em_array *a = EMARR(ao);
    if (!a) return NULL;
    em_array res = {0};
    em_status s;
    PYEM_CALL(s, em_array_size(a),
              arg ? em_argsort(a, axis, desc, &res) : em_sort(a, axis, desc, &res));
    if (s != EM_OK) return pyem_raise(s);
    return pyem_wrap(&res);
}

/* _ember.searchsorted(a, v, right, sorter): a 1-D, v of a's dtype, sorter
 * None or int64. */
static PyObject *f_searchsorted(PyObject *self, PyObject *args) {
    PyObject *ao, *vo, *so;
    int right;
    if (!PyArg_ParseTuple(args, "O!O!pO", EmArray_Type, &ao, EmArray_Type, &vo, &right, &so))
        return NULL;
    if (so != Py_None && !EmArray_Check(so))
        return PyErr_Format(PyExc_TypeError, "sorter must be an ember.ndarray or None");
    const em_array *a = EMARR(ao), *v = a ? EMARR(vo) : NULL;
    const em_array *sorter = v && so != Py_None ? EMARR(so) : NULL;
    if (!a || !v || (so != Py_None && !sorter)) return NULL;
    em_array res = {0};
    em_status s;
    PYEM_CALL(s, em_array_size(v), em_searchsorted(a, v, right, sorter, &res));
    if (s != EM_OK) return pyem_raise(s);
    return pyem_wrap(&res);
}

PyMethodDef pyem_sort_functions[] = {
    {"sort", f_sort, METH_VARARGS,
     "sort(a, axis, descending, arg): the device radix sort (values, or int64 indices)"},
    {"searchsorted", f_searchsorted, METH_VARARGS,
     "searchsorted(a, v, right, sorter): insertion points of v into the sorted 1-D a"},
    {NULL, NULL, 0, NULL}};
