"""median, quantile, percentile (and nan* forms), average, nanvar/nanstd,
nanargmin/max, nancumsum/prod, ptp, cov, corrcoef against NumPy."""
import warnings

import numpy as np
import pytest

import ember as em
from helpers import assert_same, layouts, to_em

REAL = ["int8", "int64", "uint16", "float32", "float64"]
FLOATS = ["float32", "float64"]
METHODS = ["linear", "lower", "higher", "nearest", "midpoint", "inverted_cdf",
           "averaged_inverted_cdf", "closest_observation", "interpolated_inverted_cdf", "hazen",
           "weibull", "median_unbiased", "normal_unbiased"]


def _np(fn, *a, **k):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        return fn(*a, **k)


@pytest.mark.parametrize("dtype", REAL)
def test_median_layouts(device, rng, dtype):
    for name, a in layouts(rng, (5, 6), dtype):
        if a.size == 0:
            continue
        for axis in (None, 0, -1) if a.ndim else (None,):
            assert_same(em.median(to_em(a), axis=axis), np.median(a, axis=axis))


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("method", METHODS)
def test_quantile_methods(device, rng, dtype, method):
    a = rng.normal(size=(4, 7)).astype(dtype)
    # float32 data with float64 q: a float64 result at float32 precision
    tol = 1e-6 if dtype == "float32" else None
    for q in (0.0, 0.3, 0.5, 1.0, [0.1, 0.9], np.array([[0.25], [0.75]])):
        for axis in (None, 0, 1, (0, 1)):
            for kd in (False, True):
                assert_same(em.quantile(to_em(a), q, axis=axis, method=method, keepdims=kd),
                            np.quantile(a, q, axis=axis, method=method, keepdims=kd), rtol=tol)
    assert_same(em.percentile(to_em(a), [5, 50, 95], axis=1, method=method),
                np.percentile(a, [5, 50, 95], axis=1, method=method), rtol=tol)
    ai = (a * 10).astype(np.int16)
    assert_same(em.quantile(to_em(ai), 0.4, axis=0, method=method),
                np.quantile(ai, 0.4, axis=0, method=method))


@pytest.mark.parametrize("method", METHODS[5:])
def test_quantile_methods_edges(device, rng, method):
    """The Hyndman & Fan methods NumPy adds (index formulas on the sorted data,
    run with Ember's ops): one to three values, ties, integer q, int8 data,
    NaNs propagated, and the nan forms (counts per slice)."""
    for n in (1, 2, 3, 10):
        a = rng.normal(size=(3, n))
        a[1] = 1.5  # all equal
        for q in (0, 1, 0.0, 0.01, 0.5, 0.99, 1.0, [0.2, 0.8]):
            assert_same(em.quantile(to_em(a), q, axis=1, method=method),
                        np.quantile(a, q, axis=1, method=method))
    ai = rng.integers(-100, 100, (6, 5)).astype(np.int8)
    for q in (0, 0.35, np.array([0.1, 0.6])):
        assert_same(em.quantile(to_em(ai), q, axis=0, method=method),
                    np.quantile(ai, q, axis=0, method=method))
    b = rng.normal(size=(5, 6))
    b[rng.random(b.shape) < 0.3] = np.nan
    b[2] = np.nan
    for axis in (None, 0, 1):
        assert_same(em.quantile(to_em(b), 0.3, axis=axis, method=method),
                    np.quantile(b, 0.3, axis=axis, method=method))
        assert_same(em.nanquantile(to_em(b), 0.3, axis=axis, method=method),
                    _np(np.nanquantile, b, 0.3, axis=axis, method=method))
        assert_same(em.nanpercentile(to_em(b), [10, 70], axis=axis, method=method),
                    _np(np.nanpercentile, b, [10, 70], axis=axis, method=method))


@pytest.mark.parametrize("fn", ["nanmedian", "nanquantile", "nanpercentile"])
def test_nan_quantiles(device, rng, fn):
    a = rng.normal(size=(5, 6))
    a[rng.random(a.shape) < 0.3] = np.nan
    a[2] = np.nan  # an all-NaN row
    q = () if fn == "nanmedian" else ((0.3,) if fn == "nanquantile" else (30,))
    for axis in (None, 0, 1):
        assert_same(getattr(em, fn)(to_em(a), *q, axis=axis),
                    _np(getattr(np, fn), a, *q, axis=axis))


