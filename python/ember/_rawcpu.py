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

_SHIM = r"""
/* ---- CUDA C's names on the CPU (ember/_rawcpu.py) ---- */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
typedef struct { unsigned int x, y, z; } em_uint3;
typedef em_uint3 dim3;
static __thread em_jit_ctx *em__cur;
static __thread em_uint3 threadIdx, blockIdx, blockDim, gridDim;
static inline void em__set_idx(em_jit_ctx *c) {
    threadIdx.x = (unsigned)c->tid[0], threadIdx.y = (unsigned)c->tid[1], threadIdx.z = (unsigned)c->tid[2];
    blockIdx.x = (unsigned)c->bid[0], blockIdx.y = (unsigned)c->bid[1], blockIdx.z = (unsigned)c->bid[2];
    blockDim.x = (unsigned)c->bdim[0], blockDim.y = (unsigned)c->bdim[1], blockDim.z = (unsigned)c->bdim[2];
    gridDim.x = (unsigned)c->gdim[0], gridDim.y = (unsigned)c->gdim[1], gridDim.z = (unsigned)c->gdim[2];
}
#define __global__
#define __device__ static inline
#define __host__
#define __forceinline__
#define __noinline__ __attribute__((noinline))
#define __restrict__ restrict
#define __launch_bounds__(...)
#define __shared__ static __thread
#define __constant__ static const
/* A barrier: the coroutine may resume after others ran, so it reloads its
 * own context and indices from a local saved before switching. */
#define __syncthreads() do { em_jit_ctx *em__me = em__cur; em__me->sync(em__me); em__cur = em__me; em__set_idx(em__me); } while (0)
#define __threadfence() __atomic_thread_fence(__ATOMIC_SEQ_CST)
#define printf(...) em__cur->print(em__cur, __VA_ARGS__)
#undef min
#undef max
#define min(a, b) ((a) < (b) ? (a) : (b))
#define max(a, b) ((a) > (b) ? (a) : (b))
/* Atomics: one function per (operation, type), picked by _Generic on the
 * pointer type as CUDA's overloads are. */
#define EM_CAS_FLOAT(NAME, T, U, OP)                                                   \
    static inline T NAME(T *p, T v) {                                                  \
        U old = __atomic_load_n((U *)p, __ATOMIC_RELAXED), nw;                        \
        T o;                                                                           \
        do { memcpy(&o, &old, sizeof o); T r = OP; memcpy(&nw, &r, sizeof nw); }       \
        while (!__atomic_compare_exchange_n((U *)p, &old, nw, 0, __ATOMIC_RELAXED, __ATOMIC_RELAXED)); \
        return o;                                                                      \
    }
#define EM_ATOMIC_INT(S, T)                                                            \
    static inline T em__add_##S(T *p, T v) { return __atomic_fetch_add(p, v, __ATOMIC_RELAXED); } \
    static inline T em__sub_##S(T *p, T v) { return __atomic_fetch_sub(p, v, __ATOMIC_RELAXED); } \
    static inline T em__exch_##S(T *p, T v) { return __atomic_exchange_n(p, v, __ATOMIC_RELAXED); } \
    static inline T em__cas_##S(T *p, T c, T v) { __atomic_compare_exchange_n(p, &c, v, 0, __ATOMIC_RELAXED, __ATOMIC_RELAXED); return c; } \
    static inline T em__max_##S(T *p, T v) { T o = __atomic_load_n(p, __ATOMIC_RELAXED); \
        while (o < v && !__atomic_compare_exchange_n(p, &o, v, 0, __ATOMIC_RELAXED, __ATOMIC_RELAXED)) {} return o; } \
    static inline T em__min_##S(T *p, T v) { T o = __atomic_load_n(p, __ATOMIC_RELAXED); \
        while (o > v && !__atomic_compare_exchange_n(p, &o, v, 0, __ATOMIC_RELAXED, __ATOMIC_RELAXED)) {} return o; }
EM_ATOMIC_INT(i, int)
EM_ATOMIC_INT(u, unsigned int)
EM_ATOMIC_INT(l, long long)
EM_ATOMIC_INT(ul, unsigned long long)
EM_CAS_FLOAT(em__add_f, float, unsigned int, o + v)
EM_CAS_FLOAT(em__add_d, double, unsigned long long, o + v)
EM_CAS_FLOAT(em__sub_f, float, unsigned int, o - v)
EM_CAS_FLOAT(em__max_f, float, unsigned int, (o > v ? o : v))
EM_CAS_FLOAT(em__min_f, float, unsigned int, (o < v ? o : v))
EM_CAS_FLOAT(em__exch_f, float, unsigned int, v)
#define EM_PICK(OP, p) _Generic((p), int *: em__##OP##_i, unsigned int *: em__##OP##_u, \
    long long *: em__##OP##_l, unsigned long long *: em__##OP##_ul, float *: em__##OP##_f)
#define atomicAdd(p, v) _Generic((p), double *: em__add_d, default: EM_PICK(add, p))((p), (v))
#define atomicSub(p, v) EM_PICK(sub, p)((p), (v))
#define atomicExch(p, v) EM_PICK(exch, p)((p), (v))
#define atomicMax(p, v) EM_PICK(max, p)((p), (v))
#define atomicMin(p, v) EM_PICK(min, p)((p), (v))
#define atomicCAS(p, c, v) _Generic((p), int *: em__cas_i, unsigned int *: em__cas_u, \
    long long *: em__cas_l, unsigned long long *: em__cas_ul)((p), (c), (v))
#define __float2int_rn(x) ((int)rintf(x))
#define __fdividef(a, b) ((a) / (b))
#define rsqrtf(x) (1.0f / sqrtf(x))
#define rsqrt(x) (1.0 / sqrt(x))
/* ---- the user's source ---- */
"""

_EXTERN_C = re.compile(r'extern\s+"C"\s*(\{)?')


_DYN_SHARED = re.compile(r"extern\s+__shared__\s+([A-Za-z_][\w\s]*?)\s*(\w+)\s*\[\s*\]\s*;")


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
        uses_sync = "__syncthreads" in code
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
