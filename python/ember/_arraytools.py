"""NumPy's array-building and editing functions written on Ember's
operations: append, insert, delete, pad, rot90, trim_zeros, block, resize,
diagflat, kron, trace, copyto, place, putmask, select, piecewise, choose,
fill_diagonal, apply_along_axis, apply_over_axes, array_equal, array_equiv,
ediff1d, fromfunction, require and the as*array spellings.

The element work is Ember's (concatenate, take, where, broadcasting), so it
stays on the array's device; only shapes and index lists are Python."""
import builtins as _builtins
import operator as _operator

import numpy as _np

import ember as em

from . import _ember
from ._hostcall import numpy_fallback as _fallback

__all__ = ["append", "insert", "delete", "pad", "rot90", "trim_zeros", "block", "resize",
           "diagflat", "kron", "trace", "copyto", "place", "putmask", "select", "piecewise",
           "choose", "fill_diagonal", "apply_along_axis", "apply_over_axes", "array_equal",
           "array_equiv", "ediff1d", "fromfunction", "require", "asanyarray", "asfortranarray",
           "asarray_chkfinite", "row_stack"]


def _arr(a):
    return a if isinstance(a, _ember.ndarray) else em.asarray(a)


def _axis(axis, ndim):
    axis = _operator.index(axis)
    if not -ndim <= axis < ndim:
        raise _np.exceptions.AxisError(axis, ndim)
    return axis % ndim


def append(arr, values, axis=None):
    """arr with values appended (flattened when axis is None)."""
    arr = _arr(arr)
    values = _arr(values)
    if axis is None:
        return em.concatenate((em.ravel(arr), em.ravel(values)))
    return em.concatenate((arr, values), axis=axis)


def _index_list(obj, n):
    """obj (int, slice, sequence, bool mask) as a NumPy int64 index array."""
    if isinstance(obj, slice):
        return _np.arange(n)[obj]
    if isinstance(obj, _ember.ndarray):
        obj = obj.get()
    o = _np.asarray(obj)
    if o.dtype == bool:
        if o.shape != (n,):
            raise ValueError(f"boolean array argument obj to delete must be one dimensional and "
                             f"match the axis length of {n}")
        return _np.flatnonzero(o)
    if o.size and o.dtype.kind not in "iu":
        raise IndexError("arrays used as indices must be of integer (or boolean) type")
    return o.astype(_np.int64)


def delete(arr, obj, axis=None):
    """arr without the entries obj along axis (flattened when axis is None)."""
    arr = _arr(arr)
    if axis is None:
        arr, axis = em.ravel(arr), 0
    axis = _axis(axis, arr.ndim)
    n = arr.shape[axis]
    idx = _index_list(obj, n)
    if idx.size and (idx.max() >= n or idx.min() < -n):
        bad = idx[(idx >= n) | (idx < -n)][0]
        raise IndexError(f"index {bad} is out of bounds for axis {axis} with size {n}")
    keep = _np.ones(n, dtype=bool)
    keep[idx % n if n else idx] = False
    return em.take(arr, em.asarray(_np.flatnonzero(keep), device=arr.device), axis=axis)


