"""The C launch path of @em.jit kernels (python/_ember/jit_launch.c): a warm
launch of ember arrays and scalars is matched against the signatures
registered after their first launch and launched without Python; every
other launch takes the Python path (Dispatcher._launch).  Checked here:
the fast path is taken (the kernel's _fast_launches counter), arguments
that must miss it do and give the Python path's results and errors, and,
against the fake CUDA driver (tests/c/fake_libcuda.c, in a subprocess),
the parameters it packs are the Python path's byte for byte."""
import os
import subprocess
import sys
import textwrap
import threading

import numpy as np
import pytest

import ember as em

from helpers import FAKE_PROLOGUE, nvrtc_available, to_np

pytestmark = [pytest.mark.skipif(not em._ember._cc_available(),
                                 reason="no C compiler: " + em._ember._cc_why()),
              pytest.mark.usefixtures("cpu_unless_device_param")]

HERE = os.path.dirname(os.path.abspath(__file__))


@em.jit
def bump(a, n, x):
    i = em.grid(1)
    if i < n:
        a[i] += x


@em.jit
def shape_of(a, out):
    if em.grid(1) == 0:
        out[0] = a.shape[0] * 100 + a.ndim * 10


@em.jit
def put(out, v):
    out[0] = v


@em.jit
def big_put(out, v):
    out[0] = v


@em.jit
def count(c):
    em.atomic.add(c, 0, 1)


@em.jit
def shout(n):
    if em.grid(1) < n:
        print("thread", em.grid(1), "of", n)


@em.jit(boundscheck=True)
def past_the_end(a, k):
    a[em.grid(1) + k] = 1


@em.jit
def reverse_shared(a, out):
    s = em.shared.array(0, np.float32)
    t = em.threadIdx.x
    s[t] = a[t]
    em.syncthreads()
    out[t] = s[s.shape[0] - 1 - t]


def _fast(k):
    return k._fast_launches


def _c_path(device):
    """Whether launches on device can take the C path (CPU and CUDA; OpenCL
    launches always go through Python: dispatch.py's _opencl)."""
    return not str(device).startswith("opencl")


def _fast_or_zero(k, device, n):
    """n fast launches where the C path exists, else none."""
    return n if _c_path(device) else 0


def test_a_warm_launch_is_taken_by_the_c_path(device):
    a = em.zeros(8, dtype="float32", device=device)
    launch = bump[1, 8]
    f0, c0 = _fast(bump), bump.compile_count
    for _ in range(5):
        launch(a, 8, np.float32(0.5))
    for _ in range(3):
        bump[1, 8](a, 8, np.float32(0.5))  # kernel[...] finds the same launcher
    assert bump[1, 8] is launch
    assert _fast(bump) - f0 >= _fast_or_zero(bump, device, 7)  # all but the first (which registers; earlier tests may have)
    assert bump.compile_count - c0 <= 1
    np.testing.assert_array_equal(to_np(a), np.full(8, 4.0, np.float32))
    assert repr(launch) == "<ember.jit launch bump[(1, 1, 1), (8, 1, 1)]>"
    assert (launch.grid, launch.block, launch.stream, launch.shmem, launch.disp) == ((1, 1, 1), (8, 1, 1), None, 0, bump)
    with pytest.raises(TypeError, match="positional arguments only"):
        launch(a, 8, x=np.float32(0.5))


