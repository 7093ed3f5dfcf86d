/* Lazy arrays from Python: pending ndarrays, the registry of live ones, the
 * evaluation triggers, and em.eval / the fusion switches and counters.
 *
 * A pending ndarray holds an expression (graph/expr.h) instead of values.
 * Every binding reaches array data through EMARR (pyember.h), which comes
 * here while anything is pending: it evaluates the array itself and every
 * live pending expression that reads its memory, since the caller may write
 * that memory or hand it out.  The registry is guarded by the GIL.
 */
#include "pyember.h"

#include "ember/fusion.h"

#include <stdlib.h>
#include <string.h>

Py_ssize_t pyem_fusion_live; /* pending arrays alive (EMARR's fast check) */

static EmArrayObject **pyem__live;
static Py_ssize_t pyem__cap;
static int64_t pyem__pending_bytes;

/* Settings (_ember._fusion_config). */
static int pyem__enabled = 1;
static int64_t pyem__min_size = 16384;             /* CPU results below this run eagerly */
static Py_ssize_t pyem__max_live = 256;            /* pending arrays alive at once */
static int64_t pyem__max_bytes = (int64_t)1 << 30; /* bytes of pending results */
static int pyem__fuse_depth;                       /* inside em.fuse: lazy whatever the size */
static int pyem__foreign;                          /* testing: leaves in other owners' memory too */

static int64_t pyem__nbytes(const EmArrayObject *o) { return em_array_nbytes(&o->a); }

static int pyem__register(EmArrayObject *o) {
    if (pyem_fusion_live == pyem__cap) {
        Py_ssize_t cap = pyem__cap ? 2 * pyem__cap : 64;
        EmArrayObject **n = realloc(pyem__live, (size_t)cap * sizeof *n);
        if (!n) return PyErr_NoMemory(), -1;
        pyem__live = n, pyem__cap = cap;
    }
    pyem__live[pyem_fusion_live++] = o;
    pyem__pending_bytes += pyem__nbytes(o);
    return 0;
}

static void pyem__unregister(EmArrayObject *o) {
    for (Py_ssize_t i = pyem_fusion_live - 1; i >= 0; i--)
        if (pyem__live[i] == o) {
            memmove(&pyem__live[i], &pyem__live[i + 1],
                    (size_t)(pyem_fusion_live - i - 1) * sizeof *pyem__live);
            pyem_fusion_live--;
            pyem__pending_bytes -= pyem__nbytes(o);
            return;
        }
}

/* Run o's job on the stream its work was asked on (pyember.h): another
 * thread's flush, or this thread after a stream change it did not see,
 * must not put the work on a stream of its own -- one of another device's
 * context, or one that does not wait for the leaves' producers. */
static em_status pyem__run(EmArrayObject *o, em_expr_job *job, const char *reason, em_array *v) {
    em_device d = em_array_device(&o->a);
    void *cur = NULL;
    bool swap = em_stream_get(d, &cur) == EM_OK && cur != o->stream;
    if (swap && em_stream_set(d, o->stream) != EM_OK) swap = false;
    em_status s;
    PYEM_CALL(s, em_array_size(&o->a), em_expr_run(job, reason, v));
    if (swap) {
        em_stream_set(d, cur);
        /* This thread reads the values next, on its own stream: after the work. */
        em_status w = em_stream_wait(d, cur, o->stream);
        if (s == EM_OK) s = w;
    }
    return s;
}

/* At interpreter exit nobody can see a result any more: no work then. */
static int pyem__finalizing(void) {
#if PY_VERSION_HEX >= 0x030D0000
    return Py_IsFinalizing();
#else
    return _Py_IsFinalizing();
#endif
}

/* Called by the ndarray's dealloc.  A pending result that no other
 * expression reads is evaluated and dropped, as the eager op would have
 * run: laziness must not turn `f(x); dev.synchronize()` (every benchmark's
 * shape) into no work, nor hide an error that the eager call would raise. */
