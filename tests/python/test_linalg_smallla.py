"""solve, inv and det of small matrices in one kernel (include/ember/smallla.h,
src/codegen/render_smallla.c) on every device that compiles kernels
(EMBER_TEST_DEVICES=cpu,opencl:0 runs them on PoCL here; cuda:0 on a GPU),
against NumPy: every dtype, each size class (8, 16, 32, 64) and its edges,
stacks, non-contiguous and broadcast operands, singular matrices (alone and
inside a stack), NaN and inf, integers, n = 0 and 1.  A spy on
_ember.small_linalg makes each test fail if the kernel did not run."""
import numpy as np
import pytest

import ember as em
import ember._cusolver as _cs
from helpers import device_names, linalg_path, spy_calls

DTYPES = [np.float32, np.float64, np.complex64, np.complex128]
DEVICES = [d for d in device_names() if d.split(":")[0] in ("cuda", "opencl")]

pytestmark = pytest.mark.skipif(not DEVICES, reason="no CUDA or OpenCL device")


@pytest.fixture(params=DEVICES or ["none"])
def dev(request, monkeypatch):
    linalg_path(monkeypatch, "kernel")  # every shape, not only those it wins
    return request.param


@pytest.fixture
def calls(monkeypatch):
    """The modes the kernel ran for (a result, not None)."""
    return spy_calls(monkeypatch, "small_linalg", lambda a, r: a[0] if r is not None else None)


def _plain(rng, shape, dt):
    x = rng.standard_normal(shape)
    if np.dtype(dt).kind == "c":
        x = x + 1j * rng.standard_normal(shape)
    return x.astype(dt)


def _rand(rng, shape, dt):
    n = shape[-1]
    return (_plain(rng, shape, dt) + 2 * n ** 0.5 * np.eye(n)).astype(dt)


def _tol(dt):
    return 2e-3 if np.dtype(dt) in (np.float32, np.complex64) else 1e-9


def _np(x):
    return np.asarray(x.to_device("cpu"))


def _check(got, want, dt):
    assert isinstance(got, em.ndarray)
    g = _np(got)
    assert g.dtype == want.dtype and g.shape == want.shape
    np.testing.assert_allclose(g, want, rtol=_tol(dt), atol=_tol(dt) * 10)


def _maxn(dt):
    return 32 if np.dtype(dt) == np.complex128 else 64


@pytest.mark.parametrize("dt", DTYPES)
@pytest.mark.parametrize("n", [1, 2, 7, 8, 9, 16, 17, 31, 32, 33, 64])
def test_one_matrix(dev, calls, rng, dt, n):
    a = _plain(rng, (n, n), dt) + (n ** 0.5) * np.eye(n, dtype=dt)
    b = _plain(rng, (n, 3), dt)
    ea, eb = em.asarray(a, device=dev), em.asarray(b, device=dev)
    _check(em.linalg.solve(ea, eb), np.linalg.solve(a, b), dt)
    _check(em.linalg.inv(ea), np.linalg.inv(a), dt)
    d = (a / np.sqrt(n)).astype(dt)  # |det| near 1: no overflow of float32's range
    _check(em.linalg.det(em.asarray(d, device=dev)), np.asarray(np.linalg.det(d)), dt)
    assert calls == ([0, 1, 2] if n <= _maxn(dt) else [])


@pytest.mark.parametrize("dt", DTYPES)
@pytest.mark.parametrize("shape", [(3, 4, 4), (2, 3, 7, 7), (100, 8, 8), (5, 20, 20), (2, 64, 64)])
def test_stacks(dev, calls, rng, dt, shape):
    a = _rand(rng, shape, dt)
    b = _plain(rng, shape[:-1] + (2,), dt)
    ea, eb = em.asarray(a, device=dev), em.asarray(b, device=dev)
    _check(em.linalg.solve(ea, eb), np.linalg.solve(a, b), dt)
    _check(em.linalg.inv(ea), np.linalg.inv(a), dt)
    d = (a / np.sqrt(shape[-1])).astype(dt)
    _check(em.linalg.det(em.asarray(d, device=dev)), np.linalg.det(d), dt)
    assert calls == ([0, 1, 2] if shape[-1] <= _maxn(dt) else [])


