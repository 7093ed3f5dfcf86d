"""Shared fixtures: the device parameter (CPU always, CUDA and OpenCL when available)
and NumPy-oracle helpers (see helpers.py)."""
import os

import numpy as np
import pytest

import ember as em


def _devices():
    devs = ["cpu"]
    if em.cuda.is_available():
        devs.append("cuda:0")
    if em.opencl.is_available():
        devs.append("opencl:0")
    only = os.environ.get("EMBER_TEST_DEVICES")
    return only.split(",") if only else devs


# The modules whose `device` tests run on opencl:0 (PoCL's CPU device in CI).
# Every kernel costs PoCL about a second to build the first time, so a
# module joins when it passes there and its kernels are few;
# EMBER_TEST_OPENCL=all runs every module not in _OPENCL_SKIP.
# Joined with issue 16's runtime work: matmul (test_linalg), random,
# ElementwiseKernel (test_expr_kernels), scans with the dtype subset below.
# With @em.jit lowered to OpenCL C: the jit tests and DLPack.
# Then (issue 16's last items) indexing and statistics, with the
# dtype subsets below.  Cold, each module costs CI's opencl:0 run the CPU
# seconds of its PoCL builds (docs/opencl.md: "Tests"); Ember's disk cache
# and PoCL's own kernel cache (~/.cache/pocl) make the ASan pass's rerun
# and later runs on one machine cheap.
_OPENCL_MODULES = {"test_core_array", "test_linalg", "test_random", "test_expr_kernels",
                   "test_scans", "test_jit", "test_jit_launch", "test_jit_functions",
                   "test_dlpack", "test_indexing", "test_statistics"}
# Issue 16's last round: reductions (warp units, fused producers) and
# fusion, each with a dtype subset below (test_sorting: _OPENCL_SKIP).
_OPENCL_MODULES |= {"test_reductions", "test_fusion"}
# Modules whose every-dtype parametrisations (a `dtype` or `dt` parameter)
# run on opencl:0 with a subset of dtypes only (each dtype is another PoCL
# build of every kernel the test makes); EMBER_TEST_OPENCL=all runs every
# dtype.
_OPENCL_FEW_DTYPES = {"bool", "int8", "int64", "float16", "float32", "complex128"}
_OPENCL_DTYPE_SUBSET = {
    "test_scans": _OPENCL_FEW_DTYPES, "test_linalg": _OPENCL_FEW_DTYPES,
    # ~83 tests with 4 dtypes, about 11 CPU seconds of PoCL builds each (every
    # layout, axis and keepdims is another plan): float32 alone in CI.
    "test_reductions": {"float32"},
    "test_statistics": {"int16", "float32", "complex128"},
    "test_fusion": {"bool", "int32", "float32", "complex64"},
}
# Single tests whose dtype parametrisation is cut the same way.
_OPENCL_TEST_DTYPES = {
    # a ReductionKernel per dtype and layout: each about a second of PoCL
    "test_integer_sum_layouts": {"int8", "uint32", "int64", "bool"},
}
# The data-frame modules (issue 17) on opencl:0, with their parametrisations
# cut to the values below: a frame test makes dozens of kernels (each column
# dtype, each aggregation, the sort and the join), so one row count (200: not
# an edge case, which the CPU covers) and fewer repeats of the same kernels
# keep PoCL's builds to a few minutes in CI; EMBER_TEST_OPENCL=all runs all.
_OPENCL_FRAME_MODULES = {"test_frame_core", "test_frame_groupby", "test_frame_merge",
                         "test_frame_strings", "test_frame_io", "test_frame_dask"}
_OPENCL_FRAME_MODULES |= {"test_frame_filter"}  # frame (issue 17): the string gather kernels
_OPENCL_MODULES |= _OPENCL_FRAME_MODULES
_OPENCL_PARAM_SUBSET = {
    "test_frame_core": {"n": [200], "op": ["add", "truediv"]},
    "test_frame_groupby": {"n": [200], "keys": ["k1", ["k2", "b"]], "spread": [10, 10 ** 9]},
    "test_frame_merge": {"nl": [40], "how": ["inner", "left", "outer"]},
    "test_frame_strings": {"pat": ["a", "", "é", "abcdefghij"], "name": ["contains", "endswith"]},
}


def _opencl_param_cut(mod, params):
    """The reason to skip a frame test on opencl:0, or None (_OPENCL_PARAM_SUBSET)."""
    for name, keep in _OPENCL_PARAM_SUBSET.get(mod, {}).items():
        if name in params and params[name] not in keep:
            return (f"opencl: {name}={params[name]!r} runs on the CPU and CUDA only "
                    "(conftest._OPENCL_PARAM_SUBSET; EMBER_TEST_OPENCL=all runs it)")
    return None


# Why the others do not run there yet (what is left of issue 16).
_OPENCL_SKIP = {
    "test_sorting": "PoCL builds a sort's kernels in about 5 CPU seconds each (270 KB binaries), "
                    "9 of them for the first test's bool layouts alone: over CI's budget",
    "test_fft": "the FFT runs on the host through reductions and gathers",
    "test_kernel_faults": "CUDA-specific fault reporting",
}


@pytest.fixture(params=_devices())
def device(request):
    """Each test that takes `device` runs once per available device, with it current."""
    if request.param.startswith("opencl"):
        mod = request.module.__name__.rpartition(".")[2]
        if mod in _OPENCL_SKIP:
            pytest.skip(f"opencl: {_OPENCL_SKIP[mod]}")
        explicit = os.environ.get("EMBER_TEST_DEVICES") or os.environ.get("EMBER_TEST_OPENCL")
        if mod not in _OPENCL_MODULES and not explicit:
            pytest.skip("opencl: not in conftest._OPENCL_MODULES (not yet run on OpenCL in CI; "
                        "EMBER_TEST_OPENCL=all runs it)")
        cs = getattr(request.node, "callspec", None)
        dt = cs.params.get("dtype", cs.params.get("dt")) if cs else None
        few = _OPENCL_TEST_DTYPES.get(request.node.originalname, _OPENCL_DTYPE_SUBSET.get(mod))
        if few is not None and not explicit and dt is not None and np.dtype(dt).name not in few:
            pytest.skip("opencl: a subset of dtypes in CI (conftest._OPENCL_DTYPE_SUBSET; "
                        "EMBER_TEST_OPENCL=all runs every dtype)")
        why = None if explicit else _opencl_param_cut(mod, cs.params if cs else {})
        if why:
            pytest.skip(why)
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
