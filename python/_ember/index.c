/* Subscripts: basic indexing (ints, slices, None, Ellipsis) becomes a view
 * in C; anything with arrays, lists or booleans goes to the Python hook
 * (ember/_indexing.py), which builds flat indices and calls take/put. */
#include "pyember.h"

#include <string.h>

PyObject *pyem_call_hook2(int h, PyObject *a, PyObject *b);
enum { HOOK_GETITEM = 1, HOOK_SETITEM = 2 };
static int pyem__scatter(em_array *dst, int n, const em_array *ix, PyObject *vo, int flat);

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
        if (PyObject_HasAttrString(k, "__array_interface__") ||
            PyObject_HasAttrString(k, "__array__"))
            return 0;
        PyErr_SetString(PyExc_IndexError,
                        "only integers, slices (`:`), ellipsis (`...`), None (`numpy.newaxis`) and "
                        "integer or boolean arrays are valid indices");
        return -1;
    }
    PyObject *ix = PyNumber_Index(k);
    if (!ix) {
        /* NumPy arrays have __index__ but only 0-d integer ones convert:
         * the others (masks, index arrays) are advanced. */
        if (PyErr_ExceptionMatches(PyExc_TypeError) &&
            (PyObject_HasAttrString(k, "__array_interface__") ||
             PyObject_HasAttrString(k, "__array__"))) {
            PyErr_Clear();
            return 0;
        }
        return -1;
    }
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

/* x[i] for one integer ember array i of ndim >= 1: the gather on axis 0
 * without the Python hook (the most common advanced index). */
static bool pyem__int_array_key(PyObject *self, PyObject *key) {
    if (!EmArray_Check(key) || EMARR(key)->ndim == 0 || EMARR(self)->ndim == 0) return false;
    char k = em_dtype_get(EMARR(key)->dtype)->kind;
    return k == 'i' || k == 'u';
}

static PyObject *pyem__take_axis0(PyObject *self, PyObject *key) {
    em_array out;
    em_status s;
    em_array *ka = EMARR(key), *sa = EMARR(self);
    PYEM_CALL(s, em_array_size(ka), em_take(sa, 1, ka, &out));
    return s == EM_OK ? pyem_wrap(&out) : pyem_raise(s);
}

/* x[[1, 5, 7]]: a list of ints converts straight to an index array; any
 * other list (bools, floats, ragged, empty) is left to the hook. */
static PyObject *pyem__take_list(PyObject *self, PyObject *key) {
    em_array ix;
    if (pyem_as_array(key, EM_NDTYPES, em_array_device(EMARR(self)), -1, &ix) < 0) {
        PyErr_Clear();
        return pyem_call_hook2(HOOK_GETITEM, self, key);
    }
    char k = em_dtype_get(ix.dtype)->kind;
    PyObject *r;
    if ((k == 'i' || k == 'u') && ix.ndim >= 1) {
        PyObject *ko = pyem_wrap(&ix);
        r = ko ? pyem__take_axis0(self, ko) : NULL;
        Py_XDECREF(ko);
    } else {
        em_array_release(&ix);
        r = pyem_call_hook2(HOOK_GETITEM, self, key);
    }
    return r;
}

static PyObject *pyem__getitem_on(PyObject *self, PyObject *key);

/* A gather from an auto array is auto (a view already shares its mark). */
PyObject *pyem_getitem(PyObject *self, PyObject *key) {
    return pyem_auto_like(self, pyem__getitem_on(self, key));
}

static PyObject *pyem__getitem_on(PyObject *self, PyObject *key) {
    /* The result may be a view that is written later: like every data access. */
    if (pyem_touch(self, "indexing") < 0 || (EmArray_Check(key) && pyem_force(key, "indexing") < 0))
        return NULL;
    if (pyem__int_array_key(self, key)) return pyem__take_axis0(self, key);
    if (PyList_CheckExact(key) && EMARR(self)->ndim > 0) return pyem__take_list(self, key);
    em_array v;
    int r = pyem__basic_view(self, key, &v);
    if (r < 0) return NULL;
    if (r == 0) return pyem_call_hook2(HOOK_GETITEM, self, key);
    return pyem_wrap(&v);
}