def insert(arr, obj, values, axis=None):
    """arr with values inserted before the indices obj along axis."""
    arr = _arr(arr)
    if axis is None:
        arr, axis = em.ravel(arr), 0
    axis = _axis(axis, arr.ndim)
    n = arr.shape[axis]
    if isinstance(obj, slice):
        idx = _np.arange(n)[obj]
    else:
        idx = _np.asarray(obj.get() if isinstance(obj, _ember.ndarray) else obj)
        if idx.dtype == bool:
            raise IndexError("boolean array argument obj to insert must be one dimensional")
        idx = idx.astype(_np.int64)
    if _np.any((idx > n) | (idx < -n)):
        bad = idx[(idx > n) | (idx < -n)].reshape(-1)[0]
        raise IndexError(f"index {bad} is out of bounds for axis {axis} with size {n}")
    idx = _np.where(idx < 0, idx + n, idx)
    values = _arr(values).astype(arr.dtype)
    if idx.size == 1:
        # one position: values go in as a block (NumPy's rule: ndmin=arr.ndim,
        # and for a scalar index the leading value axis becomes axis)
        v = values
        v = em.reshape(v, (1,) * (arr.ndim - v.ndim) + v.shape)
        if idx.ndim == 0:
            v = em.moveaxis(v, 0, axis)
        shape = list(arr.shape)
        shape[axis] = v.shape[axis]
        v = em.broadcast_to(v, tuple(shape))
        k = int(idx.reshape(-1)[0])
        pre = em.take(arr, em.arange(k, device=arr.device), axis=axis)
        post = em.take(arr, em.arange(k, n, device=arr.device), axis=axis)
        return em.concatenate((pre, v, post), axis=axis)
    m = idx.size
    shape = list(arr.shape)
    shape[axis] = m
    v = em.broadcast_to(values, tuple(shape)) if values.ndim == 0 or values.shape != tuple(shape) \
        else values
    if v.ndim != arr.ndim:
        v = em.broadcast_to(v, tuple(shape))
    order = _np.argsort(idx, kind="stable")
    new_pos = idx[order] + _np.arange(m)
    total = n + m
    is_new = _np.zeros(total, dtype=bool)
    is_new[new_pos] = True
    # the result gathers from concatenate((arr, v)) along axis
    src = _np.empty(total, dtype=_np.int64)
    src[~is_new] = _np.arange(n)
    src[new_pos] = n + order
    both = em.concatenate((arr, v), axis=axis)
    return em.take(both, em.asarray(src, device=arr.device), axis=axis)


def _pad_width(pad_width, ndim):
    pw = _np.asarray(pad_width.get() if isinstance(pad_width, _ember.ndarray) else pad_width)
    if pw.dtype.kind not in "iu":
        raise TypeError("`pad_width` must be of integral type.")
    pw = _np.broadcast_to(pw, (ndim, 2)).astype(_np.int64)
    if _np.any(pw < 0):
        raise ValueError("index can't contain negative values")
    return pw


def pad(array, pad_width, mode="constant", **kwargs):
    """array padded along each axis; modes constant, edge, wrap, reflect,
    symmetric (with reflect_type='even') run here, the others on the host."""
    a = _arr(array)
    native = {"constant", "edge", "wrap", "reflect", "symmetric"}
    if callable(mode) or mode not in native or kwargs.get("reflect_type", "even") != "even" or \
            (set(kwargs) - {"constant_values", "reflect_type"}):
        return _fallback("pad", _np.pad, a, pad_width, mode, **kwargs)
    pw = _pad_width(pad_width, a.ndim)
    if mode == "constant":
        cv = _np.broadcast_to(_np.asarray(kwargs.get("constant_values", 0)), (a.ndim, 2))
        for ax in range(a.ndim):
            lo, hi = pw[ax]
            parts = []
            for w, c in ((lo, cv[ax, 0]), (hi, cv[ax, 1])):
                shape = list(a.shape)
                shape[ax] = w
                parts.append(em.full(tuple(shape), c, dtype=a.dtype, device=a.device))
            a = em.concatenate((parts[0], a, parts[1]), axis=ax)
        return a
    for ax in range(a.ndim):
        lo, hi = (int(v) for v in pw[ax])
        n = a.shape[ax]
        if lo == 0 and hi == 0:
            continue
        if n == 0:
            raise ValueError(f"can't extend empty axis {ax} using modes other than "
                             "'constant' or 'empty'")
        j = _np.arange(-lo, n + hi)
        if mode == "edge":
            src = _np.clip(j, 0, n - 1)
        elif mode == "wrap":
            src = j % n
        elif mode == "reflect":
            if n == 1:
                src = _np.zeros_like(j)
            else:
                p = 2 * (n - 1)
                m = j % p
                src = _np.where(m < n, m, p - m)
        else:  # symmetric
            p = 2 * n
            m = j % p
            src = _np.where(m < n, m, p - 1 - m)
        a = em.take(a, em.asarray(src, device=a.device), axis=ax)
    return a


