"""Host-side conversions that have no device kernel yet (categories from values)."""
import numpy as np

from ._column import Column


def category_from_values(values, device, categories=None):
    """A category Column from host values: the dictionary is the sorted distinct
    non-null values (pandas' default) unless `categories` is given."""
    values = np.asarray(values, dtype=object)
    null = np.array([v is None or (isinstance(v, float) and v != v) for v in values],
                    dtype=bool)
    if categories is None:
        categories = np.array(sorted(set(values[~null].tolist())), dtype=object)
    categories = np.asarray(categories)
    lookup = {v: i for i, v in enumerate(categories.tolist())}
    codes = np.array([-1 if z else lookup.get(v, -1) for v, z in zip(values, null)],
                     dtype=np.int64)
    ct = np.int8 if len(categories) < 128 else (np.int16 if len(categories) < 32768
                                                else np.int32)
    cats = Column.from_numpy(categories.astype(object) if categories.dtype.kind in "OUS"
                             else categories, device)
    miss = codes < 0
    return Column("category", ct, _dev_array(codes.astype(ct), device),
                  validity=_dev_array(~miss, device) if miss.any() else None,
                  categories=cats)


def _dev_array(a, device):
    import ember as em
    return em.asarray(a, device=device)
