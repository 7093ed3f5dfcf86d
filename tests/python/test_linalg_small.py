"""solve, inv and cholesky of small and batched matrices on their one-call
paths (gesv, inv, cholesky and the info flag in C: include/ember/cudalib.h)
and on the pieces assembled in Python (EMBER_LINALG_PATH=old, ``_FAST``
False), against NumPy.

As in test_cudalib.py, each test runs "emulated" (the C pieces replaced by
NumPy models of their column-major contract, cudalib_emu.py, on the CPU)
and on cuda:0 where there is a GPU with cuSOLVER."""
import numpy as np
import pytest

import cudalib_emu
import ember as em
import ember._cusolver as _cs
from helpers import linalg_path

DTYPES = [np.float32, np.float64, np.complex64, np.complex128]
# 64 x 64 takes the one-matrix calls; stacks of matrices up to 32 x 32 the
# batched ones (getrfBatched / getrsBatched, potrfBatched).
SHAPES = [(1, 1), (3, 3), (64, 64), (2, 1, 1), (7, 8, 8), (2, 3, 5, 5), (4, 33, 33)]


@pytest.fixture(params=["emulated", "cuda"])
def where(request, monkeypatch):
    if request.param == "cuda":
        if not em.cuda.is_available():
            pytest.skip("no CUDA device")
        if not em._ember.cudalib_available(1):
            pytest.skip("cuSOLVER is not installed")
        yield "cuda:0"
        return
    monkeypatch.setattr(_cs, "_solver", cudalib_emu.solver)
    monkeypatch.setattr(_cs, "_DEVICES", ("cpu",))
    with em.Device("cpu"):
        yield "cpu"


@pytest.fixture(params=["fast", "old", "kernel"])
def path(request, monkeypatch):
    """fast / old: the cuSOLVER paths (the one-kernel path off); kernel: solve,
    inv and det of n <= 64 in one launch (test_linalg_smallla.py has its own
    tests; here it meets the same cases on CUDA)."""
    linalg_path(monkeypatch, request.param)
    return request.param


def _plain(rng, shape, dt):
    x = rng.standard_normal(shape)
    if np.dtype(dt).kind == "c":
        x = x + 1j * rng.standard_normal(shape)
    return x.astype(dt)


def _rand(rng, shape, dt):
    n = shape[-1]
    return (_plain(rng, shape, dt) + 2 * n ** 0.5 * np.eye(n)).astype(dt)  # well conditioned


def _spd(rng, shape, dt):
    x = _rand(rng, shape, dt)
    return (x @ np.conj(np.swapaxes(x, -1, -2)) + shape[-1] * np.eye(shape[-1])).astype(dt)


def _tol(dt):
    return 2e-3 if np.dtype(dt) in (np.float32, np.complex64) else 1e-9


def _check(got, want, dt):
    assert isinstance(got, em.ndarray)
    g = np.asarray(got.to_device("cpu") if got.device != "cpu" else got)
    assert g.dtype == want.dtype and g.shape == want.shape
    np.testing.assert_allclose(g, want, rtol=_tol(dt), atol=_tol(dt) * 10)


@pytest.mark.parametrize("dt", DTYPES)
@pytest.mark.parametrize("shape", SHAPES)
def test_solve_inv_cholesky(where, path, rng, dt, shape):
    a = _rand(rng, shape, dt)
    b = _plain(rng, shape[:-1] + (2,), dt)
    s = _spd(rng, shape, dt)
    ea, eb, es = (em.asarray(x, device=where) for x in (a, b, s))
    _check(em.linalg.solve(ea, eb), np.linalg.solve(a, b), dt)
    _check(em.linalg.inv(ea), np.linalg.inv(a), dt)
    for upper in (False, True):
        got = em.linalg.cholesky(es, upper=upper)
        want = np.linalg.cholesky(s, upper=upper)
        _check(got, want, dt)
        g = np.asarray(got.to_device("cpu"))  # the other triangle is exactly zero
        other = np.tril(g, -1) if upper else np.triu(g, 1)
        assert not other.any()


