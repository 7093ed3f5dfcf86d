"""Python AST -> typed IR (ir.py) for one specialisation of a function.

Types come from the call's arguments; locals take the unified type of every
value assigned to them (NumPy's promote_types: `s = 0` then `s += x[i]` with
float32 x makes s float64, as in Numba), found by lowering the body until
the local types stop changing.  Anything outside the kernel language raises
em.CompileError naming the kernel, the file and line and the construct.
"""
import ast
import builtins
import linecache
import math

import numpy as np

from . import ir
from .intrinsics import Intrinsic
from .types import (ArrayT, FLOATS, INTS, ITEMSIZE, SCALARS, dtype_name, is_array, promote,
                    unify)


def _compile_error(msg):
    from .. import CompileError
    return CompileError(msg)


class Source:
    """A function's AST, file, globals and closure (parsed once)."""

    def __init__(self, fdef, filename, glob, closure, name, lines=None):
        self.fdef, self.filename, self.globals, self.closure = fdef, filename, glob, closure
        self.name, self.lines = name, lines

    @classmethod
    def from_function(cls, fn):
        import inspect
        import textwrap
        try:
            src = textwrap.dedent(inspect.getsource(fn))
        except (OSError, TypeError) as e:
            raise _compile_error(f"cannot read the source of '{fn.__name__}' to compile it: {e} "
                                 "(@em.jit needs a function defined in a file)") from None
        tree = ast.parse(src)
        fdef = tree.body[0]
        if not isinstance(fdef, ast.FunctionDef):
            raise _compile_error(f"@em.jit needs a 'def' function, not {type(fdef).__name__}")
        ast.increment_lineno(tree, fn.__code__.co_firstlineno - 1)
        closure = {}
        if fn.__closure__:
            for n, cell in zip(fn.__code__.co_freevars, fn.__closure__):
                try:
                    closure[n] = cell.cell_contents
                except ValueError:
                    pass
        return cls(fdef, fn.__code__.co_filename, fn.__globals__, closure, fn.__name__)

    def line_text(self, line):
        if self.lines is not None:
            return self.lines[line - 1].strip() if 0 < line <= len(self.lines) else ""
        return linecache.getline(self.filename, line).strip()


class Py:
    """A compile-time Python value (a module, a dtype, an intrinsic, a
    function) met while lowering; never rendered."""
    __slots__ = ("obj", "ty")

    def __init__(self, obj):
        self.obj, self.ty = obj, "py"


_MATH1 = {"sqrt", "exp", "log", "sin", "cos", "tan", "tanh", "sinh", "cosh", "asin", "acos",
          "atan", "asinh", "acosh", "atanh", "expm1", "log1p", "log10", "log2", "erf", "erfc",
          "lgamma", "gamma", "fabs", "cbrt", "exp2"}
_MATH2 = {"pow", "atan2", "hypot", "copysign", "fmod"}
_MATH_TOINT = {"floor", "ceil", "trunc"}
_MATH_PRED = {"isnan", "isinf", "isfinite"}
# NumPy ufuncs with the same meaning as the math function of that name.
_NP_ALIASES = {"sqrt": "sqrt", "exp": "exp", "log": "log", "sin": "sin", "cos": "cos",
               "tan": "tan", "tanh": "tanh", "sinh": "sinh", "cosh": "cosh", "arcsin": "asin",
               "arccos": "acos", "arctan": "atan", "expm1": "expm1", "log1p": "log1p",
               "log10": "log10", "log2": "log2", "arctan2": "atan2", "hypot": "hypot",
               "copysign": "copysign", "fabs": "fabs", "isnan": "isnan", "isinf": "isinf",
               "isfinite": "isfinite", "cbrt": "cbrt", "exp2": "exp2"}
_ARITH = {ast.Add: "+", ast.Sub: "-", ast.Mult: "*", ast.Div: "/", ast.FloorDiv: "//",
          ast.Mod: "%", ast.Pow: "**", ast.LShift: "<<", ast.RShift: ">>", ast.BitOr: "|",
          ast.BitXor: "^", ast.BitAnd: "&"}
_CMP = {ast.Lt: "<", ast.LtE: "<=", ast.Gt: ">", ast.GtE: ">=", ast.Eq: "==", ast.NotEq: "!="}
_SPECIAL = {"threadIdx": "tid", "blockIdx": "bid", "blockDim": "bdim", "gridDim": "gdim"}
_ATOMIC_TYPES = {"int32", "uint32", "int64", "uint64", "float32", "float64"}
_LIKE = {"empty_like", "zeros_like", "ones_like"}


def _const_type(v):
    if isinstance(v, bool):
        return "bool"
    if isinstance(v, int):
        if -2**63 <= v < 2**63:
            return "int64"
        if v < 2**64:
            return "uint64"
        return None
    if isinstance(v, float):
        return "float64"
    return None


