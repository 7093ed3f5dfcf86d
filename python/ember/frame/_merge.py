"""merge on the device: joint dense codes of the key columns of both sides (one
sort of the concatenated keys), the right codes sorted (stable), and for each
left row the range of equal right codes by two searchsorted calls; the output
pairs are expanded with a scan and a binary search (no host loop), and the
columns gathered. Null keys match each other, as in pandas.
"""
import numpy as np

import ember as em

from ._column import concat_columns
from ._index import RangeIndex
from . import _dense, _keys


def _names(left, right, on, left_on, right_on):
    if on is not None:
        if left_on is not None or right_on is not None:
            raise ValueError('Can only pass argument "on" OR "left_on" and "right_on", '
                             "not a combination of both.")
        on = [on] if not isinstance(on, list) else on
        left_on = right_on = on
    elif left_on is not None or right_on is not None:
        if left_on is None or right_on is None:
            raise ValueError('Must pass "left_on" and "right_on" together')
        left_on = [left_on] if not isinstance(left_on, list) else left_on
        right_on = [right_on] if not isinstance(right_on, list) else right_on
        if len(left_on) != len(right_on):
            raise ValueError("len(right_on) must equal len(left_on)")
    else:
        common = [k for k in left._cols if k in right._cols]
        if not common:
            raise ValueError("No common columns to perform merge on. Merge options: "
                             "left_on=None, right_on=None, left_index=False, "
                             "right_index=False")
        left_on = right_on = common
    for k in left_on:
        if k not in left._cols:
            raise KeyError(k)
    for k in right_on:
        if k not in right._cols:
            raise KeyError(k)
    return list(left_on), list(right_on)


def _check_kinds(lc, rc, lk, rk):
    num = ("num",)
    if lc.kind != rc.kind or (lc.kind in num and (lc.dtype.kind == "b") != (rc.dtype.kind == "b")):
        raise ValueError(f"You are trying to merge on {lc.dtype} and {rc.dtype} columns for "
                         f"key '{lk}'. If you wish to proceed you should use pd.concat")


def _expand(cnt_out, dev):
    """For counts c_i, the owner i of each output slot and its rank inside it."""
    total = int(em.sum(cnt_out)) if int(cnt_out.shape[0]) else 0
    if total == 0:
        z = em.zeros(0, dtype=np.int64, device=dev)
        return z, z, 0
    incl = em.cumsum(cnt_out).astype(np.int64)
    j = em.arange(total, dtype=np.int64, device=dev)
    owner = _dense.owners(incl, total)
    within = j - (incl - cnt_out)[owner]
    return owner, within, total


def _first_of_codes(sorted_codes, k, dev):
    """first[c] = where code c starts in the sorted codes, for c in 0..k (one
    searchsorted with sorted needles: sequential, unlike per-row lookups)."""
    return em.searchsorted(sorted_codes, em.arange(k + 1, dtype=np.int64, device=dev),
                           side="left").astype(np.int64)


def _side_sorted(seg, lo, hi):
    """The rows lo..hi-1 of the stacked keys in key order (stable) and their
    codes, read off the one sort of both sides (a filter, no second sort)."""
    o = seg.order
    m = (o >= lo) & (o < hi)
    return o[m] - lo, seg.gid[m]


def _pairs(lc, r_order, rs, k, keep_unmatched_left, dev):
    """(left rows, right rows or -1) for every match of lc in the right side
    (r_order: right rows in code order, rs: their codes), in left order, right
    rows of one key in their order; unmatched left rows once with -1. Codes are
    dense (0..k-1), so each left row's range of equal right codes is two
    gathers from the start of every code in the sorted right codes."""
    nr = int(rs.shape[0])
    first = _first_of_codes(rs, k, dev)
    lo = first[lc]
    cnt = first[lc + 1] - lo
    cnt_out = em.maximum(cnt, 1) if keep_unmatched_left else cnt
    li, within, total = _expand(cnt_out, dev)
    if total == 0:
        return li, li
    matched = cnt[li] > 0
    pos = em.minimum(lo[li] + within, max(nr - 1, 0))
    ri = em.where(matched, r_order[pos], -1) if nr else em.full(total, -1, dtype=np.int64,
                                                                device=dev)
    return li, ri.astype(np.int64)


