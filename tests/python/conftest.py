"""Shared fixtures: the device parameter (CPU always, CUDA and OpenCL when available)
and NumPy-oracle helpers (see helpers.py)."""
import os
import zlib

import numpy as np
import pytest

import ember as em
from helpers import device_names




# Every module's `device` tests run on opencl:0 (PoCL's CPU device in CI)
# but those in _OPENCL_SKIP, each with a reason.  What a module costs there is
# PoCL's kernel builds (about 0.4 CPU s an elementwise kernel, 2 a sort's with
# .ci/run's POCL_EXTRA_BUILD_FLAGS=-cl-opt-disable, 3x that without), so the
# every-dtype parametrisations run a subset of dtypes (below); Ember's disk
# cache and PoCL's kernel cache (~/.cache/pocl) make the ASan pass's rerun
# and later runs on one machine cheap.  EMBER_TEST_OPENCL=all runs every
# dtype and parameter.
# Modules whose every-dtype parametrisations (a `dtype` or `dt` parameter)
# run on opencl:0 with a subset of dtypes only (each dtype is another PoCL
# build of every kernel the test makes); EMBER_TEST_OPENCL=all runs every
# dtype.
_OPENCL_FEW_DTYPES = {"bool", "int8", "int64", "float16", "float32", "complex128"}
# Every module not named below: one dtype of each kind (bool, signed small and
# large, unsigned, half, single, double, complex).
_OPENCL_DEFAULT_DTYPES = {"bool", "int8", "int64", "uint32", "float16", "float32", "float64",
                          "complex128"}
