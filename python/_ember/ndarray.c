/* The ember.ndarray type: attributes, the number protocol (into ufunc.c),
 * the buffer protocol for CPU arrays, conversion to NumPy and scalars.
 * Methods that are plain compositions live in Python (ember/_methods.py);
 * operators that need Python-level code (matmul, advanced indexing) call
 * hooks the ember package registers with _set_hook. */
#include "pyember.h"

#include <string.h>
#include <structmember.h>

PyTypeObject *EmArray_Type;

/* ---- hooks into the Python package ----------------------------------- */

enum { HOOK_MATMUL, HOOK_GETITEM, HOOK_SETITEM, HOOK_DEVICE, HOOK_ITER, NHOOKS };
static const char *const pyem__hook_names[NHOOKS] = {"matmul", "getitem", "setitem", "device",
                                                     "iter"};
static PyObject *pyem__hooks[NHOOKS];

static PyObject *pyem__set_hook(PyObject *self, PyObject *args) {
    const char *name;
    PyObject *fn;
    if (!PyArg_ParseTuple(args, "sO", &name, &fn)) return NULL;
    for (int i = 0; i < NHOOKS; i++)
        if (!strcmp(name, pyem__hook_names[i])) {
            Py_XSETREF(pyem__hooks[i], Py_NewRef(fn));
            Py_RETURN_NONE;
        }
    return PyErr_Format(PyExc_ValueError, "unknown hook '%s'", name);
}

static PyObject *pyem__call_hook(int h, PyObject *args) {
    if (!pyem__hooks[h]) {
        Py_XDECREF(args);
        return PyErr_Format(PyExc_RuntimeError, "ember hook '%s' is not registered",
                            pyem__hook_names[h]);
    }
    if (!args) return NULL;
    PyObject *r = PyObject_Call(pyem__hooks[h], args, NULL);
    Py_DECREF(args);
    return r;
}

PyObject *pyem_call_hook2(int h, PyObject *a, PyObject *b) {
    return pyem__call_hook(h, PyTuple_Pack(2, a, b));
}

/* ---- lifetime -------------------------------------------------------- */

PyObject *pyem_wrap(em_array *a) {
    EmArrayObject *o = PyObject_New(EmArrayObject, EmArray_Type);
    if (!o) {
        em_array_release(a);
        return NULL;
    }
    em_array_assign(&o->a, a);
    o->weakreflist = NULL;
    o->pending = NULL;
    o->leaf = NULL;
    o->stream = NULL;
    o->owner = 0;
    a->buf = NULL;
    a->data = NULL;
    return (PyObject *)o;
}

static void pyem__dealloc(PyObject *self) {
    EmArrayObject *o = (EmArrayObject *)self;
    PyTypeObject *tp = Py_TYPE(self);
    if (o->weakreflist) PyObject_ClearWeakRefs(self);
    pyem_fusion_dealloc(o);
    em_array_release(&o->a);
    tp->tp_free(self);
    Py_DECREF(tp);
}

static PyObject *pyem__new(PyTypeObject *type, PyObject *args, PyObject *kw) {
    static char *kwlist[] = {"shape", "dtype", NULL};
    PyObject *shape, *dtype = Py_None;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "O|O", kwlist, &shape, &dtype)) return NULL;
    PyObject *mod = PyImport_ImportModule("ember");
    if (!mod) return NULL;
    PyObject *r = PyObject_CallMethod(mod, "empty", "OO", shape, dtype);
    Py_DECREF(mod);
    return r;
}

/* ---- attributes ------------------------------------------------------ */

static PyObject *pyem__tuple64(int n, const int64_t *v) {
    PyObject *t = PyTuple_New(n);
    for (int i = 0; t && i < n; i++) PyTuple_SET_ITEM(t, i, PyLong_FromLongLong(v[i]));
    return t;
}

static PyObject *get_shape(PyObject *s, void *c) {
    return pyem__tuple64(EMARR_META(s)->ndim, EMARR_META(s)->shape);
}
static PyObject *get_strides(PyObject *s, void *c) {
    return pyem__tuple64(EMARR_META(s)->ndim, EMARR_META(s)->strides);
}
static PyObject *get_ndim(PyObject *s, void *c) { return PyLong_FromLong(EMARR_META(s)->ndim); }
static PyObject *get_size(PyObject *s, void *c) {
    return PyLong_FromLongLong(em_array_size(EMARR_META(s)));
}
static PyObject *get_nbytes(PyObject *s, void *c) {
    return PyLong_FromLongLong(em_array_nbytes(EMARR_META(s)));
}
static PyObject *get_itemsize(PyObject *s, void *c) {
    return PyLong_FromLong(em_dtype_get(EMARR_META(s)->dtype)->size);
}
static PyObject *get_dtype(PyObject *s, void *c) {
    return Py_NewRef(pyem_dtype_obj(EMARR_META(s)->dtype));
}
static PyObject *get_ptr(PyObject *s, void *c) { return PyLong_FromVoidPtr(EMARR(s)->data); }
/* Bytes from the start of the buffer to element 0 (OpenCL expression kernels
 * pass a buffer and this offset: a cl_mem takes no pointer arithmetic). */
