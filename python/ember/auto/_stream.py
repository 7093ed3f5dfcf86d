"""Out of core: a reduction over an auto host array too large for a GPU's
free memory (or its pool's set_limit) streamed through the GPU in chunks
(docs/auto.md).

Two non-blocking streams take alternate chunks.  A chunk's copy to the
device returns when its bytes are there (Ember's staged copy: pinned
buffers, the bus's rate), but its reduction is only queued on the chunk's
stream, so the copy of chunk i+1 runs while the GPU reduces chunk i.  Each
stream's device chunk is held until that stream's next copy has waited for
it (a copy first waits for the current stream), so a block is never freed
while a kernel reads it; three chunks are alive at most, and a chunk is a
quarter of the memory the device can give.  The partial results (one
value per chunk) are reduced again on the device at the end.

Reductions of sum, prod, min, max, any and all, without out=, over a
C-contiguous array on the host are streamed: full ones (axis None or every
axis) in flat chunks, others in blocks of whole rows (axis 0 split: each
block reduced over the same axes, the results joined along axis 0 when it
is kept, else reduced again); anything else is placed as usual.
"""
import math

from .. import _ember
from . import _place

_STREAMED = {"sum": "sum", "prod": "prod", "min": "min", "max": "max", "any": "any",
             "all": "all"}
_ARGS = ("name", "a", "axis", "keepdims", "dtype", "ddof", "out")
_MAX_CHUNK = 1 << 30


def _params(args, kw):
    p = dict(zip(_ARGS, args))
    p.update(kw or {})
    return p


class Plan:
    """A streamed reduction: the devices (chunk i goes to devices[i % len]),
    elements per chunk, the chunks, and the predicted seconds of streaming
    and of the CPU."""

    __slots__ = ("devices", "chunk", "nchunks", "predicted", "cpu", "pinned")

    def __init__(self, devices, chunk, nchunks, predicted, cpu, pinned=False):
        self.devices = (devices,) if isinstance(devices, str) else tuple(devices)
        self.chunk, self.nchunks = chunk, nchunks
        self.predicted, self.cpu = predicted, cpu
        self.pinned = pinned  # the source is pinned: its chunks go by DMA, unstaged

    @property
    def device(self):
        """The device that reduces the partial results (the first)."""
        return self.devices[0]

    def __repr__(self):
        src = " from pinned memory" if self.pinned else ""
        return (f"auto: reduction streamed{src} through {', '.join(self.devices)} in "
                f"{self.nchunks} chunks of {self.chunk} elements "
                f"[streamed {_place._fmt(self.predicted)}, "
                f"cpu {_place._fmt(self.cpu)}]")


def _stream_time(m, devs, nbytes, per, pinned=()):
    """Predicted seconds of streaming nbytes in chunks of per bytes, the
    chunks dealt round robin to devs: each device streams its share on its
    own bus and its own thread, the copies overlapping the reductions.  The
    devices in pinned read a pinned source: their copies are DMAs at the
    pinned rate, unstaged (pageable ones are staged, at the host's rate)."""
    share = nbytes / len(devs)
    chunks = math.ceil(share / per)
    t = 0.0
    for dev in devs:
        c = m.costs[dev]
        h2d = (c.h2d_pinned if dev in pinned else None) or c.h2d or 1e9
        t = max(t, chunks * c.launch + max(share / h2d, share / c.reduction) + per / h2d)
    return t


def _pinned(a, dev):
    """Whether host array a's memory is pinned for dev (em.cuda.pinned_empty,
    or pinned by another library): its chunks are copied by DMA as they are,
    never staged (codegen/run_copy.c), so it streams at the pinned rate."""
    kind, _, idx = dev.partition(":")
    if kind != "cuda":
        return False
    try:
        return _ember._host_pinned(a._ptr, a.nbytes, int(idx or 0))
    except (AttributeError, TypeError, ValueError):
        return False