def test_median_nan_propagates_and_edges(device):
    a = np.array([[1.0, np.nan, 3.0], [4.0, 5.0, 6.0]])
    assert_same(em.median(to_em(a), axis=1), np.median(a, axis=1))
    assert_same(em.median(em.asarray(7.0)), np.median(np.float64(7.0)))
    assert_same(em.median(em.asarray([2, 2, 2])), np.median([2, 2, 2]))
    with pytest.warns(RuntimeWarning):
        r = em.median(em.zeros((0,)))
    assert np.isnan(r.get())


def test_quantile_bad_input(device):
    x = em.arange(5.0)
    with pytest.raises(ValueError, match="Quantiles must be in the range"):
        em.quantile(x, 1.5)
    with pytest.raises(ValueError, match="Percentiles must be in the range"):
        em.percentile(x, 101)
    with pytest.raises(np.exceptions.AxisError):
        em.median(x, axis=2)
    with pytest.raises(TypeError):
        em.percentile(em.asarray([1 + 1j]), 50)
    # NumPy's median sorts complex values (quantile does not take them)
    assert complex(em.median(em.asarray([1 + 1j, 3j, 2]))) == np.median([1 + 1j, 3j, 2])


def test_quantile_host_methods(device, rng):
    a = rng.normal(size=20)
    w = rng.random(20)
    assert_same(em.quantile(to_em(a), 0.4, method="inverted_cdf", weights=to_em(w)),
                np.quantile(a, 0.4, method="inverted_cdf", weights=w))


@pytest.mark.parametrize("dtype", ["int32", "float32", "float64", "complex128"])
def test_average(device, rng, dtype):
    a = (rng.normal(size=(3, 4)) * 10).astype(dtype)
    w = rng.random((3, 4))
    assert_same(em.average(to_em(a)), np.average(a))
    assert_same(em.average(to_em(a), axis=1, weights=to_em(w[0])), np.average(a, axis=1, weights=w[0]))
    assert_same(em.average(to_em(a), axis=0, weights=to_em(w), keepdims=True),
                np.average(a, axis=0, weights=w, keepdims=True))
    avg, scl = em.average(to_em(a), axis=0, weights=to_em(w), returned=True)
    navg, nscl = np.average(a, axis=0, weights=w, returned=True)
    assert_same(avg, navg)
    assert_same(scl, nscl)
    with pytest.raises(ZeroDivisionError):
        em.average(to_em(a), weights=em.zeros((3, 4)))
    with pytest.raises(TypeError, match="Axis must be specified"):
        em.average(to_em(a), weights=to_em(w[0]))


@pytest.mark.parametrize("dtype", FLOATS + ["complex64"])
def test_nanvar_nanstd(device, rng, dtype):
    a = rng.normal(size=(4, 5)).astype(dtype)
    a[0, 1] = np.nan
    a[3] = np.nan
    for axis in (None, 0, 1):
        for ddof in (0, 1):
            assert_same(em.nanvar(to_em(a), axis=axis, ddof=ddof), _np(np.nanvar, a, axis=axis, ddof=ddof))
            assert_same(em.nanstd(to_em(a), axis=axis, ddof=ddof, keepdims=True),
                        _np(np.nanstd, a, axis=axis, ddof=ddof, keepdims=True))
    ai = np.arange(12).reshape(3, 4)
    assert_same(em.nanvar(to_em(ai), axis=1), np.nanvar(ai, axis=1))


def test_nanarg_and_nancum(device, rng):
    a = rng.normal(size=(4, 5))
    a[1, 2] = a[0, 0] = np.nan
    for axis in (None, 0, 1):
        assert_same(em.nanargmin(to_em(a), axis=axis), np.nanargmin(a, axis=axis))
        assert_same(em.nanargmax(to_em(a), axis=axis), np.nanargmax(a, axis=axis))
        assert_same(em.nancumsum(to_em(a), axis=axis), np.nancumsum(a, axis=axis))
        assert_same(em.nancumprod(to_em(a), axis=axis), np.nancumprod(a, axis=axis))
    a[:, 3] = np.nan
    with pytest.raises(ValueError, match="All-NaN slice encountered"):
        em.nanargmin(to_em(a), axis=0)
    ai = np.array([3, 1, 2])
    assert_same(em.nanargmax(to_em(ai)), np.nanargmax(ai))


