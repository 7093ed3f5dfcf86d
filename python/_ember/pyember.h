/* Internal header of the _ember extension: a thin CPython client of libember.
 *
 * The ndarray object embeds its em_array view (one buffer reference).  Each
 * extension source file owns one area and exports a PyMethodDef table that
 * module.c adds to the module; ndarray methods written in Python are added
 * to the type by the ember package (ember/_methods.py).
 */
#ifndef PYEMBER_H
#define PYEMBER_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include "ember/ember.h"

struct em_expr;

/* A pending (lazy) array has `pending` set and `a` holding only its dtype,
 * shape, contiguous strides and a memoryless buffer on its device; its
 * values exist once it is forced (fusion.c). */
typedef struct {
    PyObject_HEAD em_array a;
    PyObject *weakreflist;
    struct em_expr *pending;
    /* A leaf expression reading this array, kept for the next lazy op
     * that reads it (x * 0.5 + 1 in a loop builds no new leaf for x). */
    struct em_expr *leaf;
    /* While pending: the stream current for its device, and the thread,
     * when the work was asked for.  The work runs on that stream whichever
     * thread forces it (a stream belongs to one device's context), and only
     * its own thread's stream change flushes it (fusion.c). */
    void *stream;
    unsigned long owner;
} EmArrayObject;

extern PyTypeObject *EmArray_Type;
#define EmArray_Check(o) PyObject_TypeCheck((o), EmArray_Type)

/* fusion.c: the array's data, forced (evaluated if pending) and with every
 * pending expression that reads its memory evaluated first, since the
 * caller may write it or hand it out.  Where a failure can be reported,
 * call pyem_force / pyem_touch first: a failure here (out of memory while
 * evaluating) is fatal.  EMARR_META reads dtype and shape only. */
extern Py_ssize_t pyem_fusion_live;
em_array *pyem_array_slow(PyObject *o);
static inline em_array *pyem_array(PyObject *o) {
    EmArrayObject *e = (EmArrayObject *)o;
    return e->pending || pyem_fusion_live ? pyem_array_slow(o) : &e->a;
}
#define EMARR(o) pyem_array((PyObject *)(o))
#define EMARR_META(o) (&((EmArrayObject *)(o))->a)
/* 0, or -1 with an exception: evaluate o if pending (reason for the log). */
int pyem_force(PyObject *o, const char *reason);
/* Evaluate the pending arrays on device kind d.kind (and id d.id unless
 * it is -1) that this thread asked for, or those asked on stream `on`. */
int pyem_fusion_flush_mine(em_device d, const char *reason);
int pyem_fusion_flush_stream(em_device d, void *on, const char *reason);
/* pyem_force, then evaluate the pending expressions that read o's memory. */
int pyem_touch(PyObject *o, const char *reason);
/* pyem_touch for any object: a buffer's memory (a NumPy array) that Ember will write. */
int pyem_touch_host(PyObject *o, const char *reason);

/* Exceptions (module.c). */
extern PyObject *Em_EmberError, *Em_CompileError, *Em_LaunchError, *Em_DeviceError,
    *Em_OutOfMemoryError;

/* Raise the Python exception for status s with the thread's message; returns NULL. */
PyObject *pyem_raise(em_status s);
/* Wrap a view into a new ndarray; steals the view's reference (a is reset). */
PyObject *pyem_wrap(em_array *a);
/* The numpy.dtype object of dt (borrowed). */
PyObject *pyem_dtype_obj(em_dtype dt);
/* Anything numpy.dtype() accepts (and None -> EM_NDTYPES when allow_none). */
int pyem_dtype_from_obj(PyObject *o, em_dtype *dt, int allow_none);
/* None -> the current device; "cpu", "cuda:1", or anything whose str() is one. */
int pyem_parse_device(PyObject *o, em_device *d);
/* The current default device (module.c keeps it; the ember package sets it). */
em_device pyem_current_device(void);

/* convert.c: any array-like (ndarray, numpy array, buffer, scalar, nested
 * sequence) into a new view on device dev (copy when it must or when
 * copy == 1; copy == 0 forbids copies; -1 copies only if needed).
 * dtype EM_NDTYPES keeps the source's. */
int pyem_as_array(PyObject *o, em_dtype dtype, em_device dev, int copy, em_array *out);
/* A shape from an int or a sequence of ints (at most EM_MAXDIMS). */
int pyem_shape_from_obj(PyObject *o, int *nd, int64_t *shape);
/* The default dtype NumPy gives a Python scalar (bool, int64, float64, complex128). */
int pyem_scalar_dtype(PyObject *o, em_dtype *dt);
/* The dtype a PEP 3118 buffer format of itemsize bytes names, when it is
 * native-endian and one of ours (NumPy's 'l' for int64 too), else EM_NDTYPES. */
em_dtype pyem_buffer_dtype(const char *format, Py_ssize_t itemsize);
/* Where a Python scalar of dtype dt joining work on dev is made: on the
 * host when it is at most 8 bytes, since device kernels take such values
 * by value (render.h, class 'P'); else on dev. */
static inline em_device pyem_scalar_home(em_dtype dt, em_device dev) {
    em_device cpu = {EM_CPU, 0};
    return em_dtype_get(dt)->size <= 8 ? cpu : dev;
}
/* Store a Python scalar as dtype dt into host memory at p (checks range for ints). */
int pyem_scalar_store(PyObject *o, em_dtype dt, void *p);
/* A 0-d host value of dtype dt as a Python scalar. */
PyObject *pyem_scalar_load(em_dtype dt, const void *p);

/* ufunc.c: the elementwise entry points used by the number protocol. */
PyObject *pyem_binary(em_op op, PyObject *a, PyObject *b);
PyObject *pyem_inplace(em_op op, PyObject *a, PyObject *b);
PyObject *pyem_unary(em_op op, PyObject *a);