@pytest.mark.parametrize("dt", [np.float32, np.float64, np.complex64])
@pytest.mark.parametrize("k", [1, 16, 23, 24, 64])
def test_right_hand_sides(dev, calls, rng, dt, k):
    """Many right-hand sides: the kernel walks them in chunks (23 columns of a
    64 x 64 float64 at a time, 64 of float32)."""
    a = _rand(rng, (64, 64), dt)
    b = _plain(rng, (64, k), dt)
    _check(em.linalg.solve(em.asarray(a, device=dev), em.asarray(b, device=dev)),
           np.linalg.solve(a, b), dt)
    v = b[:, 0].copy()  # a 1-d b: a vector
    _check(em.linalg.solve(em.asarray(a, device=dev), em.asarray(v, device=dev)),
           np.linalg.solve(a, v), dt)
    assert calls == [0, 0]


@pytest.mark.parametrize("dt", [np.float64, np.complex64])
def test_layouts_and_broadcast(dev, calls, rng, dt):
    a = _rand(rng, (5, 6, 6), dt)
    b = _plain(rng, (6, 3), dt)
    ea = em.asarray(a, device=dev)
    at = a[::-1, :, ::-1].swapaxes(-1, -2)  # negative strides, transposed
    eat = ea[::-1, :, ::-1].swapaxes(-1, -2)
    eb = em.asarray(b, device=dev)
    _check(em.linalg.solve(eat, eb), np.linalg.solve(at, b), dt)  # b broadcast over the stack
    _check(em.linalg.solve(eat, eb[:, ::-2]), np.linalg.solve(at, b[:, ::-2]), dt)
    _check(em.linalg.inv(eat), np.linalg.inv(at), dt)
    _check(em.linalg.det(eat), np.linalg.det(at), dt)
    # one matrix against a stack of right-hand sides: a broadcast
    bb = _plain(rng, (4, 6, 2), dt)
    _check(em.linalg.solve(ea[0], em.asarray(bb, device=dev)), np.linalg.solve(a[0], bb), dt)
    assert calls == [0, 0, 1, 2, 0]


def test_pivoting_and_sign(dev, calls, rng):
    """Permutation matrices and a zero leading entry need row swaps: det's
    sign is the swaps' parity."""
    for n in (2, 5, 8, 13):
        for _ in range(3):
            p = np.eye(n)[rng.permutation(n)]
            ep = em.asarray(p, device=dev)
            _check(em.linalg.det(ep), np.asarray(np.linalg.det(p)), np.float64)
            _check(em.linalg.inv(ep), np.linalg.inv(p), np.float64)
    a = np.array([[0.0, 2.0, 1.0], [1.0, 1.0, 0.0], [3.0, 0.0, 1.0]])
    ea = em.asarray(a, device=dev)
    _check(em.linalg.det(ea), np.asarray(np.linalg.det(a)), np.float64)
    _check(em.linalg.solve(ea, em.asarray(np.arange(3.0), device=dev)),
           np.linalg.solve(a, np.arange(3.0)), np.float64)


