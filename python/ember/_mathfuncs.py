"""NumPy's numerical functions defined in Python (cross, convolve, correlate,
interp, gradient, trapezoid, unwrap, sinc, the windows, vander,
nan_to_num, real_if_close, iscomplex/isreal, sort_complex, matvec/vecmat)
and the ufuncs Ember's op table lacks (fabs, ldexp, modf, spacing,
bitwise_count, frexp composed of table ops, and packbits/unpackbits; i0
and kaiser on the host for now).  Compositions are elementwise Ember ops, so they fuse."""
import math as _math
import operator as _operator

import numpy as _np

import ember as em

from . import _ember
from ._arraytools import _arr, _axis
from ._hostcall import numpy_fallback as _fallback

__all__ = ["cross", "convolve", "correlate", "interp", "gradient", "trapezoid", "unwrap", "sinc",
           "i0", "bartlett", "blackman", "hamming", "hanning", "kaiser", "vander", "nan_to_num",
           "real_if_close", "iscomplex", "isreal", "sort_complex", "matvec", "vecmat", "fabs",
           "ldexp", "frexp", "modf", "spacing", "bitwise_count", "packbits", "unpackbits"]

# Longest kernel convolve runs as shifted multiply-adds on the device (one
# fused elementwise pass per tap); longer ones go to NumPy.
_MAX_TAPS = 256




def cross(a, b, axisa=-1, axisb=-1, axisc=-1, axis=None):
    """Cross product of 2- or 3-vectors (2-vectors: the z component)."""
    if axis is not None:
        axisa = axisb = axisc = axis
    a, b = _arr(a), _arr(b)
    a = em.moveaxis(a, _axis(axisa, a.ndim), -1)
    b = em.moveaxis(b, _axis(axisb, b.ndim), -1)
    if a.shape[-1] not in (2, 3) or b.shape[-1] not in (2, 3):
        raise ValueError("incompatible dimensions for cross product\n"
                         "(dimension must be 2 or 3)")
    if a.shape[-1] == 2 and b.shape[-1] == 2:
        raise ValueError("2-dimensional vectors are not supported; use np.cross for "
                         "3-dimensional vectors or a custom function for 2d")
    a0, a1 = a[..., 0], a[..., 1]
    a2 = a[..., 2] if a.shape[-1] == 3 else em.zeros((), dtype=a.dtype)
    b0, b1 = b[..., 0], b[..., 1]
    b2 = b[..., 2] if b.shape[-1] == 3 else em.zeros((), dtype=b.dtype)
    c = em.stack(em.broadcast_arrays(a1 * b2 - a2 * b1, a2 * b0 - a0 * b2, a0 * b1 - a1 * b0),
                 axis=-1)
    return em.moveaxis(c, -1, _axis(axisc, c.ndim))


def _conv_full(a, v):
    """Full discrete convolution of 1-d a and v by shifted multiply-adds."""
    n, m = a.shape[0], v.shape[0]
    dt = em.result_type(a, v)
    out = em.zeros((n + m - 1,), dtype=dt)
    a = a.astype(dt)
    v = v.astype(dt)
    for j in range(m):
        out[j:j + n] += v[j] * a
    return out


def convolve(a, v, mode="full"):
    """Discrete linear convolution of two 1-d arrays (full, same, valid)."""
    a, v = em.ravel(_arr(a)), em.ravel(_arr(v))
    if a.shape[0] == 0:
        raise ValueError("a cannot be empty")
    if v.shape[0] == 0:
        raise ValueError("v cannot be empty")
    if mode not in ("full", "same", "valid"):
        raise ValueError(f"mode must be one of 'full', 'same', or 'valid' (got {mode!r})")
    if v.shape[0] > a.shape[0]:
        a, v = v, a
    if v.shape[0] > _MAX_TAPS:
        return _fallback("convolve", _np.convolve, a, v, mode)
    full = _conv_full(a, v)
    n, m = a.shape[0], v.shape[0]
    if mode == "full":
        return full
    if mode == "same":
        start = (m - 1) // 2
        return full[start:start + n]
    return full[m - 1:n]


