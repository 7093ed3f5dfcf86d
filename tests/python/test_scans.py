"""cumsum / cumprod against NumPy on the shapes that pick each CUDA form
(src/codegen/run_scan.c): lines around the tile size (2048) and several
tiles long, 2**20 + 3 elements, few long lines along an axis, many short or
interleaved lines, flattened scans of strided and negative-stride input,
float16 (rounded every step, NumPy's order), empty and 0-d, every dtype.

Exact comparisons: the data are integer-valued (sums) or products of
+-1, 2 and 1/2 with few factors of 2 (products), so every grouping of the
operations gives the same value and a parallel scan must equal NumPy's
sequential one bit for bit -- a lost or doubled element or tile shows.

Rounding (test_rounding_*): on random data the CUDA tile scan groups
additions as a tree of depth at most D = 5 * 8 + 3 * log2(256) + 3 + ceil(tiles
/ 2048) (scan.c's three phases; the single pass in registers 32 + 7 a tile of
1024, _depth), so |result - exact| <= D * eps * (running sum
of |x|) (Higham, Accuracy and Stability, Lemma 3.1 / eq. 4.4 for any
summation order).  A product has n - 1 roundings in any order, each
scaling the whole product: relative error <= about n * eps (3 n eps for
complex, whose multiply rounds up to sqrt(5) eps), NumPy's own bound -- loose,
which is why the exact tests above carry the weight.  The exact value is
approximated in twice the precision (long double for float64), whose own
error bound is added.  On the CPU the scan is NumPy's sequential order:
bit-exact (but complex products: the CPU's complex multiply may round an ulp
apart from NumPy's)."""
import numpy as np
import pytest

import ember as em
from helpers import ALL_DTYPES, layouts, random_array, to_em

TILE = 2048
LENGTHS = [1, TILE - 1, TILE, TILE + 1, 3 * TILE + 1]
# The CPU backend starts its sums from +0.0, so cumsum([-0.0]) is 0.0 there
# (NumPy: -0.0); the CUDA kernels start from the first element.
_CPU_ZERO = "cpu"


def check_scan(device, name, a, x, axis=None, dtype=None):
    """em.<name>(x) equals np.<name>(a) exactly (NaN equal to NaN; the sign
    of zero too, off the CPU)."""
    with np.errstate(invalid="ignore", over="ignore"):  # inf - inf is NaN, as it should
        want = getattr(np, name)(a, axis=axis, dtype=dtype)
    got = getattr(em, name)(x, axis=axis, dtype=dtype)
    assert isinstance(got, em.ndarray) and got.dtype == want.dtype and got.shape == want.shape
    g = got.get()
    np.testing.assert_array_equal(g, want)
    # A complex product's zero parts (a.re*b.re - a.im*b.im) take their sign
    # from the grouping, which a parallel scan changes: values only there.
    parallel_cprod = name == "cumprod" and want.dtype.kind == "c" and device.kind != "cpu"
    if want.dtype.kind in "fc" and device.kind != _CPU_ZERO and not parallel_cprod:
        assert np.array_equal(np.signbit(g.real), np.signbit(want.real))
        assert np.array_equal(np.signbit(g.imag), np.signbit(want.imag))


def _data(rng, shape, dtype, name):
    """Values whose scans are exact in any grouping (module docstring)."""
    dtype = np.dtype(dtype)
    if name == "cumsum":
        v = rng.integers(-8, 9, shape).astype(np.float64)
        if dtype.kind == "c":
            v = v + 1j * rng.integers(-8, 9, shape)
    else:
        v = rng.choice([-1.0, 1.0], shape) * rng.choice([1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 2.0, 0.5], shape)
        if dtype.kind == "c":
            v = v * rng.choice([1, 1j], shape)
        if dtype.kind in "biu":
            v = np.abs(v).round()
    return v.astype(dtype)


@pytest.mark.parametrize("name", ["cumsum", "cumprod"])
@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=str)
def test_lengths_around_the_tile(device, rng, name, dtype):
    for n in LENGTHS:
        a = _data(rng, (2 * n,), dtype, name)[::-2]  # negative stride, not contiguous
        check_scan(device, name, a, to_em(a))


