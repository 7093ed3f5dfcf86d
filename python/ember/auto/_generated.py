"""Device-generated auto arrays: data made chunk by chunk where it is used
(docs/auto.md, "Out of core").

``em.random.random(n, device="auto")`` (and ``standard_normal``,
``uniform``, ``normal``, ``integers``/``randint``) and ``em.arange(...,
device="auto")`` larger than every GPU's free memory, on a machine with a
GPU, return a :class:`Generated` array instead of filling host memory: it
holds only how to make any run of its elements on any device -- a Philox
draw's element j depends only on (key, counter, j), so a chunk starting at
element j0 is a draw of its own at the counter j0 advances to; an arange's
element i is start + i * delta from a device-side index -- and the scalar
arithmetic applied to it since.  A full reduction (``sum``, ``prod``, ``min``,
``max``, ``mean``, ``any``, ``all``) then generates, transforms and reduces
each chunk on the GPUs (every GPU, one thread each, chunks round robin),
with no host data at all.  Anything else materialises the array first as
an ordinary auto array on the host (``materialize()``; every other
attribute and ``__array__`` do it), which needs the host memory it takes.

Chunk boundaries are multiples of 8 elements, where every Philox kind and
dtype starts on a block boundary, so each chunk's values are those of the
whole draw's elements there, bit for bit (float sums differ from the whole
array's in the order of their additions only).
"""
import math

from .. import _ember
from . import _place

_REDUCTIONS = {"sum": "sum", "prod": "prod", "min": "min", "max": "max", "any": "any",
               "all": "all"}
_CHUNK_CAP = 1 << 30  # bytes of one generated chunk at most


def _gpus():
    return [d for d in _place.candidates() if d != "cpu"]


def _host_limit():
    """Bytes above which host memory is not to be spent on a creation that
    no GPU can hold: half the memory the host has available now."""
    import os
    try:
        return os.sysconf("SC_AVPHYS_PAGES") * os.sysconf("SC_PAGE_SIZE") // 2
    except (ValueError, OSError, AttributeError):
        return 1 << 62


def wanted(nbytes):
    """Whether an auto creation of nbytes is generated lazily: a GPU is a
    candidate, none can hold it, and it would take more than half the host's
    available memory (below that an ordinary host array streams too, and is
    an ndarray for every use)."""
    if nbytes <= _host_limit():
        return False
    gpus = _gpus()
    return bool(gpus) and all(nbytes > _place._avail(d) for d in gpus)


