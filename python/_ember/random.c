/* Counter-based random numbers from Python: one call allocates an array and
 * fills it from a Philox stream (ember.h), returning the next counter.  The
 * generator objects and their state live in ember/random.py. */
#include "pyember.h"

#include <string.h>

static const char *const pyem__rand_kinds[] = {"uniform", "normal", "bits", "integers"};

static int pyem__rand_kind(const char *name, em_random_kind *kind) {
    for (int k = 0; k < 4; k++)
        if (!strcmp(name, pyem__rand_kinds[k])) {
            *kind = (em_random_kind)k;
            return 0;
        }
    PyErr_Format(PyExc_ValueError,
                 "unknown random kind '%s' (expected uniform, normal, bits or integers)", name);
    return -1;
}

/* A tuple of ints into shape; the core checks signs and overflow. */
static int pyem__rand_shape(PyObject *t, int *nd, int64_t *shape) {
    if (!PyTuple_Check(t)) {
        PyErr_SetString(PyExc_TypeError, "shape must be a tuple of ints");
        return -1;
    }
    Py_ssize_t n = PyTuple_GET_SIZE(t);
    if (n > EM_MAXDIMS) {
        PyErr_Format(PyExc_ValueError,
                     "maximum supported dimension for an ndarray is %d, found %zd", EM_MAXDIMS, n);
        return -1;
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        shape[i] = PyLong_AsLongLong(PyTuple_GET_ITEM(t, i));
        if (shape[i] == -1 && PyErr_Occurred()) return -1;
    }
    *nd = (int)n;
    return 0;
}

/* Allocate and fill; the GIL is released for large fills. */
static em_status pyem__rand_run(em_array *a, em_random_kind kind, unsigned long long key,
                                unsigned long long counter, unsigned long long low,
                                unsigned long long range, em_random_post post, double pa, double pb,
                                uint64_t *next) {
    em_status s;
    int nogil = em_array_size(a) > PYEM_NOGIL_ELEMS;
    PyThreadState *ts = nogil ? PyEval_SaveThread() : NULL;
    if (kind == EM_RAND_INTEGERS)
        s = em_random_integers(a, low, range, key, counter, next);
    else
        s = em_random_fill_post(a, kind, post, pa, pb, key, counter, next);
    if (ts) PyEval_RestoreThread(ts);
    return s;
}

/* random_fill(kind, shape, dtype, key, counter, device=None, low=0, range=0,
 *             post=None, pa=0.0, pb=0.0)
 *   -> (array, next_counter).  low and range are taken modulo 2^64 (range
 *   2^64 is given as 0; low as its two's-complement pattern); post names
 *   em_random_fill_post's transform ("affine", "exponential", "geometric"),
 *   dtype then the stored one. */