static PyObject *get_buf_offset(PyObject *s, void *c) {
    const em_array *a = EMARR(s);
    if (!a) return NULL;
    return PyLong_FromSsize_t((Py_ssize_t)(a->data - (char *)em_buffer_ptr(a->buf)));
}
static PyObject *get_c_contig(PyObject *s, void *c) {
    return PyBool_FromLong(em_array_is_c_contiguous(EMARR_META(s)));
}
static PyObject *get_f_contig(PyObject *s, void *c) {
    return PyBool_FromLong(em_array_is_f_contiguous(EMARR_META(s)));
}
static PyObject *get_writeable(PyObject *s, void *c) {
    return PyBool_FromLong(EMARR_META(s)->flags & EM_WRITEABLE);
}
static PyObject *get_dev(PyObject *s, void *c) {
    em_device d = em_array_device(EMARR_META(s));
    return Py_BuildValue("(si)", em_device_kind_name(d.kind), d.id);
}
static PyObject *get_device(PyObject *s, void *c) {
    return pyem__call_hook(HOOK_DEVICE, PyTuple_Pack(1, s));
}

static PyObject *get_T(PyObject *s, void *c) {
    em_array v;
    em_status st = em_view_transpose(EMARR(s), NULL, &v);
    return st == EM_OK ? pyem_wrap(&v) : pyem_raise(st);
}

static PyGetSetDef pyem__getset[] = {
    {"shape", get_shape, NULL, "Tuple of array dimensions.", NULL},
    {"strides", get_strides, NULL, "Bytes to step in each dimension.", NULL},
    {"ndim", get_ndim, NULL, "Number of dimensions.", NULL},
    {"size", get_size, NULL, "Number of elements.", NULL},
    {"nbytes", get_nbytes, NULL, "Bytes the elements take.", NULL},
    {"itemsize", get_itemsize, NULL, "Bytes per element.", NULL},
    {"dtype", get_dtype, NULL, "The numpy.dtype of the elements.", NULL},
    {"T", get_T, NULL, "The transposed array (a view).", NULL},
    {"device", get_device, NULL, "The ember.Device the array lives on.", NULL},
    {"_dev", get_dev, NULL, "(kind, id) of the array's device.", NULL},
    {"_ptr", get_ptr, NULL, "Address of the first element.", NULL},
    {"_buf_offset", get_buf_offset, NULL, "Byte offset of element 0 in its buffer.", NULL},
    {"_c_contiguous", get_c_contig, NULL, NULL, NULL},
    {"_f_contiguous", get_f_contig, NULL, NULL, NULL},
    {"_writeable", get_writeable, NULL, NULL, NULL},
    {NULL, NULL, NULL, NULL, NULL}};

/* ---- host conversion ------------------------------------------------- */

/* A NumPy array with this array's values (a copy for device arrays; for CPU
 * arrays np.asarray reads our buffer protocol, without a copy). */
static PyObject *pyem__to_numpy(PyObject *self, int copy) {
    if (pyem_touch(self, "host read") < 0) return NULL;
    PyObject *np = PyImport_ImportModule("numpy");
    if (!np) return NULL;
    PyObject *src = Py_NewRef(self);
    if (em_array_device(EMARR(self)).kind != EM_CPU) {
        em_array h;
        em_device cpu = {EM_CPU, 0};
        em_status s;
        em_array *a = EMARR(self);
        Py_BEGIN_ALLOW_THREADS s = em_to_device(a, cpu, &h);
        Py_END_ALLOW_THREADS Py_DECREF(src);
        if (s != EM_OK) {
            Py_DECREF(np);
            return pyem_raise(s);
        }
        src = pyem_wrap(&h);
        copy = 0;
        if (!src) {
            Py_DECREF(np);
            return NULL;
        }
    }
    PyObject *r = PyObject_CallMethod(np, copy ? "array" : "asarray", "O", src);
    Py_DECREF(src);
    Py_DECREF(np);
    return r;
}

/* get(out=host) straight into host's buffer when it is a C-contiguous,
 * writable buffer of the same format and shape (one copy, at the bus's
 * rate when host is pinned).  1 done, 0 not applicable, -1 error. */
static int pyem__read_into(PyObject *self, PyObject *out) {
    const em_array *a = EMARR(self);
    if (!PyObject_CheckBuffer(out) || !em_array_is_c_contiguous(a)) return 0;
    Py_buffer v;
    if (PyObject_GetBuffer(out, &v, PyBUF_C_CONTIGUOUS | PyBUF_WRITABLE | PyBUF_FORMAT | PyBUF_ND) <
        0) {
        PyErr_Clear();
        return 0;
    }
    int ok = v.ndim == a->ndim && pyem_buffer_dtype(v.format, v.itemsize) == a->dtype;
    for (int i = 0; ok && i < v.ndim; i++) ok = v.shape[i] == a->shape[i];
    int r = 0;
    if (ok) {
        em_status s;
        Py_BEGIN_ALLOW_THREADS s = em_array_read(a, v.buf, (size_t)v.len);
        Py_END_ALLOW_THREADS r = s == EM_OK ? 1 : (pyem_raise(s), -1);
    }
    PyBuffer_Release(&v);
    return r;
}

static PyObject *m_get(PyObject *self, PyObject *args, PyObject *kw) {
    static char *kwlist[] = {"stream", "order", "out", "blocking", NULL};
    PyObject *stream = NULL, *order = NULL, *out = NULL, *blocking = NULL;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "|OOOO", kwlist, &stream, &order, &out, &blocking))
        return NULL;
    if (out && out != Py_None) {
        /* out may be memory that a pending result reads (an em.asarray wrap) */
        if (pyem_touch_host(out, "write into an input") < 0) return NULL;
        int done = pyem__read_into(self, out);
        if (done < 0) return NULL;
        if (done) return Py_NewRef(out);
    }
    PyObject *r = pyem__to_numpy(self, 1);
    if (r && out && out != Py_None) {
        PyObject *np = PyImport_ImportModule("numpy");
        PyObject *x = np ? PyObject_CallMethod(np, "copyto", "OO", out, r) : NULL;
        Py_XDECREF(np);
        Py_DECREF(r);
        if (!x) return NULL;
        Py_DECREF(x);
        return Py_NewRef(out);
    }
    return r;
}

