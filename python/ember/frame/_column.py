"""One column of a data frame on one device: the shared contract of `ember.frame`.

The layout follows Arrow's so that the IO/interop side (pyarrow, the PyCapsule
stream, DLPack) can hand buffers over without reshaping them:

- ``kind`` "num" (bool/int/uint/float/complex), "datetime", "timedelta",
  "string", "category";
- ``dtype`` the logical NumPy dtype: the numeric dtype; datetime64[unit] /
  timedelta64[unit]; dtype('O') for strings; the codes' dtype for categories;
- ``data`` the values as one Ember array of length n; datetime64/timedelta64
  are stored as int64 ticks of ``unit`` (Ember has no datetime dtype); strings
  keep the concatenated UTF-8 bytes (uint8) and ``offsets`` (int64, n+1: Arrow's
  large_string layout); a category keeps its integer codes in ``data`` and its
  dictionary (a Column) in ``categories``;
- ``validity`` None (no nulls) or a bool Ember array, True = valid. It stays a
  byte mask on the device (one gather/where per operation, no bit twiddling);
  it is packed to Arrow's LSB bitmap only at the Arrow boundary.

The null model: a row is null when its validity is False; for float and
complex columns a NaN is null too (pandas' default model), so NaN-bearing
NumPy data needs no validity array and stays zero-copy. Under a null the data
holds an arbitrary value of the right dtype (0 where we write it; -1 for
category codes, as pandas does).

Columns are immutable: every method returns a new Column; arrays may be shared.
"""
import numpy as np

import ember as em

KINDS = ("num", "datetime", "timedelta", "string", "category")
_STR = np.dtype("O")


def _dev(device):
    return em.Device(device) if isinstance(device, str) else device


def _to_dev(a, device):
    """An Ember array of `a` on `device` (a no-op when it is already there)."""
    if isinstance(a, em.ndarray):
        if device is None or str(a.device) == str(device):
            return a
        return em.asarray(em.asnumpy(a), device=device)
    return em.asarray(np.ascontiguousarray(a), device=device)


def _i64(values, device):
    return em.asarray(np.asarray(values, dtype=np.int64), device=device)


