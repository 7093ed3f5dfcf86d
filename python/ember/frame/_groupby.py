"""Group-by on the device: sort the rows by the keys (em.lexsort, the stable
device radix sort), mark segment boundaries where any key changes, then reduce
each segment:

- counts and integer sums: cumsum differences at the segment bounds (exact in
  integers; ufunc.reduceat is still a host fallback, so it is not used);
- float sums, and the squared deviations of var/std: scatter-add (em.add.at)
  into one slot per group in float64, which does not cancel the way cumsum
  differences do (CPU: add.reduceat, see _scatter_sum);
- min/max/first/last/nunique: one more stable sort inside the groups (by
  null flag, then value or position) and a gather at each segment's first or
  last valid row.

All of it is Ember ops, so it runs on CPU, CUDA and OpenCL; string keys get
their ranks on the host until frameio's device string sort keys land.
"""
import numpy as np

import ember as em
from ember import _scatter

from ._column import Column
from ._index import Index, RangeIndex
from . import _keys

AGGS = ("sum", "mean", "count", "size", "min", "max", "std", "var", "first", "last",
        "nunique")


class GroupBy:
    def __init__(self, df, by, as_index=True, sort=True, dropna=True, selection=None,
                 observed=True):
        from ._series import Series
        keys = by if isinstance(by, list) else [by]
        if not keys or by is None:
            raise ValueError("No group keys passed!")
        for k in keys:
            if isinstance(k, Series) or callable(k):
                raise NotImplementedError("group keys must be column names")
            if k not in df._cols:
                raise KeyError(k)
            if not observed and df._cols[k].kind == "category":
                raise NotImplementedError("groupby(observed=False) on a categorical key "
                                          "(unobserved categories) is not supported")
        self.df, self.keys = df, keys
        self.as_index, self.sort, self.dropna = as_index, sort, dropna
        self.selection = selection
        self._plan_cache = None

    def __getitem__(self, cols):
        single = not isinstance(cols, list)
        names = [cols] if single else cols
        for c in names:
            if c not in self.df._cols:
                raise KeyError(f"Column not found: {c}")
        g = GroupBy(self.df, self.keys, self.as_index, self.sort, self.dropna,
                    (cols, single))
        g._plan_cache = self._plan_cache
        return g

    @property
    def obj(self):
        """The grouped frame (pandas' ``obj``)."""
        return self.df

    @property
    def grouping(self):
        """cuDF's ``grouping``: ``.keys`` are the key columns as Series, which
        Dask's var/std chunk groups a squared column by (Series.groupby)."""
        df = self.df

        class _Grouping:
            keys = [df._col_series(k) for k in self.keys]
        return _Grouping

    def __getattr__(self, name):
        df = self.__dict__.get("df")
        if df is not None and name in df._cols:
            return self[name]
        raise AttributeError(f"'GroupBy' object has no attribute {name!r}")

    # -------------------------------------------------------------- plan
    def _plan(self):
        """Rows kept (null keys dropped), the segments, and the group order."""
        if self._plan_cache is not None:
            return self._plan_cache
        df = self.df
        kcols = [df._cols[k] for k in self.keys]
        rows = None
        if self.dropna:
            miss = _keys.any_null(kcols)
            if miss is not None:
                rows = em.nonzero(~miss)[0].astype(np.int64)
                kcols = [c.take(rows) for c in kcols]
        seg = _keys.segments(kcols)
        first_row = seg.order[seg.starts] if seg.n else seg.starts
        group_order = None
        if not self.sort and seg.n:
            # groups in order of first appearance (pandas' sort=False)
            group_order = em.argsort(first_row, stable=True).astype(np.int64)
        key_out = [c.take(first_row) for c in kcols]
        if group_order is not None:
            key_out = [c.take(group_order) for c in key_out]
        self._plan_cache = (rows, seg, key_out, group_order)
        return self._plan_cache

    def _group_table(self):
        """(row positions in group order, [(label, start, end)] per group), on the
        host: the group labels are Python objects for ``groups``/``get_group``."""
        cache = self.__dict__.get("_groups_cache")
        if cache is not None:
            return cache
        rows, seg, _, group_order = self._plan()
        order = seg.order if rows is None else rows[seg.order]
        if seg.n == 0:
            self._groups_cache = (np.zeros(0, np.int64), [])
            return self._groups_cache
        first = order[seg.starts]
        keys = [self.df._cols[k].take(first).to_numpy() for k in self.keys]
        labels = list(zip(*keys)) if len(keys) > 1 else list(keys[0])
        starts, ends = em.asnumpy(seg.starts), em.asnumpy(seg.ends)
        seq = range(seg.n) if group_order is None else em.asnumpy(group_order)
        self._groups_cache = (em.asnumpy(order).astype(np.int64),
                              [(labels[g], int(starts[g]), int(ends[g])) for g in seq])
        return self._groups_cache

    @property
    def groups(self):
        """{group label: the index labels of its rows} (pandas' ``groups``)."""
        order, table = self._group_table()
        labels = self.df.index.to_numpy()
        return {lab: labels[order[a:b]] for lab, a, b in table}

    @property
    def ngroups(self):
        return self._plan()[1].n

    def get_group(self, name):
        """The rows of one group (all columns, as pandas)."""
        order, table = self._group_table()
        for lab, a, b in table:
            if lab == name:
                pos = em.asarray(order[a:b], device=self.df.device)
                return self.df.iloc[pos]
        raise KeyError(name)

    def __iter__(self):
        order, table = self._group_table()
        for lab, a, b in table:
            yield lab, self.df.iloc[em.asarray(order[a:b], device=self.df.device)]

    def __len__(self):
        return self.ngroups

    def _value_cols(self):
        if self.selection is not None:
            names, single = self.selection
            return ([names] if single else list(names)), single
        return [k for k in self.df._cols if k not in self.keys], False

    # ---------------------------------------------------------- reducing
    def _reduce(self, name, how, ddof=1):
        rows, seg, _, group_order = self._plan()
        col = self.df._cols[name]
        if rows is not None:
            col = col.take(rows)
        out = reduce_segments(col, seg, how, ddof, name)
        if group_order is not None:
            out = out.take(group_order)
        return out

    def _size(self):
        rows, seg, _, group_order = self._plan()
        size = (seg.ends - seg.starts).astype(np.int64)
        if group_order is not None:
            size = size[group_order]
        return Column("num", np.int64, size)

    def _result(self, cols, series_name=None, as_series=False, key_out=None):
        from ._frame import DataFrame
        from ._series import Series
        if key_out is None:
            key_out = self._plan()[2]
        dev = self.df.device
        if self.as_index:
            index = Index(key_out, list(self.keys))
            if as_series:
                (col,) = cols.values()
                return Series._new(col, index, series_name)
            return DataFrame._new(cols, index, dev)
        out = dict(zip(self.keys, key_out))
        for k, c in cols.items():
            out[k] = c
        return DataFrame._new(out, RangeIndex(0, len(key_out[0]), 1, dev), dev)

    def _dense(self, how, names):
        """sum/mean/count on one integer key of a small range (at most 4n + 1024
        values) without nulls and sorted groups: no sort, but per-key totals by
        a weighted bincount over key - min.  None when the case does not fit."""
        if how not in ("sum", "mean", "count") or len(self.keys) != 1 or not self.sort \
                or self._plan_cache is not None:
            return None
        key = self.df._cols[self.keys[0]]
        n = len(key)
        dev = str(key.device)
        if n == 0 or key.kind != "num" or key.dtype.kind not in "iu" or key.has_nulls() \
                or (dev.startswith("opencl") and not em.opencl.device_info(dev)["fp64"]):
            return None  # the totals are float64 bincounts (scatter-adds on the device)
        vals = [self.df._cols[k] for k in names]
        if any(c.kind != "num" or (how != "count" and c.dtype.kind != "f") for c in vals):
            return None
        lo, hi = int(em.min(key.data)), int(em.max(key.data))
        width = hi - lo + 1
        if width > 4 * n + 1024:
            return None
        codes = (key.data - lo).astype(np.int64)
        ones = em.ones(n, dtype=np.float64, device=key.device)
        present = em.bincount(codes, weights=ones, minlength=width)
        groups = em.nonzero(present > 0)[0].astype(np.int64)
        key_out = [Column("num", key.dtype, (groups + lo).astype(key.dtype))]
        cols = {}
        for k, c in zip(names, vals):
            valid = c.notna()
            if how == "count" or how == "mean":
                cnt = em.bincount(codes, weights=valid.astype(np.float64), minlength=width)
                cnt = cnt[groups]
            if how == "count":
                cols[k] = Column("num", np.dtype(np.int64), cnt.astype(np.int64))
                continue
            x = em.where(valid, c.data.astype(np.float64), 0.0)
            tot = em.bincount(codes, weights=x, minlength=width)[groups]
            out = tot if how == "sum" else tot / cnt
            cols[k] = Column("num", c.dtype, out.astype(c.dtype))
        return cols, key_out

    def _simple(self, how, **kw):
        names, single = self._value_cols()
        fast = self._dense(how, names) if not kw else None
        if fast is not None:
            cols, key_out = fast
            return self._result(cols, names[0] if single else None, single, key_out)
        cols = {k: self._reduce(k, how, **kw) for k in names}
        return self._result(cols, names[0] if single else None, single)

    def _check_kw(self, how, numeric_only=False, min_count=0, skipna=True):
        if skipna is not True:
            raise NotImplementedError(f"GroupBy.{how}(skipna=False) is not supported")
        if min_count not in (0, -1, None) and min_count != 1 or \
                (min_count == 1 and how not in ("sum", "min", "max", "first", "last")):
            raise NotImplementedError(f"GroupBy.{how}(min_count={min_count!r}): only 0 "
                                      "(and 1 for sum/min/max/first/last) are supported")
        if numeric_only:
            names, single = self._value_cols()
            keep = [k for k in names if _numeric_kind(self.df._cols[k])]
            if single or keep == names:
                return self
            g = self[keep]
            return g
        return self

    def _simple_kw(self, how, numeric_only=False, min_count=0, skipna=True, **kw):
        g = self._check_kw(how, numeric_only, min_count, skipna)
        out = g._simple(how, **kw)
        if min_count == 1 and how == "sum":
            out = g._mask_empty(out)
        return out

    def _mask_empty(self, out):
        """sum(min_count=1): a group with no valid value gives a null, not 0."""
        names, single = self._value_cols()
        cols = out._cols if not single else {names[0]: out._col}
        masked = {}
        for k, c in cols.items():
            cnt = self._reduce(k, "count").data
            valid = cnt > 0 if c.validity is None else (cnt > 0) & c.validity
            masked[k] = c._replace(validity=valid)
        return self._result(masked, names[0] if single else None, single)

    def sum(self, numeric_only=False, min_count=0, **kw):
        return self._simple_kw("sum", numeric_only, min_count, **kw)

    def mean(self, numeric_only=False, **kw):
        return self._simple_kw("mean", numeric_only, **kw)

    def count(self):
        return self._simple("count")

    def min(self, numeric_only=False, min_count=-1, **kw):
        return self._simple_kw("min", numeric_only, min_count, **kw)

    def max(self, numeric_only=False, min_count=-1, **kw):
        return self._simple_kw("max", numeric_only, min_count, **kw)

    def std(self, ddof=1, numeric_only=False, **kw):
        return self._simple_kw("std", numeric_only, ddof=ddof, **kw)

    def var(self, ddof=1, numeric_only=False, **kw):
        return self._simple_kw("var", numeric_only, ddof=ddof, **kw)

    def first(self, numeric_only=False, min_count=-1, skipna=True):
        return self._simple_kw("first", numeric_only, min_count, skipna)

    def last(self, numeric_only=False, min_count=-1, skipna=True):
        return self._simple_kw("last", numeric_only, min_count, skipna)

    def nunique(self, dropna=True):
        if not dropna:
            raise NotImplementedError("GroupBy.nunique(dropna=False) is not supported")
        return self._simple("nunique")

    def size(self):
        from ._series import Series
        col = self._size()
        if self.as_index:
            _, _, key_out, _ = self._plan()
            # pandas names a one-column selection's sizes after the column
            name = self.selection[0] if self.selection is not None and self.selection[1] \
                else None
            return Series._new(col, Index(key_out, list(self.keys)), name)
        return self._result({"size": col})

    def agg(self, func=None, **named):
        if named:
            if func is not None:
                raise TypeError("pass either a function spec or named aggregations")
            cols = {}
            for out_name, spec in named.items():
                if not (isinstance(spec, tuple) and len(spec) == 2):
                    raise TypeError("named aggregation needs (column, func) tuples")
                cols[out_name] = self._one(spec[0], spec[1])
            return self._result(cols)
        names, single = self._value_cols()
        if isinstance(func, str):
            if func not in AGGS:
                raise AttributeError(f"'GroupBy' object has no attribute '{func}'")
            if func == "size":
                return self.size()
            return self._simple(func)
        if isinstance(func, (list, tuple)):
            cols = {}
            for k in names:
                for f in func:
                    cols[f if single else (k, f)] = self._one(k, f)
            return self._result(cols)
        if isinstance(func, dict):
            nested = any(isinstance(v, (list, tuple)) for v in func.values())
            cols = {}
            for k, fs in func.items():
                if k not in self.df._cols:
                    raise KeyError(f"Column(s) ['{k}'] do not exist")
                for f in (fs if isinstance(fs, (list, tuple)) else [fs]):
                    cols[(k, f) if nested else k] = self._one(k, f)
            return self._result(cols)
        raise TypeError(f"unsupported aggregation spec {func!r}")

    aggregate = agg

    def transform(self, func, *args, **kwargs):
        """Each row gets its group's aggregate (pandas' transform for the
        aggregation names): the per-group values gathered by every row's
        group code; rows whose key is null (dropna) get a null."""
        how = _agg_name(func, "transform")
        if args or kwargs:
            raise NotImplementedError("GroupBy.transform takes no extra arguments here")
        from ._frame import DataFrame
        from ._series import Series
        df = self.df
        n = len(df)
        rows, seg, _, _ = self._plan()
        code = seg.codes
        if rows is not None:  # rows with a null key: no group (-1 gathers a null)
            full = em.full(n, -1, dtype=np.int64, device=df.device)
            if int(rows.shape[0]):
                full[rows] = code
            code = full
        names, single = self._value_cols()
        if how == "size":
            size = Column("num", np.int64, (seg.ends - seg.starts).astype(np.int64))
            return Series._new(size.take(code, allow_fill=rows is not None), df.index,
                               names[0] if single else None)
        cols = {}
        for k in names:
            col = df._cols[k] if rows is None else df._cols[k].take(rows)
            per = reduce_segments(col, seg, how, 1, k)
            cols[k] = per.take(code, allow_fill=rows is not None) if seg.n or n == 0 \
                else Column.nulls(per, n)
        if single:
            return Series._new(cols[names[0]], df.index, names[0])
        return DataFrame._new(cols, df.index, df.device)

    def apply(self, func, *args, **kwargs):
        """pandas' apply for an aggregation name (or NumPy's/Python's reducer of
        that name): the aggregation. A Python function per group is not run."""
        how = _agg_name(func, "apply")
        if args or kwargs:
            raise NotImplementedError("GroupBy.apply takes no extra arguments here")
        if how == "size":
            return self.size()
        return self._simple(how)

    def _one(self, col, func):
        if not isinstance(func, str):
            raise NotImplementedError("aggregations are named by strings "
                                      f"({', '.join(AGGS)})")
        if func not in AGGS:
            raise AttributeError(f"'GroupBy' object has no attribute '{func}'")
        if col not in self.df._cols:
            raise KeyError(f"Column(s) ['{col}'] do not exist")
        if func == "size":
            return self._size()
        return self._reduce(col, func)


