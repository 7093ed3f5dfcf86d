"""Scatter-add on the device: out[idx[i]] += vals[i] with atomics, one
@em.jit kernel for every backend (int32, uint32, int64, uint64, float32,
float64).  Weighted bincount, weighted histograms and ufunc add.at use it
for arrays on a device; on the CPU they call NumPy's exact loops on the
shared buffer instead.  Float sums on a GPU add in an unspecified order
(as CuPy's and PyTorch's do), so they may differ from NumPy's in the last
bits."""
import numpy as _np

from . import _ember

KINDS = frozenset(_np.dtype(d) for d in ("int32", "uint32", "int64", "uint64", "float32",
                                         "float64"))
_kernel = None


def on_device(a):
    """Whether a lives on a device other than the CPU (tests override this to
    run the kernel path on the CPU)."""
    return isinstance(a, _ember.ndarray) and a._dev[0] != "cpu"


def _get_kernel():
    global _kernel
    if _kernel is None:
        import ember as em

        @em.jit
        def scatter_add(out, idx, vals, n):
            i = em.grid(1)
            if i < n:
                em.atomic.add(out, idx[i], vals[i])
        _kernel = scatter_add
    return _kernel


def scatter_add(out, idx, vals):
    """out[idx] += vals with repeated indices accumulating (all 1-d, C-contiguous;
    idx int64 within bounds; vals of out's dtype)."""
    import ember as em
    n = idx.shape[0]
    if n == 0:
        return out
    idx = em.ascontiguousarray(idx.astype(_np.int64))
    vals = em.ascontiguousarray(vals.astype(out.dtype))
    threads = 256
    _get_kernel()[(n + threads - 1) // threads, threads](out, idx, vals, n)
    return out
