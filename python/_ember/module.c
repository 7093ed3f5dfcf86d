/* The _ember module: exceptions, dtype objects, the current device, and the
 * function tables of every source file of the extension.
 * The module keeps process-wide state in C globals (one interpreter). */
#include "pyember.h"

PyObject *Em_EmberError, *Em_CompileError, *Em_LaunchError, *Em_DeviceError, *Em_OutOfMemoryError;

static PyObject *pyem__dtypes[EM_NDTYPES];
/* The current device: per thread (as in CuPy), starting from the process default. */
static em_device pyem__default_device = {EM_CPU, 0};
static _Thread_local em_device pyem__device;
static _Thread_local int pyem__device_set;

PyObject *pyem_raise(em_status s) {
    PyObject *exc;
    switch (s) {
    case EM_ETYPE:
    case EM_EUNSUPPORTED: exc = PyExc_TypeError; break;
    case EM_EVALUE:
    case EM_ESHAPE:
    case EM_EOVERFLOW: exc = PyExc_ValueError; break;
    case EM_EINDEX: exc = PyExc_IndexError; break;
    case EM_ENOMEM: exc = Em_OutOfMemoryError; break;
    case EM_EDEVICE: exc = Em_DeviceError; break;
    case EM_ECOMPILE: exc = Em_CompileError; break;
    case EM_ELAUNCH: exc = Em_LaunchError; break;
    case EM_EZERODIV: exc = PyExc_ZeroDivisionError; break;
    default: exc = Em_EmberError; break;
    }
    const char *msg = em_last_error();
    PyErr_SetString(exc, msg[0] ? msg : em_status_name(s));
    return NULL;
}

PyObject *pyem_dtype_obj(em_dtype dt) { return pyem__dtypes[dt]; }

/* Strings and type objects already converted ("float32", em.float32):
 * numpy.dtype() and the comparisons below cost more than the rest of
 * em.empty.  Only exact str and type keys: their hash and == cannot run
 * user code.  Bounded, since strings come from anywhere. */
static PyObject *pyem__dtype_memo;

static int pyem__dtype_memo_get(PyObject *o, em_dtype *dt) {
    if (!pyem__dtype_memo || !(PyUnicode_CheckExact(o) || PyType_Check(o))) return 0;
    PyObject *v = PyDict_GetItemWithError(pyem__dtype_memo, o);
    if (!v) return PyErr_Occurred() ? -1 : 0;
    *dt = (em_dtype)PyLong_AsLong(v);
    return 1;
}

static void pyem__dtype_memo_put(PyObject *o, em_dtype dt) {
    if (!(PyUnicode_CheckExact(o) || PyType_Check(o))) return;
    if (!pyem__dtype_memo && !(pyem__dtype_memo = PyDict_New())) return PyErr_Clear();
    if (PyDict_GET_SIZE(pyem__dtype_memo) >= 256) return;
    PyObject *v = PyLong_FromLong((long)dt);
    if (!v || PyDict_SetItem(pyem__dtype_memo, o, v) < 0) PyErr_Clear();
    Py_XDECREF(v);
}

int pyem_dtype_from_obj(PyObject *o, em_dtype *dt, int allow_none) {
    if (o == Py_None) {
        if (allow_none) {
            *dt = EM_NDTYPES;
            return 0;
        }
    }
    for (int i = 0; i < EM_NDTYPES; i++)
        if (o == pyem__dtypes[i]) {
            *dt = (em_dtype)i;
            return 0;
        }
    int memo = pyem__dtype_memo_get(o, dt);
    if (memo) return memo < 0 ? -1 : 0;
    /* Anything numpy.dtype() understands: type objects, strings, dtypes. */
    PyObject *npdt = PyObject_CallOneArg((PyObject *)Py_TYPE(pyem__dtypes[0]), o);
    if (!npdt) {
        PyErr_Clear();
        PyObject *np = PyImport_ImportModule("numpy");
        if (!np) return -1;
        npdt = PyObject_CallMethod(np, "dtype", "O", o);
        Py_DECREF(np);
        if (!npdt) {
            PyObject *r = PyObject_Repr(o);
            PyErr_Format(PyExc_TypeError, "data type %U not understood", r ? r : o);
            Py_XDECREF(r);
            return -1;
        }
    }
    for (int i = 0; i < EM_NDTYPES; i++) {
        int eq = PyObject_RichCompareBool(npdt, pyem__dtypes[i], Py_EQ);
        if (eq == 1) {
            Py_DECREF(npdt);
            *dt = (em_dtype)i;
            pyem__dtype_memo_put(o, *dt);
            return 0;
        }
    }
    PyErr_Format(PyExc_TypeError,
                 "dtype %R is not supported by ember (supported: bool, int8..int64, "
                 "uint8..uint64, float16, float32, float64, complex64, complex128)",
                 npdt);
    Py_DECREF(npdt);
    return -1;
}