@pytest.mark.parametrize("dt", DTYPES)
@pytest.mark.parametrize("batch", [(), (10,), (3, 4)])
def test_singular(dev, calls, rng, dt, batch):
    """A singular matrix raises as NumPy does, alone or anywhere in a stack;
    its determinant is 0; a good call afterwards works."""
    n = 6
    a = _rand(rng, batch + (n, n), dt)
    last = tuple(d - 1 for d in batch)
    a[last + (slice(None), 2)] = 0  # the last matrix of the stack: a zero column
    ea = em.asarray(a, device=dev)
    b = em.asarray(np.ones(batch + (n, 1), dt), device=dev)
    with pytest.raises(em.linalg.LinAlgError, match="Singular matrix"):
        np.linalg.solve(a, np.ones(batch + (n, 1), dt))
    with pytest.raises(em.linalg.LinAlgError, match="Singular matrix"):
        em.linalg.solve(ea, b)
    with pytest.raises(em.linalg.LinAlgError, match="Singular matrix"):
        em.linalg.inv(ea)
    d = _np(em.linalg.det(ea))
    assert d[last] == 0
    np.testing.assert_allclose(d, np.linalg.det(a), rtol=_tol(dt), atol=_tol(dt))
    r = np.array([[1.0, 2.0], [2.0, 4.0]], dt)  # exactly singular after one step
    with pytest.raises(em.linalg.LinAlgError, match="Singular matrix"):
        em.linalg.inv(em.asarray(r, device=dev))
    g = _rand(rng, (n, n), dt)
    _check(em.linalg.inv(em.asarray(g, device=dev)), np.linalg.inv(g), dt)
    assert set(calls) == {0, 1, 2}


def test_nan_and_inf(dev, calls, rng):
    """NaN input gives NaN results and no error (NumPy's LAPACK does not flag
    it); an infinite pivot gives NumPy's zeros."""
    a = _rand(rng, (5, 5), np.float64)
    a[2, 3] = np.nan
    ea = em.asarray(a, device=dev)
    x = _np(em.linalg.solve(ea, em.asarray(np.ones(5), device=dev)))
    assert np.isnan(x).all() == np.isnan(np.linalg.solve(a, np.ones(5))).all()
    assert np.isnan(_np(em.linalg.inv(ea))).any()
    assert np.isnan(_np(em.linalg.det(ea)))
    i = np.eye(3)
    i[1, 1] = np.inf
    _check(em.linalg.solve(em.asarray(i, device=dev), em.asarray(np.ones(3), device=dev)),
           np.linalg.solve(i, np.ones(3)), np.float64)
    _check(em.linalg.inv(em.asarray(i, device=dev)), np.linalg.inv(i), np.float64)
    assert calls == [0, 1, 2, 0, 1]


@pytest.mark.parametrize("dt", [np.complex64, np.complex128])
def test_complex_det_overflow(dev, calls, dt):
    """A complex det past the range is NumPy's sign * exp(logdet): inf in
    both parts (or inf and NaN as NumPy's), not the NaN of a product's
    inf - inf; a singular one is 0; the real and huge-but-finite ones stay."""
    big = 1e30 if dt == np.complex64 else 1e300
    cases = [np.diag([big, big * (1 + 1j), 3]), np.eye(20) * (1e10 + 1e10j) ** 2,
             np.diag([1 + 1j, 0, 2]), np.diag([3.0, 1e-3, 2.0]),
             _rand(np.random.default_rng(1), (5, 5), dt)]
    if dt == np.complex128:  # NumPy's complex64 gives 0 + inf j here, its complex128 NaN + inf j
        cases.append(np.diag([big, 1j * big, 2, 1e-3]))
    for m in cases:
        m = m.astype(dt)
        with np.errstate(all="ignore"):
            want = np.linalg.det(m)
        got = complex(_np(em.linalg.det(em.asarray(m, device=dev))))
        for g, w in ((got.real, want.real), (got.imag, want.imag)):
            if np.isfinite(w):
                np.testing.assert_allclose(g, w, rtol=_tol(dt), atol=_tol(dt))
            else:
                assert (np.isnan(g) and np.isnan(w)) or g == w, (m.diagonal(), got, want)
    assert calls == [2] * len(cases)


