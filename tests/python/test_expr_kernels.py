"""em.ElementwiseKernel and em.ReductionKernel (CuPy's shape) against NumPy,
on every device: CuPy's documentation examples (squared_diff, add_reverse
with a raw parameter, l2norm), every dtype and the edge layouts, type
placeholders bound from arrays and (weakly) from Python scalars,
broadcasting, outputs given as arguments or out=, i and _ind.size(),
size=, axis=/keepdims=, the compile cache, and the errors."""
import os
import subprocess
import sys

import numpy as np
import pytest

import ember as em

from helpers import ALL_DTYPES, COMPLEX_DTYPES, nvrtc_available, FLOAT_DTYPES, INT_DTYPES, layouts, random_array, to_em, to_np

HERE = os.path.dirname(os.path.abspath(__file__))

SQUARED_DIFF = ("T x, T y", "T z", "z = (x - y) * (x - y)", "squared_diff")
L2NORM = ("T x", "T y", "x * x", "a + b", "y = sqrt(a)", "0", "l2norm")
SUPPORTED = ALL_DTYPES


def _squared_diff_np(x, y):
    if x.dtype == bool:
        return x ^ y  # (x - y)^2 computed in int and stored as bool
    with np.errstate(over="ignore"):
        return (x - y) * (x - y)


# What expression kernels do not do on OpenCL devices: complex parameters (a
# TypeError: OpenCL C has no complex arithmetic), tested in test_opencl.py.


@pytest.fixture(autouse=True)
def _opencl_limits(request):
    params = getattr(request.node, "callspec", None)
    params = params.params if params else {}
    if not str(params.get("device", "")).startswith("opencl"):
        return
    dt = params.get("dt")
    if dt is not None and np.dtype(dt).kind == "c":
        pytest.skip("opencl: no complex parameters in OpenCL C expression kernels")


@pytest.fixture(scope="module")
def squared_diff():
    return em.ElementwiseKernel(*SQUARED_DIFF)


@pytest.mark.parametrize("dt", SUPPORTED, ids=str)
def test_squared_diff_dtypes_and_layouts(device, squared_diff, rng, dt):
    y = random_array(rng, (4, 5), dt)
    for name, x in layouts(rng, (4, 5), dt):
        ex, ey = to_em(x), to_em(y)
        if x.shape != (4, 5) and x.shape != ():
            ey = to_em(y[: x.shape[0]])
        yn = to_np(ey)
        got = squared_diff(ex, ey)
        want = _squared_diff_np(np.asarray(x), yn)
        assert got.dtype == dt and got.shape == want.shape, name
        if dt.kind == "c":
            np.testing.assert_allclose(got.get(), want, rtol=1e-6, err_msg=name)
        elif dt == np.float16:  # computed in float32, rounded once (NumPy rounds after each operation)
            np.testing.assert_allclose(got.get(), want, rtol=2e-3, atol=1e-3, err_msg=name)
        else:
            np.testing.assert_array_equal(got.get(), want, err_msg=name)


def test_float16(device, rng):
    # stored as float16, computed in float32, rounded once when stored
    k = em.ElementwiseKernel("T x, T s", "T y, float32 w", "y = x * s + 1; w = x * s", "f16")
    x = rng.uniform(-4, 4, 100).astype(np.float16)
    for _ in range(2):  # first call and replay
        y, w = k(em.asarray(x), np.float16(0.1))
        s = np.float32(np.float16(0.1))
        assert y.dtype == np.float16 and w.dtype == np.float32
        np.testing.assert_array_equal(y.get(), (x.astype(np.float32) * s + 1).astype(np.float16))
        np.testing.assert_array_equal(w.get(), x.astype(np.float32) * s)
    acc = em.ElementwiseKernel("T x", "T y", "y += x", "f16_inout")
    out = em.asarray(np.full(100, 0.5, np.float16))
    acc(em.asarray(x), out)  # an output read and written through its float temporary
    np.testing.assert_array_equal(out.get(), (x.astype(np.float32) + 0.5).astype(np.float16))
    l2 = em.ReductionKernel(*L2NORM)
    got = l2(em.asarray(x.reshape(10, 10)), axis=1)
    want = np.sqrt((x.astype(np.float32).reshape(10, 10) ** 2).sum(axis=1)).astype(np.float16)
    assert got.dtype == np.float16
    np.testing.assert_allclose(got.get().astype(np.float32), want.astype(np.float32), rtol=1e-3)
    if device.kind != "cpu":
        api = "CUDA" if device.kind == "cuda" else "OpenCL"
        with pytest.raises(TypeError, match=f"raw parameter y is float16, which raw {api} parameters do not take"):
            em.ElementwiseKernel("T x, raw T y", "T z", "z = x", "f16raw")(em.asarray(x), em.asarray(x))
    else:
        r = em.ElementwiseKernel("T x, raw T y", "T z", "z = x + y[_ind.size() - 1 - i]", "f16raw")
        np.testing.assert_array_equal(r(em.asarray(x), em.asarray(x)).get(),
                                      (x.astype(np.float32) + x[::-1]).astype(np.float16))