def test_argument_changes_miss_and_match_the_python_path(device):
    """Each new dtype, ndim or contiguity launches through Python once (and
    compiles once), then through C; the results are the same either way."""
    out = em.zeros(1, dtype="int64", device=device)
    launch = shape_of[1, 1]
    cases = [
        em.asarray(np.arange(5, 10, dtype=np.int32), device=device),
        em.asarray(np.arange(5, 10, dtype=np.float64), device=device),
        em.asarray(np.arange(12, dtype=np.int32).reshape(3, 4), device=device),
        em.asarray(np.arange(5, 15, dtype=np.int32), device=device)[::2],
        em.asarray(np.arange(24, dtype=np.int32).reshape(4, 6), device=device)[:, ::3],
    ]
    want = [510, 510, 320, 510, 420]
    for a, w in zip(cases, want):
        f0, c0 = _fast(shape_of), shape_of.compile_count
        launch(a, out)
        assert _fast(shape_of) == f0, "a new signature launches through Python"
        assert shape_of.compile_count - c0 <= 1
        assert int(to_np(out)[0]) == w
        out = em.zeros(1, dtype="int64", device=device)
        launch(a, out)
        assert _fast(shape_of) == f0 + _fast_or_zero(shape_of, device, 1), "then through C"
        assert int(to_np(out)[0]) == w
    # NumPy arrays always launch through Python (copied to a GPU and back)
    f0 = _fast(shape_of)
    h = np.zeros(1, np.int64)
    for _ in range(2):
        launch(np.arange(5, 10, dtype=np.int32), h)
    assert _fast(shape_of) == f0 and h[0] == 510


def test_read_only_array_for_a_written_parameter(device):
    out = em.zeros(1, dtype="int64", device=device)
    a = em.asarray(np.arange(3, dtype=np.int32), device=device)
    shape_of[1, 1](a, out)
    shape_of[1, 1](a, out)  # registered
    ro = em.broadcast_to(em.zeros(1, dtype="int64", device=device), (1,))
    assert not ro._writeable
    f0 = _fast(shape_of)
    with pytest.raises(TypeError, match="argument 'out' is read-only but the kernel writes to it"):
        shape_of[1, 1](a, ro)
    assert _fast(shape_of) == f0
    ra = em.broadcast_to(a, a.shape)
    assert not ra._writeable and ra._c_contiguous
    shape_of[1, 1](ra, out)  # a read-only array where the kernel only reads is fine (and fast)
    assert _fast(shape_of) == f0 + _fast_or_zero(shape_of, device, 1)


def test_scalar_types_are_part_of_the_signature(device):
    out = em.zeros(1, dtype="float64", device=device)
    launch = put[1, 1]
    for v in [3, 2.5, True, np.int8(-4), np.uint16(7), np.float32(1.25), np.float64(0.75), np.bool_(True),
              np.uint64(2**64 - 1), np.int64(-9)]:
        for _ in range(2):
            out = em.zeros(1, dtype="float64", device=device)
            launch(out, v)
            assert to_np(out)[0] == np.float64(v), v


def test_python_int_beyond_int64(device):
    """A Python int types as int64, or uint64 beyond; the C path takes only
    ints that fit int64 and leaves the rest to Python, which does what it did."""
    big = em.jit(big_put.py_func)  # its own counters on every device
    out = em.zeros(1, dtype="uint64", device=device)
    launch = big[1, 1]
    for _ in range(2):
        launch(out, 2**64 - 1)  # the first signature is uint64: never registered
    assert (big._fast_signatures, _fast(big)) == (0, 0)
    assert int(to_np(out)[0]) == 2**64 - 1
    launch(out, 5)
    launch(out, 5)
    one = _fast_or_zero(big, device, 1)
    assert (big._fast_signatures, _fast(big)) == (one, one)
    errors = []
    for call in (lambda: launch(out, 2**63), lambda: big._launch(launch, (out, 2**63))):
        with pytest.raises(Exception) as e:
            call()
        errors.append((type(e.value), str(e.value)))
    assert errors[0] == errors[1]
    assert _fast(big) == one


def test_print_from_the_c_path(capsys):
    launch = shout[1, 3]
    f0 = _fast(shout)
    for _ in range(3):
        launch(2)
    assert capsys.readouterr().out == "thread 0 of 2\nthread 1 of 2\n" * 3
    assert _fast(shout) - f0 >= 2


def test_bounds_checking(device):
    k = em.jit(past_the_end.py_func, boundscheck=True)  # its own counters on every device
    a = em.zeros(4, dtype="int32", device=device)
    for _ in range(3):
        k[1, 4](a, 0)
        with pytest.raises(IndexError, match="out of bounds"):
            k[1, 4](a, 1)
    if str(device).startswith("cuda"):
        assert k._fast_signatures == 0  # the error slot is read back by Python


