"""The set operations on sorted arrays (_ember.setop_sorted: isin as one
binary-search kernel, intersect1d / setdiff1d / setxor1d as one filtered
unique pass over each sorted input and a merge) and partition /
argpartition by the radix select and one compaction (_ember.partition),
against NumPy, on each device that compiles kernels (opencl:0 under PoCL
here and in CI, cuda:0 on a GPU machine).  The paths they replace
(EMBER_UNIQUE_FUSED=0, EMBER_PARTITION_SELECT=0) are checked to agree."""
import numpy as np
import pytest

import ember as em
from helpers import assert_same, special_values, to_em, views_1d
from test_unique_select import _devices

DTYPES = ["bool", "int8", "uint16", "int32", "int64", "float16", "float32", "float64"]


@pytest.fixture(params=_devices() or [pytest.param("none", marks=pytest.mark.skip(
    reason="no device that compiles kernels"))])
def dev(request):
    with em.Device(request.param):
        yield request.param


# ---- isin -----------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", DTYPES)
def test_isin_specials_and_layouts(dev, dtype):
    rng = np.random.default_rng(21)
    a = special_values(rng, 8250, dtype)
    b = special_values(rng, 5, dtype)  # a few of the pool: some values in, some out
    for v in views_1d(a, two_d=True):
        for inv in (False, True):
            got = em.isin(to_em(v), em.asarray(b), invert=inv)
            assert_same(got, np.isin(v, b, invert=inv))
    # the test values non-contiguous and 2-d; x1 0-d and empty
    assert_same(em.isin(em.asarray(a), to_em(np.tile(b, 4).reshape(4, -1).T)),
                np.isin(a, np.tile(b, 4).reshape(4, -1).T))
    assert_same(em.isin(em.asarray(a[0]), em.asarray(b)), np.isin(a[0], b))
    assert_same(em.isin(em.asarray(a[:0]), em.asarray(b)), np.isin(a[:0], b))
    assert_same(em.isin(em.asarray(a), em.asarray(b[:0])), np.isin(a, b[:0]))


def test_isin_nan_signed_zero_and_search_depth(dev):
    a = np.array([np.nan, 0.0, -0.0, 1.0, np.inf, -np.inf, 7.0], np.float32)
    for b in ([np.nan], [-0.0], [0.0, np.inf], [np.nan, -np.inf, 7.0]):
        b = np.array(b, np.float32)
        assert_same(em.isin(em.asarray(a), em.asarray(b)), np.isin(a, b))
    # a deep search: 2^16 sorted test values, half of x1 in them
    rng = np.random.default_rng(3)
    b = rng.integers(-2**31, 2**31, 1 << 16).astype(np.int32)
    x = np.concatenate([rng.choice(b, 3000), rng.integers(-2**31, 2**31, 3000).astype(np.int32)])
    got = em.isin(em.asarray(x), em.asarray(b))
    assert_same(got, np.isin(x, b))
    assert int(em.sum(got)) >= 3000


