"""Shape manipulation against NumPy on every dtype and the edge layouts,
plus views-vs-copies and bad input."""
import numpy as np
import pytest

import ember as em
from helpers import ALL_DTYPES, assert_same, layouts, random_array, to_em

SHAPE = (3, 4, 2)


def _cases():
    """(name, em fn, np fn) for functions of one array of shape SHAPE (any layout)."""
    return [
        ("reshape", lambda m, a: m.reshape(a, (-1, 2)), None),
        ("ravel", lambda m, a: m.ravel(a), None),
        ("transpose", lambda m, a: m.transpose(a), None),
        ("transpose-axes", lambda m, a: m.transpose(a, (1, 2, 0)), None),
        ("permute_dims", lambda m, a: m.permute_dims(a, (2, 0, 1)), lambda a: np.transpose(a, (2, 0, 1))),
        ("swapaxes", lambda m, a: m.swapaxes(a, 0, -1), None),
        ("moveaxis", lambda m, a: m.moveaxis(a, 0, -1), None),
        ("moveaxis-multi", lambda m, a: m.moveaxis(a, (0, 2), (1, 0)), None),
        ("rollaxis", lambda m, a: m.rollaxis(a, 2, 0), None),
        ("squeeze", lambda m, a: m.squeeze(m.expand_dims(a, (0, 3))), None),
        ("expand_dims", lambda m, a: m.expand_dims(a, (0, -1)), None),
        ("broadcast_to", lambda m, a: m.broadcast_to(a, (2,) + a.shape), None),
        ("flip", lambda m, a: m.flip(a), None),
        ("flip-axis", lambda m, a: m.flip(a, 1), None),
        ("flip-tuple", lambda m, a: m.flip(a, (0, -1)), None),
        ("fliplr", lambda m, a: m.fliplr(a), None),
        ("flipud", lambda m, a: m.flipud(a), None),
        ("concatenate", lambda m, a: m.concatenate([a, a[:1]], axis=0), None),
        ("concatenate-1", lambda m, a: m.concatenate([a, a], axis=-1), None),
        ("concatenate-None", lambda m, a: m.concatenate([a, a], axis=None), None),
        ("stack", lambda m, a: m.stack([a, a, a], axis=1), None),
        ("stack-last", lambda m, a: m.stack([a, a], axis=-1), None),
        ("hstack", lambda m, a: m.hstack([a, a]), None),
        ("vstack", lambda m, a: m.vstack([a, a]), None),
        ("dstack", lambda m, a: m.dstack([a, a]), None),
        ("roll", lambda m, a: m.roll(a, 5), None),
        ("roll-axes", lambda m, a: m.roll(a, (1, -3), axis=(0, 1)), None),
        ("roll-neg", lambda m, a: m.roll(a, -7, axis=1), None),
        ("repeat", lambda m, a: m.repeat(a, 2), None),
        ("repeat-axis", lambda m, a: m.repeat(a, [1, 0, 2], axis=0), None),
        ("tile", lambda m, a: m.tile(a, (2, 1, 3)), None),
        ("tile-more", lambda m, a: m.tile(a, (2, 1, 1, 2)), None),
        ("ascontiguousarray", lambda m, a: m.ascontiguousarray(a), None),
        ("atleast_3d", lambda m, a: m.atleast_3d(a), None),
        ("copy", lambda m, a: m.copy(a), None),
    ]


def _shaped_layouts(rng, dtype):
    for name, a in layouts(rng, SHAPE, dtype):
        if a.shape == SHAPE:
            yield name, a
        elif name == "empty":
            yield name, a  # (0, 4, 2)


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=str)
def test_functions_match_numpy(device, rng, dtype):
    for lname, a in _shaped_layouts(rng, dtype):
        x = to_em(a)
        for name, f, g in _cases():
            if name in ("repeat-axis", "roll-axes") and a.shape[0] != 3:
                continue
            want = g(a) if g else f(np, a)
            assert_same(f(em, x), want)


