"""The OpenCL runtime on the first OpenCL device (PoCL's CPU device in CI):
enumeration, properties, copies, the buffer pool, elementwise kernels with
fusion, raw programs the PyOpenCL way, and the clear errors for what does
not run there yet.  Kernels are few and small: each one costs PoCL about a
second to build the first time (later runs read Ember's disk cache)."""
import os
import subprocess
import sys

import numpy as np
import pytest

import ember as em
from ember import _ember as _e

pytestmark = pytest.mark.skipif(not em.opencl.is_available(), reason="no OpenCL device")

CL = "opencl:0"


@pytest.fixture
def cl():
    with em.Device(CL) as d:
        yield d


def _run(code, **env):
    """code in a fresh interpreter (environment switches read at load)."""
    e = dict(os.environ, **env)
    r = subprocess.run([sys.executable, "-c", code], env=e, capture_output=True, text=True,
                       timeout=300)
    assert r.returncode == 0, r.stderr
    return r.stdout


# ---- devices ------------------------------------------------------------------

def test_platform_filter_keeps_the_named_platform():
    plat = em.opencl.device_info(CL)["platform"]
    code = ("import ember as em; print(em.opencl.device_count(), "
            "em.opencl.device_info('opencl:0')['platform'])")
    n = sum(em.opencl.device_info(f"opencl:{i}")["platform"] == plat
            for i in range(em.opencl.device_count()))
    # a part of the name in another case selects it
    out = _run(code, EMBER_OPENCL_PLATFORM=plat[1:-1].swapcase()).split(" ", 1)
    assert int(out[0]) == n and out[1].strip() == plat


def test_platform_filter_that_matches_nothing_names_the_platforms():
    plat = em.opencl.device_info(CL)["platform"]
    code = ("import ember as em\nassert not em.opencl.is_available()\n"
            "try:\n    em.asarray([1.0], device='opencl:0')\n"
            "except em.DeviceError as e:\n    print(e)")
    out = _run(code, EMBER_OPENCL_PLATFORM="no such platform")
    assert "EMBER_OPENCL_PLATFORM" in out and plat in out and "no such platform" in out

def test_enumeration():
    n = em.opencl.device_count()
    assert n >= 1 and _e.device_count("opencl") == n
    devs = em.opencl.devices()
    assert [str(d) for d in devs] == [f"opencl:{i}" for i in range(n)]
    assert all(d in em.devices() for d in devs)
    plats = em.opencl.platforms()
    assert sum(len(p.devices) for p in plats) == n and all(p.name for p in plats)
    with pytest.raises(em.DeviceError, match=f"no device opencl:{n} \\({n} opencl device"):
        em.Device(f"opencl:{n}")


def test_props():
    info = em.opencl.device_info(CL)
    d = em.Device(CL)
    assert d.kind == "opencl" and d.id == 0 and d.name == info["name"] != ""
    assert info["type"] in ("gpu", "cpu", "accelerator")
    assert info["compute_units"] == d.multiprocessor_count >= 1
    assert info["max_work_group_size"] == d.max_threads_per_block >= 1
    assert info["local_memory"] == d.shared_memory_per_block > 0
    assert info["total_memory"] == d.total_memory >= info["max_alloc"] > 0
    assert isinstance(info["fp64"], bool) and isinstance(info["fp16"], bool)
    assert info["vendor"] and info["driver_version"] and info["version"].startswith("OpenCL")
    free, total = d.mem_info()
    assert total == info["total_memory"] and 0 <= free <= total


def test_env_device():
    out = _run("import ember as em; print(em.get_device())", EMBER_DEVICE=CL)
    assert out.strip() == CL


# ---- copies -----------------------------------------------------------------------

@pytest.mark.parametrize("dt", ["bool", "int8", "uint16", "int32", "int64", "float16", "float32",
                                "float64", "complex64", "complex128"])
@pytest.mark.parametrize("shape", [(), (0,), (7,), (3, 4, 5)])
def test_roundtrip(cl, dt, shape):
    if dt in ("float64", "complex128") and not em.opencl.device_info()["fp64"]:
        pytest.skip("no fp64")
    rng = np.random.default_rng(1)
    x = (rng.random(shape) * 100).astype(dt)
    a = em.asarray(x)
    assert str(a.device) == CL and a.dtype == x.dtype and a.shape == x.shape
    np.testing.assert_array_equal(a.get(), x)
    np.testing.assert_array_equal(em.asnumpy(a), x)


def test_copies_between_devices(cl):
    x = np.arange(24, dtype=np.int32).reshape(4, 6)
    a = em.asarray(x)
    h = em.asarray(a, device="cpu")
    assert str(h.device) == "cpu"
    np.testing.assert_array_equal(h.get(), x)
    b = em.asarray(h, device=CL)
    np.testing.assert_array_equal(b.get(), x)
    c = a.copy()  # a device-to-device copy into a new buffer
    a[...] = 0
    np.testing.assert_array_equal(c.get(), x)
    np.testing.assert_array_equal(a.get(), 0)