def correlate(a, v, mode="valid"):
    """Cross-correlation of two 1-d arrays (NumPy's: c[k] = sum a[n+k] conj(v[n]))."""
    a, v = em.ravel(_arr(a)), em.ravel(_arr(v))
    if a.shape[0] == 0 or v.shape[0] == 0:
        raise ValueError("a cannot be empty" if a.shape[0] == 0 else "v cannot be empty")
    if mode not in ("full", "same", "valid"):
        raise ValueError(f"mode must be one of 'full', 'same', or 'valid' (got {mode!r})")
    vr = em.flip(em.conj(v) if v.dtype.kind == "c" else v)
    if v.shape[0] > a.shape[0]:
        # NumPy swaps and reverses the answer
        r = correlate(v, a, mode)
        r = em.flip(r)
        return em.conj(r) if r.dtype.kind == "c" else r
    return convolve(a, vr, mode)


def interp(x, xp, fp, left=None, right=None, period=None):
    """Piecewise-linear interpolation of (xp, fp) at x (NumPy's edge rules)."""
    x, xp, fp = _arr(x), _arr(xp), _arr(fp)
    if fp.dtype.kind == "c":
        return _fallback("interp", _np.interp, x, xp, fp, left, right, period)
    if period is not None:  # NumPy's periodic normalisation, then the plain rule
        if period == 0:
            raise ValueError("period must be a non-zero value")
        period = abs(period)
        left = right = None
        if xp.ndim != 1 or fp.ndim != 1:
            raise ValueError("Data points must be 1-D sequences")
        if xp.shape[0] != fp.shape[0]:
            raise ValueError("fp and xp are not of the same length")
        x = x.astype(_np.float64) % period
        xp = xp.astype(_np.float64) % period
        order = em.argsort(xp, kind="stable")
        xp, fp = em.take(xp, order), em.take(fp.astype(_np.float64), order)
        xp = em.concatenate((xp[-1:] - period, xp, xp[0:1] + period))
        fp = em.concatenate((fp[-1:], fp, fp[0:1]))
    if xp.ndim != 1 or fp.ndim != 1:
        raise ValueError("object too deep for desired array")
    if xp.shape[0] != fp.shape[0]:
        raise ValueError("fp and xp are not of the same length.")
    if xp.shape[0] == 0:
        raise ValueError("array of sample points is empty")
    f64 = _np.float64
    x, xp, fp = x.astype(f64), xp.astype(f64), fp.astype(f64)
    n = xp.shape[0]
    lv = fp[0] if left is None else em.asarray(left, dtype=f64)
    rv = fp[-1] if right is None else em.asarray(right, dtype=f64)
    if n == 1:
        return em.where(x < xp[0], lv, em.where(x > xp[0], rv, fp[0]))
    j = em.clip(em.searchsorted(xp, x, side="right") - 1, 0, n - 2)
    x0, x1 = em.take(xp, j), em.take(xp, j + 1)
    y0, y1 = em.take(fp, j), em.take(fp, j + 1)
    slope = (y1 - y0) / (x1 - x0)
    r = slope * (x - x0) + y0
    # NumPy's rescue of a NaN from an infinite or zero-width interval
    r2 = slope * (x - x1) + y1
    r = em.where(em.isnan(r), em.where(em.isnan(r2) & (y0 == y1), y0, r2), r)
    r = em.where(x == x0, y0, r)
    r = em.where(x == xp[-1], fp[-1], r)
    r = em.where(x < xp[0], lv, r)
    return em.where(x > xp[-1], rv, r)


