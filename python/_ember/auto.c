/* device="auto" in the extension (docs/auto.md): the auto mark of an
 * array's buffer, moving an auto array's memory to another device, and the
 * one narrow hook through which an elementwise call on auto arrays asks the
 * placement policy (ember/auto/_place.py) where to run.  The policy is
 * Python for now; this file only finds auto operands, calls it and marks
 * the result, so the cost of auto for other arrays is a flag test. */
#include "pyember.h"

#include "ember/fusion.h"

#include <string.h>

static PyObject *pyem__auto_hook; /* place(kind, operands, out) -> operands */
/* whole(kind, args, kw) -> the result, or NotImplemented: work the policy
 * runs itself (a reduction streamed through a GPU in chunks, out of core). */
static PyObject *pyem__auto_whole;
/* chain(x, device, input_bytes, result_bytes, pinned) -> a device, None, or
 * x's values (computed by the policy: streamed in bands): where a pending
 * auto chain runs, asked when it is evaluated (pyem_auto_chain). */
static PyObject *pyem__auto_chain;

int pyem_is_auto(PyObject *o) { return EmArray_Check(o) && em_array_is_auto(EMARR_META(o)); }

/* The policy's answers that need no Python call (_auto_config), since an
 * operation on small arrays costs less than calling the policy: with one
 * candidate device everything stays where it is; and work of a kind whose
 * operands are all auto arrays on the host, below that kind's byte count,
 * is the CPU's whatever the model (the policy computes the bound from it,
 * with margin).  Both are off while decisions are printed or recorded. */
enum { PYEM_AUTO_ELEMENTWISE, PYEM_AUTO_REDUCTION, PYEM_AUTO_SCAN, PYEM_AUTO_NKINDS };
static int pyem__auto_single;
static int64_t pyem__auto_cpu_below[PYEM_AUTO_NKINDS];

/* A pending chain on the host is answered from the model's own chain
 * prediction (_place._decide_chain less its fit test), not from a byte
 * bound: a bound is one op's, and the CPU's cost per byte grows with the
 * chain's ops (a sine costs it many passes) while a GPU's does not, so no
 * byte count is safe for every chain.  Per device: launch seconds, seconds
 * per byte of the pass, per byte moved in (0 on the CPU), per element of one
 * more arithmetic op and of one transcendental op.  Row 0 is the CPU's. */
enum { PYEM_AUTO_MAXDEV = 16 };
static double pyem__auto_chain_cost[PYEM_AUTO_MAXDEV][5];
static int pyem__auto_chain_ndev; /* 0: no answer (the policy decides) */

static int pyem__auto_kind(const char *kind) {
    return !strcmp(kind, "elementwise") ? PYEM_AUTO_ELEMENTWISE
           : !strcmp(kind, "reduction") ? PYEM_AUTO_REDUCTION
           : !strcmp(kind, "scan")      ? PYEM_AUTO_SCAN
                                        : -1;
}

/* Whether the policy's answer is "as they are": see above. */
static int pyem__auto_stays(const char *kind, PyObject *const *objs, int n, PyObject *out) {
    if (pyem__auto_single) return 1;
    int k = pyem__auto_kind(kind);
    if (k < 0 || out || pyem__auto_cpu_below[k] <= 0) return 0;
    /* A pending chain's work is its inputs' bytes and its ops, which the
     * bound does not price: the policy decides (such arrays are large). */
    for (int i = 0; i < n; i++)
        if (pyem_is_pending(objs[i])) return 0;
    /* The work's bytes as the policy counts them (_place._work): the inputs,
     * plus for an elementwise result the largest operand's elements at the
     * widest item size; a broadcast result may be larger: not answered here. */
    int64_t bytes = 0, size = 0, item = 0;
    const em_array *shaped = NULL; /* the first operand of more than one element */
    for (int i = 0; i < n; i++) {
        if (!EmArray_Check(objs[i])) continue;
        const em_array *a = EMARR_META(objs[i]);
        if (!em_array_is_auto(a) || em_array_device(a).kind != EM_CPU) return 0;
        int64_t sz = em_array_size(a), it = em_dtype_get(a->dtype)->size;
        if (sz > 1 && shaped &&
            (a->ndim != shaped->ndim || memcmp(a->shape, shaped->shape, sizeof(int64_t) * a->ndim)))
            return 0; /* (8, 1) + (1, 8): a result larger than either */
        if (sz > 1 && !shaped) shaped = a;
        bytes += em_array_nbytes(a);
        size = sz > size ? sz : size;
        item = it > item ? it : item;
    }
    if (k == PYEM_AUTO_ELEMENTWISE) bytes += size * item;
    if (k == PYEM_AUTO_SCAN) bytes *= 2;
    return bytes < pyem__auto_cpu_below[k];
}

