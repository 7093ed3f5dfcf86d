"""Ember frames as a Dask DataFrame backend.

``dask.config.set({"dataframe.backend": "ember"})`` makes ``dd.read_csv``,
``dd.read_parquet``, ``dd.from_dict`` (and ``ddf.to_backend("ember")``) give
collections whose partitions are ``ember.frame.DataFrame`` objects, each on
the worker's current device.  The backend is advertised through the
``dask.dataframe.backends`` entry point (``pyproject.toml``) and registered
the first time this module is imported (``ember.frame`` imports it when
``dask.dataframe`` is already loaded; the entry point imports it otherwise).

Registered with Dask's dispatch tables (as dask_cudf does for cuDF):
``get_collection_type``, ``make_meta``, ``meta_nonempty``, ``concat``,
``tolist``, ``hash_object_dispatch``, ``group_split_dispatch``, the pyarrow
table and schema conversions, ``sizeof`` and ``tokenize``.
"""
import numpy as np

__all__ = ["EmberDataFrameBackend", "register", "to_dask", "from_dask", "groupby_agg", "merge"]


def _frame():
    from . import _frame as f
    return f


def _pd():
    import pandas as pd
    return pd


# ---- meta -----------------------------------------------------------------------------------

def _make_meta(x, index=None):
    return x.head(0)


def _meta_nonempty(x):
    """A two-row frame of the same columns and dtypes (Dask runs operations
    on it to learn their result types)."""
    from dask.dataframe.dispatch import meta_nonempty
    from ._frame import DataFrame
    from ._series import Series
    if isinstance(x, Series):
        pdx = meta_nonempty(x.head(0).to_pandas())
        return Series.from_pandas(pdx, x.device)
    pdx = meta_nonempty(x.head(0).to_pandas())
    return DataFrame.from_pandas(pdx, x.device)


def _concat(dfs, axis=0, join="outer", uniform=False, filter_warning=True,
            ignore_index=False, **kwargs):
    from ._frame import concat
    return concat(list(dfs), axis=axis, ignore_index=ignore_index, join=join)


def _tolist(obj):
    return obj.to_numpy().tolist()


def _hash_object(obj, index=True, encoding="utf8", hash_key=None, categorize=True):
    """Row hashes (uint64, as pandas' hash_pandas_object) of a frame or series.
    The values go through pandas on the host: the hashes decide only which
    partition a row lands in."""
    pd = _pd()
    h = pd.util.hash_pandas_object(obj.to_pandas(), index=index, encoding=encoding,
                                   hash_key=hash_key, categorize=categorize)
    from ._series import Series
    return Series.from_pandas(h, obj.device)


def _group_split(df, c, k, ignore_index=False):
    """Split df's rows into k frames by the partition numbers c (0..k-1)."""
    import ember as em
    from ._series import Series
    codes = c._col.data if isinstance(c, Series) else em.asarray(np.asarray(c),
                                                                  device=df.device)
    codes = codes.astype(em.int64)
    order = em.argsort(codes, stable=True)
    counts = em.bincount(codes, minlength=k) if len(df) else em.zeros(k, dtype=em.int64)
    bounds = np.concatenate([[0], np.cumsum(em.asnumpy(counts))]).astype(np.int64)
    sorted_df = df.iloc[order]
    if ignore_index:
        sorted_df = sorted_df.reset_index(drop=True)
    return {i: sorted_df.iloc[int(bounds[i]):int(bounds[i + 1])] for i in range(k)}


def _partd_encode(_):
    """Dask's disk shuffle (partd) stores pickled Ember frames, joined by concat."""
    import functools
    import pickle
    import partd
    from ._frame import DataFrame, concat

    def join(dfs):  # no pieces: an empty frame (Dask then uses the meta)
        return concat(list(dfs)) if dfs else DataFrame()
    return functools.partial(partd.Encode, pickle.dumps, pickle.loads, join)


def _sizeof(df):
    total = 0
    cols = list(df._cols.values()) if hasattr(df, "_cols") else [df._col]
    for c in cols:
        for a in (c.data, c.offsets, c.validity):
            if a is not None:
                total += int(a.nbytes)
    return total + 64


