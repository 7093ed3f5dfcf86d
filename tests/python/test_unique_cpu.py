"""unique with indices on the CPU (_sorting._cpu_unique_perm: NumPy's
_unique1d on the CPU's radix argsort) against NumPy on every real dtype,
with NaN (both signs), -0.0, ties, 2-d and reversed views.  With
return_index NumPy sorts stably (mergesort), so everything is bit for bit,
the zeros' signs included; without it NumPy's quicksort leaves which zero
or which NaN comes first unspecified, so the values must rebuild the input
through the inverse."""
import numpy as np
import pytest

import ember as em

DTYPES = ["bool", "int8", "uint8", "int16", "int32", "uint32", "int64", "uint64",
          "float16", "float32", "float64"]
KWS = [dict(return_index=True), dict(return_inverse=True),
       dict(return_inverse=True, return_counts=True),
       dict(return_index=True, return_inverse=True, return_counts=True),
       dict(return_inverse=True, equal_nan=False), dict(return_index=True, equal_nan=False)]


def _data(dt, shape, rng):
    if dt == "bool":
        return rng.random(shape) < 0.5
    a = rng.integers(-5, 5, shape).astype(dt)
    if a.dtype.kind == "f" and a.size > 3:
        f = a.reshape(-1)
        f[rng.integers(0, f.size, 3)] = np.nan
        f[rng.integers(0, f.size, 3)] = -0.0
        f[0] = -np.nan
    return a


@pytest.mark.parametrize("dt", DTYPES)
def test_cpu_unique_with_indices(dt):
    rng = np.random.default_rng(2)
    for n in (1, 2, 3, 10, 1000, 4097):
        for shape in ((n,), (2, n)):
            a = _data(dt, shape, rng)
            for x, h in ((em.asarray(a, device="cpu"), a),
                         (em.asarray(a, device="cpu")[..., ::-1], a[..., ::-1])):
                for kw in KWS:
                    want = np.unique(h, **kw)
                    got = [np.asarray(g) for g in em.unique(x, **kw)]
                    assert len(got) == len(want)
                    for g, w in zip(got, want):
                        assert g.dtype == w.dtype and g.shape == w.shape, kw
                    v = got[0]
                    assert np.array_equal(v, want[0], equal_nan=True), kw
                    if kw.get("return_index"):
                        for g, w in zip(got, want):
                            assert np.array_equal(g, w, equal_nan=True), kw
                        assert np.array_equal(np.signbit(v), np.signbit(want[0])), kw
                        continue
                    inv = got[1]
                    assert np.array_equal(v[inv], h, equal_nan=True), kw
                    if kw.get("equal_nan", True):
                        assert np.array_equal(inv, want[1]), kw
                    if kw.get("return_counts"):
                        assert np.array_equal(got[2], want[2]), kw


def test_cpu_unique_all_nan_and_empty():
    a = np.full(5, np.nan)
    for kw in KWS:
        for g, w in zip(em.unique(em.asarray(a), **kw), np.unique(a, **kw)):
            assert np.array_equal(np.asarray(g), w, equal_nan=True) or not kw.get("equal_nan", 1)
    e = np.zeros(0, np.float32)
    for g, w in zip(em.unique(em.asarray(e), return_index=True, return_inverse=True,
                              return_counts=True),
                    np.unique(e, return_index=True, return_inverse=True, return_counts=True)):
        g = np.asarray(g)
        assert g.dtype == w.dtype and g.shape == w.shape


INTS = ["int8", "uint8", "int16", "uint16", "int32", "uint32", "int64", "uint64"]


@pytest.mark.parametrize("dt", INTS)
def test_cpu_unique_counting(dt):
    """Integers spanning fewer values than elements take the counting path
    (_sorting._cpu_unique_count); at the dtype's ends x - min must not wrap."""
    rng = np.random.default_rng(5)
    info = np.iinfo(dt)
    for n in (1, 2, 3, 10, 1000, 4097):
        m = min(n, 250)
        for a in (rng.integers(max(info.min, -5), min(info.max, n // 2 + 5), n, dtype=dt),
                  (info.min + rng.integers(0, m, n)).astype(dt),
                  (np.array(info.max, dtype=dt) - rng.integers(0, m, n).astype(dt)).astype(dt),
                  rng.integers(info.min, info.max, n, dtype=dt, endpoint=True),
                  np.full(n, info.max, dtype=dt)):
            for h in (a, a[::-1], a.reshape(1, -1)):
                x = em.asarray(h, device="cpu")
                for kw in ({}, dict(return_counts=True), dict(return_inverse=True),
                           dict(return_inverse=True, return_counts=True)):
                    want = np.unique(h, **kw)
                    got = em.unique(x, **kw)
                    if not isinstance(want, tuple):
                        want, got = (want,), (got,)
                    for g, w in zip(got, want):
                        g = np.asarray(g)
                        assert g.dtype == w.dtype and g.shape == w.shape, kw
                        assert np.array_equal(g, w), kw
