"""The scalar library (src/codegen/scalar.h, scalar_complex.h) under the CUDA
head (head_cuda.cuh) against NumPy, without a GPU: the CUDA prelude's
em_<op>_<suffix> functions also compile as host C++ (g++), so the
integer and float edge semantics -- Python-style floor_divide/remainder,
division by zero, shifts past the width, NaN-propagating maximum, signed
zeros -- are checked on the CPU.  Skips when no C++ compiler is found."""
import os
import shutil
import subprocess

import numpy as np
import pytest

CODEGEN = os.path.join(os.path.dirname(__file__), "..", "..", "src", "codegen")
PRELUDE = [os.path.abspath(os.path.join(CODEGEN, f)) for f in ("head_cuda.cuh", "scalar.h", "scalar_complex.h")]
INCLUDES = [f'#include "{f}"' for f in PRELUDE]
SUFFIX = {"bool": "b", "int8": "i8", "int16": "i16", "int32": "i32", "int64": "i64", "uint8": "u8",
          "uint16": "u16", "uint32": "u32", "uint64": "u64", "float32": "f32", "float64": "f64",
          "complex128": "c128"}
CTYPES = {"int8": "em_i8", "int16": "em_i16", "int32": "em_i32", "int64": "em_i64", "uint8": "em_u8",
          "uint16": "em_u16", "uint32": "em_u32", "uint64": "em_u64", "float32": "float", "float64": "double",
          "bool": "bool", "complex128": "em_c128"}
COMPLEX_OPS = ["divide", "multiply", "power"]
COMPLEX_UNARY = ["sqrt", "exp", "log", "sin", "cos", "tanh", "arcsinh", "arctan", "sign", "reciprocal", "absolute"]
INT_OPS = ["floor_divide", "remainder", "power", "left_shift", "right_shift", "maximum",
           "minimum", "add", "subtract", "multiply"]
INT_UNARY = ["negative", "absolute", "invert", "sign", "reciprocal"]
FLOAT_OPS = ["floor_divide", "remainder", "maximum", "minimum", "fmax", "fmin", "logaddexp", "copysign",
             "nextafter", "arctan2", "hypot", "power", "add", "divide"]
FLOAT_UNARY = ["sign", "rint", "floor", "ceil", "trunc", "absolute", "signbit", "isnan", "isinf", "isfinite",
               "sqrt", "log1p", "expm1"]


def _flit(v):
    if np.isnan(v):
        return "NAN"
    if np.isinf(v):
        return "INFINITY" if v > 0 else "-INFINITY"
    return repr(float(v))


def _lit(v, dt):
    if dt.kind == "c":
        return f"em_mk_c128({_flit(v.real)}, {_flit(v.imag)})"
    if dt.kind == "f":
        if np.isnan(v):
            return "NAN"
        if np.isinf(v):
            return "INFINITY" if v > 0 else "-INFINITY"
        return repr(float(v)) + ("f" if dt == np.float32 else "")
    if dt.kind == "b":
        return "true" if v else "false"
    return f"({CTYPES[dt.name]}){int(v)}{'ULL' if dt.kind == 'u' else 'LL'}"


def _inputs(dt, rng, n=64):
    dt = np.dtype(dt)
    if dt.kind == "f":
        edge = np.array([0.0, -0.0, 1.0, -1.0, 2.5, -2.5, 7.0, -7.0, np.inf, -np.inf, np.nan, 0.5, -0.5, 1e-30], dt)
        a = np.concatenate([edge, rng.uniform(-10, 10, n).astype(dt)])
        b = np.concatenate([np.roll(edge, 3), rng.uniform(-10, 10, n).astype(dt)])
        return a, b
    info = np.iinfo(dt)
    edge = np.array(sorted(v for v in {info.min, info.min + 1, -7, -1, 0, 1, 2, 7, info.max}
                           if info.min <= v <= info.max), dt)
    a = np.concatenate([np.repeat(edge, len(edge)), rng.integers(info.min, info.max, n, dtype=dt, endpoint=True)])
    b = np.concatenate([np.tile(edge, len(edge)), rng.integers(info.min, info.max, n, dtype=dt, endpoint=True)])
    return a, b


