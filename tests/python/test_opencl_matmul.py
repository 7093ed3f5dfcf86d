"""OpenCL's register-blocked float32/float64 matmul (codegen/render_gemm_blocked.c)
against NumPy on the first OpenCL device: sizes around its 128 x 128 (float32)
and 64 x 64 (float64) tiles and its k steps of 16, transposed, reversed,
strided and broadcast operands, batches, other tiles through EMBER_OPENCL_GEMM
(each a kernel of its own), the fallback to the generic kernel for operands it
does not take, and the variable's errors.  test_linalg.py holds the products'
general tests on every device."""
import numpy as np
import pytest

import ember as em

pytestmark = pytest.mark.skipif(not em.opencl.is_available(), reason="no OpenCL device")

CL = "opencl:0"
DTYPES = [np.float32, np.float64]


@pytest.fixture
def cl():
    with em.Device(CL) as d:
        yield d


def same(got, want):
    # Sums of up to 300 products of normals: an absolute bound (BLAS sums in another order).
    assert got.dtype == want.dtype and got.shape == want.shape
    atol = 2e-4 if want.dtype == np.float32 else 1e-11
    np.testing.assert_allclose(got.get(), want, rtol=1e-5, atol=atol)


def rand(rng, shape, dt):
    return rng.standard_normal(shape).astype(dt)


@pytest.mark.parametrize("dt", DTYPES, ids=str)
@pytest.mark.parametrize("m,k,n", [(1, 1, 1), (128, 16, 128), (129, 17, 127), (64, 300, 65),
                                   (257, 33, 3), (2, 5, 260)])
def test_sizes(cl, rng, dt, m, k, n):
    a, b = rand(rng, (m, k), dt), rand(rng, (k, n), dt)
    same(em.asarray(a) @ em.asarray(b), a @ b)


@pytest.mark.parametrize("dt", DTYPES, ids=str)
def test_layouts_and_batches(cl, rng, dt):
    b = rand(rng, (40, 130), dt)
    views = {"transposed": rand(rng, (40, 131), dt).T,
             "reversed": rand(rng, (131, 40), dt)[::-1],
             "both reversed": rand(rng, (131, 40), dt)[::-1, ::-1],
             "strided": rand(rng, (262, 80), dt)[::2, ::2],
             "broadcast": np.broadcast_to(rand(rng, (1, 40), dt), (131, 40))}
    for name, a in views.items():
        ea = em.asarray(np.ascontiguousarray(a))
        if name != "broadcast":  # the same view on the device: no copy
            ea = em.asarray(a.base if a.base is not None else a)
            ea = {"transposed": lambda x: x.T, "reversed": lambda x: x[::-1],
                  "both reversed": lambda x: x[::-1, ::-1],
                  "strided": lambda x: x[::2, ::2]}[name](ea)
        else:
            ea = em.asarray(a[:1])._broadcast_to((131, 40))
        same(ea @ em.asarray(b), a @ b)
        same(em.asarray(b.T.copy()) @ ea.T, b.T @ a.T)
    # Batches, broadcast over the leading dimensions (a stride-0 batch of b).
    a3, b3 = rand(rng, (3, 2, 70, 37), dt), rand(rng, (2, 37, 129), dt)
    same(em.asarray(a3) @ em.asarray(b3), a3 @ b3)


def test_special_values(cl):
    # inf and nan propagate as NumPy's (the zero-filled edges add nothing to them).
    a = np.ones((130, 3), np.float32)
    a[5, 1], a[129, 2] = np.inf, np.nan
    b = np.ones((3, 131), np.float32)
    same(em.asarray(a) @ em.asarray(b), a @ b)


def test_misaligned_view_falls_back(cl, rng):
    # A float32 view 2 bytes into its buffer and one with a 6-byte stride are
    # not element-aligned: the generic kernel (byte strides) runs them.  Only a
    # CPU device loads a float from an odd address: a GPU faults (NVIDIA's OpenCL
    # then fails every later command), and no public route makes such a view on
    # a device (ndarray has no .view(dtype); copies to a device are aligned).
    if em.opencl.device_info(CL)["type"] != "cpu":
        pytest.skip("misaligned element loads: a CPU OpenCL device's only")
    want = rng.standard_normal((6, 10)).astype(np.float32)
    raw = np.frombuffer(b"\0\0" + want.tobytes() + b"\0\0", np.float32)
    a = em.asarray(raw)._view_as((6, 10), (40, 4), 2)
    b = rng.standard_normal((10, 7)).astype(np.float32)
    same(a @ em.asarray(b), want @ b)
    col = rng.standard_normal(7).astype(np.float32)
    packed = np.zeros(22, np.uint16)  # element i at byte 2 + 6 i
    packed[1:21:3] = col.view(np.uint16)[0::2]
    packed[2:21:3] = col.view(np.uint16)[1::2]
    bv = em.asarray(packed.view(np.float32))._view_as((7, 1), (6, 4), 2)
    same(em.asarray(want[:, :7].copy()) @ bv, want[:, :7] @ col[:, None])


@pytest.mark.parametrize("tile", ["4x4x16", "8x4x8", "4x8x16", "generic"])
def test_other_tiles(cl, rng, monkeypatch, tile):
    # The variable is read at each product; each tile is a kernel of its own.
    monkeypatch.setenv("EMBER_OPENCL_GEMM", tile)
    for dt in DTYPES:
        a, b = rand(rng, (2, 131, 45), dt), rand(rng, (45, 67), dt)
        same(em.asarray(a) @ em.asarray(b), a @ b)


@pytest.mark.parametrize("bad", ["8x8", "3x4x16", "16x16x16", "8x8x2", "8x8x16x", "fast"])
def test_bad_tile_is_refused(cl, monkeypatch, bad):
    monkeypatch.setenv("EMBER_OPENCL_GEMM", bad)
    a = em.ones((4, 4), dtype=np.float32)
    with pytest.raises(ValueError, match="EMBER_OPENCL_GEMM"):
        a @ a
    # Other dtypes take the generic kernel, which the variable does not concern.
    i = em.ones((4, 4), dtype=np.int32)
    assert (i @ i).get().tolist() == [[4] * 4] * 4


def test_tuning_script_smoke():
    # bench/tune_opencl_gemm.py (the integrator's A/B on a GPU) runs and checks itself here.
    import os
    import subprocess
    import sys
    root = os.path.join(os.path.dirname(__file__), "..", "..")
    env = dict(os.environ, PYTHONPATH=os.path.join(root, "python"))
    r = subprocess.run([sys.executable, os.path.join(root, "bench", "tune_opencl_gemm.py"),
                        "--opencl", CL, "--n", "64", "--tiles", "8x8x16,generic,3x3x3"],
                       capture_output=True, text=True, timeout=300, env=env)
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    assert sum(" 8x8x16 " in s and "GFLOP/s" in s for s in lines) == 2  # float32, float64
    assert sum("3x3x3" in s and "ValueError" in s for s in lines) == 2
    errs = [float(s.rsplit("error ", 1)[1]) for s in lines if "error " in s]
    assert len(errs) == 8 and max(errs) < 1e-5