def gradient(f, *varargs, axis=None, edge_order=1):
    """Second-order central differences inside, one-sided at the ends
    (uniform scalar spacing here; coordinate arrays go to NumPy)."""
    f = _arr(f)
    N = f.ndim
    axes = tuple(range(N)) if axis is None else \
        tuple(_axis(a, N) for a in (axis if isinstance(axis, (tuple, list)) else (axis,)))
    if len(set(axes)) != len(axes):
        raise ValueError("duplicate value in 'axis'")
    if len(varargs) == 0:
        dx = [1.0] * len(axes)
    elif len(varargs) == 1 and _np.ndim(varargs[0]) == 0:
        dx = list(varargs) * len(axes)
    elif len(varargs) == len(axes):
        dx = list(varargs)
    else:
        raise TypeError("invalid number of arguments")
    if any(_np.ndim(d) != 0 for d in dx):
        return _fallback("gradient", _np.gradient, f, *varargs, axis=axis, edge_order=edge_order)
    if edge_order > 2 or edge_order < 1:
        raise ValueError("'edge_order' greater than 2 not supported")
    dx = [float(d.item() if isinstance(d, _ember.ndarray) else d) for d in dx]
    otype = f.dtype if f.dtype.kind in "fc" else _np.dtype(_np.float64)
    if f.dtype.kind in "iu":
        f = f.astype(_np.float64)
    outs = []
    for ax, h in zip(axes, dx):
        n = f.shape[ax]
        if n < edge_order + 1:
            raise ValueError("Shape of array too small to calculate a numerical gradient, "
                             "at least (edge_order + 1) elements are required.")

        def sl(a, b):
            s = [slice(None)] * N
            s[ax] = slice(a, b)
            return tuple(s)
        inner = (f[sl(2, None)] - f[sl(None, -2)]) / (2.0 * h)
        if edge_order == 1:
            first = (f[sl(1, 2)] - f[sl(0, 1)]) / h
            last = (f[sl(-1, None)] - f[sl(-2, -1)]) / h
        else:
            first = (-1.5 * f[sl(0, 1)] + 2.0 * f[sl(1, 2)] - 0.5 * f[sl(2, 3)]) / h
            last = (0.5 * f[sl(-3, -2)] - 2.0 * f[sl(-2, -1)] + 1.5 * f[sl(-1, None)]) / h
        g = em.concatenate((first, inner, last), axis=ax).astype(otype)
        outs.append(g)
    return outs[0] if len(outs) == 1 else tuple(outs)


def trapezoid(y, x=None, dx=1.0, axis=-1):
    """Integral of y along axis by the trapezoidal rule."""
    y = _arr(y)
    axis = _axis(axis, y.ndim)
    n = y.shape[axis]

    def sl(a, b):
        s = [slice(None)] * y.ndim
        s[axis] = slice(a, b)
        return tuple(s)
    if x is None:
        d = dx
    else:
        x = _arr(x)
        if x.ndim == 1:
            d = em.diff(x)
            shape = [1] * y.ndim
            shape[axis] = d.shape[0]
            d = em.reshape(d, tuple(shape))
        else:
            d = em.diff(x, axis=axis)
    if n == 0:
        return em.sum(y[sl(0, 0)] * 1.0, axis=axis)
    return em.sum(d * (y[sl(1, None)] + y[sl(None, -1)]) / 2.0, axis=axis)


def unwrap(p, discont=None, axis=-1, *, period=2 * _math.pi):
    """p with jumps larger than discont replaced by their period complement."""
    p = _arr(p)
    if p.dtype.kind == "c":  # NumPy's TypeError (no complex remainder)
        raise TypeError("ufunc 'remainder' not supported for the input types, and the inputs "
                        "could not be safely coerced to any supported types according to the "
                        "casting rule ''safe''")
    if p.dtype.kind in "biu":
        return _unwrap_int(p, discont, _axis(axis, p.ndim), period)
    axis = _axis(axis, p.ndim)
    if discont is None:
        discont = period / 2
    dd = em.diff(p, axis=axis)
    high = period / 2
    ddmod = em.remainder(dd + high, period) - high
    ddmod = em.where((ddmod == -high) & (dd > 0), em.asarray(high, dtype=dd.dtype), ddmod)
    corr = ddmod - dd
    corr = em.where(em.abs(dd) < discont, em.asarray(0, dtype=dd.dtype), corr)
    s = [slice(None)] * p.ndim
    s[axis] = slice(0, 1)
    return em.concatenate((p[tuple(s)], _tail(p, axis) + em.cumsum(corr, axis=axis)), axis=axis)


