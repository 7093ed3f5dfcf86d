"""Running a NumPy function on the host for Ember arguments.

The functions of Ember's NumPy surface that have no device algorithm yet
call :func:`numpy_fallback` with their public name *as a literal* (the test
tests/python/test_host_fallbacks.py reads those names from the source and
compares them with docs/host_fallbacks.txt).  On the CPU it costs nothing:
ember arrays lend NumPy their buffers and NumPy's results are wrapped back
without a copy.  For an array on a device the data make a round trip
through host memory, announced by ``_host.warn_fallback``."""
import numpy as _np

from . import _ember
from . import _host


def _current_device():
    kind, id_ = _ember._get_device()
    return f"{kind}:{id_}"


def find_device(args, kwargs=None):
    """The device of the first ember array in args/kwargs (nested in lists,
    tuples and dicts), or None."""
    stack = list(args) + (list(kwargs.values()) if kwargs else [])
    while stack:
        a = stack.pop(0)
        if isinstance(a, _ember.ndarray):
            kind, id_ = a._dev
            return f"{kind}:{id_}"
        if isinstance(a, (list, tuple)):
            stack = list(a) + stack
        elif isinstance(a, dict):
            stack = list(a.values()) + stack
    return None


def to_host(a):
    """a with every ember array (also inside lists, tuples, dicts) as NumPy."""
    if isinstance(a, _ember.ndarray):
        return _host.host(a)
    if isinstance(a, list):
        return [to_host(x) for x in a]
    if isinstance(a, tuple) and not hasattr(a, "_fields"):
        return tuple(to_host(x) for x in a)
    if isinstance(a, dict):
        return {k: to_host(v) for k, v in a.items()}
    return a


def to_device(r, device):
    """NumPy results (arrays, NumPy scalars, tuples/lists of them) as ember
    arrays on device; Python objects (bool, int, str, None) stay as they are."""
    if isinstance(r, _np.ndarray):
        if r.dtype.kind not in "biufc":
            return r  # strings, objects: NumPy's own (Ember has no such dtypes)
        return _host.wrap(r, device)
    if isinstance(r, _np.generic):
        return _host.wrap(_np.asarray(r), device) if r.dtype.kind in "biufc" else r
    if isinstance(r, tuple):
        vals = [to_device(x, device) for x in r]
        return type(r)(*vals) if hasattr(r, "_fields") else tuple(vals)
    if isinstance(r, list):
        return [to_device(x, device) for x in r]
    return r


def numpy_fallback(name, np_fn, *args, **kwargs):
    """np_fn(*args, **kwargs) on the host, its arrays back on the arguments'
    device (the current device when no argument is an ember array)."""
    device = find_device(args, kwargs) or _current_device()
    _host.warn_fallback(name, device)
    return to_device(np_fn(*to_host(args), **to_host(kwargs)), device)


def host_only(np_fn, *args, **kwargs):
    """np_fn on the host where the work is the host's by nature (files,
    text, printing): no warning, since no device kernel could do it."""
    device = find_device(args, kwargs) or _current_device()
    return to_device(np_fn(*to_host(args), **to_host(kwargs)), device)
