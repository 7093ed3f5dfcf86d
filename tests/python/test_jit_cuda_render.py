"""The CUDA dialect of @em.jit without a GPU: golden source for the seed's
vector add (EMBER_REGEN_GOLDEN=1 rewrites it), and NVRTC compiles of every
kernel the CPU tests run (skipped where NVRTC is not installed)."""
import ctypes
import os

import numpy as np
import pytest

import ember as em

import test_jit as tj
import test_jit_functions as tf

GOLDEN = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "golden", "jit_vec_add.cu")


def body(src):
    """The rendered source after the shared prelude."""
    from ember._jit.render import prelude
    pre = prelude("cuda")
    assert src.startswith(pre)
    return src[len(pre):]


def test_golden_vector_add():
    a = np.zeros(4, np.float32)
    got = body(tj.vec_add.render(a, a, 4, device="cuda"))
    if os.environ.get("EMBER_REGEN_GOLDEN") == "1":
        with open(GOLDEN, "w") as f:
            f.write(got)
    with open(GOLDEN) as f:
        assert got == f.read()


def test_cpu_and_cuda_share_the_kernel_body():
    a = np.zeros(4, np.float32)
    cpu = tj.vec_add.render(a, a, 4, device="cpu")
    cuda = tj.vec_add.render(a, a, 4, device="cuda")
    line = "a_b_p[em_wrap(v_idx, a_b_n0) * a_b_s0] = ((a_b_p[em_wrap(v_idx, a_b_n0) * a_b_s0]) + (a_a_p[em_wrap(v_idx, a_a_n0) * a_a_s0]));"
    assert line in cpu and line in cuda
    assert "em_i.tid[0]" in cpu and "((em_i64)threadIdx.x)" in cuda


def _nvrtc():
    lib = ctypes.CDLL(os.path.join(em.__path__[0], "libember.so"))
    lib.em_cuda_compile.argtypes = [ctypes.c_char_p, ctypes.c_int, ctypes.c_char_p,
                                    ctypes.POINTER(ctypes.c_void_p), ctypes.POINTER(ctypes.c_size_t)]
    lib.em_last_error.restype = ctypes.c_char_p
    lib.em_nvrtc_init.restype = ctypes.c_int
    if lib.em_nvrtc_init() != 0:
        pytest.skip("NVRTC is not installed: " + lib.em_last_error().decode())
    return lib


A1 = np.zeros(8)
F1 = np.zeros(8, np.float32)
I2 = np.zeros((4, 4), np.int64)
KERNELS = [
    (tj.record_indices, (I2.reshape(2, 8),)),
    (tj.grid2_fill, (I2,)),
    (tj.grid_stride, (F1, F1)),
    (tj.block_sum, (A1, A1)),
    (tj.reverse_block, (np.zeros((4, 8), np.int32),)),
    (tj.dyn_shared, (F1, F1)),
    (tj.atomics, (np.zeros(4, np.uint32), np.zeros(4, np.uint32), A1)),
    (tj.atomics, (np.zeros(4, np.int64), np.zeros(4, np.int64), A1)),
    (tj.histogram, (np.zeros(4, np.int64), F1)),
    (tj.exch_cas, (np.zeros(3, np.int32), np.zeros(3, np.int32))),
    (tj.seed_print, ()),
    (tj.print_types, (A1,)),
    (tj.math_all, (F1, np.zeros((8, 28), np.float32), np.zeros((8, 3), bool))),
    (tj.math_all, (A1, np.zeros((8, 28)), np.zeros((8, 3), bool))),
    (tj.control, (np.zeros((4, 4)), 3, np.zeros((4, 10)))),
    (tj.local_array_kernel, (np.zeros(4, np.int64),)),
    (tj.scalar_params, (A1, np.int8(1), np.uint64(1), np.float32(1), True)),
    (tj.oob_checked, (A1, 3)),
    (tj.arrays_to_device_functions, (np.zeros((32, 3)), np.zeros(32), np.zeros(4, np.int32))),
    (tj.constants_and_casts, (A1, A1)),
    (tj.float_to_int, (A1, np.zeros(8, np.int64))),
    (tj.negative_index, (np.zeros(5, np.int64), np.zeros(2, np.int64))),
]
KERNELS += [(tj.arith, (np.zeros(3, d), np.zeros(3, d), np.zeros((10, 3), d))) for d in tj.NUM_DTYPES]
KERNELS += [(tj.int_ops, (np.zeros(3, d), np.zeros(3, d), np.zeros((7, 3), d)))
            for d in tj.NUM_DTYPES if d.kind in "iu"]


@pytest.mark.parametrize("kernel,args", KERNELS, ids=[f"{k.__name__}-{i}" for i, (k, _) in enumerate(KERNELS)])
def test_nvrtc_compiles(kernel, args):
    lib = _nvrtc()
    src = kernel.render(*args, device="cuda")
    p, n = ctypes.c_void_p(), ctypes.c_size_t()
    r = lib.em_cuda_compile(src.encode(), 90, kernel.__name__.encode(), ctypes.byref(p), ctypes.byref(n))
    assert r == 0, lib.em_last_error().decode()[:4000]
    assert n.value > 0


