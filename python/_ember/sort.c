/* The device sort and binary search from Python (em_sort, em_argsort,
 * em_searchsorted): ember/_sorting.py calls these for arrays on devices
 * that compile kernels; the CPU keeps NumPy's host functions. */
#include "pyember.h"

#include <limits.h>

/* _ember.sort(a, axis, descending, arg, keys=False): axis None sorts the
 * flattened array.  keys (an argsort of the flattened array, axis
 * ignored): the tuple (indices, sorted values or None where the device
 * does not make them in the same passes). */
static PyObject *f_sort(PyObject *self, PyObject *args) {
    PyObject *ao, *axo;
    int desc, arg, keys = 0;
    if (!PyArg_ParseTuple(args, "O!Opp|p", EmArray_Type, &ao, &axo, &desc, &arg, &keys))
        return NULL;
    if (keys) {
        const em_array *a = EMARR(ao);
        if (!a) return NULL;
        em_array idx = {0}, k = {0};
        em_status s;
        PYEM_CALL(s, em_array_size(a), em_argsort_keys(a, desc, &idx, &k));
        if (s != EM_OK) return pyem_raise(s);
        PyObject *io = pyem_wrap(&idx);
        if (!io) {
            em_array_release(&k);
            return NULL;
        }
        if (!k.buf) return Py_BuildValue("(NO)", io, Py_None);
        PyObject *ko = pyem_wrap(&k);
        if (!ko) {
            Py_DECREF(io);
            return NULL;
        }
        return Py_BuildValue("(NN)", io, ko);
    }
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

/* _ember.unique_sorted(s, perm, equal_nan, index, inverse, counts): the
 * distinct values of the sorted 1-D s and the asked-for int64 arrays, as a
 * 4-tuple (None where not asked for); perm None or s's argsort. */
static PyObject *f_unique_sorted(PyObject *self, PyObject *args) {
    PyObject *so, *po;
    int eqn, index, inverse, counts;
    if (!PyArg_ParseTuple(args, "O!Opppp", EmArray_Type, &so, &po, &eqn, &index, &inverse, &counts))
        return NULL;
    if (po != Py_None && !EmArray_Check(po))
        return PyErr_Format(PyExc_TypeError, "perm must be an ember.ndarray or None");
    const em_array *s = EMARR(so), *perm = s && po != Py_None ? EMARR(po) : NULL;
    if (!s || (po != Py_None && !perm)) return NULL;
    em_array res[4];
    em_status st;
    PYEM_CALL(st, em_array_size(s), em_unique_sorted(s, perm, eqn, index, inverse, counts, res));
    if (st != EM_OK) return pyem_raise(st);
    bool want[4] = {true, index, inverse, counts};
    PyObject *t = PyTuple_New(4);
    if (!t)
        for (int i = 0; i < 4; i++) em_array_release(&res[i]);
    for (int i = 0; t && i < 4; i++) {
        PyObject *o = want[i] ? pyem_wrap(&res[i]) : (Py_INCREF(Py_None), Py_None);
        if (!want[i]) em_array_release(&res[i]);
        if (!o) {
            for (int j = i + 1; j < 4; j++) em_array_release(&res[j]);
            Py_DECREF(t);
            return NULL;
        }
        PyTuple_SET_ITEM(t, i, o);
    }
    return t;
}

/* _ember.setop_sorted(s, o, mode): em_setop_sorted (mode: 0 in, 1 not in,
 * 2 merge, 3 isin, 4 is not in). */
static PyObject *f_setop_sorted(PyObject *self, PyObject *args) {
    PyObject *so, *oo;
    int mode;
    if (!PyArg_ParseTuple(args, "O!O!i", EmArray_Type, &so, EmArray_Type, &oo, &mode)) return NULL;
    const em_array *s = EMARR(so), *o = s ? EMARR(oo) : NULL;
    if (!s || !o) return NULL;
    em_array res = {0};
    em_status st;
    PYEM_CALL(st, em_array_size(s) + em_array_size(o), em_setop_sorted(s, o, mode, &res));
    if (st != EM_OK) return pyem_raise(st);
    return pyem_wrap(&res);
}

/* ks (a sequence of at most cap ints) into ks[]; the count, or -1 with an exception set. */
static int ranks_from(PyObject *ko, const char *who, int64_t *ks, int cap) {
    PyObject *seq = PySequence_Fast(ko, "ks must be a sequence of ints");
    if (!seq) return -1;
    Py_ssize_t nk = PySequence_Fast_GET_SIZE(seq);
    if (nk > cap) {
        Py_DECREF(seq);
        PyErr_Format(PyExc_ValueError, "%s: at most %d ranks at once", who, cap);
        return -1;
    }
    for (Py_ssize_t i = 0; i < nk; i++) {
        long long v = PyLong_AsLongLong(PySequence_Fast_GET_ITEM(seq, i));
        if (v == -1 && PyErr_Occurred()) {
            Py_DECREF(seq);
            return -1;
        }
        ks[i] = v;
    }
    Py_DECREF(seq);
    return (int)nk;
}

/* _ember.select_kth(a, ks): the ks-th smallest elements of a (a sequence of
 * ints) as a 1-D array of a's dtype (the radix select). */
static PyObject *f_select_kth(PyObject *self, PyObject *args) {
    PyObject *ao, *ko;
    if (!PyArg_ParseTuple(args, "O!O", EmArray_Type, &ao, &ko)) return NULL;
    const em_array *a = EMARR(ao);
    if (!a) return NULL;
    int64_t ks[1024];
    int nk = ranks_from(ko, "select_kth", ks, 1024);
    if (nk < 0) return NULL;
    em_array res = {0};
    em_status s;
    PYEM_CALL(s, em_array_size(a), em_select_kth(a, nk, ks, &res));
    if (s != EM_OK) return pyem_raise(s);
    return pyem_wrap(&res);
}

/* _ember.partition(a, ks, arg): em_partition (ks a sequence of ints). */
static PyObject *f_partition(PyObject *self, PyObject *args) {
    PyObject *ao, *ko;
    int arg;
    if (!PyArg_ParseTuple(args, "O!Op", EmArray_Type, &ao, &ko, &arg)) return NULL;
    const em_array *a = EMARR(ao);
    if (!a) return NULL;
    int64_t ks[64];
    int nk = ranks_from(ko, "partition", ks, 64);
    if (nk < 0) return NULL;
    em_array res = {0};
    em_status s;
    PYEM_CALL(s, em_array_size(a), em_partition(a, nk, ks, arg, &res));
    if (s != EM_OK) return pyem_raise(s);
    return pyem_wrap(&res);
}

PyMethodDef pyem_sort_functions[] = {
    {"sort", f_sort, METH_VARARGS,
     "sort(a, axis, descending, arg): the device radix sort (values, or int64 indices)"},
    {"searchsorted", f_searchsorted, METH_VARARGS,
     "searchsorted(a, v, right, sorter): insertion points of v into the sorted 1-D a"},
    {"unique_sorted", f_unique_sorted, METH_VARARGS,
     "unique_sorted(s, perm, equal_nan, index, inverse, counts): unique of the sorted 1-D s"},
    {"partition", f_partition, METH_VARARGS,
     "partition(a, ks, arg): NumPy's (arg)partition of a read as 1-D (select + compaction)"},
    {"setop_sorted", f_setop_sorted, METH_VARARGS,
     "setop_sorted(s, o, mode): set operations on sorted arrays (em_setop_sorted)"},
    {"select_kth", f_select_kth, METH_VARARGS,
     "select_kth(a, ks): the ks-th smallest elements of a (the device radix select)"},
    {NULL, NULL, 0, NULL}};
