"""Questions about arrays and dtypes (isscalar, ndim, shape, issubdtype,
promote_types, may_share_memory ...) and the text forms of arrays and
numbers.  Dtype questions are NumPy's own answers (Ember's dtypes are
NumPy's); printing reads the values on the host, which printing must."""
import numpy as _np

from . import _ember
from ._hostcall import host_only as _host_only, to_host as _to_host

__all__ = ["isscalar", "iterable", "ndim", "shape", "size", "issubdtype", "promote_types",
           "min_scalar_type", "common_type", "mintypecode", "iscomplexobj", "isrealobj",
           "isfortran", "may_share_memory", "shares_memory", "typename", "array2string",
           "array_repr", "array_str", "base_repr", "binary_repr", "format_float_positional",
           "format_float_scientific", "einsum_path", "get_printoptions", "set_printoptions",
           "printoptions"]

# Ember arrays print through NumPy (repr and str format a host copy), so
# NumPy's print options are Ember's: these are NumPy's functions.
get_printoptions = _np.get_printoptions
set_printoptions = _np.set_printoptions
printoptions = _np.printoptions

issubdtype = _np.issubdtype
promote_types = _np.promote_types
typename = _np.typename
mintypecode = _np.mintypecode
base_repr = _np.base_repr
binary_repr = _np.binary_repr
format_float_positional = _np.format_float_positional
format_float_scientific = _np.format_float_scientific


def _em(a):
    return isinstance(a, _ember.ndarray)


def isscalar(element):
    """True for Python and NumPy scalars (an ember array, even 0-d, is not)."""
    return False if _em(element) else _np.isscalar(element)


def iterable(y):
    """Whether iter(y) works (a 0-d array is not iterable)."""
    if _em(y):
        return y.ndim > 0
    return _np.iterable(y)


def ndim(a):
    return a.ndim if _em(a) else _np.ndim(a)


def shape(a):
    return a.shape if _em(a) else _np.shape(a)


def size(a, axis=None):
    if _em(a):
        if axis is None:
            return a.size
        if isinstance(axis, tuple):
            n = 1
            for ax in axis:
                n *= a.shape[ax]
            return n
        return a.shape[axis]
    return _np.size(a, axis)


def min_scalar_type(a):
    """The smallest dtype holding a (for an array: its own dtype, as NumPy)."""
    if _em(a):
        return a.dtype if a.ndim else _np.min_scalar_type(a.item())
    return _np.min_scalar_type(a)


def common_type(*arrays):
    """The inexact scalar type common to the arrays (ints count as float64)."""
    return _np.common_type(*[_np.empty(0, dtype=a.dtype) if _em(a) else a for a in arrays])


def iscomplexobj(x):
    if _em(x):
        return x.dtype.kind == "c"
    return _np.iscomplexobj(x)


def isrealobj(x):
    return not iscomplexobj(x)


def isfortran(a):
    """True if a is Fortran-contiguous and not C-contiguous (Ember: >1-d transposes)."""
    if _em(a):
        return bool(a._f_contiguous and not a._c_contiguous)
    return _np.isfortran(a)


def _extent(a):
    lo = hi = a._ptr
    for n, s in zip(a.shape, a.strides):
        if n == 0:
            return None
        if s > 0:
            hi += (n - 1) * s
        else:
            lo += (n - 1) * s
    return lo, hi + a.itemsize


def may_share_memory(a, b, /, max_work=None):
    """Whether the memory bounds of a and b overlap (may report a false overlap)."""
    if not (_em(a) and _em(b)):
        return _np.may_share_memory(_to_host(a), _to_host(b)) if not (_em(a) or _em(b)) \
            else False
    if a._dev != b._dev:
        return False
    ea, eb = _extent(a), _extent(b)
    if ea is None or eb is None:
        return False
    return ea[0] < eb[1] and eb[0] < ea[1]


def shares_memory(a, b, /, max_work=None):
    """Whether a and b share an element (exact on the CPU; bounds elsewhere)."""
    if _em(a) and _em(b) and a._dev == b._dev and a._dev[0] == "cpu":
        return _np.shares_memory(_np.asarray(a), _np.asarray(b), max_work)
    return may_share_memory(a, b)


def array2string(a, *args, **kwargs):
    return _np.array2string(_to_host(a), *args, **kwargs)


def array_repr(arr, *args, **kwargs):
    return _np.array_repr(_to_host(arr), *args, **kwargs)


def array_str(a, *args, **kwargs):
    return _np.array_str(_to_host(a), *args, **kwargs)


def einsum_path(subscripts, *operands, optimize="greedy", einsum_call=False):
    """NumPy's contraction order for these operand shapes (no data is read)."""
    ops = [_np.broadcast_to(_np.zeros((), dtype=o.dtype), o.shape) if _em(o) else o
           for o in operands]
    return _host_only(_np.einsum_path, subscripts, *ops, optimize=optimize,
                      einsum_call=einsum_call)
