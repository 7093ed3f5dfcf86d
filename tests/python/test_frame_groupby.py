"""ember.frame group-by against pandas: one and several keys (ints, strings with
nulls), every aggregation, the list/dict/named forms, as_index and sort."""
import numpy as np
import pytest

pd = pytest.importorskip("pandas")
import pandas.testing as tm  # noqa: E402

import ember as em  # noqa: E402
from frame_data import SIZES, make_pdf  # noqa: E402

NUM_AGGS = ["sum", "mean", "count", "min", "max", "std", "var", "first", "last", "nunique"]
STR_AGGS = ["count", "min", "max", "first", "last", "nunique"]


def E(pdf, device):
    return em.DataFrame.from_pandas(pdf, device)


def check(got, exp):
    if isinstance(exp, pd.Series):
        tm.assert_series_equal(got.to_pandas(), exp, check_exact=False, rtol=1e-5)
    else:
        tm.assert_frame_equal(got.to_pandas(), exp, check_exact=False, rtol=1e-5)


@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize("keys", ["k1", "k2", ["k1", "k2"], ["k2", "b"]])
@pytest.mark.parametrize("how", NUM_AGGS)
def test_numeric_aggs(device, rng, n, keys, how):
    pdf = make_pdf(rng, n)
    df = E(pdf, device)
    cols = ["i", "i32", "f", "f32"]
    got = getattr(df.groupby(keys)[cols], how)()
    exp = getattr(pdf.groupby(keys)[cols], how)()
    if how == "mean":
        # pandas returns a float32 column's group means as float32 or float64
        # depending on the data (the one-row frame gives float64); Ember: float32
        assert got.dtypes["f32"] == np.float32
        exp["f32"] = exp["f32"].astype(np.float32)
    check(got, exp)
    check(getattr(df.groupby(keys)["f"], how)(), getattr(pdf.groupby(keys)["f"], how)())


@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize("how", STR_AGGS)
def test_string_aggs(device, rng, n, how):
    pdf = make_pdf(rng, n)
    df = E(pdf, device)
    check(df.groupby("k1")["s"].agg(how), pdf.groupby("k1")["s"].agg(how))


@pytest.mark.parametrize("n", SIZES)
def test_bool_sum_and_size(device, rng, n):
    pdf = make_pdf(rng, n)
    df = E(pdf, device)
    check(df.groupby("k1")["b"].sum(), pdf.groupby("k1")["b"].sum())
    check(df.groupby(["k1", "k2"]).size(), pdf.groupby(["k1", "k2"]).size())
    check(df.groupby("k2", as_index=False).size(), pdf.groupby("k2", as_index=False).size())


@pytest.mark.parametrize("n", SIZES)
def test_agg_forms(device, rng, n):
    pdf = make_pdf(rng, n)
    df = E(pdf, device)
    check(df.groupby("k1")[["f", "i"]].agg(["sum", "mean", "max"]),
          pdf.groupby("k1")[["f", "i"]].agg(["sum", "mean", "max"]))
    check(df.groupby("k1").agg({"f": "sum", "s": "nunique", "i": "min"}),
          pdf.groupby("k1").agg({"f": "sum", "s": "nunique", "i": "min"}))
    check(df.groupby("k1").agg({"f": ["sum", "std"], "i": "count"}),
          pdf.groupby("k1").agg({"f": ["sum", "std"], "i": "count"}))
    check(df.groupby(["k2", "k1"]).agg(total=("f", "sum"), n=("s", "count"),
                                       hi=("i", "max")),
          pdf.groupby(["k2", "k1"]).agg(total=("f", "sum"), n=("s", "count"),
                                        hi=("i", "max")))
    check(df.groupby("k1")["f"].agg(["min", "max"]), pdf.groupby("k1")["f"].agg(["min", "max"]))


@pytest.mark.parametrize("n", SIZES)
def test_as_index_and_sort(device, rng, n):
    pdf = make_pdf(rng, n)
    df = E(pdf, device)
    check(df.groupby(["k1", "k2"], as_index=False)[["f", "i"]].sum(),
          pdf.groupby(["k1", "k2"], as_index=False)[["f", "i"]].sum())
    check(df.groupby("k2", as_index=False).agg(m=("f", "mean")),
          pdf.groupby("k2", as_index=False).agg(m=("f", "mean")))
    check(df.groupby("s", sort=False)["i"].sum(), pdf.groupby("s", sort=False)["i"].sum())
    check(df.groupby(["k2", "k1"], sort=False)["f"].mean(),
          pdf.groupby(["k2", "k1"], sort=False)["f"].mean())


def test_int_column_with_nulls(device):
    pdf = pd.DataFrame({"k": [1, 1, 2, 2, 3], "v": [1, None, None, None, 5]})
    df = em.DataFrame({"k": [1, 1, 2, 2, 3], "v": [1, None, None, None, 5]})
    for how in NUM_AGGS:
        check(getattr(df.groupby("k")["v"], how)(), getattr(pdf.groupby("k")["v"], how)())


