"""Ember on Dask: Ember arrays as ``dask.array`` chunks, and a local cluster
with one worker per GPU.

Importing Ember never imports Dask.  Registration happens in pieces, each
when the Dask module it extends is imported (before or after Ember):

- ``dask``: ``sizeof`` and ``normalize_token`` (tokenize hashes the values);
- ``dask.array``: the chunk type and the dispatch tables (concatenate, take,
  tensordot, einsum, empty, divide, numel, to_numpy) and the
  ``"ember"`` array backend, so ``dask.config.set({"array.backend": "ember"})``
  makes ``da.ones``, ``da.random`` ... produce Ember chunks;
- ``dask.dataframe``: the ``"ember"`` DataFrame backend (``ember.frame.dask``:
  partitions are Ember frames);
- ``distributed``: ``dask_serialize`` / ``dask_deserialize`` (host frames).

An installed Ember also advertises the backend through the
``dask.array.backends`` entry point (``pyproject.toml``).

Mirrors how Dask registers CuPy (``dask/array/backends.py``).
"""
import os
import sys
import warnings

import numpy as np

from . import _ember

__all__ = ["cluster", "register"]

ndarray = _ember.ndarray


def _em():
    import ember
    return ember


# ---- registration, one function per Dask module ------------------------------

def _register_dask():
    from dask.sizeof import sizeof
    from dask.base import normalize_token
    from dask.hashing import hash_buffer_hex

    sizeof.register(ndarray)(lambda x: int(x.nbytes))

    @normalize_token.register(ndarray)
    def _token(x):
        host = np.ascontiguousarray(x.get() if x._dev[0] != "cpu" else np.asarray(x))
        data = hash_buffer_hex(host.view(np.uint8).reshape(-1)) if host.size else ""
        return ("ember.ndarray", x.dtype.str, x.shape, x._dev, data)


def _einsum(*args, **kwargs):
    kwargs.pop("casting", None)  # Ember computes in the promoted dtype, C order
    kwargs.pop("order", None)
    return _em().einsum(*args, **kwargs)


def _register_dask_array():
    em = _em()
    from dask.array import chunk_types, dispatch

    if ndarray not in chunk_types._HANDLED_CHUNK_TYPES:
        chunk_types.register_chunk_type(ndarray)
    dispatch.concatenate_lookup.register(ndarray, em.concatenate)
    dispatch.take_lookup.register(ndarray, em.take)
    dispatch.tensordot_lookup.register(ndarray, em.tensordot)
    dispatch.einsum_lookup.register(ndarray, _einsum)
    dispatch.empty_lookup.register(ndarray, em.empty)
    dispatch.divide_lookup.register(ndarray, em.divide)
    # No percentile_lookup: Dask's merge step needs diff, argsort,
    # searchsorted and interp, which Ember lacks; da.percentile raises TypeError.
    dispatch.to_numpy_dispatch.register(ndarray, lambda data, **kw: data.get())
    try:  # numel helpers live in reductions in current Dask
        from dask.array.reductions import _nannumel, _numel_arraylike
        dispatch.numel_lookup.register(ndarray, _numel_arraylike)
        dispatch.nannumel_lookup.register(ndarray, _nannumel)
    except ImportError:
        pass
    from dask.array.backends import array_creation_dispatch
    array_creation_dispatch.register_backend("ember", __getattr__("EmberBackendEntrypoint")())


def _serialize(x):
    host = np.ascontiguousarray(x.get() if x._dev[0] != "cpu" else np.asarray(x))
    header = {"dtype": x.dtype.name, "shape": x.shape, "kind": x._dev[0]}
    return header, [memoryview(host.view(np.uint8).reshape(-1))]


def _deserialize(header, frames):
    from ._interop import _reconstruct
    data = frames[0] if len(frames) == 1 else b"".join(frames)
    return _reconstruct(data, header["dtype"], tuple(header["shape"]), header["kind"])


