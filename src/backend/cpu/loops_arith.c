/* Loops for copy, arithmetic (+ - * / // % fmod **), the unary arithmetic
 * ops and where.  Built with -fwrapv: signed overflow wraps, as NumPy's does.
 * The scalar semantics (division by zero, Python's sign rules...) live in
 * scalar.h; this file only instantiates them per dtype. */
#include "backend/cpu/loops.h"
#include "backend/cpu/scalar.h"

em_loop_fn em_cpu_loops[EM_NOPS][EM_NDTYPES];

#define EM_DEFW(DT, T, OP, EXPR) EM_LOOP3(em__##OP##_##DT, bool, T, T, EXPR)

EM_FOR_ALL(EM_DEF1, COPY, x)
EM_FOR_ALL(EM_DEF2, ADD, em_add(x, y))
EM_FOR_NUM(EM_DEF2, SUBTRACT, em_subtract(x, y))
EM_FOR_NUM(EM_DEF2, MULTIPLY, em_multiply(x, y))
EM_DEF2(BOOL, bool, MULTIPLY, em_logical_and(x, y))
EM_FOR_INEXACT(EM_DEF2, DIVIDE, em_divide(x, y))
EM_FOR_INTFLOAT(EM_DEF2, FLOOR_DIVIDE, em_floor_divide(x, y))
EM_FOR_INTFLOAT(EM_DEF2, REMAINDER, em_remainder(x, y))
EM_FOR_INTFLOAT(EM_DEF2, FMOD, em_fmod(x, y))
EM_FOR_NUM(EM_DEF2, POWER, em_power(x, y))
EM_FOR_NUM(EM_DEF1, NEGATIVE, em_negative(x))
EM_FOR_NUM(EM_DEF1, POSITIVE, x)
EM_FOR_NUM(EM_DEF1, SQUARE, em_multiply(x, x))
EM_FOR_NUM(EM_DEF1, RECIPROCAL, em_reciprocal(x))
EM_FOR_NUM(EM_DEF1, SIGN, em_sign(x))
EM_FOR_REAL(EM_DEF1, ABSOLUTE, em_absolute(x))
EM_LOOP1(em__ABSOLUTE_COMPLEX64, float _Complex, float, em_absolute(x))
EM_LOOP1(em__ABSOLUTE_COMPLEX128, double _Complex, double, em_absolute(x))
EM_FOR_ALL(EM_DEFW, WHERE, x ? y : z)

void em_cpu_loops_init_arith(void) {
    EM_FOR_ALL(EM_REG1, COPY)
    EM_FOR_ALL(EM_REG1, ADD)
    EM_FOR_NUM(EM_REG1, SUBTRACT)
    EM_FOR_ALL(EM_REG1, MULTIPLY)
    EM_FOR_INEXACT(EM_REG1, DIVIDE)
    EM_FOR_INTFLOAT(EM_REG1, FLOOR_DIVIDE)
    EM_FOR_INTFLOAT(EM_REG1, REMAINDER)
    EM_FOR_INTFLOAT(EM_REG1, FMOD)
    EM_FOR_NUM(EM_REG1, POWER)
    EM_FOR_NUM(EM_REG1, NEGATIVE)
    EM_FOR_NUM(EM_REG1, POSITIVE)
    EM_FOR_NUM(EM_REG1, SQUARE)
    EM_FOR_NUM(EM_REG1, RECIPROCAL)
    EM_FOR_NUM(EM_REG1, SIGN)
    EM_FOR_ALL(EM_REG1, ABSOLUTE)
    EM_FOR_ALL(EM_REG1, WHERE)
}
