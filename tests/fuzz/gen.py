"""Random programs for the differential fuzzer, generated against NumPy.

gen_program(seed, opts) returns a Program: statements (Python source over M, np, R, A),
each with the operation it exercises, and for each variable the tolerance its comparison
uses.  Generation runs every statement on NumPy as it goes, so later statements pick
operands, axes and indices from the real shapes and dtypes (mostly valid arguments, and
about one in eight deliberately bad: an axis out of range, a shape that does not fit, an
unknown dtype or keyword).  A statement NumPy rejects binds nothing; later ones do not use
it.  The same seed always gives the same program.

Tolerances (the ULP bounds per function, dtype and device of docs/precision.md): a
variable's value is compared exactly while its lineage holds only exact operations (integer and boolean arithmetic, copies and views,
IEEE-exact real float operations: + - * / sqrt, comparisons, min/max, rounding); otherwise
with rtol = k and atol = k * scale, where k sums ULP bound * eps along the lineage (eps of the
coarsest float type each step involves; a reduction over n elements counts n ULPs; complex
* / abs sqrt and friends count 4) and scale is the largest magnitude that entered it (for a
reduction, times n).  Complex arithmetic on non-finite values (where C99 Annex G and NumPy's
formulas differ) and integer 1/0 (undefined) are compared for shape and dtype only.  A discontinuous step (a comparison, floor,
sort, argmax, an integer cast ...) applied to an inexact value makes the result's value
unreliable by design: such variables are compared for shape and dtype only."""
import random
import warnings

import numpy as np

import precision
from runtime import namespace

DTYPES = ["bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
          "float16", "float32", "float64", "complex64", "complex128"]
NUMERIC = DTYPES[1:]
FLOATS = ["float16", "float32", "float64"]

# ULP bounds per function, dtype and device: docs/precision.md's table (precision.py).
# Functions not listed are exact: integer and boolean ops, copies and views, and the
# IEEE-exact float ops.
# Operations that are not one correctly rounded IEEE operation on complex numbers.
COMPLEX_INEXACT = {"multiply", "divide", "true_divide", "reciprocal", "square", "power", "abs",
                   "absolute", "prod", "cumprod", "mean", "nanmean", "std", "var", "sqrt",
                   "matmul", "sum", "cumsum", "nansum", "nancumsum", "linspace"}
# Functions whose relative error grows without bound near a point of their domain (log
# near 1, arcsin near +-1 ...): on an inexact input, compared for shape and dtype only.
ILL_CONDITIONED = {"log", "log2", "log10", "log1p", "arcsin", "arccos", "arctanh", "arccosh",
                   "sqrt", "cbrt", "power", "float_power", "std", "var"}
# Complex functions with branch cuts: discontinuous across them, so an inexact complex input
# that lies on a cut (re(x*x) rounding to -5e-7 or +5e-7) flips the result's sign.
BRANCH_CUT = {"sqrt", "log", "log2", "log10", "log1p", "arcsin", "arccos", "arctan",
              "arcsinh", "arccosh", "arctanh", "power", "float_power"}
# Operations whose result's shape depends on the values.
DATA_SHAPE = {"unique", "nonzero", "argwhere", "flatnonzero", "index.mask", "unique_values",
              "unique_counts", "unique_inverse", "unique_all", "union1d", "intersect1d",
              "setdiff1d", "setxor1d"}
# Operations whose result jumps when an input moves by an ULP.
DISCONTINUOUS = {"floor", "ceil", "trunc", "rint", "round", "sign", "compare", "floor_divide",
                 "remainder", "fmod", "divmod", "argmax", "argmin", "argsort", "sort", "unique",
                 "astype", "nonzero", "searchsorted", "isclose", "count_nonzero", "heaviside",
                 "clip", "maximum", "minimum", "fmax", "fmin", "max", "min", "where", "logical",
                 "nanmax", "nanmin", "all", "any", "setitem_mask", "partition", "argpartition",
                 "digitize", "isin", "union1d", "intersect1d", "setdiff1d", "setxor1d",
                 "histogram", "bincount", "unique_values", "unique_counts", "unique_inverse",
                 "unique_all", "lexsort"}

UNARY = ["abs", "negative", "positive", "sqrt", "square", "exp", "exp2", "expm1", "log", "log2",
         "log10", "log1p", "sin", "cos", "tan", "arcsin", "arctan", "sinh", "tanh", "arcsinh",
         "cbrt", "floor", "ceil", "trunc", "rint", "sign", "reciprocal", "isnan", "isinf",
         "isfinite", "signbit", "logical_not", "invert", "conj", "real", "imag", "deg2rad"]
BINARY = ["add", "subtract", "multiply", "divide", "true_divide", "floor_divide", "remainder",
          "fmod", "power", "maximum", "minimum", "fmax", "fmin", "equal", "not_equal", "less",
          "less_equal", "greater", "greater_equal", "logical_and", "logical_or", "logical_xor",
          "bitwise_and", "bitwise_or", "bitwise_xor", "left_shift", "right_shift", "arctan2",
          "hypot", "copysign", "logaddexp", "heaviside", "gcd", "lcm", "nextafter"]
OPERATORS = ["+", "-", "*", "/", "//", "%", "**", "&", "|", "^", "<", "<=", "==", "!=", ">", ">="]
REDUCE = ["sum", "prod", "mean", "max", "min", "argmax", "argmin", "all", "any", "std", "var",
          "nansum", "nanmax", "nanmin", "nanmean", "count_nonzero", "cumsum", "cumprod",
          "nancumsum"]
SCANS = ("cumsum", "cumprod", "nancumsum")
COMPARE_OPS = {"equal", "not_equal", "less", "less_equal", "greater", "greater_equal", "isnan",
               "isinf", "isfinite", "signbit", "<", "<=", "==", "!=", ">", ">="}
LOGICAL_OPS = {"logical_and", "logical_or", "logical_xor", "logical_not"}


# The sign of a zero from max/min is unspecified: NumPy's float32/float64 SIMD loops return
# the second operand of an equal pair (maximum(0.0, -0.0) is -0.0), its float16 loop and
# Ember the first.  Such zeros are equal, but these functions tell their signs apart.
ZERO_SIGN_FROM = {"maximum", "minimum", "fmax", "fmin", "max", "min", "nanmax", "nanmin",
                  "clip", "partition", "argpartition", "median", "nanmedian", "percentile",
                  "nanpercentile", "quantile", "nanquantile", "unique", "unique_values",
                  "unique_counts", "unique_inverse", "unique_all", "union1d", "intersect1d",
                  "setdiff1d", "setxor1d", "sort"}
ZERO_SIGN_SHOWN = {"copysign", "signbit", "divide", "true_divide", "reciprocal", "arctan2",
                   "nextafter", "floor_divide", "remainder", "fmod", "divmod", "power",
                   "float_power"}


# The sign of a NaN that an arithmetic operation made or passed on (0/0, log of a negative,
# fmod(x, 0), nan + x) is not specified by IEEE 754 (6.3: only copy, negate, abs and copysign
# define it): x86's default NaN is negative, CUDA's positive, and NumPy's own loops differ by
# dtype and by the CPU's SIMD level (on an AVX2 machine its float32 log of -1 is -nan, its
# float64 log +nan; NumPy 2.5.2 on an AVX-512 host gave log10 a NaN of the other sign than
# Ember, seeds 2021672, 2075178).  These functions show it (copysign(7, fmod(0.5, 0.0)) is -7
# on the CPU, 7 on the H200), so of such a NaN they are compared for shape and dtype only.
NAN_SIGN_SHOWN = {"copysign", "signbit"}
# Arithmetic whose NaN results have an unspecified sign (every function but the IEEE sign
# operations; views, copies, indexing and the manipulations move NaNs with their signs).
NAN_SIGN_KEPT = {"abs", "absolute", "fabs", "negative", "positive", "copysign", "conj",
                 "conjugate", "real", "imag", "copy", "setitem"}
