/* Reductions and scans: axis handling, NumPy's default dtypes, output
 * allocation, keepdims and out=; the arithmetic is the backend's.
 *
 * The backend computes SUM, PROD, MIN, MAX (ANY and ALL as MAX and MIN of
 * bool), ARGMIN, ARGMAX and the scans into a fresh C-contiguous array of
 * the loop dtype.  This file composes the rest the way NumPy's _methods.py
 * does (MEAN = SUM / n, VAR two-pass, STD = sqrt(VAR), COUNT_NONZERO = SUM
 * of a bool cast), casts to the result dtype (float16 reduces in float32)
 * and writes out= or reshapes for keepdims.
 */
#include "backend/backend.h"
#include "codegen/run.h"
#include "core/core.h"

#include <limits.h>
#include <stdio.h>
#include <string.h>

static const char *const em__red_names[EM_NREDUCE] = {
#define EM_REDUCE(E, name) #name,
#include "ember/reductions.def"
#undef EM_REDUCE
};

/* NumPy's ufunc names in its messages ("reduction operation maximum"). */
static const char *em__ufunc_name(em_reduce_op op) {
    switch (op) {
    case EM_RED_SUM:
    case EM_RED_MEAN:
    case EM_RED_CUMSUM: return "add";
    case EM_RED_PROD:
    case EM_RED_CUMPROD: return "multiply";
    case EM_RED_MIN: return "minimum";
    case EM_RED_MAX: return "maximum";
    default: return em__red_names[op];
    }
}

/* A reduction request after validation. */
typedef struct em__red {
    em_reduce_op op;
    const em_array *a;
    int naxes;
    int axes[EM_MAXDIMS]; /* sorted, distinct, in [0, ndim) */
    bool red[EM_MAXDIMS];
    int64_t count;        /* elements per reduction */
    const em_node *fused; /* a's values come from this tree (em__reduce_fused), or NULL */
} em__red;

/* ---- validation ------------------------------------------------------------ */

static em_status em__norm_axis(int axis, int ndim, int *out) {
    if (axis < -ndim || axis >= ndim)
        return em_error(EM_EINDEX, "axis %d is out of bounds for array of dimension %d", axis,
                        ndim);
    *out = axis < 0 ? axis + ndim : axis;
    return EM_OK;
}

static em_status em__axes(em__red *r, int naxes, const int *axes) {
    const em_array *a = r->a;
    memset(r->red, 0, sizeof r->red);
    if (naxes < 0) {
        for (int i = 0; i < a->ndim; i++) r->red[i] = true;
    } else {
        if (naxes > EM_MAXDIMS || (naxes > 0 && !axes))
            return em_error(EM_EVALUE, "%d axes given; at most %d allowed", naxes, EM_MAXDIMS);
        for (int i = 0; i < naxes; i++) {
            int ax = 0;
            EM_CHECK(em__norm_axis(axes[i], a->ndim, &ax));
            if (r->red[ax]) return em_error(EM_EVALUE, "duplicate value in 'axis'");
            r->red[ax] = true;
        }
    }
    r->naxes = 0;
    r->count = 1;
    for (int i = 0; i < a->ndim; i++)
        if (r->red[i]) r->axes[r->naxes++] = i, r->count *= a->shape[i];
    return EM_OK;
}

static em_status em__check_input(const em_array *a) {
    if (!a || !a->buf) return em_error(EM_EVALUE, "reduction input is not set");
    if ((unsigned)a->dtype >= EM_NDTYPES) return em_error(EM_ETYPE, "invalid input dtype");
    return em_array_live(a);
}

/* ---- dtypes ------------------------------------------------------------------- */

/* NumPy's sum/prod/cumsum/cumprod default: small ints widen to the platform int. */
static em_dtype em__sum_dtype(em_dtype in) {
    char k = em_dtype_get(in)->kind;
    if (k == 'b' || (k == 'i' && in != EM_INT64)) return EM_INT64;
    if (k == 'u' && in != EM_UINT64) return EM_UINT64;
    return in;
}

/* The dtype the backend loops in: float16 has no loops. */
static em_dtype em__loop(em_dtype dt) { return dt == EM_FLOAT16 ? EM_FLOAT32 : dt; }

