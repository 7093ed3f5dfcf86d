"""CSV and Parquet for ember.frame through pyarrow's readers and writers.

Reading parses on the host with pyarrow's multithreaded readers and moves
each column to the frame's device (on the CPU the Arrow buffers are used in
place: see _arrow.py).  The keyword arguments follow pandas' meanings for the
common ones (``sep``, ``header``, ``names``, ``usecols``, ``dtype``,
``nrows``, ``na_values``, ``parse_dates``); a malformed line raises the error
pandas raises (``pandas.errors.ParserError``, a ValueError, naming the line;
a plain ValueError when pandas is absent).  Unlike pyarrow, and like pandas,
a column is parsed as dates only when ``parse_dates`` names it.

Writing goes to a temporary file in the target's directory, renamed over the
target only when complete, so a failed ``to_parquet``/``to_csv`` leaves
neither a partial file nor a damaged old one.
"""
import csv as _csv
import io
import os
import re
import tempfile

import numpy as np

from ._arrow import pyarrow, columns_from_arrow, column_to_arrow

__all__ = ["read_csv", "read_parquet", "from_arrow"]

# pandas' default missing-value strings (pandas/_libs/parsers.pyx STR_NA_VALUES)
NA_VALUES = ["", "#N/A", "#N/A N/A", "#NA", "-1.#IND", "-1.#QNAN", "-NaN", "-nan", "1.#IND",
             "1.#QNAN", "<NA>", "N/A", "NA", "NULL", "NaN", "None", "n/a", "nan", "null"]


def _em():
    import ember
    return ember


def _frame_from(names, cols, device):
    from ._frame import DataFrame
    from ._index import RangeIndex
    dev = _em().Device(device) if isinstance(device, str) else (device or _em().get_device())
    n = len(cols[0]) if cols else 0
    return DataFrame._new(dict(zip(names, cols)), RangeIndex(0, n, 1, dev), dev)


def from_arrow(data, device=None):
    """A DataFrame from a pyarrow Table or RecordBatch, or any object with the
    Arrow PyCapsule stream interface (Polars, DuckDB ...), its columns on
    device.  A pandas index recorded in the schema's metadata is restored."""
    pa = pyarrow()
    if not isinstance(data, (pa.Table, pa.RecordBatch)):
        data = pa.table(data) if hasattr(data, "__arrow_c_stream__") else data
    names, cols = columns_from_arrow(data, device)
    df = _frame_from(names, cols, device)
    meta = getattr(data.schema, "pandas_metadata", None) or {}
    idx = [c for c in meta.get("index_columns", []) if isinstance(c, str) and c in names]
    if idx:
        df = df.set_index(idx)
        fields = {c.get("field_name"): c.get("name") for c in meta.get("columns", [])}
        df.index.names = [fields.get(c, c) if not c.startswith("__index_level_")
                          else None for c in idx]
    return df


# ---- CSV ------------------------------------------------------------------------------------

def _arrow_type(dt):
    pa = pyarrow()
    if isinstance(dt, pa.DataType):
        return dt
    if dt in (str, "str", "string", object, "object"):
        return pa.large_string()
    if dt == "category":
        return None  # read as values, dictionary-encoded afterwards
    return pa.from_numpy_dtype(np.dtype(dt))


def _parser_error(path, sep, exc):
    """pandas' error for a malformed line: which line, how many fields."""
    msg = str(exc)
    m = re.search(r"Expected (\d+) columns, got (\d+)", msg)
    if m and isinstance(path, (str, os.PathLike)):
        want = int(m.group(1))
        with open(path, newline="", encoding="utf-8", errors="replace") as f:
            r = _csv.reader(f, delimiter=sep)
            for row in r:
                if len(row) != want and row:
                    msg = (f"Error tokenizing data. C error: Expected {want} fields in line "
                           f"{r.line_num}, saw {len(row)}\n")
                    break
    try:
        from pandas.errors import ParserError
    except ImportError:
        ParserError = ValueError
    return ParserError(msg)


