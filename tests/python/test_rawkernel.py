"""em.RawKernel / em.RawModule (CuPy's shape).

Three groups: argument and configuration errors that need no GPU (checked
before any device work, so they run on the CPU); the launch path against
the fake driver (tests/c/fake_libcuda.c, in a subprocess: the configuration,
stream and packed arguments the driver received, limits, compile errors --
NVRTC compiles for real when it is installed); and GPU tests with the
`device` fixture that skip on the CPU."""
import os
import re
import struct
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import ember as em

from helpers import ALL_DTYPES, FAKE_PROLOGUE, nvrtc_available

HERE = os.path.dirname(os.path.abspath(__file__))
PYPATH = os.path.join(HERE, "..", "..", "python")

ADD = r'''
extern "C" __global__ void add(const float *x, const float *y, float *z, long long n) {
    long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) z[i] = x[i] + y[i];
}'''
NOOP = 'extern "C" __global__ void noop() {}'


@pytest.fixture
def cpu():
    with em.Device("cpu"):
        yield


@pytest.fixture
def noop():
    return em.RawKernel(NOOP, "noop")


# ---- construction ---------------------------------------------------------

def test_construction_errors():
    k = em.RawKernel("__kernel void noop(void) {}", "noop", backend="opencl")  # built lazily
    assert k.backend == "opencl" and type(k).__module__ == "ember.opencl"
    with pytest.raises(TypeError, match="code must be a str of OpenCL C"):
        em.RawKernel(NOOP.encode(), "noop", backend="opencl")
    with pytest.raises(ValueError, match="RawModule takes CUDA C"):
        em.RawModule(code=NOOP, backend="opencl")
    with pytest.raises(ValueError, match="unknown backend 'metal'"):
        em.RawKernel(NOOP, "noop", backend="metal")
    with pytest.raises(TypeError, match="code must be a str of CUDA C source, got bytes"):
        em.RawKernel(NOOP.encode(), "noop")
    with pytest.raises(TypeError, match="name must be a str"):
        em.RawKernel(NOOP, 3)
    with pytest.raises(ValueError, match="non-empty str without NUL"):
        em.RawKernel(NOOP, "")
    with pytest.raises(ValueError, match="non-empty str without NUL"):
        em.RawKernel(NOOP, "no\0op")
    with pytest.raises(TypeError, match="options must be a tuple of str"):
        em.RawKernel(NOOP, "noop", options=("-O3", 3))
    with pytest.raises(TypeError, match="name_expressions must be a sequence of str"):
        em.RawModule(code=NOOP, name_expressions="f<int>")
    with pytest.raises(ValueError, match="code or path, not both"):
        em.RawModule(code=NOOP, path="x.cu")


def test_uninitialised_kernel_object():
    k = em.RawKernel.__new__(em.RawKernel)
    with pytest.raises(TypeError, match="was not initialised with a name"):
        k(1, 1, ())
    with pytest.raises(TypeError, match="was not initialised with a name"):
        k._pack(())


def test_attributes_kept(tmp_path):
    k = em.RawKernel(NOOP, "noop", options="-DX=1")
    assert (k.name, k.code, k.options, k.backend) == ("noop", NOOP, ("-DX=1",), "cuda")
    p = tmp_path / "k.cu"
    p.write_text(NOOP)
    m = em.RawModule(path=str(p), backend="nvrtc")
    assert m.code == NOOP and m.backend == "cuda" and "RawModule" in repr(m)
    assert repr(k) == "<ember.RawKernel 'noop'>"


# ---- call-time errors, all checked before the device is touched ----------

def test_cpu_device_runs_kernels_as_c(cpu, noop):
    # On the CPU a raw kernel runs as C (tests/python/test_rawkernel_cpu.py);
    # compile() has nothing to do until the argument types are known.
    if not em._ember._cc_available():
        pytest.skip("no C compiler")
    noop((1,), (1,), ())
    em.RawModule(code=NOOP).compile()
    em.RawModule(code=NOOP).get_function("noop")(1, 1, [])