class Column:
    """One immutable column on one device (see the module docstring for the layout)."""

    __slots__ = ("kind", "dtype", "data", "offsets", "validity", "categories", "unit")

    def __init__(self, kind, dtype, data, offsets=None, validity=None, categories=None,
                 unit=None):
        if kind not in KINDS:
            raise ValueError(f"unknown column kind {kind!r} (one of {KINDS})")
        self.kind = kind
        self.dtype = np.dtype(dtype)
        self.data = data
        self.offsets = offsets
        self.validity = validity
        self.categories = categories
        self.unit = unit

    # ----------------------------------------------------------- basics
    def __len__(self):
        if self.kind == "string":
            return int(self.offsets.shape[0]) - 1
        return int(self.data.shape[0])

    @property
    def device(self):
        return (self.offsets if self.kind == "string" else self.data).device

    def __repr__(self):
        return (f"Column(kind={self.kind!r}, dtype={self.dtype}, n={len(self)}, "
                f"nulls={self.null_count()}, device={self.device})")

    def _replace(self, **kw):
        d = {k: getattr(self, k) for k in self.__slots__}
        d.update(kw)
        return Column(**d)

    @property
    def is_float(self):
        return self.kind == "num" and self.dtype.kind in "fc"

    def isna(self):
        """A bool Ember array, True where the row is null (validity False, or NaN)."""
        n = len(self)
        miss = None
        if self.validity is not None:
            miss = ~self.validity
        if self.is_float:
            nan = em.isnan(self.data)
            miss = nan if miss is None else (miss | nan)
        if miss is None:
            return em.zeros(n, dtype=np.bool_, device=self.device)
        return miss

    def notna(self):
        return ~self.isna()

    def has_nulls(self):
        if self.validity is None and not self.is_float:
            return False
        return len(self) > 0 and bool(em.any(self.isna()))

    def null_count(self):
        if len(self) == 0 or (self.validity is None and not self.is_float):
            return 0
        return int(em.sum(self.isna()))

    # ------------------------------------------------------ row selection
    def take(self, indices, allow_fill=False):
        """Rows at `indices` (an int Ember array). With allow_fill, an index -1
        gives a null row (merges and reindexing use it)."""
        dev = self.device
        idx = _to_dev(indices, dev)
        if idx.dtype != np.int64:
            idx = idx.astype(np.int64)
        m = int(idx.shape[0])
        fill = None
        if allow_fill:
            fill = idx >= 0
            if len(self) == 0:
                # nothing to gather from: every row is a null
                return Column.nulls(self, m)
            idx = em.where(fill, idx, 0)
        validity = self.validity[idx] if self.validity is not None else None
        if fill is not None:
            validity = fill if validity is None else (validity & fill)
        if self.kind == "string":
            offsets, data = _take_strings(self.offsets, self.data, idx)
            return self._replace(offsets=offsets, data=data, validity=validity)
        data = self.data[idx]
        if fill is not None and self.kind == "category":
            data = em.where(fill, data, -1).astype(self.dtype)
        return self._replace(data=data, validity=validity)

    def filter(self, mask):
        """The rows where the bool Ember array `mask` is True, in order."""
        m = _to_dev(mask, self.device)
        if m.dtype != np.bool_:
            raise TypeError("a column filter needs a boolean mask")
        if int(m.shape[0]) != len(self):
            raise ValueError(f"boolean mask of length {int(m.shape[0])} for a column of "
                             f"length {len(self)}")
        return self.take(em.nonzero(m)[0])

    def slice(self, start, stop):
        """Rows start:stop (step 1) as views where the layout allows."""
        n = len(self)
        start, stop, _ = slice(start, stop).indices(n)
        stop = max(stop, start)
        validity = self.validity[start:stop] if self.validity is not None else None
        if self.kind == "string":
            return self.take(em.arange(start, stop, dtype=np.int64, device=self.device))
        return self._replace(data=self.data[start:stop], validity=validity)

    # -------------------------------------------------------- conversions
    def to_numpy(self, na_value=None):
        """Host values: numbers in their dtype (NaN for nulls of floats); ints/bools
        with nulls become float64/object as pandas' default does unless na_value is
        given; datetimes as datetime64[unit] (NaT); strings as an object array."""
        miss = em.asnumpy(self.isna()) if (self.validity is not None or self.is_float) \
            else None
        if miss is not None and not miss.any():
            miss = None
        if self.kind == "string":
            return _strings_to_numpy(self, miss, na_value)
        if self.kind == "category":
            cats = self.categories.to_numpy()
            codes = em.asnumpy(self.data).astype(np.int64)
            out = np.empty(len(codes), dtype=object)
            ok = codes >= 0 if miss is None else (codes >= 0) & ~miss
            out[ok] = cats[codes[ok]]
            out[~ok] = na_value
            return out
        vals = em.asnumpy(self.data)
        if self.kind in ("datetime", "timedelta"):
            t = "M8" if self.kind == "datetime" else "m8"
            vals = vals.view(f"{t}[{self.unit}]").copy()
            if miss is not None:
                vals[miss] = np.datetime64("NaT") if t == "M8" else np.timedelta64("NaT")
            return vals
        if miss is None:
            return vals
        if na_value is None:
            if vals.dtype.kind in "fc":
                na_value = np.nan
            elif vals.dtype.kind in "iu":
                vals, na_value = vals.astype(np.float64), np.nan
            else:
                vals, na_value = vals.astype(object), None
        elif vals.dtype.kind != np.asarray(na_value).dtype.kind:
            vals = vals.astype(np.result_type(vals.dtype, np.asarray(na_value).dtype))
        vals = vals.copy()
        vals[miss] = na_value
        return vals

    @classmethod
    def from_numpy(cls, values, device=None, mask=None):
        """A Column from a NumPy array (or an Ember array) on `device`; `mask`
        (True = null, NumPy's masked-array convention) adds nulls. Object arrays of
        str become strings (None/NaN entries null); NaT is null."""
        if isinstance(values, em.ndarray):
            device = device if device is not None else values.device
            validity = None if mask is None else ~_to_dev(mask, device).astype(np.bool_)
            return cls("num", values.dtype, _to_dev(values, device), validity=validity)
        values = np.asarray(values)
        if values.ndim != 1:
            raise ValueError(f"a column needs 1-d values, got shape {values.shape}")
        miss = None if mask is None else np.asarray(mask, dtype=bool)
        k = values.dtype.kind
        if k in "MmO" or k in "US":
            if k in "Mm":
                unit = np.datetime_data(values.dtype)[0]
                nat = np.isnat(values)
                miss = nat if miss is None else (miss | nat)
                data = values.view(np.int64).copy()
                data[nat] = 0
                kind = "datetime" if k == "M" else "timedelta"
                return cls(kind, values.dtype, _to_dev(data, device),
                           validity=_validity(miss, device), unit=unit)
            return _strings_from_values(values, device, miss)
        if k not in "biufc":
            raise TypeError(f"dtype {values.dtype} cannot be a column")
        return cls("num", values.dtype, _to_dev(values, device),
                   validity=_validity(miss, device))

    @classmethod
    def from_pylist(cls, values, device=None):
        """A Column from a Python list: None (and float NaN) are nulls; the kind is
        inferred as NumPy would, with all-str lists becoming strings."""
        values = list(values)
        nulls = [v is None or (isinstance(v, float) and v != v) for v in values]
        present = [v for v, z in zip(values, nulls) if not z]
        if present and all(isinstance(v, str) for v in present):
            return _strings_from_values(np.array(values, dtype=object), device,
                                        np.array(nulls, dtype=bool))
        if not present:
            arr = np.full(len(values), np.nan)
            return cls.from_numpy(arr, device)
        arr = np.array(present)
        if arr.dtype.kind == "b" or arr.dtype.kind in "iu":
            full = np.zeros(len(values), dtype=arr.dtype)
            full[~np.array(nulls, dtype=bool)] = arr
            m = np.array(nulls, dtype=bool)
            return cls.from_numpy(full, device, mask=m if m.any() else None)
        if arr.dtype.kind in "fc":
            full = np.full(len(values), np.nan, dtype=arr.dtype)
            full[~np.array(nulls, dtype=bool)] = arr
            return cls.from_numpy(full, device)
        if arr.dtype.kind in "Mm":
            full = np.full(len(values), np.datetime64("NaT") if arr.dtype.kind == "M"
                           else np.timedelta64("NaT"), dtype=arr.dtype)
            full[~np.array(nulls, dtype=bool)] = arr
            return cls.from_numpy(full, device)
        raise TypeError(f"cannot make a column of {type(present[0]).__name__} values")

    @classmethod
    def nulls(cls, like, n):
        """n null rows of `like`'s kind and dtype (on its device)."""
        dev = like.device
        validity = em.zeros(n, dtype=np.bool_, device=dev)
        if like.kind == "string":
            return like._replace(data=em.zeros(0, dtype=np.uint8, device=dev),
                                 offsets=em.zeros(n + 1, dtype=np.int64, device=dev),
                                 validity=validity)
        fillv = -1 if like.kind == "category" else 0
        data = em.full(n, fillv, dtype=like.data.dtype, device=dev)
        if like.is_float:
            data = em.full(n, np.nan, dtype=like.dtype, device=dev)
        return like._replace(data=data, validity=validity)

    def to_device(self, device):
        def mv(a):
            return None if a is None else _to_dev(a, device)
        cats = self.categories.to_device(device) if self.categories is not None else None
        return self._replace(data=mv(self.data), offsets=mv(self.offsets),
                             validity=mv(self.validity), categories=cats)


