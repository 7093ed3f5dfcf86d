"""Expression kernels in CuPy's shape: ``em.ElementwiseKernel`` and
``em.ReductionKernel``; they run on every device.

    squared_diff = em.ElementwiseKernel("T x, T y", "T z", "z = (x - y) * (x - y)", "squared_diff")
    l2norm = em.ReductionKernel("T x", "T y", "x * x", "a + b", "y = sqrt(a)", "0", "l2norm")

Parameters are ``"[raw] type name"``; ``type`` is a NumPy dtype name
(``float32``, ``int64``, ``bool``...; also C's ``float``, ``double``,
``int``) or a placeholder (any other identifier, e.g. ``T``) bound from the
arguments: arrays and NumPy scalars bind it by their dtype, Python scalars
only when nothing else does (int -> int64, float -> float64, as NumPy 2's weak
scalars); a Python int that does not fit the bound type is an OverflowError.
Non-``raw`` arrays broadcast together and are read (inputs) and written
(outputs) element by element; in the body ``i`` is the element's C-order
index and ``_ind.size()`` the element count.  ``raw`` arrays are pointers to
C-contiguous data indexed directly (``y[_ind.size() - i - 1]``);
``y.size()`` is its element count.

The body is compiled as CUDA C++ on a GPU (NVRTC, through RawKernel) and as
C11 on the CPU (the system C compiler, ``EMBER_CC``): write the common
subset.  On the CPU ``<tgmath.h>`` makes ``sqrt``/``exp``/... type-generic,
and ``min``, ``max``, ``abs`` work on any type as in CUDA; ``__device__`` in
a preamble is ignored.  float16 is stored as float16 and computed in float
(rounded once, when stored; raw float16 parameters only on the CPU).
Complex values are C's ``_Complex`` on the CPU and a struct with the same
operators on CUDA; ``real``, ``imag``, ``conj``, ``abs``, ``arg``, ``exp``,
``log``, ``sqrt``, ``sin`` and ``cos`` work on both.  Compiled kernels are cached per (argument
dtypes, scalar/array kinds, dimensions, contiguity), so a repeat call with
the same kinds of arguments does not compile.
"""
import re

import numpy as np

from . import _ember
from ._kernels import RawKernel

__all__ = ["ElementwiseKernel", "ReductionKernel"]

_C_ALIASES = {"float": "float32", "double": "float64", "int": "int32", "bool": "bool"}
_DTYPE_NAMES = {n for n in _ember.dtype_names} | set(_C_ALIASES)
_C_TYPES = {"bool": "bool", "int8": "int8_t", "int16": "int16_t", "int32": "int32_t", "int64": "int64_t",
            "uint8": "uint8_t", "uint16": "uint16_t", "uint32": "uint32_t", "uint64": "uint64_t",
            "float16": "float", "float32": "float", "float64": "double", "complex64": "float _Complex",
            "complex128": "double _Complex"}
_CU_TYPES = {"bool": "bool", "int8": "signed char", "int16": "short", "int32": "int", "int64": "long long",
             "uint8": "unsigned char", "uint16": "unsigned short", "uint32": "unsigned int",
             "uint64": "unsigned long long", "float16": "float", "float32": "float", "float64": "double",
             "complex64": "em_complex<float>", "complex128": "em_complex<double>"}
# OpenCL C: no pointer to bool in device memory (bool is stored as uchar and
# converted like float16 below), no complex arithmetic (no overloading).
_CL_TYPES = {"bool": "bool", "int8": "char", "int16": "short", "int32": "int", "int64": "long",
             "uint8": "uchar", "uint16": "ushort", "uint32": "uint", "uint64": "ulong",
             "float16": "float", "float32": "float", "float64": "double"}
_TYPES = {"cpu": _C_TYPES, "cuda": _CU_TYPES, "opencl": _CL_TYPES}
# float16 is stored as these and computed in float (converted on load and
# rounded once on store): (storage, load, store, the computing type).
_HALF = {"cpu": ("_Float16", "(float)({})", "(_Float16)({})", "float"),
         "cuda": ("unsigned short", "em__h2f({})", "em__f2h({})", "float"),
         "opencl": ("ushort", "em__h2f({})", "em__f2h({})", "float")}
# OpenCL's bool, stored as a byte, the same way.
_CL_BOOL = ("uchar", "(bool)({})", "(uchar)({})", "bool")
_RESERVED = ("i", "_ind")  # and, in a ReductionKernel, a and b
_IDENT = re.compile(r"[A-Za-z_]\w*\Z")

# Kernel text comes from src/codegen/ through the extension: each device
# kind's prelude (expr_prelude_c.inc, expr_prelude_cuda.cuh: what one body
# needs to compile for both; expr_prelude_opencl.cl) and CUDA's and
# OpenCL's spellings from the dialect table
# (src/codegen/dialect.c).  What is left here is the kernels' structure.
_PRELUDE = {"cpu": _ember.expr_prelude("c"), "cuda": _ember.expr_prelude("cuda"),
            "opencl": _ember.expr_prelude("opencl")}  # expr_prelude_opencl.cl
_CU = _ember.dialect("cuda")
_CL = _ember.dialect("opencl")


def _cu_reg(field):
    """A CUDA index register of dimension x, the table spells it with %c for the dimension."""
    return _CU[field].replace("%c", "x")


_KERNEL = _CU["kernel"]
_TID, _BID, _BDIM, _GDIM = (_cu_reg(f)
                             for f in ("local_id", "group_id", "local_size", "num_groups"))
_BARRIER, _WARP_BARRIER = _CU["barrier"], _CU["warp_barrier"]
_DYN_SHARED = _CU["dyn_shared"]


class _CTypes:
    """The C spellings of the parameters of one specialisation: ctype (what
    the body computes with: the placeholder's name or the dtype's type),
    stype (what memory holds), and float16's load and store conversions."""

    def __init__(self, kind, types):
        self.kind, self.types = kind, types
        self.table = _TYPES[kind]

    def _conv(self, p):
        """(storage, load, store, computing type) for a converted parameter, else None."""
        dt = self.types[p.name]
        if dt == np.float16:
            return _HALF[self.kind]
        return _CL_BOOL if self.kind == "opencl" and dt == np.bool_ else None

    def half(self, p):
        return self._conv(p) is not None

    def ctype(self, p):
        return p.type if p.fixed is None else self.table[self.types[p.name].name]

    def stype(self, p):
        c = self._conv(p)
        return c[0] if c else self.ctype(p)

    def load(self, p, lv):
        c = self._conv(p)
        return c[1].format(lv) if c else lv

    def store(self, p, v):
        c = self._conv(p)
        return c[2].format(v) if c else v

    def bind(self, p, lv, writable):
        """(before, define, after): p's name in the body for the lvalue lv;
        a float16 output goes through a float temporary stored back after."""
        if not self.half(p):
            return "", f"#define {p.name} ({lv})", ""
        if not writable:
            return "", f"#define {p.name} ({self.load(p, lv)})", ""
        t = f"_em_h_{p.name}"
        return f"{self._conv(p)[3]} {t} = {self.load(p, lv)};\n", f"#define {p.name} {t}", f"{lv} = {self.store(p, t)};\n"


class _Param:
    __slots__ = ("raw", "type", "name", "fixed")

    def __init__(self, raw, type_, name):
        self.raw, self.type, self.name = raw, type_, name
        self.fixed = np.dtype(_C_ALIASES.get(type_, type_)) if type_ in _DTYPE_NAMES else None


def _parse_params(spec, what, kname, reserved=_RESERVED):
    """The parameters of a CuPy parameter string ("T x, raw T y")."""
    if not isinstance(spec, str):
        raise TypeError(f"{kname}: {what} must be a str like 'T x, raw T y', got {type(spec).__name__}")
    out = []
    for part in (p.strip() for p in spec.split(",")):
        if not part:
            if spec.strip():
                raise ValueError(f"{kname}: empty parameter in {what} {spec!r}")
            continue
        words = part.split()
        raw = words[0] == "raw"
        if raw:
            words = words[1:]
        if len(words) != 2 or not all(_IDENT.match(w) for w in words):
            raise ValueError(f"{kname}: bad parameter {part!r} in {what}; expected '[raw] type name'")
        if words[1] in reserved or words[1].startswith("_em"):
            raise ValueError(f"{kname}: parameter name {words[1]!r} is reserved "
                             f"({', '.join(reserved)} and names starting with _em)")
        out.append(_Param(raw, words[0], words[1]))
    return out


def _check_types(kname, device_kind, params, types):
    table = _TYPES[device_kind]
    for p in params:
        dt = types[p.name]
        if device_kind != "cpu" and p.raw and dt in (np.float16, np.bool_) and \
                (dt == np.float16 or device_kind == "opencl"):
            raise TypeError(f"{kname}: raw parameter {p.name} is {dt.name}, which raw "
                            f"{'CUDA' if device_kind == 'cuda' else 'OpenCL'} parameters do not "
                            "take yet (its elements would be bits); use float32 or uint8")
        if dt.name not in table:
            where = ("on CUDA devices" if device_kind == "cuda" and dt.kind == "c" else
                     "on OpenCL devices (OpenCL C has no complex arithmetic)"
                     if device_kind == "opencl" and dt.kind == "c" else "by expression kernels")
            raise TypeError(f"{kname}: parameter {p.name} has dtype {dt.name}, which is not supported "
                            f"{where} yet (supported: {', '.join(table)})")


def _rewrite(body, raw_names):
    """CuPy's method-call spellings as plain C: _ind.size() and y.size()."""
    body = re.sub(r"\b_ind\s*\.\s*size\s*\(\s*\)", "_em_n", body)
    for n in raw_names:
        body = re.sub(r"\b%s\s*\.\s*size\s*\(\s*\)" % n, "_em_size_" + n, body)
    return body


def _is_array(x):
    return isinstance(x, _ember.ndarray)


def _scalar_dtype(x):
    """(dtype, strong) of a scalar argument: NumPy scalars are strong,
    Python scalars weak; (None, False) for anything else."""
    if isinstance(x, np.generic):
        return x.dtype, True
    if isinstance(x, bool):
        return np.dtype(bool), False
    if isinstance(x, int):
        return np.dtype(np.int64), False
    if isinstance(x, float):
        return np.dtype(np.float64), False
    if isinstance(x, complex):
        return np.dtype(np.complex128), False
    return None, False


