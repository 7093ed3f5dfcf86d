"""Is the CPU's mean(axis=0) of a 1024 x 1024 float32 behind NumPy's? (session 18)

    PYTHONPATH=python python bench/probe_mean0.py [--rounds 400] [--side 1024]

The variants run interleaved, one call each a round, so load on the machine
falls on all alike; each call's wall time (perf_counter) and this process's
CPU time (process_time: every thread of it) are kept, and the table gives
the median and the 10th percentile of each, and Ember's ratio to NumPy
(> 1: Ember is faster).  Ember runs with its default threads and with one
(_ember.num_threads), and sum(axis=0) beside mean to split the sum from the
divide."""
import argparse
import os
import sys
import time

import numpy as np

try:
    import ember as em
except ImportError:
    sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "python"))
    import ember as em
from ember import _ember


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=400)
    ap.add_argument("--side", type=int, default=1024)
    ap.add_argument("--dtype", default="float32")
    a = ap.parse_args()
    h = np.random.default_rng(0).random((a.side, a.side)).astype(a.dtype)
    e = em.asarray(h)
    nt = _ember.num_threads()

    def threads(n, f):
        def g():
            _ember.num_threads(n)
            try:
                f()
            finally:
                _ember.num_threads(nt)
        return g

    cases = {
        "numpy mean": lambda: np.mean(h, axis=0),
        "ember mean": lambda: em.mean(e, axis=0),
        "ember mean 1 thread": threads(1, lambda: em.mean(e, axis=0)),
        "numpy sum": lambda: np.sum(h, axis=0),
        "ember sum": lambda: em.sum(e, axis=0),
        "ember sum 1 thread": threads(1, lambda: em.sum(e, axis=0)),
    }
    for f in cases.values():  # warm-up
        f()
    wall = {k: [] for k in cases}
    cpu = {k: [] for k in cases}
    for _ in range(a.rounds):
        for k, f in cases.items():
            c0, t0 = time.process_time(), time.perf_counter()
            f()
            t1, c1 = time.perf_counter(), time.process_time()
            wall[k].append(t1 - t0)
            cpu[k].append(c1 - c0)
    print(f"{a.side}x{a.side} {a.dtype}, {a.rounds} interleaved rounds, {nt} threads, "
          f"load {os.getloadavg()[0]:.1f}; us: wall median / p10, cpu median; ratio numpy/ember")
    for k in cases:
        w, c = np.array(wall[k]) * 1e6, np.array(cpu[k]) * 1e6
        ref = np.array(wall["numpy " + k.split()[1]]) * 1e6
        print(f"  {k:22s} {np.median(w):8.1f} / {np.percentile(w, 10):8.1f}  cpu {np.median(c):8.1f}"
              f"   ratio {np.median(ref) / np.median(w):5.2f} (p10 "
              f"{np.percentile(ref, 10) / np.percentile(w, 10):4.2f})")


if __name__ == "__main__":
    main()
