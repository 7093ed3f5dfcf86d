"""Seed 000 on OpenCL ("N cards and A cards" through PyOpenCL): PyCUDA's
multiply_them written in OpenCL C, and PyOpenCL's introductory program (the
sum of two vectors), both in Ember's PyOpenCL-style API, on the best OpenCL
device found: the first GPU, else the first accelerator, else the first
device (PoCL's CPU device where no GPU has an OpenCL driver)."""
import numpy as np

import ember as em

if not em.opencl.is_available():
    print("seed000_opencl: skipped (no OpenCL device: the ICD loader or a driver is not installed)")
    raise SystemExit(0)


def best_opencl_device():
    infos = [(d, em.opencl.device_info(d)) for d in em.opencl.devices()]
    for kind in ("gpu", "accelerator"):
        for d, info in infos:
            if info["type"] == kind:
                return d
    return infos[0][0]


dev = best_opencl_device()
info = em.opencl.device_info(dev)
print(f"OpenCL device: {dev} ({info['name']}, {info['platform']})")

# PyCUDA's multiply_them, in OpenCL C: threadIdx.x of its one block of 400 is
# get_global_id(0) here (the same index whether the 400 items are one work-group or several).
prg = em.opencl.Program(r"""
__kernel void multiply_them(__global float *dest, __global const float *a,
                            __global const float *b)
{
  const int i = get_global_id(0);
  dest[i] = a[i] * b[i];
}
""", device=dev).build()
a = np.random.randn(400).astype(np.float32)
b = np.random.randn(400).astype(np.float32)
with dev:
    dest = em.zeros(400, dtype=np.float32)
    # one work-group of 400 items, as PyCUDA's block=(400,1,1), where the kernel may have one
    # that large; the limit is per kernel and device (NVIDIA's OpenCL gave this one 256 on an
    # H100), and over it the launch raises em.LaunchError: then the driver picks the groups.
    try:
        prg.multiply_them((400,), (400,), dest, em.asarray(a), em.asarray(b))
    except em.LaunchError as e:
        print(f"multiply_them: {e}; launching with the driver's work-groups")
        prg.multiply_them((400,), None, dest, em.asarray(a), em.asarray(b))
    print("multiply_them: max |dest - a*b| =", float(np.abs(dest.get() - a * b).max()))

    # PyOpenCL's first program: cl.Program(ctx, src).build(); knl(queue, shape, None, ...)
    a_np = np.random.rand(50000).astype(np.float32)
    b_np = np.random.rand(50000).astype(np.float32)
    a_g, b_g = em.asarray(a_np), em.asarray(b_np)  # cl.Buffer(ctx, COPY_HOST_PTR, hostbuf=...)
    res_g = em.empty_like(a_g)
    sum_prg = em.opencl.Program("""
    __kernel void sum(__global const float *a_g, __global const float *b_g, __global float *res_g)
    {
      int gid = get_global_id(0);
      res_g[gid] = a_g[gid] + b_g[gid];
    }
    """, device=dev).build()
    sum_prg.sum(a_np.shape, None, a_g, b_g, res_g)
    res_np = res_g.get()  # cl.enqueue_copy(queue, res_np, res_g)
    print("sum: equal to NumPy's a + b:", bool(np.array_equal(res_np, a_np + b_np)))

    # The same sum with Ember's own arrays on the device: one fused kernel.
    print("a_g + b_g on", dev, "equal:", bool(np.array_equal((a_g + b_g).get(), a_np + b_np)))
