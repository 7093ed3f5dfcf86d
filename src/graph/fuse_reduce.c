/* A reduction that takes its elementwise producer in (see em_expr_reduce).
 *
 * CUDA and OpenCL: one kernel computes the producer per element inside the
 * reduction (em_rplan_fuse, codegen/render_reduce.c), in the unfused
 * kernel's order.
 *
 * CPU:
 * Bit identity with "evaluate, then reduce": the CPU reduction of a
 * C-contiguous array over a suffix of its axes is, per output element, a
 * function of that element's run alone when there are enough outputs for
 * every thread (reduce.c's inner mode, split over the outputs: K >= 4 x
 * threads).  Each band of rows is evaluated into scratch (C-contiguous, as
 * the full producer would be) with at least that many outputs, so each
 * band's results are the corresponding rows of the unfused result.  Other
 * A full reduction, and a suffix one with few outputs, is one pass too:
 * em_reduce runs on a placeholder whose values the CPU reduction fetches
 * band by band (backend/reduce_src.h), cut where the reduction of the
 * materialised input would combine them anyway; so is a reduced leading
 * axis with at most EM_FUSE_OUTER_KEPT kept values (bands of whole rows).
 * Other leading-axis reductions evaluate the producer and reduce it.
 */
#include "graph/expr.h"

#include "backend/reduce_src.h"
#include "host/threadpool.h"
#include "core/core.h"

#include <stdatomic.h>

#include <stdio.h>
#include <string.h>

/* Elements per band: its scratch (and the reduction's reads of it) stays in
 * a core's L2 cache. */
#define EM_FUSE_BAND_ELEMS ((int64_t)1 << 18)

/* The normalised reduced axes, if they are a suffix that leaves axis 0 kept. */
static bool em__suffix_axes(const em_expr *e, int naxes, const int *axes) {
    if (naxes < 1 || naxes >= e->ndim) return false;
    bool red[EM_MAXDIMS] = {false};
    for (int i = 0; i < naxes; i++) {
        int a = axes[i] < 0 ? axes[i] + e->ndim : axes[i];
        if (a < 1 || a >= e->ndim || red[a]) return false; /* bad axes: em_reduce's errors */
        red[a] = true;
    }
    for (int a = e->ndim - naxes; a < e->ndim; a++)
        if (!red[a]) return false;
    return true;
}

/* Rows of axis 0 per band, or 0 when fusing would change the result. */
static int64_t em__band_rows(const em_expr *e, int naxes) {
    int64_t kept = 1, row = 1;
    for (int i = 1; i < e->ndim; i++) {
        row *= e->shape[i];
        if (i < e->ndim - naxes) kept *= e->shape[i];
    }
    if (row == 0 || kept == 0 || e->shape[0] == 0) return 0;
    int64_t need = (4 * (int64_t)em_get_num_threads() + kept - 1) / kept;
    int64_t rows = EM_FUSE_BAND_ELEMS / row;
    if (rows < need) rows = need;
    if (rows > e->shape[0]) rows = e->shape[0];
    return rows * kept >= 4 * (int64_t)em_get_num_threads() ? rows : 0;
}

static int64_t em__fusable_rows(em_reduce_op op, const em_expr *e, int naxes, const int *axes) {
    if (em_expr_ready(e) || e->dev.kind != EM_CPU || (unsigned)op >= EM_NREDUCE ||
        op == EM_RED_CUMSUM || op == EM_RED_CUMPROD || !em__suffix_axes(e, naxes, axes))
        return 0;
    return em__band_rows(e, naxes);
}

/* CUDA and OpenCL (the same template, each dialect): the reduction kernel
 * computes its input from the tree (render_reduce.h)
 * for the reductions em_reduce hands to the backend unchanged: not VAR/STD
 * (composed from elementwise ops on the input), not ANY/ALL of non-bool
 * (cast first), not argmin/argmax over every axis of an N-d array (flattened). */
static bool em__gpu_fusable(em_reduce_op op, const em_expr *e, int naxes) {
    if (em_expr_ready(e) || (e->dev.kind != EM_CUDA && e->dev.kind != EM_OPENCL)) return false;
    int64_t n = 1;
    for (int i = 0; i < e->ndim; i++) n *= e->shape[i];
    if (n == 0) return false;
    switch (op) {
    case EM_RED_SUM:
    case EM_RED_PROD:
    case EM_RED_MIN:
    case EM_RED_MAX:
    case EM_RED_MEAN:
    case EM_RED_COUNT_NONZERO:
    case EM_RED_BITWISE_AND:
    case EM_RED_BITWISE_OR:
    case EM_RED_BITWISE_XOR:
    case EM_RED_LOGICAL_XOR:
    case EM_RED_GCD:
    case EM_RED_LCM: return true;
    case EM_RED_ANY:
    case EM_RED_ALL: return e->dtype == EM_BOOL;
    case EM_RED_ARGMIN:
    case EM_RED_ARGMAX: return naxes == 1 || e->ndim == 1;
    default: return false;
    }
}

