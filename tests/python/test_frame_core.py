"""ember.frame core against pandas: construction, selection, nulls, casts,
sorting, duplicates, value counts, concat, describe, repr."""
import numpy as np
import pytest

pd = pytest.importorskip("pandas")
import pandas.testing as tm  # noqa: E402

import ember as em  # noqa: E402
from frame_data import SIZES, make_pdf  # noqa: E402


def E(pdf, device):
    return em.DataFrame.from_pandas(pdf, device)


@pytest.mark.parametrize("n", SIZES)
def test_roundtrip(device, rng, n):
    pdf = make_pdf(rng, n)
    df = E(pdf, device)
    assert df.shape == pdf.shape and len(df) == n
    assert df.columns == list(pdf.columns)
    tm.assert_frame_equal(df.to_pandas(), pdf)
    for c in pdf.columns:
        assert str(df[c].device) == str(device)


def test_construct_dict(device):
    df = em.DataFrame({"a": [1, None, 3], "b": np.array([1.0, 2.0, np.nan]),
                       "c": em.asarray(np.array([1, 2, 3], dtype=np.int16)),
                       "s": ["x", None, "z"], "d": 5})
    exp = pd.DataFrame({"a": [1, None, 3], "b": [1.0, 2.0, np.nan],
                        "c": np.array([1, 2, 3], dtype=np.int16), "s": ["x", None, "z"],
                        "d": 5})
    tm.assert_frame_equal(df.to_pandas(), exp)
    assert df.dtypes["a"] == np.float64 and df.dtypes["c"] == np.int16


@pytest.mark.parametrize("n", SIZES)
def test_dtypes_series(device, rng, n):
    """dtypes is pandas' Series of dtypes (index: the column names, object
    dtype), for every kind of column the frame data holds."""
    pdf = make_pdf(rng, n)
    got = E(pdf, device).dtypes
    assert isinstance(got, pd.Series)
    tm.assert_series_equal(got, pdf.dtypes)
    none = E(pdf[[]], device).dtypes  # (pandas keeps the dropped columns' index dtype)
    assert isinstance(none, pd.Series) and len(none) == 0
    if n == 0:
        return  # (an empty object column comes back as strings: nothing to infer from)
    third = np.arange(n) % 3
    odd = pd.DataFrame({"c": pd.Categorical(np.array(["a", "b", None], dtype=object)[third]),
                        "t": pd.to_datetime(third * 10**9, unit="s"),
                        "b": pd.Series(np.array([True, None, False], dtype=object)[third])})
    tm.assert_series_equal(E(odd, device).dtypes[["c", "t"]], odd.dtypes[["c", "t"]])
    tm.assert_series_equal(E(odd, device).dtypes, E(odd, device).to_pandas().dtypes)


def test_construct_errors(device):
    with pytest.raises(ValueError, match="same length"):
        em.DataFrame({"a": [1, 2], "b": [1, 2, 3]})
    df = em.DataFrame({"a": [1, 2]})
    with pytest.raises(KeyError):
        df["zz"]
    with pytest.raises(KeyError):
        df[["a", "zz"]]
    with pytest.raises(ValueError):
        df["c"] = [1, 2, 3]
    with pytest.raises(TypeError):
        df[{"a"}]


def test_datetime_and_category(device):
    pdf = pd.DataFrame({"t": pd.to_datetime(["2020-01-01", None, "2021-05-06"]),
                        "d": pd.to_timedelta([1, 2, None], unit="s"),
                        "c": pd.Categorical(["a", None, "b"])})
    df = E(pdf, device)
    tm.assert_frame_equal(df.to_pandas(), pdf)
    tm.assert_frame_equal(df.sort_values("t").to_pandas(), pdf.sort_values("t"))
    tm.assert_frame_equal(df.iloc[[2, 0]].to_pandas(), pdf.iloc[[2, 0]])


