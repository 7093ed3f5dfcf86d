/* Elementwise calls from Python: operands, NumPy 2 promotion with "weak"
 * Python scalars (NEP 50), out= and dtype=, then em_ufunc. */
#include "pyember.h"

#include "ember/fusion.h"

#include <string.h>

typedef struct {
    em_array a;    /* strong operands, and weak ones once materialised */
    char weak;     /* 0 for arrays; 'b' 'i' 'f' 'c' for Python scalars */
    PyObject *obj; /* the Python scalar (borrowed) */
} pyem__operand;

/* 1: ok; 0: not a type we take (operators return NotImplemented); -1: error. */
static int pyem__operand_of(PyObject *o, em_device dev, pyem__operand *op) {
    op->a.buf = NULL, op->a.data = NULL; /* no memset: an em_array is 540 bytes */
    op->weak = 0;
    op->obj = o;
    if (EmArray_Check(o)) {
        /* The metadata only: a pending operand joins the expression, and
         * reading an array does not force the pending readers of it. */
        em_array_view(&op->a, EMARR_META(o));
        return 1;
    }
    if (PyBool_Check(o))
        op->weak = 'b';
    else if (PyLong_CheckExact(o))
        op->weak = 'i';
    else if (PyFloat_CheckExact(o))
        op->weak = 'f';
    else if (PyComplex_CheckExact(o))
        op->weak = 'c';
    if (op->weak) return 1;
    if (pyem_as_array(o, EM_NDTYPES, dev, -1, &op->a) < 0) {
        if (!PyErr_ExceptionMatches(PyExc_TypeError)) return -1;
        PyErr_Clear();
        return 0;
    }
    return 1;
}

static void pyem__operands_release(pyem__operand *ops, int n) {
    for (int i = 0; i < n; i++) em_array_release(&ops[i].a);
}

static em_dtype pyem__weak_default(char w) {
    return w == 'b' ? EM_BOOL : w == 'i' ? EM_INT64 : w == 'f' ? EM_FLOAT64 : EM_COMPLEX128;
}

/* NEP 50: a Python scalar takes the array's dtype unless its kind is higher. */
static em_dtype pyem__with_weak(em_dtype strong, char w) {
    char k = em_dtype_get(strong)->kind;
    switch (w) {
    case 'i': return k == 'b' ? EM_INT64 : strong;
    case 'f': return k == 'b' || k == 'i' || k == 'u' ? EM_FLOAT64 : strong;
    case 'c':
        if (k == 'c') return strong;
        if (k == 'f') return strong == EM_FLOAT64 ? EM_COMPLEX128 : EM_COMPLEX64;
        return EM_COMPLEX128;
    default: return strong;
    }
}

/* The dtype an input stands for in promotion: for ops that compute in
 * float (sqrt, arctan2...) each input first goes to its own smallest float,
 * which is how NumPy's loop search ends up (arctan2(uint8, int8) is
 * float16, not float32 as int16 would give). */
static em_dtype pyem__input_dtype(em_op op, em_dtype dt) {
    return em_op_get(op)->resolver == EM_RES_FLOAT ? em_float_for(dt) : dt;
}

static em_dtype pyem__promote(em_op op, pyem__operand *ops, int n) {
    int first = op == EM_OP_WHERE ? 1 : 0, have = 0;
    em_dtype raw = EM_BOOL, d = EM_BOOL;
    for (int i = first; i < n; i++) {
        if (ops[i].weak) continue;
        em_dtype a = ops[i].a.dtype;
        raw = have ? em_promote(raw, a) : a;
        d = have ? em_promote(d, pyem__input_dtype(op, a)) : pyem__input_dtype(op, a);
        have++;
    }
    if (!have) {
        for (int i = first; i < n; i++) {
            em_dtype a = pyem__weak_default(ops[i].weak);
            d = have++ ? em_promote(d, a) : a;
        }
        return d;
    }
    /* A Python scalar of a higher kind decides the dtype (NEP 50). */
    em_dtype w = raw;
    for (int i = first; i < n; i++)
        if (ops[i].weak) w = pyem__with_weak(w, ops[i].weak);
    return w != raw ? w : d;
}

