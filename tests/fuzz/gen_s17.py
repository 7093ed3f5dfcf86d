"""The generator's statements for session 17's code paths (st_s17 in gen.py, since session 18).

Each draws a short run of statements that reaches one of them the way user code does: the
same function called back to back with other parameters, on the same or other inputs, with
an operand written in place between two calls.
- unique's one-kernel pass: every dtype, the returns, axis=, equal_nan, inputs of a few
  thousand elements with many repeats;
- histogram's plan cache (keyed by bins, range, dtype and device): the same input binned 2-4
  times with int bins, an edges array or list, a range, weights, density, the input cast to
  another dtype; an edges array written in place (sorted or not) between two calls;
- digitize's queued search and its later monotonicity check: 2-3 calls back to back on
  large inputs, bins increasing, decreasing, unsorted, with NaNs, written between calls;
- cumsum's status area kept between calls: 2-4 scans of other sizes and dtypes back to back,
  axis=, dtype=, out=;
- isin and the set operations with Python scalars past the array's dtype (2**40, 2**63 ...);
- quantile/percentile with int, bool, list and float q under all 13 methods, bool input;
- em_index_fill: eye, tri, identity (k offsets, every dtype, M != N, empty), tril/triu of
  batched and 1-d arrays;
- the small-matrix linear algebra: solve, inv, det, slogdet up to 64 x 64, singular
  matrices (one of a batch), NaN/inf, complex, non-contiguous views.
The oracle is NumPy, as for every statement (gen.Gen.emit)."""
import warnings

import numpy as np

import gen as G

METHODS = ["linear", "lower", "higher", "nearest", "midpoint", "inverted_cdf",
           "averaged_inverted_cdf", "closest_observation", "interpolated_inverted_cdf", "hazen",
           "weibull", "median_unbiased", "normal_unbiased"]
SCALARS = ["2**40", "2**63", "-2**63", "2**63 - 1", "-1", "300", "70000", "255", "-129", "0",
           "1.5", "-0.0", "float('nan')", "float('inf')", "True", "1j", "(2-0.5j)"]
SIZES = [1, 2, 17, 255, 1000, 4097, 20000]


def _input(g, shape, dtype, special=None):
    special = g.chance(0.2) if special is None else special
    return g.emit("A(R(%d, %r, %r%s))" % (g.rng.randrange(1 << 30), tuple(shape), dtype,
                                          ", True" if special else ""), "input")


def _vector(g, kinds=None, special=None):
    """A 1-d input of a size from SIZES (the larger ones split into blocks and tiles)."""
    return _input(g, (g.rng.choice(SIZES),), g.dtype(kinds), special)


def _some(g, kinds=None, pred=None):
    """An existing array (of kinds) half the time, else a new vector."""
    a = g.pick(lambda y: (kinds is None or y.dtype.kind in kinds) and (pred is None or pred(y))) \
        if g.chance(0.5) else None
    return a or _vector(g, kinds)


def _huge_int(x):
    x = np.asarray(x)
    return x.dtype.kind in "iu" and x.size and np.max(np.abs(x.astype(np.float64))) >= 2.0**53


def _unique(g):
    a = _some(g)
    if not a:
        return
    x = g.ns[a]
    parts = ["%s=True" % k for k in ("return_index", "return_inverse", "return_counts")
             if g.chance(0.5)]
    if g.chance(0.4):
        parts.append("axis=%d" % (g.rng.randrange(-x.ndim, x.ndim) if x.ndim and
                                  g.chance(0.9) else x.ndim))  # x.ndim: AxisError
    if g.chance(0.4):
        parts.append("equal_nan=%s" % g.rng.choice(["True", "False"]))
    g.emit("M.unique(%s%s)" % (a, "".join(", " + p for p in parts)), "unique.s17", [a],
           fn="unique")


def _edges(g, dtype):
    e = sorted(g.rng.sample([-10, -3, -1, -0.5, 0, 0.25, 1, 2, 3, 5, 10, 100],
                            g.rng.randint(2, 6)))
    if g.chance(0.2):
        e.insert(1, e[0])  # a repeated edge: NumPy allows it (an empty bin)
    if np.dtype(dtype).kind in "iu":
        e = sorted({int(v) for v in e}) or [0, 1]
        if len(e) < 2:
            e.append(e[0] + 1)
    return "M.asarray(%r, dtype=%r)" % (e, dtype)


