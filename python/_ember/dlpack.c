/* DLPack exchange: ember arrays as DLPack capsules and DLPack capsules as
 * ember arrays, without copies.
 *
 * Data model (DLPack 1.x, declared here from the specification rather than
 * vendored): a producer hands out a PyCapsule named "dltensor_versioned"
 * (a DLManagedTensorVersioned *) or, for consumers that did not ask for
 * max_version >= (1, 0), the legacy "dltensor" (a DLManagedTensor *).  The
 * consumer renames the capsule to "used_dltensor[_versioned]" and becomes
 * responsible for calling the tensor's deleter once; a capsule that dies
 * still carrying its original name was never consumed, so its destructor
 * calls the deleter itself.
 *
 * Export keeps the ember array object alive through manager_ctx (one
 * strong reference, dropped by the deleter, which may run on any thread
 * and so takes the GIL).  Import wraps the producer's memory in an
 * em_buffer whose release calls the producer's deleter.
 *
 * OpenCL (kDLOpenCL): DLPack's data is the cl_mem handle and byte_offset
 * the offset into it.  Export decodes Ember's synthetic device address
 * (backend/opencl/mem.c) into the two; import gives the producer's cl_mem a
 * slot of Ember's (em_opencl_adopt: it must belong to the context of
 * Ember's device of that number) and releases it with the producer's
 * tensor.
 *
 * Python-level argument handling (max_version, stream, dl_device, copy)
 * lives in ember/_interop.py; these functions take the decided values.
 */
#include "ember/opencl.h"
#include "pyember.h"

#include <string.h>

/* ---- DLPack declarations (dlpack.h v1.1, by the spec) ------------------- */

enum { kDLCPU = 1, kDLCUDA = 2, kDLCUDAHost = 3, kDLOpenCL = 4, kDLCUDAManaged = 13 };
enum { kDLInt = 0, kDLUInt = 1, kDLFloat = 2, kDLComplex = 5, kDLBool = 6 };

#define DLPACK_MAJOR_VERSION 1
#define DLPACK_MINOR_VERSION 1
#define DLPACK_FLAG_BITMASK_READ_ONLY (UINT64_C(1) << 0)
#define DLPACK_FLAG_BITMASK_IS_COPIED (UINT64_C(1) << 1)

typedef struct {
    int32_t device_type;
    int32_t device_id;
} DLDevice;

typedef struct {
    uint8_t code;
    uint8_t bits;
    uint16_t lanes;
} DLDataType;

typedef struct {
    void *data;
    DLDevice device;
    int32_t ndim;
    DLDataType dtype;
    int64_t *shape;
    int64_t *strides; /* in elements; NULL means C-contiguous */
    uint64_t byte_offset;
} DLTensor;

typedef struct DLManagedTensor {
    DLTensor dl_tensor;
    void *manager_ctx;
    void (*deleter)(struct DLManagedTensor *self);
} DLManagedTensor;

typedef struct {
    uint32_t major;
    uint32_t minor;
} DLPackVersion;

typedef struct DLManagedTensorVersioned {
    DLPackVersion version;
    void *manager_ctx;
    void (*deleter)(struct DLManagedTensorVersioned *self);
    uint64_t flags;
    DLTensor dl_tensor;
} DLManagedTensorVersioned;

static const char CAP_LEGACY[] = "dltensor", CAP_VERSIONED[] = "dltensor_versioned";
static const char USED_LEGACY[] = "used_dltensor", USED_VERSIONED[] = "used_dltensor_versioned";

/* ---- export --------------------------------------------------------------- */

/* One allocation per export: the managed tensor (either kind), the owner
 * reference and the shape/strides arrays the DLTensor points into. */
typedef struct {
    union {
        DLManagedTensor legacy;
        DLManagedTensorVersioned versioned;
    } mt;
    PyObject *owner; /* the ember array whose memory is lent */
    int64_t shape[EM_MAXDIMS];
    int64_t strides[EM_MAXDIMS];
} pyem_dlexport;

static void pyem__dlexport_free(pyem_dlexport *e) {
    if (Py_IsInitialized()) {
        PyGILState_STATE g = PyGILState_Ensure();
        Py_XDECREF(e->owner);
        PyGILState_Release(g);
    }
    PyMem_RawFree(e);
}

static void pyem__deleter_legacy(DLManagedTensor *self) {
    pyem__dlexport_free((pyem_dlexport *)self->manager_ctx);
}

static void pyem__deleter_versioned(DLManagedTensorVersioned *self) {
    pyem__dlexport_free((pyem_dlexport *)self->manager_ctx);
}