def _tokenize(df):
    from dask.base import tokenize
    return ("ember.frame", type(df).__name__, tokenize(df.to_pandas()))


# ---- the backend ------------------------------------------------------------------------------

def _backend_base():
    try:
        from dask.dataframe.backends import DataFrameBackendEntrypoint
        return DataFrameBackendEntrypoint
    except ImportError:
        return object


def _to_ember(pdf):
    from ._frame import DataFrame
    from ._series import Series
    pd = _pd()
    if isinstance(pdf, pd.Series):
        return Series.from_pandas(pdf)
    return DataFrame.from_pandas(pdf)


def _ember_parts(ddf):
    """ddf (pandas partitions) with each partition moved into an Ember frame."""
    return ddf.map_partitions(_to_ember, meta=_to_ember(ddf._meta), transform_divisions=False)


def _to_pandas(df):
    return df.to_pandas()


def _entrypoint_class():
    class EmberDataFrameBackend(_backend_base()):
        """Dask DataFrame backend ``"ember"``: partitions are Ember frames."""

        @classmethod
        def to_backend_dispatch(cls):
            return _to_ember

        @classmethod
        def to_backend(cls, data, **kwargs):
            if _is_ember(data._meta):
                return data
            return _ember_parts(data)

        @staticmethod
        def from_dict(data, npartitions, orient="columns", dtype=None, columns=None,
                      constructor=None):
            import dask.dataframe as dd
            pdf = _pd().DataFrame.from_dict(data, orient=orient, dtype=dtype, columns=columns)
            return _ember_parts(dd.from_pandas(pdf, npartitions=npartitions))

        @staticmethod
        def read_csv(urlpath, **kwargs):
            import dask
            import dask.dataframe as dd
            with dask.config.set({"dataframe.backend": "pandas"}):
                ddf = dd.read_csv(urlpath, **kwargs)
            return _ember_parts(ddf)

        @staticmethod
        def read_parquet(path, **kwargs):
            import dask
            import dask.dataframe as dd
            with dask.config.set({"dataframe.backend": "pandas"}):
                ddf = dd.read_parquet(path, **kwargs)
            return _ember_parts(ddf)

        @staticmethod
        def read_json(url_path, **kwargs):
            import dask
            import dask.dataframe as dd
            with dask.config.set({"dataframe.backend": "pandas"}):
                return _ember_parts(dd.read_json(url_path, **kwargs))

    return EmberDataFrameBackend


def _is_ember(obj):
    from ._frame import DataFrame
    from ._series import Series
    return isinstance(obj, (DataFrame, Series))


def to_dask(df, npartitions=1):
    """A Dask DataFrame of Ember partitions from an Ember DataFrame."""
    import dask.dataframe as dd
    register()
    return _ember_parts(dd.from_pandas(df.to_pandas(), npartitions=npartitions))


def from_dask(ddf):
    """A Dask DataFrame with Ember partitions from a pandas-backed one."""
    register()
    return _ember_parts(ddf)


# ---- group-by and merge across partitions ------------------------------------------------
#
# Dask's own ddf.groupby(...) and ddf.merge(...) call pandas' full keyword set
# on every partition (groupby(level=..., observed=..., group_keys=...),
# sum(numeric_only=..., min_count=...), merge(left_index=..., indicator=...)),
# which the Ember frame does not take yet.  These two functions give the same
# results with the frame's own device group-by and merge: a per-partition
# partial aggregation, a tree reduction of the partials (Dask's reduction),
# and a hash shuffle of both sides before a per-partition merge.

_PARTIAL = {"sum": ("sum",), "count": ("count",), "min": ("min",), "max": ("max",),
            "mean": ("sum", "count"), "size": ("size",), "first": ("first",),
            "last": ("last",), "var": ("count", "sum", "m2"), "std": ("count", "sum", "m2"),
            "nunique": ()}
_COMBINE = {"sum": "sum", "count": "sum", "min": "min", "max": "max", "size": "sum",
            "first": "first", "last": "last", "m2": "sum"}
