"""Row keys on the device: order-preserving integer keys of a column, joint dense
codes of several key columns, and the segments of sorted keys. Sorting,
group-by, merge and drop_duplicates all start here.

Everything below runs with Ember ops (lexsort = the device radix sort, stable;
cumsum, gathers, comparisons), so it runs on CPU, CUDA and OpenCL alike; a
string column's key is its dictionary codes in code-point order, ranked on the
device by _strings.sort_key.
"""
import numpy as np

import ember as em

from ._column import Column


def value_key(col):
    """An Ember array whose order is the column's value order (nulls arbitrary:
    pair it with null_flag). Strings/categories give integer ranks."""
    if col.kind == "string":
        from . import _strings  # device dictionary codes in code-point order
        return _strings.sort_key(col)
    if col.kind == "category":
        # pandas orders categoricals by their category order, i.e. by code
        return col.data.astype(np.int64)
    if col.dtype.kind == "c":
        raise TypeError("complex values have no order to sort or group by")
    if col.dtype == np.bool_:
        return col.data.astype(np.int8)
    return col.data


def clean_key(col):
    """value_key with every null replaced by 0, so equal rows compare equal,
    and integer keys narrowed to their range (see _narrow)."""
    k = value_key(col)
    if col.validity is not None or col.is_float:
        k = em.where(col.isna(), em.zeros(1, dtype=k.dtype, device=col.device), k)
    return _narrow(k)


def _narrow(k):
    """An integer key as (k - min) in the smallest unsigned type holding its
    range: same order, fewer radix passes on the device, and NumPy's argsort
    takes its radix sort for 16-bit keys on the CPU (8x faster than int64)."""
    n = int(k.shape[0])
    if k.dtype.kind not in "iu" or k.dtype.itemsize <= 2 or n < 4096:
        return k
    lo, hi = int(em.min(k)), int(em.max(k))
    span = hi - lo
    if span < 2 ** 16:
        return (k - lo).astype(np.uint16)
    if span < 2 ** 32 and k.dtype.itemsize > 4:
        return (k - lo).astype(np.uint32)
    return k


def null_flag(col):
    """int8 key: 1 where null (sorts nulls after values)."""
    return col.isna().astype(np.int8)


def _packable(k):
    """Non-negative integer keys: narrowed keys (unsigned) and 0/1 flags (int8)."""
    return k.dtype.kind == "u" or k.dtype == np.int8


def pack(keys):
    """Runs of adjacent non-negative integer keys (primary first) packed into
    one unsigned key (the first in the high bits) where their value bits fit in
    63: the same order and the same runs of equal rows, with fewer sort passes
    and comparisons (a null flag and two keys of 100 and 10^5 values: 1 bit +
    7 + 17 = 25 bits, one 32-bit key instead of three)."""
    if len(keys) < 2 or int(keys[0].shape[0]) < 4096 or sum(map(_packable, keys)) < 2:
        return keys
    out, run, bits = [], [], []

    def flush():
        if len(run) == 1:
            out.append(run[0])
        elif run:
            total = sum(bits)
            dt = np.uint32 if total <= 32 else np.uint64
            acc = None
            for k, b in zip(run, bits):
                v = k.astype(dt)
                acc = v if acc is None else (acc << dt(b)) | v
            out.append(acc)
        run.clear()
        bits.clear()

    for k in keys:
        b = max(int(em.max(k)).bit_length(), 1) if _packable(k) else None
        if b is None or sum(bits) + b > 63:
            flush()
        if b is None:
            out.append(k)
        else:
            run.append(k)
            bits.append(b)
    flush()
    return out


def _ordered_bits(h):
    """A NumPy key as unsigned integers of the same order (ties kept), less
    their minimum so that the high digits of a narrow range are not sorted:
    floats by their bits with the sign folded (-0.0 first made +0.0, so that
    it ties with 0.0; keys here hold no NaN), signed ints offset by 2^63."""
    if h.dtype.kind == "u" or h.dtype == np.bool_ or h.dtype.itemsize == 1:
        return h if h.dtype.kind == "u" else h.astype(np.uint8)
    if h.dtype.kind == "f":
        w = np.uint64 if h.dtype.itemsize == 8 else np.uint32
        h = (h.astype(np.float64 if w is np.uint64 else np.float32) + 0.0).view(w)
        sign = w(1) << w(63 if w is np.uint64 else 31)
        u = np.where(h & sign, ~h, h | sign)
    elif h.dtype.kind == "i":
        u = h.astype(np.int64).view(np.uint64) ^ np.uint64(1 << 63)
    else:  # datetimes and other kinds never reach here (value_key gives ints)
        raise TypeError(f"no radix key for {h.dtype}")
    return u - u.min()


def _cpu_lsd(keys):
    """The CPU's stable multi-key order: LSD passes of NumPy's stable argsort,
    a wide unsigned key split into 16-bit digits so that every pass of it is
    NumPy's radix sort (np.lexsort merge-sorts each key: ~10x slower)."""
    perm = None
    for k in reversed(keys):
        h = _ordered_bits(np.asarray(k))
        if h.dtype.itemsize > 2:
            top = max(int(h.max()).bit_length(), 1)
            digits = [((h >> h.dtype.type(s)) & h.dtype.type(0xFFFF)).astype(np.uint16)
                      for s in range(0, top, 16)]
        else:
            digits = [h]
        for d in digits:
            p = np.argsort(d if perm is None else d[perm], kind="stable")
            perm = p if perm is None else perm[p]
    return em.asarray(perm.astype(np.int64, copy=False), device=keys[0].device)