def test_views_and_noncontiguous(cl):
    x = np.arange(60, dtype=np.float32).reshape(3, 4, 5)
    a = em.asarray(x)
    for v, w in [(a[1], x[1]), (a[:, ::-2], x[:, ::-2]), (a.T, x.T), (a[..., 3], x[..., 3])]:
        np.testing.assert_array_equal(v.get(), w)
    # a non-contiguous NumPy source
    np.testing.assert_array_equal(em.asarray(x[::-1, :, 1::2]).get(), x[::-1, :, 1::2])


@pytest.mark.parametrize("dt,v", [("int8", -3), ("int16", 300), ("float32", 1.5), ("bool", True),
                                  ("int64", 2**40 + 3)])
def test_fill(cl, dt, v):
    a = em.full((5, 3), v, dtype=dt)
    np.testing.assert_array_equal(a.get(), np.full((5, 3), v, dtype=dt))
    z = em.zeros(9, dtype=dt)
    np.testing.assert_array_equal(z.get(), np.zeros(9, dtype=dt))
    b = em.ones((4, 4), dtype=dt)
    b[1:3, ::2] = v  # a fill into a strided view
    want = np.ones((4, 4), dtype=dt)
    want[1:3, ::2] = v
    np.testing.assert_array_equal(b.get(), want)


# ---- the pool ---------------------------------------------------------------------

def test_pool_reuse(cl):
    em.opencl.pool_free_all()
    a = em.empty(1 << 20, dtype=np.uint8)
    used, held = em.opencl.pool_stats()
    assert used >= 1 << 20 and held >= used
    del a
    used2, held2 = em.opencl.pool_stats()
    assert used2 == used - (1 << 20) and held2 == held  # cached, not freed
    b = em.empty(1 << 20, dtype=np.uint8)
    assert em.opencl.pool_stats()[1] == held  # the cached buffer came back
    del b
    em.opencl.pool_free_all()
    assert em.opencl.pool_stats()[1] == em.opencl.pool_stats()[0]


def test_pool_oom_with_limit(cl):
    em.opencl.pool_free_all()
    em.opencl.pool_set_limit(4 << 20)
    try:
        a = em.empty(3 << 20, dtype=np.uint8)
        with pytest.raises(em.OutOfMemoryError, match=r"allocating 2097152 bytes on opencl:0: "
                           r"the pool limit is 4194304 bytes"):
            em.empty(2 << 20, dtype=np.uint8)
        del a
        b = em.empty(3 << 20, dtype=np.uint8)  # fits again once freed
        del b
        c = em.empty(1 << 20, dtype=np.uint8)  # the cached 3 MiB block is dropped to fit
        del c
    finally:
        em.opencl.pool_set_limit(0)
    big = em.opencl.device_info()["max_alloc"] + 4096
    with pytest.raises(em.OutOfMemoryError, match="largest buffer"):
        em.empty(big, dtype=np.uint8)


# ---- elementwise ------------------------------------------------------------------

@pytest.mark.parametrize("dt", ["int32", "float32", "float64", "complex64"])
def test_elementwise_fused(cl, dt):
    if dt == "float64" and not em.opencl.device_info()["fp64"]:
        pytest.skip("no fp64")
    rng = np.random.default_rng(2)
    x = (rng.random((6, 7)) * 10).astype(dt)
    y = (rng.random(7) * 10 + 1).astype(dt)
    a, b = em.asarray(x), em.asarray(y)
    ar = a[::-1]  # (a view taken mid-chain would evaluate the chain so far first)
    before = _e._kernel_stats()["evals"]
    r = (a * 2 + b) - ar  # broadcast, negative strides, a host scalar
    assert _e._is_pending(r)
    got = r.get()
    assert _e._kernel_stats()["evals"] == before + 1  # one kernel for the chain
    np.testing.assert_allclose(got, (x * 2 + y) - x[::-1], rtol=1e-6)


@pytest.mark.parametrize("dt,ot", [("float32", "float32"), ("int8", "int8"),
                                   ("uint16", "bool"), ("int64", "float64"),
                                   ("float16", "float16"), ("complex64", "complex64")])
def test_contiguous_wide_loop(cl, dt, ot):
    """Contiguous elementwise kernels take 16 bytes of the widest operand per
    work-item and step (float4, char16, ...: render.c's OpenCL wide loop)
    where every operand is 16-byte aligned, and one element at a time for
    the rest (an odd length's tail, a view one element in) or where the
    types have no OpenCL vectors (float16, complex): each as NumPy's."""
    if "64" in dt + ot and "complex" not in dt and not em.opencl.device_info()["fp64"]:
        pytest.skip("no fp64")
    rng = np.random.default_rng(6)
    n = 16 * 40 + 13
    x = (rng.standard_normal(n) * 20).astype(dt)
    y = (rng.standard_normal(n) * 20).astype(dt)
    a, b = em.asarray(x), em.asarray(y)
    if ot == "bool":
        f = (lambda u, v: u > v)
    elif ot == "float64":
        f = (lambda u, v: u * 0.5 - v)
    else:
        f = (lambda u, v: u + v)
    for sl in (slice(None), slice(1, None), slice(3, n - 2)):
        got, want = f(a[sl], b[sl]).get(), f(x[sl], y[sl])
        assert got.dtype == want.dtype == np.dtype(ot)
        np.testing.assert_array_equal(got, want)
    x8 = np.real(x).astype(np.int8)
    w = em.asarray(x8) + a  # mixed widths: int8 read 4 (or 2, 16) at a time
    np.testing.assert_array_equal(w.get(), x8 + x)