static PyObject *m_array(PyObject *self, PyObject *args, PyObject *kw) {
    static char *kwlist[] = {"dtype", "copy", NULL};
    PyObject *dtype = Py_None, *copy = Py_None;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "|OO", kwlist, &dtype, &copy)) return NULL;
    if (copy == Py_False && em_array_device(EMARR_META(self)).kind != EM_CPU) {
        PyErr_SetString(PyExc_ValueError,
                        "Unable to avoid copy while creating a NumPy array from a device array");
        return NULL;
    }
    PyObject *r = pyem__to_numpy(self, copy == Py_True);
    if (r && dtype != Py_None) {
        PyObject *c =
            PyObject_CallMethod(r, "astype", "OO", dtype, copy == Py_False ? Py_False : Py_True);
        Py_DECREF(r);
        r = c;
    }
    return r;
}

/* The single element of a size-1 array, as a Python scalar. */
static PyObject *pyem__item(PyObject *self) {
    if (pyem_force(self, "item") < 0) return NULL;
    em_array *a = EMARR(self);
    if (em_array_size(a) != 1) {
        PyErr_Format(PyExc_ValueError,
                     "can only convert an array of size 1 to a Python scalar "
                     "(this one has size %lld)",
                     (long long)em_array_size(a));
        return NULL;
    }
    unsigned char buf[16];
    em_array v = *a, c;
    v.ndim = 0; /* size 1: the first element is the only one */
    v.buf = a->buf;
    em_status s = em_astype(&v, EM_NDTYPES, &c);
    if (s == EM_OK) {
        s = em_array_read(&c, buf, em_dtype_get(a->dtype)->size);
        em_array_release(&c);
    }
    if (s != EM_OK) return pyem_raise(s);
    return pyem_scalar_load(a->dtype, buf);
}

/* item(k): the k-th element in C order of an array of any shape (NumPy's
 * flat index; negative counts from the end). */
static PyObject *pyem__item_flat(PyObject *self, PyObject *ko) {
    if (PyBool_Check(ko)) return PyErr_Format(PyExc_TypeError, "an integer is required");
    PyObject *ix = PyNumber_Index(ko);
    if (!ix) return NULL;
    long long k = PyLong_AsLongLong(ix);
    Py_DECREF(ix);
    if (k == -1 && PyErr_Occurred()) return NULL;
    const em_array *a = EMARR_META(self);
    long long n = (long long)em_array_size(a);
    if (k < -n || k >= n)
        return PyErr_Format(PyExc_IndexError, "index %lld is out of bounds for size %lld", k, n);
    if (k < 0) k += n;
    if (a->ndim == 0) return pyem__item(self);
    PyObject *key = PyTuple_New(a->ndim);
    if (!key) return NULL;
    for (int d = a->ndim - 1; d >= 0; d--) {
        PyTuple_SET_ITEM(key, d, PyLong_FromLongLong(k % a->shape[d]));
        k /= a->shape[d];
    }
    PyObject *sub = pyem_getitem(self, key);
    Py_DECREF(key);
    if (!sub) return NULL;
    PyObject *r = pyem__item(sub);
    Py_DECREF(sub);
    return r;
}

static PyObject *m_item(PyObject *self, PyObject *args) {
    Py_ssize_t n = PyTuple_GET_SIZE(args);
    if (n == 0) return pyem__item(self);
    PyObject *k0 = PyTuple_GET_ITEM(args, 0);
    if (n == 1 && PyTuple_Check(k0)) { /* item((i, j)): the same as item(i, j) */
        args = k0;
        n = PyTuple_GET_SIZE(args);
        if (n == 0) return pyem__item(self);
        k0 = PyTuple_GET_ITEM(args, 0);
    }
    if (n == 1) return pyem__item_flat(self, k0);
    if (n != EMARR_META(self)->ndim)
        return PyErr_Format(PyExc_ValueError, "incorrect number of indices for array");
    PyObject *sub = pyem_getitem(self, args);
    if (!sub) return NULL;
    PyObject *r = pyem__item(sub);
    Py_DECREF(sub);
    return r;
}

static PyObject *m_tolist(PyObject *self, PyObject *unused) {
    PyObject *h = pyem__to_numpy(self, 0);
    if (!h) return NULL;
    PyObject *r = PyObject_CallMethod(h, "tolist", NULL);
    Py_DECREF(h);
    return r;
}

