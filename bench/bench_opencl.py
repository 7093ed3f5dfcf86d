"""The OpenCL backend beside the CUDA backend and PyOpenCL on the same card.

    python bench/bench_opencl.py [--json FILE] [--quick] [--opencl opencl:N] [--pocl]

Rows: `a + b` on 2^26 float32 (GB/s: 12 bytes an element), `sum` of 2^28
float32 (GB/s: 4 bytes an element), seed 004's `sqrt(sum(x**2, axis=-1))` on
(1000, 100, 1000) float32 (ms; one fused kernel in Ember), a 4096^2 float32
matmul (GFLOP/s: 2 n^3), `cumsum` and `sort` of 2^24 float32 (ms).  Each
number is the median of 7 warm calls (a warm-up first: compiles and the
pools), each synchronised.  --quick divides every size by 16 (a smoke run).

Columns: Ember on the OpenCL device, Ember on cuda:0, and PyOpenCL's
`pyopencl.array` on the same OpenCL device (its own queue on Ember's context:
`a + b`, `pyopencl.array.sum`, `pyopencl.array.cumsum`,
`pyopencl.algorithm.RadixSort`; PyOpenCL has no axis reduction or matmul, so
those cells are empty).  PyOpenCL's column is empty where it is not installed.

It needs a CUDA device and an OpenCL GPU (the first one whose type is "gpu",
or the one --opencl names; NVIDIA's OpenCL library registered with the ICD
loader: docs/opencl.md); without them it says why and exits 0 with nothing
written.  --pocl measures the first OpenCL CPU device (PoCL) beside Ember's
own CPU backend and PyOpenCL on that device instead (the issue's CPU rows).
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


def opencl_device(name, kind):
    """The OpenCL device to measure (the first of that type, or name), or None."""
    if not em.opencl.is_available():
        return None
    if name:
        return name
    for i in range(em.opencl.device_count()):
        if em.opencl.device_info(f"opencl:{i}")["type"] == kind:
            return f"opencl:{i}"
    return None


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
        shape = (1000 // div, 100, 1000)
        z = em.asarray(rng.random(shape, dtype=np.float32))
        t = median_s(lambda: em.sqrt(em.sum(z**2, axis=-1)), sync)
        out.append(("seed004 (1000,100,1000) float32" if not quick else "seed004 float32",
                    1e3 * t, "ms"))
        del z
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


def pyopencl_rows(dev, quick, names):
    """PyOpenCL's pyopencl.array on the same device, one value (or None) per row of names."""
    try:
        import pyopencl as cl
        import pyopencl.array as cla
    except ImportError as e:
        print(f"  pyopencl: {e}", file=sys.stderr)
        return [None] * len(names)
    ctx = em.opencl.pyopencl_context(dev)
    q = cl.CommandQueue(ctx)
    div = 16 if quick else 1
    rng = np.random.default_rng(0)
    out = {}

    def guard(key, f):
        try:
            out[key] = f()
        except Exception as e:  # a facility PyOpenCL lacks or that fails: an empty cell
            print(f"  pyopencl {key}: {type(e).__name__}: {str(e)[:160]}", file=sys.stderr)

    def add():
        n = (1 << 26) // div
        a = cla.to_device(q, rng.standard_normal(n, dtype=np.float32))
        b = cla.to_device(q, rng.standard_normal(n, dtype=np.float32))
        return 12 * n / median_s(lambda: a + b, q.finish) / 1e9

    def total():
        n = (1 << 28) // div
        x = cla.to_device(q, np.ones(n, np.float32))
        return 4 * n / median_s(lambda: cla.sum(x), q.finish) / 1e9

    def cumsum():
        y = cla.to_device(q, rng.standard_normal((1 << 24) // div, dtype=np.float32))
        return 1e3 * median_s(lambda: cla.cumsum(y), q.finish)

    def sort():
        from pyopencl.algorithm import RadixSort
        n = (1 << 24) // div
        # RadixSort sorts unsigned keys by bits: the float32 bit patterns made ordered,
        # as every radix sort of floats does (the transform is not timed).
        k = rng.standard_normal(n, dtype=np.float32).view(np.uint32)
        k = np.where(k >> 31, ~k, k | np.uint32(1 << 31)).astype(np.uint32)
        y = cla.to_device(q, k)
        rs = RadixSort(ctx, "unsigned int *ary", key_expr="ary[i]", sort_arg_names=["ary"],
                       key_dtype=np.uint32)
        return 1e3 * median_s(lambda: rs(y, key_bits=32, queue=q), q.finish)

    guard("add", add)
    guard("sum", total)
    guard("cumsum", cumsum)
    guard("sort", sort)
    return [next((v for k, v in out.items() if name.startswith(k)), None) for name in names]


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--json", help="write the table here (bench/results/*.json format)")
    ap.add_argument("--quick", action="store_true", help="sizes / 16: a smoke run")
    ap.add_argument("--opencl", help="the OpenCL device (default: the first OpenCL GPU)")
    ap.add_argument("--pocl", action="store_true",
                    help="the first OpenCL CPU device beside Ember's CPU backend")
    args = ap.parse_args()
    ocl = opencl_device(args.opencl, "cpu" if args.pocl else "gpu")
    other = "cpu" if args.pocl else "cuda:0"
    if ocl is None or (not args.pocl and not em.cuda.is_available()):
        why = "no OpenCL device of that type" if ocl is None else "no CUDA device"
        print(f"bench_opencl: skipped ({why})")
        return 0
    info = em.opencl.device_info(ocl)
    mine = rows(ocl, args.quick)
    theirs = rows(other, args.quick)
    names = [r[0] for r in mine]
    pycl = pyopencl_rows(ocl, args.quick, names)
    oname = "cpu" if args.pocl else "cuda"
    table = []
    print(f"# bench_opencl on {ocl} ({info['name']}, {info['platform']}) beside {other}")
    print(f"{'row':34s} {'opencl':>10s} {oname:>10s} {'pyopencl':>10s}  unit     "
          f"opencl/{oname}  opencl/pyopencl (speed ratios, > 1: Ember's OpenCL ahead)")
    for i, name in enumerate(names):
        o, c, p, unit = mine[i][1], theirs[i][1], pycl[i], mine[i][2]

        def speed(x, y):
            return None if x is None or y is None else (x / y if unit != "ms" else y / x)

        r1, r2 = speed(o, c), speed(o, p)
        table.append([name, round(o, 3), round(c, 3), None if p is None else round(p, 3), unit,
                      None if r1 is None else round(r1, 3), None if r2 is None else round(r2, 3)])
        cell = lambda v, f="10.3f": f"{v:{f}}" if v is not None else f"{'-':>10s}"  # noqa: E731
        print(f"{name:34s} {cell(o)} {cell(c)} {cell(p)}  {unit:8s} {cell(r1, '10.2f')} "
              f"{cell(r2, '10.2f')}")
    if args.json:
        try:
            commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True,
                                    text=True, cwd=os.path.dirname(__file__)).stdout.strip()
        except OSError:
            commit = None
        doc = {"title": f"The OpenCL backend beside Ember's {oname} backend and PyOpenCL",
               "command": "python bench/bench_opencl.py" + (" --quick" if args.quick else "")
               + (" --pocl" if args.pocl else ""),
               "unit": "per row",
               "columns": ["row", "opencl", oname, "pyopencl", "unit", f"opencl/{oname}",
                           "opencl/pyopencl"],
               "device": f"{ocl}: {info['name']} ({info['platform']}, driver "
                         f"{info['driver_version']})",
               "versions": f"ember {em.__version__}, NumPy {np.__version__}",
               "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
               "commit": commit, "rows": table,
               "notes": ["The last two columns are speed ratios (> 1: Ember's OpenCL faster)."]}
        with open(args.json, "w") as f:
            json.dump(doc, f, indent=1)
            f.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
