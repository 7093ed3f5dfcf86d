"""Row labels: RangeIndex (no storage) and Index (one or several Columns, the
levels; several make a MultiIndex as group-by on several keys gives)."""
import numpy as np

import ember as em

from ._column import Column, concat_columns


class Index:
    """Labels made of Columns (one per level) with a name per level."""

    def __init__(self, levels, names):
        self.levels = list(levels)
        self.names = list(names)

    @property
    def name(self):
        return self.names[0] if len(self.names) == 1 else None

    @property
    def nlevels(self):
        return len(self.levels)

    def __len__(self):
        return len(self.levels[0])

    @property
    def device(self):
        return self.levels[0].device

    def take(self, idx):
        return Index([lv.take(idx) for lv in self.levels], self.names)

    def _monotonic(self, increasing):
        """Lexicographic order of the rows over all levels (nulls: not monotonic,
        as pandas).  One comparison of neighbours per level, on the device."""
        n = len(self)
        if n < 2:
            return True
        if any(lv.has_nulls() or lv.kind == "string" for lv in self.levels):
            return bool(getattr(self.to_pandas(), "is_monotonic_increasing" if increasing
                                else "is_monotonic_decreasing"))
        ok = None   # rows i where (row i, row i+1) is already decided as ordered
        tie = None  # rows i where all levels so far are equal
        for lv in self.levels:
            a, b = lv.data[:-1], lv.data[1:]
            lt, eq = (a < b, a == b) if increasing else (a > b, a == b)
            ok = lt if ok is None else ok | (tie & lt)
            tie = eq if tie is None else tie & eq
        return bool(em.all(ok | tie))

    @property
    def dtype(self):
        """The pandas dtype of a one-level index (object for several levels)."""
        if self.nlevels != 1:
            return np.dtype(object)
        from ._series import Series
        return Series._new(self.levels[0], None, None).to_pandas_dtype()

    def astype(self, dtype):
        from ._ops import astype_column
        if self.nlevels != 1:
            raise NotImplementedError("astype of a multi-level index")
        return Index([astype_column(self.levels[0], dtype)], self.names)

    @property
    def is_monotonic_increasing(self):
        return self._monotonic(True)

    @property
    def is_monotonic_decreasing(self):
        return self._monotonic(False)

    def slice(self, start, stop):
        return Index([lv.slice(start, stop) for lv in self.levels], self.names)

    def to_device(self, device):
        return Index([lv.to_device(device) for lv in self.levels], self.names)

    def to_numpy(self):
        if self.nlevels == 1:
            return self.levels[0].to_numpy()
        arrs = [lv.to_numpy() for lv in self.levels]
        out = np.empty(len(self), dtype=object)
        out[:] = list(zip(*arrs))
        return out

    def to_pandas(self):
        import pandas as pd
        from ._convert import column_to_pandas
        if self.nlevels == 1:
            return pd.Index(column_to_pandas(self.levels[0]), name=self.names[0])
        return pd.MultiIndex.from_arrays([column_to_pandas(lv) for lv in self.levels],
                                         names=self.names)

    def get_locs(self, labels):
        """Positions of labels (a scalar or list) in a one-level index (host
        lookup: labels are few); KeyError for a missing one."""
        from ember import _host
        _host.warn_fallback("frame.label_lookup", self.device)
        vals = self.to_numpy()
        single = np.isscalar(labels) or isinstance(labels, tuple)
        want = [labels] if single else list(labels)
        if self.nlevels > 1:
            pos = {}
            for i, v in enumerate(vals):
                pos.setdefault(v, []).append(i)
        else:
            pos = {}
            for i, v in enumerate(vals.tolist()):
                pos.setdefault(v, []).append(i)
        out = []
        for w in want:
            if w not in pos:
                raise KeyError(w)
            out.extend(pos[w])
        return out, single and len(out) == 1

    def __repr__(self):
        return f"Index({self.to_numpy().tolist()!r}, names={self.names})"


class RangeIndex(Index):
    """start, start+step, ... (stop excluded), stored as nothing until needed."""

    def __init__(self, start, stop, step=1, device=None, name=None):
        self.start, self.stop, self.step = int(start), int(stop), int(step)
        self._device = device
        self.names = [name]

    @property
    def levels(self):
        return [Column.from_numpy(em.arange(self.start, self.stop, self.step,
                                            dtype=np.int64, device=self._device))]

    def __len__(self):
        return len(range(self.start, self.stop, self.step))

    def take(self, idx):
        """The labels at positions idx (int64, in range): idx itself on 0, 1, ...
        (a filter's index shares its positions), else start + step * idx; no
        arange of the whole range and no gather."""
        idx = idx if isinstance(idx, em.ndarray) else em.asarray(np.asarray(idx, np.int64),
                                                                  device=self._device)
        if idx.dtype != np.int64:
            idx = idx.astype(np.int64)
        lab = idx if (self.start, self.step) == (0, 1) else idx * self.step + self.start
        return Index([Column.from_numpy(lab)], self.names)

    @property
    def dtype(self):
        return np.dtype(np.int64)

    def astype(self, dtype):
        if np.dtype(dtype) == np.int64:
            return self
        return Index(self.levels, self.names).astype(dtype)

    @property
    def is_monotonic_increasing(self):
        return self.step > 0 or len(self) < 2

    @property
    def is_monotonic_decreasing(self):
        return self.step < 0 or len(self) < 2

    @property
    def device(self):
        return self._device

    def slice(self, start, stop):
        r = range(self.start, self.stop, self.step)[start:stop]
        return RangeIndex(r.start, r.stop, r.step, self._device, self.names[0])

    def to_device(self, device):
        return RangeIndex(self.start, self.stop, self.step, device, self.names[0])

    def to_numpy(self):
        return np.arange(self.start, self.stop, self.step, dtype=np.int64)

    def to_pandas(self):
        import pandas as pd
        return pd.RangeIndex(self.start, self.stop, self.step, name=self.names[0])

    def get_locs(self, labels):
        r = range(self.start, self.stop, self.step)
        single = np.isscalar(labels)
        want = [labels] if single else list(labels)
        out = []
        for w in want:
            if not isinstance(w, (int, np.integer)) or isinstance(w, bool) or w not in r:
                raise KeyError(w)
            out.append(r.index(w))
        return out, single

    def __repr__(self):
        return f"RangeIndex(start={self.start}, stop={self.stop}, step={self.step})"


def concat_indexes(idxs):
    if all(isinstance(i, RangeIndex) for i in idxs):
        # pandas keeps a RangeIndex only when the pieces continue each other
        if all(i.step == 1 for i in idxs) and all(
                i.start == idxs[k - 1].stop for k, i in enumerate(idxs) if k):
            return RangeIndex(idxs[0].start, idxs[-1].stop, 1, idxs[0].device, idxs[0].name)
    nl = idxs[0].nlevels
    if any(i.nlevels != nl for i in idxs):
        raise ValueError("cannot concatenate indexes with different numbers of levels")
    levels = [concat_columns([i.levels[k] for i in idxs]) for k in range(nl)]
    return Index(levels, idxs[0].names)
