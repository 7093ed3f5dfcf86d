"""Indexing against NumPy: basic and advanced getitem/setitem, take/put,
nonzero and friends, on every dtype and the edge layouts, plus errors."""
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import ember as em
from helpers import ALL_DTYPES, assert_same, layouts, random_array, to_em

SHAPE = (4, 5, 3)



# Keys for a (4, 5, 3) array: advanced, mixed and basic.
KEYS = [
    (0,), (slice(None, None, -1),), (Ellipsis, 1), (None, 1, slice(1, 4, 2)),
    ([0, 2, -1],), ([[0, 1], [3, 2]],), ([0, 1], [4, 0]), ([0, 1], [4, 0], [2, 1]),
    (slice(None), [1, 3]), (slice(1, 3), [0, 4], [2, 0]), ([0, 1], slice(None), [1, 2]),
    (0, slice(None), [0, 1]), ([2], Ellipsis, [0]), (Ellipsis, [1, -1]),
    (None, [0, 1], None, [[1], [2]]), ([[0, 1]], [[1], [2]], slice(1, 3)),
    (1, [2, 3], slice(None, None, -1)), ([],), (True,), (False,), (Ellipsis, True),
    (slice(None), None, [0, 0, 1]), (np.array([3, 0]),), (np.int64(2), [1]),
]


def _masks(rng):
    a = rng.random(SHAPE) < 0.4
    return [(a,), (a[:, :, 0],), (slice(None), a[0]), (a[:, 0, 0], slice(1, None)), (Ellipsis, a[0, 0]),
            (a[:, :, 0], [2]), ([1, 2], a[0, :, 0])]


def _key_em(key, device):
    """The same key with NumPy arrays turned into ember arrays."""
    return tuple(em.asarray(k, device=device) if isinstance(k, np.ndarray) else k for k in key)


@pytest.mark.parametrize("kind", ["contiguous", "negative-strides", "transposed", "strided"])
def test_getitem_matches_numpy(device, rng, kind):
    a = dict(layouts(rng, SHAPE, "int32"))[kind] if kind != "transposed" else \
        random_array(rng, SHAPE[::-1], "int32").T
    x = to_em(a)
    for key in KEYS + _masks(rng):
        for k in (key, _key_em(key, device)):
            assert_same(x[k], a[key])


def test_setitem_matches_numpy(device, rng):
    for key in KEYS + _masks(rng):
        base = random_array(rng, (8, 10, 6), "float64")
        a = base[::-2, 1::2, ::-2]  # a negative-stride, non-contiguous view
        xb = em.asarray(base, device=device)
        x = xb[::-2, 1::2, ::-2]
        shape = a[key].shape
        vals = random_array(rng, shape, "float64")
        a[key] = vals
        x[key] = vals
        assert_same(xb, base)
        a[key] = 2.5
        x[key] = 2.5
        assert_same(xb, base)
        if len(shape) >= 1:  # broadcast a trailing row
            row = random_array(rng, shape[-1:], "int16")
            a[key] = row
            x[key] = em.asarray(row)
            assert_same(xb, base)


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=str)
def test_take_put_every_dtype(device, rng, dtype):
    for name, a in layouts(rng, (6, 7), dtype):
        x = to_em(a)
        if a.size:
            idx = rng.integers(-a.size, a.size, size=(3, 4))
            assert_same(em.take(x, em.asarray(idx)), np.take(a, idx))
            assert_same(x[[1, -1, 0]] if a.ndim else x[...], a[[1, -1, 0]] if a.ndim else a[...])
        if a.ndim == 2 and a.shape[0]:
            idx = rng.integers(0, a.shape[1], size=5)
            assert_same(em.take(x, idx, axis=1), np.take(a, idx, axis=1))
            assert_same(x[:, idx], a[:, idx])
        if name == "broadcast":
            continue
        b, y = a.copy(), to_em(a)
        if b.size:
            idx = rng.integers(-b.size, b.size, size=7)
            vals = random_array(rng, 7, dtype)
            np.put(b, idx, vals)
            em.put(y, em.asarray(idx), em.asarray(vals))
            assert_same(y, b)
        if b.ndim == 2 and b.shape[0]:
            m = rng.random(b.shape) < 0.5
            b[m] = b[0, 0]
            y[em.asarray(m)] = y[0, 0]
            assert_same(y, b)


