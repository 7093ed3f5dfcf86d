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


# ---- the planner's limits never reach the user ----

@pytest.mark.parametrize("n", [20000, 7])
def test_shared_inputs_past_the_tree_limit(device, capfd, n):
    """where(x > 2, x, x) reads x three times: the expanded tree triples per
    iteration and crosses the backends' node limits in one op (small arrays
    are lazy inside em.fuse)."""
    @em.fuse
    def loop(x):
        for _ in range(8):
            x = em.where(x > 2, x, x) * 0.5
        return x

    xn = np.ones(n)
    for _ in range(8):
        xn = np.where(xn > 2, xn, xn) * 0.5
    np.testing.assert_array_equal(em.asnumpy(loop(em.ones(n))), xn)
    assert "Traceback" not in capfd.readouterr().err


def test_shared_inputs_dropped_unread(device, capfd):
    x = em.ones(20000)
    for _ in range(8):
        x = em.where(x > 2, x, x) * 0.5
        y = x + x * x  # dropped unread: evaluated on dealloc, must not fail
        del y
    assert float(x[3]) == 0.5 ** 8
    assert "Traceback" not in capfd.readouterr().err


def test_integer_chain_compiles_in_bounded_time(fake_lib, tmp_path):
    """250 iterations of abs / % / // / + / minimum on int64 fuse into 25-op
    kernels on CUDA; with branchy integer division in the prelude NVRTC's
    compile time exploded with the chain's length (one kernel took > 2
    minutes).  Compiled for real under the fake driver, never run."""
    import os
    import subprocess
    import sys
    from helpers import nvrtc_available
    if not nvrtc_available():
        pytest.skip("NVRTC is not installed")
    code = ("import ember as em\n"
            "with em.Device('cuda:0'):\n"
            "    x = em.arange(7) - 50\n"
            "    for _ in range(250):\n"
            "        x = abs(x) % 1000; x = x // 2 + 3; x = em.minimum(x, 500)\n"
            "    em.eval(x)\n"
            "print(em._ember._kernel_stats()['kernels'])\n")
    env = dict(os.environ, EMBER_LIBCUDA=fake_lib, EMBER_CACHE_DIR=str(tmp_path),
               PYTHONPATH=os.path.join(os.path.dirname(__file__), "..", "..", "python"))
    env.pop("EMBER_DEVICE", None)
    t = time.monotonic()
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env,
                       timeout=600)
    assert r.returncode == 0, r.stderr
    assert int(r.stdout.split()[-1]) <= 8  # a few distinct kernels (phases of the loop)
    assert time.monotonic() - t < 120, "compiling the fused integer chain took too long"


# ---- wrong answers returned silently ----

@pytest.mark.parametrize("idx", [[3, -2], [-2], [-12, 3], [5, 3], [3, 3, 12], [-1, -5], [0, -10],
                                 [], [11], [2, 100, -100]])
@pytest.mark.parametrize("fn", ["split", "array_split"])
def test_split_at_negative_indices(device, fn, idx):
    x = np.arange(20).reshape(10, 2)
    for ax, a in ((0, x), (1, x.T), (-1, x.T)):
        want = getattr(np, fn)(a, idx, axis=ax)
        got = getattr(em, fn)(em.asarray(a), idx, axis=ax)
        assert len(got) == len(want)
        for g, w in zip(got, want):
            np.testing.assert_array_equal(em.asnumpy(g), w)


@pytest.mark.parametrize("dt", ["complex64", "complex128"])
@pytest.mark.parametrize("fn", ["nanmax", "nanmin"])
def test_nan_extrema_of_complex(device, fn, dt):
    nan = np.nan
    a = np.array([[1 + 1j, nan, 2], [complex(nan, 1), 3j, -3], [complex(1, nan), 1, 1j]], dt)
    for axis in (None, 0, 1, -1):
        want = getattr(np, fn)(a, axis=axis)
        got = getattr(em, fn)(em.asarray(a), axis=axis)
        assert em.asnumpy(got).dtype == want.dtype
        np.testing.assert_array_equal(em.asnumpy(got), want)


INTS = [d for d in ALL_DTYPES if d.kind in "iu"]


@pytest.mark.parametrize("dt", INTS)
@pytest.mark.parametrize("v", [float("nan"), float("inf"), -float("inf"), 65504.0, 300.0, -1.0,
                               2.0**63, 1e30, 2.5, -2.5, 127.9, -128.0])
def test_python_float_into_integer_array(device, dt, v):
    """NumPy 2 stores a Python float into an integer array as int(v): NaN is
    a ValueError, infinities and out-of-range values an OverflowError."""
    keys = [0, (slice(None),), [1], np.array([True, False, True])]
    for key in keys:
        a, b = np.zeros(3, dt), em.zeros(3, dtype=dt)
        ek = em.asarray(key) if isinstance(key, np.ndarray) else key
        try:
            a[key] = v
        except (ValueError, OverflowError) as e:
            with pytest.raises(type(e)):
                b[ek] = v
            assert (em.asnumpy(b) == 0).all()  # nothing stored
            continue
        b[ek] = v
        np.testing.assert_array_equal(em.asnumpy(b), a)
    # asarray of a float scalar with an integer dtype converts the same way
    try:
        want = np.asarray(v, dtype=dt)
    except (ValueError, OverflowError) as e:
        with pytest.raises(type(e)):
            em.asarray(v, dtype=dt)
    else:
        assert em.asnumpy(em.asarray(v, dtype=dt)) == want
