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
        if a.ndim == 0:  # NumPy's argsort flattens a 0-d array (its sort raises AxisError)
            for axis in (-1, 0):
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


@pytest.mark.parametrize("m", [1, 2047, 2048, 2049, 3000])
@pytest.mark.parametrize("dtype", ["float32", "int64", "complex128"])
def test_searchsorted_haystack_sizes(device, rng, m, dtype):
    # On a device a haystack of up to 2048 keys (one key word: not complex128)
    # is searched in shared memory, a longer one in global memory.
    a = np.sort(random_array(rng, (m,), dtype, low=-50, high=50))
    v = random_array(rng, (5000,), dtype, low=-60, high=60)
    if dtype == "float32":
        v[::7] = np.nan
        a[-1:] = np.nan
    for side in ("left", "right"):
        assert_same(em.searchsorted(to_em(a), to_em(v), side=side),
                    np.searchsorted(a, v, side=side).astype(np.int64))
    p = rng.permutation(m)
    assert_same(em.searchsorted(to_em(a[p]), to_em(v), sorter=to_em(np.argsort(p))),
                np.searchsorted(a, v).astype(np.int64))


@pytest.mark.parametrize("old", ["0", "1"])
def test_searchsorted_shared_every_length(device, rng, old, monkeypatch):
    # The shared-memory search's steps depend on the haystack's length alone:
    # every length up to 70 and the powers of two around 1024 and 2048, with
    # ties (few distinct keys), needles below, between, on and above them;
    # the old form (EMBER_SEARCH_OLD=1) is kept for timing and must agree too.
    monkeypatch.setenv("EMBER_SEARCH_OLD", old)
    for m in list(range(0, 70)) + [511, 512, 1023, 1024, 1025, 2047, 2048]:
        a = np.sort(rng.integers(-20, 20, size=m)).astype(np.int32)
        v = rng.integers(-25, 25, size=3000).astype(np.int32)
        for side in ("left", "right"):
            assert_same(em.searchsorted(to_em(a), to_em(v), side=side),
                        np.searchsorted(a, v, side=side).astype(np.int64))
    a = np.sort(rng.standard_normal(1024)).astype(np.float32)
    v = rng.standard_normal(20000).astype(np.float32)
    v[::11] = a[rng.integers(0, 1024, size=v[::11].size)]
    v[::13] = np.nan
    v[1::13] = np.inf
    v[2::13] = -np.inf
    for right in (False, True):
        assert_same(em.digitize(to_em(v), to_em(a), right=right), np.digitize(v, a, right=right))
        assert_same(em.digitize(to_em(v[::-3]), to_em(a[::-1]), right=right),
                    np.digitize(v[::-3], a[::-1], right=right))


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


@pytest.mark.parametrize("axis", [0, -1])
def test_unique_axis_of_a_1d_array_is_the_flat_unique(device, axis):
    """NumPy: a 1-d array's axis is checked and then ignored, so NaNs merge and
    -0.0 == 0.0 as without it (the device's axis path kept every NaN: GPU fuzz
    seed 20000801)."""
    a = np.array([np.nan, 1.0, -0.0, np.nan, 0.0, 1.0, 2.5, np.nan], np.float32)
    for got, want in zip(em.unique(em.asarray(a), return_index=True, return_inverse=True,
                                   return_counts=True, axis=axis),
                         np.unique(a, return_index=True, return_inverse=True, return_counts=True,
                                   axis=axis)):
        assert_same(got, want)
    assert_same(em.unique(em.asarray(a), axis=axis, equal_nan=False),
                np.unique(a, axis=axis, equal_nan=False))
    with pytest.raises(np.exceptions.AxisError):
        em.unique(em.asarray(a), axis=1)


def test_partition_kth_errors(device):
    """kth of more than one dimension is NumPy's ValueError on every path (the device
    took [[0]]: GPU fuzz seed 20000113); a float kth its TypeError."""
    for a in (np.arange(12.0).reshape(3, 4), np.arange(7.0)):
        x = em.asarray(a)
        for f, g in ((em.partition, np.partition), (em.argpartition, np.argpartition)):
            for k in ([[0]], np.array([[1]]), [[0, 1]]):
                with pytest.raises(ValueError):
                    g(a, k, axis=-1)
                with pytest.raises(ValueError):
                    f(x, k, axis=-1)
            with pytest.raises(TypeError, match="Partition index must be integer"):
                f(x, 1.5)
        # a 1-element kth list is fine
        assert_same(em.partition(x, [1], axis=-1)[..., 1], np.partition(a, [1], axis=-1)[..., 1])


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