def test_dynamic_shared_memory_and_stream(device):
    a = em.asarray(np.arange(64, dtype=np.float32), device=device)
    stream = em.Stream() if str(device).startswith("cuda") else None
    launch = reverse_shared[1, 64, stream, 64 * 4]
    f0 = _fast(reverse_shared)
    for _ in range(3):
        out = em.zeros(64, dtype="float32", device=device)
        launch(a, out)
        if stream is not None:
            stream.synchronize()
        np.testing.assert_array_equal(to_np(out), np.arange(64, dtype=np.float32)[::-1])
    assert _fast(reverse_shared) - f0 >= _fast_or_zero(reverse_shared, device, 2)


def test_pending_arguments_are_evaluated_first(device):
    old = em._ember._fusion_config(min_size=0)
    try:
        a = em.zeros(4, device=device)
        launch = bump[1, 4]
        for k in range(3):
            b = a + 1
            c = b * 2  # reads b: evaluated before the kernel writes b
            assert em._ember._is_pending(b) or not em._ember._fusion_config()["enabled"]
            launch(b, 4, 1.0)
            np.testing.assert_array_equal(to_np(b), [2.0] * 4)
            np.testing.assert_array_equal(to_np(c), [2.0] * 4)
    finally:
        em._ember._fusion_config(enabled=old["enabled"], min_size=old["min_size"])


