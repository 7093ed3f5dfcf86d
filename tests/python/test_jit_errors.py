"""Every construct @em.jit refuses raises em.CompileError naming the kernel,
the line (file:line of the Python source) and the construct; the process
keeps working afterwards.  Needs no C compiler (errors come from the front
end, before any compilation) except where noted."""
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import ember as em

HERE = os.path.dirname(os.path.abspath(__file__))
PYPATH = os.path.join(HERE, "..", "..", "python")


def foo(x):
    return x


GLOBAL_LIST = [1, 2, 3]


def line_of(fn, text):
    """The file line number of the first source line of fn containing text."""
    import inspect
    lines, first = inspect.getsourcelines(fn)
    for k, line in enumerate(lines):
        if text in line:
            return first + k
    raise AssertionError(text)


def compile_error(kernel, *args, launch=True):
    with pytest.raises(em.CompileError) as info:
        kernel.render(*args)
    return str(info.value)


def check(kernel, args, text, msg):
    err = compile_error(kernel, *args)
    line = line_of(kernel.py_func, text)
    assert f"kernel '{kernel.__name__}', line {line} ({__file__}):" in err, err
    assert msg in err, err
    assert text.strip() in err  # the offending source line is quoted
    return err


A = np.zeros(8)
A2 = np.zeros((4, 4))


@em.jit
def k_call(a):
    a[0] = foo(1)


@em.jit
def k_slice(a):
    a[1:3] = 0


@em.jit
def k_partial(a):
    a[0] = 1


@em.jit
def k_return(a):
    return a[0]


@em.jit
def k_undefined(a):
    a[0] = not_defined_anywhere  # noqa: F821


@em.jit
def k_global(a):
    a[0] = GLOBAL_LIST


@em.jit
def k_try(a):
    try:
        a[0] = 1
    except Exception:
        pass


@em.jit
def k_before(a):
    if a[0] > 0:
        a[1] = later  # noqa: F821
    later = 1  # noqa: F841


@em.jit
def k_tuple(a):
    t = em.grid(2)  # noqa: F841
    a[0] = 1


@em.jit
def k_shape(a):
    s = em.shared.array(a.size, np.float32)
    s[0] = 1


@em.jit
def k_float_index(a):
    a[1.5] = 0


@em.jit
def k_bitwise(a):
    a[0] = a[1] & a[2]


@em.jit
def k_rebind(a, b):
    c = a
    c = b
    c[0] = 1


@em.jit(device=True)
def recurse(n):
    return recurse(n - 1) if n > 0 else 0


@em.jit
def k_recursion(a):
    a[0] = recurse(3)


@em.jit
def k_kernel_call(a):
    k_partial(a)


@em.jit
def k_for(a):
    for x in a:
        a[0] = x


@em.jit
def k_atomic_type(a):
    em.atomic.add(a, 0, 1)


@em.jit
def k_print_kw(a):
    print(a[0], end="")


@em.jit
def k_overflow(a):
    a[0] = a[1] + 300


@em.jit
def k_lambda(a):
    f = lambda x: x  # noqa: E731
    a[0] = 1


@em.jit
def k_string(a):
    a[0] = "x"


@em.jit
def k_attr(a):
    a[0] = a.T


@em.jit
def k_sync_value(a):
    a[0] = em.syncthreads()


@em.jit
def k_star(*args):
    pass


@em.jit(device=True)
def returns_nothing(a):
    a[0] = 1


@em.jit
def k_void(a):
    x = returns_nothing(a)
    a[1] = x


@em.jit(device=True)
def dev_shared(a):
    s = em.shared.array(4, np.float64)
    s[0] = a[0]
    return s[0]


@em.jit
def k_dev_shared(a):
    a[0] = dev_shared(a)