_OPENCL_DTYPE_SUBSET = {
    # every dtype (None), as before the default subset came in: their kernels are few
    **dict.fromkeys(["test_core_array", "test_random", "test_expr_kernels", "test_jit",
                     "test_jit_launch", "test_jit_functions", "test_dlpack", "test_indexing",
                     "test_frame_core", "test_frame_groupby", "test_frame_merge",
                     "test_frame_strings", "test_frame_io", "test_frame_dask",
                     # complex64's overflows are half the point (two minutes of PoCL)
                     "test_complex_special"]),
    "test_scans": _OPENCL_FEW_DTYPES, "test_linalg": _OPENCL_FEW_DTYPES,
    # (test_sorting keeps the default: its 144 tests cost 241 CPU s cold, 259 PoCL
    # builds; without uint32 and float64, 114 tests, 225 builds and the same 241 s)
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
_OPENCL_PARAM_SUBSET = {
    "test_frame_core": {"n": [200], "op": ["add", "truediv"]},
    "test_frame_groupby": {"n": [200], "keys": ["k1", ["k2", "b"]], "spread": [10, 10 ** 9]},
    "test_frame_merge": {"nl": [40], "how": ["inner", "left", "outer"]},
    "test_frame_strings": {"pat": ["a", "", "é", "abcdefghij"], "name": ["contains", "endswith"]},
    # every dtype pair (169) is another kernel per op: 26 binary and 18 unary
    # ops are about 4,600 PoCL builds, half an hour of CI.  The result dtype
    # is the core's, the same on every device (the CPU runs every op); on
    # opencl:0 one arithmetic, one integer-semantics and one comparison op
    # and two unary ops run there.  The pair test's cases are (op, left
    # dtype), sampled one in three as other tests' are: 15 of the 39, each
    # against every right dtype (195 pairs; until session 22 a case was an
    # op, and the sampling left add's 169 alone).
    "test_promotion": {"op": ["add", "floor_divide", "less", "sqrt", "sign"]},
}


def _opencl_param_cut(mod, params):
    """The reason to skip a frame test on opencl:0, or None (_OPENCL_PARAM_SUBSET)."""
    for name, keep in _OPENCL_PARAM_SUBSET.get(mod, {}).items():
        if name in params and params[name] not in keep:
            return (f"opencl: {name}={params[name]!r} runs on the CPU and CUDA only "
                    "(conftest._OPENCL_PARAM_SUBSET; EMBER_TEST_OPENCL=all runs it)")
    return None


# On opencl:0 one case in N of each parametrised test runs: the first always,
# then those whose id hashes to 0 mod N (the same ones every run), so every
# test runs there and its other cases rotate with their ids.  CI's pytest time
# is PoCL building each case's kernels cold (session 19, a clean clone: 2,128 s
# of pytest in two workers, 3,142 of the 3,498 test-seconds over a second on
# opencl:0); the CPU runs every case, and CUDA every case on the GPU machine.
# N is _OPENCL_SAMPLE_EVERY unless _OPENCL_SAMPLE names the module (1: every
# case).  EMBER_TEST_OPENCL=all runs every case.
_OPENCL_SAMPLE_EVERY = 3
_OPENCL_SAMPLE = {"test_fuzz_regressions": 6, "test_reliability": 4}
_opencl_seen = set()


def _opencl_sampled_out(mod, node):
    """True when node is a case the sampling above leaves to the CPU and CUDA."""
    every = _OPENCL_SAMPLE.get(mod, _OPENCL_SAMPLE_EVERY)
    if every <= 1:
        return False
    first = (mod, node.originalname) not in _opencl_seen
    _opencl_seen.add((mod, node.originalname))
    return not first and zlib.crc32(node.name.encode()) % every != 0


# The modules that do not run on opencl:0, each with its reason.
_OPENCL_SKIP = {
    "test_fft": "the FFT runs on the host through reductions and gathers",
    "test_kernel_faults": "CUDA-specific fault reporting",
}


def _opencl_explicit():
    """True when the run asked for every opencl:0 case (EMBER_TEST_OPENCL=all, or
    EMBER_TEST_DEVICES naming the devices): no cut applies.  EMBER_TEST_OPENCL=ci is
    CI's cuts, as unset (EMBER_TEST_DEVICES=opencl:0 EMBER_TEST_OPENCL=ci: that device
    alone, with the cuts)."""
    ci = os.environ.get("EMBER_TEST_OPENCL") == "ci"
    return bool(not ci and (os.environ.get("EMBER_TEST_DEVICES")
                            or os.environ.get("EMBER_TEST_OPENCL")))


# A test that loops over dtypes and layouts itself (test_ufuncs' op x dtype x
# layout grid: 77 ops x 14 dtypes x 7 layouts, about 3,000 PoCL builds, 25 CPU
# minutes) takes `grid_dtypes`.  On opencl:0 with CI's cuts each op runs one
# dtype of each kind it accepts (bool, signed, unsigned, float, complex; which
# member rotates with the test's id, so every dtype comes up across the ops),
# each in the contiguous and empty layouts, and one op in _GRID_EVERY_LAYOUT
# runs one of them in every layout (strided, negative strides, transposed, 0-d,
# broadcast, a row broadcast).  The contiguous kernel applies the op to scalars
# (its tail, or every element where the operands are not 16-byte aligned) as
# well as in vectors, so every op's OpenCL rendering is built and checked once
# per dtype kind; the layouts differ in index arithmetic, the same for every op.
# Measured cold with CI's flags, beyond the module's other tests (437 PoCL builds,
# 146 CPU s): 285 builds, 122 CPU s (every layout on every op: 369, 157 s; all
# passed both ways).
_GRID_KINDS = "b" "iu" "fc"
_GRID_EVERY_LAYOUT = 4


@pytest.fixture
def grid_dtypes(request):
    """grid_dtypes(dtypes) -> [(dtype, every_layout)]: the dtypes a grid test runs on this
    test's device, each with whether it runs every layout (see above)."""
    cs = getattr(request.node, "callspec", None)
    dev = str(cs.params.get("device", "")) if cs else ""
    if not dev.startswith("opencl") or _opencl_explicit():
        return lambda dtypes: [(np.dtype(d), True) for d in dtypes]
    salt = zlib.crc32(request.node.name.encode())

    def pick(dtypes):
        dtypes = [np.dtype(d) for d in dtypes]
        # (each kind's member from other bits of the salt: int16 does not always go with uint16)
        one = [ms[(salt >> 5 * j) % len(ms)] for j, ms in
               enumerate([d for d in dtypes if d.kind == k] for k in _GRID_KINDS) if ms]
        every = one[salt % len(one)] if one and salt % _GRID_EVERY_LAYOUT == 0 else None
        return [(d, d == every) for d in one]
    return pick


@pytest.fixture(params=device_names())
def device(request):
    """Each test that takes `device` runs once per available device, with it current."""
    if request.param.startswith("opencl"):
        mod = request.module.__name__.rpartition(".")[2]
        if mod in _OPENCL_SKIP:
            pytest.skip(f"opencl: {_OPENCL_SKIP[mod]}")
        explicit = _opencl_explicit()
        cs = getattr(request.node, "callspec", None)
        dt = cs.params.get("dtype", cs.params.get("dt")) if cs else None
        few = _OPENCL_TEST_DTYPES.get(request.node.originalname,
                                      _OPENCL_DTYPE_SUBSET.get(mod, _OPENCL_DEFAULT_DTYPES))
        # (a module mapped to None in _OPENCL_DTYPE_SUBSET runs every dtype)
        if few is not None and not explicit and dt is not None and np.dtype(dt).name not in few:
            pytest.skip("opencl: a subset of dtypes in CI (conftest._OPENCL_DTYPE_SUBSET; "
                        "EMBER_TEST_OPENCL=all runs every dtype)")
        why = None if explicit else _opencl_param_cut(mod, cs.params if cs else {})
        if why:
            pytest.skip(why)
        # (after the cuts above, so that the case sampling keeps is one that runs)
        if not explicit and _opencl_sampled_out(mod, request.node):
            pytest.skip("opencl: one case in N of each test runs there (conftest."
                        "_OPENCL_SAMPLE_EVERY; EMBER_TEST_OPENCL=all runs every case)")
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
