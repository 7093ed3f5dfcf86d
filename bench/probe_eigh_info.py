"""eigh of 1000 x n x n stacks on CUDA (syevjBatched): Ember (its info read
only for a stack the input copy flags, the default) / Ember with
EMBER_EIGH_INFO=always / CuPy: host return time, one call on an idle GPU,
back-to-back rate; ms.  Run: python bench/probe_eigh_info.py (H100, session
21: bench/RESULTS.md, h100_linalg)."""
import os
import statistics
import time

import numpy as np
import ember as em
import ember._cusolver as cs
import cupy

dev = em.Device("cuda:0")
rng = np.random.default_rng(0)
cs._SMALL_EIGH = True
for dt, nn in ((np.float64, 16), (np.float32, 16), (np.float64, 32), (np.float32, 32),
               (np.complex128, 16)):
    a = rng.standard_normal((1000, nn, nn)) + (1j * rng.standard_normal((1000, nn, nn)) if np.dtype(dt).kind == "c" else 0)
    x = (a + a.conj().transpose(0, 2, 1)).astype(dt)
    e = em.asarray(x, device="cuda:0"); c = cupy.asarray(x)
    w0 = np.linalg.eigvalsh(x)
    assert np.allclose(np.asarray(em.linalg.eigvalsh(e).to_device("cpu")), w0, rtol=1e-3, atol=1e-3)
    for name in ("look", "always", "cupy", "look", "always", "cupy"):
        os.environ["EMBER_EIGH_INFO"] = "always" if name == "always" else ""
        f = (lambda: cupy.linalg.eigh(c)) if name == "cupy" else (lambda: em.linalg.eigh(e))
        sy = cupy.cuda.Device().synchronize if name == "cupy" else dev.synchronize
        for _ in range(3): f()
        sy()
        hs, ts = [], []
        for _ in range(25):
            sy()
            t0 = time.perf_counter(); f(); t1 = time.perf_counter(); sy(); t2 = time.perf_counter()
            hs.append(t1 - t0); ts.append(t2 - t0)
        bbs = []
        for _ in range(5):
            sy(); t0 = time.perf_counter()
            for _ in range(40): f()
            sy(); bbs.append((time.perf_counter() - t0) / 40)
        print(f"{np.dtype(dt).name} 1000x{nn}^2 {name:7s} host {statistics.median(hs)*1e3:.4f}  "
              f"one {statistics.median(ts)*1e3:.4f}  back-to-back {statistics.median(bbs)*1e3:.4f} ms", flush=True)
