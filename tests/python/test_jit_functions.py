"""@em.jit plain functions (loops, called without a launch configuration),
@em.stencil and @em.vectorize against NumPy."""
import math

import numpy as np
import pytest

import ember as em

from helpers import random_array, to_np

# Tests without the `device` parameter run on the CPU even where the default
# device is a GPU (they pass NumPy arrays and check CPU behaviour).
pytestmark = [pytest.mark.skipif(not em._ember._cc_available(),
                                 reason="no C compiler: " + em._ember._cc_why()),
              pytest.mark.usefixtures("cpu_unless_device_param")]


# -- plain functions (seed 002) -----------------------------------------------------------------
@em.jit
def smooth_loops(x):
    out = np.empty_like(x)
    for i in range(1, x.shape[0] - 1):
        for j in range(1, x.shape[1] - 1):
            out[i, j] = (x[i-1, j-1] + x[i-1, j+0] + x[i-1, j+1] +
                         x[i+0, j-1] + x[i+0, j+0] + x[i+0, j+1] +
                         x[i+1, j-1] + x[i+1, j+0] + x[i+1, j+1]) // 9
    return out


def smooth_model(x):
    s = sum(x[1 + di:x.shape[0] - 1 + di, 1 + dj:x.shape[1] - 1 + dj]
            for di in (-1, 0, 1) for dj in (-1, 0, 1))
    return s // 9


@pytest.mark.parametrize("dt", ["int32", "int64", "float64"])
def test_seed_smooth_loops(rng, dt):
    x = random_array(rng, (40, 57), dt, low=0, high=100)
    out = smooth_loops(x)
    assert isinstance(out, np.ndarray) and out.dtype == x.dtype and out.shape == x.shape
    np.testing.assert_array_equal(out[1:-1, 1:-1], smooth_model(x))
    eout = smooth_loops(em.asarray(x, device="cpu"))  # an ember (CPU) input gives an ember result
    assert isinstance(eout, em.ndarray)
    np.testing.assert_array_equal(to_np(eout)[1:-1, 1:-1], smooth_model(x))


@em.jit
def total(x):
    t = 0
    for i in range(x.shape[0]):
        t += x[i]
    return t


@pytest.mark.parametrize("dt", ["bool", "int8", "uint16", "int32", "int64", "float32", "float64"])
def test_return_scalar(rng, dt):
    x = random_array(rng, (101,), dt)
    got = total(x)
    want_dtype = np.promote_types(np.int64, dt) if dt != "bool" else np.dtype(np.int64)
    assert got.dtype == want_dtype
    np.testing.assert_allclose(got, x.astype(want_dtype).sum(), rtol=1e-6)


@em.jit
def fill_and_count(a, value):
    n = 0
    for i in range(a.shape[0]):
        for j in range(a.shape[1]):
            if (i + j) % 2 == 0:
                a[i, j] = value
                n += 1
    return n


def test_writes_into_arguments():
    a = np.zeros((5, 6), np.float32)
    assert fill_and_count(a, 2.5) == 15
    want = np.zeros((5, 6), np.float32)
    want[(np.add.outer(np.arange(5), np.arange(6)) % 2) == 0] = 2.5
    np.testing.assert_array_equal(a, want)
    e = em.zeros((5, 6), dtype="float32", device="cpu")
    assert fill_and_count(e, 2.5) == 15
    np.testing.assert_array_equal(to_np(e), want)


@em.jit
def cumulative(x):
    out = np.zeros_like(x, dtype=np.float64)
    acc = 0.0
    for i in range(x.shape[0]):
        acc += x[i]
        out[i] = acc
    return out


def test_zeros_like_with_dtype(rng):
    x = random_array(rng, (50,), "int16")
    out = cumulative(x)
    assert out.dtype == np.float64
    np.testing.assert_array_equal(out, np.cumsum(x, dtype=np.float64))


@em.jit
def returns_argument(a):
    for i in range(a.shape[0]):
        a[i] = i
    return a


def test_return_argument_array():
    a = np.zeros(4)
    assert returns_argument(a) is a
    np.testing.assert_array_equal(a, np.arange(4))


@em.jit
def chatty(n):
    for i in range(n):
        print("i =", i)
    return n * 2


def test_plain_print(capsys):
    assert chatty(3) == 6
    assert capsys.readouterr().out == "i = 0\ni = 1\ni = 2\n"


def test_plain_function_on_gpu_arrays_is_refused():
    if not em.cuda.is_available():
        pytest.skip("needs a GPU")
    with pytest.raises(ValueError, match=r"runs on the CPU, but its arguments are on cuda:0"):
        total(em.zeros(4, device="cuda:0"))


# -- stencils --------------------------------------------------------------------------------------
@em.stencil
def smooth_stencil(x):
    return (x[-1, -1] + x[-1, 0] + x[-1, 1] +
            x[0, -1] + x[0, 0] + x[0, 1] +
            x[1, -1] + x[1, 0] + x[1, 1]) // 9