@pytest.mark.parametrize("no", [1, 1023, 1024, 1025, 5000, 70001])
def test_isin_two_level_search(dev, no):
    """isin's search: the chunk heads of the sorted test values in shared
    memory (1024 of them), then one chunk: runs of one value across chunk
    boundaries, values below the first head, above the last, in the gaps."""
    rng = np.random.default_rng(no)
    b = np.repeat(np.arange(0, 60, 3, dtype=np.int64), -(-no // 20))[:no]  # long runs
    b[rng.integers(0, no, no // 7)] = rng.integers(-10, 70, no // 7)
    x = np.arange(-12, 72, dtype=np.int64)
    for t in (b, np.sort(b), np.unique(b)):
        assert_same(em.isin(em.asarray(x), em.asarray(t)), np.isin(x, t))
        assert_same(em.isin(em.asarray(x), em.asarray(t), invert=True),
                    np.isin(x, t, invert=True))
    f = (rng.standard_normal(no) * 100).astype(np.float32)
    f[: no // 3] = np.round(f[: no // 3])
    f[::97] = np.nan
    y = np.concatenate([f[::5], rng.standard_normal(500).astype(np.float32) * 100,
                        np.array([np.nan, np.inf, -np.inf, -0.0, 0.0], np.float32)])
    assert_same(em.isin(em.asarray(y), em.asarray(f)), np.isin(y, f))


@pytest.mark.parametrize("na, nb", [(0, 5), (5, 0), (1, 1), (4095, 1), (1, 4097),
                                    (4096, 4096), (10000, 3), (7000, 9001)])
@pytest.mark.parametrize("dtype", ["int8", "int32", "float32", "float64"])
def test_setop_merge_path(dev, na, nb, dtype):
    """MERGE (mode 2) by merge path against NumPy's stable sort of the
    concatenation: s's elements before o's equal ones (-0.0 before 0.0
    tells), tiles of 4096 outputs and lists of very unequal lengths."""
    rng = np.random.default_rng(na * 31 + nb)

    def draw(n):
        v = rng.integers(-40, 40, n).astype(dtype)
        if np.dtype(dtype).kind == "f":
            v[::11] = -0.0
            v[::13] = np.nan
        return np.sort(v)

    a = draw(na)
    b = draw(nb)
    if np.dtype(dtype).kind == "f":
        b[b == 0] = 0.0  # o's zeros positive, s's negative: the order shows
    want = np.sort(np.concatenate([a, b]), kind="stable")
    got = em._ember.setop_sorted(em.asarray(a), em.asarray(b), 2).get()
    assert np.array_equal(got, want, equal_nan=True)
    assert np.array_equal(np.signbit(got), np.signbit(want))


def test_isin_matches_composed(dev, monkeypatch):
    rng = np.random.default_rng(5)
    a, b = special_values(rng, 3000, "float64"), special_values(rng, 40, "float64")
    fused = np.asarray(em.isin(em.asarray(a), em.asarray(b)))
    monkeypatch.setenv("EMBER_UNIQUE_FUSED", "0")
    assert np.array_equal(fused, np.asarray(em.isin(em.asarray(a), em.asarray(b))))


# ---- intersect1d / setdiff1d / setxor1d / union1d --------------------------------------

def _check_setops(a, b):
    x, y = to_em(a), to_em(b)
    assert_same(em.intersect1d(x, y), np.intersect1d(a, b))
    assert_same(em.setdiff1d(x, y), np.setdiff1d(a, b))
    assert_same(em.setxor1d(x, y), np.setxor1d(a, b))
    assert_same(em.union1d(x, y), np.union1d(a, b))


@pytest.mark.parametrize("dtype", DTYPES)
def test_setops_specials(dev, dtype):
    rng = np.random.default_rng(23)
    for na, nb in ((0, 5), (5, 0), (0, 0), (1, 1), (700, 900), (8250, 3)):
        a, b = special_values(rng, na, dtype), special_values(rng, nb, dtype)
        _check_setops(a, b)
        _check_setops(a[::-1], b)


@pytest.mark.parametrize("dtype", ["int32", "float32", "uint16"])
def test_setops_layouts_and_overlap(dev, dtype):
    rng = np.random.default_rng(29)
    a = rng.integers(0, 5000, 9000).astype(dtype)
    b = rng.integers(2500, 7500, 6000).astype(dtype)
    for v in views_1d(a, two_d=True):
        _check_setops(v, b)
    _check_setops(a.reshape(90, 100)[:, ::3], b.reshape(60, 100))  # 2-d, flattened
    _check_setops(a, a)  # every value in both
    _check_setops(np.full(100, a[0]), np.full(7, a[0]))  # all equal
    _check_setops(a, b + 10000 if dtype != "uint16" else b // 2 + 40000)  # disjoint


def test_setops_nan_and_zero_signs(dev):
    a = np.array([np.nan, 1.0, np.nan, 2.0, -0.0, np.inf], np.float32)
    b = np.array([np.nan, 2.0, 3.0, 0.0, -np.inf], np.float32)
    for p, q in ((a, b), (a, b[1:]), (a[1:2], b), (b, a), (a, a), (a[:1], b[:1])):
        _check_setops(p, q)


def test_setdiff1d_assume_unique_keeps_order(dev):
    a = np.array([9, 3, 7, 1, 5], np.int64)
    b = np.array([7, 100, 3], np.int64)
    assert_same(em.setdiff1d(em.asarray(a), em.asarray(b), assume_unique=True),
                np.setdiff1d(a, b, assume_unique=True))
    assert_same(em.setdiff1d(to_em(a[::-1]), em.asarray(b), assume_unique=True),
                np.setdiff1d(a[::-1], b, assume_unique=True))


def test_setops_mixed_dtypes_take_composed(dev):
    a = np.array([1, 2, 3, 4], np.int32)
    b = np.array([2.0, 4.5, 3.0], np.float64)
    _check_setops(a, b)


def test_setops_match_composed(dev, monkeypatch):
    rng = np.random.default_rng(31)
    a, b = rng.integers(0, 300, 2000), rng.integers(100, 400, 1500)
    x, y = em.asarray(a), em.asarray(b)
    fns = (em.intersect1d, em.setdiff1d, em.setxor1d)
    fused = [np.asarray(f(x, y)) for f in fns]
    monkeypatch.setenv("EMBER_UNIQUE_FUSED", "0")
    for got, f in zip(fused, fns):
        assert np.array_equal(got, np.asarray(f(x, y)))


@pytest.mark.parametrize("dtype", ["int8", "int64", "float32", "float64"])
@pytest.mark.parametrize("n", [1, 4096, 4097, 3 * 4096 + 5])
def test_setxor_merge(dev, dtype, n):
    """setxor1d (distinct values of each, merged, singles kept) against
    NumPy, on sizes around unique's and the merge's tile of 4096 (both
    inputs of n)."""
    rng = np.random.default_rng(n)
    a, b = special_values(rng, n, dtype), special_values(rng, n, dtype)
    if np.dtype(dtype).kind in "if" and n > 100:  # many distinct values, some shared
        a[: n // 2] = rng.integers(-3000, 3000, n // 2).astype(dtype)
        b[: n // 2] = rng.integers(-3000, 3000, n // 2).astype(dtype)
    for p, q in ((a, b), (a[::-1], b[::3]), (a[:1], b)):
        got = em.setxor1d(to_em(p), to_em(q))
        assert_same(got, np.setxor1d(p, q))


def test_setop_sorted_modes_and_errors(dev):
    s = em.asarray(np.array([1.0, 2.0, 2.0, 5.0, np.nan]))
    o = em.asarray(np.array([2.0, 3.0, 5.0, np.nan]))
    assert_same(em._ember.setop_sorted(s, o, 0), np.array([2.0, 5.0]))
    assert_same(em._ember.setop_sorted(s, o, 1), np.array([1.0, np.nan]))
    assert_same(em._ember.setop_sorted(s, o, 2), np.sort(np.concatenate([s.get(), o.get()])))
    assert_same(em._ember.setop_sorted(s, o, 3), np.isin(s.get(), o.get()))
    assert_same(em._ember.setop_sorted(s, o, 4), ~np.isin(s.get(), o.get()))
    # 5: the elements equal to neither neighbour (o unread; NaNs differ)
    m = em.asarray(np.array([-0.0, 0.0, 1.0, 2.0, 2.0, 2.0, 3.0, np.nan, np.nan]))
    assert_same(em._ember.setop_sorted(m, m, 5), np.array([1.0, 3.0, np.nan, np.nan]))
    assert_same(em._ember.setop_sorted(s, o, 5), np.array([1.0, 5.0, np.nan]))
    with pytest.raises(ValueError, match="no set operation 9"):
        em._ember.setop_sorted(s, o, 9)
    with pytest.raises(TypeError, match="one dtype"):
        em._ember.setop_sorted(s, em.asarray(np.array([1, 2])), 0)
    c = em.asarray(np.ones(3, np.complex64))
    with pytest.raises(TypeError, match="no order of complex64"):
        em._ember.setop_sorted(c, c, 0)
    with pytest.raises(ValueError, match="C-contiguous"):
        em._ember.setop_sorted(s[::2], o, 0)
    with pytest.raises(ValueError, match="C-contiguous"):
        em._ember.setop_sorted(em.asarray(np.ones((2, 2))), o, 0)


# ---- partition / argpartition --------------------------------------------------------

def _check_partitioned(r, a, ks):
    """r (NumPy) is a partition of a (1-d) at every k of ks: NumPy's contract."""
    s = np.sort(a)
    nan = a.dtype.kind == "f"
    assert np.array_equal(np.sort(r), s, equal_nan=nan)  # the same elements
    for k in ks:
        k = k % len(a)
        assert np.array_equal(r[k:k + 1], s[k:k + 1], equal_nan=nan)
        if nan and np.isnan(s[k]):
            assert np.isnan(r[k + 1:]).all()
            continue
        before, after = r[:k], r[k + 1:]
        assert (before <= s[k]).all(), (k, before, s[k])
        assert ((after >= s[k]) | (np.isnan(after) if nan else False)).all(), (k, after, s[k])


@pytest.mark.parametrize("dtype", ["bool", "int8", "uint16", "int64", "float16", "float32"])
def test_partition_specials(dev, dtype):
    rng = np.random.default_rng(37)
    a = special_values(rng, 8250, dtype)
    n = len(a)
    kss = [[0], [n - 1], [n // 2], [-1], [5, 4100, 8000]]
    if dtype == "float32":  # 7 distinct ranks: each count is another select kernel
        kss.append([3, 3, 7, 100, 4096, 4097, -2, 50])
    for ks in kss:
        for v in (a, a[::-1], a.reshape(2, -1)[1]):
            kk = [k for k in ks if -len(v) <= k < len(v)]
            if not kk:
                continue
            r = em.partition(to_em(v), kk)
            assert r.shape == v.shape and r.dtype == v.dtype
            _check_partitioned(np.asarray(r), v, kk)
            i = np.asarray(em.argpartition(to_em(v), kk))
            assert i.dtype == np.int64
            assert np.array_equal(np.sort(i), np.arange(len(v)))
            _check_partitioned(v[i], v, kk)


@pytest.mark.parametrize("n", [1, 2, 3, 4095, 4096, 4097, 3 * 4096 + 300])
def test_partition_edges(dev, n):
    # whole tiles, a last tile cut anywhere
    rng = np.random.default_rng(n)
    for a in (rng.standard_normal(n).astype(np.float32), np.zeros(n, np.int64),
              np.full(n, np.nan, np.float64)):
        for k in sorted({0, n // 2, n - 1}):
            _check_partitioned(np.asarray(em.partition(em.asarray(a), k)), a, [k])
            i = np.asarray(em.argpartition(em.asarray(a), k))
            _check_partitioned(a[i], a, [k])


def test_partition_axes_and_fallbacks(dev, monkeypatch):
    rng = np.random.default_rng(41)
    col = rng.standard_normal((500, 1)).astype(np.float32)  # one line along axis 0
    r = np.asarray(em.partition(em.asarray(col), 100, axis=0))
    assert r.shape == col.shape
    _check_partitioned(r[:, 0], col[:, 0], [100])
    i = np.asarray(em.argpartition(em.asarray(col), 100, axis=0))
    _check_partitioned(col[i[:, 0], 0], col[:, 0], [100])
    r = np.asarray(em.partition(em.asarray(col), 7, axis=None))
    _check_partitioned(r, col.ravel(), [7])
    # batches of rows, complex and more than 8 ranks: the sort (a partition too)
    m = rng.standard_normal((6, 300)).astype(np.float64)
    for ax in (0, 1, -1):
        r = np.asarray(em.partition(to_em(m[:, ::-1]), 3, axis=ax))
        assert np.array_equal(r, np.sort(m[:, ::-1], axis=ax))
    c = (rng.standard_normal(50) + 1j).astype(np.complex64)
    assert_same(em.partition(em.asarray(c), 4), np.sort(c))
    v = rng.standard_normal(400)
    ks = list(range(0, 400, 40))
    _check_partitioned(np.asarray(em.partition(em.asarray(v), ks)), v, ks)
    # the select path and the sort agree on the k-th elements
    x = em.asarray(v)
    sel = np.asarray(em.partition(x, [10, 200]))
    monkeypatch.setenv("EMBER_PARTITION_SELECT", "0")
    srt = np.asarray(em.partition(x, [10, 200]))
    assert sel[10] == srt[10] and sel[200] == srt[200]


def test_partition_errors(dev):
    x = em.asarray(np.arange(5.0))
    with pytest.raises(ValueError, match=r"kth\(=5\) out of bounds \(5\)"):
        em.partition(x, 5)
    with pytest.raises(ValueError, match="out of bounds"):
        em.argpartition(x, -6)
    with pytest.raises(TypeError, match="Partition index must be integer"):
        em.partition(x, 1.5)
    with pytest.raises(IndexError, match=r"kth\(=7\) out of bounds"):
        em._ember.partition(x, [7], False)
    with pytest.raises(ValueError, match="at least one"):
        em._ember.partition(x, [], False)
    with pytest.raises(TypeError, match="no order of complex64"):
        em._ember.partition(em.asarray(np.ones(3, np.complex64)), [0], False)


hyp = pytest.importorskip("hypothesis")
from hypothesis import given, settings, strategies as st  # noqa: E402
from hypothesis.extra import numpy as hnp  # noqa: E402

_DEV = (_devices() or [None])[0]
_HD = st.sampled_from(["int8", "int64", "float32", "bool"])


@pytest.mark.skipif(_DEV is None, reason="no device that compiles kernels")
@settings(max_examples=30, deadline=None)
@given(st.data())
def test_hypothesis_setops_device(data):
    dt = data.draw(_HD)
    a = data.draw(hnp.arrays(dt, hnp.array_shapes(min_dims=1, max_dims=2, max_side=40)))
    b = data.draw(hnp.arrays(dt, hnp.array_shapes(min_dims=1, max_dims=1, max_side=60)))
    with em.Device(_DEV):
        _check_setops(a, b)
        assert_same(em.isin(em.asarray(a), em.asarray(b)), np.isin(a, b))


@pytest.mark.skipif(_DEV is None, reason="no device that compiles kernels")
@settings(max_examples=30, deadline=None)
@given(hnp.arrays(_HD, st.integers(1, 300)), st.data())
def test_hypothesis_partition_device(a, data):
    ks = data.draw(st.lists(st.integers(0, len(a) - 1), min_size=1, max_size=4))
    with em.Device(_DEV):
        _check_partitioned(np.asarray(em.partition(em.asarray(a), ks)), a, ks)
        i = np.asarray(em.argpartition(em.asarray(a), ks))
        _check_partitioned(a[i], a, ks)
