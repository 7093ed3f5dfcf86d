"""Streams and events on the CPU and on opencl:0 (every device has them:
src/core/runtime.c over the backend table).  A CPU stream is always complete
and an event holds the host's clock; an OpenCL stream is an in-order queue and
an event a profiled marker, so em.Stream, em.Event and em.get_elapsed_time
behave as on a GPU.  The CUDA side is tested against the fake driver
(test_cuda_fake.py) and on a GPU (test_cuda_nogpu.py's timing test)."""
import time

import numpy as np
import pytest

import ember as em
from ember import _ember


@pytest.fixture(params=["cpu", "opencl:0"])
def cpu(request):
    """The device the test runs on, current (the name is the module's first one)."""
    if request.param.startswith("opencl") and not em.opencl.is_available():
        pytest.skip("no OpenCL platform")
    with em.Device(request.param):
        yield request.param.partition(":")[0] + ":0"


def test_stream_is_current_inside_with(cpu):
    s, t = em.Stream(), em.Stream(non_blocking=True)
    assert s.ptr and t.ptr and s.ptr != t.ptr and s._dev == cpu
    assert _ember.stream_get() is None
    with s:
        assert _ember.stream_get() == s.ptr
        with t:
            assert _ember.stream_get() == t.ptr
            with em.Stream.null:
                assert _ember.stream_get() is None
            assert _ember.stream_get() == t.ptr
        assert _ember.stream_get() == s.ptr
    assert _ember.stream_get() is None
    s.use()
    assert _ember.stream_get() == s.ptr
    em.Stream.null.use()
    assert _ember.stream_get() is None
    s.synchronize()
    em.Stream.null.synchronize()


def test_destroying_the_current_stream_makes_the_default_current(cpu):
    s = em.Stream()
    s.use()
    del s  # the owner destroys it
    assert _ember.stream_get() is None


@pytest.mark.parametrize("dtype", [np.float32, np.int64, np.complex128])
def test_events_time_the_work_between_them(cpu, dtype):
    x = em.asarray(np.arange(1 << 16).astype(dtype))
    s = em.Stream()
    start, end = em.Event(), em.Event()
    with s:
        start.record()
        y = x * 2 + 1  # lazy: recording the end event evaluates it first
        time.sleep(0.02)
        end.record(s)
    end.synchronize()
    assert start.done and end.done
    ms = em.get_elapsed_time(start, end)
    assert 20 <= ms < 10_000
    assert em.get_elapsed_time(end, start) == pytest.approx(-ms)
    np.testing.assert_array_equal(y.get(), np.arange(1 << 16).astype(dtype) * 2 + 1)


def test_event_errors(cpu):
    a, b = em.Event(), em.Event()
    with pytest.raises(TypeError, match="two ember.Event"):
        em.get_elapsed_time(1, 2)
    with pytest.raises(em.DeviceError, match="recorded"):
        em.get_elapsed_time(a, b)  # neither recorded
    a.record()
    with pytest.raises(em.DeviceError, match="recorded"):
        em.get_elapsed_time(a, b)
    c = em.Event(disable_timing=True)
    c.record()
    if cpu == "cpu":
        assert c.done  # nothing is ever queued
    c.synchronize()
    assert c.done
    with pytest.raises(em.DeviceError, match="timing"):
        em.get_elapsed_time(a, c)
    b.synchronize()  # never recorded: returns at once
    with pytest.raises(ValueError, match="unknown stream call"):
        _ember.stream_call("nope", cpu, a.ptr)
    with pytest.raises(em.DeviceError, match="unknown device 'gpu:7'"):
        _ember.stream_create("gpu:7")
    if not em.opencl.is_available():
        with pytest.raises(em.DeviceError, match="opencl"):
            _ember.event_create("opencl:0")


def test_stream_wait_and_threads(cpu):
    import threading
    s, t = em.Stream(), em.Stream()
    _ember.stream_call("stream_wait", cpu, s.ptr, t.ptr)  # nothing to wait for on the CPU
    _ember.stream_call("stream_wait", cpu, s.ptr, s.ptr)
    seen = []
    with s:
        th = threading.Thread(target=lambda: seen.append(_ember.stream_get(cpu)))
        th.start()
        th.join()
    assert seen == [None]  # the current stream is the calling thread's


def test_work_on_an_opencl_stream_is_ordered_with_the_default_queue():
    """An OpenCL queue orders against no other by itself: switching the current
    queue (entering and leaving `with stream:`) must order the new one after the
    old, or the kernel on s reads x before the slow kernel that writes it, and
    z's kernel on the default queue reads y before s wrote it (the switches in
    src/backend/opencl/stream.c)."""
    if not em.opencl.is_available():
        pytest.skip("no OpenCL platform")
    with em.Device("opencl:0"):
        n, dtype = 1 << 20, np.float32
        a = np.linspace(0, 1, n).astype(dtype)
        slow = a
        for _ in range(30):
            slow = np.cos(slow) * np.asarray(0.5, dtype) + np.asarray(0.25, dtype)
        s = em.Stream()
        for _ in range(2):
            x = em.asarray(a)
            for _ in range(30):  # one fused kernel of 30 cosines, queued, not waited for
                x = em.cos(x) * 0.5 + 0.25
            em.eval(x)
            with s:
                y = (x * 3).copy()
                em.eval(y)
                e = em.Event()
                e.record()
            z = y - 1  # on the default queue again
            em.eval(z)
            np.testing.assert_allclose(z.get(), slow * 3 - 1, rtol=2e-5, atol=2e-5)
            e.synchronize()
            assert e.done
            np.testing.assert_allclose(y.get(), slow * 3, rtol=2e-5, atol=2e-5)
        t = em.Stream(non_blocking=True)
        _ember.stream_call("stream_wait", "opencl:0", t.ptr, s.ptr)
        t.synchronize()
        never = em.Event()
        assert never.done  # never recorded: nothing to wait for
        never.synchronize()
        with pytest.raises(em.DeviceError, match="recorded"):
            em.get_elapsed_time(e, never)
        assert em.get_elapsed_time(e, e) == 0
