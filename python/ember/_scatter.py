"""Accumulating scatter on the device: out[idx[i]] = op(out[idx[i]], vals[i])
with repeated indices accumulating, for add, subtract, multiply, maximum and
minimum on int32, uint32, int64, uint64, float32 and float64.  The kernel is
a template of the library (src/codegen/render_scatter.c: atomics per device
dialect, compare-and-swap loops where there is no native atomic, NumPy's
semantics from the scalar library); on the CPU the same entry runs a serial
loop.  ufunc.at uses it for arrays on a device (the histograms have their
own kernel, src/codegen/render_histogram.c).  Float sums on a GPU add in an unspecified order (as CuPy's and
PyTorch's do), so they may differ from NumPy's in the last bits."""
import numpy as _np

from . import _ember

KINDS = frozenset(_np.dtype(d) for d in ("int32", "uint32", "int64", "uint64", "float32",
                                         "float64"))
OPS = frozenset(("add", "subtract", "multiply", "maximum", "minimum"))


def on_device(a):
    """Whether a lives on a device other than the CPU (tests override this to
    run the library's path on the CPU)."""
    return isinstance(a, _ember.ndarray) and a._dev[0] != "cpu"


def scatter(out, idx, vals, op="add"):
    """out[idx] = op(out[idx], vals) with repeated indices accumulating (out 1-d
    and C-contiguous; idx within bounds; vals cast to out's dtype)."""
    import ember as em
    if idx.shape[0] == 0:
        return out
    idx = em.ascontiguousarray(idx.astype(_np.int64))
    vals = em.ascontiguousarray(vals.astype(out.dtype))
    _ember._scatter_accum(out, idx, vals, op)
    return out


def scatter_add(out, idx, vals):
    """out[idx] += vals with repeated indices accumulating."""
    return scatter(out, idx, vals, "add")
