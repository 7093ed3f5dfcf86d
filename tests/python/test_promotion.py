"""NumPy 2 promotion (NEP 50) and broadcasting, as property tests against
NumPy: result dtypes for every pair of dtypes and for Python bool / int /
float / complex scalars on either side (out-of-range ints included), NumPy
scalars (strong), lists, and broadcasting of random compatible shapes."""
import warnings

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import ember as em
from helpers import ALL_DTYPES, assert_same

BINARY = ["add", "subtract", "multiply", "divide", "floor_divide", "remainder", "power",
          "maximum", "fmin", "less", "equal", "not_equal", "greater_equal", "logical_and",
          "bitwise_and", "bitwise_xor", "left_shift", "arctan2", "hypot", "copysign",
          "logaddexp", "nextafter", "fmod", "heaviside", "gcd", "logaddexp2"]
UNARY = ["sqrt", "exp", "sin", "floor", "rint", "sign", "absolute", "negative", "square",
         "reciprocal", "isnan", "real", "conjugate", "invert", "logical_not", "signbit", "cbrt",
         "deg2rad"]

SCALARS = st.one_of(
    st.booleans(),
    st.integers(-300, 300),
    st.sampled_from([2**31, -2**31 - 1, 2**63 - 1, 2**63, 2**64 - 1, 2**64, -2**63, -2**70]),
    st.floats(-1e3, 1e3, allow_nan=False),
    st.sampled_from([1e300, -1e-300, float("inf")]),
    st.complex_numbers(max_magnitude=1e3, allow_nan=False, allow_infinity=False),
)
NP_SCALARS = st.sampled_from([np.int8(3), np.uint16(7), np.float32(1.5), np.float64(2.5),
                              np.complex64(1 + 1j), np.bool_(True), np.int64(-2)])
SETTINGS = settings(max_examples=300, deadline=None, derandomize=True,
                    suppress_health_check=[HealthCheck.too_slow])


