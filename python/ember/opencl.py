"""``em.opencl``: OpenCL devices and raw OpenCL C programs, PyOpenCL's way.

    prg = em.opencl.Program('''
    __kernel void twice(__global float *a, float f) {
        int i = get_global_id(0);
        a[i] *= f;
    }''').build()
    prg.twice((n,), None, a, np.float32(2))

Every GPU, CPU and accelerator device of every OpenCL platform is a device
``opencl:N`` (``em.Device("opencl:0")``, ``EMBER_DEVICE=opencl:0``); Ember's
arrays live on it as on a CUDA device.  A program is built for the current
device when it is an OpenCL one, else for ``opencl:0`` (or the ``device``
given), through Ember's disk cache.  Kernel arguments are Ember arrays on that
device (passed as their buffer: a view at an offset into its buffer is
refused), NumPy scalars (``np.float32(2)``: their type is the argument's, as
in PyOpenCL; a Python int or float is refused unless
``kernel.set_scalar_arg_dtypes`` names its type) and ``LocalMemory(nbytes)``.
"""
import warnings as _warnings

import numpy as _np

from . import _ember
from ._device import Device, get_device

__all__ = ["is_available", "device_count", "devices", "device_info", "platforms", "Program",
           "Kernel", "LocalMemory", "RawKernel", "pool_stats", "pool_free_all", "pool_set_limit",
           "pyopencl_context", "pyopencl_queue", "as_pyopencl", "from_pyopencl"]


def is_available():
    """Whether an OpenCL device is present (the ICD loader found one)."""
    return _ember.device_count("opencl") > 0


def device_count():
    return _ember.device_count("opencl")


def devices():
    return [Device(f"opencl:{i}") for i in range(device_count())]


def _id(device):
    if device is None:
        cur = get_device()
        if cur.kind == "opencl":
            return cur.id
        if not is_available():
            raise _ember.DeviceError("no OpenCL device (the ICD loader found none)")
        return 0
    d = device if isinstance(device, Device) else Device(device)
    if d.kind != "opencl":
        raise ValueError(f"{d} is not an OpenCL device")
    return d.id


def device_info(device=None):
    """What OpenCL tells of a device: name, vendor, platform, version,
    driver_version, type ("gpu", "cpu", "accelerator"), compute_units,
    max_work_group_size, local_memory, total_memory, max_alloc, fp64, fp16."""
    return _ember.opencl_info(_id(device))


class Platform:
    """An OpenCL platform (PyOpenCL's ``cl.get_platforms()`` items): its
    ``name`` and the Ember ``devices`` it has."""

    def __init__(self, name, devices):
        self.name, self._devices = name, devices

    def get_devices(self):
        return list(self._devices)

    devices = property(get_devices)

    def __repr__(self):
        return f"<ember.opencl.Platform {self.name!r}: {len(self._devices)} device(s)>"


def platforms():
    """The platforms that have devices, in the ICD loader's order."""
    out = {}
    for d in devices():
        out.setdefault(_ember.opencl_info(d.id)["platform"], []).append(d)
    return [Platform(n, ds) for n, ds in out.items()]


def pool_stats(device=None):
    """(bytes in live buffers, bytes held: live + cached) of the buffer pool."""
    return _ember.opencl_pool(_id(device))


def pool_free_all(device=None):
    _ember.opencl_pool(_id(device), "free_all")


def pool_set_limit(size, device=None):
    """Cap the bytes the pool holds (0 or None: the device's memory)."""
    _ember.opencl_pool(_id(device), "set_limit", int(size or 0))


def _launch_count(device=None):
    """Ember's own kernels queued on the device so far (not raw programs',
    copies or fills): for tests that a fused expression stays one kernel."""
    return _ember.opencl_launches(_id(device))


class LocalMemory:
    """``nbytes`` of ``__local`` memory as a kernel argument (PyOpenCL's)."""

    def __init__(self, nbytes):
        nbytes = int(nbytes)
        if nbytes <= 0:
            raise ValueError(f"LocalMemory needs a positive size, got {nbytes}")
        self.size = nbytes


