"""Regression tests for the differences from NumPy that the fuzzer (tests/fuzz/) listed as
known in expectations.txt and that are now fixed: each test pins NumPy's behaviour on
several dtypes and edge shapes, so the expectation line can stay removed."""
import warnings

import numpy as np
import pytest

import ember as em


def _both(f, *arrays):
    """f on NumPy and on Ember arrays: (NumPy's outcome, Ember's outcome), each a value or
    the exception type it raised."""
    out = []
    for M, conv in ((np, np.asarray), (em, em.asarray)):
        try:
            out.append(f(M, *[conv(a) for a in arrays]))
        except Exception as e:  # noqa: BLE001 -- the exception type is the outcome
            out.append(type(e))
    return out


def _check(f, *arrays):
    want, got = _both(f, *arrays)
    if isinstance(want, type):
        # NumPy's UFuncTypeError family derives from TypeError, which Ember raises
        assert isinstance(got, type) and (got is want or (
            got is TypeError and issubclass(want, TypeError))), \
            "NumPy raises %s, Ember gives %r" % (want.__name__, got)
        return
    assert not isinstance(got, type), "Ember raises %s, NumPy gives %r" % (got.__name__, want)
    got_np = np.asarray(em.asnumpy(got)) if isinstance(got, em.ndarray) else np.asarray(got)
    want = np.asarray(want)
    assert got_np.dtype == want.dtype and got_np.shape == want.shape, (got_np, want)
    np.testing.assert_array_equal(got_np, want)


# ---- min/max with initial= and where=; the nan-reductions' where= ----

BOOLS = np.array([[True, False, False], [False, False, True]])
FLOATS = np.array([[1.0, np.nan, 3.0], [np.nan, np.nan, -2.0]])
MASK = np.array([True, False, True])


@pytest.mark.parametrize("f", ["max", "min"])
@pytest.mark.parametrize("initial", [0, 1, -5])
@pytest.mark.parametrize("axis", [None, 0, 1, -1])
@pytest.mark.parametrize("src", [BOOLS, BOOLS[:, :0], np.array(True), FLOATS.astype("float32"),
                                 np.arange(6, dtype="uint8").reshape(2, 3), np.arange(3) - 1])
def test_minmax_initial_keeps_the_dtype(device, f, initial, axis, src):
    # NumPy casts initial to the array's dtype: a bool max with initial=0 stays bool, -5
    # into uint8 is an OverflowError.
    if src.ndim == 0 and axis not in (None, 0, -1):
        return
    _check(lambda M, a: getattr(M, f)(a, axis=axis, initial=initial), src)


@pytest.mark.parametrize("f", ["max", "min", "sum", "prod", "mean", "var", "std", "any", "all",
                               "nanmax", "nanmin", "nanmean", "nansum", "nanprod"])
@pytest.mark.parametrize("axis", [None, 0, 1])
def test_where_true_is_no_mask(device, f, axis):
    # where=True (the Python bool) masks nothing: min/max need no initial for it.
    _check(lambda M, a: getattr(M, f)(a, axis=axis, where=True), FLOATS[:, [0, 2]])
    _check(lambda M, a: getattr(M, f)(a, axis=axis, where=True), BOOLS.astype("int16"))


@pytest.mark.parametrize("f", ["max", "min", "nanmax", "nanmin"])
def test_where_mask_needs_initial(device, f):
    _check(lambda M, a, m: getattr(M, f)(a, where=m), FLOATS, MASK)
    _check(lambda M, a, m: getattr(M, f)(a, axis=0, where=m), FLOATS, np.bool_(True))
    with pytest.raises(ValueError, match="does not have an identity"):
        getattr(em, f)(em.asarray(FLOATS), where=em.asarray(MASK))


@pytest.mark.parametrize("f,initial", [("nanmax", -1.0), ("nanmin", 9.0), ("nanmax", 5)])
@pytest.mark.parametrize("axis", [None, 0, 1])
@pytest.mark.parametrize("dt", ["float64", "float32", "int32"])
def test_nan_minmax_initial_and_where(device, f, initial, axis, dt):
    src = FLOATS if dt.startswith("float") else np.arange(6).reshape(2, 3) - 2
    src = src.astype(dt)
    _check(lambda M, a, m: getattr(M, f)(a, axis=axis, where=m, initial=initial), src, MASK)
    _check(lambda M, a: getattr(M, f)(a, axis=axis, initial=initial), src)
    # an all-NaN slice gives initial when one is given, NaN otherwise
    _check(lambda M, a: getattr(M, f)(a, axis=axis, initial=initial), np.full((2, 2), np.nan))


@pytest.mark.parametrize("axis", [None, 0, 1])
@pytest.mark.parametrize("dt", ["float64", "float32", "complex128", "int64"])
def test_nanmean_where(device, axis, dt):
    src = FLOATS.astype(dt) if dt[0] in "fc" else np.arange(6, dtype=dt).reshape(2, 3)
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # NumPy's "Mean of empty slice"
        _check(lambda M, a, m: M.nanmean(a, axis=axis, where=m), src, MASK)


