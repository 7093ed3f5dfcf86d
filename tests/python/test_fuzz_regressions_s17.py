"""Regression tests for the five findings session 16's fuzzing of the newer surface wrote
down (docs/fuzzing.md): each pins NumPy's outcome (value, dtype, shape, the sign of zeros,
or the exception type) on several dtypes and edge shapes.  The full matrices run on the
CPU; the `device` tests take a few cases of each through every device's own path."""
import warnings

import numpy as np
import pytest

import ember as em

DTYPES = ["bool", "int8", "uint8", "int16", "uint16", "int32", "uint32", "int64", "uint64",
          "float16", "float32", "float64", "complex64", "complex128"]


def _run(f, conv, args):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            return f(*[conv(a) if isinstance(a, np.ndarray) else a for a in args])
        except Exception as e:  # noqa: BLE001 -- the exception type is the outcome
            return type(e)


def _same(want, got):
    """got (Ember's) is want (NumPy's): the exception type, or dtype, shape, values with
    NaNs equal and the sign of each zero."""
    if isinstance(want, tuple):
        assert isinstance(got, tuple) and len(got) == len(want)
        for w, g in zip(want, got):
            _same(w, g)
        return
    if isinstance(want, type) or isinstance(got, type):
        assert got is want, "NumPy: %r, Ember: %r" % (want, got)
        return
    want = np.asarray(want)
    got = np.asarray(em.asnumpy(got) if isinstance(got, em.ndarray) else got)
    assert (got.dtype, got.shape) == (want.dtype, want.shape), (got, want)
    np.testing.assert_array_equal(got, want)
    if want.dtype.kind == "f":
        z = want == 0
        assert np.array_equal(np.signbit(got[z]), np.signbit(want[z])), (got, want)


def _check(name, *args, **kw):
    want = _run(lambda *a: getattr(np, name)(*a, **kw), np.asarray, args)
    got = _run(lambda *a: getattr(em, name)(*a, **kw), em.asarray, args)
    _same(want, got)


def _sample(dt):
    x = np.array([-3, 0, 1, 2, 2, 4, 1]).astype(dt)
    if np.dtype(dt).kind in "fc":
        x = np.concatenate([x, np.array([0.1, np.nan], dtype=dt)])
    return x


# ---- 1. the set operations with a Python scalar operand (NEP 50) ----

SCALARS = [0, 1, 300, -1, 70000, 2**40, 2**63, 2**70, True, 0.1, 3.5, 1e300, float("nan"),
           float("inf"), 1j, 2 - 0.5j]


@pytest.mark.parametrize("dt", DTYPES)
@pytest.mark.parametrize("f", ["union1d", "intersect1d", "setdiff1d", "setxor1d", "isin"])
def test_setops_python_scalar_operand(dt, f):
    # union1d(int16, 300) was int64 (NumPy's concatenate keeps int16: the scalar is weak),
    # union1d(float32, 1j) complex128 (NumPy complex64); the others take asarray of each
    # operand, strong in NumPy too (intersect1d(int16, 300) is int64 there as here)
    x = _sample(dt)
    for s in SCALARS:
        if s == 2**70 and f != "union1d":
            continue  # NumPy's asarray makes an object array there (no Ember dtype)
        _check(f, x, s)
        _check(f, s, x)
    for s, t in [(1, 2.5), (True, 6), (True, False), (3, 3)]:
        if f != "isin":  # Ember's isin wants an ember array (a TypeError by design)
            _check(f, s, t)


@pytest.mark.parametrize("dt,s", [("int16", 300), ("float32", 1j), ("uint8", -1),
                                  ("int8", 70000), ("float32", 2)])
def test_union1d_python_scalar_on_device(device, dt, s):
    x = np.array([5, 1, 0, 1]).astype(dt)
    _check("union1d", x, s)
    _check("union1d", s, x[:0])
    _check("union1d", s, x[::-2])


@pytest.mark.parametrize("dt", ["int8", "uint16", "float32"])
def test_isin_python_scalar_on_device(device, dt):
    # NumPy's isin takes asarray of a scalar (strong): 2**40 is not 0 in an int8
    # array, 2**63 is uint64 (found on NVIDIA's OpenCL, where the device path wrapped)
    x = np.array([-3, 0, 1, 2, 4]).astype(dt)
    for s in (2**40, 2**63, 300, 70000, -1, 0.5, 1j):
        _check("isin", x, s)


# ---- 2. histogram of complex values: NumPy's complex order ----

@pytest.mark.parametrize("dt", ["complex64", "complex128"])
@pytest.mark.parametrize("kw", [dict(bins=3), dict(bins=[-3, -1, 0, 0.5, 4]), dict(bins=[0, 1]),
                                dict(bins=8, range=(0, 10)), dict(bins=3, range=(1, 1)),
                                dict(bins=[0.5, 1, 2]), dict(bins=2, density=True)])
