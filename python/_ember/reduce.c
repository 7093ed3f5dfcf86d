/* Reductions and scans from Python. */
#include "pyember.h"

PyMethodDef pyem_reduce_functions[] = {{NULL, NULL, 0, NULL}};
