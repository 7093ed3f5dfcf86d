"""bincount, histogram, histogram_bin_edges, histogram2d, histogramdd,
digitize and the set operations against NumPy."""
import numpy as np
import pytest

import ember as em
from helpers import assert_same, random_array, to_em


@pytest.mark.parametrize("dtype", ["uint8", "int16", "int64", "bool"])
def test_bincount(device, rng, dtype):
    x = rng.integers(0, 2 if dtype == "bool" else 30, size=200).astype(dtype)
    assert_same(em.bincount(to_em(x)), np.bincount(x))
    assert_same(em.bincount(to_em(x), minlength=50), np.bincount(x, minlength=50))
    assert_same(em.bincount(to_em(x[::-3])), np.bincount(x[::-3]))
    w = rng.normal(size=200)
    assert_same(em.bincount(to_em(x), weights=to_em(w)), np.bincount(x, weights=w))


def test_bincount_edges_and_errors(device):
    assert_same(em.bincount(em.asarray(np.zeros(0, np.int64))), np.bincount(np.zeros(0, np.int64)))
    assert_same(em.bincount(em.asarray([5, 5, 5])), np.bincount([5, 5, 5]))
    with pytest.raises(ValueError, match="must have no negative elements"):
        em.bincount(em.asarray([1, -1]))
    with pytest.raises(ValueError, match="object too deep"):
        em.bincount(em.zeros((2, 2), dtype=em.int64))
    with pytest.raises(TypeError, match="Cannot cast array data"):
        em.bincount(em.asarray([1.5]))
    with pytest.raises(ValueError, match="'minlength' must not be negative"):
        em.bincount(em.asarray([1]), minlength=-1)


@pytest.mark.parametrize("dtype", ["int32", "float32", "float64"])
def test_histogram(device, rng, dtype):
    a = (rng.normal(size=(30, 7)) * 10).astype(dtype)
    for bins in (1, 5, 10, [-20, -5, 0, 1, 30], np.linspace(-5, 5, 7)):
        for rng_ in (None, (-10, 10)):
            if np.ndim(bins) and rng_ is not None:
                continue
            c, e = em.histogram(to_em(a), bins=bins, range=rng_)
            nc, ne = np.histogram(a, bins=bins, range=rng_)
            assert_same(c, nc)
            np.testing.assert_array_equal(e.get(), ne)  # the very edges NumPy uses
            assert e.dtype == ne.dtype
            assert_same(em.histogram_bin_edges(to_em(a), bins=bins, range=rng_), ne)
    c, e = em.histogram(to_em(a), bins=6, density=True)
    nc, ne = np.histogram(a, bins=6, density=True)
    assert_same(c, nc)
    w = rng.random(a.shape)
    assert_same(em.histogram(to_em(a), bins=4, weights=to_em(w))[0], np.histogram(a, bins=4, weights=w)[0])
    assert_same(em.histogram(to_em(a), bins="auto")[0], np.histogram(a, bins="auto")[0])


def test_histogram_edges(device):
    # values on the edges: the last bin is closed, the others half-open
    a = np.array([0.0, 1.0, 1.0, 2.0, 3.0, 3.0])
    assert_same(em.histogram(to_em(a), bins=3)[0], np.histogram(a, bins=3)[0])
    assert_same(em.histogram(to_em(a), bins=[0, 1, 3])[0], np.histogram(a, bins=[0, 1, 3])[0])
    c = np.array([4.0, 4.0])  # all equal: NumPy widens the range by 0.5
    assert_same(em.histogram(to_em(c))[1], np.histogram(c)[1])
    assert_same(em.histogram(em.zeros((0,)))[0], np.histogram(np.zeros(0))[0])
    with pytest.raises(ValueError, match="must increase monotonically"):
        em.histogram(to_em(a), bins=[0, 2, 1])
    with pytest.raises(ValueError, match="max must be larger than min"):
        em.histogram(to_em(a), range=(2, 1))
    with pytest.raises(ValueError, match="autodetected range of"):
        em.histogram(em.asarray([1.0, np.inf]))
    with pytest.raises(ValueError, match="`bins` must be positive"):
        em.histogram(to_em(a), bins=0)


