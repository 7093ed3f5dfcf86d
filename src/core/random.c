/* Counter-based random numbers: validation; the backend generates. */
#include "backend/backend.h"
#include "core/core.h"

em_status em_random_fill(em_array *a, em_random_kind kind, uint64_t key, uint64_t counter,
                         uint64_t *next) {
    EM_UNUSED(a), EM_UNUSED(kind), EM_UNUSED(key), EM_UNUSED(counter), EM_UNUSED(next);
    return em_error(EM_EUNSUPPORTED, "random is not built yet");
}
