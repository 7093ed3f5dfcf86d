"""Sorting, searching and set functions: sort, argsort, searchsorted, unique
(NumPy's) and unique_all/unique_counts/unique_inverse/unique_values, isin
(the Array API's), partition/argpartition, lexsort, digitize.

On the CPU the work is NumPy's host functions (zero copy: see _host.py),
but for the stable argsort of a real dtype: the CPU's C radix sort
(backend/cpu/sort.c, through the same _ember.sort as a device).
On a device that compiles kernels the work stays there: a stable LSD
radix sort and a binary-search kernel (em_sort / em_argsort /
em_searchsorted, codegen/run_sort.c), and the rest composed from device
operations over them (unique: sort, then one pass flagging where the
sorted values change and writing every output, em_unique_sorted; isin:
sort x2, then one kernel binary-searching each element of x1 in it,
em_setop_sorted; partition: the radix select, then one compaction,
em_partition; lexsort: one stable argsort of the keys packed in one word
when they fit 64 bits, else one per key; unique(axis=): a lexsort of the
rows, then the same flag-and-compact pass over whole rows).  NaN handling
is NumPy's: NaNs sort last (first when descending), and ``unique_*``
treat every NaN as distinct, as the Array API requires.
"""
from collections import namedtuple

import os as _os

import numpy as _np

from . import _ember
from . import _device as _devmod
from ._host import check as _check, device_of as _device, host as _host, wrap as _wrap

__all__ = [
    "sort", "argsort", "searchsorted", "unique", "unique_all", "unique_counts",
    "unique_inverse", "unique_values", "isin", "partition", "argpartition", "lexsort", "digitize",
]

UniqueAllResult = namedtuple("UniqueAllResult", ["values", "indices", "inverse_indices", "counts"])
UniqueCountsResult = namedtuple("UniqueCountsResult", ["values", "counts"])
UniqueInverseResult = namedtuple("UniqueInverseResult", ["values", "inverse_indices"])


def _on_device(*arrays):
    """Whether the first ember array among arrays lives off the CPU (then
    the device kernels run; on the CPU NumPy does, in place)."""
    for a in arrays:
        if isinstance(a, _ember.ndarray):
            if a._dev[0] == "cpu":
                return False
            return True
    return False


def _em():
    import ember
    return ember


def _axis(axis, ndim):
    """axis normalised as NumPy does (AxisError when out of range)."""
    from numpy.lib.array_utils import normalize_axis_index
    return normalize_axis_index(axis, ndim)


def _dev_sort(x, axis, descending, arg):
    """The device radix sort of x along axis (None: flattened), stable."""
    if axis is None:
        if x.ndim == 0:
            x = x.reshape(1)
    else:
        axis = _axis(axis, x.ndim)
    return _ember.sort(x, axis, bool(descending), bool(arg))


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
    if _devmod._auto_any(x):  # device="auto": placed first
        from .auto._place import call
        return call("sort", argsort, (x,), axis, kind, order, descending=descending, stable=stable)
    if order is not None:
        raise ValueError("argsort(order=...) needs structured dtypes, which ember does not have")
    if stable is None and kind is not None:
        stable = kind == "stable" or kind == "mergesort"
    stable = True if stable is None else stable
    # The radix sort is stable in both directions; on the CPU it is the C
    # one (backend/cpu/sort.c), 5-10x NumPy's stable argsort (a timsort) for
    # real dtypes.  An unstable argsort stays NumPy's (its order of ties).
    if _on_device(x) and x.ndim == 0 and axis in (-1, 0):
        axis = None  # NumPy's argsort of a 0-d array flattens it: [0]
    if _on_device(x) or stable and _cpu_radix(x):
        return _dev_sort(x, axis, descending, True)
    h = _host(x)
    return _wrap(_argsort_host(h, axis, descending, stable), _device(x))


def _cpu_radix(x):
    """Whether the CPU's radix sort takes x (an ember CPU array of a real
    dtype; a 0-d one stays NumPy's, whose argsort takes axis=-1 there)."""
    return (isinstance(x, _ember.ndarray) and x._dev[0] == "cpu" and x.ndim > 0
            and x.dtype.kind in "biuf")


