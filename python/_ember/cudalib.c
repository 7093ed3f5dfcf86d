/* CUDA's math libraries from Python: cuFFT and cuSOLVER building blocks
 * (include/ember/cudalib.h), assembled into NumPy's functions by
 * ember/fft.py and ember/linalg.py.  Arguments are forced (evaluated if
 * pending) before the GIL is released. */
#include "pyember.h"
#include "ember/cudalib.h"
#include "ember/smallla.h"

/* The arrays' data, evaluated, or -1 with the exception set. */
static int pyem__ready(PyObject *const *objs, int n, const char *why) {
    for (int i = 0; i < n; i++)
        if (objs[i] && pyem_force(objs[i], why) < 0) return -1;
    return 0;
}

/* A tuple of n new arrays (NULL entries become None); releases all on error. */
static PyObject *pyem__tuple(em_array *arrs, const bool *set, int n) {
    PyObject *t = PyTuple_New(n);
    if (!t) {
        for (int j = 0; j < n; j++)
            if (set[j]) em_array_release(&arrs[j]);
        return NULL;
    }
    for (int i = 0; i < n; i++) {
        PyObject *o;
        if (!set[i]) {
            o = Py_NewRef(Py_None);
        } else if (!(o = pyem_wrap(&arrs[i]))) {
            for (int j = i + 1; j < n; j++)
                if (set[j]) em_array_release(&arrs[j]);
            Py_DECREF(t);
            return NULL;
        }
        PyTuple_SET_ITEM(t, i, o);
    }
    return t;
}

static PyObject *f_available(PyObject *self, PyObject *args) {
    int which;
    if (!PyArg_ParseTuple(args, "i", &which)) return NULL;
    bool ok;
    Py_BEGIN_ALLOW_THREADS ok = em_cudalib_available(which);
    Py_END_ALLOW_THREADS return PyBool_FromLong(ok);
}

static PyObject *f_probe(PyObject *self, PyObject *args) {
    int which;
    const char *path;
    if (!PyArg_ParseTuple(args, "is", &which, &path)) return NULL;
    return em_cudalib_probe(which, path) == EM_OK ? Py_NewRef(Py_None) : pyem_raise(EM_EDEVICE);
}

static PyObject *f_fft(PyObject *self, PyObject *args) {
    PyObject *ox;
    int rank, kind;
    long long nlast = 0;
    if (!PyArg_ParseTuple(args, "O!ii|L", EmArray_Type, &ox, &rank, &kind, &nlast)) return NULL;
    if (pyem__ready(&ox, 1, "cuda_fft") < 0) return NULL;
    em_array out = {0};
    em_status s;
    Py_BEGIN_ALLOW_THREADS s = em_cuda_fft(EMARR(ox), rank, kind, nlast, &out);
    Py_END_ALLOW_THREADS return s == EM_OK ? pyem_wrap(&out) : pyem_raise(s);
}

static PyObject *f_fft_plans(PyObject *self, PyObject *args) {
    int clear = 0;
    if (!PyArg_ParseTuple(args, "|p", &clear)) return NULL;
    if (clear && em_cudalib_available(EM_CUDALIB_CUFFT)) em_cuda_fft_plans_clear();
    int cached = 0, created = 0;
    em_cuda_fft_plans_stats(&cached, &created);
    return Py_BuildValue("(ii)", cached, created);
}

