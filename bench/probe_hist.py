"""Issue 19's histogram / partition / digitize rows, old (env A/B) against
new against CuPy and PyTorch in one process, with a check against NumPy.

    python bench/probe_hist.py            # timings, median of REPEAT (7)
    NCU=1 OPS=hist,part python bench/probe_hist.py   # one call each, for ncu
2^24 float32 standard normal (N to change).  Rows: histogram 256 bins on
(-4, 4), partition and argpartition k = n/2, digitize 1024 edges.  "old" is
EMBER_SEARCH_OLD=1 (digitize's: the session-14 shared search, against session
15's padded one); histogram's and partition's old kernels are gone (session
17), so their "old" columns run the same kernels as "new"."""
import os

import numpy as np

import ember as em
from bench_surface import median_ms  # noqa: E402

N = int(os.environ.get("N", 1 << 24))
REPEAT = int(os.environ.get("REPEAT", 7))
dev = os.environ.get("DEV", "cuda:0")
D = em.Device(dev)
rng = np.random.default_rng(3)
r = rng.standard_normal(N).astype(np.float32)
ed = np.linspace(-4, 4, 1024, dtype=np.float32)
x = em.asarray(r, device=dev)
e = em.asarray(ed, device=dev)
k = N // 2
OLD = {"dig": "EMBER_SEARCH_OLD"}


def set_old(name, old):
    """Select the old (old="1") or new kernels of row name; None: the default."""
    if name not in OLD:
        return
    if old is None:
        os.environ.pop(OLD[name], None)
    else:
        os.environ[OLD[name]] = old


ops = {
    "hist": lambda: em.histogram(x, bins=256, range=(-4, 4)),
    "part": lambda: em.partition(x, k),
    "arg": lambda: em.argpartition(x, k),
    "dig": lambda: em.digitize(x, e),
}


def check(name, got):
    if name == "hist":
        want = np.histogram(r, bins=256, range=(-4, 4))[0]
        ok = np.array_equal(got[0].get(), want)
    elif name == "part":
        g = got.get()
        ok = g[k] == np.partition(r, k)[k] and (g[:k] <= g[k]).all() and (g[k + 1:] >= g[k]).all()
        ok = ok and np.array_equal(np.sort(g), np.sort(r))
    elif name == "arg":
        g = got.get()
        v = r[g]
        ok = v[k] == np.partition(r, k)[k] and (v[:k] <= v[k]).all() and (v[k + 1:] >= v[k]).all()
        ok = ok and np.array_equal(np.sort(g), np.arange(N))
    else:
        ok = np.array_equal(got.get(), np.digitize(r, ed))
    return bool(ok)


def timed(f, sync):
    return median_ms(f, sync, REPEAT)  # bench_surface's: a warm-up, lazy results forced


want = os.environ.get("OPS", "hist,part,arg,dig").split(",")
if os.environ.get("NCU"):
    for name in want:
        for old in ("1", "0"):
            set_old(name, old)
            print("op", name, "old" if old == "1" else "new", flush=True)
            ops[name]()
            D.synchronize()
    raise SystemExit

others = {}
try:
    import cupy as cp
    xc, ec = cp.asarray(r), cp.asarray(ed)
    others["cupy"] = (cp.cuda.Device().synchronize, {
        "hist": lambda: cp.histogram(xc, bins=256, range=(-4, 4)),
        "part": lambda: cp.partition(xc, k),
        "arg": lambda: cp.argpartition(xc, k),
        "dig": lambda: cp.digitize(xc, ec)})
except Exception as exc:  # noqa: BLE001
    print("no cupy:", exc)
try:
    import torch
    xt, et = torch.from_numpy(r).cuda(), torch.from_numpy(ed).cuda()
    others["torch"] = (torch.cuda.synchronize, {
        "hist": lambda: torch.histc(xt, bins=256, min=-4, max=4),
        "part": lambda: torch.kthvalue(xt, k + 1),
        "dig": lambda: torch.bucketize(xt, et, right=True)})
except Exception as exc:  # noqa: BLE001
    print("no torch:", exc)

print(f"{'row':6} {'old ms':>8} {'new ms':>8} {'cupy':>8} {'torch':>8}  new/best  check(old,new)")
for name in want:
    res = {}
    oks = []
    for old in ("1", "0"):
        set_old(name, old)
        oks.append(check(name, ops[name]()))
        res[old] = timed(ops[name], D.synchronize)
    set_old(name, None)
    row = [res["1"], res["0"]]
    for lib in ("cupy", "torch"):
        sync, fs = others.get(lib, (None, {}))
        row.append(timed(fs[name], sync) if name in fs else float("nan"))
    best = np.nanmin(row[2:]) if not np.all(np.isnan(row[2:])) else float("nan")
    print(f"{name:6} " + " ".join(f"{v:8.3f}" for v in row) + f"  {row[1] / best:6.2f}  {oks}",
          flush=True)