def test_put_repeated_last_write_wins(device):
    x = em.zeros(5, dtype="int64", device=device)
    x[[1, 1, 1, 3]] = em.asarray([7, 8, 9, 4])
    assert_same(x, np.array([0, 9, 0, 4, 0]))
    em.put(x, [0, 0], [5, 6])
    assert x[0].item() == 6
    x = em.zeros(4, device=device)
    em.put(x, [0, 1, 2, 3], [1.0, 2.0])  # values repeat
    assert_same(x, np.array([1.0, 2.0, 1.0, 2.0]))


def test_scatter_into_a_large_array_keeps_last_write(device):
    # Many targets and few positions: the CUDA scatter compares positions
    # instead of keeping one winner slot per target; the rule is the same.
    x = em.zeros((2**26 + 8,), dtype="int8", device=device)
    x[em.asarray([5, 2**26 + 7, 5, -1, 9])] = em.asarray([1, 2, 3, 4, 5], dtype="int8")
    got = x[em.asarray([5, 9, 2**26 + 7, 0])].get().tolist()
    assert got == [3, 5, 4, 0]
    with pytest.raises(IndexError, match="index 67108872 is out of bounds for axis 0 with size 67108872"):
        x[em.asarray([0, 2**26 + 8])] = 1
    assert x[0].item() == 0  # nothing written before the bad index was found


def test_setitem_casts_values(device):
    x = em.zeros(4, dtype="int32", device=device)
    x[[0, 2]] = em.asarray([1.9, -2.7])
    assert_same(x, np.array([1, 0, -2, 0], dtype=np.int32))
    with pytest.raises(OverflowError):
        x[[1]] = 2 ** 40
    x[[1]] = 3
    assert_same(x, np.array([1, 3, -2, 0], dtype=np.int32))


def test_large_gather_threaded(device, rng):
    a = rng.random(1_000_003)
    idx = rng.integers(-a.size, a.size, size=300_000)
    x = em.asarray(a, device=device)
    assert_same(x[em.asarray(idx)], a[idx])
    assert_same(x.reshape(1000003, 1)[idx, 0], a[idx])
    m = a < 0.3
    assert_same(x[em.asarray(m)], a[m])
    b = a.copy()
    b[m] = -1
    x[em.asarray(m)] = -1
    assert_same(x, b)
    with pytest.raises(IndexError, match="index 1000003 is out of bounds for axis 0 with size 1000003"):
        x[em.asarray(np.r_[idx, a.size])]


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=str)
def test_nonzero_every_dtype(device, rng, dtype):
    for name, a in layouts(rng, (5, 6), dtype):
        if a.ndim == 0:
            with pytest.raises(ValueError, match="nonzero on 0d arrays"):
                em.nonzero(to_em(a))
            assert_same(em.argwhere(to_em(a)), np.argwhere(a))
            continue
        x = to_em(a)
        for g, w in zip(em.nonzero(x), np.nonzero(a)):
            assert_same(g, w)
        assert_same(em.argwhere(x), np.argwhere(a))
        assert_same(em.flatnonzero(x), np.flatnonzero(a))
        assert_same(x.nonzero()[0], a.nonzero()[0])


def _truths(rng, shape):
    """All-false, all-true, half and sparse truths of shape (bool)."""
    return {"none": np.zeros(shape, bool), "all": np.ones(shape, bool),
            "half": rng.random(shape) < 0.5, "sparse": rng.random(shape) < 0.01}


