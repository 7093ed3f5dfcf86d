"""DataFrame: named Columns of one length on one device, with an Index."""
import numpy as np

import ember as em

from ._column import Column, concat_columns
from ._convert import column_from_any, column_to_pandas, column_from_pandas
from ._index import Index, RangeIndex, concat_indexes
from ._series import Series, _index_from_pandas
from . import _ops
from . import _keys


def _default_device(device):
    if device is not None:
        return em.Device(device) if isinstance(device, str) else device
    return em.get_device()


class DataFrame:
    """A table of Ember-array columns (pandas' DataFrame, common path)."""

    def __init__(self, data=None, index=None, columns=None, device=None):
        dev = _default_device(device)
        cols = {}
        if data is None:
            data = {}
        if isinstance(data, DataFrame):
            cols = dict(data._cols)
            if index is None:
                index = data.index
        elif isinstance(data, dict):
            n = None
            for v in data.values():
                if not np.isscalar(v) and v is not None:
                    n = len(v)
                    break
            if n is None and index is not None:
                n = len(index)
            data = _align_series(data, dev)
            for k, v in data.items():
                cols[k] = column_from_any(v, dev, n if n is not None else 1)
            if index is None and isinstance(next(iter(data.values()), None), Series):
                index = next(iter(data.values())).index
        elif isinstance(data, (np.ndarray, em.ndarray)) and data.ndim == 2:
            host = em.asnumpy(data) if isinstance(data, em.ndarray) else data
            names = columns if columns is not None else list(range(host.shape[1]))
            for j, k in enumerate(names):
                cols[k] = Column.from_numpy(np.ascontiguousarray(host[:, j]), dev)
            columns = None
        else:
            try:
                import pandas as pd
                if isinstance(data, pd.DataFrame):
                    src = DataFrame.from_pandas(data, dev)
                    cols, index = dict(src._cols), src.index if index is None else index
                else:
                    raise TypeError
            except (ImportError, TypeError):
                raise TypeError(f"cannot make a DataFrame from {type(data).__name__}") \
                    from None
        if columns is not None:
            missing = [c for c in columns if c not in cols]
            cols = {c: cols[c] for c in columns if c in cols}
            if missing and cols:
                n0 = len(next(iter(cols.values())))
                for c in missing:
                    cols[c] = Column.from_numpy(np.full(n0, np.nan), dev)
        lens = {len(c) for c in cols.values()}
        if len(lens) > 1:
            raise ValueError("All arrays must be of the same length")
        n = lens.pop() if lens else (len(index) if index is not None else 0)
        if index is None:
            index = RangeIndex(0, n, 1, dev)
        elif not isinstance(index, Index):
            index = Index([column_from_any(index, dev)], [None])
        if len(index) != n:
            raise ValueError(f"Length of values ({n}) does not match length of index "
                             f"({len(index)})")
        self._cols = cols
        self.index = index
        self._device = dev

    @classmethod
    def _new(cls, cols, index, device=None):
        df = cls.__new__(cls)
        df._cols = dict(cols)
        df.index = index
        if device is None:
            device = next(iter(cols.values())).device if cols else index.device
        df._device = device
        return df

    def _with_index(self, index):
        return DataFrame._new(self._cols, index, self._device)

    # ------------------------------------------------------------ basics
    @property
    def device(self):
        return self._device

    @property
    def columns(self):
        return list(self._cols)

    @columns.setter
    def columns(self, names):
        names = list(names)
        if len(names) != len(self._cols):
            raise ValueError(f"Length mismatch: Expected axis has {len(self._cols)} "
                             f"elements, new values have {len(names)} elements")
        self._cols = dict(zip(names, self._cols.values()))

    @property
    def _constructor_sliced(self):
        """pandas' hook for 'a Series like this frame's columns': Dask's P2P
        shuffle builds its worker map with it (a pandas Series comes in)."""
        dev = self._device

        def make(data=None, index=None, name=None):
            if index is None and name is None and type(data).__module__.startswith("pandas"):
                return Series.from_pandas(data, dev)
            return Series(data, index=index, name=name, device=dev)
        return make

    @property
    def dtypes(self):
        """pandas' dtype of each column as a pandas Series indexed by the column
        names (object dtype, as pandas gives it); a dict without pandas."""
        from ._series import pandas_dtype
        d = {k: pandas_dtype(c) for k, c in self._cols.items()}
        try:
            import pandas as pd
        except ImportError:
            return d
        # the index as pandas builds a frame's columns (str dtype for names under pandas 3)
        names = pd.DataFrame(columns=list(d)).columns
        return pd.Series(list(d.values()), index=names, dtype=object)

    def select_dtypes(self, include=None, exclude=None):
        """The columns whose dtypes pandas' select_dtypes would pick (decided by
        pandas on an empty frame of the same dtypes)."""
        import pandas as pd
        empty = pd.DataFrame({k: pd.Series([], dtype=dt) for k, dt in self.dtypes.items()})
        picked = list(empty.select_dtypes(include=include, exclude=exclude).columns)
        return DataFrame._new({k: self._cols[k] for k in picked}, self.index, self._device)

    @property
    def shape(self):
        return (len(self), len(self._cols))

    @property
    def size(self):
        return len(self) * len(self._cols)

    @property
    def empty(self):
        return len(self) == 0 or not self._cols

    @property
    def ndim(self):
        return 2

    def __len__(self):
        return len(self.index)

    def __iter__(self):
        return iter(self._cols)

    def __contains__(self, key):
        return key in self._cols

    def keys(self):
        return list(self._cols)

    def items(self):
        for k in self._cols:
            yield k, self[k]

    def __repr__(self):
        from ._format import format_frame
        return format_frame(self)

    def copy(self, deep=True):
        return DataFrame._new(self._cols, self.index, self._device)

    def to_device(self, device):
        dev = _default_device(device)
        return DataFrame._new({k: c.to_device(dev) for k, c in self._cols.items()},
                              self.index.to_device(dev), dev)

    # -------------------------------------------------------- conversions
    def to_pandas(self):
        import pandas as pd
        idx = self.index.to_pandas()
        data = {k: column_to_pandas(c, k, idx) for k, c in self._cols.items()}
        if not data:
            return pd.DataFrame(index=idx)
        out = pd.DataFrame(data, index=idx)
        if any(isinstance(k, tuple) for k in self._cols):
            out.columns = pd.MultiIndex.from_tuples(list(self._cols))
        return out

    @classmethod
    def from_pandas(cls, pdf, device=None):
        dev = _default_device(device)
        names = list(pdf.columns)
        if len(set(names)) != len(names):
            raise ValueError("duplicate column names are not supported")
        cols = {k: column_from_pandas(pdf[k], dev) for k in names}
        return cls._new(cols, _index_from_pandas(pdf.index, dev), dev)

    def to_numpy(self, dtype=None, na_value=None):
        if not self._cols:
            return np.empty((len(self), 0), dtype=dtype or np.float64)
        arrs = [c.to_numpy(na_value=na_value) for c in self._cols.values()]
        return np.column_stack(arrs).astype(dtype) if dtype else np.column_stack(arrs)

    def to_dict(self):
        return {k: c.to_numpy().tolist() for k, c in self._cols.items()}

    # --------------------------------------------------------- selection
    def _take(self, sel):
        cols, index = _ops.take_rows(list(self._cols.values()), self.index, sel)
        return DataFrame._new(dict(zip(self._cols, cols)), index, self._device)

    def _row(self, i):
        vals = [c.slice(i, i + 1).to_numpy()[0] for c in self._cols.values()]
        name = self.index.slice(i, i + 1).to_numpy()[0]
        return Series(np.array(vals, dtype=object), index=list(self._cols), name=name,
                      device="cpu")

    def _col_series(self, k):
        return Series._new(self._cols[k], self.index, k)

    def __getitem__(self, key):
        if isinstance(key, Series) and key._col.dtype == np.bool_ or \
                isinstance(key, (em.ndarray, np.ndarray)) and key.dtype == np.bool_:
            return self._take(_ops.row_selector(key, len(self), self._device))
        if isinstance(key, slice):
            return self._take(key)
        if isinstance(key, (list, tuple, Index)) and not (isinstance(key, tuple)
                                                          and key in self._cols):
            key = list(key)
            if key and isinstance(key[0], (bool, np.bool_)):
                return self._take(_ops.row_selector(np.asarray(key), len(self),
                                                    self._device))
            missing = [k for k in key if k not in self._cols]
            if missing:
                raise KeyError(f"{missing} not in index")
            return DataFrame._new({k: self._cols[k] for k in key}, self.index,
                                  self._device)
        try:
            if key in self._cols:
                return self._col_series(key)
        except TypeError:
            raise TypeError(f"unhashable column key {type(key).__name__}") from None
        raise KeyError(key)

    def __getattr__(self, name):
        cols = self.__dict__.get("_cols")
        if cols is not None and name in cols:
            return self._col_series(name)
        raise AttributeError(f"'DataFrame' object has no attribute {name!r}")

    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        """``np.sqrt(df)``: the Series rule (Series.__array_ufunc__) per column
        when the frame is the only array input; else NumPy on the host values."""
        if method == "__call__" and not kwargs and \
                [x for x in inputs if not np.isscalar(x)] == [self]:
            cols = {}
            for k in self._cols:
                r = getattr(ufunc, method)(*[self._col_series(k) if x is self else x
                                             for x in inputs])
                if not isinstance(r, Series):
                    break
                cols[k] = r._col
            else:
                return DataFrame._new(cols, self.index, self._device)
        host = [x.to_numpy() if isinstance(x, DataFrame) else x for x in inputs]
        return getattr(ufunc, method)(*host, **kwargs)

    def __setitem__(self, key, value):
        if isinstance(key, DataFrame):
            # df[bool_frame] = scalar: each column where its mask column is True
            if set(key._cols) != set(self._cols) or len(key) != len(self):
                raise ValueError("Boolean frame key must have the frame's columns and rows")
            for k in list(self._cols):
                s = self._col_series(k)
                s[key._col_series(k)] = value
                self._cols[k] = s._col
            return
        if isinstance(key, (list, Index)) and isinstance(value, DataFrame):
            # df[[a, b]] = other_frame: its columns by position (Dask's var chunk)
            key = list(key) if isinstance(key, list) else list(key.to_numpy())
            if len(key) != len(value.columns):
                raise ValueError("Columns must be same length as key")
            for k, c in zip(key, value.columns):
                self[k] = value._col_series(c)
            return
        col = column_from_any(value, self._device, len(self))
        if len(col) != len(self) and self._cols:
            raise ValueError(f"Length of values ({len(col)}) does not match length of "
                             f"index ({len(self)})")
        if not self._cols and len(self) == 0:
            self.index = RangeIndex(0, len(col), 1, self._device)
        self._cols[key] = col

    def __delitem__(self, key):
        if key not in self._cols:
            raise KeyError(key)
        del self._cols[key]

    @property
    def iloc(self):
        return _ops.ILoc(self)

    @property
    def loc(self):
        return _ops.Loc(self)

    def head(self, n=5):
        return self.iloc[:n] if n >= 0 else self.iloc[:max(len(self) + n, 0)]

    def tail(self, n=5):
        return self.iloc[max(len(self) - n, 0):] if n > 0 else self.iloc[len(self):]

    # ------------------------------------------------------- column edits
    def assign(self, **kw):
        out = self.copy()
        for k, v in kw.items():
            if callable(v):
                v = v(out)
            out[k] = v
        return out

    def rename(self, columns=None, mapper=None, errors="ignore", **_):
        columns = columns if columns is not None else mapper
        if columns is None:
            return self.copy()
        f = columns if callable(columns) else (lambda k: columns.get(k, k))
        if errors == "raise" and not callable(columns):
            missing = [k for k in columns if k not in self._cols]
            if missing:
                raise KeyError(f"{missing} not found in axis")
        return DataFrame._new({f(k): c for k, c in self._cols.items()}, self.index,
                              self._device)

    def drop(self, labels=None, columns=None, errors="raise", axis=0, index=None):
        if labels is not None and axis in (1, "columns"):
            columns = labels
            labels = None
        if columns is not None:
            columns = [columns] if np.isscalar(columns) or isinstance(columns, tuple) \
                else list(columns)
            missing = [c for c in columns if c not in self._cols]
            if missing and errors == "raise":
                raise KeyError(f"{missing} not found in axis")
            return DataFrame._new({k: c for k, c in self._cols.items() if k not in columns},
                                  self.index, self._device)
        rows = labels if labels is not None else index
        if rows is None:
            raise TypeError("Need to specify at least one of 'labels', 'index' or 'columns'")
        pos, _ = self.index.get_locs(rows)
        keep = np.ones(len(self), dtype=bool)
        keep[pos] = False
        return self._take(em.asarray(np.nonzero(keep)[0].astype(np.int64),
                                     device=self._device))

    def astype(self, dtype, copy=None, errors="raise"):
        if errors not in ("raise", "ignore"):
            raise ValueError("Expected value of kwarg 'errors' to be one of ['raise', "
                             f"'ignore']. Supplied value is '{errors}'")
        if errors == "ignore":
            try:
                return self.astype(dtype)
            except (TypeError, ValueError):
                return self.copy()
        if isinstance(dtype, dict):
            missing = [k for k in dtype if k not in self._cols]
            if missing:
                raise KeyError("Only a column name can be used for the key in a dtype "
                               "mappings argument. '{}' not found in columns."
                               .format(missing[0]))
            return DataFrame._new({k: _ops.astype_column(c, dtype[k]) if k in dtype else c
                                   for k, c in self._cols.items()}, self.index, self._device)
        return DataFrame._new({k: _ops.astype_column(c, dtype) for k, c in self._cols.items()},
                              self.index, self._device)

    def set_index(self, keys, drop=True, append=False):
        """pandas' set_index of columns; append=True keeps the current index's
        levels first (Dask's groupby(split_out>1) puts its keys back so)."""
        keys = [keys] if not isinstance(keys, list) else keys
        for k in keys:
            if k not in self._cols:
                raise KeyError(f"None of {[k]} are in the columns")
        idx = Index([self._cols[k] for k in keys], keys)
        if append:
            idx = Index(self.index.levels + idx.levels, self.index.names + idx.names)
        cols = {k: c for k, c in self._cols.items() if not (drop and k in keys)}
        return DataFrame._new(cols, idx, self._device)

    def reset_index(self, drop=False):
        n = len(self)
        new = RangeIndex(0, n, 1, self._device)
        if drop:
            return DataFrame._new(self._cols, new, self._device)
        cols = {}
        for i, (lv, nm) in enumerate(zip(self.index.levels, self.index.names)):
            name = nm if nm is not None else ("index" if self.index.nlevels == 1
                                              else f"level_{i}")
            if name in self._cols:
                raise ValueError(f"cannot insert {name}, already exists")
            cols[name] = lv
        cols.update(self._cols)
        return DataFrame._new(cols, new, self._device)

    # -------------------------------------------------------------- nulls
    def isna(self):
        return DataFrame._new({k: Column("num", np.bool_, c.isna())
                               for k, c in self._cols.items()}, self.index, self._device)

    isnull = isna

    def notna(self):
        return DataFrame._new({k: Column("num", np.bool_, c.notna())
                               for k, c in self._cols.items()}, self.index, self._device)

    notnull = notna

    def fillna(self, value):
        if isinstance(value, dict):
            return DataFrame._new({k: _ops.fillna_column(c, value[k]) if k in value else c
                                   for k, c in self._cols.items()}, self.index, self._device)
        return DataFrame._new({k: _ops.fillna_column(c, value) for k, c in self._cols.items()},
                              self.index, self._device)

    def dropna(self, how="any", subset=None, ignore_index=False):
        if how not in ("any", "all"):
            raise ValueError(f"invalid how option: {how}")
        names = list(self._cols) if subset is None else (
            [subset] if np.isscalar(subset) else list(subset))
        for k in names:
            if k not in self._cols:
                raise KeyError([k])
        miss = None
        for k in names:
            m = self._cols[k].isna()
            miss = m if miss is None else ((miss | m) if how == "any" else (miss & m))
        out = self if miss is None else self._take(em.nonzero(~miss)[0].astype(np.int64))
        if ignore_index:
            out = out._with_index(RangeIndex(0, len(out), 1, self._device))
        return out

    # ------------------------------------------------------------ sorting
    def sort_values(self, by, ascending=True, na_position="last", ignore_index=False,
                    kind=None):
        by = [by] if not isinstance(by, list) else by
        for k in by:
            if k not in self._cols:
                raise KeyError(k)
        if isinstance(ascending, (list, tuple)):
            if len(ascending) != len(by):
                raise ValueError(f"Length of ascending ({len(ascending)}) != length of by "
                                 f"({len(by)})")
            asc = [bool(a) for a in ascending]
        else:
            asc = [bool(ascending)] * len(by)
        return _ops.sort_frame_like(self, [self._cols[k] for k in by], asc, na_position,
                                    ignore_index)

    def sort_index(self, ascending=True):
        order = _keys.sort_order(self.index.levels, [ascending] * self.index.nlevels)
        return self._take(order)

    def drop_duplicates(self, subset=None, keep="first", ignore_index=False):
        names = list(self._cols) if subset is None else (
            [subset] if np.isscalar(subset) else list(subset))
        for k in names:
            if k not in self._cols:
                raise KeyError(pd_missing(k))
        if len(self) == 0:
            return self.copy()
        sel = _ops.duplicate_positions([self._cols[k] for k in names], keep)
        out = self._take(sel)
        if ignore_index:
            out = out._with_index(RangeIndex(0, len(out), 1, self._device))
        return out

    def duplicated(self, subset=None, keep="first"):
        names = list(self._cols) if subset is None else list(subset)
        sel = _ops.duplicate_positions([self._cols[k] for k in names], keep)
        m = em.ones(len(self), dtype=np.bool_, device=self._device)
        if int(sel.shape[0]):
            m[sel] = em.zeros(int(sel.shape[0]), dtype=np.bool_, device=self._device)
        return Series._new(Column("num", np.bool_, m), self.index, None)

    def value_counts(self, subset=None, sort=True, ascending=False, dropna=True,
                     normalize=False):
        names = list(self._cols) if subset is None else list(subset)
        return _ops.value_counts([self._cols[k] for k in names], names, sort, ascending,
                                 dropna, normalize, "proportion" if normalize else "count")

    # ---------------------------------------------------- group-by / merge
    def groupby(self, by=None, level=None, as_index=True, sort=True, group_keys=True,
                observed=True, dropna=True, axis=0):
        """pandas' keywords: ``level`` groups by index levels (by position or
        name); ``group_keys`` only matters to apply (not here) and is accepted;
        ``observed=False`` is refused for categorical keys."""
        from ._groupby import GroupBy, by_level
        if axis not in (0, "index"):
            raise NotImplementedError("groupby(axis=1) is not supported")
        if level is not None:
            return by_level(self, by, level, as_index=as_index, sort=sort, dropna=dropna,
                            observed=observed)
        return GroupBy(self, by, as_index=as_index, sort=sort, dropna=dropna,
                       observed=observed)

    def merge(self, right, how="inner", on=None, left_on=None, right_on=None,
              left_index=False, right_index=False, sort=False, suffixes=("_x", "_y"),
              copy=None, indicator=False, validate=None):
        from ._merge import merge
        return merge(self, right, how=how, on=on, left_on=left_on, right_on=right_on,
                     left_index=left_index, right_index=right_index, suffixes=suffixes,
                     sort=sort, indicator=indicator, validate=validate)

    # ---------------------------------------------------------- summaries
    def _numeric(self):
        return [k for k, c in self._cols.items() if c.kind == "num" and c.dtype.kind in "iuf"]

    def _get_numeric_data(self):
        """The numeric (and bool) columns, as pandas' private helper Dask calls."""
        keep = [k for k, c in self._cols.items() if c.kind == "num"]
        return DataFrame._new({k: self._cols[k] for k in keep}, self.index, self._device)

    def describe(self):
        from ._describe import describe
        return describe(self)

    def _reduce(self, how, numeric_only=False, **kw):
        names = self._numeric() if numeric_only or how in ("mean", "std", "var") \
            else list(self._cols)
        vals = [_ops.reduce_column(self._cols[k], how, **kw) for k in names]
        return Series(np.array(vals, dtype=np.float64) if how in ("mean", "std", "var")
                      else np.array(vals, dtype=object), index=names, device="cpu")

    def sum(self, numeric_only=False):
        return self._reduce("sum", numeric_only)

    def mean(self, numeric_only=True):
        return self._reduce("mean", numeric_only)

    def min(self, numeric_only=False):
        return self._reduce("min", numeric_only)

    def max(self, numeric_only=False):
        return self._reduce("max", numeric_only)

    def count(self):
        return Series(np.array([len(self) - c.null_count() for c in self._cols.values()],
                               dtype=np.int64), index=list(self._cols), device="cpu")


