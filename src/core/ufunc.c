/* Elementwise operations through the op table: resolve dtypes, broadcast,
 * handle `out` and aliasing, then hand a node tree to the device's backend. */
#include "backend/backend.h"
#include "codegen/run.h"
#include "core/core.h"
#include "ember/fusion.h" /* em_ufunc_plan is public there */

#include <string.h>

static const em_op_info em__ops[EM_NOPS] = {
#define EM_OP(E, name, nin, res, kinds, spell) {#name, nin, EM_RES_##res, kinds, spell},
#include "ember/ops.def"
#undef EM_OP
};

const em_op_info *em_op_get(em_op op) { return (unsigned)op < EM_NOPS ? &em__ops[op] : NULL; }

em_op em_op_from_name(const char *name) {
    for (int i = 0; i < EM_NOPS; i++)
        if (strcmp(em__ops[i].name, name) == 0) return (em_op)i;
    return EM_NOPS;
}

/* float16 has no loops: it computes in float32 and rounds on the way out. */
static em_dtype em__widen16(em_dtype dt) { return dt == EM_FLOAT16 ? EM_FLOAT32 : dt; }

em_status em_op_resolve(em_op op, em_dtype promoted, em_dtype *loop, em_dtype *out) {
    const em_op_info *info = em_op_get(op);
    if (!info) return em_error(EM_EVALUE, "unknown op %d", (int)op);
    em_dtype l = promoted, o = promoted;
    switch (info->resolver) {
    case EM_RES_FLOAT: l = o = em_float_for(promoted); break;
    case EM_RES_TRUEDIV:
        if (em_dtype_kindbit(promoted) & (EM_KB | EM_KI | EM_KU)) l = o = EM_FLOAT64;
        break;
    case EM_RES_CMP:
    case EM_RES_PRED: o = EM_BOOL; break;
    case EM_RES_BOOL: l = o = EM_BOOL; break;
    case EM_RES_REAL: o = em_real_for(promoted); break;
    default:
        /* Ops marked EM_KB8 compute bool in int8, as NumPy does. */
        if (promoted == EM_BOOL && !(info->kinds & EM_KB) && (info->kinds & EM_KB8))
            l = o = EM_INT8;
        break;
    }
    if (l == EM_BOOL && (op == EM_OP_SUBTRACT || op == EM_OP_NEGATIVE))
        return em_error(EM_ETYPE,
                        "numpy boolean %s, the `-` operator, is not supported, use %s "
                        "instead.",
                        info->name,
                        op == EM_OP_SUBTRACT
                            ? "the bitwise_xor, the `^` operator, or the logical_xor function"
                            : "the `~` operator or the logical_not function");
    if (!(info->kinds & em_dtype_kindbit(l)) && info->resolver != EM_RES_BOOL)
        return em_error(EM_ETYPE, "ufunc '%s' not supported for the input type %s", info->name,
                        em_dtype_get(promoted)->name);
    /* nextafter steps in float16's own ulps: it has a float16 loop. */
    *loop = op == EM_OP_NEXTAFTER ? l : em__widen16(l);
    *out = o;
    return EM_OK;
}

/* A 0-d host array of at most 8 bytes: device kernels take it by value
 * (render.h, class 'P'), so it may join arrays of any device. */
bool em__host_scalar(const em_array *a) {
    return a && a->buf && a->buf->device.kind == EM_CPU && a->ndim == 0 &&
           EM_DTYPE_SIZE(a->dtype) <= 8;
}

static em_status em__same_device(int nin, const em_array *const *in, const em_array *out,
                                 em_device *dev) {
    em_device d = em_array_device(in[0]);
    for (int i = 0; i <= nin; i++) { /* the first array that is not a host scalar decides */
        const em_array *a = i < nin ? in[i] : out;
        if (a && a->buf && !em__host_scalar(a)) {
            d = em_array_device(a);
            break;
        }
    }
    for (int i = 0; i <= nin; i++) {
        const em_array *a = i < nin ? in[i] : out;
        if (!a || !a->buf || (i < nin && em__host_scalar(a))) continue;
        EM_CHECK(em_array_live(a));
        em_device e = em_array_device(a);
        if (e.kind != d.kind || e.id != d.id)
            return em_error(EM_EDEVICE, "arrays are on different devices: %s:%d and %s:%d",
                            em_device_kind_name(d.kind), d.id, em_device_kind_name(e.kind), e.id);
    }
    *dev = d;
    return EM_OK;
}

