"""Creation functions against NumPy: ranges, matrices, grids, across dtypes,
edge cases and bad input."""
import numpy as np
import pytest

import ember as em
from helpers import ALL_DTYPES, NUMERIC_DTYPES, assert_same, layouts, random_array, to_em


@pytest.mark.parametrize("args,kw", [
    ((5,), {}), ((0,), {}), ((-3,), {}), ((2, 11, 3), {}), ((10, 2, -3), {}), ((1, 2, 0.1), {}),
    ((0.5, 3.7), {}), ((-1.5, 2.2, 0.7), {}), ((5,), {"dtype": "float32"}), ((3, 9, 2), {"dtype": "uint8"}),
    ((1, 0), {}), ((10,), {"dtype": "complex64"}), ((0, 1, 0.3), {"dtype": "float16"}),
    ((2**62, 2**62 + 5), {}), ((True, 3), {}),
])
def test_arange(device, args, kw):
    assert_same(em.arange(*args, **kw, device=device), np.arange(*args, **kw))
    assert em.arange(*args, **kw, device=device).device == device


def test_arange_keywords_and_errors(device):
    assert_same(em.arange(2, stop=7, step=2), np.arange(2, 7, 2))
    with pytest.raises(ZeroDivisionError):
        em.arange(1, 5, 0)
    with pytest.raises(TypeError):
        em.arange(em.asarray([1, 2]))
    assert_same(em.arange(3), np.arange(3))  # still working


@pytest.mark.parametrize("num", [0, 1, 2, 7, 50])
@pytest.mark.parametrize("endpoint", [True, False])
def test_linspace(device, num, endpoint):
    assert_same(em.linspace(-2.5, 4, num, endpoint=endpoint), np.linspace(-2.5, 4, num, endpoint=endpoint))
    r, step = em.linspace(0, 1, num, endpoint=endpoint, retstep=True)
    w, wstep = np.linspace(0, 1, num, endpoint=endpoint, retstep=True)
    assert_same(r, w)
    assert (np.isnan(step) and np.isnan(wstep)) or step == wstep
    assert_same(em.linspace(0, 10, num, dtype="int32"), np.linspace(0, 10, num, dtype="int32"))
    assert_same(em.linspace([0, 1], [2, 5], num, axis=1), np.linspace([0, 1], [2, 5], num, axis=1))
    assert_same(em.logspace(0, 3, num, endpoint=endpoint), np.logspace(0, 3, num, endpoint=endpoint))
    assert_same(em.logspace(0, 3, num, base=2.0), np.logspace(0, 3, num, base=2.0))
    assert_same(em.geomspace(1, 1000, num), np.geomspace(1, 1000, num))


def test_linspace_errors():
    with pytest.raises(ValueError, match="Number of samples, -1, must be non-negative"):
        em.linspace(0, 1, -1)
    with pytest.raises(ValueError, match="Number of samples, -2, must be non-negative"):
        em.logspace(0, 1, -2)


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=str)
def test_eye_identity_tri(device, dtype):
    for N, M, k in [(3, None, 0), (3, 5, 1), (4, 2, -1), (3, 3, 5), (3, 3, -4), (0, 0, 0), (1, 4, 3)]:
        assert_same(em.eye(N, M, k, dtype=dtype), np.eye(N, M, k, dtype=dtype))
    assert_same(em.identity(4, dtype=dtype), np.identity(4, dtype=dtype))
    assert_same(em.tri(3, 4, 1, dtype=dtype), np.tri(3, 4, 1, dtype=dtype))


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=str)
def test_tril_triu(device, rng, dtype):
    for name, a in layouts(rng, (4, 5), dtype):
        if a.ndim < 2:
            continue
        x = to_em(a)
        for k in (-5, -1, 0, 2, 7):
            assert_same(em.tril(x, k), np.tril(a, k))
            assert_same(em.triu(x, k=k), np.triu(a, k))
    b = random_array(rng, (2, 3, 3), dtype)
    assert_same(em.tril(em.asarray(b)), np.tril(b))
    assert_same(em.triu(em.asarray(b), -1), np.triu(b, -1))