/* Capsule destructors: only an unconsumed capsule (original name) owns the tensor. */
static void pyem__capsule_legacy(PyObject *cap) {
    if (!PyCapsule_IsValid(cap, CAP_LEGACY)) return;
    DLManagedTensor *mt = PyCapsule_GetPointer(cap, CAP_LEGACY);
    if (mt && mt->deleter) mt->deleter(mt);
}

static void pyem__capsule_versioned(PyObject *cap) {
    if (!PyCapsule_IsValid(cap, CAP_VERSIONED)) return;
    DLManagedTensorVersioned *mt = PyCapsule_GetPointer(cap, CAP_VERSIONED);
    if (mt && mt->deleter) mt->deleter(mt);
}

static DLDataType pyem__dl_dtype(em_dtype dt) {
    const em_dtype_info *info = em_dtype_get(dt);
    DLDataType t = {kDLFloat, (uint8_t)(info->size * 8), 1};
    switch (info->kind) {
    case 'b': t.code = kDLBool; break;
    case 'i': t.code = kDLInt; break;
    case 'u': t.code = kDLUInt; break;
    case 'c': t.code = kDLComplex; break;
    default: break;
    }
    return t;
}

/* Fill the DLTensor of e from view a (strides converted from bytes to
 * elements; a byte stride that is not a multiple of the itemsize cannot be
 * described and raises BufferError). */
static int pyem__dl_fill(pyem_dlexport *e, DLTensor *t, const em_array *a) {
    int64_t isz = em_dtype_get(a->dtype)->size;
    for (int i = 0; i < a->ndim; i++) {
        if (a->strides[i] % isz) {
            PyErr_SetString(PyExc_BufferError,
                            "array strides are not a multiple of the itemsize; DLPack needs "
                            "element strides (export a copy with copy=True)");
            return -1;
        }
        e->shape[i] = a->shape[i];
        e->strides[i] = a->strides[i] / isz;
    }
    em_device d = em_array_device(a);
    t->data = a->data;
    t->byte_offset = 0;
    t->device.device_type = d.kind == EM_CUDA ? kDLCUDA : kDLCPU;
    t->device.device_id = d.kind == EM_CUDA ? d.id : 0;
    if (d.kind == EM_OPENCL) {
        size_t off = 0;
        void *mem = NULL;
        if (a->data && em_opencl_decode(a->data, &mem, &off) != EM_OK) {
            pyem_raise(EM_EVALUE);
            return -1;
        }
        t->data = mem, t->byte_offset = off;
        t->device.device_type = kDLOpenCL, t->device.device_id = d.id;
    }
    t->ndim = a->ndim;
    t->dtype = pyem__dl_dtype(a->dtype);
    t->shape = e->shape;
    t->strides = e->strides;
    return 0;
}

/* _dlpack_export(x, versioned, copied) -> capsule lending x's memory.
 * `copied` only sets the IS_COPIED flag (the caller made x a fresh copy).
 * A read-only x cannot be exported as a legacy capsule (it has no flag to
 * say so). */
static PyObject *pyem__dlpack_export(PyObject *self, PyObject *args) {
    PyObject *x;
    int versioned, copied;
    if (!PyArg_ParseTuple(args, "O!pp", EmArray_Type, &x, &versioned, &copied)) return NULL;
    em_array *a = EMARR(x);
    em_device_kind k = em_array_device(a).kind;
    if (k != EM_CPU && k != EM_CUDA && k != EM_OPENCL)
        return PyErr_Format(PyExc_BufferError,
                            "DLPack export supports CPU, CUDA and OpenCL arrays, not %s",
                            em_device_kind_name(k));
    int readonly = !(a->flags & EM_WRITEABLE);
    if (readonly && !versioned) {
        PyErr_SetString(PyExc_BufferError,
                        "cannot export a read-only array as a legacy DLPack capsule (it cannot "
                        "signal read-only); ask for max_version=(1, 0) or later");
        return NULL;
    }
    pyem_dlexport *e = PyMem_RawCalloc(1, sizeof *e);
    if (!e) return PyErr_NoMemory();
    DLTensor *t = versioned ? &e->mt.versioned.dl_tensor : &e->mt.legacy.dl_tensor;
    if (pyem__dl_fill(e, t, a) < 0) {
        PyMem_RawFree(e);
        return NULL;
    }
    PyObject *cap;
    if (versioned) {
        DLManagedTensorVersioned *m = &e->mt.versioned;
        m->version.major = DLPACK_MAJOR_VERSION;
        m->version.minor = DLPACK_MINOR_VERSION;
        m->manager_ctx = e;
        m->deleter = pyem__deleter_versioned;
        m->flags = (readonly ? DLPACK_FLAG_BITMASK_READ_ONLY : 0) |
                   (copied ? DLPACK_FLAG_BITMASK_IS_COPIED : 0);
        cap = PyCapsule_New(m, CAP_VERSIONED, pyem__capsule_versioned);
    } else {
        e->mt.legacy.manager_ctx = e;
        e->mt.legacy.deleter = pyem__deleter_legacy;
        cap = PyCapsule_New(&e->mt.legacy, CAP_LEGACY, pyem__capsule_legacy);
    }
    if (!cap) {
        PyMem_RawFree(e);
        return NULL;
    }
    e->owner = Py_NewRef(x);
    return cap;
}