/* NumPy's casting= rule for a cast from -> to: 0 allowed, -1 raised. */
static int pyem__check_casting(PyObject *casting, em_dtype from, em_dtype to) {
    if (!casting) return 0;
    if (!PyUnicode_Check(casting)) {
        PyErr_Format(PyExc_TypeError, "casting must be str, not %.100s", Py_TYPE(casting)->tp_name);
        return -1;
    }
    const char *c = PyUnicode_AsUTF8(casting);
    if (!c) return -1;
    bool ok;
    if (!strcmp(c, "no") || !strcmp(c, "equiv"))
        ok = from == to; /* native byte order only */
    else if (!strcmp(c, "safe"))
        ok = em_can_cast_safe(from, to);
    else if (!strcmp(c, "same_kind"))
        ok = em_can_cast_same_kind(from, to);
    else if (!strcmp(c, "unsafe") || !strcmp(c, "same_value"))
        ok = true; /* same_value: no check */
    else {
        PyErr_Format(PyExc_ValueError,
                     "casting must be one of 'no', 'equiv', 'safe', 'same_kind', 'unsafe', "
                     "'same_value' (got %R)",
                     casting);
        return -1;
    }
    if (!ok)
        PyErr_Format(PyExc_TypeError,
                     "Cannot cast array data from dtype('%s') to dtype('%s') according to the "
                     "rule '%s'",
                     em_dtype_get(from)->name, em_dtype_get(to)->name, c);
    return ok ? 0 : -1;
}

/* order= of a copy: 'C', 'F', 'A' or 'K' (None: dflt), resolved for a into
 * *how: 'C', 'F', or 'K' (the input's stride order; 'A' is F for an array
 * that is F- and not C-contiguous, else C). */
int pyem_copy_order(PyObject *order, char dflt, const em_array *a, char *how) {
    char d[2] = {dflt, 0};
    if (!order || order == Py_None) order = NULL;
    const char *o = order && PyUnicode_Check(order) ? PyUnicode_AsUTF8(order) : order ? "" : d;
    if (!o) return -1;
    char c = (char)(o[0] && !o[1] ? o[0] : 0);
    if (c >= 'a' && c <= 'z') c = (char)(c - 'a' + 'A');
    if (c != 'C' && c != 'F' && c != 'A' && c != 'K') {
        PyErr_Format(PyExc_ValueError, "order must be one of 'C', 'F', 'A', or 'K' (got %R)",
                     order);
        return -1;
    }
    if (c == 'A')
        c = a->ndim > 1 && em_array_is_f_contiguous(a) && !em_array_is_c_contiguous(a) ? 'F' : 'C';
    *how = c;
    return 0;
}

/* a cast to dt as a new array in order how: the C-ordered copy of the view
 * with its axes permuted (reversed for F; for K sorted by decreasing
 * |stride|, stable, as NumPy's order='K'), viewed back in a's axis order. */
em_status pyem_astype_order(const em_array *a, em_dtype dt, char how, em_array *out) {
    int perm[EM_MAXDIMS], inv[EM_MAXDIMS];
    bool ident = true;
    for (int i = 0; i < a->ndim; i++) perm[i] = how == 'F' ? a->ndim - 1 - i : i;
    if (how == 'K')
        for (int i = 1; i < a->ndim; i++) /* insertion sort: stable, ndim is small */
            for (int j = i; j > 0; j--) {
                int64_t x = a->strides[perm[j - 1]], y = a->strides[perm[j]];
                if ((x < 0 ? -x : x) >= (y < 0 ? -y : y)) break;
                int t = perm[j];
                perm[j] = perm[j - 1];
                perm[j - 1] = t;
            }
    for (int i = 0; i < a->ndim; i++) {
        inv[perm[i]] = i;
        ident = ident && perm[i] == i;
    }
    if (ident) return em_astype(a, dt, out);
    em_array t = {0}, c = {0};
    em_status s = em_view_transpose(a, perm, &t);
    if (s == EM_OK) s = em_astype(&t, dt, &c);
    em_array_release(&t);
    if (s == EM_OK) s = em_view_transpose(&c, inv, out);
    em_array_release(&c);
    return s;
}

static PyObject *m_astype(PyObject *self, PyObject *args, PyObject *kw) {
    static char *kwlist[] = {"dtype", "order", "casting", "subok", "copy", "device", NULL};
    PyObject *dto, *order = NULL, *casting = NULL, *subok = NULL, *devo = NULL;
    int copy = 1;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "O|OOOpO", kwlist, &dto, &order, &casting, &subok,
                                     &copy, &devo))
        return NULL;
    em_dtype dt;
    char how;
    if (pyem_dtype_from_obj(dto, &dt, 0) < 0 ||
        pyem__check_casting(casting, EMARR_META(self)->dtype, dt) < 0 ||
        pyem_copy_order(order, 'K', EMARR_META(self), &how) < 0)
        return NULL;
    if (!copy && dt == EMARR_META(self)->dtype) return Py_NewRef(self);
    em_array r;
    em_status s;
    em_array *a = EMARR(self);
    Py_BEGIN_ALLOW_THREADS s = pyem_astype_order(a, dt, how, &r);
    Py_END_ALLOW_THREADS return pyem_auto_like(self, s == EM_OK ? pyem_wrap(&r) : pyem_raise(s));
}

static PyObject *m_copy(PyObject *self, PyObject *args, PyObject *kw) {
    static char *kwlist[] = {"order", NULL};
    PyObject *order = NULL;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "|O", kwlist, &order)) return NULL;
    char how;
    if (pyem_copy_order(order, 'C', EMARR_META(self), &how) < 0) return NULL;
    em_array r;
    em_status s;
    em_array *a = EMARR(self);
    Py_BEGIN_ALLOW_THREADS s = pyem_astype_order(a, EM_NDTYPES, how, &r);
    Py_END_ALLOW_THREADS return pyem_auto_like(self, s == EM_OK ? pyem_wrap(&r) : pyem_raise(s));
}