def sort(x, /, axis=-1, kind=None, order=None, *, descending=False, stable=None):
    """A sorted copy of x along axis (``axis=None`` sorts the flattened array)."""
    _check(x, "sort")
    if _devmod._auto_any(x):  # device="auto": placed first
        from .auto._place import call
        return call("sort", sort, (x,), axis, kind, order, descending=descending, stable=stable)
    if order is not None:
        raise ValueError("sort(order=...) needs structured dtypes, which ember does not have")
    if _on_device(x):
        return _dev_sort(x, axis, descending, False)
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

def _to_dev(v, dev):
    """v as an ember array on dev (ember arrays as they are)."""
    return v if isinstance(v, _ember.ndarray) else _em().asarray(v, device=dev)


def _common(a, b):
    """NumPy's common dtype of a and b (Python scalars weak, as NEP 50)."""
    def d(v):
        if isinstance(v, _ember.ndarray):
            return _np.dtype(v.dtype.name) if hasattr(v.dtype, "name") else _np.dtype(str(v.dtype))
        return v if isinstance(v, (bool, int, float, complex)) else _np.asarray(v).dtype
    return _np.result_type(d(a), d(b))


def _dev_searchsorted(x1, x2, side, sorter):
    if (sorter is None and isinstance(x2, _ember.ndarray) and x2.dtype == x1.dtype
            and x2._dev == x1._dev):
        # one dtype, one device, no sorter (digitize's call): nothing to promote
        # or move (NumPy's dtype names, read below, cost a few us a call)
        return _ember.searchsorted(x1, x2, side == "right", None)
    em = _em()
    dev = _device(x1, x2)
    dt = _common(x1, x2)
    a = x1.astype(dt.name) if str(x1.dtype) != dt.name else x1
    v = _to_dev(x2, dev)
    if str(v.dtype) != dt.name:
        v = v.astype(dt.name)
    so = None
    if sorter is not None:
        so = _to_dev(sorter, dev)
        if so.ndim != 1 or so.shape[0] != a.shape[0]:
            raise ValueError("sorter.size must equal a.size")
        if so.dtype.kind not in "iu":
            raise TypeError("sorter must only contain integers")
        if so.shape[0] and (int(em.min(so)) < 0 or int(em.max(so)) >= a.shape[0]):
            raise ValueError("Sorter index out of range.")
        so = so.astype("int64")
    return _ember.searchsorted(a, v, side == "right", so)


def searchsorted(x1, x2, /, side="left", sorter=None):
    """Indices where the values x2 would be inserted into the ascending 1-D
    x1 (sorted through ``sorter`` when given) to keep it sorted (int64)."""
    _check(x1, "searchsorted")
    if side not in ("left", "right"):
        raise ValueError(f"searchsorted(side=...) must be 'left' or 'right', not {side!r}")
    if x1.ndim != 1:
        raise ValueError(f"searchsorted() needs a 1-D x1, got {x1.ndim} dimensions")
    if _on_device(x1):
        return _dev_searchsorted(x1, x2, side, sorter)
    r = _np.searchsorted(_host(x1), _host(x2), side=side,
                         sorter=None if sorter is None else _host(sorter))
    return _wrap(_np.asarray(r, dtype=_np.int64), _device(x1, x2))


