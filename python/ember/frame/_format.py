"""repr of frames and series in pandas' shape: right-aligned columns, the index
at the left, NaN/None/NaT for nulls, the middle rows elided for long frames.
Only the rows shown leave the device."""
import numpy as np

MAX_ROWS = 60
SHOW = 5


def _cell(v):
    if v is None:
        return "None"
    if isinstance(v, (float, np.floating)):
        if v != v:
            return "NaN"
        return f"{v:.6g}" if abs(v) < 1e16 else repr(float(v))
    if isinstance(v, (np.datetime64, np.timedelta64)):
        return "NaT" if np.isnat(v) else str(v)
    return str(v)


def _rows(n):
    if n <= MAX_ROWS:
        return list(range(n)), False
    return list(range(SHOW)) + list(range(n - SHOW, n)), True


def _column_text(col, rows):
    import ember as em
    if not rows:
        return []
    idx = em.asarray(np.asarray(rows, dtype=np.int64), device=col.device)
    vals = col.take(idx).to_numpy()
    if col.kind == "string":
        vals = np.array([None if v is None else v for v in vals], dtype=object)
    if col.kind == "num" and col.dtype.kind == "f" or vals.dtype.kind == "f":
        return [_cell(float(v)) for v in vals]
    return [_cell(v) for v in vals.tolist()]


def _index_text(index, rows):
    import ember as em
    if not rows:
        return []
    idx = em.asarray(np.asarray(rows, dtype=np.int64), device=index.device)
    vals = index.take(idx).to_numpy()
    return [_cell(v) for v in vals.tolist()]


def _table(headers, columns, index_cells, elided):
    widths = [max([len(h)] + [len(c) for c in col]) for h, col in zip(headers, columns)]
    iw = max([len(c) for c in index_cells] + [0])
    lines = [" " * iw + "".join("  " + h.rjust(w) for h, w in zip(headers, widths))]
    half = len(index_cells) // 2 if elided else None
    for r, ic in enumerate(index_cells):
        if elided and r == half:
            lines.append("..".ljust(iw) + "".join("  " + "...".rjust(w) for w in widths))
        lines.append(ic.ljust(iw) + "".join("  " + col[r].rjust(w)
                                             for col, w in zip(columns, widths)))
    return "\n".join(line.rstrip() for line in lines)


def format_frame(df):
    n = len(df)
    rows, elided = _rows(n)
    if not df._cols:
        return f"Empty DataFrame\nColumns: []\nIndex: [{n} rows]"
    headers = [str(k) for k in df._cols]
    if n == 0:
        return f"Empty DataFrame\nColumns: [{', '.join(headers)}]\nIndex: []"
    cols = [_column_text(c, rows) for c in df._cols.values()]
    text = _table(headers, cols, _index_text(df.index, rows), elided)
    if elided:
        text += f"\n\n[{n} rows x {len(headers)} columns]"
    return text


def format_series(s):
    n = len(s)
    rows, elided = _rows(n)
    ix = _index_text(s.index, rows)
    vals = _column_text(s._col, rows)
    iw = max([len(c) for c in ix] + [0])
    vw = max([len(c) for c in vals] + [0])
    lines = []
    for r, (a, b) in enumerate(zip(ix, vals)):
        if elided and r == len(ix) // 2:
            lines.append("..".ljust(iw) + "  " + "...".rjust(vw))
        lines.append(a.ljust(iw) + "  " + b.rjust(vw))
    dtype = s.to_pandas_dtype()
    tail = []
    if s.name is not None:
        tail.append(f"Name: {s.name}")
    if elided:
        tail.append(f"Length: {n}")
    tail.append(f"dtype: {'str' if s._col.kind == 'string' else dtype}")
    body = "\n".join(line.rstrip() for line in lines)
    return (body + "\n" if body else f"Series([], ") + ", ".join(tail) + \
        (")" if not body else "")