@pytest.mark.parametrize("dtype", ["int64", "float64"])
def test_histogram2d_dd(device, rng, dtype):
    x = (rng.normal(size=100) * 5).astype(dtype)
    y = (rng.normal(size=100) * 5).astype(dtype)
    for bins in (4, [3, 6], [np.array([-10.0, 0, 10]), np.array([-5.0, 0, 2, 5])]):
        H, xe, ye = em.histogram2d(to_em(x), to_em(y), bins=bins)
        nH, nxe, nye = np.histogram2d(x, y, bins=bins)
        assert_same(H, nH)
        assert_same(xe, nxe)
        assert_same(ye, nye)
    s = rng.normal(size=(50, 3))
    H, edges = em.histogramdd(to_em(s), bins=(2, 3, 4), range=[(-2, 2)] * 3, density=True)
    nH, nedges = np.histogramdd(s, bins=(2, 3, 4), range=[(-2, 2)] * 3, density=True)
    assert_same(H, nH)
    for e, ne in zip(edges, nedges):
        assert_same(e, ne)
    w = rng.random(50)
    assert_same(em.histogramdd(to_em(s), bins=3, weights=to_em(w))[0],
                np.histogramdd(s, bins=3, weights=w)[0])


@pytest.mark.parametrize("right", [False, True])
def test_digitize(device, rng, right):
    x = rng.integers(-3, 12, size=40).astype(np.float64)
    for bins in (np.array([0.0, 2, 5, 9]), np.array([9.0, 5, 2, 0]), np.array([3.0])):
        assert_same(em.digitize(to_em(x), to_em(bins), right=right), np.digitize(x, bins, right=right))
    with pytest.raises(ValueError, match="monotonically"):
        em.digitize(to_em(x), em.asarray([1.0, 3, 2]))


@pytest.mark.parametrize("dtype", ["int8", "int64", "float32", "float64"])
def test_set_operations(device, rng, dtype):
    a = rng.integers(0, 15, size=20).astype(dtype)
    b = rng.integers(5, 25, size=(3, 4)).astype(dtype)
    for fn in ("intersect1d", "union1d", "setdiff1d", "setxor1d"):
        assert_same(getattr(em, fn)(to_em(a), to_em(b)), getattr(np, fn)(a, b))
        assert_same(getattr(em, fn)(to_em(a[:0]), to_em(b)), getattr(np, fn)(a[:0], b))
    ua, ub = np.unique(a), np.unique(b)
    for fn in ("intersect1d", "setdiff1d", "setxor1d"):
        assert_same(getattr(em, fn)(to_em(ua), to_em(ub), assume_unique=True),
                    getattr(np, fn)(ua, ub, assume_unique=True))
    got = em.intersect1d(to_em(a), to_em(b), return_indices=True)
    want = np.intersect1d(a, b, return_indices=True)
    for g, w in zip(got, want):
        assert_same(g, w)


@pytest.mark.parametrize("wdtype", ["float32", "float64", "int64", "int32"])
def test_weighted_counts(device, rng, wdtype):
    x = rng.integers(0, 20, size=300)
    w = random_array(rng, (300,), wdtype)
    assert_same(em.bincount(to_em(x), weights=to_em(w), minlength=25),
                np.bincount(x, weights=w, minlength=25))
    a = rng.normal(size=300) * 4
    a[:5] = [np.nan, -4.0, 4.0, 100.0, -100.0]
    edges = np.array([-4.0, -1.0, 0.0, 2.5, 4.0])
    tol = {"rtol": 1e-4} if wdtype == "float32" else {}
    assert_same(em.histogram(to_em(a), bins=to_em(edges), weights=to_em(w))[0],
                np.histogram(a, bins=edges, weights=w)[0], **tol)
    fin = a[5:]
    assert_same(em.histogram(to_em(fin), bins=7, weights=to_em(w[5:]), density=True)[0],
                np.histogram(fin, bins=7, weights=w[5:], density=True)[0], **tol)
    s = rng.normal(size=(300, 2))
    assert_same(em.histogramdd(to_em(s), bins=(3, 4), weights=to_em(w))[0],
                np.histogramdd(s, bins=(3, 4), weights=w)[0], **tol)
