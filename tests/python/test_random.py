"""em.random: Philox streams, reproducibility, distributions, errors."""
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import ember as em
from ember import _ember


def test_philox_known_answers():
    # Random123's kat_vectors for philox4x32_10 whose counter fits 64 bits.
    assert _ember.philox4x32_10((0, 0, 0, 0), (0, 0)) == (
        0x6627E8D5, 0xE169C58D, 0xBC57AC4C, 0x9B00DBD8)
    bits = em.random.Philox(0)._fill("bits", (4,), "uint32", None)
    assert bits.tolist() == [0x6627E8D5, 0xE169C58D, 0xBC57AC4C, 0x9B00DBD8]


def test_same_seed_same_values(device):
    for f in ("random", "standard_normal"):
        a = getattr(em.random.default_rng(7), f)(1000)
        b = getattr(em.random.default_rng(7), f)(1000)
        assert a.device == device
        np.testing.assert_array_equal(a.get(), b.get())
    em.random.seed(3)
    x = em.random.rand(5, 3)
    em.random.seed(3)
    np.testing.assert_array_equal(x.get(), em.random.rand(5, 3).get())


def test_different_seeds_and_draws_differ():
    a = em.random.default_rng(1).random(100).get()
    b = em.random.default_rng(2).random(100).get()
    g = em.random.default_rng(1)
    c, d = g.random(100).get(), g.random(100).get()
    assert not np.array_equal(a, b)
    assert not np.array_equal(c, d)
    np.testing.assert_array_equal(a, c)


def test_counter_advances_by_blocks():
    g = em.random.default_rng(5)
    g.random(3)  # float64: 2 per block -> 2 blocks
    assert g.bit_generator.counter == 2
    g.random(5, dtype=np.float32)  # 4 per block -> 2 blocks
    assert g.bit_generator.counter == 4
    # A draw continues the stream: half of a long draw equals a later short one.
    whole = em.random.default_rng(9).random(100).get()
    h = em.random.default_rng(9)
    h.bit_generator.advance(25)
    np.testing.assert_array_equal(h.random(50).get(), whole[50:])


def test_state_roundtrip():
    g = em.random.default_rng(11)
    g.random(10)
    st = g.bit_generator.state
    a = g.standard_normal(7).get()
    g.bit_generator.state = st
    np.testing.assert_array_equal(g.standard_normal(7).get(), a)
    em.random.set_state(st)
    assert em.random.get_state() == st


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_uniform_statistics(device, dtype):
    x = em.random.default_rng(123).random(10**6, dtype=dtype)
    assert x.dtype == dtype and x.shape == (10**6,)
    h = x.get()
    assert h.min() >= 0 and h.max() < 1
    assert abs(h.mean() - 0.5) < 3e-3
    assert abs(h.var() - 1 / 12) < 2e-3
    # 24 / 53 bits: float32 values are multiples of 2**-24.
    bits = 24 if dtype == np.float32 else 53
    scaled = h.astype(np.float64) * 2.0**bits
    np.testing.assert_array_equal(scaled, np.floor(scaled))  # multiples of 2**-bits
    assert abs((scaled % 2).mean() - 0.5) < 3e-3  # ... and the lowest bit is used
    hist = np.bincount((h * 16).astype(np.int64), minlength=16)
    assert np.abs(hist - 10**6 / 16).max() < 6 * np.sqrt(10**6 / 16)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_normal_statistics(device, dtype):
    h = em.random.default_rng(321).standard_normal((1000, 1000), dtype=dtype).get()
    assert h.dtype == dtype and h.shape == (1000, 1000)
    assert abs(h.mean()) < 5e-3
    assert abs(h.std() - 1) < 5e-3
    assert abs((np.abs(h) < 1).mean() - 0.6826894921) < 3e-3
    assert abs((np.abs(h) > 3).mean() - 0.0026997961) < 4e-4  # the tails are there
    f = h.ravel().astype(np.float64)
    assert abs(np.mean(f[::2] * f[1::2])) < 5e-3  # Box-Muller pairs are uncorrelated
    assert np.isfinite(h).all()


def test_uniform_and_normal_parameters(device):
    g = em.random.default_rng(4)
    u = g.uniform(-2.0, 3.0, size=10**5).get()
    assert u.min() >= -2 and u.max() < 3 and abs(u.mean() - 0.5) < 0.03
    n = g.normal(10.0, 2.0, size=10**5).get()
    assert abs(n.mean() - 10) < 0.05 and abs(n.std() - 2) < 0.05
    # Array parameters broadcast (size=None takes their shape).
    lo = em.asarray([0.0, 100.0])
    v = g.uniform(lo, 200.0, size=(1000, 2)).get()
    assert (v[:, 0] < 200).all() and (v[:, 1] >= 100).all()
    assert g.normal(np.zeros(3), 1.0).shape == (3,)
    with pytest.raises(ValueError, match="do not broadcast"):
        g.uniform(np.zeros(3), 1.0, size=(2, 1))


@pytest.mark.parametrize("dtype", ["bool", "int8", "uint8", "int16", "uint16", "int32",
                                   "uint32", "int64", "uint64"])
