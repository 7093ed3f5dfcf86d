"""The device sort's pass-kernel shapes and the searchsorted variants, timed
and checked on one GPU (issue 19's tuning; run_sort.c's em__os_shape and
EM__SEARCH_SAMPLE hold what it chose).

    python bench/tune_sort.py [--n LOG2] [--shapes "B,I,M;B,I,M"] [--others]
                              [--check] [--args]

For each shape (EMBER_SORT_OS: threads, keys a thread, blocks an SM; 'def'
is the default; '@V' after it sets EMBER_SORT_VAR, the pass kernel's
variant bits, as "256,32,4@3" or "def@0"), the median time of em.sort of 2^n float32 (standard
normal) and int32; then argsort float32, sort float64 and searchsorted
(2^n needles into a sorted 2^n haystack) with EMBER_SEARCH_SAMPLE 0 and 1.
--others adds CuPy and PyTorch on the same data.  --check compares every
result with NumPy, and sorts at tile boundaries, NaN/-0.0/inf data and
descending=True for each shape.  Medians of 15 synchronised calls after a
warm-up call.  A tree without EMBER_SORT_OS ignores it: every shape row is
then the default (how a baseline tree is timed with the same script).
"""
import argparse
import os
import statistics
import sys
import time

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "python"))
import ember as em  # noqa: E402


def med(fn, sync, repeat=15):
    fn()
    sync()
    ts = []
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        sync()
        ts.append((time.perf_counter() - t) * 1e3)
    return statistics.median(ts)


