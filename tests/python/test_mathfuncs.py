"""cross, convolve, correlate, interp, gradient, trapezoid, unwrap, sinc,
windows, vander, nan_to_num, real_if_close, iscomplex/isreal, sort_complex,
matvec/vecmat, fabs/ldexp/modf/frexp/spacing/bitwise_count, packbits,
polynomials and I/O against NumPy."""
import io
import warnings

import numpy as np
import pytest

import ember as em
from helpers import assert_same, layouts, random_array, to_em


@pytest.mark.parametrize("dtype", ["int32", "float32", "float64", "complex128"])
def test_cross(device, rng, dtype):
    a = random_array(rng, (4, 3), dtype)
    b = random_array(rng, (4, 3), dtype)
    assert_same(em.cross(to_em(a), to_em(b)), np.cross(a, b))
    assert_same(em.cross(to_em(a.T), to_em(b), axisa=0), np.cross(a.T, b, axisa=0))
    assert_same(em.cross(to_em(a), to_em(b[0])), np.cross(a, b[0]))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        try:  # 2-vectors: deprecated in NumPy 2.0, an error in later NumPy releases
            want = np.cross(a[:, :2], b)
        except ValueError:
            want = None
        if want is not None:
            assert_same(em.cross(to_em(a[:, :2]), to_em(b)), want)
    with pytest.raises(ValueError, match="incompatible dimensions"):
        em.cross(to_em(a[:, :1]), to_em(b))


@pytest.mark.parametrize("dtype", ["int16", "float32", "float64", "complex64"])
@pytest.mark.parametrize("mode", ["full", "same", "valid"])
def test_convolve_correlate(device, rng, dtype, mode):
    for n, m in ((10, 3), (3, 10), (1, 1), (7, 7), (300, 260)):
        a, v = random_array(rng, (n,), dtype), random_array(rng, (m,), dtype)
        tol = 1e-4 if dtype in ("float32", "complex64") else None
        assert_same(em.convolve(to_em(a), to_em(v), mode), np.convolve(a, v, mode), rtol=tol, atol=1e-3 if tol else 0)
        assert_same(em.correlate(to_em(a), to_em(v), mode), np.correlate(a, v, mode), rtol=tol, atol=1e-3 if tol else 0)
    with pytest.raises(ValueError, match="cannot be empty"):
        em.convolve(em.zeros(0), em.ones(2))


def test_interp(device, rng):
    xp = np.sort(rng.normal(size=12))
    fp = rng.normal(size=12)
    x = np.concatenate([rng.normal(size=50) * 2, xp, [np.nan, -np.inf, np.inf]])
    for dt in ("float32", "float64", "int64"):
        xx = x if dt != "int64" else np.arange(-5, 5)
        assert_same(em.interp(to_em(xx.astype(dt) if dt != "int64" else xx), to_em(xp), to_em(fp)),
                    np.interp(xx.astype(dt) if dt != "int64" else xx, xp, fp))
    assert_same(em.interp(to_em(x), to_em(xp), to_em(fp), left=-7, right=7.5),
                np.interp(x, xp, fp, left=-7, right=7.5))
    assert_same(em.interp(to_em(x), em.asarray([0.0]), em.asarray([3.0])), np.interp(x, [0.0], [3.0]))
    assert_same(em.interp(em.asarray(0.3), to_em(xp), to_em(fp)), np.interp(0.3, xp, fp))
    assert_same(em.interp(to_em(x[:5]), to_em(xp), to_em(fp + 1j)), np.interp(x[:5], xp, fp + 1j))
    assert_same(em.interp(to_em(x[:5]), to_em(xp), to_em(fp), period=2.0), np.interp(x[:5], xp, fp, period=2.0))
    with pytest.raises(ValueError, match="fp and xp are not of the same length"):
        em.interp(to_em(x), to_em(xp), to_em(fp[:3]))


