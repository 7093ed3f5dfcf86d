"""Conversions between Columns and host objects (pandas, NumPy, Python values),
and categories from values. These run on the host by nature (pandas is a host
library); frameio's Arrow path moves buffers without decoding them."""
import numpy as np

import ember as em

from ._column import Column


def _pd():
    try:
        import pandas as pd
    except ImportError as e:  # pragma: no cover - pandas is the optional extra
        raise ImportError("this needs pandas (pip install 'ember[frames]')") from e
    return pd


def category_from_values(values, device, categories=None):
    """A category Column from host values: the dictionary is the sorted distinct
    non-null values (pandas' default) unless `categories` is given."""
    values = np.asarray(values, dtype=object)
    null = np.array([v is None or (isinstance(v, float) and v != v) for v in values],
                    dtype=bool)
    if categories is None:
        categories = np.array(sorted(set(values[~null].tolist())), dtype=object)
    categories = np.asarray(categories)
    lookup = {v: i for i, v in enumerate(categories.tolist())}
    codes = np.array([-1 if z else lookup.get(v, -1) for v, z in zip(values, null)],
                     dtype=np.int64)
    return _category(codes, categories, device)


def _category(codes, categories, device):
    ct = np.int8 if len(categories) < 128 else (np.int16 if len(categories) < 32768
                                                else np.int32)
    if categories.dtype.kind in "OUS":
        cats = Column.from_numpy(np.asarray(categories, dtype=object), device)
    else:
        cats = Column.from_numpy(np.asarray(categories), device)
    miss = codes < 0
    return Column("category", ct, em.asarray(codes.astype(ct), device=device),
                  validity=em.asarray(~miss, device=device) if miss.any() else None,
                  categories=cats)


def column_from_any(values, device, n=None):
    """A Column from a Column, Series, Ember/NumPy array, pandas Series, list or
    scalar (broadcast to n rows)."""
    from ._series import Series
    if isinstance(values, Column):
        return values if device is None else values.to_device(device)
    if isinstance(values, Series):
        return values._col if device is None else values._col.to_device(device)
    if isinstance(values, em.ndarray):
        if values.ndim != 1:
            raise ValueError(f"a column needs 1-d values, got shape {values.shape}")
        return Column.from_numpy(values, device)
    try:
        pd = __import__("pandas")
    except ImportError:
        pd = None
    if pd is not None and isinstance(values, (pd.Series, pd.Index, pd.Categorical)):
        return column_from_pandas(values, device)
    if isinstance(values, np.ndarray):
        if values.dtype.kind == "O":
            return Column.from_pylist(values.tolist(), device)
        return Column.from_numpy(values, device)
    if isinstance(values, (list, tuple, range)):
        return Column.from_pylist(list(values), device)
    if np.isscalar(values) or values is None:
        if n is None:
            raise ValueError("a scalar column needs a length")
        if isinstance(values, str) or values is None:
            return Column.from_pylist([values] * n, device)
        return Column.from_numpy(np.full(n, values), device)
    raise TypeError(f"cannot make a column from {type(values).__name__}")


def column_from_pandas(s, device):
    pd = _pd()
    dt = s.dtype
    if isinstance(dt, pd.CategoricalDtype):
        cat = s.array if isinstance(s, pd.Series) else pd.Categorical(s)
        cats = np.asarray(cat.categories)
        return _category(np.asarray(cat.codes, dtype=np.int64), cats, device)
    if isinstance(dt, pd.StringDtype) or dt == object:
        vals = np.asarray(s.astype(object), dtype=object)
        vals = np.array([None if (v is pd.NA or (isinstance(v, float) and v != v))
                         else v for v in vals], dtype=object)
        if dt == object and not all(isinstance(v, str) for v in vals if v is not None):
            return Column.from_pylist(vals.tolist(), device)
        return Column.from_numpy(vals, device) if len(vals) else \
            Column.from_numpy(np.array([], dtype=object), device)
    if isinstance(dt, pd.api.extensions.ExtensionDtype):
        # nullable Int64/boolean/Float64 and Arrow-backed numbers: values + mask
        mask = np.asarray(s.isna())
        numpy_dt = np.dtype(dt.numpy_dtype) if hasattr(dt, "numpy_dtype") else np.float64
        vals = np.asarray(s.to_numpy(dtype=numpy_dt, na_value=0 if numpy_dt.kind in "iub"
                                     else np.nan))
        return Column.from_numpy(vals, device, mask=mask if mask.any() else None)
    vals = np.asarray(s)
    if vals.dtype.kind == "M" and getattr(dt, "tz", None) is not None:
        raise TypeError("time-zone-aware datetimes are not supported yet")
    return Column.from_numpy(vals, device)


def column_to_pandas(col, name=None, index=None):
    """A pandas Series in pandas' default dtypes: an int column with nulls becomes
    float64 with NaN, a bool one object with None, strings the `str` dtype,
    categories pandas Categoricals, datetimes datetime64[unit] with NaT."""
    pd = _pd()
    if col.kind == "category":
        cats = col.categories.to_numpy()
        codes = em.asnumpy(col.data).astype(np.int64)
        if col.validity is not None:
            codes = np.where(em.asnumpy(col.validity), codes, -1)
        cat = pd.Categorical.from_codes(codes, categories=pd.Index(cats))
        return pd.Series(cat, name=name, index=index)
    if col.kind == "string":
        return pd.Series(col.to_numpy(na_value=np.nan), dtype="str", name=name, index=index)
    return pd.Series(col.to_numpy(), name=name, index=index)