def digitize(x, bins, right=False):
    """The index of the bin each element of x falls in (NumPy's digitize:
    bins monotonically increasing or decreasing; ``right`` says which edge
    a bin includes)."""
    _check(x if isinstance(x, _ember.ndarray) else bins, "digitize")
    em = _em()
    if not _on_device(x, bins):
        r = _np.digitize(_host(x), _host(bins), right=right)
        return _wrap(_np.asarray(r, dtype=_np.int64), _device(x, bins))
    dev = _device(x, bins)
    b = _to_dev(bins, dev)
    if b.ndim != 1:
        raise ValueError("object too deep for desired array" if b.ndim > 1
                         else "object of too small depth for desired array")
    side = "left" if right else "right"
    if b.shape[0] < 2:
        return searchsorted(b, x, side=side)
    # The search is queued before the check that bins increase, whose read-back then waits
    # on both: the host's round trip overlaps the search instead of idling the device
    # before it (EMBER_DIGITIZE_CHECK_FIRST=1: the check first, for A/B).  Bins that
    # do not increase (rare) waste the one search.
    first = _os.environ.get("EMBER_DIGITIZE_CHECK_FIRST") == "1"
    r = None if first else searchsorted(b, x, side=side)
    if bool(em.all(b[1:] >= b[:-1])):
        return searchsorted(b, x, side=side) if r is None else r
    if bool(em.all(b[1:] <= b[:-1])):
        return b.shape[0] - searchsorted(em.flip(b, axis=0), x, side=side)
    raise ValueError("bins must be monotonically increasing or decreasing")


# ---- sets -----------------------------------------------------------------

_INVERSE_SHAPED = None


def _inverse_shaped():
    """Whether this NumPy's unique(return_inverse=True) shapes the inverse
    like the input (2.0 and >= 2.1 do; 2.0.1 did not)."""
    global _INVERSE_SHAPED
    if _INVERSE_SHAPED is None:
        _INVERSE_SHAPED = _np.unique(_np.zeros((2, 2)), return_inverse=True)[1].ndim == 2
    return _INVERSE_SHAPED


def _fused():
    """Whether unique and the set operations take the fused device pass
    (_ember.unique_sorted: one sort, then one flag-and-compact pass with one
    read-back).  EMBER_UNIQUE_FUSED=0 selects the composed path they had
    before (adjacent !=, mask compaction, nonzero, cumsum), kept so the two
    can be compared in one run."""
    import os
    return os.environ.get("EMBER_UNIQUE_FUSED", "1") != "0"


def _dev_unique(x, equal_nan, index, inverse, counts):
    """Sorted distinct values of x (flattened) on its device, with the
    first indices, the inverse (flat) and the counts: sort (argsort when
    indices are wanted), then one pass marking each element that differs
    from the one before it and writing every output (unique_sorted; the
    inverse is each element's rank scattered through the permutation).  The
    inverse by a binary search of each element among the distinct values
    (after a sort of the values alone) took 3.05 ms against the scatter's
    2.94 at 2^24 float32 on the H100 (session 15): gone.  With indices the
    argsort also writes the sorted values where its passes can (CUDA's
    fused onesweep: em_argsort_keys), so no gather of x through the
    permutation: unique inverse+counts of 2^24 float32 on the H100 2.478
    ms against 2.903 with the gather (session 17, one process); backends
    whose argsort does not answer the values gather them."""
    if _fused():
        flat = x.reshape(-1)
        perm = None
        if index or inverse:
            perm, s = _ember.sort(flat, 0, False, True, True)
            if s is None:
                s = _em().take(flat, perm)
        else:
            s = _ember.sort(flat, 0, False, False)
        return _ember.unique_sorted(s, perm, bool(equal_nan), bool(index), bool(inverse),
                                    bool(counts))
    return _dev_unique_composed(x, equal_nan, index, inverse, counts)


def _dev_unique_composed(x, equal_nan, index, inverse, counts):
    """_dev_unique as device operations composed in Python (the path before
    unique_sorted; EMBER_UNIQUE_FUSED=0)."""
    em = _em()
    flat = x.reshape(-1)
    n = flat.shape[0]
    perm = None
    if index or inverse:
        perm = _ember.sort(flat, 0, False, True)
        s = em.take(flat, perm)
    else:
        s = _ember.sort(flat, 0, False, False)
    if n == 0:
        z = em.zeros((0,), dtype="int64", device=_device(x))
        return s, z, z, z
    new = s[1:] != s[:-1]  # a NaN differs from everything: each is its own value
    if equal_nan and s.dtype.kind in "fc":
        nan = em.isnan(s)
        new = new & ~(nan[1:] & nan[:-1])  # NumPy's unique: one NaN (they sort last)
    mask = em.concat([em.ones((1,), dtype="bool", device=_device(x)), new])
    values = s[mask]
    first = em.nonzero(mask)[0]
    idx = em.take(perm, first) if index else None
    cnt = None
    if counts:
        ends = em.concat([first[1:], em.full((1,), n, dtype="int64", device=_device(x))])
        cnt = ends - first
    inv = None
    if inverse:
        inv = em.empty((n,), dtype="int64", device=_device(x))
        inv[perm] = em.cumsum(mask.astype("int64")) - 1
    return values, idx, inv, cnt