def test_histogram_of_complex_values(dt, kw):
    # NumPy bins 0.5-1j below the edge 0.5 (real part, then imaginary); Ember binned by
    # the real part alone (seed 35001982).  Now NumPy's on the host, listed in
    # docs/host_fallbacks.txt
    x = np.array([0.5 - 1j, 0.5 + 1j, 1, -1 + 2j, 0.2 + 0.3j, 4, 0.5, 2 - 1j, 1 + 1j]).astype(dt)
    _check("histogram", x, **kw)
    _check("histogram", x.reshape(3, 3)[::-1, ::2], **kw)
    _check("histogram", x[:1], **kw)
    _check("histogram", x, weights=np.arange(9.0), **kw)
    if "range" in kw or not isinstance(kw["bins"], int):
        _check("histogram", x[:0], **kw)  # an empty input needs a range or edges
    _check("histogram", np.array([np.nan + 0j, 1]).astype(dt), bins=[0, 1, 2])


def test_histogram_of_complex_values_on_device(device):
    x = np.array([0.5 - 1j, 0.5 + 1j, 1, -1 + 2j, 0.2 + 0.3j, 4])
    for bins in (3, [-3, -1, 0, 0.5, 4]):
        _check("histogram", x, bins=bins)
    _check("histogram", x.astype(np.complex64), bins=3, range=(0, 2))


# ---- 3., 5. quantile/percentile: NumPy's lerp and its integer virtual index ----

QFUNCS = ["quantile", "percentile", "nanquantile", "nanpercentile"]
METHODS = ["linear", "lower", "higher", "nearest", "midpoint", "inverted_cdf",
           "averaged_inverted_cdf", "closest_observation", "interpolated_inverted_cdf",
           "hazen", "weibull", "median_unbiased", "normal_unbiased"]
# one method of each rule NumPy's _quantile has (its index, its weight at the bounds)
SOME = ["linear", "lower", "nearest", "midpoint", "inverted_cdf", "averaged_inverted_cdf",
        "closest_observation", "weibull", "hazen"]
QS = [0, 1, 0.0, 1.0, 0.5, 0.3, True, [0, 1], [0, 0.5, 1], (1, 0)]
EDGES = [[1, np.inf], [-np.inf, 1, np.inf], [np.inf], [-np.inf, -np.inf], [-0.0],
         [-0.0, -0.0, 1.0], [1, np.nan, 2], [np.inf, np.nan], [[1, np.inf], [np.nan, 2],
                                                                 [-np.inf, -0.0]]]


def _q(f, q):
    """q scaled for percentile, of the same kind (an int stays an int)."""
    if "percentile" not in f or isinstance(q, bool):
        return q
    if isinstance(q, (list, tuple)):
        return type(q)(v * 100 for v in q)
    return q * 100


@pytest.mark.parametrize("f", QFUNCS)
@pytest.mark.parametrize("dt", ["float16", "float32", "float64"])
@pytest.mark.parametrize("xi", range(len(EDGES)))
def test_quantile_infinities_follow_numpys_lerp(f, dt, xi):
    # quantile([1, inf], 0) was nan (the lerp's 1 + inf * 0), NumPy 1.0: an integer q
    # makes (n - 1) * q an integer index that NumPy takes without a lerp; where it lerps
    # (a float q) its weight at the top is vi + 1 (against the index -1), which
    # decides the NaNs and the sign of zeros there
    x = np.array(EDGES[xi], dtype=dt)
    for q in QS:
        if q is True and np.isnan(x).any():
            # NumPy: a 0-d result of a non-weak q (an array, a bool) with a NaN slice is
            # a[-1], of a's dtype, else the lerp's (data-dependent: not followed)
            continue
        for m in SOME:
            for ax in ([None] if x.ndim == 1 else [None, 1]):
                _check(f, x, _q(f, q), axis=ax, method=m)


@pytest.mark.parametrize("f", QFUNCS)
@pytest.mark.parametrize("dt", ["bool", "int8", "uint8", "int64", "uint64", "float32"])
@pytest.mark.parametrize("shape", [(), (1,), (5,), (3, 4), (2, 0)])
def test_quantile_dtype_rules(f, dt, shape):
    # booleans keep bool with a method that picks a value (NumPy's take) and raise
    # TypeError where NumPy's lerp would subtract them; an integer q array or list with
    # linear is NumPy's integer index too: quantile(uint8, [0, 1]) is uint8
    rng = np.random.default_rng(17)
    x = rng.integers(0, 50, shape).astype(dt)
    if x.size == 0:
        return  # NumPy raises IndexError (quantile) or warns and gives NaN (nanquantile)
    for q in [0, 1, [0, 1], np.array([1, 0]), True, 0.5, [0.25, 1.0],
              np.array([0.5], np.float32)]:
        for m in METHODS if x.ndim < 2 else SOME:
            for ax in [None] + list(range(x.ndim))[-1:]:
                _check(f, x, _q(f, q), axis=ax, method=m)
            _check(f, x[::-1] if x.ndim == 1 else x.T, _q(f, q), axis=0 if x.ndim else None,
                   method=m, keepdims=True)