NAN_SIGN_MADE = (set(UNARY) | set(BINARY) | set(REDUCE) | {
    "matmul", "diff", "floor_divide", "remainder", "power", "round", "around", "clip",
    "trace", "dot"}) - NAN_SIGN_KEPT


class Var:
    """A variable's tolerance: rtol k, atol k * scale; fragile: shape and dtype only (2: not
    compared, its shape came from unreliable values); copy:
    NumPy gave a scalar (a copy) where Ember gives a 0-d view (integer indexing, as CuPy),
    so a later in-place write may show through on Ember's side only."""
    __slots__ = ("k", "scale", "fragile", "copy", "zsign", "nsign")

    def __init__(self, k=0.0, scale=0.0, fragile=False, copy=False, zsign=False, nsign=False):
        self.k, self.scale, self.fragile, self.copy = k, scale, fragile, copy
        self.zsign = zsign  # may hold a zero whose sign is unspecified (ZERO_SIGN_FROM)
        self.nsign = nsign  # may hold a NaN whose sign is unspecified (NAN_SIGN_MADE)


class Stmt:
    __slots__ = ("text", "op", "bind", "np_error")

    def __init__(self, text, op, bind, np_error):
        self.text, self.op, self.bind, self.np_error = text, op, bind, np_error


class Program:
    def __init__(self, seed):
        self.seed = seed
        self.stmts = []
        self.vars = {}  # name -> Var, for every name NumPy bound at the end
        self.ns = None  # NumPy's namespace at the end

    def source(self, upto=None):
        return "\n".join(s.text for s in self.stmts[:upto])


def _maxabs(x):
    try:
        a = np.asarray(x)
        if a.dtype.kind not in "fc" or a.size == 0:
            return 0.0 if a.dtype.kind not in "iub" or a.size == 0 else float(np.max(np.abs(
                a.astype(np.float64))))
        a = np.abs(a.astype(np.complex128))
        a = a[np.isfinite(a)]
        return float(a.max()) if a.size else 0.0
    except Exception:
        return 0.0


def _float_name(xs, cplx):
    """The table's dtype for a step: its widest float or complex dtype (float64 where none:
    an integer input computes in float64)."""
    names = set()
    for x in xs:
        try:
            names.add(np.asarray(x).dtype.name)
        except Exception:
            pass
    order = ["complex128", "complex64"] if cplx else ["float64", "float32", "float16"]
    return next((n for n in order if n in names), order[0])


def _kind(x):
    try:
        return np.asarray(x).dtype.kind
    except Exception:
        return "O"


def _eps(x):
    try:
        return float(np.finfo(np.asarray(x).dtype).eps)
    except Exception:
        return 0.0


def _finite(x):
    try:
        a = np.asarray(x)
        return a.dtype.kind not in "fc" or bool(np.all(np.isfinite(a)))
    except Exception:
        return True


def _int_sum_overflows(w):
    """Whether sums of the integer weights w may leave w's dtype: NumPy's histogram sums
    weights in float64 and casts the sums into their dtype, an undefined conversion past its
    range (NumPy's own SIMD and scalar cast loops differ there: 4.3e10 -> uint32 is 0 in an
    array of 20 and 4294967286 alone; seed 63003449).  Not for the dtypes whose out-of-range
    conversion Ember gives as NumPy's x86 loops do (int8 to int32, uint8, uint16: through int32,
    docs/architecture.md)."""
    a = np.asarray(w)
    if a.dtype.name not in ("uint32", "int64", "uint64") or not a.size:
        return False
    info, f = np.iinfo(a.dtype), a.astype(np.float64)
    # (at the ends too: int64's are float64 sums that may have rounded onto them)
    hi, lo = f[f > 0].sum(), f[f < 0].sum()
    return bool(hi >= info.max or (lo < 0 and lo <= info.min))


def _has_zero(x):
    a = np.asarray(x)
    return a.size > 0 and bool(np.any(a == 0))


def _int_zero(x, res):
    """Whether x is, or is cast by an integer result's dtype= to, an integer array with a 0."""
    a = np.asarray(x)
    dt = np.asarray(res).dtype if res is not None else a.dtype
    if a.dtype.kind not in "iu" and dt.kind not in "iu":
        return False
    try:
        with np.errstate(all="ignore"), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return _has_zero(a.astype(dt) if dt.kind in "iu" else a)
    except (TypeError, ValueError):
        return _has_zero(a)


def _has_nan(x):
    try:
        a = np.asarray(x)
        return a.dtype.kind in "fc" and bool(np.any(np.isnan(a)))
    except Exception:
        return False


def _inexact(x):
    try:
        return np.asarray(x).dtype.kind in "fc"
    except Exception:
        return False