/* Comparing an integer array with a Python int it cannot hold: NumPy 2
 * answers from the sign of the int alone.  Rewrite `x op big` as
 * `x >= MIN` (all true) or `x < MIN` (all false) with MIN the dtype's
 * minimum, so the result keeps the broadcast shape.  Returns 1 if done. */
static int pyem__cmp_out_of_range(em_op *op, pyem__operand *ops, int i, em_device dev) {
    em_dtype strong = ops[1 - i].a.dtype;
    if (!(em_dtype_kindbit(strong) & (EM_KI | EM_KU)) || ops[i].weak != 'i') return 0;
    int big = PyObject_RichCompareBool(ops[i].obj, Py_False, Py_GT);
    if (big < 0) return -1;
    em_op o = *op;
    if (i == 0) /* scalar on the left: mirror the comparison */
        o = o == EM_OP_LESS            ? EM_OP_GREATER
            : o == EM_OP_GREATER       ? EM_OP_LESS
            : o == EM_OP_LESS_EQUAL    ? EM_OP_GREATER_EQUAL
            : o == EM_OP_GREATER_EQUAL ? EM_OP_LESS_EQUAL
                                       : o;
    bool truth = o == EM_OP_NOT_EQUAL || (big ? (o == EM_OP_LESS || o == EM_OP_LESS_EQUAL)
                                              : (o == EM_OP_GREATER || o == EM_OP_GREATER_EQUAL));
    const em_dtype_info *info = em_dtype_get(strong);
    PyObject *mn =
        PyLong_FromLongLong(info->kind == 'u' ? 0 : (long long)(~0ULL << (8 * info->size - 1)));
    if (!mn) return -1;
    int r = pyem_as_array(mn, strong, dev, -1, &ops[i].a);
    Py_DECREF(mn);
    if (r < 0) return -1;
    ops[i].weak = 0;
    if (i == 0) { /* keep the array first: x >= MIN / x < MIN */
        pyem__operand t = ops[0];
        ops[0] = ops[1], ops[1] = t;
    }
    *op = truth ? EM_OP_GREATER_EQUAL : EM_OP_LESS;
    return 1;
}

/* The dtype a Python scalar is converted to: the loop's own dtype for ops
 * that compute in float (arctan2(uint8, -3) is fine in NumPy), the
 * promoted dtype otherwise (uint8 + 300 is an OverflowError). */
static em_dtype pyem__weak_target(em_op op, int i, em_dtype promoted, char weak) {
    const em_op_info *info = em_op_get(op);
    if (op == EM_OP_WHERE && i == 0) return EM_BOOL;
    if (info->resolver == EM_RES_BOOL) return pyem__weak_default(weak);
    em_dtype loop, out;
    if ((info->resolver == EM_RES_FLOAT || info->resolver == EM_RES_TRUEDIV) &&
        em_op_resolve(op, promoted, &loop, &out) == EM_OK)
        return out;
    return promoted;
}

/* where(c, int_array, python_int): NumPy 2 converts the int to the array's integer dtype
 * unsafely (where(c, int32, 2**31) holds -2**31; uint8 with -1 holds 255), through a C
 * long long or unsigned long long: an int neither can hold is NumPy's OverflowError.
 * Returns 1 if done, 0 if this operand is not such a scalar, -1 on error. */
