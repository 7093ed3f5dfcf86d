"""One test per class of mistake: the exception type, a message that says
what was wrong, and that Ember keeps working afterwards."""
import re

import numpy as np
import pytest

import ember as em

SUPPORTED = "supported: bool, int8..int64, uint8..uint64, float16, float32, float64"


def still_works():
    x = em.asarray(np.arange(6.0).reshape(2, 3))
    np.testing.assert_array_equal(((x + 1) * 2).get(), (np.arange(6.0).reshape(2, 3) + 1) * 2)


@pytest.mark.parametrize("dtype,shown", [(object, "dtype('O')"), ("str", "dtype('<U')"),
                                         ("float128", "dtype('float128')"),
                                         ("datetime64[s]", "dtype('<M8[s]')")])
def test_unsupported_dtype(device, dtype, shown):
    want = re.escape(f"dtype {shown} is not supported by ember ({SUPPORTED}")
    with pytest.raises(TypeError, match=want):
        em.zeros(3, dtype=dtype)
    with pytest.raises(TypeError, match="is not supported by ember"):
        em.ones(3).astype(dtype)
    still_works()


def test_unknown_dtype_name(device):
    with pytest.raises(TypeError, match="data type 'floatx' not understood"):
        em.zeros(3, dtype="floatx")
    with pytest.raises(TypeError, match="dtype\\('<U1'\\) is not supported"):
        em.asarray(np.array(["a"]))
    with pytest.raises(TypeError, match="dtype\\('<U21'\\) is not supported"):
        em.asarray([1, "a"])
    still_works()


@pytest.mark.parametrize("shape,msg", [
    (-1, "negative dimensions are not allowed \\(dimension 0 is -1\\)"),
    ((2, -3), "negative dimensions are not allowed \\(dimension 1 is -3\\)"),
    ((2**40, 2**40), "array size overflows"),
    ((1,) * 33, "maximum supported dimension for an ndarray is 32, found 33"),
])
def test_impossible_shape(device, shape, msg):
    with pytest.raises(ValueError, match=msg):
        em.zeros(shape)
    still_works()


def test_32_dims_is_the_limit(device):
    assert em.zeros((1,) * 32).ndim == 32
    with pytest.raises(ValueError, match="maximum supported dimension.* is 32, found 33"):
        em.zeros((1,) * 32).reshape((1,) * 33)


def test_reshape_mismatch(device):
    x = em.ones((2, 3))
    with pytest.raises(ValueError, match="cannot reshape array of size 6 into shape of size 4"):
        x.reshape(2, 2)
    with pytest.raises(ValueError, match="cannot reshape array of size 6"):
        x.reshape(4, -1)
    with pytest.raises(ValueError, match="can only specify one unknown dimension"):
        x.reshape(-1, -1)
    assert x.reshape(3, -1).shape == (3, 2)
    still_works()


def test_out_of_memory_is_a_memory_error(device):
    with pytest.raises(em.OutOfMemoryError,
                       match="out of memory allocating 1125899906842624 bytes"):
        em.empty(2**50, dtype=np.uint8)
    assert issubclass(em.OutOfMemoryError, MemoryError)
    assert issubclass(em.OutOfMemoryError, em.EmberError)
    still_works()


@pytest.mark.parametrize("key,exc,msg", [
    (5, IndexError, "index 5 is out of bounds for axis 0 with size 3"),
    (-4, IndexError, "index -4 is out of bounds for axis 0 with size 3"),
    ((0, 0), IndexError, "too many indices for array: array is 1-dimensional, but 2 were indexed"),
    (1.5, IndexError, "only integers, slices"),
    ("a", IndexError, "only integers, slices"),
])
def test_bad_index(device, key, exc, msg):
    x = em.zeros(3)
    with pytest.raises(exc, match=msg):
        x[key]
    with pytest.raises(exc, match=msg):
        x[key] = 1.0
    still_works()


