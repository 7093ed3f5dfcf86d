"""Typed IR -> C source for the CPU, CUDA C for NVRTC or OpenCL C.

One renderer, three dialects (tinygrad's cstyle idea): the dialect table in
src/codegen/dialect.c (through the extension, _ember.dialect) says how each
dialect spells the thread registers, barriers, shared memory and the kernel
head, and src/codegen/ holds each dialect's prelude (_ember.jit_prelude:
types, Python/NumPy-semantics helpers, atomics); everything else
(arithmetic, casts, indexing, loops) is written once here.
"""
from .. import _ember
from . import ir
from .types import BITS, CTYPE, FLOATS, INTS, UNSIGNED, ITEMSIZE

class Dialect:
    """The spellings of one target, from the dialect table in src/codegen/dialect.c
    (through the extension), and the target's @em.jit prelude (src/codegen/
    jit_prelude_*).  What remains here is structure, not spelling: the C dialect
    passes the launch context and the thread's indices as parameters, prints
    through the context, and places shared arrays in the launcher's block memory."""

    def __init__(self, name):
        self.name = name
        self.cuda = name == "cuda"
        self.opencl = name == "opencl"
        # CUDA and OpenCL: the context is a struct in the kernel; C: the launcher's
        self.device = self.cuda or self.opencl
        self.t = _ember.dialect(name)

    def prelude(self):
        return _ember.jit_prelude(self.name)

    def special(self, reg, d):
        field = {"tid": "local_id", "bid": "group_id", "bdim": "local_size",
                 "gdim": "num_groups"}[reg]
        r = self.t[field].replace("%c", "xyz"[d]).replace("%d", str(d))
        # The C dialect's registers are em_i64 fields already; the others are
        # 32-bit unsigned and are widened before any arithmetic.
        return r if self.name == "c" else f"((em_i64){r})"

    def ctx_params(self):
        return ["em_ctx *em_c"] if self.device else ["em_ctx *em_c", "em_ix em_i"]

    def ctx_args(self):
        return ["em_c"] if self.device else ["em_c", "em_i"]

    def space(self, t):
        """OpenCL's address-space qualifier of array type t's pointer ("" elsewhere):
        OpenCL 1.2 has no generic space, so a pointer says where it points."""
        if not self.opencl:
            return ""
        return {"global": "__global ", "local": "__local ", "private": ""}[space_of(t)]


def space_of(t):
    """Where an array of type t lives: 'global' (kernel arguments), 'local'
    (shared arrays) or 'private' (em.local.array)."""
    if t.kind in ("shared", "dynshared"):
        return "local"
    if t.kind == "local":
        return "private"
    return t.space


_PRELUDES = {}
_DIALECTS = {}


def dialect(name):
    d = _DIALECTS.get(name)
    if d is None:
        d = _DIALECTS[name] = Dialect(name)
    return d


def prelude(name):
    p = _PRELUDES.get(name)
    if p is None:
        p = _PRELUDES[name] = dialect(name).prelude()
    return p


def _c_string(s):
    out = []
    for b in s.encode("utf-8"):
        c = chr(b)
        if c == "%":
            out.append("%%")
        elif c in '"\\':
            out.append("\\" + c)
        elif 32 <= b < 127:
            out.append(c)
        else:
            out.append(f"\\{b:03o}")
    return "".join(out)


def _float_lit(v, t):
    if v != v:
        s = "EM_NAN"
    elif v in (float("inf"), float("-inf")):
        s = "EM_INF" if v > 0 else "(-EM_INF)"
    else:
        s = repr(float(v))
        if "e" not in s and "." not in s:
            s += ".0"
    return f"(({CTYPE[t]}){s})"