@pytest.mark.parametrize("dtype", ["int32", "float32", "float64"])
def test_gradient_trapezoid(device, rng, dtype):
    f = random_array(rng, (5, 6), dtype)
    for eo in (1, 2):
        for args in ((), (0.5,), (2.0, 0.25)):
            got, want = em.gradient(to_em(f), *args, edge_order=eo), np.gradient(f, *args, edge_order=eo)
            for g, w in zip(got, want):
                assert_same(g, w)
        assert_same(em.gradient(to_em(f), axis=1, edge_order=eo), np.gradient(f, axis=1, edge_order=eo))
    x = np.cumsum(rng.random(6))
    assert_same(em.gradient(to_em(f), to_em(x), axis=1), np.gradient(f, x, axis=1))
    with pytest.raises(ValueError, match="Shape of array too small"):
        em.gradient(em.asarray([1.0]))
    assert_same(em.trapezoid(to_em(f)), np.trapezoid(f))
    assert_same(em.trapezoid(to_em(f), dx=0.3, axis=0), np.trapezoid(f, dx=0.3, axis=0))
    assert_same(em.trapezoid(to_em(f), x=to_em(x)), np.trapezoid(f, x=x))


def test_unwrap_sinc_windows_vander(device, rng):
    p = np.cumsum(rng.normal(size=(3, 40)) * 2, axis=1)
    for dt in ("float32", "float64"):
        pp = p.astype(dt)
        assert_same(em.unwrap(to_em(pp)), np.unwrap(pp), rtol=1e-4 if dt == "float32" else None)
        assert_same(em.unwrap(to_em(pp), axis=0, period=5.0), np.unwrap(pp, axis=0, period=5.0),
                    rtol=1e-4 if dt == "float32" else None)
    assert_same(em.unwrap(em.asarray([0, 5, 10])), np.unwrap([0, 5, 10]))
    x = np.concatenate([rng.normal(size=10), [0.0]])
    assert_same(em.sinc(to_em(x)), np.sinc(x))
    assert_same(em.sinc(to_em(x.astype(np.float32))), np.sinc(x.astype(np.float32)))
    for w in ("bartlett", "blackman", "hamming", "hanning"):
        for M in (0, 1, 2, 7, 12):
            assert_same(getattr(em, w)(M), getattr(np, w)(M), atol=1e-15)
    assert_same(em.kaiser(9, 4.0), np.kaiser(9, 4.0))
    assert_same(em.i0(to_em(x)), np.i0(x))
    for dt in ("int64", "float64", "complex128", "bool", "int8", "uint64", "float32",
               "complex64"):
        lo = 0 if dt[0] == "u" else -3
        v = random_array(rng, (5,), dt, **({} if dt == "bool" else {"low": lo, "high": 3}))
        for N, inc in ((None, False), (3, True), (0, False)):
            assert_same(em.vander(to_em(v), N, inc), np.vander(v, N, inc))


@pytest.mark.parametrize("dtype", ["float16", "float32", "float64", "complex64", "int32"])
def test_nan_to_num_and_complex_questions(device, dtype):
    a = np.array([np.nan, np.inf, -np.inf, 1.5, -0.0] if dtype[0] in "fc" else [1, 2, 3]).astype(dtype)
    if dtype.startswith("complex"):
        a = a + np.array([np.inf, np.nan, 0, 1, -np.inf]) * 1j
        a = a.astype(dtype)
    assert_same(em.nan_to_num(to_em(a)), np.nan_to_num(a))
    assert_same(em.nan_to_num(to_em(a), nan=-1, posinf=9, neginf=-9), np.nan_to_num(a, nan=-1, posinf=9, neginf=-9))
    e = to_em(a)
    r = em.nan_to_num(e, copy=False)
    assert r is e
    assert_same(e, np.nan_to_num(a))
    assert_same(em.iscomplex(to_em(a)), np.iscomplex(a))
    assert_same(em.isreal(to_em(a)), np.isreal(a))
    c = np.array([1 + 1e-20j, 2 + 0j])
    assert_same(em.real_if_close(to_em(c)), np.real_if_close(c))
    assert_same(em.real_if_close(to_em(c + 1j)), np.real_if_close(c + 1j))


