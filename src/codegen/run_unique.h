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

/* em_select_kth's work (ember.h) on be: a C-contiguous, out 1-D of nk
 * elements of a's dtype, C-contiguous; every k in [0, a's size). */
EM_API em_status em_run_select(const em_backend *be, const em_array *a, int nk, const int64_t *ks,
                               em_array *out);

#endif