def _sizes(v, what):
    if v is None:
        return None
    if isinstance(v, (int, _np.integer)):
        return (int(v),)
    t = tuple(int(x) for x in v)
    if not 1 <= len(t) <= 3:
        raise ValueError(f"{what} size must have 1 to 3 dimensions, got {len(t)}")
    return t


class Kernel:
    """A kernel of a built Program: ``k(global_size, local_size, *args)``."""

    def __init__(self, program, name):
        self.program, self.function_name = program, name
        self._handle, self.num_args = _ember.opencl_kernel(program._dev, program._handle, name)
        self._dtypes = None

    def set_scalar_arg_dtypes(self, dtypes):
        """Types for Python scalars, one per argument (None for arrays and
        local memory), as in PyOpenCL."""
        self._dtypes = [None if t is None else _np.dtype(t) for t in dtypes]

    def _arg(self, i, a):
        if isinstance(a, _ember.ndarray):
            return a
        if isinstance(a, LocalMemory):
            return a.size
        if self._dtypes is not None and i < len(self._dtypes) and self._dtypes[i] is not None:
            return _np.asarray(a, dtype=self._dtypes[i]).tobytes()
        if isinstance(a, _np.generic):
            return a.tobytes()
        if isinstance(a, _np.ndarray):
            raise TypeError(f"kernel '{self.function_name}': argument {i} is a NumPy array; "
                            "move it to the device first (em.asarray(x, device=...))")
        if isinstance(a, (bool, int, float, complex)):
            raise TypeError(f"kernel '{self.function_name}': argument {i} is a Python "
                            f"{type(a).__name__}, whose OpenCL type is unknown; pass a NumPy "
                            "scalar (np.int32(...), np.float32(...)) or call "
                            "set_scalar_arg_dtypes")
        raise TypeError(f"kernel '{self.function_name}': argument {i} of type "
                        f"{type(a).__name__} is not an ember.ndarray, a NumPy scalar or "
                        "LocalMemory")

    def __call__(self, global_size, local_size, *args, wait_for=None):
        if len(args) != self.num_args:
            raise TypeError(f"kernel '{self.function_name}' takes {self.num_args} arguments, "
                            f"got {len(args)}")
        g = _sizes(global_size, "global")
        loc = _sizes(local_size, "local")
        packed = tuple(self._arg(i, a) for i, a in enumerate(args))
        _ember.opencl_launch(self.program._dev, self._handle, self.function_name, g, loc, packed)
        return _Event(self.program._dev)

    def __repr__(self):
        return f"<ember.opencl.Kernel {self.function_name!r}>"


class _Event:
    """What a launch returns (PyOpenCL returns an event): ``wait()``."""

    def __init__(self, dev):
        self._dev = dev

    def wait(self):
        _ember.synchronize(f"opencl:{self._dev}")


class Program:
    """OpenCL C source: ``Program(src).build(options=())``; then each kernel
    is an attribute (``prg.name(global, local, *args)``) or ``prg.kernel(name)``.
    ``CompileError`` carries the build log and the numbered source."""

    def __init__(self, source, device=None):
        if not isinstance(source, str):
            raise TypeError(f"source must be a str of OpenCL C, got {type(source).__name__}")
        self.source = source
        self._device = device
        self._handle = None
        self._kernels = {}

    def build(self, options=()):
        if isinstance(options, str):
            options = (options,)
        if not all(isinstance(o, str) for o in options):
            raise TypeError("options must be a str or a sequence of str")
        self._dev = _id(self._device)
        self.options = tuple(options)
        self._handle = _ember.opencl_program(self._dev, self.source, " ".join(self.options))
        return self

    def kernel(self, name):
        if self._handle is None:
            raise RuntimeError("the program is not built: call build() first")
        k = self._kernels.get(name)
        if k is None:
            k = self._kernels[name] = Kernel(self, name)
        return k

    def __getattr__(self, name):
        if name.startswith("_"):
            raise AttributeError(name)
        try:
            return self.kernel(name)
        except ValueError as e:
            raise AttributeError(str(e)) from None

    @property
    def device(self):
        return Device(f"opencl:{self._dev}")


