"""The atomic histogram (src/codegen/render_histogram.c; the CPU's serial
loop in run_histogram.c) through bincount, histogram, histogram2d and
histogramdd, against NumPy: every integer and float dtype, values on the
edges, NaN and infinities, empty input, weights of every kind, bins too
many for shared memory, non-contiguous input.  The `device` tests run on
every device present; `kdev` adds opencl:0 (PoCL) for a few kernel variants
whatever conftest's module list says, since this template is the device
path and each PoCL build costs about a second."""
import numpy as np
import pytest

import ember as em
from ember import _ember
from helpers import assert_same, device_names, to_em

INTS = ["int8", "uint8", "int16", "uint16", "int32", "uint32", "int64", "uint64"]
FLOATS = ["float16", "float32", "float64"]


@pytest.fixture(params=device_names())
def kdev(request):
    with em.Device(request.param) as d:
        yield d


def _on(x):
    return em.asarray(x)


@pytest.mark.parametrize("dtype", INTS + ["bool"])
def test_bincount_every_int_dtype(device, rng, dtype):
    hi = 2 if dtype == "bool" else 100
    x = rng.integers(0, hi, size=1000).astype(dtype)
    assert_same(em.bincount(_on(x)), np.bincount(x))
    assert_same(em.bincount(_on(x), minlength=150), np.bincount(x, minlength=150))
    assert_same(em.bincount(_on(x)[::-3]), np.bincount(x[::-3]))


@pytest.mark.parametrize("dtype", INTS + FLOATS)
def test_histogram_every_dtype(device, rng, dtype):
    a = rng.normal(size=2000) * 20
    if dtype.startswith("u"):
        a = np.abs(a)
    a = a.astype(dtype)
    for bins, r in ((10, None), (7, (-15, 15)), (33, (0, 1e-3)), ([-30, -2, 0, 3, 31], None),
                    (np.linspace(-5, 40, 12), None)):
        c, e = em.histogram(_on(a), bins=bins, range=r)
        nc, ne = np.histogram(a, bins=bins, range=r)
        assert_same(c, nc)
        np.testing.assert_array_equal(e.get(), ne)


def test_histogram_values_on_edges(device):
    # every value an edge (uniform and explicit), the last edge closed, repeated edges
    for dt in ("float32", "float64"):
        e = np.linspace(-1, 1, 21).astype(dt)
        a = np.concatenate([e, e, e[::3]])
        assert_same(em.histogram(_on(a), bins=20)[0], np.histogram(a, bins=20)[0])
        assert_same(em.histogram(_on(a), bins=20, range=(-1, 1))[0],
                    np.histogram(a, bins=20, range=(-1, 1))[0])
        assert_same(em.histogram(_on(a), bins=_on(e))[0], np.histogram(a, bins=e)[0])
    # ranges whose edges are not representable: the estimate is corrected
    a = np.arange(0, 1, 0.001, dtype=np.float32)
    for r in ((0.0, 0.3), (0.1, 0.7), (1 / 3, 2 / 3)):
        assert_same(em.histogram(_on(a), bins=30, range=r)[0], np.histogram(a, bins=30, range=r)[0])
    rep = np.array([0.0, 1.0, 1.0, 1.0, 2.0, 2.0])
    a = np.array([0.0, 0.5, 1.0, 1.0, 1.5, 2.0, 2.0, 2.5])
    assert_same(em.histogram(_on(a), bins=_on(rep))[0], np.histogram(a, bins=rep)[0])


def test_histogram_nonfinite(device):
    a = np.array([np.nan, -np.inf, np.inf, 0.0, 0.5, 1.0, np.nan, 2.0])
    for bins in (4, [0.0, 0.25, 1.0, 2.0], [-np.inf, 0.0, np.inf]):
        r = (0, 2) if np.ndim(bins) == 0 else None
        assert_same(em.histogram(_on(a), bins=bins, range=r)[0],
                    np.histogram(a, bins=bins, range=r)[0])
    with pytest.raises(ValueError, match="autodetected range of"):
        em.histogram(_on(a))
    with pytest.raises(ValueError, match="is not finite"):
        em.histogram(_on(a), range=(0, np.inf))
    h = em.histogram2d(_on(a), _on(a[::-1]), bins=3, range=[[0, 2], [0, 2]])[0]
    assert_same(h, np.histogram2d(a, a[::-1], bins=3, range=[[0, 2], [0, 2]])[0])


