"""NumPy protocols: __array_ufunc__, __array_function__ and like=, against NumPy."""
import numpy as np
import pytest

import ember as em
from helpers import ALL_DTYPES, FLOAT_DTYPES, assert_same, layouts, random_array, to_em

SHAPE = (3, 4)


# ---- __array_ufunc__ ---------------------------------------------------------

@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=str)
def test_binary_ufunc_dispatches(device, rng, dtype):
    for name, a in layouts(rng, SHAPE, dtype):
        b = random_array(rng, a.shape, dtype)
        x = to_em(a)
        got = np.add(x, em.asarray(b))
        assert isinstance(got, em.ndarray), name
        assert_same(got, np.add(a, b))
        assert_same(np.multiply(x, b), np.multiply(a, b))  # NumPy operand is taken over
        assert_same(np.add(b, x), np.add(b, a))  # ember on the right too


@pytest.mark.parametrize("dtype", FLOAT_DTYPES, ids=str)
def test_unary_ufunc_dispatches(device, rng, dtype):
    for name, a in layouts(rng, SHAPE, dtype, low=0, high=10):
        assert_same(np.sqrt(to_em(a)), np.sqrt(a))
        assert_same(np.negative(to_em(a)), np.negative(a))


def test_numpy_operators_defer_to_ember(device):
    a = np.arange(6.0).reshape(2, 3)
    x = em.asarray(a)
    for got, want in ((a + x, a + a), (a * x, a * a), (a < x, a < a), (a @ x.T, a @ a.T)):
        assert isinstance(got, em.ndarray)
        assert_same(got, want)


def test_ufunc_out_argument(device):
    a = np.arange(6.0).reshape(2, 3)
    x, out = em.asarray(a), em.zeros((2, 3))
    r = np.add(x, 1.0, out=out)
    assert r is out
    assert_same(out, a + 1.0)
    r = np.sqrt(x, out=(out,))
    assert r is out
    assert_same(out, np.sqrt(a))


def test_ufunc_what_ember_lacks_raises_typeerror():
    x = em.arange(4.0)
    with pytest.raises(TypeError, match="operand type.*NotImplemented"):
        np.add(x, 1.0, out=np.zeros(4))  # a NumPy out= is not ours to fill
    with pytest.raises(TypeError, match="operand type.*NotImplemented"):
        np.isnat(x)  # a ufunc Ember does not have
    np.add.at(x, [0, 0], 1.0)  # ufunc methods are Ember's (_ufunc_methods)
    assert x.tolist() == [2.0, 1.0, 2.0, 3.0]
    x = em.arange(4.0)
    with pytest.raises(TypeError, match="operand type.*NotImplemented"):
        np.add(x, 1.0, where=np.array([True, False, True, False]))
    assert_same(np.add(x, 1.0, casting="same_kind"), np.arange(4.0) + 1.0)  # defaults are fine


def test_ufunc_reduce_and_accumulate(device, rng):
    a = random_array(rng, SHAPE, np.float64)
    x = em.asarray(a)
    assert_same(np.add.reduce(x), np.add.reduce(a))
    assert_same(np.add.reduce(x, axis=1, keepdims=True), np.add.reduce(a, axis=1, keepdims=True))
    assert_same(np.maximum.reduce(x, axis=None), np.maximum.reduce(a, axis=None))
    assert_same(np.multiply.reduce(x, axis=1), np.multiply.reduce(a, axis=1))
    assert_same(np.add.accumulate(x), np.add.accumulate(a))


# ---- __array_function__ --------------------------------------------------------

def _cases(a, b):
    """(numpy function, args) pairs; args hold arrays given as NumPy."""
    v = a[0]
    cases = [
        (np.concatenate, ([a, b],)), (np.concatenate, ([a, b], 1)), (np.stack, ([a, b],)),
        (np.where, (a > 0, a, b)), (np.reshape, (a, (4, 3))), (np.transpose, (a,)),
        (np.dot, (a, b.T)), (np.matmul, (a, b.T)), (np.einsum, ("ij,kj->ik", a, b)),
        (np.tensordot, (a, b.T, 1)), (np.linalg.norm, (a,)), (np.take, (a, [2, 0])),
        (np.take, (v, [1, 3])), (np.zeros_like, (a,)), (np.ones_like, (a,)),
        (np.full_like, (a, 7)), (np.copy, (a,)), (np.broadcast_to, (v, (2, 4))),
        (np.squeeze, (a[None],)), (np.flip, (a, 0)), (np.clip, (a, -1, 1)),
        (np.tril, (a,)), (np.outer, (v, v)), (np.vstack, ([a, b],)),
    ]
    for name in ("sum", "mean", "std", "max", "argmax", "cumsum"):
        if hasattr(em, name):
            cases.append((getattr(np, name), (a,)))
    return cases


def _to_em_args(args):
    out = []
    for x in args:
        if isinstance(x, np.ndarray):
            out.append(em.asarray(x))
        elif isinstance(x, list) and x and isinstance(x[0], np.ndarray):
            out.append([em.asarray(y) for y in x])
        else:
            out.append(x)
    return out


