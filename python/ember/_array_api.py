"""The Array API inspection namespace (``__array_namespace_info__``)."""


def __array_namespace_info__():
    from ._array_api_info import Info
    return Info()
