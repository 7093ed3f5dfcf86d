"""Functions that ran NumPy on the host for a device array and now run where
the data are (issue 19, item 5): unique(axis=), ufunc.reduce of the
associative ops without an Ember reduction, polyfit, polydiv,
random.multinomial and random.hypergeometric, unwrap of integers, and
out=/where= of frexp, modf, spacing and bitwise_count, and histogram's
string bins estimators.  NumPy is the oracle, on the CPU and on each device
that compiles kernels (opencl:0 under PoCL here); on a device each test
turns the function's own HostFallbackWarning into an error, so a return to
the host fails it."""
import re
import warnings

import numpy as np
import pytest

import ember as em
from helpers import assert_same, device_names, to_em


@pytest.fixture(params=device_names())
def dev(request):
    with em.Device(request.param):
        yield request.param


@pytest.fixture
def device_path(dev, monkeypatch):
    """On the CPU too, unique(axis=) and ufunc.reduce take the device path
    (Ember operations, which the CPU runs as well), not NumPy's: every
    dtype of it is checked here cheaply, whatever PoCL leaves out."""
    from ember import _sorting, _ufunc_methods
    monkeypatch.setattr(_sorting, "_on_device", lambda *a: True)
    monkeypatch.setattr(_ufunc_methods, "_on_device", lambda a: True)
    return dev


def _opencl_cut(dev, dtype, keep):
    """PoCL builds every kernel on the CPU (seconds each): opencl:0 runs the
    dtypes in keep; the CPU (NumPy's own) and CUDA run them all."""
    if dev.startswith("opencl") and dtype not in keep:
        pytest.skip(f"opencl: {dtype} runs on the CPU and CUDA only (PoCL build time)")


class _NoFallback:
    """Fails on a HostFallbackWarning naming one of `names` (the warning is
    once per function, so the set of already-warned names is cleared)."""

    def __init__(self, *names):
        self.names = names

    def __enter__(self):
        from ember import _host
        for n in self.names:
            _host._warned.discard(n)
        self.cm = warnings.catch_warnings(record=True)
        self.rec = self.cm.__enter__()
        warnings.simplefilter("always", em.HostFallbackWarning)
        return self

    def __exit__(self, *exc):
        self.cm.__exit__(*exc)
        bad = [str(w.message) for w in self.rec if issubclass(w.category, em.HostFallbackWarning)
               and any(f"ember.{n} " in str(w.message) for n in self.names)]
        assert not bad, bad
        return False


def test_no_fallback_guard_can_fail():
    from ember import _host
    with pytest.raises(AssertionError):
        with _NoFallback("unique"):
            _host.warn_fallback("unique", "cuda:0")


# ---- unique(axis=) ----------------------------------------------------------

UNIQUE_DTYPES = ["bool", "int8", "uint16", "int64", "float32", "float64", "complex64"]


def _rows(dtype, n, m, rng):
    """n rows of m values with repeated rows and ties in the leading columns."""
    dtype = np.dtype(dtype)
    if dtype.kind == "b":
        pool = rng.random((4, m)) < 0.5
    elif dtype.kind in "iu":
        info = np.iinfo(dtype)
        pool = rng.choice(np.array([info.min, 0, 1, info.max], dtype=dtype), (4, m))
    else:
        pool = rng.choice(np.array([-1.5, 0.0, 2.0, np.inf]), (4, m)).astype(dtype)
        if dtype.kind == "c":
            pool = pool + 1j * rng.choice(np.array([0.0, 1.0]), (4, m)).astype(dtype)
    return pool[rng.integers(0, 4, n)]


def _check_unique_axis(x, a, axis):
    got = em.unique(x, return_index=True, return_inverse=True, return_counts=True, axis=axis)
    want = np.unique(a, return_index=True, return_inverse=True, return_counts=True, axis=axis)
    assert len(got) == 4
    for g, w in zip(got, want):
        assert_same(g, w)
    assert_same(em.unique(x, axis=axis), np.unique(a, axis=axis))
    for flags in ((True, False, False), (False, True, False), (False, False, True)):
        g = em.unique(x, *flags, axis=axis)
        w = np.unique(a, *flags, axis=axis)
        for gg, ww in zip(g, w):
            assert_same(gg, ww)


@pytest.mark.parametrize("dtype", UNIQUE_DTYPES)
def test_unique_axis_dtypes(device_path, dtype):
    _opencl_cut(device_path, dtype, ("bool", "uint16", "float32", "complex64"))
    rng = np.random.default_rng(3)
    a = _rows(dtype, 12, 3, rng)
    with _NoFallback("unique"):
        for axis in (0, 1, -1, -2):
            _check_unique_axis(to_em(a), a, axis)