def rot90(m, k=1, axes=(0, 1)):
    """m rotated by 90 degrees k times in the plane of axes (a view)."""
    m = _arr(m)
    axes = tuple(axes)
    if len(axes) != 2:
        raise ValueError("len(axes) must be 2.")
    if axes[0] == axes[1] or abs(axes[0] - axes[1]) == m.ndim:
        raise ValueError("Axes must be different.")
    if axes[0] >= m.ndim or axes[0] < -m.ndim or axes[1] >= m.ndim or axes[1] < -m.ndim:
        raise ValueError(f"Axes={axes} out of range for array of ndim={m.ndim}.")
    k %= 4
    if k == 0:
        return m[...]
    if k == 2:
        return em.flip(em.flip(m, axes[0]), axes[1])
    perm = list(range(m.ndim))
    perm[axes[0]], perm[axes[1]] = perm[axes[1]], perm[axes[0]]
    if k == 1:
        return em.transpose(em.flip(m, axes[1]), perm)
    return em.flip(em.transpose(m, perm), axes[1])


def trim_zeros(filt, trim="fb", axis=None):
    """filt without its leading (f) and/or trailing (b) zeros."""
    a = _arr(filt)
    trim = trim.lower()
    if any(c not in "fb" for c in trim):
        raise ValueError(f"unexpected character(s) in `trim`: {trim!r}")
    if a.ndim == 0:  # NumPy returns a 0-d array itself (after checking axis)
        if axis is not None:
            from numpy.lib.array_utils import normalize_axis_tuple
            normalize_axis_tuple(axis, 0, "axis")
        return a
    if a.ndim != 1 or axis is not None:
        return _trim_zeros_nd(a, trim, axis)
    nz = em.flatnonzero(a != 0)
    n = a.shape[0]
    if nz.shape[0] == 0:
        return a[n:n] if "f" in trim or "b" in trim else a
    first = int(nz[0]) if "f" in trim else 0
    last = int(nz[-1]) + 1 if "b" in trim else n
    return a[first:last]


def _trim_zeros_nd(a, trim, axis):
    """NumPy 2's n-d rule: the bounding box of the nonzero elements (one reduction
    of their coordinates on the device; 2 * ndim numbers come back), along every
    axis or only along axis."""
    if axis is not None:
        axis = _operator.index(axis)
        if not -a.ndim <= axis < a.ndim:
            raise _np.exceptions.AxisError(axis, a.ndim)
        axis %= a.ndim
    nz = em.argwhere(a)
    if nz.shape[0] == 0:
        start = stop = [0] * a.ndim
    else:
        lo, hi = em.min(nz, axis=0).get().tolist(), em.max(nz, axis=0).get().tolist()
        start = lo if "f" in trim else [None] * a.ndim
        stop = [h + 1 for h in hi] if "b" in trim else [None] * a.ndim
    if axis is None:
        return a[tuple(slice(b, e) for b, e in zip(start, stop))]
    return a[(slice(None),) * axis + (slice(start[axis], stop[axis]),)]


def block(arrays):
    """An array assembled from nested lists of blocks (numpy.block)."""
    def depth(x):
        if isinstance(x, tuple):
            raise TypeError("arrays is a tuple. Only lists can be used to arrange blocks, "
                            "and np.block does not allow implicit conversion from tuple to "
                            "ndarray.")
        if isinstance(x, list):
            if not x:
                raise ValueError("List at arrays cannot be empty")
            ds = {depth(y) for y in x}
            if len(ds) != 1:
                raise ValueError("List depths are mismatched.")
            return ds.pop() + 1
        return 0
    d = depth(arrays)
    if d == 0:
        return _arr(arrays).copy()
    items = []

    def ndim_of(x):
        return max(ndim_of(y) for y in x) if isinstance(x, list) else _arr(x).ndim
    nd = max(ndim_of(arrays), d)

    def build(x, level):
        if not isinstance(x, list):
            a = _arr(x)
            return em.reshape(a, (1,) * (nd - a.ndim) + a.shape)
        parts = [build(y, level + 1) for y in x]
        return em.concatenate(parts, axis=-(d - level))
    del items
    return build(arrays, 0)


