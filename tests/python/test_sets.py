"""unique and the Array API unique_* functions, against NumPy (sorted values)."""
import numpy as np
import pytest

import ember as em
from helpers import ALL_DTYPES, assert_same, layouts, to_em

@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=str)
def test_unique_family(device, rng, dtype):
    for name, a in layouts(rng, (5, 6), dtype, low=0, high=4):  # few distinct values
        x = to_em(a)
        v, idx, inv, cnt = np.unique(a, return_index=True, return_inverse=True,
                                     return_counts=True, equal_nan=False)
        assert_same(em.unique_values(x), v)
        r = em.unique_counts(x)
        assert_same(r.values, v), assert_same(r.counts, cnt)
        r = em.unique_inverse(x)
        assert_same(r.values, v), assert_same(r.inverse_indices, inv.reshape(a.shape))
        r = em.unique_all(x)
        assert_same(r.indices, idx), assert_same(r.counts, cnt)
        assert_same(em.unique(x), np.unique(a))
        assert all(y.device == device for y in r), name


def test_unique_nan_and_numpy_options(device):
    a = np.array([2.0, np.nan, 1.0, np.nan, 2.0])
    x = em.asarray(a)
    assert_same(em.unique_values(x), np.array([1.0, 2.0, np.nan, np.nan]))  # NaNs distinct
    assert_same(em.unique(x), np.unique(a))  # NumPy's default: equal_nan=True
    vals, counts = em.unique(x, return_counts=True)
    assert_same(counts, np.unique(a, return_counts=True)[1])
    with pytest.raises(TypeError, match="expected an ember.ndarray, got list"):
        em.unique_values([1, 2])
