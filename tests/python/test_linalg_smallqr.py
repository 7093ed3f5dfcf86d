"""qr of small matrices in one kernel (include/ember/smallla.h,
src/codegen/render_smallqr.c) on every device that compiles kernels
(EMBER_TEST_DEVICES=cpu,opencl:0 runs them on PoCL here; cuda:0 on a GPU),
against NumPy: Q and R as NumPy's LAPACK gives them (the kernel follows
geqr2 / larfg and org2r, so the signs are the same), Q R == A, Q
orthonormal, R upper triangular, all four modes, every dtype, tall and
wide, stacks, non-contiguous and reversed views, m or n of 1, NaN.  A spy on
_ember.small_qr makes each test fail if the kernel did not run.

OpenCL builds one kernel a dtype (PoCL's builds are CI's time), so the
shapes below cost no builds there; the dtype grid is kept to one test."""
import numpy as np
import pytest

import ember as em
from helpers import device_names, linalg_path, spy_calls

DTYPES = [np.float32, np.float64, np.complex64, np.complex128]
DEVICES = [d for d in device_names() if d.split(":")[0] in ("cuda", "opencl")]
MODES = ["reduced", "complete", "r", "raw"]

pytestmark = pytest.mark.skipif(not DEVICES, reason="no CUDA or OpenCL device")


@pytest.fixture(params=DEVICES or ["none"])
def dev(request, monkeypatch):
    linalg_path(monkeypatch, "kernel")
    return request.param


@pytest.fixture
def calls(monkeypatch):
    """The modes the kernel ran for (a result, not None)."""
    return spy_calls(monkeypatch, "small_qr", lambda a, r: a[0] if r is not None else None)


def _mat(rng, shape, dt):
    x = rng.standard_normal(shape)
    if np.dtype(dt).kind == "c":
        x = x + 1j * rng.standard_normal(shape)
    m, n = shape[-2:]
    # a well-conditioned matrix, so that Q is compared elementwise at dt's precision
    return (x + 2 * max(m, n) ** 0.5 * np.eye(m, n)).astype(dt)


def _tol(dt):
    return 1e-3 if np.dtype(dt) in (np.float32, np.complex64) else 1e-10


def _np(x):
    assert isinstance(x, em.ndarray)
    return np.asarray(x.to_device("cpu"))


def _close(got, want, dt):
    g = _np(got)
    assert g.dtype == want.dtype and g.shape == want.shape
    np.testing.assert_allclose(g, want, rtol=_tol(dt), atol=_tol(dt))


def _check_all(ea, a, dt):
    """Every mode against NumPy's, and Q R == A, Q^H Q == I, R triangular."""
    for mode in MODES:
        got, want = em.linalg.qr(ea, mode=mode), np.linalg.qr(a, mode=mode)
        if mode == "r":
            _close(got, want, dt)
            continue
        assert len(got) == 2
        _close(got[0], want[0], dt)
        _close(got[1], want[1], dt)
        if mode == "raw":
            continue
        q, r = _np(got[0]), _np(got[1])
        np.testing.assert_allclose(q @ r, a, rtol=_tol(dt), atol=_tol(dt) * 10)
        qh = np.conj(np.swapaxes(q, -1, -2))
        np.testing.assert_allclose(qh @ q, np.broadcast_to(np.eye(q.shape[-1]), qh.shape[:-2]
                                                           + (q.shape[-1],) * 2),
                                   atol=_tol(dt) * 10)
        assert np.all(np.tril(r, -1) == 0)


@pytest.mark.parametrize("dt", DTYPES)
def test_dtypes(dev, calls, rng, dt):
    """Each dtype, one tall stack: every mode."""
    a = _mat(rng, (3, 9, 6), dt)
    _check_all(em.asarray(a, device=dev), a, dt)
    assert calls == [0, 1, 2, 3]


@pytest.mark.parametrize("shape", [(1, 1), (1, 5), (5, 1), (8, 8), (7, 3), (3, 7), (16, 9),
                                   (17, 17), (32, 32), (32, 5), (2, 32), (4, 2, 8, 8)])
