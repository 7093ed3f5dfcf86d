"""Reductions and scans against NumPy: every dtype, axis forms, keepdims,
the edge layouts, NaN rules, empty and 0-d inputs, out=, errors, accuracy,
the large-array (threaded) paths, and a hypothesis property test."""

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import ember as em
from helpers import ALL_DTYPES, assert_same, layouts, random_array, to_em

# NumPy warns on empty means and ddof >= n; Ember gives the same NaNs quietly.
pytestmark = pytest.mark.filterwarnings("ignore::RuntimeWarning")

AXES = [None, 0, -1, 1, (0, 2), (2, 0, 1), ()]
ARG_AXES = [None, 0, -1, 1]
SHAPE = (3, 4, 5)


def _rtol(dt):
    dt = np.dtype(dt)
    if dt.kind not in "fc":
        return 0
    return {2: 4e-3, 4: 2e-5, 8: 1e-12, 16: 1e-12}[dt.itemsize if dt.kind == "f" else dt.itemsize // 2]


def _scale(a, name):
    """A magnitude for the absolute tolerance: cancellation in sums makes a
    relative tolerance alone meaningless near zero."""
    m = np.abs(np.asarray(a).astype(np.complex128)).astype(np.float64)
    if m.size == 0:
        return 1.0
    if name in ("var", "std"):
        s = float(np.sum(m * m)) + float(np.sum(m)) ** 2 / m.size
        return max(1.0, np.sqrt(s) if name == "std" else s)
    if name in ("prod", "cumprod"):
        return 1.0
    return max(1.0, float(np.sum(m)))


def check(name, a, x, **kw):
    """Run numpy.<name>(a, **kw) and em.<name>(x, **kw) and compare (or
    compare the exceptions)."""
    try:
        want = getattr(np, name)(a, **kw)
    except Exception as e:  # noqa: BLE001 - the oracle decides what raises
        with pytest.raises(type(e)) as info:
            getattr(em, name)(x, **kw)
        if isinstance(e, ValueError):
            assert str(e).split(":")[0] in str(info.value), (str(e), str(info.value))
        return
    got = getattr(em, name)(x, **kw)
    if not isinstance(got, em.ndarray):
        assert got == want and type(got) is type(np.asarray(want).item()), (got, want)
        return
    w = np.asarray(want)
    rtol = _rtol(w.dtype)
    assert_same(got, w, rtol=rtol, atol=rtol * _scale(a, name))


def _data(rng, dtype, name):
    # Products stay small so that float rounding, not overflow, decides.
    if name in ("prod", "cumprod"):
        return dict(low=-2, high=2) if np.dtype(dtype).kind not in "bu" else dict(low=0, high=2)
    return {}


REDUCTIONS = ["sum", "prod", "mean", "var", "min", "max", "any", "all", "count_nonzero"]


@pytest.mark.parametrize("name", REDUCTIONS)
@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=str)
def test_reduction_every_dtype_axis_layout(device, rng, name, dtype):
    for lname, a in layouts(rng, SHAPE, dtype, **_data(rng, dtype, name)):
        x = to_em(a)
        for axis in AXES if a.ndim == 3 else [None]:
            for keepdims in (False, True):
                kw = dict(axis=axis, keepdims=keepdims)
                check(name, a, x, **kw)


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=str)
def test_std(device, rng, dtype):
    for lname, a in layouts(rng, SHAPE, dtype):
        x = to_em(a)
        for axis in AXES if a.ndim == 3 else [None]:
            check("std", a, x, axis=axis)
            check("std", a, x, axis=axis, ddof=1, keepdims=True)


@pytest.mark.parametrize("name", ["argmin", "argmax"])
@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=str)
def test_arg_every_dtype_axis_layout(device, rng, name, dtype):
    for lname, a in layouts(rng, SHAPE, dtype, low=-3, high=3):  # many ties: first one wins
        x = to_em(a)
        for axis in ARG_AXES if a.ndim == 3 else [None]:
            for keepdims in (False, True):
                check(name, a, x, axis=axis, keepdims=keepdims)


