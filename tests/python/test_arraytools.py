"""append/insert/delete, pad, rot90, trim_zeros, block, resize, diagflat,
kron, trace, copyto, place, putmask, select, piecewise, choose,
fill_diagonal, apply_along_axis, apply_over_axes, array_equal/equiv,
ediff1d, fromfunction, the index helpers and the dtype questions, against
NumPy."""
import numpy as np
import pytest

import ember as em
from helpers import assert_same, layouts, random_array, to_em

DTYPES = ["bool", "int16", "uint32", "float32", "float64", "complex64"]


@pytest.mark.parametrize("dtype", DTYPES)
def test_append_insert_delete(device, rng, dtype):
    for name, a in layouts(rng, (3, 4), dtype):
        v = random_array(rng, a.shape, dtype)
        assert_same(em.append(to_em(a), to_em(v)), np.append(a, v))
        if a.ndim == 2:
            assert_same(em.append(to_em(a), to_em(v), axis=1), np.append(a, v, axis=1))
            n = a.shape[1]
            for obj in ([0, 2], slice(1, None, 2), 1, np.array([True, False, True, False])):
                if isinstance(obj, np.ndarray) and n != 4:
                    continue
                if a.shape[0] and not (isinstance(obj, list) and n < 3) and not (isinstance(obj, int) and n < 2):
                    assert_same(em.delete(to_em(a), obj, axis=1), np.delete(a, obj, axis=1))
            fill = random_array(rng, (), dtype)
            for obj in ([0, n], [1, 1], 0, n):
                assert_same(em.insert(to_em(a), obj, fill, axis=1), np.insert(a, obj, fill, axis=1))
        flat_n = a.size
        assert_same(em.delete(to_em(a), [0] if flat_n else []), np.delete(a, [0] if flat_n else []))
    a = np.arange(12).reshape(3, 4)
    assert_same(em.insert(to_em(a), 2, [7, 8, 9], axis=1), np.insert(a, 2, [7, 8, 9], axis=1))
    assert_same(em.insert(to_em(a), [2], [[7], [8], [9]], axis=1), np.insert(a, [2], [[7], [8], [9]], axis=1))
    assert_same(em.insert(to_em(a), -1, 5), np.insert(a, -1, 5))
    with pytest.raises(IndexError, match="out of bounds"):
        em.delete(to_em(a), 9, axis=1)
    with pytest.raises(IndexError, match="out of bounds"):
        em.insert(to_em(a), 9, 1, axis=1)
    with pytest.raises(np.exceptions.AxisError):
        em.delete(to_em(a), 0, axis=2)


@pytest.mark.parametrize("dtype", ["int8", "float32", "complex128"])
@pytest.mark.parametrize("mode", ["constant", "edge", "wrap", "reflect", "symmetric"])
def test_pad(device, rng, dtype, mode):
    for name, a in layouts(rng, (3, 4), dtype):
        if a.size == 0 and mode != "constant":
            continue
        for pw in (1, (2, 1), ((1, 0), (3, 5)) if a.ndim == 2 else ((2, 7),)):
            if a.ndim == 0 and np.ndim(pw) > 1:
                continue
            assert_same(em.pad(to_em(a), pw, mode), np.pad(a, pw, mode))
    a = random_array(rng, (3, 4), dtype)
    assert_same(em.pad(to_em(a), 2, constant_values=((1, 2), (3, 4))),
                np.pad(a, 2, constant_values=((1, 2), (3, 4))))
    assert_same(em.pad(to_em(a), 2, "linear_ramp"), np.pad(a, 2, "linear_ramp"))
    with pytest.raises(ValueError, match="can't extend empty axis"):
        em.pad(em.zeros((0, 2)), 1, "edge")
    with pytest.raises(ValueError, match="negative"):
        em.pad(to_em(a), -1)