/* Whether a basic key names one element (integers only, or ()): NumPy then
 * takes the value as a scalar and refuses an array of ndim > 0. */
static bool pyem__element_key(PyObject *key) {
    if (!PyTuple_Check(key)) return key != Py_None && key != Py_Ellipsis && !PySlice_Check(key);
    for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(key); i++) {
        PyObject *k = PyTuple_GET_ITEM(key, i);
        if (k == Py_None || k == Py_Ellipsis || PySlice_Check(k)) return false;
    }
    return true;
}

int pyem_setitem(PyObject *self, PyObject *key, PyObject *value) {
    if (pyem_touch(self, "setitem") < 0 ||
        (EmArray_Check(key) && pyem_force(key, "indexing") < 0) ||
        (EmArray_Check(value) && pyem_force(value, "setitem") < 0))
        return -1;
    /* x[i] = scalar or ember array that needs no leading dims dropped. */
    if (pyem__int_array_key(self, key) &&
        (PyLong_Check(value) || PyFloat_Check(value) || PyComplex_Check(value) ||
         (EmArray_Check(value) && EMARR(value)->ndim <= EMARR(key)->ndim + EMARR(self)->ndim - 1)))
        return pyem__scatter(EMARR(self), 1, EMARR(key), value, 0);
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
    bool scalar = !EmArray_Check(value) && pyem_scalar_dtype(value, &sdt) == 0;
    if (!EmArray_Check(value) && !scalar) dt = EM_NDTYPES;
    /* NumPy stores any non-array object into one bool element by its truth
     * (b[0] = [1, 2] is True, b[0] = None False): its bool setitem calls
     * PyObject_IsTrue.  Arrays (with __array__) take the one-element rule below. */
    bool bool_elem = v.ndim == 0 && v.dtype == EM_BOOL && pyem__element_key(key);
    if (bool_elem && !scalar && !EmArray_Check(value) &&
        !PyObject_HasAttrString(value, "__array__")) {
        int t = PyObject_IsTrue(value);
        if (t < 0) {
            em_array_release(&v);
            return -1;
        }
        value = t ? Py_True : Py_False; /* borrowed: immortal singletons */
        scalar = true, dt = EM_BOOL;
    }
    /* A Python scalar stays on the host when a device kernel can take it by
     * value (em_copy_into): no copy to the device first. */
    em_device at = scalar ? pyem_scalar_home(dt, em_array_device(&v)) : em_array_device(&v);
    if (pyem_as_array(value, dt, at, -1, &src) < 0) {
        em_array_release(&v);
        return -1;
    }
    if (bool_elem && src.ndim > 0 && em_array_size(&src) == 1)
        src.ndim = 0; /* NumPy: a one-element array into a bool element is its truth */
    if (v.ndim == 0 && src.ndim > 0 && pyem__element_key(key)) {
        em_array_release(&src);
        em_array_release(&v);
        PyErr_SetString(PyExc_ValueError, "setting an array element with a sequence.");
        return -1;
    }
    /* NumPy's assignment drops leading length-1 dimensions of the value
     * beyond the target's (a[0] = ones((1, 4))); broadcasting cannot. */
    int drop = 0;
    while (src.ndim - drop > v.ndim && src.shape[drop] == 1) drop++;
    if (drop) {
        memmove(src.shape, src.shape + drop, sizeof(int64_t) * (size_t)(src.ndim - drop));
        memmove(src.strides, src.strides + drop, sizeof(int64_t) * (size_t)(src.ndim - drop));
        src.ndim -= drop;
    }
    em_status s;
    PYEM_CALL(s, em_array_size(&v), em_copy_into(&v, &src));
    em_array_release(&src);
    em_array_release(&v);
    return s == EM_OK ? 0 : (pyem_raise(s), -1);
}

/* ---- gather / scatter ------------------------------------------------- */