static PyObject *m_fill(PyObject *self, PyObject *value) {
    em_array v;
    em_device cpu = {EM_CPU, 0};
    if (pyem_as_array(value, EMARR(self)->dtype, cpu, -1, &v) < 0) return NULL;
    if (v.ndim != 0) {
        em_array_release(&v);
        PyErr_SetString(PyExc_ValueError, "fill takes a scalar value");
        return NULL;
    }
    em_status s = em_copy_into(EMARR(self), &v);
    em_array_release(&v);
    if (s != EM_OK) return pyem_raise(s);
    Py_RETURN_NONE;
}

/* Shape from f(*shape) or f(shape). */
static int pyem__shape_args(PyObject *args, int *nd, int64_t *shape) {
    PyObject *seq = args;
    if (PyTuple_GET_SIZE(args) == 1 && !PyLong_Check(PyTuple_GET_ITEM(args, 0)) &&
        !PyIndex_Check(PyTuple_GET_ITEM(args, 0)))
        seq = PyTuple_GET_ITEM(args, 0);
    return pyem_shape_from_obj(seq, nd, shape);
}

/* a reshaped in C order: a view when the strides allow, else (unless
 * copy=False) a view of a C-ordered copy.  -1: a Python error is set. */
static int pyem__reshape_c(const em_array *a, int nd, const int64_t *shape, PyObject *copyo,
                           em_array *v) {
    em_array c;
    em_status s = copyo == Py_True ? EM_EUNSUPPORTED : em_view_reshape(a, nd, shape, v);
    if (s == EM_EUNSUPPORTED) {
        if (copyo == Py_False) {
            PyErr_SetString(PyExc_ValueError, "Unable to avoid creating a copy while reshaping.");
            return -1;
        }
        s = em_astype(a, EM_NDTYPES, &c);
        if (s == EM_OK) {
            s = em_view_reshape(&c, nd, shape, v);
            em_array_release(&c);
        }
    }
    return s == EM_OK ? 0 : (pyem_raise(s), -1);
}

static PyObject *m_reshape(PyObject *self, PyObject *args, PyObject *kw) {
    PyObject *order = kw ? PyDict_GetItemString(kw, "order") : NULL;
    PyObject *copyo = kw ? PyDict_GetItemString(kw, "copy") : NULL;
    PyObject *shp = kw ? PyDict_GetItemString(kw, "shape") : NULL;
    int nd;
    int64_t shape[EM_MAXDIMS];
    PyObject *sargs = shp ? PyTuple_Pack(1, shp) : Py_NewRef(args);
    int bad = pyem__shape_args(sargs, &nd, shape);
    Py_DECREF(sargs);
    char how;
    em_array *a = EMARR(self);
    /* order 'K' is not allowed for reshape; 'A' is F for an F-ordered array. */
    if (bad < 0 || pyem_copy_order(order, 'C', a, &how) < 0) return NULL;
    if (how == 'K') {
        PyErr_SetString(PyExc_ValueError, "order 'K' is not permitted for reshaping");
        return NULL;
    }
    em_array v;
    if (how == 'C') return pyem__reshape_c(a, nd, shape, copyo, &v) < 0 ? NULL : pyem_wrap(&v);
    /* F order is C order with every axis reversed, on both sides. */
    int64_t rev[EM_MAXDIMS];
    for (int i = 0; i < nd; i++) rev[i] = shape[nd - 1 - i];
    em_array t, u;
    em_status s = em_view_transpose(a, NULL, &t);
    if (s != EM_OK) return pyem_raise(s);
    bad = pyem__reshape_c(&t, nd, rev, copyo, &u);
    em_array_release(&t);
    if (bad < 0) return NULL;
    s = em_view_transpose(&u, NULL, &v);
    em_array_release(&u);
    return s == EM_OK ? pyem_wrap(&v) : pyem_raise(s);
}

static PyObject *m_transpose(PyObject *self, PyObject *args) {
    int perm[EM_MAXDIMS];
    em_array *a = EMARR(self);
    int n = (int)PyTuple_GET_SIZE(args);
    PyObject *seq = args;
    if (n == 1 && PyTuple_GET_ITEM(args, 0) == Py_None)
        n = 0;
    else if (n == 1 && !PyLong_Check(PyTuple_GET_ITEM(args, 0))) {
        seq = PyTuple_GET_ITEM(args, 0);
        n = (int)PySequence_Size(seq);
        if (n < 0) return NULL;
    }
    if (n && n != a->ndim) return PyErr_Format(PyExc_ValueError, "axes don't match array");
    for (int i = 0; i < n; i++) {
        PyObject *it = PySequence_GetItem(seq, i);
        perm[i] = it ? (int)PyLong_AsLong(it) : -1;
        Py_XDECREF(it);
        if (PyErr_Occurred()) return NULL;
    }
    em_array v;
    em_status s = em_view_transpose(a, n ? perm : NULL, &v);
    return s == EM_OK ? pyem_wrap(&v) : pyem_raise(s);
}

static PyObject *m_broadcast_to(PyObject *self, PyObject *args) {
    int nd;
    int64_t shape[EM_MAXDIMS];
    if (pyem__shape_args(args, &nd, shape) < 0) return NULL;
    em_array v;
    em_status s = em_view_broadcast_to(EMARR(self), nd, shape, &v);
    if (s != EM_OK) return pyem_raise(s);
    v.flags &= ~(uint32_t)EM_WRITEABLE;
    return pyem_wrap(&v);
}

/* A view with new shape/strides/offset over the same buffer, bounds-checked
 * against the buffer (used by as_strided-style helpers and views). */
