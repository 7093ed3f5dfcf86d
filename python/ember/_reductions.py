"""Reductions and scans with NumPy's (and the Array API's) signatures.

Each runs in C (``_ember.reduce`` / ``_ember.scan`` over ``em_reduce`` /
``em_scan``): ``axis`` is None, an int (negative counts from the end) or a
tuple; ``keepdims``, ``dtype`` and ``out`` behave as in NumPy, as do the
default dtypes (sums of small ints widen to int64/uint64, means of ints are
float64, float16 accumulates in float32).  A full reduction gives a 0-d
array.  Bad axes raise ``numpy.exceptions.AxisError``.  ``where=`` is
supported by the sums, products, any/all, mean, var and std; ``initial=``
by sum, prod, min and max.
"""
import operator

from . import _ember
from ._methods import attach

__all__ = [
    "sum", "prod", "mean", "var", "std", "min", "max", "amin", "amax",
    "argmin", "argmax", "any", "all", "count_nonzero", "cumsum", "cumprod",
    "cumulative_sum", "cumulative_prod",
    "nansum", "nanprod", "nanmin", "nanmax", "nanmean",
]

_reduce = _ember.reduce
_scan = _ember.scan
_builtin_sum = sum


def _arr(a):
    return a if isinstance(a, _ember.ndarray) else _ember.asarray(a, None, None, None)


def _norm_axes(axis, ndim):
    """The reduced axes as a sorted tuple of non-negative ints (validated by C later)."""
    if axis is None:
        return tuple(range(ndim))
    if not isinstance(axis, (tuple, list)):
        if ndim == 0 and operator.index(axis) in (0, -1):
            return ()  # NumPy's reductions take axis 0 / -1 of a 0-d array as all of it
        axis = (axis,)
    return tuple(sorted(operator.index(x) % ndim if ndim and -ndim <= x < ndim else x
                        for x in axis))


def _count(a, axis):
    n = 1
    for ax in _norm_axes(axis, a.ndim):
        if not 0 <= ax < a.ndim:
            import numpy as np
            raise np.exceptions.AxisError(ax, a.ndim)
        n *= a.shape[ax]
    return n


def _masked(a, where, fill):
    """a with the elements where `where` (broadcast to a) is False replaced by fill."""
    from ._ufuncs import where as _where
    a = _arr(a)
    return _where(where, a, _ember.asarray(fill, a.dtype, None, None))


def _with_initial(res, initial, op, out):
    from . import _ufuncs
    f = getattr(_ufuncs, op)
    return f(res, initial, out=res if out is None else out)


def _f16_input(a, dtype):
    """With dtype=float16 NumPy casts the input to float16 before reducing (an int32 or
    float64 beyond 65504 becomes inf, so prod meets inf * 0); Ember accumulates float16 in
    float32, so the input is rounded here first.  The accumulation itself is then more
    precise than NumPy's float16 steps: within the n-ULP bound of docs/fuzzing.md."""
    import numpy as np
    try:
        if dtype is None or np.dtype(dtype) != np.float16:
            return a
    except TypeError:
        return a  # an unknown dtype: the reduction's own error
    a = _arr(a)
    return a.astype("float16") if a.dtype.kind in "biuf" and a.dtype != "float16" else a


def _no_mask(where):
    """None for where=None or the Python True (NumPy's default: every element counts, and
    min/max need no identity); other masks are kept, np.True_ included, as NumPy does."""
    return None if where is None or where is True else where


def _initial_of(initial, dtype):
    """initial as a 0-d array of the reduced dtype: NumPy casts it to the array's dtype
    (a bool array's max with initial=0 stays bool; -5 into uint8 is an OverflowError)."""
    return _ember.asarray(initial, dtype, None, None)


def sum(a, axis=None, dtype=None, out=None, keepdims=False, initial=None, where=None):
    """Sum of elements over the given axes (pairwise for floats, as NumPy)."""
    where = _no_mask(where)
    a = _f16_input(a, dtype)
    if where is not None:
        a = _masked(a, where, 0)
    res = _reduce("sum", a, axis, keepdims, dtype, 0.0, out if initial is None else None)
    return res if initial is None else _with_initial(res, initial, "add", out)


