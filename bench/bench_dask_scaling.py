"""Dask scaling over GPUs (issue 6): the same workloads on a
``distributed.LocalCluster`` of 1 worker and of N workers
(``em.dask.cluster``: one process per GPU, each seeing only its own GPU),
reporting seconds and the speed-up.

  elementwise+reduction  chunks generated on the workers (no host data):
                         sum(sqrt(x*x + 1) * sin(x) - cos(x) / (1 + x*x))
                         over NCHUNK chunks of CHUNK float32
  svd                    da.linalg.svd (TSQR) of a tall-and-skinny float64
                         matrix generated on the workers

Run on a multi-GPU machine:  python bench/bench_dask_scaling.py [N]
On a CPU-only machine the workers are single-threaded CPU workers (a smoke
test of the script, not a measurement).  Each number is the best of 3 runs
after a warm-up run (which compiles the kernels on every worker)."""
import sys
import time

import numpy as np

import ember as em


def _chunk_sum(seed, n):
    """One chunk's work, run on a worker: the data never leaves its device."""
    import ember as em
    x = em.random.default_rng(seed).random(n, dtype=np.float32)
    y = em.sqrt(x * x + 1) * em.sin(x) - em.cos(x) / (1 + x * x)
    return float(em.sum(y))


def _svd_block(seed, rows, cols):
    import ember as em
    return em.random.default_rng(seed).standard_normal((rows, cols))


def elementwise(client, nchunk, chunk):
    futs = [client.submit(_chunk_sum, i, chunk, pure=False) for i in range(nchunk)]
    return sum(client.gather(futs))


def svd(client, nchunk, rows, cols):
    import dask
    import dask.array as da
    blocks = [da.from_delayed(dask.delayed(_svd_block)(i, rows, cols), (rows, cols), np.float64,
                              meta=em.empty((0, 0))) for i in range(nchunk)]
    x = da.concatenate(blocks, axis=0)
    u, s, v = da.linalg.svd(x)
    return client.compute(s, sync=True)


def best(fn, reps=3):
    fn()
    ts = []
    for _ in range(reps):
        t0 = time.perf_counter()
        fn()
        ts.append(time.perf_counter() - t0)
    return min(ts)


def run(nworkers, sizes):
    from distributed import Client
    with em.dask.cluster(n_workers=nworkers, host="127.0.0.1", dashboard_address=None) as c, \
            Client(c) as client:
        devs = client.run(lambda: "GPU " + __import__("os").environ.get("CUDA_VISIBLE_DEVICES", "-")
                          + " as " + str(__import__("ember").get_device()))
        e = best(lambda: elementwise(client, sizes["nchunk"], sizes["chunk"]))
        s = best(lambda: svd(client, sizes["svd_chunks"], sizes["svd_rows"], sizes["svd_cols"]))
        return sorted(set(devs.values())), e, s


def main():
    gpus = em.cuda.device_count() if em.cuda.is_available() else 0
    n = int(sys.argv[1]) if len(sys.argv) > 1 else max(gpus, 2)
    if gpus:
        sizes = dict(nchunk=64, chunk=2**27, svd_chunks=16, svd_rows=2**18, svd_cols=64)
    else:
        sizes = dict(nchunk=8, chunk=2**20, svd_chunks=4, svd_rows=2**12, svd_cols=16)
    print(f"sizes: {sizes}; {gpus} GPUs")
    res = {k: run(k, sizes) for k in (1, n)}
    print(f"{'workers':>8s} {'devices':>36s} {'elementwise s':>14s} {'svd s':>10s}")
    for k, (devs, e, s) in res.items():
        print(f"{k:8d} {', '.join(devs):>36s} {e:14.3f} {s:10.3f}")
    (_, e1, s1), (_, en, sn) = res[1], res[n]
    print(f"speed-up with {n} workers: elementwise {e1 / en:.2f}x, svd {s1 / sn:.2f}x")


if __name__ == "__main__":
    main()
