"""The CPU's radix argsort (backend/cpu/sort.c, through em_sort/em_argsort):
NumPy's stable argsort is the oracle, bit for bit, on every real dtype, with
ties, NaNs of both signs, -0.0 beside 0.0, the extremes of each integer type,
descending (ties kept in order, NaNs first), every axis, strided and reversed
inputs, and a row long enough for the parallel passes (>= 65536)."""
import numpy as np
import pytest

import ember as em
from ember import _ember

DTYPES = ["bool", "int8", "uint8", "int16", "uint16", "int32", "uint32", "int64", "uint64",
          "float16", "float32", "float64"]


def _data(rng, dt, shape):
    n = int(np.prod(shape))
    if dt == "bool":
        return (rng.random(n) < 0.5).reshape(shape)
    if dt[0] == "f":
        a = (rng.standard_normal(n) * 3).round(1).astype(dt)  # rounded: many ties
        if n > 20:
            a[::7], a[1::9], a[2::9] = np.nan, -0.0, 0.0
            a[3::11], a[4::11], a[5::13] = np.inf, -np.inf, -np.nan
        return a.reshape(shape)
    info = np.iinfo(dt)
    a = rng.integers(info.min, info.max, n, endpoint=True, dtype=dt)
    if n > 10:
        a[::5], a[1::5], a[2::6] = info.min, info.max, 0
    return a.reshape(shape)


def _expect(h, axis, descending):
    if axis is None:
        h, axis = h.reshape(-1), 0
    if not descending:
        return np.argsort(h, axis=axis, kind="stable")
    n = h.shape[axis]
    return (n - 1) - np.flip(np.argsort(np.flip(h, axis), axis=axis, kind="stable"), axis)


def _check(a, axis=-1, descending=False):
    x = em.asarray(a, device="cpu")
    exp = _expect(a, axis, descending)
    np.testing.assert_array_equal(em.argsort(x, axis=axis, descending=descending).get(), exp)
    # the values through the same positions: each keeps its own bits
    got = np.ascontiguousarray(_ember.sort(x, -1 if axis is None and a.ndim == 1 else axis,
                                           descending, False).get())
    h, ax = (a.reshape(-1), 0) if axis is None else (a, axis)
    want = np.ascontiguousarray(np.take_along_axis(h, exp, axis=ax))
    assert got.tobytes() == want.tobytes()


@pytest.mark.parametrize("dt", DTYPES)
def test_radix_argsort_1d(dt):
    rng = np.random.default_rng(21)
    for n in (0, 1, 2, 33, 1000, 70_001):
        a = _data(rng, dt, (n,))
        for descending in (False, True):
            _check(a, -1, descending)
    a = _data(rng, dt, (1000,))
    _check(a[::-3])  # strided and reversed: sorted from a C-contiguous copy
    _check(np.full(100, a[0]))  # all equal: every pass skipped, positions in order


@pytest.mark.parametrize("dt", ["int8", "uint16", "int32", "float32", "float64", "int64"])
def test_radix_argsort_axes(dt):
    rng = np.random.default_rng(22)
    b = _data(rng, dt, (37, 41))
    for axis in (0, 1, -1, None):
        _check(b, axis)
        _check(b, axis, True)
        _check(b[::-2, ::3], axis)
    c = _data(rng, dt, (3, 0, 4))
    for axis in (0, 1, 2, None):
        _check(c, axis)
    _check(_data(rng, dt, (200, 700)), 1)  # many rows: one per worker
    x0 = em.asarray(np.asarray(5, dtype=dt), device="cpu")
    assert em.argsort(x0).get() == np.argsort(np.asarray(5, dtype=dt))


def test_radix_argsort_routes():
    """Only stable CPU argsorts of real dtypes take the radix sort: kind=
    'quicksort' and complex inputs stay NumPy's, and a bad axis raises
    NumPy's AxisError."""
    rng = np.random.default_rng(23)
    a = rng.integers(0, 5, 1000).astype(np.int32)
    x = em.asarray(a, device="cpu")
    np.testing.assert_array_equal(em.argsort(x, kind="stable").get(),
                                  np.argsort(a, kind="stable"))
    np.testing.assert_array_equal(np.sort(a[em.argsort(x, kind="quicksort").get()]), np.sort(a))
    z = (rng.standard_normal(50) + 1j * rng.standard_normal(50)).round(0)
    np.testing.assert_array_equal(em.argsort(em.asarray(z, device="cpu")).get(),
                                  np.argsort(z, kind="stable"))
    with pytest.raises(np.exceptions.AxisError):
        em.argsort(x, axis=1)
    with pytest.raises(TypeError, match="complex"):
        _ember.sort(em.asarray(z, device="cpu"), -1, False, True)