def _unwrap_int(p, discont, axis, period):
    """unwrap of integer or bool p, NumPy's steps in the dtype of diff(p) with period
    (a float period: float64, as NumPy; an integer one keeps integers, the
    half period by divmod, the boundary ambiguous only for an even one)."""
    if discont is None:
        discont = period / 2
    dd = em.diff(p, axis=axis)
    dt = em.result_type(dd, period)
    if _np.dtype(dt).kind in "iu":
        high, rem = divmod(period, 2)
        ambiguous = rem == 0
    else:
        high, ambiguous = period / 2, True
    ddt, low = dd.astype(dt), -high
    # dd - low as NumPy writes it: an unsigned dd with an integer period
    # raises NumPy's OverflowError for -low, as NumPy's unwrap does
    ddmod = em.remainder(ddt - low, period) + low
    if ambiguous:
        ddmod = em.where((ddmod == low) & (dd > 0), em.asarray(high, dtype=dt), ddmod)
    corr = ddmod - ddt
    corr = em.where(em.abs(dd) < discont, em.asarray(0, dtype=corr.dtype), corr)
    s = [slice(None)] * p.ndim
    s[axis] = slice(0, 1)
    up = p.astype(dt)
    tail = (_tail(p, axis) + em.cumsum(corr, axis=axis)).astype(dt)
    return em.concatenate((up[tuple(s)], tail), axis=axis)


def _tail(p, axis):
    s = [slice(None)] * p.ndim
    s[axis] = slice(1, None)
    return p[tuple(s)]


def sinc(x):
    """sin(pi x) / (pi x), 1 at 0."""
    x = _arr(x)
    if x.dtype.kind in "biu":
        x = x.astype(_np.float64)
    y = _np.pi * em.where(x == 0, em.asarray(1.0e-20, dtype=x.dtype), x)
    return em.sin(y) / y


# Cephes' Chebyshev coefficients for i0, read from NumPy (its i0 is Cephes'):
# exp(x) * chbevl(x/2 - 2, A) for x <= 8, exp(x) * chbevl(32/x - 2, B) / sqrt(x) above.
def _i0_coeffs():
    try:
        from numpy.lib import _function_base_impl as f
        return [float(v) for v in f._i0A], [float(v) for v in f._i0B]
    except (ImportError, AttributeError, TypeError):  # a NumPy without them: see i0
        return None, None


_I0A, _I0B = _i0_coeffs()


def _chbevl(x, vals):
    """Clenshaw's sum of a Chebyshev series at x, NumPy's operation order
    (Python floats: x's float dtype is kept)."""
    b0, b1, b2 = vals[0], 0.0, 0.0
    for v in vals[1:]:
        b2, b1 = b1, b0
        b0 = x * b1 - b2 + v
    return 0.5 * (b0 - b2)


def i0(x):
    """Modified Bessel function of the first kind, order 0: NumPy's (Cephes')
    Chebyshev series, as elementwise Ember ops (one fused kernel per branch
    on the array's device)."""
    if _I0A is None:
        return _fallback("i0", _np.i0, x)
    x = _arr(x)
    if x.dtype.kind == "c":
        raise TypeError("i0 not supported for complex values")
    if x.dtype.kind != "f":
        x = x.astype(_np.float64)
    x = em.abs(x)
    small = x <= 8.0
    lo = em.exp(x) * _chbevl(x / 2.0 - 2, _I0A)
    xb = em.where(small, 16.0, x)  # the large branch away from 0 where it is not taken
    hi = em.exp(xb) * _chbevl(32.0 / xb - 2.0, _I0B) / em.sqrt(xb)
    return em.where(small, lo, hi)


def _window_n(M):
    M = _operator.index(M) if not isinstance(M, float) else int(M)
    return M


def _window(M, fn):
    M = _window_n(M)
    if M < 1:
        return em.empty((0,), dtype=_np.float64)
    if M == 1:
        return em.ones((1,), dtype=_np.float64)
    n = em.arange(1 - M, M, 2, dtype=_np.float64)
    return fn(n, M)


def bartlett(M):
    return _window(M, lambda n, M: em.where(n <= 0, 1 + n / (M - 1), 1 - n / (M - 1)))


def blackman(M):
    return _window(M, lambda n, M: 0.42 + 0.5 * em.cos(_np.pi * n / (M - 1))
                   + 0.08 * em.cos(2.0 * _np.pi * n / (M - 1)))


