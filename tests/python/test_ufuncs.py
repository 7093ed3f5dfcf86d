"""Every elementwise op of the op table against NumPy: every dtype its row
allows, the edge layouts, special values, integer corner cases (division by
zero, INT_MIN // -1, shifts past the width), dtypes NumPy refuses, out= and
dtype=, and the Python-level functions (aliases, round, clip, real/imag...)."""
import warnings

import numpy as np
import pytest

import ember as em
from helpers import ALL_DTYPES, assert_same, layouts, random_array, to_em

OPS = {name: nin for name, (_, nin) in em._ember.ops.items() if name not in ("copy", "where")}

# Input ranges inside each function's domain (floats; integers are clipped
# to their own range by random_array).
_DOMAIN = {
    "arcsin": (-0.95, 0.95), "arccos": (-0.95, 0.95), "arctanh": (-0.9, 0.9),
    "arccosh": (1.05, 8), "log": (0.1, 10), "log2": (0.1, 10), "log10": (0.1, 10),
    "sqrt": (0.1, 10), "log1p": (-0.9, 10), "exp": (-5, 5), "exp2": (-5, 5), "expm1": (-5, 5),
    "sinh": (-5, 5), "cosh": (-5, 5), "tan": (-1.2, 1.2), "power": (0.5, 3),
}
_INT_DOMAIN = {"arccosh": (1, 8), "log": (1, 10), "log2": (1, 10), "log10": (1, 10),
               "sqrt": (0, 10), "arcsin": (0, 0), "arccos": (0, 0), "arctanh": (0, 0),
               "log1p": (0, 10), "power": (-4, 4)}


def _kw(op, dtype):
    kind = np.dtype(dtype).kind
    if kind == "b":
        return {}
    lo, hi = (_INT_DOMAIN if kind in "iu" else _DOMAIN).get(op, (None, None))
    if kind == "u" and lo is not None:
        lo = max(lo, 0)
    return {} if lo is None else {"low": lo, "high": hi}


def _second(op, rng, shape, dtype):
    """The second operand: non-zero divisors, small exponents and shifts."""
    dt = np.dtype(dtype)
    y = random_array(rng, shape, dt, **({} if dt.kind == "b" else _kw(op, dt)))
    if op in ("left_shift", "right_shift") and dt.kind in "iu":
        y = rng.integers(0, dt.itemsize * 8 + 3, size=shape).astype(dt)
    elif op == "power" and dt.kind in "iu":
        y = rng.integers(0, 5, size=shape).astype(dt)
    elif op in ("divide", "floor_divide", "remainder", "fmod") and dt.kind in "iub":
        y = np.where(y == 0, np.ones((), dt), y).astype(dt)
    return y


def _tol(dtype):
    c = np.dtype(dtype).char
    return {"e": 2e-3, "f": 1e-5, "F": 1e-5}.get(c, 1e-12)


