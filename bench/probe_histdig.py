"""Issue 19's histogram / digitize / searchsorted / bincount rows beside CuPy
and PyTorch in one process, each Ember result checked against NumPy.

    python bench/probe_histdig.py [label]      # one line a row, ms

Ember's tree is whichever `import ember` finds (PYTHONPATH), so two builds
(say main's and a branch's) are compared by running this twice, interleaved.
Columns: the median of REPEAT (7) single calls, each synchronised (`one`),
in ROUNDS (2) rounds taken in turn with the other libraries (the spread of
the host-heavy rows shows there); and `b2b`, the mean of 20 calls queued
back to back then synchronised once (the device-bound floor of a call).
2^24 float32 standard normal (N to change).  Env A/B inside the process:
EMBER_SEARCH_SAMPLE=1 (searchsorted of a long haystack by shared samples)."""
import os
import sys
import time

import numpy as np

import ember as em
from bench_surface import median_ms  # noqa: E402

N = int(os.environ.get("N", 1 << 24))
REPEAT = int(os.environ.get("REPEAT", 7))
ROUNDS = int(os.environ.get("ROUNDS", 2))
dev = os.environ.get("DEV", "cuda:0")
label = sys.argv[1] if len(sys.argv) > 1 else "ember"
D = em.Device(dev)
rng = np.random.default_rng(3)
r = rng.standard_normal(N).astype(np.float32)
hay = np.sort(rng.standard_normal(N).astype(np.float32))
ed = np.linspace(-4, 4, 1024, dtype=np.float32)
small = rng.integers(0, 1000, N).astype(np.int64)

E = {"x": em.asarray(r, device=dev), "e": em.asarray(ed, device=dev),
     "h": em.asarray(hay, device=dev), "s": em.asarray(small, device=dev)}
rows = {  # name: (ember call, NumPy's answer, cupy call, torch call)
    "histogram 256 range": (lambda m, a: m.histogram(a["x"], bins=256, range=(-4, 4)),
                            lambda: np.histogram(r, bins=256, range=(-4, 4))[0],
                            lambda t, a: t.histc(a["x"], bins=256, min=-4, max=4)),
    "histogram 256 no range": (lambda m, a: m.histogram(a["x"], bins=256),
                               lambda: np.histogram(r, bins=256)[0],
                               lambda t, a: t.histc(a["x"], bins=256)),
    "digitize 1024": (lambda m, a: m.digitize(a["x"], a["e"]),
                      lambda: np.digitize(r, ed),
                      lambda t, a: t.bucketize(a["x"], a["e"], right=True)),
    "searchsorted 1024 (right)": (lambda m, a: m.searchsorted(a["e"], a["x"], side="right"),
                                  lambda: np.searchsorted(ed, r, side="right"),
                                  lambda t, a: t.searchsorted(a["e"], a["x"], right=True)),
    "searchsorted f32 2^24": (lambda m, a: m.searchsorted(a["h"], a["x"]),
                              lambda: np.searchsorted(hay, r),
                              lambda t, a: t.searchsorted(a["h"], a["x"])),
    "bincount i64 (1000)": (lambda m, a: m.bincount(a["s"]),
                            lambda: np.bincount(small),
                            lambda t, a: t.bincount(a["s"])),
}
ENV = {"searchsorted f32 2^24": "EMBER_SEARCH_SAMPLE"}

libs = {}
try:
    import cupy as cp
    libs["cupy"] = (cp, {k: cp.asarray(v.get()) for k, v in E.items()},
                    cp.cuda.runtime.deviceSynchronize)
except Exception as exc:  # noqa: BLE001
    print("no cupy:", exc)
try:
    import torch
    libs["torch"] = (torch, {k: torch.as_tensor(v.get(), device="cuda") for k, v in E.items()},
                     torch.cuda.synchronize)
except Exception as exc:  # noqa: BLE001
    print("no torch:", exc)


def one(f, sync):
    return median_ms(f, sync, REPEAT)  # bench_surface's: a warm-up, lazy results forced


def b2b(f, sync, k=20):
    f()
    sync()
    t = time.perf_counter()
    for _ in range(k):
        f()
    sync()
    return (time.perf_counter() - t) / k * 1e3


def first(res):
    return res[0] if isinstance(res, tuple) else res


print(f"# probe_histdig [{label}] on {dev} ({D.name}), n = {N}, median of {REPEAT}, "
      f"{ROUNDS} rounds; ms")
for name, (f, want, ft) in rows.items():
    variants = {"": None}
    if name in ENV:
        variants = {"": "0", f" {ENV[name]}=1": "1"}
    for tag, val in variants.items():
        if val is not None:
            os.environ[ENV[name]] = val
        ok = np.array_equal(first(f(em, E)).get(), want())
        got = {"ember": [], "cupy": [], "torch": []}
        for _ in range(ROUNDS):
            got["ember"].append(one(lambda: f(em, E), D.synchronize))
            for lib, (m, a, sync) in libs.items():
                call = ft if lib == "torch" else f
                try:
                    got[lib].append(one(lambda: call(m, a), sync))
                except Exception:  # noqa: BLE001 -- a library without the call
                    got[lib].append(float("nan"))
        q = b2b(lambda: f(em, E), D.synchronize)
        qo = {lib: b2b(lambda: (ft if lib == "torch" else f)(m, a), sync)
              for lib, (m, a, sync) in libs.items() if not np.isnan(got[lib][0])}
        os.environ.pop(ENV.get(name, ""), None)
        cell = "  ".join(f"{lib} {'/'.join(f'{v:.3f}' for v in vs)}" for lib, vs in got.items()
                         if vs)
        cell += "  b2b " + " ".join(f"{k} {v:.3f}" for k, v in {"ember": q, **qo}.items())
        print(f"[{label}] {name + tag:<40} {cell}  ok={ok}", flush=True)