def test_launches_from_threads(device):
    c = em.zeros(1, dtype="int64", device=device)
    launch = count[2, 32]
    launch(c)

    def work():
        for _ in range(100):
            launch(c)

    ts = [threading.Thread(target=work) for _ in range(4)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    assert int(to_np(c)[0]) == 64 * 401


def test_configurations_are_kept():
    assert bump[2, 4] is bump[2, 4]
    assert bump[[2], [4]] is not bump[[2], [4]]  # unhashable: made each time, not kept
    a = em.zeros(4, dtype="float32", device="cpu")
    bump[[1], [4]](a, 4, np.float32(1))
    assert to_np(a)[0] == 1

    many = em.jit(count.py_func)

    x = em.zeros(1, dtype="int64", device="cpu")
    for g in range(1, 100):
        many[g, 1](x)
    assert len(many._configs) == 64
    assert to_np(x)[0] == sum(range(1, 100))
    with pytest.raises(TypeError, match="device function"):
        em.jit(device=True)(lambda: None)[1, 1]


def test_raw_kernel_subclasses_keep_their_call():
    src = 'extern "C" __global__ void k(int *a) { a[threadIdx.x] += 1; }'

    class Plain(em.RawKernel):
        pass

    class Own(em.RawKernel):
        def __call__(self, *args, **kwargs):
            return "own"

    a = em.zeros(4, dtype="int32", device="cpu")
    em.RawKernel(src, "k")((1,), (4,), (a,))
    Plain(src, "k")((1,), (4,), (a,))
    Plain(src, "k")((1,), (4,), (a,), shared_mem=0, stream=None)
    np.testing.assert_array_equal(to_np(a), [3] * 4)
    assert Own(src, "k")((1,), (4,), (a,)) == "own"
    with pytest.raises(TypeError, match="unexpected keyword argument 'shmem'"):
        Plain(src, "k")(1, 4, (a,), shmem=4)


# ---- the CUDA host path against the fake driver ----------------------------------------------

KERNELS = '''
import numpy as np, ember as em

@em.jit
def arrays(a, b, c, d, out):
    i = em.grid(1)
    if i < a.shape[0]:
        out[i] = a[i] + b[0, i] + c[i, 0, 0] + d[i]

@em.jit
def scalars(out, n, x, flag, i8, u16, f32, f64, nb, u64, i64, u8, i32, u32, i16):
    if em.grid(1) == 0:
        out[0] = n + x + flag + i8 + u16 + f32 + f64 + nb + i64 + u8 + i32 + u32 + i16
        out[1] = u64

@em.jit
def fill(out, v):
    i = em.grid(1)
    if i < out.size:
        out[i] = v

@em.jit(boundscheck=True)
def checked(out, v):
    out[em.grid(1)] = v
'''


def _fake(fake_lib, tmp_path, code):
    if not nvrtc_available():
        pytest.skip("NVRTC is not installed")
    (tmp_path / "fake_jit_kernels.py").write_text(KERNELS)
    prologue = FAKE_PROLOGUE + textwrap.dedent("""
        import sys
        sys.path.insert(0, os.environ["KDIR"])
        from fake_jit_kernels import arrays, scalars, fill, checked
        def last():
            return cfg(), stream(), params(4096)
        def clobber():  # the fake keeps the last launch: make sure the next one is seen
            ctypes.memset(ctypes.addressof((ctypes.c_ubyte * 4096).in_dll(fake, "fake_last_params")), 0xAB, 4096)
        def fast_and_slow(k, launch, *args):
            '''The C path's launch and the Python path's, as the fake saw them.'''
            f0 = k._fast_launches
            clobber(); launch(*args)
            assert k._fast_launches == f0 + 1, "not taken by the C path"
            n = len(k._packed(0, args))
            fast = last()
            clobber(); k._launch(launch, args)
            assert k._fast_launches == f0 + 1
            slow = last()
            return fast[:2] == slow[:2] and fast[2][:n] == slow[2][:n], n
    """)
    env = dict(os.environ, PYTHONPATH=os.path.join(HERE, "..", "..", "python"), EMBER_LIBCUDA=fake_lib,
               FAKE_LIB=fake_lib, EMBER_CACHE_DIR=str(tmp_path / "cache"), KDIR=str(tmp_path))
    env.pop("EMBER_DEVICE", None)
    r = subprocess.run([sys.executable, "-c", prologue + textwrap.dedent(code)], capture_output=True, text=True,
                       env=env, timeout=300)
    assert r.returncode == 0, r.stderr
    return r.stdout.split("\n")[:-1]


def test_fake_parameters_byte_for_byte(fake_lib, tmp_path):
    out = _fake(fake_lib, tmp_path, """
        a = em.zeros(6, dtype=em.float32)
        b = em.zeros((2, 12), dtype=em.float32)[:, ::2]            # strided: strides passed
        c = em.zeros((6, 2, 3), dtype=em.float64)[::-1]            # negative strides
        d = em.asarray(np.arange(6, dtype=np.int16))
        o = em.zeros(6, dtype=em.float64)
        launch = arrays[2, 32]
        launch(a, b, c, d, o)                                      # registers
        print(*fast_and_slow(arrays, launch, a, b, c, d, o))
        p = params(8 * 4)
        print(int.from_bytes(p[:8], "little") == a._ptr, int.from_bytes(p[8:16], "little"),
              int.from_bytes(p[16:24], "little") == b._ptr)
        sargs = (em.zeros(2, dtype=em.float64), 7, 2.5, True, np.int8(-3), np.uint16(9), np.float32(1.5),
                 np.float64(0.25), np.bool_(True), np.uint64(2**64 - 1), np.int64(-5), np.uint8(200),
                 np.int32(-7), np.uint32(4000000000), np.int16(-300))
        launch = scalars[1, 1]
        launch(*sargs)
        print(*fast_and_slow(scalars, launch, *sargs))
        st = em.Stream()
        launch = fill[3, 64, st, 256]
        launch(o, 1.0)
        print(*fast_and_slow(fill, launch, o, 1.0), stream() == st.ptr, cfg())
        print(int.from_bytes(params(40)[32:40], "little"))         # the dynamic shared memory word
        print(arrays._fast_signatures, scalars._fast_signatures, fill._fast_signatures)
    """)
    assert out == [
        "True 160",              # 5 arrays' (pointer, shape, strides if not C-contiguous), error slot, shared
        "True 6 True",
        "True 104",              # the scalars aligned each to its size, as em.RawKernel packs them
        "True 40 True (3, 1, 1, 64, 1, 1, 256)",
        "256",
        "1 1 1",
    ]


def test_fake_arguments_that_miss(fake_lib, tmp_path):
    out = _fake(fake_lib, tmp_path, """
        o = em.zeros(8, dtype=em.float32)
        launch = fill[1, 8]
        launch(o, 1.0); launch(o, 1.0)
        f = fill._fast_launches
        def took(what):
            global f
            print(what, fill._fast_launches - f, fill.compile_count)
            f = fill._fast_launches
        took("start")
        launch(em.zeros(8, dtype=em.float64), 1.0); took("dtype")
        launch(em.zeros((2, 4), dtype=em.float32)[0], 1.0); took("C view, same signature")
        launch(em.zeros(16, dtype=em.float32)[::2], 1.0); took("strided")
        launch(o, 1); took("int")
        launch(o, np.float32(1)); took("float32")
        try:
            launch(em.broadcast_to(o[:1], (8,)), 1.0)
        except TypeError as e:
            print(e)
        took("read-only")
        h = np.zeros(8, np.float32)
        launch(h, 1.0); took("numpy")
        cai = type("CupyLike", (), {"__cuda_array_interface__": o.__cuda_array_interface__})()
        clobber(); launch(cai, 1.0); took("foreign")
        print(int.from_bytes(params(8), "little") == o._ptr)
        with em.Device("cpu"):
            clobber(); launch(o, 1.0); took("current device cpu")
            print(int.from_bytes(params(8), "little") == o._ptr)
        try:
            launch(em.zeros(8, dtype=em.float32, device="cpu"), o)
        except ValueError as e:
            print(e)
        c = em.zeros(8, dtype=em.float32, device="cpu")
        launch(c, 2.0); launch(c, 2.0); took("cpu arrays")
        print(c.get()[0])
        for v in (2**63, 2**63):
            try:
                launch(o, v)
            except Exception as e:
                print(type(e).__name__, e)
        took("big int")
        try:
            fill[1, 8, "default"](o, 1.0)
        except TypeError as e:
            print(e)
        took("bad stream")
        x = em.zeros(4, dtype=em.int32)
        for k in range(3):
            try:
                checked[1, 4](x, 1)
            except IndexError:  # the fake runs no kernel: the error slot's zero fill never ran
                pass
        print(checked._fast_launches, checked._fast_signatures)
        old = em._ember._fusion_config(min_size=0)
        p = o + 1
        print(em._ember._is_pending(p))
        clobber(); launch(p, 1.0); took("pending")
        print(em._ember._is_pending(p), int.from_bytes(params(8), "little") == p._ptr)
    """)
    assert out == [
        "start 0 1",
        "dtype 0 2",                 # a new signature: through Python (compiles)
        "C view, same signature 1 2",
        "strided 0 3",
        "int 0 4",
        "float32 0 5",
        "argument 'out' is read-only but the kernel writes to it",
        "read-only 0 5",
        "numpy 0 5",                 # copied: the same signature as ember float32
        "foreign 0 5",               # wrapped
        "True",
        "current device cpu 0 5",    # launched on the arrays' device, by Python
        "True",
        "kernel 'fill': arguments are on different devices (cpu:0 and cuda:0); copy them to one device first",
        "cpu arrays 1 6",            # a CPU launch: compiled for the CPU, then through C
        "2.0",
        "OverflowError kernel 'em_fill': argument 2: Python int 9223372036854775808 does not fit int64; "
        "pass a NumPy scalar of the kernel's type (e.g. np.uint64(x))",
        "OverflowError kernel 'em_fill': argument 2: Python int 9223372036854775808 does not fit int64; "
        "pass a NumPy scalar of the kernel's type (e.g. np.uint64(x))",
        "big int 0 6",
        "kernel 'em_fill': stream must be an ember.Stream, an object with an int .ptr (a CuPy stream), an int "
        "handle or None, not 'str'",
        "bad stream 0 6",
        "0 0",                       # bounds checking reads the error slot back: always Python
        "True",
        "pending 1 6",
        "False True",
    ]
