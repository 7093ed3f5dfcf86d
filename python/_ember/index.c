/* Subscripts: basic indexing (ints, slices, None, Ellipsis) becomes a view
 * in C; anything with arrays, lists or booleans goes to the Python hook
 * (ember/_indexing.py), which builds flat indices and calls take/put. */
#include "pyember.h"

PyObject *pyem_call_hook2(int h, PyObject *a, PyObject *b);
enum { HOOK_GETITEM = 1, HOOK_SETITEM = 2 };

/* 1: basic item parsed; 0: needs advanced indexing; -1: error. */
static int pyem__item(PyObject *k, em_index_item *it) {
    if (k == Py_None) {
        it->kind = EM_IX_NEWAXIS;
        return 1;
    }
    if (k == Py_Ellipsis) {
        it->kind = EM_IX_ELLIPSIS;
        return 1;
    }
    if (PySlice_Check(k)) {
        Py_ssize_t b, e, s;
        if (PySlice_Unpack(k, &b, &e, &s) < 0) return -1;
        it->kind = EM_IX_SLICE;
        it->start = b, it->stop = e, it->step = s;
        return 1;
    }
    if (PyBool_Check(k)) return 0;
    if (EmArray_Check(k)) {
        char kind = em_dtype_get(EMARR(k)->dtype)->kind;
        if (EMARR(k)->ndim != 0 || (kind != 'i' && kind != 'u')) return 0;
    } else if (!PyIndex_Check(k)) {
        if (PySequence_Check(k) && !PyUnicode_Check(k) && !PyBytes_Check(k)) return 0;
        if (PyObject_HasAttrString(k, "__array_interface__") || PyObject_HasAttrString(k, "__array__"))
            return 0;
        PyErr_SetString(PyExc_IndexError,
                        "only integers, slices (`:`), ellipsis (`...`), None (`numpy.newaxis`) and "
                        "integer or boolean arrays are valid indices");
        return -1;
    }
    PyObject *ix = PyNumber_Index(k);
    if (!ix) return -1;
    int overflow;
    long long v = PyLong_AsLongLongAndOverflow(ix, &overflow);
    Py_DECREF(ix);
    if (overflow) {
        PyErr_SetString(PyExc_IndexError, "index out of range for int64");
        return -1;
    }
    if (v == -1 && PyErr_Occurred()) return -1;
    it->kind = EM_IX_INT;
    it->start = v;
    return 1;
}

/* 1: view made; 0: advanced; -1: error. */
static int pyem__basic_view(PyObject *self, PyObject *key, em_array *out) {
    em_index_item items[EM_MAXDIMS * 2];
    int n = 0;
    if (PyTuple_Check(key)) {
        Py_ssize_t m = PyTuple_GET_SIZE(key);
        if (m > EM_MAXDIMS * 2) {
            PyErr_SetString(PyExc_IndexError, "too many indices for array");
            return -1;
        }
        for (Py_ssize_t i = 0; i < m; i++) {
            int r = pyem__item(PyTuple_GET_ITEM(key, i), &items[n++]);
            if (r <= 0) return r;
        }
    } else {
        int r = pyem__item(key, &items[n++]);
        if (r <= 0) return r;
    }
    em_status s = em_view_index(EMARR(self), n, items, out);
    if (s != EM_OK) return pyem_raise(s), -1;
    return 1;
}

PyObject *pyem_getitem(PyObject *self, PyObject *key) {
    em_array v;
    int r = pyem__basic_view(self, key, &v);
    if (r < 0) return NULL;
    if (r == 0) return pyem_call_hook2(HOOK_GETITEM, self, key);
    return pyem_wrap(&v);
}

int pyem_setitem(PyObject *self, PyObject *key, PyObject *value) {
    em_array v;
    int r = pyem__basic_view(self, key, &v);
    if (r < 0) return -1;
    if (r == 0) {
        PyObject *args = PyTuple_Pack(2, key, value);
        PyObject *res = args ? pyem_call_hook2(HOOK_SETITEM, self, args) : NULL;
        Py_XDECREF(args);
        Py_XDECREF(res);
        return res ? 0 : -1;
    }
    em_array src;
    em_dtype dt = EmArray_Check(value) ? EM_NDTYPES : v.dtype;
    em_dtype sdt;
    /* Python scalars are stored in the target dtype (NumPy range checks);
     * arrays keep theirs and are cast on the copy. */
    if (!EmArray_Check(value) && pyem_scalar_dtype(value, &sdt) != 0) dt = EM_NDTYPES;
    if (pyem_as_array(value, dt, em_array_device(&v), -1, &src) < 0) {
        em_array_release(&v);
        return -1;
    }
    em_status s;
    if (em_array_size(&v) > PYEM_NOGIL_ELEMS) {
        Py_BEGIN_ALLOW_THREADS s = em_copy_into(&v, &src);
        Py_END_ALLOW_THREADS
    } else {
        s = em_copy_into(&v, &src);
    }
    em_array_release(&src);
    em_array_release(&v);
    return s == EM_OK ? 0 : (pyem_raise(s), -1);
}

PyMethodDef pyem_index_functions[] = {{NULL, NULL, 0, NULL}};