# NumPy's and Python's reducers that pandas maps to its own aggregations
_REDUCERS = {np.sum: "sum", np.mean: "mean", np.min: "min", np.max: "max",
             np.nansum: "sum", np.nanmean: "mean", np.nanmin: "min", np.nanmax: "max",
             sum: "sum", min: "min", max: "max", len: "size"}


def _agg_name(func, method):
    """The aggregation a transform/apply argument names, or the error pandas'
    intent calls for: an unknown name is an AttributeError (pandas: "... is not
    a valid function for 'DataFrameGroupBy' object"), a Python function that
    would run per group NotImplementedError."""
    if isinstance(func, str):
        if func not in AGGS:
            if method == "apply":  # pandas looks the name up as a method
                raise AttributeError(f"'DataFrameGroupBy' object has no attribute '{func}'")
            raise ValueError(f"'{func}' is not a valid function name for {method}(name)")
        return func
    name = _REDUCERS.get(func) if callable(func) else None
    if name is None:
        raise NotImplementedError(
            f"GroupBy.{method} takes an aggregation name ({', '.join(AGGS)}) or NumPy's "
            "reducer of that name; a Python function per group is not run on the device "
            f"(to_pandas().groupby(...).{method}(f) runs it with pandas)")
    return name


def _numeric_kind(col):
    return col.kind == "num"