def test_splits(device, rng):
    a = random_array(rng, (6, 4, 5), "int16")
    x = em.asarray(a, device=device)
    for ours, theirs in [
        (em.split(x, 3), np.split(a, 3)), (em.split(x, [1, 4], axis=2), np.split(a, [1, 4], axis=2)),
        (em.array_split(x, 4, axis=2), np.array_split(a, 4, axis=2)),
        (em.array_split(x, [2, 10]), np.array_split(a, [2, 10])),
        (em.hsplit(x, 2), np.hsplit(a, 2)), (em.vsplit(x, [5]), np.vsplit(a, [5])),
        (em.dsplit(x, 5), np.dsplit(a, 5)), (em.unstack(x, axis=1), tuple(np.moveaxis(a, 1, 0))),
    ]:
        assert len(ours) == len(theirs)
        for o, t in zip(ours, theirs):
            assert_same(o, t)


def test_views_share_memory(device):
    x = em.asarray(np.arange(24.0).reshape(2, 3, 4), device=device)
    for v in (em.flip(x, 1), em.swapaxes(x, 0, 2), em.moveaxis(x, 0, -1), em.ravel(x),
              em.expand_dims(x, 1), em.squeeze(x[:1]), em.split(x, 2, axis=2)[1], x.mT,
              em.reshape(x, (6, 4)), em.atleast_3d(x)):
        before = x.get().copy()
        v[...] = -1
        assert (x.get() == -1).sum() == v.size
        x[...] = em.asarray(before)
    f = x.flatten()
    f[...] = 7
    assert x.get()[0, 0, 0] == 0  # flatten copies
    assert_same(x.ravel(), np.arange(24.0))
    assert_same(x.squeeze(), np.arange(24.0).reshape(2, 3, 4))
    assert_same(x.swapaxes(0, 1), np.arange(24.0).reshape(2, 3, 4).swapaxes(0, 1))
    assert_same(x.repeat(2, axis=0), np.arange(24.0).reshape(2, 3, 4).repeat(2, axis=0))


def test_join_dtype_promotion_and_out(device):
    a = em.asarray(np.arange(3, dtype=np.int8), device=device)
    b = em.asarray(np.arange(2, dtype=np.float32), device=device)
    assert_same(em.concatenate([a, b]), np.concatenate([np.arange(3, dtype=np.int8),
                                                        np.arange(2, dtype=np.float32)]))
    assert_same(em.concat([a, a], axis=0), np.concatenate([np.arange(3, dtype=np.int8)] * 2))
    assert_same(em.concatenate([a, b], dtype="float64"), np.array([0, 1, 2, 0, 1], dtype=np.float64))
    out = em.zeros(5, dtype="int64", device=device)
    r = em.concatenate([a, a[:2]], out=out)
    assert r is out
    assert_same(out, np.array([0, 1, 2, 0, 1]))
    s = em.stack([a, a], axis=1)
    assert_same(s, np.stack([np.arange(3, dtype=np.int8)] * 2, axis=1))
    arrays = em.broadcast_arrays(em.asarray([[1], [2]]), em.asarray([1, 2, 3]))
    assert [t.shape for t in arrays] == [(2, 3), (2, 3)]
    assert_same(arrays[0], np.broadcast_to([[1], [2]], (2, 3)))
    assert em.broadcast_shapes((2, 1), (3,), ()) == (2, 3)


def test_astype_function(device):
    x = em.asarray(np.array([1.7, -2.2]), device=device)
    assert_same(em.astype(x, "int32"), np.array([1, -2], dtype=np.int32))
    assert em.astype(x, "float64", copy=False) is x
    y = em.astype(x, "float64")
    assert y is not x
    assert_same(y, np.array([1.7, -2.2]))