# var/std: each partition gives a group's count n, sum s and m2, its sum of squared
# deviations from its own mean; partials merge by Chan et al.'s pairwise rule,
# m2 = sum(m2_i) + sum(n_i (s_i / n_i - S / N)^2), which does not cancel the way
# sum(x^2) - S^2 / N does.  nunique: a reduction of its own over the distinct
# (keys, value) pairs (nulls kept, so that a group of nulls still shows, with 0).


def _spec(agg):
    """{column: [funcs]} from a str / list / dict aggregation spec."""
    out = {}
    for col, fs in agg.items():
        # a str keeps plain column names; any list makes (column, func) pairs (pandas)
        fs = (fs,) if isinstance(fs, str) else list(fs)
        for f in fs:
            if f not in _PARTIAL:
                raise ValueError(f"groupby_agg across partitions supports "
                                 f"{sorted(_PARTIAL)}, not {f!r}")
        out[col] = fs
    return out


def _partials(spec):
    return sorted({(c, p) for c, fs in spec.items() for f in fs for p in _PARTIAL[f]})


def _pname(c, p):
    return f"__{c}__{p}"


def _gb_chunk(df, by, parts):
    """One partition's partial aggregates, keys as columns."""
    import ember as em
    from ._column import Column
    g = df.groupby(by, sort=False)
    cols = {}
    for c, p in parts:
        cols[_pname(c, p)] = (c, "var") if p == "m2" else (c, p)
    out = g.agg(**cols).reset_index()
    for c, p in parts:
        if p == "m2":  # var (ddof=1) * (n - 1); 0 for groups of fewer than 2 values
            n = out._cols[_pname(c, "count")].data
            v = out._cols[_pname(c, "m2")].data.astype(em.float64)
            m2 = em.where(n > 1, em.where(n > 1, v, 0.0) * (n - 1).astype(em.float64), 0.0)
            out._cols[_pname(c, "m2")] = Column("num", np.float64, m2)
    return out


def _gb_combine(df, by, parts):
    """Partials of partials (sum of sums and counts, min of mins, m2 by Chan's
    rule ...)."""
    import ember as em
    from ._column import Column
    from ._frame import concat
    if isinstance(df, (list, tuple)):
        df = concat(list(df), ignore_index=True)
    g = df.groupby(by, sort=False)
    for c, p in parts:
        if p != "m2":
            continue
        n = df._cols[_pname(c, "count")].data.astype(em.float64)
        s = df._cols[_pname(c, "sum")].data.astype(em.float64)
        tn = g[_pname(c, "count")].transform("sum")._col.data.astype(em.float64)
        ts = g[_pname(c, "sum")].transform("sum")._col.data.astype(em.float64)
        some = n > 0
        dev = em.where(some, s / em.where(some, n, 1.0), 0.0) - \
            em.where(tn > 0, ts / em.where(tn > 0, tn, 1.0), 0.0)
        m2 = df._cols[_pname(c, "m2")].data + em.where(some, n * dev * dev, 0.0)
        df = df.assign(**{_pname(c, "m2"): m2})
        g = df.groupby(by, sort=False)
    named = {_pname(c, p): (_pname(c, p), _COMBINE[p]) for c, p in parts}
    return g.agg(**named).reset_index()


def _gb_final(df, by, spec, parts, sort):
    """The keys-indexed result of the combined partials (nunique columns left
    out: groupby_agg joins them from their own reduction)."""
    import ember as em
    from ._column import Column
    df = _gb_combine(df, by, parts)
    out = df.set_index(by)
    cols = {}
    nested = any(isinstance(fs, list) for fs in spec.values())
    for c, fs in spec.items():
        for f in fs:
            name = (c, f) if nested else c
            if f == "mean":
                s = out._cols[_pname(c, "sum")]
                n = out._cols[_pname(c, "count")]
                data = s.data.astype(em.float64) / n.data.astype(em.float64)
                cols[name] = Column("num", np.float64, data, validity=n.data > 0)
            elif f in ("var", "std"):
                n = out._cols[_pname(c, "count")].data
                m2 = out._cols[_pname(c, "m2")].data
                ok = n > 1  # pandas: NaN for a group of fewer than ddof + 1 values
                v = m2 / em.where(ok, n - 1, 1).astype(em.float64)
                v = em.where(v < 0, 0.0, v)
                data = em.sqrt(v) if f == "std" else v
                cols[name] = Column("num", np.float64, em.where(ok, data, np.nan))
            elif f != "nunique":
                cols[name] = out._cols[_pname(c, _PARTIAL[f][0])]
    from ._frame import DataFrame
    res = DataFrame._new(cols, out.index, out.device)
    return res.sort_index() if sort else res


