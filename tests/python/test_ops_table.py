"""Every row of include/ember/ops.def on the CPU against NumPy: for each op
and each dtype its kinds accept (bool too where EM_KB8 computes it in int8),
the CPU loop (the table the build generates from ops.def over the scalar
library, src/codegen/scalar.h) on random data and on special values.
tests/c/test_ops_table.c compiles the same rows for CUDA and OpenCL."""
import os
import re
import zlib

import numpy as np
import pytest

import ember as em

OPS_DEF = os.path.join(os.path.dirname(__file__), "..", "..", "include", "ember", "ops.def")
KINDS = {"EM_KB": "b", "EM_KI": "i", "EM_KU": "u", "EM_KF": "f", "EM_KC": "c", "EM_KB8": "8",
         "EM_KNUM": "iufc", "EM_KINT": "biu", "EM_KREAL": "biuf", "EM_KALL": "biufc"}
DTYPES = [np.bool_, np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32,
          np.uint64, np.float16, np.float32, np.float64, np.complex64, np.complex128]
# Results that are correctly rounded or exact in both libraries: compared bit
# for bit.  The rest go through libm (or libmvec) on one side and NumPy's own
# SIMD code on the other: a few ulps apart.
INEXACT = {"power", "sqrt", "exp", "exp2", "expm1", "log", "log1p", "log2", "log10", "sin", "cos",
           "tan", "arcsin", "arccos", "arctan", "sinh", "cosh", "tanh", "arcsinh", "arccosh",
           "arctanh", "arctan2", "hypot", "logaddexp", "logaddexp2", "cbrt", "reciprocal",
           "divide", "sign",
           # a * (float)(180 / pi): NumPy rounds its float32 constant from float
           # operands, one ulp away (as before the scalar library, CPU and CUDA)
           "deg2rad", "rad2deg"}
# Ops NumPy (and so Ember) refuse or define differently on some inputs.
INT_NONZERO_B = {"floor_divide", "remainder", "fmod"}  # int // 0: NumPy warns, platform noise


def _rows():
    rows = []
    for line in open(OPS_DEF):
        m = re.match(r"EM_OP\((\w+),\s*(\w+),\s*(\d),\s*(\w+),\s*([^\"]+?),\s*\"", line)
        if not m:
            continue
        kinds = "".join(KINDS[k.strip()] for k in m.group(5).split("|"))
        rows.append((m.group(2), int(m.group(3)), m.group(4), kinds))
    return rows


ROWS = _rows()


def _cases():
    for name, nin, res, kinds in ROWS:
        for dt in DTYPES:
            k = np.dtype(dt).kind
            ok = k in kinds or (k == "b" and ("8" in kinds or res in ("BOOL", "WHERE")))
            if res in ("FLOAT", "TRUEDIV") and k in "biu":
                ok = "f" in kinds  # integers go to a float loop
            if ok:
                yield pytest.param(name, nin, np.dtype(dt), id=f"{name}-{np.dtype(dt).name}")


def _special(dt, rng, n=64):
    """Random values plus the edge values of dt."""
    if dt.kind == "b":
        return rng.random(n) < 0.5
    if dt.kind in "iu":
        info = np.iinfo(dt)
        edge = [info.min, info.min + 1, -7, -1, 0, 1, 2, 7, info.max - 1, info.max]
        edge = [v for v in edge if info.min <= v <= info.max]
        rnd = rng.integers(max(info.min, -1000), min(info.max, 1000), n, endpoint=True)
        return np.concatenate([np.array(edge, dtype=dt), rnd.astype(dt)])
    real = np.float32 if dt in (np.float16, np.complex64) else np.float64
    fin = np.finfo(dt if dt.kind == "f" else real)
    edge = np.array([0.0, -0.0, 1.0, -1.0, 0.5, -0.5, 2.5, -2.5, 3.0, fin.max, -fin.max, fin.tiny,
                     np.inf, -np.inf, np.nan], real)
    rnd = rng.uniform(-4, 4, n).astype(real)
    x = np.concatenate([edge, rnd])
    if dt.kind == "c":
        y = np.concatenate([np.roll(edge, 5), rng.uniform(-4, 4, n).astype(real)])
        if True:  # special values only in the real part: C's and NumPy's complex
            y = np.where(np.isfinite(y), y, 0.25)  # infinities follow different annexes
        return (x + 1j * y).astype(dt)
    return x.astype(dt)


