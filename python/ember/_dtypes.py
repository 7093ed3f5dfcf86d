"""The dtypes: NumPy's own scalar types and dtype objects, so that
``x.dtype == em.float32`` and ``np.dtype(em.float32)`` behave as in NumPy."""
import numpy as _np

from . import _ember

bool_ = _np.bool_
bool = _np.bool_  # Array API spelling
int8, int16, int32, int64 = _np.int8, _np.int16, _np.int32, _np.int64
uint8, uint16, uint32, uint64 = _np.uint8, _np.uint16, _np.uint32, _np.uint64
float16, float32, float64 = _np.float16, _np.float32, _np.float64
complex64, complex128 = _np.complex64, _np.complex128
intp, uintp = _np.intp, _np.uintp
dtype = _np.dtype
iinfo = _np.iinfo


class finfo:
    """Machine limits of a floating dtype: NumPy's finfo with the Array API's
    fields (bits, eps, max, min, smallest_normal, tiny, resolution) as Python
    floats and ``dtype`` the real dtype (float32 for complex64); the other
    attributes are NumPy's."""

    def __init__(self, type):
        if isinstance(type, _ember.ndarray):
            type = type.dtype
        self._np = _np.finfo(type)
        self.bits = int(self._np.bits)
        self.dtype = self._np.dtype
        for name in ("eps", "max", "min", "smallest_normal", "tiny", "resolution"):
            setattr(self, name, float(getattr(self._np, name)))

    def __getattr__(self, name):
        if name == "_np":  # not set yet: no recursion through __getattr__
            raise AttributeError(name)
        return getattr(self._np, name)

    def __repr__(self):
        return repr(self._np)

#: Every dtype Ember supports, in the C core's table order.
SUPPORTED_DTYPES = tuple(_np.dtype(n) for n in _ember.dtype_names)


def can_cast(from_, to, /, casting="safe"):
    """``numpy.can_cast`` on dtypes (arrays give their dtype)."""
    # Only arrays give their dtype: NumPy's scalar types (em.float32, ...)
    # also have a `dtype` attribute, but it is a descriptor, not a dtype.
    if isinstance(from_, (_ember.ndarray, _np.ndarray)):
        from_ = from_.dtype
    return _np.can_cast(from_, to, casting=casting)


def result_type(*arrays_and_dtypes):
    """NumPy 2 promotion; Python scalars are weak (NEP 50)."""
    args = [a.dtype if isinstance(a, _ember.ndarray) else a for a in arrays_and_dtypes]
    return _np.result_type(*args)


def isdtype(dtype, kind):
    """The Array API's ``isdtype``."""
    return _np.isdtype(_np.dtype(dtype), kind)


__all__ = [
    "bool_", "bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
    "float16", "float32", "float64", "complex64", "complex128", "intp", "uintp", "dtype",
    "finfo", "iinfo", "can_cast", "result_type", "isdtype",
]