@pytest.mark.parametrize("dt", [np.float64, np.complex64])
def test_layouts_and_broadcast(where, path, rng, dt):
    a = _rand(rng, (5, 6, 6), dt)
    b = _plain(rng, (6, 3), dt)
    ea = em.asarray(a, device=where)
    # a non-contiguous, negatively strided stack, a 1-d b and a broadcast b
    at = a[::-1, :, ::-1].swapaxes(-1, -2)
    eat = ea[::-1, :, ::-1].swapaxes(-1, -2)
    _check(em.linalg.solve(eat, em.asarray(b, device=where)), np.linalg.solve(at, b), dt)
    v = b[:, 0].copy()
    _check(em.linalg.solve(ea[0], em.asarray(v, device=where)), np.linalg.solve(a[0], v), dt)
    _check(em.linalg.inv(eat), np.linalg.inv(at), dt)
    s = _spd(rng, (3, 6, 6), dt)
    st = s[:, ::-1, ::-1]  # still Hermitian positive definite
    es = em.asarray(s, device=where)[:, ::-1, ::-1]
    _check(em.linalg.cholesky(es), np.linalg.cholesky(st), dt)


@pytest.mark.parametrize("n,batch", [(4, ()), (64, ()), (8, (10,)), (8, (3, 4))])
def test_singular_and_not_positive_definite(where, path, rng, n, batch):
    a = _rand(rng, batch + (n, n), np.float64)
    last = (slice(None),) * 0 + tuple(d - 1 for d in batch)
    a[last + (slice(None), 1)] = 0  # one singular matrix, the last of the stack
    ea = em.asarray(a, device=where)
    b = em.asarray(np.ones(batch + (n, 1)), device=where)
    with pytest.raises(em.linalg.LinAlgError, match="Singular matrix"):
        em.linalg.solve(ea, b)
    with pytest.raises(em.linalg.LinAlgError, match="Singular matrix"):
        em.linalg.inv(ea)
    s = _spd(rng, batch + (n, n), np.float64)
    s[last + (0, 0)] = -1.0  # not positive definite
    with pytest.raises(em.linalg.LinAlgError, match="positive definite"):
        em.linalg.cholesky(em.asarray(s, device=where))
    # a good call afterwards works (nothing left pending)
    g = _rand(rng, (n, n), np.float64)
    _check(em.linalg.inv(em.asarray(g, device=where)), np.linalg.inv(g), np.float64)


def test_empty_and_integer(where, path):
    for shape in [(0, 3, 3), (0, 0), (2, 0, 0)]:
        a = np.zeros(shape)
        ea = em.asarray(a, device=where)
        assert em.linalg.inv(ea).shape == np.linalg.inv(a).shape
        assert em.linalg.cholesky(ea).shape == np.linalg.cholesky(a).shape
    i = np.array([[4, 1], [1, 3]], dtype=np.int64)
    ei = em.asarray(i, device=where)
    _check(em.linalg.inv(ei), np.linalg.inv(i), np.float64)
    _check(em.linalg.cholesky(ei), np.linalg.cholesky(i), np.float64)
    _check(em.linalg.solve(ei, ei), np.linalg.solve(i, i), np.float64)


def test_bad_input(where, path):
    with pytest.raises(em.linalg.LinAlgError):
        em.linalg.inv(em.asarray(np.ones((2, 3)), device=where))
    with pytest.raises(em.linalg.LinAlgError):
        em.linalg.cholesky(em.asarray(np.ones(3), device=where))


def test_info_failed_flag():
    """The C flag read on its own: stacks of every size class, the nonzero
    entry anywhere, bad arguments raising."""
    if not (em.cuda.is_available() and em._ember.cudalib_available(1)):
        pytest.skip("no CUDA device with cuSOLVER")
    f = em._ember.cuda_info_failed
    for n in [1, 2, 1023, 1024, 1025, 10_000]:
        z = np.zeros(n, np.int32)
        assert f(em.asarray(z, device="cuda:0")) is False
        for pos in {0, n // 2, n - 1}:
            z[:] = 0
            z[pos] = 3
            assert f(em.asarray(z, device="cuda:0")) is True
    assert f(em.asarray(np.zeros((0,), np.int32), device="cuda:0")) is False
    with pytest.raises(ValueError):
        f(em.asarray(np.zeros(4, np.int64), device="cuda:0"))
    with pytest.raises(ValueError):
        f(em.asarray(np.zeros(8, np.int32), device="cuda:0")[::2])
    with pytest.raises(ValueError):
        f(em.asarray(np.zeros(4, np.int32), device="cpu"))
