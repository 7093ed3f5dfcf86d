"""em.fft through cuFFT and em.linalg through cuSOLVER, against NumPy.

Each test runs twice (the `where` fixture):
- "emulated": on the CPU with the cuFFT/cuSOLVER pieces replaced by NumPy
  models of their column-major contract (cudalib_emu.py), so that the
  Python assembly (layouts, transposes, norms, modes, errors) is checked
  on every machine;
- "cuda": the real libraries on cuda:0, when a GPU is present.
The fallback tests run the host path of CUDA arrays under the fake driver
(tests/c/fake_libcuda.c) with the libraries made unavailable."""
import os
import subprocess
import sys

import numpy as np
import pytest

import cudalib_emu
import ember as em
import ember._cusolver as _cs
import ember.fft as _fft

HERE = os.path.dirname(os.path.abspath(__file__))
PYPATH = os.path.join(HERE, "..", "..", "python")


@pytest.fixture(params=["emulated", "cuda"])
def where(request, monkeypatch):
    """The device string the test's arrays go to."""
    if request.param == "cuda":
        if not em.cuda.is_available():
            pytest.skip("no CUDA device")
        if not (em._ember.cudalib_available(0) and em._ember.cudalib_available(1)):
            pytest.skip("cuFFT or cuSOLVER is not installed")
        yield "cuda:0"
        return
    monkeypatch.setattr(_fft, "_exec", cudalib_emu.fft)
    monkeypatch.setattr(_fft, "_DEVICES", ("cpu",))
    monkeypatch.setattr(_cs, "_solver", cudalib_emu.solver)
    monkeypatch.setattr(_cs, "_DEVICES", ("cpu",))
    with em.Device("cpu"):  # the emulation's own arrays too, where a GPU is the default
        yield "cpu"


def _np(x):
    return np.asarray(x.to_device("cpu")) if isinstance(x, em.ndarray) else np.asarray(x)


def _tol(dt):
    return 2e-3 if np.dtype(dt) in (np.float32, np.complex64) else 1e-9


def _close(got, want, dt=None, exact_dtype=True):
    got, want = _np(got), np.asarray(want)
    assert got.shape == want.shape, (got.shape, want.shape)
    if exact_dtype:
        assert got.dtype == want.dtype, (got.dtype, want.dtype)
    t = _tol(dt or want.dtype)
    scale = max(1.0, float(np.abs(want).max())) if want.size else 1.0
    np.testing.assert_allclose(got, want, rtol=t, atol=t * scale)


def _rand(rng, shape, dt):
    a = rng.standard_normal(shape)
    if np.dtype(dt).kind == "c":
        a = a + 1j * rng.standard_normal(shape)
    if np.dtype(dt).kind in "iu":
        a = (a * 4).round()
    return a.astype(dt)


FFT_DTYPES = [np.float32, np.float64, np.complex64, np.complex128, np.int32]
NORMS = [None, "backward", "ortho", "forward"]


# ---- FFT ----------------------------------------------------------------------

@pytest.mark.parametrize("dt", FFT_DTYPES)
@pytest.mark.parametrize("name", ["fft", "ifft", "rfft", "irfft", "hfft", "ihfft"])
@pytest.mark.parametrize("norm", NORMS)
def test_fft_one_axis(where, rng, dt, name, norm):
    fn, ref = getattr(em.fft, name), getattr(np.fft, name)
    complex_in = np.dtype(dt).kind == "c"
    for shape, axis, n in [((16,), -1, None), ((15,), 0, None), ((3, 10), -1, 7),
                           ((3, 10), 0, 8), ((4, 5, 6), 1, 11), ((2, 9), -1, 1)]:
        a = _rand(rng, shape, dt)
        if name in ("rfft", "ihfft") and complex_in:
            with pytest.raises(TypeError):
                fn(em.asarray(a, device=where), n=n, axis=axis, norm=norm)
            continue
        want = ref(a, n=n, axis=axis, norm=norm)
        _close(fn(em.asarray(a, device=where), n=n, axis=axis, norm=norm), want, dt)