static bool em__all_axes(const em_expr *e, int naxes, const int *axes) {
    if (naxes < 0) return true;
    if (naxes != e->ndim) return false;
    bool red[EM_MAXDIMS] = {false};
    for (int i = 0; i < naxes; i++) {
        int a = axes[i] < 0 ? axes[i] + e->ndim : axes[i];
        if (a < 0 || a >= e->ndim || red[a]) return false; /* bad axes: em_reduce's errors */
        red[a] = true;
    }
    return true;
}

/* Kept values per row of the CPU outer mode's whole-row bands (reduce.c's
 * EM_RCHUNK): a reduced leading axis fetches bands of rows up to this. */
#define EM_FUSE_OUTER_KEPT 8192

/* The reduced axes are a prefix (0 .. naxes-1) leaving at most
 * EM_FUSE_OUTER_KEPT kept values per row. */
static bool em__prefix_axes(const em_expr *e, int naxes, const int *axes) {
    if (naxes < 1 || naxes >= e->ndim) return false;
    bool red[EM_MAXDIMS] = {false};
    for (int i = 0; i < naxes; i++) {
        int a = axes[i] < 0 ? axes[i] + e->ndim : axes[i];
        if (a < 0 || a >= naxes || red[a]) return false;
        red[a] = true;
    }
    int64_t kept = 1;
    for (int i = naxes; i < e->ndim; i++) kept *= e->shape[i];
    return kept <= EM_FUSE_OUTER_KEPT;
}

/* CPU, the reductions that fetch e's values in bands (backend/reduce_src.h):
 * over every axis, or a suffix of them with too few outputs for the row bands
 * above, of a non-empty e; the reductions em_reduce hands to the backend
 * unchanged (as for CUDA; argmin/argmax of one axis: the N-d full ones are
 * flattened first); not float min/max (the vector kernel's lanes pick
 * between -0.0 and 0.0 by position, so a band could pick the other zero). */
static bool em__cpu_virtual_fusable(em_reduce_op op, const em_expr *e, int naxes, const int *axes) {
    if (em_expr_ready(e) || e->dev.kind != EM_CPU || e->ndim < 1) return false;
    int64_t n = 1;
    for (int i = 0; i < e->ndim; i++) n *= e->shape[i];
    bool full = em__all_axes(e, naxes, axes), lead = em__prefix_axes(e, naxes, axes);
    if (n == 0 ||
        !(full || lead || (em__suffix_axes(e, naxes, axes) && em__band_rows(e, naxes) == 0)))
        return false;
    char kind = em_dtype_get(e->dtype)->kind;
    if (lead) /* whole rows accumulated element by element: any order-free fold */
        return op != EM_RED_ARGMIN && op != EM_RED_ARGMAX && op != EM_RED_VAR && op != EM_RED_STD &&
               op != EM_RED_CUMSUM && op != EM_RED_CUMPROD &&
               ((op != EM_RED_ANY && op != EM_RED_ALL) || e->dtype == EM_BOOL);
    switch (op) {
    case EM_RED_SUM:
    case EM_RED_PROD:
    case EM_RED_MEAN:
    case EM_RED_COUNT_NONZERO:
    case EM_RED_BITWISE_AND:
    case EM_RED_BITWISE_OR:
    case EM_RED_BITWISE_XOR:
    case EM_RED_LOGICAL_XOR:
    case EM_RED_GCD:
    case EM_RED_LCM: return true;
    case EM_RED_MIN:
    case EM_RED_MAX: return kind != 'c' && (kind != 'f' || e->dtype == EM_FLOAT16);
    case EM_RED_ANY:
    case EM_RED_ALL: return e->dtype == EM_BOOL;
    case EM_RED_ARGMIN:
    case EM_RED_ARGMAX: return naxes == 1 || e->ndim == 1;
    default: return false;
    }
}

/* Evaluate the largest box e[i_0, ..., i_(j-1), a:b] that starts at flat
 * (C-order) element at of e and has at most left elements, into elements
 * [put, ...) of the 1-d array band; its size is added to *done. */
