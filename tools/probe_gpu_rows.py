"""Two GPU rows of issue 14's before/after, taken apart, for comparing trees
in one device call (each tree's process in turn, several rounds):

  matmul 8192 f16   TFLOP/s, best of 10 (tools/gpu_bench.py's row), with
                    the GPU's SM clock, power and temperature read just
                    before (nvidia-smi), and the cuBLAS file the process
                    mapped
  raw launch        host us per RawKernel launch of an empty kernel in
                    loops of 200, 2000 and 20000 launches (no sync inside;
                    a loop that outruns the GPU fills the launch queue and
                    then times the GPU), and, when EMBER_LIBCUDA is
                    tools/probe_shim.c, the part of it spent inside the
                    driver's cuLaunchKernel (the rest is Ember's and Python's)

One JSON line on stdout: {"tag": ..., "rows": {...}, "notes": {...}}.
  python3 tools/probe_gpu_rows.py [--tag NAME] [--skip-matmul]
"""
import argparse
import ctypes
import json
import os
import subprocess
import time

import numpy as np


def smi():
    try:
        q = "clocks.sm,power.draw,temperature.gpu"
        r = subprocess.run(["nvidia-smi", f"--query-gpu={q}", "--format=csv,noheader"],
                           capture_output=True, text=True, timeout=10)
        return r.stdout.strip()
    except Exception as e:  # noqa: BLE001
        return f"error {e}"


def shim():
    lib = os.environ.get("EMBER_LIBCUDA", "")
    if "shim" not in lib:
        return None
    s = ctypes.CDLL(lib)
    s.shim_us_per_launch.restype = ctypes.c_double
    return s


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--tag", default=os.path.basename(os.getcwd()))
    ap.add_argument("--skip-matmul", action="store_true")
    args = ap.parse_args()
    import ember as em
    dev = em.Device("cuda:0")
    sync = dev.synchronize
    rows, notes = {}, {}
    sh = shim()
    with dev:
        k = em.RawKernel('extern "C" __global__ void noop(float *x) {}', "noop")
        x = em.zeros(1, dtype=em.float32)
        k(1, 1, (x,))
        sync()
        for n in (200, 2000, 20000):
            best, drv = 1e9, 0.0
            for _ in range(5):
                sync()
                if sh:
                    sh.shim_reset()
                t0 = time.perf_counter()
                for _ in range(n):
                    k(1, 1, (x,))
                t = (time.perf_counter() - t0) / n * 1e6
                sync()
                if t < best:
                    best, drv = t, (sh.shim_us_per_launch() if sh else 0.0)
            rows[f"raw launch us, loop {n}"] = best
            if sh:
                rows[f"raw launch driver us, loop {n}"] = drv
    if not args.skip_matmul:
        r = np.random.default_rng(0)
        a = em.asarray(r.random((8192, 8192), np.float32).astype(np.float16), device=dev)
        b = em.asarray(r.random((8192, 8192), np.float32).astype(np.float16), device=dev)
        mm = em.matmul
        mm(a, b)
        sync()
        notes["smi before matmul"] = smi()
        ts = []
        for _ in range(10):
            sync()
            t0 = time.perf_counter()
            mm(a, b)
            sync()
            ts.append(time.perf_counter() - t0)
        rows["matmul 8192 f16 TFLOP/s"] = 2 * 8192**3 / min(ts) / 1e12
        rows["matmul 8192 f16 TFLOP/s median"] = 2 * 8192**3 / sorted(ts)[len(ts) // 2] / 1e12
        notes["smi after matmul"] = smi()
        with open("/proc/self/maps") as f:
            notes["cublas"] = sorted({ln.split()[-1] for ln in f if "cublas" in ln})
    print(json.dumps({"tag": args.tag, "rows": rows, "notes": notes}), flush=True)


if __name__ == "__main__":
    main()