static int pyem__where_wrap(em_op op, int i, pyem__operand *o, em_dtype dt, em_device at) {
    if (op != EM_OP_WHERE || i == 0 || o->weak != 'i' || !(em_dtype_kindbit(dt) & (EM_KI | EM_KU)))
        return 0;
    int over = 0;
    long long v = PyLong_AsLongLongAndOverflow(o->obj, &over);
    if (v == -1 && PyErr_Occurred()) return -1;
    em_dtype wide = EM_INT64;
    if (over > 0) { /* 2**63 .. 2**64-1 go through an unsigned long long */
        unsigned long long u = PyLong_AsUnsignedLongLong(o->obj);
        if (u == (unsigned long long)-1 && PyErr_Occurred()) {
            PyErr_Clear();
            over = 1;
        } else {
            v = (long long)u, over = 0, wide = EM_UINT64;
        }
    }
    if (over) {
        PyErr_SetString(PyExc_OverflowError, "Python int too large to convert to C long");
        return -1;
    }
    PyObject *w = wide == EM_UINT64 ? PyLong_FromUnsignedLongLong((unsigned long long)v)
                                    : PyLong_FromLongLong(v);
    if (!w) return -1;
    em_array t = {0};
    int r = pyem_as_array(w, wide, at, -1, &t);
    Py_DECREF(w);
    if (r < 0) return -1;
    em_status s = em_astype(&t, dt, &o->a); /* C's wrapping integer conversion */
    em_array_release(&t);
    if (s != EM_OK) return pyem_raise(s), -1;
    return 1;
}

/* Turn each Python scalar into a 0-d array of the dtype it computes in.
 * A comparison of an integer array with an int the dtype cannot hold is
 * rewritten (pyem__cmp_out_of_range), as NumPy 2 answers it. */
static int pyem__materialise(em_op *op, pyem__operand *ops, int n, em_device dev,
                             em_dtype promoted) {
    int arrays = 0; /* with an array on dev, small scalars stay on the host */
    for (int i = 0; i < n; i++) arrays += !ops[i].weak;
    for (int i = 0; i < n; i++) {
        if (!ops[i].weak) continue;
        em_dtype dt = pyem__weak_target(*op, i, promoted, ops[i].weak);
        /* Device kernels take small host scalars by value: no device copy. */
        em_device at = arrays ? pyem_scalar_home(dt, dev) : dev;
        int w = pyem__where_wrap(*op, i, &ops[i], dt, at);
        if (w < 0) return -1;
        if (w > 0 || pyem_as_array(ops[i].obj, dt, at, -1, &ops[i].a) == 0) continue;
        if (em_op_get(*op)->resolver != EM_RES_CMP || n != 2 || ops[1 - i].weak ||
            !PyErr_ExceptionMatches(PyExc_OverflowError))
            return -1;
        PyErr_Clear();
        int r = pyem__cmp_out_of_range(op, ops, i, dev);
        if (r <= 0) {
            if (r == 0)
                PyErr_Format(PyExc_OverflowError, "Python integer %R out of bounds for %s",
                             ops[i].obj, em_dtype_get(dt)->name);
            return -1;
        }
        return 0;
    }
    return 0;
}

/* 1 if the integer array a holds a negative value (read on the host). */
static int pyem__any_negative(const em_array *a) {
    em_device cpu = {EM_CPU, 0};
    em_array h = {0}, c = {0};
    em_status s = em_to_device(a, cpu, &h);
    if (s == EM_OK) s = em_astype(&h, EM_INT64, &c);
    em_array_release(&h);
    if (s != EM_OK) return pyem_raise(s), -1;
    const int64_t *v = (const int64_t *)c.data;
    int neg = 0;
    Py_BEGIN_ALLOW_THREADS for (int64_t i = 0, n = em_array_size(&c); i < n && !neg; i++) neg =
        v[i] < 0;
    Py_END_ALLOW_THREADS em_array_release(&c);
    return neg;
}

/* NumPy refuses integer ** negative integer (the loop would have to return
 * a fraction): check the exponent before running the op.  NumPy's loop raises
 * only when it meets a negative exponent, so an empty result (an operand of
 * size 0: broadcasting gives size 0 or fails later) never raises. */