def prod(a, axis=None, dtype=None, out=None, keepdims=False, initial=None, where=None):
    """Product of elements over the given axes."""
    where = _no_mask(where)
    a = _f16_input(a, dtype)
    if where is not None:
        a = _masked(a, where, 1)
    res = _reduce("prod", a, axis, keepdims, dtype, 0.0, out if initial is None else None)
    return res if initial is None else _with_initial(res, initial, "multiply", out)


def _minmax(name, ufunc, a, axis, out, keepdims, initial, where, uname=None):
    a = _arr(a)
    where = _no_mask(where)
    if where is not None and initial is None:
        raise ValueError(f"reduction operation '{uname or ufunc}' does not have an identity, so "
                         "to use a where mask one has to specify 'initial'")
    if initial is not None:
        initial = _initial_of(initial, a.dtype)
    if where is not None:
        a = _masked(a, where, initial)
    if initial is not None and _count(a, axis) == 0:
        from ._creation import full
        shape = tuple(1 if i in _norm_axes(axis, a.ndim) else n for i, n in enumerate(a.shape)) \
            if keepdims else tuple(n for i, n in enumerate(a.shape) if i not in _norm_axes(axis, a.ndim))
        res = full(shape, initial, dtype=a.dtype)
        if out is not None:
            out[...] = res
            return out
        return res
    res = _reduce(name, a, axis, keepdims, None, 0.0, out if initial is None else None)
    return res if initial is None else _with_initial(res, initial, ufunc, out)


def min(a, axis=None, out=None, keepdims=False, initial=None, where=None):
    """Minimum over the given axes; NaN propagates."""
    return _minmax("min", "minimum", a, axis, out, keepdims, initial, where)


def max(a, axis=None, out=None, keepdims=False, initial=None, where=None):
    """Maximum over the given axes; NaN propagates."""
    return _minmax("max", "maximum", a, axis, out, keepdims, initial, where)


amin = min
amax = max


def argmin(a, axis=None, out=None, *, keepdims=False):
    """Index of the first minimum (a NaN counts as the minimum); axis None: flat index."""
    return _reduce("argmin", a, axis, keepdims, None, 0.0, out)


def argmax(a, axis=None, out=None, *, keepdims=False):
    """Index of the first maximum (a NaN counts as the maximum); axis None: flat index."""
    return _reduce("argmax", a, axis, keepdims, None, 0.0, out)


def any(a, axis=None, out=None, keepdims=False, *, where=None):
    """Whether any element is nonzero over the given axes."""
    where = _no_mask(where)
    if where is not None:
        a = _masked(_arr(a).astype("bool"), where, False)
    return _reduce("any", a, axis, keepdims, None, 0.0, out)


def all(a, axis=None, out=None, keepdims=False, *, where=None):
    """Whether every element is nonzero over the given axes."""
    where = _no_mask(where)
    if where is not None:
        a = _masked(_arr(a).astype("bool"), where, True)
    return _reduce("all", a, axis, keepdims, None, 0.0, out)


def count_nonzero(a, axis=None, *, keepdims=False):
    """Number of nonzero elements, as an int64 array (0-d when axis is None:
    the Array API asks for an array where NumPy gives a Python int; the 0-d
    array converts with int() and compares equal to it)."""
    return _reduce("count_nonzero", a, axis, keepdims, None, 0.0, None)


def _where_count(a, axis, where, keepdims):
    from ._creation import asarray
    m = _masked(asarray(1, dtype="int64")._broadcast_to(_arr(a).shape), where, 0)
    return _reduce("sum", m, axis, keepdims, None, 0.0, None)


def mean(a, axis=None, dtype=None, out=None, keepdims=False, *, where=None):
    """Arithmetic mean: the sum (in float64 for ints) divided by the count."""
    where = _no_mask(where)
    a = _f16_input(a, dtype)
    if where is None:
        return _reduce("mean", a, axis, keepdims, dtype, 0.0, out)
    a = _arr(a)
    n = _where_count(a, axis, where, keepdims)
    s = sum(a, axis, dtype=dtype if dtype is not None else ("float64" if a.dtype.kind in "biu" else None),
            keepdims=keepdims, where=where)
    from ._ufuncs import divide
    res = divide(s, n).astype(s.dtype if dtype is None else dtype)
    if out is not None:
        out[...] = res
        return out
    return res