# ---- x.real and x.conj() of a real array are x itself, as in NumPy ----

@pytest.mark.parametrize("dt", ["bool", "int8", "uint32", "float16", "float64"])
@pytest.mark.parametrize("get", [lambda M, x: x.real, lambda M, x: M.real(x),
                                 lambda M, x: x.conj(), lambda M, x: x.conjugate()])
def test_real_and_conj_of_real_alias(device, dt, get):
    src = np.arange(6).reshape(2, 3)[:, ::-1].astype(dt)
    for M, x in ((np, src.copy()), (em, em.asarray(src))):
        r = get(M, x)
        assert r is x
        x[0, 0] = 0  # the write shows through, as in NumPy
        assert not bool(r[0, 0])


def test_real_of_complex_is_a_view(device):
    x = em.asarray(np.array([1 + 2j, 3 - 4j]))
    r = x.real
    x[0] = 7
    np.testing.assert_array_equal(em.asnumpy(r), [7.0, 3.0])
    assert em.real(em.asarray(np.arange(3)), dtype="float32").dtype == np.float32


# ---- ravel copies unless the array is contiguous in the order read ----

_A = np.arange(12.0).reshape(3, 4)


@pytest.mark.parametrize("key", [(0, slice(None, None, -1)), (0, slice(None, None, 2)),
                                 (slice(None), 1), (slice(None, None, -1),), (slice(1, 2),),
                                 (slice(None, None, -1), slice(None, None, -1)),
                                 (slice(None, 2), slice(None, 2)), "T", (slice(0, 0),)])
@pytest.mark.parametrize("order", ["C", "F", "A", "K"])
@pytest.mark.parametrize("dt", ["int16", "float64", "complex64"])
@pytest.mark.parametrize("method", [True, False])
def test_ravel_copies_unless_contiguous(device, key, order, dt, method):
    outs = []
    for M in (np, em):
        base = M.asarray(_A.astype(dt))
        x = base.T if key == "T" else base[key]
        r = x.ravel(order) if method else M.ravel(x, order)
        x[...] = -1  # shows through a view only
        outs.append(r)
    want, got = outs
    assert got.shape == want.shape and got.dtype == want.dtype
    np.testing.assert_array_equal(em.asnumpy(got), want)


# ---- assignment through a full boolean mask takes 0-d and 1-d values only ----

_M = np.array([[1, 0, 1], [0, 1, 0]], bool)


@pytest.mark.parametrize("key", [_M, (_M,), _M.tolist(), _M[0], np.array(True), _M[:, :0]])
@pytest.mark.parametrize("vshape", [(), (1,), (3,), (2,), (1, 3), (1, 1), (1, 2, 3), (0,)])
@pytest.mark.parametrize("dt", ["int32", "float64", "bool"])
def test_mask_assignment_value_ndim(device, key, vshape, dt):
    outs = []
    for M in (np, em):
        a = M.zeros((2, 3), dtype=dt)
        k = key if M is np or isinstance(key, list) else \
            tuple(em.asarray(x) for x in key) if isinstance(key, tuple) else em.asarray(key)
        try:
            a[k] = M.ones(vshape, dtype=dt)
            outs.append(a)
        except Exception as e:  # noqa: BLE001 -- the exception type is the outcome
            outs.append(type(e))
    want, got = outs
    if isinstance(want, type):
        assert got is want or issubclass(got, want), (want, got)
    else:
        np.testing.assert_array_equal(em.asnumpy(got), want)


# ---- where(c, int_array, python_int): NumPy 2 wraps the int into the array's dtype ----

@pytest.mark.parametrize("dt", ["int8", "int32", "uint8", "uint64", "int64"])
@pytest.mark.parametrize("v", [2**31, -1, 300, 2**63, 2**64 - 1, -2**63, 2**64, -2**63 - 1, 5])
@pytest.mark.parametrize("side", [1, 2])
@pytest.mark.parametrize("lazy", [False, True])
def test_where_wraps_python_int(device, dt, v, side, lazy):
    c = np.array([[True, False, True]])
    x = np.array([1, 2, 3], dtype=dt)

    def f(M, c, x):
        if lazy:
            x = x + x  # a pending fused producer
        return M.where(c, x, v) if side == 2 else M.where(c, v, x)
    try:
        f(np, c, x)
    except OverflowError:
        if -2**63 <= v < 2**64:  # NumPy 2.5 (the GPU machine has 2.5.2) refuses what 2.4 wraps
            pytest.skip(f"NumPy {np.__version__} raises where NumPy 2.4, which Ember follows, wraps (2.5 refuses)")
    _check(f, c, x)


# ---- integer ** negative integer raises only where a negative exponent is met ----

