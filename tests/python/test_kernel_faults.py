"""User kernels dividing an integer by zero on the CPU: a ZeroDivisionError
naming the kernel, never a dead process (docs/jit.md, docs/kernels.md).

@em.jit kernels never trap (their // and % give 0 and set a flag the
launcher turns into the error); raw CUDA C and expression kernels are C we
do not rewrite, so the SIGFPE the CPU raises is recovered from
(src/host/fpe_guard.h).  Each case runs first in a subprocess, so that a
regression is a failed test rather than a dead pytest, then in this process,
which must keep working after it."""
import functools
import os
import signal
import subprocess
import sys
import threading

import numpy as np
import pytest

import ember as em
from helpers import INT_DTYPES, random_array, to_np

pytestmark = pytest.mark.skipif(not em._ember._cc_available(),
                                reason="no C compiler: " + em._ember._cc_why())

HERE = os.path.dirname(os.path.abspath(__file__))
JIT_MSG = r"^integer division or modulo by zero in kernel '{}'$"
TRAP_MSG = (r"^integer division or modulo by zero \(or INT_MIN / -1\) in kernel '{}': the CPU raised SIGFPE "
            r"and the launch was stopped")
_RUNS = {}


def _run_python(code):
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([os.path.dirname(os.path.dirname(em.__file__)), HERE,
                                         env.get("PYTHONPATH", "")])
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=300)


def _survives(case, device):
    """Run case(device) in a fresh process first: it must end normally."""
    key = (case, str(device))
    if key not in _RUNS:
        _RUNS[key] = _run_python(f"import test_kernel_faults as t; t.{case}({str(device)!r}); print('survived')")
    r = _RUNS[key]
    assert r.returncode == 0 and r.stdout.strip().endswith("survived"), (
        f"{case} ended its process with status {r.returncode}:\n{r.stdout[-2000:]}\n{r.stderr[-4000:]}")


def _on_cpu(device):
    return str(device).startswith("cpu")


# ---- @em.jit ------------------------------------------------------------------

@em.jit
def jit_divmod(a, b, out):
    i = em.grid(1)
    if i < a.size:
        out[0, i] = a[i] // b[i]
        out[1, i] = a[i] % b[i]


@em.jit
def jit_sync_mod(a, b, out):
    sh = em.shared.array(64, em.int64)
    t = em.threadIdx.x
    i = em.grid(1)
    sh[t] = 0
    if i < a.size:
        sh[t] = a[i] % b[i]
    em.syncthreads()
    if i < a.size:
        out[i] = sh[t]


@em.jit
def plain_floordiv(p, q):
    return p // q


def _int_operands(dt, n=300):
    rng = np.random.default_rng(7)
    a, b = random_array(rng, (n,), dt), random_array(rng, (n,), dt)
    info = np.iinfo(dt)
    b[b == 0] = 3
    a[:3], b[:3] = [info.min, info.max, 7], [-1 if dt.kind == "i" else 1, -1 if dt.kind == "i" else 2, 2]
    return a, b


def case_jit(device):
    with em.Device(device):
        for dt in INT_DTYPES:
            a, b = _int_operands(dt)
            zb = b.copy()
            zb[[5, 77, 299]] = 0
            out = em.zeros((2, a.size), dtype=dt)
            if _on_cpu(device):
                with pytest.raises(ZeroDivisionError, match=JIT_MSG.format("jit_divmod")):
                    jit_divmod[3, 128](em.asarray(a), em.asarray(zb), out)
            else:  # CUDA: no trap, no error: a zero divisor gives 0
                jit_divmod[3, 128](em.asarray(a), em.asarray(zb), out)
                assert (to_np(out)[:, [5, 77, 299]] == 0).all()
            # The process goes on; INT_MIN // -1 wraps and INT_MIN % -1 is 0, as in NumPy.
            jit_divmod[3, 128](em.asarray(a), em.asarray(b), out)
            with np.errstate(all="ignore"):
                want = np.stack([np.floor_divide(a, b), np.remainder(a, b)])
            np.testing.assert_array_equal(to_np(out), want, err_msg=str(dt))


