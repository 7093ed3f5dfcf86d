"""describe(): count, mean, std, min, quartiles (linear interpolation, as
pandas' default), max of the numeric columns; each column sorted once on the
device (em.sort puts NaN last, so the valid values are a prefix)."""
import numpy as np

import ember as em

from ._column import Column
from ._convert import column_from_any
from ._index import Index
from ._ops import reduce_column

_STATS = ["count", "mean", "std", "min", "25%", "50%", "75%", "max"]


def _quantiles(col, qs):
    ok = col.notna()
    cnt = int(em.sum(ok))
    if cnt == 0:
        return [np.nan] * len(qs)
    v = col.data[em.nonzero(ok)[0]].astype(np.float64)
    s = em.sort(v)
    out = []
    for q in qs:
        pos = q * (cnt - 1)
        lo = int(np.floor(pos))
        hi = min(lo + 1, cnt - 1)
        a, b = float(s[lo]), float(s[hi])
        out.append(a + (b - a) * (pos - lo))
    return out


def describe(df):
    from ._frame import DataFrame
    names = df._numeric()
    if not names:
        raise ValueError("describe() of frames without numeric columns is not "
                         "implemented yet")
    cols = {}
    for k in names:
        c = df._cols[k]
        if c.dtype == np.bool_:
            continue
        cnt = len(c) - c.null_count()
        q = _quantiles(c, [0.25, 0.5, 0.75])
        mn = reduce_column(c, "min")
        mx = reduce_column(c, "max")
        vals = [cnt, reduce_column(c, "mean"), reduce_column(c, "std"), mn, q[0], q[1], q[2],
                mx]
        cols[k] = Column.from_numpy(np.array(vals, dtype=np.float64), df.device)
    idx = Index([column_from_any(np.array(_STATS, dtype=object), df.device)], [None])
    return DataFrame._new(cols, idx, df.device)
