"""Set operations on 1-d arrays (intersect1d, union1d, setdiff1d, setxor1d)
built on em.unique, em.sort, em.isin and boolean masks, so they run where
those run (the sorting branch makes them device kernels).

On a device, intersect1d and setxor1d sort once: a stable argsort of the
concatenation, then unique's one pass over it (_concat_groups).  In each
group of equal values the elements of ar1 come first (stable order), so a
value is in both arrays when its group starts in ar1 and ends in ar2, and
in exactly one when it starts and ends in the same array.  Before, they
took a unique of each input and a sort of the two results: three sorts
(EMBER_UNIQUE_FUSED=0 keeps that path)."""
import numpy as _np

import ember as em

from . import _ember

__all__ = ["intersect1d", "union1d", "setdiff1d", "setxor1d"]


def _flat(a):
    return em.ravel(a if isinstance(a, _ember.ndarray) else em.asarray(a))


def _concat_groups(a, b, equal_nan):
    """The groups of equal values of concatenate((a, b)) on a device:
    (values, starts in b, ends in b), one sort (a stable argsort)."""
    from ._sorting import _ember as _e
    c = em.concatenate((a, b))
    na = a.shape[0]
    perm = _e.sort(c, 0, False, True)
    s = em.take(c, perm)
    v, first, _, cnt = _e.unique_sorted(s, perm, equal_nan, True, False, True)
    last = em.cumsum(cnt) - 1
    return v, first >= na, em.take(perm, last) >= na


def _grouped(a, b):
    """Whether the one-sort device path serves a and b (non-empty both)."""
    from ._sorting import _fused, _on_device
    return _on_device(a, b) and _fused() and a.shape[0] and b.shape[0]


def union1d(ar1, ar2):
    """The sorted unique values in either array."""
    return em.unique(em.concatenate((_flat(ar1), _flat(ar2))))


def intersect1d(ar1, ar2, assume_unique=False, return_indices=False):
    """The sorted values in both arrays (with their first indices in each)."""
    a, b = _flat(ar1), _flat(ar2)
    if return_indices:
        if assume_unique:
            ia, ib = em.arange(a.shape[0]), em.arange(b.shape[0])
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
    if not assume_unique and _grouped(a, b):
        # NaN equals nothing here, as NumPy's aux[1:] == aux[:-1]: each its own group
        v, fb, lb = _concat_groups(a, b, False)
        return v[fb != lb]
    if not assume_unique:
        a, b = em.unique(a), em.unique(b)
    s = em.sort(em.concatenate((a, b)))
    mask = s[1:] == s[:-1]
    return s[:-1][mask]


def setdiff1d(ar1, ar2, assume_unique=False):
    """The unique values of ar1 that are not in ar2 (sorted unless assume_unique)."""
    a = _flat(ar1) if assume_unique else em.unique(_flat(ar1))
    return a[~em.isin(a, _flat(ar2), assume_unique=True)]


def setxor1d(ar1, ar2, assume_unique=False):
    """The sorted values in exactly one of the arrays."""
    a, b = _flat(ar1), _flat(ar2)
    if not assume_unique and _grouped(a, b):
        v, fb, lb = _concat_groups(a, b, True)
        keep = fb == lb
        if v.dtype.kind not in "fc":
            return v[keep]
        # NumPy merges each input's NaNs (unique), then keeps both inputs'
        # NaN, NaN != NaN: the NaN group (last) once from each array it has.
        nan = em.isnan(v)
        return em.concatenate((v[keep | nan], v[-1:][nan[-1:] & (fb[-1:] != lb[-1:])]))
    if not assume_unique:
        a, b = em.unique(a), em.unique(b)
    s = em.sort(em.concatenate((a, b)))
    if s.shape[0] == 0:
        return s
    t = em.ones((1,), dtype=_np.bool_)
    flag = em.concatenate((t, s[1:] != s[:-1], t))
    return s[flag[1:] & flag[:-1]]