static bool em__is_int(em_dtype dt) {
    char k = em_dtype_get(dt)->kind;
    return k == 'b' || k == 'i' || k == 'u';
}

/* ---- shapes ----------------------------------------------------------------- */

/* The result shape (keepdims: reduced dims as 1). */
static int em__result_shape(const em__red *r, bool keepdims, int64_t *shape) {
    int nd = 0;
    for (int i = 0; i < r->a->ndim; i++) {
        if (!r->red[i])
            shape[nd++] = r->a->shape[i];
        else if (keepdims)
            shape[nd++] = 1;
    }
    return nd;
}

static void em__fmt_shape(char *buf, size_t len, int nd, const int64_t *shape) {
    size_t o = (size_t)snprintf(buf, len, "(");
    for (int i = 0; i < nd && o < len; i++)
        o += (size_t)snprintf(buf + o, len - o, "%lld%s", (long long)shape[i],
                              nd == 1      ? ","
                              : i + 1 < nd ? ", "
                                           : "");
    if (o < len) snprintf(buf + o, len - o, ")");
}

/* unsafe: NumPy casts the result of sum, prod, min, max, mean, var, std and the scans into
 * out= unsafely (sum([0.5, 0.5, -2.25], out=uint8) is 255, into bool True; the loop out=
 * resolves: em__out_loop); the other reductions keep the same_kind check. */
static em_status em__check_out(const char *name, const em_array *out, int nd, const int64_t *shape,
                               em_dtype res, bool unsafe) {
    if (nd != out->ndim || memcmp(shape, out->shape, sizeof(int64_t) * (size_t)nd)) {
        char want[256], got[256];
        em__fmt_shape(want, sizeof want, nd, shape);
        em__fmt_shape(got, sizeof got, out->ndim, out->shape);
        return em_error(EM_EVALUE, "output array has shape %s but %s gives shape %s", got, name,
                        want);
    }
    if (!(out->flags & EM_WRITEABLE)) return em_error(EM_EVALUE, "output array is read-only");
    if (!unsafe && !em_can_cast_same_kind(res, out->dtype))
        return em_error(EM_ETYPE,
                        "Cannot cast %s output from dtype('%s') to dtype('%s') with casting rule "
                        "'same_kind'",
                        name, em_dtype_get(res)->name, em_dtype_get(out->dtype)->name);
    return EM_OK;
}

/* ---- the backend call --------------------------------------------------------- */

static const em_backend *em__be(const em_array *a) { return em__backend(em_array_device(a).kind); }

/* Fill a fresh array with the value of an empty reduction: 0 for SUM and
 * MAX (ANY), 1 for PROD and MIN (ALL), the ufunc's identity for the
 * bitwise ops and GCD; true min/max and LCM never get here. */
static em_status em__fill_identity(em_reduce_op op, em_array *res) {
    int64_t v = op == EM_RED_PROD || op == EM_RED_MIN ? 1 : 0;
    if (op == EM_RED_BITWISE_AND) v = -1; /* all ones in any integer dtype; true */
    return em_fill(res, EM_INT64, &v);
}

/* res = the backend reduction of r->a (kept dims only, C-contiguous), in loop dtype. */
static em_status em__raw(const em__red *r, em_reduce_op bop, em_dtype loop, em_array *res) {
    int64_t shape[EM_MAXDIMS];
    int nd = em__result_shape(r, false, shape);
    bool arg = bop == EM_RED_ARGMIN || bop == EM_RED_ARGMAX;
    em_array o;
    EM_CHECK(em_array_empty(&o, arg ? EM_INT64 : loop, nd, shape, em_array_device(r->a)));
    em_status s = EM_OK;
    if (em_array_size(&o) == 0) {
        /* nothing to compute */
    } else if (r->count == 0) {
        s = em__fill_identity(bop, &o);
    } else {
        s = em_algo_reduce(em__be(r->a), bop, r->a, r->naxes, r->axes, loop, 0.0, r->fused, &o);
    }
    if (s != EM_OK) {
        em_array_release(&o);
        return s;
    }
    *res = o;
    return EM_OK;
}

