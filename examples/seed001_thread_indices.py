"""Seed 001 ("numba.cuda for beginners"), first part: what a launch
gpu[2, 4]() looks like from inside -- threadIdx, blockIdx, blockDim and
gridDim, printed by every thread -- then the grid-size experiment: a grid of
2**50 blocks is beyond every device's limit and raises a clear LaunchError
(Numba's was CUDA_ERROR_INVALID_VALUE), while 2**30 blocks run."""
import time

import ember as em


@em.jit
def show_thread_idx():
    print("threadIdx:", em.threadIdx.x)


@em.jit
def show_block_idx():
    print("blockIdx:", em.blockIdx.x)


@em.jit
def show_block_dim():
    print("blockDim:", em.blockDim.x)


@em.jit
def show_grid_dim():
    print("gridDim:", em.gridDim.x)


@em.jit
def gpu():
    pass


for k in (show_thread_idx, show_block_idx, show_block_dim, show_grid_dim):
    k[2, 4]()
    em.get_device().synchronize()

try:
    gpu[2**50, 1]()
except em.LaunchError as e:
    print("LaunchError:", e)

# The article's grids: 2**30 blocks of 1 thread, then of 2**10 threads.  On a
# GPU both run in well under a second; the CPU runs the same launch when the
# kernel is empty (nothing to do), so both report success there too.
# Each launch is timed warm: the first launch of gpu compiles it.
gpu[1, 1]()
em.get_device().synchronize()
for blocks, threads in ((2**30, 1), (2**30, 2**10)):
    times = []
    for _ in range(3):
        t0 = time.perf_counter()
        gpu[blocks, threads]()
        em.get_device().synchronize()
        times.append(time.perf_counter() - t0)
    print(f"gpu[2**30, {threads}]: Running Success! "
          f"({sorted(times)[1]:.3f} s on {em.get_device()}, median of 3 launches)")

# select_device: Numba's spelling; the last device found, so the example runs
# on a one-GPU machine too.
if em.cuda.is_available():
    dev = em.cuda.select_device(em.cuda.device_count() - 1)
    gpu[2**10, 2**10]()
    print("select_device:", dev, "Running Success!")
