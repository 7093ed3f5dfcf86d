"""@em.jit: Python kernels compiled to C (CPU) and CUDA C (NVIDIA GPUs).

Imported lazily: ``import ember`` does not import this package (nor ast or
inspect); the first use of ``em.jit`` (or another name listed in
ember.__init__._JIT_NAMES) does.  The package is ``_jit`` rather than ``jit``
because ``em.jit`` must stay the decorator: importing a submodule named
``jit`` would bind ``ember.jit`` to the module.
"""
from .intrinsics import (threadIdx, blockIdx, blockDim, gridDim, grid, gridsize,  # noqa: F401
                         syncthreads, shared, local, atomic)
from .dispatch import jit, Dispatcher  # noqa: F401  (Dispatcher: isinstance checks)
from .stencil import stencil, vectorize  # noqa: F401

__all__ = ["jit", "stencil", "vectorize", "threadIdx", "blockIdx", "blockDim", "gridDim", "grid",
           "gridsize", "syncthreads", "shared", "local", "atomic"]