@pytest.mark.parametrize("dtype", REAL)
def test_ptp(device, rng, dtype):
    for name, a in layouts(rng, (3, 5), dtype):
        if a.size == 0:
            continue
        for axis in (None, 0) if a.ndim else (None,):
            assert_same(em.ptp(to_em(a), axis=axis), np.ptp(a, axis=axis))


@pytest.mark.parametrize("dtype", ["int16", "float32", "float64", "complex128"])
def test_cov_corrcoef(device, rng, dtype):
    a = (rng.normal(size=(3, 8)) * 5).astype(dtype)
    b = (rng.normal(size=(8,)) * 5).astype(dtype)
    tol = {"rtol": 1e-4} if dtype == "float32" else {"rtol": 1e-10}
    assert_same(em.cov(to_em(a)), np.cov(a), **tol)
    assert_same(em.cov(to_em(a.T), rowvar=False, bias=True), np.cov(a.T, rowvar=False, bias=True), **tol)
    assert_same(em.cov(to_em(a), to_em(b), ddof=2), np.cov(a, b, ddof=2), **tol)
    assert_same(em.cov(to_em(b)), np.cov(b), **tol)
    assert_same(em.corrcoef(to_em(a)), np.corrcoef(a), **tol)
    assert_same(em.corrcoef(to_em(a[0]), to_em(b)), np.corrcoef(a[0], b), **tol)
    fw = np.array([1, 2, 1, 1, 3, 1, 1, 2])
    assert_same(em.cov(to_em(a), fweights=to_em(fw)), np.cov(a, fweights=fw), **tol)
    with pytest.raises(ValueError, match="m has more than 2 dimensions"):
        em.cov(em.zeros((2, 2, 2)))


def test_cov_weights(device, rng):
    a = rng.normal(size=(3, 9))
    fw = rng.integers(0, 4, size=9)
    aw = rng.random(9)
    for kw in ({"fweights": fw}, {"aweights": aw}, {"fweights": fw, "aweights": aw},
               {"fweights": fw, "aweights": aw, "ddof": 0}, {"aweights": aw, "bias": True}):
        ekw = {k: (to_em(v) if isinstance(v, np.ndarray) else v) for k, v in kw.items()}
        assert_same(em.cov(to_em(a), **ekw), np.cov(a, **kw), rtol=1e-12)
    with pytest.raises(TypeError, match="fweights must be integer"):
        em.cov(to_em(a), fweights=to_em(aw))
    with pytest.raises(ValueError, match="aweights cannot be negative"):
        em.cov(to_em(a), aweights=to_em(-aw))
    with pytest.raises(RuntimeError, match="incompatible numbers of samples and fweights"):
        em.cov(to_em(a), fweights=to_em(fw[:3]))


def _other_device():
    for d in em.devices():
        if str(d) != "cpu":
            return d
    return None


@pytest.mark.parametrize("name", ["median", "percentile", "percentile_axis", "nanmedian",
                                  "quantile_hf", "nanvar", "nancumsum", "cov", "average"])
def test_cpu_arrays_stay_on_the_cpu_under_another_default_device(name):
    """The statistics' internal constants follow the input's device, not the default one
    (a CPU array under a GPU default raised 'arrays are on different devices' in median)."""
    dev = _other_device()
    if dev is None:
        pytest.skip("needs a second device (CUDA or OpenCL) to be the default")
    rng = np.random.default_rng(5)
    x = rng.random((6, 7))
    x[1, 2] = np.nan
    calls = {
        "median": lambda m, v: m.median(v, axis=1),
        "percentile": lambda m, v: m.percentile(v, 30),
        "percentile_axis": lambda m, v: m.percentile(v, [10, 90], axis=0),
        "nanmedian": lambda m, v: m.nanmedian(v, axis=1),
        "quantile_hf": lambda m, v: m.quantile(v, 0.3, axis=1, method="weibull"),
        "nanvar": lambda m, v: m.nanvar(v, axis=0),
        "nancumsum": lambda m, v: m.nancumsum(v, axis=1),
        "cov": lambda m, v: m.cov(v),
        "average": lambda m, v: m.average(v, axis=0, returned=True)[1],
    }
    a = em.asarray(x, device="cpu")
    with em.Device(str(dev)):
        got = calls[name](em, a)
    assert str(got.device) == "cpu"
    assert_same(got, calls[name](np, x))