@pytest.mark.parametrize("grid, exc, msg", [
    (0, ValueError, r"grid\[0\] = 0 is out of range: each dimension must be >= 1 and < 2\*\*31"),
    (-3, ValueError, r"grid\[0\] = -3 is out of range"),
    (2**31, ValueError, r"grid\[0\] = 2147483648 is out of range"),
    (2**70, ValueError, r"is out of range"),
    ((1, 0), ValueError, r"grid\[1\] = 0 is out of range"),
    ((), ValueError, "grid must be an int or a tuple of 1 to 3 ints, got 0 values"),
    ((1, 2, 3, 4), ValueError, "got 4 values"),
    (1.5, TypeError, "grid must be an int or a tuple of 1 to 3 ints, got float"),
    ((1, "2"), TypeError, "got str"),
    (True, TypeError, "got bool"),
])
def test_bad_grid(cpu, noop, grid, exc, msg):
    with pytest.raises(exc, match=msg):
        noop(grid, 1, ())
    with pytest.raises(exc, match=msg.replace("grid", "block")):
        noop(1, grid, ())
    if em._ember._cc_available():  # still working, and numpy ints are fine
        noop((np.int64(2), 3), np.uint32(4), ())


def test_bad_launch_arguments(cpu, noop):
    with pytest.raises(ValueError, match=r"shared_mem must be an int of bytes in \[0, 2\*\*32\), got -1"):
        noop(1, 1, (), shared_mem=-1)
    with pytest.raises(ValueError, match="shared_mem must be"):
        noop(1, 1, (), shared_mem=2**32)
    with pytest.raises(ValueError, match="shared_mem must be"):
        noop(1, 1, (), shared_mem=1.0)
    with pytest.raises(TypeError, match="stream must be an ember.Stream, an object with an int .ptr"):
        noop(1, 1, (), stream="default")
    with pytest.raises(TypeError, match="stream must be"):
        noop(1, 1, (), stream=type("S", (), {"ptr": "x"})())
    with pytest.raises(TypeError, match="args must be a tuple or list of kernel arguments, not 'int'"):
        noop(1, 1, 5)
    with pytest.raises(TypeError, match=r"takes \(grid, block, args, shared_mem=0, stream=None\): 2 positional"):
        noop(1, 1)
    with pytest.raises(TypeError, match="unexpected keyword argument 'shmem'"):
        noop(1, 1, (), shmem=4)
    if em._ember._cc_available():  # the keyword and positional forms parse (and run on the CPU)
        noop(1, 1, [], 16, None)
        noop(1, 1, (), shared_mem=np.int32(16), stream=0)


@pytest.mark.parametrize("arg, exc, msg", [
    (np.zeros(3), TypeError, r"argument 1 is a numpy.ndarray \(host memory\); copy it to the device"),
    ("text", TypeError, "argument 1 has unsupported type 'str'; expected an ember array"),
    (None, TypeError, "argument 1 has unsupported type 'NoneType'"),
    (2**63, OverflowError, r"argument 1: Python int 9223372036854775808 does not fit int64"),
    (-2**63 - 1, OverflowError, "does not fit int64"),
    (np.datetime64("2020-01-01"), TypeError, "argument 1 is a NumPy scalar of unsupported type"),
    (np.str_("a"), TypeError, "NumPy scalar of unsupported type"),
    (type("C", (), {"__cuda_array_interface__": {"shape": (1,)}})(), TypeError,
     r"argument 1 has a __cuda_array_interface__ without a valid 'data'"),
])
def test_bad_kernel_argument(cpu, noop, arg, exc, msg):
    # The CUDA packer's checks, run without a device; a launch on the CPU
    # refuses the same arguments (host arrays excepted: they are CPU memory).
    with pytest.raises(exc, match=msg):
        noop._pack((1.0, arg))
    if isinstance(arg, np.ndarray) or not em._ember._cc_available():
        return
    with pytest.raises(exc, match=re.sub(r"; expected an ember array|without a valid 'data'", "", msg)):
        noop(1, 1, (1.0, arg))


def test_host_array_argument(noop):
    # A CPU array with a CUDA device current: the launch goes to the array's
    # device, the CPU, where this kernel runs as C.
    if not em.cuda.is_available() or not em._ember._cc_available():
        pytest.skip("needs a CUDA device and a C compiler")
    with em.Device("cuda:0"):
        noop(1, 1, (em.arange(4, device="cpu"),))


def test_too_many_argument_bytes(cpu, noop):
    with pytest.raises(ValueError, match="argument 512 does not fit: the arguments may take at most 4096 bytes"):
        noop._pack((1,) * 513)
    assert len(noop._pack((1,) * 512)[0]) == 4096


