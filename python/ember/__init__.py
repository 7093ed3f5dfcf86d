"""Ember: GPU and CPU array computing for Python, with its core in C.

``import ember as em`` gives a NumPy-compatible ``em.ndarray`` on the CPU
(and, as the backends land, on CUDA and OpenCL devices).  Importing Ember
does no device work: no GPU context is created until an array needs one.
"""
try:
    from . import _ember
except ImportError as _err:  # an editable install (tools/dev.sh) before its first build
    raise ImportError(f"ember's C extension is not built in {__path__[0]} ({_err}): in the "
                      "source checkout run `bash tools/dev.sh build`, or `pip install .`") from _err
from ._ember import (
    ndarray,
    EmberError,
    CompileError,
    LaunchError,
    DeviceError,
    OutOfMemoryError,
)

__version__ = _ember.__version__
__array_api_version__ = "2025.12"

from ._dtypes import *  # noqa: E402,F401,F403
from ._device import (  # noqa: E402,F401
    Device,
    devices,
    get_device,
    set_default_device,
    synchronize,
    cuda,
)
from ._creation import *  # noqa: E402,F401,F403
from ._ufuncs import *  # noqa: E402,F401,F403
from ._reductions import *  # noqa: E402,F401,F403
from ._manipulation import *  # noqa: E402,F401,F403
from ._indexing import *  # noqa: E402,F401,F403
from ._fusion import *  # noqa: E402,F401,F403  (em.eval, em.fuse)
from ._host import HostFallbackWarning  # noqa: E402,F401
# NumPy's surface written in Python on the core (statistics, histograms, sets,
# array tools, I/O, polynomials): small modules, imported eagerly.
from ._statistics import *  # noqa: E402,F401,F403
from ._histograms import *  # noqa: E402,F401,F403
from ._setops import *  # noqa: E402,F401,F403
from ._arraytools import *  # noqa: E402,F401,F403
from ._index_tricks import *  # noqa: E402,F401,F403
from ._mathfuncs import *  # noqa: E402,F401,F403
from ._polynomial import *  # noqa: E402,F401,F403
from ._typeinfo import *  # noqa: E402,F401,F403
from ._io import *  # noqa: E402,F401,F403
from . import _methods  # noqa: E402,F401  (attaches Python-level ndarray methods)

newaxis = None
pi = 3.141592653589793
e = 2.718281828459045
inf = float("inf")
nan = float("nan")
euler_gamma = 0.5772156649015329


# ---- what loads on first use ----------------------------------------------
# `import ember` loads the array core only (about 40% less Python to compile
# or unmarshal).  The rest loads when first touched, with the public API
# unchanged: em.fft / em.linalg / em.random (and the names below) through
# __getattr__, dir(em) and `from ember import *` list everything, the ndarray
# methods those modules own are stubs that load their module (whose attach()
# then replaces them), and Dask registration waits for a Dask import.

# Submodules imported on first attribute access.
_LAZY_MODULES = frozenset(("fft", "linalg", "random", "dask", "cuda_runtime", "_sorting", "_interop",
                           "_kernels", "_array_api", "opencl", "frame", "auto"))
# Top-level names and the module that defines them: each module's __all__
# (tests/python/test_lazy_import.py checks this table against them).
_LAZY_NAMES = {
    "linalg": ("matmul", "dot", "vdot", "inner", "outer", "tensordot", "einsum", "vecdot"),
    "_sorting": ("sort", "argsort", "searchsorted", "unique", "unique_all", "unique_counts", "unique_inverse",
                 "unique_values", "isin", "partition", "argpartition", "lexsort", "digitize"),
    "cuda_runtime": ("MemoryPool", "get_default_memory_pool", "Stream", "Event", "get_elapsed_time"),
    "_interop": ("from_dlpack", "set_unpickle_device", "get_unpickle_device"),
    "_kernels": ("RawKernel", "RawModule"),
    "_array_api": ("__array_namespace_info__",),
    "_expr": ("ElementwiseKernel", "ReductionKernel"),  # 14 ms of regex tables
}
# Python kernels (@em.jit and its intrinsics): the front end imports ast and
# inspect.  (Not in dir(em) or `import *` until loaded, as before.)
_LAZY_NAMES["_jit"] = ("jit", "stencil", "vectorize", "threadIdx", "blockIdx", "blockDim", "gridDim", "grid",
                       "gridsize", "syncthreads", "shared", "local", "atomic")
