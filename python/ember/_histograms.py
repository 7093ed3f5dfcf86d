"""bincount, histogram, histogram_bin_edges, histogram2d, histogramdd and
digitize on Ember's operations (so on the array's device).

Counting is one atomic kernel (``_ember._histogram``, the template of
src/codegen/render_histogram.c; a serial loop on the CPU): the bin of each
sample is found in the kernel -- the value itself for ``bincount``; for a
histogram NumPy's rule, bin i holding ``edges[i] <= x < edges[i+1]`` with the
last bin closed, by an estimate corrected against the edges (uniform bins)
or a binary search of them -- and counted in per-block bins in shared
memory.  Bin edges come from NumPy (a handful of numbers; for ``bins=int``
the data's minimum and maximum are read back together), planned once per
(bins, range, dtype, device) so a repeated call is a zeroed count, the
kernel and a copy of the edges; the string
estimators (``bins='auto'``...) are NumPy's formulas over statistics taken
on the device (min, max, std, mean, percentiles: a few scalars read back;
'stone' one device histogram per candidate count).  Weights sum as NumPy's
``bincount`` does, in float64 (complex128 for complex weights) then cast
to the weights' dtype; a GPU adds them in an unspecified order (as CuPy's
and PyTorch's do), so float sums may differ from NumPy's in the last bits."""
import builtins as _builtins
import math as _math
import operator as _operator

import numpy as _np

import ember as em

from . import _ember
from ._hostcall import host_only as _host_only, numpy_fallback as _fallback

__all__ = ["bincount", "histogram", "histogram_bin_edges", "histogram2d", "histogramdd",
           "digitize"]

# modes of _ember._histogram: the value is the bin; uniform edges; searched edges
_COUNT, _UNIFORM, _EDGES = 0, 1, 2


def _arr(a):
    return a if isinstance(a, _ember.ndarray) else em.asarray(a)


# Edges already on a device, by (device, dtype, bytes): a copy from host memory
# waits for the device's stream (a synchronisation per call), while edges
# repeat from call to call.  Never handed out (callers get a copy); a few
# kilobytes each, the oldest dropped past _EDGE_CACHE_MAX.
_EDGE_CACHE = {}
_EDGE_CACHE_MAX = 32


def _dev_edges(e, device):
    """The NumPy array e on device, from the cache (read only: copy to return)."""
    dev = str(device)
    if dev.startswith("cpu") or e.nbytes > 1 << 16:
        return em.asarray(e, device=device)
    key = (dev, e.dtype.str, e.tobytes())
    got = _EDGE_CACHE.pop(key, None)
    if got is None:
        got = em.asarray(e, device=device)
        if len(_EDGE_CACHE) >= _EDGE_CACHE_MAX:
            _EDGE_CACHE.pop(next(iter(_EDGE_CACHE)))
    _EDGE_CACHE[key] = got  # most recent last
    return got


def _kernel_cmp(dt):
    """The kernel's comparison dtype for samples and edges promoting to dt (a
    widening both convert to exactly, so every comparison is unchanged), or
    None."""
    dt = _np.dtype(dt)
    if dt.kind == "f" and dt.itemsize <= 8:
        return _np.dtype(_np.float32 if dt.itemsize <= 4 else _np.float64)
    if dt.kind in "bi":
        return _np.dtype(_np.int64)
    if dt.kind == "u":
        return _np.dtype(_np.uint64)
    return None


def _kernel_samples(x, cmp):
    """x as the kernel loads it: C-contiguous, of a dtype it converts from."""
    if x.dtype.kind == "b" or x.dtype == _np.float16 or x.dtype.kind not in "biuf":
        x = x.astype(cmp)
    return em.ascontiguousarray(x)


def _weights_acc(w):
    """(accumulating dtype, weights cast to it): float64, complex128 for complex."""
    acc = _np.dtype(_np.complex128 if w.dtype.kind == "c" else _np.float64)
    return acc, em.ascontiguousarray(em.ravel(w).astype(acc))