def hamming(M):
    return _window(M, lambda n, M: 0.54 + 0.46 * em.cos(_np.pi * n / (M - 1)))


def hanning(M):
    return _window(M, lambda n, M: 0.5 + 0.5 * em.cos(_np.pi * n / (M - 1)))


def kaiser(M, beta):
    """The Kaiser window, NumPy's formula on Ember's i0."""
    values = _np.array([0.0, M, beta])  # at least float64, as NumPy
    if values.dtype.kind == "c":  # NumPy's TypeError (its i0 takes no complex)
        raise TypeError("i0 not supported for complex values")
    values = values.astype(_np.float64)  # (other objects: NumPy's conversion error)
    M, beta = values[1], values[2]
    if M == 1:
        return em.ones((1,), dtype=values.dtype)
    n = em.arange(0, M, dtype=values.dtype)
    alpha = (M - 1) / 2.0
    return i0(beta * em.sqrt(1 - ((n - alpha) / alpha) ** 2.0)) / i0(em.asarray(beta))


def vander(x, N=None, increasing=False):
    """Columns are powers of x (decreasing unless increasing)."""
    x = _arr(x)
    if x.ndim != 1:
        raise ValueError("x must be a one-dimensional array or sequence.")
    N = x.shape[0] if N is None else _operator.index(N)
    if N < 0:
        raise ValueError("negative dimensions are not allowed")
    # NumPy's dtype: x's promoted with its default int (float32 and int8
    # give float64 and int64; polyfit's float32 fit is float64 through it)
    dt = _np.promote_types(_np.dtype(x.dtype), _np.int64)
    if N == 0:
        return em.empty((x.shape[0], 0), dtype=dt)
    # repeated products as NumPy's multiply.accumulate (bit-identical)
    cols = [em.ones(x.shape, dtype=dt)]
    xd = x.astype(dt)
    for _ in range(N - 1):
        cols.append(cols[-1] * xd)
    if not increasing:
        cols = cols[::-1]
    return em.stack(cols, axis=1)


def nan_to_num(x, copy=True, nan=0.0, posinf=None, neginf=None):
    """NaN -> nan, +inf -> posinf (default: the largest finite), -inf -> neginf."""
    xa = _arr(x)
    if xa.dtype.kind not in "fc":
        return xa.copy() if copy else xa
    if xa.dtype.kind == "c":
        r = nan_to_num(xa.real, True, nan, posinf, neginf)
        i = nan_to_num(xa.imag, True, nan, posinf, neginf)
        out = r + 1j * i
        out = out.astype(xa.dtype)
    else:
        fi = _np.finfo(xa.dtype)
        pos = fi.max if posinf is None else posinf
        neg = fi.min if neginf is None else neginf
        dt = xa.dtype
        out = em.where(em.isnan(xa), em.asarray(nan, dtype=dt), xa)
        out = em.where(em.isposinf(xa), em.asarray(pos, dtype=dt), out)
        out = em.where(em.isneginf(xa), em.asarray(neg, dtype=dt), out)
    if not copy:
        xa[...] = out
        return xa
    return out


def real_if_close(a, tol=100):
    """The real part if every imaginary part is within tol machine epsilons of 0."""
    a = _arr(a)
    if a.dtype.kind != "c":
        return a
    if tol > 1:
        tol = _np.finfo(a.dtype).eps * tol
    if bool(em.all(em.abs(a.imag) < tol)):
        return a.real.copy()
    return a


def iscomplex(x):
    """Elementwise: the imaginary part is nonzero."""
    x = _arr(x)
    if x.dtype.kind != "c":
        return em.zeros(x.shape, dtype=_np.bool_)
    return x.imag != 0


def isreal(x):
    """Elementwise: the imaginary part is zero."""
    x = _arr(x)
    if x.dtype.kind != "c":
        return em.ones(x.shape, dtype=_np.bool_)
    return x.imag == 0


def sort_complex(a):
    """a sorted (real part, then imaginary), as a complex array."""
    b = em.sort(_arr(a))
    if b.dtype.kind == "c":
        return b
    ct = _np.complex64 if b.dtype.char in "bhBHe" or b.dtype == _np.float32 else \
        _np.complex128
    return b.astype(ct)