def case_jit_sync_and_plain(device):
    with em.Device(device):
        a = np.arange(-50, 150, dtype=np.int64)
        b = np.full(200, 7, np.int64)
        b[130] = 0
        out = em.zeros(200, dtype=em.int64)
        if _on_cpu(device):
            with pytest.raises(ZeroDivisionError, match=JIT_MSG.format("jit_sync_mod")):
                jit_sync_mod[4, 64](em.asarray(a), em.asarray(b), out)
        b[130] = 5
        jit_sync_mod[4, 64](em.asarray(a), em.asarray(b), out)
        np.testing.assert_array_equal(to_np(out), a % b)
    if _on_cpu(device):  # plain functions run on the CPU
        with pytest.raises(ZeroDivisionError, match=JIT_MSG.format("plain_floordiv")):
            plain_floordiv(3, 0)
        assert plain_floordiv(-7, 2) == -4
        assert plain_floordiv(-2**63, -1) == -2**63


@pytest.mark.parametrize("case", ["case_jit", "case_jit_sync_and_plain"])
def test_jit_zero_divisor(device, case):
    _survives(case, device)
    globals()[case](device)


# ---- raw CUDA C on the CPU ------------------------------------------------------

RAW_SRC = r"""
extern "C" __global__ void raw_div(const int *x, const int *y, int *z, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) z[i] = x[i] / y[i];
}
extern "C" __global__ void raw_mod64(const long long *x, const long long *y, long long *z, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) z[i] = x[i] % y[i];
}
extern "C" __global__ void raw_sync_div(const int *x, const int *y, int *z, int n) {
    __shared__ int s[256];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    s[threadIdx.x] = i < n ? x[i] : 0;
    __syncthreads();
    if (i < n) z[i] = s[threadIdx.x] / y[i];
}
"""


def _on_the_cpu(case):
    """Run a case with the CPU as the current device: its kernels launch on
    their arrays' device, and these faults are the CPU's (the suite may run
    with EMBER_DEVICE=cuda:0)."""
    @functools.wraps(case)
    def run(device):
        with em.Device("cpu"):
            return case(device)
    return run