def _uniform(e, check=False):
    """(mode, lo, scale) of linspace edges e: the estimate's, or the search
    where it has none (a range too wide for the dtype).  check: edges given
    by the caller, taken as uniform when the estimate lands within a bin of
    each edge (the correction then walks a step or two; it is exact either
    way)."""
    nb = len(e) - 1
    lo, hi = float(e[0]), float(e[-1])
    with _np.errstate(all="ignore"):
        scale = nb / (hi - lo) if hi > lo else _math.inf
    if not (_math.isfinite(scale) and scale > 0):
        return _EDGES, 0.0, 0.0
    if check:
        with _np.errstate(all="ignore"):
            est = (e.astype(_np.float64) - lo) * scale
        if not bool(_np.all(_np.abs(est - _np.arange(nb + 1)) <= 1.0)):
            return _EDGES, 0.0, 0.0
    return _UNIFORM, lo, scale


def bincount(x, /, weights=None, minlength=0):
    """Occurrences of each value 0..max(x) (weighted sums with weights)."""
    # bincount([]) works in NumPy (an empty list), bincount of an empty float array does not
    listlike = not isinstance(x, (_ember.ndarray, _np.ndarray))
    x = _arr(x)
    if x.ndim != 1:
        raise ValueError("object too deep for desired array" if x.ndim > 1 else
                         "object of too small depth for desired array")
    if x.dtype.kind not in "biu":
        if x.size == 0 and x.dtype.kind == "f" and listlike:
            x = x.astype(_np.int64)
        else:
            raise TypeError("Cannot cast array data from dtype('%s') to dtype('int64') "
                            "according to the rule 'safe'" % x.dtype)
    minlength = _operator.index(minlength)
    if minlength < 0:
        raise ValueError("'minlength' must not be negative")
    w = None
    if weights is not None and x.size:  # no samples: NumPy's int64 zeros, weights unread
        w = _arr(weights)
        if w.shape != x.shape:
            raise ValueError("The weights and list don't have the same length.")
        if w.dtype.kind == "c":
            raise TypeError("Cannot cast array data from dtype('complex128') to "
                            "dtype('float64') according to the rule 'safe'")
    if x._dev[0] == "cpu":
        if x.dtype != _np.uint64 and (w is None or w._dev[0] == "cpu"):
            # one pass in C (backend/cpu/bincount.c): the count is the check
            if w is not None and w.dtype != _np.float64:
                w = w.astype(_np.float64)
            out = _ember._bincount(x, w, minlength)
            if out is not None:
                return out
        # uint64 (NumPy's cast error), weights elsewhere, odd strides: NumPy's loop
        return _host_only(_np.bincount, x, w, minlength)
    n = minlength
    if x.size:
        lo, hi = (int(v) for v in _minmax(x))  # one read-back for both ends
        if lo < 0:
            raise ValueError("'list' argument must have no negative elements")
        n = max(hi + 1, minlength)
    xs = _kernel_samples(x, _np.int64)
    if w is None or x.size == 0:  # NumPy's: no samples count into int64 even with weights
        out = _ember.full((n,), 0, "int64", x.device)
        wk = None
    else:
        out = _ember.full((n,), 0, "float64", x.device)
        wk = em.ascontiguousarray(w.astype(_np.float64))
    if n and x.size:
        _ember._histogram(out, xs, None, wk, (_COUNT,), (n,), (0.0,), (0.0,))
    return out


_ESTIMATORS = ("stone", "auto", "doane", "fd", "rice", "scott", "sqrt", "sturges")


def _spread(hi, lo):
    """hi - lo as NumPy's _unsigned_subtract: integers in their unsigned
    type (no overflow for int8's -128..127), floats as they are."""
    hi, lo = _np.asarray(hi), _np.asarray(lo)
    dt = _np.result_type(hi, lo)
    if dt.kind == "i":
        ut = _np.dtype(f"u{dt.itemsize}")
        return (hi.astype(dt).astype(ut) - lo.astype(dt).astype(ut))[()]
    return (hi - lo)[()]


def _ptp(x):
    lo, hi = _minmax(x)  # one read-back for both
    return _spread(hi, lo)


def _stone(x, rng):
    """NumPy's Stone estimator: the bin count minimising the estimated L2
    risk, each count's histogram on the device (one scalar read each)."""
    import warnings
    n, ptp = x.size, _ptp(x)
    if n <= 1 or ptp == 0:
        return 0
    upper = max(100, int(_np.sqrt(n)))
    best, best_j = None, None
    for nb in _builtins.range(1, upper + 1):
        p = histogram(x, bins=nb, range=rng)[0] / n
        j = (2 - (n + 1) * float(em.sum(p * p).item())) / (ptp / nb)
        if best_j is None or j < best_j:  # min() keeps the first of equal risks
            best, best_j = nb, j
    if best == upper:
        warnings.warn("The number of bins estimated may be suboptimal.", RuntimeWarning,
                      stacklevel=4)
    return ptp / best


