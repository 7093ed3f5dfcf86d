"""@em.jit objects: specialise on the call's argument types, compile once per
signature and device kind, launch.

A call goes: launch configuration (cached per [blocks, threads, ...] key) ->
signature key from the arguments' types -> compiled specialisation (a dict
lookup once warm) -> the C launcher (CPU), em.RawKernel (CUDA) or the OpenCL
raw launch (OpenCL: blocks are work-groups, threads work-items).  A warm
launch of ember arrays and scalars skips all of that: the launcher
(python/_ember/jit_launch.c) matches the arguments against the signatures
registered after their first launch and launches in C.
"""
import os
import sys

import numpy as np

from .. import _ember
from . import lower as _lower
from . import render as _render
from .types import ArrayT, FLOATS, SCALARS, dtype_name

_EM_DTYPE = {name: i for i, name in enumerate(_ember.dtype_names)}
_ndarray = _ember.ndarray
_MAXDIM = 2**62
_PY_SCALARS = frozenset((int, float, bool))


def _debug_level():
    try:
        return int(os.environ.get("EMBER_DEBUG", "0"))
    except ValueError:
        return 0


def _log_compile(name, kind, types, where, t0):
    """EMBER_DEBUG=2: one line per specialisation compiled (front end + compiler)."""
    if _debug_level() >= 2:
        import time
        sig = ", ".join(map(str, types))
        print(f"ember: @em.jit {kind} '{name}' ({sig}) for {where} in {(time.perf_counter() - t0) * 1e3:.1f} ms",
              file=sys.stderr)


def _env_boundscheck():
    return os.environ.get("EMBER_BOUNDSCHECK", "0") not in ("", "0")


def _dim3(v, what):
    if isinstance(v, (tuple, list)):
        if not 1 <= len(v) <= 3:
            raise ValueError(f"the {what} must be an int or a tuple of 1 to 3 ints, got {v!r}")
        items = list(v)
    else:
        items = [v]
    out = []
    for x in items:
        try:
            x = int(x.__index__())
        except AttributeError:
            raise TypeError(f"the {what} must be an int or a tuple of 1 to 3 ints, got {v!r}") from None
        out.append(min(max(x, -1), _MAXDIM))
    return tuple(out + [1] * (3 - len(out)))


def _argtype(a, pos, name):
    """(signature key part, kernel-language type) of one argument."""
    t = type(a)
    if t is _ndarray or isinstance(a, np.ndarray):
        dt = dtype_name(a.dtype)
        if dt is None:
            raise TypeError(f"argument '{name}' has dtype {a.dtype}: kernels take bool, int8..uint64, "
                            "float32 and float64 arrays")
        contig = a._c_contiguous if t is _ndarray else a.flags.c_contiguous
        return ArrayT(dt, a.ndim, layout="C" if contig else "A")
    if t is bool or isinstance(a, np.bool_):
        return "bool"
    if t is int:
        return "int64" if -2**63 <= a < 2**63 else "uint64"
    if t is float:
        return "float64"
    if isinstance(a, np.generic):
        dt = dtype_name(a.dtype)
        if dt is not None:
            return dt
    if hasattr(a, "__cuda_array_interface__") or hasattr(a, "__array_interface__"):
        raise TypeError(f"argument '{name}': pass an ember or NumPy array (em.asarray(x)), not "
                        f"{t.__name__}")
    raise TypeError(f"argument '{name}' ({t.__name__}) cannot be passed to a kernel: use arrays, "
                    "ints, floats, bools or NumPy scalars")


class _CpuSpec:
    __slots__ = ("cspec", "fn", "allocs", "ret", "ret_array", "nparams", "names", "empty", "types", "written")


class _CudaSpec:
    __slots__ = ("kernel", "fn", "types", "pack", "written")


class _OclSpec:
    __slots__ = ("kernel", "entry", "fn", "types", "written", "scalars")