/* The ndarrays of a sequence of index arrays, as borrowed views in ix. */
static int pyem__index_list(PyObject *seq, em_array *ix, int *n) {
    PyObject *fast = PySequence_Fast(seq, "indices must be a sequence of ember arrays");
    if (!fast) return -1;
    Py_ssize_t m = PySequence_Fast_GET_SIZE(fast);
    if (m < 1 || m > EM_MAXDIMS) {
        Py_DECREF(fast);
        PyErr_Format(PyExc_ValueError, "%zd index arrays given; 1 to %d are allowed", m,
                     EM_MAXDIMS);
        return -1;
    }
    for (Py_ssize_t k = 0; k < m; k++) {
        PyObject *o = PySequence_Fast_GET_ITEM(fast, k);
        if (!EmArray_Check(o)) {
            Py_DECREF(fast);
            PyErr_Format(PyExc_TypeError, "index %zd is a %.100s, not an ember.ndarray", k,
                         Py_TYPE(o)->tp_name);
            return -1;
        }
        ix[k] = *EMARR(o); /* borrowed: the list keeps the objects alive */
    }
    Py_DECREF(fast);
    *n = (int)m;
    return 0;
}

static int64_t pyem__work(int n, const em_array *ix) {
    int64_t w = 0;
    for (int k = 0; k < n; k++) w += em_array_size(&ix[k]);
    return w;
}

/* _take(a, indices, flat=False): em_take (one index array per leading
 * dimension) or em_take_flat (one flat index array). */
static PyObject *pyem__take(PyObject *self, PyObject *args) {
    PyObject *a, *seq;
    int flat = 0, n;
    em_array ix[EM_MAXDIMS], out;
    if (!PyArg_ParseTuple(args, "O!O|p", EmArray_Type, &a, &seq, &flat)) return NULL;
    if (pyem__index_list(seq, ix, &n) < 0) return NULL;
    if (flat && n != 1) return PyErr_Format(PyExc_ValueError, "flat take takes one index array");
    em_status s;
    em_array *src = EMARR(a); /* EMARR may evaluate: not without the GIL */
    Py_BEGIN_ALLOW_THREADS s = flat ? em_take_flat(src, &ix[0], &out) : em_take(src, n, ix, &out);
    Py_END_ALLOW_THREADS return s == EM_OK ? pyem_wrap(&out) : pyem_raise(s);
}

/* _put(a, indices, values, flat=False): the scatter twin of _take.  Python
 * scalars are converted to a's dtype (NumPy's range checks), arrays keep
 * their dtype and are cast on the copy. */
static PyObject *pyem__put(PyObject *self, PyObject *args) {
    PyObject *a, *seq, *vo;
    int flat = 0, n;
    em_array ix[EM_MAXDIMS];
    if (!PyArg_ParseTuple(args, "O!OO|p", EmArray_Type, &a, &seq, &vo, &flat)) return NULL;
    if (pyem__index_list(seq, ix, &n) < 0) return NULL;
    if (flat && n != 1) return PyErr_Format(PyExc_ValueError, "flat put takes one index array");
    if (pyem__scatter(EMARR(a), n, ix, vo, flat) < 0) return NULL;
    Py_RETURN_NONE;
}

/* em_put / em_put_flat of the Python value vo; 0 or -1 with an exception. */
static int pyem__scatter(em_array *dst, int n, const em_array *ix, PyObject *vo, int flat) {
    em_array v;
    em_dtype dt = EmArray_Check(vo) ? EM_NDTYPES : dst->dtype, sdt;
    if (!EmArray_Check(vo) && pyem_scalar_dtype(vo, &sdt) != 0) dt = EM_NDTYPES;
    if (pyem_as_array(vo, dt, em_array_device(dst), -1, &v) < 0) return -1;
    em_status s;
    PYEM_CALL(s, pyem__work(n, ix), flat ? em_put_flat(dst, &ix[0], &v) : em_put(dst, n, ix, &v));
    em_array_release(&v);
    return s == EM_OK ? 0 : (pyem_raise(s), -1);
}

