"""ember.frame merge against pandas: inner/left/right/outer, one and several
keys (ints, strings with nulls), left_on/right_on, suffixes, duplicate keys,
empty sides."""
import numpy as np
import pytest

pd = pytest.importorskip("pandas")
import pandas.testing as tm  # noqa: E402

import ember as em  # noqa: E402
from frame_data import make_pdf  # noqa: E402

HOWS = ["inner", "left", "right", "outer"]


def E(pdf, device):
    return em.DataFrame.from_pandas(pdf, device)


def dim(rng, n, nulls=True):
    words = np.array(["apple", "pear", "fig", "kiwi"], dtype=object)
    k2 = words[rng.integers(0, 4, n)].copy()
    if nulls and n:
        k2[rng.random(n) < 0.2] = None
    return pd.DataFrame({"k1": rng.integers(0, 6, n).astype(np.int64),
                         "k2": pd.Series(k2, dtype="str"),
                         "w": rng.normal(size=n).round(2),
                         "i": rng.integers(0, 9, n).astype(np.int64)})


@pytest.mark.parametrize("how", HOWS)
@pytest.mark.parametrize("nl,nr", [(0, 0), (0, 5), (6, 0), (1, 1), (40, 12), (200, 30)])
@pytest.mark.parametrize("on", ["k1", ["k1", "k2"], "k2"])
def test_merge_on(device, rng, how, nl, nr, on):
    a, b = make_pdf(rng, nl)[["k1", "k2", "i", "f", "s"]], dim(rng, nr)
    got = E(a, device).merge(E(b, device), how=how, on=on)
    exp = a.merge(b, how=how, on=on)
    tm.assert_frame_equal(got.to_pandas(), exp)


@pytest.mark.parametrize("how", HOWS)
def test_left_on_right_on_suffixes(device, rng, how):
    a = make_pdf(rng, 50)[["k1", "i", "f"]]
    b = dim(rng, 20).rename(columns={"k1": "key"})
    got = E(a, device).merge(E(b, device), how=how, left_on="k1", right_on="key",
                             suffixes=("_l", "_r"))
    exp = a.merge(b, how=how, left_on="k1", right_on="key", suffixes=("_l", "_r"))
    tm.assert_frame_equal(got.to_pandas(), exp)


def test_merge_duplicates_and_float_keys(device):
    a = pd.DataFrame({"k": [1.0, np.nan, 2.0, 2.0, 3.0], "x": range(5)})
    b = pd.DataFrame({"k": [2.0, 2.0, np.nan, 5.0], "y": range(4)})
    # pandas before 3.1 orders the NaN-key rows of some joins differently (3.0.6 on the GPU
    # machine); Ember follows 3.1's order, so older pandas is compared row set to row set.
    old = tuple(int(v) for v in pd.__version__.split(".")[:2]) < (3, 1)
    for how in HOWS:
        got = E(a, device).merge(E(b, device), on="k", how=how).to_pandas()
        exp = a.merge(b, on="k", how=how)
        if old:
            got, exp = (f.sort_values(list(f.columns)).reset_index(drop=True) for f in (got, exp))
        tm.assert_frame_equal(got, exp)


def test_merge_sort(device, rng):
    a, b = make_pdf(rng, 30)[["k1", "i"]], dim(rng, 10)[["k1", "w"]]
    tm.assert_frame_equal(E(a, device).merge(E(b, device), on="k1", sort=True).to_pandas(),
                          a.merge(b, on="k1", sort=True))


def test_merge_errors(device, rng):
    a, b = E(make_pdf(rng, 5), device), E(dim(rng, 5), device)
    with pytest.raises(KeyError):
        a.merge(b, on="nope")
    with pytest.raises(ValueError):
        a.merge(b, left_on=["k1", "k2"], right_on=["k1"])
    with pytest.raises(ValueError):
        a.merge(b, how="sideways", on="k1")
    with pytest.raises(ValueError):
        a.merge(b, left_on="k1", right_on="k2")
    with pytest.raises(ValueError):
        a[["f"]].merge(b[["w"]])