def _nu_chunk(df, by, col):
    """One partition's distinct (keys, value) pairs of col (null values kept)."""
    return df[by + [col]].drop_duplicates(ignore_index=True)


def _nu_combine(df, by, col):
    from ._frame import concat
    if isinstance(df, (list, tuple)):
        df = concat(list(df), ignore_index=True)
    return df.drop_duplicates(ignore_index=True)


def _nu_final(df, by, col):
    return _nu_combine(df, by, col).groupby(by, sort=True)[col].nunique()


def _gb_join(main, *nus, spec):
    """The final frame in spec's column order: the main aggregates and each
    nunique Series, matched by position (both sorted by the keys, over the
    same groups: null keys dropped in both, null values kept as pairs)."""
    from ._frame import DataFrame
    it = iter(nus)
    nested = any(isinstance(fs, list) for fs in spec.values())
    cols = {}
    for c, fs in spec.items():
        for f in fs:
            name = (c, f) if nested else c
            cols[name] = next(it)._col if f == "nunique" else main._cols[name]
    return DataFrame._new(cols, main.index, main.device)


def _reduce(ddf, chunk, combine, final, kw, split_every, fkw=None):
    """A Delayed tree reduction of ddf's partitions (chunk, then combine in
    groups of split_every, then final)."""
    import dask
    parts = [dask.delayed(chunk)(p, **kw) for p in ddf.to_delayed()]
    while len(parts) > split_every:
        parts = [dask.delayed(combine)(parts[i:i + split_every], **kw)
                 for i in range(0, len(parts), split_every)]
    return dask.delayed(final)(parts, **(fkw or kw))


def groupby_agg(ddf, by, agg, sort=True, split_every=8):
    """``ddf.groupby(by).agg(agg)`` across the partitions of a Dask DataFrame
    of Ember frames: sum, mean, count, size, min, max, std, var, first, last
    and nunique per column, as a one-partition Dask DataFrame (compute() gives
    an Ember frame whose index is the keys, as pandas'; sorted by them when
    there is a nunique)."""
    by = [by] if not isinstance(by, (list, tuple)) else list(by)
    ddf = ddf if _is_ember(ddf._meta) else _ember_parts(ddf)
    spec = _spec(agg)
    parts = _partials(spec) or [(by[0], "size")]  # nunique only: the groups still
    nu_cols = [c for c, fs in spec.items() for f in fs if f == "nunique"]
    m = _meta_nonempty(ddf._meta)
    main_meta = _gb_final(_gb_chunk(m, by, parts), by, spec, parts, sort).head(0)
    if not nu_cols:
        return ddf.reduction(_gb_chunk, aggregate=_gb_final, combine=_gb_combine,
                             chunk_kwargs={"by": by, "parts": parts},
                             combine_kwargs={"by": by, "parts": parts},
                             aggregate_kwargs={"by": by, "spec": spec, "parts": parts,
                                               "sort": sort},
                             meta=main_meta, split_every=split_every)
    import dask
    from dask.dataframe import from_delayed
    split_every = max(2, int(split_every or 8))
    kw = {"by": by, "parts": parts}
    main = _reduce(ddf, _gb_chunk, _gb_combine, _gb_final, kw, split_every,
                   dict(kw, spec=spec, sort=True))
    nus = [_reduce(ddf, _nu_chunk, _nu_combine, _nu_final, {"by": by, "col": c},
                   split_every) for c in nu_cols]
    meta = _gb_join(main_meta, *[_nu_final([_nu_chunk(m, by, c)], by, c).head(0)
                                 for c in nu_cols], spec=spec)
    return from_delayed([dask.delayed(_gb_join)(main, *nus, spec=spec)], meta=meta,
                        verify_meta=False)