def _dev_unique_axis(ar, axis, index, inverse, counts):
    """unique(axis=...) on the device: the slices along axis compared as
    wholes (NumPy views each as one structured value, compared field by
    field).  One lexsort of the rows (the first column primary), a flag
    where a row differs from the one before (a NaN differs from
    everything, as NumPy's structured compare: NaN rows stay distinct),
    then the compaction and the returns as the flat pass composes them."""
    em = _em()
    dev = _device(ar)
    ax = _axis(axis, ar.ndim)
    moved = em.moveaxis(ar, ax, 0)
    rest = moved.shape[1:]
    n = moved.shape[0]
    m = 1
    for d in rest:
        m *= d
    rows = moved.reshape(n, m)  # (n, -1) is ambiguous when n is 0
    if n == 0:
        z = em.zeros((0,), dtype="int64", device=dev)
        values, idx, inv, cnt = rows, z, z, z
    else:
        if m == 0:  # every row is empty, so equal: the first stands for all
            perm = em.arange(n, dtype="int64", device=dev)
        else:
            keys = []  # the last key is lexsort's primary: column 0
            for j in range(m - 1, -1, -1):
                c = rows[:, j]
                # complex: the real part first, then the imaginary (NumPy's
                # order), as two real keys (the CPU's radix sort takes no complex)
                keys += [c.imag, c.real] if c.dtype.kind == "c" else [c]
            perm = lexsort(keys)
        s = em.take(rows, perm, axis=0)
        new = em.any(s[1:] != s[:-1], axis=1)
        mask = em.concat([em.ones((1,), dtype="bool", device=dev), new])
        values = s[mask]
        first = em.nonzero(mask)[0]
        idx = em.take(perm, first) if index else None
        cnt = None
        if counts:
            ends = em.concat([first[1:], em.full((1,), n, dtype="int64", device=dev)])
            cnt = ends - first
        inv = None
        if inverse:
            inv = em.empty((n,), dtype="int64", device=dev)
            inv[perm] = em.cumsum(mask.astype("int64")) - 1
    values = em.moveaxis(values.reshape((values.shape[0],) + rest), 0, ax)
    out = [values] + [r for r, want in ((idx, index), (inv, inverse), (cnt, counts)) if want]
    return tuple(out) if len(out) > 1 else values


def _cpu_unique_perm(ar, index, inverse, counts, equal_nan):
    """unique of a CPU array with indices: NumPy's _unique1d on the CPU's
    radix argsort (stable, NaNs last, -0.0 beside 0.0 in input order, so the
    first indices are mergesort's) instead of NumPy's argsort, 5x slower."""
    perm = _np.asarray(_dev_sort(ar, None, False, True))
    h = _host(ar).reshape(-1)
    aux = h[perm]
    mask = _np.empty(aux.shape, dtype=bool)
    mask[:1] = True
    if equal_nan and aux.shape[0] > 0 and aux.dtype.kind == "f" and _np.isnan(aux[-1]):
        first_nan = _np.searchsorted(aux, aux[-1], side="left")
        if first_nan > 0:
            _np.not_equal(aux[1:first_nan], aux[:first_nan - 1], out=mask[1:first_nan])
        mask[first_nan] = True
        mask[first_nan + 1:] = False
    else:
        _np.not_equal(aux[1:], aux[:-1], out=mask[1:])
    dev = _device(ar)
    out = [aux[mask]]
    if index:
        out.append(perm[mask])
    if inverse:
        inv = _np.empty(mask.shape, dtype=_np.intp)
        inv[perm] = _np.cumsum(mask) - 1
        out.append(inv.reshape(ar.shape) if _inverse_shaped() else inv)
    if counts:
        out.append(_np.diff(_np.concatenate(_np.nonzero(mask) + ([mask.size],))))
    return tuple(_wrap(a, dev) for a in out)


