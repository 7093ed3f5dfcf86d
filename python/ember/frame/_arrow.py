"""Columns <-> pyarrow arrays, and tables <-> Arrow (pyarrow.Table, the
PyCapsule stream).

Arrow's buffers are Ember's column layout already, except two: validity
(Arrow: an LSB-first bitmap; a Column: one bool per row) and booleans (bits
in Arrow, bytes here).  Those two are packed or unpacked at this boundary;
every other buffer (numbers, datetime ticks, string offsets and bytes,
dictionary codes) crosses as it is: on the CPU without a copy either way
(pyarrow wraps the Ember array's memory through the buffer protocol; Ember
wraps Arrow's through NumPy views), on a device with one copy to or from the
host.  Float NaN is a null of a Column (pandas' model), so it becomes an
Arrow null, as ``pyarrow.Array.from_pandas`` does.

pyarrow is optional: everything here imports it on first use and says what
to install when it is missing.
"""
import numpy as np

__all__ = ["pyarrow", "column_to_arrow", "column_from_arrow", "arrow_type", "table_to_arrow",
           "columns_from_arrow"]


def pyarrow():
    """The pyarrow module, or ImportError saying it is needed and how to get it."""
    try:
        import pyarrow as pa
    except ImportError as exc:
        raise ImportError("ember.frame's Arrow, Parquet and CSV support needs pyarrow: "
                          "pip install pyarrow (or pip install 'ember[frames]')") from exc
    return pa


def _em():
    import ember
    return ember


def _host(a):
    """A NumPy view of an Ember array on the CPU (no copy), else a host copy."""
    em = _em()
    if a._dev[0] == "cpu":
        return np.asarray(a)
    return em.asnumpy(a)


# ---- types -------------------------------------------------------------------------------

def arrow_type(col):
    """The Arrow type a Column becomes."""
    pa = pyarrow()
    if col.kind == "string":
        return pa.large_string()
    if col.kind == "datetime":
        return pa.timestamp(col.unit)
    if col.kind == "timedelta":
        return pa.duration(col.unit)
    if col.kind == "category":
        return pa.dictionary(pa.from_numpy_dtype(col.dtype), arrow_type(col.categories))
    if col.dtype.kind == "c":
        raise TypeError(f"Arrow has no complex type: a {col.dtype} column cannot be exported")
    return pa.from_numpy_dtype(col.dtype)


# ---- Column -> Arrow ---------------------------------------------------------------------

def _bitmap(valid):
    """Arrow validity buffer (LSB-first bits) of a host bool array, or None."""
    pa = pyarrow()
    if valid is None or valid.all():
        return None, 0
    return pa.py_buffer(np.packbits(valid, bitorder="little")), int((~valid).sum())


def _valid_host(col):
    if col.validity is None and not col.is_float:
        return None
    return ~_host(col.isna()).astype(bool)


def column_to_arrow(col):
    """A pyarrow.Array of the Column (large_string for strings, a
    DictionaryArray for categories).  CPU buffers are shared, not copied."""
    pa = pyarrow()
    n = len(col)
    typ = arrow_type(col)
    valid = _valid_host(col)
    bitmap, nulls = _bitmap(valid)
    if col.kind == "string":
        return pa.Array.from_buffers(typ, n, [bitmap, pa.py_buffer(_host(col.offsets)),
                                              pa.py_buffer(_host(col.data))], null_count=nulls)
    if col.kind == "category":
        codes = _host(col.data)
        if valid is not None:
            valid = valid & (codes >= 0)
        else:
            valid = codes >= 0
        bitmap, nulls = _bitmap(valid)
        idx = pa.Array.from_buffers(typ.index_type, n, [bitmap, pa.py_buffer(codes)],
                                    null_count=nulls)
        return pa.DictionaryArray.from_arrays(idx, column_to_arrow(col.categories))
    values = _host(col.data)
    if col.dtype == np.bool_:
        vbuf = pa.py_buffer(np.packbits(values.view(np.uint8) != 0, bitorder="little"))
    else:
        vbuf = pa.py_buffer(np.ascontiguousarray(values))
    return pa.Array.from_buffers(typ, n, [bitmap, vbuf], null_count=nulls)


# ---- Arrow -> Column ---------------------------------------------------------------------

def _buf(arr, i, dtype, count, extra=0):
    """Buffer i of arr as a NumPy view of `count` elements from arr.offset."""
    b = arr.buffers()[i]
    v = np.frombuffer(b, dtype=dtype) if b is not None else np.zeros(0, dtype)
    return v[arr.offset:arr.offset + count + extra]


def _validity_of(arr, device):
    em = _em()
    if arr.null_count == 0:
        return None
    valid = np.asarray(arr.is_valid().to_numpy(zero_copy_only=False), dtype=bool)
    return em.asarray(valid, device=device)