/* ---- import --------------------------------------------------------------- */

static void pyem__release_legacy(void *ctx) {
    DLManagedTensor *mt = ctx;
    if (mt->deleter) mt->deleter(mt);
}

static void pyem__release_versioned(void *ctx) {
    DLManagedTensorVersioned *mt = ctx;
    if (mt->deleter) mt->deleter(mt);
}

/* An imported OpenCL tensor: Ember's slot for its cl_mem and the producer's deleter. */
typedef struct {
    void *ptr, *mt;
    void (*release)(void *);
} pyem_dlocl;

static void pyem__release_ocl(void *ctx) {
    pyem_dlocl *o = ctx;
    em_opencl_unadopt(o->ptr);
    o->release(o->mt);
    PyMem_RawFree(o);
}

static int pyem__em_dtype(DLDataType t, em_dtype *out) {
    static const char kinds[] = {
        [kDLInt] = 'i', [kDLUInt] = 'u', [kDLFloat] = 'f', [kDLComplex] = 'c', [kDLBool] = 'b'};
    char kind = t.code < sizeof kinds ? kinds[t.code] : 0;
    for (int i = 0; kind && t.lanes == 1 && i < EM_NDTYPES; i++) {
        const em_dtype_info *info = em_dtype_get(i);
        if (info->kind == kind && info->size * 8 == t.bits) {
            *out = (em_dtype)i;
            return 0;
        }
    }
    PyErr_Format(PyExc_BufferError,
                 "DLPack dtype (code %d, bits %d, lanes %d) is not supported by ember (supported: "
                 "bool, int8..int64, uint8..uint64, float16/32/64, complex64/128, one lane)",
                 (int)t.code, (int)t.bits, (int)t.lanes);
    return -1;
}

static int pyem__em_device(DLDevice d, em_device *out) {
    switch (d.device_type) {
    case kDLCPU:
    case kDLCUDAHost: out->kind = EM_CPU, out->id = 0; return 0;
    case kDLCUDA:
    case kDLCUDAManaged: out->kind = EM_CUDA, out->id = d.device_id; return 0;
    case kDLOpenCL: out->kind = EM_OPENCL, out->id = d.device_id; return 0;
    default:
        PyErr_Format(PyExc_BufferError,
                     "DLPack device type %d is not supported by ember (supported: CPU, CUDA, "
                     "CUDA host and managed memory, OpenCL)",
                     (int)d.device_type);
        return -1;
    }
}

/* A CUDA tensor needs a CUDA device ember can see. */
static int pyem__dl_check_device(em_device dev) {
    int n = 0;
    if (dev.kind == EM_CPU) return 0;
    if (em_device_count(dev.kind, &n) != EM_OK) n = 0;
    if (dev.id >= 0 && dev.id < n) return 0;
    const char *kind = dev.kind == EM_OPENCL ? "OpenCL" : "CUDA";
    PyErr_Format(PyExc_BufferError,
                 "DLPack tensor lives on %s device %d but ember sees %d %s device(s)", kind, dev.id,
                 n, kind);
    return -1;
}

/* Ember's typed loops read elements in place: the first element must sit on
 * the dtype's alignment (a complex number on its component's).  Element
 * strides keep that alignment. */