/* NumPy's loop search, in short: promote the inputs; for ops computed in
 * float each input first becomes its own smallest float, so arctan2(uint8,
 * int8) is float16 where promoting to int16 first would give float32. */
static em_status em__promote_inputs(em_op op, int nin, const em_array *const *in, em_dtype *p) {
    int first = op == EM_OP_WHERE ? 1 : 0;
    bool fl = em_op_get(op)->resolver == EM_RES_FLOAT;
    em_dtype d = fl ? em_float_for(in[first]->dtype) : in[first]->dtype;
    for (int i = first + 1; i < nin; i++)
        d = em_promote(d, fl ? em_float_for(in[i]->dtype) : in[i]->dtype);
    *p = d;
    return EM_OK;
}

/* Shape of the result: the inputs broadcast together (and with out, which
 * must then equal it). */
static em_status em__result_shape(int nin, const em_array *const *in, const em_array *out, int *nd,
                                  int64_t *shape) {
    int ndims[EM_NODE_MAXIN + 1];
    const int64_t *shapes[EM_NODE_MAXIN + 1];
    for (int i = 0; i < nin; i++) ndims[i] = in[i]->ndim, shapes[i] = in[i]->shape;
    int n = nin;
    if (out && out->buf) ndims[n] = out->ndim, shapes[n++] = out->shape;
    EM_CHECK(em_broadcast_shapes(n, ndims, shapes, nd, shape));
    if (out && out->buf &&
        (*nd != out->ndim || memcmp(shape, out->shape, sizeof(int64_t) * (size_t)*nd)))
        return em_error(EM_ESHAPE, "non-broadcastable output operand: the inputs broadcast to a "
                                   "larger shape than out has");
    return EM_OK;
}

static bool em__same_view(const em_array *a, const em_array *b) {
    if (a->data != b->data || a->ndim != b->ndim || a->dtype != b->dtype) return false;
    return !memcmp(a->shape, b->shape, sizeof(int64_t) * (size_t)a->ndim) &&
           !memcmp(a->strides, b->strides, sizeof(int64_t) * (size_t)a->ndim);
}

static em_status em__eval(const em_node *root, em_array *out) {
    return em_algo_eval(em__backend(em_array_device(out).kind), root, out, NULL);
}

/* Everything em_ufunc checks and resolves before it runs: shared with the
 * fusion planner (graph/expr.h), which builds the node instead of running it. */
static em_status em__ufunc_check(em_op op, int nin, const em_array *const *in, em_dtype promoted,
                                 const em_array *out, em_device *dev, em_dtype *loop, em_dtype *odt,
                                 int *nd, int64_t *shape) {
    const em_op_info *info = em_op_get(op);
    if (!info) return em_error(EM_EVALUE, "unknown op %d", (int)op);
    if (nin != info->nin)
        return em_error(EM_EVALUE, "ufunc '%s' takes %d inputs, got %d", info->name, info->nin,
                        nin);
    EM_CHECK(em__same_device(nin, in, out, dev));
    if (promoted == EM_NDTYPES) EM_CHECK(em__promote_inputs(op, nin, in, &promoted));
    EM_CHECK(em_op_resolve(op, promoted, loop, odt));
    return em__result_shape(nin, in, out, nd, shape);
}

em_status em_ufunc_plan(em_op op, int nin, const em_array *const *in, em_dtype promoted,
                        em_device *dev, em_dtype *loop, em_dtype *odt, int *nd, int64_t *shape) {
    return em__ufunc_check(op, nin, in, promoted, NULL, dev, loop, odt, nd, shape);
}