def test_nvrtc_compiles_stencil_and_vectorize():
    lib = _nvrtc()
    x = np.zeros((4, 4), np.int32)
    kernel, _ = tf.smooth_stencil._build((em._jit.types.ArrayT("int32", 2),))
    src = kernel.render(x, x, device="cuda")
    p, n = ctypes.c_void_p(), ctypes.c_size_t()
    assert lib.em_cuda_compile(src.encode(), 90, b"stencil", ctypes.byref(p), ctypes.byref(n)) == 0, \
        lib.em_last_error().decode()[:4000]


# -- the CUDA launch path against the fake driver (tests/c/fake_libcuda.c) ------------------------
FAKE_KERNEL = '''
import ember as em

@em.jit
def scale(a, b, n, x):
    i = em.grid(1)
    if i < n:
        b[i // 4, i % 4] = a[i // 4, i % 4] * x
'''


def test_fake_driver_launch(tmp_path):
    import shutil
    import subprocess
    import sys
    import textwrap
    cc = shutil.which("cc") or shutil.which("gcc")
    if not cc:
        pytest.skip("no C compiler to build the fake driver")
    _nvrtc()
    here = os.path.dirname(os.path.abspath(__file__))
    lib = tmp_path / "libfakecuda.so"
    subprocess.run([cc, "-shared", "-fPIC", "-O1", "-o", str(lib),
                    os.path.join(here, "..", "c", "fake_libcuda.c")], check=True)
    (tmp_path / "fake_kernels.py").write_text(FAKE_KERNEL)
    code = textwrap.dedent("""
        import ctypes, os, sys, numpy as np, ember as em
        sys.path.insert(0, os.environ["KDIR"])
        from fake_kernels import scale
        fake = ctypes.CDLL(os.environ["FAKE_LIB"])
        cfg = lambda: tuple((ctypes.c_uint * 7).in_dll(fake, "fake_last_cfg"))
        params = lambda n: bytes((ctypes.c_ubyte * n).in_dll(fake, "fake_last_params"))
        with em.Device("cuda:0"):
            a = em.zeros((3, 4), dtype=em.float32)
            b = em.zeros((3, 8), dtype=em.float32)[:, ::2]
            scale[(2, 1), 32](a, b, 5, np.float32(2.0))
            print(cfg())
            p = params(72)
            words = [int.from_bytes(p[i:i + 8], "little", signed=True) for i in range(0, 72, 8)]
            print(words[0] == a._ptr, words[1:3], words[3] == b._ptr, words[4:8], words[8])
            scale[1, 32](a, b, 5, np.float32(2.0))
            print(cfg(), scale.compile_count)
            h = np.zeros((3, 4), np.float32)
            scale[1, 32](np.ones((3, 4), np.float32), h, 12, np.float32(2.0))  # host arrays: copied
            print(scale.compile_count)
            cai = type("CupyLike", (), {"__cuda_array_interface__": a.__cuda_array_interface__})()
            scale[1, 32](a, cai, 12, np.float32(2.0))  # a foreign device array: its own pointer
            print(int.from_bytes(params(32)[24:32], "little") == a._ptr, scale.compile_count)
            st = em.Stream()
            scale[1, 32, st, 256](a, b, 5, np.float32(2.0))
            last_stream = ctypes.c_void_p.in_dll(fake, "fake_last_stream").value
            print(last_stream == st.ptr, cfg()[6])
            ro = dict(a.__cuda_array_interface__, data=(a._ptr, True))
            try:
                scale[1, 32](a, type("RO", (), {"__cuda_array_interface__": ro})(), 12, np.float32(2.0))
            except TypeError as e:
                print(e)
    """)
    env = dict(os.environ, PYTHONPATH=os.path.join(here, "..", "..", "python"), EMBER_LIBCUDA=str(lib),
               FAKE_LIB=str(lib), EMBER_CACHE_DIR=str(tmp_path / "cache"), KDIR=str(tmp_path))
    env.pop("EMBER_DEVICE", None)
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=120)
    assert r.returncode == 0, r.stderr
    assert r.stdout.split("\n")[:-1] == [
        "(2, 1, 1, 32, 1, 1, 0)",
        "True [3, 4] True [3, 4, 8, 2] 5",  # pointer, shape (strides too unless C-contiguous), n
        "(1, 1, 1, 32, 1, 1, 0) 1",                # the same signature: compiled once
        "2",                                       # host arrays: one more signature
        "True 2",                                  # C-contiguous (3, 4) float32: the same signature
        "True 256",                                # [blocks, threads, stream, shared_mem]
        "argument 'b' is read-only but the kernel writes to it",
    ]


def _innermost(src):
    """'x' or 'y': the thread loop innermost in the CPU range function's general path."""
    general = src[src.index("for (em_i64 em_z = 0"):]
    return "y" if general.index("em_x = 0") < general.index("em_y = 0") else "x"


def test_cpu_thread_order_follows_the_contiguous_dimension():
    """Seed 002's kernel indexes columns with threadIdx.y: on the CPU, y runs
    innermost (x innermost otherwise, and always when the kernel prints)."""
    x = np.zeros((4, 4), np.int32)
    assert _innermost(tj.grid2_fill.render(np.zeros((4, 4), np.int64))) == "y"
    assert _innermost(tj.copy2d.render(x, x)) == "y"             # out[i, j], j = em.grid(2)[1]
    assert _innermost(tj.reverse_block.render(np.zeros((4, 8), np.int32))) == "x"  # a[ty, tx]
    assert _innermost(tj.record_indices.render(np.zeros((2, 8), np.int64))) == "x"
    assert _innermost(tj.seed_print.render()) == "x"