def _cast_out(r, dtype, out):
    """r as dtype, written into out where given (matvec's and vecmat's ending)."""
    if dtype is not None:
        r = r.astype(dtype)
    if out is not None:
        out[...] = r
        return out
    return r


def matvec(x1, x2, /, out=None, *, dtype=None, **kwargs):
    """Matrix-vector product over the last two / last axes (broadcast)."""
    x1, x2 = _arr(x1), _arr(x2)
    return _cast_out(em.matmul(x1, x2[..., None])[..., 0], dtype, out)


def vecmat(x1, x2, /, out=None, *, dtype=None, **kwargs):
    """Vector-matrix product conj(x1) @ x2 over the last axes (broadcast)."""
    x1, x2 = _arr(x1), _arr(x2)
    if x1.dtype.kind == "c":
        x1 = em.conj(x1)
    return _cast_out(em.matmul(x1[..., None, :], x2)[..., 0, :], dtype, out)


def fabs(x, /, out=None, *, dtype=None, where=True):
    """Absolute value of a real array (complex is a TypeError, as NumPy)."""
    xa = _arr(x)
    if xa.dtype.kind == "c":
        raise TypeError("ufunc 'fabs' not supported for the input types, and the inputs could "
                        "not be safely coerced to any supported types according to the casting "
                        "rule ''safe''")
    if xa.dtype.kind in "biu":
        xa = xa.astype(_np.float16 if xa.dtype.itemsize == 1 and xa.dtype.kind != "b"
                       else _np.float32 if xa.dtype.itemsize == 2 else _np.float64)
        if _arr(x).dtype.kind == "b":
            xa = _arr(x).astype(_np.float16)
    return em.absolute(xa, out=out, dtype=dtype, where=where)


def ldexp(x1, x2, /, out=None, *, dtype=None, where=True):
    """x1 * 2**x2 (the power split in two so that it cannot overflow early)."""
    m = _arr(x1)
    e = _arr(x2)
    if e.dtype.kind not in "biu":
        raise TypeError("ufunc 'ldexp' not supported for the input types, and the inputs "
                        "could not be safely coerced to any supported types according to the "
                        "casting rule ''safe''")
    if m.dtype.kind != "f":
        m = m.astype(_np.float16 if m.dtype.kind == "b" or m.dtype.itemsize == 1 else
                     _np.float32 if m.dtype.itemsize == 2 else _np.float64)
    e = e.astype(_np.int64)
    e1 = e // 2
    e2 = e - e1
    r = m * em.exp2(e1.astype(m.dtype)) * em.exp2(e2.astype(m.dtype))
    if dtype is not None:
        r = r.astype(dtype)
    if out is not None:
        em.copyto(out, r, where=where)
        return out
    return r


def _with_out(native, x, args, kwargs, nout):
    """native(x) written as a ufunc writes out= and where=, or None where the
    call asks for more (dtype=, casting=, order=, subok=, signature=, an out
    that is not an ember array or not nout of them): NumPy then runs it.
    out is positional or a keyword (one array, or a tuple of nout); where
    False, out keeps its values (copyto's where=); without out, the result
    there is unspecified in NumPy (uninitialised) and computed here."""
    if set(kwargs) - {"out", "where"} or (args and "out" in kwargs) or len(args) > nout:
        return None
    out = tuple(args) if args else kwargs.get("out")
    if out is None:
        out = (None,) * nout
    elif not isinstance(out, tuple):
        out = (out,)
    if len(out) != nout or any(o is not None and not isinstance(o, _ember.ndarray)
                               for o in out):
        return None
    where = kwargs.get("where", True)
    if isinstance(where, _ember.ndarray) and where.dtype.kind != "b":
        return None  # NumPy's TypeError (a where= mask must be boolean)
    if where is not True and all(o is None for o in out):
        import warnings
        warnings.warn("'where' used without 'out', expect unitialized memory in output. "
                      "If this is intentional, use out=None.", UserWarning, stacklevel=3)
    r = native(x)
    rs = r if nout > 1 else (r,)
    got = []
    for o, v in zip(out, rs):
        if o is None:
            got.append(v)
        else:
            em.copyto(o, v, where=where)
            got.append(o)
    return tuple(got) if nout > 1 else got[0]