void pyem_fusion_dealloc(EmArrayObject *o) {
    em_expr_decref(o->leaf);
    o->leaf = NULL;
    em_expr *x = o->pending;
    if (!x) return;
    pyem__unregister(o);
    o->pending = NULL;
    if (!em_expr_ready(x) && !em_expr_consumed(x) && !pyem__finalizing()) {
        PyObject *et, *ev, *tb;
        PyErr_Fetch(&et, &ev, &tb);
        em_expr_job *job;
        em_array v;
        v.buf = NULL, v.data = NULL; /* set by em_expr_run on success */
        em_status s = em_expr_begin(x, &job);
        if (s == EM_OK) s = pyem__run(o, job, "result dropped unread", &v);
        em_array_release(&v);
        if (s != EM_OK) {
            /* Not o: its repr would revive an object being destroyed. */
            pyem_raise(s);
            PyErr_WriteUnraisable(NULL);
        }
        PyErr_Restore(et, ev, tb);
    }
    em_expr_decref(x);
}

/* Evaluate every live pending array that pick(o, ctx) selects.  Forcing
 * changes the registry, so the scan restarts after each evaluation. */
static int pyem__force_each(int (*pick)(EmArrayObject *o, const void *ctx), const void *ctx,
                            const char *reason) {
    for (Py_ssize_t i = 0; i < pyem_fusion_live;) {
        EmArrayObject *o = pyem__live[i];
        if (!pick(o, ctx)) {
            i++;
            continue;
        }
        Py_INCREF(o);
        int r = pyem_force((PyObject *)o, reason);
        Py_DECREF(o);
        if (r < 0) return -1;
        i = 0;
    }
    return 0;
}

static int pyem__on_device(EmArrayObject *o, const void *ctx) {
    const em_device *d = ctx;
    em_device e = em_array_device(&o->a);
    return e.kind == d->kind && (d->id < 0 || e.id == d->id);
}

int pyem_fusion_flush(em_device d, const char *reason) {
    return pyem__force_each(pyem__on_device, &d, reason);
}

static int pyem__mine(EmArrayObject *o, const void *ctx) {
    return pyem__on_device(o, ctx) && o->owner == PyThread_get_thread_ident();
}

int pyem_fusion_flush_mine(em_device d, const char *reason) {
    return pyem__force_each(pyem__mine, &d, reason);
}

typedef struct {
    em_device d;
    void *stream;
} pyem__on_ctx;

static int pyem__on_stream(EmArrayObject *o, const void *ctx) {
    const pyem__on_ctx *c = ctx;
    return pyem__on_device(o, &c->d) && o->stream == c->stream;
}

int pyem_fusion_flush_stream(em_device d, void *on, const char *reason) {
    pyem__on_ctx c = {d, on};
    return pyem__force_each(pyem__on_stream, &c, reason);
}

/* Replace o's placeholder by the values in v (steals v). */
static void pyem__install(EmArrayObject *o, em_array *v);
void pyem_fusion_install(EmArrayObject *o, em_array *v) { pyem__install(o, v); }
static void pyem__install(EmArrayObject *o, em_array *v) {
    em_expr *x = o->pending;
    em_expr_set_value(x, v);
    pyem__unregister(o);
    o->pending = NULL;
    uint32_t flags = o->a.flags;
    bool autohome = em_array_is_auto(&o->a); /* the placeholder's mark goes to the values */
    em_array_release(&o->a);
    o->a = *v;
    o->a.flags = flags;
    if (autohome) em_array_set_auto(&o->a, true);
    v->buf = NULL, v->data = NULL;
    em_expr_decref(x);
}

int pyem_force(PyObject *obj, const char *reason) {
    EmArrayObject *o = (EmArrayObject *)obj;
    if (!o->pending) return 0;
    if (em_array_is_auto(&o->a) && pyem_auto_chain(obj) < 0) return -1;
    em_expr *x = o->pending;
    if (!x) return 0; /* the policy's Python may have evaluated it */
    em_expr_job *job;
    em_status s = em_expr_begin(x, &job);
    if (s != EM_OK) return pyem_raise(s), -1;
    em_expr_incref(x);
    em_array v = {0};
    s = pyem__run(o, job, reason, &v);
    /* Another thread may have installed the values while the GIL was free. */
    if (s == EM_OK && o->pending == x) pyem__install(o, &v);
    em_array_release(&v);
    em_expr_decref(x);
    return s == EM_OK ? 0 : (pyem_raise(s), -1);
}