def _read_options(header, names, skiprows):
    """pyarrow's ReadOptions for pandas' header/names/skiprows: with names, a
    header row (header=k) is skipped and replaced; without, header=None
    numbers the columns and header=k takes row k as the names."""
    import pyarrow.csv as pcsv
    kw, skip = {}, int(skiprows or 0)
    if names is not None:
        kw["column_names"] = [str(n) for n in names]
        if header not in ("infer", None):
            skip += int(header) + 1
    elif header is None:
        kw["autogenerate_column_names"] = True
    elif header != "infer":
        skip += int(header)
    return pcsv.ReadOptions(skip_rows=skip, **kw)


def _dates_off(schema, convert_kw, parse_dates):
    """pyarrow infers timestamps, pandas only parses the columns parse_dates
    names: from the peeked schema (_peek), keep the others as strings."""
    pa = pyarrow()
    if schema is None:
        return None
    types = dict(convert_kw.get("column_types") or {})
    for f in schema:
        if (pa.types.is_timestamp(f.type) or pa.types.is_date(f.type)) and \
                f.name not in parse_dates and f.name not in types:
            types[f.name] = pa.large_string()
    if types:
        convert_kw["column_types"] = types
    return schema.names


def _dates_as_text(table, src, read, parse, convert_kw, parse_dates, nrows):
    """Columns pyarrow parsed as dates that pandas would not (not in
    parse_dates, no dtype given) read again as text (rare: only then is the
    file read twice, and only those columns)."""
    pa = pyarrow()
    import pyarrow.csv as pcsv
    given = convert_kw.get("column_types") or {}
    redo = [f.name for f in table.schema
            if (pa.types.is_timestamp(f.type) or pa.types.is_date(f.type))
            and f.name not in parse_dates and f.name not in given]
    if not redo:
        return table
    kw = dict(convert_kw, include_columns=redo,
              column_types={c: pa.large_string() for c in redo})
    if isinstance(src, pa.BufferReader):
        src.seek(0)
    text = _read_table(src, read, parse, pcsv.ConvertOptions(**kw), nrows)
    for c in redo:
        table = table.set_column(table.schema.get_field_index(c), c, text.column(c))
    return table


