/* Lazy elementwise expressions: the fusion planner's data model.
 *
 * An em_expr is a refcounted node of a DAG: a leaf that reads an array (one
 * retained view), or an op over up to three input expressions, with the
 * loop and result dtypes em_ufunc would use and the broadcast result shape.
 * Building an expression does no arithmetic; em_expr_eval turns the DAG
 * into an em_node tree (the backends' seam) and runs it as ONE evaluation:
 * one generated kernel on CUDA, one pass of the block interpreter on the
 * CPU.  An op node that has been evaluated keeps its value (arr) and is a
 * leaf from then on, so shared subexpressions are not recomputed by later
 * evaluations.
 *
 * Fused equals unfused bit for bit: every node carries the dtypes of the
 * eager call and the backends round each node to its dtype, exactly as a
 * chain of eager calls stores and reloads it.
 *
 * Threading: building, caching values (em_expr_set_value) and refcounts
 * need one lock held by the caller (the Python layer's GIL); em_expr_eval
 * only reads the DAG and may run without it.
 */
#ifndef EM_EXPR_H
#define EM_EXPR_H

#include "graph/node.h"
#include "ember/fusion.h"

#include <stdatomic.h>

struct em_expr {
    atomic_long refcount;
    em_op op;       /* op nodes only */
    em_dtype loop;  /* dtype the inputs are converted to */
    em_dtype dtype; /* dtype of the values */
    int nin;        /* 0 for a leaf */
    struct em_expr *in[EM_NODE_MAXIN];
    em_array arr; /* leaf: the array read; op node: its value once evaluated */
    em_device dev;
    int ndim;
    int64_t shape[EM_MAXDIMS];
    int depth;     /* op levels above the leaves (evaluated nodes count as leaves) */
    int nnodes;    /* nodes of the tree it expands to */
    bool consumed; /* an input of another expression (sticky) */
    int nleaves;   /* distinct arrays read: an upper bound, exact after a walk */
};

/* The fusion API is in ember/fusion.h; these are the planner's internals. */

/* out = e[ix[0], ..., ix[nix - 1]] of a pending e: integer items, then one
 * step-1 slice (a C-order run of e, as a CPU reduction's band needs). */
em_status em_expr_eval_index(const em_expr *e, int nix, const em_index_item *ix, em_array *out);
/* em_reduce of e's values with e as the fused input (CUDA). */
em_status em__expr_reduce_tree(const em_expr *e, em_reduce_op op, int naxes, const int *axes,
                               bool keepdims, em_dtype dt, double ddof, em_array *out);
/* Distinct arrays the DAG reads (stops counting past limit). */
int em_expr_nleaves(const em_expr *e, int limit);
/* Counting and logging fused reductions. */
void em__fuse_note_chunk(void);
void em__fuse_log_reduce(const em_expr *e, em_reduce_op op);
const char *em__reduce_name(em_reduce_op op);

#endif
