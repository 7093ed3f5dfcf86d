"""Host hand-off for functions whose work is NumPy's (sorting, sets, FFT).

A CPU ember array lends its buffer to ``numpy.asarray`` without a copy and
a NumPy result is wrapped back the same way.  Arrays on another device make
a round trip through host memory, so the functions built on this work on
every device but are not fast there; device kernels can replace these
helpers later without changing the public signatures."""
import numpy as _np

from . import _ember


def device_of(*arrays):
    """The device string of the first ember array among arrays (None: current)."""
    for a in arrays:
        if isinstance(a, _ember.ndarray):
            kind, id_ = a._dev
            return f"{kind}:{id_}"
    return None


def host(a):
    """A NumPy array with a's values: a view of a CPU ember array's buffer
    (no copy), a host copy for other devices; other input is returned as is
    (Python scalars stay scalars: NumPy then applies NEP 50)."""
    if isinstance(a, _ember.ndarray):
        if a._dev[0] != "cpu":
            a = a.to_device("cpu")
        return _np.asarray(a)
    return a


def wrap(r, device):
    """A NumPy result as an ember array on device (zero copy on the CPU)."""
    return _ember.asarray(_np.asarray(r), None, device, None)


def check(a, name):
    """TypeError unless a is an ember array."""
    if not isinstance(a, _ember.ndarray):
        raise TypeError(f"{name}() expects an ember.ndarray, not {type(a).__name__}")


class HostFallbackWarning(UserWarning):
    """A function ran on the host for an array on a device: its data made a
    round trip through host memory.  Warned once per function name; the
    functions that still do this are listed in docs/host_fallbacks.txt."""


_warned = set()


def warn_fallback(name, device):
    """Warn (once per function) that name ran on the host for device; on the
    CPU the host is the device and nothing is said.  With EMBER_DEBUG set
    (>= 1) every such call is also printed to stderr, not only the first."""
    if device is None or str(device).startswith("cpu"):
        return
    msg = (f"ember.{name} ran on the host for an array on {device} (a copy each way); "
           "a device kernel for it is not written yet")
    if _debug():
        import sys
        print(f"[ember] host fallback: {msg}", file=sys.stderr)
    if name in _warned:
        return
    _warned.add(name)
    import warnings
    warnings.warn(msg, HostFallbackWarning, stacklevel=3)


def _debug():
    import os
    try:
        return int(os.environ.get("EMBER_DEBUG", "0") or "0") >= 1
    except ValueError:
        return False
