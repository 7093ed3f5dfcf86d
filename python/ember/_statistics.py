"""Order statistics and moments NumPy defines in Python: median, percentile,
quantile (and their nan* forms), average, the remaining nan* reductions,
ptp, cov and corrcoef.

Everything here is written on Ember's own operations, so it runs on the
array's device: quantiles sort along the axis (``em.sort``) and gather the
two neighbours of each virtual index with ``take_along_axis`` -- or, over
the whole array, select those two order statistics without a sort
(``_quantile_select``: a radix select on a device that compiles kernels,
NumPy's single-kth partition on the CPU); the nan*
forms count the non-NaN elements of each slice (NaNs sort last) so each
slice has its own index.  Methods other than NumPy's five continuous/discrete
basics and weighted quantiles run NumPy on the host (``_hostcall``)."""
import operator as _operator
import warnings as _warnings

import numpy as _np

import ember as em

from . import _ember
from ._hostcall import numpy_fallback as _fallback

__all__ = ["median", "percentile", "quantile", "nanmedian", "nanpercentile", "nanquantile",
           "average", "nanvar", "nanstd", "nanargmin", "nanargmax", "nancumsum", "nancumprod",
           "ptp", "cov", "corrcoef"]

# Hyndman & Fan's continuous methods as NumPy writes them: the virtual index of q in n
# sorted values is n*q + alpha + q*(1 - alpha - beta) - 1 (linear is alpha = beta = 1).
_ALPHA_BETA = {"interpolated_inverted_cdf": (0.0, 1.0), "hazen": (0.5, 0.5),
               "weibull": (0.0, 0.0), "median_unbiased": (1 / 3, 1 / 3),
               "normal_unbiased": (3 / 8, 3 / 8)}
_DISCRETE = ("lower", "higher", "nearest", "inverted_cdf", "closest_observation")
_NATIVE_METHODS = ("linear", "lower", "higher", "nearest", "midpoint", "inverted_cdf",
                   "averaged_inverted_cdf", "closest_observation") + tuple(_ALPHA_BETA)


def _arr(a):
    return a if isinstance(a, _ember.ndarray) else em.asarray(a)


def _norm_axis(axis, ndim):
    """axis as a tuple of distinct non-negative ints (None: all)."""
    if axis is None:
        return tuple(range(ndim))
    axes = axis if isinstance(axis, (tuple, list)) else (axis,)
    out = []
    for ax in axes:
        ax = _operator.index(ax)
        if not -ndim <= ax < ndim:
            raise _np.exceptions.AxisError(ax, ndim)
        out.append(ax % ndim)
    if len(set(out)) != len(out):
        raise ValueError("duplicate value in 'axis'")
    return tuple(out)


def _to_last(a, axes):
    """a with the axes moved to the end and merged into one."""
    if a.ndim == 1:  # a median's usual case: no views made (each costs the host)
        return a
    rest = [i for i in range(a.ndim) if i not in axes]
    a = em.permute_dims(a, tuple(rest) + tuple(sorted(axes)))
    return em.reshape(a, tuple(a.shape[i] for i in range(len(rest))) + (-1,))


def _keep(r, a_shape, axes, keepdims, nq):
    """Reinsert the reduced axes as length 1 (after the nq leading q axes)."""
    if not keepdims:
        return r
    shape = list(r.shape[:nq])
    rest = iter(r.shape[nq:])
    for i in range(len(a_shape)):
        shape.append(1 if i in axes else next(rest))
    return em.reshape(r, tuple(shape))


_INT_INDEX = ("weibull", "interpolated_inverted_cdf", "averaged_inverted_cdf")


def _takes(method, qh):
    """Whether NumPy's _quantile takes values (its integer virtual index)
    rather than interpolating: the discrete methods, and linear of an
    integer or bool q ((n - 1) * q is an integer there: quantile([1, inf], 0)
    is 1.0, quantile(uint8, [0, 1]) uint8)."""
    return method in _DISCRETE or (method == "linear" and qh.dtype.kind in "biu")


