"""NumPy's ufunc methods and attributes on Ember's elementwise functions.

Ember's ufuncs stay plain Python functions (their call is the hot path and
an object's ``__call__`` would add a layer); this module gives each one the
rest of ``numpy.ufunc``'s face as function attributes: ``nin``, ``nout``,
``nargs``, ``ntypes``, ``types``, ``identity``, ``signature`` (NumPy's values
for the ufunc of the same name) and the methods

- ``reduce``: the matching Ember reduction (add.reduce is sum, multiply
  prod, maximum max, minimum min, logical_and all, logical_or any, fmax and
  fmin the nan-ignoring max and min), on the device; bitwise and/or/xor,
  logical_xor, gcd and lcm are reductions of their own (one kernel, fused
  with a pending producer); other ops on the host;
- ``accumulate``: add and multiply are cumsum and cumprod; on a device the other
  associative ops (maximum, minimum, fmax, fmin, logical and bitwise and/or/xor,
  gcd, lcm) by doubling (log2(n) elementwise passes); the rest on the host;
- ``outer``: the op on broadcast views (one fused elementwise kernel);
- ``at``: in place; on the CPU NumPy's own ``ufunc.at`` works on the shared
  buffer (duplicated indices accumulate); on a device add, subtract,
  multiply, maximum and minimum .at with integer-array indices are an atomic
  accumulating scatter (``_scatter``), the other ops and keys run on the host;
- ``reduceat``: on a device, the associative ops over power-of-two blocks (a sparse
  table kept one level at a time; each segment combines its length's blocks left
  to right); other ops (and the CPU) NumPy's.
Host paths warn (``HostFallbackWarning``) for arrays on a device."""
import numpy as _np

import ember as em

from . import _ember
from ._hostcall import numpy_fallback as _fallback, find_device as _find_device
from . import _host
from . import _scatter

_REDUCTIONS = {"add": "sum", "multiply": "prod", "maximum": "max", "minimum": "min",
               "logical_and": "all", "logical_or": "any", "fmax": "nanmax", "fmin": "nanmin"}
# Ember reductions of their own, on every device (_reduce_bits).
_BITS = {"bitwise_and", "bitwise_or", "bitwise_xor", "logical_xor", "gcd", "lcm"}
_SCANS = {"add": "cumsum", "multiply": "cumprod"}
# Associative ops: accumulate and reduceat on a device combine power-of-two blocks
# (Hillis-Steele doubling; a sparse table of block values), never leaving it.
_ASSOC = {"add", "multiply", "maximum", "minimum", "fmax", "fmin", "logical_and", "logical_or",
          "logical_xor", "bitwise_and", "bitwise_or", "bitwise_xor", "gcd", "lcm"}


def _on_device(a):
    return a._dev[0] != "cpu"


def _np_dtype(npu, method, a, dtype, *args):
    """The dtype NumPy's npu.method gives for a's dtype (asked of a 2-element sample)."""
    with _np.errstate(all="ignore"):
        return getattr(npu, method)(_np.zeros(2, a.dtype), *args, dtype=dtype).dtype


def _accumulate_doubling(f, a, axis, rdt):
    """f.accumulate of a along axis in rdt by Hillis-Steele doubling: after the step
    of shift s, element k holds f over (k - 2s, k]; log2(n) elementwise passes, all
    on a's device.  Exact for the idempotent ops; add/multiply group differently
    from the sequential loop (rounding only)."""
    r = em.moveaxis(a, axis, -1).astype(rdt)
    n, s = r.shape[-1], 1
    while s < n:
        r = em.concatenate((r[..., :s], f(r[..., :-s], r[..., s:]).astype(rdt)), axis=-1)
        s *= 2
    return em.moveaxis(r, -1, axis)