# ---- the device radix sort's edges (every test runs on each device) --------

def _specials(dtype, n, rng):
    """n values of dtype with ties, extremes, and for floats NaN, +-inf, -0.0."""
    dtype = np.dtype(dtype)
    if dtype.kind == "b":
        return rng.random(n) < 0.5
    if dtype.kind in "iu":
        info = np.iinfo(dtype)
        pool = np.array([info.min, info.min + 1, -1 if dtype.kind == "i" else 1, 0, 1, 2,
                         info.max - 1, info.max], dtype=dtype)
        return pool[rng.integers(0, len(pool), n)]
    pool = np.array([np.nan, -np.nan, np.inf, -np.inf, 0.0, -0.0, 1.0, -1.0, 2.5, -2.5, 1e-3],
                    dtype=np.float64)
    re = pool[rng.integers(0, len(pool), n)]
    if dtype.kind == "c":
        im = pool[rng.integers(0, len(pool), n)]
        return _cplx(re, im, dtype)
    return re.astype(dtype)


def _cplx(re, im, dtype):
    out = np.empty(re.shape, dtype)
    out.real, out.imag = re, im  # keeps NaN/inf parts as given (re + 1j*im would mix them)
    return out


def _stable_desc(a, axis):
    """NumPy's order reversed with ties kept in their original order."""
    n = a.shape[axis]
    return (n - 1) - np.flip(np.argsort(np.flip(a, axis), axis=axis, kind="stable"), axis)


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=str)
@pytest.mark.parametrize("n", [1, 2, 255, 257, 4095, 4096, 4097, 8193])
def test_sort_specials_lengths(device, dtype, n):
    rng = np.random.default_rng(n)
    a = _specials(dtype, n, rng)
    x = em.asarray(a)
    assert_same(em.argsort(x), np.argsort(a, kind="stable"))
    assert_same(em.sort(x), np.sort(a))
    assert_same(em.argsort(x, descending=True), _stable_desc(a, 0))
    assert_same(em.sort(x, descending=True), np.take(a, _stable_desc(a, 0)))


@pytest.mark.parametrize("dtype", ["float32", "int64", "uint8", "complex64", "float16", "bool"])
def test_sort_every_axis_noncontiguous(device, rng, dtype):
    a = _specials(dtype, 3 * 5 * 70, rng).reshape(3, 5, 70)
    views = {"c": a, "f": np.asfortranarray(a), "rev": a[::-1, :, ::-2], "t": a.transpose(2, 0, 1)}
    for name, v in views.items():
        x = to_em(v)
        for axis in (0, 1, 2, -1, None):
            assert_same(em.argsort(x, axis=axis), np.argsort(v, axis=axis, kind="stable"))
            assert_same(em.sort(x, axis=axis), np.sort(v, axis=axis))
        for axis in (0, 2):
            assert_same(em.argsort(x, axis=axis, descending=True), _stable_desc(v, axis))


@pytest.mark.parametrize("dtype", ["float64", "int32", "complex128"])
def test_sort_all_equal_and_empty(device, dtype):
    a = np.full(5000, 3, dtype=dtype)
    assert_same(em.argsort(em.asarray(a)), np.arange(5000))
    assert_same(em.argsort(em.asarray(a), descending=True), np.arange(5000))
    assert_same(em.sort(em.asarray(a)), a)
    for shape in [(0,), (3, 0), (0, 4)]:
        e = np.zeros(shape, dtype)
        for axis in (-1, 0, None):
            assert_same(em.sort(em.asarray(e), axis=axis), np.sort(e, axis=axis))
            assert_same(em.argsort(em.asarray(e), axis=axis), np.argsort(e, axis=axis))
    z = np.array(2.5).astype(dtype)
    assert_same(em.sort(em.asarray(z), axis=None), np.sort(z, axis=None))
    assert_same(em.argsort(em.asarray(z), axis=None), np.argsort(z, axis=None))


def test_sort_many_rows(device, rng):
    """Rows as segments: many short rows (the row in the key's high bits)
    and few long ones, 64-bit keys (the row as its own word)."""
    for dtype, shape in (("float32", (3000, 7)), ("int16", (9, 5000)), ("float64", (700, 13)),
                         ("uint64", (4, 3000))):
        a = _specials(dtype, shape[0] * shape[1], rng).reshape(shape)
        x = em.asarray(a)
        assert_same(em.argsort(x), np.argsort(a, kind="stable"))
        assert_same(em.argsort(x, axis=0, descending=True), _stable_desc(a, 0))
        assert_same(em.sort(x, axis=0), np.sort(a, axis=0))


