"""The "ember" Dask DataFrame backend (ember.frame.dask) against pandas:
partitions of Ember frames from dd.read_csv / read_parquet / from_dict /
to_backend, elementwise work through Dask's own expressions, and group-by
aggregations and merges across partitions on a LocalCluster."""
import numpy as np
import pytest

pd = pytest.importorskip("pandas")
pytest.importorskip("pyarrow")
dask = pytest.importorskip("dask")
dd = pytest.importorskip("dask.dataframe")
distributed = pytest.importorskip("distributed")

import ember as em  # noqa: E402
from ember.frame import DataFrame, concat  # noqa: E402
from ember.frame import dask as edask  # noqa: E402


@pytest.fixture(scope="module")
def client():
    # threads, not processes: fast on 2 cores, and the same scheduler code paths
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=False,
                                  dashboard_address=None) as c, distributed.Client(c) as cl:
        yield cl


@pytest.fixture(scope="module")
def table(tmp_path_factory):
    rng = np.random.default_rng(7)
    n = 600
    pdf = pd.DataFrame({
        "k": rng.integers(0, 7, n),
        "j": rng.integers(0, 3, n).astype(np.int32),
        "v": rng.normal(size=n),
        "w": np.where(rng.random(n) < 0.1, np.nan, rng.random(n)),
        "s": rng.choice(["alpha", "beta", "gämma", "", "δ"], n),
    })
    d = tmp_path_factory.mktemp("dask")
    path = str(d / "t.csv")
    pdf.to_csv(path, index=False)
    # the oracle is what pandas reads back ("" becomes NaN, int32 becomes int64)
    return pd.read_csv(path), path, d


def _ember_backend():
    return dask.config.set({"dataframe.backend": "ember"})


def test_read_csv_gives_ember_partitions(client, table):
    _, path, _ = table
    with _ember_backend():
        ddf = dd.read_csv(path, blocksize=4000)
    assert ddf.npartitions > 2
    assert isinstance(ddf._meta, DataFrame)
    part = ddf.partitions[1].compute()
    assert isinstance(part, DataFrame)
    got = ddf.compute()
    assert isinstance(got, DataFrame)
    pd.testing.assert_frame_equal(got.to_pandas().reset_index(drop=True), pd.read_csv(path))


def test_elementwise_through_dask_expressions(client, table):
    pdf, path, _ = table
    with _ember_backend():
        ddf = dd.read_csv(path, blocksize=4000)
    f = ddf[ddf.v > 0]
    got = f.assign(x=f.v * 2 + 1).compute().to_pandas()
    exp = pdf[pdf.v > 0].assign(x=pdf[pdf.v > 0].v * 2 + 1)
    pd.testing.assert_frame_equal(got.reset_index(drop=True), exp.reset_index(drop=True))


@pytest.mark.parametrize("by", ["k", ["k", "j"], "s", ["s", "k"]])
def test_groupby_sum_mean_across_partitions(client, table, by):
    pdf, path, _ = table
    with _ember_backend():
        ddf = dd.read_csv(path, blocksize=4000)
    spec = {"v": ["sum", "mean", "count", "min", "max"], "w": ["sum", "mean", "count"]}
    res = edask.groupby_agg(ddf, by, spec, split_every=2)
    got = res.compute()
    assert isinstance(got, DataFrame)
    exp = pdf.groupby(by).agg(spec)
    pd.testing.assert_frame_equal(got.to_pandas(), exp, check_dtype=False, rtol=1e-12)


def test_groupby_single_function_names_columns_plainly(client, table):
    pdf, path, _ = table
    with _ember_backend():
        ddf = dd.read_csv(path, blocksize=4000)
    got = edask.groupby_agg(ddf, "k", {"v": "sum", "w": "mean"}).compute().to_pandas()
    exp = pdf.groupby("k").agg({"v": "sum", "w": "mean"})
    pd.testing.assert_frame_equal(got, exp, check_dtype=False, rtol=1e-12)
    with pytest.raises(ValueError, match="supports"):
        edask.groupby_agg(ddf, "k", {"v": "median"})


