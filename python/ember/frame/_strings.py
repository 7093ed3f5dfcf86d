"""Strings on the device: Arrow's large_string layout (int64 offsets, n + 1 of
them, and the uint8 bytes of every value concatenated) held as Ember arrays on
the column's device, and the work on them written as Ember array operations,
so the same code runs on the CPU, CUDA and OpenCL (elementwise steps fuse into
one kernel; gathers, cumulative sums and sorts are Ember's device kernels).

What is here, each a function of raw arrays (``data``, ``offsets``) so that the
column class stays the table core's:

- building: ``pack`` (Python strings, NumPy object arrays) -> host arrays;
- ``codes``: the ordering and equality key.  Strings are dictionary-encoded:
  each distinct value gets an int32 code, the codes in the values' sorted
  (UTF-8 byte, i.e. code point) order, so sorting, grouping and merging on a
  string column is sorting, grouping and merging on int32 codes.  The sort is
  by 8-byte big-endian prefix words, one word at a time: rank by (previous
  rank, next word) until every rank is distinct or the words run out; the
  byte length breaks the last ties ("a" < "a\\0").
- ``char_lengths``, ``case_map`` (ASCII), ``startswith``/``endswith``/
  ``contains`` of a literal pattern.  Anything these cannot do exactly as
  pandas (non-ASCII case mapping, regular expressions, case-insensitive
  matching of non-ASCII text) runs on the host (``host_apply``) and warns
  once with ``em.HostFallbackWarning`` on a device.
"""
import re

import numpy as np

from .._host import warn_fallback

__all__ = ["pack", "codes", "char_lengths", "case_map", "startswith", "endswith",
           "contains", "to_pylist", "is_literal"]


def _em():
    import ember
    return ember


def _is_null(v):
    if v is None:
        return True
    if isinstance(v, float) and v != v:
        return True
    t = type(v).__name__
    return t in ("NAType", "NaTType")


# ---- building and reading back ----------------------------------------------------

def pack(values):
    """(data uint8, offsets int64, valid bool or None) as NumPy arrays from an
    iterable of str / bytes / None (NaN and pandas' NA are null too)."""
    vals = list(values)
    enc, valid = [], np.ones(len(vals), dtype=bool)
    for i, v in enumerate(vals):
        if isinstance(v, str):
            enc.append(v.encode("utf-8", "surrogatepass"))
        elif isinstance(v, (bytes, bytearray)):
            enc.append(bytes(v))
        elif _is_null(v):
            enc.append(b"")
            valid[i] = False
        else:
            raise TypeError(f"a string column takes str values (or None for a null), "
                            f"not {type(v).__name__} ({v!r}) at row {i}")
    lens = np.fromiter((len(b) for b in enc), dtype=np.int64, count=len(enc))
    offsets = np.zeros(len(enc) + 1, dtype=np.int64)
    np.cumsum(lens, out=offsets[1:])
    data = np.frombuffer(b"".join(enc), dtype=np.uint8).copy()
    return data, offsets, (None if valid.all() else valid)


def _host(a):
    if a is None:
        return None
    return a.get() if a._dev[0] != "cpu" else np.asarray(a)


def to_pylist(data, offsets, valid=None):
    """The values as a list of str (None where null), read on the host."""
    d, o = _host(data).tobytes(), _host(offsets)
    v = _host(valid)
    out = [d[o[i]:o[i + 1]].decode("utf-8", "surrogatepass") for i in range(len(o) - 1)]
    if v is not None:
        out = [s if ok else None for s, ok in zip(out, v)]
    return out


def _prefix0(x):
    """[0, cumsum(x)...] as int64 on x's device (length len(x) + 1)."""
    em = _em()
    z = em.zeros(1, dtype=em.int64, device=x.device)
    if len(x) == 0:
        return z
    return em.concatenate([z, em.cumsum(x.astype(em.int64))])


# ---- ordering and equality keys ------------------------------------------------------

def _word(data, offsets, lens, k):
    """The k-th 8-byte word of every string, big-endian, zero padded (uint64)."""
    em = _em()
    dev = data.device
    n = len(lens)
    word = em.zeros(n, dtype=em.uint64, device=dev)
    if data.size == 0:
        return word
    start = offsets[:-1]
    last = data.size - 1
    for j in range(8):
        p = start + (8 * k + j)
        inside = (8 * k + j) < lens
        b = em.where(inside, data[em.minimum(p, last)], 0).astype(em.uint64)
        word = word | (b << (56 - 8 * j))
    return word


