"""Ufuncs as NumPy's objects (reduce, accumulate, outer, at, reduceat and
the attributes) and NumPy's functions on Ember arrays through
__array_function__, against NumPy."""
import io

import numpy as np
import pytest

import ember as em
from helpers import assert_same, layouts, random_array, to_em


@pytest.mark.parametrize("dtype", ["bool", "int8", "int64", "uint32", "float32", "float64", "complex64"])
def test_reduce_matches_numpy(device, rng, dtype):
    for name, a in layouts(rng, (3, 4), dtype):
        for op in ("add", "multiply", "maximum", "minimum", "logical_and", "logical_or", "subtract",
                   "bitwise_xor", "fmax"):
            u, f = getattr(np, op), getattr(em, op)
            if dtype == "complex64" and op in ("bitwise_xor", "maximum", "minimum", "fmax"):
                continue
            if dtype in ("float32", "float64") and op == "bitwise_xor":
                continue
            if dtype == "bool" and op == "subtract":
                continue
            for axis in ((0, -1, None) if a.ndim else (None,)):
                if a.size == 0 and u.identity is None and axis != -1:
                    continue
                try:
                    want = u.reduce(a, axis=axis)
                except ValueError:  # subtract over two axes: not reorderable
                    with pytest.raises(ValueError, match="not reorderable"):
                        f.reduce(to_em(a), axis=axis)
                    continue
                assert_same(f.reduce(to_em(a), axis=axis), want, rtol=1e-4)
    a = random_array(rng, (3, 4), dtype)
    if dtype not in ("bool", "complex64"):
        assert_same(em.add.reduce(to_em(a), axis=1, keepdims=True, initial=5),
                    np.add.reduce(a, axis=1, keepdims=True, initial=5))
        assert_same(em.maximum.reduce(to_em(a), axis=0, initial=50), np.maximum.reduce(a, axis=0, initial=50))


@pytest.mark.parametrize("dtype", ["int16", "float64", "complex128"])
def test_accumulate_outer(device, rng, dtype):
    a = random_array(rng, (3, 4), dtype, low=-3, high=3)
    b = random_array(rng, (5,), dtype)
    for op in ("add", "multiply", "subtract", "maximum"):
        if dtype.startswith("complex") and op == "maximum":
            continue
        for axis in (0, 1, -1):
            assert_same(getattr(em, op).accumulate(to_em(a), axis=axis),
                        getattr(np, op).accumulate(a, axis=axis))
        assert_same(getattr(em, op).outer(to_em(a), to_em(b)), getattr(np, op).outer(a, b))
    assert_same(em.add.accumulate(to_em(a), dtype=np.float64), np.add.accumulate(a, dtype=np.float64))
    assert_same(em.greater.outer(to_em(b.real), to_em(b.real)), np.greater.outer(b.real, b.real))
    with pytest.raises(ValueError, match="only supported for binary functions"):
        em.sin.reduce(to_em(a))
    with pytest.raises(ValueError, match="only supported for binary functions"):
        em.negative.outer(to_em(a), to_em(a))


@pytest.mark.parametrize("dtype", ["int32", "float64"])
def test_at_and_reduceat(device, rng, dtype):
    a = random_array(rng, (10,), dtype)
    idx = np.array([0, 3, 3, 3, 9, 0])
    vals = random_array(rng, (6,), dtype)
    for op in ("add", "multiply", "maximum", "subtract"):
        want = a.copy()
        getattr(np, op).at(want, idx, vals)
        got = to_em(a)
        assert getattr(em, op).at(got, to_em(idx), to_em(vals)) is None
        assert_same(got, want)  # duplicated indices accumulate
    want = a.copy()
    np.negative.at(want, [1, 1, 2])
    got = to_em(a)
    em.negative.at(got, [1, 1, 2])
    assert_same(got, want)
    with pytest.raises(TypeError, match="expects an ember.ndarray"):
        em.add.at(a, idx, vals)
    with pytest.raises(ValueError, match="second operand needed"):
        em.add.at(to_em(a), idx)
    m = random_array(rng, (8, 3), dtype)
    for op in ("add", "maximum"):
        assert_same(getattr(em, op).reduceat(to_em(m), [0, 4, 1, 6]), getattr(np, op).reduceat(m, [0, 4, 1, 6]))


def test_attributes_of_every_table_ufunc():
    count = 0
    for name in dir(np):
        u = getattr(np, name)
        f = getattr(em, name, None)
        if isinstance(u, np.ufunc) and f is not None and hasattr(f, "nin") and name == u.__name__:
            assert (f.nin, f.nout, f.nargs, f.identity, f.signature, f.ntypes) == \
                (u.nin, u.nout, u.nargs, u.identity, u.signature, u.ntypes), name
            count += 1
    assert count > 60


# ---- __array_function__ -------------------------------------------------------

