"""Devices: ``em.Device``, the current device (per thread), ``em.devices()``.

The default device is the first GPU when one works, else the CPU;
``EMBER_DEVICE=cpu|cuda:N|opencl:N|auto`` overrides it.  Nothing here touches a
GPU at import: backends are asked only when a device is used.

``Device("auto")`` is not a place but a policy (docs/auto.md): arrays made
for it are *auto arrays*, which Ember moves to where each operation on them
is predicted to finish first (ember/auto).  While auto is current, C's
current device is the CPU, where auto arrays are born."""
import os as _os
import threading as _threading

from . import _ember

_KINDS = ("cpu", "cuda", "opencl")


def _parse(spec):
    if isinstance(spec, Device):
        return spec.kind, spec.id
    if spec is None:
        return _ember._get_device()
    if spec == "auto":
        return "auto", 0
    if isinstance(spec, int) and not isinstance(spec, bool):
        return "cuda", spec
    if isinstance(spec, str):
        kind, _, num = spec.partition(":")
        if kind in _KINDS and (num == "" or num.isdigit()):
            return kind, int(num or 0)
    raise ValueError(
        f"unknown device {spec!r}; expected 'cpu', 'cuda[:N]', 'opencl[:N]', 'auto', an int or an "
        "ember.Device"
    )


_local = _threading.local()
# Whether auto is the process default (set_default_device, EMBER_DEVICE=auto),
# and whether auto was ever asked for: until then creation pays no look-up.
_auto_default = False
_auto_used = False


def _auto_current():
    """Whether auto is this thread's current device."""
    a = getattr(_local, "auto", None)
    return _auto_default if a is None else a


def _set_current(kind, id_, process_default=False):
    """Make (kind, id) current for this thread (or the process default); auto
    keeps C's device on the CPU, where auto arrays are made."""
    global _auto_default, _auto_used
    auto = kind == "auto"
    _auto_used = _auto_used or auto
    _ember._set_device("cpu:0" if auto else f"{kind}:{id_}", process_default)
    if process_default:
        _auto_default = auto
    else:
        _local.auto = auto


def _stack():
    """This thread's devices to restore on leaving `with Device(...)` (one
    Device object may be entered from several threads at once)."""
    st = getattr(_local, "stack", None)
    if st is None:
        st = _local.stack = []
    return st


class Device:
    """A compute device: ``Device("cpu")``, ``Device("cuda:1")``, ``Device(0)``,
    or ``Device("auto")``: Ember chooses per operation (docs/auto.md).

    ``with Device(...):`` makes it the current device of this thread.  The
    ``device`` of an auto array is an auto Device whose ``current`` is the
    concrete Device its data was on when asked (a fixed device's ``current``
    is itself)."""

    __slots__ = ("kind", "id", "_current")

    def __init__(self, spec="cpu"):
        kind, id_ = _parse(spec)
        if kind != "auto":
            _ember.check_device(f"{kind}:{id_}")  # raises DeviceError if absent
        self.kind, self.id, self._current = kind, id_, None

    @property
    def current(self):
        """Where the data is: this device, or for an array's auto Device the
        device its data was on when ``x.device`` was read (None for a bare
        ``Device("auto")``)."""
        return self._current if self.kind == "auto" else self

    def __str__(self):
        return self.kind if self.kind in ("cpu", "auto") else f"{self.kind}:{self.id}"

    def __repr__(self):
        return f"<ember.Device {self}>"

    def __eq__(self, other):
        if not isinstance(other, Device):
            return NotImplemented
        return (self.kind, self.id) == (other.kind, other.id)

    def __hash__(self):
        return hash((self.kind, self.id))

    def __enter__(self):
        _stack().append((_ember._get_device(), getattr(_local, "auto", None)))
        _set_current(self.kind, self.id)
        return self

    def __exit__(self, *exc):
        (kind, id_), auto = _stack().pop()
        _ember._set_device(f"{kind}:{id_}")
        _local.auto = auto

    def use(self):
        """Make this the current device of this thread."""
        _set_current(self.kind, self.id)

    def _props(self):
        if self.kind == "auto":
            raise ValueError("Device('auto') is a placement policy, not one device: "
                             "its properties are those of x.device.current")
        return _ember.device_props(str(self))

    name = property(lambda self: self._props()["name"])
    compute_capability = property(lambda self: "%d%d" % self._props()["compute_capability"])
    multiprocessor_count = property(lambda self: self._props()["multiprocessor_count"])
    max_threads_per_block = property(lambda self: self._props()["max_threads_per_block"])
    max_block_dim = property(lambda self: self._props()["max_block_dim"])
    max_grid_dim = property(lambda self: self._props()["max_grid_dim"])
    shared_memory_per_block = property(lambda self: self._props()["shared_memory_per_block"])
    total_memory = property(lambda self: self._props()["total_memory"])

    @property
    def attributes(self):
        """All properties as a dict."""
        return self._props()

    def mem_info(self):
        """(free, total) bytes of the device's memory."""
        self._props()  # auto has none
        return _ember.mem_info(str(self))

    def synchronize(self):
        """Wait for all work queued on the device (auto: on every device)."""
        if self.kind == "auto":
            for d in devices():
                d.synchronize()
            return
        _ember.synchronize(str(self))


