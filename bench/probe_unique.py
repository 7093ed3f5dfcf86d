"""unique's parts on a device, side by side with PyTorch and CuPy in one
process (issue 19): the sort, the argsort with and without its sorted
values (em_argsort_keys), the gather those replace, unique's own pass, and
the whole unique rows: the single pass under each EMBER_UNIQUE_TUNE form
("bytes,lbq,pf[,minb]": a thread's bytes of the tile, look-back windows a
round trip, the next tile's loads during the look-back, blocks an SM asked
of the compiler) and the three kernels (EMBER_UNIQUE_PASS=3), the pass alone
between two device events (one call, and 20 back to back).  Median of
--repeat calls after a warm-up, ms.  Also checks the device's answers
against NumPy's first, every tune form too (any mismatch is printed and the
exit status is 1).

    python bench/probe_unique.py [--device cuda:0] [--n 16777216] [--repeat 7]
        [--tunes "64,1,0;64,1,1;128,1,1"]
    python bench/probe_unique.py --ncu --tunes ...   # the pass once a form, for ncu
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


def _env(env):
    """Set env's variables (None: unset); returns the old values."""
    old = {k: os.environ.get(k) for k in env}
    for k, v in env.items():
        if v is None:
            os.environ.pop(k, None)
        else:
            os.environ[k] = v
    return old


def check(dev, tunes):
    """unique's every output against NumPy's, both routes and every tune
    form; the argsort's values byte for byte against a gather."""
    bad = 0
    rng = np.random.default_rng(7)
    # (the tune forms on two dtypes: each form and dtype is three compiles)
    base = [{"EMBER_UNIQUE_PASS": "3"}, {}]
    tuned = [{"EMBER_UNIQUE_TUNE": t} for t in tunes]
    for dt in ("float32", "float64", "float16", "int32", "uint8", "int64", "bool", "complex64"):
        forms = base + tuned if dt in ("float32", "int64") else base
        for n in (0, 1, 5, 1000, 100003, 300007):
            x = (rng.standard_normal(n) * (4 if n < 200000 else 3000)).round().astype(dt)
            if dt.startswith(("float", "complex")) and n > 3:
                x[::7] = np.nan
                x[1::11] = -0.0
                x[2::13] = 0.0
                x[3::17] = -np.nan
            ex = em.asarray(x, device=dev)
            want = [np.unique(x, equal_nan=en) for en in (True, False)]
            wall = np.unique(x, return_index=True, return_inverse=True, return_counts=True)
            for env in forms:
                old = _env(env)
                try:
                    for en, w in zip((True, False), want):
                        got = em.asnumpy(em.unique(ex, equal_nan=en))
                        # (which zero's sign and which NaN stand for a value is the sort's)
                        if got.shape != w.shape or not np.array_equal(got, w, equal_nan=True):
                            bad += 1
                            print(f"WRONG unique {dt} n={n} {env} equal_nan={en}")
                    got = em.unique(ex, return_index=True, return_inverse=True,
                                    return_counts=True)
                    for g, w, what in zip(got, wall, ("values", "index", "inverse", "counts")):
                        g = em.asnumpy(g)
                        if g.shape != w.shape or not np.array_equal(g, w, equal_nan=True):
                            bad += 1
                            print(f"WRONG unique {what} {dt} n={n} {env}")
                finally:
                    _env(old)
            if dt.startswith("complex"):
                continue
            perm, s = _ember.sort(ex.reshape(-1), 0, False, True, True)
            ref = np.take(x, em.asnumpy(perm)) if n else x
            if not np.array_equal(em.asnumpy(perm), np.argsort(x, kind="stable")):
                bad += 1
                print(f"WRONG argsort_keys indices {dt} n={n}")
            if s is not None and em.asnumpy(s).tobytes() != ref.tobytes():
                bad += 1
                print(f"WRONG argsort_keys values {dt} n={n} (bytes)")
    print(f"check: {bad} wrong")
    return bad