@pytest.mark.parametrize("dtype", ["bool", "int8", "float32", "float64", "complex64"])
def test_compaction_edges(device, rng, dtype):
    """nonzero/argwhere/flatnonzero/compress/extract/x[mask] against NumPy: empty, one
    element, across the kernels' 4096-element tiles, n-d (the coordinates stepped in C
    order within a tile), non-contiguous and reversed inputs, every kind of truth."""
    for shape in [(0,), (1,), (4097,), (3, 0, 2), (37, 129), (5, 7, 131)]:
        for name, t in _truths(rng, shape).items():
            a = (random_array(rng, shape, dtype) * t).astype(dtype) if dtype != "bool" else t
            views = {"c": a, "rev": a[::-1]} if a.ndim == 1 else \
                {"c": a, "T": a.T, "rev": a[::-1, ..., ::-2]}
            for vname, v in views.items():
                x = em.asarray(np.ascontiguousarray(a), device=device)
                x = x[::-1] if vname == "rev" and a.ndim == 1 else \
                    x.T if vname == "T" else x[::-1, ..., ::-2] if vname == "rev" else x
                for g, w in zip(em.nonzero(x), np.nonzero(v)):
                    assert_same(g, w)
                assert_same(em.argwhere(x), np.argwhere(v))
                assert_same(em.flatnonzero(x), np.flatnonzero(v))
                m = t if vname == "c" else (v != 0)
                xm = em.asarray(m, device=device)
                if vname == "c":
                    assert_same(x[xm], v[m])
                assert_same(em.extract(xm, x), np.extract(m, v))
                c1 = m.reshape(-1)[:max(0, v.size - 3)]  # a shorter condition
                assert_same(em.compress(em.asarray(c1, device=device), x), np.compress(c1, v))
                assert_same(em.extract(em.asarray(c1.astype(np.int16), device=device), x),
                            np.extract(c1.astype(np.int16), v))
                if v.ndim == 2:
                    c2 = m[0] if m.shape[0] else np.zeros(v.shape[1], bool)
                    assert_same(em.compress(em.asarray(c2, device=device), x, axis=1),
                                np.compress(c2, v, axis=1))
    z = np.array(3.5, dtype)
    assert_same(em.argwhere(em.asarray(z, device=device)), np.argwhere(z))
    assert_same(em.extract(em.asarray(np.array(True), device=device), em.asarray(z, device=device)),
                np.extract(np.array(True), z))


def test_nonzero_float_special_values(device):
    a = np.array([0.0, -0.0, np.nan, np.inf, 1e-300, 0.0], dtype=np.float64)
    assert_same(em.nonzero(em.asarray(a))[0], np.nonzero(a)[0])
    c = np.array([0j, 1j, -0.0 + 0j, 1 + 0j], dtype=np.complex64)
    assert_same(em.nonzero(em.asarray(c))[0], np.nonzero(c)[0])


def test_nonzero_large_threaded(device, rng):
    a = (rng.random((700, 1001)) < 0.1).astype(np.uint8)
    x = em.asarray(a, device=device)
    for g, w in zip(em.nonzero(x), np.nonzero(a)):
        assert_same(g, w)
    assert_same(em.nonzero(x.T)[1], np.nonzero(a.T)[1])
    assert_same(em.where(x)[0], np.where(a)[0])


def test_take_along_axis_and_compress(device, rng):
    a = random_array(rng, (3, 4, 5), "float32")
    x = em.asarray(a, device=device)
    for axis in (0, 1, -1):
        i = np.argsort(a, axis=axis)[..., :2] if axis == -1 else np.argsort(a, axis=axis)
        assert_same(em.take_along_axis(x, em.asarray(i), axis), np.take_along_axis(a, i, axis))
    i = np.array([3, 0, 59])
    assert_same(em.take_along_axis(x, em.asarray(i), None), np.take_along_axis(a, i, None))
    c = np.array([True, False, True])
    assert_same(em.compress(c, x, axis=0), np.compress(c, a, axis=0))
    assert_same(em.compress(c, x), np.compress(c, a))
    assert_same(em.extract(a > 0, x), np.extract(a > 0, a))
    for mode in ("wrap", "clip"):
        assert_same(em.take(x, [-7, 99], axis=1, mode=mode), np.take(a, [-7, 99], axis=1, mode=mode))