def test_unique_axis_layouts_and_3d(device_path):
    rng = np.random.default_rng(4)
    a = _rows("int32", 16, 4, rng)
    b = np.stack([a, a[::-1]], axis=1)  # (16, 2, 4)
    with _NoFallback("unique"):
        _check_unique_axis(to_em(a[::-1]), a[::-1], 0)  # negative strides
        _check_unique_axis(to_em(a.T), a.T, 1)  # transposed
        _check_unique_axis(to_em(a[::2, ::2]), a[::2, ::2], 0)  # strided
        for axis in (0, 1, 2):
            _check_unique_axis(to_em(b), b, axis)
        one = a[:1]
        _check_unique_axis(to_em(one), one, 0)  # one row
        same = np.repeat(a[:1], 5, axis=0)
        _check_unique_axis(to_em(same), same, 0)  # all rows equal


# (a 1-d array with axis= is the flat unique, as NumPy's, since session 20:
# test_sorting.py::test_unique_axis_of_a_1d_array_is_the_flat_unique, on real devices)
@pytest.mark.parametrize("shape,axis", [((0, 3), 0), ((0, 3), 1), ((3, 0), 0), ((3, 0), 1),
                                        ((2, 0, 3), 0)])
def test_unique_axis_edge_shapes(device_path, shape, axis):
    a = np.arange(int(np.prod(shape)), dtype=np.float64).reshape(shape) % 3
    with _NoFallback("unique"):
        _check_unique_axis(to_em(a), a, axis)


def test_unique_axis_nan_rows_stay_distinct(device_path):
    """NumPy compares the rows as structured values: a NaN differs from
    everything, so rows holding NaN are never merged (equal_nan or not);
    -0.0 equals 0.0."""
    a = np.array([[1.0, np.nan], [1.0, np.nan], [0.0, 1.0], [-0.0, 1.0], [0.0, -2.0]])
    with _NoFallback("unique"):
        _check_unique_axis(to_em(a), a, 0)
        assert_same(em.unique(to_em(a), axis=0, equal_nan=False),
                    np.unique(a, axis=0, equal_nan=False))


def test_unique_axis_errors(device_path):
    with pytest.raises(np.exceptions.AxisError):
        em.unique(em.asarray(3.0), axis=0)
    with pytest.raises(np.exceptions.AxisError):
        em.unique(em.ones((2, 3)), axis=2)


# ---- ufunc.reduce of the bitwise ops, logical_xor, gcd, lcm: em_reduce's own ---

TREE_OPS = ["bitwise_and", "bitwise_or", "bitwise_xor", "logical_xor", "gcd", "lcm"]
INT_DTYPES = ["bool", "int8", "uint8", "int16", "uint32", "int64", "uint64"]


def _ints(dtype, shape, rng, op):
    dtype = np.dtype(dtype)
    if dtype.kind == "b":
        return rng.random(shape) < 0.6
    if op == "lcm":  # small values: the lcm of many stays in range
        return rng.integers(1, 4, shape).astype(dtype)
    info = np.iinfo(dtype)
    return rng.integers(max(info.min, -1000), min(info.max, 1000), shape).astype(dtype)


def _np_or_error(fn):
    try:
        return fn(), None
    except Exception as e:  # noqa: BLE001 - the oracle's error is the expectation
        return None, type(e)


def _check_reduce(op, x, a, **kw):
    want, err = _np_or_error(lambda: getattr(np, op).reduce(a, **kw))
    if err is not None:
        with pytest.raises(err):
            getattr(em, op).reduce(x, **kw)
        return
    assert_same(getattr(em, op).reduce(x, **kw), want)


@pytest.mark.parametrize("op", TREE_OPS)
@pytest.mark.parametrize("dtype", INT_DTYPES)
def test_tree_reduce_axes(device_path, op, dtype):
    _opencl_cut(device_path, dtype, ("bool", "int16", "uint64"))
    rng = np.random.default_rng(5)
    a = _ints(dtype, (5, 6, 7), rng, op)
    x = to_em(a)
    with _NoFallback("ufunc.reduce"):
        for axis in (0, 1, 2, -1, None, (0, 2), ()):
            _check_reduce(op, x, a, axis=axis)
        _check_reduce(op, x, a, axis=1, keepdims=True)
        _check_reduce(op, x, a, axis=None, keepdims=True)
        v = a[::-1, ::2]  # negative strides, non-contiguous
        _check_reduce(op, to_em(v), v, axis=0)
        t = a.T
        _check_reduce(op, to_em(t), t, axis=(1, 2))


@pytest.mark.parametrize("op", TREE_OPS)
def test_tree_reduce_initial_where_and_dtype(device_path, op):
    rng = np.random.default_rng(6)
    a = _ints("int32", (4, 9), rng, op)
    w = rng.random((4, 9)) < 0.5
    x = to_em(a)
    with _NoFallback("ufunc.reduce"):
        _check_reduce(op, x, a, axis=1, initial=3)
        _check_reduce(op, x, a, axis=0, where=w, initial=2)
        _check_reduce(op, x, a, axis=1, where=w[0])  # broadcast mask
        _check_reduce(op, x, a, axis=None, where=w)  # no identity (lcm): NumPy's ValueError
        _check_reduce(op, x, a, axis=1, dtype=np.int64)
        _check_reduce(op, x, a, axis=1, dtype=np.float64)  # no float loop: TypeError


