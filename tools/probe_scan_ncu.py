"""The kernels behind issue 19's trailing rows, each op run REPS times (default
1), for ncu on a device call:

    ncu --section SpeedOfLight --section Occupancy --section LaunchStats \\
        python3 tools/probe_scan_ncu.py
OPS (comma-separated, default all): cumsum (the single pass in registers),
cumsum_three (the three tile kernels), cumsum_one (the single pass through shared
memory), cumsum_old, nonzero, nonzero_old, mask, digitize, geometric,
geometric_old, choice.
"""
import os

import numpy as np
import ember as em

dev = "cuda:0"
D = em.Device(dev)
n = 1 << 24
rng = np.random.default_rng(7)
r = rng.standard_normal(n).astype(np.float32)
x = em.asarray(r, device=dev)
xp = em.asarray(np.maximum(r, 0), device=dev)
mk = em.asarray(rng.random(n) < 0.5, device=dev)
edges = em.asarray(np.linspace(-4, 4, 1024, dtype=np.float32), device=dev)
g = em.random.default_rng(1)
ops = {
    "cumsum": ({}, lambda: em.cumsum(x)),
    "cumsum_three": ({"EMBER_SCAN_ONEPASS": "0"}, lambda: em.cumsum(x)),
    "cumsum_one": ({"EMBER_SCAN_ONEPASS": "1"}, lambda: em.cumsum(x)),
    "cumsum_old": ({"EMBER_SCAN_WARP": "0"}, lambda: em.cumsum(x)),
    "nonzero": ({}, lambda: em.nonzero(xp)),
    "nonzero_old": ({"EMBER_NZ_STAGE": "0"}, lambda: em.nonzero(xp)),
    "mask": ({}, lambda: x[mk]),
    "digitize": ({}, lambda: em.digitize(x, edges)),
    "geometric": ({}, lambda: g.geometric(0.2, n)),
    "choice": ({}, lambda: g.choice(x, 1 << 16)),
}
want = os.environ.get("OPS", ",".join(ops)).split(",")
for name in want:
    env, f = ops[name]
    for k in ("EMBER_SCAN_WARP", "EMBER_NZ_STAGE", "EMBER_SCAN_ONEPASS"):
        os.environ.pop(k, None)
    os.environ.update(env)
    print("op", name, flush=True)
    for _ in range(int(os.environ.get("REPS", "1"))):
        f()
        D.synchronize()
