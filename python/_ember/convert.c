/* Python objects <-> arrays: scalars, NumPy arrays (zero-copy on the CPU
 * where the layout allows), nested sequences (through numpy.asarray, which
 * also gives NumPy's error for ragged input), and creation functions. */
#include "pyember.h"

#include <complex.h>
#include <string.h>

/* An em.Device (its kind and id attributes) without its __str__: device=
 * is on every creation call.  1: done; 0: not one (use str()); -1: error. */
static int pyem__device_attrs(PyObject *o, em_device *d) {
    static PyObject *kind_s, *id_s;
    if (!kind_s && !(kind_s = PyUnicode_InternFromString("kind"))) return -1;
    if (!id_s && !(id_s = PyUnicode_InternFromString("id"))) return -1;
    if (PyUnicode_Check(o) || PyLong_Check(o)) return 0;
    PyObject *k = PyObject_GetAttr(o, kind_s), *i = k ? PyObject_GetAttr(o, id_s) : NULL;
    int r = 0;
    if (k && i && PyUnicode_Check(k) && PyLong_CheckExact(i)) {
        const char *ks = PyUnicode_AsUTF8(k);
        long id = PyLong_AsLong(i);
        em_device_kind kind = !ks                   ? EM_NKINDS
                              : !strcmp(ks, "cpu")  ? EM_CPU
                              : !strcmp(ks, "cuda") ? EM_CUDA
                                                    : EM_NKINDS;
        if (kind != EM_NKINDS && id >= 0 && id < 1 << 20) {
            em_device dv = {kind, (int)id};
            em_status st = em_device_check(dv);
            if (st == EM_OK) *d = dv;
            r = st == EM_OK ? 1 : (pyem_raise(st), -1);
        }
    }
    if (PyErr_Occurred() && r == 0) {
        if (!PyErr_ExceptionMatches(PyExc_AttributeError))
            r = -1;
        else
            PyErr_Clear();
    }
    Py_XDECREF(k);
    Py_XDECREF(i);
    return r;
}

int pyem_parse_device(PyObject *o, em_device *d) {
    if (!o || o == Py_None) {
        *d = pyem_current_device();
        return 0;
    }
    int r = pyem__device_attrs(o, d);
    if (r) return r < 0 ? -1 : 0;
    PyObject *s;
    if (PyLong_Check(o) && !PyBool_Check(o)) /* an int N means cuda:N, as em.Device(N) */
        s = PyUnicode_FromFormat("cuda:%S", o);
    else
        s = PyUnicode_Check(o) ? Py_NewRef(o) : PyObject_Str(o);
    if (!s) return -1;
    const char *spec = PyUnicode_AsUTF8(s);
    /* "auto" reaching C (the ember package marks what it creates for auto
     * itself): new data starts on the host, where auto arrays are born. */
    em_status st = !spec                   ? EM_EVALUE
                   : !strcmp(spec, "auto") ? (*d = (em_device){EM_CPU, 0}, EM_OK)
                                           : em_device_parse(spec, d);
    Py_DECREF(s);
    if (!spec) return -1;
    if (st != EM_OK) {
        pyem_raise(st);
        return -1;
    }
    return 0;
}

/* ---- scalars ----------------------------------------------------------- */

int pyem_scalar_dtype(PyObject *o, em_dtype *dt) {
    if (PyBool_Check(o))
        *dt = EM_BOOL;
    else if (PyLong_Check(o))
        *dt = EM_INT64;
    else if (PyFloat_Check(o))
        *dt = EM_FLOAT64;
    else if (PyComplex_Check(o))
        *dt = EM_COMPLEX128;
    else
        return -1;
    return 0;
}

