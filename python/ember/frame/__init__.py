"""ember.frame: data frames whose columns are Ember arrays on one device.

The table core (DataFrame, Series, Index, group-by, merge, sort) lives here;
the layout of one column is the shared contract in _column.py. See docs/frames.md.
"""
from ._column import Column  # noqa: F401
from ._index import Index, RangeIndex  # noqa: F401
from ._series import Series  # noqa: F401
from ._frame import DataFrame, concat  # noqa: F401


def from_pandas(obj, device=None):
    """An Ember DataFrame or Series from a pandas one."""
    import pandas as pd
    if isinstance(obj, pd.Series):
        return Series.from_pandas(obj, device)
    return DataFrame.from_pandas(obj, device)


# em.concat stays the array function; it forwards frames and series here
__all__ = ["Column", "DataFrame", "Series", "Index", "RangeIndex", "from_pandas"]
from . import _interchange as _frameio  # noqa: E402 (IO, Arrow, __dataframe__, .str)
_frameio.attach()