class Renderer:
    def __init__(self, name):
        self.d = dialect(name)
        self.hoisted = []  # OpenCL: the kernel's __local declarations

    # -- expressions ---------------------------------------------------------------
    def e(self, x):
        return getattr(self, "e_" + type(x).__name__)(x)

    def e_Const(self, x):
        t, v = x.ty, x.value
        if t == "bool":
            return "((em_b)1)" if v else "((em_b)0)"
        if t in FLOATS:
            return _float_lit(float(v), t)
        v = int(v)
        if t == "uint64":
            return f"((em_u64){v}ULL)"
        if t == "int64":
            return "((em_i64)(-9223372036854775807LL - 1))" if v == -2**63 else f"((em_i64){v}LL)"
        return f"(({CTYPE[t]}){v})"

    def e_Var(self, x):
        return x.cname

    def e_Special(self, x):
        return self.d.special(x.reg, x.dim)

    def e_Bin(self, x):
        a, b, t, op = self.e(x.a), self.e(x.b), x.opty, x.op
        c = CTYPE[t]
        if t in INTS and op in "+-*":
            return f"(({c})((em_u64)({a}) {op} (em_u64)({b})))"
        if t == "bool" or t in INTS:
            return f"(({c})(({a}) {op} ({b})))"
        return f"(({a}) {op} ({b}))"

    def e_Cmp(self, x):
        return f"(({self.e(x.a)}) {x.op} ({self.e(x.b)}))"

    def e_Logic(self, x):
        op = " && " if x.op == "and" else " || "
        return "(" + op.join(f"({self.e(i)})" for i in x.items) + ")"

    def e_Unary(self, x):
        a, c = self.e(x.a), CTYPE.get(x.ty)
        if x.op == "not":
            return f"(!({a}))"
        if x.op == "inv":
            return f"(({c})~({a}))"
        if x.ty in INTS:
            return f"(({c})(0 - (em_u64)({a})))"
        return f"(-({a}))"

    def e_Cast(self, x):
        return self.conv(self.e(x.a), x.a.ty, x.ty)

    def conv(self, a, f, t):
        if f == t:
            return a
        c = CTYPE[t]
        if t == "bool":
            return f"(({a}) != 0)"
        if f in FLOATS and t in INTS:
            h = "em_f2u64" if t in UNSIGNED else "em_f2i64"
            return f"(({c}){h}((em_f64)({a})))"
        return f"(({c})({a}))"

    def e_Call(self, x):
        fn, t = x.fn, x.ty
        args = [self.e(a) for a in x.args]
        if fn in ("floordiv", "mod", "pow", "shl", "shr") and t in INTS:
            # 8..32-bit operands in 32-bit helpers (cheaper division, above all on GPUs):
            # their results, cast back to t, are those of t's own arithmetic
            bits = "32" if BITS[t] <= 32 and fn != "pow" else "64"
            w = ("u" if t in UNSIGNED else "i") + bits
            return f"(({CTYPE[t]})em_{fn}_{w}((em_{w})({args[0]}), (em_{w})({args[1]})))"
        if fn in ("floordiv", "mod"):
            return f"em_{fn}_{t}({args[0]}, {args[1]})"
        if fn in ("min", "max", "abs"):
            return f"em_{fn}_{t}({', '.join(args)})"
        if fn in ("isnan", "isinf", "isfinite"):
            return f"(({fn}({args[0]})) != 0)"
        ft = x.args[0].ty if fn in ("floor", "ceil", "trunc") else t
        suffix = "f" if ft == "float32" else ""
        return f"{fn}{suffix}({', '.join(args)})"

    def e_Select(self, x):
        return f"(({self.e(x.cond)}) ? ({self.e(x.a)}) : ({self.e(x.b)}))"

    def dims(self, arr):
        """(shape exprs, stride exprs) of an array as C text."""
        t, c = arr.ty, arr.cname
        if t.kind == "param":
            return [f"{c}_n{k}" for k in range(t.ndim)], [f"{c}_s{k}" for k in range(t.ndim)]
        if t.kind == "dynshared":
            return [f"{c}_n0"], ["1"]
        shape = t.shape
        strides, s = [], 1
        for n in reversed(shape):
            strides.insert(0, str(s))
            s *= n
        return [str(n) for n in shape], strides

    def offset(self, arr, idx):
        shape, strides = self.dims(arr)
        terms = []
        for i, n, s in zip(idx, shape, strides):
            if self.bc:
                e = f"em_bc(em_c, (em_i64)({self.e(i)}), {n})"
            elif isinstance(i, ir.Const) and i.value >= 0:
                e = str(int(i.value))
            elif i.ty in UNSIGNED:
                e = f"(em_i64)({self.e(i)})"
            else:
                e = f"em_wrap({self.e(i)}, {n})"
            terms.append(e if s == "1" else f"{e} * {s}")
        return " + ".join(terms) if terms else "0"

    def elem(self, arr, idx):
        off = self.offset(arr, idx)
        c = CTYPE[arr.ty.dtype]
        if self.bc and self.d.opencl:
            # no pointer to a scratch word in another address space: index 0 once out of
            # bounds (s_Store skips the store)
            return f"{arr.cname}_p[em_bcx(em_c, {off})]"
        if self.bc:
            return f"(*({c} *)em_bcp(em_c, (void *){arr.cname}_p, {off}, sizeof({c})))"
        return f"{arr.cname}_p[{off}]"

    def e_Load(self, x):
        return self.elem(x.arr, x.idx)

    def e_Shape(self, x):
        return self.dims(x.arr)[0][x.k]

    def e_DevCall(self, x):
        args = self.d.ctx_args()
        for a in x.args:
            if isinstance(a, ir.ArrRef):
                shape, strides = self.dims(a)
                args += [f"{a.cname}_p"] + shape + strides
            else:
                args.append(self.e(a))
        return f"{x.fn.cname}({', '.join(args)})"

    def e_Atomic(self, x):
        vals = ", ".join(self.e(v) for v in x.vals)
        sfx = ""
        if self.d.opencl:
            sfx = {"global": "_g", "local": "_l", "private": None}[space_of(x.arr.ty)]
            if sfx is None:
                raise _ember.CompileError(f"em.atomic.{x.op} on a local (private) array: OpenCL "
                                          "has atomics on global and shared memory only")
        return f"em_atomic_{x.op}_{x.arr.ty.dtype}{sfx}(&{self.elem(x.arr, x.idx)}, {vals})"

    # -- statements ----------------------------------------------------------------
    def block(self, stmts, ind):
        out = []
        for s in stmts:
            out.extend(getattr(self, "s_" + type(s).__name__)(s, ind))
        return out

    def s_Assign(self, s, ind):
        return [f"{ind}{s.var.cname} = {self.e(s.value)};"]

    def s_Store(self, s, ind):
        if self.bc and self.d.opencl:
            c = CTYPE[s.arr.ty.dtype]
            return [f"{ind}{{",
                    f"{ind}    {c} em_v = {self.e(s.value)};",
                    f"{ind}    em_i64 em_o = {self.offset(s.arr, s.idx)};",
                    f"{ind}    if (!em_c->oob) {s.arr.cname}_p[em_o] = em_v;",
                    f"{ind}}}"]
        return [f"{ind}{self.elem(s.arr, s.idx)} = {self.e(s.value)};"]

    def s_If(self, s, ind):
        out = [f"{ind}if ({self.e(s.cond)}) {{"] + self.block(s.body, ind + "    ")
        if s.orelse:
            out += [f"{ind}}} else {{"] + self.block(s.orelse, ind + "    ")
        return out + [f"{ind}}}"]

    def s_For(self, s, ind):
        c, stop, step = s.counter.cname, self.e(s.stop), self.e(s.step)
        if s.step_sign == 1:
            cond = f"{c} < {stop}"
        elif s.step_sign == -1:
            cond = f"{c} > {stop}"
        else:
            cond = f"({step} > 0 ? {c} < {stop} : {c} > {stop})"
        return ([f"{ind}for ({c} = {self.e(s.start)}; {cond}; {c} += {step}) {{"]
                + self.block(s.body, ind + "    ") + [f"{ind}}}"])

    def s_While(self, s, ind):
        return [f"{ind}while ({self.e(s.cond)}) {{"] + self.block(s.body, ind + "    ") + [f"{ind}}}"]

    def s_Break(self, s, ind):
        return [f"{ind}break;"]

    def s_Continue(self, s, ind):
        return [f"{ind}continue;"]

    def s_Return(self, s, ind):
        return [f"{ind}return {self.e(s.value)};" if s.value is not None else f"{ind}return;"]

    def s_ExprStmt(self, s, ind):
        return [f"{ind}(void)({self.e(s.value)});"]

    def s_Sync(self, s, ind):
        return [f"{ind}{self.d.t['barrier']}"]

    def s_Print(self, s, ind, bools=None):
        if self.d.opencl and bools is None:
            # OpenCL's %s takes a string literal only (NVIDIA's queue died on the ternary
            # of two): each bool is evaluated once, and its word goes into the format of
            # one printf per combination
            nb = [it for it in s.items if not isinstance(it, ir.Str) and it.ty == "bool"]
            if nb:
                out = [f"{ind}{{"]
                out += [f"{ind}    const int em_pb{k} = ({self.e(it)}) != 0;"
                        for k, it in enumerate(nb)]
                out += self._print_combos(s, ind + "    ", len(nb), [])
                return out + [f"{ind}}}"]
        fmt, args = [], []
        nbool = 0
        for it in s.items:
            if isinstance(it, ir.Str):
                fmt.append(_c_string(it.s))
            elif it.ty == "bool" and bools is not None:
                fmt.append("True" if bools[nbool] else "False")
                nbool += 1
            elif it.ty == "bool":
                fmt.append("%s")
                args.append(f'({self.e(it)}) ? "True" : "False"')
            elif it.ty in FLOATS:
                fmt.append("%g")
                # OpenCL's printf promotes float to double where the device has double
                args.append(f"({self.e(it)})" if self.d.opencl and it.ty == "float32"
                            else f"(double)({self.e(it)})")
            elif self.d.opencl:  # OpenCL's long is 64-bit: %ld; "ll" is not OpenCL's
                fmt.append("%lu" if it.ty in UNSIGNED else "%ld")
                args.append(f"(ulong)({self.e(it)})" if it.ty in UNSIGNED
                            else f"(long)({self.e(it)})")
            elif it.ty in UNSIGNED:
                fmt.append("%llu")
                args.append(f"(unsigned long long)({self.e(it)})")
            else:
                fmt.append("%lld")
                args.append(f"(long long)({self.e(it)})")
        lit = '"' + " ".join(fmt) + '\\n"'
        rest = "".join(", " + a for a in args)
        if self.d.device:
            return [f"{ind}printf({lit}{rest});"]
        return [f"{ind}em_c->print(em_c, {lit}{rest});"]

    def _print_combos(self, s, ind, n, chosen):
        """The printf of each combination of the print's n bools (em_pb0...), by if/else."""
        if len(chosen) == n:
            return self.s_Print(s, ind, chosen)
        k = len(chosen)
        return ([f"{ind}if (em_pb{k}) {{"] + self._print_combos(s, ind + "    ", n, chosen + [1])
                + [f"{ind}}} else {{"] + self._print_combos(s, ind + "    ", n, chosen + [0])
                + [f"{ind}}}"])

    def s_DeclArray(self, s, ind):
        a, t = s.arr, s.arr.ty
        c = CTYPE[t.dtype]
        if t.kind == "local":
            n = 1
            for k in t.shape:
                n *= k
            return [f"{ind}{c} {a.cname}_p[{n}];"]
        if t.kind == "dynshared":
            if self.d.opencl:
                # the kernel's __local argument itself where it is in scope (the kernel's
                # body), else the context's copy of it
                src = "em_dynshm" if getattr(self, "in_kernel", False) else "em_c->dynshm"
                return [f"{ind}__local {c} *{a.cname}_p = (__local {c} *){src};",
                        f"{ind}em_i64 {a.cname}_n0 = em_c->dyn / (em_i64)sizeof({c});"]
            if self.d.cuda:
                return [f"{ind}{c} *{a.cname}_p = ({c} *)em_dynshm;",
                        f"{ind}em_i64 {a.cname}_n0 = em_c->dyn / (em_i64)sizeof({c});"]
            return [f"{ind}{c} *{a.cname}_p = ({c} *)(em_c->shared + {self.static_shared});",
                    f"{ind}em_i64 {a.cname}_n0 = em_c->shared_dyn / (em_i64)sizeof({c});"]
        n = 1
        for k in t.shape:
            n *= k
        if self.d.opencl:
            # __local variables belong at kernel scope: hoisted there by render_opencl
            self.hoisted.append(f"    {self.d.t['shared']} {c} {a.cname}_p[{n}];")
            return []
        if self.d.cuda:
            return [f"{ind}{self.d.t['shared']} {c} {a.cname}_p[{n}];"]
        return [f"{ind}{c} *{a.cname}_p = ({c} *)(em_c->shared + {s.offset});"]

    # -- functions -------------------------------------------------------------------
    def params(self, fn):
        out = []
        for _, c, t in fn.params:
            if hasattr(t, "ndim"):
                out.append(f"{self.d.space(t)}{CTYPE[t.dtype]} *{c}_p")
                out += [f"em_i64 {c}_n{k}" for k in range(t.ndim)]
                out += [f"em_i64 {c}_s{k}" for k in range(t.ndim)]
            else:
                out.append(f"{CTYPE[t]} {c}")
        return out

    def function(self, fn, name=None):
        """The C function for fn: `R name(em_ctx *em_c, params...)`."""
        self.bc = fn.boundscheck
        self.static_shared = (fn.shared_bytes + 15) // 16 * 16
        ret = CTYPE[fn.ret] if fn.ret else "void"
        head = f"EM_DEV {ret} {name or fn.cname}({', '.join(self.d.ctx_params() + self.params(fn))}) {{"
        decls = [f"    {CTYPE[t]} {c} = 0;" for c, t in sorted(fn.locals.items())]
        body = self.block(fn.body, "    ")
        return "\n".join([head] + decls + body + ["}", ""])