def devices():
    """Every device Ember can use, CPU first."""
    out = [Device("cpu")]
    for kind in ("cuda", "opencl"):
        out += [Device(f"{kind}:{i}") for i in range(_ember.device_count(kind))]
    return out


def get_device():
    """The current device of this thread (``Device("auto")`` while auto is)."""
    if _auto_used and _auto_current():
        return Device("auto")
    kind, id_ = _ember._get_device()
    return Device(f"{kind}:{id_}")


def set_default_device(device):
    """Make device (``"cpu"``, ``"cuda:N"``, ``"opencl:N"``, ``"auto"`` or a
    Device) the process default: the current device of every thread that
    has not chosen one (``EMBER_DEVICE`` sets it at import)."""
    kind, id_ = _parse(device)
    if kind != "auto":
        _ember.check_device(f"{kind}:{id_}")
    _set_current(kind, id_, True)


def synchronize():
    """Wait for the current device."""
    get_device().synchronize()


def _device_of(arr):
    kind, id_ = arr._dev
    d = Device(f"{kind}:{id_}")
    if _auto_used and _ember._auto_is(arr):
        a = Device("auto")
        a._current = d
        return a
    return d


_ember._set_hook("device", _device_of)


class _Cuda:
    """``em.cuda``: Numba/CuPy-style helpers for NVIDIA devices."""

    @staticmethod
    def is_available():
        return _ember.device_count("cuda") > 0

    @staticmethod
    def device_count():
        return _ember.device_count("cuda")

    @staticmethod
    def select_device(i):
        """Make cuda:i the current device (Numba's spelling)."""
        d = Device(f"cuda:{int(i)}")
        d.use()
        return d

    @staticmethod
    def get_current_device():
        return get_device()

    @staticmethod
    def alloc_pinned_memory(nbytes):
        """Page-locked host memory of nbytes (CuPy's name): copies between it
        and a GPU run at the bus's full rate.  The result exports its bytes
        through the buffer protocol (``numpy.frombuffer``) and is unpinned
        when the last reference goes.  DeviceError without CUDA."""
        kind, id_ = _ember._get_device()
        return _ember.cuda_pinned_alloc(id_ if kind == "cuda" else 0, int(nbytes))

    @staticmethod
    def pinned_empty(shape, dtype="float64"):
        """A NumPy array in pinned host memory: the fast source of
        ``em.asarray(..., device="cuda")`` and target of ``x.get(out=...)``."""
        import numpy as np
        dt = np.dtype(dtype)
        shape = (int(shape),) if np.ndim(shape) == 0 else tuple(int(n) for n in shape)
        count = 1
        for n in shape:
            if n < 0:
                raise ValueError(f"negative dimensions are not allowed (got {shape})")
            count *= n
        mem = _Cuda.alloc_pinned_memory(count * dt.itemsize)
        return np.frombuffer(mem, dt, count).reshape(shape)


cuda = _Cuda()


def _initial_device():
    spec = _os.environ.get("EMBER_DEVICE")
    if spec:
        kind, id_ = _parse(spec)
        _set_current(kind, id_, True)


_initial_device()


def _auto_any(*xs):
    """Whether a Python-level operation (matmul, sort) on xs is placed by
    ember.auto: some x is an auto array, and no placement is under way."""
    if not _auto_used or not any(isinstance(x, _ember.ndarray) and _ember._auto_is(x) for x in xs):
        return False
    from .auto import _place
    return not getattr(_place._local, "busy", False)