@pytest.mark.parametrize("dtype", DTYPES)
def test_rot90_resize_trace_kron(device, rng, dtype):
    a = random_array(rng, (3, 4, 2), dtype)
    for k in range(-1, 5):
        for axes in ((0, 1), (2, 0), (1, -1)):
            assert_same(em.rot90(to_em(a), k, axes), np.rot90(a, k, axes))
    assert_same(em.resize(to_em(a), (5, 7)), np.resize(a, (5, 7)))
    assert_same(em.resize(to_em(a), 0), np.resize(a, 0))
    if dtype != "bool":
        assert_same(em.trace(to_em(a)), np.trace(a))
        assert_same(em.trace(to_em(a), 1, 0, 2), np.trace(a, 1, 0, 2))
    b = random_array(rng, (2, 3), dtype)
    assert_same(em.kron(to_em(a[:, :, 0]), to_em(b)), np.kron(a[:, :, 0], b))
    assert_same(em.kron(to_em(b[0]), to_em(a)), np.kron(b[0], a))
    with pytest.raises(ValueError, match="Axes must be different"):
        em.rot90(to_em(a), 1, (1, 1))


def test_trim_block_diagflat(device, rng):
    f = np.array([0, 0, 3, 0, 5, 0, 0])
    for trim in ("fb", "f", "b"):
        assert_same(em.trim_zeros(to_em(f), trim), np.trim_zeros(f, trim))
    assert_same(em.trim_zeros(em.zeros(4)), np.trim_zeros(np.zeros(4)))
    a, b = np.ones((2, 2)), np.zeros((2, 3))
    assert_same(em.block([[to_em(a), to_em(b)], [to_em(b), to_em(a * 3)]]),
                np.block([[a, b], [b, a * 3]]))
    assert_same(em.block([to_em(a[0]), 5.0]), np.block([a[0], 5.0]))
    with pytest.raises(ValueError, match="List depths are mismatched"):
        em.block([[to_em(a)], to_em(a)])
    for k in (-2, 0, 1):
        assert_same(em.diagflat(em.asarray([[1, 2], [3, 4]]), k), np.diagflat([[1, 2], [3, 4]], k))


@pytest.mark.parametrize("dtype", ["int32", "float64"])
def test_copyto_place_putmask(device, rng, dtype):
    a = random_array(rng, (3, 4), dtype)
    m = rng.random((3, 4)) < 0.5
    src = random_array(rng, (4,), dtype)
    d, e = a.copy(), to_em(a)
    np.copyto(d, src, where=m[0])
    em.copyto(e, to_em(src), where=to_em(m[0]))
    assert_same(e, d)
    d, e = a.copy(), to_em(a)
    np.copyto(d, 7)
    em.copyto(e, 7)
    assert_same(e, d)
    with pytest.raises(TypeError, match="Cannot cast"):
        em.copyto(em.zeros(3, dtype=em.int32), em.asarray([1.5, 2, 3]))
    d, e = a.copy(), to_em(a)
    np.place(d, m, [1, 2, 3])
    em.place(e, to_em(m), em.asarray([1, 2, 3]))
    assert_same(e, d)
    d, e = a.copy(), to_em(a)
    np.putmask(d, m, [-1, -2, -3, -4, -5])
    em.putmask(e, to_em(m), em.asarray([-1, -2, -3, -4, -5]))
    assert_same(e, d)
    with pytest.raises(ValueError, match="Cannot insert from an empty array"):
        em.place(to_em(a), to_em(np.ones((3, 4), bool)), em.asarray([]))


def test_select_piecewise_choose(device, rng):
    x = rng.normal(size=(4, 5))
    c1, c2 = x < -0.5, x > 0.5
    assert_same(em.select([to_em(c1), to_em(c2)], [to_em(x), to_em(-x)], 9.0),
                np.select([c1, c2], [x, -x], 9.0))
    assert_same(em.select([to_em(c1)], [em.asarray(3)]), np.select([c1], [np.asarray(3)]))
    with pytest.raises(ValueError, match="same length"):
        em.select([to_em(c1)], [])
    with pytest.raises(TypeError, match="invalid entry 0 in condlist"):
        em.select([to_em(x)], [to_em(x)])
    assert_same(em.piecewise(to_em(x), [to_em(c1), to_em(c2)], [lambda v: v * 2, -1.0, lambda v: v ** 3]),
                np.piecewise(x, [c1, c2], [lambda v: v * 2, -1.0, lambda v: v ** 3]))
    assert_same(em.piecewise(em.asarray(2.0), [True], [lambda v: v + 1]),
                np.piecewise(np.float64(2.0), [True], [lambda v: v + 1]))
    idx = rng.integers(0, 3, size=(4, 5))
    ch = [x, -x, np.full((5,), 7.0)]
    assert_same(em.choose(to_em(idx), [to_em(c) for c in ch]), np.choose(idx, ch))
    for mode in ("wrap", "clip"):
        assert_same(em.choose(to_em(idx + 2), [to_em(c) for c in ch], mode=mode),
                    np.choose(idx + 2, ch, mode=mode))
    with pytest.raises(ValueError, match="invalid entry in choice array"):
        em.choose(to_em(idx + 2), [to_em(c) for c in ch])