static int pyem__dl_check_aligned(const DLTensor *t, em_dtype dt) {
    const em_dtype_info *info = em_dtype_get(dt);
    uintptr_t align = info->kind == 'c' ? info->size / 2u : info->size;
    uintptr_t addr = (uintptr_t)t->data + (uintptr_t)t->byte_offset;
    if (t->device.device_type == kDLOpenCL) addr = (uintptr_t)t->byte_offset; /* a handle */
    if (!t->data) {
        PyErr_SetString(PyExc_BufferError, "DLPack tensor has a null data pointer but elements");
        return -1;
    }
    if (addr % align == 0) return 0;
    PyErr_Format(PyExc_BufferError,
                 "DLPack tensor data at %p is not aligned to %u bytes as %s needs; copy it "
                 "first",
                 (void *)addr, (unsigned)align, info->name);
    return -1;
}

/* Check the DLTensor and describe it as an em_array layout (byte strides). */
static int pyem__dl_layout(const DLTensor *t, em_dtype *dt, em_device *dev, int64_t *shape,
                           int64_t *strides) {
    if (t->ndim < 0 || t->ndim > EM_MAXDIMS) {
        PyErr_Format(PyExc_BufferError, "DLPack tensor has %d dimensions; ember allows 0..%d",
                     (int)t->ndim, EM_MAXDIMS);
        return -1;
    }
    if (pyem__em_dtype(t->dtype, dt) < 0 || pyem__em_device(t->device, dev) < 0 ||
        pyem__dl_check_device(*dev) < 0)
        return -1;
    if (t->ndim > 0 && !t->shape) {
        PyErr_SetString(PyExc_BufferError, "DLPack tensor has no shape");
        return -1;
    }
    int64_t isz = em_dtype_get(*dt)->size, n;
    for (int i = 0; i < t->ndim; i++) shape[i] = t->shape[i];
    em_status s = em_shape_size(t->ndim, shape, &n);
    if (s != EM_OK) {
        pyem_raise(s);
        return -1;
    }
    for (int i = 0; i < t->ndim && t->strides; i++) {
        if (__builtin_mul_overflow(t->strides[i], isz, &strides[i])) {
            PyErr_SetString(PyExc_BufferError, "DLPack tensor strides overflow");
            return -1;
        }
    }
    return n ? pyem__dl_check_aligned(t, *dt) : 0;
}

/* _dlpack_import(capsule) -> ndarray viewing the producer's memory.  The
 * capsule is consumed (renamed) only once the view exists. */
static PyObject *pyem__dlpack_import(PyObject *self, PyObject *cap) {
    int versioned = PyCapsule_IsValid(cap, CAP_VERSIONED);
    if (!versioned && !PyCapsule_IsValid(cap, CAP_LEGACY))
        return PyErr_Format(PyExc_TypeError,
                            "expected a DLPack capsule named 'dltensor' or 'dltensor_versioned' "
                            "(a consumed capsule cannot be used twice), got %R",
                            cap);
    void *mt = PyCapsule_GetPointer(cap, versioned ? CAP_VERSIONED : CAP_LEGACY);
    if (!mt) return NULL;
    DLTensor *t = &((DLManagedTensor *)mt)->dl_tensor;
    uint64_t flags = 0;
    if (versioned) {
        DLManagedTensorVersioned *v = mt;
        if (v->version.major != DLPACK_MAJOR_VERSION)
            return PyErr_Format(PyExc_BufferError,
                                "DLPack version %u.%u is not supported (ember reads 1.x)",
                                v->version.major, v->version.minor);
        t = &v->dl_tensor;
        flags = v->flags;
    }
    em_dtype dt;
    em_device dev;
    int64_t shape[EM_MAXDIMS], strides[EM_MAXDIMS];
    if (pyem__dl_layout(t, &dt, &dev, shape, strides) < 0) return NULL;
    /* From here the capsule is ours: its deleter runs when our view dies,
     * or now if the view cannot be made. */
    if (PyCapsule_SetName(cap, versioned ? USED_VERSIONED : USED_LEGACY) < 0) return NULL;
    void (*release)(void *) = versioned ? pyem__release_versioned : pyem__release_legacy;
    void *ctx = mt;
    char *data = (char *)t->data;
    if (dev.kind == EM_OPENCL && t->data) {
        /* The cl_mem gets a slot of Ember's; both go when the view does. */
        pyem_dlocl *o = PyMem_RawMalloc(sizeof *o);
        em_status s = o ? em_opencl_adopt(dev.id, t->data, &o->ptr) : EM_ENOMEM;
        if (s != EM_OK) {
            PyMem_RawFree(o);
            release(mt);
            if (s == EM_ENOMEM) return PyErr_NoMemory();
            PyErr_Format(PyExc_BufferError, "DLPack OpenCL tensor: %s", em_last_error());
            return NULL;
        }
        o->mt = mt, o->release = release;
        data = o->ptr, ctx = o, release = pyem__release_ocl;
    }
    em_array a;
    em_status s = em_array_wrap(&a, data + t->byte_offset, dt, t->ndim, shape,
                                t->strides ? strides : NULL, dev, release, ctx);
    if (s != EM_OK) {
        release(ctx);
        return pyem_raise(s);
    }
    if (flags & DLPACK_FLAG_BITMASK_READ_ONLY) a.flags &= ~(uint32_t)EM_WRITEABLE;
    return pyem_wrap(&a);
}