def read_csv(filepath_or_buffer, sep=",", delimiter=None, header="infer", names=None,
             usecols=None, dtype=None, nrows=None, na_values=None, keep_default_na=True,
             parse_dates=None, skiprows=None, device=None):
    """Read a CSV file into a DataFrame on device (pandas' read_csv for the
    common keyword arguments; pyarrow parses)."""
    pa = pyarrow()
    import pyarrow.csv as pcsv
    sep = delimiter if delimiter is not None else sep
    if not isinstance(sep, str) or len(sep) != 1:
        raise ValueError(f"sep must be one character here, got {sep!r} "
                         "(pyarrow's parser takes no regular expressions)")
    if header not in ("infer", None) and not isinstance(header, int):
        raise TypeError("header must be an int row number, 'infer' or None")
    if header == "infer" and names is not None:
        header = None
    read = _read_options(header, names, skiprows)
    parse = pcsv.ParseOptions(delimiter=sep)
    src = filepath_or_buffer
    if hasattr(src, "read"):  # a file object: read once, parsed from memory (peeked first)
        raw = src.read()
        src = pa.BufferReader(raw.encode() if isinstance(raw, str) else raw)
    peekable = isinstance(src, (str, os.PathLike, pa.BufferReader))
    nulls = (NA_VALUES if keep_default_na else []) + [str(v) for v in (
        [na_values] if isinstance(na_values, str) else (na_values or []))]
    convert_kw = dict(null_values=nulls, strings_can_be_null=True, quoted_strings_can_be_null=True)
    # a look at the first block (the column names, the types pyarrow infers) only
    # where the names are needed before the read: it costs ~10% of a read
    by_position = usecols is not None or (dtype is not None and not isinstance(dtype, dict))
    schema = _peek(src, read, parse, convert_kw) if peekable and by_position else None
    file_names = list(schema.names) if schema is not None else None

    def name(c):  # pandas' column key -> the reader's column name
        if isinstance(c, (int, np.integer)) and not isinstance(c, bool):
            if header is None and names is None:
                return f"f{int(c)}"
            if file_names is not None and (usecols is not None and c is not None):
                return file_names[int(c)] if 0 <= int(c) < len(file_names) else str(c)
        return str(c)
    cats = []
    if dtype is not None:
        if isinstance(dtype, dict):
            types = {name(k): _arrow_type(v) for k, v in dtype.items()}
            cats = [k for k, v in types.items() if v is None]
            convert_kw["column_types"] = {k: v for k, v in types.items() if v is not None}
        else:
            t = _arrow_type(dtype)
            if t is None:
                cats = None  # every column
            elif file_names is not None:
                convert_kw["column_types"] = {n: t for n in file_names}
    parse_dates = [name(c) for c in (parse_dates or [])] if parse_dates is not True else []
    for c in parse_dates:
        convert_kw.setdefault("column_types", {})
        convert_kw["column_types"].setdefault(c, pa.timestamp("us"))
    if usecols is not None:
        if callable(usecols):
            raise TypeError("usecols as a callable is not supported; pass the column names")
        convert_kw["include_columns"] = [name(c) for c in usecols]
    file_order = None
    if schema is not None:
        file_order = _dates_off(schema, convert_kw, parse_dates)
    try:
        table = _read_table(src, read, parse, pcsv.ConvertOptions(**convert_kw), nrows)
    except pa.ArrowInvalid as exc:
        if "parse error" in str(exc) or "Expected" in str(exc):
            raise _parser_error(src, sep, exc) from None
        if "No columns" in str(exc) or "Empty CSV" in str(exc):
            raise _empty_data_error() from None
        raise ValueError(str(exc)) from None
    except pa.ArrowKeyError as exc:  # a usecols name not in the file
        raise ValueError(f"Usecols do not match columns: {exc}") from None
    if peekable and schema is None:
        table = _dates_as_text(table, src, read, parse, convert_kw, parse_dates, nrows)
    if usecols is not None and file_order:  # pandas keeps the file's order
        table = table.select([c for c in file_order if c in table.column_names])
    df = from_arrow(table, device)
    if header is None and names is None:  # pyarrow's f0, f1 ... -> pandas' 0, 1 ...
        df.columns = [int(c[1:]) for c in df.columns]
    return _categories(df, cats)


def _empty_data_error():
    try:
        from pandas.errors import EmptyDataError
    except ImportError:
        EmptyDataError = ValueError
    return EmptyDataError("No columns to parse from file")


def _peek(src, read, parse, convert_kw):
    """The schema the reader infers from the first block (names, and types
    with the null strings given), or None when the source cannot be parsed
    (the real read reports why)."""
    pa = pyarrow()
    import pyarrow.csv as pcsv
    try:
        if isinstance(src, pa.BufferReader):
            src.seek(0)
        return pcsv.open_csv(src, read_options=read, parse_options=parse,
                             convert_options=pcsv.ConvertOptions(**convert_kw)).schema
    except (pa.ArrowInvalid, StopIteration, OSError):
        return None
    finally:
        if isinstance(src, pa.BufferReader):
            src.seek(0)


def _read_table(src, read, parse, convert, nrows):
    import pyarrow.csv as pcsv
    pa = pyarrow()
    if nrows is None:
        return pcsv.read_csv(src, read_options=read, parse_options=parse,
                             convert_options=convert)
    # nrows: stream blocks until there are enough rows
    reader = pcsv.open_csv(src, read_options=read, parse_options=parse, convert_options=convert)
    batches, got = [], 0
    while got < nrows:
        try:
            b = reader.read_next_batch()
        except StopIteration:
            break
        batches.append(b)
        got += b.num_rows
    return pa.Table.from_batches(batches, schema=reader.schema).slice(0, nrows)


def _categories(df, cats):
    from . import _strings
    names = list(df.columns) if cats is None else cats
    for k in names:
        df._cols[k] = _strings.to_category(df._cols[k])
    return df


# ---- Parquet ----------------------------------------------------------------------------------

