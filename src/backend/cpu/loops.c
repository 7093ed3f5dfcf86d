/* The CPU loop table, generated: one typed loop per op of include/ember/ops.def
 * and per loop dtype its row declares (the build's tools/gen_scalar.c lists
 * them in ember_loops.inc), each calling the scalar library's em_<op>_<suffix>
 * (codegen/scalar.h), the same functions the device preludes hold.  Built
 * with -fwrapv, so signed overflow wraps as NumPy's does.  vmath.c later
 * replaces some float loops with SIMD ones. */
#include "backend/cpu/loops.h"
#include "codegen/head_c.h"
#include "codegen/scalar.h"
#include "codegen/scalar_complex.h"

em_loop_fn em_cpu_loops[EM_NOPS][EM_NDTYPES];

#define EM_LOOP_ROW(OP, name, nin, DT, S, T, OT) \
    EM_LOOP##nin(em__##OP##_##DT, T, OT, em_##name##_##S)
#include "ember_loops.inc"
#undef EM_LOOP_ROW

void em_cpu_loops_init_table(void) {
#define EM_LOOP_ROW(OP, name, nin, DT, S, T, OT) \
    em_cpu_loops[EM_OP_##OP][EM_##DT] = em__##OP##_##DT;
#include "ember_loops.inc"
#undef EM_LOOP_ROW
}