static em_status em__vbox(const em_expr *e, int64_t at, int64_t left, em_array *band, int64_t put,
                          int64_t *done) {
    int64_t inner[EM_MAXDIMS]; /* elements per index of each axis */
    inner[e->ndim - 1] = 1;
    for (int d = e->ndim - 2; d >= 0; d--) inner[d] = inner[d + 1] * e->shape[d + 1];
    int j = 0;
    while (at % inner[j] != 0 || inner[j] > left) j++; /* ends at the last axis (inner 1) */
    em_index_item ix[EM_MAXDIMS];
    for (int d = 0; d < j; d++)
        ix[d] = (em_index_item){.kind = EM_IX_INT, .start = at / inner[d] % e->shape[d]};
    int64_t first = at / inner[j] % e->shape[j], cnt = left / inner[j];
    if (cnt > e->shape[j] - first) cnt = e->shape[j] - first;
    ix[j] = (em_index_item){.kind = EM_IX_SLICE, .start = first, .stop = first + cnt, .step = 1};
    int64_t shape[EM_MAXDIMS] = {cnt};
    for (int d = j + 1; d < e->ndim; d++) shape[d - j] = e->shape[d];
    em_index_item cut = {
        .kind = EM_IX_SLICE, .start = put, .stop = put + cnt * inner[j], .step = 1};
    em_array flat = {0}, box = {0};
    em_status s = em_view_index(band, 1, &cut, &flat);
    if (s == EM_OK) s = em_view_reshape(&flat, e->ndim - j, shape, &box);
    if (s == EM_OK) s = em_expr_eval_index(e, j + 1, ix, &box);
    em_array_release(&flat), em_array_release(&box);
    if (s == EM_OK) *done += cnt * inner[j];
    return s;
}

/* The fetch of a virtual reduction input (reduce_src.h): elements
 * [i0, i0 + n) of e in C order, as at most 2 x ndim boxes (whole rows of
 * axis 0 where the range allows), into a band of its own. */
static em_status em__vfill(void *ctx, int64_t i0, int64_t n, em_array *hold, const char **data) {
    const em_expr *e = ctx;
    EM_CHECK(em_array_empty(hold, e->dtype, 1, &n, e->dev));
    em_status s = EM_OK;
    for (int64_t done = 0; s == EM_OK && done < n;)
        s = em__vbox(e, i0 + done, n - done, hold, done, &done);
    if (s != EM_OK) {
        em_array_release(hold);
        return s;
    }
    em__fuse_note_chunk();
    *data = hold->data;
    return EM_OK;
}

/* em_reduce of e's values, fetched in bands by the CPU reduction. */
static em_status em__cpu_reduce_virtual(em_reduce_op op, const em_expr *e, int naxes,
                                        const int *axes, bool keepdims, em_dtype dt, double ddof,
                                        em_array *out) {
    em_array ph = {0};
    EM_CHECK(em_expr_placeholder(e, &ph));
    em_cpu_reduce_source = (em_cpu_rsource){
        .buf = ph.buf, .fill = em__vfill, .ctx = (void *)e, .band = EM_FUSE_BAND_ELEMS};
    em_status s = em_reduce(op, &ph, naxes, axes, keepdims, dt, ddof, out);
    em_cpu_reduce_source = (em_cpu_rsource){0};
    em_array_release(&ph);
    return s;
}

bool em_expr_reduce_fuses(em_reduce_op op, const em_expr *e, int naxes, const int *axes) {
    return em__gpu_fusable(op, e, naxes) || em__cpu_virtual_fusable(op, e, naxes, axes) ||
           em__fusable_rows(op, e, naxes, axes) > 0;
}

static em_status em__rows_view(const em_array *a, int64_t r0, int64_t r1, em_array *v) {
    em_index_item it = {.kind = EM_IX_SLICE, .start = r0, .stop = r1, .step = 1};
    return em_view_index(a, 1, &it, v);
}

/* Reduce rows [r0, r1) of e into rows [r0, r1) of *res (allocated from the
 * first band's result when unset). */
static em_status em__band(em_reduce_op op, const em_expr *e, int naxes, const int *axes,
                          bool keepdims, em_dtype dt, double ddof, int64_t r0, int64_t r1,
                          em_array *res) {
    int64_t shape[EM_MAXDIMS];
    memcpy(shape, e->shape, sizeof shape);
    shape[0] = r1 - r0;
    em_array scratch = {0}, part = {0}, dst = {0};
    em_status s = em_array_empty(&scratch, e->dtype, e->ndim, shape, e->dev);
    if (s == EM_OK) s = em_expr_eval_rows(e, r0, r1, &scratch);
    if (s == EM_OK && !res->buf) {
        s = em_reduce(op, &scratch, naxes, axes, keepdims, dt, ddof, &part);
        if (s == EM_OK) {
            memcpy(shape, part.shape, sizeof(int64_t) * (size_t)part.ndim);
            shape[0] = e->shape[0];
            s = em_array_empty(res, part.dtype, part.ndim, shape, e->dev);
        }
        if (s == EM_OK) s = em__rows_view(res, r0, r1, &dst);
        if (s == EM_OK) s = em_copy_into(&dst, &part);
    } else if (s == EM_OK) {
        s = em__rows_view(res, r0, r1, &dst);
        if (s == EM_OK) s = em_reduce(op, &scratch, naxes, axes, keepdims, dt, ddof, &dst);
    }
    em_array_release(&scratch), em_array_release(&part), em_array_release(&dst);
    return s;
}