def test_numpy_functions_dispatch_to_ember(device, rng):
    a = rng.normal(size=(4, 5))
    x = to_em(a)
    cases = [
        (lambda m, v: m.median(v), {}), (lambda m, v: m.median(v, axis=1), {}),
        (lambda m, v: m.percentile(v, [10, 90], axis=0), {}),
        (lambda m, v: m.nanvar(v, axis=1), {}), (lambda m, v: m.cov(v), {}),
        (lambda m, v: m.histogram(v, bins=4)[0], {}), (lambda m, v: m.pad(v, 1), {}),
        (lambda m, v: m.trace(v), {}), (lambda m, v: m.kron(v, v), {}),
        (lambda m, v: m.insert(v, 1, 0.0, axis=0), {}), (lambda m, v: m.rot90(v), {}),
        (lambda m, v: m.gradient(v, axis=0), {}), (lambda m, v: m.average(v, axis=0), {}),
        (lambda m, v: m.diff(v), {}), (lambda m, v: m.interp(v, m.sort(v[0]), v[1]), {}),
    ]
    for fn, _ in cases:
        got = fn(np, x)
        assert isinstance(got, em.ndarray), fn
        assert_same(got, fn(np, a))
    assert np.array_equal(x, x) is True
    assert isinstance(np.bincount(em.asarray([1, 2, 2])), em.ndarray)
    i, j = np.unravel_index(em.asarray([3, 7]), (2, 5))
    assert isinstance(i, em.ndarray) and i.tolist() == [0, 1] and j.tolist() == [3, 2]


def test_numpy_save_load_of_an_ember_array(device, rng):
    a = rng.normal(size=(2, 3))
    buf = io.BytesIO()
    np.save(buf, to_em(a))  # dispatches to em.save
    buf.seek(0)
    np.testing.assert_array_equal(np.load(buf), a)


def test_numpy_function_ember_lacks_raises_typeerror():
    x = em.arange(4.0)
    with pytest.raises(TypeError, match=r"numpy.busday_count is not implemented for ember arrays"):
        np.busday_count(x, x)
    # converting explicitly is the way: NumPy's function on a host copy
    assert np.isnat(np.asarray(x.get(), dtype="datetime64[D]")).tolist() == [False] * 4


def test_numpy_ufunc_methods_on_ember_arrays(device, rng):
    a = rng.normal(size=(3, 4))
    x = to_em(a)
    for got, want in [(np.add.reduce(x), np.add.reduce(a)),
                      (np.subtract.reduce(x, axis=1), np.subtract.reduce(a, axis=1)),
                      (np.maximum.accumulate(x, axis=1), np.maximum.accumulate(a, axis=1)),
                      (np.multiply.outer(x[0], x[1]), np.multiply.outer(a[0], a[1])),
                      (np.add.reduceat(x, [0, 2], axis=1), np.add.reduceat(a, [0, 2], axis=1))]:
        assert isinstance(got, em.ndarray)
        assert_same(got, want)
    y, b = to_em(a), a.copy()
    np.add.at(y, (em.asarray([0, 0, 2]), em.asarray([1, 1, 3])), 1.0)
    np.add.at(b, ([0, 0, 2], [1, 1, 3]), 1.0)
    assert_same(y, b)


@pytest.mark.parametrize("dtype", ["int32", "uint64", "float32", "float64"])
def test_add_at_by_scatter_add(monkeypatch, rng, dtype):
    """The device path of add.at / subtract.at (an atomic scatter-add kernel),
    run on CPU arrays and checked against NumPy's at."""
    from ember import _scatter
    monkeypatch.setattr(_scatter, "on_device", lambda a: True)
    a = random_array(rng, (4, 5), dtype)
    i0 = np.array([0, 3, 3, -1, 0])
    i1 = np.array([1, 1, 1, 4, -5])
    v = random_array(rng, (5,), dtype)
    for op in ("add", "subtract"):
        want = a.copy()
        getattr(np, op).at(want, (i0, i1), v)
        got = to_em(a.copy())
        getattr(em, op).at(got, (to_em(i0), to_em(i1)), to_em(v))
        assert_same(got, want, rtol=1e-5 if dtype == "float32" else None)
    flat = random_array(rng, (6,), dtype)
    want, got = flat.copy(), to_em(flat.copy())
    np.add.at(want, [0, 0, 5], 2)
    em.add.at(got, [0, 0, 5], 2)
    assert_same(got, want)
    with pytest.raises(IndexError, match="out of bounds"):
        em.add.at(to_em(a.copy()), (to_em(i0 + 9), to_em(i1)), to_em(v))


@pytest.mark.parametrize("dtype", ["int32", "uint32", "int64", "uint64", "float32", "float64"])
def test_scatter_add_kernel_compiles_for_cuda(dtype):
    """The scatter-add kernel's CUDA rendering compiles with NVRTC for every
    dtype it is used with (the GPU run executes it; here it is compiled)."""
    import ctypes
    import os
    from ember import _scatter
    lib = ctypes.CDLL(os.path.join(em.__path__[0], "libember.so"))
    lib.em_cuda_compile.argtypes = [ctypes.c_char_p, ctypes.c_int, ctypes.c_char_p,
                                    ctypes.POINTER(ctypes.c_void_p), ctypes.POINTER(ctypes.c_size_t)]
    lib.em_last_error.restype = ctypes.c_char_p
    lib.em_nvrtc_init.restype = ctypes.c_int
    if lib.em_nvrtc_init() != 0:
        pytest.skip("NVRTC is not installed")
    k = _scatter._get_kernel()
    src = k.render(np.zeros(4, dtype), np.zeros(3, np.int64), np.zeros(3, dtype), 3, device="cuda")
    p, n = ctypes.c_void_p(), ctypes.c_size_t()
    assert lib.em_cuda_compile(src.encode(), 90, b"scatter_add", ctypes.byref(p), ctypes.byref(n)) == 0, \
        lib.em_last_error().decode()[:2000]