/* _scatter_accum(out, idx, vals, op): em_scatter_accum with op a ufunc's
 * name; out is written in place (its pending readers are evaluated first). */
static PyObject *pyem__scatter_accum(PyObject *self, PyObject *args) {
    PyObject *o, *ix, *v;
    const char *name;
    if (!PyArg_ParseTuple(args, "O!O!O!s", EmArray_Type, &o, EmArray_Type, &ix, EmArray_Type, &v,
                          &name))
        return NULL;
    static const struct {
        const char *name;
        em_op op;
    } ops[] = {{"add", EM_OP_ADD},
               {"subtract", EM_OP_SUBTRACT},
               {"multiply", EM_OP_MULTIPLY},
               {"maximum", EM_OP_MAXIMUM},
               {"minimum", EM_OP_MINIMUM}};
    int k = 0;
    while (k < 5 && strcmp(ops[k].name, name)) k++;
    if (k == 5) return PyErr_Format(PyExc_ValueError, "no accumulating scatter for '%s'", name);
    if (pyem_touch(o, "scatter output") < 0) return NULL;
    em_array *out = EMARR(o), *idx = EMARR(ix), *vals = EMARR(v); /* may evaluate: with the GIL */
    if (!out || !idx || !vals) return NULL;
    em_status s;
    Py_BEGIN_ALLOW_THREADS s = em_scatter_accum(out, idx, vals, ops[k].op);
    Py_END_ALLOW_THREADS if (s != EM_OK) return pyem_raise(s);
    Py_RETURN_NONE;
}

/* _histogram(out, x, edges, weights, modes, nbins, lo, scale): em_histogram,
 * adding into out in place; edges and weights may be None, the last four
 * are sequences of one entry per dimension. */
static PyObject *pyem__histogram(PyObject *self, PyObject *args) {
    PyObject *o, *x, *e, *w, *seq[4];
    if (!PyArg_ParseTuple(args, "O!O!OOOOOO", EmArray_Type, &o, EmArray_Type, &x, &e, &w, &seq[0],
                          &seq[1], &seq[2], &seq[3]))
        return NULL;
    if ((e != Py_None && !EmArray_Check(e)) || (w != Py_None && !EmArray_Check(w)))
        return PyErr_Format(PyExc_TypeError, "_histogram: edges and weights are ndarrays or None");
    int modes[8];
    int64_t nb[8];
    double lo[8], sc[8];
    Py_ssize_t nd = PySequence_Size(seq[0]);
    if (nd < 1 || nd > 8) {
        if (!PyErr_Occurred()) PyErr_SetString(PyExc_ValueError, "_histogram: 1 to 8 dimensions");
        return NULL;
    }
    for (int k = 0; k < 4; k++) {
        if (PySequence_Size(seq[k]) != nd)
            return PyErr_Occurred() ? NULL
                                    : PyErr_Format(PyExc_ValueError, "_histogram: ragged specs");
        for (Py_ssize_t i = 0; i < nd; i++) {
            PyObject *it = PySequence_GetItem(seq[k], i);
            if (!it) return NULL;
            if (k == 0) modes[i] = (int)PyLong_AsLong(it);
            if (k == 1) nb[i] = PyLong_AsLongLong(it);
            if (k == 2) lo[i] = PyFloat_AsDouble(it);
            if (k == 3) sc[i] = PyFloat_AsDouble(it);
            Py_DECREF(it);
            if (PyErr_Occurred()) return NULL;
        }
    }
    if (pyem_touch(o, "histogram output") < 0) return NULL;
    em_array *out = EMARR(o), *xa = EMARR(x); /* may evaluate: with the GIL */
    em_array *ea = e == Py_None ? NULL : EMARR(e), *wa = w == Py_None ? NULL : EMARR(w);
    if (!out || !xa || (e != Py_None && !ea) || (w != Py_None && !wa)) return NULL;
    em_status s;
    Py_BEGIN_ALLOW_THREADS s = em_histogram(out, xa, ea, wa, (int)nd, modes, nb, lo, sc);
    Py_END_ALLOW_THREADS if (s != EM_OK) return pyem_raise(s);
    Py_RETURN_NONE;
}

