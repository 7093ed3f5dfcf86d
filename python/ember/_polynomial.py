"""NumPy's poly* functions on 1-d coefficient arrays (highest power first).
polyval (Horner), polyadd/polysub, polymul (convolve), polyder, polyint and
poly (from roots) are Ember operations; polydiv, polyfit and roots (a
least-squares solve, an eigenvalue problem) run NumPy on the host."""
import numpy as _np

import ember as em

from . import _ember
from ._hostcall import numpy_fallback as _fallback

__all__ = ["poly", "polyadd", "polysub", "polymul", "polyder", "polyint", "polyval", "polydiv",
           "polyfit", "roots"]


def _arr(a):
    return a if isinstance(a, _ember.ndarray) else em.asarray(a)


def _1d(p):
    p = em.atleast_1d(_arr(p))
    if p.ndim != 1:
        raise ValueError("Polynomial must be 1d only.")
    return p


def polyval(p, x):
    """The polynomial p evaluated at x (Horner's scheme)."""
    p, x = _arr(p), _arr(x)
    if p.ndim == 0:
        p = em.reshape(p, (1,))
    if p.ndim != 1:
        raise ValueError("Polynomial must be 1d only.")
    y = em.zeros(x.shape, dtype=em.result_type(x, p))
    for i in range(p.shape[0]):
        y = y * x + p[i]
    return y


def polyadd(a1, a2):
    """The sum of two polynomials."""
    a1, a2 = _1d(a1), _1d(a2)
    d = a2.shape[0] - a1.shape[0]
    if d > 0:
        a1 = em.concatenate((em.zeros((d,), dtype=a1.dtype), a1))
    elif d < 0:
        a2 = em.concatenate((em.zeros((-d,), dtype=a2.dtype), a2))
    return a1 + a2


def polysub(a1, a2):
    """The difference of two polynomials."""
    a1, a2 = _1d(a1), _1d(a2)
    d = a2.shape[0] - a1.shape[0]
    if d > 0:
        a1 = em.concatenate((em.zeros((d,), dtype=a1.dtype), a1))
    elif d < 0:
        a2 = em.concatenate((em.zeros((-d,), dtype=a2.dtype), a2))
    return a1 - a2


def polymul(a1, a2):
    """The product of two polynomials."""
    from ._mathfuncs import convolve
    return convolve(_1d(a1), _1d(a2))


def polyder(p, m=1):
    """The m-th derivative of p."""
    m = int(m)
    if m < 0:
        raise ValueError("Order of derivative must be positive (see polyint)")
    p = _1d(p)
    for _ in range(m):  # NumPy's recursion: p[:-1] * (n, n-1, ..., 1), down to empty
        n = p.shape[0] - 1
        dt = p.dtype if p.dtype.kind != "b" else _np.dtype(_np.int64)
        p = p[:-1] * em.arange(n, 0, -1, dtype=dt) if n > 0 else p[:0].astype(dt)
    return p


def polyint(p, m=1, k=None):
    """The m-th antiderivative of p (integration constants k, default 0)."""
    m = int(m)
    if m < 0:
        raise ValueError("Order of integral must be positive (see polyder)")
    if k is None:
        k = _np.zeros(m)
    k = _np.atleast_1d(k.get() if isinstance(k, _ember.ndarray) else k)
    if len(k) == 1 and m > 1:
        k = k[0] * _np.ones(m)
    if len(k) < m:
        raise ValueError("k must be a scalar or a rank-1 array of length 1 or >m.")
    p = _1d(p)
    for i in range(m):
        n = p.shape[0]
        y = p.astype(_np.result_type(p.dtype, _np.float64)) / em.arange(n, 0, -1,
                                                                       dtype=_np.float64)
        p = em.concatenate((y, em.asarray([k[i]], dtype=y.dtype)))
    return p


def poly(seq_of_zeros):
    """Coefficients of the monic polynomial with the given roots (a square
    matrix: its characteristic polynomial, on the host)."""
    s = _arr(seq_of_zeros)
    if s.ndim == 2 and s.shape[0] == s.shape[1] and s.shape[0] != 0:
        return _fallback("poly", _np.poly, s)
    if s.ndim != 1:
        raise ValueError("input must be 1d or non-empty square 2d array.")
    from ._mathfuncs import convolve
    dt = em.result_type(s, _np.float64) if s.dtype.kind != "c" else s.dtype
    a = em.ones((1,), dtype=dt)
    for i in range(s.shape[0]):
        a = convolve(a, em.concatenate((em.ones((1,), dtype=dt), -s[i:i + 1].astype(dt))))
    if a.dtype.kind == "c" and s.shape[0]:
        # real if the roots come in conjugate pairs (NumPy's test)
        r = em.sort(s)
        c = em.sort(em.conj(s))
        if bool(em.all(r == c)):
            return a.real.copy()
    return a


def polydiv(u, v):
    """(quotient, remainder) of polynomial division (on the host for now)."""
    return _fallback("polydiv", _np.polydiv, u, v)


def polyfit(x, y, deg, rcond=None, full=False, w=None, cov=False):
    """Least-squares polynomial fit (on the host for now)."""
    return _fallback("polyfit", _np.polyfit, x, y, deg, rcond, full, w, cov)


def roots(p):
    """The roots of p (companion-matrix eigenvalues, on the host for now)."""
    return _fallback("roots", _np.roots, p)