/* Hand res (kept dims, any dtype) back as dtype dt: into out if set, else as
 * a new array, reshaped for keepdims.  Consumes res. */
static em_status em__finish(const em__red *r, em_array *res, em_dtype dt, bool keepdims,
                            em_array *out) {
    int64_t shape[EM_MAXDIMS];
    int nd = em__result_shape(r, keepdims, shape);
    em_array v = {0}, c = {0};
    em_status s = em_view_reshape(res, nd, shape, &v);
    if (s == EM_OK && out->buf) {
        s = em_copy_into(out, &v);
    } else if (s == EM_OK && v.dtype != dt) {
        s = em_astype(&v, dt, &c);
        if (s == EM_OK) *out = c;
    } else if (s == EM_OK) {
        *out = v;
        v = (em_array){0};
    }
    em_array_release(&v);
    em_array_release(res);
    return s;
}

/* ---- composed reductions ------------------------------------------------------ */

/* x = x / d in place, d a 0-d value of dtype vdt (NumPy's true_divide by a count). */
static em_status em__divide(em_array *x, double d, em_dtype vdt) {
    em_array c = {0}, q = {0};
    EM_CHECK(em_array_empty(&c, vdt, 0, NULL, em_array_device(x)));
    em_status s = em_fill(&c, EM_FLOAT64, &d);
    const em_array *in[2] = {x, &c};
    if (s == EM_OK) s = em_ufunc(EM_OP_DIVIDE, 2, in, EM_NDTYPES, &q);
    em_array_release(&c);
    if (s == EM_OK && q.dtype != x->dtype)
        s = em_copy_into(x, &q);
    else if (s == EM_OK) {
        em_array_release(x);
        *x = q;
        q = (em_array){0};
    }
    em_array_release(&q);
    return s;
}

/* The sum of r->a in dtype dt (float16 through float32 and rounded back). */
static em_status em__sum_as(const em__red *r, em_dtype dt, em_array *res) {
    em_array raw;
    EM_CHECK(em__raw(r, EM_RED_SUM, em__loop(dt), &raw));
    if (raw.dtype == dt) {
        *res = raw;
        return EM_OK;
    }
    em_status s = em_astype(&raw, dt, res);
    em_array_release(&raw);
    return s;
}

/* mean: the sum in the accumulate dtype, divided by the count. */
static em_status em__mean(const em__red *r, em_dtype dt, em_array *res, em_dtype *rdt) {
    em_dtype in = r->a->dtype;
    em_dtype acc = dt != EM_NDTYPES ? dt : em__is_int(in) ? EM_FLOAT64 : in;
    *rdt = acc;
    if (acc == EM_FLOAT16) acc = EM_FLOAT32; /* NumPy's is_float16_result */
    EM_CHECK(em__sum_as(r, acc, res));
    em_dtype div = em__is_int(acc) ? EM_FLOAT64 : em_real_for(acc);
    em_status s = em__divide(res, (double)r->count, div);
    if (s != EM_OK) em_array_release(res);
    return s;
}

/* x = |x|^2 as NumPy's _var does (real: x*x; complex: re*re + im*im, real). */
static em_status em__abs2(em_array *x) {
    const em_array *in[2] = {x, x};
    if (em_dtype_get(x->dtype)->kind != 'c') return em_ufunc(EM_OP_MULTIPLY, 2, in, EM_NDTYPES, x);
    em_array re = {0}, im = {0}, sq = {0}, res = {0};
    em_status s = em_view_component(x, 0, &re);
    if (s == EM_OK) s = em_view_component(x, 1, &im);
    const em_array *rr[2] = {&re, &re}, *ii[2] = {&im, &im};
    if (s == EM_OK) s = em_ufunc(EM_OP_MULTIPLY, 2, rr, EM_NDTYPES, &res);
    if (s == EM_OK) s = em_ufunc(EM_OP_MULTIPLY, 2, ii, EM_NDTYPES, &sq);
    const em_array *ab[2] = {&res, &sq};
    if (s == EM_OK) s = em_ufunc(EM_OP_ADD, 2, ab, EM_NDTYPES, &res);
    em_array_release(&re), em_array_release(&im), em_array_release(&sq);
    if (s != EM_OK) {
        em_array_release(&res);
        return s;
    }
    em_array_release(x);
    *x = res;
    return EM_OK;
}