@pytest.mark.parametrize("how", ["inner", "left", "outer", "right"])
def test_merge_across_partitions(client, table, how):
    pdf, path, _ = table
    dim = pd.DataFrame({"k": np.arange(0, 9), "name": [f"n{i}" for i in range(9)],
                        "weight": np.linspace(0, 1, 9)})
    facts = pdf[["k", "s", "v"]]
    with _ember_backend():
        left = dd.read_csv(path, blocksize=4000)[["k", "s", "v"]]
        right = dd.from_pandas(dim, npartitions=3).to_backend("ember")
    assert isinstance(right._meta, DataFrame)
    got = edask.merge(left, right, on="k", how=how).compute().to_pandas()
    exp = facts.merge(dim, on="k", how=how)
    key = ["k", "s", "v"]
    pd.testing.assert_frame_equal(
        got.sort_values(key).reset_index(drop=True),
        exp.sort_values(key).reset_index(drop=True), check_dtype=False)


def test_merge_broadcasts_a_one_partition_side_and_string_keys(client, table):
    pdf, path, _ = table
    dim = pd.DataFrame({"s": ["alpha", "gämma", "δ", "zeta"], "code": [1, 2, 3, 4]})
    with _ember_backend():
        left = dd.read_csv(path, blocksize=4000)
    for parts in (1, 2):
        r = edask.from_dask(dd.from_pandas(dim, npartitions=parts))
        got = edask.merge(left, r, on="s").compute().to_pandas()
        exp = pdf.merge(dim, on="s")
        cols = list(exp.columns)
        pd.testing.assert_frame_equal(
            got[cols].sort_values(cols).reset_index(drop=True),
            exp.sort_values(cols).reset_index(drop=True), check_dtype=False)


def test_from_dict_parquet_and_round_trips(client, table):
    pdf, _, d = table
    with _ember_backend():
        ddf = dd.from_dict({"a": np.arange(10), "b": np.arange(10) * 0.5}, npartitions=3)
    assert isinstance(ddf._meta, DataFrame)
    assert ddf.npartitions == 3
    assert ddf.compute().to_pandas()["b"].sum() == 22.5
    pq_path = str(d / "pq")
    dd.from_pandas(pdf, npartitions=3).to_parquet(pq_path)
    with _ember_backend():
        got = dd.read_parquet(pq_path)
    assert isinstance(got._meta, DataFrame)
    pd.testing.assert_frame_equal(got.compute().to_pandas().reset_index(drop=True), pdf,
                                  check_dtype=False)
    edf = em.frame.from_pandas(pdf)
    back = edask.to_dask(edf, npartitions=4)
    assert back.npartitions == 4
    pd.testing.assert_frame_equal(back.compute().to_pandas(), pdf)


def test_backend_is_registered_by_name():
    from dask.dataframe.backends import dataframe_creation_dispatch
    edask.register()
    backend = dataframe_creation_dispatch.dispatch("ember")
    assert type(backend).__name__ == "EmberDataFrameBackend"


def test_on_ember_cluster_worker_processes(table):
    """em.dask.cluster(): frames travel between processes (pickled Columns)."""
    pdf, path, _ = table
    with em.dask.cluster(n_workers=1, dashboard_address=None) as c, \
            distributed.Client(c):
        with _ember_backend():
            ddf = dd.read_csv(path, blocksize=4000)
        got = edask.groupby_agg(ddf, "k", {"v": ["sum", "mean"]}).compute()
        dim = edask.from_dask(dd.from_pandas(pd.DataFrame({"k": [1, 2], "t": ["x", "y"]}),
                                             npartitions=2))
        joined = edask.merge(ddf, dim, on="k").compute()
    pd.testing.assert_frame_equal(got.to_pandas(), pdf.groupby("k").agg({"v": ["sum", "mean"]}),
                                  rtol=1e-12)
    assert len(joined) == int(pdf.k.isin([1, 2]).sum())


