"""Row operations shared by Series and DataFrame: selection (iloc/loc, masks),
nulls, casts, sorting, duplicates, value counts and whole-column reductions.
All on the device through Ember ops unless a comment says otherwise."""
import numpy as np

import ember as em
from ember import _host

from ._column import Column
from ._index import Index, RangeIndex
from . import _keys


# ------------------------------------------------------------- selection
def row_selector(key, n, device):
    """A slice (kept as a slice: views), or an int64 Ember array of positions,
    from a slice, bool mask (Series/Ember/NumPy/list) or integer positions."""
    from ._series import Series
    if isinstance(key, slice):
        return key
    if isinstance(key, Series):
        if key._col.dtype != np.bool_:
            key = key._col.data
        else:
            if len(key) != n:
                raise ValueError(f"Item wrong length {len(key)} instead of {n}.")
            m = key._col.data
            if key._col.validity is not None:
                m = m & key._col.validity
            return _positions(m)
    if isinstance(key, (list, tuple, range)):
        key = np.asarray(key)
        if key.dtype.kind not in "biu" and len(key):
            raise IndexError("positions must be integers or booleans")
        if not len(key):
            key = key.astype(np.int64)
    if isinstance(key, np.ndarray):
        key = em.asarray(key, device=device)
    if isinstance(key, em.ndarray):
        if key.dtype == np.bool_:
            if int(key.shape[0]) != n:
                raise IndexError(f"Boolean index has wrong length: {int(key.shape[0])} "
                                 f"instead of {n}")
            return _positions(key)
        if key.dtype.kind not in "iu":
            raise IndexError("positions must be integers")
        key = key.astype(np.int64)
        if int(key.shape[0]):
            lo, hi = int(em.min(key)), int(em.max(key))
            if lo < -n or hi >= n:
                raise IndexError("positional indexers are out-of-bounds")
            if lo < 0:
                key = em.where(key < 0, key + n, key)
        return key
    if isinstance(key, (int, np.integer)):
        return int(key)
    raise TypeError(f"cannot select rows with {type(key).__name__}")


def _positions(mask):
    """int64 positions of the True rows of a 1-d bool Ember array.  On the CPU,
    NumPy's flatnonzero on the shared buffer (one SIMD counting pass, then the
    writes: 4-5x less CPU time than em.nonzero's loop there today, whose
    kernels issue 19 owns), wrapped without a copy; elsewhere em.nonzero."""
    if mask._dev[0] == "cpu":
        return em.asarray(np.flatnonzero(np.asarray(mask)).astype(np.int64, copy=False))
    pos = em.nonzero(mask)[0]
    return pos if pos.dtype == np.int64 else pos.astype(np.int64)


def take_rows(cols, index, sel):
    """Columns and index at a row selector (slice or positions)."""
    if isinstance(sel, slice):
        n = len(index)
        start, stop, step = sel.indices(n)
        if step == 1:
            return [c.slice(start, stop) for c in cols], index.slice(start, stop)
        sel = em.arange(start, stop, step, dtype=np.int64, device=cols[0].device
                        if cols else index.device)
    return [c.take(sel) for c in cols], index.take(sel)


class ILoc:
    """obj.iloc[rows] / obj.iloc[rows, cols] by position."""

    def __init__(self, obj):
        self.obj = obj

    def __getitem__(self, key):
        from ._frame import DataFrame
        obj = self.obj
        cols_key = None
        if isinstance(key, tuple) and isinstance(obj, DataFrame):
            key, cols_key = key
        if cols_key is not None:
            names = list(obj._cols)
            if isinstance(cols_key, (int, np.integer)):
                return ILoc(obj[names[cols_key]])[key]
            picked = names[cols_key] if isinstance(cols_key, slice) else \
                [names[i] for i in cols_key]
            obj = obj[picked]
        n = len(obj)
        sel = row_selector(key, n, obj.device)
        if isinstance(sel, int):
            if not -n <= sel < n:
                raise IndexError("single positional indexer is out-of-bounds")
            sel = sel % n
            if isinstance(obj, DataFrame):
                return obj._row(sel)
            return obj._col.slice(sel, sel + 1).to_numpy()[0]
        return obj._take(sel)