@pytest.mark.parametrize("f", ["median", "nanmedian"])
@pytest.mark.parametrize("dt", ["bool", "int8", "float32", "float64"])
def test_median_stays_a_mean(f, dt):
    # median is NumPy's mean of the middle values, not its quantile's lerp: median([1,
    # inf]) is inf, median of booleans a float
    for x in ([1, np.inf], [np.inf], [-np.inf, 1, 2, np.inf], [True, False], [-0.0, -0.0],
              [[1, 2], [np.inf, 0]]):
        x = np.array(x)
        if dt == "bool" or np.dtype(dt).kind in "iu":
            x = np.where(np.isfinite(x), x, 7).astype(dt)
        else:
            x = x.astype(dt)
        for ax in ([None] if x.ndim == 1 else [None, 0, 1]):
            _check(f, x, axis=ax)


@pytest.mark.parametrize("f", QFUNCS)
def test_quantile_edges_on_device(device, f):
    for x in ([1, np.inf], [-np.inf, 1, np.inf], [-0.0, -0.0], [[1, np.inf], [np.nan, 2]]):
        x = np.array(x, dtype=np.float32)
        for q, m in [(0, "linear"), (1.0, "linear"), ([0, 1], "linear"), (0.0, "midpoint"),
                     (0.5, "hazen"), (1, "weibull")]:
            _check(f, x, _q(f, q), axis=None if x.ndim == 1 else 1, method=m)
    b = np.array([[True, False, True], [False, False, True]])
    for q, m in [(0.5, "lower"), ([0, 1], "linear"), (1, "nearest"), (0.5, "linear")]:
        _check(f, b, _q(f, q), axis=None, method=m)
        _check(f, b, _q(f, q), axis=1, method=m)
    _check(f, np.array([3, 1, 2], np.uint8), _q(f, [0, 1]))


# ---- 4. compress of an empty array with a true entry past the axis ----

@pytest.mark.parametrize("dt", ["bool", "int32", "float64", "complex64"])
@pytest.mark.parametrize("shape", [(), (0,), (3,), (0, 3), (2, 0), (3, 2), (2, 0, 3), (0, 0)])
def test_compress_of_empty_past_the_axis(dt, shape):
    # NumPy's take checks its indices in the loop over the axes before the axis: where
    # that runs no time (compress([0, 0, 0, 1], zeros((0, 3)), axis=1)) a true entry
    # past the axis is one more empty slice, (0, 1); Ember raised IndexError
    # (seed 40002267).  A 0-d takes axis 0 and -1 as a 1-d of one element
    x = np.arange(int(np.prod(shape))).reshape(shape).astype(dt)
    for c in ([], [True], [False], [True, True], [False, True], [True, False, True],
              [False, False, False, True], [True] * 5):
        c = np.array(c, dtype=bool)
        for ax in [None, 0, -1] + list(range(1, x.ndim)):
            _check("compress", c, x, axis=ax)


def test_compress_of_empty_on_device(device):
    _check("compress", np.array([False, False, False, True]), np.zeros((0, 3)), axis=1)
    _check("compress", np.array([True, True, True, True]), np.zeros((2, 0, 3), np.int32), axis=2)
    _check("compress", np.array([True, False, True]), np.zeros((2, 0)), axis=0)
    _check("compress", np.array([True]), np.array(3.5), axis=0)


# ---- 6. bincount of no samples with weights of another length (seed 50002508) ----

@pytest.mark.parametrize("wdt", ["float64", "float32", "int64", "complex128"])
@pytest.mark.parametrize("nw", [0, 2])
def test_bincount_of_no_samples_ignores_the_weights(wdt, nw):
    """NumPy returns the int64 counts of no samples before it reads the weights."""
    for minlength in (0, 3):
        _check("bincount", np.zeros(0, np.int64), weights=np.ones(nw, wdt), minlength=minlength)
    _check("bincount", np.array([1, 0], np.int64), weights=np.ones(3, "float64"))  # still raises


def test_bincount_of_no_samples_on_device(device):
    _check("bincount", np.zeros(0, np.int32), weights=np.ones(2))
    _check("bincount", np.zeros(0, np.int64), weights=np.ones(1, "complex128"), minlength=2)