static PyObject *m_view_as(PyObject *self, PyObject *args) {
    PyObject *shp, *str;
    long long offset;
    if (!PyArg_ParseTuple(args, "OOL", &shp, &str, &offset)) return NULL;
    int nd, nd2;
    em_array v = *EMARR(self);
    PyObject *t1 = PyTuple_Pack(1, shp), *t2 = PyTuple_Pack(1, str);
    int bad = pyem__shape_args(t1, &nd, v.shape) < 0 || pyem__shape_args(t2, &nd2, v.strides) < 0;
    Py_DECREF(t1);
    Py_DECREF(t2);
    if (bad) return NULL;
    if (nd != nd2) return PyErr_Format(PyExc_ValueError, "shape and strides differ in length");
    v.ndim = nd;
    v.data += offset;
    char *lo, *hi, *blo = em_buffer_ptr(v.buf);
    em_array_extent(&v, &lo, &hi);
    if (em_array_size(&v) && (lo < blo || hi > blo + em_buffer_size(v.buf)))
        return PyErr_Format(PyExc_ValueError, "view would reach outside the array's memory");
    em_array r;
    em_array_view(&r, &v);
    return pyem_wrap(&r);
}

static PyObject *m_setflags(PyObject *self, PyObject *args, PyObject *kw) {
    static char *kwlist[] = {"write", NULL};
    int w = -1;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "|p", kwlist, &w)) return NULL;
    if (w == 1) EMARR(self)->flags |= EM_WRITEABLE;
    if (w == 0) EMARR(self)->flags &= ~(uint32_t)EM_WRITEABLE;
    Py_RETURN_NONE;
}

static PyObject *m_iter(PyObject *self) {
    return pyem__call_hook(HOOK_ITER, PyTuple_Pack(1, self));
}

static PyMethodDef pyem__methods[] = {
    {"get", (PyCFunction)(void (*)(void))m_get, METH_VARARGS | METH_KEYWORDS,
     "Copy to a numpy.ndarray."},
    {"__array__", (PyCFunction)(void (*)(void))m_array, METH_VARARGS | METH_KEYWORDS, NULL},
    {"item", m_item, METH_VARARGS, "The element as a Python scalar."},
    {"tolist", m_tolist, METH_NOARGS, "Nested lists of Python scalars."},
    {"astype", (PyCFunction)(void (*)(void))m_astype, METH_VARARGS | METH_KEYWORDS,
     "Cast to a dtype."},
    {"copy", (PyCFunction)(void (*)(void))m_copy, METH_VARARGS | METH_KEYWORDS,
     "A C-contiguous copy."},
    {"fill", m_fill, METH_O, "Set every element to a scalar."},
    {"reshape", (PyCFunction)(void (*)(void))m_reshape, METH_VARARGS | METH_KEYWORDS,
     "A view (or copy) with a new shape."},
    {"transpose", m_transpose, METH_VARARGS, "Permute the axes (a view)."},
    {"_broadcast_to", m_broadcast_to, METH_VARARGS, "Read-only broadcast view."},
    {"_view_as", m_view_as, METH_VARARGS, "View with (shape, strides, byte offset)."},
    {"setflags", (PyCFunction)(void (*)(void))m_setflags, METH_VARARGS | METH_KEYWORDS, NULL},
    {NULL, NULL, 0, NULL}};

/* ---- number protocol ------------------------------------------------- */

#define BIN(name, op)                                                                              \
    static PyObject *nb_##name(PyObject *a, PyObject *b) { return pyem_binary(EM_OP_##op, a, b); } \
    static PyObject *nb_i##name(PyObject *a, PyObject *b) { return pyem_inplace(EM_OP_##op, a, b); }
BIN(add, ADD)
BIN(sub, SUBTRACT)
BIN(mul, MULTIPLY)
BIN(truediv, DIVIDE)
BIN(floordiv, FLOOR_DIVIDE)
BIN(rem, REMAINDER)
BIN(and, BITWISE_AND)
BIN(or, BITWISE_OR)
BIN(xor, BITWISE_XOR)
BIN(lshift, LEFT_SHIFT)
BIN(rshift, RIGHT_SHIFT)
#undef BIN

static PyObject *nb_pow(PyObject *a, PyObject *b, PyObject *m) {
    if (m != Py_None) Py_RETURN_NOTIMPLEMENTED;
    return pyem_binary(EM_OP_POWER, a, b);
}
static PyObject *nb_ipow(PyObject *a, PyObject *b, PyObject *m) {
    return pyem_inplace(EM_OP_POWER, a, b);
}
static PyObject *nb_neg(PyObject *a) { return pyem_unary(EM_OP_NEGATIVE, a); }
static PyObject *nb_pos(PyObject *a) { return pyem_unary(EM_OP_POSITIVE, a); }
static PyObject *nb_abs(PyObject *a) { return pyem_unary(EM_OP_ABSOLUTE, a); }
static PyObject *nb_invert(PyObject *a) { return pyem_unary(EM_OP_INVERT, a); }
static PyObject *nb_matmul(PyObject *a, PyObject *b) {
    if (!EmArray_Check(a) && !EmArray_Check(b)) Py_RETURN_NOTIMPLEMENTED;
    return pyem__call_hook(HOOK_MATMUL, PyTuple_Pack(2, a, b));
}
static PyObject *nb_imatmul(PyObject *a, PyObject *b) {
    PyObject *r = nb_matmul(a, b);
    if (!r || r == Py_NotImplemented) return r;
    em_status s = em_copy_into(EMARR(a), EMARR(r));
    Py_DECREF(r);
    return s == EM_OK ? Py_NewRef(a) : pyem_raise(s);
}

