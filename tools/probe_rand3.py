"""Session 19's random probe (issue 19): choice of 2^16 with replacement
from 2^24 float32 and binomial(1000, 0.3) / binomial(20, 0.3) of 2^24, the
new paths beside the old ones and CuPy / PyTorch, in one process.

    python tools/probe_rand3.py [--device cuda:0] [--rounds 3] [--repeat 25]

Rows (ms; per round the median of --repeat single synchronised calls after a
warm-up; the table gives each round and the best):
  choice new         g.choice(a, 2**16): em_random_choice, one kernel
  choice fill+take   the old path: g.integers(0, n, 2**16) then em.take
  binomial(...) step / loop   the stepped kernel / EMBER_BINOM_STEP=0's
                     per-element loop (the kernel key follows the switch)
The rounds interleave the variants.  It also checks that new and old give
the same values for one seed, and prints the CPU's for comparison.
"""
import argparse
import os
import statistics
import sys
import time

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "python"))
import ember as em  # noqa: E402


def med(fn, sync, repeat):
    fn()
    sync()
    ts = []
    for _ in range(repeat):
        t = time.perf_counter()
        r = fn()
        if isinstance(r, em.ndarray):
            em.eval(r)
        sync()
        ts.append((time.perf_counter() - t) * 1e3)
    return statistics.median(ts)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--device", default="cuda:0")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--repeat", type=int, default=25)
    ap.add_argument("--n", type=int, default=24)
    a = ap.parse_args()
    dev, n = a.device, 1 << a.n
    D = em.Device(dev)
    x_np = np.random.default_rng(0).standard_normal(n).astype(np.float32)
    x = em.asarray(x_np, device=dev)
    g = em.random.default_rng(1)
    rows = {}

    def add(name, fn, sync):
        rows.setdefault(name, []).append((fn, sync))

    def binom(nn, pp, step, grid="32", minb="0"):
        def f():
            os.environ.update(EMBER_BINOM_STEP=step, EMBER_BINOM_GRID=grid,
                              EMBER_BINOM_MINB=minb)
            return g.binomial(nn, pp, n, device=dev)
        return f

    add("choice new", lambda: g.choice(x, 1 << 16), D.synchronize)
    add("choice fill+take", lambda: em.take(x, g.integers(0, n, 1 << 16, device=dev)),
        D.synchronize)
    for nn in (1000, 20):
        add(f"binomial({nn}, 0.3) step", binom(nn, 0.3, "1"), D.synchronize)
        add(f"binomial({nn}, 0.3) loop", binom(nn, 0.3, "0"), D.synchronize)
    # the stepped kernel's grid (blocks an SM) and launch bounds (EMBER_BINOM_MINB)
    for grid, minb in (("3", "0"), ("6", "0"), ("4", "4"), ("8", "4"), ("32", "4")):
        add(f"binomial(1000) g{grid} mb{minb}", binom(1000, 0.3, "1", grid, minb), D.synchronize)
    add("binomial(1000) loop g3", binom(1000, 0.3, "0", "3"), D.synchronize)
    try:
        import torch
        tg = torch.Generator(device="cuda")
        tg.manual_seed(1)
        tx = torch.as_tensor(x_np, device="cuda")
        ts = torch.cuda.synchronize
        add("choice torch", lambda: tx[torch.randint(0, n, (1 << 16,), device="cuda",
                                                      generator=tg)], ts)
        for nn in (1000, 20):
            c, pr = torch.full((n,), float(nn), device="cuda"), torch.full((n,), 0.3, device="cuda")
            add(f"binomial({nn}, 0.3) torch", lambda c=c, pr=pr: torch.binomial(c, pr, generator=tg),
                ts)
    except Exception as e:  # noqa: BLE001
        print("torch:", e)
    try:
        import cupy as cp
        cg = cp.random.default_rng(1)
        cx = cp.asarray(x_np)
        cs = cp.cuda.runtime.deviceSynchronize
        add("choice cupy", lambda: cg.choice(cx, 1 << 16), cs)
        for nn in (1000, 20):
            add(f"binomial({nn}, 0.3) cupy", lambda nn=nn: cg.binomial(nn, 0.3, n), cs)
    except Exception as e:  # noqa: BLE001
        print("cupy:", e)
    res = {k: [] for k in rows}
    for _ in range(a.rounds):
        for k, v in rows.items():
            fn, sync = v[0]
            try:
                res[k].append(med(fn, sync, a.repeat))
            except Exception as e:  # noqa: BLE001
                print(k, "failed:", e)
    os.environ.update(EMBER_BINOM_STEP="1", EMBER_BINOM_GRID="32", EMBER_BINOM_MINB="0")
    print(f"{'row':28s} {'best':>8s}  rounds (ms, median of {a.repeat})")
    for k, v in res.items():
        if v:
            print(f"{k:28s} {min(v):8.4f}  " + " ".join(f"{t:.4f}" for t in v))
    # the values: new == old for one seed, device == CPU
    for d in (dev, "cpu"):
        xs = em.asarray(x_np, device=d)
        c1 = em.random.default_rng(7).choice(xs, 1 << 16).get()
        c2 = em.take(xs, em.random.default_rng(7).integers(0, n, 1 << 16, device=d)).get()
        print(d, "choice new == fill+take:", np.array_equal(c1, c2))
    for nn in (1000, 20):
        b = [em.random.default_rng(9).binomial(nn, 0.3, 1 << 20, device=d).get()
             for d in (dev, "cpu")]
        os.environ["EMBER_BINOM_STEP"] = "0"
        b.append(em.random.default_rng(9).binomial(nn, 0.3, 1 << 20, device=dev).get())
        os.environ["EMBER_BINOM_STEP"] = "1"
        os.environ.update(EMBER_BINOM_GRID="4", EMBER_BINOM_MINB="4")
        b.append(em.random.default_rng(9).binomial(nn, 0.3, 1 << 20, device=dev).get())
        os.environ.update(EMBER_BINOM_GRID="32", EMBER_BINOM_MINB="0")
        print(f"binomial({nn}) step == cpu: {np.array_equal(b[0], b[1])}, "
              f"step == loop: {np.array_equal(b[0], b[2])}, g4mb4 == step: "
              f"{np.array_equal(b[0], b[3])}, mean {b[0].mean():.4f}")


if __name__ == "__main__":
    main()