@pytest.mark.parametrize("dt", ["int8", "int32", "int64", "uint8"])
@pytest.mark.parametrize("xs,ys", [((0,), None), ((0, 3), (3,)), ((2, 0), (2, 1)), ((2,), (2,)),
                                   ((), (0,)), ((3, 1), (0,))])
@pytest.mark.parametrize("op", ["**", "power"])
def test_int_power_negative_exponent_on_empty(device, dt, xs, ys, op):
    x = np.arange(int(np.prod(xs)), dtype=dt).reshape(xs) + 2
    y = -1 if ys is None else -(np.arange(int(np.prod(ys))).reshape(ys) % 2) - 1
    y = y if ys is None else y.astype("int16")
    if ys is None:
        _check(lambda M, x: x ** y if op == "**" else M.power(x, y), x)
    else:
        _check(lambda M, x, y: x ** y if op == "**" else M.power(x, y), x, y)


# ---- sign, positive and negative have no bool loop (NumPy raises), lazy inputs too ----

@pytest.mark.parametrize("f", [lambda M, b: M.sign(b), lambda M, b: M.positive(b),
                               lambda M, b: M.negative(b), lambda M, b: +b, lambda M, b: -b,
                               lambda M, b: b.__neg__()])
@pytest.mark.parametrize("shape", [(), (0,), (3,), (2, 70000)])
@pytest.mark.parametrize("lazy", [False, True])
def test_sign_positive_negative_of_bool_raise(device, f, shape, lazy):
    b = np.ones(shape, bool)
    with pytest.raises(TypeError):
        f(np, b)
    x = em.asarray(b)
    with pytest.raises(TypeError):
        f(em, em.logical_not(x) if lazy else x)


# ---- one bool element takes any object's truth (NumPy's bool setitem) ----

@pytest.mark.parametrize("shape,key", [((), ()), ((3,), 0), ((3,), -1), ((2, 2), (0, 1))])
@pytest.mark.parametrize("v", [[1, 2], [0, 0], [], [[0]], "x", "", None, 2 + 0j, 0.0,
                               np.float32(0.0), np.array([0]), np.array([7]), np.array([]),
                               np.array([1, 2]), np.array(0.5), "em1", "em0", "em2"])
@pytest.mark.parametrize("dt", ["bool", "int32"])
def test_setitem_one_element_truth(device, shape, key, v, dt):
    outs = []
    for M in (np, em):
        a = M.zeros(shape, dtype=dt)
        val = v
        if isinstance(v, str) and v.startswith("em"):
            val = (np if M is np else em).asarray([1] * int(v[2]))
        try:
            a[key] = val
            outs.append(a)
        except Exception as e:  # noqa: BLE001 -- the exception type is the outcome
            outs.append(type(e))
    want, got = outs
    if isinstance(want, type):
        assert isinstance(got, type) and issubclass(got, (want, ValueError, TypeError)), got
    else:
        assert not isinstance(got, type), "Ember raises %s" % got.__name__
        np.testing.assert_array_equal(em.asnumpy(got), want)


# ---- complex round: the parts rounded apart, as NumPy ----

@pytest.mark.parametrize("dt", ["complex64", "complex128"])
@pytest.mark.parametrize("d", [-2, -1, 1, 2, 3, 7])
@pytest.mark.parametrize("shape", [(), (0,), (5, 7)])
def test_complex_round_exact(device, dt, d, shape):
    rng = np.random.default_rng(abs(d) + len(shape))
    n = int(np.prod(shape))
    z = (rng.standard_normal(n) * 10.0 ** rng.integers(-3, 6, n) +
         1j * rng.standard_normal(n) * 10.0 ** rng.integers(-3, 6, n))
    special = [np.inf, -np.inf, np.nan, 0.0, -0.0, 1e300]
    z = np.where(rng.random(n) < 0.2, rng.choice(special, n) + 1j * z.imag, z)
    z = z.astype(dt).reshape(shape)
    with np.errstate(all="ignore"):
        want = np.round(z, d)
        got = em.asnumpy(em.round(em.asarray(z), d))
        flip = (Ellipsis, slice(None, None, -1)) if z.ndim else ()  # a negative stride
        got2 = em.asnumpy(em.asarray(z)[flip].round(d))[flip]
    for g in (got, got2):
        assert g.dtype == want.dtype and g.shape == want.shape
        np.testing.assert_array_equal(g, want)  # exact: NaNs in the same places
    out = em.zeros(shape, dtype=dt)
    assert em.round(em.asarray(z), d, out=out) is out
    np.testing.assert_array_equal(em.asnumpy(out), want)


# ---- x ** 0.5 as NumPy's sqrt fast paths: (-inf) ** 0.5 is nan ----

_POW_X = np.array([-np.inf, np.inf, -4.0, 4.0, -0.0, 0.0, np.nan, 2.5])


@pytest.mark.parametrize("dt", ["float16", "float32", "float64", "complex64", "complex128"])
@pytest.mark.parametrize("form", ["op", "iop", "power", "power_np64", "power_0d", "op_0d",
                                  "power_bcast", "power_arr", "power_f32_scalar"])
