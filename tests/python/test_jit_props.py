"""Property test: random arithmetic expressions compiled by @em.jit give
NumPy's values *and* NumPy 2's result dtype (weak Python literals) for every
integer and float dtype."""
import os

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

import ember as em
from ember._jit import ir
from ember._jit.dispatch import Dispatcher
from ember._jit.stencil import _source_from_text
from ember._jit.types import ArrayT

pytestmark = [pytest.mark.skipif(not em._ember._cc_available(),
                                 reason="no C compiler: " + em._ember._cc_why()),
              pytest.mark.usefixtures("cpu_unless_device_param")]

EXAMPLES = int(os.environ.get("EMBER_JIT_PROP_EXAMPLES", "40"))  # each compiles a kernel
DTYPES = ["int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64", "float32", "float64"]
INT_OPS = ["+", "-", "*", "//", "%", "&", "|", "^"]
FLOAT_OPS = ["+", "-", "*", "/", "//", "%"]


def expressions(is_float):
    leaves = st.sampled_from(["a[i]", "b[i]", "3", "1"] + (["0.5", "2.0"] if is_float else []))
    ops = FLOAT_OPS if is_float else INT_OPS

    def extend(sub):
        binary = st.tuples(sub, st.sampled_from(ops), sub).map(lambda t: f"({t[0]} {t[1]} {t[2]})")
        calls = st.tuples(st.sampled_from(["min", "max"]), sub, sub).map(lambda t: f"{t[0]}({t[1]}, {t[2]})")
        unary = sub.map(lambda e: f"abs({e})") | sub.map(lambda e: f"(-{e})")
        return binary | calls | unary

    return st.recursive(leaves, extend, max_leaves=6).filter(lambda e: "a[i]" in e or "b[i]" in e)


def _py_or_np(py, np_fn):
    """Python's function on Python scalars (literals stay weak), NumPy's on arrays."""
    return lambda *xs: py(*xs) if all(isinstance(x, (int, float)) for x in xs) else np_fn(*xs)


ORACLE = {"min": _py_or_np(min, np.minimum), "max": _py_or_np(max, np.maximum), "abs": _py_or_np(abs, np.abs)}


def numpy_eval(expr, a, b):
    with np.errstate(all="ignore"):
        return eval(expr.replace("a[i]", "a").replace("b[i]", "b"), ORACLE, {"a": a, "b": b})


def divides_by_zero(expr, a, b):
    """Whether NumPy divides an integer by zero evaluating expr (where the
    CPU kernel raises ZeroDivisionError instead of giving 0)."""
    try:
        with np.errstate(all="ignore", divide="raise"):
            eval(expr.replace("a[i]", "a").replace("b[i]", "b"), ORACLE, {"a": a, "b": b})
    except FloatingPointError:
        return True
    return False


def kernel_for(expr):
    text = ("def k(a, b, out):\n"
            "    i = em.grid(1)\n"
            "    if i < out.size:\n"
            f"        out[i] = {expr}\n")
    return Dispatcher(numpy_eval, source=_source_from_text(text, {"em": em}, "k"))


@settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data(), dt=st.sampled_from(DTYPES))
def test_expressions_match_numpy(data, dt):
    expr = data.draw(expressions(dt.startswith("float")), label="expr")
    rng = np.random.default_rng(len(expr))
    if dt.startswith("float"):
        a, b = rng.uniform(-8, 8, 64).astype(dt), rng.uniform(-8, 8, 64).astype(dt)
        b[:4] = 0
    else:
        info = np.iinfo(dt)
        a = rng.integers(info.min, info.max, 64, endpoint=True, dtype=dt)
        b = rng.integers(max(info.min, -9), min(info.max, 9), 64, endpoint=True, dtype=dt)
    k = kernel_for(expr)
    try:
        want = numpy_eval(expr, a, b)
    except OverflowError as e:  # a literal out of the dtype's range: refused at compile time too
        with pytest.raises(em.CompileError, match="out of bounds for " + dt):
            k.render(a, b, np.zeros(64, dt))
        assert "out of bounds" in str(e)
        return
    except TypeError:  # e.g. uint64 & int64 (no common integer type): refused too
        with pytest.raises(em.CompileError, match="needs integer or bool operands"):
            k.render(a, b, np.zeros(64, dt))
        return
    fn, _ = k.lower((ArrayT(dt, 1, layout="C"), ArrayT(dt, 1, layout="C"),
                     ArrayT(want.dtype.name, 1, layout="C")), "kernel")
    store = next(s for s in _walk(fn.body) if isinstance(s, ir.Store))
    got_type = store.value.a.ty if isinstance(store.value, ir.Cast) else store.value.ty
    assert got_type == want.dtype.name, expr
    out = np.zeros(64, want.dtype)
    if want.dtype.kind in "iu" and divides_by_zero(expr, a, b):
        with pytest.raises(ZeroDivisionError, match="integer division or modulo by zero in kernel '"):
            k[1, 64](a, b, out)
        return
    k[1, 64](a, b, out)
    np.testing.assert_array_equal(out, want, err_msg=expr)


def _walk(stmts):
    for s in stmts:
        yield s
        for attr in ("body", "orelse"):
            yield from _walk(getattr(s, attr, None) or [])