static int pyem__check_int_power(em_op op, const pyem__operand *ops, em_dtype promoted) {
    em_dtype loop, out;
    if (op != EM_OP_POWER || em_op_resolve(op, promoted, &loop, &out) != EM_OK ||
        em_dtype_get(loop)->kind != 'i' || em_array_size(&ops[0].a) == 0 ||
        em_array_size(&ops[1].a) == 0)
        return 0;
    int neg = em_dtype_get(ops[1].a.dtype)->kind == 'i' ? pyem__any_negative(&ops[1].a) : 0;
    if (neg < 0) return -1;
    if (neg)
        PyErr_SetString(PyExc_ValueError, "Integers to negative integer powers are not allowed.");
    return neg ? -1 : 0;
}

/* With dtype= the inputs are cast to the loop dtype under NumPy's default
 * 'same_kind' rule: add(int8, 1.5, dtype=int8) is a TypeError. */
static int pyem__check_input_casts(em_op op, const pyem__operand *ops, int n, em_dtype dtype) {
    em_dtype loop, out;
    const em_op_info *info = em_op_get(op);
    if (info->resolver == EM_RES_BOOL || em_op_resolve(op, dtype, &loop, &out) != EM_OK) return 0;
    for (int i = op == EM_OP_WHERE ? 1 : 0; i < n; i++) {
        em_dtype src = ops[i].weak ? pyem__weak_default(ops[i].weak) : ops[i].a.dtype;
        if (ops[i].weak == 'i' && em_dtype_get(loop)->kind != 'b')
            continue; /* weak ints fit any number kind */
        if (em_can_cast_same_kind(src, loop)) continue;
        PyErr_Format(PyExc_TypeError,
                     "Cannot cast ufunc '%s' input %d from dtype('%s') to dtype('%s') with casting "
                     "rule 'same_kind'",
                     info->name, i, em_dtype_get(src)->name,
                     em_dtype_get(loop == EM_FLOAT32 && dtype == EM_FLOAT16 ? dtype : loop)->name);
        return -1;
    }
    return 0;
}

static em_device pyem__device_of(PyObject *const *objs, int n, PyObject *out) {
    if (out && EmArray_Check(out)) return em_array_device(EMARR_META(out));
    for (int i = 0; i < n; i++)
        if (EmArray_Check(objs[i])) return em_array_device(EMARR_META(objs[i]));
    return pyem_current_device();
}

/* Evaluate the pending ndarray operand i and take its values' view.  The
 * same array may be several operands (x * x): every operand that is it gets
 * the new view, or one would keep the pending metadata (no data). */
static int pyem__force_operand(pyem__operand *ops, int n, int i, const char *reason) {
    PyObject *o = ops[i].obj;
    if (ops[i].weak || !EmArray_Check(o) || !pyem_is_pending(o)) return 0;
    if (pyem_force(o, reason) < 0) return -1;
    for (int k = 0; k < n; k++)
        if (ops[k].obj == o && !ops[k].weak) {
            em_array_release(&ops[k].a);
            em_array_view(&ops[k].a, EMARR_META(o));
        }
    return 0;
}

/* Whether an operand can be a leaf of a pending expression: pending
 * arrays, Python scalars, arrays in Ember's own (pooled) memory, including
 * private copies of converted objects, and NumPy memory that em.asarray
 * wrapped (its owner's writes while a result waits are the user's aliasing,
 * as between NumPy views).  DLPack and CUDA-array-interface imports may be
 * written by another library, on its own stream, behind our back: those
 * operands run eagerly. */
static int pyem__fusable(const pyem__operand *op) {
    if (op->weak || em_expr_fusable(&op->a) || pyem_fusion_foreign_ok()) return 1;
    return EmArray_Check(op->obj) && pyem_is_pending(op->obj);
}

/* The lazy path: a pending result, or Py_None (new ref) when the op runs
 * eagerly (out=, small CPU work, foreign memory). */
