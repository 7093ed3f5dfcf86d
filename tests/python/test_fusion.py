"""Automatic fusion: lazy elementwise results, their evaluation triggers,
fused == unfused bit for bit, fused reductions, stable kernel keys, memory,
aliasing, em.eval and em.fuse."""
import os
import subprocess
import sys

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import ember as em
from helpers import FAKE_PROLOGUE, ALL_DTYPES, assert_same, layouts, nvrtc_available, random_array

_e = em._ember


@pytest.fixture(autouse=True)
def two_threads():
    """Whether a CPU reduction fuses depends on outputs per worker thread
    (fuse_reduce.c): pin the pool to this CI machine's 2 workers, so the
    tests mean the same on the 16-core GPU machine."""
    old = _e.num_threads()
    _e.num_threads(2)
    yield
    _e.num_threads(old)


@pytest.fixture
def lazy():
    """Every elementwise result lazy (min_size 0), restored afterwards."""
    old = _e._fusion_config(enabled=True, min_size=0)
    yield
    _e._fusion_config(**old)


@pytest.fixture
def on_cpu():
    """The CPU as the current device: these tests check the CPU's banded
    reductions (on CUDA the producer runs inside the reduction kernel, and
    the device-parametrised tests above cover it)."""
    with em.Device("cpu"):
        yield


def own(a, device=None):
    """An ember array in Ember's own memory (a copy: nothing else writes it)."""
    return em.asarray(np.asarray(a), device=device, copy=True)


def pending(a):
    return _e._is_pending(a)


def stats():
    return _e._kernel_stats()


def bits(a):
    return a.get().tobytes()


def unfused(fn, *args):
    """fn(*args) with fusion off: the eager chain of ops."""
    old = _e._fusion_config(enabled=False)
    try:
        r = fn(*args)
        return r
    finally:
        _e._fusion_config(**old)


# ---- pending results -------------------------------------------------------------

def test_result_is_pending_until_read(device, lazy, rng):
    a = rng.random(1000)
    x = own(a)
    before = stats()["evals"]
    y = x * 2 + 1
    assert pending(y) and y.shape == (1000,) and y.dtype == np.float64 and y.size == 1000
    assert stats()["evals"] == before  # metadata needs no evaluation
    assert_same(y, a * 2 + 1)
    assert not pending(y)
    assert stats()["evals"] == before + 1  # one evaluation for the two ops


_ENV_OVERRIDES = bool(os.environ.get("EMBER_FUSE_MIN_SIZE") or os.environ.get("EMBER_FUSE_FOREIGN"))
defaults_only = pytest.mark.skipif(_ENV_OVERRIDES, reason="EMBER_FUSE_* overrides the defaults")


@defaults_only
def test_small_cpu_results_run_eagerly_by_default(rng):
    x = own(rng.random(1000), device="cpu")
    assert not pending(x + 1)          # below min_size: eager on the CPU
    big = own(rng.random(1 << 15), device="cpu")
    assert pending(big + 1)


def _chain8(a):
    return ((((((a + 1.5) * 0.5 - 2.0) * a + 0.25) / 3.0) - a) * 1.25)


@defaults_only
@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int64, np.complex64])
def test_numpy_wrap_fuses_the_eight_op_chain(rng, dtype):
    """em.asarray of a NumPy array wraps its memory, and that wrap is an input
    of fused kernels like Ember's own memory: the 8-op chain is one kernel."""
    with em.Device("cpu"):
        a = (rng.random(1 << 15) * 10).astype(dtype)
        x = em.asarray(a)
        assert np.shares_memory(np.asarray(x), a)  # a wrap, not a copy
        before = stats()
        y = _chain8(x)
        assert pending(y)
        em.eval(y)
        after = stats()
    assert after["evals"] - before["evals"] == 1
    assert after["ops"] - before["ops"] == 8
    # complex division by a scalar differs from NumPy's by an ulp, fused or not
    assert_same(y, _chain8(a), atol=1e-5 if dtype == np.complex64 else 0)
    assert bits(y) == bits(unfused(_chain8, x))


@pytest.mark.parametrize("dtype", [np.float32, np.int16, np.bool_])
def test_numpy_wrap_layouts_fused_equal_numpy(lazy, rng, dtype):
    """Wrapped views of every edge layout (0-d, empty, strided, negative
    strides, transposed, broadcast) read correctly as leaves of one kernel."""
    for name, a in layouts(rng, (6, 5), dtype):
        with em.Device("cpu"):
            x = em.asarray(a)
            y = (x * 2 + x) if dtype != np.bool_ else (x & ~x) | x
        want = (a * 2 + a) if dtype != np.bool_ else (a & ~a) | a
        assert pending(y) == (a.size > 0), name
        assert_same(y, want)


@em.jit
def _zero(v):
    i = em.grid(1)
    if i < v.size:
        v[i] = 0


def test_numpy_wrap_aliasing(lazy, rng):
    """A pending result reads the wrapped memory when it is evaluated.  Writes
    by Ember -- through the wrap, another wrap of the same memory, a kernel
    given the NumPy array itself, get(out=) -- evaluate its readers first; a
    write through NumPy is the user's aliasing and the result may see it."""
    a = np.arange(6.0)
    with em.Device("cpu"):
        x, x2 = em.asarray(a), em.asarray(a)
        y = x * 2
        x2[0] = 100.0                    # a second wrap of a's memory
        assert not pending(y)
        assert_same(y, np.arange(6.0) * 2)
        assert a[0] == 100.0
        y = x * 2
        x += 1                           # in place through the wrap
        assert_same(y, np.r_[200.0, np.arange(1.0, 6.0) * 2])
        y = x * 2
        _zero[1, 8](a)                   # a kernel given the NumPy array itself
        assert_same(y, np.r_[202.0, np.arange(2.0, 7.0) * 2])
        assert not a.any()
        y = x + 1
        em.full(6, 3.0).get(out=a)       # get(out=) into the wrapped memory
        assert_same(y, np.ones(6))
        y = x + 1
        a[:] = 7.0                       # NumPy writes: the user's aliasing
        assert_same(y, np.full(6, 8.0))


