"""Array creation: asarray/array, empty/zeros/ones/full and their *_like,
arange, linspace, eye, identity, meshgrid, tril, triu, from the host or on a
device.  Each takes dtype= and device=."""
from . import _ember
from . import _device

__all__ = [
    "asarray", "array", "asnumpy", "empty", "zeros", "ones", "full",
    "empty_like", "zeros_like", "ones_like", "full_like",
    "arange", "linspace", "logspace", "geomspace", "eye", "identity", "meshgrid", "tril", "triu",
    "diag", "diagonal", "tri",
]


# Inputs _ember.asarray takes directly (no __cuda_array_interface__ look-up).
_NATIVE = frozenset((_ember.ndarray, __import__("numpy").ndarray, list, tuple, int, float, bool,
                     complex))


def _is_auto(device):
    """Whether an array made for device (None: the current one) is auto."""
    if device is None:
        return _device._auto_used and _device._auto_current()
    return (device == "auto" if isinstance(device, str)
            else isinstance(device, _device.Device) and device.kind == "auto")


def _auto(a):
    """a (new, Ember's or a wrap of host memory) becomes an auto array;
    the placement hook is registered the first time (ember/auto)."""
    from .auto import _place  # noqa: F401  (registers the hook)
    _device._auto_used = True
    return _ember._auto_mark(a)


def _asarray_auto(obj, dtype, copy):
    """asarray for device="auto": new data starts on the host (no move until
    one pays, docs/auto.md); an Ember array keeps its device.  An array on a
    fixed device becomes auto only as a copy (the mark is its memory's)."""
    if isinstance(obj, _ember.ndarray):
        if _ember._auto_is(obj):
            return _auto(_ember.asarray(obj, dtype, None, copy))  # a copy is auto too
        if copy is False:
            raise ValueError("an array on a fixed device becomes auto only as a copy "
                             "(copy=False was given)")
        return _auto(_ember.asarray(obj, dtype, None, True))
    # Host data is wrapped as the CPU device wraps it (auto on a CPU-only
    # machine is the CPU, aliasing included); once Ember moves the array it no
    # longer shares the memory: copy=None is "copy if needed".
    from . import auto as _autopkg
    d = _autopkg._cluster.maybe_distribute(obj, dtype) if _autopkg._cluster.active() else None
    if d is not None:
        return d
    return _auto(_ember.asarray(obj, dtype, "cpu", copy))


def _pin(obj, dtype, device, copy):
    """asarray of an auto array to a named device: a copy that is not auto
    (a view would share the auto mark of its memory)."""
    if copy is False:
        raise ValueError("an auto array is pinned to a device only as a copy "
                         "(copy=False was given)")
    return _ember.asarray(obj, dtype, device, True)


def asarray(obj, dtype=None, *, device=None, copy=None):
    """Convert obj (an ember array, NumPy array, buffer, scalar or nested
    sequence, an object exposing __cuda_array_interface__, or a
    pyopencl.array.Array: see em.opencl.from_pyopencl) to an
    ember.ndarray; copies only where needed unless copy=True.

    On the CPU a NumPy array (or other buffer) is wrapped, not copied: the
    result shares its memory, and operations on it fuse like any other
    (elementwise results are lazy).  Writing the NumPy array afterwards is
    aliasing, as between two NumPy views: a result computed from the wrap
    that has not been evaluated yet may see the new values.  Writes made
    through Ember (the wrap, a kernel given the NumPy array, get(out=))
    evaluate such results first.  Use copy=True, or evaluate with em.eval
    (or any read), before writing through NumPy to keep the old values."""
    if type(obj) not in _NATIVE:
        if hasattr(obj, "__cuda_array_interface__"):
            from ._interop import from_cuda_array_interface
            obj = from_cuda_array_interface(obj)
        elif type(obj).__module__.startswith("pyopencl") and hasattr(obj, "base_data"):
            from .opencl import from_pyopencl
            obj = from_pyopencl(obj)
    if device is not None or _device._auto_used:
        if _is_auto(device):
            return _asarray_auto(obj, dtype, copy)
        if isinstance(obj, _ember.ndarray) and _ember._auto_is(obj):
            # a copy of an auto array is auto; one for a named device is pinned
            return _pin(obj, dtype, device, copy) if device is not None else \
                _auto(_ember.asarray(obj, dtype, None, copy))
    return _ember.asarray(obj, dtype, device, copy)