@pytest.mark.parametrize("view", [False, True])
def test_power_half_as_numpy(request, device, dt, form, view):
    # On a device the exponent is tested in the kernel (codegen/render.c, em__power_half):
    # the H200 run of 2026-11-26 gave C's pow for these forms before.
    x = _POW_X.astype(dt)
    if view:
        x = np.stack([x, x])[:, ::-1]  # 2-d, negative strides

    def f(M, x):
        half = {"power_np64": np.float64(0.5), "power_0d": M.asarray(0.5),
                "op_0d": M.asarray(0.5), "power_bcast": M.asarray([0.5], dtype=dt),
                "power_arr": M.asarray(np.full(x.shape, 0.5, dt)),
                "power_f32_scalar": np.float32(0.5)}.get(form, 0.5)
        if form == "iop":
            x = x.copy()
            x **= half
            return x
        return x ** half if form.startswith("op") else M.power(x, half)
    with np.errstate(all="ignore"):
        want, got = _both(f, x)
    assert not isinstance(got, type), got
    got = em.asnumpy(got)
    assert got.dtype == want.dtype
    # exact where NumPy takes sqrt (its scalar fast paths), a few ulp where it calls pow
    tol = 0 if np.all(np.isclose(want.real, np.sqrt(x.astype(want.dtype)).real, 0, 0,
                                 equal_nan=True)) else 4 * np.finfo(want.dtype).eps
    np.testing.assert_allclose(got, want, rtol=tol, atol=tol, equal_nan=True)


# ---- dtype=float16 rounds the inputs to float16 first, as NumPy's float16 loops ----

@pytest.mark.parametrize("src", ["uint16", "int32", "float32", "float64", "bool", "float16"])
@pytest.mark.parametrize("f", ["arcsinh", "tan", "sqrt", "add", "multiply", "maximum"])
def test_dtype_float16_rounds_inputs(device, src, f):
    x = np.array([0, 1, 3, 20, 2049, 65535, 1000, 30000, 65519], dtype="float64")
    if src == "float32":
        x = x + 1 / 3
    x = x.astype(src)
    nin = 2 if f in ("add", "multiply", "maximum") else 1
    with np.errstate(all="ignore"):
        want, got = _both(lambda M, x: getattr(M, f)(*[x] * nin, dtype="float16"), x)
    got = em.asnumpy(got)
    assert got.dtype == want.dtype
    # exact for the IEEE ops; 4 ulp (float16) for the transcendentals
    tol = 0 if f in ("sqrt", "add", "multiply", "maximum") else 4 * np.finfo("float16").eps
    np.testing.assert_allclose(got.astype("float64"), want.astype("float64"), rtol=tol,
                               equal_nan=True)


# ---- reductions with dtype=float16 cast the input to float16 first, as NumPy ----

@pytest.mark.parametrize("src", ["int32", "float64", "float32", "uint16"])
@pytest.mark.parametrize("f", ["sum", "prod", "mean", "cumsum", "cumprod"])
@pytest.mark.parametrize("dt", ["float16", np.float16, "e"])
def test_reduction_dtype_float16_casts_input(device, src, f, dt):
    x = np.array([[70000, 0, 3], [2, 100, 1]]).astype(src)  # 70000 is inf in float16
    for axis in (None, 0, 1):
        with np.errstate(all="ignore"):
            want, got = _both(lambda M, x: getattr(M, f)(x, axis=axis, dtype=dt), x)
        got = em.asnumpy(got)
        assert got.dtype == want.dtype == np.float16
        np.testing.assert_array_equal(got, want)


# ---- integer wraparound in fused chains, on every device ----
# NVRTC has no -fwrapv: abs(x) written as x < 0 ? 0 - x : x let it take abs(INT64_MIN) as
# non-negative and drop remainder's sign fix (CUDA gave -808 for abs(INT64_MIN) % 1000;
# the fuzzer's "loop.start" case 20000899).  The scalar library now wraps in unsigned types.

@pytest.mark.parametrize("dt", ["int8", "int16", "int32", "int64", "uint16", "uint64"])
def test_fused_integer_wraparound(request, device, dt):
    # CUDA gave 1 for -x % 7 at INT16_MIN and 648 for abs(x) % 1000 at INT32_MIN (the H200
    # run of 2026-11-26) from right PTX (neg.s16, abs.s32): the scalar library now wraps
    # them in a wider type behind an empty asm (head_cuda.cuh, EM_WRAP32/64).
    info = np.iinfo(dt)
    vals = [info.min, info.max, 0, 1, 7, info.min + 1, info.max - 1] + ([-1] if info.min else [])
    x = np.array(vals * 40, dtype=dt)

    def loop(M, v):
        for _ in range(2):  # the fuzzer's loop bodies, fused
            v = abs(v) % 1000
            v = v // 2 + 3
            v = M.minimum(v, 500)
        return v
    with np.errstate(all="ignore"):
        for f in (loop, lambda M, v: abs(v) % 1000, lambda M, v: -v % 7, lambda M, v: v * v + v,
                  lambda M, v: (v - 1) * 3 // 5, lambda M, v: abs(v - 1) // 3,
                  lambda M, v: M.square(v) % 1000):
            want, got = _both(f, x)
            np.testing.assert_array_equal(em.asnumpy(got), want)