@defaults_only
def test_dlpack_import_runs_eagerly(lazy, rng):
    """Memory imported through DLPack may be written by its library (on its
    own stream) while a result waits: those operands stay eager."""
    a = rng.random(100)
    x = em.from_dlpack(a)
    assert np.shares_memory(np.asarray(x), a)
    y = x * 2
    assert not pending(y)
    a[0] = 100.0                     # the owner writes: y already has the old value
    assert float(y[0]) != 200.0


def test_fusion_off_is_eager(rng):
    old = _e._fusion_config(enabled=False, min_size=0)
    try:
        assert not pending(own(rng.random(10)) * 2)
    finally:
        _e._fusion_config(**old)


def test_errors_are_raised_at_the_op(device, lazy):
    x = own(np.ones(4, bool), device)
    with pytest.raises(TypeError, match="numpy boolean subtract"):
        x - x
    with pytest.raises(ValueError, match="broadcast"):
        own(np.ones(3), device) + own(np.ones(4), device)
    assert_same(x & x, np.ones(4, bool))  # and the process keeps working


# ---- fused == unfused, bit for bit, and both match NumPy ------------------------

UNARY = ["negative", "absolute", "square", "sqrt", "exp", "sin", "floor", "logical_not",
         "isnan", "sign"]
BINARY = ["add", "subtract", "multiply", "true_divide", "maximum", "minimum", "less",
          "equal", "logical_and", "floor_divide", "power"]
SHAPES = [(4, 5), (5,), (1, 5), (4, 1), ()]


def _tree(depth):
    leaf = st.tuples(st.just("leaf"), st.integers(0, 3))
    scalar = st.tuples(st.just("scalar"), st.sampled_from([0.5, 2, -3, 1.5, True]))
    if depth == 0:
        return st.one_of(leaf, leaf, scalar)
    sub = _tree(depth - 1)
    return st.one_of(
        leaf,
        st.tuples(st.just("u"), st.sampled_from(UNARY), sub),
        st.tuples(st.just("b"), st.sampled_from(BINARY), sub, sub),
        st.tuples(st.just("w"), sub, sub, sub))


def _run(tree, xp, leaves):
    kind = tree[0]
    if kind == "leaf":
        return leaves[tree[1]]
    if kind == "scalar":
        return tree[1]
    if kind == "u":
        return getattr(xp, tree[1])(_run(tree[2], xp, leaves))
    if kind == "b":
        return getattr(xp, tree[1])(_run(tree[2], xp, leaves), _run(tree[3], xp, leaves))
    c = _run(tree[1], xp, leaves)
    return xp.where(xp.asarray(c) > 0 if xp is np else c > 0, _run(tree[2], xp, leaves),
                    _run(tree[3], xp, leaves))


def _outcome(fn):
    try:
        with np.errstate(all="ignore"):
            return fn(), None
    except Exception as e:  # noqa: BLE001 - the exception is the result compared
        return None, type(e)


@settings(max_examples=150, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow])
@given(tree=_tree(3), dtype=st.sampled_from(ALL_DTYPES), seed=st.integers(0, 2**16),
       shapes=st.lists(st.sampled_from(SHAPES), min_size=4, max_size=4))
def test_fused_equals_unfused_random_trees(tree, dtype, seed, shapes):
    rng = np.random.default_rng(seed)
    hosts = [random_array(rng, s, dtype, low=1, high=9) for s in shapes]
    old = _e._fusion_config(enabled=True, min_size=0)
    try:
        leaves = [own(h, "cpu") for h in hosts]
        fused, ferr = _outcome(lambda: _run(tree, em, leaves))
        if fused is not None and isinstance(fused, em.ndarray):
            em.eval(fused)
    finally:
        _e._fusion_config(**old)
    eager, uerr = _outcome(lambda: unfused(lambda: _run(tree, em, [own(h, "cpu") for h in hosts])))
    assert ferr == uerr
    if ferr is not None or not isinstance(eager, em.ndarray):
        return
    assert fused.dtype == eager.dtype and fused.shape == eager.shape
    assert bits(fused) == bits(eager)
    want, nerr = _outcome(lambda: _run(tree, np, hosts))
    if nerr is None and np.asarray(want).dtype == eager.dtype:
        # intermediates may be float16 (exp of int8) whatever the result
        # dtype, and libm differs from NumPy's by an ulp there; the ops
        # themselves are checked tightly against NumPy in test_ufuncs
        kind = np.asarray(want).dtype.kind
        assert_same(eager, want, rtol=5e-3 if kind in "fc" else None)


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=str)
def test_fused_chain_every_dtype(device, lazy, rng, dtype):
    a = random_array(rng, (3, 40), dtype, low=1, high=5)
    b = random_array(rng, (40,), dtype, low=1, high=5)

    def f(x, y):
        return em.where(x > y, x * y + x, em.maximum(x, y) - (y if dtype.kind != "b" else 0))

    if dtype.kind == "b":
        def f(x, y):  # noqa: F811 - bool has no subtract
            return em.where(x > y, x * y + x, em.maximum(x, y) ^ y)
    got = f(own(a, device), own(b, device))
    assert pending(got)
    want = unfused(f, own(a, device), own(b, device))
    assert bits(got) == bits(want)
    with np.errstate(all="ignore"):
        assert_same(want, _np_f(dtype, a, b))


def _np_f(dtype, a, b):
    if dtype.kind == "b":
        return np.where(a > b, a * b + a, np.maximum(a, b) ^ b)
    return np.where(a > b, a * b + a, np.maximum(a, b) - b)


