"""Series: one Column with an Index and a name. Arithmetic and comparisons are
Ember array operators on the columns' data, so a chain of them stays lazy and
Ember fuses it into one kernel; validity masks combine with `&` in the same
expression."""
import operator

import numpy as np

import ember as em

from ._column import Column
from ._convert import column_from_any, column_to_pandas
from ._index import Index, RangeIndex

_ARITH = {
    "add": operator.add, "sub": operator.sub, "mul": operator.mul,
    "truediv": operator.truediv, "floordiv": operator.floordiv, "mod": operator.mod,
    "pow": operator.pow,
}
_CMP = {"eq": operator.eq, "ne": operator.ne, "lt": operator.lt, "le": operator.le,
        "gt": operator.gt, "ge": operator.ge}
_LOGIC = {"and": operator.and_, "or": operator.or_, "xor": operator.xor}


def _operand(other, device):
    """(data, validity-or-None, kind) of the other operand."""
    if isinstance(other, Series):
        c = other._col
    elif isinstance(other, Column):
        c = other
    elif isinstance(other, em.ndarray):
        return other, None, "num"
    elif isinstance(other, np.ndarray):
        return em.asarray(other, device=device), None, "num"
    else:
        return other, None, "scalar"
    if c.kind not in ("num", "datetime", "timedelta"):
        raise TypeError(f"arithmetic on a {c.kind} column is not supported yet")
    return c.data, c.validity, c.kind


def binary_column(col, other, name, reflected=False):
    """col <op> other as a new Column: lazily fused Ember expressions."""
    if col.kind not in ("num", "datetime", "timedelta"):
        if name in ("eq", "ne") and col.kind == "string" and isinstance(other, str):
            return _string_eq(col, other, name == "ne")
        raise TypeError(f"unsupported operand for a {col.kind} column: {name}")
    odata, ovalid, okind = _operand(other, col.device)
    if okind != "scalar" and int(odata.shape[0]) != len(col):
        raise ValueError(f"Lengths must match: {len(col)} vs {int(odata.shape[0])}")
    a, b = (odata, col.data) if reflected else (col.data, odata)
    validity = col.validity
    if ovalid is not None:
        validity = ovalid if validity is None else (validity & ovalid)
    if name in _CMP:
        data = _CMP[name](a, b)
        # pandas: a comparison with a missing value is False (True for !=)
        miss = None
        if validity is not None:
            miss = ~validity
        if col.is_float or (okind == "num" and odata.dtype.kind in "fc"):
            pass  # NaN compares as pandas does through IEEE (False; != True)
        if miss is not None:
            data = (data | miss) if name == "ne" else (data & validity)
        return Column("num", np.bool_, data)
    if name in _LOGIC:
        data = _LOGIC[name](a, b)
        return Column("num", data.dtype, data, validity=validity)
    data = _ARITH[name](a, b)
    kind, unit = "num", None
    if col.kind in ("datetime", "timedelta") and okind in ("datetime", "timedelta"):
        kind = "timedelta"
        unit = col.unit
    dtype = data.dtype if kind == "num" else np.dtype(f"m8[{unit}]")
    return Column(kind, dtype, data, validity=validity, unit=unit)


def _string_eq(col, value, negate):
    """col == value (!= with negate) on the device (pandas' null semantics)."""
    from . import _strings
    return _strings.eq_scalar(col, value, negate)


def same_labels(a, b):
    """Whether two indexes hold the same labels in the same order (then Series
    operations pair rows by position, as pandas does without aligning)."""
    if a is b:
        return True
    if len(a) != len(b) or a.nlevels != b.nlevels:
        return False
    if isinstance(a, RangeIndex) and isinstance(b, RangeIndex):
        return len(a) == 0 or (a.start == b.start and a.step == b.step)
    if len(a) == 0:
        return True
    from ._column import concat_columns
    from ._keys import segments
    for la, lb in zip(a.levels, b.levels):
        if la.kind != lb.kind:
            return False
        if la.kind == "num" and la.validity is None and lb.validity is None \
                and not (la.is_float or lb.is_float):
            if not bool(em.all(la.data == _to_dev(lb.data, la.device))):
                return False
            continue
        # any kind, nulls equal to nulls: joint codes of the two levels stacked
        codes = segments([concat_columns([la, lb.to_device(la.device)])]).codes
        n = len(la)
        if not bool(em.all(codes[:n] == codes[n:])):
            return False
    return True