class Loc:
    """obj.loc[rows] / obj.loc[rows, cols] by label (bool masks too)."""

    def __init__(self, obj):
        self.obj = obj

    def __getitem__(self, key):
        from ._frame import DataFrame
        from ._series import Series
        obj = self.obj
        cols_key = None
        if isinstance(key, tuple) and isinstance(obj, DataFrame):
            key, cols_key = key
        if cols_key is not None and not (isinstance(cols_key, slice) and
                                         cols_key == slice(None)):
            if isinstance(cols_key, slice):
                names = list(obj._cols)
                i0 = names.index(cols_key.start) if cols_key.start is not None else 0
                i1 = names.index(cols_key.stop) + 1 if cols_key.stop is not None \
                    else len(names)
                cols_key = names[i0:i1]
            obj = obj[cols_key]
        if isinstance(key, slice):
            if key == slice(None):
                return obj
            if isinstance(obj.index, RangeIndex) and key.step in (None, 1):
                # label slices include their end
                r = range(obj.index.start, obj.index.stop, obj.index.step)
                a = 0 if key.start is None else _range_pos(r, key.start, "left")
                b = len(r) if key.stop is None else _range_pos(r, key.stop, "right")
                return obj._take(slice(a, max(a, b)))
            raise NotImplementedError("label slices need a RangeIndex for now")
        if isinstance(key, (Series, em.ndarray, np.ndarray)) or (
                isinstance(key, list) and key and isinstance(key[0], (bool, np.bool_))):
            arr = key
            if isinstance(key, list):
                arr = np.asarray(key)
            dt = arr._col.dtype if isinstance(arr, Series) else arr.dtype
            if dt == np.bool_:
                return obj._take(row_selector(arr, len(obj), obj.device))
            key = arr.to_numpy().tolist() if isinstance(arr, Series) else \
                np.asarray(em.asnumpy(arr) if isinstance(arr, em.ndarray) else arr).tolist()
        pos, single = obj.index.get_locs(key)
        if single:
            return ILoc(obj)[pos[0]]
        return obj._take(em.asarray(np.asarray(pos, dtype=np.int64), device=obj.device))


def _range_pos(r, label, side):
    import bisect
    vals = r if r.step > 0 else None
    if vals is None:
        raise NotImplementedError("label slices on a decreasing RangeIndex")
    lst = range(r.start, r.stop, r.step)
    i = bisect.bisect_left(lst, label) if side == "left" else bisect.bisect_right(lst, label)
    return i


# ---------------------------------------------------------------- nulls
def fillna_column(col, value):
    if col.kind == "string":
        if not isinstance(value, str):
            raise TypeError("a string column can only be filled with a str")
        _host.warn_fallback("frame.string_fillna", col.device)
        vals = col.to_numpy()
        return Column.from_numpy(np.where(np.array([v is None for v in vals], dtype=bool),
                                          value, vals).astype(object), col.device)
    if col.kind != "num":
        raise NotImplementedError(f"fillna on a {col.kind} column")
    if col.validity is None and not col.is_float:
        return col
    if isinstance(value, (str, bytes)):
        raise TypeError(f"cannot fill a {col.dtype} column with {value!r}")
    dtype = col.dtype
    if dtype.kind in "iub" and isinstance(value, float) and not float(value).is_integer():
        dtype = np.dtype(np.float64)
    data = col.data.astype(dtype)
    filled = em.where(col.isna(), em.asarray(np.array([value], dtype=dtype),
                                             device=col.device), data)
    return Column("num", dtype, filled)


def astype_column(col, dtype):
    """Cast: numbers among themselves on the device; to/from str and datetimes
    through NumPy on the host."""
    if dtype in (str, "str", "string") or (isinstance(dtype, str) and dtype == "object"):
        _host.warn_fallback("frame.astype_host", col.device)
        vals = col.to_numpy()
        miss = em.asnumpy(col.isna())
        out = np.array([None if z else str(v) for v, z in zip(vals.tolist(), miss)],
                       dtype=object)
        return Column.from_numpy(out, col.device)
    if dtype == "category":
        from ._strings import to_category  # codes and categories on the device
        return to_category(col)
    dt = np.dtype(dtype)
    if dt.kind in "Mm" or col.kind != "num":
        _host.warn_fallback("frame.astype_host", col.device)
        vals = col.to_numpy()
        try:
            return Column.from_numpy(vals.astype(dt), col.device)
        except (ValueError, TypeError) as e:
            raise ValueError(f"cannot cast {col.kind} values to {dt}: {e}") from None
    if dt.kind in "iub" and col.has_nulls():
        raise ValueError("Cannot convert non-finite values (NA or inf) to integer")
    return Column("num", dt, col.data.astype(dt))


def isin_column(col, values):
    vals = values.to_numpy() if hasattr(values, "to_numpy") else np.asarray(list(values))
    if col.kind == "string":
        _host.warn_fallback("frame.string_isin", col.device)
        s = set(v for v in vals.tolist() if isinstance(v, str))
        host = col.to_numpy()
        return Column.from_numpy(np.array([v in s for v in host], dtype=bool), col.device)
    if col.kind != "num":
        raise NotImplementedError(f"isin on a {col.kind} column")
    test = em.asarray(np.asarray(vals, dtype=col.dtype), device=col.device) if len(vals) \
        else em.zeros(0, dtype=col.dtype, device=col.device)
    m = em.isin(col.data, test)
    if col.validity is not None:
        m = m & col.validity
    return Column("num", np.bool_, m)


