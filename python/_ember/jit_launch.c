/* The warm path of @em.jit launches, in C.
 *
 * ember/_jit/dispatch.py's Dispatcher subclasses _JitDispatcher: its
 * subscript kernel[blocks, threads, ...] finds the launcher of that
 * configuration in _configs (else asks the Python _configure and keeps the
 * launcher, 64 configurations at most), and it holds the signatures that
 * launch without Python.  A _JitLauncher call k[...](args):
 *
 *   1. finds a registered signature that the arguments match exactly: per
 *      argument the same type (an ember ndarray, or the exact scalar type),
 *      and for arrays the same dtype, ndim and C-contiguity, writeable where
 *      the kernel writes, on the signature's device -- for CUDA also the
 *      current device; a Python int must fit int64;
 *   2. CUDA: packs the parameters as the generated Python packer and
 *      em.RawKernel did (the layout is fixed per signature, computed at
 *      registration): each array as (pointer, shape[ndim], strides in
 *      elements unless C-contiguous), scalars by their kernel type's bytes
 *      (Python int -> int64, float -> float64, bool -> bool, NumPy scalars
 *      their own), then the bounds-check slot (0) and the dynamic shared
 *      memory (int64); launches through em_cuda_launch on the configured
 *      stream (None: this thread's current one);
 *      CPU: calls jit.c's launcher (_jit_launch) and writes what the kernel
 *      printed to sys.stdout;
 *   3. counts the launch (_fast_launches, for tests).
 *
 * Anything else -- no signature yet, NumPy or foreign arrays, another
 * device, a read-only array for a written parameter, bounds checking on
 * CUDA -- calls the Python Dispatcher._launch(launcher, args), which types
 * the arguments, compiles, copies, raises, and, after a launch that the fast
 * path could have made, registers the signature (_register).  The fast path
 * has no errors of its own: it runs only where the Python path would have
 * made the same launch, and raises what that launch would have raised (a
 * bad stream, a refused launch, an out-of-bounds index on the CPU).
 */
#include "pyember.h"
#include "ember/cuda.h"

#include <stddef.h>
#include <string.h>
#include <structmember.h>

#define PYEM_JSIG_MAX 32     /* signatures kept per kernel (more launch through Python) */
#define PYEM_JCONFIG_MAX 64  /* launch configurations kept per kernel */
#define PYEM_JARG_BYTES 4096 /* em.RawKernel's limit on the parameters' bytes */
#define PYEM_JARG_MAX 512    /* and on their number */

enum { JP_ARRAY, JP_INT, JP_FLOAT, JP_BOOL, JP_BYTES };

typedef struct {
    PyTypeObject *type;    /* the argument's exact type (strong reference) */
    unsigned char kind;    /* JP_* */
    unsigned char ndim;    /* JP_ARRAY */
    unsigned char contig;  /* JP_ARRAY: C-contiguous (no strides passed) */
    unsigned char written; /* JP_ARRAY: must be writeable */
    unsigned char size;    /* scalars: bytes passed */
    unsigned char dtype;   /* JP_ARRAY: em_dtype */
    unsigned short src;    /* JP_BYTES: offset of the value in the object */
    unsigned short off;    /* offset of its first value in the parameter buffer */
} pyem_jparam;

typedef struct {
    em_device dev;   /* where it runs */
    int nargs, nptr; /* Python arguments; CUDA: kernel parameters */
    int narrays;     /* array arguments */
    int empty;       /* CPU: the kernel does nothing (not run) */
    unsigned used;   /* CUDA: bytes of the parameter buffer */
    unsigned
        shm_off; /* CUDA: where the dynamic shared memory word goes (the error slot is before it) */
    void *fn;    /* CUDA: the loaded function on dev */
    PyObject *
        kernel; /* CUDA: the em.RawKernel (keeps the module's objects alive); CPU: _jit_launch's spec */
    PyObject *name; /* CUDA: its name (str) */
    const char *kname;
    unsigned short *ptroff; /* nptr offsets into the buffer */
    pyem_jparam p[];
} pyem_jsig;