@pytest.mark.parametrize("n", SIZES)
def test_select(device, rng, n):
    pdf = make_pdf(rng, n)
    df = E(pdf, device)
    tm.assert_series_equal(df["f"].to_pandas(), pdf["f"])
    tm.assert_series_equal(df.s.to_pandas(), pdf.s)
    tm.assert_frame_equal(df[["s", "i"]].to_pandas(), pdf[["s", "i"]])
    m = pdf["i"] > 0
    tm.assert_frame_equal(df[df["i"] > 0].to_pandas(), pdf[m])
    both = (df["i"] > 0) & (df["f"] < 0.5)
    tm.assert_frame_equal(df[both].to_pandas(), pdf[(pdf["i"] > 0) & (pdf["f"] < 0.5)])
    tm.assert_frame_equal(df.iloc[1:5].to_pandas(), pdf.iloc[1:5])
    tm.assert_frame_equal(df.iloc[::-2].to_pandas(), pdf.iloc[::-2])
    pos = rng.integers(0, max(n, 1), 5) if n else np.array([], dtype=np.int64)
    tm.assert_frame_equal(df.iloc[pos].to_pandas(), pdf.iloc[pos])
    tm.assert_frame_equal(df.iloc[:, [0, 2]].to_pandas(), pdf.iloc[:, [0, 2]])
    tm.assert_frame_equal(df.loc[2:5, ["i", "s"]].to_pandas(), pdf.loc[2:5, ["i", "s"]])
    tm.assert_frame_equal(df.loc[df["b"]].to_pandas(), pdf.loc[pdf["b"]])
    tm.assert_frame_equal(df.head(3).to_pandas(), pdf.head(3))
    tm.assert_frame_equal(df.tail(3).to_pandas(), pdf.tail(3))
    tm.assert_frame_equal(df.head(-2).to_pandas(), pdf.head(-2))
    if n:
        assert df.iloc[-1, 2] == pdf.iloc[-1, 2]
        assert df["i"].iloc[0] == pdf["i"].iloc[0]


def test_iloc_errors(device):
    df = em.DataFrame({"a": [1, 2, 3]})
    with pytest.raises(IndexError):
        df.iloc[5]
    with pytest.raises(IndexError):
        df.iloc[[0, 7]]
    with pytest.raises(KeyError):
        df.loc[10]
    with pytest.raises((ValueError, IndexError)):
        df[em.asarray(np.array([True, False]))]


@pytest.mark.parametrize("n", SIZES)
def test_arith_and_assign(device, rng, n):
    pdf = make_pdf(rng, n)
    df = E(pdf, device)
    out = df.assign(x=(df["f"] * 2 + df["i"]) / 3.0 - 1, y=df["i"] % 7, z=df["i32"] * df["i"],
                    w=lambda d: d["x"] > 0, v=df["f32"] + 1, neg=-df["i"])
    exp = pdf.assign(x=(pdf["f"] * 2 + pdf["i"]) / 3.0 - 1, y=pdf["i"] % 7,
                     z=pdf["i32"] * pdf["i"], w=lambda d: d["x"] > 0, v=pdf["f32"] + 1,
                     neg=-pdf["i"])
    tm.assert_frame_equal(out.to_pandas(), exp)
    for op in ("__lt__", "__le__", "__gt__", "__ge__", "__eq__", "__ne__"):
        tm.assert_series_equal(getattr(df["f"], op)(0.1).to_pandas(),
                               getattr(pdf["f"], op)(0.1))
        tm.assert_series_equal(getattr(df["i"], op)(df["i32"]).to_pandas(),
                               getattr(pdf["i"], op)(pdf["i32"]))
    tm.assert_series_equal((2 ** df["i32"].astype("float64")).to_pandas(),
                           2 ** pdf["i32"].astype("float64"))
    tm.assert_series_equal((df["s"] == "fig").to_pandas(), pdf["s"] == "fig")


def test_arith_with_int_nulls(device):
    pdf = pd.DataFrame({"a": [1, None, 3, 4], "b": [2, 2, None, 1]})
    df = em.DataFrame({"a": [1, None, 3, 4], "b": [2, 2, None, 1]})
    tm.assert_series_equal((df["a"] + df["b"]).to_pandas(), pdf["a"] + pdf["b"])
    tm.assert_series_equal((df["a"] > 2).to_pandas(), pdf["a"] > 2)
    tm.assert_series_equal((df["a"] != 3).to_pandas(), pdf["a"] != 3)


