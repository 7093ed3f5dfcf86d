/* Counter-based random numbers from Python. */
#include "pyember.h"

PyMethodDef pyem_random_functions[] = {{NULL, NULL, 0, NULL}};