def test_broadcasting_and_outputs(device, squared_diff, rng):
    x, y = rng.random((3, 1)), rng.random((1, 4))
    want = (x - y) ** 2
    np.testing.assert_array_equal(squared_diff(em.asarray(x), em.asarray(y)).get(), want)
    out = em.zeros((3, 4))
    assert squared_diff(em.asarray(x), em.asarray(y), out) is out
    np.testing.assert_array_equal(out.get(), want)
    out2 = em.zeros((4, 3)).T  # a strided output
    squared_diff(em.asarray(x), em.asarray(y), out=out2)
    np.testing.assert_array_equal(out2.get(), want)
    with pytest.raises(ValueError, match=r"output z has shape \(3, 5\), expected \(3, 4\)"):
        squared_diff(em.asarray(x), em.asarray(y), em.zeros((3, 5)))
    with pytest.raises(ValueError, match=r"operands could not be broadcast together with shapes \(3, 1\) \(2, 4\)"):
        squared_diff(em.asarray(x), em.ones((2, 4)))
    with pytest.raises(TypeError, match="output z has dtype float32 but the kernel writes float64"):
        squared_diff(em.asarray(x), em.asarray(y), em.zeros((3, 4), dtype=em.float32))
    ro = em.broadcast_to(em.zeros(4), (3, 4))
    with pytest.raises(ValueError, match="output z is read-only"):
        squared_diff(em.asarray(x), em.asarray(y), ro)
    if device.kind == "cpu":  # a read-only view like `out`: the replayed call checks too
        r = np.zeros((3, 4))
        r.flags.writeable = False
        with pytest.raises(ValueError, match="an output is read-only"):
            squared_diff(em.asarray(x), em.asarray(y), em.asarray(r, copy=False))


def test_scalar_binding(device, squared_diff):
    x = em.asarray(np.array([1, 2, 300], dtype=np.int16))
    r = squared_diff(x, 5)  # a Python int is weak: T stays int16
    assert r.dtype == np.int16
    np.testing.assert_array_equal(r.get(), (np.array([1, 2, 300], np.int16) - np.int16(5)) ** 2)
    r = squared_diff(em.ones(3, dtype=em.float32), 0.5)
    assert r.dtype == np.float32 and r.get().tolist() == [0.25] * 3
    with pytest.raises(OverflowError, match="Python int 70000 is out of bounds for int16"):
        squared_diff(x, 70000)
    with pytest.raises(TypeError, match="type T is bound to both int16 and int32"):
        squared_diff(x, np.int32(5))
    with pytest.raises(TypeError, match=r"a Python float \(2.5\) for parameter y of dtype int16 would be truncated"):
        squared_diff(x, 2.5)
    r = squared_diff(np.int32(7), 3, size=4)  # no arrays: size= gives the shape
    assert r.dtype == np.int32 and r.get().tolist() == [16] * 4
    r = squared_diff(7, 3, size=2)  # only Python ints: int64, as NumPy
    assert r.dtype == np.int64
    with pytest.raises(ValueError, match="size= is required when no argument is a non-raw array"):
        squared_diff(7, 3)
    with pytest.raises(ValueError, match="size= can be given only when every array argument is raw"):
        squared_diff(x, 3, size=3)


def test_fixed_types_cast_inputs(device):
    k = em.ElementwiseKernel("float32 x, int64 n", "float64 z", "z = x * n", "scale")
    r = k(em.asarray(np.array([1, 2, 3], np.int16)), 2)
    assert r.dtype == np.float64 and r.get().tolist() == [2.0, 4.0, 6.0]
    with pytest.raises(TypeError, match="cannot cast parameter x from float64 to float32|"
                                        "cannot cast parameter x from complex128 to float32"):
        k(em.asarray(np.array([1j])), 2)
    with pytest.raises(TypeError, match="a complex value for parameter n of dtype int64"):
        k(em.ones(2, dtype=em.float32), 1j)


def test_index_and_size(device):
    iota = em.ElementwiseKernel("", "int64 z", "z = i", "iota")
    assert iota(size=5).get().tolist() == [0, 1, 2, 3, 4]
    out = em.zeros((3, 2), dtype=em.int64)
    iota(out)
    assert out.get().tolist() == [[0, 1], [2, 3], [4, 5]]
    t = em.zeros((2, 3), dtype=em.int64).T  # i is the C-order index of the logical element
    iota(t)
    assert t.get().tolist() == [[0, 1], [2, 3], [4, 5]]
    n = em.ElementwiseKernel("T x", "int64 z", "z = _ind.size() + 0 * x", "count")
    assert n(em.ones((2, 3))).get().tolist() == [[6] * 3] * 2
    assert iota(size=0).shape == (0,)


def test_raw_reverse(device, rng):
    # CuPy's documentation example
    add_reverse = em.ElementwiseKernel("T x, raw T y", "T z", "z = x + y[_ind.size() - i - 1]", "add_reverse")
    x, y = rng.random(7), rng.random(7)
    np.testing.assert_array_equal(add_reverse(em.asarray(x), em.asarray(y)).get(), x + y[::-1])
    # a raw argument that is not contiguous is read as its C-order copy
    yy = rng.random(14)
    np.testing.assert_array_equal(add_reverse(em.asarray(x), em.asarray(yy)[::2]).get(), x + yy[::2][::-1])
    sz = em.ElementwiseKernel("raw T y", "int64 z", "z = y.size() * 10 + i", "rawsize")
    assert sz(em.ones(4), size=3).get().tolist() == [40, 41, 42]
    with pytest.raises(TypeError, match="raw parameter y needs an ember array, got float"):
        add_reverse(em.asarray(x), 1.0)


