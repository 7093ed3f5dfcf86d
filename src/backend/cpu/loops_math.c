/* Loops for the float math ops (sqrt, exp, trig, ...). */
#include "backend/cpu/loops.h"

#include <complex.h>
#include <math.h>

void em_cpu_loops_init_math(void) {}