# ---- abs(complex, dtype=float) is NumPy's complex -> real loop ----

@pytest.mark.parametrize("src", ["complex64", "complex128"])
@pytest.mark.parametrize("dt", ["float32", "float64", "complex128", "float16", "int32"])
@pytest.mark.parametrize("lazy", [False, True])
def test_abs_of_complex_with_dtype(device, src, dt, lazy):
    z = np.array([[3 + 4j, -1 - 1j, 0j], [np.inf + 1j, 1e-3 + 0j, -2j]], dtype=src)
    _check(lambda M, z: M.abs(z * 2 + 1 if lazy else z, dtype=dt), z)


# ---- where() with a Python int out of the result's integer range ----
# NumPy 2.5 raises OverflowError (NEP 50), 2.4 wrapped: Ember follows the NumPy it runs
# with (the H200 campaign's ember_returns:where*:OverflowError, 20 cases in 50,000).

@pytest.mark.parametrize("dt,v", [("int32", 2**31), ("int32", -2**31 - 1), ("int8", 300),
                                  ("uint8", -1), ("uint16", 2**16), ("int64", 2**63)])
def test_where_python_int_range_as_numpy(dt, v):
    a = np.array([1, 2], dtype=dt)
    for f in (lambda M, a: M.where(M.asarray([True, False]), a, v),
              lambda M, a: M.where(M.asarray([True, False]), v, a)):
        with np.errstate(all="ignore"):
            want, got = _both(f, a)
        if isinstance(want, type):
            assert got is want, (want, got)
        else:
            assert not isinstance(got, type), got
            np.testing.assert_array_equal(em.asnumpy(got), want)
            assert em.asnumpy(got).dtype == want.dtype


def test_where_python_int_range_check(monkeypatch):
    """The NumPy 2.5 rule itself, whichever NumPy is installed."""
    from ember import _ufuncs
    monkeypatch.setattr(_ufuncs, "_WHERE_CHECKS_INTS", True)
    c = em.asarray([True, False])
    a = em.asarray(np.array([1, 2], "int32"))
    with pytest.raises(OverflowError, match="2147483648 out of bounds for int32"):
        em.where(c, a, 2**31)
    with pytest.raises(OverflowError, match="out of bounds for uint8"):
        em.where(c, -1, em.asarray(np.array([1, 2], "uint8")))
    assert em.asnumpy(em.where(c, a, 2**31 - 1)).tolist() == [1, 2**31 - 1]
    assert em.where(c, a, 2.5).dtype == np.float64  # a float operand: no integer range
    assert em.asnumpy(em.where(c, True, a)).tolist() == [1, 2]  # bool is not a Python int


# ---- integer-array indices whose result is empty are still checked, on every device ----
# x[[5]] of a (3, 0, 2) array selects blocks of size 0; NumPy raises IndexError all the same.
# On a device the gather had no element to copy and returned an empty result (the CUDA
# campaign's ember_returns:index.int_array / index.take).

@pytest.mark.parametrize("idx", [[5], [-4], [1, 2], [[0], [2]], [0, 3]])
def test_empty_gather_checks_indices(device, idx):
    x = np.zeros((3, 0, 2), dtype=np.float32)
    for f in (lambda M, x: x[M.asarray(idx)], lambda M, x: M.take(x, M.asarray(idx), axis=0),
              lambda M, x: x[M.asarray(idx), :, 1:]):
        want, got = _both(f, x)
        if isinstance(want, type):
            assert got is want, (idx, want, got)
        else:
            assert not isinstance(got, type), got
            assert em.asnumpy(got).shape == want.shape


# ---- complex transcendentals on a device: no intermediate overflow ----
# The devices compute complex functions with scalar_complex.h's formulas (the CPU calls
# libm's, NumPy's own).  exp(x) or cosh(x) past exp's range times sin(0) gave NaN parts
# where NumPy has finite ones (the H200 fuzz found exp2 of a float16 sum, dtype=complex64),
# and tanh = sinh / cosh gave inf / inf where NumPy has +-1.  PoCL runs the same formulas.

