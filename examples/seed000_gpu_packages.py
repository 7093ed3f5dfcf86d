"""Seed 000 ("Using Python to play with the GPU"): the three styles the article
compares -- PyCUDA's raw CUDA C, Numba's decorator kernel and CuPy's NumPy
spelling -- all in Ember, on the best device found (CUDA if present, else the
CPU, where raw CUDA C and decorator kernels are compiled with the system C
compiler)."""
import numpy as np

import ember as em

# PyCUDA's SourceModule -> em.RawModule (CuPy's shape).
mod = em.RawModule(code=r"""
extern "C" __global__ void multiply_them(float *dest, float *a, float *b)
{
  const int i = threadIdx.x;
  dest[i] = a[i] * b[i];
}
""")
multiply_them = mod.get_function("multiply_them")
a = np.random.randn(400).astype(np.float32)
b = np.random.randn(400).astype(np.float32)
dest = em.zeros_like(em.asarray(a))
multiply_them((1,), (400,), (dest, em.asarray(a), em.asarray(b)))
print("multiply_them: max |dest - a*b| =", float(np.abs(dest.get() - a * b).max()))


# Numba's @cuda.jit -> @em.jit.
@em.jit
def increment_by_one(an_array):
    pos = em.grid(1)
    if pos < an_array.size:
        an_array[pos] += 1


x = em.arange(10, dtype=em.int32)
threads = 32
blocks = (x.size + threads - 1) // threads
increment_by_one[blocks, threads](x)
print("increment_by_one:", x.get().tolist())

# CuPy's NumPy spelling -> em. in place of np.
x_gpu = em.array([1, 2, 3])
l2_gpu = em.linalg.norm(x_gpu)
print("norm of [1, 2, 3]:", float(l2_gpu), f"(numpy: {float(np.linalg.norm([1, 2, 3]))})")
print("device:", em.get_device())