em_status em_ufunc(em_op op, int nin, const em_array *const *in, em_dtype promoted, em_array *out) {
    const em_op_info *info = em_op_get(op);
    em_device dev;
    em_dtype loop, odt;
    int nd;
    int64_t shape[EM_MAXDIMS];
    EM_CHECK(em__ufunc_check(op, nin, in, promoted, out, &dev, &loop, &odt, &nd, shape));
    bool given = out->buf != NULL;
    if (given && !(out->flags & EM_WRITEABLE))
        return em_error(EM_EVALUE, "output array is read-only");
    if (given && !em_can_cast_same_kind(odt, out->dtype))
        return em_error(EM_ETYPE,
                        "Cannot cast ufunc '%s' output from dtype('%s') to dtype('%s') with "
                        "casting rule 'same_kind'",
                        info->name, em_dtype_get(odt)->name, em_dtype_get(out->dtype)->name);
    em_array res, copies[EM_NODE_MAXIN]; /* no memset: 540 bytes each */
    res.buf = NULL, res.data = NULL;
    for (int i = 0; i < EM_NODE_MAXIN; i++) copies[i].buf = NULL, copies[i].data = NULL;
    em_node leaves[EM_NODE_MAXIN], root = {.op = op, .loop = loop, .dtype = odt, .nin = nin};
    em_status s = EM_OK;
    for (int i = 0; i < nin && s == EM_OK; i++) {
        const em_array *a = in[i];
        /* An input that overlaps out in another layout would be overwritten
         * before it is read: read a copy instead. */
        if (given && !em__same_view(a, out) && em_arrays_overlap(a, out)) {
            s = em_astype(a, EM_NDTYPES, &copies[i]);
            a = &copies[i];
        }
        em_node_leaf(&leaves[i], a);
        root.in[i] = &leaves[i];
    }
    if (s == EM_OK && !given) s = em_array_empty(&res, odt, nd, shape, dev);
    if (s == EM_OK) s = em__eval(&root, given ? out : &res);
    for (int i = 0; i < nin; i++) em_array_release(&copies[i]);
    if (s != EM_OK) {
        em_array_release(&res);
        return s;
    }
    if (!given) *out = res;
    return EM_OK;
}

/* Whether every element of a C-contiguous dst set to the host scalar src
 * (of dst's dtype) is one byte pattern of width 1, 2 or 4 repeated: then the
 * backend's memset fills it (em.zeros, em.ones(float32), x[...] = 0). */
static bool em__fill_pattern(const em_array *dst, const em_array *src, int *width, uint32_t *v) {
    int s = EM_DTYPE_SIZE(dst->dtype);
    if (src->dtype != dst->dtype || !em__host_scalar(src) || !em_array_is_c_contiguous(dst))
        return false;
    const unsigned char *b = (const unsigned char *)src->data;
    for (int w = 1; w <= 4 && w <= s; w *= 2) {
        bool rep = s % w == 0;
        for (int i = w; rep && i < s; i++) rep = b[i] == b[i - w];
        if (rep) {
            uint32_t x = 0;
            memcpy(&x, b, (size_t)w);
            *width = w, *v = x;
            return true;
        }
    }
    return false;
}

/* dst set by the backend's fill when it has one and the value allows
 * (em__fill_pattern): true with its status in *s, else false. */
static bool em__fill(em_array *dst, const em_array *src, em_status *s) {
    em_device d = em_array_device(dst);
    const em_backend *be = em__backend(d.kind);
    int width;
    uint32_t v;
    if (!be->fill || em_array_size(dst) == 0 || !em__fill_pattern(dst, src, &width, &v))
        return false;
    *s = be->fill(d.id, dst->data, (size_t)em_array_nbytes(dst) / (size_t)width, width, v);
    return true;
}

em_status em_copy_into(em_array *dst, const em_array *src) {
    if (!(dst->flags & EM_WRITEABLE))
        return em_error(EM_EVALUE, "assignment destination is read-only");
    EM_CHECK(em_array_live(dst));
    EM_CHECK(em_array_live(src));
    em_status filled;
    if (em__fill(dst, src, &filled)) return filled;
    em_device ds = em_array_device(dst), ss = em_array_device(src);
    em_array moved = {0};
    /* A host scalar goes to a device kernel by value (render.h, class 'P'):
     * em.zeros and x[...] = v then queue one kernel, not a synchronous copy
     * of the value to the device first. */
    if ((ds.kind != ss.kind || ds.id != ss.id) && !(ds.kind != EM_CPU && em__host_scalar(src))) {
        EM_CHECK(em_to_device(src, ds, &moved));
        src = &moved;
    }
    const em_array *in[1] = {src};
    em_array tmp = {0};
    em_status s = EM_OK;
    if (em_arrays_overlap(src, dst) && !em__same_view(src, dst)) {
        s = em_astype(src, EM_NDTYPES, &tmp);
        in[0] = &tmp;
    }
    em_node leaf, root = {.op = EM_OP_COPY, .loop = in[0]->dtype, .dtype = in[0]->dtype, .nin = 1};
    em_node_leaf(&leaf, in[0]);
    root.in[0] = &leaf;
    if (s == EM_OK) {
        int nd;
        int64_t shape[EM_MAXDIMS];
        s = em__result_shape(1, in, dst, &nd, shape);
    }
    if (s == EM_OK) s = em__eval(&root, dst);
    em_array_release(&tmp);
    em_array_release(&moved);
    return s;
}