def _result_dtype(a, take, weak, qh, method):
    """NumPy's: a's dtype where it takes values, else a's promoted with the
    interpolation weight, a weak float for a Python scalar q (NEP 50) and
    else the virtual index's dtype (q's float dtype, float64 for integers)."""
    if take:
        return a.dtype
    if weak:
        return _np.result_type(a.dtype, 0.5)
    if qh.dtype.kind == "f":
        return _np.result_type(a.dtype, qh.dtype)
    # an integer q: NumPy's index n*q + ... - 1 stays an integer for these
    # three, and so its weight (cast to the index's dtype)
    return _np.result_type(a.dtype, _np.int64 if method in _INT_INDEX else _np.float64)


def _wdt(v, rdt):
    """The dtype NumPy's lerp meets its weights in for values v: v's float
    dtype promoted with the result's (a float16 array and a float32 q:
    float32); None for values Ember holds in float64 (integers)."""
    if v.dtype.kind != "f":
        return None
    return _np.promote_types(v.dtype, rdt) if rdt.kind == "f" else v.dtype


def _lerp(lo, hi, t, wdt=None):
    """NumPy's _lerp: exact at both ends, monotone in t.  t and 1 - t are
    formed in t's dtype (float64: NumPy's Python-float gamma) and only then
    cast to wdt, as NumPy's multiply casts its weak weight."""
    d = hi - lo
    u = 1 - t
    if wdt is not None:
        t, u, big = t.astype(wdt), u.astype(wdt), t >= 0.5
    else:
        big = t >= 0.5
    return em.where(big, hi - d * u, lo + d * t)


def _quantile(a, q, axis, method, keepdims, skipnan, weak=True):
    """method "_median" is median's: the mean of the two middle values
    (NumPy's median is a mean, not its quantile's lerp)."""
    a = _arr(a)
    qh = q.get() if isinstance(q, _ember.ndarray) else _np.asarray(q)
    if qh.dtype.kind not in "biuf":
        raise TypeError("a must be an array of real numbers")
    if a.dtype.kind == "c":
        raise TypeError("a must be an array of real numbers")
    if not (_np.all(qh >= 0) and _np.all(qh <= 1)):
        raise ValueError("Quantiles must be in the range [0, 1]")
    take = _takes(method, qh)
    if take and method == "linear":
        method = "lower"  # an integer virtual index: its floor is itself
    if a.dtype.kind == "b" and method == "_median":
        a = a.astype(_np.float64)
    elif a.dtype.kind == "b" and not take:
        raise TypeError("quantile of booleans with method %r: NumPy's interpolation subtracts "
                        "booleans, which it does not support (the discrete methods pick one)"
                        % method)
    axes = _norm_axis(axis, a.ndim)
    rdt = _result_dtype(a, take, weak, qh, method)
    if a.dtype.kind == "b":
        a = a.astype(_np.uint8)  # bool's order; cast back to rdt (bool) at the end
    if a.ndim == 0:
        a = em.reshape(a, (1,))
        axes = (0,)
        shape0 = ()
    else:
        shape0 = a.shape
    flat = _to_last(a, axes)  # (..., n)
    n = flat.shape[-1]
    if n == 0:
        r = em.full(qh.shape + flat.shape[:-1], _np.nan, dtype=rdt, device=flat.device)
        _warnings.warn("Mean of empty slice", RuntimeWarning, stacklevel=3)
        return _keep(r, shape0, axes, keepdims and len(shape0) > 0, qh.ndim)
    if flat.ndim == 1 and _select_ok(flat, method):
        r = _quantile_select(flat, qh, method, skipnan, rdt)
        return _keep(r, shape0, axes, keepdims and len(shape0) > 0, qh.ndim)
    s = em.sort(flat, axis=-1)
    # NumPy interpolates in a's float dtype (float64 for integers) and casts
    # to the result dtype after
    cdt = s.dtype if s.dtype.kind == "f" or method in _DISCRETE \
        else _np.dtype(_np.float64)
    if cdt != s.dtype:
        s = s.astype(cdt)
    nan_any = None
    if s.dtype.kind == "f":
        if skipnan:
            # non-NaN per slice (NaNs sort last)
            cnt = em.sum(~em.isnan(s), axis=-1, keepdims=True)
        else:
            nan_any = em.isnan(s[..., -1])  # a NaN sorts last: only the last one tells
            cnt = None
    else:
        cnt = None
    outs = []
    qdt = _np.float64
    for qv in qh.reshape(-1):
        if method not in _BASIC:
            r = _hf_quantile(s, n if cnt is None else cnt, qv, method, rdt)
            if cnt is not None:
                r = em.where(cnt[..., 0] == 0,
                             em.asarray(_np.nan, dtype=r.dtype, device=r.device), r)
        elif cnt is None:
            lo_i, hi_i, t = _plan(n, qv, method)
            vlo, vhi = s[..., lo_i], s[..., hi_i]
            r = _pick(vlo, vhi, em.asarray(t, dtype=qdt, device=s.device), method,
                      em.asarray(float(lo_i), device=s.device), rdt)
        else:
            last = em.maximum(cnt - 1, 0)
            pos = last.astype(qdt) * float(qv)
            lo = em.floor(pos)
            frac = pos - lo
            # NumPy's gamma at the top is against the index -1 (vi + 1), so
            # an infinite last value gives NaN there as in NumPy's formula
            above = pos >= last.astype(qdt)
            t = em.where(above, pos + 1, frac) if method == "linear" else frac
            lo_i = em.where(above, last, lo.astype(_np.int64))
            hi_i = em.minimum(lo_i + 1, last)
            vlo = em.take_along_axis(s, lo_i, axis=-1)[..., 0]
            vhi = em.take_along_axis(s, hi_i, axis=-1)[..., 0]
            r = _pick(vlo, vhi, t[..., 0], method, lo[..., 0], rdt)
            r = em.where(cnt[..., 0] == 0, em.asarray(_np.nan, dtype=r.dtype, device=r.device), r)
        if nan_any is not None:
            r = em.where(nan_any, em.asarray(_np.nan, dtype=r.dtype, device=r.device), r)
        outs.append(r.astype(rdt) if r.dtype != rdt else r)
    r = em.stack(outs, axis=0) if outs else em.empty((0,) + flat.shape[:-1], dtype=rdt,
                                                      device=flat.device)
    r = em.reshape(r, qh.shape + flat.shape[:-1])
    return _keep(r, shape0, axes, keepdims and len(shape0) > 0, qh.ndim)