static PyObject *pyem__scalar_of(PyObject *self, const char *what) {
    em_array *a = EMARR_META(self);
    if (em_array_size(a) != 1) {
        if (!strcmp(what, "bool") && em_array_size(a) > 1)
            return PyErr_Format(PyExc_ValueError,
                                "The truth value of an array with more than one element is "
                                "ambiguous. Use a.any() or a.all()");
        return PyErr_Format(PyExc_TypeError, "only size-1 arrays can be converted to Python %s",
                            what);
    }
    return pyem__item(self);
}

static int nb_bool(PyObject *self) {
    PyObject *v = pyem__scalar_of(self, "bool");
    if (!v) return -1;
    int r = PyObject_IsTrue(v);
    Py_DECREF(v);
    return r;
}
static PyObject *nb_int(PyObject *self) {
    PyObject *v = pyem__scalar_of(self, "int");
    if (!v) return NULL;
    PyObject *r = PyNumber_Long(v);
    Py_DECREF(v);
    return r;
}
static PyObject *nb_float(PyObject *self) {
    PyObject *v = pyem__scalar_of(self, "float");
    if (!v) return NULL;
    PyObject *r = PyNumber_Float(v);
    Py_DECREF(v);
    return r;
}
static PyObject *nb_index(PyObject *self) {
    char k = em_dtype_get(EMARR_META(self)->dtype)->kind;
    if (EMARR_META(self)->ndim != 0 || (k != 'i' && k != 'u'))
        return PyErr_Format(PyExc_TypeError,
                            "only integer scalar arrays can be converted to a scalar index");
    return pyem__item(self);
}
static PyObject *m_complex(PyObject *self, PyObject *unused) {
    PyObject *v = pyem__scalar_of(self, "complex");
    if (!v) return NULL;
    PyObject *r = PyObject_CallOneArg((PyObject *)&PyComplex_Type, v);
    Py_DECREF(v);
    return r;
}

static PyObject *pyem__richcompare(PyObject *a, PyObject *b, int op) {
    static const em_op map[] = {EM_OP_LESS,      EM_OP_LESS_EQUAL, EM_OP_EQUAL,
                                EM_OP_NOT_EQUAL, EM_OP_GREATER,    EM_OP_GREATER_EQUAL};
    return pyem_binary(map[op], a, b);
}

/* ---- sequence / mapping ---------------------------------------------- */

static Py_ssize_t mp_length(PyObject *self) {
    if (EMARR_META(self)->ndim == 0) {
        PyErr_SetString(PyExc_TypeError, "len() of unsized object");
        return -1;
    }
    return (Py_ssize_t)EMARR_META(self)->shape[0];
}

static int mp_ass_subscript(PyObject *self, PyObject *key, PyObject *value) {
    if (!value) {
        PyErr_SetString(PyExc_ValueError, "cannot delete array elements");
        return -1;
    }
    return pyem_setitem(self, key, value);
}

/* ---- buffer protocol (CPU arrays) ------------------------------------ */

/* The PEP 3118 format we export: 8-byte integers as 'l'/'L' where C's long
 * is 8 bytes, which NumPy reads as its default int64 ('q' becomes the
 * distinct longlong type, whose repr shows dtype=int64 and which
 * numpy.linalg refuses). */
static const char *pyem__export_format(em_dtype dt) {
    if (sizeof(long) == 8 && dt == EM_INT64) return "l";
    if (sizeof(long) == 8 && dt == EM_UINT64) return "L";
    return em_dtype_get(dt)->bufformat;
}

static int bf_getbuffer(PyObject *self, Py_buffer *view, int flags) {
    if (pyem_touch(self, "buffer export") < 0) return -1;
    em_array *a = EMARR(self);
    if (em_array_device(a).kind != EM_CPU) {
        PyErr_SetString(PyExc_BufferError,
                        "device arrays do not export the buffer protocol; use .get()");
        return -1;
    }
    if ((flags & PyBUF_WRITABLE) && !(a->flags & EM_WRITEABLE)) {
        PyErr_SetString(PyExc_BufferError, "array is read-only");
        return -1;
    }
    if ((flags & PyBUF_ND) != PyBUF_ND ||
        ((flags & PyBUF_STRIDES) != PyBUF_STRIDES && !em_array_is_c_contiguous(a))) {
        PyErr_SetString(PyExc_BufferError, "ember arrays need a strided buffer request");
        return -1;
    }
    if ((flags & PyBUF_C_CONTIGUOUS) == PyBUF_C_CONTIGUOUS && !em_array_is_c_contiguous(a)) {
        PyErr_SetString(PyExc_BufferError, "array is not C-contiguous");
        return -1;
    }
    if ((flags & PyBUF_F_CONTIGUOUS) == PyBUF_F_CONTIGUOUS && !em_array_is_f_contiguous(a)) {
        PyErr_SetString(PyExc_BufferError, "array is not Fortran-contiguous");
        return -1;
    }
    view->buf = a->data;
    view->obj = Py_NewRef(self);
    view->len = (Py_ssize_t)em_array_nbytes(a);
    view->readonly = !(a->flags & EM_WRITEABLE);
    view->itemsize = em_dtype_get(a->dtype)->size;
    view->format = (flags & PyBUF_FORMAT) ? (char *)pyem__export_format(a->dtype) : NULL;
    view->ndim = a->ndim;
    /* int64_t and Py_ssize_t are the same size on the platforms we build for. */
    view->shape = (Py_ssize_t *)a->shape;
    view->strides = (Py_ssize_t *)a->strides;
    view->suboffsets = NULL;
    view->internal = NULL;
    return 0;
}