def test_integers_and_empty(dev, calls):
    i = np.array([[4, 1], [1, 3]], dtype=np.int64)
    ei = em.asarray(i, device=dev)
    _check(em.linalg.inv(ei), np.linalg.inv(i), np.float64)
    _check(em.linalg.solve(ei, ei), np.linalg.solve(i, i), np.float64)
    _check(em.linalg.det(ei), np.asarray(np.linalg.det(i)), np.float64)
    assert calls == [1, 0, 2]
    for shape in [(0, 3, 3), (0, 0), (2, 0, 0)]:  # n = 0 or no matrix: not the kernel's
        a = np.zeros(shape)
        ea = em.asarray(a, device=dev)
        assert em.linalg.inv(ea).shape == np.linalg.inv(a).shape
        assert _np(em.linalg.det(ea)).shape == np.linalg.det(a).shape


def test_bad_input(dev):
    with pytest.raises(em.linalg.LinAlgError):
        em.linalg.inv(em.asarray(np.ones((2, 3)), device=dev))
    with pytest.raises(em.linalg.LinAlgError):
        em.linalg.det(em.asarray(np.ones(3), device=dev))
    f = em._ember.small_linalg
    a = em.asarray(np.eye(3), device=dev)
    with pytest.raises(ValueError):
        f(0, a, em.asarray(np.ones((2, 1)), device=dev))  # b's rows are not a's
    with pytest.raises(ValueError):
        f(7, a)
    assert f(1, em.asarray(np.eye(65), device=dev)) is None  # past the kernel's n
    assert f(1, em.asarray(np.eye(3, dtype=np.int32), device=dev)) is None
    assert f(1, em.asarray(np.eye(3), device="cpu")) is None  # the CPU's is NumPy's
    assert em._ember.small_linalg_maxn(np.float64) == 64
    assert em._ember.small_linalg_maxn(np.complex128) == 32
    assert em._ember.small_linalg_maxn(np.int32) == 0


# ---- eigh / eigvalsh of real symmetric n <= 32 (Jacobi sweeps) -------------

@pytest.fixture
def ecalls(monkeypatch):
    return spy_calls(monkeypatch, "small_eigh", lambda a, r: a[1] if r is not None else None)


def _check_eigh(a, w, v, dt, uplo="L"):
    """w against NumPy's; A v = v w and V unitary (a vector's sign or phase is free)."""
    w, v = _np(w), _np(v)
    want = np.linalg.eigvalsh(a, UPLO=uplo)
    assert w.dtype == want.dtype and w.shape == want.shape and v.shape == a.shape
    assert v.dtype == a.dtype
    scale = max(1.0, np.abs(want).max()) if want.size else 1.0
    tol = _tol(dt) * scale
    np.testing.assert_allclose(w, want, atol=tol)
    h = lambda x: np.conj(np.swapaxes(x, -1, -2))  # noqa: E731
    sym = np.tril(a, -1) + h(np.tril(a, -1)) if uplo == "L" else np.triu(a, 1) + h(np.triu(a, 1))
    sym = sym + np.einsum("...ii->...i", a).real[..., None] * np.eye(a.shape[-1])
    np.testing.assert_allclose(sym @ v, v * w[..., None, :], atol=tol * 10)
    n = a.shape[-1]
    np.testing.assert_allclose(h(v) @ v, np.broadcast_to(np.eye(n), v.shape), atol=_tol(dt) * 10)


def _herm(rng, shape, dt):
    a = _plain(rng, shape, dt)
    return (a + np.conj(np.swapaxes(a, -1, -2))).astype(dt)


@pytest.mark.parametrize("dt", DTYPES)
@pytest.mark.parametrize("shape", [(1, 1), (2, 2), (3, 3), (8, 8), (9, 9), (16, 16), (17, 17),
                                   (32, 32), (100, 8, 8), (2, 3, 5, 5), (7, 16, 16), (4, 32, 32),
                                   (3, 33, 33)])