def test_empty_and_degenerate(device):
    z = np.zeros(0, np.float32)
    assert_same(em.histogram(_on(z), bins=5)[0], np.histogram(z, bins=5)[0])
    assert_same(em.histogram(_on(z), bins=5, weights=_on(z))[0],
                np.histogram(z, bins=5, weights=z)[0])
    assert_same(em.bincount(_on(np.zeros(0, np.int64)), minlength=4),
                np.bincount(np.zeros(0, np.int64), minlength=4))
    assert_same(em.bincount(_on(np.zeros(0, np.int64)), weights=_on(np.zeros(0))),
                np.bincount(np.zeros(0, np.int64), weights=np.zeros(0)))
    assert_same(em.histogram(_on(np.ones(5)), bins=[1.0])[0], np.histogram(np.ones(5), bins=[1.0])[0])
    assert_same(em.histogramdd(_on(np.zeros((0, 2))), bins=3, range=[(0, 1), (0, 1)])[0],
                np.histogramdd(np.zeros((0, 2)), bins=3, range=[(0, 1), (0, 1)])[0])


@pytest.mark.parametrize("wdtype", ["float32", "float64", "complex64", "complex128", "int32",
                                    "int64"])
def test_weights(device, rng, wdtype):
    n = 3000
    w = rng.normal(size=n) * 3
    if wdtype.startswith("complex"):
        w = w + 1j * rng.normal(size=n)
    w = w.astype(wdtype)
    a = rng.normal(size=n)
    a[:4] = [np.nan, 4.0, -4.0, 0.0]
    tol = {"rtol": 1e-5, "atol": 1e-9}
    for bins, r in ((16, (-2, 2)), (np.array([-3.0, -1.0, 0.0, 0.5, 3.0]), None)):
        c = em.histogram(_on(a), bins=bins, range=r, weights=_on(w))[0]
        nc = np.histogram(a, bins=bins, range=r, weights=w)[0]
        assert c.dtype == nc.dtype
        np.testing.assert_allclose(c.get(), nc, **tol)
        d = em.histogram(_on(a), bins=bins, range=r, weights=_on(w), density=True)[0]
        np.testing.assert_allclose(d.get(), np.histogram(a, bins=bins, range=r, weights=w,
                                                         density=True)[0], **tol)
    if wdtype.startswith("complex"):
        with pytest.raises(TypeError, match="Cannot cast"):
            em.bincount(_on(np.arange(n) % 7), weights=_on(w))
        return
    x = rng.integers(0, 50, size=n)
    np.testing.assert_allclose(em.bincount(_on(x), weights=_on(w), minlength=60).get(),
                               np.bincount(x, weights=w, minlength=60), **tol)
    s = rng.normal(size=(n, 2))
    np.testing.assert_allclose(em.histogramdd(_on(s), bins=(3, 5), weights=_on(w))[0].get(),
                               np.histogramdd(s, bins=(3, 5), weights=w)[0], **tol)


def test_many_bins_global_memory(device, rng):
    # bins beyond shared memory accumulate in global memory; edges beyond it are read there
    x = rng.integers(0, 200000, size=5000)
    assert_same(em.bincount(_on(x)), np.bincount(x))
    w = rng.random(5000)
    np.testing.assert_allclose(em.bincount(_on(x), weights=_on(w)).get(), np.bincount(x, weights=w))
    a = rng.normal(size=20000)
    e = np.sort(rng.normal(size=9000))
    assert_same(em.histogram(_on(a), bins=_on(e))[0], np.histogram(a, bins=e)[0])
    assert_same(em.histogram(_on(a), bins=30000)[0], np.histogram(a, bins=30000)[0])


@pytest.mark.parametrize("dtype", ["int16", "float32", "float64"])
def test_histogramdd_modes(device, rng, dtype):
    s = (rng.normal(size=(4000, 3)) * 4).astype(dtype)
    bins = [5, np.array([-6.0, -1.0, 0.0, 2.0, 7.0]), 3]
    for rg in (None, [(-5, 5), None, (-2, 3)]):
        if rg is not None:
            rg = [r if r is not None else (-6.0, 7.0) for r in rg]
        H, edges = em.histogramdd(_on(s), bins=bins, range=rg)
        nH, nedges = np.histogramdd(s, bins=bins, range=rg)
        assert_same(H, nH)
        for e, ne in zip(edges, nedges):
            np.testing.assert_array_equal(e.get(), ne)
    H = em.histogramdd(_on(s), bins=4, density=True)[0]
    np.testing.assert_allclose(H.get(), np.histogramdd(s, bins=4, density=True)[0], rtol=1e-12)
    x, y = s[:, 0], s[:, 1]
    H, xe, ye = em.histogram2d(_on(x)[::2], _on(y)[::2], bins=[6, 9])
    assert_same(H, np.histogram2d(x[::2], y[::2], bins=[6, 9])[0])
    s1 = s[:, :1].copy()
    assert_same(em.histogramdd(_on(s1), bins=7)[0], np.histogramdd(s1, bins=7)[0])


