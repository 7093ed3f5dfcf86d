"""CUDA memory-pool helpers in CuPy's spelling: ``em.get_default_memory_pool()``.

The pool is per device (src/backend/cuda/pool.h): freed blocks are cached
for reuse; ``free_all_blocks()`` gives them back to the driver."""
from . import _ember

__all__ = ["MemoryPool", "get_default_memory_pool"]


class MemoryPool:
    """The caching allocator of one CUDA device (default: the current one,
    or cuda:0 when the current device is not a GPU)."""

    def __init__(self, device=None):
        self._id = device

    def _dev(self):
        if self._id is not None:
            return int(self._id)
        kind, id_ = _ember._get_device()
        return id_ if kind == "cuda" else 0

    def used_bytes(self):
        """Bytes in blocks held by live arrays."""
        return _ember.cuda_pool(self._dev())[0]

    def total_bytes(self):
        """Bytes held from the driver: live blocks plus cached free ones."""
        return _ember.cuda_pool(self._dev())[1]

    def free_bytes(self):
        """Bytes cached for reuse."""
        used, total = _ember.cuda_pool(self._dev())
        return total - used

    def free_all_blocks(self):
        """Release every cached free block to the driver."""
        _ember.cuda_pool(self._dev(), "free_all")

    def set_limit(self, size=None, fraction=None):
        """Cap the bytes the pool may hold (0 or None: no limit).  fraction
        is a share of the device's total memory."""
        if fraction is not None:
            if size is not None:
                raise ValueError("give size or fraction, not both")
            if not 0 <= fraction <= 1:
                raise ValueError(f"fraction must be in [0, 1], got {fraction}")
            size = int(_ember.mem_info(f"cuda:{self._dev()}")[1] * fraction)
        _ember.cuda_pool(self._dev(), "set_limit", int(size or 0))
        _limits[self._dev()] = int(size or 0)

    def get_limit(self):
        """The cap set_limit gave (0: none)."""
        return _limits.get(self._dev(), 0)


_limits = {}  # device id -> the pool's cap, as set_limit gave it (ember.auto reads it)


_default = MemoryPool()


def get_default_memory_pool():
    """The memory pool of the current CUDA device."""
    return _default


class Stream:
    """A stream on the current device (CuPy's ``cupy.cuda.Stream``).  ``with
    stream:`` makes it current for this thread: kernels and device copies
    queue on it; host reads wait for it.  ``non_blocking=True`` means it does
    not order against the default stream.  On the CPU every operation has
    finished when it returns: a CPU stream is always complete."""

    null = None  # the default stream of the current device (set below, touching no driver)

    def __init__(self, non_blocking=False, *, _handle=None, _device=None):
        if _handle == 0:  # the null stream: the device current where it is used
            self._dev, self.device_id = None, 0
        else:
            kind, id_ = _ember._get_device() if _device is None else _device
            self._dev, self.device_id = f"{kind}:{id_}", id_
        self._owned = _handle is None
        self.ptr = _ember.stream_create(self._dev, bool(non_blocking)) if self._owned else _handle
        self.non_blocking = bool(non_blocking)
        self._prev = []

    def __enter__(self):
        self._prev.append(_ember.stream_set(self._dev, self.ptr or None))
        return self

    def __exit__(self, *exc):
        _ember.stream_set(self._dev, self._prev.pop())

    def use(self):
        """Make this the current stream of this thread."""
        _ember.stream_set(self._dev, self.ptr or None)
        return self

    def synchronize(self):
        """Wait for all work queued on this stream."""
        _ember.stream_call("stream_sync", self._dev, self.ptr or None)

    def __del__(self):
        if getattr(self, "_owned", False) and getattr(self, "ptr", None):
            try:
                _ember.stream_call("stream_destroy", self._dev, self.ptr)
            except Exception:  # noqa: BLE001 - interpreter shutdown or a dead context
                pass

    def __repr__(self):
        return f"<ember.Stream 0x{self.ptr or 0:x} on {self._dev or 'the current device'}>"


Stream.null = Stream(_handle=0)


class Event:
    """An event on the current device: ``record(stream=None)`` (the current
    stream), ``synchronize()``, ``done``, and ``get_elapsed_time(start, end)``
    between two (on the CPU, the host's clock at each record)."""

    def __init__(self, disable_timing=False):
        kind, self.device_id = _ember._get_device()
        self._dev = f"{kind}:{self.device_id}"
        self.ptr = _ember.event_create(self._dev, not disable_timing)

    def record(self, stream=None):
        s = stream.ptr if stream is not None else _ember.stream_get(self._dev)
        _ember.stream_call("event_record", self._dev, self.ptr, s or None)

    def synchronize(self):
        _ember.stream_call("event_sync", self._dev, self.ptr)

    @property
    def done(self):
        """Whether the work the event recorded has finished (never waits)."""
        return _ember.stream_call("event_query", self._dev, self.ptr) == 1.0

    def __del__(self):
        if getattr(self, "ptr", None):
            try:
                _ember.stream_call("event_destroy", self._dev, self.ptr)
            except Exception:  # noqa: BLE001
                pass


def get_elapsed_time(start, end):
    """Milliseconds between two recorded events (CuPy's cupy.cuda.get_elapsed_time)."""
    if not isinstance(start, Event) or not isinstance(end, Event):
        raise TypeError("get_elapsed_time takes two ember.Event objects")
    if start._dev != end._dev:
        raise ValueError(f"get_elapsed_time: the events are on {start._dev} and {end._dev}")
    return _ember.stream_call("event_elapsed", start._dev, start.ptr, end.ptr)


__all__ += ["Stream", "Event", "get_elapsed_time"]