def test_out_shape_mismatch(device):
    with pytest.raises(ValueError,
                       match="could not be broadcast together: dimension 0 has sizes 3 and 4"):
        em.add(em.ones(3), em.ones(3), out=em.zeros(4))
    with pytest.raises(TypeError, match="out must be an ember.ndarray, not numpy.ndarray"):
        em.add(em.ones(3), em.ones(3), out=np.zeros(3))
    with pytest.raises(ValueError, match="has 1 output, out= has 2"):
        em.add(em.ones(3), em.ones(3), out=(em.zeros(3), em.zeros(3)))
    still_works()


def test_out_casting(device):
    out = em.zeros(3, dtype=np.int32)
    with pytest.raises(TypeError, match="Cannot cast ufunc 'add' output from dtype\\('float64'\\) "
                                        "to dtype\\('int32'\\) with casting rule 'same_kind'"):
        em.add(em.ones(3), em.ones(3), out=out)
    assert out.tolist() == [0, 0, 0]  # untouched
    with pytest.raises(TypeError, match="Cannot cast"):
        out += 1.5
    still_works()


def test_unknown_device(device):
    with pytest.raises(em.DeviceError, match="no device cuda:99"):
        em.asarray([1.0], device="cuda:99")
    with pytest.raises(ValueError, match="unknown device 'gpu'"):
        em.Device("gpu")
    still_works()


@pytest.mark.parametrize("obj", [[[1, 2], [3]], [1, [2]], [[[1]], [2]]])
def test_ragged_nested_lists(device, obj):
    with pytest.raises(ValueError, match="setting an array element with a sequence.*inhomogeneous"):
        em.asarray(obj)
    still_works()


@pytest.mark.parametrize("sa,sb", [((3,), (4,)), ((2, 3), (3, 2)), ((2, 1, 3), (4, 2))])
def test_non_broadcastable(device, sa, sb):
    with pytest.raises(ValueError, match="operands could not be broadcast together"):
        em.ones(sa) * em.ones(sb)
    with pytest.raises(ValueError, match="cannot broadcast (dimension|a 3-dimensional array)"):
        em.ones(sa)._broadcast_to(sb)
    still_works()


def test_write_to_read_only(device):
    b = em.ones(3)._broadcast_to((2, 3))
    assert not b.flags.writeable
    with pytest.raises(ValueError, match="assignment destination is read-only"):
        b[0, 0] = 5
    with pytest.raises(ValueError, match="assignment destination is read-only"):
        b[...] = 1
    with pytest.raises(ValueError, match="output array is read-only"):
        em.add(1, 2, out=b)
    with pytest.raises(ValueError, match="read-only"):
        b += 1
    if b.device.kind == "cpu":  # device arrays give NumPy a writeable host copy
        assert not np.asarray(b).flags.writeable  # the host view stays read-only
        with pytest.raises(ValueError, match="read-only"):
            np.asarray(b)[0, 0] = 5
    assert b.tolist() == [[1.0] * 3] * 2
    still_works()


def test_scalar_conversion_mistakes(device):
    x = em.ones(3)
    with pytest.raises(ValueError, match="can only convert an array of size 1 to a Python scalar"):
        x.item()
    with pytest.raises(ValueError,
                       match="truth value of an array with more than one element is ambiguous"):
        bool(x)
    with pytest.raises(TypeError, match="only size-1 arrays can be converted to Python float"):
        float(x)
    with pytest.raises(TypeError, match="len\\(\\) of unsized object"):
        len(em.asarray(1.0))
    with pytest.raises(TypeError, match="iteration over a 0-d array"):
        iter(em.asarray(1.0))
    still_works()


def test_python_int_out_of_range(device):
    with pytest.raises(OverflowError, match="Python integer 300 out of bounds for int8"):
        em.ones(3, dtype=np.int8) + 300
    with pytest.raises(OverflowError, match="Python integer 256 out of bounds for uint8"):
        em.ones(3, dtype=np.uint8) + 256
    still_works()


def test_bad_ufunc_inputs(device):
    with pytest.raises(TypeError, match="ufunc 'invert' not supported for the input type float64"):
        em.invert(em.ones(3))
    with pytest.raises(TypeError, match="missing 1 required positional argument"):
        em.add(em.ones(3))
    with pytest.raises(ValueError, match="repeated axis 0 in transpose"):
        em.ones((2, 2)).transpose(0, 0)
    still_works()
