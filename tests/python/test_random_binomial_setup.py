"""The binomial's BTPE setup made once per draw on the CPU (one n and p for
all) gives every value the per-element text gives: an array of equal n
takes the per-element path (the text's em_rs_binomial, no SIMD first try),
a scalar n the hoisted one, from the same element streams."""
import numpy as np
import pytest

import ember as em


@pytest.mark.parametrize("n,p", [(1000, 0.3), (1000, 0.7), (31, 0.5), (61, 0.5), (10**6, 0.01),
                                 (2**40, 0.2), (2**40, 0.9), (20, 0.3), (1000, 0.0), (1000, 1.0),
                                 (1, 0.5), (0, 0.3)])
def test_btpe_setup_once_same_values(device, n, p):
    size = 40_003
    a = em.random.default_rng(11).binomial(n, p, size).get()
    b = em.random.default_rng(11).binomial(em.asarray(np.full(size, n, np.int64)), p).get()
    c = em.random.default_rng(11).binomial(n, em.asarray(np.full(size, p)), size).get()
    np.testing.assert_array_equal(a, b)
    np.testing.assert_array_equal(a, c)
    if 0 < p < 1:
        assert abs(a.mean() - n * p) < 6 * np.sqrt(n * p * (1 - p) / size) + 1e-9
