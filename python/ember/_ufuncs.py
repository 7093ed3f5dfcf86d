"""Elementwise functions, one per row of the C op table (include/ember/ops.def),
plus the NumPy and Array API aliases and the few compositions NumPy defines
in Python (round, clip, fix, angle, divmod, isclose, allclose).

Each table function is ``f(x1[, x2], /, out=None, *, dtype=None)`` with
broadcasting and NumPy 2 promotion (Python scalars are weak, NEP 50)."""
import operator as _operator

import numpy as _np

from . import _ember
from ._methods import attach as _attach

_ufunc = _ember.ufunc


def _make(name, nin, public=None):
    code = _ember.ops[name][0]  # the op's code: the C side looks up no name per call
    # Without out=, dtype= and where=, no keyword dict is built (a small op's call).
    if nin == 1:
        def f(x, /, out=None, *, dtype=None, where=True):
            if where is not True:
                return _masked(code, (x,), out, dtype, where)
            if out is None and dtype is None:
                return _ufunc(code, x)
            if name == "absolute" and _is_em(x) and x.dtype.kind == "c":
                x, dtype = _abs_complex_dtype(x, dtype)
            x, = _f16_inputs(dtype, x)
            return _ufunc(code, x, out=out, dtype=dtype)
    elif nin == 2:
        def f(x1, x2, /, out=None, *, dtype=None, where=True):
            if where is not True:
                return _masked(code, (x1, x2), out, dtype, where)
            if out is None and dtype is None:
                return _ufunc(code, x1, x2)
            x1, x2 = _f16_inputs(dtype, x1, x2)
            return _ufunc(code, x1, x2, out=out, dtype=dtype)
    else:
        def f(x1, x2, x3, /, out=None, *, dtype=None, where=True):
            if where is not True:
                return _masked(code, (x1, x2, x3), out, dtype, where)
            if out is None and dtype is None:
                return _ufunc(code, x1, x2, x3)
            return _ufunc(code, x1, x2, x3, out=out, dtype=dtype)
    f.__name__ = f.__qualname__ = public or name
    f.__doc__ = f"Elementwise {name}, as numpy.{name}."
    return f


def _f16_inputs(dtype, *xs):
    """With dtype=float16 NumPy casts each input to float16 before its loop runs (uint16
    65535 becomes inf); Ember's float16 loops compute in float32, so real arrays of another
    dtype are rounded to float16 here first.  Complex ones are left for the C side's
    'same_kind' check to refuse."""
    if dtype is None or _np.dtype(dtype) != _np.float16:
        return xs
    return tuple(x.astype("float16") if _is_em(x) and x.dtype != _np.float16 and
                 x.dtype.kind in "biuf" else x for x in xs)


def _abs_complex_dtype(x, dtype):
    """abs(complex, dtype=float64) is NumPy's D->d loop (its input safely cast to
    complex128), not a cast of the complex input to float64."""
    cplx = {"float32": "complex64", "float64": "complex128"}.get(_np.dtype(dtype).name)
    if cplx is None or not _np.can_cast(x.dtype, cplx, "safe"):
        return x, dtype
    return (x if x.dtype == cplx else x.astype(cplx)), None


def _masked(code, args, out, dtype, where):
    """A ufunc with where=: out keeps its values where the mask is False.
    Without out, NumPy leaves those elements uninitialised; here they hold
    the unmasked result."""
    mask = where if _is_em(where) else _ember.asarray(where)
    if mask.dtype != _np.bool_:  # NumPy casts the mask 'safe'ly: only bools
        if not (mask.ndim == 0 and not _is_em(where) and isinstance(where, (bool, int))):
            raise TypeError(f"Cannot cast array data from dtype('{mask.dtype}') to "
                            "dtype('bool') according to the rule 'safe'")
        mask = _ember.asarray(bool(where))
    if isinstance(out, tuple):
        if len(out) != 1:
            raise ValueError(f"The 'out' tuple must have exactly one entry per ufunc output")
        out = out[0]
    r = _ufunc(code, *args, dtype=dtype)
    if out is None:
        shape = _np.broadcast_shapes(r.shape, mask.shape)
        return r if r.shape == shape else _ufunc("where", mask, r, r)
    _ufunc("where", mask, r, out, out=out)
    return out


__all__ = []
for _name, (_code, _nin) in _ember.ops.items():
    if _name in ("copy", "where", "real", "imag"):
        continue
    globals()[_name] = _make(_name, _nin)
    __all__.append(_name)