def _cpu_one(h):
    """The CPU's stable order of one wide numeric key: NumPy's default argsort
    (vectorised introsort, ~3x its stable sort) and, only where equal values
    exist, each run of ties put back in row order by one sort of the unique
    int64 keys (run, row)."""
    o = np.argsort(h)
    s = h[o]
    ties = s[1:] == s[:-1]
    if not ties.any():
        return o
    n = len(h)
    run = np.concatenate([[0], np.cumsum(~ties)]).astype(np.int64)
    return np.sort(run * n + o) % n


def _stable_order(keys):
    """The stable order sorting by keys[0], then keys[1], ...: one argsort for
    one key (the radix sort directly), em.lexsort for several (it sorts by its
    last key first); on the CPU, LSD passes of 16-bit radix sorts."""
    if keys[0]._dev[0] == "cpu" and int(keys[0].shape[0]) >= 4096 and \
            all(k.dtype.kind in "uifb" for k in keys):
        if len(keys) == 1 and keys[0].dtype.itemsize > 2 and \
                int(keys[0].shape[0]) < 2 ** 31:
            return em.asarray(_cpu_one(np.asarray(keys[0])).astype(np.int64),
                              device=keys[0].device)
        return _cpu_lsd(keys)
    if len(keys) == 1:
        return em.argsort(keys[0], stable=True).astype(np.int64)
    return em.lexsort(keys[::-1]).astype(np.int64)


def dense_rank(key):
    """Dense ranks (0..k-1, order-preserving) of one Ember key array; used to
    turn a descending key into an ascending one without overflow."""
    n = int(key.shape[0])
    if n == 0:
        return em.zeros(0, dtype=np.int64, device=key.device)
    order = em.argsort(key, stable=True)
    s = key[order]
    flag = em.concatenate([em.zeros(1, dtype=np.int64, device=key.device),
                           (s[1:] != s[:-1]).astype(np.int64)])
    ranks_sorted = em.cumsum(flag).astype(np.int64)
    out = em.zeros(n, dtype=np.int64, device=key.device)
    out[order] = ranks_sorted
    return out


class Segments:
    """Rows sorted by the joint keys and the segments of equal keys:
    order (sorted position -> row), starts/ends per segment, gid (segment of
    each sorted position), codes (segment of each row), n segments."""

    def __init__(self, order, starts, ends, flag, n):
        self.order, self.starts, self.ends = order, starts, ends
        self._flag, self.n = flag, n
        self._gid = self._codes = None

    # gid and codes are built on first use: a CPU group-by sum needs neither
    @property
    def gid(self):
        if self._gid is None:
            self._gid = (em.cumsum(self._flag.astype(np.int64)) - 1).astype(np.int64)
        return self._gid

    @property
    def codes(self):
        if self._codes is None:
            nrows = int(self.order.shape[0])
            self._codes = em.zeros(nrows, dtype=np.int64, device=self.order.device)
            if nrows:
                self._codes[self.order] = self.gid
        return self._codes


def segments(cols, nulls_equal=True):
    """Sort rows by the key columns (lexicographic, nulls last in each key) and
    find the runs of equal keys. Nulls compare equal to each other."""
    dev = cols[0].device
    nrows = len(cols[0])
    keys = []
    for c in cols:
        # the null flag first: a key's nulls sort after its values (pandas puts
        # the null group / outer-join key last)
        if c.validity is not None or c.is_float:
            keys.append(null_flag(c))
        keys.append(clean_key(c))
    if nrows == 0:
        z = em.zeros(0, dtype=np.int64, device=dev)
        return Segments(z, z, z, em.zeros(0, dtype=np.bool_, device=dev), 0)
    keys = pack(keys)
    order = _stable_order(keys)
    change = None
    for k in keys:
        s = k[order]
        d = s[1:] != s[:-1]
        change = d if change is None else (change | d)
    flag = em.concatenate([em.ones(1, dtype=np.bool_, device=dev), change])
    starts = em.nonzero(flag)[0].astype(np.int64)
    n = int(starts.shape[0])
    ends = em.concatenate([starts[1:], em.full(1, nrows, dtype=np.int64, device=dev)])
    return Segments(order, starts, ends, flag, n)


def any_null(cols):
    """Bool Ember array: the row has a null in any of the columns (or None)."""
    m = None
    for c in cols:
        if c.validity is not None or c.is_float:
            m = c.isna() if m is None else (m | c.isna())
    return m


def sort_order(cols, ascending, na_last=True):
    """A stable row order sorting by the columns, each ascending or not, nulls
    placed first or last (pandas' sort_values)."""
    keys = []
    for c, asc in zip(cols, ascending):
        k = clean_key(c)
        if not asc:
            k = -dense_rank(k)
        keys.append(k)
        if c.validity is not None or c.is_float:
            f = null_flag(c)
            keys.append(f if na_last else (1 - f).astype(np.int8))
    n = len(cols[0])
    if n == 0:
        return em.zeros(0, dtype=np.int64, device=cols[0].device)
    # null flag of a key sorts before its value
    pri = []
    i = 0
    for c in cols:
        k = keys[i]
        i += 1
        if c.validity is not None or c.is_float:
            pri.append(keys[i])
            i += 1
        pri.append(k)
    return _stable_order(pack(pri))


__all__ = ["Column", "segments", "sort_order", "dense_rank", "value_key", "any_null"]
