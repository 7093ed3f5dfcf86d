"""Pickling: values, dtype, shape and device travel; processes exchange arrays."""
import concurrent.futures
import multiprocessing
import os
import pickle

import numpy as np
import pytest

import ember as em
from helpers import ALL_DTYPES, assert_same, layouts, to_em

pytestmark = pytest.mark.usefixtures("cpu_unless_device_param")


@pytest.fixture(autouse=True)
def _default_policy(monkeypatch):
    monkeypatch.delenv("EMBER_UNPICKLE_DEVICE", raising=False)
    em.set_unpickle_device(None)
    yield
    em.set_unpickle_device(None)


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=str)
@pytest.mark.parametrize("protocol", [2, 4, 5])
def test_round_trip_values_and_layouts(device, rng, dtype, protocol):
    for name, a in layouts(rng, (3, 4), dtype):
        x = to_em(a)
        y = pickle.loads(pickle.dumps(x, protocol=protocol))
        assert isinstance(y, em.ndarray), name
        assert y.device == x.device, name
        assert y.flags.writeable and y.flags.c_contiguous, name
        assert_same(y, a)
        if x.size:
            assert y._ptr != x._ptr, name  # its own memory


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=str)
def test_out_of_band_buffers(rng, dtype):
    for name, a in layouts(rng, (3, 4), dtype):
        x = to_em(a)
        buffers = []
        data = pickle.dumps(x, protocol=5, buffer_callback=buffers.append)
        assert len(buffers) == 1 and len(data) < 200, name  # the values travel out of band
        host = bytearray(buffers[0].raw())  # as a transport hands them over: writable
        y = pickle.loads(data, buffers=[host])
        np.testing.assert_array_equal(y.get(), a, err_msg=name)
        if y.size:
            assert y._ptr == np.frombuffer(host, dtype=np.uint8).ctypes.data, name  # no copy


def test_unpickle_device_policy(monkeypatch):
    x = em.arange(4.0)
    assert em.get_unpickle_device() is None
    em.set_unpickle_device("cpu")
    assert em.get_unpickle_device() == "cpu"
    assert pickle.loads(pickle.dumps(x)).device == em.Device("cpu")
    em.set_unpickle_device("current")
    assert pickle.loads(pickle.dumps(x)).device == em.get_device()
    em.set_unpickle_device(None)
    monkeypatch.setenv("EMBER_UNPICKLE_DEVICE", "cpu")
    assert em.get_unpickle_device() == "cpu"
    with pytest.raises(ValueError, match="unknown device 'tpu:0'"):
        em.set_unpickle_device("tpu:0")
    assert em.get_unpickle_device() == "cpu"  # the bad call changed nothing


class _CudaPickle:
    """What a CUDA array's pickle holds, made without a GPU."""
    def __reduce__(self):
        return (em._interop._reconstruct, (np.arange(3.0).tobytes(), "float64", (3,), "cuda"))


def test_cuda_array_unpickles_on_cuda_or_cpu():
    y = pickle.loads(pickle.dumps(_CudaPickle()))
    want = "cuda" if em.cuda.is_available() else "cpu"
    assert y.device.kind == want
    assert_same(y, np.arange(3.0))
    em.set_unpickle_device("cpu")
    assert pickle.loads(pickle.dumps(_CudaPickle())).device == em.Device("cpu")


# ---- across processes -------------------------------------------------------------

def _work(x):
    """Runs in a worker: gets an ember array, returns one."""
    assert isinstance(x, em.ndarray)
    return x * 2 + 1


def _inputs():
    rng = np.random.default_rng(7)
    return [em.asarray(rng.standard_normal((5, 3))),
            em.arange(6, dtype=em.int32).reshape(2, 3)[:, ::-1],
            em.zeros((0, 2)), em.asarray(np.float32(2.5))]


def _check(results, inputs):
    assert len(results) == len(inputs)
    for r, x in zip(results, inputs):
        assert isinstance(r, em.ndarray)
        assert_same(r, x.get() * 2 + 1)


def _env_with_ember():
    """Spawned children must import ember from the same place."""
    src = os.path.dirname(os.path.dirname(em.__file__))
    paths = os.environ.get("PYTHONPATH", "")
    return src if not paths else src + os.pathsep + paths


@pytest.mark.parametrize("method", ["spawn", "fork"])
def test_multiprocessing_pool_map(method, monkeypatch):
    if method not in multiprocessing.get_all_start_methods():
        pytest.skip(f"no {method} start method here")
    if method == "fork" and em.cuda.is_available():
        # As with CuPy and PyTorch, a forked child cannot use the CUDA driver its
        # parent initialised: use spawn (tested above) on GPU machines.
        pytest.skip("fork after CUDA initialisation is not supported by the driver")
    monkeypatch.setenv("PYTHONPATH", _env_with_ember())
    ctx = multiprocessing.get_context(method)
    inputs = _inputs()
    with ctx.Pool(2) as pool:
        _check(pool.map(_work, inputs), inputs)


def test_process_pool_executor(monkeypatch):
    monkeypatch.setenv("PYTHONPATH", _env_with_ember())
    inputs = _inputs()
    ctx = multiprocessing.get_context("spawn")
    with concurrent.futures.ProcessPoolExecutor(max_workers=2, mp_context=ctx) as ex:
        _check(list(ex.map(_work, inputs)), inputs)


def test_joblib_parallel(monkeypatch):
    joblib = pytest.importorskip("joblib")
    monkeypatch.setenv("PYTHONPATH", _env_with_ember())
    inputs = _inputs()
    results = joblib.Parallel(n_jobs=2)(joblib.delayed(_work)(x) for x in inputs)
    _check(results, inputs)


def test_copy_module(device):
    import copy
    x = em.arange(6.0).reshape(2, 3)[:, ::2]
    for y in (copy.copy(x), copy.deepcopy(x)):
        assert y.device == x.device and y._ptr != x._ptr
        assert_same(y, x.get())