/* cuda_solver(op, a, b=None, flag=0, flag2=0): op names the cuSOLVER piece. */
static PyObject *f_solver(PyObject *self, PyObject *args) {
    const char *op;
    PyObject *oa, *ob = NULL, *oc = NULL;
    int f1 = 0, f2 = 0;
    if (!PyArg_ParseTuple(args, "sO!|OOii", &op, EmArray_Type, &oa, &ob, &oc, &f1, &f2))
        return NULL;
    if (ob == Py_None) ob = NULL;
    if (oc == Py_None) oc = NULL;
    if ((ob && !EmArray_Check(ob)) || (oc && !EmArray_Check(oc)))
        return PyErr_Format(PyExc_TypeError, "cuda_solver: b and c must be ember arrays or None");
    PyObject *objs[3] = {oa, ob, oc};
    if (pyem__ready(objs, 3, "cuda_solver") < 0) return NULL;
    em_array r[4] = {{0}};
    bool set[4] = {false, false, false, false};
    em_status s = EM_EVALUE;
    const em_array *a = EMARR(oa), *b = ob ? EMARR(ob) : NULL, *c = oc ? EMARR(oc) : NULL;
    int n = 0;
    Py_BEGIN_ALLOW_THREADS if (!strcmp(op, "getrf")) {
        s = em_cuda_getrf(a, &r[0], &r[1], &r[2]), n = 3;
    }
    else if (!strcmp(op, "getrs") && b && c) {
        s = em_cuda_getrs(a, b, c, f1, &r[0]), n = 1;
    }
    else if (!strcmp(op, "potrf")) {
        s = em_cuda_potrf(a, f1 != 0, &r[0], &r[1]), n = 2;
    }
    else if (!strcmp(op, "cholesky")) {
        s = em_cuda_cholesky(a, f1 != 0, &r[0], &r[1]), n = 2;
    }
    else if (!strcmp(op, "gesv") && b) {
        s = em_cuda_gesv(a, b, &r[0], &r[1]), n = 2;
    }
    else if (!strcmp(op, "inv")) {
        s = em_cuda_inv(a, &r[0], &r[1]), n = 2;
    }
    else if (!strcmp(op, "geqrf")) {
        s = em_cuda_geqrf(a, &r[0], &r[1], &r[2]), n = 3;
    }
    else if (!strcmp(op, "orgqr") && b) {
        s = em_cuda_orgqr(a, b, &r[0], &r[1]), n = 2;
    }
    else if (!strcmp(op, "gesvd")) {
        s = em_cuda_gesvd(a, f1, &r[0], &r[1], &r[2], &r[3]), n = 4;
    }
    else if (!strcmp(op, "gesvdj")) {
        s = em_cuda_gesvdj(a, f1, &r[0], &r[1], &r[2], &r[3]), n = 4;
    }
    else if (!strcmp(op, "syevd")) {
        s = em_cuda_syevd(a, f1 != 0, f2 != 0, &r[0], &r[1], &r[2]), n = 3;
    }
    else {
        n = -1;
    }
    Py_END_ALLOW_THREADS if (n < 0) return PyErr_Format(
        PyExc_ValueError, "cuda_solver: unknown op or arguments '%s'", op);
    if (s != EM_OK) return pyem_raise(s);
    for (int i = 0; i < n; i++) set[i] = r[i].buf != NULL;
    return n == 1 ? pyem_wrap(&r[0]) : pyem__tuple(r, set, n);
}

/* cuda_info_failed(info) -> bool: any matrix's LAPACK info nonzero (one wait). */
static PyObject *f_info_failed(PyObject *self, PyObject *args) {
    PyObject *oi;
    if (!PyArg_ParseTuple(args, "O!", EmArray_Type, &oi)) return NULL;
    if (pyem__ready(&oi, 1, "cuda_info_failed") < 0) return NULL;
    bool failed = false;
    em_status s;
    Py_BEGIN_ALLOW_THREADS s = em_cuda_info_failed(EMARR(oi), &failed);
    Py_END_ALLOW_THREADS return s == EM_OK ? PyBool_FromLong(failed) : pyem_raise(s);
}

/* small_linalg(mode, a, b=None) -> (x, info): solve (0), inv (1) or det (2)
 * of small matrices in one kernel (ember/smallla.h); None where the device,
 * dtype or size is not the kernel's. */
static PyObject *f_small_linalg(PyObject *self, PyObject *args) {
    int mode;
    PyObject *oa, *ob = NULL;
    if (!PyArg_ParseTuple(args, "iO!|O", &mode, EmArray_Type, &oa, &ob)) return NULL;
    if (ob == Py_None) ob = NULL;
    if (ob && !EmArray_Check(ob))
        return PyErr_Format(PyExc_TypeError, "small_linalg: b must be an ember array or None");
    PyObject *objs[2] = {oa, ob};
    if (pyem__ready(objs, 2, "small_linalg") < 0) return NULL;
    em_array r[2] = {{0}};
    bool set[2] = {true, true};
    em_status s;
    const em_array *a = EMARR(oa), *b = ob ? EMARR(ob) : NULL;
    Py_BEGIN_ALLOW_THREADS s = em_small_linalg(mode, a, b, &r[0], &r[1]);
    Py_END_ALLOW_THREADS if (s == EM_EUNSUPPORTED) Py_RETURN_NONE;
    if (s != EM_OK) return pyem_raise(s);
    return pyem__tuple(r, set, 2);
}

