/* CUDA-only helpers from Python: the device memory pool. */
#include "pyember.h"

/* From libember's CUDA backend (src/backend/cuda/pool.h). */
EM_API void em_cuda_pool_stats(int id, size_t *used, size_t *total);
EM_API void em_cuda_pool_free_all(int id);
EM_API void em_cuda_pool_set_limit(int id, size_t limit);

/* cuda_pool(id, action="stats", limit=0) -> (used, total) bytes, after
 * action: "stats", "free_all" (release cached blocks) or "set_limit". */
static PyObject *f_cuda_pool(PyObject *self, PyObject *args) {
    int id;
    const char *action = "stats";
    Py_ssize_t limit = 0;
    if (!PyArg_ParseTuple(args, "i|sn", &id, &action, &limit)) return NULL;
    if (id < 0) return PyErr_Format(PyExc_ValueError, "device id must be >= 0, got %d", id);
    if (limit < 0) return PyErr_Format(PyExc_ValueError, "limit must be >= 0 bytes, got %zd", limit);
    if (!strcmp(action, "free_all")) {
        Py_BEGIN_ALLOW_THREADS em_cuda_pool_free_all(id);
        Py_END_ALLOW_THREADS
    } else if (!strcmp(action, "set_limit")) {
        em_cuda_pool_set_limit(id, (size_t)limit);
    } else if (strcmp(action, "stats")) {
        return PyErr_Format(PyExc_ValueError, "unknown pool action '%s'; expected 'stats', 'free_all' or 'set_limit'", action);
    }
    size_t used, total;
    em_cuda_pool_stats(id, &used, &total);
    return Py_BuildValue("(nn)", (Py_ssize_t)used, (Py_ssize_t)total);
}

PyMethodDef pyem_cuda_functions[] = {
    {"cuda_pool", f_cuda_pool, METH_VARARGS, "cuda_pool(id, action='stats', limit=0) -> (used, total)"},
    {NULL, NULL, 0, NULL}};