def _width(name, x, rng):
    """NumPy's _hist_bin_selectors[name](x, rng), with x's statistics
    computed on its device (a few scalars read back)."""
    n = x.size
    if name == "sqrt":
        return _ptp(x) / _np.sqrt(n)
    if name == "sturges":
        return _ptp(x) / (_np.log2(n) + 1.0)
    if name == "rice":
        return _ptp(x) / (2.0 * n ** (1.0 / 3))
    if name == "scott":
        return (24.0 * _np.pi ** 0.5 / n) ** (1.0 / 3.0) * float(em.std(x).item())
    if name == "stone":
        return _stone(x, rng)
    if name == "doane":
        if n > 2:
            sg1 = _np.sqrt(6.0 * (n - 2) / ((n + 1.0) * (n + 3)))
            sigma = float(em.std(x).item())
            if sigma > 0.0:
                g1 = float(em.mean(((x - em.mean(x)) / sigma) ** 3).item())
                return _ptp(x) / (1.0 + _np.log2(n) + _np.log2(1.0 + _np.absolute(g1) / sg1))
        return 0.0
    q75, q25 = (float(v) for v in em.percentile(x, em.asarray([75, 25], device=x.device)).get())
    fd = 2.0 * (q75 - q25) * n ** (-1.0 / 3.0)
    if name == "fd":
        return fd
    sturges = _width("sturges", x, rng)  # "auto"
    return min(fd, sturges) if fd else sturges


def _outer(a, range_):
    """NumPy's _get_outer_edges: range or the data's ends (scalars of a's
    dtype), widened by 0.5 each way when they are equal."""
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
        lo, hi = _minmax(a)
        if not (_np.isfinite(lo) and _np.isfinite(hi)):
            raise ValueError(f"autodetected range of [{lo}, {hi}] is not finite")
    if lo == hi:
        lo, hi = lo - 0.5, hi + 0.5
    return lo, hi


def _estimated_bins(a, name, range_, weights):
    """The number of equal bins NumPy's estimator `name` picks for a."""
    if name not in _ESTIMATORS:
        raise ValueError(f"{name!r} is not a valid estimator for `bins`")
    if weights is not None:
        raise TypeError("Automated estimation of the number of bins is not supported for "
                        "weighted data")
    x = em.ravel(a)
    lo, hi = _outer(x, range_)
    if range_ is not None:
        x = x[(x >= lo) & (x <= hi)]
    if x.size == 0:
        return 1
    width = _width(name, x, (lo, hi))
    if not width:  # zero for some estimators (fd of data whose IQR is 0)
        return 1
    if x.dtype.kind in "iu" and width < 1:
        width = 1
    return int(_np.ceil(_spread(hi, lo) / width))


def _edges(a, bins, range_, weights, name, edge_dtype=None):
    """The bin edges as a NumPy array (None: the caller must fall back);
    edge_dtype: that of linspace's edges instead of histogram's rule."""
    if isinstance(bins, str):
        if a.dtype.kind == "c":
            return None  # NumPy's estimators on complex data: its own errors
        bins = _estimated_bins(a, bins, range_, weights)
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
    lo, hi = _outer(a, range_)
    if edge_dtype is not None:
        dt = edge_dtype
    else:  # NumPy's bin_type: the range's ends (Python numbers weak) with the data's dtype
        dt = _np.result_type(lo, hi, a.dtype)
        if dt.kind in "biu":
            dt = _np.result_type(dt, float)
    e = _np.linspace(lo, hi, nb + 1, endpoint=True, dtype=dt)
    if edge_dtype is None and _np.any(e[:-1] >= e[1:]):
        # NumPy's check: a range too narrow for the edge dtype (float16 near 65504)
        raise ValueError(f"Too many bins for data range. Cannot create {nb} finite-sized bins.")
    return e