int pyem_auto_enter(const char *kind, PyObject *const *objs, int n, PyObject *out,
                    PyObject **moved) {
    int any = out && pyem_is_auto(out);
    for (int i = 0; i < n && !any; i++) any = pyem_is_auto(objs[i]);
    if (!any || !pyem__auto_hook) return 0;
    if (pyem__auto_stays(kind, objs, n, out)) {
        for (int i = 0; i < n; i++) moved[i] = Py_NewRef(objs[i]);
        return 1; /* the result is still marked auto */
    }
    PyObject *t = PyTuple_New(n);
    if (!t) return -1;
    for (int i = 0; i < n; i++) PyTuple_SET_ITEM(t, i, Py_NewRef(objs[i]));
    PyObject *r = PyObject_CallFunction(pyem__auto_hook, "sOO", kind, t, out ? out : Py_None);
    Py_DECREF(t);
    if (!r) return -1;
    if (!PyTuple_Check(r) || PyTuple_GET_SIZE(r) != n) {
        Py_DECREF(r);
        PyErr_SetString(PyExc_RuntimeError, "ember.auto: the placement hook must return "
                                            "one operand per operand");
        return -1;
    }
    for (int i = 0; i < n; i++) moved[i] = Py_NewRef(PyTuple_GET_ITEM(r, i));
    Py_DECREF(r);
    return 1;
}

PyObject *pyem_auto_leave(PyObject **moved, int n, PyObject *out, PyObject *result) {
    for (int i = 0; i < n; i++) Py_DECREF(moved[i]);
    /* A result of auto operands is auto; an out= keeps its own placement. */
    if (result && !out && EmArray_Check(result))
        em_array_set_auto(&((EmArrayObject *)result)->a, true);
    return result;
}

PyObject *pyem_auto_like(PyObject *src, PyObject *result) {
    if (result && pyem_is_auto(src) && EmArray_Check(result))
        em_array_set_auto(&((EmArrayObject *)result)->a, true);
    return result;
}

int pyem_auto_defers(PyObject *const *objs, int n, PyObject *out) {
    if (out || !pyem__auto_chain) return 0;
    em_device dev = {EM_CPU, 0};
    int have = 0, pending = 0;
    int64_t size = 0;
    for (int i = 0; i < n; i++) {
        if (!EmArray_Check(objs[i])) continue; /* Python scalars join any device */
        const em_array *a = EMARR_META(objs[i]);
        if (!em_array_is_auto(a)) return 0; /* a pinned operand decides now */
        em_device d = em_array_device(a);
        if (have && (d.kind != dev.kind || d.id != dev.id)) return 0;
        dev = d, have = 1;
        pending |= pyem_is_pending(objs[i]);
        int64_t sz = em_array_size(a);
        size = sz > size ? sz : size;
    }
    /* The operands' largest size for the result's: a broadcast result that
     * is lazy only by being larger goes through placement at once. */
    return have && pyem_fusion_wants(dev, size, pending);
}

/* Replace pending o's expression by the same on d (em_expr_retarget). */
static int pyem__auto_retarget(EmArrayObject *o, em_device d) {
    em_expr *nx;
    em_array ph;
    em_status s;
    /* With the GIL held: building nodes needs the graph's one lock (its
     * node allocator is not thread-safe), even while the copies run. */
    s = em_expr_retarget(o->pending, d, &nx);
    if (s != EM_OK) return pyem_raise(s), -1;
    s = em_expr_placeholder(nx, &ph);
    if (s != EM_OK) {
        em_expr_decref(nx);
        return pyem_raise(s), -1;
    }
    uint32_t flags = o->a.flags;
    em_array_release(&o->a);
    o->a = ph;
    o->a.flags = flags;
    em_array_set_auto(&o->a, true);
    em_expr_decref(o->pending);
    o->pending = nx;
    /* Its work now runs on d: on this thread's stream there. */
    if (em_stream_get(d, &o->stream) != EM_OK) o->stream = NULL;
    return 0;
}

/* Seconds of a host chain on device row r (_model.predict_chain + move). */
static double pyem__auto_chain_time(int r, int64_t in, int64_t res, int64_t elems, int ops,
                                    int tr) {
    const double *c = pyem__auto_chain_cost[r];
    int arith = ops - 1 - tr > 0 ? ops - 1 - tr : 0;
    return c[0] + (double)(in + res) * c[1] + (double)in * c[2] +
           (double)elems * (arith * c[3] + tr * c[4]);
}