static int pyem__reads(EmArrayObject *o, const void *ctx) { return em_expr_reads(o->pending, ctx); }

int pyem_touch(PyObject *obj, const char *reason) {
    if (pyem_force(obj, reason) < 0) return -1;
    /* Every live pending array whose expression reads obj's memory. */
    return pyem_fusion_live ? pyem__force_each(pyem__reads, &((EmArrayObject *)obj)->a, reason) : 0;
}

/* Ember is about to write host memory that it reached through the buffer
 * protocol, not through an ndarray (a NumPy array given to a kernel,
 * get(out=)): every live pending expression that reads that memory -- an
 * em.asarray wrap of it is a fusable leaf -- is evaluated first, as
 * pyem_touch does for ndarrays.  Objects without a buffer touch nothing. */
int pyem_touch_host(PyObject *o, const char *reason) {
    if (EmArray_Check(o)) return pyem_touch(o, reason);
    Py_buffer v;
    if (!pyem_fusion_live) return 0;
    if (PyObject_GetBuffer(o, &v, PyBUF_RECORDS_RO) < 0) return PyErr_Clear(), 0;
    char *lo = v.buf, *hi = (char *)v.buf + v.itemsize;
    for (int d = 0; d < v.ndim; d++) {
        if (v.shape[d] == 0)
            hi = lo; /* empty: nothing is read or written */
        else if (v.strides[d] < 0)
            lo += (v.shape[d] - 1) * v.strides[d];
        else
            hi += (v.shape[d] - 1) * v.strides[d];
    }
    int r = 0;
    if (hi > lo) {
        em_array span;
        int64_t n = hi - lo;
        em_device cpu = {EM_CPU, 0};
        em_status s = em_array_wrap(&span, lo, EM_UINT8, 1, &n, NULL, cpu, NULL, NULL);
        r = s == EM_OK ? pyem__force_each(pyem__reads, &span, reason) : (pyem_raise(s), -1);
        if (s == EM_OK) em_array_release(&span);
    }
    PyBuffer_Release(&v);
    return r;
}

/* _ember._touch_host(obj): pyem_touch_host for Python code about to write obj. */
static PyObject *f_touch_host(PyObject *self, PyObject *o) {
    return pyem_touch_host(o, "write into an input") < 0 ? NULL : Py_NewRef(Py_None);
}

em_array *pyem_array_slow(PyObject *obj) {
    /* Some callers reach EMARR with the GIL released (inside
     * Py_BEGIN_ALLOW_THREADS): take it back for the registry. */
    PyGILState_STATE g = PyGILState_Ensure();
    if (pyem_touch(obj, "data access") < 0) {
        /* No way to report it to this caller: its contract is a usable array. */
        PyErr_Print();
        Py_FatalError("ember: a pending array could not be evaluated (see the error above)");
    }
    PyGILState_Release(g);
    return &((EmArrayObject *)obj)->a;
}

/* ---- building pending arrays (ufunc.c) ------------------------------------------ */

/* Whether an elementwise result of this size on dev should be lazy.  Small
 * CPU results run eagerly unless an input is pending or em.fuse asks: a
 * node and a later evaluation cost more than a 1000-element loop. */
/* EMBER_FUSION=0 turns fusion off; EMBER_FUSE_MIN_SIZE=n sets min_size
 * (0 makes every result lazy: the test suite then checks fused results). */
static void pyem__read_env(void) {
    static int done;
    if (done) return;
    done = 1;
    const char *v = getenv("EMBER_FUSION");
    if (v && !strcmp(v, "0")) pyem__enabled = 0;
    v = getenv("EMBER_FUSE_FOREIGN");
    if (v && !strcmp(v, "1")) pyem__foreign = 1;
    v = getenv("EMBER_FUSE_MIN_SIZE");
    if (v && *v) {
        char *end;
        long long n = strtoll(v, &end, 10);
        if (!*end && n >= 0) pyem__min_size = n;
    }
}

