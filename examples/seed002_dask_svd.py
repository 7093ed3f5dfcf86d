"""Seed 002, last part: Dask parallelises a NumPy-style SVD, and swapping the
chunk type for a GPU array library moves it to the GPU.  Here the chunks are
Ember arrays (on the best device found); da.linalg.svd runs its
tall-and-skinny QR on them unchanged.  Needs Dask (pip install dask)."""
import numpy as np

import ember as em

try:
    import dask
    import dask.array as da
except ImportError:
    print("seed002_dask_svd: Dask is not installed; skipped (pip install 'dask[array]')")
    raise SystemExit(0)

rows, cols, chunk = (200_000, 100, 20_000) if em.get_device().kind == "cuda" else (20_000, 50, 5_000)
a = np.random.default_rng(0).standard_normal((rows, cols))
x = da.from_array(a, chunks=(chunk, cols)).map_blocks(em.asarray)   # Ember chunks
print("chunk type:", type(x._meta).__module__ + "." + type(x._meta).__name__, "on", em.get_device())
with dask.config.set(scheduler="threads"):
    u, s, v = da.linalg.svd(x)
    u, s, v = dask.compute(u, s, v)
want = np.linalg.svd(a, compute_uv=False)
print("singular values match NumPy:", np.allclose(s.get(), want, rtol=1e-8))
print("u * s @ v reconstructs a:", np.allclose((u.get() * s.get()) @ v.get(), a, atol=1e-8))