/* Whether a host chain stays on the CPU without asking the policy: the CPU
 * predicted at least 10 % faster than every GPU (closer calls, and a GPU
 * that might not fit, are the policy's). */
static int pyem__auto_chain_cpu_wins(int64_t in, int64_t res, int64_t elems, int ops, int tr) {
    if (pyem__auto_chain_ndev < 2) return 0;
    double cpu = pyem__auto_chain_time(0, in, res, elems, ops, tr);
    for (int r = 1; r < pyem__auto_chain_ndev; r++)
        if (1.1 * cpu >= pyem__auto_chain_time(r, in, res, elems, ops, tr)) return 0;
    return 1;
}

int pyem_auto_chain(PyObject *obj) {
    EmArrayObject *o = (EmArrayObject *)obj;
    if (!o->pending || !pyem__auto_chain || pyem__auto_single || !em_array_is_auto(&o->a)) return 0;
    em_device dev = em_array_device(&o->a);
    int64_t in = em_expr_input_bytes(o->pending), res = em_array_nbytes(&o->a);
    int ops, tr;
    em_expr_op_counts(o->pending, &ops, &tr);
    if (dev.kind == EM_CPU && pyem__auto_chain_cpu_wins(in, res, em_array_size(&o->a), ops, tr))
        return 0;
    PyObject *devo = PyObject_GetAttrString(obj, "_dev");
    if (!devo) return -1;
    PyObject *r = PyObject_CallFunction(pyem__auto_chain, "OOLLiLii", obj, devo, (long long)in,
                                        (long long)res, (int)!em_expr_all_auto(o->pending),
                                        (long long)em_array_size(&o->a), ops, tr);
    Py_DECREF(devo);
    if (!r) return -1;
    int ret = 0;
    if (EmArray_Check(r) && o->pending) { /* the policy computed the values (streamed) */
        const em_array *v = EMARR(r);
        if (v->dtype != o->a.dtype || v->ndim != o->a.ndim ||
            memcmp(v->shape, o->a.shape, sizeof(int64_t) * (size_t)v->ndim) ||
            !em_array_is_c_contiguous(v)) {
            PyErr_SetString(PyExc_RuntimeError, "ember.auto: a streamed chain's values do not "
                                                "match it");
            ret = -1;
        } else {
            em_array c;
            em_array_view(&c, v);
            pyem_fusion_install(o, &c);
        }
    } else if (r != Py_None) {
        em_device d;
        ret = pyem_parse_device(r, &d);
        if (ret == 0 && o->pending && (d.kind != dev.kind || d.id != dev.id))
            ret = pyem__auto_retarget(o, d);
    }
    Py_DECREF(r);
    return ret;
}

/* _auto_chain_rows(x, r0, r1, device): rows [r0, r1) of pending x's values,
 * computed on device (its arrays' rows copied there), a new auto array. */
static PyObject *f_auto_chain_rows(PyObject *self, PyObject *args) {
    PyObject *xo, *devo;
    long long r0, r1;
    if (!PyArg_ParseTuple(args, "O!LLO", EmArray_Type, &xo, &r0, &r1, &devo)) return NULL;
    EmArrayObject *x = (EmArrayObject *)xo;
    if (!x->pending) return PyErr_Format(PyExc_ValueError, "_auto_chain_rows: not pending");
    em_device d;
    if (pyem_parse_device(devo, &d) < 0) return NULL;
    em_expr *nx; /* built with the GIL held: the graph's one lock */
    em_status s = em_expr_retarget_rows(x->pending, r0, r1, d, &nx);
    if (s != EM_OK) return pyem_raise(s);
    em_array v = {0};
    PYEM_CALL(s, em_array_size(&x->a), em_expr_eval(nx, "auto: a band of a streamed chain", &v));
    em_expr_decref(nx);
    if (s != EM_OK) return pyem_raise(s);
    em_array_set_auto(&v, true);
    return pyem_wrap(&v);
}

/* _auto_chain_ops(x): (op nodes, transcendental ones) a pending x will
 * evaluate ((0, 0) when x has values): the policy prices them. */