@pytest.mark.parametrize("name", ["cumsum", "cumprod"])
@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=str)
def test_few_long_lines_along_an_axis(device, rng, name, dtype):
    a = _data(rng, (3, 2 * TILE + 5), dtype, name)
    x = to_em(a)
    check_scan(device, name, a, x, axis=1)
    check_scan(device, name, a.T, x.T, axis=0)  # the lines are columns of the transpose
    b = _data(rng, (2, 2 * TILE + 1, 3), dtype, name)
    check_scan(device, name, b, to_em(b), axis=1)


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=str)
def test_flattened_layouts(device, rng, dtype):
    for name in ["cumsum", "cumprod"]:
        base = _data(rng, (6, 1400, 10), dtype, name)
        views = {"contiguous": base[:3, :700, :5], "strided": base[::2, ::2, ::2],
                 "negative-strides": base[::-2, ::-2, ::-2], "transposed": base[:5, :700, :3].T,
                 "broadcast": np.broadcast_to(base[:1, :700, :5], (3, 700, 5)), "0-d": base[0, 0, 0],
                 "empty": base[:0]}
        for lname, a in views.items():
            check_scan(device, name, a, to_em(a))
            if a.ndim == 3:
                for axis in (0, 1, 2):
                    check_scan(device, name, a, to_em(a), axis=axis)


def test_edge_layouts_helper(device, rng):
    """helpers.layouts on a shape with a line longer than a tile."""
    for lname, a in layouts(rng, (2, 2 * TILE + 3), np.int32):
        for axis in [None, -1]:
            check_scan(device, "cumsum", a, to_em(a), axis=axis if a.ndim else None)