def test_kernel_on_every_device(kdev, rng):
    """A few variants of the kernel on every device (opencl:0 included)."""
    a = rng.normal(size=5000).astype(np.float32)
    a[:3] = [np.nan, 4.0, -4.0]
    assert_same(em.histogram(_on(a), bins=256, range=(-4, 4))[0],
                np.histogram(a, bins=256, range=(-4, 4))[0])
    e = np.array([-3.0, -1.0, 0.0, 0.5, 3.0])
    assert_same(em.histogram(_on(a), bins=_on(e))[0], np.histogram(a, bins=e)[0])
    x = rng.integers(0, 1000, size=5000)
    assert_same(em.bincount(_on(x)), np.bincount(x))
    w = rng.normal(size=5000)
    np.testing.assert_allclose(em.bincount(_on(x), weights=_on(w)).get(), np.bincount(x, weights=w))
    b = rng.normal(size=5000).astype(np.float32)
    r = [[-4, 4], [-4, 4]]
    assert_same(em.histogram2d(_on(a), _on(b), bins=64, range=r)[0],
                np.histogram2d(a, b, bins=64, range=r)[0])
    c = np.histogram(a, bins=8, range=(-2, 2), weights=w + 1j * w)[0]
    np.testing.assert_allclose(em.histogram(_on(a), bins=8, range=(-2, 2),
                                            weights=_on(w + 1j * w))[0].get(), c, rtol=1e-12)


def test_driver_checks(device):
    out = em.zeros((4,), dtype=np.int64)
    x = em.asarray(np.arange(8, dtype=np.float64))
    e = em.asarray(np.linspace(0, 8, 5))
    with pytest.raises(ValueError, match="edges expected"):
        _ember._histogram(out, x, e[:3], None, (2,), (4,), (0.0,), (0.0,))
    with pytest.raises(ValueError, match="out"):
        _ember._histogram(em.zeros((3,), dtype=np.int64), x, e, None, (2,), (4,), (0.0,), (0.0,))
    with pytest.raises(TypeError, match="out must be int64"):
        _ember._histogram(em.zeros((4,)), x, e, None, (2,), (4,), (0.0,), (0.0,))
    with pytest.raises(ValueError, match="unknown bin mode"):
        _ember._histogram(out, x, e, None, (7,), (4,), (0.0,), (0.0,))
    with pytest.raises(ValueError, match="1 to 8 dimensions"):
        _ember._histogram(out, x, e, None, (), (), (), ())
    with pytest.raises(ValueError, match="ragged"):
        _ember._histogram(out, x, e, None, (2,), (4, 4), (0.0,), (0.0,))
    with pytest.raises(TypeError, match="no kernel"):
        _ember._histogram(out, em.asarray(np.zeros(8, np.complex64)), e, None, (2,), (4,),
                          (0.0,), (0.0,))
    _ember._histogram(out, x, e, None, (2,), (4,), (0.0,), (0.0,))
    assert_same(out, np.histogram(np.arange(8.0), bins=np.linspace(0, 8, 5))[0])


def test_count_mode_and_jittered_edges(kdev, rng):
    """The kernel's (the CPU's loop's) counting mode directly, as bincount is
    NumPy's own loop on the CPU; explicit edges near uniform (taken as
    uniform: the estimate is corrected) and far from it (searched)."""
    x = rng.integers(0, 300, size=7000)
    for dt in ("int64", "uint8", "int32"):
        xv = (x % 250).astype(dt)
        out = em.zeros((260,), dtype=np.int64)
        _ember._histogram(out, _on(xv), None, None, (0,), (260,), (0.0,), (0.0,))
        assert_same(out, np.bincount(xv, minlength=260))
    w = rng.normal(size=7000)
    out = em.zeros((250,))
    _ember._histogram(out, _on(x), None, _on(w), (0,), (250,), (0.0,), (0.0,))  # 250..299 skipped
    keep = x < 250
    np.testing.assert_allclose(out.get(), np.bincount(x[keep], weights=w[keep], minlength=250))
    a = rng.normal(size=7000) * 3
    e = np.linspace(-6, 6, 41)
    jit = e + np.concatenate(([0], rng.uniform(-0.12, 0.12, 39), [0]))  # within a bin (0.3)
    far = np.concatenate((np.linspace(-6, -5.9, 39), [0.0, 6.0]))  # far from uniform
    for edges in (jit, far, np.sort(rng.normal(size=41) * 3)):
        assert_same(em.histogram(_on(a), bins=_on(edges))[0], np.histogram(a, bins=edges)[0])
    s = np.stack([a, a[::-1]], axis=1)
    H = em.histogramdd(_on(s), bins=[jit, far])[0]
    assert_same(H, np.histogramdd(s, bins=[jit, far])[0])