def test_permutation_is_unchanged():
    """permutation and shuffle argsort random 32-bit keys: through the radix
    sort they give the permutation the stable sort gave (ties included)."""
    g = em.random.default_rng(5)
    keys = g.bit_generator._fill("bits", (300_000,), np.uint32, "cpu").get()
    g2 = em.random.default_rng(5)
    np.testing.assert_array_equal(g2.permutation(300_000).get(), np.argsort(keys, kind="stable"))


def test_cpu_lexsort_through_the_radix_sort():
    """lexsort of CPU keys of real dtypes takes the devices' route on the
    CPU's radix sort (one argsort of the keys packed in one word where they
    fit 64 bits, else one a key): NumPy's lexsort order on bools, signed and
    unsigned widths, keys past 64 bits, floats with NaN, every axis of 2-D
    keys, a stacked key array; 0-d keys and bad shapes as NumPy."""
    rng = np.random.default_rng(24)
    cases = [(rng.random(500) < .5, rng.integers(-3, 3, 500).astype(np.int8)),
             (rng.integers(-5, 5, 500), rng.integers(-5, 5, 500)),  # 128 bits: one sort a key
             (np.where(rng.random(500) < .1, np.nan, rng.integers(0, 4, 500)).astype(np.float32),
              rng.integers(0, 3, 500).astype(np.uint16)),
             (rng.integers(0, 3, (20, 30)).astype(np.int32), rng.integers(0, 3, (20, 30)) * 1.5),
             (rng.integers(0, 100, 70_000).astype(np.int32),
              rng.integers(0, 1 << 20, 70_000).astype(np.int32))]
    for ks in cases:
        eks = tuple(em.asarray(k, device="cpu") for k in ks)
        for ax in ([-1] if ks[0].ndim == 1 else [0, 1, -1]):
            np.testing.assert_array_equal(em.lexsort(eks, axis=ax).get(), np.lexsort(ks, axis=ax))
        np.testing.assert_array_equal(em.lexsort(em.asarray(np.stack(ks[:1]), device="cpu")).get(),
                                      np.lexsort(np.stack(ks[:1])))
    k0 = np.asarray(3, dtype=np.int32)
    assert em.lexsort((em.asarray(k0, device="cpu"),)).get() == np.lexsort((k0,))
    with pytest.raises(ValueError, match="same shape"):
        em.lexsort((em.arange(3, device="cpu"), em.arange(4, device="cpu")))


@pytest.mark.parametrize("dt", ["bool", "int8", "uint16", "int32", "uint32", "int64", "uint64"])
def test_cpu_unique_of_integers(dt):
    """unique(x) of CPU integers (a sort and one comparison pass, not NumPy
    2.4's hashing) and the set operations over it: np.unique's values and
    dtype on every shape, 0-d and empty included."""
    rng = np.random.default_rng(25)
    for shape in ((), (0,), (1,), (1000,), (30, 40), (70_000,)):
        if dt == "bool":
            a = rng.random(shape) < 0.5
        else:
            info = np.iinfo(dt)
            a = rng.integers(max(info.min, -50), min(info.max, 50), shape, endpoint=True,
                             dtype=dt)
        x = em.asarray(a, device="cpu")
        got = em.unique(x)
        assert got.dtype == np.unique(a).dtype
        np.testing.assert_array_equal(got.get(), np.unique(a))
        if a.ndim == 2:
            np.testing.assert_array_equal(em.unique(x[::-1, ::3]).get(), np.unique(a[::-1, ::3]))
    a = rng.integers(0, 200, 5000).astype(dt if dt != "bool" else "int8")
    b = rng.integers(100, 300, 4000).astype(a.dtype)
    ea, eb = em.asarray(a, device="cpu"), em.asarray(b, device="cpu")
    for name in ("union1d", "intersect1d", "setdiff1d", "setxor1d"):
        np.testing.assert_array_equal(getattr(em, name)(ea, eb).get(), getattr(np, name)(a, b))