/* x = |a - mean(a)|^2 (the mean kept as dims of 1), NumPy's _var up to its last sum. */
static em_status em__sq_dev(const em__red *r, em_dtype dt, em_array *x) {
    em_dtype in = r->a->dtype;
    em_dtype mdt = dt != EM_NDTYPES ? dt : em__is_int(in) ? EM_FLOAT64 : in;
    em_array m = {0}, mk = {0};
    int64_t shape[EM_MAXDIMS];
    int nd = em__result_shape(r, true, shape);
    em_status s = em__sum_as(r, mdt, &m);
    if (s == EM_OK)
        s = em__divide(&m, (double)r->count, em__is_int(mdt) ? EM_FLOAT64 : em_real_for(mdt));
    if (s == EM_OK) s = em_view_reshape(&m, nd, shape, &mk);
    const em_array *in2[2] = {r->a, &mk};
    if (s == EM_OK) s = em_ufunc(EM_OP_SUBTRACT, 2, in2, EM_NDTYPES, x);
    if (s == EM_OK) s = em__abs2(x);
    em_array_release(&m), em_array_release(&mk);
    return s;
}

/* var: mean (keepdims), deviations, |.|^2, sum, / max(n - ddof, 0). */
static em_status em__var(const em__red *r, em_dtype dt, double ddof, bool take_sqrt,
                         em_array *res) {
    em_array x = {0}, v = {0};
    em_status s = em__sq_dev(r, dt, &x);
    em__red r2 = *r;
    r2.a = &x, r2.fused = NULL; /* x holds its values */
    if (s == EM_OK)
        s = em__sum_as(&r2, dt != EM_NDTYPES && !em__is_int(dt) ? em_real_for(dt) : x.dtype, &v);
    double n = (double)r->count - ddof;
    if (s == EM_OK)
        s = em__divide(&v, n > 0 ? n : 0.0,
                       em__is_int(v.dtype) ? EM_FLOAT64 : em_real_for(v.dtype));
    const em_array *vv[1] = {&v};
    em_array sq = {0};
    if (s == EM_OK && take_sqrt) s = em_ufunc(EM_OP_SQRT, 1, vv, EM_NDTYPES, &sq);
    if (s == EM_OK && take_sqrt) em_array_release(&v), v = sq;
    em_array_release(&x);
    if (s != EM_OK) {
        em_array_release(&v);
        return s;
    }
    *res = v;
    return EM_OK;
}

/* ---- em_reduce ------------------------------------------------------------------ */

/* NumPy's TypeError for a dtype the op has no loop for. */
static em_status em__no_loop(em_reduce_op op, em_dtype dt) {
    return em_error(EM_ETYPE, "ufunc '%s' not supported for the input types (%s)",
                    em__ufunc_name(op), em_dtype_get(dt)->name);
}

/* The backend op, loop dtype and result dtype of the simple reductions. */
static em_status em__simple_types(em__red *r, em_dtype dt, em_reduce_op *bop, em_dtype *loop,
                                  em_dtype *res) {
    em_dtype in = r->a->dtype;
    *bop = r->op;
    switch (r->op) {
    case EM_RED_SUM:
    case EM_RED_PROD:
        *res = dt != EM_NDTYPES ? dt : em__sum_dtype(in);
        *loop = em__loop(*res);
        break;
    case EM_RED_MIN:
    case EM_RED_MAX:
        /* dtype= (or the loop out= resolves) casts the input first, as NumPy's */
        *res = dt != EM_NDTYPES ? dt : in;
        *loop = em__loop(*res);
        break;
    case EM_RED_ARGMIN:
    case EM_RED_ARGMAX:
        *res = EM_INT64;
        *loop = em__loop(in);
        break;
    case EM_RED_ANY: *bop = EM_RED_MAX, *res = *loop = EM_BOOL; break;
    case EM_RED_ALL: *bop = EM_RED_MIN, *res = *loop = EM_BOOL; break;
    case EM_RED_LOGICAL_XOR:
        if (dt != EM_NDTYPES && dt != EM_BOOL) return em__no_loop(r->op, dt);
        *res = *loop = EM_BOOL; /* the truth of any dtype */
        break;
    case EM_RED_BITWISE_AND:
    case EM_RED_BITWISE_OR:
    case EM_RED_BITWISE_XOR:
    case EM_RED_GCD:
    case EM_RED_LCM: {
        /* NumPy's loops: integers, and bool for the bitwise ops; the loop is
         * dtype= where given (the input is cast to it). */
        *res = *loop = dt != EM_NDTYPES ? dt : in;
        char k = em_dtype_get(*loop)->kind, ki = em_dtype_get(in)->kind;
        bool bits = r->op != EM_RED_GCD && r->op != EM_RED_LCM;
        if (!(k == 'i' || k == 'u' || (bits && k == 'b')) || !(ki == 'i' || ki == 'u' || ki == 'b'))
            return em__no_loop(r->op, in);
        break;
    }
    default: return em_error(EM_EVALUE, "unknown reduction %d", (int)r->op);
    }
    return EM_OK;
}

