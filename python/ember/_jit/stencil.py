"""@em.stencil (Numba's relative indexing) and @em.vectorize (a scalar
function as a ufunc), both built from @em.jit kernels, so they run on every
device the kernels run on.

@em.stencil: in ``return a[-1, 0] + a[1, 0]`` the indices are offsets from
the element being computed.  The result has the input's shape; elements
whose neighbourhood leaves the array are ``cval`` (0), as in Numba.  The
neighbourhood is read from constant offsets, or given as
``neighborhood=((lo, hi), ...)`` when offsets are computed.

@em.vectorize: ``f(x, y)`` on arrays broadcasts them (NumPy's rules) and
applies the scalar function elementwise; the result dtype is the function's
return type for the arguments' dtypes.
"""
import ast
import copy

import numpy as np

from .. import _ember
from . import lower as _lower
from .dispatch import Dispatcher, _argtype, _compile_error
from .types import ArrayT


def _em():
    import ember
    return ember


def _const_offset(node):
    """The int value of a constant offset expression (1, -1, +2), else None."""
    if isinstance(node, ast.Constant) and type(node.value) is int:
        return node.value
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        v = _const_offset(node.operand)
        if v is not None:
            return -v if isinstance(node.op, ast.USub) else v
    return None


class _Relative(ast.NodeTransformer):
    """a[e0, e1] -> a[__i0 + (e0), __i1 + (e1)] for the stencil's arrays;
    records the constant offsets per dimension."""

    def __init__(self, arrays, fail):
        self.arrays, self.fail = arrays, fail
        self.lo, self.hi, self.ndim, self.computed = {}, {}, None, False

    def visit_Subscript(self, node):
        node = self.generic_visit(node)
        if not (isinstance(node.value, ast.Name) and node.value.id in self.arrays):
            return node
        idx = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
        if self.ndim is None:
            self.ndim = len(idx)
        elif self.ndim != len(idx):
            self.fail(node, f"stencil indices must all have {self.ndim} components")
        new = []
        for k, e in enumerate(idx):
            off = _const_offset(e)
            if off is None:
                self.computed = True
            else:
                self.lo[k] = min(self.lo.get(k, 0), off)
                self.hi[k] = max(self.hi.get(k, 0), off)
            new.append(ast.BinOp(ast.Name(f"__i{k}", ast.Load()), ast.Add(), e))
        node.slice = ast.Tuple(new, ast.Load()) if len(new) > 1 else new[0]
        return ast.copy_location(node, node)


def _source_from_text(text, glob, name):
    fdef = ast.parse(text).body[0]
    return _lower.Source(fdef, f"<ember {name}>", glob, {}, fdef.name, lines=text.splitlines())


def _threads(nd):
    return {1: (256,), 2: (16, 16), 3: (8, 8, 4)}[nd]