typedef struct {
    PyObject_HEAD PyObject *configs; /* config -> launcher */
    int nsig;
    pyem_jsig *sig[PYEM_JSIG_MAX];
    unsigned long long fast; /* launches made here (tests read _fast_launches) */
} JitDispatcherObject;

typedef struct {
    PyObject_HEAD vectorcallfunc vectorcall;
    PyObject *disp; /* a JitDispatcherObject */
    PyObject *grid, *block, *stream, *shmem;
    unsigned g[3], b[3], sh;
    int fast; /* the configuration launches as it is (else: only through Python) */
    int last; /* the signature matched last */
} JitLauncherObject;

static PyTypeObject JitDispatcher_Type, JitLauncher_Type;

static void pyem__jsig_free(pyem_jsig *s) {
    if (!s) return;
    for (int i = 0; i < s->nargs; i++) Py_XDECREF(s->p[i].type);
    Py_XDECREF(s->kernel);
    Py_XDECREF(s->name);
    PyMem_Free(s);
}

/* ---- the fast path -------------------------------------------------------------- */

/* Whether args match s (no side effects); CUDA: scalars are packed into buf. */
static int pyem__jmatch(const pyem_jsig *s, PyObject *const *args, unsigned char *buf) {
    for (int i = 0; i < s->nargs; i++) {
        const pyem_jparam *p = &s->p[i];
        PyObject *o = args[i];
        if (Py_TYPE(o) != p->type) return 0;
        switch (p->kind) {
        case JP_ARRAY: {
            const em_array *a = EMARR_META(o);
            if (a->dtype != (em_dtype)p->dtype || a->ndim != p->ndim ||
                (p->written && !(a->flags & EM_WRITEABLE)) ||
                em_array_is_c_contiguous(a) != p->contig)
                return 0;
            em_device d = em_array_device(a);
            if (d.kind != s->dev.kind || d.id != s->dev.id) return 0;
            break;
        }
        case JP_INT: {
            int over = 0;
            long long v = PyLong_AsLongLongAndOverflow(o, &over);
            if (over) return 0; /* a Python int beyond int64: Python's path says what it means */
            if (buf) memcpy(buf + p->off, &v, sizeof v);
            break;
        }
        case JP_FLOAT: {
            double v = PyFloat_AS_DOUBLE(o);
            if (buf) memcpy(buf + p->off, &v, sizeof v);
            break;
        }
        case JP_BOOL:
            if (buf) buf[p->off] = o == Py_True;
            break;
        default: /* JP_BYTES: a NumPy scalar of exactly this type holds its value at a fixed place */
            if (buf) memcpy(buf + p->off, (const char *)o + p->src, p->size);
            break;
        }
    }
    return 1;
}

/* Floor division (Python's //) of a stride in bytes by the item size. */
static inline int64_t pyem__floordiv(int64_t a, int64_t b) {
    int64_t q = a / b;
    return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}

static PyObject *pyem__jlaunch(JitLauncherObject *self, JitDispatcherObject *d, const pyem_jsig *s,
                               PyObject *const *args, unsigned char *buf) {
    void *stream;
    if (self->stream == Py_None) {
        if (em_stream_get(s->dev, &stream) != EM_OK) return pyem_raise(EM_EDEVICE);
    } else if (pyem_kernel_stream(self->stream, s->dev.kind, s->kname, &stream) < 0)
        return NULL;
    for (int i = 0; i < s->nargs; i++) {
        const pyem_jparam *p = &s->p[i];
        if (p->kind != JP_ARRAY) continue;
        /* A kernel may write any argument: pending readers of it go first (as em.RawKernel). */
        if (pyem_touch(args[i], "kernel argument") < 0) return NULL;
        const em_array *a = EMARR_META(args[i]);
        em_status live = em_array_live(a); /* lost in a device reset: never passed */
        if (live != EM_OK) return pyem_raise(live);
        unsigned char *w = buf + p->off;
        int64_t ptr = (int64_t)(intptr_t)a->data, it = em_dtype_get(a->dtype)->size;
        memcpy(w, &ptr, 8);
        memcpy(w + 8, a->shape, (size_t)a->ndim * 8);
        for (int k = 0; !p->contig && k < a->ndim; k++) {
            int64_t st = pyem__floordiv(a->strides[k], it);
            memcpy(w + 8 * (1 + a->ndim + k), &st, 8);
        }
    }
    int64_t err = 0, shm = self->sh;
    memcpy(buf + s->shm_off - 8, &err, 8);
    memcpy(buf + s->shm_off, &shm, 8);
    void *ptr[PYEM_JARG_MAX];
    for (int j = 0; j < s->nptr; j++) ptr[j] = buf + s->ptroff[j];
    em_status st =
        em_cuda_launch(s->dev.id, s->fn, s->kname, self->g, self->b, self->sh, stream, ptr);
    if (st != EM_OK) return pyem_raise(st);
    d->fast++;
    Py_RETURN_NONE;
}