class RawKernel:
    """``em.RawKernel(code, name, backend="opencl")``: one OpenCL C kernel
    called CuPy's way, ``k(grid, block, args, shared_mem=0)``: ``grid`` in
    work-groups and ``block`` in work-items (global size = grid * block),
    ``shared_mem`` bytes of ``__local`` memory appended as a last argument
    when not 0.  Built for the current device when it is an OpenCL one,
    else opencl:0, at the first call (or ``compile()``)."""

    backend = "opencl"

    def __init__(self, code, name, options=()):
        if not isinstance(code, str):
            raise TypeError(f"code must be a str of OpenCL C, got {type(code).__name__}")
        if not isinstance(name, str):
            raise TypeError(f"name must be a str (the kernel's name), got {type(name).__name__}")
        if isinstance(options, str):
            options = (options,)
        self.code, self.name, self.options = code, name, tuple(options)
        self._by_dev = {}

    def _kernel(self):
        dev = _id(None)
        k = self._by_dev.get(dev)
        if k is None:
            prog = Program(self.code, device=f"opencl:{dev}").build(self.options)
            k = self._by_dev[dev] = prog.kernel(self.name)
        return k

    def compile(self):
        self._kernel()

    def __call__(self, grid, block, args, shared_mem=0, stream=None):
        g, b = _sizes(grid, "grid"), _sizes(block, "block")
        if len(g) != len(b):
            raise ValueError("grid and block must have as many dimensions")
        k = self._kernel()
        args = tuple(args) + ((LocalMemory(shared_mem),) if shared_mem else ())
        return k(tuple(x * y for x, y in zip(g, b)), b, *args)

    def __repr__(self):
        return f"<ember.RawKernel {self.name!r} (OpenCL)>"


# ---- PyOpenCL interop ------------------------------------------------------------------
# Ember hands its own cl_context and queue to PyOpenCL (retained), rather than
# adopting PyOpenCL's as a device: Ember's device pointers are synthetic
# addresses over a slot table of cl_mem of the device's one context (mem.c),
# its buffer pool, kernel and program caches are per device and context, and
# OpenCL forbids mixing buffers and kernels of two contexts.  PyOpenCL takes
# any context, so sharing Ember's keeps both sides' invariants: a PyOpenCL
# array on that context is wrapped by Ember (its cl_mem gets a slot of its
# own, retained, released when the last Ember view goes) and an Ember array
# is a PyOpenCL array over its buffer (marked shared, so that Ember releases
# it instead of caching it for reuse when the Ember array goes).

def _pyopencl():
    try:
        import pyopencl
        import pyopencl.array  # noqa: F401 (the Array type)
    except ImportError as e:
        raise ImportError(f"PyOpenCL interop needs pyopencl ({e})") from None
    return pyopencl


def pyopencl_context(device=None):
    """The ``pyopencl.Context`` of an OpenCL device: Ember's own context,
    retained (arrays made on it pass to and from Ember without a copy)."""
    cl = _pyopencl()
    ctx, _, _ = _ember.opencl_handles(_id(device))
    return cl.Context.from_int_ptr(ctx, retain=True)


def pyopencl_queue(device=None):
    """The ``pyopencl.CommandQueue`` Ember queues its work for the device on
    (in order: PyOpenCL work on it runs after Ember's, with no wait)."""
    cl = _pyopencl()
    _, q, _ = _ember.opencl_handles(_id(device))
    return cl.CommandQueue.from_int_ptr(q, retain=True)


