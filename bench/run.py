"""Ember against NumPy (and, where present, CuPy and PyTorch on a GPU), side by side.

    python bench/run.py [--quick] [--json FILE] [--filter SUBSTRING] [--repeat N]

Run through `bash tools/dev.sh bench`.  Each case is timed on every library
that can run it: the call is repeated until a run lasts about `--min-time`
seconds, several runs are taken and the median time per call is reported.
A case that a library cannot run (a function Ember does not have yet, a
dtype it has no loop for) is shown as "n/a" with the reason in the notes:
the same script works at every stage of the project.

The CPU table compares NumPy with Ember on the CPU device (ratio > 1: Ember
is faster).  When a CUDA device exists, a GPU table compares Ember on
`em.Device("cuda:0")` with CuPy and PyTorch, each synchronised after its
timed loop.
"""
import argparse
import json
import os
import platform
import statistics
import sys
import time

import numpy as np

try:
    import ember as em
except ImportError:  # run from a checkout without PYTHONPATH
    sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "python"))
    import ember as em


# ---- libraries --------------------------------------------------------------

class Lib:
    """One column: how to move data in, the namespace, and how to synchronise."""

    def __init__(self, name, xp, to_dev, sync=lambda: None, astype=None):
        self.name, self.xp, self.to_dev, self.sync = name, xp, to_dev, sync
        self.astype = astype or (lambda x, dt: x.astype(dt))


def cpu_libs():
    return [Lib("numpy", np, lambda a: a),
            Lib("ember", em, lambda a: em.asarray(a, device=em.Device("cpu")))]


def gpu_libs():
    """Ember on cuda:0, CuPy and PyTorch, each only when importable with a device."""
    libs = []
    try:
        if em.cuda.is_available():
            dev = em.Device("cuda:0")
            libs.append(Lib("ember-cuda", em, lambda a: em.asarray(a, device=dev),
                            sync=dev.synchronize))
    except Exception as e:  # a broken driver is a note, not a crash
        print(f"note: ember cuda unavailable: {e}", file=sys.stderr)
    try:
        import cupy
        if cupy.cuda.runtime.getDeviceCount() > 0:
            libs.append(Lib("cupy", cupy, cupy.asarray,
                            sync=lambda: cupy.cuda.Device().synchronize()))
    except Exception:
        pass
    try:
        import torch
        if torch.cuda.is_available():
            tdt = {np.dtype("float32"): torch.float32, np.dtype("float64"): torch.float64,
                   np.dtype("int32"): torch.int32, np.dtype("int64"): torch.int64}
            libs.append(Lib("torch", torch, lambda a: torch.from_numpy(a).to("cuda"),
                            sync=torch.cuda.synchronize,
                            astype=lambda x, dt: x.to(tdt[np.dtype(dt)])))
    except Exception:
        pass
    return libs


# ---- cases ------------------------------------------------------------------
# A case: (name, size label, make) where make(rng) returns (host arrays, fn);
# fn(lib, *device arrays) runs the operation once.

def _unary(name, f, positive=False):
    def make(n, dt):
        def mk(rng):
            a = rng.random(n).astype(dt) + (0.5 if positive else 0)
            return [a], f
        return mk
    return name, make


def _binary(name, f):
    def make(n, dt):
        def mk(rng):
            return [rng.random(n).astype(dt), rng.random(n).astype(dt)], f
        return mk
    return name, make


def _chain8(L, a, b):
    return ((((a + b) * a - b) * 0.5 + a) * b - a) * 1.5 + b


ELEMENTWISE = [
    _binary("add", lambda L, a, b: a + b),
    _unary("multiply by scalar", lambda L, a: a * 2.5),
    _unary("sqrt", lambda L, a: L.xp.sqrt(a), positive=True),
    _unary("exp", lambda L, a: L.xp.exp(a)),
    _binary("greater", lambda L, a, b: a > b),
    _binary("chain of 8 ops", _chain8),
]