def pd_missing(k):
    return f"Index([{k!r}], dtype='object')"


def _same_labels(a, b):
    if isinstance(a, RangeIndex) and isinstance(b, RangeIndex):
        return (a.start, a.stop, a.step) == (b.start, b.stop, b.step)
    if len(a) != len(b) or a.nlevels != b.nlevels:
        return False
    if len(a) == 0:
        return True
    for x, y in zip(a.levels, b.levels):
        if x.kind != y.kind or x.kind == "string" or x.has_nulls() or y.has_nulls():
            return False  # decided by the merge below
        if not bool(em.all(x.data == y.data)):
            return False
    return True


def _align_series(data, dev):
    """A dict of Series with the same labels in different orders (the partial
    aggregates Dask's group-by chunks build a frame from) in the sorted order
    of the labels, as pandas aligns them: a left merge of the labels on the
    device.
    Other dicts are returned as they are (positions pair, as before)."""
    vals = list(data.values())
    if len(vals) < 2 or not all(isinstance(v, Series) for v in vals):
        return data
    if all(_same_labels(vals[0].index, v.index) for v in vals[1:]):
        return data
    from ._keys import sort_order  # pandas: the union of the labels, sorted
    lv = vals[0].index.levels
    first = Index(lv, vals[0].index.names).take(sort_order(lv, [True] * len(lv)))
    names = [f"__lv{i}" for i in range(first.nlevels)]

    def frame(idx, extra):
        cols = dict(zip(names, idx.levels))
        cols.update(extra)
        return DataFrame._new(cols, RangeIndex(0, len(idx), 1, dev), dev)
    out = {}
    for k, v in data.items():
        if v.index is first or _same_labels(first, v.index):
            out[k] = v
            continue
        if v.index.nlevels != first.nlevels or len(v) != len(first):
            raise NotImplementedError("a DataFrame from Series with different labels "
                                      "(only a reordering of the same labels is aligned)")
        pos = Column("num", np.int64, em.arange(len(v), dtype=np.int64, device=dev))
        m = frame(first, {}).merge(frame(v.index, {"__pos": pos}), on=names, how="left")
        p = m._cols["__pos"]
        if len(m) != len(first) or p.has_nulls():
            raise NotImplementedError("a DataFrame from Series with different labels "
                                      "(only a reordering of the same labels is aligned)")
        out[k] = Series._new(v._col.take(p.data), first, v.name)
    return out


