"""Seed 004 ("CuPy: NumPy on the GPU"): the L2 norm in NumPy and Ember,
moving an array to the device and back, and the article's timing of
sqrt(sum(x**2, axis=-1)) -- done properly: a warm-up call first (it compiles
kernels), and the device synchronised before the clock stops."""
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

shape = (1000, 100, 1000) if em.get_device().kind == "cuda" else (200, 100, 1000)
x_cpu = np.ones(shape)
s = time.perf_counter()
np_result = np.sqrt(np.sum(x_cpu**2, axis=-1))
np_time = time.perf_counter() - s
print(f"Time consumed by NumPy {shape}: {np_time:.4f} s")

dev = em.get_device()
x_dev = em.ones(shape)
em_result = em.sqrt(em.sum(x_dev**2, axis=-1))     # warm-up: compiles on a GPU
dev.synchronize()
s = time.perf_counter()
em_result = em.sqrt(em.sum(x_dev**2, axis=-1))
dev.synchronize()
em_time = time.perf_counter() - s
print(f"Time consumed by Ember on {dev}: {em_time:.4f} s  ({np_time / em_time:.1f}x NumPy)")
print("results equal:", np.allclose(em.asnumpy(em_result), np_result))