def _histogram(g):
    a = _some(g, "biuf")
    if not a:
        return
    x = g.ns[a]
    e = None
    if g.chance(0.6):
        e = g.emit(_edges(g, g.rng.choice(["float64", "float32", "int64", "int32"])),
                   "histogram.edges")
    for _ in range(g.rng.randint(2, 4)):
        src, ins = a, [a]
        if g.chance(0.25):
            # (not float16: NumPy's own float16 range arithmetic overflows to an IndexError,
            # seed 63007243)
            src = "%s.astype(%r)" % (a, g.rng.choice(["float32", "float64", "int16", "uint8",
                                                      "int64"]))
        c = g.rng.random()
        if c < 0.35:
            kw = "bins=%d" % g.rng.choice([1, 2, 3, 5, 10, 64, 256, 1000])
        elif c < 0.5 and e:
            kw, ins = "bins=%s" % e, ins + [e]
        elif c < 0.6:
            kw = "bins=%s" % g.rng.choice(["[-3, -1, 0, 0.5, 4]", "[0, 1]", "[0, 0, 1, 2]",
                                           "M.asarray(5)", "np.int64(7)"])
        else:
            kw = "bins=%d, range=%s" % (g.rng.choice([1, 3, 8, 64]), g.rng.choice(
                ["(-2, 2)", "(0, 10)", "(1, 1)", "(-1000.0, 1000.0)", "(0, 0.5)", "(-3, 7)"]))
        if g.chance(0.25):
            w = _input(g, x.shape, g.dtype("iuf"))
            if w:
                kw, ins = kw + ", weights=%s" % w, ins + [w]
        if g.chance(0.3):
            kw += ", density=True"
        weighted = any("weights" in p for p in kw.split(","))
        v = g.emit("M.histogram(%s, %s)" % (src, kw), "histogram.s17", ins, fn="histogram",
                   reduce_n=x.size if weighted or "density" in kw else 0)
        if v and weighted and (not G._finite(g.ns[ins[-1]]) or
                               G._int_sum_overflows(g.ns[ins[-1]])):
            # NumPy's cumulative sum of weights; integer sums cast past their dtype (gen.py)
            g.prog.vars[v].fragile = True
        if v and (weighted or "density" in kw):
            # a float sum per bin and over all (n ULPs), over the width: integer weights
            # too, which emit's reduce_n misses for a tuple result (seed 63003449)
            G._tol(g, v, 4 + x.size, x)
        if e and g.chance(0.5):  # the edges written in place: the next call must see it
            n = g.ns[e].size
            i = g.rng.randrange(n)
            val = g.rng.choice(["%s[%d]" % (e, (i + 1) % n), "%s[%d] + 1" % (e, i), "-50",
                                "0", "%s[0]" % e])
            g.emit("%s[%d] = %s" % (e, i, val) if g.chance(0.8) else
                   "%s += %s" % (e, g.rng.choice(["1", "2"])), "setitem.edges", [e],
                   bind=False, fn="setitem")


def _digitize(g):
    a = _some(g, "iuf")
    if not a:
        return
    bd = g.rng.choice(["float64", "float32", "int64", "int32", "uint8", "float16"])
    b = _input(g, (g.rng.choice([0, 1, 2, 5, 16, 200]),), bd,
               False if np.dtype(bd).kind in "iu" else None)
    if not b:
        return
    s = g.emit(g.rng.choice(["M.sort(%s)", "M.flip(M.sort(%s))", "%s", "M.sort(%s)"]) % b,
               "digitize.bins", [b], fn="sort")
    if not s:
        return
    for _ in range(g.rng.randint(2, 3)):
        right = ", right=True" if g.chance(0.5) else ""
        d = g.emit("M.digitize(%s, %s%s)" % (a, s, right), "digitize.s17", [a, s],
                   fn="digitize")
        if d and (_huge_int(g.ns[a]) or _huge_int(g.ns[s])):
            g.prog.vars[d].fragile = True  # NumPy orders such bins in float64 (gen.py)
        if g.ns[s].size >= 2 and g.chance(0.4):
            n = g.ns[s].size
            i, j = g.rng.randrange(n), g.rng.randrange(n)
            g.emit("%s[%d] = %s[%d]" % (s, i, s, j), "setitem.bins", [s], bind=False,
                   fn="setitem")