def concat(objs, axis=0, ignore_index=False, join="outer"):
    """Frames (or Series) stacked by rows (axis=0) or side by side (axis=1)."""
    objs = [o for o in objs if o is not None]
    if not objs:
        raise ValueError("No objects to concatenate")
    if any(not isinstance(o, (DataFrame, Series)) for o in objs):
        raise TypeError("cannot concatenate object of type "
                        f"'{type([o for o in objs if not isinstance(o, (DataFrame, Series))][0])}'"
                        "; only Series and DataFrame objs are valid")
    if axis in (0, "index") and all(isinstance(o, Series) for o in objs):
        # pandas: Series stacked by rows stay a Series, named if all names agree
        names = {o.name for o in objs}
        name = names.pop() if len(names) == 1 else None
        out = concat([DataFrame._new({0: o._col}, o.index) for o in objs], 0, ignore_index)
        return Series._new(out._cols[0], out.index, name)
    frames = [o if isinstance(o, DataFrame) else
              DataFrame._new({o.name if o.name is not None else 0: o._col}, o.index)
              for o in objs]
    dev = frames[0].device
    if axis in (1, "columns"):
        n = len(frames[0])
        if any(len(f) != n for f in frames):
            raise ValueError("concat along columns needs frames of one length "
                             "(index alignment is not implemented)")
        cols = {}
        for f in frames:
            for k, c in f._cols.items():
                if k in cols:
                    raise ValueError(f"duplicate column {k!r} (not supported)")
                cols[k] = c.to_device(dev)
        return DataFrame._new(cols, frames[0].index, dev)
    names = []
    for f in frames:
        for k in f._cols:
            if k not in names:
                names.append(k)
    if join == "inner":
        names = [k for k in names if all(k in f._cols for f in frames)]
    cols = {}
    for k in names:
        like = next(f._cols[k] for f in frames if k in f._cols)
        parts = []
        for f in frames:
            c = f._cols.get(k)
            if c is None:
                c = Column.nulls(like if like.kind != "num" or like.is_float
                                 else Column.from_numpy(np.zeros(0), dev), len(f))
            parts.append(c.to_device(dev))
        kinds = {p.kind for p in parts}
        if len(kinds) > 1:
            raise TypeError(f"cannot concatenate column {k!r} of kinds {sorted(kinds)}")
        cols[k] = concat_columns(parts)
    n = sum(len(f) for f in frames)
    if ignore_index:
        index = RangeIndex(0, n, 1, dev)
    else:
        index = concat_indexes([f.index.to_device(dev) for f in frames])
    return DataFrame._new(cols, index, dev)