def _level_positions(index, level):
    levels = level if isinstance(level, (list, tuple)) else [level]
    pos = []
    for lv in levels:
        if isinstance(lv, int) and not (lv in index.names and lv not in range(index.nlevels)):
            if not -index.nlevels <= lv < index.nlevels:
                raise IndexError(f"Too many levels: Index has only {index.nlevels} level(s), "
                                 f"not {lv + 1}")
            pos.append(lv % index.nlevels)
        elif lv in index.names:
            pos.append(index.names.index(lv))
        else:
            raise KeyError(f"Level {lv} not found")
    return pos, isinstance(level, (list, tuple))


def _keyed_frame(cols, index, levels, extra):
    """A frame of the chosen index levels (as columns named by private keys)
    followed by ``cols``; the GroupBy over those keys renames the result's
    index back to the levels' names."""
    from ._frame import DataFrame
    from ._index import RangeIndex
    names = [f"__level_{i}__" for i in range(len(levels))]
    data = dict(zip(names, [index.levels[p] for p in levels]))
    for i, c in enumerate(extra):
        data[f"__by_{i}__"] = c
        names.append(f"__by_{i}__")
    data.update(cols)
    dev = index.device
    return DataFrame._new(data, RangeIndex(0, len(index), 1, dev), dev), names


