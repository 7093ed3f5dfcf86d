"""em.fft: discrete Fourier transforms (the Array API's fft extension,
with NumPy's signatures).

Where the work runs:

- CUDA arrays: cuFFT (``_ember.cuda_fft``, plans cached by shape, type,
  batch, device and stream).  The transformed axes are moved to the end
  (a copy only when they are not there already), up to three at a time go
  in one plan, the leading axes are its batch; ``n=``/``s=`` crop or
  zero-pad first and ``norm=`` is one multiplication after.  Without cuFFT
  the host path below serves, with ``em.HostFallbackWarning`` once per
  function.
- CPU arrays: numpy.fft (pocketfft) on the array's own buffer, no copy.
- Other devices (OpenCL): the host path, with the warning.

Precision follows the input as in NumPy 2: float32/complex64 in,
complex64 (or float32 for the inverse real transforms) out; integer and
bool input is taken as float64.  ``norm`` is "backward" (default), "ortho"
or "forward".
"""
import functools as _functools
import math as _math

import numpy as _np

from . import _ember
from ._host import check as _check, device_of as _device, host as _host, wrap as _wrap
from ._host import warn_fallback as _warn_fallback

__all__ = [
    "fft", "ifft", "fft2", "ifft2", "fftn", "ifftn", "rfft", "irfft", "rfft2", "irfft2",
    "rfftn", "irfftn", "hfft", "ihfft", "fftfreq", "rfftfreq", "fftshift", "ifftshift",
]

_FORWARD, _INVERSE, _R2C, _C2R = 0, 1, 2, 3  # include/ember/cudalib.h's EM_FFT_*
_NORMS = (None, "backward", "ortho", "forward")

# The transform and the device kinds it serves, replaceable by the tests'
# emulator (numpy.fft unnormalised, on the CPU).
_exec = _ember.cuda_fft
_DEVICES = ("cuda",)


@_functools.lru_cache(maxsize=None)
def _cufft_loaded():
    return _ember.cudalib_available(0)


def _on_cuda(x):
    """True when x should go through cuFFT (a CUDA array and cuFFT loads)."""
    return x._dev[0] in _DEVICES and _cufft_loaded()


def _host_call(name, fn, x, out, **kw):
    """numpy.fft's fn on the host (zero copy on the CPU; a warned round
    trip for other devices), the result back on x's device or in out."""
    dev = _device(x)
    _warn_fallback("fft." + name, dev)
    return _finish(name, fn(_host(x), **kw), x, out)


def _finish(name, r, x, out):
    """r (NumPy or ember) on x's device, or written into out (an ember array)."""
    if not isinstance(r, _ember.ndarray):
        r = _wrap(r, _device(x))
    if out is None:
        return r
    _check(out, name)
    out[...] = r
    return out


@_functools.lru_cache(maxsize=None)
def _result_dtype(name, dt):
    """numpy.fft's result dtype for input dtype dt (NumPy's own answer, from
    a 2 x 2 transform); NumPy's TypeError for dtypes it refuses."""
    return getattr(_np.fft, name)(_np.zeros((2, 2), dt)).dtype


def _cplx(dt):
    return _np.dtype(_np.complex64 if dt in (_np.float32, _np.complex64) else _np.complex128)


def _real(dt):
    return _np.dtype(_np.float32 if dt in (_np.float32, _np.complex64) else _np.float64)


def _norm_check(norm):
    if norm not in _NORMS:
        raise ValueError(f'Invalid norm value {norm}; should be "backward",'
                         '"ortho" or "forward".')


def _scale(norm, n, inverse):
    """The factor NumPy applies after an unnormalised transform of n points
    (None: none)."""
    if norm == "ortho":
        return 1 / _math.sqrt(n)
    if norm == "forward":  # the forward transform carries the 1/n
        return None if inverse else 1 / n
    return 1 / n if inverse else None  # "backward" (the default): the inverse does


def _axis(a, ndim):
    from ._manipulation import _axis as _norm_axis
    return _norm_axis(a, ndim)


