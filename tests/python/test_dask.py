"""Ember chunks in dask.array, on the threaded scheduler and on a real
distributed.LocalCluster; NumPy is the oracle."""
import os
import subprocess
import sys

import numpy as np
import pytest

import ember as em
from helpers import assert_same

dask = pytest.importorskip("dask")
da = pytest.importorskip("dask.array")

TALL = (120, 6)  # tall and skinny: da.linalg.svd's TSQR needs one column chunk


def _data(seed=0):
    return np.random.default_rng(seed).standard_normal(TALL)


def _ember_chunks(a, how):
    if how == "from_array":
        return da.from_array(em.asarray(a), chunks=(30, TALL[1]))
    return da.from_array(a, chunks=(30, TALL[1])).map_blocks(em.asarray)


def _computations(d, a):
    """(name, dask collection, numpy result) triples."""
    return [
        ("elementwise", da.exp(d) * 2 - d / 3, np.exp(a) * 2 - a / 3),
        ("ufunc", np.sqrt(abs(d)) + 1, np.sqrt(abs(a)) + 1),
        ("sum", d.sum(axis=0), a.sum(axis=0)),
        ("mean", d.mean(), np.asarray(a.mean())),
        ("std", d.std(axis=1), a.std(axis=1)),
        ("max", d.max(axis=0), a.max(axis=0)),
        ("matmul", d.T @ d, a.T @ a),
        ("tensordot", da.tensordot(d, d, axes=([0], [0])), np.tensordot(a, a, axes=([0], [0]))),
        ("einsum", da.einsum("ij,ij->j", d, d), np.einsum("ij,ij->j", a, a)),
        ("concatenate", da.concatenate([d, d], axis=0)[::7], np.concatenate([a, a])[::7]),
        ("take", d[[3, 100, 7]], a[[3, 100, 7]]),
        ("cumsum", da.cumsum(d, axis=0), np.cumsum(a, axis=0)),
        ("argmax", d.argmax(), np.asarray(a.argmax())),
        ("argmin", d.argmin(axis=0), a.argmin(axis=0)),
        ("full_like", da.full_like(d, 3.5), np.full_like(a, 3.5)),
        ("where", da.where(d > 0, d, 0), np.where(a > 0, a, 0)),
    ]


def _check(name, got, want):
    assert isinstance(got, em.ndarray), f"{name}: chunks came back as {type(got)}"
    assert_same(got, want, rtol=1e-10, atol=1e-12)


def _check_svd(u, s, v, a):
    for x in (u, s, v):
        assert isinstance(x, em.ndarray)
    np.testing.assert_allclose(s.get(), np.linalg.svd(a, compute_uv=False), rtol=1e-10)
    np.testing.assert_allclose((u.get() * s.get()) @ v.get(), a, atol=1e-10)
    np.testing.assert_allclose(u.get().T @ u.get(), np.eye(TALL[1]), atol=1e-10)


@pytest.mark.parametrize("how", ["from_array", "map_blocks"])
def test_threaded_scheduler(how):
    a = _data()
    d = _ember_chunks(a, how)
    assert d._meta.__class__ is em.ndarray
    with dask.config.set(scheduler="threads"):
        names, colls, wants = zip(*_computations(d, a))
        for name, got, want in zip(names, dask.compute(*colls), wants):
            _check(name, got, want)
        _check_svd(*dask.compute(*da.linalg.svd(d)), a)


def test_percentile_is_not_supported_yet():
    d = _ember_chunks(_data(), "from_array")
    with pytest.raises(TypeError, match="No dispatch for <class .ember.ndarray.>"):
        da.percentile(d[:, 0], [50]).compute(scheduler="sync")


def test_registration():
    from dask.array.chunk_types import is_valid_chunk_type
    from dask.base import tokenize
    from dask.sizeof import sizeof
    x = em.arange(12.0).reshape(3, 4)
    assert is_valid_chunk_type(em.ndarray)
    assert sizeof(x) == 96
    assert tokenize(x) == tokenize(em.arange(12.0).reshape(3, 4))  # by value
    assert tokenize(x) != tokenize(x + 1) != tokenize(x.astype(em.float32))
    assert tokenize(x) != tokenize(x.reshape(4, 3))
    from dask.array.dispatch import concatenate_lookup, tensordot_lookup
    assert concatenate_lookup.dispatch(em.ndarray) is em.concatenate
    assert tensordot_lookup.dispatch(em.ndarray) is em.tensordot


def test_backend_entry_point_target():
    """pyproject.toml's dask.array.backends entry point names this class."""
    import importlib
    from dask.array.backends import ArrayBackendEntrypoint
    tomllib = pytest.importorskip("tomllib")  # Python 3.11+
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    with open(os.path.join(root, "pyproject.toml"), "rb") as f:
        target = tomllib.load(f)["project"]["entry-points"]["dask.array.backends"]["ember"]
    module, _, name = target.partition(":")
    cls = getattr(importlib.import_module(module), name)
    assert issubclass(cls, ArrayBackendEntrypoint)
    assert cls().ones((2, 2), chunks=1)._meta.__class__ is em.ndarray