def _ddof(ddof, correction):
    if correction is not None:
        if ddof != 0:
            raise ValueError("ddof and correction can't be provided simultaneously.")
        return float(correction)
    return float(ddof)


def _var_where(a, axis, dtype, out, ddof, keepdims, where, root):
    from ._ufuncs import absolute, divide, maximum, sqrt, subtract
    a = _arr(a)
    m = mean(a, axis, dtype=dtype, keepdims=True, where=where)
    d = absolute(subtract(a, m))
    x = d * d
    n = _where_count(a, axis, where, keepdims)
    s = sum(x, axis, keepdims=keepdims, where=where)
    res = divide(s, maximum(n - ddof, 0)).astype(s.dtype)
    res = sqrt(res) if root else res
    if out is not None:
        out[...] = res
        return out
    return res


def var(a, axis=None, dtype=None, out=None, ddof=0, keepdims=False, *, where=None, mean=None,
        correction=None):
    """Variance, two-pass as NumPy (mean, then squared deviations); complex gives real."""
    ddof = _ddof(ddof, correction)
    if _no_mask(where) is not None:
        return _var_where(a, axis, dtype, out, ddof, keepdims, where, False)
    return _reduce("var", a, axis, keepdims, dtype, ddof, out)


def std(a, axis=None, dtype=None, out=None, ddof=0, keepdims=False, *, where=None, mean=None,
        correction=None):
    """Standard deviation: the square root of var."""
    ddof = _ddof(ddof, correction)
    if _no_mask(where) is not None:
        return _var_where(a, axis, dtype, out, ddof, keepdims, where, True)
    return _reduce("std", a, axis, keepdims, dtype, ddof, out)


def cumsum(a, axis=None, dtype=None, out=None):
    """Inclusive cumulative sum along axis (None: over the flattened array)."""
    return _scan("cumsum", _f16_input(a, dtype), axis, dtype, out)


def cumprod(a, axis=None, dtype=None, out=None):
    """Inclusive cumulative product along axis (None: over the flattened array)."""
    return _scan("cumprod", _f16_input(a, dtype), axis, dtype, out)


def _cumulative(name, x, axis, dtype, include_initial, identity):
    x = _arr(x)
    if axis is None:
        if x.ndim > 1:
            raise ValueError("axis must be specified for arrays with more than one dimension")
        axis = 0
    if x.ndim == 0:
        raise ValueError(f"{name} needs an array of at least one dimension")
    res = _scan("cumsum" if identity == 0 else "cumprod", x, axis, dtype, None)
    if not include_initial:
        return res
    from ._creation import full
    ax = axis % x.ndim
    shape = list(res.shape)
    shape[ax] += 1
    full_res = full(tuple(shape), identity, dtype=res.dtype)
    idx = tuple(slice(1, None) if i == ax else slice(None) for i in range(x.ndim))
    full_res[idx] = res
    return full_res


def cumulative_sum(x, /, *, axis=None, dtype=None, include_initial=False):
    """Array API cumulative sum; include_initial prepends a zero along axis."""
    return _cumulative("cumulative_sum", x, axis, dtype, include_initial, 0)


def cumulative_prod(x, /, *, axis=None, dtype=None, include_initial=False):
    """Array API cumulative product; include_initial prepends a one along axis."""
    return _cumulative("cumulative_prod", x, axis, dtype, include_initial, 1)


# ---- NaN-ignoring variants (NumPy's nanfunctions): NaNs act as the identity --


def _is_inexact(a):
    return a.dtype.kind in "fc"


def _nan_to(a, value):
    """a with NaNs replaced by value (a is float or complex)."""
    from ._ufuncs import isnan, where
    return where(isnan(a), _ember.asarray(value, a.dtype, None, None), a)


def nansum(a, axis=None, dtype=None, out=None, keepdims=False, initial=None, where=None):
    """Sum treating NaN as zero."""
    a = _arr(a)
    return sum(_nan_to(a, 0) if _is_inexact(a) else a, axis, dtype, out, keepdims, initial, where)


def nanprod(a, axis=None, dtype=None, out=None, keepdims=False, initial=None, where=None):
    """Product treating NaN as one."""
    a = _arr(a)
    return prod(_nan_to(a, 1) if _is_inexact(a) else a, axis, dtype, out, keepdims, initial, where)


