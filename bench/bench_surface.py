"""The NumPy-surface sweep (issue 19): every device-native function of the
surface, Ember beside CuPy and PyTorch on a GPU, or beside NumPy on the CPU.

    python bench/bench_surface.py [--n LOG2] [--quick] [--cpu] [--filter TEXT]
                                  [--repeat R] [--json FILE]

Rows (2**24 elements unless --n says otherwise; --quick: 2**20 and 3
repeats): first the rows that trailed PyTorch on the H100 (mean over axis 0
of a 4096 x 4096 float32, cumsum, boolean-mask selection, standard_normal),
then sort/argsort/partition/lexsort, unique, searchsorted/digitize, isin and
the set operations, histogram/histogram2d/bincount, median/percentile/
quantile and their nan forms, the nonzero-based functions, choice/
permutation/shuffle and the distributions.  Times are medians (of --repeat,
default 7) of synchronised wall time per call after a warm-up call, each
library synchronised its own way.  Each other library's column is also given
as its time over Ember's (> 1: Ember is faster).  A library without the
function (or failing on it) gets '-' and a line on stderr.  --json writes the
table in bench/plot.py's format (bench/results/NAME.json; add the table's
markers to RESULTS.md and run bench/plot.py).

On a GPU the device is cuda:0 (--device to change); --cpu times the CPU
device against NumPy even where a GPU exists.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import time

import numpy as np

try:
    import ember as em
except ImportError:
    sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "python"))
    import ember as em


class Lib:
    """One library: its namespace, how arrays reach it, how it synchronises, its generator."""

    def __init__(self, name, xp, put, sync, rng):
        self.name, self.xp, self.put, self.sync, self.rng = name, xp, put, sync, rng


def libraries(device):
    if device == "cpu":
        return [Lib("ember", em, lambda a: em.asarray(a, device="cpu"), lambda: None,
                    em.random.default_rng(1)),
                Lib("numpy", np, np.asarray, lambda: None, np.random.default_rng(1))]
    dev = em.Device(device)
    libs = [Lib("ember", em, lambda a: em.asarray(a, device=device), dev.synchronize,
                em.random.default_rng(1))]
    try:
        import cupy as cp
        rng = cp.random.default_rng(1) if hasattr(cp.random, "default_rng") else cp.random
        libs.append(Lib("cupy", cp, cp.asarray, cp.cuda.runtime.deviceSynchronize, rng))
    except Exception:
        pass
    try:
        import torch
        if torch.cuda.is_available():
            g = torch.Generator(device="cuda")
            g.manual_seed(1)
            libs.append(Lib("torch", torch, lambda a: torch.as_tensor(a, device="cuda"),
                            torch.cuda.synchronize, g))
    except Exception:
        pass
    return libs


def _t(L):
    return L.name == "torch"


# Each case: (row, data(rng, n) -> tuple of NumPy arrays, f(L, *arrays)).  f
# returns NotImplemented where the library has no such function.
def _torch_or(f_np, f_torch=None):
    def f(L, *a):
        if _t(L):
            return NotImplemented if f_torch is None else f_torch(L.xp, L.rng, *a)
        return f_np(L.xp, L.rng, *a)
    return f


def cases(n):
    f32 = lambda r, n: (r.standard_normal(n).astype(np.float32),)  # noqa: E731
    i32 = lambda r, n: (r.integers(-(2**30), 2**30, n).astype(np.int32),)  # noqa: E731
    small = lambda r, n: (r.integers(0, 1000, n).astype(np.int64),)  # noqa: E731
    side = 1 << ((n.bit_length() - 1) // 2)  # 4096 for 2^24
    nan32 = lambda r, n: (np.where(r.random(n) < 0.01, np.nan,  # noqa: E731
                                   r.standard_normal(n)).astype(np.float32),)
    c = [
        # the rows that trailed PyTorch on the H100 (issue 19)
        (f"mean axis=0 {side}x{side} f32",
         lambda r, n: (r.standard_normal((side, side)).astype(np.float32),),
         _torch_or(lambda xp, g, a: xp.mean(a, axis=0), lambda t, g, a: t.mean(a, dim=0))),
        ("cumsum f32", f32,
         _torch_or(lambda xp, g, a: xp.cumsum(a), lambda t, g, a: t.cumsum(a, dim=0))),
        ("x[mask] f32 (half true)",
         lambda r, n: (r.standard_normal(n).astype(np.float32), r.random(n) < 0.5),
         _torch_or(lambda xp, g, a, m: a[m], lambda t, g, a, m: a[m])),
        ("standard_normal f32", lambda r, n: (),
         _torch_or(lambda xp, g: g.standard_normal(n, dtype=np.float32),
                   lambda t, g: t.randn(n, device="cuda", generator=g))),
        # sorting and searching
        ("sort f32", f32, _torch_or(lambda xp, g, a: xp.sort(a),
                                    lambda t, g, a: t.sort(a, stable=True))),
        ("sort i32", i32, _torch_or(lambda xp, g, a: xp.sort(a),
                                    lambda t, g, a: t.sort(a, stable=True))),
        ("argsort f32", f32, _torch_or(lambda xp, g, a: xp.argsort(a, kind="stable"),
                                       lambda t, g, a: t.argsort(a, stable=True))),
        # 8-byte keys and the int32 argsort: rows to see regressions in
        ("sort f64", lambda r, n: (r.standard_normal(n),),
         _torch_or(lambda xp, g, a: xp.sort(a), lambda t, g, a: t.sort(a, stable=True))),
        ("sort i64", lambda r, n: (r.integers(-(2**62), 2**62, n),),
         _torch_or(lambda xp, g, a: xp.sort(a), lambda t, g, a: t.sort(a, stable=True))),
        ("argsort i32", i32, _torch_or(lambda xp, g, a: xp.argsort(a, kind="stable"),
                                       lambda t, g, a: t.argsort(a, stable=True))),
        ("partition f32 (k = n/2)", f32,
         _torch_or(lambda xp, g, a: xp.partition(a, a.shape[0] // 2),
                   lambda t, g, a: t.kthvalue(a, a.shape[0] // 2 + 1))),
        ("argpartition f32 (k = n/2)", f32,
         _torch_or(lambda xp, g, a: xp.argpartition(a, a.shape[0] // 2))),
        ("lexsort 2 keys i32", lambda r, n: (r.integers(0, 100, n).astype(np.int32),
                                             r.integers(0, 1 << 20, n).astype(np.int32)),
         _torch_or(lambda xp, g, a, b: xp.lexsort((a, b)))),
        ("unique f32", f32, _torch_or(lambda xp, g, a: xp.unique(a),
                                      lambda t, g, a: t.unique(a))),
        ("unique inverse+counts f32", f32,
         _torch_or(lambda xp, g, a: xp.unique(a, return_inverse=True, return_counts=True),
                   lambda t, g, a: t.unique(a, return_inverse=True, return_counts=True))),
        ("unique counts i64 (1000 values)", small,
         _torch_or(lambda xp, g, a: xp.unique(a, return_counts=True),
                   lambda t, g, a: t.unique(a, return_counts=True))),
        ("searchsorted f32", lambda r, n: (np.sort(r.standard_normal(n).astype(np.float32)),
                                           r.standard_normal(n).astype(np.float32)),
         _torch_or(lambda xp, g, h, a: xp.searchsorted(h, a),
                   lambda t, g, h, a: t.searchsorted(h, a))),
        ("digitize f32 (1024 bins)", lambda r, n: (r.standard_normal(n).astype(np.float32),
                                                   np.linspace(-4, 4, 1024, dtype=np.float32)),
         _torch_or(lambda xp, g, a, b: xp.digitize(a, b),
                   lambda t, g, a, b: t.bucketize(a, b, right=True))),
        ("isin i32 (2^16 values)", lambda r, n: (i32(r, n)[0], i32(r, 1 << 16)[0]),
         _torch_or(lambda xp, g, a, b: xp.isin(a, b), lambda t, g, a, b: t.isin(a, b))),
        ("union1d i32", lambda r, n: (i32(r, n)[0], i32(r, n)[0]),
         _torch_or(lambda xp, g, a, b: xp.union1d(a, b))),
        ("intersect1d i32", lambda r, n: (i32(r, n)[0], i32(r, n)[0]),
         _torch_or(lambda xp, g, a, b: xp.intersect1d(a, b))),
        ("setdiff1d i32", lambda r, n: (i32(r, n)[0], i32(r, n)[0]),
         _torch_or(lambda xp, g, a, b: xp.setdiff1d(a, b))),
        ("setxor1d i32", lambda r, n: (i32(r, n)[0], i32(r, n)[0]),
         _torch_or(lambda xp, g, a, b: xp.setxor1d(a, b))),
        # histograms
        ("histogram f32 (256 bins)", f32,
         _torch_or(lambda xp, g, a: xp.histogram(a, bins=256, range=(-4, 4)),
                   lambda t, g, a: t.histc(a, bins=256, min=-4, max=4))),
        ("histogram2d f32 (64x64)", lambda r, n: (f32(r, n)[0], f32(r, n)[0]),
         _torch_or(lambda xp, g, a, b: xp.histogram2d(a, b, bins=64, range=[[-4, 4], [-4, 4]]))),
        ("bincount i64 (1000 values)", small,
         _torch_or(lambda xp, g, a: xp.bincount(a), lambda t, g, a: t.bincount(a))),
        # order statistics
        ("median f32", f32, _torch_or(lambda xp, g, a: xp.median(a),
                                       lambda t, g, a: t.median(a))),
        ("median i32", i32, _torch_or(lambda xp, g, a: xp.median(a),
                                       lambda t, g, a: t.median(a))),
        ("percentile f32 (3 q)", f32,
         _torch_or(lambda xp, g, a: xp.percentile(a, [5, 50, 95]),
                   lambda t, g, a: t.quantile(a, t.tensor([.05, .5, .95], device="cuda")))),
        ("quantile f32 (q = 0.3)", f32,
         _torch_or(lambda xp, g, a: xp.quantile(a, 0.3), lambda t, g, a: t.quantile(a, 0.3))),
        ("nanmedian f32 (1% NaN)", nan32,
         _torch_or(lambda xp, g, a: xp.nanmedian(a), lambda t, g, a: t.nanmedian(a))),
        ("nanpercentile f32 (1% NaN)", nan32,
         _torch_or(lambda xp, g, a: xp.nanpercentile(a, [5, 50, 95]))),
        ("nanquantile f32 (1% NaN)", nan32,
         _torch_or(lambda xp, g, a: xp.nanquantile(a, 0.3),
                   lambda t, g, a: t.nanquantile(a, 0.3))),
        # nonzero-based
        ("nonzero f32 (half nonzero)", lambda r, n: (np.maximum(f32(r, n)[0], 0),),
         _torch_or(lambda xp, g, a: xp.nonzero(a), lambda t, g, a: t.nonzero(a))),
        ("argwhere f32", lambda r, n: (np.maximum(f32(r, n)[0], 0),),
         _torch_or(lambda xp, g, a: xp.argwhere(a), lambda t, g, a: t.argwhere(a))),
        ("flatnonzero f32", lambda r, n: (np.maximum(f32(r, n)[0], 0),),
         _torch_or(lambda xp, g, a: xp.flatnonzero(a))),
        ("count_nonzero f32", lambda r, n: (np.maximum(f32(r, n)[0], 0),),
         _torch_or(lambda xp, g, a: xp.count_nonzero(a), lambda t, g, a: t.count_nonzero(a))),
        ("compress f32", lambda r, n: (r.random(n) < 0.5, f32(r, n)[0]),
         _torch_or(lambda xp, g, m, a: xp.compress(m, a), lambda t, g, m, a: a[m])),
        ("extract f32", lambda r, n: (r.random(n) < 0.5, f32(r, n)[0]),
         _torch_or(lambda xp, g, m, a: xp.extract(m, a),
                   lambda t, g, m, a: t.masked_select(a, m))),
        # random
        ("choice 2^16 of n (replace)", f32,
         _torch_or(lambda xp, g, a: g.choice(a, 1 << 16),
                   lambda t, g, a: a[t.randint(0, a.shape[0], (1 << 16,), device="cuda",
                                               generator=g)])),
        ("permutation n", lambda r, n: (),
         _torch_or(lambda xp, g: g.permutation(n),
                   lambda t, g: t.randperm(n, device="cuda", generator=g))),
        ("shuffle f32", f32, _torch_or(lambda xp, g, a: g.shuffle(a))),
        ("random (uniform) f32", lambda r, n: (),
         _torch_or(lambda xp, g: g.random(n, dtype=np.float32),
                   lambda t, g: t.rand(n, device="cuda", generator=g))),
        ("integers i64 [0, 1000)", lambda r, n: (),
         _torch_or(lambda xp, g: g.integers(0, 1000, n),
                   lambda t, g: t.randint(0, 1000, (n,), device="cuda", generator=g))),
        ("normal f64", lambda r, n: (),
         _torch_or(lambda xp, g: g.normal(1.0, 2.0, n),
                   lambda t, g: t.normal(1.0, 2.0, (n,), device="cuda", generator=g,
                                         dtype=t.float64))),
        ("exponential f64", lambda r, n: (),
         _torch_or(lambda xp, g: g.exponential(2.0, n),
                   lambda t, g: t.empty(n, device="cuda", dtype=t.float64)
                   .exponential_(0.5, generator=g))),
        ("gamma f64 (shape 2.5)", lambda r, n: (),
         _torch_or(lambda xp, g: g.gamma(2.5, 1.0, n))),
        ("beta f64 (2, 5)", lambda r, n: (),
         _torch_or(lambda xp, g: g.beta(2.0, 5.0, n))),
        ("poisson (lam 4)", lambda r, n: (),
         _torch_or(lambda xp, g: g.poisson(4.0, n),
                   lambda t, g: t.poisson(t.full((n,), 4.0, device="cuda"), generator=g))),
        ("binomial (20, 0.3)", lambda r, n: (),
         _torch_or(lambda xp, g: g.binomial(20, 0.3, n),
                   lambda t, g: t.binomial(t.full((n,), 20.0, device="cuda"),
                                           t.full((n,), 0.3, device="cuda"), generator=g))),
        # the other branches of the rejection kernels (codegen/rand_dist.h)
        ("gamma f64 (shape 0.3)", lambda r, n: (),
         _torch_or(lambda xp, g: g.gamma(0.3, 1.0, n))),
        ("poisson (lam 40, PTRS)", lambda r, n: (),
         _torch_or(lambda xp, g: g.poisson(40.0, n),
                   lambda t, g: t.poisson(t.full((n,), 40.0, device="cuda"), generator=g))),
        ("binomial (1000, 0.3)", lambda r, n: (),
         _torch_or(lambda xp, g: g.binomial(1000, 0.3, n),
                   lambda t, g: t.binomial(t.full((n,), 1000.0, device="cuda"),
                                           t.full((n,), 0.3, device="cuda"), generator=g))),
        ("geometric (0.2)", lambda r, n: (),
         _torch_or(lambda xp, g: g.geometric(0.2, n),
                   lambda t, g: t.empty(n, device="cuda").geometric_(0.2, generator=g))),
    ]
    return c


def _force(r):
    """Ember's results may be lazy (fusion): evaluate them inside the timing."""
    for x in (r if isinstance(r, (tuple, list)) else (r,)):
        if isinstance(x, em.ndarray):
            em.eval(x)
    return r


