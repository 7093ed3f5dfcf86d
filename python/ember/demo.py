"""Ember's demo: the devices found, the seed examples that exist so far, and a
short NumPy-vs-Ember timing table.  Run: python -m ember.demo"""
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


def seed_examples():
    print("Seed examples:")
    x = em.array([1, 2, 3])
    print("  004  x = em.array([1, 2, 3]) ->", x)
    x_cpu = em.asarray(np.array([10, 22, 30]))
    print("  004  em.asarray(np.array([10, 22, 30])).get() ->", x_cpu.get(), type(x_cpu.get()).__name__)
    a, b = em.array([1, 2, 3]), em.array([4, 5, 6])
    print("  003  a + b ->", a + b)
    if hasattr(em, "linalg") and hasattr(em.linalg, "norm"):
        print("  000  em.linalg.norm(em.array([3, 4, 5])) ->", float(em.linalg.norm(em.array([3, 4, 5]))))
    if hasattr(em, "sum") and hasattr(em, "sqrt"):
        xg = em.ones((100, 100, 100))
        r = em.sqrt(em.sum(xg**2, axis=-1))
        print("  004  em.sqrt(em.sum(x**2, axis=-1)) on (100,100,100) ->", r.shape, float(r[0, 0]))
    print()


def timing_table():
    print("NumPy vs Ember on", em.get_device(), "(median seconds, ratio = numpy / ember):")
    rng = np.random.default_rng(0)
    n = 1 << 22
    a, b = rng.random(n, dtype=np.float32), rng.random(n, dtype=np.float32)
    ea, eb = em.asarray(a, device=em.get_device()), em.asarray(b, device=em.get_device())
    rows = [("a + b, 2^22 float32", lambda: a + b, lambda: ea + eb),
            ("a * b + a, 2^22 float32", lambda: a * b + a, lambda: ea * eb + ea)]
    if hasattr(em, "sum"):
        rows.append(("sum, 2^22 float32", lambda: a.sum(), lambda: em.sum(ea)))
    small, esmall = a[:1000], ea[:1000]
    rows.append(("a + b, 1000 float32", lambda: small + small, lambda: esmall + esmall))
    print(f"  {'operation':28s} {'numpy':>11s} {'ember':>11s} {'ratio':>7s}")
    for name, fn_np, fn_em in rows:
        dev = em.get_device()
        tn, te = _median_time(fn_np), _median_time(fn_em, sync=dev.synchronize)
        print(f"  {name:28s} {tn:11.2e} {te:11.2e} {tn / te:7.2f}")


def main():
    print(f"Ember {em.__version__}\n")
    show_devices()
    seed_examples()
    timing_table()


if __name__ == "__main__":
    main()
