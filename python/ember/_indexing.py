"""Advanced indexing (integer arrays, lists, boolean masks, mixed with basic
items) with NumPy's semantics, and the index functions take, take_along_axis,
put, nonzero, argwhere, flatnonzero, compress, extract.

Basic indexing (ints, slices, None, Ellipsis) is done in C; the C subscript
calls the hooks here for anything else.  Every advanced index is reduced to
a basic view of the array whose advanced dimensions are moved to the front,
plus one int64 index array per such dimension, handed to the C gather
(``_ember._take``) or scatter (``_ember._put``), which bounds-check and wrap.
"""
import operator
import re

import numpy as _np

from . import _ember
from ._methods import attach

ndarray = _ember.ndarray

__all__ = ["take", "take_along_axis", "put", "put_along_axis", "nonzero", "argwhere",
           "flatnonzero", "compress", "extract"]

_INDEX_ERR = ("only integers, slices (`:`), ellipsis (`...`), numpy.newaxis (`None`) and "
              "integer or boolean arrays are valid indices")


class _Adv:
    """One advanced item: int64/bool array `arr`, the input axis it starts at
    (None for a 0-d bool, which adds an axis)."""
    __slots__ = ("arr", "is_bool", "axis")

    def __init__(self, arr, is_bool):
        self.arr, self.is_bool, self.axis = arr, is_bool, None


def _as_index_array(k, device):
    """An ember array for a list/NumPy array/ember array index item, or raises IndexError."""
    if isinstance(k, ndarray):
        a = k
    else:
        h = _np.asarray(k)
        if h.dtype == object:
            raise IndexError(_INDEX_ERR)
        if h.size == 0 and h.dtype.kind == "f" and not isinstance(k, _np.ndarray):
            h = h.astype(_np.int64)  # [] indexes as an empty integer array
        a = _ember.asarray(h, None, device, None)
    if a.dtype.kind not in "biu":
        if isinstance(k, (list, tuple)):
            raise IndexError(_INDEX_ERR)
        raise IndexError("arrays used as indices must be of integer (or boolean) type")
    return a


def _classify(x, key):
    """The key as a list of items: None, Ellipsis, slice, int or _Adv."""
    if not isinstance(key, tuple):
        key = (key,)
    items = []
    for k in key:
        if k is None or k is Ellipsis or isinstance(k, slice):
            items.append(k)
        elif isinstance(k, (bool, _np.bool_)):
            items.append(_Adv(_ember.asarray(bool(k), None, x._dev_spec(), None), True))
        elif isinstance(k, (ndarray, _np.ndarray, list, tuple)):
            a = _as_index_array(k, x._dev_spec())
            if a.dtype.kind == "b":
                items.append(_Adv(a, True))
            elif a.ndim == 0:
                items.append(operator.index(a))
            else:
                items.append(_Adv(a, False))
        else:
            try:
                items.append(operator.index(k))
            except TypeError:
                raise IndexError(_INDEX_ERR) from None
    return items


def _consumes(it):
    """Input dimensions an item consumes."""
    if isinstance(it, _Adv):
        return it.arr.ndim if it.is_bool else 1
    return 0 if it is None or it is Ellipsis else 1


def _expand(x, items):
    """Replace the Ellipsis (or append one) by full slices; set each _Adv's axis."""
    if sum(1 for it in items if it is Ellipsis) > 1:
        raise IndexError("an index can only have a single ellipsis ('...')")
    used = sum(_consumes(it) for it in items)
    if used > x.ndim:
        raise IndexError(f"too many indices for array: array is {x.ndim}-dimensional, "
                         f"but {used} were indexed")
    fill = [slice(None)] * (x.ndim - used)
    ell = [j for j, it in enumerate(items) if it is Ellipsis]
    items = items[:ell[0]] + fill + items[ell[0] + 1:] if ell else items + fill
    axis = 0
    for it in items:
        if isinstance(it, _Adv):
            it.axis = None if it.is_bool and it.arr.ndim == 0 else axis
        axis += _consumes(it)
    return items


