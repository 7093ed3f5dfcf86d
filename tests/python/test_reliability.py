"""Regression tests for the defects a differential fuzz against NumPy found
(issue 20): crashes at the dimension limit, planner limits reaching the
user, wrong values and dtypes returned silently, and NumPy's behaviour at
the boundaries (slices at +-len, `where` with scalar conditions)."""
import time

import numpy as np
import pytest

import ember as em
from helpers import ALL_DTYPES

MAXD = 32


# ---- the dimension limit: a clear error, never a write past shape[32] ----

def test_index_past_the_limit_raises(device):
    y = em.zeros((1,) * MAXD)
    with pytest.raises(IndexError, match=r"within \[0, 32\], indexing result would have 33"):
        y[:, None]
    with pytest.raises(IndexError, match="indexing result would have 33"):
        y[(slice(None),) * MAXD + (None,)]
    assert y[0, None].shape == (1,) * MAXD  # an integer makes room for the newaxis


def test_view_with_newaxis_keeps_values(device):
    x = np.arange(6).reshape((1,) * 29 + (2, 3))
    r = em.asarray(x)[:, None]
    assert r.shape == x[:, None].shape
    np.testing.assert_array_equal(em.asnumpy(r).ravel(), np.arange(6))


def test_expand_dims_past_the_limit(device):
    y = em.zeros((1,) * MAXD)
    with pytest.raises(ValueError, match="maximum supported dimension for an ndarray is 32, "
                                         "found 33"):
        em.expand_dims(y, 0)
    assert em.expand_dims(em.zeros((1,) * 31), 0).ndim == MAXD


@pytest.mark.parametrize("make", [
    lambda: np.zeros((1,) * 33),
    lambda: memoryview(np.zeros((1,) * 33)),
    lambda: np.zeros((1,) * 40)[..., 0],
    lambda: np.zeros((1,) * 64),
])
def test_asarray_of_too_many_dims(device, make):
    with pytest.raises(ValueError, match="maximum supported dimension for an ndarray is 32"):
        em.asarray(make())


def test_asarray_of_deep_lists(device):
    deep = 0
    for _ in range(40):
        deep = [deep]
    with pytest.raises(ValueError, match="dimension"):
        em.asarray(deep)
    for _ in range(100000):  # NumPy refuses past 64 levels, without recursing that deep
        deep = [deep]
    with pytest.raises(ValueError):
        em.asarray(deep)
    ok = 0
    for _ in range(MAXD):
        ok = [ok]
    assert em.asarray(ok).shape == (1,) * MAXD


@pytest.mark.parametrize("shape", [2**63, (2**63,), (2, 2**64), -2**63 - 1])
def test_empty_of_a_dimension_past_int64(device, shape):
    for f in (em.empty, em.zeros, em.ones):
        with pytest.raises(ValueError, match="Maximum allowed dimension exceeded"):
            f(shape)
        with pytest.raises(ValueError, match="Maximum allowed dimension exceeded"):
            np.empty(shape)