def test_ops_and_casts(cl):
    x = np.linspace(-3, 3, 25, dtype=np.float32).reshape(5, 5)
    a = em.asarray(x)
    np.testing.assert_allclose(em.sqrt(em.abs(a)).get(), np.sqrt(np.abs(x)), rtol=1e-6)
    np.testing.assert_array_equal((a > 0).get(), x > 0)
    np.testing.assert_array_equal(em.where(a > 0, a, 0).get(), np.where(x > 0, x, 0))
    np.testing.assert_array_equal(a.astype(np.int16).get(), x.astype(np.int16))
    np.testing.assert_array_equal(a.astype(np.float16).get(), x.astype(np.float16))
    i = em.arange(10, dtype=np.int64)
    np.testing.assert_array_equal((i // 3 - i % 4).get(), np.arange(10) // 3 - np.arange(10) % 4)


def test_reduce_scan_gather_templates_run(cl):
    """The reduction, scan and gather templates render OpenCL C (one text
    with CUDA's) and run on the device: results as NumPy's."""
    h = np.arange(10, dtype=np.float32)
    a = em.asarray(h)
    np.testing.assert_allclose(em.sum(a).get(), h.sum())
    np.testing.assert_allclose(em.cumsum(a).get(), np.cumsum(h))
    np.testing.assert_array_equal(a[em.asarray(np.array([1, 3]))].get(), h[[1, 3]])
    np.testing.assert_array_equal((a + 1).get(), h + 1)


@pytest.mark.parametrize("dt", ["float32", "int32", "float64"])
def test_column_reductions(cl, dt):
    """Reductions over leading axes with the kept dims contiguous run in the
    column form (codegen/render_reduce.c: 32 outputs a block, rows split in
    chunks and combined by a second pass): as NumPy's, for each op, with a
    fused producer, a strided view and a 3-d array."""
    rng = np.random.default_rng(3)
    h = (rng.standard_normal((600, 70)) * 10).astype(dt)
    a = em.asarray(h)
    tol = dict(rtol=1e-4, atol=1e-3) if dt == "float32" else dict(rtol=1e-12, atol=1e-9)
    for f in ("sum", "mean", "max", "min", "argmin", "argmax", "var"):
        np.testing.assert_allclose(getattr(em, f)(a, axis=0).get(), getattr(np, f)(h, axis=0),
                                   **tol, err_msg=f)
    np.testing.assert_allclose(em.sum(a * 2 - 1, axis=0).get(), (h * 2 - 1).sum(0), **tol)
    np.testing.assert_allclose(em.mean(a[::-3, ::2], axis=0).get(), h[::-3, ::2].mean(0), **tol)
    h3 = h.reshape(20, 30, 70)
    np.testing.assert_allclose(em.sum(em.asarray(h3), axis=(0, 1)).get(), h3.sum((0, 1)), **tol)
    np.testing.assert_allclose(em.max(em.asarray(h3), axis=0).get(), h3.max(0), **tol)


def _unfused(fn, *args):
    """fn(*args) with fusion off: the producer evaluated, then reduced."""
    old = _e._fusion_config(enabled=False)
    try:
        return fn(*args)
    finally:
        _e._fusion_config(**old)


def test_seed004_is_one_fused_kernel(cl):
    """Seed 004's sqrt(sum(x**2, axis=-1)): the square runs inside the
    reduction kernel (fuse_reduce.c, as on CUDA), in warp units of 32 lanes
    (330 rows of 300), and the sqrt of the result is one more kernel; equal
    bit for bit to square, then reduce, and to NumPy within float32's
    rounding."""
    old = _e._fusion_config(enabled=True, min_size=0)
    try:
        h = np.random.default_rng(4).random((33, 10, 300), dtype=np.float32)
        x = em.asarray(h)
        cl.synchronize()
        n0 = em.opencl._launch_count()
        s = em.sum(x**2, axis=-1)
        cl.synchronize()
        assert em.opencl._launch_count() - n0 == 1  # square and sum: one kernel
        r = em.sqrt(s)
        got = r.get()
        assert em.opencl._launch_count() - n0 == 2
        want = _unfused(lambda v: em.sqrt(em.sum(v**2, axis=-1)), x)
        assert got.tobytes() == want.get().tobytes()
        np.testing.assert_allclose(got, np.sqrt((h.astype(np.float64)**2).sum(-1)), rtol=1e-5)
    finally:
        _e._fusion_config(**old)


@pytest.mark.parametrize("op,dt", [("sum", "float32"), ("max", "int32"), ("argmin", "float32"),
                                   ("any", "bool"), ("prod", "complex64")])
def test_warp_unit_reductions(cl, op, dt):
    """Many short rows reduce in warp units (8 rows of 32 lanes a work-group,
    met in local memory): 1003 rows (not a multiple of 8: the last group's
    lanes past the end carry the identity) of 37 and, through a reversed
    strided view, of 19; plain and with a fused producer, as NumPy's."""
    rng = np.random.default_rng(5)
    h = (rng.standard_normal((1003, 37)) * 3).astype(dt) if dt != "complex64" else \
        (rng.standard_normal((1003, 37)) + 1j * rng.standard_normal((1003, 37))).astype(dt) / 2
    if dt == "bool":
        h = rng.random((1003, 37)) < 0.02
    a = em.asarray(h)
    f, nf = getattr(em, op), getattr(np, op)
    tol = dict(rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(f(a, axis=1).get(), nf(h, axis=1), **tol)
    np.testing.assert_allclose(f(a[::-1, ::2], axis=1).get(), nf(h[::-1, ::2], axis=1), **tol)
    old = _e._fusion_config(enabled=True, min_size=0)
    try:
        g = (lambda v: v ^ v[:1]) if dt == "bool" else (lambda v: v * v[:1])
        got = f(g(a), axis=1)
        assert got.get().tobytes() == _unfused(lambda v: f(g(v), axis=1), a).get().tobytes()
        np.testing.assert_allclose(got.get(), nf(g(h), axis=1), **tol)
    finally:
        _e._fusion_config(**old)


def test_mask_select_cumsum_and_normals(cl):
    """x[mask] in one compaction (em_mask_select), cumsum over several tiles
    (reduce-then-scan), and standard_normal filled a Philox block at a time
    with vector stores: as NumPy's / the CPU's stream."""
    rng = np.random.default_rng(4)
    for dt, shape in (("float32", (5000,)), ("int8", (9, 31)), ("complex128", (3, 4, 5))):
        h = (rng.standard_normal(shape) * 3).astype(dt)
        m = rng.random(shape) < 0.4
        np.testing.assert_array_equal(em.asarray(h)[em.asarray(m)].get(), h[m])
        np.testing.assert_array_equal(em.asarray(h).T[em.asarray(m).T].get(), h.T[m.T])
    for n in (1, 2049, 20000):
        i = rng.integers(-9, 9, n).astype(np.int32)
        np.testing.assert_array_equal(em.cumsum(em.asarray(i)).get(), np.cumsum(i))
        f = rng.standard_normal(n).astype(np.float32)
        np.testing.assert_allclose(em.cumsum(em.asarray(f)).get(), np.cumsum(f), rtol=1e-4,
                                   atol=1e-3)
    for dt in ("float32", "float64"):
        for n in (7, 1001):  # a partial last block, and an odd one
            d = em.random.default_rng(5).standard_normal(n, dt).get()
            c = em.random.default_rng(5).standard_normal(n, dt, device="cpu").get()
            np.testing.assert_allclose(d, c, rtol=1e-5 if dt == "float32" else 1e-12, atol=1e-6)


def test_fp64_refused_without_the_extension():
    out = _run("import ember as em, numpy as np\n"
               "print(em.opencl.device_info()['fp64'])\n"
               "a = em.ones(3, dtype=np.float32, device='opencl:0')\n"
               "print((a * 2).get().tolist())\n"
               "for dt in ('float64', 'complex128'):\n"
               "    try:\n"
               "        em.zeros(3, dtype=dt, device='opencl:0')\n"
               "    except TypeError as e:\n"
               "        print(e)\n", EMBER_OPENCL_NO_FP64="1")
    lines = out.splitlines()
    assert lines[0] == "False" and lines[1] == "[2.0, 2.0, 2.0]"
    assert "float64 is not supported on opencl:0 (" in lines[2] and "cl_khr_fp64" in lines[2]
    assert "complex128 is not supported on opencl:0" in lines[3]


def test_kernels_build_without_fp64():
    # EMBER_OPENCL_NO_FP64 also renders every kernel as for a device without
    # the extension: cl_khr_fp64 undefined (the prelude leaves its double
    # parts out) and `double` defined away, so any double left in a kernel
    # fails to build on PoCL as on such a device.  Float parameters (var's
    # ddof) pass in float there.
    out = _run("""
import ember as em, numpy as np
d = 'opencl:0'
with em.Device(d):
    h = np.linspace(-3, 5, 37, dtype=np.float32)
    a = em.asarray(h)
    r = np.random.default_rng(0)
    checks = [
        ((em.sin(a) * 2 + 1).get(), np.sin(h) * 2 + 1),
        (em.sum(a).get(), h.sum()), (em.mean(a).get(), h.mean()),
        (em.var(a, ddof=1.5).get(), h.var(ddof=1.5)), (em.std(a).get(), h.std()),
        (em.argmax(a).get(), h.argmax()), (em.cumsum(a).get(), np.cumsum(h)),
        (em.sort(a[::-1]).get(), np.sort(h)),
        (a[em.asarray(np.array([3, 1]))].get(), h[[3, 1]]),
        ((a.astype(np.float16) + 1).get(), h.astype(np.float16) + 1),
    ]
    c = (h + 1j * h[::-1]).astype(np.complex64)
    ec = em.asarray(c)
    checks += [((ec * ec).get(), c * c), (em.abs(ec).get(), np.abs(c)),
               (em.sum(ec).get(), c.sum())]
    m, n = r.standard_normal((5, 19)).astype(np.float32), r.standard_normal((19, 3))
    n = n.astype(np.float32)
    checks += [((em.asarray(m) @ em.asarray(n)).get(), m @ n)]
    for got, want in checks:
        assert got.dtype == want.dtype, (got.dtype, want.dtype)
        np.testing.assert_allclose(got, want, rtol=2e-5, atol=2e-5)
    u = em.random.default_rng(1).random(1000, dtype=np.float32).get()
    assert u.dtype == np.float32 and 0 <= u.min() and u.max() < 1
    z = em.random.default_rng(1).standard_normal(1000, dtype=np.float32).get()
    assert abs(z.mean()) < 0.2 and 0.8 < z.std() < 1.2
print('ok')
""", EMBER_OPENCL_NO_FP64="1")
    assert out.strip().endswith("ok")


# ---- expression kernels ------------------------------------------------------------

def test_elementwise_kernel_views_at_offsets(cl):
    # Operands that are views into their buffers (offset, reversed, strided)
    # pass as buffer and byte offset; bool and float16 through their storage.
    k = em.ElementwiseKernel("T x, T y, bool m", "T z", "z = m ? x - y : x + y", "sel")
    h = np.arange(40, dtype=np.int32).reshape(5, 8)
    mask = (h % 3 == 0)[1:, ::-2]
    got = k(em.asarray(h)[1:, ::-2], em.asarray(h)[:-1, 1::2], em.asarray(h % 3 == 0)[1:, ::-2])
    want = np.where(mask, h[1:, ::-2] - h[:-1, 1::2], h[1:, ::-2] + h[:-1, 1::2])
    np.testing.assert_array_equal(got.get(), want)
    out = em.zeros((4, 4), dtype=np.int32)
    k(em.asarray(h)[1:, ::-2], em.asarray(h)[:-1, 1::2], em.asarray(h % 3 == 0)[1:, ::-2],
      out[:, :])
    np.testing.assert_array_equal(out.get(), want)
    # a scalar whose placeholder type binds to bool is passed as its byte too
    # (OpenCL forbids bool kernel parameters: `T s` with T bool did not build)
    band = em.ElementwiseKernel("T x, T s", "T y", "y = x && s", "band_t")
    xb = em.asarray(np.array([True, False, True]))
    np.testing.assert_array_equal(band(xb, True).get(), [True, False, True])
    np.testing.assert_array_equal(band(xb, False).get(), [False, False, False])
    b = em.ElementwiseKernel("bool x", "bool y", "y = x + x", "bdouble")  # bool stays 0/1
    np.testing.assert_array_equal(b(em.asarray(np.array([True, False]))).get().view(np.uint8),
                                  [1, 0])


def test_reduction_kernel_views_bool_scalars_and_splits(cl):
    # ReductionKernel in OpenCL C: operands at byte offsets into their buffers,
    # a bool scalar (passed as its byte), a bool output (stored as uchar), a
    # float16 input, and each kind of launch: a work-group per output, a
    # work-item per output (short rows), partials then a pass over them.
    k = em.ReductionKernel("T x, bool neg", "T y", "neg ? -x : x", "a + b", "y = a", "0", "sgn")
    h = np.arange(60, dtype=np.int32).reshape(6, 10)
    v = em.asarray(h)[1:, ::-3]
    np.testing.assert_array_equal(k(v, True, axis=1).get(), -h[1:, ::-3].sum(axis=1))
    np.testing.assert_array_equal(k(v, False, axis=0, keepdims=True).get(),
                                  h[1:, ::-3].sum(axis=0, keepdims=True))
    anyk = em.ReductionKernel("T x", "bool y", "x != 0", "a || b", "y = a", "false", "any_k")
    got = anyk(em.asarray(h % 7 == 0), axis=1)
    assert got.dtype == np.bool_
    np.testing.assert_array_equal(got.get(), (h % 7 == 0).any(axis=1))
    rows = np.arange(3000 * 4, dtype=np.int64).reshape(3000, 4) % 11
    np.testing.assert_array_equal(k(em.asarray(rows), False, axis=1).get(), rows.sum(axis=1))
    big = np.arange(100000, dtype=np.int64) % 13
    assert k(em.asarray(big), False).get() == big.sum()
    f16 = em.ReductionKernel("T x", "float32 y", "x", "a + b", "y = a", "0", "h_sum")
    hx = (np.arange(50) / 8).astype(np.float16)
    assert f16(em.asarray(hx)).get() == hx.astype(np.float32).sum()


def test_expression_kernels_refuse_what_opencl_lacks(cl):
    with pytest.raises(TypeError, match="complex64, which is not supported on OpenCL devices"):
        em.ElementwiseKernel("T x", "T y", "y = x", "c")(em.ones(3, dtype=np.complex64))
    with pytest.raises(TypeError, match="raw parameter y is bool, which raw OpenCL"):
        em.ElementwiseKernel("T x, raw bool y", "T z", "z = x", "rb")(
            em.ones(3), em.ones(3, dtype=bool))


# ---- raw programs -------------------------------------------------------------------

SRC = r"""
__kernel void axpy(__global float *y, __global const float *x, float a, int n) {
    int i = get_global_id(0);
    if (i < n) y[i] += a * x[i];
}
__kernel void blocksum(__global const int *x, __global int *out, __local int *tmp) {
    int l = get_local_id(0), g = get_group_id(0), n = get_local_size(0);
    tmp[l] = x[get_global_id(0)];
    barrier(CLK_LOCAL_MEM_FENCE);
    if (l == 0) {
        int s = 0;
        for (int k = 0; k < n; k++) s += tmp[k];
        out[g] = s;
    }
}
__kernel void fill2d(__global int *o, int w) {
    o[get_global_id(1) * w + get_global_id(0)] = get_global_id(1) * 100 + get_global_id(0);
}
"""


def test_program(cl):
    prg = em.opencl.Program(SRC).build()
    assert prg.device == em.Device(CL)
    y = em.asarray(np.ones(100, dtype=np.float32))
    x = em.asarray(np.arange(100, dtype=np.float32))
    prg.axpy((128,), (64,), y, x, np.float32(0.5), np.int32(100)).wait()
    np.testing.assert_array_equal(y.get(), 1 + 0.5 * np.arange(100, dtype=np.float32))
    xs = em.asarray(np.arange(64, dtype=np.int32))
    out = em.zeros(4, dtype=np.int32)
    prg.blocksum((64,), (16,), xs, out, em.opencl.LocalMemory(16 * 4))
    np.testing.assert_array_equal(out.get(), np.arange(64).reshape(4, 16).sum(1))
    o = em.zeros((3, 5), dtype=np.int32)
    k = prg.kernel("fill2d")
    k.set_scalar_arg_dtypes([None, np.int32])
    k((5, 3), None, o, 5)  # a Python int typed by set_scalar_arg_dtypes
    np.testing.assert_array_equal(o.get(), np.add.outer(np.arange(3) * 100, np.arange(5)))


_CHURN = """
import os, sys, time
import numpy as np
import ember as em

def churn(seconds):  # what pytest does to the environment at every test phase
    t, j = time.time(), 0
    while time.time() - t < seconds:
        os.environ["PYTEST_CURRENT_TEST"] = "test_x.py::test_%d (call)" % j + "x" * (j % 300)
        if j % 3 == 0:
            os.environ.pop("PYTEST_CURRENT_TEST")
        if j % 5 == 0:
            os.environ["EMBER_T_%d" % (j % 40)] = "v" * (j % 500)
        j += 1

with em.Device("opencl:0"):
    x = em.asarray(np.arange(100, dtype=np.float32))
    for i in range(2):  # Ember's launch (kernels.c), a new kernel each time
        k = em.ElementwiseKernel("float32 x", "float32 y", "y = x * %d + 1" % (i + 2),
                                 "churn%d_%d" % (i, os.getpid()))
        y = k(x)
        churn(1.0)
        assert np.array_equal(y.get(), np.arange(100, dtype=np.float32) * (i + 2) + 1)
    prg = em.opencl.Program("__kernel void k%d(__global float *a) "
                            "{ a[get_global_id(0)] += 1.0f; }" % os.getpid()).build()
    prg.kernel("k%d" % os.getpid())((64,), (16,), x)  # a raw launch (raw.c)
    churn(1.0)
    assert np.array_equal(x.get()[:64], np.arange(64, dtype=np.float32) + 1)
print("ok")
"""


def test_first_launch_links_before_returning():
    """PoCL links a kernel's work-group function at its first launch, on its
    own thread, spawning the linker with the process's environ; pytest's
    setenv right after the launch freed that array under the spawn and PoCL
    aborted the process (CI, session 15).  On PoCL the first launch of a
    kernel shape waits for the link (src/backend/opencl/linkwait.c); without
    the wait this script aborts at its first kernel."""
    if "Portable" not in em.opencl.device_info(CL)["platform"]:
        pytest.skip("PoCL's link at first launch")
    with em.Device(CL):
        x = em.asarray(np.arange(10, dtype=np.float32))
        k = em.ElementwiseKernel("float32 x", "float32 y", "y = x * 7 - 1", "linkwait_k")
        n0 = _e.opencl_link_waits()
        y = k(x)
        assert _e.opencl_link_waits() == n0 + 1  # a new kernel's first launch waited
        k(x)
        assert _e.opencl_link_waits() == n0 + 1  # the same shape again: no wait
        np.testing.assert_array_equal(y.get(), np.arange(10, dtype=np.float32) * 7 - 1)
    # the race itself (without the wait this aborts in about half the runs)
    assert _run(_CHURN, POCL_KERNEL_CACHE="0") == "ok\n"


def test_disk_cache_keys_on_pocl_extra_build_flags(tmp_path):
    """CI builds PoCL's kernels at -O0 (POCL_EXTRA_BUILD_FLAGS): such a binary
    is another cache entry, never the one a run without the flag loads."""
    code = ("import numpy as np, ember as em\n"
            "with em.Device('opencl:0'):\n"
            "    x = em.asarray(np.arange(5, dtype=np.float32))\n"
            "    print((x * 3 + 1).get().tolist())\n")
    env = {"EMBER_CACHE_DIR": str(tmp_path / "e"), "POCL_CACHE_DIR": str(tmp_path / "p")}

    def entries():
        return sorted(p.name for p in (tmp_path / "e").rglob("*") if p.is_file())

    want = str([1.0, 4.0, 7.0, 10.0, 13.0]) + "\n"
    assert _run(code, POCL_EXTRA_BUILD_FLAGS="", **env) == want
    plain = entries()
    assert plain
    assert _run(code, POCL_EXTRA_BUILD_FLAGS="", **env) == want
    assert entries() == plain  # the same key: read back, nothing new
    assert _run(code, POCL_EXTRA_BUILD_FLAGS="-cl-opt-disable", **env) == want
    assert len(entries()) > len(plain)  # -O0 binaries under keys of their own


def test_program_errors(cl):
    prg = em.opencl.Program(SRC).build()
    y = em.zeros(8, dtype=np.float32)
    with pytest.raises(TypeError, match="Python int"):
        prg.axpy((8,), None, y, y, np.float32(1), 8)
    with pytest.raises(TypeError, match="takes 4 arguments, got 3"):
        prg.axpy((8,), None, y, y, np.float32(1))
    with pytest.raises(TypeError, match="NumPy array"):
        prg.axpy((8,), None, y, np.zeros(8, np.float32), np.float32(1), np.int32(8))
    with pytest.raises(ValueError, match="byte offset 4"):
        prg.axpy((4,), None, y[1:5], y, np.float32(1), np.int32(4))
    with pytest.raises(em.LaunchError, match="not a multiple of the local size"):
        prg.axpy((10,), (4,), y, y, np.float32(1), np.int32(8))
    with pytest.raises(AttributeError, match="no kernel named 'nope'"):
        prg.nope
    with pytest.raises(ValueError, match="is on cpu"):
        prg.axpy((8,), None, y, em.zeros(8, dtype=np.float32, device="cpu"), np.float32(1),
                 np.int32(8))


def test_launch_past_the_work_group_count_is_a_value_error(cl):
    """Past 2^32 - 1 work-groups (or work-items without a local size) a
    launch is refused with the sizes given and allowed: PoCL's scheduler
    numbers work-groups in 32 bits and aborted the whole process on a
    launch of 2^50 work-items."""
    prg = em.opencl.Program(SRC).build()
    y = em.zeros(8, dtype=np.float32)
    args = (y, y, np.float32(1), np.int32(0))
    with pytest.raises(ValueError, match=r"global size \(1125899906842624\) is "
                                         r"1125899906842624 work-items; without a local size a "
                                         r"launch on opencl:0 may have at most 4294967295"):
        prg.axpy((2**50,), None, *args)
    with pytest.raises(ValueError, match=r"global size \(4294967296\) is 4294967296"):
        prg.axpy((2**32,), None, *args)
    with pytest.raises(ValueError, match=r"global size \(1099511627776\) with local size "
                                         r"\(256\) is 4294967296 work-groups"):
        prg.axpy((2**40,), (256,), *args)
    # products past 2^64 saturate instead of wrapping round to a small count
    with pytest.raises(ValueError, match=r"global size \(4294967296, 4294967296, 1\) with "
                                         r"local size \(1, 1, 1\) is over "
                                         r"18446744073709551615 work-groups"):
        prg.fill2d((2**32, 2**32, 1), (1, 1, 1), y, np.int32(1))
    with pytest.raises(ValueError, match=r"is over 18446744073709551615 work-items"):
        prg.fill2d((2**32, 2**32, 2**32), None, y, np.int32(1))
    # an empty dimension runs nothing, whatever the others are
    prg.axpy((0,), None, *args)
    k = em.RawKernel("__kernel void inc(__global int *a) { a[get_global_id(0)] += 1; }", "inc",
                     backend="opencl")
    a = em.zeros(4, dtype=np.int32)
    with pytest.raises(ValueError, match=r"global size \(1099511627776\) with local size "
                                         r"\(4\) is 274877906944 work-groups"):
        k((2**38,), (4,), (a,))
    k((1,), (4,), (a,))  # the device still runs
    np.testing.assert_array_equal(a.get(), np.ones(4))


def test_compile_error(cl):
    with pytest.raises(em.CompileError) as e:
        em.opencl.Program("__kernel void k(__global int *a) {\n    a[0] = undeclared_thing;\n}\n"
                          ).build()
    msg = str(e.value)
    assert "undeclared_thing" in msg  # the build log
    assert "   2      a[0] = undeclared_thing;" in msg  # the numbered source


def test_rawkernel_opencl(cl):
    k = em.RawKernel("__kernel void inc(__global int *a, int by) "
                     "{ a[get_global_id(0)] += by; }", "inc", backend="opencl")
    a = em.zeros(12, dtype=np.int32)
    k((3,), (4,), (a, np.int32(5)))
    np.testing.assert_array_equal(a.get(), np.full(12, 5))
    with pytest.raises(ValueError, match="RawModule takes CUDA C"):
        em.RawModule(code="", backend="opencl")


@pytest.mark.skipif(em.cuda.is_available(), reason="with CUDA the benchmark would run")
def test_bench_script_skips_without_cuda():
    # bench/bench_opencl.py compares opencl:N with cuda:0 on one card; here it
    # must say why it does nothing and exit 0 (CI runs no benchmark).
    root = os.path.join(os.path.dirname(__file__), "..", "..")
    r = subprocess.run([sys.executable, os.path.join(root, "bench", "bench_opencl.py"),
                        "--opencl", CL], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == "bench_opencl: skipped (no CUDA device)"


# ---- EMBER_OPENCL_GUARD: buffers that end at an inaccessible page --------------------

_GUARD_PAST = """
import numpy as np, ember as em
em.set_default_device("opencl:0")
prg = em.opencl.Program('''
__kernel void past(__global float *a, int n) { a[n + get_global_id(0)] = 1.0f; }
''').build()
a = em.zeros(1000, dtype=np.float32)
prg.past((%d,), None, a, np.int32(1000)).wait()
print("no fault")
"""


def test_guard_faults_at_the_first_write_past_an_array():
    """EMBER_OPENCL_GUARD=1 (src/backend/opencl/guard.c) is how a kernel's
    access past an array's end is found on PoCL: the first such write faults
    (SIGSEGV in the kernel) instead of landing in the slack of a pooled
    block or in a neighbour.  Writing in bounds (0 items past) still runs.
    A GPU's driver copies the host pages to device memory, where there is no
    guard page (NVIDIA's OpenCL on the H100 ran the write past the end)."""
    if em.opencl.device_info(CL)["type"] != "cpu":
        pytest.skip("the guard pages fence host memory: a CPU OpenCL device's (PoCL)")
    code = _GUARD_PAST
    assert "no fault" in _run(code % 0, EMBER_OPENCL_GUARD="1")
    e = dict(os.environ, EMBER_OPENCL_GUARD="1")
    r = subprocess.run([sys.executable, "-c", code % 1], env=e, capture_output=True, text=True,
                       timeout=300)
    # SIGSEGV, past the end (under ASan, tools/dev.sh asan: its report of the
    # signal, then abort_on_error's SIGABRT)
    segv = r.returncode == -11 or (r.returncode == -6 and "SEGV" in r.stderr)
    assert segv, (r.returncode, r.stdout, r.stderr)


def test_guard_mode_computes_the_same():
    """Under the guard (exact sizes, nothing cached) the templates' kernels
    give NumPy's results at sizes that are not multiples of a block: the
    elementwise, reduction, scan, sort and unique kernels touch no byte past
    their arrays."""
    out = _run("""
import numpy as np, ember as em
em.set_default_device("opencl:0")
rng = np.random.default_rng(0)
for n in (1, 7, 255, 4097):
    a = rng.standard_normal(n).astype(np.float32)
    b = (rng.integers(0, 5, n)).astype(np.int8)
    x, y = em.asarray(a), em.asarray(b)
    assert np.allclose((x * 2 + y).get(), a * 2 + b)
    assert np.isclose(float(em.sum(x)), a.sum(dtype=np.float64), rtol=1e-4)
    assert np.allclose(em.cumsum(x).get(), np.cumsum(a), rtol=1e-4, atol=1e-4)
    assert np.array_equal(em.sort(x).get(), np.sort(a))
    for got, want in zip(em.unique(y, return_index=True, return_inverse=True,
                                   return_counts=True),
                         np.unique(b, return_index=True, return_inverse=True,
                                   return_counts=True)):
        assert np.array_equal(np.asarray(got), want)
print("same")
""", EMBER_OPENCL_GUARD="1")
    assert "same" in out
