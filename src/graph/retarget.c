/* A pending expression moved to another device before it runs: what
 * device="auto" needs to place a whole lazy chain when it is evaluated
 * (docs/auto.md), rather than at its first op.
 *
 * The DAG is rebuilt node for node on the new device: each distinct leaf
 * (and each node evaluated already, whose value is a leaf from then on) is
 * copied there once, host scalars stay as they are (they join any device),
 * and each op node is made again over the new inputs with its own dtypes,
 * so the rebuilt expression evaluates to the values the old one would.
 * The old DAG is left untouched: other pending arrays may share its nodes. */
#include "graph/expr.h"

#include "core/core.h"

#include <stdlib.h>

/* Old node -> new node, for the nodes shared inside one DAG (a DAG that
 * passed em_expr_over_limit has at most EM_FUSE_MAXNODES of them). */
typedef struct {
    const em_expr *old[EM_FUSE_MAXNODES * 2];
    em_expr *neu[EM_FUSE_MAXNODES * 2];
    int n;
    /* Rows [r0, r1) of axis 0 only (rows: the root's ndim; 0: everything):
     * a leaf of that ndim and more than one row is sliced before its copy,
     * any other (broadcast along axis 0) is copied whole. */
    int rows;
    int64_t r0, r1;
} em__remap;

static bool em__leaf_same(const em_array *a, const em_array *b) {
    if (a->buf != b->buf || a->data != b->data || a->ndim != b->ndim || a->dtype != b->dtype)
        return false;
    for (int i = 0; i < a->ndim; i++)
        if (a->shape[i] != b->shape[i] || a->strides[i] != b->strides[i]) return false;
    return true;
}

static em_status em__retarget(const em_expr *e, em_device dev, em__remap *m, em_expr **out) {
    for (int i = 0; i < m->n; i++) {
        bool ready = em_expr_ready(e) && em_expr_ready(m->old[i]);
        if (m->old[i] == e || (ready && em__leaf_same(&m->old[i]->arr, &e->arr))) {
            em_expr_incref(m->neu[i]);
            *out = m->neu[i];
            return EM_OK;
        }
    }
    if (m->n == (int)(sizeof m->old / sizeof m->old[0]))
        return em_error(EM_EVALUE, "expression too large to move to another device");
    em_expr *ne;
    if (em_expr_ready(e) && em__host_scalar(&e->arr)) {
        em_expr_incref((em_expr *)e); /* a host scalar joins any device */
        ne = (em_expr *)e;
    } else if (em_expr_ready(e)) {
        em_array c, band;
        const em_array *src = &e->arr;
        if (m->rows && e->arr.ndim == m->rows && e->arr.shape[0] > 1) {
            em_index_item it = {.kind = EM_IX_SLICE, .start = m->r0, .stop = m->r1, .step = 1};
            EM_CHECK(em_view_index(&e->arr, 1, &it, &band));
            src = &band;
        }
        em_status cs = em_to_device(src, dev, &c);
        if (src == &band) em_array_release(&band);
        EM_CHECK(cs);
        em_array_set_auto(&c, em_array_is_auto(&e->arr)); /* a copy of auto data is auto */
        em_status s = em_expr_leaf(&c, &ne);
        em_array_release(&c);
        if (s != EM_OK) return s;
    } else {
        em_expr *in[EM_NODE_MAXIN] = {0};
        em_status s = EM_OK;
        for (int i = 0; i < e->nin && s == EM_OK; i++) s = em__retarget(e->in[i], dev, m, &in[i]);
        if (s == EM_OK) s = em_expr_op(e->op, e->nin, in, e->loop, e->dtype, &ne);
        for (int i = 0; i < e->nin; i++) em_expr_decref(in[i]);
        if (s != EM_OK) return s;
    }
    m->old[m->n] = e;
    m->neu[m->n++] = ne; /* the map's reference is dropped by the caller */
    em_expr_incref(ne);
    *out = ne;
    return EM_OK;
}