@pytest.mark.parametrize("dtype", ["int64", "float32", "complex64", "uint8", "float64"])
def test_two_to_the_twenty_plus_three(device, rng, dtype):
    n = 2**20 + 3
    for name in ["cumsum", "cumprod"]:
        a = _data(rng, (n,), dtype, name)
        if name == "cumprod" and np.dtype(dtype).kind in "fc":
            # Signs only, and factors of 2 each undone by the next element: the running
            # product's exponent stays 0 or 1 (a random walk of 2s and halves leaves the
            # float range over 2^20 steps, and a parallel scan's inf * 0 is not NumPy's inf).
            a = rng.choice([-1.0, 1.0], n).astype(dtype)
            twos = np.flatnonzero(rng.random(n // 2) < 0.25) * 2
            a[twos] *= 2
            a[twos + 1] *= 0.5
        check_scan(device, name, a, em.asarray(a))


def test_more_tiles_than_one_block_scans_at_once(device, rng):
    """Over TILE tile totals in a line: phase 2 carries from one chunk of
    totals to the next (tile TILE + 1 starts from the second chunk)."""
    n = TILE * (TILE + 1) + 5
    for dtype in ["int32", "float64"]:
        a = _data(rng, (n,), dtype, "cumsum")
        check_scan(device, "cumsum", a, em.asarray(a))


@pytest.mark.parametrize("dtype", ["float64", "int16", "complex128", "bool"])
def test_many_lines(device, rng, dtype):
    """Short lines, and many interleaved ones (one thread per line on CUDA:
    40000 columns are at least 256 per multiprocessor)."""
    a = _data(rng, (40, 9000), dtype, "cumsum")
    x = to_em(a)
    for axis in (0, 1):
        check_scan(device, "cumsum", a, x, axis=axis)
    w = _data(rng, (20, 40000), dtype, "cumsum")
    check_scan(device, "cumsum", w, to_em(w), axis=0)
    b = _data(rng, (3000, 12), dtype, "cumprod")
    check_scan(device, "cumprod", b, to_em(b), axis=1)
    check_scan(device, "cumprod", b, to_em(b), axis=0)


def test_special_values(device):
    """-0.0 first (no identity added), infinities and NaN mid-line, across tiles."""
    a = np.ones(3 * TILE + 7)
    a[0] = -0.0
    check_scan(device, "cumsum", a[:1], em.asarray(a[:1]))
    assert np.signbit(em.cumsum(em.asarray(a[:1])).get()[0]) or device.kind == _CPU_ZERO
    a[TILE + 3] = np.inf
    check_scan(device, "cumsum", a, em.asarray(a))
    a[2 * TILE + 1] = -np.inf
    check_scan(device, "cumsum", a, em.asarray(a))
    a[5] = np.nan
    check_scan(device, "cumprod", a, em.asarray(a))
    c = np.ones(2 * TILE + 1, np.complex128)
    c[3] = complex(0, np.inf)  # (1+0j) * x would make NaNs of it
    check_scan(device, "cumsum", c, em.asarray(c))
    check_scan(device, "cumprod", c[:4], em.asarray(c[:4]))
    z = np.full(TILE + 9, -0.0, np.float32)
    check_scan(device, "cumsum", z, em.asarray(z))
    assert np.all(np.signbit(em.cumsum(em.asarray(z)).get())) or device.kind == _CPU_ZERO


def test_float16_rounds_every_step_on_long_lines(device, rng):
    """NumPy rounds every float16 partial: bit-exact in every form."""
    a = rng.uniform(-4, 4, 3 * TILE + 1).astype(np.float16)
    np.testing.assert_array_equal(em.cumsum(em.asarray(a)).get(), np.cumsum(a))
    b = rng.uniform(-4, 4, (40, 3000)).astype(np.float16)  # many lines: on the device
    np.testing.assert_array_equal(em.cumsum(em.asarray(b), axis=1).get(), np.cumsum(b, axis=1))
    p = (1 + rng.uniform(-0.01, 0.01, (2, 5000))).astype(np.float16)
    np.testing.assert_array_equal(em.cumprod(em.asarray(p), axis=1).get(), np.cumprod(p, axis=1))
    x = rng.integers(-3, 4, 5000).astype(np.int32)
    np.testing.assert_array_equal(em.cumsum(em.asarray(x), dtype="float16").get(), np.cumsum(x, dtype="float16"))


def test_dtype_argument_long(device, rng):
    a = rng.integers(-100, 100, 3 * TILE).astype(np.int32)
    for dt in ["int8", "float32", "float64", "complex128", "uint16", "bool"]:
        check_scan(device, "cumsum", a, em.asarray(a), dtype=np.dtype(dt))
        check_scan(device, "cumprod", a % 2, em.asarray(a % 2), dtype=np.dtype(dt))


@pytest.mark.parametrize("shape,axis", [((0,), None), ((3, 0), 0), ((3, 0), 1), ((0, 5000), 1), ((), None)])
def test_empty_and_zero_d(device, rng, shape, axis):
    for dtype in ["float32", "int64", "complex64", "float16"]:
        a = random_array(rng, shape, dtype)
        for name in ["cumsum", "cumprod"]:
            check_scan(device, name, a, em.asarray(a), axis=axis)


# ---- rounding on random data ------------------------------------------------------


def _depth(n):
    """The tile scan's tree depth for a line of n (module docstring): the three
    tile kernels', or CUDA's single pass in registers (run_scan.c), whose tile
    (1024 elements or more) folds at most 15 + 5 + 4 + 8 deep and whose
    look-back adds at most 7 a tile before it (a window's tree of 5, the
    window's carry and the tile's own)."""
    tiles = -(-n // TILE)
    return max(5 * 8 + 3 * 8 + 3 + -(-tiles // TILE), 32 + 7 * -(-n // 1024))


def _wide(dtype):
    return {"f": np.float64, "d": np.longdouble, "F": np.complex128, "D": np.clongdouble}[np.dtype(dtype).char]


def check_rounding(device, name, a, axis):
    """NumPy's result exactly on the CPU; on CUDA within the module's bound
    of the result in twice the precision."""
    want = getattr(np, name)(a, axis=axis)
    g = getattr(em, name)(em.asarray(a), axis=axis).get()
    cplx_prod = name == "cumprod" and a.dtype.kind == "c"
    if device.kind == "cpu" and not cplx_prod:
        np.testing.assert_array_equal(g, want)
        return
    w = _wide(a.dtype)
    exact = getattr(np, name)(a.astype(w), axis=axis)
    n = a.shape[axis] if axis is not None else a.size
    eps, eps_ref = np.finfo(a.dtype).eps, np.finfo(w).eps
    mag = np.abs(a.astype(w))
    if name == "cumsum":  # complex: the bound holds per component, sqrt(2) for the modulus
        k = np.sqrt(2) if a.dtype.kind == "c" else 1
        tol = k * (_depth(n) * eps + n * eps_ref) * np.cumsum(mag, axis=axis)
    else:  # every one of the n - 1 roundings scales the whole product, in any order
        k = 3 if a.dtype.kind == "c" else 1
        tol = k * n * (eps + eps_ref) * np.cumprod(mag, axis=axis)
    err = np.abs(g.astype(w) - exact)
    assert np.all(err <= tol * 1.01), f"error {float(np.max(err / tol)):.3g} times the bound"


@pytest.mark.parametrize("dtype", ["float32", "float64", "complex64", "complex128"])
def test_rounding_long_lines(device, rng, dtype):
    for shape, axis in [((2**20 + 3,), None), ((3, 3 * TILE + 5), 1), ((3 * TILE + 5, 2), 0)]:
        a = random_array(rng, shape, dtype)
        check_rounding(device, "cumsum", a, axis)
        p = (rng.uniform(0.99, 1.01, shape) * rng.choice([-1, 1], shape)).astype(dtype)
        if p.dtype.kind == "c":
            p = p * np.exp(1j * rng.uniform(-0.1, 0.1, shape)).astype(dtype)
        check_rounding(device, "cumprod", p, axis)


def test_errors_keep_working(device):
    x = em.ones((3, 5000))
    with pytest.raises(np.exceptions.AxisError, match="axis 2 is out of bounds for array of dimension 2"):
        em.cumsum(x, axis=2)
    o = em.zeros((3, 5000), dtype="int64")  # NumPy casts a scan's result into out= unsafely
    assert em.cumsum(x, axis=1, out=o) is o and int(o[2, 4999]) == 5000
    assert float(em.cumsum(x, axis=1)[2, 4999]) == 5000.0
