/* Reductions and scans on the CPU. */
#include "backend/cpu/cpu.h"
#include "core/core.h"

em_status em_cpu_reduce(em_reduce_op op, const em_array *a, int naxes, const int *axes,
                        em_dtype dt, double ddof, em_array *out) {
    EM_UNUSED(op), EM_UNUSED(a), EM_UNUSED(naxes), EM_UNUSED(axes), EM_UNUSED(dt), EM_UNUSED(ddof),
        EM_UNUSED(out);
    return em_error(EM_EUNSUPPORTED, "reductions are not built yet");
}

em_status em_cpu_scan(em_reduce_op op, const em_array *a, int axis, em_array *out) {
    EM_UNUSED(op), EM_UNUSED(a), EM_UNUSED(axis), EM_UNUSED(out);
    return em_error(EM_EUNSUPPORTED, "scans are not built yet");
}
