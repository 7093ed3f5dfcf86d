"""The CPU's order statistics for median/percentile/quantile (1-d, NumPy's five
basic methods): _statistics._cpu_select_kth picks them with NumPy's
single-kth partition instead of a full sort.  Checked bit for bit against
the sort path (EMBER_SELECT=0) and against NumPy, on every real dtype, the
specials (NaN, +-inf, -0.0, ties, all-NaN) and strided/reversed views."""
import warnings

import numpy as np
import pytest

import ember as em
from helpers import assert_same, special_values, views_1d

DTYPES = ["bool", "int8", "uint8", "int16", "int32", "uint32", "int64", "uint64",
          "float16", "float32", "float64"]
CALLS = [("median", {}), ("percentile", {"q": [3, 50, 97.5]}),
         ("quantile", {"q": 0.3, "method": "nearest"}),
         ("quantile", {"q": [0.0, 1.0, 0.5], "method": "midpoint"}),
         ("quantile", {"q": [0.0, 0.1, 0.5, 0.77, 1.0], "method": "lower"}),
         ("percentile", {"q": [50, 60, 70, 80, 90], "method": "higher"}),
         ("nanmedian", {}), ("nanquantile", {"q": [0.1, 0.99]})]


@pytest.mark.parametrize("dtype", DTYPES)
def test_cpu_select_matches_sort_path(dtype, monkeypatch):
    rng = np.random.default_rng(3)
    warnings.simplefilter("ignore", RuntimeWarning)
    for n in (1, 2, 3, 7, 1000, 4097):
        a = special_values(rng, n, dtype, spread=True)
        for x in views_1d(em.asarray(a, device="cpu")):
            for name, kw in CALLS:
                if name.startswith("nan") and a.dtype.kind != "f":
                    continue
                if a.dtype == bool and name not in ("median", "nanmedian") and \
                        kw.get("method", "linear") not in ("lower", "higher", "nearest"):
                    # NumPy's lerp subtracts booleans: TypeError, on both paths
                    for sel in ("1", "0"):
                        monkeypatch.setenv("EMBER_SELECT", sel)
                        with pytest.raises(TypeError):
                            getattr(em, name)(x, **kw)
                    continue
                monkeypatch.delenv("EMBER_SELECT", raising=False)
                got = np.asarray(getattr(em, name)(x, **kw))
                monkeypatch.setenv("EMBER_SELECT", "0")
                want = np.asarray(getattr(em, name)(x, **kw))
                assert got.dtype == want.dtype, (name, kw)
                assert np.array_equal(got, want, equal_nan=True), (name, kw, n)


@pytest.mark.parametrize("dtype", ["int32", "int64", "float32", "float64"])
def test_cpu_select_against_numpy(dtype):
    rng = np.random.default_rng(4)
    warnings.simplefilter("ignore", RuntimeWarning)
    for n in (1, 2, 5, 1000, 1001):
        a = special_values(rng, n, dtype, spread=True)
        f = a.astype(np.float64) if a.dtype.kind in "iu" else a  # NumPy's int lerp wraps
        x = em.asarray(a, device="cpu")
        assert_same(em.median(x), np.median(f), rtol=1e-6)
        assert_same(em.percentile(x, [1, 50, 99]), np.percentile(f, [1, 50, 99]), rtol=1e-6)
        for m in ("lower", "higher", "nearest"):
            assert_same(em.quantile(x, [0.0, 0.3, 1.0], method=m),
                        np.quantile(a, [0.0, 0.3, 1.0], method=m))
        if a.dtype.kind == "f":
            assert_same(em.nanmedian(x), np.nanmedian(a), rtol=1e-6)
            assert_same(em.nanquantile(x, [0.2, 0.9]), np.nanquantile(a, [0.2, 0.9]), rtol=1e-6)


def test_cpu_select_all_nan_and_single_nan():
    warnings.simplefilter("ignore", RuntimeWarning)
    a = np.full(9, np.nan, np.float32)
    assert_same(em.median(em.asarray(a)), np.median(a))
    assert_same(em.nanmedian(em.asarray(a)), np.nanmedian(a))
    b = np.arange(10, dtype=np.float64)
    b[0] = np.nan  # the NaN at the front: the partition's kth n - 1 must still see it
    assert_same(em.median(em.asarray(b)), np.median(b))
    assert_same(em.nanmedian(em.asarray(b)), np.nanmedian(b))
