"""Raw CUDA C kernels on the CPU device: the C subset of CUDA, compiled with
the system C compiler and run by the @em.jit CPU launcher.

PyCUDA's and CuPy's kernels are mostly C: ``__global__`` functions indexing
pointers with ``threadIdx``/``blockIdx``/``blockDim``/``gridDim``, math.h
functions, ``__syncthreads()``, ``__shared__`` arrays, atomics and printf.
A prelude gives those names C meanings -- the four index registers are
thread-local globals the launcher sets before each thread, ``__shared__``
storage is thread-local (a block runs on one OS thread, its threads one
after the other or, when the kernel calls ``__syncthreads()``, as
coroutines switched at each barrier), atomics are GCC builtins, printf goes
to the launcher's ordered print buffer -- and a trampoline per argument
signature calls the kernel with the pointers and scalars, which C's
prototype conversions turn into the parameter types.  C++ (templates,
references, classes) does not compile as C: the CompileError says so.
An integer division by zero (or INT_MIN / -1) in the kernel traps on x86:
the launcher recovers from the SIGFPE and the launch raises
ZeroDivisionError naming the kernel (src/host/fpe_guard.h, docs/kernels.md).
"""
import re
import sys

import numpy as np

from . import _ember

# CUDA C's names given C meanings (src/codegen/raw_prelude_c.inc, embedded by
# the build): what the docstring above describes.
_SHIM = _ember.raw_prelude("c")

_EXTERN_C = re.compile(r'extern\s+"C"\s*(\{)?')


# The user's source is CUDA C: what it spells is read with the CUDA table's
# spellings (src/codegen/dialect.c).
_CU = _ember.dialect("cuda")
_DYN_SHARED = re.compile(r"extern\s+" + re.escape(_CU["shared"])
                         + r"\s+([A-Za-z_][\w\s]*?)\s*(\w+)\s*\[\s*\]\s*;")
_BARRIER_NAME = _CU["barrier"].split("(")[0]


def _c_source(code):
    """The CUDA source as C: no `extern "C"` (nor the braces of an
    `extern "C" { ... }` block); dynamic shared arrays point into the
    launch's shared memory."""
    while True:
        m = _EXTERN_C.search(code)
        if not m:
            break
        if m.group(1):
            depth, i = 1, m.end()
            while i < len(code) and depth:
                depth += {"{": 1, "}": -1}.get(code[i], 0)
                i += 1
            code = code[:m.start()] + code[m.end():i - 1] + code[i:]
        else:
            code = code[:m.start()] + code[m.end():]
    return _DYN_SHARED.sub(lambda m: f"{m.group(1)} *{m.group(2)} = ({m.group(1)} *)em__cur->shared;", code)


def _arg_types(args, kname):
    """One (kind, ndim, dtype name) per argument: 'W'/'R' arrays, 'i' 'u' 'f' 'b'
    scalars.  The messages follow the CUDA launch path's (python/_ember/kernel.c)."""
    out = []
    for i, a in enumerate(args):
        if isinstance(a, _ember.ndarray):
            if a._dev[0] != "cpu":
                raise ValueError(f"kernel '{kname}': argument {i} is on {a._dev[0]}:{a._dev[1]}, but the "
                                 "launch runs on the CPU (its first array argument is there)")
            out.append(("W" if a._writeable else "R", a.ndim, a.dtype.name))
        elif isinstance(a, np.ndarray):
            out.append(("W" if a.flags.writeable else "R", a.ndim, a.dtype.name))
        elif isinstance(a, (bool, np.bool_)):
            out.append(("b", 0, "bool"))
        elif isinstance(a, np.integer):
            u = a.dtype == np.uint64
            out.append(("u" if u else "i", 0, "uint64" if u else "int64"))
        elif isinstance(a, int):
            if not -2**63 <= a < 2**63:
                raise OverflowError(f"kernel '{kname}': argument {i}: Python int {a} does not fit int64")
            out.append(("i", 0, "int64"))
        elif isinstance(a, (float, np.floating)):
            out.append(("f", 0, "float64"))
        elif isinstance(a, np.generic):
            raise TypeError(f"kernel '{kname}': argument {i} is a NumPy scalar of unsupported type "
                            f"{a.dtype} for a raw kernel on the CPU")
        elif hasattr(a, "__cuda_array_interface__"):
            raise TypeError(f"kernel '{kname}': argument {i} has a __cuda_array_interface__ (device "
                            "memory), but the launch runs on the CPU")
        else:
            raise TypeError(f"kernel '{kname}': argument {i} has unsupported type '{type(a).__name__}'; "
                            "expected an ember or NumPy array, or an int, float or bool")
    return tuple(out)


