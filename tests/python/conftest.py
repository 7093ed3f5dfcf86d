"""Shared fixtures: the device parameter (CPU always, CUDA when available)
and NumPy-oracle helpers (see helpers.py)."""
import os

import numpy as np
import pytest

import ember as em


def _devices():
    devs = ["cpu"]
    if em.cuda.is_available():
        devs.append("cuda:0")
    only = os.environ.get("EMBER_TEST_DEVICES")
    return only.split(",") if only else devs


@pytest.fixture(params=_devices())
def device(request):
    """Each test that takes `device` runs once per available device, with it current."""
    with em.Device(request.param) as d:
        yield d


@pytest.fixture
def rng():
    return np.random.default_rng(12345)


@pytest.fixture
def cpu_unless_device_param(request):
    """For modules about host memory (`pytestmark = usefixtures(...)`): tests
    without the `device` parameter run on the CPU even where the default
    device is a GPU (EMBER_DEVICE=cuda:0)."""
    if "device" in request.fixturenames:
        yield
        return
    with em.Device("cpu"):
        yield


@pytest.fixture(scope="session")
def fake_lib(tmp_path_factory):
    """The fake CUDA driver (tests/c/fake_libcuda.c) built once per session,
    for subprocesses that load it through EMBER_LIBCUDA."""
    import shutil
    import subprocess
    cc = shutil.which("cc") or shutil.which("gcc")
    if not cc:
        pytest.skip("no C compiler to build the fake driver")
    out = tmp_path_factory.mktemp("fakecuda") / "libfakecuda.so"
    src = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "c", "fake_libcuda.c")
    subprocess.run([cc, "-shared", "-fPIC", "-O1", "-o", str(out), src], check=True)
    return str(out)
