"""bincount, histogram, histogram_bin_edges, histogram2d, histogramdd and
digitize on Ember's operations (so on the array's device).

Counting is by sorting, not by atomics: ``bincount`` sorts the values and
reads each bin's count as the distance between ``searchsorted`` positions
of consecutive bin numbers.  A histogram is then exact for NumPy's edge
rule (bin i holds ``edges[i] <= x < edges[i+1]``, the last bin closed).
Bin edges come from NumPy (a handful of numbers; for ``bins=int`` the data's
minimum and maximum are two scalars read back); the string estimators
(``bins='auto'``...) look at all the data and run NumPy on the host.
Weighted counts are a scatter-add (``_scatter``: atomics on a device,
NumPy's loop on the CPU)."""
import builtins as _builtins
import operator as _operator

import numpy as _np

import ember as em

from . import _ember
from . import _scatter
from ._hostcall import host_only as _host_only, numpy_fallback as _fallback

__all__ = ["bincount", "histogram", "histogram_bin_edges", "histogram2d", "histogramdd",
           "digitize"]


def _arr(a):
    return a if isinstance(a, _ember.ndarray) else em.asarray(a)


def bincount(x, /, weights=None, minlength=0):
    """Occurrences of each value 0..max(x) (weighted sums with weights)."""
    x = _arr(x)
    if x.ndim != 1:
        raise ValueError("object too deep for desired array" if x.ndim > 1 else
                         "object of too small depth for desired array")
    if x.dtype.kind not in "biu":
        if x.size == 0 and x.dtype.kind == "f":
            x = x.astype(_np.int64)
        else:
            raise TypeError("Cannot cast array data from dtype('%s') to dtype('int64') "
                            "according to the rule 'safe'" % x.dtype)
    minlength = _operator.index(minlength)
    if minlength < 0:
        raise ValueError("'minlength' must not be negative")
    if weights is None and not _scatter.on_device(x):
        # the CPU: NumPy's counting loop on the shared buffer (its checks and messages);
        # the device's sort + searchsorted measured ~6x slower there
        return _host_only(_np.bincount, x, None, minlength)
    if x.size and bool(em.any(x < 0)):
        raise ValueError("'list' argument must have no negative elements")
    n = max(int(em.max(x)) + 1 if x.size else 0, minlength)
    bounds = em.arange(n + 1, dtype=_np.int64)
    xi = x.astype(_np.int64)
    if weights is None:
        s = em.sort(xi)
        pos = em.searchsorted(s, bounds)
        return pos[1:] - pos[:-1]
    # Weighted sums are a scatter-add (differences of a cumulative sum would
    # lose precision and spread one NaN to every later bin): atomics on a
    # device, NumPy's loop on the CPU's shared buffer.
    w = _arr(weights)
    if w.shape != x.shape:
        raise ValueError("The weights and list don't have the same length.")
    if w.dtype.kind == "c":
        raise TypeError("Cannot cast array data from dtype('complex128') to dtype('float64') "
                        "according to the rule 'safe'")
    if not _scatter.on_device(x):
        return _host_only(_np.bincount, x, w, minlength)
    out = em.zeros((n,), dtype=_np.float64, device=x.device)
    return _scatter.scatter_add(out, xi, w.astype(_np.float64))


