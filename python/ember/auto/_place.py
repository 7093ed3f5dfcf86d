"""Placement of work on auto arrays (docs/auto.md).

One policy, called at the points where work is decided: the extension's
elementwise entry (every ufunc and operator; a lazy chain is placed at its
first op, and later ops follow the pending data), its reduction and scan
entries (python/_ember/auto.c), and matmul and sort (``call`` below, from
ember/linalg.py and ember/_sorting.py).  For each, the candidates are the
CPU and the CUDA devices of the cost model; each is predicted as the work's
time there plus the moves of the auto inputs that live elsewhere, and the
least wins.  A pinned operand (an array on a fixed device) or ``out=``
decides by itself.  Inputs then move to the winner, in place where no one
else sees their memory (so the data stays where it was last used), else as a
copy for this operation.  With only the CPU there is nothing to decide: the
hook returns at once and auto is the CPU, bit for bit.
"""
import math
import os
import sys
import threading
import time

import numpy as np

from .. import _ember
from .. import _device
from . import _model

_lock = threading.Lock()
# model: the Model in use; candidates: device names; explaining: explain()
# calls under way (any thread); configured: the extension has the bounds.
_state = {"model": None, "candidates": None, "explaining": 0, "configured": False}
_local = threading.local()  # .recorders: lists that explain(fn) collects into


def _debug():
    try:
        return int(os.environ.get("EMBER_DEBUG", "0") or 0)
    except ValueError:
        return 0


_DEBUG = _debug()  # read once: the extension's fast answers depend on it
# Of the bytes a kind of work counts (_work), the least share that are its
# inputs (what a placement elsewhere moves): elementwise and scan results
# count as much as their inputs at most, a reduction's are negligible.
_MOVED_SHARE = {"elementwise": 0.5, "reduction": 1.0, "scan": 0.5}
_NEVER = 1 << 62


def cpu_bound(kind, m, cands):
    """Work bytes below which the CPU wins for work of `kind` on host data
    whatever the sizes' other details: the crossover with every GPU
    candidate, less 10 %; _NEVER when no GPU can win, 0 when there is no
    safe bound (a GPU launch as cheap as the CPU's)."""
    c = m.costs.get("cpu")
    if c is None:
        return 0
    rate = "elementwise" if kind == "elementwise" else "reduction"
    bound = _NEVER
    for dev in cands:
        g = m.costs.get(dev)
        if dev == "cpu" or g is None:
            continue
        h2d = g.h2d or 1e9
        slope = 1 / getattr(c, rate) - 1 / getattr(g, rate) - _MOVED_SHARE[kind] / h2d
        if g.launch <= c.launch:
            return 0
        if slope > 0:
            bound = min(bound, int(0.9 * (g.launch - c.launch) / slope))
    return bound


def _configure():
    """Give the extension the answers it may give without calling place()."""
    cands = candidates()
    quiet = _DEBUG <= 0 and not _state["explaining"]
    single = len(cands) == 1 and quiet
    bounds, chain = [0, 0, 0], ()
    if quiet and not single:
        m = model()
        bounds = [cpu_bound(k, m, cands) for k in ("elementwise", "reduction", "scan")]
        chain = chain_costs(m, cands)
    _ember._auto_config(single, *bounds, chain)
    _state["configured"] = True


def chain_costs(m, cands):
    """The numbers the extension predicts a host chain with (auto.c,
    pyem__auto_chain_time: Model.predict_chain plus the inputs' move), one
    row per device, the CPU first: (launch, seconds per byte of the pass,
    per byte moved in, per element of one more op, of a transcendental op).
    () when the CPU is not a candidate (no answer: the policy decides)."""
    if "cpu" not in cands or "cpu" not in m.costs:
        return ()
    rows = []
    for dev in ["cpu"] + [d for d in cands if d != "cpu" and d in m.costs]:
        c = m.costs[dev]
        moved = 0.0 if dev == "cpu" else m.move(1.0, "cpu", dev)
        rows.append((c.launch, 1.0 / c.elementwise, moved, c.op or 0.0, c.transcendental or 0.0))
    return tuple(rows)