static PyObject *f_auto_chain_ops(PyObject *self, PyObject *o) {
    (void)self;
    if (!EmArray_Check(o)) return PyErr_Format(PyExc_TypeError, "expected an ember.ndarray");
    const em_expr *e = ((EmArrayObject *)o)->pending;
    int ops = 0, tr = 0;
    if (e) em_expr_op_counts(e, &ops, &tr);
    return Py_BuildValue("ii", ops, tr);
}

/* _auto_chain_bytes(x): the bytes a pending x reads (0 when x has values). */
static PyObject *f_auto_chain_bytes(PyObject *self, PyObject *o) {
    if (!pyem_is_pending(o)) return PyLong_FromLong(0);
    return PyLong_FromLongLong(em_expr_input_bytes(((EmArrayObject *)o)->pending));
}

/* _auto_mark(x, on=True): x's buffer (every view of it) becomes auto or not. */
static PyObject *f_auto_mark(PyObject *self, PyObject *args) {
    PyObject *xo;
    int on = 1;
    if (!PyArg_ParseTuple(args, "O!|p", EmArray_Type, &xo, &on)) return NULL;
    em_array_set_auto(&((EmArrayObject *)xo)->a, on);
    return Py_NewRef(xo);
}

static PyObject *f_auto_is(PyObject *self, PyObject *o) { return PyBool_FromLong(pyem_is_auto(o)); }

/* _auto_move(x, device): move x's memory to device in place when no one
 * else sees it (em_array_movable); True when x is there now, False when it
 * could not move (the caller copies instead). */
static PyObject *f_auto_move(PyObject *self, PyObject *args) {
    PyObject *xo, *devo;
    if (!PyArg_ParseTuple(args, "O!O", EmArray_Type, &xo, &devo)) return NULL;
    em_device d;
    if (pyem_parse_device(devo, &d) < 0) return NULL;
    EmArrayObject *e = (EmArrayObject *)xo;
    em_device cur = em_array_device(&e->a);
    if (cur.kind == d.kind && cur.id == d.id) Py_RETURN_TRUE;
    /* A pending auto chain moves unevaluated: nobody sees its memory yet. */
    if (e->pending && em_array_is_auto(&e->a))
        return pyem__auto_retarget(e, d) < 0 ? NULL : Py_NewRef(Py_True);
    if (pyem_force(xo, "auto: move") < 0) return NULL;
    cur = em_array_device(&e->a);
    if (cur.kind == d.kind && cur.id == d.id) Py_RETURN_TRUE;
    /* The cached leaf holds a view of the old memory: only an optimisation. */
    if (e->leaf) {
        em_expr_decref(e->leaf);
        e->leaf = NULL;
    }
    if (!em_array_movable(&e->a)) Py_RETURN_FALSE;
    em_array c = {0};
    em_status s;
    PYEM_CALL(s, em_array_size(&e->a), em_to_device(&e->a, d, &c));
    if (s != EM_OK) return pyem_raise(s);
    em_array_set_auto(&c, true);
    uint32_t flags = e->a.flags;
    em_array_release(&e->a);
    e->a = c;
    e->a.flags = flags;
    Py_RETURN_TRUE;
}

/* _auto_set_hook(place, whole=None, chain=None) */
static PyObject *f_auto_set_hook(PyObject *self, PyObject *args) {
    PyObject *fn, *whole = Py_None, *chain = Py_None;
    if (!PyArg_ParseTuple(args, "O|OO", &fn, &whole, &chain)) return NULL;
    Py_XSETREF(pyem__auto_hook, fn == Py_None ? NULL : Py_NewRef(fn));
    Py_XSETREF(pyem__auto_whole, whole == Py_None ? NULL : Py_NewRef(whole));
    Py_XSETREF(pyem__auto_chain, chain == Py_None ? NULL : Py_NewRef(chain));
    Py_RETURN_NONE;
}

/* _auto_config(single, elementwise_below, reduction_below, scan_below,
 *              chain_costs=()) */