def resize(a, new_shape):
    """a repeated (cyclically) to fill new_shape."""
    a = _arr(a)
    if isinstance(new_shape, (int, _np.integer)):
        new_shape = (int(new_shape),)
    new_shape = tuple(int(s) for s in new_shape)
    if any(s < 0 for s in new_shape):
        raise ValueError("all elements of `new_shape` must be non-negative")
    total = int(_np.prod(new_shape, dtype=_np.int64))
    flat = em.ravel(a)
    if a.size == 0 or total == 0:
        return em.zeros(new_shape, dtype=a.dtype, device=a.device)
    idx = em.arange(total, device=a.device) % a.size
    return em.reshape(em.take(flat, idx), new_shape)


def diagflat(v, k=0):
    """A 2-d array with the flattened v on diagonal k."""
    v = em.ravel(_arr(v))
    n = v.shape[0] + abs(k)
    out = em.zeros((n, n), dtype=v.dtype, device=v.device)
    i = em.arange(v.shape[0], device=v.device)
    rows, cols = (i, i + k) if k >= 0 else (i - k, i)
    if v.shape[0]:
        em.put(out, rows * n + cols, v)
    return out


def kron(a, b):
    """The Kronecker product (block (i, j) is a[i, j] * b)."""
    a, b = _arr(a), _arr(b)
    nd = max(a.ndim, b.ndim)
    a = em.reshape(a, (1,) * (nd - a.ndim) + a.shape)
    b = em.reshape(b, (1,) * (nd - b.ndim) + b.shape)
    # interleave: a[i0, None, i1, None, ...] * b[None, j0, None, j1 ...]
    ash, bsh = [], []
    for s in a.shape:
        ash += [s, 1]
    for s in b.shape:
        bsh += [1, s]
    r = em.reshape(a, tuple(ash)) * em.reshape(b, tuple(bsh))
    return em.reshape(r, tuple(x * y for x, y in zip(a.shape, b.shape)))


def trace(a, offset=0, axis1=0, axis2=1, dtype=None, out=None):
    """Sum along the diagonal (of the axis1/axis2 planes)."""
    a = _arr(a)
    if a.ndim < 2:
        raise ValueError("diag requires an array of at least two dimensions")
    return em.sum(em.diagonal(a, offset, axis1, axis2), axis=-1, dtype=dtype, out=out)


def _cast_ok(src, dst, casting):
    return _np.can_cast(src, dst, casting)


def copyto(dst, src, casting="same_kind", where=True):
    """Copy src into dst (broadcast), where the mask is true."""
    if not isinstance(dst, _ember.ndarray):
        raise TypeError("copyto() argument 1 must be an ember.ndarray")
    s = src if isinstance(src, _ember.ndarray) else None
    if s is None:
        sv = _np.asarray(src)
        weak = isinstance(src, (int, float, complex, bool))
        if not weak and not _cast_ok(sv.dtype, dst.dtype, casting):
            raise TypeError(f"Cannot cast scalar from dtype('{sv.dtype}') to dtype('{dst.dtype}')"
                            f" according to the rule '{casting}'")
        s = em.asarray(src, dtype=dst.dtype if weak else sv.dtype, device=dst.device)
    elif not _cast_ok(s.dtype, dst.dtype, casting):
        raise TypeError(f"Cannot cast array data from dtype('{s.dtype}') to "
                        f"dtype('{dst.dtype}') according to the rule '{casting}'")
    if where is True:
        dst[...] = em.broadcast_to(s, dst.shape)
        return None
    mask = _arr(where)
    dst[...] = em.where(mask, s.astype(dst.dtype), dst)
    return None


