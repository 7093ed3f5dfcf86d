"""Where the GPU time of a few bench_fftsolve.py rows goes: Ember, CuPy and
PyTorch on the same input, each row's wall time per call and its kernels
under PyTorch's profiler (CUPTI sees every library's kernels in the
process, Ember's and cuSOLVER's too).  Needs a GPU, CuPy and PyTorch.

    PYTHONPATH=python python bench/prof_linalg.py [ROW_SUBSTRING ...]

A row whose wall time is well above its GPU-busy time spends it on the host
(or waiting for it): a host copy or sync in the middle of the row's work
leaves the GPU idle.  Written when qr 1024^2 ran 20 % behind CuPy and
PyTorch with the same cuSOLVER calls (issue 19)."""
import sys
import time

import cupy
import numpy as np
import torch
from torch.profiler import ProfilerActivity, profile

import ember as em


def _dt(e):
    """An averaged event's GPU time in µs (device_time_total from PyTorch 2.4 on)."""
    return getattr(e, "device_time_total", None) or e.cuda_time_total


def _cases():
    rng = np.random.default_rng(0)
    a = rng.standard_normal((1024, 1024)) + 32 * np.eye(1024)
    tall = rng.standard_normal((4096, 64))
    small = rng.standard_normal((10000, 8, 8)) + 3 * np.eye(8)
    return [("qr 1024", "qr", (a,)), ("cholesky 1024", "cholesky", (a @ a.T,)),
            ("solve 1024", "solve", (a, rng.standard_normal((1024, 1)))),
            ("solve 10000x8x8", "solve", (small, rng.standard_normal((10000, 8, 1)))),
            ("inv 10000x8x8", "inv", (small,)),
            ("cholesky 10000x8x8", "cholesky", (small @ np.swapaxes(small, -1, -2),)),
            ("eigh 10000x8x8", "eigh", (small + np.swapaxes(small, -1, -2),)),
            ("svd 4096x64", "svd", (tall,)), ("svd 1024", "svd", (a,))]


def main():
    dev = em.Device("cuda:0")
    libs = {
        "ember": (lambda x: em.asarray(x, device=dev), em.linalg, dev.synchronize),
        "cupy": (cupy.asarray, cupy.linalg, cupy.cuda.Device().synchronize),
        "torch": (lambda x: torch.as_tensor(x, device="cuda"), torch.linalg,
                  torch.cuda.synchronize),
    }
    only = sys.argv[1:]
    for name, fn, arrays in _cases():
        if only and not any(o in name for o in only):
            continue
        for lib, (to, la, sync) in libs.items():
            xs = [to(x) for x in arrays]
            f = getattr(la, fn)
            kw = {"full_matrices": False} if fn == "svd" else {}
            try:
                for _ in range(2):  # warm-up: handles, plans, kernels
                    f(*xs, **kw)
                sync()
                n = 3 if name == "svd 1024" else 20
                t0 = time.perf_counter()
                for _ in range(n):
                    f(*xs, **kw)
                sync()
                wall = (time.perf_counter() - t0) / n * 1e3
                with profile(activities=[ProfilerActivity.CUDA]) as p:
                    for _ in range(3):
                        f(*xs, **kw)
                    sync()
            except Exception as e:  # noqa: BLE001 - a row a library cannot run
                print(f"\n=== {name} {lib}: {type(e).__name__}: {e}")
                continue
            print(f"\n=== {name} {lib}: {wall:.3f} ms/call (wall, {n} calls) ===")
            ev = [e for e in p.key_averages() if _dt(e) > 0 and e.cpu_time_total == 0]
            ev.sort(key=lambda e: -_dt(e))
            busy, ops = sum(_dt(e) for e in ev) / 3e3, sum(e.count for e in ev) / 3
            print(f"  GPU busy {busy:.3f} ms/call in {ops:.0f} kernels and copies")
            for e in ev[:10]:
                print(f"  {_dt(e) / 3e3:8.3f} ms  x{e.count / 3:5.1f}  {e.key[:90]}")


if __name__ == "__main__":
    main()