def test_integers_range_and_dtype(device, dtype):
    info = (0, 1) if dtype == "bool" else (int(np.iinfo(dtype).min), int(np.iinfo(dtype).max))
    lo, hi = max(info[0], -7), min(info[1], 9)
    x = em.random.default_rng(8).integers(lo, hi, size=20000, dtype=dtype, endpoint=True)
    assert x.dtype == np.dtype(dtype)
    h = x.get().astype(np.int64)
    assert h.min() == lo and h.max() == hi  # both ends reached
    counts = np.bincount(h - lo)
    expect = 20000 / (hi - lo + 1)
    assert np.abs(counts - expect).max() < 6 * np.sqrt(expect)
    # Full-width ranges.
    full = em.random.default_rng(8).integers(info[0], info[1], size=1000, dtype=dtype,
                                             endpoint=True).get()
    assert full.dtype == np.dtype(dtype)


def test_randint_legacy_forms():
    em.random.seed(0)
    a = em.random.randint(5, size=(10, 10))
    assert a.dtype == np.int64 and a.shape == (10, 10)
    h = a.get()
    assert h.min() >= 0 and h.max() < 5
    b = em.random.randint(-3, -1, size=1000).get()
    assert set(np.unique(b)) == {-3, -2}
    big = em.random.integers(0, 2**64, size=1000, dtype=np.uint64).get()
    assert big.max() > 2**63  # reaches the top half


def test_size_none_gives_0d():
    for x in (em.random.random(), em.random.rand(), em.random.randn(),
              em.random.uniform(), em.random.normal(), em.random.randint(3),
              em.random.default_rng(1).integers(5)):
        assert isinstance(x, em.ndarray) and x.shape == ()


def test_independent_of_thread_count():
    before = _ember.num_threads()
    try:
        out = {}
        for n in (1, 2, 3):
            _ember.num_threads(n)
            g = em.random.default_rng(99)
            out[n] = [g.random(300001).get(), g.standard_normal(300001, dtype=np.float32).get(),
                      g.integers(0, 1000, 300001).get()]
        for n in (2, 3):
            for a, b in zip(out[1], out[n]):
                np.testing.assert_array_equal(a, b)
    finally:
        _ember.num_threads(before)


def test_threads_share_a_generator_without_overlap():
    from concurrent.futures import ThreadPoolExecutor
    g = em.random.default_rng(17)
    with ThreadPoolExecutor(4) as ex:
        parts = list(ex.map(lambda _: g.integers(0, 2**62, 50000).get(), range(8)))
    assert g.bit_generator.counter == 8 * 25000
    allv = np.concatenate(parts)
    assert len(np.unique(allv)) == allv.size  # disjoint blocks: no repeats


def test_bad_arguments_raise_and_process_recovers():
    g = em.random.default_rng(1)
    with pytest.raises(ValueError, match="negative dimensions"):
        g.random(-1)
    with pytest.raises(ValueError, match="negative dimensions"):
        em.random.rand(2, -3)
    with pytest.raises(ValueError, match="low >= high"):
        g.integers(5, 5)
    with pytest.raises(ValueError, match="low > high"):
        g.integers(5, 4, endpoint=True)
    with pytest.raises(ValueError, match="high <= 0"):
        em.random.randint(0)
    with pytest.raises(ValueError, match="high is out of bounds for int8"):
        g.integers(0, 300, dtype=np.int8)
    with pytest.raises(ValueError, match="low is out of bounds for uint8"):
        g.integers(-1, 3, dtype=np.uint8)
    with pytest.raises(TypeError, match="Unsupported dtype.*float64.*integers"):
        g.integers(0, 3, dtype=np.float64)
    with pytest.raises(TypeError, match="Unsupported dtype.*int32.*random"):
        g.random(3, dtype=np.int32)
    with pytest.raises(TypeError, match="Unsupported dtype.*float16"):
        g.standard_normal(3, dtype=np.float16)
    with pytest.raises(TypeError, match="data type 'nonsense' not understood"):
        g.random(3, dtype="nonsense")
    with pytest.raises(TypeError, match="size must be"):
        g.random("abc")
    with pytest.raises(ValueError, match="scale < 0"):
        g.normal(0.0, -1.0, size=3)
    with pytest.raises(ValueError, match="seed must be between 0 and 2\\*\\*64 - 1"):
        em.random.seed(-1)
    with pytest.raises(TypeError, match="seed must be an int"):
        em.random.default_rng(1.5)
    with pytest.raises(em.DeviceError, match="cuda:7"):
        g.random(3, device="cuda:7")
    assert g.bit_generator.counter == 0  # failed draws consume nothing
    assert g.random(4).shape == (4,)


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2**64 - 1), n1=st.integers(0, 50), n2=st.integers(0, 50),
       kind=st.sampled_from(["random", "standard_normal", "integers"]),
       dtype=st.sampled_from([np.float32, np.float64]))
def test_draws_split_the_stream(seed, n1, n2, kind, dtype):
    """Two draws equal one long draw, the second starting at the next unused
    Philox block (4 values a block for 32-bit floats, 2 otherwise)."""
    def draw(g, n):
        if kind == "integers":
            return g.integers(-1000, 1000, n).get()
        return getattr(g, kind)(n, dtype=dtype).get()

    per = 4 if kind != "integers" and dtype == np.float32 else 2
    g = em.random.default_rng(seed)
    a, b = draw(g, n1), draw(g, n2)
    blocks1 = -(-n1 // per)
    assert g.bit_generator.counter == blocks1 + -(-n2 // per)
    whole = draw(em.random.default_rng(seed), blocks1 * per + n2)
    np.testing.assert_array_equal(a, whole[:n1])
    np.testing.assert_array_equal(b, whole[blocks1 * per:])
