/* The CPU block interpreter: evaluates an elementwise node tree.
 *
 * The evaluation shape is split into an outer index and an inner (last,
 * after coalescing) dimension, and the inner dimension into blocks of
 * EM_BLOCK elements.  For each block the tree runs bottom-up as a short
 * program of precompiled typed loops over per-thread scratch buffers, so
 * no full-size temporary exists whatever the depth of the tree (numexpr's
 * idea).  Contiguous leaves of the right dtype are read in place and the
 * root writes straight into the output where it can.  Blocks are spread
 * over the thread pool.
 */
#include "backend/cpu/cast.h"
#include "backend/cpu/loops.h"
#include "host/threadpool.h"
#include "backend/backend.h"
#include "core/core.h"
#include "mem/hostpool.h"

#include <string.h>

#ifndef EM_BLOCK
#define EM_BLOCK 4096 /* elements per block: overridable for experiments (-DEM_BLOCK=...) */
#endif
#define EM_MAXLEAVES 64
#define EM_MAXNODES 256
#define EM_SLOT 16 /* bytes per element of a scratch buffer: the widest dtype */
#define EM_GRAIN_ELEMS 32768
#define EM_SCRATCH_BYTES (1 << 20) /* per thread: deep fused trees get shorter blocks */
#define EM_MAXSHARED 16            /* shared subexpressions computed once per block */

typedef struct em__plan {
    const em_node *root;
    em_array *out;
    int nleaves, nnodes;
    const em_node *leaves[EM_MAXLEAVES];
    int ndim; /* after coalescing; the last is the inner dimension */
    int64_t shape[EM_MAXDIMS];
    int64_t strides[EM_MAXLEAVES + 1][EM_MAXDIMS]; /* leaves, then out */
    char *data[EM_MAXLEAVES + 1];
    int64_t inner, nchunks, items, blocklen, block; /* block: elements per block */
    int nbufs;
    int nseen, nshared;
    const em_node *seen[EM_MAXNODES];
    const em_node *shared[EM_MAXSHARED]; /* op nodes read by more than one parent */
} em__plan;

typedef struct em__block {
    const em__plan *p;
    char *arena;
    int next;
    int64_t n;                   /* elements in this block */
    char *ptr[EM_MAXLEAVES + 1]; /* leaves and out at this block's start */
    int nmemo;                   /* values of shared nodes in this block */
    const em_node *memo_node[2 * EM_MAXSHARED];
    em_dtype memo_want[2 * EM_MAXSHARED];
    const void *memo_val[2 * EM_MAXSHARED];
    int64_t memo_step[2 * EM_MAXSHARED];
} em__block;

em_dtype em__loop_out_dtype(em_op op, em_dtype loop) {
    switch (em_op_get(op)->resolver) {
    case EM_RES_CMP:
    case EM_RES_BOOL:
    case EM_RES_PRED: return EM_BOOL;
    case EM_RES_REAL: return em_real_for(loop);
    default: return loop;
    }
}

static em_dtype em__input_dtype(const em_node *nd, int i) {
    return nd->op == EM_OP_WHERE && i == 0 ? EM_BOOL : nd->loop;
}

/* ---- planning ------------------------------------------------------------ */

static bool em__is_shared(const em__plan *p, const em_node *nd) {
    for (int i = 0; i < p->nshared; i++)
        if (p->shared[i] == nd) return true;
    return false;
}

static em_status em__collect(em__plan *p, const em_node *nd) {
    if (++p->nnodes > EM_MAXNODES)
        return em_error(EM_EUNSUPPORTED, "expression has more than %d nodes", EM_MAXNODES);
    if (nd->nin == 0) {
        for (int i = 0; i < p->nleaves; i++)
            if (p->leaves[i] == nd) return EM_OK;
        if (p->nleaves == EM_MAXLEAVES)
            return em_error(EM_EUNSUPPORTED, "expression reads more than %d arrays", EM_MAXLEAVES);
        p->leaves[p->nleaves++] = nd;
        return EM_OK;
    }
    /* Every visit counts its subtree: scratch is sized for the tree without
     * the memo, so a value computed again (another dtype wanted) still fits. */
    bool again = false;
    for (int i = 0; i < p->nseen && !again; i++) again = p->seen[i] == nd;
    if (!again)
        p->seen[p->nseen++] = nd;
    else if (!em__is_shared(p, nd) && p->nshared < EM_MAXSHARED)
        p->shared[p->nshared++] = nd;
    if (nd->op != EM_OP_COPY && !em_cpu_loops[nd->op][nd->loop])
        return em_error(EM_EUNSUPPORTED, "ufunc '%s' has no CPU loop for dtype %s yet",
                        em_op_get(nd->op)->name, em_dtype_get(nd->loop)->name);
    for (int i = 0; i < nd->nin; i++) EM_CHECK(em__collect(p, nd->in[i]));
    return EM_OK;
}