class _OclLauncher:
    """A launch configuration past CUDA's limits (more than 1024 threads per
    block ...): an OpenCL device may take it (its own limits are checked at
    the launch, naming the device), every other device raises the error the
    configuration got."""

    def __init__(self, disp, grid, block, stream, shmem, err):
        self.disp, self.grid, self.block, self.stream, self.shmem = disp, grid, block, stream, shmem
        self.err = err

    def __call__(self, *args):
        dev = self.disp._device_of(args, self.disp.__name__)
        if dev[0] != "opencl":
            raise self.err
        return self.disp._launch(self, args)


def _cuda_packer(types, written, boundscheck):
    """A function args -> the em.RawKernel argument tuple for this signature
    (generated once: a warm CUDA launch then costs one call), or None from it
    when an array argument is not an ember array (the general path copies
    host arrays)."""
    if boundscheck:
        return lambda args, shmem: None
    names = [f"x{i}" for i in range(len(types))]
    checks, items, env = [], [], {"_nd": _ndarray}
    for x, t, w in zip(names, types, written):
        if isinstance(t, ArrayT):
            checks.append(f"type({x}) is not _nd" + (f" or not {x}._writeable" if w else ""))
            items.append(x)
            items += [f"{x}.shape[{d}]" for d in range(t.ndim)]
            if t.layout != "C":  # C-contiguous kernels derive strides from the shape
                size = np.dtype(t.dtype).itemsize
                items += [f"{x}.strides[{d}] // {size}" for d in range(t.ndim)]
        elif t in ("int64", "float64"):
            items.append(x)  # Python ints and floats travel as int64 and float64
        else:
            env["_" + t] = np.dtype(t).type
            items.append(f"_{t}({x})")
    unpack = f"    {', '.join(names)}{',' if len(names) == 1 else ''} = args\n" if names else ""
    test = f"    if {' or '.join(checks)}:\n        return None\n" if checks else ""
    src = (f"def pack(args, shmem):\n{unpack}{test}"
           f"    return ({''.join(i + ', ' for i in items)}0, shmem)\n")
    exec(src, env)
    return env["pack"]