def _resize(x, axis, n):
    """x cropped or zero-padded to n along axis (NumPy's n= rule)."""
    m = x.shape[axis]
    if n == m:
        return x
    if n < m:
        idx = [slice(None)] * x.ndim
        idx[axis] = slice(0, n)
        return x[tuple(idx)]
    from ._creation import zeros
    shape = list(x.shape)
    shape[axis] = n
    z = zeros(tuple(shape), dtype=x.dtype, device=_device(x))
    idx = [slice(None)] * x.ndim
    idx[axis] = slice(0, m)
    z[tuple(idx)] = x
    return z


def _run(x, axes, kind, nlast=0):
    """One cuFFT call over the given distinct axes (at most 3; the real
    axis of R2C/C2R last): moved to the end, transformed, moved back."""
    from ._manipulation import moveaxis
    k = len(axes)
    tail = list(range(x.ndim - k, x.ndim))
    moved = list(axes) != tail
    if moved:
        x = moveaxis(x, list(axes), tail)
    r = _exec(x, k, kind, nlast)
    return moveaxis(r, tail, list(axes)) if moved else r


def _apply_scale(r, norm, n, inverse):
    f = _scale(norm, n, inverse)
    return r if f is None else r * f


def _check_n(n):
    if n < 1:
        raise ValueError(f"Invalid number of FFT data points ({n}) specified.")


def _c2c(x, axes, sizes, inverse, norm):
    """Complex transforms over axes (each resized to its size), in groups of
    up to three distinct axes per cuFFT plan, last axes first (NumPy's
    order, which matters only for repeated axes)."""
    for a, n in zip(axes, sizes):
        _check_n(n)
    total = 1
    i = len(axes)
    while i > 0:
        group = []
        j = i
        while j > 0 and len(group) < 3 and axes[j - 1] not in group:
            group.insert(0, axes[j - 1])
            j -= 1
        for a, n in zip(axes[j:i], sizes[j:i]):
            x = _resize(x, a, n)
            total *= n
        x = _run(x, group, _INVERSE if inverse else _FORWARD)
        i = j
    return _apply_scale(x, norm, total, inverse)


def _one_axis(name, kind):
    fn = getattr(_np.fft, name)

    def f(x, /, n=None, axis=-1, norm=None, out=None):
        _check(x, name)
        _norm_check(norm)
        if not _on_cuda(x):
            if x._dev[0] == "cpu":
                return _finish(name, fn(_host(x), n=n, axis=axis, norm=norm), x, out)
            return _host_call(name, fn, x, out, n=n, axis=axis, norm=norm)
        rt = _result_dtype(name, x.dtype)
        if n is None:
            x.shape[axis]  # NumPy's first step: IndexError for a bad axis (0-d input too)
        ax = _axis(axis, x.ndim)
        return _finish(name, _cuda_one(kind, x, n, ax, norm, rt), x, out)
    f.__name__ = f.__qualname__ = name
    f.__doc__ = (f"numpy.fft.{name} of x along axis (length n: cropped or zero-padded); "
                 "cuFFT on CUDA.")
    return f


def _swap(norm):
    return {None: "forward", "backward": "forward", "forward": "backward"}.get(norm, norm)


