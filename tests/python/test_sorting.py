"""Sorting, searching and set functions against NumPy (em._sorting), with
the Array API's descending=/stable= and unique_* results."""
import numpy as np
import pytest

import ember as em
from helpers import ALL_DTYPES, COMPLEX_DTYPES, assert_same, layouts, random_array, to_em

REAL_DTYPES = [d for d in ALL_DTYPES if d not in COMPLEX_DTYPES]


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=str)
def test_sort_argsort_every_dtype_layout(device, rng, dtype):
    for name, a in layouts(rng, (4, 7), dtype, low=-3, high=3):  # many ties
        x = to_em(a)
        for axis in ([None] if a.ndim == 0 else [-1, 0, None]):
            assert_same(em.sort(x, axis=axis), np.sort(a, axis=axis))
            assert_same(em.argsort(x, axis=axis), np.argsort(a, axis=axis, kind="stable"))


@pytest.mark.parametrize("dtype", REAL_DTYPES, ids=str)
def test_descending_is_stable(device, rng, dtype):
    a = random_array(rng, (5, 9), dtype, low=0, high=3)
    x = to_em(a)
    for axis in (0, 1):
        got = np.asarray(em.argsort(x, axis=axis, descending=True))
        # Stable descending: sort by (-value, original index).
        n = a.shape[axis]
        pos = np.arange(n).reshape((-1, 1) if axis == 0 else (1, -1))
        key = np.where(a == 0, 0, 1) if a.dtype == bool else a
        for j in range(a.shape[1 - axis]):
            col = np.take(key, j, axis=1 - axis).astype(np.float64)
            want = np.lexsort((np.take(np.broadcast_to(pos, a.shape), j, axis=1 - axis), -col))
            assert np.array_equal(np.take(got, j, axis=1 - axis), want)
        assert_same(em.sort(x, axis=axis, descending=True), np.flip(np.sort(a, axis=axis), axis))


def test_sort_nan_and_method(device):
    a = np.array([3.0, np.nan, -1.0, 2.0, np.nan, -np.inf])
    x = em.asarray(a)
    assert_same(em.sort(x), np.sort(a))
    assert_same(em.argsort(x), np.argsort(a, kind="stable"))
    assert np.isnan(np.asarray(em.sort(x, descending=True))[:2]).all()
    assert_same(x.argsort(), np.argsort(a, kind="stable"))
    x.sort()
    assert_same(x, np.sort(a))
    r = em.asarray([[3, 1], [0, 2]])
    r.sort(axis=0)
    assert_same(r, np.array([[0, 1], [3, 2]]))


def test_sort_errors(device):
    x = em.asarray([[3, 1], [2, 0]])
    with pytest.raises(np.exceptions.AxisError, match="axis 2 is out of bounds"):
        em.sort(x, axis=2)
    with pytest.raises(ValueError, match="needs structured dtypes"):
        em.argsort(x, order="f")
    with pytest.raises(TypeError, match="expects an ember.ndarray, not list"):
        em.sort([3, 1])
    ro = em.broadcast_to(em.asarray([2, 1]), (2, 2))
    with pytest.raises(ValueError, match="read-only"):
        ro.sort()
    assert_same(em.sort(x), np.array([[1, 3], [0, 2]]))  # still working


@pytest.mark.parametrize("side", ["left", "right"])
@pytest.mark.parametrize("dtype", REAL_DTYPES, ids=str)
def test_searchsorted(device, rng, side, dtype):
    a = np.sort(random_array(rng, (12,), dtype, low=0, high=5))
    v = random_array(rng, (3, 4), dtype, low=0, high=5)
    got = em.searchsorted(to_em(a), to_em(v), side=side)
    assert_same(got, np.searchsorted(a, v, side=side).astype(np.int64))
    assert_same(em.searchsorted(to_em(a), to_em(v[0, 0]), side=side),
                np.asarray(np.searchsorted(a, v[0, 0], side=side), dtype=np.int64))
    u = random_array(rng, (12,), dtype, low=0, high=5)
    s = np.argsort(u, kind="stable")
    assert_same(em.searchsorted(to_em(u), to_em(v), side=side, sorter=to_em(s)),
                np.searchsorted(u, v, side=side, sorter=s).astype(np.int64))


def test_searchsorted_scalars_and_errors(device):
    x = em.asarray([1.0, 2.0, 4.0])
    assert int(em.searchsorted(x, 3)) == 2
    assert int(em.searchsorted(x, 2.0, side="right")) == 2
    with pytest.raises(ValueError, match="must be 'left' or 'right', not 'middle'"):
        em.searchsorted(x, 1.0, side="middle")
    with pytest.raises(ValueError, match="needs a 1-D x1, got 2 dimensions"):
        em.searchsorted(em.ones((2, 2)), 1.0)
    assert int(em.searchsorted(x, 5.0)) == 3


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=str)
def test_unique_family(device, rng, dtype):
    for name, a in layouts(rng, (5, 6), dtype, low=-2, high=3):
        x = to_em(a)
        assert_same(em.unique_values(x), np.unique(a, equal_nan=False))  # sorted, NaNs distinct
        for got, want in zip(em.unique_counts(x), np.unique_counts(a)):
            assert_same(got, want)
        for got, want in zip(em.unique_inverse(x), np.unique_inverse(a)):
            assert_same(got, want)
        r = em.unique_all(x)
        for field in ("values", "indices", "inverse_indices", "counts"):
            assert_same(getattr(r, field), getattr(np.unique_all(a), field))
        for got, want in zip(em.unique(x, return_index=True, return_inverse=True, return_counts=True),
                             np.unique(a, return_index=True, return_inverse=True, return_counts=True)):
            assert_same(got, want)
        assert_same(em.unique(x), np.unique(a))


def test_unique_nans_are_distinct(device):
    x = em.asarray([np.nan, 1.0, np.nan, 1.0])
    assert em.unique_values(x).shape == (3,)
    assert_same(em.unique_counts(x).counts, np.array([2, 1, 1]))
    assert_same(em.unique(x), np.array([1.0, np.nan]))  # NumPy's unique merges NaNs


@pytest.mark.parametrize("dtype", ["int8", "uint16", "int64", "float32", "bool"])
def test_isin(device, rng, dtype):
    a = random_array(rng, (4, 5), dtype, low=0, high=6)
    b = random_array(rng, (7,), dtype, low=0, high=6)
    for invert in (False, True):
        assert_same(em.isin(to_em(a), to_em(b), invert=invert), np.isin(a, b, invert=invert))
    assert_same(em.isin(to_em(a), 3), np.isin(a, 3))
    assert_same(em.isin(2, to_em(b)), np.isin(2, b))
    with pytest.raises(TypeError, match="needs at least one ember.ndarray"):
        em.isin(1, [1, 2])
