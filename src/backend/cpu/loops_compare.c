/* Loops for comparisons, maximum/minimum/fmax/fmin and the predicates
 * (isnan, isinf, isfinite, signbit).  Complex ordering is NumPy's
 * lexicographic one (scalar.h). */
#include "backend/cpu/loops.h"
#include "backend/cpu/scalar.h"

EM_FOR_ALL(EM_DEF2B, EQUAL, em_equal(x, y))
EM_FOR_ALL(EM_DEF2B, NOT_EQUAL, em_not_equal(x, y))
EM_FOR_ALL(EM_DEF2B, LESS, em_less(x, y))
EM_FOR_ALL(EM_DEF2B, LESS_EQUAL, em_less_equal(x, y))
EM_FOR_ALL(EM_DEF2B, GREATER, em_greater(x, y))
EM_FOR_ALL(EM_DEF2B, GREATER_EQUAL, em_greater_equal(x, y))
EM_FOR_ALL(EM_DEF2, MAXIMUM, em_maximum(x, y))
EM_FOR_ALL(EM_DEF2, MINIMUM, em_minimum(x, y))
EM_FOR_ALL(EM_DEF2, FMAX, em_fmax(x, y))
EM_FOR_ALL(EM_DEF2, FMIN, em_fmin(x, y))
EM_FOR_ALL(EM_DEF1B, ISNAN, em_isnan(x))
EM_FOR_ALL(EM_DEF1B, ISINF, em_isinf(x))
EM_FOR_ALL(EM_DEF1B, ISFINITE, em_isfinite(x))
EM_FOR_REAL(EM_DEF1B, SIGNBIT, em_signbit(x))

void em_cpu_loops_init_compare(void) {
    EM_FOR_ALL(EM_REG1, EQUAL)
    EM_FOR_ALL(EM_REG1, NOT_EQUAL)
    EM_FOR_ALL(EM_REG1, LESS)
    EM_FOR_ALL(EM_REG1, LESS_EQUAL)
    EM_FOR_ALL(EM_REG1, GREATER)
    EM_FOR_ALL(EM_REG1, GREATER_EQUAL)
    EM_FOR_ALL(EM_REG1, MAXIMUM)
    EM_FOR_ALL(EM_REG1, MINIMUM)
    EM_FOR_ALL(EM_REG1, FMAX)
    EM_FOR_ALL(EM_REG1, FMIN)
    EM_FOR_ALL(EM_REG1, ISNAN)
    EM_FOR_ALL(EM_REG1, ISINF)
    EM_FOR_ALL(EM_REG1, ISFINITE)
    EM_FOR_REAL(EM_REG1, SIGNBIT)
}