/* The bands after the first, spread over the thread pool: each worker
 * evaluates and reduces whole bands by itself (the calls inside run
 * inline), so no band waits on a barrier. */
typedef struct em__bands {
    em_reduce_op op;
    const em_expr *e;
    int naxes;
    const int *axes;
    bool keepdims;
    em_dtype dt;
    double ddof;
    int64_t rows;
    em_array *res;
    atomic_int failed; /* first failure: status and message kept below */
    em_status status;
    char msg[256];
} em__bands;

static void em__bands_range(void *ctx, int64_t b, int64_t e, int worker) {
    EM_UNUSED(worker);
    em__bands *B = ctx;
    for (int64_t i = b; i < e && !atomic_load(&B->failed); i++) {
        int64_t r0 = (i + 1) * B->rows,
                r1 = r0 + B->rows < B->e->shape[0] ? r0 + B->rows : B->e->shape[0];
        em_status s =
            em__band(B->op, B->e, B->naxes, B->axes, B->keepdims, B->dt, B->ddof, r0, r1, B->res);
        em__fuse_note_chunk();
        int zero = 0;
        if (s != EM_OK && atomic_compare_exchange_strong(&B->failed, &zero, 1)) {
            B->status = s; /* the message is this worker's: copy it for the caller */
            snprintf(B->msg, sizeof B->msg, "%s", em_last_error());
        }
    }
}

em_status em_expr_reduce(em_reduce_op op, const em_expr *e, int naxes, const int *axes,
                         bool keepdims, em_dtype dt, double ddof, em_array *out, bool *fused) {
    *fused = false;
    if (em__gpu_fusable(op, e, naxes)) {
        em__fuse_log_reduce(e, op);
        em_status s = em__expr_reduce_tree(e, op, naxes, axes, keepdims, dt, ddof, out);
        if (s == EM_OK) {
            *fused = true;
            return EM_OK;
        }
        /* A generated kernel that does not compile is Ember's bug: raise it
         * rather than pay a failed compile on every call.  Other failures
         * (too many dimensions, a bad axis): the unfused path below gives
         * the same values, or raises the error itself. */
        if (s == EM_ECOMPILE) return s;
    }
    if (em__cpu_virtual_fusable(op, e, naxes, axes)) {
        em__fuse_log_reduce(e, op);
        em_status s = em__cpu_reduce_virtual(op, e, naxes, axes, keepdims, dt, ddof, out);
        *fused = s == EM_OK;
        return s;
    }
    int64_t rows = em__fusable_rows(op, e, naxes, axes);
    if (rows == 0) {
        char reason[64];
        snprintf(reason, sizeof reason, "reduction %s", em__reduce_name(op));
        em_array v = {0};
        EM_CHECK(em_expr_eval(e, reason, &v));
        em_status s = em_reduce(op, &v, naxes, axes, keepdims, dt, ddof, out);
        em_array_release(&v);
        return s;
    }
    em__fuse_log_reduce(e, op);
    em_array res = {0};
    /* The first band allocates the result (its dtype is em_reduce's). */
    int64_t r1 = rows < e->shape[0] ? rows : e->shape[0];
    em_status s = em__band(op, e, naxes, axes, keepdims, dt, ddof, 0, r1, &res);
    em__fuse_note_chunk();
    int64_t nbands = (e->shape[0] + rows - 1) / rows;
    if (s == EM_OK && nbands > 1) {
        em__bands B = {.op = op,
                       .e = e,
                       .naxes = naxes,
                       .axes = axes,
                       .keepdims = keepdims,
                       .dt = dt,
                       .ddof = ddof,
                       .rows = rows,
                       .res = &res};
        atomic_init(&B.failed, 0);
        em_parallel_for(nbands - 1, 1, em__bands_range, &B);
        if (atomic_load(&B.failed)) s = em_error(B.status, "%s", B.msg);
    }
    if (s != EM_OK) {
        em_array_release(&res);
        return s;
    }
    *out = res;
    *fused = true;
    return EM_OK;
}
