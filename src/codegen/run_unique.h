/* The device unique and order-statistic drivers (run_unique.c,
 * run_select.c; the kernels in render_unique.c, render_select.c). */
#ifndef EM_RUN_UNIQUE_H
#define EM_RUN_UNIQUE_H

#include "codegen/run.h"

/* em_unique_sorted's work (ember.h) on be: s 1-D C-contiguous and sorted,
 * perm (int64, C-contiguous, s's size) when index or inverse. */
EM_API em_status em_run_unique(const em_backend *be, const em_array *s, const em_array *perm,
                               bool equal_nan, bool index, bool inverse, bool counts,
                               em_array out[4]);

/* em_setop_sorted's work (ember.h) on be: s and o of one real dtype,
 * C-contiguous, o sorted (s too but for ISIN / ISNOTIN). */
EM_API em_status em_run_setop(const em_backend *be, const em_array *s, const em_array *o, int mode,
                              em_array *out);

/* em_select_kth's work (ember.h) on be: a C-contiguous, out 1-D of nk
 * elements of a's dtype, C-contiguous; every k in [0, a's size). */
EM_API em_status em_run_select(const em_backend *be, const em_array *a, int nk, const int64_t *ks,
                               em_array *out);

/* em_partition's work (ember.h) on be: a 1-D C-contiguous, kv its k-th
 * values in ascending order (1..EM_PT_MAXK of them, a's dtype); out the
 * partitioned values (arg: their int64 indices), allocated here. */
EM_API em_status em_run_part(const em_backend *be, const em_array *a, const em_array *kv, bool arg,
                             em_array *out);

#endif
