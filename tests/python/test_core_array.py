"""The ndarray basics: attributes, host round trips, views, repr."""
import numpy as np
import pytest

import ember as em
from helpers import ALL_DTYPES, assert_same, layouts, random_array, to_em


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=str)
def test_round_trip_every_dtype(device, rng, dtype):
    for name, a in layouts(rng, (3, 5), dtype):
        x = to_em(a)
        assert x.shape == a.shape and x.dtype == a.dtype, name
        np.testing.assert_array_equal(x.get(), a, err_msg=name)
        np.testing.assert_array_equal(np.asarray(x), a, err_msg=name)


def test_attributes(device):
    x = em.zeros((2, 3, 4), dtype=em.float32)
    assert x.shape == (2, 3, 4) and x.ndim == 3 and x.size == 24
    assert x.itemsize == 4 and x.nbytes == 96 and x.strides == (48, 16, 4)
    assert x.dtype == np.float32 and isinstance(x.dtype, np.dtype)
    assert x.T.shape == (4, 3, 2) and x.T.strides == (4, 16, 48)
    assert x.flags.c_contiguous and not x.flags.f_contiguous
    assert x.device == em.get_device()


def test_views_share_memory(device):
    x = em.asarray(np.arange(12.0).reshape(3, 4), device=device)
    v = x[1:, ::-2]
    v[...] = -1
    want = np.arange(12.0).reshape(3, 4)
    want[1:, ::-2] = -1
    assert_same(x, want)


@pytest.mark.parametrize("shape,new", [((2, 6), (3, 4)), ((2, 6), (-1,)), ((24,), (2, 3, 4)),
                                       ((0, 3), (3, 0)), ((), (1, 1))])
def test_reshape(device, shape, new):
    a = np.arange(int(np.prod(shape)), dtype=np.int32).reshape(shape)
    assert_same(em.asarray(a).reshape(new), a.reshape(new))


def test_reshape_noncontiguous_copies(device):
    a = np.arange(24).reshape(4, 6)[:, ::2]
    assert_same(to_em(a).reshape(-1), a.reshape(-1))


def test_repr_matches_numpy(device):
    a = np.array([[1.5, 2.0], [3.0, -4.25]], dtype=np.float32)
    want = repr(a) if device.kind == "cpu" else repr(a)[:-1] + f", device='{device}')"
    assert repr(em.asarray(a)) == want
    assert str(em.asarray(a)) == str(a)


def test_scalar_conversions(device):
    x = em.asarray([3.5])
    assert float(x) == 3.5 and int(x) == 3 and bool(x) and complex(x) == 3.5
    assert em.asarray(7).item() == 7 and isinstance(em.asarray(7).item(), int)
    with pytest.raises(ValueError, match="ambiguous"):
        bool(em.ones(3))
    with pytest.raises(TypeError, match="size-1"):
        float(em.ones(3))


def test_tolist_and_iteration(device, rng):
    a = random_array(rng, (3, 2), np.int16)
    x = em.asarray(a)
    assert x.tolist() == a.tolist()
    assert [r.tolist() for r in x] == [r.tolist() for r in a]
    assert len(x) == 3
    with pytest.raises(TypeError):
        len(em.asarray(1.0))
