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


def _stable_order(keys):
    """The stable order sorting by keys[0], then keys[1], ...: one argsort for
    one key (the radix sort directly), em.lexsort for several (it sorts by its
    last key first)."""
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
    return _stable_order(pri)


__all__ = ["Column", "segments", "sort_order", "dense_rank", "value_key", "any_null"]