class _LevelGroupBy(GroupBy):
    """A GroupBy over private key columns whose result index carries the
    grouping levels' own names."""

    def __init__(self, df, by, out_names, series=None, **kw):
        super().__init__(df, by, **kw)
        self._out_names = out_names
        self._series = series

    def __getitem__(self, cols):
        g = super().__getitem__(cols)
        lg = _LevelGroupBy.__new__(_LevelGroupBy)
        lg.__dict__.update(g.__dict__)
        lg._out_names, lg._series = self._out_names, self._series
        return lg

    def _value_cols(self):
        if self._series is not None and self.selection is None:
            return [self._series], True
        return super()._value_cols()

    def _result(self, cols, series_name=None, as_series=False, key_out=None):
        if series_name == "__value__":
            series_name = None
        out = super()._result(cols, series_name, as_series, key_out)
        if self.as_index:
            out.index.names = list(self._out_names)
        else:
            out = out.rename(columns=dict(zip(self.keys, self._out_names)))
        return out

    def size(self):
        out = super().size()
        if self.as_index:
            out.index.names = list(self._out_names)
        return out


def by_level(df, by, level, **kw):
    """df.groupby(level=...): group by index levels (``by`` must be None)."""
    if by is not None:
        raise NotImplementedError("groupby with both by= and level= is not supported")
    pos, _ = _level_positions(df.index, level)
    frame, names = _keyed_frame(df._cols, df.index, pos, [])
    return _LevelGroupBy(frame, names, [df.index.names[p] for p in pos], **kw)