def test_sort_complex_matvec_vecmat(device, rng):
    a = rng.integers(0, 5, 8).astype(np.int16)
    assert_same(em.sort_complex(to_em(a)), np.sort_complex(a))
    c = rng.normal(size=6) + 1j * rng.normal(size=6)
    assert_same(em.sort_complex(to_em(c)), np.sort_complex(c))
    m = rng.normal(size=(2, 3, 4))
    v = rng.normal(size=(4,))
    assert_same(em.matvec(to_em(m), to_em(v)), np.matvec(m, v))
    assert_same(em.vecmat(to_em(v[:3] + 1j), to_em(m)), np.vecmat(v[:3] + 1j, m))


@pytest.mark.parametrize("dtype", ["int8", "uint16", "float16", "float32", "float64", "bool"])
def test_extra_ufuncs(device, rng, dtype):
    for name, a in layouts(rng, (3, 4), dtype):
        assert_same(em.fabs(to_em(a)), np.fabs(a))
        if dtype != "bool":
            e = random_array(rng, a.shape, "int32", low=-20, high=20)
            assert_same(em.ldexp(to_em(a), to_em(e)), np.ldexp(a, e))
        if dtype[0] == "f" or dtype in ("int8", "uint16"):
            for g, w in zip(em.modf(to_em(a)), np.modf(a)):
                assert_same(g, w)
            for g, w in zip(em.frexp(to_em(a)), np.frexp(a)):
                assert_same(g, w)
        if dtype[0] == "f":
            assert_same(em.spacing(to_em(a)), np.spacing(a))
        else:
            assert_same(em.bitwise_count(to_em(a)), np.bitwise_count(a))
    special = np.array([np.inf, -np.inf, np.nan, -0.0, 2.5, -2.5])
    for g, w in zip(em.modf(to_em(special)), np.modf(special)):
        assert_same(g, w)
        np.testing.assert_array_equal(np.signbit(g.get()), np.signbit(w))
    assert_same(em.ldexp(em.asarray([1e-300, 3.0]), em.asarray([1000, -1074])), np.ldexp([1e-300, 3.0], [1000, -1074]))
    with pytest.raises(TypeError):
        em.fabs(em.asarray([1j]))
    bits = rng.integers(0, 2, size=(3, 11)).astype(np.uint8)
    assert_same(em.packbits(to_em(bits), axis=1), np.packbits(bits, axis=1))
    assert_same(em.unpackbits(em.packbits(to_em(bits))), np.unpackbits(np.packbits(bits)))


@pytest.mark.parametrize("dtype", ["int64", "float64", "complex128"])
def test_polynomials(device, rng, dtype):
    p = random_array(rng, (4,), dtype, low=-5, high=5)
    q = random_array(rng, (2,), dtype, low=-5, high=5)
    x = random_array(rng, (3, 2), dtype, low=-2, high=2)
    assert_same(em.polyval(to_em(p), to_em(x)), np.polyval(p, x))
    assert_same(em.polyval(to_em(p), em.asarray(2)), np.polyval(p, 2))
    for fn in ("polyadd", "polysub", "polymul"):
        assert_same(getattr(em, fn)(to_em(p), to_em(q)), getattr(np, fn)(p, q))
        assert_same(getattr(em, fn)(to_em(q), to_em(p)), getattr(np, fn)(q, p))
    for m in (0, 1, 3, 5):
        assert_same(em.polyder(to_em(p), m), np.polyder(p, m))
    if dtype != "int64":
        assert_same(em.polyint(to_em(p), 2, [1.0, 2.0]), np.polyint(p, 2, [1.0, 2.0]))
    r = np.array([1.0, -2.0, 3.0])
    assert_same(em.poly(to_em(r)), np.poly(r))
    assert_same(em.poly(to_em(np.array([1 + 1j, 1 - 1j]))), np.poly([1 + 1j, 1 - 1j]))
    for g, w in zip(em.polydiv(to_em(p), to_em(q)), np.polydiv(p, q)):
        assert_same(g, w)
    if dtype == "float64":
        xs, ys = rng.normal(size=10), rng.normal(size=10)
        assert_same(em.polyfit(to_em(xs), to_em(ys), 2), np.polyfit(xs, ys, 2))
        assert_same(em.roots(to_em(p)), np.roots(p))


