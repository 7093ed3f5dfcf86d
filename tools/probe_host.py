"""Where a small op's host time goes on the GPU machine: the same loop of
calls (no synchronisation inside) at several lengths, so that a launch queue
that fills up (the GPU running each tiny kernel slower than the host issues
it) shows as a per-call time that grows with the loop; and each library's
small-op paths side by side.  python3 tools/probe_host.py [--ember-only]"""
import sys
import time

import numpy as np


def per_call(fn, sync, n):
    fn(); fn(); sync()
    best = 1e9
    for _ in range(5):
        sync()
        t0 = time.perf_counter()
        for _ in range(n):
            fn()
        t1 = time.perf_counter()
        sync()
        best = min(best, (t1 - t0) / n * 1e6)
    return best


def _shim():
    """tools/probe_shim.c when it is the driver Ember loaded: its counters."""
    import ctypes
    import os
    lib = os.environ.get("EMBER_LIBCUDA", "")
    if "shim" not in lib:
        return None
    s = ctypes.CDLL(lib)
    s.shim_us_per_launch.restype = ctypes.c_double
    return s


SHIM = _shim()


def row(label, fn, sync, ns=(200, 2000, 20000)):
    try:
        cells = []
        for n in ns:
            if SHIM:
                SHIM.shim_reset()
            cells.append(f"{per_call(fn, sync, n):9.2f}")
        # Ember's launches only: the time inside the driver's cuLaunchKernel.
        tail = f"   driver {SHIM.shim_us_per_launch():.2f}" if SHIM and SHIM.shim_launches() else ""
        print(f"{label:44s}" + "".join(cells) + tail, flush=True)
    except Exception as e:  # noqa: BLE001
        print(f"{label:44s} error {type(e).__name__}: {str(e)[:80]}")


def main():
    print(f"{'host us per call, loop of':44s}" + "".join(f"{n:9d}" for n in (200, 2000, 20000)))
    row("python: lambda: None", lambda: None, lambda: None)
    import ember as em
    from ember import _ember
    dev = em.Device("cuda:0")
    s = em.asarray(np.ones(1000, np.float32), device=dev)
    t = em.asarray(np.ones(1000, np.float32), device=dev)
    sync = dev.synchronize
    k = em.RawKernel('extern "C" __global__ void k(float *a) {}', "k")

    @em.jit
    def noop(a):
        pass

    launch = noop[1, 1]
    row("ember RawKernel k((1,), (1,), (a,))", lambda: k((1,), (1,), (s,)), sync)
    row("ember @jit k[1, 1](a)", lambda: launch(s), sync)
    row("ember @jit k[1, 1](a), k[1, 1] each call", lambda: noop[1, 1](s), sync)
    row("ember a + b (lazy, dropped)", lambda: s + t, sync)
    row("ember em.eval(a + b)", lambda: em.eval(s + t), sync)
    row("ember empty(1000)", lambda: em.empty(1000, dtype=em.float32, device=dev), sync)
    o = em.empty(1000, dtype=em.float32, device=dev)
    row("ember add(a, b, out=o)", lambda: em.add(s, t, out=o), sync)
    _ember._fusion_config(enabled=False)
    row("ember a + b, fusion off", lambda: s + t, sync)
    _ember._fusion_config(enabled=True)
    h = np.ones(1000, np.float32)
    row("ember s.sum()", lambda: s.sum(), sync)
    row("ember zeros(1000)", lambda: em.zeros(1000, dtype=em.float32, device=dev), sync)
    row("ember o[...] = 3.0", lambda: o.__setitem__(Ellipsis, 3.0), sync)
    row("ember asarray(numpy 1000 f32)", lambda: em.asarray(h, device=dev), sync)
    if "--ember-only" in sys.argv:
        return
    try:
        import cupy as cp
        cs, ct = cp.ones(1000, cp.float32), cp.ones(1000, cp.float32)
        ck = cp.RawKernel('extern "C" __global__ void k(float *a) {}', "k")
        csync = cp.cuda.Device().synchronize
        row("cupy RawKernel", lambda: ck((1,), (1,), (cs,)), csync)
        row("cupy a + b", lambda: cs + ct, csync)
        row("cupy s.sum()", lambda: cs.sum(), csync)
        row("cupy zeros(1000)", lambda: cp.zeros(1000, cp.float32), csync)
        co = cp.empty(1000, cp.float32)
        row("cupy o[...] = 3.0", lambda: co.__setitem__(Ellipsis, 3.0), csync)
        row("cupy asarray(numpy 1000 f32)", lambda: cp.asarray(h), csync)
    except Exception as e:  # noqa: BLE001
        print("cupy:", e)
    try:
        import torch
        ts, tt = torch.ones(1000, device="cuda"), torch.ones(1000, device="cuda")
        row("torch a + b", lambda: ts + tt, torch.cuda.synchronize)
        to = torch.empty(1000, device="cuda")
        row("torch add(a, b, out=o)", lambda: torch.add(ts, tt, out=to), torch.cuda.synchronize)
        tsync = torch.cuda.synchronize
        row("torch s.sum()", lambda: ts.sum(), tsync)
        row("torch zeros(1000)", lambda: torch.zeros(1000, device="cuda"), tsync)
        row("torch o[...] = 3.0", lambda: to.__setitem__(Ellipsis, 3.0), tsync)
        hs = torch.from_numpy(h)
        row("torch from numpy 1000 f32 .cuda()", lambda: hs.cuda(), tsync)
    except Exception as e:  # noqa: BLE001
        print("torch:", e)


if __name__ == "__main__":
    main()
