"""Python-level ndarray methods and properties.

The ndarray type is written in C; methods that are compositions of public
functions are attached here, so each module keeps its own: a module calls
``attach(name, fn)`` for what it owns, and this module adds the generic ones."""
from . import _ember

ndarray = _ember.ndarray


def attach(name, fn, prop=False):
    """Add fn to em.ndarray as a method (or a property)."""
    setattr(ndarray, name, property(fn) if prop else fn)


def _iter(a):
    if a.ndim == 0:
        raise TypeError("iteration over a 0-d array")
    return (a[i] for i in range(a.shape[0]))


_ember._set_hook("iter", _iter)


class _Flags:
    __slots__ = ("_a",)

    def __init__(self, a):
        self._a = a

    c_contiguous = property(lambda self: self._a._c_contiguous)
    f_contiguous = property(lambda self: self._a._f_contiguous)
    writeable = property(lambda self: self._a._writeable)
    owndata = property(lambda self: False)

    def __getitem__(self, key):
        key = {"C_CONTIGUOUS": "c_contiguous", "C": "c_contiguous", "F_CONTIGUOUS": "f_contiguous",
               "F": "f_contiguous", "WRITEABLE": "writeable", "W": "writeable"}.get(key.upper(), key)
        return getattr(self, key)

    def __repr__(self):
        return (f"  C_CONTIGUOUS : {self.c_contiguous}\n  F_CONTIGUOUS : {self.f_contiguous}\n"
                f"  WRITEABLE : {self.writeable}")


attach("flags", _Flags, prop=True)


def _array_namespace(self, /, *, api_version=None):
    if api_version is not None and api_version not in ("2021.12", "2022.12", "2023.12", "2024.12", "2025.12"):
        raise ValueError(f"unsupported Array API version {api_version!r}")
    import ember
    return ember


attach("__array_namespace__", _array_namespace)
attach("__array_priority__", 100, prop=False)


def _to_device(self, device, /, *, stream=None):
    from ._creation import asarray
    return asarray(self, device=device, copy=None)


attach("to_device", _to_device)