OPS = [(name, nin) for name, (_, nin) in _e.ops.items() if name != "copy"]


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=str)
def test_every_op_fused_equals_unfused(lazy, rng, dtype):
    # Each op of the table between two fused neighbours: (x + x) -> op -> * 1,
    # against the same three eager calls, byte for byte.
    hosts = [random_array(rng, (3, 33), dtype, low=1, high=6) for _ in range(3)]
    first = "add" if dtype.kind != "b" else "logical_or"
    for name, nin in OPS:
        def f(*xs):
            pre = [_e.ufunc(first, x, x) if i == 0 else x for i, x in enumerate(xs)]
            r = _e.ufunc(name, *pre)
            return _e.ufunc("positive" if r.dtype.kind not in "b" else "logical_not", r)

        with em.Device("cpu"):
            got, gerr = _outcome(lambda: em.eval(f(*(own(h) for h in hosts[:nin]))))
            want, werr = _outcome(lambda: unfused(f, *(own(h) for h in hosts[:nin])))
        assert gerr == werr, name
        if gerr is None:
            assert got.dtype == want.dtype and bits(got) == bits(want), name


def test_shared_subexpression_is_read_once(lazy, rng):
    code = ("import numpy as np, ember as em\n"
            "em._ember._fusion_config(min_size=0)\n"
            "x = em.asarray(np.arange(10.0), copy=True)\n"
            "y = x * x + x * x\n"
            "print(float(y[3]))\n")
    out = _debug_run(code)
    assert "18.0" in out
    # the two x*x are one node: 2 ops (multiply, add), 1 input
    assert "eval 2 ops, 1 input, cpu:0" in out


# ---- fused reductions -------------------------------------------------------------

RED_OPS = ["sum", "prod", "min", "max", "mean", "var", "std", "any", "all", "argmax",
           "argmin", "count_nonzero"]


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=str)
@pytest.mark.parametrize("op", RED_OPS)
def test_fused_reduction_bit_identical(lazy, rng, op, dtype):
    # 128 kept outputs: the CPU fuses a reduction when every thread gets >= 4
    # of them (fuse_reduce.c), and the GPU machine has 16 threads.
    a = random_array(rng, (128, 3, 70), dtype, low=0, high=4)
    fn = getattr(em, op)
    kw = {"axis": -1} if op.startswith("arg") or op == "count_nonzero" else {"axis": (1, 2)}

    def f(x):
        y = x * x if dtype.kind != "b" else x & x
        return fn(y, **kw)

    with em.Device("cpu"):
        x = own(a)
        before = stats()["reduce_chunks"]
        try:
            got = f(x)
        except TypeError as e:  # an op the dtype does not take: unfused must agree
            with pytest.raises(type(e)):
                unfused(f, own(a))
            return
        assert stats()["reduce_chunks"] > before, "the producer was not fused into the reduction"
        want = unfused(f, own(a))
        assert got.dtype == want.dtype and got.shape == want.shape
        assert bits(got) == bits(want)


@pytest.mark.parametrize("op", ["sum", "max", "mean", "argmax", "prod", "count_nonzero", "var"])
def test_reduction_of_pending_equals_unfused_on_device(device, lazy, rng, op):
    # CPU: banded when the axes allow; CUDA: one kernel computes the producer
    # inside the reduction (var is composed, so it evaluates first).
    a = rng.random((6, 7, 300)).astype(np.float32)
    fn = getattr(em, op)
    for axis in (-1, 1, (0, 2)) if not op.startswith("arg") else (-1, 1):
        def f(x):
            return fn(em.sqrt(x * 2.5 + 0.5), axis=axis)
        got = f(own(a, device))
        want = unfused(f, own(a, device))
        assert bits(got) == bits(want), (op, axis)
        with np.errstate(all="ignore"):
            assert_same(got, getattr(np, op)(np.sqrt(a * np.float32(2.5) + np.float32(0.5)),
                                             axis=axis), rtol=1e-4)


@pytest.mark.parametrize("shape,axis", [((300, 2000), -1), ((40, 10, 1000), (1, 2)),
                                        ((41, 7, 1000), -1)])
@pytest.mark.parametrize("op,kw", [("sum", {}), ("sum", {"keepdims": True}),
                                   ("sum", {"dtype": np.float64}), ("max", {}), ("mean", {}),
                                   ("std", {"ddof": 1}), ("argmin", {}), ("prod", {})])
def test_fused_reduction_many_bands(lazy, rng, shape, axis, op, kw):
    # Several bands (of ~2^18 elements, the last one short), run in parallel:
    # each band's rows of the result equal the unfused reduction's.
    if op == "argmin" and not isinstance(axis, int):
        axis = -1
    a = (rng.random(shape) + 0.5).astype(np.float32)
    fn = getattr(em, op)

    def f(x):
        return fn(x * 0.75 + 0.25, axis=axis, **kw)

    with em.Device("cpu"):
        before = stats()["reduce_chunks"]
        got = f(own(a))
        assert stats()["reduce_chunks"] - before >= 2
        want = unfused(f, own(a))
        assert got.dtype == want.dtype and got.shape == want.shape
        assert bits(got) == bits(want)


def test_seed004_fused_matches_numpy(lazy, rng):
    a = rng.random((20, 10, 300)).astype(np.float32)
    with em.Device("cpu"):
        x = own(a)
        before = stats()["reduce_chunks"]
        got = em.sqrt(em.sum(x**2, axis=-1))
        assert stats()["reduce_chunks"] > before
        want = unfused(lambda v: em.sqrt(em.sum(v**2, axis=-1)), own(a))
        assert bits(got) == bits(want)
        assert_same(got, np.sqrt(np.sum(a**2, axis=-1)))


def test_reduction_keeps_the_pending_input(lazy, rng):
    a = rng.random((64, 100))
    with em.Device("cpu"):
        y = own(a) * 3
        s = y.sum(axis=1)
        assert pending(y)  # the fused reduction did not materialise y
        assert_same(s, (a * 3).sum(axis=1))
        assert_same(y, a * 3)


def test_reduction_that_cannot_fuse_evaluates_first(device, lazy, rng):
    # On the CPU a reduced leading axis over rows wider than the outer mode's
    # vector chunk (8192) evaluates the producer, then reduces (narrower rows
    # and full reductions fetch it in bands); a CUDA reduction kernel takes
    # any producer in.
    a = rng.random((64, 100))
    w = rng.random((6, 9000))
    y = own(w, device) * 3
    s = y.sum(axis=0)
    assert pending(y) == (device.kind != "cpu")
    assert_same(s, (w * 3).sum(axis=0))
    y = own(a, device) * 3
    assert_same(y.sum(axis=0), (a * 3).sum(axis=0))
    assert pending(y)
    t = own(a, device) * 3
    assert_same(t.sum(), (a * 3).sum())
    assert pending(t)
    v = own(a, device) * 3
    # var is composed of elementwise ops on its input: the CPU bands take it
    # in (each band is an ordinary em_reduce); CUDA evaluates first
    assert_same(v.var(axis=1), (a * 3).var(axis=1))
    assert pending(v) == (device.kind == "cpu")