def _cases(rng):
    cases = []
    for dt in ["int8", "int16", "int32", "int64", "uint8", "uint32", "uint64"]:
        a, b = _inputs(dt, rng)
        for op in INT_OPS:
            bb = b
            if op == "power":
                bb = np.abs(b.astype(np.int64) % 9).astype(dt)  # NumPy refuses negative integer powers
            if op in ("left_shift", "right_shift"):
                bb = (np.abs(b.astype(np.int64)) % 80).astype(dt)
            cases.append((op, np.dtype(dt), (a, bb)))
        for op in INT_UNARY:
            aa = a[a != 0] if op == "reciprocal" else a  # NumPy's 1/0 for ints is platform noise
            cases.append((op, np.dtype(dt), (aa,)))
    for dt in ["float32", "float64"]:
        a, b = _inputs(dt, rng)
        for op in FLOAT_OPS:
            cases.append((op, np.dtype(dt), (a, b)))
        for op in FLOAT_UNARY:
            cases.append((op, np.dtype(dt), (a,)))
    c = (rng.uniform(-3, 3, 40) + 1j * rng.uniform(-3, 3, 40)).astype(np.complex128)
    d = (rng.uniform(-3, 3, 40) + 1j * rng.uniform(-3, 3, 40)).astype(np.complex128)
    for op in COMPLEX_OPS:
        cases.append((op, np.dtype(np.complex128), (c, d)))
    for op in COMPLEX_UNARY:
        cases.append((op, np.dtype(np.complex128), (c,)))
    return cases


def _program(cases):
    lines = ["#include <cmath>", "#include <math.h>", "#include <cstdio>",
             "using std::isinf; using std::isfinite; using std::signbit;",
             "#define __device__", "#define __forceinline__ inline", *INCLUDES,
             "static void out(bool v) { printf(\"%d \", (int)v); }",
             "static void out(double v) { printf(\"%.17g \", v); }",
             "static void out(float v) { printf(\"%.9g \", (double)v); }",
             "static void out(long long v) { printf(\"%lld \", v); }",
             "static void out(unsigned long long v) { printf(\"%llu \", v); }",
             "static void out(em_c128 v) { printf(\"%.17g %.17g \", v.re, v.im); }",
             "template <class T> static void out(T v) { if ((T)-1 < (T)0) out((long long)v); else out((unsigned long long)v); }",
             "int main() {"]
    for i, (op, dt, args) in enumerate(cases):
        T = CTYPES[dt.name]
        for k, arr in enumerate(args):
            lines.append(f"  static const {T} a{i}_{k}[] = {{{', '.join(_lit(v, dt) for v in arr)}}};")
        call = f"em_{op}_{SUFFIX[dt.name]}({', '.join(f'a{i}_{k}[j]' for k in range(len(args)))})"
        lines.append(f"  for (int j = 0; j < {len(args[0])}; j++) out({call}); puts(\"\");")
    lines.append("}")
    return "\n".join(lines)


@pytest.fixture(scope="module")
def results(tmp_path_factory):
    cxx = shutil.which("g++") or shutil.which("c++") or shutil.which("clang++")
    if not cxx:
        pytest.skip("no C++ compiler to build the prelude on the host")
    rng = np.random.default_rng(7)
    cases = _cases(rng)
    d = tmp_path_factory.mktemp("prelude")
    (d / "t.cpp").write_text(_program(cases))
    r = subprocess.run([cxx, "-std=c++17", "-O1", "-fwrapv", "-ffp-contract=off", "-w", "-o", str(d / "t"),
                        str(d / "t.cpp")], capture_output=True, text=True)
    if r.returncode != 0 and "_Float16" in r.stderr:
        pytest.skip("this C++ compiler has no _Float16")
    assert r.returncode == 0, r.stderr[:3000]
    out = subprocess.run([str(d / "t")], capture_output=True, text=True, check=True).stdout.splitlines()
    return list(zip(cases, out))