def test_tril_triu_masks_are_made_on_the_device(device, rng, monkeypatch):
    # on an accelerator the masks come from index vectors made there: a copy
    # from the host would wait for the device's queue (a QR's triu between
    # geqrf and orgqr left the GPU idle); on the CPU the host mask is free
    import ember._creation as cr
    if em.Device(device).kind == "cpu":
        pytest.skip("the CPU's mask is NumPy's, copied for free")
    a = rng.standard_normal((3, 6, 5))
    x = em.asarray(a)

    def no_host_copy(obj, *args, **kw):
        raise AssertionError(f"a host array copied to {device}: {type(obj).__name__}")

    monkeypatch.setattr(cr, "asarray", no_host_copy)
    for k in (-7, -1, 0, 3, 6):
        assert_same(em.tril(x, k), np.tril(a, k))
        assert_same(em.triu(x, k), np.triu(a, k))
    i = cr._iota(4, x.device)
    monkeypatch.undo()
    assert i.dtype == np.int64 and i.device == x.device
    np.testing.assert_array_equal(np.asarray(i.to_device("cpu")), np.arange(4))


@pytest.mark.parametrize("dtype", NUMERIC_DTYPES, ids=str)
def test_diag_diagonal(device, rng, dtype):
    a = random_array(rng, (4, 6), dtype)
    x = em.asarray(a)
    for k in (-5, -2, 0, 1, 5, 9):
        assert_same(em.diag(x, k), np.diag(a, k))
        assert_same(em.diagonal(x, k), np.diagonal(a, k))
    v = random_array(rng, 3, dtype)
    for k in (-2, 0, 1):
        assert_same(em.diag(em.asarray(v), k), np.diag(v, k))
    b = random_array(rng, (3, 4, 5), dtype)
    assert_same(em.diagonal(em.asarray(b), 1, 0, 2), np.diagonal(b, 1, 0, 2))
    with pytest.raises(ValueError, match="Input must be 1- or 2-d"):
        em.diag(em.asarray(b))


@pytest.mark.parametrize("indexing", ["xy", "ij"])
@pytest.mark.parametrize("sparse", [False, True])
def test_meshgrid(device, indexing, sparse):
    xs = [np.arange(3.0), np.arange(4, dtype=np.int32), np.array([1j, 2j])]
    for n in (1, 2, 3):
        ours = em.meshgrid(*[em.asarray(x) for x in xs[:n]], indexing=indexing, sparse=sparse)
        theirs = np.meshgrid(*xs[:n], indexing=indexing, sparse=sparse)
        assert isinstance(ours, tuple) and len(ours) == len(theirs)
        for o, t in zip(ours, theirs):
            assert_same(o, t)
    with pytest.raises(ValueError, match="Valid values for `indexing` are 'xy' and 'ij'"):
        em.meshgrid(em.arange(2), indexing="yx")


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=str)
def test_empty_zeros_order(device, dtype):
    for f, npf in ((em.zeros, np.zeros), (em.ones, np.ones)):
        assert_same(f((2, 3), dtype, order="C"), npf((2, 3), dtype))
        assert_same(f((2, 0), dtype=dtype, order="F"), npf((2, 0), dtype))
    e = em.empty((3, 2), dtype, order="C")
    assert e.shape == (3, 2) and e.dtype == dtype
    assert_same(em.full((2,), 3, dtype=dtype, order="C"), np.full((2,), 3, dtype=dtype))


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=str)
def test_fills_of_every_byte_pattern(device, dtype):
    # On a GPU a fill value whose bytes repeat every 1, 2 or 4 bytes is the
    # driver's memset (0, -1, 257 in int16, 65537 in int32, 1.0 in float32),
    # any other a kernel: both against NumPy, into new arrays and into
    # contiguous, strided, 0-d and empty views.
    values = [0, 1, -1, 7, 257, 65537, 2**32 + 1, -0.0, 1.0, 2.5, -1.5, np.inf, np.nan, True, False, 1 + 2j]
    for v in values:
        if isinstance(v, complex) and dtype.kind != "c":
            continue  # NumPy drops the imaginary part with a warning; Ember raises TypeError
        if dtype.kind in "iu" and isinstance(v, float) and not np.isfinite(v):
            continue  # NaN or inf to an integer: undefined in C, NumPy's answer is its platform's
        try:
            with np.errstate(all="ignore"):
                import warnings
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    want = np.full((5, 6), v, dtype=dtype)
        except (OverflowError, TypeError, ValueError):
            continue
        assert_same(em.full((5, 6), v, dtype=dtype, device=device), want)
        x = em.zeros((5, 6), dtype=dtype, device=device)
        w = np.zeros((5, 6), dtype=dtype)
        for key in ((Ellipsis,), (slice(1, 3),), (slice(None), slice(None, None, 2)), (2, 3), (slice(4, 4),)):
            x[key] = want[0, 0]
            w[key] = want[0, 0]
            assert_same(x, w)