def frexp(x, /, *args, **kwargs):
    """(mantissa, exponent) with x = m * 2**e and 0.5 <= abs(m) < 1 (m = x, e = 0
    for zeros, infinities and NaNs); exponents int32, as NumPy."""
    xa = _arr(x)
    if (args or kwargs) and xa.dtype.kind != "c":
        r = _with_out(frexp, xa, args, kwargs, 2)
        if r is not None:
            return r
    if xa.dtype.kind == "c":  # NumPy's TypeError
        raise TypeError("ufunc 'frexp' not supported for the input types, and the inputs could "
                        "not be safely coerced to any supported types according to the casting "
                        "rule ''safe''")
    if args or kwargs:
        return _fallback("frexp", _np.frexp, x, *args, **kwargs)
    if xa.dtype.kind != "f":
        xa = xa.astype(_np.float16 if xa.dtype.kind == "b" or xa.dtype.itemsize == 1 else
                       _np.float32 if xa.dtype.itemsize == 2 else _np.float64)
    dt = xa.dtype
    xd = xa.astype(_np.float64)
    special = (xd == 0) | ~em.isfinite(xd)
    ax = em.where(special, 1.0, em.abs(xd))
    e = em.floor(em.log2(ax)) + 1.0
    # 2**-e in two halves: a subnormal's 2**1074 does not fit one float64
    e1 = em.floor(e / 2.0)
    m = xd * em.exp2(-e1) * em.exp2(-(e - e1))
    # log2 may round across a power of two: one step fixes the range
    hi = em.abs(m) >= 1.0
    lo = em.abs(m) < 0.5
    m = em.where(hi, m * 0.5, em.where(lo, m * 2.0, m))
    e = e + hi.astype(_np.float64) - lo.astype(_np.float64)
    m = em.where(special, xd, m).astype(dt)
    e = em.where(special, 0.0, e).astype(_np.int32)
    return m, e


def modf(x, /, *args, **kwargs):
    """(fractional part, integral part), both with x's sign."""
    if args or kwargs:
        r = _with_out(modf, _arr(x), args, kwargs, 2)
        if r is not None:
            return r
        return _fallback("modf", _np.modf, x, *args, **kwargs)
    xa = _arr(x)
    if xa.dtype.kind not in "f":
        xa = xa.astype(_np.float16 if xa.dtype.kind == "b" or xa.dtype.itemsize == 1 else
                       _np.float32 if xa.dtype.itemsize == 2 else _np.float64)
    ip = em.trunc(xa)
    fp = em.where(em.isinf(xa), em.copysign(em.asarray(0, dtype=xa.dtype), xa), xa - ip)
    fp = em.copysign(fp, xa)
    return fp, ip


def spacing(x, /, *args, **kwargs):
    """Distance to the next float away from zero: nextafter(x, +-inf) - x
    (negative for x < 0, as NumPy)."""
    xa = _arr(x)
    if args or kwargs:
        r = _with_out(spacing, xa, args, kwargs, 1)
        if r is not None:
            return r
        return _fallback("spacing", _np.spacing, x, *args, **kwargs)
    if xa.dtype.kind == "c":
        raise TypeError("ufunc 'spacing' not supported for the input types")
    if xa.dtype.kind in "biu":  # the ufunc's first float loop the type casts to safely
        xa = xa.astype(_np.result_type(xa.dtype, _np.float16))
    if xa.dtype == _np.float16:
        # NumPy's half rule (npy_half_spacing): toward +inf for every x, negative ones
        # too, and NaN for -inf (checked against NumPy on all 65536 halves)
        inf = em.asarray(_np.inf, dtype=_np.float16)
        r = em.nextafter(xa, inf) - xa
        return em.where(xa == -inf, em.asarray(_np.nan, dtype=_np.float16), r)
    away = em.where(xa < 0, em.asarray(-_np.inf, dtype=xa.dtype),
                    em.asarray(_np.inf, dtype=xa.dtype))
    return em.nextafter(xa, away) - xa


