"""The pieces of the sort-based rows of issue 19 on one device (2^24 unless
--n): unique f32 (the sort, then unique's pass), unique's inverse and its
parts (the argsort, the gather, the pass with the scatter; a search of the
distinct values, the route session 15 removed), setxor1d and its kernels,
isin's search, the radix select of a median and partition's compaction.  Times are medians of
--repeat synchronised calls, the routes interleaved round by round so that
clock and memory state fall on each alike.

    python bench/probe_sortuse.py [--device cuda:0] [--n 24] [--repeat 9]
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

K = em._ember


def _force(r):
    """Results may be lazy (fusion): evaluate them inside the timing."""
    for x in (r if isinstance(r, (tuple, list)) else (r,)):
        if isinstance(x, em.ndarray):
            em.eval(x)
    return r


def main(argv=None):
    p = argparse.ArgumentParser()
    p.add_argument("--device", default="cuda:0")
    p.add_argument("--n", type=int, default=24)
    p.add_argument("--repeat", type=int, default=9)
    o = p.parse_args(argv)
    dev, n = o.device, 1 << o.n
    D = em.Device(dev)
    r = np.random.default_rng(7)
    f32 = em.asarray(r.standard_normal(n).astype(np.float32), device=dev)
    i32a = em.asarray(r.integers(-(2**30), 2**30, n).astype(np.int32), device=dev)
    i32b = em.asarray(r.integers(-(2**30), 2**30, n).astype(np.int32), device=dev)
    t16 = em.asarray(r.integers(-(2**30), 2**30, 1 << 16).astype(np.int32), device=dev)
    sf = K.sort(f32, 0, False, False)
    perm = K.sort(f32, 0, False, True)
    sp = em.take(f32, perm)
    v = K.unique_sorted(sf, None, True, False, False, False)[0]
    sa, sb = K.sort(i32a, 0, False, False), K.sort(i32b, 0, False, False)
    ua = K.unique_sorted(sa, None, True, False, False, False)[0]
    ub = K.unique_sorted(sb, None, True, False, False, False)[0]
    mg = K.setop_sorted(ua, ub, 2)
    st16 = K.sort(t16, None, False, False)

    cases = [
        ("sort f32", lambda: K.sort(f32, 0, False, False)),
        ("argsort f32", lambda: K.sort(f32, 0, False, True)),
        ("unique f32", lambda: em.unique(f32)),
        ("  unique_sorted(s) alone", lambda: K.unique_sorted(sf, None, True, False, False, False)),
        ("  unique_sorted(s, counts)", lambda: K.unique_sorted(sf, None, True, False, False, True)),
        ("unique inv+counts", lambda: em.unique(f32, return_inverse=True, return_counts=True)),
        ("  take(f32, perm)", lambda: em.take(f32, perm)),
        ("  unique_sorted(perm, inv, counts)",
         lambda: K.unique_sorted(sp, perm, True, False, True, True)),
        ("  searchsorted(v, f32)", lambda: K.searchsorted(v, f32, False, None)),
        ("setxor1d i32", lambda: em.setxor1d(i32a, i32b)),
        ("  sort i32", lambda: K.sort(i32a, 0, False, False)),
        ("  unique_sorted(sa)", lambda: K.unique_sorted(sa, None, True, False, False, False)),
        ("  setop MERGE(ua, ub)", lambda: K.setop_sorted(ua, ub, 2)),
        ("  setop SINGLE(m)", lambda: K.setop_sorted(mg, mg, 5)),
        ("isin i32 (2^16 values)", lambda: em.isin(i32a, t16)),
        ("  sort 2^16", lambda: K.sort(t16, None, False, False)),
        ("  setop ISIN", lambda: K.setop_sorted(i32a, st16, 3)),
        ("median i32", lambda: em.median(i32a)),
        ("median f32", lambda: em.median(f32)),
        ("  select_kth i32 [n/2-1, n/2]", lambda: K.select_kth(i32a, [n // 2 - 1, n // 2])),
        ("  select_kth i32 [n/2]", lambda: K.select_kth(i32a, [n // 2])),
        ("  select_kth f32 [n/2-1, n/2]", lambda: K.select_kth(f32, [n // 2 - 1, n // 2])),
        ("partition f32 (k = n/2)", lambda: em.partition(f32, n // 2)),
        ("  select_kth f32 [n/2]", lambda: K.select_kth(f32, [n // 2])),
    ]
    for _, f in cases:  # warm: compiles, fills the pools
        _force(f())
    D.synchronize()
    times = {name: [] for name, _ in cases}
    for _ in range(o.repeat):
        for name, f in cases:
            D.synchronize()
            t = time.perf_counter()
            _force(f())
            D.synchronize()
            times[name].append((time.perf_counter() - t) * 1e3)
    print(f"# probe_sortuse on {dev} ({D.name}), n = 2^{o.n}, median of {o.repeat}, interleaved")
    for name, _ in cases:
        print(f"{name:<40}{statistics.median(times[name]):>10.3f} ms")


if __name__ == "__main__":
    main()
