"""NumPy-oracle helpers for the tests.

`random_array(rng, shape, dtype)` gives values suited to the dtype;
`layouts(rng, shape, dtype)` yields (name, numpy array) for the edge layouts
every op is checked on: contiguous, 0-d, empty, negative strides,
non-contiguous (strided and transposed) and broadcast views;
`special_values(rng, n, dtype)` gives 1-d values full of ties and extremes
(NaN of both signs, +-inf, -0.0, the integer range's ends) and
`views_1d(a)` the 1-d layouts the sort-based ops are checked on;
`to_em(a)` copies such a view to an ember array with the same layout;
`assert_same(em_result, np_result)` checks dtype, shape and values;
`device_names()` lists the devices the `device` fixture runs on;
`nvrtc_available()` says whether NVRTC loads here (the fake-driver tests
compile kernels for real); `FAKE_PROLOGUE` starts a fake-driver subprocess's
code (the driver as `fake`, and `cfg()`, `params(n)`, `stream()`: the last
launch it received)."""
import os

import numpy as np

import ember as em


def device_names():
    """The devices a test runs on: the CPU, then cuda:0 and opencl:0 where they are;
    EMBER_TEST_DEVICES (comma-separated) names them instead."""
    only = os.environ.get("EMBER_TEST_DEVICES")
    if only:
        return only.split(",")
    devs = ["cpu"]
    if em.cuda.is_available():
        devs.append("cuda:0")
    if em.opencl.is_available():
        devs.append("opencl:0")
    return devs

ALL_DTYPES = [np.dtype(n) for n in (
    "bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
    "float16", "float32", "float64", "complex64", "complex128")]
INT_DTYPES = [d for d in ALL_DTYPES if d.kind in "iu"]
FLOAT_DTYPES = [d for d in ALL_DTYPES if d.kind == "f"]
COMPLEX_DTYPES = [d for d in ALL_DTYPES if d.kind == "c"]
NUMERIC_DTYPES = [d for d in ALL_DTYPES if d.kind != "b"]


def random_array(rng, shape, dtype, low=None, high=None):
    dtype = np.dtype(dtype)
    if dtype.kind == "b":
        return rng.random(shape) < 0.5
    if dtype.kind in "iu":
        info = np.iinfo(dtype)
        lo = max(info.min, -100) if low is None else low
        hi = min(info.max, 100) if high is None else high
        return rng.integers(lo, hi, size=shape, endpoint=True).astype(dtype)
    lo = -10 if low is None else low
    hi = 10 if high is None else high
    x = rng.uniform(lo, hi, size=shape)
    if dtype.kind == "c":
        x = x + 1j * rng.uniform(lo, hi, size=shape)
    return np.asarray(x).astype(dtype)


def layouts(rng, shape, dtype, **kw):
    """(name, numpy view) pairs covering the edge layouts for `shape`."""
    base = random_array(rng, shape, dtype, **kw)
    yield "contiguous", base
    yield "0-d", random_array(rng, (), dtype, **kw)
    yield "empty", random_array(rng, (0,) + tuple(shape[1:]), dtype, **kw)
    big = random_array(rng, tuple(2 * s for s in shape), dtype, **kw)
    yield "strided", big[tuple(slice(None, None, 2) for _ in shape)]
    yield "negative-strides", big[tuple(slice(None, None, -2) for _ in shape)]
    if len(shape) >= 2:
        yield "transposed", random_array(rng, shape[::-1], dtype, **kw).T
    yield "broadcast", np.broadcast_to(random_array(rng, (1,) + tuple(shape[1:]), dtype, **kw), shape)


SPECIAL_FLOATS = [np.nan, -np.nan, np.inf, -np.inf, 0.0, -0.0, 1.0, -1.0, 2.5, 1e-3]


