"""Raw CUDA kernels in CuPy's shape: ``em.RawKernel`` and ``em.RawModule``.

    add = em.RawKernel(r'''
    extern "C" __global__ void add(const float *x, const float *y, float *z, int n) {
        int i = blockIdx.x * blockDim.x + threadIdx.x;
        if (i < n) z[i] = x[i] + y[i];
    }''', "add")
    add((blocks,), (256,), (x, y, z, np.int32(n)))

On the CPU device (the first array argument's device, else the current
one) the kernel runs as C: see ``_rawcpu`` for the CUDA C it understands.
On CUDA the source is compiled by NVRTC the first time a kernel runs on a device
(through Ember's disk cache, so a later process loads the binary) with the
device's architecture, ``--fmad=false`` (results match the CPU's; pass
``--fmad=true`` for speed) and ``-std=c++17``, then your ``options``.  The
launch itself is C (``_ember.Function``): arguments are packed as CuPy does
(arrays as device pointers, NumPy scalars by their type, Python int / float /
bool / complex as int64 / float64 / bool / complex128) and the grid, block and
shared memory are checked against the device's limits (``em.LaunchError``).
"""
from . import _ember

__all__ = ["RawKernel", "RawModule"]  # the expression kernels load lazily (ember/__init__.py)

# cuFuncGetAttribute's CU_FUNC_ATTRIBUTE_* numbers, in CuPy's attribute names.
_FUNC_ATTRIBUTES = (
    "max_threads_per_block", "shared_size_bytes", "const_size_bytes", "local_size_bytes",
    "num_regs", "ptx_version", "binary_version", "cache_mode_ca",
    "max_dynamic_shared_size_bytes", "preferred_shared_memory_carveout",
)


def _check_backend(backend):
    if backend in ("cuda", "nvrtc"):
        return "cuda"
    if backend == "opencl":
        raise ValueError("backend='opencl': RawModule takes CUDA C; for OpenCL C use "
                         "em.opencl.Program(source).build() or em.RawKernel(..., backend='opencl')")
    raise ValueError(f"unknown backend {backend!r}; expected 'cuda' or 'opencl'")


def _check_options(options):
    if isinstance(options, str):
        options = (options,)
    if not isinstance(options, (tuple, list)) or not all(isinstance(o, str) for o in options):
        raise TypeError(f"options must be a tuple of str (NVRTC options), got {options!r}")
    return tuple(options)


def _cuda_id():
    """The current device's CUDA id, or None when it is not a GPU."""
    kind, id_ = _ember._get_device()
    return id_ if kind == "cuda" else None


class RawModule:
    """CUDA C source holding one or more ``extern "C" __global__`` kernels.

    ``RawModule(code=src, options=("-DN=4",)).get_function("name")`` gives
    a kernel to call as ``k(grid, block, args, shared_mem=0, stream=None)``.
    Compiled lazily, once per device (and cached on disk)."""

    def __init__(self, code=None, *, options=(), backend="cuda", name_expressions=None,
                 path=None, name="raw module"):
        if path is not None:
            if code is not None:
                raise ValueError("give code or path, not both")
            with open(path, encoding="utf-8") as f:
                code = f.read()
        if not isinstance(code, str):
            raise TypeError(f"code must be a str of CUDA C source, got {type(code).__name__}")
        self.backend = _check_backend(backend)
        self.code = code
        self.options = _check_options(options)
        if name_expressions is not None:
            if isinstance(name_expressions, str) or not all(isinstance(n, str) for n in name_expressions):
                raise TypeError("name_expressions must be a sequence of str (e.g. ['f<float>', 'f<int>'])")
            name_expressions = tuple(name_expressions)
        self.name_expressions = name_expressions
        self._name = str(name)
        self._handles = {}  # CUDA device id -> module handle
        self._lowered = {}  # name expression -> its lowered (mangled) name

    def _module(self, dev):
        h = self._handles.get(dev)
        if h is None:
            if self.name_expressions:
                h, low = _ember._cuda_module_load(dev, self.code, self.options, self._name,
                                                 self.name_expressions)
                self._lowered = dict(zip(self.name_expressions, low))
            else:
                h = _ember._cuda_module_load(dev, self.code, self.options, self._name)
            self._handles[dev] = h
        return h

    def _function(self, dev, name):
        mod = self._module(dev)
        return _ember._cuda_module_function(dev, mod, self._lowered.get(name, name))

    def compile(self):
        """Compile and load on the current CUDA device now (errors surface
        here rather than at the first launch).  On the CPU a kernel is
        compiled as C at its first launch, once per argument signature, so
        there is nothing to do yet."""
        dev = _cuda_id()
        if dev is not None:
            self._module(dev)

    def get_function(self, name):
        """The kernel called ``name``: its extern "C" name, or one of the
        ``name_expressions`` (a template instance such as ``"f<float>"``,
        found by NVRTC's lowered name).  When a CUDA device is current the
        module is compiled and the name checked now."""
        k = RawKernel._from_module(self, name)
        if _cuda_id() is not None:
            k._load(_cuda_id())
        return k

    def __repr__(self):
        return f"<ember.RawModule {self._name!r}, {len(self.code)} characters of CUDA C>"


