"""Automatic fusion, side by side in one run.

CUDA (each column optional: what does not import or has no device is skipped):
  Ember (plain code, fused by the planner), CuPy eager, cupy.fuse, PyTorch
  eager, JAX jit, on
    seed004   sqrt(sum(x**2, axis=-1)) on (1000, 100, 1000) float32 and float64
              (EMBER_BENCH_SEED_SHAPE=200,100,1000 when memory is tight), ms
    chain8    an 8-op elementwise chain on 2**24 float32, ms
    loop      100 iterations of x = x * 0.5 + 1 on 1000 float32, host us per iteration
CPU: Ember vs NumPy on chain8, seed004 (shape (200, 100, 1000) by default) and
    sum(x*x) on 2**24 float32 and float64 (a full reduction of a fused producer).
    Ember's inputs are its own memory (em.asarray(a, copy=True)); the row
    "chain8 f32 wrapped" runs the chain on em.asarray(a), a zero-copy wrap of
    the NumPy array, which fuses the same way.

Times are the best of several runs after a warm-up, synchronised properly
(Ember: Device.synchronize, which also evaluates pending arrays; CuPy:
Device().synchronize; torch.cuda.synchronize; JAX block_until_ready).
Ratios are the other library's time over Ember's (> 1: Ember is faster).

    python bench/bench_fusion.py [--cpu-only | --gpu-only]
"""
import os
import sys
import time

import numpy as np

REPS = int(os.environ.get("EMBER_BENCH_REPS", "7"))


def best(fn, sync, reps=REPS):
    keep = fn()
    sync(keep)
    ts = []
    for _ in range(reps):
        sync(None)
        t0 = time.perf_counter()
        keep = fn()
        sync(keep)
        ts.append(time.perf_counter() - t0)
    return min(ts)


def host_loop_us(step, x0, sync, iters=100):
    """Host time per iteration of x = step(x), synchronised once at the end."""
    x = x0
    for _ in range(10):
        x = step(x)
    sync(x)
    ts = []
    for _ in range(5):
        x = x0
        sync(x)
        t0 = time.perf_counter()
        for _ in range(iters):
            x = step(x)
        sync(x)
        ts.append(time.perf_counter() - t0)
    return min(ts) / iters * 1e6


def chain8(xp, a):
    return ((((((a + 1.5) * 0.5 - 2.0) * a + 0.25) / 3.0) - a) * 1.25)


def seed(xp, x):
    return xp.sqrt(xp.sum(x**2, axis=-1))


def _shape(var, default):
    v = os.environ.get(var)
    return tuple(int(s) for s in v.split(",")) if v else default


# ---- columns -------------------------------------------------------------------------

def col_ember(device):
    import ember as em
    dev = em.Device(device)

    def sync(_):
        dev.synchronize()  # evaluates pending arrays of the device, then waits

    def put(a):
        return em.asarray(a, device=dev, copy=True)  # Ember-owned memory

    # On the CPU, em.asarray(a) wraps NumPy's memory (no copy): the "wrapped" row.
    wrap = {"wrap": lambda a: em.asarray(a, device=dev)} if dev.kind == "cpu" else {}
    return {**wrap, "put": put, "sync": sync, "seed": lambda x: seed(em, x),
            "chain8": lambda a: chain8(em, a),
            "step": lambda x: x * 0.5 + 1, "sumsq": lambda x: em.sum(x * x)}


def col_numpy():
    return {"put": lambda a: a, "wrap": lambda a: a, "sync": lambda _: None,
            "seed": lambda x: seed(np, x),
            "chain8": lambda a: chain8(np, a), "step": lambda x: x * 0.5 + 1,
            "sumsq": lambda x: np.sum(x * x)}


def col_cupy(fused):
    import cupy as cp
    if cp.cuda.runtime.getDeviceCount() < 1:
        raise RuntimeError("no CUDA device")

    def sync(_):
        cp.cuda.Device().synchronize()

    if not fused:
        return {"put": cp.asarray, "sync": sync, "seed": lambda x: seed(cp, x),
                "chain8": lambda a: chain8(cp, a), "step": lambda x: x * 0.5 + 1}
    fseed = cp.fuse(lambda x: cp.sqrt(cp.sum(x * x, axis=-1)))
    fchain = cp.fuse(lambda a: chain8(cp, a))
    fstep = cp.fuse(lambda x: x * 0.5 + 1)
    return {"put": cp.asarray, "sync": sync, "seed": fseed, "chain8": fchain, "step": fstep}


def col_torch():
    import torch
    if not torch.cuda.is_available():
        raise RuntimeError("no CUDA device")
    return {"put": lambda a: torch.from_numpy(a).cuda(), "sync": lambda _: torch.cuda.synchronize(),
            "seed": lambda x: torch.sqrt(torch.sum(x**2, dim=-1)),
            "chain8": lambda a: chain8(torch, a), "step": lambda x: x * 0.5 + 1}


