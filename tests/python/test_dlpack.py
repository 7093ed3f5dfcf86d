"""DLPack (both capsule kinds) and the CUDA array interface, against NumPy."""
import ctypes
import gc
import sys

import numpy as np
import pytest

import ember as em
from helpers import ALL_DTYPES, assert_same, layouts, random_array, to_em

pytestmark = pytest.mark.usefixtures("cpu_unless_device_param")


_capsule_name = ctypes.pythonapi.PyCapsule_GetName
_capsule_name.restype = ctypes.c_char_p
_capsule_name.argtypes = [ctypes.py_object]


def _cpu(device):
    return device.kind == "cpu"


def _same_memory(x, y):
    """Whether y views x's memory: the same address, or on OpenCL (where a
    DLPack round trip gives the cl_mem a second slot of Ember's, so another
    synthetic address) a write through y that x sees."""
    if x.device.kind != "opencl":
        return y._ptr == x._ptr
    idx = (0,) * x.ndim
    before = x.get()[idx]
    y[idx] = before + 1
    same = x.get()[idx] == before + 1
    y[idx] = before
    return bool(same)


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=str)
def test_numpy_consumes_ember_zero_copy(device, rng, dtype):
    for name, a in layouts(rng, (3, 4), dtype):
        x = to_em(a)
        y = np.from_dlpack(x, device="cpu")
        assert y.dtype == a.dtype and y.shape == a.shape, name
        np.testing.assert_array_equal(y, a, err_msg=name)
        if _cpu(device) and x.size:
            assert y.ctypes.data == x._ptr, name  # shares memory
            assert y.strides == x.strides, name


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=str)
def test_ember_consumes_numpy_zero_copy(device, rng, dtype):
    for name, a in layouts(rng, (3, 4), dtype):
        a = np.asarray(a)  # 0-d layouts come as NumPy scalars, which lack __dlpack__
        z = em.from_dlpack(a)
        assert z.device == em.Device("cpu")
        assert_same(z, a)
        if a.size:
            assert z._ptr == a.ctypes.data, name
        assert z.flags.writeable == a.flags.writeable, name  # NumPy's read-only flag honoured
        if a.size and a.flags.writeable:
            a[(0,) * a.ndim] = random_array(rng, (), dtype)
            np.testing.assert_array_equal(z.get(), a, err_msg=name)  # sees the write


def test_writes_are_shared_both_ways(device):
    x = em.arange(6.0).reshape(2, 3)
    y = np.from_dlpack(x, device="cpu")
    if _cpu(device):
        y[1, 2] = 42.0
        assert x[1, 2].item() == 42.0
    a = np.zeros(4, dtype=np.int32)
    z = em.from_dlpack(a)
    z[1] = 7
    assert a[1] == 7


def test_dlpack_device(device):
    x = em.ones(3)
    if _cpu(device):
        assert x.__dlpack_device__() == (1, 0)
    elif device.kind == "opencl":
        assert x.__dlpack_device__() == (4, device.id)  # kDLOpenCL
    else:
        assert x.__dlpack_device__() == (2, device.id)


def test_capsule_kinds_and_consumption():
    x = em.arange(5, dtype=em.float32)
    legacy = x.__dlpack__()
    versioned = x.__dlpack__(max_version=(1, 0))
    old = x.__dlpack__(max_version=(0, 8))
    assert _capsule_name(legacy) == b"dltensor"
    assert _capsule_name(versioned) == b"dltensor_versioned"
    assert _capsule_name(old) == b"dltensor"
    for cap, used in ((legacy, b"used_dltensor"), (versioned, b"used_dltensor_versioned")):
        y = em.from_dlpack(cap)
        assert y._ptr == x._ptr
        assert _capsule_name(cap) == used
        with pytest.raises(TypeError, match="consumed capsule cannot be used twice"):
            em.from_dlpack(cap)
    assert_same(em.from_dlpack(old), np.arange(5, dtype=np.float32))


@pytest.mark.parametrize("max_version", [None, (1, 0)])
def test_import_calls_deleter_when_view_dies(max_version):
    a = np.arange(10.0)
    before = sys.getrefcount(a)
    cap = a.__dlpack__() if max_version is None else a.__dlpack__(max_version=max_version)
    assert sys.getrefcount(a) == before + 1  # NumPy's manager holds a
    z = em.from_dlpack(cap)
    del cap
    v = z[2:5]
    del z
    gc.collect()
    assert sys.getrefcount(a) == before + 1  # the slice still keeps the memory
    assert v.tolist() == [2.0, 3.0, 4.0]
    del v
    gc.collect()
    assert sys.getrefcount(a) == before  # deleter ran exactly once