# ---- evaluation triggers ----------------------------------------------------------

@pytest.mark.parametrize("trigger", ["asarray", "repr", "str", "item", "bool", "float", "index",
                                     "setitem", "tolist", "eval", "synchronize", "out", "get",
                                     "reshape", "astype", "cumsum"])
def test_each_trigger_evaluates(device, lazy, trigger):
    x = own(np.arange(1.0, 7.0), device)
    y = x * 2
    assert pending(y)
    act = {
        "asarray": lambda: np.asarray(y.get()),
        "repr": lambda: repr(y),
        "str": lambda: str(y),
        "item": lambda: y.item(0),
        "bool": lambda: bool(y[:1]),
        "float": lambda: float(y[:1]),
        "index": lambda: y[2],
        "setitem": lambda: y.__setitem__(0, -1.0),
        "tolist": lambda: y.tolist(),
        "eval": lambda: em.eval(y),
        "synchronize": lambda: em.Device(str(device)).synchronize(),
        "out": lambda: em.add(y, 1, out=y),
        "get": lambda: y.get(),
        "reshape": lambda: y.reshape(2, 3),
        "astype": lambda: y.astype(np.float32),
        "cumsum": lambda: em.cumsum(y),
    }[trigger]
    act()
    assert not pending(y)
    want = np.arange(1.0, 7.0) * 2
    if trigger == "setitem":
        want[0] = -1
    if trigger == "out":
        want += 1
    assert_same(y, want)


def test_write_into_an_input_evaluates_its_readers_first(device, lazy):
    x = own(np.arange(6.0), device)
    y = x * 2
    z = y + x
    x[0] = 100.0                      # setitem on the input
    assert not pending(y) and not pending(z)
    assert_same(y, np.arange(6.0) * 2)
    assert_same(z, np.arange(6.0) * 3)
    y2 = x * 2
    x += 1                            # in-place op on the input
    assert_same(y2, np.r_[200.0, np.arange(1.0, 6.0) * 2])
    y3 = x * 2
    v = x[2:4]                        # a view of the input, written later
    v[...] = -5.0
    assert float(y3[2]) == 3.0 * 2  # x[2] was 3 when y3 was made


def test_input_written_through_out_while_pending(device, lazy):
    x = own(np.arange(6.0), device)
    y = x + 1
    em.multiply(x, 3, out=x)
    assert_same(y, np.arange(6.0) + 1)
    assert_same(x, np.arange(6.0) * 3)


def test_stream_change_and_event_evaluate_pending(device, lazy):
    if device.kind != "cuda":
        pytest.skip("CUDA streams and events")
    x = own(np.arange(6.0), device)
    with em.Stream():
        y = x * 2
    assert not pending(y)  # it ran on the stream that was current when asked
    z = x + 1
    em.Event().record()
    assert not pending(z)
    assert_same(y, np.arange(6.0) * 2)
    assert_same(z, np.arange(6.0) + 1)


def test_a_threads_stream_change_leaves_other_threads_work(device, lazy):
    # Work pending in one thread belongs to the stream current there (one of
    # its device's context); another thread's stream change must not run it
    # on its own stream, and forcing it from there runs it on the asker's.
    import threading
    x = own(np.arange(6.0), device)
    made, go, box = threading.Event(), threading.Event(), {}

    def worker():
        with em.Device(str(device)):
            s = em.Stream(non_blocking=True)
            with s:
                box["y"], box["z"] = x * 2, x + 1
                made.set()
                go.wait(60)
                box["still"] = pending(box["y"])
            box["after"] = pending(box["y"])
            # y's kernel is queued on a stream that does not wait for, nor is waited
            # for by, the main thread's: hand it over only once it ran (the main
            # thread's read raced it on the H100 under load, session 20)
            s.synchronize()

    t = threading.Thread(target=worker)
    t.start()
    assert made.wait(60)
    with em.Stream():
        pass
    assert pending(box["y"]) and pending(box["z"])  # not this thread's to flush
    assert_same(box["z"], np.arange(6.0) + 1)       # forced here, on the worker's stream
    go.set()
    t.join(60)
    assert box["still"] and not box["after"]  # the worker's own stream change ran it
    assert_same(box["y"], np.arange(6.0) * 2)


FAKE_THREADS = """
import threading
from ember import _ember
_ember._fusion_config(enabled=True, min_size=0)
x = em.asarray(np.arange(6.0), device="cuda:0")
made, go, box = threading.Event(), threading.Event(), {}
def worker():
    with em.Device("cuda:0"), em.Stream(non_blocking=True) as s:
        box["s"], box["z"] = s.ptr, x + 1
        made.set()
        go.wait(60)
t = threading.Thread(target=worker)
t.start()
made.wait(60)
with em.Stream():
    pass
waits = lambda: ctypes.c_int.in_dll(fake, "fake_stream_waits").value
print(_ember._is_pending(box["z"]))
w0 = waits()
em.eval(box["z"])
print(stream() == box["s"], waits() > w0)
go.set()
t.join(60)
"""


def test_another_threads_work_launches_on_its_stream_under_the_fake_driver(fake_lib, tmp_path):
    # The fake driver records each launch's stream and counts stream waits:
    # work asked in a worker's stream and forced from the main thread
    # launches there, and the main thread's stream then waits for it.
    if not nvrtc_available():
        pytest.skip("NVRTC is not installed")
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path), EMBER_LIBCUDA=fake_lib,
               FAKE_LIB=fake_lib, EMBER_CACHE_DIR=str(tmp_path))
    env.pop("EMBER_DEVICE", None)
    r = subprocess.run([sys.executable, "-c", FAKE_PROLOGUE + FAKE_THREADS], capture_output=True,
                       text=True, env=env, timeout=120)
    assert r.returncode == 0, r.stderr
    assert r.stdout.split() == ["True", "True", "True"]