@pytest.mark.parametrize("dt", [np.float32, np.complex128])
def test_fft_non_contiguous(where, rng, dt):
    big = _rand(rng, (12, 20), dt)
    for view in (big[::2, ::-3], big.T, big[:, 1::2]):
        x = em.asarray(big, device=where)
        xv = x[::2, ::-3] if view.shape == big[::2, ::-3].shape and view.strides == \
            big[::2, ::-3].strides else (x.T if view.shape == big.T.shape else x[:, 1::2])
        _close(em.fft.fft(xv), np.fft.fft(view), dt)
        _close(em.fft.fft2(xv, norm="ortho"), np.fft.fft2(view, norm="ortho"), dt)
        if dt == np.float32:
            _close(em.fft.rfft(xv, axis=0), np.fft.rfft(view, axis=0), dt)


@pytest.mark.parametrize("dt", [np.float32, np.float64, np.complex64, np.complex128])
@pytest.mark.parametrize("name", ["fftn", "ifftn", "rfftn", "irfftn",
                                  "fft2", "ifft2", "rfft2", "irfft2"])
@pytest.mark.parametrize("norm", NORMS)
def test_fft_many_axes(where, rng, dt, name, norm):
    fn, ref = getattr(em.fft, name), getattr(np.fft, name)
    a = _rand(rng, (3, 4, 5, 6), dt)
    if name.startswith("rfft") and np.dtype(dt).kind == "c":
        with pytest.raises(TypeError):
            fn(em.asarray(a, device=where))
        return
    cases = [dict(), dict(axes=(0, 2)), dict(axes=(-1, 0)), dict(s=(4, 7), axes=(1, 3)),
             dict(axes=(0, 1, 2, 3)), dict(axes=(2, 2))]
    if name.endswith("2"):
        cases = [dict(), dict(axes=(0, 2)), dict(s=(3, 8)), dict(s=(5, 4), axes=(3, 0))]
    for kw in cases:
        _close(fn(em.asarray(a, device=where), norm=norm, **kw), ref(a, norm=norm, **kw), dt)


def test_fft_batched_and_odd(where, rng):
    a = _rand(rng, (64, 3 * 5 * 7), np.complex64)  # a batch of 64 rows, odd length
    _close(em.fft.fft(em.asarray(a, device=where)), np.fft.fft(a))
    r = _rand(rng, (17, 2 ** 10 + 1), np.float64)
    _close(em.fft.irfft(em.fft.rfft(em.asarray(r, device=where)), n=r.shape[-1]), r)


def test_fft_out_and_dtypes(where, rng):
    a = _rand(rng, (8,), np.int64)
    r = em.fft.fft(em.asarray(a, device=where))
    assert r.dtype == np.complex128 and r.device == em.asarray(a, device=where).device
    out = em.empty((8,), dtype=np.complex128, device=where)
    assert em.fft.fft(em.asarray(a, device=where), out=out) is out
    _close(out, np.fft.fft(a))
    assert em.fft.irfft(em.asarray(_rand(rng, (5,), np.complex64), device=where)).dtype == \
        np.float32