static int pyem__store_int(PyObject *o, em_dtype dt, void *p) {
    const em_dtype_info *info = em_dtype_get(dt);
    int overflow = 0;
    long long v = PyLong_AsLongLongAndOverflow(o, &overflow);
    unsigned long long u = (unsigned long long)v;
    if (v == -1 && PyErr_Occurred()) return -1;
    if (overflow > 0 && info->kind == 'u' && info->size == 8) {
        u = PyLong_AsUnsignedLongLong(o);
        if (u == (unsigned long long)-1 && PyErr_Occurred()) goto range;
        goto store; /* in [2**63, 2**64): fits uint64 (v is -1 here) */
    }
    if (overflow) goto range;
    if (info->kind == 'i') {
        int bits = info->size * 8;
        if (bits < 64 && (v < -(1LL << (bits - 1)) || v >= (1LL << (bits - 1)))) goto range;
    } else if (u == (unsigned long long)v) {
        if (v < 0 || (info->size < 8 && (unsigned long long)v >> (info->size * 8))) goto range;
    }
store:
    switch (info->size) {
    case 1: *(uint8_t *)p = (uint8_t)u; break;
    case 2: *(uint16_t *)p = (uint16_t)u; break;
    case 4: *(uint32_t *)p = (uint32_t)u; break;
    default: *(uint64_t *)p = (uint64_t)u; break;
    }
    return 0;
range:
    PyErr_Clear();
    PyErr_Format(PyExc_OverflowError, "Python integer %R out of bounds for %s", o, info->name);
    return -1;
}

int pyem_scalar_store(PyObject *o, em_dtype dt, void *p) {
    char k = em_dtype_get(dt)->kind;
    if (k == 'b') {
        int t = PyObject_IsTrue(o);
        if (t < 0) return -1;
        *(bool *)p = t;
        return 0;
    }
    if ((k == 'i' || k == 'u') && PyLong_Check(o)) return pyem__store_int(o, dt, p);
    if ((k == 'i' || k == 'u') && PyFloat_Check(o)) {
        /* NumPy 2 stores a Python float into an integer array as int(v):
         * NaN is a ValueError, an infinity or a value out of the dtype's
         * range an OverflowError, instead of the cast's garbage. */
        PyObject *iv = PyNumber_Long(o);
        if (!iv) return -1;
        int r = pyem__store_int(iv, dt, p);
        Py_DECREF(iv);
        return r;
    }
    if (k == 'c') {
        Py_complex c = PyComplex_AsCComplex(o);
        if (c.real == -1.0 && PyErr_Occurred()) return -1;
        /* Store the parts separately: `re + im * I` would turn an infinite
           imaginary part into a NaN real part (0 * inf). */
        if (dt == EM_COMPLEX64) {
            float parts[2] = {(float)c.real, (float)c.imag};
            memcpy(p, parts, sizeof parts);
        } else {
            double parts[2] = {c.real, c.imag};
            memcpy(p, parts, sizeof parts);
        }
        return 0;
    }
    double v = PyFloat_AsDouble(o);
    if (v == -1.0 && PyErr_Occurred()) return -1;
    /* The common fills directly (C's conversion is the core's cast for these). */
    if (dt == EM_FLOAT64) return memcpy(p, &v, sizeof v), 0;
    if (dt == EM_FLOAT32) {
        float f = (float)v;
        return memcpy(p, &f, sizeof f), 0;
    }
    double _Complex c = v;
    em_array src, dst;
    em_device cpu = {EM_CPU, 0};
    /* Through the core's casts, so float -> int matches array casting. */
    if (em_array_wrap(&src, &c, EM_FLOAT64, 0, NULL, NULL, cpu, NULL, NULL) != EM_OK ||
        em_array_wrap(&dst, p, dt, 0, NULL, NULL, cpu, NULL, NULL) != EM_OK)
        return pyem_raise(EM_ENOMEM), -1;
    em_status s = em_copy_into(&dst, &src);
    em_array_release(&src);
    em_array_release(&dst);
    return s == EM_OK ? 0 : (pyem_raise(s), -1);
}