@_on_the_cpu
def case_raw(device):
    mod = em.RawModule(code=RAW_SRC)
    div, mod64, sync_div = (mod.get_function(n) for n in ("raw_div", "raw_mod64", "raw_sync_div"))
    for n, zero_at in ((100, 37), (1 << 20, (1 << 20) - 5)):  # one part; many blocks over the workers
        x = em.asarray(np.arange(n, dtype=np.int32))
        y = np.ones(n, np.int32)
        y[zero_at] = 0
        z = em.zeros(n, dtype=em.int32)
        grid = ((n + 255) // 256,)
        for k in (div, sync_div):
            with pytest.raises(ZeroDivisionError, match=TRAP_MSG.format(k.name)):
                k(grid, (256,), (x, em.asarray(y), z, n))
        y[zero_at] = 2
        div(grid, (256,), (x, em.asarray(y), z, n))
        np.testing.assert_array_equal(to_np(z), np.arange(n, dtype=np.int32) // y)
    # INT_MIN / -1 traps too (x86 raises the same fault).
    x = em.asarray(np.array([-2**63, 5], np.int64))
    z = em.zeros(2, dtype=em.int64)
    with pytest.raises(ZeroDivisionError, match=TRAP_MSG.format("raw_mod64")):
        mod64((1,), (2,), (x, em.asarray(np.array([-1, 3], np.int64)), z, 2))
    mod64((1,), (2,), (x, em.asarray(np.array([3, 3], np.int64)), z, 2))
    np.testing.assert_array_equal(to_np(z), np.fmod(np.array([-2**63, 5], np.int64), 3))  # C's %


def test_raw_kernel_zero_divisor(device):
    if not _on_cpu(device):
        pytest.skip("a CUDA integer division by zero does not trap (its result is unspecified)")
    _survives("case_raw", device)
    case_raw(device)


# ---- ElementwiseKernel / ReductionKernel on the CPU -----------------------------

@_on_the_cpu
def case_expr(device):
    ek = em.ElementwiseKernel("T x, T y", "T z", "z = x / y; z += x % y", "ew_divmod")
    rk = em.ReductionKernel("T x, T y", "T z", "x / y", "a + b", "z = a", "0", "red_div")
    for dt in INT_DTYPES:
        for n in (50, 1 << 18):  # inline; split over the workers (and a split reduction)
            x = np.arange(n).astype(dt)
            y = np.ones(n, dt)
            y[n // 2] = 0
            with pytest.raises(ZeroDivisionError, match=TRAP_MSG.format("ew_divmod")):
                ek(em.asarray(x), em.asarray(y))
            with pytest.raises(ZeroDivisionError, match=TRAP_MSG.format("red_div")):
                rk(em.asarray(x), em.asarray(y))
            y[n // 2] = 1
            np.testing.assert_array_equal(to_np(ek(em.asarray(x), em.asarray(y))), x)
            assert int(to_np(rk(em.asarray(x), em.asarray(y)))) == int(x.astype(np.uint64).sum().astype(dt))
    x = em.asarray(np.array([-2**31, 7], np.int32))
    with pytest.raises(ZeroDivisionError, match=TRAP_MSG.format("ew_divmod")):
        ek(x, em.asarray(np.array([-1, 2], np.int32)))


def test_expression_kernel_zero_divisor(device):
    if not _on_cpu(device):
        pytest.skip("a CUDA integer division by zero does not trap (its result is unspecified)")
    _survives("case_expr", device)
    case_expr(device)


# ---- faults from several threads; faults that are not ours -----------------------

@_on_the_cpu
def case_threads(device):
    """A thread whose kernels fault and one whose kernels do not, at once."""
    bad = em.ElementwiseKernel("int64 x, int64 y", "int64 z", "z = x / y", "ew_bad")
    good = em.ElementwiseKernel("int64 x, int64 y", "int64 z", "z = x / y", "ew_good")
    n = 1 << 17
    x = em.asarray(np.arange(n, dtype=np.int64))
    zeros, twos = em.zeros(n, dtype=em.int64), em.full(n, 2, dtype=em.int64)
    errors = []

    def run(k, y, expect_error):
        try:
            for _ in range(30):
                if expect_error:
                    with pytest.raises(ZeroDivisionError, match="'ew_bad'"):
                        k(x, y)
                else:
                    np.testing.assert_array_equal(to_np(k(x, y)), np.arange(n) // 2)
        except BaseException as e:  # noqa: BLE001 - reported below
            errors.append(e)

    ts = [threading.Thread(target=run, args=(bad, zeros, True)), threading.Thread(target=run, args=(good, twos, False))]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    assert not errors, errors


def test_faults_from_two_threads(device):
    if not _on_cpu(device):
        pytest.skip("CPU kernels only")
    _survives("case_threads", device)
    case_threads(device)


@pytest.mark.parametrize("how", ["kill", "cpu", "faulthandler"])
def test_sigfpe_outside_kernels_still_ends_the_process(how):
    """The handler stays installed after a recovered fault, but a SIGFPE
    that is not a kernel's has the effect it would have without Ember."""
    code = ("import ctypes, faulthandler, os, signal, numpy as np, ember as em\n"
            "k = em.ElementwiseKernel('int32 x, int32 y', 'int32 z', 'z = x / y', 'ew_first')\n"
            "try:\n"
            "    k(em.asarray(np.ones(4, np.int32), device='cpu'), em.zeros(4, dtype=em.int32, device='cpu'))\n"
            "except ZeroDivisionError:\n"
            "    print('recovered', flush=True)\n")
    if how == "kill":
        code += "os.kill(os.getpid(), signal.SIGFPE)\n"
    else:  # a real division by zero in C code outside any kernel launch
        if how == "faulthandler":
            code = "import faulthandler; faulthandler.enable()\n" + code
        code += ("h = em._ember._cc_load('int dv(int a, int b) { return a / b; }', 'dv')\n"
                 "f = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_int, ctypes.c_int)(em._ember._cc_sym(h, 'dv'))\n"
                 "f(1, 0)\n")
    code += "print('not reached')\n"
    r = _run_python(code)
    assert r.stdout.split() == ["recovered"], r.stdout + r.stderr
    assert r.returncode == -signal.SIGFPE, (r.returncode, r.stderr[-2000:])
    if how == "faulthandler":
        assert "Fatal Python error: Floating point exception" in r.stderr


def test_float_division_by_zero_is_not_an_error(device):
    """Floats keep NumPy's inf and nan (the CPU does not trap on them)."""
    @em.jit
    def fdiv(a, b, out):
        i = em.grid(1)
        if i < a.size:
            out[0, i] = a[i] / b[i]
            out[1, i] = a[i] // b[i]
            out[2, i] = a[i] % b[i]

    a, b = np.array([1.0, -1.0, 0.0]), np.zeros(3)
    out = em.zeros((3, 3), dtype=em.float64, device=device)
    fdiv[1, 32](em.asarray(a, device=device), em.asarray(b, device=device), out)
    with np.errstate(all="ignore"):
        want = np.stack([a / b, np.floor_divide(a, b), np.remainder(a, b)])
    np.testing.assert_array_equal(to_np(out), want)
