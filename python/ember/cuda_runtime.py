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


_default = MemoryPool()


def get_default_memory_pool():
    """The memory pool of the current CUDA device."""
    return _default