class Placement:
    """One decision: the work's kind, bytes and flops; the device chosen;
    ``predicted`` maps each candidate to its predicted seconds, moves
    included (``moves``: those seconds of it spent copying inputs;
    ``moved``: the bytes those copies carry, per device: the inputs that live
    elsewhere, never the result, which stays where it is computed);
    ``reason`` says why when no prediction decided (pinned operand, out=,
    only device)."""

    __slots__ = ("kind", "nbytes", "flops", "chosen", "predicted", "moves", "reason", "moved")

    def __init__(self, kind, nbytes, flops, chosen, predicted, moves, reason, moved=None):
        self.kind, self.nbytes, self.flops = kind, nbytes, flops
        self.chosen, self.predicted, self.moves, self.reason = chosen, predicted, moves, reason
        self.moved = moved or {}

    def __repr__(self):
        alts = ", ".join(
            f"{d} {_fmt(t)}" + (f" (moves {_fmt(self.moves[d])})" if self.moves.get(d) else "")
            for d, t in self.predicted.items())
        return (f"auto: {self.kind} {_fmt_bytes(self.nbytes)} -> {self.chosen}"
                f" [{self.reason}{': ' + alts if alts else ''}]")


def _fmt(t):
    if t == float("inf"):
        return "does not fit"
    return f"{t * 1e6:.1f} us" if t < 1e-3 else f"{t * 1e3:.2f} ms" if t < 1 else f"{t:.2f} s"


def _fmt_bytes(n):
    for unit in ("B", "KiB", "MiB", "GiB"):
        if n < 1024 or unit == "GiB":
            return f"{n:.0f} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1024


def model():
    """The cost model in use: set_model's, else the cached one, else measured now."""
    m = _state["model"]
    if m is None:
        with _lock:
            m = _state["model"]
            if m is None:
                m = _model.load() or _model.calibrate()
                _state["model"] = m
    return m


def set_model(m):
    """Use m (a Model, a dict as Model.from_dict takes, or None to measure
    again on next need) for every later decision; the candidates become the
    devices it has numbers for (tests inject predicted numbers this way)."""
    if isinstance(m, dict):
        m = _model.Model.from_dict(m)
    with _lock:
        _state["model"] = m
        _state["candidates"] = None if m is None else list(m.costs)
        _state["configured"] = False
    _ember._auto_config(False, 0, 0, 0)  # until the next decision configures again


def candidates():
    c = _state["candidates"]
    if c is None:
        c = _state["candidates"] = _model.candidates()
    return c


def _where(a):
    kind, id_ = a._dev
    return "cpu" if kind == "cpu" else f"{kind}:{id_}"


def _held(a):
    """Bytes a's data takes where it lives: a pending chain's are those of the
    arrays it reads (its own values do not exist yet), else a.nbytes."""
    return _ember._auto_chain_bytes(a) if _ember._is_pending(a) else a.nbytes


