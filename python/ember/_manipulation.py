"""Shape and layout manipulation with NumPy's semantics.

Everything that can be a view is one (made by the C view functions:
transpose, reshape, broadcast, basic slicing, _view_as); joins allocate the
result once and assign each piece into its slice (em_copy_into in C);
repeat goes through the C gather."""
import builtins
import operator

import numpy as _np

from . import _ember
from ._methods import attach

ndarray = _ember.ndarray
AxisError = _np.exceptions.AxisError

__all__ = [
    "reshape", "ravel", "transpose", "permute_dims", "swapaxes", "moveaxis", "rollaxis",
    "squeeze", "expand_dims", "broadcast_to", "broadcast_arrays", "broadcast_shapes",
    "concatenate", "concat", "stack", "hstack", "vstack", "dstack", "column_stack", "split",
    "array_split", "hsplit", "vsplit", "dsplit", "unstack", "flip", "fliplr", "flipud", "roll",
    "repeat", "tile", "ascontiguousarray", "atleast_1d", "atleast_2d", "atleast_3d", "astype",
    "copy", "matrix_transpose", "AxisError", "diff",
]


def _arr(x):
    from ._creation import asarray
    return x if isinstance(x, ndarray) else asarray(x)


def _axis(axis, ndim):
    """axis as an int in [0, ndim), or AxisError (NumPy's message)."""
    try:
        axis = operator.index(axis)
    except TypeError:
        raise TypeError(f"'{type(axis).__name__}' object cannot be interpreted as an integer") from None
    if not -ndim <= axis < ndim:
        raise AxisError(axis, ndim)
    return axis % ndim


def _axes(axis, ndim, allow_dup=False):
    """A tuple of normalised axes from an int or a sequence."""
    seq = tuple(axis) if isinstance(axis, (tuple, list)) else (axis,)
    out = tuple(_axis(a, ndim) for a in seq)
    if not allow_dup and len(set(out)) != len(out):
        raise ValueError("repeated axis")
    return out


# ---- views ----------------------------------------------------------------------

def reshape(a, /, shape=None, order="C", *, newshape=None, copy=None):
    """a with a new shape: a view when the strides allow, else a copy (numpy.reshape)."""
    if shape is None:
        shape = newshape
    if shape is None:
        raise TypeError("reshape() missing required argument 'shape'")
    a = _arr(a)
    return a.reshape(shape, order=order, copy=copy)


def _flat_order(a, order):
    """The order ravel/flatten read a in: 'F' for order 'F', and for 'A' and
    'K' when a is F- and not C-contiguous (an approximation of 'K', which
    NumPy takes as the memory order of any layout)."""
    if order not in ("C", "F", "A", "K", None):
        raise ValueError(f"order must be one of 'C', 'F', 'A', or 'K' (got {order!r})")
    if order == "F" or (order in ("A", "K") and a.ndim > 1 and a.flags.f_contiguous
                        and not a.flags.c_contiguous):
        return "F"
    return "C"


def ravel(a, /, order="C"):
    """The flattened array: a view when a is contiguous in the order read, else a copy
    (as NumPy: a flipped or strided array is copied even where one stride could describe
    it, so later writes to a do not show through)."""
    a = _arr(a)
    o = _flat_order(a, order)
    if not (a.flags.c_contiguous if o == "C" else a.flags.f_contiguous):
        a = a.copy(order=o)
    return a.reshape(-1, order=o)


def transpose(a, /, axes=None):
    """Permute the axes (reverse them when axes is None); a view."""
    a = _arr(a)
    if axes is None:
        return a.transpose()
    axes = _axes(axes, a.ndim)
    if len(axes) != a.ndim:
        raise ValueError("axes don't match array")
    return a.transpose(axes)


def permute_dims(x, /, axes):
    """The Array API's transpose with required axes."""
    return transpose(x, axes)


