"""device="auto" against fixed placements (issue 18): the issue's mixed
suite run all-CPU, all-GPU (cuda:0) and auto, with every input starting in
host (NumPy) memory, so a placement pays for the moves it makes.

  small      1,000 small ops on a 10^3-element array (x = x * a + b), then its sum
  seed004    sqrt(sum(x**2, axis=-1)) over (1000, 100, 1000) float64 (seed 004)
  chain8     an 8-op elementwise chain on 2^26 float32, evaluated
  matmul     4096 x 4096 float32
  sort       2^24 float32
  ooc        sum over a host array of OOC_GIB GiB with the GPU pool limited to
             LIMIT_GIB (set_limit): all-GPU cannot hold it (OOM); auto streams it

Each number is the best of REPS runs after a warm-up run (kernels compiled,
the cost model loaded or measured), every device synchronised before the
clock stops.  Run on the GPU machine:

    python bench/bench_auto.py [--scale S] [--ooc-gib G] [--limit-gib L] [--json PATH]

--scale shrinks every size (0.01 for a smoke test on a CPU-only machine,
where only cpu and auto run).  The auto column is within 10 % of the better
fixed one when the model decides well; `EMBER_DEBUG=1` shows each decision.
"""
import argparse
import json
import os
import sys
import time

import numpy as np

import ember as em


def _sync():
    for d in em.devices():
        d.synchronize()


def best(fn, reps):
    fn()
    _sync()
    ts = []
    for _ in range(reps):
        t0 = time.perf_counter()
        fn()
        _sync()
        ts.append(time.perf_counter() - t0)
    return min(ts)


def workloads(scale):
    rng = np.random.default_rng(0)
    s = lambda n: max(int(n * scale), 16)  # noqa: E731
    small = rng.random(1000).astype(np.float32)
    seed = np.ones((s(1000), 100, 1000)) if scale < 1 else np.ones((1000, 100, 1000))
    chain = rng.random(s(1 << 26), dtype=np.float32)
    m = max(int(4096 * scale ** 0.5), 64)
    ma, mb = rng.random((m, m), dtype=np.float32), rng.random((m, m), dtype=np.float32)
    keys = rng.random(s(1 << 24), dtype=np.float32)

    def w_small(dev):
        x = em.asarray(small, device=dev)
        for _ in range(1000):
            x = x * 0.999 + 0.001
        return float(x.sum())

    def w_seed(dev):
        x = em.asarray(seed, device=dev)
        return em.sqrt(em.sum(x ** 2, axis=-1)).get()

    def w_chain(dev):
        x = em.asarray(chain, device=dev)
        y = em.sqrt(em.abs(em.sin(x) * 2.0 + em.cos(x) * x - 0.5) + 1.0) / (x + 1.0)
        return em.eval(y)

    def w_matmul(dev):
        return em.asarray(ma, device=dev) @ em.asarray(mb, device=dev)

    def w_sort(dev):
        return em.sort(em.asarray(keys, device=dev))

    return {"small": w_small, "seed004": w_seed, "chain8": w_chain, "matmul": w_matmul,
            "sort": w_sort}


def ooc(dev, host, limit):
    """The sum of host on dev with cuda:0's pool capped at limit bytes."""
    pool = em.get_default_memory_pool()
    pool.free_all_blocks()
    pool.set_limit(size=limit)
    try:
        return float(em.asarray(host, device=dev, copy=False if dev == "auto" else None).sum())
    finally:
        pool.set_limit(size=0)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--scale", type=float, default=1.0)
    ap.add_argument("--ooc-gib", type=float, default=24.0)
    ap.add_argument("--limit-gib", type=float, default=8.0)
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--json")
    a = ap.parse_args()
    gpu = em.cuda.is_available()
    modes = ["cpu", "cuda:0", "auto"] if gpu else ["cpu", "auto"]
    t0 = time.perf_counter()
    model = em.auto.model()  # loaded from the disk cache, or measured now
    how = "cached" if time.perf_counter() - t0 < 0.5 else "measured now"
    print(f"# cost model: {how} (measuring took {model.seconds or 0:.2f} s)")
    for dev, c in model.costs.items():
        print(f"#   {dev}: {c.as_dict()}")
    rows = {}
    for name, fn in workloads(a.scale).items():
        rows[name] = {}
        for mode in modes:
            try:
                rows[name][mode] = best(lambda: fn(mode), a.reps)
            except em.OutOfMemoryError:
                rows[name][mode] = None
        print(name, {k: (None if v is None else round(v, 5)) for k, v in rows[name].items()},
              flush=True)
    n = int(a.ooc_gib * (1 << 30) * (a.scale if a.scale < 1 else 1)) // 4
    host = np.ones(n, dtype=np.float32)
    limit = int(a.limit_gib * (1 << 30) * (a.scale if a.scale < 1 else 1))
    rows["ooc"] = {}
    for mode in modes:
        try:
            rows["ooc"][mode] = best(lambda: ooc(mode, host, limit), 1)
        except em.OutOfMemoryError:
            rows["ooc"][mode] = None
    print("ooc", rows["ooc"], flush=True)
    if gpu and rows["ooc"].get("auto"):
        h2d = model.costs["cuda:0"].h2d
        print(f"# ooc streamed at {host.nbytes / rows['ooc']['auto'] / 1e9:.1f} GB/s; "
              f"measured host-to-device {h2d / 1e9:.1f} GB/s")
    total = {m: sum(r[m] for r in rows.values() if r.get(m) is not None) for m in modes}
    print("\n| workload | " + " | ".join(modes) + " | auto / best fixed |")
    print("| --- | " + " | ".join("---" for _ in modes) + " | --- |")
    for name, r in list(rows.items()) + [("total", total)]:
        fixed = [r[m] for m in modes if m != "auto" and r.get(m) is not None]
        ratio = (f"{r['auto'] / min(fixed):.2f}" if fixed and r.get("auto") else "")
        cells = ["OOM" if r.get(m) is None else f"{r[m] * 1e3:.1f} ms" for m in modes]
        print(f"| {name} | " + " | ".join(cells) + f" | {ratio} |")
    if a.json:
        with open(a.json, "w") as f:
            json.dump({"device": em.Device("cuda:0").name if gpu else "cpu",
                       "date": time.strftime("%Y-%m-%d"), "rows": rows,
                       "model": model.as_dict()}, f, indent=1)


if __name__ == "__main__":
    sys.exit(main())