@pytest.mark.parametrize("dt", ["int32", "float32", "uint8"])
def test_seed_stencil(device, rng, dt):
    x = random_array(rng, (33, 70), dt, low=0, high=25)
    got = smooth_stencil(em.asarray(x.copy(), device=device))
    assert isinstance(got, em.ndarray)
    want = np.zeros_like(smooth_model(x), shape=x.shape)
    want[1:-1, 1:-1] = smooth_model(x)
    np.testing.assert_array_equal(to_np(got), want)


def test_stencil_numpy_in_numpy_out(rng):
    x = random_array(rng, (12, 9), "int32")
    got = smooth_stencil(x)
    assert isinstance(got, np.ndarray)
    np.testing.assert_array_equal(got[1:-1, 1:-1], smooth_model(x))
    assert not got[0].any() and not got[:, -1].any()


@em.stencil
def forward_diff(a, h):
    return (a[2] - a[0]) / h


@em.stencil(cval=-1)
def shift3(a):
    return a[0, 0, 1] + a[0, -1, 0]


def test_stencil_1d_3d_scalars_cval(device, rng):
    a = rng.standard_normal(30)
    got = to_np(forward_diff(em.asarray(a, device=device), 0.5))
    want = np.zeros(30)
    want[:-2] = (a[2:] - a[:-2]) / 0.5
    np.testing.assert_array_equal(got, want)
    b = rng.integers(0, 9, (3, 4, 5)).astype(np.int64)
    got = to_np(shift3(em.asarray(b, device=device)))
    want = np.full(b.shape, -1)
    want[:, 1:, :-1] = b[:, 1:, 1:] + b[:, :-1, :-1]
    np.testing.assert_array_equal(got, want)


@em.stencil
def computed_offset(a):
    k = 1
    return a[k]


@em.stencil(neighborhood=((-1, 1),))
def computed_ok(a):
    k = 1
    return a[k] + a[-k]


def test_stencil_neighborhood():
    with pytest.raises(em.CompileError, match=r"offsets are computed: give neighborhood="):
        computed_offset(np.zeros(5))
    a = np.arange(6.0)
    np.testing.assert_array_equal(computed_ok(a), [0, 2, 4, 6, 8, 0])


def test_stencil_shape_mismatch():
    @em.stencil
    def two(a, b):
        return a[0] + b[1]

    with pytest.raises(ValueError, match="must have the same shape"):
        two(np.zeros(4), np.zeros(5))
    np.testing.assert_array_equal(two(np.ones(4), np.arange(4.0)), [2, 3, 4, 0])


# -- vectorize ---------------------------------------------------------------------------------------
@em.vectorize
def rel_diff(a, b):
    d = abs(a - b)
    return d / max(abs(a), abs(b), 1e-30)


@em.vectorize
def clip_int(x, lo, hi):
    return min(max(x, lo), hi)


def test_vectorize_broadcasts(device, rng):
    a = rng.standard_normal((4, 1, 5))
    b = rng.standard_normal((3, 1)).astype(np.float32)
    got = rel_diff(em.asarray(a, device=device), em.asarray(b, device=device))
    assert isinstance(got, em.ndarray) and got.shape == (4, 3, 5) and got.dtype == np.float64
    want = np.abs(a - b) / np.maximum(np.maximum(np.abs(a), np.abs(b)), 1e-30)
    np.testing.assert_allclose(to_np(got), want, rtol=1e-15)


@pytest.mark.parametrize("dt", ["int8", "int32", "uint16", "float32"])
def test_vectorize_dtypes(device, rng, dt):
    x = random_array(rng, (7, 9), dt)
    lo, hi = np.array(-3, dt) if dt[0] != "u" else np.array(3, dt), np.array(20, dt)
    got = clip_int(em.asarray(x, device=device), lo, hi)
    assert got.dtype == np.dtype(dt)
    np.testing.assert_array_equal(to_np(got), np.clip(x, lo, hi))


def test_vectorize_numpy_and_scalars():
    x = np.linspace(0, 1, 5)
    got = rel_diff(x, 0.5)
    assert isinstance(got, np.ndarray)
    np.testing.assert_allclose(got, np.abs(x - 0.5) / np.maximum(np.maximum(x, 0.5), 1e-30))
    assert float(rel_diff(2.0, 1.0)) == 0.5
    assert rel_diff(np.zeros((0, 3)), 1.0).shape == (0, 3)


def test_vectorize_errors():
    with pytest.raises(TypeError, match="takes no signatures"):
        em.vectorize(["float64(float64)"])
    with pytest.raises(TypeError, match=r"takes 2 arguments but 1 were given"):
        rel_diff(np.zeros(3))

    @em.vectorize
    def no_value(x):
        x + 1

    with pytest.raises(em.CompileError, match="must return a value"):
        no_value(np.zeros(3))

    @em.vectorize
    def bad(x):
        return math.gcd(x, 2)

    with pytest.raises(em.CompileError, match=r"line \d+ .*math.gcd is not supported in kernels"):
        bad(np.zeros(3))