def test_returned_edges_are_the_callers(kdev, rng):
    """Edges are kept on the device between calls; the ones returned are copies."""
    a = rng.normal(size=500)
    c1, e1 = em.histogram(_on(a), bins=8, range=(-2, 2))
    e1[...] = 0
    c2, e2 = em.histogram(_on(a), bins=8, range=(-2, 2))
    nc, ne = np.histogram(a, bins=8, range=(-2, 2))
    assert_same(c2, nc)
    np.testing.assert_array_equal(e2.get(), ne)
    H, (xe, ye) = em.histogramdd(_on(np.stack([a, a], 1)), bins=4, range=[(-1, 1), (-1, 1)])
    xe[...] = 7
    H2, (xe2, ye2) = em.histogramdd(_on(np.stack([a, a], 1)), bins=4, range=[(-1, 1), (-1, 1)])
    assert_same(H2, H)
    np.testing.assert_array_equal(xe2.get(), np.linspace(-1, 1, 5))


def test_one_dim_kernel_loads(kdev, rng):
    # The one-dimension count kernel reads 16-byte vectors where x is aligned
    # (CUDA) and scalars for the rest: every element size, lengths around a
    # vector and a block's 4 x 256 of them, starts 0-3 elements past an
    # aligned one.
    for dt in ("int8", "uint16", "int32", "float32", "float64", "uint64"):
        big = (rng.normal(size=4 * 4096 + 40) * 30).astype(dt)
        if dt[0] == "f":
            big[::7] = np.nan
            big[3::11] = 40.0  # the last edge, closed
        d = em.asarray(big)
        for off in (0, 1, 3):
            for n in (1, 5, 17, 1023, 4 * 4096 + 33):
                x, a = d[off:off + n], big[off:off + n]
                for bins, r in ((256, (-40, 40)), ([-50, -3, 0, 0, 2, 60], None)):
                    assert_same(em.histogram(x, bins=bins, range=r)[0],
                                np.histogram(a, bins=bins, range=r)[0])
        if dt[0] in "iu":
            v = np.abs(big.astype(np.int64)) % 300
            c = em.asarray(v)
            out = em.zeros((250,), dtype=np.int64)
            _ember._histogram(out, c[1:], None, None, (0,), (250,), (0.0,), (0.0,))
            assert_same(out, np.bincount(v[1:][v[1:] < 250], minlength=250))


@pytest.mark.parametrize("dtype", INTS + FLOATS + ["bool"])
def test_planned_histogram_repeats(device, rng, dtype):
    # histogram(bins=int) keeps a plan per (bins, range, dtype, device): repeated calls,
    # data whose extremes move (range=None is keyed by them), range ends of several
    # types, 2-d and strided input, each against NumPy
    for k in range(3):
        a = rng.normal(size=3000) * (10 + 7 * k) + k
        if dtype.startswith("u") or dtype == "bool":
            a = np.abs(a)
        a = a.astype(dtype)
        if dtype[0] == "f":
            a[5 + k] = np.nan if k == 1 else a[5 + k]  # NaN fails range=None as NumPy's does
        for bins, r in ((16, None), (256, (-40, 40)), (9, (0, 1)), (np.int16(5), [-3.0, 8]),
                        (7, (np.float32(0.1), 3)), (7, (0.1, 3))):
            for x in (a, a[::-3], a[:2400].reshape(40, 60)):
                try:
                    nc, ne = np.histogram(x, bins=bins, range=r)
                except ValueError as exc:
                    with pytest.raises(ValueError, match=str(exc)[:20]):
                        em.histogram(_on(x), bins=bins, range=r)
                    continue
                c, e = em.histogram(_on(x), bins=bins, range=r)
                assert_same(c, nc)
                assert e.dtype == ne.dtype
                np.testing.assert_array_equal(e.get(), ne)