static PyObject *f_random_fill(PyObject *self, PyObject *args, PyObject *kw) {
    static char *kwlist[] = {"kind", "shape", "dtype", "key", "counter", "device",
                             "low",  "range", "post",  "pa",  "pb",      NULL};
    const char *kname, *pname = NULL;
    double pa = 0.0, pb = 0.0;
    PyObject *shp, *dto, *keyo, *ctro, *devo = Py_None, *lowo = NULL, *rngo = NULL;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "sOOOO|OOOzdd", kwlist, &kname, &shp, &dto, &keyo,
                                     &ctro, &devo, &lowo, &rngo, &pname, &pa, &pb))
        return NULL;
    em_random_post post = EM_RPOST_NONE;
    if (pname) {
        static const char *const pn[] = {"affine", "exponential", "geometric"};
        int k = 0;
        while (k < 3 && strcmp(pn[k], pname)) k++;
        if (k == 3) return PyErr_Format(PyExc_ValueError, "unknown random transform '%s'", pname);
        post = (em_random_post)(k + 1);
    }
    em_random_kind kind;
    em_dtype dt;
    em_device dev;
    int nd;
    int64_t shape[EM_MAXDIMS];
    if (pyem__rand_kind(kname, &kind) < 0 || pyem__rand_shape(shp, &nd, shape) < 0 ||
        pyem_dtype_from_obj(dto, &dt, 0) < 0 || pyem_parse_device(devo, &dev) < 0)
        return NULL;
    unsigned long long key = PyLong_AsUnsignedLongLongMask(keyo);
    unsigned long long ctr = PyLong_AsUnsignedLongLongMask(ctro);
    unsigned long long low = lowo ? PyLong_AsUnsignedLongLongMask(lowo) : 0;
    unsigned long long rng = rngo ? PyLong_AsUnsignedLongLongMask(rngo) : 0;
    if (PyErr_Occurred()) return NULL;
    em_array a = {0};
    uint64_t next;
    em_status s = em_array_empty(&a, dt, nd, shape, dev);
    if (s == EM_OK) s = pyem__rand_run(&a, kind, key, ctr, low, rng, post, pa, pb, &next);
    if (s != EM_OK) {
        em_array_release(&a);
        return pyem_raise(s);
    }
    PyObject *arr = pyem_wrap(&a);
    return arr ? Py_BuildValue("(NK)", arr, (unsigned long long)next) : NULL;
}

/* random_dist(kind, shape, key, counter, p0, p1=None) -> (array, next):
 * em_random_dist's gamma or beta (float64), poisson or binomial (int64) variates on
 * p0's device; p0, p1 float64 contiguous ember arrays of 1 or prod(shape)
 * elements (the caller broadcasts). */
static PyObject *f_random_dist(PyObject *self, PyObject *args) {
    const char *kname;
    PyObject *shp, *keyo, *ctro, *p0o, *p1o = Py_None;
    if (!PyArg_ParseTuple(args, "sOOOO|O", &kname, &shp, &keyo, &ctro, &p0o, &p1o)) return NULL;
    static const char *const names[] = {"gamma", "poisson", "binomial", "beta"};
    int k = 0;
    while (k < 4 && strcmp(kname, names[k])) k++;
    if (k == 4) return PyErr_Format(PyExc_ValueError, "unknown random_dist kind '%s'", kname);
    em_random_kind kind = (em_random_kind)(EM_RAND_GAMMA + k);
    int nd;
    int64_t shape[EM_MAXDIMS];
    if (pyem__rand_shape(shp, &nd, shape) < 0) return NULL;
    if (!EmArray_Check(p0o) || (p1o != Py_None && !EmArray_Check(p1o)))
        return PyErr_Format(PyExc_TypeError, "random_dist parameters must be ember arrays");
    if (pyem_force(p0o, "random parameter") < 0 ||
        (p1o != Py_None && pyem_force(p1o, "random parameter") < 0))
        return NULL;
    em_array *p0 = EMARR(p0o), *p1 = p1o == Py_None ? NULL : EMARR(p1o);
    unsigned long long key = PyLong_AsUnsignedLongLongMask(keyo);
    unsigned long long ctr = PyLong_AsUnsignedLongLongMask(ctro);
    if (PyErr_Occurred()) return NULL;
    em_array a = {0};
    uint64_t next = ctr;
    bool real = kind == EM_RAND_GAMMA || kind == EM_RAND_BETA;
    em_status s = em_array_empty(&a, real ? EM_FLOAT64 : EM_INT64, nd, shape, em_array_device(p0));
    if (s == EM_OK) {
        PyThreadState *ts = em_array_size(&a) > PYEM_NOGIL_ELEMS ? PyEval_SaveThread() : NULL;
        s = em_array_size(&a) ? em_random_dist(&a, kind, p0, p1, key, ctr, &next) : EM_OK;
        if (ts) PyEval_RestoreThread(ts);
    }
    if (s != EM_OK) {
        em_array_release(&a);
        return pyem_raise(s);
    }
    PyObject *arr = pyem_wrap(&a);
    return arr ? Py_BuildValue("(NK)", arr, (unsigned long long)next) : NULL;
}

