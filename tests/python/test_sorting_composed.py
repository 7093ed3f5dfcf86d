"""The device paths of em._sorting composed above the two kernels, run on
the CPU: _on_device says yes and _ember.sort / _ember.searchsorted /
_ember.unique_sorted are stood in for by NumPy with the kernels' contracts (stable, descending keeps
ties in order, int64 results).  So unique/isin/lexsort/digitize/partition
and the dtype handling of searchsorted are checked here against NumPy, and
the kernels themselves by tests/c/test_sort.c (emulated) and by
test_sorting.py on a GPU.  Every test of test_sorting.py runs again here."""
import numpy as np
import pytest

import ember as em
from ember import _sorting
from helpers import assert_same, random_array, to_em

from test_sorting import *  # noqa: F401,F403  (the same tests, on the composed paths)

_real = _sorting._ember


class _Kernels:
    """The extension with sort and searchsorted played by NumPy."""

    def __getattr__(self, name):
        return getattr(_real, name)

    @staticmethod
    def sort(x, axis, descending, arg, keys=False):
        """keys (an argsort's sorted values too): (indices, None), as every
        backend but CUDA's fused one answers, so the callers' take runs."""
        assert isinstance(x, em.ndarray) and isinstance(descending, bool) and isinstance(arg, bool)
        assert not keys or arg
        h = np.asarray(x)
        if axis is None:
            h, axis = h.reshape(-1), 0
        if descending:
            n = h.shape[axis]
            idx = (n - 1) - np.flip(np.argsort(np.flip(h, axis), axis=axis, kind="stable"), axis)
        else:
            idx = np.argsort(h, axis=axis, kind="stable")
        r = idx.astype(np.int64) if arg else np.take_along_axis(h, idx, axis)
        r = em.asarray(np.ascontiguousarray(r))
        return (r, None) if keys else r

    @staticmethod
    def searchsorted(a, v, right, sorter):
        assert a.dtype == v.dtype, "the kernel takes one dtype"
        assert sorter is None or sorter.dtype == em.int64
        r = np.searchsorted(np.asarray(a), np.asarray(v), side="right" if right else "left",
                            sorter=None if sorter is None else np.asarray(sorter))
        return em.asarray(np.asarray(r, dtype=np.int64))

    @staticmethod
    def unique_sorted(s, perm, equal_nan, index, inverse, counts):
        """em_unique_sorted's contract: the values where the sorted s changes
        (== in its dtype; all NaNs one value with equal_nan), perm[first],
        the inverse scattered through perm, the counts; None where not asked."""
        h = np.asarray(s)
        assert h.ndim == 1 and (perm is not None or not (index or inverse))
        n = h.shape[0]
        new = np.ones(n, bool)
        new[1:] = h[1:] != h[:-1]
        if equal_nan and h.dtype.kind in "fc":
            nan = np.isnan(h)
            new[1:] &= ~(nan[1:] & nan[:-1])
        first = np.flatnonzero(new).astype(np.int64)
        p = None if perm is None else np.asarray(perm)
        inv = None
        if inverse:
            inv = np.empty(n, np.int64)
            inv[p] = np.cumsum(new) - 1
        out = (h[first], p[first] if index else None, inv,
               np.diff(np.append(first, n)).astype(np.int64) if counts else None)
        return tuple(None if o is None else em.asarray(np.ascontiguousarray(o)) for o in out)

    @staticmethod
    def setop_sorted(s, o, mode):
        """em_setop_sorted's contract: 0 / 1 the distinct values of the sorted
        s (one NaN) that are / are not in the sorted o (==: a NaN is in
        nothing), 2 the stable merge, 3 / 4 isin / not per element of s, 5
        the elements of s equal to neither neighbour."""
        h, g = np.asarray(s), np.asarray(o)
        assert s.dtype == o.dtype and h.dtype.kind != "c" and g.ndim == 1
        if mode >= 3:
            return em.asarray(np.isin(h, g, invert=mode == 4))
        if mode == 5:  # the elements equal to neither neighbour (NaNs differ)
            keep = np.ones(h.shape[0], bool)
            keep[1:] &= h[1:] != h[:-1]
            keep[:-1] &= h[:-1] != h[1:]
            return em.asarray(np.ascontiguousarray(h[keep]))
        if mode == 2:
            m = np.concatenate([h, g])
            return em.asarray(m[np.argsort(m, kind="stable")])
        new = np.ones(h.shape[0], bool)
        new[1:] = h[1:] != h[:-1]
        if h.dtype.kind == "f":
            nan = np.isnan(h)
            new[1:] &= ~(nan[1:] & nan[:-1])
        u = h[new]
        return em.asarray(np.ascontiguousarray(u[np.isin(u, g) == (mode == 0)]))

    @staticmethod
    def partition(a, ks, arg):
        """em_partition's contract: a read as 1-D, each k of ks in place."""
        h = np.asarray(a).reshape(-1)
        r = np.argpartition(h, ks).astype(np.int64) if arg else np.partition(h, ks)
        return em.asarray(r)


@pytest.fixture(autouse=True)
def _composed(monkeypatch):
    monkeypatch.setattr(_sorting, "_on_device", lambda *a: any(isinstance(x, em.ndarray) for x in a))
    monkeypatch.setattr(_sorting, "_ember", _Kernels())