def _edges(a, bins, range_, weights, name):
    """The bin edges as a NumPy array (None: the caller must fall back)."""
    if isinstance(bins, str):
        return None
    if isinstance(bins, _ember.ndarray):
        bins = bins.get()
    if _np.ndim(bins) == 1:
        e = _np.asarray(bins)
        if _np.any(e[:-1] > e[1:]):
            raise ValueError("`bins` must increase monotonically, when an array")
        return e
    if _np.ndim(bins) != 0:
        raise ValueError("`bins` must be 1d, when an array")
    try:
        nb = _operator.index(bins)
    except TypeError:
        raise TypeError("`bins` must be an integer, a string, or an array") from None
    if nb < 1:
        raise ValueError("`bins` must be positive, when an integer")
    if range_ is not None:
        lo, hi = range_
        if lo > hi:
            raise ValueError("max must be larger than min in range parameter.")
        if not (_np.isfinite(lo) and _np.isfinite(hi)):
            raise ValueError(f"supplied range of [{lo}, {hi}] is not finite")
    elif a.size == 0:
        lo, hi = 0, 1
    else:
        # NumPy's scalars of a's dtype (linspace then works in float32 for float32 data)
        lo, hi = a.dtype.type(em.min(a).item()), a.dtype.type(em.max(a).item())
        if not (_np.isfinite(lo) and _np.isfinite(hi)):
            raise ValueError(f"autodetected range of [{lo}, {hi}] is not finite")
    if lo == hi:
        lo, hi = lo - 0.5, hi + 0.5
    dt = _np.result_type(a.dtype, 0.0) if a.dtype.kind in "fc" else _np.dtype(_np.float64)
    if a.dtype.kind == "f":
        dt = a.dtype
    return _np.linspace(lo, hi, nb + 1, endpoint=True, dtype=dt)


def histogram_bin_edges(a, bins=10, range=None, weights=None):
    """The edges histogram would use."""
    a = _arr(a)
    e = _edges(a, bins, range, weights, "histogram_bin_edges")
    if e is None:
        return _fallback("histogram_bin_edges", _np.histogram_bin_edges, a, bins, range, weights)
    return em.asarray(e, device=a.device)


def histogram(a, bins=10, range=None, density=None, weights=None):
    """(counts, bin_edges) as numpy.histogram."""
    a = _arr(a)
    e = _edges(a, bins, range, weights, "histogram")
    if e is None:
        return _fallback("histogram", _np.histogram, a, bins, range, density, weights)
    edges = em.asarray(e, device=a.device)
    x = em.ravel(a)
    if x.dtype.kind == "c":
        x = x.real
    cmp_dt = _np.result_type(x.dtype, e.dtype)
    xs_key = x.astype(cmp_dt)
    ecmp = edges.astype(cmp_dt)
    if weights is not None:
        counts = _weighted_hist(xs_key, ecmp, _arr(weights), a.shape)
        if counts is None:
            return _fallback("histogram", _np.histogram, a, bins, range, density, weights)
        if density:
            db = (edges[1:] - edges[:-1]).astype(_np.float64)
            with _np.errstate(all="ignore"):
                return counts / db / em.sum(counts), edges
        return counts, edges
    s = em.sort(xs_key)
    # cum[i]: values below edge i; the last edge counts values equal to it too
    pos = em.concatenate((em.searchsorted(s, ecmp[:-1], side="left"),
                          em.searchsorted(s, ecmp[-1:], side="right")))
    counts = pos[1:] - pos[:-1]
    if density:
        db = (edges[1:] - edges[:-1]).astype(_np.float64)  # NumPy: diff, then float
        with _np.errstate(all="ignore"):
            return counts / db / em.sum(counts), edges
    return counts, edges


def _weighted_hist(x, edges, w, shape):
    """Weighted counts per bin by a scatter-add (None: NumPy must do it)."""
    if w.shape != shape:
        raise ValueError("weights should have the same shape as a.")
    if w.dtype.kind == "c":
        return None
    if not _scatter.on_device(x):
        c, _ = _host_only(_np.histogram, x, edges, None, None, em.ravel(w))
        return c
    nb = edges.shape[0] - 1
    idx = em.searchsorted(edges, x, side="right") - 1
    idx = em.where(x == edges[-1], nb - 1, idx)  # the last bin is closed
    ok = (x >= edges[0]) & (x <= edges[-1])
    wf = em.ravel(w)
    odt = wf.dtype  # NumPy's: the weights' dtype
    if odt not in _scatter.KINDS:
        odt = _np.dtype(_np.int64 if odt.kind in "biu" else _np.float64)
    vals = em.where(ok, wf.astype(odt), em.zeros((), dtype=odt))
    out = em.zeros((nb,), dtype=odt, device=x.device)
    return _scatter.scatter_add(out, em.where(ok, idx, 0), vals)


