/* Loops for the component ops: real, imag (output the real component type)
 * and conjugate.  For real dtypes they are the value, 0 and the value. */
#include "backend/cpu/loops.h"
#include "backend/cpu/scalar.h"

EM_FOR_REAL(EM_DEF1, REAL, em_real(x))
EM_FOR_REAL(EM_DEF1, IMAG, em_imag(x))
EM_LOOP1(em__REAL_COMPLEX64, float _Complex, float, em_real(x))
EM_LOOP1(em__REAL_COMPLEX128, double _Complex, double, em_real(x))
EM_LOOP1(em__IMAG_COMPLEX64, float _Complex, float, em_imag(x))
EM_LOOP1(em__IMAG_COMPLEX128, double _Complex, double, em_imag(x))
EM_FOR_NUM(EM_DEF1, CONJ, em_conj(x))

void em_cpu_loops_init_complex(void) {
    EM_FOR_ALL(EM_REG1, REAL)
    EM_FOR_ALL(EM_REG1, IMAG)
    EM_FOR_NUM(EM_REG1, CONJ)
}