def test_fft_errors(where):
    x = em.asarray(np.ones((4, 6), np.complex64), device=where)
    with pytest.raises(ValueError, match=r"Invalid number of FFT data points \(0\)"):
        em.fft.fft(x, n=0)
    with pytest.raises(ValueError, match="Invalid norm value"):
        em.fft.fft(x, norm="bogus")
    with pytest.raises(IndexError, match="tuple index out of range"):  # NumPy's, as it reads
        em.fft.fft(x, axis=2)                                             # x.shape[axis]
    with pytest.raises(np.exceptions.AxisError):
        em.fft.fft(x, n=4, axis=2)
    with pytest.raises(IndexError, match="tuple index out of range"):
        em.fft.rfft(em.asarray(np.float32(1), device=where))
    with pytest.raises(ValueError, match="Shape and axes have different lengths"):
        em.fft.fftn(x, s=(2, 3), axes=(0,))
    with pytest.raises(ValueError, match="Invalid number of FFT data points"):
        em.fft.fft(em.asarray(np.ones((3, 0), np.complex64), device=where))
    with pytest.raises(ValueError, match="Invalid number of FFT data points"):
        em.fft.irfft(em.asarray(np.ones((3, 1), np.complex64), device=where))
    with pytest.raises(TypeError):
        em.fft.fft(np.ones(4))  # a NumPy array is not an ember array


@pytest.mark.parametrize("n", [1, 2, 7, 10])
@pytest.mark.parametrize("d", [1.0, 0.25])
def test_fftfreq_on_device(where, n, d):
    f = em.fft.fftfreq(n, d, device=where)
    assert f.device == em.empty((1,), device=where).device
    np.testing.assert_array_equal(_np(f), np.fft.fftfreq(n, d))
    np.testing.assert_array_equal(_np(em.fft.rfftfreq(n, d, device=where)), np.fft.rfftfreq(n, d))
    assert em.fft.fftfreq(n, d, dtype=np.float32, device=where).dtype == np.float32
    x = em.asarray(np.fft.fftfreq(n, d), device=where)
    np.testing.assert_array_equal(_np(em.fft.fftshift(x)), np.fft.fftshift(np.fft.fftfreq(n, d)))
    np.testing.assert_array_equal(_np(em.fft.ifftshift(em.fft.fftshift(x))), np.fft.fftfreq(n, d))
    with pytest.raises(ValueError, match="n should be an integer"):
        em.fft.fftfreq(2.5)


def test_fft_plan_cache():
    if not em.cuda.is_available() or not em._ember.cudalib_available(0):
        pytest.skip("needs a CUDA device with cuFFT")
    x = em.asarray(np.ones((4, 256), np.complex64), device="cuda:0")
    em.fft.fft(x)
    cached, created = em._ember._cuda_fft_plans()
    for _ in range(5):
        em.fft.fft(x)
    assert em._ember._cuda_fft_plans() == (cached, created)  # every call hit the cache
    em.fft.fft(em.asarray(np.ones((4, 128), np.complex64), device="cuda:0"))
    assert em._ember._cuda_fft_plans()[1] == created + 1
    # The stream is part of the key.  A shape no other test transforms: a
    # stream destroyed by an earlier test in this process may have left its
    # plans in the cache, and a new stream can get its handle back (the
    # plan then launches on the new stream, which is right, but it is a hit).
    y = em.asarray(np.ones((3, 250), np.complex64), device="cuda:0")
    em.fft.fft(y)
    assert em._ember._cuda_fft_plans()[1] == created + 2
    with em.Stream() as s:
        em.fft.fft(y)
        assert em._ember._cuda_fft_plans()[1] == created + 3
        em.fft.fft(y)
        s.synchronize()
    assert em._ember._cuda_fft_plans()[1] == created + 3


def test_fft_large_gpu():
    if not em.cuda.is_available() or not em._ember.cudalib_available(0):
        pytest.skip("needs a CUDA device with cuFFT")
    rng = np.random.default_rng(3)
    a = rng.standard_normal(2 ** 20).astype(np.float32)
    x = em.asarray(a, device="cuda:0")
    _close(em.fft.rfft(x), np.fft.rfft(a), np.float32)
    _close(em.fft.ifft(em.fft.fft(x)).real, a, np.float32)
    b = _rand(rng, (512, 512), np.complex128)
    _close(em.fft.fft2(em.asarray(b, device="cuda:0")), np.fft.fft2(b))


# ---- linear algebra -------------------------------------------------------------