def _dense_rank(keys):
    """Dense ranks (int64, 0-based) of the rows under the lexicographic order of
    keys (most significant first), and the permutation that sorts them."""
    em = _em()
    order = em.lexsort(tuple(reversed(keys)))
    n = len(order)
    if n == 0:
        return em.zeros(0, dtype=em.int64, device=keys[0].device), order
    new = None
    for k in keys:
        s = k[order]
        d = s[1:] != s[:-1]
        new = d if new is None else (new | d)
    rank_sorted = _prefix0(new)
    rank = em.empty(n, dtype=em.int64, device=keys[0].device)
    rank[order] = rank_sorted
    return rank, order


def _arrow_host(data, offsets, valid=None):
    """On the CPU (4096 rows or more), the strings as a pyarrow large_string
    array over the shared buffers (no copy), for Arrow's compute kernels: its
    hash dictionary and byte loops beat the device formulation's passes on a
    few CPU cores (string group-by 10x slower than pandas before). None on a
    device, for few rows, or without pyarrow."""
    if offsets._dev[0] != "cpu" or len(offsets) <= 4096:
        return None
    try:
        import pyarrow as pa
    except ImportError:
        return None
    offs = np.ascontiguousarray(np.asarray(offsets), dtype=np.int64)
    raw = np.ascontiguousarray(np.asarray(data), dtype=np.uint8)
    n = len(offs) - 1
    bitmap, nulls = None, 0
    if valid is not None:
        v = np.asarray(valid, dtype=bool)
        bitmap, nulls = pa.py_buffer(np.packbits(v, bitorder="little")), int(n - v.sum())
    return pa.Array.from_buffers(pa.large_string(), n, [bitmap, pa.py_buffer(offs),
                                                          pa.py_buffer(raw)], null_count=nulls)


def _codes_host(arr, dev):
    """codes() on the CPU by Arrow's hash dictionary: the dictionary (in order of
    first appearance) is ranked by one sort of the distinct values (byte order,
    which is code-point order in UTF-8), and each entry's first row is where the
    running maximum of the indices steps up."""
    import pyarrow.compute as pc
    em = _em()
    enc = pc.dictionary_encode(arr)
    idx = np.asarray(pc.fill_null(enc.indices, -1).to_numpy(zero_copy_only=False),
                     dtype=np.int64)
    k = len(enc.dictionary)
    order = np.asarray(pc.sort_indices(enc.dictionary), dtype=np.int64)
    rank = np.empty(k, dtype=np.int64)
    rank[order] = np.arange(k)
    out = np.where(idx >= 0, rank[np.maximum(idx, 0)], -1).astype(np.int32) if k else \
        np.full(len(idx), -1, np.int32)
    run = np.maximum.accumulate(idx)
    first = np.flatnonzero(np.diff(run, prepend=-1) > 0)  # first row of entry 0, 1, ...
    return em.asarray(out, device=dev), em.asarray(first[order], device=dev)