# ----------------------------------------------------------------- helpers
def _validity(miss, device):
    if miss is None or not miss.any():
        return None
    return em.asarray(~miss, device=device)


def _strings_from_values(values, device, miss):
    """Encode str values on the host (UTF-8) and move bytes and offsets to the
    device; frameio's _strings.py replaces this with a device encoder."""
    n = len(values)
    if values.dtype.kind in "US":
        vals = values.astype(str).astype(object)
    else:
        vals = values
    null = np.zeros(n, dtype=bool) if miss is None else miss.copy()
    enc = []
    for i, v in enumerate(vals):
        if null[i] or v is None or (isinstance(v, float) and v != v):
            null[i] = True
            enc.append(b"")
        elif isinstance(v, str):
            enc.append(v.encode("utf-8"))
        elif isinstance(v, bytes):
            enc.append(v)
        else:
            raise TypeError(f"a string column cannot hold {type(v).__name__} value {v!r}")
    lens = np.fromiter((len(b) for b in enc), dtype=np.int64, count=n)
    offsets = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(lens, out=offsets[1:])
    data = np.frombuffer(b"".join(enc), dtype=np.uint8)
    return Column("string", _STR, em.asarray(data.copy(), device=device),
                  offsets=em.asarray(offsets, device=device),
                  validity=_validity(null, device))


def _strings_to_numpy(col, miss, na_value):
    offs = em.asnumpy(col.offsets)
    raw = em.asnumpy(col.data).tobytes()
    n = len(offs) - 1
    out = np.empty(n, dtype=object)
    for i in range(n):
        out[i] = raw[offs[i]:offs[i + 1]].decode("utf-8")
    if miss is not None:
        out[miss] = na_value
    return out


