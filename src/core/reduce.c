/* Reductions and scans: axis handling, default dtypes, output allocation;
 * the arithmetic is the backend's. */
#include "backend/backend.h"
#include "core/core.h"

em_status em_reduce(em_reduce_op op, const em_array *a, int naxes, const int *axes, bool keepdims,
                    em_dtype dt, double ddof, em_array *out) {
    EM_UNUSED(op), EM_UNUSED(a), EM_UNUSED(naxes), EM_UNUSED(axes), EM_UNUSED(keepdims),
        EM_UNUSED(dt), EM_UNUSED(ddof), EM_UNUSED(out);
    return em_error(EM_EUNSUPPORTED, "reductions are not built yet");
}

em_status em_scan(em_reduce_op op, const em_array *a, int axis, em_dtype dt, em_array *out) {
    EM_UNUSED(op), EM_UNUSED(a), EM_UNUSED(axis), EM_UNUSED(dt), EM_UNUSED(out);
    return em_error(EM_EUNSUPPORTED, "scans are not built yet");
}
