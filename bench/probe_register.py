"""Registering host pages instead of staging them (issue 18's two-GPU
stream; codegen/run_copy_reg.c, EMBER_STAGE_REGISTER=1), on the GPU machine:

  1. cuMemHostRegister / cuMemHostUnregister throughput with 1, 2, 4, 8
     threads each registering its own range of NumPy memory at once (does
     pinning scale with threads?), and one thread registering 32 MiB slices;
  2. the registered copy's bytes against the source on the real driver, at
     source offsets in and across pages, a read-only mapping, and that no
     registration is left after the copies;
  3. a 1 GiB pageable h2d and the out-of-core sum streamed through cuda:0,
     staged (the old path) against registered (threads, slice sizes), beside
     pinned h2d and CuPy's and PyTorch's h2d from the same NumPy memory.

    python bench/probe_register.py [--gib 8] [--json PATH]
"""
import argparse
import ctypes
import json
import mmap
import os
import sys
import threading
import time

import numpy as np

import ember as em

GiB = 1 << 30
MiB = 1 << 20


def _cuda():
    cu = ctypes.CDLL("libcuda.so.1")
    em.zeros(1, device="cuda:0").get()  # the primary context exists now
    dev, ctx = ctypes.c_int(), ctypes.c_void_p()
    assert cu.cuDeviceGet(ctypes.byref(dev), 0) == 0
    assert cu.cuDevicePrimaryCtxRetain(ctypes.byref(ctx), dev) == 0
    return cu, ctx


def _aligned(a):
    base = (a.ctypes.data + 4095) // 4096 * 4096
    return base, a.nbytes - (base - a.ctypes.data)


def reg_rates(cu, ctx, host, threads, per):
    """GB/s in all of `threads` threads each registering (then, timed apart,
    unregistering) its own `per` bytes of host at once; best of 2."""
    base, _ = _aligned(host)
    out = {}
    for what in ("register", "unregister"):
        out[what] = 0.0
    for _ in range(2):
        times = {}
        for what in ("register", "unregister"):
            go = threading.Barrier(threads + 1)
            errs = []

            def work(k):
                cu.cuCtxSetCurrent(ctx)
                p = ctypes.c_void_p(base + k * per)
                go.wait()
                r = (cu.cuMemHostRegister_v2(p, ctypes.c_size_t(per), 0) if what == "register"
                     else cu.cuMemHostUnregister(p))
                if r:
                    errs.append(r)
                go.wait()
            ts = [threading.Thread(target=work, args=(k,)) for k in range(threads)]
            for t in ts:
                t.start()
            go.wait()
            t0 = time.perf_counter()
            go.wait()
            times[what] = time.perf_counter() - t0
            for t in ts:
                t.join()
            if errs:
                raise RuntimeError(f"{what}: CUDA errors {errs}")
        for what, t in times.items():
            out[what] = max(out[what], threads * per / t / 1e9)
    return out


def slice_rate(cu, ctx, host, slice_bytes, total):
    """One thread registering total bytes in slices, then unregistering."""
    base, _ = _aligned(host)
    cu.cuCtxSetCurrent(ctx)
    n = total // slice_bytes
    t0 = time.perf_counter()
    for k in range(n):
        assert cu.cuMemHostRegister_v2(ctypes.c_void_p(base + k * slice_bytes),
                                       ctypes.c_size_t(slice_bytes), 0) == 0
    t1 = time.perf_counter()
    for k in range(n):
        assert cu.cuMemHostUnregister(ctypes.c_void_p(base + k * slice_bytes)) == 0
    t2 = time.perf_counter()
    return {"register": total / (t1 - t0) / 1e9, "unregister": total / (t2 - t1) / 1e9}


def registered(cu, p):
    t = ctypes.c_uint()
    return cu.cuPointerGetAttribute(ctypes.byref(t), 2, ctypes.c_uint64(p)) == 0


