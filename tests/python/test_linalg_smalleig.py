"""eigh / eigvalsh's Jacobi kernels (src/codegen/render_smalleig.c: a warp a
matrix up to 16 x 16, a block a matrix up to 32 x 32), taken for every
shape they accept (helpers.linalg_path "kernel"), on the cases a Jacobi
kernel gets wrong, against NumPy: stacks whose last block is part empty,
odd n, repeated eigenvalues beside distinct ones in one block, rotations
whose tau overflows 1 + tau^2, huge and tiny entries, and non-contiguous
16 x 16 stacks.  test_linalg_smallla.py has the dtype and size grid; these
reuse its kernels (float64 and complex128 at the 16 and 32 classes) so that
PoCL builds nothing new."""
import numpy as np
import pytest

import ember as em
from helpers import device_names, linalg_path, spy_calls

DEVICES = [d for d in device_names() if d.split(":")[0] in ("cuda", "opencl")]

pytestmark = pytest.mark.skipif(not DEVICES, reason="no CUDA or OpenCL device")


@pytest.fixture(params=DEVICES or ["none"])
def dev(request, monkeypatch):
    linalg_path(monkeypatch, "kernel")
    return request.param


@pytest.fixture
def ran(monkeypatch):
    """Whether the kernel ran, for each call."""
    return spy_calls(monkeypatch, "small_eigh", lambda a, r: r is not None)


def _np(x):
    return np.asarray(x.to_device("cpu"))


def _check(a, dev, tol=1e-12):
    ea = em.asarray(a, device=dev)
    w, v = (_np(x) for x in em.linalg.eigh(ea))
    want = np.linalg.eigvalsh(a)
    scale = np.abs(want).max(axis=-1, keepdims=True)
    scale = np.where(scale > 0, scale, 1)
    assert w.dtype == want.dtype and v.shape == a.shape
    assert (np.abs(w - want) <= tol * scale).all()
    res = np.abs(a @ v - v * w[..., None, :]).max(axis=(-1, -2))
    assert (res <= 10 * tol * scale[..., 0]).all()
    n = a.shape[-1]
    h = np.conj(np.swapaxes(v, -1, -2))
    np.testing.assert_allclose(h @ v, np.broadcast_to(np.eye(n), v.shape), atol=10 * tol)
    np.testing.assert_array_equal(_np(em.linalg.eigvalsh(ea)), w)


def _spectrum(rng, w, dt=np.float64):
    """Q diag(w) Q^H for a random unitary Q (w's repeats stay repeated)."""
    n = len(w)
    z = rng.standard_normal((n, n))
    if np.dtype(dt).kind == "c":
        z = z + 1j * rng.standard_normal((n, n))
    q = np.linalg.qr(z)[0]
    a = (q * np.asarray(w)) @ np.conj(q.T)
    return ((a + np.conj(a.T)) / 2).astype(dt)


@pytest.mark.parametrize("n", [11, 16, 25, 32])
def test_blocks_part_empty_and_mixed(dev, ran, rng, n):
    """A stack of 5 (CUDA's last block of 8 x 8s or 16 x 16s part empty;
    one matrix a block above) mixing the identity, a double and a triple
    eigenvalue, a diagonal and a random matrix: each converges on its own
    sweep while the block goes on."""
    w = rng.standard_normal(n)
    w[1] = w[0]
    w[4] = w[3] = w[2]
    a = np.stack([np.eye(n), _spectrum(rng, w), np.diag(rng.standard_normal(n)),
                  _spectrum(rng, np.sort(rng.standard_normal(n))), np.zeros((n, n))])
    _check(a, dev)
    assert ran == [True, True]


def test_complex_odd_and_repeated(dev, ran, rng):
    w = rng.standard_normal(13)
    w[5:9] = 0.5
    a = np.stack([_spectrum(rng, w, np.complex128), _spectrum(rng, rng.standard_normal(13),
                                                              np.complex128)])
    _check(a, dev)
    assert ran == [True, True]


@pytest.mark.parametrize("n,dt", [(16, np.float64), (32, np.float64), (16, np.complex128)])
def test_overflowing_tau_and_wide_range(dev, ran, n, dt):
    """tau = (a_qq - a_pp) / 2|a_pq| past 1e154 (1 + tau^2 is inf: the
    rotation must be t = 1 / 2 tau, not nothing, or the sweeps never end),
    entries near the overflow and underflow thresholds (a_pp a_qq overflows:
    the convergence test must not, or a matrix of large entries is returned
    unrotated), a graded diagonal; the warp kernel (16) and the block one
    (32, real).  Each failed before session 21: info 1 or a 0.5 % error."""
    a = np.zeros((4, n, n), dt)
    a[0] = np.diag(np.arange(float(n)))
    a[0, 0, 1] = a[0, 1, 0] = 1e-300
    a[0, 5, 9] = a[0, 9, 5] = 1e-170
    a[1] = np.diag(np.arange(1, n + 1.0)) * 1e300
    a[1, 2, 3] = a[1, 3, 2] = 3e299
    a[2] = np.diag(np.arange(1, n + 1.0)) * 1e-300
    a[2, 2, 3] = a[2, 3, 2] = 3e-301
    a[3] = np.diag(10.0 ** np.linspace(-120, 105, n))
    a[3] += np.diag(np.full(n - 1, 1e-3), 1) + np.diag(np.full(n - 1, 1e-3), -1)
    if np.dtype(dt).kind == "c":  # a complex pair of each kind
        a[0, 5, 9], a[0, 9, 5] = 1e-170j, -1e-170j
        a[1, 2, 3], a[1, 3, 2] = 3e299j, -3e299j
    for m in a:
        _check(m[None], dev)
    assert ran == [True, True] * 4


@pytest.mark.parametrize("dt", [np.float32, np.complex64])
@pytest.mark.parametrize("scale", [1e35, 1e-35])
def test_single_precision_extremes(dev, ran, rng, dt, scale):
    """float32 entries whose squares overflow (1e35) or underflow (1e-35):
    the convergence test and the rotations stay finite, as LAPACK's
    scaled sheevd does."""
    a = rng.standard_normal((3, 16, 16))
    if np.dtype(dt).kind == "c":
        a = a + 1j * rng.standard_normal((3, 16, 16))
    a = ((a + np.conj(np.swapaxes(a, -1, -2))) * scale).astype(dt)
    _check(a, dev, tol=2e-5)
    assert ran == [True, True]


def test_noncontiguous_16(dev, ran, rng):
    a = rng.standard_normal((6, 16, 16))
    a = a + np.swapaxes(a, -1, -2)
    ea = em.asarray(a, device=dev)
    sub = a[::-2].swapaxes(-1, -2)
    w, v = (_np(x) for x in em.linalg.eigh(ea[::-2].swapaxes(-1, -2)))
    np.testing.assert_allclose(w, np.linalg.eigvalsh(sub), atol=1e-12 * np.abs(w).max())
    np.testing.assert_allclose(sub @ v, v * w[..., None, :], atol=1e-11 * np.abs(w).max())
    assert ran == [True]
