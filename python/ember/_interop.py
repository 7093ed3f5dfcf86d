"""Interop protocols of ``em.ndarray``: DLPack, the CUDA array interface,
NumPy's ``__array_ufunc__`` / ``__array_function__`` (and ``like=``), and
pickling.

DLPack capsules are made and consumed in C (``_ember/dlpack.c``); this
module decides the Python-level arguments (``max_version``, ``stream``,
``dl_device``, ``copy``).  NumPy functions are dispatched through a table
built from the names Ember has: a NumPy function Ember lacks returns
``NotImplemented``, so NumPy raises ``TypeError`` rather than silently
computing on the host.

Unpickling places arrays by a policy (see ``set_unpickle_device``): a CPU
array comes back on the CPU; a CUDA array comes back on the current CUDA
device, or on the CPU where no CUDA device exists.
"""
import os as _os

import numpy as _np

from . import _ember
from ._methods import attach as _attach

__all__ = ["from_dlpack", "set_unpickle_device", "get_unpickle_device"]

ndarray = _ember.ndarray

_kDLCPU, _kDLCUDA, _kDLOpenCL = 1, 2, 4


def _em():
    import ember
    return ember


# ---- DLPack ----------------------------------------------------------------

def _dlpack_device(self):
    kind, dev_id = self._dev
    if kind == "cuda":
        return (_kDLCUDA, dev_id)
    if kind == "cpu":
        return (_kDLCPU, 0)
    if kind == "opencl":
        return (_kDLOpenCL, dev_id)
    raise BufferError(f"DLPack has no device type for {kind} arrays")


def _check_stream(self, stream):
    if self._dev[0] == "cpu" and stream is not None:
        raise ValueError(f"stream must be None for CPU arrays (got {stream!r})")
    if self._dev[0] == "opencl" and stream not in (None, -1):
        # DLPack defines no stream for OpenCL: Ember's queue is finished instead
        raise ValueError(f"stream must be None or -1 for OpenCL arrays (got {stream!r})")
    if stream == 0:
        raise ValueError("stream=0 is ambiguous for CUDA and not allowed by DLPack; use 1 or 2")


def _sync_for_stream(arr, stream):
    """Order a consumer's `stream` (a CUDA stream handle; 1 or None: the
    legacy default stream, 2: the per-thread one; -1: no ordering wanted)
    after the work Ember queued on its current stream, which is where Ember
    produced `arr` (CuPy's convention).  An event and a stream wait: the
    host does not block."""
    kind, dev_id = arr._dev
    if kind == "opencl":
        if stream != -1:  # the consumer may read on another queue: Ember's work done first
            _ember.synchronize(f"opencl:{dev_id}")
        return
    if kind != "cpu" and stream != -1:
        dev = f"{kind}:{dev_id}"  # 1, the legacy default stream, is the null stream to Ember
        _ember.stream_call("stream_wait", dev, None if stream in (None, 1) else stream,
                           _ember.stream_get(dev))


def _dlpack(self, *, stream=None, max_version=None, dl_device=None, copy=None):
    """The DLPack capsule of this array: ``dltensor_versioned`` (DLPack 1.x)
    when ``max_version >= (1, 0)``, else the legacy ``dltensor``.  Zero-copy
    unless ``copy=True`` or ``dl_device`` names another device."""
    versioned = max_version is not None and tuple(max_version)[0] >= 1
    _check_stream(self, stream)
    src, copied = self, False
    if dl_device is not None and tuple(dl_device) != _dlpack_device(self):
        dev_type, dev_id = dl_device
        if copy is False:
            raise BufferError(f"cannot export to DLPack device {tuple(dl_device)} without a copy")
        if dev_type != _kDLCPU:
            # NumPy's wording for a device it cannot give
            raise BufferError(f"unsupported device requested: cannot export a {self._dev[0]} "
                              f"array to DLPack device {tuple(dl_device)}; only the array's own "
                              f"device or the CPU (1, 0) (the array's is {_dlpack_device(self)})")
        src, copied, stream = _em().asarray(self, device="cpu", copy=True), True, None
    elif copy is True:
        src, copied = self.copy(), True
    _sync_for_stream(src, stream)
    return _ember._dlpack_export(src, versioned, copied)