_BASIC = ("linear", "lower", "higher", "nearest", "midpoint", "_median")


def _plan(n, qv, method):
    """(lo, hi, t) for q value qv (a NumPy scalar of q's dtype) among n
    sorted values, by NumPy's _quantile arithmetic: the virtual index
    (n - 1) * q in q's dtype, its floor and the next; at the top (vi >=
    n - 1) both are the last and the weight is vi + 1 (NumPy's gamma
    against the index -1), so lerp(inf, inf, t) is NaN as in NumPy's.  For
    methods other than linear t is the index's fraction, which they pick
    by."""
    p = (n - 1) * qv
    lo = int(_np.floor(p))
    if method == "linear" and p >= n - 1:
        return n - 1, n - 1, float(p) + 1
    return lo, min(lo + 1, n - 1), float(p - _np.floor(p))


def _select_ok(flat, method):
    """Whether the quantiles of the 1-d flat take the device radix select
    (_ember.select_kth: the order statistics without a sort; on the CPU
    _cpu_select_kth), for NumPy's five basic methods; EMBER_SELECT=0
    keeps the full sort (the path before, for A/B runs)."""
    import os
    return (method in _BASIC and flat.dtype.kind in "biuf"
            and os.environ.get("EMBER_SELECT", "1") != "0")


def _cpu_select_kth(flat, ks):
    """select_kth on the CPU (ks sorted, distinct): NumPy's partition with a
    single kth, which is its SIMD quickselect (with two kth or more NumPy
    takes the generic introselect, 7x slower at 2^20), the largest kth
    first on a copy and each smaller one in place on the prefix before it;
    a kth just below the last one is the prefix's max, the kth n - 1 (the
    NaN check) the array's max.  NaNs order last, as in the sort."""
    h = _np.asarray(flat)
    n = h.shape[0]
    vals = [None] * len(ks)
    top = len(ks)
    if ks[-1] == n - 1:
        top -= 1
        vals[top] = h.max()
    p, hi = None, None  # p[:hi] holds the hi smallest values, p[hi] the hi-th
    for i in range(top - 1, -1, -1):
        k = ks[i]
        if p is None:
            p = _np.partition(h, k)
        elif k == hi - 1:
            vals[i] = p[:hi].max()
            continue
        else:
            p[:hi].partition(k)
        vals[i], hi = p[k], k
    return em.asarray(_np.array(vals, dtype=h.dtype), device=flat.device)


