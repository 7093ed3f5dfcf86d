"""Ember's demo: the devices found, every seed example (examples/seed*.py) run
on the best device found, and a short NumPy-vs-Ember timing table.
Run: python -m ember.demo [--quick] (or bash tools/dev.sh demo).  --quick
runs the examples and a shorter table (fewer runs per timing)."""
import os
import sys
import time

import numpy as np

import ember as em


def _median_time(fn, repeat=7, number=None, sync=lambda: None):
    """Median seconds per call of fn; sync() once per timed batch (device work is async)."""
    fn()
    sync()
    if number is None:
        t0 = time.perf_counter()
        fn()
        number = max(1, int(0.02 / max(time.perf_counter() - t0, 1e-7)))
    ts = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        for _ in range(number):
            fn()
        sync()
        ts.append((time.perf_counter() - t0) / number)
    return sorted(ts)[len(ts) // 2]


def show_devices():
    print("Devices:")
    for d in em.devices():
        a = d.attributes
        print(f"  {str(d):8s} {a['name']}  ({a['multiprocessor_count']} workers, "
              f"{a['total_memory'] / 2**30:.1f} GiB)")
    print(f"Default device: {em.get_device()}\n")


def _examples_dir(here=None):
    """The seed articles' code: ember/examples/ in an installed package (the
    wheel ships examples/seed*.py there), else examples/ of the source
    checkout this package lives in; None if neither exists.  here: the
    package's directory (default: this file's)."""
    # realpath: the sanitizer build's package (tools/dev.sh asan) links to these files
    here = here or os.path.dirname(os.path.realpath(__file__))
    for d in (os.path.join(here, "examples"), os.path.join(here, "..", "..", "examples")):
        if os.path.isdir(d) and any(f.startswith("seed") for f in os.listdir(d)):
            return os.path.normpath(d)
    return None


def seed_examples():
    """Run every seed example (examples/seed*.py) on the default device, each
    in its own process as a user would, and show its output."""
    import subprocess
    d = _examples_dir()
    if d is None:
        print("Seed examples: none found (neither ember/examples/ nor a checkout's examples/)\n")
        return
    # This package first, so the examples import the same Ember as the demo.
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(
        [os.path.dirname(os.path.dirname(os.path.abspath(__file__)))] + sys.path[1:]))
    print(f"Seed examples from {d}:")
    for name in sorted(f for f in os.listdir(d) if f.startswith("seed") and f.endswith(".py")):
        print(f"--- examples/{name}", flush=True)
        r = subprocess.run([sys.executable, os.path.join(d, name)], capture_output=True, text=True,
                           env=env)
        lines = (r.stdout + (r.stderr if r.returncode else "")).rstrip().splitlines()
        shown = lines if len(lines) <= 14 else lines[:6] + [f"... ({len(lines) - 12} lines)"] + lines[-6:]
        for line in shown:
            print("   ", line)
        if r.returncode:
            print(f"    (exit status {r.returncode})")
    print()


def timing_table(repeat=7):
    dev = em.get_device()
    print(f"NumPy vs Ember on {dev}: seconds per call, each the median of {repeat} runs after a\n"
          "warm-up call (warm against warm); Ember's inputs are em.asarray of NumPy's arrays\n"
          "(on the CPU zero-copy wraps) and its device is synchronised before each clock stop.\n"
          "ratio = NumPy's time / Ember's (> 1: Ember is faster).")
    rng = np.random.default_rng(0)
    n = 1 << 22
    a, b = rng.random(n, dtype=np.float32), rng.random(n, dtype=np.float32)
    ea, eb = em.asarray(a, device=dev), em.asarray(b, device=dev)
    rows = [("a + b, 2^22 float32", lambda: a + b, lambda: ea + eb),
            ("a * b + a, 2^22 float32", lambda: a * b + a, lambda: ea * eb + ea)]
    if hasattr(em, "sum"):
        rows.append(("sum, 2^22 float32", lambda: a.sum(), lambda: em.sum(ea)))
    small, esmall = a[:1000], ea[:1000]
    rows.append(("a + b, 1000 float32", lambda: small + small, lambda: esmall + esmall))
    print(f"  {'operation':28s} {'numpy':>11s} {'ember':>11s} {'ratio':>7s}")
    for name, fn_np, fn_em in rows:
        tn = _median_time(fn_np, repeat=repeat)
        te = _median_time(fn_em, repeat=repeat, sync=dev.synchronize)
        print(f"  {name:28s} {tn:11.2e} {te:11.2e} {tn / te:7.2f}")


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    quick = "--quick" in argv
    unknown = [a for a in argv if a != "--quick"]
    if unknown:
        sys.exit(f"usage: python -m ember.demo [--quick] (unknown: {' '.join(unknown)})")
    print(f"Ember {em.__version__} ({os.path.dirname(os.path.abspath(__file__))})\n")
    show_devices()
    seed_examples()
    timing_table(repeat=3 if quick else 7)


if __name__ == "__main__":
    main()