def test_array_backend():
    with dask.config.set({"array.backend": "ember"}):
        cases = [(da.ones((5, 4), chunks=2), np.ones((5, 4))),
                 (da.zeros((3,), chunks=2, dtype=np.int32), np.zeros(3, np.int32)),
                 (da.full((2, 3), 7.5, chunks=2), np.full((2, 3), 7.5)),
                 (da.arange(10, chunks=3), np.arange(10))]
        for got, want in cases:
            assert got._meta.__class__ is em.ndarray
            _check("creation", got.compute(scheduler="threads"), want)
        r = da.random.random((6, 4), chunks=3)
        assert isinstance(r.compute(scheduler="threads"), em.ndarray)
        st = da.random.RandomState(42).normal(size=(6,), chunks=3).compute(scheduler="threads")
    # The backend draws NumPy's streams: the same seed gives NumPy-backend values.
    ref = da.random.RandomState(42).normal(size=(6,), chunks=3).compute(scheduler="threads")
    _check("random", st, ref)
    with dask.config.set({"array.backend": "ember"}):
        with pytest.raises(NotImplementedError, match="not Generator"):
            da.random.default_rng(0)


def _run_python(code):
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in sys.path if p))
    r = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                       timeout=120)
    assert r.returncode == 0, r.stderr
    return r.stdout.strip()


def test_import_is_lazy_and_order_free():
    out = _run_python(
        "import sys, ember as em\n"
        "print('dask' in sys.modules)\n"
        "import dask.array as da\n"
        "from dask.array.chunk_types import is_valid_chunk_type\n"
        "print(is_valid_chunk_type(em.ndarray))\n"
        "print(type(da.ones(3, chunks=2).map_blocks(em.asarray).sum().compute()).__name__)\n")
    assert out.split() == ["False", "True", "ndarray"]
    out = _run_python(
        "import dask.array as da, distributed\n"
        "import ember as em\n"
        "from dask.array.chunk_types import is_valid_chunk_type\n"
        "from distributed.protocol import serialize, deserialize\n"
        "x = em.arange(5.0)\n"
        "h, f = serialize(x, serializers=['dask'])\n"
        "print(is_valid_chunk_type(em.ndarray), h['serializer'], deserialize(h, f).tolist())\n")
    assert out == "True dask [0.0, 1.0, 2.0, 3.0, 4.0]"


# ---- distributed -------------------------------------------------------------------

distributed = pytest.importorskip("distributed")


@pytest.fixture(scope="module")
def client():
    with distributed.LocalCluster(n_workers=2, processes=True, threads_per_worker=1,
                                  host="127.0.0.1", dashboard_address=":0") as cluster, \
            distributed.Client(cluster) as c:
        yield c


def test_distributed_serializers(client):
    from distributed.protocol import deserialize, serialize
    for x in (em.arange(12.0).reshape(3, 4)[:, ::-2], em.zeros((0, 3), dtype=em.int8),
              em.asarray(np.complex64(1 + 2j))):
        h, frames = serialize(x, serializers=["dask"])
        assert h["serializer"] == "dask"
        _check("serialize", deserialize(h, frames), x.get())
    fut = client.scatter(em.arange(6, dtype=em.int16))
    _check("scatter", fut.result(), np.arange(6, dtype=np.int16))


def test_local_cluster(client):
    a = _data(1)
    d = _ember_chunks(a, "from_array")
    colls = _computations(d, a)
    results = client.compute([c for _, c, _ in colls], sync=True)
    for (name, _, want), got in zip(colls, results):
        _check(name, got, want)
    _check_svd(*client.compute(list(da.linalg.svd(d)), sync=True), a)
    # Plain LocalCluster workers inherit EMBER_DEVICE, hence this process's device kind.
    kinds = client.run(lambda: __import__("ember").get_device().kind)
    assert sorted(kinds.values()) == [em.get_device().kind] * 2


def test_cluster_helper_cpu_layout():
    if em.cuda.is_available():
        pytest.skip("checks the CPU-only layout")
    with em.dask.cluster(n_workers=2, host="127.0.0.1", dashboard_address=":0") as cluster, \
            distributed.Client(cluster) as c:
        envs = c.run(lambda: (os.environ.get("EMBER_NUM_THREADS"), os.environ.get("EMBER_DEVICE")))
        assert sorted(envs.values()) == [("1", "cpu"), ("1", "cpu")]
        assert all(w["nthreads"] == 1 for w in c.scheduler_info()["workers"].values())
        r = c.compute(da.from_array(em.arange(10.0), chunks=3).sum(), sync=True)
        _check("helper", r, np.asarray(45.0))
    with pytest.raises(ValueError, match="needs worker processes"):
        em.dask.cluster(n_workers=1, processes=False)


def test_cluster_layout_one_worker_per_gpu(monkeypatch):
    monkeypatch.setattr(em.cuda, "is_available", lambda: True)
    monkeypatch.setattr(em.cuda, "device_count", lambda: 3)
    n, threads, envs = em.dask._worker_layout(None)
    assert (n, threads) == (3, 1)
    assert envs == [{"CUDA_VISIBLE_DEVICES": str(i), "EMBER_DEVICE": "cuda:0"} for i in range(3)]


@pytest.mark.skipif(not em.cuda.is_available(), reason="needs a CUDA device")
def test_cluster_helper_gpu_layout():
    # One worker per GPU, each seeing only its own as cuda:0; chunks made on
    # the workers stay on their GPU and the result matches NumPy.
    n = em.cuda.device_count()
    with em.dask.cluster(host="127.0.0.1", dashboard_address=":0") as cluster, \
            distributed.Client(cluster) as c:
        seen = c.run(lambda: (os.environ.get("CUDA_VISIBLE_DEVICES"), str(__import__("ember").get_device())))
        assert sorted(seen.values()) == [(str(i), "cuda:0") for i in range(n)]
        a = _data(2)
        d = da.from_array(a, chunks=(30, TALL[1])).map_blocks(em.asarray)
        _check("gpu sum", c.compute((d * 2).sum(axis=0), sync=True), (a * 2).sum(axis=0))
