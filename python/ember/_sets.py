"""Set functions: ``unique`` (NumPy's) and the Array API ``unique_all``,
``unique_counts``, ``unique_inverse``, ``unique_values``.

Values come back sorted (as NumPy's ``unique``, CuPy and PyTorch give
them; scikit-learn's array-API code relies on it), NaNs distinct as the
Array API asks.  Ember has no native sort yet, so these run NumPy on a host
copy and put the results on the input's device; a device sort replaces the
body, not the interface.
"""
from collections import namedtuple

import numpy as np

from . import _ember

__all__ = ["unique", "unique_all", "unique_counts", "unique_inverse", "unique_values"]

UniqueAllResult = namedtuple("UniqueAllResult", ["values", "indices", "inverse_indices", "counts"])
UniqueCountsResult = namedtuple("UniqueCountsResult", ["values", "counts"])
UniqueInverseResult = namedtuple("UniqueInverseResult", ["values", "inverse_indices"])


def _host(x):
    if not isinstance(x, _ember.ndarray):
        raise TypeError(f"expected an ember.ndarray, got {type(x).__name__}")
    return x.get()


def _on(x, *values):
    from ._creation import asarray
    out = tuple(asarray(v, device=x.device) for v in values)
    return out if len(out) > 1 else out[0]


def unique_values(x, /):
    """The distinct values of x, sorted, as a 1-d array (NaNs distinct)."""
    return _on(x, np.unique(_host(x), equal_nan=False))


def unique_counts(x, /):
    v, c = np.unique(_host(x), return_counts=True, equal_nan=False)
    return UniqueCountsResult(*_on(x, v, c))


def unique_inverse(x, /):
    h = _host(x)
    v, inv = np.unique(h, return_inverse=True, equal_nan=False)
    return UniqueInverseResult(*_on(x, v, inv.reshape(h.shape)))


def unique_all(x, /):
    h = _host(x)
    v, idx, inv, c = np.unique(h, return_index=True, return_inverse=True, return_counts=True,
                               equal_nan=False)
    return UniqueAllResult(*_on(x, v, idx, inv.reshape(h.shape), c))


def unique(ar, return_index=False, return_inverse=False, return_counts=False, axis=None, *,
           equal_nan=True):
    """numpy.unique for ember arrays (results on ar's device)."""
    from ._creation import asarray
    ar = ar if isinstance(ar, _ember.ndarray) else asarray(ar)
    r = np.unique(_host(ar), return_index=return_index, return_inverse=return_inverse,
                  return_counts=return_counts, axis=axis, equal_nan=equal_nan)
    return _on(ar, *r) if isinstance(r, tuple) else _on(ar, r)