def _unpack_c(fn, slots="em_a"):
    """C statements reading fn's parameters from the launch slots."""
    out, k = [], 0
    for _, c, t in fn.params:
        if hasattr(t, "ndim"):
            ct = CTYPE[t.dtype]
            out.append(f"    {ct} *{c}_p = ({ct} *)(intptr_t){slots}[{k}].i;")
            k += 1
            for d in range(t.ndim):
                out.append(f"    em_i64 {c}_n{d} = {slots}[{k}].i;")
                k += 1
            if t.layout == "C":  # strides from the shape: the compiler sees the unit stride
                out += _contig_strides(c, t.ndim)
                k += t.ndim
            else:
                for d in range(t.ndim):
                    out.append(f"    em_i64 {c}_s{d} = {slots}[{k}].i;")
                    k += 1
        else:
            field = "d" if t in FLOATS else "u" if t == "uint64" else "i"
            out.append(f"    {CTYPE[t]} {c} = ({CTYPE[t]}){slots}[{k}].{field};")
            k += 1
    return out


def _contig_strides(c, ndim):
    out = []
    for d in reversed(range(ndim)):
        v = "1" if d == ndim - 1 else f"{c}_s{d + 1} * {c}_n{d + 1}"
        out.append(f"    const em_i64 {c}_s{d} = {v};")
    return out