class Generated:
    """A lazily generated auto array (see the module): shape, dtype, size,
    nbytes and ndim are known; ``make(lo, hi, device)`` gives its flat
    elements [lo, hi) on device; ops are the scalar transforms applied since."""

    __array_priority__ = 20

    def __init__(self, shape, dtype, make, ops=(), devices=None):
        import numpy as np
        from .. import _device
        _device._auto_used = True  # its results are auto arrays
        self.shape = tuple(int(n) for n in shape)
        self.dtype = np.dtype(dtype)
        self._make, self._ops, self._devices = make, tuple(ops), devices
        self._full = None

    size = property(lambda self: math.prod(self.shape))
    ndim = property(lambda self: len(self.shape))
    nbytes = property(lambda self: self.size * self.dtype.itemsize)

    @property
    def device(self):
        from .. import _device
        return _device.Device("auto")

    def __repr__(self):
        return (f"ember.auto.Generated(shape={self.shape}, dtype={self.dtype}, "
                f"{len(self._ops)} ops, made on the device when used)")

    def __getitem__(self, key):
        return self.materialize()[key]

    def __len__(self):
        return self.shape[0] if self.shape else 0

    # ---- chunks -------------------------------------------------------------

    def chunk(self, lo, hi, device):
        """Flat elements [lo, hi) on device, every op applied."""
        x = self._make(lo, hi, device)
        for op in self._ops:
            x = op(x)
        return x

    def _derive(self, op, dtype):
        return Generated(self.shape, dtype, self._make, self._ops + (op,), self._devices)

    def _scalar_op(self, fn, other):
        import numpy as np
        if isinstance(other, (Generated, _ember.ndarray)) or np.ndim(other) != 0:
            return NotImplemented
        probe = fn(_ember.asarray(np.zeros(1, self.dtype), None, "cpu", True), other)
        return self._derive(lambda x: fn(x, other), probe.dtype)

    __add__ = lambda s, o: s._scalar_op(lambda x, y: x + y, o)
    __radd__ = lambda s, o: s._scalar_op(lambda x, y: y + x, o)
    __sub__ = lambda s, o: s._scalar_op(lambda x, y: x - y, o)
    __rsub__ = lambda s, o: s._scalar_op(lambda x, y: y - x, o)
    __mul__ = lambda s, o: s._scalar_op(lambda x, y: x * y, o)
    __rmul__ = lambda s, o: s._scalar_op(lambda x, y: y * x, o)
    __truediv__ = lambda s, o: s._scalar_op(lambda x, y: x / y, o)
    __rtruediv__ = lambda s, o: s._scalar_op(lambda x, y: y / x, o)
    __pow__ = lambda s, o: s._scalar_op(lambda x, y: x ** y, o)
    __lt__ = lambda s, o: s._scalar_op(lambda x, y: x < y, o)
    __le__ = lambda s, o: s._scalar_op(lambda x, y: x <= y, o)
    __gt__ = lambda s, o: s._scalar_op(lambda x, y: x > y, o)
    __ge__ = lambda s, o: s._scalar_op(lambda x, y: x >= y, o)

    def __neg__(self):
        return self._derive(lambda x: -x, self.dtype)

    def astype(self, dtype, copy=True):
        import numpy as np
        return self._derive(lambda x: x.astype(dtype), np.dtype(dtype))

    # ---- reductions, streamed through the devices ----------------------------

    def _reduce(self, name, axis, dtype, keepdims):
        axes = axis if isinstance(axis, tuple) else (axis,)
        if axis is not None and sorted(int(a) % max(self.ndim, 1) for a in axes) != \
                list(range(self.ndim)):  # not a full reduction: on the values
            kw = {"dtype": dtype} if dtype is not None else {}
            return getattr(self.materialize(), name)(axis=axis, keepdims=keepdims, **kw)
        r = reduce(self, name, dtype)
        return r.reshape((1,) * self.ndim) if keepdims else r

    def sum(self, axis=None, dtype=None, keepdims=False):
        return self._reduce("sum", axis, dtype, keepdims)

    def prod(self, axis=None, dtype=None, keepdims=False):
        return self._reduce("prod", axis, dtype, keepdims)

    def min(self, axis=None, keepdims=False):
        return self._reduce("min", axis, None, keepdims)

    def max(self, axis=None, keepdims=False):
        return self._reduce("max", axis, None, keepdims)

    def any(self, axis=None, keepdims=False):
        return self._reduce("any", axis, None, keepdims)

    def all(self, axis=None, keepdims=False):
        return self._reduce("all", axis, None, keepdims)

    def mean(self, axis=None, dtype=None, keepdims=False):
        import numpy as np
        if axis is not None:
            return self.materialize().mean(axis=axis, dtype=dtype, keepdims=keepdims)
        acc = dtype or (np.float64 if self.dtype.kind in "iub" else None)
        s = self._reduce("sum", None, acc, keepdims)
        return s / self.size

    # ---- anything else: an ordinary auto array -------------------------------

    def materialize(self):
        """The values as an ordinary auto array on the host (made once)."""
        if self._full is None:
            import ember as em
            out = em.empty(self.shape, dtype=self.dtype, device="auto")
            flat = out.reshape(-1)
            step = max(_CHUNK_CAP // max(self.dtype.itemsize, 1) // 8 * 8, 8)
            for lo in range(0, self.size, step):
                hi = min(lo + step, self.size)
                flat[lo:hi] = self.chunk(lo, hi, "cpu")
            self._full = out
        return self._full

    def get(self):
        return self.materialize().get()

    def __array__(self, dtype=None, copy=None):
        a = self.get()
        return a.astype(dtype) if dtype is not None else a

    def __getattr__(self, name):
        if name.startswith("_"):
            raise AttributeError(name)
        return getattr(self.materialize(), name)


def _plan(g):
    """(devices, elements per chunk): every GPU, chunks a quarter of the
    least memory one can give (at most _CHUNK_CAP), a multiple of 8."""
    devs = g._devices or _gpus() or ["cpu"]
    avail = min(_place._avail(d) for d in devs)
    per = int(min(avail // 4 if avail != float("inf") else _CHUNK_CAP, _CHUNK_CAP))
    # the chunk and its transforms' temporaries (float64 at most) fit
    per = max(per // max(g.dtype.itemsize, 8) // 8 * 8, 8)
    return devs, per


def _on(g, name, dtype, dev, bounds):
    import ember as em
    with em.Device(dev):
        s = em.Stream(non_blocking=True)
        parts = []
        with s:
            for lo, hi in bounds:
                parts.append(_ember.reduce(name, g.chunk(lo, hi, dev), None, False, dtype, 0.0,
                                           None))
        s.synchronize()
    return parts


def reduce(g, name, dtype=None):
    """The full reduction `name` of Generated g, made chunk by chunk on the
    devices (an auto 0-d array on the first)."""
    import ember as em
    devs, per = _plan(g)
    bounds = [(lo, min(lo + per, g.size)) for lo in range(0, g.size, per)] or [(0, 0)]
    nd = len(devs)
    if nd == 1:
        parts = _on(g, name, dtype, devs[0], bounds)
    else:
        from concurrent.futures import ThreadPoolExecutor
        with ThreadPoolExecutor(nd) as pool:
            futs = [pool.submit(_on, g, name, dtype, d, bounds[k::nd]) for k, d in enumerate(devs)]
            per_dev = [f.result() for f in futs]
        parts = [_ember.asarray(per_dev[i % nd][i // nd], None, devs[0], True)
                 for i in range(len(bounds))]
    _place._note(_Streamed(name, g, devs, per, len(bounds)))
    with em.Device(devs[0]):
        r = _ember.reduce(_REDUCTIONS[name], em.stack(parts), None, False, None, 0.0, None)
    return _ember._auto_mark(r)


class _Streamed:
    """The record explain() and EMBER_DEBUG show for a generated reduction."""

    def __init__(self, name, g, devs, per, n):
        self.kind, self.devices, self.chunk, self.nchunks = "generated", tuple(devs), per, n
        self.nbytes, self.name = g.nbytes, name

    def __repr__(self):
        return (f"auto: {self.name} of a generated {_place._fmt_bytes(self.nbytes)} on "
                f"{', '.join(self.devices)} in {self.nchunks} chunks of {self.chunk} elements")


# ---- the makers -------------------------------------------------------------

def random(bitgen, kind, shape, dtype, low=0, range_=0, post=None, pa=0.0, pb=0.0):
    """A Generated draw from Philox bitgen (advanced as the whole draw
    would), or None when it is small enough to be an ordinary array."""
    import numpy as np
    dtype = np.dtype(dtype)
    n = math.prod(shape)
    if kind not in ("uniform", "normal", "integers", "bits") or not wanted(n * dtype.itemsize):
        return None
    key, c0 = bitgen.key, bitgen.counter

    def fill(count, counter, device):
        return _ember.random_fill(kind, (count,), dtype, key, counter, device, low, range_, post,
                                  pa, pb)

    step8 = fill(8, c0, "cpu")[1] - c0  # Philox blocks per 8 elements (a block boundary)
    rem = n % 8
    nxt = c0 + (n // 8) * step8
    if rem:
        nxt = fill(rem, nxt, "cpu")[1]

    def make(lo, hi, device):
        return fill(hi - lo, c0 + (lo // 8) * step8, device)[0]

    bitgen.counter = nxt % (1 << 64)
    return Generated(shape, dtype, make)


def arange(start, stop, step, dtype):
    """A Generated arange (element i is start + i * delta, as NumPy fills
    it), or None when the range is small enough to be an ordinary array."""
    import numpy as np
    if stop is None:
        start, stop = 0, start
    step = 1 if step is None else step
    if not all(isinstance(v, (int, float, np.integer, np.floating)) for v in (start, stop, step)):
        return None
    probe = np.arange(start, start + 2 * step, step, dtype=dtype)
    dtype = probe.dtype
    if dtype.kind not in "iuf" or not wanted(max(math.ceil((stop - start) / step), 0)
                                             * dtype.itemsize):
        return None
    n = int(max(math.ceil((stop - start) / step), 0))
    if dtype.kind in "iu":
        first, delta = int(probe[0]), int(step)
    else:
        first = float(probe[0])
        delta = float(probe[1] - probe[0]) if len(probe) > 1 else float(step)

    def make(lo, hi, device):
        import ember as em
        from .._creation import _iota
        i = _iota(hi - lo, em.Device(device)) + lo  # the index, made on the device (exact)
        if dtype.kind in "iu":
            return (i * delta + first).astype(dtype)
        return (i.astype(np.float64) * delta + first).astype(dtype)

    return Generated((n,), dtype, make)