def _frame_bin(df, other, name, reflected=False):
    """df <op> other, column by column: a scalar, or a DataFrame with the same
    column names (rows paired by position, as Series do here: no alignment)."""
    from ._series import binary_column
    if isinstance(other, DataFrame):
        if set(other._cols) != set(df._cols):
            raise NotImplementedError("arithmetic between frames of different columns "
                                      "(column alignment) is not supported")
        if len(other) != len(df):
            raise ValueError(f"Lengths must match: {len(df)} vs {len(other)}")
        cols = {k: binary_column(c, other._cols[k], name, reflected)
                for k, c in df._cols.items()}
    elif isinstance(other, (Series, em.ndarray, np.ndarray, list, tuple, dict)):
        raise NotImplementedError(f"DataFrame {name} with a {type(other).__name__} "
                                  "(broadcast along columns) is not supported")
    else:
        cols = {k: binary_column(c, other, name, reflected) for k, c in df._cols.items()}
    return DataFrame._new(cols, df.index, df._device)


def _install_frame_ops():
    from ._series import _ARITH, _CMP
    for nm in _ARITH:
        setattr(DataFrame, f"__{nm}__", lambda s, o, _n=nm: _frame_bin(s, o, _n))
        setattr(DataFrame, f"__r{nm}__", lambda s, o, _n=nm: _frame_bin(s, o, _n, True))
        setattr(DataFrame, nm, lambda s, o, _n=nm: _frame_bin(s, o, _n))
    for nm in _CMP:  # column by column, as pandas (Dask's var finalizer: div[div < 0])
        setattr(DataFrame, f"__{nm}__", lambda s, o, _n=nm: _frame_bin(s, o, _n))
        setattr(DataFrame, nm, lambda s, o, _n=nm: _frame_bin(s, o, _n))
    DataFrame.__hash__ = None  # == is elementwise now, as pandas'


_install_frame_ops()