PyObject *pyem_scalar_load(em_dtype dt, const void *p) {
    switch (dt) {
    case EM_BOOL: return PyBool_FromLong(*(const bool *)p);
    case EM_INT8: return PyLong_FromLong(*(const int8_t *)p);
    case EM_INT16: return PyLong_FromLong(*(const int16_t *)p);
    case EM_INT32: return PyLong_FromLong(*(const int32_t *)p);
    case EM_INT64: return PyLong_FromLongLong(*(const int64_t *)p);
    case EM_UINT8: return PyLong_FromUnsignedLong(*(const uint8_t *)p);
    case EM_UINT16: return PyLong_FromUnsignedLong(*(const uint16_t *)p);
    case EM_UINT32: return PyLong_FromUnsignedLong(*(const uint32_t *)p);
    case EM_UINT64: return PyLong_FromUnsignedLongLong(*(const uint64_t *)p);
    case EM_FLOAT16: return PyFloat_FromDouble((double)*(const _Float16 *)p);
    case EM_FLOAT32: return PyFloat_FromDouble(*(const float *)p);
    case EM_FLOAT64: return PyFloat_FromDouble(*(const double *)p);
    case EM_COMPLEX64: {
        float _Complex c = *(const float _Complex *)p;
        return PyComplex_FromDoubles(crealf(c), cimagf(c));
    }
    case EM_COMPLEX128: {
        double _Complex c = *(const double _Complex *)p;
        return PyComplex_FromDoubles(creal(c), cimag(c));
    }
    default: return PyErr_Format(PyExc_TypeError, "bad dtype code %d", (int)dt);
    }
}

/* ---- NumPy and other array-likes -------------------------------------- */

static void pyem__decref_owner(void *ctx) {
    PyGILState_STATE g = PyGILState_Ensure();
    Py_DECREF((PyObject *)ctx);
    PyGILState_Release(g);
}

/* A CPU array over the buffer v of owner (kept alive by the array), as
 * dtype dt; read-only when the buffer is; a leaf that fusion may read.
 * Does not release v. */
static em_status pyem__wrap_view(PyObject *owner, const Py_buffer *v, em_dtype dt, em_array *out) {
    int64_t shape[EM_MAXDIMS], strides[EM_MAXDIMS];
    /* A buffer may have more dimensions than an em_array holds (NumPy's
     * limit is 64): refuse before copying its shape into ours. */
    if (v->ndim < 0 || v->ndim > EM_MAXDIMS)
        return em_error(EM_EVALUE, "maximum supported dimension for an ndarray is %d, found %d",
                        EM_MAXDIMS, v->ndim);
    for (int i = 0; i < v->ndim; i++) shape[i] = v->shape[i], strides[i] = v->strides[i];
    em_device cpu = {EM_CPU, 0};
    em_status s = em_array_wrap(out, v->buf, dt, v->ndim, shape, strides, cpu, pyem__decref_owner,
                                Py_NewRef(owner));
    if (s == EM_OK && v->readonly) out->flags &= ~(uint32_t)EM_WRITEABLE;
    /* Fused expressions may read it: NumPy's writes after the wrap are the user's aliasing. */
    if (s == EM_OK) em_array_allow_fusion(out);
    if (s != EM_OK) Py_DECREF(owner);
    return s;
}

/* A view of a host numpy array (kept alive by the view).  The array must
 * be native-endian, aligned and of a supported dtype. */
static int pyem__wrap_numpy(PyObject *arr, em_array *out) {
    PyObject *dto = PyObject_GetAttrString(arr, "dtype");
    if (!dto) return -1;
    em_dtype dt;
    int bad = pyem_dtype_from_obj(dto, &dt, 0);
    Py_DECREF(dto);
    if (bad < 0) return -1;
    Py_buffer view;
    if (PyObject_GetBuffer(arr, &view, PyBUF_RECORDS_RO) < 0) return -1;
    em_status s = pyem__wrap_view(arr, &view, dt, out);
    PyBuffer_Release(&view);
    return s == EM_OK ? 0 : (pyem_raise(s), -1);
}