def test_prelude_matches_numpy(results):
    bad = []
    for (op, dt, args), line in results:
        with np.errstate(all="ignore"):
            want = getattr(np, op)(*args)
        if want.dtype.kind == "c":
            v = np.array([float(x) for x in line.split()])
            got = v[0::2] + 1j * v[1::2]
            if not np.allclose(got, want, rtol=1e-12, atol=1e-12):
                bad.append(f"{op}[{dt}]: got {got[:3]} want {want[:3]}")
            continue
        if want.dtype.kind == "f":
            got = np.array([float(x) for x in line.split()])
        else:  # exact, uint64 included
            got = np.array([int(x) for x in line.split()], dtype=want.dtype)
        if want.dtype.kind == "f":
            ok = np.array_equal(got.astype(want.dtype), want, equal_nan=True) and np.array_equal(
                np.signbit(got.astype(want.dtype)), np.signbit(want))
            if op in ("logaddexp", "log1p", "expm1", "arctan2", "hypot", "power") or dt.kind == "c":
                ok = np.allclose(got, want, rtol=4e-7 if dt == np.float32 else 1e-15, equal_nan=True)
        else:
            ok = np.array_equal(got.astype(want.dtype), want)
        if not ok:
            idx = np.flatnonzero(~np.isclose(got.astype(np.float64), want.astype(np.float64), equal_nan=True))[:3]
            bad.append(f"{op}[{dt}] at {idx}: args {[a[idx] for a in args]} got {got[idx]} want {want[idx]}")
    assert not bad, "\n".join(bad[:20])


def test_float16_rounding(tmp_path):
    """em_d2h / em_f2h round to nearest even like NumPy's float16 cast."""
    cxx = shutil.which("g++") or shutil.which("c++")
    if not cxx:
        pytest.skip("no C++ compiler")
    vals = np.array([0.1, 1 / 3, 65504.0, 65520.0, 1e-8, 2.0 ** -24, 3 * 2.0 ** -25, -0.0, 1.0009765625, 1.00048828125])
    src = "\n".join(["#include <cmath>", "#include <math.h>", "#include <cstdio>",
                     "using std::isinf; using std::isfinite; using std::signbit;",
                     "#define __device__", "#define __forceinline__ inline", *INCLUDES,
                     "int main() {", f"  const double v[] = {{{', '.join(repr(float(x)) for x in vals)}}};",
                     f"  for (int i = 0; i < {len(vals)}; i++) printf(\"%.17g %.17g\\n\", (double)em_h2f(em_d2h(v[i])),"
                     " (double)em_h2f(em_f2h((float)v[i])));", "}"])
    (tmp_path / "h.cpp").write_text(src)
    r = subprocess.run([cxx, "-std=c++17", "-w", "-o", str(tmp_path / "h"), str(tmp_path / "h.cpp")],
                       capture_output=True, text=True)
    if r.returncode != 0 and "_Float16" in r.stderr:
        pytest.skip("this C++ compiler has no _Float16")
    assert r.returncode == 0, r.stderr[:2000]
    got = np.loadtxt(subprocess.run([str(tmp_path / "h")], capture_output=True, text=True, check=True).stdout.splitlines())
    with np.errstate(over="ignore"):  # 65520 rounds to inf, as it should
        np.testing.assert_array_equal(got[:, 0], vals.astype(np.float16).astype(np.float64))
        np.testing.assert_array_equal(got[:, 1], vals.astype(np.float32).astype(np.float16).astype(np.float64))


def test_every_case_ran(results):
    assert len(results) > 150 and all(line.strip() for _, line in results)
