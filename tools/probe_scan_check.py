"""A GPU check of the scans and compactions (issue 19), for a device call: on DEV
(default cuda:0), 2^LOGN elements (default 24), large cumsum/cumprod/compaction results
against NumPy -- the single-pass look-back scan under real concurrency, wrapping
integers, many lines, strided and reversed inputs, an unaligned mask -- then the
scan timings (the default: the single pass in registers; EMBER_SCAN_ONEPASS=0 the
three tile kernels, =1 the single pass through shared memory; EMBER_SCAN_TUNE).

    PYTHONPATH=python python3 tools/probe_scan_check.py
    EMBER_SCAN_ONEPASS=1 PYTHONPATH=python python3 tools/probe_scan_check.py
"""
import os
import time
import numpy as np
import ember as em
dev = os.environ.get("DEV", "cuda:0")
D = em.Device(dev)
rng = np.random.default_rng(3)
bad = 0
def check(name, got, want, exact=True, rtol=0):
    global bad
    g = em.asnumpy(got)
    ok = g.shape == want.shape and g.dtype == want.dtype and (
        np.array_equal(g, want, equal_nan=True) if exact else
        np.allclose(g, want, rtol=rtol, atol=0, equal_nan=True))
    if not ok:
        bad += 1
        i = np.nonzero(~np.isclose(g.astype(np.float64), want.astype(np.float64), rtol=max(rtol, 1e-300)))[0] if g.shape == want.shape else []
        print("WRONG", name, g.shape, want.shape, g.dtype, want.dtype, i[:5], g.ravel()[i[:3]] if len(i) else "", want.ravel()[i[:3]] if len(i) else "")
    else:
        print("ok", name)
n = 1 << int(os.environ.get("LOGN", "24"))
for rep in range(3):
    a = rng.integers(-1000, 1000, n).astype(np.int32)
    check(f"cumsum int32 {n} #{rep}", em.cumsum(em.asarray(a, device=dev)), np.cumsum(a))
a8 = rng.integers(-128, 127, n + 12345).astype(np.int8)
check("cumsum int8->int8 wraps", em.cumsum(em.asarray(a8, device=dev), dtype=np.int8), np.cumsum(a8, dtype=np.int8))
check("cumsum int64 wraps", em.cumsum(em.asarray(np.full(5000, 2**62, np.int64), device=dev)), np.cumsum(np.full(5000, 2**62, np.int64)))
f = rng.integers(-8, 8, n).astype(np.float32)
check("cumsum f32 integer-valued", em.cumsum(em.asarray(f, device=dev)), np.cumsum(f))
p = rng.choice(np.array([1, -1, 1, -1, 2, 0.5]), n).astype(np.float64)
check("cumprod f64 +-1 2 0.5", em.cumprod(em.asarray(p, device=dev)), np.cumprod(p))
c = (rng.integers(-3, 3, 3000001) + 1j * rng.integers(-3, 3, 3000001)).astype(np.complex128)
check("cumsum c128", em.cumsum(em.asarray(c, device=dev)), np.cumsum(c))
# the single pass in registers: tile edges, every accumulator size, aligned and not
for k in (2049, 4095, 4096, 4097, 3 * 4096 + 1, 1 << 20):
    for dt in (np.int32, np.int8, np.uint16, np.int64, np.float32, np.complex64, np.bool_):
        w = rng.integers(-9, 9, k + 1).astype(dt)
        check(f"cumsum {k} {np.dtype(dt).name}", em.cumsum(em.asarray(w[:k], device=dev)), np.cumsum(w[:k]))
        wo = em.asarray(w, device=dev)[1:]  # one element off: scalar loads
        check(f"cumsum {k} {np.dtype(dt).name} offset", em.cumsum(wo), np.cumsum(w[1:]))
    u = rng.integers(0, 3, k).astype(np.uint8)
    check(f"cumprod uint8->uint64 {k}", em.cumprod(em.asarray(u, device=dev)), np.cumprod(u))
    i32 = rng.integers(-1000, 1000, k).astype(np.int32)
    check(f"cumsum int32 out int32 {k}", em.cumsum(em.asarray(i32, device=dev), dtype=np.int32), np.cumsum(i32, dtype=np.int32))
for shp in ((7, 8192), (5, 8191), (3, 12289)):
    m = rng.integers(-9, 9, shp).astype(np.float32)
    check(f"cumsum axis=1 {shp}", em.cumsum(em.asarray(m, device=dev), axis=1), np.cumsum(m, axis=1))
    check(f"cumsum flat {shp}", em.cumsum(em.asarray(m, device=dev)), np.cumsum(m))