def _cuda_one(kind, x, n, ax, norm, rt):
    """A one-axis transform on CUDA; kind names the NumPy function."""
    from ._ufuncs import conj
    if kind in ("fft", "ifft"):
        n = x.shape[ax] if n is None else n
        return _c2c(x.astype(rt, copy=False), [ax], [n], kind == "ifft", norm)
    if kind in ("rfft", "ihfft"):
        n = x.shape[ax] if n is None else n
        _check_n(n)
        xr = _resize(x.astype(_real(rt), copy=False), ax, n)
        nrm = norm if kind == "rfft" else _swap(norm)
        r = _apply_scale(_run(xr, [ax], _R2C), nrm, n, False)
        return r if kind == "rfft" else conj(r)
    # irfft, hfft: C2R of n real points from n // 2 + 1 complex ones
    n = 2 * (x.shape[ax] - 1) if n is None else n
    _check_n(n)
    xc = _resize(x.astype(_cplx(rt), copy=False), ax, n // 2 + 1)
    if kind == "hfft":
        xc, norm = conj(xc), _swap(norm)
    return _apply_scale(_run(xc, [ax], _C2R, n), norm, n, True)


def _cook(x, s, axes, invreal=False):
    """(sizes, axes) as numpy.fft's n-d functions read s and axes."""
    import warnings
    shapeless = s is None
    if axes is not None:
        axes = [axes] if isinstance(axes, int) else list(axes)
    if s is None:
        s = list(x.shape) if axes is None else [x.shape[_axis(a, x.ndim)] for a in axes]
    s = list(s)
    if axes is None:
        if not shapeless:
            warnings.warn("`axes` should not be `None` if `s` is not `None` (Deprecated in "
                          "NumPy 2.0).", DeprecationWarning, stacklevel=4)
        axes = list(range(-len(s), 0))
    if len(s) != len(axes):
        raise ValueError("Shape and axes have different lengths.")
    axes = [_axis(a, x.ndim) for a in axes]
    if invreal and shapeless and axes:
        s[-1] = (x.shape[axes[-1]] - 1) * 2
    s = [x.shape[a] if v == -1 else v for v, a in zip(s, axes)]
    return s, axes


def _many_axes(name, kind, default_axes=None):
    fn = getattr(_np.fft, name)

    def f(x, /, s=None, axes=default_axes, norm=None, out=None):
        _check(x, name)
        _norm_check(norm)
        if not _on_cuda(x):
            if x._dev[0] == "cpu":
                return _finish(name, fn(_host(x), s=s, axes=axes, norm=norm), x, out)
            return _host_call(name, fn, x, out, s=s, axes=axes, norm=norm)
        rt = _result_dtype(name, x.dtype)
        sizes, ax = _cook(x, s, axes, invreal=kind == "irfftn")
        if not ax:  # no axes: NumPy returns the input as it is
            return _finish(name, x, x, out)
        if kind in ("fftn", "ifftn"):
            r = _c2c(x.astype(rt, copy=False), ax, sizes, kind == "ifftn", norm)
        elif kind == "rfftn":
            r = _cuda_one("rfft", x, sizes[-1], ax[-1], norm, rt)
            if len(ax) > 1:
                r = _c2c(r, ax[:-1], sizes[:-1], False, norm)
        else:  # irfftn: complex inverses over all but the last axis, then C2R
            r = x.astype(_cplx(rt), copy=False)
            if len(ax) > 1:
                r = _c2c(r, ax[:-1], sizes[:-1], True, norm)
            r = _cuda_one("irfft", r, sizes[-1], ax[-1], norm, rt)
        return _finish(name, r, x, out)
    f.__name__ = f.__qualname__ = name
    f.__doc__ = (f"numpy.fft.{name} of x over axes (sizes s: cropped or zero-padded); "
                 "cuFFT on CUDA.")
    return f


fft, ifft, rfft, irfft, hfft, ihfft = (
    _one_axis(n, n) for n in ("fft", "ifft", "rfft", "irfft", "hfft", "ihfft"))
fftn, ifftn, rfftn, irfftn = (_many_axes(n, n) for n in ("fftn", "ifftn", "rfftn", "irfftn"))
fft2, ifft2, rfft2, irfft2 = (
    _many_axes(n, n[:-1] + "n", (-2, -1)) for n in ("fft2", "ifft2", "rfft2", "irfft2"))


def _freq(n, d, dtype, device, real):
    """NumPy's fftfreq / rfftfreq formula, computed where the result lives
    (k * (1 / (n * d)) with k the integer frequencies)."""
    from ._creation import arange
    from ._ufuncs import where
    if not isinstance(n, (int, _np.integer)):
        raise ValueError("n should be an integer")
    n = int(n)
    val = 1.0 / (n * d)
    if real:
        k = arange(n // 2 + 1, dtype=_np.int64, device=device)
    else:
        i = arange(n, dtype=_np.int64, device=device)
        k = where(i < (n - 1) // 2 + 1, i, i - n)
    r = k * val
    dt = _np.float64 if dtype is None else dtype
    return r if r.dtype == dt else r.astype(dt)


def fftfreq(n, /, d=1.0, *, dtype=None, device=None):
    """Sample frequencies of an n-point DFT with sample spacing d (float64
    unless dtype says otherwise), computed on device."""
    return _freq(n, d, dtype, device, False)


def rfftfreq(n, /, d=1.0, *, dtype=None, device=None):
    """Sample frequencies of rfft's n // 2 + 1 outputs (see fftfreq)."""
    return _freq(n, d, dtype, device, True)


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