_SEL_MAXN = 8  # the ranks one select launch takes (EM_SEL_MAXN, render_select.h)


def _quantile_select(flat, qh, method, skipnan, rdt):
    """_quantile of the 1-d flat (n >= 1) by order statistics: the two
    neighbours of each virtual index selected (NaNs order last, so with
    skipnan the count of non-NaNs bounds the ranks: its read-back is the
    one host sync; without, a NaN anywhere makes the result NaN: the largest
    element is then a NaN, selected beside the others where the launch has
    room (its passes read the array anyway), else a device reduction)."""
    n = flat.shape[0]
    isf = flat.dtype.kind == "f"
    cdt = flat.dtype if isf or method in _DISCRETE else _np.dtype(_np.float64)
    nan_any = None
    if isf and skipnan:
        n = int(em.sum(~em.isnan(flat)))
    elif isf and 2 * qh.size >= _SEL_MAXN:
        nan_any = em.any(em.isnan(flat))
    if n == 0:  # an all-NaN slice
        r = em.full(qh.shape, _np.nan, dtype=rdt, device=flat.device)
        return r
    plan, ks = [], []
    for qv in qh.reshape(-1):
        lo_i, hi_i, t = _plan(n, qv, method)
        plan.append((lo_i, hi_i, t))
        ks += [lo_i, hi_i]
    last = isf and not skipnan and nan_any is None
    ks = sorted(set(ks + [n - 1] if last else ks))
    vals = _cpu_select_kth(flat, ks) if flat._dev[0] == "cpu" else _ember.select_kth(flat, ks)
    if last:
        nan_any = em.isnan(vals[len(ks) - 1])
    if vals.dtype != cdt:
        vals = vals.astype(cdt)
    where = {k: i for i, k in enumerate(ks)}
    outs = []
    for lo_i, hi_i, tq in plan:
        vlo, vhi = vals[where[lo_i]], vals[where[hi_i]]
        if method == "linear":
            r = _pick(vlo, vhi, em.asarray(tq, dtype=_np.float64, device=flat.device), method,
                      None, rdt)
        else:  # the other four pick by t alone, known here: no device scalars, no where
            r = _pick_host(vlo, vhi, tq, method, lo_i, rdt)
        if nan_any is not None:
            r = em.where(nan_any, em.asarray(_np.nan, dtype=r.dtype, device=r.device), r)
        outs.append(r.astype(rdt) if r.dtype != rdt else r)
    if qh.ndim == 0:  # median's scalar q: no stack (the host's cost is the row's, on a GPU)
        return outs[0]
    r = em.stack(outs, axis=0) if outs else em.empty((0,), dtype=rdt, device=flat.device)
    return em.reshape(r, qh.shape)


def _pick_host(vlo, vhi, t, method, lo, rdt):
    """_pick for a t and lo known on the host (the discrete methods and
    midpoint): the same values, chosen here."""
    if method == "_median":  # NumPy's mean: its sum starts at +0.0 (median([-0.0]) is 0.0)
        return (vlo + 0.0) if t == 0 else (vlo + 0.0 + vhi) / 2
    if method == "lower" or (t == 0 and method != "midpoint"):
        return vlo
    if method == "higher":
        return vhi
    if method == "midpoint":  # NumPy's lerp at 0.5, or 0 where the index is whole
        return _lerp(vlo, vhi, em.asarray(0.5 if t > 0 else 0.0, device=vlo.device),
                     _wdt(vlo, rdt))
    # nearest: round half to even on the virtual index, as NumPy
    return vhi if t > 0.5 or (t == 0.5 and lo % 2 == 1) else vlo