def test_creation_bad_input(device):
    with pytest.raises(ValueError, match="negative dimensions are not allowed"):
        em.zeros(-1)
    with pytest.raises(ValueError, match="negative dimensions are not allowed"):
        em.empty((2, -3))
    with pytest.raises(ValueError, match="negative dimensions are not allowed"):
        em.eye(-2)
    with pytest.raises(ValueError, match="order must be one of"):
        em.ones((2, 3), order="Q")
    with pytest.raises(ValueError, match="inhomogeneous shape"):
        em.array([[1, 2], [3]])
    with pytest.raises(TypeError, match="N must be an integer"):
        em.eye(2.5)
    with pytest.raises(ValueError, match="at least 1 dimension"):  # 1-d is NumPy's rows
        em.tril(em.asarray(3))
    assert_same(em.eye(2), np.eye(2))  # still working


def test_full_scalar_range_and_copy_false(device):
    # A Python int is stored in the requested dtype: out of range is an error, as in NumPy.
    with pytest.raises(OverflowError, match="out of bounds for uint8"):
        em.full(2, -1, dtype=em.uint8)
    assert_same(em.full(3, 2.5, dtype=em.int64), np.full(3, 2.5, dtype=np.int64))
    # copy=False refuses inputs that need a copy (a list) and shares a NumPy array's memory.
    with pytest.raises(ValueError, match="Unable to avoid copy"):
        em.asarray([1, 2], copy=False)
    if device.kind == "cpu":
        a = np.ones(3)
        x = em.asarray(a, copy=False)
        a[0] = 5
        assert x[0].item() == 5


@pytest.mark.parametrize("dt", ALL_DTYPES, ids=str)
def test_asarray_of_numpy_arrays(device, rng, dt):
    # NumPy arrays of every layout and dtype, wrapped directly (exact
    # ndarrays in native order) or through numpy.asarray (the rest)
    for name, x in layouts(rng, (6, 5), dt):
        got = em.asarray(x, device=device)
        np.testing.assert_array_equal(got.get(), x, err_msg=name)
        assert got.dtype == x.dtype and got.shape == x.shape and got.device == device
        other = np.dtype("float64") if dt != np.float64 else np.dtype("int32")
        with np.errstate(all="ignore"):  # complex to real: NumPy's cast, NumPy's warning
            import warnings
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                want = x.astype(other)
                np.testing.assert_array_equal(em.asarray(x, dtype=other, device=device).get(), want, err_msg=name)
    # big-endian, unaligned, read-only and subclassed arrays
    x = random_array(rng, (4, 3), dt)
    swapped = x.astype(x.dtype.newbyteorder(">"))
    np.testing.assert_array_equal(em.asarray(swapped, device=device).get(), x)
    if x.itemsize > 1:
        raw = np.zeros(x.nbytes + 1, np.uint8)
        unaligned = raw[1:].view(x.dtype).reshape(x.shape)
        unaligned[...] = x
        np.testing.assert_array_equal(em.asarray(unaligned, device=device).get(), x)
    ro = x.copy()
    ro.flags.writeable = False
    np.testing.assert_array_equal(em.asarray(ro, device=device).get(), x)
    if device == em.Device("cpu"):
        assert not em.asarray(ro).flags.writeable  # a view of read-only memory stays read-only
        v = em.asarray(x)
        x[0, 0] = x[1, 1]  # a CPU view without a copy: NumPy's writes show
        assert v[0, 0].get() == x[1, 1]
    np.testing.assert_array_equal(em.asarray(np.ma.masked_array(x), device=device).get(), x)
    with pytest.raises(ValueError, match="avoid copy"):
        em.asarray(x, dtype=np.dtype("float64") if dt != np.float64 else np.dtype("int32"), copy=False)