def test_raw_output_and_no_return(device):
    k = em.ElementwiseKernel("T x", "raw T y", "y[_ind.size() - 1 - i] = x * 2", "rev2", no_return=True)
    x, y = em.asarray(np.arange(5.0)), em.zeros(5)
    assert k(x, y) is None
    assert y.get().tolist() == [8.0, 6.0, 4.0, 2.0, 0.0]
    y2 = em.zeros(10)[::2]  # non-contiguous raw output: written back
    k(x, y2)
    assert y2.get().tolist() == [8.0, 6.0, 4.0, 2.0, 0.0]
    with pytest.raises(ValueError, match="raw output y must be given"):
        k(x)


def test_return_tuple_and_loop_hooks(device):
    k = em.ElementwiseKernel("T x", "T y", "y = x * s", "hooks", loop_prep="const double s = 3;",
                             after_loop="(void)s;", return_tuple=True)
    r = k(em.ones(4))
    assert isinstance(r, tuple) and len(r) == 1 and r[0].get().tolist() == [3.0] * 4
    r = k(em.ones(4))  # the replayed call too
    assert isinstance(r, tuple) and r[0].get().tolist() == [3.0] * 4
    with pytest.raises(TypeError, match="unexpected keyword argument 'no_such_option'"):
        em.ElementwiseKernel("T x", "T y", "y = x", "k", no_such_option=1)
    with pytest.raises(TypeError, match="loop_prep must be a str"):
        em.ElementwiseKernel("T x", "T y", "y = x", "k", loop_prep=1)


def test_a_and_b_are_names_in_elementwise_kernels(device):
    k = em.ElementwiseKernel("T a, T b", "T c", "c = a - b", "sub")
    assert k(em.ones(2), 3.0).get().tolist() == [-2.0, -2.0]


def test_several_outputs_and_preamble(device, rng):
    k = em.ElementwiseKernel("T x, T y", "T s, T d", "s = add2(x, y); d = x - y", "sumdiff",
                             preamble="__device__ static double add2(double a, double b) { return a + b; }")
    x, y = rng.random(6), rng.random(6)
    s, d = k(em.asarray(x), em.asarray(y))
    np.testing.assert_array_equal(s.get(), x + y)
    np.testing.assert_array_equal(d.get(), x - y)


@pytest.mark.parametrize("dt", [np.dtype(n) for n in ("int8", "uint8", "int32", "uint64", "int64", "float32", "float64")],
                         ids=str)
def test_min_max_abs_any_type(device, rng, dt):
    k = em.ElementwiseKernel("T x, T y", "T lo, T hi, T m", "lo = min(x, y); hi = max(x, y); m = abs(x)", "mma")
    x, y = random_array(rng, 50, dt), random_array(rng, 50, dt)
    if dt.kind == "f":
        x[:3] = np.nan
        y[3:6] = np.nan
    lo, hi, m = k(em.asarray(x), em.asarray(y))
    if dt.kind == "f" and device.kind == "opencl":  # OpenCL's min/max: undefined for NaN
        ok = ~(np.isnan(x) | np.isnan(y))
        np.testing.assert_array_equal(lo.get()[ok], np.fmin(x, y)[ok])
        np.testing.assert_array_equal(hi.get()[ok], np.fmax(x, y)[ok])
    elif dt.kind == "f":  # CUDA's fminf / fmaxf: NaN loses
        np.testing.assert_array_equal(lo.get(), np.fmin(x, y))
        np.testing.assert_array_equal(hi.get(), np.fmax(x, y))
    else:
        np.testing.assert_array_equal(lo.get(), np.minimum(x, y))
        np.testing.assert_array_equal(hi.get(), np.maximum(x, y))
    with np.errstate(over="ignore"):
        np.testing.assert_array_equal(m.get(), np.abs(x))


def test_compile_cache(device, rng):
    k = em.ElementwiseKernel(*SQUARED_DIFF[:3], "sq_cache")
    a, b = em.ones((4, 5)), em.ones((4, 5))
    k(a, b)
    k(a, b)
    k(em.zeros((7, 2)), em.zeros((7, 2)))  # same kinds, other shape: contiguous, cached
    assert k._compiles == 1
    k(em.ones(3, dtype=em.int32), em.ones(3, dtype=em.int32))  # new dtypes
    assert k._compiles == 2
    k(a.T, b.T)  # strided 2-d
    k(em.ones((5, 4)).T, em.ones((5, 4)).T)
    assert k._compiles == 3
    x3, y3 = rng.random((2, 3, 8)), rng.random((2, 3, 8))
    for _ in range(2):  # 3-d, coalesced to (6, 4): the 2-d kernel (then replayed)
        got = k(em.asarray(x3)[:, :, :4], em.asarray(y3)[:, :, :4])
        np.testing.assert_array_equal(got.get(), (x3[:, :, :4] - y3[:, :, :4]) ** 2)
    assert k._compiles == 3
    got = k(em.asarray(x3)[:, :, ::2], em.asarray(y3)[:, :, ::2])  # one uniform step: 1-d
    np.testing.assert_array_equal(got.get(), (x3[:, :, ::2] - y3[:, :, ::2]) ** 2)
    assert k._compiles == 4 and sorted(key[-1] for key in k._cache) == [0, 0, 1, 2]  # dimensions
    k(a, 2.0)  # a scalar instead of an array
    k(a, 3.0)
    assert k._compiles == 5