static int pyem__default_resolved;

/* The process default, resolved on first need rather than at import (so
 * importing touches no driver): the first CUDA device when one is present,
 * else the CPU.  EMBER_DEVICE (handled by ember/_device.py through
 * _set_device(spec, True)) resolves it earlier. */
static void pyem__resolve_default(void) {
    int n = 0;
    pyem__default_resolved = 1;
    if (em_device_count(EM_CUDA, &n) == EM_OK && n > 0)
        pyem__default_device = (em_device){EM_CUDA, 0};
}

em_device pyem_current_device(void) {
    if (pyem__device_set) return pyem__device;
    if (!pyem__default_resolved) pyem__resolve_default();
    return pyem__default_device;
}

static PyObject *pyem__set_device(PyObject *self, PyObject *args) {
    const char *spec;
    int process_default = 0;
    if (!PyArg_ParseTuple(args, "s|p", &spec, &process_default)) return NULL;
    em_device d;
    em_status s = em_device_parse(spec, &d);
    if (s != EM_OK) return pyem_raise(s);
    if (process_default)
        pyem__default_device = d, pyem__default_resolved = 1;
    else
        pyem__device = d, pyem__device_set = 1;
    Py_RETURN_NONE;
}

static PyObject *pyem__get_device(PyObject *self, PyObject *unused) {
    em_device d = pyem_current_device();
    return Py_BuildValue("(si)", em_device_kind_name(d.kind), d.id);
}

static PyObject *pyem__num_threads(PyObject *self, PyObject *args) {
    int n = 0;
    if (!PyArg_ParseTuple(args, "|i", &n)) return NULL;
    if (n > 0) em_set_num_threads(n);
    return PyLong_FromLong(em_get_num_threads());
}

static PyObject *pyem__host_pool(PyObject *self, PyObject *args) {
    int release = 0;
    if (!PyArg_ParseTuple(args, "|p", &release)) return NULL;
    if (release) em_host_pool_release();
    size_t used, cached;
    em_host_pool_stats(&used, &cached);
    return Py_BuildValue("(nn)", (Py_ssize_t)used, (Py_ssize_t)cached);
}

static PyMethodDef pyem__module_functions[] = {
    {"_set_device", pyem__set_device, METH_VARARGS,
     "_set_device(spec, process_default=False): make a device current (for this thread)."},
    {"_get_device", pyem__get_device, METH_NOARGS, "(kind, id) of the current device."},
    {"num_threads", pyem__num_threads, METH_VARARGS, "Get (and set, if n > 0) CPU worker threads."},
    {"host_pool", pyem__host_pool, METH_VARARGS,
     "(used, cached) bytes of the host pool; release=True frees the cache."},
    {NULL, NULL, 0, NULL}};