def matrix_transpose(x, /):
    """Swap the last two axes: a view, on any device."""
    x = _arr(x)
    if x.ndim < 2:
        raise ValueError("Input array must be at least 2-dimensional")
    return swapaxes(x, -1, -2)


def _mT(x):
    if x.ndim < 2:
        raise ValueError("matrix transpose with ndim < 2 is undefined")
    return swapaxes(x, -1, -2)


def swapaxes(a, axis1, axis2):
    """a with axis1 and axis2 interchanged (a view)."""
    a = _arr(a)
    i, j = _axis(axis1, a.ndim), _axis(axis2, a.ndim)
    perm = list(range(a.ndim))
    perm[i], perm[j] = perm[j], perm[i]
    return a.transpose(perm)


def moveaxis(a, source, destination):
    """Move axes to new positions, the others keeping their order (a view)."""
    a = _arr(a)
    src, dst = _axes(source, a.ndim), _axes(destination, a.ndim)
    if len(src) != len(dst):
        raise ValueError("`source` and `destination` arguments must have the same number of "
                         "elements")
    order = [n for n in range(a.ndim) if n not in src]
    for d, s in sorted(zip(dst, src)):
        order.insert(d, s)
    return a.transpose(order)


def rollaxis(a, axis, start=0):
    """Roll axis backwards until it lies before start (numpy.rollaxis)."""
    a = _arr(a)
    axis = _axis(axis, a.ndim)
    if not -a.ndim <= start <= a.ndim:
        raise AxisError(f"'start' arg requires {-a.ndim} <= start < {a.ndim + 1}, but {start} was passed in")
    start = start % (a.ndim + 1) if start < 0 else start
    if axis < start:
        start -= 1
    if axis == start:
        return a
    order = [n for n in range(a.ndim) if n != axis]
    order.insert(start, axis)
    return a.transpose(order)


def squeeze(a, /, axis=None):
    """Remove length-1 axes (all, or those named); a view."""
    a = _arr(a)
    if axis is None:
        return a.reshape(tuple(n for n in a.shape if n != 1))
    if a.ndim == 0 and not isinstance(axis, (tuple, list)) and operator.index(axis) in (0, -1):
        return a.reshape(())  # NumPy: axis 0 / -1 of a 0-d array is its one element
    axes = _axes(axis, a.ndim)
    for ax in axes:
        if a.shape[ax] != 1:
            raise ValueError("cannot select an axis to squeeze out which has size not equal to one")
    return a.reshape(tuple(n for i, n in enumerate(a.shape) if i not in axes))


def expand_dims(a, /, axis=0):
    """Insert length-1 axes at the given positions of the result; a view."""
    a = _arr(a)
    seq = axis if isinstance(axis, (tuple, list)) else (axis,)
    nd = a.ndim + len(seq)
    if nd > _ember.MAXDIMS:  # NumPy's error for a shape past the limit (indexing's is IndexError)
        raise ValueError(f"maximum supported dimension for an ndarray is {_ember.MAXDIMS}, "
                         f"found {nd}")
    axes = _axes(seq, nd)
    key = [None if i in axes else slice(None) for i in range(nd)]
    return a[tuple(key)]


def broadcast_shapes(*shapes):
    """The shape the given shapes broadcast to (numpy.broadcast_shapes)."""
    return _np.broadcast_shapes(*shapes)


def broadcast_to(x, /, shape):
    """A read-only view of x broadcast to shape."""
    x = _arr(x)
    shape = (shape,) if isinstance(shape, int) else tuple(shape)
    if any(operator.index(n) < 0 for n in shape):
        raise ValueError("all elements of broadcast shape must be non-negative")
    return x._broadcast_to(shape)


def broadcast_arrays(*arrays):
    """The arrays broadcast against each other (read-only views)."""
    arrays = [_arr(a) for a in arrays]
    shape = _np.broadcast_shapes(*[a.shape for a in arrays])
    return tuple(a if a.shape == shape else a._broadcast_to(shape) for a in arrays)


