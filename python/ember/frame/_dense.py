"""Counting on dense integer codes, shared by merge, group-by and the string
gather: integer counts per code by a scatter-add (device atomics on CUDA and
OpenCL, NumPy's bincount on the CPU's shared buffer), and the owner of each
slot of a concatenation by counting row starts and a scan (no per-slot binary
search: O(slots) instead of O(slots log rows), and sequential on the CPU).
"""
import numpy as np

import ember as em
from ember import _scatter


def counts(codes, width):
    """int64 occurrences of each code 0..width-1 in the int Ember array codes
    (every code within range)."""
    dev = codes.device
    if int(codes.shape[0]) == 0:
        return em.zeros(width, dtype=np.int64, device=dev)
    if _scatter.on_device(codes):
        # em.bincount without weights sorts on a device; a scatter-add of ones
        # is one pass
        out = em.zeros(width, dtype=np.int64, device=dev)
        ones = em.ones(int(codes.shape[0]), dtype=np.int64, device=dev)
        return _scatter.scatter_add(out, codes.astype(np.int64), ones)
    return em.bincount(codes, minlength=width).astype(np.int64)


def owners(incl, total):
    """For the inclusive running totals incl of m row lengths (non-decreasing,
    incl[-1] == total), the row owning each slot j in 0..total-1: the number of
    rows that end at or before j (= searchsorted(incl, j, 'right')).  Rows of
    length 0 own nothing: several row ends on one slot count together."""
    if total == 0:
        return em.zeros(0, dtype=np.int64, device=incl.device)
    ends = incl[:-1].astype(np.int64)
    return em.cumsum(counts(ends, total + 1)[:total]).astype(np.int64)
