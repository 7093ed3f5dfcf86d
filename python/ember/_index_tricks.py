"""Index helpers: indices, ix_, the diag/tril/triu index functions,
mask_indices, unravel_index and ravel_multi_index (computed on the device
with integer arithmetic)."""
import operator as _operator

import numpy as _np

import ember as em

from . import _ember

__all__ = ["indices", "ix_", "diag_indices", "diag_indices_from", "tril_indices",
           "tril_indices_from", "triu_indices", "triu_indices_from", "mask_indices",
           "unravel_index", "ravel_multi_index"]


def _arr(a):
    return a if isinstance(a, _ember.ndarray) else em.asarray(a)


def indices(dimensions, dtype=int, sparse=False):
    """The index grids of a shape: shape (ndim,) + dimensions (or sparse views)."""
    dims = tuple(_operator.index(d) for d in dimensions)
    n = len(dims)
    out = []
    for i, d in enumerate(dims):
        shape = [1] * n
        shape[i] = d
        out.append(em.reshape(em.arange(d, dtype=dtype), tuple(shape)))
    if sparse:
        return tuple(out)
    if n == 0:
        return em.empty((0,), dtype=dtype)
    return em.stack([em.broadcast_to(o, dims) for o in out])


def ix_(*args):
    """Open mesh index arrays from 1-d sequences (booleans become positions)."""
    out = []
    nd = len(args)
    for k, a in enumerate(args):
        a = _arr(a)
        if a.ndim != 1:
            raise ValueError("Cross index must be 1 dimensional")
        if a.dtype == _np.bool_:
            a = em.flatnonzero(a)
        elif a.size == 0:
            a = a.astype(_np.intp)
        out.append(em.reshape(a, (1,) * k + (a.shape[0],) + (1,) * (nd - k - 1)))
    return tuple(out)


def diag_indices(n, ndim=2):
    """Indices of the main diagonal of an (n,)*ndim array."""
    idx = em.arange(n)
    return (idx,) * ndim


def diag_indices_from(arr):
    """diag_indices for arr (all dimensions equal, at least 2-d)."""
    if arr.ndim < 2:
        raise ValueError("input array must be at least 2-d")
    if len(set(arr.shape)) != 1:
        raise ValueError("All dimensions of input must be of equal length")
    return diag_indices(arr.shape[0], arr.ndim)


def _tri_idx(n, k, m, lower):
    m = n if m is None else m
    r = em.reshape(em.arange(n), (n, 1))
    c = em.reshape(em.arange(m), (1, m))
    mask = (c - r <= k) if lower else (c - r >= k)
    flat = em.flatnonzero(em.broadcast_to(mask, (n, m)))
    return flat // m if m else flat, flat % m if m else flat


def tril_indices(n, k=0, m=None):
    """Indices of the lower triangle (diagonal k) of an (n, m) array."""
    return _tri_idx(n, k, m, True)


def triu_indices(n, k=0, m=None):
    """Indices of the upper triangle (diagonal k) of an (n, m) array."""
    return _tri_idx(n, k, m, False)


def tril_indices_from(arr, k=0):
    if arr.ndim != 2:
        raise ValueError("input array must be 2-d")
    return tril_indices(arr.shape[-2], k=k, m=arr.shape[-1])


def triu_indices_from(arr, k=0):
    if arr.ndim != 2:
        raise ValueError("input array must be 2-d")
    return triu_indices(arr.shape[-2], k=k, m=arr.shape[-1])


def mask_indices(n, mask_func, k=0):
    """Indices where mask_func(ones((n, n)), k) is nonzero."""
    m = mask_func(em.ones((n, n), dtype=int), k)
    return em.nonzero(m != 0)


def _shape(shape):
    if isinstance(shape, (int, _np.integer)):
        return (int(shape),)
    return tuple(_operator.index(s) for s in shape)


def unravel_index(indices, shape, order="C"):
    """The coordinate arrays of flat indices into shape (C or F order)."""
    dims = _shape(shape)
    if order not in ("C", "F"):
        raise ValueError("only 'C' or 'F' order is permitted")
    idx = _arr(indices)
    if idx.dtype.kind not in "iu":
        raise TypeError("only int indices permitted")
    total = int(_np.prod(dims, dtype=_np.int64))
    if idx.size and bool(em.any((idx < 0) | (idx >= total))):
        bad = int(em.max(idx)) if bool(em.any(idx >= total)) else int(em.min(idx))
        raise ValueError(f"index {bad} is out of bounds for array with size {total}")
    idx = idx.astype(_np.int64)
    out = []
    walk = dims[::-1] if order == "C" else dims
    for d in walk:
        out.append(idx % d if d else idx)
        idx = idx // d if d else idx
    return tuple(out[::-1] if order == "C" else out)


def ravel_multi_index(multi_index, dims, mode="raise", order="C"):
    """Flat indices of coordinate arrays into dims (mode raise, wrap or clip)."""
    dims = _shape(dims)
    if len(multi_index) != len(dims):
        raise ValueError(f"parameter multi_index must be a sequence of length {len(dims)}")
    modes = (mode,) * len(dims) if isinstance(mode, str) else tuple(mode)
    idxs = []
    for i, (m, n) in enumerate(zip(multi_index, dims)):
        a = _arr(m)
        if a.dtype.kind not in "iu":
            raise TypeError("only int indices permitted")
        a = a.astype(_np.int64)
        if modes[i] == "raise":
            if a.size and bool(em.any((a < 0) | (a >= n))):
                raise ValueError("invalid entry in coordinates array")
        elif modes[i] == "wrap":
            a = a % n
        elif modes[i] == "clip":
            a = em.clip(a, 0, n - 1)
        else:
            raise ValueError(f"clipmode must be one of 'clip', 'raise', or 'wrap' "
                             f"(got '{modes[i]}')")
        idxs.append(a)
    if order == "F":
        idxs, dims = idxs[::-1], dims[::-1]
    elif order != "C":
        raise ValueError("only 'C' or 'F' order is permitted")
    flat = em.zeros((), dtype=_np.int64)
    for a, n in zip(idxs, dims):
        flat = flat * n + a
    return flat
