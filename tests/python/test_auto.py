"""device="auto" (ember.auto, docs/auto.md): the auto device everywhere a
device is named, auto equal to the CPU bit for bit where the CPU is the only
candidate, the cost model (formula, calibration, disk cache), placement at
both ends of each threshold with injected numbers, and, against the fake
CUDA driver, the moves placement makes (kernels do not run under the fake,
so values are checked only for data that was moved, never computed there)."""
import os
import subprocess
import sys

import numpy as np
import pytest

import ember as em
from ember.auto import _model, _place
from helpers import assert_same, layouts, to_em

HERE = os.path.dirname(os.path.abspath(__file__))
PYPATH = os.path.join(HERE, "..", "..", "python")

CPU = dict(launch=2e-6, elementwise=1e10, reduction=2e10, matmul=1e11, sort=1e9)
GPU = dict(launch=1e-5, elementwise=1e12, reduction=1e12, matmul=1e14, sort=1e11,
           h2d=1e10, d2h=1e10, h2d_pinned=2e10, d2h_pinned=2e10)


@pytest.fixture
def cpu_only():
    """Auto with the CPU as its only candidate (as on a machine without a GPU)."""
    em.auto.set_model({"cpu": CPU})
    yield
    em.auto.set_model(None)


@pytest.fixture
def two_devices():
    """A model of a CPU and a GPU: decisions only (nothing is moved here)."""
    em.auto.set_model({"cpu": CPU, "cuda:0": GPU})
    yield
    em.auto.set_model(None)


def _same_bits(a, b):
    a, b = a.get(), b.get()
    assert a.dtype == b.dtype and a.shape == b.shape
    assert a.tobytes() == b.tobytes()


# ---- auto is the CPU where the CPU is all there is ------------------------

def _chain(x):
    if x.dtype.kind == "b":
        return (x ^ True) | x[..., :1] if x.ndim else x ^ True
    if x.dtype.kind in "iu":
        return (x * 3 + 1) // 2 - x
    return em.sqrt(em.abs(x) * 0.5 + 1) - x / 3


@pytest.mark.parametrize("dtype", ["bool", "int32", "uint8", "int64", "float16", "float32",
                                   "float64", "complex64"])
def test_auto_equals_cpu_bit_for_bit(cpu_only, dtype):
    rng = np.random.default_rng(1)
    for name, a in layouts(rng, (130, 257), dtype):
        xa, xc = to_em(a, device="auto"), to_em(a, device="cpu")
        assert str(xa.device) == "auto" and str(xc.device) == "cpu", name
        ra, rc = _chain(xa), _chain(xc)
        assert str(ra.device) == "auto" and ra.device.current == em.Device("cpu"), name
        _same_bits(ra, rc)
        assert_same(ra, _chain_np(a), atol=1e-5 if dtype in ("float32", "complex64") else 0)
        if dtype != "bool":
            sa, sc = xa.sum(axis=0), xc.sum(axis=0)
            assert str(sa.device) == "auto", name
            _same_bits(sa, sc)
            _same_bits(em.max(xa), em.max(xc)) if xa.size else None
            _same_bits(em.cumsum(xa), em.cumsum(xc))


def _chain_np(a):
    if a.dtype.kind == "b":
        return (a ^ True) | a[..., :1] if a.ndim else a ^ True
    if a.dtype.kind in "iu":
        return (a * 3 + 1) // 2 - a
    return np.sqrt(np.abs(a) * 0.5 + 1) - a / 3


def test_auto_broadcast_matmul_sort_equal_cpu(cpu_only):
    rng = np.random.default_rng(2)
    a, b = rng.random((64, 1), np.float32), rng.random((1, 100), np.float32)
    ra = em.asarray(a, device="auto") * em.asarray(b, device="auto")
    # the references on the CPU, auto's only candidate here (the default device may be a GPU)
    _same_bits(ra, em.asarray(a, device="cpu") * em.asarray(b, device="cpu"))
    m = rng.random((33, 47)).astype(np.float64)
    ma = em.asarray(m, device="auto")
    mm = ma @ ma.T
    assert str(mm.device) == "auto"
    _same_bits(mm, em.asarray(m, device="cpu") @ em.asarray(m, device="cpu").T)
    assert_same(mm, m @ m.T, rtol=1e-12)
    v = rng.standard_normal(5000).astype(np.float32)[::-1]
    s = em.sort(em.asarray(v, device="auto"))
    assert str(s.device) == "auto"
    assert_same(s, np.sort(v))
    i = em.argsort(em.asarray(v, device="auto"))
    assert str(i.device) == "auto"
    assert_same(i, np.argsort(v, kind="stable"))


def test_auto_mixed_with_pinned_and_numpy(cpu_only):
    x = em.arange(10.0, device="auto")
    p = em.arange(10.0, device="cpu")
    assert str((x + p).device) == "auto"  # an auto operand: the result is auto
    assert_same(x + np.ones(10), np.arange(10.0) + 1)
    assert_same(x + 2, np.arange(10.0) + 2)
    out = em.empty(10, device="cpu")
    r = em.add(x, 1, out=out)
    assert r is out and str(out.device) == "cpu"  # out= keeps its own placement


# ---- the auto device everywhere a device is named -------------------------

def test_device_auto_object():
    d = em.Device("auto")
    assert str(d) == "auto" and repr(d) == "<ember.Device auto>"
    assert d == em.Device("auto") and hash(d) == hash(em.Device("auto")) and d != em.Device("cpu")
    assert d.current is None and em.Device("cpu").current == em.Device("cpu")
    with pytest.raises(ValueError, match="placement policy"):
        d.name
    with pytest.raises(ValueError, match="'auto'"):
        em.Device("elsewhere")


def test_creation_functions_make_auto_arrays(cpu_only):
    made = [em.asarray([1, 2, 3], device="auto"), em.array(np.ones(3), device="auto"),
            em.zeros(3, device="auto"), em.ones((2, 2), device="auto"), em.empty(4, device="auto"),
            em.full(3, 7, device="auto"), em.arange(5, device="auto"),
            em.linspace(0, 1, 5, device="auto"), em.zeros(3, device=em.Device("auto")),
            em.zeros((2, 3), order="F", device="auto")]
    x = made[0]
    made += [em.zeros_like(x), em.ones_like(x), em.empty_like(x), em.full_like(x, 2), x[1:], x.T,
             x.reshape(3, 1), em.asarray(x)]
    for m in made:
        assert str(m.device) == "auto" and m.device.current == em.Device("cpu"), m
    assert_same(made[5], np.full(3, 7))
    assert_same(made[7], np.linspace(0, 1, 5))


def test_copies_casts_and_gathers_of_auto_arrays_are_auto(cpu_only):
    h = np.arange(6.0)
    x = em.asarray(h, device="auto")
    for r, want in ((x.copy(), h), (x.astype("float32"), h.astype("float32")),
                    (x[[0, 2]], h[[0, 2]]), (x[x > 1], h[h > 1]), (x[1::2], h[1::2])):
        assert str(r.device) == "auto"
        assert_same(r, want)
    p = em.asarray(h, device="cpu")
    assert str(p.copy().device) == "cpu" and str(p[[0, 1]].device) == "cpu"


def test_auto_from_numpy_wraps_as_the_cpu_does(cpu_only):
    h = np.arange(6.0)
    a = em.asarray(h, device="auto")
    c = em.asarray(h, device="auto", copy=True)
    h[0] = 100  # the CPU device's aliasing, until Ember moves the array (docs/auto.md)
    assert float(a[0]) == 100.0 and float(c[0]) == 0.0
    assert str(a.device) == "auto" and str(c.device) == "auto"
    with pytest.raises(ValueError):
        em.asarray([1, 2], device="auto", copy=False)


def test_to_device_pins_and_auto_copies(cpu_only):
    x = em.arange(6.0, device="auto")
    p = x.to_device("cpu")
    assert str(p.device) == "cpu" and str(x.device) == "auto"
    p[0] = 9  # a copy: the auto array is not changed
    assert float(x[0]) == 0.0
    q = em.arange(6.0, device="cpu")
    a = q.to_device("auto")
    assert str(a.device) == "auto" and str(q.device) == "cpu"
    a[1] = 5
    assert float(q[1]) == 1.0
    with pytest.raises(ValueError, match="copy"):
        em.asarray(q, device="auto", copy=False)
    with pytest.raises(ValueError, match="copy"):
        em.asarray(x, device="cpu", copy=False)


def test_with_device_auto_and_nesting(cpu_only):
    before = em.get_device()
    with em.Device("auto"):
        assert str(em.get_device()) == "auto"
        z = em.zeros(3)
        assert str(z.device) == "auto"
        with em.Device("cpu"):
            assert str(em.zeros(3).device) == "cpu"
            assert str(em.get_device()) == "cpu"
        assert str(em.ones(2).device) == "auto"
    assert em.get_device() == before
    assert str(em.zeros(3).device) == str(before)


def _run(code, **env):
    e = dict(os.environ, PYTHONPATH=PYPATH)
    e.pop("EMBER_DEVICE", None)
    e.update(env)
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=e,
                       timeout=120)
    assert r.returncode == 0, r.stderr[-3000:]
    return r.stdout.split("\n")[:-1], r.stderr


def test_set_default_device_and_env(tmp_path):
    code = ("import ember as em, threading\n"
            "em.set_default_device('auto')\n"
            "print(em.get_device(), em.zeros(2).device)\n"
            "t = []\n"
            "th = threading.Thread(target=lambda: t.append(str(em.ones(2).device)))\n"
            "th.start(); th.join()\n"
            "print(t[0])\n"
            "em.set_default_device('cpu'); print(em.get_device(), em.zeros(2).device)\n")
    out, _ = _run(code, EMBER_CACHE_DIR=str(tmp_path))
    assert out == ["auto auto", "auto", "cpu cpu"]
    out, _ = _run("import ember as em\nprint(em.get_device(), em.arange(3).device)\n",
                  EMBER_DEVICE="auto", EMBER_CACHE_DIR=str(tmp_path))
    assert out == ["auto auto"]


# ---- the cost model ---------------------------------------------------------