def test_io_round_trips(device, tmp_path, rng):
    a = rng.normal(size=(3, 4)).astype(np.float32)
    b = np.arange(5, dtype=np.int16)
    f = tmp_path / "a.npy"
    em.save(f, to_em(a))
    np.testing.assert_array_equal(np.load(f), a)  # NumPy reads what Ember wrote
    r = em.load(f)
    assert isinstance(r, em.ndarray)
    assert_same(r, a)
    buf = io.BytesIO()
    em.savez_compressed(buf, x=to_em(a), y=to_em(b))
    buf.seek(0)
    with em.load(buf) as z:
        assert sorted(z.files) == ["x", "y"]
        assert_same(z["x"], a)
        assert_same(z["y"], b)
    buf = io.BytesIO()
    em.savez(buf, to_em(a), to_em(b))
    buf.seek(0)
    z = em.load(buf)
    assert_same(z["arr_1"], b)
    t = tmp_path / "a.txt"
    em.savetxt(t, to_em(a), fmt="%.6f")
    assert_same(em.loadtxt(t, dtype=np.float32), np.loadtxt(t, dtype=np.float32))
    assert_same(em.genfromtxt(t), np.genfromtxt(t))
    raw = tmp_path / "a.bin"
    to_em(a).tofile(raw)
    assert_same(em.fromfile(raw, dtype=np.float32), a.ravel())
    assert_same(em.frombuffer(b.tobytes(), dtype=np.int16), b)
    assert_same(em.fromstring("1 2 3", dtype=np.int64, sep=" "), np.fromstring("1 2 3", dtype=np.int64, sep=" "))
    assert_same(em.fromiter(range(4), dtype=np.float64), np.fromiter(range(4), dtype=np.float64))


def test_bits_and_spacing_edges(device, rng):
    ext = np.array([0, 1, -1, np.iinfo(np.int64).min, np.iinfo(np.int64).max, 12345], np.int64)
    assert_same(em.bitwise_count(to_em(ext)), np.bitwise_count(ext))
    u = np.array([0, np.iinfo(np.uint64).max, 2 ** 63, 255], np.uint64)
    assert_same(em.bitwise_count(to_em(u)), np.bitwise_count(u))
    with pytest.raises(TypeError):
        em.bitwise_count(em.asarray([1.0]))
    for dt in (np.float32, np.float64):
        fi = np.finfo(dt)
        s = np.array([0.0, -0.0, 1.0, -1.0, np.inf, -np.inf, np.nan, fi.max, -fi.max, fi.smallest_subnormal,
                      3.5e-3], dt)
        with np.errstate(over="ignore"):
            assert_same(em.spacing(to_em(s)), np.spacing(s))
    b = rng.integers(0, 2, size=(5, 13)).astype(bool)
    for axis in (None, 0, 1):
        for order in ("big", "little"):
            p = np.packbits(b, axis=axis, bitorder=order)
            assert_same(em.packbits(to_em(b), axis=axis, bitorder=order), p)
            for count in (None, 3, -2, 100 if axis is None else None):
                assert_same(em.unpackbits(to_em(p), axis=axis, count=count, bitorder=order),
                            np.unpackbits(p, axis=axis, count=count, bitorder=order))
    ints = rng.integers(-3, 3, size=10).astype(np.int16)
    assert_same(em.packbits(to_em(ints)), np.packbits(ints))
    with pytest.raises(TypeError, match="unsigned byte"):
        em.unpackbits(em.asarray([1, 2]))