def _outcome(fn, *args):
    """(dtype, values) or the exception type NumPy / Ember gives."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            r = fn(*args)
        except (TypeError, ValueError, OverflowError) as e:
            # OverflowError first: it is not a ValueError, and NumPy's
            # UFuncTypeError is a TypeError.
            return next(k for k in (OverflowError, TypeError, ValueError) if isinstance(e, k))
    r = r.get() if isinstance(r, em.ndarray) else np.asarray(r)
    return r


def _compare(op, np_args, em_args):
    want = _outcome(getattr(np, op), *np_args)
    got = _outcome(getattr(em, op), *em_args)
    if isinstance(want, type):
        assert got is want, f"{op}{np_args!r}: NumPy raises {want.__name__}, ember gives {got}"
        return
    assert not isinstance(got, type), f"{op}{np_args!r}: ember raised {got.__name__}"
    assert got.dtype == want.dtype, f"{op}{np_args!r}: dtype {got.dtype} != numpy's {want.dtype}"
    assert got.shape == want.shape
    if want.dtype.kind in "fc":
        tol = {"e": 2e-3, "f": 1e-5, "F": 1e-5}.get(want.dtype.char, 1e-12)
        np.testing.assert_allclose(got, want, rtol=tol, atol=tol, equal_nan=True)
    else:
        np.testing.assert_array_equal(got, want)


def _values(dtype):
    d = np.dtype(dtype)
    if d.kind == "b":
        return np.array([True, False, True])
    return np.array([1, 2, 3]).astype(d)


# One case per op and left dtype, not per op: on CUDA each pair compiles its
# own kernels, and an op's 169 pairs in one case kept a pytest-xdist worker
# busy for most of a 600 s device call while the others sat idle.
@pytest.mark.parametrize("a", ALL_DTYPES, ids=str)
@pytest.mark.parametrize("op", BINARY)
def test_every_dtype_pair(device, op, a):
    for b in ALL_DTYPES:
        x, y = _values(a), _values(b)[::-1].copy()
        _compare(op, (x, y), (em.asarray(x), em.asarray(y)))


@pytest.mark.parametrize("op", UNARY)
def test_every_dtype_unary(device, op):
    for a in ALL_DTYPES:
        x = _values(a)
        _compare(op, (x,), (em.asarray(x),))


@SETTINGS
@given(op=st.sampled_from(BINARY), dt=st.sampled_from(ALL_DTYPES), s=SCALARS, left=st.booleans())
def test_python_scalars_are_weak(op, dt, s, left):
    x = _values(dt)
    if np.dtype(dt).kind == "c" and isinstance(s, complex):
        s = complex(round(s.real), round(s.imag))
    np_args = (s, x) if left else (x, s)
    em_args = (s, em.asarray(x)) if left else (em.asarray(x), s)
    _compare(op, np_args, em_args)


@SETTINGS
@given(op=st.sampled_from(BINARY), dt=st.sampled_from(ALL_DTYPES), s=NP_SCALARS, left=st.booleans())
def test_numpy_scalars_are_strong(op, dt, s, left):
    x = _values(dt)
    np_args = (s, x) if left else (x, s)
    em_args = (s, em.asarray(x)) if left else (em.asarray(x), s)
    _compare(op, np_args, em_args)


@pytest.mark.parametrize("op", ["add", "less", "multiply", "equal"])
def test_lists_and_two_scalars(device, op):
    _compare(op, ([1, 2, 3], 2.5), (em.asarray([1, 2, 3]), 2.5))
    _compare(op, ([1.5, 2.0], [True, False]), (em.asarray([1.5, 2.0]), [True, False]))
    got = getattr(em, op)(2, 3.5)
    assert isinstance(got, em.ndarray) and got.dtype == getattr(np, op)(2, 3.5).dtype


def test_out_of_range_python_ints(device):
    u8 = em.asarray(np.array([0, 1, 255], np.uint8))
    with pytest.raises(OverflowError, match="Python integer 300 out of bounds for uint8"):
        u8 + 300
    with pytest.raises(OverflowError, match="out of bounds for uint8"):
        u8 * -1
    # Comparisons answer from the sign of the int, as NumPy 2 does.
    n = np.array([0, 1, 255], np.uint8)
    for big in (300, -1, 2**70, -2**70):
        for op in ("less", "less_equal", "greater", "greater_equal", "equal", "not_equal"):
            assert_same(getattr(em, op)(u8, big), getattr(np, op)(n, big))
            assert_same(getattr(em, op)(big, u8), getattr(np, op)(big, n))
    i64 = np.array([-2**63, 0, 2**63 - 1])
    assert_same(em.asarray(i64) < 2**63, i64 < 2**63)
    assert_same(em.asarray(i64) == 2**63, i64 == 2**63)
    assert_same(u8 + 200, n + 200)  # wraps, and the process still works


def _shapes():
    """Pairs of shapes that broadcast together (with size-1 and missing dims)."""
    dims = st.lists(st.integers(0, 4), min_size=0, max_size=4)

    def pair(base):
        def derive(mask):
            return st.tuples(*[st.sampled_from([d, 1]) for d in base]).map(
                lambda t: t[mask:])
        return st.tuples(st.just(tuple(base)), st.integers(0, len(base)).flatmap(derive))

    return dims.flatmap(pair)


@SETTINGS
@given(shapes=_shapes(), swap=st.booleans())
def test_broadcasting_random_shapes(shapes, swap):
    sa, sb = shapes[::-1] if swap else shapes
    a = np.arange(int(np.prod(sa)), dtype=np.float64).reshape(sa)
    b = np.arange(int(np.prod(sb)), dtype=np.int32).reshape(sb)
    assert_same(em.asarray(a) + em.asarray(b), a + b)
    assert_same(em.asarray(a) < em.asarray(b), a < b)


def test_incompatible_shapes_raise(device):
    with pytest.raises(ValueError, match="could not be broadcast together"):
        em.asarray(np.ones((2, 3))) * em.asarray(np.ones((3, 2)))
    assert_same(em.asarray(np.ones((2, 3))) * em.asarray(np.ones((1, 3))), np.ones((2, 3)))


@pytest.mark.parametrize("frm", ALL_DTYPES, ids=str)
def test_can_cast_scalar_types_and_arrays(frm):
    # em.float32 etc. are NumPy's scalar types, whose `dtype` attribute is a
    # descriptor: can_cast must not take it for an array's dtype.
    for to in ALL_DTYPES:
        want = np.can_cast(frm, to)
        assert em.can_cast(frm.type, to.type) == want
        assert em.can_cast(em.zeros(2, dtype=frm), to) == want
    with pytest.raises(TypeError):
        em.can_cast(None, em.int8)


@pytest.mark.parametrize("dtype", ["float16", "float32", "float64", "complex64", "complex128"])
def test_finfo_fields_are_python_floats(dtype):
    f, n = em.finfo(getattr(em, dtype)), np.finfo(dtype)
    for name in ("eps", "max", "min", "smallest_normal", "tiny", "resolution"):
        v = getattr(f, name)
        assert type(v) is float and v == float(getattr(n, name))
    assert f.bits == n.bits and f.dtype == n.dtype and f.nmant == n.nmant  # the rest is NumPy's
    assert em.finfo(em.zeros(1, dtype=dtype)).eps == float(n.eps)
    with pytest.raises(ValueError, match="not inexact|not compatible with finfo"):  # NumPy 2.4 | 2.5
        em.finfo(em.int32)