def test_model_formula():
    m = _model.Model.from_dict({"cpu": CPU, "cuda:0": GPU})
    assert m.predict("elementwise", "cpu", 1e6) == pytest.approx(2e-6 + 1e6 / 1e10)
    assert m.predict("reduction", "cuda:0", 1e6) == pytest.approx(1e-5 + 1e6 / 1e12)
    assert m.predict("matmul", "cpu", 1e6, flops=2e9) == pytest.approx(2e-6 + 2e9 / 1e11)
    assert m.predict("sort", "cuda:0", 4e6) == pytest.approx(1e-5 + 4e6 / 1e11)
    assert m.move(1e6, "cpu", "cpu") == 0
    assert m.move(1e6, "cpu", "cuda:0") == pytest.approx(1e6 / 1e10)
    assert m.move(1e6, "cuda:0", "cpu", pinned=True) == pytest.approx(1e6 / 2e10)
    with pytest.raises(ValueError, match="missing matmul"):
        _model.Model.from_dict({"cpu": dict(CPU, matmul=None)})
    # a chain's ops: the pass prices one arithmetic op; each further one costs
    # `op` per element, each transcendental `transcendental`; a device without
    # the numbers (as a model cached before them) prices ops at nothing
    m = _model.Model.from_dict({"cpu": dict(CPU, op=1e-10, transcendental=4e-9), "cuda:0": GPU})
    assert m.compute("cpu", 1000, 1) == 0 and m.compute("cpu", 1000, 1, 1) == pytest.approx(4e-6)
    assert m.compute("cpu", 1000, 8, 2) == pytest.approx(1000 * (5 * 1e-10 + 2 * 4e-9))
    assert m.compute("cuda:0", 1000, 8, 2) == 0
    assert m.predict_chain("cpu", 8e3, 1000, 3) == pytest.approx(2e-6 + 8e3 / 1e10 + 2e-7)


def test_calibrate_measures_and_caches(tmp_path, monkeypatch):
    monkeypatch.setenv("EMBER_CACHE_DIR", str(tmp_path))
    try:
        m = em.auto.calibrate(["cpu"])
        c = m.costs["cpu"]
        for f in ("launch", "elementwise", "reduction", "matmul", "sort"):
            assert getattr(c, f) > 0, f
        assert c.op >= 0 and c.transcendental >= 0  # seconds per element, never negative
        assert c.op < 1e-6 and c.transcendental < 1e-5  # a CPU does an op in nanoseconds
        assert c.h2d is None  # the CPU has no copies
        assert m.seconds < 5  # the budget is 2 s; this machine is shared
        files = os.listdir(tmp_path / "auto")
        assert files == [f"model-{m.key}.json"]
        again = _model.load(["cpu"])
        assert again.as_dict() == m.as_dict() and again.key == m.key
        assert _place.model() is m
        (tmp_path / "auto" / files[0]).write_text("{not json")
        assert _model.load(["cpu"]) is None  # a damaged cache is measured again
    finally:
        em.auto.set_model(None)


# ---- placement at both ends of each threshold (injected numbers) ----------

def _crossover(kind, per_elem_bytes, moved_bytes):
    """Elements n where cpu and cuda:0 predict the same time for auto inputs
    on the host: Lc + n b / Bc = Lg + n b / Bg + n m / H."""
    rate = {"elementwise": "elementwise", "reduction": "reduction", "sort": "sort"}[kind]
    slope = per_elem_bytes / CPU[rate] - per_elem_bytes / GPU[rate] - moved_bytes / GPU["h2d"]
    return (GPU["launch"] - CPU["launch"]) / slope


def test_reduction_of_host_data_stays_when_the_cpu_outruns_the_bus(two_devices):
    # CPU reduction 2e10 B/s against a 1e10 B/s copy: moving never pays.
    assert _crossover("reduction", 4, 4) < 0
    for n in (10, 1 << 24):
        p = _place.decide("reduction", (em.empty(n, dtype="float32", device="auto"),))
        assert p.chosen == "cpu" and p.predicted["cuda:0"] > p.predicted["cpu"], p


@pytest.mark.parametrize("kind,per,moved", [("elementwise", 12, 8), ("sort", 4, 4)])
def test_threshold_both_ends(two_devices, kind, per, moved):
    n0 = _crossover(kind, per, moved)
    assert 100 < n0 < 1e7
    for n, want in ((int(n0 * 0.9), "cpu"), (int(n0 * 1.1) + 1, "cuda:0")):
        a = em.zeros(n, dtype="float32", device="auto")
        objs = (a, em.zeros(n, dtype="float32", device="auto")) if kind == "elementwise" else (a,)
        p = _place.decide(kind, objs)
        assert p.chosen == want, (n, p)
        assert set(p.predicted) == {"cpu", "cuda:0"} and p.reason == "least predicted time"
        assert p.predicted["cuda:0"] == pytest.approx(
            _place.model().predict(kind, "cuda:0", p.nbytes) + p.moves["cuda:0"])


def test_matmul_threshold(two_devices):
    # cpu: 2e-6 + 2m^3/1e11; gpu: 1e-5 + 2m^3/1e14 + 2*4m^2/1e10 (inputs moved)
    def gpu_wins(m):
        p = _place.decide("matmul", (em.zeros((m, m), "float32", device="auto"),) * 2)
        return p.chosen == "cuda:0"
    def gpu_faster(m):  # the formula, by hand
        cpu = CPU["launch"] + 2 * m ** 3 / CPU["matmul"]
        return GPU["launch"] + 2 * m ** 3 / GPU["matmul"] + 8 * m * m / GPU["h2d"] < cpu
    m0 = next(m for m in range(1, 1000) if gpu_faster(m))
    assert 16 < m0 < 500
    assert not gpu_wins(m0 - 1) and gpu_wins(m0)


def test_pinned_operand_and_out_decide(two_devices):
    big = em.zeros(1 << 20, dtype="float32", device="auto")
    assert _place.decide("elementwise", (big, big)).chosen == "cuda:0"
    p = _place.decide("elementwise", (big, em.zeros(1 << 20, dtype="float32", device="cpu")))
    assert p.chosen == "cpu" and p.reason == "pinned operand" and not p.predicted
    out = em.empty(1 << 20, dtype="float32", device="cpu")
    p = _place.decide("elementwise", (big, big), out=out)
    assert p.chosen == "cpu" and p.reason == "out= decides"


def test_explain(cpu_only):
    x = em.arange(100000, dtype="float32", device="auto")
    p = em.auto.explain(x)
    assert p.chosen == "cpu" and list(p.predicted) == ["cpu"]
    assert p.predicted["cpu"] == pytest.approx(CPU["launch"] + 2 * x.nbytes / CPU["elementwise"])
    r, ps = em.auto.explain(lambda: (x * 2 + 1).sum())
    assert float(r) == float(np.sum(np.arange(100000, dtype=np.float32) * 2 + 1, dtype=np.float32))
    # The chain stays pending where its inputs are; the reduction that reads
    # it is one decision, counting the bytes the chain reads (not placed again).
    assert [q.kind for q in ps] == ["reduction"]
    assert ps[0].chosen == "cpu" and "cpu" in repr(ps[0]) and ps[0].nbytes == x.nbytes
    r, ps = em.auto.explain(lambda: (x * 2 + 1).get())
    assert [q.kind for q in ps] == ["chain"] and ps[0].nbytes == 2 * x.nbytes
    with pytest.raises(TypeError, match="callable"):
        em.auto.explain(3)


def test_debug_prints_each_placement(tmp_path):
    code = ("import ember as em\n"
            "em.auto.set_model({'cpu': %r})\n"
            "x = em.arange(1000.0, device='auto')\n"
            "print(float((x + 1).sum()))\n" % (CPU,))
    out, err = _run(code, EMBER_DEBUG="1", EMBER_CACHE_DIR=str(tmp_path))
    assert out == ["500500.0"]
    lines = [ln for ln in err.splitlines() if ln.startswith("ember auto:")]
    assert len(lines) == 2 and "elementwise" in lines[0] and "-> cpu" in lines[0]
    assert "reduction" in lines[1] and "us" in lines[1]


# ---- moves, against the fake CUDA driver ----------------------------------

FAKE_CODE = """
import numpy as np, ember as em
em.auto.set_model({'cpu': %r, 'cuda:0': %r})
cur = lambda a: str(a.device.current)
def ev(a):
    em.eval(a)
    return a
small = em.arange(100, dtype='float32', device='auto')
print(cur(small + 1), cur(small))
mid = em.arange(1 << 16, dtype='float32', device='auto')
y = mid * 2
print(em._ember._is_pending(y), cur(y), cur(ev(y)), cur(mid))
del y  # the fake device has 1 MiB
m2 = ev(mid * 1)   # a result on the GPU: work on it stays there
print(cur(ev(m2[:20000] + 1)), cur(ev(m2[:10] + 1)))
del mid
w = em.arange(1 << 16, dtype='float32', device='auto')
w2 = w[1:]
z = w + w
print(cur(w), cur(w2), cur(ev(z)))
del w, w2, z
pin = em.zeros(1 << 16, dtype='float32', device='cpu')
print(cur(ev(m2 + pin)), cur(m2))
g = em.arange(1 << 16, dtype='float32', device='auto')
print(cur(em.sum(g)), end=' ')
h = ev(g * 2)
print(cur(h), cur(em.sum(h)))
del g, h
em.get_default_memory_pool().set_limit(size=1 << 16)
big = em.arange(1 << 17, dtype='float32', device='auto')
_, ps = em.auto.explain(lambda: ev(big * 2))
print(ps[0].kind, ps[0].chosen, ps[0].predicted['cuda:0'])
em.get_default_memory_pool().set_limit(size=0)
p = em.arange(5.0, device='auto').to_device('cuda:0')
print(p.device)
"""


def test_placement_moves_under_the_fake_driver(fake_lib, tmp_path):
    out, err = _run(FAKE_CODE % (CPU, GPU), EMBER_LIBCUDA=fake_lib, EMBER_CACHE_DIR=str(tmp_path))
    assert out == [
        "cpu cpu",               # 100 elements: the launch and the move cost more than the CPU
        "True cpu cuda:0 cpu",   # 64 Ki: lazy where its input is; evaluated on the GPU (the
                                 # whole chain placed then), its input copied there
        "cuda:0 cpu",            # work follows the data while moving back costs more; 10
                                 # elements: the CPU's launch is cheaper than the move back
        "cpu cpu cuda:0",        # the chain's inputs are copied for it, not moved
        "cpu cpu",               # a pinned operand decides; the auto one moves back
        "cpu cuda:0 cuda:0",     # a host reduction: the CPU outruns the bus; on the GPU's
                                 # data: there
        "chain cpu inf",         # over the pool's set_limit: not placed there
        "cuda:0",                # pinned to the GPU
    ], err


# ---- every result of auto inputs is auto ------------------------------------