@pytest.mark.parametrize("span", [50, 10**6, 2**40])
def test_merge_large_keys(device, rng, span):
    """Keys wide enough for the narrowed (uint16/uint32/int64) sort keys, with
    negative values and nulls."""
    n = 6000
    a = pd.DataFrame({"k": rng.integers(-span, span, n), "x": rng.normal(size=n)})
    b = pd.DataFrame({"k": np.concatenate([a["k"].to_numpy()[:300],
                                           rng.integers(-span, span, 300)]),
                      "y": rng.integers(0, 5, 600)})
    a.loc[a.index[::97], "x"] = np.nan
    # pandas before 3.1 orders the NaN-key rows of some joins differently (3.0.6 on the GPU
    # machine); Ember follows 3.1's order, so older pandas is compared row set to row set.
    old = tuple(int(v) for v in pd.__version__.split(".")[:2]) < (3, 1)
    for how in HOWS:
        got = E(a, device).merge(E(b, device), on="k", how=how).to_pandas()
        exp = a.merge(b, on="k", how=how)
        if old:
            got, exp = (f.sort_values(list(f.columns)).reset_index(drop=True) for f in (got, exp))
        tm.assert_frame_equal(got, exp)
    tm.assert_frame_equal(E(a, device).groupby("k").agg(["sum", "count"]).to_pandas(),
                          a.groupby("k").agg(["sum", "count"]))
    tm.assert_frame_equal(E(a, device).sort_values(["k", "x"]).to_pandas(),
                          a.sort_values(["k", "x"], kind="stable"))


def _dense_taken(monkeypatch):
    """Record whether merge took the dense-key path (so a test of it cannot
    silently run the sort-merge instead)."""
    from ember.frame import _merge
    seen = []
    real = _merge._dense_pairs

    def spy(*a):
        out = real(*a)
        seen.append(out is not None)
        return out
    monkeypatch.setattr(_merge, "_dense_pairs", spy)
    return seen


@pytest.mark.parametrize("how", ["inner", "left"])
@pytest.mark.parametrize("case", ["dimension", "repeated", "outside", "narrow", "all_hit"])
def test_merge_dense_keys(device, rng, monkeypatch, how, case):
    """A join on one int key whose right values span a small range takes the
    lookup-table path (unique right keys) or the counting path (repeated
    ones); left keys outside the right range, int32 against int64 keys, and
    every left row matched (the left columns shared) all equal pandas."""
    seen = _dense_taken(monkeypatch)
    nz = 500
    zone = rng.permutation(nz).astype(np.int64) + 1000
    if case == "repeated":
        zone = np.concatenate([zone, zone[:70], zone[:5]])
    b = pd.DataFrame({"zone": zone, "rate": rng.normal(size=len(zone)).round(2),
                      "s": pd.Series(rng.choice(["a", "bb", ""], len(zone)), dtype="str")})
    lo, hi = (900, 1600) if case == "outside" else (1000, 1000 + nz)
    a = pd.DataFrame({"zone": rng.integers(lo, hi, 3000),
                      "x": rng.normal(size=3000),
                      "s": pd.Series(rng.choice(["q", "rr", ""], 3000), dtype="str")})
    if case == "narrow":
        a["zone"] = a["zone"].astype(np.int32)
    if case == "all_hit":
        a = a[["zone", "x"]]
    got = E(a, device).merge(E(b, device), on="zone", how=how)
    exp = a.merge(b, on="zone", how=how)
    tm.assert_frame_equal(got.to_pandas(), exp)
    assert seen == [True]
    if case == "all_hit":
        # the result shares the left columns: changing it leaves the input alone
        got["x"] = got["x"] * 0
        tm.assert_frame_equal(E(a, device).to_pandas(), a)