# NumPy and Array API spellings of the same ops.
_ALIASES = {
    "abs": "absolute", "conj": "conjugate", "bitwise_not": "invert", "bitwise_invert": "invert",
    "bitwise_left_shift": "left_shift", "bitwise_right_shift": "right_shift", "pow": "power",
    "true_divide": "divide", "mod": "remainder", "acos": "arccos", "asin": "arcsin",
    "atan": "arctan", "atan2": "arctan2", "acosh": "arccosh", "asinh": "arcsinh",
    "atanh": "arctanh", "fix": "trunc", "degrees": "rad2deg", "radians": "deg2rad",
}
for _alias, _name in _ALIASES.items():
    globals()[_alias] = _make(_name, _ember.ops[_name][1], _alias)
    __all__.append(_alias)

# NumPy's ufunc attributes and methods (.reduce, .accumulate, .outer, .at ...).
from ._ufunc_methods import install as _install  # noqa: E402
for _name, (_code, _nin) in _ember.ops.items():
    if _name in globals():
        _install(globals()[_name], _name, _nin)
for _alias, _name in _ALIASES.items():
    _install(globals()[_alias], _name, _ember.ops[_name][1])


def _is_em(x):
    return isinstance(x, _ember.ndarray)


def _dtype_of(x):
    return x.dtype if _is_em(x) else _np.asarray(x).dtype


def real(val, /, out=None, *, dtype=None):
    """The real part; for a complex ember array a view sharing its memory, for a real one
    the array itself (NumPy's x.real is x: writes show through)."""
    if _is_em(val) and out is None and dtype is None:
        return _ember.view_component(val, False) if val.dtype.kind == "c" else val
    return _ufunc("real", val, out=out, dtype=dtype)


def imag(val, /, out=None, *, dtype=None):
    """The imaginary part; for a complex ember array a view sharing its memory."""
    if _is_em(val) and val.dtype.kind == "c" and out is None and dtype is None:
        return _ember.view_component(val, True)
    return _ufunc("imag", val, out=out, dtype=dtype)


# NumPy 2.5 raises OverflowError where a Python int operand of where() does not fit the
# result's integer dtype (NEP 50, as every other function); 2.4 wrapped it.  Ember follows
# the NumPy it runs with (the fuzzer's ember_returns:where*:OverflowError on NumPy 2.5).
_WHERE_CHECKS_INTS = tuple(int(p) for p in _np.__version__.split(".")[:2]) >= (2, 5)


def _where_int_range(x, y):
    ints = [v for v in (x, y) if type(v) is int]
    others = [v for v in (x, y) if type(v) is not int]
    if not ints or not others or any(type(v) in (float, complex) for v in others):
        return
    dt = _np.result_type(*[_dtype_of(v) for v in others])
    if dt.kind not in "iu":
        return
    info = _np.iinfo(dt)
    for v in ints:
        if not info.min <= v <= info.max:
            raise OverflowError(f"Python integer {v} out of bounds for {dt}")


def where(condition, x=None, y=None, /):
    """Elements of x where condition is true, else of y."""
    if x is None and y is None:
        from ._indexing import nonzero
        return nonzero(condition)
    if x is None or y is None:
        raise ValueError("either both or neither of x and y should be given")
    if _WHERE_CHECKS_INTS:
        _where_int_range(x, y)
    return _ufunc("where", condition, x, y)


def around(a, decimals=0, out=None):
    """Round to the given number of decimals, half to even (numpy.round):
    by scaling with 10**decimals, rounding and scaling back, as NumPy does."""
    decimals = _operator.index(decimals)
    kind = _dtype_of(a).kind
    if kind == "b":  # NumPy rounds bool as float16 (rint's loop), and only to 0 decimals
        if decimals != 0:
            raise TypeError("Cannot cast ufunc 'multiply' output from dtype('float64') to "
                            "dtype('bool') with casting rule 'same_kind'")
        return _ufunc("rint", a, out=out)
    if kind in "iu":
        if decimals >= 0:
            return _ufunc("positive" if kind != "b" else "copy", a, out=out)
        scale = 10 ** -decimals
        r = multiply(rint(divide(a, scale)), scale)
        return _ufunc("copy", r, out=out) if out is not None else r.astype(_dtype_of(a))
    if decimals == 0:
        return _ufunc("rint", a, out=out)
    if kind == "c":
        # NumPy rounds the real and imaginary parts apart, as real arrays: a complex
        # multiply by 10**d would make inf * 0 = nan and may round the scaled parts
        # differently in the last bit.
        if not _is_em(a):
            a = _ember.asarray(a, None, None, None)
        res = _ufunc("copy", a) if out is None else out
        if out is not None and _dtype_of(out).kind != "c":
            raise TypeError(f"Cannot cast ufunc 'multiply' output from dtype('{a.dtype}') to "
                            f"dtype('{_dtype_of(out)}') with casting rule 'same_kind'")
        re, im = around(real(a), decimals), around(imag(a), decimals)
        real(res)[...] = re
        imag(res)[...] = im
        return res
    if decimals > 0:
        scale = 10.0 ** decimals
        return _ufunc("divide", rint(multiply(a, scale)), scale, out=out)
    scale = 10.0 ** -decimals
    return _ufunc("multiply", rint(divide(a, scale)), scale, out=out)