def histogram_bin_edges(a, bins=10, range=None, weights=None):
    """The edges histogram would use."""
    a = _arr(a)
    e = _edges(a, bins, range, weights, "histogram_bin_edges")
    if e is None:
        return _fallback("histogram_bin_edges", _np.histogram_bin_edges, a, bins, range, weights)
    return _own_edges(bins, None if isinstance(bins, _ember.ndarray) else
                      em.asarray(e, device=a.device))


# Plans of histogram(a, bins=int, range) by (bins, range's ends, a's dtype,
# device): the edges on the device (to copy out) and in the kernel's dtype,
# the bin rule and the kernel's dtype.  A repeated call then skips linspace,
# the edge checks and the two edge-cache keys (bytes of the edges), which
# were most of its host time (a 38 us kernel under ~60 us of Python on the
# H100).  Only calls that passed every check once are planned; the oldest
# plan goes past _PLAN_MAX.
_PLANS = {}
_PLAN_MAX = 64


def _minmax(a):
    """a's minimum and maximum as NumPy scalars of its dtype: one read-back."""
    # two reductions into one buffer (em.stack of two 0-d results took ~50 us
    # more on the CPU device)
    o = em.empty((2,), dtype=a.dtype, device=a.device)
    em.min(a, out=o[0:1].reshape(()))
    em.max(a, out=o[1:2].reshape(()))
    lo, hi = o.get()
    return a.dtype.type(lo), a.dtype.type(hi)


def _negzero(v):
    """Whether v is -0.0 (equal to 0.0 and of one hash, but NumPy's last edge keeps its sign)."""
    return v == 0 and _math.copysign(1.0, v) < 0


def _plan_key(a, bins, range_):
    """The plan's key for histogram(a, bins, range_), or None where the call
    takes the general path (bins not an integer, an odd range, complex data)."""
    if type(bins) is not int and not isinstance(bins, _np.integer):
        return None
    if a.dtype.kind not in "biuf":
        return None
    if range_ is None:
        if not a.size:
            return None
        lo, hi = _minmax(a)  # the data's ends: part of the key (and a's dtype's scalars)
        if not (_np.isfinite(lo) and _np.isfinite(hi)):
            return None  # the general path raises NumPy's error
        return (int(bins), None, type(lo), lo, hi, _negzero(lo), _negzero(hi), a.dtype.str,
                a._dev)
    if type(range_) not in (tuple, list) or len(range_) != 2:
        return None
    lo, hi = range_
    try:
        return (int(bins), True, type(lo), lo, type(hi), hi, _negzero(lo), _negzero(hi),
                a.dtype.str, a._dev)
    except TypeError:  # an unhashable end
        return None


def _plan(a, bins, range_, key):
    """The plan for key (see _PLANS), made on a miss; None where the general
    path must serve (the CPU's searched edges)."""
    got = _PLANS.get(key)
    if got is not None:
        return got
    # range None: the data's ends, read once for the key, serve as the range
    e = _edges(a, bins, range_ if key[1] else (key[3], key[4]), None, "histogram")
    cmp = _kernel_cmp(_np.result_type(a.dtype, e.dtype))
    nb = len(e) - 1
    mode, lo, scale = _uniform(e)
    if cmp is None or (mode == _EDGES and a._dev[0] == "cpu"):
        return None
    got = (_dev_edges(e, a.device), _dev_edges(e.astype(cmp), a.device), mode, nb, lo, scale, cmp)
    if len(_PLANS) >= _PLAN_MAX:
        _PLANS.pop(next(iter(_PLANS)))
    _PLANS[key] = got
    return got


def _planned(a, p):
    """(counts, edges) of the plan p: a zeroed count, one kernel, a copy of the edges."""
    dev_e, ke, mode, nb, lo, scale, cmp = p
    x = a if a.ndim == 1 else em.ravel(a)
    if x.dtype.kind == "b" or x.dtype == _np.float16 or not x.flags.c_contiguous:
        x = _kernel_samples(x, cmp)
    counts = _ember.full((nb,), 0, "int64", a.device)
    if x.size:
        _ember._histogram(counts, x, ke, None, (mode,), (nb,), (lo,), (scale,))
    return counts, dev_e.copy()


def histogram(a, bins=10, range=None, density=None, weights=None):
    """(counts, bin_edges) as numpy.histogram."""
    counts, edges = _histogram(a, bins, range, density, weights)
    return counts, _own_edges(bins, edges)