m2 = rng.integers(-5, 5, (64, 300001)).astype(np.int64)
x2 = em.asarray(m2, device=dev)
check("cumsum axis=1 many lines", em.cumsum(x2, axis=1), np.cumsum(m2, axis=1))
check("cumsum axis=0", em.cumsum(x2, axis=0), np.cumsum(m2, axis=0))
check("cumsum flat of a transpose", em.cumsum(x2.T), np.cumsum(m2.T))
check("cumsum reversed", em.cumsum(x2[:, ::-3], axis=1), np.cumsum(m2[:, ::-3], axis=1))
r = rng.standard_normal(n).astype(np.float32)
g = em.asnumpy(em.cumsum(em.asarray(r, device=dev))).astype(np.float64)
err = np.max(np.abs(g - np.cumsum(r.astype(np.float64))) / np.cumsum(np.abs(r.astype(np.float64))))
print("ok" if err < 1e-4 else "WRONG", "cumsum f32 random: error / running sum of |x| =", err)
bad += err >= 1e-4
mk = rng.random(n) < 0.5
xr = em.asarray(r, device=dev)
check("x[mask]", xr[em.asarray(mk, device=dev)], r[mk])
check("nonzero", em.nonzero(em.asarray(np.maximum(r, 0), device=dev))[0], np.nonzero(np.maximum(r, 0))[0])
r3 = np.maximum(r[: (n // 65535) * 65535], 0).reshape(-1, 255, 257)
check("argwhere 3-d", em.argwhere(em.asarray(r3, device=dev)), np.argwhere(r3))
check("compress", em.compress(em.asarray(mk, device=dev), xr), np.compress(mk, r))
check("extract", em.extract(em.asarray(mk, device=dev), xr), np.extract(mk, r))
check("flatnonzero", em.flatnonzero(em.asarray(mk, device=dev)), np.flatnonzero(mk))
check("x[mask] all false", xr[em.asarray(np.zeros(n, bool), device=dev)], r[np.zeros(n, bool)])
check("x[mask] all true", xr[em.asarray(np.ones(n, bool), device=dev)], r)
mo = em.asarray(np.r_[False, mk], device=dev)[1:]  # an odd offset: no 16-byte loads
check("x[mask] unaligned mask", xr[mo], r[mk])
# the staged compaction (EMBER_NZ_STAGE): tile edges (4096 elements), every element size
for k in (1, 15, 16, 17, 4095, 4096, 4097, 3 * 4096 + 5):
    v = (rng.random(k) < 0.4).astype(np.float32) * rng.standard_normal(k).astype(np.float32)
    check(f"nonzero {k}", em.nonzero(em.asarray(v, device=dev))[0], np.nonzero(v)[0])
    mk2 = rng.random(k) < 0.7
    for dt in (np.int8, np.int16, np.float64, np.complex128):
        w = rng.integers(-100, 100, k).astype(dt)
        check(f"x[mask] {k} {np.dtype(dt).name}", em.asarray(w, device=dev)[em.asarray(mk2, device=dev)], w[mk2])
# geometric: the device's float32 decisions (render_random.c's em__geom_int_note) give
# NumPy's float64 formula on the stream's uniforms exactly
for pg in (0.2, 0.5, 0.9, 1e-3, 1e-6, 1.0):
    ug = em.asnumpy(em.random.default_rng(5).random(n, device=dev))
    with np.errstate(divide="ignore"):
        want = np.maximum(np.ceil(np.log1p(-ug) / np.log1p(-pg)), 1).astype(np.int64)
    check(f"geometric == NumPy p={pg}", em.random.default_rng(5).geometric(pg, n, device=dev), want)
print("WRONG TOTAL", bad)
if os.environ.get("PROBE_TIME", "1") == "0":
    raise SystemExit(bad != 0)

def t(f, k=20):
    f(); D.synchronize()
    ts = []
    for _ in range(k):
        t0 = time.perf_counter(); f(); D.synchronize(); ts.append(time.perf_counter() - t0)
    return sorted(ts)[len(ts) // 2] * 1e3
xf64 = em.asarray(r.astype(np.float64), device=dev)
xi = em.asarray(a, device=dev)
xl = em.asarray(r.reshape(16, -1), device=dev)
rows = [(f"cumsum f32 {n}", lambda: em.cumsum(xr)), (f"cumsum f64 {n}", lambda: em.cumsum(xf64)),
        (f"cumsum i32->i64 {n}", lambda: em.cumsum(xi)),
        (f"cumsum i32->i32 {n}", lambda: em.cumsum(xi, dtype=np.int32)),
        (f"cumprod f32 (16, {n // 16}) axis=1", lambda: em.cumprod(xl, axis=1))]
mode = {"": "regs", "0": "three", "1": "onepass"}.get(os.environ.get("EMBER_SCAN_ONEPASS", ""), "?")
mode += os.environ.get("EMBER_SCAN_TUNE", "")
for name, f in rows:
    print(f"TIME {mode:10s} {name:32s} {t(f):.4f} ms")