def _bool_to_int(x, it):
    """A boolean item as [(int64 index array, input axis)], one per mask dimension."""
    m = it.arr
    if m.ndim == 0:  # x[True] / x[False]: a new axis indexed by [0] or []
        n = 1 if bool(m) else 0
        return [(_ember.asarray(_np.zeros(n, _np.int64), None, x._dev_spec(), None), None)]
    for d in range(m.ndim):
        # NumPy lets an empty mask axis stand against an axis of any length.
        if m.shape[d] != x.shape[it.axis + d] and m.shape[d] != 0:
            raise IndexError(f"boolean index did not match indexed array along axis "
                             f"{it.axis + d}; size of axis is {x.shape[it.axis + d]} but size of "
                             f"corresponding boolean axis is {m.shape[d]}")
    return [(c, it.axis + d) for d, c in enumerate(_coords(m))]


def _coords(m):
    """The nonzero coordinates of m (ndim >= 1), one contiguous int64 array per dimension."""
    c = _ember._nonzero(m)  # (nnz, ndim)
    if m.ndim == 1:
        return (c.reshape(-1),)
    c = c.T.copy()
    return tuple(c[d] for d in range(m.ndim))


class _Plan:
    """An advanced index reduced to: a basic view `view` whose indexed dims
    are `dims`, index arrays `idx` (one per dim, input axes `axes`), the
    broadcast index shape, and where its dims go in the result."""

    def __init__(self, x, key):
        items = _classify(x, key)
        self.basic = None
        # x[mask] with a mask of x's own shape: NumPy's boolean-assignment path, which takes
        # only 0-d and 1-d values (checked by _setitem)
        self.mask_only = (len(items) == 1 and isinstance(items[0], _Adv) and items[0].is_bool
                          and tuple(items[0].arr.shape) == tuple(x.shape))
        if not any(isinstance(it, _Adv) for it in items):
            self.basic = tuple(items)
            return
        dev = x._dev_spec()
        # With arrays present, ints index as 0-d arrays (this matters for
        # where the result dimensions go).
        items = [_Adv(_ember.asarray(it, "int64", dev, None), False) if isinstance(it, int) else it
                 for it in items]
        # NumPy puts the result dims in place only if the advanced items are
        # next to each other in the key as written (an Ellipsis between
        # them separates them even when it stands for no dimension).
        pos = [i for i, it in enumerate(items) if isinstance(it, _Adv)]
        adjacent = pos == list(range(pos[0], pos[0] + len(pos)))
        items = _expand(x, items)
        for it in items:  # scalars are checked even when the arrays select nothing
            if isinstance(it, _Adv) and not it.is_bool and it.arr.ndim == 0:
                v, n = int(it.arr), x.shape[it.axis]
                if not -n <= v < n:
                    raise IndexError(f"index {v} is out of bounds for axis {it.axis} with size {n}")
        # Every remaining basic item (None or slice) makes one view dim, so
        # an advanced item's dims start at len(basic).
        basic, idx, axes, dims = [], [], [], []
        for it in items:
            if not isinstance(it, _Adv):
                basic.append(it)
                continue
            pairs = _bool_to_int(x, it) if it.is_bool else [(it.arr, it.axis)]
            for arr, ax in pairs:
                dims.append(len(basic))
                basic.append(None if ax is None else slice(None))
                idx.append(arr)
                axes.append(ax)
        self._finish(x, basic, idx, axes, dims, adjacent)

    def _finish(self, x, basic, idx, axes, dims, adjacent):
        self.view = x[tuple(basic)]
        self.idx, self.axes, self.dims = idx, axes, dims
        try:
            self.bshape = _np.broadcast_shapes(*[tuple(a.shape) for a in idx])
        except ValueError:
            shapes = " ".join(str(tuple(a.shape)).replace(" ", "") for a in idx)
            raise IndexError("shape mismatch: indexing arrays could not be broadcast together "
                             f"with shapes {shapes} ") from None
        rest = [d for d in range(self.view.ndim) if d not in dims]
        self.perm = dims + rest
        self.at = dims[0] if adjacent else 0  # view dims before the first indexed one
        self.nrest = len(rest)

    def front(self):
        """The view with the indexed dims first."""
        return self.view.transpose(self.perm)

    def result_axes(self):
        """Axes that move a (B + rest) array into NumPy's result order."""
        nb = len(self.bshape)
        return list(range(nb, nb + self.at)) + list(range(nb)) + list(range(nb + self.at,
                                                                            nb + self.nrest))

    def relabel(self, err):
        """The C error names the axis among the indexed dims: say the input axis."""
        msg = str(err)
        m = re.match(r"index (-?\d+) is out of bounds for axis (\d+) with size (\d+)", msg)
        if m:
            ax = self.axes[int(m.group(2))]
            msg = f"index {m.group(1)} is out of bounds for axis {ax if ax is not None else 0} " \
                  f"with size {m.group(3)}"
        return IndexError(msg)