LA_DTYPES = [np.float32, np.float64, np.complex64, np.complex128, np.int64]
SHAPES = [(4, 4), (3, 5, 5), (2, 3, 3, 3), (1, 1), (40, 6, 6), (33, 33)]


def _spd(rng, shape, dt):
    a = _rand(rng, shape, np.complex128 if np.dtype(dt).kind == "c" else np.float64)
    a = a @ np.swapaxes(a.conj(), -1, -2) + shape[-1] * np.eye(shape[-1])
    return a.astype(dt)


def _herm(rng, shape, dt):
    a = _rand(rng, shape, dt)
    return (a + np.swapaxes(a.conj(), -1, -2)).astype(dt)


@pytest.mark.parametrize("dt", LA_DTYPES)
@pytest.mark.parametrize("shape", SHAPES)
def test_lu_family(where, rng, dt, shape):
    a = _rand(rng, shape, dt) + (3 * np.eye(shape[-1])).astype(dt)
    x = em.asarray(a, device=where)
    for name in ("inv", "det"):
        _close(getattr(em.linalg, name)(x), getattr(np.linalg, name)(a), dt)
    s, l = em.linalg.slogdet(x)
    ws, wl = np.linalg.slogdet(a)
    _close(s, ws, dt), _close(l, wl, dt)
    b = _rand(rng, shape[:-1] + (2,), dt)
    _close(em.linalg.solve(x, em.asarray(b, device=where)), np.linalg.solve(a, b), dt)
    bv = _rand(rng, shape[-1:], dt)
    _close(em.linalg.solve(x, em.asarray(bv, device=where)), np.linalg.solve(a, bv), dt)


def test_solve_broadcast_and_layouts(where, rng):
    a = _rand(rng, (6, 6), np.float64) + 4 * np.eye(6)
    b = _rand(rng, (5, 6, 3), np.float64)
    _close(em.linalg.solve(em.asarray(a, device=where), em.asarray(b, device=where)),
           np.linalg.solve(a, b))
    big = _rand(rng, (12, 12), np.complex128) + 6 * np.eye(12)
    x = em.asarray(big, device=where)
    for xv, av in ((x[::2, ::-2], big[::2, ::-2]), (x.T, big.T), (x[1::2, 1::2], big[1::2, 1::2])):
        _close(em.linalg.inv(xv), np.linalg.inv(av))
        _close(em.linalg.det(xv), np.linalg.det(av))


def test_singular(where):
    a = np.array([[[1.0, 2.0], [2.0, 4.0]], [[1.0, 0.0], [0.0, 1.0]]])
    x = em.asarray(a, device=where)
    with pytest.raises(em.linalg.LinAlgError, match="^Singular matrix$"):
        em.linalg.inv(x)
    with pytest.raises(em.linalg.LinAlgError, match="^Singular matrix$"):
        em.linalg.solve(x, em.asarray(np.ones((2, 2, 1)), device=where))
    _close(em.linalg.det(x), np.linalg.det(a))
    s, l = em.linalg.slogdet(x)
    np.testing.assert_array_equal(_np(s), [0.0, 1.0])
    np.testing.assert_array_equal(_np(l), [-np.inf, 0.0])
    assert float(_np(em.linalg.cond(x, 1))[0]) == np.inf
    assert int(_np(em.linalg.matrix_rank(x))[0]) == 1


@pytest.mark.parametrize("dt", LA_DTYPES)
@pytest.mark.parametrize("upper", [False, True])
def test_cholesky(where, rng, dt, upper):
    for shape in SHAPES:
        a = _spd(rng, shape, dt)
        want = np.linalg.cholesky(a, upper=upper)
        _close(em.linalg.cholesky(em.asarray(a, device=where), upper=upper), want, dt)
    bad = -_spd(rng, (3, 4, 4), dt)
    with pytest.raises(em.linalg.LinAlgError, match="^Matrix is not positive definite$"):
        em.linalg.cholesky(em.asarray(bad, device=where))


