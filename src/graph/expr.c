/* Lazy elementwise expressions (see expr.h): building the DAG, lowering it
 * to an em_node tree, evaluating it, and the statistics and log of
 * evaluations. */
#include "graph/expr.h"

#include "backend/backend.h"
#include "codegen/run.h"
#include "codegen/render.h"
#include "core/core.h"
#include "core/spare.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

_Static_assert(EM_FUSE_MAXLEAVES < EM_KMAXOPS, "a fused tree must fit the renderer's operands");
_Static_assert(EM_FUSE_MAXNODES <= EM_KMAXNODES, "a fused tree must fit the renderer's nodes");

/* ---- building ---------------------------------------------------------------- */

static em_spare em__expr_spare; /* a lazy small op makes one node and frees one */

/* A node with every scalar field zeroed but not its arrays (arr's shape
 * and strides, shape): the callers fill the first ndim entries, and a node
 * is made per lazy op, so zeroing 850 bytes showed in a small op's cost. */
static em_expr *em__expr_new(void) {
    em_expr *e = em_spare_alloc(&em__expr_spare, sizeof *e);
    if (!e) return NULL;
    atomic_init(&e->refcount, 1);
    e->op = EM_OP_COPY;
    e->loop = e->dtype = (em_dtype)0;
    e->nin = 0;
    for (int i = 0; i < EM_NODE_MAXIN; i++) e->in[i] = NULL;
    e->arr.buf = NULL, e->arr.data = NULL, e->arr.ndim = 0, e->arr.flags = 0;
    e->dev = (em_device){0};
    e->ndim = e->depth = e->nnodes = e->nleaves = 0;
    e->consumed = false;
    return e;
}

em_status em_expr_leaf(const em_array *a, em_expr **out) {
    if (!a || !a->buf) return em_error(EM_EVALUE, "em_expr_leaf needs a set array");
    EM_CHECK(em_array_live(a));
    em_expr *e = em__expr_new();
    if (!e) return em_error(EM_ENOMEM, "out of host memory for an expression node");
    em_array_view(&e->arr, a);
    e->op = EM_OP_COPY;
    e->loop = e->dtype = a->dtype;
    e->dev = em_array_device(a);
    e->ndim = a->ndim;
    memcpy(e->shape, a->shape, sizeof(int64_t) * (size_t)a->ndim);
    e->nnodes = 1;
    *out = e;
    return EM_OK;
}

static bool em__same_view(const em_array *a, const em_array *b);

bool em_expr_leaf_of(const em_expr *e, const em_array *a) {
    return e->nin == 0 && em__same_view(&e->arr, a);
}

bool em_expr_ready(const em_expr *e) { return e->arr.buf != NULL; }

bool em_expr_consumed(const em_expr *e) { return e->consumed; }
void em_expr_consume(em_expr *e) { e->consumed = true; }

/* The depth and size a node contributes to its parent: a ready node is a leaf. */
static int em__depth(const em_expr *e) { return em_expr_ready(e) ? 0 : e->depth; }
static int em__size(const em_expr *e) { return em_expr_ready(e) ? 1 : e->nnodes; }
static int em__nleaves_bound(const em_expr *e) { return em_expr_ready(e) ? 1 : e->nleaves; }

em_status em_expr_op(em_op op, int nin, em_expr *const *in, em_dtype loop, em_dtype dtype,
                     em_expr **out) {
    if (nin < 1 || nin > EM_NODE_MAXIN || !em_op_get(op) || em_op_get(op)->nin != nin)
        return em_error(EM_EVALUE, "em_expr_op: op %d does not take %d inputs", (int)op, nin);
    int ndims[EM_NODE_MAXIN];
    const int64_t *shapes[EM_NODE_MAXIN];
    em_device dev = in[0]->dev;
    for (int i = 0; i < nin; i++) /* host scalars join any device (em__host_scalar) */
        if (!(em_expr_ready(in[i]) && em__host_scalar(&in[i]->arr))) dev = in[i]->dev;
    for (int i = 0; i < nin; i++) {
        ndims[i] = in[i]->ndim, shapes[i] = in[i]->shape;
        bool hs = em_expr_ready(in[i]) && em__host_scalar(&in[i]->arr);
        if (!hs && (in[i]->dev.kind != dev.kind || in[i]->dev.id != dev.id))
            return em_error(EM_EDEVICE, "expression inputs are on different devices");
    }
    int nd;
    int64_t shape[EM_MAXDIMS];
    EM_CHECK(em_broadcast_shapes(nin, ndims, shapes, &nd, shape));
    em_expr *e = em__expr_new();
    if (!e) return em_error(EM_ENOMEM, "out of host memory for an expression node");
    e->op = op, e->loop = loop, e->dtype = dtype, e->nin = nin;
    e->dev = dev;
    e->ndim = nd;
    memcpy(e->shape, shape, sizeof(int64_t) * (size_t)nd);
    e->nnodes = 1;
    for (int i = 0; i < nin; i++) {
        em_expr_incref(in[i]);
        in[i]->consumed = true;
        e->in[i] = in[i];
        e->depth = em__depth(in[i]) + 1 > e->depth ? em__depth(in[i]) + 1 : e->depth;
        e->nnodes += em__size(in[i]);
        e->nleaves += em__nleaves_bound(in[i]);
    }
    *out = e;
    return EM_OK;
}