static em_status em__retarget_rows(const em_expr *e, em_device dev, int rows, int64_t r0,
                                   int64_t r1, em_expr **out) {
    em__remap *m = malloc(sizeof *m); /* ~3 KiB: not on a Python thread's stack */
    if (!m) return em_error(EM_ENOMEM, "out of host memory moving an expression");
    m->n = 0, m->rows = rows, m->r0 = r0, m->r1 = r1;
    em_status s = em__retarget(e, dev, m, out);
    for (int i = 0; i < m->n; i++) em_expr_decref(m->neu[i]);
    free(m);
    return s;
}

em_status em_expr_retarget(const em_expr *e, em_device dev, em_expr **out) {
    return em__retarget_rows(e, dev, 0, 0, 0, out);
}

em_status em_expr_retarget_rows(const em_expr *e, int64_t r0, int64_t r1, em_device dev,
                                em_expr **out) {
    if (e->ndim < 1 || r0 < 0 || r1 > e->shape[0] || r0 >= r1)
        return em_error(EM_EVALUE, "rows [%lld, %lld) of an expression of %lld rows", (long long)r0,
                        (long long)r1, (long long)(e->ndim ? e->shape[0] : 0));
    return em__retarget_rows(e, dev, e->ndim, r0, r1, out);
}

/* Bytes of the distinct arrays e reads that are not host scalars. */
static int64_t em__input_bytes(const em_expr *e, const em_array **seen, int *n) {
    if (em_expr_ready(e)) {
        if (em__host_scalar(&e->arr)) return 0;
        for (int i = 0; i < *n; i++)
            if (em__leaf_same(seen[i], &e->arr)) return 0;
        if (*n < EM_FUSE_MAXNODES * 2) seen[(*n)++] = &e->arr;
        return em_array_nbytes(&e->arr);
    }
    int64_t b = 0;
    for (int i = 0; i < e->nin; i++) b += em__input_bytes(e->in[i], seen, n);
    return b;
}

int64_t em_expr_input_bytes(const em_expr *e) {
    const em_array *seen[EM_FUSE_MAXNODES * 2];
    int n = 0;
    return em__input_bytes(e, seen, &n);
}

/* Ops whose cost per element is many arithmetic ops' on a CPU (a libm call
 * or its vector form): the exponentials, logarithms, trigonometric and
 * hyperbolic functions and their inverses, pow, cbrt and the hypot/logaddexp
 * family.  sqrt is not one (one instruction on every CPU Ember runs on). */
static bool em__transcendental(em_op op) {
    if (op >= EM_OP_EXP && op <= EM_OP_ARCTANH) return true;
    switch (op) {
    case EM_OP_POWER:
    case EM_OP_ARCTAN2:
    case EM_OP_HYPOT:
    case EM_OP_LOGADDEXP:
    case EM_OP_LOGADDEXP2:
    case EM_OP_CBRT: return true;
    default: return false;
    }
}

static void em__op_counts(const em_expr *e, const em_expr **seen, int *n, int *ops, int *tr) {
    if (em_expr_ready(e)) return;
    for (int i = 0; i < *n; i++)
        if (seen[i] == e) return; /* a shared node is evaluated once */
    if (*n < EM_FUSE_MAXNODES * 2) seen[(*n)++] = e;
    *ops += 1;
    *tr += em__transcendental(e->op);
    for (int i = 0; i < e->nin; i++) em__op_counts(e->in[i], seen, n, ops, tr);
}

void em_expr_op_counts(const em_expr *e, int *ops, int *transcendental) {
    const em_expr *seen[EM_FUSE_MAXNODES * 2];
    int n = 0;
    *ops = *transcendental = 0;
    em__op_counts(e, seen, &n, ops, transcendental);
}

bool em_expr_all_auto(const em_expr *e) {
    if (em_expr_ready(e)) return em__host_scalar(&e->arr) || em_array_is_auto(&e->arr);
    for (int i = 0; i < e->nin; i++)
        if (!em_expr_all_auto(e->in[i])) return false;
    return true;
}
