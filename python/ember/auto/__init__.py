"""``device="auto"``: Ember decides where each operation runs (docs/auto.md).

Arrays made with ``device="auto"`` (or while ``em.Device("auto")`` is
current, ``em.set_default_device("auto")``, ``EMBER_DEVICE=auto``) are auto
arrays: each elementwise evaluation, reduction, scan, matmul and sort on
them runs on the device where a measured cost model predicts it finishes
first, moves of the inputs included; the data then stays there until a
move pays for itself.  An array on a fixed device is respected.

- ``calibrate()`` measures the devices again and caches the numbers;
- ``model()`` / ``set_model(m)``: the cost model in use (tests inject one);
- ``explain(x)`` / ``explain(fn, *args)``: the predicted times behind a
  placement, or the placements a call makes (``EMBER_DEBUG=1`` prints each);
- ``use_cluster(client)``: auto arrays above a size become Dask arrays of
  Ember chunks on the client's workers (an active ``dask.distributed``
  client is picked up without it).
"""
from .. import _ember
from . import _cluster, _marks, _model, _place, _stream
from ._model import DeviceCost, Model
from ._place import Placement, model, set_model

# The extension's one way in: place() for every operation on auto arrays,
# _stream.whole() first for reductions (out of core),
# _place.place_chain when a pending auto chain is evaluated.
_ember._auto_set_hook(_place.place, _stream.whole, _place.place_chain)
_ember._auto_config(len(_place.candidates()) == 1 and _place._DEBUG <= 0, 0, 0, 0)
_marks.install()  # results of ember's Python functions on auto arrays are auto

__all__ = ["calibrate", "explain", "model", "set_model", "use_cluster", "Model", "DeviceCost",
           "Placement"]


def calibrate(devices=None):
    """Measure every candidate device (the CPU and each CUDA device; or the
    names given) now, cache the numbers on disk and use them; returns the
    Model (``model.seconds``: how long measuring took)."""
    m = _model.calibrate(list(devices) if devices else None)
    set_model(m)
    return m


def explain(what, *args, **kwargs):
    """Why work runs where it does.

    ``explain(x)`` for an ember array: the Placement an elementwise pass
    over x would get now (x is not evaluated or moved).  ``explain(fn,
    *args, **kwargs)``: calls fn and returns ``(result, placements)``, every
    Placement made on auto arrays during the call, in order.  A Placement's
    ``predicted`` maps each candidate device to its predicted seconds,
    moves included, and ``chosen`` is where the work went."""
    from .. import _ember
    if not isinstance(what, _ember.ndarray) and not callable(what):
        raise TypeError(f"explain takes an ember array or a callable, not {type(what).__name__}")
    rec = []
    _place._local.recorders = (getattr(_place._local, "recorders", None) or []) + [rec]
    with _place._lock:
        _place._state["explaining"] += 1
    _place._configure()  # every decision goes through the policy while recorded
    try:
        if isinstance(what, _ember.ndarray):
            return _place.decide("elementwise", (what,))
        result = what(*args, **kwargs)
    finally:
        _place._local.recorders = [r for r in _place._local.recorders if r is not rec]
        with _place._lock:
            _place._state["explaining"] -= 1
        _place._state["configured"] = False
    return result, rec


def use_cluster(client, threshold=_cluster.DEFAULT_THRESHOLD, chunk_bytes=None):
    """From now on, auto arrays made from host data of at least ``threshold``
    bytes (default 1 GiB) are ``dask.array`` arrays of Ember chunks, made and
    computed on ``client``'s workers (``em.dask.cluster()`` starts one worker
    per GPU).  ``client=None`` (the initial state) picks up an active
    ``dask.distributed`` client by itself (``distributed.default_client()``,
    looked for only once ``distributed`` has been imported), with this
    threshold; ``client=False`` turns both off.  ``chunk_bytes`` sizes the
    chunks (default: the array split over the workers, at most 256 MiB each)."""
    _cluster.use_cluster(client, threshold, chunk_bytes)