def check_shape(dev, shape, out, args=False):
    """Sorts at the shape's tile boundaries, special values, descending."""
    shape = shape.split("@")[0]
    if shape == "def":  # keys alone, with values (argsort), 64-bit keys with values
        tiles = (384 * 22, 256 * 16, 384 * 13)
    else:
        tiles = (int(shape.split(",")[0]) * int(shape.split(",")[1]),)
    rng = np.random.default_rng(3)
    bad = 0
    sizes = [1, 2] + [m for t in tiles for m in (t - 1, t, t + 1, 3 * t + 7, 40 * t + 3)]
    for n in sizes:
        x = rng.standard_normal(n).astype(np.float32)
        x[rng.random(n) < 0.05] = np.nan
        x[rng.random(n) < 0.05] = -0.0
        x[rng.random(n) < 0.02] = np.inf
        x[rng.random(n) < 0.02] = -np.inf
        xi = rng.integers(-50, 50, n).astype(np.int32)
        for h in (x, xi):  # the dtypes timed (their kernels are built already)
            e = em.asarray(h, device=dev)
            got = em.asnumpy(em.sort(e))
            want = np.sort(h)
            ok = np.array_equal(got, want, equal_nan=h.dtype.kind == "f")
            if shape == "def":  # descending: more kernels to build; the default's only
                gd = em.asnumpy(em.sort(e, descending=True))
                nan = np.isnan(want) if h.dtype.kind == "f" else np.zeros(n, bool)
                wd = np.concatenate([want[nan], want[~nan][::-1]])  # NaNs first
                ok &= np.array_equal(gd, wd, equal_nan=h.dtype.kind == "f")
            if shape == "def" or args:  # argsort: the shape where it fits values
                ga = em.asnumpy(em.argsort(e))
                ok &= np.array_equal(ga, np.argsort(h, kind="stable"))
            if not ok:
                bad += 1
                print(f"  WRONG shape {shape} n={n} {h.dtype}", file=out, flush=True)
    print(f"  check {shape}: {'ok' if not bad else f'{bad} wrong'}", file=out, flush=True)
    return bad


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--n", type=int, default=24)
    p.add_argument("--shapes", default="def")
    p.add_argument("--others", action="store_true")
    p.add_argument("--check", action="store_true")
    p.add_argument("--args", action="store_true",
                   help="per shape also argsort float32 and sort float64 (the shape where it "
                   "fits them, else their default)")
    p.add_argument("--device", default="cuda:0")
    o = p.parse_args()
    out = sys.stdout
    dev = em.Device(o.device)
    sync = dev.synchronize
    rng = np.random.default_rng(7)
    n = 1 << o.n
    f32 = rng.standard_normal(n).astype(np.float32)
    i32 = rng.integers(-(2**30), 2**30, n).astype(np.int32)
    f64 = rng.standard_normal(n)
    hay = np.sort(f32)
    ef32, ei32, ef64, ehay = (em.asarray(a, device=o.device) for a in (f32, i32, f64, hay))
    want32 = np.sort(f32) if o.check else None
    bad = 0
    for shape in o.shapes.split(";"):
        os_, _, var = shape.partition("@")
        if os_ == "def":
            os.environ.pop("EMBER_SORT_OS", None)
        else:
            os.environ["EMBER_SORT_OS"] = os_
        if var:
            os.environ["EMBER_SORT_VAR"] = var
        else:
            os.environ.pop("EMBER_SORT_VAR", None)
        t1 = med(lambda: em.sort(ef32), sync)
        t2 = med(lambda: em.sort(ei32), sync)
        t3 = med(lambda: em.argsort(ef32), sync) if o.args else float("nan")
        t4 = med(lambda: em.sort(ef64), sync) if o.args else float("nan")
        print(f"sort shape {shape:12s} f32 {t1:.3f} ms  i32 {t2:.3f} ms  argsort f32 {t3:.3f} ms"
              f"  sort f64 {t4:.3f} ms", file=out, flush=True)
        if o.check:
            if not np.array_equal(em.asnumpy(em.sort(ef32)), want32):
                bad += 1
                print(f"  WRONG sort f32 2^{o.n} shape {shape}", file=out, flush=True)
            bad += check_shape(o.device, shape, out, o.args)
    os.environ.pop("EMBER_SORT_OS", None)
    os.environ.pop("EMBER_SORT_VAR", None)
    print(f"argsort f32 {med(lambda: em.argsort(ef32), sync):.3f} ms", file=out, flush=True)
    print(f"sort f64 {med(lambda: em.sort(ef64), sync):.3f} ms", file=out, flush=True)
    res = {}
    for smp in ("0", "1"):
        os.environ["EMBER_SEARCH_SAMPLE"] = smp
        for side in ("left", "right"):
            t = med(lambda: em.searchsorted(ehay, ef32, side=side), sync)
            res[smp, side] = em.asnumpy(em.searchsorted(ehay, ef32, side=side))
            print(f"searchsorted sample={smp} {side} {t:.3f} ms", file=out, flush=True)
    os.environ.pop("EMBER_SEARCH_SAMPLE", None)
    if o.check:
        for side in ("left", "right"):
            w = np.searchsorted(hay, f32, side=side)
            for smp in ("0", "1"):
                if not np.array_equal(res[smp, side], w):
                    bad += 1
                    print(f"  WRONG searchsorted sample={smp} {side}", file=out, flush=True)
    if o.others:
        try:
            import cupy as cp
            c32, ci32, chay = cp.asarray(f32), cp.asarray(i32), cp.asarray(hay)
            cs = cp.cuda.runtime.deviceSynchronize
            print(f"cupy sort f32 {med(lambda: cp.sort(c32), cs):.3f} i32 "
                  f"{med(lambda: cp.sort(ci32), cs):.3f} argsort f32 "
                  f"{med(lambda: cp.argsort(c32), cs):.3f} searchsorted "
                  f"{med(lambda: cp.searchsorted(chay, c32), cs):.3f} ms", file=out, flush=True)
        except Exception as e:  # noqa: BLE001
            print(f"cupy: {e}", file=out)
        try:
            import torch
            t32 = torch.as_tensor(f32, device="cuda")
            ti32 = torch.as_tensor(i32, device="cuda")
            th = torch.as_tensor(hay, device="cuda")
            ts = torch.cuda.synchronize
            print(f"torch sort f32 {med(lambda: torch.sort(t32, stable=True), ts):.3f} i32 "
                  f"{med(lambda: torch.sort(ti32, stable=True), ts):.3f} argsort f32 "
                  f"{med(lambda: torch.argsort(t32, stable=True), ts):.3f} searchsorted "
                  f"{med(lambda: torch.searchsorted(th, t32), ts):.3f} ms", file=out, flush=True)
        except Exception as e:  # noqa: BLE001
            print(f"torch: {e}", file=out)
    print(f"wrong: {bad}", file=out, flush=True)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