def _work(kind, arrays):
    """(bytes read and written, flops) of the work on these operands (a
    pending chain's inputs count: its evaluation is part of the work)."""
    nbytes = sum(_held(a) for a in arrays)
    flops = 0.0
    if kind == "elementwise":  # the result: the largest operand's elements and item size
        nbytes += max(a.size for a in arrays) * max(a.itemsize for a in arrays)
    elif kind == "scan":
        nbytes *= 2
    elif kind == "matmul" and len(arrays) == 2:
        a, b = arrays
        m = a.shape[-2] if a.ndim > 1 else 1
        k = a.shape[-1] if a.ndim else 1
        n = b.shape[-1] if b.ndim > 1 else 1
        batch = max(a.size // max(m * k, 1), b.size // max(k * n, 1), 1)
        flops = 2.0 * batch * m * n * k
        nbytes += batch * m * n * max(a.itemsize, b.itemsize)
    return nbytes, flops


def decide(kind, objs, out=None):
    """The Placement of work `kind` on objs (and out=), nothing moved."""
    arrays = [o for o in objs if isinstance(o, _ember.ndarray)]
    nbytes, flops = _work(kind, arrays) if arrays else (0, 0.0)
    if isinstance(out, _ember.ndarray):
        return Placement(kind, nbytes, flops, _where(out), {}, {}, "out= decides")
    for a in arrays:
        if not _ember._auto_is(a):
            return Placement(kind, nbytes, flops, _where(a), {}, {}, "pinned operand")
    cands = candidates()
    if len(cands) == 1 and not _explaining():
        return Placement(kind, nbytes, flops, cands[0], {}, {}, "only device")
    m = model()
    predicted, moves, moved = {}, {}, {}
    out_bytes = nbytes - sum(_held(a) for a in arrays)
    for dev in cands:
        if dev not in m.costs:
            continue
        mv = sum(m.move(_held(a), _where(a), dev) for a in arrays)
        moves[dev] = mv
        moved[dev] = sum(_held(a) for a in arrays if _where(a) != dev)
        need = moved[dev] + out_bytes
        # Work that does not fit the device's free memory (or its pool's
        # set_limit) is not placed there: it would fail with OutOfMemoryError.
        fits = dev == "cpu" or need <= _avail(dev)
        t = m.predict(kind, dev, nbytes, flops) + mv + _pending_compute(m, dev, arrays)
        predicted[dev] = t if fits else float("inf")
    chosen = min(predicted, key=predicted.get) if predicted else cands[0]
    return Placement(kind, nbytes, flops, chosen, predicted, moves, "least predicted time", moved)


def _pending_compute(m, dev, arrays):
    """Seconds the pending chains among arrays add on dev beyond their bytes
    (their evaluation is part of the work: a reduction of a chain fuses it)."""
    t = 0.0
    for a in arrays:
        if _ember._is_pending(a):
            ops, tr = _ember._auto_chain_ops(a)
            t += m.compute(dev, a.size, ops, tr)
    return t


# The driver's free memory per device index: (the pool's reserved bytes
# then, time.monotonic() then, free bytes).  Asking the driver costs a
# decision more than the rest of it; the answer changes when Ember's pool
# reserves or returns memory (the reserved bytes differ: asked again) or when
# another library or process allocates, which a short lifetime bounds.
_FREE_TTL = 0.05
_free = {}


def _avail(dev):
    """Bytes a new allocation on GPU dev may take: the driver's free memory
    plus the pool's cached blocks, capped by the pool's set_limit."""
    kind, _, num = dev.partition(":")
    if kind != "cuda":
        return float("inf")
    i = int(num or 0)
    try:
        from .. import cuda_runtime
        used, total = _ember.cuda_pool(i)
        now = time.monotonic()
        hit = _free.get(i)
        if hit is not None and hit[0] == total and now - hit[1] < _FREE_TTL:
            free = hit[2]
        else:
            free = _ember.mem_info(dev)[0]
            _free[i] = (total, now, free)
        limit = cuda_runtime._limits.get(i, 0)
    except Exception:  # noqa: BLE001  (no numbers: let the prediction decide)
        return float("inf")
    avail = free + (total - used)
    return min(avail, limit - used) if limit else avail


def _explaining():
    return bool(getattr(_local, "recorders", None)) or _DEBUG > 0


def _bring(o, dev):
    """o on dev: an auto array moves there (in place if no one else sees its
    memory, else a copy for this operation); anything else is left as it is."""
    if not isinstance(o, _ember.ndarray) or not _ember._auto_is(o) or _where(o) == dev:
        return o
    if _ember._auto_move(o, dev):
        return o
    return _ember._auto_mark(_ember.asarray(o, None, dev, True))


def place(kind, objs, out):
    """The hook the extension calls for work on auto arrays: the operands to
    use, each auto one on the chosen device."""
    if getattr(_local, "busy", False):
        return objs  # inside call(): already placed
    if not _state["configured"]:
        _configure()
    if len(candidates()) == 1 and not _explaining():
        return objs  # only the CPU: auto is the CPU
    p = decide(kind, objs, out)
    _note(p)
    return tuple(_bring(o, p.chosen) for o in objs)


def place_chain(x, where, in_bytes, out_bytes, pinned, elems=0, ops=1, transcendental=0):
    """The extension's hook when pending auto chain x is about to be
    evaluated on device `where` (a (kind, id) pair): the device it should run
    on instead, None to run where it is, or x's values computed here (a
    chain on the host that no GPU can hold, streamed through one in bands of
    rows: _stream.chain_plan).  The whole chain is one piece of elementwise
    work: the bytes of the arrays it reads and of its result, the reads
    moved when it runs elsewhere; its `ops` op nodes over `elems` result
    elements (`transcendental` of them exp, sin, ...) priced on each device
    (Model.compute: the CPU's eight-op chain is compute-bound)."""
    if not _state["configured"]:
        _configure()
    here = "cpu" if where[0] == "cpu" else f"{where[0]}:{where[1]}"
    nbytes = in_bytes + out_bytes
    if pinned:
        p = Placement("chain", nbytes, 0.0, here, {}, {}, "pinned operand")
    elif len(candidates()) == 1 and not _explaining():
        return None
    else:
        p = _decide_chain(here, in_bytes, out_bytes, elems, ops, transcendental)
        gpus = [d for d in p.predicted if d != "cpu"]
        if here == "cpu" and p.chosen == "cpu" and gpus and all(
                p.predicted[d] == float("inf") for d in gpus):
            from . import _stream
            sp = _stream.chain_plan(x, in_bytes, out_bytes, p.predicted["cpu"])
            if sp is not None:
                _note(sp)
                return _stream.run_chain(x, sp)
    _note(p)
    return None if p.chosen == here else p.chosen


def _decide_chain(here, in_bytes, out_bytes, elems=0, ops=1, transcendental=0):
    m = model()
    predicted, moves, moved = {}, {}, {}
    for dev in candidates():
        if dev not in m.costs:
            continue
        mv = m.move(in_bytes, here, dev)
        moves[dev] = mv
        moved[dev] = in_bytes if dev != here else 0
        need = moved[dev] + out_bytes
        fits = dev == "cpu" or need <= _avail(dev)
        t = m.predict_chain(dev, in_bytes + out_bytes, elems, ops, transcendental)
        predicted[dev] = t + mv if fits else float("inf")
    chosen = min(predicted, key=predicted.get) if predicted else here
    return Placement("chain", in_bytes + out_bytes, 0.0, chosen, predicted, moves,
                     f"least predicted time, {ops} ops ({transcendental} transcendental)", moved)


# A Philox draw's compute per element in the model's op units (Model.compute):
# ten rounds of two 32 x 32 multiplies and their xors per four 32-bit words,
# about 20 ops a word (the H200 host's CPU drew 100 GiB of float64 in 3.7 s;
# the model with this priced it at 3.9); a normal draw adds Box-Muller's log and sine.
_DRAW_OPS = 20
_DRAW_KINDS = ("uniform", "normal", "integers", "bits")


def creation(kind, shape, dtype, post=None):
    """The device an auto draw (em.random, kind as Philox._fill's) is made
    on: a draw has no inputs to move, so it is priced as a chain that reads
    nothing and writes the draw (_decide_chain), made where its predicted
    time is least among the devices that can hold it, and its data stays
    there until a move pays (the CPU's Philox is 50-100x slower than a
    GPU's: a 100 GiB draw summed took 4.6 s on the host and 50 ms on an
    H200; a `post` transform, such as the exponential's log, is priced as one
    more transcendental op).  None: on the host, as every other new auto
    array."""
    if kind not in _DRAW_KINDS:
        return None
    if len(candidates()) == 1 and not _explaining():
        return None
    itemsize = np.dtype(dtype).itemsize
    elems = math.prod(shape)
    if elems * itemsize == 0:
        return None
    tr = (2 if kind == "normal" else 0) + (1 if post else 0)
    ops = 1 + _DRAW_OPS * max(itemsize // 4, 1) + tr
    p = _decide_chain("cpu", 0, elems * itemsize, elems, ops, tr)
    p.kind, p.reason = "creation", f"least predicted time of the {kind} draw"
    _note(p)
    return None if p.chosen == "cpu" else p.chosen


def _note(p):
    for r in getattr(_local, "recorders", None) or ():
        r.append(p)
    if _DEBUG > 0:
        print(f"ember {p!r}", file=sys.stderr)


def _mark(r):
    if isinstance(r, _ember.ndarray):
        if not _ember._auto_is(r):
            _ember._auto_mark(r)
    elif isinstance(r, tuple):
        for x in r:
            _mark(x)
    return r


def call(kind, fn, arrays, *args, **kw):
    """fn(*arrays, *args, **kw) for a Python-level operation (matmul, sort):
    the auto arrays placed first, the result auto."""
    placed = place(kind, tuple(arrays), None)
    _local.busy = True
    try:
        return _mark(fn(*placed, *args, **kw))
    finally:
        _local.busy = False

