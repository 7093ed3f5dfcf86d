"""Complex special values against NumPy on every device: C99 Annex G's infinities, NaNs and
signed zeros (G.6), and finite parts near overflow, through every complex ufunc.

The CPU calls C's complex libm, as NumPy does; CUDA and OpenCL compute the same functions
from formulas on the components (src/codegen/scalar_complex.h), whose non-finite inputs
follow Annex G's tables with glibc's choices where C99 leaves a sign unspecified.  The
comparison is componentwise, as the fuzzer's (tests/fuzz/execute.py::_close_complex): a
non-finite component exactly (NaN where NumPy has NaN, the sign of an infinity), a zero
exactly with its sign, a finite one within the docs/precision.md bound of the value's
magnitude."""
import numpy as np
import pytest

import ember as em

# Infinities, NaN, signed zeros, a finite value, a huge and a tiny one (issue 19's grid).
_GRID = [0.0, -0.0, 1.5, -1.5, np.inf, -np.inf, np.nan, 1e30, -1e-30]
# Finite parts whose modulus, square or exponential overflows where the result does not
# (or overflows to +-inf in NumPy too): sqrt, log, the inverse functions, sign, square.
_NEAR_MAX = {"complex64": [1e38, 3e38, -3e38, -1e38, 0.5, -0.0],
             "complex128": [1e308, -1e308, 1.7e308, 0.5, -0.0]}

_UNARY = ["sqrt", "exp", "exp2", "expm1", "log", "log2", "log10", "log1p", "sin", "cos",
          "tan", "sinh", "cosh", "tanh", "arcsin", "arccos", "arctan", "arcsinh", "arccosh",
          "arctanh", "square", "reciprocal", "sign", "absolute", "negative", "positive",
          "conjugate", "rint", "real", "imag", "isnan", "isinf", "isfinite"]
# docs/precision.md's device bounds (ULP of the value's magnitude); the rest are exact
_ULPS = {"log": 40, "log2": 40, "log10": 40, "log1p": 40, "absolute": 4, "square": 4,
         "reciprocal": 4, "sign": 4, "multiply": 4, "divide": 4}
_ULPS.update(dict.fromkeys(["sqrt", "exp", "exp2", "expm1", "sin", "cos", "tan", "sinh",
                            "cosh", "tanh", "arcsin", "arccos", "arctan", "arcsinh",
                            "arccosh", "arctanh", "power"], 16))


def _pairs(vals, dtype):
    """Every re + i im with re, im in vals, as a flat array of dtype."""
    re, im = np.meshgrid(np.array(vals), np.array(vals), indexing="ij")
    z = np.empty(re.size, dtype)
    z.real, z.imag = re.ravel(), im.ravel()
    return z


def _part_bad(want, got, tol):
    """Where a real component differs: NaN for NaN, zeros and infinities with their sign,
    finite non-zero values within tol."""
    nan = np.isnan(want)
    exact = ~nan & ((want == 0) | ~np.isfinite(want))
    ok = np.where(nan, np.isnan(got),
                  np.where(exact, (got == want) & (np.signbit(got) == np.signbit(want)),
                           np.isfinite(got) & (np.abs(got - want) <= tol)))
    return ~ok


def _bad(want, got, ulps):
    """Indices where got differs from NumPy's want (module docstring's rules)."""
    assert got.dtype == want.dtype and got.shape == want.shape
    if want.dtype.kind == "b":
        return np.flatnonzero(got != want)
    eps = np.finfo(want.dtype).eps
    with np.errstate(all="ignore"):
        if want.dtype.kind == "f":
            return np.flatnonzero(_part_bad(want, got, ulps * eps * np.abs(want)))
        fin_re, fin_im = np.isfinite(want.real), np.isfinite(want.imag)
        # the larger finite part's magnitude (hypot overflows near the largest value)
        mag = np.maximum(np.abs(np.where(fin_re, want.real, 0)),
                         np.abs(np.where(fin_im, want.imag, 0)))
        tol = ulps * eps * mag
        return np.flatnonzero(_part_bad(want.real, got.real, tol)
                              | _part_bad(want.imag, got.imag, tol))


def _check(name, args, want, got, ulps):
    bad = _bad(want, got, ulps)
    if len(bad):
        rows = ["%s(%s) = %r, NumPy %r" % (name, ", ".join(repr(a[i]) for a in args), got[i],
                                           want[i]) for i in bad[:12]]
        pytest.fail("%d of %d differ:\n%s" % (len(bad), want.size, "\n".join(rows)))


