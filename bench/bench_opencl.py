"""The OpenCL backend beside the CUDA backend on the same card.

    python bench/bench_opencl.py [--json FILE] [--quick] [--opencl opencl:N] [--any-device]

Rows: `a + b` on 2^26 float32 (GB/s: 12 bytes an element), `sum` of 2^28
float32 (GB/s: 4 bytes an element), a 4096^2 float32 matmul (GFLOP/s: 2 n^3),
`cumsum` and `sort` of 2^24 float32 (ms).  Each number is the median of 7 warm
calls (a warm-up first: compiles and the pools), each synchronised with
`Device.synchronize()`.  --quick divides every size by 16 (a smoke run).

It needs a CUDA device and an OpenCL GPU (the first one whose type is "gpu",
or the one --opencl names; NVIDIA's OpenCL library registered with the ICD
loader: docs/opencl.md); without them it says why and exits 0 with nothing
written.  --any-device runs the OpenCL column on whatever OpenCL device there
is (PoCL's CPU device) and the CUDA column only where there is CUDA: a check
that the script itself works, not a benchmark to record.
"""
import argparse
import datetime
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


def median_s(fn, sync, repeat=7):
    fn()
    sync()
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        sync()
        times.append(time.perf_counter() - t)
    return statistics.median(times)


def opencl_gpu(name, any_device):
    """The OpenCL device to measure, or None."""
    if not em.opencl.is_available():
        return None
    if name:
        return name
    for i in range(em.opencl.device_count()):
        if em.opencl.device_info(f"opencl:{i}")["type"] == "gpu":
            return f"opencl:{i}"
    return "opencl:0" if any_device else None


def rows(dev, quick):
    """[(row, value, unit)] on one device."""
    d = em.Device(dev)
    sync = d.synchronize
    div = 16 if quick else 1
    rng = np.random.default_rng(0)
    out = []
    with d:
        n = (1 << 26) // div
        a = em.asarray(rng.standard_normal(n, dtype=np.float32))
        b = em.asarray(rng.standard_normal(n, dtype=np.float32))
        t = median_s(lambda: a + b, sync)
        out.append((f"add 2^{n.bit_length() - 1} float32", 12 * n / t / 1e9, "GB/s"))
        del a, b
        n = (1 << 28) // div
        x = em.ones(n, dtype=np.float32)
        t = median_s(lambda: em.sum(x), sync)
        out.append((f"sum 2^{n.bit_length() - 1} float32", 4 * n / t / 1e9, "GB/s"))
        del x
        m = 4096 // (4 if quick else 1)
        p = em.asarray(rng.standard_normal((m, m), dtype=np.float32))
        q = em.asarray(rng.standard_normal((m, m), dtype=np.float32))
        t = median_s(lambda: p @ q, sync)
        out.append((f"matmul {m}^2 float32", 2 * m**3 / t / 1e9, "GFLOP/s"))
        del p, q
        n = (1 << 24) // div
        y = em.asarray(rng.standard_normal(n, dtype=np.float32))
        lg = n.bit_length() - 1
        out.append((f"cumsum 2^{lg} float32", 1e3 * median_s(lambda: em.cumsum(y), sync), "ms"))
        out.append((f"sort 2^{lg} float32", 1e3 * median_s(lambda: em.sort(y), sync), "ms"))
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--json", help="write the table here (bench/results/*.json format)")
    ap.add_argument("--quick", action="store_true", help="sizes / 16: a smoke run")
    ap.add_argument("--opencl", help="the OpenCL device (default: the first OpenCL GPU)")
    ap.add_argument("--any-device", action="store_true",
                    help="run on any OpenCL device, CUDA or not (checks the script only)")
    args = ap.parse_args()
    cuda = em.cuda.is_available()
    ocl = opencl_gpu(args.opencl, args.any_device)
    if ocl is None or (not cuda and not args.any_device):
        why = "no OpenCL GPU" if ocl is None else "no CUDA device"
        print(f"bench_opencl: skipped ({why})")
        return 0
    info = em.opencl.device_info(ocl)
    cols = {"opencl": rows(ocl, args.quick)}
    if cuda:
        cols["cuda"] = rows("cuda:0", args.quick)
    names = [r[0] for r in cols["opencl"]]
    table = []
    print(f"{'row':28s} {'opencl':>10s} {'cuda':>10s}  unit   opencl/cuda (> 1: OpenCL ahead)")
    for i, name in enumerate(names):
        o = cols["opencl"][i][1]
        c = cols["cuda"][i][1] if "cuda" in cols else None
        unit = cols["opencl"][i][2]
        ratio = None if c is None else (o / c if unit != "ms" else c / o)
        table.append([name, round(o, 3), None if c is None else round(c, 3), unit,
                      None if ratio is None else round(ratio, 3)])
        print(f"{name:28s} {o:10.3f} {'' if c is None else f'{c:10.3f}':>10s}  {unit:6s} "
              f"{'' if ratio is None else f'{ratio:.3f}'}")
    if args.json:
        try:
            commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True,
                                    text=True, cwd=os.path.dirname(__file__)).stdout.strip()
        except OSError:
            commit = None
        doc = {"title": "The OpenCL backend beside the CUDA backend on one card",
               "command": "python bench/bench_opencl.py" + (" --quick" if args.quick else ""),
               "unit": "GB/s, GFLOP/s or ms, per row",
               "columns": ["row", "opencl", "cuda", "unit", "ratio"],
               "ratio": "OpenCL's speed over CUDA's (> 1: OpenCL faster)",
               "device": f"{ocl}: {info['name']} ({info['platform']}, driver "
                         f"{info['driver_version']})",
               "versions": f"ember {em.__version__}, NumPy {np.__version__}",
               "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
               "commit": commit, "rows": table, "notes": []}
        with open(args.json, "w") as f:
            json.dump(doc, f, indent=1)
            f.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