def _hf_quantile(s, n, q, method, rdt):
    """q of the sorted last axis of s, n values per slice (an int, or an int64
    array (..., 1) of counts: NaNs sorted past them), by NumPy's _quantile
    formulas: a virtual index, its floor and the next clamped to [0, n - 1], and
    the lerp between them (the discrete methods pick one of the two)."""
    dev = not isinstance(n, int)
    m = em if dev else _np
    nf = n.astype(_np.float64) if dev else float(n)
    if method in ("inverted_cdf", "closest_observation"):
        v = nf * q - (1.0 if method == "inverted_cdf" else 1.5)
        lo = m.floor(v)
        g = v - lo
        cond = g == 0 if method == "inverted_cdf" else (g == 0) & (m.remainder(lo, 2) == 1)
        i = m.maximum(m.where(cond, lo, lo + 1), 0)
        return _take_last(s, i, dev)
    if method == "averaged_inverted_cdf":
        v = nf * q - 1
    else:
        alpha, beta = _ALPHA_BETA[method]
        v = nf * q + (alpha + q * (1 - alpha - beta)) - 1
    lo = m.floor(v)
    g = v - lo
    if method == "averaged_inverted_cdf":
        g = m.where(g == 0, 0.5, 1.0)
    top = nf - 1
    above, below = v >= top, v < 0
    # NumPy's gamma against its substituted indexes: -1 at the top, 0 below
    g = m.where(above, v + 1, m.where(below, v, g)) if method != "averaged_inverted_cdf" \
        else m.where(above | below, 1.0, g)
    ilo = m.where(above, top, m.where(below, 0.0, lo))
    ihi = m.where(above, top, m.where(below, 0.0, lo + 1))
    vlo, vhi = _take_last(s, ilo, dev), _take_last(s, ihi, dev)
    t = em.asarray(g[..., 0] if dev else g, dtype=_np.float64, device=vlo.device)
    return _lerp(vlo, vhi, t, _wdt(vlo, rdt))


def _take_last(s, i, dev):
    """s[..., i]: i a host number, or an array (..., 1) of indices per slice."""
    if not dev:
        return s[..., int(i)]
    return em.take_along_axis(s, i.astype(_np.int64), axis=-1)[..., 0]


def _pick(vlo, vhi, t, method, lo, rdt):
    if method == "linear":
        return _lerp(vlo, vhi, t, _wdt(vlo, rdt))
    if method == "lower":
        return vlo
    if method == "higher":
        return em.where(t > 0, vhi, vlo)
    if method == "_median":  # NumPy's mean: its sum starts at +0.0 (median([-0.0]) is 0.0)
        return em.where(t > 0, (vlo + 0.0 + vhi) / 2, vlo + 0.0)
    if method == "midpoint":
        # NumPy's: the lerp with weight 0.5, or 0 where the index is whole
        # (vlo + (vhi - vlo) * 0: NaN when the next value is infinite)
        return _lerp(vlo, vhi, em.where(t > 0, 0.5, 0.0), _wdt(vlo, rdt))
    # nearest: round half to even on the virtual index, as NumPy
    up = (t > 0.5) | ((t == 0.5) & (em.remainder(lo, 2) == 1))
    return em.where(up, vhi, vlo)


def _q_api(host, a, q, axis, out, overwrite_input, method, keepdims, weights, interpolation,
           skipnan, scale):
    """The quantile functions' common body; host(method) runs NumPy's (named
    at each caller, so that the host-fallback list can be read off the source)."""
    if interpolation is not None:
        method = interpolation
    if method not in _NATIVE_METHODS or weights is not None:
        return _into(host(method), out)
    qh = q.get() if isinstance(q, _ember.ndarray) else _np.asarray(q)
    if qh.dtype.kind not in "biuf":
        raise TypeError("q must be a real number")
    if scale != 1:
        qh = _np.true_divide(qh, scale)
        if not (_np.all(qh >= 0) and _np.all(qh <= 1)):
            raise ValueError("Percentiles must be in the range [0, 100]")
    # NumPy's result dtype: a's where it takes values (_takes), else a's
    # promoted with the weight; a Python scalar q is weak (NEP 50)
    r = _quantile(a, qh, axis, method, keepdims, skipnan, type(q) in (int, float))
    return _into(r, out)


def _into(r, out):
    if out is None:
        return r
    out[...] = r
    return out


def quantile(a, q, axis=None, out=None, overwrite_input=False, method="linear", keepdims=False,
             *, weights=None, interpolation=None):
    """The q-th quantiles (q in [0, 1]) along axis, as numpy.quantile."""
    def host(m):
        return _fallback("quantile", _np.quantile, a, q, axis=axis, method=m, keepdims=keepdims,
                         weights=weights)
    return _q_api(host, a, q, axis, out, overwrite_input, method, keepdims, weights,
                  interpolation, False, 1)