_Static_assert(sizeof(Py_ssize_t) == sizeof(int64_t), "Py_ssize_t must be 64-bit");

/* ---- repr ------------------------------------------------------------ */

static PyObject *pyem__repr(PyObject *self, int str) {
    PyObject *h = pyem__to_numpy(self, 0);
    if (!h) return NULL;
    PyObject *r = str ? PyObject_Str(h) : PyObject_Repr(h);
    Py_DECREF(h);
    em_device d = em_array_device(EMARR_META(self));
    if (r && !str && d.kind != EM_CPU) {
        /* array([...], dtype=...) -> array([...], dtype=..., device='cuda:0') */
        PyObject *head = PyUnicode_Substring(r, 0, PyUnicode_GetLength(r) - 1);
        Py_SETREF(r, head ? PyUnicode_FromFormat("%U, device='%s:%d')", head,
                                                 em_device_kind_name(d.kind), d.id)
                          : NULL);
        Py_XDECREF(head);
    }
    return r;
}
static PyObject *tp_repr(PyObject *self) { return pyem__repr(self, 0); }
static PyObject *tp_str(PyObject *self) { return pyem__repr(self, 1); }

static PyMethodDef pyem__extra_methods[] = {{"__complex__", m_complex, METH_NOARGS, NULL},
                                            {NULL, NULL, 0, NULL}};

/* ---- the type -------------------------------------------------------- */

static PyMemberDef pyem__members[] = {
    {"__weaklistoffset__", T_PYSSIZET, offsetof(EmArrayObject, weakreflist), READONLY, NULL},
    {NULL, 0, 0, 0, NULL}};

static PyType_Slot pyem__slots[] = {{Py_tp_dealloc, pyem__dealloc},
                                    {Py_tp_new, pyem__new},
                                    {Py_tp_repr, tp_repr},
                                    {Py_tp_str, tp_str},
                                    {Py_tp_hash, PyObject_HashNotImplemented},
                                    {Py_tp_getset, pyem__getset},
                                    {Py_tp_methods, pyem__methods},
                                    {Py_tp_members, pyem__members},
                                    {Py_tp_richcompare, pyem__richcompare},
                                    {Py_tp_iter, m_iter},
                                    {Py_nb_add, nb_add},
                                    {Py_nb_subtract, nb_sub},
                                    {Py_nb_multiply, nb_mul},
                                    {Py_nb_true_divide, nb_truediv},
                                    {Py_nb_floor_divide, nb_floordiv},
                                    {Py_nb_remainder, nb_rem},
                                    {Py_nb_power, nb_pow},
                                    {Py_nb_and, nb_and},
                                    {Py_nb_or, nb_or},
                                    {Py_nb_xor, nb_xor},
                                    {Py_nb_lshift, nb_lshift},
                                    {Py_nb_rshift, nb_rshift},
                                    {Py_nb_inplace_add, nb_iadd},
                                    {Py_nb_inplace_subtract, nb_isub},
                                    {Py_nb_inplace_multiply, nb_imul},
                                    {Py_nb_inplace_true_divide, nb_itruediv},
                                    {Py_nb_inplace_floor_divide, nb_ifloordiv},
                                    {Py_nb_inplace_remainder, nb_irem},
                                    {Py_nb_inplace_power, nb_ipow},
                                    {Py_nb_inplace_and, nb_iand},
                                    {Py_nb_inplace_or, nb_ior},
                                    {Py_nb_inplace_xor, nb_ixor},
                                    {Py_nb_inplace_lshift, nb_ilshift},
                                    {Py_nb_inplace_rshift, nb_irshift},
                                    {Py_nb_negative, nb_neg},
                                    {Py_nb_positive, nb_pos},
                                    {Py_nb_absolute, nb_abs},
                                    {Py_nb_invert, nb_invert},
                                    {Py_nb_matrix_multiply, nb_matmul},
                                    {Py_nb_inplace_matrix_multiply, nb_imatmul},
                                    {Py_nb_bool, nb_bool},
                                    {Py_nb_int, nb_int},
                                    {Py_nb_float, nb_float},
                                    {Py_nb_index, nb_index},
                                    {Py_mp_length, mp_length},
                                    {Py_mp_subscript, pyem_getitem},
                                    {Py_mp_ass_subscript, mp_ass_subscript},
                                    {Py_bf_getbuffer, bf_getbuffer},
                                    {0, NULL}};

static PyType_Spec pyem__spec = {"ember.ndarray", sizeof(EmArrayObject), 0,
                                 Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE, pyem__slots};

int pyem_ndarray_init_type(PyObject *m) {
    EmArray_Type = (PyTypeObject *)PyType_FromSpec(&pyem__spec);
    if (!EmArray_Type) return -1;
    for (PyMethodDef *d = pyem__extra_methods; d->ml_name; d++) {
        PyObject *f = PyDescr_NewMethod(EmArray_Type, d);
        if (!f || PyObject_SetAttrString((PyObject *)EmArray_Type, d->ml_name, f) < 0) return -1;
        Py_DECREF(f);
    }
    return PyModule_AddObjectRef(m, "ndarray", (PyObject *)EmArray_Type);
}

PyMethodDef pyem_ndarray_functions[] = {
    {"_set_hook", pyem__set_hook, METH_VARARGS, "Register a Python hook (matmul, getitem, ...)."},
    {NULL, NULL, 0, NULL}};