def _cpu_unique_count(ar, inverse, counts):
    """unique of CPU integers spanning fewer values than ar has elements
    (None otherwise): a count per value (NumPy's bincount of x - min), so no
    sort; the inverse is a look-up of each value's rank.  The values, counts
    and inverse are what the sort gives (integers have no ties to order)."""
    h = _host(ar).reshape(-1)
    lo, hi = int(h.min()), int(h.max())
    if hi - lo >= h.size:
        return None
    dt = h.dtype
    if dt.itemsize == 8:  # x - lo in [0, size): no wrap in int64; uint64's wraps back into it
        d = (h - dt.type(lo)).view(_np.int64)
    else:  # narrow dtypes: int8's 127 - -128 does not fit, so widen first
        d = h.astype(_np.intp) - lo
    cnt = _np.bincount(d, minlength=hi - lo + 1)
    present = cnt != 0
    idx = _np.flatnonzero(present)
    out = [(idx.astype(dt) + dt.type(lo)) if dt.itemsize == 8 else (idx + lo).astype(dt)]
    if inverse:
        rank = _np.cumsum(present) - 1
        inv = rank[d]
        out.append(inv.reshape(ar.shape) if _inverse_shaped() else inv)
    if counts:
        out.append(cnt[idx])
    dev = _device(ar)
    return tuple(_wrap(a, dev) for a in out) if len(out) > 1 else _wrap(out[0], dev)


def unique(ar, return_index=False, return_inverse=False, return_counts=False, axis=None, *,
           equal_nan=True, sorted=True):
    """NumPy's unique: the sorted distinct values of ar, with the requested
    first indices, inverse indices and counts (int64)."""
    _check(ar, "unique")
    if axis is not None and getattr(ar, "ndim", None) == 1:
        # NumPy: a 1-d array's axis is checked, then it is the flat unique
        # (equal_nan and -0.0 == 0.0 as without axis; GPU fuzz seed 20000801)
        _np.lib.array_utils.normalize_axis_index(axis, 1)
        axis = None
    if _on_device(ar) and axis is None:
        v, i, inv, c = _dev_unique(ar, equal_nan, return_index, return_inverse, return_counts)
        out = [v]
        if return_index:
            out.append(i)
        if return_inverse:
            out.append(inv.reshape(ar.shape) if _inverse_shaped() else inv)
        if return_counts:
            out.append(c)
        return tuple(out) if len(out) > 1 else v
    if (axis is None and not return_index and isinstance(ar, _ember.ndarray)
            and ar._dev[0] == "cpu" and ar.dtype.kind in "iu" and ar.size):
        r = _cpu_unique_count(ar, return_inverse, return_counts)
        if r is not None:
            return r
    if (not (return_index or return_inverse or return_counts) and axis is None and sorted
            and isinstance(ar, _ember.ndarray) and ar._dev[0] == "cpu"
            and ar.dtype.kind in "biu"):
        # The CPU's integers: NumPy's own sort on the host buffer, then one
        # comparison pass (NumPy's method before 2.3).  NumPy 2.4's unique of
        # integers hashes instead: 6 s for 2^20 distinct int32 here, against
        # 30-40 ms this way, with the same sorted values.
        v = _np.sort(_host(ar), axis=None)
        if v.size > 1:
            keep = _np.empty(v.shape, dtype=bool)
            keep[0] = True
            _np.not_equal(v[1:], v[:-1], out=keep[1:])
            v = v[keep]
        return _wrap(v, _device(ar))
    if _on_device(ar) and axis is not None:
        return _dev_unique_axis(ar, axis, return_index, return_inverse, return_counts)
    if axis is None and (return_index or return_inverse) and _cpu_radix(ar):
        return _cpu_unique_perm(ar, return_index, return_inverse, return_counts, equal_nan)
    r = _np.unique(_host(ar), return_index=return_index, return_inverse=return_inverse,
                   return_counts=return_counts, axis=axis, equal_nan=equal_nan, sorted=sorted)
    dev = _device(ar)
    if isinstance(r, tuple):
        return tuple(_wrap(a, dev) for a in r)
    return _wrap(r, dev)