def _abs(x):
    return np.abs(_np(x))


@pytest.mark.parametrize("dt", LA_DTYPES)
@pytest.mark.parametrize("shape", [(5, 3), (3, 5), (2, 4, 6), (2, 6, 4), (4, 4), (1, 3), (64, 8),
                                   (50, 8, 8), (3, 40, 5)])
def test_qr_svd(where, rng, dt, shape):
    a = _rand(rng, shape, dt)
    x = em.asarray(a, device=where)
    for mode in ("reduced", "complete"):
        q, r = em.linalg.qr(x, mode=mode)
        wq, wr = np.linalg.qr(a, mode=mode)
        _close(_abs(q), np.abs(wq), dt, False), _close(_abs(r), np.abs(wr), dt, False)
        assert q.dtype == wq.dtype and r.dtype == wr.dtype
        _close(_np(q) @ _np(r), a.astype(wq.dtype), dt)
    _close(_abs(em.linalg.qr(x, mode="r")), np.abs(np.linalg.qr(a, mode="r")), dt, False)
    for full in (True, False):
        u, s, vh = em.linalg.svd(x, full_matrices=full)
        wu, ws, wvh = np.linalg.svd(a, full_matrices=full)
        assert (u.shape, s.shape, vh.shape) == (wu.shape, ws.shape, wvh.shape)
        assert (u.dtype, s.dtype, vh.dtype) == (wu.dtype, ws.dtype, wvh.dtype)
        _close(s, ws, dt)
        k = ws.shape[-1]
        _close((_np(u)[..., :, :k] * _np(s)[..., None, :]) @ _np(vh)[..., :k, :],
               a.astype(wu.dtype), dt)
    _close(em.linalg.svdvals(x), np.linalg.svdvals(a), dt)
    _close(em.linalg.svd(x, compute_uv=False), np.linalg.svd(a, compute_uv=False), dt)
    af = a.astype(np.float64) if a.dtype.kind == "i" else a  # NumPy's rtol=None needs a float
    _close(em.linalg.pinv(x), np.linalg.pinv(af, rtol=None), dt)
    np.testing.assert_array_equal(_np(em.linalg.matrix_rank(x)), np.linalg.matrix_rank(a))
    for o in (2, -2, "nuc"):
        _close(em.linalg.norm(x, o, axis=(-2, -1)), np.linalg.norm(a, o, axis=(-2, -1)), dt)
        _close(em.linalg.norm(x, o, axis=(-1, -2), keepdims=True),
               np.linalg.norm(a, o, axis=(-1, -2), keepdims=True), dt)


@pytest.mark.parametrize("shape", [(6, 4), (4, 6), (3, 5, 5)])
def test_svd_falls_back_to_gesvd(monkeypatch, rng, shape):
    # gesvdj reporting non-convergence for one matrix of the stack: the whole
    # stack goes to gesvd, whose answer is NumPy's; gesvd failing too raises
    calls = []

    def spy(op, *args):
        calls.append(op)
        return cudalib_emu.solver(op, *args)

    monkeypatch.setattr(_cs, "_solver", spy)
    monkeypatch.setattr(_cs, "_DEVICES", ("cpu",))
    monkeypatch.setattr(cudalib_emu, "GESVDJ_FAILS", True)
    a = _rand(rng, shape, np.complex128)
    u, s, vh = em.linalg.svd(em.asarray(a, device="cpu"), full_matrices=False)
    assert calls == ["gesvdj", "gesvd"]
    _close(s, np.linalg.svd(a, compute_uv=False))
    _close((_np(u) * _np(s)[..., None, :]) @ _np(vh), a)
    calls.clear()
    monkeypatch.setattr(cudalib_emu, "GESVDJ_FAILS", False)
    em.linalg.svd(em.asarray(a, device="cpu"))
    assert calls == ["gesvdj"]
    bad = lambda op, *args: (*cudalib_emu.solver(op, *args)[:3],  # noqa: E731
                             em.asarray(np.ones(shape[:-2], np.int32)))
    monkeypatch.setattr(_cs, "_solver", bad)
    with pytest.raises(em.linalg.LinAlgError, match="^SVD did not converge$"):
        em.linalg.svd(em.asarray(a, device="cpu"))