def flip(m, /, axis=None):
    """Reverse the order of elements along the given axes (all when None); a view."""
    m = _arr(m)
    axes = range(m.ndim) if axis is None else _axes(axis, m.ndim)
    key = [slice(None)] * m.ndim
    for ax in axes:
        key[ax] = slice(None, None, -1)
    return m[tuple(key)]


def fliplr(m):
    """Reverse the columns (axis 1)."""
    m = _arr(m)
    if m.ndim < 2:
        raise ValueError("Input must be >= 2-d.")
    return flip(m, 1)


def flipud(m):
    """Reverse the rows (axis 0)."""
    m = _arr(m)
    if m.ndim < 1:
        raise ValueError("Input must be >= 1-d.")
    return flip(m, 0)


def atleast_1d(*arys):
    """Each input viewed with at least one dimension."""
    r = [_arr(a) if _arr(a).ndim >= 1 else _arr(a).reshape(1) for a in arys]
    return r[0] if len(r) == 1 else tuple(r)


def atleast_2d(*arys):
    """Each input viewed with at least two dimensions (a 1-d one as a row)."""
    r = []
    for a in arys:
        a = _arr(a)
        r.append(a if a.ndim >= 2 else a.reshape((1,) * (2 - a.ndim) + a.shape))
    return r[0] if len(r) == 1 else tuple(r)


def atleast_3d(*arys):
    """Each input viewed with at least three dimensions (NumPy's placement)."""
    r = []
    for a in arys:
        a = _arr(a)
        if a.ndim == 0:
            a = a.reshape(1, 1, 1)
        elif a.ndim == 1:
            a = a.reshape(1, a.shape[0], 1)
        elif a.ndim == 2:
            a = a.reshape(a.shape + (1,))
        r.append(a)
    return r[0] if len(r) == 1 else tuple(r)


# ---- copies -------------------------------------------------------------------------

def ascontiguousarray(a, dtype=None, *, like=None):
    """a as a C-contiguous array (at least 1-d), copying only when needed."""
    a = _arr(a)
    if dtype is not None and _np.dtype(dtype) != a.dtype:
        a = a.astype(dtype)
    if a.ndim == 0:
        a = a.reshape(1)
    return a if a._c_contiguous else a.copy()


def astype(x, dtype, /, *, copy=True, device=None):
    """x cast to dtype (the Array API function); copy=False returns x when possible."""
    x = _arr(x)
    if device is not None:
        x = x.to_device(device)
    if not copy and _np.dtype(dtype) == x.dtype:
        return x
    return x.astype(dtype)


def copy(a, /, order="K"):
    """A copy of a."""
    return _arr(a).copy()


# ---- joins ------------------------------------------------------------------------

def _join_dtype(arrays, dtype):
    if dtype is not None:
        return _np.dtype(dtype)
    return _np.result_type(*[a.dtype for a in arrays])