def from_dlpack(x, /, *, device=None, copy=None):
    """An ember array sharing the memory of `x` (any object with
    ``__dlpack__``, or a DLPack capsule).  ``copy=True`` always copies,
    ``copy=False`` never does; ``device`` puts the result there."""
    if type(x).__name__ == "PyCapsule":
        arr, copied = _ember._dlpack_import(x), False
    elif hasattr(x, "__dlpack__"):
        capsule, copied = _request_capsule(x, device, copy)
        arr = _ember._dlpack_import(capsule)
    else:
        raise TypeError(f"from_dlpack needs an object with __dlpack__ or a DLPack capsule, "
                        f"got {type(x).__name__}")
    if device is not None and arr.device != _em().Device(device):
        if copy is False:
            raise ValueError(f"copy=False but the data is on {arr.device}, not {device}")
        return arr.to_device(device)  # a copy already
    return arr.copy() if copy is True and not copied else arr


def _consumer_stream(x):
    """The stream argument for a CUDA producer: Ember's current stream
    (1, the legacy default stream, when that is the null stream)."""
    dev = x.__dlpack_device__() if hasattr(x, "__dlpack_device__") else (_kDLCPU, 0)
    if dev[0] != _kDLCUDA:
        return None
    try:
        return _ember.stream_get("cuda") or 1
    except _em().DeviceError:  # no CUDA device here: nothing of Ember's to order after
        return 1


def _request_capsule(x, device, copy):
    """(capsule, copied): ask x for a versioned capsule, falling back to the
    legacy signature for producers that predate max_version (a copy asked
    for is then ours to make)."""
    kw = {"max_version": (1, 1)}
    stream = _consumer_stream(x)
    if stream is not None:
        kw["stream"] = stream
    if copy is not None:
        kw["copy"] = copy
    if device is not None and _em().Device(device).kind == "cpu":
        kw["dl_device"] = (_kDLCPU, 0)
    try:
        return x.__dlpack__(**kw), copy is True
    except TypeError:  # an older producer: it never copies
        return (x.__dlpack__(stream=stream) if stream is not None else x.__dlpack__()), False


# ---- CUDA array interface ----------------------------------------------------

def _cuda_array_interface(self):
    kind, dev_id = self._dev
    if kind != "cuda":
        raise AttributeError(
            f"__cuda_array_interface__ is only defined for CUDA arrays (this one is on {kind}); "
            "use __array_interface__ / the buffer protocol or DLPack")
    stream = _ember.stream_get(f"cuda:{dev_id}")
    return {
        "shape": self.shape,
        "typestr": self.dtype.str,
        "data": (self._ptr, not self.flags.writeable),
        "strides": None if self.flags.c_contiguous else self.strides,
        "version": 3,
        # The consumer orders its work after this stream (1: the legacy default).
        "stream": 1 if stream is None else stream,
    }


def from_cuda_array_interface(obj):
    """Wrap an object exposing ``__cuda_array_interface__`` as an ember CUDA
    array sharing its memory (the array keeps `obj` alive)."""
    cai = obj.__cuda_array_interface__
    em = _em()
    if not em.cuda.is_available():
        raise TypeError(f"{type(obj).__name__} exposes __cuda_array_interface__ but this ember "
                        "has no usable CUDA device")
    if cai.get("mask") is not None:
        raise TypeError("masked arrays (__cuda_array_interface__ 'mask') are not supported")
    ptr, readonly = cai["data"]
    dev_id = getattr(getattr(obj, "device", None), "id", None)  # CuPy, Numba
    if not isinstance(dev_id, int):
        cur = em.get_device()
        dev_id = cur.id if cur.kind == "cuda" else 0
    producer = cai.get("stream")
    if producer == 0:
        raise ValueError("__cuda_array_interface__ 'stream' 0 is disallowed by the protocol "
                         "(1: legacy default stream, 2: per-thread default stream)")
    if producer is not None and producer != -1:
        # Ember's work on this data goes after the producer's (no host wait).
        dev = f"cuda:{dev_id}"
        _ember.stream_call("stream_wait", dev, _ember.stream_get(dev),
                           None if producer == 1 else producer)
    return _ember._wrap_pointer(ptr, tuple(cai["shape"]), _np.dtype(cai["typestr"]).name,
                                cai.get("strides"), f"cuda:{dev_id}", obj, bool(readonly))