def test_export_keeps_array_alive_until_consumer_or_capsule_dies():
    x = em.arange(4.0)
    before = sys.getrefcount(x)
    cap = x.__dlpack__(max_version=(1, 0))
    assert sys.getrefcount(x) == before + 1
    del cap  # unconsumed capsule: its destructor runs the deleter
    assert sys.getrefcount(x) == before
    y = np.from_dlpack(x)
    assert sys.getrefcount(x) == before + 1
    del y
    gc.collect()
    assert sys.getrefcount(x) == before


def test_read_only():
    x = em.arange(4.0)
    x.setflags(write=False)
    y = np.from_dlpack(x)  # versioned: the READ_ONLY flag travels
    assert not y.flags.writeable
    assert y.ctypes.data == x._ptr
    with pytest.raises(BufferError, match="cannot export a read-only array as a legacy"):
        x.__dlpack__()
    z = em.from_dlpack(x)
    assert not z.flags.writeable
    with pytest.raises(ValueError, match="read-only"):
        z[0] = 1.0
    ro = np.arange(3.0)
    ro.flags.writeable = False
    assert not em.from_dlpack(ro).flags.writeable


def test_copy_argument(device):
    x = em.arange(6, dtype=em.int16)
    y = np.from_dlpack(x, copy=True, device="cpu")
    assert y.ctypes.data != x._ptr
    np.testing.assert_array_equal(y, np.arange(6, dtype=np.int16))
    a = np.arange(6.0)
    assert em.from_dlpack(a, copy=True)._ptr != a.ctypes.data
    assert em.from_dlpack(a, copy=False)._ptr == a.ctypes.data
    assert _same_memory(x, em.from_dlpack(x, copy=False))
    if _cpu(device):
        assert np.from_dlpack(x, copy=False).ctypes.data == x._ptr


class _LegacyProducer:
    """A producer from before DLPack 1.0: no max_version, copy or dl_device."""
    def __init__(self, a):
        self.a = a

    def __dlpack__(self, stream=None):
        return self.a.__dlpack__()

    def __dlpack_device__(self):
        return (1, 0)


def test_legacy_producer():
    a = np.arange(6, dtype=np.uint16)
    z = em.from_dlpack(_LegacyProducer(a))
    assert z._ptr == a.ctypes.data
    assert em.from_dlpack(_LegacyProducer(a), copy=False)._ptr == a.ctypes.data
    c = em.from_dlpack(_LegacyProducer(a), copy=True)
    assert c._ptr != a.ctypes.data
    assert_same(c, a)


def test_from_dlpack_device_argument(device):
    a = np.arange(5.0)
    z = em.from_dlpack(a, device=device)
    assert z.device == device
    assert_same(z, a)
    if not _cpu(device):
        with pytest.raises(ValueError, match="copy=False but the data is on cpu"):
            em.from_dlpack(a, device=device, copy=False)


def test_ember_round_trip_shares_memory(device, rng):
    for name, a in layouts(rng, (4, 5), np.float64):
        x = to_em(a)
        y = em.from_dlpack(x)
        assert y.device == x.device
        assert_same(y, a)
        if x.size and (x.device.kind != "opencl" or y.flags.writeable):
            assert _same_memory(x, y), name


def test_bad_arguments():
    x = em.arange(3.0)
    with pytest.raises(ValueError, match="stream must be None for CPU arrays"):
        x.__dlpack__(stream=1)
    with pytest.raises(BufferError, match=r"only the array's own device or the CPU \(1, 0\)"):
        x.__dlpack__(dl_device=(2, 0))
    with pytest.raises(TypeError, match="needs an object with __dlpack__ or a DLPack capsule"):
        em.from_dlpack([1, 2, 3])
    unaligned = np.frombuffer(bytearray(17), dtype=np.float64, count=2, offset=1)
    with pytest.raises(BufferError, match="is not aligned to 8 bytes as float64 needs"):
        em.from_dlpack(unaligned)
    with pytest.raises(TypeError, match="expected a DLPack capsule"):
        em._ember._dlpack_import(ctypes.pythonapi.PyCapsule_New)  # not a capsule
    assert_same(x + 1, np.arange(3.0) + 1)  # still working


class _FakeCAI:
    """A host object pretending to hold CUDA memory."""
    def __init__(self, a):
        self.a = a
        self.__cuda_array_interface__ = {"shape": a.shape, "typestr": a.dtype.str,
                                         "data": (a.ctypes.data, False), "strides": None,
                                         "version": 3, "stream": None}


