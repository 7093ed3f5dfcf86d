"""ember.frame for other libraries: the Arrow PyCapsule interface
(``__arrow_c_stream__``, ``__arrow_c_schema__``: ``pyarrow.table(df)``,
Polars, DuckDB, narwhals), the DataFrame interchange protocol
(``__dataframe__``: ``pandas.api.interchange.from_dataframe(df)``), and the
methods that IO, Arrow and the ``.str`` accessor add to DataFrame and Series.

Both protocols are served by the pyarrow Table of the frame (_io.to_arrow):
its buffers are the columns' own memory on the CPU (no copy), so a consumer
reads Ember's arrays; a frame on a device is copied to the host once.
``attach()`` installs the methods; ``ember.frame`` calls it on import.
"""
from . import _arrow, _io, _strings

__all__ = ["attach", "from_dataframe"]


def arrow_c_stream(df, requested_schema=None):
    return _io.to_arrow(df).__arrow_c_stream__(requested_schema)


def arrow_c_schema(df):
    return _io.to_arrow(df.head(0)).schema.__arrow_c_schema__()


def dataframe_protocol(df, nan_as_null=False, allow_copy=True):
    """The interchange protocol object (pyarrow's implementation over the
    frame's Arrow table)."""
    return _io.to_arrow(df).__dataframe__(nan_as_null=nan_as_null, allow_copy=allow_copy)


def from_dataframe(obj, device=None):
    """A DataFrame from any object with ``__arrow_c_stream__`` or the
    interchange protocol's ``__dataframe__`` (pandas, Polars, Modin ...)."""
    pa = _arrow.pyarrow()
    if hasattr(obj, "__arrow_c_stream__"):
        return _io.from_arrow(pa.table(obj), device)
    if hasattr(obj, "__dataframe__"):
        import pyarrow.interchange
        return _io.from_arrow(pyarrow.interchange.from_dataframe(obj), device)
    raise TypeError(f"from_dataframe() needs __arrow_c_stream__ or __dataframe__; "
                    f"{type(obj).__name__} has neither")


class StringAccessor:
    """``Series.str``: the device string methods of _strings.StringMethods,
    each giving a Series with the same index and name."""

    def __init__(self, series):
        self._s = series
        self._m = _strings.StringMethods(series._col)

    def __getattr__(self, name):
        fn = getattr(self._m, name)
        s = self._s

        def call(*args, **kw):
            return type(s)._new(fn(*args, **kw), s.index, s.name)
        call.__name__ = name
        call.__doc__ = fn.__doc__
        return call

    def __dir__(self):
        return [n for n in dir(_strings.StringMethods) if not n.startswith("_")]


def _series_to_arrow(s):
    return _arrow.column_to_arrow(s._col)


def _series_c_stream(s, requested_schema=None):
    pa = _arrow.pyarrow()
    name = "" if s.name is None else str(s.name)
    return pa.table({name: _series_to_arrow(s)}).__arrow_c_stream__(requested_schema)


def attach():
    """Install the IO/interop methods on DataFrame and the .str accessor on
    Series (the table core's classes; this module owns the methods)."""
    from ._frame import DataFrame
    from ._series import Series
    DataFrame.to_csv = _io.to_csv
    DataFrame.to_parquet = _io.to_parquet
    DataFrame.to_arrow = _io.to_arrow
    DataFrame.from_arrow = staticmethod(_io.from_arrow)
    DataFrame.__arrow_c_stream__ = arrow_c_stream
    DataFrame.__arrow_c_schema__ = arrow_c_schema
    DataFrame.__dataframe__ = dataframe_protocol
    Series.str = property(StringAccessor, doc="Vectorised string methods (device kernels).")
    Series.to_arrow = _series_to_arrow
    Series.__arrow_c_stream__ = _series_c_stream
    import sys
    if "dask.dataframe" in sys.modules:  # else the entry point registers on first use
        from . import dask as _dask
        _dask.register()