int pyem_fusion_wants(em_device dev, int64_t size, int any_pending) {
    pyem__read_env();
    if (!pyem__enabled || size == 0) return 0;
    if (any_pending || pyem__fuse_depth || dev.kind != EM_CPU) return 1;
    return size >= pyem__min_size;
}

int pyem_fusion_foreign_ok(void) { return pyem__foreign; }

int pyem_is_pending(PyObject *o) { return EmArray_Check(o) && ((EmArrayObject *)o)->pending; }

/* The expression an operand stands for (new reference): a pending array's
 * own, else a leaf reading view. */
int pyem_expr_of(PyObject *o, const em_array *view, em_expr **out) {
    if (o && pyem_is_pending(o)) {
        em_expr *x = ((EmArrayObject *)o)->pending;
        em_expr_incref(x);
        *out = x;
        return 0;
    }
    EmArrayObject *a = o && EmArray_Check(o) ? (EmArrayObject *)o : NULL;
    if (a && a->leaf && em_expr_leaf_of(a->leaf, view)) {
        em_expr_incref(a->leaf);
        *out = a->leaf;
        return 0;
    }
    em_status s = em_expr_leaf(view, out);
    if (s != EM_OK) return pyem_raise(s), -1;
    if (a) {
        em_expr_decref(a->leaf);
        em_expr_incref(*out);
        a->leaf = *out;
    }
    return 0;
}

/* Evaluate the oldest pending arrays while the registry is over its limits. */
static int pyem__relieve(void) {
    while (pyem_fusion_live > pyem__max_live ||
           (pyem_fusion_live > 1 && pyem__pending_bytes > pyem__max_bytes)) {
        const char *why =
            pyem_fusion_live > pyem__max_live ? "limit: live pending arrays" : "memory pressure";
        EmArrayObject *o = pyem__live[0];
        Py_INCREF(o);
        int r = pyem_force((PyObject *)o, why);
        Py_DECREF(o);
        if (r < 0) return -1;
    }
    return 0;
}

/* A new pending ndarray for x (steals the reference), evaluated at once if
 * it is over a limit of one fused evaluation. */
PyObject *pyem_wrap_pending(em_expr *x) {
    em_array ph; /* em_expr_placeholder sets every field read */
    em_status s = em_expr_placeholder(x, &ph);
    if (s != EM_OK) {
        em_expr_decref(x);
        return pyem_raise(s);
    }
    PyObject *r = pyem_wrap(&ph);
    if (!r) {
        em_expr_decref(x);
        return NULL;
    }
    EmArrayObject *o = (EmArrayObject *)r;
    o->pending = x;
    if (em_stream_get(em_array_device(&o->a), &o->stream) != EM_OK) o->stream = NULL;
    o->owner = PyThread_get_thread_ident();
    if (pyem__register(o) < 0) {
        Py_DECREF(r);
        return NULL;
    }
    const char *limit = em_expr_over_limit(x);
    if ((limit && pyem_force(r, limit) < 0) || pyem__relieve() < 0) {
        Py_DECREF(r);
        return NULL;
    }
    return r;
}

/* ---- Python functions -------------------------------------------------------------- */

/* _ember.eval(*arrays): evaluate the pending ones; returns None. */
static PyObject *f_eval(PyObject *self, PyObject *args) {
    for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(args); i++) {
        PyObject *o = PyTuple_GET_ITEM(args, i);
        if (EmArray_Check(o) && pyem_force(o, "em.eval") < 0) return NULL;
    }
    Py_RETURN_NONE;
}

static PyObject *f_is_pending(PyObject *self, PyObject *o) {
    return PyBool_FromLong(pyem_is_pending(o));
}

/* _ember._fusion_config(enabled=None, min_size=None, max_live=None,
 * max_bytes=None): set what is given; returns the previous settings. */