@pytest.mark.parametrize("dtype", ["float32", "float64", "int8", "uint32", "complex64"])
def test_searchsorted_specials(device, rng, dtype):
    hay = np.sort(_specials(dtype, 600, rng))
    v = _specials(dtype, 301, rng).reshape(7, 43)[:, ::2]
    for side in ("left", "right"):
        assert_same(em.searchsorted(em.asarray(hay), to_em(v), side=side),
                    np.searchsorted(hay, v, side=side).astype(np.int64))
    u = _specials(dtype, 600, rng)
    s = np.argsort(u, kind="stable")
    assert_same(em.searchsorted(em.asarray(u), em.asarray(v), sorter=em.asarray(s)),
                np.searchsorted(u, v, sorter=s).astype(np.int64))
    assert_same(em.searchsorted(em.asarray(hay[:0]), em.asarray(v)),
                np.searchsorted(hay[:0], v).astype(np.int64))


@pytest.mark.parametrize("dtype", ["float32", "float64", "int64", "uint8", "bool", "complex128"])
def test_unique_specials(device, rng, dtype):
    a = _specials(dtype, 3000, rng).reshape(3, 1000, 1)[:, ::-1]
    x = to_em(a)
    for got, want in zip(em.unique(x, return_index=True, return_inverse=True, return_counts=True),
                         np.unique(a, return_index=True, return_inverse=True, return_counts=True)):
        assert_same(got, want)
    if dtype != "complex128":  # NumPy's complex NaN grouping is its own
        assert_same(em.unique_values(x), np.unique(a, equal_nan=False))
        for got, want in zip(em.unique_counts(x), np.unique_counts(a)):
            assert_same(got, want)


@pytest.mark.parametrize("dtype", ["float32", "float64", "float16", "int32", "uint8", "bool",
                                   "complex64"])
@pytest.mark.parametrize("n", [1, 5000])
def test_argsort_with_values(device, rng, dtype, n):
    """The argsort that also returns its sorted values (unique's inverse):
    where the device gives them, byte for byte the elements it indexes
    (-0.0 beside 0.0, NaNs of either sign: copied, not decoded); the
    values of unique(return_index=True) keep the first element's zero sign,
    as NumPy's stable sort gives it."""
    from ember import _ember
    a = _specials(dtype, n, rng)
    x = to_em(a[::-1])  # a negative stride
    if dtype.startswith("complex") and x.device == em.asarray(0, device="cpu").device:
        return  # the CPU's radix sort takes real dtypes (NumPy sorts complex there)
    perm, s = _ember.sort(x, 0, False, True, True)
    want = np.argsort(a[::-1], kind="stable")
    assert_same(perm, want)
    if s is not None:
        assert np.ascontiguousarray(a[::-1][want]).tobytes() == em.asnumpy(s).tobytes()
    if dtype.startswith("float"):
        v, i = em.unique(x, return_index=True)
        wv, wi = np.unique(a[::-1], return_index=True)
        assert_same(i, wi)
        assert_same(v, wv)
        assert (np.signbit(em.asnumpy(v)) == np.signbit(wv)).all()


def test_isin_lexsort_digitize_partition(device, rng):
    a = rng.integers(0, 50, (40, 30)).astype(np.int32)
    b = rng.integers(0, 50, 17).astype(np.int64)
    assert_same(em.isin(em.asarray(a), em.asarray(b)), np.isin(a, b))
    assert_same(em.isin(em.asarray(a), em.asarray(b), invert=True), np.isin(a, b, invert=True))
    k = [rng.integers(0, 3, 500).astype(t) for t in ("float32", "int8", "uint16")]
    assert_same(em.lexsort([em.asarray(x) for x in k]), np.lexsort(k))
    f = rng.standard_normal(1000)
    bins = np.linspace(-2, 2, 9)
    assert_same(em.digitize(em.asarray(f), em.asarray(bins)), np.digitize(f, bins).astype(np.int64))
    p = np.asarray(em.partition(em.asarray(f), 400))
    assert p[400] == np.sort(f)[400] and (p[:400] <= p[400]).all() and (p[401:] >= p[400]).all()
    ip = np.asarray(em.argpartition(em.asarray(f), 400))
    assert f[ip[400]] == np.sort(f)[400]