static PyObject *pyem__lazy(em_op op, pyem__operand *ops, int n, const em_array *const *in,
                            em_dtype promoted) {
    int pending = 0;
    for (int i = 0; i < n; i++) {
        if (!pyem__fusable(&ops[i])) Py_RETURN_NONE;
        pending |= !ops[i].weak && pyem_is_pending(ops[i].obj);
    }
    em_device dev;
    em_dtype loop, odt;
    int nd;
    int64_t shape[EM_MAXDIMS], size;
    em_status s = em_ufunc_plan(op, n, in, promoted, &dev, &loop, &odt, &nd, shape);
    if (s != EM_OK) return pyem_raise(s);
    if (em_shape_size(nd, shape, &size) != EM_OK || !pyem_fusion_wants(dev, size, pending))
        Py_RETURN_NONE;
    em_expr *ex[3] = {NULL, NULL, NULL}, *x = NULL;
    for (int i = 0; i < n && s == EM_OK; i++)
        if (pyem_expr_of(ops[i].weak ? NULL : ops[i].obj, &ops[i].a, &ex[i]) < 0) s = EM_EVALUE;
    em_status t = s == EM_OK ? em_expr_op(op, n, ex, loop, odt, &x) : EM_OK;
    for (int i = 0; i < n; i++) em_expr_decref(ex[i]);
    if (s != EM_OK) return NULL; /* pyem_expr_of raised */
    if (t != EM_OK) return pyem_raise(t);
    return pyem_wrap_pending(x);
}

/* NumPy's float32/float64 power loops compute a scalar exponent of 0.5 as
 * sqrt (so (-inf) ** 0.5 is nan where C99 pow gives +inf; -0.0 stays -0.0).
 * The scalar here is a Python float or a one-element array in host memory of
 * no more dimensions than x (the loop sees it with stride 0); a device one is
 * not read back and keeps pow.  Turns power(x, 0.5) into
 * sqrt(x) computed in the promoted dtype; returns -1 on error. */
static int pyem__power_half(em_op *op, pyem__operand *ops, int *n, em_dtype promoted) {
    em_dtype loop, out;
    if (*op != EM_OP_POWER || *n != 2 || em_array_size(&ops[1].a) != 1 ||
        ops[1].a.ndim > ops[0].a.ndim || em_op_resolve(*op, promoted, &loop, &out) != EM_OK ||
        (out != EM_FLOAT32 && out != EM_FLOAT64)) /* float16 computes in float32: pow */
        return 0;
    double y;
    if (ops[1].weak == 'f') {
        y = PyFloat_AsDouble(ops[1].obj);
        if (y == -1.0 && PyErr_Occurred()) return -1;
    } else if (em_array_device(&ops[1].a).kind == EM_CPU &&
               em_dtype_get(ops[1].a.dtype)->kind == 'f' &&
               !(EmArray_Check(ops[1].obj) && pyem_is_pending(ops[1].obj))) {
        em_array d = {0};
        if (em_astype(&ops[1].a, EM_FLOAT64, &d) != EM_OK) return 0; /* keep pow */
        y = *(const double *)d.data;                                 /* one element, contiguous */
        em_array_release(&d);
    } else {
        return 0;
    }
    if (y != 0.5) return 0;
    em_array_release(&ops[1].a);
    *op = EM_OP_SQRT, *n = 1;
    return 0;
}

/* The shared path.  out may be NULL; dtype EM_NDTYPES means promote.
 * Returns Py_NotImplemented (new ref) when notimpl and an operand is foreign. */
static PyObject *pyem__call_on(em_op op, PyObject *const *objs, int n, PyObject *out,
                               em_dtype dtype, int notimpl);
/* Set by pyem__call around pyem__call_on: give Py_None back instead of an
 * eager result (the op then goes through placement). */
static int pyem__lazy_only;

/* Auto operands first go where the placement policy says (auto.c).  When
 * they all live on one device the op is first tried lazily there: a
 * pending auto chain is placed as a whole when it is evaluated. */
static PyObject *pyem__call(em_op op, PyObject *const *objs, int n, PyObject *out, em_dtype dtype,
                            int notimpl) {
    if (pyem_auto_defers(objs, n, out)) {
        pyem__lazy_only = 1;
        PyObject *r = pyem__call_on(op, objs, n, out, dtype, notimpl);
        if (r != Py_None) return pyem_auto_leave(NULL, 0, NULL, r);
        Py_DECREF(r);
    }
    PyObject *moved[3];
    int r = pyem_auto_enter("elementwise", objs, n, out, moved);
    if (r < 0) return NULL;
    if (r == 0) return pyem__call_on(op, objs, n, out, dtype, notimpl);
    return pyem_auto_leave(moved, n, out, pyem__call_on(op, moved, n, out, dtype, notimpl));
}