void em_expr_incref(em_expr *e) {
    atomic_fetch_add_explicit(&e->refcount, 1, memory_order_relaxed);
}

void em_expr_decref(em_expr *e) {
    if (!e || atomic_fetch_sub_explicit(&e->refcount, 1, memory_order_acq_rel) != 1) return;
    for (int i = 0; i < e->nin; i++) em_expr_decref(e->in[i]);
    em_array_release(&e->arr);
    em_spare_free(&em__expr_spare, e);
}

em_status em_expr_placeholder(const em_expr *e, em_array *out) {
    em_buffer *b;
    EM_CHECK(em__buffer_wrap(e->dev, NULL, 0, NULL, NULL, &b));
    out->buf = b, out->data = NULL;
    out->dtype = e->dtype;
    out->ndim = e->ndim;
    out->flags = EM_WRITEABLE;
    memcpy(out->shape, e->shape, sizeof(int64_t) * (size_t)e->ndim);
    em__contig_strides(e->ndim, e->shape, EM_DTYPE_SIZE(e->dtype), out->strides);
    return EM_OK;
}

bool em_expr_fusable(const em_array *a) { return a->buf && a->buf->fusable; }

void em_expr_set_value(em_expr *e, const em_array *v) {
    if (em_expr_ready(e)) return;
    em_array_view(&e->arr, v);
}

/* ---- walking the DAG ------------------------------------------------------------ */

static bool em__same_view(const em_array *a, const em_array *b) {
    if (a->buf != b->buf || a->data != b->data || a->ndim != b->ndim || a->dtype != b->dtype)
        return false;
    for (int i = 0; i < a->ndim; i++) /* a loop: memcmp's call cost more for a few dims */
        if (a->shape[i] != b->shape[i] || a->strides[i] != b->strides[i]) return false;
    return true;
}

/* Whether two leaves read the same values: the same view, or host scalars
 * of one dtype and value (x * 0.5 + 0.5 passes 0.5 once). */
static bool em__same_leaf(const em_array *a, const em_array *b) {
    if (em__same_view(a, b)) return true;
    return a->dtype == b->dtype && em__host_scalar(a) && em__host_scalar(b) &&
           !memcmp(a->data, b->data, EM_DTYPE_SIZE(a->dtype));
}

/* Collect the distinct arrays read (up to cap). Returns the count, cap + 1 when over. */
static int em__leaves(const em_expr *e, const em_array **seen, int n, int cap) {
    if (n > cap) return n;
    if (em_expr_ready(e)) {
        for (int i = 0; i < n; i++)
            if (em__same_leaf(seen[i], &e->arr)) return n;
        if (n < cap) seen[n] = &e->arr;
        return n + 1;
    }
    for (int i = 0; i < e->nin && n <= cap; i++) n = em__leaves(e->in[i], seen, n, cap);
    return n;
}

int em_expr_nleaves(const em_expr *e, int limit) {
    const em_array *seen[EM_FUSE_MAXNODES + 1];
    if (limit > EM_FUSE_MAXNODES) limit = EM_FUSE_MAXNODES;
    return em__leaves(e, seen, 0, limit);
}

/* Bytes of the packed kernel argument of the strided form (render.h). */
static int64_t em__param_bytes(int nops, int ndim) {
    return 8 * ((int64_t)nops + 1 + ndim + (int64_t)nops * ndim);
}