def percentile(a, q, axis=None, out=None, overwrite_input=False, method="linear", keepdims=False,
               *, weights=None, interpolation=None):
    """The q-th percentiles (q in [0, 100]) along axis, as numpy.percentile."""
    def host(m):
        return _fallback("percentile", _np.percentile, a, q, axis=axis, method=m, keepdims=keepdims,
                         weights=weights)
    return _q_api(host, a, q, axis, out, overwrite_input, method, keepdims, weights,
                  interpolation, False, 100)


def nanquantile(a, q, axis=None, out=None, overwrite_input=False, method="linear", keepdims=False,
                *, weights=None, interpolation=None):
    """quantile ignoring NaNs (an all-NaN slice gives NaN)."""
    def host(m):
        return _fallback("nanquantile", _np.nanquantile, a, q, axis=axis, method=m, keepdims=keepdims,
                         weights=weights)
    return _q_api(host, a, q, axis, out, overwrite_input, method, keepdims, weights,
                  interpolation, True, 1)


def nanpercentile(a, q, axis=None, out=None, overwrite_input=False, method="linear",
                  keepdims=False, *, weights=None, interpolation=None):
    """percentile ignoring NaNs (an all-NaN slice gives NaN)."""
    def host(m):
        return _fallback("nanpercentile", _np.nanpercentile, a, q, axis=axis, method=m, keepdims=keepdims,
                         weights=weights)
    return _q_api(host, a, q, axis, out, overwrite_input, method, keepdims, weights,
                  interpolation, True, 100)


def median(a, axis=None, out=None, overwrite_input=False, keepdims=False):
    """The median along axis (the mean of the two middle values for even counts)."""
    # midpoint, not linear: NumPy's median is the mean of the middle values,
    # so one infinite middle value gives inf, where the lerp's inf - inf
    # gave NaN (median([1, inf]), median([inf]))
    if _arr(a).dtype.kind == "c":  # NumPy's median sorts complex values (quantile does not)
        return _into(_fallback("median", _np.median, a, axis=axis, keepdims=keepdims), out)
    return _into(_quantile(a, 0.5, axis, "_median", keepdims, False), out)


def nanmedian(a, axis=None, out=None, overwrite_input=False, keepdims=False):
    """median ignoring NaNs."""
    if _arr(a).dtype.kind == "c":
        return _into(_fallback("nanmedian", _np.nanmedian, a, axis=axis, keepdims=keepdims), out)
    return _into(_quantile(a, 0.5, axis, "_median", keepdims, True), out)


# ---- moments -------------------------------------------------------------------

def average(a, axis=None, weights=None, returned=False, *, keepdims=False):
    """The weighted mean along axis (weights broadcast along axis when 1-d)."""
    a = _arr(a)
    if weights is None:
        avg = em.mean(a, axis=axis, keepdims=keepdims)
        if returned:
            scl = em.full(avg.shape, a.size // max(avg.size, 1) if a.size else 0,
                          dtype=avg.dtype, device=avg.device)
            return avg, scl
        return avg
    w = _arr(weights)
    if a.shape != w.shape:
        if axis is None:
            raise TypeError("Axis must be specified when shapes of a and weights differ.")
        axes = _norm_axis(axis, a.ndim)
        if w.ndim != len(axes) or w.shape != tuple(a.shape[ax] for ax in axes):
            raise ValueError("Shape of weights must be consistent with shape of a along "
                             "specified axis.")
        shape = [1] * a.ndim
        for ax, n in zip(axes, w.shape):
            shape[ax] = n
        w = em.reshape(w, tuple(shape))
    rdt = em.result_type(a.dtype, w.dtype, _np.float64 if a.dtype.kind in "biu" else a.dtype)
    wgt = em.broadcast_to(w, a.shape).astype(rdt)
    scl = em.sum(wgt, axis=axis, keepdims=keepdims)
    if bool(em.any(scl == 0)):
        raise ZeroDivisionError("Weights sum to zero, can't be normalized")
    avg = em.sum(a.astype(rdt) * wgt, axis=axis, keepdims=keepdims) / scl
    if returned:
        return avg, em.broadcast_to(scl, avg.shape).copy()
    return avg