def _trampoline(kname, types, uses_sync):
    """em_k_range / em_k_thread calling the kernel with the argument slots."""
    call, k = [], 0
    for kind, nd, _ in types:
        if kind in "WR":
            call.append(f"(void *)(intptr_t)em_a[{k}].i")
            k += 1 + 2 * nd
        else:
            call.append({"f": f"em_a[{k}].d", "u": f"em_a[{k}].u", "b": f"(bool)em_a[{k}].i"}.get(kind, f"em_a[{k}].i"))
            k += 1
    args = ", ".join(call)
    rng = f"""
void em_k_range(em_jit_ctx *em_c, const em_slot *em_a, em_i64 em_b0, em_i64 em_b1) {{
    em__cur = em_c;
    for (em_i64 b = em_b0; b < em_b1; b++) {{
        em_c->bid[0] = b % em_c->gdim[0];
        em_c->bid[1] = b / em_c->gdim[0] % em_c->gdim[1];
        em_c->bid[2] = b / (em_c->gdim[0] * em_c->gdim[1]);
        for (em_i64 z = 0; z < em_c->bdim[2]; z++)
            for (em_i64 y = 0; y < em_c->bdim[1]; y++)
                for (em_i64 x = 0; x < em_c->bdim[0]; x++) {{
                    em_c->tid[0] = x, em_c->tid[1] = y, em_c->tid[2] = z;
                    em__set_idx(em_c);
                    {kname}({args});
                }}
    }}
}}
"""
    thr = f"""
void em_k_thread(em_jit_ctx *em_c, const em_slot *em_a) {{
    em__cur = em_c;
    em__set_idx(em_c);
    {kname}({args});
}}
""" if uses_sync else ""
    return rng + thr


def _dims(v):
    """grid or block as 3 ints (the C launch path has validated them)."""
    t = (v,) if isinstance(v, (int, np.integer)) else tuple(v)
    return tuple(int(x) for x in t) + (1,) * (3 - len(t))


def launch(kernel, grid, block, args, shared_mem=0):
    """Run a RawKernel (its module's source, its name) on the CPU device."""
    from ._jit import dispatch as _dispatch
    from ._jit import render as _render
    kname = kernel.name
    if not isinstance(args, (tuple, list)):
        raise TypeError(f"kernel '{kname}': args must be a tuple or list of kernel arguments, "
                        f"not '{type(args).__name__}'")
    g, b = _dims(grid), _dims(block)
    types = _arg_types(args, kname)
    specs = kernel.__dict__.setdefault("_cpu_specs", {})
    spec = specs.get(types)
    if spec is None:
        if not _ember._cc_available():
            raise _ember.CompileError(
                f"kernel '{kname}': raw CUDA kernels run on the CPU through a C compiler, and none was "
                f"found: {_ember._cc_why()} (set EMBER_CC, or run on a CUDA device)")
        code = kernel.code
        uses_sync = _BARRIER_NAME in code
        src = (_render.prelude("c") + _SHIM + "#line 1 \"" + kname + ".cu\"\n" + _c_source(code)
               + "\n#line 100000 \"ember trampoline\"\n" + _trampoline(kname, types, uses_sync))
        try:
            handle = _ember._cc_load(src, kname)
        except _ember.CompileError as e:
            raise _ember.CompileError(
                f"{e}\n(raw CUDA kernels on the CPU are compiled as C11: templates, references and "
                "other C++ do not compile; run them on a CUDA device)") from None
        rng = _ember._cc_sym(handle, "em_k_range")
        thr = _ember._cc_sym(handle, "em_k_thread") if uses_sync else 0
        spec = (rng, thr, kname, 0, "".join(t[0] for t in types).encode(),
                bytes(t[1] for t in types), bytes(_dispatch._EM_DTYPE[t[2]] for t in types),
                tuple(f"arg {i}" for i in range(len(types))))
        specs[types] = spec
    out = _ember._jit_launch(spec, tuple(args), g, b, int(shared_mem))
    if out:
        sys.stdout.write(out)
