"""Automatic fusion: elementwise results are lazy and run fused.

An elementwise op on Ember arrays returns a *pending* array: its dtype and
shape are known at once, its values are computed when something needs them
(a host read, ``repr``, ``bool()``, indexing, a write into an array it reads,
an op that cannot fuse, a limit of the tree, or :func:`eval`).  All the
pending ops up to that point run as one evaluation: one generated kernel on
CUDA, one pass of the block interpreter on the CPU, with no full-size
temporaries.  A reduction of a pending array takes the elementwise producer
into its own pass.  Fused results equal unfused ones bit for bit.

Small CPU results (below ``min_size`` elements, 16384 by default) run
eagerly: building a node costs more than a 1000-element loop.  Operands in
memory Ember does not own (a NumPy array wrapped without a copy, a DLPack
import) also run eagerly, since their owner may change them while a result
waits.  ``EMBER_DEBUG=1`` logs each evaluation with its reason.
"""
import functools

from . import _ember

__all__ = ["eval", "fuse"]


def eval(*arrays):  # noqa: A001  (em.eval, as the issue names it)
    """Evaluate the pending arrays given (others are left alone); returns
    the single array, or a tuple for several.

    >>> import ember as em
    >>> x = em.ones(100_000)
    >>> y = em.eval(x * 2 + 1)
    """
    _ember.eval(*arrays)
    if len(arrays) == 1:
        return arrays[0]
    return arrays


def fuse(fn=None, *, kernel_name=None):
    """Decorator (CuPy's ``cupy.fuse`` shape): run ``fn`` with every
    elementwise result lazy, whatever its size, and evaluate what it returns
    (an array, or a tuple / list of them) through the same planner.

    >>> import ember as em
    >>> @em.fuse
    ... def f(x, y):
    ...     return (x - y) * (x + y)
    """
    if fn is None:
        return lambda f: fuse(f, kernel_name=kernel_name)

    @functools.wraps(fn)
    def fused(*args, **kwargs):
        _ember._fuse_enter()
        try:
            out = fn(*args, **kwargs)
        finally:
            _ember._fuse_exit()
        if isinstance(out, (tuple, list)):
            _ember.eval(*out)
        else:
            _ember.eval(out)
        return out

    return fused