em_dtype pyem_buffer_dtype(const char *f, Py_ssize_t itemsize) {
    if (!f) return EM_UINT8;
    if (*f == '@' || *f == '=' || *f == '<')
        f++;
    else if (*f == '>' || *f == '!')
        return EM_NDTYPES;
    /* NumPy says 'l'/'L' for 8-byte longs where we say 'q'/'Q'. */
    if (itemsize == 8 && (!strcmp(f, "l") || !strcmp(f, "L"))) f = f[0] == 'l' ? "q" : "Q";
    for (int d = 0; d < EM_NDTYPES; d++)
        if (em_dtype_get((em_dtype)d)->size == itemsize &&
            !strcmp(em_dtype_get((em_dtype)d)->bufformat, f))
            return (em_dtype)d;
    return EM_NDTYPES;
}

/* A numpy.ndarray (exactly) of dtype `want` (EM_NDTYPES: any) wrapped
 * without NumPy's asarray and require (30 thousand instructions of Python
 * for a host-to-device copy of 1000 floats); a cast stays NumPy's: 1 done,
 * 0 not this fast case (nothing changed), -1 error. */
static int pyem__wrap_plain_numpy(PyObject *o, em_dtype want, em_array *out) {
    static PyObject *ndarray;
    if (!ndarray) {
        PyObject *np = PyImport_ImportModule("numpy");
        ndarray = np ? PyObject_GetAttrString(np, "ndarray") : NULL;
        Py_XDECREF(np);
        if (!ndarray) return PyErr_Clear(), 0;
    }
    if ((PyObject *)Py_TYPE(o) != ndarray) return 0;
    Py_buffer v;
    if (PyObject_GetBuffer(o, &v, PyBUF_RECORDS_RO) < 0) return PyErr_Clear(), 0;
    em_dtype dt = pyem_buffer_dtype(v.format, v.itemsize);
    /* Aligned as NumPy's own loops need (at most 8 bytes: stricter than
     * complex64 asks, never looser). */
    Py_ssize_t al = v.itemsize < 8 ? v.itemsize : 8;
    bool ok = dt != EM_NDTYPES && (want == EM_NDTYPES || want == dt) && v.ndim <= EM_MAXDIMS &&
              al > 0 && (uintptr_t)v.buf % (uintptr_t)al == 0;
    for (int i = 0; ok && i < v.ndim; i++) ok = v.strides[i] % al == 0;
    em_status s = ok ? pyem__wrap_view(o, &v, dt, out) : EM_OK;
    PyBuffer_Release(&v);
    if (s != EM_OK) return pyem_raise(s), -1;
    return ok;
}

/* numpy.asarray(o[, dtype]) made native-endian and aligned.  With
 * copy == 0 NumPy itself refuses objects it would have to copy (lists). */
static PyObject *pyem__numpy_of(PyObject *o, em_dtype dtype, int copy) {
    PyObject *np = PyImport_ImportModule("numpy");
    if (!np) return NULL;
    PyObject *asarray = PyObject_GetAttrString(np, "asarray");
    PyObject *args =
        Py_BuildValue("(OO)", o, dtype == EM_NDTYPES ? Py_None : pyem_dtype_obj(dtype));
    PyObject *kw = copy == 0 ? Py_BuildValue("{s:O}", "copy", Py_False) : NULL;
    PyObject *arr = asarray && args ? PyObject_Call(asarray, args, kw) : NULL;
    Py_XDECREF(asarray);
    Py_XDECREF(args);
    Py_XDECREF(kw);
    PyObject *d = arr ? PyObject_GetAttrString(arr, "dtype") : NULL;
    PyObject *nd = d ? PyObject_CallMethod(d, "newbyteorder", "s", "=") : NULL;
    PyObject *fixed = nd ? PyObject_CallMethod(np, "require", "OOs", arr, nd, "A") : NULL;
    Py_XDECREF(arr);
    Py_XDECREF(d);
    Py_XDECREF(nd);
    Py_DECREF(np);
    return fixed;
}

