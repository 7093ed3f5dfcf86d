"""A/B timings of issue 19's scan-family rows for one device call: each row of
bench/bench_surface.py named by --filter, Ember timed under each variant of
environment variables (the kernels' cache keys carry them, so one process
builds each form), interleaved twice (A B C A B C), beside CuPy and PyTorch.

    PYTHONPATH=python python3 tools/probe_scan_ab.py --filter cumsum,nonzero \\
        --variant old:EMBER_SCAN_WARP=0,EMBER_NZ_STAGE=0 --variant new:
"""
import argparse
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "bench"))
import numpy as np  # noqa: E402
import bench_surface as bs  # noqa: E402


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--filter", default="")
    p.add_argument("--variant", action="append", default=[],
                   help="NAME:VAR=VAL,VAR=VAL (NAME: alone is the default environment)")
    p.add_argument("--repeat", type=int, default=9)
    p.add_argument("--n", type=int, default=24)
    o = p.parse_args()
    variants = []
    for v in o.variant or ["default:"]:
        name, _, env = v.partition(":")
        variants.append((name, dict(e.split("=", 1) for e in env.split(",") if e)))
    keys = sorted({k for _, e in variants for k in e})
    libs = bs.libraries("cuda:0")
    n = 1 << o.n
    rng = np.random.default_rng(7)
    print(f"{'row':<30}" + "".join(f"{v[0]:>12}" for v in variants * 2)
          + "".join(f"{L.name:>10}" for L in libs[1:]))
    for row, data, f in bs.cases(n):
        if not any(s in row for s in o.filter.split(",")):
            continue
        arrays = data(rng, n)
        out = []
        em_lib = libs[0]
        args = tuple(em_lib.put(a) for a in arrays)
        for _ in range(2):
            for _, env in variants:
                for k in keys:
                    os.environ.pop(k, None)
                os.environ.update(env)
                t = bs.median_ms(lambda: f(em_lib, *args), em_lib.sync, o.repeat)
                out.append(f"{t * 1e3:>12.1f}" if t is not None else f"{'-':>12}")
        for k in keys:
            os.environ.pop(k, None)
        for L in libs[1:]:
            try:
                a2 = tuple(L.put(a) for a in arrays)
                t = bs.median_ms(lambda: f(L, *a2), L.sync, o.repeat)
                out.append(f"{t * 1e3:>10.1f}" if t is not None else f"{'-':>10}")
            except Exception as e:  # noqa: BLE001
                out.append(f"{'err':>10}")
                print(f"  {L.name} {row}: {type(e).__name__}: {str(e)[:100]}", file=sys.stderr)
        print(f"{row:<30}" + "".join(out), flush=True)


if __name__ == "__main__":
    main()