/* A CPU launch: jit.c's launcher (it checks and packs the arguments itself). */
static PyObject *pyem__jlaunch_cpu(JitLauncherObject *self, JitDispatcherObject *d,
                                   const pyem_jsig *s, PyObject *const *args) {
    if (!s->empty) {
        PyObject *out =
            pyem_jit_cpu_launch(s->kernel, args, s->nargs, self->grid, self->block, self->shmem);
        if (!out) return NULL;
        if (out != Py_None && PyUnicode_GET_LENGTH(out)) { /* print(): sys.stdout.write(out) */
            PyObject *so = PySys_GetObject("stdout");      /* borrowed */
            PyObject *r = so ? PyObject_CallMethod(so, "write", "O", out) : NULL;
            if (!so) PyErr_SetString(PyExc_RuntimeError, "lost sys.stdout");
            Py_DECREF(out);
            if (!r) return NULL;
            Py_DECREF(r);
        } else {
            Py_DECREF(out);
        }
    }
    d->fast++;
    Py_RETURN_NONE;
}

static PyObject *JitLauncher_vectorcall(PyObject *o, PyObject *const *args, size_t nargsf,
                                        PyObject *kwnames) {
    JitLauncherObject *self = (JitLauncherObject *)o;
    JitDispatcherObject *d = (JitDispatcherObject *)self->disp;
    Py_ssize_t n = PyVectorcall_NARGS(nargsf);
    if (kwnames && PyTuple_GET_SIZE(kwnames))
        return PyErr_Format(PyExc_TypeError,
                            "a kernel launch takes positional arguments only, got %R", kwnames);
    if (self->fast && d->nsig) {
        /* CUDA launches run on the current device, which must be the arrays'; CPU
         * launches on the arrays' device, or the current one when there are none. */
        em_device cur = pyem_current_device();
        _Alignas(16) unsigned char buf[PYEM_JARG_BYTES];
        int k = self->last < d->nsig ? self->last : 0;
        for (int t = 0; t < d->nsig; t++, k = k + 1 == d->nsig ? 0 : k + 1) {
            const pyem_jsig *s = d->sig[k];
            if (s->nargs != n) continue;
            if (s->dev.kind == EM_CUDA) {
                if (cur.kind != EM_CUDA || cur.id != s->dev.id) continue;
                memset(buf, 0, s->used); /* the padding too: the same bytes every launch */
                if (!pyem__jmatch(s, args, buf)) continue;
                self->last = k;
                return pyem__jlaunch(self, d, s, args, buf);
            }
            if ((!s->narrays && cur.kind != EM_CPU) || !pyem__jmatch(s, args, NULL)) continue;
            self->last = k;
            return pyem__jlaunch_cpu(self, d, s, args);
        }
    }
    /* The general path (Python): types, compiles, copies, raises, registers. */
    PyObject *t = PyTuple_New(n);
    if (!t) return NULL;
    for (Py_ssize_t i = 0; i < n; i++) PyTuple_SET_ITEM(t, i, Py_NewRef(args[i]));
    static PyObject *meth;
    if (!meth && !(meth = PyUnicode_InternFromString("_launch"))) {
        Py_DECREF(t);
        return NULL;
    }
    PyObject *r = PyObject_CallMethodObjArgs(self->disp, meth, o, t, NULL);
    Py_DECREF(t);
    return r;
}