# ---- argument packing -----------------------------------------------------

class _CAI:
    def __init__(self, ptr):
        self.__cuda_array_interface__ = {"shape": (4,), "typestr": "<f4", "data": (ptr, False), "version": 3}


def test_pack_layout(cpu, noop):
    buf, offs = noop._pack((np.int8(-2), np.float64(1.5), True, np.float16(2.0), 7, 0.25, 1 - 2j,
                            _CAI(0x1234), np.complex64(3 + 4j), np.uint16(65535)))
    assert offs == (0, 8, 16, 18, 24, 32, 48, 64, 72, 80)
    assert buf[0:1] == np.int8(-2).tobytes()
    assert buf[8:16] == np.float64(1.5).tobytes()
    assert buf[16:17] == b"\x01"
    assert buf[18:20] == np.float16(2.0).tobytes()
    assert buf[24:32] == struct.pack("<q", 7)
    assert buf[32:40] == struct.pack("<d", 0.25)
    assert buf[48:64] == struct.pack("<dd", 1, -2)
    assert buf[64:72] == struct.pack("<Q", 0x1234)
    assert buf[72:80] == np.complex64(3 + 4j).tobytes()
    assert buf[80:82] == np.uint16(65535).tobytes() and len(buf) == 82


@pytest.mark.parametrize("dt", ALL_DTYPES, ids=str)
def test_pack_numpy_scalars(cpu, noop, dt):
    v = np.asarray(3 if dt.kind != "b" else True).astype(dt)[()]
    buf, offs = noop._pack((np.int8(0), v))
    assert offs == (0, min(dt.itemsize, 16) if dt.itemsize > 1 else 1)
    assert buf[offs[1]:] == v.tobytes()


def test_pack_python_scalars_like_numpy(cpu, noop):
    # Python scalars go as the NumPy type NumPy gives them (as CuPy does)
    for v in (True, -5, 2.5, 1.5 + 2j):
        buf, _ = noop._pack((v,))
        assert buf == np.asarray(v).tobytes()


# ---- the launch path against the fake driver ------------------------------

def _run(lib, tmp_path, code):
    env = dict(os.environ, PYTHONPATH=PYPATH, EMBER_LIBCUDA=lib, EMBER_CACHE_DIR=str(tmp_path),
               FAKE_LIB=lib)
    env.pop("EMBER_DEVICE", None)
    r = subprocess.run([sys.executable, "-c", FAKE_PROLOGUE + textwrap.dedent(code)], capture_output=True,
                       text=True, env=env, timeout=120)
    assert r.returncode == 0, r.stderr
    return r.stdout.split("\n")[:-1]


needs_nvrtc = pytest.mark.skipif(not nvrtc_available(), reason="NVRTC is not installed")


@needs_nvrtc
def test_fake_launch_config_and_arguments(fake_lib, tmp_path):
    out = _run(fake_lib, tmp_path, f"""
        k = em.RawKernel({ADD!r}, "add")
        x, y, z = (em.zeros(8, dtype=em.float32) for _ in range(3))
        k((2, 3, 4), (8, 4, 2), (x, y, z, 8), shared_mem=64)
        print(cfg(), stream())
        p = params(32)
        print([int.from_bytes(p[i:i + 8], "little") for i in range(0, 32, 8)] == [x._ptr, y._ptr, z._ptr, 8])
        k(5, 32, [x, y, z, np.int64(3)])
        print(cfg())
        s = em.Stream()
        k(1, 1, (x, y, z, 1), stream=s); print(stream() == s.ptr)
        k(1, 1, (x, y, z, 1), stream=s.ptr); print(stream() == s.ptr)
        k(1, 1, (x, y, z, 1), stream=type("CupyLike", (), {{"ptr": s.ptr}})()); print(stream() == s.ptr)
        with s:
            k(1, 1, (x, y, z, 1)); print(stream() == s.ptr)
        k(1, 1, (x, y, z, 1)); print(stream())
        k(1, 1, (x, y, z, 1), stream=em.Stream.null); print(stream())
        foreign = type("C", (), {{"__cuda_array_interface__": y.__cuda_array_interface__}})()  # a CuPy-like array
        k(1, 1, (x, foreign, z, 2))
        print(int.from_bytes(params(16)[8:16], "little") == y._ptr)
    """)
    assert out == ["(2, 3, 4, 8, 4, 2, 64) 0", "True", "(5, 1, 1, 32, 1, 1, 0)",
                   "True", "True", "True", "True", "0", "0", "True"]


