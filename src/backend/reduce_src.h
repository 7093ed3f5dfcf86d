/* A CPU reduction input that is not in memory (a fused elementwise
 * producer, src/graph/fuse_reduce.c).
 *
 * The type sits in backend/, below the graph that fills it and beside the
 * CPU backend that reads it, so that neither includes the other's headers.
 * It is still a hidden argument (a thread-local the caller sets), like the
 * CUDA fused input in graph/expr.h: both are to become an argument of the
 * backend's reduction (docs/architecture.md, "Layers").
 *
 * While em_cpu_reduce_source.buf is set on a thread, a reduction started on
 * that thread of an array with that buffer (C-contiguous, as the full
 * producer would be) asks fill() for its input in bands of at most `band`
 * elements of the flat C-order input instead of reading memory: one pass,
 * no full-size temporary.  The bands are cut so that every value is combined
 * in exactly the order the reduction of the materialised input would use
 * (pairwise-sum tree, conversion blocks, thread pieces), so the results are
 * bit for bit the same.  Shapes that cannot be run that way fetch the whole
 * input once and reduce it as memory.
 */
#ifndef EM_REDUCE_SRC_H
#define EM_REDUCE_SRC_H

#include "ember/ember.h"

/* Elements [i0, i0 + n) of the flat input: *data points at them (contiguous,
 * the input dtype) inside *hold, which the caller releases after use.  May be
 * called from several pool workers at once. */
typedef em_status (*em_cpu_rfill_fn)(void *ctx, int64_t i0, int64_t n, em_array *hold,
                                     const char **data);

typedef struct em_cpu_rsource {
    const em_buffer *buf; /* the placeholder array's buffer; NULL: none */
    em_cpu_rfill_fn fill;
    void *ctx;
    int64_t band; /* most elements per fill (rounded down to a conversion block) */
} em_cpu_rsource;

extern _Thread_local em_cpu_rsource em_cpu_reduce_source;

#endif
