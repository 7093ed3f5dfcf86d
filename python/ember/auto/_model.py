"""The measured cost model of device="auto" (docs/auto.md).

Per device: the fixed cost of one operation (launch), the bandwidths of an
elementwise pass and a reduction, matmul and sort throughput, and for a GPU
the host<->device bandwidths (pageable and pinned).  A prediction is

    time = launch + bytes / bandwidth (+ flops / throughput)

plus the moves of the inputs that are elsewhere (bytes / copy bandwidth).
The numbers are measured by calibrate() in well under 2 s once kernels are
in the disk cache, and kept on disk keyed by Ember's version and each
device's name, memory and driver, so a process only reads a small file.
"""
import hashlib
import json
import os
import time

from .. import _ember

KINDS = ("elementwise", "reduction", "scan", "matmul", "sort")
# The bandwidth or throughput field each kind of work is predicted from.
_RATE = {"elementwise": "elementwise", "reduction": "reduction", "scan": "reduction",
         "matmul": "matmul", "sort": "sort"}
_FIELDS = ("launch", "elementwise", "reduction", "matmul", "sort",
           "h2d", "h2d_pinned", "d2h", "d2h_pinned", "op", "transcendental")
# The form of the cached numbers: a model cached before a field existed is
# measured again rather than read with that field missing.
_FORMAT = 2


class DeviceCost:
    """One device's numbers: launch in seconds; elementwise, reduction and
    sort in bytes/s of the work's data; matmul in flop/s; h2d/d2h (pageable)
    and h2d_pinned/d2h_pinned in bytes/s (None on the CPU); op and
    transcendental in seconds per element: what one more arithmetic op, or
    one transcendental op (exp, sin, ...), adds to a fused pass beyond its
    bytes (None: nothing, as on a GPU, where a chain is memory-bound)."""

    __slots__ = ("device",) + _FIELDS

    def __init__(self, device, **numbers):
        self.device = str(device)
        for f in _FIELDS:
            setattr(self, f, numbers.get(f))
        missing = [f for f in _FIELDS[:5] if not _positive(numbers.get(f))]
        if missing:
            raise ValueError(f"cost of {device}: missing {', '.join(missing)}")

    def as_dict(self):
        return {f: getattr(self, f) for f in _FIELDS}

    def __repr__(self):
        return f"DeviceCost({self.device!r}, {self.as_dict()})"


def _positive(v):
    return v is not None and v > 0


class Model:
    """Costs per device name ("cpu", "cuda:0", ...): ``predict`` gives the
    seconds of a piece of work on a device, ``move`` those of a copy."""

    def __init__(self, costs, *, key=None, seconds=None):
        self.costs = {c.device: c for c in costs}
        self.key, self.seconds = key, seconds

    @classmethod
    def from_dict(cls, d, **kw):
        """{"cpu": {"launch": 2e-6, "elementwise": 1e10, ...}, "cuda:0": {...}}:
        the form tests use to inject numbers."""
        return cls([DeviceCost(dev, **nums) for dev, nums in d.items()], **kw)

    def as_dict(self):
        return {dev: c.as_dict() for dev, c in self.costs.items()}

    def predict(self, kind, device, nbytes, flops=0.0):
        """Seconds for work of `kind` reading and writing nbytes (and doing
        flops, for matmul) on device, the data already there."""
        c = self.costs[device]
        rate = getattr(c, _RATE[kind])
        return c.launch + (flops if kind == "matmul" else nbytes) / rate

    def compute(self, device, elems, ops, transcendental=0):
        """Seconds that a fused chain of `ops` op nodes (`transcendental` of
        them exp, sin, pow, ...) over elems elements adds on device beyond
        the elementwise bandwidth's pass, which prices one arithmetic op:
        (ops - 1 - transcendental) arithmetic ops at `op` each, the
        transcendental ones at `transcendental` each.  A CPU running eight
        ops with a sine is compute-bound where one add is not."""
        c = self.costs[device]
        arith = max(ops - 1 - transcendental, 0)
        return elems * (arith * (c.op or 0.0) + transcendental * (c.transcendental or 0.0))

    def predict_chain(self, device, nbytes, elems, ops=1, transcendental=0):
        """Seconds of a fused elementwise chain on device: one pass over its
        bytes plus its ops' compute (see compute)."""
        return (self.predict("elementwise", device, nbytes)
                + self.compute(device, elems, ops, transcendental))

    def move(self, nbytes, src, dst, pinned=False):
        """Seconds to copy nbytes from device src to device dst (through the
        host between two GPUs); 0 when they are the same."""
        if src == dst or nbytes == 0:
            return 0.0
        t = 0.0
        if src != "cpu":
            c = self.costs.get(src)
            t += nbytes / _bw(c, "d2h", pinned)
        if dst != "cpu":
            c = self.costs.get(dst)
            t += nbytes / _bw(c, "h2d", pinned)
        return t


