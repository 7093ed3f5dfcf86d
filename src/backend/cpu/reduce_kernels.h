/* Typed kernels of the CPU reductions and scans (reduce_kernels.c), driven
 * by the planner in reduce.c.
 *
 * Every kernel works in one "loop" dtype T (never float16: that reduces in
 * float32).  Pointers are bytes; `s` is a byte stride that may be negative
 * or zero; an accumulator vector `acc` is contiguous T.  Semantics are
 * NumPy's: float sums are pairwise (blocks of 8 accumulators, recursive
 * split above 128 elements, as NumPy's pairwise_sum), integer arithmetic
 * wraps, min/max propagate NaN, complex min/max/argmin/argmax order
 * lexicographically, argmin/argmax keep the first occurrence and a NaN
 * wins (the first NaN).
 */
#ifndef EM_CPU_REDUCE_KERNELS_H
#define EM_CPU_REDUCE_KERNELS_H

#include "ember/ember.h"

/* Kernel ops: what the planner asks of a dtype.  AND, OR, XOR (bool and
 * integers) and GCD, LCM (integers) are NULL in the other dtypes' tables. */
typedef enum em_rk_op {
    EM_RK_SUM,
    EM_RK_PROD,
    EM_RK_MIN,
    EM_RK_MAX,
    EM_RK_AND,
    EM_RK_OR,
    EM_RK_XOR,
    EM_RK_GCD,
    EM_RK_LCM,
    EM_RK_NOPS
} em_rk_op;

/* *acc = *acc (op) x[0] (op) ... (op) x[n-1]. */
typedef void (*em_rk_fold_fn)(int64_t n, const char *p, int64_t s, void *acc);
/* acc[i] = acc[i] (op) x[i] for i < n (one row into an accumulator vector). */
typedef void (*em_rk_accum_fn)(int64_t n, void *acc, const char *p, int64_t s);
/* acc[i] = (((acc[i] (op) r0[i]) (op) r1[i]) (op) r2[i]) (op) r3[i]: four contiguous rows,
 * row r at p + r * rs, in the row-by-row order of accum. */
typedef void (*em_rk_accum4_fn)(int64_t n, void *acc, const char *p, int64_t rs);
/* Arg fold over a run whose first element has index i0: updates the best
 * value *best and its index *bi (both already hold a valid candidate). */
typedef void (*em_rk_argfold_fn)(int64_t n, const char *p, int64_t s, void *best, int64_t *bi,
                                 int64_t i0);
/* Arg update of vectors by one row with index r. */
typedef void (*em_rk_argaccum_fn)(int64_t n, void *best, int64_t *bi, const char *p, int64_t s,
                                  int64_t r);
/* Inclusive scan of a run into o (byte stride os), continuing from *carry. */
typedef void (*em_rk_scan_fn)(int64_t n, const char *p, int64_t s, char *o, int64_t os,
                              void *carry);

typedef struct em_rk_table {
    em_rk_fold_fn fold[EM_RK_NOPS];
    em_rk_accum_fn accum[EM_RK_NOPS];
    em_rk_argfold_fn argfold[2]; /* [0] argmin, [1] argmax */
    em_rk_argaccum_fn argaccum[2];
    em_rk_scan_fn scan[2]; /* [0] cumsum, [1] cumprod */
    /* SUM, PROD, MIN, MAX of real floats; NULL elsewhere (accum a row at a time) */
    em_rk_accum4_fn accum4[EM_RK_AND];
} em_rk_table;

/* The kernels of loop dtype dt; NULL for float16. */
const em_rk_table *em_rk_get(em_dtype dt);

/* NumPy's pairwise sum split: the length of the left half of a run of n
 * (n > 128) elements. */
static inline int64_t em_rk_pairwise_split(int64_t n) { return n / 2 - (n / 2) % 8; }

#endif