def merge(left, right, how="inner", on=None, left_on=None, right_on=None,
          suffixes=("_x", "_y"), sort=False, left_index=False, right_index=False,
          indicator=False, validate=None, keep_index=False):
    """pandas' merge. keep_index (private): the result's index is the left
    rows' index (inner and left joins on the right's index)."""
    from ._frame import DataFrame
    from ._series import Series
    if isinstance(right, Series):  # pandas merges a named Series as a one-column frame
        if right.name is None:
            raise ValueError("Cannot merge a Series without a name")
        right = right.to_frame()
    if right_index and not left_index and left_on is not None and on is None \
            and right_on is None and how in ("inner", "left") \
            and isinstance(right, DataFrame) and right.index.nlevels == 1:
        return _on_right_index(left, right, how, left_on, suffixes, sort)
    if left_index or right_index:
        raise NotImplementedError("merge(left_index=True / right_index=True) is supported "
                                  "only as left_on= with right_index=True, inner or left; "
                                  "reset_index() and merge on the columns")
    if indicator:
        raise NotImplementedError("merge(indicator=True) is not supported")
    if validate is not None:
        raise NotImplementedError("merge(validate=...) is not supported")
    if how not in ("inner", "left", "right", "outer"):
        raise ValueError(f"how must be one of inner, left, right, outer; got {how!r}")
    if not isinstance(right, DataFrame):
        raise TypeError(f"Can only merge DataFrame objects, a {type(right).__name__} was "
                        "passed")
    lk, rk = _names(left, right, on, left_on, right_on)
    dev = left.device
    right = right.to_device(dev) if str(right.device) != str(dev) else right
    nl = len(left)
    for a, b in zip(lk, rk):
        _check_kinds(left._cols[a], right._cols[b], a, b)
    pairs = None if sort else _dense_pairs(left, right, lk, rk, how, dev)
    if pairs is not None:
        return _assemble(left, right, lk, rk, pairs[0], pairs[1], how, suffixes, dev,
                         pairs[2], keep_index)
    joint = []
    for a, b in zip(lk, rk):
        lcol, rcol = left._cols[a], right._cols[b]
        joint.append(concat_columns([lcol, rcol]))
    seg = _keys.segments(joint) if nl + len(right) else None
    codes = seg.codes if seg is not None else em.zeros(0, dtype=np.int64, device=dev)
    k = seg.n if seg is not None else 0
    lc, rc = codes[:nl], codes[nl:]
    nr = len(right)
    if seg is not None:
        l_order, ls = _side_sorted(seg, 0, nl)
        r_order, rs = _side_sorted(seg, nl, nl + nr)
    else:
        l_order = ls = r_order = rs = codes
    if how == "right":
        ri, li = _pairs(rc, l_order, ls, k, True, dev)
    else:
        li, ri = _pairs(lc, r_order, rs, k, how in ("left", "outer"), dev)
    if how == "outer" and nr:
        first = _first_of_codes(ls, k, dev)
        hit = first[rc + 1] - first[rc]
        extra = em.nonzero(hit == 0)[0].astype(np.int64)
        if int(extra.shape[0]):
            li = em.concatenate([li, em.full(int(extra.shape[0]), -1, dtype=np.int64,
                                             device=dev)])
            ri = em.concatenate([ri, extra])
    n_out = int(li.shape[0])
    if (how == "outer" or sort) and n_out:
        # outer joins list the keys in sorted order (codes preserve the order)
        kc = em.where(li >= 0, lc[em.maximum(li, 0)] if nl else li,
                      rc[em.maximum(ri, 0)] if len(right) else ri)
        o = em.argsort(kc, stable=True).astype(np.int64)
        li, ri = li[o], ri[o]
    return _assemble(left, right, lk, rk, li, ri, how, suffixes, dev, False, keep_index)


def _on_right_index(left, right, how, left_on, suffixes, sort):
    """merge(left_on=..., right_index=True): the right's index as its key,
    the left rows' index kept (pandas), the right's key not among the columns."""
    from ._frame import DataFrame
    if isinstance(left_on, list):
        if len(left_on) != 1:
            raise ValueError("len(left_on) must equal the number of levels in the index "
                             "of \"right\"")
        left_on = left_on[0]
    key = "__ember_right_index__"
    cols = {key: right.index.levels[0]}
    cols.update(right._cols)
    r = DataFrame._new(cols, RangeIndex(0, len(right), 1, right.device), right.device)
    out = merge(left, r, how=how, left_on=left_on, right_on=key, suffixes=suffixes,
                sort=sort, keep_index=True)
    del out._cols[key]
    return out