/* small_eigh(a, vectors, upper) -> (w, v or None, info) or None. */
static PyObject *f_small_eigh(PyObject *self, PyObject *args) {
    PyObject *oa;
    int vectors, upper;
    if (!PyArg_ParseTuple(args, "O!pp", EmArray_Type, &oa, &vectors, &upper)) return NULL;
    if (pyem__ready(&oa, 1, "small_eigh") < 0) return NULL;
    em_array r[3] = {{0}};
    em_status s;
    Py_BEGIN_ALLOW_THREADS s = em_small_eigh(EMARR(oa), vectors, upper, &r[0], &r[1], &r[2]);
    Py_END_ALLOW_THREADS if (s == EM_EUNSUPPORTED) Py_RETURN_NONE;
    if (s != EM_OK) return pyem_raise(s);
    bool set[3] = {true, vectors != 0, true};
    return pyem__tuple(r, set, 3);
}

/* small_qr(mode, a) -> (q or None, r) or None: reduced (0), complete (1),
 * r (2) or raw (3: (h, tau)) QR of small matrices in one kernel. */
static PyObject *f_small_qr(PyObject *self, PyObject *args) {
    int mode;
    PyObject *oa;
    if (!PyArg_ParseTuple(args, "iO!", &mode, EmArray_Type, &oa)) return NULL;
    if (pyem__ready(&oa, 1, "small_qr") < 0) return NULL;
    em_array r[2] = {{0}};
    em_status s;
    Py_BEGIN_ALLOW_THREADS s = em_small_qr(mode, EMARR(oa), &r[0], &r[1]);
    Py_END_ALLOW_THREADS if (s == EM_EUNSUPPORTED) Py_RETURN_NONE;
    if (s != EM_OK) return pyem_raise(s);
    bool set[2] = {r[0].buf != NULL, true};
    return pyem__tuple(r, set, 2);
}

static PyObject *f_small_linalg_maxn(PyObject *self, PyObject *args) {
    PyObject *od;
    if (!PyArg_ParseTuple(args, "O", &od)) return NULL;
    em_dtype dt;
    if (pyem_dtype_from_obj(od, &dt, 0) < 0) return NULL;
    return PyLong_FromLong(em_small_linalg_maxn(dt));
}

PyMethodDef pyem_cudalib_functions[] = {
    {"small_linalg", f_small_linalg, METH_VARARGS,
     "small_linalg(mode, a, b=None) -> (x, info) or None: solve (0), inv (1), det (2) of "
     "small matrices in one kernel on CUDA / OpenCL (see ember/smallla.h)"},
    {"small_eigh", f_small_eigh, METH_VARARGS,
     "small_eigh(a, vectors, upper) -> (w, v or None, info) or None: Jacobi eigh of stacks "
     "of real symmetric n <= 32 in one kernel on CUDA / OpenCL (see ember/smallla.h)"},
    {"small_qr", f_small_qr, METH_VARARGS,
     "small_qr(mode, a) -> (q or None, r) or None: QR of stacks of m x n <= 32 in one kernel "
     "on CUDA / OpenCL, mode 0 reduced, 1 complete, 2 r, 3 raw ((h, tau)); see ember/smallla.h"},
    {"small_linalg_maxn", f_small_linalg_maxn, METH_VARARGS,
     "small_linalg_maxn(dtype) -> the largest n small_linalg takes for dtype (0: none)"},
    {"cudalib_available", f_available, METH_VARARGS,
     "cudalib_available(which) -> bool: 0 cuFFT, 1 cuSOLVER (loads it on first call)"},
    {"_cudalib_probe", f_probe, METH_VARARGS,
     "_cudalib_probe(which, path): bind the library at path into a scratch table (tests)"},
    {"cuda_fft", f_fft, METH_VARARGS,
     "cuda_fft(x, rank, kind, nlast=0) -> the unnormalised DFT over x's last rank axes "
     "(kind 0 forward, 1 inverse, 2 R2C, 3 C2R with nlast real points)"},
    {"_cuda_fft_plans", f_fft_plans, METH_VARARGS,
     "_cuda_fft_plans(clear=False) -> (cached, created): cuFFT's plan cache"},
    {"cuda_solver", f_solver, METH_VARARGS,
     "cuda_solver(op, a, b=None, c=None, flag=0, flag2=0): a cuSOLVER piece on column-major "
     "stacks (getrf, getrs, gesv, inv, potrf, cholesky, geqrf, orgqr, gesvd, gesvdj, syevd; "
     "see ember/cudalib.h)"},
    {"cuda_info_failed", f_info_failed, METH_VARARGS,
     "cuda_info_failed(info) -> bool: whether any entry of an int32 CUDA info array is nonzero "
     "(one queued read into pinned memory, one wait for the current stream)"},
    {NULL, NULL, 0, NULL}};