/* ---- _JitLauncher -------------------------------------------------------------- */

/* v as an unsigned in [lo, hi], else -1 (nothing raised). */
static long long pyem__jdim(PyObject *v, long long lo, long long hi) {
    if (!PyLong_Check(v)) return -1;
    int over = 0;
    long long x = PyLong_AsLongLongAndOverflow(v, &over);
    if (x == -1 && PyErr_Occurred()) PyErr_Clear();
    return over || x < lo || x > hi ? -1 : x;
}

static int pyem__jdims(PyObject *t, unsigned out[3]) {
    if (!PyTuple_Check(t) || PyTuple_GET_SIZE(t) != 3) return 0;
    for (int i = 0; i < 3; i++) {
        long long x = pyem__jdim(PyTuple_GET_ITEM(t, i), 1, 0x7fffffffLL);
        if (x < 0) return 0;
        out[i] = (unsigned)x;
    }
    return 1;
}

static PyObject *JitLauncher_new(PyTypeObject *type, PyObject *args, PyObject *kw) {
    static char *kwlist[] = {"disp", "grid", "block", "stream", "shmem", NULL};
    PyObject *disp, *grid, *block, *stream, *shmem;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "O!OOOO", kwlist, &JitDispatcher_Type, &disp, &grid,
                                     &block, &stream, &shmem))
        return NULL;
    JitLauncherObject *self = (JitLauncherObject *)type->tp_alloc(type, 0);
    if (!self) return NULL;
    self->vectorcall = JitLauncher_vectorcall;
    self->disp = Py_NewRef(disp);
    self->grid = Py_NewRef(grid);
    self->block = Py_NewRef(block);
    self->stream = Py_NewRef(stream);
    self->shmem = Py_NewRef(shmem);
    long long sh = pyem__jdim(shmem, 0, 0xffffffffLL);
    /* Out of em.RawKernel's ranges: Python's path launches (and raises). */
    self->fast = pyem__jdims(grid, self->g) && pyem__jdims(block, self->b) && sh >= 0;
    self->sh = sh >= 0 ? (unsigned)sh : 0;
    return (PyObject *)self;
}

static int JitLauncher_traverse(PyObject *o, visitproc visit, void *arg) {
    JitLauncherObject *self = (JitLauncherObject *)o;
    Py_VISIT(self->disp);
    Py_VISIT(self->grid);
    Py_VISIT(self->block);
    Py_VISIT(self->stream);
    Py_VISIT(self->shmem);
    return 0;
}

static int JitLauncher_clear(PyObject *o) {
    JitLauncherObject *self = (JitLauncherObject *)o;
    self->fast = 0;
    Py_CLEAR(self->grid);
    Py_CLEAR(self->block);
    Py_CLEAR(self->stream);
    Py_CLEAR(self->shmem);
    /* disp is kept to the end: the call path reads it without checking */
    return 0;
}

static void JitLauncher_dealloc(PyObject *o) {
    PyObject_GC_UnTrack(o);
    JitLauncher_clear(o);
    Py_CLEAR(((JitLauncherObject *)o)->disp);
    Py_TYPE(o)->tp_free(o);
}

static PyObject *JitLauncher_repr(PyObject *o) {
    JitLauncherObject *self = (JitLauncherObject *)o;
    PyObject *name = PyObject_GetAttrString(self->disp, "__name__");
    if (!name) return NULL;
    PyObject *r =
        PyUnicode_FromFormat("<ember.jit launch %S[%R, %R]>", name, self->grid, self->block);
    Py_DECREF(name);
    return r;
}