def _nanminmax(ufunc, fill, a, axis, out, keepdims, initial, where):
    """nanmin/nanmax: NumPy's fmin/fmax reductions.  NaNs (and elements masked off by
    `where`) become +-inf, the identity of min/max; a slice of NaNs only gives NaN (NumPy
    warns "All-NaN slice encountered") unless `initial` is given, which then wins."""
    from ._ufuncs import isnan, logical_not, logical_or, where as _where
    a = _arr(a)
    where = _no_mask(where)
    uname = "f" + ufunc[:3]
    if a.dtype.kind not in "fc":  # complex too: a NaN in either part is skipped
        return _minmax(ufunc[:3], ufunc, a, axis, out, keepdims, initial, where, uname)
    if where is not None and initial is None:
        raise ValueError(f"reduction operation '{uname}' does not have an identity, so to use "
                         "a where mask one has to specify 'initial'")
    nan = isnan(a)
    skip = nan if where is None else logical_or(nan, logical_not(where))
    res = _minmax(ufunc[:3], ufunc, _where(skip, _ember.asarray(fill, a.dtype, None, None), a),
                  axis, None, keepdims, initial, None)
    if initial is None:
        fill_nan = _ember.asarray(float("nan"), a.dtype, None, None)
        if a.dtype.kind == "c" and a.size:
            fill_nan = _first_along(a, axis, keepdims)
        res = _where(all(nan, axis, None, keepdims), fill_nan, res)
    if out is not None:
        out[...] = res
        return out
    return res


def _first_along(a, axis, keepdims):
    """The first element of every slice a reduction over axis sees (C order within the slice):
    NumPy's fmin/fmax keep the first of two NaNs, so an all-NaN complex slice gives its first
    element (nan-0.58j stays, not nan+0j)."""
    from ._manipulation import moveaxis
    nd = a.ndim
    if nd == 0:  # NumPy takes axis=0 (or -1) of a 0-d array as the array itself
        return a
    axes = tuple(range(nd)) if axis is None else \
        tuple(sorted(ax % nd for ax in ((axis,) if isinstance(axis, int) else axis)))
    kept = [d for d in range(nd) if d not in axes]
    m = moveaxis(a, axes, tuple(range(nd - len(axes), nd))) if axes else a
    first = m.reshape(tuple(a.shape[d] for d in kept) + (-1,))[..., 0]
    if keepdims:
        first = first.reshape(tuple(1 if d in axes else a.shape[d] for d in range(nd)))
    return first


def nanmin(a, axis=None, out=None, keepdims=False, initial=None, where=None):
    """Minimum ignoring NaNs (NaN for a slice of NaNs only)."""
    return _nanminmax("minimum", float("inf"), a, axis, out, keepdims, initial, where)


def nanmax(a, axis=None, out=None, keepdims=False, initial=None, where=None):
    """Maximum ignoring NaNs (NaN for a slice of NaNs only)."""
    return _nanminmax("maximum", float("-inf"), a, axis, out, keepdims, initial, where)


def nanmean(a, axis=None, dtype=None, out=None, keepdims=False, *, where=None):
    """Mean of the non-NaN elements (NaN where there are none); `where` masks as in mean."""
    from ._ufuncs import divide, isnan, logical_and, logical_not
    a = _arr(a)
    where = _no_mask(where)
    if not _is_inexact(a):
        return mean(a, axis, dtype, out, keepdims, where=where)
    if out is not None and out.dtype.kind not in "fc":
        raise TypeError("If a is inexact, then out must be inexact")  # NumPy's
    keep = logical_not(isnan(a))
    if where is not None:
        keep = logical_and(keep, where)
    n = sum(keep, axis, keepdims=keepdims)
    s = sum(_nan_to(a, 0), axis, dtype=dtype, keepdims=keepdims, where=keep)
    res = divide(s, n).astype(s.dtype)
    if out is not None:
        out[...] = res
        return out
    return res


for _name in ("sum", "prod", "mean", "var", "std", "min", "max", "argmin", "argmax", "any",
              "all", "cumsum", "cumprod"):
    attach(_name, globals()[_name])
del _name
