"""Running a program on Ember and classifying it against NumPy's run.

Classes (one per case, the first divergence found):
  ember_raises   Ember raised where NumPy worked (signature: op and exception type)
  limit          the same at Ember's documented dimension limit (32; NumPy's is 64): a
                 design limit, counted apart from the defects
  ember_returns  Ember returned where NumPy raised
  wrong_shape, wrong_dtype, wrong_value   a variable at the end of the program differs
  crash, timeout, sanitizer   counted by the parent (run.py): the child died or hung
A case whose statements all match is "ok"."""
import math
import threading
import warnings

import numpy as np

from gen import gen_program
from runtime import namespace

CLASSES = ["ok", "crash", "timeout", "sanitizer", "ember_raises", "ember_returns", "wrong_shape",
           "wrong_dtype", "wrong_value", "limit"]


def ember_namespace(em, device):
    if device and device != "cpu":
        dev = em.Device(device)

        def asarray(x):
            with dev:
                return em.asarray(x)
    else:
        asarray = em.asarray
    return namespace(em, asarray)


def _to_numpy(em, v):
    if isinstance(v, em.ndarray):
        return np.asarray(em.asnumpy(v)), str(v.dtype), tuple(v.shape)
    return v, None, None


def _close_complex(x, y, rtol, atol):
    """Componentwise, each component held to the value's magnitude (docs/precision.md):
    exp(1000j) = 0.56 + 0.83j has no more than |z|'s ULPs in either part, and 2 + 1e-17j
    from a product of complex numbers has its imaginary part's error in units of 2, not of
    1e-17.  Non-finite components must match exactly (NaN where NumPy has NaN)."""
    fin_re, fin_im = np.isfinite(x.real), np.isfinite(x.imag)
    mag = np.hypot(np.where(fin_re, x.real, 0), np.where(fin_im, x.imag, 0))
    tol = atol + rtol * mag

    def part(a, b, fin):
        same = (a == b) | (np.isnan(a) & np.isnan(b))
        return same | (fin & np.isfinite(b) & (np.abs(a - b) <= tol))
    return bool(np.all(part(x.real, y.real, fin_re) & part(x.imag, y.imag, fin_im)))


def _eq_value(x, y, k, scale, fragile):
    """Whether Ember's array y matches NumPy's x within the lineage's tolerance."""
    if fragile:
        return True
    if x.dtype.kind in "fc" and k == 0:
        # exact: equal values with NaNs in the same places (0.0 == -0.0)
        with np.errstate(all="ignore"):
            same = (x == y) | (np.isnan(x) & np.isnan(y)) if x.dtype.kind == "f" else \
                ((x.real == y.real) | (np.isnan(x.real) & np.isnan(y.real))) & \
                ((x.imag == y.imag) | (np.isnan(x.imag) & np.isnan(y.imag)))
        return bool(np.all(same))
    if x.dtype.kind in "fc":
        rtol = k
        atol = k * scale
        with np.errstate(all="ignore"):
            if x.dtype.kind == "c":
                return _close_complex(x, y, rtol, atol)
            # an overflow to inf on one side only is within tolerance near the limit
            return bool(np.allclose(x, y, rtol, atol, equal_nan=True))
    return bool(np.array_equal(x, y))


def _both_nan(x, y):
    if isinstance(x, complex):
        return _both_nan(x.real, y.real) and (x.imag == y.imag or _both_nan(x.imag, y.imag)) \
            or x.real == y.real and _both_nan(x.imag, y.imag)
    return isinstance(x, float) and math.isnan(x) and math.isnan(y)


