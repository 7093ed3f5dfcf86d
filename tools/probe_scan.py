"""Scan timings on the device: flattened and long-line along-axis cumsum."""
import time

import numpy as np

import ember as em


def t(fn, reps=20):
    np.asarray(fn()[:1])
    t0 = time.perf_counter()
    for _ in range(reps):
        r = fn()
    np.asarray(r.reshape(-1)[:1])
    return (time.perf_counter() - t0) / reps * 1e3


x = em.asarray(np.random.random(2**22).astype(np.float32))
y = em.asarray(np.random.random((4, 2**22)).astype(np.float32))
z = em.asarray(np.random.randint(0, 9, (4096, 1024)).astype(np.int32))
print(f"cumsum 2^22 f32 flattened   {t(lambda: em.cumsum(x)):8.3f} ms")
print(f"cumsum (4, 2^22) axis=1     {t(lambda: em.cumsum(y, axis=1)):8.3f} ms")
print(f"cumsum (4096, 1024) i32 ax1 {t(lambda: em.cumsum(z, axis=1)):8.3f} ms")
print(f"cumsum (4096, 1024) i32 ax0 {t(lambda: em.cumsum(z, axis=0)):8.3f} ms")
try:
    import cupy as cp
    cx = cp.asarray(np.random.random(2**22).astype(np.float32))
    cp.cumsum(cx)
    cp.cuda.Device().synchronize()
    t0 = time.perf_counter()
    for _ in range(20):
        r = cp.cumsum(cx)
    cp.cuda.Device().synchronize()
    print(f"cupy cumsum 2^22 f32        {(time.perf_counter() - t0) / 20 * 1e3:8.3f} ms")
except Exception as e:  # noqa: BLE001
    print("cupy:", e)