class Gen:
    def __init__(self, seed, opts):
        self.rng = random.Random(seed)
        self.seed = seed
        self.opts = opts
        self.prog = Program(seed)
        self.ns = namespace(np, np.asarray)
        self.n = 0
        # arrays no write is generated into (none today: x.real and x.conj() of a real x
        # are x itself in Ember as in NumPy, x.imag a read-only array in NumPy)
        self.no_write = set()

    # -- bookkeeping --------------------------------------------------------------------
    def arrays(self):
        return [k for k, v in self.ns.items() if k.startswith("v") and isinstance(v, np.ndarray)]

    def pick(self, pred=None):
        c = [k for k in self.arrays() if pred is None or pred(self.ns[k])]
        return self.rng.choice(c) if c else None

    def emit(self, text, op, inputs=(), fn=None, bind=True, reduce_n=0, discontinuous=None,
             undefined=False):
        """Run text on NumPy; on success record the bound variable's tolerance."""
        name = None
        if bind:
            name = "v%d" % self.n
            self.n += 1
            text = "%s = %s" % (name, text)
        err = None
        with warnings.catch_warnings(), np.errstate(all="ignore"):
            warnings.simplefilter("ignore")
            try:
                exec(text, self.ns)
            except Exception as e:  # NumPy rejects it: Ember must too
                err = type(e).__name__
        self.prog.stmts.append(Stmt(text, op, name, err))
        if err is not None:
            self.ns.pop(name, None)
            return None
        ins = [self.prog.vars[i] for i in inputs if i in self.prog.vars]
        vals = [self.ns[i] for i in inputs if i in self.ns]
        res = self.ns.get(name) if name else (vals[0] if vals else None)
        k = max([v.k for v in ins], default=0.0)
        # error amplification: x**y multiplies x's relative error by |y|, exp(x) turns x's
        # absolute error into relative error scaled by |x|
        if k and fn in ("power", "float_power") and len(vals) > 1:
            k *= max(1.0, max(_maxabs(x) for x in vals))
        elif k and fn in ("exp", "exp2", "expm1", "sinh", "cosh", "tan", "sin", "cos",
                          "tanh") and vals:
            k *= max(1.0, _maxabs(vals[0]))
        scale = max([v.scale for v in ins] + [_maxabs(x) for x in vals], default=0.0)
        fragile = undefined or any(v.fragile for v in ins)
        fn = fn or op
        zsign = fn in ZERO_SIGN_FROM or any(v.zsign for v in ins)
        if fn in ZERO_SIGN_SHOWN and any(v.zsign for v in ins):
            fragile = True
        cplx = any(_kind(x) == "c" for x in vals + [res]) or "j" in text.split("=", 1)[-1]
        dev = self.opts.get("device", "cpu")
        nsign = any(v.nsign for v in ins) or (fn in NAN_SIGN_MADE and _has_nan(res))
        if fn in NAN_SIGN_SHOWN and any(_has_nan(x) for x in vals) and (
                dev != "cpu" or any(v.nsign for v in ins)):
            fragile = True  # on a device even an input's NaN may come back canonical
        dt = _float_name(vals + [res], cplx)
        ulp = precision.bound(fn, dt, dev)
        if cplx and fn in COMPLEX_INEXACT:
            ulp = max(ulp, precision.bound("complex_arith", dt, dev))
            if fn == "power":  # exp(y log x): the error grows with |y log x|
                m = max([_maxabs(x) for x in vals] + [2.0])
                ulp = max(ulp, precision.bound("complex_power", dt, dev) * m * np.log(m))
            if not all(_finite(x) for x in vals + [res]):
                fragile = True  # complex special values: see the module's docstring
        if fn == "reciprocal" and any(_int_zero(x, res) for x in vals):
            fragile = True  # integer 1/0 is undefined (also of a value that dtype= casts to 0)
        # n ULPs for a float result: mean, var and std of integers round too (a GPU's tree
        # of partial sums rounds differently from NumPy's pairwise sums)
        if reduce_n and any(_inexact(x) for x in vals + [res]):
            ulp += reduce_n
            scale *= max(reduce_n, 1)
        # the tolerance in relative terms: ULPs of the coarsest float type involved
        eps = max([_eps(x) for x in vals + [res]], default=0.0)
        rel = ulp * eps
        if discontinuous is None:
            discontinuous = fn in DISCONTINUOUS or fn in COMPARE_OPS or fn in LOGICAL_OPS
        if discontinuous and k > 0:
            fragile = True
        if cplx and fn in BRANCH_CUT and k > 0:
            fragile = True
        if k > 0 and fn in ILL_CONDITIONED:
            fragile = True
        if fragile and (fn in DATA_SHAPE or op in DATA_SHAPE):
            fragile = 2  # unreliable values decide this result's shape: not compared at all
        if name:
            self.prog.vars[name] = Var(k + rel, scale, fragile,
                                       isinstance(self.ns[name], np.generic), zsign, nsign)
        else:  # an in-place write: the written inputs[0] now carries both lineages
            for i in inputs[:1]:
                if i in self.prog.vars:
                    v = self.prog.vars[i]
                    v.k, v.scale = max(v.k, k + rel), max(v.scale, scale)
                    v.fragile = v.fragile or fragile or (discontinuous and k > 0)
                    v.zsign = v.zsign or zsign
                    v.nsign = v.nsign or nsign
            # and any variable may be a view of it: their tolerance takes the write's
            for v in self.prog.vars.values():
                v.k = max(v.k, k + rel)
                if fragile or (discontinuous and k > 0):
                    v.fragile = v.fragile or True
                v.nsign = v.nsign or nsign
        return name

    def chance(self, p):
        return self.rng.random() < p

    # -- operands -----------------------------------------------------------------------
    def shape(self):
        r = self.rng.random()
        if r < 0.1:
            return ()
        if r < 0.2:
            nd = self.rng.randint(1, 3)
            s = [self.rng.randint(0, 4) for _ in range(nd)]
            s[self.rng.randrange(nd)] = 0
            return tuple(s)
        if r < 0.23 and self.opts.get("deep", True):
            # many dimensions, up to the limit (and past it where not a known defect)
            lim = 33 if self.opts.get("past_dim_limit") else 32
            nd = self.rng.randint(20, lim)
            s = [1] * nd
            for _ in range(2):
                s[self.rng.randrange(nd)] = self.rng.randint(1, 3)
            return tuple(s)
        nd = self.rng.choice([1, 1, 2, 2, 2, 3, 3, 4])
        if self.chance(0.05):  # large enough for the CPU's blocks and threads to split it
            return tuple(self.rng.randint(1, 3000 if d == 0 else 12) for d in range(min(nd, 2)))
        return tuple(self.rng.randint(1, 5) for _ in range(nd))

    def dtype(self, kinds=None):
        c = DTYPES if kinds is None else [d for d in DTYPES if np.dtype(d).kind in kinds]
        return self.rng.choice(c)

    def new_input(self, shape=None, dtype=None):
        shape = self.shape() if shape is None else shape
        dtype = dtype or self.dtype()
        special = self.chance(0.2)
        seed = self.rng.randrange(1 << 30)
        return self.emit("A(R(%d, %r, %r%s))" % (seed, tuple(shape), dtype,
                                                ", True" if special else ""), "input")

    def scalar(self, kind=None):
        kind = kind or self.rng.choice("bifc")
        if kind == "b":
            return self.rng.choice(["True", "False"])
        if kind == "i":
            return str(self.rng.choice([0, 1, 2, -1, 3, 7, -128, 255, 300, 2 ** 31, -2 ** 40]))
        if kind == "f":
            return self.rng.choice(["0.5", "-0.0", "2.0", "1e10", "-3.25", "float('nan')",
                                    "float('inf')", "1.5e-8"])
        return self.rng.choice(["1j", "(2-0.5j)", "complex(0, -1)"])

    def operand_for(self, a):
        """Another operand for a binary op with array a: a broadcastable array, a scalar,
        a NumPy scalar, or (rarely) a shape that does not broadcast."""
        x = self.ns[a]
        r = self.rng.random()
        if r < 0.25:
            return self.scalar(), []
        if r < 0.3:
            return "np.%s(%s)" % (self.dtype("iuf"), self.rng.choice(["3", "1", "0"])), []
        if r < 0.6:
            b = self.pick(lambda y: _broadcastable(x.shape, y.shape))
            if b:
                return b, [b]
        shape = list(x.shape)
        if self.chance(0.08) and shape:
            shape[self.rng.randrange(len(shape))] += 1  # does not broadcast
        else:
            shape = [1 if self.chance(0.3) else d for d in shape]
            if self.chance(0.3):
                shape = shape[self.rng.randint(0, len(shape)):]
        b = self.new_input(tuple(shape), self.dtype())
        return (b, [b]) if b else (self.scalar(), [])

    def axis(self, nd, allow_none=True, allow_tuple=True):
        r = self.rng.random()
        if allow_none and r < 0.25:
            return "None"
        if r < 0.33:
            return str(self.rng.choice([nd, -nd - 1, 5]))  # out of range
        if allow_tuple and r < 0.45 and nd >= 2:
            ax = self.rng.sample(range(nd), self.rng.randint(1, nd))
            return repr(tuple(ax))
        if nd == 0:
            return self.rng.choice(["0", "-1", "None"])
        return str(self.rng.randrange(-nd, nd))


def _broadcastable(s, t):
    out = 1
    for a, b in zip(reversed(s), reversed(t)):
        if a != b and a != 1 and b != 1:
            return False
        out *= max(a, b)
    # a result past a million elements costs each library seconds and gigabytes: (20000,)
    # against (20000, 1) made 3.2 GB and a timeout (seed 20001233, session 18)
    return out * int(np.prod(s[:len(s) - len(t)] or t[:len(t) - len(s)] or (1,))) <= 1 << 20


# -- statement kinds ------------------------------------------------------------------------
def st_unary(g):
    a = g.pick()
    if not a:
        return
    f = g.rng.choice(UNARY)
    quirk = f in ("real", "imag") and g.ns[a].dtype.kind != "c"
    if not quirk and g.chance(0.08):  # the ufunc's dtype= (signature ufunc_dtype.F)
        g.emit("M.%s(%s, dtype=%r)" % (f, a, g.dtype("bifc")), "ufunc_dtype." + f, [a], fn=f)
        return
    g.emit("M.%s(%s)" % (f, a), f + (".alias" if quirk else ""), [a], fn=f)


def st_binary(g):
    a = g.pick()
    if not a:
        return
    b, ins = g.operand_for(a)
    f = g.rng.choice(BINARY)
    args = [a, b] if g.chance(0.7) else [b, a]
    if not any(x in g.ns and isinstance(g.ns[x], np.ndarray) for x in args):
        args = [a, b]
    g.emit("M.%s(%s, %s)" % (f, args[0], args[1]), f, [a] + ins)


def st_operator(g):
    a = g.pick()
    if not a:
        return
    b, ins = g.operand_for(a)
    op = g.rng.choice(OPERATORS)
    fn = {"+": "add", "-": "subtract", "*": "multiply", "/": "divide", "//": "floor_divide",
          "%": "remainder", "**": "power"}.get(op, op)
    text = "%s %s %s" % (a, op, b) if g.chance(0.75) else "%s %s %s" % (b, op, a)
    g.emit(text, "op" + op, [a] + ins, fn=fn)


