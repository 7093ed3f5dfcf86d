/* Entry points of the CPU backend, one per source file. */
#ifndef EM_CPU_H
#define EM_CPU_H

#include "backend/backend.h"

em_status em_cpu_eval(const em_node *root, em_array *out); /* eval.c */
em_status em_cpu_reduce(em_reduce_op op, const em_array *a, int naxes, const int *axes, em_dtype dt,
                        double ddof, const em_node *fused, em_array *out);          /* reduce.c */
em_status em_cpu_scan(em_reduce_op op, const em_array *a, int axis, em_array *out); /* reduce.c */
em_status em_cpu_take(const em_array *a, int m, int nidx, const em_array *idx,
                      em_array *out); /* index.c */
em_status em_cpu_put(em_array *a, int m, int nidx, const em_array *idx,
                     const em_array *values);                                         /* index.c */
em_status em_cpu_nonzero(const em_array *a, em_array *out);                           /* index.c */
em_status em_cpu_mask_select(const em_array *a, const em_array *mask, em_array *out); /* index.c */
/* count_nonzero of every element of a C-contiguous a, or false (nothing
 * done) where a is not one. */
bool em_cpu_count_all(const em_array *a, int64_t *count); /* count.c */
/* em_backend_ops.sort: the radix sort (sort.c); which dtypes it takes. */
em_status em_cpu_sort(const em_array *a, int64_t len, bool descending, bool arg, em_array *out);
bool em_cpu_sort_supported(em_dtype dt);
em_status em_cpu_random(em_array *a, const em_random_req *req); /* random.c */
/* Streams and events (stream.c): always complete, timed by the host clock. */
void em_cpu_stream_set(int id, void *s);
void *em_cpu_stream_get(int id);
em_status em_cpu_stream_create(int id, bool nonblocking, void **out);
em_status em_cpu_stream_destroy(int id, void *s);
em_status em_cpu_stream_sync(int id, void *s);
em_status em_cpu_stream_wait_event(int id, void *s, void *e);
em_status em_cpu_event_create(int id, bool timing, void **out);
em_status em_cpu_event_destroy(int id, void *e);
em_status em_cpu_event_record(int id, void *e, void *s);
em_status em_cpu_event_sync(int id, void *e);
em_status em_cpu_event_query(int id, void *e, bool *done);
em_status em_cpu_event_elapsed(int id, void *start, void *end, float *ms);
/* The dtype a loop writes before any cast to the node's dtype. */
em_dtype em__loop_out_dtype(em_op op, em_dtype loop);

#endif