const char *em_expr_over_limit(em_expr *e) {
    if (em_expr_ready(e)) return NULL;
    if (e->depth > EM_FUSE_MAXDEPTH) return "limit: depth";
    if (e->nnodes > EM_FUSE_MAXNODES) return "limit: tree size";
    /* The sum of the inputs' counts bounds the distinct leaves: walk the
     * DAG only when that bound is over the limit (x = x * 0.5 + 1 in a loop
     * walks once every few iterations, not at every op). */
    if (e->nleaves > EM_FUSE_MAXLEAVES) e->nleaves = em_expr_nleaves(e, EM_FUSE_MAXLEAVES);
    int nl = e->nleaves;
    if (nl > EM_FUSE_MAXLEAVES) return "limit: distinct inputs";
    if (em__param_bytes(nl + 1, e->ndim) > EM_FUSE_MAXPARAM) return "limit: parameter bytes";
    return NULL;
}

bool em_expr_reads(const em_expr *e, const em_array *a) {
    if (em_expr_ready(e)) return em_arrays_overlap(&e->arr, a);
    for (int i = 0; i < e->nin; i++)
        if (em_expr_reads(e->in[i], a)) return true;
    return false;
}

/* ---- lowering to an em_node tree --------------------------------------------------- */

/* A snapshot of a DAG as an em_node tree, so that the evaluation needs no
 * lock.  Its leaves read the DAG's own arrays (a ready node's array never
 * changes, and whoever evaluates holds the root, so they live as long as
 * the plan) or, for a part of the root (nix > 0), views cut from them and
 * retained here.  Leaves reading the same view are one node, and so are
 * structurally equal op nodes (x*x + x*x reads x once and, on the CPU,
 * computes x*x once per block). */
typedef struct em__lower {
    int nnodes, nleaves, nviews;
    em_node nodes[EM_FUSE_MAXNODES];
    em_array leaves[EM_FUSE_MAXNODES]; /* the views made, nviews of them */
    int nix; /* the part evaluated: root[ix[0], ..., ix[nix - 1]]; 0: all */
    em_index_item ix[EM_MAXDIMS];
    const em_expr *root;
} em__lower;

/* One plan kept for reuse: a plan is large (56 KB) and every evaluation
 * makes one, so a lone small op would pay a big malloc and free. */
static _Atomic(em__lower *) em__spare;

static em__lower *em__lower_alloc(void) {
    em__lower *L = atomic_exchange_explicit(&em__spare, NULL, memory_order_acquire);
    return L ? L : malloc(sizeof *L);
}

static void em__lower_free(em__lower *L) {
    for (int i = 0; i < L->nviews; i++) em_array_release(&L->leaves[i]);
    em__lower *none = NULL;
    if (!atomic_compare_exchange_strong_explicit(&em__spare, &none, L, memory_order_release,
                                                 memory_order_relaxed))
        free(L);
}

/* The view a leaf reads: broadcast to the root's shape and cut to the part
 * evaluated (rows, or a reduction's band: em_expr_eval_index). */
static em_status em__leaf_view(em__lower *L, const em_array *a, em_array *v) {
    em_array b = {0};
    EM_CHECK(em_view_broadcast_to(a, L->root->ndim, L->root->shape, &b));
    em_status s = em_view_index(&b, L->nix, L->ix, v);
    em_array_release(&b);
    return s;
}

/* The array a leaf node reads: a's own, or a view of the part evaluated
 * kept in L (NULL and an error when out of room). */
static const em_array *em__leaf_array(em__lower *L, const em_array *a, em_status *s) {
    /* a pending expression made before a device reset reads lost memory */
    if ((*s = em_array_live(a)) != EM_OK) return NULL;
    if (L->nix == 0) return a;
    if (L->nviews == EM_FUSE_MAXNODES) {
        *s = em_error(EM_EUNSUPPORTED, "expression has more than %d leaves", EM_FUSE_MAXNODES);
        return NULL;
    }
    em_array *v = &L->leaves[L->nviews];
    *v = (em_array){0};
    if ((*s = em__leaf_view(L, a, v)) != EM_OK) return NULL;
    L->nviews++;
    return v;
}