static em_status em__no_identity(const em__red *r) {
    bool arg = r->op == EM_RED_ARGMIN || r->op == EM_RED_ARGMAX;
    if (r->count != 0) return EM_OK;
    /* (LCM: NumPy's identity is None) */
    if (arg)
        return em_error(EM_EVALUE, "attempt to get %s of an empty sequence", em__red_names[r->op]);
    return em_error(EM_EVALUE, "zero-size array to reduction operation %s which has no identity",
                    em__ufunc_name(r->op));
}

/* Validate and set up r; arg ops over all axes of an N-d array work on a flat view (copy). */
static em_status em__prepare(em__red *r, em_reduce_op op, const em_array *a, int naxes,
                             const int *axes) {
    if ((unsigned)op >= EM_NREDUCE || op == EM_RED_CUMSUM || op == EM_RED_CUMPROD)
        return em_error(EM_EVALUE, "em_reduce: %d is not a reduction (scans use em_scan)", (int)op);
    EM_CHECK(em__check_input(a));
    r->op = op;
    r->a = a;
    EM_CHECK(em__axes(r, naxes, axes));
    bool arg = op == EM_RED_ARGMIN || op == EM_RED_ARGMAX;
    if (arg && naxes > 1)
        return em_error(EM_EVALUE, "%s takes one axis or None", em__red_names[op]);
    return EM_OK;
}

/* A C-contiguous copy of a in its own dtype.  The values are copied as
 * unsigned integers of the same size: exact for every dtype, and no
 * conversion loop is needed (float16 has none). */
static em_status em__copy_contig(const em_array *a, em_array *out) {
    static const em_dtype bits[17] = {
        [1] = EM_UINT8, [2] = EM_UINT16, [4] = EM_UINT32, [8] = EM_UINT64};
    em_array v = *a;
    em_dtype as = bits[EM_DTYPE_SIZE(a->dtype)];
    if (as != EM_BOOL) v.dtype = as; /* EM_BOOL (0) marks "no such size": keep the dtype */
    em_array c;
    EM_CHECK(em_astype(&v, EM_NDTYPES, &c));
    c.dtype = a->dtype;
    *out = c;
    return EM_OK;
}

/* A C-order flat view of a, copying only when a is not C-contiguous. */
static em_status em__flatten(const em_array *a, em_array *keep, em_array *flat) {
    int64_t n = em_array_size(a);
    em_status s = EM_OK;
    if (em_array_is_c_contiguous(a))
        em_array_view(keep, a);
    else
        s = em__copy_contig(a, keep);
    if (s == EM_OK) s = em_view_reshape(keep, 1, &n, flat);
    return s;
}

/* argmin/argmax over every axis: the index into the C-order flattened array. */
static em_status em__arg_flat(em__red *r, em_dtype loop, em_array *res) {
    const em_array *a = r->a;
    em_array c = {0}, f = {0};
    int64_t n = em_array_size(a);
    em_status s = em__flatten(a, &c, &f);
    /* f views a's buffer: a fused tree still gives its values. */
    em__red r1 = {.op = r->op,
                  .a = &f,
                  .naxes = 1,
                  .axes = {0},
                  .red = {true},
                  .count = n,
                  .fused = em_array_is_c_contiguous(a) ? r->fused : NULL};
    if (s == EM_OK) s = em__raw(&r1, r->op, loop, res);
    em_array_release(&c), em_array_release(&f);
    return s;
}