def _layouts(n, dt):
    side = int(round(n ** 0.5))

    def strided(rng):
        return ([rng.random(2 * n).astype(dt), rng.random(2 * n).astype(dt)],
                lambda L, a, b: a[::2] + b[::2])

    def bcast(rng):
        return ([rng.random((side, 1)).astype(dt), rng.random((1, side)).astype(dt)],
                lambda L, a, b: a + b)

    def transposed(rng):
        return [rng.random((side, side)).astype(dt)], lambda L, a: a.T + a

    def reversed_(rng):
        return [rng.random(n).astype(dt)], lambda L, a: a[::-1] * 2.0

    return [("add strided [::2]", strided), (f"add ({side},1)+(1,{side})", bcast),
            (f"a.T + a ({side}x{side})", transposed), ("a[::-1] * 2", reversed_)]


def _reductions(n, dt):
    shape = (1000, n // 1000)
    out = []
    for fname in ("sum", "max", "mean"):
        for axis in (None, 0, -1):
            def mk(rng, fname=fname, axis=axis):
                return ([rng.random(shape).astype(dt)],
                        lambda L, a: getattr(L.xp, fname)(a, axis=axis))
            out.append((f"{fname}(axis={axis}) {shape}", mk))
    return out


def _astype(n):
    out = []
    for src, dst in (("float64", "float32"), ("float32", "float64"), ("float32", "int32"),
                     ("int64", "float64"), ("float32", "float16")):
        def mk(rng, src=src, dst=dst):
            a = (rng.random(n) * 1000).astype(src)
            return [a], lambda L, x: L.astype(x, dst)
        out.append((f"astype {src}->{dst}", mk))
    return out


def _indexing(n, dt):
    def take(rng):
        return ([rng.random(n).astype(dt), rng.integers(0, n, n)], lambda L, a, i: a[i])

    def mask(rng):
        return [rng.random(n).astype(dt), rng.random(n) < 0.5], lambda L, a, m: a[m]

    return [("x[int index array]", take), ("x[bool mask]", mask)]


def _seed(shape):
    def mk(rng):
        return ([rng.random(shape)],
                lambda L, x: L.xp.sqrt(L.xp.sum(x ** 2, axis=-1)))
    return [(f"sqrt(sum(x**2, axis=-1)) {shape}", mk)]


def build_cases(quick):
    """[(group, name, size, dtype, make)]."""
    sizes = [10**6] if quick else [10**6, 10**7]
    cases = []
    for n in sizes:
        for dt in ("float32", "float64"):
            for name, make in ELEMENTWISE:
                cases.append(("elementwise", name, n, dt, make(n, dt)))
            for name, mk in _layouts(n, dt):
                cases.append(("layouts", name, n, dt, mk))
            for name, mk in _reductions(n, dt):
                cases.append(("reductions", name, n, dt, mk))
        for name, mk in _astype(n):
            cases.append(("astype", name, n, "", mk))
        for name, mk in _indexing(n, "float64"):
            cases.append(("indexing", name, n, "float64", mk))
    seed_shape = (20, 100, 1000) if quick else (200, 100, 1000)
    for name, mk in _seed(seed_shape):
        cases.append(("seed", name, int(np.prod(seed_shape)), "float64", mk))
    for dt in ("float32", "float64"):
        cases.append(("small-op overhead", "a + b", 1000, dt,
                      _binary("add", lambda L, a, b: a + b)[1](1000, dt)))
    return cases


# ---- timing -----------------------------------------------------------------

def calibrate(fn, sync, min_time):
    """Calls per run so that one run lasts about min_time."""
    fn()
    sync()
    number = 1
    while True:
        t0 = time.perf_counter()
        for _ in range(number):
            fn()
        sync()
        elapsed = time.perf_counter() - t0
        if elapsed >= min_time or number >= 1 << 20:
            return number
        number = max(number * 2, int(number * min_time / max(elapsed, 1e-9)))


def time_run(fn, sync, number):
    t0 = time.perf_counter()
    for _ in range(number):
        fn()
    sync()
    return (time.perf_counter() - t0) / number


def time_case(libs, host, fn, repeat, min_time):
    """{lib name: (median seconds per call or None, reason or None)}.

    The libraries' runs are interleaved (A B A B ...) so that a change in the
    machine's load during a case affects every column alike."""
    ready, result = [], {}
    for lib in libs:
        try:
            args = [lib.to_dev(h) for h in host]
            call = (lambda lib=lib, args=args: fn(lib, *args))
            number = calibrate(call, lib.sync, min_time)  # the first call shows a missing function
            ready.append((lib, call, number, []))
        except Exception as e:  # noqa: BLE001 - any failure means "cannot run this yet"
            msg = str(e).splitlines()[0][:80] if str(e) else ""
            result[lib.name] = (None, f"{type(e).__name__}: {msg}")
    for _ in range(repeat):
        for lib, call, number, runs in ready:
            runs.append(time_run(call, lib.sync, number))
    for lib, _, _, runs in ready:
        result[lib.name] = (statistics.median(runs), None)
    return result


# ---- output -----------------------------------------------------------------

def fmt_time(s):
    if s is None:
        return "n/a"
    if s < 1e-3:
        return f"{s * 1e6:.2f} µs"
    return f"{s * 1e3:.3f} ms"


def fmt_ratio(num, den):
    return f"{num / den:.2f}" if num is not None and den else "–"


def print_table(title, libs, rows, target):
    """rows: [(group, name, size, dtype, {lib: seconds})]; one ratio column per
    other library: its time over the target's (> 1: the target is faster)."""
    names = [lb.name for lb in libs]
    others = [n for n in names if n != target] if target in names else []
    head = ["group", "case", "size", "dtype"] + names + [f"{o}/{target}" for o in others]
    print(f"\n### {title}\n")
    print("| " + " | ".join(head) + " |")
    print("|" + "|".join("---" for _ in head) + "|")
    for group, name, size, dt, t in rows:
        cells = [group, name, f"{size:.0e}" if size >= 10**5 else str(size), dt]
        cells += [fmt_time(t.get(n)) for n in names]
        cells += [fmt_ratio(t.get(o), t.get(target)) for o in others]
        print("| " + " | ".join(cells) + " |")


def cpu_name():
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown CPU"


def run_table(libs, cases, args, notes):
    rows, records = [], []
    for group, name, size, dt, mk in cases:
        if args.filter and args.filter not in f"{group} {name}":
            continue
        host, fn = mk(np.random.default_rng(0))
        res = time_case(libs, host, fn, args.repeat, args.min_time)
        times = {}
        for lib in libs:
            t, why = res[lib.name]
            times[lib.name] = t
            if why:
                notes.setdefault(f"{lib.name}: {why}", []).append(f"{name} {dt}")
            records.append({"group": group, "case": name, "size": size, "dtype": dt,
                            "lib": lib.name, "seconds": t, "error": why})
        rows.append((group, name, size, dt, times))
        print(f"  {group}: {name} {size} {dt}: " +
              ", ".join(f"{k} {fmt_time(v)}" for k, v in times.items()), file=sys.stderr)
    return rows, records


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--quick", action="store_true", help="1e6 elements only, fewer runs")
    p.add_argument("--json", metavar="FILE", help="also write every timing as JSON")
    p.add_argument("--filter", default="", help="only cases whose 'group name' contains this")
    p.add_argument("--repeat", type=int, default=None, help="runs per case (median taken)")
    p.add_argument("--min-time", type=float, default=None, help="seconds per run")
    p.add_argument("--no-gpu", action="store_true", help="skip the GPU table")
    args = p.parse_args(argv)
    if args.repeat is None:
        args.repeat = 5 if args.quick else 9
    if args.min_time is None:
        args.min_time = 0.02 if args.quick else 0.05

    cases = build_cases(args.quick)
    notes = {}
    print(f"# Ember benchmarks\n\n{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}; "
          f"{cpu_name()}, {os.cpu_count()} cores; NumPy {np.__version__}, Ember {em.__version__}, "
          f"Python {platform.python_version()}; median of {args.repeat} runs.")
    libs = cpu_libs()
    rows, records = run_table(libs, cases, args, notes)
    print_table("CPU (ratio > 1: Ember is faster)", libs, rows, "ember")
    glibs = [] if args.no_gpu else gpu_libs()
    if glibs:
        grows, grec = run_table(glibs, cases, args, notes)
        print_table("GPU (ratio > 1: Ember is faster)", glibs, grows, "ember-cuda")
        records += grec
    if notes:
        print("\nNot run (n/a):")
        for why, where in notes.items():
            print(f"- {why} ({len(where)} cases, e.g. {where[0]})")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"date": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
                       "cpu": cpu_name(), "cores": os.cpu_count(), "numpy": np.__version__,
                       "records": records}, f, indent=1)


if __name__ == "__main__":
    main()