def test_repeat_calls_replay_the_plan(device, rng):
    # The second call with the same kinds of arguments takes the cached plan:
    # values, broadcasting and scalar checks must be those of a first call.
    k = em.ElementwiseKernel("T x, T y", "T z", "z = x * 10 + y", "replay")
    for _ in range(2):
        a, b = rng.integers(0, 9, (3, 4)).astype(np.int16), rng.integers(0, 9, 4).astype(np.int16)
        np.testing.assert_array_equal(k(em.asarray(a), em.asarray(b)).get(), a * 10 + b)
        np.testing.assert_array_equal(k(em.asarray(a), 7).get(), a * 10 + 7)
        np.testing.assert_array_equal(k(em.asarray(a).T, em.asarray(a).T).get(), a.T * 11)
        out = em.zeros((3, 4), dtype=em.int16)
        assert k(em.asarray(a), em.asarray(b), out) is out
        np.testing.assert_array_equal(out.get(), a * 10 + b)
    with pytest.raises(OverflowError, match="Python int 40000 is out of bounds for int16"):
        k(em.asarray(a), 40000)
    assert len(k._plans) == 4 and k._compiles == 2  # broadcast and transposed: one strided 2-d kernel


def test_argument_errors(device, squared_diff):
    with pytest.raises(TypeError, match=r"wrong number of arguments: expected 2 inputs \(and optionally 1 outputs\), got 1"):
        squared_diff(em.ones(2))
    with pytest.raises(TypeError, match=r"parameter y takes an ember array or a scalar, got numpy.ndarray \(host memory"):
        squared_diff(em.ones(2), np.ones(2))
    with pytest.raises(TypeError, match="parameter y takes an ember array or a scalar, got builtins.str"):
        squared_diff(em.ones(2), "x")
    with pytest.raises(TypeError, match="give the outputs either as arguments or as out=, not both"):
        squared_diff(em.ones(2), em.ones(2), em.ones(2), out=em.ones(2))
    with pytest.raises(TypeError, match="output z must be an ember array, got list"):
        squared_diff(em.ones(2), em.ones(2), out=[[1.0, 2.0]])
    u = em.ElementwiseKernel("T x", "U y", "y = x", "unbound")
    with pytest.raises(TypeError, match="cannot determine type U of parameter y"):
        u(em.ones(2))
    assert u(em.ones(2), em.zeros(2, dtype=em.int8)).get().tolist() == [1, 1]
    assert squared_diff(em.ones(2), em.ones(2)).get().tolist() == [0.0, 0.0]  # still working


@pytest.mark.parametrize("args, exc, msg", [
    (("T x", "T i", "i = x"), ValueError, "parameter name 'i' is reserved"),
    (("T x", "T _em_y", "_em_y = x"), ValueError, "parameter name '_em_y' is reserved"),
    (("T x, T x", "T y", "y = x"), ValueError, "parameter 'x' is declared twice"),
    (("T x y", "T z", "z = x"), ValueError, r"bad parameter 'T x y' in in_params; expected '\[raw\] type name'"),
    (("T x,", "T z", "z = x"), ValueError, "empty parameter in in_params"),
    (("T x", "", "x"), ValueError, "out_params must name at least one output"),
    ((3, "T z", "z = 1"), TypeError, "in_params must be a str"),
    (("T x", "T z", None), TypeError, "operation must be a str"),
])
def test_definition_errors(args, exc, msg):
    with pytest.raises(exc, match=msg):
        em.ElementwiseKernel(*args, "k")
    with pytest.raises(ValueError, match="kernel name must be a C identifier"):
        em.ElementwiseKernel("T x", "T y", "y = x", "bad name")


def test_compile_error_shows_source(device):
    k = em.ElementwiseKernel("T x", "T y", "y = no_such_function(x)", "broken")
    with pytest.raises(em.CompileError, match="no_such_function") as e:
        k(em.ones(3))
    assert "y = no_such_function(x)" in str(e.value)
    with pytest.raises(em.CompileError, match="no_such_function"):  # not cached as a success
        k(em.ones(3))
    assert k._compiles == 0


def test_no_c_compiler_message(tmp_path):
    code = ("import ember as em\n"
            "k = em.ElementwiseKernel('T x', 'T y', 'y = x', 'copy')\n"
            "try:\n"
            "    k(em.ones(3, device='cpu'))\n"
            "except em.CompileError as e:\n"
            "    print('EMBER_CC' in str(e), 'need a C compiler' in str(e))\n")
    env = dict(os.environ, EMBER_CC=str(tmp_path / "no-such-cc"), EMBER_CACHE_DIR=str(tmp_path),
               PYTHONPATH=os.path.join(HERE, "..", "..", "python"), EMBER_DEVICE="cpu")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=60)
    assert r.returncode == 0, r.stderr
    assert r.stdout.split() == ["True", "True"]


# ---- reductions -------------------------------------------------------------

@pytest.fixture(scope="module")
def l2norm():
    return em.ReductionKernel(*L2NORM)


