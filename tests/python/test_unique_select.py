"""The device unique pass (_ember.unique_sorted), the radix select behind
median/percentile/quantile (_ember.select_kth) and the one-sort set
operations, against NumPy, on each device that compiles kernels (opencl:0
under PoCL here and in CI, cuda:0 on a GPU machine); the composed paths
they replace (EMBER_UNIQUE_FUSED=0, EMBER_SELECT=0) are checked to agree.
A few dtypes only on OpenCL: every dtype is another set of PoCL builds."""
import os

import numpy as np
import pytest

import ember as em
from helpers import assert_same, special_values, to_em, views_1d

DTYPES = ["bool", "int8", "uint16", "int64", "float16", "float32", "float64", "complex64"]
REAL = [d for d in DTYPES if d != "complex64"]


def _devices():
    devs = []
    if em.cuda.is_available():
        devs.append("cuda:0")
    if em.opencl.is_available():
        devs.append("opencl:0")
    return devs


@pytest.fixture(params=_devices() or [pytest.param("none", marks=pytest.mark.skip(
    reason="no device that compiles kernels"))])
def dev(request):
    with em.Device(request.param):
        yield request.param


def _check_unique(x, a):
    for got, want in zip(em.unique(x, return_index=True, return_inverse=True, return_counts=True),
                         np.unique(a, return_index=True, return_inverse=True, return_counts=True)):
        assert_same(got, want)
    assert_same(em.unique(x), np.unique(a))
    if a.dtype.kind != "c":  # NumPy's complex NaN grouping is its own
        assert_same(em.unique_values(x), np.unique(a, equal_nan=False))
        for got, want in zip(em.unique_counts(x), np.unique_counts(a)):
            assert_same(got, want)
        # Every NaN its own value: which NaN gets which rank is the sort's
        # (NumPy's is not stable there), so the NaN ranks are checked by
        # rebuilding a from them.
        r, w = em.unique_all(x), np.unique_all(a)
        assert_same(r.values, w.values)
        assert_same(r.counts, w.counts)
        vals, idx, inv = np.asarray(r.values), np.asarray(r.indices), np.asarray(r.inverse_indices)
        assert inv.shape == a.shape and inv.dtype == np.int64 and idx.dtype == np.int64
        assert np.array_equal(vals[inv], a, equal_nan=a.dtype.kind == "f")
        assert np.array_equal(a.reshape(-1)[idx], vals, equal_nan=a.dtype.kind == "f")
        real = ~np.isnan(vals) if a.dtype.kind == "f" else np.ones(vals.shape, bool)
        assert np.array_equal(idx[real], w.indices[real])
        v2, inv2 = em.unique_inverse(x)
        assert_same(v2, w.values)
        assert np.array_equal(np.asarray(inv2), inv)


@pytest.mark.parametrize("dtype", DTYPES)
def test_unique_specials_and_layouts(dev, dtype):
    rng = np.random.default_rng(1)
    # 2 x 4096 + 58: several tiles of the pass, one partial
    a = special_values(rng, 8250, dtype)
    for v in views_1d(a, two_d=True):
        _check_unique(to_em(v), v)


@pytest.mark.parametrize("dtype", ["float32", "int64", "bool"])
@pytest.mark.parametrize("n", [0, 1, 2, 4095, 4096, 4097])
def test_unique_edges(dev, dtype, n):
    rng = np.random.default_rng(n)
    for a in (special_values(rng, n, dtype), np.zeros(n, dtype), np.ones((n, 1), dtype)):
        _check_unique(to_em(a), a)
    _check_unique(to_em(np.array(3, dtype)), np.array(3, dtype))  # 0-d


def test_unique_nan_payloads_and_signed_zero(dev):
    a = np.array([np.nan, 0.0, -np.nan, -0.0, 1.0, np.nan, -0.0], np.float32)
    a[0] = np.frombuffer(np.uint32(0x7fc00001).tobytes(), np.float32)[0]  # another NaN payload
    x = em.asarray(a)
    assert_same(em.unique(x), np.unique(a))
    assert em.unique(x).shape == (2 + 1,)  # 0 (one of its signs), 1, one NaN
    assert em.unique_values(x).shape == (2 + 3,)  # every NaN its own value
    _check_unique(x, a)


def test_unique_fused_matches_composed(dev, monkeypatch):
    rng = np.random.default_rng(7)
    a = special_values(rng, 5000, "float32")
    x = em.asarray(a)
    fused = em.unique(x, return_index=True, return_inverse=True, return_counts=True)
    monkeypatch.setenv("EMBER_UNIQUE_FUSED", "0")
    composed = em.unique(x, return_index=True, return_inverse=True, return_counts=True)
    for f, c in zip(fused, composed):
        assert_same(f, np.asarray(c))