class RawKernel(_ember.Function):
    """One CUDA kernel from source: ``RawKernel(code, name, options=(),
    backend="cuda")``, called ``k(grid, block, args, shared_mem=0,
    stream=None)``.  ``grid`` and ``block`` are an int or a tuple of up to 3
    ints; ``stream`` is an ``em.Stream``, an object with ``.ptr`` (a CuPy
    stream), an int handle or None (this thread's current stream)."""

    def __new__(cls, code=None, name=None, options=(), backend="cuda", **kwargs):
        if backend == "opencl":  # OpenCL C: a different object (ember/opencl.py)
            from .opencl import RawKernel as _ClRawKernel
            if kwargs:
                raise TypeError(f"unexpected arguments for an OpenCL kernel: {sorted(kwargs)}")
            return _ClRawKernel(code, name, options)
        return super().__new__(cls, name)

    def __init__(self, code, name, options=(), backend="cuda", **kwargs):
        if not isinstance(name, str):
            raise TypeError(f"name must be a str (the kernel's extern \"C\" name), got {type(name).__name__}")
        super().__init__(name)
        self._module_obj = RawModule(code=code, options=options, backend=backend, name=name, **kwargs)

    @classmethod
    def _from_module(cls, module, name):
        if not isinstance(name, str):
            raise TypeError(f"name must be a str (the kernel's extern \"C\" name), got {type(name).__name__}")
        k = cls.__new__(cls)
        _ember.Function.__init__(k, name)
        k._module_obj = module
        return k

    def _load(self, dev):
        """The function handle on cuda:dev (compiling the module if needed);
        called by the C launch path the first time on each device."""
        fn = self._loaded(dev)
        return fn if fn is not None else self._module_obj._function(dev, self.name)

    code = property(lambda self: self._module_obj.code)
    options = property(lambda self: self._module_obj.options)
    backend = property(lambda self: self._module_obj.backend)

    def compile(self):
        """Compile and load on the current device now (CUDA; see RawModule.compile)."""
        self._module_obj.compile()
        if _cuda_id() is not None:
            self._load(_cuda_id())

    def _cpu_call(self, grid, block, args, shared_mem=0):
        """The launch when the CPU is the current device: the kernel's CUDA C
        compiled as C and run by the CPU kernel launcher (``_rawcpu``)."""
        from . import _rawcpu
        _rawcpu.launch(self, grid, block, args, shared_mem)

    def _attr(self, i):
        dev = _cuda_id()
        if dev is None:
            raise _ember.DeviceError(f"kernel '{self.name}': attributes need a CUDA device to be current")
        return _ember._cuda_func_attribute(dev, self._load(dev), i)

    @property
    def attributes(self):
        """cuFuncGetAttribute's values on the current device, by CuPy's names."""
        return {n: self._attr(i) for i, n in enumerate(_FUNC_ATTRIBUTES)}

    def __repr__(self):
        return f"<ember.RawKernel {self.name!r}>"


def _attr_property(i, n):
    return property(lambda self: self._attr(i), doc=f"cuFuncGetAttribute: {n} (current device)")


for _i, _n in enumerate(_FUNC_ATTRIBUTES):
    setattr(RawKernel, _n, _attr_property(_i, _n))
del _i, _n
_ember.Function._vectorcall_subclass(RawKernel)  # calls skip the argument tuple (Python 3.12 does it itself)