def concatenate(arrays, /, axis=0, out=None, *, dtype=None, casting="same_kind"):
    """Join arrays along an existing axis (flattened first when axis is None)."""
    if isinstance(arrays, ndarray):
        arrays = [arrays[i] for i in range(arrays.shape[0])]
    arrays = [_arr(a) for a in arrays]
    if not arrays:
        raise ValueError("need at least one array to concatenate")
    if out is not None and dtype is not None:
        raise TypeError("concatenate() only takes `out` or `dtype` as an argument, but both were "
                        "provided.")
    if axis is None:
        arrays, axis = [ravel(a) for a in arrays], 0
    nd = arrays[0].ndim
    if nd == 0:
        raise ValueError("zero-dimensional arrays cannot be concatenated")
    ax = _axis(axis, nd)
    for i, a in enumerate(arrays[1:], 1):
        if a.ndim != nd:
            raise ValueError("all the input arrays must have same number of dimensions, but the "
                             f"array at index 0 has {nd} dimension(s) and the array at index {i} "
                             f"has {a.ndim} dimension(s)")
        for d in range(nd):
            if d != ax and a.shape[d] != arrays[0].shape[d]:
                raise ValueError("all the input array dimensions except for the concatenation "
                                 f"axis must match exactly, but along dimension {d}, the array at "
                                 f"index 0 has size {arrays[0].shape[d]} and the array at index "
                                 f"{i} has size {a.shape[d]}")
    dt = _join_dtype(arrays, dtype) if out is None else out.dtype
    for a in arrays:
        if not _np.can_cast(a.dtype, dt, casting=casting):
            raise TypeError(f"Cannot cast array data from dtype('{a.dtype}') to dtype('{dt}') "
                            f"according to the rule '{casting}'")
    shape = list(arrays[0].shape)
    shape[ax] = builtins.sum(a.shape[ax] for a in arrays)
    if out is None:
        from ._creation import empty
        out = empty(tuple(shape), dt, device=arrays[0]._dev_spec())
    elif tuple(out.shape) != tuple(shape):
        raise ValueError(f"Output array has wrong shape: {out.shape}, expected {tuple(shape)}")
    key = [slice(None)] * nd
    pos = 0
    for a in arrays:
        n = a.shape[ax]
        key[ax] = slice(pos, pos + n)
        out[tuple(key)] = a
        pos += n
    return out


def concat(arrays, /, *, axis=0, **frame_kw):
    """The Array API's concatenate; with DataFrames or Series, pandas' concat
    (ember.frame.concat: ignore_index=, join=)."""
    arrays = list(arrays) if not isinstance(arrays, (list, tuple)) else arrays
    if arrays and type(arrays[0]).__module__.startswith("ember.frame"):
        from .frame import _frame
        return _frame.concat(arrays, axis=axis, **frame_kw)
    if frame_kw:
        raise TypeError(f"concat() got unexpected keyword arguments {sorted(frame_kw)}")
    return concatenate(arrays, axis=axis)


def stack(arrays, /, axis=0, out=None, *, dtype=None, casting="same_kind"):
    """Join arrays along a new axis."""
    arrays = [_arr(a) for a in arrays]
    if not arrays:
        raise ValueError("need at least one array to stack")
    if any(a.shape != arrays[0].shape for a in arrays):
        raise ValueError("all input arrays must have the same shape")
    ax = _axis(axis, arrays[0].ndim + 1)
    return concatenate([expand_dims(a, ax) for a in arrays], axis=ax, out=out, dtype=dtype,
                       casting=casting)


def hstack(tup, *, dtype=None, casting="same_kind"):
    """Stack horizontally (along axis 1; axis 0 for 1-d inputs)."""
    arrs = [atleast_1d(a) for a in tup]
    ax = 0 if arrs and arrs[0].ndim == 1 else 1
    return concatenate(arrs, axis=ax, dtype=dtype, casting=casting)


def vstack(tup, *, dtype=None, casting="same_kind"):
    """Stack vertically (rows; 1-d inputs become rows)."""
    return concatenate([atleast_2d(a) for a in tup], axis=0, dtype=dtype, casting=casting)


def dstack(tup):
    """Stack along the third axis."""
    return concatenate([atleast_3d(a) for a in tup], axis=2)


def column_stack(tup):
    """1-d arrays as columns of a 2-d array; 2-d arrays as they are."""
    arrs = []
    for a in tup:
        a = _arr(a)
        arrs.append(a.reshape(a.size, 1) if a.ndim < 2 else a)
    return concatenate(arrs, axis=1)


# ---- splits -------------------------------------------------------------------------