static PyMemberDef JitLauncher_members[] = {
    {"disp", T_OBJECT_EX, offsetof(JitLauncherObject, disp), READONLY, "the @em.jit kernel"},
    {"grid", T_OBJECT_EX, offsetof(JitLauncherObject, grid), READONLY, "blocks (x, y, z)"},
    {"block", T_OBJECT_EX, offsetof(JitLauncherObject, block), READONLY,
     "threads per block (x, y, z)"},
    {"stream", T_OBJECT_EX, offsetof(JitLauncherObject, stream), READONLY,
     "the stream, or None (the current one)"},
    {"shmem", T_OBJECT_EX, offsetof(JitLauncherObject, shmem), READONLY,
     "dynamic shared memory, bytes"},
    {NULL, 0, 0, 0, NULL}};

static PyTypeObject JitLauncher_Type = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "ember._ember._JitLauncher",
    .tp_basicsize = sizeof(JitLauncherObject),
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC | Py_TPFLAGS_HAVE_VECTORCALL,
    .tp_doc = "kernel[blocks, threads, stream, shared_mem]: call it with the kernel's arguments.",
    .tp_new = JitLauncher_new,
    .tp_dealloc = JitLauncher_dealloc,
    .tp_traverse = JitLauncher_traverse,
    .tp_clear = JitLauncher_clear,
    .tp_repr = JitLauncher_repr,
    .tp_call = PyVectorcall_Call,
    .tp_vectorcall_offset = offsetof(JitLauncherObject, vectorcall),
    .tp_members = JitLauncher_members,
};

/* ---- _JitDispatcher ------------------------------------------------------------- */

static PyObject *JitDispatcher_new(PyTypeObject *type, PyObject *args, PyObject *kw) {
    JitDispatcherObject *self = (JitDispatcherObject *)type->tp_alloc(type, 0);
    if (!self) return NULL;
    if (!(self->configs = PyDict_New())) {
        Py_DECREF(self);
        return NULL;
    }
    return (PyObject *)self;
}

static int JitDispatcher_traverse(PyObject *o, visitproc visit, void *arg) {
    JitDispatcherObject *self = (JitDispatcherObject *)o;
    Py_VISIT(self->configs);
    for (int i = 0; i < self->nsig; i++) Py_VISIT(self->sig[i]->kernel);
    return 0; /* a heap subclass's traverse visits the type */
}

static int JitDispatcher_clear(PyObject *o) {
    JitDispatcherObject *self = (JitDispatcherObject *)o;
    int n = self->nsig;
    self->nsig = 0;
    for (int i = 0; i < n; i++) {
        pyem__jsig_free(self->sig[i]);
        self->sig[i] = NULL;
    }
    Py_CLEAR(self->configs);
    return 0;
}

static void JitDispatcher_dealloc(PyObject *o) {
    PyObject_GC_UnTrack(o);
    JitDispatcher_clear(o);
    Py_TYPE(o)->tp_free(o);
}

/* kernel[config]: the launcher kept for config, else self._configure(config). */
static PyObject *JitDispatcher_subscript(PyObject *o, PyObject *config) {
    JitDispatcherObject *self = (JitDispatcherObject *)o;
    if (!self->configs) return PyErr_Format(PyExc_TypeError, "this kernel has been cleared");
    int keep = 1;
    PyObject *l = PyDict_GetItemWithError(self->configs, config); /* borrowed */
    if (l) return Py_NewRef(l);
    if (PyErr_Occurred()) {
        if (!PyErr_ExceptionMatches(PyExc_TypeError)) return NULL;
        PyErr_Clear(); /* unhashable (a list, a stream object): not kept */
        keep = 0;
    }
    static PyObject *meth;
    if (!meth && !(meth = PyUnicode_InternFromString("_configure"))) return NULL;
    l = PyObject_CallMethodObjArgs(o, meth, config, NULL);
    if (l && keep && PyDict_GET_SIZE(self->configs) < PYEM_JCONFIG_MAX &&
        PyDict_SetItem(self->configs, config, l) < 0) {
        if (!PyErr_ExceptionMatches(PyExc_TypeError))
            Py_CLEAR(l);
        else
            PyErr_Clear();
    }
    return l;
}

