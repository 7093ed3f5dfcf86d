"""Streams and events on the CPU (every device has them: src/core/stream.c
over the backend table).  A CPU stream is always complete and an event holds
the host's clock, so em.Stream, em.Event and em.get_elapsed_time behave as on
a GPU.  The CUDA side is tested against the fake driver (test_cuda_fake.py)
and on a GPU (test_cuda_nogpu.py's timing test)."""
import time

import numpy as np
import pytest

import ember as em
from ember import _ember


@pytest.fixture
def cpu():
    with em.Device("cpu"):
        yield


def test_stream_is_current_inside_with(cpu):
    s, t = em.Stream(), em.Stream(non_blocking=True)
    assert s.ptr and t.ptr and s.ptr != t.ptr and s._dev == "cpu:0"
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
    assert c.done
    with pytest.raises(em.DeviceError, match="timing"):
        em.get_elapsed_time(a, c)
    b.synchronize()  # never recorded: returns at once
    with pytest.raises(ValueError, match="unknown stream call"):
        _ember.stream_call("nope", "cpu", a.ptr)
    with pytest.raises(em.DeviceError, match="unknown device 'gpu:7'"):
        _ember.stream_create("gpu:7")
    if em.opencl.is_available():  # its streams are not in the table yet: a status, not a crash
        with pytest.raises(TypeError, match="not available on opencl devices yet"):
            _ember.event_create("opencl:0")
    else:
        with pytest.raises(em.DeviceError, match="opencl"):
            _ember.event_create("opencl:0")


def test_stream_wait_and_threads(cpu):
    import threading
    s, t = em.Stream(), em.Stream()
    _ember.stream_call("stream_wait", "cpu", s.ptr, t.ptr)  # nothing to wait for on the CPU
    _ember.stream_call("stream_wait", "cpu", s.ptr, s.ptr)
    seen = []
    with s:
        th = threading.Thread(target=lambda: seen.append(_ember.stream_get("cpu")))
        th.start()
        th.join()
    assert seen == [None]  # the current stream is the calling thread's