_attach("__dlpack__", _dlpack)
_attach("__dlpack_device__", _dlpack_device)
_attach("__cuda_array_interface__", _cuda_array_interface, prop=True)


# ---- __array_ufunc__ ------------------------------------------------------------

_DEFAULT_KW = {"casting": "same_kind", "order": "K", "subok": True, "where": True,
               "signature": None, "initial": _np._NoValue}


def _foreign(values):
    """True when some value is an array type Ember does not take over."""
    for v in values:
        if hasattr(v, "__array_ufunc__") and not isinstance(v, (ndarray, _np.ndarray, _np.generic)):
            return True
    return False


def _ember_out(out):
    """out=(...) -> the single Ember output, None, or NotImplemented."""
    if out is None:
        return None
    out = out if isinstance(out, tuple) else (out,)
    if len(out) != 1 or not isinstance(out[0], ndarray):
        return NotImplemented
    return out[0]


def _strip_defaults(kwargs):
    for k, default in _DEFAULT_KW.items():
        if k in kwargs:
            v = kwargs[k]
            if v is not default and not (isinstance(v, (str, bool)) and v == default):
                return False
            del kwargs[k]
    return True


def _array_ufunc(self, ufunc, method, *inputs, **kwargs):
    em = _em()
    if _foreign(inputs) or not _strip_defaults(kwargs):
        return NotImplemented
    if "out" in kwargs:
        out = _ember_out(kwargs.pop("out"))
        if out is NotImplemented:
            return NotImplemented
        if out is not None:
            kwargs["out"] = out
    if method == "__call__":
        fn = getattr(em, ufunc.__name__, None)
    else:
        # Ember's ufuncs carry NumPy's methods (_ufunc_methods): np.add.reduce(x),
        # np.multiply.outer(x, y), np.add.at(x, i, v) ... run as Ember's.
        fn = getattr(getattr(em, ufunc.__name__, None), method, None)
    if fn is None or not callable(fn):
        return NotImplemented
    return fn(*inputs, **kwargs)


_attach("__array_ufunc__", _array_ufunc)


# ---- __array_function__ -------------------------------------------------------

def _drop_order(fn):
    """NumPy creation functions take order=; Ember arrays are C-ordered."""
    def call(*args, order=None, **kwargs):
        if order not in (None, "C", "K", "A"):
            raise NotImplementedError(f"ember arrays are C-ordered (got order={order!r})")
        return fn(*args, **kwargs)
    return call


_P = __import__("inspect").Parameter
_POSITIONAL = (_P.POSITIONAL_ONLY, _P.POSITIONAL_OR_KEYWORD)


def _same_calling(nps, ems):
    """Whether every way of calling the NumPy signature nps also calls the
    Ember signature ems with the same meaning."""
    em_params = list(ems.parameters.values())
    by_name = ems.parameters
    varkw = any(p.kind == _P.VAR_KEYWORD for p in em_params)
    for i, p in enumerate(nps.parameters.values()):
        if p.kind == _P.VAR_POSITIONAL:
            return False
        if p.name == "like" or p.kind == _P.VAR_KEYWORD:
            continue
        e = em_params[i] if i < len(em_params) else None
        if p.kind == _P.POSITIONAL_ONLY or i == 0:
            ok = e is not None and e.kind in _POSITIONAL
        elif p.kind == _P.POSITIONAL_OR_KEYWORD:
            ok = e is not None and e.name == p.name and e.kind == _P.POSITIONAL_OR_KEYWORD
        else:
            ok = varkw or (p.name in by_name and by_name[p.name].kind != _P.POSITIONAL_ONLY)
        if not ok:
            return False
    return True