def test_planned_histogram_checks_every_call(device):
    a = _on(np.arange(10.0))
    for _ in range(2):
        with pytest.raises(ValueError, match="max must be larger"):
            em.histogram(a, bins=4, range=(3, 1))
        with pytest.raises(ValueError, match="positive"):
            em.histogram(a, bins=0, range=(0, 1))
        with pytest.raises(ValueError, match="not finite"):
            em.histogram(a, bins=4, range=(0, np.inf))
        c, e = em.histogram(a, bins=4, range=(0, 9))
        assert_same(c, np.histogram(np.arange(10.0), bins=4, range=(0, 9))[0])
        c[...] = 0  # the next call's counts are its own
    one = np.array([2.5], np.float32)
    for _ in range(2):  # one value: the range widened by 0.5 each way
        c, e = em.histogram(_on(one), bins=3)
        assert_same(c, np.histogram(one, bins=3)[0])
        np.testing.assert_array_equal(e.get(), np.histogram(one, bins=3)[1])
    for r in ((-2, 0.0), (-2, -0.0), (-2, 0.0)):  # -0.0 and 0.0: one key value, two last edges
        e = em.histogram(a, bins=4, range=r)[1].get()
        np.testing.assert_array_equal(np.signbit(e),
                                      np.signbit(np.histogram(np.arange(10.0), bins=4, range=r)[1]))
    z = np.array([-2.0, -0.0])
    for d in (z, np.abs(z) * [-1, 1], z):  # range=None: the data's ends key the plan, signs too
        e = em.histogram(_on(d), bins=2)[1].get()
        np.testing.assert_array_equal(np.signbit(e), np.signbit(np.histogram(d, bins=2)[1]))
    c, e = em.histogram(_on(np.zeros(0, np.float32)), bins=3)
    assert_same(c, np.histogram(np.zeros(0, np.float32), bins=3)[0])
    np.testing.assert_array_equal(e.get(), np.histogram(np.zeros(0, np.float32), bins=3)[1])


@pytest.mark.parametrize("dtype", ["int8", "uint8", "int32", "int64", "uint64", "float16",
                                   "float32", "float64"])
def test_digitize_dtypes_and_directions(device, rng, dtype):
    # the search queued before the monotonicity check's one read: increasing,
    # decreasing, repeated and all-equal bins, two bins, both sides, strided and
    # 2-d samples with NaN/inf, and non-monotonic bins raising on every call
    x = rng.normal(size=999) * 30
    if dtype[0] == "u":
        x = np.abs(x)
    x = x.astype(dtype)
    if dtype[0] == "f":
        x[:3] = [np.nan, np.inf, -np.inf]
    inc = np.sort((rng.normal(size=300) * 20).astype(dtype))
    for bins in (inc, inc[::-1].copy(), np.repeat(inc[:50], 3), np.full(6, inc[7]),
                 inc[[0, -1]], inc[::-1][[0, -1]]):
        for right in (False, True):
            for s in (x, x[::-4], x[:990].reshape(33, 30)):
                assert_same(em.digitize(_on(s), _on(bins), right=right),
                            np.digitize(s, bins, right=right))
    bad = np.concatenate([inc[:10], inc[:10]])
    for _ in range(2):
        with pytest.raises(ValueError, match="monotonically"):
            em.digitize(_on(x), _on(bad))


def _digitize_nan_cases(dtype):
    # NaN at every place of increasing and decreasing bins, NaN twice, all-NaN,
    # equal bins with a NaN, one bin, no bins: NumPy's walk (the first unequal
    # pair decides; a pair with a NaN does not step up) raises or picks a side
    f = np.dtype(dtype).type
    inc, nan = [-2.0, 0.0, 1.0, 1.0, 3.0], np.nan
    cases = [[], [nan], [1.0], [nan, nan], [nan] * 5, [1.0, nan], [nan, 1.0], [2.0, 2.0, nan],
             [nan, 2.0, 2.0], [2.0, nan, 2.0], [1.0, nan, 2.0, nan], [3.0, nan, 1.0, 2.0]]
    for base in (inc, inc[::-1]):
        for i in range(len(base) + 1):
            cases.append(base[:i] + [nan] + base[i:])
            cases.append(base[:i] + [nan] + base[i:] + [nan])
    return [np.array(c, dtype=dtype) for c in cases] + [np.array(inc, f)]


