/* Gather and scatter on the CPU. */
#include "backend/cpu/cpu.h"
#include "core/core.h"

em_status em_cpu_take(const em_array *a, const em_array *idx, em_array *out) {
    EM_UNUSED(a), EM_UNUSED(idx), EM_UNUSED(out);
    return em_error(EM_EUNSUPPORTED, "take is not built yet");
}

em_status em_cpu_put(em_array *a, const em_array *idx, const em_array *values) {
    EM_UNUSED(a), EM_UNUSED(idx), EM_UNUSED(values);
    return em_error(EM_EUNSUPPORTED, "put is not built yet");
}