@pytest.mark.parametrize("dt", LA_DTYPES)
@pytest.mark.parametrize("uplo", ["L", "U"])
def test_eigh(where, rng, dt, uplo):
    # (40, 6, 6): a batch of small matrices (one syevjBatched call on the GPU);
    # (33, 33): one syevd; (3, 5, 5): syevjBatched again
    for shape in SHAPES:
        a = _herm(rng, shape, dt)
        a[..., 0, -1] += 5  # an asymmetric corner: only the UPLO triangle may be read
        w, v = em.linalg.eigh(em.asarray(a, device=where), UPLO=uplo)
        ww, wv = np.linalg.eigh(a, UPLO=uplo)
        _close(w, ww, dt)
        assert v.dtype == wv.dtype and v.shape == wv.shape
        h = np.linalg.eigh(a, UPLO=uplo)  # the matrix NumPy read, rebuilt from its results
        rebuilt = (h.eigenvectors * h.eigenvalues[..., None, :]) @ np.swapaxes(
            h.eigenvectors.conj(), -1, -2)
        _close((_np(v) * _np(w)[..., None, :]) @ np.swapaxes(_np(v).conj(), -1, -2), rebuilt, dt)
        _close(em.linalg.eigvalsh(em.asarray(a, device=where), UPLO=uplo), ww, dt)