static PyObject *pyem__call_on(em_op op, PyObject *const *objs, int n, PyObject *out,
                               em_dtype dtype, int notimpl) {
    int lazy_only = pyem__lazy_only; /* this call's: not any nested one's */
    pyem__lazy_only = 0;
    if (out && !EmArray_Check(out))
        return PyErr_Format(PyExc_TypeError, "out must be an ember.ndarray, not %.100s",
                            Py_TYPE(out)->tp_name);
    em_device dev = pyem__device_of(objs, n, out);
    pyem__operand ops[3];
    int k;
    for (k = 0; k < n; k++) {
        int r = pyem__operand_of(objs[k], dev, &ops[k]);
        if (r <= 0) {
            pyem__operands_release(ops, k);
            if (r == 0 && notimpl) Py_RETURN_NOTIMPLEMENTED;
            if (r == 0)
                PyErr_Format(PyExc_TypeError, "unsupported operand type for %s: '%.100s'",
                             em_op_get(op)->name, Py_TYPE(objs[k])->tp_name);
            return NULL;
        }
    }
    if (dtype != EM_NDTYPES && pyem__check_input_casts(op, ops, n, dtype) < 0) {
        pyem__operands_release(ops, n);
        return NULL;
    }
    em_dtype promoted = dtype != EM_NDTYPES ? dtype : pyem__promote(op, ops, n);
    if ((op == EM_OP_POWER && n == 2 && pyem__force_operand(ops, n, 1, "integer power") < 0) ||
        pyem__materialise(&op, ops, n, dev, promoted) < 0 ||
        pyem__check_int_power(op, ops, promoted) < 0 ||
        pyem__power_half(&op, ops, &n, promoted) < 0) {
        pyem__operands_release(ops, n);
        return NULL;
    }
    const em_array *in[3] = {&ops[0].a, n > 1 ? &ops[1].a : NULL, n > 2 ? &ops[2].a : NULL};
    if (!out) {
        PyObject *r = pyem__lazy(op, ops, n, in, promoted);
        if (r != Py_None || lazy_only) { /* nothing below runs in that mode */
            pyem__operands_release(ops, n);
            return r;
        }
        Py_DECREF(r);
    }
    /* Eager: pending operands are evaluated first, and out= is a write
     * into memory that pending expressions may read. */
    for (int i = 0; i < n; i++)
        if (pyem__force_operand(ops, n, i, out ? "out=" : "op cannot fuse") < 0) {
            pyem__operands_release(ops, n);
            return NULL;
        }
    if (out && pyem_touch(out, "write into an input") < 0) {
        pyem__operands_release(ops, n);
        return NULL;
    }
    int64_t big = 0;
    for (int i = 0; i < n; i++) big = em_array_size(in[i]) > big ? em_array_size(in[i]) : big;
    em_array res = {0}, *dst = out ? EMARR(out) : &res;
    em_status s;
    PYEM_CALL(s, big, em_ufunc(op, n, in, promoted, dst));
    pyem__operands_release(ops, n);
    if (s != EM_OK) return pyem_raise(s);
    return out ? Py_NewRef(out) : pyem_wrap(&res);
}

/* x ** 2 with a Python scalar 2 is x * x, as in NumPy's fast scalar power:
 * pow() per element is several times slower, and the result is the same
 * where the array's dtype is the result dtype (and NumPy's bool ** 2 is
 * square's int8 too). */
static int pyem__is_square(PyObject *a, PyObject *b) {
    if (!EmArray_Check(a)) return 0;
    if (PyLong_CheckExact(b)) {
        int overflow;
        return PyLong_AsLongLongAndOverflow(b, &overflow) == 2 && !overflow;
    }
    return PyFloat_CheckExact(b) && PyFloat_AS_DOUBLE(b) == 2.0 &&
           strchr("fc", em_dtype_get(EMARR_META(a)->dtype)->kind) != NULL;
}

