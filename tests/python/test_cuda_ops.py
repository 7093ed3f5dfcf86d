"""CUDA elementwise kernels against NumPy: every op over every dtype, the
edge layouts, fused-vs-CPU bit equality.  Runs only where a GPU works."""
import numpy as np
import pytest

import ember as em
from ember import _ember
from helpers import ALL_DTYPES, layouts, random_array, to_em

pytestmark = pytest.mark.skipif(not em.cuda.is_available(), reason="no CUDA device")

OPS = sorted((n, nin) for n, (_, nin) in _ember.ops.items() if n != "copy")
GPU = "cuda:0"


def _inputs(rng, name, nin, dtype, shape=(37, 5)):
    args = [random_array(rng, shape, dtype) for _ in range(nin)]
    if name == "where":
        args[0] = args[0].astype(bool) if dtype != np.bool_ else args[0]
    if name in ("left_shift", "right_shift") and dtype.kind in "iu":
        args[1] = random_array(rng, shape, dtype, low=0, high=min(70, np.iinfo(dtype).max))
    if name == "power" and dtype.kind in "iu":
        args[1] = random_array(rng, shape, dtype, low=0, high=5)
    return args


def _check(got, want, dtype):
    got = got.get() if hasattr(got, "get") else got
    assert got.dtype == want.dtype and got.shape == want.shape
    if want.dtype.kind in "fc":
        tol = {2: 2e-3, 4: 2e-5, 8: 1e-12}[np.dtype(want.dtype).itemsize // (2 if want.dtype.kind == "c" else 1)]
        np.testing.assert_allclose(got, want, rtol=tol, atol=tol, equal_nan=True)
    else:
        np.testing.assert_array_equal(got, want)


def _oracle(name, args):
    """Ember's CPU result (the backend-parity oracle) where the CPU has the
    loop; else NumPy's values (None if NumPy refuses the dtype too)."""
    try:
        return getattr(em, name)(*[em.asarray(a, device="cpu") for a in args]).get()
    except (TypeError, em.EmberError):
        pass
    with np.errstate(all="ignore"):
        try:
            return getattr(np, name)(*args)
        except TypeError:
            return None


@pytest.mark.parametrize("name,nin", OPS, ids=[o[0] for o in OPS])
@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=str)
def test_op_every_dtype(rng, name, nin, dtype):
    args = _inputs(rng, name, nin, dtype)
    want = _oracle(name, args)
    gargs = [em.asarray(a, device=GPU) for a in args]
    if want is None:
        with pytest.raises(TypeError):
            getattr(em, name)(*gargs)
        return
    got = getattr(em, name)(*gargs).get()
    _check(got, want.astype(got.dtype) if want.dtype != got.dtype else want, dtype)


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=str)
def test_add_edge_layouts(rng, dtype):
    with em.Device(GPU):
        for (na, a), (nb, b) in zip(layouts(rng, (4, 6), dtype), layouts(rng, (4, 6), dtype)):
            got = em.add(to_em(a), to_em(b)) if a.shape == b.shape else None
            if got is not None:
                _check(got, np.add(a, b), dtype)


def test_mixed_dtypes_broadcast_where(rng):
    c = rng.random((3, 1, 5)) < 0.5
    a = random_array(rng, (4, 5), np.int64)
    b = random_array(rng, (3, 4, 1), np.float64)
    got = em.where(em.asarray(c, device=GPU), em.asarray(a, device=GPU) * 2, em.asarray(b, device=GPU))
    _check(got, np.where(c, a * 2, b), np.float64)


def test_bit_identical_to_cpu(rng):
    a = random_array(rng, (1000,), np.float32)
    b = random_array(rng, (1000,), np.float32)
    for name in ("add", "multiply", "divide", "sqrt", "exp", "floor_divide", "remainder"):
        f = getattr(em, name)
        args = (a, b) if name not in ("sqrt", "exp") else (np.abs(a),)
        try:
            cpu = f(*[em.asarray(x, device="cpu") for x in args]).get()
        except TypeError:  # no CPU loop yet: nothing to compare with
            continue
        gpu = f(*[em.asarray(x, device=GPU) for x in args]).get()
        if name != "exp":  # correctly rounded on both (exp may differ by an ulp)
            np.testing.assert_array_equal(gpu, cpu, err_msg=name)


def test_large_strided_and_64bit_index():
    a = np.arange(3 * 2**20, dtype=np.float32).reshape(3, -1)[:, ::3]
    got = em.negative(em.asarray(a, device=GPU)[:, ::-1])
    np.testing.assert_array_equal(got.get(), -a[:, ::-1])


def test_properties_and_mem_info():
    d = em.Device(GPU)
    assert d.multiprocessor_count > 0 and d.max_threads_per_block >= 256
    assert len(d.compute_capability) >= 2 and d.total_memory > 0
    free, total = d.mem_info()
    assert 0 < free <= total == d.total_memory


@pytest.mark.parametrize("dtype", [np.float32, np.float64], ids=str)
@pytest.mark.parametrize("order", ["CC", "CF", "FC", "strided"])
def test_cublas_matmul(rng, dtype, order):
    a = random_array(rng, (37, 19), dtype)
    b = random_array(rng, (19, 23), dtype)
    if order[0:1] == "F":
        a = np.asfortranarray(a)
    if order[1:2] == "F":
        b = np.asfortranarray(b)
    ea, eb = to_em(a, device=GPU), to_em(b, device=GPU)
    if order == "strided":
        big = random_array(rng, (74, 19), dtype)
        a, ea = big[::2], to_em(big, device=GPU)[::2]
    got = _ember.cuda_matmul(ea, eb).get()
    tol = 1e-4 if dtype == np.float32 else 1e-12
    np.testing.assert_allclose(got, a @ b, rtol=tol, atol=tol)