def _register_distributed():
    from distributed.protocol import dask_deserialize, dask_serialize
    dask_serialize.register(ndarray)(_serialize)
    dask_deserialize.register(ndarray)(_deserialize)


def _register_dask_dataframe():
    # the "ember" DataFrame backend: partitions are ember.frame DataFrames
    from .frame import dask as frame_dask
    frame_dask.register()


_REGISTRARS = {"dask": _register_dask, "dask.array": _register_dask_array,
               "dask.dataframe": _register_dask_dataframe,
               "distributed": _register_distributed}
_done = set()


def register(module=None):
    """Register Ember with the Dask modules already imported (or `module`).
    Called automatically; safe to call again."""
    for name, fn in _REGISTRARS.items():
        if name in _done or (module is None and name not in sys.modules) or \
                (module is not None and module != name):
            continue
        _done.add(name)
        try:
            fn()
        except Exception as exc:  # never break the user's Dask import
            warnings.warn(f"ember: could not register with {name}: {exc!r}", RuntimeWarning,
                          stacklevel=2)


class _AfterImport:
    """Runs register(name) right after a watched module finishes importing.
    (A meta path finder needs only find_spec; importlib.abc would add about
    13 ms to `import ember`.)"""

    def find_spec(self, name, path=None, target=None):
        if name not in _REGISTRARS or name in _done:
            return None
        for finder in sys.meta_path:
            if finder is self or not hasattr(finder, "find_spec"):
                continue
            spec = finder.find_spec(name, path, target)
            if spec is not None and spec.loader is not None:
                spec.loader = _Loader(spec.loader, name)
                return spec
        return None


class _Loader:
    """The module's own loader, plus the registration after exec_module.
    (A plain class: everything else, resource readers included, is the
    wrapped loader's.)"""

    def __init__(self, loader, name):
        self._loader, self._name = loader, name

    def create_module(self, spec):
        return self._loader.create_module(spec)

    def exec_module(self, module):
        self._loader.exec_module(module)
        register(self._name)

    def __getattr__(self, attr):
        return getattr(self._loader, attr)


def _install():
    register()
    hooked = any(isinstance(f, _AfterImport) for f in sys.meta_path)
    if len(_done) < len(_REGISTRARS) and not hooked:
        sys.meta_path.insert(0, _AfterImport())


# ---- the array backend ---------------------------------------------------------------

def _backend_base():
    try:
        from dask.array.backends import ArrayBackendEntrypoint
        return ArrayBackendEntrypoint
    except ImportError:  # no Dask: the entry point class is never used
        return object


class RandomState:
    """``numpy.random.RandomState`` whose results are Ember arrays (the
    draws are NumPy's, so a seed gives the same values as the NumPy backend)."""

    def __init__(self, seed=None):
        self._rs = np.random.RandomState(seed)

    def __getattr__(self, name):
        fn = getattr(self._rs, name)
        if not callable(fn):
            return fn

        def call(*args, **kwargs):
            r = fn(*args, **kwargs)
            return _em().asarray(r) if isinstance(r, np.ndarray) else r
        return call


def _with_ember_meta(attr, *args, meta=None, **kwargs):
    """Call the dask.array creation function with an Ember meta (as Dask's
    CuPy backend does): the chunks are then made by Ember."""
    import dask
    import dask.array as da
    meta = _em().empty(()) if meta is None else meta
    with dask.config.set({"array.backend": "numpy"}):
        return getattr(da, attr)(*args, meta=meta, **kwargs)