def _launch(kernel, shape, args):
    threads = _threads(len(shape))
    blocks = tuple(-(-n // t) for n, t in zip(reversed(shape), threads))
    kernel[blocks, threads](*args)


def _alloc(like_arrays, shape, dtype, dev):
    """The result array (uninitialised: the kernel writes every element)."""
    if dev[0] == "cpu" and like_arrays and all(isinstance(a, np.ndarray) for a in like_arrays):
        return np.empty(shape, dtype=dtype)
    return _em().empty(shape, dtype=dtype, device=f"{dev[0]}:{dev[1]}")


class StencilFunc:
    """What @em.stencil returns: call it with arrays (and scalars)."""

    def __init__(self, fn, neighborhood=None, cval=0):
        self.py_func = fn
        self.__name__ = fn.__name__
        self.__doc__ = fn.__doc__
        self.neighborhood, self.cval = neighborhood, cval
        self._kernels = {}

    def _build(self, types):
        src = _lower.Source.from_function(self.py_func)
        arrays = {a.arg for a, t in zip(src.fdef.args.args, types) if isinstance(t, ArrayT)}
        ndims = {t.ndim for t in types if isinstance(t, ArrayT)}
        what = f"stencil '{self.__name__}'"

        def fail(node, msg):
            line = getattr(node, "lineno", src.fdef.lineno)
            raise _compile_error(f"{what}, line {line} ({src.filename}): {msg}")

        if len(ndims) != 1:
            fail(src.fdef, "a stencil needs array arguments, all with the same number of dimensions")
        nd = ndims.pop()
        if not 1 <= nd <= 3:
            fail(src.fdef, f"stencils support 1 to 3 dimensions, not {nd}")
        fdef = copy.deepcopy(src.fdef)  # rewritten below; line numbers stay the user's
        fdef.decorator_list = []
        rel = _Relative(arrays, fail)
        fdef = rel.visit(fdef)
        if rel.ndim not in (None, nd):
            fail(fdef, f"the stencil indexes its arrays with {rel.ndim} indices but they have {nd} dimensions")
        if self.neighborhood is not None:
            if len(self.neighborhood) != nd:
                fail(fdef, f"neighborhood= needs {nd} (lo, hi) pairs")
            lo = [int(p[0]) for p in self.neighborhood]
            hi = [int(p[1]) for p in self.neighborhood]
        elif rel.computed:
            fail(fdef, "the stencil's offsets are computed: give neighborhood=((lo, hi), ...)")
        else:
            lo = [rel.lo.get(k, 0) for k in range(nd)]
            hi = [rel.hi.get(k, 0) for k in range(nd)]
        fdef.name = "__stencil_elem"
        fdef.args.args += [ast.arg(f"__i{k}") for k in range(nd)]
        ast.fix_missing_locations(fdef)
        esrc = _lower.Source(fdef, src.filename, src.globals, src.closure, self.__name__)
        elem = Dispatcher(self.py_func, device=True, source=esrc)
        params = [a.arg for a in src.fdef.args.args]
        idx = ", ".join(f"__i{k}" for k in range(nd))
        # x (the fastest-moving thread index) walks the last, contiguous dimension
        grid = ", ".join(f"__i{k}" for k in reversed(range(nd))) + f" = em.grid({nd})"
        inside = " and ".join(f"__i{k} < __out.shape[{k}]" for k in range(nd))
        interior = " and ".join(f"{-lo[k]} <= __i{k} < __out.shape[{k}] - {hi[k]}" for k in range(nd))
        text = (f"def __stencil_kernel({', '.join(params + ['__out'])}):\n"
                f"    {grid}\n"
                f"    if {inside}:\n"
                f"        if {interior}:\n"
                f"            __out[{idx}] = __stencil_elem({', '.join(params + [f'__i{k}' for k in range(nd)])})\n"
                f"        else:\n"
                f"            __out[{idx}] = __cval\n")
        ksrc = _source_from_text(text, {"em": _em(), "__stencil_elem": elem, "__cval": self.cval},
                                 self.__name__)
        kernel = Dispatcher(self.py_func, source=ksrc)
        kernel.__name__ = self.__name__
        fn, _ = _lower.lower_function(esrc, tuple(types) + ("int64",) * nd, "device")
        if fn.ret is None:
            fail(src.fdef, "a stencil must return a value")
        return kernel, fn.ret

    def __call__(self, *args, out=None):
        names = [f"arg{i}" for i in range(len(args))]
        types = tuple(_argtype(a, i, n) for i, (a, n) in enumerate(zip(args, names)))
        built = self._kernels.get(types)
        if built is None:
            built = self._kernels[types] = self._build(types)
        kernel, ret = built
        arrays = [a for a, t in zip(args, types) if isinstance(t, ArrayT)]
        shape = tuple(arrays[0].shape)
        if any(tuple(a.shape) != shape for a in arrays):
            raise ValueError(f"stencil '{self.__name__}': array arguments must have the same shape, "
                             f"got {[tuple(a.shape) for a in arrays]}")
        dev = Dispatcher._device_of(args, self.__name__, numpy_means_cpu=True)
        if out is None:
            out = _alloc(arrays, shape, ret, dev)
        elif tuple(out.shape) != shape:
            raise ValueError(f"out= has shape {tuple(out.shape)}, expected {shape}")
        if all(n > 0 for n in shape):
            if _ember._get_device() != dev:  # NumPy arguments run where dev says, not where current is
                with _em().Device(f"{dev[0]}:{dev[1]}"):
                    _launch(kernel, shape, list(args) + [out])
            else:
                _launch(kernel, shape, list(args) + [out])
        return out


def stencil(fn=None, *, neighborhood=None, cval=0):
    """Numba-style stencil: relative indexing a[-1, 0], borders are cval."""
    if fn is None:
        return lambda f: StencilFunc(f, neighborhood, cval)
    if not callable(fn):
        raise TypeError(f"em.stencil decorates a function, not {type(fn).__name__}")
    return StencilFunc(fn, neighborhood, cval)


class VectorizedFunc:
    """What @em.vectorize returns: a ufunc-like callable on any device."""

    def __init__(self, fn):
        self.py_func = fn
        self.__name__ = fn.__name__
        self.__doc__ = fn.__doc__
        self._elem = Dispatcher(fn, device=True)
        self._kernels = {}
        self._rets = {}

    def _kernel(self, nin, nd):
        k = self._kernels.get((nin, nd))
        if k is None:
            xs = [f"x{i}" for i in range(nin)]
            lines = [f"def __vectorize_kernel({', '.join(xs + ['__out'])}):",
                     "    __r = em.grid(1)",
                     "    if __r < __out.size:"]
            for d in range(nd - 1, 0, -1):
                lines.append(f"        __k{d} = __r % __out.shape[{d}]")
                lines.append(f"        __r = __r // __out.shape[{d}]")
            lines.append("        __k0 = __r")
            idx = ", ".join(f"__k{d}" for d in range(nd))
            lines.append(f"        __out[{idx}] = __elem({', '.join(f'{x}[{idx}]' for x in xs)})")
            text = "\n".join(lines) + "\n"
            src = _source_from_text(text, {"em": _em(), "__elem": self._elem}, self.__name__)
            k = self._kernels[(nin, nd)] = Dispatcher(self.py_func, source=src)
            k.__name__ = self.__name__
        return k

    def __call__(self, *args, out=None):
        em = _em()
        dev = Dispatcher._device_of(args, self.__name__, numpy_means_cpu=True)
        where = f"{dev[0]}:{dev[1]}"
        numpy_in = dev[0] == "cpu" and not any(type(a) is _ember.ndarray for a in args)
        xs = [a if type(a) is _ember.ndarray else em.asarray(a, device=where) for a in args]
        nargs = len(self.py_func.__code__.co_varnames[:self.py_func.__code__.co_argcount])
        if len(xs) != nargs:
            raise TypeError(f"{self.__name__}() takes {nargs} arguments but {len(xs)} were given")
        types = []
        for x in xs:
            t = _argtype(x, 0, "x")
            types.append(t.dtype)
        types = tuple(types)
        ret = self._rets.get(types)
        if ret is None:
            fn, _ = _lower.lower_function(self._elem.source(), types, "device")
            if fn.ret is None:
                raise _compile_error(f"vectorized function '{self.__name__}' must return a value")
            ret = self._rets[types] = fn.ret
        shape = np.broadcast_shapes(*[tuple(x.shape) for x in xs])
        if out is None:
            out = em.empty(shape, dtype=ret, device=where)
        elif tuple(out.shape) != shape:
            raise ValueError(f"out= has shape {tuple(out.shape)}, expected {shape}")
        full = out if shape else out.reshape(1)
        xs = [em.broadcast_to(x, full.shape) for x in xs]
        n = int(np.prod(shape)) if shape else 1
        if n:
            k = self._kernel(len(xs), full.ndim)
            k[(-(-n // 256),), (256,)](*xs, full)
        if numpy_in:
            return np.asarray(out)
        return out


def vectorize(fn=None, **kwargs):
    """A scalar function -> an elementwise function over arrays (NumPy
    broadcasting) that runs on any device.  Types come from the arguments."""
    if isinstance(fn, (list, tuple, str)) or kwargs:
        raise TypeError("em.vectorize takes no signatures or options: types come from the arguments")
    if fn is None:
        return vectorize
    if not callable(fn):
        raise TypeError(f"em.vectorize decorates a function, not {type(fn).__name__}")
    return VectorizedFunc(fn)
