"""Devices: ``em.Device``, the current device (per thread), ``em.devices()``.

The default device is the first GPU when one works, else the CPU;
``EMBER_DEVICE=cpu|cuda:N|opencl:N`` overrides it.  Nothing here touches a
GPU at import: backends are asked only when a device is used."""
import os as _os
import threading as _threading

from . import _ember

_KINDS = ("cpu", "cuda", "opencl")


def _parse(spec):
    if isinstance(spec, Device):
        return spec.kind, spec.id
    if spec is None:
        return _ember._get_device()
    if isinstance(spec, int) and not isinstance(spec, bool):
        return "cuda", spec
    if isinstance(spec, str):
        kind, _, num = spec.partition(":")
        if kind in _KINDS and (num == "" or num.isdigit()):
            return kind, int(num or 0)
    raise ValueError(
        f"unknown device {spec!r}; expected 'cpu', 'cuda[:N]', 'opencl[:N]', an int or an ember.Device"
    )


_local = _threading.local()


def _stack():
    """This thread's devices to restore on leaving `with Device(...)` (one
    Device object may be entered from several threads at once)."""
    st = getattr(_local, "stack", None)
    if st is None:
        st = _local.stack = []
    return st


class Device:
    """A compute device: ``Device("cpu")``, ``Device("cuda:1")``, ``Device(0)``.

    ``with Device(...):`` makes it the current device of this thread."""

    __slots__ = ("kind", "id")

    def __init__(self, spec="cpu"):
        kind, id_ = _parse(spec)
        _ember.check_device(f"{kind}:{id_}")  # raises DeviceError if absent
        self.kind, self.id = kind, id_

    def __str__(self):
        return self.kind if self.kind == "cpu" else f"{self.kind}:{self.id}"

    def __repr__(self):
        return f"<ember.Device {self}>"

    def __eq__(self, other):
        if not isinstance(other, Device):
            return NotImplemented
        return (self.kind, self.id) == (other.kind, other.id)

    def __hash__(self):
        return hash((self.kind, self.id))

    def __enter__(self):
        _stack().append(_ember._get_device())
        _ember._set_device(f"{self.kind}:{self.id}")
        return self

    def __exit__(self, *exc):
        kind, id_ = _stack().pop()
        _ember._set_device(f"{kind}:{id_}")

    def use(self):
        """Make this the current device of this thread."""
        _ember._set_device(f"{self.kind}:{self.id}")

    def _props(self):
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
        return _ember.mem_info(str(self))

    def synchronize(self):
        """Wait for all work queued on the device."""
        _ember.synchronize(str(self))


def devices():
    """Every device Ember can use, CPU first."""
    out = [Device("cpu")]
    for kind in ("cuda", "opencl"):
        out += [Device(f"{kind}:{i}") for i in range(_ember.device_count(kind))]
    return out


def get_device():
    """The current device of this thread."""
    kind, id_ = _ember._get_device()
    return Device(f"{kind}:{id_}")


def synchronize():
    """Wait for the current device."""
    get_device().synchronize()


def _device_of(arr):
    kind, id_ = arr._dev
    return Device(f"{kind}:{id_}")


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
        _ember._set_device(f"{kind}:{id_}", True)


_initial_device()
