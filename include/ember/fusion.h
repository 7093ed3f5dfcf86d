/* Automatic fusion: lazy elementwise expressions (libember's public side;
 * the planner's data model is in src/graph/expr.h).
 *
 * An em_expr is a refcounted node of a DAG: a leaf that reads an array, or
 * an op over input expressions with the dtypes em_ufunc resolves.  Building
 * one computes nothing; evaluating one runs the whole DAG as one fused
 * evaluation (one kernel on CUDA, one pass of the block interpreter on the
 * CPU), bit for bit equal to the chain of eager calls it stands for.
 * Building, em_expr_begin, em_expr_set_value and the refcounts need one
 * lock held by the caller (the Python layer's GIL); em_expr_run does not.
 */
#ifndef EMBER_FUSION_H
#define EMBER_FUSION_H

#include "ember/ember.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct em_expr em_expr;

/* Limits of one fused evaluation (each named in the log when it forces). */
#define EM_FUSE_MAXDEPTH 24   /* longest op chain */
#define EM_FUSE_MAXNODES 96   /* nodes of the expanded tree (render: 128) */
#define EM_FUSE_MAXLEAVES 15  /* distinct arrays read (render: EM_KMAXOPS - 1) */
#define EM_FUSE_MAXPARAM 2048 /* bytes of the packed kernel argument */

/* Why an evaluation happens, for the EMBER_DEBUG log and tests. */
typedef struct em_fuse_stats {
    int64_t evals;   /* fused evaluations run */
    int64_t ops;     /* op nodes evaluated in them */
    int64_t kernels; /* distinct structural kernel keys seen (CUDA compiles) */
    int64_t chunks;  /* producer blocks evaluated by fused reductions */
} em_fuse_stats;

/* A leaf reading a (one more reference to its buffer). */
EM_API em_status em_expr_leaf(const em_array *a, em_expr **out);
/* Whether e is a leaf reading exactly the view a (a cached leaf is still
 * the array's: the binding keeps one per ndarray). */
EM_API bool em_expr_leaf_of(const em_expr *e, const em_array *a);
/* op(in...) with loop and result dtypes resolved by the caller (em_ufunc's
 * rules); the shapes must broadcast.  Takes new references to the inputs. */
EM_API em_status em_expr_op(em_op op, int nin, em_expr *const *in, em_dtype loop, em_dtype dtype,
                            em_expr **out);
EM_API void em_expr_incref(em_expr *e);
EM_API void em_expr_decref(em_expr *e);

/* True if e has been evaluated or is a leaf (its values are in e->arr). */
EM_API bool em_expr_ready(const em_expr *e);
/* True once e has been an input of another expression (its value has a
 * reader, whether or not that one has run). */
EM_API bool em_expr_consumed(const em_expr *e);
/* Mark e consumed (a fused reduction read it). */
EM_API void em_expr_consume(em_expr *e);
/* The limit e exceeds ("depth", "distinct inputs", ...), or NULL.  May
 * refine e's cached leaf count (the caller's lock). */
EM_API const char *em_expr_over_limit(em_expr *e);
/* Whether evaluating e would read memory that a may touch. */
EM_API bool em_expr_reads(const em_expr *e, const em_array *a);

/* Evaluate e into a new C-contiguous array (a view of e->arr if ready).
 * reason names the trigger in the EMBER_DEBUG=1 log line.  Does not modify
 * the DAG (see em_expr_set_value). */
EM_API em_status em_expr_eval(const em_expr *e, const char *reason, em_array *out);
/* em_expr_eval in two steps: begin reads the DAG (under the caller's lock)
 * and allocates the result; run evaluates it (no lock needed) and frees
 * the job, as does job_free for a job that is not run. */
typedef struct em_expr_job em_expr_job;
EM_API em_status em_expr_begin(const em_expr *e, em_expr_job **job);
EM_API em_status em_expr_run(em_expr_job *job, const char *reason, em_array *out);
EM_API void em_expr_job_free(em_expr_job *job);
/* Rows [r0, r1) of axis 0 of e, evaluated into out (allocated by the
 * caller: C-contiguous, e's dtype, shape (r1 - r0, e->shape[1:])). */
EM_API em_status em_expr_eval_rows(const em_expr *e, int64_t r0, int64_t r1, em_array *out);
/* The stand-in array of a pending result: e's dtype, shape and C-contiguous
 * strides, on e's device, with a buffer that has no memory (data NULL). */
EM_API em_status em_expr_placeholder(const em_expr *e, em_array *out);
/* Whether a may be a leaf of a pending expression: its memory is Ember's own
 * (from a device pool) or wrapped memory marked by em_array_allow_fusion. */
EM_API bool em_expr_fusable(const em_array *a);
/* Record e's value (a view of v) so later evaluations read it. */
EM_API void em_expr_set_value(em_expr *e, const em_array *v);

/* reduce(e) as em_reduce would give for e evaluated first, bit for bit,
 * without materialising e where the reduction allows it (CPU, reduced axes
 * a suffix, axis 0 kept): e is evaluated a band of rows at a time into
 * scratch and each band reduced into its rows of the result.  Anything
 * else evaluates e and reduces it.  *fused tells which happened. */
EM_API em_status em_expr_reduce(em_reduce_op op, const em_expr *e, int naxes, const int *axes,
                                bool keepdims, em_dtype dt, double ddof, em_array *out,
                                bool *fused);

/* Whether em_expr_reduce would take e into the reduction (else it evaluates e first). */
EM_API bool em_expr_reduce_fuses(em_reduce_op op, const em_expr *e, int naxes, const int *axes);

EM_API void em_fuse_stats_get(em_fuse_stats *s);

/* e rebuilt on dev (a new reference): every distinct array it reads copied
 * there once (host scalars stay), every op node made again with its dtypes;
 * e itself is untouched (device="auto" places a chain when it runs). */
EM_API em_status em_expr_retarget(const em_expr *e, em_device dev, em_expr **out);
/* Rows [r0, r1) of axis 0 of e rebuilt on dev: leaves of e's ndim with more
 * than one row are sliced to those rows, others (broadcast along axis 0)
 * copied whole (an elementwise chain too large for a device, in bands). */
EM_API em_status em_expr_retarget_rows(const em_expr *e, int64_t r0, int64_t r1, em_device dev,
                                       em_expr **out);
/* Bytes of the distinct arrays e reads (host scalars not counted). */
EM_API int64_t em_expr_input_bytes(const em_expr *e);
/* Whether every array e reads (host scalars aside) is marked auto. */
EM_API bool em_expr_all_auto(const em_expr *e);
/* The distinct op nodes e will evaluate (evaluated ones and leaves not
 * counted), and how many of them are transcendental (exp, log, sin, pow,
 * ...): device="auto" prices a chain's arithmetic, not only its bytes, since
 * a CPU running eight ops with a sine is compute-bound where one add is not. */
EM_API void em_expr_op_counts(const em_expr *e, int *ops, int *transcendental);

/* em_ufunc's checks and dtype resolution without running anything (core/ufunc.c):
 * the device, loop and result dtypes and the broadcast shape. */
EM_API em_status em_ufunc_plan(em_op op, int nin, const em_array *const *in, em_dtype promoted,
                               em_device *dev, em_dtype *loop, em_dtype *odt, int *nd,
                               int64_t *shape);

#ifdef __cplusplus
}
#endif
#endif /* EMBER_FUSION_H */
