"""bench_auto's small and sort rows with the placements interleaved in one
process (issue 18): bench_auto runs each cell in a fresh process, and on the
two-H200 host a 3 ms row moved 2x between two runs of the same tree.  Five
rounds; each round runs every placement `--reps` times; prints the best and
the median per round, and how many times the Python policy was called
(_place.place: 0 where the extension's bounds answered).

    python bench/probe_auto_rows.py [--reps 30]    # cpu, cuda:0 (if any), auto
"""
import argparse
import statistics
import time

from bench_auto import workloads  # bench/ is sys.path[0] when run as a script

import ember as em
from ember.auto import _place


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--reps", type=int, default=30)
    ap.add_argument("--rounds", type=int, default=5)
    a = ap.parse_args()
    rows = workloads(1.0)  # bench_auto's own rows, at the sizes
    calls = [0]
    policy = _place.place

    def counted(*args, **kw):
        calls[0] += 1
        return policy(*args, **kw)
    _place.place = counted

    def w_sort(dev):
        r = rows["sort"](dev)
        em.Device(str(r.device.current) if r.device.kind == "auto" else str(r.device)).synchronize()

    w_small = rows["small"]  # ends in float(x.sum()): synchronised

    modes = ["cpu"] + (["cuda:0"] if any(d.kind == "cuda" for d in em.devices()) else []) + ["auto"]
    for name, fn, reps in (("small", w_small, a.reps), ("sort", w_sort, max(a.reps // 4, 2))):
        res = {m: [] for m in modes}
        for m in modes:
            fn(m)  # warm: kernels, the cost model
        for _ in range(a.rounds):
            for m in modes:
                c0, ts = calls[0], []
                for _ in range(reps):
                    t0 = time.perf_counter()
                    fn(m)
                    ts.append(time.perf_counter() - t0)
                res[m].append((min(ts), statistics.median(ts), calls[0] - c0))
        for m, v in res.items():
            print(f"{name} {m}: best per round ms " + " ".join(f"{b * 1e3:.2f}" for b, _, _ in v)
                  + " | median " + " ".join(f"{md * 1e3:.2f}" for _, md, _ in v)
                  + f" | policy calls in the last round {v[-1][2]}")


if __name__ == "__main__":
    main()