def _merge_part(left, right, on, how, suffixes):
    return left.merge(right, how=how, on=on, suffixes=suffixes)


_C1, _C2 = np.uint64(0xFF51AFD7ED558CCD), np.uint64(0xC4CEB9FE1A85EC53)


def _fmix(x):
    """MurmurHash3's 64-bit finaliser (uint64 arithmetic wraps, as in C)."""
    s = np.uint64(33)
    x = x ^ (x >> s)
    x = x * _C1
    x = x ^ (x >> s)
    x = x * _C2
    return x ^ (x >> s)


def _int_key(col):
    """An int64 array equal for equal values across int/uint/bool/float
    dtypes (a float splits into its integer part and its scaled fraction)."""
    import ember as em
    d = col.data
    if col.dtype.kind == "f":
        fl = em.floor(d)
        frac = ((d - fl) * float(2 ** 52)).astype(em.int64)
        return fl.astype(em.int64) + frac * 0x9E3779B1
    return d.astype(em.int64)


def _string_hash(col):
    """Per-string polynomial hash of the bytes, sum((b + 1) * M^pos) mod 2^64,
    by one cumulative sum over all bytes read at the offsets."""
    import ember as em
    dev = col.device
    n = len(col)
    lens = col.offsets[1:] - col.offsets[:-1]
    nbytes = int(col.data.shape[0])
    if nbytes == 0:
        return em.zeros(n, dtype=em.uint64, device=dev)
    maxlen = int(em.max(lens))
    table = np.ones(maxlen, dtype=np.uint64)
    with np.errstate(over="ignore"):
        m = np.uint64(0x100000001B3)
        for k in range(1, maxlen):
            table[k] = table[k - 1] * m
    row = em.repeat(em.arange(n, dtype=em.int64, device=dev), lens)
    pos = em.arange(nbytes, dtype=em.int64, device=dev) - col.offsets[:-1][row]
    contrib = (col.data.astype(em.uint64) + np.uint64(1)) * em.asarray(table, device=dev)[pos]
    cs = em.concatenate([em.zeros(1, dtype=em.uint64, device=dev), em.cumsum(contrib)])
    return cs[col.offsets[1:]] - cs[col.offsets[:-1]]


def _row_hash(cols):
    """uint64 hash of each row's key values, on the device; equal keys hash
    equal on every partition (nulls all alike)."""
    import ember as em
    h = None
    for c in cols:
        if c.kind == "string":
            k = _string_hash(c)
        elif c.kind == "category":
            raise TypeError("merge on a categorical key across partitions: cast it first")
        else:
            k = _int_key(c).astype(em.uint64)
        k = _fmix(k)
        miss = c.isna() if (c.validity is not None or c.is_float) else None
        if miss is not None:
            k = em.where(miss, np.uint64(0x5BD1E995), k)
        h = k if h is None else _fmix(h * np.uint64(31) + k)
    return h


def _bucket_ids(df, on, n):
    """Partition number (0..n-1) of each row from a device hash of its keys."""
    import ember as em
    if len(df) == 0:
        return em.zeros(0, dtype=em.int64, device=df.device)
    h = _row_hash([df._cols[k] for k in on])
    return (h % np.uint64(n)).astype(em.int64)


def _split(df, on, n):
    from ._series import Series
    from ._column import Column
    ids = _bucket_ids(df, on, n)
    parts = _group_split(df, Series._new(Column("num", np.int64, ids), df.index, None), n,
                         ignore_index=True)
    return [parts[i] for i in range(n)]


def _gather(pieces):
    from ._frame import concat
    return concat(list(pieces), ignore_index=True)


def _from_delayed(parts, meta):
    """dd.from_delayed of Ember frames (its pyarrow-string pass is for pandas
    object columns: an Ember string column is Arrow's layout already)."""
    import dask
    import dask.dataframe as dd
    with dask.config.set({"dataframe.convert-string": False}):
        return dd.from_delayed(parts, meta=meta, verify_meta=False)