def _entrypoint_class():
    class EmberBackendEntrypoint(_backend_base()):
        """Dask array backend ``"ember"``: creation functions make Ember chunks."""

        @classmethod
        def to_backend_dispatch(cls):
            return _em().asarray

        @classmethod
        def to_backend(cls, data, **kwargs):
            if isinstance(data._meta, ndarray):
                return data
            return data.map_blocks(_em().asarray, **kwargs)

        @property
        def RandomState(self):
            return RandomState

        @property
        def default_bit_generator(self):
            raise NotImplementedError("the ember Dask backend supports da.random.RandomState "
                                      "and the legacy da.random functions, not Generator")

        @staticmethod
        def ones(*args, **kwargs):
            return _with_ember_meta("ones", *args, **kwargs)

        @staticmethod
        def zeros(*args, **kwargs):
            return _with_ember_meta("zeros", *args, **kwargs)

        @staticmethod
        def empty(*args, **kwargs):
            return _with_ember_meta("empty", *args, **kwargs)

        @staticmethod
        def full(*args, **kwargs):
            return _with_ember_meta("full", *args, **kwargs)

        @staticmethod
        def arange(*args, like=None, **kwargs):
            import dask
            import dask.array as da
            like = _em().empty(()) if like is None else like
            with dask.config.set({"array.backend": "numpy"}):
                return da.arange(*args, like=like, **kwargs)

    return EmberBackendEntrypoint


def __getattr__(name):
    # Built on first use so that the Dask base class is only imported then.
    if name == "EmberBackendEntrypoint":
        cls = _entrypoint_class()
        globals()[name] = cls
        return cls
    raise AttributeError(f"module 'ember.dask' has no attribute {name!r}")


# ---- a local cluster ---------------------------------------------------------------------

def _worker_layout(n_workers):
    """(n_workers, threads per worker, per-worker env list) for this machine."""
    em = _em()
    gpus = em.cuda.device_count() if em.cuda.is_available() else 0
    if gpus:
        n = gpus if n_workers is None else n_workers
        envs = [{"CUDA_VISIBLE_DEVICES": str(i % gpus), "EMBER_DEVICE": "cuda:0"}
                for i in range(n)]
        return n, 1, envs
    n = (os.cpu_count() or 1) if n_workers is None else n_workers
    return n, 1, [{"EMBER_NUM_THREADS": "1", "EMBER_DEVICE": "cpu"} for _ in range(n)]


def cluster(n_workers=None, **kwargs):
    """A ``distributed.LocalCluster`` laid out for Ember: one worker process
    per GPU (each sees only its GPU: ``CUDA_VISIBLE_DEVICES=i``,
    ``EMBER_DEVICE=cuda:0``), or on a CPU-only machine one single-threaded
    worker per core (``EMBER_NUM_THREADS=1``).  Extra keyword arguments go to
    ``LocalCluster`` (e.g. ``host="127.0.0.1"``, ``dashboard_address=None``).
    For example::

        with em.dask.cluster() as c, distributed.Client(c) as client:
            ...
    """
    from distributed import LocalCluster, Nanny

    n, threads, envs = _worker_layout(n_workers)
    if kwargs.pop("processes", True) is False:
        raise ValueError("ember.dask.cluster needs worker processes (each sets its own "
                         "device through its environment); got processes=False")
    kwargs.setdefault("threads_per_worker", threads)
    if "memory_limit" not in kwargs:  # LocalCluster divides by n_workers, which starts at 0
        from distributed.system import MEMORY_LIMIT
        kwargs["memory_limit"] = MEMORY_LIMIT // max(n, 1)

    class _EmberCluster(LocalCluster):
        def new_worker_spec(self):
            spec = super().new_worker_spec()
            (name, s), = spec.items()
            used = [w.get("options", {}).get("env") for w in self.worker_spec.values()]
            env = next((e for e in envs if e not in used), envs[len(used) % len(envs)])
            s = {**s, "options": {**s.get("options", {}), "env": dict(env)}}
            return {name: s}

    # LocalCluster's constructor gives every initial worker the same spec:
    # start empty and scale, so each worker goes through new_worker_spec.
    c = _EmberCluster(n_workers=0, processes=True, worker_class=Nanny, **kwargs)
    try:
        c.scale(n)
        c.wait_for_workers(n)
    except BaseException:
        c.close()
        raise
    return c


_install()