int pyem_as_array(PyObject *o, em_dtype dtype, em_device dev, int copy, em_array *out) {
    em_array src = {0};
    if (EmArray_Check(o)) {
        em_array_view(&src, EMARR(o));
    } else {
        em_dtype sdt;
        if (pyem_scalar_dtype(o, &sdt) == 0) {
            em_dtype dt = dtype == EM_NDTYPES ? sdt : dtype;
            em_device cpu = {EM_CPU, 0};
            em_status s = em_array_empty(&src, dt, 0, NULL, cpu);
            if (s != EM_OK) return pyem_raise(s), -1;
            if (pyem_scalar_store(o, dt, src.data) < 0) {
                em_array_release(&src);
                return -1;
            }
            if (copy == 1) copy = -1; /* already a fresh array */
        } else {
            int fast = pyem__wrap_plain_numpy(o, dtype, &src);
            if (fast < 0) return -1;
            PyObject *arr = fast ? NULL : pyem__numpy_of(o, dtype, copy);
            if (!fast && !arr) return -1;
            int bad = fast ? 0 : pyem__wrap_numpy(arr, &src);
            Py_XDECREF(arr);
            if (bad < 0) return -1;
        }
    }
    em_device sd = em_array_device(&src);
    bool moves = sd.kind != dev.kind || sd.id != dev.id;
    bool casts = dtype != EM_NDTYPES && dtype != src.dtype;
    if (!moves && !casts && copy != 1) {
        *out = src;
        return 0;
    }
    if (copy == 0) {
        em_array_release(&src);
        PyErr_SetString(PyExc_ValueError,
                        "Unable to avoid copy while creating an array as requested");
        return -1;
    }
    em_array tmp = {0}, res = {0};
    em_status s;
    Py_BEGIN_ALLOW_THREADS s =
        casts ? em_astype(&src, dtype, &tmp) : (em_array_view(&tmp, &src), EM_OK);
    if (s == EM_OK) s = em_to_device(&tmp, dev, &res);
    Py_END_ALLOW_THREADS em_array_release(&tmp);
    em_array_release(&src);
    if (s != EM_OK) return pyem_raise(s), -1;
    *out = res;
    return 0;
}

/* ---- module functions ------------------------------------------------- */

static PyObject *f_asarray(PyObject *self, PyObject *args, PyObject *kw) {
    static char *kwlist[] = {"obj", "dtype", "device", "copy", NULL};
    PyObject *obj, *dto = Py_None, *devo = Py_None, *copyo = Py_None;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "O|OOO", kwlist, &obj, &dto, &devo, &copyo))
        return NULL;
    em_dtype dt;
    em_device dev;
    if (pyem_dtype_from_obj(dto, &dt, 1) < 0) return NULL;
    if (devo == Py_None && EmArray_Check(obj))
        dev = em_array_device(EMARR(obj));
    else if (pyem_parse_device(devo, &dev) < 0)
        return NULL;
    if (PyUnicode_Check(copyo)) { /* NumPy 2's check: "if_needed" is not a bool */
        PyErr_SetString(PyExc_ValueError,
                        "strings are not allowed for 'copy' keyword. Use True/False/None instead.");
        return NULL;
    }
    int copy = copyo == Py_None ? -1 : PyObject_IsTrue(copyo);
    if (copy < 0 && copyo != Py_None) return NULL; /* its __bool__ raised */
    em_array a;
    if (pyem_as_array(obj, dt, dev, copy, &a) < 0) return NULL;
    return pyem_wrap(&a);
}

/* One dimension from an index object; a value past int64 is NumPy's
 * ValueError, not the OverflowError of the conversion. */
static int64_t pyem__dim_of(PyObject *ix) {
    int overflow = 0;
    long long v = ix ? PyLong_AsLongLongAndOverflow(ix, &overflow) : -1;
    if (overflow) {
        PyErr_SetString(PyExc_ValueError, "Maximum allowed dimension exceeded");
        return -1;
    }
    return v;
}