def test_dropped_result_is_still_computed(device, lazy):
    x = own(np.arange(6.0), device)
    before = stats()["evals"]
    x * 2  # noqa: B018 - the result is dropped unread: it runs, as the eager op would
    assert stats()["evals"] == before + 1


def test_intermediates_are_not_computed_twice(device, lazy):
    x = own(np.arange(6.0), device)
    before = stats()["evals"]
    y = ((x * 2 + 1) * 3 - 4) / 5  # four temporaries dropped; one evaluation at the read
    y.get()
    assert stats()["evals"] == before + 1


def _debug_run(code, env_extra=None):
    # The log lines name cpu:0 and depend on the worker count: pin both.
    env = dict(os.environ, EMBER_DEBUG="1", PYTHONPATH=os.pathsep.join(sys.path), EMBER_DEVICE="cpu",
               EMBER_NUM_THREADS="2")
    env.update(env_extra or {})
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env,
                       timeout=120)
    assert r.returncode == 0, r.stderr
    return r.stdout + r.stderr


def test_debug_log_names_each_reason():
    code = ("import numpy as np, ember as em\n"
            "em._ember._fusion_config(min_size=0)\n"
            "x = em.asarray(np.ones((8, 50)), copy=True)\n"
            "s = (x * 2).sum(axis=1)\n"
            "y = x * 3\n"
            "np.asarray(y.get())\n"
            "z = x\n"
            "for i in range(30): z = z + 1.0\n"
            "w = em.eval(x - 1)\n"
            "xs = [em.asarray(np.ones(4) * i, copy=True) for i in range(17)]\n"
            "t = xs[0]\n"
            "for v in xs[1:]: t = t + v\n"
            "em.eval(t)\n"
            "hi = em.asarray(np.ones((1,) * 32), copy=True)\n"
            "p = hi\n"
            "for i in range(9): p = p + em.asarray(np.ones((1,) * 32), copy=True)\n"
            "em._ember._fusion_config(max_live=2)\n"
            "a, b, c = x + 1, x + 2, x + 3\n")
    out = _debug_run(code)
    for reason in ["reduction sum, fused", "host read", "limit: depth", "em.eval",
                   "limit: distinct inputs", "limit: parameter bytes",
                   "limit: live pending arrays"]:
        assert f"(reason: {reason})" in out, (reason, out)
    assert "ember: eval 2 ops, 1 input, cpu:0 (reason: host read)" not in out
    assert "ember: eval 1 op, 2 inputs, cpu:0 (reason: host read)" in out


def test_memory_pressure_evaluates(lazy, rng):
    old = _e._fusion_config(max_bytes=1000)
    try:
        x = own(rng.random(100), "cpu")
        a = x * 2
        b = x * 3   # 1600 pending bytes > 1000: the oldest is evaluated
        assert not pending(a) and pending(b)
        assert_same(a, x.get() * 2)
    finally:
        _e._fusion_config(**old)


def test_limits_named_in_config_errors():
    with pytest.raises(ValueError, match="fusion limits must be integers"):
        _e._fusion_config(max_live=0)
    assert _e._fusion_config()["max_live"] >= 1  # and the settings are unchanged


def test_depth_limit_bounds_the_tree(device, lazy):
    x = own(np.zeros(10), device)
    y = x
    before = stats()["evals"]
    for _ in range(100):
        y = y + 1.0
    assert stats()["evals"] - before == 100 // 25  # one evaluation per 25 ops (depth limit)
    assert_same(y, np.full(10, 100.0))


# ---- stable kernel keys --------------------------------------------------------------

def test_loop_compiles_a_bounded_set_of_kernels(device, lazy):
    x = own(np.linspace(0, 1, 1000), device)
    ref = np.linspace(0, 1, 1000)
    x = x * 0.5 + 1
    x.get()
    before = stats()["kernels"]
    for i in range(100):
        x = x * 0.5 + 1
        ref = ref * 0.5 + 1
    x.get()
    assert stats()["kernels"] - before <= 3
    assert_same(x, ref)


def test_scalar_values_do_not_change_the_key(device, lazy):
    x = own(np.arange(100.0), device)
    (x * 0.5 + 1).get()
    before = stats()["kernels"]
    for i in range(20):
        y = x * (i + 0.25) + (2.0 * i)
        assert_same(y, np.arange(100.0) * (i + 0.25) + 2.0 * i)
    assert stats()["kernels"] == before


# ---- aliasing and in-place ---------------------------------------------------------

def test_inplace_add_reversed_view(device, lazy):
    a = np.arange(10.0)
    x = own(a, device)
    x += x[::-1]
    a += a[::-1].copy()
    assert_same(x, a)
    y = own(np.arange(10.0), device) * 2
    y += y[::-1]
    assert_same(y, np.arange(10.0) * 2 + (np.arange(10.0) * 2)[::-1])


def test_setitem_of_a_function_of_itself(device, lazy):
    a = np.arange(12.0).reshape(3, 4)
    x = own(a, device)
    x[...] = em.sqrt(x * 2 + 1)
    assert_same(x, np.sqrt(a * 2 + 1))
    x[1:] = x[:-1] * 10
    b = np.sqrt(a * 2 + 1)
    b[1:] = b[:-1].copy() * 10
    assert_same(x, b)


def test_pending_operand_of_a_view_op(device, lazy):
    x = own(np.arange(12.0), device)
    y = (x * 2).reshape(3, 4).T + 1
    assert_same(y, (np.arange(12.0) * 2).reshape(3, 4).T + 1)


# ---- memory -------------------------------------------------------------------------