def _ember_device(cl_device):
    """The Ember device number of a pyopencl.Device, or None."""
    try:
        name, plat = cl_device.name, cl_device.platform.name
    except Exception:
        return None
    for i in range(device_count()):
        inf = _ember.opencl_info(i)
        if inf["name"] == name and inf["platform"] == plat:
            if _ember.opencl_handles(i)[2] == cl_device.int_ptr:
                return i
    return None


def as_pyopencl(x, queue=None):
    """A ``pyopencl.array.Array`` over the Ember array x's buffer (no copy)
    when queue is on Ember's context (``queue=None``: Ember's own queue,
    ``pyopencl_queue``); on another context the values are copied through
    the host, with a warning.  Either side's writes are seen by the other."""
    cl = _pyopencl()
    if not isinstance(x, _ember.ndarray):
        raise TypeError(f"as_pyopencl takes an ember.ndarray, not {type(x).__name__}")
    kind, dev = x._dev
    if kind != "opencl":
        raise ValueError(f"as_pyopencl needs an array on an OpenCL device, not {kind}:{dev} "
                         "(x.to_device('opencl:0') first)")
    ctx, q, _ = _ember.opencl_handles(dev)
    if queue is None:
        queue = cl.CommandQueue.from_int_ptr(q, retain=True)
    if queue.context.int_ptr != ctx:
        _warnings.warn(f"the PyOpenCL queue is on another OpenCL context than opencl:{dev}'s: "
                       "the array is copied through the host (em.opencl.pyopencl_queue() "
                       "shares Ember's)", RuntimeWarning, stacklevel=2)
        return cl.array.to_device(queue, x.get())
    if x.size == 0:
        return cl.array.empty(queue, x.shape, x.dtype)
    if any(st < 0 for st in x.strides):
        x = x.copy()  # PyOpenCL arrays address from the buffer's start
    mem, off = _ember.opencl_export(x)
    if queue.int_ptr != q:
        _ember.synchronize(f"opencl:{dev}")  # Ember's producers done before the other queue
    buf = cl.Buffer.from_int_ptr(mem, retain=True)
    return cl.array.Array(queue, x.shape, x.dtype, strides=x.strides, data=buf, offset=off)


class _Adopted:
    """Owner of a PyOpenCL buffer wrapped by Ember: the slot goes with it."""

    def __init__(self, base, ptr):
        self.base, self.ptr = base, ptr

    def __del__(self):
        _ember.opencl_unadopt(self.ptr)


def from_pyopencl(a):
    """An Ember array over a ``pyopencl.array.Array`` (what ``em.asarray(a)``
    does): no copy when a's context is Ember's for its device (see
    ``pyopencl_context``); else a host copy to that device (or the current
    device), with a warning."""
    import ember as em
    cl = _pyopencl()
    if not isinstance(a, cl.array.Array):
        raise TypeError(f"from_pyopencl takes a pyopencl.array.Array, not {type(a).__name__}")
    dev = _ember_device(a.queue.device)
    shared = dev is not None and a.context.int_ptr == _ember.opencl_handles(dev)[0]
    buf = a.base_data
    if shared and (a.size == 0 or buf is None):
        return em.empty(a.shape, dtype=a.dtype, device=f"opencl:{dev}")
    if not shared or not isinstance(buf, cl.Buffer):
        where = f"opencl:{dev}" if dev is not None else None
        _warnings.warn("the PyOpenCL array is on another OpenCL context than Ember's "
                       f"{where or 'devices'}: it is copied through the host (make PyOpenCL "
                       "use em.opencl.pyopencl_context() to share memory)",
                       RuntimeWarning, stacklevel=2)
        return em.asarray(a.get(), device=where)
    if a.queue.int_ptr != _ember.opencl_handles(dev)[1]:
        a.finish()  # PyOpenCL's producers done before Ember's queue reads
    ptr = _ember.opencl_adopt(dev, buf.int_ptr)
    owner = _Adopted(buf, ptr)
    return _ember._wrap_pointer(ptr + a.offset, a.shape, a.dtype.name, a.strides,
                                f"opencl:{dev}", owner, False)
