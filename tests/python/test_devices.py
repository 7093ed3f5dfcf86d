"""Devices: construction, absent devices, the current device (nesting, per
thread), properties, and the EMBER_DEVICE override."""
import os
import subprocess
import sys
import threading

import pytest

import ember as em
from ember import _ember

ABSENT = ["cuda:99", "opencl:99", 99]


def test_cpu_device():
    d = em.Device("cpu")
    assert (d.kind, d.id, str(d)) == ("cpu", 0, "cpu")
    assert repr(d) == "<ember.Device cpu>"
    assert d == em.Device("cpu") == em.Device(d) and hash(d) == hash(em.Device("cpu"))
    assert d != "cpu"
    assert em.devices()[0] == d


@pytest.mark.parametrize("spec", ABSENT, ids=str)
def test_absent_device_raises_device_error(spec):
    name = spec if isinstance(spec, str) else f"cuda:{spec}"
    with pytest.raises(em.DeviceError, match=f"no device {name}"):
        em.Device(spec)
    with pytest.raises(em.DeviceError, match=f"no device {name}"):
        em.zeros(3, device=name)
    assert issubclass(em.DeviceError, em.EmberError)
    assert em.zeros(2).tolist() == [0.0, 0.0]  # still working


def test_cuda0_when_absent():
    if em.cuda.is_available():
        assert em.Device("cuda:0").kind == "cuda"
        return
    with pytest.raises(em.DeviceError, match="no device cuda:0 \\(0 cuda devices available"):
        em.Device("cuda:0")
    with pytest.raises(em.DeviceError, match="cuda:0"):
        em.Device(0)
    with pytest.raises(em.DeviceError, match="cuda:0"):
        em.cuda.select_device(0)


@pytest.mark.parametrize("spec", ["tpu", "cuda:x", "cuda:-1", "", 1.5, (0,)],
                         ids=str)
def test_malformed_device_spec(spec):
    with pytest.raises(ValueError, match="unknown device .*expected 'cpu', 'cuda\\[:N\\]'"):
        em.Device(spec)


def test_int_device_argument_means_cuda_n():
    """device=N in a creation function is cuda:N, as em.Device(N) (not the string 'N')."""
    if em.cuda.is_available():
        assert em.zeros(2, device=0).device == em.Device(0)
    else:
        with pytest.raises(em.DeviceError, match="no device cuda:0"):
            em.zeros(2, device=0)
    with pytest.raises(em.DeviceError, match="no device cuda:99"):
        em.asarray([1.0], device=99)
    with pytest.raises(em.DeviceError, match="unknown device 'True'"):
        em.zeros(2, device=True)  # a bool is not a device number
    assert em.zeros(2).tolist() == [0.0, 0.0]  # still working


def test_devices_and_cuda_namespace():
    devs = em.devices()
    assert all(isinstance(d, em.Device) for d in devs)
    assert len(devs) == 1 + em.cuda.device_count() + _ember.device_count("opencl")
    assert em.cuda.is_available() == (em.cuda.device_count() > 0)
    assert [d for d in devs if d.kind == "cuda"] == [em.Device(f"cuda:{i}") for i in
                                                      range(em.cuda.device_count())]
    with pytest.raises(ValueError, match="unknown device kind 'tpu'"):
        _ember.device_count("tpu")


def test_with_device_nests_and_restores():
    start = em.get_device()
    cpu = em.Device("cpu")
    with cpu as d:
        assert d is cpu and em.get_device() == cpu
        with em.Device("cpu"):
            with cpu:  # the same object re-entered
                assert em.get_device() == cpu
            assert em.get_device() == cpu
        assert em.zeros(1).device == cpu
    assert em.get_device() == start
    with pytest.raises(RuntimeError, match="boom"):
        with cpu:
            raise RuntimeError("boom")
    assert em.get_device() == start
    with pytest.raises(em.DeviceError):
        with em.Device("cuda:99"):
            pass  # never entered
    assert em.get_device() == start


def test_current_device_is_per_thread():
    devs = em.devices()
    main_before = em.get_device()
    seen = {}

    def worker(dev):
        seen["initial"] = em.get_device()
        with dev:
            seen["inside"] = em.get_device()
            seen["array"] = em.zeros(1).device
        seen["after"] = em.get_device()

    other = devs[-1]  # a GPU where there is one; the CPU otherwise
    with em.Device("cpu"):
        t = threading.Thread(target=worker, args=(other,))
        t.start()
        t.join(60)
        assert em.get_device() == em.Device("cpu")  # the thread did not move us
    assert seen["inside"] == other == seen["array"]
    assert seen["after"] == seen["initial"]
    assert em.get_device() == main_before


@pytest.mark.parametrize("dev", [d for d in em.devices()], ids=str)
def test_device_properties(dev):
    assert isinstance(dev.name, str) and dev.name
    assert dev.multiprocessor_count >= 1
    assert dev.total_memory > 0
    free, total = dev.mem_info()
    assert 0 <= free <= total and total == dev.total_memory
    assert dev.max_threads_per_block >= 1
    assert len(dev.max_block_dim) == 3 and len(dev.max_grid_dim) == 3
    assert dev.shared_memory_per_block > 0
    assert isinstance(dev.compute_capability, str)
    assert set(dev.attributes) >= {"name", "total_memory", "multiprocessor_count"}
    dev.synchronize()
    if dev.kind == "cpu":
        assert dev.multiprocessor_count == _ember.num_threads()
        assert dev.compute_capability == "00"
    em.synchronize()


def test_array_device(device):
    x = em.zeros(3)
    assert x.device == device
    y = em.ones(2, device="cpu")
    assert y.device == em.Device("cpu")
    assert y.to_device("cpu").tolist() == [1.0, 1.0]


def _run(code, env_extra):
    env = dict(os.environ, **env_extra)
    env["PYTHONPATH"] = os.pathsep.join(sys.path)
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          env=env, timeout=120)


def test_ember_device_env_cpu():
    r = _run("import ember as em; print(em.get_device(), em.zeros(2).device)",
             {"EMBER_DEVICE": "cpu"})
    assert r.returncode == 0, r.stderr
    assert r.stdout.split() == ["cpu", "cpu"]


def test_ember_device_env_absent_device_names_it():
    r = _run("import ember", {"EMBER_DEVICE": "opencl:99"})
    assert r.returncode != 0
    assert "DeviceError" in r.stderr and "opencl:99" in r.stderr
    r = _run("import ember", {"EMBER_DEVICE": "tpu:0"})
    assert r.returncode != 0 and "unknown device 'tpu:0'" in r.stderr