def place(arr, mask, vals):
    """arr[mask] = vals, the vals repeated cyclically (in place)."""
    if not isinstance(arr, _ember.ndarray):
        raise TypeError(f"argument 1 must be ember.ndarray, not {type(arr).__name__}")
    m = em.ravel(_arr(mask)).astype(_np.bool_)
    if m.shape[0] != arr.size:
        raise ValueError("place: mask and data must be the same size")
    idx = em.flatnonzero(m)
    k = idx.shape[0]
    v = em.ravel(_arr(vals)).astype(arr.dtype)
    if k == 0:
        return None
    if v.shape[0] == 0:
        raise ValueError("Cannot insert from an empty array!")
    em.put(arr, idx, em.take(v, em.arange(k, device=arr.device) % v.shape[0]))
    return None


def putmask(a, mask, values):
    """a[mask] = values, with values repeated cyclically over all of a (in place)."""
    if not isinstance(a, _ember.ndarray):
        raise TypeError(f"argument a of putmask must be an ember.ndarray, not "
                        f"{type(a).__name__}")
    m = _arr(mask)
    if m.shape != a.shape:
        raise ValueError("putmask: mask and data must be the same size")
    v = em.ravel(_arr(values)).astype(a.dtype)
    if a.size == 0:
        return None
    if v.shape[0] == 0:
        raise ValueError("putmask: values must not be empty")
    full = em.reshape(em.take(v, em.arange(a.size, device=a.device) % v.shape[0]), a.shape)
    a[...] = em.where(m, full, a)
    return None


def select(condlist, choicelist, default=0):
    """From the first true condition's choice at each element (else default)."""
    if len(condlist) != len(choicelist):
        raise ValueError("list of cases must be same length as list of conditions")
    if len(condlist) == 0:
        raise ValueError("select with an empty condition list is not possible")
    choices = [_arr(c) for c in choicelist]
    conds = [_arr(c) for c in condlist]
    for i, c in enumerate(conds):
        if c.dtype != _np.bool_:
            raise TypeError(f"invalid entry {i} in condlist: should be boolean ndarray")
    dt = em.result_type(*choices, default)
    out = em.asarray(default, dtype=dt)
    for c, v in zip(reversed(conds), reversed(choices)):
        out = em.where(c, v.astype(dt), out)
    shape = em.broadcast_shapes(*[c.shape for c in conds], *[v.shape for v in choices])
    return em.broadcast_to(out, shape).copy() if out.shape != shape else out


def piecewise(x, condlist, funclist, *args, **kw):
    """funclist[i](x[cond_i]) where cond_i holds (an extra function: otherwise)."""
    x = _arr(x)
    if isinstance(condlist, _ember.ndarray) and condlist.ndim == x.ndim and \
            condlist.dtype == _np.bool_:
        condlist = [condlist]
    elif isinstance(condlist, (bool, _np.bool_)) or (
            not isinstance(condlist, (list, tuple)) and _np.ndim(condlist) == x.ndim):
        condlist = [condlist]
    conds = [em.broadcast_to(_arr(c), x.shape) for c in condlist]
    n = len(conds)
    if len(funclist) == n + 1:
        other = ~em.any(em.stack(conds), axis=0) if n else em.ones(x.shape, dtype=_np.bool_)
        conds.append(other)
    elif len(funclist) != n:
        raise ValueError(f"with {n} condition(s), either {n} or {n + 1} functions are expected")
    y = em.zeros(x.shape, dtype=x.dtype, device=x.device)
    for c, f in zip(conds, funclist):
        if not callable(f):
            y = em.where(c, em.asarray(f, dtype=x.dtype), y)
        elif x.ndim == 0:
            if bool(c):
                y = em.asarray(f(x, *args, **kw), dtype=x.dtype)
        else:
            vals = f(x[c], *args, **kw)
            idx = em.flatnonzero(c)
            if idx.shape[0]:
                flat = em.ravel(y).copy()
                em.put(flat, idx, em.broadcast_to(_arr(vals).astype(x.dtype), idx.shape))
                y = em.reshape(flat, x.shape)
    return y