def series_groupby(s, by, level, **kw):
    """Series.groupby by index levels or by Series keys (paired by position)."""
    from ._series import Series
    extra, out_names, pos = [], [], []
    if level is not None:
        if by is not None:
            raise NotImplementedError("groupby with both by= and level= is not supported")
        pos, _ = _level_positions(s.index, level)
        out_names = [s.index.names[p] for p in pos]
    else:
        keys = by if isinstance(by, list) else [by]
        if by is None or not keys:
            raise ValueError("No group keys passed!")
        for k in keys:
            if not isinstance(k, Series):
                raise NotImplementedError("Series.groupby takes level= or Series keys")
            if len(k) != len(s):
                raise ValueError("Grouper and axis must be same length")
            extra.append(k._col)
            out_names.append(k.name)
    value = "__value__" if s.name is None else s.name
    frame, names = _keyed_frame({value: s._col}, s.index, pos, extra)
    g = _LevelGroupBy(frame, names, out_names, series=value, **kw)
    return g


# ---------------------------------------------------------- the reductions
def _bounds_diff(x, seg):
    """Per-segment sums of the integer Ember array x (sorted by segment) by
    cumsum differences."""
    dev = x.device
    cs = em.concatenate([em.zeros(1, dtype=np.int64, device=dev),
                         em.cumsum(x.astype(np.int64)).astype(np.int64)])
    return cs[seg.ends] - cs[seg.starts]


