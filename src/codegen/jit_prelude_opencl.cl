// The prelude of @em.jit kernels rendered as OpenCL C 1.2 (the OpenCL
// dialect; python/ember/_jit/render.py puts it before every kernel).
// Storage types em_i8 .. em_f64 (bool is stored as uchar: OpenCL forbids
// bool in buffers), the bounds-check context, the helpers giving
// Python/NumPy semantics where C differs (as jit_prelude_cuda.cuh), C's
// float-suffixed math names mapped onto OpenCL's overloaded builtins
// (opencl_mathf.inc, which the build puts before this file, as it appends
// it to head_opencl.cl), and atomics.  OpenCL 1.2 has no generic address space,
// so each atomic exists once per space: _g (__global) and _l (__local);
// the renderer picks by the array's space.  float atomics and 64-bit
// min/max on devices without them are compare-exchange loops.
// Embedded by cmake/embed_text.cmake, which drops these leading // lines.

// No fused a * b + c: results as the CPU's (and NumPy's).
#pragma OPENCL FP_CONTRACT OFF
#ifdef cl_khr_fp64
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
#endif
#ifdef cl_khr_int64_base_atomics
#pragma OPENCL EXTENSION cl_khr_int64_base_atomics : enable
#endif
#ifdef cl_khr_int64_extended_atomics
#pragma OPENCL EXTENSION cl_khr_int64_extended_atomics : enable
#endif
typedef char em_i8; typedef short em_i16; typedef int em_i32; typedef long em_i64;
typedef uchar em_u8; typedef ushort em_u16; typedef uint em_u32; typedef ulong em_u64;
typedef uchar em_b; typedef float em_f32;
#ifdef cl_khr_fp64
typedef double em_f64; typedef double em_fconv;
#else
typedef float em_fconv;
#endif
typedef struct { int oob; __global int *err; em_i64 dyn; __local char *dynshm; } em_ctx;
#define EM_DEV static inline
#define EM_INF INFINITY
#define EM_NAN NAN
EM_DEV em_i64 em_bc(em_ctx *c, em_i64 i, em_i64 n) {
    if (i < 0) i += n;
    if (i < 0 || i >= n) { c->oob = 1; if (c->err) *c->err = 1; return 0; }
    return i;
}
/* A checked access after an out-of-bounds index reads element 0 (stores are skipped). */
EM_DEV em_i64 em_bcx(em_ctx *c, em_i64 off) { return c->oob ? 0 : off; }

// Atomics: EM_ATOMICS(space, suffix) defines them for one address space.
#define EM_CAS32(AS, p, T, PRED, NEWV) \
    volatile AS uint *q = (volatile AS uint *)p; uint old = *q, as; \
    do { as = old; T cur = as_##T(as); if (!(PRED)) break; \
         old = atomic_cmpxchg(q, as, as_uint((T)(NEWV))); } while (old != as); \
    return as_##T(old);
#define EM_CAS64(AS, p, T, PRED, NEWV) \
    volatile AS ulong *q = (volatile AS ulong *)p; ulong old = *q, as; \
    do { as = old; T cur = as_##T(as); if (!(PRED)) break; \
         old = atom_cmpxchg(q, as, as_ulong((T)(NEWV))); } while (old != as); \
    return as_##T(old);
#define EM_ATOMICS32(AS, S) \
EM_DEV em_i32 em_atomic_add_int32##S(AS em_i32 *p, em_i32 v) { return atomic_add(p, v); } \
EM_DEV em_u32 em_atomic_add_uint32##S(AS em_u32 *p, em_u32 v) { return atomic_add(p, v); } \
EM_DEV em_i32 em_atomic_sub_int32##S(AS em_i32 *p, em_i32 v) { return atomic_sub(p, v); } \
EM_DEV em_u32 em_atomic_sub_uint32##S(AS em_u32 *p, em_u32 v) { return atomic_sub(p, v); } \
EM_DEV em_i32 em_atomic_max_int32##S(AS em_i32 *p, em_i32 v) { return atomic_max(p, v); } \
EM_DEV em_u32 em_atomic_max_uint32##S(AS em_u32 *p, em_u32 v) { return atomic_max(p, v); } \
EM_DEV em_i32 em_atomic_min_int32##S(AS em_i32 *p, em_i32 v) { return atomic_min(p, v); } \
EM_DEV em_u32 em_atomic_min_uint32##S(AS em_u32 *p, em_u32 v) { return atomic_min(p, v); } \
EM_DEV em_i32 em_atomic_exch_int32##S(AS em_i32 *p, em_i32 v) { return atomic_xchg(p, v); } \
EM_DEV em_u32 em_atomic_exch_uint32##S(AS em_u32 *p, em_u32 v) { return atomic_xchg(p, v); } \
EM_DEV em_f32 em_atomic_exch_float32##S(AS em_f32 *p, em_f32 v) { return atomic_xchg(p, v); } \
EM_DEV em_i32 em_atomic_cas_int32##S(AS em_i32 *p, em_i32 o, em_i32 v) { \
    return atomic_cmpxchg(p, o, v); } \