def read_parquet(path, columns=None, filters=None, device=None):
    """Read a Parquet file (or dataset directory) into a DataFrame on device."""
    pyarrow()
    import pyarrow.parquet as pq
    table = pq.read_table(path, columns=columns, filters=filters)
    return from_arrow(table, device)


# ---- writing ------------------------------------------------------------------------------------

def to_arrow(df, index=None):
    """The DataFrame as a pyarrow.Table.  index=None keeps a non-default index
    as columns (recorded in the schema's pandas metadata, so pandas and
    from_arrow restore it); False drops it; True keeps even a RangeIndex."""
    pa = pyarrow()
    from ._index import RangeIndex
    names = [str(k) for k in df.columns]
    arrays = [column_to_arrow(c) for c in df._cols.values()]
    keep = index if index is not None else not isinstance(df.index, RangeIndex)
    idx_cols = []
    if keep and not isinstance(df.index, RangeIndex):
        for i, (lv, nm) in enumerate(zip(df.index.levels, df.index.names)):
            field = nm if nm is not None and str(nm) not in names else f"__index_level_{i}__"
            idx_cols.append((str(field), nm))
            names.append(str(field))
            arrays.append(column_to_arrow(lv))
    elif keep:  # a RangeIndex as a column of its values
        from ._column import Column
        names.append("__index_level_0__")
        idx_cols.append(("__index_level_0__", None))
        arrays.append(column_to_arrow(Column.from_numpy(df.index.to_numpy(), "cpu")))
    table = pa.Table.from_arrays(arrays, names=names)
    if idx_cols:
        table = table.replace_schema_metadata(_pandas_meta(table, idx_cols))
    return table


def _pandas_meta(table, idx_cols):
    """The schema metadata pandas writes, enough for pandas and from_arrow to
    turn the index columns back into the index."""
    import json
    fields = {f for f, _ in idx_cols}
    cols = [{"name": n, "field_name": n, "pandas_type": "object", "numpy_type": "object",
             "metadata": None} for n in table.column_names if n not in fields]
    cols += [{"name": nm, "field_name": f, "pandas_type": "object", "numpy_type": "object",
              "metadata": None} for f, nm in idx_cols]
    meta = {"index_columns": [f for f, _ in idx_cols], "column_indexes": [], "columns": cols,
            "creator": {"library": "ember"}, "pandas_version": "2.0.0"}
    return {b"pandas": json.dumps(meta).encode()}


def _atomic_write(path, write):
    """write(tmp_path) then rename over path; on any error remove the temporary
    file and leave path as it was."""
    path = os.fspath(path)
    d = os.path.dirname(os.path.abspath(path))
    fd, tmp = tempfile.mkstemp(dir=d, prefix="." + os.path.basename(path) + ".", suffix=".tmp")
    os.close(fd)
    try:
        write(tmp)
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


def to_parquet(df, path, engine="pyarrow", compression="snappy", index=None, **kwargs):
    """Write the DataFrame to Parquet (pyarrow's writer), atomically."""
    pyarrow()
    import pyarrow.parquet as pq
    if engine not in ("auto", "pyarrow"):
        raise ValueError(f"engine must be 'pyarrow' here, got {engine!r}")
    table = to_arrow(df, index)
    if not isinstance(path, (str, os.PathLike)):  # a file object: written directly
        pq.write_table(table, path, compression=compression, **kwargs)
        return None
    _atomic_write(path, lambda tmp: pq.write_table(table, tmp, compression=compression,
                                                   **kwargs))
    return None


def _dt_text(col):
    """Datetimes as pandas writes them: the date alone when every value is a
    midnight, else seconds, with as many fraction digits as the data needs."""
    vals = col.to_numpy()
    ok = ~np.isnat(vals)
    ns = vals[ok].astype("datetime64[ns]").view(np.int64)
    unit = "ns"
    for u, q in (("D", 86400 * 10**9), ("s", 10**9), ("ms", 10**6), ("us", 10**3)):
        if np.all(ns % q == 0):
            unit = u
            break
    text = np.full(len(vals), None, dtype=object)
    text[ok] = np.char.replace(np.datetime_as_string(vals[ok], unit=unit), "T", " ")
    return text