def _cumsum(g):
    for _ in range(g.rng.randint(2, 4)):
        d = g.dtype("biufc")
        if g.chance(0.6):
            shape = (g.rng.choice(SIZES + [70000]),)
        else:
            shape = (g.rng.choice([1, 3, 40, 300]), g.rng.choice([1, 2, 7, 130]))
        # tril of a 1-d array of n is n x n: small ones only (seed 63006108: 20,000)
        a = _input(g, shape, d) if g.chance(0.7) else g.pick(lambda y: y.size <= 300)
        if not a:
            continue
        x = g.ns[a]
        f = g.rng.choice(["cumsum", "cumsum", "nancumsum"])
        ax = g.rng.choice(["None", "0", "-1", str(x.ndim)]) if x.ndim else "None"
        args = [a, "axis=%s" % ax]
        undefined = False
        if g.chance(0.25):
            dt = g.dtype("iufc")
            args.append("dtype=%r" % dt)
            undefined = np.dtype(dt).kind in "iu" and x.dtype.kind in "fc"
        o = None
        if g.chance(0.3):
            try:
                with warnings.catch_warnings(), np.errstate(all="ignore"):
                    warnings.simplefilter("ignore")
                    ref = getattr(np, f)(x, axis=None if ax == "None" else int(ax))
            except Exception:
                ref = None
            if ref is not None:
                od = ref.dtype.name if g.chance(0.6) else g.dtype("iufc")
                undefined = undefined or (np.dtype(od).kind in "iu" and x.dtype.kind in "fc")
                o = g.emit("M.zeros(%r, dtype=%r)" % (ref.shape, od), "creation.zeros")
                if o:
                    args.append("out=%s" % o)
        v = g.emit("M.%s(%s)" % (f, ", ".join(args)), "%s.s17" % f, [a], fn=f,
                   reduce_n=x.size, undefined=undefined)
        if v and o:
            g.prog.vars[o] = g.prog.vars[v]  # written by the scan: its tolerance
        r = g.ns.get(v) if v else None
        if r is not None and r.dtype == np.float16 and G._finite(x) and not G._finite(r):
            g.prog.vars[v].fragile = True  # NumPy's float16 partial sums overflow (gen.py)


def _scalar_setops(g):
    a = _some(g)
    if not a:
        return
    s = g.rng.choice(SCALARS)
    f = g.rng.choice(["isin", "isin"] + G.SETOPS)
    args = "%s, %s" % ((a, s) if g.chance(0.8) else (s, a))
    if f == "isin" and g.chance(0.3):
        args += ", invert=True"
    g.emit("M.%s(%s)" % (f, args), "%s.scalar" % f, [a], fn=f)


def _quantile(g):
    a = _some(g, "biuf", lambda y: y.size > 0)
    if not a:
        return
    x = g.ns[a]
    if not x.size:
        return
    if g.chance(0.2):
        b = g.emit("%s > 0" % a, "compare", [a], fn="greater")  # a bool input
        a, x = (b, g.ns[b]) if b else (a, x)
    f = g.rng.choice(["quantile", "percentile", "nanquantile", "nanpercentile"])
    hi = 100 if "percentile" in f else 1
    qs = [0, hi, [0, hi], "[0, %d, 0]" % hi, 0.0, hi / 2, [0.25 * hi, hi], 0.37 * hi]
    if not G._has_nan(x):
        qs.append(g.rng.choice(["True", "False", "[True, False]"]))  # NumPy's NaN quirk
    q = g.rng.choice(qs)
    args = [a, q if isinstance(q, str) else repr(q)]
    ax = g.axis(x.ndim)
    args.append("axis=%s" % ax)
    if g.chance(0.25):
        args.append("keepdims=True")
    args.append("method=%r" % g.rng.choice(METHODS))
    v = g.emit("M.%s(%s)" % (f, ", ".join(args)), f + ".s17", [a], fn=f)
    G._tol(g, v, 4, x)
    if v and x.dtype.kind in "iu" and np.ptp(x.astype(np.float64)) > np.iinfo(x.dtype).max:
        g.prog.vars[v].fragile = True  # NumPy's lerp wraps in the integer dtype (gen.py)