def _take_strings(offsets, data, idx):
    """Gather strings: the expression kernels of _strgather (every backend),
    else (no C compiler on the CPU) Arrow's take on the CPU, else new lengths
    by a gather, new offsets by a scan, then each output byte finds its row
    (row ends counted per byte, then a scan: _dense.owners) and reads its
    source byte (any backend)."""
    dev = offsets.device
    m = int(idx.shape[0])
    from . import _strgather  # a kernel per row: one pass over the kept bytes
    got = _strgather.take(offsets, data, idx)
    if got is not None:
        return got
    if offsets._dev[0] == "cpu":
        host = _take_strings_host(offsets, data, idx)
        if host is not None:
            return host
    lens = offsets[1:] - offsets[:-1]
    new_lens = lens[idx]
    new_offsets = em.concatenate([em.zeros(1, dtype=np.int64, device=dev),
                                  em.cumsum(new_lens).astype(np.int64)])
    total = int(new_offsets[m]) if m else 0
    if total == 0:
        return new_offsets, em.zeros(0, dtype=np.uint8, device=dev)
    from ._dense import owners  # each output byte's row: count row ends, then a scan
    row = owners(new_offsets[1:], total)
    j = em.arange(total, dtype=np.int64, device=dev)
    src = (offsets[:-1][idx] - new_offsets[:-1])[row] + j
    return new_offsets, data[src]


def _take_strings_host(offsets, data, idx):
    """On the CPU without a C compiler, Arrow's string take (one copy per row)
    on the shared buffers: the byte-wise gather below costs several passes
    over the bytes. None without pyarrow (the portable path then runs)."""
    try:
        import pyarrow as pa
        import pyarrow.compute as pc
    except ImportError:
        return None
    offs = np.ascontiguousarray(np.asarray(offsets), dtype=np.int64)
    raw = np.ascontiguousarray(np.asarray(data), dtype=np.uint8)
    arr = pa.Array.from_buffers(pa.large_string(), len(offs) - 1,
                                [None, pa.py_buffer(offs), pa.py_buffer(raw)])
    out = pc.take(arr, pa.array(np.asarray(idx), type=pa.int64()))
    m = len(out)
    bufs = out.buffers()
    o = np.frombuffer(bufs[1], dtype=np.int64)[out.offset:out.offset + m + 1]
    b = np.frombuffer(bufs[2], dtype=np.uint8) if bufs[2] is not None else \
        np.zeros(0, np.uint8)
    b = b[o[0]:o[-1]] if m else b[:0]
    dev = offsets.device  # explicit: the default device may be another one
    return em.asarray(o - o[0], device=dev), em.asarray(b, device=dev)


def concat_columns(cols):
    """Rows of several Columns of one kind, in order (nulls kept)."""
    first = cols[0]
    dev = first.device
    if any(c.kind != first.kind for c in cols):
        raise TypeError("cannot concatenate columns of different kinds")
    anynull = any(c.validity is not None for c in cols)
    validity = None
    if anynull:
        validity = em.concatenate([c.validity if c.validity is not None
                                   else em.ones(len(c), dtype=np.bool_, device=dev)
                                   for c in cols])
    if first.kind == "string":
        parts, base = [em.zeros(1, dtype=np.int64, device=dev)], 0
        for c in cols:
            parts.append(_to_dev(c.offsets, dev)[1:] + base)
            base += int(c.offsets[len(c)]) if len(c) else 0
        data = em.concatenate([_to_dev(c.data, dev) for c in cols])
        return first._replace(offsets=em.concatenate(parts), data=data, validity=validity)
    if first.kind == "category":
        if any(c.categories is not first.categories for c in cols):
            # different dictionaries: decode and re-encode (host) for now
            from ember import _host
            _host.warn_fallback("frame.category_concat", dev)
            vals = np.concatenate([c.to_numpy() for c in cols])
            from ._convert import category_from_values
            return category_from_values(vals, dev)
    if first.kind == "num":
        dtype = np.result_type(*[c.dtype for c in cols])
        data = em.concatenate([_to_dev(c.data, dev).astype(dtype) for c in cols])
    else:
        if any(c.unit != first.unit for c in cols):
            raise TypeError("cannot concatenate datetimes of different units")
        dtype = first.dtype
        data = em.concatenate([_to_dev(c.data, dev) for c in cols])
    return first._replace(data=data, validity=validity, dtype=dtype)