def test_index_errors(device):
    x = em.asarray(np.arange(20).reshape(4, 5), device=device)
    with pytest.raises(IndexError, match="index 10 is out of bounds for axis 0 with size 4"):
        x[[0, 10]]
    with pytest.raises(IndexError, match="index -6 is out of bounds for axis 1 with size 5"):
        x[:, [-6]]
    with pytest.raises(IndexError, match="index 7 is out of bounds for axis 1 with size 5"):
        x[[1], [7]]
    with pytest.raises(IndexError, match="index 5 is out of bounds for axis 1 with size 5"):
        x[[1], [5]] = 3
    with pytest.raises(IndexError, match="index 20 is out of bounds for axis 0 with size 20"):
        em.take(x, [20])
    with pytest.raises(IndexError, match="index 9 is out of bounds for axis 1 with size 5"):
        em.take(x, [9], axis=1)
    with pytest.raises(IndexError, match="shape mismatch: indexing arrays could not be broadcast"):
        x[[0, 1], [0, 1, 2]]
    with pytest.raises(IndexError, match="boolean index did not match indexed array along axis 0; "
                                         "size of axis is 4 but size of corresponding boolean axis is 3"):
        x[np.array([True, False, True])]
    with pytest.raises(IndexError, match="too many indices for array: array is 2-dimensional, but 3"):
        x[[0], 0, 0]
    with pytest.raises(IndexError, match="only integers, slices"):
        x[[0.5]]
    with pytest.raises(IndexError, match="only integers, slices"):
        x["a"]
    with pytest.raises(IndexError, match="arrays used as indices must be of integer"):
        x[np.array([1.0])]
    with pytest.raises(IndexError, match="a single ellipsis"):
        x[..., [0], ...]
    with pytest.raises(ValueError, match="could not be broadcast"):
        x[[0, 1]] = em.asarray(np.ones((3, 5)))
    with pytest.raises(ValueError, match="read-only"):
        em.broadcast_to(x[0], (3, 5))[[0]] = 1
    with pytest.raises(np.exceptions.AxisError, match="axis 2 is out of bounds"):
        em.take(x, [0], axis=2)
    # still working afterwards
    assert_same(x[[3, 0], [4, 0]], np.array([19, 0]))


def test_index_values_near_int64_limits(device):
    x = em.asarray(np.arange(5.0), device=device)
    big = np.iinfo(np.int64).max
    small = np.iinfo(np.int64).min
    with pytest.raises(IndexError, match=f"index {big} is out of bounds for axis 0 with size 5"):
        x[np.array([big])]
    with pytest.raises(IndexError, match=f"index {small} is out of bounds for axis 0 with size 5"):
        x[np.array([0, small])]
    with pytest.raises(IndexError, match=f"index {small} is out of bounds"):
        em.take(x, [small])
    with pytest.raises(IndexError, match=f"index {big} is out of bounds"):
        x[[big]] = 1.0
    with pytest.raises(IndexError):
        x[2 ** 63]
    assert_same(x[np.array([-5, 4], dtype=np.int8)], np.array([0.0, 4.0]))
    assert_same(x[np.array([4], dtype=np.uint64)], np.array([4.0]))


# ---- property test: random index tuples ------------------------------------------------