@needs_nvrtc
def test_fake_launch_on_another_stream_waits_for_the_current(fake_lib, tmp_path):
    # The arguments' values were queued on the current stream: a launch on
    # another stream is ordered after them (one cuStreamWaitEvent), a launch
    # on the current stream needs nothing (em_cuda_launch, @em.jit's too).
    out = _run(fake_lib, tmp_path, f"""
        waits = lambda: ctypes.c_int.in_dll(fake, "fake_stream_waits").value
        k = em.RawKernel({ADD!r}, "add")
        x, y, z = (em.zeros(8, dtype=em.float32) for _ in range(3))
        s, t = em.Stream(non_blocking=True), em.Stream()
        w0 = waits(); k(1, 8, (x, y, z, 8)); print(waits() - w0)
        w0 = waits(); k(1, 8, (x, y, z, 8), stream=s); print(waits() - w0, stream() == s.ptr)
        with s:
            w0 = waits(); k(1, 8, (x, y, z, 8), stream=s); print(waits() - w0)
            w0 = waits(); k(1, 8, (x, y, z, 8), stream=t); print(waits() - w0)
            w0 = waits(); k(1, 8, (x, y, z, 8), stream=em.Stream.null); print(waits() - w0, stream())
    """)
    assert out == ["0", "1 True", "0", "1", "1 0"]


@needs_nvrtc
def test_fake_launch_limits(fake_lib, tmp_path):
    out = _run(fake_lib, tmp_path, f"""
        k = em.RawKernel({ADD!r}, "add")
        x = em.zeros(8, dtype=em.float32)
        for grid, block, shm in [(1, 2048, 0), (1, (1, 1, 65), 0), (1, (64, 32), 0), ((1, 65536), 1, 0),
                                 ((1, 1, 65536), 1, 0), (1, 1, 48 * 1024 + 1)]:
            try:
                k(grid, block, (x, x, x, 1), shared_mem=shm)
                print("launched")
            except em.LaunchError as e:
                print(str(e))
        k(1, 1, (x, x, x, 1), shared_mem=48 * 1024)
        print(cfg()[6])
    """)
    assert out == [
        "kernel 'add': block.x = 2048 is outside the device limit 1..1024",
        "kernel 'add': block.z = 65 is outside the device limit 1..64",
        "kernel 'add': a block of 64 x 32 x 1 = 2048 threads exceeds the device limit of 1024 threads per block",
        "kernel 'add': grid.y = 65536 is outside the device limit 1..65535",
        "kernel 'add': grid.z = 65536 is outside the device limit 1..65535",
        "kernel 'add': 49153 bytes of dynamic shared memory exceed the device limit of 49152 bytes per block",
        "49152",
    ]


@needs_nvrtc
def test_fake_compile_error_and_missing_function(fake_lib, tmp_path):
    out = _run(fake_lib, tmp_path, """
        k = em.RawKernel('extern "C" __global__ void f(float *x) {\\n  x[0] = undefined_name;\\n}', "f")
        try:
            k(1, 1, (1.0,))
        except em.CompileError as e:
            msg = str(e)
            print("undefined_name" in msg and "is undefined" in msg, "   2    x[0] = undefined_name;" in msg)
        try:
            em.RawKernel('extern "C" __global__ void f() {}', "f", options=("--no-such-option",))(1, 1, ())
        except em.CompileError as e:
            print("NVRTC could not compile kernel 'f'" in str(e))
        m = em.RawModule(code='extern "C" __global__ void f() {}')
        try:
            m.get_function("no_such_kernel")
        except ValueError as e:
            print(str(e))
        k = em.RawKernel('extern "C" __global__ void f() {}', "f")
        k(1, 1, ())
        print(sorted(k.attributes) == sorted(em._kernels._FUNC_ATTRIBUTES), k.num_regs)
    """)
    assert out == ["True True", "True",
                   "the module has no kernel named 'no_such_kernel' (a kernel is found by its extern \"C\" "
                   "name; C++ names are mangled)", "True 0"]