def pass_events(srt, repeat, back=20):
    """The pass alone between two events: one call (median), and back to back
    (the mean of back calls)."""
    ts, tb = [], []
    for _ in range(repeat + 1):
        e0, e1 = em.Event(), em.Event()
        e0.record()
        _ember.unique_sorted(srt, None, True, False, False, False)
        e1.record()
        e1.synchronize()
        ts.append(em.get_elapsed_time(e0, e1))
    for _ in range(3):
        e0, e1 = em.Event(), em.Event()
        e0.record()
        for _ in range(back):
            _ember.unique_sorted(srt, None, True, False, False, False)
        e1.record()
        e1.synchronize()
        tb.append(em.get_elapsed_time(e0, e1) / back)
    return statistics.median(ts[1:]), min(tb)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--device", default="cuda:0")
    ap.add_argument("--n", type=int, default=1 << 24)
    ap.add_argument("--repeat", type=int, default=7)
    ap.add_argument("--tunes", default="")
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--no-check", action="store_true")
    ap.add_argument("--ncu", action="store_true")
    o = ap.parse_args()
    tunes = [t for t in o.tunes.split(";") if t]
    dev = em.Device(o.device)
    sync = dev.synchronize
    x = np.random.default_rng(1).standard_normal(o.n).astype(np.float32)
    if o.ncu:  # sorted on the host: the passes are the only kernels
        srt = em.asarray(np.sort(x), device=o.device)
        for t in [""] + tunes:
            old = _env({"EMBER_UNIQUE_TUNE": t})
            print("form", t or "default", flush=True)
            _ember.unique_sorted(srt, None, True, False, False, False)
            sync()
            _env(old)
        return 0
    bad = 0 if o.no_check else check(o.device, tunes)
    a = em.asarray(x, device=o.device)
    rows = []

    def row(name, fn, s=sync, env=None):
        old = _env(env or {})
        try:
            rows.append((name, median_ms(fn, s, o.repeat)))
        finally:
            _env(old)
        print(f"{name:52s} {rows[-1][1]:8.4f} ms", flush=True)

    perm = _ember.sort(a, 0, False, True)
    srt = _ember.sort(a, 0, False, False)
    row("em sort f32", lambda: _ember.sort(a, 0, False, False))
    row("em argsort f32 + values (argsort_keys)", lambda: _ember.sort(a, 0, False, True, True))
    xi = np.random.default_rng(2).integers(0, 1000, o.n).astype(np.int64)
    ai = em.asarray(xi, device=o.device)
    i1, i2 = (em.asarray(np.random.default_rng(k).integers(0, o.n, o.n).astype(np.int32),
                         device=o.device) for k in (3, 4))
    forms = [("PASS=3", {"EMBER_UNIQUE_PASS": "3"}), ("default", {})]
    forms += [(f"TUNE={t}", {"EMBER_UNIQUE_TUNE": t}) for t in tunes]
    for rnd in range(o.rounds):
        for name, env in forms:
            old = _env(env)
            try:
                with dev:
                    one, b2b = pass_events(srt, o.repeat)
            except Exception as e:  # noqa: BLE001
                print("events:", e)
                continue
            finally:
                _env(old)
            rows.append((f"em pass events {name}", one))
            rows.append((f"em pass b2b {name}", b2b))
            print(f"{'em pass events ' + name:52s} {one:8.4f} ms  back to back {b2b:8.4f}",
                  flush=True)
        for name, env in forms:
            row(f"em unique f32 {name}", lambda: em.unique(a), env=env)
            if rnd == 0:
                row(f"em unique inverse+counts f32 {name}",
                    lambda: em.unique(a, return_inverse=True, return_counts=True), env=env)
                row(f"em unique counts i64 {name}", lambda: em.unique(ai, return_counts=True),
                    env=env)
                row(f"em union1d i32 {name}", lambda: em.union1d(i1, i2), env=env)
    row("em intersect1d i32", lambda: em.intersect1d(i1, i2))
    try:
        import torch
        t = torch.as_tensor(x, device="cuda")
        ts = torch.cuda.synchronize
        row("torch sort f32", lambda: torch.sort(t), ts)
        row("torch unique f32", lambda: torch.unique(t), ts)
        row("torch unique inverse+counts f32",
            lambda: torch.unique(t, return_inverse=True, return_counts=True), ts)
        tii = torch.as_tensor(xi, device="cuda")
        row("torch unique counts i64", lambda: torch.unique(tii, return_counts=True), ts)
        tsrt = torch.sort(t)[0]
        row("torch unique_consecutive f32 (its pass)", lambda: torch.unique_consecutive(tsrt), ts)
    except Exception as e:  # noqa: BLE001
        print("torch:", e)
    try:
        import cupy as cp
        c = cp.asarray(x)
        cs = cp.cuda.runtime.deviceSynchronize
        row("cupy sort f32", lambda: cp.sort(c), cs)
        row("cupy unique f32", lambda: cp.unique(c), cs)
        ci = cp.asarray(xi)
        c1, c2 = cp.asarray(em.asnumpy(i1)), cp.asarray(em.asnumpy(i2))
        row("cupy unique counts i64", lambda: cp.unique(ci, return_counts=True), cs)
        row("cupy union1d i32", lambda: cp.union1d(c1, c2), cs)
        row("cupy intersect1d i32", lambda: cp.intersect1d(c1, c2), cs)
        cdst = cp.empty_like(c)
        row("cupy copy f32 (the floor: n in, n out)", lambda: cdst.__setitem__(..., c), cs)
    except Exception as e:  # noqa: BLE001
        print("cupy:", e)
    print("SUMMARY " + "; ".join(f"{k} {v:.4f}" for k, v in rows))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
