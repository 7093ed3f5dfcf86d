"""Scan forms and launch shapes side by side for one device call (issue 19):
cumsum of 2^24 float32 (and float64, int32 -> int64, int32 -> int32, rows
along axis=1) under each variant of the scan's environment (the kernels' cache
keys carry it, so one process builds each form), interleaved twice, beside
CuPy, PyTorch and a device copy of the same bytes (the memory floor's
measure), then geometric(0.2).  Two times a row, ms: `lat`, the median of
single calls each synchronised (bench_surface's measure), and `thr`, a loop of
50 calls between two synchronisations over 50 (launch gaps hidden).

    PYTHONPATH=python python3 tools/probe_scan_tune.py three:EMBER_SCAN_ONEPASS=0 \\
        regs: "k8:EMBER_SCAN_TUNE=256,8"
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
rng = np.random.default_rng(7)
variants = []
for v in sys.argv[1:] or ["default:"]:
    name, _, env = v.partition(":")
    variants.append((name, dict(e.split("=", 1) for e in env.split(";") if e)))
keys = sorted({k for _, e in variants for k in e})


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


r = rng.standard_normal(n).astype(np.float32)
ai = rng.integers(-1000, 1000, n).astype(np.int32)
m = r.reshape(16, -1)
rows = [("cumsum f32", r, lambda xp, x: xp.cumsum(x)),
        ("cumsum f64", r.astype(np.float64), lambda xp, x: xp.cumsum(x)),
        ("cumsum i32->i64", ai, lambda xp, x: xp.cumsum(x)),
        ("cumsum i32->i32", ai, lambda xp, x: xp.cumsum(x, dtype=xp.int32)),
        ("cumsum f32 (16,n/16) ax1", m, lambda xp, x: xp.cumsum(x, axis=1))]
libs = []
try:
    import cupy as cp
    libs.append(("cupy", cp, cp.asarray, cp.cuda.runtime.deviceSynchronize))
except Exception as e:  # noqa: BLE001
    print("no cupy", e)
try:
    import torch
    libs.append(("torch", torch, lambda a: torch.as_tensor(a, device="cuda"), torch.cuda.synchronize))
except Exception as e:  # noqa: BLE001
    print("no torch", e)
print(f"{'row':<26}" + "".join(f"{v[0]:>18}" for v in variants) + "".join(f"{L[0]:>14}" for L in libs)
      + f"{'copy':>14}   (lat/thr ms)")
for name, a, f in rows:
    x = em.asarray(a, device=dev)
    res = {}
    for _ in range(2):
        for vn, env in variants:
            for k in keys:
                os.environ.pop(k, None)
            os.environ.update(env)
            res.setdefault(vn, []).append((lat(lambda: f(em, x), D.synchronize),
                                           thr(lambda: f(em, x), D.synchronize)))
    for k in keys:
        os.environ.pop(k, None)
    out = "".join(f"{min(t[0] for t in res[vn]):>9.4f}/{min(t[1] for t in res[vn]):<8.4f}"
                  for vn, _ in variants)
    for ln, xp, put, sync in libs:
        try:
            y = put(a)
            if ln == "torch":
                g = (lambda: torch.cumsum(y, dim=-1)) if "i32->i64" not in name else (lambda: torch.cumsum(y, dim=-1, dtype=torch.int64))
                if "i32->i32" in name:
                    g = lambda: torch.cumsum(y, dim=-1, dtype=torch.int32)  # noqa: E731
            else:
                g = lambda: f(xp, y)  # noqa: E731
            out += f"{lat(g, sync):>7.4f}/{thr(g, sync):<6.4f}"
        except Exception as e:  # noqa: BLE001
            out += f"{'err':>14}"
            print(ln, name, type(e).__name__, str(e)[:80], file=sys.stderr)
    y = em.empty_like(x)
    cp_ = lambda: em.copyto(y, x)  # noqa: E731
    out += f"{lat(cp_, D.synchronize):>7.4f}/{thr(cp_, D.synchronize):<6.4f}"
    print(f"{name:<26}" + out, flush=True)
# geometric(0.2), int64 out (torch writes float32)
g = em.random.default_rng(1)
out = f"{'geometric(0.2)':<26}"
for vn in ("first", "again"):
    f = lambda: g.geometric(0.2, n)  # noqa: E731
    out += f" {vn} {lat(f, D.synchronize):.4f}/{thr(f, D.synchronize):.4f}"
try:
    tg = torch.Generator(device="cuda")
    tg.manual_seed(1)
    f = lambda: torch.empty(n, device="cuda").geometric_(0.2, generator=tg)  # noqa: E731
    out += f" torch {lat(f, torch.cuda.synchronize):.4f}/{thr(f, torch.cuda.synchronize):.4f}"
    f = lambda: torch.empty(n, device="cuda", dtype=torch.int64).geometric_(0.2, generator=tg)  # noqa: E731
    out += f" torch-i64 {lat(f, torch.cuda.synchronize):.4f}/{thr(f, torch.cuda.synchronize):.4f}"
except Exception as e:  # noqa: BLE001
    print("torch geometric", e)
z = em.empty(n, dtype=np.int64, device=dev)
f = lambda: z.fill(3)  # noqa: E731
out += f" fill-i64 {lat(f, D.synchronize):.4f}/{thr(f, D.synchronize):.4f}"
print(out, flush=True)