/* The layout of one value in the parameter buffer (em.RawKernel's: aligned to its size). */
static int pyem__jput(unsigned *used, unsigned size, unsigned short *ptroff, int *nptr) {
    unsigned align = size >= 16 ? 16 : size >= 8 ? 8 : size >= 4 ? 4 : size >= 2 ? 2 : 1;
    unsigned off = (*used + align - 1) & ~(align - 1);
    if (*nptr >= PYEM_JARG_MAX || off + size > PYEM_JARG_BYTES) return -1;
    ptroff[(*nptr)++] = (unsigned short)off;
    *used = off + size;
    return (int)off;
}

/* _register(dev, target, args, written) -> bool: launches with arguments
 * like args (the same types; arrays of the same dtype, ndim and contiguity,
 * on dev) go to target without Python from now on.  dev: ("cuda", id) with
 * target (function handle, em.RawKernel), or ("cpu", 0) with target
 * (_jit_launch's spec, empty).  written[i]: whether the kernel writes
 * argument i.  False when it is not kept (already there, too many
 * signatures, or arguments the fast path does not take). */
static PyObject *JitDispatcher_register(PyObject *o, PyObject *args) {
    JitDispatcherObject *self = (JitDispatcherObject *)o;
    const char *kind;
    int id;
    PyObject *t0, *t1, *argv, *written;
    if (!PyArg_ParseTuple(args, "(si)(OO)O!O!", &kind, &id, &t0, &t1, &PyTuple_Type, &argv,
                          &PyTuple_Type, &written))
        return NULL;
    Py_ssize_t n = PyTuple_GET_SIZE(argv);
    if (PyTuple_GET_SIZE(written) != n)
        return PyErr_Format(PyExc_ValueError, "_register: one written flag per argument");
    em_device dev = {strcmp(kind, "cuda") ? EM_CPU : EM_CUDA, id};
    if (strcmp(kind, "cuda") && strcmp(kind, "cpu"))
        return PyErr_Format(PyExc_ValueError,
                            "_register: a device ('cuda', id) or ('cpu', 0), not '%s'", kind);
    void *fn = NULL;
    int empty = 0;
    PyObject *name = NULL;
    const char *kname = NULL;
    if (dev.kind == EM_CUDA) {
        if (!(fn = PyLong_AsVoidPtr(t0))) {
            if (!PyErr_Occurred())
                PyErr_SetString(PyExc_ValueError, "_register: a NULL function handle");
            return NULL;
        }
    } else if ((empty = PyObject_IsTrue(t1)) < 0) {
        return NULL;
    }
    if (self->nsig >= PYEM_JSIG_MAX || n > PYEM_JARG_MAX) Py_RETURN_FALSE;
    if (dev.kind == EM_CUDA) {
        name = PyObject_GetAttrString(t1, "name");
        kname = name && PyUnicode_Check(name) ? PyUnicode_AsUTF8(name) : NULL;
        if (!kname) {
            Py_XDECREF(name);
            if (!PyErr_Occurred())
                PyErr_SetString(PyExc_TypeError, "_register: the kernel's name must be a str");
            return NULL;
        }
    }
    size_t ptrs = 3 * (size_t)n * EM_MAXDIMS + 2; /* an upper bound on the parameters */
    pyem_jsig *s = PyMem_Calloc(1, sizeof *s + (size_t)n * sizeof(pyem_jparam) +
                                       ptrs * sizeof(unsigned short));
    if (!s) {
        Py_XDECREF(name);
        return PyErr_NoMemory();
    }
    s->dev = dev, s->fn = fn, s->nargs = (int)n, s->empty = empty;
    s->kernel = Py_NewRef(dev.kind == EM_CUDA ? t1 : t0), s->name = name, s->kname = kname;
    s->ptroff = (unsigned short *)(void *)&s->p[n];
    int ok = 1;
    for (Py_ssize_t i = 0; i < n && ok; i++) {
        PyObject *a = PyTuple_GET_ITEM(argv, i);
        pyem_jparam *p = &s->p[i];
        int w = PyObject_IsTrue(PyTuple_GET_ITEM(written, i));
        if (w < 0) {
            pyem__jsig_free(s);
            return NULL;
        }
        p->type = (PyTypeObject *)Py_NewRef((PyObject *)Py_TYPE(a));
        int off = 0;
        if (Py_TYPE(a) == EmArray_Type) {
            const em_array *m = EMARR_META(a);
            em_device d = em_array_device(m);
            p->kind = JP_ARRAY, p->ndim = (unsigned char)m->ndim,
            p->dtype = (unsigned char)m->dtype;
            p->contig = em_array_is_c_contiguous(m), p->written = (unsigned char)w;
            ok = d.kind == dev.kind && d.id == dev.id && !(w && !(m->flags & EM_WRITEABLE));
            s->narrays++;
            off = pyem__jput(&s->used, 8, s->ptroff, &s->nptr);
            for (int k = 0; k < (p->contig ? 1 : 2) * m->ndim && off >= 0; k++)
                ok = ok && pyem__jput(&s->used, 8, s->ptroff, &s->nptr) >= 0;
        } else if (PyLong_CheckExact(a)) {
            p->kind = JP_INT, p->size = 8;
        } else if (PyFloat_CheckExact(a)) {
            p->kind = JP_FLOAT, p->size = 8;
        } else if (PyBool_Check(a)) {
            p->kind = JP_BOOL, p->size = 1;
        } else if (pyem__np_generic && PyObject_TypeCheck(a, (PyTypeObject *)pyem__np_generic) &&
                   PyObject_CheckBuffer(a)) {
            /* A NumPy scalar: its value lies at a fixed place in every object of its type. */
            Py_buffer v;
            if (PyObject_GetBuffer(a, &v, PyBUF_SIMPLE) < 0) {
                PyErr_Clear();
                ok = 0;
            } else {
                ptrdiff_t src = (const char *)v.buf - (const char *)a;
                ok = (v.len == 1 || v.len == 2 || v.len == 4 || v.len == 8) &&
                     src >= (ptrdiff_t)sizeof(PyObject) &&
                     src + v.len <= Py_TYPE(a)->tp_basicsize && v.obj == a;
                p->kind = JP_BYTES, p->size = (unsigned char)v.len,
                p->src = (unsigned short)(ok ? src : 0);
                PyBuffer_Release(&v);
            }
        } else {
            ok = 0;
        }
        if (ok && p->kind != JP_ARRAY) off = pyem__jput(&s->used, p->size, s->ptroff, &s->nptr);
        ok = ok && off >= 0;
        p->off = (unsigned short)(off >= 0 ? off : 0);
    }
    /* The bounds-check slot (0: off) and the dynamic shared memory, as Python ints (int64). */
    ok = ok && pyem__jput(&s->used, 8, s->ptroff, &s->nptr) >= 0;
    int shm = ok ? pyem__jput(&s->used, 8, s->ptroff, &s->nptr) : -1;
    s->shm_off = shm >= 0 ? (unsigned)shm : 0;
    if (!ok || shm < 0) {
        pyem__jsig_free(s);
        Py_RETURN_FALSE;
    }
    for (int k = 0; k < self->nsig; k++) { /* already there (two launchers raced to it) */
        const pyem_jsig *t = self->sig[k];
        int same = t->dev.kind == s->dev.kind && t->dev.id == s->dev.id && t->nargs == s->nargs &&
                   t->fn == s->fn && t->kernel == s->kernel;
        for (int i = 0; same && i < s->nargs; i++)
            same = t->p[i].type == s->p[i].type && t->p[i].kind == s->p[i].kind &&
                   t->p[i].ndim == s->p[i].ndim && t->p[i].dtype == s->p[i].dtype &&
                   t->p[i].contig == s->p[i].contig && t->p[i].written == s->p[i].written &&
                   t->p[i].size == s->p[i].size;
        if (same) {
            pyem__jsig_free(s);
            Py_RETURN_FALSE;
        }
    }
    self->sig[self->nsig++] = s;
    Py_RETURN_TRUE;
}

