"""Elementwise functions, one per row of the C op table (include/ember/ops.def).

Each is ``f(x1[, x2], /, out=None, *, dtype=None)`` with broadcasting and
NumPy 2 promotion (Python scalars are weak)."""
from . import _ember

_ufunc = _ember.ufunc


def _make(name, nin):
    if nin == 1:
        def f(x, /, out=None, *, dtype=None):
            return _ufunc(name, x, out=out, dtype=dtype)
    elif nin == 2:
        def f(x1, x2, /, out=None, *, dtype=None):
            return _ufunc(name, x1, x2, out=out, dtype=dtype)
    else:
        def f(x1, x2, x3, /, out=None, *, dtype=None):
            return _ufunc(name, x1, x2, x3, out=out, dtype=dtype)
    f.__name__ = f.__qualname__ = name
    f.__doc__ = f"Elementwise {name}, as numpy.{name}."
    return f


__all__ = []
for _name, (_code, _nin) in _ember.ops.items():
    if _name in ("copy", "where"):
        continue
    globals()[_name] = _make(_name, _nin)
    __all__.append(_name)


def where(condition, x=None, y=None, /):
    """Elements of x where condition is true, else of y."""
    if x is None and y is None:
        from ._indexing import nonzero
        return nonzero(condition)
    if x is None or y is None:
        raise ValueError("either both or neither of x and y should be given")
    return _ufunc("where", condition, x, y)


__all__.append("where")