def round(x, /, decimals=0, out=None):  # noqa: A001 - the NumPy / Array API name
    """Round half to even to `decimals` places (numpy.round)."""
    return around(x, decimals, out)


def _clip_bound(bound, dt, upper):
    """A Python int bound beyond the integer dtype's range clips nothing (NumPy 2)."""
    if type(bound) is int and dt.kind in "iu":
        info = _np.iinfo(dt)
        if (upper and bound >= info.max) or (not upper and bound <= info.min):
            return None
    return bound


def clip(x, /, min=None, max=None, out=None, *, a_min=None, a_max=None, dtype=None):  # noqa: A002
    """Limit the values to [min, max] (the Array API's signature; NumPy's
    positional bounds and a_min/a_max keywords work too).  NaN propagates,
    as with maximum/minimum; either bound may be None."""
    lo = min if a_min is None else a_min
    hi = max if a_max is None else a_max
    dt = _dtype_of(x)
    lo, hi = _clip_bound(lo, dt, False), _clip_bound(hi, dt, True)
    if lo is None and hi is None:
        return _ufunc("positive" if dt.kind != "b" else "copy", x, out=out, dtype=dtype)
    if hi is None:
        return _ufunc("maximum", x, lo, out=out, dtype=dtype)
    if lo is None:
        return _ufunc("minimum", x, hi, out=out, dtype=dtype)
    return _ufunc("minimum", _ufunc("maximum", x, lo, dtype=dtype), hi, out=out, dtype=dtype)


def angle(z, deg=False):
    """The counterclockwise angle from the positive real axis (numpy.angle)."""
    if _dtype_of(z).kind == "c":
        a = arctan2(imag(z), real(z))
    else:
        a = arctan2(0, z)
    return multiply(a, 180.0 / _np.pi) if deg else a


def divmod(x1, x2, /, out=(None, None)):  # noqa: A001 - numpy.divmod
    """(x1 // x2, x1 % x2) with Python's sign rules."""
    out = out if isinstance(out, tuple) else (out, None)
    return floor_divide(x1, x2, out[0]), remainder(x1, x2, out[1])


def isposinf(x, out=None):
    """True where x is +inf (numpy.isposinf)."""
    return _ufunc("logical_and", isinf(x), logical_not(signbit(x)), out=out)


def isneginf(x, out=None):
    """True where x is -inf (numpy.isneginf)."""
    return _ufunc("logical_and", isinf(x), signbit(x), out=out)


def float_power(x1, x2, /, out=None, *, dtype=None):
    """x1 ** x2 computed in float64 (complex128 for complex inputs)."""
    if dtype is None:
        dtype = "complex128" if "c" in (_dtype_of(x1).kind, _dtype_of(x2).kind) else "float64"
    return _ufunc("power", x1, x2, out=out, dtype=dtype)


def isclose(a, b, rtol=1e-05, atol=1e-08, equal_nan=False):
    """``|a - b| <= atol + rtol * |b|`` elementwise, infinities equal only to
    themselves (numpy.isclose)."""
    if not _is_em(a) and not _is_em(b):
        from ._creation import asarray
        a = asarray(a)
    strong = [_dtype_of(v) for v in (a, b) if not isinstance(v, (bool, int, float, complex))]
    dt = _np.result_type(*strong, 1.0)
    x, y = _ufunc("copy", a, dtype=dt), _ufunc("copy", b, dtype=dt)
    finite = logical_and(isfinite(x), isfinite(y))
    close = less_equal(absolute(subtract(x, y)), add(multiply(absolute(y), rtol), atol))
    r = logical_or(equal(x, y), logical_and(finite, close))
    if equal_nan:
        r = logical_or(r, logical_and(isnan(x), isnan(y)))
    return r


def allclose(a, b, rtol=1e-05, atol=1e-08, equal_nan=False):
    """True when isclose(a, b) holds everywhere."""
    return bool(_np.all(isclose(a, b, rtol, atol, equal_nan).get()))


__all__ += ["real", "imag", "where", "around", "round", "clip", "angle", "divmod", "isposinf",
            "isneginf", "float_power",
            "isclose", "allclose"]

# ndarray methods and properties that are these functions.
_attach("real", real, prop=True)
_attach("imag", imag, prop=True)
# The methods return a non-complex array unchanged (a bool stays bool: the
# ufunc's bool loop is int8's).
_attach("conj", lambda self: conjugate(self) if self.dtype.kind == "c" else self)
_attach("conjugate", lambda self: conjugate(self) if self.dtype.kind == "c" else self)
_attach("round", lambda self, decimals=0, out=None: around(self, decimals, out))
_attach("clip", lambda self, min=None, max=None, out=None, **kw: clip(self, min, max, out=out, **kw))