class Lowerer:
    """Lowers one Source for one tuple of argument types.

    kind: 'kernel' (launched with k[blocks, threads]), 'device' (called from
    kernels, may return a value) or 'plain' (called from Python with no
    launch configuration: may return a scalar or an array it was given or
    allocated with *_like).  `registry` specialises called device functions.
    """

    def __init__(self, src, argtypes, kind, registry, cname, boundscheck=False):
        self.src, self.argtypes, self.kind, self.registry = src, argtypes, kind, registry
        self.what = "kernel" if kind == "kernel" else "function"
        self.fn = ir.Function(src.name, cname, kind)
        self.fn.boundscheck = boundscheck
        self.ltypes = {}
        self.allocs = []         # plain functions: (name, like-function, source param, dtype)
        self.ret_array = None    # plain functions: the name of the array returned

    # -- errors ---------------------------------------------------------------
    def fail(self, node, msg):
        line = getattr(node, "lineno", self.src.fdef.lineno)
        text = self.src.line_text(line)
        raise _compile_error(f"{self.what} '{self.src.name}', line {line} ({self.src.filename}): {msg}"
                             + (f"\n    {text}" if text else ""))

    # -- driver -----------------------------------------------------------------
    def lower(self):
        fdef = self.src.fdef
        a = fdef.args
        if a.vararg or a.kwarg or a.kwonlyargs or a.defaults or getattr(a, "posonlyargs", None):
            self.fail(fdef, "only plain positional parameters are supported (no defaults, *args, "
                            "**kwargs or keyword-only parameters)")
        if len(a.args) != len(self.argtypes):
            self.fail(fdef, f"takes {len(a.args)} arguments but {len(self.argtypes)} were given")
        self.assigned = {}  # name -> positions (line, col) where it is assigned
        for n in ast.walk(fdef):
            if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store):
                self.assigned.setdefault(n.id, []).append((n.lineno, n.col_offset))
        self.loop_spans = []
        for _ in range(10):
            self.changed = False
            self.unresolved = False
            body = self.block(fdef.body)
            if not self.changed and not self.unresolved:
                break
        else:
            self.fail(fdef, "could not settle the types of the local variables")
        self.fn.body = body
        self.fn.locals = {"v_" + n: t for n, t in self.ltypes.items()}
        self.fn.locals.update(self.hidden)
        return self.fn

    def reset(self):
        fn = self.fn
        fn.params, fn.devfuncs, fn.written = [], [], set()
        fn.shared_bytes, fn.uses_sync, fn.uses_print = 0, False, False
        self.arrays, self.scalars, self.hidden, self.ntmp = {}, {}, {}, 0
        self.allocs = []
        self.ret_array = None
        for arg, t in zip(self.src.fdef.args.args, self.argtypes):
            name = arg.arg
            if is_array(t):
                self.arrays[name] = ir.ArrRef("a_" + name, t)
                fn.params.append((name, "a_" + name, t))
            else:
                self.scalars[name] = ir.Var("p_" + name, t)
                fn.params.append((name, "p_" + name, t))

    def block(self, stmts, top=False):
        if stmts is self.src.fdef.body:
            self.reset()
            top = True
        out = []
        for s in stmts:
            r = self.stmt(s, top)
            if r is not None:
                out.extend(r if isinstance(r, list) else [r])
        return out

    def tmp(self, ty):
        self.ntmp += 1
        name = f"t_{self.ntmp}"
        self.hidden[name] = ty
        return ir.Var(name, ty)

    # -- statements ---------------------------------------------------------------
    def stmt(self, s, top):
        m = getattr(self, "s_" + type(s).__name__, None)
        if m is None:
            self.fail(s, f"'{type(s).__name__}' statements are not supported in kernels")
        return m(s, top)

    def s_Pass(self, s, top):
        return None

    def s_Expr(self, s, top):
        v = s.value
        if isinstance(v, ast.Constant) and isinstance(v.value, str):
            return None  # a docstring
        if isinstance(v, ast.Call):
            f = self.expr(v.func)
            if isinstance(f, Py) and f.obj is builtins.print:
                return self.print_stmt(v)
            if isinstance(f, Py) and isinstance(f.obj, Intrinsic) and f.obj.name == "syncthreads":
                if v.args or v.keywords:
                    self.fail(v, "em.syncthreads() takes no arguments")
                self.fn.uses_sync = True
                return ir.Sync()
        e = self.expr(v)
        if isinstance(e, (Py, ir.TupleV, ir.ArrRef)):
            return None
        return ir.ExprStmt(e)

    def print_stmt(self, call):
        if call.keywords:
            self.fail(call, "print() in kernels takes positional arguments only (no sep=, end=, file=)")
        items = []
        for a in call.args:
            if isinstance(a, ast.Constant) and isinstance(a.value, str):
                items.append(ir.Str(a.value))
                continue
            e = self.expr(a)
            if isinstance(e, ir.TupleV):
                items.extend(self.scalar(x, a) for x in e.items)
            else:
                items.append(self.scalar(e, a))
        self.fn.uses_print = True
        return ir.Print(items)

    def s_Assign(self, s, top):
        if len(s.targets) != 1:
            self.fail(s, "chained assignment (a = b = ...) is not supported in kernels")
        return self.assign(s.targets[0], s.value, s, top)

    def s_AnnAssign(self, s, top):
        if s.value is None:
            return None
        return self.assign(s.target, s.value, s, top)

    def assign(self, target, value, s, top):
        if isinstance(target, ast.Name) and isinstance(value, ast.Call):
            f = self.expr(value.func)
            if isinstance(f, Py) and isinstance(f.obj, Intrinsic) and f.obj.name in ("shared.array", "local.array"):
                return self.declare_array(target.id, f.obj.name.split(".")[0], value)
            if isinstance(f, Py) and getattr(f.obj, "__name__", "") in _LIKE and self.kind == "plain":
                return self.alloc_like(target.id, f.obj, value, top)
        if isinstance(target, ast.Name):
            v = self.expr(value)
            if isinstance(v, ir.ArrRef):
                prev = self.arrays.get(target.id)
                if prev is not None and prev.cname != v.cname:
                    self.fail(s, f"'{target.id}' already names an array: kernels cannot rebind array names")
                if target.id in self.scalars or target.id in self.ltypes:
                    self.fail(s, f"'{target.id}' holds a scalar and cannot also name an array")
                self.arrays[target.id] = v
                return None
            if isinstance(v, ir.TupleV):
                self.fail(s, f"cannot assign a tuple to '{target.id}' in a kernel: unpack it "
                             f"(i, j = ...) or index it")
            return self.assign_name(target.id, self.scalar(v, value), s)
        if isinstance(target, (ast.Tuple, ast.List)):
            v = self.expr(value)
            if not isinstance(v, ir.TupleV):
                self.fail(s, "only tuples (em.grid(n), a.shape, (x, y)) can be unpacked in kernels")
            if len(v.items) != len(target.elts):
                self.fail(s, f"cannot unpack {len(v.items)} values into {len(target.elts)} names")
            if not all(isinstance(t, ast.Name) for t in target.elts):
                self.fail(s, "unpacking assigns to plain names only")
            out, temps = [], []
            for item in v.items:
                item = self.scalar(item, value)
                if isinstance(item, (ir.Const, ir.Special, ir.Shape)):
                    temps.append(item)
                else:  # evaluate every value before any name changes (a, b = b, a)
                    t = self.tmp(item.ty)
                    out.append(ir.Assign(t, item))
                    temps.append(t)
            for t, item in zip(target.elts, temps):
                out.extend(self.assign_name(t.id, item, s))
            return out
        if isinstance(target, ast.Subscript):
            arr = self.expr(target.value)
            if not isinstance(arr, ir.ArrRef):
                self.fail(s, "only array elements can be assigned with [...]")
            idx = self.indices(target.slice, arr, target)
            v = self.scalar(self.expr(value), value)
            self.mark_written(arr)
            return [ir.Store(arr, idx, self.cast(v, arr.ty.dtype, value))]
        self.fail(s, f"cannot assign to {type(target).__name__} in a kernel")

    def mark_written(self, arr):
        for name, cname, t in self.fn.params:
            if cname == arr.cname:
                self.fn.written.add(name)

    def assign_name(self, name, v, node):
        if name in self.arrays:
            self.fail(node, f"'{name}' names an array and cannot be assigned a scalar")
        if name in self.scalars:
            var = self.scalars[name]
            return [ir.Assign(var, self.cast(v, var.ty, node))]
        old = self.ltypes.get(name)
        t = v.ty if old is None else unify(old, v.ty)
        if t != old:
            self.ltypes[name] = t
            self.changed = True
        return [ir.Assign(ir.Var("v_" + name, t), self.cast(v, t, node))]

    def declare_array(self, name, where, call):
        if name in self.arrays or name in self.scalars or name in self.ltypes:
            self.fail(call, f"'{name}' is already defined: each em.{where}.array needs its own name")
        args = list(call.args)
        kw = {k.arg: k.value for k in call.keywords}
        if len(args) < 2:
            args += [kw.pop(k) for k in ("shape", "dtype")[len(args):] if k in kw]
        if len(args) != 2 or kw:
            self.fail(call, f"em.{where}.array takes (shape, dtype)")
        shape = self.const_shape(args[0], call, where)
        dt = self.dtype_arg(args[1], call)
        if where == "shared" and self.kind != "kernel":
            self.fail(call, "em.shared.array belongs in the kernel itself: pass the array to device "
                            "functions as an argument")
        if where == "shared" and shape == (0,):
            t = ArrayT(dt, 1, "dynshared")
            arr = ir.ArrRef("s_" + name, t)
            self.arrays[name] = arr
            return ir.DeclArray(arr, 0)
        if 0 in shape:
            self.fail(call, f"em.{where}.array: every dimension must be at least 1 "
                            "(shape 0 means dynamic size for em.shared.array only)")
        n = int(np.prod(shape))
        size = ITEMSIZE[dt]
        if n * size > 48 * 1024:
            self.fail(call, f"em.{where}.array of {n * size} bytes exceeds the 48 KiB limit")
        t = ArrayT(dt, len(shape), where, shape)
        arr = ir.ArrRef("s_" + name, t)
        self.arrays[name] = arr
        off = 0
        if where == "shared":
            off = (self.fn.shared_bytes + 15) // 16 * 16
            self.fn.shared_bytes = off + n * size
        return ir.DeclArray(arr, off)

    def const_shape(self, node, call, where):
        v = self.expr(node)
        items = v.items if isinstance(v, ir.TupleV) else [v]
        shape = []
        for it in items:
            if not (isinstance(it, ir.Const) and it.ty in INTS) or it.value < 0:
                self.fail(call, f"em.{where}.array needs a constant shape (int literals or global "
                                "int constants)")
            shape.append(int(it.value))
        if not 1 <= len(shape) <= 3 and where == "shared":
            self.fail(call, "em.shared.array supports 1 to 3 dimensions")
        return tuple(shape)

    def dtype_arg(self, node, call):
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            dt = dtype_name(node.value)
        else:
            v = self.expr(node)
            dt = dtype_name(v.obj) if isinstance(v, Py) else None
        if dt is None:
            self.fail(call, "the dtype must be a NumPy/Ember dtype (bool, int8..uint64, float32, float64)")
        return dt

    def alloc_like(self, name, fobj, call, top):
        if not top:
            self.fail(call, f"{fobj.__name__}() is supported at the top level of the function only")
        if len(call.args) != 1 or not isinstance(call.args[0], ast.Name):
            self.fail(call, f"{fobj.__name__}() takes one array parameter here")
        kw = {k.arg: k.value for k in call.keywords}
        src = self.expr(call.args[0])
        if not isinstance(src, ir.ArrRef) or src.ty.kind != "param":
            self.fail(call, f"{fobj.__name__}() takes one array parameter here")
        dt = self.dtype_arg(kw.pop("dtype"), call) if "dtype" in kw else src.ty.dtype
        if kw:
            self.fail(call, f"{fobj.__name__}() takes only dtype= here")
        if name in self.arrays:
            self.fail(call, f"'{name}' already names an array")
        t = ArrayT(dt, src.ty.ndim)
        self.arrays[name] = ir.ArrRef("a_" + name, t)
        self.fn.params.append((name, "a_" + name, t))
        self.allocs.append((name, fobj.__name__, call.args[0].id, dt))
        return None

    def s_AugAssign(self, s, top):
        op = _ARITH.get(type(s.op))
        if op is None:
            self.fail(s, f"operator {type(s.op).__name__} is not supported in kernels")
        t = s.target
        if isinstance(t, ast.Name):
            cur = self.scalar(self.expr(t), t)
            return self.assign_name(t.id, self.binop(op, cur, self.scalar(self.expr(s.value), s.value), s), s)
        if isinstance(t, ast.Subscript):
            arr = self.expr(t.value)
            if not isinstance(arr, ir.ArrRef):
                self.fail(s, "only array elements can be assigned with [...]")
            idx = self.indices(t.slice, arr, t)
            v = self.binop(op, ir.Load(arr, idx), self.scalar(self.expr(s.value), s.value), s)
            self.mark_written(arr)
            return [ir.Store(arr, idx, self.cast(v, arr.ty.dtype, s))]
        self.fail(s, f"cannot assign to {type(t).__name__} in a kernel")

    def s_If(self, s, top):
        return ir.If(self.truth(self.expr(s.test), s.test), self.block(s.body), self.block(s.orelse))

    def s_While(self, s, top):
        if s.orelse:
            self.fail(s, "while ... else is not supported in kernels")
        self.loop_spans.append((s.lineno, s.end_lineno))
        cond = self.truth(self.expr(s.test), s.test)
        body = self.block(s.body)
        self.loop_spans.pop()
        return ir.While(cond, body)

    def s_For(self, s, top):
        if s.orelse:
            self.fail(s, "for ... else is not supported in kernels")
        it = s.iter
        if not (isinstance(it, ast.Call) and isinstance(self.expr(it.func), Py)
                and self.expr(it.func).obj is builtins.range):
            self.fail(s, "kernels loop over range(...) only")
        if not isinstance(s.target, ast.Name):
            self.fail(s, "the loop variable must be a plain name")
        if it.keywords or not 1 <= len(it.args) <= 3:
            self.fail(it, "range() takes 1 to 3 integer arguments")
        args = [self.scalar(self.expr(a), a) for a in it.args]
        for a, node in zip(args, it.args):
            if a.ty not in INTS and a.ty != "bool":
                self.fail(node, f"range() arguments must be integers, not {a.ty}")
        if len(args) == 1:
            args = [ir.Const(0, "int64", True)] + args
        if len(args) == 2:
            args.append(ir.Const(1, "int64", True))
        t = "int64"
        for a in args:
            if not (isinstance(a, ir.Const) and a.weak):
                t = promote(t, a.ty) if a.ty != "bool" else t
        if t not in INTS:  # int64 with uint64 promotes to float64
            t = "int64"
        step = args[2]
        sign = None
        if isinstance(step, ir.Const):
            if step.value == 0:
                self.fail(it, "range() step must not be zero")
            sign = 1 if step.value > 0 else -1
        start = self.cast(args[0], t, it)
        stop_t = self.tmp(t)
        step_t = self.tmp(t) if sign is None else self.cast(step, t, it)
        pre = [ir.Assign(stop_t, self.cast(args[1], t, it))]
        if sign is None:
            pre.append(ir.Assign(step_t, self.cast(step, t, it)))
        counter = self.tmp(t)
        setvar = self.assign_name(s.target.id, counter, s)
        self.loop_spans.append((s.lineno, s.end_lineno))
        body = self.block(s.body)
        self.loop_spans.pop()
        pre.append(ir.For(counter, start, stop_t, step_t, sign, setvar + body, counter))
        return pre

    def s_Break(self, s, top):
        return ir.Break()

    def s_Continue(self, s, top):
        return ir.Continue()

    def s_Return(self, s, top):
        if s.value is None or (isinstance(s.value, ast.Constant) and s.value.value is None):
            if self.kind == "device" and self.fn.ret is not None:
                self.fail(s, "every return of a device function must return a value, or none must")
            return ir.Return(None)
        if self.kind == "kernel":
            self.fail(s, "kernels cannot return a value: write results into an array argument")
        v = self.expr(s.value)
        if isinstance(v, ir.ArrRef):
            if self.kind != "plain":
                self.fail(s, "device functions cannot return arrays")
            name = s.value.id if isinstance(s.value, ast.Name) else None
            if name is None or (self.ret_array not in (None, name)):
                self.fail(s, "a function returns one array: a parameter or one made with *_like()")
            self.ret_array = name
            return ir.Return(None)
        v = self.scalar(v, s.value)
        old = self.fn.ret
        t = v.ty if old is None else unify(old, v.ty)
        if t != old:
            self.fn.ret = t
            self.changed = True
        return ir.Return(self.cast(v, t, s))

    # -- expressions ---------------------------------------------------------------
    def expr(self, node):
        m = getattr(self, "e_" + type(node).__name__, None)
        if m is None:
            self.fail(node, f"{type(node).__name__} expressions are not supported in kernels")
        return m(node)

    def scalar(self, v, node):
        if isinstance(v, Py):
            self.fail(node, f"{getattr(v.obj, '__name__', type(v.obj).__name__)} is not a value "
                            "a kernel can compute with")
        if isinstance(v, ir.ArrRef):
            self.fail(node, "an array is used where a scalar is needed (index it: a[i])")
        if isinstance(v, ir.TupleV):
            self.fail(node, "a tuple is used where a scalar is needed (index or unpack it)")
        if isinstance(v, ir.Str):
            self.fail(node, "strings are only supported as print() arguments")
        if v.ty == "void":
            self.fail(node, f"'{v.fn.name}' returns no value")
        return v

    def e_Constant(self, node):
        v = node.value
        if isinstance(v, str):
            return ir.Str(v)
        t = _const_type(v)
        if t is None:
            self.fail(node, f"constant {v!r} is not supported in kernels")
        return ir.Const(v, t, True)

    def e_Name(self, node):
        n = node.id
        if n in self.arrays:
            return self.arrays[n]
        if n in self.scalars:
            return self.scalars[n]
        if n in self.ltypes:
            return ir.Var("v_" + n, self.ltypes[n])
        if n in self.assigned:
            self.check_assigned_before(node, n)
            self.unresolved = True
            return ir.Const(0, "int64", True)
        if n in self.src.closure:
            obj = self.src.closure[n]
        elif n in self.src.globals:
            obj = self.src.globals[n]
        elif hasattr(builtins, n):
            obj = getattr(builtins, n)
        else:
            self.fail(node, f"name '{n}' is not defined")
        return self.classify(obj, node, n)

    def check_assigned_before(self, node, n):
        """Python's UnboundLocalError, found statically: a read with no
        assignment before it in the source, unless a loop around the read
        assigns the name (a value from the previous iteration)."""
        here = (node.lineno, node.col_offset)
        if any(p < here for p in self.assigned[n]):
            return
        for lo, hi in self.loop_spans:
            if any(lo <= p[0] <= hi for p in self.assigned[n]):
                return
        self.fail(node, f"local variable '{n}' is used before it is assigned")

    def classify(self, obj, node, name):
        if isinstance(obj, Intrinsic):
            base, _, dim = obj.name.partition(".")
            if self.kind == "plain" and base in ("threadIdx", "blockIdx", "blockDim", "gridDim", "grid",
                                                 "gridsize", "syncthreads", "shared"):
                self.fail(node, f"em.{base} belongs to kernels: launch '{self.src.name}' with "
                                f"{self.src.name}[blocks, threads](...)")
            if base in _SPECIAL and dim:
                return ir.Special(_SPECIAL[base], "xyz".index(dim))
            return Py(obj)
        if isinstance(obj, (bool, int, float)):
            t = _const_type(obj)
            if t is None:
                self.fail(node, f"'{name}' = {obj!r} does not fit in 64 bits")
            return ir.Const(obj, t, True)
        if isinstance(obj, np.generic):
            dt = dtype_name(obj.dtype)
            if dt is None:
                self.fail(node, f"'{name}' has dtype {obj.dtype}, which kernels do not support")
            return ir.Const(obj.item(), dt)
        if isinstance(obj, tuple):
            return ir.TupleV([self.classify(o, node, name) for o in obj])
        if (isinstance(obj, type(math)) or callable(obj) or isinstance(obj, np.dtype)):
            return Py(obj)
        self.fail(node, f"global '{name}' of type {type(obj).__name__} cannot be used in a kernel: "
                        "only int/float/bool constants (and tuples of them), math, em.* and "
                        "@em.jit(device=True) functions")

    def e_Attribute(self, node):
        base = self.expr(node.value)
        a = node.attr
        if isinstance(base, Py):
            try:
                obj = getattr(base.obj, a)
            except AttributeError:
                self.fail(node, f"{getattr(base.obj, '__name__', base.obj)!s} has no attribute '{a}'")
            return self.classify(obj, node, a)
        if isinstance(base, ir.ArrRef):
            t = base.ty
            if a == "shape":
                return ir.TupleV([self.shape(base, k) for k in range(t.ndim)])
            if a == "size":
                size = None
                for k in range(t.ndim):
                    s = self.shape(base, k)
                    size = s if size is None else ir.Bin("*", size, s, "int64", "int64")
                return size if size is not None else ir.Const(1, "int64")
            if a == "ndim":
                return ir.Const(t.ndim, "int64", True)
            if a == "dtype":
                return Py(np.dtype(t.dtype))
            self.fail(node, f"array attribute '{a}' is not supported in kernels (shape, size, ndim)")
        self.fail(node, f"attribute '{a}' of a {base.ty} value is not supported in kernels")

    def shape(self, arr, k):
        if arr.ty.shape is not None:
            return ir.Const(arr.ty.shape[k], "int64", True)
        return ir.Shape(arr, k)

    def e_Subscript(self, node):
        base = self.expr(node.value)
        if isinstance(base, ir.ArrRef):
            return ir.Load(base, self.indices(node.slice, base, node))
        if isinstance(base, ir.TupleV):
            k = self.expr(node.slice)
            if not (isinstance(k, ir.Const) and k.ty in INTS):
                self.fail(node, "tuples in kernels are indexed by integer constants only")
            if not -len(base.items) <= k.value < len(base.items):
                self.fail(node, f"tuple index {k.value} out of range for {len(base.items)} items")
            return base.items[k.value]
        self.fail(node, "only arrays and tuples can be indexed in kernels")

    def indices(self, sl, arr, node):
        if isinstance(sl, ast.Slice) or (isinstance(sl, ast.Tuple) and any(isinstance(e, ast.Slice) for e in sl.elts)):
            self.fail(node, "slices are not supported in kernels: index with integers (a[i, j])")
        if isinstance(sl, ast.Tuple):
            items = [self.expr(e) for e in sl.elts]
        else:
            v = self.expr(sl)
            items = v.items if isinstance(v, ir.TupleV) else [v]
        nd = arr.ty.ndim
        if len(items) != nd:
            self.fail(node, f"array with {nd} dimension{'s' if nd != 1 else ''} indexed with "
                            f"{len(items)} index{'es' if len(items) != 1 else ''}: kernels index every "
                            "dimension (partial indexing and views are not supported)")
        out = []
        for it in items:
            it = self.scalar(it, node)
            if it.ty not in INTS and it.ty != "bool":
                self.fail(node, f"array indices must be integers, not {it.ty}")
            out.append(it if it.ty in ("int64", "uint64") else self.cast(it, "int64", node))
        return out

    def e_Tuple(self, node):
        return ir.TupleV([self.expr(e) for e in node.elts])

    def e_BinOp(self, node):
        op = _ARITH.get(type(node.op))
        if op is None:
            self.fail(node, f"operator {type(node.op).__name__} is not supported in kernels")
        a = self.scalar(self.expr(node.left), node.left)
        b = self.scalar(self.expr(node.right), node.right)
        return self.binop(op, a, b, node)

    def binop(self, op, a, b, node):
        wa = isinstance(a, ir.Const) and a.weak
        wb = isinstance(b, ir.Const) and b.weak
        if wa and wb:
            return self.fold(op, a, b, node)
        t = promote(a.ty, b.ty, wa, wb)
        if op in ("&", "|", "^", "<<", ">>"):
            if t in FLOATS:
                self.fail(node, f"operator {op} needs integer or bool operands, not {a.ty} and {b.ty}")
            if op in ("<<", ">>") and t == "bool":
                t = "int64"
            if op in ("<<", ">>"):
                return ir.Call("shl" if op == "<<" else "shr", [self.cast(a, t, node), self.cast(b, t, node)], t)
            return ir.Bin(op, self.cast(a, t, node), self.cast(b, t, node), t, t)
        if t == "bool":
            t = "int64"  # Python: True + True == 2
        if op == "/":
            if t not in FLOATS:
                t = "float64"
            return ir.Bin("/", self.cast(a, t, node), self.cast(b, t, node), t, t)
        ca, cb = self.cast(a, t, node), self.cast(b, t, node)
        if op in ("//", "%", "**"):
            fn = {"//": "floordiv", "%": "mod", "**": "pow"}[op]
            return ir.Call(fn, [ca, cb], t)
        return ir.Bin(op, ca, cb, t, t)

    def fold(self, op, a, b, node):
        """Both operands Python literals: compute at compile time, as Python does."""
        import operator
        fns = {"+": operator.add, "-": operator.sub, "*": operator.mul, "/": operator.truediv,
               "//": operator.floordiv, "%": operator.mod, "**": operator.pow, "<<": operator.lshift,
               ">>": operator.rshift, "|": operator.or_, "^": operator.xor, "&": operator.and_}
        try:
            v = fns[op](a.value, b.value)
        except (ZeroDivisionError, OverflowError, ValueError, TypeError) as e:
            self.fail(node, f"constant expression fails: {e}")
        t = _const_type(v)
        if t is None:
            self.fail(node, f"constant {v!r} is not supported in kernels")
        return ir.Const(v, t, True)

    def cast(self, v, t, node):
        if v.ty == t:
            return v
        if v.ty not in SCALARS or t not in SCALARS:
            self.fail(node, f"cannot convert {v.ty} to {t}")
        if isinstance(v, ir.Const):
            val = v.value
            if t == "bool":
                return ir.Const(bool(val), t)
            if t in FLOATS:
                return ir.Const(float(val), t)
            if isinstance(val, float):  # stored into an integer array: truncates, as NumPy
                return ir.Cast(ir.Const(val, "float64"), t)
            info = np.iinfo(t)
            if not info.min <= int(val) <= info.max:
                if v.weak:
                    self.fail(node, f"Python integer {val} out of bounds for {t}")
                return ir.Cast(v, t)
            return ir.Const(int(val), t)
        return ir.Cast(v, t)

    def truth(self, v, node):
        v = self.scalar(v, node)
        if isinstance(v, ir.Const):
            return ir.Const(bool(v.value), "bool")
        return self.cast(v, "bool", node)

    def e_UnaryOp(self, node):
        a = self.scalar(self.expr(node.operand), node.operand)
        if isinstance(node.op, ast.Not):
            return ir.Unary("not", self.truth(a, node), "bool")
        if isinstance(a, ir.Const) and a.weak:
            v = {ast.USub: lambda x: -x, ast.UAdd: lambda x: +x, ast.Invert: lambda x: ~x}[type(node.op)](a.value)
            return ir.Const(v, _const_type(v), True)
        t = "int64" if a.ty == "bool" else a.ty
        if isinstance(node.op, ast.UAdd):
            return self.cast(a, t, node)
        if isinstance(node.op, ast.USub):
            return ir.Unary("neg", self.cast(a, t, node), t)
        if t in FLOATS:
            self.fail(node, "operator ~ needs an integer operand")
        return ir.Unary("inv", self.cast(a, t, node), t)

    def e_BoolOp(self, node):
        op = "and" if isinstance(node.op, ast.And) else "or"
        return ir.Logic(op, [self.truth(self.expr(v), v) for v in node.values])

    def e_Compare(self, node):
        items = []
        left = self.scalar(self.expr(node.left), node.left)
        for op, rnode in zip(node.ops, node.comparators):
            c = _CMP.get(type(op))
            if c is None:
                self.fail(node, f"comparison {type(op).__name__} is not supported in kernels")
            right = self.scalar(self.expr(rnode), rnode)
            wa = isinstance(left, ir.Const) and left.weak
            wb = isinstance(right, ir.Const) and right.weak
            t = promote(left.ty, right.ty, wa, wb) if not (wa and wb) else (
                "float64" if "float64" in (left.ty, right.ty) else "int64")
            items.append(ir.Cmp(c, self.cast(left, t, node), self.cast(right, t, node)))
            left = right
        return items[0] if len(items) == 1 else ir.Logic("and", items)

    def e_IfExp(self, node):
        c = self.truth(self.expr(node.test), node.test)
        a = self.scalar(self.expr(node.body), node.body)
        b = self.scalar(self.expr(node.orelse), node.orelse)
        wa = isinstance(a, ir.Const) and a.weak
        wb = isinstance(b, ir.Const) and b.weak
        t = a.ty if a.ty == b.ty else promote(a.ty, b.ty, wa and not wb, wb and not wa)
        return ir.Select(c, self.cast(a, t, node), self.cast(b, t, node), t)

    # -- calls -------------------------------------------------------------------------
    def e_Call(self, node):
        f = self.expr(node.func)
        if not isinstance(f, Py):
            self.fail(node, "only functions can be called")
        obj = f.obj
        fname = getattr(obj, "__name__", type(obj).__name__)
        if isinstance(obj, Intrinsic):
            return self.intrinsic(obj.name, node)
        from .dispatch import Dispatcher
        if isinstance(obj, Dispatcher):
            return self.device_call(obj, node)
        if node.keywords:
            self.fail(node, f"keyword arguments are not supported in calls to '{fname}' in kernels")
        if getattr(obj, "__module__", None) == "math" or obj is getattr(math, fname, None):
            return self.math_call(fname, node)
        if isinstance(obj, np.ufunc) and obj.__name__ in _NP_ALIASES:
            return self.math_call(_NP_ALIASES[obj.__name__], node)
        if obj is builtins.min or obj is builtins.max or obj is np.minimum or obj is np.maximum:
            return self.minmax("min" if obj in (builtins.min, np.minimum) else "max", node)
        if obj is builtins.abs or obj is np.abs or obj is np.absolute:
            return self.abs_call(node)
        if obj is builtins.len:
            a = self.expr(node.args[0]) if len(node.args) == 1 else None
            if not isinstance(a, ir.ArrRef):
                self.fail(node, "len() takes one array in kernels")
            return self.shape(a, 0)
        conv = {builtins.int: "int64", builtins.float: "float64", builtins.bool: "bool"}.get(obj)
        if conv is None and (isinstance(obj, np.dtype) or (isinstance(obj, type) and issubclass(obj, np.generic))):
            conv = dtype_name(obj)
            if conv is None:
                self.fail(node, f"dtype {np.dtype(obj)} is not supported in kernels")
        if conv is not None:
            if len(node.args) != 1:
                self.fail(node, f"{fname}() takes one argument in kernels")
            v = self.scalar(self.expr(node.args[0]), node.args[0])
            return self.truth(v, node) if conv == "bool" else self.cast(v, conv, node)
        if obj is builtins.range:
            self.fail(node, "range() is supported only as the iterable of a for loop")
        if obj is builtins.print:
            self.fail(node, "print() is a statement in kernels; it has no value")
        self.fail(node, f"calls to '{fname}' are not supported in kernels: only math.*, em.* "
                        "intrinsics and @em.jit(device=True) functions")

    def args(self, node, n, what):
        if node.keywords or len(node.args) not in ((n,) if isinstance(n, int) else n):
            self.fail(node, f"{what} takes {n if isinstance(n, int) else ' or '.join(map(str, n))} "
                            f"positional argument{'s' if n != 1 else ''}")
        return [self.scalar(self.expr(a), a) for a in node.args]

    def math_call(self, name, node):
        if name in _MATH1 or name in _MATH_TOINT or name in _MATH_PRED or name in ("radians", "degrees"):
            n = (1, 2) if name == "log" else 1
        elif name in _MATH2:
            n = 2
        else:
            self.fail(node, f"math.{name} is not supported in kernels")
        args = self.args(node, n, f"math.{name}")
        for a in args:
            if a.ty not in SCALARS:
                self.fail(node, f"math.{name} needs numbers")
        ft = "float32" if all(a.ty == "float32" or (isinstance(a, ir.Const) and a.weak and a.ty != "float32")
                              for a in args) and any(a.ty == "float32" for a in args) else "float64"
        if name in _MATH_PRED:
            if args[0].ty not in FLOATS:
                return ir.Const(name == "isfinite", "bool")
            return ir.Call(name, [args[0]], "bool")
        if name in _MATH_TOINT:
            if args[0].ty not in FLOATS:
                return self.cast(args[0], "int64", node)
            return ir.Cast(ir.Call(name, [args[0]], args[0].ty), "int64")
        fargs = [self.cast(a, ft, node) for a in args]
        if name == "log" and len(args) == 2:
            return ir.Bin("/", ir.Call("log", fargs[:1], ft), ir.Call("log", fargs[1:], ft), ft, ft)
        if name in ("radians", "degrees"):
            k = math.pi / 180 if name == "radians" else 180 / math.pi
            return ir.Bin("*", fargs[0], ir.Const(k, ft), ft, ft)
        return ir.Call({"gamma": "tgamma", "fabs": "fabs"}.get(name, name), fargs, ft)

    def minmax(self, which, node):
        if node.keywords or len(node.args) < 2:
            self.fail(node, f"{which}() in kernels takes two or more numbers")
        vals = [self.scalar(self.expr(a), a) for a in node.args]
        if all(isinstance(v, ir.Const) and v.weak for v in vals):  # Python literals stay Python values
            v = (min if which == "min" else max)(v.value for v in vals)
            return ir.Const(v, _const_type(v), True)
        acc = vals[0]
        for v in vals[1:]:
            wa = isinstance(acc, ir.Const) and acc.weak
            wb = isinstance(v, ir.Const) and v.weak
            t = promote(acc.ty, v.ty, wa, wb) if not (wa and wb) else ("float64" if "float64" in (acc.ty, v.ty) else "int64")
            acc = ir.Call(which, [self.cast(acc, t, node), self.cast(v, t, node)], t)
        return acc

    def abs_call(self, node):
        (a,) = self.args(node, 1, "abs()")
        if isinstance(a, ir.Const) and a.weak:
            return ir.Const(abs(a.value), _const_type(abs(a.value)), True)
        t = "int64" if a.ty == "bool" else a.ty
        return ir.Call("fabs" if t in FLOATS else "abs", [self.cast(a, t, node)], t)

    def intrinsic(self, name, node):
        if name in ("grid", "gridsize"):
            (n,) = self.args(node, 1, f"em.{name}")
            if not (isinstance(n, ir.Const) and n.value in (1, 2, 3)):
                self.fail(node, f"em.{name}(ndim) needs a constant ndim of 1, 2 or 3")
            items = []
            for d in range(n.value):
                if name == "grid":
                    bd = ir.Bin("*", ir.Special("bid", d), ir.Special("bdim", d), "int64", "int64")
                    items.append(ir.Bin("+", ir.Special("tid", d), bd, "int64", "int64"))
                else:
                    items.append(ir.Bin("*", ir.Special("bdim", d), ir.Special("gdim", d), "int64", "int64"))
            return items[0] if len(items) == 1 else ir.TupleV(items)
        if name.startswith("atomic."):
            return self.atomic(name.split(".")[1], node)
        if name == "syncthreads":
            self.fail(node, "em.syncthreads() is a statement; it has no value")
        if name in ("shared.array", "local.array"):
            self.fail(node, f"em.{name}() must be assigned to a name directly (s = em.{name}(shape, dtype))")
        self.fail(node, f"em.{name} cannot be called")

    def atomic(self, op, node):
        n = 4 if op == "cas" else 3
        if node.keywords or len(node.args) != n:
            self.fail(node, f"em.atomic.{op} takes (array, index, {'old, new' if op == 'cas' else 'value'})")
        arr = self.expr(node.args[0])
        if not isinstance(arr, ir.ArrRef):
            self.fail(node, f"em.atomic.{op}: the first argument must be an array")
        if arr.ty.dtype not in _ATOMIC_TYPES:
            self.fail(node, f"em.atomic.{op} supports int32, uint32, int64, uint64, float32 and float64 "
                            f"arrays, not {arr.ty.dtype}")
        if op in ("cas",) and arr.ty.dtype in FLOATS:
            self.fail(node, "em.atomic.cas supports integer arrays only")
        idx = self.indices(node.args[1], arr, node)
        vals = [self.cast(self.scalar(self.expr(a), a), arr.ty.dtype, a) for a in node.args[2:]]
        self.mark_written(arr)
        return ir.Atomic(op, arr, idx, vals)

    def device_call(self, disp, node):
        if not disp.device:
            self.fail(node, f"'{disp.__name__}' is a kernel: kernels cannot call kernels, only "
                            "@em.jit(device=True) functions")
        if node.keywords:
            self.fail(node, "keyword arguments are not supported in calls to device functions")
        args = []
        for a in node.args:
            v = self.expr(a)
            if isinstance(v, ir.ArrRef):
                args.append(v)
            else:
                args.append(self.scalar(v, a))
        types = tuple(a.ty.as_param() if isinstance(a, ir.ArrRef) else a.ty for a in args)
        callee = self.registry.device(disp, types, node, self)
        for f in callee.devfuncs + [callee]:
            if f not in self.fn.devfuncs:
                self.fn.devfuncs.append(f)
        self.fn.uses_sync |= callee.uses_sync
        self.fn.uses_print |= callee.uses_print
        for (pname, _, pt), a in zip(callee.params, args):
            if isinstance(a, ir.ArrRef) and pname in callee.written:
                self.mark_written(a)
        return ir.DevCall(callee, args, callee.ret or "void")


class Registry:
    """Specialises device functions called during one compilation (shared
    by the kernel and everything it calls), detecting recursion."""

    def __init__(self, boundscheck):
        self.boundscheck = boundscheck
        self.done = {}
        self.active = set()

    def device(self, disp, types, node, caller):
        key = (id(disp), types)
        fn = self.done.get(key)
        if fn is not None:
            return fn
        if key in self.active:
            caller.fail(node, f"recursive call to '{disp.__name__}': recursion is not supported in kernels")
        self.active.add(key)
        try:
            cname = f"d{len(self.done)}_{disp.__name__}"
            lw = Lowerer(disp.source(), types, "device", self, cname, self.boundscheck)
            fn = lw.lower()
        finally:
            self.active.discard(key)
        self.done[key] = fn
        return fn


def lower_function(src, argtypes, kind, boundscheck=False, cname=None):
    """Lower src for argtypes; returns (ir.Function, lowerer)."""
    reg = Registry(boundscheck)
    lw = Lowerer(src, tuple(argtypes), kind, reg, cname or "k_" + src.name, boundscheck)
    fn = lw.lower()
    return fn, lw


__all__ = ["Source", "Lowerer", "Registry", "lower_function"]