@pytest.mark.parametrize("dt", FLOAT_DTYPES[1:], ids=str)
def test_l2norm(device, l2norm, rng, dt):
    x = random_array(rng, (6, 7, 5), dt)
    ex = em.asarray(x)
    for axis in (None, 0, 1, 2, -1, (0, 2), (1, 0)):
        for keepdims in (False, True):
            got = l2norm(ex, axis=axis, keepdims=keepdims)
            want = np.sqrt(np.sum(x.astype(np.float64) ** 2, axis=axis, keepdims=keepdims)).astype(dt)
            assert got.dtype == dt and got.shape == want.shape, (axis, keepdims)
            np.testing.assert_allclose(got.get(), want, rtol=1e-5 if dt == np.float32 else 1e-12)


SUM = ("T x", "T y", "x", "a + b", "y = a", "0", "sum_k")


@pytest.mark.parametrize("dt", INT_DTYPES + [np.dtype(bool)], ids=str)
def test_integer_sum_layouts(device, rng, dt):
    k = em.ReductionKernel(*SUM, reduce_type="int64")
    for name, x in layouts(rng, (4, 6), dt):
        ex = to_em(x)
        for axis in ((None, 0, 1) if x.ndim == 2 else (None,)):
            got = k(ex, axis=axis)
            want = np.sum(np.asarray(x).astype(np.int64), axis=axis).astype(dt)
            assert got.dtype == dt and got.shape == want.shape, (name, axis)
            np.testing.assert_array_equal(got.get(), want, err_msg=f"{name} axis={axis}")


def test_reduction_with_scalars_two_inputs_and_out(device, rng):
    dot = em.ReductionKernel("T x, T y, T w", "T z", "x * y * w", "a + b", "z = a", "0", "wdot")
    x, y = rng.random((3, 8)), rng.random((3, 8))
    got = dot(em.asarray(x), em.asarray(y), 2.0, axis=1)
    np.testing.assert_allclose(got.get(), 2 * (x * y).sum(axis=1), rtol=1e-12)
    out = em.zeros(3)
    assert dot(em.asarray(x), em.asarray(y), 2.0, out, axis=1) is out
    np.testing.assert_allclose(out.get(), 2 * (x * y).sum(axis=1), rtol=1e-12)
    bcast = dot(em.asarray(x), em.asarray(y[0]), 1.0, axis=0)  # inputs broadcast together
    np.testing.assert_allclose(bcast.get(), (x * y[0]).sum(axis=0), rtol=1e-12)
    with pytest.raises(ValueError, match=r"output z has shape \(4,\), expected \(3,\)"):
        dot(em.asarray(x), em.asarray(y), 1.0, em.zeros(4), axis=1)


def test_reduction_max_identity_empty_and_0d(device, rng):
    mx = em.ReductionKernel("T x", "T y", "x", "max(a, b)", "y = a", "-1000000", "max_k")
    x = rng.integers(-50, 50, (5, 0, 3)).astype(np.int32)
    assert mx(em.asarray(x), axis=1).get().tolist() == [[-1000000] * 3] * 5  # empty: the identity
    assert mx(em.asarray(x), axis=2).shape == (5, 0)
    assert mx(em.asarray(np.int32(4))).get() == 4  # 0-d input
    y = rng.integers(-50, 50, (9, 4)).astype(np.int32)
    np.testing.assert_array_equal(mx(em.asarray(y), axis=0).get(), y.max(axis=0))
    assert mx(em.asarray(y)).shape == ()


def test_reduce_type_and_mixed_types(device, rng):
    mean = em.ReductionKernel("T x", "float64 y", "x", "a + b", "y = a / _in_n", "0", "mean_k",
                              reduce_type="float64",
                              preamble="")
    with pytest.raises(em.CompileError):
        mean(em.ones(4, dtype=em.int8))  # _in_n is not defined: a compile error, not a crash
    avg = em.ReductionKernel("T x, int64 n", "float64 y", "x", "a + b", "y = a / n", "0", "avg_k",
                             reduce_type="float64")
    x = rng.integers(-100, 100, 64).astype(np.int8)
    assert avg(em.asarray(x), 64).get() == pytest.approx(x.astype(np.float64).mean())


def test_reduction_errors(device, l2norm):
    x = em.ones((2, 3))
    with pytest.raises(np.exceptions.AxisError):
        l2norm(x, axis=2)
    with pytest.raises(ValueError, match="duplicate value in 'axis'"):
        l2norm(x, axis=(0, -2))
    with pytest.raises(TypeError, match="axis must be an int or a tuple of ints"):
        l2norm(x, axis=1.0)
    with pytest.raises(ValueError, match="a reduction needs at least one array input"):
        l2norm(2.0)
    with pytest.raises(ValueError, match="raw parameters are not supported by ReductionKernel"):
        em.ReductionKernel("raw T x", "T y", "x[0]", "a + b", "y = a", "0", "r")
    with pytest.raises(TypeError, match="identity must be a str of C code, got int"):
        em.ReductionKernel("T x", "T y", "x", "a + b", "y = a", 0, "r")
    with pytest.raises(ValueError, match="parameter name 'a' is reserved"):
        em.ReductionKernel("T a", "T y", "a", "a + b", "y = a", "0", "r")
    assert l2norm(x).get() == pytest.approx(np.sqrt(6))


