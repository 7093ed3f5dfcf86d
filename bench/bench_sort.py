"""Sorting and searching: Ember on the GPU beside CuPy and PyTorch, and on
the CPU beside NumPy.

    python bench/bench_sort.py [--n LOG2] [--quick]

Rows (2**24 elements unless --n says otherwise), for float32, int32, int64:
sort, argsort, unique, searchsorted (2**24 needles into a sorted 2**24
haystack) and isin (2**24 elements against 2**16 values); then sort of
2**26 float32, the rows of a 4096 x 4096 float32 (along the last axis: sort
and argsort) and of 65536 x 256, and sort/argsort of float64, uint8,
float16 and complex64.  On the GPU the column ember-rs is Ember with
EMBER_SORT_ONESWEEP=0: the reduce-then-scan kernels that OpenCL runs.
GPU times are medians of CUDA-synchronised wall time per call (each library
synchronised its own way); CPU times likewise without a device.  The table
gives milliseconds and each other library's time over Ember's (> 1: Ember
is faster).  Libraries that are not importable are left out.
"""
import argparse
import os
import statistics
import sys
import time

import numpy as np

try:
    import ember as em
except ImportError:
    sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "python"))
    import ember as em


def median_ms(fn, sync, repeat=7):
    fn()  # warm-up: compiles and fills pools
    sync()
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        sync()
        times.append((time.perf_counter() - t) * 1e3)
    return statistics.median(times)


def cases(n, quick):
    """(row name, dtype, numpy-data builder) -- data made once on the host."""
    rng = np.random.default_rng(7)
    out = []
    for dt in ("float32", "int32", "int64"):
        if dt == "float32":
            a = rng.standard_normal(n).astype(dt)
        else:
            a = rng.integers(-(2**30), 2**30, n).astype(dt)
        hay = np.sort(a)
        table = a[: 1 << 16].copy()
        out += [(f"sort {dt}", "sort", (a,)), (f"argsort {dt}", "argsort", (a,)),
                (f"unique {dt}", "unique", (a,)),
                (f"searchsorted {dt}", "searchsorted", (hay, a)),
                (f"isin {dt}", "isin", (a, table))]
    if not quick:
        out.append(("sort float32 2^26", "sort", (rng.standard_normal(4 * n).astype("float32"),)))
        rows = rng.standard_normal((4096, 4096)).astype("float32")
        out.append(("sort rows 4096x4096 float32", "sort", (rows,)))
        out.append(("argsort rows 4096x4096 f32", "argsort", (rows,)))
        out.append(("sort rows 65536x256 float32", "sort", (rows.reshape(16384 * 4, 256),)))
        for dt in ("float64", "uint8", "float16", "complex64"):
            x = rng.standard_normal(n)
            x = (x * 40).astype(dt) if dt == "uint8" else x.astype(dt)
            if dt == "complex64":
                x = x + 1j * rng.standard_normal(n).astype("float32")
            out.append((f"sort {dt}", "sort", (x,)))
            out.append((f"argsort {dt}", "argsort", (x,)))
    return out


class _RS:
    """ember with EMBER_SORT_ONESWEEP=0 around each call (run_sort.c reads it per sort)."""
    __name__ = "ember-rs"

    def __getattr__(self, name):
        fn = getattr(em, name)

        def run(*a, **k):
            os.environ["EMBER_SORT_ONESWEEP"] = "0"
            try:
                return fn(*a, **k)
            finally:
                del os.environ["EMBER_SORT_ONESWEEP"]
        return run


def libraries(gpu):
    """name -> (module-like namespace, to_device(np array), synchronise)."""
    libs = {}
    if gpu:
        libs["ember"] = (em, lambda a: em.asarray(a, device="cuda:0"),
                         lambda: em.Device("cuda:0").synchronize())
        # The reduce-then-scan kernels (what OpenCL runs) beside the onesweep ones.
        libs["ember-rs"] = (_RS(), lambda a: em.asarray(a, device="cuda:0"),
                            lambda: em.Device("cuda:0").synchronize())
        try:
            import cupy as cp
            libs["cupy"] = (cp, cp.asarray, cp.cuda.runtime.deviceSynchronize)
        except Exception:
            pass
        try:
            import torch
            if torch.cuda.is_available():
                libs["torch"] = (torch, lambda a: torch.as_tensor(a, device="cuda"),
                                 torch.cuda.synchronize)
        except Exception:
            pass
    else:
        libs["ember"] = (em, lambda a: em.asarray(a, device="cpu"), lambda: None)
        libs["numpy"] = (np, np.asarray, lambda: None)
    return libs


def call(lib, op, args):
    """op on lib's arrays (torch spells some differently)."""
    if lib.__name__ == "torch":
        import torch
        if op == "sort":
            return torch.sort(args[0], dim=-1, stable=True)
        if op == "argsort":
            return torch.argsort(args[0], dim=-1, stable=True)
        if op == "unique":
            return torch.unique(args[0])
        if op == "searchsorted":
            return torch.searchsorted(args[0], args[1])
        if op == "isin":
            return torch.isin(args[0], args[1])
    if op == "argsort":
        return lib.argsort(args[0], axis=-1, kind="stable") if lib is np else lib.argsort(args[0])
    return getattr(lib, op)(*args)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--n", type=int, default=24, help="log2 of the element count")
    p.add_argument("--quick", action="store_true", help="skip the 2^26 and 4096^2 rows")
    o = p.parse_args()
    gpu = em.cuda.is_available()
    libs = libraries(gpu)
    names = list(libs)
    dev = "cuda:0 (" + em.Device("cuda:0").name + ")" if gpu else "cpu"
    print(f"# bench_sort {time.strftime('%Y-%m-%d %H:%M')} on {dev}, n = 2^{o.n}")
    head = f"{'row':<30}" + "".join(f"{n + ' ms':>12}" for n in names)
    head += "".join(f"{n + '/ember':>14}" for n in names[1:])
    print(head)
    for row, op, data in cases(1 << o.n, o.quick):
        ms = {}
        for name in names:
            lib, put, sync = libs[name]
            try:
                args = tuple(put(a) for a in data)
                ms[name] = median_ms(lambda: call(lib, op, args), sync)
            except Exception as e:  # a library without the op: say so, go on
                print(f"  {name} {row}: {type(e).__name__}: {e}", file=sys.stderr)
        line = f"{row:<30}" + "".join(
            f"{ms[n]:>12.3f}" if n in ms else f"{'-':>12}" for n in names)
        e = ms.get("ember")
        line += "".join(
            f"{ms[n] / e:>14.2f}" if e and n in ms else f"{'-':>14}" for n in names[1:])
        print(line, flush=True)


if __name__ == "__main__":
    main()
