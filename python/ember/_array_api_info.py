"""The Array API inspection namespace: ``em.__array_namespace_info__()``.

Answers come from what this process can use now: ``devices()`` lists the
devices Ember found (CPU first), ``default_device()`` is the current device
of the calling thread."""
import numpy as _np

from . import _ember

_KINDS = {
    "bool": ("bool",),
    "signed integer": ("int8", "int16", "int32", "int64"),
    "unsigned integer": ("uint8", "uint16", "uint32", "uint64"),
    "integral": ("int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64"),
    "real floating": ("float32", "float64"),
    "complex floating": ("complex64", "complex128"),
}
_KINDS["numeric"] = _KINDS["integral"] + _KINDS["real floating"] + _KINDS["complex floating"]


def _check_device(device):
    from ._device import Device
    return Device(device) if device is not None else None


class Info:
    """``capabilities()``, ``default_device()``, ``default_dtypes()``,
    ``dtypes()``, ``devices()`` as the standard (2025.12) defines them."""

    __module__ = "ember"

    def capabilities(self):
        return {
            "boolean indexing": True,
            "data-dependent shapes": True,
            "max dimensions": _ember.MAXDIMS,
        }

    def default_device(self):
        from ._device import get_device
        return get_device()

    def default_dtypes(self, *, device=None):
        """The same defaults on every device (NumPy's)."""
        _check_device(device)
        return {
            "real floating": _np.dtype("float64"),
            "complex floating": _np.dtype("complex128"),
            "integral": _np.dtype("int64"),
            "indexing": _np.dtype("int64"),
        }

    def dtypes(self, *, device=None, kind=None):
        """{name: dtype} of the Array API dtypes of a kind (a name or a tuple
        of names; None: all).  float16 works in Ember but is not an Array
        API dtype, so it is not listed."""
        _check_device(device)
        if kind is None:
            names = _KINDS["bool"] + _KINDS["numeric"]
        else:
            kinds = kind if isinstance(kind, tuple) else (kind,)
            names = ()
            for k in kinds:
                if k not in _KINDS:
                    raise ValueError(f"unknown dtype kind {k!r}; expected one of {sorted(_KINDS)}")
                names += tuple(n for n in _KINDS[k] if n not in names)
        return {n: _np.dtype(n) for n in names}

    def devices(self):
        from ._device import devices
        return tuple(devices())