def test_cuda_array_interface(device):
    x = em.arange(6, dtype=em.float32).reshape(2, 3)
    if _cpu(device) or device.kind == "opencl":
        assert not hasattr(x, "__cuda_array_interface__")
        with pytest.raises(AttributeError, match="only defined for CUDA arrays"):
            x.__cuda_array_interface__
        return
    cai = x.__cuda_array_interface__
    assert cai["version"] == 3 and cai["shape"] == (2, 3) and cai["typestr"] == "<f4"
    assert cai["data"] == (x._ptr, False) and cai["strides"] is None
    assert cai["stream"] == 1  # the legacy default stream: Ember's current one here
    assert x[:, ::2].__cuda_array_interface__["strides"] == (12, 8)
    y = em.asarray(_Owner(cai))  # zero-copy wrap of the pointer
    assert y._ptr == x._ptr and y.device == x.device
    assert_same(y, np.arange(6, dtype=np.float32).reshape(2, 3))
    # Produced on a side stream: the interface names that stream, and an
    # importer on another stream orders itself after it (no host wait).
    s = em.Stream(non_blocking=True)
    big = em.ones(1 << 22, dtype=em.float32)
    with s:
        z = big * 3
        cz = z.__cuda_array_interface__
        assert cz["stream"] == s.ptr
    w = em.asarray(_Owner(cz))
    assert float(em.sum(w)) == 3 * (1 << 22)
    with pytest.raises(ValueError, match="'stream' 0 is disallowed"):
        em.asarray(_Owner(dict(cai, stream=0)))


class _Owner:
    def __init__(self, cai):
        self.__cuda_array_interface__ = cai


@pytest.mark.skipif(em.cuda.is_available(), reason="checks the CPU-only message")
def test_cuda_array_interface_without_cuda():
    with pytest.raises(TypeError, match="exposes __cuda_array_interface__ but this ember has no"):
        em.asarray(_FakeCAI(np.arange(3.0)))


# ---- property: any strided NumPy view travels both ways without a copy ----------

from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402
from hypothesis.extra import numpy as hnp  # noqa: E402


@st.composite
def _strided_views(draw):
    dtype = draw(st.sampled_from(ALL_DTYPES))
    base = draw(hnp.arrays(dtype, hnp.array_shapes(min_dims=0, max_dims=4, max_side=5)))
    key = tuple(slice(None, None, draw(st.sampled_from([1, 2, -1, -2]))) for _ in base.shape)
    view = base[key] if base.ndim else base  # base[()] would be a NumPy scalar
    if view.ndim >= 2 and draw(st.booleans()):
        view = view.swapaxes(0, -1)
    return view


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_strided_views(), st.sampled_from([None, (1, 0)]))
def test_property_round_trip(a, max_version):
    z = em.from_dlpack(a)  # NumPy -> Ember
    assert z.shape == a.shape and z.strides == a.strides and z.dtype == a.dtype
    if a.size:
        assert z._ptr == a.ctypes.data
    np.testing.assert_array_equal(z.get(), a)
    cap = z.__dlpack__(max_version=max_version)  # Ember -> NumPy through either capsule
    back = np.from_dlpack(_Capsule(cap))
    assert back.strides == a.strides
    if a.size:
        assert back.ctypes.data == a.ctypes.data
    np.testing.assert_array_equal(back, a)


class _Capsule:
    """Hands NumPy an already-made capsule (NumPy only consumes objects)."""
    def __init__(self, cap):
        self.cap = cap

    def __dlpack__(self, **kw):
        return self.cap

    def __dlpack_device__(self):
        return (1, 0)


def test_wrap_pointer_keeps_owner_alive():
    """The C helper behind em.asarray(<__cuda_array_interface__ object>),
    exercised on host memory (it is device-agnostic)."""
    a = np.arange(12, dtype=np.int32).reshape(3, 4)
    before = sys.getrefcount(a)
    v = em._ember._wrap_pointer(a.ctypes.data, (3, 2), "int32", (16, 8), "cpu", a, True)
    assert sys.getrefcount(a) == before + 1
    assert v._ptr == a.ctypes.data and not v.flags.writeable
    assert_same(v, a[:, ::2])
    w = em._ember._wrap_pointer(a.ctypes.data, (12,), np.int32, None, "cpu", a, False)
    w[0] = 99
    assert a[0, 0] == 99
    del v, w
    gc.collect()
    assert sys.getrefcount(a) == before
    with pytest.raises(ValueError, match="strides has 1 entries but the shape has 2"):
        em._ember._wrap_pointer(a.ctypes.data, (3, 4), "int32", (16,), "cpu", a, False)
    with pytest.raises(ValueError, match="shape has 33 entries; ember allows 32 at most"):
        em._ember._wrap_pointer(a.ctypes.data, (1,) * 33, "int32", None, "cpu", a, False)
    with pytest.raises(ValueError, match="null data pointer for a non-empty array"):
        em._ember._wrap_pointer(0, (2,), "int32", None, "cpu", a, False)
    assert em._ember._wrap_pointer(0, (0, 3), "int32", None, "cpu", a, False).shape == (0, 3)
    with pytest.raises(ValueError, match="negative"):
        em._ember._wrap_pointer(a.ctypes.data, (-1,), "int32", None, "cpu", a, False)
    assert sys.getrefcount(a) == before