def plan(a, chunk_bytes=None, row=1, force=None):
    """The Plan for reducing host array a through the GPUs that cannot hold
    it, or None (it fits somewhere, or the CPU is predicted faster).  One
    GPU, or every such GPU together when that is predicted faster.

    force: a tuple of GPUs to stream through whatever the model predicts
    and whether or not a GPU could hold the array (the benchmark's row that
    measures the streaming rate on a host whose CPU outruns its bus)."""
    # A pending array would be computed whole on the host first: its fused
    # CPU reduction is the better plan (streaming pending chains: docs/auto.md).
    if a.size == 0 or a._dev[0] != "cpu" or _ember._is_pending(a) or not a._c_contiguous:
        return None
    cands = list(force) if force else [d for d in _place.candidates() if d != "cpu"]
    m = _place.model()
    if not cands or "cpu" not in m.costs:
        return None
    nbytes = a.nbytes
    cpu = m.predict("reduction", "cpu", nbytes)
    streams = {}  # device -> bytes per chunk there
    for dev in cands:
        avail = _place._avail(dev)
        if dev not in m.costs or (nbytes <= avail and not force):
            continue  # it fits: the ordinary placement decides
        # A quarter of what the GPU can give, at most 1 GiB: on the H100 1 GiB
        # chunks streamed at 47 GB/s, 2 GiB ones at 41 (fewer copies overlap).
        per = chunk_bytes or int(min(avail // 4, _MAX_CHUNK))
        per -= per % (a.itemsize * row)  # whole rows (row: elements of one)
        if per >= max(4096, a.itemsize * row):  # else too little memory to stream through
            streams[dev] = per
    if not streams:
        return None
    pinned = tuple(d for d in streams if _pinned(a, d))
    options = [(dev,) for dev in streams] if not force else []
    if len(streams) > 1 or force:
        options.append(tuple(streams))
    best = None
    for devs in options:
        per = min(streams[d] for d in devs)  # one chunk size: chunk i is elements i*per..
        t = _stream_time(m, devs, nbytes, per, pinned)
        if best is None or t < best.predicted:
            best = Plan(devs, per // a.itemsize, math.ceil(nbytes / per), t, cpu,
                        all(d in pinned for d in devs))
    if best.predicted >= cpu and not force:
        return None
    return best


def _stream_on(name, pieces, dev, axes, dtype):
    """Reduce the host pieces (contiguous views) over axes on dev, alternating
    two non-blocking streams; the per-piece results (on dev)."""
    import ember as em
    with em.Device(dev):
        streams = [em.Stream(non_blocking=True) for _ in range(2)]
        held = [None, None]
        parts = []
        for i, piece in enumerate(pieces):
            with streams[i % 2]:
                d = _ember.asarray(piece, None, dev, True)
                held[i % 2] = d  # the previous chunk of this stream is read by now
                parts.append(_ember.reduce(name, d, axes, False, dtype, 0.0, None))
        for s in streams:
            s.synchronize()
    return parts


def _stream_all(name, pieces, p, axes, dtype):
    """Every piece reduced, on p's devices (round robin, a thread per
    device when several), the results on p.device in piece order."""
    nd = len(p.devices)
    if nd == 1:
        return _stream_on(name, pieces, p.device, axes, dtype)
    from concurrent.futures import ThreadPoolExecutor
    with ThreadPoolExecutor(nd) as pool:
        futs = [pool.submit(_stream_on, name, pieces[k::nd], dev, axes, dtype)
                for k, dev in enumerate(p.devices)]
        per_dev = [f.result() for f in futs]
    # in piece order, as one device would have them (a float sum's bits)
    return [_ember.asarray(per_dev[i % nd][i // nd], None, p.device, True)
            for i in range(len(pieces))]


def run(name, a, p, dtype=None, keepdims=False):
    """The full reduction `name` of a streamed as Plan p says; the result is
    an auto array on p.device.  With several devices each streams its chunks
    (round robin) from its own thread: the copies hold no lock, so the
    buses run at once."""
    import ember as em
    flat = a.reshape(-1)
    pieces = [flat[lo:lo + p.chunk] for lo in range(0, flat.size, p.chunk)]
    parts = _stream_all(name, pieces, p, None, dtype)
    with em.Device(p.device):
        r = _ember.reduce(_STREAMED[name], em.stack(parts), None, False, None, 0.0, None)
        if keepdims:
            r = r.reshape((1,) * a.ndim)
    return _ember._auto_mark(r)


def run_axes(name, a, p, axes, dtype=None, keepdims=False):
    """The reduction `name` of a over axes (not all of them) streamed in
    blocks of whole rows (p.chunk elements): each block reduced over the
    same axes on the device; the blocks' results joined along axis 0 when it
    is kept, else reduced again over the blocks (the op is associative)."""
    import ember as em
    row = a.size // a.shape[0]
    rows = p.chunk // row
    pieces = [a[r:r + rows] for r in range(0, a.shape[0], rows)]
    parts = _stream_all(name, pieces, p, axes, dtype)
    with em.Device(p.device):
        if 0 in axes:
            r = _ember.reduce(_STREAMED[name], em.stack(parts), 0, False, None, 0.0, None)
        else:
            r = em.concatenate(parts, axis=0)
        if keepdims:
            r = r.reshape(tuple(1 if i in axes else n for i, n in enumerate(a.shape)))
    return _ember._auto_mark(r)


class ChainPlan:
    """A pending elementwise chain on the host streamed through a GPU in
    bands of `rows` rows (each band: its inputs' rows copied in, the fused
    kernel, the band's result copied back into the host result)."""

    __slots__ = ("device", "rows", "nbands", "predicted", "cpu")

    def __init__(self, device, rows, nbands, predicted, cpu):
        self.device, self.rows, self.nbands = device, rows, nbands
        self.predicted, self.cpu = predicted, cpu

    def __repr__(self):
        return (f"auto: chain streamed through {self.device} in {self.nbands} bands of "
                f"{self.rows} rows [streamed {_place._fmt(self.predicted)}, "
                f"cpu {_place._fmt(self.cpu)}]")


def chain_plan(x, in_bytes, out_bytes, cpu_time):
    """The ChainPlan for pending host chain x that no GPU can hold, or None
    (one row too large, or the CPU predicted faster).  A band's inputs and
    result take at most a quarter of what the GPU can give; the copies in
    and out and the kernel are counted one after the other (this loop does
    not overlap them)."""
    if x.ndim < 1 or x.shape[0] < 2:
        return None
    m = _place.model()
    nrows = x.shape[0]
    best = None
    for dev in _place.candidates():
        if dev == "cpu" or dev not in m.costs:
            continue
        avail = _place._avail(dev)
        rows = int(avail // 4 // max((in_bytes + out_bytes) / nrows, 1))
        if rows < 1:
            continue
        rows = min(rows, nrows)
        n = math.ceil(nrows / rows)
        c = m.costs[dev]
        t = (n * c.launch + in_bytes / (c.h2d or 1e9) + out_bytes / (c.d2h or 1e9)
             + (in_bytes + out_bytes) / c.elementwise)
        if best is None or t < best.predicted:
            best = ChainPlan(dev, rows, n, t, cpu_time)
    if best is None or best.predicted >= cpu_time:
        return None
    return best


def run_chain(x, p):
    """Pending chain x's values, band by band on p.device, into a new host
    array (C-contiguous, x's dtype and shape)."""
    import ember as em
    out = em.empty(x.shape, dtype=x.dtype, device="cpu")
    for r0 in range(0, x.shape[0], p.rows):
        r1 = min(r0 + p.rows, x.shape[0])
        band = _ember._auto_chain_rows(x, r0, r1, p.device)
        out[r0:r1] = band if p.device == "cpu" else band.get()
    return out


def whole(kind, args, kw):
    """The extension's hook for reductions on auto arrays: the streamed
    result, or NotImplemented for the ordinary path."""
    if kind != "reduction" or len(_place.candidates()) == 1:
        return NotImplemented
    try:
        p = _params(args, kw)
    except TypeError:
        return NotImplemented
    a, axis = p.get("a"), p.get("axis")
    if (p.get("name") not in _STREAMED or p.get("out") is not None
            or not isinstance(a, _ember.ndarray) or not _ember._auto_is(a)):
        return NotImplemented
    axes = None
    if axis is not None:
        ax = axis if isinstance(axis, tuple) else (axis,)
        try:
            axes = tuple(sorted(set(int(x) % max(a.ndim, 1) for x in ax)))
        except (TypeError, ValueError):
            return NotImplemented
        if len(axes) != len(ax) or (a.ndim and not all(
                -a.ndim <= int(x) < a.ndim for x in ax)):
            return NotImplemented  # the ordinary path raises NumPy's error
        if axes == tuple(range(a.ndim)):
            axes = None
    if axes is None:
        pl = plan(a)
        if pl is None:
            return NotImplemented
        _place._note(pl)
        return run(p["name"], a, pl, p.get("dtype"), bool(p.get("keepdims")))
    if a.ndim < 2 or a.shape[0] < 2:
        return NotImplemented
    pl = plan(a, row=a.size // a.shape[0])
    if pl is None:
        return NotImplemented
    _place._note(pl)
    return run_axes(p["name"], a, pl, axes, p.get("dtype"), bool(p.get("keepdims")))
