"""FFT (cuFFT) and dense linear algebra (cuSOLVER) on the GPU: Ember beside
CuPy and PyTorch on the same data, and NumPy on the CPU for reference
(issue 19, items 3 and 4).

    python bench/bench_fftsolve.py [--quick] [--filter SUBSTRING[,...]] [--json FILE] [--ab]

Rows: fft and rfft of 2^24 complex64/float32, fft2 of 4096^2 complex64;
solve, inv, det, cholesky, qr, eigh and svd of 1024^2 float64, of 4096 x 64
float64 where the function takes a non-square matrix (qr, svd; solve and
lstsq-like rows use the square 64 x 64 Gram matrix), and of a batch of
10^4 8 x 8 float64 matrices.  Every library computes the same function on
the same input; each is synchronised after its timed loop (ms per call,
median of several runs, each run repeated until it lasts ~0.2 s).  A
library that cannot run a row shows "n/a" and the reason below the table.
The last column is Ember's time over the faster of CuPy and PyTorch
(<= 1.0: at least as fast).  --ab adds an "ember-old" column, the same
functions through the pieces assembled in Python (ember._cusolver._FAST
off, as EMBER_LINALG_PATH=old: getrf and getrs as two calls, tril, eye,
the info flag by a reduction and a pageable read), in the same process.  The table is printed in Markdown, with the
date and device, ready for bench/RESULTS.md.
"""
import argparse
import datetime
import json
import os
import statistics
import sys
import time

import numpy as np

try:
    import ember as em
except ImportError:  # run from a checkout without PYTHONPATH
    sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "python"))
    import ember as em


class Lib:
    def __init__(self, name, to_dev, sync, fns):
        self.name, self.to_dev, self.sync, self.fns = name, to_dev, sync, fns


def _spd(a):
    """a a^T + n I: symmetric positive definite (batched)."""
    n = a.shape[-1]
    return a @ np.swapaxes(a, -1, -2) + n * np.eye(n)


def _cases(quick):
    rng = np.random.default_rng(0)
    n1 = 2 ** 20 if quick else 2 ** 24
    sq = 256 if quick else 1024
    f2 = 1024 if quick else 4096
    nb = 1000 if quick else 10_000
    c1 = (rng.standard_normal(n1) + 1j * rng.standard_normal(n1)).astype(np.complex64)
    r1 = rng.standard_normal(n1).astype(np.float32)
    c2 = (rng.standard_normal((f2, f2)) + 1j * rng.standard_normal((f2, f2))).astype(np.complex64)
    a = rng.standard_normal((sq, sq)) + sq ** 0.5 * np.eye(sq)
    tall = rng.standard_normal((4096, 64))
    g = tall.T @ tall  # the 64 x 64 Gram matrix of the tall one
    small = rng.standard_normal((nb, 8, 8)) + 3 * np.eye(8)
    b = rng.standard_normal((sq, 1))
    bs = rng.standard_normal((nb, 8, 1))
    sym, symb = a + a.T, small + np.swapaxes(small, -1, -2)
    m16, m32 = rng.standard_normal((1000, 16, 16)), rng.standard_normal((1000, 32, 32))
    sym16 = m16 + np.swapaxes(m16, -1, -2)
    cases = [
        (f"fft {n1} complex64", "fft", (c1,)),
        (f"rfft {n1} float32", "rfft", (r1,)),
        (f"fft2 {f2}^2 complex64", "fft2", (c2,)),
        (f"solve {sq}^2 float64", "solve", (a, b)),
        (f"inv {sq}^2 float64", "inv", (a,)),
        (f"det {sq}^2 float64", "det", (a,)),
        (f"cholesky {sq}^2 float64", "cholesky", (_spd(a),)),
        (f"qr {sq}^2 float64", "qr", (a,)),
        (f"eigh {sq}^2 float64", "eigh", (sym,)),
        (f"svd {sq}^2 float64", "svd", (a,)),
        ("qr 4096x64 float64", "qr", (tall,)),
        ("svd 4096x64 float64", "svd", (tall,)),
        ("solve 64^2 (4096x64 Gram) float64", "solve", (g, tall[:64, :1])),
        ("cholesky 64^2 (4096x64 Gram) float64", "cholesky", (g,)),
        ("eigh 64^2 (4096x64 Gram) float64", "eigh", (g,)),
        ("inv 64^2 (4096x64 Gram) float64", "inv", (g,)),
        (f"solve {nb}x8x8 float64", "solve", (small, bs)),
        (f"inv {nb}x8x8 float64", "inv", (small,)),
        (f"det {nb}x8x8 float64", "det", (small,)),
        (f"cholesky {nb}x8x8 float64", "cholesky", (_spd(small),)),
        (f"qr {nb}x8x8 float64", "qr", (small,)),
        (f"eigh {nb}x8x8 float64", "eigh", (symb,)),
        (f"svd {nb}x8x8 float64", "svd", (small,)),
        ("eigh 1000x16x16 float64", "eigh", (sym16,)),
        ("qr 1000x32x32 float64", "qr", (m32,)),
    ]
    return cases