def array(obj, dtype=None, *, copy=True, device=None, ndmin=0):
    """Like numpy.array: copies by default."""
    a = asarray(obj, dtype, device=device, copy=copy)
    if a.ndim < ndmin:
        a = a.reshape((1,) * (ndmin - a.ndim) + a.shape)
    return a


def asnumpy(a, stream=None, order="C", out=None):
    """The values of a as a numpy.ndarray (CuPy's spelling)."""
    import numpy as np
    if isinstance(a, _ember.ndarray):
        return a.get(out=out)
    return np.asarray(a)


def _check_order(order):
    if order not in ("C", "F", "A", "K", None):
        raise ValueError(f"order must be one of 'C', 'F', 'A', or 'K' (got {order!r})")


def _full(shape, fill, dtype, order, device):
    """_ember.full in C or F order (F: the C array of the reversed shape, transposed)."""
    _check_order(order)
    if _is_auto(device):
        return _auto(_full(shape, fill, dtype, order, "cpu"))
    if order == "F" and not isinstance(shape, int) and len(shape) > 1:
        return _ember.full(tuple(shape)[::-1], fill, dtype, device).T
    return _ember.full(shape, fill, dtype, device)


def empty(shape, dtype=None, order="C", *, device=None):
    """A new array of `shape` whose values are not set (numpy.empty); float64 unless
    `dtype` says otherwise, on `device` (default: the current device)."""
    return _full(shape, None, dtype if dtype is not None else "float64", order, device)


def zeros(shape, dtype=None, order="C", *, device=None):
    """A new array of `shape` filled with 0 (numpy.zeros); float64 unless `dtype`
    says otherwise, on `device` (default: the current device)."""
    return _full(shape, 0, dtype if dtype is not None else "float64", order, device)


def ones(shape, dtype=None, order="C", *, device=None):
    """A new array of `shape` filled with 1 (numpy.ones); float64 unless `dtype`
    says otherwise, on `device` (default: the current device)."""
    return _full(shape, 1, dtype if dtype is not None else "float64", order, device)


def full(shape, fill_value, dtype=None, order="C", *, device=None):
    """A new array of `shape` filled with `fill_value` (numpy.full); the dtype is
    `dtype`, else that of the value (bool, int64, float64, complex128)."""
    import numpy as _np

    if dtype is None and isinstance(fill_value, (bool, int, float, complex)):
        dtype = {bool: "bool", int: "int64", float: "float64", complex: "complex128"}[type(fill_value)]
    elif (dtype is not None and isinstance(fill_value, (complex, _np.complexfloating))
          and _np.dtype(dtype).kind == "b"):
        fill_value = bool(fill_value)  # NumPy: nonzero, no warning
    elif (dtype is not None and isinstance(fill_value, (complex, _np.complexfloating))
          and _np.dtype(dtype).kind in "iuf"):
        # NumPy casts unsafely here: the imaginary part is dropped, with its warning.
        import warnings

        warnings.warn("Casting complex values to real discards the imaginary part",
                      _np.exceptions.ComplexWarning, stacklevel=2)
        fill_value = fill_value.real
    return _full(shape, fill_value, dtype, order, device)


def _like(a, dtype, shape, device):
    a = a if isinstance(a, _ember.ndarray) else asarray(a)
    return (a.shape if shape is None else shape,
            a.dtype if dtype is None else dtype,
            a.device if device is None else device)


def empty_like(a, /, *, dtype=None, device=None, shape=None):
    """An unset array with the shape, dtype and device of `a` (numpy.empty_like);
    `dtype`, `device` and `shape` override them."""
    s, d, dev = _like(a, dtype, shape, device)
    return empty(s, d, device=dev)


def zeros_like(a, /, *, dtype=None, device=None, shape=None):
    """Zeros with the shape, dtype and device of `a` (numpy.zeros_like);
    `dtype`, `device` and `shape` override them."""
    s, d, dev = _like(a, dtype, shape, device)
    return zeros(s, d, device=dev)


