"""Ember's own reduction kernels on the GPU, in every variant, in one run:
seed 004 -- sqrt(sum(x**2, axis=-1)) on (1000, 100, 1000) -- in float64 and
float32, and other reduction shapes (the reduction alone, sum over axis 0,
axis=None, (4096, 1024) over axis 1, a transposed input, every other row of
the seed array, a reversed one), each timed with CUDA events (median and
best of 30 after a warm-up) and checked against NumPy.

Run on the device machine, from the repository root:

    EMBER_USE_CURRENT_PYTHON=1 bash tools/dev.sh build > /dev/null && \\
        PYTHONPATH=python python3 tools/probe_seed64_ember.py

The variants are kernel-source choices of src/codegen/render_reduce.c,
selected by EMBER_REDUCE_TUNE, which Ember reads once per process; so this
script runs itself once per variant (--one) in a fresh process with a fresh
kernel cache, and prints a table per variant, then the medians side by side.
EMBER_REDUCE_TUNE is comma-separated:
    u<N>   N groups (16 bytes each) in flight per lane in warp mode (one warp
           per output row: seed 004's form); u0: the block mode's rule (16
           elements, at most 8 groups: float64 8, float32 4); default: 16
           for 8-byte inputs, the rule otherwise
    i64    64-bit loop indices (default: 32-bit where the extents fit)
EMBER_PROBE_VARIANTS overrides the list below ("" is the default; "u0,i64"
is the configuration before this change, apart from the merged dims).

Every variant combines each output's elements in the same order, so every
result must be the same bits in every variant: each table shows a digest
of each result, and the summary says whether they all agree.  Compile
times (EMBER_DEBUG=2, fresh cache) of the reduction kernels are listed per
variant.  If CuPy is there, its seed 004 times are printed for reference."""
import hashlib
import os
import re
import subprocess
import sys

import numpy as np

VARIANTS = ["", "u0,i64", "u0", "u8", "u16,i64"]
REPS = 30
SMALL = os.environ.get("EMBER_PROBE_SMALL") == "1"  # a dry run of the script (e.g. under the fake driver)
SEED, MAT = ((4, 10, 100), (64, 128)) if SMALL else ((1000, 100, 1000), (4096, 1024))


def timed(em, fn):
    s, e = em.Event(), em.Event()
    for _ in range(3):
        em.eval(fn())
    ts = []
    for _ in range(REPS):
        s.record()
        r = fn()
        em.eval(r)
        e.record()
        e.synchronize()
        ts.append(em.get_elapsed_time(s, e))
    return float(np.median(ts)), float(np.min(ts))


def cases(em, x64, x32, h64, h32):
    """(name, bytes read, Ember thunk, NumPy reference thunk, rtol)."""
    a64, h2 = x64.reshape(SEED[0], -1), h64.reshape(SEED[0], -1)
    m32h = np.random.default_rng(1).random(MAT, dtype=np.float32)
    m32 = em.asarray(m32h)
    t32h = np.ascontiguousarray(m32h.T)  # its .T: MAT's shape, transposed strides
    t32 = em.asarray(t32h)
    return [
        ("seed004 f64 sqrt(sum(x**2,-1))", h64.nbytes, lambda: em.sqrt(em.sum(x64 ** 2, axis=-1)),
         lambda: np.sqrt(np.sum(h64 ** 2, axis=-1)), 1e-12),
        ("seed004 f64 sum(x**2,-1)", h64.nbytes, lambda: em.sum(x64 ** 2, axis=-1),
         lambda: np.sum(h64 ** 2, axis=-1), 1e-12),
        ("seed004 f64 sum(x,-1)", h64.nbytes, lambda: em.sum(x64, axis=-1), lambda: np.sum(h64, axis=-1), 1e-12),
        ("seed004 f32 sqrt(sum(x**2,-1))", h32.nbytes, lambda: em.sqrt(em.sum(x32 ** 2, axis=-1)),
         lambda: np.sqrt(np.sum(h32.astype(np.float64) ** 2, axis=-1)), 1e-4),
        ("f64 seed as (1000,100000) sum axis 0", h64.nbytes, lambda: em.sum(a64, axis=0), lambda: np.sum(h2, axis=0), 1e-12),
        ("f64 seed sum axis=None", h64.nbytes, lambda: em.sum(x64), lambda: np.sum(h64), 1e-10),
        ("f64 seed x[:, ::2] sum(x**2,-1)", h64.nbytes // 2, lambda: em.sum(x64[:, ::2] ** 2, axis=-1),
         lambda: np.sum(h64[:, ::2] ** 2, axis=-1), 1e-12),
        ("f64 seed x[::-1] sum(x**2,-1)", h64.nbytes, lambda: em.sum(x64[::-1] ** 2, axis=-1),
         lambda: np.sum(h64[::-1] ** 2, axis=-1), 1e-12),
        ("f32 (4096,1024) sum axis 1", m32h.nbytes, lambda: em.sum(m32, axis=1),
         lambda: np.sum(m32h.astype(np.float64), axis=1), 1e-4),
        ("f32 (4096,1024) transposed sum axis 1", t32h.nbytes, lambda: em.sum(t32.T, axis=1),
         lambda: np.sum(t32h.T.astype(np.float64), axis=1), 1e-4),
    ]