def test_row_hash_agrees_across_partitions_and_dtypes(device):
    """The merge buckets: equal keys must hash equal whatever the partition,
    the dtype (int32/int64/float) or the string's place in the buffer."""
    from ember.frame import _strings
    from ember.frame._column import Column
    ints = Column.from_numpy(np.array([5, -1, 0, 2**40], dtype=np.int64), device)
    i32 = Column.from_numpy(np.array([0, 5, -1], dtype=np.int32), device)
    flt = Column.from_numpy(np.array([-1.0, 5.0, 0.25, np.nan]), device)
    h = lambda c: em.asnumpy(edask._row_hash([c])).tolist()  # noqa: E731
    hi, h32, hf = h(ints), h(i32), h(flt)
    assert h32 == [hi[2], hi[0], hi[1]] and hf[:2] == [hi[1], hi[0]]
    assert len(set(hi)) == 4 and hf[2] not in hi
    s1 = _strings.from_values(["ab", "", None, "héllo", "ab", "ba"], device)
    s2 = _strings.from_values(["héllo", "x", "ab"], device)
    a, b = h(s1), h(s2)
    assert a[0] == a[4] == b[2] and a[3] == b[0] and a[0] != a[5]
    both = edask._row_hash([s1, Column.from_numpy(np.arange(6), device)])
    assert len(set(em.asnumpy(both).tolist())) == 6


# ---- Dask's own group-by and merge on Ember partitions (pandas' keywords in the core) ------

def _pd_sorted(x):
    x = x.to_pandas() if hasattr(x, "to_pandas") else x
    return x.sort_index()


@pytest.fixture(params=["sync", "client", "p2p"])
def scheduler(request):
    if request.param in ("client", "p2p"):
        # distributed's task shuffle, and its P2P shuffle (its default with a client:
        # Arrow shards; the frame gives it _constructor_sliced, .cat.codes and
        # merge(right_index=True) as pandas does)
        request.getfixturevalue("client")
        method = "tasks" if request.param == "client" else "p2p"
        with dask.config.set({"dataframe.shuffle.method": method}):
            yield request.param
    else:  # the disk (partd) shuffle, as the synchronous scheduler picks without a client
        with dask.config.set({"scheduler": "synchronous", "dataframe.shuffle.method": "disk"}):
            yield request.param


def _native(pdf, nparts):
    with dask.config.set({"dataframe.backend": "ember"}):
        ddf = dd.from_pandas(pdf, npartitions=nparts).to_backend("ember")
    assert isinstance(ddf._meta, DataFrame)
    return ddf


@pytest.mark.parametrize("how", ["sum", "mean", "count", "min", "max"])
def test_dask_native_groupby_reductions(table, scheduler, how):
    pdf = table[0]
    pdf = pdf[["k", "j", "v", "w"]]
    ddf = _native(pdf, 4)
    got = getattr(ddf.groupby("k").v, how)().compute()
    assert not isinstance(got, pd.Series)  # an Ember Series came back
    pd.testing.assert_series_equal(_pd_sorted(got), getattr(pdf.groupby("k").v, how)(),
                                   check_dtype=how != "count")
    got = getattr(ddf.groupby(["k", "j"])[["v", "w"]], how)().compute()
    want = getattr(pdf.groupby(["k", "j"])[["v", "w"]], how)()
    pd.testing.assert_frame_equal(_pd_sorted(got), want, check_dtype=how != "count")


def test_dask_native_groupby_agg(table, scheduler):
    pdf = table[0]
    ddf = _native(pdf[["k", "v", "w"]], 3)
    spec = {"v": ["sum", "mean", "max"], "w": ["count", "min"]}
    got = ddf.groupby("k").agg(spec).compute()
    want = pdf.groupby("k").agg(spec)
    pd.testing.assert_frame_equal(_pd_sorted(got), want, check_dtype=False)