def ones_like(a, /, *, dtype=None, device=None, shape=None):
    """Ones with the shape, dtype and device of `a` (numpy.ones_like);
    `dtype`, `device` and `shape` override them."""
    s, d, dev = _like(a, dtype, shape, device)
    return ones(s, d, device=dev)


def full_like(a, /, fill_value, *, dtype=None, device=None, shape=None):
    """`fill_value` with the shape, dtype and device of `a` (numpy.full_like);
    `dtype`, `device` and `shape` override them."""
    s, d, dev = _like(a, dtype, shape, device)
    return _full(s, fill_value, d, "C", dev)


# ---- ranges -----------------------------------------------------------------
# NumPy's own routines decide lengths, dtypes and the first values.  On an
# accelerator arange and tri are an elementwise kernel of the index (_fill);
# on the CPU, and for the rest, the values are computed on the host and moved
# in one copy.

def _np():
    import numpy
    return numpy


_FILL = {}


def _fill(kind):
    """The index kernels, made once: "float" is NumPy's arange fill (element
    i of b0, b1, ... is b0 + i * (b1 - b0) in the dtype's arithmetic --
    float16's in float32 --, the first two as given); "int" the same modulo
    2**64 (every integer width wraps as NumPy's); "tri" is numpy.tri's
    j <= i + k over rows of m."""
    k = _FILL.get(kind)
    if k is None:
        from ._expr import ElementwiseKernel
        body = {"float": "y = i == 0 ? b0 : i == 1 ? b1 : b0 + (F)i * d",
                "int": "y = (T)(b0 + (U)i * d)",
                "tri": "y = (T)((i % m) <= (i / m) + k)"}[kind]
        params = {"float": "F b0, F b1, F d", "int": "U b0, U d", "tri": "int64 m, int64 k"}[kind]
        k = _FILL[kind] = ElementwiseKernel(params, "T y", body, f"ember_{kind}_fill")
    return k


def _arange_on_device(start, stop, step, dtype, device):
    """arange made on an accelerator (None: on the host, as NumPy builds it --
    the CPU, bool, complex, other objects, and NumPy's errors).  NumPy's rules
    (PyArray_ArangeObj): the length is ceil((stop - start) / step) of the
    arguments' own arithmetic, the dtype at least intp promoted with each
    argument given, the first two values start and start + step set into it."""
    np = _np()
    dev = _device.Device(device) if device is not None else _device.get_device()
    if dev.kind not in ("cuda", "opencl"):
        return None
    lo, hi = (0, start) if stop is None else (start, stop)
    st = 1 if step is None else step
    given = [v for v in (start, stop, step) if v is not None]
    if not all(isinstance(v, (int, float, np.integer, np.floating)) and
               not isinstance(v, (bool, np.bool_)) for v in given):
        return None
    try:
        dt = np.dtype(dtype) if dtype is not None else np.result_type(
            np.intp, *(np.asarray(v).dtype for v in given))
        with np.errstate(all="ignore"):
            n = max(int(np.ceil((hi - lo) / st)), 0)
            b = np.empty(2, dt)
            b[0], b[1] = lo, lo + st
    except (TypeError, ValueError, OverflowError, ZeroDivisionError):
        return None
    if dt.kind not in "iuf" or n < 3:
        return None
    return _device_arange(b[0], b[1], n, dt, dev)


def _device_arange(r0, r1, n, dtype, device):
    """n values from NumPy's first two, r0 and r1 (of dtype), by the index
    kernel on device."""
    np = _np()
    if dtype.kind in "iu":
        b0 = np.uint64(int(r0) % 2**64)
        d = np.uint64((int(r1) - int(r0)) % 2**64)
        return _fill("int")(b0, d, empty(n, dtype, device=device))
    F = np.float64 if dtype == np.float64 else np.float32  # float16 fills in float32
    b0, b1 = F(r0), F(r1)
    with np.errstate(all="ignore"):
        d = b1 - b0  # (NumPy's delta: in the dtype's arithmetic)
    return _fill("float")(b0, b1, d, empty(n, dtype, device=device))