@pytest.mark.parametrize("name", ["cumsum", "cumprod"])
@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=str)
def test_scan_every_dtype_axis_layout(device, rng, name, dtype):
    for lname, a in layouts(rng, SHAPE, dtype, **_data(rng, dtype, name)):
        x = to_em(a)
        for axis in ARG_AXES if a.ndim == 3 else [None]:
            check(name, a, x, axis=axis)


def test_float16_scans_round_every_step(device, rng):
    """NumPy accumulates float16 in float16 (each partial sum rounded): bit-exact."""
    a = rng.uniform(-10, 10, (300, 500)).astype(np.float16)
    p = (a / 8 + 1).astype(np.float16)
    for axis in [None, 0, 1]:
        np.testing.assert_array_equal(em.cumsum(em.asarray(a), axis=axis).get(), np.cumsum(a, axis=axis))
        np.testing.assert_array_equal(em.cumprod(to_em(p.T).T, axis=axis).get(), np.cumprod(p, axis=axis))
    x = rng.random(1001).astype(np.float32)
    np.testing.assert_array_equal(em.cumsum(em.asarray(x)[::2], dtype="float16").get(),
                                  np.cumsum(x[::2], dtype="float16"))


@pytest.mark.parametrize("dtype", ["int8", "uint16", "float16", "float32", "complex64", "bool"])
def test_dtype_argument(device, rng, dtype):
    a = random_array(rng, (4, 6), dtype)
    x = em.asarray(a)
    for target in ["int64", "float32", "float64", "complex128"]:
        check("sum", a, x, axis=0, dtype=target)
        check("prod", a, x, axis=1, dtype=target)
        check("cumsum", a, x, axis=1, dtype=target)
        check("mean", a, x, axis=None, dtype=target)
    check("var", a, x, axis=1, dtype="float64")


def test_default_dtypes(device):
    cases = {"bool": "int64", "int8": "int64", "int32": "int64", "uint8": "uint64",
             "uint32": "uint64", "uint64": "uint64", "float16": "float16", "complex64": "complex64"}
    for src, want in cases.items():
        x = em.ones(3, dtype=src)
        assert em.sum(x).dtype == want and em.prod(x).dtype == want
        assert em.cumsum(x).dtype == want and em.cumprod(x).dtype == want
    assert em.mean(em.ones(3, dtype="int16")).dtype == "float64"
    assert em.mean(em.ones(3, dtype="float16")).dtype == "float16"
    assert em.var(em.ones(3, dtype="complex64")).dtype == "float32"
    assert em.argmax(em.ones(3, dtype="uint8")).dtype == "int64"
    assert em.any(em.ones(3, dtype="float32")).dtype == "bool"


# ---- NaN rules ---------------------------------------------------------------


@pytest.mark.parametrize("dtype", ["float16", "float32", "float64", "complex64", "complex128"])
def test_nan_propagation(device, rng, dtype):
    a = random_array(rng, (6, 7), dtype)
    a[2, 3] = np.nan
    a[4, 1] = np.nan
    a[0, 6] = np.nan
    if np.dtype(dtype).kind == "c":
        a[5, 5] = complex(1.0, np.nan)
    x = em.asarray(a)
    for name in ["min", "max", "argmin", "argmax", "sum"]:
        for axis in [None, 0, 1]:
            check(name, a, x, axis=axis)
    # The first NaN wins for arg ops, even when larger values come first.
    b = np.array([1.0, 5.0, np.nan, 7.0, np.nan], dtype=np.float64)
    assert int(em.argmax(em.asarray(b))) == 2 and int(em.argmin(em.asarray(b))) == 2