def _getitem(x, key):
    # x[mask] with a boolean Ember mask of x's shape on x's device: one compaction
    # (em_mask_select) instead of nonzero's coordinates and a gather of them, the
    # CPU's too (its count pass and AVX2 compaction, backend/cpu/compact.c: 2^20
    # float32 in 0.8 ms a thread where nonzero and the gather took 2.0).
    if (type(key) is ndarray and key.dtype == _np.bool_ and key.ndim >= 1
            and key.shape == x.shape and key._dev == x._dev):
        return _ember._mask_select(x if x.flags.c_contiguous else x.copy(), key)
    p = _Plan(x, key)
    if p.basic is not None:
        return x[p.basic]
    try:
        r = _ember._take(p.front(), p.idx)
    except IndexError as e:
        raise p.relabel(e) from None
    return r.transpose(p.result_axes()) if p.at else r


def _setitem(x, args):
    key, value = args
    p = _Plan(x, key)
    if p.basic is not None:
        x[p.basic] = value
        return
    if not x._writeable:
        raise ValueError("assignment destination is read-only")
    if not isinstance(value, (bool, int, float, complex)):
        v = value if isinstance(value, ndarray) else _ember.asarray(value, None, x._dev_spec(), None)
        if p.mask_only and v.ndim > 1:
            raise TypeError("NumPy boolean array indexing assignment requires a 0 or "
                            f"1-dimensional input, input has {v.ndim} dimensions")
        shape = tuple(p.bshape) + tuple(p.front().shape[len(p.dims):])
        rshape = tuple(shape[i] for i in p.result_axes())
        while v.ndim > len(rshape) and v.shape[0] == 1:  # NumPy drops leading 1s
            v = v.reshape(v.shape[1:])
        try:
            v = v._broadcast_to(rshape)
        except ValueError:
            raise ValueError(f"shape mismatch: value array of shape {tuple(_np.shape(value))} "
                             f"could not be broadcast to indexing result of shape {rshape}") from None
        if p.at:
            v = v.transpose(_np.argsort(p.result_axes()).tolist())
        value = v
    try:
        _ember._put(p.front(), p.idx, value)
    except IndexError as e:
        raise p.relabel(e) from None


def _dev_spec(x):
    kind, i = x._dev
    return f"{kind}:{i}"


attach("_dev_spec", _dev_spec)
_ember._set_hook("getitem", _getitem)
_ember._set_hook("setitem", _setitem)


# ---- functions ----------------------------------------------------------------

def _arr(x):
    from ._creation import asarray
    return x if isinstance(x, ndarray) else asarray(x)


def _norm_axis(axis, ndim):
    try:
        axis = operator.index(axis)
    except TypeError:
        raise TypeError(f"axis must be an integer, not {type(axis).__name__}") from None
    if not -ndim <= axis < ndim:
        raise _np.exceptions.AxisError(axis, ndim)
    return axis % ndim


def _indices(indices, x):
    """indices as an ember integer array on x's device."""
    i = indices if isinstance(indices, ndarray) else _as_index_array(indices, x._dev_spec())
    if i.dtype.kind not in "iu":
        raise TypeError(f"Cannot cast array data from dtype('{i.dtype}') to dtype('int64') "
                        "according to the rule 'safe'")
    return i


