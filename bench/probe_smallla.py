"""The one-kernel small linear algebra (include/ember/smallla.h) against the
cuSOLVER / cuBLAS-batched paths (switched in-process), CuPy and PyTorch, in
one process, ms per call (median of --runs).  Columns: "kernel" the kernel
for every shape it takes, "library" cuSOLVER / cuBLAS, "default"
_cusolver's choice.  Each row first checks Ember's kernel result against
NumPy (max relative error; eigh: also the residual |A v - v w|), so a fast
wrong kernel shows.  On an OpenCL device only the kernel is timed.

    python bench/probe_smallla.py [--min-time 0.1] [--runs 7] [--device cuda:0]
        [--filter SUBSTRING[,...]] [--nt 256,512,1024]

--nt times the kernel of the solve / inv / det rows again at each block
size (EMBER_SMALLLA_NT, read at each call), printed as "kernel@NT" rows.
The qr rows' CuPy and PyTorch loop over the stack (hundreds of ms for
10^4 matrices): those are timed once after a warm-up call.
"""
import argparse
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(__file__))
from bench_fftsolve import _spd, timeit  # noqa: E402

import ember as em  # noqa: E402
import ember._cusolver as cs  # noqa: E402


def _err(got, want):
    g = np.asarray(got.to_device("cpu"))
    return float(np.abs(g - want).max() / max(np.abs(want).max(), 1e-300))