def _call_args(fn, dialect):
    out = Dialect(dialect).ctx_args()
    for _, c, t in fn.params:
        if hasattr(t, "ndim"):
            out += [f"{c}_p"] + [f"{c}_n{d}" for d in range(t.ndim)] + [f"{c}_s{d}" for d in range(t.ndim)]
        else:
            out.append(c)
    return ", ".join(out)


def _tid_deps(e, deps):
    """The thread-index dimensions expression e depends on (through locals in deps)."""
    if isinstance(e, ir.Special):
        return {e.dim} if e.reg == "tid" else set()
    if isinstance(e, ir.Var):
        return deps.get(e.cname, set())
    out = set()
    for name in getattr(e, "__slots__", ()):
        v = getattr(e, name)
        for x in (v if isinstance(v, list) else [v]):
            if isinstance(x, ir.Node) and not isinstance(x, ir.ArrRef):
                out |= _tid_deps(x, deps)
    return out


def _innermost_thread_dim(fn):
    """0 or 1: the thread index that moves along the last (contiguous)
    dimension of most array accesses, by following which thread-index
    components each local is computed from."""
    deps, votes = {}, [0, 0]

    def walk(stmts, count):
        for st in stmts:
            if isinstance(st, ir.Assign):
                deps[st.var.cname] = deps.get(st.var.cname, set()) | _tid_deps(st.value, deps)
            if count:
                for e in _accesses(st):
                    d = _tid_deps(e.idx[-1], deps)
                    if d in ({0}, {1}):
                        votes[d.pop()] += 1
            for attr in ("body", "orelse"):
                walk(getattr(st, attr, None) or [], count)

    walk(fn.body, False)  # twice: values carried around loops
    walk(fn.body, True)
    return 1 if votes[1] > votes[0] else 0