def _reduceat_blocks(f, a, starts, ends, axis, rdt):
    """f over a[..., starts[i]:ends[i]] along axis for each i (ends > starts), in
    rdt: level k holds f over the 2**k elements from each position; segment i
    combines, left to right, the block of each set bit of its length, smallest
    first (only the current level is kept: O(n) memory, log2(n) levels)."""
    r = em.moveaxis(a, axis, -1).astype(rdt)
    n = r.shape[-1]
    lengths = ends - starts
    pos = starts.copy()
    acc = None
    have = _np.zeros(len(starts), bool)
    level, k = r, 0
    while True:
        bit = (lengths >> k) & 1 == 1
        if bit.any():
            sel = _np.flatnonzero(bit)
            v = em.take(level, em.asarray(pos[sel], device=a.device), axis=-1)
            if acc is None:
                acc = em.zeros(r.shape[:-1] + (len(starts),), dtype=rdt, device=a.device)
            old = em.take(acc, em.asarray(sel, device=a.device), axis=-1)
            first = em.asarray(~have[sel], device=a.device)
            new = em.where(first, v, f(old, v).astype(rdt))
            acc[..., em.asarray(sel, device=a.device)] = new
            have[sel] = True
            pos[sel] += 1 << k
        k += 1
        if (1 << k) > lengths.max():
            break
        step = 1 << (k - 1)
        level = f(level[..., :-step], level[..., step:]).astype(rdt)  # 2**k-blocks
        if level.shape[-1] == 0:
            break
    return em.moveaxis(acc, -1, axis)


def _reduce_bits(npu, a, axis, dtype, keepdims, initial, where):
    """npu.reduce for the ops that are Ember reductions of their own
    (_BITS: em_reduce's BITWISE_AND/OR/XOR, LOGICAL_XOR, GCD, LCM): one
    reduction kernel on any device, fused with a pending producer (and with
    where='s mask).  NumPy decides the dtype and raises its own errors (bad
    axis or dtype, an empty reduction or a where= mask without an identity)
    on a probe of a's dtype whose dimensions are cut to at most 2: no data
    leaves the device."""
    from numpy.lib.array_utils import normalize_axis_tuple
    probe = _np.zeros(tuple(min(d, 2) for d in a.shape), a.dtype)
    kw = {"axis": axis, "dtype": dtype, "keepdims": keepdims}
    if initial is not _np._NoValue:
        kw["initial"] = initial
    if where is not True:
        kw["where"] = _np.ones(probe.shape, bool)
    rdt = npu.reduce(probe, **kw).dtype
    # a 0-d array reduces over no axis (NumPy takes axis 0 or -1 there)
    ax = () if a.ndim == 0 else normalize_axis_tuple(
        tuple(range(a.ndim)) if axis is None else axis, a.ndim)
    x = a
    if where is not True:
        fill = npu.identity if npu.identity is not None else initial
        fill = _np.asarray(fill).astype(rdt)  # bitwise_and's -1: all ones in any dtype
        w = em.broadcast_to(em.asarray(where, dtype="bool", device=a.device), a.shape)
        x = em.where(w, x.astype(rdt), em.asarray(fill, device=a.device))
    n = 1
    for i in ax:
        n *= a.shape[i]
    if n == 0 and npu.identity is None:  # lcm with initial= (the probe raised without)
        shape = [1 if i in ax else d for i, d in enumerate(a.shape)] if keepdims else \
            [d for i, d in enumerate(a.shape) if i not in ax]
        return em.full(shape, _np.asarray(initial).astype(rdt)[()], dtype=rdt, device=a.device)
    r = _ember.reduce(npu.__name__, x, axis=ax, keepdims=keepdims, dtype=rdt)
    if initial is not _np._NoValue:
        f = getattr(em, npu.__name__)
        r = f(r, em.asarray(initial, device=a.device).astype(rdt)).astype(rdt)
    return r


def _arr(a):
    return a if isinstance(a, _ember.ndarray) else em.asarray(a)


def _np_ufunc(name):
    u = getattr(_np, name, None)
    return u if isinstance(u, _np.ufunc) else None


