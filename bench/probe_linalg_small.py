"""What the one wait for LAPACK's info costs on the small linalg rows:
Ember as shipped, Ember with the check skipped (not a mode users get: the
error would be lost), PyTorch's *_ex forms (no check, no wait) and CuPy
(which does not check by default), in one process, ms per call (median).

    python bench/probe_linalg_small.py [--min-time 0.1] [--runs 5]
"""
import argparse
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(__file__))
from bench_fftsolve import _spd, timeit  # noqa: E402

import ember as em  # noqa: E402
import ember._cusolver as cs  # noqa: E402


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--min-time", type=float, default=0.1)
    ap.add_argument("--runs", type=int, default=5)
    args = ap.parse_args()
    rng = np.random.default_rng(0)
    tall = rng.standard_normal((4096, 64))
    g = tall.T @ tall
    small = rng.standard_normal((10_000, 8, 8)) + 3 * np.eye(8)
    rows = [("solve 64^2", "solve", (g, tall[:64, :1])), ("cholesky 64^2", "cholesky", (g,)),
            ("inv 64^2", "inv", (g,)),
            ("solve 10000x8x8", "solve", (small, rng.standard_normal((10_000, 8, 1)))),
            ("inv 10000x8x8", "inv", (small,)), ("cholesky 10000x8x8", "cholesky", (_spd(small),))]
    dev = em.Device("cuda:0")
    import cupy
    import torch
    ts = torch.cuda.synchronize
    tf = {"solve": lambda a, b: torch.linalg.solve_ex(a, b)[0],
          "inv": lambda a: torch.linalg.inv_ex(a)[0],
          "cholesky": lambda a: torch.linalg.cholesky_ex(a)[0]}
    real_failed = cs._failed

    def attr(name, v):
        old = getattr(cs, name)

        def f(on):
            setattr(cs, name, v if on else old)
        return f

    variants = [("ember", None), ("ember, no info check", attr("_failed", lambda info: False)),
                ("ember old path", attr("_FAST", False))]
    print("| row | " + " | ".join(v[0] for v in variants)
          + " | torch (checks) | torch *_ex | cupy (no check) |")
    print("|---|" + "---|" * (len(variants) + 3))
    for name, fn, arrays in rows:
        e = [em.asarray(a, device=dev) for a in arrays]
        c = [cupy.asarray(a) for a in arrays]
        t = [torch.as_tensor(a, device="cuda") for a in arrays]
        ef = getattr(em.linalg, fn)
        cells = []
        for label, switch in variants:
            if switch is None:
                cells.append(timeit(lambda: ef(*e), dev.synchronize, args.min_time, args.runs))
                continue
            switch(True)
            try:
                cells.append(timeit(lambda: ef(*e), dev.synchronize, args.min_time, args.runs))
            finally:
                switch(False)
        cells.append(timeit(lambda: getattr(torch.linalg, fn)(*t), ts, args.min_time, args.runs))
        cells.append(timeit(lambda: tf[fn](*t), ts, args.min_time, args.runs))
        cells.append(timeit(lambda: getattr(cupy.linalg, fn)(*c),
                            cupy.cuda.Device().synchronize, args.min_time, args.runs))
        print(f"| {name} | " + " | ".join(f"{x:.4f}" for x in cells) + " |", flush=True)
    cs._failed = real_failed


if __name__ == "__main__":
    main()