@pytest.mark.skipif(not em.opencl.is_available(), reason="no OpenCL device")
@pytest.mark.parametrize("dt", ["complex64", "complex128"])
def test_device_complex_large_arguments(dt):
    big = 95.0 if dt == "complex64" else 750.0
    z = np.array([big + 0j, -big + 0j, 1j * big, -1j * big, big + 0.5j, 30 - 2j, 0.3 + 0.7j,
                  -0.0 + 0j, 2.0 - 0j, np.nan + 0j], dtype=dt)
    d = em.Device("opencl:0")
    with np.errstate(all="ignore"):
        for fn in ("exp", "exp2", "sin", "cos", "sinh", "cosh", "tan", "tanh"):
            want = getattr(np, fn)(z)
            with d:
                got = em.asnumpy(getattr(em, fn)(em.asarray(z)))
            assert got.dtype == want.dtype
            for part in ("real", "imag"):
                w, g = getattr(want, part), getattr(got, part)
                # non-finite parts exactly, finite ones within 16 ulp of |z| (precision.md)
                assert np.array_equal(np.isnan(w), np.isnan(g)), (fn, z, want, got)
                assert np.array_equal(w[np.isinf(w)], g[np.isinf(w)]), (fn, z, want, got)
                fin = np.isfinite(w)
                tol = 16 * np.finfo(dt).eps * np.where(np.isfinite(want), abs(want), 1)[fin]
                assert np.all(np.abs(w[fin] - g[fin]) <= tol), (fn, part, want, got)


# Campaign seed 2037987 (H100 host, NumPy 2.5.2): nanmax of a complex slice of NaNs only gave
# nan+0j; NumPy's fmax keeps the first of two NaNs, so the slice's first element comes back.
@pytest.mark.parametrize("fn", ["nanmax", "nanmin"])
@pytest.mark.parametrize("axis", [None, 0, 2, -1, (0, 1), (1, 2), (0, 2)])
@pytest.mark.parametrize("keepdims", [False, True])
def test_complex_all_nan_slice_keeps_first(device, fn, axis, keepdims):
    rng = np.random.default_rng(3)
    a = (rng.standard_normal((3, 4, 5)) + 1j * rng.standard_normal((3, 4, 5))).astype(np.complex64)
    a[0] = np.nan + 1j * rng.standard_normal((4, 5))
    a[:, 1] = np.nan - 2j
    a[:, :, 2] = complex(np.nan, 3)
    with np.errstate(invalid="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        want = np.asarray(getattr(np, fn)(a, axis=axis, keepdims=keepdims))
        got = np.asarray(getattr(em, fn)(em.asarray(a, device=device), axis=axis,
                                         keepdims=keepdims).get())
    assert got.shape == want.shape
    np.testing.assert_array_equal(got.reshape(-1).view(np.float32),
                                  want.reshape(-1).view(np.float32))


# ---- the sign of a NaN: defined only through copy, negate, abs and copysign ----
# The H100 host's campaign under NumPy 2.5.2 (seeds 2021672, 2075178): copysign(1, log10(x))
# of a negative x differed in sign.  IEEE 754 (6.3) leaves the sign of a NaN that arithmetic
# made or passed on unspecified, and NumPy's own loops differ (float32 log(-1) is -nan and
# float64 log(-1) +nan on an AVX2 machine; the AVX-512 host's log10 gave the other sign), so
# the fuzzer compares copysign and signbit of such a NaN for shape and dtype only; what IEEE
# does define, Ember keeps as NumPy does.

@pytest.mark.parametrize("dt", ["float16", "float32", "float64"])
@pytest.mark.parametrize("shape", [(), (0,), (7,), (3, 5)])
@pytest.mark.parametrize("view", [False, True])
def test_nan_sign_of_sign_operations(device, dt, shape, view):
    n = int(np.prod(shape))
    base = np.array([np.nan, -np.nan, 1.5, -0.0, np.inf, -2.0, 0.0] * 3, dtype=dt)[:n]
    y = np.array([-1.0, 2.0, -np.nan, np.nan, 0.0, -0.0, -3.0] * 3, dtype=dt)[:n]
    x, y = base.reshape(shape), y.reshape(shape)
    if view and x.ndim:
        x, y = x[..., ::-1], y[..., ::-1]  # negative strides
    for f in (lambda M, a, b: M.signbit(a), lambda M, a, b: M.signbit(-a),
              lambda M, a, b: M.signbit(M.abs(a)), lambda M, a, b: M.copysign(a, b),
              lambda M, a, b: M.copysign(1.5, a), lambda M, a, b: M.signbit(M.copysign(a, -b)),
              lambda M, a, b: M.copysign(M.negative(b), -a) * 2,  # a fused chain
              lambda M, a, b: M.signbit(M.where(b > 0, a, -a))):
        want, got = _both(f, x, y)
        got = np.asarray(em.asnumpy(got))
        assert got.dtype == want.dtype and got.shape == want.shape
        if str(device) != "cpu":
            # PTX's neg/abs give "an unspecified NaN" for a NaN input (the H100 returned +nan
            # for -(+nan)): on a GPU only the places no NaN reaches are compared bit for bit
            # and the NaNs as NaNs; the fuzzer's rule is the same (gen.py, fragile on devices).
            keep = ~np.broadcast_to(np.isnan(x) | np.isnan(y), want.shape)
            got, want = got[keep], want[keep]
        # bit for bit: NaNs' signs included
        np.testing.assert_array_equal(np.signbit(got), np.signbit(want))
        np.testing.assert_array_equal(got, want)


def test_fuzzer_nan_sign_rule():
    import os
    import sys
    sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "fuzz"))
    from gen import Gen, gen_program
    # the campaign's two cases: copysign of log10's NaN is compared for shape and dtype only
    assert gen_program(2021672, {"device": "cpu", "algos": False}).vars["v5"].fragile
    assert gen_program(2075178, {"device": "cpu", "algos": False}).vars["v8"].fragile
    g = Gen(1, {"max_len": 10})
    g.ns["v0"] = np.array([-1.5, 2.0, np.nan, -np.nan], np.float32)  # input NaNs, both signs
    g.n = 1
    made = g.emit("M.log10(v0)", "log10", ["v0"], fn="log10")
    neg = g.emit("M.negative(v0)", "negative", ["v0"], fn="negative")
    for a, fragile in (("v0", False), (neg, False), (made, True)):
        for text, fn in (("M.copysign(2.0, %s)", "copysign"), ("M.signbit(%s)", "signbit")):
            v = g.emit(text % a, fn, [a], fn=fn)
            assert bool(g.prog.vars[v].fragile) is fragile, (text % a, fragile)
    # on a device even an input's NaN may come back canonical: never compared there
    g.opts["device"] = "cuda:0"
    assert g.prog.vars[g.emit("M.signbit(v0)", "signbit", ["v0"], fn="signbit")].fragile


