"""eigh on CUDA through cuSOLVER: Ember (its info read
only for a stack the input copy flags, the default) / Ember with
EMBER_EIGH_INFO=always / CuPy: host return time, one call on an idle GPU,
back-to-back rate; ms; stacks (syevjBatched) and single matrices (syevd;
the Jacobi kernel below 9 x 9 is not timed here).  Run: python
bench/probe_eigh_info.py [ROW-SUBSTRING] (H100, session 21: bench/RESULTS.md,
h100_linalg)."""
import os
import statistics
import sys
import time

import numpy as np
import ember as em
import ember._cusolver as cs
import cupy

dev = em.Device("cuda:0")
rng = np.random.default_rng(0)
cs._SMALL_EIGH = True
CASES = [(np.float64, (1000, 16, 16)), (np.float32, (1000, 16, 16)),
         (np.float64, (1000, 32, 32)), (np.float32, (1000, 32, 32)),
         (np.complex128, (1000, 16, 16)), (np.float64, (16, 16)), (np.float64, (32, 32)),
         (np.float64, (64, 64)), (np.float64, (256, 256))]
only = sys.argv[1] if len(sys.argv) > 1 else ""  # a substring of the row names
for dt, shape in CASES:
    label = f"{np.dtype(dt).name} {'x'.join(map(str, shape))}"
    if only and only not in label:
        continue
    a = rng.standard_normal(shape)
    if np.dtype(dt).kind == "c":
        a = a + 1j * rng.standard_normal(shape)
    x = (a + np.swapaxes(a.conj(), -1, -2)).astype(dt)
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
        print(f"{label} {name:7s} host {statistics.median(hs)*1e3:.4f}  "
              f"one {statistics.median(ts)*1e3:.4f}  back-to-back {statistics.median(bbs)*1e3:.4f} ms", flush=True)