def _wrap_mode(i, n, mode):
    """Indices under mode 'wrap' or 'clip' (computed on the host)."""
    if mode == "raise":
        return i
    if mode not in ("wrap", "clip"):
        raise ValueError(f"clipmode must be one of 'clip', 'raise', or 'wrap' (got {mode!r})")
    h = i.get().astype(_np.int64)
    if n == 0:
        raise IndexError("cannot do a non-empty take from an empty axes.")
    h = _np.mod(h, n) if mode == "wrap" else _np.clip(h, 0, n - 1)
    return _ember.asarray(h, None, i._dev_spec(), None)


def take(x, indices, /, axis=None, *, out=None, mode="raise"):
    """Elements of x at indices along axis (flattened when axis is None), as numpy.take."""
    x = _arr(x)
    i = _indices(indices, x)
    if axis is None:
        r = _ember._take(x, [_wrap_mode(i, x.size, mode)], True)
    else:
        ax = _norm_axis(axis, x.ndim)
        i = _wrap_mode(i, x.shape[ax], mode)
        perm = [ax] + [d for d in range(x.ndim) if d != ax]
        try:
            r = _ember._take(x.transpose(perm), [i])
        except IndexError as e:
            raise IndexError(str(e).replace("axis 0", f"axis {ax}")) from None
        ni = i.ndim
        back = list(range(ni, ni + ax)) + list(range(ni)) + list(range(ni + ax, r.ndim))
        r = r.transpose(back) if ax else r
    if out is not None:
        out[...] = r
        return out
    return r


def _along_indices(arr, indices, axis):
    from ._creation import arange
    idx = []
    for d in range(arr.ndim):
        if d == axis:
            idx.append(indices)
        else:
            shape = [1] * arr.ndim
            shape[d] = arr.shape[d]
            idx.append(arange(arr.shape[d], device=arr._dev_spec()).reshape(shape))
    return idx


def _along_args(arr, indices, axis):
    arr, indices = _arr(arr), _arr(indices)
    if indices.dtype.kind not in "iu":
        raise IndexError("`indices` must be an integer array")
    if axis is None:
        from ._manipulation import ravel
        return ravel(arr), ravel(indices), 0
    ax = _norm_axis(axis, arr.ndim)
    if indices.ndim != arr.ndim:
        raise ValueError("`indices` and `arr` must have the same number of dimensions")
    return arr, indices, ax


def take_along_axis(arr, indices, /, axis=-1):
    """arr[..., indices, ...] matched along axis (numpy.take_along_axis)."""
    arr, indices, ax = _along_args(arr, indices, axis)
    try:
        return _ember._take(arr, _along_indices(arr, indices, ax))
    except IndexError as e:
        raise IndexError(re.sub(r"axis \d+", f"axis {ax}", str(e))) from None


def put_along_axis(arr, indices, values, axis):
    """Assign values at indices matched along axis (numpy.put_along_axis)."""
    arr2, indices, ax = _along_args(arr, indices, axis)
    if axis is None:
        return put(arr, indices, values)
    _ember._put(arr2, _along_indices(arr2, indices, ax), values)


def put(a, ind, v, mode="raise"):
    """a.flat[ind] = v, v repeated as needed (numpy.put)."""
    if not isinstance(a, ndarray):
        raise TypeError("put: first argument must be an ember.ndarray")
    i = _wrap_mode(_indices(ind, a), a.size, mode)
    v = v if isinstance(v, ndarray) else _ember.asarray(v, None, a._dev_spec(), None)
    if v.size != i.size and i.size:
        if v.size == 0:
            return
        from ._manipulation import ravel
        v = _ember._take(ravel(v), [_ember.asarray(_np.arange(i.size) % v.size, None,
                                                   a._dev_spec(), None)], True)
    _ember._put(a, [i.reshape(-1)], v.reshape(-1) if v.size == i.size else v, True)


def nonzero(x, /):
    """A tuple of arrays, one per dimension, with the indices of nonzero elements."""
    x = _arr(x)
    if x.ndim == 0:
        raise ValueError("Calling nonzero on 0d arrays is not allowed. Use "
                         "np.atleast_1d(scalar).nonzero() instead. If the context of this error "
                         "is of the form `arr[nonzero(cond)]`, just use `arr[cond]`.")
    return _coords(x)