def st_unary_method(g):
    a = g.pick()
    if not a:
        return
    x = g.ns[a]
    forms = [("-%s", "negative"), ("abs(%s)", "absolute"), ("~%s", "invert"),
             ("+%s", "positive"), ("%s.conj()", "conj"), ("%s.copy()", "copy"),
             ("%s.real", "real"), ("%s.imag", "imag"), ("%s.T", "T"),
             ("%s.flatten()", "flatten"), ("%s.ravel()", "ravel"), ("%s.squeeze()", "squeeze"),
             ("%s.round()", "round"), ("M.round(%s, 1)", "round"), ("astype", "astype"),
             ("astype_casting", "astype")]
    form, fn = g.rng.choice(forms)
    if fn == "round" and x.dtype.kind == "b" and g.opts.get("round_bool") is False:
        return  # round(bool) stays bool (issue 20): what follows it fails in many ways
    if fn == "astype":
        d = g.dtype()
        if np.dtype(d).kind in "iub" and x.dtype.kind in "fc" and x.size and (
                not np.all(np.isfinite(x)) or np.max(np.abs(x)) > 127):
            return  # float -> integer of NaN, inf or out-of-range values: undefined
        if form == "astype":
            form = "%s.astype(" + repr(d) + ")"
        else:
            form = "%s.astype(" + repr(d) + ", casting=" + repr(g.rng.choice(
                ["safe", "same_kind", "unsafe", "no", "bogus"])) + ")"
    quirk = fn in ("conj", "real", "imag") and x.dtype.kind != "c"
    g.emit(form % a, "method." + fn + (".alias" if quirk else ""), [a], fn=fn)


def _var_tolerance(var, n, m, eps):
    """Widen a variance's atol to what summation order can change, for at most n elements
    of magnitude at most m in a type of this eps.  var = sum(|x - mu~|^2) / (N - ddof) over
    a group of N <= n with the computed mean mu~ = mu + d, and exactly sum(|x - mu~|^2) =
    sum(|x - mu|^2) + N d^2: the mean's error enters only squared, times N / (N - ddof) <= 3
    (ddof <= 2).  The rest (rounding each x - mu~, its square, a sum of non-negative terms,
    the division) is relative, within the (n + 4) ULPs of emit's reduction rule and the
    table.  |d| <= n*eps*m in any summation order (NumPy's pairwise sums, Ember's blocks and
    threads, a GPU's tree), so the two libraries' variances differ by at most
    2 * 3 n^2 eps^2 m^2 besides the relative part: as atol = k * scale with k >= n*eps,
    scale >= 6 n eps m^2.  That exceeds the sums' rule (scale n*m) only where eps*m > 1/6:
    float16 above 170, float32 above 1.4e6.  The standard deviation needs nothing more:
    sqrt(v + a) - sqrt(v) <= sqrt(a) = 2.5 n eps m, within k * n * m."""
    if var.k and not var.fragile:
        var.scale = max(var.scale, 6.0 * n * eps * m * m)


def _run_leaves_normal_range(x):
    """Whether the product of some run of consecutive elements of x (C order) leaves the
    normal range, zeros and non-finite values skipped.  A parallel scan (the device's
    tiles, PoCL's too) multiplies a tile's running product by the product of the tiles
    before it: runs NumPy's sequential loop never forms.  Where such a run overflows and
    the running product is 0 (a zero came first), the device gives 0 * inf = nan where
    NumPy keeps 0 (seed 17009438: a zero at element 209 of 16,770 float64 values, and
    runs of later values past 1e308)."""
    xa = np.abs(np.asarray(x)).ravel()
    if xa.dtype.kind != "f" or xa.size < 2:
        return False
    fin = np.finfo(xa.dtype)
    with np.errstate(all="ignore"):
        ok = np.isfinite(xa) & (xa > 0)
        lg = np.where(ok, np.log2(np.where(ok, xa, 1).astype(np.float64)), 0.0)
    s = np.concatenate([[0.0], np.cumsum(lg)])
    hi = np.max(s - np.minimum.accumulate(s))  # the largest run's exponent
    lo = np.min(s - np.maximum.accumulate(s))  # the smallest
    return bool(hi >= fin.maxexp - 1 or lo <= fin.minexp + 1)


def _out_of_normal_range(x, r):
    """Whether a product r of x's elements reached the subnormal or overflow range (or
    underflowed to 0) where x had no such value.  A product's n-ULP relative bound holds
    only while every partial product stays normal; past that, the order of the products
    (NumPy's loop, Ember's blocks, a GPU's scan) decides which partial product overflows
    to inf or loses its digits as a subnormal."""
    try:
        a, xa = np.abs(np.asarray(r)), np.abs(np.asarray(x))
    except Exception:
        return False
    if a.dtype.kind != "f" or a.size == 0:
        return False
    fin = np.finfo(a.dtype)
    with np.errstate(all="ignore"):
        over = np.any(~np.isfinite(a) | (a > fin.max / 2)) and np.all(np.isfinite(xa))
        sub = np.any((a > 0) & (a < fin.tiny))
        zero = np.any(a == 0) and not np.any(xa == 0)
    return bool(over or sub or zero)


def st_reduce(g):
    a = g.pick()
    if not a:
        return
    x = g.ns[a]
    f = g.rng.choice(REDUCE)
    args = [a]
    ax = g.axis(x.ndim, allow_tuple=f not in ("argmax", "argmin") + SCANS)
    if f in SCANS and ax == "None" and g.chance(0.5):
        ax = "0" if x.ndim else "None"
    args.append("axis=%s" % ax)
    if f not in ("argmax", "argmin", "count_nonzero") + SCANS and g.chance(0.25):
        args.append("keepdims=True")
    undefined = False
    if f in ("sum", "prod", "mean", "cumsum") and g.chance(0.15):
        d = g.dtype("iufc")
        args.append("dtype=%r" % d)
        # non-finite or out-of-range floats converted to integers: undefined
        undefined = np.dtype(d).kind in "iu" and x.dtype.kind in "fc"
    kw = ""
    if g.chance(0.02):
        kw = g.rng.choice(["bogus", "out", "where"])
        args.append({"bogus": "bogus=1", "out": "out=None", "where": "where=True"}[kw])
    if f in ("std", "var") and g.chance(0.3):
        args.append("ddof=%d" % g.rng.choice([0, 1, 2]))
    if f in ("max", "min") and g.chance(0.15):
        args.append("initial=%s" % g.rng.choice(["0", "1", "-5"]))
    n = x.size if ax == "None" else max(1, x.size // max(1, (x.shape[int(ax)] if ax.lstrip(
        "-").isdigit() and -x.ndim <= int(ax) < x.ndim else 1)))
    n = x.size  # a bound over the whole array is simple and safe
    use_method = g.chance(0.3) and f in ("sum", "prod", "mean", "max", "min", "argmax", "argmin",
                                         "all", "any", "std", "var", "cumsum", "cumprod")
    text = "%s.%s(%s)" % (a, f, ", ".join(args[1:])) if use_method else \
        "M.%s(%s)" % (f, ", ".join(args))
    v = g.emit(text, "reduce." + f + ("+" + kw if kw else ""), [a], fn=f, reduce_n=n if f not in (
        "max", "min", "argmax", "argmin", "all", "any", "nanmax", "nanmin", "count_nonzero")
        else 0, undefined=undefined)
    r = g.ns.get(v) if v else None
    if v and f == "var":
        _var_tolerance(g.prog.vars[v], n, _maxabs(x), _eps(r))
    if v and f in ("prod", "cumprod") and _out_of_normal_range(x, r) or \
            v and f == "cumprod" and _run_leaves_normal_range(x):
        g.prog.vars[v].fragile = True
    if r is not None and _kind(r) == "f" and np.asarray(r).dtype == np.float16 and \
            _finite(x) and not _finite(r):
        # NumPy accumulates float16 in float16 (every step rounded), Ember in float32: where
        # NumPy's partial sums or products overflowed, Ember's may not (docs/fuzzing.md)
        g.prog.vars[v].fragile = True