/* The dtype NumPy gives the result of op (before any out= cast). */
static em_dtype em__result_dtype(em_reduce_op op, em_dtype in, em_dtype dt) {
    switch (op) {
    case EM_RED_SUM:
    case EM_RED_PROD: return dt != EM_NDTYPES ? dt : em__sum_dtype(in);
    case EM_RED_MIN:
    case EM_RED_MAX: return dt != EM_NDTYPES ? dt : in;
    case EM_RED_ANY:
    case EM_RED_ALL:
    case EM_RED_LOGICAL_XOR: return EM_BOOL;
    case EM_RED_BITWISE_AND:
    case EM_RED_BITWISE_OR:
    case EM_RED_BITWISE_XOR:
    case EM_RED_GCD:
    case EM_RED_LCM: return dt != EM_NDTYPES ? dt : in;
    case EM_RED_MEAN: return dt != EM_NDTYPES ? dt : em__is_int(in) ? EM_FLOAT64 : in;
    case EM_RED_VAR:
    case EM_RED_STD: {
        /* A complex input gives a real result, but a complex dtype= is the
         * result's dtype (NumPy sums the real squares with dtype=). */
        if (dt != EM_NDTYPES && em_dtype_get(dt)->kind == 'c') return dt;
        em_dtype m = dt != EM_NDTYPES ? dt : em__is_int(in) ? EM_FLOAT64 : in;
        return em__is_int(m) ? m : em_real_for(m);
    }
    default: return EM_INT64; /* ARGMIN, ARGMAX, COUNT_NONZERO */
    }
}

/* Compute the reduction into res (kept dims, any dtype; em__finish casts). */
static em_status em__compute(em__red *r, em_dtype dt, double ddof, em_array *res) {
    em_reduce_op op = r->op;
    em_dtype rdt;
    if (op == EM_RED_MEAN) return em__mean(r, dt, res, &rdt);
    if (op == EM_RED_VAR || op == EM_RED_STD) return em__var(r, dt, ddof, op == EM_RED_STD, res);
    if (op == EM_RED_COUNT_NONZERO) return em__raw(r, EM_RED_COUNT_NONZERO, EM_INT64, res);
    em_reduce_op bop = op;
    em_dtype loop = r->a->dtype;
    EM_CHECK(em__simple_types(r, dt, &bop, &loop, &rdt));
    bool arg = op == EM_RED_ARGMIN || op == EM_RED_ARGMAX;
    if (arg || op == EM_RED_MIN || op == EM_RED_MAX || op == EM_RED_LCM)
        EM_CHECK(em__no_identity(r));
    /* NumPy's lcm.reduce starts from the first element (no identity): one
     * element is itself, where lcm(1, x) would be |x|.  OR with 0 is the
     * value, fused producer or not. */
    if (op == EM_RED_LCM && r->count == 1) bop = EM_RED_BITWISE_OR;
    bool flat = arg && r->naxes == r->a->ndim && r->a->ndim != 1;
    return flat ? em__arg_flat(r, loop, res) : em__raw(r, bop, loop, res);
}

/* ---- out= of another dtype ------------------------------------------------------ */

/* NumPy resolves a reduction's loop against out= (out's dtype is the loop's first operand):
 * without dtype= the promotion of the input's and out's dtypes runs it and the result is cast
 * into out unsafely, so sum(uint64, out=float64) and max(int64, out=uint64) run in float64.
 * An integer promotion gives the values of the input's own loop (wrapping commutes with the
 * cast), so only an inexact one, other than own, changes the loop: returned, else EM_NDTYPES. */
static em_dtype em__out_loop(em_dtype own, em_dtype in, const em_array *out) {
    em_dtype p = em_promote(in, out->dtype);
    char k = em_dtype_get(p)->kind;
    return (k == 'f' || k == 'c') && p != own ? p : EM_NDTYPES;
}