/* _packed(dev, args) -> bytes or None: the parameter buffer the fast path
 * would launch with on cuda:dev (before the arrays and the shared memory
 * are filled in), without launching; for tests. */
static PyObject *JitDispatcher_packed(PyObject *o, PyObject *args) {
    JitDispatcherObject *self = (JitDispatcherObject *)o;
    int dev;
    PyObject *argv;
    if (!PyArg_ParseTuple(args, "iO!", &dev, &PyTuple_Type, &argv)) return NULL;
    _Alignas(16) unsigned char buf[PYEM_JARG_BYTES];
    for (int k = 0; k < self->nsig; k++) {
        const pyem_jsig *s = self->sig[k];
        if (s->dev.kind != EM_CUDA || s->dev.id != dev || s->nargs != PyTuple_GET_SIZE(argv))
            continue;
        memset(buf, 0, s->used);
        if (pyem__jmatch(s, PySequence_Fast_ITEMS(argv), buf))
            return PyBytes_FromStringAndSize((char *)buf, s->used);
    }
    Py_RETURN_NONE;
}

static PyObject *JitDispatcher_getsigs(PyObject *o, void *unused) {
    return PyLong_FromLong(((JitDispatcherObject *)o)->nsig);
}

static PyMethodDef JitDispatcher_methods[] = {
    {"_register", JitDispatcher_register, METH_VARARGS,
     "_register(dev, target, args, written) -> bool: launch arguments like args without Python"},
    {"_packed", JitDispatcher_packed, METH_VARARGS,
     "_packed(dev, args) -> the signature's parameter layout (tests)"},
    {NULL, NULL, 0, NULL}};

