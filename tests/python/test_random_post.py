"""Fills with a transform (em_random_fill_post): normal/uniform with scalar
loc and scale, exponential and geometric are one kernel on a device, and
must give exactly what the elementwise chain they replace gives on that
device, from the same stream position, and leave the stream where it
would.  geometric is the one-pass fill on every device, the CPU's
included, and is checked against NumPy's formula on the uniforms.  The CPU keeps the chain (its numbers are unchanged); its C path of
the transform is checked against the chain to a few ulps (libm against the
vectorised loops)."""
import numpy as np
import pytest

import ember as em
from ember import _ember


def _kernel_devices():
    devs = []
    if em.cuda.is_available():
        devs.append("cuda:0")
    if em.opencl.is_available():
        devs.append("opencl:0")
    return devs


@pytest.fixture(params=_kernel_devices() or [pytest.param(None, marks=pytest.mark.skip(
    reason="no device with kernels"))])
def kdev(request):
    with em.Device(request.param):
        yield request.param


N = 10001  # not a multiple of a Philox block's values


def _pair(seed=11):
    return em.random.default_rng(seed), em.random.default_rng(seed)


def test_normal_and_uniform_affine(kdev):
    g, h = _pair()
    got = g.normal(1.5, 2.0, N)
    want = h.standard_normal(N) * 2.0 + 1.5
    np.testing.assert_array_equal(got.get(), want.get())
    got = g.uniform(-3.0, 5.0, (N, 2))
    want = h.random((N, 2)) * 8.0 + -3.0
    np.testing.assert_array_equal(got.get(), want.get())
    assert got.shape == (N, 2) and got.dtype == np.float64
    np.testing.assert_array_equal(g.random(7).get(), h.random(7).get())  # same stream position


def test_exponential(kdev):
    g, h = _pair(3)
    got = g.exponential(2.5, N)
    want = -em.log(1.0 - h.random(N)) * 2.5  # 1 - U is exact: log1p(-U)'s value
    np.testing.assert_array_equal(got.get(), want.get())
    got = g.standard_exponential(N, dtype=np.float32)
    want = -em.log(1.0 - h.random(N, dtype=np.float32))
    assert got.dtype == np.float32
    np.testing.assert_array_equal(got.get(), want.get())
    np.testing.assert_array_equal(g.random(5).get(), h.random(5).get())


def _geom_oracle(u, p):
    """NumPy's value of geometric's formula on the stream's float64 uniforms
    u: max(ceil(log1p(-u) / log1p(-p)), 1)."""
    with np.errstate(divide="ignore", invalid="ignore"):  # (1e-300: past int64, as em_f2u)
        lp = np.log1p(-np.float64(p))
        k = np.ceil(np.log1p(-u) / lp)
        return np.maximum(k, 1.0).astype(np.int64)


# 0.2 and 0.9 decide almost every element in float32 on a device
# (codegen/render_random.c's em_geom/em_geom2); 1e-6 sends most to the float64
# path (quotients past 2**22), 1e-300 all of them (the float32 log1p(-p) is 0);
# 1 - 1e-12 gives 1 or 2 mostly; 0.5 puts quotients on exact integers
# (v = 1 - 2**-k) and dozens a million within the float32 margin of one
@pytest.mark.parametrize("p,n", [(0.2, 1 << 20), (0.9, N), (1.0, N), (1e-300, N),
                                 (1e-6, 1 << 18), (0.5, 1 << 20), (1 - 1e-12, N),
                                 (np.float32(0.3), N), (0.2, 1), (0.2, 3), (0.2, 5)])