@pytest.mark.parametrize("op", TREE_OPS)
def test_tree_reduce_edge_shapes_and_errors(device_path, op):
    with _NoFallback("ufunc.reduce"):
        for a in (np.zeros((0,), np.int16), np.zeros((3, 0), np.uint8),
                  np.zeros((0, 3), np.int64), np.array(6, np.int32), np.array([7], np.int8)):
            for axis in (0, -1, None, ()):
                _check_reduce(op, to_em(a), a, axis=axis)
            _check_reduce(op, to_em(a), a, axis=None, initial=1)
        f = np.array([1.5, 2.0])
        _check_reduce(op, to_em(f), f)  # floats: NumPy's TypeError (logical_xor takes them)
        b = np.array([True, False, True])
        _check_reduce(op, to_em(b), b)  # gcd/lcm of bool: NumPy's error
        _check_reduce(op, to_em(b), b, axis=1)  # AxisError


@pytest.fixture
def lazy():
    """Every elementwise result lazy (min_size 0), restored afterwards."""
    from ember import _ember
    old = _ember._fusion_config(enabled=True, min_size=0)
    yield
    _ember._fusion_config(**old)


@pytest.mark.parametrize("op", TREE_OPS)
@pytest.mark.parametrize("dtype", ["bool", "int8", "uint16", "int32", "uint32", "int64"])
def test_bits_reduce_fuses_its_producer(dev, lazy, op, dtype):
    """x & 7 (x & True for bool) stays pending wherever em.sum's producer
    does: the reduction computes it per element in its own kernel
    (CUDA/OpenCL: every axis) or fetches it in bands (CPU: all axes, a
    suffix or a prefix of them); values, dtype and shape as NumPy's."""
    _opencl_cut(dev, dtype, ("bool", "int32"))
    from ember import _ember
    rng = np.random.default_rng(8)
    a = _ints(dtype, (6, 20, 40), rng, op)
    mask = np.True_ if dtype == "bool" else np.array(7, dtype)
    x = to_em(a)
    for axis in (None, 0, 1, 2, (0, 2), (1, 2)):
        for kd in (False, True):
            want, err = _np_or_error(lambda: getattr(np, op).reduce(a & mask, axis=axis,
                                                                    keepdims=kd))
            p = x & em.asarray(mask)
            if err is not None:
                with pytest.raises(err):
                    getattr(em, op).reduce(p, axis=axis, keepdims=kd)
                continue
            got = getattr(em, op).reduce(p, axis=axis, keepdims=kd)
            q = x & em.asarray(mask)
            em.sum(q, axis=axis)
            assert _ember._is_pending(p) == _ember._is_pending(q), (op, axis)
            assert dev == "cpu" or _ember._is_pending(p), (op, axis, "not fused on a device")
            assert_same(got, want)


@pytest.mark.parametrize("op", TREE_OPS)
def test_bits_reduce_edges_on_the_device(dev, op):
    """Without the CPU's monkeypatch: the C reduction on each device, on
    non-contiguous, negative-stride, one-element, 0-d and empty inputs (the
    identity, or NumPy's error where there is none: lcm), with out=, and
    logical_xor of floats with NaN and inf and of complex values."""
    rng = np.random.default_rng(9)
    a = _ints("int16", (7, 9), rng, op)
    if op != "lcm":
        a[0, :3] = -a[0, :3]
    cases = [a, a[::-2, ::3], a.T, a[:1, :1], np.array(-6, np.int16), a[:0], a[:, :0],
             np.array([-5], np.int16)]
    for c in cases:
        for axis in (None, 0, -1, ()):
            if c.ndim == 0 and axis not in (None, ()):
                continue
            _check_reduce(op, to_em(c), c, axis=axis)
            _check_reduce(op, to_em(c), c, axis=axis, keepdims=True)
    out = em.zeros(9, dtype="int16" if op != "logical_xor" else "bool")
    r = getattr(em, op).reduce(to_em(a), axis=0, out=out)
    assert r is out
    assert_same(out, getattr(np, op).reduce(a, axis=0))
    if op == "logical_xor":
        f = np.array([[np.nan, 0.0, np.inf], [-0.0, 1e-300, -np.inf]])
        for axis in (None, 0, 1):
            _check_reduce(op, to_em(f), f, axis=axis)
        z = np.array([1 + 0j, 0j, 1j, np.nan + 0j], np.complex64)
        _check_reduce(op, to_em(z), z)


def test_reduce_fallback_still_named_for_other_ops(dev):
    """subtract has no device reduction: on a device it still warns."""
    if dev == "cpu":
        pytest.skip("the CPU's fallbacks are silent")
    from ember import _host
    _host._warned.discard("ufunc.reduce")
    with pytest.warns(em.HostFallbackWarning, match="ufunc.reduce"):
        em.subtract.reduce(em.arange(5.0))


# ---- polyfit / polydiv ------------------------------------------------------

def _close(got, want, rtol=1e-6, atol=1e-9):
    got = got.get() if isinstance(got, em.ndarray) else np.asarray(got)
    np.testing.assert_allclose(got, want, rtol=rtol, atol=atol)