def _on(values, device):
    return _em().asarray(np.ascontiguousarray(values), device=device)


def column_from_arrow(arr, device=None):
    """A Column on device from a pyarrow Array or ChunkedArray (numbers, bool,
    strings of any Arrow flavour, dictionaries, timestamps, durations, dates)."""
    pa = pyarrow()
    from ._column import Column
    if isinstance(arr, pa.ChunkedArray):
        arr = arr.combine_chunks() if arr.num_chunks != 1 else arr.chunk(0)
    t = arr.type
    n = len(arr)
    if pa.types.is_dictionary(t):
        idx = arr.indices
        ct = np.dtype(idx.type.to_pandas_dtype())
        if ct.kind == "u" or ct.itemsize > 4:
            ct = np.dtype(np.int32)
        codes = np.asarray(idx.fill_null(-1).to_numpy(zero_copy_only=False)).astype(ct)
        cats = column_from_arrow(arr.dictionary, device)
        dev = cats.device
        return Column("category", ct, _on(codes, dev), validity=_validity_of(arr, dev),
                      categories=cats._replace(validity=None))
    if pa.types.is_string(t) or pa.types.is_large_string(t) or pa.types.is_string_view(t) \
            or pa.types.is_binary(t) or pa.types.is_large_binary(t):
        if not pa.types.is_large_string(t):
            arr = arr.cast(pa.large_string())
        offs = _buf(arr, 1, np.int64, n, extra=1)
        base = int(offs[0]) if n else 0
        end = int(offs[-1]) if n else 0
        data = np.frombuffer(arr.buffers()[2], np.uint8)[base:end] \
            if arr.buffers()[2] is not None else np.zeros(0, np.uint8)
        if base:
            offs = offs - base
        off = _on(offs if n else np.zeros(1, np.int64), device)
        dev = off.device
        return Column("string", np.dtype("O"), _on(data, dev), offsets=off,
                      validity=_validity_of(arr, dev))
    if pa.types.is_null(t):
        return Column.from_numpy(np.full(n, np.nan), device)
    if pa.types.is_date(t):
        arr, t = arr.cast(pa.timestamp("s")), pa.timestamp("s")
    if pa.types.is_timestamp(t) or pa.types.is_duration(t):
        if getattr(t, "tz", None):  # a Column keeps no time zone: the UTC ticks
            arr = arr.cast(pa.timestamp(t.unit))
        data = _buf(arr, 1, np.int64, n)
        kind, code = ("datetime", "M8") if pa.types.is_timestamp(t) else ("timedelta", "m8")
        d = _on(data, device)
        return Column(kind, np.dtype(f"{code}[{t.unit}]"), d, validity=_validity_of(arr, d.device),
                      unit=t.unit)
    if pa.types.is_boolean(t):
        vals = np.asarray(arr.fill_null(False).to_numpy(zero_copy_only=False), dtype=bool)
        d = _on(vals, device)
        return Column("num", np.bool_, d, validity=_validity_of(arr, d.device))
    if pa.types.is_integer(t) or pa.types.is_floating(t):
        dt = np.dtype(t.to_pandas_dtype())
        vals = _buf(arr, 1, dt, n)
        d = _on(vals, device)
        return Column("num", dt, d, validity=_validity_of(arr, d.device))
    if pa.types.is_decimal(t):
        return column_from_arrow(arr.cast(pa.float64()), device)
    raise TypeError(f"ember.frame has no column type for Arrow {t}")


# ---- tables --------------------------------------------------------------------------------

def table_to_arrow(names, columns):
    """A pyarrow.Table of named Columns."""
    pa = pyarrow()
    arrays = [column_to_arrow(c) for c in columns]
    return pa.Table.from_arrays(arrays, names=[str(n) for n in names])


def schema_of(names, columns):
    pa = pyarrow()
    return pa.schema([pa.field(str(n), arrow_type(c)) for n, c in zip(names, columns)])


def columns_from_arrow(data, device=None):
    """(names, Columns) from a pyarrow Table / RecordBatch, or anything with
    the Arrow PyCapsule stream interface (``__arrow_c_stream__``: Polars,
    DuckDB, nanoarrow ...)."""
    pa = pyarrow()
    if not isinstance(data, (pa.Table, pa.RecordBatch)):
        if hasattr(data, "__arrow_c_stream__") or hasattr(data, "__arrow_c_array__"):
            data = pa.table(data)
        else:
            raise TypeError(f"from_arrow() takes a pyarrow Table or an object with "
                            f"__arrow_c_stream__, not {type(data).__name__}")
    cols = [column_from_arrow(data.column(i), device) for i in range(data.num_columns)]
    return list(data.schema.names), cols