def correctness(cu):
    """Registered copies against their sources on the real driver."""
    os.environ["EMBER_STAGE_REGISTER"] = "1"
    rng = np.random.default_rng(11)
    h = rng.integers(0, 256, 300 * MiB + 8192, dtype=np.uint8)
    bad, n = [], 0
    for size in (4 * MiB + 3, 37 * MiB + 1, 300 * MiB):
        for off in (0, 1, 7, 4095, 4096, 4097, 8191):
            v = h[off:off + size]
            if not np.array_equal(em.asarray(v, device="cuda:0").get(), v):
                bad.append((size, off))
            n += 1
    f64 = rng.random(40 * MiB // 8)[::-1]  # a negative-stride source
    if not np.array_equal(em.asarray(f64, device="cuda:0").get(), f64):
        bad.append("f64 reversed")
    m = mmap.mmap(-1, 64 * MiB)
    m.write(h[:64 * MiB].tobytes())
    libc = ctypes.CDLL(None, use_errno=True)
    addr = ctypes.addressof(ctypes.c_char.from_buffer(m))
    libc.mprotect(ctypes.c_void_p(addr), ctypes.c_size_t(64 * MiB), 1)  # PROT_READ
    ro = np.frombuffer(m, dtype=np.uint8)
    if not np.array_equal(em.asarray(ro[3:], device="cuda:0").get(), ro[3:]):
        bad.append("read-only")
    left = [p for p in (h.ctypes.data + 8192, h.ctypes.data + 200 * MiB, addr + 8192)
            if registered(cu, p)]
    del ro
    os.environ.pop("EMBER_STAGE_REGISTER")
    return {"copies": n + 2, "wrong": bad, "left_registered": len(left)}


def best(fn, n):
    fn()
    em.Device("cuda:0").synchronize()
    b = float("inf")
    for _ in range(n):
        t0 = time.perf_counter()
        fn()
        em.Device("cuda:0").synchronize()
        b = min(b, time.perf_counter() - t0)
    return b


VARIANTS = {
    "staged": {},
    "register_t2": {"EMBER_STAGE_REGISTER": "1", "EMBER_STAGE_REG_THREADS": "2"},
    "register_t4": {"EMBER_STAGE_REGISTER": "1", "EMBER_STAGE_REG_THREADS": "4"},
    "register_t8": {"EMBER_STAGE_REGISTER": "1", "EMBER_STAGE_REG_THREADS": "8"},
    "register_t4_16MiB": {"EMBER_STAGE_REGISTER": "1", "EMBER_STAGE_REG_THREADS": "4",
                          "EMBER_STAGE_REG_MIB": "16"},
    "register_t4_64MiB": {"EMBER_STAGE_REGISTER": "1", "EMBER_STAGE_REG_THREADS": "4",
                          "EMBER_STAGE_REG_MIB": "64"},
}
KEYS = ("EMBER_STAGE_REGISTER", "EMBER_STAGE_REG_THREADS", "EMBER_STAGE_REG_MIB")


def stream(a, out):
    from ember.auto import _stream
    host = np.ones(int(a.gib * GiB) // 4, dtype=np.float32)
    for d in em.devices():
        if d.kind == "cuda":
            with d:
                em.get_default_memory_pool().set_limit(size=8 * GiB)  # 1 GiB chunks, as bench_auto
    x = em.asarray(host, device="auto", copy=False)
    h1 = host[:GiB // 4]
    pin = em.cuda.pinned_empty((GiB // 4,), "float32")
    pin[...] = 1
    out["h2d_pinned_1GiB"] = GiB / best(lambda: em.asarray(pin, device="cuda:0"), 3) / 1e9
    try:
        import cupy as cp
        out["cupy_h2d_pageable_1GiB"] = GiB / best(lambda: cp.asarray(h1), 3) / 1e9
    except Exception as e:  # noqa: BLE001
        out["cupy"] = str(e)[:100]
    try:
        import torch
        out["torch_h2d_pageable_1GiB"] = GiB / best(
            lambda: torch.from_numpy(h1).to("cuda:0"), 3) / 1e9
        tp = torch.from_numpy(h1).pin_memory()
        out["torch_h2d_pinned_1GiB"] = GiB / best(lambda: tp.to("cuda:0"), 3) / 1e9
        del tp
    except Exception as e:  # noqa: BLE001
        out["torch"] = str(e)[:100]
    for name, env in VARIANTS.items():
        for k in KEYS:
            os.environ.pop(k, None)
        os.environ.update(env)
        out[f"h2d_1GiB_{name}"] = GiB / best(lambda: em.asarray(h1, device="cuda:0"), 3) / 1e9
        p = _stream.plan(x, force=("cuda:0",))
        t = best(lambda: float(_stream.run("sum", x, p)), 2)
        ok = float(_stream.run("sum", x, p)) == float(host.size)
        out[f"stream_{name}"] = host.nbytes / t / 1e9
        print(f"# {name}: h2d 1 GiB {out[f'h2d_1GiB_{name}']:.1f} GB/s, stream "
              f"{out[f'stream_{name}']:.1f} GB/s ({p.nchunks} chunks, value ok {ok})", flush=True)
        if not ok:
            out[f"stream_{name}_wrong"] = True
    for k in KEYS:
        os.environ.pop(k, None)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--gib", type=float, default=8.0, help="the streamed array")
    ap.add_argument("--json")
    a = ap.parse_args()
    out = {"device": em.Device("cuda:0").name, "cores": os.cpu_count()}
    cu, ctx = _cuda()
    host = np.ones(8 * GiB // 8 + 4096, dtype=np.float64)  # 8 GiB, touched
    for t in (1, 2, 4, 8):
        r = reg_rates(cu, ctx, host, t, GiB)
        out[f"reg_{t}x1GiB"] = r
        print(f"# {t} thread(s) x 1 GiB at once: register {r['register']:.1f} GB/s, "
              f"unregister {r['unregister']:.1f} GB/s in all", flush=True)
    for s in (4, 32, 128):
        r = slice_rate(cu, ctx, host, s * MiB, 2 * GiB)
        out[f"slices_{s}MiB"] = r
        print(f"# one thread, {s} MiB slices: register {r['register']:.1f} GB/s, "
              f"unregister {r['unregister']:.1f} GB/s", flush=True)
    del host
    c = correctness(cu)
    out["correct"] = c
    print(f"# registered copies on the driver: {c}", flush=True)
    stream(a, out)
    print("# summary: " + json.dumps({k: (round(v, 1) if isinstance(v, float) else v)
                                      for k, v in out.items()}))
    if a.json:
        with open(a.json, "w") as f:
            json.dump(out, f, indent=1)


if __name__ == "__main__":
    sys.exit(main())