@pytest.mark.parametrize("dtype", ["int64", "float32", "float64"])
def test_polyfit(dev, dtype):
    rng = np.random.default_rng(7)
    xh = np.linspace(-2, 3, 25).astype(dtype) if dtype != "int64" else np.arange(-12, 13)
    yh = (0.5 * xh.astype(float) ** 2 - xh + 2 + rng.normal(0, 0.1, xh.shape)).astype(
        dtype if dtype != "int64" else "float64")
    wh = rng.uniform(0.5, 2.0, xh.shape)
    rt = 2e-3 if dtype == "float32" else 1e-6
    x, y, w = em.asarray(xh), em.asarray(yh), em.asarray(wh)
    with _NoFallback("polyfit"):
        for deg in (0, 1, 2, 3):
            got = em.polyfit(x, y, deg)
            want = np.polyfit(xh, yh, deg)
            assert got.dtype == want.dtype and got.shape == want.shape
            _close(got, want, rtol=rt, atol=rt)
        _close(em.polyfit(x, y, 2, w=w), np.polyfit(xh, yh, 2, w=wh), rtol=rt, atol=rt)
        for g, wnt in zip(em.polyfit(x, y, 2, full=True), np.polyfit(xh, yh, 2, full=True)):
            _close(g, wnt, rtol=rt, atol=rt)
        for cov in (True, "unscaled"):
            for g, wnt in zip(em.polyfit(x, y, 2, cov=cov), np.polyfit(xh, yh, 2, cov=cov)):
                _close(g, wnt, rtol=max(rt, 1e-5), atol=rt)
        y2 = np.stack([yh, 2 * yh], axis=1)
        g = em.polyfit(x, em.asarray(y2), 1, cov=True)
        wnt = np.polyfit(xh, y2, 1, cov=True)
        assert g[1].shape == wnt[1].shape
        _close(g[0], wnt[0], rtol=rt, atol=rt)
        _close(g[1], wnt[1], rtol=max(rt, 1e-5), atol=rt)
        xs, ys = x[::-2], y[::-2]  # non-contiguous
        _close(em.polyfit(xs, ys, 1), np.polyfit(xh[::-2], yh[::-2], 1), rtol=rt, atol=rt)


def test_polyfit_errors_and_rank_warning(dev):
    x, y = em.arange(5.0), em.arange(5.0)
    for args, kw, err in [((x, y, -1), {}, ValueError), ((em.ones((2, 2)), y, 1), {}, TypeError),
                          ((em.ones(0), em.ones(0), 1), {}, TypeError),
                          ((x, em.ones((5, 2, 2)), 1), {}, TypeError),
                          ((x, em.ones(4), 1), {}, TypeError),
                          ((x, y, 1), {"w": em.ones((5, 1))}, TypeError),
                          ((x, y, 1), {"w": em.ones(4)}, TypeError),
                          ((x[:2], y[:2], 1), {"cov": True}, ValueError)]:
        with pytest.raises(err):
            em.polyfit(*args, **kw)
        with pytest.raises(err):
            np.polyfit(*[a.get() if isinstance(a, em.ndarray) else a for a in args],
                       **{k: v.get() for k, v in kw.items()} if kw.get("w") is not None
                       else kw)
    with pytest.warns(np.exceptions.RankWarning):
        em.polyfit(em.ones(4), em.arange(4.0), 2)


@pytest.mark.parametrize("u,v", [([3.0, 5.0, 2.0], [2.0, 1.0]), ([1, 2, 3, 4], [1, 1]),
                                 ([1.0, 0.0, -1.0], [1.0, -1.0]), ([5.0], [2.0, 1.0]),
                                 (4.0, 2.0), ([1 + 2j, 3, 1j], [1j, 1]),
                                 ([2.0, 4.0, 6.0, 8.0], [2.0]), ([1, 2], [3, 4, 5])])
def test_polydiv(dev, u, v):
    with _NoFallback("polydiv"):
        q, r = em.polydiv(em.asarray(u), em.asarray(v))
    qw, rw = np.polydiv(np.asarray(u), np.asarray(v))
    assert q.dtype == qw.dtype and q.shape == qw.shape and r.shape == rw.shape
    _close(q, qw)
    _close(r, rw)


def test_polydiv_float32_and_views(dev):
    u = np.array([1.0, -3.0, 0.0, 2.0, 5.0], np.float32)
    v = np.array([1.0, 0.0, -1.0], np.float32)
    q, r = em.polydiv(em.asarray(u)[::-1], em.asarray(v)[::-1])
    qw, rw = np.polydiv(u[::-1], v[::-1])
    assert q.dtype == qw.dtype == np.float32
    _close(q, qw, rtol=1e-5)
    _close(r, rw, rtol=1e-5, atol=1e-5)


# ---- random.multinomial -----------------------------------------------------