def test_geometric(device, p, n):
    """Every device (the CPU too) against NumPy on the stream's uniforms, and
    the stream left where they would leave it (two a Philox block)."""
    g, h = _pair(5)
    got = g.geometric(p, n)
    w = h.random(n)
    assert got.dtype == np.int64 and got.shape == (n,) and got.device == w.device
    np.testing.assert_array_equal(got.get(), _geom_oracle(w.get(), p))
    if p == 1.0:
        assert (got.get() == 1).all()
    assert g.bit_generator.counter == h.bit_generator.counter == -(-n // 2)
    np.testing.assert_array_equal(g.random(5).get(), h.random(5).get())


def test_geometric_same_on_every_device(device):
    """CPU == CUDA == OpenCL for a seed: the same uniforms, the same formula
    (a device decides in float32 only where that gives the float64 value)."""
    for p in (0.2, 0.5, 0.01, 1e-6, 1e-300, 1.0):
        want = em.random.default_rng(31).geometric(p, 10003, device="cpu").get()
        got = em.random.default_rng(31).geometric(p, 10003).get()
        np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("shape", [None, (), (0,), (3, 0), (1,), (4, 5), (2, 3, 7)])
def test_geometric_shapes(device, shape):
    g, h = _pair(13)
    got = g.geometric(0.3, shape)
    n = int(np.prod(shape)) if shape is not None else 1
    w = h.random(n).get()
    assert got.shape == (() if shape is None else shape) and got.dtype == np.int64
    np.testing.assert_array_equal(np.asarray(got.get()).ravel(), _geom_oracle(w, 0.3))
    assert g.bit_generator.counter == -(-n // 2)


def test_geometric_array_p_is_the_same_stream(device):
    """An array of p: the scalar path's formula elementwise on the same
    uniforms (one value of p repeated gives the scalar path's numbers)."""
    ps = np.array([0.2, 0.5, 0.9, 1.0, 1e-6, 0.3], dtype=np.float64)
    g, h = _pair(21)
    got = g.geometric(ps, (1000, 6)).get()
    w = h.random((1000, 6)).get()
    want = np.stack([_geom_oracle(w[:, j], ps[j]) for j in range(6)], axis=1)
    np.testing.assert_array_equal(got, want)
    a = em.random.default_rng(4).geometric(np.full(999, 0.25)).get()
    b = em.random.default_rng(4).geometric(0.25, 999).get()
    np.testing.assert_array_equal(a, b)
    c = em.random.default_rng(4).geometric(em.asarray(np.float64(0.25)), 999).get()
    np.testing.assert_array_equal(c, b)


@pytest.mark.parametrize("p", [0.2, 0.7, 0.01])
def test_geometric_distribution(device, p):
    """Mean, variance and a chi-square of the counts against the pmf."""
    stats = pytest.importorskip("scipy.stats")
    k = em.random.default_rng(99).geometric(p, 1 << 18).get()
    assert k.min() >= 1
    mean, var = 1 / p, (1 - p) / p**2
    assert abs(k.mean() - mean) < 6 * np.sqrt(var / k.size)
    assert abs(k.var() / var - 1) < 0.03
    hi = int(stats.geom(p).ppf(1 - 1e-4))
    obs = np.bincount(np.minimum(k, hi + 1), minlength=hi + 2)[1:]
    exp = stats.geom(p).pmf(np.arange(1, hi + 1)) * k.size
    exp = np.append(exp, stats.geom(p).sf(hi) * k.size)
    keep = exp > 5
    assert stats.chisquare(obs[keep], exp[keep] * obs[keep].sum() / exp[keep].sum()).pvalue > 1e-4


def test_device_matches_cpu(kdev):
    """The devices' transforms against the CPU's chain: a few ulps of log."""
    c = em.random.default_rng(9)
    d = em.random.default_rng(9)
    np.testing.assert_allclose(d.exponential(2.0, N).get(), c.exponential(2.0, N, device="cpu")
                               .get(), rtol=1e-13)
    np.testing.assert_allclose(d.normal(-1.0, 3.0, N).get(), c.normal(-1.0, 3.0, N, device="cpu")
                               .get(), rtol=1e-12, atol=1e-12)
    a, b = d.geometric(0.2, N).get(), c.geometric(0.2, N, device="cpu").get()
    np.testing.assert_array_equal(a, b)


def test_cpu_transform_path_and_errors():
    key, ctr = 1234, 0
    t, nxt = _ember.random_fill("uniform", (N,), "float64", key, ctr, "cpu", 0, 0,
                                "exponential", 2.0)
    u, nxt2 = _ember.random_fill("uniform", (N,), "float64", key, ctr, "cpu")
    assert nxt == nxt2
    np.testing.assert_allclose(t.get(), -np.log1p(-u.get()) * 2.0, rtol=1e-15)
    # the formula; NumPy's SIMD log and the CPU backend's differ by an ulp on some hosts
    np.testing.assert_allclose(t.get(), -np.log(1.0 - u.get()) * 2.0, rtol=4.5e-16, atol=0)
    k, nxt3 = _ember.random_fill("uniform", (N,), "int64", key, ctr, "cpu", 0, 0, "geometric",
                                 float(np.log1p(-0.3)))
    np.testing.assert_array_equal(k.get(), _geom_oracle(u.get(), 0.3))
    assert nxt3 == nxt == ctr + -(-N // 2)
    with pytest.raises(TypeError, match="no random transform"):
        _ember.random_fill("uniform", (3,), "float64", key, ctr, "cpu", 0, 0, "geometric", -1.0)
    a, _ = _ember.random_fill("normal", (N,), "float64", key, ctr, "cpu", 0, 0, "affine", 2.0, 1.0)
    z, _ = _ember.random_fill("normal", (N,), "float64", key, ctr, "cpu")
    np.testing.assert_array_equal(a.get(), z.get() * 2.0 + 1.0)
    with pytest.raises(ValueError, match="unknown random transform"):
        _ember.random_fill("uniform", (3,), "float64", key, ctr, "cpu", 0, 0, "cauchy")
    with pytest.raises(TypeError, match="no random transform"):
        _ember.random_fill("uniform", (3,), "int32", key, ctr, "cpu", 0, 0, "affine", 1.0)
    with pytest.raises(TypeError, match="no random transform"):
        _ember.random_fill("normal", (3,), "float64", key, ctr, "cpu", 0, 0, "exponential")

