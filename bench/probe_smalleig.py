"""eigh / eigvalsh of stacks of small matrices on CUDA, one process, ms per
call (bench_fftsolve.timeit: calls queued back to back, median of --runs):
Ember's Jacobi kernels ("kernel": a warp a matrix up to 16, a block above,
taken for every shape they accept), cuSOLVER's syevjBatched / syevd
("library"), the default (_cusolver._small_eigh's choice), CuPy and
PyTorch.  Each row first checks the kernels against NumPy (w's relative
error and the residual |A v - v w| / max|w|), so a fast wrong kernel shows.

--syevj: where Ember's syevjBatched call spends its time against CuPy's
(the same cuSOLVER call): Ember's whole eigh, its solver call alone (since
session 21 the eigh itself reads info only for a stack its input copy
flags: bench/probe_eigh_info.py times the A/B), CuPy as it runs by default
(no info read) and with cupyx.errstate(linalg="raise").

    python bench/probe_smalleig.py [--min-time 0.1] [--runs 7] [--filter S[,S]] [--syevj]
"""
import argparse
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(__file__))
from bench_fftsolve import timeit  # noqa: E402

import ember as em  # noqa: E402
import ember._cusolver as cs  # noqa: E402


def _sym(rng, shape, dt):
    a = rng.standard_normal(shape)
    if np.dtype(dt).kind == "c":
        a = a + 1j * rng.standard_normal(shape)
    return (a + np.conj(np.swapaxes(a, -1, -2))).astype(dt)


def _mode(m):
    cs._SMALL_EIGH = m != "library"
    cs._SMALL_ALL = m == "kernel"


def rows(rng, filt):
    out = []
    for batch, n in ((10_000, 8), (1_000, 16), (1_000, 32)):
        for dt in (np.float64, np.float32, np.complex128):
            if np.dtype(dt).kind == "c" and n > 16:
                continue
            x = _sym(rng, (batch, n, n), dt)
            nm = np.dtype(dt).name
            out += [(f"eigh {batch}x{n}x{n} {nm}", "eigh", x),
                    (f"eigvalsh {batch}x{n}x{n} {nm}", "eigvalsh", x)]
    out += [("eigh 16x16 f64", "eigh", _sym(rng, (16, 16), np.float64)),
            ("eigh 32x32 f64", "eigh", _sym(rng, (32, 32), np.float64)),
            ("eigh 1024^2 f64", "eigh", _sym(rng, (1024, 1024), np.float64))]
    if filt:
        out = [r for r in out if any(f in r[0] for f in filt.split(","))]
    return out


def others():
    o = {}
    try:
        import cupy
        o["cupy"] = (cupy.asarray, cupy.linalg, cupy.cuda.Device().synchronize)
    except Exception as e:  # noqa: BLE001
        print("no cupy:", e)
    try:
        import torch
        o["torch"] = (lambda x: torch.as_tensor(x, device="cuda"), torch.linalg,
                      torch.cuda.synchronize)
    except Exception as e:  # noqa: BLE001
        print("no torch:", e)
    return o


def check(fn, x, e):
    got = getattr(em.linalg, fn)(e)
    if fn == "eigvalsh":
        w, v = np.asarray(got.to_device("cpu")), None
    else:
        w, v = (np.asarray(t.to_device("cpu")) for t in got)
    want = np.linalg.eigvalsh(x)
    err = float(np.abs(w - want).max() / np.abs(want).max())
    if v is not None:
        err = max(err, float(np.abs(x @ v - v * w[..., None, :]).max() / np.abs(want).max()))
    return err


def table(args, dev):
    rng = np.random.default_rng(0)
    oth = others()
    modes = ["kernel", "library", "default"]
    print("| row | " + " | ".join(modes + list(oth)) + " | kernel err |")
    print("|---|" + "---|" * (len(modes) + len(oth)) + "---|")
    for name, fn, x in rows(rng, args.filter):
        e = em.asarray(x, device=dev)
        ef = getattr(em.linalg, fn)
        big = x.shape[-1] > 32
        _mode("kernel")
        err = float("nan") if big else check(fn, x, e)
        cells = []
        for m in modes:
            if big and m not in ("library", "default"):
                cells.append(float("nan"))
                continue
            _mode(m)
            try:
                cells.append(timeit(lambda: ef(e), dev.synchronize, args.min_time, args.runs))
            finally:
                _mode("default")
        for label, (conv, lib, sync) in oth.items():
            o = conv(x)
            f = getattr(lib, fn)
            try:
                cells.append(timeit(lambda: f(o), sync, args.min_time, args.runs))
            except Exception as ex:  # noqa: BLE001
                print(f"{label} {name}: {ex}")
                cells.append(float("nan"))
        print(f"| {name} | " + " | ".join(f"{c:.4f}" for c in cells)
              + f" | {err:.1e} |", flush=True)


def syevj(args, dev):
    """The syevjBatched call's parts, Ember against CuPy (1000 x 16 x 16)."""
    import cupy
    import cupyx
    rng = np.random.default_rng(1)
    print("| 1000x16x16 syevjBatched | ms |\n|---|---|")
    for dt in (np.float64, np.float32):
        x = _sym(rng, (1000, 16, 16), dt)
        e, c = em.asarray(x, device=dev), cupy.asarray(x)
        sync = dev.synchronize
        _mode("library")
        try:
            r = {"ember eigh (syevjBatched)": lambda: em.linalg.eigh(e),
                 "ember solver call alone":
                     lambda: cs._solver("syevd", e.mT, None, None, 1, 0),
                 "ember transpose copy alone": lambda: e.mT.copy()}
            for k, f in r.items():
                print(f"| {k} {np.dtype(dt).name} | {timeit(f, sync, args.min_time, args.runs):.4f} |")
        finally:
            _mode("default")
        print(f"| cupy eigh (default: no info read) {np.dtype(dt).name} | "
              f"{timeit(lambda: cupy.linalg.eigh(c), sync, args.min_time, args.runs):.4f} |")
        with cupyx.errstate(linalg="raise"):
            print(f"| cupy eigh, errstate(linalg='raise') {np.dtype(dt).name} | "
                  f"{timeit(lambda: cupy.linalg.eigh(c), sync, args.min_time, args.runs):.4f} |")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--min-time", type=float, default=0.1)
    ap.add_argument("--runs", type=int, default=7)
    ap.add_argument("--device", default="cuda:0")
    ap.add_argument("--filter", default="")
    ap.add_argument("--syevj", action="store_true")
    args = ap.parse_args()
    dev = em.Device(args.device)
    if args.syevj:
        syevj(args, dev)
    table(args, dev)


if __name__ == "__main__":
    main()