def _slice(g, n):
    def bound():
        return g.rng.choice([None, 0, 1, -1, n, -n, n - 1, n + 1, -n - 1, 2, -2])
    start, stop = bound(), bound()
    step = g.rng.choice([None, None, 1, 2, -1, -2, 3, -3])
    if g.chance(0.02):
        step = 0
    s = "%s:%s" % ("" if start is None else start, "" if stop is None else stop)
    return s + ("" if step is None else ":%d" % step)


def st_view(g):
    a = g.pick()
    if not a:
        return
    n0 = g.n
    _view(g, a)
    if a in g.no_write and g.n > n0:
        g.no_write.add("v%d" % n0)  # a view of a quirky alias is one too


def _view(g, a):
    x = g.ns[a]
    nd = x.ndim
    r = g.rng.random()
    if r < 0.35 and nd:
        idx = []
        for d in range(nd):
            c = g.rng.random()
            if c < 0.55:
                idx.append(_slice(g, x.shape[d]))
            elif c < 0.7:
                n = x.shape[d]
                idx.append(str(g.rng.choice([0, -1, n - 1, n, -n, -n - 1] if n else [0, -1])))
            elif c < 0.8 and (g.opts.get("past_dim_limit") or nd + idx.count("None") < 30):
                idx.append("None")  # past 32 dims, views write out of bounds (issue 20)
            else:
                idx.append(":")
        if g.chance(0.15):
            idx.insert(g.rng.randint(0, len(idx)), "...")
        if g.chance(0.05):
            idx.append(":")  # one index too many
        g.emit("%s[%s]" % (a, ", ".join(idx)), "view.index", [a])
    elif r < 0.45:
        if nd >= 2 and g.chance(0.7):
            perm = list(range(nd))
            g.rng.shuffle(perm)
            g.emit("M.transpose(%s, %r)" % (a, tuple(perm)), "view.transpose", [a])
        else:
            g.emit("%s.T" % a, "view.T", [a])
    elif r < 0.55 and (g.opts.get("past_dim_limit") or nd < 30):
        ax = g.rng.randint(-nd - 2, nd + 1)
        g.emit("M.expand_dims(%s, %d)" % (a, ax), "view.expand_dims", [a])
    elif r < 0.62:
        ax = g.axis(nd, allow_tuple=False)
        g.emit("M.squeeze(%s%s)" % (a, "" if ax == "None" else ", axis=%s" % ax),
               "view.squeeze", [a])
    elif r < 0.75:
        shape = list(x.shape)
        g.rng.shuffle(shape)
        if shape and g.chance(0.3):
            shape[g.rng.randrange(len(shape))] = -1
        if g.chance(0.1):
            shape.append(2)  # usually does not fit
        if g.chance(0.2):
            shape = [x.size]
        order = g.rng.choice(["", "", "", ", order='F'", ", order='C'"])
        g.emit("M.reshape(%s, %r%s)" % (a, tuple(shape), order), "view.reshape", [a])
    elif r < 0.82 and nd >= 1:
        t = [g.rng.choice([1, 2]) for _ in range(g.rng.randint(0, 2))] + \
            [d if g.chance(0.8) else g.rng.randint(1, 3) for d in x.shape]
        g.emit("M.broadcast_to(%s, %r)" % (a, tuple(t)), "view.broadcast_to", [a])
    elif r < 0.9 and nd >= 2:
        i, j = g.rng.randrange(-nd, nd), g.rng.randrange(-nd, nd + 1)
        f = g.rng.choice(["swapaxes", "moveaxis"])
        g.emit("M.%s(%s, %d, %d)" % (f, a, i, j), "view." + f, [a])
    else:
        ax = g.axis(nd, allow_tuple=True)
        g.emit("M.flip(%s%s)" % (a, "" if ax == "None" else ", axis=%s" % ax), "view.flip", [a])


def st_index(g):
    a = g.pick(lambda y: y.ndim >= 1)
    if not a:
        return
    x = g.ns[a]
    r = g.rng.random()
    n = x.shape[0]
    if r < 0.35:
        m = g.new_input(x.shape[:g.rng.randint(1, x.ndim)], "bool")
        if m:
            g.emit("%s[%s]" % (a, m), "index.mask", [a, m])
    elif r < 0.7:
        idx = [g.rng.randint(-n, n - 1) if n else 0 for _ in range(g.rng.randint(0, 5))]
        if g.chance(0.1) or not n:
            idx.append(n + 1)
        g.emit("%s[np.array(%r, dtype=np.int64)]" % (a, idx), "index.int_array", [a])
    elif r < 0.85:
        idx = [g.rng.randint(-n, n - 1) if n else 0 for _ in range(g.rng.randint(0, 4))]
        g.emit("M.take(%s, A(np.array(%r, dtype=np.intp)), axis=0)" % (a, idx), "index.take",
               [a])
    else:
        k = g.rng.randint(-x.size - 1, x.size)
        g.emit("%s.item(%d)" % (a, k) if x.ndim and g.chance(0.5) else "%s.tolist()" % a,
               "index.item", [a])


def st_setitem(g):
    """In-place writes, often to an array with pending lazy readers."""
    a = g.pick(lambda y: y.ndim >= 1 and y.flags.writeable)
    if not a or a in g.no_write:
        return
    x = g.ns[a]
    if g.chance(0.5):  # a lazy reader of a that must not see the write
        g.emit("%s * 2 + 1" % a, "pending_reader", [a], fn="multiply")
    r = g.rng.random()
    n = x.shape[0]
    val = g.scalar(x.dtype.kind if x.dtype.kind in "bifc" else "i") if g.chance(0.6) else None
    if val is None:
        b = g.pick(lambda y: _broadcastable(x[0:1].shape, y.shape) and y.ndim <= x.ndim)
        val = b or g.scalar("i")
        ins = [b] if b else []
    else:
        ins = []
    if x.dtype.kind in "iub" and val in ("float('nan')", "float('inf')", "1e10"):
        return  # known: NaN/inf into integers (issue 20, branch rel) -- see expectations
    if r < 0.4:
        target = "%s[%s]" % (a, _slice(g, n))
        op = "setitem.slice"
    elif r < 0.55:
        target = "%s[%d]" % (a, g.rng.randint(-n - 1, n))
        op = "setitem.int"
    elif r < 0.7:
        m = g.new_input(x.shape, "bool")
        if not m:
            return
        target = "%s[%s]" % (a, m)
        op = "setitem.mask"
        ins = ins + [m]
    elif r < 0.8:
        target = "%s[...]" % a
        op = "setitem.all"
    else:
        aug = g.rng.choice(["+=", "-=", "*=", "//=", "|=", "&="])
        g.emit("%s %s %s" % (a, aug, val), "inplace" + aug, [a] + ins, bind=False,
               fn={"+=": "add", "-=": "subtract", "*=": "multiply"}.get(aug, "floor_divide"))
        return
    # float values into an integer array: NaN, inf or out-of-range ones are undefined
    undefined = x.dtype.kind in "iub" and any(_kind(g.ns[i]) in "fc" for i in ins[:1])
    g.emit("%s = %s" % (target, val), op, [a] + ins, bind=False, fn="setitem",
           discontinuous=op == "setitem.mask", undefined=undefined)


