"""PyOpenCL interop on opencl:0 (PoCL's CPU device in CI): Ember's context and
queue handed to PyOpenCL, arrays shared both ways without copies on that
context (writes seen by the other side, views at offsets and with strides),
host copies with a warning from and to another context, and the buffer
lifetimes across the two owners (Ember's pool never reuses a shared buffer;
a wrapped PyOpenCL buffer outlives its PyOpenCL array).  NumPy is the oracle."""
import gc
import warnings

import numpy as np
import pytest

import ember as em

pytestmark = pytest.mark.skipif(not em.opencl.is_available(), reason="no OpenCL device")
cl = pytest.importorskip("pyopencl")
cla = pytest.importorskip("pyopencl.array")

DEV = "opencl:0"


def test_ember_context_and_queue_are_shared():
    ctx, q = em.opencl.pyopencl_context(DEV), em.opencl.pyopencl_queue(DEV)
    assert q.context == ctx
    assert ctx.int_ptr == em._ember.opencl_handles(0)[0]
    assert [d.name for d in ctx.devices] == [em.opencl.device_info(DEV)["name"]]
    # PyOpenCL programs run on it, on Ember's arrays
    prg = cl.Program(ctx, "__kernel void inc(__global float *a) { a[get_global_id(0)] += 1; }")
    x = em.arange(6, dtype="float32", device=DEV)
    p = em.opencl.as_pyopencl(x)
    prg.build().inc(q, (6,), None, p.data)
    np.testing.assert_array_equal(x.get(), np.arange(6, dtype=np.float32) + 1)


def test_ember_to_pyopencl_without_a_copy():
    x = em.arange(12, dtype="float64", device=DEV) * 2  # a pending result: evaluated first
    p = em.opencl.as_pyopencl(x)
    assert isinstance(p, cla.Array) and p.dtype == np.float64 and p.shape == (12,)
    np.testing.assert_array_equal(p.get(), np.arange(12) * 2.0)
    p += 1  # PyOpenCL writes, Ember sees
    np.testing.assert_array_equal(x.get(), np.arange(12) * 2.0 + 1)
    x[0] = -5  # Ember writes, PyOpenCL sees
    assert p.get()[0] == -5


def test_views_keep_offset_and_strides():
    base = np.arange(60, dtype=np.int32).reshape(6, 10)
    x = em.asarray(base, device=DEV)
    v = x[1:5, 2::3]
    p = em.opencl.as_pyopencl(v)
    assert (p.shape, p.strides, p.offset) == (v.shape, v.strides, (10 + 2) * 4)
    np.testing.assert_array_equal(em.asarray(p).get(), base[1:5, 2::3])  # and back, no copy
    r = em.opencl.as_pyopencl(x[::-1, 0])  # negative strides: copied (PyOpenCL addresses up)
    np.testing.assert_array_equal(r.get(), base[::-1, 0])
    e = em.opencl.as_pyopencl(em.zeros((0, 3), device=DEV))
    assert e.shape == (0, 3)


def test_pyopencl_to_ember_without_a_copy():
    ctx = em.opencl.pyopencl_context(DEV)
    q = cl.CommandQueue(ctx)  # its own queue on Ember's context: finished before Ember reads
    a = cla.to_device(q, np.arange(20, dtype=np.float32))
    e = em.asarray(a)
    assert e.device == em.Device(DEV) and e.dtype == np.float32
    np.testing.assert_array_equal((e * 3).get(), np.arange(20, dtype=np.float32) * 3)
    e[5] = 99  # writes the PyOpenCL buffer
    assert a.get()[5] == 99
    s = em.asarray(a[4:16:4])  # a PyOpenCL view: offset and stride
    np.testing.assert_array_equal(s.get(), a.get()[4:16:4])
    assert em.opencl.from_pyopencl(cla.empty(q, (0,), np.int64)).shape == (0,)
    with pytest.raises(TypeError, match="pyopencl.array.Array"):
        em.opencl.from_pyopencl(np.zeros(3))


def test_jit_kernel_on_a_wrapped_pyopencl_array():
    q = em.opencl.pyopencl_queue(DEV)
    a = cla.to_device(q, np.arange(32, dtype=np.int64))

    @em.jit
    def double(v):
        i = em.grid(1)
        if i < v.size:
            v[i] *= 2

    double[1, 32](em.asarray(a)[8:])
    np.testing.assert_array_equal(a.get(), np.r_[np.arange(8), np.arange(8, 32) * 2])


def test_another_context_copies_with_a_warning():
    ctx2 = cl.Context(devices=[em.opencl.pyopencl_context(DEV).devices[0]])  # a new context
    q2 = cl.CommandQueue(ctx2)
    a = cla.to_device(q2, np.arange(5.0))
    with pytest.warns(RuntimeWarning, match="another OpenCL context.*copied through the host"):
        e = em.asarray(a)
    assert e.device == em.Device(DEV)
    e[0] = 7  # a copy: PyOpenCL's buffer is unchanged
    assert a.get()[0] == 0
    with pytest.warns(RuntimeWarning, match="another OpenCL context.*copied through the host"):
        back = em.opencl.as_pyopencl(e, q2)
    assert back.context == ctx2
    np.testing.assert_array_equal(back.get(), [7, 1, 2, 3, 4])


def test_a_shared_buffer_is_not_reused_by_the_pool():
    x = em.full(1000, 3.0, dtype="float32", device=DEV)
    p = em.opencl.as_pyopencl(x)
    del x
    gc.collect()
    others = [em.full(1000, 7.0, dtype="float32", device=DEV) for _ in range(4)]
    em.synchronize()
    np.testing.assert_array_equal(p.get(), np.full(1000, 3.0, np.float32))
    del others


def test_a_wrapped_buffer_outlives_its_pyopencl_array():
    q = em.opencl.pyopencl_queue(DEV)
    a = cla.to_device(q, np.arange(100, dtype=np.uint16))
    used = em.opencl.pool_stats(DEV)[0]
    e = em.asarray(a)[10:20]
    assert em.opencl.pool_stats(DEV)[0] == used  # PyOpenCL's memory, not the pool's
    del a
    gc.collect()
    np.testing.assert_array_equal(e.get(), np.arange(10, 20, dtype=np.uint16))


def test_bad_input():
    with pytest.raises(TypeError, match="ember.ndarray"):
        em.opencl.as_pyopencl(np.zeros(3))
    with pytest.raises(ValueError, match="needs an array on an OpenCL device"):
        em.opencl.as_pyopencl(em.zeros(3, device="cpu"))
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the shared path warns about nothing
        em.opencl.as_pyopencl(em.zeros(3, device=DEV))
