/* Loops for the float math ops: roots, exponentials, logarithms, trig and
 * hyperbolic functions (float and complex, <complex.h>), the two-argument
 * float functions, rounding (which keeps integers as they are), and the
 * integer gcd/lcm. */
#include "backend/cpu/loops.h"
#include "backend/cpu/scalar.h"

/* One macro per op family so each op is one line below. */
#define EM_MATH1(OP, EXPR) EM_FOR_INEXACT(EM_DEF1, OP, EXPR)
#define EM_MATH2(OP, EXPR) EM_FOR_FLOATS(EM_DEF2, OP, EXPR)
#define EM_ROUND(OP, EXPR) EM_FOR_REAL(EM_DEF1, OP, EXPR)

EM_MATH1(SQRT, em_sqrt(x))
EM_MATH1(EXP, em_exp(x))
EM_MATH1(EXP2, em_exp2(x))
EM_MATH1(EXPM1, em_expm1(x))
EM_MATH1(LOG, em_log(x))
EM_MATH1(LOG1P, em_log1p(x))
EM_MATH1(LOG2, em_log2(x))
EM_MATH1(LOG10, em_log10(x))
EM_MATH1(SIN, em_sin(x))
EM_MATH1(COS, em_cos(x))
EM_MATH1(TAN, em_tan(x))
EM_MATH1(ARCSIN, em_arcsin(x))
EM_MATH1(ARCCOS, em_arccos(x))
EM_MATH1(ARCTAN, em_arctan(x))
EM_MATH1(SINH, em_sinh(x))
EM_MATH1(COSH, em_cosh(x))
EM_MATH1(TANH, em_tanh(x))
EM_MATH1(ARCSINH, em_arcsinh(x))
EM_MATH1(ARCCOSH, em_arccosh(x))
EM_MATH1(ARCTANH, em_arctanh(x))
EM_MATH1(RINT, em_rint(x))
EM_MATH2(ARCTAN2, em_arctan2(x, y))
EM_MATH2(HYPOT, em_hypot(x, y))
EM_MATH2(COPYSIGN, em_copysign(x, y))
EM_MATH2(NEXTAFTER, em_nextafter(x, y))
EM_DEF2(FLOAT16, _Float16, NEXTAFTER, em_nextafter(x, y))
EM_MATH2(LOGADDEXP, em_logaddexp(x, y))
EM_MATH2(LOGADDEXP2, em_logaddexp2(x, y))
EM_MATH2(HEAVISIDE, em_heaviside(x, y))
EM_FOR_FLOATS(EM_DEF1, CBRT, em_cbrt(x))
EM_FOR_FLOATS(EM_DEF1, DEG2RAD, em_deg2rad(x))
EM_FOR_FLOATS(EM_DEF1, RAD2DEG, em_rad2deg(x))
EM_FOR_INTS(EM_DEF2, GCD, em_gcd(x, y))
EM_FOR_INTS(EM_DEF2, LCM, em_lcm(x, y))
EM_ROUND(FLOOR, em_floor(x))
EM_ROUND(CEIL, em_ceil(x))
EM_ROUND(TRUNC, em_trunc(x))

#define EM_REGM(OP) EM_FOR_INEXACT(EM_REG1, OP)
#define EM_REGM2(OP) EM_FOR_FLOATS(EM_REG1, OP)
#define EM_REGR(OP) EM_FOR_REAL(EM_REG1, OP)

void em_cpu_loops_init_math(void) {
    EM_REGM(SQRT) EM_REGM(EXP) EM_REGM(EXP2) EM_REGM(EXPM1) EM_REGM(LOG) EM_REGM(LOG1P)
    EM_REGM(LOG2) EM_REGM(LOG10) EM_REGM(SIN) EM_REGM(COS) EM_REGM(TAN) EM_REGM(ARCSIN)
    EM_REGM(ARCCOS) EM_REGM(ARCTAN) EM_REGM(SINH) EM_REGM(COSH) EM_REGM(TANH)
    EM_REGM(ARCSINH) EM_REGM(ARCCOSH) EM_REGM(ARCTANH) EM_REGM(RINT)
    EM_REGM2(ARCTAN2) EM_REGM2(HYPOT) EM_REGM2(COPYSIGN) EM_REGM2(NEXTAFTER)
    EM_REGM2(LOGADDEXP) EM_REGM2(LOGADDEXP2) EM_REGM2(HEAVISIDE) EM_REGM2(CBRT)
    EM_REGM2(DEG2RAD) EM_REGM2(RAD2DEG)
    EM_FOR_INTS(EM_REG1, GCD) EM_FOR_INTS(EM_REG1, LCM)
    EM_REG(NEXTAFTER, FLOAT16, em__NEXTAFTER_FLOAT16);
    EM_REGR(FLOOR) EM_REGR(CEIL) EM_REGR(TRUNC)
}