def test_eigh(dev, ecalls, rng, dt, shape):
    """Real n <= 32 (a warp a matrix up to 16, a block above), complex n <= 16."""
    a = _herm(rng, shape, dt)
    ea = em.asarray(a, device=dev)
    w, v = em.linalg.eigh(ea)
    _check_eigh(a, w, v, dt)
    wv = em.linalg.eigvalsh(ea)
    np.testing.assert_allclose(_np(wv), np.linalg.eigvalsh(a), atol=_tol(dt) * 10)
    maxn = 16 if np.dtype(dt).kind == "c" else 32
    assert ecalls == ([True, False] if shape[-1] <= maxn else [])


@pytest.mark.parametrize("dt", DTYPES)
def test_eigh_hermitian_triangles_and_nan(dev, ecalls, rng, dt):
    """Only one triangle is read (the other's conjugate is not checked, as in
    NumPy), the diagonal's imaginary part is ignored, a stack of 4n + 1
    matrices leaves the last block part empty, and NaN raises as NumPy's."""
    a = _plain(rng, (9, 6, 6), dt)  # neither Hermitian nor with a real diagonal
    ea = em.asarray(a, device=dev)
    for uplo in ("L", "U"):
        w, v = em.linalg.eigh(ea, UPLO=uplo)
        _check_eigh(a, w, v, dt, uplo)
    at = a[::-1, ::2, ::-2].swapaxes(-1, -2)
    _check_eigh(at, *em.linalg.eigh(ea[::-1, ::2, ::-2].swapaxes(-1, -2)), dt)
    # NaN in the triangle read: NumPy's LAPACK raises; NaN in the other is not read
    h = (np.eye(4) * 2 + np.diag([1, 1, 1], 1) + np.diag([1, 1, 1], -1)).astype(dt)
    h = np.stack([h] * 5)
    h[2, 1, 0] = np.nan
    with pytest.raises(np.linalg.LinAlgError):
        np.linalg.eigvalsh(h)
    with pytest.raises(em.linalg.LinAlgError, match="did not converge"):
        em.linalg.eigvalsh(em.asarray(h, device=dev))
    h[2, 1, 0], h[2, 0, 1] = 1, np.nan
    w = _np(em.linalg.eigvalsh(em.asarray(h, device=dev)))
    np.testing.assert_allclose(w, np.linalg.eigvalsh(h), atol=_tol(dt) * 10)
    assert ecalls == [True, True, True, False, False]


def test_eigh_triangles_layouts_and_degenerate(dev, ecalls, rng):
    a = _plain(rng, (4, 7, 7), np.float64)  # not symmetric: only one triangle is read
    ea = em.asarray(a, device=dev)
    for uplo in ("L", "U"):
        w, v = em.linalg.eigh(ea, UPLO=uplo)
        _check_eigh(a, w, v, np.float64, uplo)
    at = a[::-1, ::-1, :].swapaxes(-1, -2)  # negative strides, transposed
    w, v = em.linalg.eigh(ea[::-1, ::-1, :].swapaxes(-1, -2))
    _check_eigh(at, w, v, np.float64)
    for m in (np.zeros((5, 5)), np.eye(6), np.diag([3.0, -1.0, 2.0, 2.0]),
              np.ones((4, 4))):  # zero, repeated and already-diagonal
        w, v = em.linalg.eigh(em.asarray(m, device=dev))
        _check_eigh(m, w, v, np.float64)
    assert ecalls == [True] * 7
    # integers are taken as float64; complex n <= 16 too, complex n > 16 not
    i = np.array([[2, 1], [1, 3]])
    np.testing.assert_allclose(_np(em.linalg.eigvalsh(em.asarray(i, device=dev))),
                               np.linalg.eigvalsh(i))
    h = np.array([[2, 1j], [-1j, 3]])
    np.testing.assert_allclose(_np(em.linalg.eigvalsh(em.asarray(h, device=dev))),
                               np.linalg.eigvalsh(h))
    assert ecalls == [True] * 7 + [False, False]
    assert em._ember.small_eigh(em.asarray(np.eye(17, dtype=np.complex64), device=dev),
                                True, False) is None