static em_status em__lower_node(em__lower *L, const em_expr *e, const em_node **out) {
    if (em_expr_ready(e)) {
        em_status s = EM_OK;
        const em_array *v = em__leaf_array(L, &e->arr, &s);
        if (!v) return s;
        for (int i = 0; i < L->nnodes; i++)
            if (L->nodes[i].nin == 0 && em__same_leaf(L->nodes[i].leaf, v)) {
                *out = &L->nodes[i];
                return EM_OK; /* a view made for it stays until the plan goes */
            }
        if (L->nnodes == EM_FUSE_MAXNODES)
            return em_error(EM_EUNSUPPORTED, "expression has more than %d nodes", EM_FUSE_MAXNODES);
        em_node *n = &L->nodes[L->nnodes++];
        em_node_leaf(n, v);
        L->nleaves++;
        *out = n;
        return EM_OK;
    }
    em_node nd = {.op = e->op, .loop = e->loop, .dtype = e->dtype, .nin = e->nin};
    for (int i = 0; i < e->nin; i++) EM_CHECK(em__lower_node(L, e->in[i], &nd.in[i]));
    for (int i = 0; i < L->nnodes; i++) {
        const em_node *m = &L->nodes[i];
        if (m->nin == nd.nin && m->op == nd.op && m->loop == nd.loop && m->dtype == nd.dtype &&
            !memcmp(m->in, nd.in, sizeof nd.in)) {
            *out = m;
            return EM_OK;
        }
    }
    if (L->nnodes == EM_FUSE_MAXNODES)
        return em_error(EM_EUNSUPPORTED, "expression has more than %d nodes", EM_FUSE_MAXNODES);
    L->nodes[L->nnodes] = nd;
    *out = &L->nodes[L->nnodes++];
    return EM_OK;
}

static em_status em__lower_make_ix(const em_expr *e, int nix, const em_index_item *ix,
                                   em__lower **out, const em_node **root) {
    em__lower *L = em__lower_alloc();
    if (!L) return em_error(EM_ENOMEM, "out of host memory for an expression plan");
    L->nnodes = L->nleaves = L->nviews = 0;
    L->nix = nix, L->root = e;
    if (nix > 0) memcpy(L->ix, ix, sizeof(em_index_item) * (size_t)nix);
    em_status s = em__lower_node(L, e, root);
    if (s != EM_OK) {
        em__lower_free(L);
        return s;
    }
    *out = L;
    return EM_OK;
}

/* Rows [r0, r1) of axis 0 (r1 < 0: all of e). */
static em_status em__lower_make(const em_expr *e, int64_t r0, int64_t r1, em__lower **out,
                                const em_node **root) {
    em_index_item it = {.kind = EM_IX_SLICE, .start = r0, .stop = r1, .step = 1};
    return em__lower_make_ix(e, r1 < 0 ? 0 : 1, &it, out, root);
}

struct em_expr_job {
    em__lower *lower; /* NULL when there is nothing to run */
    const em_node *root;
    em_array out;
    em_device dev;
};

static em_spare em__job_spare;

/* ---- statistics and the log --------------------------------------------------------- */

#define EM__NKEYS 4096
static uint64_t em__keys[EM__NKEYS]; /* open addressing; 0 is empty */
static em_fuse_stats em__stats;
static atomic_flag em__stats_lock = ATOMIC_FLAG_INIT;

/* Count the structural kernel key of root into out: the key the CUDA
 * backend compiles by, so "no recompilation" is testable on any device.
 * h is its hash when the backend gave one (eval's key), else 0. */
static void em__note_key(const em_node *root, const em_array *out, int nops, bool count,
                         uint64_t h) {
    if (!h) {
        em_kplan plan;
        em_sbuf key = {0};
        if (em_kplan_make(root, out, &plan) == EM_OK) {
            em_kplan_key(&plan, &key);
            if (!key.oom && key.s) h = em_key_hash(key.s, key.len);
        }
        em_sbuf_free(&key);
    }
    while (atomic_flag_test_and_set_explicit(&em__stats_lock, memory_order_acquire)) {}
    if (count) {
        em__stats.evals++;
        em__stats.ops += nops;
    }
    for (size_t i = h % EM__NKEYS, tries = 0; h && tries < EM__NKEYS;
         i = (i + 1) % EM__NKEYS, tries++) {
        if (em__keys[i] == h) break;
        if (em__keys[i] == 0) {
            em__keys[i] = h;
            em__stats.kernels++;
            break;
        }
    }
    atomic_flag_clear_explicit(&em__stats_lock, memory_order_release);
}