def test_fill_diagonal_and_apply(device, rng):
    for shape, wrap in (((4, 4), False), ((7, 3), True), ((7, 3), False), ((3, 3, 3), False)):
        a, e = np.zeros(shape), em.zeros(shape)
        np.fill_diagonal(a, [1, 2], wrap=wrap)
        em.fill_diagonal(e, em.asarray([1.0, 2.0]), wrap=wrap)
        assert_same(e, a)
    x = rng.normal(size=(3, 4, 5))
    for axis in (0, 1, -1):
        assert_same(em.apply_along_axis(lambda v: em.sort(v), axis, to_em(x)),
                    np.apply_along_axis(np.sort, axis, x))
        assert_same(em.apply_along_axis(lambda v: em.sum(v * 2), axis, to_em(x)),
                    np.apply_along_axis(lambda v: np.sum(v * 2), axis, x))
    assert_same(em.apply_over_axes(em.sum, to_em(x), [0, 2]), np.apply_over_axes(np.sum, x, [0, 2]))


def test_array_equal_equiv_ediff1d(device, rng):
    a = np.array([1.0, np.nan, 3.0])
    assert em.array_equal(to_em(a), to_em(a)) is False
    assert em.array_equal(to_em(a), to_em(a), equal_nan=True) is True
    assert em.array_equal(em.arange(3), em.arange(4)) is False
    assert em.array_equiv(em.ones((2, 3)), em.ones(3)) is True
    assert em.array_equiv(em.ones((2, 3)), em.ones(2)) is False
    x = rng.integers(0, 9, size=(3, 4))
    assert_same(em.ediff1d(to_em(x)), np.ediff1d(x))
    assert_same(em.ediff1d(to_em(x), to_begin=[-1, -2], to_end=9), np.ediff1d(x, to_begin=[-1, -2], to_end=9))
    assert_same(em.fromfunction(lambda i, j: i * 10 + j, (3, 4)), np.fromfunction(lambda i, j: i * 10 + j, (3, 4)))


def test_index_helpers(device, rng):
    assert_same(em.indices((2, 3)), np.indices((2, 3)))
    for g, w in zip(em.indices((2, 3), sparse=True), np.indices((2, 3), sparse=True)):
        assert_same(g, w)
    for g, w in zip(em.ix_(em.asarray([0, 2]), em.asarray([True, False, True])),
                    np.ix_([0, 2], [True, False, True])):
        assert_same(g, w)
    for n, k, m in ((4, 0, None), (4, 1, 6), (5, -2, 3), (0, 0, None)):
        for fn in ("tril_indices", "triu_indices"):
            for g, w in zip(getattr(em, fn)(n, k, m), getattr(np, fn)(n, k, m)):
                assert_same(g, w)
    a = np.zeros((3, 5))
    for fn in ("tril_indices_from", "triu_indices_from"):
        for g, w in zip(getattr(em, fn)(to_em(a), 1), getattr(np, fn)(a, 1)):
            assert_same(g, w)
    for g, w in zip(em.diag_indices_from(em.zeros((3, 3, 3))), np.diag_indices_from(np.zeros((3, 3, 3)))):
        assert_same(g, w)
    for g, w in zip(em.mask_indices(3, em.triu, 1), np.mask_indices(3, np.triu, 1)):
        assert_same(g, w)
    flat = np.array([0, 5, 11, 7])
    for order in ("C", "F"):
        for g, w in zip(em.unravel_index(to_em(flat), (3, 4), order=order),
                        np.unravel_index(flat, (3, 4), order=order)):
            assert_same(g, w)
        mi = (np.array([0, 2, 1]), np.array([3, 0, 1]))
        assert_same(em.ravel_multi_index(tuple(to_em(i) for i in mi), (3, 4), order=order),
                    np.ravel_multi_index(mi, (3, 4), order=order))
    assert_same(em.ravel_multi_index((em.asarray([5]), em.asarray([-1])), (3, 4), mode=("clip", "wrap")),
                np.ravel_multi_index(([5], [-1]), (3, 4), mode=("clip", "wrap")))
    with pytest.raises(ValueError, match="out of bounds"):
        em.unravel_index(em.asarray([12]), (3, 4))
    with pytest.raises(ValueError, match="invalid entry in coordinates array"):
        em.ravel_multi_index((em.asarray([3]), em.asarray([0])), (3, 4))


