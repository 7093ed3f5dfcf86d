"""The CPU rows of bench/bench_fusion.py at several thread counts in one
process, with the pieces they are made of, for before/after comparisons of
two trees on a many-core host (tools/gpu_compare.sh builds the trees):

  seed004 f32/f64   sqrt(sum(x**2, axis=-1)) on (200, 100, 1000), fused
  sum(x*x) f32/f64  a full reduction of a fused product, 2**24 elements
  chain8 f32        bench_fusion's 8-op chain on 2**24 elements
  x*x f64           the producer alone, evaluated into a new array
  sum axis=-1 f64   the reduction alone, of an array in memory
  numpy ...         NumPy's seed004 f64 and sum(x*x) f32 (one thread):
                    the host's own drift between processes

Each row is the best of several runs after a warm-up, in ms; the thread
count is set in the process (_ember.num_threads), so every count reads the
same arrays.  One JSON line on stdout:
  {"tag": ..., "rows": {"<row> @<threads>": ms, ...}, "notes": {"memory": ...}}
(the memory note: how much of the process's memory has huge pages).

  python3 tools/probe_cpu_rows.py [--tag NAME] [--threads 16,1,4,16]
"""
import argparse
import json
import os
import time

import numpy as np


def best(fn, sync, reps):
    keep = fn()
    sync()
    ts = []
    for _ in range(reps):
        t0 = time.perf_counter()
        keep = fn()
        sync()
        ts.append(time.perf_counter() - t0)
    del keep
    return min(ts) * 1e3


def memory():
    """How much of the process's anonymous memory the kernel backs with
    huge pages (transparent huge pages), from /proc/self/smaps_rollup."""
    try:
        with open("/proc/self/smaps_rollup") as f:
            kv = {ln.split(":")[0]: ln.split()[1] for ln in f if ":" in ln}
        return f"Anonymous {kv.get('Anonymous')} kB, AnonHugePages {kv.get('AnonHugePages')} kB"
    except OSError as e:
        return str(e)


def chain8(a):
    return ((((((a + 1.5) * 0.5 - 2.0) * a + 0.25) / 3.0) - a) * 1.25)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--tag", default=os.path.basename(os.getcwd()))
    ap.add_argument("--threads", default="16,1,4,16")
    ap.add_argument("--reps", type=int, default=7)
    args = ap.parse_args()
    import ember as em
    from ember import _ember
    dev = em.Device("cpu")

    def sync():
        dev.synchronize()

    rng = np.random.default_rng(0)
    shape = (200, 100, 1000)
    h32 = rng.random(shape).astype(np.float32)
    h64 = rng.random(shape)
    v32 = rng.random(2**24).astype(np.float32)
    v64 = rng.random(2**24)
    c32 = rng.random(2**24).astype(np.float32)
    rows = {}
    rows["numpy seed004 f64"] = best(lambda: np.sqrt(np.sum(h64**2, axis=-1)), lambda: None, 3)
    rows["numpy sum(x*x) f32"] = best(lambda: np.sum(v32 * v32), lambda: None, 3)
    x32, x64 = em.asarray(h32, device=dev, copy=True), em.asarray(h64, device=dev, copy=True)
    y32, y64 = em.asarray(v32, device=dev, copy=True), em.asarray(v64, device=dev, copy=True)
    c = em.asarray(c32, device=dev, copy=True)
    cases = {
        "seed004 f32": lambda: em.sqrt(em.sum(x32**2, axis=-1)),
        "seed004 f64": lambda: em.sqrt(em.sum(x64**2, axis=-1)),
        "sum(x*x) f32": lambda: em.sum(y32 * y32),
        "sum(x*x) f64": lambda: em.sum(y64 * y64),
        "chain8 f32": lambda: chain8(c),
        "x*x f64": lambda: x64 * x64,
        "sum axis=-1 f64": lambda: em.sum(x64, axis=-1),
    }
    for nt in [int(t) for t in args.threads.split(",")]:
        _ember.num_threads(nt)
        reps = args.reps if nt > 2 else max(3, args.reps // 2)
        for name, fn in cases.items():
            key = f"{name} @{nt}"
            ms = best(fn, sync, reps)
            rows[key] = min(ms, rows.get(key, ms))  # a count given twice: its better run
    print(json.dumps({"tag": args.tag, "rows": rows, "notes": {"memory": memory()}}), flush=True)


if __name__ == "__main__":
    main()