def _own_edges(bins, edges):
    """NumPy's edges are np.asarray(bins): an array bins= is handed back itself
    (a later write into either shows in both), anything else as computed."""
    return bins if isinstance(bins, _ember.ndarray) and bins.ndim == 1 else edges


def _histogram(a, bins, range, density, weights):
    a = _arr(a)
    if a.dtype.kind == "c":
        # NumPy bins complex values in its complex order (real part, then
        # imaginary: 0.5-1j falls below the edge 0.5) against complex edges;
        # the count kernels compare real keys
        return _fallback("histogram", _np.histogram, a, bins, range, density, weights)
    if weights is None and not density:
        key = _plan_key(a, bins, range)
        p = _plan(a, bins, range, key) if key is not None else None
        if p is not None:
            return _planned(a, p)
    e = _edges(a, bins, range, weights, "histogram")
    if e is None:
        return _fallback("histogram", _np.histogram, a, bins, range, density, weights)
    dev_e = _dev_edges(e, a.device)
    edges = dev_e.copy()  # the caller's own (a queued copy, no synchronisation)
    x = em.ravel(a)
    w = None
    if weights is not None:
        w = _arr(weights)
        if w.shape != a.shape:
            raise ValueError("weights should have the same shape as a.")
    cmp = _kernel_cmp(_np.result_type(x.dtype, e.dtype))
    if cmp is None:
        return _fallback("histogram", _np.histogram, a, bins, range, density, weights)
    nb = len(e) - 1
    uniform = not isinstance(bins, (str, _ember.ndarray)) and _np.ndim(bins) == 0
    mode, lo, scale = _uniform(e, check=not uniform) if nb else (_EDGES, 0.0, 0.0)
    if w is None:
        counts = em.zeros((nb,), dtype=_np.int64, device=a.device)
        wk = None
    else:
        acc, wk = _weights_acc(w)
        counts = em.zeros((nb,), dtype=acc, device=a.device)
    if nb and x.size and mode == _EDGES and w is None and x._dev[0] == "cpu":
        # the CPU with edges far from uniform: NumPy's sort and search beat a
        # binary search per sample there (on a device the search wins)
        counts = _host_only(_np.histogram, x, e)[0].astype(_np.int64)
    elif nb and x.size:
        _ember._histogram(counts, _kernel_samples(x, cmp), _dev_edges(e.astype(cmp), a.device),
                          wk, (mode,), (nb,), (lo,), (scale,))
    if w is not None and counts.dtype != w.dtype:
        counts = counts.astype(w.dtype)  # NumPy's: summed as bincount does, then cast
    if density:
        db = (edges[1:] - edges[:-1]).astype(_np.float64)  # NumPy: diff, then float
        with _np.errstate(all="ignore"):
            return counts / db / em.sum(counts), edges
    return counts, edges


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
        # NumPy's linspace of the range's Python numbers is float64 (of the
        # data's extremes, their dtype when float)
        f64 = col.dtype.kind != "f" or range_[i] is not None
        if isinstance(bins[i], str):
            return None  # NumPy's histogramdd takes no estimator: its TypeError
        e = _edges(col, bins[i], range_[i], None, "histogramdd",
                   _np.dtype(_np.float64) if f64 else None)
        if e is None:
            return None
        out.append(e)
    return out


def _dd_bins(bins, D):
    """bins per dimension (an int for every dimension, or one entry each)."""
    if isinstance(bins, (int, _np.integer)):
        return [bins] * D
    return list(bins)