def argwhere(x, /):
    """(N, ndim) indices of nonzero elements (numpy.argwhere)."""
    x = _arr(x)
    if x.ndim == 0:
        return _ember._nonzero(x.reshape(1))[:, :0]
    return _ember._nonzero(x)


def flatnonzero(x, /):
    """Indices of nonzero elements of x.ravel()."""
    x = _arr(x)
    if x._c_contiguous or x.ndim <= 1:
        return _ember._nonzero(x.reshape(-1)).reshape(-1)
    c = _ember._nonzero(x)  # ravel the coordinates instead of copying x
    flat, mul = None, 1
    for d in range(x.ndim - 1, -1, -1):
        term = c[:, d] * mul if mul != 1 else c[:, d]
        flat = term if flat is None else flat + term
        mul *= x.shape[d]
    return flat.copy() if flat is c[:, x.ndim - 1] else flat


def compress(condition, a, /, axis=None, *, out=None):
    """Slices of a along axis where condition is true (numpy.compress)."""
    a = _arr(a)
    c = _arr(condition)
    if c.ndim != 1:
        raise ValueError("condition must be a 1-d array")
    if a.ndim == 0 and axis is not None:
        a = a.reshape(1)  # NumPy's compress takes a 0-d as 1-d along an axis
    ax = None if axis is None else _norm_axis(axis, a.ndim)
    n = a.size if axis is None else a.shape[ax]
    if c.shape[0] > n and ax is not None and 0 in a.shape[:ax]:
        # NumPy's take checks its indices in its loop over the axes before
        # the axis, which runs no time here: a true entry past the axis is
        # one more empty slice (compress([0, 0, 0, 1], zeros((0, 3)), 1): (0, 1))
        k = int(_ember._nonzero(c.astype("bool")).reshape(-1).shape[0])
        r = a.reshape(a.shape[:ax] + (k,) + a.shape[ax + 1:]).copy()  # both empty
        if out is None:
            return r
        out[...] = r
        return out
    if c.shape[0] > n:
        # NumPy raises only for a true entry past the axis; false ones are ignored
        if bool(c[n:].any()):
            raise IndexError(f"index {n} is out of bounds for axis {0 if axis is None else axis} "
                             f"with size {n}")
        c = c[:n]
    if axis is None and out is None and c.shape[0] and str(c.device) == str(a.device):
        # one compaction pass over the values (a[mask]'s), no index array and gather
        return _ember._mask_select(_flat_c(a, c.shape[0]), _truth(c))
    i = _ember._nonzero(c.astype("bool")).reshape(-1)
    return take(a, i, axis=axis, out=out)


def _flat_c(a, k):
    """The first k elements of a in C order, C-contiguous (a copy only where a view is not)."""
    r = a.reshape(-1)[:k]
    return r if r._c_contiguous else r.copy()


def _truth(c):
    """c as a bool array (c itself when it is one: no copy)."""
    return c if c.dtype == bool else c.astype("bool")


def extract(condition, arr, /):
    """arr.ravel()[condition.ravel() != 0] (numpy.extract)."""
    arr, c = _arr(arr), _arr(condition)
    if 0 < c.size <= arr.size and str(c.device) == str(arr.device):
        # one compaction pass over the values (a[mask]'s), no index array and gather
        return _ember._mask_select(_flat_c(arr, c.size), _truth(c.reshape(-1)))
    i = _ember._nonzero(c.reshape(-1)).reshape(-1)
    return _ember._take(arr, [i], True)


def _diag_view(x, k):
    """A writable view of the k-th diagonal of the last two dims of x."""
    n, m = x.shape[-2:]
    s0, s1 = x.strides[-2:]
    length = max(0, min(n + min(k, 0), m - max(k, 0)))
    off = (k * s1 if k >= 0 else -k * s0) if length else 0
    return x._view_as(x.shape[:-2] + (length,), x.strides[:-2] + (s0 + s1,), off)


def _m_take(self, indices, axis=None, out=None, mode="raise"):
    return take(self, indices, axis=axis, out=out, mode=mode)


def _m_put(self, indices, values, mode="raise"):
    return put(self, indices, values, mode=mode)


attach("take", _m_take)
attach("put", _m_put)
attach("nonzero", nonzero)