def one():
    import ember as em
    with em.Device("cuda:0"):
        h64 = np.random.default_rng(0).random(SEED)
        h32 = h64.astype(np.float32)
        x64, x32 = em.asarray(h64), em.asarray(h32)
        print(f"{'case':40s}{'median ms':>10s}{'min ms':>9s}{'GB/s':>7s}  {'ok':5s} digest", flush=True)
        for name, nbytes, fn, ref, rtol in cases(em, x64, x32, h64, h32):
            try:
                got = np.asarray(fn())
                ok = bool(np.allclose(got, ref(), rtol=rtol, atol=0))
                dig = hashlib.sha1(np.ascontiguousarray(got).tobytes()).hexdigest()[:12]
                med, mn = timed(em, fn)
                print(f"{name:40s}{med:10.4f}{mn:9.4f}{nbytes / mn / 1e6:7.0f}  {str(ok):5s} {dig}", flush=True)
            except Exception as e:  # noqa: BLE001 - report and go on
                print(f"{name:40s} error: {type(e).__name__}: {str(e)[:100]}", flush=True)


def cupy_reference():
    try:
        import cupy as cp
    except Exception:  # noqa: BLE001
        return
    x = cp.random.random(SEED)
    for dt in (cp.float64, cp.float32):
        y = x.astype(dt)
        s, e = cp.cuda.Event(), cp.cuda.Event()
        for _ in range(3):
            cp.sqrt(cp.sum(y ** 2, axis=-1))
        ts = []
        for _ in range(REPS):
            s.record(); cp.sqrt(cp.sum(y ** 2, axis=-1)); e.record(); e.synchronize()
            ts.append(cp.cuda.get_elapsed_time(s, e))
        print(f"CuPy seed004 {np.dtype(dt).name}: median {np.median(ts):.4f} ms, min {np.min(ts):.4f} ms")


def main():
    if "--one" in sys.argv:
        one()
        return
    env_list = os.environ.get("EMBER_PROBE_VARIANTS")
    variants = env_list.split(";") if env_list is not None else VARIANTS
    rows, digests = {}, {}
    for v in variants:
        cache = f"/tmp/ember_probe_cache_{os.getpid()}_{len(rows)}"
        env = dict(os.environ, EMBER_REDUCE_TUNE=v, EMBER_DEBUG="2", EMBER_CACHE_DIR=cache)
        r = subprocess.run([sys.executable, __file__, "--one"], env=env, capture_output=True, text=True,
                           timeout=400)
        print(f"=== EMBER_REDUCE_TUNE='{v}'" + (f" (exit {r.returncode})" if r.returncode else ""))
        print(r.stdout, end="")
        key = ""
        for line in r.stderr.splitlines():
            k = re.search(r"cache miss \(memory\) '(reduce\w+)' key (\S+)", line)
            m = re.search(r"for '(reduce\w+)': compiled in ([0-9.]+) ms", line)
            if k:
                key = k.group(2)
            elif m:
                print(f"  compile {m.group(2):>7s} ms  {key[:90]}")
            elif "error" in line.lower() or "Traceback" in line:
                print("  " + line[:200])
        subprocess.run(["rm", "-rf", cache])
        for line in r.stdout.splitlines()[1:]:
            parts = line.split()
            if len(parts) >= 6 and parts[-2] in ("True", "False"):
                name = line[:40].rstrip()
                rows.setdefault(name, {})[v] = parts[-5]
                digests.setdefault(name, set()).add(parts[-1])
    print("=== median ms by variant (same digest in every variant: bit-identical results)")
    print(f"{'case':40s}" + "".join(f"{(v or 'default'):>10s}" for v in variants) + "  same bits")
    for name, by in rows.items():
        print(f"{name:40s}" + "".join(f"{by.get(v, '-'):>10s}" for v in variants) + f"  {len(digests[name]) == 1}")
    cupy_reference()


if __name__ == "__main__":
    main()