@st.composite
def _shape_and_key(draw):
    shape = tuple(draw(st.lists(st.integers(0, 4), min_size=0, max_size=4)))
    items, dim, ell = [], 0, False
    for _ in range(draw(st.integers(0, 5))):
        kind = draw(st.sampled_from(["int", "slice", "none", "ellipsis", "intarr", "bool"]))
        n = shape[dim] if dim < len(shape) else 0
        if kind == "int" and dim < len(shape) and n:
            items.append(draw(st.integers(-n, n - 1)))
            dim += 1
        elif kind == "slice":
            items.append(slice(draw(st.none() | st.integers(-6, 6)), draw(st.none() | st.integers(-6, 6)),
                               draw(st.none() | st.sampled_from([-3, -2, -1, 1, 2, 3]))))
            dim += 1
        elif kind == "none":
            items.append(None)
        elif kind == "ellipsis" and not ell:
            items.append(Ellipsis)
            ell = True
        elif kind == "intarr" and n:
            size = draw(st.sampled_from([(2,), (1,), (2, 1), (0,)]))
            items.append(np.array(draw(st.lists(st.integers(-n, n - 1), min_size=int(np.prod(size)),
                                                max_size=int(np.prod(size))))).reshape(size).astype(np.int64))
            dim += 1
        elif kind == "bool":
            k = draw(st.integers(0, 2))
            mshape = shape[dim:dim + k] if dim + k <= len(shape) else ()
            seed = draw(st.integers(0, 2 ** 16))
            items.append(np.random.default_rng(seed).random(mshape) < 0.5 if mshape or k == 0
                         else np.bool_(True))
            dim += len(mshape)
    return shape, tuple(items)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_shape_and_key())
def test_random_index_tuples(shape_key):
    shape, key = shape_key
    a = np.arange(int(np.prod(shape)), dtype=np.int64).reshape(shape)
    x = em.asarray(a)
    try:
        want = a[key]
    except IndexError:
        with pytest.raises(IndexError):
            x[key]
        return
    got = x[key]
    if not isinstance(got, em.ndarray):
        got = em.asarray(got)
    assert_same(got, want)
    b = a.copy()
    vals = -np.arange(np.asarray(want).size, dtype=np.int64).reshape(np.shape(want)) - 1
    b[key] = vals
    x[key] = em.asarray(vals)
    # with repeated indices the winner is the last write in both
    assert_same(x, b)


def test_advanced_placement_and_empty_cases(device):
    """Where NumPy puts the indexed dims, and its leniency for empty masks (found by the
    property test)."""
    cases = [((5, 2, 3), (slice(None), [0], Ellipsis, [0, 1])),  # empty Ellipsis still separates
             ((5, 2, 3), (slice(None), [0], [0, 1], Ellipsis)),
             ((1,), (slice(None), False, Ellipsis, False)),
             ((3, 2), (Ellipsis, np.zeros(0, bool))),  # an empty mask axis matches any length
             ((3, 2), (np.zeros((3, 0), bool),)),
             ((2, 3), (0, Ellipsis, [1, 2]))]
    for shape, key in cases:
        a = np.arange(int(np.prod(shape))).reshape(shape)
        assert_same(em.asarray(a, device=device)[key], a[key])
    x = em.zeros((0, 0, 1, 0), device=device)
    with pytest.raises(IndexError, match="index 0 is out of bounds for axis 3 with size 0"):
        x[np.zeros(0, bool), :, ..., 0]


def test_plain_list_keys(device):
    """A bare list key takes a C fast path when it holds ints; others go through Python."""
    a = np.arange(12.0).reshape(4, 3)
    x = em.asarray(a, device=device)
    for key in ([3, -4, 1], [[0, 1], [2, 3]], [True, False, True, True], [], [np.int8(2)]):
        assert_same(x[key], a[key])
    with pytest.raises(IndexError, match="only integers, slices"):
        x[[1.5]]
    with pytest.raises(ValueError, match="inhomogeneous"):
        x[[[1], [2, 3]]]
    with pytest.raises(IndexError, match="index 4 is out of bounds for axis 0 with size 4"):
        x[[0, 4]]
    assert_same(x[[0, 3]], a[[0, 3]])


