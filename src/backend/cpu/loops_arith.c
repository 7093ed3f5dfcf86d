/* Loops for copy, arithmetic and comparison ops.
 * Built with -fwrapv: signed overflow wraps, as NumPy's does. */
#include "backend/cpu/loops.h"

#include <complex.h>

em_loop_fn em_cpu_loops[EM_NOPS][EM_NDTYPES];

/* Apply M(DT, T, ...) to every dtype with loops (float16 has none). */
#define EM_FOR_INTS(M, ...)                                                                        \
    M(INT8, int8_t, __VA_ARGS__) M(INT16, int16_t, __VA_ARGS__) M(INT32, int32_t, __VA_ARGS__)    \
    M(INT64, int64_t, __VA_ARGS__) M(UINT8, uint8_t, __VA_ARGS__)                                  \
    M(UINT16, uint16_t, __VA_ARGS__) M(UINT32, uint32_t, __VA_ARGS__)                              \
    M(UINT64, uint64_t, __VA_ARGS__)
#define EM_FOR_FLOATS(M, ...) M(FLOAT32, float, __VA_ARGS__) M(FLOAT64, double, __VA_ARGS__)
#define EM_FOR_COMPLEX(M, ...)                                                                     \
    M(COMPLEX64, float _Complex, __VA_ARGS__) M(COMPLEX128, double _Complex, __VA_ARGS__)
#define EM_FOR_NUM(M, ...)                                                                         \
    EM_FOR_INTS(M, __VA_ARGS__) EM_FOR_FLOATS(M, __VA_ARGS__) EM_FOR_COMPLEX(M, __VA_ARGS__)
#define EM_FOR_ALL(M, ...) M(BOOL, bool, __VA_ARGS__) EM_FOR_NUM(M, __VA_ARGS__)

/* Same-type binary op: define, then register. */
#define EM_DEF2(DT, T, OP, EXPR) EM_LOOP2(em__##OP##_##DT, T, T, EXPR)
#define EM_DEF2B(DT, T, OP, EXPR) EM_LOOP2(em__##OP##_##DT, T, bool, EXPR)
#define EM_DEF1(DT, T, OP, EXPR) EM_LOOP1(em__##OP##_##DT, T, T, EXPR)
#define EM_DEFW(DT, T, OP, EXPR) EM_LOOP3(em__##OP##_##DT, bool, T, T, EXPR)
#define EM_REG1(DT, T, OP, EXPR) EM_REG(OP, DT, em__##OP##_##DT);

EM_FOR_ALL(EM_DEF1, COPY, x)
EM_FOR_ALL(EM_DEF2, ADD, x + y)
EM_FOR_NUM(EM_DEF2, SUBTRACT, x - y)
EM_FOR_NUM(EM_DEF2, MULTIPLY, x * y)
EM_DEF2(BOOL, bool, MULTIPLY, x && y)
EM_FOR_FLOATS(EM_DEF2, DIVIDE, x / y)
EM_FOR_COMPLEX(EM_DEF2, DIVIDE, x / y)
EM_FOR_ALL(EM_DEF2B, EQUAL, x == y)
EM_FOR_ALL(EM_DEF2B, NOT_EQUAL, x != y)
EM_FOR_ALL(EM_DEFW, WHERE, x ? y : z)

void em_cpu_loops_init_arith(void) {
    EM_FOR_ALL(EM_REG1, COPY, _)
    EM_FOR_ALL(EM_REG1, ADD, _)
    EM_FOR_NUM(EM_REG1, SUBTRACT, _)
    EM_FOR_ALL(EM_REG1, MULTIPLY, _)
    EM_FOR_FLOATS(EM_REG1, DIVIDE, _)
    EM_FOR_COMPLEX(EM_REG1, DIVIDE, _)
    EM_FOR_ALL(EM_REG1, EQUAL, _)
    EM_FOR_ALL(EM_REG1, NOT_EQUAL, _)
    EM_FOR_ALL(EM_REG1, WHERE, _)
}