def compare(em, npv, emv, var):
    """None if Ember's value emv matches NumPy's npv, else (class, detail)."""
    if var.fragile == 2:
        return None
    if isinstance(npv, np.generic):
        npv = np.asarray(npv)
    if isinstance(npv, np.ndarray):
        if isinstance(emv, np.ndarray) or not isinstance(emv, em.ndarray):
            return "wrong_dtype", "NumPy gives an ndarray, Ember a %s" % type(emv).__name__
        y, edt, esh = _to_numpy(em, emv)
        if esh != npv.shape or y.shape != npv.shape:
            return "wrong_shape", "shape %s, NumPy %s" % (esh, npv.shape)
        if edt != str(npv.dtype) or y.dtype != npv.dtype:
            return "wrong_dtype", "dtype %s, NumPy %s" % (edt, npv.dtype)
        if not _eq_value(npv, y, var.k, var.scale, var.fragile):
            return "wrong_value", "values differ (tolerance rtol %.3g)" % var.k
        return None
    if isinstance(npv, (tuple, list)):
        if not isinstance(emv, (tuple, list)) or len(emv) != len(npv):
            return "wrong_shape", "a %s of %d, NumPy a %s of %d" % (
                type(emv).__name__, len(emv) if hasattr(emv, "__len__") else -1,
                type(npv).__name__, len(npv))
        for a, b in zip(npv, emv):
            r = compare(em, a, b, var)
            if r:
                return r
        return None
    if isinstance(npv, np.dtype) or isinstance(npv, type):
        return None if np.dtype(npv) == np.dtype(emv) else ("wrong_dtype", "%s, NumPy %s" % (
            emv, npv))
    if isinstance(npv, (bool, int, float, complex)):
        if isinstance(emv, em.ndarray) or type(emv) is not type(npv):
            return "wrong_dtype", "%s, NumPy %s" % (type(emv).__name__, type(npv).__name__)
        if npv != emv and not _both_nan(npv, emv):
            if var.fragile or (isinstance(npv, (float, complex)) and var.k and abs(npv - emv) <=
                               var.k * max(abs(npv), var.scale)):
                return None
            return "wrong_value", "%r, NumPy %r" % (emv, npv)
    return None


def run_ember(em, prog, device):
    """Run prog's statements on Ember; the result dict for the case."""
    ns = ember_namespace(em, device)
    res = {"seed": prog.seed, "cls": "ok"}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for i, st in enumerate(prog.stmts):
            err = None
            try:
                exec(st.text, ns)
            except Exception as e:
                err = e
            if st.np_error is None and err is not None:
                msg = str(err)
                if "dimension" in msg and "32" in msg:  # Ember's limit; NumPy's is 64
                    res.update(cls="limit", sig="limit:dim_limit_32", stmt=i,
                               detail="%s: %s" % (type(err).__name__, msg[:300]))
                    return res
                res.update(cls="ember_raises", sig="ember_raises:%s:%s" % (st.op, type(err).__name__),
                           stmt=i, detail="%s: %s" % (type(err).__name__, str(err)[:300]))
                return res
            if st.np_error is not None and err is None:
                res.update(cls="ember_returns", sig="ember_returns:%s:%s" % (st.op, st.np_error),
                           stmt=i, detail="NumPy raises %s" % st.np_error)
                return res
        for name, var in prog.vars.items():
            if name not in ns:
                continue
            npv = prog.ns[name]
            if var.copy and not var.fragile:
                bind = [i for i, s in enumerate(prog.stmts) if s.bind == name][0]
                if any(s.bind is None for s in prog.stmts[bind + 1:]):
                    var = type(var)(var.k, var.scale, True, True)
            try:
                r = compare(em, npv, ns[name], var)
            except Exception as e:  # reading the value back failed: Ember raised late
                r = ("ember_raises", "%s reading %s back: %s" % (type(e).__name__, name,
                                                                  str(e)[:200]))
            if r:
                bind = [i for i, s in enumerate(prog.stmts) if s.bind == name][0]
                # a later in-place write may be the cause rather than the defining statement
                wrote = any(s.bind is None for s in prog.stmts[bind + 1:])
                dt = getattr(npv, "dtype", None)
                res.update(cls=r[0], sig="%s:%s:%s%s" % (r[0], prog.stmts[bind].op, dt,
                                                        ":then_written" if wrote else ""),
                           stmt=bind,
                           var=name, detail=r[1])
                return res
    return res


def run_cases(em, seeds, opts, device, threads=1, on_start=None):
    """Yield the result of each seed's case; threads > 1 runs that many cases at once
    (their programs are generated first, on NumPy, one at a time)."""
    opts = dict(opts or {}, device=(opts or {}).get("device", device))  # precision.md's bounds
    if threads <= 1:
        for s in seeds:
            if on_start:
                on_start(s)
            yield run_ember(em, gen_program(s, opts), device)
        return
    seeds = list(seeds)
    for k in range(0, len(seeds), threads):
        group = seeds[k:k + threads]
        if on_start:
            on_start(group[0])
        progs = [gen_program(s, opts) for s in group]
        out = [None] * len(progs)
        start = threading.Barrier(len(progs))

        def work(j):
            start.wait()
            try:
                out[j] = run_ember(em, progs[j], device)
            except BaseException as e:  # noqa: BLE001 -- a harness fault is a result too
                out[j] = {"seed": group[j], "cls": "ember_raises", "sig": "harness:%s" % (
                    type(e).__name__), "detail": str(e)[:300]}
        ts = [threading.Thread(target=work, args=(j,)) for j in range(len(progs))]
        for t in ts:
            t.start()
        for t in ts:
            t.join()
        for r in out:
            r["threads"] = len(progs)
            yield r