def test_multinomial_counts_and_moments(dev):
    g = em.random.default_rng(11)
    p = [0.2, 0.5, 0.0, 0.3]
    with _NoFallback("random.multinomial"):
        r = g.multinomial(1000, p, size=4000)
    h = r.get()
    assert r.dtype == np.int64 and h.shape == (4000, 4)
    assert (h.sum(axis=1) == 1000).all() and (h >= 0).all() and (h[:, 2] == 0).all()
    # mean n p, variance n p (1 - p), to a few standard errors
    np.testing.assert_allclose(h.mean(axis=0), 1000 * np.array(p), atol=1.0)
    np.testing.assert_allclose(h.var(axis=0), 1000 * np.array(p) * (1 - np.array(p)), rtol=0.1,
                               atol=1e-9)


def test_multinomial_shapes_and_broadcast(dev):
    g = em.random.default_rng(12)
    assert g.multinomial(5, [0.5, 0.5]).shape == (2,)
    assert int(g.multinomial(5, [0.5, 0.5]).sum()) == 5
    r = g.multinomial(em.asarray([3, 7]), [[0.1, 0.9], [0.6, 0.4]]).get()
    assert r.shape == (2, 2) and (r.sum(axis=1) == [3, 7]).all()
    r = g.multinomial([3, 7], [0.3, 0.3, 0.4], size=(5, 2)).get()
    assert r.shape == (5, 2, 3) and (r.sum(axis=-1) == [3, 7]).all()
    assert g.multinomial(4, [1.0]).get().tolist() == [4]
    assert g.multinomial(0, [0.2, 0.8]).get().tolist() == [0, 0]
    assert g.multinomial(6, [0.3, 0.2], size=0).shape == (0, 2)
    r = g.multinomial(9, [0.0, 0.0, 0.25]).get()  # p sums below 1: the last takes the rest
    assert r.tolist() == [0, 0, 9]
    r = g.multinomial(100, [0.5, 0.5, 0.0], size=50).get()
    assert (r[:, 2] == 0).all()  # nothing left for the last: no negative counts


def test_multinomial_same_values_on_every_device():
    want = em.random.default_rng(13).multinomial(50, [0.1, 0.2, 0.7], size=64,
                                                  device="cpu").get()
    for d in [n for n in device_names() if n != "cpu"]:
        got = em.random.default_rng(13).multinomial(50, [0.1, 0.2, 0.7], size=64, device=d)
        assert np.array_equal(got.get(), want), d


@pytest.mark.parametrize("n,p", [(-1, [0.5, 0.5]), (3, 0.5), (3, []), (3, [0.7, 0.7, 0.1]),
                                 (3, [-0.1, 1.1]), (3, [np.nan, 1.0])])
def test_multinomial_errors(dev, n, p):
    with pytest.raises(ValueError) as want:
        np.random.default_rng(0).multinomial(n, p)
    with pytest.raises(ValueError, match=re.escape(str(want.value))):
        em.random.default_rng(0).multinomial(n, p)


# ---- random.hypergeometric ----------------------------------------------------

@pytest.mark.parametrize("good,bad,n", [(10, 20, 6), (3, 4, 7), (5, 0, 3), (0, 5, 3),
                                        (40, 60, 30), (500, 300, 250), (1000, 5, 990),
                                        (10 ** 6, 2 * 10 ** 6, 10 ** 5)])
def test_hypergeometric_moments(dev, good, bad, n):
    """Both of NumPy's methods (the urn below 10 draws or within 10 of all,
    HRUA otherwise): the range, the mean N K / T and the variance."""
    g = em.random.default_rng(21)
    with _NoFallback("random.hypergeometric"):
        r = g.hypergeometric(good, bad, n, size=4000)
    h = r.get()
    assert r.dtype == np.int64 and h.shape == (4000,)
    tot = good + bad
    assert (h >= max(0, n - bad)).all() and (h <= min(n, good)).all()
    mean = n * good / tot
    var = n * good / tot * bad / tot * (tot - n) / max(tot - 1, 1)
    assert abs(h.mean() - mean) <= 5 * np.sqrt(var / 4000) + 1e-9
    if var > 0:
        assert abs(h.var() / var - 1) < 0.15


def test_hypergeometric_broadcast_and_same_values_everywhere(dev):
    g = em.random.default_rng(22)
    r = g.hypergeometric(em.asarray([5, 50, 500]), 40, [3, 20, 30], size=(2, 3)).get()
    assert r.shape == (2, 3) and (r <= [3, 20, 30]).all() and (r >= 0).all()
    assert g.hypergeometric(4, 4, 8).get() == 4 and g.hypergeometric(4, 4, 0).get() == 0
    assert g.hypergeometric(2.7, 3, 1, size=0).shape == (0,)
    want = em.random.default_rng(23).hypergeometric(30, 40, 25, size=32, device="cpu").get()
    got = em.random.default_rng(23).hypergeometric(30, 40, 25, size=32, device=dev).get()
    assert np.array_equal(got, want)


@pytest.mark.parametrize("args", [(-1, 2, 1), (-5, 1, 1), (1, -2, 1), (5, -2, 1), (1, 2, -1),
                                  (1, 2, 4), (10 ** 9, 1, 1), ([1, -1], 2, 1),
                                  (1, [2, -3], 1)])