def _special_reals(rng, n, dtype, spread):
    dtype = np.dtype(dtype)
    if dtype.kind == "b":
        return rng.random(n) < 0.5
    if dtype.kind in "iu":
        info = np.iinfo(dtype)
        pool = np.array([info.min, info.min + 1, 0, 1, 2, info.max - 1, info.max], dtype=dtype)
        if not spread:
            return pool[rng.integers(0, len(pool), n)]
        return np.concatenate([pool[rng.integers(0, len(pool), n // 2)],
                               rng.integers(info.min, info.max, n - n // 2, dtype=dtype)])
    pool = np.array(SPECIAL_FLOATS)
    if not spread:
        return pool[rng.integers(0, len(pool), n)].astype(dtype)
    a = (rng.standard_normal(n) * 50).astype(dtype)
    k = rng.integers(0, n, max(1, n // 50)) if n else np.zeros(0, np.int64)
    a[k] = pool[rng.integers(0, len(pool), k.size)]
    return a


def special_values(rng, n, dtype, spread=False):
    """n values of dtype full of ties and extremes, for the ops that order
    values (sort, unique, the selects): integers from the range's ends and
    0, 1, 2; floats from SPECIAL_FLOATS (NaN of both signs, +-inf, -0.0 and
    0.0, small values); complex both parts so; bool half true.  spread=True
    mixes in ordinary values: half the integers over the whole range, floats
    normal (scale 50) with one in 50 special."""
    dtype = np.dtype(dtype)
    if dtype.kind != "c":
        return _special_reals(rng, n, dtype, spread)
    part = np.dtype(dtype.char.lower())
    out = np.empty(n, dtype)
    out.real, out.imag = _special_reals(rng, n, part, spread), _special_reals(rng, n, part, spread)
    return out


def views_1d(a, two_d=False):
    """a (1-d) as contiguous, reversed and strided views; two_d=True adds a
    transposed 2-d view (a of even length)."""
    yield a
    yield a[::-1]
    if a.shape[0] > 1:
        yield a[1::2]
    if two_d:
        yield a.reshape(2, -1).T


def to_em(a, device=None):
    """An ember array with a's values *and* a's layout (a view of a copy)."""
    a = np.asarray(a)
    if a.size == 0 or a.ndim == 0:
        return em.asarray(a.copy(), device=device)
    # Rebuild the same strided view over an ember buffer.
    lo = sum(min(0, (n - 1) * s) for n, s in zip(a.shape, a.strides))
    hi = sum(max(0, (n - 1) * s) for n, s in zip(a.shape, a.strides)) + a.itemsize
    if any(s == 0 for s in a.strides) or any(s % a.itemsize for s in a.strides):
        return em.asarray(np.ascontiguousarray(a), device=device)
    flat = np.zeros((hi - lo) // a.itemsize, dtype=a.dtype)
    view = np.lib.stride_tricks.as_strided(flat[-lo // a.itemsize:], a.shape, a.strides)
    view[...] = a
    base = em.asarray(flat, device=device)
    return base._view_as(a.shape, a.strides, -lo)


def to_np(x):
    return x.get() if isinstance(x, em.ndarray) else np.asarray(x)


def assert_same(got, want, rtol=None, atol=0, check_dtype=True):
    """got (ember) equals want (numpy): dtype, shape, values (NaNs equal)."""
    assert isinstance(got, em.ndarray), f"expected ember.ndarray, got {type(got)}"
    g, w = to_np(got), np.asarray(want)
    if check_dtype:
        assert g.dtype == w.dtype, f"dtype {g.dtype} != numpy's {w.dtype}"
    assert g.shape == w.shape, f"shape {g.shape} != numpy's {w.shape}"
    if rtol is None:
        rtol = {"e": 1e-3, "f": 1e-5, "F": 1e-5}.get(w.dtype.char, 1e-12 if w.dtype.kind in "fc" else 0)
    if w.dtype.kind in "fc":
        np.testing.assert_allclose(g, w, rtol=rtol, atol=atol, equal_nan=True)
    else:
        np.testing.assert_array_equal(g, w)


_NVRTC = None


def spy_calls(monkeypatch, name, record):
    """Wrap ember._ember.<name> (a small-matrix kernel's binding: None where it
    did not run) for one test; the list returned gains record(args, result)
    after each call, unless that is None."""
    seen = []
    real = getattr(em._ember, name)

    def spy(*args):
        r = real(*args)
        v = record(args, r)
        if v is not None:
            seen.append(v)
        return r
    monkeypatch.setattr(em._ember, name, spy)
    return seen


def linalg_path(monkeypatch, path):
    """Pin ember._cusolver's path for small matrices: "fast" / "old" the
    cuSOLVER ones (one C call, or the pieces assembled in Python), "kernel"
    Ember's small-matrix kernel for every shape it takes (not only those it
    wins on the H100)."""
    import ember._cusolver as cs
    monkeypatch.setattr(cs, "_FAST", path != "old")
    monkeypatch.setattr(cs, "_SMALL", path == "kernel")
    monkeypatch.setattr(cs, "_SMALL_ALL", path == "kernel")


def nvrtc_available():
    """Whether NVRTC loads here, through libember's own loader (the sonames
    and paths Ember tries); asked once per process."""
    global _NVRTC
    if _NVRTC is None:
        import ctypes
        import os
        lib = ctypes.CDLL(os.path.join(em.__path__[0], "libember.so"))
        lib.em_nvrtc_init.restype = ctypes.c_int
        _NVRTC = lib.em_nvrtc_init() == 0
    return _NVRTC


FAKE_PROLOGUE = """
import ctypes, os, numpy as np, ember as em
fake = ctypes.CDLL(os.environ["FAKE_LIB"])
def cfg():
    return tuple((ctypes.c_uint * 7).in_dll(fake, "fake_last_cfg"))
def params(n):
    return bytes((ctypes.c_ubyte * n).in_dll(fake, "fake_last_params"))
def stream():
    return ctypes.c_void_p.in_dll(fake, "fake_last_stream").value or 0
"""
