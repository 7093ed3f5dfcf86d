"""Array creation: asarray/array, empty/zeros/ones/full and their *_like,
arange, linspace, eye, identity, meshgrid, tril, triu, from the host or on a
device.  Each takes dtype= and device=."""
from . import _ember

__all__ = [
    "asarray", "array", "asnumpy", "empty", "zeros", "ones", "full",
    "empty_like", "zeros_like", "ones_like", "full_like",
]


def asarray(obj, dtype=None, *, device=None, copy=None):
    """Convert obj (an ember array, NumPy array, buffer, scalar or nested
    sequence) to an ember.ndarray; copies only where needed unless copy=True."""
    return _ember.asarray(obj, dtype, device, copy)


def array(obj, dtype=None, *, copy=True, device=None, ndmin=0):
    """Like numpy.array: copies by default."""
    a = _ember.asarray(obj, dtype, device, copy)
    if a.ndim < ndmin:
        a = a.reshape((1,) * (ndmin - a.ndim) + a.shape)
    return a


def asnumpy(a, stream=None, order="C", out=None):
    """The values of a as a numpy.ndarray (CuPy's spelling)."""
    import numpy as np
    if isinstance(a, _ember.ndarray):
        return a.get(out=out)
    return np.asarray(a)


def empty(shape, dtype=None, *, device=None):
    return _ember.full(shape, None, dtype, device)


def zeros(shape, dtype=None, *, device=None):
    return _ember.full(shape, 0, dtype if dtype is not None else "float64", device)


def ones(shape, dtype=None, *, device=None):
    return _ember.full(shape, 1, dtype if dtype is not None else "float64", device)


def full(shape, fill_value, dtype=None, *, device=None):
    if dtype is None and isinstance(fill_value, (bool, int, float, complex)):
        dtype = {bool: "bool", int: "int64", float: "float64", complex: "complex128"}[type(fill_value)]
    return _ember.full(shape, fill_value, dtype, device)


def _like(a, dtype, shape, device):
    a = a if isinstance(a, _ember.ndarray) else asarray(a)
    return (a.shape if shape is None else shape,
            a.dtype if dtype is None else dtype,
            a.device if device is None else device)


def empty_like(a, /, *, dtype=None, device=None, shape=None):
    s, d, dev = _like(a, dtype, shape, device)
    return empty(s, d, device=dev)


def zeros_like(a, /, *, dtype=None, device=None, shape=None):
    s, d, dev = _like(a, dtype, shape, device)
    return zeros(s, d, device=dev)


def ones_like(a, /, *, dtype=None, device=None, shape=None):
    s, d, dev = _like(a, dtype, shape, device)
    return ones(s, d, device=dev)


def full_like(a, /, fill_value, *, dtype=None, device=None, shape=None):
    s, d, dev = _like(a, dtype, shape, device)
    return _ember.full(s, fill_value, d, dev)