def test_reduction_compile_cache(device):
    k = em.ReductionKernel(*SUM)
    x = em.ones((4, 5))
    k(x), k(x), k(em.zeros((8, 3)))
    assert k._compiles == 1
    k(x, axis=1), k(x, axis=1, keepdims=True), k(em.ones((2, 2)), axis=0)
    assert k._compiles == 2


# ---- the CUDA rendering without a GPU: NVRTC compiles, the fake driver launches ----

@pytest.mark.skipif(not nvrtc_available(), reason="NVRTC is not installed")
def test_cuda_sources_compile_and_launch_on_the_fake_driver(fake_lib, tmp_path):
    """Every dtype CUDA takes, contiguous and strided, raw, scalars and the
    three reduction modes render to CUDA that NVRTC compiles (a bad render
    would be a CompileError); the configurations are what the fake received."""
    code = r"""
import ctypes, os, numpy as np, ember as em
fake = ctypes.CDLL(os.environ["FAKE_LIB"])
cfg = lambda: tuple((ctypes.c_uint * 7).in_dll(fake, "fake_last_cfg"))
sq = em.ElementwiseKernel("T x, T y, int32 k", "T z", "z = min(x, y) * k + abs(x - y)", "sqk")
iota = em.ElementwiseKernel("", "int64 z", "z = i", "iota")
iota(size=5)
hooks = em.ElementwiseKernel("T x", "T y, T w", "y = add2(x, s); w = x", "hooks", loop_prep="const double s = 3;",
                             preamble="__device__ static double add2(double a, double b) { return a + b; }")
hooks(em.zeros(4)); hooks(em.zeros(4, dtype=em.int8)[::2])
nr = em.ElementwiseKernel("T x", "raw T y", "y[_ind.size() - 1 - i] = x * 2", "rev2", no_return=True)
nr(em.zeros(5), em.zeros(10)[::2])
dot = em.ReductionKernel("T x, T y, T w", "T z", "x * y * w", "a + b", "z = a", "0", "wdot")
dot(em.zeros((3, 8)), em.zeros(8), 2.0, axis=1); dot(em.zeros(()), em.zeros(()), 1.0)
mx = em.ReductionKernel("T x", "T y", "x", "max(a, b)", "y = a", "-1000000", "max_k")
mx(em.zeros((5, 0, 3), dtype=em.int32), axis=1); mx(em.zeros((9, 4), dtype=em.bool), axis=0, keepdims=True)
rev = em.ElementwiseKernel("T x, raw T y", "T z", "z = x + y[_ind.size() - i - 1] + y.size()", "rev")
for dt in ["bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64", "float32", "float64",
           "float16", "complex64", "complex128"]:
    a = em.zeros((3, 4), dtype=dt)
    if dt[0] != "c":  # no min of complex values
        sq(a, a, 2); sq(a.T, a.T, 3)
    if dt != "float16":
        rev(a, a)
print(sq._compiles, rev._compiles, cfg()[:4])
h = em.zeros((4, 3), dtype=em.float16)
em.ReductionKernel("T x", "T y", "x * x", "a + b", "y = sqrt(a)", "0", "l2h")(h, axis=0)
em.ElementwiseKernel("T x", "T y", "y += x", "inout")(h, h)
c = em.zeros(4, dtype=em.complex64)
cx = em.ElementwiseKernel("T x, complex128 w, float32 f", "T y, complex128 v, float32 r",
                          "y = x * 2.0 + 1 - x / x; v = w * x; y += conj(x) * f; r = abs(x) + real(x) + imag(x) + arg(x);"
                          " v = exp(v) + log(w) + sqrt(v) + sin(v) * cos(v)", "cx")
cx(c, 1 + 2j, 0.5)
em.ReductionKernel("T x", "T y", "x * x", "a + b", "y = a", "0", "csum")(c)
em.ReductionKernel("T x", "U y", "x", "a + b", "y = abs(a)", "0", "cnorm", reduce_type="complex128")(c, em.zeros((), dtype=em.float32))
l2 = em.ReductionKernel("T x", "T y", "x * x", "a + b", "y = sqrt(a)", "0", "l2norm")
x = em.zeros(100000, dtype=em.float32)
l2(x); print(cfg())
l2(em.zeros((3, 50), dtype=em.float32), axis=1); print(cfg())
print(l2._compiles)
l2(em.zeros((5000, 3), dtype=em.float32), axis=1); print(cfg())
"""
    env = dict(os.environ, PYTHONPATH=os.path.join(HERE, "..", "..", "python"), EMBER_LIBCUDA=fake_lib,
               EMBER_CACHE_DIR=str(tmp_path), FAKE_LIB=fake_lib)
    env.pop("EMBER_DEVICE", None)
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=600)
    assert r.returncode == 0, r.stderr
    assert r.stdout.split("\n")[:-1] == [
        "24 13 (1, 1, 1, 256)",
        "(1, 1, 1, 256, 1, 1, 1024)",  # split in 16 parts over the fake's 4 SMs: the finishing pass
        "(3, 1, 1, 256, 1, 1, 1024)",  # small: one block per output
        "2",
        "(20, 1, 1, 256, 1, 1, 0)",  # short rows: a thread per output
    ]


