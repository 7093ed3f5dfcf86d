"""GPU benchmark: Ember next to CuPy and PyTorch on cuda:0.

  a + b      2**26 float32, GB/s counting 3 arrays moved
  sum        2**28 float32, GB/s counting the input read
  small a+b  1000 float32, host microseconds per call (no sync per call)
  d2d copy   2**26 float32 device-to-device copy, GB/s (the floor: read+write)
  seed004    sqrt(sum(x**2, axis=-1)) on (1000, 100, 1000) float32 / float64, ms
  matmul     8192^3 float32 and float16, and a batch of 256 512^3 float32,
             TFLOP/s (checked against NumPy on a small product first)
  h2d / d2h  2**26 float32 host<->device copies, GB/s, from pageable and
             from pinned host memory

Each number is the best of several runs after a warm-up.  A library that is
missing or fails prints its error instead of a number."""
import os
import time

import numpy as np


def best(fn, sync, reps=10):
    fn(); sync()
    ts = []
    for _ in range(reps):
        sync(); t0 = time.perf_counter(); fn(); sync(); ts.append(time.perf_counter() - t0)
    return min(ts)


def host_us(fn, sync, calls=2000, reps=5):
    """Host microseconds per call over a loop of calls (no sync inside), the
    best of reps loops, as the module's other rows are the best of several.
    A whole loop first: the row runs first in a fresh process."""
    for _ in range(calls):
        fn()
    sync()
    ts = []
    for _ in range(reps):
        sync()
        t0 = time.perf_counter()
        for _ in range(calls):
            fn()
        ts.append(time.perf_counter() - t0)
        sync()
    return min(ts) / calls * 1e6


def _guard(out, key, fn):
    try:
        out[key] = fn()
    except Exception as e:  # noqa: BLE001 - report and go on
        out[key] = f"error: {type(e).__name__}: {str(e)[:80]}"


def suite(name, asarray, add, total, copy, sync, seed=None, mm=None, pinned=None, get=None):
    out = {}
    n1, n2 = 2**26, 2**28

    def small():
        s, t = asarray(np.ones(1000, np.float32)), asarray(np.ones(1000, np.float32))
        return host_us(lambda: add(s, t), sync)

    def big_add():
        a, b = asarray(np.ones(n1, np.float32)), asarray(np.ones(n1, np.float32))
        return 3 * 4 * n1 / best(lambda: add(a, b), sync) / 1e9

    def d2d():
        a = asarray(np.ones(n1, np.float32))
        return 2 * 4 * n1 / best(lambda: copy(a), sync) / 1e9

    def big_sum():
        x = asarray(np.ones(n2, np.float32))
        return 4 * n2 / best(lambda: total(x), sync) / 1e9

    def seed004(dt):
        x = asarray(np.ones((1000, 100, 1000), dt))
        return best(lambda: seed(x), sync) * 1e3

    def mm_check():
        r = np.random.default_rng(0)
        a, b = r.random((64, 48), np.float32), r.random((48, 32), np.float32)
        np.testing.assert_allclose(get(mm(asarray(a), asarray(b))), a @ b, rtol=1e-4)

    def matmul(dt, n=8192, batch=None):
        r = np.random.default_rng(0)
        shape = (n, n) if batch is None else (batch, n, n)
        x, y = asarray(r.random(shape, np.float32).astype(dt)), asarray(r.random(shape, np.float32).astype(dt))
        return 2 * n**3 * (batch or 1) / best(lambda: mm(x, y), sync, reps=5) / 1e12

    def copies(src_kind, direction):
        n = 2**26
        host = pinned(n) if src_kind == "pinned" else np.empty(n, np.float32)
        host[...] = 1
        if direction == "h2d":
            return 4 * n / best(lambda: asarray(host), sync) / 1e9
        d = asarray(host)
        return 4 * n / best(lambda: get(d, host), sync) / 1e9

    _guard(out, "small a+b host us", small)
    if seed:
        _guard(out, "seed004 f32 ms", lambda: seed004(np.float32))
        _guard(out, "seed004 f64 ms", lambda: seed004(np.float64))
    if mm:
        _guard(out, "matmul check", mm_check)
        _guard(out, "matmul 8192 f32 TFLOP/s", lambda: matmul(np.float32))
        _guard(out, "matmul 8192 f16 TFLOP/s", lambda: matmul(np.float16))
        _guard(out, "bmm 256x512 f32 TFLOP/s", lambda: matmul(np.float32, 512, 256))
    for kind in ("pageable", "pinned"):
        if kind == "pageable" or pinned:
            _guard(out, f"h2d {kind} GB/s", lambda: copies(kind, "h2d"))
            _guard(out, f"d2h {kind} GB/s", lambda: copies(kind, "d2h"))
    _guard(out, "a + b GB/s", big_add)
    _guard(out, "d2d copy GB/s", d2d)
    _guard(out, "sum GB/s", big_sum)
    return out


