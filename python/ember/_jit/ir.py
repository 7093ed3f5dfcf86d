"""The typed IR between the Python AST and rendered C: expressions carry
their type (.ty); statements hold expressions.  Built by lower.py, turned
into C or CUDA C by render.py."""


class Node:
    __slots__ = ()

    def __repr__(self):
        fields = ", ".join(f"{s}={getattr(self, s)!r}" for s in self.__slots__)
        return f"{type(self).__name__}({fields})"


# Expressions ---------------------------------------------------------------
class Const(Node):
    __slots__ = ("value", "ty", "weak")

    def __init__(self, value, ty, weak=False):
        self.value, self.ty, self.weak = value, ty, weak


class Var(Node):
    __slots__ = ("cname", "ty")

    def __init__(self, cname, ty):
        self.cname, self.ty = cname, ty


class Special(Node):
    """threadIdx/blockIdx/blockDim/gridDim component: reg in tid bid bdim gdim."""
    __slots__ = ("reg", "dim", "ty")

    def __init__(self, reg, dim):
        self.reg, self.dim, self.ty = reg, dim, "int64"


class Bin(Node):
    """a op b; a and b already cast to the operation type `opty`."""
    __slots__ = ("op", "a", "b", "opty", "ty")

    def __init__(self, op, a, b, opty, ty):
        self.op, self.a, self.b, self.opty, self.ty = op, a, b, opty, ty


class Cmp(Node):
    __slots__ = ("op", "a", "b", "ty")

    def __init__(self, op, a, b):
        self.op, self.a, self.b, self.ty = op, a, b, "bool"


class Logic(Node):
    __slots__ = ("op", "items", "ty")

    def __init__(self, op, items):
        self.op, self.items, self.ty = op, items, "bool"


class Unary(Node):
    """op in 'neg', 'inv', 'not'."""
    __slots__ = ("op", "a", "ty")

    def __init__(self, op, a, ty):
        self.op, self.a, self.ty = op, a, ty


class Cast(Node):
    __slots__ = ("a", "ty")

    def __init__(self, a, ty):
        self.a, self.ty = a, ty


class Call(Node):
    """A math or helper function; `fn` is a generic name the renderer maps."""
    __slots__ = ("fn", "args", "ty")

    def __init__(self, fn, args, ty):
        self.fn, self.args, self.ty = fn, args, ty


class Select(Node):
    __slots__ = ("cond", "a", "b", "ty")

    def __init__(self, cond, a, b, ty):
        self.cond, self.a, self.b, self.ty = cond, a, b, ty


class ArrRef(Node):
    """An array value: parameter, shared or local array (type ArrayT)."""
    __slots__ = ("cname", "ty")

    def __init__(self, cname, ty):
        self.cname, self.ty = cname, ty


class Load(Node):
    __slots__ = ("arr", "idx", "ty")

    def __init__(self, arr, idx):
        self.arr, self.idx, self.ty = arr, idx, arr.ty.dtype


class Shape(Node):
    __slots__ = ("arr", "k", "ty")

    def __init__(self, arr, k):
        self.arr, self.k, self.ty = arr, k, "int64"


class DevCall(Node):
    __slots__ = ("fn", "args", "ty")

    def __init__(self, fn, args, ty):
        self.fn, self.args, self.ty = fn, args, ty


class Atomic(Node):
    __slots__ = ("op", "arr", "idx", "vals", "ty")

    def __init__(self, op, arr, idx, vals):
        self.op, self.arr, self.idx, self.vals, self.ty = op, arr, idx, vals, arr.ty.dtype


class TupleV(Node):
    """A tuple value (em.grid(2), a.shape, literal tuples): only unpacked or
    indexed by a constant; never stored."""
    __slots__ = ("items", "ty")

    def __init__(self, items):
        self.items, self.ty = items, "tuple"


class Str(Node):
    __slots__ = ("s", "ty")

    def __init__(self, s):
        self.s, self.ty = s, "str"


# Statements ----------------------------------------------------------------
class Assign(Node):
    __slots__ = ("var", "value")

    def __init__(self, var, value):
        self.var, self.value = var, value


class Store(Node):
    __slots__ = ("arr", "idx", "value")

    def __init__(self, arr, idx, value):
        self.arr, self.idx, self.value = arr, idx, value


class If(Node):
    __slots__ = ("cond", "body", "orelse")

    def __init__(self, cond, body, orelse):
        self.cond, self.body, self.orelse = cond, body, orelse


class For(Node):
    """for var in range(start, stop, step); step_sign is +1/-1 when known."""
    __slots__ = ("var", "start", "stop", "step", "step_sign", "body", "counter")

    def __init__(self, var, start, stop, step, step_sign, body, counter):
        self.var, self.start, self.stop, self.step = var, start, stop, step
        self.step_sign, self.body, self.counter = step_sign, body, counter


class While(Node):
    __slots__ = ("cond", "body")

    def __init__(self, cond, body):
        self.cond, self.body = cond, body


class Break(Node):
    __slots__ = ()


class Continue(Node):
    __slots__ = ()


class Return(Node):
    __slots__ = ("value",)

    def __init__(self, value):
        self.value = value


class ExprStmt(Node):
    __slots__ = ("value",)

    def __init__(self, value):
        self.value = value


class Print(Node):
    __slots__ = ("items",)

    def __init__(self, items):
        self.items = items


class Sync(Node):
    __slots__ = ()


class DeclArray(Node):
    """A shared or local array; offset: byte offset in the block's static
    shared memory (CPU)."""
    __slots__ = ("arr", "offset")

    def __init__(self, arr, offset):
        self.arr, self.offset = arr, offset


class Function:
    """A lowered function: a kernel, a device function or a plain function."""

    def __init__(self, name, cname, kind):
        self.name, self.cname, self.kind = name, cname, kind
        self.params = []        # (python name, cname, type)
        self.locals = {}        # cname -> type
        self.body = []
        self.ret = None         # return type (None: no value)
        self.uses_sync = False
        self.uses_print = False
        self.shared_bytes = 0   # static shared memory per block
        self.devfuncs = []      # Functions this one calls, in dependency order
        self.written = set()    # names of array parameters stored to
        self.boundscheck = False