def col_jax():
    import jax
    # Without x64, JAX turns float64 inputs into float32 and the float64 rows
    # would time float32 work (it printed 0.221 ms, under the float64 floor).
    jax.config.update("jax_enable_x64", True)
    import jax.numpy as jnp
    if not any(d.platform == "gpu" for d in jax.devices()):
        raise RuntimeError("no JAX GPU device")

    def sync(x):
        if x is not None:
            x.block_until_ready()

    return {"put": lambda a: jax.device_put(a), "sync": sync,
            "seed": jax.jit(lambda x: jnp.sqrt(jnp.sum(x**2, axis=-1))),
            "chain8": jax.jit(lambda a: chain8(jnp, a)), "step": jax.jit(lambda x: x * 0.5 + 1)}


# ---- cases ---------------------------------------------------------------------------

def run_cases(col, seed_shape, chain_n, loop=True):
    out = {}
    rng = np.random.default_rng(0)

    def guard(key, fn):
        try:
            out[key] = fn()
        except Exception as e:  # noqa: BLE001 - report and go on
            out[key] = f"error: {type(e).__name__}: {str(e)[:70]}"

    for dt in (np.float32, np.float64):
        def s(dt=dt):
            x = col["put"](rng.random(seed_shape).astype(dt))
            return best(lambda: col["seed"](x), col["sync"]) * 1e3
        guard(f"seed004 {np.dtype(dt).name} ms", s)

    for dt in (np.float32, np.float64) if "sumsq" in col else ():
        def q(dt=dt):
            x = col["put"](rng.random(2**24).astype(dt))
            return best(lambda: col["sumsq"](x), col["sync"]) * 1e3
        guard(f"sum(x*x) 2^24 {np.dtype(dt).name} ms", q)

    def c():
        a = col["put"](rng.random(chain_n).astype(np.float32))
        return best(lambda: col["chain8"](a), col["sync"]) * 1e3
    guard("chain8 f32 ms", c)
    if "wrap" in col:
        def cw():
            a = col["wrap"](rng.random(chain_n).astype(np.float32))
            return best(lambda: col["chain8"](a), col["sync"]) * 1e3
        guard("chain8 f32 wrapped ms", cw)
    if loop:
        def lp():
            x = col["put"](np.ones(1000, np.float32))
            return host_loop_us(col["step"], x, col["sync"])
        guard("loop x*0.5+1 us/iter", lp)
    return out


def table(title, rows, ref):
    cols = list(rows)
    keys = []
    for r in rows.values():
        keys += [k for k in r if k not in keys]
    print(f"\n{title}")
    print(f"{'':24s}" + "".join(f"{c:>14s}" for c in cols))
    for k in keys:
        cells = []
        for c in cols:
            v = rows[c].get(k, "-")
            cells.append(f"{v:14.3f}" if isinstance(v, float) else f"{str(v)[:13]:>14s}")
        print(f"{k:24s}" + "".join(cells))
    print(f"ratios (time / {ref}'s; > 1 means {ref} is faster):")
    for k in keys:
        e = rows[ref].get(k)
        if not isinstance(e, float) or e <= 0:
            continue
        parts = [f"{c} {rows[c][k] / e:.2f}x" for c in cols
                 if c != ref and isinstance(rows[c].get(k), float)]
        print(f"  {k:22s} " + ", ".join(parts))
    for c in cols:
        for k, v in rows[c].items():
            if isinstance(v, str):
                print(f"  {c}: {k}: {v}")


def gpu():
    import ember as em
    if not em.cuda.is_available():
        print("\nCUDA: no device, skipped")
        return
    shape = _shape("EMBER_BENCH_SEED_SHAPE", (1000, 100, 1000))
    rows = {}
    for name, make in (("ember", lambda: col_ember("cuda:0")), ("cupy", lambda: col_cupy(False)),
                       ("cupy.fuse", lambda: col_cupy(True)), ("torch", col_torch), ("jax.jit", col_jax)):
        try:
            col = make()
        except Exception as e:  # noqa: BLE001 - optional column
            print(f"note: {name} skipped: {type(e).__name__}: {str(e)[:80]}", file=sys.stderr)
            continue
        rows[name] = run_cases(col, shape, 2**24)
    table(f"CUDA (seed004 shape {shape})", rows, "ember")


def cpu():
    import ember as em
    shape = _shape("EMBER_BENCH_CPU_SEED_SHAPE", (200, 100, 1000))
    rows = {"ember": run_cases(col_ember("cpu"), shape, 2**24, loop=False),
            "numpy": run_cases(col_numpy(), shape, 2**24, loop=False)}
    table(f"CPU, {em._ember.num_threads()} threads (seed004 shape {shape})", rows, "ember")


if __name__ == "__main__":
    if "--gpu-only" not in sys.argv:
        cpu()
    if "--cpu-only" not in sys.argv:
        gpu()