def _wide(dt):
    return np.dtype(np.complex128) if dt.kind == "c" else np.dtype(np.float64)


def _scatter_sum(x, seg, dtype):
    """Per-segment sums of x (sorted by segment) in `dtype`: a scatter-add with
    device atomics on CUDA and OpenCL (render_scatter.c); on the CPU
    ufunc.reduceat (NumPy's on the shared buffer: no copy, and several times
    faster than add.at). Complex sums have no atomic: reduceat there too."""
    if not _scatter.on_device(x) or np.dtype(dtype) not in _scatter.KINDS:
        return em.add.reduceat(x.astype(dtype), seg.starts)
    out = em.zeros(seg.n, dtype=dtype, device=x.device)
    return _scatter.scatter_add(out, seg.gid, x.astype(dtype))


def _check(col, how, name):
    ok_str = ("count", "min", "max", "first", "last", "nunique")
    if col.kind in ("string", "category") and how not in ok_str:
        raise TypeError(f"agg function failed [how->{how},dtype->{col.kind}]: column "
                        f"{name!r} cannot be reduced with {how!r}")
    if col.kind == "datetime" and how in ("sum", "var", "std"):
        raise TypeError(f"datetime64 type does not support operation '{how}' "
                        f"(column {name!r})")
    if col.kind == "num" and col.dtype.kind == "c" and how in ("min", "max", "nunique"):
        raise TypeError(f"complex column {name!r} cannot be reduced with {how!r}")


def reduce_segments(col, seg, how, ddof=1, name=None):
    """One aggregation of `col` (rows in original order) over the segments."""
    _check(col, how, name)
    col = pandas_numeric(col)
    dev = col.device
    if seg.n == 0:
        return _empty_result(col, how)
    sc = col.take(seg.order)              # the column in segment order
    nulls = sc.validity is not None or sc.is_float
    valid = sc.notna()
    # without nulls a segment's count is its size
    cnt = _bounds_diff(valid, seg) if nulls else (seg.ends - seg.starts)
    if how == "count":
        return Column("num", np.int64, cnt)
    x = sc.data
    if how in ("sum", "mean", "var", "std"):
        zero = em.zeros(1, dtype=x.dtype, device=dev)
        xz = em.where(valid, x, zero) if nulls else x
        if how == "sum":
            if x.dtype.kind in "fc":
                # accumulate in double precision as pandas does, keep the dtype
                s = _scatter_sum(xz, seg, _wide(x.dtype))
                return Column("num", x.dtype, s.astype(x.dtype))
            # pandas keeps the int width (int8 stays int8) and sums bools as int64
            s = _bounds_diff(xz, seg)
            dt = np.dtype(np.int64) if x.dtype == np.bool_ else x.dtype
            if x.dtype.kind == "u":
                dt = x.dtype
            return Column("num", dt, s.astype(dt))
        odt = x.dtype if x.dtype.kind in "fc" else np.dtype(np.float64)
        fdt = _wide(odt)
        s = _scatter_sum(xz, seg, fdt)
        cf = cnt.astype(s.dtype)
        nan = em.full(1, np.nan, dtype=s.dtype, device=dev)
        mean = em.where(cnt > 0, s / em.where(cnt > 0, cf, 1), nan)
        if how == "mean":
            # pandas' cython mean keeps float32 (and complex64); ints give float64
            return Column("num", odt, mean.astype(odt))
        d = em.where(valid, x.astype(fdt) - mean[seg.gid].astype(fdt),
                     em.zeros(1, dtype=fdt, device=dev))
        ss = _scatter_sum(d * d, seg, fdt)
        denom = (cnt - ddof).astype(fdt)
        var = em.where(cnt - ddof > 0, ss / em.where(cnt - ddof > 0, denom, 1),
                       em.full(1, np.nan, dtype=fdt, device=dev))
        if how == "std":
            var = em.sqrt(var)
        return Column("num", odt, var.astype(odt))
    if how in ("first", "last"):
        # rows of a segment are in original order (the sort is stable): the
        # first (last) valid row is the least (greatest) valid position
        n = len(sc)  # (x is the bytes of a string column)
        pos = em.arange(n, dtype=np.int64, device=dev)
        fill = n if how == "first" else -1
        pos = em.where(valid, pos, fill) if nulls else pos
        at = _seg_extreme(pos, seg, "min" if how == "first" else "max")
        return _pick_at(sc, em.where(cnt > 0, at, seg.starts), cnt)
    if how in ("min", "max") and sc.kind == "num" and x.dtype.kind in "iuf":
        # a segmented min/max of the values (nulls as the identity); no sort
        if x.dtype.kind == "f":
            ident = np.inf if how == "min" else -np.inf
        else:
            info = np.iinfo(x.dtype)
            ident = info.max if how == "min" else info.min
        xv = em.where(valid, x, em.full(1, ident, dtype=x.dtype, device=dev)) if nulls else x
        out = Column("num", x.dtype, _seg_extreme(xv, seg, how))
        return _mark_empty(out, cnt)
    if how in ("first", "last"):
        inner = em.lexsort([sc.isna().astype(np.int8), seg.gid]).astype(np.int64)
        pick = seg.starts if how == "first" else seg.starts + em.where(cnt > 0, cnt - 1, 0)
        return _pick(sc, inner, pick, cnt)
    # min / max / nunique: sort inside the segments by (null flag, value)
    vk = _keys.clean_key(sc)
    inner = em.lexsort([vk, sc.isna().astype(np.int8), seg.gid]).astype(np.int64)
    if how == "nunique":
        v = vk[inner]
        g = seg.gid[inner]
        ok = valid[inner]
        n = int(v.shape[0])
        newv = em.concatenate([em.ones(1, dtype=np.bool_, device=dev),
                               (v[1:] != v[:-1]) | (g[1:] != g[:-1])]) if n else ok
        return Column("num", np.int64, _bounds_diff(newv & ok, seg))
    pick = seg.starts if how == "min" else seg.starts + em.where(cnt > 0, cnt - 1, 0)
    return _pick(sc, inner, pick, cnt)