# ---- the CUDA kernels under the fake driver (NVRTC compiles them for real) ---

FAKE_SMALL = """
import struct
out = []
def launch(mode, n, dt, batch=(), k=2):
    a = em.asarray(np.zeros(batch + (n, n), dt), device="cuda:0")
    if mode == 3:
        r = em._ember.small_eigh(a, True, False)
    else:
        b = em.asarray(np.zeros(batch + (n, k), dt), device="cuda:0") if mode == 0 else None
        r = em._ember.small_linalg(mode, a, b)
    assert r is not None, (mode, n, dt)
    c = cfg()
    f = struct.unpack("<4Q4q", params(64))
    out.append((mode, n, np.dtype(dt).name, c[0], c[3], f[4], f[5], f[6], f[7]))
for dt in (np.float32, np.float64, np.complex64, np.complex128):
    for mode in (0, 1, 2):
        launch(mode, 32 if dt == np.complex128 else 64, dt)
for n in (3, 12, 20):
    launch(0, n, np.float64, (5,), 3)
for dt in (np.float32, np.float64):  # eigh: a block a matrix, then a warp a matrix
    launch(3, 32, dt, (7,))
launch(3, 5, np.float64, (2, 3))
launch(3, 12, np.complex128, (9,))
launch(3, 16, np.float32, (4,))
for row in out:
    print(*row)
"""


