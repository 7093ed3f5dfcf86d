"""Past one machine: auto arrays on a Dask cluster (docs/auto.md).

After ``em.auto.use_cluster(client, threshold=...)``, an auto array made
from host data of at least ``threshold`` bytes is a ``dask.array.Array``
whose chunks are Ember arrays made on the cluster's workers (through the
existing ``ember.dask`` registration: chunk type, dispatch, serializers), so
operators, methods and NumPy functions on it run there, each worker placing
its chunks itself (``em.dask.cluster()`` gives one worker per GPU).  Smaller
arrays stay ordinary auto arrays.  ``use_cluster(None)`` turns it off.
"""
import threading

_lock = threading.Lock()
_state = {"client": None, "threshold": None, "chunk": None}

DEFAULT_THRESHOLD = 1 << 30  # 1 GiB: below it one machine's devices win


def use_cluster(client, threshold=DEFAULT_THRESHOLD, chunk_bytes=None):
    """Make auto arrays of at least threshold bytes Dask arrays of Ember
    chunks computed by client (a ``distributed.Client``; None turns it off).
    chunk_bytes: the size of a chunk (default: the array split evenly over
    the client's workers, at most 256 MiB a chunk)."""
    if client is not None:
        import dask.array  # noqa: F401  (registers Ember's chunk type: ember/dask.py)
        from .. import dask as _emdask
        _emdask.register()
        if threshold is None or threshold < 0:
            raise ValueError(f"threshold must be a number of bytes >= 0, not {threshold!r}")
    with _lock:
        _state.update(client=client, threshold=threshold, chunk=chunk_bytes)


def active():
    return _state["client"] is not None


def _chunks(shape, itemsize):
    """Chunks along the first axis: the array split over the workers, at most
    256 MiB (or chunk_bytes) a chunk."""
    client = _state["client"]
    try:
        workers = max(len(client.scheduler_info()["workers"]), 1)
    except Exception:  # noqa: BLE001  (a client without that: one worker)
        workers = 1
    row = itemsize
    for n in shape[1:]:
        row *= n
    per = _state["chunk"] or min(256 << 20, -(-shape[0] * row // workers))
    rows = max(int(per // max(row, 1)), 1)
    return (rows,) + tuple(shape[1:])


def _to_ember(block):
    import ember as em
    return em.asarray(block)  # on the worker's own default device


def maybe_distribute(obj, dtype):
    """The Dask array for host data obj (NumPy-convertible) when a cluster is
    in use and obj is at least the threshold, else None."""
    if not active():
        return None
    import numpy as np
    if not isinstance(obj, np.ndarray) or obj.ndim == 0:
        return None
    if dtype is not None:
        obj = obj.astype(dtype, copy=False)
    if obj.nbytes < _state["threshold"]:
        return None
    import dask.array as da
    import ember as em
    x = da.from_array(obj, chunks=_chunks(obj.shape, obj.itemsize))
    return x.map_blocks(_to_ember, dtype=obj.dtype, meta=em.empty((0,) * obj.ndim, dtype=obj.dtype))