/* ---- raw device pointers (__cuda_array_interface__) ----------------------- */

static void pyem__decref_owner(void *ctx) {
    if (!Py_IsInitialized()) return;
    PyGILState_STATE g = PyGILState_Ensure();
    Py_DECREF((PyObject *)ctx);
    PyGILState_Release(g);
}

/* A sequence of ints into out[]: *n entries when *n >= 0 (else any count up
 * to EM_MAXDIMS, stored in *n). */
static int pyem__int64_seq(PyObject *seq, int *n, int64_t *out, const char *what) {
    PyObject *f = PySequence_Fast(seq, what);
    if (!f) return -1;
    Py_ssize_t len = PySequence_Fast_GET_SIZE(f);
    int bad = len > EM_MAXDIMS || (*n >= 0 && len != *n);
    if (len > EM_MAXDIMS)
        PyErr_Format(PyExc_ValueError, "%s has %zd entries; ember allows %d at most", what, len,
                     EM_MAXDIMS);
    else if (bad)
        PyErr_Format(PyExc_ValueError, "%s has %zd entries but the shape has %d", what, len, *n);
    for (Py_ssize_t i = 0; !bad && i < len; i++) {
        out[i] = PyLong_AsLongLong(PySequence_Fast_GET_ITEM(f, i));
        bad = out[i] == -1 && PyErr_Occurred();
    }
    Py_DECREF(f);
    if (bad) return -1;
    *n = (int)len;
    return 0;
}

/* _wrap_pointer(ptr, shape, dtype, strides_or_None, device, owner, readonly)
 * -> ndarray over someone else's device memory, keeping owner alive. */
static PyObject *pyem__wrap_pointer(PyObject *self, PyObject *args) {
    PyObject *pyptr, *shape_o, *dtype_o, *strides_o, *dev_o, *owner;
    int readonly, nd = -1, nst;
    if (!PyArg_ParseTuple(args, "OOOOOOp", &pyptr, &shape_o, &dtype_o, &strides_o, &dev_o, &owner,
                          &readonly))
        return NULL;
    void *ptr = PyLong_AsVoidPtr(pyptr);
    int64_t shape[EM_MAXDIMS], strides[EM_MAXDIMS];
    em_dtype dt;
    em_device dev;
    if ((!ptr && PyErr_Occurred()) || pyem__int64_seq(shape_o, &nd, shape, "shape") < 0 ||
        pyem_dtype_from_obj(dtype_o, &dt, 0) < 0 || pyem_parse_device(dev_o, &dev) < 0)
        return NULL;
    nst = nd;
    if (strides_o != Py_None && pyem__int64_seq(strides_o, &nst, strides, "strides") < 0)
        return NULL;
    int64_t n;
    em_status s = em_shape_size(nd, shape, &n);
    if (s != EM_OK) return pyem_raise(s);
    if (!ptr && n > 0)
        return PyErr_Format(PyExc_ValueError, "null data pointer for a non-empty array");
    em_array a;
    s = em_array_wrap(&a, ptr, dt, nd, shape, strides_o == Py_None ? NULL : strides, dev,
                      pyem__decref_owner, owner);
    if (s != EM_OK) return pyem_raise(s);
    Py_INCREF(owner);
    if (readonly) a.flags &= ~(uint32_t)EM_WRITEABLE;
    return pyem_wrap(&a);
}

PyMethodDef pyem_dlpack_functions[] = {
    {"_wrap_pointer", pyem__wrap_pointer, METH_VARARGS,
     "_wrap_pointer(ptr, shape, dtype, strides, device, owner, readonly): an ndarray over "
     "foreign memory (the CUDA array interface)."},
    {"_dlpack_export", pyem__dlpack_export, METH_VARARGS,
     "_dlpack_export(x, versioned, copied): a DLPack capsule lending x's memory."},
    {"_dlpack_import", pyem__dlpack_import, METH_O,
     "_dlpack_import(capsule): an ndarray viewing a DLPack capsule's memory (consumes it)."},
    {NULL, NULL, 0, NULL}};