def _nan_dtype_check(a, name):
    if a.dtype.kind not in "biufc":
        raise TypeError(f"{name}: unsupported dtype {a.dtype}")


def nanvar(a, axis=None, dtype=None, out=None, ddof=0, keepdims=False, *, where=None,
           mean=None, correction=None):
    """Variance ignoring NaNs (a slice with no more than ddof values gives NaN)."""
    a = _arr(a)
    _nan_dtype_check(a, "nanvar")
    if correction is not None:
        ddof = correction
    if a.dtype.kind not in "fc":
        return em.var(a, axis=axis, dtype=dtype, out=out, ddof=ddof, keepdims=keepdims,
                      **({} if where is None else {"where": where}))
    _inexact_out(out)
    ok = ~em.isnan(a)
    if where is not None:
        ok = ok & where
    cnt = em.sum(ok, axis=axis, keepdims=True)
    x = em.where(ok, a, em.asarray(0, dtype=a.dtype, device=a.device))
    if dtype is not None:
        x = x.astype(dtype)
    avg = em.sum(x, axis=axis, keepdims=True) / cnt.astype(x.real.dtype if x.dtype.kind == "c"
                                                           else x.dtype)
    d = em.where(ok, x - avg, em.asarray(0, dtype=x.dtype, device=x.device))
    sq = (d.real * d.real + d.imag * d.imag) if d.dtype.kind == "c" else d * d
    denom = (cnt - ddof).astype(sq.dtype)
    with _np.errstate(all="ignore"):
        v = em.sum(sq, axis=axis, keepdims=keepdims) / (denom if keepdims else
                                                         em.squeeze(denom, axis=_axes_of(axis,
                                                                                          a.ndim)))
    bad = denom <= 0
    v = em.where(bad if keepdims else em.squeeze(bad, axis=_axes_of(axis, a.ndim)),
                 em.asarray(_np.nan, dtype=v.dtype, device=v.device), v)
    return _into(v, out)


def _inexact_out(out):
    """NumPy's nanmean/nanvar of inexact input refuse an integer or bool out= (their sum
    would truncate before the division)."""
    if out is not None and _np.dtype(out.dtype).kind not in "fc":
        raise TypeError("If a is inexact, then out must be inexact")


def _axes_of(axis, ndim):
    return _norm_axis(axis, ndim)


def nanstd(a, axis=None, dtype=None, out=None, ddof=0, keepdims=False, *, where=None,
           mean=None, correction=None):
    """Standard deviation ignoring NaNs."""
    v = nanvar(a, axis, dtype, out, ddof, keepdims, where=where, correction=correction)
    # NumPy's sqrt(var, out=var): same_kind, so an integer or bool out= raises
    return em.sqrt(v) if out is None else em.sqrt(out, out=out)


def _nanarg(a, axis, out, keepdims, fill, fn, name):
    a = _arr(a)
    if a.dtype.kind in "fc":
        isn = em.isnan(a)
        if bool(em.any(em.all(isn, axis=axis))) if a.size else False:
            raise ValueError("All-NaN slice encountered")
        a = em.where(isn, em.asarray(fill, dtype=a.dtype, device=a.device), a)
    r = fn(a, axis=axis, keepdims=keepdims)
    return _into(r, out)


def nanargmin(a, axis=None, out=None, *, keepdims=False):
    """argmin ignoring NaNs; an all-NaN slice raises ValueError."""
    return _nanarg(a, axis, out, keepdims, _np.inf, em.argmin, "nanargmin")


def nanargmax(a, axis=None, out=None, *, keepdims=False):
    """argmax ignoring NaNs; an all-NaN slice raises ValueError."""
    return _nanarg(a, axis, out, keepdims, -_np.inf, em.argmax, "nanargmax")


def nancumsum(a, axis=None, dtype=None, out=None):
    """cumsum with NaNs counted as zero."""
    a = _arr(a)
    if a.dtype.kind in "fc":
        a = em.where(em.isnan(a), em.asarray(0, dtype=a.dtype, device=a.device), a)
    return em.cumsum(a, axis=axis, dtype=dtype, out=out)


