"""Each sort twice for a profiler: Ember's kernels and CuPy's (CUB's) on
the same 2^n keys, a warm-up call (the compiles) then the call to read.
Per-kernel times come from the profiler, not from this script:

    ncu --clock-control none --cache-control none -k regex:"em_sort|Radix" \
        --metrics gpu__time_duration.sum python bench/profile_sort.py --cupy

The captured kernels, in order: for each of --only (Ember sort f32, sort
i32, argsort f32, sort f64; each CLEAR, UPSWEEP, one ONESWEEP per byte
that varies) the warm-up call's then the read call's; then CuPy's sort f32
and sort i32, likewise (--cupy).  EMBER_SORT_VAR / EMBER_SORT_OS apply as
in em.sort.
"""
import argparse
import os
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "python"))
import ember as em  # noqa: E402


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--n", type=int, default=24)
    p.add_argument("--cupy", action="store_true")
    p.add_argument("--only", default="f32,i32,argf32,f64")
    o = p.parse_args()
    rng = np.random.default_rng(7)
    n = 1 << o.n
    f32 = rng.standard_normal(n).astype(np.float32)
    i32 = rng.integers(-(2**30), 2**30, n).astype(np.int32)
    f64 = rng.standard_normal(n)
    dev = em.Device("cuda:0")
    ef32, ei32, ef64 = (em.asarray(a, device="cuda:0") for a in (f32, i32, f64))
    runs = {"f32": lambda: em.sort(ef32), "i32": lambda: em.sort(ei32),
            "argf32": lambda: em.argsort(ef32), "f64": lambda: em.sort(ef64)}
    for k in filter(None, o.only.split(",")):
        for _ in range(2):
            runs[k]()
            dev.synchronize()
    if o.cupy:
        import cupy as cp
        c32, ci32 = cp.asarray(f32), cp.asarray(i32)
        for c in (c32, ci32):
            for _ in range(2):
                cp.sort(c)
                cp.cuda.runtime.deviceSynchronize()
    print("profile_sort: done")


if __name__ == "__main__":
    main()