def _inputs(name, nin, dt, rng):
    a = _special(dt, rng)
    args = [a]
    for k in range(1, nin):
        b = np.roll(_special(dt, rng), 3 * k)
        args.append(b)
    if name == "where":
        args = [a.astype(bool) if dt.kind != "c" else a != 0, args[1], args[2]]
    if dt.kind in "iu":
        if name in INT_NONZERO_B:
            args[1] = np.where(args[1] == 0, 3, args[1]).astype(dt)
        if name == "power":
            args[1] = (np.abs(args[1].astype(np.int64)) % 9).astype(dt)
        if name in ("left_shift", "right_shift"):
            args[1] = (np.abs(args[1].astype(np.int64)) % 70).astype(dt)
        if name == "reciprocal":
            args[0] = np.where(args[0] == 0, 1, args[0]).astype(dt)
    # Complex products of infinities or NaNs stay out of this comparison:
    # NumPy's SIMD loops fuse the products (FMA) where ours never do, so
    # overflowing parts can differ; test_reliability.py's special-value grid
    # checks the formulas (plain product, Smith, npy_cpow) themselves.
    if dt.kind == "c" and name in ("power", "multiply", "square", "divide", "reciprocal"):
        args = [np.where(np.isfinite(x), x, 1.5).astype(dt) for x in args]
    if name in ("lcm",):  # NumPy's lcm overflows differently at the extremes
        args = [np.clip(x.astype(np.int64), -1000, 1000).astype(dt) if dt.kind == "i"
                else (x.astype(np.uint64) % np.uint64(1000)).astype(dt) for x in args]
    return args


def _equal(got, want, exact):
    if got.dtype != want.dtype or got.shape != want.shape:
        return False
    if want.dtype.kind in "biu":
        return np.array_equal(got, want)
    if want.dtype.kind == "c":  # each part (isclose of complex infinities subtracts them)
        return _equal(got.real.copy(), want.real.copy(), exact) and _equal(
            got.imag.copy(), want.imag.copy(), exact)
    if exact:
        return np.array_equal(got, want, equal_nan=True)
    tol = {np.dtype(np.float16): 2e-3, np.dtype(np.float32): 2e-6}
    rtol = tol.get(want.dtype, 1e-13)
    return np.allclose(got, want, rtol=rtol, atol=0, equal_nan=True)


@pytest.mark.parametrize("name,nin,dt", list(_cases()))
def test_cpu_loop_matches_numpy(name, nin, dt):
    rng = np.random.default_rng(zlib.crc32(f"{name} {dt.name}".encode()))
    args = _inputs(name, nin, dt, rng)
    with np.errstate(all="ignore"):
        want = getattr(np, name)(*args)
        with em.Device("cpu"):
            got = getattr(em, name)(*[em.asarray(x) for x in args]).get()
    # NumPy's SIMD complex products fuse their multiply-adds, the CPU's do
    # not: ac - bd may cancel, so the bound is on |a||b|, not on the result.
    if dt.kind == "c" and name in ("multiply", "square"):
        a, b = args[0], args[-1] if nin == 2 else args[0]
        eps = np.finfo(got.real.dtype).eps
        with np.errstate(all="ignore"):
            err = np.abs(got.astype(np.complex128) - want.astype(np.complex128))
            ok = (err <= 8 * eps * np.abs(a.astype(np.complex128)) * np.abs(b)) | (
                np.isnan(got) & np.isnan(want)) | (got == want)
        assert ok.all(), f"{name}[{dt.name}] at {np.flatnonzero(~ok)[:4]}"
        return
    exact = name not in INEXACT and not (dt.kind == "c" and name == "absolute")
    if not _equal(got, np.asarray(want), exact):
        g, w = np.asarray(got), np.asarray(want)
        bad = ~np.isclose(g.astype(np.complex128), w.astype(np.complex128), equal_nan=True)
        idx = np.flatnonzero(bad)[:4] if g.shape == w.shape else []
        pytest.fail(f"{name}[{dt.name}] at {list(idx)}: args {[x[idx] for x in args]} "
                    f"got {g[idx] if len(idx) else g.dtype} want {w[idx] if len(idx) else w.dtype}")


def test_every_row_is_walked():
    names = {r[0] for r in ROWS}
    assert len(ROWS) == len(names) > 70
    cases = list(_cases())
    assert {c.values[0] for c in cases} == names
    assert len(cases) > 500
