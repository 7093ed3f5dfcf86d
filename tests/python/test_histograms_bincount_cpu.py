"""bincount's one-pass C count on the CPU (backend/cpu/bincount.c) against
NumPy: every integer dtype at the ends of its range, layouts, sizes that
split over threads, weights (bit for bit: one thread, NumPy's order),
minlength and the errors."""
import numpy as np
import pytest

import ember as em

# the CPU's own loop, bit for bit: on a GPU default device (EMBER_DEVICE=cuda:0)
# weighted sums are atomics in another order, which test_histograms checks
pytestmark = pytest.mark.usefixtures("cpu_unless_device_param")

DTYPES = ["bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32"]


def same(got, want):
    got = got.get() if hasattr(got, "get") else got
    assert got.dtype == want.dtype and got.shape == want.shape
    np.testing.assert_array_equal(got, want)  # exact, NaN where NumPy has NaN


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("n", [0, 1, 7, 1000, (1 << 19) + 3])
def test_bincount_dtypes_sizes(rng, dtype, n):
    hi = 2 if dtype == "bool" else 120 if dtype == "int8" else 3000
    x = rng.integers(0, hi, size=n).astype(dtype)
    same(em.bincount(em.asarray(x)), np.bincount(x))
    same(em.bincount(em.asarray(x), minlength=5000), np.bincount(x, minlength=5000))
    w = rng.normal(size=n)
    same(em.bincount(em.asarray(x), weights=em.asarray(w)), np.bincount(x, weights=w))


@pytest.mark.parametrize("dtype", ["int8", "int16", "uint8", "uint16"])
def test_bincount_range_ends(rng, dtype):
    top = np.iinfo(dtype).max
    x = np.array([top, 0, top, 1], dtype)
    same(em.bincount(em.asarray(x)), np.bincount(x))
    x = rng.integers(0, top, size=5000, endpoint=True).astype(dtype)
    same(em.bincount(em.asarray(x)), np.bincount(x))


def test_bincount_growth_and_layouts(rng):
    # a late large value grows the table past what the first values needed
    x = np.concatenate([rng.integers(0, 10, 300000), [70000], rng.integers(0, 10, 300000)])
    same(em.bincount(em.asarray(x)), np.bincount(x))
    for sl in (slice(None, None, 3), slice(None, None, -1), slice(None, None, -7)):
        same(em.bincount(em.asarray(x)[sl]), np.bincount(x[sl]))
        w = rng.random(x.size)
        same(em.bincount(em.asarray(x)[sl], weights=em.asarray(w)[sl]),
             np.bincount(x[sl], weights=w[sl]))
    # weights of other dtypes are cast to float64, as NumPy's
    w = rng.integers(-5, 5, x.size).astype(np.int32)
    same(em.bincount(em.asarray(x), weights=em.asarray(w)), np.bincount(x, weights=w))
    w = rng.normal(size=x.size).astype(np.float32)
    same(em.bincount(em.asarray(x), weights=em.asarray(w)), np.bincount(x, weights=w))
    wn = np.array([np.nan, np.inf, 1.0, -np.inf])
    xs = np.array([0, 0, 2, 2])
    same(em.bincount(em.asarray(xs), weights=em.asarray(wn)), np.bincount(xs, weights=wn))
    # no samples: int64 even with weights
    e = np.zeros(0, np.int32)
    same(em.bincount(em.asarray(e), weights=em.asarray(np.zeros(0)), minlength=3),
         np.bincount(e, weights=np.zeros(0), minlength=3))
    # uint64 goes to NumPy's loop (a cast error in older NumPy)
    u = np.array([1, 3, 3], np.uint64)
    try:
        want = np.bincount(u)
    except TypeError:
        with pytest.raises(TypeError, match="Cannot cast"):
            em.bincount(em.asarray(u))
    else:
        same(em.bincount(em.asarray(u)), want)


@pytest.mark.parametrize("where", [0, 5, 300000, 599999])
def test_bincount_negative(rng, where):
    x = rng.integers(0, 50, 600000)
    x[where] = -3
    with pytest.raises(ValueError, match="must have no negative elements"):
        em.bincount(em.asarray(x))
    with pytest.raises(ValueError, match="must have no negative elements"):
        em.bincount(em.asarray(x), weights=em.asarray(rng.random(x.size)))
    with pytest.raises(ValueError, match="must have no negative elements"):
        em.bincount(em.asarray(x.astype(np.int8)))
