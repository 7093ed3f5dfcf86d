"""Fills with a transform (em_random_fill_post): normal/uniform with scalar
loc and scale, exponential and geometric are one kernel on a device, and
must give exactly what the elementwise chain they replace gives on that
device, from the same stream position, and leave the stream where it
would.  The CPU keeps the chain (its numbers are unchanged); its C path of
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


# 0.2 and 0.9 decide almost every element in float32 (codegen/render_random.c's
# em_geom); 1e-6 sends most to the float64 path (quotients past 2**22), 1e-300
# all of them (the float32 log1p(-p) is 0); 1 - 1e-12 gives 1 or 2 mostly
@pytest.mark.parametrize("p,n", [(0.2, 1 << 20), (0.9, N), (1.0, N), (1e-300, N),
                                 (1e-6, 1 << 18), (0.5, 1 << 18), (1 - 1e-12, N),
                                 (np.float32(0.3), N)])
def test_geometric(kdev, p, n):
    g, h = _pair(5)
    got = g.geometric(p, n)
    u = h.random(n)
    with np.errstate(divide="ignore"):
        lp = float(np.log1p(-float(p)))
    want = em.maximum(em.ceil(em.log1p(-u) / lp), 1.0).astype(np.int64)
    assert got.dtype == np.int64
    np.testing.assert_array_equal(got.get(), want.get())
    if p == 1.0:
        assert (got.get() == 1).all()
    np.testing.assert_array_equal(g.random(5).get(), h.random(5).get())


def test_geometric_near_integer_quotients(kdev):
    """A million draws put dozens of quotients log1p(-u) / log1p(-p) within
    em_geom's margin of an integer (the elements it hands to float64, next to
    warp mates decided in float32): every value matches the float64 chain."""
    g, h = _pair(77)
    got = g.geometric(0.5, 1 << 20).get()
    u = h.random(1 << 20)
    want = em.maximum(em.ceil(em.log1p(-u) / float(np.log1p(-0.5))), 1.0).astype(np.int64)
    np.testing.assert_array_equal(got, want.get())
    assert got.max() > 15 and (got == 1).mean() > 0.45


def test_device_matches_cpu(kdev):
    """The devices' transforms against the CPU's chain: a few ulps of log."""
    c = em.random.default_rng(9)
    d = em.random.default_rng(9)
    np.testing.assert_allclose(d.exponential(2.0, N).get(), c.exponential(2.0, N, device="cpu")
                               .get(), rtol=1e-13)
    np.testing.assert_allclose(d.normal(-1.0, 3.0, N).get(), c.normal(-1.0, 3.0, N, device="cpu")
                               .get(), rtol=1e-12, atol=1e-12)
    a, b = d.geometric(0.2, N).get(), c.geometric(0.2, N, device="cpu").get()
    assert (a != b).mean() < 1e-3


def test_cpu_transform_path_and_errors():
    key, ctr = 1234, 0
    t, nxt = _ember.random_fill("uniform", (N,), "float64", key, ctr, "cpu", 0, 0,
                                "exponential", 2.0)
    u, nxt2 = _ember.random_fill("uniform", (N,), "float64", key, ctr, "cpu")
    assert nxt == nxt2
    np.testing.assert_allclose(t.get(), -np.log1p(-u.get()) * 2.0, rtol=1e-15)
    # the formula; NumPy's SIMD log and the CPU backend's differ by an ulp on some hosts
    np.testing.assert_allclose(t.get(), -np.log(1.0 - u.get()) * 2.0, rtol=4.5e-16, atol=0)
    k, _ = _ember.random_fill("uniform", (N,), "int64", key, ctr, "cpu", 0, 0, "geometric",
                              float(np.log1p(-0.3)))
    want = np.maximum(np.ceil(np.log1p(-u.get()) / np.log1p(-0.3)), 1).astype(np.int64)
    np.testing.assert_array_equal(k.get(), want)
    a, _ = _ember.random_fill("normal", (N,), "float64", key, ctr, "cpu", 0, 0, "affine", 2.0, 1.0)
    z, _ = _ember.random_fill("normal", (N,), "float64", key, ctr, "cpu")
    np.testing.assert_array_equal(a.get(), z.get() * 2.0 + 1.0)
    with pytest.raises(ValueError, match="unknown random transform"):
        _ember.random_fill("uniform", (3,), "float64", key, ctr, "cpu", 0, 0, "cauchy")
    with pytest.raises(TypeError, match="no random transform"):
        _ember.random_fill("uniform", (3,), "int32", key, ctr, "cpu", 0, 0, "affine", 1.0)
    with pytest.raises(TypeError, match="no random transform"):
        _ember.random_fill("normal", (3,), "float64", key, ctr, "cpu", 0, 0, "exponential")