def test_nan_in_large_arrays(device, rng):
    a = rng.random(300_001)
    a[250_000] = np.nan
    x = em.asarray(a)
    assert np.isnan(float(em.max(x))) and np.isnan(float(em.min(x)))
    assert int(em.argmax(x)) == 250_000
    m = rng.random((2000, 300))
    m[1500, 7] = np.nan
    check("max", m, em.asarray(m), axis=0)
    check("argmin", m, em.asarray(m), axis=0)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_special_values_in_vector_paths(device, rng, dtype):
    """NaN and +-inf at the head, middle and tail of runs long enough for
    the vectorised min/max and the blocked arg loops."""
    for n in [31, 32, 33, 100, 1000, 5000]:
        for pos in sorted({0, 5, 17, n // 2, n - 1}):
            for special in [np.nan, np.inf, -np.inf]:
                a = random_array(rng, (n,), dtype)
                a[pos] = special
                if special is np.nan and n > 40:
                    a[n - 3] = np.nan  # a second NaN: the first one wins
                x = em.asarray(a)
                for name in ["min", "max", "argmin", "argmax"]:
                    check(name, a, x)
        m = random_array(rng, (3, n), dtype)
        m[1, n // 3] = np.nan
        m[2, 0] = np.inf
        for name in ["max", "argmin"]:
            check(name, m, em.asarray(m), axis=1)
            check(name, m, em.asarray(m), axis=0)


def test_arg_first_occurrence(device):
    a = np.array([[3, 1, 3, 1], [0, 0, 2, 2]], dtype=np.int32)
    x = em.asarray(a)
    for name in ["argmin", "argmax"]:
        for axis in [None, 0, 1]:
            check(name, a, x, axis=axis)
    assert int(em.argmax(em.asarray([True, False, True]))) == 0
    rng = np.random.default_rng(3)
    for dtype in ["int8", "uint16", "float32", "float64", "bool"]:
        big = random_array(rng, (20_000,), dtype, low=0, high=3)  # ties across blocks
        big[15_000] = 4 if dtype != "bool" else True
        for name in ["argmin", "argmax"]:
            check(name, big, em.asarray(big))
            check(name, big.reshape(200, 100), em.asarray(big.reshape(200, 100)), axis=0)
            check(name, big.reshape(200, 100), em.asarray(big.reshape(200, 100)), axis=1)


# ---- empty and 0-d -------------------------------------------------------------


def test_empty_reductions(device):
    e = np.zeros((0, 3), dtype=np.float64)
    x = em.asarray(e)
    for name in ["sum", "prod", "any", "all", "count_nonzero"]:
        check(name, e, x)
        check(name, e, x, axis=0)
        check(name, e, x, axis=1)
    assert em.sum(x).dtype == np.float64 and float(em.sum(x)) == 0.0
    assert float(em.prod(x)) == 1.0
    with pytest.raises(ValueError, match="zero-size array to reduction operation maximum which has no identity"):
        em.max(x)
    with pytest.raises(ValueError, match="zero-size array to reduction operation minimum which has no identity"):
        em.min(x, axis=0)
    assert em.max(x, axis=1).shape == (0,)
    with pytest.raises(ValueError, match="attempt to get argmax of an empty sequence"):
        em.argmax(x)
    with pytest.raises(ValueError, match="attempt to get argmin of an empty sequence"):
        em.argmin(x, axis=0)
    assert np.isnan(float(em.mean(x)))
    assert bool(em.all(em.zeros((0,)))) is True and bool(em.any(em.zeros((0,)))) is False
    # the process keeps working
    assert float(em.sum(em.ones(4))) == 4.0


def test_zero_d(device):
    a = np.array(2.5)
    x = em.asarray(a)
    for name in ["sum", "prod", "mean", "var", "min", "max", "argmin", "argmax", "any", "all",
                 "cumsum", "cumprod"]:
        check(name, a, x)
    for name in ["sum", "max", "mean"]:
        check(name, a, x, keepdims=True)
        check(name, a, x, axis=())
    # NumPy's ufunc reductions take axis 0 / -1 of a 0-d array as all of it; mean does not
    check("sum", a, x, axis=0)
    check("max", a, x, axis=-1)
    oob = "axis {} is out of bounds for array of dimension 0"
    with pytest.raises(np.exceptions.AxisError, match=oob.format(1)):
        em.sum(x, axis=1)
    with pytest.raises(np.exceptions.AxisError, match=oob.format(0)):
        em.mean(x, axis=0)


# ---- out= -------------------------------------------------------------------------


def test_out(device, rng):
    a = random_array(rng, (4, 5), np.float64)
    x = em.asarray(a)
    out = em.zeros(5)
    r = em.sum(x, axis=0, out=out)
    assert r is out
    assert_same(out, a.sum(axis=0))
    out2 = em.zeros((4, 1), dtype=np.float32)
    em.max(x, axis=1, keepdims=True, out=out2)
    assert_same(out2, a.max(axis=1, keepdims=True).astype(np.float32))
    big = em.zeros((4, 10))
    view = big[:, ::2]
    em.mean(x, axis=0, out=view[0])
    assert_same(big[0, ::2], a.mean(axis=0))
    o = em.zeros(4, dtype=np.int64)
    em.argmax(x, axis=1, out=o)
    assert_same(o, a.argmax(axis=1))
    c = em.zeros((4, 5))
    em.cumsum(x, axis=1, out=c)
    assert_same(c, a.cumsum(axis=1))


def test_out_errors(device):
    x = em.ones((4, 5))
    with pytest.raises(ValueError, match=r"output array has shape \(4,\) but sum gives shape \(5,\)"):
        em.sum(x, axis=0, out=em.zeros(4))
    with pytest.raises(ValueError, match=r"output array has shape \(5,\) but max gives shape \(1, 5\)"):
        em.max(x, axis=0, keepdims=True, out=em.zeros(5))
    o = em.zeros(5, dtype=np.int64)  # NumPy casts sum's result into out= unsafely
    assert em.sum(x, axis=0, out=o) is o and o.tolist() == [4] * 5
    with pytest.raises(ValueError, match=r"output array has shape \(4, 4\) but cumsum gives shape \(4, 5\)"):
        em.cumsum(x, axis=0, out=em.zeros((4, 4)))
    with pytest.raises(TypeError, match="out must be an ember.ndarray"):
        em.sum(x, axis=0, out=np.zeros(5))
    assert float(em.sum(x)) == 20.0


# ---- axis errors -------------------------------------------------------------------


def test_axis_errors(device):
    x = em.ones((2, 3))
    for bad in [2, -3, (0, 2)]:
        with pytest.raises(np.exceptions.AxisError, match="out of bounds for array of dimension 2") as info:
            em.sum(x, axis=bad)
        assert isinstance(info.value, ValueError) and isinstance(info.value, IndexError)
    with pytest.raises(np.exceptions.AxisError, match="axis 2 is out of bounds for array of dimension 2"):
        em.max(x, axis=2)
    with pytest.raises(np.exceptions.AxisError, match="axis -3 is out of bounds for array of dimension 2"):
        em.cumsum(x, axis=-3)
    with pytest.raises(np.exceptions.AxisError):
        x.argmax(axis=5)
    with pytest.raises(ValueError, match="duplicate value in 'axis'"):
        em.sum(x, axis=(0, -2))
    with pytest.raises(TypeError, match="cannot be interpreted as an integer"):
        em.sum(x, axis=1.5)
    assert em.sum(x, axis=(0, 1)).shape == ()


# ---- methods and Array API ------------------------------------------------------------


def test_methods(device, rng):
    a = random_array(rng, (3, 4), np.float32)
    x = em.asarray(a)
    assert_same(x.sum(axis=0), a.sum(axis=0))
    assert_same(x.mean(), np.asarray(a.mean()))
    assert_same(x.argmax(axis=1), a.argmax(axis=1))
    assert_same(x.cumsum(axis=1), a.cumsum(axis=1))
    assert_same(x.min(), np.asarray(a.min()))
    assert_same(x.max(axis=-1, keepdims=True), a.max(axis=-1, keepdims=True))
    assert_same(x.any(axis=0), a.any(axis=0))
    assert_same(x.all(), np.asarray(a.all()))
    assert_same(x.var(ddof=1), np.asarray(a.var(ddof=1)), atol=1e-5)
    assert_same(x.prod(axis=1), a.prod(axis=1))
    assert_same(em.var(x, correction=1), np.asarray(a.var(ddof=1)), atol=1e-5)
    assert em.amax is em.max and em.amin is em.min
    for n in em._reductions.__all__:
        assert hasattr(em, n)


def test_cumulative_array_api(device, rng):
    a = random_array(rng, (3, 4), np.int32)
    x = em.asarray(a)
    assert_same(em.cumulative_sum(x, axis=1), np.cumulative_sum(a, axis=1))
    assert_same(em.cumulative_sum(x, axis=0, include_initial=True),
                np.cumulative_sum(a, axis=0, include_initial=True))
    assert_same(em.cumulative_prod(x[0], include_initial=True),
                np.cumulative_prod(a[0], include_initial=True))
    with pytest.raises(ValueError, match="axis must be specified"):
        em.cumulative_sum(x)


def test_where(device, rng):
    a = random_array(rng, (4, 5), np.float64)
    m = rng.random((4, 5)) < 0.5
    x, mx = em.asarray(a), em.asarray(m)
    assert_same(em.sum(x, axis=0, where=mx), a.sum(axis=0, where=m))
    assert_same(em.prod(x, axis=1, where=mx), a.prod(axis=1, where=m))
    assert_same(em.any(em.asarray(a > 0), where=mx), np.asarray((a > 0).any(where=m)))
    assert_same(em.mean(x, axis=1, where=mx), a.mean(axis=1, where=m))
    row = m[0]  # a mask that broadcasts along the rows
    assert_same(em.sum(x, axis=1, where=em.asarray(row)), a.sum(axis=1, where=row))


def test_initial(device, rng):
    a = random_array(rng, (4, 5), np.float64)
    x = em.asarray(a)
    assert_same(em.sum(x, axis=0, initial=10.0), a.sum(axis=0, initial=10.0))
    assert_same(em.max(x, axis=0, initial=5.0), a.max(axis=0, initial=5.0))
    assert_same(em.max(em.zeros((0, 3)), axis=0, initial=1.0), np.zeros((0, 3)).max(axis=0, initial=1.0))


@pytest.mark.parametrize("dtype", ["float32", "float64", "complex128", "int16"])
def test_nan_functions(device, rng, dtype):
    a = random_array(rng, (4, 5), dtype)
    if np.dtype(dtype).kind in "fc":
        a[1, 2] = a[3, 0] = np.nan
        a[2, :] = np.nan  # an all-NaN row
    x = em.asarray(a)
    for axis in [None, 0, 1]:
        for name in ["nansum", "nanprod", "nanmean"] + (["nanmin", "nanmax"] if dtype != "complex128" else []):
            if name == "nanprod":
                continue  # products of 20 values of |x| <= 10 overflow float32 differently
            check(name, a, x, axis=axis)
    check("nanprod", a[:2, :3], em.asarray(a[:2, :3]), axis=1)


# ---- accuracy and the large (threaded) paths -------------------------------------------


def test_pairwise_accuracy(device):
    rng = np.random.default_rng(7)
    a = rng.random(1_000_000).astype(np.float32)
    exact = a.astype(np.float64).sum()
    got = float(em.sum(em.asarray(a)))
    np_err = abs(float(a.sum()) - exact)
    assert abs(got - exact) <= max(2 * np_err, 1e-6 * exact)
    # Same pairwise tree as NumPy: the same bits, whatever the thread count.
    assert np.float32(got) == a.sum()
    naive = np.float32(0)
    assert abs(got - exact) < 1e-3 * exact and np_err < 1e-3 * exact
    del naive


@pytest.mark.parametrize("dtype", ["float32", "float64", "int32", "float16", "complex64"])
def test_large_paths(device, rng, dtype):
    cases = [
        ((600_000,), [None, 0]),              # split over threads
        ((3, 100_000), [-1, 0, None]),        # few long rows; many short columns
        ((1000, 300), [0, 1, (0, 1)]),        # outer-mode chunks
        ((50, 40, 60), [(0, 2), (1,), (0, 1)]),
    ]
    for shape, axes in cases:
        a = random_array(rng, shape, dtype)
        x = em.asarray(a)
        for axis in axes:
            for name in ["sum", "max", "argmin"] if dtype != "float16" else ["sum", "max"]:
                if name == "argmin" and isinstance(axis, tuple) and len(axis) > 1:
                    continue
                check(name, a, x, axis=axis)
        t = a.T
        check("sum", t, to_em(t), axis=0)
        check("min", t, to_em(t), axis=None)
        if a.ndim == 2 and dtype in ("int32", "float64"):
            check("cumsum", a, x, axis=0)
            check("cumsum", a, x, axis=1)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_column_reductions_four_rows_a_pass(device, rng, dtype):
    # axis=0 of a C matrix: four rows a pass (accum4) with the rest a row at a time, on
    # one thread and on the threads' bands; row counts around multiples of 4 and 1024^2
    for rows, cols in ((1, 7), (3, 5), (4, 9), (5, 33), (7, 1), (13, 130), (1024, 1024),
                       (4099, 70), (2, 70_000)):
        a = random_array(rng, (rows, cols), dtype)
        x = em.asarray(a)
        for name in ("sum", "mean", "max", "min"):
            check(name, a, x, axis=0)
        if rows > 4:  # NaN and inf in the four-row kernel or its tail
            s = a.copy()
            s[rows - 2, 0], s[1, cols - 1] = np.nan, np.inf
            for name in ("max", "min"):
                check(name, s, em.asarray(s), axis=0)
            tol = _rtol(dtype)
            np.testing.assert_allclose(em.sum(em.asarray(s), axis=0).get(), s.sum(axis=0),
                                       rtol=tol, atol=tol * _scale(a, "sum"))
        check("prod", np.clip(a, 0.5, 1.5), em.asarray(np.clip(a, 0.5, 1.5)), axis=0)
        # not the kernel's layout: strided columns, reversed rows, rows of a 3-d array
        check("sum", a[:, ::2], x[:, ::2], axis=0)
        check("max", a[::-1], x[::-1], axis=0)
    b = random_array(rng, (9, 6, 10), dtype)
    check("sum", b, em.asarray(b), axis=(0, 1))
    check("min", b, em.asarray(b), axis=0)
    if dtype != "float32":  # float64's reference below would be float64 itself
        return
    big = rng.random((4096, 256)).astype(dtype) + 1  # the float32 sum's accuracy class
    got = em.sum(em.asarray(big), axis=0).get().astype(np.float64)
    exact = big.astype(np.float64).sum(axis=0)
    np_err = np.abs(big.sum(axis=0).astype(np.float64) - exact)
    assert np.abs(got - exact).max() <= 2 * np_err.max() + 4 * np.finfo(dtype).eps * exact.max()


@pytest.mark.parametrize("dtype", ["float64", "int16", "complex128"])
def test_zero_stride_views(device, rng, dtype):
    """Broadcast views (stride 0) reduced along and across the repeated axis."""
    row = random_array(rng, (1, 7), dtype)
    a = np.broadcast_to(row, (5, 7))
    x = em.asarray(row)._broadcast_to((5, 7))
    assert x.strides[0] == 0
    for name in ["sum", "max", "argmax", "cumsum", "mean"]:
        for axis in [None, 0, 1]:
            check(name, a, x, axis=axis)
    big = np.broadcast_to(random_array(rng, (300_000, 1), dtype), (300_000, 3))
    xb = em.asarray(np.ascontiguousarray(big[:, :1]))._broadcast_to((300_000, 3))
    check("sum", big, xb, axis=0)
    check("sum", big, xb, axis=1)


def test_seed_expression(device, rng):
    a = rng.random((20, 10, 1000))
    x = em.asarray(a)
    got = em.sum(x * x, axis=-1)
    assert_same(got, np.sum(a * a, axis=-1))


# ---- property test --------------------------------------------------------------------


@st.composite
def _case(draw):
    nd = draw(st.integers(0, 4))
    shape = tuple(draw(st.lists(st.integers(0, 5), min_size=nd, max_size=nd)))
    axis = None
    if nd and draw(st.booleans()):
        axes = draw(st.lists(st.integers(0, nd - 1), unique=True, max_size=nd))
        axis = tuple(ax - nd if draw(st.booleans()) else ax for ax in axes)
        if len(axis) == 1 and draw(st.booleans()):
            axis = axis[0]
    name = draw(st.sampled_from(["sum", "prod", "max", "min", "mean", "any", "all", "count_nonzero"]))
    dtype = draw(st.sampled_from(["float64", "int32", "uint8", "bool", "complex64"]))
    return shape, axis, name, dtype, draw(st.booleans()), draw(st.booleans())


@settings(max_examples=150, deadline=None)
@given(_case())
def test_property_random_shapes_and_axes(case):
    shape, axis, name, dtype, keepdims, flip = case
    rng = np.random.default_rng(abs(hash(case)) % 2**32)
    a = random_array(rng, shape, dtype, **_data(rng, dtype, name))
    if flip and a.ndim:
        a = a[::-1]
    kw = dict(axis=axis, keepdims=keepdims)
    if name == "count_nonzero":
        kw = dict(axis=axis, keepdims=keepdims)
    check(name, a, to_em(a), **kw)


def test_count_nonzero_is_an_array(device):
    # The Array API asks for a 0-d array where NumPy gives a Python int.
    x = em.asarray([[0, 1, 2], [3, 0, 0]])
    r = em.count_nonzero(x)
    assert isinstance(r, em.ndarray) and r.shape == () and r.dtype == np.int64
    assert int(r) == 3 == r
    assert_same(em.count_nonzero(x, axis=0), np.count_nonzero(x.get(), axis=0).astype(np.int64))
    assert_same(em.count_nonzero(em.zeros((0, 2))), np.asarray(0, dtype=np.int64))


@pytest.mark.parametrize("dt", ["bool", "int8", "uint16", "int32", "int64", "float16",
                                "float32", "float64", "complex64", "complex128"])
def test_count_nonzero_whole_array(dt):
    """count_nonzero over every axis of a contiguous array (the CPU's one-pass
    bit test, in parallel past 65536 elements): -0.0 counts as zero, NaN and
    a complex with only one nonzero part as nonzero; strided, keepdims and
    empty inputs give NumPy's counts too."""
    rng = np.random.default_rng(5)
    for n in (0, 1, 7, 200_003):
        a = (rng.normal(size=n) * 3).astype(dt) if dt != "bool" else rng.random(n) < 0.5
        if n:
            a[::5] = 0
            if dt.startswith("float") or dt.startswith("complex"):
                a[::11] = -0.0
                a[1::13] = np.nan
            if dt.startswith("complex"):
                a[2::9] = complex(-0.0, -0.0)
                a[3::9] = complex(0.0, -2.0)
                a[4::9] = complex(-1.5, -0.0)
        x = em.asarray(a)
        assert int(em.count_nonzero(x)) == np.count_nonzero(a)
        assert int(em.count_nonzero(x[::-3])) == np.count_nonzero(a[::-3])
        if n % 7 == 0:
            b = a.reshape(-1, 7)
            assert_same(em.count_nonzero(em.asarray(b), axis=(0, 1), keepdims=True),
                        np.count_nonzero(b, axis=(0, 1), keepdims=True).astype(np.int64))
