/* Devices from Python: counts, properties, memory, synchronisation. */
#include "pyember.h"

static PyObject *f_device_count(PyObject *self, PyObject *args) {
    const char *kind;
    if (!PyArg_ParseTuple(args, "s", &kind)) return NULL;
    for (int k = 0; k < EM_NKINDS; k++)
        if (!strcmp(kind, em_device_kind_name(k))) {
            int n;
            em_status s = em_device_count(k, &n);
            return s == EM_OK ? PyLong_FromLong(n) : pyem_raise(s);
        }
    return PyErr_Format(PyExc_ValueError, "unknown device kind '%s'", kind);
}

static PyObject *f_device_props(PyObject *self, PyObject *arg) {
    em_device d;
    if (pyem_parse_device(arg, &d) < 0) return NULL;
    em_device_props p;
    em_status s = em_device_props_get(d, &p);
    if (s != EM_OK) return pyem_raise(s);
    return Py_BuildValue(
        "{s:s,s:(ii),s:i,s:i,s:(iii),s:(iii),s:n,s:n}", "name", p.name, "compute_capability",
        p.compute_capability[0], p.compute_capability[1], "multiprocessor_count",
        p.multiprocessor_count, "max_threads_per_block", p.max_threads_per_block, "max_block_dim",
        p.max_block_dim[0], p.max_block_dim[1], p.max_block_dim[2], "max_grid_dim",
        p.max_grid_dim[0], p.max_grid_dim[1], p.max_grid_dim[2], "shared_memory_per_block",
        (Py_ssize_t)p.shared_memory_per_block, "total_memory", (Py_ssize_t)p.total_memory);
}

static PyObject *f_mem_info(PyObject *self, PyObject *arg) {
    em_device d;
    if (pyem_parse_device(arg, &d) < 0) return NULL;
    size_t fr, tot;
    em_status s = em_device_mem_info(d, &fr, &tot);
    return s == EM_OK ? Py_BuildValue("(nn)", (Py_ssize_t)fr, (Py_ssize_t)tot) : pyem_raise(s);
}

static PyObject *f_synchronize(PyObject *self, PyObject *arg) {
    em_device d;
    if (pyem_parse_device(arg, &d) < 0) return NULL;
    if (pyem_fusion_flush(d, "synchronize") < 0) return NULL; /* pending work is work too */
    em_status s;
    Py_BEGIN_ALLOW_THREADS s = em_device_synchronize(d);
    Py_END_ALLOW_THREADS if (s != EM_OK) return pyem_raise(s);
    Py_RETURN_NONE;
}

static PyObject *f_check_device(PyObject *self, PyObject *arg) {
    em_device d;
    if (pyem_parse_device(arg, &d) < 0) return NULL;
    return Py_BuildValue("(si)", em_device_kind_name(d.kind), d.id);
}

PyMethodDef pyem_device_functions[] = {
    {"device_count", f_device_count, METH_VARARGS, "device_count(kind) -> int"},
    {"device_props", f_device_props, METH_O, "device_props(spec) -> dict"},
    {"mem_info", f_mem_info, METH_O, "mem_info(spec) -> (free, total)"},
    {"synchronize", f_synchronize, METH_O, "synchronize(spec)"},
    {"check_device", f_check_device, METH_O, "check_device(spec) -> (kind, id); raises if absent"},
    {NULL, NULL, 0, NULL}};