def array_split(ary, indices_or_sections, axis=0):
    """Split into sub-array views; sections need not divide the axis evenly."""
    ary = _arr(ary)
    ax = _axis(axis, ary.ndim)
    n = ary.shape[ax]
    try:
        sections = operator.index(indices_or_sections)
    except TypeError:
        bounds = [0] + [operator.index(i) for i in indices_or_sections] + [n]
    else:
        if sections <= 0:
            raise ValueError("number sections must be larger than 0.")
        each, extra = divmod(n, sections)
        sizes = [0] + extra * [each + 1] + (sections - extra) * [each]
        bounds = list(_np.cumsum(sizes))
    key = [slice(None)] * ary.ndim
    out = []
    for lo, hi in zip(bounds[:-1], bounds[1:]):
        key[ax] = slice(int(lo), int(hi))  # NumPy's: Python slice rules, negatives from the end
        out.append(ary[tuple(key)])
    return out


def split(ary, indices_or_sections, axis=0):
    """Split into equal sections (or at the given indices); views."""
    ary = _arr(ary)
    try:
        sections = operator.index(indices_or_sections)
    except TypeError:
        pass
    else:
        n = ary.shape[_axis(axis, ary.ndim)]
        if sections <= 0:
            raise ValueError("number sections must be larger than 0.")
        if n % sections:
            raise ValueError("array split does not result in an equal division")
    return array_split(ary, indices_or_sections, axis)


def hsplit(ary, indices_or_sections):
    """Split along axis 1 (axis 0 for 1-d arrays) into views (numpy.hsplit)."""
    ary = _arr(ary)
    if ary.ndim == 0:
        raise ValueError("hsplit only works on arrays of 1 or more dimensions")
    return split(ary, indices_or_sections, 1 if ary.ndim > 1 else 0)


def vsplit(ary, indices_or_sections):
    """Split along axis 0 of an array of 2 or more dimensions into views (numpy.vsplit)."""
    ary = _arr(ary)
    if ary.ndim < 2:
        raise ValueError("vsplit only works on arrays of 2 or more dimensions")
    return split(ary, indices_or_sections, 0)


def dsplit(ary, indices_or_sections):
    """Split along axis 2 of an array of 3 or more dimensions into views (numpy.dsplit)."""
    ary = _arr(ary)
    if ary.ndim < 3:
        raise ValueError("dsplit only works on arrays of 3 or more dimensions")
    return split(ary, indices_or_sections, 2)


def unstack(x, /, *, axis=0):
    """The views x[..., i, ...] along axis, as a tuple."""
    x = _arr(x)
    if x.ndim == 0:
        raise ValueError("Input array must be at least 1-d.")
    ax = _axis(axis, x.ndim)
    key = [slice(None)] * x.ndim
    out = []
    for i in range(x.shape[ax]):
        key[ax] = i
        out.append(x[tuple(key)])
    return tuple(out)


# ---- rearrangements -----------------------------------------------------------------

def roll(a, shift, axis=None):
    """Elements shifted cyclically along axes (flattened when axis is None); a copy."""
    a = _arr(a)
    if axis is None:
        return roll(ravel(a), shift, 0).reshape(a.shape)
    axes = _axes(axis, a.ndim, allow_dup=True)
    shifts = shift if isinstance(shift, (tuple, list)) else (shift,)
    if len(shifts) == 1 and len(axes) > 1:
        shifts = shifts * len(axes)
    if len(axes) == 1 and len(shifts) > 1:
        axes = axes * len(shifts)
    if len(shifts) != len(axes):
        raise ValueError("'shift' and 'axis' should be scalars or 1D sequences")
    total = [0] * a.ndim
    for s, ax in zip(shifts, axes):
        total[ax] += operator.index(s)
    out = a
    for ax, s in enumerate(total):
        n = a.shape[ax]
        if n == 0 or s % n == 0:
            continue
        s %= n
        key = [slice(None)] * a.ndim
        key[ax] = slice(n - s, None)
        head = out[tuple(key)]
        key[ax] = slice(None, n - s)
        out = concatenate([head, out[tuple(key)]], axis=ax)
    return out.copy() if out is a else out