/* random_choice(pop, shape, key, counter) -> (array, next): em_random_choice,
 * pop a 1-d non-empty ember array, the result of its dtype on its device. */
static PyObject *f_random_choice(PyObject *self, PyObject *args) {
    PyObject *popo, *shp, *keyo, *ctro;
    if (!PyArg_ParseTuple(args, "OOOO", &popo, &shp, &keyo, &ctro)) return NULL;
    if (!EmArray_Check(popo))
        return PyErr_Format(PyExc_TypeError, "random_choice draws from an ember array");
    if (pyem_force(popo, "random population") < 0) return NULL;
    int nd;
    int64_t shape[EM_MAXDIMS];
    if (pyem__rand_shape(shp, &nd, shape) < 0) return NULL;
    const em_array *pop = EMARR(popo);
    unsigned long long key = PyLong_AsUnsignedLongLongMask(keyo);
    unsigned long long ctr = PyLong_AsUnsignedLongLongMask(ctro);
    if (PyErr_Occurred()) return NULL;
    em_array a = {0};
    uint64_t next = ctr;
    em_status s = em_array_empty(&a, pop->dtype, nd, shape, em_array_device(pop));
    if (s == EM_OK) {
        PyThreadState *ts = em_array_size(&a) > PYEM_NOGIL_ELEMS ? PyEval_SaveThread() : NULL;
        s = em_random_choice(&a, pop, key, ctr, &next);
        if (ts) PyEval_RestoreThread(ts);
    }
    if (s != EM_OK) {
        em_array_release(&a);
        return pyem_raise(s);
    }
    PyObject *arr = pyem_wrap(&a);
    return arr ? Py_BuildValue("(NK)", arr, (unsigned long long)next) : NULL;
}

/* philox4x32_10(counter4, key2) -> 4 words: the raw block function. */
static PyObject *f_philox(PyObject *self, PyObject *args) {
    unsigned int c[4], k[2];
    if (!PyArg_ParseTuple(args, "(IIII)(II)", &c[0], &c[1], &c[2], &c[3], &k[0], &k[1]))
        return NULL;
    uint64_t key = (uint64_t)k[1] << 32 | k[0], ctr = (uint64_t)c[1] << 32 | c[0];
    if (c[2] || c[3])
        return PyErr_Format(PyExc_ValueError, "ember streams use a 64-bit counter: "
                                              "words 2 and 3 must be 0");
    em_array a = {0};
    int64_t four = 4;
    uint64_t next;
    em_device cpu = {EM_CPU, 0};
    em_status s = em_array_empty(&a, EM_UINT32, 1, &four, cpu);
    if (s == EM_OK) s = em_random_fill(&a, EM_RAND_BITS, key, ctr, &next);
    if (s != EM_OK) {
        em_array_release(&a);
        return pyem_raise(s);
    }
    const uint32_t *w = (const uint32_t *)a.data;
    PyObject *r = Py_BuildValue("(IIII)", w[0], w[1], w[2], w[3]);
    em_array_release(&a);
    return r;
}

PyMethodDef pyem_random_functions[] = {
    {"random_fill", (PyCFunction)(void (*)(void))f_random_fill, METH_VARARGS | METH_KEYWORDS,
     "random_fill(kind, shape, dtype, key, counter, device=None, low=0, range=0, post=None, "
     "pa=0.0, pb=0.0) -> (array, next)"},
    {"random_dist", f_random_dist, METH_VARARGS,
     "random_dist(kind, shape, key, counter, p0, p1=None) -> (array, next)"},
    {"random_choice", f_random_choice, METH_VARARGS,
     "random_choice(pop, shape, key, counter) -> (array, next)"},
    {"philox4x32_10", f_philox, METH_VARARGS,
     "philox4x32_10((c0, c1, 0, 0), (k0, k1)) -> the four words of one Philox block"},
    {NULL, NULL, 0, NULL}};