def choose(a, choices, out=None, mode="raise"):
    """choices[a[i]][i] for each element (choices broadcast with a)."""
    a = _arr(a)
    if a.dtype.kind not in "iub":
        raise TypeError("Cannot cast array data from dtype('%s') to dtype('int64') according "
                        "to the rule 'safe'" % a.dtype)
    cs = [_arr(c) for c in choices]
    n = len(cs)
    if mode == "raise":
        if a.size and bool(em.any((a < 0) | (a >= n))):
            raise ValueError("invalid entry in choice array")
        idx = a
    elif mode == "wrap":
        idx = a % n
    elif mode == "clip":
        idx = em.clip(a, 0, n - 1)
    else:
        raise ValueError(f"clipmode must be one of 'clip', 'raise', or 'wrap' (got '{mode}')")
    dt = em.result_type(*cs)
    shape = em.broadcast_shapes(a.shape, *[c.shape for c in cs])
    r = em.zeros(shape, dtype=dt, device=a.device)
    for i, c in enumerate(cs):
        r = em.where(idx == i, c.astype(dt), r)
    if out is not None:
        out[...] = r
        return out
    return r


def fill_diagonal(a, val, wrap=False):
    """Set the main diagonal of a (all dims equal, or 2-d) to val, in place."""
    if not isinstance(a, _ember.ndarray):
        raise TypeError("fill_diagonal expects an ember.ndarray")
    if a.ndim < 2:
        raise ValueError("array must be at least 2-d")
    if a.ndim == 2:
        step = a.shape[1] + 1
        end = None if wrap else a.shape[1] * a.shape[1]
    else:
        if len(set(a.shape)) != 1:
            raise ValueError("All dimensions of input must be of equal length")
        step = 1 + int(_np.cumprod(a.shape[:-1]).sum())
        end = None
    total = a.size if end is None else min(end, a.size)
    idx = em.arange(0, total, step, device=a.device)
    k = idx.shape[0]
    if k == 0:
        return None
    v = em.ravel(_arr(val)).astype(a.dtype)
    vals = em.take(v, em.arange(k, device=a.device) % v.shape[0])
    flat = a.reshape(-1) if a.flags["C_CONTIGUOUS"] else None
    if flat is not None:
        em.put(flat, idx, vals)
    else:
        f = em.ravel(a).copy()
        em.put(f, idx, vals)
        a[...] = em.reshape(f, a.shape)
    return None


def apply_along_axis(func1d, axis, arr, *args, **kwargs):
    """func1d applied to each 1-d slice along axis (one call per slice)."""
    arr = _arr(arr)
    axis = _axis(axis, arr.ndim)
    a = em.moveaxis(arr, axis, -1)
    outer = a.shape[:-1]
    if 0 in outer:
        raise ValueError("Cannot apply_along_axis when any iteration dimensions are 0")
    res = [_arr(func1d(a[i], *args, **kwargs)) for i in _np.ndindex(*outer)]
    r = em.stack(res)
    r = em.reshape(r, outer + res[0].shape)
    # the function's output axes replace axis
    nout = res[0].ndim
    if nout == 0:
        return r
    src = tuple(range(len(outer), len(outer) + nout))
    dst = tuple(range(axis, axis + nout))
    return em.moveaxis(r, src, dst)


def apply_over_axes(func, a, axes):
    """func(a, axis) applied over each axis in turn, keeping the dimensions."""
    val = _arr(a)
    N = val.ndim
    if _np.ndim(axes) == 0:
        axes = (axes,)
    for axis in axes:
        if axis < 0:
            axis = N + axis
        res = func(val, axis)
        if res.ndim == val.ndim:
            val = res
        else:
            res = em.expand_dims(res, axis)
            if res.ndim == val.ndim:
                val = res
            else:
                raise ValueError("function is not returning an array of the correct shape")
    return val