# Data frames (ember.frame): pandas-shaped tables of Ember columns; em.concat
# forwards frames there (_manipulation.concat).
_LAZY_NAMES["frame"] = ("Column", "DataFrame", "Series", "Index", "RangeIndex", "from_pandas")
# Frame IO and interop (ember.frame._io): CSV/Parquet readers, Arrow tables and streams.
_LAZY_NAMES["frame._io"] = ("read_csv", "read_parquet", "from_arrow")
_NAME_MODULE = {n: m for m, names in _LAZY_NAMES.items() for n in names}
_LISTED = ("linalg", "_sorting", "cuda_runtime", "_interop", "_kernels")  # what `import *` always gave


def _load(module):
    import importlib
    return importlib.import_module("." + module, __name__)


def __getattr__(name):
    if name in _LAZY_MODULES:
        return _load(name)  # the import sets the attribute on the package
    module = _NAME_MODULE.get(name)
    if module is not None:
        value = getattr(_load(module), name)
        globals()[name] = value
        return value
    if name == "__all__":  # `from ember import *`: everything, as when it all loaded eagerly
        for m in _LISTED + ("fft", "random", "dask", "_array_api"):
            mod = _load(m)
            for n in getattr(mod, "__all__", ()):
                if m in _LISTED:
                    globals().setdefault(n, getattr(mod, n))
        return sorted(n for n in globals() if not n.startswith("_"))
    if not name.startswith("__"):  # a name added to a lazy module's __all__ after the table above
        for m in _LISTED:
            mod = _load(m)
            if name in getattr(mod, "__all__", ()):
                value = globals()[name] = getattr(mod, name)
                return value
    raise AttributeError(f"module 'ember' has no attribute {name!r}")


def __dir__():
    names = set(globals()) | _LAZY_MODULES
    for m in _LISTED + ("_array_api",):
        names.update(_LAZY_NAMES[m])
    return sorted(names)


def _lazy_methods(module, names, props=()):
    """ndarray methods that `module` attaches (_methods.attach), as stubs
    that import it first: its attach() replaces them, and the call goes on
    to the real one."""
    ndarray_t = _ember.ndarray

    def make(name):
        def load(self):
            _load(module)
            if ndarray_t.__dict__.get(name) is stub:  # the module did not attach it
                raise AttributeError(f"'ember.ndarray' object has no attribute {name!r}")
            return getattr(self, name)

        if name in props:
            stub = property(load)
        else:
            def stub(self, *args, **kwargs):
                return load(self)(*args, **kwargs)
            stub.__name__ = stub.__qualname__ = name
        return stub

    for n in names:
        setattr(ndarray_t, n, make(n))


_lazy_methods("linalg", ("dot",))
_lazy_methods("_sorting", ("sort", "argsort"))
_lazy_methods("_interop", ("__dlpack__", "__dlpack_device__", "__cuda_array_interface__", "__array_ufunc__",
                           "__array_function__", "__reduce_ex__", "__reduce__"),
              props=("__cuda_array_interface__",))


def _matmul_hook(a, b):
    """`a @ b` before ember.linalg loads (which then registers matmul itself)."""
    return _load("linalg").matmul(a, b)


_ember._set_hook("matmul", _matmul_hook)


class _DaskWatch:
    """Loads ember.dask (Dask registration) when a Dask module is first
    imported, and hands that import to the hook ember.dask installs."""
    _WATCHED = ("dask", "dask.array", "distributed")
    done = False

    def find_spec(self, name, path=None, target=None):
        if self.done or name not in self._WATCHED:
            return None
        self.done = True  # stays in sys.meta_path (removing it would upset an import in progress)
        dask = _load("dask")
        for f in __import__("sys").meta_path:
            if isinstance(f, dask._AfterImport):
                return f.find_spec(name, path, target)
        return None


def _watch_dask():
    import sys
    if set(_DaskWatch._WATCHED) & sys.modules.keys():  # (em.any shadows the builtin here)
        _load("dask")  # Dask came first: register now
    else:
        sys.meta_path.insert(0, _DaskWatch())


_watch_dask()