/* Method tables of each source file (NULL-terminated), added by module.c. */
extern PyMethodDef pyem_ndarray_functions[];
extern PyMethodDef pyem_convert_functions[];
extern PyMethodDef pyem_ufunc_functions[];
extern PyMethodDef pyem_reduce_functions[];
extern PyMethodDef pyem_sort_functions[];
extern PyMethodDef pyem_matmul_functions[];
extern PyMethodDef pyem_index_functions[];
extern PyMethodDef pyem_random_functions[];
extern PyMethodDef pyem_device_functions[];
extern PyMethodDef pyem_cuda_functions[];
extern PyMethodDef pyem_opencl_functions[];
extern PyMethodDef pyem_dlpack_functions[];
extern PyMethodDef pyem_kernel_functions[];
extern PyMethodDef pyem_jit_functions[];
extern PyMethodDef pyem_fusion_functions[];
extern PyMethodDef pyem_stream_functions[];
extern PyMethodDef pyem_cudalib_functions[];
extern PyMethodDef pyem_auto_functions[];

/* auto.c: device="auto".  pyem_auto_enter: 0 when no operand (nor out) is
 * an auto array; 1 when the placement hook ran and moved[0..n) hold the
 * operands to use instead (new references, released by pyem_auto_leave,
 * which marks the result auto); -1 with an exception. */
int pyem_is_auto(PyObject *o);
int pyem_auto_enter(const char *kind, PyObject *const *objs, int n, PyObject *out,
                    PyObject **moved);
PyObject *pyem_auto_leave(PyObject **moved, int n, PyObject *out, PyObject *result);
/* result (stolen, may be NULL), marked auto when src is auto: copies, casts
 * and gathers of an auto array are auto too. */
PyObject *pyem_auto_like(PyObject *src, PyObject *result);
/* Whether an elementwise call on these operands is first tried lazily
 * where they are (all auto, one device, a lazy result): the pending chain
 * is then placed as a whole by pyem_auto_chain when it is evaluated. */
int pyem_auto_defers(PyObject *const *objs, int n, PyObject *out);
/* Before a pending auto array is evaluated (pyem_force): ask the policy
 * where the whole chain runs and move it there unevaluated; -1 on error. */
int pyem_auto_chain(PyObject *o);
/* fusion.c: pending o's values become v (C-contiguous, o's dtype and shape;
 * stolen), as its own evaluation would install them. */
void pyem_fusion_install(EmArrayObject *o, em_array *v);
PyObject *pyem_auto_call(const char *kind, PyCFunctionWithKeywords f, PyObject *self,
                         PyObject *args, PyObject *kw, Py_ssize_t ai, Py_ssize_t oi);

/* fusion.c: lazy elementwise results (see fusion.c). */
void pyem_fusion_dealloc(EmArrayObject *o);
int pyem_fusion_wants(em_device dev, int64_t size, int any_pending);
int pyem_is_pending(PyObject *o);
int pyem_fusion_foreign_ok(void);
/* Evaluate every pending array on device d (d.id < 0: every device of
 * its kind): synchronisation points and CUDA stream changes, so that work
 * runs on the stream that was current when it was asked for. */
int pyem_fusion_flush(em_device d, const char *reason);
struct em_expr;
int pyem_expr_of(PyObject *o, const em_array *view, struct em_expr **out);
/* kernel.c: numpy.generic (set at module init). */
extern PyObject *pyem__np_generic;
/* cuda.c: NVRTC's background load on, waited for at exit (module init). */
int pyem_cuda_prefetch_init(PyObject *m);
PyObject *pyem_wrap_pending(struct em_expr *x);

/* ndarray.c */
int pyem_ndarray_init_type(PyObject *module);
/* kernel.c: the Function type (raw CUDA kernels). */
int pyem_kernel_init_type(PyObject *module);
/* kernel.c: a launch's stream argument (None: the thread's current stream). */
int pyem_kernel_stream(PyObject *o, em_device_kind kind, const char *kname, void **out);
/* jit.c: run a compiled @em.jit kernel on the CPU (_jit_launch) -> its printed text or None. */
PyObject *pyem_jit_cpu_launch(PyObject *spec, PyObject *const *items, Py_ssize_t nargs,
                              PyObject *grid, PyObject *block, PyObject *shared_dyn);
/* jit_launch.c: _JitDispatcher and _JitLauncher (@em.jit's launch path). */
int pyem_jit_launch_init_types(PyObject *module);
/* index.c: subscript protocol used by the ndarray type. */
PyObject *pyem_getitem(PyObject *self, PyObject *key);
int pyem_setitem(PyObject *self, PyObject *key, PyObject *value);

/* Release the GIL around work on more than this many elements. */
#define PYEM_NOGIL_ELEMS 16384

/* s = call, without the GIL when work (elements) is large enough to pay for
 * releasing and re-taking it; small calls keep it (cheaper). */
#define PYEM_CALL(s, work, call)                \
    do {                                        \
        if ((work) > PYEM_NOGIL_ELEMS) {        \
            Py_BEGIN_ALLOW_THREADS(s) = (call); \
            Py_END_ALLOW_THREADS                \
        } else {                                \
            (s) = (call);                       \
        }                                       \
    } while (0)

/* order= of a copy (ndarray.c): 0, or -1 with NumPy's ValueError; *how is
 * 'C', 'F' or 'K' ('A' resolved for a).  dflt is the order for None. */
int pyem_copy_order(PyObject *order, char dflt, const em_array *a, char *how);
/* a cast to dt (EM_NDTYPES: its own) as a new array in order how. */
em_status pyem_astype_order(const em_array *a, em_dtype dt, char how, em_array *out);

#endif