def _cplx(rng, shape):
    return rng.standard_normal(shape) + 1j * rng.standard_normal(shape)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--min-time", type=float, default=0.1)
    ap.add_argument("--runs", type=int, default=7)
    ap.add_argument("--device", default="cuda:0")
    ap.add_argument("--filter", default="")
    ap.add_argument("--nt", default="")
    args = ap.parse_args()
    rng = np.random.default_rng(0)
    dev = em.Device(args.device)
    cuda = args.device.startswith("cuda")

    def well(shape, dt=np.float64):
        n = shape[-1]
        a = _cplx(rng, shape) if np.dtype(dt).kind == "c" else rng.standard_normal(shape)
        return (a + 2 * np.sqrt(n) * np.eye(n)).astype(dt)

    def sym(shape, dt=np.float64):
        a = _cplx(rng, shape) if np.dtype(dt).kind == "c" else rng.standard_normal(shape)
        return (a + np.conj(np.swapaxes(a, -1, -2))).astype(dt)

    rows = []
    for n in (64, 32):
        a, b = well((n, n)), rng.standard_normal((n, 1))
        rows += [(f"solve {n}^2", "solve", (a, b)), (f"inv {n}^2", "inv", (a,)),
                 (f"det {n}^2", "det", (a / np.sqrt(n),))]
    rows.append(("inv 64^2 f32", "inv", (well((64, 64), np.float32),)))
    rows.append(("inv 32^2 f32", "inv", (well((32, 32), np.float32),)))
    rows.append(("inv 64^2 complex64", "inv", (well((64, 64), np.complex64),)))
    rows.append(("inv 32^2 complex128", "inv", (well((32, 32), np.complex128),)))
    rows.append(("inv 100x64x64", "inv", (well((100, 64, 64)),)))
    for shape in ((10_000, 8, 8), (1_000, 32, 32), (32, 32), (10_000, 16, 4)):
        for dt in (np.float64, np.float32, np.complex128):
            if dt == np.complex128 and shape != (10_000, 8, 8):
                continue
            x = rng.standard_normal(shape) if dt != np.complex128 else _cplx(rng, shape)
            nm = "x".join(map(str, shape))
            rows.append((f"qr {nm} {np.dtype(dt).name}", "qr", (x.astype(dt),)))
    a, b = well((10_000, 8, 8)), rng.standard_normal((10_000, 8, 1))
    rows += [("solve 10000x8x8", "solve", (a, b)), ("inv 10000x8x8", "inv", (a,)),
             ("det 10000x8x8", "det", (a / np.sqrt(8),)), ("inv 1000x32x32", "inv",
                                                            (well((1000, 32, 32)),))]
    for batch, n in ((10_000, 8), (1_000, 16)):
        for dt in (np.float64, np.float32, np.complex128):
            nm = np.dtype(dt).name
            x = sym((batch, n, n), dt)
            rows += [(f"eigh {batch}x{n}x{n} {nm}", "eigh", (x,)),
                     (f"eigvalsh {batch}x{n}x{n} {nm}", "eigvalsh", (x,))]
    rows += [("eigh 8x8", "eigh", (sym((8, 8)),)), ("eigh 1000x32x32", "eigh",
                                                    (sym((1000, 32, 32)),))]
    rows.append(("cholesky 1024^2", "cholesky", (_spd(rng.standard_normal((1024, 1024))),)))
    if args.filter:
        rows = [r for r in rows if any(f in r[0] for f in args.filter.split(","))]

    others = {}
    if cuda:
        try:
            import cupy
            others["cupy"] = (cupy.asarray, cupy.linalg, cupy.cuda.Device().synchronize)
        except Exception as e:  # noqa: BLE001
            print("no cupy:", e)
        try:
            import torch
            others["torch"] = (lambda x: torch.as_tensor(x, device="cuda"), torch.linalg,
                               torch.cuda.synchronize)
        except Exception as e:  # noqa: BLE001
            print("no torch:", e)

    def switch(mode):  # "kernel": every shape it takes; "library": none; "default"
        cs._SMALL = cs._SMALL_EIGH = mode != "library"
        cs._SMALL_ALL = mode == "kernel"

    modes = ["kernel", "library", "default"] if cuda else ["kernel"]
    print("| row | " + " | ".join(modes + list(others)) + " | kernel err |")
    print("|---|" + "---|" * (len(modes) + len(others)) + "---|")
    for name, fn, arrays in rows:
        e = [em.asarray(x, device=dev) for x in arrays]
        ef = getattr(em.linalg, fn)
        want = getattr(np.linalg, fn)(*arrays)
        switch("kernel")
        got = ef(*e)
        if fn == "qr":
            err = max(_err(got[0], want[0]), _err(got[1], want[1]))
        elif fn == "eigh":
            w, v = (np.asarray(x.to_device("cpu")) for x in got)
            err = _err(got[0], want[0])
            err = max(err, float(np.abs(arrays[0] @ v - v * w[..., None, :]).max()
                                 / np.abs(w).max()))
        else:
            err = _err(got, want)
        cells = []
        for mode in modes:
            switch(mode)
            try:
                cells.append(timeit(lambda: ef(*e), dev.synchronize, args.min_time, args.runs))
            finally:
                switch("default")
        for label, (conv, lib, sync) in others.items():
            o = [conv(x) for x in arrays]
            f = getattr(lib, fn)
            slow = fn == "qr" and arrays[0].ndim > 2 and arrays[0].shape[0] >= 1000
            try:
                cells.append(timeit(lambda: f(*o), sync, 0 if slow else args.min_time,
                                    1 if slow else args.runs))
            except Exception as ex:  # noqa: BLE001
                print(f"{label} {name}: {ex}")
                cells.append(float("nan"))
        print(f"| {name} | " + " | ".join(f"{x:.4f}" for x in cells) + f" | {err:.1e} |",
              flush=True)
        if args.nt and fn in ("solve", "inv", "det"):
            switch("kernel")
            try:
                for nt in args.nt.split(","):
                    os.environ["EMBER_SMALLLA_NT"] = nt
                    got = ef(*e)
                    t = timeit(lambda: ef(*e), dev.synchronize, args.min_time, args.runs)
                    print(f"| {name} kernel@{nt} | {t:.4f} | err {_err(got, want):.1e} |",
                          flush=True)
            finally:
                os.environ.pop("EMBER_SMALLLA_NT", None)
                switch("default")


if __name__ == "__main__":
    main()