# -------------------------------------------------------- sort / duplicates
def sort_frame_like(obj, key_cols, ascending, na_position, ignore_index):
    if na_position not in ("first", "last"):
        raise ValueError(f"invalid na_position: {na_position}")
    order = _keys.sort_order(key_cols, ascending, na_last=na_position == "last")
    out = obj._take(order)
    if ignore_index:
        out = out._with_index(RangeIndex(0, len(out), 1, out.device))
    return out


def duplicate_positions(cols, keep):
    """Sorted positions of the rows to keep (pandas' drop_duplicates)."""
    if keep not in ("first", "last", False):
        raise ValueError('keep must be either "first", "last" or False')
    seg = _keys.segments(cols)
    dev = cols[0].device
    if seg.n == 0:
        return em.zeros(0, dtype=np.int64, device=dev)
    if keep == "first":
        pos = seg.order[seg.starts]
    elif keep == "last":
        pos = seg.order[seg.ends - 1]
    else:
        single = (seg.ends - seg.starts) == 1
        pos = seg.order[seg.starts[single]] if bool(em.any(single)) else \
            em.zeros(0, dtype=np.int64, device=dev)
    return em.sort(pos)


def drop_duplicate_rows(cols, keep):
    sel = duplicate_positions(cols, keep)
    return cols[0].take(sel)


def value_counts(cols, names, sort, ascending, dropna, normalize, label):
    from ._series import Series
    dev = cols[0].device
    work = cols
    if dropna:
        miss = _keys.any_null(cols)
        if miss is not None:
            keep = em.nonzero(~miss)[0]
            work = [c.take(keep) for c in cols]
    seg = _keys.segments(work)
    counts = (seg.ends - seg.starts).astype(np.int64)
    first = seg.order[seg.starts] if seg.n else em.zeros(0, dtype=np.int64, device=dev)
    keys = [c.take(first) for c in work]
    # pandas lists equal counts in the order the values first appear
    if sort:
        sk = -counts if not ascending else counts
        order = em.lexsort([first, sk]).astype(np.int64) if seg.n else first
    else:
        order = em.argsort(first, stable=True).astype(np.int64) if seg.n else first
    keys = [k.take(order) for k in keys]
    counts = counts[order]
    data = counts.astype(np.float64) / float(max(int(em.sum(counts)) if seg.n else 0, 1)) \
        if normalize else counts
    idx = Index(keys, names)
    return Series._new(Column("num", data.dtype, data), idx, label)


# ------------------------------------------------------------ reductions
def reduce_column(col, how, ddof=1):
    """A whole-column reduction skipping nulls, as a Python scalar (pandas')."""
    if col.kind != "num":
        if how in ("min", "max") and col.kind in ("string", "datetime", "timedelta"):
            _host.warn_fallback("frame.reduce_host", col.device)
            vals = col.to_numpy()
            ok = ~em.asnumpy(col.isna())
            v = vals[ok]
            if not len(v):
                return np.nan
            return (min if how == "min" else max)(v.tolist()) if col.kind == "string" \
                else (v.min() if how == "min" else v.max())
        raise TypeError(f"Cannot perform reduction '{how}' with {col.kind} dtype")
    if col.dtype.kind == "c" and how in ("min", "max"):
        raise TypeError(f"Cannot perform reduction '{how}' with complex dtype")
    ok = col.notna()
    cnt = int(em.sum(ok))
    x = col.data
    if how == "sum":
        z = em.where(ok, x, em.zeros(1, dtype=x.dtype, device=col.device))
        r = em.sum(z)
        return r.item() if hasattr(r, "item") else r
    if how in ("min", "max"):
        if cnt == 0:
            return np.nan
        v = x[em.nonzero(ok)[0]]
        return (em.min(v) if how == "min" else em.max(v)).item()
    xf = x.astype(np.float64) if x.dtype.kind in "biu" else x
    zero = em.zeros(1, dtype=xf.dtype, device=col.device)
    z = em.where(ok, xf, zero)
    if how == "mean":
        return float(em.sum(z)) / cnt if cnt else np.nan
    if how in ("var", "std"):
        if cnt - ddof <= 0:
            return np.nan
        m = em.sum(z) / cnt
        d = em.where(ok, xf - m, zero)
        v = float(em.sum(d * d)) / (cnt - ddof)
        return float(np.sqrt(v)) if how == "std" else v
    raise ValueError(f"unknown reduction {how!r}")