/* out = out / d in float64 (complex128) and cast back: NumPy's true_divide of out by its
 * intp count with casting='unsafe'. */
static em_status em__divide_into(em_array *out, double d) {
    em_array c = {0}, q = {0};
    EM_CHECK(em_array_empty(&c, EM_FLOAT64, 0, NULL, em_array_device(out)));
    em_status s = em_fill(&c, EM_FLOAT64, &d);
    const em_array *in[2] = {out, &c};
    if (s == EM_OK) s = em_ufunc(EM_OP_DIVIDE, 2, in, EM_NDTYPES, &q);
    if (s == EM_OK) s = em_copy_into(out, &q);
    em_array_release(&c), em_array_release(&q);
    return s;
}

/* mean into out= as NumPy's _mean: the sum in dtype= (float64 for integers and bool, float32
 * for float16, else the loop out resolves) cast into out, then divided there.  Where out
 * cannot hold the sum the mean is lost as in NumPy (mean([60000, 60000], out=float16) is
 * inf; into an int8 the sum wraps before the division). */
static em_status em__mean_into(const em__red *r, em_dtype dt, bool keepdims, em_array *out) {
    em_dtype in = r->a->dtype;
    em_dtype loop = dt != EM_NDTYPES   ? dt
                    : em__is_int(in)   ? EM_FLOAT64
                    : in == EM_FLOAT16 ? EM_FLOAT32
                                       : em_promote(in, out->dtype);
    em_array sum;
    EM_CHECK(em__sum_as(r, loop, &sum));
    EM_CHECK(em__finish(r, &sum, loop, keepdims, out));
    return em__divide_into(out, (double)r->count);
}

/* var/std into out= as NumPy's _var: the mean and squared deviations as without out, their
 * sum in the loop out resolves (float64 for integer input) cast into out, divided there by
 * max(n - ddof, 0); std then takes sqrt in out's own loop, whose result an integer or bool
 * out refuses (same_kind, NumPy's UFuncTypeError: raised here before any work). */
static em_status em__var_into(const em__red *r, em_dtype dt, double ddof, bool take_sqrt,
                              bool keepdims, em_array *out) {
    em_dtype o = out->dtype;
    if (take_sqrt && em__is_int(o)) {
        size_t sz = EM_DTYPE_SIZE(o);
        em_dtype f = sz == 1 ? EM_FLOAT16 : sz == 2 ? EM_FLOAT32 : EM_FLOAT64;
        return em_error(EM_ETYPE,
                        "Cannot cast ufunc 'sqrt' output from dtype('%s') to dtype('%s') with "
                        "casting rule 'same_kind'",
                        em_dtype_get(f)->name, em_dtype_get(o)->name);
    }
    em_array x = {0}, v = {0};
    em_status s = em__sq_dev(r, dt, &x);
    em_dtype loop = dt != EM_NDTYPES          ? dt
                    : em__is_int(r->a->dtype) ? EM_FLOAT64
                                              : em_promote(x.dtype, o);
    em__red r2 = *r;
    r2.a = &x, r2.fused = NULL; /* x holds its values */
    if (s == EM_OK) s = em__sum_as(&r2, loop, &v);
    em_array_release(&x);
    if (s != EM_OK) return s;
    EM_CHECK(em__finish(r, &v, loop, keepdims, out));
    double n = (double)r->count - ddof;
    EM_CHECK(em__divide_into(out, n > 0 ? n : 0.0));
    if (!take_sqrt) return EM_OK;
    const em_array *oo[1] = {out};
    em_array q = {0};
    s = em_ufunc(EM_OP_SQRT, 1, oo, EM_NDTYPES, &q);
    if (s == EM_OK) s = em_copy_into(out, &q);
    em_array_release(&q);
    return s;
}

em_status em_reduce(em_reduce_op op, const em_array *a, int naxes, const int *axes, bool keepdims,
                    em_dtype dt, double ddof, em_array *out) {
    return em__reduce_fused(op, a, naxes, axes, keepdims, dt, ddof, NULL, out);
}