@needs_nvrtc
def test_fake_name_expressions(fake_lib, tmp_path):
    out = _run(fake_lib, tmp_path, """
        src = "template <class T> __global__ void scale(T *x, T a, int n) { int i = threadIdx.x; if (i < n) x[i] *= a; }"
        m = em.RawModule(code=src, name_expressions=("scale<float>", "scale<double>"))
        f = m.get_function("scale<float>")
        print(m._lowered["scale<float>"], m._lowered["scale<double>"], f.name)
        f(1, 32, (em.zeros(4, dtype=em.float32), np.float32(2), np.int32(4)))
        try:
            em.RawModule(code=src, name_expressions=["scale<nope>"]).get_function("scale<nope>")
        except em.CompileError as e:
            print("CompileError", "nope" in str(e))
    """)
    assert out == ["_Z5scaleIfEvPT_S0_i _Z5scaleIdEvPT_S0_i scale<float>", "CompileError True"]


@needs_nvrtc
def test_fake_compiles_once(fake_lib, tmp_path):
    out = _run(fake_lib, tmp_path, f"""
        import glob
        count = lambda: len(glob.glob(os.path.join(os.environ["EMBER_CACHE_DIR"], "*")))
        x = em.zeros(8, dtype=em.float32)
        n0 = count()
        k1 = em.RawKernel({ADD!r}, "add")
        k1(1, 8, (x, x, x, 8))
        n1 = count()
        k2 = em.RawKernel({ADD!r}, "add")      # same source: the in-memory module
        k2(1, 8, (x, x, x, 8))
        k3 = em.RawKernel({ADD!r}, "add", options=("-DX=1",))  # new options: a new binary
        k3(1, 8, (x, x, x, 8))
        n3 = count()
        m = em.RawModule(code={ADD!r})
        print(n1 - n0, n3 - n0, m._module(0) == k1._module_obj._module(0) == k2._module_obj._module(0))
    """)
    assert out == ["1 2 True"]


@needs_nvrtc
@needs_nvrtc
def test_fake_argument_on_other_device(fake_lib, tmp_path):
    # CUDA arrays with the CPU current: the launch goes to the arrays'
    # device -- the fake driver records it -- not to the CPU as C.
    out = _run(fake_lib, tmp_path, f"""
        k = em.RawKernel({ADD!r}, "add")
        x = em.zeros(8, dtype=em.float32)
        with em.Device("cpu"):
            k((3,), (5,), (x, x, x, 1))
        print(cfg()[:6])
    """)
    assert out == ["(3, 1, 1, 5, 1, 1)"]


# ---- on a GPU -------------------------------------------------------------

@pytest.fixture
def gpu(device):
    if device.kind != "cuda":
        pytest.skip("raw CUDA kernels need a CUDA device")
    return device