/* x ** 0.5 with a Python float 0.5 is sqrt(x) for every float and complex x,
 * as NumPy's fast scalar power (float16 and complex too, unlike its power
 * loops: np.power(float16, 0.5) of -inf is +inf, (-inf) ** 0.5 nan). */
static int pyem__is_half(PyObject *a, PyObject *b) {
    return EmArray_Check(a) && PyFloat_CheckExact(b) && PyFloat_AS_DOUBLE(b) == 0.5 &&
           strchr("fc", em_dtype_get(EMARR_META(a)->dtype)->kind) != NULL;
}

PyObject *pyem_binary(em_op op, PyObject *a, PyObject *b) {
    if (op == EM_OP_POWER && pyem__is_square(a, b))
        return pyem__call(EM_OP_SQUARE, &a, 1, NULL, EM_NDTYPES, 1);
    if (op == EM_OP_POWER && pyem__is_half(a, b))
        return pyem__call(EM_OP_SQRT, &a, 1, NULL, EM_NDTYPES, 1);
    PyObject *objs[2] = {a, b};
    return pyem__call(op, objs, 2, NULL, EM_NDTYPES, 1);
}

PyObject *pyem_inplace(em_op op, PyObject *a, PyObject *b) {
    if (op == EM_OP_POWER && pyem__is_half(a, b))
        return pyem__call(EM_OP_SQRT, &a, 1, a, EM_NDTYPES, 1);
    PyObject *objs[2] = {a, b};
    return pyem__call(op, objs, 2, a, EM_NDTYPES, 1);
}

PyObject *pyem_unary(em_op op, PyObject *a) { return pyem__call(op, &a, 1, NULL, EM_NDTYPES, 0); }

/* NumPy's dtype= names the output dtype: an op whose loop for it gives
 * another (cos(x, dtype=bool) computes in float16, sqrt(int, dtype=int32)
 * in float64) has no such loop.  A predicate's dtype=bool is its own
 * output, so its inputs are promoted as without dtype= (*dt cleared). */
static int pyem__dtype_is_output(em_op op, em_dtype *dt) {
    em_dtype loop, out;
    int res = em_op_get(op)->resolver;
    if (*dt == EM_BOOL && (res == EM_RES_CMP || res == EM_RES_PRED)) {
        *dt = EM_NDTYPES;
        return 0;
    }
    if (em_op_resolve(op, *dt, &loop, &out) == EM_OK && out == *dt) return 0;
    PyErr_Format(PyExc_TypeError,
                 "No loop matching the specified signature and casting was found for ufunc %s",
                 em_op_get(op)->name);
    return -1;
}

/* _ember.ufunc(op, *inputs, out=None, dtype=None): op is the name or the
 * op's code (em.add passes the code: no name lookup per call).  Fast-call:
 * no argument tuple, no keyword dict. */