def _np(fn, *args):
    with np.errstate(all="ignore"):
        return fn(*args)


def test_comparison_catches_special_value_differences():
    # the rules themselves: a wrong NaN, infinity sign, zero sign or finite value fails
    z = np.array([complex(np.inf, np.nan), complex(0.0, -0.0), complex(1.0, 2.0)])
    assert len(_bad(z, z.copy(), 0)) == 0
    for i, wrong in ((0, complex(-np.inf, np.nan)), (0, complex(np.nan, np.nan)),
                     (1, complex(0.0, 0.0)), (1, complex(-0.0, -0.0)),
                     (2, complex(1.0, 2.0 + 1e-12)), (2, complex(np.inf, 2.0))):
        got = z.copy()
        got[i] = wrong
        assert list(_bad(z, got, 16)) == [i], wrong
    assert list(_bad(np.array([0.0, 1.0]), np.array([-0.0, 1.0]), 4)) == [0]


@pytest.mark.parametrize("dtype", ["complex64", "complex128"])
@pytest.mark.parametrize("op", _UNARY)
def test_unary_special_values(device, dtype, op):
    with np.errstate(all="ignore"):
        z = np.concatenate([_pairs(_GRID, dtype), _pairs(_NEAR_MAX[dtype], dtype)])
    got = em.asnumpy(getattr(em, op)(em.asarray(z)))
    _check(op, [z], _np(getattr(np, op), z), got, _ULPS.get(op, 0))


# A smaller grid for the binary operations: every pair of 64 values, and powers with the
# integer exponents NumPy multiplies out, others it takes as exp(b log a), complex ones.
_BIN_GRID = [0.0, -0.0, 1.5, -1.5, np.inf, -np.inf, np.nan, 1e30]
_EXPONENTS = [2, 3, -1, -2, 0.5, 2.5, 1j, 1 + 1j, 0.5 - 2j]


@pytest.mark.parametrize("dtype", ["complex64", "complex128"])
@pytest.mark.parametrize("op", ["multiply", "divide", "power"])
def test_binary_special_values(device, dtype, op):
    s = _pairs(_BIN_GRID, dtype)
    if op == "power":
        e = np.array(_EXPONENTS, dtype)
        a, b = np.repeat(s, e.size), np.tile(e, s.size)
    else:
        a, b = np.repeat(s, s.size), np.tile(s, s.size)
    got = em.asnumpy(getattr(em, op)(em.asarray(a), em.asarray(b)))
    # multiply: NumPy's loops on a CPU with FMA (x86-64 with AVX2, AArch64) form the real
    # part as fma(a.re, b.re, -a.im b.im), so (1e30 + inf i) * (1e30 + inf i) in float is
    # -inf + inf i where NumPy's scalar product (and its loop without FMA) is NaN + inf i;
    # Ember follows the loops, the oracle here
    _check(op, [a, b], _np(getattr(np, op), a, b), got, _ULPS[op])


def test_special_values_through_layouts_and_fusion(device):
    # the same functions in a strided, reversed view, a 0-d array and a fused chain
    z = _pairs(_GRID, "complex128").reshape(9, 9)
    x = em.asarray(z)
    v, zv = x[::-1, ::2], z[::-1, ::2]
    for op in ("sqrt", "exp", "tanh", "arccosh"):
        _check(op, [zv.ravel()], _np(getattr(np, op), zv).ravel(),
               em.asnumpy(getattr(em, op)(v)).ravel(), 16)
    for k in (4 * 9 + 4, 6 * 9 + 4, 0 * 9 + 4):  # inf + inf i, NaN + inf i, 0 + inf i
        want = _np(np.sqrt, z.ravel()[k:k + 1]).reshape(())
        got = em.asnumpy(em.sqrt(em.asarray(z.ravel()[k])))
        _check("sqrt", [z.ravel()[k:k + 1]], want.reshape(1), got.reshape(1), 16)
    # a chain the planner fuses into one kernel: the special branches inside it
    want = _np(lambda t: np.tanh(np.sqrt(t) * 2) + np.exp(t), z)
    got = em.asnumpy(em.tanh(em.sqrt(x) * 2) + em.exp(x))
    _check("tanh(sqrt(z) * 2) + exp(z)", [z.ravel()], want.ravel(), got.ravel(), 16)