def test_cuda_kernels_compile_and_launch_under_the_fake_driver(fake_lib, tmp_path):
    """Every CUDA variant's source builds with NVRTC (CUDA-only text: the warp
    pivot search) and launches one block per matrix with the size class's
    threads and the argument's n, k, batch and mode."""
    import os
    import subprocess
    import sys
    from helpers import FAKE_PROLOGUE, nvrtc_available
    if not nvrtc_available():
        pytest.skip("NVRTC is not here")
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path), EMBER_LIBCUDA=fake_lib,
               FAKE_LIB=fake_lib, EMBER_CACHE_DIR=str(tmp_path))
    env.pop("EMBER_DEVICE", None)
    r = subprocess.run([sys.executable, "-c", FAKE_PROLOGUE + FAKE_SMALL], capture_output=True,
                       text=True, env=env, timeout=600)
    assert r.returncode == 0, r.stderr[-3000:]
    rows = [line.split() for line in r.stdout.strip().splitlines()]
    threads = {8: 64, 16: 64, 32: 128, 64: 256}
    for i, (mode, n, dt, grid, block, fn, fk, fbatch, fmode) in enumerate(rows):
        mode, n, grid, block = int(mode), int(n), int(grid), int(block)
        cap = 8 if n <= 8 else 16 if n <= 16 else 32 if n <= 32 else 64
        if mode == 3 and n <= 16:  # eigh's warp a matrix, four a block
            assert block == 128 and grid == -(-int(fbatch) // 4) and int(fn) == n, (n, dt)
        elif mode == 1 and fbatch == "1":  # inv of one matrix: more threads a column
            want = (512 if "complex" in dt else 1024) if cap == 64 else 256
            assert block == want and grid == 1 and int(fn) == n, (n, dt)
        else:
            assert block == threads[cap] and grid == int(fbatch) and int(fn) == n, (mode, n, dt)
        if mode < 3:
            assert int(fmode) == mode
            assert int(fk) == {0: 2 if fbatch == "1" else 3, 1: n, 2: 1}[mode]
        else:
            assert int(fk) == 1  # vectors, the lower triangle
    assert len(rows) == 12 + 3 + 5
    assert [int(r_[7]) for r_ in rows[12:]] == [5, 5, 5] + [7, 7, 6, 9, 4]


def test_cuda_shape_policy(monkeypatch):
    """Which CUDA calls take the kernel by default: the shapes it won on the
    H100 (_cusolver's _SMALL note); the _SMALL_ALL hook takes every one."""
    class Fake:  # what _small reads of an array
        def __init__(self, shape, dt=np.float64):
            self.shape, self.ndim, self.dtype = shape, len(shape), np.dtype(dt)
            self.size, self._dev = int(np.prod(shape)), ("cuda", 0)
    monkeypatch.setattr(_cs, "_SMALL", True)
    monkeypatch.setattr(_cs, "_SMALL_ALL", False)
    s = _cs._small
    assert s(Fake((64, 64)), "solve", 1) and s(Fake((1, 8, 8)), "solve", 1)
    assert not s(Fake((10_000, 8, 8)), "solve", 1) and s(Fake((1000, 32, 32)), "solve", 1)
    assert not s(Fake((64, 64)), "solve", 65)  # too many right-hand sides
    assert s(Fake((32, 32)), "inv") and s(Fake((64, 64)), "inv")  # one matrix: any n
    assert s(Fake((5, 8, 8)), "inv") and s(Fake((1000, 32, 32)), "inv")
    assert not s(Fake((3, 64, 64)), "inv")
    assert s(Fake((10_000, 8, 8)), "det") and not s(Fake((65, 65)), "det")
    assert s(Fake((32, 32), np.complex128), "det") and not s(Fake((33, 33), np.complex128), "det")
    assert not s(Fake((0, 8, 8)), "det")
    # OpenCL: every shape on a GPU, none on a CPU device (the host's NumPy)
    monkeypatch.setattr(_cs, "_opencl_gpu", lambda i: i == 1)
    cl = [Fake((10_000, 8, 8)), Fake((64, 64))]
    for f, i in zip(cl, (1, 0)):
        f._dev = ("opencl", i)
    assert s(cl[0], "solve", 1) and s(cl[0], "inv") and not s(cl[1], "det")
    monkeypatch.setattr(_cs, "_SMALL_ALL", True)
    assert s(Fake((10_000, 8, 8)), "solve", 1) and s(Fake((64, 64)), "inv") and s(cl[1], "det")
    monkeypatch.setattr(_cs, "_SMALL", False)
    assert not s(Fake((8, 8)), "det")


def test_cuda_eigh_policy(monkeypatch):
    """eigh's kernel on CUDA: stacks and single matrices up to 8 x 8 (a warp
    a matrix; 16 x 16 stacks lost to syevjBatched on the H100, one 16 x 16
    or 32 x 32 to syevd); never past its n."""
    class Fake:
        def __init__(self, shape, dt=np.float64):
            self.shape, self.ndim, self.dtype = shape, len(shape), np.dtype(dt)
            self.size, self._dev = int(np.prod(shape)), ("cuda", 0)
    monkeypatch.setattr(_cs, "_SMALL", True)
    monkeypatch.setattr(_cs, "_SMALL_EIGH", True)
    monkeypatch.setattr(_cs, "_SMALL_ALL", False)
    s = _cs._small_eigh
    for dt in (np.float32, np.float64, np.complex64, np.complex128):
        assert s(Fake((10_000, 8, 8), dt)) and s(Fake((2, 3, 5, 5), dt)) and s(Fake((8, 8), dt))
        assert not s(Fake((1000, 16, 16), dt)) and not s(Fake((0, 8, 8), dt))
    assert not s(Fake((32, 32))) and not s(Fake((16, 16))) and not s(Fake((9, 9), np.float32))
    assert not s(Fake((33, 33))) and not s(Fake((1000, 32, 32)))
    assert not s(Fake((16, 16), np.complex128))
    monkeypatch.setattr(_cs, "_SMALL_ALL", True)
    assert s(Fake((1000, 16, 16), np.complex64)) and s(Fake((4, 32, 32)))
    assert not s(Fake((4, 17, 17), np.complex64)) and not s(Fake((33, 33)))
    monkeypatch.setattr(_cs, "_SMALL_EIGH", False)
    assert not s(Fake((8, 8)))