static void em__log(const em__lower *L, em_device dev, const char *reason) {
    if (!reason || em_debug_level() < 1) return;
    int ops = L->nnodes - L->nleaves;
    fprintf(stderr, "ember: eval %d op%s, %d input%s, %s:%d (reason: %s)\n", ops,
            ops == 1 ? "" : "s", L->nleaves, L->nleaves == 1 ? "" : "s",
            em_device_kind_name(dev.kind), dev.id, reason);
}

void em__fuse_note_chunk(void) {
    while (atomic_flag_test_and_set_explicit(&em__stats_lock, memory_order_acquire)) {}
    em__stats.chunks++;
    atomic_flag_clear_explicit(&em__stats_lock, memory_order_release);
}

const char *em__reduce_name(em_reduce_op op) {
    static const char *const names[EM_NREDUCE] = {
#define EM_REDUCE(E, name) #name,
#include "ember/reductions.def"
#undef EM_REDUCE
    };
    return (unsigned)op < EM_NREDUCE ? names[op] : "?";
}

void em__fuse_log_reduce(const em_expr *e, em_reduce_op op) {
    em__lower *L = NULL;
    const em_node *root = NULL;
    if (em__lower_make(e, 0, -1, &L, &root) != EM_OK) return;
    if (em_debug_level() >= 1) {
        char reason[64];
        snprintf(reason, sizeof reason, "reduction %s, fused", em__reduce_name(op));
        em__log(L, e->dev, reason);
    }
    while (atomic_flag_test_and_set_explicit(&em__stats_lock, memory_order_acquire)) {}
    em__stats.evals++;
    em__stats.ops += L->nnodes - L->nleaves;
    atomic_flag_clear_explicit(&em__stats_lock, memory_order_release);
    em__lower_free(L);
}

void em_fuse_stats_get(em_fuse_stats *s) {
    while (atomic_flag_test_and_set_explicit(&em__stats_lock, memory_order_acquire)) {}
    *s = em__stats;
    atomic_flag_clear_explicit(&em__stats_lock, memory_order_release);
}

/* ---- evaluation ---------------------------------------------------------------------- */

static em_status em__run(const em_expr *e, int nix, const em_index_item *ix, const char *reason,
                         em_array *out) {
    em__lower *L = NULL;
    const em_node *root = NULL;
    EM_CHECK(em__lower_make_ix(e, nix, ix, &L, &root));
    em__log(L, e->dev, reason);
    uint64_t h = 0;
    em_status s = em_algo_eval(em__backend(e->dev.kind), root, out, &h);
    /* Bands of a fused reduction (no reason) are counted once, by the reduction. */
    if (s == EM_OK && reason) em__note_key(root, out, L->nnodes - L->nleaves, true, h);
    em__lower_free(L);
    return s;
}

/* Evaluate e's pending op inputs and keep their values, so that e itself
 * reads at most nin arrays: the way out for an expression over what one
 * evaluation can take (more distinct inputs than a generated kernel has
 * operands, more nodes than a plan holds).  Its inputs were each within
 * the limits when they were built.  Caller holds the planner's lock. */
static em_status em__settle_inputs(em_expr *e) {
    for (int i = 0; i < e->nin; i++) {
        em_expr *c = e->in[i];
        if (em_expr_ready(c) || c->nin == 0) continue;
        em_array v = {0};
        EM_CHECK(em_expr_eval(c, "limit: inputs evaluated first", &v));
        em_expr_set_value(c, &v);
        em_array_release(&v);
    }
    return EM_OK;
}