int pyem_shape_from_obj(PyObject *o, int *nd, int64_t *shape) {
    if (PyLong_Check(o) || PyIndex_Check(o)) {
        PyObject *ix = PyNumber_Index(o);
        shape[0] = pyem__dim_of(ix);
        Py_XDECREF(ix);
        *nd = 1;
        return shape[0] == -1 && PyErr_Occurred() ? -1 : 0;
    }
    PyObject *fast = PySequence_Fast(o, "shape must be an int or a sequence of ints");
    if (!fast) return -1;
    Py_ssize_t n = PySequence_Fast_GET_SIZE(fast);
    if (n > EM_MAXDIMS) {
        Py_DECREF(fast);
        PyErr_Format(PyExc_ValueError,
                     "maximum supported dimension for an ndarray is %d, found %zd", EM_MAXDIMS, n);
        return -1;
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *it = PySequence_Fast_GET_ITEM(fast, i);
        PyObject *ix = PyNumber_Index(it);
        shape[i] = pyem__dim_of(ix);
        Py_XDECREF(ix);
        if (shape[i] == -1 && PyErr_Occurred()) {
            Py_DECREF(fast);
            if (!ix)
                PyErr_Format(PyExc_TypeError, "'%.100s' object cannot be interpreted as an integer",
                             Py_TYPE(it)->tp_name);
            return -1;
        }
    }
    Py_DECREF(fast);
    *nd = (int)n;
    return 0;
}

static PyObject *f_full(PyObject *self, PyObject *args, PyObject *kw) {
    static char *kwlist[] = {"shape", "fill_value", "dtype", "device", NULL};
    PyObject *shp, *val = NULL, *dto = Py_None, *devo = Py_None;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "O|OOO", kwlist, &shp, &val, &dto, &devo))
        return NULL;
    int nd;
    int64_t shape[EM_MAXDIMS];
    em_dtype dt;
    em_device dev;
    if (pyem_shape_from_obj(shp, &nd, shape) < 0 || pyem_dtype_from_obj(dto, &dt, 1) < 0 ||
        pyem_parse_device(devo, &dev) < 0)
        return NULL;
    em_array v = {0}, r;
    if (val && val != Py_None) {
        em_device cpu = {EM_CPU, 0};
        /* A Python scalar is stored in the requested dtype, so that an
         * out-of-range integer raises OverflowError as in NumPy. */
        em_dtype vdt, sdt;
        vdt = pyem_scalar_dtype(val, &sdt) == 0 ? dt : EM_NDTYPES;
        /* ... but a float is cast like an array (NumPy's full(2, nan,
         * dtype=int) warns, where a[0] = nan raises). */
        if (vdt != EM_NDTYPES && PyFloat_Check(val) && strchr("iu", em_dtype_get(vdt)->kind))
            vdt = EM_NDTYPES;
        if (pyem_as_array(val, vdt, cpu, -1, &v) < 0) return NULL;
        if (dt == EM_NDTYPES) dt = v.dtype;
    }
    if (dt == EM_NDTYPES) dt = EM_FLOAT64;
    em_status s = em_array_empty(&r, dt, nd, shape, dev);
    if (s == EM_OK && v.buf) {
        Py_BEGIN_ALLOW_THREADS s = em_copy_into(&r, &v);
        Py_END_ALLOW_THREADS if (s != EM_OK) em_array_release(&r);
    }
    em_array_release(&v);
    return s == EM_OK ? pyem_wrap(&r) : pyem_raise(s);
}

PyMethodDef pyem_convert_functions[] = {
    {"asarray", (PyCFunction)(void (*)(void))f_asarray, METH_VARARGS | METH_KEYWORDS,
     "asarray(obj, dtype=None, device=None, copy=None)"},
    {"full", (PyCFunction)(void (*)(void))f_full, METH_VARARGS | METH_KEYWORDS,
     "full(shape, fill_value=None, dtype=None, device=None); no fill value gives empty."},
    {NULL, NULL, 0, NULL}};