def test_reduction_replay(device, rng):
    k = em.ReductionKernel("T x, T w", "T y", "x * w", "a + b", "y = a", "0", "wsum")
    for _ in range(3):
        x = rng.integers(-9, 9, (4, 5, 6)).astype(np.int32)
        ex = em.asarray(x)
        for axis, keepdims in ((None, False), (1, False), ((0, 2), True), (-1, True)):
            got = k(ex, 3, axis=axis, keepdims=keepdims)
            np.testing.assert_array_equal(got.get(), 3 * x.sum(axis=axis, keepdims=keepdims))
        got = k(ex[:, ::-2].transpose(2, 0, 1), np.int32(2), axis=2)
        np.testing.assert_array_equal(got.get(), 2 * x[:, ::-2].transpose(2, 0, 1).sum(axis=2))
        assert k(em.asarray(np.int32(5)), 1).get() == 5
    with pytest.raises(OverflowError, match="Python int 2147483648 is out of bounds for int32"):
        k(ex, 2**31)
    assert len(k._plans) == 6


@pytest.mark.parametrize("dt", [np.dtype("int16"), np.dtype("uint32"), np.dtype("float64")], ids=str)
def test_reduction_over_leading_axes(device, rng, dt):
    # one kept dimension nearer in memory than the reduced ones: the CPU walks
    # all outputs per reduced element (a buffer of accumulators)
    k = em.ReductionKernel("T x", "T y", "x", "a + b", "y = a", "0", "colsum")
    for name, x in layouts(rng, (5, 12), dt):
        if x.ndim != 2:
            continue
        got = k(to_em(x), axis=0)
        want = np.sum(x, axis=0, dtype=dt)
        np.testing.assert_allclose(got.get(), want, rtol=1e-12, err_msg=name)
    x = random_array(rng, (3, 4, 10), dt)
    np.testing.assert_allclose(k(em.asarray(x), axis=(0, 1)).get(), x.sum(axis=(0, 1), dtype=dt), rtol=1e-12)
    np.testing.assert_allclose(k(em.asarray(x)[:, ::-1, ::2], axis=(0, 1), keepdims=True).get(),
                               x[:, ::-1, ::2].sum(axis=(0, 1), keepdims=True, dtype=dt), rtol=1e-12)


def test_column_reductions(device, rng):
    # reduced elements farther apart than neighbouring outputs (axis 0 of a
    # C-ordered matrix): on CUDA a thread per output, over partials when the
    # outputs alone do not fill the GPU, else writing the outputs directly
    l2 = em.ReductionKernel("T x", "T y", "x * x", "a + b", "y = sqrt(a)", "0", "l2cols")
    for shape in [(40, 5000), (1000, 300), (3000, 64), (40, 33), (7, 1000)]:
        x = rng.random(shape)
        want = np.sqrt((x * x).sum(axis=0))
        np.testing.assert_allclose(l2(em.asarray(x), axis=0).get(), want, rtol=1e-12, err_msg=str(shape))
        np.testing.assert_allclose(l2(em.asarray(x)[::-1], axis=0).get(), want, rtol=1e-12)  # negative steps
        np.testing.assert_allclose(l2(em.asarray(np.ascontiguousarray(x.T)).T, axis=0).get(), want,
                                   rtol=1e-12)  # rows in memory: not the column form
    x = rng.random((50, 7, 40))
    np.testing.assert_allclose(l2(em.asarray(x), axis=(0, 1)).get(), np.sqrt((x * x).sum(axis=(0, 1))),
                               rtol=1e-12)  # two reduced dimensions, not mergeable once strided:
    np.testing.assert_allclose(l2(em.asarray(x)[:, ::2], axis=(0, 1), keepdims=True).get(),
                               np.sqrt((x[:, ::2] ** 2).sum(axis=(0, 1), keepdims=True)), rtol=1e-12)
    o = em.zeros(300)
    m = rng.random((1000, 300))
    assert l2(em.asarray(m), axis=0, out=o) is o
    np.testing.assert_allclose(o.get(), np.sqrt((m * m).sum(axis=0)), rtol=1e-12)
    # a broadcast input (stride 0 along the outputs) and an integer sum
    cs = em.ReductionKernel("T x", "T y", "x", "a + b", "y = a", "0", "colsum_i")
    v = rng.integers(-9, 9, (5000, 1)).astype(np.int64)
    np.testing.assert_array_equal(cs(em.asarray(np.broadcast_to(v, (5000, 64))), axis=0).get(),
                                  np.full(64, v.sum()))


def test_large_calls_split_over_threads(device, rng):
    # big enough for the CPU to split the items over its workers: every
    # chunk must start its index and odometer at its own first item
    iota = em.ElementwiseKernel("T x", "int64 z", "z = i + 0 * x", "iota_big")
    x = em.asarray(rng.random((700, 300)))
    np.testing.assert_array_equal(iota(x.T).get(), np.arange(210000).reshape(300, 700))
    sq = em.ElementwiseKernel(*SQUARED_DIFF[:3], "sq_big")
    a, b = rng.random((600, 500)), rng.random(500)
    np.testing.assert_array_equal(sq(em.asarray(a)[::-1], em.asarray(b)).get(), (a[::-1] - b) ** 2)
    k = em.ReductionKernel(*SUM[:6], "sum_big")
    m = rng.integers(-50, 50, (1000, 300)).astype(np.int64)
    np.testing.assert_array_equal(k(em.asarray(m), axis=1).get(), m.sum(axis=1))
    np.testing.assert_array_equal(k(em.asarray(m), axis=0).get(), m.sum(axis=0))
    np.testing.assert_array_equal(k(em.asarray(m.T.copy()), axis=0).get(), m.sum(axis=1))