def nancumprod(a, axis=None, dtype=None, out=None):
    """cumprod with NaNs counted as one."""
    a = _arr(a)
    if a.dtype.kind in "fc":
        a = em.where(em.isnan(a), em.asarray(1, dtype=a.dtype, device=a.device), a)
    return em.cumprod(a, axis=axis, dtype=dtype, out=out)


def ptp(a, axis=None, out=None, keepdims=False):
    """Range (maximum - minimum) along axis."""
    a = _arr(a)
    return _into(em.subtract(em.max(a, axis=axis, keepdims=keepdims),
                             em.min(a, axis=axis, keepdims=keepdims)), out)


# ---- covariance ---------------------------------------------------------------

def cov(m, y=None, rowvar=True, bias=False, ddof=None, fweights=None, aweights=None, *,
        dtype=None):
    """Covariance matrix of the rows (rowvar) or columns of m (and y),
    optionally with frequency and/or observation weights."""
    if ddof is not None and ddof != int(ddof):
        raise ValueError("ddof must be integer")
    m = _arr(m)
    if m.ndim > 2:
        raise ValueError("m has more than 2 dimensions")
    if dtype is None:
        dtype = em.result_type(m.dtype, _np.float64) if y is None else \
            em.result_type(m.dtype, _arr(y).dtype, _np.float64)
    X = em.atleast_2d(m)
    if not rowvar and m.ndim != 1 and X.shape[0] != 1:
        X = X.T
    if X.shape[0] == 0:
        return em.empty((0, 0), dtype=dtype).reshape(0, 0)
    if y is not None:
        y = _arr(y)
        if y.ndim > 2:
            raise ValueError("y has more than 2 dimensions")
        Y = em.atleast_2d(y)
        if not rowvar and Y.shape[0] != 1:
            Y = Y.T
        X = em.concatenate((X, Y), axis=0)
    X = X.astype(dtype)
    if ddof is None:
        ddof = 0 if bias else 1
    n = X.shape[1]
    w = aw = None
    for name, wt in (("fweights", fweights), ("aweights", aweights)):
        if wt is None:
            continue
        wt = _arr(wt).astype(_np.float64)
        if name == "fweights" and wt.size and not bool(em.all(wt == em.round(wt))):
            raise TypeError("fweights must be integer")
        if wt.ndim > 1:
            raise RuntimeError(f"cannot handle multidimensional {name}")
        if wt.shape[0] != n:
            raise RuntimeError(f"incompatible numbers of samples and {name}")
        if wt.size and bool(em.any(wt < 0)):
            raise ValueError(f"{name} cannot be negative")
        if name == "aweights":
            aw = wt
        w = wt if w is None else w * wt
    if w is None:
        fact = n - ddof
        X = X - em.mean(X, axis=1, keepdims=True)
        XT = X.T
    else:
        avg, w_sum = average(X, axis=1, weights=w, returned=True)
        w_sum = float(w_sum[0].real) if w_sum.size else 0.0
        if ddof == 0:
            fact = w_sum
        elif aw is None:
            fact = w_sum - ddof
        else:
            fact = w_sum - ddof * float(em.sum(w * aw)) / w_sum
        X = X - avg[:, None]
        XT = (X * w).T
    if fact <= 0:
        _warnings.warn("Degrees of freedom <= 0 for slice", RuntimeWarning, stacklevel=2)
        fact = 0.0
    c = em.matmul(X, em.conj(XT) if X.dtype.kind == "c" else XT)
    with _np.errstate(all="ignore"):
        inv = _np.true_divide(1, fact)  # NumPy multiplies by the reciprocal
        c = c * em.asarray(inv, dtype=c.real.dtype if c.dtype.kind == "c" else c.dtype,
                           device=c.device)
    return em.squeeze(c) if c.shape == (1, 1) else c


def corrcoef(x, y=None, rowvar=True, *, dtype=None):
    """Pearson correlation coefficients (values clipped to [-1, 1])."""
    c = cov(x, y, rowvar, dtype=dtype)
    if c.ndim == 0:
        return c / c
    d = em.diagonal(c)
    sd = em.sqrt(d.real if d.dtype.kind == "c" else d)
    c = c / sd[:, None]
    c = c / sd[None, :]
    if c.dtype.kind == "c":
        return em.clip(c.real, -1, 1) + 1j * em.clip(c.imag, -1, 1)
    return em.clip(c, -1, 1)
