"""Session 18's fuzzing of session 17's new paths (docs/fuzzing.md): histogram's plan cache
against NumPy under hypothesis (the same input binned again and again with other bins,
ranges, dtypes, weights and density, an edges array written in place between calls), and a
regression test for each finding of the campaigns."""
import warnings

import numpy as np
import pytest

import ember as em

hyp = pytest.importorskip("hypothesis")
from hypothesis import HealthCheck, given, settings, strategies as st  # noqa: E402


def _outcome(f, *args, **kw):
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        try:
            return f(*args, **kw)
        except Exception as e:  # noqa: BLE001 -- the exception type is the outcome
            return type(e)


def _same(want, got, rtol=0.0):
    if isinstance(want, type) or isinstance(got, type):
        assert got is want, "NumPy: %r, Ember: %r" % (want, got)
        return
    if isinstance(want, tuple):
        assert isinstance(got, tuple) and len(got) == len(want), (want, got)
        for w, g in zip(want, got):
            _same(w, g, rtol)
        return
    want = np.asarray(want)
    got = np.asarray(em.asnumpy(got) if isinstance(got, em.ndarray) else got)
    assert (got.dtype, got.shape) == (want.dtype, want.shape), (got, want)
    if rtol:
        np.testing.assert_allclose(got, want, rtol=rtol, atol=0)
    else:
        np.testing.assert_array_equal(got, want)


# -- histogram's plan cache, keyed by (bins, range, dtype, device) -----------------------------
DATA = np.round(np.random.RandomState(18).standard_normal(3000) * 4, 2)
DATA[::97] = 0.5  # on an edge of several bin sets
DATA[5] = 10.0  # on the last edge of range (0, 10): in the last bin

CALLS = st.fixed_dictionaries({
    "dtype": st.sampled_from(["float64", "float32", "float16", "int16", "int64", "uint8"]),
    "size": st.sampled_from([0, 1, 7, 1000, 3000]),
    "bins": st.one_of(st.sampled_from([1, 2, 3, 10, 64, 256]), st.just("edges"),
                      st.sampled_from([[-3, -1, 0, 0.5, 4], [0, 1], [0, 0, 1, 2]])),
    "range": st.sampled_from([None, None, (-2, 2), (0, 10), (1, 1), (-1000.0, 1000.0)]),
    "weights": st.booleans(),
    "density": st.booleans(),
    "write": st.sampled_from([None, None, ("set", 1, 0.75), ("set", 0, -20.0), ("add", 1.5),
                              ("set", 2, 100.0)]),
})


def _histogram_sequence(calls, device=None):
    """Each call against NumPy, with the same edges array (Ember's and NumPy's) written in
    place by each call's `write` after it."""
    edges_np = np.array([-5.0, -1.0, 0.0, 0.5, 2.0, 5.0])
    edges_em = em.asarray(edges_np)
    for c in calls:
        x = DATA[:c["size"]].astype(c["dtype"]) if c["dtype"][0] != "u" else \
            np.abs(DATA[:c["size"]]).astype(c["dtype"])
        w = np.linspace(-1, 2, x.size)
        kw_np, kw_em = {}, {}
        if c["bins"] == "edges":
            kw_np["bins"], kw_em["bins"] = edges_np, edges_em
        else:
            kw_np["bins"] = kw_em["bins"] = c["bins"]
        if c["range"] is not None:
            kw_np["range"] = kw_em["range"] = c["range"]
        if c["weights"]:
            kw_np["weights"], kw_em["weights"] = w, em.asarray(w)
        if c["density"]:
            kw_np["density"] = kw_em["density"] = True
        want = _outcome(np.histogram, x, **kw_np)
        got = _outcome(em.histogram, em.asarray(x), **kw_em)
        # weights and density: float sums in another order, a division
        _same(want, got, rtol=1e-12 if c["weights"] or c["density"] else 0.0)
        if c["write"] is not None:
            if c["write"][0] == "set":
                edges_np[c["write"][1]] = c["write"][2]
                edges_em[c["write"][1]] = c["write"][2]
            else:
                edges_np += c["write"][1]
                edges_em += c["write"][1]
            np.testing.assert_array_equal(em.asnumpy(edges_em), edges_np)