@pytest.mark.parametrize("dtype", DTYPES + ["complex128"])
@pytest.mark.parametrize("n", [1, 1025, 2047, 4097, 8193, 3 * 8192 + 5, 300007])
def test_unique_one_pass_matches_three(dev, monkeypatch, dtype, n):
    """CUDA's single pass (tiles of 1024 to 8192 elements by dtype width,
    decoupled look-back over up to ~300 tiles) and the three kernels
    (EMBER_UNIQUE_PASS=3; on OpenCL both name the three), the single pass
    also in two other forms (EMBER_UNIQUE_TUNE: 64-byte tiles without the
    next tile's loads in flight, two look-back windows a round trip; 128-byte
    tiles with them), against NumPy: runs of equal values, specials, and
    every value distinct."""
    rng = np.random.default_rng(n + 5)
    a = special_values(rng, n, dtype)
    kind = np.dtype(dtype).kind
    if kind in "fc" and n > 100:  # distinct values, then the specials' runs
        a[: n // 2] = rng.standard_normal(n // 2).astype(dtype)
    elif kind in "iu" and n > 100:
        a[: n // 2] = rng.integers(0, 100, n // 2).astype(dtype)
    x = to_em(a)
    for ps, tune in (("1", ""), ("1", "64,2,0,0"), ("1", "128,2,1,0"), ("3", "")):
        monkeypatch.setenv("EMBER_UNIQUE_PASS", ps)
        monkeypatch.setenv("EMBER_UNIQUE_TUNE", tune)
        assert_same(em.unique(x), np.unique(a))
        got = em.unique(x, return_index=True, return_inverse=True, return_counts=True)
        want = np.unique(a, return_index=True, return_inverse=True, return_counts=True)
        assert_same(got[0], want[0])
        assert_same(got[3], want[3])
        inv, idx = np.asarray(got[2]), np.asarray(got[1])
        vals = np.asarray(got[0])
        assert np.array_equal(vals[inv], a, equal_nan=True)
        assert np.array_equal(a[idx], vals, equal_nan=True)
        if kind != "c":
            assert_same(em.unique_values(x), np.unique(a, equal_nan=False))


@pytest.mark.parametrize("dtype", REAL)
@pytest.mark.parametrize("n", [0, 1, 4097, 3 * 9216 + 5])
def test_unique_inverse_without_index(dev, dtype, n):
    """unique's inverse without its first indices (the permutation's
    scatter), with and without the counts, equal to NumPy's; n = 3 sort
    tiles + 5 on CUDA."""
    rng = np.random.default_rng(n + 11)
    a = special_values(rng, n, dtype)
    if np.dtype(dtype).kind in "iuf" and n > 100:  # many distinct values as well
        a[: n // 2] = rng.standard_normal(n // 2).astype(dtype) * 1000 if np.dtype(
            dtype).kind == "f" else rng.integers(-100, 100, n // 2).astype(dtype)
    for v in (a, a[::-1], a.reshape(-1, 1)[::2]):
        x = to_em(v)
        got = em.unique(x, return_inverse=True, return_counts=True)
        want = np.unique(v, return_inverse=True, return_counts=True)
        for g, w in zip(got, want):
            assert_same(g, w)
        gv, gi = em.unique(x, return_inverse=True)
        assert_same(gi, want[1])


def test_unique_inverse_nan_kept_apart_by_permutation(dev):
    """equal_nan=False: every NaN its own value, so the inverse keeps the
    permutation route (a search would send every NaN to the first)."""
    a = np.array([np.nan, 1.0, np.nan, -0.0, 0.0, 1.0], np.float32)
    v, inv = em.unique(em.asarray(a), return_inverse=True, equal_nan=False)
    w, winv = np.unique(a, return_inverse=True, equal_nan=False)
    assert_same(v, w)
    assert np.array_equal(np.asarray(v)[np.asarray(inv)], a, equal_nan=True)
    assert len(set(np.asarray(inv)[np.isnan(a)].tolist())) == 2


def test_unique_sorted_errors(dev):
    s = em.asarray(np.arange(6.0))
    with pytest.raises(ValueError, match="need s's permutation"):
        em._ember.unique_sorted(s, None, True, True, False, False)
    with pytest.raises(ValueError, match="1-D and C-contiguous"):
        em._ember.unique_sorted(s[::2], None, True, False, False, False)
    with pytest.raises(TypeError, match="perm must be"):
        em._ember.unique_sorted(s, 3, True, False, False, False)


# ---- the radix select --------------------------------------------------------------

@pytest.mark.parametrize("dtype", REAL)
def test_select_kth_every_rank(dev, dtype):
    rng = np.random.default_rng(3)
    a = special_values(rng, 300, dtype)
    x = em.asarray(a)
    ks = list(range(300))
    got = np.asarray(em._ember.select_kth(x, ks))
    want = np.sort(a)
    if a.dtype.kind == "f":  # -0.0 and 0.0 are equal: compare as values
        assert np.array_equal(got, want, equal_nan=True)
    else:
        assert_same(em._ember.select_kth(x, ks), want)
    # a non-contiguous view, the ranks in any order and repeated
    v = a[::-3]
    got = np.asarray(em._ember.select_kth(to_em(v), [5, 0, 5, len(v) - 1]))
    assert np.array_equal(got, np.sort(v)[[5, 0, 5, len(v) - 1]], equal_nan=True)


@pytest.mark.parametrize("dtype", ["int32", "uint64", "float32", "float64"])
def test_select_kth_shared_prefixes(dev, dtype):
    """Selections whose keys share their top digits count one histogram (the
    first of them with that prefix): ranks in any order, repeated, adjacent
    (a median's two middle ones), split at a low digit or at the first,
    eight to a launch and more."""
    rng = np.random.default_rng(17)
    n = 20001
    if np.dtype(dtype).kind == "f":
        a = (rng.standard_normal(n) * 1e3).astype(dtype)
        a[::7] = np.round(a[::7])
        a[::501] = np.nan
    else:
        hi = 2**31 - 1 if dtype == "int32" else 2**62
        a = rng.integers(0, hi, n).astype(dtype)
        a[::3] = a[0]  # a third of the keys share every digit
    s = np.sort(a)
    x = em.asarray(a)
    for ks in ([n // 2, n // 2 - 1], [n // 2 - 1, n // 2, n // 2 + 1, n // 2],
               [n - 1, 0, n // 2, 7, n // 2 + 1, 3, n - 2, n // 2],
               list(rng.integers(0, n, 13)), [n // 3] * 9):
        got = np.asarray(em._ember.select_kth(x, [int(k) for k in ks]))
        assert np.array_equal(got, s[np.asarray(ks)], equal_nan=True), ks
    for q in ([0.5], [0.05, 0.5, 0.95], [0.0, 0.25, 0.5, 0.75, 1.0]):
        want = np.median(a) if q == [0.5] else np.percentile(a, [100 * v for v in q])
        got = em.median(x) if q == [0.5] else em.percentile(x, [100 * v for v in q])
        assert np.allclose(np.asarray(got), want, equal_nan=True, rtol=1e-6)


def test_select_kth_errors(dev):
    x = em.asarray(np.arange(5.0))
    with pytest.raises(IndexError, match=r"kth\(=5\) out of bounds \(5\)"):
        em._ember.select_kth(x, [5])
    with pytest.raises(IndexError, match="out of bounds"):
        em._ember.select_kth(x, [-1])
    with pytest.raises(TypeError, match="no order statistic of complex64"):
        em._ember.select_kth(em.asarray(np.ones(3, np.complex64)), [0])


@pytest.mark.parametrize("dtype", ["int8", "uint16", "int64", "float16", "float32", "float64",
                                   "uint8"])
def test_median_quantiles_specials(dev, dtype):
    rng = np.random.default_rng(5)
    for n in (1, 2, 3, 1000, 1001):
        a = special_values(rng, n, dtype)
        for v in (a, a[::-1], np.full(n, a[0])):
            x = to_em(v)
            # NumPy interpolates integers in their own dtype (int8's 127 - -128
            # wraps): the oracle interpolates their float64 copy, as Ember does
            f = v.astype(np.float64) if v.dtype.kind in "iu" else v
            tol = 2e-3 if v.dtype == np.float16 else 1e-6
            assert_same(em.median(x), np.median(f), rtol=tol)
            for m in ("linear", "lower", "higher", "nearest", "midpoint"):
                q = [0.0, 0.1, 0.5, 0.77, 1.0]
                w = np.quantile(v if m in ("lower", "higher", "nearest") else f, q, method=m)
                assert_same(em.quantile(x, q, method=m), w, rtol=tol)
            assert_same(em.percentile(x, 37.5), np.percentile(f, 37.5), rtol=tol)
            if v.dtype.kind == "f" and not np.isnan(v).all():  # (all-NaN: test_median_nan_...)
                with np.errstate(invalid="ignore"):
                    import warnings
                    with warnings.catch_warnings():
                        warnings.simplefilter("ignore", RuntimeWarning)
                        assert_same(em.nanmedian(x), np.nanmedian(v), rtol=tol)
                        assert_same(em.nanquantile(x, [0.2, 0.9]), np.nanquantile(v, [0.2, 0.9]),
                                    rtol=tol)


def test_median_nan_and_keepdims(dev):
    a = np.arange(24, dtype=np.float32).reshape(2, 3, 4)
    x = em.asarray(a)
    assert_same(em.median(x, keepdims=True), np.median(a, keepdims=True))
    assert_same(em.median(x, axis=(0, 1, 2)), np.median(a, axis=(0, 1, 2)))
    assert_same(em.quantile(x[:, ::-1, ::2], 0.3), np.quantile(a[:, ::-1, ::2], 0.3))
    b = a.copy()
    b[1, 2, 3] = np.nan
    assert_same(em.median(em.asarray(b)), np.median(b))  # a NaN anywhere: NaN
    assert_same(em.nanmedian(em.asarray(b)), np.nanmedian(b))
    nan = np.full(5, np.nan, np.float32)
    with pytest.warns(RuntimeWarning):
        want = np.nanmedian(nan)
    assert_same(em.nanmedian(em.asarray(nan)), want)
    assert_same(em.median(em.asarray(np.float64(2.5))), np.median(np.float64(2.5)))  # 0-d
    for c in ([np.inf], [1.0, np.inf], [-np.inf, 2.0, np.inf], [-np.inf, np.inf]):
        c = np.array(c, np.float32)  # the mean of the middle values, as NumPy
        assert_same(em.median(em.asarray(c)), np.median(c))


def test_select_matches_sort_path(dev, monkeypatch):
    rng = np.random.default_rng(9)
    a = rng.standard_normal(10001).astype(np.float32)
    x = em.asarray(a)
    q = [0.01, 0.5, 0.99]
    sel = np.asarray(em.quantile(x, q))
    monkeypatch.setenv("EMBER_SELECT", "0")
    assert np.array_equal(sel, np.asarray(em.quantile(x, q)))


# ---- the set operations --------------------------------------------------------------

@pytest.mark.parametrize("dtype", ["int32", "float32", "complex64"])
def test_setops_one_sort(dev, dtype):
    rng = np.random.default_rng(11)
    for na, nb in ((0, 5), (5, 0), (1, 1), (700, 900), (5000, 3)):
        a, b = special_values(rng, na, dtype), special_values(rng, nb, dtype)
        x, y = to_em(a), to_em(b)
        assert_same(em.intersect1d(x, y), np.intersect1d(a, b))
        assert_same(em.union1d(x, y), np.union1d(a, b))
        assert_same(em.setdiff1d(x, y), np.setdiff1d(a, b))
        if dtype != "complex64":  # NumPy's complex NaN representative is its own
            assert_same(em.setxor1d(x, y), np.setxor1d(a, b))
    a = np.array([np.nan, 1.0, np.nan, 2.0], np.float32)
    b = np.array([np.nan, 2.0, 3.0], np.float32)
    for p, q in ((a, b), (a, b[1:]), (a[1:2], b)):
        assert_same(em.setxor1d(em.asarray(p), em.asarray(q)), np.setxor1d(p, q))
        assert_same(em.intersect1d(em.asarray(p), em.asarray(q)), np.intersect1d(p, q))


def test_setops_fused_matches_composed(dev, monkeypatch):
    rng = np.random.default_rng(13)
    a, b = rng.integers(0, 300, 2000), rng.integers(100, 400, 1500)
    x, y = em.asarray(a), em.asarray(b)
    fused = [np.asarray(f(x, y)) for f in (em.intersect1d, em.setxor1d)]
    monkeypatch.setenv("EMBER_UNIQUE_FUSED", "0")
    for got, f in zip(fused, (em.intersect1d, em.setxor1d)):
        assert np.array_equal(got, np.asarray(f(x, y)))


hyp = pytest.importorskip("hypothesis")
from hypothesis import given, settings, strategies as st  # noqa: E402
from hypothesis.extra import numpy as hnp  # noqa: E402

_HD = st.sampled_from(["int8", "int64", "float32", "bool"])
_DEV = (_devices() or [None])[0]


@pytest.mark.skipif(_DEV is None, reason="no device that compiles kernels")
@settings(max_examples=30, deadline=None)
@given(hnp.arrays(_HD, hnp.array_shapes(min_dims=1, max_dims=2, max_side=50)))
def test_hypothesis_unique_device(a):
    with em.Device(_DEV):
        _check_unique(em.asarray(a), a)


@pytest.mark.skipif(_DEV is None, reason="no device that compiles kernels")
@settings(max_examples=30, deadline=None)
@given(hnp.arrays(st.sampled_from(["int16", "float32", "float64"]),
                  hnp.array_shapes(min_dims=1, max_dims=2, max_side=50)),
       st.floats(0, 1))
def test_hypothesis_median_device(a, q):
    with em.Device(_DEV):
        x = em.asarray(a)
        f = a.astype(np.float64) if a.dtype.kind == "i" else a  # NumPy's int lerp wraps
        assert_same(em.median(x), np.median(f), rtol=1e-6)
        if not np.isinf(a).any():  # NumPy's quantile lerps inf - inf into NaN, as Ember
            assert_same(em.quantile(x, q), np.quantile(f, q), rtol=1e-6)