def _fns(fft, linalg):
    return {
        "fft": fft.fft, "rfft": fft.rfft, "fft2": fft.fft2,
        "solve": linalg.solve, "inv": linalg.inv, "det": linalg.det,
        "cholesky": linalg.cholesky, "qr": linalg.qr, "eigh": linalg.eigh,
        "svd": lambda x: linalg.svd(x, full_matrices=False),
    }


def _old_path(fns):
    """fns with ember._cusolver's one-call paths off during each call."""
    import ember._cusolver as cs

    def wrap(f):
        def g(*args):
            cs._FAST = False
            try:
                return f(*args)
            finally:
                cs._FAST = True
        return g
    return {k: wrap(f) for k, f in fns.items()}


def libraries(gpu, ab=False):
    if not gpu:
        return [Lib("numpy", lambda a: a, lambda: None, _fns(np.fft, np.linalg)),
                Lib("ember-cpu", lambda a: em.asarray(a, device="cpu"), lambda: None,
                    _fns(em.fft, em.linalg))]
    dev = em.Device("cuda:0")
    libs = [Lib("ember", lambda a: em.asarray(a, device=dev), dev.synchronize,
                _fns(em.fft, em.linalg))]
    if ab:
        libs.append(Lib("ember-old", lambda a: em.asarray(a, device=dev), dev.synchronize,
                        _old_path(_fns(em.fft, em.linalg))))
    try:
        import cupy
        libs.append(Lib("cupy", cupy.asarray, cupy.cuda.Device().synchronize,
                        _fns(cupy.fft, cupy.linalg)))
    except Exception as e:  # noqa: BLE001 - any import or device failure: no column
        print(f"(no CuPy: {e})")
    try:
        import torch
        if torch.cuda.is_available():
            tf = _fns(torch.fft, torch.linalg)
            tf["svd"] = lambda x: torch.linalg.svd(x, full_matrices=False)
            tf["qr"] = torch.linalg.qr
            libs.append(Lib("torch", lambda a: torch.as_tensor(a, device="cuda"),
                            torch.cuda.synchronize, tf))
    except Exception as e:  # noqa: BLE001
        print(f"(no PyTorch: {e})")
    return libs


def timeit(fn, sync, min_time, runs):
    fn()
    sync()  # warm-up: plans, handles, kernels
    reps = 1
    while True:
        t0 = time.perf_counter()
        for _ in range(reps):
            fn()
        sync()
        t = time.perf_counter() - t0
        if t >= min_time or reps >= 1 << 16:
            break
        reps = min(1 << 16, max(2 * reps, int(reps * min_time / max(t, 1e-6))))
    times = [t / reps]
    for _ in range(runs - 1):
        t0 = time.perf_counter()
        for _ in range(reps):
            fn()
        sync()
        times.append((time.perf_counter() - t0) / reps)
    return statistics.median(times) * 1e3


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--quick", action="store_true", help="smaller sizes (a smoke test)")
    ap.add_argument("--filter", default="",
                    help="only rows whose name contains this (or one of these, comma-separated)")
    ap.add_argument("--json", help="also write the numbers to this file")
    ap.add_argument("--min-time", type=float, default=0.2)
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--cpu", action="store_true", help="NumPy against Ember on the CPU")
    ap.add_argument("--ab", action="store_true",
                    help="add Ember's old linalg path (pieces assembled in Python) as a column")
    args = ap.parse_args()
    gpu = em.cuda.is_available() and not args.cpu
    libs = libraries(gpu, args.ab)
    device = em.Device("cuda:0").name if gpu else "CPU"
    now = datetime.datetime.now(datetime.timezone.utc)
    print(f"# FFT and linear algebra, {now:%Y-%m-%d %H:%M} UTC, {device}\n")
    head = "| case | " + " | ".join(f"{lib.name} ms" for lib in libs)
    head += " | ember / best other |" if len(libs) > 1 else " |"
    print(head)
    print("|" + "---|" * (head.count("|") - 1))
    notes, rows = [], {}
    for name, fn, arrays in _cases(args.quick):
        if not any(f in name for f in args.filter.split(",")):
            continue
        cells, ms = [], {}
        for lib in libs:
            try:
                dev = [lib.to_dev(a) for a in arrays]
                f = lib.fns[fn]
                ms[lib.name] = timeit(lambda: f(*dev), lib.sync, args.min_time, args.runs)
                cells.append(f"{ms[lib.name]:.3f}")
            except Exception as e:  # noqa: BLE001 - a row a library cannot run
                cells.append("n/a")
                notes.append(f"{name}, {lib.name}: {type(e).__name__}: {str(e)[:120]}")
        others = [v for k, v in ms.items() if k not in (libs[0].name, "ember-old")]
        ratio = (f"{ms[libs[0].name] / min(others):.2f}" if libs[0].name in ms and others
                 else "n/a")
        print(f"| {name} | " + " | ".join(cells) + (f" | {ratio} |" if len(libs) > 1 else " |"),
              flush=True)
        rows[name] = ms
    for n in notes:
        print(f"- {n}")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"device": device, "rows": rows}, f, indent=1)


if __name__ == "__main__":
    main()