def arange(start, /, stop=None, step=None, *, dtype=None, device=None):
    """Evenly spaced values in [start, stop) (numpy.arange: same length and dtype rules)."""
    np = _np()
    for v in (start, stop, step):
        if isinstance(v, _ember.ndarray):
            raise TypeError("arange takes scalars, not arrays")
    if step is not None and step == 0:
        raise ZeroDivisionError("step of arange must not be zero")
    if (device is not None or _device._auto_used) and _is_auto(device):
        from .auto import _generated  # larger than every GPU: made on the devices when used
        g = _generated.arange(start, stop, step, dtype)
        if g is not None:
            return g
    r = _arange_on_device(start, stop, step, dtype, device)
    if r is not None:
        return r
    if stop is None:
        r = np.arange(start, step=1 if step is None else step, dtype=dtype)
    else:
        r = np.arange(start, stop, 1 if step is None else step, dtype=dtype)
    return asarray(r, device=device)


def linspace(start, stop, /, num=50, *, endpoint=True, retstep=False, dtype=None, axis=0,
             device=None):
    """num evenly spaced samples over [start, stop] (numpy.linspace)."""
    np = _np()
    if num < 0:
        raise ValueError(f"Number of samples, {num}, must be non-negative.")
    start = start.get() if isinstance(start, _ember.ndarray) else start
    stop = stop.get() if isinstance(stop, _ember.ndarray) else stop
    r = np.linspace(start, stop, num, endpoint=endpoint, retstep=retstep, dtype=dtype, axis=axis)
    if retstep:
        return asarray(r[0], device=device), r[1]
    return asarray(r, device=device)


def logspace(start, stop, /, num=50, *, endpoint=True, base=10.0, dtype=None, axis=0, device=None):
    """base ** linspace(start, stop, num) (numpy.logspace)."""
    if num < 0:
        raise ValueError(f"Number of samples, {num}, must be non-negative.")
    r = _np().logspace(start, stop, num, endpoint=endpoint, base=base, dtype=dtype, axis=axis)
    return asarray(r, device=device)


def geomspace(start, stop, /, num=50, *, endpoint=True, dtype=None, axis=0, device=None):
    """Samples evenly spaced on a log scale (numpy.geomspace)."""
    if num < 0:
        raise ValueError(f"Number of samples, {num}, must be non-negative.")
    r = _np().geomspace(start, stop, num, endpoint=endpoint, dtype=dtype, axis=axis)
    return asarray(r, device=device)


# ---- matrices ---------------------------------------------------------------

def _index_int(v, what):
    import operator
    try:
        return operator.index(v)
    except TypeError:
        raise TypeError(f"{what} must be an integer, not {type(v).__name__}") from None


def eye(N, M=None, k=0, dtype=None, order="C", *, device=None):
    """A 2-d array with ones on the k-th diagonal (numpy.eye); built on the device."""
    _check_order(order)
    N = _index_int(N, "N")
    M = N if M is None else _index_int(M, "M")
    k = _index_int(k, "k")
    if N < 0 or M < 0:
        raise ValueError("negative dimensions are not allowed")
    out = zeros((N, M), dtype if dtype is not None else "float64", device=device)
    n = max(0, min(N + min(k, 0), M - max(k, 0)))  # length of the diagonal
    if n:
        from ._indexing import _diag_view
        _diag_view(out, k)[...] = 1
    return out


def identity(n, dtype=None, *, device=None):
    """The n x n identity (numpy.identity)."""
    return eye(n, dtype=dtype, device=device)


def tri(N, M=None, k=0, dtype=None, *, device=None):
    """Ones at and below the k-th diagonal (numpy.tri)."""
    N = _index_int(N, "N")
    M = N if M is None else _index_int(M, "M")
    if N < 0 or M < 0:
        raise ValueError("negative dimensions are not allowed")
    k = _index_int(k, "k")
    np = _np()
    dt = np.dtype(dtype if dtype is not None else float)
    dev = _device.Device(device) if device is not None else _device.get_device()
    if dev.kind in ("cuda", "opencl") and N * M and dt.kind in "biuf":
        return _fill("tri")(np.int64(M), np.int64(k), empty((N, M), dt, device=dev))
    return asarray(np.tri(N, M, k, dtype=dt), device=device)