# ---- complex inverse functions with an infinite part on the devices ----
# The H100 campaign (seed 17001398): arctan(inf + 0j) gave pi/2 + nan j on cuda:0 (log's
# inf - inf inside arctanh); arccosh had the same hole.  The CPU uses C's complex libm, so the
# devices' formulas (the scalar library) are checked on every non-CPU device present (PoCL's
# opencl:0 in CI) against NumPy, C99 Annex G's special values included.
# (Tiny arguments, e.g. arctan(1e-30j), still lose their value to cancellation in log(1 + w):
# not covered here; docs/precision.md.)

@pytest.mark.parametrize("fn", ["arctan", "arctanh", "arcsin", "arccos", "arcsinh", "arccosh"])
@pytest.mark.parametrize("dt", [np.complex64, np.complex128])
def test_complex_inverse_functions_at_infinity_on_devices(fn, dt):
    devs = [str(d) for d in em.devices() if str(d) != "cpu"]
    if not devs:
        pytest.skip("no CUDA or OpenCL device: the CPU runs C's complex libm")
    vals = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 1e-3, -1e30, 0.5, -2.5, 65504.0])
    z = (vals[:, None] + 1j * vals[None, :]).ravel().astype(dt)
    with np.errstate(all="ignore"):
        want = getattr(np, fn)(z)
    for dev in devs:
        got = np.asarray(em.asnumpy(getattr(em, fn)(em.asarray(z, device=dev))))
        rtol = 1e-4 if dt == np.complex64 else 1e-9  # log(1 + w)'s cancellation near 0
        bad = ~np.isclose(got, want, rtol=rtol, atol=0, equal_nan=True)
        assert not bad.any(), (dev, [(z[i], got[i], want[i]) for i in np.nonzero(bad)[0][:4]])


# -- session 16: the newer surface (partition ... linalg) in the generator ------------------
@pytest.mark.parametrize("dt", ["bool", "int8", "uint16", "int64", "float32", "float64"])
@pytest.mark.parametrize("cond", [[True, False, False], [False, True, False, False],
                                  [True, False, True], [True, True, False, True], []])
def test_compress_condition_longer_than_axis(dt, cond):
    # NumPy ignores false entries past the axis and raises IndexError only for a true one
    # (seed 30000137: Ember raised for any condition longer than the axis)
    x = np.arange(6).reshape(2, 3).astype(dt)
    c = np.array(cond, dtype=bool)
    for ax in (None, 0, 1, -1):
        _check(lambda M, a, k: M.compress(k, a, axis=ax), x, c)
    _check(lambda M, a, k: M.compress(k, a), x[:, ::-1].ravel()[:2], c)


@pytest.mark.parametrize("dt", ["complex64", "complex128"])
@pytest.mark.parametrize("shape,axis", [((5,), None), ((3, 4), 1), ((3, 1, 4), (2, 1, 0)),
                                        ((2, 3), 0), ((1,), None)])
def test_median_of_complex(dt, shape, axis):
    # NumPy's median sorts complex values (seed 30000361: Ember raised TypeError)
    rs = np.random.RandomState(3)
    x = (rs.standard_normal(shape) + 1j * rs.standard_normal(shape)).astype(dt)
    xn = x.copy()
    xn.flat[0] = np.nan
    for f in ("median", "nanmedian"):
        for a in (x, xn):
            for kd in (False, True):
                _check(lambda M, v: getattr(M, f)(v, axis=axis, keepdims=kd), a)
    _check(lambda M, v: M.percentile(v, 50), x)  # still a TypeError, as NumPy


