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


@pytest.mark.parametrize("op", ["add", "bitwise_or", "bitwise_xor", "maximum", "logical_and"])
def test_accumulate_axis_none_and_tuples(device, rng, op):
    """NumPy's accumulate axes: None only for 1-d arrays (a 2-d array raises, where
    Ember flattened it through cumsum and failed in the device path: GPU fuzz
    seeds 20000184, 20000219), a 1-tuple as its axis, a 0-d array a TypeError."""
    a = random_array(rng, (3, 4), "int32", low=0, high=50)
    u, f = getattr(np, op), getattr(em, op)
    assert_same(f.accumulate(to_em(a[0]), axis=None), u.accumulate(a[0], axis=None))
    assert_same(f.accumulate(to_em(a), axis=(1,)), u.accumulate(a, axis=(1,)))
    for axis in (None, (0, 1), ()):
        with pytest.raises(ValueError, match="does not allow multiple axes"):
            u.accumulate(a, axis=axis)
        with pytest.raises(ValueError, match="does not allow multiple axes"):
            f.accumulate(to_em(a), axis=axis)
    with pytest.raises(TypeError, match="cannot accumulate on a scalar"):
        f.accumulate(to_em(np.array(3, np.int32)))


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


AT_OPS = ("add", "subtract", "multiply", "maximum", "minimum")


def _at_case(rng, dtype, op):
    a = random_array(rng, (4, 5), dtype)
    v = random_array(rng, (6,), dtype)
    if op == "multiply" and np.dtype(dtype).kind == "f":
        v = (v % 3).astype(dtype)  # products of a few factors stay finite
    if np.dtype(dtype).kind == "f":
        a[1, 1], v[4] = np.nan, np.nan  # maximum/minimum propagate NaN, as NumPy's
    i0 = np.array([0, 3, 3, -1, 0, 3])
    i1 = np.array([1, 1, 1, 4, -5, 1])
    return a, (i0, i1), v


@pytest.mark.parametrize("dtype", ["int32", "uint32", "int64", "uint64", "float32", "float64"])
@pytest.mark.parametrize("op", AT_OPS)
def test_at_by_accumulating_scatter(monkeypatch, rng, dtype, op):
    """The device path of ufunc.at (the library's accumulating scatter), run on
    CPU arrays, where it is the serial loop of src/codegen/run_scatter.c, and
    checked against NumPy's at: repeated and negative indices, NaN."""
    from ember import _scatter
    monkeypatch.setattr(_scatter, "on_device", lambda a: True)
    a, (i0, i1), v = _at_case(rng, dtype, op)
    want = a.copy()
    getattr(np, op).at(want, (i0, i1), v)
    got = to_em(a.copy())
    getattr(em, op).at(got, (to_em(i0), to_em(i1)), to_em(v))
    assert_same(got, want)
    flat = random_array(rng, (6,), dtype)
    want, got = flat.copy(), to_em(flat.copy())
    getattr(np, op).at(want, [0, 0, 5], 2)
    getattr(em, op).at(got, [0, 0, 5], 2)
    assert_same(got, want)
    with pytest.raises(IndexError, match="out of bounds"):
        getattr(em, op).at(to_em(a.copy()), (to_em(i0 + 9), to_em(i1)), to_em(v))


# Each case is a PoCL build (about a second): every rendering path once --
# native atomic_add (int32), 32- and 64-bit compare-and-swap loops on
# integers and floats -- and every op once.
OCL_AT = [(dt, op) for dt in ("int32", "uint64", "float32", "float64") for op in ("add", "maximum")]
OCL_AT += [("float32", op) for op in ("subtract", "multiply", "minimum")]


@pytest.mark.parametrize("dtype,op", OCL_AT)
def test_at_on_an_opencl_device(rng, dtype, op):
    """ufunc.at on opencl:0: the scatter template's OpenCL rendering (native
    atomic_add, compare-and-swap loops, 64-bit ones through
    cl_khr_int64_base_atomics) run by the device, against NumPy."""
    if not em.opencl.is_available():
        pytest.skip("no OpenCL platform")
    a, idx, v = _at_case(rng, dtype, op)
    want = a.copy()
    getattr(np, op).at(want, idx, v)
    with em.Device("opencl:0"):
        got = em.asarray(a)
        getattr(em, op).at(got, tuple(em.asarray(i) for i in idx), em.asarray(v))
        # float sums in the atomics' order: last bits may differ
        assert_same(got, want, rtol=1e-6 if dtype == "float32" else 1e-12)
        big = em.zeros(7, dtype=dtype)
        ii = rng.integers(0, 7, 5000)
        em.add.at(big, em.asarray(ii), em.asarray(np.ones(5000, dtype)))
        np.testing.assert_array_equal(big.get(), np.bincount(ii, minlength=7).astype(dtype))


def test_accumulating_scatter_rejects_bad_input():
    from ember import _ember
    x = em.zeros(4, dtype=np.float32)
    i = em.asarray(np.array([0, 1], np.int64))
    v = em.asarray(np.array([1, 2], np.float32))
    with pytest.raises(ValueError, match="no accumulating scatter for 'divide'"):
        _ember._scatter_accum(x, i, v, "divide")
    with pytest.raises(TypeError, match="indices must be int64"):
        _ember._scatter_accum(x, v, v, "add")
    with pytest.raises(TypeError, match="no atomic accumulation of int8"):
        _ember._scatter_accum(em.zeros(4, dtype=np.int8), i, em.asarray(np.ones(2, np.int8)), "add")
    with pytest.raises(ValueError, match="2 indices but 3 values"):
        _ember._scatter_accum(x, i, em.asarray(np.ones(3, np.float32)), "add")
    with pytest.raises(ValueError, match="1-d and contiguous"):
        _ember._scatter_accum(em.zeros((2, 2), dtype=np.float32), i, v, "add")
    _ember._scatter_accum(x, em.asarray(np.array([9, -1], np.int64)), v, "add")  # skipped
    np.testing.assert_array_equal(x.get(), np.zeros(4, np.float32))