def test_fusion_stays_lazy(device, rng):
    """A chain of column expressions is one fused Ember expression (the data of
    the result is not materialised column by column)."""
    df = em.DataFrame({"a": rng.normal(size=100), "b": rng.normal(size=100)})
    r = ((df["a"] + 1) * df["b"] - df["a"] / 2).values
    exp = (df["a"].to_numpy() + 1) * df["b"].to_numpy() - df["a"].to_numpy() / 2
    np.testing.assert_allclose(em.asnumpy(r), exp)


@pytest.mark.parametrize("n", SIZES)
def test_nulls(device, rng, n):
    pdf = make_pdf(rng, n)
    df = E(pdf, device)
    tm.assert_frame_equal(df.isna().to_pandas(), pdf.isna())
    tm.assert_frame_equal(df.notna().to_pandas(), pdf.notna())
    tm.assert_frame_equal(df.dropna().to_pandas(), pdf.dropna())
    tm.assert_frame_equal(df.dropna(subset=["f"]).to_pandas(), pdf.dropna(subset=["f"]))
    tm.assert_frame_equal(df.dropna(how="all", subset=["f", "s"]).to_pandas(),
                          pdf.dropna(how="all", subset=["f", "s"]))
    tm.assert_frame_equal(df.fillna({"f": -1.5, "s": "?"}).to_pandas(),
                          pdf.fillna({"f": -1.5, "s": "?"}))
    tm.assert_series_equal(df["f"].fillna(0).to_pandas(), pdf["f"].fillna(0))
    tm.assert_series_equal(df["s"].isna().to_pandas(), pdf["s"].isna())
    with pytest.raises(KeyError):
        df.dropna(subset=["nope"])


def test_all_null_column(device):
    pdf = pd.DataFrame({"a": [np.nan, np.nan, np.nan], "k": [1, 2, 1]})
    df = E(pdf, device)
    tm.assert_frame_equal(df.dropna().to_pandas(), pdf.dropna())
    tm.assert_frame_equal(df.groupby("k").sum().to_pandas(), pdf.groupby("k").sum())
    tm.assert_frame_equal(df.groupby("k").agg(["min", "max", "mean", "count", "first"])
                          .to_pandas(),
                          pdf.groupby("k").agg(["min", "max", "mean", "count", "first"]))


@pytest.mark.parametrize("n", SIZES)
def test_astype(device, rng, n):
    pdf = make_pdf(rng, n, nulls=False)
    df = E(pdf, device)
    tm.assert_frame_equal(df.astype({"i": "float32", "i32": np.int64, "b": "int8"}).to_pandas(),
                          pdf.astype({"i": "float32", "i32": np.int64, "b": "int8"}))
    tm.assert_series_equal(df["i"].astype(str).to_pandas(), pdf["i"].astype(str))
    with pytest.raises(KeyError):
        df.astype({"zz": int})
    dn = em.DataFrame({"a": [1.0, None]})
    with pytest.raises(ValueError):
        dn.astype(int)


@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize("na_position", ["last", "first"])
def test_sort_values(device, rng, n, na_position):
    pdf = make_pdf(rng, n)
    df = E(pdf, device)
    for by, asc in [("f", True), ("f", False), (["k1", "i"], [True, False]),
                    (["s", "f"], [False, True]), (["k2", "k1", "f32"], True), ("b", False)]:
        got = df.sort_values(by, ascending=asc, na_position=na_position).to_pandas()
        exp = pdf.sort_values(by, ascending=asc, na_position=na_position, kind="stable")
        tm.assert_frame_equal(got, exp)
    tm.assert_frame_equal(df.sort_values("i", ignore_index=True).to_pandas(),
                          pdf.sort_values("i", ignore_index=True, kind="stable"))
    with pytest.raises(KeyError):
        df.sort_values("nope")


