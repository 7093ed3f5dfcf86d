"""unique's parts on a device, side by side with PyTorch and CuPy in one
process (issue 19): the sort, the argsort with and without its sorted
values (em_argsort_keys), the gather those replace, unique's own pass, and
the whole unique rows under the A/B switches (EMBER_SORT_VAR,
EMBER_UNIQUE_PASS=3: the three-kernel pass against the single one, "1m4":
the single one with EMBER_UNIQUE_MINB=4), and
the pass alone between two device events.  Median of --repeat calls after
a warm-up, ms.  Also checks
the device's answers against NumPy's first (any mismatch is printed and the
exit status is 1).

    python bench/probe_unique.py [--device cuda:0] [--n 16777216] [--repeat 7]
"""
import argparse
import os
import statistics
import sys
import time

import numpy as np

import ember as em
from ember import _ember


def median_ms(fn, sync, repeat):
    fn()
    sync()
    ts = []
    for _ in range(repeat):
        t = time.perf_counter()
        r = fn()
        for x in r if isinstance(r, tuple) else (r,):
            if isinstance(x, em.ndarray):
                em.eval(x)
        sync()
        ts.append((time.perf_counter() - t) * 1e3)
    return statistics.median(ts)


def check(dev):
    """unique's every output against NumPy's, both routes; the argsort's
    values byte for byte against a gather."""
    bad = 0
    rng = np.random.default_rng(7)
    for dt in ("float32", "float64", "float16", "int32", "uint8", "int64", "bool"):
        for n in (0, 1, 5, 1000, 100003):
            x = (rng.standard_normal(n) * 4).round().astype(dt)
            if dt.startswith("float") and n > 3:
                x[::7] = np.nan
                x[1::11] = -0.0
                x[2::13] = 0.0
                x[3::17] = -np.nan
            ex = em.asarray(x, device=dev)
            for ps in ("1", "3"):
                os.environ["EMBER_UNIQUE_PASS"] = ps
                for en in (True, False):
                    got = em.asnumpy(em.unique(ex, equal_nan=en))
                    want = np.unique(x, equal_nan=en)
                    # (which zero's sign and which NaN stand for a value is the sort's)
                    if got.shape != want.shape or not np.array_equal(got, want, equal_nan=True):
                        bad += 1
                        print(f"WRONG unique {dt} n={n} pass={ps} equal_nan={en}")
            os.environ.pop("EMBER_UNIQUE_PASS", None)
            got = em.unique(ex, return_index=True, return_inverse=True, return_counts=True)
            want = np.unique(x, return_index=True, return_inverse=True, return_counts=True)
            for g, w, what in zip(got, want, ("values", "index", "inverse", "counts")):
                g = em.asnumpy(g)
                if g.shape != w.shape or not np.array_equal(g, w, equal_nan=True):
                    bad += 1
                    print(f"WRONG unique {what} {dt} n={n}")
            perm, s = _ember.sort(ex.reshape(-1), 0, False, True, True)
            ref = np.take(x, em.asnumpy(perm)) if n else x
            if not np.array_equal(em.asnumpy(perm), np.argsort(x, kind="stable")):
                bad += 1
                print(f"WRONG argsort_keys indices {dt} n={n}")
            if s is not None and em.asnumpy(s).tobytes() != ref.tobytes():
                bad += 1
                print(f"WRONG argsort_keys values {dt} n={n} (bytes)")
            if s is None and dev.startswith("cuda") and n:
                print(f"note: no values from the argsort of {dt} n={n}")
    print(f"check: {bad} wrong")
    return bad


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--device", default="cuda:0")
    ap.add_argument("--n", type=int, default=1 << 24)
    ap.add_argument("--repeat", type=int, default=7)
    ap.add_argument("--no-check", action="store_true")
    o = ap.parse_args()
    bad = 0 if o.no_check else check(o.device)
    dev = em.Device(o.device)
    sync = dev.synchronize
    x = np.random.default_rng(1).standard_normal(o.n).astype(np.float32)
    a = em.asarray(x, device=o.device)
    rows = []

    def row(name, fn, s=sync, env=None):
        old = {k: os.environ.get(k) for k in (env or {})}
        os.environ.update(env or {})
        try:
            rows.append((name, median_ms(fn, s, o.repeat)))
        finally:
            for k, v in old.items():
                if v is None:
                    os.environ.pop(k, None)
                else:
                    os.environ[k] = v
        print(f"{name:48s} {rows[-1][1]:8.3f} ms", flush=True)

    perm = _ember.sort(a, 0, False, True)
    srt = _ember.sort(a, 0, False, False)
    for var in ("55", "3"):
        row(f"em sort f32 (SORT_VAR={var})", lambda: _ember.sort(a, 0, False, False),
            env={"EMBER_SORT_VAR": var})
    row("em argsort f32", lambda: _ember.sort(a, 0, False, True))
    row("em argsort f32 + values (argsort_keys)", lambda: _ember.sort(a, 0, False, True, True))
    row("em take(a, perm)", lambda: em.take(a, perm))
    row("em unique pass: values", lambda: _ember.unique_sorted(srt, None, True, False, False,
                                                                  False))
    row("em unique pass: inverse+counts",
        lambda: _ember.unique_sorted(srt, perm, True, False, True, True))
    row("em unique pass: inverse", lambda: _ember.unique_sorted(srt, perm, True, False, True,
                                                                   False))
    xi = np.random.default_rng(2).integers(0, 1000, o.n).astype(np.int64)
    ai = em.asarray(xi, device=o.device)
    i1, i2 = (em.asarray(np.random.default_rng(k).integers(0, o.n, o.n).astype(np.int32),
                         device=o.device) for k in (3, 4))
    try:
        with dev:
            for ps in ("3", "1", "1m4", "3", "1", "1m4"):
                os.environ["EMBER_UNIQUE_PASS"] = ps[0]
                os.environ["EMBER_UNIQUE_MINB"] = ps[3:] or "0"
                ts = []
                for _ in range(o.repeat + 1):
                    e0, e1 = em.Event(), em.Event()
                    e0.record()
                    _ember.unique_sorted(srt, None, True, False, False, False)
                    e1.record()
                    e1.synchronize()
                    ts.append(em.get_elapsed_time(e0, e1))
                rows.append((f"em unique pass events (PASS={ps})", statistics.median(ts[1:])))
                print(f"{rows[-1][0]:48s} {rows[-1][1]:8.4f} ms", flush=True)
    except Exception as e:  # noqa: BLE001
        print("events:", e)
    os.environ.pop("EMBER_UNIQUE_PASS", None)
    os.environ.pop("EMBER_UNIQUE_MINB", None)
    for ps in ("3", "1", "1m4", "3", "1", "1m4"):
        env = {"EMBER_UNIQUE_PASS": ps[0], "EMBER_UNIQUE_MINB": ps[3:] or "0"}
        row(f"em unique pass: values (PASS={ps})",
            lambda: _ember.unique_sorted(srt, None, True, False, False, False), env=env)
        row(f"em unique f32 (PASS={ps})", lambda: em.unique(a), env=env)
        row(f"em unique inverse+counts f32 (PASS={ps})",
            lambda: em.unique(a, return_inverse=True, return_counts=True), env=env)
        row(f"em unique counts i64 (PASS={ps})", lambda: em.unique(ai, return_counts=True),
            env=env)
        row(f"em union1d i32 (PASS={ps})", lambda: em.union1d(i1, i2), env=env)
        row(f"em intersect1d i32 (PASS={ps})", lambda: em.intersect1d(i1, i2), env=env)
    row("em unique f32", lambda: em.unique(a))
    row("em unique inverse+counts f32",
        lambda: em.unique(a, return_inverse=True, return_counts=True))
    try:
        import torch
        t = torch.as_tensor(x, device="cuda")
        ts = torch.cuda.synchronize
        row("torch sort f32", lambda: torch.sort(t, stable=True), ts)
        row("torch unique f32", lambda: torch.unique(t), ts)
        row("torch unique inverse+counts f32",
            lambda: torch.unique(t, return_inverse=True, return_counts=True), ts)
        ti = torch.as_tensor(em.asnumpy(perm), device="cuda")
        tv = torch.arange(o.n, device="cuda")
        tii = torch.as_tensor(xi, device="cuda")
        row("torch unique counts i64", lambda: torch.unique(tii, return_counts=True), ts)
        row("torch scatter int64 (inverse's)", lambda: torch.empty_like(tv).scatter_(0, ti, tv),
            ts)
    except Exception as e:  # noqa: BLE001
        print("torch:", e)
    try:
        import cupy as cp
        c = cp.asarray(x)
        cs = cp.cuda.runtime.deviceSynchronize
        row("cupy sort f32", lambda: cp.sort(c), cs)
        row("cupy unique f32", lambda: cp.unique(c), cs)
        row("cupy unique inverse+counts f32",
            lambda: cp.unique(c, return_inverse=True, return_counts=True), cs)
        ci = cp.asarray(xi)
        c1, c2 = cp.asarray(em.asnumpy(i1)), cp.asarray(em.asnumpy(i2))
        row("cupy unique counts i64", lambda: cp.unique(ci, return_counts=True), cs)
        row("cupy union1d i32", lambda: cp.union1d(c1, c2), cs)
        row("cupy intersect1d i32", lambda: cp.intersect1d(c1, c2), cs)
    except Exception as e:  # noqa: BLE001
        print("cupy:", e)
    print("SUMMARY " + "; ".join(f"{k} {v:.3f}" for k, v in rows))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