def test_merge_dense_falls_back(device, rng, monkeypatch):
    """Wide key ranges, several keys, null keys, right/outer and sort=True use
    the sort-merge (the dense path declines), with the same results."""
    seen = _dense_taken(monkeypatch)
    a = pd.DataFrame({"k": rng.integers(0, 40, 200) * 10**7, "j": rng.integers(0, 3, 200),
                      "x": rng.normal(size=200)})
    b = pd.DataFrame({"k": np.arange(40) * 10**7, "j": np.arange(40) % 3,
                      "y": rng.normal(size=40)})
    for kw in [dict(on="k"), dict(on=["k", "j"])]:
        tm.assert_frame_equal(E(a, device).merge(E(b, device), **kw).to_pandas(),
                              a.merge(b, **kw))
    an = a.assign(k=(a["k"] // 10**7).where(a["x"] > 0))   # float keys with NaN
    bn = b.assign(k=b["k"] // 10**7)
    tm.assert_frame_equal(E(an, device).merge(E(bn, device), on="k").to_pandas(),
                          an.merge(bn, on="k"))
    assert not any(seen)


def test_cpu_frames_under_another_default_device(rng):
    """A CPU frame's sort, group-by, string gather and dense join stay on the
    CPU when the current device is another one (the CPU fast paths build their
    arrays on the frame's device, not the default one)."""
    others = [d for d in ("cuda:0", "opencl:0")
              if getattr(em, d.split(":")[0]).is_available()]
    if not others:
        pytest.skip("no device besides the CPU")
    n = 5000
    a = pd.DataFrame({"k": rng.integers(0, 50, n), "j": rng.integers(0, 3, n),
                      "x": rng.normal(size=n),
                      "s": pd.Series(rng.choice(["ab", "", "c"], n), dtype="str")})
    b = pd.DataFrame({"k": np.arange(50), "y": rng.normal(size=50)})
    with em.Device(others[0]):
        e, eb = E(a, "cpu"), E(b, "cpu")
        tm.assert_frame_equal(e[e["x"] > 0].to_pandas(), a[a["x"] > 0])
        tm.assert_frame_equal(e.sort_values(["j", "x"]).to_pandas(),
                              a.sort_values(["j", "x"], kind="stable"))
        tm.assert_frame_equal(e.groupby(["j", "k"]).agg({"x": ["min", "first"]}).to_pandas(),
                              a.groupby(["j", "k"]).agg({"x": ["min", "first"]}))
        tm.assert_frame_equal(e.merge(eb, on="k").to_pandas(), a.merge(b, on="k"))


@pytest.mark.parametrize("how", ["inner", "left"])
def test_merge_on_right_index(device, rng, how):
    """merge(left_on=..., right_index=True) and merging a named Series, as
    Dask's P2P shuffle calls them: the left rows' index is kept."""
    a = pd.DataFrame({"a": rng.integers(0, 8, 50), "x": rng.normal(size=50)},
                     index=rng.permutation(50) + 100)
    s = pd.Series(rng.normal(size=5), index=[1, 3, 4, 6, 9], name="w")
    got = E(a, device).merge(em.Series(s, device=device), left_on="a", right_index=True,
                             how=how)
    tm.assert_frame_equal(got.to_pandas(), a.merge(s, left_on="a", right_index=True, how=how))
    with pytest.raises(ValueError, match="without a name"):
        E(a, device).merge(em.Series(s.rename(None), device=device), left_on="a",
                           right_index=True)
    with pytest.raises(NotImplementedError):
        E(a, device).merge(em.Series(s, device=device), left_index=True, right_index=True)


def test_pandas_hooks_for_dask(device):
    """The pandas API the P2P shuffle uses: _constructor_sliced, .cat.codes and
    .cat.categories, Series.reset_index."""
    cat = pd.Series(pd.Categorical(["w1", "w2", "w1", None]), index=[5, 6, 7, 8], name="c")
    df = E(pd.DataFrame({"a": [1, 2]}), device)
    s = df._constructor_sliced(cat)
    tm.assert_series_equal(s.cat.codes.to_pandas(), cat.cat.codes.astype(s.cat.codes.dtype))
    assert list(s.cat.categories) == list(cat.cat.categories)
    with pytest.raises(AttributeError):
        df["a"].cat
    p = pd.Series([1.5, 2.5], index=pd.Index([3, 4], name="i"), name="v")
    e = em.Series(p, device=device)
    tm.assert_frame_equal(e.reset_index().to_pandas(), p.reset_index())
    tm.assert_frame_equal(e.reset_index(name="z").to_pandas(), p.reset_index(name="z"))
    tm.assert_series_equal(e.reset_index(drop=True).to_pandas(), p.reset_index(drop=True))
