"""Past one machine: auto arrays on a Dask cluster (docs/auto.md).

After ``em.auto.use_cluster(client, threshold=...)``, an auto array made
from host data of at least ``threshold`` bytes is a ``dask.array.Array``
whose chunks are Ember arrays made on the cluster's workers (through the
existing ``ember.dask`` registration: chunk type, dispatch, serializers), so
operators, methods and NumPy functions on it run there, each worker placing
its chunks itself (``em.dask.cluster()`` gives one worker per GPU).  Smaller
arrays stay ordinary auto arrays.  ``use_cluster(None)`` turns it off.
"""
import sys
import threading

_lock = threading.Lock()
# client: the one use_cluster named (None: detect an active one; False: off)
_state = {"client": None, "threshold": None, "chunk": None}

DEFAULT_THRESHOLD = 1 << 30  # 1 GiB: below it one machine's devices win


def use_cluster(client, threshold=DEFAULT_THRESHOLD, chunk_bytes=None):
    """Make auto arrays of at least threshold bytes Dask arrays of Ember
    chunks computed by client (a ``distributed.Client``).  None (the
    default state): an active client (``distributed.default_client()``) is
    picked up by itself; False: never.  chunk_bytes: the size of a chunk
    (default: the array split evenly over the client's workers, at most
    256 MiB a chunk)."""
    if threshold is None or threshold < 0:
        raise ValueError(f"threshold must be a number of bytes >= 0, not {threshold!r}")
    if client is not None and client is not False:
        _register()
    with _lock:
        _state.update(client=client, threshold=threshold, chunk=chunk_bytes)


def _register():
    import dask.array  # noqa: F401  (registers Ember's chunk type: ember/dask.py)
    from .. import dask as _emdask
    _emdask.register()


def _detected():
    """The active distributed client, if this process has one and is not
    itself a Dask worker running a task; None without an import: a program
    that never imported distributed has no client."""
    dist = sys.modules.get("distributed")
    if dist is None:
        return None
    try:
        dist.get_worker()
        return None  # inside a task: its chunks stay on this worker
    except (ValueError, AttributeError):
        pass
    try:
        client = dist.default_client()
    except (ValueError, AttributeError):
        return None
    if getattr(client, "status", "running") not in ("running", "newly-created"):
        return None
    _register()
    return client


def client():
    """The client auto arrays go to now: use_cluster's, else a detected one."""
    c = _state["client"]
    if c is False:
        return None
    return c if c is not None else _detected()


def active():
    return client() is not None


def _chunks(shape, itemsize):
    """Chunks along the first axis: the array split over the workers, at most
    256 MiB (or chunk_bytes) a chunk."""
    try:
        workers = max(len(client().scheduler_info()["workers"]), 1)
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
    if obj.nbytes < (_state["threshold"] if _state["threshold"] is not None
                     else DEFAULT_THRESHOLD):
        return None
    import dask.array as da
    import ember as em
    x = da.from_array(obj, chunks=_chunks(obj.shape, obj.itemsize))
    return x.map_blocks(_to_ember, dtype=obj.dtype, meta=em.empty((0,) * obj.ndim, dtype=obj.dtype))
