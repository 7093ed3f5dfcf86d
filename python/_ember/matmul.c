/* The device matrix product from Python (em_matmul): ember/linalg.py calls
 * it for OpenCL arrays (CUDA's go to cuBLAS, the CPU's to NumPy). */
#include "pyember.h"

/* _ember.device_matmul(a, b): stacks of one dtype and batch shape. */
static PyObject *f_device_matmul(PyObject *self, PyObject *args) {
    PyObject *ao, *bo;
    if (!PyArg_ParseTuple(args, "O!O!", EmArray_Type, &ao, EmArray_Type, &bo)) return NULL;
    const em_array *a = EMARR(ao), *b = a ? EMARR(bo) : NULL;
    if (!a || !b) return NULL;
    em_array res = {0};
    em_status s;
    PYEM_CALL(s, em_array_size(a) + em_array_size(b), em_matmul(a, b, &res));
    if (s != EM_OK) return pyem_raise(s);
    return pyem_wrap(&res);
}

PyMethodDef pyem_matmul_functions[] = {
    {"device_matmul", f_device_matmul, METH_VARARGS,
     "device_matmul(a, b): a @ b with the tiled kernel (stacks of one dtype and batch shape)"},
    {NULL, NULL, 0, NULL}};
