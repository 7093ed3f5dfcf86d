"""ufunc.accumulate and ufunc.reduceat of the associative ops on a device:
Hillis-Steele doubling and power-of-two blocks (_ufunc_methods), tested on
the CPU through the same functions and end to end on the OpenCL device,
against NumPy on every dtype class, NaNs, axes, unsorted and repeated
indices."""
import warnings

import numpy as np
import pytest

import ember as em
from ember import _ufunc_methods as U
from helpers import assert_same, to_em

OPS = ["add", "multiply", "maximum", "minimum", "fmax", "fmin", "logical_and", "logical_or",
       "logical_xor", "bitwise_and", "bitwise_or", "bitwise_xor"]
CASES = [((1,), 0), ((13,), 0), ((4, 17), 1), ((9, 3), 0), ((2, 5, 6), 1)]


def _data(rng, shape, dt):
    a = (rng.normal(size=shape) * 4).astype(dt)
    if dt.startswith("float"):
        a.flat[::7] = np.nan
    return a


def _tol(dt):
    return 1e-5 if dt == "float32" else None


@pytest.mark.parametrize("dt", ["int32", "uint8", "float32", "float64", "bool"])
@pytest.mark.parametrize("op", OPS)
def test_accumulate_doubling(rng, dt, op):
    npu, f = getattr(np, op), getattr(em, op)
    for shape, axis in CASES:
        a = _data(rng, shape, dt)
        try:
            with np.errstate(all="ignore"):
                want = npu.accumulate(a, axis=axis)
        except TypeError:
            return  # NumPy has no loop for the dtype
        x = to_em(a)
        got = U._accumulate_doubling(f, x, axis, U._np_dtype(npu, "accumulate", x, None))
        assert_same(got, want, rtol=_tol(dt))


@pytest.mark.parametrize("dt", ["int32", "uint8", "float32", "float64", "bool"])
@pytest.mark.parametrize("op", OPS)
def test_reduceat_blocks(rng, dt, op):
    npu, f = getattr(np, op), getattr(em, op)
    for shape, axis in CASES:
        a = _data(rng, shape, dt)
        n = shape[axis]
        for idx in ([0], [0, n - 1], list(range(n)), [n - 1, 0], [0, n // 2, 1, n - 1]):
            idx = np.array(idx, np.int64)
            if idx.max() >= n:
                continue
            try:
                with np.errstate(all="ignore"):
                    want = npu.reduceat(a, idx, axis=axis)
            except TypeError:
                return
            nxt = np.append(idx[1:], n)
            ends = np.where(nxt > idx, nxt, idx + 1)
            x = to_em(a)
            got = U._reduceat_blocks(f, x, idx, ends, axis,
                                     U._np_dtype(npu, "reduceat", x, None, [0]))
            assert_same(got, want, rtol=_tol(dt))


@pytest.mark.skipif(not em.opencl.is_available(), reason="no OpenCL device")
def test_on_a_device_without_host_fallback(rng):
    a = (rng.normal(size=(3, 37)) * 4).astype(np.float32)
    x = em.asarray(a, device="opencl:0")
    idx = [0, 5, 3, 20, 36]
    with warnings.catch_warnings():
        warnings.simplefilter("error", em.HostFallbackWarning)
        assert_same(em.maximum.accumulate(x, axis=1), np.maximum.accumulate(a, axis=1))
        assert_same(em.maximum.reduceat(x, idx, axis=1), np.maximum.reduceat(a, idx, axis=1))
        assert_same(em.add.reduceat(x, idx, axis=1), np.add.reduceat(a, idx, axis=1),
                    rtol=1e-5)
        assert_same(em.add.reduceat(x, [], axis=1), np.add.reduceat(a, [], axis=1))
    with pytest.raises(IndexError, match="out-of-bounds in add.reduceat"):
        em.add.reduceat(x, [0, 40], axis=1)
    with pytest.raises(np.exceptions.AxisError):
        em.maximum.accumulate(x, axis=2)