def test_array_function_table(device, rng):
    a = random_array(rng, SHAPE, np.float64)
    b = random_array(rng, SHAPE, np.float64)
    for fn, args in _cases(a, b):
        got = fn(*_to_em_args(args))
        want = fn(*args)
        assert isinstance(got, em.ndarray), fn.__name__
        if fn is np.empty_like:
            continue
        assert_same(got, want, rtol=1e-12)


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=str)
def test_array_function_all_dtypes(device, rng, dtype):
    for name, a in layouts(rng, SHAPE, dtype):
        x = to_em(a)
        assert_same(np.concatenate([x, x]), np.concatenate([a, a])) if a.ndim else None
        assert_same(np.copy(x), np.copy(a))
        assert_same(np.zeros_like(x), np.zeros_like(a))
        e = np.empty_like(x)
        assert isinstance(e, em.ndarray) and e.shape == a.shape and e.dtype == a.dtype, name
        assert_same(np.transpose(x), np.transpose(a))


def test_array_function_mixed_numpy_and_ember(device):
    a = np.arange(6.0).reshape(2, 3)
    got = np.concatenate([em.asarray(a), a])
    assert isinstance(got, em.ndarray)
    assert_same(got, np.concatenate([a, a]))


def test_numpy_argument_conventions(device):
    a = np.arange(12.0).reshape(3, 4) - 5
    x = em.asarray(a)
    assert_same(np.full_like(x, 3, "int32"), np.full_like(a, 3, "int32"))  # dtype positional
    assert_same(np.zeros_like(x, np.int8, "C", True), np.zeros_like(a, np.int8, "C", True))
    assert_same(np.clip(x, -1, 1), np.clip(a, -1, 1))
    assert_same(np.take(x, [0, 2], 1), np.take(a, [0, 2], 1))
    with pytest.raises(TypeError, match="ember's zeros_like does not support order='F'"):
        np.zeros_like(x, order="F")
    idx = em.asarray(np.array([0, 5, 11]))
    got = np.unravel_index(idx, (3, 4))
    for g, w in zip(got, np.unravel_index([0, 5, 11], (3, 4))):
        assert_same(g, w)
    assert_same(np.ravel_multi_index(got, (3, 4)), np.array([0, 5, 11]))
    with pytest.raises(ValueError, match="invalid entry in coordinates array"):
        np.ravel_multi_index((em.asarray([3]), em.asarray([0])), (3, 4))


def test_metadata_functions():
    x = em.zeros((2, 5), dtype=em.complex64)
    assert np.shape(x) == (2, 5) and np.ndim(x) == 2 and np.size(x) == 10 and np.size(x, 1) == 5
    assert np.iscomplexobj(x) and not np.isrealobj(x)


def test_unknown_function_raises_typeerror():
    x = em.arange(5.0)
    for name in ("is_busday", "datetime_as_string"):
        assert not hasattr(em, name)
    with pytest.raises(TypeError, match=r"numpy.is_busday is not implemented for ember arrays "
                                        r".*convert explicitly, e.g. numpy.is_busday\(x.get\(\)\)"):
        np.is_busday(x)
    with pytest.raises(TypeError, match="numpy.datetime_as_string is not implemented"):
        np.datetime_as_string(x)
    assert_same(np.add(x, x), np.arange(5.0) * 2)  # still working


class _Other:
    """A foreign array type: Ember must not take over its calls."""
    def __array_function__(self, func, types, args, kwargs):
        return "other"

    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        return "other"


def test_foreign_types_are_left_alone():
    x = em.arange(3.0)
    assert np.concatenate([x, _Other()]) == "other"
    assert np.add(x, _Other()) == "other"


# ---- like= ----------------------------------------------------------------------

def test_like_creation(device):
    x = em.ones(2, dtype=em.float32)
    cases = [
        (np.asarray, ([1, 2, 3],), {}), (np.array, ([[1.0, 2.0]],), {}),
        (np.asarray, (np.arange(4),), {"dtype": np.int32}), (np.empty, ((2, 3),), {}),
        (np.zeros, ((2, 3),), {"dtype": np.int16}), (np.ones, (4,), {}),
        (np.full, ((2, 2), 5.0), {}), (np.arange, (2, 11, 3), {}), (np.eye, (3,), {}),
        (np.identity, (2,), {}), (np.ascontiguousarray, ([1, 2],), {}),
    ]
    for fn, args, kw in cases:
        got = fn(*args, like=x, **kw)
        want = fn(*args, **kw)
        assert isinstance(got, em.ndarray), fn.__name__
        assert got.device == device, fn.__name__
        if fn is not np.empty:
            assert_same(got, want)
        else:
            assert got.shape == want.shape and got.dtype == want.dtype
    with pytest.raises(NotImplementedError, match="ember arrays are C-ordered"):
        np.asarray([1, 2], order="F", like=x)
    with em.Device("cpu"):  # like= follows the like array's device, not the current one
        assert np.zeros(3, like=x).device == x.device