def _seg_extreme(x, seg, how):
    """Per-segment min or max of x (rows in segment order): a scatter with
    atomics on a device (in a 32/64-bit type the template takes), NumPy's
    reduceat on the CPU's shared buffer."""
    op = em.minimum if how == "min" else em.maximum
    if not _scatter.on_device(x):
        return op.reduceat(x, seg.starts)
    wide = x.dtype if x.dtype in _scatter.KINDS else \
        np.dtype(np.float64 if x.dtype.kind == "f" else np.int64)
    info = np.finfo(wide) if wide.kind == "f" else np.iinfo(wide)
    init = (np.inf if how == "min" else -np.inf) if wide.kind == "f" else \
        (info.max if how == "min" else info.min)
    out = em.full(seg.n, init, dtype=wide, device=x.device)
    _scatter.scatter(out, seg.gid, x.astype(wide), "minimum" if how == "min" else "maximum")
    return out.astype(x.dtype)


def _pick_at(sc, at, cnt):
    return _mark_empty(sc.take(at), cnt)


def _pick(sc, inner, pick, cnt):
    return _mark_empty(sc.take(inner[pick]), cnt)


def _mark_empty(out, cnt):
    """Groups without a valid value give a null (NaN for floats)."""
    empty = cnt == 0
    if bool(em.any(empty)):
        val = ~empty if out.validity is None else (out.validity & ~empty)
        out = out._replace(validity=val)
        if out.is_float:
            out = out._replace(data=em.where(empty, em.full(1, np.nan, dtype=out.dtype,
                                                           device=out.device), out.data),
                               validity=None)
    return out


def _empty_result(col, how):
    dev = col.device
    z = em.zeros(0, dtype=np.int64, device=dev)
    if how in ("count", "nunique", "size"):
        return Column("num", np.int64, z)
    if how in ("mean", "var", "std"):
        dt = col.dtype if col.kind == "num" and col.dtype.kind in "fc" else np.float64
        return Column("num", dt, z.astype(dt))
    if how == "sum" and col.dtype == np.bool_:
        return Column("num", np.int64, z)
    return col.take(z)


def pandas_numeric(col):
    """An int column with nulls is float64 with NaN in pandas' default model;
    reduce it as that so results carry pandas' dtypes."""
    if col.kind == "num" and col.dtype.kind in "iu" and col.validity is not None \
            and col.has_nulls():
        data = em.where(col.validity, col.data.astype(np.float64),
                        em.full(1, np.nan, dtype=np.float64, device=col.device))
        return Column("num", np.float64, data)
    return col