def _index_fill(g):
    d = g.dtype()
    k = g.rng.randint(-6, 6)
    n = g.rng.choice([0, 1, 2, 3, 5, 17, 64, 300])
    m = g.rng.choice(["None", "0", "1", "4", str(n), "33"])
    c = g.rng.randrange(6)
    if c == 0:
        g.emit("M.eye(%d, %s, k=%d, dtype=%r)" % (n, m, k, d), "creation.eye.s17")
    elif c == 1:
        g.emit("M.tri(%d, %s, k=%d, dtype=%r)" % (n, m, k, d), "creation.tri")
    elif c == 2:
        g.emit("M.identity(%d, dtype=%r)" % (n, d), "creation.identity")
    else:
        shape = g.rng.choice([(n, int(m) if m != "None" else n), (2, 3, 4), (3, 0, 2), (5,),
                              (0,), (1, 1), (2, 1, 65, 3)])
        # tril of a 1-d array of n is n x n: small ones only (seed 63006108: 20,000)
        a = _input(g, shape, d) if g.chance(0.7) else g.pick(lambda y: y.size <= 300)
        if not a:
            return
        src = a if g.chance(0.7) or g.ns[a].ndim < 2 else "M.swapaxes(%s, -1, -2)" % a
        f = g.rng.choice(["tril", "triu"])
        g.emit("M.%s(%s, k=%d)" % (f, src, k) if g.chance(0.8) else "M.%s(%s)" % (f, src),
               f, [a], fn=f)


def _smallla(g):
    f = g.rng.choice(["solve", "inv", "det", "slogdet"])
    n = g.rng.choice([1, 2, 3, 4, 5, 8, 16, 17, 32, 33, 63, 64])
    nb = g.rng.choice([0, 0, 1, 1, 2])
    batch = tuple(g.rng.randint(1 if g.chance(0.95) else 0, 3 if n > 16 else 5)
                  for _ in range(nb))
    d = g.rng.choice(["float32", "float64", "complex64", "complex128"])
    a = _input(g, batch + (n, n), d, g.chance(0.15))
    if not a:
        return
    src = a
    mode = g.rng.random()
    if mode < 0.3:  # singular: one matrix of the batch gets two equal rows (or a zero)
        c = g.emit("%s.copy()" % a, "copy", [a], fn="copy")
        if not c:
            return
        at = "..., " if 0 in batch else "".join("%d, " % g.rng.randrange(s) for s in batch)
        if n >= 2:
            i, j = g.rng.sample(range(n), 2)
            g.emit("%s[%s%d, :] = %s[%s%d, :]" % (c, at, i, c, at, j), "setitem.singular",
                   [c], bind=False, fn="setitem")
        else:
            g.emit("%s[%s0, 0] = 0" % (c, at), "setitem.singular", [c], bind=False,
                   fn="setitem")
        src = c
    if g.chance(0.3):  # a non-contiguous operand
        src = g.rng.choice(["M.swapaxes(%s, -1, -2)", "%s[..., ::-1, :]", "%s[..., :, ::-1]"]) \
            % src
    if f == "solve":
        bs = batch + (n, g.rng.randint(1, 3)) if batch or g.chance(0.5) else (n,)
        b = _input(g, bs, g.rng.choice(["float64", d]), g.chance(0.1))
        if not b:
            return
        text = "M.linalg.solve(%s, %s)" % (src, b)
    else:
        text = "M.linalg.%s(%s)" % (f, src)
    base = src.split("[")[0].replace("M.swapaxes(", "").split(",")[0]
    v = g.emit(text, "linalg.%s.s17" % f, [base] + ([b] if f == "solve" else []),
               fn="linalg_" + f)
    if not v:
        return
    var = g.prog.vars[v]
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        x = np.asarray(eval(src, g.ns))
        xm = x.astype(np.complex128 if x.dtype.kind == "c" else np.float64)
        try:
            cond = float(np.max(np.linalg.cond(xm))) if xm.size and G._finite(xm) else \
                (1.0 if not xm.size else np.inf)
        except Exception:
            cond = np.inf
    r = g.ns[v]
    if not np.isfinite(cond) or cond > 1e4 or not all(G._finite(y) for y in (
            r if isinstance(r, tuple) else (r,))):
        var.fragile = True
        return
    e = max(max(G._eps(y) for y in (r if isinstance(r, tuple) else (r,))), G._eps(x))
    var.k += 16 * n * cond * e
    # slogdet's log|det| has det's relative error as an absolute one, its sign as well
    var.scale = max(var.scale, 1.0 if f == "slogdet" else G._maxabs(r))


def st_s17(g):
    """One of session 17's paths (the module's docstring)."""
    g.rng.choice([_unique, _histogram, _histogram, _digitize, _cumsum, _scalar_setops,
                  _quantile, _index_fill, _smallla, _smallla])(g)