@pytest.mark.parametrize("n", SIZES)
def test_duplicates_value_counts(device, rng, n):
    pdf = make_pdf(rng, n)
    df = E(pdf, device)
    for subset in (["k1"], ["k1", "k2"], ["s"], None):
        for keep in ("first", "last", False):
            tm.assert_frame_equal(df.drop_duplicates(subset, keep=keep).to_pandas(),
                                  pdf.drop_duplicates(subset, keep=keep))
    for c in ("k1", "s", "b", "f"):
        tm.assert_series_equal(df[c].value_counts().to_pandas(), pdf[c].value_counts())
        tm.assert_series_equal(df[c].value_counts(dropna=False).to_pandas(),
                               pdf[c].value_counts(dropna=False))
    tm.assert_series_equal(df["k1"].value_counts(normalize=True).to_pandas(),
                           pdf["k1"].value_counts(normalize=True))
    assert df["k1"].nunique() == pdf["k1"].nunique()


@pytest.mark.parametrize("n", SIZES)
def test_concat(device, rng, n):
    a, b = make_pdf(rng, n), make_pdf(rng, 3)
    ea, eb = E(a, device), E(b, device)
    tm.assert_frame_equal(em.concat([ea, eb]).to_pandas(), pd.concat([a, b]))
    tm.assert_frame_equal(em.concat([ea, eb], ignore_index=True).to_pandas(),
                          pd.concat([a, b], ignore_index=True))
    tm.assert_frame_equal(em.concat([ea[["i", "s"]], eb[["i", "f"]]]).to_pandas(),
                          pd.concat([a[["i", "s"]], b[["i", "f"]]]))
    tm.assert_frame_equal(em.concat([ea[["i"]], ea[["s", "f"]]], axis=1).to_pandas(),
                          pd.concat([a[["i"]], a[["s", "f"]]], axis=1))
    with pytest.raises(TypeError):
        em.concat([ea, 3])


def test_index_ops(device, rng):
    pdf = make_pdf(rng, 20, nulls=False)
    df = E(pdf, device)
    tm.assert_frame_equal(df.set_index("k1").to_pandas(), pdf.set_index("k1"))
    tm.assert_frame_equal(df.set_index("s").reset_index().to_pandas(),
                          pdf.set_index("s").reset_index())
    tm.assert_frame_equal(df[df["i"] > 0].reset_index(drop=True).to_pandas(),
                          pdf[pdf["i"] > 0].reset_index(drop=True))
    tm.assert_frame_equal(df[df["i"] > 0].reset_index().to_pandas(),
                          pdf[pdf["i"] > 0].reset_index())
    s = df.set_index("s")
    tm.assert_frame_equal(s.loc[["fig"]].to_pandas(), pdf.set_index("s").loc[["fig"]])
    with pytest.raises(KeyError):
        df.set_index("nope")


def test_rename_drop_copy(device, rng):
    pdf = make_pdf(rng, 10)
    df = E(pdf, device)
    tm.assert_frame_equal(df.rename(columns={"i": "I", "s": "S"}).to_pandas(),
                          pdf.rename(columns={"i": "I", "s": "S"}))
    tm.assert_frame_equal(df.drop(columns=["i", "s"]).to_pandas(),
                          pdf.drop(columns=["i", "s"]))
    tm.assert_frame_equal(df.drop([1, 3]).to_pandas(), pdf.drop([1, 3]))
    with pytest.raises(KeyError):
        df.drop(columns=["nope"])
    c = df.copy()
    c["new"] = 1
    assert "new" not in df.columns and "new" in c.columns
    assert list(df) == list(pdf)
    np.testing.assert_array_equal(df[["i", "i32"]].to_numpy(), pdf[["i", "i32"]].to_numpy())


@pytest.mark.parametrize("n", [1, 7, 200])
def test_describe_and_reductions(device, rng, n):
    pdf = make_pdf(rng, n)
    df = E(pdf, device)
    tm.assert_frame_equal(df.describe().to_pandas(), pdf.describe())
    for c in ("i", "f", "f32"):
        for how in ("sum", "mean", "min", "max", "std", "var", "count"):
            got, exp = getattr(df[c], how)(), getattr(pdf[c], how)()
            if np.isnan(exp):
                assert np.isnan(got)
            else:
                assert got == pytest.approx(exp, rel=1e-5), (c, how)
    with pytest.raises(TypeError):
        df["s"].mean()