/* Order the dimensions so that the innermost is the one where the operands
 * step least in memory (summed over all of them), keeping C order on ties:
 * transposed or F-ordered inputs then read contiguously in the inner loop
 * even when the output is C-ordered.  Insertion sort: ndim is small. */
static void em__order_dims(em__plan *p, int nops) {
    int64_t cost[EM_MAXDIMS];
    for (int d = 0; d < p->ndim; d++) {
        cost[d] = 0;
        for (int k = 0; k < nops; k++)
            cost[d] += p->strides[k][d] < 0 ? -p->strides[k][d] : p->strides[k][d];
    }
    for (int i = 1; i < p->ndim; i++) {
        for (int j = i; j > 0 && cost[j - 1] < cost[j]; j--) {
            int64_t t = cost[j];
            cost[j] = cost[j - 1];
            cost[j - 1] = t;
            t = p->shape[j];
            p->shape[j] = p->shape[j - 1];
            p->shape[j - 1] = t;
            for (int k = 0; k < nops; k++) {
                t = p->strides[k][j];
                p->strides[k][j] = p->strides[k][j - 1];
                p->strides[k][j - 1] = t;
            }
        }
    }
}

/* Drop size-1 dims and merge neighbours that are contiguous for every operand. */
static void em__coalesce(em__plan *p, int nops) {
    int nd = 0;
    for (int i = 0; i < p->ndim; i++) {
        if (p->shape[i] == 1) continue;
        if (nd > 0) {
            bool merge = true;
            for (int k = 0; k < nops && merge; k++)
                merge = p->strides[k][nd - 1] == p->strides[k][i] * p->shape[i];
            if (merge) {
                p->shape[nd - 1] *= p->shape[i];
                for (int k = 0; k < nops; k++) p->strides[k][nd - 1] = p->strides[k][i];
                continue;
            }
        }
        p->shape[nd] = p->shape[i];
        for (int k = 0; k < nops; k++) p->strides[k][nd] = p->strides[k][i];
        nd++;
    }
    if (nd == 0) {
        p->shape[0] = 1;
        for (int k = 0; k < nops; k++) p->strides[k][0] = 0;
        nd = 1;
    }
    p->ndim = nd;
}

static em_status em__plan_make(em__plan *p, const em_node *root, em_array *out) {
    p->root = root;
    p->out = out;
    p->nleaves = p->nnodes = p->nseen = p->nshared = 0;
    EM_CHECK(em__collect(p, root));
    p->ndim = out->ndim;
    memcpy(p->shape, out->shape, sizeof(int64_t) * (size_t)out->ndim);
    for (int k = 0; k < p->nleaves; k++) {
        EM_CHECK(em__broadcast_strides(p->leaves[k]->leaf, out, p->strides[k]));
        p->data[k] = p->leaves[k]->leaf->data;
    }
    memcpy(p->strides[p->nleaves], out->strides, sizeof(int64_t) * (size_t)out->ndim);
    p->data[p->nleaves] = out->data;
    em__order_dims(p, p->nleaves + 1);
    em__coalesce(p, p->nleaves + 1);
    p->inner = p->shape[p->ndim - 1];
    p->nbufs = 3 * p->nnodes + 2 * p->nleaves + 2;
    /* A fused tree needs a scratch buffer per node: keep a thread's scratch
     * near EM_SCRATCH_BYTES (cache-sized, and small beside the arrays). */
    p->block = EM_BLOCK;
    while (p->block > 512 && (int64_t)p->nbufs * p->block * EM_SLOT > EM_SCRATCH_BYTES)
        p->block /= 2;
    p->blocklen = p->inner < p->block ? p->inner : p->block;
    p->nchunks = (p->inner + p->block - 1) / p->block;
    p->items = em_array_size(out) / p->inner * p->nchunks;
    return EM_OK;
}

/* ---- running a block ----------------------------------------------------- */

static char *em__scratch(em__block *b) {
    return b->arena + (int64_t)(b->next++) * b->p->blocklen * EM_SLOT;
}

/* Convert n values (step 0: one value) of dtype from into dtype to: into
 * dest when given and the values are a full block, else a scratch buffer. */
static const void *em__convert(em__block *b, const void *v, em_dtype from, em_dtype to,
                               int64_t step, char *dest) {
    if (from == to) return v;
    char *dst = dest && step ? dest : em__scratch(b);
    em_cast_table[from][to](step ? b->n : 1, v, dst);
    return dst;
}

static const void *em__value(em__block *b, const em_node *nd, em_dtype want, int64_t *step,
                             char *dest);

