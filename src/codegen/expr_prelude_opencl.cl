// The prelude of expression kernels (em.ElementwiseKernel) built as OpenCL C:
// double where the device has it, float16 stored as ushort and converted
// through vload_half/vstore_half (core OpenCL 1.2, no cl_khr_fp16), abs of
// any type (OpenCL's abs takes integers only; 0 - x makes abs(-0.0) 0.0),
// and CUDA's __device__ in a preamble accepted as nothing.  min and max are
// OpenCL's (of floats: undefined for NaN).  python/ember/_expr.py puts it
// before every OpenCL kernel.  Embedded by cmake/embed_text.cmake, which
// drops these leading // lines.

#ifdef cl_khr_fp64
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
#endif
#define __device__
#define abs(x) ((x) <= 0 ? 0 - (x) : (x))
static inline float em__h2f(ushort h) { return vload_half(0, (const half *)&h); }
static inline ushort em__f2h(float f) {
    ushort h;
    vstore_half_rte(f, 0, (half *)&h);
    return h;
}