def test_shapes(dev, calls, rng, shape):
    """Each size class and its edges, tall and wide, m or n of 1, a 2-d stack."""
    dt = np.float64
    a = _mat(rng, shape, dt)
    _check_all(em.asarray(a, device=dev), a, dt)
    assert calls == [0, 1, 2, 3]


def test_complex_shapes(dev, calls, rng):
    """Complex: the reflectors' conj(tau) and the real diagonal (larfg makes
    even a 1 x 1 complex pivot real) on a wide and a tall matrix."""
    for shape in [(1, 1), (4, 7), (32, 3)]:
        a = _mat(rng, shape, np.complex128)
        _check_all(em.asarray(a, device=dev), a, np.complex128)


def test_layouts_and_integers(dev, calls, rng):
    """Transposed, reversed and strided views (a C-order copy is made) and
    integer input (float64, as NumPy)."""
    a = _mat(rng, (2, 10, 12), np.float64)
    ea = em.asarray(a, device=dev)
    for view, want in [(ea.mT, a.swapaxes(-1, -2)), (ea[:, ::-1, ::2], a[:, ::-1, ::2]),
                       (ea[::-1, 1:9, 3:], a[::-1, 1:9, 3:])]:
        q, r = em.linalg.qr(view)
        wq, wr = np.linalg.qr(want)
        _close(q, wq, np.float64)
        _close(r, wr, np.float64)
    i = rng.integers(-5, 6, (4, 6, 6)) + 20 * np.eye(6, dtype=np.int64)
    q, r = em.linalg.qr(em.asarray(i, device=dev))
    wq, wr = np.linalg.qr(i)
    _close(q, wq, np.float64)
    _close(r, wr, np.float64)
    assert calls == [0, 0, 0, 0]


def test_degenerate_columns_and_nan(dev, calls, rng):
    """A zero column and a column already triangular (tau = 0: H = I, the
    diagonal kept with its sign), a rank-deficient last column, and NaN: NaN where
    NumPy's LAPACK has it, the other matrices of the stack untouched."""
    a = _mat(rng, (4, 6, 5), np.float64)
    a[0, :, 2] = 0
    a[1, 1:, 0] = 0
    a[1, 0, 0] = -3.0
    a[2, :, 4] = a[2, :, 1]  # rank 4: only the last diagonal is ~0 (earlier, the later ones
    # would come from rounding noise and differ from NumPy's)
    a[3, 2, 2] = np.nan
    q, r = (_np(x) for x in em.linalg.qr(em.asarray(a, device=dev)))
    wq, wr = np.linalg.qr(a)
    for i in range(3):
        np.testing.assert_allclose(q[i] @ r[i], a[i], atol=1e-10)
        np.testing.assert_allclose(np.abs(np.diag(r[i])), np.abs(np.diag(wr[i])), atol=1e-10)
    np.testing.assert_allclose(q[:2], wq[:2], atol=1e-10)
    assert r[1, 0, 0] == wr[1, 0, 0] == -3.0
    assert np.isnan(r[3]).any() and np.isnan(q[3]).any()
    assert np.array_equal(np.isnan(r[3]), np.isnan(wr[3]))
    assert calls == [0]


@pytest.mark.filterwarnings("ignore:.*ran on the host")
def test_not_taken(dev, calls, rng):
    """Past 32, empty, float16 and bad modes: the other paths, NumPy's
    results and errors."""
    a = rng.standard_normal((33, 4))
    q, r = em.linalg.qr(em.asarray(a, device=dev))
    _close(r, np.linalg.qr(a)[1], np.float64)
    e = np.zeros((3, 0, 4))
    got = em.linalg.qr(em.asarray(e, device=dev), mode="complete")
    want = np.linalg.qr(e, mode="complete")
    assert _np(got[0]).shape == want[0].shape and _np(got[1]).shape == want[1].shape
    with pytest.raises(ValueError):
        em.linalg.qr(em.asarray(np.eye(3), device=dev), mode="full")
    with pytest.raises(np.linalg.LinAlgError):
        em.linalg.qr(em.asarray(np.ones(3), device=dev))
    assert calls == []
    assert em._ember.small_qr(0, em.asarray(np.ones((2, 40, 3)), device=dev)) is None
    with pytest.raises(ValueError):
        em._ember.small_qr(7, em.asarray(np.ones((3, 3)), device=dev))


