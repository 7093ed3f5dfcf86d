/* Elementwise expression nodes: the seam between the API and the backends.
 *
 * A node is an op applied to input nodes, or a leaf that reads an array.
 * Each node knows the dtype its inputs are cast to (loop) and the dtype it
 * produces (dtype).  Leaves may have any shape that broadcasts to the
 * evaluation shape; the backend broadcasts them.  Nodes do not own the
 * arrays they read: whoever builds a tree keeps its leaves alive until it is
 * evaluated.  Eager calls build one-op trees; the fusion planner lowers
 * its lazy expressions (graph/expr.h) to deep ones, with shared nodes.
 */
#ifndef EM_NODE_H
#define EM_NODE_H

#include "ember/ember.h"

#define EM_NODE_MAXIN 3

typedef struct em_node {
    em_op op;       /* unused for leaves */
    em_dtype loop;  /* dtype the inputs are converted to */
    em_dtype dtype; /* dtype of this node's values */
    int nin;        /* 0 for a leaf */
    const struct em_node *in[EM_NODE_MAXIN];
    const em_array *leaf; /* the array a leaf reads */
} em_node;

static inline void em_node_leaf(em_node *n, const em_array *a) {
    n->op = EM_OP_COPY;
    n->loop = n->dtype = a->dtype;
    n->nin = 0;
    n->leaf = a;
}

/* Evaluate root into out (allocated by the caller with the broadcast shape of
 * the tree and root's... or any dtype: values are cast on the way out). */
em_status em_node_eval(const em_node *root, em_array *out);

#endif