# -- OpenCL (kDLOpenCL = 4): data is the cl_mem, byte_offset the offset into it -----------------
_needs_opencl = pytest.mark.skipif(not em.opencl.is_available(), reason="no OpenCL device")


class _Producer:
    """A producer handing out a given capsule (for consumers that want __dlpack__)."""

    def __init__(self, cap, dev):
        self.cap, self.dev = cap, dev

    def __dlpack__(self, **kw):
        return self.cap

    def __dlpack_device__(self):
        return self.dev


def _dltensor(cap, versioned):
    """(data, device_type, device_id, byte_offset) of a capsule's DLTensor, by the spec's layout."""
    get = ctypes.pythonapi.PyCapsule_GetPointer
    get.restype, get.argtypes = ctypes.c_void_p, [ctypes.py_object, ctypes.c_char_p]
    name = b"dltensor_versioned" if versioned else b"dltensor"
    # versioned: DLPackVersion, manager_ctx, deleter and flags come first
    base = get(cap, name) + (32 if versioned else 0)
    data = ctypes.c_void_p.from_address(base).value
    dtype, did = ctypes.c_int32.from_address(base + 8).value, ctypes.c_int32.from_address(base + 12)
    off = ctypes.c_uint64.from_address(base + 8 + 8 + 4 + 4 + 8 + 8).value  # after shape, strides
    return data, dtype, did, off


@_needs_opencl
@pytest.mark.parametrize("versioned", [False, True])
def test_opencl_capsule_is_cl_mem_and_offset(versioned):
    base = em.arange(40, dtype=em.float32, device="opencl:0")
    x = base[12:]
    cap = x.__dlpack__(max_version=(1, 0) if versioned else None)
    data, dtype, did, off = _dltensor(cap, versioned)
    assert (dtype, did.value, off) == (4, 0, 12 * 4)
    assert data and data != x._ptr  # a cl_mem handle, not Ember's (synthetic) address
    y = em.from_dlpack(cap)
    assert y.device == em.Device("opencl:0") and y.shape == (28,)
    np.testing.assert_array_equal(y.get(), np.arange(12, 40, dtype=np.float32))
    y[0] = -1  # the same buffer
    assert base.get()[12] == -1
    del x, base
    gc.collect()
    np.testing.assert_array_equal(y.get()[1:], np.arange(13, 40, dtype=np.float32))


@_needs_opencl
def test_opencl_capsule_strides_and_producer_object():
    a = np.arange(30, dtype=np.int64).reshape(5, 6)
    x = em.asarray(a, device="opencl:0")[1:, ::2]
    y = em.from_dlpack(x)  # through __dlpack__ (max_version, no stream)
    np.testing.assert_array_equal(y.get(), a[1:, ::2])
    z = em.from_dlpack(_Producer(x.__dlpack__(max_version=(1, 0)), (4, 0)))
    np.testing.assert_array_equal(z.get(), a[1:, ::2])


@_needs_opencl
def test_opencl_consumers_that_cannot_take_it():
    x = em.arange(6.0, device="opencl:0")
    with pytest.raises(BufferError, match=r"unsupported device requested.*\(2, 0\)"):
        x.__dlpack__(dl_device=(2, 0))  # NumPy's wording for a device it cannot give
    with pytest.raises(BufferError, match="without a copy"):
        x.__dlpack__(dl_device=(1, 0), copy=False)
    with pytest.raises(ValueError, match="stream must be None or -1 for OpenCL arrays"):
        x.__dlpack__(stream=3)
    # NumPy asks for the CPU: a copy; without device= it gets the OpenCL tensor and refuses
    np.testing.assert_array_equal(np.from_dlpack(x, device="cpu"), np.arange(6.0))
    with pytest.raises((RuntimeError, BufferError), match="[Uu]nsupported device"):
        np.from_dlpack(x)


@_needs_opencl
def test_opencl_capsule_for_a_device_ember_lacks():
    x = em.arange(4.0, device="opencl:0")
    cap = x.__dlpack__()
    _, _, did, _ = _dltensor(cap, False)
    did.value = 99
    with pytest.raises(BufferError, match="OpenCL device 99 but ember sees"):
        em.from_dlpack(cap)
