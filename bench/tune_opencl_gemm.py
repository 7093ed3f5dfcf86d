"""OpenCL's matmul tiles timed and checked on one OpenCL device, beside cuBLAS
(the register-blocked kernel of codegen/render_gemm_blocked.c; run_gemm.c's
em__gm_tile holds the table this chooses).

    python bench/tune_opencl_gemm.py [--opencl opencl:N] [--n N] [--tiles T,T] [--quick]

For float32 and float64, the GFLOP/s of an n x n product (default 4096) for
each tile (EMBER_OPENCL_GEMM: TMxTNxBK, or 'generic': the generic kernel the
tree had before), with a row-major and a transposed a; the largest error
relative to the largest result, against cuBLAS on cuda:0 where there is one
(else NumPy).  Then at the default tile: a ragged size and a batch.  Medians
of 7 synchronised calls after a warm-up call.  The device is the first
OpenCL GPU, else the first OpenCL device (PoCL: --quick, n 256, a smoke run).
"""
import argparse
import os
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "python"))
import ember as em  # noqa: E402
from bench_opencl import median_s  # noqa: E402  (this file's directory is on sys.path)

TILES = {np.float32: ["generic", "8x8x16", "8x8x8", "4x4x16", "8x4x16", "4x8x16"],
         np.float64: ["generic", "4x4x16", "4x4x8", "8x8x8", "8x4x8", "4x8x8"]}


med = median_s  # bench_opencl.py's timing: the same median of synchronised calls


def pick_device(name):
    if name:
        return name
    n = em.opencl.device_count()
    gpus = [f"opencl:{i}" for i in range(n)
            if em.opencl.device_info(f"opencl:{i}")["type"] == "gpu"]
    return gpus[0] if gpus else "opencl:0"


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--opencl", help="the OpenCL device (default: the first GPU, else opencl:0)")
    ap.add_argument("--n", type=int, help="the product's size (default 4096; --quick 256)")
    ap.add_argument("--tiles", help="comma-separated tiles for both dtypes (default: a table)")
    ap.add_argument("--quick", action="store_true", help="n 256, two tiles: a smoke run")
    args = ap.parse_args()
    if not em.opencl.is_available():
        print("tune_opencl_gemm: skipped (no OpenCL device)")
        return 0
    ocl = pick_device(args.opencl)
    info = em.opencl.device_info(ocl)
    n = args.n or (256 if args.quick else 4096)
    print(f"# tune_opencl_gemm on {ocl}: {info['name']} ({info['platform']}, driver "
          f"{info['driver_version']}), n = {n}")
    rng = np.random.default_rng(0)
    saved = os.environ.pop("EMBER_OPENCL_GEMM", None)
    for dt in (np.float32, np.float64):
        ha, hb = rng.standard_normal((n, n)).astype(dt), rng.standard_normal((n, n)).astype(dt)
        if em.cuda.is_available():
            with em.Device("cuda:0") as d:
                a, b = em.asarray(ha), em.asarray(hb)
                t = med(lambda: a @ b, d.synchronize)
                ref = (a @ b).get()
                print(f"{dt.__name__:8s} cuBLAS   {2 * n**3 / t / 1e9:9.1f} GFLOP/s (cuda:0)")
                del a, b
        else:
            ref = ha @ hb
        tiles = args.tiles.split(",") if args.tiles else TILES[dt][:2 if args.quick else None]
        scale = np.abs(ref).max()
        with em.Device(ocl) as d:
            a, b = em.asarray(ha), em.asarray(hb)
            at = em.asarray(np.ascontiguousarray(ha.T)).T  # a transposed view: no copy
            for tl in tiles:
                os.environ["EMBER_OPENCL_GEMM"] = tl
                try:
                    t = med(lambda: a @ b, d.synchronize)
                    tt = med(lambda: at @ b, d.synchronize)
                    err = max(np.abs((a @ b).get() - ref).max(),
                              np.abs((at @ b).get() - ref).max()) / scale
                except Exception as e:  # a tile the device refuses: say so, go on
                    print(f"{dt.__name__:8s} {tl:8s} {type(e).__name__}: {str(e)[:200]}")
                    continue
                print(f"{dt.__name__:8s} {tl:8s} {2 * n**3 / t / 1e9:9.1f} GFLOP/s, transposed a "
                      f"{2 * n**3 / tt / 1e9:9.1f}, error {err:.1e}")
            os.environ.pop("EMBER_OPENCL_GEMM")
            m = n // 4
            for sa, sb in [((m - 1, m + 1), (m + 1, m // 2 + 3)), ((8, m, m), (8, m, m))]:
                x, y = rng.standard_normal(sa).astype(dt), rng.standard_normal(sb).astype(dt)
                ex, ey = em.asarray(x), em.asarray(y)
                t = med(lambda: ex @ ey, d.synchronize, 3)
                w = x @ y
                err = np.abs((ex @ ey).get() - w).max() / np.abs(w).max()
                flops = 2 * np.prod(sa) * sb[-1]
                print(f"{dt.__name__:8s} default  {flops / t / 1e9:9.1f} GFLOP/s for {sa} @ {sb}, "
                      f"error {err:.1e}")
    if saved is not None:
        os.environ["EMBER_OPENCL_GEMM"] = saved
    return 0


if __name__ == "__main__":
    sys.exit(main())