def median_ms(fn, sync, repeat):
    if _force(fn()) is NotImplemented:  # warm-up: compiles, fills the pools
        return None
    sync()
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        _force(fn())
        sync()
        times.append((time.perf_counter() - t) * 1e3)
    return statistics.median(times)


def versions(libs):
    v = [f"Ember {em.__version__}", f"NumPy {np.__version__}",
         f"Python {sys.version.split()[0]}"]
    for L in libs:
        if L.name in ("cupy", "torch"):
            v.append(f"{L.name} {L.xp.__version__}")
    return ", ".join(v)


def main(argv=None):
    p = argparse.ArgumentParser()
    p.add_argument("--n", type=int, default=None, help="log2 of the element count (24)")
    p.add_argument("--quick", action="store_true", help="2^20 elements, 3 repeats")
    p.add_argument("--cpu", action="store_true", help="the CPU device against NumPy")
    p.add_argument("--device", default=None, help="the Ember device (cuda:0 where present)")
    p.add_argument("--filter", default="", help="only rows whose name contains this "
                   "(or one of these, comma-separated)")
    p.add_argument("--repeat", type=int, default=None)
    p.add_argument("--json", default=None, help="write the table here (bench/plot.py format)")
    o = p.parse_args(argv)
    logn = o.n if o.n is not None else (20 if o.quick else 24)
    repeat = o.repeat or (3 if o.quick else 7)
    device = "cpu" if o.cpu else o.device or ("cuda:0" if em.cuda.is_available() else "cpu")
    libs = libraries(device)
    names = [L.name for L in libs]
    n = 1 << logn
    rng = np.random.default_rng(7)
    where = device if device == "cpu" else f"{device} ({em.Device(device).name})"
    print(f"# bench_surface {time.strftime('%Y-%m-%d %H:%M')} on {where}, n = 2^{logn}, "
          f"median of {repeat}")
    head = f"{'row':<34}" + "".join(f"{m + ' ms':>12}" for m in names)
    head += "".join(f"{m + '/ember':>14}" for m in names[1:])
    print(head)
    rows = []
    for row, data, f in cases(n):
        if not any(s in row for s in o.filter.split(",")):
            continue
        arrays = data(rng, n)
        ms = {}
        for L in libs:
            try:
                args = tuple(L.put(a) for a in arrays)
                t = median_ms(lambda: f(L, *args), L.sync, repeat)
                if t is not None:
                    ms[L.name] = t
            except Exception as e:  # no such function in that library: say so, go on
                print(f"  {L.name} {row}: {type(e).__name__}: {str(e)[:120]}", file=sys.stderr)
        e = ms.get("ember")
        line = f"{row:<34}" + "".join(f"{ms[m]:>12.3f}" if m in ms else f"{'-':>12}"
                                      for m in names)
        line += "".join(f"{ms[m] / e:>14.2f}" if e and m in ms else f"{'-':>14}"
                        for m in names[1:])
        print(line, flush=True)
        rows.append([row] + [round(ms[m], 4) if m in ms else None for m in names])
    if o.json:
        try:
            commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True,
                                    text=True, cwd=os.path.dirname(__file__)).stdout.strip()
        except OSError:
            commit = None
        cols = [m.capitalize() if m != "numpy" else "NumPy" for m in names]
        table = {"title": f"The NumPy-surface sweep on {where}, 2^{logn} elements",
                 "command": "python bench/bench_surface.py " + " ".join(argv or sys.argv[1:]),
                 "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
                 "commit": commit, "device": where, "versions": versions(libs),
                 "unit": "ms", "better": "lower",
                 # the other library's time over Ember's, by the columns' own names
                 # (plot.py looks them up; "Ember / numpy" named no column)
                 "ratio": f"{cols[1]} / {cols[0]}" if len(cols) > 1 else None,
                 "columns": ["case"] + cols,
                 "rows": rows, "notes": [f"Median of {repeat} calls after a warm-up call."]}
        with open(o.json, "w", encoding="utf-8") as fh:
            json.dump(table, fh, indent=1)
            fh.write("\n")


if __name__ == "__main__":
    main()