def test_hypergeometric_errors(dev, args):
    with pytest.raises(ValueError) as want:
        np.random.default_rng(0).hypergeometric(*args)
    with pytest.raises(ValueError, match=re.escape(str(want.value))):
        em.random.default_rng(0).hypergeometric(*args)


# ---- unwrap of integers; out= and where= of frexp, modf, spacing, bitwise_count ----

@pytest.mark.parametrize("dtype", ["int8", "int32", "int64", "uint16"])
def test_unwrap_integers(dev, dtype):
    rng = np.random.default_rng(31)
    a = rng.integers(0, 100, (3, 12)).astype(dtype)

    def check(v, **kw):
        want, err = _np_or_error(lambda: np.unwrap(v, **kw))
        if err is not None:  # unsigned with an integer period: NumPy's OverflowError
            with pytest.raises(err):
                em.unwrap(to_em(v), **kw)
            return
        assert_same(em.unwrap(to_em(v), **kw), want, rtol=1e-12)
    with _NoFallback("unwrap"):
        for kw in ({}, {"period": 100}, {"period": 7}, {"period": 20, "discont": 4},
                   {"axis": 0, "period": 50}, {"period": 25.0}):
            check(a, **kw)
            check(a[::-1, ::2], **kw)  # negative strides, non-contiguous
        check(np.zeros((0,), dtype), period=10)
        check(np.zeros((0,), dtype))
        check(np.array([5], dtype), period=10)
        check(np.array([5], dtype))
        b = a % 3 == 0
        check(b)  # bool: diff is xor, then float64
        check(b, period=2)
    with pytest.raises(TypeError):
        np.unwrap(np.array([1j, 2]))
    with pytest.raises(TypeError):
        em.unwrap(em.asarray([1j, 2]))


@pytest.mark.parametrize("name,dtype,nout", [("frexp", "float32", 2), ("frexp", "float64", 2),
                                             ("modf", "float64", 2), ("modf", "float16", 2),
                                             ("spacing", "float32", 1),
                                             ("spacing", "float64", 1),
                                             ("bitwise_count", "int16", 1),
                                             ("bitwise_count", "uint64", 1)])
def test_out_and_where(dev, name, dtype, nout):
    """out= (positional, keyword, a tuple) and where= run natively: out keeps
    its values where the mask is False; a broadcast mask; an out of a wider
    dtype (same_kind)."""
    rng = np.random.default_rng(32)
    if np.dtype(dtype).kind == "f":
        a = (rng.normal(0, 50, (4, 6)) * rng.choice([1e-3, 1, 1e3], (4, 6))).astype(dtype)
        a[0, :3] = [0.0, np.inf, np.nan]
    else:
        a = rng.integers(0, 1000, (4, 6)).astype(dtype)
    npf, emf = getattr(np, name), getattr(em, name)
    ref = npf(a)
    refs = ref if nout > 1 else (ref,)
    w = rng.random((4, 6)) < 0.5
    with _NoFallback(name):
        for mask in (True, w, w[0]):
            outs_np = tuple(np.full(r.shape, 7, r.dtype) for r in refs)
            outs_em = tuple(em.asarray(o) for o in outs_np)
            want = npf(a, out=outs_np if nout > 1 else outs_np[0], where=mask)
            got = emf(to_em(a), out=outs_em if nout > 1 else outs_em[0], where=mask)
            wants, gots = (want, got) if nout > 1 else ((want,), (got,))
            for g, o, wnt in zip(gots, outs_em, wants):
                assert g is o
                assert_same(g, wnt)
        o = tuple(em.zeros(r.shape, r.dtype) for r in refs)
        got = emf(to_em(a), *o)  # positional out
        for g, r in zip(got if nout > 1 else (got,), refs):
            assert_same(g, r)
        if nout == 1:
            wide = em.zeros(a.shape, "float64" if refs[0].dtype.kind == "f" else "int64")
            emf(to_em(a[::-1]), out=wide)
            assert_same(wide, npf(a[::-1]).astype(wide.dtype))
        with pytest.warns(UserWarning, match="'where' used without 'out'"):  # NumPy's
            got = emf(to_em(a), where=w)
        for g, r in zip(got if nout > 1 else (got,), refs):
            gh = g.get()
            assert np.array_equal(gh[w], r[w], equal_nan=True)


def test_out_and_where_errors_and_the_rest_on_numpy(dev):
    x = em.asarray(np.linspace(-2, 2, 6))
    with pytest.raises(TypeError):
        em.spacing(x, where=em.ones(6))  # a non-boolean mask: NumPy's TypeError
    with pytest.raises(TypeError):
        em.modf(x, out=em.zeros(6))  # one out for two outputs: NumPy's TypeError
    if dev != "cpu":
        from ember import _host
        _host._warned.discard("spacing")
        with pytest.warns(em.HostFallbackWarning, match="ember.spacing"):
            em.spacing(x, dtype=np.float64)


