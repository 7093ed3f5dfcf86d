/* Philox4x32-10 on the CPU. */
#include "backend/cpu/cpu.h"
#include "core/core.h"

em_status em_cpu_random(em_array *a, em_random_kind kind, uint64_t key, uint64_t counter) {
    EM_UNUSED(a), EM_UNUSED(kind), EM_UNUSED(key), EM_UNUSED(counter);
    return em_error(EM_EUNSUPPORTED, "random is not built yet");
}
