"""Seed 004 ("CuPy: NumPy on the GPU"): the L2 norm in NumPy and Ember,
moving an array to the device and back, and the article's timing of
sqrt(sum(x**2, axis=-1)) -- done properly: warm against warm (a warm-up
call first: on a GPU it compiles kernels), the median of several runs, and
the device synchronised before the clock stops."""
import time

import numpy as np

import ember as em

x = [3, 4, 5]
x_np = np.array(x)
x_em = em.array(x)
print("Numpy: ", np.linalg.norm(x_np))
print("Ember: ", em.linalg.norm(x_em))

x_array = np.array([10, 22, 30])
x_em_array = em.asarray(x_array)
print(type(x_em_array), x_em_array.device)
print(type(em.asnumpy(x_em_array)), em.asnumpy(x_em_array))

def median_time(fn, sync=lambda: None, runs=5):
    """Median seconds of fn() over several runs, after a warm-up call (on a
    GPU the first call compiles the kernels; NumPy's first call pays for
    page faults), synchronising the device before each clock stop."""
    fn()
    sync()
    times = []
    for _ in range(runs):
        s = time.perf_counter()
        fn()
        sync()
        times.append(time.perf_counter() - s)
    return sorted(times)[len(times) // 2]


dev = em.get_device()
shape = (1000, 100, 1000) if dev.kind == "cuda" else (200, 100, 1000)
x_cpu = np.ones(shape)
x_dev = em.asarray(x_cpu, device=dev)   # on the CPU a wrap of x_cpu, on a GPU a copy
np_result = np.sqrt(np.sum(x_cpu**2, axis=-1))
em_result = em.sqrt(em.sum(x_dev**2, axis=-1))
np_time = median_time(lambda: np.sqrt(np.sum(x_cpu**2, axis=-1)))
em_time = median_time(lambda: em.sqrt(em.sum(x_dev**2, axis=-1)), dev.synchronize)
print(f"sqrt(sum(x**2, axis=-1)) on {shape} float64, median of 5 warm runs each:")
print(f"  Time consumed by NumPy: {np_time:.4f} s")
print(f"  Time consumed by Ember on {dev}: {em_time:.4f} s  "
      f"(NumPy's time / Ember's = {np_time / em_time:.1f})")
print("results equal:", np.allclose(em.asnumpy(em_result), np_result))