@pytest.mark.parametrize("dtype", FLOATS)
def test_digitize_nan_bins_as_numpy(device, dtype):
    x = np.array([-3.0, -2.0, -1.0, 0.0, 0.5, 1.0, 2.0, 3.0, 4.0, np.nan, np.inf], dtype)
    raised = sides = 0
    for bins in _digitize_nan_cases(dtype):
        for right in (False, True):
            try:
                want = np.digitize(x, bins, right=right)
            except ValueError:
                raised += 1
                with pytest.raises(ValueError, match="monotonically"):
                    em.digitize(_on(x), _on(bins), right=right)
                continue
            got = em.digitize(_on(x), _on(bins), right=right)
            side = "left" if right else "right"
            n = len(bins)
            srt = np.sort(bins)  # NaN last: where a side's bins are sorted, every search agrees
            if np.array_equal(bins, srt, equal_nan=True) or \
                    np.array_equal(bins[::-1], srt, equal_nan=True):
                assert_same(got, want)
                sides += 1
                continue
            # bins that NaN leaves unsorted: searchsorted's answer depends on the search
            # (NumPy's starts each key from the last one's bounds), so the check is that
            # Ember took NumPy's side, told by which of NumPy's two searches it returned
            up = np.searchsorted(bins, x, side=side)
            down = n - np.searchsorted(bins[::-1], x, side=side)
            if np.array_equal(up, down):
                continue
            eb = _on(bins)
            mine = em.searchsorted(eb, _on(x), side=side) if np.array_equal(want, up) else \
                n - em.searchsorted(em.flip(eb), _on(x), side=side)
            assert_same(got, mine.get())
            sides += 1
    assert raised == 2 * 5 and sides >= 50, (raised, sides)  # 5 cases raise; most tell a side


@pytest.mark.parametrize("dtype", ["int64", "uint64"])
def test_digitize_bins_checked_in_float64(device, dtype):
    # NumPy checks the order in float64: 2**60 + 2, 2**60, 2**60 + 1 round to one value
    # (equal bins, increasing) where the exact order would raise
    bins = np.array([2**60 + 2, 2**60, 2**60 + 1], dtype)
    x = np.array([0, 2**61], dtype)
    assert_same(em.digitize(_on(x), _on(bins)), np.digitize(x, bins))
    with pytest.raises(ValueError, match="monotonically"):
        em.digitize(_on(x), _on(np.array([2**60, 2**62, 2**61], dtype)))


def test_digitize_nan_long_bins(device, rng):
    # bins past 64 KiB with NaN: the fused counts see the NaN, then NumPy's walk
    x = rng.normal(size=500) * 3
    inc = np.sort(rng.normal(size=9000) * 3)
    nan = np.array([np.nan])
    # NumPy raises on both: the first unequal pair has a NaN (decreasing), a later one steps up
    for bins in (np.concatenate([nan, inc]), np.concatenate([inc[-1:], nan, inc])):
        with pytest.raises(ValueError, match="monotonically"):
            np.digitize(x, bins)
        with pytest.raises(ValueError, match="monotonically"):
            em.digitize(_on(x), _on(bins))
    for bins in (np.concatenate([nan, inc[::-1]]), np.concatenate([inc, nan]),
                 np.full(9000, np.nan), np.concatenate([inc[::-1], nan])):
        for right in (False, True):
            assert_same(em.digitize(_on(x), _on(bins), right=right),
                        np.digitize(x, bins, right=right))
    # 2**20 bins and more: the NaN count is a read of its own (n**3 would pass int64)
    big = np.linspace(-4, 4, (1 << 20) + 2, dtype=np.float32)
    big[0] = np.nan
    with pytest.raises(ValueError, match="monotonically"):
        em.digitize(_on(x), _on(big))
    big = big[::-1].copy()
    assert_same(em.digitize(_on(x), _on(big)), np.digitize(x, big))


def test_digitize_long_bins(device, rng):
    # bins past 64 KiB: the monotonicity check on the device (one fused sum), not read back
    x = rng.normal(size=2000) * 3
    x[:2] = [np.nan, -np.inf]
    inc = np.sort(rng.normal(size=9000) * 3)
    for bins in (inc, inc[::-1].copy(), np.concatenate([inc, [np.nan, np.nan]])):
        for right in (False, True):
            assert_same(em.digitize(_on(x), _on(bins), right=right),
                        np.digitize(x, bins, right=right))
    with pytest.raises(ValueError, match="monotonically"):
        em.digitize(_on(x), _on(np.concatenate([inc, inc])))