@pytest.mark.parametrize("split_out", [2, 3])
def test_dask_native_groupby_split_out(table, scheduler, split_out):
    """groupby(split_out>1): Dask shuffles the partial aggregates into
    split_out partitions (each key in one), then puts the keys back as the
    index with set_index(append=True) on Ember frames."""
    pdf = table[0]
    ddf = _native(pdf[["k", "j", "v", "w", "s"]], 4)
    res = ddf.groupby("k").v.sum(split_out=split_out)
    assert res.npartitions == split_out
    parts = dask.compute(*[dask.delayed(lambda x: x.to_pandas())(p) for p in res.to_delayed()])
    keys = [set(p.index) for p in parts]
    assert all(not (a & b) for i, a in enumerate(keys) for b in keys[i + 1:])
    pd.testing.assert_series_equal(pd.concat(parts).sort_index(), pdf.groupby("k").v.sum())
    spec = {"v": ["sum", "mean"], "w": ["count", "max"]}
    for by in (["k", "j"], ["s", "k"]):
        got = ddf.groupby(by).agg(spec, split_out=split_out)
        assert got.npartitions == split_out
        pd.testing.assert_frame_equal(_pd_sorted(got.compute()), pdf.groupby(by).agg(spec),
                                      check_dtype=False, rtol=1e-12)


@pytest.mark.parametrize("how", ["inner", "left"])
def test_dask_native_merge(table, scheduler, how):
    pdf = table[0]
    pdf = pdf[["k", "v"]]
    right = pd.DataFrame({"k": np.arange(0, 10, 2), "z": np.arange(5) * 1.5})
    got = _native(pdf, 4).merge(_native(right, 2), on="k", how=how).compute()
    want = pdf.merge(right, on="k", how=how)
    key = ["k", "v"]
    got = got.to_pandas().sort_values(key).reset_index(drop=True)
    want = want.sort_values(key).reset_index(drop=True)
    pd.testing.assert_frame_equal(got, want)


def test_core_takes_pandas_keywords(device):
    pdf = pd.DataFrame({"k": [1, 2, 1, 3, 2], "x": [1.0, np.nan, 3.0, 4.0, 5.0],
                        "s": ["a", "b", "c", "d", "e"]})
    df = DataFrame.from_pandas(pdf, device)
    g = df.groupby("k", group_keys=True, observed=True, dropna=True)
    pd.testing.assert_frame_equal(g[["x"]].sum(numeric_only=True, min_count=0).to_pandas(),
                                  pdf.groupby("k")[["x"]].sum(numeric_only=True))
    pd.testing.assert_series_equal(g.x.sum(min_count=1).to_pandas(),
                                   pdf.groupby("k").x.sum(min_count=1))
    pd.testing.assert_frame_equal(g.mean(numeric_only=True).to_pandas(),
                                  pdf.groupby("k").mean(numeric_only=True))
    s = df.set_index("k")["x"]
    ps = pdf.set_index("k")["x"]
    pd.testing.assert_series_equal(s.groupby(level=0).sum().to_pandas(),
                                   ps.groupby(level=0).sum())
    pd.testing.assert_series_equal(s.groupby(level="k", sort=False).max().to_pandas(),
                                   ps.groupby(level="k", sort=False).max())
    pd.testing.assert_frame_equal(df.set_index("k").groupby(level=0)[["x"]].sum().to_pandas(),
                                  pdf.set_index("k").groupby(level=0)[["x"]].sum())
    pd.testing.assert_frame_equal(df.set_index("k", append=True).to_pandas(),
                                  pdf.set_index("k", append=True))
    pd.testing.assert_frame_equal(df.set_index("k").set_index(["s"], append=True).to_pandas(),
                                  pdf.set_index("k").set_index(["s"], append=True))
    assert sorted(g.groups) == sorted(pdf.groupby("k").groups)
    pd.testing.assert_frame_equal(g.get_group(2).to_pandas(),
                                  pdf.groupby("k").get_group(2))
    assert df.index.is_monotonic_increasing
    assert df.set_index("k").index.is_monotonic_increasing is False
    assert df.sort_values("k").set_index("k").index.is_monotonic_increasing
    assert df.astype({"s": "int64"}, errors="ignore").to_pandas().equals(pdf)
    with pytest.raises(ValueError):
        df.astype("float64", errors="nope")
    pd.testing.assert_frame_equal((df[["k", "x"]] / df[["k", "x"]] * 2).to_pandas(),
                                  pdf[["k", "x"]] / pdf[["k", "x"]] * 2)
    pd.testing.assert_series_equal(concat([df.x, df.x]).to_pandas(), pd.concat([pdf.x, pdf.x]))
    for kw in ({"left_index": True}, {"right_index": True}, {"indicator": True}):
        with pytest.raises(NotImplementedError):
            df.merge(df, on="k", **kw)
    with pytest.raises(NotImplementedError):
        g.first(skipna=False)