static PyObject *f_auto_config(PyObject *self, PyObject *args) {
    int single;
    long long b[PYEM_AUTO_NKINDS];
    PyObject *costs = NULL;
    if (!PyArg_ParseTuple(args, "pLLL|O", &single, &b[0], &b[1], &b[2], &costs)) return NULL;
    double rows[PYEM_AUTO_MAXDEV][5];
    int n = 0;
    if (costs && costs != Py_None) {
        PyObject *seq = PySequence_Fast(costs, "_auto_config: chain_costs must be a sequence");
        if (!seq) return NULL;
        Py_ssize_t m = PySequence_Fast_GET_SIZE(seq);
        for (Py_ssize_t i = 0; i < m && n < PYEM_AUTO_MAXDEV; i++, n++) {
            PyObject *row = PySequence_Fast_GET_ITEM(seq, i);
            if (!PyArg_ParseTuple(row, "ddddd;_auto_config: a chain cost is 5 floats", &rows[n][0],
                                  &rows[n][1], &rows[n][2], &rows[n][3], &rows[n][4])) {
                Py_DECREF(seq);
                return NULL;
            }
        }
        /* More devices than rows: no answer rather than one that misses a GPU. */
        if (m > PYEM_AUTO_MAXDEV) n = 0;
        Py_DECREF(seq);
    }
    pyem__auto_single = single;
    for (int k = 0; k < PYEM_AUTO_NKINDS; k++) pyem__auto_cpu_below[k] = b[k];
    memcpy(pyem__auto_chain_cost, rows, sizeof(rows[0]) * (size_t)n);
    pyem__auto_chain_ndev = n;
    Py_RETURN_NONE;
}

PyMethodDef pyem_auto_functions[] = {
    {"_auto_config", f_auto_config, METH_VARARGS,
     "_auto_config(single, elementwise_below, reduction_below, scan_below, chain_costs=()): "
     "the policy's answers the extension gives without calling it."},
    {"_auto_mark", f_auto_mark, METH_VARARGS, "_auto_mark(x, on=True): x becomes auto (or not)."},
    {"_auto_is", f_auto_is, METH_O, "_auto_is(x): whether x is an auto ember array."},
    {"_auto_chain_rows", f_auto_chain_rows, METH_VARARGS,
     "_auto_chain_rows(x, r0, r1, device): rows [r0, r1) of pending x, computed on device."},
    {"_auto_chain_ops", f_auto_chain_ops, METH_O,
     "_auto_chain_ops(x): (op nodes, transcendental ones) pending x evaluates."},
    {"_auto_chain_bytes", f_auto_chain_bytes, METH_O,
     "_auto_chain_bytes(x): bytes of the arrays a pending x reads (0 if it has values)."},
    {"_auto_move", f_auto_move, METH_VARARGS,
     "_auto_move(x, device): move x's memory in place if no one else sees it."},
    {"_auto_set_hook", f_auto_set_hook, METH_VARARGS,
     "_auto_set_hook(place, whole=None, chain=None): place(kind, operands, out) for calls "
     "on auto arrays; whole(kind, args, kw) runs a reduction itself or returns "
     "NotImplemented; chain(x, device, in_bytes, out_bytes, pinned) places a pending chain."},
    {NULL, NULL, 0, NULL}};

/* A METH_VARARGS|METH_KEYWORDS entry whose positional argument ai is the
 * array and whose "out" is positional oi or a keyword: f with that array
 * placed by the hook when it is auto (the reduction and scan entries). */
PyObject *pyem_auto_call(const char *kind, PyCFunctionWithKeywords f, PyObject *self,
                         PyObject *args, PyObject *kw, Py_ssize_t ai, Py_ssize_t oi) {
    Py_ssize_t n = PyTuple_GET_SIZE(args);
    PyObject *a = ai < n ? PyTuple_GET_ITEM(args, ai) : NULL;
    if (!a || !pyem_is_auto(a)) return f(self, args, kw);
    PyObject *out = oi < n ? PyTuple_GET_ITEM(args, oi)
                    : kw   ? PyDict_GetItemString(kw, "out")
                           : NULL;
    if (out == Py_None) out = NULL;
    if (pyem__auto_whole && !pyem__auto_stays(kind, &a, 1, out)) {
        PyObject *w = PyObject_CallFunction(pyem__auto_whole, "sOO", kind, args, kw ? kw : Py_None);
        if (w != Py_NotImplemented) return w; /* the result, or NULL with its exception */
        Py_DECREF(w);
    }
    PyObject *moved[1];
    int r = pyem_auto_enter(kind, &a, 1, out, moved);
    if (r <= 0) return r < 0 ? NULL : f(self, args, kw);
    PyObject *args2 = PyTuple_New(n); /* a new tuple: GetSlice of all of it is args itself */
    if (!args2) return pyem_auto_leave(moved, 1, out, NULL);
    for (Py_ssize_t i = 0; i < n; i++)
        PyTuple_SET_ITEM(args2, i, Py_NewRef(i == ai ? moved[0] : PyTuple_GET_ITEM(args, i)));
    PyObject *res = f(self, args2, kw);
    Py_DECREF(args2);
    return pyem_auto_leave(moved, 1, out, res);
}
