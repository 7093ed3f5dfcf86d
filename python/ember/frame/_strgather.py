"""Gather rows of a string column (Arrow offsets + bytes) with two expression
kernels that every backend compiles (C on the CPU, CUDA, OpenCL):

1. each kept row's byte length, read from the source offsets at its index;
2. a scan of those lengths: the new offsets (the one host read is the total,
   the size of the byte buffer to allocate);
3. one work item per kept row copies its bytes to its new offset.

One pass over the kept rows' bytes, where the portable path of
``_column._take_strings`` makes several over byte-sized int64 arrays (each
byte's row by counting row ends and a scan) and Arrow's take on the CPU
copies through its builders.  A row is short (a few to a few hundred bytes),
so a thread per row is the shape cuDF's gather takes too; on the CPU the copy
is memcpy.  None is returned when the kernels cannot be built (no C compiler
on the CPU): the caller then keeps its other paths.
"""
import numpy as np

import ember as em

# Placeholder names, not C types: ``I`` would clash with <complex.h>'s I on the
# CPU.  They bind to int64 (offsets and indices) and uint8 (the bytes).  The
# first kernel reads the source offsets at the (sorted, sparse) positions once
# and writes the starts beside the lengths, so the copy reads only sequential
# arrays; lengths go to n[1:] after a 0, and n's inclusive scan is the new
# offsets (no concatenation).
_LEN_SRC = """
SOff s = offs[idx];
start = s;
n[i + 1] = offs[idx + 1] - s;
if (i == 0) n[0] = 0;
"""
_COPY_SRC = """
SOff a = start;
SOff b = dst;
SOff len = nxt - b;
#if defined(__CUDACC__) || defined(__OPENCL_VERSION__)
for (SOff k = 0; k < len; k++) out[b + k] = src[a + k];
#else
memcpy(&out[b], &src[a], (size_t)len);
#endif
"""

_kernels = None
_broken = set()  # device kinds whose compile failed once: not retried per call


def _get():
    global _kernels
    if _kernels is None:
        _kernels = (
            em.ElementwiseKernel("SOff idx, raw SOff offs", "SOff start, raw SOff n",
                                 _LEN_SRC, "ember_frame_str_len"),
            em.ElementwiseKernel("SOff start, SOff dst, SOff nxt, raw SByte src",
                                 "raw SByte out", _COPY_SRC, "ember_frame_str_gather"))
    return _kernels


def take(offsets, data, idx):
    """(new offsets, new bytes) of the rows at the int64 positions idx (each in
    range) of the string column (offsets int64 n+1, data uint8), on their
    device; None when the kernels are unavailable there."""
    dev = offsets.device
    kind = offsets._dev[0]
    if kind in _broken:
        return None
    m = int(idx.shape[0])
    if m == 0:
        return em.zeros(1, dtype=np.int64, device=dev), em.zeros(0, dtype=np.uint8, device=dev)
    lens_k, copy_k = _get()
    offsets = offsets if offsets.dtype == np.int64 else offsets.astype(np.int64)
    start = em.empty(m, dtype=np.int64, device=dev)
    n = em.empty(m + 1, dtype=np.int64, device=dev)
    try:
        lens_k(idx, offsets, start, n)
    except em.CompileError:
        _broken.add(kind)
        return None
    new_offsets = em.cumsum(n)
    total = int(new_offsets[m])
    out = em.empty(total, dtype=np.uint8, device=dev)
    if total:
        copy_k(start, new_offsets[:m], new_offsets[1:], data, out)
    return new_offsets, out