def st_manip(g):
    a = g.pick()
    if not a:
        return
    x = g.ns[a]
    nd = x.ndim
    r = g.rng.randrange(16)
    if r == 0:
        b = g.pick(lambda y: y.ndim == nd) or a
        ax = g.axis(nd, allow_tuple=False)
        g.emit("M.concatenate([%s, %s], axis=%s)" % (a, b, ax), "concatenate", [a, b])
    elif r == 1:
        b = g.pick(lambda y: y.shape == x.shape) or a
        g.emit("M.stack([%s, %s], axis=%d)" % (a, b, g.rng.randint(-nd - 2, nd + 1)), "stack",
               [a, b])
    elif r == 2:
        n = x.shape[0] if nd else 0
        sec = g.rng.choice([str(g.rng.randint(1, 4)),
                            repr([g.rng.randint(-n - 1, n + 1) for _ in range(2)])])
        f = g.rng.choice(["split", "array_split"])
        g.emit("M.%s(%s, %s)" % (f, a, sec), f, [a])
    elif r == 3:
        c = g.new_input(x.shape if g.chance(0.7) else x.shape[1:], "bool")
        b, ins = g.operand_for(a)
        if c:
            g.emit("M.where(%s, %s, %s)" % (c, a, b), "where", [a, c] + ins)
    elif r == 4:
        cond = g.rng.choice(["True", "False", "np.True_", "np.bool_(False)"])
        b, ins = g.operand_for(a)
        g.emit("M.where(%s, %s, %s)" % (cond, a, b), "where.scalar", [a] + ins)
    elif r == 5:
        lo, hi = g.rng.choice([("0", "3"), ("-1", "None"), ("None", "2.5"), ("2", "1")])
        g.emit("M.clip(%s, %s, %s)" % (a, lo, hi), "clip", [a])
    elif r == 6:
        ax = g.rng.choice(["-1", "0", "None"]) if nd else "None"
        f = g.rng.choice(["sort", "argsort"])
        # argsort: the stable order, the only one both sides define for ties
        g.emit("M.%s(%s, axis=%s%s)" % (f, a, ax, ", kind='stable'" if f == "argsort" else ""),
               f, [a])
    elif r == 7:
        g.emit("M.roll(%s, %d%s)" % (a, g.rng.randint(-5, 5), "" if not nd or g.chance(0.5)
                                       else ", axis=%d" % g.rng.randrange(nd)), "roll", [a])
    elif r == 8:
        reps = tuple(g.rng.randint(0, 2) for _ in range(g.rng.randint(1, 3)))
        g.emit("M.tile(%s, %r)" % (a, reps), "tile", [a])
    elif r == 9:
        g.emit("M.repeat(%s, %d%s)" % (a, g.rng.randint(0, 3), "" if not nd else
                                       ", axis=%d" % g.rng.randrange(nd)), "repeat", [a])
    elif r == 10 and (nd != 1 or x.size <= 64):  # 1-d of n: an n x n result
        f = g.rng.choice(["tril", "triu"])
        g.emit("M.%s(%s, %d)" % (f, a, g.rng.randint(-2, 2)), f, [a])
    elif r == 11:
        g.emit("M.diff(%s%s)" % (a, "" if g.chance(0.5) else ", axis=%d" % g.rng.randint(
            -nd - 1, nd)), "diff", [a])
    elif r == 12:
        f = g.rng.choice(["unique", "nonzero", "argwhere", "flatnonzero"])
        g.emit("M.%s(%s)" % (f, a), f, [a])
    elif r == 13 and nd >= 1:
        b = g.pick(lambda y: y.ndim >= 1 and y.shape[-1] == (x.shape[-2] if nd >= 2 else
                                                               x.shape[0]))
        if b:
            g.emit("M.matmul(%s, %s)" % (b, a) if g.chance(0.5) else "%s @ %s" % (b, a),
                   "matmul", [a, b], reduce_n=x.shape[0] if x.shape else 1)
    elif r == 14:
        ax = g.rng.choice(["0", "-1"])
        g.emit("M.atleast_2d(%s)" % a if g.chance(0.5) else "M.ravel(%s)" % a,
               "atleast_ravel", [a])
        del ax
    else:
        d = g.dtype()
        g.emit("M.result_type(%s, %r)" % (a, d), "result_type", [a])


def st_creation(g):
    r = g.rng.randrange(6)
    d = g.rng.choice(DTYPES + ["float", "int", "bogus"])
    shape = g.shape() if g.chance(0.95) else g.rng.choice([(-1,), (2, -3), "2.5"])
    if r == 0:
        f = g.rng.choice(["zeros", "ones", "empty"])
        text = "M.%s(%r, dtype=%r)" % (f, shape, d)
        if f == "empty":
            text = "M.zeros_like(M.empty(%r, dtype=%r))" % (shape, d)
        g.emit(text, "creation." + f)
    elif r == 1:
        v = g.scalar()
        if d in DTYPES and np.dtype(d).kind in "iub" and v in ("float('nan')", "float('inf')",
                                                             "1e10", "1.5e-8"):
            return  # known: NaN/inf into integers (issue 20, branch rel)
        g.emit("M.full(%r, %s, dtype=%r)" % (shape, v, d), "creation.full")
    elif r == 2:
        a, b = g.rng.randint(-5, 5), g.rng.randint(-5, 10)
        step = g.rng.choice([1, 2, -1, 0.5, 3])
        g.emit("M.arange(%d, %d, %r)" % (a, b, step), "creation.arange")
    elif r == 3:
        g.emit("M.linspace(%d, %d, %d, endpoint=%s)" % (g.rng.randint(-3, 3),
                                                      g.rng.randint(-3, 3), g.rng.randint(0, 7),
                                                      g.rng.choice(["True", "False"])),
               "creation.linspace", fn="linspace")
    elif r == 4:
        g.emit("M.eye(%d, %d, k=%d)" % (g.rng.randint(0, 4), g.rng.randint(0, 4),
                                        g.rng.randint(-2, 2)), "creation.eye")
    else:
        g.emit("M.asarray(%s)" % g.rng.choice(["[1, 2, 3]", "[[1.5], [2]]", "3", "[]",
                                                "[[1, 2], [3]]", "[True, 2]", "[1j, 2]"]),
               "creation.asarray")


# -- the newer NumPy surface (issue 19's device algorithms) ---------------------------------
QUANTILES = ["median", "nanmedian", "percentile", "nanpercentile", "quantile", "nanquantile"]
SETOPS = ["union1d", "intersect1d", "setdiff1d", "setxor1d"]
UNIQUE_FNS = ["unique_values", "unique_counts", "unique_inverse", "unique_all"]


def _kth(g, n):
    """A valid kth of an axis of n (an int or a list), now and then one out of range."""
    if g.chance(0.1) or not n:
        return str(g.rng.choice([n, -n - 1, n + 3]))
    if g.chance(0.3):
        return repr(sorted({g.rng.randrange(-n, n) % n for _ in range(g.rng.randint(1, 3))}))
    return str(g.rng.randrange(-n, n))


def _axis_len(x, ax):
    if ax == "None":
        return x.size
    try:
        return x.shape[int(ax)]
    except (ValueError, IndexError):
        return 1


def _tol(g, v, ulp, x, res=None):
    """An interpolating step's tolerance: ulp ULPs of the result's float type times the
    largest input magnitude (NumPy's lerp and Ember's may round differently)."""
    if v and v in g.prog.vars and not g.prog.vars[v].fragile:
        r = g.ns[v] if res is None else res
        e = max([_eps(y) for y in (r if isinstance(r, tuple) else (r,))] + [_eps(x)])
        var = g.prog.vars[v]
        var.k += ulp * e
        var.scale = max(var.scale, _maxabs(x))