# NumPy-only arguments whose values change nothing for Ember arrays (always
# C-ordered, no subclasses).
_IGNORABLE = {"order": ("C", "K", "A", None), "subok": (True, False)}


def _ignorable(name, value):
    return isinstance(value, (str, bool, type(None))) and value in _IGNORABLE.get(name, ())


def _numpy_calling(np_fn, em_fn):
    """em_fn callable with NumPy's argument conventions: NumPy's positional
    arguments (say full_like's dtype) become keywords; NumPy-only arguments
    at their defaults or without meaning for Ember (order="C", subok) are
    dropped; others raise TypeError naming them."""
    import inspect
    try:
        nps, ems = inspect.signature(np_fn), inspect.signature(em_fn)
    except (TypeError, ValueError):
        return em_fn
    if any(p.kind == _P.VAR_POSITIONAL for p in ems.parameters.values()) or _same_calling(nps, ems):
        return em_fn
    em_names = {n for n, p in ems.parameters.items() if p.kind != _P.POSITIONAL_ONLY}
    n_em_pos = sum(1 for p in ems.parameters.values() if p.kind in _POSITIONAL)

    def call(*args, **kwargs):
        bound = nps.bind(*args, **kwargs)
        pos, kw = [], {}
        for i, (name, value) in enumerate(bound.arguments.items()):
            p = nps.parameters[name]
            if p.kind == _P.VAR_KEYWORD:
                kw.update(value)
            elif i < len(args) and i < n_em_pos:
                pos.append(value)  # positional in both: by position
            elif name in em_names:
                kw[name] = value
            elif not (value is p.default or _ignorable(name, value)):
                raise TypeError(f"ember's {em_fn.__name__} does not support {name}={value!r}")
        return em_fn(*pos, **kw)
    call.__name__ = getattr(em_fn, "__name__", "call")
    return call


def _build_function_table():
    """{numpy function: ember function} for every public name both have."""
    em = _em()
    table = {}
    spaces = [(_np, em, n) for n in dir(em)]
    for sub in ("linalg", "fft", "random"):
        if hasattr(em, sub) and hasattr(_np, sub):
            sub_em, sub_np = getattr(em, sub), getattr(_np, sub)
            spaces += [(sub_np, sub_em, n) for n in dir(sub_em)]
    for np_mod, em_mod, name in spaces:
        if name.startswith("_"):
            continue
        np_fn, em_fn = getattr(np_mod, name, None), getattr(em_mod, name, None)
        if (np_fn is None or em_fn is None or np_fn is em_fn or isinstance(np_fn, type)
                or not callable(np_fn) or not callable(em_fn) or isinstance(np_fn, _np.ufunc)):
            continue
        table[np_fn] = _numpy_calling(np_fn, em_fn)
    # Metadata queries Ember has no function for (NumPy's answer is exact).
    table[_np.shape] = lambda a: a.shape if isinstance(a, ndarray) else _np.shape(_np.asarray(a))
    table[_np.ndim] = lambda a: a.ndim if isinstance(a, ndarray) else _np.ndim(_np.asarray(a))
    table[_np.size] = lambda a, axis=None: (a.size if axis is None else a.shape[axis]) \
        if isinstance(a, ndarray) else _np.size(_np.asarray(a), axis)
    table[_np.iscomplexobj] = lambda x: x.dtype.kind == "c"
    table[_np.isrealobj] = lambda x: x.dtype.kind != "c"
    # NumPy takes arange's dtype positionally; the Array API (and Ember) by keyword.
    table[_np.arange] = lambda start, stop=None, step=None, dtype=None, **kw: em.arange(
        start, stop, step, dtype=dtype, **kw)
    for name in ("asarray", "array", "asanyarray", "ascontiguousarray"):
        if hasattr(em, name if name != "asanyarray" else "asarray"):
            table[getattr(_np, name)] = _drop_order(getattr(em, name if name != "asanyarray"
                                                            else "asarray"))
    return table