def _bind(kname, params, args, nin):
    """Bind type placeholders from the inputs: arrays and NumPy scalars
    first (they must agree), then Python scalars for what is left, then the
    given outputs for placeholders only outputs use."""
    types, weak = {}, {}
    for p, a in zip(params[:nin], args[:nin]):
        if a is None or p.fixed is not None:
            continue
        if _is_array(a):
            dt, strong = a.dtype, True
        else:
            dt, strong = _scalar_dtype(a)
        if strong:
            have = types.get(p.type)
            if have is not None and have != dt:
                raise TypeError(f"{kname}: type {p.type} is bound to both {have} and {dt} "
                                f"(parameter {p.name}); cast the arguments to one dtype")
            types[p.type] = dt
        else:
            weak.setdefault(p.type, dt)
    for t, dt in weak.items():
        types.setdefault(t, dt)
    for p, a in zip(params[nin:], args[nin:]):
        if a is not None and p.fixed is None:
            types.setdefault(p.type, a.dtype)
    return types


def _scalar_value(kname, p, x, dt):
    """x as a NumPy scalar of dt, with NumPy 2's rule for Python ints."""
    if isinstance(x, int) and not isinstance(x, bool) and dt.kind in "iu":
        info = np.iinfo(dt)
        if not info.min <= x <= info.max:
            raise OverflowError(f"{kname}: Python int {x} is out of bounds for {dt} (parameter {p.name})")
    if isinstance(x, complex) and dt.kind != "c":
        raise TypeError(f"{kname}: a complex value for parameter {p.name} of dtype {dt}")
    if isinstance(x, float) and dt.kind in "biu":
        raise TypeError(f"{kname}: a Python float ({x!r}) for parameter {p.name} of dtype {dt} "
                        "would be truncated; pass an int or a NumPy scalar")
    return np.asarray(x).astype(dt)[()]


def _device_of(kname, arrays):
    dev = None
    for a in arrays:
        d = a._dev
        if dev is None:
            dev = d
        elif d != dev:
            raise ValueError(f"{kname}: arguments are on different devices ({dev[0]}:{dev[1]} and "
                             f"{d[0]}:{d[1]})")
    return dev if dev is not None else _ember._get_device()


def _broadcast_view(a, shape):
    """a viewed with shape (NumPy broadcasting: zero strides where a has size 1)."""
    if a.shape == tuple(shape):
        return a
    pad = len(shape) - a.ndim
    st = tuple(0 if pad > k or a.shape[k - pad] == 1 and shape[k] != 1 else a.strides[k - pad]
               for k in range(len(shape)))
    return a._view_as(tuple(shape), st, 0)


class _KernelBase:
    """What the two kinds share: parameters, options, the per-signature
    cache of compiled kernels and the launch on each device kind."""

    _reserved = _RESERVED

    def __init__(self, in_params, out_params, name, options, preamble):
        if not isinstance(name, str) or not _IDENT.match(name):
            raise ValueError(f"kernel name must be a C identifier, got {name!r}")
        self.name = name
        self.in_params = _parse_params(in_params, "in_params", name, self._reserved)
        self.out_params = _parse_params(out_params, "out_params", name, self._reserved)
        if not self.out_params:
            raise ValueError(f"{name}: out_params must name at least one output")
        names = [p.name for p in self.in_params + self.out_params]
        dup = {n for n in names if names.count(n) > 1}
        if dup:
            raise ValueError(f"{name}: parameter {sorted(dup)[0]!r} is declared twice")
        if isinstance(options, str):
            options = (options,)
        self.options = tuple(options)
        if not all(isinstance(o, str) for o in self.options):
            raise TypeError(f"{name}: options must be a tuple of str")
        if not isinstance(preamble, str):
            raise TypeError(f"{name}: preamble must be a str of C/CUDA source")
        self.preamble = preamble
        self._cache = {}
        self._compiles = 0  # kernels rendered and built (tests check the cache with it)

    def _bind(self, args, out):
        """The checks and bindings every call starts with: (inputs, outputs,
        which outputs were given, device kind and id, placeholder types,
        input values, whether an input is cast)."""
        ins, outs = self._split_args(args, out)
        given = [a is not None for a in outs]
        self._check_args(ins, outs)
        kind, dev = _device_of(self.name, [a for a in ins + outs if _is_array(a)])
        types = self._resolve(ins, outs)
        _check_types(self.name, kind, self.in_params + self.out_params, types)
        vals = self._inputs(ins, types)
        cast = any(_is_array(a) and a.dtype != types[p.name] for p, a in zip(self.in_params, ins))
        return ins, outs, given, kind, dev, types, vals, cast

    def _split_args(self, args, out):
        nin, nout = len(self.in_params), len(self.out_params)
        if out is not None:
            if len(args) != nin:
                raise TypeError(f"{self.name}: give the outputs either as arguments or as out=, not both")
            outs = tuple(out) if isinstance(out, (tuple, list)) else (out,)
            if len(outs) != nout:
                raise ValueError(f"{self.name}: out= needs {nout} array(s), got {len(outs)}")
            args = tuple(args) + outs
        if len(args) == nin:
            return list(args), [None] * nout
        if len(args) == nin + nout:
            return list(args[:nin]), list(args[nin:])
        raise TypeError(f"{self.name}: wrong number of arguments: expected {nin} inputs"
                        f" (and optionally {nout} outputs), got {len(args)}")

    def _check_args(self, ins, outs):
        for p, a in zip(self.in_params, ins):
            if _is_array(a):
                continue
            if p.raw:
                raise TypeError(f"{self.name}: raw parameter {p.name} needs an ember array, "
                                f"got {type(a).__name__}")
            if _scalar_dtype(a)[0] is None:
                hint = " (host memory: use em.asarray)" if isinstance(a, np.ndarray) else ""
                raise TypeError(f"{self.name}: parameter {p.name} takes an ember array or a scalar, "
                                f"got {type(a).__module__}.{type(a).__name__}{hint}")
        for p, a in zip(self.out_params, outs):
            if a is not None and not _is_array(a):
                raise TypeError(f"{self.name}: output {p.name} must be an ember array, "
                                f"got {type(a).__name__}")
            if a is not None and not a.flags.writeable:
                raise ValueError(f"{self.name}: output {p.name} is read-only")

    def _resolve(self, ins, outs):
        """dtype of every parameter by name, checking given outputs."""
        params = self.in_params + self.out_params
        bound = _bind(self.name, params, ins + outs, len(ins))
        types = {}
        for p in params:
            dt = p.fixed if p.fixed is not None else bound.get(p.type)
            if dt is None:
                raise TypeError(f"{self.name}: cannot determine type {p.type} of parameter {p.name}: "
                                "no argument binds it (pass the output array)")
            types[p.name] = dt
        for p, a in zip(self.out_params, outs):
            if a is not None and a.dtype != types[p.name]:
                raise TypeError(f"{self.name}: output {p.name} has dtype {a.dtype} but the kernel "
                                f"writes {types[p.name]}")
        return types

    def _inputs(self, ins, types):
        """Scalars as NumPy scalars of their parameter's dtype; arrays cast
        to a fixed parameter dtype when it differs (same_kind)."""
        res = []
        for p, a in zip(self.in_params, ins):
            dt = types[p.name]
            if _is_array(a):
                if a.dtype != dt:
                    if not np.can_cast(a.dtype, dt, "same_kind"):
                        raise TypeError(f"{self.name}: cannot cast parameter {p.name} from {a.dtype} "
                                        f"to {dt} under the 'same_kind' rule")
                    a = a.astype(dt)
                res.append(a)
            else:
                v = _scalar_value(self.name, p, a, dt)
                res.append(np.float32(v) if dt == np.float16 else v)  # float16 computes in float
        return res

    def _typedefs(self, types, table):
        seen, lines = set(), []
        for p in self.in_params + self.out_params:
            if p.fixed is None and p.type not in seen:
                seen.add(p.type)
                lines.append(f"typedef {table[types[p.name].name]} {p.type};")
        return "\n".join(lines)

    def _get(self, key, render, device_kind, dev):
        """The compiled kernel for key: a RawKernel loaded on cuda:dev, or
        the address of the C function."""
        if device_kind == "opencl":
            key = (("opencl", dev),) + key[1:]  # a program is built for one device
        k = self._cache.get(key)
        if k is None:
            src, sym = render()
            if device_kind == "cuda":
                k = RawKernel(src, sym, options=self.options)
                k._load(dev)  # compile now: errors surface before anything is cached
            elif device_kind == "opencl":
                from . import opencl as _cl
                k = _cl.Program(src, device=f"opencl:{dev}").build(options=self.options)
                k = k.kernel(sym)
            else:
                k = _cc_function(src, sym, self.name)
            self._compiles += 1
            self._cache[key] = k
        return k


def _cc_function(src, sym, kname):
    """The address of sym in src compiled by the C compiler; for a
    reduction split over threads also those of sym_part and sym_fin (a
    tuple of three, None where absent)."""
    if not _ember._cc_available():
        raise _ember.CompileError(
            f"{kname}: expression kernels on the CPU need a C compiler ({_ember._cc_why()}); "
            "install gcc or clang, or set EMBER_CC to a C compiler command")
    h = _ember._cc_load(src, kname)
    addr = _ember._cc_sym(h, sym)
    if addr is None:
        raise _ember.EmberError(f"{kname}: compiled kernel has no symbol {sym}")
    if sym.startswith("em_rk_"):
        return addr, _ember._cc_sym(h, sym + "_part"), _ember._cc_sym(h, sym + "_fin")
    return addr


_FAULT_SLOT = bytes(16)


def _pack_scalars(vals):
    """The scalars for a CPU kernel, 16 bytes each, then a zeroed slot the
    kernel sets when it faulted (include/ember/kernel.h): writable."""
    if not vals:
        return bytearray(16)
    return bytearray().join([v.tobytes().ljust(16, b"\0") for v in vals] + [_FAULT_SLOT])


def _fault_check(slot):
    """C: the call made after a SIGFPE (lo = -1) sets the fault slot and returns."""
    return f"if (_em_lo < 0) {{ *(int *)_em_sc[{slot}] = 1; return; }}\n"


def _cpu_call(name, k, n0, n1, cost, shape, ops, raws, scal):
    """Run a compiled CPU kernel; a SIGFPE in it (C integer division by zero
    or INT_MIN / -1: the user's C is not ours to rewrite) stops it and is a
    ZeroDivisionError here.  scal comes from _pack_scalars."""
    _ember._cpu_kernel_call(k, n0, n1, cost, shape, ops, raws, scal)
    if scal[-16]:
        _raise_fault(name)


def _raise_fault(name):
    raise ZeroDivisionError(
        f"integer division or modulo by zero (or INT_MIN / -1) in kernel '{name}': the CPU raised "
        "SIGFPE and the launch was stopped (its outputs are partly written)")


# ---- elementwise ------------------------------------------------------------