def test_dask_p2p_shuffle(table, client):
    """ddf.shuffle on a column through distributed's P2P shuffle keeps every row
    (strings included) and groups each key in one partition."""
    pdf = table[0][["k", "v", "s"]]
    with dask.config.set({"dataframe.shuffle.method": "p2p"}):
        ddf = _native(pdf, 4).shuffle("k")
        parts = dask.compute(*[dask.delayed(lambda x: x.to_pandas())(p)
                               for p in ddf.to_delayed()])
    keys = [set(p["k"]) for p in parts]
    assert all(not (a & b) for i, a in enumerate(keys) for b in keys[i + 1:])
    got = pd.concat(parts).sort_values(["k", "v"]).reset_index(drop=True)
    pd.testing.assert_frame_equal(got, pdf.sort_values(["k", "v"]).reset_index(drop=True))


_EVERY = ["sum", "mean", "count", "size", "min", "max", "std", "var", "first", "last",
          "nunique"]


def _hard_table(n=600):
    """Values far from 0 (var must not cancel), a key whose values are all null,
    a group of one row (var NaN), strings with nulls."""
    rng = np.random.default_rng(11)
    pdf = pd.DataFrame({"k": rng.integers(0, 7, n), "j": rng.integers(0, 3, n),
                        "v": rng.normal(size=n) + 1e6,
                        "w": np.where(rng.random(n) < 0.3, np.nan, rng.random(n)),
                        "s": pd.Series(rng.choice(["a", "bb", "", "δ"], n), dtype="str")})
    pdf.loc[pdf.k == 3, "w"] = np.nan
    pdf.loc[5, "k"] = 99
    pdf.loc[rng.random(n) < 0.1, "s"] = None
    return pdf


@pytest.mark.parametrize("where", ["sync", "client"])
@pytest.mark.parametrize("by", ["k", ["k", "j"]])
def test_groupby_agg_every_aggregation(request, where, by):
    """ember.frame.dask.groupby_agg: each of the issue's aggregations, alone and
    all at once, over 5 partitions combined two at a time, against pandas."""
    pdf = _hard_table()
    ddf = _native(pdf, 5)
    ctx = dask.config.set({"scheduler": "synchronous"})
    if where == "client":
        request.getfixturevalue("client")
        ctx = dask.config.set({})
    with ctx:
        for f in _EVERY:
            spec = {"v": [f], "w": f if f != "size" else ["size"]}
            got = edask.groupby_agg(ddf, by, spec, split_every=2).compute()
            assert isinstance(got, DataFrame)
            pd.testing.assert_frame_equal(got.to_pandas(), pdf.groupby(by).agg(spec),
                                          check_dtype=False, rtol=1e-9)
        spec = {"v": _EVERY, "w": _EVERY,
                "s": ["count", "size", "min", "max", "first", "last", "nunique"]}
        got = edask.groupby_agg(ddf, by, spec, split_every=3).compute().to_pandas()
        pd.testing.assert_frame_equal(got, pdf.groupby(by).agg(spec), check_dtype=False,
                                      rtol=1e-9)
        got = edask.groupby_agg(ddf, by, {"s": "nunique"}).compute().to_pandas()
        pd.testing.assert_frame_equal(got, pdf.groupby(by).agg({"s": "nunique"}),
                                      check_dtype=False)