def unique_all(x, /):
    """(values, indices, inverse_indices, counts); every NaN is its own value."""
    _check(x, "unique_all")
    if _on_device(x):
        v, i, inv, c = _dev_unique(x, False, True, True, True)
        return UniqueAllResult(v, i, inv.reshape(x.shape), c)
    r, dev = _np.unique_all(_host(x)), _device(x)
    return UniqueAllResult(*(_wrap(a, dev) for a in r))


def unique_counts(x, /):
    """(values, counts); every NaN is its own value."""
    _check(x, "unique_counts")
    if _on_device(x):
        v, _, _, c = _dev_unique(x, False, False, False, True)
        return UniqueCountsResult(v, c)
    r, dev = _np.unique_counts(_host(x)), _device(x)
    return UniqueCountsResult(*(_wrap(a, dev) for a in r))


def unique_inverse(x, /):
    """(values, inverse_indices) with inverse_indices shaped like x."""
    _check(x, "unique_inverse")
    if _on_device(x):
        v, _, inv, _ = _dev_unique(x, False, False, True, False)
        return UniqueInverseResult(v, inv.reshape(x.shape))
    r, dev = _np.unique_inverse(_host(x)), _device(x)
    return UniqueInverseResult(*(_wrap(a, dev) for a in r))


def unique_values(x, /):
    """The distinct values of x (sorted); every NaN is its own value."""
    _check(x, "unique_values")
    if _on_device(x):
        return _dev_unique(x, False, False, False, False)[0]
    # np.unique, not np.unique_values: NumPy >= 2.3 returns the latter in hash
    # order, and array-API users (scikit-learn's LDA) rely on sorted classes.
    return _wrap(_np.unique(_host(x), equal_nan=False), _device(x))


def isin(x1, x2, /, assume_unique=False, invert=False, *, kind=None):
    """Whether each element of x1 is in x2 (``invert=True``: is not)."""
    if not isinstance(x1, _ember.ndarray) and not isinstance(x2, _ember.ndarray):
        raise TypeError("isin() needs at least one ember.ndarray argument")
    if kind not in (None, "sort", "table"):
        raise ValueError(f"Invalid kind: '{kind}'. Please use None, 'sort' or 'table'.")
    if _on_device(x1, x2):
        em = _em()
        dev = _device(x1, x2)
        # NumPy's isin takes asarray of each operand: a Python scalar is strong
        # here (isin(int8, 2**40) compares in int64), unlike NEP 50's operators
        x1, x2 = (v if isinstance(v, _ember.ndarray) else _np.asarray(v) for v in (x1, x2))
        # two ember arrays of one dtype skip NumPy's promotion (its dtype
        # names cost tens of microseconds before the first launch)
        if (isinstance(x1, _ember.ndarray) and isinstance(x2, _ember.ndarray)
                and x1.dtype == x2.dtype):
            dt = x1.dtype
        else:
            dt = _common(x1, x2)
        a, b = _to_dev(x1, dev), _to_dev(x2, dev)
        a = a if a.dtype == dt else a.astype(dt.name)
        b = b if b.dtype == dt else b.astype(dt.name)
        if b.size == 0:
            r = em.zeros(a.shape, dtype="bool", device=dev)
        elif _fused() and dt.kind != "c":
            # Sort x2 only; one kernel then binary-searches each element of x1
            # in it and writes the bool (no positions stored, no gather).
            s = _ember.sort(b.reshape(-1), None, False, False)
            a = a if a._c_contiguous else a.copy()
            return _ember.setop_sorted(a, s, 4 if invert else 3)
        else:
            s = _ember.sort(b.reshape(-1), None, False, False)
            pos = em.minimum(_ember.searchsorted(s, a, False, None), s.shape[0] - 1)
            r = em.take(s, pos) == a  # NaN is in nothing, as NumPy
        return ~r if invert else r
    r = _np.isin(_host(x1), _host(x2), assume_unique=assume_unique, invert=invert, kind=kind)
    return _wrap(r, _device(x1, x2))