def test_bad_input(device):
    x = em.asarray(np.arange(6.0).reshape(2, 3), device=device)
    with pytest.raises(np.exceptions.AxisError, match="axis 2 is out of bounds for array of dimension 2"):
        em.flip(x, 2)
    with pytest.raises(np.exceptions.AxisError, match="out of bounds"):
        em.moveaxis(x, 0, 5)
    with pytest.raises(ValueError, match="repeated axis"):
        em.transpose(x, (0, 0))
    with pytest.raises(ValueError, match="axes don't match array"):
        em.transpose(x, (0,))
    with pytest.raises(ValueError, match="cannot select an axis to squeeze out which has size not equal to one"):
        em.squeeze(x, 0)
    with pytest.raises(ValueError, match="all the input array dimensions except for the concatenation axis "
                                         "must match exactly, but along dimension 1, the array at index 0 "
                                         "has size 3 and the array at index 1 has size 2"):
        em.concatenate([x, x[:, :2]], axis=0)
    with pytest.raises(ValueError, match="all the input arrays must have same number of dimensions"):
        em.concatenate([x, x[0]])
    with pytest.raises(ValueError, match="need at least one array to concatenate"):
        em.concatenate([])
    with pytest.raises(ValueError, match="zero-dimensional arrays cannot be concatenated"):
        em.concatenate([x[0, 0], x[0, 0]])
    with pytest.raises(ValueError, match="all input arrays must have the same shape"):
        em.stack([x, x[:1]])
    with pytest.raises(ValueError, match="array split does not result in an equal division"):
        em.split(x, 2, axis=1)
    with pytest.raises(ValueError, match="number sections must be larger than 0"):
        em.array_split(x, 0)
    with pytest.raises(ValueError, match="repeats may not contain negative values"):
        em.repeat(x, -1)
    with pytest.raises(ValueError, match="negative dimensions are not allowed"):
        em.tile(x, (-1, 2))
    with pytest.raises(ValueError, match="cannot reshape|cannot be reshaped|size"):
        em.reshape(x, (4, 2))
    with pytest.raises(ValueError, match="broadcast"):
        em.broadcast_to(x, (3, 3))
    with pytest.raises(ValueError, match="Input must be >= 2-d"):
        em.fliplr(x[0])
    with pytest.raises(ValueError, match="Input array must be at least 2-dimensional"):
        em.matrix_transpose(x[0])
    with pytest.raises(ValueError, match="matrix transpose with ndim < 2 is undefined"):
        x[0].mT
    with pytest.raises(TypeError, match="Cannot cast array data from dtype\\('float64'\\) to "
                                        "dtype\\('int8'\\) according to the rule 'same_kind'"):
        em.concatenate([x, x], dtype="int8")
    assert_same(em.flip(x, -1), np.arange(6.0).reshape(2, 3)[:, ::-1])  # still working


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=str)
def test_diff_every_dtype_layout(device, rng, dtype):
    for name, a in layouts(rng, (4, 5), dtype):
        if a.ndim == 0:
            with pytest.raises(ValueError, match="at least one dimensional"):
                em.diff(to_em(a))
            continue
        x = to_em(a)
        for n in (0, 1, 2):
            for axis in (-1, 0):
                assert_same(em.diff(x, n=n, axis=axis), np.diff(a, n=n, axis=axis))


def test_diff_prepend_append_and_errors(device, rng):
    a = random_array(rng, (3, 4), "float32")
    x = to_em(a)
    p = random_array(rng, (3, 2), "float32")
    assert_same(em.diff(x, axis=1, prepend=em.asarray(p), append=2.5),
                np.diff(a, axis=1, prepend=p, append=2.5))
    assert_same(em.diff(x, axis=0, prepend=1), np.diff(a, axis=0, prepend=1))
    assert_same(em.diff(em.asarray([True, False, False])), np.diff(np.array([True, False, False])))
    with pytest.raises(ValueError, match="order must be non-negative but got -1"):
        em.diff(x, n=-1)
    with pytest.raises(np.exceptions.AxisError):
        em.diff(x, axis=2)
    assert_same(em.diff(x), np.diff(a))  # still working