def _np_call(fn, *args, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return fn(*args, **kw)


def _check(name, got, want, where):
    tol = _tol(want.dtype) if want.dtype.kind in "fc" else None
    if name == "nextafter":
        tol = 0
    try:
        assert_same(got, want, rtol=tol, atol=tol or 0)
    except AssertionError as e:
        raise AssertionError(f"{name} {where}: {e}") from None


def _numpy_refuses(fn, args):
    try:
        _np_call(fn, *args)
        return None
    except TypeError as e:
        return e


@pytest.mark.parametrize("op", sorted(OPS))
def test_op_every_dtype_every_layout(device, rng, op, grid_dtypes):
    nin, npf, emf = OPS[op], getattr(np, op), getattr(em, op)
    accepted = []
    for dt in ALL_DTYPES:
        probe = [np.ones(2, dt)] * nin
        if not _numpy_refuses(npf, probe):
            accepted.append(dt)
            continue
        with pytest.raises(TypeError):
            emf(*[em.asarray(p) for p in probe])
    # every dtype and layout, but on opencl:0 in CI a cut (conftest's grid_dtypes) that
    # keeps one dtype of each kind
    runs = grid_dtypes(accepted)
    assert {d.kind for d, _ in runs} == {d.kind for d in accepted}
    for dt, every_layout in runs:
        for name, x in layouts(rng, (3, 5), dt, **_kw(op, dt)):
            if not every_layout and name not in ("contiguous", "empty"):
                continue
            if op == "reciprocal" and dt.kind in "iu":
                x = np.where(x == 0, np.ones((), dt), x)
            if nin == 1:
                _check(op, emf(to_em(x)), _np_call(npf, x), f"{dt} {name}")
                continue
            y = _second(op, rng, x.shape, dt)
            _check(op, emf(to_em(x), to_em(y)), _np_call(npf, x, y), f"{dt} {name}")
            if x.ndim == 2 and x.size and every_layout:  # the second operand from a row
                yr = _second(op, rng, (1, x.shape[1]), dt)
                _check(op, emf(to_em(x), to_em(yr)), _np_call(npf, x, yr),
                       f"{dt} {name} row-broadcast")


_SPECIAL = np.array([np.nan, np.inf, -np.inf, 0.0, -0.0, 1.0, -1.0, 0.5, -2.5, 1e-30, 3.0])


@pytest.mark.parametrize("dtype", ["float16", "float32", "float64"])
def test_special_values_float(device, dtype):
    x = _SPECIAL.astype(dtype)
    xx, yy = np.meshgrid(x, x)
    for op, nin in OPS.items():
        npf = getattr(np, op)
        if nin == 1:
            if _numpy_refuses(npf, [x]):
                continue
            _check(op, getattr(em, op)(em.asarray(x)), _np_call(npf, x), f"{dtype} special")
        elif not _numpy_refuses(npf, [xx, yy]):
            _check(op, getattr(em, op)(em.asarray(xx), em.asarray(yy)), _np_call(npf, xx, yy),
                   f"{dtype} special pairs")


@pytest.mark.parametrize("dtype", ["complex64", "complex128"])
def test_special_values_complex(device, dtype):
    re = np.array([0.0, -0.0, 1.0, -2.0, 0.5, np.nan])
    z = (re[:, None] + 1j * np.array([0.0, 1.0, -1.5, np.nan])[None, :]).ravel().astype(dtype)
    for op in ("sign", "absolute", "isnan", "isinf", "isfinite", "real", "imag", "conjugate",
               "negative", "square", "rint", "maximum", "minimum", "fmax", "fmin", "less",
               "less_equal", "greater", "greater_equal", "equal", "not_equal"):
        npf = getattr(np, op)
        args = [z] if OPS[op] == 1 else [z, z[::-1].copy()]
        _check(op, getattr(em, op)(*[em.asarray(a) for a in args]), _np_call(npf, *args),
               f"{dtype} special")


def _int_dtypes():
    return [d for d in ALL_DTYPES if d.kind in "iu"]


def test_integer_division_corners(device):
    for dt in _int_dtypes():
        info = np.iinfo(dt)
        vals = np.array([info.min, info.min + 1, -7, -1, 0, 1, 7, info.max], dtype=object)
        vals = np.array([v for v in vals if info.min <= v <= info.max], dtype=dt)
        x, y = np.meshgrid(vals, vals)
        for op in ("floor_divide", "remainder", "fmod"):
            got = getattr(em, op)(em.asarray(x), em.asarray(y)).get()
            want = _np_call(getattr(np, op), x, y)
            # NumPy gives 0 for division by zero; INT_MIN // -1 wraps to INT_MIN.
            np.testing.assert_array_equal(got, want, err_msg=f"{op} {dt}")


def test_shift_and_abs_corners(device):
    for dt in _int_dtypes():
        bits = dt.itemsize * 8
        x = np.array([-5, -1, 1, 5, 100], dtype=np.int64)
        x = x[(x >= np.iinfo(dt).min) & (x <= np.iinfo(dt).max)].astype(dt)
        for s in (0, 1, bits - 1, bits, bits + 5):
            y = np.full(x.shape, s, dtype=dt)
            for op in ("left_shift", "right_shift"):
                assert_same(getattr(em, op)(em.asarray(x), em.asarray(y)),
                            getattr(np, op)(x, y))
        mn = np.array([np.iinfo(dt).min, np.iinfo(dt).max, 3], dtype=dt)
        assert_same(em.absolute(em.asarray(mn)), _np_call(np.absolute, mn))
        assert_same(em.negative(em.asarray(mn)), _np_call(np.negative, mn))
        assert_same(em.sign(em.asarray(mn)), np.sign(mn))
    # Negative shift counts: NumPy gives 0 (or -1 shifting a negative right).
    x, y = np.array([-8, 8], np.int32), np.array([-1, -1], np.int32)
    assert_same(em.left_shift(em.asarray(x), em.asarray(y)), np.left_shift(x, y))
    assert_same(em.right_shift(em.asarray(x), em.asarray(y)), np.right_shift(x, y))


def test_integer_power(device):
    for dt in _int_dtypes():
        x = np.array([0, 1, 2, 3, 7], dtype=dt)
        y = np.array([0, 3, 5, 2, 40], dtype=dt)  # 7**40 wraps like NumPy
        assert_same(em.power(em.asarray(x), em.asarray(y)), np.power(x, y))
        assert_same(em.asarray(x) ** 2, x ** 2)
    with pytest.raises(ValueError, match="Integers to negative integer powers are not allowed"):
        em.asarray(np.array([2, 3])) ** -1
    with pytest.raises(ValueError, match="Integers to negative integer powers are not allowed"):
        em.power(em.asarray(np.array([2, 3], np.int8)), em.asarray(np.array([1, -2], np.int8)))
    assert_same(em.asarray(np.array([2, 3])) ** 2, np.array([4, 9]))  # still works after
    assert_same(em.asarray(np.array([2.0])) ** -1, np.array([0.5]))


def test_bool_rules(device):
    t = np.array([True, False, True])
    f = np.array([True, True, False])
    et, ef = em.asarray(t), em.asarray(f)
    assert_same(et + ef, t + f)  # logical or
    assert_same(et * ef, t * f)
    assert_same(et / ef, _np_call(np.divide, t, f))
    assert_same(em.floor_divide(et, ef), _np_call(np.floor_divide, t, f))  # int8
    assert_same(em.square(et), np.square(t))
    assert_same(em.conjugate(et), np.conjugate(t))
    assert_same(~et, ~t)
    assert_same(em.floor(et), np.floor(t))
    with pytest.raises(TypeError, match="boolean subtract.*not supported"):
        et - ef
    with pytest.raises(TypeError, match="boolean negative.*not supported"):
        -et
    with pytest.raises(TypeError, match="not supported for the input type bool"):
        em.sign(et)
    with pytest.raises(TypeError, match="not supported for the input type bool"):
        em.positive(et)
    assert_same(et ^ ef, t ^ f)  # and the process still works


def test_unsupported_dtypes_raise_type_error(device):
    c = em.asarray(np.array([1 + 1j]))
    for op in ("floor_divide", "remainder", "arctan2", "hypot", "copysign", "logaddexp"):
        with pytest.raises(TypeError, match=f"ufunc '{op}' not supported for the input type"):
            getattr(em, op)(c, c)
    with pytest.raises(TypeError, match="not supported for the input type float64"):
        em.bitwise_and(em.ones(3), em.ones(3))
    with pytest.raises(TypeError, match="not supported for the input type float32"):
        em.invert(em.ones(3, dtype="float32"))
    with pytest.raises(TypeError, match="not supported for the input type complex128"):
        em.floor(c)


def test_logical_ops_any_dtype(device, rng):
    for dt in ALL_DTYPES:
        x, y = random_array(rng, (7,), dt), random_array(rng, (7,), dt)
        x[0] = 0
        for op in ("logical_and", "logical_or", "logical_xor"):
            assert_same(getattr(em, op)(em.asarray(x), em.asarray(y)), getattr(np, op)(x, y))
        assert_same(em.logical_not(em.asarray(x)), np.logical_not(x))


def test_nan_propagation_maximum_fmax(device):
    x = np.array([np.nan, 1.0, np.nan, -np.inf])
    y = np.array([2.0, np.nan, np.nan, 1.0])
    for op in ("maximum", "minimum", "fmax", "fmin"):
        assert_same(getattr(em, op)(em.asarray(x), em.asarray(y)), getattr(np, op)(x, y))
    assert_same(em.sign(em.asarray(x)), np.sign(x))


def test_broadcast_errors(device):
    with pytest.raises(ValueError, match="could not be broadcast"):
        em.add(em.ones((2, 3)), em.ones((4,)))
    with pytest.raises(ValueError, match="broadcast"):
        em.add(em.ones(3), em.ones(3), out=em.ones(4))
    assert_same(em.add(em.ones((2, 1)), em.ones(3)), np.ones((2, 1)) + np.ones(3))


def test_out_and_dtype(device, rng):
    a = rng.random((4, 5))
    x = em.asarray(a)
    out = em.empty((4, 5))
    r = em.multiply(x, 2.0, out=out)
    assert r is out
    assert_same(out, a * 2.0)
    o32 = em.empty((4, 5), dtype="float32")
    em.add(x, 1, out=(o32,))
    assert_same(o32, np.add(a, 1, out=np.empty((4, 5), np.float32)))
    assert_same(em.add(x, 1, dtype="float32"), np.add(a, 1, dtype="float32"))
    assert_same(em.add(x, 1, None, dtype=None), np.add(a, 1))
    # the C entry point takes out= and dtype= only, by name or by op code
    assert_same(em._ember.ufunc("add", x, 1, out=None, dtype="float32"), np.add(a, 1, dtype="float32"))
    with pytest.raises(TypeError, match="add\\(\\) got an unexpected keyword argument 'casting'"):
        em._ember.ufunc(em._ember.ops["add"][0], x, x, casting="no")
    with pytest.raises(TypeError, match="add\\(\\) takes 2 positional arguments but 1 were given"):
        em._ember.ufunc("add", x)
    with pytest.raises(ValueError, match="unknown ufunc code -1"):
        em._ember.ufunc(-1, x)
    assert_same(em.sqrt(em.asarray(np.arange(5)), dtype="float32"),
                np.sqrt(np.arange(5), dtype="float32"))
    # out aliasing an input, in the same and in another layout
    want = a + a
    em.add(x, x, out=x)
    assert_same(x, want)
    b = rng.random(10)
    y = em.asarray(b.copy())
    y += y[::-1]
    b += b[::-1]
    assert_same(y, b)
    c = rng.random((3, 3))
    z = em.asarray(c.copy())
    em.subtract(z, z.T, out=z)
    assert_same(z, c - c.T)
    # casting errors on out= and in-place
    i = em.asarray(np.arange(3))
    with pytest.raises(TypeError, match="Cannot cast ufunc 'add' output from dtype\\('float64'\\) "
                                        "to dtype\\('int64'\\) with casting rule 'same_kind'"):
        i += 1.5
    with pytest.raises(TypeError, match="same_kind"):
        em.sqrt(i, out=em.empty(3, dtype="int64"))
    i += 1
    assert_same(i, np.arange(3) + 1)
    with pytest.raises(TypeError, match="Cannot cast ufunc 'add' input 1 from dtype\\('float64'\\) "
                                        "to dtype\\('int8'\\) with casting rule 'same_kind'"):
        em.add(em.asarray(np.array([1, 2], np.int8)), 1.5, dtype="int8")
    with pytest.raises(TypeError, match="input 0 from dtype\\('float64'\\)"):
        em.multiply(x, 2, dtype="int64")
    assert_same(em.add(em.asarray(np.array([1, 2], np.int8)), 300, dtype="int16"),
                np.add(np.array([1, 2], np.int8), 300, dtype="int16"))
    with pytest.raises(TypeError, match="out must be an ember.ndarray"):
        em.add(x, x, out=np.empty((4, 5)))


def test_aliases(device, rng):
    a, b = rng.random(6) + 0.5, rng.random(6) + 0.5
    x, y = em.asarray(a), em.asarray(b)
    pairs = {"abs": "absolute", "conj": "conjugate", "pow": "power", "true_divide": "divide",
             "mod": "remainder", "atan2": "arctan2"}
    for alias, name in pairs.items():
        args = (x,) if OPS[name] == 1 else (x, y)
        nargs = (a,) if OPS[name] == 1 else (a, b)
        assert_same(getattr(em, alias)(*args), getattr(np, name)(*nargs))
    for alias, name in {"acos": "arccos", "asin": "arcsin", "atan": "arctan", "asinh": "arcsinh",
                        "acosh": "arccosh", "atanh": "arctanh"}.items():
        v = a / 2 if alias in ("acos", "asin", "atanh") else a + 1
        assert_same(getattr(em, alias)(em.asarray(v)), getattr(np, name)(v))
    i, j = np.array([5, -6, 7]), np.array([1, 2, 3])
    ei, ej = em.asarray(i), em.asarray(j)
    assert_same(em.bitwise_not(ei), np.bitwise_not(i))
    assert_same(em.bitwise_invert(ei), np.invert(i))
    assert_same(em.bitwise_left_shift(ei, ej), np.left_shift(i, j))
    assert_same(em.bitwise_right_shift(ei, ej), np.right_shift(i, j))
    assert_same(em.fmod(ei, ej), np.fmod(i, j))
    assert_same(em.fix(em.asarray(np.array([-1.5, 1.5]))), np.fix(np.array([-1.5, 1.5])))
    assert_same(em.fix(ei), np.fix(i))
    assert_same(em.degrees(em.asarray(a)), np.degrees(a))
    assert_same(em.radians(em.asarray(a)), np.radians(a))
    assert_same(em.positive(ei), np.positive(i))
    assert_same(em.signbit(em.asarray(np.array([-0.0, 1.0]))), np.signbit(np.array([-0.0, 1.0])))


def test_round(device):
    a = np.array([1.25, 2.5, -0.5, 0.125, 1234.5678, np.nan, np.inf])
    for d in (0, 1, 2, -1, -2):
        assert_same(em.round(em.asarray(a), d), np.round(a, d))
        assert_same(em.around(em.asarray(a.astype("float32")), d), np.around(a.astype("float32"), d))
    i = np.array([15, 25, -35, 1234])
    for d in (0, 2, -1, -2):
        assert_same(em.round(em.asarray(i), d), np.round(i, d))
    z = np.array([1.5 + 2.5j, -0.55 + 0.45j])
    assert_same(em.round(em.asarray(z), 1), np.round(z, 1))
    assert_same(em.asarray(a).round(1), a.round(1))


def test_clip(device, rng):
    a = rng.uniform(-5, 5, 20)
    a[3] = np.nan
    x = em.asarray(a)
    assert_same(em.clip(x, -1, 2), np.clip(a, -1, 2))
    assert_same(em.clip(x, min=-1), np.clip(a, min=-1))
    assert_same(em.clip(x, max=2.5), np.clip(a, max=2.5))
    assert_same(em.clip(x, em.asarray(a[::-1].copy()), 3.0), np.clip(a, a[::-1], 3.0))
    assert_same(x.clip(0, 1), a.clip(0, 1))
    i = np.arange(-3, 6, dtype=np.int8)
    assert_same(em.clip(em.asarray(i), 0, 300), np.clip(i, 0, 300))
    assert_same(em.clip(em.asarray(i), None, None), np.clip(i, None, None))
    out = em.empty(20)
    assert em.clip(x, 0, 1, out=out) is out
    assert_same(out, np.clip(a, 0, 1))
    # The Array API's signature (x, /, min=None, max=None); NumPy's a_min/a_max keywords too.
    import inspect
    params = list(inspect.signature(em.clip).parameters.values())
    assert [p.name for p in params[1:3]] == ["min", "max"]
    assert params[1].kind is inspect.Parameter.POSITIONAL_OR_KEYWORD
    assert_same(em.clip(x, a_min=-1, a_max=2), np.clip(a, -1, 2))


def test_real_imag_views(device, rng):
    z = rng.random(5) + 1j * rng.random(5)
    x = em.asarray(z)
    assert_same(x.real, z.real)
    assert_same(em.imag(x), z.imag)
    v = x.imag
    v[...] = 7.0  # a view: writes through to x
    z.imag = 7.0
    assert_same(x, z)
    r = np.arange(4.0)
    assert_same(em.real(em.asarray(r)), np.real(r))
    assert_same(em.imag(em.asarray(r)), np.imag(r))
    assert_same(em.asarray(z).conj(), z.conj())
    for dt in ("int8", "float32", "complex64"):
        w = np.array([1, -2, 3], dtype=dt)
        assert_same(em.angle(em.asarray(w)), np.angle(w))
        assert_same(em.angle(em.asarray(w), deg=True), np.angle(w, deg=True))


def test_divmod_isclose_allclose(device):
    a, b = np.array([7, -7, 7, -7]), np.array([3, 3, -3, -3])
    q, r = em.divmod(em.asarray(a), em.asarray(b))
    assert_same(q, a // b)
    assert_same(r, a % b)
    x = np.array([1.0, np.nan, np.inf, 1e-9, 2.0])
    y = np.array([1.0 + 1e-9, np.nan, np.inf, 0.0, 2.1])
    for kw in ({}, {"equal_nan": True}, {"rtol": 0.1}):
        assert_same(em.isclose(em.asarray(x), em.asarray(y), **kw), np.isclose(x, y, **kw))
    assert em.allclose(em.asarray(x[:1]), em.asarray(y[:1]))
    s = np.array([np.inf, -np.inf, np.nan, 1.0, -0.0])
    assert_same(em.isposinf(em.asarray(s)), np.isposinf(s))
    assert_same(em.isneginf(em.asarray(s)), np.isneginf(s))
    for u, v in ((np.array([2, 3]), np.array([-1, 2])), (np.array([1.5], "f"), 2),
                 (np.array([1j]), np.array([2]))):
        assert_same(em.float_power(em.asarray(u), v if isinstance(v, int) else em.asarray(v)),
                    np.float_power(u, v))
    assert not em.allclose(em.asarray(x), em.asarray(y))


def test_power_of_scalar_two_matches_numpy(device, rng):
    # x ** 2 takes the square fast path (as NumPy does); dtype and values must
    # still be NumPy's for every dtype, with int and float exponents.
    for dt in ALL_DTYPES:
        a = random_array(rng, (5, 4), dt)[:, ::-1]
        x = to_em(a)
        for e in (2, 2.0, 3):
            assert_same(x ** e, a ** e)


@pytest.mark.parametrize("dtype", ["complex64", "complex128"])
def test_arcsinh_of_nan_plus_signed_zero_imaginary(device, dtype):
    # C99 G.6.2.2, as NumPy: asinh(NaN +- 0i) is NaN +- 0i; the device formula went through
    # log(NaN + 0i) = NaN + NaNi (the fuzzer's seed 21000419 on cuda:0)
    z = np.array([complex(np.nan, 0.0), complex(np.nan, -0.0), complex(np.nan, 1.0)], dtype)
    got = em.asnumpy(em.arcsinh(em.asarray(z)))
    want = np.arcsinh(z)
    np.testing.assert_array_equal(np.isnan(got.imag), np.isnan(want.imag))
    np.testing.assert_array_equal(np.signbit(got.imag[:2]), np.signbit(want.imag[:2]))
    assert np.isnan(got.real).all()
