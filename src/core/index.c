/* Gather, scatter and nonzero: validation and allocation; the backend moves data. */
#include "backend/backend.h"
#include "core/core.h"

em_status em_take_flat(const em_array *a, const em_array *idx, em_array *out) {
    EM_UNUSED(a), EM_UNUSED(idx), EM_UNUSED(out);
    return em_error(EM_EUNSUPPORTED, "take is not built yet");
}

em_status em_put_flat(em_array *a, const em_array *idx, const em_array *values) {
    EM_UNUSED(a), EM_UNUSED(idx), EM_UNUSED(values);
    return em_error(EM_EUNSUPPORTED, "put is not built yet");
}

em_status em_nonzero(const em_array *a, em_array *out) {
    EM_UNUSED(a), EM_UNUSED(out);
    return em_error(EM_EUNSUPPORTED, "nonzero is not built yet");
}