def _linalg(g):
    f = g.rng.choice(["solve", "inv", "cholesky", "det"])
    n = g.rng.randint(1, 4) if g.chance(0.9) else g.rng.choice([0, 8])
    batch = () if g.chance(0.5) else tuple(g.rng.randint(0 if g.chance(0.1) else 1, 3)
                                           for _ in range(g.rng.randint(1, 2)))
    d = g.rng.choice(["float32", "float64", "float64", "complex64", "complex128"]
                     if g.chance(0.9) else ["float16", "int32", "bool"])
    shape = batch + ((n, n) if g.chance(0.95) else (n, n + 1))  # not square: LinAlgError
    a = g.new_input(shape, d)
    if not a:
        return
    x = g.ns[a]
    if f == "cholesky":  # Hermitian positive definite, made from x
        text = "M.linalg.cholesky(M.matmul(%s, M.conj(M.swapaxes(%s, -1, -2))) + %d * " \
            "M.eye(%d))" % (a, a, 4 * max(n, 1), x.shape[-1])
    elif f == "solve":
        bs = x.shape[:-1] + ((g.rng.randint(1, 2),) if g.chance(0.5) else ())
        if g.chance(0.05):
            bs = bs[:-1] + (bs[-1] + 1,) if bs else (3,)  # does not fit
        if len(bs) == x.ndim - 1 and len(batch):
            bs = bs + (1,)  # NumPy 2: a b of one dimension less is a vector only where a is 2-d
        b = g.new_input(bs, g.rng.choice(["float64", d]))
        if not b:
            return
        text = "M.linalg.solve(%s, %s)" % (a, b)
    else:
        text = "M.linalg.%s(%s)" % (f, a)
    v = g.emit(text, "linalg." + f, [a], fn="linalg_" + f)
    if not v:
        return
    # the error of a backward-stable solver: about n eps times the condition number
    var = g.prog.vars[v]
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        xm = x.astype(np.complex128) if x.dtype.kind == "c" else x.astype(np.float64)
        try:
            cond = float(np.max(np.linalg.cond(xm))) if xm.size and _finite(xm) else \
                (1.0 if not xm.size else np.inf)
        except Exception:
            cond = np.inf
    r = g.ns[v]
    if not np.isfinite(cond) or cond > 1e4 or not _finite(r):
        var.fragile = True
        return
    e = max(_eps(r), _eps(x))
    var.k += 16 * max(n, 1) * cond * e
    var.scale = max(var.scale, _maxabs(r))


def st_algo(g):
    """Partition, searching, set operations, histograms, quantiles, unique with its returns,
    lexsort, compress, bitwise reduce/accumulate and small or batched linear algebra."""
    r = g.rng.randrange(13)
    if r == 12:
        return _linalg(g)
    a = g.pick()
    if not a:
        return
    x = g.ns[a]
    nd = x.ndim
    if r == 0:  # partition: the kth values and the partitioned array's sorted content
        f = g.rng.choice(["partition", "argpartition"])
        ax = g.rng.choice(["-1", "0", "None"]) if nd else "None"
        if not _axis_len(x, ax) or not x.size:
            # NumPy does not check kth against an empty axis, nor against any axis of an
            # empty array (seed 52003510: partition(zeros((3, 3, 0)), 6, axis=0)); Ember does
            return
        k = _kth(g, _axis_len(x, ax))
        p = "M.partition(%s, %s, axis=%s)" % (a, k, ax) if f == "partition" else \
            "M.take_along_axis(M.ravel(%s) if %s is None else %s, M.argpartition(%s, %s, " \
            "axis=%s), axis=%s if %s is not None else 0)" % (a, ax, a, a, k, ax, ax, ax)
        if g.chance(0.5):
            text = "M.take(%s, %s, axis=%s)" % (p, k, "0" if ax == "None" else ax)
        else:
            text = "M.sort(%s, axis=%s)" % (p, "-1" if ax == "None" else ax)
        if g.chance(0.05):
            text = "M.%s(%s, %s, axis=%s)" % (f, a, g.rng.choice(["1.5", "[[0]]"]), ax)
        g.emit(text, f, [a], fn=f)
    elif r == 1:  # searchsorted of a sorted 1-d array (its sorter) and digitize
        side = g.rng.choice(["'left'", "'right'"] if g.chance(0.95) else ["'bogus'"])
        s = "M.ravel(%s)" % a if nd != 1 or g.chance(0.5) else a
        if g.chance(0.05):
            s = a  # n-d: ValueError
        v, ins = g.operand_for(a)
        if x.dtype.kind == "c" or _kind(g.ns.get(v, 0)) == "c" or "j" in v or "complex" in v:
            v, ins = str(g.rng.choice([0, 1, -3])), []  # complex order: allowed, but narrow
        if g.chance(0.5):
            g.emit("M.searchsorted(M.sort(%s), %s, side=%s)" % (s, v, side), "searchsorted",
                   [a] + ins)
        elif g.chance(0.3):
            g.emit("M.searchsorted(%s, %s, side=%s, sorter=M.argsort(%s, kind='stable'))"
                   % (s, v, side, s), "searchsorted.sorter", [a] + ins, fn="searchsorted")
        else:
            bins = g.rng.choice(["M.sort(%s)" % s, "M.flip(M.sort(%s))" % s, "[-1, 0, 2.5, 3]",
                                 "[5, 1, 0]", "[]"] + (["[0, 3, 1]"] if g.chance(0.1) else []))
            d = g.emit("M.digitize(%s, %s%s)" % (v, bins, ", right=True" if g.chance(0.5)
                                                  else ""), "digitize", [a] + ins)
            if d in g.prog.vars and "M.sort" in bins and x.dtype.kind in "iu" and x.size and \
                    np.max(np.abs(x.astype(np.float64))) >= 2.0**53:
                # NumPy checks the bins' order in float64: integers past 2**53 that
                # differ below its precision look equal, and sorted decreasing bins
                # then pass as increasing (seed 50000735); Ember's check is exact
                g.prog.vars[d].fragile = True
    elif r == 2:  # isin and the set operations
        b, ins = g.operand_for(a)
        if g.chance(0.4):
            g.emit("M.isin(%s, %s%s)" % (a, b, ", invert=True" if g.chance(0.3) else ""),
                   "isin", [a] + ins)
        else:
            f = g.rng.choice(SETOPS)
            g.emit("M.%s(%s, %s)" % (f, a, b), f, [a] + ins)
    elif r == 3:  # histogram: int bins, edges, a range; bad: unsorted edges, bins <= 0
        c = g.rng.random()
        if c < 0.4:
            kw = "bins=%d" % g.rng.choice([1, 2, 5, 10, 64])
        elif c < 0.7:
            kw = "bins=%s" % g.rng.choice(["[-3, -1, 0, 0.5, 4]", "[0, 1]", "[-10, 0, 10, 20]",
                                           "[0, 0, 1, 2]"])
        elif c < 0.9:
            kw = "bins=%d, range=%s" % (g.rng.choice([3, 8]), g.rng.choice(
                ["(-2, 2)", "(0, 10)", "(1, 1)"]))
        else:
            kw = g.rng.choice(["bins=[3, 1, 2]", "bins=0", "bins=-2", "range=(2, 1)",
                               "bins='bogus'"])
        ins = [a]
        if g.chance(0.2) and x.dtype.kind in "biuf":
            w = g.new_input(x.shape, g.dtype("if"))
            if w:
                kw += ", weights=%s" % w
                ins.append(w)
        # weights: a float sum per bin, in any order (n ULPs)
        v = g.emit("M.histogram(%s, %s)" % (a, kw), "histogram" + (
            ".complex" if x.dtype.kind == "c" else ""), ins, fn="histogram",
                   reduce_n=x.size if len(ins) > 1 else 0)
        if v and len(ins) > 1 and (not _finite(g.ns[ins[1]]) or _int_sum_overflows(g.ns[ins[1]])):
            # NumPy sums weights as differences of a cumulative sum: one infinite weight
            # makes the later bins inf - inf = nan (Ember's per-bin sums keep them)
            g.prog.vars[v].fragile = True
    elif r == 4:  # bincount of small non-negative integers (a negative one: ValueError)
        if x.dtype.kind not in "biu" or (x.size and np.max(np.abs(x.astype(np.float64))) >
                                         5000):
            if not g.chance(0.1):
                return
        xs = "M.ravel(%s)" % a if nd != 1 and g.chance(0.9) else a
        kw, ins = "", [a]
        if g.chance(0.3):
            w = g.new_input((x.size,) if g.chance(0.9) else (x.size + 1,), g.dtype("iuf"))
            if w:
                kw += ", weights=%s" % w
                ins.append(w)
        if g.chance(0.3):
            kw += ", minlength=%d" % g.rng.choice([0, 3, 50, -1])
        g.emit("M.bincount(%s%s)" % (xs, kw), "bincount", ins,
               reduce_n=x.size if "weights" in kw else 0)
    elif r == 5:  # median, percentile, quantile and their nan forms
        f = g.rng.choice(QUANTILES)
        if x.size == 0:
            # NumPy's quirks, not specified behaviour: quantile of an empty slice raises
            # IndexError, nanquantile's is nanmean's (q's dimensions dropped)
            return
        args = [a]
        if "percentile" in f or "quantile" in f:
            hi = 100 if "percentile" in f else 1
            q = g.rng.choice([0, hi, hi / 2, hi / 4, hi * 0.37, [0, hi / 3, hi]]
                             if g.chance(0.92) else [-hi, hi * 1.5, "'a'"])
            args.append(repr(q))
        ax = g.axis(nd)
        args.append("axis=%s" % ax)
        if g.chance(0.25):
            args.append("keepdims=True")
        if f not in ("median", "nanmedian") and g.chance(0.4):
            args.append("method=%r" % g.rng.choice(["linear", "lower", "higher", "nearest",
                                                     "midpoint"] if g.chance(0.9)
                                                    else ["bogus"]))
        v = g.emit("M.%s(%s)" % (f, ", ".join(args)), f, [a], fn=f)
        _tol(g, v, 4, x)
        if v and x.dtype.kind in "iu" and x.size and np.ptp(x.astype(np.float64)) > \
                np.iinfo(x.dtype).max:
            # NumPy's lerp subtracts in the integer dtype, which wraps (int8 -128 and 16:
            # midpoint 72); Ember computes in float64
            g.prog.vars[v].fragile = True
    elif r == 6:  # unique with its returns, and the array API's unique_*
        if g.chance(0.5):
            kws = [k for k in ("return_index", "return_inverse", "return_counts")
                   if g.chance(0.5)]
            text = "M.unique(%s%s)" % (a, "".join(", %s=True" % k for k in kws))
            if g.chance(0.05):
                text = "M.unique(%s, return_bogus=True)" % a
            g.emit(text, "unique.returns", [a], fn="unique")
        else:
            f = g.rng.choice(UNIQUE_FNS)
            # unique_values' order is unspecified (NumPy 2.3+ hashes): compared sorted
            g.emit("tuple(M.%s(%s))" % (f, a) if f != "unique_values" else
                   "M.sort(M.%s(%s))" % (f, a), f, [a])
    elif r == 7:  # lexsort of keys of one shape
        b = g.pick(lambda y: y.shape == x.shape) or a
        keys = g.rng.choice(["(%s, %s)" % (a, b), "(%s,)" % a, "[%s, %s, %s]" % (b, a, b)])
        ax = "" if g.chance(0.7) or not nd else ", axis=%d" % g.rng.randint(-nd, nd)
        g.emit("M.lexsort(%s%s)" % (keys, ax), "lexsort", [a, b])
    elif r == 8:  # compress along an axis (a condition too long: IndexError) and extract
        ax = g.axis(nd, allow_tuple=False) if nd else "None"  # NumPy: a 0-d has an axis 0
        n = _axis_len(x, ax)
        m = max(0, n + (g.rng.choice([-1, 1]) if g.chance(0.2) else 0))
        c = g.new_input((m,), "bool")
        if c:
            if g.chance(0.6):
                g.emit("M.compress(%s, %s, axis=%s)" % (c, a, ax), "compress", [a, c])
            else:
                c2 = g.new_input(x.shape, "bool")
                if c2:
                    g.emit("M.extract(%s, %s)" % (c2, a), "extract", [a, c2])
    elif r in (9, 10):  # ufunc.reduce / accumulate of the bitwise ops (floats: TypeError)
        if x.dtype.kind not in "biu" and not g.chance(0.15):
            a = g.pick(lambda y: y.dtype.kind in "biu") or a
            x = g.ns[a]
            nd = x.ndim
        f = g.rng.choice(["bitwise_and", "bitwise_or", "bitwise_xor"])
        m = g.rng.choice(["reduce", "accumulate"])
        ax = g.axis(nd, allow_tuple=m == "reduce")
        g.emit("M.%s.%s(%s, axis=%s)" % (f, m, a, ax), "%s.%s" % (f, m), [a], fn=f)
    else:  # count_nonzero with keepdims, cumsum of a view
        ax = g.axis(nd)
        g.emit("M.count_nonzero(%s, axis=%s%s)" % (a, ax, ", keepdims=True" if g.chance(0.5)
                                                   else ""), "count_nonzero", [a])