def ember():
    import ember as em
    dev = em.Device("cuda:0")
    return suite("ember", lambda x: em.asarray(x, device=dev), lambda a, b: a + b,
                 lambda x: x.sum(), lambda x: em.positive(x) if not hasattr(x, "copy") else x.copy(),
                 dev.synchronize, seed=lambda x: em.sqrt(em.sum(x**2, axis=-1)),
                 mm=em.matmul, pinned=lambda n: em.cuda.pinned_empty(n, np.float32),
                 get=lambda d, out=None: d.get(out=out))


def cupy():
    import cupy as cp
    return suite("cupy", cp.asarray, lambda a, b: a + b, lambda x: x.sum(), lambda x: x.copy(),
                 cp.cuda.Device().synchronize, seed=lambda x: cp.sqrt(cp.sum(x**2, axis=-1)),
                 mm=cp.matmul, pinned=lambda n: __import__("cupyx").empty_pinned(n, np.float32),
                 get=lambda d, out=None: d.get(out=out))


def torch():
    import torch as th
    def get(d, out=None):
        if out is None:
            return d.cpu().numpy()
        th.from_numpy(out).copy_(d)
        return out

    return suite("torch", lambda x: th.from_numpy(x).cuda(), lambda a, b: a + b,
                 lambda x: x.sum(), lambda x: x.clone(), th.cuda.synchronize,
                 seed=lambda x: th.sqrt(th.sum(x**2, dim=-1)), mm=th.matmul,
                 pinned=lambda n: th.empty(n, dtype=th.float32).pin_memory().numpy(), get=get)


def main():
    rows, cols = {}, ["ember", "cupy", "torch"]
    # GPU_BENCH_ORDER=torch,cupy,ember runs the columns in another order (a
    # machine's first minutes, or whichever library goes first, can differ).
    order = os.environ.get("GPU_BENCH_ORDER", "ember,cupy,torch").split(",")
    libs = {"ember": ember, "cupy": cupy, "torch": torch}
    for name, fn in ((n, libs[n]) for n in order):
        try:
            rows[name] = fn()
        except Exception as e:  # noqa: BLE001
            rows[name] = {"error": f"{type(e).__name__}: {str(e)[:120]}"}
    keys = ["a + b GB/s", "sum GB/s", "small a+b host us", "d2d copy GB/s", "seed004 f32 ms",
            "seed004 f64 ms", "matmul 8192 f32 TFLOP/s", "matmul 8192 f16 TFLOP/s",
            "bmm 256x512 f32 TFLOP/s", "h2d pageable GB/s", "h2d pinned GB/s", "d2h pageable GB/s",
            "d2h pinned GB/s"]
    print(f"{'':24s}" + "".join(f"{c:>14s}" for c in cols))
    for k in keys:
        cells = []
        for c in cols:
            v = rows[c].get(k, rows[c].get("error", "-"))
            cells.append((f"{v:14.1f}" if v >= 10 else f"{v:14.4f}") if isinstance(v, float) else f"{str(v)[:13]:>14s}")
        print(f"{k:24s}" + "".join(cells))
    for c in cols:
        for k, v in rows[c].items():
            if isinstance(v, str):
                print(f"{c}: {k}: {v}")


if __name__ == "__main__":
    main()