@pytest.mark.parametrize("dt", [np.float32, np.float64, np.complex64, np.complex128])
def test_eigh_stack_reads_info_only_where_it_can_fail(rng, dt, monkeypatch):
    """eigh's info (syevjBatched's, syevd's) is handed back (to be read, with
    a wait) only for a stack holding a value that is not finite or too large
    for the solvers' squares, found by their input copy (solver.c,
    em__eigh_look); a
    bounded stack hands back None, and its call does not wait for the
    solver.  Layouts: contiguous, a transposed view, and a sliced 4-d one
    (more axes than the copy kernel walks: copied first)."""
    if not em.cuda.is_available() or not em._ember.cudalib_available(1):
        pytest.skip("no CUDA device with cuSOLVER")
    small = np.dtype(dt) in (np.float32, np.complex64)
    a = _herm(rng, (50, 16, 16), dt)
    solve = lambda x: em._ember.cuda_solver("syevd", x.mT, None, None, 1, 0)  # noqa: E731
    w, v, info = solve(em.asarray(a, device="cuda:0"))
    assert info is None
    _close(w, np.linalg.eigvalsh(a), dt)
    for one in (a[3], _herm(rng, (2, 40, 40), dt)):  # syevd: one matrix, a stack of large ones
        w, v, info = solve(em.asarray(one, device="cuda:0"))
        assert info is None
        _close(w, np.linalg.eigvalsh(one), dt)
    b = _herm(rng, (2, 40, 40), dt)
    b[1, 7, 7] = np.nan
    assert solve(em.asarray(b, device="cuda:0"))[2] is not None
    four = _herm(rng, (4, 6, 8, 8), dt)
    cases = ((em.asarray(a, device="cuda:0"), a),
             (em.asarray(a, device="cuda:0").mT, a.mT),
             (em.asarray(four, device="cuda:0")[::2, ::2], four[::2, ::2]))
    for d, want in cases:
        _close(em.linalg.eigvalsh(d), np.linalg.eigvalsh(want), dt)
        w, v = em.linalg.eigh(d)
        h = np.linalg.eigh(want)
        rebuilt = (h.eigenvectors * h.eigenvalues[..., None, :]) @ np.swapaxes(
            h.eigenvectors.conj(), -1, -2)
        _close((_np(v) * _np(w)[..., None, :]) @ np.swapaxes(_np(v).conj(), -1, -2), rebuilt, dt)
    big = 2.0 ** (((128 if small else 1024) - 2 * 4 - 8) // 2)  # solver.c's bound at n = 16
    for bad, at, flagged in ((np.inf, (7, 3, 3), True), (np.nan, (0, 15, 0), True),
                             (-big, (49, 2, 5), True), (big / 2, (11, 4, 4), False)):
        b = a.copy()
        b[at] = bad
        info = solve(em.asarray(b, device="cuda:0"))[2]
        if not flagged:  # below the bound
            assert info is None
            continue
        assert info is not None and info.shape == (50,) and info.dtype == np.int32
        if np.any(_np(info) != 0):  # the read path raises what the solver said
            with pytest.raises(em.linalg.LinAlgError, match="did not converge"):
                em.linalg.eigh(em.asarray(b, device="cuda:0"))
    if np.dtype(dt).kind == "c":  # an imaginary part is looked at too
        b = a.copy()
        b[9, 4, 1] = complex(0, np.inf)
        assert solve(em.asarray(b, device="cuda:0"))[2] is not None
    monkeypatch.setenv("EMBER_EIGH_INFO", "always")
    assert solve(em.asarray(a, device="cuda:0"))[2] is not None


@pytest.mark.parametrize("dt", [np.float32, np.float64, np.complex128])
@pytest.mark.parametrize("shape", [(8, 3), (3, 8), (5, 5)])
def test_lstsq(where, rng, dt, shape):
    a = _rand(rng, shape, dt)
    for b in (_rand(rng, shape[:1], dt), _rand(rng, shape[:1] + (2,), dt)):
        got = em.linalg.lstsq(em.asarray(a, device=where), em.asarray(b, device=where))
        want = np.linalg.lstsq(a, b)
        _close(got[0], want[0], dt)
        _close(got[1], want[1], dt)
        assert int(got[2]) == want[2]
        _close(got[3], want[3], dt)


@pytest.mark.parametrize("p", [None, 2, -2, 1, -1, np.inf, -np.inf, "fro", "nuc"])
def test_cond(where, rng, p):
    a = _rand(rng, (3, 5, 5), np.float64)
    _close(em.linalg.cond(em.asarray(a, device=where), p), np.linalg.cond(a, p))


def test_linalg_errors(where):
    v = em.asarray(np.ones(3), device=where)
    with pytest.raises(em.linalg.LinAlgError, match="1-dimensional array given"):
        em.linalg.inv(v)
    r = em.asarray(np.ones((2, 3)), device=where)
    with pytest.raises(em.linalg.LinAlgError, match="Last 2 dimensions of the array must be"):
        em.linalg.det(r)
    with pytest.raises(ValueError):
        em.linalg.solve(em.asarray(np.eye(3), device=where),
                        em.asarray(np.ones((4, 1)), device=where))
    with pytest.raises(ValueError, match="UPLO"):
        em.linalg.eigh(em.asarray(np.eye(3), device=where), UPLO="X")
    with pytest.raises(ValueError, match="Unrecognized mode"):
        em.linalg.qr(em.asarray(np.eye(3), device=where), mode="bogus")


def test_empty_matrices(where):
    for shape in [(0, 3, 3), (0, 0), (2, 0, 0)]:
        a = np.zeros(shape)
        x = em.asarray(a, device=where)
        _close(em.linalg.inv(x), np.linalg.inv(a))
        _close(em.linalg.det(x), np.linalg.det(a))


# ---- fallbacks: a missing library sends CUDA arrays to the host, warned once ------

FALLBACK = r"""
import warnings, numpy as np, ember as em
assert em.cuda.is_available() and not em._ember.cudalib_available(0)
assert not em._ember.cudalib_available(1)
x = em.asarray(np.arange(8.0), device="cuda:0")
m = em.asarray(2 * np.eye(3), device="cuda:0")
with warnings.catch_warnings(record=True) as w:
    warnings.simplefilter("always")
    r = em.fft.fft(x); em.fft.fft(x); em.fft.rfft(x)
    i = em.linalg.inv(m); em.linalg.inv(m); d = em.linalg.det(m)
names = [str(x.message).split()[0] for x in w if issubclass(x.category, em.HostFallbackWarning)]
print(" ".join(names))
print(r.device, i.device, np.allclose(np.asarray(r.to_device("cpu")), np.fft.fft(np.arange(8.0))),
      np.allclose(np.asarray(i.to_device("cpu")), np.eye(3) / 2), float(d.to_device("cpu")))
"""


def test_missing_libraries_fall_back_once(fake_lib):
    env = dict(os.environ, PYTHONPATH=PYPATH, EMBER_LIBCUDA=fake_lib,
               EMBER_LIBCUFFT="/nonexistent/libcufft.so.12",
               EMBER_LIBCUSOLVER="/nonexistent/libcusolver.so.12")
    env.pop("EMBER_DEVICE", None)
    r = subprocess.run([sys.executable, "-c", FALLBACK], capture_output=True, text=True, env=env,
                       timeout=120)
    assert r.returncode == 0, r.stderr
    names, values = r.stdout.strip().splitlines()
    assert names.split() == ["ember.fft.fft", "ember.fft.rfft", "ember.linalg.inv",
                             "ember.linalg.det"]
    assert values.split() == ["cuda:0", "cuda:0", "True", "True", "7.999999999999998"] or \
        values.split()[:4] == ["cuda:0", "cuda:0", "True", "True"]


def test_cpu_arrays_never_warn(rng):
    import warnings
    a = _rand(rng, (4, 4), np.float64) + 4 * np.eye(4)
    with warnings.catch_warnings():
        warnings.simplefilter("error", em.HostFallbackWarning)
        em.fft.fft(em.asarray(a, device="cpu"))
        em.linalg.inv(em.asarray(a, device="cpu"))
        em.linalg.eig(em.asarray(a, device="cpu"))


def test_library_override_is_reported():
    code = ("import ember as em\n"
            "print(em._ember.cudalib_available(0), em._ember.cudalib_available(1))")
    env = dict(os.environ, PYTHONPATH=PYPATH, EMBER_LIBCUFFT="/nonexistent/x.so",
               EMBER_LIBCUSOLVER="/nonexistent/y.so", EMBER_DEBUG="1")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env,
                       timeout=60)
    assert r.returncode == 0, r.stderr
    assert r.stdout.split() == ["False", "False"]
    assert "cuFFT unavailable: could not load EMBER_LIBCUFFT=/nonexistent/x.so" in r.stderr
    assert "cuSOLVER unavailable: could not load EMBER_LIBCUSOLVER=/nonexistent/y.so" in r.stderr


@pytest.mark.parametrize("o", [2, -2, "nuc"])
def test_singular_value_norms(where, rng, o):
    # norm() reaches _cusolver.norm2 only for device arrays: called directly as well,
    # so that the emulated run checks it too
    a = _rand(rng, (2, 5, 3, 4), np.float64)
    x = em.asarray(a, device=where)
    for axes in [(-2, -1), (1, 3), (3, 0)]:
        for keep in (False, True):
            want = np.linalg.norm(a, o, axis=axes, keepdims=keep)
            _close(_cs.norm2(x, o, axes, keep), want)
            _close(em.linalg.norm(x, o, axis=axes, keepdims=keep), want)
    _close(em.linalg.matrix_norm(x, ord=o), np.linalg.matrix_norm(a, ord=o))