em_status em_expr_begin(const em_expr *e, em_expr_job **job) {
    em_expr_job *j = em_spare_alloc(&em__job_spare, sizeof *j);
    if (!j) return em_error(EM_ENOMEM, "out of host memory for an evaluation");
    em_array *res = &j->out; /* built in place: an em_array is 540 bytes */
    res->buf = NULL, res->data = NULL;
    em_status s = EM_OK;
    if (em_expr_ready(e))
        em_array_view(res, &e->arr);
    else
        s = em_array_empty(res, e->dtype, e->ndim, e->shape, e->dev);
    em__lower *L = NULL;
    const em_node *root = NULL;
    /* The backends size their plans by the expanded tree (a node read
     * twice counts twice), and the planner's tree-size limit is checked
     * after the op that crosses it: where(c, x, x) over inputs just under
     * the limit is three times over it.  Such a tree is split here, its
     * inputs first, instead of reaching the user as "more than N nodes". */
    bool big = e->nnodes > EM_FUSE_MAXNODES;
    if (s == EM_OK && !em_expr_ready(e) && em_array_size(res) && !big)
        s = em__lower_make(e, 0, -1, &L, &root);
    if (e->nin && !em_expr_ready(e) &&
        ((s == EM_OK && big && em_array_size(res)) || s == EM_EUNSUPPORTED ||
         (s == EM_OK && L && L->nleaves > EM_FUSE_MAXLEAVES))) {
        if (L) em__lower_free(L), L = NULL;
        s = em__settle_inputs((em_expr *)e); /* the lock is held: see em_expr_begin's contract */
        if (s == EM_OK) s = em__lower_make(e, 0, -1, &L, &root);
    }
    if (s != EM_OK) {
        em_array_release(res);
        em_spare_free(&em__job_spare, j);
        return s;
    }
    j->lower = L, j->root = root, j->dev = e->dev;
    *job = j;
    return EM_OK;
}

em_status em_expr_run(em_expr_job *j, const char *reason, em_array *out) {
    em_status s = EM_OK;
    if (j->lower) {
        em__log(j->lower, j->dev, reason);
        uint64_t h = 0;
        s = em_algo_eval(em__backend(j->dev.kind), j->root, &j->out, &h);
        if (s == EM_OK)
            em__note_key(j->root, &j->out, j->lower->nnodes - j->lower->nleaves, reason != NULL, h);
        em__lower_free(j->lower);
    }
    if (s == EM_OK)
        em_array_assign(out, &j->out);
    else
        em_array_release(&j->out);
    em_spare_free(&em__job_spare, j);
    return s;
}

void em_expr_job_free(em_expr_job *j) {
    if (!j) return;
    if (j->lower) em__lower_free(j->lower);
    em_array_release(&j->out);
    em_spare_free(&em__job_spare, j);
}

em_status em_expr_eval(const em_expr *e, const char *reason, em_array *out) {
    em_expr_job *j;
    EM_CHECK(em_expr_begin(e, &j));
    return em_expr_run(j, reason, out);
}

em_status em__expr_reduce_tree(const em_expr *e, em_reduce_op op, int naxes, const int *axes,
                               bool keepdims, em_dtype dt, double ddof, em_array *out) {
    em__lower *L = NULL;
    const em_node *root = NULL;
    em_array ph = {0};
    EM_CHECK(em_expr_placeholder(e, &ph));
    em_status s = em__lower_make(e, 0, -1, &L, &root);
    if (s == EM_OK) {
        s = em__reduce_fused(op, &ph, naxes, axes, keepdims, dt, ddof, root, out);
        em__lower_free(L);
    }
    em_array_release(&ph);
    return s;
}

em_status em_expr_eval_rows(const em_expr *e, int64_t r0, int64_t r1, em_array *out) {
    if (e->ndim < 1 || r0 < 0 || r1 > e->shape[0] || r0 >= r1)
        return em_error(EM_EVALUE, "em_expr_eval_rows: rows [%lld, %lld) outside the expression",
                        (long long)r0, (long long)r1);
    if (em_expr_ready(e)) {
        em_index_item it = {.kind = EM_IX_SLICE, .start = r0, .stop = r1, .step = 1};
        em_array v = {0};
        EM_CHECK(em_view_index(&e->arr, 1, &it, &v));
        em_status s = em_copy_into(out, &v);
        em_array_release(&v);
        return s;
    }
    em_index_item it = {.kind = EM_IX_SLICE, .start = r0, .stop = r1, .step = 1};
    return em__run(e, 1, &it, NULL, out);
}

em_status em_expr_eval_index(const em_expr *e, int nix, const em_index_item *ix, em_array *out) {
    if (em_expr_ready(e) || nix < 1 || nix > e->ndim)
        return em_error(EM_EVALUE, "em_expr_eval_index: %d items for a %s %d-d expression", nix,
                        em_expr_ready(e) ? "ready" : "pending", e->ndim);
    return em__run(e, nix, ix, NULL, out);
}