def test_qr_policy(monkeypatch):
    """Where qr takes the kernel: CUDA every m, n <= 32 (one matrix or a
    stack), an OpenCL GPU the same, a CPU OpenCL device (PoCL) never unless
    the _SMALL_ALL hook says so, nothing past 32 or empty."""
    import ember._cusolver as cs

    class Fake:
        def __init__(self, shape, kind="cuda", i=0):
            self.shape, self.ndim, self.dtype = shape, len(shape), np.dtype(np.float64)
            self.size, self._dev = int(np.prod(shape)), (kind, i)
    monkeypatch.setattr(cs, "_SMALL", True)
    monkeypatch.setattr(cs, "_SMALL_ALL", False)
    monkeypatch.setattr(cs, "_opencl_gpu", lambda i: i == 1)
    s = cs._small_qr
    assert s(Fake((10_000, 8, 8))) and s(Fake((32, 32))) and s(Fake((5, 32, 1)))
    assert not s(Fake((33, 4))) and not s(Fake((4, 33))) and not s(Fake((0, 8, 8)))
    assert s(Fake((8, 8), "opencl", 1)) and not s(Fake((8, 8), "opencl", 0))
    monkeypatch.setattr(cs, "_SMALL_ALL", True)
    assert s(Fake((8, 8), "opencl", 0))
    monkeypatch.setattr(cs, "_SMALL", False)
    assert not s(Fake((8, 8)))


# ---- the CUDA kernels under the fake driver (NVRTC compiles them for real) ---

FAKE_QR = """
import struct
out = []
# two kernels (NVRTC's builds take seconds each on CI's machine, twice with
# ASan): complex128 at 32 (shared memory leaves one matrix a block) and
# float64 at 8 (eight a block, a stack that does not fill the last block)
cases = [(np.complex128, 32, 32, (9,)), (np.complex128, 5, 32, ()), (np.float64, 8, 3, (10,))]
for dt, m, n, batch in cases:
    for mode in range(4):
        a = em.asarray(np.zeros(batch + (m, n), dt), device="cuda:0")
        r = em._ember.small_qr(mode, a)
        assert r is not None and (r[0] is None) == (mode == 2), (m, n, dt, mode)
        c = cfg()
        f = struct.unpack("<4Q4q", params(64))
        out.append(("qr", m, n, np.dtype(dt).itemsize, c[0], c[3], *f[4:]))
for row in out:
    print(*row)
"""


def test_cuda_qr_compiles_and_launches_under_the_fake_driver(fake_lib, tmp_path):
    """The CUDA qr kernel (complex128 at 32, float64 at 8) builds with NVRTC
    and launches a thread a column, as many matrices a block as its shared memory
    takes (64 threads at most), with m, n, batch and mode in its argument."""
    import os
    import subprocess
    import sys
    from helpers import FAKE_PROLOGUE, nvrtc_available
    if not nvrtc_available():
        pytest.skip("NVRTC is not here")
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path), EMBER_LIBCUDA=fake_lib,
               FAKE_LIB=fake_lib, EMBER_CACHE_DIR=str(tmp_path))
    env.pop("EMBER_DEVICE", None)
    r = subprocess.run([sys.executable, "-c", FAKE_PROLOGUE + FAKE_QR], capture_output=True,
                       text=True, env=env, timeout=600)
    assert r.returncode == 0, r.stderr[-3000:]
    rows = [line.split() for line in r.stdout.strip().splitlines()]
    assert len(rows) == 3 * 4
    for i, (what, m, n, isz, grid, block, fm, fn, fbatch, fmode) in enumerate(rows):
        m, n, isz, grid, block = int(m), int(n), int(isz), int(grid), int(block)
        cap = max(8, 1 << (max(m, n) - 1).bit_length())
        per = 64 // cap
        while per > 1 and per * (2 * cap * cap + cap) * isz > 44 * 1024:
            per //= 2
        assert block == per * cap and grid == -(-int(fbatch) // per), (m, n, isz)
        assert (int(fm), int(fn), int(fmode)) == (m, n, i % 4)
    assert [r_[5] for r_ in rows[::4]] == ["32", "32", "64"]  # complex128 32: one a block