def _make_reduce(f, name, nin):
    red = _REDUCTIONS.get(name)
    npu = _np_ufunc(name)

    def reduce(array, axis=0, dtype=None, out=None, keepdims=False, initial=_np._NoValue,
               where=True):
        if nin != 2:
            raise ValueError("reduce only supported for binary functions")
        a = _arr(array)
        if red is not None and where is True and (initial is _np._NoValue or
                                                  red in ("sum", "prod", "max", "min")):
            fn = getattr(em, red)
            kw = {"axis": axis, "keepdims": keepdims}
            if red in ("sum", "prod"):
                kw["dtype"] = dtype
            if initial is not _np._NoValue:
                kw["initial"] = initial
            r = fn(a, **kw)
            if dtype is not None and r.dtype != _np.dtype(dtype):
                r = r.astype(dtype)
            if out is not None:
                out[...] = r
                return out
            return r
        if npu is None:
            raise NotImplementedError(f"{name}.reduce")
        if name in _BITS:
            return _into(_reduce_bits(npu, a, axis, dtype, keepdims, initial, where), out)
        kw = {"axis": axis, "dtype": dtype, "keepdims": keepdims, "where": where}
        if initial is not _np._NoValue:
            kw["initial"] = initial
        r = _fallback("ufunc.reduce", npu.reduce, a, **kw)
        return _into(r, out)
    reduce.__name__ = "reduce"
    return reduce


def _norm_axis(axis, ndim):
    import operator
    ax = operator.index(axis)
    if not -ndim <= ax < ndim:
        raise _np.exceptions.AxisError(ax, ndim)
    return ax % ndim


def _accumulate_axis(axis, ndim):
    """NumPy's accumulate axis: one axis (a 1-tuple counts), None only for 1-d
    arrays (the fuzzer found None flattening 2-d arrays through cumsum and
    failing in the device path)."""
    if ndim == 0:
        raise TypeError("cannot accumulate on a scalar")
    if isinstance(axis, tuple):
        if len(axis) != 1:
            raise ValueError("accumulate does not allow multiple axes")
        axis = axis[0]
    if axis is None:
        if ndim != 1:
            raise ValueError("accumulate does not allow multiple axes")
        axis = 0
    return _norm_axis(axis, ndim)


def _into(r, out):
    if out is None:
        return r
    out = out[0] if isinstance(out, tuple) else out
    out[...] = r
    return out


def _make_accumulate(f, name, nin):
    scan = _SCANS.get(name)
    npu = _np_ufunc(name)

    def accumulate(array, axis=0, dtype=None, out=None):
        if nin != 2:
            raise ValueError("accumulate only supported for binary functions")
        a = _arr(array)
        if npu is None and scan is None:
            raise NotImplementedError(f"{name}.accumulate")
        ax = _accumulate_axis(axis, a.ndim)
        if scan is not None:
            # (NumPy's add/multiply.accumulate widen small ints as cumsum does)
            r = getattr(em, scan)(a, axis=ax, dtype=dtype)
            return _into(r, out)
        if name in _ASSOC and _on_device(a):
            rdt = _np_dtype(npu, "accumulate", a, dtype)
            return _into(_accumulate_doubling(f, a, ax, rdt), out)
        return _into(_fallback("ufunc.accumulate", npu.accumulate, a, axis=ax, dtype=dtype),
                     out)
    accumulate.__name__ = "accumulate"
    return accumulate


def _make_outer(f, name, nin):
    def outer(A, B, /, **kwargs):
        if nin != 2:
            raise ValueError("outer product only supported for binary functions")
        a, b = _arr(A), _arr(B)
        return f(em.reshape(a, a.shape + (1,) * b.ndim), b, **kwargs)
    outer.__name__ = "outer"
    return outer


def _make_at(f, name, nin):
    npu = _np_ufunc(name)

    def at(a, indices, b=None, /):
        if not isinstance(a, _ember.ndarray):
            raise TypeError(f"{name}.at expects an ember.ndarray to modify in place")
        if npu is None:
            raise NotImplementedError(f"{name}.at")
        if (b is None) != (nin == 1):
            raise ValueError("second operand needed for ufunc" if b is None else
                             "second operand provided when ufunc is unary")
        if not _scatter.on_device(a):
            # NumPy's ufunc.at on the shared buffer: in place, duplicates accumulate
            from ._hostcall import to_host
            args = (to_host(indices),) + (() if b is None else (to_host(b),))
            npu.at(_np.asarray(a), *args)
            return None
        if name in _scatter.OPS and b is not None and _scatter.on_device(a):
            flat = _flat_indices(a, indices)
            if flat is not None and a.dtype in _scatter.KINDS and a._c_contiguous:
                vals = em.ravel(em.broadcast_to(_arr(b).astype(a.dtype), flat[1]))
                _scatter.scatter(em.reshape(a, (-1,)), flat[0], vals, name)
                return None
        dev = _find_device((a,))
        _host.warn_fallback("ufunc.at", dev)
        from ._hostcall import to_host
        h = a.get()
        args = (to_host(indices),) + (() if b is None else (to_host(b),))
        npu.at(h, *args)
        a[...] = em.asarray(h, device=a.device)
        return None
    at.__name__ = "at"
    return at