def _bw(c, way, pinned):
    v = c and (getattr(c, way + "_pinned") if pinned else getattr(c, way))
    return v if v else 1e9  # a device measured without copies: a modest PCIe guess


# ---- measuring -------------------------------------------------------------

def _best(fn, reps=3):
    """The best wall time of reps calls (after one warm-up call)."""
    fn()
    best = float("inf")
    for _ in range(reps):
        t0 = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t0)
    return max(best, 1e-9)


def _measure(dev):
    """The numbers of one device (a string), measured with Ember's own ops."""
    import numpy as np
    import ember as em
    gpu = dev != "cpu"
    big = dev.startswith("cuda")  # OpenCL sizes are the CPU's (PoCL is a CPU)
    sync = (lambda: em.Device(dev).synchronize()) if gpu else (lambda: None)
    # The CPU's arrays grow with its cores (2^22 float32 on 2, 2^25 on 16 or
    # more): the bandwidths must be DRAM's, not a large L3's (on the H100
    # host 2^22 measured 162 GB/s where a 24 GiB reduction ran at 88).
    n = (1 << 24) if big else (1 << 22) * max(1, min((os.cpu_count() or 2) // 2, 8))
    a = em.ones(n, dtype="float32", device=dev)
    b = em.ones(n, dtype="float32", device=dev)
    s = em.ones(1000, dtype="float32", device=dev)

    def small_ops():
        for _ in range(50):
            em.eval(s + s)
        sync()

    out = {"launch": _best(small_ops) / 50}
    out["elementwise"] = 3 * 4 * n / _best(lambda: (em.eval(a + b), sync()))
    # What a chain's ops cost beyond its bytes: eight arithmetic ops over one
    # input, and one exp, each against a pass of the same bytes (8 n) at the
    # elementwise bandwidth; the rest is compute (never below 0: a GPU's
    # chain is memory-bound, and noise must not make ops free or negative).
    # A few hundredths of a second: both are fused one-pass kernels.
    pass_t = out["launch"] + 2 * 4 * n / out["elementwise"]

    def chain8():
        em.eval(((((((((a + 1) * 0.5) - 2) * 1.5) + 3) * 0.25) - 1) * 2))
        sync()

    out["op"] = max(_best(chain8) - pass_t, 0.0) / (7 * n)
    # Four transcendental ops in a row (sin, exp, sin, exp: bounded values),
    # so that their compute, not the bytes, is what is timed: one exp or sin
    # alone is memory-bound on a many-core host (32 cores measured 0 for
    # it), yet the 8-op chain's sine and cosine made its CPU time 3.5x its
    # bytes'.  exp and sin together: a vector exp is cheaper than a sine.
    def trans4():
        em.eval(em.exp(em.sin(em.exp(em.sin(a)))))
        sync()

    out["transcendental"] = max(_best(trans4) - pass_t, 0.0) / (4 * n)
    out["reduction"] = 4 * n / _best(lambda: (a.sum(), sync()))
    m = 1024 if big else 256
    x = em.ones((m, m), dtype="float32", device=dev)
    out["matmul"] = 2.0 * m ** 3 / _best(lambda: (em.matmul(x, x), sync()), reps=2)
    k = (1 << 22) if big else (1 << 20)
    keys = em.asarray(np.random.default_rng(0).random(k, dtype=np.float32), device=dev)
    out["sort"] = 4 * k / _best(lambda: (em.sort(keys), sync()), reps=2)
    if dev.startswith("opencl"):  # pageable copies only (no pinned host memory there)
        h = np.ones(1 << 23, dtype=np.float32)  # 32 MiB
        out["h2d"] = h.nbytes / _best(lambda: (em.asarray(h, device=dev), sync()), reps=2)
        g = em.asarray(h, device=dev)
        out["d2h"] = h.nbytes / _best(lambda: g.get(), reps=2)
    elif gpu:
        # 256 MiB: a staged pageable copy reaches its rate only on large
        # copies (on the H100 32 MiB measured 22 GB/s, 1 GiB 44), and the
        # moves that decide a placement are the large ones.
        h = np.ones(1 << 26, dtype=np.float32)
        pin = em.cuda.pinned_empty(h.shape, h.dtype)
        pin[...] = 1
        out["h2d"] = h.nbytes / _best(lambda: (em.asarray(h, device=dev), sync()), reps=2)
        out["h2d_pinned"] = h.nbytes / _best(lambda: (em.asarray(pin, device=dev), sync()), reps=2)
        g = em.asarray(h, device=dev)
        out["d2h"] = h.nbytes / _best(lambda: g.get(), reps=2)
        out["d2h_pinned"] = h.nbytes / _best(lambda: g.get(out=pin), reps=2)
    return out


def opencl_enabled():
    """Whether OpenCL devices are candidates: EMBER_AUTO_OPENCL=1 (off by
    default: measuring one through PoCL, a CPU in disguise, takes seconds
    and only finds the CPU again)."""
    return os.environ.get("EMBER_AUTO_OPENCL", "") == "1"


def candidates():
    """The devices auto places work on: the CPU and every CUDA device, and
    every OpenCL device when opencl_enabled()."""
    devs = ["cpu"] + [f"cuda:{i}" for i in range(_ember.device_count("cuda"))]
    if opencl_enabled():
        try:
            devs += [f"opencl:{i}" for i in range(_ember.device_count("opencl"))]
        except Exception:  # noqa: BLE001  (no OpenCL runtime: no such candidates)
            pass
    return devs


def _cache_dir():
    over = os.environ.get("EMBER_CACHE_DIR")
    xdg = os.environ.get("XDG_CACHE_HOME")
    if over:
        return os.path.join(over, "auto")
    base = xdg or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "ember", "auto")


def _key(devs):
    """What a measurement is valid for: Ember's version and, per device, its
    name, memory and (CUDA) driver version."""
    parts = [_ember.__version__, f"format{_FORMAT}"]
    for d in devs:
        if d == "cpu":
            parts.append(f"cpu/{os.cpu_count()}/{_ember.num_threads()}")
            continue
        p = _ember.device_props(d)
        parts.append(f"{d}/{p.get('name')}/{p.get('total_memory')}/{_driver_version()}")
    return hashlib.sha256("|".join(parts).encode()).hexdigest()[:20]


def _driver_version():
    """The NVIDIA kernel driver's version, as Linux reports it ("" elsewhere)."""
    for path in ("/sys/module/nvidia/version", "/proc/driver/nvidia/version"):
        try:
            with open(path) as f:
                return f.readline().strip()
        except OSError:
            continue
    return ""


def _path(key):
    return os.path.join(_cache_dir(), f"model-{key}.json")


def load(devs=None):
    """The cached model of these devices (default: candidates()), or None."""
    devs = devs or candidates()
    key = _key(devs)
    try:
        with open(_path(key)) as f:
            d = json.load(f)
        return Model.from_dict(d["costs"], key=key, seconds=d.get("seconds"))
    except (OSError, ValueError, KeyError, TypeError):
        return None


def calibrate(devs=None, save=True):
    """Measure every device (default: candidates()) and cache the model."""
    devs = devs or candidates()
    t0 = time.perf_counter()
    costs = [DeviceCost(d, **_measure(d)) for d in devs]
    seconds = time.perf_counter() - t0
    key = _key(devs)
    m = Model(costs, key=key, seconds=seconds)
    if save:
        try:
            os.makedirs(_cache_dir(), exist_ok=True)
            tmp = _path(key) + f".{os.getpid()}.tmp"
            with open(tmp, "w") as f:
                json.dump({"costs": m.as_dict(), "seconds": seconds,
                           "version": _ember.__version__}, f, indent=1)
            os.replace(tmp, _path(key))  # readers never see half a file
        except OSError:
            pass  # an unwritable cache: the model lives for this process
    return m