EM_DEV em_u32 em_atomic_cas_uint32##S(AS em_u32 *p, em_u32 o, em_u32 v) { \
    return atomic_cmpxchg(p, o, v); } \
EM_DEV em_f32 em_atomic_add_float32##S(AS em_f32 *p, em_f32 v) { \
    EM_CAS32(AS, p, float, 1, cur + v) } \
EM_DEV em_f32 em_atomic_sub_float32##S(AS em_f32 *p, em_f32 v) { \
    EM_CAS32(AS, p, float, 1, cur - v) } \
EM_DEV em_f32 em_atomic_max_float32##S(AS em_f32 *p, em_f32 v) { \
    EM_CAS32(AS, p, float, v > cur, v) } \
EM_DEV em_f32 em_atomic_min_float32##S(AS em_f32 *p, em_f32 v) { \
    EM_CAS32(AS, p, float, v < cur, v) }
#define EM_ATOMICS64(AS, S) \
EM_DEV em_i64 em_atomic_add_int64##S(AS em_i64 *p, em_i64 v) { return atom_add(p, v); } \
EM_DEV em_u64 em_atomic_add_uint64##S(AS em_u64 *p, em_u64 v) { return atom_add(p, v); } \
EM_DEV em_i64 em_atomic_sub_int64##S(AS em_i64 *p, em_i64 v) { return atom_sub(p, v); } \
EM_DEV em_u64 em_atomic_sub_uint64##S(AS em_u64 *p, em_u64 v) { return atom_sub(p, v); } \
EM_DEV em_i64 em_atomic_exch_int64##S(AS em_i64 *p, em_i64 v) { return atom_xchg(p, v); } \
EM_DEV em_u64 em_atomic_exch_uint64##S(AS em_u64 *p, em_u64 v) { return atom_xchg(p, v); } \
EM_DEV em_i64 em_atomic_cas_int64##S(AS em_i64 *p, em_i64 o, em_i64 v) { \
    return atom_cmpxchg(p, o, v); } \
EM_DEV em_u64 em_atomic_cas_uint64##S(AS em_u64 *p, em_u64 o, em_u64 v) { \
    return atom_cmpxchg(p, o, v); } \
EM_DEV em_i64 em_atomic_max_int64##S(AS em_i64 *p, em_i64 v) { EM_CAS64(AS, p, long, v > cur, v) } \
EM_DEV em_u64 em_atomic_max_uint64##S(AS em_u64 *p, em_u64 v) { EM_CAS64(AS, p, ulong, v > cur, v) } \
EM_DEV em_i64 em_atomic_min_int64##S(AS em_i64 *p, em_i64 v) { EM_CAS64(AS, p, long, v < cur, v) } \
EM_DEV em_u64 em_atomic_min_uint64##S(AS em_u64 *p, em_u64 v) { EM_CAS64(AS, p, ulong, v < cur, v) }
#define EM_ATOMICSF64(AS, S) \
EM_DEV em_f64 em_atomic_add_float64##S(AS em_f64 *p, em_f64 v) { \
    EM_CAS64(AS, p, double, 1, cur + v) } \
EM_DEV em_f64 em_atomic_sub_float64##S(AS em_f64 *p, em_f64 v) { \
    EM_CAS64(AS, p, double, 1, cur - v) } \
EM_DEV em_f64 em_atomic_max_float64##S(AS em_f64 *p, em_f64 v) { \
    EM_CAS64(AS, p, double, v > cur, v) } \
EM_DEV em_f64 em_atomic_min_float64##S(AS em_f64 *p, em_f64 v) { \
    EM_CAS64(AS, p, double, v < cur, v) } \
EM_DEV em_f64 em_atomic_exch_float64##S(AS em_f64 *p, em_f64 v) { \
    return as_double(atom_xchg((volatile AS ulong *)p, as_ulong(v))); }
EM_ATOMICS32(__global, _g)
EM_ATOMICS32(__local, _l)
#ifdef cl_khr_int64_base_atomics
EM_ATOMICS64(__global, _g)
EM_ATOMICS64(__local, _l)
#if defined(cl_khr_fp64)
EM_ATOMICSF64(__global, _g)
EM_ATOMICSF64(__local, _l)
#endif
#endif