CASES = [
    (k_call, (A,), "a[0] = foo(1)", "calls to 'foo' are not supported in kernels: only math.*, em.* "
                                    "intrinsics and @em.jit(device=True) functions"),
    (k_slice, (A,), "a[1:3] = 0", "slices are not supported in kernels"),
    (k_partial, (A2,), "a[0] = 1", "array with 2 dimensions indexed with 1 index"),
    (k_return, (A,), "return a[0]", "kernels cannot return a value"),
    (k_undefined, (A,), "not_defined_anywhere", "name 'not_defined_anywhere' is not defined"),
    (k_global, (A,), "GLOBAL_LIST", "global 'GLOBAL_LIST' of type list cannot be used in a kernel"),
    (k_try, (A,), "try:", "'Try' statements are not supported in kernels"),
    (k_before, (A,), "a[1] = later", "local variable 'later' is used before it is assigned"),
    (k_tuple, (A,), "t = em.grid(2)", "cannot assign a tuple to 't'"),
    (k_shape, (A,), "em.shared.array(a.size", "em.shared.array needs a constant shape"),
    (k_float_index, (A,), "a[1.5] = 0", "array indices must be integers, not float64"),
    (k_bitwise, (A,), "a[1] & a[2]", "operator & needs integer or bool operands"),
    (k_rebind, (A, A), "c = b", "'c' already names an array"),
    (k_kernel_call, (A2,), "k_partial(a)", "'k_partial' is a kernel: kernels cannot call kernels"),
    (k_for, (A,), "for x in a:", "kernels loop over range(...) only"),
    (k_atomic_type, (np.zeros(4, np.int8),), "em.atomic.add", "em.atomic.add supports int32, uint32, int64"),
    (k_print_kw, (A,), 'print(a[0], end="")', "print() in kernels takes positional arguments only"),
    (k_overflow, (np.zeros(4, np.uint8),), "a[1] + 300", "Python integer 300 out of bounds for uint8"),
    (k_lambda, (A,), "lambda x", "Lambda expressions are not supported in kernels"),
    (k_string, (A,), 'a[0] = "x"', "strings are only supported as print() arguments"),
    (k_attr, (A,), "a.T", "array attribute 'T' is not supported in kernels"),
    (k_sync_value, (A,), "em.syncthreads()", "em.syncthreads() is a statement"),
    (k_void, (A,), "x = returns_nothing(a)", "'returns_nothing' returns no value"),
]


@pytest.mark.parametrize("kernel,args,text,msg", CASES, ids=[c[0].__name__ for c in CASES])
def test_compile_errors(kernel, args, text, msg):
    check(kernel, args, text, msg)


def test_recursion_is_refused():
    err = compile_error(k_recursion, A)
    assert "recursive call to 'recurse': recursion is not supported in kernels" in err
    assert f"line {line_of(recurse.py_func, 'return recurse')}" in err


def test_signature_errors():
    err = compile_error(k_star, A)
    assert "only plain positional parameters are supported" in err
    with pytest.raises(TypeError, match="em.jit takes no type signatures"):
        em.jit("void(float32[:])")
    with pytest.raises(TypeError, match="unsupported options"):
        em.jit(fastmath=True)
    with pytest.raises(TypeError, match="is a device function"):
        recurse(3)
    with pytest.raises(TypeError, match="is a device function"):
        recurse[1, 1]
    with pytest.raises(TypeError, match="em.grid can only be used inside an @em.jit kernel"):
        em.grid(1)


def test_no_source():
    with pytest.raises(em.CompileError, match="cannot read the source of"):
        ns = {}
        exec("def f(a):\n    a[0] = 1\n", ns)
        em.jit(ns["f"]).render(A)


def test_plain_function_cannot_use_thread_indices():
    @em.jit
    def f(a):
        a[0] = em.threadIdx.x

    with pytest.raises(em.CompileError, match=r"em.threadIdx belongs to kernels: launch 'f' with f\[blocks, threads\]"):
        f.render(A, kind="plain")


def test_process_keeps_working():
    for kernel, args, text, msg in CASES[:3]:
        with pytest.raises(em.CompileError):
            kernel.render(*args)
    ok = em.jit(lambda_free_kernel)
    src = ok.render(A)
    assert "em_k_range" in src


def lambda_free_kernel(a):
    a[0] = 1


def test_no_c_compiler_says_so():
    code = textwrap.dedent("""
        import numpy as np, ember as em
        @em.jit
        def k(a):
            a[0] = 1
        try:
            with em.Device("cpu"):
                k[1, 1](np.zeros(2))
        except em.CompileError as e:
            print("ERR", e)
        print(em._ember._cc_available())
    """)
    path = os.path.join(HERE, "_nocc_probe.py")
    with open(path, "w") as f:
        f.write(code)
    try:
        env = dict(os.environ, PYTHONPATH=PYPATH, EMBER_CC="/nonexistent/cc", EMBER_DEVICE="cpu")
        out = subprocess.run([sys.executable, path], env=env, capture_output=True, text=True, timeout=60)
    finally:
        os.unlink(path)
    assert "ERR a C compiler is needed to run @em.jit kernels on the CPU" in out.stdout, out.stderr
    assert "'/nonexistent/cc' (from EMBER_CC) does not run" in out.stdout
    assert "set EMBER_CC" in out.stdout
    assert out.stdout.strip().endswith("False")


def test_shared_array_in_device_function():
    err = compile_error(k_dev_shared, A)
    assert "function 'dev_shared', line" in err
    assert "em.shared.array belongs in the kernel itself" in err