static PyObject *f_ufunc(PyObject *self, PyObject *const *args, Py_ssize_t nargs,
                         PyObject *kwnames) {
    static PyObject *out_s, *dtype_s;
    if (!out_s && !(out_s = PyUnicode_InternFromString("out"))) return NULL;
    if (!dtype_s && !(dtype_s = PyUnicode_InternFromString("dtype"))) return NULL;
    Py_ssize_t n = nargs;
    PyObject *first = n < 1 ? NULL : args[0];
    em_op op = EM_NOPS;
    const char *name = NULL;
    if (first && PyLong_CheckExact(first)) {
        long v = PyLong_AsLong(first);
        if (v >= 0 && v < EM_NOPS && em_op_get((em_op)v))
            op = (em_op)v, name = em_op_get(op)->name;
        else if (!PyErr_Occurred())
            return PyErr_Format(PyExc_ValueError, "unknown ufunc code %ld", v);
        else
            return NULL;
    } else if (first && PyUnicode_Check(first)) {
        if (!(name = PyUnicode_AsUTF8(first))) return NULL;
        op = em_op_from_name(name);
        if (op == EM_NOPS) return PyErr_Format(PyExc_ValueError, "unknown ufunc '%s'", name);
    } else {
        return PyErr_Format(PyExc_TypeError, "ufunc(name, *inputs, out=None, dtype=None)");
    }
    if (n - 1 != em_op_get(op)->nin)
        return PyErr_Format(PyExc_TypeError,
                            "%s() takes %d positional arguments but %zd were given", name,
                            em_op_get(op)->nin, n - 1);
    PyObject *out = NULL, *dto = NULL;
    for (Py_ssize_t i = 0; kwnames && i < PyTuple_GET_SIZE(kwnames); i++) {
        PyObject *k = PyTuple_GET_ITEM(kwnames, i), *v = args[nargs + i];
        int is_out = k == out_s || PyUnicode_Compare(k, out_s) == 0;
        if (is_out)
            out = v;
        else if (k == dtype_s || PyUnicode_Compare(k, dtype_s) == 0)
            dto = v;
        else
            return PyErr_Format(PyExc_TypeError, "%s() got an unexpected keyword argument '%U'",
                                name, k);
    }
    if (dto == Py_None) dto = NULL;
    if (out == Py_None) out = NULL;
    if (out && PyTuple_Check(out)) {
        if (PyTuple_GET_SIZE(out) != 1)
            return PyErr_Format(PyExc_ValueError, "%s has 1 output, out= has %zd", name,
                                PyTuple_GET_SIZE(out));
        out = PyTuple_GET_ITEM(out, 0);
    }
    em_dtype dt = EM_NDTYPES;
    if (dto && pyem_dtype_from_obj(dto, &dt, 1) < 0) return NULL;
    if (dt != EM_NDTYPES && pyem__dtype_is_output(op, &dt) < 0) return NULL;
    return pyem__call(op, args + 1, (int)(n - 1), out, dt, 0);
}

/* Loop and output dtypes for a promoted dtype (for tests and the Python layer). */
static PyObject *f_resolve(PyObject *self, PyObject *args) {
    const char *name;
    PyObject *dto;
    if (!PyArg_ParseTuple(args, "sO", &name, &dto)) return NULL;
    em_op op = em_op_from_name(name);
    em_dtype dt, loop, out;
    if (op == EM_NOPS) return PyErr_Format(PyExc_ValueError, "unknown ufunc '%s'", name);
    if (pyem_dtype_from_obj(dto, &dt, 0) < 0) return NULL;
    em_status s = em_op_resolve(op, dt, &loop, &out);
    if (s != EM_OK) return pyem_raise(s);
    return Py_BuildValue("(OO)", pyem_dtype_obj(loop), pyem_dtype_obj(out));
}

/* _ember.view_component(a, imag): the real or imaginary part of a complex
 * array as a strided view sharing its buffer (x.real, x.imag). */
static PyObject *f_view_component(PyObject *self, PyObject *args) {
    PyObject *a;
    int imag;
    if (!PyArg_ParseTuple(args, "O!p", EmArray_Type, &a, &imag)) return NULL;
    em_array v;
    em_status s = em_view_component(EMARR(a), imag, &v);
    if (s != EM_OK) return pyem_raise(s);
    return pyem_wrap(&v);
}

PyMethodDef pyem_ufunc_functions[] = {
    {"view_component", f_view_component, METH_VARARGS,
     "view_component(a, imag): real (imag=False) or imaginary part of a complex array, a view."},
    {"ufunc", (PyCFunction)(void (*)(void))f_ufunc, METH_FASTCALL | METH_KEYWORDS,
     "ufunc(name, *inputs, out=None, dtype=None): run an elementwise op."},
    {"resolve", f_resolve, METH_VARARGS, "resolve(name, dtype) -> (loop dtype, output dtype)"},
    {NULL, NULL, 0, NULL}};