def test_long_reductions_split_over_threads(device, rng):
    # few outputs with long rows: the CPU splits each row over its threads
    # (partials, then a finishing pass that also runs post_map_expr)
    avg = em.ReductionKernel("T x, int64 n", "float64 y", "x", "a + b", "y = (double)a / n", "0", "avg_big",
                             reduce_type="int64")
    x = rng.integers(-1000, 1000, 300001).astype(np.int32)
    got = avg(em.asarray(x), 7)
    assert got.dtype == np.float64 and got.get() == x.astype(np.int64).sum() / 7
    m = rng.integers(-1000, 1000, (1, 2, 200003)).astype(np.int64)
    got = avg(em.asarray(m), 1, axis=(0, 2), keepdims=True)
    np.testing.assert_array_equal(got.get(), m.sum(axis=(0, 2), keepdims=True).astype(np.float64))
    l2 = em.ReductionKernel(*L2NORM[:6], "l2_big")
    f = rng.random(400000)
    assert l2(em.asarray(f)).get() == pytest.approx(np.sqrt((f * f).sum()), rel=1e-12)


@pytest.mark.parametrize("dt", COMPLEX_DTYPES, ids=str)
def test_complex_operators_and_functions(device, rng, dt):
    # one body for C's _Complex (CPU) and Ember's complex struct (CUDA)
    k = em.ElementwiseKernel(
        "T x, T y, float64 f", "T s, T p, T q, float64 r",
        "s = x * f + 1 - y; p = conj(x) * y / (x + 2); q = exp(x) + log(y) + sqrt(x) + sin(x) * cos(y);"
        " r = abs(x) + real(y) * 10 + imag(y) * 100 + arg(x)", "cplx")
    x = random_array(rng, 40, dt, low=0.5, high=3)
    y = random_array(rng, 40, dt, low=0.5, high=3)
    s, p, q, r = k(em.asarray(x), em.asarray(y), 0.5)
    tol = 1e-5 if dt == np.complex64 else 1e-12
    np.testing.assert_allclose(s.get(), x * 0.5 + 1 - y, rtol=tol)
    np.testing.assert_allclose(p.get(), np.conj(x) * y / (x + 2), rtol=tol)
    np.testing.assert_allclose(q.get(), np.exp(x) + np.log(y) + np.sqrt(x) + np.sin(x) * np.cos(y), rtol=tol * 10)
    np.testing.assert_allclose(r.get(), np.abs(x) + y.real * 10 + y.imag * 100 + np.angle(x), rtol=tol)
    total = em.ReductionKernel("T x", "T y", "x * x", "a + b", "y = a", "0", "csq")(em.asarray(x))
    np.testing.assert_allclose(total.get(), (x * x).sum(), rtol=tol * 10)


def test_many_short_reductions(device, rng):
    # many outputs of a few elements each (on CUDA: a thread per output)
    k = em.ReductionKernel("T x, T w", "T y", "x * w", "a + b", "y = a", "0", "short_rows")
    m = rng.integers(-9, 9, (3000, 5)).astype(np.int64)
    np.testing.assert_array_equal(k(em.asarray(m), 2, axis=1).get(), 2 * m.sum(axis=1))
    np.testing.assert_array_equal(k(em.asarray(m.T.copy()).T, 1, axis=1, keepdims=True).get(),
                                  m.sum(axis=1, keepdims=True))
    f = rng.random((2048, 3))
    l2 = em.ReductionKernel(*L2NORM[:6], "l2_rows")
    np.testing.assert_allclose(l2(em.asarray(f), axis=-1).get(), np.linalg.norm(f, axis=-1), rtol=1e-12)


# ---- property: any broadcastable, sliced operands give NumPy's result -------

from hypothesis import given, settings, strategies as st  # noqa: E402

_PROP_KERNEL = em.ElementwiseKernel("T x, T y, T c", "T z", "z = x * c - y", "prop_axpy")


@st.composite
def _operands(draw):
    nd = draw(st.integers(0, 3))
    shape = tuple(draw(st.lists(st.integers(1, 4), min_size=nd, max_size=nd)))
    dt = draw(st.sampled_from([np.int32, np.int64, np.float64]))

    def operand():
        # a shape that broadcasts to `shape`, as a view with steps of 1, 2 or -1
        sub = tuple(1 if draw(st.booleans()) else n for n in shape)[draw(st.integers(0, nd)):]
        steps = [draw(st.sampled_from([1, 2, -1])) for _ in sub]
        full = [n * abs(s) for n, s in zip(sub, steps)]
        base = (np.arange(int(np.prod(full)), dtype=dt) % 7 - 3).reshape(full)
        return base[tuple(slice(None, None, s) for s in steps)]
    return operand(), operand(), dt(draw(st.integers(-3, 3)))


@settings(max_examples=40, deadline=None)
@given(_operands())
def test_property_broadcast_layouts(ops):
    """On the default device: every layout and broadcast of the operands."""
    x, y, c = ops
    got = _PROP_KERNEL(to_em(x), to_em(y), c)
    np.testing.assert_array_equal(got.get(), x * c - y)