def _assemble(left, right, lk, rk, li, ri, how, suffixes, dev, identity=False,
              keep_index=False):
    """The merged frame from the row pairs (li, ri; -1: no row on that side).
    identity: li is every left row in order, so the left columns are shared
    (columns are immutable) instead of gathered."""
    from ._frame import DataFrame
    nl = len(left)
    n_out = int(li.shape[0])
    out = {}
    shared = [a for a, b in zip(lk, rk) if a == b]
    lrest = [k for k in left._cols if k not in shared]
    rrest = [k for k in right._cols if k not in shared]
    clash = set(lrest) & set(rrest)
    if clash and (suffixes[0] in (None, "") and suffixes[1] in (None, "")):
        raise ValueError(f"columns overlap but no suffix specified: {sorted(clash)}")
    for k in left._cols:
        if identity and k not in clash:
            out[k] = left._cols[k]
        elif k in shared and how in ("inner", "left"):
            out[k] = left._cols[k].take(li)  # every output row has a left row
        elif k in shared:
            # a shared key takes the left value, or the right one where the left is
            # missing: one gather from the two key columns stacked
            both = concat_columns([left._cols[k], right._cols[rk[lk.index(k)]]])
            idx = em.where(li >= 0, li, nl + ri) if n_out else li
            out[k] = both.take(idx)
        elif identity:
            out[f"{k}{suffixes[0] or ''}"] = left._cols[k]
        else:
            name = f"{k}{suffixes[0] or ''}" if k in clash else k
            out[name] = left._cols[k].take(li, allow_fill=True)
    for k in right._cols:
        if k in shared:
            continue
        name = f"{k}{suffixes[1] or ''}" if k in clash else k
        if name in out:
            raise ValueError(f"duplicate column {name!r} after merge")
        out[name] = right._cols[k].take(ri, allow_fill=True)
    if keep_index:  # every output row has a left row (inner and left joins)
        index = left.index if identity else left.index.take(li)
    else:
        index = RangeIndex(0, n_out, 1, dev)
    return DataFrame._new(out, index, dev)


# ---- the dense-key join ----------------------------------------------------------------------
DENSE_FACTOR = 4  # a right key range up to 4 slots per right row (+1024) takes a lookup table


def _dense_pairs(left, right, lk, rk, how, dev):
    """(li, ri, identity) for an inner or left join on one integer key whose
    right-side values span a small range (a dimension table's key): the key
    minus its minimum is the code, so no sort of the left side is needed.
    Unique right keys: a lookup table code -> right row, built by a scatter,
    read by one gather per left row (left order kept, as pandas keeps it).
    Repeated right keys: the right rows sorted by code (the small side) and a
    count per code give each left row its range, expanded as in _pairs.
    None where the case does not fit (the sort-merge handles it)."""
    if how not in ("inner", "left") or len(lk) != 1:
        return None
    lcol, rcol = left._cols[lk[0]], right._cols[rk[0]]
    nl, nr = len(left), len(right)
    for c in (lcol, rcol):
        # uint64 may not fit int64 codes; bools are not "dense ints" to pandas either
        if c.kind != "num" or c.dtype.kind not in "iu" or c.dtype == np.uint64:
            return None
    if nl == 0 or nr == 0 or lcol.has_nulls() or rcol.has_nulls():
        return None
    rd = rcol.data
    lo, hi = (int(v) for v in em.asnumpy(em.stack([em.min(rd).astype(np.int64),
                                                     em.max(rd).astype(np.int64)])))
    width = hi - lo + 1
    if width > DENSE_FACTOR * nr + 1024:
        return None
    rc = rd.astype(np.int64) - lo
    ld = lcol.data.astype(np.int64)
    # a left key outside the right range gets the code `width`: no right rows
    lc = em.where((ld >= lo) & (ld <= hi), ld - lo, width)
    cnt = _dense.counts(rc, width)
    if int(em.max(cnt)) <= 1:
        table = em.full(width + 1, -1, dtype=np.int64, device=dev)
        table[rc] = em.arange(nr, dtype=np.int64, device=dev)
        ri = table[lc]
        if how == "left":
            return em.arange(nl, dtype=np.int64, device=dev), ri, True
        li = em.nonzero(ri >= 0)[0].astype(np.int64)
        if int(li.shape[0]) == nl:  # every left row matched: the left columns as they are
            return li, ri, True
        return li, ri[li], False
    r_order = em.argsort(rc, stable=True).astype(np.int64)
    li, ri = _pairs(lc, r_order, rc[r_order], width + 1, how == "left", dev)
    return li, ri, False