def test_dask_native_groupby_var_std(scheduler):
    """Dask's own groupby var/std (sum, count and sum of squares per chunk) on
    Ember partitions: agg({...: "var"/"std"}) and the SeriesGroupBy methods."""
    pdf = _hard_table()
    pdf["v"] -= 1e6  # Dask's own formula is sum(x^2) - sum(x)^2 / n: keep it honest
    ddf = _native(pdf[["k", "j", "v", "w"]], 4)
    spec = {"v": ["var", "std", "sum"], "w": ["std", "count", "first", "last", "size"]}
    got = ddf.groupby("k").agg(spec).compute()
    pd.testing.assert_frame_equal(_pd_sorted(got), pdf.groupby("k").agg(spec),
                                  check_dtype=False, rtol=1e-9)
    for how in ("var", "std"):
        got = getattr(ddf.groupby(["k", "j"]).v, how)().compute()
        pd.testing.assert_series_equal(_pd_sorted(got),
                                       getattr(pdf.groupby(["k", "j"]).v, how)(),
                                       check_dtype=False, rtol=1e-9)


def test_core_pieces_dask_uses(device):
    """The frame API that Dask's var/std chunks and finalizers call: a frame from
    Series whose labels are the same in another order (aligned, as pandas),
    s[mask] = scalar, df[mask_frame] = scalar, df[[cols]] = frame, frame
    comparisons, np.sqrt of a Series and a frame."""
    pdf = pd.DataFrame({"k": [3, 1, 2, 1, 3], "x": [1.0, 4.0, 9.0, 16.0, np.nan],
                        "n": [1, -2, 3, -4, 5]})
    df = DataFrame.from_pandas(pdf, device)
    a = df.groupby("k", sort=False).x.sum()
    b = df.groupby("k").x.count()
    pa, pb = pdf.groupby("k", sort=False).x.sum(), pdf.groupby("k").x.count()
    pd.testing.assert_frame_equal(DataFrame({"a": a, "b": b}).to_pandas(),
                                  pd.DataFrame({"a": pa, "b": pb}))
    s, ps = df["n"], pdf["n"].copy()
    s[s < 0] = 0
    ps[ps < 0] = 0
    pd.testing.assert_series_equal(s.to_pandas(), ps)
    s[s == 0] = np.nan
    ps = ps.astype(np.float64)
    ps[ps == 0] = np.nan
    pd.testing.assert_series_equal(s.to_pandas(), ps)
    pd.testing.assert_series_equal(df["n"].to_pandas(), pdf["n"])  # the frame is unchanged
    pd.testing.assert_series_equal(np.sqrt(df["x"]).to_pandas(), np.sqrt(pdf["x"]))
    f, pf = df[["x", "n"]], pdf[["x", "n"]].copy()
    pd.testing.assert_frame_equal((f < 3).to_pandas(), pf < 3)
    pd.testing.assert_frame_equal(np.sqrt(f.astype("float64")).to_pandas(),
                                  np.sqrt(pf.astype("float64")))
    f[f > 3] = 0
    pf[pf > 3] = 0
    pd.testing.assert_frame_equal(f.to_pandas(), pf, check_dtype=False)
    f[["x", "n"]] = f[["x", "n"]] * 2
    pf[["x", "n"]] = pf[["x", "n"]] * 2
    pd.testing.assert_frame_equal(f.to_pandas(), pf, check_dtype=False)
    with pytest.raises(TypeError, match="boolean mask"):
        s[0] = 1.0
    with pytest.raises(NotImplementedError, match="different labels"):
        DataFrame({"a": a, "b": df["x"]})