def _csv_text(col, sep, na_rep):
    """The column as the text pandas writes for it (QUOTE_MINIMAL): a large_string
    Arrow array, nulls as na_rep.  Floats are NumPy's shortest repr (1.0, 1e+20),
    bools True/False; the text is formed by pyarrow's compute kernels."""
    pa = pyarrow()
    import pyarrow.compute as pc
    if col.kind == "num" and col.dtype.kind in "fb":
        vals = col.to_numpy(na_value=None)
        miss = np.asarray(_em().asnumpy(col.isna()), dtype=bool)
        if col.dtype.kind == "b":
            text = np.where(np.asarray(vals, dtype=object) == True, "True", "False")  # noqa: E712
        else:
            text = np.asarray(vals, dtype=col.dtype).astype(str)
        text = np.asarray(text, dtype=object)
        text[miss] = None
        arr = pa.array(text, type=pa.large_string())
    elif col.kind == "datetime":
        arr = pa.array(_dt_text(col), type=pa.large_string())
    else:
        arr = column_to_arrow(col)
        if pa.types.is_dictionary(arr.type):
            arr = arr.dictionary_decode()
        arr = arr.cast(pa.large_string())
    if col.kind in ("string", "category") and len(arr):
        needs = pc.match_substring_regex(arr, "[" + re.escape(sep) + '"\r\n]')
        q = pa.scalar('"', pa.large_string())
        quoted = pc.binary_join_element_wise(q, pc.replace_substring(arr, '"', '""'), q,
                                             pa.scalar("", pa.large_string()))
        arr = pc.if_else(needs, quoted, arr)
    return arr.fill_null(na_rep) if arr.null_count else arr


def to_csv(df, path_or_buf=None, sep=",", na_rep="", columns=None, header=True, index=True,
           index_label=None, lineterminator="\n"):
    """Write the DataFrame as CSV the way pandas writes it (the index first,
    floats as 1.0, minimal quoting); with no path, return the text.  The rows
    are joined by pyarrow's string kernels, not a Python loop."""
    pa = pyarrow()
    import pyarrow.compute as pc
    names = list(df.columns) if columns is None else list(columns)
    for k in names:
        if k not in df._cols:
            raise KeyError(f"{k!r} is not in the frame's columns")
    arrays = [_csv_text(df._cols[k], sep, na_rep) for k in names]
    labels = [str(k) for k in names]
    if index:
        levels = getattr(df.index, "levels", None)
        if levels is None:
            from ._column import Column
            levels, inames = [Column.from_numpy(df.index.to_numpy(), "cpu")], [None]
        else:
            inames = df.index.names
        lab = index_label if index_label is not None else inames
        lab = list(lab) if isinstance(lab, (list, tuple)) else [lab]
        arrays = [_csv_text(lv, sep, na_rep) for lv in levels] + arrays
        labels = ["" if n is None else str(n) for n in lab] + labels
    out = io.StringIO()
    if header:
        _csv.writer(out, delimiter=sep, lineterminator=lineterminator).writerow(labels)
    text = out.getvalue().encode()
    if len(df) and arrays:
        ls = pa.large_string()
        rows = pc.binary_join_element_wise(*arrays, pa.scalar(sep, ls)) if len(arrays) > 1 \
            else arrays[0]
        rows = pc.binary_join_element_wise(rows, pa.scalar("", ls), pa.scalar(lineterminator, ls))
        rows = rows.cast(pa.large_string())
        offs = np.frombuffer(rows.buffers()[1], np.int64)[rows.offset:rows.offset + len(rows) + 1]
        body = np.frombuffer(rows.buffers()[2], np.uint8)[offs[0]:offs[-1]]
        text += body.tobytes()
    if path_or_buf is None:
        return text.decode()
    if hasattr(path_or_buf, "write"):
        try:
            path_or_buf.write(text.decode())
        except TypeError:
            path_or_buf.write(text)
        return None

    def write(tmp):
        with open(tmp, "wb") as f:
            f.write(text)
    _atomic_write(path_or_buf, write)
    return None
