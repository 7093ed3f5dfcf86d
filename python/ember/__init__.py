"""Ember: GPU and CPU array computing for Python, with its core in C.

``import ember as em`` gives a NumPy-compatible ``em.ndarray`` on the CPU
(and, as the backends land, on CUDA and OpenCL devices).  Importing Ember
does no device work: no GPU context is created until an array needs one.
"""
from . import _ember
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
    synchronize,
    cuda,
)
from ._creation import *  # noqa: E402,F401,F403
from ._ufuncs import *  # noqa: E402,F401,F403
from ._reductions import *  # noqa: E402,F401,F403
from ._manipulation import *  # noqa: E402,F401,F403
from ._indexing import *  # noqa: E402,F401,F403
from ._sorting import *  # noqa: E402,F401,F403
from ._fusion import *  # noqa: E402,F401,F403  (em.eval, em.fuse)
from . import fft, linalg, random  # noqa: E402,F401
from .linalg import *  # noqa: E402,F401,F403  (matmul, dot, ... at top level too)
from .cuda_runtime import *  # noqa: E402,F401,F403  (get_default_memory_pool)
from ._array_api import __array_namespace_info__  # noqa: E402,F401
from . import _methods  # noqa: E402,F401  (attaches Python-level ndarray methods)
from ._interop import *  # noqa: E402,F401,F403  (DLPack, NumPy protocols, pickling)
from ._kernels import *  # noqa: E402,F401,F403  (RawKernel, RawModule)

newaxis = None
pi = 3.141592653589793
e = 2.718281828459045
inf = float("inf")
nan = float("nan")
euler_gamma = 0.5772156649015329


# Python kernels (@em.jit and its intrinsics) load on first use: the front
# end imports ast and inspect, which `import ember` should not pay for.
_JIT_NAMES = frozenset(("jit", "stencil", "vectorize", "threadIdx", "blockIdx", "blockDim", "gridDim",
                        "grid", "gridsize", "syncthreads", "shared", "local", "atomic"))


def __getattr__(name):
    if name in ("ElementwiseKernel", "ReductionKernel"):  # 14 ms of regex tables: on first use
        from . import _expr
        value = getattr(_expr, name)
        globals()[name] = value
        return value
    if name in _JIT_NAMES:
        from . import _jit
        value = getattr(_jit, name)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'ember' has no attribute {name!r}")