class ElementwiseKernel(_KernelBase):
    """CuPy's ElementwiseKernel: ``ElementwiseKernel(in_params, out_params,
    operation, name, options=(), preamble="", reduce_dims=True,
    no_return=False, return_tuple=False, loop_prep="", after_loop="")``,
    called ``k(*inputs[, *outputs], size=None, out=None, stream=None)``.
    Returns the output (a tuple for several or with return_tuple; None with
    no_return).  loop_prep and after_loop are C run before and after each
    thread's loop over its elements (a range of them on the CPU).  With
    reduce_dims (the default) strided operands have the dimensions they all
    step through as one merged.  CuPy's block_size= is accepted and ignored
    (CUDA blocks are 256 threads)."""

    def __init__(self, in_params, out_params, operation, name="kernel", options=(), preamble="",
                 reduce_dims=True, no_return=False, return_tuple=False, loop_prep="", after_loop=""):
        super().__init__(in_params, out_params, name, options, preamble)
        for what, v in (("operation", operation), ("loop_prep", loop_prep), ("after_loop", after_loop)):
            if not isinstance(v, str):
                raise TypeError(f"{name}: {what} must be a str of C code")
        self.operation, self.loop_prep, self.after_loop = operation, loop_prep, after_loop
        self.return_tuple = bool(return_tuple)
        self.reduce_dims = bool(reduce_dims)
        self.no_return = bool(no_return)
        self._has_raw = any(p.raw for p in self.in_params + self.out_params)
        self._plans = {}  # argument signature -> _EwPlan

    def __call__(self, *args, size=None, out=None, stream=None, block_size=None):
        fast = size is None and out is None and not self._has_raw
        if fast:
            sig = tuple(_argsig(a) for a in args)
            plan = self._plans.get(sig)
            if plan is not None:
                return plan.run(args, stream)
        res, plan = self._call(args, size, out, stream)
        if fast and plan is not None and len(self._plans) < 256:
            self._plans[sig] = plan
        return res

    def _call(self, args, size, out, stream):
        """The full path: check and bind everything, compile if needed, run.
        Returns the result and, when this call can be replayed from its
        argument signature alone (_EwPlan), the plan."""
        ins, outs, given, kind, dev, types, vals, cast = self._bind(args, out)
        shape = self._shape(ins + outs, size)
        for p, a in zip(self.out_params, outs):
            if a is not None and not p.raw and a.shape != shape:
                raise ValueError(f"{self.name}: output {p.name} has shape {a.shape}, expected {shape}")
        outs = [a if a is not None else self._new_out(p, types, shape, f"{kind}:{dev}")
                for p, a in zip(self.out_params, outs)]
        n = int(np.prod(shape, dtype=np.int64))
        plan = None
        if n > 0:
            k, nd, views = self._run((kind, dev), types, shape, vals + outs, stream)
            if not cast:
                plan = _EwPlan(self, (kind, dev), k, shape, nd, ins, given, types, views)
        if self.no_return:
            return None, plan
        return (outs[0] if len(outs) == 1 and not self.return_tuple else tuple(outs)), plan

    def _run(self, where, types, shape, allv, stream):
        """Compile (or find) the kernel for these arguments and run it over
        shape; returns the kernel, its dimensions (0: contiguous, else those
        of the coalesced shape) and the operands' views over them."""
        kind, dev = where
        params = self.in_params + self.out_params
        n = int(np.prod(shape, dtype=np.int64))
        ops = [(p, v) for p, v in zip(params, allv) if not p.raw and _is_array(v)]
        views = [_broadcast_view(v, shape) for _, v in ops]
        raws = [(p, v) for p, v in zip(params, allv) if p.raw]
        raw_views, copied = self._raw_views(raws)
        scal = [(p, v) for p, v in zip(params, allv) if not p.raw and not _is_array(v)]
        kshape, nd = tuple(shape), 0
        if not all(v._c_contiguous for v in views):
            if self.reduce_dims:  # merge the dimensions every operand steps through as one
                kshape, kst, _ = _coalesce(kshape, [v.strides for v in views], 0)
                views = [v._view_as(kshape, st, 0) for v, st in zip(views, kst)]
            nd = len(kshape)
        key = (kind, tuple(types[p.name] for p in params),
               tuple("r" if p.raw else "a" if _is_array(v) else "s" for p, v in zip(params, allv)), nd)
        spec = ([p for p, _ in ops], [p for p, _ in raws], [p for p, _ in scal])
        k = self._get(key, lambda: self._render(kind, types, spec, nd), kind, dev)
        if kind == "cuda":
            self._launch_cuda(dev, k, n, kshape, nd, views, raw_views, [v for _, v in scal], stream)
        elif kind == "opencl":
            _launch_cl(k, n, views + raw_views, list(kshape) + [s for v in views for s in v.strides]
                       if nd else [], [v for _, v in scal] + [np.int64(v.size) for v in raw_views])
        else:
            sizes = [np.int64(v.size) for v in raw_views]
            _cpu_call(self.name, k, n, n, 1, kshape if nd else (), tuple(views), tuple(raw_views),
                      _pack_scalars([v for _, v in scal] + sizes))
        for orig, view in copied:  # raw arguments that were not contiguous: write back
            orig[...] = view
        return k, nd, views

    def _shape(self, args, size):
        """The loop shape: the inputs' broadcast shape; with no non-raw input
        array the outputs' shape; with no array at all size=."""
        nin = len(self.in_params)
        pairs = list(zip(self.in_params + self.out_params, args))
        shapes = [a.shape for p, a in pairs[:nin] if not p.raw and _is_array(a)] or \
            [a.shape for p, a in pairs[nin:] if a is not None and not p.raw]
        if size is not None:
            if shapes:
                raise ValueError(f"{self.name}: size= can be given only when every array argument is raw")
            if not isinstance(size, (int, np.integer)) or size < 0:
                raise ValueError(f"{self.name}: size must be a non-negative int, got {size!r}")
            return (int(size),)
        if not shapes:
            raise ValueError(f"{self.name}: size= is required when no argument is a non-raw array "
                             "(the loop size is undecided)")
        try:
            return tuple(np.broadcast_shapes(*shapes))
        except ValueError:
            raise ValueError(f"{self.name}: operands could not be broadcast together with shapes "
                             + " ".join(str(s) for s in shapes)) from None

    def _new_out(self, p, types, shape, device):
        if p.raw:
            raise ValueError(f"{self.name}: raw output {p.name} must be given (its size is unknown)")
        return _ember_empty(shape, types[p.name], device)

    @staticmethod
    def _raw_views(raws):
        """Raw arrays as C-contiguous ones (a copy, and (array, copy) to
        write back, for one that is not)."""
        views, copied = [], []
        for p, v in raws:
            if not v._c_contiguous:
                c = v.copy()
                if v.flags.writeable:
                    copied.append((v, c))
                v = c
            views.append(v)
        return views, copied

    def _render(self, kind, types, spec, nd):
        ops, raws, scal = spec
        ct = _CTypes(kind, types)
        body = _rewrite(self.operation, [p.name for p in raws])
        sym = f"em_ek_{self.name}"
        r = _Render(kind, nd, len(ops))
        before, defs, after_body = "", [], ""
        for k, p in enumerate(ops):
            out = p not in self.in_params
            lv = f"*({r.gq}{'' if out else 'const '}{ct.stype(p)} *)({r.addr(k, ct.stype(p))})"
            b, d, a = ct.bind(p, lv, out)
            before, after_body = before + b, after_body + a
            defs.append(d)
        undefs = "\n".join(f"#undef {p.name}" for p in ops)
        head = [_PRELUDE[kind], self.preamble, self._typedefs(types, ct.table)]
        decls = r.decls(raws, scal, ct)
        loop = r.loop(before + "\n".join(defs) + f"\ndo {{\n{body};\n}} while (0);\n" + undefs + "\n"
                      + after_body)
        prep, after = (_rewrite(c, [p.name for p in raws]) for c in (self.loop_prep, self.after_loop))
        src = "\n".join(head) + "\n" + r.signature(sym, raws, scal, ct.ctype, types) + " {\n" + decls
        src += "{\n" + prep + "\n" + loop + after + "\n}\n}\n"
        return src, sym

    def _launch_cuda(self, dev, k, n, shape, nd, views, raws, scal, stream):
        args = [n] + views + raws
        if nd:
            args += list(shape) + [s for v in views for s in v.strides]
        args += scal + [np.int64(v.size) for v in raws]
        block = 256
        _launch_on(dev, k, min((n + block - 1) // block, 1 << 20), block, tuple(args), 0, stream)

    def __repr__(self):
        return f"<ember.ElementwiseKernel {self.name}>"


def _argsig(a):
    """What a call's plan depends on in an argument: an array's dtype,
    shape, strides and device; a scalar's type (its value is converted at
    each call)."""
    if isinstance(a, _ember.ndarray):
        return (a.dtype, a.shape, a.strides, a._dev)
    return type(a)


def _converter(kname, p, dt, x):
    """A function giving the kernel's NumPy scalar for scalars like x."""
    if dt == np.float16:  # rounded to float16, passed as the float it computes in
        return lambda v: np.float32(np.float16(v))
    if isinstance(x, np.generic) and x.dtype == dt:
        return lambda v: v
    if isinstance(x, int) and not isinstance(x, bool) and dt.kind in "iu":
        lo, hi, make = int(np.iinfo(dt).min), int(np.iinfo(dt).max), dt.type

        def conv(v):
            if not lo <= v <= hi:
                raise OverflowError(f"{kname}: Python int {v} is out of bounds for {dt} (parameter {p.name})")
            return make(v)
        return conv
    return dt.type


class _EwPlan:
    """A replay of an ElementwiseKernel call for arguments of the same
    signature (_argsig): the compiled kernel, the output shape, the kernel's
    shape and each operand's strides over it (strided kernels), and how each
    scalar converts.  Holds no argument."""

    def __init__(self, ek, where, k, shape, nd, ins, given, types, views):
        self.name, self.no_return, self.return_tuple = ek.name, ek.no_return, ek.return_tuple
        self.kind, self.dev = where
        self.devstr = f"{self.kind}:{self.dev}"
        self.k, self.shape, self.nd = k, shape, nd
        self.kshape = views[0].shape if nd else ()
        self.kst = [v.strides for v in views] if nd else []
        self.n = int(np.prod(shape, dtype=np.int64))
        nin = len(ins)
        self.arr = [idx for idx, a in enumerate(ins) if _is_array(a)]
        self.scal = [(idx, _converter(ek.name, p, types[p.name], a))
                     for idx, (p, a) in enumerate(zip(ek.in_params, ins)) if not _is_array(a)]
        self.outs = [(nin + j if g else None, types[p.name])
                     for j, (p, g) in enumerate(zip(ek.out_params, given))]
        self.given = any(given)
        self.cuda_strides = [s for st in self.kst for s in st]

    def run(self, args, stream):
        outs = [args[i] if i is not None else _ember.full(self.shape, None, dt, self.devstr)
                for i, dt in self.outs]
        if self.given and not all(o.flags.writeable for o in outs):
            raise ValueError(f"{self.name}: an output is read-only")
        ops = [args[i] for i in self.arr] + outs
        if self.nd:  # the operands over the kernel's (coalesced, broadcast) shape
            ops = [a._view_as(self.kshape, st, 0) for a, st in zip(ops, self.kst)]
        scal = [conv(args[i]) for i, conv in self.scal]
        if self.kind == "cuda":
            cargs = [self.n] + ops + (list(self.kshape) + self.cuda_strides if self.nd else []) + scal
            _launch_on(self.dev, self.k, min((self.n + 255) // 256, 1 << 20), 256, tuple(cargs), 0, stream)
        elif self.kind == "opencl":
            _launch_cl(self.k, self.n, ops, list(self.kshape) + self.cuda_strides if self.nd else [],
                       scal)
        else:
            buf = _pack_scalars(scal)  # _cpu_call, inlined on this fast path
            _ember._cpu_kernel_call(self.k, self.n, self.n, 1, self.kshape, tuple(ops), (), buf)
            if buf[-16]:
                _raise_fault(self.name)
        if self.no_return:
            return None
        return outs[0] if len(outs) == 1 and not self.return_tuple else tuple(outs)


def _coalesce(shape, strides, nk):
    """Merge neighbouring dimensions that every operand steps through as one
    (st[d] == st[d + 1] * shape[d + 1], or either of size 1), within the kept
    dimensions [0, nk) and within the reduced ones; the C order of each group
    is kept.  Returns (shape, strides per operand, nk)."""
    shape, strides = list(shape), [list(st) for st in strides]
    d = 0
    while d + 1 < len(shape):
        if d + 1 == nk:  # never across the two groups
            d += 1
            continue
        a, b = shape[d], shape[d + 1]
        if a == 1 or b == 1 or all(st[d] == st[d + 1] * b for st in strides):
            for st in strides:
                st[d] = st[d] if b == 1 else st[d + 1]
                del st[d + 1]
            shape[d] = a * b
            del shape[d + 1]
            nk -= d < nk
        else:
            d += 1
    return tuple(shape), [tuple(st) for st in strides], nk


# CUDA ReductionKernel shape, chosen on the H100 (bench_kernels, 2^26
# float32 l2norm; 4 / 4 / 4 read 2330 GB/s full, 2700 by rows and 1240 by
# columns, these 2520 / 2840 / 2300): loads in flight per thread over a row
# and over a column, and blocks per multiprocessor when outputs are split.
_RK_UNROLL, _RK_UNROLL_COLS, _RK_BPS = 8, 16, 16
_SHORT_ROW = 32  # CUDA reductions of at most this many elements per output take a thread each


def _columns(strides, nk, nd):
    """Whether every input's reduced elements lie farther apart than its
    neighbouring kept ones (strides: the inputs' over the coalesced kept
    then reduced dimensions): a sum over axis 0 of a C-ordered matrix.  A
    thread per output then reads what its warp's neighbours read."""
    if not (0 < nk < nd) or not strides:
        return False
    inner = [abs(st[nk - 1]) for st in strides]
    return all(all(abs(st[d]) > i for d in range(nk, nd) if st[d]) for st, i in zip(strides, inner))


def _red_launch(name, where, k, rtype, sizes, tshape, views, strides, scal, stream):
    """Run a compiled reduction: on CUDA split over partials when few
    outputs have long reductions (ReductionKernel._nsplit), a thread per
    output for column reductions (_columns)."""
    kind, dev = where
    nout, nred, cols = sizes
    if kind == "opencl":
        _red_cl(dev, k, rtype, sizes, tshape, views, strides, scal)
        return
    if kind != "cuda":
        _red_cpu(name, k, nout, nred, tshape, views, _pack_scalars(scal))
        return
    args = [nout, nred] + views + list(tshape) + strides + scal
    shm, nsplit = 256 * max(rtype.itemsize, 1), ReductionKernel._nsplit(dev, nout, nred)
    if nred <= _SHORT_ROW and nout >= 1024:  # a thread per output: no idle threads, no tree
        _launch_on(dev, k, min((nout + 255) // 256, 1 << 20), 256, tuple(args + [np.int32(3), 1, 0]), 0, stream)
    elif cols and nout >= 32 and nred > _SHORT_ROW:
        nob = (nout + 255) // 256
        # Enough blocks for _RK_BPS per multiprocessor, each part at least 64 rows.
        ns = int(max(1, min(-(-_RK_BPS * _sm_count(dev) // nob), nred // 64, 4096)))
        part = _ember_empty((nout * ns,), rtype, f"cuda:{dev}") if ns > 1 else 0
        _launch_on(dev, k, min(nob * ns, 1 << 20), 256, tuple(args + [np.int32(4), ns, part]), 0, stream)
        if ns > 1:
            _launch_on(dev, k, min(nout, 1 << 20), 256, tuple(args + [np.int32(2), ns, part]), shm, stream)
    elif nsplit == 1:
        _launch_on(dev, k, min(nout, 1 << 20), 256, tuple(args + [np.int32(0), 1, 0]), shm, stream)
    else:
        part = _ember_empty((nout * nsplit,), rtype, f"cuda:{dev}")
        _launch_on(dev, k, min(nout * nsplit, 1 << 20), 256, tuple(args + [np.int32(1), nsplit, part]), shm,
                   stream)
        _launch_on(dev, k, min(nout, 1 << 20), 256, tuple(args + [np.int32(2), nsplit, part]), shm, stream)


# OpenCL ReductionKernel: work-groups of this many items (a power of 2 that
# every GPU and PoCL allow), and each output split into parts (partials, then
# a pass over them) when few outputs have long reductions: about _RK_BPS
# work-groups per compute unit, each on at least 2048 elements, as on CUDA.
_CL_RED_WG = 256
_CL_CUS = {}


def _cl_nsplit(dev, nout, nred):
    cus = _CL_CUS.get(dev)
    if cus is None:
        cus = _CL_CUS[dev] = max(1, int(_ember.opencl_info(dev)["compute_units"]))
    if nout >= 2 * cus or nred < 8192:
        return 1
    return int(max(1, min((_RK_BPS * cus) // nout, (nred + 2047) // 2048, 4096)))


class _ClRed:
    """An OpenCL ReductionKernel specialisation: its two programs (a
    work-group per output, a work-item per output), each built at its first
    launch through the kernel's cache."""

    def __init__(self, rk, key, dev, render):
        self.rk, self.key, self.dev, self.render = rk, key, dev, render

    def kernel(self, item):
        return self.rk._get(self.key + (item,), lambda: self.render(item), "opencl", self.dev)


def _red_cl(dev, k, rtype, sizes, tshape, views, strides, scal):
    """Run an OpenCL reduction (ReductionKernel._render_opencl's kernels;
    k a _ClRed): each array as (view,), its buffer and byte offset; numbers
    as bytes."""
    nout, nred, cols = sizes
    wg = _CL_RED_WG
    head = [np.int64(nout).tobytes(), np.int64(nred).tobytes()] + [(v,) for v in views]
    head += [np.int64(x).tobytes() for x in tuple(tshape) + tuple(strides)]
    head += [np.asarray(v).tobytes() for v in scal]

    def go(item, groups, mode, nsplit, part):
        kern = k.kernel(item)
        tail = [np.int32(mode).tobytes(), np.int64(nsplit).tobytes(), (part,)]
        for b0 in range(0, groups, 1 << 30):  # well within a launch's 2^32 - 1 work-groups
            n = min(groups - b0, 1 << 30)
            args = tuple(head + tail + [np.int64(b0).tobytes()])
            _ember.opencl_launch(dev, kern._handle, kern.function_name, (n * wg,), (wg,), args)
    if (nred <= _SHORT_ROW and nout >= 1024) or (cols and nout >= wg):
        go(True, min((nout + wg - 1) // wg, 4096), 3, 1, views[-1])
        return
    ns = _cl_nsplit(dev, nout, nred)
    if ns == 1:
        go(False, nout, 0, 1, views[-1])
        return
    part = _ember_empty((nout * ns,), rtype, f"opencl:{dev}")
    go(False, nout * ns, 1, ns, part)
    go(False, nout, 2, ns, part)


_SPLIT_MIN = 1 << 17  # elements per output below which a CPU reduction is not split


def _red_cpu(name, k, nout, nred, tshape, views, scal):
    """Run a CPU reduction: one output per item, or, when there are fewer
    outputs than threads and long rows, each row split in P parts (items
    output x part) then P partials per output."""
    main, part, fin = k
    threads = _ember.num_threads()
    if part is None or threads < 2 or nout >= threads or nred < _SPLIT_MIN:
        _cpu_call(name, main, nout, nred, max(nred, 1), tshape, tuple(views), (), scal)
        return
    p = int(min(threads * 2, nred // (_SPLIT_MIN // 2)))
    buf = (_ember.full((nout * p * 16,), None, "uint8", "cpu"),)  # room for any reduce type
    _cpu_call(name, part, nout * p, p, max(nred // p, 1), tshape, tuple(views), buf, scal)
    _cpu_call(name, fin, nout, p, p, tshape, tuple(views), buf, scal)


class _RedPlan:
    """A replay of a ReductionKernel call (see _EwPlan): the kernel, the
    transposed loop shape, each operand's view strides over it, scalar
    converters and the outputs to allocate."""

    def __init__(self, rk, where, k, rtype, sizes, tshape, ins, types, given, outs, views):
        self.where, self.k, self.rtype, self.sizes, self.tshape = where, k, rtype, sizes, tshape
        self.devstr = f"{where[0]}:{where[1]}"
        nin = len(ins)
        vi = iter(views)
        self.arr, self.scal = [], []
        for idx, (p, a) in enumerate(zip(rk.in_params, ins)):
            if _is_array(a):
                self.arr.append((idx, next(vi).strides if tshape else None))
            else:
                self.scal.append((idx, _converter(rk.name, p, types[p.name], a)))
        self.outs = [(nin + j if g else None, o.dtype, o.shape, next(vi).strides if tshape else None)
                     for j, (g, o) in enumerate(zip(given, outs))]
        self.strides = [s for v in views for s in v.strides]
        self.name, self.given = rk.name, any(given)

    def run(self, args, stream):
        ts = self.tshape
        ops = [args[i] if st is None else args[i]._view_as(ts, st, 0) for i, st in self.arr]
        outs = [args[i] if i is not None else _ember.full(shp, None, dt, self.devstr)
                for i, dt, shp, _ in self.outs]
        if self.given and not all(o.flags.writeable for o in outs):
            raise ValueError(f"{self.name}: an output is read-only")
        ops += [o if st is None else o._view_as(ts, st, 0) for o, (_, _, _, st) in zip(outs, self.outs)]
        _red_launch(self.name, self.where, self.k, self.rtype, self.sizes, ts, ops, self.strides,
                    [conv(args[i]) for i, conv in self.scal], stream)
        return outs[0] if len(outs) == 1 else tuple(outs)


_SMS = {}


def _sm_count(dev):
    n = _SMS.get(dev)
    if n is None:
        n = _SMS[dev] = int(_ember.device_props(f"cuda:{dev}")["multiprocessor_count"])
    return n


def _launch_on(dev, k, grid, block, args, shmem, stream):
    """Launch k on cuda:dev, the arrays' device, whatever device is current."""
    cur = _ember._get_device()
    if cur == ("cuda", dev):
        return k(grid, block, args, shared_mem=shmem, stream=stream)
    _ember._set_device(f"cuda:{dev}")
    try:
        k(grid, block, args, shared_mem=shmem, stream=stream)
    finally:
        _ember._set_device(f"{cur[0]}:{cur[1]}")


def _launch_cl(k, n, arrays, numbers, scal):
    """Launch an OpenCL expression kernel over n elements: each array as its
    buffer (a view of element 0 of it) and byte offset, then the shape and
    strides (numbers) and the scalars, at most 2^20 work-items striding."""
    args = [np.int64(n)]
    for a in arrays:
        off = a._buf_offset
        args += [a._view_as((1,), (0,), -off), np.uint64(off)]
    args += [np.int64(x) for x in numbers] + list(scal)
    groups = min((n + 255) // 256, 4096)
    k(groups * 256, 256, *args)


def _ember_empty(shape, dtype, device):
    from ._creation import empty
    return empty(shape, dtype=dtype, device=device)


class _Render:
    """The parts of a kernel's source that depend on the device kind and the
    layout: the signature, declarations of raw and scalar parameters, and
    the loop over elements (contiguous when nd == 0, else strided over nd
    dimensions).  Operand k's address is _em_q<k>."""

    def __init__(self, kind, nd, nops):
        self.kind, self.nd, self.nops = kind, nd, nops
        self.gq = "__global " if kind == "opencl" else ""  # device memory's qualifier

    def addr(self, k, ctype):
        if self.nd:
            return f"_em_q{k}"
        return f"({self.gq}char *)((({self.gq}{ctype} *)_em_p{k}) + i)"

    def signature(self, sym, raws, scal, ctype, types):
        if self.kind == "opencl":  # each buffer and its byte offset (_launch_cl)
            ps = ["long _em_n"] + [f"__global char *_em_b{k}, ulong _em_o{k}"
                                   for k in range(self.nops + len(raws))]
            if self.nd:
                ps += [f"long _em_sh{d}" for d in range(self.nd)]
                ps += [f"long _em_st{k}_{d}" for k in range(self.nops) for d in range(self.nd)]
            # a bool scalar comes as its byte (no bool kernel argument in OpenCL C), also
            # one whose type is a placeholder bound to bool (typedef bool T)
            ps += [f"{'uchar' if ctype(p) == 'bool' or types[p.name] == np.bool_ else ctype(p)}"
                   f" {p.name}" for p in scal]
            ps += [f"long _em_size_{p.name}" for p in raws]
            return f'{_CL["kernel"]} {sym}({", ".join(ps)})'
        if self.kind == "cuda":
            ps = ["long long _em_n"] + [f"char *_em_p{k}" for k in range(self.nops)]
            ps += [f"char *_em_raw{k}" for k in range(len(raws))]
            if self.nd:
                ps += [f"long long _em_sh{d}" for d in range(self.nd)]
                ps += [f"long long _em_st{k}_{d}" for k in range(self.nops) for d in range(self.nd)]
            ps += [f"{ctype(p)} {p.name}" for p in scal]
            ps += [f"long long _em_size_{p.name}" for p in raws]
            return f'{_KERNEL} {sym}({", ".join(ps)})'
        return (f"void {sym}(long long _em_lo, long long _em_hi, long long _em_n, char *const *_em_p_, "
                "const long long *_em_shape, "
                "const long long *_em_st, const void *const *_em_sc)")

    def decls(self, raws, scal, ct):
        """Raw parameters as pointers (their storage type); on the CPU also
        the operands' pointers and the scalars (in their compute type)."""
        if self.kind == "opencl":
            out = [f"__global char *const _em_p{k} = _em_b{k} + _em_o{k};"
                   for k in range(self.nops)]
            for k, p in enumerate(raws):
                j = self.nops + k
                out.append(f"__global {ct.stype(p)} *const {p.name} = "
                           f"(__global {ct.stype(p)} *)(_em_b{j} + _em_o{j});")
                out.append(f"(void){p.name}; (void)_em_size_{p.name};")
            return "\n".join(out) + "\n"
        out = [] if self.kind == "cuda" else [_fault_check(len(scal) + len(raws))]
        if self.kind == "cuda":
            for k, p in enumerate(raws):
                out.append(f"{ct.stype(p)} *const {p.name} = ({ct.stype(p)} *)_em_raw{k};")
                out.append(f"(void){p.name}; (void)_em_size_{p.name};")
            return "\n".join(out) + "\n"
        for k in range(self.nops):
            out.append(f"char *const _em_p{k} = _em_p_[{k}];")
        for k, p in enumerate(raws):
            out.append(f"{ct.stype(p)} *const {p.name} = ({ct.stype(p)} *)_em_p_[{self.nops + k}];")
            out.append(f"(void){p.name};")
        for k, p in enumerate(scal):
            out.append(f"const {ct.ctype(p)} {p.name} = *(const {ct.ctype(p)} *)_em_sc[{k}];")
            out.append(f"(void){p.name};")
        for k, p in enumerate(raws):  # their sizes follow the scalars
            out.append(f"const long long _em_size_{p.name} = *(const long long *)_em_sc[{len(scal) + k}];")
            out.append(f"(void)_em_size_{p.name};")
        out.append("(void)_em_n;")
        return "\n".join(out) + "\n"

    def loop(self, body):
        nd, nops = self.nd, self.nops
        if self.kind in ("cuda", "opencl"):
            if self.kind == "cuda":
                s = (f"for (long long i = (long long){_BID} * {_BDIM} + {_TID}; i < _em_n;"
                     f" i += (long long){_BDIM} * {_GDIM}) {{\n")
            else:
                reg = {f: _CL[f].replace("%d", "0") for f in
                       ("local_id", "group_id", "local_size", "num_groups")}
                s = (f"for (long i = (long){reg['group_id']} * {reg['local_size']} + "
                     f"{reg['local_id']}; i < _em_n;"
                     f" i += (long){reg['local_size']} * {reg['num_groups']}) {{\n")
            if nd:
                ll = "long long" if self.kind == "cuda" else "long"
                s += f"{ll} _em_r = i, _em_c;\n"
                s += "".join(f"{self.gq}char *_em_q{k} = _em_p{k};\n" for k in range(nops))
                for d in reversed(range(nd)):
                    s += f"_em_c = _em_r % _em_sh{d}; _em_r /= _em_sh{d};\n"
                    s += "".join(f"_em_q{k} += _em_c * _em_st{k}_{d};\n" for k in range(nops))
            return s + body + "\n}\n"
        if not nd:
            return "for (long long i = _em_lo; i < _em_hi; i++) {\n" + body + "\n}\n"
        s = f"long long _em_idx[{nd}], _em_r = _em_lo;\n"  # the odometer starts at element _em_lo
        s += "".join(f"char *_em_q{k} = _em_p{k};\n" for k in range(nops))
        s += f"for (int _em_d = {nd - 1}; _em_d >= 0; _em_d--) {{\n"
        s += "_em_idx[_em_d] = _em_r % _em_shape[_em_d]; _em_r /= _em_shape[_em_d];\n"
        s += "".join(f"_em_q{k} += _em_idx[_em_d] * _em_st[{k * nd} + _em_d];\n" for k in range(nops))
        s += "}\nfor (long long i = _em_lo; i < _em_hi; i++) {\n" + body + "\n"
        s += f"for (int _em_d = {nd - 1}; _em_d >= 0; _em_d--) {{\n"
        s += "".join(f"_em_q{k} += _em_st[{k * nd} + _em_d];\n" for k in range(nops))
        s += "if (++_em_idx[_em_d] < _em_shape[_em_d]) break;\n"
        s += "".join(f"_em_q{k} -= _em_st[{k * nd} + _em_d] * _em_shape[_em_d];\n" for k in range(nops))
        s += "_em_idx[_em_d] = 0;\n}\n}\n"
        return s


# ---- reduction --------------------------------------------------------------

class ReductionKernel(_KernelBase):
    """CuPy's ReductionKernel: ``ReductionKernel(in_params, out_params,
    map_expr, reduce_expr, post_map_expr, identity, name, reduce_type=None,
    options=(), preamble="")``, called ``k(*inputs[, *outputs], axis=None,
    keepdims=False, out=None, stream=None)``.  Each output element starts
    from ``identity``; ``map_expr`` maps each input element, ``reduce_expr``
    combines ``a`` and ``b``, and ``post_map_expr`` writes the outputs from
    the result ``a``."""

    _reserved = _RESERVED + ("a", "b")

    def __init__(self, in_params, out_params, map_expr, reduce_expr, post_map_expr, identity,
                 name="reduce_kernel", reduce_type=None, options=(), preamble="", reduce_dims=True):
        super().__init__(in_params, out_params, name, options, preamble)
        for what, v in (("map_expr", map_expr), ("reduce_expr", reduce_expr),
                        ("post_map_expr", post_map_expr), ("identity", identity)):
            if not isinstance(v, str):
                raise TypeError(f"{name}: {what} must be a str of C code, got {type(v).__name__}")
        if any(p.raw for p in self.in_params + self.out_params):
            raise ValueError(f"{name}: raw parameters are not supported by ReductionKernel")
        self.map_expr, self.reduce_expr, self.post_map_expr = map_expr, reduce_expr, post_map_expr
        self.identity = identity
        if reduce_type is not None and not isinstance(reduce_type, str):
            reduce_type = np.dtype(reduce_type).name
        self.reduce_type = reduce_type
        self._plans = {}  # (argument signature, axis, keepdims) -> _RedPlan

    def __call__(self, *args, axis=None, keepdims=False, out=None, stream=None):
        fast = out is None and (axis is None or type(axis) in (int, tuple))
        if fast:
            sig = (tuple(_argsig(a) for a in args), axis, bool(keepdims))
            plan = self._plans.get(sig)
            if plan is not None:
                return plan.run(args, stream)
        res, plan = self._call(args, axis, keepdims, out, stream)
        if fast and plan is not None and len(self._plans) < 256:
            self._plans[sig] = plan
        return res

    def _call(self, args, axis, keepdims, out, stream):
        """The full path (see ElementwiseKernel._call); returns the result
        and the plan (_RedPlan) that replays it, or None."""
        ins, outs, given, kind, dev, types, vals, cast = self._bind(args, out)
        rtype = self._reduce_dtype(types)
        if kind == "opencl" and rtype == np.float64 and \
                not _ember.opencl_info(dev)["fp64"]:
            raise TypeError(f"{self.name}: reduce type float64 is not supported on opencl:{dev} "
                            "(the device has no cl_khr_fp64)")
        shapes = [v.shape for v in vals if _is_array(v)]
        if not shapes:
            raise ValueError(f"{self.name}: a reduction needs at least one array input")
        shape = tuple(np.broadcast_shapes(*shapes))
        red = _normalize_axes(axis, len(shape))
        keep = [d for d in range(len(shape)) if d not in red]
        oshape = tuple(1 if d in red else shape[d] for d in range(len(shape))) if keepdims else \
            tuple(shape[d] for d in keep)
        for p, a in zip(self.out_params, outs):
            if a is not None and a.shape != oshape:
                raise ValueError(f"{self.name}: output {p.name} has shape {a.shape}, expected {oshape}")
        outs = [a if a is not None else _ember_empty(oshape, types[p.name], f"{kind}:{dev}")
                for p, a in zip(self.out_params, outs)]
        nout = int(np.prod([shape[d] for d in keep], dtype=np.int64))
        nred = int(np.prod([shape[d] for d in red], dtype=np.int64))
        plan = None
        if nout > 0:
            k, views, tshape, sizes = self._run((kind, dev), types, rtype, shape, keep, red, vals, outs, nout,
                                                nred, stream)
            if not cast:
                plan = _RedPlan(self, (kind, dev), k, rtype, sizes, tshape, ins, types, given, outs, views)
        return (outs[0] if len(outs) == 1 else tuple(outs)), plan

    def _reduce_dtype(self, types):
        """The dtype of a and b (float16 accumulates in float32)."""
        rt = self.reduce_type
        if rt is None:
            dt = types[self.out_params[0].name]
        elif rt in _DTYPE_NAMES:
            dt = np.dtype(_C_ALIASES.get(rt, rt))
        else:
            params = self.in_params + self.out_params
            dt = next((types[p.name] for p in params if p.fixed is None and p.type == rt), None)
            if dt is None:
                raise TypeError(f"{self.name}: reduce_type {rt!r} is neither a dtype nor a type of the "
                                "parameters")
        return np.dtype(np.float32) if dt == np.float16 else dt

    def _run(self, where, types, rtype, shape, keep, red, vals, outs, nout, nred, stream):
        """Lay the operands out over the kept dimensions then the reduced
        ones (each group coalesced), compile (or find) the kernel and run it;
        returns the kernel, the operands' views and their shape."""
        kind, dev = where
        perm = keep + red
        tshape = tuple(shape[d] for d in perm)
        params = self.in_params + self.out_params
        ops, bases, strides, scal = [], [], [], []
        for p, v in zip(self.in_params, vals):
            if _is_array(v):
                b = _broadcast_view(v, shape)
                bases.append(b)
                strides.append(tuple(b.strides[d] for d in perm))
                ops.append(p)
            else:
                scal.append((p, v))
        for p, o in zip(self.out_params, outs):
            kept = tuple(o.strides[d] for d in keep) if o.ndim == len(shape) and red else tuple(o.strides)
            bases.append(o)
            strides.append(kept + (0,) * len(red))  # the reduced dimensions stay on one output element
            ops.append(p)
        tshape, strides, nk = _coalesce(tshape, strides, len(keep))
        views = [b._view_as(tshape, st, 0) if tshape else b for b, st in zip(bases, strides)]
        nd = len(tshape)
        key = (kind, tuple(types[p.name] for p in params), rtype,
               tuple("a" if _is_array(v) else "s" for v in vals), nd, nk)
        sp = [p for p, _ in scal]
        if kind == "opencl":  # two programs, each built when first needed (_ClRed)
            k = _ClRed(self, key, dev,
                       lambda item: self._render(kind, types, rtype, ops, sp, nd, nk, item))
        else:
            k = self._get(key, lambda: self._render(kind, types, rtype, ops, sp, nd, nk), kind, dev)
        sizes = (nout, nred, _columns(strides[:len(ops) - len(self.out_params)], nk, nd))
        _red_launch(self.name, where, k, rtype, sizes, tshape, views, [s for v in views for s in v.strides],
                    [v for _, v in scal], stream)
        return k, views, tshape, sizes

    def _render(self, kind, types, rtype, ops, scal, nd, nk, item=False):
        ct = _CTypes(kind, types)
        table, ctype = ct.table, ct.ctype
        if rtype.name not in table:
            raise TypeError(f"{self.name}: reduce type {rtype} is not supported here")
        sym = f"em_rk_{self.name}"
        nin = len(ops) - len(self.out_params)
        rt = table[rtype.name]
        gq = "__global " if kind == "opencl" else ""  # device memory's qualifier
        in_defs = "\n".join(ct.bind(p, f"*({gq}const {ct.stype(p)} *)_em_q{k}", False)[1]
                            for k, p in enumerate(ops[:nin]))
        in_undefs = "\n".join(f"#undef {p.name}" for p in ops[:nin])
        binds = [ct.bind(p, f"*({gq}{ct.stype(p)} *)_em_b{k + nin}", True)
                 for k, p in enumerate(ops[nin:])]
        out_defs = "".join(b for b, _, _ in binds) + "\n".join(d for _, d, _ in binds)
        out_undefs = "\n".join(f"#undef {p.name}" for p in ops[nin:]) + "\n" + "".join(a for _, _, a in binds)
        head = [_PRELUDE[kind], self.preamble,
                self._typedefs(types, table), f"typedef {rt} _type_reduce;"]
        nops = len(ops)
        step = (f"{{ const _type_reduce a = _em_acc, b = _em_v; _em_acc = ({self.reduce_expr}); }}")
        mapped = f"{in_defs}\nconst _type_reduce _em_v = (_type_reduce)({self.map_expr});\n{in_undefs}\n"
        post = (f"{{ const _type_reduce a = _em_acc; (void)a;\n{out_defs}\n{self.post_map_expr};\n"
                f"{out_undefs}\n}}\n")
        ll = "long" if kind == "opencl" else "long long"  # OpenCL C's long is 64 bits
        unravel_outer = f"{ll} _em_r = _em_o, _em_c; (void)_em_c;\n"
        for d in reversed(range(nk)):
            unravel_outer += f"_em_c = _em_r % {self._sh(kind, d)}; _em_r /= {self._sh(kind, d)};\n"
            unravel_outer += "".join(f"_em_b{k} += _em_c * {self._st(kind, k, d, nd)};\n" for k in range(nops))
        if kind == "cuda":
            return self._render_cuda(head, sym, ctype, ops, scal, nin, nd, nk, mapped, step, post,
                                     unravel_outer), sym
        if kind == "opencl":
            sym += "_item" if item else ""
            return self._render_opencl(head, sym, types, ops, scal, nin, nd, nk, mapped, step,
                                       post, unravel_outer, item), sym
        decls = _fault_check(len(scal))
        decls += "".join(f"char *const _em_p{k} = _em_p_[{k}];\n" for k in range(nops))
        decls += "".join(f"const {ctype(p)} {p.name} = *(const {ctype(p)} *)_em_sc[{k}]; (void){p.name};\n"
                         for k, p in enumerate(scal))
        inner = self._cpu_inner(nd, nk, nin, mapped) if nd > nk else \
            "".join(f"char *_em_q{k} = _em_b{k};\n" for k in range(nin)) + mapped + step + "\n"
        body = ("for (long long _em_o = _em_lo; _em_o < _em_hi; _em_o++) {\n"
                + "".join(f"char *_em_b{k} = _em_p{k};\n" for k in range(nops)) + unravel_outer
                + f"_type_reduce _em_acc = (_type_reduce)({self.identity});\n" + inner + post + "}\n")
        if nk == 1 and nd > 1:
            body = self._cpu_columns(ops, nin, nd, ct.stype, mapped, post, body)
        tail = ("char *const *_em_p_, const long long *_em_shape, const long long *_em_st, "
                "const void *const *_em_sc)")
        sig = f"void {sym}(long long _em_lo, long long _em_hi, long long _em_nred, " + tail
        src = "\n".join(head) + "\n" + sig + " {\n" + decls + body + "}\n"
        if nd - nk == 1:
            src += self._cpu_split(sym, tail, decls, nin, nops, nd, mapped, step, post, unravel_outer)
        return src, sym

    def _render_cuda(self, head, sym, ctype, ops, scal, nin, nd, nk, mapped, step, post, unravel_outer):
        """CUDA: a block per output, or per (output, part) when the reduction
        is split.  _em_mode 0 reduces whole outputs and writes them; 1
        reduces part _em_blk % _em_nsplit of output _em_blk / _em_nsplit into
        _em_part[_em_blk]; 2 reduces each output's _em_nsplit partials and
        writes the output.  Threads stride over their range, then a tree in
        shared memory combines the block's values (blockDim a power of 2).
        Mode 3 (short reductions) gives each thread whole outputs instead."""
        nops = len(ops)
        sig = ", ".join(["long long _em_nout", "long long _em_nred"] +
                        [f"char *_em_p{k}" for k in range(nops)] +
                        [f"long long _em_sh{d}" for d in range(nd)] +
                        [f"long long _em_st{k}_{d}" for k in range(nops) for d in range(nd)] +
                        [f"{ctype(p)} {p.name}" for p in scal] +
                        ["int _em_mode", "long long _em_nsplit", "_type_reduce *_em_part"])

        def at(j):
            """The inputs' addresses for reduced element j: with one reduced
            dimension (the common case once coalesced) a multiply, not a
            64-bit division per element."""
            if nd - nk == 1:
                return "".join(f"char *_em_q{k} = _em_b{k} + ({j}) * _em_st{k}_{nk};\n" for k in range(nin))
            s = f"long long _em_r2 = {j}, _em_c2; (void)_em_c2;\n"
            s += "".join(f"char *_em_q{k} = _em_b{k};\n" for k in range(nin))
            for d in reversed(range(nk, nd)):
                s += f"_em_c2 = _em_r2 % _em_sh{d}; _em_r2 /= _em_sh{d};\n"
                s += "".join(f"_em_q{k} += _em_c2 * _em_st{k}_{d};\n" for k in range(nin))
            return s

        def combine(acc, v):
            return f"{{ const _type_reduce a = {acc}, b = {v}; {acc} = ({self.reduce_expr}); }}\n"

        inner = at("_em_j")

        def strided(start, stride, U=_RK_UNROLL):
            """Fold elements start, start + stride, ... below _em_j1 into
            _em_acc: U independent accumulators keep U loads in flight per
            thread (the l2norm read 920 GB/s with one)."""
            return ("{\n" f"long long _em_j = {start};\nconst long long _em_bd = {stride};\n"
                    + "".join(f"_type_reduce _em_u{u} = (_type_reduce)({self.identity});\n" for u in range(1, U))
                    + f"for (; _em_j + {U - 1} * _em_bd < _em_j1; _em_j += {U} * _em_bd) {{\n"
                    + "".join("{\n" + at(f"_em_j + {u} * _em_bd") + mapped
                              + combine("_em_acc" if u == 0 else f"_em_u{u}", "_em_v") + "}\n" for u in range(U))
                    + "}\n"
                    + "".join(combine("_em_acc", f"_em_u{u}") for u in range(1, U))
                    + "for (; _em_j < _em_j1; _em_j += _em_bd) {\n" + at("_em_j") + mapped + step + "\n}\n}\n")
        bases = "".join(f"char *_em_b{k} = _em_p{k};\n" for k in range(nops)) + unravel_outer
        per_thread = (
            "if (_em_mode == 3) {\n"
            f"for (long long _em_o = (long long){_BID} * {_BDIM} + {_TID}; _em_o < _em_nout;"
            f" _em_o += (long long){_BDIM} * {_GDIM}) {{\n" + bases +
            f"_type_reduce _em_acc = (_type_reduce)({self.identity});\n"
            "for (long long _em_j = 0; _em_j < _em_nred; _em_j++) {\n" + inner + mapped + step + "\n}\n"
            + post + "}\nreturn;\n}\n")
        # Mode 4: a thread per output over part _em_pi of the reduced range,
        # for reductions whose reduced elements lie farther apart than
        # neighbouring outputs (a sum over axis 0): a warp's loads are then
        # neighbours.  Partials, when split, go to _em_part for mode 2.
        columns = (
            "if (_em_mode == 4) {\n"
            f"const long long _em_nob = (_em_nout + {_BDIM} - 1) / {_BDIM};\n"
            f"for (long long _em_blk = {_BID}; _em_blk < _em_nob * _em_nsplit; _em_blk += {_GDIM}) {{\n"
            f"const long long _em_o = (_em_blk % _em_nob) * {_BDIM} + {_TID}, _em_pi = _em_blk / _em_nob;\n"
            "if (_em_o >= _em_nout) continue;\n" + bases +
            f"_type_reduce _em_acc = (_type_reduce)({self.identity});\n"
            "const long long _em_chunk = (_em_nred + _em_nsplit - 1) / _em_nsplit, _em_j0 = _em_pi * _em_chunk;\n"
            "const long long _em_j1 = _em_j0 + _em_chunk < _em_nred ? _em_j0 + _em_chunk : _em_nred;\n"
            + strided("_em_j0", "1", _RK_UNROLL_COLS) +
            "if (_em_nsplit > 1) _em_part[_em_o * _em_nsplit + _em_pi] = _em_acc;\nelse " + post + "}\nreturn;\n}\n")
        body = per_thread + columns + (_DYN_SHARED % "_em_smem") + (
            "\n"
            "_type_reduce *_em_s = (_type_reduce *)_em_smem;\n"
            "const long long _em_nsp = _em_mode == 1 ? _em_nsplit : 1;\n"
            f"for (long long _em_blk = {_BID}; _em_blk < _em_nout * _em_nsp; _em_blk += {_GDIM}) {{\n"
            "const long long _em_o = _em_blk / _em_nsp, _em_pi = _em_blk % _em_nsp;\n" + bases +
            f"_type_reduce _em_acc = (_type_reduce)({self.identity});\n"
            "if (_em_mode == 2) {\n"
            f"for (long long _em_j = {_TID}; _em_j < _em_nsplit; _em_j += {_BDIM}) {{\n"
            "const _type_reduce _em_v = _em_part[_em_o * _em_nsplit + _em_j];\n" + step + "\n}\n"
            "} else {\n"
            "const long long _em_chunk = (_em_nred + _em_nsp - 1) / _em_nsp, _em_j0 = _em_pi * _em_chunk;\n"
            "const long long _em_j1 = _em_j0 + _em_chunk < _em_nred ? _em_j0 + _em_chunk : _em_nred;\n"
            + strided(f"_em_j0 + {_TID}", _BDIM) + "}\n"
            f"_em_s[{_TID}] = _em_acc;\n{_BARRIER}\n"
            f"for (unsigned _em_w = {_BDIM} / 2; _em_w > 32; _em_w >>= 1) {{\n"
            f"if ({_TID} < _em_w) {{ const _type_reduce a = _em_s[{_TID}], "
            f"b = _em_s[{_TID} + _em_w]; _em_s[{_TID}] = ({self.reduce_expr}); }}\n"
            f"{_BARRIER}\n}}\n"
            # The last 64 values within one warp: a warp barrier, not a block barrier, per step.
            f"if ({_TID} < 32) {{\n"
            f"for (unsigned _em_w = {_BDIM} / 2 < 32 ? {_BDIM} / 2 : 32; _em_w > 0; _em_w >>= 1) {{\n"
            f"const _type_reduce a = _em_s[{_TID}], b = _em_s[{_TID} + _em_w];\n{_WARP_BARRIER}\n"
            f"if ({_TID} < _em_w) _em_s[{_TID}] = ({self.reduce_expr});\n{_WARP_BARRIER}\n}}\n}}\n"
            f"if ({_TID} == 0) {{\n_em_acc = _em_s[0];\n"
            "if (_em_mode == 1) _em_part[_em_blk] = _em_acc;\nelse " + post + f"}}\n{_BARRIER}\n}}\n")
        return "\n".join(head) + f"\n{_KERNEL} {sym}({sig}) {{\n" + body + "}\n"

    def _render_opencl(self, head, sym, types, ops, scal, nin, nd, nk, mapped, step, post,
                       unravel_outer, item):
        """OpenCL C: two kernels, each its own program, built when first
        launched (PoCL takes about a second per program, the more the more
        code and the more barriers in loops).  item: a work-item per output
        (_render_cuda's mode 3: short reductions, and column ones, where
        neighbouring work-items read neighbouring elements).  Else a
        work-group of _CL_RED_WG items (a power of 2) per output (mode 0),
        per part of one (1: partials into _em_part) or per output over its
        partials (2), group _em_blk0 + get_group_id(0); the group's values
        combine in __local memory, unrolled, a barrier per step (OpenCL has
        no warp-wide step to lean on; no barrier inside a loop, which is
        what costs PoCL most to compile).  Each array is its buffer and the
        view's byte offset (as opencl_launch passes a (view,)); a bool
        scalar comes as its byte (OpenCL forbids bool kernel arguments)."""
        nops = len(ops)
        tid, bid, bdim, gdim = (f"(long){_CL[f].replace('%d', '0')}" for f in
                                ("local_id", "group_id", "local_size", "num_groups"))

        def stype(p):
            return "uchar" if types[p.name] == np.bool_ else (
                p.type if p.fixed is None else _CL_TYPES[types[p.name].name])
        sig = ", ".join(["long _em_nout", "long _em_nred"] +
                        [f"__global char *_em_B{k}, ulong _em_O{k}" for k in range(nops)] +
                        [f"long _em_sh{d}" for d in range(nd)] +
                        [f"long _em_st{k}_{d}" for k in range(nops) for d in range(nd)] +
                        [f"{stype(p)} {p.name}" for p in scal] +
                        ["int _em_mode", "long _em_nsplit", "__global char *_em_PB, ulong _em_PO",
                         "long _em_blk0"])

        def at(j):
            """The inputs' addresses for reduced element j (see _render_cuda)."""
            if nd - nk == 1:
                return "".join(f"__global char *_em_q{k} = _em_b{k} + ({j}) * _em_st{k}_{nk};\n"
                               for k in range(nin))
            s = f"long _em_r2 = {j}, _em_c2; (void)_em_c2;\n"
            s += "".join(f"__global char *_em_q{k} = _em_b{k};\n" for k in range(nin))
            for d in reversed(range(nk, nd)):
                s += f"_em_c2 = _em_r2 % _em_sh{d}; _em_r2 /= _em_sh{d};\n"
                s += "".join(f"_em_q{k} += _em_c2 * _em_st{k}_{d};\n" for k in range(nin))
            return s
        ident = f"(_type_reduce)({self.identity})"
        bases = "".join(f"__global char *_em_b{k} = _em_p{k};\n" for k in range(nops)) + unravel_outer
        body = "".join(f"__global char *const _em_p{k} = _em_B{k} + _em_O{k};\n" for k in range(nops))
        body += "(void)_em_mode; (void)_em_nsplit; (void)_em_PB; (void)_em_PO; (void)_em_blk0;\n"
        if item:
            body += (
                f"for (long _em_o = {bid} * {bdim} + {tid}; _em_o < _em_nout; "
                f"_em_o += {bdim} * {gdim}) {{\n" + bases + f"_type_reduce _em_acc = {ident};\n"
                "for (long _em_j = 0; _em_j < _em_nred; _em_j++) {\n" + at("_em_j") + mapped
                + step + "\n}\n" + post + "}\n")
            return "\n".join(head) + f"\n{_CL['kernel']} {sym}({sig}) {{\n" + body + "}\n"
        tree = "".join(
            f"if ({tid} < {w}) {{ const _type_reduce a = _em_s[{tid}], b = _em_s[{tid} + {w}]; "
            f"_em_s[{tid}] = ({self.reduce_expr}); }}\nbarrier(CLK_LOCAL_MEM_FENCE);\n"
            for w in (_CL_RED_WG >> i for i in range(1, _CL_RED_WG.bit_length())))
        body += (
            "__global _type_reduce *const _em_part = (__global _type_reduce *)(_em_PB + _em_PO);\n"
            f"__local _type_reduce _em_s[{_CL_RED_WG}];\n"
            f"const long _em_blk = _em_blk0 + {bid};\n"
            "const long _em_nsp = _em_mode == 1 ? _em_nsplit : 1;\n"
            "const long _em_o = _em_blk / _em_nsp, _em_pi = _em_blk % _em_nsp;\n" + bases
            + f"_type_reduce _em_acc = {ident};\n"
            "if (_em_mode == 2) {\n"
            f"for (long _em_j = {tid}; _em_j < _em_nsplit; _em_j += {bdim}) {{\n"
            "const _type_reduce _em_v = _em_part[_em_o * _em_nsplit + _em_j];\n" + step + "\n}\n"
            "} else {\n"
            "const long _em_chunk = (_em_nred + _em_nsp - 1) / _em_nsp, _em_j0 = _em_pi * _em_chunk;\n"
            "const long _em_j1 = _em_j0 + _em_chunk < _em_nred ? _em_j0 + _em_chunk : _em_nred;\n"
            f"for (long _em_j = _em_j0 + {tid}; _em_j < _em_j1; _em_j += {bdim}) {{\n"
            + at("_em_j") + mapped + step + "\n}\n}\n"
            f"_em_s[{tid}] = _em_acc;\nbarrier(CLK_LOCAL_MEM_FENCE);\n" + tree +
            f"if ({tid} == 0) {{\n_em_acc = _em_s[0];\n"
            "if (_em_mode == 1) _em_part[_em_blk] = _em_acc;\nelse " + post + "}\n")
        return "\n".join(head) + f"\n{_CL['kernel']} {sym}({sig}) {{\n" + body + "}\n"

    @staticmethod
    def _nsplit(dev, nout, nred):
        """Parts to split each output's reduction into, so that about
        _RK_BPS blocks per multiprocessor work, each on at least 2048
        elements."""
        sms = _sm_count(dev)
        if nout >= 2 * sms or nred < 8192:
            return 1
        return int(max(1, min((_RK_BPS * sms) // nout, (nred + 2047) // 2048, 4096)))

    def _cpu_row(self, nin, mapped, start, end):
        """C that folds elements [start, end) of the row at _em_r<k> (steps
        _em_s<k>) into _em_acc, over _UNROLL accumulators when it is long."""
        red, U = self.reduce_expr, self._UNROLL
        combine = lambda acc, v: f"{{ const _type_reduce a = {acc}, b = {v}; {acc} = ({red}); }}\n"  # noqa: E731
        at = lambda j: "".join(f"char *_em_q{k} = _em_r{k} + ({j}) * _em_s{k};\n" for k in range(nin))  # noqa: E731
        s = f"{{\nconst long long _em_j1 = {end};\nlong long _em_j = {start};\n"
        s += f"if (_em_j1 - _em_j >= {2 * U}) {{\n_type_reduce _em_u0 = _em_acc"
        s += "".join(f", _em_u{u} = (_type_reduce)({self.identity})" for u in range(1, U)) + ";\n"
        s += f"for (; _em_j + {U} <= _em_j1; _em_j += {U}) {{\n"
        for u in range(U):
            s += "{\n" + at(f"_em_j + {u}") + mapped + combine(f"_em_u{u}", "_em_v") + "}\n"
        s += "}\n_em_acc = _em_u0;\n" + "".join(combine("_em_acc", f"_em_u{u}") for u in range(1, U)) + "}\n"
        s += "for (; _em_j < _em_j1; _em_j++) {\n" + at("_em_j") + mapped + combine("_em_acc", "_em_v") + "}\n"
        return s + "}\n"

    def _cpu_split(self, sym, sig_tail, decls, nin, nops, nd, mapped, step, post, unravel_outer):
        """With one reduced dimension, two more entry points that split each
        output's row over threads: <sym>_part (item t = output t / P, part
        t % P: a share of the row into the partial buffer, the pointer after
        the operands) and <sym>_fin (item = output: the P partials, then the
        outputs), where P is the n1 argument."""
        head = "(long long _em_lo, long long _em_hi, long long _em_P, " + sig_tail + " {\n" + decls
        head += f"_type_reduce *const _em_part = (_type_reduce *)_em_p_[{nops}];\n"
        bases = "".join(f"char *_em_b{k} = _em_p{k};\n" for k in range(nops)) + unravel_outer
        part = (f"void {sym}_part" + head + f"const long long _em_m = _em_shape[{nd - 1}], "
                "_em_chunk = (_em_m + _em_P - 1) / _em_P;\n"
                "for (long long _em_t = _em_lo; _em_t < _em_hi; _em_t++) {\n"
                "const long long _em_o = _em_t / _em_P, _em_j0 = (_em_t % _em_P) * _em_chunk;\n" + bases
                + "".join(f"char *_em_r{k} = _em_b{k};\nconst long long _em_s{k} = _em_st[{k * nd + nd - 1}];\n"
                          for k in range(nin))
                + f"_type_reduce _em_acc = (_type_reduce)({self.identity});\n"
                + self._cpu_row(nin, mapped, "_em_j0", "_em_j0 + _em_chunk < _em_m ? _em_j0 + _em_chunk : _em_m")
                + "_em_part[_em_t] = _em_acc;\n}\n}\n")
        fin = (f"void {sym}_fin" + head + "for (long long _em_o = _em_lo; _em_o < _em_hi; _em_o++) {\n" + bases
               + f"_type_reduce _em_acc = (_type_reduce)({self.identity});\n"
               "for (long long _em_q = 0; _em_q < _em_P; _em_q++) {\n"
               "const _type_reduce _em_v = _em_part[_em_o * _em_P + _em_q];\n" + step + "\n}\n" + post + "}\n}\n")
        return part + fin

    def _cpu_columns(self, ops, nin, nd, ctype, mapped, post, rows):
        """With one kept dimension that is closer in memory than the reduced
        ones (a sum over axis 0 of a C-ordered matrix), walk the reduced
        elements in the outer loop and all outputs in the inner one, into a
        buffer of accumulators: memory is read in order.  `rows` (the
        one-output-at-a-time loop) runs otherwise, and if the buffer cannot
        be had."""
        red, nr, nops = self.reduce_expr, nd - 1, len(ops)
        unit = " && ".join(f"_em_st[{k * nd}] == (long long)sizeof({ctype(p)})"
                           for k, p in enumerate(ops[:nin]))

        def inner(step_of):
            q = "".join(f"const char *_em_q{k} = _em_r{k} + _em_o * {step_of(k, p)};\n"
                        for k, p in enumerate(ops[:nin]))
            return ("for (long long _em_o = 0; _em_o < _em_cnt; _em_o++) {\n" + q + mapped +
                    f"{{ const _type_reduce a = _em_av[_em_o], b = _em_v; _em_av[_em_o] = ({red}); }}\n}}\n")
        s = (f"if (_em_hi - _em_lo >= 8 && _em_nred > 0 && llabs(_em_st[0]) < llabs(_em_st[{nd - 1}])) {{\n"
             "const long long _em_cnt = _em_hi - _em_lo;  /* outputs _em_lo + [0, _em_cnt) */\n"
             "_type_reduce *_em_av = (_type_reduce *)malloc((size_t)_em_cnt * sizeof(_type_reduce));\n"
             "if (_em_av) {\n"
             f"for (long long _em_o = 0; _em_o < _em_cnt; _em_o++) _em_av[_em_o] = (_type_reduce)({self.identity});\n"
             + "".join(f"char *_em_r{k} = _em_p{k} + _em_lo * _em_st[{k * nd}];\n" for k in range(nin)) +
             f"long long _em_idx[{nr}] = {{0}};\n"
             "for (long long _em_j = 0; _em_j < _em_nred; _em_j++) {\n"
             f"if ({unit or '1'}) {{\n" + inner(lambda k, p: f"(long long)sizeof({ctype(p)})") + "} else {\n"
             + inner(lambda k, p: f"_em_st[{k * nd}]") + "}\n"
             f"for (int _em_d = {nr - 1}; _em_d >= 0; _em_d--) {{\n"
             + "".join(f"_em_r{k} += _em_st[{k * nd + 1} + _em_d];\n" for k in range(nin)) +
             "if (++_em_idx[_em_d] < _em_shape[1 + _em_d]) break;\n"
             + "".join(f"_em_r{k} -= _em_st[{k * nd + 1} + _em_d] * _em_shape[1 + _em_d];\n" for k in range(nin)) +
             "_em_idx[_em_d] = 0;\n}\n}\n"
             "for (long long _em_o = 0; _em_o < _em_cnt; _em_o++) {\n"
             + "".join(f"char *_em_b{k} = _em_p{k} + (_em_lo + _em_o) * _em_st[{k * nd}];\n" for k in range(nops)) +
             "_type_reduce _em_acc = _em_av[_em_o];\n" + post + "}\n"
             "free(_em_av);\nreturn;\n}\n}\n")
        return s + rows

    _UNROLL = 8

    def _cpu_inner(self, nd, nk, nin, mapped):
        """The CPU loop over one output's reduced elements: rows along the
        last reduced dimension, each split over _UNROLL accumulators (so that
        the additions of a float sum overlap: the order of a tree, as on the
        GPU), then the remaining elements; an odometer steps over the other
        reduced dimensions."""
        nr, last = nd - nk, nd - 1
        s = "".join(f"char *_em_r{k} = _em_b{k};\nconst long long _em_s{k} = _em_st[{k * nd + last}];\n"
                    for k in range(nin))
        s += f"const long long _em_m = _em_shape[{last}], _em_rows = _em_m ? _em_nred / _em_m : 0;\n"
        if nr > 1:
            s += f"long long _em_idx[{nr - 1}] = {{0}};\n"
        s += "for (long long _em_row = 0; _em_row < _em_rows; _em_row++) {\n"
        s += self._cpu_row(nin, mapped, "0", "_em_m")
        if nr > 1:  # the next row: an odometer over reduced dimensions nk .. nd-2
            s += f"for (int _em_d = {nr - 2}; _em_d >= 0; _em_d--) {{\n"
            s += "".join(f"_em_r{k} += _em_st[{k * nd + nk} + _em_d];\n" for k in range(nin))
            s += f"if (++_em_idx[_em_d] < _em_shape[{nk} + _em_d]) break;\n"
            s += "".join(f"_em_r{k} -= _em_st[{k * nd + nk} + _em_d] * _em_shape[{nk} + _em_d];\n"
                         for k in range(nin))
            s += "_em_idx[_em_d] = 0;\n}\n"
        return s + "}\n"

    @staticmethod
    def _sh(kind, d):
        return f"_em_sh{d}" if kind != "cpu" else f"_em_shape[{d}]"

    @staticmethod
    def _st(kind, k, d, nd):
        return f"_em_st{k}_{d}" if kind != "cpu" else f"_em_st[{k * nd + d}]"

    def __repr__(self):
        return f"<ember.ReductionKernel {self.name}>"


def _normalize_axes(axis, ndim):
    if axis is None:
        return list(range(ndim))
    if isinstance(axis, (int, np.integer)):
        axes = (axis,)
    elif isinstance(axis, (tuple, list)):
        axes = tuple(axis)
    else:
        raise TypeError(f"axis must be an int or a tuple of ints, got {type(axis).__name__}")
    out = []
    for ax in axes:
        if not isinstance(ax, (int, np.integer)) or isinstance(ax, bool):
            raise TypeError(f"axis must be an int or a tuple of ints, got {type(ax).__name__}")
        if not -ndim <= ax < ndim:
            raise np.exceptions.AxisError(int(ax), ndim)
        ax = int(ax) % ndim
        if ax in out:
            raise ValueError("duplicate value in 'axis'")
        out.append(ax)
    return sorted(out)