static PyMemberDef JitDispatcher_members[] = {
    {"_configs", T_OBJECT_EX, offsetof(JitDispatcherObject, configs), READONLY,
     "launch configuration -> launcher"},
    {"_fast_launches", T_ULONGLONG, offsetof(JitDispatcherObject, fast), READONLY,
     "CUDA launches made by the C fast path"},
    {NULL, 0, 0, 0, NULL}};

static PyGetSetDef JitDispatcher_getset[] = {{"_fast_signatures", JitDispatcher_getsigs, NULL,
                                              "signatures that launch without Python", NULL},
                                             {NULL, NULL, NULL, NULL, NULL}};

static PyMappingMethods JitDispatcher_mapping = {.mp_subscript = JitDispatcher_subscript};

static PyTypeObject JitDispatcher_Type = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "ember._ember._JitDispatcher",
    .tp_basicsize = sizeof(JitDispatcherObject),
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE | Py_TPFLAGS_HAVE_GC,
    .tp_doc =
        "The C side of @em.jit kernels (ember._jit.dispatch.Dispatcher): launch configurations and "
        "the signatures that launch without Python.",
    .tp_new = JitDispatcher_new,
    .tp_dealloc = JitDispatcher_dealloc,
    .tp_traverse = JitDispatcher_traverse,
    .tp_clear = JitDispatcher_clear,
    .tp_as_mapping = &JitDispatcher_mapping,
    .tp_methods = JitDispatcher_methods,
    .tp_members = JitDispatcher_members,
    .tp_getset = JitDispatcher_getset,
};

int pyem_jit_launch_init_types(PyObject *m) {
    /* numpy.generic: set by pyem_kernel_init_type, which runs first. */
    if (!pyem__np_generic || !PyType_Check(pyem__np_generic)) return -1;
    if (PyType_Ready(&JitDispatcher_Type) < 0 || PyType_Ready(&JitLauncher_Type) < 0) return -1;
    if (PyModule_AddObjectRef(m, "_JitDispatcher", (PyObject *)&JitDispatcher_Type) < 0) return -1;
    return PyModule_AddObjectRef(m, "_JitLauncher", (PyObject *)&JitLauncher_Type);
}
