"""Host<->device copies on cuda:0: Ember's staged pageable copies
(src/backend/cuda/staging.c) against the driver's own, by size and by
chunk size, then gpu_bench's four copy rows next to CuPy and PyTorch.

  1. correctness: round trips of sizes around the threshold and chunk
     boundaries, every byte compared, and which path each copy took;
  2. GB/s by size, staged (the default) and the driver's copy (staging off);
  3. GB/s by chunk size, at 16 and 256 MiB;
  4. gpu_bench's rows (2**26 float32, its best-of-10 rule): h2d/d2h from
     and to pageable and pinned memory, Ember, CuPy, PyTorch.

Pageable d2h reads into an existing array (get(out=...)), as gpu_bench
does: a fresh array adds its page faults to every library's number.
  PYTHONPATH=python python3 tools/probe_copies.py
"""
import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from gpu_bench import best  # noqa: E402  (the same timing rule)

import ember as em  # noqa: E402

MIB = 1 << 20
OFF = 2**64 - 1  # _cuda_copy_tune's "never stage"
dev = em.Device("cuda:0")
sync = dev.synchronize
tune, stats = em._ember._cuda_copy_tune, em._ember._cuda_copy_stats


def check():
    rng = np.random.default_rng(0)
    bad = []
    s0 = stats()
    for n in (4 * MIB - 1, 4 * MIB, 4 * MIB + 1, 8 * MIB + 1, 32 * MIB, 33 * MIB + 7, 256 * MIB + 3):
        a, b = rng.integers(0, 256, n, np.uint8), rng.integers(0, 256, n, np.uint8)
        da, db = em.asarray(a, device=dev), em.asarray(b, device=dev)
        out = np.empty_like(a)
        da.get(out=out)
        if not (np.array_equal(out, a) and np.array_equal(db.get(), b)):
            bad.append(n)
    s1 = stats()
    print(f"round trips: {'all bytes right' if not bad else f'WRONG BYTES at sizes {bad}'}; "
          f"staged {s1['staged'] - s0['staged']} of 24 (expect 24), driver-known {s1['known'] - s0['known']}, "
          f"unstaged {s1['unstaged'] - s0['unstaged']}")
    p = em.cuda.pinned_empty(64 * MIB, np.uint8)
    p[...] = 3
    d = em.asarray(p, device=dev)
    d.get(out=p)
    s2 = stats()
    print(f"pinned 64 MiB: direct copies {s2['known'] - s1['known']} (expect 2), staged {s2['staged'] - s1['staged']}")


def rates(n, chunk=0, min_bytes=0):
    """(h2d, d2h) GB/s for n pageable bytes with the given tuning."""
    tune(min_bytes, chunk)
    host = np.ones(n, np.uint8)
    d = em.asarray(host, device=dev)
    h2d = n / best(lambda: em.asarray(host, device=dev), sync) / 1e9
    d2h = n / best(lambda: d.get(out=host), sync) / 1e9
    tune(0, 0)
    return h2d, d2h


def by_size():
    print("\nGB/s by size (pageable), staged vs the driver's copy; chunk = default")
    print(f"{'MiB':>6s} {'h2d staged':>11s} {'h2d driver':>11s} {'d2h staged':>11s} {'d2h driver':>11s}")
    for mib in (1, 2, 3, 4, 6, 8, 16, 64, 256):
        n = mib * MIB
        hs, ds = rates(n, min_bytes=MIB)  # staged even below the threshold, to see where it pays
        hd, dd = rates(n, min_bytes=OFF)
        print(f"{mib:6d} {hs:11.1f} {hd:11.1f} {ds:11.1f} {dd:11.1f}")


def by_chunk():
    print("\nGB/s by chunk size (pageable, staged)")
    print(f"{'MiB':>6s} {'chunk MiB':>10s} {'h2d':>8s} {'d2h':>8s}")
    for mib in (16, 256):
        for c in (1, 2, 4, 8):
            h, d = rates(mib * MIB, chunk=c * MIB)
            print(f"{mib:6d} {c:10d} {h:8.1f} {d:8.1f}")
        h, d = rates(mib * MIB)
        print(f"{mib:6d} {'default':>10s} {h:8.1f} {d:8.1f}")


def libs():
    """gpu_bench's copy rows: 2**26 float32, best of 10."""
    n = 2**26

    def rows(asarray, get, pinned, sync_):
        out = {}
        for kind in ("pageable", "pinned"):
            try:
                host = pinned(n) if kind == "pinned" else np.empty(n, np.float32)
                host[...] = 1
                out[f"h2d {kind}"] = 4 * n / best(lambda: asarray(host), sync_) / 1e9
                d = asarray(host)
                out[f"d2h {kind}"] = 4 * n / best(lambda: get(d, host), sync_) / 1e9
            except Exception as e:  # noqa: BLE001 - report and go on
                out[f"h2d {kind}"] = f"{type(e).__name__}: {str(e)[:60]}"
        return out

    table = {"ember": rows(lambda x: em.asarray(x, device=dev), lambda d, o: d.get(out=o),
                           lambda k: em.cuda.pinned_empty(k, np.float32), sync)}
    try:
        import cupy as cp
        import cupyx
        table["cupy"] = rows(cp.asarray, lambda d, o: d.get(out=o), lambda k: cupyx.empty_pinned(k, np.float32),
                             cp.cuda.Device().synchronize)
    except Exception as e:  # noqa: BLE001
        table["cupy"] = {"error": f"{type(e).__name__}: {str(e)[:60]}"}
    try:
        import torch as th

        def tget(d, o):
            th.from_numpy(o).copy_(d)
            return o
        table["torch"] = rows(lambda x: th.from_numpy(x).cuda(), tget,
                              lambda k: th.empty(k, dtype=th.float32).pin_memory().numpy(), th.cuda.synchronize)
    except Exception as e:  # noqa: BLE001
        table["torch"] = {"error": f"{type(e).__name__}: {str(e)[:60]}"}
    print("\ngpu_bench's rows, 2**26 float32, GB/s")
    print(f"{'':18s}" + "".join(f"{c:>10s}" for c in table))
    for k in ("h2d pageable", "d2h pageable", "h2d pinned", "d2h pinned"):
        cells = [table[c].get(k, table[c].get("error", "-")) for c in table]
        print(f"{k:18s}" + "".join(f"{v:10.1f}" if isinstance(v, float) else f"{str(v)[:9]:>10s}" for v in cells))
    for c, r in table.items():
        for k, v in r.items():
            if isinstance(v, str):
                print(f"{c}: {k}: {v}")


def main():
    t0 = time.perf_counter()
    print(f"{dev.name}; CPU threads {em._ember.num_threads()}; staging {stats()}")
    check()
    by_size()
    by_chunk()
    libs()
    print(f"\n{time.perf_counter() - t0:.0f} s")


if __name__ == "__main__":
    main()
