"""em.fft: discrete Fourier transforms (the Array API's fft extension,
with NumPy's signatures).

The work is numpy.fft's on the host (see _host.py: zero copy on the CPU, a
round trip through host memory on other devices).  Precision follows the
input as in NumPy 2 and the Array API: float32/complex64 in, complex64 (or
float32 for the inverse real transforms) out; integer input is taken as
float64.  ``norm`` is "backward" (default), "ortho" or "forward".
"""
import numpy as _np

from ._host import check as _check, device_of as _device, host as _host, wrap as _wrap

__all__ = [
    "fft", "ifft", "fftn", "ifftn", "rfft", "irfft", "rfftn", "irfftn", "hfft", "ihfft",
    "fftfreq", "rfftfreq", "fftshift", "ifftshift",
]


def _finish(name, r, x, out):
    """Wrap r on x's device, or write it into out (an ember array)."""
    if out is None:
        return _wrap(r, _device(x))
    _check(out, name)
    out[...] = _wrap(r, _device(out))
    return out


def _one_axis(name):
    fn = getattr(_np.fft, name)

    def f(x, /, n=None, axis=-1, norm=None, out=None):
        _check(x, name)
        return _finish(name, fn(_host(x), n=n, axis=axis, norm=norm), x, out)
    f.__name__ = f.__qualname__ = name
    f.__doc__ = f"numpy.fft.{name} of x along axis (length n: cropped or zero-padded)."
    return f


def _many_axes(name):
    fn = getattr(_np.fft, name)

    def f(x, /, s=None, axes=None, norm=None, out=None):
        _check(x, name)
        return _finish(name, fn(_host(x), s=s, axes=axes, norm=norm), x, out)
    f.__name__ = f.__qualname__ = name
    f.__doc__ = f"numpy.fft.{name} of x over axes (sizes s: cropped or zero-padded)."
    return f


fft, ifft, rfft, irfft, hfft, ihfft = (
    _one_axis(n) for n in ("fft", "ifft", "rfft", "irfft", "hfft", "ihfft"))
fftn, ifftn, rfftn, irfftn = (_many_axes(n) for n in ("fftn", "ifftn", "rfftn", "irfftn"))


def _freq(name, n, d, dtype, device):
    from ._creation import asarray
    r = getattr(_np.fft, name)(n, d=d)
    return asarray(r, dtype=_np.float64 if dtype is None else dtype, device=device)


def fftfreq(n, /, d=1.0, *, dtype=None, device=None):
    """Sample frequencies of an n-point DFT with sample spacing d (float64
    unless dtype says otherwise)."""
    return _freq("fftfreq", n, d, dtype, device)


def rfftfreq(n, /, d=1.0, *, dtype=None, device=None):
    """Sample frequencies of rfft's n // 2 + 1 outputs (see fftfreq)."""
    return _freq("rfftfreq", n, d, dtype, device)


def fftshift(x, /, axes=None):
    """x with the zero-frequency term moved to the centre (over all axes by default)."""
    from ._manipulation import roll
    _check(x, "fftshift")
    axes = tuple(range(x.ndim)) if axes is None else axes
    axes = (axes,) if isinstance(axes, int) else tuple(axes)
    return roll(x, [x.shape[a] // 2 for a in axes], axes)


def ifftshift(x, /, axes=None):
    """The inverse of fftshift."""
    from ._manipulation import roll
    _check(x, "ifftshift")
    axes = tuple(range(x.ndim)) if axes is None else axes
    axes = (axes,) if isinstance(axes, int) else tuple(axes)
    return roll(x, [-(x.shape[a] // 2) for a in axes], axes)