class Dispatcher(_ember._JitDispatcher):
    """What @em.jit returns.  kernel[blocks, threads](args) launches; a call
    without a launch configuration runs the function once on the CPU (plain
    functions with loops); device functions are only called from kernels.

    The C base (python/_ember/jit_launch.c) keeps the launchers per
    configuration (kernel[...] finds one in _configs, else _configure makes
    it) and the signatures that a launcher launches without Python
    (_register); every other launch comes to _launch."""

    def __init__(self, pyfunc, device=False, boundscheck=None, source=None):
        self.py_func = pyfunc
        self.device = device
        self.boundscheck = _env_boundscheck() if boundscheck is None else bool(boundscheck)
        self.__name__ = getattr(pyfunc, "__name__", "kernel")
        self.__doc__ = getattr(pyfunc, "__doc__", None)
        self.__wrapped__ = pyfunc
        self._src = source
        self._fast = {}         # (argument key, device) -> spec, see _launch
        self._specs = {}        # (kind, device kind, types) -> spec
        self.compile_count = 0  # compilations (tests check the cache with it)

    def __repr__(self):
        return f"<ember.jit {'device function' if self.device else 'kernel'} {self.__name__}>"

    def source(self):
        if self._src is None:
            self._src = _lower.Source.from_function(self.py_func)
        return self._src

    # -- launch configuration ----------------------------------------------------
    # kernel[config] is the C base's: the launcher in self._configs (64 kept;
    # an unhashable config is not), else self._configure(config).
    def _configure(self, config):
        if self.device:
            raise TypeError(f"'{self.__name__}' is a device function: call it from a kernel")
        if not isinstance(config, tuple) or not 2 <= len(config) <= 4:
            raise ValueError("a launch configuration is kernel[blocks, threads], "
                             "kernel[blocks, threads, stream] or kernel[blocks, threads, stream, shared_mem]")
        grid = _dim3(config[0], "grid (blocks)")
        block = _dim3(config[1], "block (threads per block)")
        stream = config[2] if len(config) > 2 else None
        shmem = int(config[3]) if len(config) > 3 else 0
        if shmem < 0:
            raise ValueError(f"shared_mem must be >= 0, got {shmem}")
        try:
            _ember._jit_check_launch(self.__name__, grid, block, min(shmem, _MAXDIM))
        except _em().LaunchError as e:
            # past CUDA's threads per block only: OpenCL devices have their own limit
            if min(block) < 1 or not _em().opencl.is_available():
                raise
            _ember._jit_check_launch(self.__name__, grid, (1, 1, 1), min(shmem, _MAXDIM))
            return _OclLauncher(self, grid, block, stream, shmem, e)
        return _ember._JitLauncher(self, grid, block, stream, shmem)

    def __call__(self, *args):
        if self.device:
            raise TypeError(f"'{self.__name__}' is a device function (@em.jit(device=True)): "
                            "call it from a kernel")
        return self._call_plain(args)

    # -- signatures ----------------------------------------------------------------
    def _types(self, args):
        src = self.source()
        spec = src.fdef.args
        if spec.vararg or spec.kwarg or spec.kwonlyargs or spec.defaults or spec.posonlyargs:
            _lower.Lowerer(src, (), "kernel", None, "").fail(
                src.fdef, "only plain positional parameters are supported (no defaults, *args, "
                          "**kwargs or keyword-only parameters)")
        names = [p.arg for p in spec.args]
        if len(names) != len(args):
            raise TypeError(f"{self.__name__}() takes {len(names)} arguments but {len(args)} were given")
        return tuple(_argtype(a, i, names[i]) for i, a in enumerate(args)), names

    @staticmethod
    def _device_of(args, name, numpy_means_cpu=False):
        """The arguments' device (all must agree); with no device array among
        them, the current device -- or the CPU when numpy_means_cpu (plain
        calls, stencils and vectorized functions: NumPy in, NumPy out)."""
        dev = None
        for i, a in enumerate(args):
            if type(a) is _ndarray:
                d = a._dev
            elif hasattr(a, "__cuda_array_interface__") and not isinstance(a, np.ndarray):
                d = ("cuda", -1)
            else:
                continue
            if dev is None:
                dev = d
            elif d != dev:
                raise ValueError(f"kernel '{name}': arguments are on different devices "
                                 f"({dev[0]}:{dev[1]} and {d[0]}:{d[1]}); copy them to one device first")
        if dev is None and numpy_means_cpu:
            return ("cpu", 0)
        return dev or _ember._get_device()

    def lower(self, types, kind):
        fn, lw = _lower.lower_function(self.source(), types, kind, self.boundscheck)
        return fn, lw

    def render(self, *args, device="cpu", kind="kernel"):
        """The C (device='cpu'), CUDA C (device='cuda') or OpenCL C (device='opencl')
        source compiled for these arguments."""
        types, _ = self._types(args)
        fn, _ = self.lower(types, kind)
        if str(device).startswith("cuda"):
            return _render.render_cuda(fn, "em_" + self.__name__)
        if str(device).startswith("opencl"):
            return _render.render_opencl(fn, "em_" + self.__name__)
        return _render.render_cpu(fn, "em_k")

    # -- CPU ---------------------------------------------------------------------------
    def _cpu_spec(self, kind, types, names):
        key = (kind, "cpu", types)
        spec = self._specs.get(key)
        if spec is not None:
            return spec
        if not _ember._cc_available():
            raise _compile_error(f"a C compiler is needed to run @em.jit {'kernels' if kind == 'kernel' else 'functions'} "
                                 f"on the CPU: {_ember._cc_why()} (set EMBER_CC to the compiler's command)")
        import time
        t0 = time.perf_counter()
        fn, lw = self.lower(types, kind)
        src = _render.render_cpu(fn, "em_k")
        handle = _ember._cc_load(src, self.__name__)
        self.compile_count += 1
        _log_compile(self.__name__, kind, types, "cpu", t0)
        rng = _ember._cc_sym(handle, "em_k_range")
        thr = _ember._cc_sym(handle, "em_k_thread") if fn.uses_sync else 0
        kinds, ndims, dtypes = _render.slot_layout(fn)
        pnames = [n for n, _, _ in fn.params]
        if kind == "plain" and fn.ret:
            kinds.append("W"), ndims.append(1), dtypes.append(fn.ret), pnames.append("<return>")
        spec = _CpuSpec()
        spec.empty = kind == "kernel" and not fn.body  # nothing to run (seed 001's gpu[2**30, 2**10]())
        spec.cspec = (rng, thr, self.__name__, (fn.shared_bytes + 15) // 16 * 16,
                      "".join(kinds).encode(), bytes(ndims), bytes(_EM_DTYPE[d] for d in dtypes),
                      tuple(pnames))
        spec.fn, spec.allocs, spec.ret, spec.ret_array = fn, lw.allocs, fn.ret, lw.ret_array
        spec.nparams = len(types)
        spec.types = types
        spec.written = tuple(n in fn.written for n, _, _ in fn.params)
        spec.names = [a.arg for a in self.source().fdef.args.args]
        self._specs[key] = spec
        return spec

    def _call_plain(self, args):
        key = tuple((a.dtype, a.ndim, a._c_contiguous) if type(a) is _ndarray else
                    (a.dtype, a.ndim, a.flags.c_contiguous) if type(a) is np.ndarray else type(a)
                    for a in args)
        spec = self._fast.get(("plain", key))
        if spec is None or any(type(a) is _ndarray and a._dev[0] != "cpu" for a in args):
            types, names = self._types(args)
            dev = self._device_of(args, self.__name__, numpy_means_cpu=True)
            if dev[0] != "cpu":
                raise ValueError(f"'{self.__name__}' called without [blocks, threads] runs on the CPU, "
                                 f"but its arguments are on {dev[0]}:{dev[1]}: launch it as a kernel or "
                                 "pass CPU arrays")
            spec = self._cpu_spec("plain", types, names)
            if "uint64" not in types:  # a big Python int types as uint64: not keyed by type alone
                self._fast[("plain", key)] = spec
        names = spec.names
        full = list(args)
        byname = dict(zip(names, args))
        for name, how, srcname, dt in spec.allocs:
            like = byname[srcname]
            mod = np if isinstance(like, np.ndarray) else _em()
            arr = getattr(mod, how)(like, dtype=dt)
            byname[name] = arr
            full.append(arr)
        ret = None
        if spec.ret:
            ret = np.empty(1, dtype=spec.ret)
            full.append(ret)
        out = _ember._jit_launch(spec.cspec, tuple(full), (1, 1, 1), (1, 1, 1), 0)
        if out:
            sys.stdout.write(out)
        if spec.ret_array is not None:
            return byname[spec.ret_array]
        return ret[0] if ret is not None else None

    # -- CUDA --------------------------------------------------------------------------
    def _cuda_spec(self, types, names, dev):
        key = ("kernel", dev, types)
        spec = self._specs.get(key)
        if spec is not None:
            return spec
        em = _em()
        fn, _ = self.lower(types, "kernel")
        entry = "em_" + self.__name__
        src = _render.render_cuda(fn, entry)
        spec = _CudaSpec()
        spec.kernel = em.RawKernel(src, entry)  # NVRTC compiles at the first launch (kern's cache logs it)
        spec.fn, spec.types = fn, types
        spec.written = tuple(n in fn.written for n, _, _ in fn.params)
        spec.pack = _cuda_packer(types, spec.written, self.boundscheck)
        self.compile_count += 1
        self._specs[key] = spec
        return spec

    # -- OpenCL ------------------------------------------------------------------------
    def _ocl_spec(self, types, dev):
        key = ("kernel", dev, types)
        spec = self._specs.get(key)
        if spec is not None:
            return spec
        import time
        t0 = time.perf_counter()
        fn, _ = self.lower(types, "kernel")
        entry = "em_" + self.__name__
        src = _render.render_opencl(fn, entry)
        # -w: the compiler's warnings about the prelude are not the user's (PoCL
        # prints them on stderr); a build error is CompileError with the log
        prog = _ember.opencl_program(dev[1], src, "-w")
        spec = _OclSpec()
        spec.kernel, _ = _ember.opencl_kernel(dev[1], prog, entry)
        spec.entry, spec.fn, spec.types = entry, fn, types
        spec.written = tuple(n in fn.written for n, _, _ in fn.params)
        # scalars travel as their bytes (bool as one byte: em_b is uchar there)
        spec.scalars = tuple(None if isinstance(t, ArrayT) else
                             np.dtype("uint8" if t == "bool" else t).type for t in types)
        self.compile_count += 1
        _log_compile(self.__name__, "kernel", types, f"{dev[0]}:{dev[1]}", t0)
        self._specs[key] = spec
        return spec

    def _opencl(self, launcher, args, spec, dev):
        """An OpenCL launch: grid blocks of block work-items, arrays as (buffer,
        offset) pairs; host arrays are copied in and, when written, back."""
        em = _em()
        where = f"{dev[0]}:{dev[1]}"
        kargs, copied = [], []
        for a, t, conv, (pname, _, _) in zip(args, spec.types, spec.scalars, spec.fn.params):
            if conv is not None:
                kargs.append(conv(a).tobytes())
                continue
            written = pname in spec.fn.written
            if type(a) is _ndarray:
                if written and not a._writeable:
                    raise TypeError(f"argument '{pname}' is read-only but the kernel writes to it")
            else:
                if written and not a.flags.writeable:
                    raise TypeError(f"argument '{pname}' is read-only but the kernel writes to it")
                host, a = a, em.asarray(a, device=where)
                if written:
                    copied.append((host, a))
            kargs.append((a,))
            kargs.extend(np.int64(n).tobytes() for n in a.shape)
            if t.layout != "C":
                item = a.itemsize
                kargs.extend(np.int64(st // item).tobytes() for st in a.strides)
        err = None
        if self.boundscheck:
            err = em.zeros(1, dtype="int32", device=where)
            kargs.append((err,))
        kargs.append(np.int64(launcher.shmem).tobytes())
        kargs.append(max(int(launcher.shmem), 16))  # __local bytes (a size of 0 is not allowed)
        gsize = tuple(g * b for g, b in zip(launcher.grid, launcher.block))
        _ember.opencl_launch(dev[1], spec.kernel, spec.entry, gsize, tuple(launcher.block),
                             tuple(kargs))
        for host, a in copied:
            _ember._touch_host(host)
            np.copyto(host, a.get())
        if err is not None and int(err[0]):
            raise IndexError(f"kernel '{self.__name__}': an array index was out of bounds "
                             "(bounds checking is on)")
        return None

    # -- launches the C fast path did not take ---------------------------------------
    def _launch(self, launcher, args):
        """kernel[...](args) when no registered signature matched (the first
        launch of a signature, NumPy or foreign arrays, another device,
        bounds checking on CUDA, and every error)."""
        # A key from the arguments' types, dtypes and ndims and the device,
        # found in a dict once the signature has been compiled.
        key = []
        dev = None
        for i, a in enumerate(args):
            t = type(a)
            if (t is not _ndarray and t is not np.ndarray and t not in _PY_SCALARS
                    and hasattr(a, "__cuda_array_interface__")):
                # CuPy, Numba, PyTorch device arrays: wrapped (no copy) as ember arrays
                args = args[:i] + (_em().asarray(a),) + args[i + 1:]
                a, t = args[i], _ndarray
            if t is _ndarray:
                key.append((a.dtype, a.ndim, a._c_contiguous))
                ad = a._dev
                if dev is None:
                    dev = ad
                elif ad != dev:
                    self._device_of(args, self.__name__)  # raises, naming the devices
            elif t is np.ndarray:
                key.append((a.dtype, a.ndim, a.flags.c_contiguous))
            else:
                key.append(t)
        if dev is None:
            dev = _ember._get_device()
        spec = self._fast.get((tuple(key), dev))
        if spec is None:
            spec = self._slow(args, tuple(key), dev)
        if dev[0] == "cpu":
            if not spec.empty:
                out = _ember._jit_launch(spec.cspec, args, launcher.grid, launcher.block, launcher.shmem)
                if out:
                    sys.stdout.write(out)
            if all(type(a) is not np.ndarray and not (type(a) is int and t == "uint64")
                   for a, t in zip(args, spec.types)):
                # launches like this one need no Python from now on (jit_launch.c)
                self._register(dev, (spec.cspec, spec.empty), args, spec.written)
            return None
        if dev[0] == "opencl":
            return self._opencl(launcher, args, spec, dev)
        return self._cuda(launcher, args, spec, dev)

    def _slow(self, args, key, dev):
        """Type the arguments and find or compile the specialisation."""
        types, names = self._types(args)
        dev = self._device_of(args, self.__name__)
        if dev[0] == "cpu":
            spec = self._cpu_spec("kernel", types, names)
        elif dev[0] == "opencl":
            spec = self._ocl_spec(types, dev)
        else:
            spec = self._cuda_spec(types, names, dev)
        if all(not (t is int and isinstance(tt, str) and tt == "uint64")
               for t, tt in zip(key, types)):
            self._fast[(key, dev)] = spec
        return spec

    def _cuda(self, launcher, args, spec, dev):
        kargs = spec.pack(args, launcher.shmem)
        if kargs is not None and _ember._get_device() == dev:
            spec.kernel(launcher.grid, launcher.block, kargs, launcher.shmem, launcher.stream)
            if not any(type(a) is int and t == "uint64" for a, t in zip(args, spec.types)):
                # launches like this one need no Python from now on (jit_launch.c)
                self._register(dev, (spec.kernel._loaded(dev[1]), spec.kernel), args, spec.written)
            return None
        em = _em()
        where = f"{dev[0]}:{dev[1]}"
        kargs = []
        copied = []  # host arrays the kernel writes: copied back after the launch (as Numba does)
        # Python ints travel as int64 (em.RawKernel's rule): shapes and strides need no wrapping.
        for a, t, (pname, _, _) in zip(args, spec.types, spec.fn.params):
            if isinstance(t, ArrayT):
                if type(a) is _ndarray and pname in spec.fn.written and not a._writeable:
                    raise TypeError(f"argument '{pname}' is read-only but the kernel writes to it")
                if type(a) is not _ndarray:
                    host = a
                    if pname in spec.fn.written and not host.flags.writeable:
                        raise TypeError(f"argument '{pname}' is read-only but the kernel writes to it")
                    a = em.asarray(a, device=where)
                    if pname in spec.fn.written:
                        copied.append((host, a))
                item = a.itemsize
                kargs.append(a)
                kargs.extend(a.shape)
                if t.layout != "C":
                    kargs.extend([s // item for s in a.strides])
            elif t == "int64" or t == "float64":
                kargs.append(a)
            else:
                kargs.append(np.dtype(t).type(a))
        err = em.zeros(1, dtype="int32", device=where) if self.boundscheck else None
        kargs.append(err if err is not None else 0)
        kargs.append(launcher.shmem)
        if _ember._get_device() != dev:
            with em.Device(where):
                spec.kernel(launcher.grid, launcher.block, tuple(kargs), shared_mem=launcher.shmem,
                            stream=launcher.stream)
        else:
            spec.kernel(launcher.grid, launcher.block, tuple(kargs), shared_mem=launcher.shmem,
                        stream=launcher.stream)
        for host, a in copied:
            _ember._touch_host(host)  # pending results reading host (em.asarray wraps) go first
            np.copyto(host, a.get())
        if err is not None and int(err[0]):
            raise IndexError(f"kernel '{self.__name__}': an array index was out of bounds (bounds checking is on)")
        return None


def _em():
    import ember
    return ember


def _compile_error(msg):
    return _em().CompileError(msg)


def jit(fn=None, *, device=False, boundscheck=None, **unsupported):
    """Compile a Python function as a kernel (``k[blocks, threads](args)``),
    a device function (``device=True``) or a plain function with loops
    (called directly, runs on the CPU).  The kernel language is in API.md's Kernels section."""
    if unsupported:
        raise TypeError(f"em.jit: unsupported options {sorted(unsupported)} "
                        "(supported: device=, boundscheck=)")
    if fn is None:
        return lambda f: jit(f, device=device, boundscheck=boundscheck)
    if isinstance(fn, str) or isinstance(fn, (tuple, list)):
        raise TypeError("em.jit takes no type signatures: types come from the arguments at each call")
    if not callable(fn):
        raise TypeError(f"em.jit decorates a function, not {type(fn).__name__}")
    return Dispatcher(fn, device=device, boundscheck=boundscheck)


__all__ = ["jit", "Dispatcher", "SCALARS", "FLOATS"]
