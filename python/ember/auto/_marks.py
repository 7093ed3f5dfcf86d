"""Results of auto arrays stay auto (docs/auto.md).

The extension marks what its own entries return (elementwise work, fused
chains, reductions, scans, copies, casts, views, gathers).  Ember's Python
functions that build a new array themselves -- concatenate and stack, host
fallbacks through NumPy, linalg, fft, unique, einsum, pad, ... -- make it
where their inputs are but through entries that know nothing of auto.  So,
once the first auto array exists (install() is called from ember.auto's
import, which that creation triggers), every public function of ``ember``,
``ember.linalg`` and ``ember.fft``, and every ndarray method written in
Python, is wrapped: when its array arguments
(looked for one level into lists and tuples) are all auto, or it was asked
for ``device="auto"``, the arrays it returns are marked auto.  A process
that never makes an auto array never pays for the wrapper; one that does
pays one argument scan per call.

Not marked: results of calls with a pinned array among the inputs (a pinned
operand decides, and a view of it must not become auto: the mark belongs to
the memory), and of calls naming a fixed ``device=``.  Names bound before
install (``from ember import concatenate`` earlier in the program) keep the
unwrapped function.
"""
import functools
import types

from .. import _ember

# Functions with their own auto rules (ember/_creation.py) or no array result.
_SKIP = frozenset(("asarray", "array", "asanyarray", "ascontiguousarray", "set_default_device",
                   "get_device", "get_default_device", "eval", "fuse", "synchronize",
                   "asnumpy", "from_dlpack"))
_WRAPPED = "_ember_auto_marks"
_FUNCS = (types.FunctionType, types.BuiltinFunctionType)


def _scan(values, seen):
    """seen[0]: an auto array found; seen[1]: a pinned one."""
    for v in values:
        if isinstance(v, _ember.ndarray):
            seen[0 if _ember._auto_is(v) else 1] = True
        elif isinstance(v, (list, tuple)):
            for w in v:
                if isinstance(w, _ember.ndarray):
                    seen[0 if _ember._auto_is(w) else 1] = True


def _asks_auto(device):
    return device == "auto" or (getattr(device, "kind", None) == "auto")


def _mark(r):
    if isinstance(r, _ember.ndarray):
        if not _ember._auto_is(r):
            _ember._auto_mark(r)
    elif isinstance(r, (list, tuple)):
        for x in r:
            if isinstance(x, _ember.ndarray) and not _ember._auto_is(x):
                _ember._auto_mark(x)
    return r


def _device_index(fn):
    """The position of fn's device parameter when it may be given by
    position (x.to_device("cpu")), else None."""
    import inspect
    try:
        params = list(inspect.signature(fn).parameters.values())
    except (TypeError, ValueError):
        return None
    for k, p in enumerate(params):
        if p.name == "device" and p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD):
            return k
    return None


def _wrap(fn):
    at = _device_index(fn)

    @functools.wraps(fn)
    def call(*args, **kw):
        r = fn(*args, **kw)
        dev = args[at] if at is not None and len(args) > at else kw.get("device")
        if dev is not None:
            return _mark(r) if _asks_auto(dev) else r
        seen = [False, False]
        _scan(args, seen)
        if kw:
            _scan(kw.values(), seen)
        return _mark(r) if seen[0] and not seen[1] else r
    setattr(call, _WRAPPED, fn)
    return call


# One wrapper per function, so that names of one function stay one object
# (em.matmul is em.linalg.matmul, em.amax is em.max).
_wrappers = {}


def _wrap_module(mod, names):
    for name in names:
        if name.startswith("_") or name in _SKIP:
            continue
        fn = mod.__dict__.get(name)
        if isinstance(fn, _FUNCS) and not hasattr(fn, _WRAPPED):
            if fn not in _wrappers:
                _wrappers[fn] = _wrap(fn)
            setattr(mod, name, _wrappers[fn])


_done = []


def install():
    """Wrap ember's public functions (once)."""
    if _done:
        return
    _done.append(True)
    import ember
    from .. import fft, linalg
    for n in ember._NAME_MODULE:  # the lazily loaded names that return arrays
        if ember._NAME_MODULE[n] in ("linalg", "_sorting"):
            getattr(ember, n)  # loads it into the package's namespace
    for mod in (ember, linalg, fft):
        _wrap_module(mod, list(vars(mod)))
    # ndarray methods written in Python (x.repeat, x.take, x.nonzero, ...):
    # the modules that attach them are loaded by now.
    t = _ember.ndarray
    for name, fn in list(vars(t).items()):
        if (not name.startswith("_") and isinstance(fn, types.FunctionType)
                and not hasattr(fn, _WRAPPED)):
            setattr(t, name, _wrap(fn))