LOOP_BODIES = ["M.where(%s > 2, %s, %s) * 0.5", "abs(%s) %% 1000", "%s // 2 + 3",
               "M.minimum(%s, 500)", "%s + 1", "-%s * 3", "M.maximum(%s, %s - 1) + 2"]


def st_loop(g):
    """A long lazy chain built in a loop (rebinding one name, as user code does): Ember's
    fusion limits must never reach the user."""
    # Ember fuses lazily only past a size: large operands half the time
    a = g.new_input((g.rng.choice([4096, 20000, 16770]),), g.dtype("iuf")) if g.chance(0.5) \
        else g.pick(lambda y: y.dtype.kind in "iuf")
    if not a:
        return
    n = g.rng.choice([2, 5, 20, 40, 100, 250] if g.chance(0.2) else [2, 5, 10, 20])
    bodies = g.rng.sample(LOOP_BODIES, g.rng.randint(1, 3))
    name = "v%d" % g.n
    g.emit(a + ".copy()", "loop.start", [a], fn="copy")
    lines = ["for _ in range(%d):" % n]
    for b in bodies:
        lines.append("    %s = %s" % (name, b.replace("%s", name).replace("%%", "%")))
    g.emit("\n".join(lines), "loop", [name], bind=False, fn="floor_divide"
           if any("//" in b or "%%" in b for b in bodies) else "add")


from gen_s17 import st_s17  # noqa: E402  (session 17's paths; it imports this module)

STATEMENTS = [(st_unary, 10), (st_binary, 12), (st_operator, 10), (st_unary_method, 6),
              (st_reduce, 12), (st_view, 14), (st_index, 7), (st_setitem, 9), (st_manip, 10),
              (st_creation, 4), (st_loop, 3), (st_algo, 10), (st_s17, 10)]


def gen_program(seed, opts=None):
    opts = opts or {}
    g = Gen(seed, opts)
    for _ in range(g.rng.randint(1, 2)):
        g.new_input()
    # algos=False: the generator before st_algo (session 16), whose seeds earlier campaigns
    # and tests name (choices() over a longer list picks differently for every seed)
    # s17=False: the generator of session 17 (before st_s17), whose seeds its campaigns name
    drop = ({st_s17} if not opts.get("s17", True) else set()) | (
        {st_algo, st_s17} if not opts.get("algos", True) else set())
    kinds, weights = zip(*[k for k in STATEMENTS if k[0] not in drop])
    length = g.rng.randint(2, opts.get("max_len", 10))
    for _ in range(length):
        if not g.arrays():
            g.new_input()
            continue
        g.rng.choices(kinds, weights)[0](g)
    g.prog.ns = g.ns
    return g.prog


def to_spec(prog, keep=None):
    """A program as JSON-able data (keep: the statement indices to keep, for shrinking)."""
    idx = range(len(prog.stmts)) if keep is None else keep
    return {"seed": prog.seed,
            "stmts": [[prog.stmts[i].text, prog.stmts[i].op, prog.stmts[i].bind] for i in idx],
            "vars": {k: [v.k, v.scale, v.fragile, v.copy, v.zsign, v.nsign]
                     for k, v in prog.vars.items()}}


def replay(spec):
    """The Program of a spec: its statements run again on NumPy (a statement that no longer
    works there, once others were removed, simply binds nothing)."""
    prog = Program(spec["seed"])
    ns = namespace(np, np.asarray)
    for text, op, bind in spec["stmts"]:
        err = None
        with warnings.catch_warnings(), np.errstate(all="ignore"):
            warnings.simplefilter("ignore")
            try:
                exec(text, ns)
            except Exception as e:
                err = type(e).__name__
                if bind:
                    ns.pop(bind, None)
        prog.stmts.append(Stmt(text, op, bind, err))
    for k, v in spec["vars"].items():
        if k in ns:
            prog.vars[k] = Var(*v)
    prog.ns = ns
    return prog