em_status em__reduce_fused(em_reduce_op op, const em_array *a, int naxes, const int *axes,
                           bool keepdims, em_dtype dt, double ddof, const struct em_node *root,
                           em_array *out) {
    em__red r;
    EM_CHECK(em__prepare(&r, op, a, naxes, axes));
    r.fused = root;
    if (dt != EM_NDTYPES && (unsigned)dt >= EM_NDTYPES) return em_error(EM_ETYPE, "invalid dtype");
    if (!out) return em_error(EM_EVALUE, "em_reduce: out must not be NULL");
    em_dtype rdt = em__result_dtype(op, a->dtype, dt);
    /* the reductions whose out= NumPy resolves as a loop operand (the rest: same_kind) */
    bool numpys = op == EM_RED_SUM || op == EM_RED_PROD || op == EM_RED_MIN || op == EM_RED_MAX ||
                  op == EM_RED_MEAN || op == EM_RED_VAR || op == EM_RED_STD;
    if (out->buf) {
        int64_t shape[EM_MAXDIMS];
        int nd = em__result_shape(&r, keepdims, shape);
        EM_CHECK(em__check_out(em__red_names[op], out, nd, shape, rdt, numpys));
    }
    if (out->buf && numpys) {
        bool mean_f16 = op == EM_RED_MEAN && a->dtype == EM_FLOAT16 && dt == EM_NDTYPES;
        if (op == EM_RED_MEAN && (out->dtype != rdt || mean_f16))
            return em__mean_into(&r, dt, keepdims, out);
        if ((op == EM_RED_VAR || op == EM_RED_STD) && out->dtype != rdt)
            return em__var_into(&r, dt, ddof, op == EM_RED_STD, keepdims, out);
        em_dtype loop =
            op == EM_RED_MEAN || op == EM_RED_VAR || op == EM_RED_STD || dt != EM_NDTYPES
                ? EM_NDTYPES
                : em__out_loop(rdt, a->dtype, out);
        if (loop != EM_NDTYPES) dt = rdt = loop;
    }
    em_array res = {0};
    EM_CHECK(em__compute(&r, dt, ddof, &res));
    return em__finish(&r, &res, rdt, keepdims, out);
}

/* ---- em_scan ---------------------------------------------------------------------- */

em_status em_scan(em_reduce_op op, const em_array *a, int axis, em_dtype dt, em_array *out) {
    if (op != EM_RED_CUMSUM && op != EM_RED_CUMPROD)
        return em_error(EM_EVALUE, "em_scan: op %d is not CUMSUM or CUMPROD", (int)op);
    EM_CHECK(em__check_input(a));
    if (!out) return em_error(EM_EVALUE, "em_scan: out must not be NULL");
    em_dtype rdt = dt != EM_NDTYPES ? dt : em__sum_dtype(a->dtype);
    if ((unsigned)rdt >= EM_NDTYPES) return em_error(EM_ETYPE, "invalid dtype");
    em_array src = {0}, res = {0}, c = {0};
    em_status s = EM_OK;
    if (axis == INT_MIN) {
        /* Over the flattened array (C order). */
        s = em__flatten(a, &c, &src);
        axis = 0;
    } else {
        s = em__norm_axis(axis, a->ndim, &axis);
        if (s == EM_OK) em_array_view(&src, a);
    }
    if (s == EM_OK && out->buf) {
        const char *nm = em__red_names[op];
        s = em__check_out(nm, out, src.ndim, src.shape, rdt, true);
        /* cumsum(uint64, out=float64) adds in float64, as NumPy's accumulate */
        em_dtype loop = dt != EM_NDTYPES ? EM_NDTYPES : em__out_loop(rdt, a->dtype, out);
        if (loop != EM_NDTYPES) rdt = loop;
    }
    /* The backend writes float16 itself: NumPy rounds each partial sum. */
    if (s == EM_OK) s = em_array_empty(&res, rdt, src.ndim, src.shape, em_array_device(a));
    if (s == EM_OK && em_array_size(&res) > 0) s = em_algo_scan(em__be(a), op, &src, axis, &res);
    em__red r = {.a = &src};
    if (s == EM_OK)
        s = em__finish(&r, &res, rdt, false, out);
    else
        em_array_release(&res);
    em_array_release(&src), em_array_release(&c);
    return s;
}