def diff(a, /, n=1, axis=-1, prepend=None, append=None):
    """The n-th forward difference along axis (numpy.diff; the Array API's
    keywords).  Scalar prepend/append values are broadcast to one slice of
    the axis; bool arrays differ through not_equal, as in NumPy."""
    from ._ufuncs import not_equal, subtract
    a = _arr(a)
    n = operator.index(n)
    if n < 0:
        raise ValueError(f"order must be non-negative but got {n}")
    if a.ndim == 0:
        raise ValueError("diff requires input that is at least one dimensional")
    axis = _axis(axis, a.ndim)
    parts = []
    for v in (prepend, a, append):
        if v is None:
            continue
        v = _arr(v)
        if v.ndim == 0:
            shape = list(a.shape)
            shape[axis] = 1
            v = broadcast_to(v, tuple(shape))
        parts.append(v)
    if len(parts) > 1:
        a = concatenate(parts, axis=axis)
    op = not_equal if a.dtype == _np.bool_ else subtract
    lo = [slice(None)] * a.ndim
    hi = [slice(None)] * a.ndim
    lo[axis], hi[axis] = slice(None, -1), slice(1, None)
    lo, hi = tuple(lo), tuple(hi)
    for _ in range(n):
        a = op(a[hi], a[lo])
    return a


def repeat(a, repeats, axis=None):
    """Repeat each element (along axis, or of the flattened array) repeats times."""
    from ._indexing import take
    a = _arr(a)
    if axis is None:
        a, ax = ravel(a), 0
    else:
        ax = _axis(axis, a.ndim)
    n = a.shape[ax]
    r = repeats.get() if isinstance(repeats, ndarray) else _np.asarray(repeats)
    if r.dtype.kind not in "iub":
        raise TypeError(f"Cannot cast array data from dtype('{r.dtype}') to dtype('int64') "
                        "according to the rule 'safe'")
    if r.ndim > 1 or (r.ndim == 1 and r.size not in (1, n)):
        raise ValueError(f"operands could not be broadcast together with shape ({n},) "
                         f"({r.size},)")
    if (r < 0).any():
        raise ValueError("repeats may not contain negative values.")
    idx = _np.repeat(_np.arange(n, dtype=_np.int64), r.reshape(-1) if r.ndim else int(r))
    from ._creation import asarray
    return take(a, asarray(idx, device=a._dev_spec()), axis=ax)


def tile(A, reps):
    """A repeated reps times along each axis (numpy.tile)."""
    A = _arr(A)
    reps = (reps,) if not isinstance(reps, (tuple, list)) else tuple(reps)
    reps = tuple(operator.index(r) for r in reps)
    if any(r < 0 for r in reps):
        raise ValueError("negative dimensions are not allowed")
    nd = builtins.max(A.ndim, len(reps))
    reps = (1,) * (nd - len(reps)) + reps
    A = A.reshape((1,) * (nd - A.ndim) + A.shape)
    inter = []
    big = []
    for r, n in zip(reps, A.shape):
        inter += [1, n]
        big += [r, n]
    v = A.reshape(inter)._broadcast_to(tuple(big))
    return v.copy().reshape(tuple(r * n for r, n in zip(reps, A.shape)))


# ---- methods ------------------------------------------------------------------------

def _m_flatten(self, order="C"):
    o = _flat_order(self, order)
    return self.copy(order=o).reshape(-1, order=o)


attach("ravel", lambda self, order="C": ravel(self, order))
attach("flatten", _m_flatten)
attach("squeeze", lambda self, axis=None: squeeze(self, axis))
attach("swapaxes", lambda self, axis1, axis2: swapaxes(self, axis1, axis2))
attach("repeat", lambda self, repeats, axis=None: repeat(self, repeats, axis))
attach("mT", _mT, prop=True)