em_status em_astype(const em_array *a, em_dtype dt, em_array *out) {
    if (dt == EM_NDTYPES) dt = a->dtype;
    em_array res;
    EM_CHECK(em_array_empty(&res, dt, a->ndim, a->shape, em_array_device(a)));
    em_status s = em_copy_into(&res, a);
    if (s != EM_OK) {
        em_array_release(&res);
        return s;
    }
    *out = res;
    return EM_OK;
}

em_status em_fill(em_array *dst, em_dtype vdt, const void *value) {
    em_array v;
    em_device cpu = {EM_CPU, 0};
    EM_CHECK(em_array_wrap(&v, (void *)value, vdt, 0, NULL, NULL, cpu, NULL, NULL));
    v.flags = 0;
    em_status s = EM_OK;
    /* A device's fill gets the value in dst's dtype, cast on the host (the
     * same cast: the CPU's loops and the kernels share the scalar library):
     * one fill kernel per dtype rather than per pair, and none naming double
     * where a device has no fp64 (float32 zeros from a Python float). */
    _Alignas(16) unsigned char conv[16];
    if (dst && em_array_live(dst) == EM_OK && vdt != dst->dtype &&
        em_array_device(dst).kind != EM_CPU && em_dtype_get(dst->dtype)->size <= sizeof conv) {
        em_array c;
        s = em_array_wrap(&c, conv, dst->dtype, 0, NULL, NULL, cpu, NULL, NULL);
        if (s == EM_OK) s = em_copy_into(&c, &v);
        em_array_release(&v);
        if (s != EM_OK) return s;
        v = c;
        v.flags = 0;
    }
    s = em_copy_into(dst, &v);
    em_array_release(&v);
    return s;
}

em_status em_to_device(const em_array *a, em_device dev, em_array *out) {
    EM_CHECK(em_array_live(a));
    em_device src = em_array_device(a);
    if (src.kind == dev.kind && src.id == dev.id) return em_astype(a, EM_NDTYPES, out);
    em_array c = {0}, res = {0};
    em_status s = EM_OK;
    if (!em_array_is_c_contiguous(a))
        s = em_astype(a, EM_NDTYPES, &c);
    else
        em_array_view(&c, a);
    if (s == EM_OK) s = em_array_empty(&res, a->dtype, a->ndim, a->shape, dev);
    size_t n = (size_t)em_array_nbytes(a);
    if (s == EM_OK && n) {
        if (src.kind == EM_CPU)
            s = em_algo_from_host(em__backend(dev.kind), dev.id, res.data, c.data, n);
        else if (dev.kind == EM_CPU)
            s = em_algo_to_host(em__backend(src.kind), src.id, res.data, c.data, n);
        else {
            /* Between two devices: through the host. */
            em_array h = {0};
            em_device cpu = {EM_CPU, 0};
            s = em_to_device(&c, cpu, &h);
            if (s == EM_OK)
                s = em_algo_from_host(em__backend(dev.kind), dev.id, res.data, h.data, n);
            em_array_release(&h);
        }
    }
    em_array_release(&c);
    if (s != EM_OK) {
        em_array_release(&res);
        return s;
    }
    *out = res;
    return EM_OK;
}

em_status em_array_read(const em_array *a, void *host, size_t nbytes) {
    if (!em_array_is_c_contiguous(a) || (size_t)em_array_nbytes(a) != nbytes)
        return em_error(EM_EVALUE, "em_array_read needs a C-contiguous array of exactly %zu bytes",
                        nbytes);
    EM_CHECK(em_array_live(a));
    em_device d = em_array_device(a);
    return nbytes ? em_algo_to_host(em__backend(d.kind), d.id, host, a->data, nbytes) : EM_OK;
}

em_status em_array_write(em_array *a, const void *host, size_t nbytes) {
    if (!em_array_is_c_contiguous(a) || (size_t)em_array_nbytes(a) != nbytes)
        return em_error(EM_EVALUE, "em_array_write needs a C-contiguous array of exactly %zu bytes",
                        nbytes);
    EM_CHECK(em_array_live(a));
    em_device d = em_array_device(a);
    return nbytes ? em_algo_from_host(em__backend(d.kind), d.id, a->data, host, nbytes) : EM_OK;
}