@pytest.mark.parametrize("dtype", ["float16", "float32", "float64"])
def test_frexp_exact(device, rng, dtype):
    fi = np.finfo(dtype)
    x = np.array([0.0, -0.0, 1.0, -1.0, 0.5, 0.75, 3.0, -1e-3, np.inf, -np.inf, np.nan, fi.max,
                  fi.tiny, fi.smallest_subnormal, fi.max / 3], dtype)
    with np.errstate(over="ignore"):
        r = (rng.normal(size=500) * np.exp2(rng.integers(-12, 12, 500))).astype(dtype)
    x = np.concatenate([x, r])
    m, e = em.frexp(to_em(x))
    nm, ne = np.frexp(x)
    np.testing.assert_array_equal(m.get(), nm)
    np.testing.assert_array_equal(np.signbit(m.get()), np.signbit(nm))
    assert e.dtype == ne.dtype
    np.testing.assert_array_equal(e.get(), ne)


def test_i0_kaiser_native(device):
    """i0 is Cephes' Chebyshev series (NumPy's) as Ember ops: both branches
    (x <= 8 and above), the sign, inf/NaN, each float dtype kept, ints and bools
    as float64; kaiser on it for integer, float and degenerate M."""
    x = np.array([0.0, 1e-3, -1.0, 2.5, -7.99, 8.0, 8.01, 20.0, -300.0, 700.0, np.inf,
                  -np.inf, np.nan])
    for dt in ("float16", "float32", "float64"):
        xd = x.astype(dt)
        with np.errstate(over="ignore"):
            want = np.i0(xd)
        assert_same(em.i0(to_em(xd)), want, rtol=2e-3 if dt == "float16" else 2e-6)
    assert_same(em.i0(to_em(np.arange(-4, 5, dtype=np.int8))), np.i0(np.arange(-4, 5,
                                                                               dtype=np.int8)))
    assert_same(em.i0(to_em(np.array([True, False]))), np.i0(np.array([True, False])))
    assert_same(em.i0(3.0), np.i0(3.0))
    with pytest.raises(TypeError, match="complex"):
        em.i0(to_em(np.array([1j])))
    for M, beta in ((0, 3.0), (1, 4.0), (2, 0.0), (5.5, 2.0), (64, 14.0), (-3, 1.0)):
        with np.errstate(invalid="ignore"):
            want = np.kaiser(M, beta)
        assert_same(em.kaiser(M, beta), want)


def test_spacing_float16_and_ints_native(device):
    """spacing of float16 follows NumPy's half rule (toward +inf for every
    value, NaN for -inf): every one of the 65536 halves, bit for bit; integer
    and bool input take the float loop NumPy's casting picks."""
    h = np.arange(65536, dtype=np.uint16).view(np.float16)
    with np.errstate(all="ignore"):
        want = np.spacing(h)
    got = em.spacing(to_em(h)).get()
    assert got.dtype == np.float16
    np.testing.assert_array_equal(got.view(np.uint16)[~np.isnan(want)],
                                  want.view(np.uint16)[~np.isnan(want)])
    assert np.isnan(got[np.isnan(want)]).all()
    for dt in ("bool", "int8", "uint8", "int16", "int32", "int64"):
        a = np.arange(-3, 4).astype(dt)
        assert_same(em.spacing(to_em(a)), np.spacing(a))


def test_interp_period_native(device, rng):
    """interp with period runs NumPy's normalisation on the device: unsorted
    and out-of-period sample points, negative periods, one point, and the
    zero period's ValueError."""
    for n in (1, 2, 5, 40):
        xp, fp = rng.uniform(-400, 400, n), rng.normal(size=n)
        x = rng.uniform(-800, 800, 30)
        for per in (360, -360.0, 7, 2.5):
            assert_same(em.interp(to_em(x), to_em(xp), to_em(fp), period=per),
                        np.interp(x, xp, fp, period=per))
    x, xp, fp = [-180, -170, -185, 185, -10, -5, 0, 365], [190, -190, 350, -350], [5, 10, 3, 4]
    assert_same(em.interp(to_em(np.array(x)), to_em(np.array(xp)), to_em(np.array(fp)),
                          period=360), np.interp(x, xp, fp, period=360))
    with pytest.raises(ValueError, match="period must be a non-zero value"):
        em.interp(em.arange(3.0), em.arange(3.0), em.arange(3.0), period=0)