def test_unique_nan_and_empty():
    a = np.array([np.nan, 2.0, np.nan, -0.0, 0.0, 2.0, np.inf])
    x = em.asarray(a)
    for got, want in zip(em.unique(x, return_index=True, return_inverse=True, return_counts=True),
                         np.unique(a, return_index=True, return_inverse=True, return_counts=True)):
        assert_same(got, want)
    assert_same(em.unique_values(x), np.unique(a, equal_nan=False))
    e = em.asarray(np.zeros((0, 3), np.float32))
    assert_same(em.unique(e), np.unique(np.zeros((0, 3), np.float32)))
    r = em.unique_all(e)
    assert r.values.shape == (0,) and r.counts.shape == (0,) and r.inverse_indices.shape == (0, 3)


@pytest.mark.parametrize("dtype", ["int16", "float32", "float64", "uint8"])
def test_lexsort(rng, dtype):
    k1 = random_array(rng, (30,), dtype, low=0, high=3)
    k2 = random_array(rng, (30,), dtype, low=0, high=4)
    assert_same(em.lexsort((to_em(k1), to_em(k2))), np.lexsort((k1, k2)))
    m = random_array(rng, (3, 4, 9), dtype, low=0, high=3)
    assert_same(em.lexsort(to_em(m)), np.lexsort(m))
    assert_same(em.lexsort(to_em(m), axis=0), np.lexsort(m, axis=0))
    with pytest.raises(TypeError, match="need sequence of keys"):
        em.lexsort([])


@pytest.mark.parametrize("dtypes", [("int32", "int32"), ("int8", "uint16", "bool"),
                                    ("int64",), ("uint64",), ("int16", "int32", "int8"),
                                    ("uint32", "int64")])
def test_lexsort_one_word(rng, monkeypatch, dtypes):
    """Integer keys whose widths add up to 64 bits or less sort as one word
    (one argsort; more bits: one per key): extremes, negatives, ties, every
    axis of a 2-D batch, empty; NumPy's lexsort the oracle."""
    calls = []
    sort = _sorting._ember.sort
    monkeypatch.setattr(_sorting._ember, "sort", lambda *a: calls.append(1) or sort(*a),
                        raising=False)

    def keys(shape):
        out = []
        for dt in dtypes:
            if dt == "bool":
                out.append(rng.random(shape) < 0.5)
                continue
            i = np.iinfo(dt)
            k = rng.integers(-3 if i.min else 0, 3, shape).astype(dt)  # many ties
            k.flat[::7] = i.min
            k.flat[3::11] = i.max
            out.append(k)
        return out

    bits = sum(1 if d == "bool" else 8 * np.dtype(d).itemsize for d in dtypes)
    for shape, axis in (((257,), -1), ((5, 40), 1), ((5, 40), 0), ((0,), -1), ((1,), 0)):
        ks = keys(shape)
        calls.clear()
        got = em.lexsort([to_em(k) for k in ks], axis=axis)
        assert_same(got, np.lexsort(ks, axis=axis))
        if len(dtypes) > 1 and shape[0]:
            assert len(calls) == (1 if bits <= 64 else len(dtypes)), (shape, calls)


@pytest.mark.parametrize("right", [False, True])
def test_digitize(rng, right):
    x = np.array([-1.0, 0.0, 0.5, 1.0, 2.5, 7.0, np.nan])
    for bins in (np.array([0.0, 1.0, 2.5, 5.0]), np.array([5.0, 2.5, 1.0, 0.0]), np.array([1.0])):
        assert_same(em.digitize(em.asarray(x), em.asarray(bins), right=right),
                    np.digitize(x, bins, right=right).astype(np.int64))
    with pytest.raises(ValueError, match="monotonically"):
        em.digitize(em.asarray(x), em.asarray([0.0, 2.0, 1.0]))


def test_partition(rng):
    a = random_array(rng, (6, 11), "float32", low=-5, high=5)
    x = to_em(a)
    for kth in (0, 5, -1, (2, 7)):
        p = np.asarray(em.partition(x, kth, axis=1))
        i = np.asarray(em.argpartition(x, kth, axis=1))
        s = np.sort(a, axis=1)
        for k in np.atleast_1d(kth):
            assert np.array_equal(p[:, k], s[:, k])
            assert np.all(p[:, :k % 11] <= p[:, [k]]) and np.all(p[:, k % 11:] >= p[:, [k]])
            assert np.array_equal(np.take_along_axis(a, i, 1)[:, k], s[:, k])
    with pytest.raises(ValueError, match=r"kth\(=11\) out of bounds \(11\)"):
        em.partition(x, 11)
    with pytest.raises(np.exceptions.AxisError):
        em.partition(x, 1, axis=2)


def test_searchsorted_promotes_and_checks_sorter():
    a = em.asarray(np.array([1, 3, 5], np.int32))
    assert_same(em.searchsorted(a, em.asarray([2.5, 3.0])), np.array([1, 1]))
    assert_same(em.searchsorted(a, 4), np.asarray(2, dtype=np.int64))
    with pytest.raises(ValueError, match="Sorter index out of range"):
        em.searchsorted(a, 2, sorter=em.asarray([0, 1, 3]))
    with pytest.raises(ValueError, match="sorter.size must equal a.size"):
        em.searchsorted(a, 2, sorter=em.asarray([0, 1]))


def test_isin_mixed_and_empty():
    a = np.array([1.0, 2.5, np.nan, 3.0])
    assert_same(em.isin(em.asarray(a), em.asarray([3, 1])), np.isin(a, [3, 1]))
    assert_same(em.isin(em.asarray(a), em.asarray(np.array([np.nan]))), np.isin(a, [np.nan]))
    assert_same(em.isin(em.asarray(a), em.asarray(np.zeros(0)), invert=True),
                np.isin(a, np.zeros(0), invert=True))