def test_dtype_and_memory_questions(device):
    x = em.zeros((3, 4), dtype=em.float32)
    assert em.isscalar(3.0) and not em.isscalar(x) and not em.isscalar(em.asarray(1.0))
    assert em.iterable(x) and not em.iterable(em.asarray(1.0))
    assert (em.ndim(x), em.shape(x), em.size(x), em.size(x, 1)) == (2, (3, 4), 12, 4)
    assert em.issubdtype(x.dtype, np.floating) and em.promote_types("i2", "f4") == np.float32
    assert em.common_type(x, em.zeros(2, dtype=em.int8)) == np.common_type(np.zeros(1, np.float32), np.zeros(1, np.int8))
    assert em.min_scalar_type(em.asarray(300)) == np.min_scalar_type(300)
    assert em.isfortran(x.T) and not em.isfortran(x)
    assert em.may_share_memory(x, x[1:]) and not em.may_share_memory(x[:1], x[2:])
    assert em.shares_memory(x, x[::2]) and not em.may_share_memory(x, em.zeros(3))
    assert em.array_repr(em.arange(3)) == np.array_repr(np.arange(3))
    assert em.array2string(em.arange(3.0)) == np.array2string(np.arange(3.0))
    assert em.iscomplexobj(em.zeros(2, dtype=em.complex64)) and em.isrealobj(x)
    with em.printoptions(precision=2):
        assert "1.23" in repr(em.asarray([1.23456]))
    assert em.einsum_path("ij,jk->ik", x, x.T)[0] == np.einsum_path("ij,jk->ik", np.zeros((3, 4)), np.zeros((4, 3)))[0]


def test_require_and_as_arrays(device):
    x = em.arange(6.0).reshape(2, 3)
    assert em.require(x.T, requirements="C").flags["C_CONTIGUOUS"]
    assert em.require([1, 2], dtype=em.float32).dtype == np.float32
    with pytest.raises(ValueError, match="C-ordered"):
        em.require(x, requirements=["F"])
    assert_same(em.asanyarray([1, 2]), np.asanyarray([1, 2]))
    assert_same(em.asarray_chkfinite([1.0, 2.0]), np.asarray_chkfinite([1.0, 2.0]))
    with pytest.raises(ValueError, match="must not contain infs or NaNs"):
        em.asarray_chkfinite(em.asarray([1.0, np.inf]))
    assert_same(em.row_stack([em.arange(2), em.arange(2)]), np.vstack([np.arange(2), np.arange(2)]))


def test_trim_zeros_nd(device):
    """NumPy 2's n-d trim_zeros natively: the nonzero bounding box along every
    axis or one (negative too), all-zero and full arrays, AxisError."""
    a = np.zeros((5, 6, 4))
    a[1, 2, 1], a[3, 4, 2] = 1, -2
    for arr in (a, np.zeros((3, 4)), np.array([[0, 0], [0, 3]]), np.arange(12).reshape(3, 4),
                np.array([0, 0, 1, 2, 0])):
        for trim in ("fb", "f", "b", "bf"):
            for axis in (None, 0, -1):
                assert_same(em.trim_zeros(to_em(arr), trim, axis=axis),
                            np.trim_zeros(arr, trim, axis=axis))
    with pytest.raises(np.exceptions.AxisError):
        em.trim_zeros(to_em(a), axis=3)