def merge(left, right, on, how="inner", suffixes=("_x", "_y"), npartitions=None):
    """``left.merge(right, on=on, how=how)`` across partitions: both sides are
    hash-partitioned on the keys into n buckets (each partition split on its
    device, bucket j gathered from every partition), then bucket j of the left
    merges with bucket j of the right on the device (the bucket of a row is a
    hash of its keys computed on the device: _row_hash).  A one-partition right
    side of an inner or left merge is broadcast instead."""
    import dask
    on = [on] if not isinstance(on, (list, tuple)) else list(on)
    left, right = (x if _is_ember(x._meta) else _ember_parts(x) for x in (left, right))
    meta = _merge_part(_meta_nonempty(left._meta), _meta_nonempty(right._meta), on, how,
                       suffixes).head(0)
    if right.npartitions == 1 and how in ("inner", "left"):
        r = right.to_delayed()[0]
        parts = [dask.delayed(_merge_part)(p, r, on, how, suffixes) for p in left.to_delayed()]
        return _from_delayed(parts, meta)
    n = npartitions or max(left.npartitions, right.npartitions)

    def buckets(side):
        splits = [dask.delayed(_split, nout=n)(p, on, n) for p in side.to_delayed()]
        return [dask.delayed(_gather)([sp[j] for sp in splits]) for j in range(n)]
    lb, rb = buckets(left), buckets(right)
    parts = [dask.delayed(_merge_part)(lb[j], rb[j], on, how, suffixes) for j in range(n)]
    return _from_delayed(parts, meta)


_done = []


def register():
    """Register the backend and the dispatch functions with Dask (once)."""
    if _done:
        return
    _register_dispatch()
    # two creation dispatchers: dask.dataframe's (read_csv, from_dict ...) and
    # dask-expr's (to_backend); both entry point groups are in pyproject.toml
    from dask.dataframe.backends import dataframe_creation_dispatch
    from dask.dataframe.dask_expr._backends import dataframe_creation_dispatch as expr_dispatch
    backend = __getattr__("EmberDataFrameBackend")()
    dataframe_creation_dispatch.register_backend("ember", backend)
    expr_dispatch.register_backend("ember", backend)
    _done.append(True)


_dispatch_done = []


def _register_dispatch():
    if _dispatch_done:
        return
    _dispatch_done.append(True)
    from dask._dispatch import get_collection_type
    from dask.base import normalize_token
    from dask.dataframe import dispatch as dp
    from dask.sizeof import sizeof
    from ._frame import DataFrame
    from ._series import Series

    def _coll_df(_):
        from dask.dataframe.dask_expr._collection import DataFrame as DD
        return DD

    def _coll_s(_):
        from dask.dataframe.dask_expr._collection import Series as DS
        return DS
    get_collection_type.register(DataFrame)(_coll_df)
    get_collection_type.register(Series)(_coll_s)
    dp.get_parallel_type.register(DataFrame)(_coll_df)
    dp.get_parallel_type.register(Series)(_coll_s)
    for t in (DataFrame, Series):
        dp.make_meta_dispatch.register(t)(_make_meta)
        dp.meta_nonempty.register(t)(_meta_nonempty)
        dp.concat_dispatch.register(t)(_concat)
        dp.tolist_dispatch.register(t)(_tolist)
        dp.hash_object_dispatch.register(t)(_hash_object)
        dp.to_pandas_dispatch.register(t)(_to_pandas)
        sizeof.register(t)(_sizeof)
        normalize_token.register(t)(_tokenize)
    dp.group_split_dispatch.register(DataFrame)(_group_split)
    dp.partd_encode_dispatch.register(DataFrame)(_partd_encode)
    dp.to_pyarrow_table_dispatch.register(DataFrame)(lambda obj, **kw: obj.to_arrow())
    dp.pyarrow_schema_dispatch.register(DataFrame)(
        lambda obj, preserve_index=None: obj.to_arrow().schema)

    @dp.from_pyarrow_table_dispatch.register(DataFrame)
    def _from_table(meta, table, **kw):
        from ._io import from_arrow
        return from_arrow(table, meta.device)


def __getattr__(name):
    if name == "EmberDataFrameBackend":  # also what the entry point loads
        _register_dispatch()
        cls = _entrypoint_class()
        globals()[name] = cls
        return cls
    raise AttributeError(f"module 'ember.frame.dask' has no attribute {name!r}")