def test_trim_zeros_0d(dev):
    for v in (0, 3, 0.0):
        a = em.asarray(v)
        with _NoFallback("trim_zeros"):
            assert em.trim_zeros(a) is a
            assert_same(em.trim_zeros(a, "f", axis=()), np.trim_zeros(np.asarray(v), "f", axis=()))
        for ax in (0, -1, 1):
            with pytest.raises(np.exceptions.AxisError, match="out of bounds"):
                em.trim_zeros(a, axis=ax)


# ---- histogram's string bins estimators ------------------------------------------

ESTIMATORS = ["auto", "fd", "doane", "scott", "stone", "rice", "sturges", "sqrt"]


@pytest.mark.parametrize("est", ESTIMATORS)
@pytest.mark.parametrize("dtype", ["float64", "float32", "int16", "uint8"])
def test_histogram_estimators(dev, est, dtype):
    if dev.startswith("opencl") and dtype not in ("float64", "int16"):
        pytest.skip("opencl: float64 and int16 (PoCL build time); the CPU runs every dtype")
    rng = np.random.default_rng(41)
    a = rng.normal(50, 12, 600)
    a = np.clip(a, 0, 255).astype(dtype) if dtype[0] in "iu" else a.astype(dtype)
    with _NoFallback("histogram", "histogram_bin_edges"):
        for v in (a, a[::-3], a.reshape(20, 30).T):
            assert_same(em.histogram_bin_edges(to_em(v), bins=est),
                        np.histogram_bin_edges(v, bins=est), rtol=1e-6)
            c, e = em.histogram(to_em(v), bins=est)
            cw, ew = np.histogram(v, bins=est)
            assert_same(c, cw)
            assert_same(e, ew, rtol=1e-6)
        c, e = em.histogram(to_em(a), bins=est, range=(20, 60))
        cw, ew = np.histogram(a, bins=est, range=(20, 60))
        assert_same(c, cw)
        assert_same(e, ew, rtol=1e-6)


@pytest.mark.parametrize("est", ESTIMATORS)
def test_histogram_estimator_edges(dev, est):
    """Empty, one element, all equal (a zero IQR: fd picks one bin), and a
    range that keeps nothing."""
    with _NoFallback("histogram", "histogram_bin_edges"):
        for a in (np.zeros(0), np.array([3.0]), np.full(9, 2.5), np.array([1.0, 1.0, 1.0, 9.0]),
                  np.arange(40, dtype=np.int8)):
            assert_same(em.histogram_bin_edges(to_em(a), bins=est),
                        np.histogram_bin_edges(a, bins=est))
            for g, w in zip(em.histogram(to_em(a), bins=est), np.histogram(a, bins=est)):
                assert_same(g, w)
        a = np.arange(10.0)
        for g, w in zip(em.histogram(to_em(a), bins=est, range=(20, 30)),
                        np.histogram(a, bins=est, range=(20, 30))):
            assert_same(g, w)


def test_histogram_estimator_errors(dev):
    x = em.asarray([1.0, 2.0, 3.0])
    with pytest.raises(ValueError, match="'bogus' is not a valid estimator for `bins`"):
        em.histogram(x, bins="bogus")
    with pytest.raises(TypeError, match="not supported for weighted data"):
        em.histogram(x, bins="auto", weights=em.ones(3))
    with pytest.raises(ValueError, match="autodetected range"):
        em.histogram(em.asarray([1.0, np.inf]), bins="auto")
    with pytest.raises(ValueError, match="max must be larger"):
        em.histogram(x, bins="auto", range=(3, 1))


# ---- random.multivariate_hypergeometric ----------------------------------------

@pytest.mark.parametrize("method", ["marginals", "count"])
def test_multivariate_hypergeometric(dev, method):
    g = em.random.default_rng(51)
    colors = [5, 0, 40, 12, 300]
    with _NoFallback("random.multivariate_hypergeometric"):
        r = g.multivariate_hypergeometric(colors, 60, size=3000, method=method)
    h = r.get()
    assert r.dtype == np.int64 and h.shape == (3000, 5)
    assert (h.sum(axis=1) == 60).all() and (h >= 0).all() and (h <= colors).all()
    assert (h[:, 1] == 0).all()
    tot = sum(colors)
    p = np.array(colors) / tot
    np.testing.assert_allclose(h.mean(axis=0), 60 * p, atol=0.2)
    var = 60 * p * (1 - p) * (tot - 60) / (tot - 1)
    np.testing.assert_allclose(h.var(axis=0), var, rtol=0.15, atol=1e-9)


def test_multivariate_hypergeometric_shapes(dev):
    g = em.random.default_rng(52)
    assert g.multivariate_hypergeometric([3, 4], 7).get().tolist() == [3, 4]
    assert g.multivariate_hypergeometric([3, 4], 0, size=(2, 3)).shape == (2, 3, 2)
    assert g.multivariate_hypergeometric([9], 4).get().tolist() == [4]
    assert g.multivariate_hypergeometric([], 0).shape == (0,)
    assert g.multivariate_hypergeometric([2, 2], 1, size=0).shape == (0, 2)
    want = em.random.default_rng(53).multivariate_hypergeometric([8, 9, 30], 20, size=16,
                                                                  device="cpu").get()
    got = em.random.default_rng(53).multivariate_hypergeometric([8, 9, 30], 20, size=16,
                                                                device=dev).get()
    assert np.array_equal(got, want)


