"""Where auto's time goes on the GPU machine (issue 18): the bench_auto rows
that trailed the better fixed placement (chain8, sort) taken apart, beside
CuPy and PyTorch doing the same from the same NumPy data in this process.

Per row: the whole (NumPy in, the result on the device), the h2d copy alone,
the work alone on data already there, and the result's trip back to NumPy;
all-GPU (cuda:0), auto, CuPy, PyTorch.  Best of N synchronised runs.

    python bench/probe_auto.py [--n 15] [--json PATH]
"""
import argparse
import json
import sys
import time

import numpy as np

import ember as em


def sync():
    for d in em.devices():
        d.synchronize()


def best(fn, n, s=sync):
    try:
        return _best(fn, n, s)
    except Exception as e:  # noqa: BLE001  (one failed step costs its own line)
        print(f"# failed: {type(e).__name__}: {str(e)[:200]}", file=sys.stderr)
        return float("nan")


def _best(fn, n, s):
    fn()
    s()
    b = float("inf")
    for _ in range(n):
        t0 = time.perf_counter()
        fn()
        s()
        b = min(b, time.perf_counter() - t0)
    return b


def chain(m, x):
    return m.sqrt(m.abs(m.sin(x) * 2.0 + m.cos(x) * x - 0.5) + 1.0) / (x + 1.0)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=15)
    ap.add_argument("--json")
    a = ap.parse_args()
    rng = np.random.default_rng(0)
    keys = rng.random(1 << 24, dtype=np.float32)
    xs = rng.random(1 << 26, dtype=np.float32)
    out = {"model": em.auto.model().as_dict()}
    r = {}
    n = a.n
    # ---- Ember, all-GPU and auto
    r["sort/cuda:0 whole"] = best(lambda: em.sort(em.asarray(keys, device="cuda:0")), n)
    r["sort/auto whole"] = best(lambda: em.sort(em.asarray(keys, device="auto")), n)
    r["sort/h2d"] = best(lambda: em.asarray(keys, device="cuda:0"), n)
    dk = em.asarray(keys, device="cuda:0")
    r["sort/on device"] = best(lambda: em.sort(dk), n)
    sk = em.sort(dk)
    r["sort/d2h"] = best(lambda: np.asarray(sk), n)
    wrap = em.asarray(keys, device="auto")
    r["sort/auto copy of the wrap"] = best(
        lambda: em._ember.asarray(wrap, None, "cuda:0", True), n)
    from ember.auto import _place
    r["sort/auto decide"] = best(lambda: _place.decide("sort", (wrap,), None), n)
    _, ps = em.auto.explain(lambda: em.sort(em.asarray(keys, device="auto")))
    out["sort_decision"] = [repr(p) for p in ps]
    r["chain8/cuda:0 whole"] = best(lambda: em.eval(chain(em, em.asarray(xs, device="cuda:0"))), n)
    r["chain8/auto whole"] = best(lambda: em.eval(chain(em, em.asarray(xs, device="auto"))), n)
    last = em.eval(chain(em, em.asarray(xs, device="auto")))
    out["chain8_auto_result_on"] = str(last.device.current)
    r["chain8/h2d"] = best(lambda: em.asarray(xs, device="cuda:0"), n)
    dx = em.asarray(xs, device="cuda:0")
    r["chain8/on device"] = best(lambda: em.eval(chain(em, dx)), n)
    dy = em.eval(chain(em, dx))
    r["chain8/d2h"] = best(lambda: np.asarray(dy), n)
    r["chain8/cpu whole"] = best(lambda: em.eval(chain(em, em.asarray(xs, device="cpu"))), 3)
    _, ps = em.auto.explain(lambda: em.eval(chain(em, em.asarray(xs, device="auto"))))
    out["chain8_decision"] = [repr(p) for p in ps]
    # ---- CuPy and PyTorch from the same NumPy arrays
    try:
        import cupy as cp
        cs = cp.cuda.Device(0).synchronize
        r["sort/cupy whole"] = best(lambda: cp.sort(cp.asarray(keys)), n, cs)
        r["chain8/cupy whole"] = best(lambda: chain(cp, cp.asarray(xs)), n, cs)
        r["chain8/cupy h2d"] = best(lambda: cp.asarray(xs), n, cs)
    except Exception as e:  # noqa: BLE001
        out["cupy"] = repr(e)[:200]
    try:
        import torch
        ts = torch.cuda.synchronize
        r["sort/torch whole"] = best(
            lambda: torch.sort(torch.from_numpy(keys).cuda()), n, ts)
        r["chain8/torch whole"] = best(lambda: chain(torch, torch.from_numpy(xs).cuda()), n, ts)
    except Exception as e:  # noqa: BLE001
        out["torch"] = repr(e)[:200]
    out["ms"] = {k: round(v * 1e3, 3) for k, v in r.items()}
    for k, v in out["ms"].items():
        print(f"{k:32s} {v:9.3f} ms")
    for k in ("sort_decision", "chain8_decision"):
        print(k, out[k])
    print("chain8 auto result on", out["chain8_auto_result_on"])
    if a.json:
        with open(a.json, "w") as f:
            json.dump(out, f, indent=1)


if __name__ == "__main__":
    sys.exit(main())
