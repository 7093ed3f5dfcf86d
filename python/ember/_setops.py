"""Set operations on 1-d arrays (intersect1d, union1d, setdiff1d, setxor1d)
built on em.unique, em.sort, em.isin and boolean masks, so they run where
those run (the sorting branch makes them device kernels).

On a device each em.unique here is one sort and unique's one pass
(_ember.unique_sorted).  One stable argsort of the concatenation with
unique's pass over it (a value is in both inputs when its group of equal
values starts in ar1 and ends in ar2) was tried for intersect1d and
setxor1d and measured slower on the H100 at 2^24 int32 per input (10.0 and
10.5 ms against 5.3 and 5.9 for this composition): the argsort of 2^25 keys
and its gathers cost more than two sorts of half the keys and a third
sort of their unique values."""
import numpy as _np

import ember as em

from . import _ember

__all__ = ["intersect1d", "union1d", "setdiff1d", "setxor1d"]


def _flat(a):
    return em.ravel(a if isinstance(a, _ember.ndarray) else em.asarray(a))


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
    if not assume_unique:
        a, b = em.unique(a), em.unique(b)
    s = em.sort(em.concatenate((a, b)))
    if s.shape[0] == 0:
        return s
    t = em.ones((1,), dtype=_np.bool_)
    flag = em.concatenate((t, s[1:] != s[:-1], t))
    return s[flag[1:] & flag[:-1]]