static const void *em__leaf_value(em__block *b, const em_node *nd, em_dtype want, int64_t *step,
                                  char *dest) {
    const em__plan *p = b->p;
    int k = 0;
    while (p->leaves[k] != nd) k++;
    int64_t s = p->strides[k][p->ndim - 1];
    int size = EM_DTYPE_SIZE(nd->dtype);
    const char *src = b->ptr[k];
    *step = s != 0;
    if (s != 0 && s != size) {
        char *g = em__scratch(b);
        em_gather(b->n, size, src, s, g);
        src = g;
    }
    return em__convert(b, src, nd->dtype, want, *step, dest);
}

static const void *em__op_value(em__block *b, const em_node *nd, em_dtype want, int64_t *step,
                                char *dest) {
    if (nd->op == EM_OP_COPY) { /* identity: only the dtype conversions remain */
        const void *v = em__value(b, nd->in[0], nd->loop, step, NULL);
        return em__convert(b, v, nd->loop, want, *step, dest);
    }
    const void *ins[EM_NODE_MAXIN];
    int64_t steps[EM_NODE_MAXIN];
    for (int i = 0; i < nd->nin; i++)
        ins[i] = em__value(b, nd->in[i], em__input_dtype(nd, i), &steps[i], NULL);
    em_dtype raw = em__loop_out_dtype(nd->op, nd->loop);
    char *o = dest && raw == nd->dtype && nd->dtype == want ? dest : em__scratch(b);
    em_cpu_loops[nd->op][nd->loop](b->n, o, ins, steps);
    *step = 1;
    const void *v = em__convert(b, o, raw, nd->dtype, 1, NULL);
    return em__convert(b, v, nd->dtype, want, 1, dest);
}

/* A shared node's value is computed once per block and reused (the memo
 * holds pointers into this block's scratch, never reused within a block). */
static const void *em__value(em__block *b, const em_node *nd, em_dtype want, int64_t *step,
                             char *dest) {
    if (nd->nin == 0) return em__leaf_value(b, nd, want, step, dest);
    if (dest || !em__is_shared(b->p, nd)) return em__op_value(b, nd, want, step, dest);
    for (int i = 0; i < b->nmemo; i++)
        if (b->memo_node[i] == nd && b->memo_want[i] == want) {
            *step = b->memo_step[i];
            return b->memo_val[i];
        }
    const void *v = em__op_value(b, nd, want, step, NULL);
    if (b->nmemo < 2 * EM_MAXSHARED) {
        b->memo_node[b->nmemo] = nd, b->memo_want[b->nmemo] = want;
        b->memo_val[b->nmemo] = v, b->memo_step[b->nmemo++] = *step;
    }
    return v;
}

static void em__run_block(em__block *b, int64_t item) {
    const em__plan *p = b->p;
    int64_t outer = item / p->nchunks, start = (item % p->nchunks) * p->block;
    int nops = p->nleaves + 1, inner = p->ndim - 1;
    b->n = p->inner - start < p->block ? p->inner - start : p->block;
    for (int k = 0; k < nops; k++) b->ptr[k] = p->data[k] + start * p->strides[k][inner];
    for (int d = inner - 1; d >= 0; d--) {
        int64_t i = outer % p->shape[d];
        outer /= p->shape[d];
        for (int k = 0; k < nops; k++) b->ptr[k] += i * p->strides[k][d];
    }
    b->next = 0;
    b->nmemo = 0;
    em_array *out = p->out;
    int64_t os = p->strides[p->nleaves][inner], size = EM_DTYPE_SIZE(out->dtype);
    char *dst = b->ptr[p->nleaves];
    int64_t step;
    const char *v = em__value(b, p->root, out->dtype, &step, os == size ? dst : NULL);
    if (v == dst) return;
    if (step) {
        em_scatter(b->n, (int)size, v, dst, os);
    } else {
        for (int64_t i = 0; i < b->n; i++) memcpy(dst + i * os, v, (size_t)size);
    }
}

static void em__run_range(void *ctx, int64_t begin, int64_t end, int worker) {
    EM_UNUSED(worker);
    const em__plan *p = ctx;
    size_t bytes = (size_t)p->nbufs * (size_t)p->blocklen * EM_SLOT;
    em__block b = {.p = p, .arena = em_host_alloc(bytes)};
    if (!b.arena) return; /* checked by the caller with a trial allocation */
    for (int64_t it = begin; it < end; it++) em__run_block(&b, it);
    em_host_free(b.arena, bytes);
}

em_status em_cpu_eval(const em_node *root, em_array *out) {
    if (em_array_size(out) == 0) return EM_OK;
    em__plan p;
    EM_CHECK(em__plan_make(&p, root, out));
    size_t bytes = (size_t)p.nbufs * (size_t)p.blocklen * EM_SLOT;
    void *trial = em_host_alloc(bytes);
    if (!trial) return em_error(EM_ENOMEM, "out of host memory for %zu bytes of scratch", bytes);
    em_host_free(trial, bytes);
    int64_t grain = EM_GRAIN_ELEMS / p.blocklen + 1;
    em_parallel_for(p.items, grain, em__run_range, &p);
    return EM_OK;
}