# ---- partitions and several keys -------------------------------------------

def _kth(kth, n):
    ks = _np.atleast_1d(_np.asarray(kth))
    if ks.ndim > 1:  # NumPy's ValueError (the device path took [[0]]: GPU fuzz seed 20000113)
        raise ValueError("object too deep for desired array: kth must be an integer or a 1-d "
                         "sequence of integers")
    if ks.dtype.kind not in "iu":
        raise TypeError("Partition index must be integer")
    for k in ks.ravel():
        if not -n <= int(k) < n:
            raise ValueError(f"kth(={int(k)}) out of bounds ({n})")


_PART_MAXK = 8  # distinct ranks the select-and-compact path takes (em_partition)


def _dev_partition(a, kth, ax, arg):
    """partition / argpartition of a along ax on its device by the radix
    select and one compaction (_ember.partition), or None where that does
    not apply: a complex dtype, more than _PART_MAXK distinct ranks, or more
    than one line along ax (batches of rows take the segmented sort)."""
    import os
    if os.environ.get("EMBER_PARTITION_SELECT", "1") == "0" or a.dtype.kind == "c":
        return None
    n = a.shape[ax]
    if n == 0 or a.size != n:
        return None
    ks = sorted({int(k) % n for k in _np.atleast_1d(_np.asarray(kth)).ravel()})
    if len(ks) > _PART_MAXK:
        return None
    return _ember.partition(a, ks, bool(arg)).reshape(a.shape)


def partition(a, kth, axis=-1, kind="introselect", order=None):
    """A copy of a with the element that would sit at kth (each kth) in
    sorted order there, smaller ones before it and larger after (NumPy's
    partition).  On a device a single line (1-d, or every other dimension
    1) with up to 8 distinct kth takes the radix select and one compaction
    (em_partition); batches of rows, complex dtypes and more kth take the
    full sort, which is a partition too."""
    _check(a, "partition")
    if order is not None:
        raise ValueError("partition(order=...) needs structured dtypes, which ember does not have")
    if axis is None:
        a, axis = a.reshape(-1), 0
    if a.ndim == 0:
        raise np_axis_error(axis, 0)
    ax = _axis(axis, a.ndim)
    _kth(kth, a.shape[ax])
    if _on_device(a):
        r = _dev_partition(a, kth, ax, False)
        return r if r is not None else _dev_sort(a, ax, False, False)
    # the CPU: NumPy's introselect (O(n) a line) on the zero-copy host view of
    # a's buffer, not a sort (bench_surface's partition row is this call)
    return _wrap(_np.partition(_host(a), kth, axis=ax), _device(a))


def argpartition(a, kth, axis=-1, kind="introselect", order=None):
    """Indices that partition a along axis (see partition), int64."""
    _check(a, "argpartition")
    if order is not None:
        raise ValueError("argpartition(order=...) needs structured dtypes, which ember does not "
                         "have")
    if axis is None:
        a, axis = a.reshape(-1), 0
    if a.ndim == 0:
        raise np_axis_error(axis, 0)
    ax = _axis(axis, a.ndim)
    _kth(kth, a.shape[ax])
    if _on_device(a):
        r = _dev_partition(a, kth, ax, True)
        return r if r is not None else _dev_sort(a, ax, False, True)
    # copy=False: NumPy's indices are int64 already on 64-bit hosts (a copy
    # of them was a third of the row's time)
    r = _np.argpartition(_host(a), kth, axis=ax).astype(_np.int64, copy=False)
    return _wrap(r, _device(a))


