"""ember.frame: data frames whose columns are Ember arrays on one device.

The table core (DataFrame, Series, Index, group-by, merge, sort) lives here;
the layout of one column is the shared contract in _column.py. See docs/frames.md.
"""
from ._column import Column  # noqa: F401