static PyObject *f_fusion_config(PyObject *self, PyObject *args, PyObject *kw) {
    static char *kwlist[] = {"enabled", "min_size", "max_live", "max_bytes", NULL};
    PyObject *en = Py_None, *ms = Py_None, *ml = Py_None, *mb = Py_None;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "|OOOO", kwlist, &en, &ms, &ml, &mb)) return NULL;
    pyem__read_env();
    PyObject *old =
        Py_BuildValue("{s:O,s:L,s:n,s:L}", "enabled", pyem__enabled ? Py_True : Py_False,
                      "min_size", (long long)pyem__min_size, "max_live", pyem__max_live,
                      "max_bytes", (long long)pyem__max_bytes);
    if (!old) return NULL;
    long long v;
    if (en != Py_None) {
        int b = PyObject_IsTrue(en);
        if (b < 0) goto fail;
        pyem__enabled = b;
    }
    if (ms != Py_None) {
        if ((v = PyLong_AsLongLong(ms)) < 0) goto bad;
        pyem__min_size = v;
    }
    if (ml != Py_None) {
        if ((v = PyLong_AsLongLong(ml)) < 1) goto bad;
        pyem__max_live = (Py_ssize_t)v;
    }
    if (mb != Py_None) {
        if ((v = PyLong_AsLongLong(mb)) < 0) goto bad;
        pyem__max_bytes = v;
    }
    if (pyem__relieve() < 0) goto fail;
    return old;
bad:
    if (!PyErr_Occurred())
        PyErr_SetString(PyExc_ValueError, "fusion limits must be integers >= 0 (max_live >= 1)");
fail:
    Py_DECREF(old);
    return NULL;
}

/* _ember._fuse_enter() / _fuse_exit(): inside em.fuse every result is lazy. */
static PyObject *f_fuse_enter(PyObject *self, PyObject *unused) {
    pyem__fuse_depth++;
    Py_RETURN_NONE;
}
static PyObject *f_fuse_exit(PyObject *self, PyObject *unused) {
    if (pyem__fuse_depth > 0) pyem__fuse_depth--;
    Py_RETURN_NONE;
}

/* _ember._kernel_stats(): counters of fused evaluations. */
static PyObject *f_kernel_stats(PyObject *self, PyObject *unused) {
    em_fuse_stats s;
    em_fuse_stats_get(&s);
    return Py_BuildValue("{s:L,s:L,s:L,s:L,s:n,s:L}", "evals", (long long)s.evals, "ops",
                         (long long)s.ops, "kernels", (long long)s.kernels, "reduce_chunks",
                         (long long)s.chunks, "pending", pyem_fusion_live, "pending_bytes",
                         (long long)pyem__pending_bytes);
}

/* _ember._host_pool_peak(reset=False) -> the most host-pool bytes in use
 * since the last reset (the fusion memory test measures with it). */
static PyObject *f_host_pool_peak(PyObject *self, PyObject *args) {
    int reset = 0;
    if (!PyArg_ParseTuple(args, "|p", &reset)) return NULL;
    size_t peak;
    em_host_pool_peak(&peak, reset);
    return PyLong_FromSize_t(peak);
}

PyMethodDef pyem_fusion_functions[] = {
    {"_host_pool_peak", f_host_pool_peak, METH_VARARGS,
     "_host_pool_peak(reset=False) -> peak host-pool bytes in use since the last reset"},
    {"eval", f_eval, METH_VARARGS, "eval(*arrays): evaluate the pending (lazy) arrays given."},
    {"_touch_host", f_touch_host, METH_O,
     "_touch_host(obj): evaluate pending results that read obj's memory (about to be written)"},
    {"_is_pending", f_is_pending, METH_O, "_is_pending(a): whether a is a pending lazy result."},
    {"_fusion_config", (PyCFunction)(void (*)(void))f_fusion_config, METH_VARARGS | METH_KEYWORDS,
     "_fusion_config(enabled=None, min_size=None, max_live=None, max_bytes=None) -> old settings"},
    {"_fuse_enter", f_fuse_enter, METH_NOARGS, "enter an em.fuse region (every result lazy)"},
    {"_fuse_exit", f_fuse_exit, METH_NOARGS, "leave an em.fuse region"},
    {"_kernel_stats", f_kernel_stats, METH_NOARGS,
     "_kernel_stats() -> dict: fused evaluations, ops, distinct kernel keys, reduction chunks, "
     "pending arrays"},
    {NULL, NULL, 0, NULL}};