def array_equal(a1, a2, equal_nan=False):
    """True if the arrays have the same shape and elements."""
    try:
        a1, a2 = _arr(a1), _arr(a2)
    except Exception:
        return False
    if a1.shape != a2.shape:
        return False
    if not equal_nan or not (a1.dtype.kind in "fc" or a2.dtype.kind in "fc"):
        return _builtins.bool(em.all(a1 == a2))
    n1, n2 = em.isnan(a1), em.isnan(a2)
    return _builtins.bool(em.all((a1 == a2) | (n1 & n2)))


def array_equiv(a1, a2):
    """True if the arrays broadcast together and are equal."""
    try:
        a1, a2 = _arr(a1), _arr(a2)
        em.broadcast_shapes(a1.shape, a2.shape)
    except Exception:
        return False
    return _builtins.bool(em.all(a1 == a2))


def ediff1d(ary, to_end=None, to_begin=None):
    """Differences of consecutive elements of the flattened array."""
    a = em.ravel(_arr(ary))
    d = a[1:] - a[:-1]
    parts = []
    for extra in (to_begin, None, to_end):
        if extra is None and parts and parts[-1] is d:
            continue
        if extra is None:
            parts.append(d)
            continue
        e = em.ravel(_arr(extra))
        if not _np.can_cast(e.dtype, a.dtype, casting="same_kind"):
            raise TypeError("dtype of `to_begin` or `to_end` must be compatible with input "
                            "`ary` under the `same_kind` rule.")
        parts.append(e.astype(d.dtype))
    if to_begin is None and to_end is None:
        return d
    if to_begin is None:
        parts = [d] + parts[1:]
    return em.concatenate(parts)


def fromfunction(function, shape, *, dtype=float, like=None, **kwargs):
    """function called on the index grids of shape (each of dtype)."""
    from ._index_tricks import indices
    return function(*indices(shape, dtype=dtype), **kwargs)


def require(a, dtype=None, requirements=None, *, like=None):
    """a as an ember array of dtype meeting requirements (C order, writeable, ...)."""
    reqs = {str(r).upper()[:1] if len(str(r)) <= 2 else str(r).upper()
            for r in (requirements or ())}
    if reqs & {"F", "F_CONTIGUOUS", "FORTRAN"}:
        raise ValueError("ember arrays are C-ordered: requirement 'F' cannot be met")
    r = em.asarray(a, dtype=dtype)
    if reqs & {"C", "C_CONTIGUOUS", "CONTIGUOUS", "O", "OWNDATA", "W", "WRITEABLE", "A",
               "ALIGNED"}:
        if not r.flags["C_CONTIGUOUS"] or "O" in reqs or "OWNDATA" in reqs:
            r = em.ascontiguousarray(r) if "O" not in reqs else r.copy()
    return r


def asanyarray(a, dtype=None, order=None, *, device=None, copy=None, like=None):
    """asarray (Ember has no subclasses to keep)."""
    return em.asarray(a, dtype=dtype, device=device, copy=copy)


def asfortranarray(a, dtype=None, *, like=None):
    """An ember array of a; 0-d and 1-d only (Ember arrays are C-ordered)."""
    r = em.asarray(a, dtype=dtype)
    if r.ndim > 1 and not (r.flags["F_CONTIGUOUS"] if "F_CONTIGUOUS" in _flag_names(r)
                           else False):
        raise ValueError("ember arrays are C-ordered: a Fortran-ordered copy of a >1-d array "
                         "cannot be made")
    return r


def _flag_names(r):
    try:
        return set(r.flags.keys())
    except AttributeError:
        return set()


def asarray_chkfinite(a, dtype=None, order=None):
    """asarray, raising ValueError if a holds inf or NaN."""
    r = em.asarray(a, dtype=dtype)
    if r.dtype.kind in "fc" and r.size and not _builtins.bool(em.all(em.isfinite(r))):
        raise ValueError("array must not contain infs or NaNs")
    return r


def row_stack(tup, *, dtype=None, casting="same_kind"):
    """vstack (NumPy's deprecated spelling)."""
    return em.vstack(tup, dtype=dtype, casting=casting)