def test_eight_op_chain_peak_is_inputs_plus_output(lazy, rng):
    n = 1 << 22
    with em.Device("cpu"):
        x = own(rng.random(n).astype(np.float32))
        em.eval(x * 1)  # warm the pool's size class and the loops
        base = _e.host_pool()[0]
        _e._host_pool_peak(True)
        y = ((((((x + 1.5) * 0.5 - 2.0) * x + 0.25) / 3.0) - x) * 1.25)
        em.eval(y)
        fused_peak = _e._host_pool_peak() - base
        out = y.nbytes
        del y
        base = _e.host_pool()[0]
        _e._host_pool_peak(True)
        z = unfused(lambda v: ((((((v + 1.5) * 0.5 - 2.0) * v + 0.25) / 3.0) - v) * 1.25), x)
        eager_peak = _e._host_pool_peak() - base
    # the output, plus the interpreter's per-thread scratch (about 1 MiB each)
    scratch = (em._ember.num_threads() + 1) * (1 << 20)
    assert out <= fused_peak <= out + scratch, (fused_peak, out)
    assert eager_peak >= 2 * out  # eager holds an intermediate next to the output
    assert bits(z) == bits(em.eval(((((((x + 1.5) * 0.5 - 2.0) * x + 0.25) / 3.0) - x) * 1.25)))


# ---- em.fuse and em.eval -----------------------------------------------------------

def test_fuse_decorator(device, rng):
    @em.fuse
    def f(a, b):
        return (a - b) * (a + b), a * b

    a, b = rng.random(10), rng.random(10)
    before = stats()["evals"]
    p, q = f(own(a, device), own(b, device))   # small arrays: lazy inside em.fuse
    assert not pending(p) and not pending(q)
    assert stats()["evals"] == before + 2
    assert_same(p, (a - b) * (a + b))
    assert_same(q, a * b)

    @em.fuse(kernel_name="g")
    def g(a):
        return em.exp(a) + 1

    assert_same(g(own(a, device)), np.exp(a) + 1)


def test_eval_returns_its_arguments(device, lazy):
    x = own(np.arange(3.0), device)
    y = em.eval(x + 1)
    assert not pending(y)
    p, q = em.eval(x + 1, x * 2)
    assert_same(p, np.arange(3.0) + 1)
    assert_same(q, np.arange(3.0) * 2)
    assert em.eval(x) is x


def test_more_inputs_than_one_kernel_takes(device, lazy):
    # 20 distinct arrays in one chain: the expression over the limit has its
    # inputs evaluated first (a CUDA kernel takes 15), and the values are the
    # eager chain's.
    hosts = [np.full((3, 4), float(i)) for i in range(20)]
    xs = [own(h, device) for h in hosts]
    t = xs[0]
    for v in xs[1:]:
        t = t + v
    want = hosts[0]
    for h in hosts[1:]:
        want = want + h
    assert bits(t) == bits(own(want, device))
    u = xs[0] * 1.0
    for v in xs[1:]:
        u = u * 0.5 + v
    em.eval(u)
    del u  # and a dropped result over the limit is fine too
    w = xs[0] + 0
    for v in xs[1:]:
        w = w - v


# ---- CPU full reductions in one pass ------------------------------------------------
# A full reduction of a pending producer runs on a placeholder whose values
# the CPU reduction fetches band by band (backend/reduce_src.h): cut only
# where the reduction of the materialised input combines values anyway, so
# fused == unfused bit for bit.

# Sizes around the edges: the kernel's pairwise base case (128), a conversion
# block (8192), the single-thread limit (2 x 65536), a band (2^18), pieces.
FULL_SIZES = [1, 127, 129, 8193, 131071, 131073]
FULL_BIG = [(1 << 18) + 1, 3 * (1 << 18) + 8195]
FUSES_FULL = {"sum", "prod", "min", "max", "mean", "count_nonzero", "argmin", "argmax", "any", "all"}


def _fuses_full(op, dtype):
    """Whether the CPU fetches a full reduction's input in bands (fuse_reduce.c):
    not var/std (composed of elementwise ops on the input), any/all only of
    bool (others are cast first), min/max not of float32/64 or complex (the
    vector kernel's lanes pick between -0.0 and 0.0 by position)."""
    dtype = np.dtype(dtype)
    if op in ("any", "all"):
        return dtype == np.bool_
    if op in ("min", "max"):
        return dtype.kind not in "fc" or dtype == np.float16
    return op in FUSES_FULL


def _full_case(rng, op, dtype, shape, tree=None):
    a = random_array(rng, shape, dtype, low=0, high=3)
    b = random_array(rng, shape[-1:], dtype, low=0, high=3)
    fn = getattr(em, op)
    dtype = np.dtype(dtype)

    def f(x, y):
        t = tree(x, y) if tree else (x * y + x if dtype.kind != "b" else (x & y) | x)
        return fn(t)

    with em.Device("cpu"):
        before = stats()["reduce_chunks"]
        try:
            got = f(own(a), own(b))
        except TypeError as e:  # an op the dtype does not take: unfused must agree
            with pytest.raises(type(e)):
                unfused(f, own(a), own(b))
            return None
        chunks = stats()["reduce_chunks"] - before
        want = unfused(f, own(a), own(b))
    assert got.dtype == want.dtype and got.shape == want.shape
    assert bits(got) == bits(want), (op, dtype, shape)
    return chunks


@pytest.mark.parametrize("n", FULL_SIZES)
@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=str)
@pytest.mark.parametrize("op", RED_OPS)
def test_full_reduction_fused_bit_identical(on_cpu, lazy, rng, op, dtype, n):
    chunks = _full_case(rng, op, dtype, (n,))
    if chunks is not None:
        assert (chunks >= 1) == _fuses_full(op, dtype), "fused where it should not, or not fused"


@pytest.mark.parametrize("n", FULL_BIG)
@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.complex64, np.float16, np.int8,
                                   np.uint32, np.bool_], ids=str)
@pytest.mark.parametrize("op", ["sum", "prod", "max", "mean", "argmin", "count_nonzero"])
def test_full_reduction_fused_many_bands(on_cpu, lazy, rng, op, dtype, n):
    chunks = _full_case(rng, op, dtype, (n,))
    # one chunk per fetched band: several bands, on both threads
    assert chunks is None or not _fuses_full(op, dtype) or chunks >= 2