# name -> f(x, i, b): x a float64 (4, 6) array, i an int64 permutation of 4,
# b a mask of x; each result is compared, bit for bit, with the same call on
# CPU arrays.
RESULTS = {
    "concatenate": lambda x, i, b: em.concatenate([x, x]),
    "stack": lambda x, i, b: em.stack([x, x], axis=1),
    "hstack": lambda x, i, b: em.hstack([x, x]),
    "where": lambda x, i, b: em.where(b, x, 0),
    "where1": lambda x, i, b: em.where(b)[1],
    "nonzero": lambda x, i, b: em.nonzero(x)[0],
    "astype": lambda x, i, b: x.astype("float32"),
    "gather": lambda x, i, b: x[i],
    "mask": lambda x, i, b: x[b],
    "view": lambda x, i, b: x[1:, ::-2],
    "sum": lambda x, i, b: x.sum(),
    "mean_axis": lambda x, i, b: x.mean(axis=0),
    "std": lambda x, i, b: x.std(),
    "argmax": lambda x, i, b: x.argmax(),
    "cumsum": lambda x, i, b: em.cumsum(x, axis=1),
    "sort": lambda x, i, b: em.sort(-x),
    "argsort": lambda x, i, b: em.argsort(-x, axis=0),
    "unique": lambda x, i, b: em.unique(x % 5),
    "matmul": lambda x, i, b: x @ x.T,
    "dot": lambda x, i, b: em.dot(x, x.T),
    "einsum": lambda x, i, b: em.einsum("ij,kj->ik", x, x),
    "outer": lambda x, i, b: em.outer(x[0], x[1]),
    "repeat": lambda x, i, b: em.repeat(x, 2, axis=0),
    "x.repeat": lambda x, i, b: x.repeat(2),
    "take": lambda x, i, b: em.take(x, i),
    "x.take": lambda x, i, b: x.take(i),
    "x.nonzero": lambda x, i, b: x.nonzero()[1],
    "pad": lambda x, i, b: em.pad(x, 1),
    "roll": lambda x, i, b: em.roll(x, 1),
    "flip": lambda x, i, b: em.flip(x),
    "tile": lambda x, i, b: em.tile(x, 2),
    "searchsorted": lambda x, i, b: em.searchsorted(em.ravel(x), x[1:3] + 0.5),
    "clip": lambda x, i, b: em.clip(x, 1, 5),
    "zeros_like": lambda x, i, b: em.zeros_like(x),
    "diff": lambda x, i, b: em.diff(x),
    "inv": lambda x, i, b: em.linalg.inv(x[:, :4] + em.eye(4, device=x.device) * 30),
    "norm": lambda x, i, b: em.linalg.norm(x),
    "fft": lambda x, i, b: em.fft.fft(x),
    "median": lambda x, i, b: em.median(x, axis=1),
    "percentile": lambda x, i, b: em.percentile(x, 30),
    "bincount": lambda x, i, b: em.bincount(i),
    "histogram": lambda x, i, b: em.histogram(x)[0],
    "split": lambda x, i, b: em.split(x, 2)[1],
    "meshgrid": lambda x, i, b: em.meshgrid(x[0], x[1])[1],
    "array": lambda x, i, b: em.array(x),
    "asarray_copy": lambda x, i, b: em.asarray(x, copy=True),
    "arange": lambda x, i, b: em.arange(7, device=x.device),
    "random": lambda x, i, b: em.random.default_rng(4).random(9, device=x.device),
    "normal": lambda x, i, b: em.random.default_rng(4).normal(1, 2, size=9, device=x.device),
    "integers": lambda x, i, b: em.random.default_rng(4).integers(0, 9, 9, device=x.device),
}


@pytest.mark.parametrize("name", sorted(RESULTS))
def test_results_of_auto_inputs_are_auto(cpu_only, name):
    h = np.arange(24.0).reshape(4, 6) * 1.5 - 7
    p = np.array([3, 1, 2, 0])
    got = RESULTS[name](*(em.asarray(v, device="auto") for v in (h, p)),
                        em.asarray(h > 5, device="auto"))
    want = RESULTS[name](*(em.asarray(v, device="cpu") for v in (h, p)),
                         em.asarray(h > 5, device="cpu"))
    assert isinstance(got, em.ndarray) and str(got.device) == "auto", name
    assert str(want.device) == "cpu", name  # the same call on CPU arrays stays pinned
    _same_bits(got, want)


def test_wrapped_names_stay_one_object(cpu_only):
    em.asarray(np.ones(3), device="auto")  # the wrappers are installed by now
    assert em.matmul is em.linalg.matmul and em.amax is em.max and em.einsum is em.linalg.einsum
    assert em.concatenate.__wrapped__.__name__ == "concatenate"


def test_results_of_mixed_inputs_keep_the_pin(cpu_only):
    a = em.asarray(np.ones(5), device="auto")
    pin = em.asarray(np.zeros(5), device="cpu")
    r = em.concatenate([a, pin])
    assert str(r.device) == "cpu" and str(pin.device) == "cpu"
    v = em.broadcast_arrays(a, pin)[1]  # a view of the pinned array: its mark is its memory's
    assert str(v.device) == "cpu" and str(pin.device) == "cpu"
    assert str(em.asarray(a, device="cpu").device) == "cpu"  # a named device pins the copy
    assert str(em.random.random(3, device="cpu").device) == "cpu"


# ---- a lazy chain is placed once, when it is evaluated ---------------------

def _chain_crossover():
    """Elements where a*b+c (float32, on the host) predicts the same on both:
    12 bytes read and 4 written per element, the 12 moved to the GPU."""
    slope = 16 / CPU["elementwise"] - 16 / GPU["elementwise"] - 12 / GPU["h2d"]
    return (GPU["launch"] - CPU["launch"]) / slope


def test_chain_decision_both_ends(two_devices):
    n0 = _chain_crossover()
    for n, want in ((int(n0 * 0.9), "cpu"), (int(n0 * 1.1) + 1, "cuda:0")):
        p = _place._decide_chain("cpu", 12 * n, 4 * n)
        assert p.kind == "chain" and p.chosen == want, (n, p)
        assert p.predicted["cuda:0"] == pytest.approx(
            GPU["launch"] + 16 * n / GPU["elementwise"] + 12 * n / GPU["h2d"])
        assert p.predicted["cpu"] == pytest.approx(CPU["launch"] + 16 * n / CPU["elementwise"])
    # on the GPU's data the chain stays there (moving back costs more)
    assert _place._decide_chain("cuda:0", 12 << 20, 4 << 20).chosen == "cuda:0"


# A CPU that spends 0.5 ns per element on an arithmetic op beyond the pass
# and 5 ns on a transcendental one (sin, exp, ...); the GPU's ops are free.
CPU_OPS = dict(CPU, op=5e-10, transcendental=5e-9)


def _chain_ops_crossover(ops, tr, gpu=GPU):
    """Elements where a chain of ops (tr transcendental) over one float32
    input on the host predicts the same on the CPU and the GPU: 8 bytes an
    element, 4 moved."""
    per = (ops - 1 - tr) * CPU_OPS["op"] + tr * CPU_OPS["transcendental"]
    slope = 8 / CPU["elementwise"] + per - 8 / gpu["elementwise"] - 4 / gpu["h2d"]
    return (gpu["launch"] - CPU["launch"]) / slope


def test_chain_ops_decide_both_ends():
    # The bytes alone put a one-input chain below n0 on the CPU; its ops move
    # the crossover: 8 ops with 2 sines cross far below, one add not at all.
    em.auto.set_model({"cpu": CPU_OPS, "cuda:0": GPU})
    try:
        bytes_only = _chain_ops_crossover(1, 0)
        for ops, tr in ((8, 2), (8, 0), (1, 1)):
            n0 = _chain_ops_crossover(ops, tr)
            assert n0 < bytes_only / 2, (ops, tr)
            for n, want in ((int(n0 * 0.9), "cpu"), (int(n0 * 1.1) + 1, "cuda:0")):
                p = _place._decide_chain("cpu", 4 * n, 4 * n, n, ops, tr)
                assert p.chosen == want, (ops, tr, n, p)
                assert f"{ops} ops ({tr} transcendental)" in p.reason
            # the bytes alone would keep the larger of the two on the CPU
            assert _place._decide_chain("cpu", 4 * n, 4 * n, n, 1, 0).chosen == "cpu"
    finally:
        em.auto.set_model(None)


def test_pending_chain_op_counts(cpu_only):
    a = em.arange(1 << 15, dtype="float32", device="auto")
    x = em.sqrt(em.abs(em.sin(a) * 2.0 + em.cos(a) * a - 0.5) + 1.0) / (a + 1.0)
    assert em._ember._is_pending(x)
    # sin * cos * + - abs + sqrt + /: 11 op nodes, sin and cos transcendental
    assert em._ember._auto_chain_ops(x) == (11, 2)
    y = x * x  # x read twice: evaluated once
    assert em._ember._auto_chain_ops(y) == (12, 2)
    em.eval(x)
    assert em._ember._auto_chain_ops(x) == (0, 0)  # values: nothing left to run
    assert em._ember._auto_chain_ops(y) == (1, 0)  # x is a leaf of y from now on
    assert em._ember._auto_chain_ops(a) == (0, 0)
    with pytest.raises(TypeError, match="ember.ndarray"):
        em._ember._auto_chain_ops(np.ones(3))
    h = np.arange(1 << 15, dtype=np.float32)
    assert_same(y, (np.sqrt(np.abs(np.sin(h) * 2 + np.cos(h) * h - 0.5) + 1) / (h + 1)) ** 2,
                rtol=1e-5)


FAKE_CHAIN_OPS = """
import numpy as np, ember as em
em.auto.set_model({'cpu': %r, 'cuda:0': %r})
n = %d
for heavy in (False, True):
    a = em.zeros(n, dtype='float32', device='auto')
    r = em.sin(a) * 2.0 + em.cos(a) * a - 0.5 if heavy else a + 1.0
    _, ps = em.auto.explain(lambda: em.eval(r))
    print(ps[0].kind, ps[0].chosen, ps[0].reason.split(', ', 1)[1], str(r.device.current))
    del a, r
"""


def test_chain_ops_placed_under_the_fake_driver(fake_lib, tmp_path):
    # One size, two chains (the C hook passes the chain's op counts): a + 1
    # stays on the host, sin(a) * 2 + cos(a) * a - 0.5 goes to the GPU.
    gpu = dict(GPU, launch=1e-4)  # a crossover at sizes the fusion keeps lazy
    n = int(0.5 * _chain_ops_crossover(1, 0, gpu))
    assert _chain_ops_crossover(6, 2, gpu) < 0.5 * n and n > 1e5
    out, err = _run(FAKE_CHAIN_OPS % (CPU_OPS, gpu, n), EMBER_LIBCUDA=fake_lib,
                    EMBER_CACHE_DIR=str(tmp_path))
    assert out == ["chain cpu 1 ops (0 transcendental) cpu",
                   "chain cuda:0 6 ops (2 transcendental) cuda:0"], err


def test_pending_auto_chain_bytes(cpu_only):
    a = em.arange(1 << 15, dtype="float32", device="auto")
    b = em.ones(1 << 15, dtype="float64", device="auto")
    r = (a * b + a) * 2.5  # a read once, b once; the scalar is not an input
    assert em._ember._is_pending(r) and str(r.device) == "auto"
    assert em._ember._auto_chain_bytes(r) == a.nbytes + b.nbytes
    assert_same(r, (np.arange(1 << 15, dtype=np.float32) * 1.0 + np.arange(1 << 15)) * 2.5)
    assert em._ember._auto_chain_bytes(r) == 0  # evaluated: no chain left