def test_repr(device):
    df = em.DataFrame({"a": [1, 2, 3], "s": ["x", None, "zz"], "f": [1.5, np.nan, 2.0]})
    text = repr(df)
    assert text.splitlines()[0].split() == ["a", "s", "f"]
    assert "NaN" in text and "None" in text and "zz" in text
    big = em.DataFrame({"a": np.arange(1000)})
    assert "[1000 rows x 1 columns]" in repr(big) and "..." in repr(big)
    assert "Name: a" in repr(df["a"]) and "dtype: int64" in repr(df["a"])
    assert "Empty DataFrame" in repr(em.DataFrame({"a": []}))


ALIGN_CASES = [
    ([3, 1, 2], [2, 5, 3]),          # partial overlap, unsorted
    ([0, 1, 2], [2, 0]),             # a subset, another order
    ([1, 1, 2], [2, 1]),             # repeated labels pair every row with every row
    ([3, 1, 2], [2, 1, 3]),          # the same labels, another order
    ([3, 1, 2], []),                 # one side empty
    (["c", "a", "b"], ["b", "x", "c"]),
    ([10, 20, 30, 40], [10, 20, 30, 40]),  # equal labels: by position
]


@pytest.mark.parametrize("la,lb", ALIGN_CASES)
@pytest.mark.parametrize("op", ["add", "sub", "mul", "truediv", "rsub"])
def test_series_align_on_labels(device, rng, la, lb, op):
    """Series arithmetic aligns on the labels (sorted union; a label on one
    side only gives NaN), as pandas does."""
    a = pd.Series(rng.integers(1, 9, len(la)), index=pd.Index(la, name="key"), name="v")
    b = pd.Series(rng.normal(size=len(lb)).round(2), index=pd.Index(lb, name="key"),
                  name="v", dtype=np.float64)
    ea, eb = em.Series(a, device=device), em.Series(b, device=device)
    for x, y, ex, ey in [(a, b, ea, eb), (b, a, eb, ea)]:
        got = getattr(ex, f"__{op}__")(ey).to_pandas()
        exp = getattr(ex.to_pandas(), f"__{op}__")(ey.to_pandas())
        tm.assert_series_equal(got, exp)
        tm.assert_series_equal(got, getattr(x, f"__{op}__")(y))


def test_series_align_details(device, rng):
    a = pd.Series([1.0, 2.0, 3.0], index=[5, 6, 7])
    b = pd.Series([1.0, 2.0, 3.0])  # a RangeIndex
    ea, eb = em.Series(a, device=device), em.Series(b, device=device)
    tm.assert_series_equal((ea + eb).to_pandas(), a + b)
    # a filtered Series against its source: labels, not positions
    pdf = make_pdf(rng, 60)
    df = E(pdf, device)
    m = df["f"] > 0
    tm.assert_series_equal((df["i"][m] + df["i"]).to_pandas(),
                           pdf["i"][pdf["f"] > 0] + pdf["i"])
    s = df.sort_values("f")["f"]
    tm.assert_series_equal((s - df["f"]).to_pandas(),
                           pdf.sort_values("f", kind="stable")["f"] - pdf["f"])
    # index names: kept when equal, dropped otherwise (pandas)
    x = em.Series(pd.Series([1, 2], index=pd.Index([1, 2], name="p")), device=device)
    y = em.Series(pd.Series([1, 2], index=pd.Index([2, 3], name="q")), device=device)
    assert (x + y).to_pandas().index.name is None
    with pytest.raises(ValueError, match="identically-labeled"):
        x == y
    with pytest.raises(ValueError, match="identically-labeled"):
        pd.Series([1, 2], index=[1, 2]) == pd.Series([1, 2], index=[2, 3])  # the oracle
    g = df.groupby(["k1", "k2"])["f"].sum()
    with pytest.raises(NotImplementedError, match="MultiIndex"):
        g + df["f"]