def test_asarray_copy_must_be_bool_or_none(device):
    """As NumPy 2: a string is refused, and an object whose truth value raises
    propagates that error (it was taken as copy=None)."""
    for obj in ([1.0, 2.0], em.arange(2.0)):
        with pytest.raises(ValueError, match="strings are not allowed for 'copy' keyword"):
            em.asarray(obj, copy="if_needed")

    class Bad:
        def __bool__(self):
            raise RuntimeError("no truth value")
    with pytest.raises(RuntimeError, match="no truth value"):
        em.asarray([1.0], copy=Bad())
    assert_same(em.asarray([1.0, 2.0], copy=True), np.asarray([1.0, 2.0]))  # still working


@pytest.mark.parametrize("dtype", ["complex64", "complex128"])
@pytest.mark.parametrize("value", [complex(1, np.inf), complex(-np.inf, np.inf), complex(0, np.nan),
                                   complex(np.inf, np.nan), complex(-0.0, -np.inf)])
def test_complex_scalar_keeps_infinite_parts(device, dtype, value):
    # `re + im * I` in C would turn an infinite imaginary part into a NaN real part.
    want = np.asarray(value, dtype=dtype)
    assert_same(em.asarray(value, dtype=dtype, device=device), want)
    assert_same(em.full((3,), value, dtype=dtype, device=device), np.full((3,), value, dtype=dtype))
    got = complex(em.asarray(value, dtype=dtype, device=device))
    assert np.array_equal(np.asarray(got), np.asarray(value, dtype=np.complex128), equal_nan=True)
    assert np.signbit(got.real) == np.signbit(value.real)


@pytest.mark.parametrize("indexing", ["xy", "ij"])
@pytest.mark.parametrize("sizes", [(0, 0), (0, 3), (3, 0), (2, 0, 4), (0,)])
def test_meshgrid_empty_inputs(device, indexing, sizes):
    xs = [np.arange(n, dtype=np.uint8) for n in sizes]
    got = em.meshgrid(*[em.asarray(x, device=device) for x in xs], indexing=indexing)
    for g, w in zip(got, np.meshgrid(*xs, indexing=indexing)):
        assert_same(g, w)


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=str)
def test_get_into_out(device, rng, dtype):
    # Straight into out's buffer when it matches; otherwise NumPy's copyto
    # (casting, strided out); the result is always out.
    a = random_array(rng, (3, 5), dtype)
    x = em.asarray(a)
    out = np.zeros((3, 5), dtype)
    assert x.get(out=out) is out
    np.testing.assert_array_equal(out, a)
    wide = np.zeros((3, 10), dtype)[:, ::2]
    assert x.get(out=wide) is wide
    np.testing.assert_array_equal(wide, a)
    np.testing.assert_array_equal(to_em(a[::-1, 1:]).get(out=np.zeros((3, 4), dtype)), a[::-1, 1:])
    with pytest.raises(ValueError, match=r"could not broadcast input array from shape \(3,5\) into shape \(2,5\)"):
        x.get(out=np.zeros((2, 5), dtype))


def test_dtype_and_device_spellings_repeat(device):
    # Strings and type objects are remembered after their first conversion,
    # and em.Device objects are read through kind/id: the same answers each
    # time, and a bad spelling is refused each time.
    for _ in range(3):
        for spec, want in (("float32", np.float32), ("f4", np.float32), (em.int16, np.int16),
                           (np.uint8, np.uint8), ("complex128", np.complex128), (float, np.float64)):
            x = em.empty(3, dtype=spec, device=device)
            assert x.dtype == np.dtype(want) and x.device == device
        for bad in ("float33", "U8", object):
            with pytest.raises(TypeError):
                em.empty(3, dtype=bad)
    assert em.zeros(2, device=em.Device(str(device))).device == device
    with pytest.raises(em.DeviceError):
        em.empty(2, device="gpu:0")
