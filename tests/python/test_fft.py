"""em.fft against numpy.fft: every transform, precision kept, edge layouts."""
import numpy as np
import pytest

import ember as em
from helpers import assert_same, layouts, to_em

ONE = ["fft", "ifft", "rfft", "irfft", "hfft", "ihfft"]
MANY = ["fftn", "ifftn", "rfftn", "irfftn"]
_REAL_IN = {"rfft", "ihfft", "rfftn"}


def _input_dtypes(name):
    return ["float32", "float64"] if name in _REAL_IN else ["complex64", "complex128"]


def _rtol(a):
    return 1e-4 if a.dtype in (np.float32, np.complex64) else 1e-10


@pytest.mark.parametrize("name", ONE)
def test_one_axis_transforms(device, rng, name):
    for dtype in _input_dtypes(name):
        for lname, a in layouts(rng, (4, 6), dtype):
            if a.ndim == 0:  # NumPy's exception
                with pytest.raises(Exception) as want:
                    getattr(np.fft, name)(a)
                with pytest.raises(want.type, match=str(want.value)[:20]):
                    getattr(em.fft, name)(to_em(a))
                continue
            x = to_em(a)
            want = getattr(np.fft, name)(a)
            got = getattr(em.fft, name)(x)
            assert_same(got, want, rtol=_rtol(a), atol=_rtol(a) * 10)
            if a.size == 0:
                continue  # NumPy's irfft pads an empty axis with uninitialised memory
            for kw in ({"n": 5, "axis": 0, "norm": "ortho"}, {"n": 8, "norm": "forward"}):
                assert_same(getattr(em.fft, name)(x, **kw), getattr(np.fft, name)(a, **kw),
                            rtol=_rtol(a), atol=_rtol(a) * 10)


@pytest.mark.parametrize("name", MANY)
def test_many_axes_transforms(device, rng, name):
    for dtype in _input_dtypes(name):
        for lname, a in layouts(rng, (3, 4, 6), dtype):
            if a.ndim == 0 or a.size == 0:
                continue
            x = to_em(a)
            for kw in ({}, {"axes": (0, 2)}, {"s": (4, 4), "axes": (1, 2), "norm": "ortho"}):
                assert_same(getattr(em.fft, name)(x, **kw), getattr(np.fft, name)(a, **kw),
                            rtol=_rtol(a), atol=_rtol(a) * 10)


def test_out_freq_shift_and_errors(device, rng):
    a = rng.random(8) + 1j * rng.random(8)
    out = em.zeros(8, dtype="complex128")
    assert em.fft.fft(em.asarray(a), out=out) is out
    assert_same(out, np.fft.fft(a), rtol=1e-12, atol=1e-12)
    for n in (1, 6, 7):
        assert_same(em.fft.fftfreq(n, d=0.5), np.fft.fftfreq(n, d=0.5))
        assert_same(em.fft.rfftfreq(n, dtype=em.float32), np.fft.rfftfreq(n).astype(np.float32))
    b = np.arange(12.0).reshape(3, 4)
    for axes in (None, 0, (1,), (0, 1)):
        assert_same(em.fft.fftshift(em.asarray(b), axes=axes), np.fft.fftshift(b, axes=axes))
        assert_same(em.fft.ifftshift(em.asarray(b), axes=axes), np.fft.ifftshift(b, axes=axes))
    with pytest.raises(ValueError, match="Invalid number of FFT data points"):
        em.fft.fft(em.asarray(a), n=0)
    with pytest.raises(TypeError, match="expects an ember.ndarray, not list"):
        em.fft.fft([1, 2])
    assert_same(em.fft.ifft(em.fft.fft(em.asarray(a))), a, rtol=1e-12, atol=1e-12)  # still working