@pytest.mark.parametrize("colors,n,kw", [([3, -1], 2, {}), ([3, 1], 5, {}), ([3, 1], -1, {}),
                                         ([3, 1], 2, {"method": "x"}), ([[3, 1]], 2, {}),
                                         ([10 ** 9, 1], 2, {}), ([3, 1], [1, 2], {}),
                                         ([2.5, 1], 1, {})])
def test_multivariate_hypergeometric_errors(dev, colors, n, kw):
    with pytest.raises(ValueError) as want:
        np.random.default_rng(0).multivariate_hypergeometric(colors, n, **kw)
    with pytest.raises(ValueError, match=re.escape(str(want.value))):
        em.random.default_rng(0).multivariate_hypergeometric(colors, n, **kw)


# ---- arange and tri: the index kernel on a device ----------------------------

ARANGE_CASES = [((10,), {}), ((2, 50, 3), {}), ((0.5, 10.3, 0.7), {}),
                ((1, 1e5), {"dtype": "float32"}), ((-5, 300, 7), {"dtype": "int8"}),
                ((0, 1, 0.1), {"dtype": "float16"}), ((10, 0, -3), {}), ((5,), {"dtype": "uint64"}),
                ((np.float32(0.1), 3), {}), ((2**62, 2**62 + 40, 3), {}),
                ((-1e300, 1e300, 2e299), {}),
                ((0, 3e9, 1e8), {"dtype": "int32"}), ((3, 1), {}), ((0,), {}), ((1.5,), {}),
                ((0, 5), {"dtype": "complex64"}), ((0, 2), {"dtype": "bool"}),
                ((np.uint8(3), np.int16(90), 4), {})]


@pytest.mark.parametrize("args,kw", ARANGE_CASES)
def test_arange_on_the_device(dev, args, kw):
    """NumPy's length, dtype and bits (its fill: b0 + i * (b1 - b0) in the
    dtype's arithmetic), made on the device: no HostFallbackWarning is
    possible here, so the test checks the values; the device path is checked
    by the array being made by the kernel (the host path is a copy)."""
    want, err = _np_or_error(lambda: np.arange(*args, **kw))
    if err is not None:
        with pytest.raises(err):
            em.arange(*args, **kw)
        return
    got = em.arange(*args, **kw)
    assert got.device == em.Device(dev)
    h = got.get()
    assert h.dtype == want.dtype and h.shape == want.shape
    assert h.tobytes() == want.tobytes(), (args, kw)


def test_arange_uses_the_index_kernel(dev):
    if dev == "cpu":
        pytest.skip("the CPU builds ranges with NumPy")
    from ember import _creation
    assert _creation._arange_on_device(0, 1000, 3, None, None) is not None
    assert _creation._arange_on_device(0, 10, 1, "complex64", None) is None


@pytest.mark.parametrize("dtype", [None, "bool", "int8", "uint16", "int64", "float32", "complex64"])
def test_tri_tril_triu_on_the_device(dev, dtype):
    for N, M, k in [(5, None, 0), (4, 7, -2), (6, 3, 5), (1, 1, 0), (0, 3, 0), (3, 4, -9)]:
        want = np.tri(N, M, k, dtype=dtype if dtype else float)
        got = em.tri(N, M, k, dtype=dtype)
        assert got.device == em.Device(dev)
        h = got.get()
        assert h.dtype == want.dtype and h.tobytes() == want.tobytes(), (N, M, k)
    x = np.arange(60, dtype=dtype if dtype not in (None, "bool") else "float64").reshape(3, 4, 5)
    for k in (-2, 0, 1, 7):
        assert_same(em.tril(to_em(x), k), np.tril(x, k))
        assert_same(em.triu(to_em(x), k), np.triu(x, k))
    v = np.arange(4.0)
    assert_same(em.tril(to_em(v)), np.tril(v))  # 1-d: the rows of an (M, M) result


def test_numpys_type_errors_raised_without_the_host(dev):
    """unwrap and frexp of complex input, kaiser of a complex M or beta:
    NumPy's TypeError, raised where the data are (no HostFallbackWarning)."""
    z = np.array([1 + 1j, 2j, -1 + 0.5j])
    with _NoFallback("unwrap", "frexp", "kaiser"):
        for fn in (lambda m: m.unwrap(z if m is np else to_em(z)),
                   lambda m: m.frexp(z if m is np else to_em(z)),
                   lambda m: m.kaiser(5, 1j), lambda m: m.kaiser(5 + 0j, 2.0)):
            _, err = _np_or_error(lambda: fn(np))
            assert err is TypeError
            with pytest.raises(TypeError):
                fn(em)
        assert_same(em.kaiser(np.float32(7), 3), np.kaiser(np.float32(7), 3))