def _iota(n, device):
    """0, 1, ..., n-1 as int64 on device.  On an accelerator it is made there,
    by the index kernel (_fill): a copy from the host waits for everything queued on
    the device first, which in the middle of a chain of device work (a QR's
    triu between geqrf and orgqr) leaves the device idle while the host
    catches up."""
    if device.kind not in ("cuda", "opencl"):
        return asarray(_np().arange(n, dtype="int64"), device=device)
    if n == 0:
        return empty(0, "int64", device=device)
    return _fill("int")(_np().uint64(0), _np().uint64(1), empty(n, "int64", device=device))


def _tri_mask(x, k, lower):
    n, m = x.shape[-2:] if x.ndim >= 2 else (x.shape[0], x.shape[0])  # 1-d: rows of x
    dev = x.device
    mask = tri(n, m, k, dtype=bool, device=dev)  # (the index kernel on a device)
    return mask if lower else ~mask


def _tri_apply(x, k, lower):
    from ._ufuncs import where
    x = x if isinstance(x, _ember.ndarray) else asarray(x)
    if x.ndim < 1:  # NumPy broadcasts a 1-d x as the rows of an (M, M) result
        raise ValueError(f"{'tril' if lower else 'triu'} needs an array of at least 1 dimension, "
                         f"got {x.ndim}")
    k = _index_int(k, "k")
    return where(_tri_mask(x, k if lower else k - 1, lower), x, zeros((), x.dtype, device=x.device))


def tril(x, /, k=0):
    """The lower triangle of the last two dimensions, zeros above diagonal k (numpy.tril)."""
    return _tri_apply(x, k, True)


def triu(x, /, k=0):
    """The upper triangle of the last two dimensions, zeros below diagonal k (numpy.triu)."""
    return _tri_apply(x, k, False)


def diagonal(x, offset=0, axis1=0, axis2=1):
    """The offset-th diagonal over axis1 and axis2 (numpy.diagonal), as a read-only view."""
    from ._indexing import _diag_view
    from ._manipulation import moveaxis
    x = x if isinstance(x, _ember.ndarray) else asarray(x)
    if x.ndim < 2:
        raise ValueError("diag requires an array of at least two dimensions")
    x = moveaxis(x, (axis1, axis2), (-2, -1))
    v = _diag_view(x, _index_int(offset, "offset"))
    v.setflags(write=False)
    return v


def diag(v, k=0):
    """The k-th diagonal of a 2-d array, or a 2-d array with v on its k-th diagonal (numpy.diag)."""
    from ._indexing import _diag_view
    v = v if isinstance(v, _ember.ndarray) else asarray(v)
    k = _index_int(k, "k")
    if v.ndim == 1:
        n = v.shape[0] + abs(k)
        out = zeros((n, n), v.dtype, device=v.device)
        _diag_view(out, k)[...] = v
        return out
    if v.ndim == 2:
        return _diag_view(v, k).copy()
    raise ValueError("Input must be 1- or 2-d.")


def meshgrid(*xi, copy=True, sparse=False, indexing="xy"):
    """Coordinate matrices from coordinate vectors (numpy.meshgrid)."""
    if indexing not in ("xy", "ij"):
        raise ValueError("Valid values for `indexing` are 'xy' and 'ij'.")
    xs = [x if isinstance(x, _ember.ndarray) else asarray(x) for x in xi]
    nd = len(xs)
    out = []
    for i, x in enumerate(xs):
        shape = [1] * nd
        shape[i] = x.size
        out.append(x.reshape(shape))
    if indexing == "xy" and nd > 1:
        for i in range(nd):
            s = list(out[i].shape)
            s[0], s[1] = s[1], s[0]
            out[i] = out[i].reshape(s)
    if not sparse:
        # From the sizes, not a max over the shapes: a size-0 input empties the grid.
        full_shape = [x.size for x in xs]
        if indexing == "xy" and nd > 1:
            full_shape[0], full_shape[1] = full_shape[1], full_shape[0]
        full_shape = tuple(full_shape)
        out = [o._broadcast_to(full_shape) for o in out]
    if copy:
        out = [o.copy() for o in out]
    return tuple(out)
