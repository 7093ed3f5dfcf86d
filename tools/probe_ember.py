"""Ember's own kernels for the bandwidth shapes, each run twice
(for ncu: ncu --clock-control none -k regex:em_kernel python3 tools/probe_ember.py [which])."""
import sys

import numpy as np

import ember as em

which = sys.argv[1] if len(sys.argv) > 1 else "all"
if which in ("all", "add"):
    a = em.asarray(np.random.random(2**26).astype(np.float32))
    b = em.asarray(np.random.random(2**26).astype(np.float32))
    for _ in range(2):
        em.eval(a + b)
if which in ("all", "sum"):
    x = em.asarray(np.random.random(2**28).astype(np.float32))
    for _ in range(2):
        float(x.sum())
if which in ("all", "seed", "seed32"):
    y = em.asarray(np.random.random((1000, 100, 1000)).astype(np.float32))
    for _ in range(2):
        em.eval(em.sqrt(em.sum(y**2, axis=-1)))
if which in ("all", "seed", "seed64"):
    y = em.asarray(np.random.random((1000, 100, 1000)))
    for _ in range(2):
        em.eval(em.sqrt(em.sum(y**2, axis=-1)))
np.asarray(em.sum(em.asarray(np.ones(4, np.float32))))