def codes(data, offsets, valid=None):
    """Dictionary-encode strings: (codes int32, uniques_index int64).  codes[i]
    is the rank of row i's value among the distinct values in sorted order
    (-1 where null); uniques_index[c] is one row holding the value of code c,
    so ``take(data, offsets, uniques_index)`` gives the sorted distinct
    strings.  Everything stays on the arrays' device."""
    em = _em()
    dev = data.device
    n = len(offsets) - 1
    if n == 0:
        return (em.zeros(0, dtype=em.int32, device=dev),
                em.zeros(0, dtype=em.int64, device=dev))
    arr = _arrow_host(data, offsets, valid)
    if arr is not None:
        return _codes_host(arr, dev)
    lens = offsets[1:] - offsets[:-1]
    maxlen = int(em.max(lens))
    rank = em.zeros(n, dtype=em.int64, device=dev)
    if valid is not None:  # nulls first, as one value; removed below
        rank = valid.astype(em.int64)
    nwords = max(1, -(-maxlen // 8))
    for k in range(nwords):
        rank, order = _dense_rank([rank, _word(data, offsets, lens, k)])
        if int(rank[order[-1]]) == n - 1:  # every row distinct: later words cannot matter
            break
    rank, order = _dense_rank([rank, lens])
    out = rank
    if valid is not None:
        has_null = not bool(em.all(valid))
        out = em.where(valid, rank - int(has_null), -1)
    ranks_sorted = rank[order]
    first = em.ones(n, dtype=em.bool, device=dev)
    if n > 1:
        first[1:] = ranks_sorted[1:] != ranks_sorted[:-1]
    uniq = order[first]
    if valid is not None:
        uniq = uniq[valid[uniq]]
    return out.astype(em.int32), uniq


# ---- string methods --------------------------------------------------------------------

def byte_lengths(offsets):
    return offsets[1:] - offsets[:-1]


def char_lengths(data, offsets):
    """UTF-8 character counts (int64): bytes that are not continuation bytes
    (10xxxxxx), summed per string with one cumulative sum."""
    em = _em()
    if data.size == 0:
        return em.zeros(len(offsets) - 1, dtype=em.int64, device=offsets.device)
    arr = _arrow_host(data, offsets)
    if arr is not None:
        import pyarrow.compute as pc
        n = np.asarray(pc.utf8_length(arr).to_numpy(zero_copy_only=False), dtype=np.int64)
        return em.asarray(n, device=offsets.device)
    starts = (data & 0xC0) != 0x80
    cs = _prefix0(starts)
    return cs[offsets[1:]] - cs[offsets[:-1]]


def is_ascii(data):
    em = _em()
    return data.size == 0 or not bool(em.any(data >= 0x80))


def case_map(data, upper):
    """ASCII upper/lower case of the bytes (the caller checked is_ascii)."""
    em = _em()
    lo, hi = (97, 122) if upper else (65, 90)
    # the ASCII letters differ from their other case in bit 5 only
    mapped = em.where((data >= lo) & (data <= hi), data ^ 0x20, data)
    return mapped.astype(em.uint8)


def _pat_bytes(pat):
    if isinstance(pat, bytes):
        return pat
    if not isinstance(pat, str):
        raise TypeError(f"first argument must be string, not {type(pat).__name__}")
    return pat.encode("utf-8", "surrogatepass")


def _prefix_match(data, base, lens, pat):
    """For each row, whether the len(pat) bytes from base equal pat and the
    string is at least that long."""
    em = _em()
    k = len(pat)
    ok = lens >= k
    if k == 0 or data.size == 0:
        return ok
    last = data.size - 1
    for j, c in enumerate(pat):
        p = em.minimum(em.maximum(base + j, 0), last)
        ok = ok & (data[p] == c)
    return ok


def _host_bool(res, offsets):
    """An Arrow bool result as an Ember array on the strings' device (the CPU)."""
    return _em().asarray(np.asarray(res.to_numpy(zero_copy_only=False), dtype=bool),
                         device=offsets.device)


def startswith(data, offsets, pat):
    arr = _arrow_host(data, offsets)
    if arr is not None:
        import pyarrow.compute as pc
        return _host_bool(pc.starts_with(arr, _pat_bytes(pat).decode("utf-8", "surrogatepass")),
                          offsets)
    lens = byte_lengths(offsets)
    return _prefix_match(data, offsets[:-1], lens, _pat_bytes(pat))


def endswith(data, offsets, pat):
    arr = _arrow_host(data, offsets)
    if arr is not None:
        import pyarrow.compute as pc
        return _host_bool(pc.ends_with(arr, _pat_bytes(pat).decode("utf-8", "surrogatepass")),
                          offsets)
    b = _pat_bytes(pat)
    lens = byte_lengths(offsets)
    return _prefix_match(data, offsets[1:] - len(b), lens, b)


def contains(data, offsets, pat):
    """Whether each string holds the literal pat: match[p] for every byte
    position p (one fused elementwise chain over shifted views), a cumulative
    sum of it, and per string the count of matches starting in
    [start, end - k]."""
    em = _em()
    b = _pat_bytes(pat)
    k, nbytes, n = len(b), data.size, len(offsets) - 1
    arr = _arrow_host(data, offsets) if k else None
    if arr is not None:
        import pyarrow.compute as pc
        return _host_bool(pc.match_substring(arr, b.decode("utf-8", "surrogatepass")), offsets)
    if k == 0:
        return em.ones(n, dtype=em.bool, device=offsets.device)
    if nbytes < k:
        return em.zeros(n, dtype=em.bool, device=offsets.device)
    m = nbytes - k + 1
    match = data[0:m] == b[0]
    for j in range(1, k):
        match = match & (data[j:j + m] == b[j])
    cs = _prefix0(match)
    lo = em.minimum(offsets[:-1], m)
    hi = em.maximum(em.minimum(offsets[1:] - k + 1, m), lo)
    return (cs[hi] - cs[lo]) > 0


_META = re.compile(r"[.^$*+?{}\[\]\\|()]")


def is_literal(pat):
    """Whether a regular expression pat means the same as the literal text."""
    return isinstance(pat, str) and not _META.search(pat)


def host_map(data, offsets, valid, fn):
    """fn(str) on every non-null string, on the host: the list of results
    (None where null).  The caller warns with its own name (warn_fallback)."""
    return [None if s is None else fn(s) for s in to_pylist(data, offsets, valid)]


# ---- columns: the functions the table core and the .str accessor call -------------------

def _column():
    from ._column import Column
    return Column


def string_column(data, offsets, valid=None):
    return _column()("string", np.dtype("O"), data, offsets=offsets, validity=valid)


def from_values(values, device=None):
    """A string Column from a list, a NumPy str/object array or a pyarrow
    string array (nulls: None, NaN, pandas' NA)."""
    em = _em()
    if type(values).__module__.startswith("pyarrow"):
        from ._arrow import column_from_arrow
        return column_from_arrow(values, device)
    if isinstance(values, np.ndarray) and values.dtype.kind in "US":
        values = values.astype(str).astype(object)
    fast = _pack_arrow(values, device)
    if fast is not None:
        return fast
    data, offsets, valid = pack(values)
    dev = em.asarray(offsets, device=device).device
    return string_column(em.asarray(data, device=dev), em.asarray(offsets, device=dev),
                         None if valid is None else em.asarray(valid, device=dev))


def _pack_arrow(values, device):
    """pyarrow's C encoder when pyarrow is present and every value is a str
    or a null (None, NaN, pandas' NA); None otherwise (pack() then says what
    is wrong, or does the work without pyarrow)."""
    try:
        import pyarrow as pa
    except ImportError:
        return None
    try:
        arr = pa.array(values, type=pa.large_string(), from_pandas=True)
    except (pa.ArrowException, TypeError, ValueError):
        return None
    from ._arrow import column_from_arrow
    return column_from_arrow(arr, device)


def encode(col):
    """The core's one call for a string key: (codes, categories).  codes is an
    int32 Ember array on the column's device, the rank of each row's value
    among the distinct values in sorted (code point) order, -1 for a null;
    categories is the string Column of those distinct values, sorted.  Equal
    strings get equal codes, and codes order as the strings do, so sort,
    group-by and merge run on the codes."""
    if col.kind != "string":
        raise TypeError(f"encode() takes a string column, not {col.kind}")
    c, uniq = codes(col.data, col.offsets, col.validity)
    cats = col.take(uniq)
    return c, cats._replace(validity=None)


def sort_key(col):
    """The int64 order key of a string column for the table core's sort,
    group-by and merge (_keys.value_key): the dictionary codes, on the device
    (-1 under nulls; the core pairs the key with its null flag)."""
    c, _ = codes(col.data, col.offsets, col.validity)
    return c.astype(_em().int64)


def equals(data, offsets, value):
    """Whether each string equals value: same byte length and same bytes."""
    b = _pat_bytes(value)
    lens = byte_lengths(offsets)
    return _prefix_match(data, offsets[:-1], lens, b) & (lens == len(b))


def eq_scalar(col, value, negate=False):
    """col == value (or !=) as a bool Column on the device, pandas' "str"
    semantics: a null is unequal to every string."""
    eq = equals(col.data, col.offsets, value)
    if col.validity is not None:
        eq = eq & col.validity
    return _column()("num", np.bool_, ~eq if negate else eq)


def encode_many(cols):
    """Codes that agree across several string columns (both sides of a merge):
    ([codes of each column], categories)."""
    from ._column import concat_columns
    both = concat_columns([c for c in cols])
    c, cats = encode(both)
    out, start = [], 0
    for col in cols:
        out.append(c[start:start + len(col)])
        start += len(col)
    return out, cats


def _code_dtype(ncat):
    return np.int8 if ncat < 128 else (np.int16 if ncat < 32768 else np.int32)


def to_category(col):
    """astype("category"): codes (int8/16/32, -1 where null) and the sorted
    distinct values as the categories, computed on the column's device."""
    em = _em()
    if col.kind == "category":
        return col
    if col.kind == "string":
        c, cats = encode(col)
    elif col.kind == "num" or col.kind in ("datetime", "timedelta"):
        ok = col.notna()
        vals = col.data[ok] if col.validity is not None or col.is_float else col.data
        u = em.unique(vals)
        c = em.where(ok, em.searchsorted(u, col.data), -1)
        cats = col._replace(data=u, validity=None)
    else:
        raise TypeError(f"cannot make a category of a {col.kind} column")
    ct = _code_dtype(len(cats))
    miss = c < 0
    valid = None if not bool(em.any(miss)) else ~miss
    return _column()("category", ct, c.astype(ct), validity=valid, categories=cats)


class StringMethods:
    """pandas' ``.str`` on one string Column; each method returns a Column.
    Predicates give bool columns with nulls as ``na`` (False by default, as
    pandas' "str" dtype); ``len`` keeps the nulls."""

    def __init__(self, col):
        if col.kind != "string":
            raise AttributeError("Can only use .str accessor with string values!")
        self._c = col

    def _bool(self, res, na):
        em = _em()
        v = self._c.validity
        if v is not None:
            fill = False if na is None or (isinstance(na, float) and na != na) else bool(na)
            res = em.where(v, res, fill)
        return _column()("num", np.bool_, res)

    def _host(self, fn):
        c = self._c
        return host_map(c.data, c.offsets, c.validity, fn)

    def len(self):
        c = self._c
        return _column()("num", np.int64, char_lengths(c.data, c.offsets), validity=c.validity)

    def _case(self, upper):
        c = self._c
        if is_ascii(c.data):
            return string_column(case_map(c.data, upper), c.offsets, c.validity)
        if upper:
            warn_fallback("str.upper", c.device)
            return from_values(self._host(str.upper), c.device)
        warn_fallback("str.lower", c.device)
        return from_values(self._host(str.lower), c.device)

    def lower(self):
        return self._case(False)

    def upper(self):
        return self._case(True)

    def _affix(self, pat, fn, na):
        em = _em()
        pats = pat if isinstance(pat, tuple) else (pat,)
        for p in pats:
            if not isinstance(p, str):
                raise TypeError(f"expected a string or tuple, not {type(p).__name__}")
        c = self._c
        res = em.zeros(len(c), dtype=em.bool, device=c.device)
        for p in pats:
            res = res | fn(c.data, c.offsets, p)
        return self._bool(res, na)

    def startswith(self, pat, na=None):
        return self._affix(pat, startswith, na)

    def endswith(self, pat, na=None):
        return self._affix(pat, endswith, na)

    def contains(self, pat, case=True, flags=0, na=None, regex=True):
        c = self._c
        if not isinstance(pat, str):
            raise TypeError(f"first argument must be string, not {type(pat).__name__}")
        literal = (not regex or is_literal(pat)) and not flags
        if literal and case:
            return self._bool(contains(c.data, c.offsets, pat), na)
        if literal and pat.isascii() and is_ascii(c.data):
            return self._bool(contains(case_map(c.data, False), c.offsets, pat.lower()), na)
        # a regular expression, or case folding beyond ASCII: Python's re on the host
        warn_fallback("str.contains", c.device)
        if not case:
            flags |= re.IGNORECASE
        rx = re.compile(pat if regex else re.escape(pat), flags)
        got = self._host(lambda s: rx.search(s) is not None)
        em = _em()
        res = em.asarray(np.array([bool(g) for g in got], dtype=bool), device=c.device)
        return self._bool(res, na)
