"""The one-kernel small linear algebra (include/ember/smallla.h) against the
cuSOLVER / cuBLAS-batched paths it replaces (EMBER_SMALLLA=0's, switched
in-process), CuPy and PyTorch, in one process, ms per call (median of
--runs), plus cholesky 1024^2 through Xpotrf against the typed Dpotrf
(EMBER_POTRF=typed).  Each row first checks Ember's result against NumPy
(max relative error printed), so a fast wrong kernel shows.  "new" is the
kernel for every shape it takes (EMBER_SMALLLA=all); _cusolver's default
takes it only where it won here.

    python bench/probe_smallla.py [--min-time 0.1] [--runs 7] [--device cuda:0]
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


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--min-time", type=float, default=0.1)
    ap.add_argument("--runs", type=int, default=7)
    ap.add_argument("--device", default="cuda:0")
    args = ap.parse_args()
    rng = np.random.default_rng(0)
    dev = em.Device(args.device)
    cuda = args.device.startswith("cuda")

    def well(shape):
        n = shape[-1]
        return rng.standard_normal(shape) + 2 * np.sqrt(n) * np.eye(n)

    def sym(shape):
        a = rng.standard_normal(shape)
        return a + np.swapaxes(a, -1, -2)

    rows = []
    for n in (64, 32):
        a, b = well((n, n)), rng.standard_normal((n, 1))
        rows += [(f"solve {n}^2", "solve", (a, b)), (f"inv {n}^2", "inv", (a,)),
                 (f"det {n}^2", "det", (a / np.sqrt(n),))]
    for batch, n in ((10_000, 8), (1_000, 32)):
        a, b = well((batch, n, n)), rng.standard_normal((batch, n, 1))
        rows += [(f"solve {batch}x{n}x{n}", "solve", (a, b)),
                 (f"inv {batch}x{n}x{n}", "inv", (a,)),
                 (f"det {batch}x{n}x{n}", "det", (a / np.sqrt(n),)),
                 (f"eigh {batch}x{n}x{n}", "eigh", (sym((batch, n, n)),))]
    rows.append(("eigh 8x8", "eigh", (sym((8, 8)),)))
    rows.append(("cholesky 1024^2", "cholesky", (_spd(rng.standard_normal((1024, 1024))),)))

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

    def switch(small):  # the kernel for every shape it takes, or none
        cs._SMALL = cs._SMALL_ALL = small
        cs._SMALL_EIGH = small

    print("| row | ember new | ember old | " + " | ".join(others) + " | new err |")
    print("|---|---|---|" + "---|" * len(others) + "---|")
    for name, fn, arrays in rows:
        e = [em.asarray(x, device=dev) for x in arrays]
        ef = getattr(em.linalg, fn)
        want = getattr(np.linalg, fn)(*arrays)
        if fn == "eigh":
            switch(True)
            got = ef(*e)
            err = _err(got[0], want[0])
            v = np.asarray(got[1].to_device("cpu"))
            w = np.asarray(got[0].to_device("cpu"))
            err = max(err, float(np.abs(arrays[0] @ v - v * w[..., None, :]).max()
                                 / np.abs(w).max()))
        else:
            switch(True)
        err = _err(ef(*e), want)
        cells = []
        if fn == "cholesky":
            for typed in (False, True):
                if typed:
                    os.environ["EMBER_POTRF"] = "typed"
                else:
                    os.environ.pop("EMBER_POTRF", None)
                cells.append(timeit(lambda: ef(*e), dev.synchronize, args.min_time, args.runs))
            os.environ.pop("EMBER_POTRF", None)
        else:
            for small in (True, False):
                switch(small)
                try:
                    cells.append(timeit(lambda: ef(*e), dev.synchronize, args.min_time, args.runs))
                finally:
                    switch(True)
        for label, (conv, lib, sync) in others.items():
            o = [conv(x) for x in arrays]
            f = getattr(lib, fn)
            try:
                cells.append(timeit(lambda: f(*o), sync, args.min_time, args.runs))
            except Exception as ex:  # noqa: BLE001
                print(f"{label} {name}: {ex}")
                cells.append(float("nan"))
        print(f"| {name} | " + " | ".join(f"{x:.4f}" for x in cells) + f" | {err:.1e} |",
              flush=True)
    print("(cholesky: 'new' is Xpotrf, 'old' the typed Dpotrf, EMBER_POTRF=typed)")


if __name__ == "__main__":
    main()