def _edges_dd(sample, bins, range_, D):
    if isinstance(bins, (int, _np.integer)):
        bins = [bins] * D
    elif len(bins) != D:
        raise ValueError("The dimension of bins must be equal to the dimension of the sample x.")
    if range_ is None:
        range_ = [None] * D
    elif len(range_) != D:
        raise ValueError("range argument must have one entry per dimension")
    out = []
    for i in _builtins.range(D):
        col = sample[:, i]
        e = _edges(col, bins[i], range_[i], None, "histogramdd")
        if e is None:
            return None
        if _np.ndim(bins[i]) == 0 and col.dtype.kind != "f":
            e = e.astype(_np.float64)
        out.append(e)
    return out


def histogramdd(sample, bins=10, range=None, density=None, weights=None):
    """(H, edges) as numpy.histogramdd: the sample is (N, D) or a sequence of D arrays."""
    if isinstance(sample, (list, tuple)):
        sample = em.stack([_arr(s) for s in sample], axis=-1)
    else:
        sample = _arr(sample)
        if sample.ndim == 1:
            sample = sample[:, None]
    N, D = sample.shape
    if isinstance(bins, str) or (not isinstance(bins, (int, _np.integer)) and
                                 any(isinstance(b, str) for b in bins)):
        return _fallback("histogramdd", _np.histogramdd, sample, bins, range, density, weights)
    edges = _edges_dd(sample, bins, range, D)
    if edges is None:
        return _fallback("histogramdd", _np.histogramdd, sample, bins, range, density, weights)
    nbin = [len(e) + 1 for e in edges]  # with an outlier bin at each end
    flat = em.zeros((N,), dtype=_np.int64)
    for i, e in enumerate(edges):  # noqa: B007
        col = sample[:, i]
        ed = em.asarray(e, device=sample.device)
        cdt = _np.result_type(col.dtype, e.dtype)
        c = col.astype(cdt)
        idx = em.searchsorted(ed.astype(cdt), c, side="right")
        idx = idx - (c == ed[-1].astype(cdt)).astype(_np.int64)
        flat = flat * nbin[i] + idx
    total = int(_np.prod(nbin))
    if weights is None:
        hist = bincount(flat, minlength=total).astype(_np.float64)
    else:
        hist = bincount(flat, weights=em.ravel(_arr(weights)), minlength=total)
    hist = em.reshape(hist, tuple(nbin))
    core = tuple(slice(1, -1) for _ in _builtins.range(D))
    hist = hist[core].copy()
    out_edges = [em.asarray(e, device=sample.device) for e in edges]
    if density:
        s = em.sum(hist)
        for i in _builtins.range(D):
            shape = [1] * D
            shape[i] = nbin[i] - 2
            w = out_edges[i][1:] - out_edges[i][:-1]
            hist = hist / em.reshape(w, tuple(shape))
        hist = hist / s
    return hist, out_edges


def histogram2d(x, y, bins=10, range=None, density=None, weights=None):
    """(H, xedges, yedges) as numpy.histogram2d."""
    try:
        N = len(bins)
    except TypeError:
        N = 1
    if N != 1 and N != 2:
        xedges = yedges = _np.asarray(bins.get() if isinstance(bins, _ember.ndarray) else bins)
        bins = [xedges, yedges]
    hist, edges = histogramdd([x, y], bins, range, density, weights)
    return hist, edges[0], edges[1]


def digitize(x, bins, right=False):
    """Indices of the bins each x falls in (bins monotonic either way)."""
    x = _arr(x)
    b = _arr(bins)
    if x.dtype.kind == "c":
        raise TypeError("x may not be complex")
    if b.ndim != 1:
        raise ValueError("object too deep for desired array")
    bh = b
    side = "left" if right else "right"
    if b.shape[0] > 1:
        inc = bool(em.all(bh[1:] >= bh[:-1]))
        dec = bool(em.all(bh[1:] <= bh[:-1]))
        if not inc and not dec:
            raise ValueError("bins must be monotonically increasing or decreasing")
        if not inc:
            return b.shape[0] - em.searchsorted(em.flip(b), x, side=side)
    return em.searchsorted(b, x, side=side)