def _flat_indices(a, indices):
    """(flat int64 indices, their shape) for integer-array indexing of every
    axis of a, negatives wrapped and bounds checked; None for other keys
    (slices, booleans, partial indexing: the host path handles those)."""
    keys = indices if isinstance(indices, tuple) else (indices,)
    if len(keys) != a.ndim:
        return None
    arrs = []
    for k in keys:
        k = _arr(k)
        if k.dtype.kind not in "iu":
            return None
        arrs.append(k.astype(_np.int64))
    arrs = em.broadcast_arrays(*arrs)
    flat = em.zeros(arrs[0].shape, dtype=_np.int64)
    for ax, (k, n) in enumerate(zip(arrs, a.shape)):
        if k.size and bool(em.any((k < -n) | (k >= n))):
            bad = int(em.max(k)) if bool(em.any(k >= n)) else int(em.min(k))
            raise IndexError(f"index {bad} is out of bounds for axis {ax} with size {n}")
        flat = flat * n + em.where(k < 0, k + n, k)
    return em.ravel(flat), arrs[0].shape


def _make_reduceat(f, name, nin):
    npu = _np_ufunc(name)

    def reduceat(array, indices, axis=0, dtype=None, out=None):
        if nin != 2:
            raise ValueError("reduceat only supported for binary functions")
        if npu is None:
            raise NotImplementedError(f"{name}.reduceat")
        a = _arr(array)
        if name in _ASSOC and _on_device(a) and a.ndim > 0:
            ax = _norm_axis(axis, a.ndim)
            idx = _np.asarray(indices.get() if isinstance(indices, _ember.ndarray) else indices)
            if idx.size == 0:
                idx = idx.astype(_np.int64).reshape(-1)  # [] as NumPy takes it
            if idx.ndim != 1 or idx.dtype.kind not in "iu":
                return _into(_fallback("ufunc.reduceat", npu.reduceat, a, indices, axis=axis,
                                       dtype=dtype), out)
            n = a.shape[ax]
            idx = idx.astype(_np.int64)
            for i in idx:
                if not 0 <= i < n:
                    raise IndexError(f"index {i} out-of-bounds in {name}.reduceat [0, {n})")
            rdt = _np_dtype(npu, "reduceat", a, dtype, [0])
            if len(idx) == 0:
                shape = list(a.shape)
                shape[ax] = 0
                return _into(em.empty(tuple(shape), dtype=rdt, device=a.device), out)
            nxt = _np.append(idx[1:], n)
            ends = _np.where(nxt > idx, nxt, idx + 1)  # NumPy: a[i] alone where i >= the next
            return _into(_reduceat_blocks(f, a, idx, ends, ax, rdt), out)
        return _into(_fallback("ufunc.reduceat", npu.reduceat, _arr(array), indices, axis=axis,
                               dtype=dtype), out)
    reduceat.__name__ = "reduceat"
    return reduceat


def install(f, name, nin):
    """Give the Ember ufunc f (NumPy's op `name`, nin inputs) ufunc attributes."""
    npu = _np_ufunc(name)
    f.nin = nin
    f.nout = npu.nout if npu is not None else 1
    f.nargs = f.nin + f.nout
    f.ntypes = npu.ntypes if npu is not None else 0
    f.types = list(npu.types) if npu is not None else []
    f.identity = npu.identity if npu is not None else None
    f.signature = npu.signature if npu is not None else None
    f.reduce = _make_reduce(f, name, nin)
    f.accumulate = _make_accumulate(f, name, nin)
    f.outer = _make_outer(f, name, nin)
    f.at = _make_at(f, name, nin)
    f.reduceat = _make_reduceat(f, name, nin)
    return f