class _Cat:
    def __init__(self, s):
        self._s = s

    @property
    def codes(self):
        c = self._s._col
        return Series._new(Column("num", c.data.dtype, c.data), self._s.index, None)

    @property
    def categories(self):
        import pandas as pd
        return pd.Index(column_to_pandas(self._s._col.categories))


def pandas_dtype(col):
    """pandas' dtype of a Column as to_pandas gives it: numbers (with pandas'
    null model) from the Column; strings, categories and datetimes from an
    empty slice converted by pandas (NumPy's dtype without pandas)."""
    if col.kind == "num":
        return Series._new(col, None, None).to_pandas_dtype()
    try:
        import pandas  # noqa: F401
    except ImportError:
        return Series._new(col, None, None).to_pandas_dtype()
    return column_to_pandas(col.slice(0, 0)).dtype


def _to_dev(x, device):
    return x if str(x.device) == str(device) else em.asarray(x, device=device)


class Series:
    """A one-column labelled array on one device (pandas' Series, common path)."""

    def __init__(self, data=None, index=None, name=None, dtype=None, device=None):
        if data is None:
            data = []
        if index is None and type(data).__name__ == "Series" and \
                type(data).__module__.startswith("pandas"):
            # pandas' Series(s) keeps s's index (and name unless one is given)
            s = Series.from_pandas(data, device)
            index, name = s.index, (data.name if name is None else name)
            data = s._col
        col = column_from_any(data, device)
        if dtype is not None:
            from ._ops import astype_column
            col = astype_column(col, dtype)
        self._col = col
        self.name = name
        if index is None:
            index = RangeIndex(0, len(col), 1, col.device)
        elif not isinstance(index, Index):
            index = Index([column_from_any(index, col.device)], [None])
        if len(index) != len(col):
            raise ValueError(f"Length of values ({len(col)}) does not match length of "
                             f"index ({len(index)})")
        self.index = index

    @classmethod
    def _new(cls, col, index, name):
        s = cls.__new__(cls)
        s._col, s.index, s.name = col, index, name
        return s

    def _with(self, col):
        return Series._new(col, self.index, self.name)

    # ------------------------------------------------------------ basics
    def __len__(self):
        return len(self._col)

    @property
    def shape(self):
        return (len(self),)

    @property
    def ndim(self):
        return 1

    @property
    def size(self):
        return len(self)

    @property
    def dtype(self):
        """pandas' dtype of the values as to_pandas gives them (str, category,
        datetime64[unit] for those kinds where pandas imports)."""
        return pandas_dtype(self._col)

    @property
    def cat(self):
        """pandas' ``.cat`` accessor for a categorical Series: ``codes`` (a
        Series on the device, -1 for nulls) and ``categories`` (a pandas
        Index, read on the host: the dictionary is small)."""
        if self._col.kind != "category":
            raise AttributeError("Can only use .cat accessor with a 'category' dtype")
        return _Cat(self)

    def reset_index(self, level=None, drop=False, name=None):
        """pandas' reset_index: with drop, the values on a RangeIndex; else a
        frame of the index levels and the values (named name, the Series'
        name, or 0)."""
        if level is not None:
            raise NotImplementedError("Series.reset_index(level=...) is not supported")
        if drop:
            return Series._new(self._col, RangeIndex(0, len(self), 1, self.device), self.name)
        nm = name if name is not None else (self.name if self.name is not None else 0)
        return self.to_frame(nm).reset_index()

    def to_frame(self, name=None):
        from ._frame import DataFrame
        nm = self.name if name is None else name
        nm = 0 if nm is None else nm
        return DataFrame._new({nm: self._col}, self.index, self.device)

    def to_pandas_dtype(self):
        c = self._col
        if c.kind == "string":
            return np.dtype("O")
        if c.kind == "num" and c.validity is not None and c.has_nulls():
            return np.dtype(np.float64) if c.dtype.kind in "iu" else \
                (np.dtype("O") if c.dtype == np.bool_ else c.dtype)
        return c.dtype

    @property
    def device(self):
        return self._col.device

    @property
    def values(self):
        """The values as an Ember array (numbers) on the device."""
        return self._col.data

    @property
    def array(self):
        return self._col.data

    def to_numpy(self, na_value=None):
        return self._col.to_numpy(na_value=na_value)

    def to_pandas(self):
        return column_to_pandas(self._col, self.name, self.index.to_pandas())

    @classmethod
    def from_pandas(cls, s, device=None):
        from ._convert import column_from_pandas
        col = column_from_pandas(s, device)
        idx = _index_from_pandas(s.index, device)
        return cls._new(col, idx, s.name)

    def to_device(self, device):
        return Series._new(self._col.to_device(device), self.index.to_device(device),
                           self.name)

    def copy(self, deep=True):
        return Series._new(self._col, self.index, self.name)

    def __iter__(self):
        return iter(self.to_numpy().tolist())

    def tolist(self):
        return self.to_numpy().tolist()

    def __repr__(self):
        from ._format import format_series
        return format_series(self)

    def rename(self, name):
        return Series._new(self._col, self.index, name)

    # ---------------------------------------------------------- operators
    def _bin(self, other, name, reflected=False):
        if isinstance(other, Series) and not same_labels(self.index, other.index):
            if name in _CMP:
                raise ValueError("Can only compare identically-labeled Series objects")
            return self._aligned(other, name, reflected)
        col = binary_column(self._col, other, name, reflected)
        # pandas keeps the name only when both operands share it
        nm = self.name if not isinstance(other, Series) or other.name == self.name else None
        return Series._new(col, self.index, nm)

    def _aligned(self, other, name, reflected):
        """self <op> other on the union of their labels, sorted (pandas'
        alignment): an outer merge of the two indexes on the device gives each
        label's row on either side; a label missing on one side gives a null.
        Repeated labels pair as pandas pairs them (every row with every row)."""
        from ._frame import DataFrame
        if self.index.nlevels != 1 or other.index.nlevels != 1:
            raise NotImplementedError("aligning Series on a MultiIndex by labels is not "
                                      "supported; reset_index() first")
        dev = self.device
        other = other.to_device(dev) if str(other.device) != str(dev) else other

        def side(s, pos):
            n = len(s)
            return DataFrame._new({"k": s.index.levels[0],
                                   pos: Column("num", np.int64,
                                               em.arange(n, dtype=np.int64, device=dev))},
                                  RangeIndex(0, n, 1, dev), dev)
        if len(self) == 0 or len(other) == 0:
            # one side empty (its index may hold no type to merge on): the other's
            # labels sorted, every value null
            from ._keys import sort_order
            full = self if len(self) else other
            order = sort_order([full.index.levels[0]], [True])
            none = em.full(int(order.shape[0]), -1, dtype=np.int64, device=dev)
            pl, pr = (order, none) if len(self) else (none, order)
            key = full.index.levels[0].take(order)
        else:
            m = side(self, "l").merge(side(other, "r"), on="k", how="outer", sort=True)

            def rows(c):
                return c.data if c.validity is None else em.where(c.validity, c.data, -1)
            pl, pr, key = rows(m._cols["l"]), rows(m._cols["r"]), m._cols["k"]
        a = self._col.take(pl, allow_fill=True)
        b = other._col.take(pr, allow_fill=True)
        col = binary_column(a, b, name, reflected)
        nm = self.name if other.name == self.name else None
        iname = self.index.names[0] if self.index.names[0] == other.index.names[0] else None
        return Series._new(col, Index([key], [iname]), nm)

    def __invert__(self):
        if self._col.dtype != np.bool_ and self._col.dtype.kind not in "iu":
            raise TypeError("bad operand type for unary ~")
        return self._with(self._col._replace(data=~self._col.data))

    def __neg__(self):
        return self._with(self._col._replace(data=-self._col.data))

    def __abs__(self):
        return self._with(self._col._replace(data=em.abs(self._col.data)))

    def abs(self):
        return abs(self)

    # ------------------------------------------------------------- nulls
    def isna(self):
        return self._with(Column("num", np.bool_, self._col.isna()))

    isnull = isna

    def notna(self):
        return self._with(Column("num", np.bool_, self._col.notna()))

    notnull = notna

    def fillna(self, value):
        from ._ops import fillna_column
        return self._with(fillna_column(self._col, value))

    def dropna(self):
        from ._ops import take_rows
        keep = self._col.notna()
        idx = em.nonzero(keep)[0]
        col, index = take_rows([self._col], self.index, idx)
        return Series._new(col[0], index, self.name)

    def astype(self, dtype, copy=None, errors="raise"):
        from ._ops import astype_column
        if errors not in ("raise", "ignore"):
            raise ValueError("Expected value of kwarg 'errors' to be one of ['raise', "
                             f"'ignore']. Supplied value is '{errors}'")
        try:
            return self._with(astype_column(self._col, dtype))
        except (TypeError, ValueError):
            if errors == "ignore":
                return self.copy()
            raise

    def groupby(self, by=None, level=None, as_index=True, sort=True, group_keys=True,
                observed=True, dropna=True):
        """Group the values by index levels (``level=``), a column-like key of
        the same length (a Series, by position), or a list of those."""
        from ._groupby import series_groupby
        return series_groupby(self, by, level, as_index=as_index, sort=sort, dropna=dropna,
                              observed=observed)

    # --------------------------------------------------------- selection
    def __getitem__(self, key):
        from ._ops import row_selector, take_rows
        if isinstance(key, Series) and key._col.dtype == np.bool_ or \
                isinstance(key, (slice, em.ndarray, np.ndarray, list)):
            sel = row_selector(key, len(self), self.device)
            col, index = take_rows([self._col], self.index, sel)
            return Series._new(col[0], index, self.name)
        pos, single = self.index.get_locs(key)
        return self.iloc[pos[0]] if single else self.iloc[pos]

    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        """``np.sqrt(s)`` and the like: a numeric Series and scalars through Ember's
        ufunc of that name on the device, labels and name kept (Dask's std
        finalizer calls np.sqrt on a Series).  Anything else goes through NumPy
        on the host values, as before."""
        fn = getattr(em, ufunc.__name__, None)
        series = [x for x in inputs if isinstance(x, Series)]
        if (method == "__call__" and not kwargs and fn is not None and len(series) == 1
                and series[0]._col.kind == "num"
                and all(isinstance(x, Series) or np.isscalar(x) for x in inputs)):
            col = series[0]._col
            out = fn(*[col.data if isinstance(x, Series) else x for x in inputs])
            if isinstance(out, em.ndarray) and out.shape == col.data.shape:
                return self._with(col._replace(data=out, dtype=out.dtype))
        host = [x.to_numpy() if isinstance(x, Series) else x for x in inputs]
        return getattr(ufunc, method)(*host, **kwargs)

    def __setitem__(self, key, value):
        """``s[mask] = scalar`` (a bool Series / Ember / NumPy mask): where the mask
        is True the value (None or NaN: a null; an int column takes NaN as
        float64, as pandas does). The Series gets a new column: a frame it came
        from is unchanged (pandas' copy-on-write)."""
        if not (isinstance(key, Series) and key._col.dtype == np.bool_ or
                isinstance(key, (em.ndarray, np.ndarray)) and key.dtype == np.bool_):
            raise TypeError("Series item assignment takes a boolean mask")
        if not np.isscalar(value) and value is not None:
            raise TypeError("Series item assignment takes a scalar value")
        col = self._col
        if col.kind != "num":
            raise TypeError(f"cannot assign into a {col.kind} Series")
        if len(key) != len(self):
            raise IndexError(f"Boolean index has wrong length: {len(key)} instead of "
                             f"{len(self)}")
        m = key._col.data if isinstance(key, Series) else em.asarray(key, device=self.device)
        if isinstance(key, Series) and key._col.validity is not None:
            m = m & key._col.validity
        null = value is None or (isinstance(value, float) and value != value)
        data, dtype = col.data, col.dtype
        if null and dtype.kind not in "fc":
            dtype = np.dtype(np.float64)  # pandas: NaN into ints gives float64
            data = data.astype(dtype)
        v = np.nan if null else value
        out = em.where(m, em.asarray(v, dtype=np.result_type(dtype, np.min_scalar_type(v))
                                     if not null else dtype, device=self.device), data)
        validity = col.validity
        if validity is not None:
            validity = validity | m
        self._col = col._replace(data=out, dtype=out.dtype,
                                 validity=validity)

    def _take(self, sel):
        from ._ops import take_rows
        col, index = take_rows([self._col], self.index, sel)
        return Series._new(col[0], index, self.name)

    @property
    def iloc(self):
        from ._ops import ILoc
        return ILoc(self)

    @property
    def loc(self):
        from ._ops import Loc
        return Loc(self)

    def head(self, n=5):
        return self.iloc[:n] if n >= 0 else self.iloc[:max(len(self) + n, 0)]

    def tail(self, n=5):
        return self.iloc[max(len(self) - n, 0):] if n > 0 else self.iloc[len(self):]

    def sort_values(self, ascending=True, na_position="last", ignore_index=False):
        from ._ops import sort_frame_like
        return sort_frame_like(self, [self._col], [bool(ascending)], na_position,
                               ignore_index)

    def value_counts(self, sort=True, ascending=False, dropna=True, normalize=False):
        from ._ops import value_counts
        return value_counts([self._col], [self.name], sort, ascending, dropna, normalize,
                            "proportion" if normalize else "count")

    def unique(self):
        from ._ops import drop_duplicate_rows
        return drop_duplicate_rows([self._col], "first").to_numpy()

    def nunique(self, dropna=True):
        from ._ops import drop_duplicate_rows
        u = drop_duplicate_rows([self._col], "first")
        return len(u) - (int(u.null_count()) if dropna else 0)

    def drop_duplicates(self, keep="first"):
        from ._ops import duplicate_positions, take_rows
        sel = duplicate_positions([self._col], keep)
        col, index = take_rows([self._col], self.index, sel)
        return Series._new(col[0], index, self.name)

    def isin(self, values):
        from ._ops import isin_column
        return self._with(isin_column(self._col, values))

    # -------------------------------------------------------- reductions
    def _reduce(self, how, **kw):
        from ._ops import reduce_column
        return reduce_column(self._col, how, **kw)

    def sum(self):
        return self._reduce("sum")

    def mean(self):
        return self._reduce("mean")

    def min(self):
        return self._reduce("min")

    def max(self):
        return self._reduce("max")

    def count(self):
        return len(self) - self._col.null_count()

    def std(self, ddof=1):
        return self._reduce("std", ddof=ddof)

    def var(self, ddof=1):
        return self._reduce("var", ddof=ddof)

    def describe(self):
        from ._frame import DataFrame
        return DataFrame({self.name if self.name is not None else 0: self}).describe() \
            .iloc[:, 0]


