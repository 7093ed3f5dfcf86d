"""Sorting, searching and set functions: sort, argsort, searchsorted, unique
(NumPy's) and unique_all/unique_counts/unique_inverse/unique_values, isin
(the Array API's).

The work is NumPy's on the host (see _host.py: zero copy on the CPU, a
round trip through host memory on other devices).  NaN handling is
NumPy's: NaNs sort last (first when descending), and ``unique_*`` treat
every NaN as distinct, as the Array API requires.
"""
from collections import namedtuple

import numpy as _np

from . import _ember
from ._host import check as _check, device_of as _device, host as _host, wrap as _wrap

__all__ = [
    "sort", "argsort", "searchsorted", "unique", "unique_all", "unique_counts",
    "unique_inverse", "unique_values", "isin",
]

UniqueAllResult = namedtuple("UniqueAllResult", ["values", "indices", "inverse_indices", "counts"])
UniqueCountsResult = namedtuple("UniqueCountsResult", ["values", "counts"])
UniqueInverseResult = namedtuple("UniqueInverseResult", ["values", "inverse_indices"])


# ---- sorting --------------------------------------------------------------

def _argsort_host(h, axis, descending, stable):
    """NumPy argsort with the Array API's descending= (stable when asked:
    equal elements keep their original order in both directions)."""
    kind = "stable" if stable or stable is None and descending else None
    if not descending:
        return _np.argsort(h, axis=axis, kind=kind)
    if axis is None:
        h, axis = h.reshape(-1), 0
    if h.ndim == 0:
        return _np.argsort(h, axis=axis)
    # Sorting the reversed array ascending and reversing the answer gives a
    # descending order in which ties keep their original order.
    n = h.shape[axis]
    idx = _np.argsort(_np.flip(h, axis), axis=axis, kind=kind)
    return (n - 1) - _np.flip(idx, axis)


def argsort(x, /, axis=-1, kind=None, order=None, *, descending=False, stable=None):
    """Indices that sort x along axis (int64).  ``descending=True`` sorts
    from the largest; ``stable`` (default: stable) keeps ties in order.
    ``kind``/``order`` are NumPy's (``order`` is not supported)."""
    _check(x, "argsort")
    if order is not None:
        raise ValueError("argsort(order=...) needs structured dtypes, which ember does not have")
    if stable is None and kind is not None:
        stable = kind == "stable" or kind == "mergesort"
    h = _host(x)
    return _wrap(_argsort_host(h, axis, descending, True if stable is None else stable), _device(x))


def sort(x, /, axis=-1, kind=None, order=None, *, descending=False, stable=None):
    """A sorted copy of x along axis (``axis=None`` sorts the flattened array)."""
    _check(x, "sort")
    if order is not None:
        raise ValueError("sort(order=...) needs structured dtypes, which ember does not have")
    h = _host(x)
    if not descending:
        return _wrap(_np.sort(h, axis=axis, kind=kind, stable=stable), _device(x))
    if axis is None:
        h, axis = h.reshape(-1), 0
    if h.ndim == 0:
        return _wrap(h.copy(), _device(x))
    idx = _argsort_host(h, axis, True, True if stable is None else stable)
    return _wrap(_np.take_along_axis(h, idx, axis=axis), _device(x))


def _sort_method(self, axis=-1, kind=None, order=None, *, descending=False, stable=None):
    """In-place sort (NumPy's ndarray.sort)."""
    if not self._writeable:
        raise ValueError("assignment destination is read-only")
    self[...] = sort(self, axis=axis, kind=kind, order=order, descending=descending, stable=stable)


def _argsort_method(self, axis=-1, kind=None, order=None, *, descending=False, stable=None):
    return argsort(self, axis=axis, kind=kind, order=order, descending=descending, stable=stable)


# ---- searching ------------------------------------------------------------

def searchsorted(x1, x2, /, side="left", sorter=None):
    """Indices where the values x2 would be inserted into the ascending 1-D
    x1 (sorted through ``sorter`` when given) to keep it sorted (int64)."""
    _check(x1, "searchsorted")
    if side not in ("left", "right"):
        raise ValueError(f"searchsorted(side=...) must be 'left' or 'right', not {side!r}")
    if x1.ndim != 1:
        raise ValueError(f"searchsorted() needs a 1-D x1, got {x1.ndim} dimensions")
    r = _np.searchsorted(_host(x1), _host(x2), side=side,
                         sorter=None if sorter is None else _host(sorter))
    return _wrap(_np.asarray(r, dtype=_np.int64), _device(x1, x2))


# ---- sets -----------------------------------------------------------------

def unique(ar, return_index=False, return_inverse=False, return_counts=False, axis=None, *,
           equal_nan=True, sorted=True):
    """NumPy's unique: the sorted distinct values of ar, with the requested
    first indices, inverse indices and counts (int64)."""
    _check(ar, "unique")
    r = _np.unique(_host(ar), return_index=return_index, return_inverse=return_inverse,
                   return_counts=return_counts, axis=axis, equal_nan=equal_nan, sorted=sorted)
    dev = _device(ar)
    if isinstance(r, tuple):
        return tuple(_wrap(a, dev) for a in r)
    return _wrap(r, dev)


def unique_all(x, /):
    """(values, indices, inverse_indices, counts); every NaN is its own value."""
    _check(x, "unique_all")
    r, dev = _np.unique_all(_host(x)), _device(x)
    return UniqueAllResult(*(_wrap(a, dev) for a in r))


def unique_counts(x, /):
    """(values, counts); every NaN is its own value."""
    _check(x, "unique_counts")
    r, dev = _np.unique_counts(_host(x)), _device(x)
    return UniqueCountsResult(*(_wrap(a, dev) for a in r))


def unique_inverse(x, /):
    """(values, inverse_indices) with inverse_indices shaped like x."""
    _check(x, "unique_inverse")
    r, dev = _np.unique_inverse(_host(x)), _device(x)
    return UniqueInverseResult(*(_wrap(a, dev) for a in r))


def unique_values(x, /):
    """The distinct values of x (sorted); every NaN is its own value."""
    _check(x, "unique_values")
    # np.unique, not np.unique_values: NumPy >= 2.3 returns the latter in hash
    # order, and array-API users (scikit-learn's LDA) rely on sorted classes.
    return _wrap(_np.unique(_host(x), equal_nan=False), _device(x))


def isin(x1, x2, /, assume_unique=False, invert=False, *, kind=None):
    """Whether each element of x1 is in x2 (``invert=True``: is not)."""
    if not isinstance(x1, _ember.ndarray) and not isinstance(x2, _ember.ndarray):
        raise TypeError("isin() needs at least one ember.ndarray argument")
    r = _np.isin(_host(x1), _host(x2), assume_unique=assume_unique, invert=invert, kind=kind)
    return _wrap(r, _device(x1, x2))


from ._methods import attach  # noqa: E402

attach("sort", _sort_method)
attach("argsort", _argsort_method)