def _accesses(node):
    """Loads and stores of arrays with 2+ dimensions in a statement (not its sub-blocks)."""
    out = []
    todo = [node]
    while todo:
        x = todo.pop()
        if isinstance(x, (ir.Load, ir.Store, ir.Atomic)) and x.arr.ty.ndim >= 2:
            out.append(x)
        for name in getattr(x, "__slots__", ()):
            if name in ("body", "orelse", "arr"):
                continue
            v = getattr(x, name)
            todo.extend(i for i in (v if isinstance(v, list) else [v]) if isinstance(i, ir.Node))
    return out


def render_cpu(fn, entry):
    """C source for fn (a kernel, or a plain function run as one thread):
    `entry`_range and `entry`_thread, per include/ember/kernel.h."""
    r = Renderer("c")
    parts = [prelude("c")]
    for d in fn.devfuncs:
        parts.append(r.function(d))
    parts.append(r.function(fn, entry + "_body"))
    unpack = _unpack_c(fn)
    call = f"{entry}_body({_call_args(fn, 'c')})"
    if fn.kind == "plain" and fn.ret:
        k = sum(1 + 2 * t.ndim if hasattr(t, "ndim") else 1 for _, _, t in fn.params)
        call = f"*({CTYPE[fn.ret]} *)(intptr_t)em_a[{k}].i = {call}"
    yx = ["            for (em_i64 em_y = 0; em_y < em_d1; em_y++)",
          "                for (em_i64 em_x = 0; em_x < em_d0; em_x++) {"]
    if not fn.uses_print and _innermost_thread_dim(fn) == 1:
        # The kernel indexes arrays' contiguous dimension with the y thread index: run y
        # innermost (threads of a block are unordered; only print shows the order).
        yx = ["            for (em_i64 em_x = 0; em_x < em_d0; em_x++)",
              "                for (em_i64 em_y = 0; em_y < em_d1; em_y++) {"]
    parts.append("\n".join(
        [f"void {entry}_range(em_jit_ctx *em_c, const em_slot *em_a, em_i64 em_b0, em_i64 em_b1) {{"]
        + unpack +
        ["    em_ix em_i;",
         "    em_divz = 0;",
         "    for (int d = 0; d < 3; d++) em_i.bdim[d] = em_c->bdim[d], em_i.gdim[d] = em_c->gdim[d];",
         "    const em_i64 em_g0 = em_i.gdim[0], em_g1 = em_i.gdim[1];",
         "    const em_i64 em_d0 = em_i.bdim[0], em_d1 = em_i.bdim[1], em_d2 = em_i.bdim[2];",
         "    em_i.bid[0] = em_b0 % em_g0;",
         "    em_i.bid[1] = em_b0 / em_g0 % em_g1;",
         "    em_i.bid[2] = em_b0 / (em_g0 * em_g1);",
         "    if (em_d1 == 1 && em_d2 == 1 && em_g1 == 1 && em_i.gdim[2] == 1) {  /* 1-d: one flat loop */",
         "        em_i.tid[1] = em_i.tid[2] = 0;",
         "        for (em_i64 em_blk = em_b0; em_blk < em_b1; em_blk++) {",
         "            em_i.bid[0] = em_blk;",
         "            for (em_i64 em_x = 0; em_x < em_d0; em_x++) {",
         "                em_i.tid[0] = em_x;",
         f"                {call};",
         "            }",
         "        }",
         "        goto em_done;",
         "    }",
         "    for (em_i64 em_blk = em_b0; em_blk < em_b1; em_blk++) {",
         "        for (em_i64 em_z = 0; em_z < em_d2; em_z++)"] + yx + [
         "                    em_i.tid[0] = em_x, em_i.tid[1] = em_y, em_i.tid[2] = em_z;",
         f"                    {call};",
         "                }",
         "        if (++em_i.bid[0] == em_g0) {  /* the next block id, without dividing */",
         "            em_i.bid[0] = 0;",
         "            if (++em_i.bid[1] == em_g1) em_i.bid[1] = 0, em_i.bid[2]++;",
         "        }",
         "    }",
         "em_done:",
         "    if (em_divz) em_c->divz = 1;",
         "}",
         f"void {entry}_thread(em_jit_ctx *em_c, const em_slot *em_a) {{"]
        + unpack + ["    em_ix em_i;",
                    "    for (int d = 0; d < 3; d++)",
                    "        em_i.tid[d] = em_c->tid[d], em_i.bid[d] = em_c->bid[d], em_i.bdim[d] = em_c->bdim[d], em_i.gdim[d] = em_c->gdim[d];",
                    "    if (em_c->thread == 0) em_divz = 0;  /* a block's first coroutine starts first */"]
        + [f"    {call};",
           "    if (em_divz) em_c->divz = 1, em_divz = 0;  /* coroutines share the OS thread's flag */",
           "}", ""]))
    return "\n".join(parts)