@pytest.mark.parametrize("dtype", ["float32", "int64", "complex64"])
def test_streamed_chain_values(cpu_only, dtype):
    # A chain run in bands of rows (the CPU as the device here): each band's
    # leaves sliced, broadcast leaves whole; bit for bit the whole evaluation.
    from ember.auto import _stream
    rng = np.random.default_rng(8)
    a = (rng.random((370, 50)) * 10).astype(dtype)  # lazy: above the fusion's eager size
    b = (rng.random(50) * 3).astype(dtype)
    c = (rng.random((370, 1)) * 2).astype(dtype)
    for rows in (1, 7, 369, 370):
        xa, xb, xc = (em.asarray(v, device="auto") for v in (a, b, c))
        want = em.eval((xa * xb + xc) * 2 - xa)
        x = (xa * xb + xc) * 2 - xa
        assert em._ember._is_pending(x)
        got = _stream.run_chain(x, _stream.ChainPlan("cpu", rows, -(-370 // rows), 0.0, 0.0))
        _same_bits(got, (xa * xb + xc) * 2 - xa)
        assert_same(got, (a * b + c) * 2 - a, rtol=1e-6 if dtype != "int64" else None)
    with pytest.raises(ValueError, match="rows"):
        em._ember._auto_chain_rows(xa * 2, 5, 999, "cpu")


FAKE_CHAIN_STREAM = """
import numpy as np, ember as em
em.auto.set_model({'cpu': %r, 'cuda:0': %r})
pool = em.get_default_memory_pool()
pool.set_limit(size=1 << 18)
a = em.asarray(np.ones((512, 512), np.float32), device='auto')   # 1 MiB: 4 times the limit
b = em.asarray(np.ones(512, np.float32), device='auto')
z = a * b + 1
r, ps = em.auto.explain(lambda: (em.eval(z), z)[1])
print(type(ps[0]).__name__, ps[0].device, ps[0].nbands > 16, ps[0].rows * ps[0].nbands >= 512)
print(em._ember._is_pending(z), str(z.device), str(z.device.current), z.shape)
print(pool.used_bytes() <= 1 << 18)
"""


def test_streamed_chain_under_the_fake_driver(fake_lib, tmp_path):
    out, err = _run(FAKE_CHAIN_STREAM % (dict(CPU, elementwise=1e9), GPU), EMBER_LIBCUDA=fake_lib,
                    EMBER_CACHE_DIR=str(tmp_path))
    assert out == ["ChainPlan cuda:0 True True", "False auto cpu (512, 512)", "True"], err


FAKE_CHAIN = """
import numpy as np, ember as em
em.auto.set_model({'cpu': %r, 'cuda:0': %r})
for n in (%d, %d):
    a, b, c = (em.zeros(n, dtype='float32', device='auto') for _ in range(3))
    r, ps = em.auto.explain(lambda: a * b + c)
    # built where its inputs are, nothing decided yet
    print(ps, em._ember._is_pending(r), str(r.device.current))
    r2, ps = em.auto.explain(lambda: r.get())
    print([p.kind for p in ps], ps[0].chosen, str(r.device.current), str(a.device.current))
    del a, b, c, r, r2
pin = em.zeros(%d, dtype='float32', device='cpu')
x = em.zeros(pin.size, dtype='float32', device='auto')
r, ps = em.auto.explain(lambda: (x * 2 + pin).get())
print([(p.kind, p.chosen, p.reason) for p in ps])
"""


def test_chain_placed_when_evaluated_under_the_fake_driver(fake_lib, tmp_path):
    n0 = _chain_crossover()
    lo, hi = int(n0 * 0.9), int(n0 * 1.1) + 1
    out, err = _run(FAKE_CHAIN % (CPU, GPU, lo, hi, hi), EMBER_LIBCUDA=fake_lib,
                    EMBER_CACHE_DIR=str(tmp_path))
    assert out == [
        "[] True cpu",                # below the crossover: built lazily where the inputs are,
        "['chain'] cpu cpu cpu",      # and evaluated there (one decision for the chain)
        "[] True cpu",
        "['chain'] cuda:0 cuda:0 cpu",  # above: placed on the GPU at its evaluation; the
                                        # inputs copied there, not moved
        "[('elementwise', 'cpu', 'pinned operand'), ('chain', 'cpu', 'pinned operand')]",
    ], err


# ---- out of core: a reduction streamed through a GPU in chunks ------------

@pytest.mark.parametrize("name", ["sum", "prod", "min", "max", "any", "all"])
@pytest.mark.parametrize("dtype", ["int32", "float64", "bool", "uint8"])
def test_streamed_reduction_values(cpu_only, name, dtype):
    # The chunk loop itself, run with the CPU as its device (its streams are
    # always complete): every chunk edge against NumPy.  Under the fake
    # driver the same loop runs on cuda:0 but its kernels compute nothing.
    from ember.auto import _stream
    rng = np.random.default_rng(3)
    if dtype == "bool":
        h = rng.random((37, 29)) < 0.9
    else:
        h = rng.integers(1, 3, (37, 29)).astype(dtype)
    if dtype == "float64" and name in ("min", "max"):
        h[5, 7] = np.nan
    x = em.asarray(h, device="auto")
    want = getattr(np, name)(h)
    for chunk in (1, 7, 64, h.size - 1, h.size, 10 * h.size):
        p = _stream.Plan("cpu", chunk, -(-h.size // chunk), 0.0, 0.0)
        r = _stream.run(name, x, p)
        assert str(r.device) == "auto"
        assert_same(r, want, rtol=1e-12)
    # several devices: a thread each, the chunks dealt round robin, the
    # partial results gathered in chunk order (the CPU twice here)
    for nd in (2, 3):
        r = _stream.run(name, x, _stream.Plan(("cpu",) * nd, 97, -(-h.size // 97), 0.0, 0.0))
        assert_same(r, getattr(np, name)(h))
    r = _stream.run(name, x, _stream.Plan("cpu", 100, 11, 0.0, 0.0), keepdims=True)
    assert_same(r, getattr(np, name)(h, keepdims=True), rtol=1e-12)


@pytest.mark.parametrize("name", ["sum", "prod", "min", "max", "any", "all"])
@pytest.mark.parametrize("dtype", ["int32", "float64", "bool"])
def test_streamed_axis_reduction_values(cpu_only, name, dtype):
    # Blocks of whole rows, reduced over the same axes, joined or reduced
    # again: every block edge and axis set against NumPy, one and two devices.
    from ember.auto import _stream
    rng = np.random.default_rng(5)
    h = (rng.random((13, 5, 3)) > 0.3) if dtype == "bool" else \
        (rng.random((13, 5, 3)) * 4 - 1).astype(dtype)
    x = em.asarray(h, device="auto")
    for axes in [(1,), (2,), (1, 2), (0,), (0, 2), (0, 1)]:
        for rows, devs in [(1, "cpu"), (4, "cpu"), (13, "cpu"), (3, ("cpu", "cpu"))]:
            p = _stream.Plan(devs, rows * 15, -(-13 // rows), 0.0, 0.0)
            for keep in (False, True):
                r = _stream.run_axes(name, x, p, axes, keepdims=keep)
                want = getattr(np, name)(h, axis=axes, keepdims=keep)
                assert str(r.device) == "auto" and r.shape == want.shape, (axes, rows)
                assert_same(r, want, rtol=1e-12 if dtype == "float64" else 0)


def test_stream_plan_both_ends():
    from ember.auto import _stream
    x = em.zeros(1 << 20, dtype="float32", device="auto")  # 4 MiB on the host
    slow_cpu = dict(CPU, reduction=2e9)
    try:
        em.auto.set_model({"cpu": slow_cpu, "cuda:0": GPU})
        orig = _place._avail
        _place._avail = lambda dev: 1 << 20  # the GPU can give 1 MiB
        p = _stream.plan(x)
        assert p.device == "cuda:0" and p.chunk == (1 << 18) // 4 and p.nchunks == 16
        assert p.predicted == pytest.approx(16 * GPU["launch"] + x.nbytes / GPU["h2d"]
                                            + (1 << 18) / GPU["h2d"])
        assert _stream.plan(em.zeros(1 << 17, dtype="float32", device="auto")) is None  # fits
        assert _stream.plan(x[::2]) is None  # not contiguous: placed as usual
        # two GPUs: each streams half on its own bus; together when that wins
        em.auto.set_model({"cpu": slow_cpu, "cuda:0": GPU, "cuda:1": GPU})
        p = _stream.plan(x)
        assert p.devices == ("cuda:0", "cuda:1") and p.nchunks == 16, p
        assert p.predicted == pytest.approx(8 * GPU["launch"] + x.nbytes / 2 / GPU["h2d"]
                                            + (1 << 18) / GPU["h2d"])
        assert "cuda:0, cuda:1" in repr(p)
        slow_bus = dict(GPU, h2d=2.5e9)  # a second GPU on a slow bus: one GPU is faster
        em.auto.set_model({"cpu": slow_cpu, "cuda:0": GPU, "cuda:1": slow_bus})
        assert _stream.plan(x).devices == ("cuda:0",)
        em.auto.set_model({"cpu": CPU, "cuda:0": GPU})  # the CPU outruns the bus
        assert _stream.plan(x) is None
        # forced (the benchmark's streaming row): through the GPUs named, even
        # where the CPU is faster or the array fits
        p = _stream.plan(x, force=("cuda:0",))
        assert p.devices == ("cuda:0",) and p.nchunks == 16 and p.predicted > p.cpu
        em.auto.set_model({"cpu": CPU, "cuda:0": GPU, "cuda:1": slow_bus})
        assert _stream.plan(x, force=("cuda:0", "cuda:1")).devices == ("cuda:0", "cuda:1")
        _place._avail = lambda dev: 1 << 30  # the GPU could hold it
        assert _stream.plan(x) is None
        p = _stream.plan(x, force=("cuda:1",), chunk_bytes=1 << 20)
        assert p.devices == ("cuda:1",) and p.nchunks == 4
    finally:
        _place._avail = orig
        em.auto.set_model(None)


FAKE_STREAM = """
import numpy as np, ember as em
em.auto.set_model({'cpu': %r, 'cuda:0': %r})
pool = em.get_default_memory_pool()
pool.set_limit(size=1 << 18)
x = em.arange(1 << 18, dtype='float32', device='auto')   # 1 MiB: 4 times the limit
r, ps = em.auto.explain(lambda: x.sum())
print(type(ps[0]).__name__, ps[0].device, ps[0].nchunks, str(r.device), str(r.device.current),
      r.shape)
r, ps = em.auto.explain(lambda: em.max(x, keepdims=True))
print(ps[0].nchunks in (16, 17), r.shape)  # 17: the first result holds a little memory
r, ps = em.auto.explain(lambda: x.sum(axis=0))   # every axis of a 1-d array: streamed too
print(type(ps[0]).__name__)
y = x.reshape(512, 512)
r, ps = em.auto.explain(lambda: y.sum(axis=1))   # an axis: streamed in blocks of rows
print(type(ps[0]).__name__, ps[0].chunk %% 512, r.shape, str(r.device.current))
print(pool.used_bytes() <= 1 << 18, str(x.device.current))
"""


FAKE_STREAM2 = """
import numpy as np, ember as em
em.auto.set_model({'cpu': %r, 'cuda:0': %r, 'cuda:1': %r})
for d in ('cuda:0', 'cuda:1'):  # the fake's two devices share 1 MiB: a quarter each
    with em.Device(d):
        em.get_default_memory_pool().set_limit(size=1 << 18)
x = em.arange(1 << 18, dtype='float32', device='auto')   # 1 MiB: 4 times each limit
r, ps = em.auto.explain(lambda: x.sum())
print(ps[0].devices, ps[0].nchunks > 2, str(r.device), str(r.device.current), r.shape)
"""


def test_streamed_reduction_over_two_gpus_under_the_fake_driver(fake_lib, tmp_path):
    out, err = _run(FAKE_STREAM2 % (dict(CPU, reduction=2e9), GPU, GPU), EMBER_LIBCUDA=fake_lib,
                    EMBER_CACHE_DIR=str(tmp_path), FAKE_CUDA_DEVICES="2")
    assert out == ["('cuda:0', 'cuda:1') True auto cuda:0 ()"], err


def test_streamed_reduction_under_the_fake_driver(fake_lib, tmp_path):
    out, err = _run(FAKE_STREAM % (dict(CPU, reduction=2e9), GPU), EMBER_LIBCUDA=fake_lib,
                    EMBER_CACHE_DIR=str(tmp_path))
    assert out == ["Plan cuda:0 16 auto cuda:0 ()", "True (1,)", "Plan", "Plan 0 (512,) cuda:0",
                   "True cpu"], err


FAKE_PINNED_STREAM = """
import numpy as np, ember as em
from ember import _ember
from ember.auto import _stream
em.auto.set_model({'cpu': %r, 'cuda:0': %r, 'cuda:1': %r})
for d in ('cuda:0', 'cuda:1'):
    with em.Device(d):
        em.get_default_memory_pool().set_limit(size=1 << 18)
_ember._cuda_copy_tune(4096, 0)  # pageable copies from 4 KiB on are staged
n = (1 << 18) + 3000  # the last chunk, 12000 bytes, staged were it pageable
pin = em.cuda.pinned_empty(n, 'float32')
pin[...] = np.arange(n, dtype=np.float32) %% 1000
page = pin.copy()
for src in (page, pin):
    x = em.asarray(src, device='auto', copy=False)
    s0 = _ember._cuda_copy_stats()
    r, ps = em.auto.explain(lambda: x.sum())
    s1 = _ember._cuda_copy_stats()
    p = ps[0]
    print(type(p).__name__, getattr(p, 'pinned', None), getattr(p, 'devices', None),
          s1['staged'] - s0['staged'], s1['known'] - s0['known'] == getattr(p, 'nchunks', -1),
          'pinned memory' in repr(p), bool(np.isclose(float(r), src.sum(dtype=np.float64),
                                                    rtol=1e-6)))
print(_stream._pinned(em.asarray(pin[5:], device='auto', copy=False), 'cuda:1'),
      _stream._pinned(em.asarray(page, device='auto', copy=False), 'cuda:0'),
      _stream._pinned(em.asarray(pin, device='auto', copy=False), 'cpu'),
      _ember._host_pinned(pin.ctypes.data, 0), _ember._host_pinned(pin.ctypes.data, pin.nbytes, 7))
"""


def test_pinned_source_streams_unstaged_under_the_fake_driver(fake_lib, tmp_path):
    # A source in pinned memory (em.cuda.pinned_empty) is streamed at the
    # pinned rate and its chunks are copied as they are (the driver's DMA,
    # counted as known, none staged); the same values in pageable memory,
    # predicted at the pageable rate (10x slower here), stay on the CPU.
    # The fake runs no kernels: the pageable sum is the CPU's and checked;
    # the pinned one's value is not.
    gpu = dict(GPU, h2d=1e9, h2d_pinned=2e10)
    out, err = _run(FAKE_PINNED_STREAM % (dict(CPU, reduction=2e9), gpu, gpu),
                    EMBER_LIBCUDA=fake_lib, EMBER_CACHE_DIR=str(tmp_path), FAKE_CUDA_DEVICES="2")
    assert out[0] == "Placement None None 0 False False True", err
    assert out[1].startswith("Plan True ('cuda:0', 'cuda:1') 0 True True "), err
    assert out[2] == "True False False False False", err


FAKE_STAGED2 = """
import ctypes, os, threading, numpy as np, ember as em
from ember import _ember
fk = ctypes.CDLL(os.environ['EMBER_LIBCUDA'])
fk.fake_set(1024, ctypes.c_size_t(64 << 20))  # room for two devices' MiBs
_ember._cuda_copy_tune(4096, %d)  # stage copies from 4 KiB on, in these chunks
staged0 = _ember._cuda_copy_stats()['staged']
rng = np.random.default_rng(5)
hosts = [rng.integers(0, 255, %d + 4099 * k, dtype=np.uint8) for k in range(2)]
bad = []
def copies(k):  # each device's copies from its own thread, both at once
    for r in range(40):
        h = hosts[k][r:]  # sources at every alignment
        d = em.asarray(h, device=f'cuda:{k}')
        back = d.get()
        if not np.array_equal(back, h):
            bad.append((k, r))
ts = [threading.Thread(target=copies, args=(k,)) for k in range(2)]
for t in ts: t.start()
for t in ts: t.join()
print(bad, _ember._cuda_copy_stats()['staged'] - staged0, _ember._cuda_copy_stats()['buffer_bytes'])
"""


@pytest.mark.parametrize("env", [{}, {"EMBER_STAGE_NT": "1"}, {"EMBER_STAGE_SPIN_US": "500"},
                                 {"EMBER_STAGE_NT": "1", "EMBER_STAGE_SPIN_US": "500"},
                                 {"EMBER_STAGE_BUF_MIB": "2"}, {"EMBER_STAGE_BUF_KIB": "256"},
                                 {"EMBER_STAGE_BUF_KIB": "100", "EMBER_STAGE_NBUF": "2"},
                                 {"EMBER_STAGE_BUF_KIB": "2048", "EMBER_STAGE_NT": "1"},
                                 {"EMBER_STAGE_BUF_KIB": "64", "EMBER_STAGE_NBUF": "16",
                                  "EMBER_STAGE_THREADS": "16"}])
@pytest.mark.parametrize("chunk,n", [(8192, 60000), (1 << 20, (3 << 20) + 777),
                                     (0, (9 << 20) + 777)])
def test_staged_copies_on_two_devices_at_once_under_the_fake_driver(fake_lib, tmp_path, env,
                                                                    chunk, n):
    # Each device stages its pageable copies through its own pinned buffers
    # and its own team of memcpy threads (host/team.c; four here), so two
    # streams' copies run at once: every byte in and back out checked.  1 MiB
    # chunks split over the team (256 KiB a thread); the staging's streaming
    # stores (EMBER_STAGE_NT) and helpers that watch for the next chunk
    # (EMBER_STAGE_SPIN_US) must move the same bytes; chunk 0 is the
    # staging's own choice (a quarter of the copy, at most a buffer:
    # EMBER_STAGE_BUF_MIB=2 cuts 9 MiB into 2 MiB chunks over 4 buffers).
    # EMBER_STAGE_BUF_KIB: lanes (each thread its own small buffers, its own
    # DMAs; 100 KiB divides no chunk, 16 lanes of 16 buffers of 64 KiB) with
    # the copy tune's chunk as the lanes' buffer where set.
    out, err = _run(FAKE_STAGED2 % (chunk, n), EMBER_LIBCUDA=fake_lib,
                    EMBER_CACHE_DIR=str(tmp_path), FAKE_CUDA_DEVICES="2",
                    FAKE_CUDA_CHECK_PTRS="1", **dict({"EMBER_STAGE_THREADS": "4"}, **env))
    buf = int(env.get("EMBER_STAGE_BUF_MIB", 8)) << 20
    assert out == [f"[] 160 {buf}"], err


FAKE_LANES = """
import ctypes, os, numpy as np, ember as em
from ember import _ember
fk = ctypes.CDLL(os.environ['EMBER_LIBCUDA'])
fk.fake_set(1024, ctypes.c_size_t(256 << 20))
fk.fake_calls.argtypes = [ctypes.c_char_p]
fk.fake_fail_call.argtypes = [ctypes.c_char_p, ctypes.c_int, ctypes.c_int, ctypes.c_int]
calls = lambda name: fk.fake_calls(name.encode())
rng = np.random.default_rng(3)
h = rng.integers(0, 255, (9 << 20) + 777, dtype=np.uint8)
def put(src, **env):  # one host-to-device copy under env; its DMAs and pinnings
    os.environ.update(env)
    a0, p0, f0 = calls('cuMemcpyHtoDAsync'), calls('cuMemHostAlloc'), calls('cuMemFreeHost')
    b0 = calls('cuMemcpyDtoHAsync')
    d = em.asarray(src, device='cuda:0')
    back = calls('cuMemcpyDtoHAsync') - b0  # none: the fake would copy host bytes back
    r = [calls('cuMemcpyHtoDAsync') - a0, calls('cuMemHostAlloc') - p0,
         calls('cuMemFreeHost') - f0]
    return [np.array_equal(d.get(), src) and back == 0] + r
# the geometry changed between copies: the lanes' block made again, once each
print(put(h, EMBER_STAGE_BUF_KIB='256', EMBER_STAGE_THREADS='4'))
print(put(h[3:]))
print(put(h[1:], EMBER_STAGE_BUF_KIB='100'))
print(put(h, EMBER_STAGE_NBUF='3'))
print(put(h, EMBER_STAGE_THREADS='2'))
print(put(h, EMBER_STAGE_LANE_STREAMS='1'))  # a stream a lane: the same block
os.environ.pop('EMBER_STAGE_LANE_STREAMS')
print(put(h, EMBER_STAGE_BUF_KIB='0'))  # the shared buffers (4 chunks)
# a failure in one lane: the error, every queued DMA waited for, the next copy whole
_ember._cuda_copy_tune(4096, 8192)
os.environ.update(EMBER_STAGE_BUF_KIB='64', EMBER_STAGE_THREADS='4')
for call in ('cuMemcpyHtoDAsync', 'cuEventRecord', 'cuEventSynchronize'):
    os.environ['EMBER_STAGE_LANE_STREAMS'] = '1' if call == 'cuEventRecord' else '0'
    fk.fake_fail_call(call.encode(), 7, 1, 1)
    try:
        em.asarray(h[:200001], device='cuda:0')
        print('no error')
    except em.DeviceError as e:
        print(call, 'host-to-device copy failed' in str(e) and call in str(e), fk.fake_pending())
    fk.fake_fail_call(call.encode(), 1, 0, 0)
    print(put(h[5:300005])[0])
"""


def test_staging_lanes_under_the_fake_driver(fake_lib, tmp_path):
    # EMBER_STAGE_BUF_KIB: each of the team's threads stages its own run of
    # the copy through its own small buffers.  9 MiB + 777 bytes in 256 KiB
    # buffers is 37 DMAs (100 KiB: 93 of 25 pages, the last short); a new
    # geometry (size, buffers per lane, lanes) pins a new block and frees the
    # old one; an unchanged one pins nothing.  A failing DMA call, event
    # record or event wait in one lane stops them all, waits for what was
    # queued (nothing pending), and the next copy is whole.
    out, err = _run(FAKE_LANES, EMBER_LIBCUDA=fake_lib, EMBER_CACHE_DIR=str(tmp_path),
                    FAKE_CUDA_CHECK_PTRS="1")
    # (the first copy pins the lanes' block and the four shared buffers,
    # which device-to-host copies stage through; the shared buffers' copy is
    # 4 chunks).  No
    # device-to-host DMA runs during a host-to-device copy: the fake would
    # carry that mistake silently (session 17's first H100 call found it).
    assert out[:7] == ["[True, 37, 5, 0]", "[True, 37, 0, 0]", "[True, 93, 1, 1]",
                       "[True, 93, 1, 1]", "[True, 93, 1, 1]", "[True, 93, 0, 0]",
                       "[True, 4, 0, 0]"], err
    assert out[7:] == ["cuMemcpyHtoDAsync True 0", "True", "cuEventRecord True 0", "True",
                       "cuEventSynchronize True 0", "True"], err


# ---- device-generated arrays: made chunk by chunk where they are reduced ----

@pytest.fixture
def no_gpu_fits(monkeypatch):
    """A model with a GPU that can hold nothing (4 KiB): auto creations of
    random and arange are generated lazily; their chunks are made on the CPU
    here (Generated._devices), where values can be checked."""
    from ember.auto import _generated
    em.auto.set_model({"cpu": CPU, "cuda:0": GPU})
    monkeypatch.setattr(_place, "_avail", lambda dev: 4096)
    monkeypatch.setattr(_generated, "_host_limit", lambda: 4096)
    yield
    em.auto.set_model(None)


DRAWS = {
    "random": lambda rng, dev: rng.random(10001, device=dev),
    "random32": lambda rng, dev: rng.random(9003, dtype="float32", device=dev),
    "normal": lambda rng, dev: rng.normal(2, 3, size=5003, device=dev),
    "standard_normal32": lambda rng, dev: rng.standard_normal(4099, dtype="float32", device=dev),
    "uniform": lambda rng, dev: rng.uniform(-1, 5, size=(70, 90), device=dev),
    "integers": lambda rng, dev: rng.integers(0, 100, size=9000, device=dev),
    "integers8": lambda rng, dev: rng.integers(-5, 5, size=6001, dtype="int8", device=dev),
}


@pytest.mark.parametrize("name", sorted(DRAWS))
@pytest.mark.parametrize("ndev", [1, 2])
def test_generated_draw_equals_the_whole_draw(no_gpu_fits, name, ndev):
    from ember.auto import _generated
    rng, rng2 = em.random.default_rng(7), em.random.default_rng(7)
    g = DRAWS[name](rng, "auto")
    want = DRAWS[name](rng2, "cpu").get()
    assert isinstance(g, _generated.Generated) and g.shape == want.shape
    assert g.dtype == want.dtype and str(g.device) == "auto" and g.nbytes == want.nbytes
    g._devices = ("cpu",) * ndev
    assert float(g.max()) == want.max() and float(g.min()) == want.min()
    s = g.sum()
    assert str(s.device) == "auto" and s.shape == ()
    assert float(s) == pytest.approx(want.sum(), rel=1e-6)
    assert float(g.mean()) == pytest.approx(want.mean(), rel=1e-6)
    assert float((g * 2 - 1).max()) == (want * 2 - 1).max()
    assert bool((g > 0.5).any()) == bool((want > 0.5).any())
    assert g.sum(keepdims=True).shape == (1,) * want.ndim
    assert np.array_equal(np.asarray(g), want)  # materialised: every chunk edge
    if want.ndim == 2:
        assert_same(g.sum(axis=0), want.sum(axis=0))  # not full: on the values
    # the stream advanced as the whole draw's did
    assert np.array_equal(rng.random(9, device="cpu").get(), rng2.random(9, device="cpu").get())


@pytest.mark.parametrize("args,dtype", [((10001,), None), ((3, 50003, 7), None),
                                        ((0.5, 9000.3, 0.7), None), ((-4000, 4000), "float32"),
                                        ((10, 9000), "int16")])
def test_generated_arange(no_gpu_fits, args, dtype):
    from ember.auto import _generated
    g = em.arange(*args, dtype=dtype, device="auto")
    want = np.arange(*args, dtype=dtype)
    assert isinstance(g, _generated.Generated) and g.shape == want.shape and g.dtype == want.dtype
    g._devices = ("cpu",)
    assert np.array_equal(g.get(), want)
    assert float((g * 3 + 1).max()) == (want * 3 + 1).max()
    assert float(g.sum()) == pytest.approx(want.sum(dtype=np.float64), rel=1e-6)


def test_small_auto_creations_stay_arrays(no_gpu_fits, cpu_only):
    # cpu_only after no_gpu_fits: no GPU candidate, so nothing is generated
    assert isinstance(em.random.random(1 << 16, device="auto"), em.ndarray)
    assert isinstance(em.arange(1 << 16, device="auto"), em.ndarray)


def test_creations_the_host_can_hold_stay_arrays(no_gpu_fits, monkeypatch):
    from ember.auto import _generated
    monkeypatch.setattr(_generated, "_host_limit", lambda: 1 << 20)
    assert isinstance(em.random.random(1 << 16, device="auto"), em.ndarray)  # 512 KiB
    assert isinstance(em.arange(1 << 17, device="auto"), em.ndarray)  # 1 MiB
    g = em.arange((1 << 17) + 1, device="auto")
    assert isinstance(g, _generated.Generated)
    g._devices = ("cpu",)
    assert int(g[-1]) == 1 << 17 and g[3:5].tolist() == [3, 4]  # indexing: materialised


# ---- draws are made where they are cheapest (_place.creation) ---------------

def _draw_crossover(itemsize, tr=0):
    """Elements where CPU_OPS and GPU predict the same draw time: the pass
    over its bytes plus 20 ops a 32-bit word (and tr transcendental ops)."""
    arith = _place._DRAW_OPS * max(itemsize // 4, 1)
    cpu = itemsize / CPU["elementwise"] + arith * CPU_OPS["op"] + tr * CPU_OPS["transcendental"]
    return (GPU["launch"] - CPU["launch"]) / (cpu - itemsize / GPU["elementwise"])


@pytest.mark.parametrize("kind,dtype,tr", [("uniform", "float64", 0), ("uniform", "float32", 0),
                                           ("normal", "float32", 2), ("integers", "int64", 0),
                                           ("bits", "uint32", 0)])
def test_draw_placement_both_ends(monkeypatch, kind, dtype, tr):
    em.auto.set_model({"cpu": CPU_OPS, "cuda:0": GPU})
    try:
        n0 = _draw_crossover(np.dtype(dtype).itemsize, tr)
        assert 100 < n0 < 1e4, n0
        for n, want in ((int(n0 * 0.9), None), (int(n0 * 1.1) + 1, "cuda:0")):
            ps = []
            _place._local.recorders = [ps]
            try:
                got = _place.creation(kind, (n,), dtype)
            finally:
                _place._local.recorders = None
            assert got == want, (n, ps)
            assert ps[0].kind == "creation" and ps[0].nbytes == n * np.dtype(dtype).itemsize
        # an exponential's log (post=) is one more transcendental op on the CPU
        n = int(_draw_crossover(np.dtype(dtype).itemsize, tr + 1) * 1.1) + 1
        assert _place.creation(kind, (n,), dtype, post="exponential") == "cuda:0"
        assert _place.creation(kind, (10 ** 9,), dtype) == "cuda:0"
        assert _place.creation(kind, (0,), dtype) is None
        assert _place.creation("gamma", (10 ** 9,), dtype) is None  # not a Philox fill kind
        monkeypatch.setattr(_place, "_avail", lambda dev: 4096)  # no GPU holds it: the host
        assert _place.creation(kind, (10 ** 6,), dtype) is None
    finally:
        em.auto.set_model(None)


def test_a_draw_the_gpu_cannot_hold_after_all_is_made_on_the_host(monkeypatch):
    # priced on cuda:0, which then runs out of memory: the host makes it, the
    # stream's counter moved once (the values are the plain draw's)
    from ember import _ember as ext, random as erandom
    fill = ext.random_fill

    def oom_on_gpu(kind, shape, dtype, key, counter, device, *rest):
        if device == "cuda:0":
            raise em.OutOfMemoryError("out of memory allocating on cuda:0 (the test's)")
        return fill(kind, shape, dtype, key, counter, device, *rest)
    monkeypatch.setattr(_place, "creation", lambda *a, **k: "cuda:0")
    monkeypatch.setattr(erandom._ember, "random_fill", oom_on_gpu)
    g = em.random.default_rng(9)
    x, y = g.random(1000, device="auto"), g.random(7, device="auto")
    want = em.random.default_rng(9)
    assert str(x.device.current) == "cpu" and em._ember._auto_is(x)
    assert x.get().tobytes() == want.random(1000, device="cpu").get().tobytes()
    assert y.get().tobytes() == want.random(7, device="cpu").get().tobytes()


def test_draws_stay_on_the_host_where_it_is_all_there_is(cpu_only):
    assert _place.creation("uniform", (10 ** 9,), "float64") is None
    x = em.random.default_rng(5).random(1 << 16, device="auto")
    assert str(x.device.current) == "cpu" and em._ember._auto_is(x)


def test_draws_on_a_gpu_match_the_host_bit_for_bit():
    if not any(d.kind == "cuda" for d in em.devices()):
        pytest.skip("no CUDA device")
    em.auto.set_model({"cpu": CPU_OPS, "cuda:0": GPU})
    try:
        draws = [(True, lambda g, d: g.random(50001, device=d)),
                 (True, lambda g, d: g.random(50001, dtype="float32", device=d)),
                 (True, lambda g, d: g.integers(-7, 1000, 50001, device=d)),
                 # log and sine: each device's own, to the last bits
                 (False, lambda g, d: g.standard_normal(50001, dtype="float32", device=d))]
        for exact, draw in draws:
            x = draw(em.random.default_rng(11), "auto")
            want = draw(em.random.default_rng(11), "cpu").get()
            assert str(x.device.current) == "cuda:0" and em._ember._auto_is(x)
            got = x.get()
            if exact:
                assert got.dtype == want.dtype and got.tobytes() == want.tobytes()
            else:
                np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)
            assert float(x.sum()) == pytest.approx(float(want.sum(dtype=np.float64)), rel=1e-5)
    finally:
        em.auto.set_model(None)


FAKE_DRAW = """
import ember as em
em.auto.set_model({'cpu': %r, 'cuda:0': %r})
rng = em.random.default_rng(3)
x, ps = em.auto.explain(lambda: rng.random(1 << 14, device='auto'))
print(str(x.device), str(x.device.current), ps[-1].kind, ps[-1].chosen)
print(str(rng.random(8, device='auto').device.current))
"""


def test_draws_placed_under_the_fake_driver(fake_lib, tmp_path):
    out, err = _run(FAKE_DRAW % (CPU_OPS, GPU), EMBER_LIBCUDA=fake_lib,
                    EMBER_CACHE_DIR=str(tmp_path))
    assert out == ["auto cuda:0 creation cuda:0", "cpu"], err


FAKE_GEN = """
import numpy as np, ember as em
from ember.auto import _generated
_generated._host_limit = lambda: 1 << 20
em.auto.set_model({'cpu': %r, 'cuda:0': %r, 'cuda:1': %r})
for d in ('cuda:0', 'cuda:1'):
    with em.Device(d):
        em.get_default_memory_pool().set_limit(size=1 << 18)
g = em.random.random(1 << 20, device='auto')   # 8 MiB: 32 times each limit
r, ps = em.auto.explain(lambda: g.sum())
print(type(g).__name__, ps[-1].kind, ps[-1].devices, ps[-1].nchunks, str(r.device),
      str(r.device.current))
a = em.arange(1 << 20, device='auto')
r, ps = em.auto.explain(lambda: (a * 2).max())
print(type(a).__name__, ps[-1].devices, str(r.device.current))
print(em.get_default_memory_pool().used_bytes() <= 1 << 18)
"""


def test_generated_reduction_under_the_fake_driver(fake_lib, tmp_path):
    out, err = _run(FAKE_GEN % (CPU, GPU, GPU), EMBER_LIBCUDA=fake_lib,
                    EMBER_CACHE_DIR=str(tmp_path), FAKE_CUDA_DEVICES="2")
    assert out == ["Generated generated ('cuda:0', 'cuda:1') 128 auto cuda:0",
                   "Generated ('cuda:0', 'cuda:1') cuda:0", "True"], err


# ---- OpenCL devices as candidates (EMBER_AUTO_OPENCL=1) -------------------------

OCL_CODE = """
import numpy as np, ember as em
from ember.auto import _model
print(_model.candidates()[-1])
em.auto.set_model({'cpu': %r, 'opencl:0': %r})
h = np.arange(1 << 16, dtype=np.float32)
x = em.asarray(h, device='auto')
y, ps = em.auto.explain(lambda: (x * 2 + 1).get())
print(ps[0].kind, ps[0].chosen, np.array_equal(y, h * 2 + 1))
z = x * 2 + 1
em.eval(z)   # on the OpenCL device now: its reduction follows it there
s, ps = em.auto.explain(lambda: float(z.sum()))
print(str(z.device.current), ps[0].chosen, abs(s - (h * 2 + 1).sum()) < 1e-5 * s)
"""


def test_opencl_devices_are_candidates_behind_a_flag(tmp_path):
    from ember import _ember
    assert not any(d.startswith("opencl") for d in _model.candidates())  # off by default
    try:
        n = _ember.device_count("opencl")
    except Exception:  # noqa: BLE001
        n = 0
    if not n:
        pytest.skip("no OpenCL device")
    ocl = dict(GPU, launch=5e-6)  # numbers where the OpenCL device wins both
    out, err = _run(OCL_CODE % (CPU, ocl), EMBER_AUTO_OPENCL="1", EMBER_CACHE_DIR=str(tmp_path))
    assert out == ["opencl:%d" % (n - 1), "chain opencl:0 True", "opencl:0 opencl:0 True"], err


# ---- answers the extension gives without calling the policy ---------------

def test_cpu_bound_formula():
    m = _model.Model.from_dict({"cpu": CPU, "cuda:0": GPU})
    want = 0.9 * (GPU["launch"] - CPU["launch"]) / (1 / CPU["elementwise"] - 1 / GPU["elementwise"]
                                                     - 0.5 / GPU["h2d"])
    assert _place.cpu_bound("elementwise", m, ["cpu", "cuda:0"]) == int(want)
    # CPU reduction 2e10 B/s beats a 1e10 B/s copy: a GPU never wins on host data
    assert _place.cpu_bound("reduction", m, ["cpu", "cuda:0"]) == _place._NEVER
    cheap = _model.Model.from_dict({"cpu": CPU, "cuda:0": dict(GPU, launch=1e-6)})
    assert _place.cpu_bound("elementwise", cheap, ["cpu", "cuda:0"]) == 0
    # below the bound the policy itself says cpu: the bound is safe
    n = int(want) // 24  # float32 a + b: 12 bytes of work per element
    a = em.zeros(n, dtype="float32", device="auto")
    try:
        em.auto.set_model({"cpu": CPU, "cuda:0": GPU})
        assert _place.decide("elementwise", (a, a)).chosen == "cpu"
    finally:
        em.auto.set_model(None)


FAKE_FAST = """
import numpy as np, ember as em
from ember import _ember
from ember.auto import _place, _stream
em.auto.set_model({'cpu': %r, 'cuda:0': %r})
em.zeros(4, device='auto') + 1  # the first decision hands the extension its bounds
calls = []
def counting(kind, objs, out):
    calls.append(kind)
    return _place.place(kind, objs, out)
_ember._auto_set_hook(counting, _stream.whole)
bound = _place.cpu_bound('elementwise', _place.model(), ['cpu', 'cuda:0'])
n = bound // 24
a = em.zeros(n, dtype='float32', device='auto')
r = a + a
print(len(calls), str(r.device), str(r.device.current))
b = em.zeros(n * 4, dtype='float32', device='auto')
r = b + b
print(len(calls), str(r.device.current))
c = em.zeros((8, 1), dtype='float32', device='auto')
d = em.zeros((1, 8), dtype='float32', device='auto')
r = c + d   # a broadcast: the extension does not answer
print(len(calls), str(r.device))
s = a.sum()  # a reduction of host data: the CPU's whatever its size here
print(len(calls), str(s.device))
"""


def test_small_host_work_skips_the_policy_under_the_fake_driver(fake_lib, tmp_path):
    out, err = _run(FAKE_FAST % (CPU, GPU), EMBER_LIBCUDA=fake_lib, EMBER_CACHE_DIR=str(tmp_path))
    assert out == ["0 auto cpu", "1 cuda:0", "2 auto", "2 auto"], err


# A CPU whose elementwise pass outruns the bus (5e10 B/s against h2d 1e10):
# no one-op host work ever pays for its move (the extension's byte bounds are
# "never"), yet a chain with sines and cosines is the GPU's (5 ns an element).
CPU_FAST_BUS = dict(CPU, elementwise=5e10, op=1e-10, transcendental=5e-9)

FAKE_STAYS = """
import ctypes, os, numpy as np, ember as em
from ember import _ember
from ember.auto import _place, _stream
fk = ctypes.CDLL(os.environ['EMBER_LIBCUDA'])
em.auto.set_model({'cpu': %r, 'cuda:0': %r})
em.zeros(4, device='auto') + 1  # the first decision hands the extension its answers
print([_place.cpu_bound(k, _place.model(), ['cpu', 'cuda:0']) == _place._NEVER
       for k in ('elementwise', 'reduction')])
chains = []
def counting(*a):
    chains.append(a[5:])  # (elements, ops, transcendental)
    return _place.place_chain(*a)
_ember._auto_set_hook(_place.place, _stream.whole, counting)
d2h = lambda: fk.fake_calls(b'cuMemcpyDtoH') + fk.fake_calls(b'cuMemcpyDtoHAsync')
h = np.ones(1 << 16, dtype=np.float32)
def chain():  # the benchmark's chain8, from NumPy memory, not explained
    x = em.asarray(h, device='auto')
    return em.eval(em.sqrt(em.abs(em.sin(x) * 2.0 + em.cos(x) * x - 0.5) + 1.0) / (x + 1.0))
before = d2h()
rs = [chain() for _ in range(3)]  # every time, not only the first
print([str(r.device.current) for r in rs], chains[-1], d2h() - before)
del rs
n = len(chains)
r = em.eval(em.asarray(h, device='auto') + 1.0)  # one op: the CPU's, the policy not asked
print(str(r.device.current), len(chains) - n)
keys = np.ones(1 << 12, dtype=np.float32)
before = d2h()
s = em.sort(em.asarray(keys, device='auto'))
print(str(s.device), str(s.device.current), d2h() - before)
t = s[::-1] * 1  # later work on the result follows it
print(str(t.device.current), d2h() - before)
# the records: what moves is the input, in; the result stays (no trip back)
_, ps = em.auto.explain(chain)
_, qs = em.auto.explain(lambda: em.sort(em.asarray(keys, device='auto')))
print(ps[0].chosen, ps[0].moved, qs[0].chosen, qs[0].moved)
print(ps[0].moves['cuda:0'] == _place.model().move(h.nbytes, 'cpu', 'cuda:0'))
np.asarray(s)  # a read copies the values to the host; the home stays
print(d2h() - before > 0, str(s.device.current))
"""


def test_results_stay_where_computed_under_the_fake_driver(fake_lib, tmp_path):
    # A GPU-placed chain and sort leave their results on the GPU (nothing
    # copied back) in every run, not only where explain() or EMBER_DEBUG turn
    # the extension's own answers off: those answered a host chain from a
    # one-op byte bound, so a chain of sines stayed on the CPU (session 12's
    # chain8 at 2.6x all-GPU on the H100 while its explain() said cuda:0).
    out, err = _run(FAKE_STAYS % (CPU_FAST_BUS, GPU), EMBER_LIBCUDA=fake_lib,
                    EMBER_CACHE_DIR=str(tmp_path))
    assert out == [
        "[True, True]",
        "['cuda:0', 'cuda:0', 'cuda:0'] (65536, 11, 2) 0",
        "cpu 0",
        "auto cuda:0 0",
        "cuda:0 0",
        "cuda:0 {'cpu': 0, 'cuda:0': 262144} cuda:0 {'cpu': 0, 'cuda:0': 16384}",
        "True",
        "True cuda:0",
    ], err


FAKE_AVAIL = """
import ember as em
from ember import _ember
from ember.auto import _place
asked = []
real = _ember.mem_info
def counting(dev):
    asked.append(dev)
    return real(dev)
_ember.mem_info = counting
_place._FREE_TTL = 60.0  # only the pool's changes ask again here
a0 = _place._avail('cuda:0')
a1 = _place._avail('cuda:0')
print(len(asked), a0 == a1 == real('cuda:0')[0])
x = em.zeros(1 << 16, dtype='float32', device='cuda:0')  # the pool reserves memory
a2 = _place._avail('cuda:0')
print(len(asked), a2 == real('cuda:0')[0] + em.get_default_memory_pool().total_bytes()
      - em.get_default_memory_pool().used_bytes())
del x  # back to the pool's cache: reserved as before, nothing asked, more available
a3 = _place._avail('cuda:0')
print(len(asked), a3 == a2 + (1 << 18))
em.get_default_memory_pool().set_limit(size=1 << 17)
print(_place._avail('cuda:0') == 1 << 17, len(asked))
_place._FREE_TTL = 0.0  # an old answer is asked again
_place._avail('cuda:0')
print(len(asked))
"""


def test_free_memory_is_asked_once_per_pool_change_under_the_fake_driver(fake_lib, tmp_path):
    # Each placement asked the driver for every GPU's free memory; the answer
    # is kept until the pool reserves or returns memory, or for _FREE_TTL.
    out, err = _run(FAKE_AVAIL, EMBER_LIBCUDA=fake_lib, EMBER_CACHE_DIR=str(tmp_path))
    assert out == ["1 True", "2 True", "2 True", "True 2", "3"], err


# ---- past one machine: auto arrays on a Dask cluster ----------------------

def test_use_cluster_makes_large_auto_arrays_dask_arrays(cpu_only):
    distributed = pytest.importorskip("distributed")
    da = pytest.importorskip("dask.array")
    with distributed.Client(processes=False, n_workers=2, threads_per_worker=1,
                            dashboard_address=None) as client:
        try:
            em.auto.use_cluster(client, threshold=4096, chunk_bytes=1000 * 8)
            h = np.arange(3000.0).reshape(1000, 3)
            x = em.asarray(h, device="auto")
            assert isinstance(x, da.Array) and x.chunks[0] == (333, 333, 333, 1)
            assert isinstance(x.blocks[0].compute(), em.ndarray)
            r = (x * 2 + 1).sum(axis=0).compute()
            assert_same(r, (h * 2 + 1).sum(axis=0))
            small = em.asarray(np.ones(10), device="auto")  # below the threshold: one machine
            assert isinstance(small, em.ndarray) and str(small.device) == "auto"
            with pytest.raises(ValueError, match="threshold"):
                em.auto.use_cluster(client, threshold=-1)
        finally:
            em.auto.use_cluster(None)
    assert isinstance(em.asarray(np.ones(10000), device="auto"), em.ndarray)


def test_an_active_dask_client_is_picked_up(cpu_only):
    distributed = pytest.importorskip("distributed")
    da = pytest.importorskip("dask.array")
    h = np.arange(4000.0)
    try:
        em.auto.use_cluster(None, threshold=4096)  # detection, with a small threshold
        assert isinstance(em.asarray(h, device="auto"), em.ndarray)  # no client yet
        with distributed.Client(processes=False, n_workers=2, threads_per_worker=1,
                                dashboard_address=None):
            x = em.asarray(h, device="auto")
            assert isinstance(x, da.Array) and len(x.chunks[0]) == 2
            assert_same((x * 2).sum().compute(), (h * 2).sum())
            assert isinstance(em.asarray(h[:100], device="auto"), em.ndarray)  # below it
            em.auto.use_cluster(False, threshold=4096)  # off
            assert isinstance(em.asarray(h, device="auto"), em.ndarray)
        em.auto.use_cluster(None, threshold=4096)
        assert isinstance(em.asarray(h, device="auto"), em.ndarray)  # the client closed
    finally:
        em.auto.use_cluster(None)


def test_no_dask_import_for_auto(tmp_path):
    code = ("import sys, numpy as np, ember as em\n"
            "x = em.asarray(np.ones(1 << 20), device='auto')\n"
            "print(float((x * 2).sum()), 'distributed' in sys.modules, 'dask' in sys.modules)\n")
    out, _ = _run(code, EMBER_CACHE_DIR=str(tmp_path))
    assert out == ["2097152.0 False False"]


# ---- the extension's own answer for a pending host chain, both ends --------

FAKE_CHAIN_ENDS = """
import numpy as np, ember as em
from ember import _ember
from ember.auto import _place, _stream
em.auto.set_model({'cpu': %r, 'cuda:0': %r})
em.zeros(4, device='auto') + 1  # the first decision hands the extension its answers
asked = []
def counting(*a):
    asked.append(a[5:])
    return _place.place_chain(*a)
_ember._auto_set_hook(_place.place, _stream.whole, counting)
m = _place.model()
for n in %r:
    k = len(asked)
    a = em.zeros(n, dtype='float32', device='auto')
    r = em.eval(em.sin(a) * 2.0 + em.cos(a) * a - 0.5)  # not explained: the timed path
    # what the policy predicts for it (6 ops, 2 sines; 4n in, 4n out, 4n moved)
    cpu = m.predict_chain('cpu', 8 * n, n, 6, 2)
    gpu = m.predict_chain('cuda:0', 8 * n, n, 6, 2) + m.move(4 * n, 'cpu', 'cuda:0')
    print(n, str(r.device.current), len(asked) - k, 'cpu' if cpu <= gpu else 'cuda:0',
          int(1.1 * cpu < gpu))
    del a, r
"""


def test_pending_chain_answer_both_ends_under_the_fake_driver(fake_lib, tmp_path):
    # The extension answers a pending host chain itself (no policy call) only
    # where the model has the CPU at least 10 % ahead (pyem__auto_chain_time,
    # the model's predict_chain plus the move); nearer the crossover it asks
    # the policy, which picks the least prediction.  Session 12's byte bound
    # kept the benchmark's chain8 on the CPU from its second run on: here the
    # runs are unexplained, as the timed ones are, on both sides of n0.
    gpu = dict(GPU, launch=1e-3)  # a crossover where the chain is lazy and fits 1 MiB
    n0 = _chain_ops_crossover(6, 2, gpu)
    sizes = [int(n0 * f) for f in (0.3, 0.95, 1.05, 1.2)]
    assert sizes[0] > 16384 and 8 * sizes[-1] < 1 << 20, sizes
    out, err = _run(FAKE_CHAIN_ENDS % (CPU_OPS, gpu, sizes), EMBER_LIBCUDA=fake_lib,
                    EMBER_CACHE_DIR=str(tmp_path))
    rows = [line.split() for line in out]
    assert [r[1] for r in rows] == ["cpu", "cpu", "cuda:0", "cuda:0"], (out, err)
    assert [r[1] for r in rows] == [r[3] for r in rows]  # where the policy predicts least
    # answered in C far below n0 (the CPU 10 % ahead), asked near and above it
    assert [r[2] for r in rows] == ["0", "1", "1", "1"], out
    assert [r[4] for r in rows] == ["1", "0", "0", "0"], out


FAKE_SAME_CALLS = """
import ctypes, os, numpy as np, ember as em
fk = ctypes.CDLL(os.environ['EMBER_LIBCUDA'])
fk.fake_set(1024, ctypes.c_size_t(256 << 20))
em.auto.set_model({'cpu': %r, 'cuda:0': %r})
names = ['cuMemcpyHtoD', 'cuMemcpyDtoH', 'cuMemcpyHtoDAsync', 'cuMemcpyDtoHAsync',
         'cuEventRecord', 'cuEventSynchronize', 'cuMemHostAlloc', 'cuStreamSynchronize',
         'async_pageable', 'cuMemset']
waits = ctypes.c_int.in_dll(fk, 'fake_stream_waits')
snap = lambda: [fk.fake_calls(n.encode()) for n in names] + [fk.fake_allocs(), waits.value]
h = np.ones(1 << 22, dtype=np.float32)  # 16 MiB: staged copies
def chain(dev):  # the benchmark's chain8 and sort, from NumPy memory
    x = em.asarray(h, device=dev)
    return em.eval(em.sqrt(em.abs(em.sin(x) * 2.0 + em.cos(x) * x - 0.5) + 1.0) / (x + 1.0))
def srt(dev):
    return em.sort(em.asarray(h, device=dev))
for fn in (chain, srt):
    seen = {}
    for dev in ('cuda:0', 'auto', 'cuda:0', 'auto'):  # warm, then counted
        r = fn(dev); em.Device('cuda:0').synchronize(); del r
        b = snap(); r = fn(dev); em.Device('cuda:0').synchronize()
        seen[dev] = ([y - x for x, y in zip(b, snap())], str(r.device.current))
        del r
    print(fn.__name__, seen['auto'] == seen['cuda:0'], seen['auto'])
"""


def test_auto_makes_the_driver_calls_of_all_gpu_under_the_fake_driver(fake_lib, tmp_path):
    # Where auto places the benchmark's chain8 and sort on the GPU it asks the
    # driver for exactly what all-GPU asks (the input's staged copy in, no
    # copy back, no extra synchronisation or allocation): the H100's 0.2-0.5
    # ms between the two columns is not a move auto adds.
    out, err = _run(FAKE_SAME_CALLS % (CPU_FAST_BUS, GPU), EMBER_LIBCUDA=fake_lib,
                    EMBER_CACHE_DIR=str(tmp_path))
    assert [line.split(" ", 2)[:2] for line in out] == [["chain", "True"], ["srt", "True"]], (
        out, err)
    assert all(line.endswith("'cuda:0')") for line in out), out
    # 16 MiB in through the lanes' 1 MiB buffers (the default): 16 DMAs, each
    # with its event recorded and waited for; nothing else
    assert all("[0, 0, 16, 0, 16, 16, 0, 0, 0, 0, 0, 0]" in line for line in out), out


FAKE_SORT_ENDS = """
import ctypes, os, numpy as np, ember as em
fk = ctypes.CDLL(os.environ['EMBER_LIBCUDA'])
em.auto.set_model({'cpu': %r, 'cuda:0': %r})
h2d = lambda: fk.fake_calls(b'cuMemcpyHtoD') + fk.fake_calls(b'cuMemcpyHtoDAsync')
for n in %r:
    keys = np.arange(n, 0, -1).astype(np.float32)  # NumPy memory, as the benchmark's
    b = h2d()
    s = em.sort(em.asarray(keys, device='auto'))  # not explained: the timed path
    where = str(s.device.current)
    ok = where != 'cpu' or np.array_equal(np.asarray(s), np.sort(keys))  # values on the CPU
    print(n, where, h2d() - b > 0, ok)
"""


def test_sort_threshold_both_ends_under_the_fake_driver(fake_lib, tmp_path):
    # The benchmark's sort from NumPy memory: below the crossover (the keys'
    # move and the GPU's launch cost more than the CPU's sort) it sorts on
    # the host and copies nothing; above it the keys go to the GPU once and
    # the sorted result stays there.
    n0 = _crossover("sort", 4, 4)
    sizes = [int(n0 * 0.9), int(n0 * 1.1) + 1]
    out, err = _run(FAKE_SORT_ENDS % (CPU, GPU, sizes), EMBER_LIBCUDA=fake_lib,
                    EMBER_CACHE_DIR=str(tmp_path))
    assert out == [f"{sizes[0]} cpu False True", f"{sizes[1]} cuda:0 True True"], err
