/* Loops for the logical ops (inputs arrive as bool), the bitwise ops and
 * shifts.  Shifts by >= the bit width are defined in scalar.h. */
#include "backend/cpu/loops.h"
#include "backend/cpu/scalar.h"

#define EM_FOR_INTB(M, ...) M(BOOL, bool, __VA_ARGS__) EM_FOR_INTS(M, __VA_ARGS__)

EM_DEF2(BOOL, bool, LOGICAL_AND, em_logical_and(x, y))
EM_DEF2(BOOL, bool, LOGICAL_OR, em_logical_or(x, y))
EM_DEF2(BOOL, bool, LOGICAL_XOR, em_logical_xor(x, y))
EM_DEF1(BOOL, bool, LOGICAL_NOT, em_logical_not(x))
EM_FOR_INTB(EM_DEF2, BITWISE_AND, em_bitwise_and(x, y))
EM_FOR_INTB(EM_DEF2, BITWISE_OR, em_bitwise_or(x, y))
EM_FOR_INTB(EM_DEF2, BITWISE_XOR, em_bitwise_xor(x, y))
EM_FOR_INTB(EM_DEF1, INVERT, em_invert(x))
EM_FOR_INTS(EM_DEF2, LEFT_SHIFT, em_left_shift(x, y))
EM_FOR_INTS(EM_DEF2, RIGHT_SHIFT, em_right_shift(x, y))

void em_cpu_loops_init_bitwise(void) {
    EM_REG(LOGICAL_AND, BOOL, em__LOGICAL_AND_BOOL);
    EM_REG(LOGICAL_OR, BOOL, em__LOGICAL_OR_BOOL);
    EM_REG(LOGICAL_XOR, BOOL, em__LOGICAL_XOR_BOOL);
    EM_REG(LOGICAL_NOT, BOOL, em__LOGICAL_NOT_BOOL);
    EM_FOR_INTB(EM_REG1, BITWISE_AND)
    EM_FOR_INTB(EM_REG1, BITWISE_OR)
    EM_FOR_INTB(EM_REG1, BITWISE_XOR)
    EM_FOR_INTB(EM_REG1, INVERT)
    EM_FOR_INTS(EM_REG1, LEFT_SHIFT)
    EM_FOR_INTS(EM_REG1, RIGHT_SHIFT)
}
