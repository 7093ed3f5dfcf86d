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
                     const em_array *values);                   /* index.c */
em_status em_cpu_nonzero(const em_array *a, em_array *out);     /* index.c */
em_status em_cpu_random(em_array *a, const em_random_req *req); /* random.c */
/* The dtype a loop writes before any cast to the node's dtype. */
em_dtype em__loop_out_dtype(em_op op, em_dtype loop);

#endif