@pytest.mark.parametrize("shape", [(600, 1001), (7, 3, 5), (1, 1), (2, 70001), (300, 1, 999)])
@pytest.mark.parametrize("op", ["sum", "prod", "min", "mean", "count_nonzero"])
@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.complex128, np.int16], ids=str)
def test_full_reduction_nd_fused(on_cpu, lazy, rng, op, dtype, shape):
    # N-d: bands are fetched as whole rows of axis 0 covering the elements a
    # band needs (the cut points fall inside rows).
    _full_case(rng, op, dtype, shape)


@pytest.mark.parametrize("kw", [{}, {"keepdims": True}, {"axis": (0, 1)}, {"axis": (1, -2)},
                                {"dtype": np.float64}])
def test_full_reduction_fused_keyword_forms(on_cpu, lazy, rng, kw):
    a = rng.random((400, 901)).astype(np.float32)
    with em.Device("cpu"):
        before = stats()["reduce_chunks"]
        got = em.sum(own(a) * 1.5 - 0.25, **kw)
        assert stats()["reduce_chunks"] > before
        want = unfused(lambda x: em.sum(x * 1.5 - 0.25, **kw), own(a))
    assert got.shape == want.shape and got.dtype == want.dtype and bits(got) == bits(want)
    assert_same(got, np.sum(a * np.float32(1.5) - np.float32(0.25), **kw), rtol=1e-5)


@pytest.mark.parametrize("layout", ["strided", "negative", "broadcast", "0-d", "empty"])
@pytest.mark.parametrize("op", ["sum", "prod", "max", "argmax"])
def test_full_reduction_fused_leaf_layouts(on_cpu, lazy, rng, op, layout):
    big = rng.random(2 * 300007) + 0.5
    fn = getattr(em, op)
    with em.Device("cpu"):
        if layout == "strided":
            mk = lambda: own(big)[::2]
        elif layout == "negative":
            mk = lambda: own(big)[::-2]
        elif layout == "broadcast":  # a (1, k) leaf against an (m, k) one, flattened by the op
            mk = lambda: (own(big[:300 * 701].reshape(300, 701)) * own(big[:701].reshape(1, 701)))
        elif layout == "0-d":
            mk = lambda: own(np.float64(2.5))
        else:
            mk = lambda: own(np.zeros(0))

        def f(x):
            return fn(x * x - x)

        x = mk()
        if layout == "empty" and op in ("max", "argmax"):
            with pytest.raises(ValueError, match="empty|zero-size"):
                f(x)
            assert_same(em.sum(own(np.arange(3.0)) * 2), np.float64(6))  # still works
            return
        if op == "argmax" and layout == "broadcast":
            x = x[0]  # argmax over every axis of an N-d array is flattened first
        got = f(x)
        # the unfused leaves are built with fusion off too (eager throughout)
        want = unfused(lambda: f(mk()[0] if op == "argmax" and layout == "broadcast" else mk()))
        assert bits(got) == bits(want)
        ref = np.asarray(x.get(), dtype=np.float64)
        assert_same(got, getattr(np, op)(ref * ref - ref), rtol=1e-12)


def test_full_reduction_peak_has_no_full_size_temporary(on_cpu, lazy, rng):
    n = 1 << 22
    with em.Device("cpu"):
        x = own(rng.random(n).astype(np.float32))
        y = own(rng.random(n).astype(np.float32))

        def tree(a, b):
            return em.sum(((a * b + 0.5) * a - b) / 3.0)

        tree(x, y).get()  # warm the pool's size classes and the loops
        base = _e.host_pool()[0]
        _e._host_pool_peak(True)
        got = tree(x, y)
        got.get()
        fused_peak = _e._host_pool_peak() - base
        base = _e.host_pool()[0]
        _e._host_pool_peak(True)
        want = unfused(tree, x, y)
        eager_peak = _e._host_pool_peak() - base
    # per thread: a band (2^18 elements, 1 MiB) and the interpreter's scratch
    # (about 1 MiB): a few MiB, far below the 16 MiB producer
    full = n * 4
    assert fused_peak <= (em._ember.num_threads() + 1) * (3 << 20) < full, fused_peak
    assert eager_peak >= full  # the unfused chain holds the producer
    assert bits(got) == bits(want)


def _banded_reduction(rng, op, dtype, shape, axis):
    """op(x*x + x, axis) on the CPU, fused and unfused: they must agree bit
    for bit.  The number of input bands fetched, or None where the op
    refuses the dtype (both ways, with the same error)."""
    a = random_array(rng, shape, dtype, low=0, high=3)
    fn = getattr(em, op)
    dt = np.dtype(dtype)

    def f(x):
        return fn(x * x + x if dt.kind != "b" else (x & x) | x, axis=axis)

    with em.Device("cpu"):
        before = stats()["reduce_chunks"]
        try:
            got = f(own(a))
        except TypeError as e:
            with pytest.raises(type(e)):
                unfused(f, own(a))
            return None
        chunks = stats()["reduce_chunks"] - before
        want = unfused(f, own(a))
    assert got.dtype == want.dtype and got.shape == want.shape
    assert bits(got) == bits(want)
    return chunks


@pytest.mark.parametrize("shape,axis", [((3, 400003), -1), ((2, 5, 70001), (1, 2)),
                                        ((1, 300001), 1), ((5, 3, 7), (1, 2)), ((7, 262147), -1)])
@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.complex64, np.float16, np.int32,
                                   np.bool_], ids=str)
@pytest.mark.parametrize("op", ["sum", "prod", "min", "mean", "argmax", "count_nonzero", "any"])
def test_few_output_suffix_reduction_fused(on_cpu, lazy, rng, op, dtype, shape, axis):
    # Fewer kept outputs than 4 per thread: each output's run is fetched in
    # bands (split over the threads when long), boxes inside rows of axis 0.
    if op in ("argmax", "count_nonzero") and not isinstance(axis, int):
        axis = -1
    chunks = _banded_reduction(rng, op, dtype, shape, axis)
    if chunks is None:
        return
    # fetched in bands (the kept outputs are too few for the row bands)
    assert (chunks >= 1) == _fuses_full(op, dtype)
    if np.prod(shape) > 4 * (1 << 18) and _fuses_full(op, dtype):
        assert chunks >= 4


