"""Issue 19's geometric and cumsum rows under their A/B switches, in one
process beside PyTorch (and CuPy for cumsum), 2^24 elements on cuda:0.

Two times a cell, ms: `lat`, the median of 25 single calls each synchronised
(bench_surface's measure), and `thr`, 50 calls between two synchronisations
over 50 (launch gaps hidden).  Each variant's environment is set before its
calls (the kernels' cache keys carry it); variants are interleaved over
ROUNDS rounds and the best round is printed.

Random fills (RVAR: variants of environment for A/B; session 17's call had
EMBER_RAND_TUNE and EMBER_GEOM_FAST, session 18's EMBER_RAND_SINCOSPI=1,
each removed after its call): geometric(0.2), standard_normal f32 and f64, random
f32, integers [0, 1000).  cumsum f32 under EMBER_SCAN_TUNE shapes (session
17's EMBER_SCAN_CACHE=0, a buffer and a memset a call, went in session 18).

    PYTHONPATH=python python3 tools/probe_geo.py
"""
import os
import statistics
import sys
import time

import numpy as np
import ember as em

dev = os.environ.get("DEV", "cuda:0")
D = em.Device(dev)
n = 1 << int(os.environ.get("LOGN", "24"))
ROUNDS = int(os.environ.get("ROUNDS", "3"))
KEYS = ("EMBER_SCAN_TUNE",)


def lat(f, sync, k=25):
    f(); sync()
    ts = []
    for _ in range(k):
        t0 = time.perf_counter(); f(); sync(); ts.append(time.perf_counter() - t0)
    return statistics.median(ts) * 1e3


def thr(f, sync, k=50):
    f(); sync()
    t0 = time.perf_counter()
    for _ in range(k):
        f()
    sync()
    return (time.perf_counter() - t0) / k * 1e3


def setenv(env):
    for k in KEYS:
        os.environ.pop(k, None)
    os.environ.update(env)


def parse(spec):
    out = []
    for v in spec.split():
        name, _, env = v.partition(":")
        out.append((name, dict(e.split("=", 1) for e in env.split(";") if e)))
    return out


try:
    import torch
    tsync = torch.cuda.synchronize
    tg = torch.Generator(device="cuda")
    tg.manual_seed(1)
except Exception as e:  # noqa: BLE001
    torch = None
    print("no torch", e)
try:
    import cupy as cp
except Exception as e:  # noqa: BLE001
    cp = None
    print("no cupy", e)

g = em.random.default_rng(1)
rrows = [
    ("geometric(0.2)", lambda: g.geometric(0.2, n),
     torch and (lambda: torch.empty(n, device="cuda").geometric_(0.2, generator=tg))),
    ("standard_normal f32", lambda: g.standard_normal(n, dtype=np.float32),
     torch and (lambda: torch.randn(n, device="cuda", generator=tg))),
    ("standard_normal f64", lambda: g.standard_normal(n),
     torch and (lambda: torch.randn(n, device="cuda", dtype=torch.float64, generator=tg))),
    ("random f32", lambda: g.random(n, dtype=np.float32),
     torch and (lambda: torch.rand(n, device="cuda", generator=tg))),
    ("integers i64 [0,1000)", lambda: g.integers(0, 1000, n),
     torch and (lambda: torch.randint(0, 1000, (n,), device="cuda", generator=tg))),
]
rvar = parse(os.environ.get("RVAR", "default:"))
print(f"n = {n}; cells lat/thr ms, best of {ROUNDS} rounds", flush=True)
print("variants: " + " ".join(f"{a}={b}" for a, b in rvar))
for name, f, tf in rrows:
    if sys.argv[1:] and not any(a in name for a in sys.argv[1:]):
        continue
    res = {}
    for _ in range(ROUNDS):
        for vn, env in rvar:
            setenv(env)
            res.setdefault(vn, []).append((lat(f, D.synchronize), thr(f, D.synchronize)))
    setenv({})
    out = "".join(f" {vn} {min(t[0] for t in r):.4f}/{min(t[1] for t in r):.4f}"
                  for vn, r in res.items())
    if tf:
        tl = min(lat(tf, tsync) for _ in range(ROUNDS))
        tt = min(thr(tf, tsync) for _ in range(ROUNDS))
        out += f" | torch {tl:.4f}/{tt:.4f}"
    print(f"{name:<22}" + out, flush=True)
# the memory floor of an int64 fill and the float32 copy
z = em.empty(n, dtype=np.int64, device=dev)
f = lambda: z.fill(3)  # noqa: E731
print(f"fill i64 (floor)       {lat(f, D.synchronize):.4f}/{thr(f, D.synchronize):.4f}", flush=True)

a = np.random.default_rng(7).standard_normal(n).astype(np.float32)
x = em.asarray(a, device=dev)
ref = np.cumsum(a.astype(np.float64))
cvar = parse(os.environ.get("CVAR", "default: b256:EMBER_SCAN_TUNE=256,16 "
                                    "k32:EMBER_SCAN_TUNE=256,32"))
if not sys.argv[1:] or any("cumsum" in s for s in sys.argv[1:]):
    res = {}
    for _ in range(ROUNDS):
        for vn, env in cvar:
            setenv(env)
            f = lambda: em.cumsum(x)  # noqa: E731
            r = em.asnumpy(f()) if hasattr(em, "asnumpy") else np.asarray(f())
            err = float(np.max(np.abs(r - ref)) / max(1.0, float(np.max(np.abs(ref)))))
            res.setdefault(vn, []).append((lat(f, D.synchronize), thr(f, D.synchronize), err))
    setenv({})
    out = "".join(f" {vn} {min(t[0] for t in r):.4f}/{min(t[1] for t in r):.4f}"
                  + ("" if max(t[2] for t in r) < 1e-4 else " WRONG")
                  for vn, r in res.items())
    if torch:
        ta = torch.as_tensor(a, device="cuda")
        tf = lambda: torch.cumsum(ta, dim=0)  # noqa: E731
        out += f" | torch {min(lat(tf, tsync) for _ in range(ROUNDS)):.4f}/" \
               f"{min(thr(tf, tsync) for _ in range(ROUNDS)):.4f}"
    if cp:
        ca = cp.asarray(a)
        cf = lambda: cp.cumsum(ca)  # noqa: E731
        cs = cp.cuda.runtime.deviceSynchronize
        out += f" cupy {min(lat(cf, cs) for _ in range(ROUNDS)):.4f}/" \
               f"{min(thr(cf, cs) for _ in range(ROUNDS)):.4f}"
    y = em.empty_like(x)
    f = lambda: em.copyto(y, x)  # noqa: E731
    out += f" copy {lat(f, D.synchronize):.4f}/{thr(f, D.synchronize):.4f}"
    print(f"{'cumsum f32':<22}" + out, flush=True)