@pytest.mark.parametrize("bins", [np.zeros(0, np.complex64), np.array([1j, 2]),
                                  np.array([0.0, 1.0])])
def test_digitize_rejects_complex_bins(bins):
    # seed 30000990: digitize(1, complex bins) returned where NumPy raises TypeError
    for x in (1, np.array([0.5, 3.0]), np.float32(2)):
        _check(lambda M, b: M.digitize(x, b), bins)


@pytest.mark.parametrize("dt", ["uint8", "int16", "int64", "float16", "float32", "float64"])
@pytest.mark.parametrize("q", [0, 50, 100, 37.5, [0, 100], [25, 50]])
def test_percentile_dtype_of_integer_q(dt, q):
    # percentile's q / 100 is a weak float: percentile(uint8, 100) is float64 in NumPy
    # (seed 31002386: Ember kept uint8, the int q's dtype rule of quantile)
    x = np.arange(7).astype(dt)
    for m in ["linear", "lower", "higher", "nearest", "midpoint"]:
        for f in ("percentile", "nanpercentile"):
            _check(lambda M, v: getattr(M, f)(v, q, method=m), x)


@pytest.mark.parametrize("x", [np.float16(65504), np.array([65504, 65504], np.float16),
                               np.array([-65504.0], np.float16), np.float32(3e38),
                               np.array([1.0, 1.0]), np.array([2.0])])
@pytest.mark.parametrize("bins", [1, 3, 10])
def test_histogram_too_many_bins(x, bins):
    # seed 31002352: float16 65504 +- 0.5 rounds to one edge; NumPy raises ValueError
    for part in (0, 1):
        _check(lambda M, v: M.histogram(v, bins=bins)[part], x)


@pytest.mark.parametrize("x", [np.zeros(0), np.zeros(0, np.float32), np.zeros(0, np.int8),
                               np.zeros(0, bool), np.array([1.0, 2.0]), np.array([0, 3])])
def test_bincount_of_empty_float_array(x):
    # seed 34001204: Ember counted an empty float64 array where NumPy raises TypeError
    _check(lambda M, v: M.bincount(v), x)
    _check(lambda M, v: M.bincount(v, minlength=3), x)
    assert em.bincount([]).shape == (0,) and np.bincount([]).shape == (0,)


@pytest.mark.parametrize("dt", ["uint8", "int64", "float16", "float32"])
@pytest.mark.parametrize("q", [0, 1, 0.5])
def test_quantile_midpoint_dtype_of_integer_q(dt, q):
    # seed 35001401: quantile(int64, 0, method='midpoint') is float64 in NumPy, Ember int64
    x = np.array([3, 5, 1, 4]).astype(dt)
    for m in ["linear", "lower", "higher", "nearest", "midpoint"]:
        for f in ("quantile", "nanquantile"):
            _check(lambda M, v: getattr(M, f)(v, q, method=m), x)
            _check(lambda M, v: getattr(M, f)(v, q, axis=0, keepdims=True, method=m), x)


@pytest.mark.parametrize("dt", ["bool", "uint64", "int8", "float32", "float64"])
@pytest.mark.parametrize("axis", [-1, 0, 1, -2])
def test_lexsort_of_0d_keys(device, dt, axis):
    # seed 37000167 (opencl:0): lexsort of 0-d keys raised AxisError on a device; NumPy
    # gives index 0 for axis 0 or -1
    x = np.array(3, dtype=dt)
    for M, conv in ((np, np.asarray), (em, lambda v: em.asarray(v, device=device))):
        try:
            r = M.lexsort((conv(x), conv(x)), axis=axis)
            out = ("value", int(r), str(np.asarray(em.asnumpy(r) if M is em else r).dtype))
        except Exception as e:  # noqa: BLE001 -- the exception type is the outcome
            out = ("raises", type(e).__name__)
        if M is np:
            want = out
    assert out == want


@pytest.mark.parametrize("bins", [[1.0, 2.0, np.nan, np.nan], [-1.0, 2.0, 2.0, np.nan],
                                  [np.nan]])
def test_digitize_bins_with_nan(bins):
    # seed 40001725: sorted bins ending in NaNs (sort of log2 of negatives) are monotonic
    # for NumPy (a NaN compares as neither step); Ember raised ValueError
    b = np.array(bins)
    for x in (np.array([0.0, 1.5, 3.0, np.nan]), np.array([[1, 2]], np.uint8)):
        for right in (False, True):
            _check(lambda M, v, w: M.digitize(v, w, right=right), x, b)
            _check(lambda M, v, w: M.digitize(v, w, right=right), x, b[::-1].copy())
    # (a NaN amid the bins, not sorted there, gives searchsorted's unspecified answer)
