"""Set operations on 1-d arrays (intersect1d, union1d, setdiff1d, setxor1d)
built on em.unique, em.sort, em.isin and boolean masks, so they run where
those run.

On a device (real dtypes, both inputs of one dtype) each input is sorted
once and the rest is one pass per output over the sorted arrays
(_ember.setop_sorted, codegen/run_unique.c): intersect1d is the distinct
values of sort(a) found in sort(b) by a binary search, setdiff1d those not
found, setxor1d NumPy's algorithm with a merge for its third sort: the
distinct values of each sorted input (unique's pass, no search), merged by a
binary search (each element's place is its index plus its rank in the other
list), then the values equal to neither neighbour (one more unique-style
pass, setop_sorted mode 5); the merge is a merge path (one search per tile
of 4096 outputs).  The route before, the two "not found" lists merged, took
2.81 ms against 2.17 on the H100 at 2^24 int32 per input (session 15) and
is gone.  NumPy sorts
unique(a) and unique(b) again, concatenated: a third sort of up to twice the
keys.  union1d stays unique(concatenate): that is already
one sort of the keys.  EMBER_UNIQUE_FUSED=0 selects the composition of
unique, sort, isin and masks used before, kept to compare the two.

An earlier try, one stable argsort of the concatenation with unique's pass
over it (a value is in both inputs when its group of equal values starts in
ar1 and ends in ar2), measured slower on the H100 at 2^24 int32 per input
(10.0 and 10.5 ms against 5.3 and 5.9): the argsort of 2^25 keys and its
gathers cost more than the sorts of the halves."""
import numpy as _np

import ember as em

from . import _ember

__all__ = ["intersect1d", "union1d", "setdiff1d", "setxor1d"]


def _flat(a):
    if type(a) in _PY_SCALARS:
        a = _np.asarray(a)  # NumPy's asarray: 2**63 is uint64 there
    return em.ravel(a if isinstance(a, _ember.ndarray) else em.asarray(a))


_IN, _NOTIN, _MERGE, _SINGLE = 0, 1, 2, 5
_PY_SCALARS = (bool, int, float, complex)


def _fused(a, b):
    """Whether a and b (flat ember arrays) take the sorted-pass path: one
    device that compiles kernels, one real dtype."""
    from ._sorting import _fused as on, _on_device
    return (on() and _on_device(a) and a._dev == b._dev and a.dtype == b.dtype
            and a.dtype.kind != "c")


def _k():
    """The kernels' module, looked up through _sorting (which the composed
    tests stand in for with NumPy)."""
    from . import _sorting
    return _sorting._ember


def _dsort(a):
    return _k().sort(a, 0, False, False)


def _weak_pair(ar1, ar2):
    """ar1 and ar2 flat, as NumPy's union1d concatenates them: a Python
    scalar is weak there (NEP 50: union1d(int16, 300) is int16,
    union1d(float32, 1j) complex64), cast as NumPy's concatenate casts it
    (unsafe: 70000 wraps in int16, 1e300 overflows float32 with NumPy's
    warning, 2**70 raises OverflowError), on the other operand's device.
    The other set operations take asarray of each operand first, strong
    as NumPy's do (intersect1d(int16, 300) is int64 there too)."""
    w1, w2 = type(ar1) in _PY_SCALARS, type(ar2) in _PY_SCALARS
    if not (w1 or w2):
        return _flat(ar1), _flat(ar2)
    if w1 and w2:
        dt = em.result_type(ar1, ar2)
        return (em.asarray(_np.asarray(ar1).astype(dt).reshape(1)),
                em.asarray(_np.asarray(ar2).astype(dt).reshape(1)))
    arr = _flat(ar2 if w1 else ar1)
    dt = em.result_type(arr, ar1 if w1 else ar2)
    s = em.asarray(_np.asarray(ar1 if w1 else ar2).astype(dt).reshape(1), device=arr.device)
    return (s, arr) if w1 else (arr, s)


def union1d(ar1, ar2):
    """The sorted unique values in either array."""
    return em.unique(em.concatenate(_weak_pair(ar1, ar2)))


def intersect1d(ar1, ar2, assume_unique=False, return_indices=False):
    """The sorted values in both arrays (with their first indices in each)."""
    a, b = _flat(ar1), _flat(ar2)
    if return_indices:
        if assume_unique:
            ia = em.arange(a.shape[0], device=a.device)
            ib = em.arange(b.shape[0], device=b.device)
        else:
            a, ia = em.unique(a, return_index=True)
            b, ib = em.unique(b, return_index=True)
        aux = em.concatenate((a, b))
        order = em.argsort(aux, stable=True)
        s = em.take(aux, order)
        mask = s[1:] == s[:-1]
        common = s[:-1][mask]
        i1 = order[:-1][mask]
        i2 = order[1:][mask] - a.shape[0]
        return common, em.take(ia, i1), em.take(ib, i2)
    if not assume_unique and _fused(a, b):
        return _k().setop_sorted(_dsort(a), _dsort(b), _IN)
    if not assume_unique:
        a, b = em.unique(a), em.unique(b)
    s = em.sort(em.concatenate((a, b)))
    mask = s[1:] == s[:-1]
    return s[:-1][mask]


def setdiff1d(ar1, ar2, assume_unique=False):
    """The unique values of ar1 that are not in ar2 (sorted unless assume_unique)."""
    a, b = _flat(ar1), _flat(ar2)
    if _fused(a, b) and b.shape[0]:
        sb = _dsort(b)
        if assume_unique:  # a's order and repeats kept, as NumPy
            a = a if a._c_contiguous else a.copy()
            return a[_k().setop_sorted(a, sb, 4)]
        return _k().setop_sorted(_dsort(a), sb, _NOTIN)
    a = a if assume_unique else em.unique(a)
    return a[~em.isin(a, b, assume_unique=True)]


def setxor1d(ar1, ar2, assume_unique=False):
    """The sorted values in exactly one of the arrays."""
    a, b = _flat(ar1), _flat(ar2)
    if not assume_unique and _fused(a, b):
        # NumPy's algorithm with a merge for its sort: each input's distinct
        # values (unique's pass, no search), merged (a binary search per
        # element), then those equal to neither neighbour (SINGLE; NaNs
        # differ, so one NaN of each input stays, as NumPy's).
        ua = _k().unique_sorted(_dsort(a), None, True, False, False, False)[0]
        ub = _k().unique_sorted(_dsort(b), None, True, False, False, False)[0]
        m = _k().setop_sorted(ua, ub, _MERGE)
        return _k().setop_sorted(m, m, _SINGLE)
    if not assume_unique:
        a, b = em.unique(a), em.unique(b)
    s = em.sort(em.concatenate((a, b)))
    if s.shape[0] == 0:
        return s
    t = em.ones((1,), dtype=_np.bool_, device=s.device)  # beside s, not on the default device
    flag = em.concatenate((t, s[1:] != s[:-1], t))
    return s[flag[1:] & flag[:-1]]