def test_vector_add(gpu, rng):
    n = 100_003
    x, y = rng.random(n, dtype=np.float32), rng.random(n, dtype=np.float32)
    ex, ey, ez = em.asarray(x), em.asarray(y), em.empty(n, dtype=em.float32)
    k = em.RawKernel(ADD, "add")
    k(((n + 255) // 256,), (256,), (ex, ey, ez, n))
    np.testing.assert_array_equal(ez.get(), x + y)


_CTYPE = {"bool": "bool", "int8": "signed char", "int16": "short", "int32": "int", "int64": "long long",
          "uint8": "unsigned char", "uint16": "unsigned short", "uint32": "unsigned int",
          "uint64": "unsigned long long", "float16": "unsigned short", "float32": "float",
          "float64": "double", "complex64": "float2", "complex128": "double2"}


@pytest.mark.parametrize("dt", ALL_DTYPES, ids=str)
def test_scalar_arguments_reach_the_kernel(gpu, dt):
    t = _CTYPE[dt.name]
    src = f'extern "C" __global__ void put(char c, {t} v, double d, {t} *out, double *dout) {{ *out = v; *dout = d + c; }}'
    k = em.RawKernel(src, "put")
    v = np.asarray(5 if dt.kind != "b" else True).astype(dt)[()]
    out, dout = em.zeros((), dtype=dt), em.zeros((), dtype=em.float64)
    k(1, 1, (np.int8(3), v, 0.5, out, dout))
    assert out.get()[()] == v and dout.get()[()] == 3.5


def test_template_kernels_by_name_expression(gpu):
    src = "template <class T> __global__ void scale(T *x, T a, int n) { int i = threadIdx.x; if (i < n) x[i] *= a; }"
    m = em.RawModule(code=src, name_expressions=["scale<float>", "scale<double>"])
    xf, xd = em.ones(5, dtype=em.float32), em.ones(5, dtype=em.float64)
    m.get_function("scale<float>")(1, 32, (xf, np.float32(3), np.int32(5)))
    m.get_function("scale<double>")(1, 32, (xd, 0.5, np.int32(5)))
    assert xf.get().tolist() == [3.0] * 5 and xd.get().tolist() == [0.5] * 5


def test_two_d_grid_shared_memory_and_module(gpu, rng):
    src = r'''
    extern "C" __global__ void rev(const int *x, int *y, int n) {
        extern __shared__ int buf[];
        int t = threadIdx.x;
        if (t < n) buf[t] = x[blockIdx.y * n + t];
        __syncthreads();
        if (t < n) y[blockIdx.y * n + t] = buf[n - 1 - t];
    }
    extern "C" __global__ void scale(float *x, float a, int n) {
        int i = blockIdx.x * blockDim.x + threadIdx.x;
        if (i < n) x[i] *= a * SCALE;
    }'''
    m = em.RawModule(code=src, options=("-DSCALE=2",))
    rev, scale = m.get_function("rev"), m.get_function("scale")
    a = rng.integers(0, 100, (7, 200)).astype(np.int32)
    ex, ey = em.asarray(a), em.empty((7, 200), dtype=em.int32)
    rev((1, 7), (256,), (ex, ey, np.int32(200)), shared_mem=200 * 4)
    np.testing.assert_array_equal(ey.get(), a[:, ::-1])
    f = em.asarray(np.arange(10, dtype=np.float32))
    scale(1, 32, (f, np.float32(1.5), np.int32(10)))
    np.testing.assert_array_equal(f.get(), np.arange(10, dtype=np.float32) * 3)
    with pytest.raises(ValueError, match="no kernel named 'nope'"):
        m.get_function("nope")


def test_large_dynamic_shared_memory(gpu):
    src = r'''
    extern "C" __global__ void fill(int *out, int n) {
        extern __shared__ int buf[];
        for (int i = threadIdx.x; i < n; i += blockDim.x) buf[i] = i;
        __syncthreads();
        if (threadIdx.x == 0) out[0] = buf[n - 1];
    }'''
    k = em.RawKernel(src, "fill")
    out = em.zeros(1, dtype=em.int32)
    nbytes = 96 * 1024  # above the default 48 KiB: Ember opts the kernel in
    k(1, 256, (out, np.int32(nbytes // 4)), shared_mem=nbytes)
    assert out.get()[0] == nbytes // 4 - 1
    assert k.max_dynamic_shared_size_bytes >= nbytes
    with pytest.raises(em.LaunchError, match="bytes of dynamic shared memory exceed the device limit"):
        k(1, 256, (out, np.int32(1)), shared_mem=4 * 1024 * 1024)


def test_streams_and_errors_on_gpu(gpu):
    k = em.RawKernel(ADD, "add")
    x = em.ones(1000, dtype=em.float32)
    z = em.empty(1000, dtype=em.float32)
    s = em.Stream(non_blocking=True)
    k(4, 256, (x, x, z, 1000), stream=s)
    s.synchronize()
    np.testing.assert_array_equal(z.get(), np.full(1000, 2, np.float32))
    with pytest.raises(em.LaunchError, match="block.x = 4096 is outside the device limit"):
        k(1, 4096, (x, x, z, 1000))
    with pytest.raises(em.CompileError, match="is undefined"):
        em.RawKernel('extern "C" __global__ void f() { nope(); }', "f")(1, 1, ())
    attrs = k.attributes
    assert attrs["num_regs"] > 0 and attrs["max_threads_per_block"] >= 256
    k(4, 256, (x, x, z, 1000))  # still works
    np.testing.assert_array_equal(z.get(), np.full(1000, 2, np.float32))


def test_fmad_default_off(gpu):
    # --fmad=false by default: a*b+c rounds twice, as on the CPU
    src = 'extern "C" __global__ void f(const double *a, double *o) { o[0] = a[0] * a[1] + a[2]; }'
    a = np.array([1 + 2**-30, 1 - 2**-30, -1.0])
    out = em.zeros(1, dtype=em.float64)
    em.RawKernel(src, "f")(1, 1, (em.asarray(a), out))
    assert out.get()[0] == a[0] * a[1] + a[2]