_FUNCTIONS = None


def _array_function(self, func, types, args, kwargs):
    global _FUNCTIONS
    if _FUNCTIONS is None:
        _FUNCTIONS = _build_function_table()
    fn = _FUNCTIONS.get(func)
    for t in types:
        if not issubclass(t, (ndarray, _np.ndarray)):
            return NotImplemented
    if fn is None:
        # Said here rather than by NumPy's generic message: which function,
        # and how to get NumPy's answer on purpose.
        name = getattr(func, "__module__", "numpy").replace("numpy._core", "numpy").split(".")
        name = ".".join(p for p in name if not p.startswith("_")) + "." + func.__name__
        raise TypeError(f"{name} is not implemented for ember arrays (see "
                        "docs/numpy_not_implemented.txt); convert explicitly, e.g. "
                        f"{name}(x.get()), to run NumPy's on a host copy")
    if func in _LIKE_FUNCTIONS:  # reached through like=self: make it on self's device
        with self.device:
            return fn(*args, **kwargs)
    return fn(*args, **kwargs)


# NumPy creation functions that take like= (dispatched only through it).
_LIKE_FUNCTIONS = frozenset(getattr(_np, n) for n in (
    "array", "asarray", "asanyarray", "ascontiguousarray", "asfortranarray", "empty", "zeros",
    "ones", "full", "arange", "eye", "identity", "tri", "frombuffer", "fromiter", "require"))


_attach("__array_function__", _array_function)


# ---- pickling ----------------------------------------------------------------

_unpickle_device = None


def set_unpickle_device(device):
    """Where unpickled arrays go: None (the default policy: CPU arrays to the
    CPU, CUDA arrays to the current CUDA device or the CPU if there is
    none), ``"current"`` (the current device of the unpickling thread), or a
    device (``"cpu"``, ``"cuda:1"``, an ``em.Device``).  The environment
    variable ``EMBER_UNPICKLE_DEVICE`` sets the same when no call did."""
    global _unpickle_device
    if device is not None and device != "current":
        device = str(_em().Device(device))
    _unpickle_device = device


def get_unpickle_device():
    """Where unpickled arrays go: what :func:`set_unpickle_device` set, else
    ``EMBER_UNPICKLE_DEVICE``, else None (the default placement)."""
    return _unpickle_device if _unpickle_device is not None else _os.environ.get(
        "EMBER_UNPICKLE_DEVICE") or None


def _target_device(kind):
    em = _em()
    choice = get_unpickle_device()
    if choice == "current":
        return None
    if choice is not None:
        return choice
    if kind == "cpu":
        return "cpu"
    cur = em.get_device()
    if cur.kind == kind:
        return str(cur)
    if kind == "cuda" and em.cuda.is_available():
        return "cuda:0"
    return "cpu"


def _reconstruct(data, dtype, shape, kind):
    """Unpickle: the values from `data` (bytes or an out-of-band buffer)."""
    host = _np.frombuffer(data, dtype=dtype).reshape(shape)
    dev = _target_device(kind)
    em = _em()
    if dev == "cpu" or (dev is None and em.get_device().kind == "cpu"):
        # An out-of-band writable buffer is reused; pickled bytes are copied.
        return em.asarray(host, device="cpu", copy=None if host.flags.writeable else True)
    return em.asarray(host, device=dev)


def _reduce_ex(self, protocol):
    kind = self._dev[0]
    host = _np.ascontiguousarray(self.get() if kind != "cpu" else _np.asarray(self))
    if protocol >= 5:
        import pickle
        data = pickle.PickleBuffer(host)
    else:
        data = host.tobytes()
    return (_reconstruct, (data, self.dtype.name, self.shape, kind))


_attach("__reduce_ex__", _reduce_ex)
_attach("__reduce__", lambda self: _reduce_ex(self, 2))


# Dask registration hooks (imports no Dask: see ember/dask.py).
from . import dask as _dask  # noqa: E402,F401