def _index_from_pandas(pidx, device):
    import pandas as pd
    from ._convert import column_from_pandas
    if isinstance(pidx, pd.RangeIndex):
        return RangeIndex(pidx.start, pidx.stop, pidx.step, device, pidx.name)
    if isinstance(pidx, pd.MultiIndex):
        return Index([column_from_pandas(pidx.get_level_values(i).to_series(), device)
                      for i in range(pidx.nlevels)], list(pidx.names))
    return Index([column_from_pandas(pidx.to_series(), device)], [pidx.name])


def _install_ops():
    for nm in _ARITH:
        setattr(Series, f"__{nm}__", lambda s, o, _n=nm: s._bin(o, _n))
        setattr(Series, f"__r{nm}__", lambda s, o, _n=nm: s._bin(o, _n, True))
        setattr(Series, nm, lambda s, o, _n=nm: s._bin(o, _n))
    for nm in _CMP:
        setattr(Series, f"__{nm}__", lambda s, o, _n=nm: s._bin(o, _n))
        setattr(Series, nm, lambda s, o, _n=nm: s._bin(o, _n))
    for nm in _LOGIC:
        setattr(Series, f"__{nm}__", lambda s, o, _n=nm: s._bin(o, _n))
        setattr(Series, f"__r{nm}__", lambda s, o, _n=nm: s._bin(o, _n, True))


_install_ops()
Series.__hash__ = None
