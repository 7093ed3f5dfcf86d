"""Ember from several Python threads: concurrent work gives the serial
results, and large operations release the GIL."""
import sys
import threading
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest

import ember as em

N = 1 << 20


def work(i, a, b):
    """A few elementwise ops on big shared inputs, plus a private array."""
    x = (a * (i + 1) + b) / (b + 1.0) - b / (i + 2)
    y = em.asarray(np.full(N // 4, float(i))) * x[: N // 4]
    return x.get(), y.get()


def on(device, fn, *args):
    """fn(*args) in this thread with the test's device current (the current
    device is per thread, as in CuPy: a new thread starts on the default)."""
    with em.Device(str(device)):
        return fn(*args)


def test_concurrent_elementwise_matches_serial(device):
    rng = np.random.default_rng(0)
    a = em.asarray(rng.random(N))
    b = em.asarray(rng.random(N))
    serial = [work(i, a, b) for i in range(8)]
    with ThreadPoolExecutor(4) as ex:
        for _ in range(3):
            parallel = list(ex.map(lambda i: on(device, work, i, a, b), range(8)))
            for (sx, sy), (px, py) in zip(serial, parallel):
                np.testing.assert_array_equal(sx, px)
                np.testing.assert_array_equal(sy, py)


def test_concurrent_random_streams_match_serial(device):
    def draw(seed):
        g = em.random.default_rng(seed)
        return g.random(N // 2).get(), g.standard_normal(N // 2).get()

    serial = [draw(s) for s in range(6)]
    with ThreadPoolExecutor(3) as ex:
        parallel = list(ex.map(lambda s: on(device, draw, s), range(6)))
    for s, p in zip(serial, parallel):
        for u, v in zip(s, p):
            np.testing.assert_array_equal(u, v)


def test_views_made_and_dropped_concurrently(device):
    base = em.asarray(np.arange(1000.0))

    def churn(k):
        tot = 0.0
        for i in range(300):
            v = base[i % 7 :: 3].reshape(-1)[:5]
            tot += float(v[0])
        return tot

    want = churn(0)
    with ThreadPoolExecutor(4) as ex:
        assert list(ex.map(churn, range(8))) == [want] * 8
    assert base.tolist() == list(np.arange(1000.0))


class _Spinner:
    """A Python thread that counts while it holds the GIL, yielding it only
    at time.sleep(0).  With a huge switch interval the main thread never
    gives the GIL up on its own, so the count can move during a call only if
    that call released the GIL: the check does not depend on timing."""

    def __init__(self):
        self.count = 0
        self.stop = False
        self.ready = threading.Event()
        self.thread = threading.Thread(target=self.run, daemon=True)

    def run(self):
        import time
        self.ready.set()
        while not self.stop:
            self.count += 1
            time.sleep(0)

    def __enter__(self):
        self.old = sys.getswitchinterval()
        self.thread.start()
        assert self.ready.wait(60)
        sys.setswitchinterval(1000.0)
        return self

    def __exit__(self, *exc):
        sys.setswitchinterval(self.old)
        self.stop = True
        self.thread.join(60)


def releases_gil(op, tries=50):
    with _Spinner() as s:
        for _ in range(tries):
            before = s.count
            op()
            if s.count != before:
                return True
    return False


@pytest.mark.parametrize("name", ["ufunc", "astype", "random", "matmul"])
def test_large_ops_release_the_gil(device, name):
    big = em.asarray(np.random.default_rng(1).random(4 * N))
    mat = em.asarray(np.random.default_rng(2).random((400, 400)))
    g = em.random.default_rng(3)
    op = {"ufunc": lambda: em.multiply(big, 3.0),
          "astype": lambda: big.astype(np.float32),
          "random": lambda: g.standard_normal(4 * N),
          "matmul": lambda: mat @ mat}[name]
    if device.kind != "cpu":
        # A device op is queued in microseconds and runs without the GIL;
        # what takes the time is waiting for it, which must release the GIL.
        # Eight of them queued: one H100 kernel can end in ~20 us, before the
        # spinner thread wakes to take a GIL released that briefly.
        work, op = op, lambda: ([work() for _ in range(8)], device.synchronize())
    assert releases_gil(op)


def test_small_ops_keep_the_gil_control(device):
    # The control for the check above: a call that never releases the GIL
    # leaves the count alone, so the spinner test can fail.
    assert not releases_gil(lambda: sum(range(1000)), tries=5)
    if device.kind == "cpu":  # a device op may wait on the driver without the GIL
        small = em.ones(100)  # below the no-GIL threshold: not worth a release
        assert not releases_gil(lambda: em.multiply(small, 3.0), tries=5)