def test_mask_select_entry():
    """_ember._mask_select (em_mask_select: x[mask] in one compaction on a device;
    on the CPU a count pass and a branchless compaction over thread chunks):
    C order of the selected elements, every element size, any mask dtype's truth,
    and its shape/layout errors."""
    import ember._ember as E
    rng = np.random.default_rng(11)
    for dt in ("bool", "int8", "float16", "float32", "complex128"):
        for shape in ((1,), (37,), (5, 7, 9), (3, 0, 2)):
            a = (rng.normal(size=shape) * 3).astype(dt)
            m = rng.random(shape) < 0.4
            got = E._mask_select(em.asarray(a), em.asarray(m))
            assert got.dtype == a.dtype
            np.testing.assert_array_equal(got.get(), a[m])
    w = np.array([0.0, 2.0, np.nan, 0.0])  # a float mask: its truth (NaN is true)
    np.testing.assert_array_equal(E._mask_select(em.arange(4), em.asarray(w)).get(), [1, 2])
    with pytest.raises(ValueError, match="shape"):
        E._mask_select(em.arange(4), em.asarray([True, False]))
    with pytest.raises(ValueError, match="C-contiguous"):
        E._mask_select(em.arange(8).reshape(2, 4).T, em.ones((4, 2), dtype=bool))


@pytest.mark.parametrize("dt", ["bool", "int16", "float32", "int64", "complex128"])
def test_mask_select_large(dt):
    """Large enough for the CPU's parallel chunks (>= 65536 elements): each
    chunk compacts to its own offset, so trues bunched in one chunk, none at
    a chunk's end, all and none, and a strided or reversed mask (its truth
    gathered block by block) must all land in C order with nothing
    overwritten at a chunk's edge."""
    import ember._ember as E
    rng = np.random.default_rng(12)
    n = 300_007
    a = (rng.normal(size=n) * 100).astype(dt)
    x = em.asarray(a)
    masks = [rng.random(n) < 0.5, np.zeros(n, bool), np.ones(n, bool),
             np.arange(n) < 1000, np.arange(n) >= n - 3, (np.arange(n) % 37500) < 37000]
    for m in masks:
        np.testing.assert_array_equal(E._mask_select(x, em.asarray(m)).get(), a[m])
        np.testing.assert_array_equal(em.compress(em.asarray(m), x).get(), np.compress(m, a))
    big = rng.random(2 * n) < 0.3  # a strided mask, and a reversed one, of an int dtype
    np.testing.assert_array_equal(E._mask_select(x, em.asarray(big)[::2]).get(), a[big[::2]])
    w = (rng.random(n) < 0.5).astype(np.int32)[::-1]
    np.testing.assert_array_equal(E._mask_select(x, em.asarray(w)).get(), a[w != 0])
    a2 = a[: 512 * 513].reshape(512, 513)
    m2 = rng.random((513, 512)).T < 0.5  # a 2-d transposed mask
    np.testing.assert_array_equal(em.asarray(a2)[em.asarray(m2)].get(), a2[m2])
    np.testing.assert_array_equal(em.extract(em.asarray(m2), em.asarray(a2)).get(),
                                  np.extract(m2, a2))


@pytest.mark.parametrize("dt", ["int32", "float32", "uint32", "int64", "float64", "complex64",
                                "int8", "float16"])
def test_mask_select_every_lane_pattern(dt):
    """The CPU's AVX2 compaction packs 8 values (4 a register for 8-byte ones)
    by a table of the 256 truth patterns: every pattern, in every position of
    a long mask, and every length 0..19 (whole groups of 8 and a scalar tail),
    land in order with nothing lost or repeated past a kept lane."""
    import ember._ember as E
    pats = np.arange(256, dtype=np.uint8)
    m = ((pats[:, None] >> np.arange(8)) & 1).astype(bool).ravel()  # 256 groups of 8
    m = np.concatenate([m, m[::-1], [True, False, True]])
    a = np.arange(1, m.size + 1).astype(dt)
    x = em.asarray(a)
    np.testing.assert_array_equal(E._mask_select(x, em.asarray(m)).get(), a[m])
    np.testing.assert_array_equal(em.extract(em.asarray(m), x).get(), np.extract(m, a))
    for n in range(20):
        mm = m[5:5 + n]
        np.testing.assert_array_equal(em.compress(em.asarray(mm), x[:n]).get(), a[:n][mm])
    nan_mask = np.where(m, np.nan, 0.0)  # a float mask's truth (NaN is true) through the table
    np.testing.assert_array_equal(E._mask_select(x, em.asarray(nan_mask)).get(), a[m])
