"""astype and copies through the CPU block interpreter against NumPy: every
dtype pair on every edge layout, out-of-range float -> int casts, float16
rounding, and large arrays that take the threaded, vectorised paths."""
import warnings

import numpy as np
import pytest

import ember as em
from helpers import ALL_DTYPES, assert_same, layouts, to_em


@pytest.mark.parametrize("src", ALL_DTYPES, ids=str)
def test_astype_every_pair_every_layout(device, rng, src):
    for name, a in layouts(rng, (5, 7), src):
        x = to_em(a)
        for dst in ALL_DTYPES:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", np.exceptions.ComplexWarning)
                want = a.astype(dst)
                got = x.astype(dst)
            assert_same(got, want)
            # order='K': the copy keeps the input's axis order (transposed: F)
            # where to_em kept a's layout (a broadcast one it made contiguous)
            like = want if x.strides == a.strides else np.ascontiguousarray(want)
            assert got.flags.c_contiguous == like.flags.c_contiguous, (name, dst)
            assert got.flags.f_contiguous == like.flags.f_contiguous, (name, dst)


@pytest.mark.parametrize("src", ["float16", "float32", "float64", "complex64"])
@pytest.mark.parametrize("dst", ["int8", "int16", "int32", "uint8", "uint16"])
def test_float_to_narrow_int_out_of_range_matches_numpy(device, src, dst):
    v = np.array([3e9, -3e9, 1e20, np.nan, np.inf, -np.inf, 300.5, -1.5, 2147483520.0,
                  -2147483648.0, 65535.9, -0.9, 127.9, -129.2] * 100)
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore", np.exceptions.ComplexWarning)
        a = v.astype(src)
        want = a.astype(dst)
    assert_same(em.asarray(a).astype(dst), want)


def test_float16_rounding_matches_numpy(device, rng):
    halves = np.arange(1 << 16, dtype=np.uint16).view(np.float16)
    with np.errstate(all="ignore"):  # inf and NaN among the halves
        f = halves.astype(np.float32)
        mids = (f[:-1] / 2 + f[1:] / 2).astype(np.float32)  # ties: round half to even
        near = np.concatenate([f, mids, np.nextafter(f, np.float32(np.inf)),
                               rng.standard_normal(10000).astype(np.float32) * 1e5])
        want = near.astype(np.float16)
    got = em.asarray(near).astype(np.float16).get()
    ok = (got.view(np.uint16) == want.view(np.uint16)) | (np.isnan(got) & np.isnan(want))
    assert ok.all(), near[~ok][:5]
    back = em.asarray(halves).astype(np.float32).get()
    assert np.array_equal(back, f, equal_nan=True)


@pytest.mark.parametrize("layout", ["contiguous", "strided", "reversed", "transposed"])
def test_large_copies_are_exact(device, rng, layout):
    a = rng.standard_normal((600, 700))
    view = {"contiguous": a, "strided": a[:, ::2], "reversed": a[::-1, ::-1],
            "transposed": a.T}[layout]
    x = to_em(view)
    assert_same(x.astype(np.float32), view.astype(np.float32))
    assert_same(x + x, view + view)
    assert_same(x.T + x.T, view.T + view.T)


def test_no_cpu_loop_is_an_error_not_a_crash(device):
    """An op registered in the table without a CPU loop for a dtype fails
    cleanly (and the process keeps working)."""
    a = em.asarray(np.arange(4, dtype=np.float32))
    for name, (_code, nin) in em._ember.ops.items():
        if name in ("copy", "where"):
            continue
        try:
            getattr(em, name)(*([a] * nin))
        except (TypeError, ValueError) as e:  # a clear message, never a crash
            assert name in str(e), (name, e)
    assert_same(a + a, np.arange(4, dtype=np.float32) * 2)