static int pyem__add_exceptions(PyObject *m) {
    Em_EmberError = PyErr_NewExceptionWithDoc("ember.EmberError", "Base of Ember's errors.",
                                              PyExc_RuntimeError, NULL);
    Em_CompileError = PyErr_NewException("ember.CompileError", Em_EmberError, NULL);
    Em_LaunchError = PyErr_NewException("ember.LaunchError", Em_EmberError, NULL);
    Em_DeviceError = PyErr_NewException("ember.DeviceError", Em_EmberError, NULL);
    PyObject *bases = PyTuple_Pack(2, Em_EmberError, PyExc_MemoryError);
    Em_OutOfMemoryError = bases ? PyErr_NewException("ember.OutOfMemoryError", bases, NULL) : NULL;
    Py_XDECREF(bases);
    if (!Em_EmberError || !Em_CompileError || !Em_LaunchError || !Em_DeviceError ||
        !Em_OutOfMemoryError)
        return -1;
    if (PyModule_AddObjectRef(m, "EmberError", Em_EmberError) < 0 ||
        PyModule_AddObjectRef(m, "CompileError", Em_CompileError) < 0 ||
        PyModule_AddObjectRef(m, "LaunchError", Em_LaunchError) < 0 ||
        PyModule_AddObjectRef(m, "DeviceError", Em_DeviceError) < 0 ||
        PyModule_AddObjectRef(m, "OutOfMemoryError", Em_OutOfMemoryError) < 0)
        return -1;
    return 0;
}

static int pyem__add_dtypes(PyObject *m) {
    PyObject *np = PyImport_ImportModule("numpy");
    if (!np) return -1;
    PyObject *names = PyList_New(0);
    for (int i = 0; i < EM_NDTYPES; i++) {
        pyem__dtypes[i] = PyObject_CallMethod(np, "dtype", "s", em_dtype_get(i)->name);
        if (!pyem__dtypes[i]) {
            Py_DECREF(np);
            return -1;
        }
        PyList_Append(names, PyUnicode_FromString(em_dtype_get(i)->name));
    }
    Py_DECREF(np);
    return PyModule_AddObject(m, "dtype_names", names);
}

static int pyem__add_table(PyObject *m, PyMethodDef *defs) {
    for (PyMethodDef *d = defs; d->ml_name; d++) {
        PyObject *f = PyCFunction_NewEx(d, NULL, PyModule_GetNameObject(m));
        if (!f || PyModule_AddObject(m, d->ml_name, f) < 0) return -1;
    }
    return 0;
}

static PyObject *pyem__op_names(void) {
    PyObject *d = PyDict_New();
    for (int i = 0; d && i < EM_NOPS; i++) {
        const em_op_info *info = em_op_get(i);
        PyObject *v = Py_BuildValue("(ii)", i, info->nin);
        PyDict_SetItemString(d, info->name, v);
        Py_XDECREF(v);
    }
    return d;
}

static struct PyModuleDef pyem__module = {PyModuleDef_HEAD_INIT, "_ember",
                                          "Ember's C extension (a client of libember).", -1,
                                          pyem__module_functions};

PyMODINIT_FUNC PyInit__ember(void) {
    PyObject *m = PyModule_Create(&pyem__module);
    if (!m) return NULL;
    PyMethodDef *tables[] = {pyem_ndarray_functions, pyem_convert_functions, pyem_ufunc_functions,
                             pyem_reduce_functions,  pyem_index_functions,   pyem_random_functions,
                             pyem_device_functions,  pyem_cuda_functions,    pyem_dlpack_functions,
                             pyem_kernel_functions,  pyem_jit_functions,     pyem_fusion_functions,
                             pyem_stream_functions,  pyem_sort_functions,    pyem_opencl_functions,
                             pyem_cudalib_functions, pyem_matmul_functions,  pyem_auto_functions};
    int bad = pyem__add_exceptions(m) < 0 || pyem__add_dtypes(m) < 0 ||
              pyem_ndarray_init_type(m) < 0 || pyem_kernel_init_type(m) < 0 ||
              pyem_jit_launch_init_types(m) < 0;
    for (size_t i = 0; !bad && i < sizeof tables / sizeof *tables; i++)
        bad = pyem__add_table(m, tables[i]) < 0;
    if (!bad) bad = PyModule_AddObject(m, "ops", pyem__op_names()) < 0;
    if (!bad) bad = pyem_cuda_prefetch_init(m) < 0;
    if (!bad) bad = PyModule_AddStringConstant(m, "__version__", EM_VERSION) < 0;
    if (!bad) bad = PyModule_AddIntConstant(m, "MAXDIMS", EM_MAXDIMS) < 0;
    if (bad) {
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