_POP = [(1, 0x5555555555555555), (2, 0x3333333333333333), (4, 0x0F0F0F0F0F0F0F0F)]


def bitwise_count(x, /, *args, **kwargs):
    """Set bits of abs(x) (uint8), by the SWAR popcount on uint64."""
    xa = _arr(x)
    if args or kwargs:
        r = _with_out(bitwise_count, xa, args, kwargs, 1)
        if r is not None:
            return r
        return _fallback("bitwise_count", _np.bitwise_count, x, *args, **kwargs)
    if xa.dtype.kind not in "biu":
        raise TypeError("ufunc 'bitwise_count' not supported for the input types, and the "
                        "inputs could not be safely coerced to any supported types according "
                        "to the casting rule ''safe''")
    if xa.dtype.kind == "i":
        xa = em.abs(xa.astype(_np.int64))  # abs(int64 min) wraps to itself: 1 bit, as NumPy
    v = xa.astype(_np.uint64)
    v = v - ((v >> 1) & _POP[0][1])
    v = (v & _POP[1][1]) + ((v >> 2) & _POP[1][1])
    v = (v + (v >> 4)) & _POP[2][1]
    v = (v * 0x0101010101010101) >> 56
    return v.astype(_np.uint8)


def _bit_axis(a, axis):
    if axis is None:
        return em.ravel(a), 0
    return a, _axis(axis, a.ndim)


def packbits(a, /, axis=None, bitorder="big"):
    """Nonzero elements as bits of uint8 (padded with zero bits to a multiple of 8)."""
    a = _arr(a)
    if a.dtype.kind not in "biu":
        raise TypeError("Expected an input array of integer or boolean data type")
    if bitorder not in ("big", "little"):
        raise ValueError("'order' must be either 'little' or 'big'")
    a, axis = _bit_axis(a, axis)
    if a.ndim == 0:
        a, axis = em.reshape(a, (1,)), 0
    n = a.shape[axis]
    bits = (a != 0).astype(_np.uint8)
    pad = (-n) % 8
    if pad:
        width = [(0, 0)] * a.ndim
        width[axis] = (0, pad)
        from ._arraytools import pad as _pad
        bits = _pad(bits, width)
    bits = em.moveaxis(bits, axis, -1)
    bits = em.reshape(bits, bits.shape[:-1] + ((n + pad) // 8, 8))
    w = [128, 64, 32, 16, 8, 4, 2, 1] if bitorder == "big" else [1, 2, 4, 8, 16, 32, 64, 128]
    r = em.sum(bits * em.asarray(w, dtype=_np.uint8), axis=-1, dtype=_np.uint8)
    return em.moveaxis(r, -1, axis)


def unpackbits(a, /, axis=None, count=None, bitorder="big"):
    """The bits of uint8 elements as 0/1 uint8 (count: keep or zero-pad to count bits)."""
    a = _arr(a)
    if a.dtype != _np.uint8:
        raise TypeError("Expected an input array of unsigned byte data type")
    if bitorder not in ("big", "little"):
        raise ValueError("'order' must be either 'little' or 'big'")
    a, axis = _bit_axis(a, axis)
    if a.ndim == 0:
        raise ValueError("Cannot unpack bits of a 0-d array with an axis")
    shifts = [7, 6, 5, 4, 3, 2, 1, 0] if bitorder == "big" else [0, 1, 2, 3, 4, 5, 6, 7]
    m = em.moveaxis(a, axis, -1)
    bits = (m[..., None] >> em.asarray(shifts, dtype=_np.uint8)) & 1
    bits = em.reshape(bits, m.shape[:-1] + (m.shape[-1] * 8,)).astype(_np.uint8)
    total = bits.shape[-1]
    if count is not None:
        count = _operator.index(count)
        keep = count if count >= 0 else max(total + count, 0)
        if keep <= total:
            bits = bits[..., :keep]
        else:
            bits = em.concatenate((bits, em.zeros(bits.shape[:-1] + (keep - total,),
                                                  dtype=_np.uint8)), axis=-1)
    return em.moveaxis(bits, -1, axis)