def np_axis_error(axis, ndim):
    return _np.exceptions.AxisError(axis, ndim)


def _lex_combined(ks):
    """The keys (the last primary) as one unsigned word whose order is
    their lexicographic order, when each is bool or an integer and their
    widths add up to at most 64 bits (else None): each key's bits in its
    sort order (a signed one with its sign bit flipped), the first key
    lowest.  One stable argsort of it is lexsort: one sort, not one a key
    and a gather between (2 int32 keys: 4 passes of the device sort, the
    bytes that no key varies skipped, against 2 argsorts and 2 gathers)."""
    widths = []
    for k in ks:
        dt = _np.dtype(k.dtype)
        if dt.kind not in "biu":
            return None
        widths.append(1 if dt.kind == "b" else 8 * dt.itemsize)
    if sum(widths) > 64:
        return None
    ut = _np.uint32 if sum(widths) <= 32 else _np.uint64
    comb, shift = None, 0
    for k, w in zip(ks, widths):
        u = k.astype(ut)  # a signed key wraps (two's complement), as NumPy's astype
        if _np.dtype(k.dtype).kind == "i":
            u = u ^ ut(1 << (w - 1))  # the sign bit flipped: unsigned order
            if w < 8 * _np.dtype(ut).itemsize:
                u = u & ut((1 << w) - 1)  # the wrapped high bits cleared
        if shift:
            u = u << ut(shift)
        comb = u if comb is None else comb | u
        shift += w
    return comb


def lexsort(keys, axis=-1):
    """Indices that sort by several keys, the last the primary (NumPy's
    lexsort; int64).  keys: a sequence of arrays of one shape, or a 2-D+
    array whose first dimension runs over the keys."""
    if isinstance(keys, _ember.ndarray):
        if keys.ndim == 0:
            raise TypeError("need sequence of keys with len > 0 in lexsort")
        keys = [keys[i] for i in range(keys.shape[0])]
    keys = list(keys)
    if not keys:
        raise TypeError("need sequence of keys with len > 0 in lexsort")
    if not any(isinstance(k, _ember.ndarray) for k in keys):
        raise TypeError("lexsort() needs at least one ember.ndarray key")
    dev = _device(*keys)
    # On the CPU, keys that the radix argsort takes go the devices' way
    # (one argsort of the keys packed in one word, or one a key): NumPy's
    # lexsort order, several times faster than its own.
    if not _on_device(*keys) and not all(_cpu_radix(k) for k in keys):
        r = _np.lexsort(tuple(_host(k) for k in keys), axis=axis)
        return _wrap(_np.asarray(r, dtype=_np.int64), dev)
    em = _em()
    ks = [_to_dev(k, dev) for k in keys]
    shape = ks[0].shape
    if any(k.shape != shape for k in ks):
        raise ValueError("all keys need to be the same shape")
    if len(shape) == 0:
        # NumPy sorts 0-d keys as one element (axis 0 or -1): index 0
        if axis not in (0, -1):
            raise np_axis_error(axis, 0)
        return em.zeros((), dtype=_np.int64, device=dev)
    ax = _axis(axis, len(shape))
    ks = [em.moveaxis(k, ax, -1) for k in ks]
    comb = _lex_combined(ks)
    if comb is not None:  # one stable argsort of the keys side by side in one word
        return em.moveaxis(_ember.sort(comb, -1, False, True), -1, ax)
    # LSD over the keys: each a stable argsort of the key permuted so far.
    perm = _ember.sort(ks[0], -1, False, True)
    for k in ks[1:]:
        p = _ember.sort(em.take_along_axis(k, perm, axis=-1), -1, False, True)
        perm = em.take_along_axis(perm, p, axis=-1)
    return em.moveaxis(perm, -1, ax)


from ._methods import attach  # noqa: E402

attach("sort", _sort_method)
attach("argsort", _argsort_method)
