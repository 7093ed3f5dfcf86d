/* The device sort and binary search over a backend's primitives
 * (run_sort.c explains the algorithm; kernels in render_sort.c). */
#ifndef EM_RUN_SORT_H
#define EM_RUN_SORT_H

#include "codegen/run.h"

/* Sort a's elements (C order) in rows of len (len divides the size) into
 * out: C-contiguous, a's size; a's dtype, or int64 with arg (each element's
 * index within its row).  Stable; descending flips the order, ties kept in
 * their original order; NaNs last ascending, first descending. */
EM_API em_status em_run_sort(const em_backend *be, const em_array *a, int64_t len, bool descending,
                             bool arg, em_array *out);
/* The argsort of a's elements in C order as one row (idx, as em_run_sort's
 * out) and, where the device's fused passes sort (*done), the sorted values
 * into keys (C-contiguous, a's dtype and size) from the same passes: no
 * gather of a through idx.  Else *done is false and keys is untouched. */
EM_API em_status em_run_argsort_keys(const em_backend *be, const em_array *a, bool descending,
                                     em_array *idx, em_array *keys, bool *done);
/* out[i] (int64, C-contiguous, v's size) = the insertion point of v's i-th
 * element (C order) into the ascending 1-D hay (through the int64,
 * C-contiguous sorter when not NULL): before equal elements, or after them
 * with right.  hay and v have one dtype. */
EM_API em_status em_run_searchsorted(const em_backend *be, const em_array *hay,
                                     const em_array *sorter, const em_array *v, bool right,
                                     em_array *out);

#endif