@settings(max_examples=60, deadline=None)
@given(st.lists(CALLS, min_size=2, max_size=6))
def test_histogram_repeated_with_changed_parameters(calls):
    _histogram_sequence(calls)


@settings(max_examples=15, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(calls=st.lists(CALLS, min_size=2, max_size=4))
def test_histogram_repeated_on_device(device, calls):
    _histogram_sequence(calls, device)


@pytest.mark.parametrize("dt", ["float64", "float32", "int32"])
def test_histogram_sees_edges_written_in_place(device, dt):
    """The cache must key on the edges' contents, not the array: the second call bins
    against the written edges (and, unsorted, raises as NumPy does)."""
    x = np.arange(-4, 8).astype(dt)
    e_np = np.array([-2, 0, 3, 6], dtype=dt)
    e_em = em.asarray(e_np)
    for write in [(1, 1), (0, -4), (3, 7), (2, 10)]:  # the last one leaves them unsorted
        _same(_outcome(np.histogram, x, bins=e_np), _outcome(em.histogram, em.asarray(x),
                                                              bins=e_em))
        e_np[write[0]] = write[1]
        e_em[write[0]] = write[1]
    _same(_outcome(np.histogram, x, bins=e_np), _outcome(em.histogram, em.asarray(x),
                                                          bins=e_em))


# -- finding: out= of another kind for sum, prod and the scans (seed 60000304) ---------------
DTYPES = ["bool", "int8", "uint8", "int16", "uint16", "int32", "uint32", "int64", "uint64",
          "float16", "float32", "float64", "complex64", "complex128"]
OUT_X = np.array([[0.5, 0.5, -2.25, 3.0], [0.0, 7.75, -0.5, 20.0], [1.0, 1.0, 1.0, 1.0]])


@pytest.mark.parametrize("f", ["sum", "prod", "cumsum", "cumprod", "nansum", "nanprod",
                               "nancumsum", "nancumprod"])
@pytest.mark.parametrize("xd", ["bool", "int8", "uint16", "float16", "float32", "float64",
                                "complex64"])
@pytest.mark.parametrize("od", DTYPES)
@pytest.mark.parametrize("axis", [None, 0, 1])
def test_reduce_and_scan_cast_into_out_unsafely(f, xd, od, axis):
    """NumPy's sum, prod, cumsum and cumprod cast the result into out= unsafely
    (cumsum(float32, out=uint32) truncates and wraps, out=bool tests != 0), computed in the
    loop out resolves (an inexact promotion of the two dtypes, else their own); Ember raised
    TypeError (same_kind).  Out-of-range float to integer casts are undefined (left out)."""
    x = OUT_X.astype(xd)
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        ref = getattr(np, f)(x, axis=axis)
        if np.dtype(od).kind in "iu" and ref.dtype.kind in "fc" and not (
                np.all(np.isfinite(ref)) and np.all(np.abs(ref) < 100)):
            pytest.skip("undefined cast")
        if np.dtype(od).kind == "u" and ref.dtype.kind in "fc" and np.any(ref.real < 0):
            pytest.skip("undefined cast")  # a negative float into an unsigned integer
        o_np, o_em = np.zeros(ref.shape, od), em.zeros(ref.shape, od)
        want = getattr(np, f)(x, axis=axis, out=o_np)
        got = getattr(em, f)(em.asarray(x), axis=axis, out=o_em)
    assert got is o_em
    _same(want, got)


@pytest.mark.parametrize("f,od", [("cumsum", "uint8"), ("sum", "int32"), ("cumprod", "bool"),
                                  ("nancumsum", "int16")])
def test_reduce_and_scan_cast_into_out_on_device(device, f, od):
    x = np.array([[0.5, 1.5, 2.25], [3.0, np.nan, 1.0]], dtype="float32")
    x = np.nan_to_num(x) if not f.startswith("nan") else x
    for axis in (None, 0, 1):
        with warnings.catch_warnings(), np.errstate(all="ignore"):
            warnings.simplefilter("ignore")
            ref = getattr(np, f)(x, axis=axis)
            want = getattr(np, f)(x, axis=axis, out=np.zeros(ref.shape, od))
            got = getattr(em, f)(em.asarray(x), axis=axis, out=em.zeros(ref.shape, od))
        _same(want, got)


# -- open in session 18, fixed in session 19: max, min, mean, var, std (and the nan forms)
# with out= of another dtype.  NumPy resolves the loop against out's dtype (the promotion of
# the input's and out's, e.g. float64 for int64 into uint64) and casts into out unsafely;
# mean and var divide in out itself (NumPy's true_divide(out, n, out=out)); std's sqrt in
# out's loop refuses an integer or bool out; the nan forms of inexact input refuse one too.
# Ember raised TypeError (same_kind) for most of these. -----------------------------------
OUT_Y = np.random.RandomState(0).randint(0, 9, (3, 4)) * 0.75  # casts into any dtype defined


@pytest.mark.parametrize("xd", ["bool", "int16", "uint64", "float16", "float32", "complex64"])
@pytest.mark.parametrize("od", DTYPES)
def test_reductions_resolve_their_loop_against_out(xd, od):
    x = OUT_Y.astype(xd) if xd != "complex64" else (OUT_Y + 0.5j * OUT_Y[::-1]).astype(xd)
    for f in ["max", "min", "mean", "var", "std", "nanmax", "nanmean", "nanvar", "nanstd"]:
        for axis in (None, 1):
            with warnings.catch_warnings(), np.errstate(all="ignore"):
                warnings.simplefilter("ignore")
                shape = np.shape(getattr(np, f)(x, axis=axis))
                o_np, o_em = np.zeros(shape, od), em.zeros(shape, od)
                want = _outcome(getattr(np, f), x, axis=axis, out=o_np)
                got = _outcome(getattr(em, f), em.asarray(x), axis=axis, out=o_em)
            if isinstance(want, type):  # NumPy's UFuncTypeError is a TypeError
                assert isinstance(got, type) and issubclass(got, TypeError), (f, axis, got)
                assert issubclass(want, TypeError)
                continue
            assert got is o_em, (f, axis, got)
            inexact = "float16" in (xd, od) or "complex64" in (xd, od) or "float32" in (xd, od)
            _same(o_np, got, 2e-3 if inexact else 1e-12)


def test_reductions_into_out_as_numpy_resolves_them():
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        for f, x, od in [
                ("cumsum", np.array([2**64 - 1, 1, 5], np.uint64), "float64"),  # float64 loop
                ("nancumsum", np.array([2**64 - 1, 1, 5], np.uint64), "float64"),  # (seed 63004856)
                ("sum", np.array([2**64 - 1, 3], np.uint64), "float64"),
                ("max", np.array([2**62 + 1, 3], np.int64), "uint64"),  # float64: 2**62
                ("mean", np.array([60000, 60000], np.uint16), "float16"),  # the sum: inf
                ("mean", np.array([60000, 60000], np.float16), "float16"),
                ("mean", np.array([100, 100, 100], np.int8), "int8"),  # 300 wraps to 44
                ("var", np.array([1, 2, 4], np.int64), "int8"),
                ("std", np.array([1, 2, 4], np.int64), "int8"),  # sqrt's cast: TypeError
                ("std", np.array([1, 2, 4], np.float16), "bool"),
                ("nanmean", np.array([1.5, np.nan], np.float32), "int32")]:  # TypeError
            o_np, o_em = np.zeros((x.size,) if "cum" in f else (), od), None
            o_em = em.zeros(o_np.shape, od)
            want = _outcome(getattr(np, f), x, out=o_np)
            got = _outcome(getattr(em, f), em.asarray(x), out=o_em)
            if isinstance(want, type):
                assert isinstance(got, type) and issubclass(got, TypeError), (f, x, od)
            else:
                _same(o_np, o_em)


@pytest.mark.parametrize("f,xd,od", [("mean", "float32", "int32"), ("var", "float32", "float16"),
                                     ("std", "float32", "float64"), ("max", "int16", "float32"),
                                     ("cumsum", "uint32", "float32")])
def test_reductions_into_out_on_device(device, f, xd, od):
    x = OUT_Y.astype(xd)
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        want = getattr(np, f)(x, axis=1, out=np.zeros((3, 4) if f == "cumsum" else 3, od))
        got = getattr(em, f)(em.asarray(x), axis=1, out=em.zeros(want.shape, od))
    _same(want, got, 1e-3)


# -- finding: histogram's edges are the bins array itself in NumPy (seed 60000188; fixed in
# session 19: an ember array bins= comes back as the edges) ----------------------------------
@pytest.mark.parametrize("density,weighted", [(False, False), (True, True)])
def test_histogram_returns_the_bins_array_as_edges(density, weighted):
    for M in (np, em):
        e = M.asarray([-1.0, 0.0, 2.0])
        w = M.asarray([1, 2]) if weighted else None
        _, edges = M.histogram(M.asarray([0.5, 1.0]), bins=e, density=density, weights=w)
        assert edges is e
        assert M.histogram_bin_edges(M.asarray([0.5, 1.0]), bins=e) is e
        e[2] = 5.0  # NumPy: np.histogram(x, bins=e)[1] is e, so the write shows through
        assert edges.tolist() == [-1.0, 0.0, 5.0]
    # other bins: edges of their own (a list, an int), as NumPy's
    x = em.asarray([0.5, 1.0])
    _same(np.histogram(np.asarray([0.5, 1.0]), bins=[0, 1, 2]), em.histogram(x, bins=[0, 1, 2]))
    _same(np.histogram_bin_edges(np.asarray([0.5, 1.0]), bins=3),
          em.histogram_bin_edges(x, bins=3))


# -- finding: exp2(log2(-inf + 0j)) was -inf - inf j, NumPy's -inf + inf j (seed 63005436):
# log2 divided by ln 2 where NumPy multiplies by log2(e), one ulp off in half the values,
# and exp2 of pi one ulp above it flips the sign of an infinite part -------------------------
@pytest.mark.parametrize("f", ["log2", "log10"])
@pytest.mark.parametrize("dt", ["complex64", "complex128"])
def test_complex_log2_log10_bit_for_bit(f, dt):
    rs = np.random.RandomState(5)
    z = rs.standard_normal(2000) * 10 + 1j * rs.standard_normal(2000) * 10
    z = np.concatenate([z, [-np.inf + 0j, np.inf, 0j, -0.0 + 0j, complex(np.nan, 1), -2 + 0j,
                            complex(-np.inf, -0.0), complex(0, np.inf), 1e-300 + 1e300j]])
    with np.errstate(all="ignore"):
        z = z.astype(dt)
    with np.errstate(all="ignore"):
        want = getattr(np, f)(z)
    # the CPU's scalar library, bit for bit (a GPU's complex log is its own, within ulps)
    got = getattr(em, f)(em.asarray(z, device="cpu")).get()
    assert got.dtype == want.dtype
    # (NaN parts compared as NaN: their sign is unspecified)
    np.testing.assert_array_equal(got, want)


def test_exp2_of_log2_at_infinity(device):
    x = np.array([-np.inf + 0j, -2 + 0j, complex(-np.inf, -0.0)])
    with np.errstate(all="ignore"):
        want = np.exp2(np.log2(x))  # [-inf+infj, -2+1.1e-15j, -inf-infj]
        got = em.exp2(em.log2(em.asarray(x))).get()
    assert np.array_equal(np.sign(got.imag), np.sign(want.imag))
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-14)


# -- finding: digitize of bins whose first step is a NaN (seed 63003953; fixed at the merge
# by the digitize order check that follows NumPy's _monotonicity) ----------------------------
@pytest.mark.parametrize("bins", [[0.19, np.nan], [1.0, np.nan, np.nan]])
@pytest.mark.parametrize("right", [False, True])
def test_digitize_bins_starting_with_a_nan_step(bins, right):
    x = np.array([-5.0, 0.0, 1.0, 5.0])
    # NumPy: [2 2 0 0] and [3 3 3 3]
    _same(np.digitize(x, bins, right=right), em.digitize(em.asarray(x), em.asarray(bins),
                                                         right=right))