/* _bincount(x, weights, minlength) -> em_cpu_bincount's counts or sums, or
 * None for a layout it leaves to the caller; a negative value raises
 * NumPy's ValueError. */
static PyObject *pyem__bincount(PyObject *self, PyObject *args) {
    PyObject *x, *w;
    long long minlength;
    if (!PyArg_ParseTuple(args, "O!OL", EmArray_Type, &x, &w, &minlength)) return NULL;
    if (w != Py_None && !EmArray_Check(w))
        return PyErr_Format(PyExc_TypeError, "_bincount: weights is an ndarray or None");
    em_array *xa = EMARR(x), *wa = w == Py_None ? NULL : EMARR(w); /* may evaluate: with the GIL */
    if (!xa || (w != Py_None && !wa)) return NULL;
    em_array out;
    em_status s;
    Py_BEGIN_ALLOW_THREADS s = em_cpu_bincount(xa, wa, (int64_t)minlength, &out);
    Py_END_ALLOW_THREADS if (s == EM_EVALUE && minlength >= 0) return PyErr_Format(
        PyExc_ValueError, "'list' argument must have no negative elements");
    if (s == EM_EUNSUPPORTED) Py_RETURN_NONE;
    return s == EM_OK ? pyem_wrap(&out) : pyem_raise(s);
}

/* _nonzero(a) -> (nnz, ndim) int64 coordinates. */
static PyObject *pyem__nonzero(PyObject *self, PyObject *a) {
    if (!EmArray_Check(a)) return PyErr_Format(PyExc_TypeError, "_nonzero takes an ember.ndarray");
    em_array out;
    em_status s;
    em_array *src = EMARR(a); /* EMARR may evaluate: not without the GIL */
    Py_BEGIN_ALLOW_THREADS s = em_nonzero(src, &out);
    Py_END_ALLOW_THREADS return s == EM_OK ? pyem_wrap(&out) : pyem_raise(s);
}

/* _mask_select(a, mask) -> a[mask] (em_mask_select: same shapes, a C-contiguous). */
static PyObject *pyem__mask_select(PyObject *self, PyObject *args) {
    PyObject *a, *m;
    if (!PyArg_ParseTuple(args, "OO", &a, &m)) return NULL;
    if (!EmArray_Check(a) || !EmArray_Check(m))
        return PyErr_Format(PyExc_TypeError, "_mask_select takes two ember.ndarrays");
    em_array out, *src = EMARR(a), *mask = EMARR(m); /* EMARR may evaluate: with the GIL */
    if (!src || !mask) return NULL;
    em_status s;
    Py_BEGIN_ALLOW_THREADS s = em_mask_select(src, mask, &out);
    Py_END_ALLOW_THREADS return s == EM_OK ? pyem_wrap(&out) : pyem_raise(s);
}

PyMethodDef pyem_index_functions[] = {
    {"_take", pyem__take, METH_VARARGS, "_take(a, indices, flat=False): gather (em_take)."},
    {"_put", pyem__put, METH_VARARGS, "_put(a, indices, values, flat=False): scatter (em_put)."},
    {"_scatter_accum", pyem__scatter_accum, METH_VARARGS,
     "_scatter_accum(out, idx, vals, op): out[idx] = op(out[idx], vals), repeats accumulating."},
    {"_histogram", pyem__histogram, METH_VARARGS,
     "_histogram(out, x, edges, weights, modes, nbins, lo, scale): em_histogram into out."},
    {"_bincount", pyem__bincount, METH_VARARGS,
     "_bincount(x, weights, minlength): bincount of a CPU array (em_cpu_bincount)."},
    {"_nonzero", pyem__nonzero, METH_O, "_nonzero(a): (nnz, ndim) int64 coordinates."},
    {"_mask_select", pyem__mask_select, METH_VARARGS, "_mask_select(a, mask): a[mask]."},
    {NULL, NULL, 0, NULL}};