def _histogramdd_search(sample, edges, wk):
    """histogramdd's counts where the kernel cannot take the dimensions in
    one dtype: each dimension's bin by searchsorted, then counted flat."""
    N, D = sample.shape
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
    hist = bincount(flat, weights=wk, minlength=total).astype(_np.float64)
    hist = em.reshape(hist, tuple(nbin))
    core = tuple(slice(1, -1) for _ in _builtins.range(D))
    return hist[core].copy()


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
    if weights is not None:
        w = _arr(weights)
        if w.size != N:
            raise ValueError("The weights and list don't have the same length.")
        if w.dtype.kind == "c":
            raise TypeError("Cannot cast array data from dtype('complex128') to "
                            "dtype('float64') according to the rule 'safe'")
        wk = em.ascontiguousarray(em.ravel(w).astype(_np.float64))
    else:
        wk = None
    cmps = {_kernel_cmp(_np.result_type(sample.dtype, e.dtype)) for e in edges}
    nbs = tuple(len(e) - 1 for e in edges)
    total = int(_np.prod(nbs))
    if len(cmps) == 1 and None not in cmps and 1 <= D <= 8:
        cmp = cmps.pop()
        hist = em.zeros((total,), dtype=_np.float64 if wk is not None else _np.int64,
                        device=sample.device)
        if total and N:
            specs = [_uniform(e, check=_np.ndim(b) != 0)
                     for e, b in zip(edges, _dd_bins(bins, D))]
            ecat = _dev_edges(_np.concatenate([e.astype(cmp) for e in edges]), sample.device)
            _ember._histogram(hist, _kernel_samples(sample, cmp), ecat, wk,
                              tuple(m for m, _, _ in specs), nbs,
                              tuple(lo for _, lo, _ in specs), tuple(sc for _, _, sc in specs))
        hist = em.reshape(hist.astype(_np.float64), nbs)
    else:
        hist = _histogramdd_search(sample, edges, wk)
    out_edges = [_dev_edges(e, sample.device).copy() for e in edges]
    if density:
        s = em.sum(hist)
        for i in _builtins.range(D):
            shape = [1] * D
            shape[i] = nbs[i]
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


def _monotonicity(h):
    """NumPy's check_array_monotonic (1 increasing, -1 decreasing, 0 neither) on host
    bins, in float64 as NumPy takes them (integers past 2**53 round): the first pair
    that is not equal decides the direction, increasing only where it steps up (a
    pair with a NaN is unequal and does not step up, so NaN bins can read as
    decreasing), and a later step the other way makes it 0."""
    h = _np.asarray(h, dtype=_np.float64)
    lo, hi = h[:-1], h[1:]
    ne = ~(hi == lo)
    if not ne.any():
        return 1
    k = int(_np.argmax(ne))
    if lo[k] < hi[k]:
        return 0 if (hi < lo).any() else 1
    return 0 if (hi > lo).any() else -1


def digitize(x, bins, right=False):
    """Indices of the bins each x falls in (bins monotonic either way)."""
    x = _arr(x)
    b = _arr(bins)
    if x.dtype.kind == "c":
        raise TypeError("x may not be complex")
    if b.dtype.kind == "c":  # NumPy's monotonicity check takes real bins only
        raise TypeError("bins may not be complex")
    if b.ndim != 1:
        raise ValueError("object too deep for desired array")
    side = "left" if right else "right"
    if b.shape[0] < 2:
        return em.searchsorted(b, x, side=side)
    # The search for increasing bins is queued before NumPy's monotonicity
    # check, whose one read-back then overlaps the search instead of holding
    # the device idle before it; bins that do not increase (rare) waste that
    # search.
    r = em.searchsorted(b, x, side=side)
    n = b.shape[0]
    if b.nbytes <= 1 << 16:
        # the bins themselves read back (waiting on the search, as any read
        # would) and checked here: no graph to build, no kernel after the search
        mono = _monotonicity(b.get())
    else:
        # the steps' counts in one fused kernel and one read: down + n * up
        # (+ n * n * the pairs a NaN leaves unordered, for float bins); the
        # views taken first: a slice taken between the comparisons would
        # evaluate the first on its own
        hi, lo = b[1:], b[:-1]
        t = (hi < lo) * 1 + (hi > lo) * n
        nan = b.dtype.kind == "f" and n < 1 << 20  # n**3 within int64
        if nan:
            t = t + ((hi != hi) + (lo != lo)) * (n * n)
        v = int(em.sum(t))
        unordered, v = divmod(v, n * n) if nan else (0, v)
        up, down = divmod(v, n)
        if b.dtype.kind == "f" and not nan:
            unordered = int(em.sum(em.isnan(b)))
        # without NaN (the common case) the counts decide as NumPy's walk;
        # with NaN NumPy's walk decides by the first unequal pair, read back
        mono = (0 if up and down else -1 if down else 1) if not unordered else \
            _monotonicity(b.get())
    if mono == 1:
        return r
    if mono == -1:
        return n - em.searchsorted(em.flip(b), x, side=side)
    raise ValueError("bins must be monotonically increasing or decreasing")