def test_large_groups_exact(device, rng):
    n = 5000
    k = rng.integers(0, 37, n)
    v = rng.integers(-10**6, 10**6, n)
    pdf = pd.DataFrame({"k": k, "v": v, "f": rng.normal(size=n) * 1e6})
    df = E(pdf, device)
    check(df.groupby("k").agg(["sum", "min", "max", "var"]),
          pdf.groupby("k").agg(["sum", "min", "max", "var"]))


def test_errors(device, rng):
    pdf = make_pdf(rng, 10)
    df = E(pdf, device)
    with pytest.raises(KeyError):
        df.groupby("nope")
    with pytest.raises(KeyError):
        df.groupby("k1")["nope"]
    with pytest.raises(KeyError):
        df.groupby("k1").agg({"nope": "sum"})
    with pytest.raises(TypeError):
        df.groupby("k1")["s"].mean()
    with pytest.raises(TypeError):
        df.groupby("k1")["s"].std()
    with pytest.raises(AttributeError):
        df.groupby("k1")["f"].agg("median_of_medians")


@pytest.mark.parametrize("how", ["sum", "mean", "count"])
@pytest.mark.parametrize("spread", [1, 10, 10 ** 9])  # dense keys (no sort) and sparse keys
def test_dense_int_key_path(device, how, spread):
    r = np.random.default_rng(spread)
    n = 3000
    pdf = pd.DataFrame({"k": r.integers(-5, 300, n) * spread + 7,
                        "x": np.where(r.random(n) < 0.2, np.nan, r.standard_normal(n)),
                        # eighths: float32 sums exact, so pandas' float32 accumulation and
                        # the float64 one here agree
                        "f": (r.integers(-64, 64, n) / 8).astype(np.float32),
                        "i": r.integers(-9, 9, n)})
    pdf.loc[pdf.k == pdf.k.iloc[0], "x"] = np.nan  # one group of nulls only
    df = E(pdf, device)
    cols = ["x", "f"] if how != "count" else ["x", "f", "i"]
    check(getattr(df.groupby("k")[cols], how)(), getattr(pdf.groupby("k")[cols], how)())
    check(getattr(df.groupby("k", as_index=False).x, how)(),
          getattr(pdf.groupby("k", as_index=False).x, how)())
    check(getattr(df.groupby("k", sort=False).x, how)(),
          getattr(pdf.groupby("k", sort=False).x, how)())
    gx = df.groupby("k").x
    getattr(gx, how)()
    assert (gx._plan_cache is None) == (spread < 10 ** 9)  # dense keys took no sort


@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize("keys", ["k1", ["k2", "k1"], "s"])
@pytest.mark.parametrize("how", NUM_AGGS + ["size"])
def test_transform(device, rng, n, keys, how):
    """transform(name): every row gets its group's value, in the frame's row
    order and index; null keys (dropped groups) give NaN, as in pandas."""
    pdf = make_pdf(rng, n)
    pdf.index = pdf.index * 2 + 5
    df = E(pdf, device)
    cols = ["i", "f", "f32"] if how != "size" else ["f"]
    for dropna in (True, False):
        g, pg = df.groupby(keys, dropna=dropna), pdf.groupby(keys, dropna=dropna)
        got, exp = g[cols].transform(how), pg[cols].transform(how)
        if how == "mean":
            exp["f32"] = exp["f32"].astype(got.dtypes["f32"])
        check(got, exp)
        check(g["f"].transform(how), pg["f"].transform(how))
    if how in STR_AGGS:
        check(df.groupby("k1")["s"].transform(how), pdf.groupby("k1")["s"].transform(how))


@pytest.mark.parametrize("func", ["sum", "mean", "max", "count", np.sum, np.max, "size"])
def test_apply_aggregation_names(device, rng, func):
    pdf = make_pdf(rng, 200)
    df = E(pdf, device)
    check(df.groupby(["k1", "k2"])[["i", "f"]].apply(func),
          pdf.groupby(["k1", "k2"])[["i", "f"]].agg(func))
    check(df.groupby("k1")["f"].apply(func), pdf.groupby("k1")["f"].agg(func))


def test_transform_apply_errors(device, rng):
    pdf = make_pdf(rng, 20)
    df = E(pdf, device)
    with pytest.raises(ValueError, match="not a valid function name"):
        df.groupby("k1")["f"].transform("nope")
    with pytest.raises(ValueError, match="not a valid function name"):
        pdf.groupby("k1")["f"].transform("nope")  # the oracle says the same
    with pytest.raises(AttributeError):
        df.groupby("k1")["f"].apply("nope")
    with pytest.raises(NotImplementedError, match="aggregation name"):
        df.groupby("k1")["f"].transform(lambda x: x - x.mean())
    with pytest.raises(NotImplementedError, match="aggregation name"):
        df.groupby("k1").apply(lambda g: g.head(1))
    with pytest.raises(TypeError):
        df.groupby("k1")["s"].transform("mean")