hyp = pytest.importorskip("hypothesis")
from hypothesis import given, settings, strategies as st  # noqa: E402
from hypothesis.extra import numpy as hnp  # noqa: E402

_HDTYPES = st.sampled_from(["int8", "uint16", "int32", "int64", "float32", "float64", "bool"])


@settings(max_examples=40, deadline=None)
@given(hnp.arrays(_HDTYPES, hnp.array_shapes(min_dims=1, max_dims=3, max_side=40)), st.booleans())
def test_hypothesis_sort(a, desc):
    x = em.asarray(a)
    axis = -1
    if desc:
        assert_same(em.argsort(x, axis=axis, descending=True), _stable_desc(a, a.ndim - 1))
    else:
        assert_same(em.argsort(x, axis=axis), np.argsort(a, axis=axis, kind="stable"))
        assert_same(em.sort(x, axis=None), np.sort(a, axis=None))


@settings(max_examples=40, deadline=None)
@given(hnp.arrays(_HDTYPES, hnp.array_shapes(min_dims=1, max_dims=2, max_side=60)))
def test_hypothesis_unique(a):
    x = em.asarray(a)
    for got, want in zip(em.unique(x, return_index=True, return_inverse=True, return_counts=True),
                         np.unique(a, return_index=True, return_inverse=True, return_counts=True)):
        assert_same(got, want)
    assert_same(em.unique_values(x), np.unique(a, equal_nan=False))


@settings(max_examples=40, deadline=None)
@given(hnp.arrays("float64", st.integers(0, 80)), hnp.arrays("float64", st.integers(0, 30)),
       st.sampled_from(["left", "right"]))
def test_hypothesis_searchsorted(hay, v, side):
    hay = np.sort(hay)
    assert_same(em.searchsorted(em.asarray(hay), em.asarray(v), side=side),
                np.searchsorted(hay, v, side=side).astype(np.int64))


def _complex_classes(dtype, n, rng):
    """Complex values of NumPy's four sort classes (numbers, imaginary NaN,
    real NaN, both NaN) with -0.0, +-inf and ties."""
    pool = np.array([np.nan, np.inf, -np.inf, 0.0, -0.0, 1.0, -1.0, 2.5])
    return _cplx(pool[rng.integers(0, len(pool), n)], pool[rng.integers(0, len(pool), n)], dtype)


def _opencl_or_skip():
    if not em.opencl.is_available():
        pytest.skip("no OpenCL platform")
    return em.Device("opencl:0")


@pytest.mark.parametrize("dtype", ["complex64", "complex128"])
def test_complex_nan_classes_on_opencl(dtype):
    """The device key of a complex value follows NumPy's classes: 2+0j sorts
    before 1+nanj (a (real key, imaginary key) pair put it after; that was
    the wrong order first seen on the H200).  Runs on opencl:0 even where
    the rest of this module does not (conftest._OPENCL_SKIP): few kernels."""
    rng = np.random.default_rng(7)
    with _opencl_or_skip():
        for n in (5, 4097):
            a = _complex_classes(dtype, n, rng)
            x = em.asarray(a)
            assert_same(em.argsort(x), np.argsort(a, kind="stable"))
            assert_same(em.sort(x), np.sort(a))
            assert_same(em.argsort(x, descending=True), _stable_desc(a, 0))
        r = _complex_classes(dtype, 6 * 50, rng).reshape(6, 50)
        assert_same(em.argsort(em.asarray(r), axis=0), np.argsort(r, axis=0, kind="stable"))
        hay = np.sort(_complex_classes(dtype, 200, rng))
        v = _complex_classes(dtype, 40, rng)
        assert_same(em.searchsorted(em.asarray(hay), em.asarray(v)),
                    np.searchsorted(hay, v).astype(np.int64))
        b = np.array([1 + 1j, complex(1, np.nan), complex(np.nan, 0), 2 + 0j], dtype)
        assert_same(em.sort(em.asarray(b)), np.sort(b))


def test_sort_large_on_opencl():
    """A million keys and more on opencl:0 (the reduce-then-scan kernels over
    256 tiles): argsort by NumPy's stable order, sort descending."""
    rng = np.random.default_rng(11)
    a = _specials("float32", (1 << 20) + 7, rng)
    with _opencl_or_skip():
        x = em.asarray(a)
        assert_same(em.argsort(x), np.argsort(a, kind="stable"))
        assert_same(em.sort(x, descending=True), np.take(a, _stable_desc(a, 0)))