def test_few_output_suffix_peak(on_cpu, lazy, rng):
    a = rng.random((2, 1 << 21)).astype(np.float32)
    with em.Device("cpu"):
        x = own(a)
        f = lambda v: em.sum(v * 2.0 + v, axis=-1)
        f(x).get()
        base = _e.host_pool()[0]
        _e._host_pool_peak(True)
        got = f(x)
        got.get()
        peak = _e._host_pool_peak() - base
        want = unfused(f, x)
    assert peak <= (em._ember.num_threads() + 1) * (3 << 20) < a.nbytes, peak
    assert bits(got) == bits(want)


@pytest.mark.parametrize("shape,axis", [((3000, 701), 0), ((40, 30, 257), (0, 1)), ((9, 8192), 0),
                                        ((5, 3), 0), ((100003, 3), 0), ((1, 5), 0), ((7, 9000), 0)])
@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.complex64, np.float16, np.int8,
                                   np.bool_], ids=str)
@pytest.mark.parametrize("op", ["sum", "prod", "min", "max", "mean", "count_nonzero", "all"])
def test_leading_axis_reduction_fused(on_cpu, lazy, rng, op, dtype, shape, axis):
    # A reduced leading axis with few kept values: the outer mode accumulates
    # whole rows; they are fetched in bands of rows (the kept vector is one
    # chunk), or, where the mode would split the vector, the input is
    # evaluated first (a 9000-wide vector).
    chunks = _banded_reduction(rng, op, dtype, shape, axis)
    if chunks is None:
        return
    dt = np.dtype(dtype)
    one_pass = op != "all" or dt == np.bool_
    assert (chunks >= 1) == (one_pass and shape[-1] <= 8192)
    if one_pass and np.prod(shape) > 2 * (1 << 18) and shape[-1] <= 8192:
        assert chunks >= 2


def test_one_pending_array_as_several_operands_of_an_eager_op(rng):
    """x * x with x pending and fusion off: forcing the first operand must
    refresh the second (it is the same array); it read no data and crashed."""
    a, b = rng.random((300, 71)), rng.random((1, 71))
    old = _e._fusion_config(enabled=True, min_size=0)
    try:
        x = own(a) * own(b)
        assert pending(x)
        _e._fusion_config(enabled=False)
        np.testing.assert_array_equal((x * x).get(), (a * b) * (a * b))
        assert float(em.sum(x * x - x)) == pytest.approx(np.sum((a * b) * (a * b) - a * b))
    finally:
        _e._fusion_config(**old)


def test_integer_power_of_a_pending_array_by_itself(rng, lazy):
    """x ** x forces the exponent (integer powers check their sign first):
    the base, the same array, must see the values too."""
    a = rng.integers(0, 4, 50).astype(np.int64)
    x = own(a) + 1
    assert pending(x)
    np.testing.assert_array_equal((x ** x).get(), (a + 1) ** (a + 1))


# ---- merged dims in reductions --------------------------------------------------
# CUDA plans merge neighbouring kept dims (and neighbouring reduced dims) over
# which every operand steps whole (render_reduce.c, em__merge_dims); a leaf
# that breaks the rule stops the merge for all.  Results must not change:
# fused == unfused bit for bit, and both match NumPy, on every layout.  The
# CPU reductions do not use the CUDA plan; they run the same checks.

_VIEWS = {  # each slices a NumPy array and an ember one alike
    "contiguous": lambda v: v[:6, :5, :30],
    "every-other-row": lambda v: v[:6, ::2, :30],  # the kept dims still merge
    "every-other-column": lambda v: v[:6, :5, ::2],
    "reversed-kept": lambda v: v[5::-1, 4::-1, :30],  # both reversed: they merge
    "reversed-first": lambda v: v[5::-1, :5, :30],  # only one: they do not
    "reversed-reduced": lambda v: v[:6, :5, 29::-1],
    "transposed": lambda v: v[:6, :5, :30].transpose(2, 0, 1),
}


@pytest.mark.parametrize("name", list(_VIEWS))
@pytest.mark.parametrize("axis", [-1, 0, (1, 2), (0, 2), None])
def test_reduction_merged_dims_layouts(device, lazy, rng, name, axis):
    base, view = rng.random((12, 10, 60)), _VIEWS[name]
    ref = view(base)
    assert_same(em.sum(view(own(base)), axis=axis), np.sum(ref, axis=axis))
    got = em.sum(view(own(base)) ** 2, axis=axis)
    want = unfused(lambda: em.sum(view(own(base)) ** 2, axis=axis))
    assert bits(got) == bits(want), (name, axis)
    assert_same(got, np.sum(ref ** 2, axis=axis))


@pytest.mark.parametrize("yshape", [(30,), (5, 30), (6, 1, 30), (6, 5, 1), (1, 5, 1), ()])
@pytest.mark.parametrize("axis", [-1, (1, 2), 0])
def test_reduction_merged_dims_broadcast_leaf(device, lazy, rng, yshape, axis):
    # y broadcast over both kept dims merges with x; over one of them it
    # stops the merge for x too.
    a, b = rng.random((6, 5, 30)), rng.random(yshape) + 0.5

    def f():
        return em.sum(own(a) * own(b) - own(a), axis=axis)
    got, want = f(), unfused(f)
    assert bits(got) == bits(want), (yshape, axis)
    assert_same(got, np.sum(a * b - a, axis=axis))


@pytest.mark.parametrize("shape,axis", [((), None), ((5, 0), 1), ((0, 5), 1), ((3, 0, 4), (0, 2)),
                                        ((1, 7, 1), -1), ((4, 1, 6), (1, 2))])
def test_reduction_merged_dims_degenerate(device, lazy, rng, shape, axis):
    a = rng.random(shape)
    got = em.sum(own(a) * 2.0, axis=axis)
    want = unfused(lambda: em.sum(own(a) * 2.0, axis=axis))
    assert bits(got) == bits(want)
    assert_same(got, np.sum(a * 2.0, axis=axis))
