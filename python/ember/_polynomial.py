"""NumPy's poly* functions on 1-d coefficient arrays (highest power first).
polyval (Horner), polyadd/polysub, polymul (convolve), polyder, polyint and
poly (from roots) are Ember operations, and so are polydiv (a short loop of
device operations) and polyfit (em.linalg.lstsq); roots (an eigenvalue
problem) runs NumPy on the host."""
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


def _aligned(a1, a2):
    """Both polynomials as 1-d arrays of one length (the shorter padded with leading zeros)."""
    a1, a2 = _1d(a1), _1d(a2)
    d = a2.shape[0] - a1.shape[0]
    if d > 0:
        a1 = em.concatenate((em.zeros((d,), dtype=a1.dtype), a1))
    elif d < 0:
        a2 = em.concatenate((em.zeros((-d,), dtype=a2.dtype), a2))
    return a1, a2


def polyadd(a1, a2):
    """The sum of two polynomials."""
    a1, a2 = _aligned(a1, a2)
    return a1 + a2


def polysub(a1, a2):
    """The difference of two polynomials."""
    a1, a2 = _aligned(a1, a2)
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
    """(quotient, remainder) of polynomial division: NumPy's long division,
    one step a quotient coefficient (a few small device operations each),
    then the remainder's leading near-zeros dropped (one scalar read)."""
    u = em.atleast_1d(_arr(u)) + 0.0
    v = em.atleast_1d(_arr(v)) + 0.0
    if u.ndim != 1 or v.ndim != 1:
        raise ValueError("polydiv takes 0-d or 1-d coefficient arrays")
    dt = em.result_type(u, v)
    m, n = u.shape[0] - 1, v.shape[0] - 1
    v = v.astype(dt)
    scale = 1.0 / v[0]
    q = em.zeros((max(m - n + 1, 1),), dtype=dt, device=u.device)
    r = u.astype(dt)  # a copy: the loop writes it
    for k in range(m - n + 1):
        d = scale * r[k]
        q[k] = d
        r[k:k + n + 1] = r[k:k + n + 1] - d * v
    # NumPy drops r[0] while allclose(r[0], 0, rtol=1e-14) (|r[0]| <= 1e-8),
    # keeping one coefficient at least.
    small = em.abs(r[:-1]) <= 1e-8
    lead = int(em.argmin(em.concatenate((small, em.zeros((1,), dtype="bool", device=u.device)))))
    return q, r[lead:]


def polyfit(x, y, deg, rcond=None, full=False, w=None, cov=False):
    """Least-squares polynomial fit, NumPy's: the scaled Vandermonde
    system solved by em.linalg.lstsq (cuSOLVER on CUDA), where the data
    are."""
    import warnings
    order = int(deg) + 1
    x = _arr(x) + 0.0
    y = _arr(y) + 0.0
    if deg < 0:
        raise ValueError("expected deg >= 0")
    if x.ndim != 1:
        raise TypeError("expected 1D vector for x")
    if x.size == 0:
        raise TypeError("expected non-empty vector for x")
    if y.ndim < 1 or y.ndim > 2:
        raise TypeError("expected 1D or 2D array for y")
    if x.shape[0] != y.shape[0]:
        raise TypeError("expected x and y to have same length")
    if rcond is None:
        rcond = x.shape[0] * _np.finfo(_np.dtype(x.dtype)).eps
    lhs = em.vander(x, order)
    rhs = y
    if w is not None:
        w = _arr(w) + 0.0
        if w.ndim != 1:
            raise TypeError("expected a 1-d array for weights")
        if w.shape[0] != y.shape[0]:
            raise TypeError("expected w and y to have the same length")
        lhs = lhs * w[:, None]
        rhs = rhs * (w[:, None] if rhs.ndim == 2 else w)
    scale = em.sqrt((lhs * lhs).sum(axis=0))
    lhs = lhs / scale
    c, resids, rank, s = em.linalg.lstsq(lhs, rhs, rcond)
    c = (c.T / scale).T
    if int(rank) != order and not full:
        warnings.warn("Polyfit may be poorly conditioned", _np.exceptions.RankWarning,
                      stacklevel=2)
    if full:
        return c, resids, rank, s, rcond
    if not cov:
        return c
    vbase = em.linalg.inv(em.matmul(lhs.T, lhs)) / em.outer(scale, scale)
    if cov == "unscaled":
        fac = 1
    else:
        if x.shape[0] <= order:
            raise ValueError("the number of data points must exceed order "
                             "to scale the covariance matrix")
        fac = resids / (x.shape[0] - order)
    if y.ndim == 1:
        return c, vbase * fac
    return c, vbase[:, :, None] * fac


def roots(p):
    """The roots of p (companion-matrix eigenvalues, on the host for now)."""
    return _fallback("roots", _np.roots, p)