def render_cuda(fn, entry):
    """CUDA C for fn: the kernel `entry`(params..., int *em_err, em_i64 em_dyn)."""
    r = Renderer("cuda")
    parts = [prelude("cuda")]
    for d in fn.devfuncs:
        parts.append(r.function(d))
    parts.append(r.function(fn, entry + "_body"))
    params = r.params(fn) + ["int *em_err", "em_i64 em_dyn"]
    contig = []
    for _, c, t in fn.params:
        if hasattr(t, "ndim") and t.layout == "C":
            for d in range(t.ndim):  # not passed: derived from the shape
                params.remove(f"em_i64 {c}_s{d}")
            contig += _contig_strides(c, t.ndim)
    parts.append("\n".join([
        f'{r.d.t["kernel"]} {entry}({", ".join(params)}) {{'] + contig + [
        "    em_ctx em_cx = {0, em_err, em_dyn};",
        "    em_ctx *em_c = &em_cx;",
        f"    {entry}_body({_call_args(fn, 'cuda')});",
        "}", ""]))
    return "\n".join(parts)


def render_opencl(fn, entry):
    """OpenCL C for fn: the kernel `entry`, its arguments per the em_kargs
    contract of src/backend/backend.h -- each array as its whole buffer and
    the view's byte offset (`__global char *x_d, ulong x_o`: OpenCL passes
    buffers, not pointers into them), then its shape and (not C-contiguous)
    strides; scalars by value; with bounds checking the error word's buffer
    and offset; the dynamic shared bytes and their `__local` buffer.  The
    body is the kernel's own (not a helper's, as for CUDA) because OpenCL C
    declares `__local` arrays at kernel scope only."""
    r = Renderer("opencl")
    parts = [prelude("opencl")]
    for d in fn.devfuncs:
        parts.append(r.function(d))
    r.bc = fn.boundscheck
    r.static_shared = 0
    r.hoisted = []
    r.in_kernel = True
    body = r.block(fn.body, "    ")
    params, unpack = [], []
    for _, c, t in fn.params:
        if hasattr(t, "ndim"):
            ct = CTYPE[t.dtype]
            params += [f"__global char *{c}_d", f"ulong {c}_o"]
            params += [f"em_i64 {c}_n{k}" for k in range(t.ndim)]
            unpack.append(f"    __global {ct} *{c}_p = (__global {ct} *)({c}_d + {c}_o);")
            if t.layout == "C":  # not passed: derived from the shape
                unpack += _contig_strides(c, t.ndim)
            else:
                params += [f"em_i64 {c}_s{k}" for k in range(t.ndim)]
        else:
            params.append(f"{CTYPE[t]} {c}")
    err = "0"
    if fn.boundscheck:
        params += ["__global char *em_errd", "ulong em_erro"]
        err = "(__global int *)(em_errd + em_erro)"
    # uint4: the driver aligns a __local argument's buffer for its pointee type, and NVIDIA's
    # gave a char's (1 byte): the int64 and float arrays cut from it faulted there
    params += ["em_i64 em_dyn", "__local uint4 *em_dynshm"]
    decls = [f"    {CTYPE[t]} {c} = 0;" for c, t in sorted(fn.locals.items())]
    parts.append("\n".join(
        [f'{r.d.t["kernel"]} {entry}({", ".join(params)}) {{'] + unpack + r.hoisted + [
         f"    em_ctx em_cx = {{0, {err}, em_dyn, (__local char *)em_dynshm}};",
         "    em_ctx *em_c = &em_cx;"] + decls + body + ["}", ""]))
    return "\n".join(parts)


def slot_layout(fn):
    """(kinds, ndims, dtypes) for the C launcher: one entry per parameter."""
    kinds, ndims, dtypes = [], [], []
    for name, _, t in fn.params:
        if hasattr(t, "ndim"):
            kinds.append("W" if name in fn.written else "R")
            ndims.append(t.ndim)
            dtypes.append(t.dtype)
        else:
            kinds.append("f" if t in FLOATS else "u" if t == "uint64" else "b" if t == "bool" else "i")
            ndims.append(0)
            dtypes.append(t)
    return kinds, ndims, dtypes


__all__ = ["render_cpu", "render_cuda", "render_opencl", "space_of", "prelude", "slot_layout", "ITEMSIZE"]
