// The prelude of @em.jit kernels rendered as CUDA C for NVRTC (the CUDA
// dialect; python/ember/_jit/render.py puts it before every kernel).
// Storage types em_i8 .. em_f64, the bounds-check context, the dynamic
// shared memory, the helpers that give Python/NumPy semantics where C
// differs (// and % rounding down and returning 0 for a zero divisor,
// shifts past the width, float -> int64 conversions, NaN-propagating
// min/max), and atomics: native where the hardware has them, a CAS loop
// otherwise.  Kernel bodies are rendered once for both dialects; what
// differs between them is spelled by the dialect table (codegen/dialect.c).
// Embedded by cmake/embed_text.cmake, which drops these leading // lines.

typedef signed char em_i8; typedef short em_i16; typedef int em_i32; typedef long long em_i64;
typedef unsigned char em_u8; typedef unsigned short em_u16; typedef unsigned int em_u32;
typedef unsigned long long em_u64; typedef bool em_b; typedef float em_f32; typedef double em_f64;
typedef double em_fconv; /* the widest float converted to integers (jit_int_device.inc) */
typedef struct { int oob; int *err; em_i64 dyn; } em_ctx;
#define EM_DEV static __device__ __forceinline__
#define EM_INF __longlong_as_double(0x7ff0000000000000LL)
#define EM_NAN __longlong_as_double(0x7ff8000000000000LL)
__device__ char em_scratch[64];
extern __shared__ __align__(16) char em_dynshm[];
EM_DEV em_i64 em_bc(em_ctx *c, em_i64 i, em_i64 n) {
    if (i < 0) i += n;
    if (i < 0 || i >= n) { c->oob = 1; if (c->err) *c->err = 1; return 0; }
    return i;
}
EM_DEV void *em_bcp(em_ctx *c, void *p, em_i64 off, em_i64 size) {
    return c->oob ? (void *)em_scratch : (void *)((char *)p + off * size);
}
EM_DEV em_i32 em_atomic_add_int32(em_i32 *p, em_i32 v) { return atomicAdd(p, v); }
EM_DEV em_u32 em_atomic_add_uint32(em_u32 *p, em_u32 v) { return atomicAdd(p, v); }
EM_DEV em_i64 em_atomic_add_int64(em_i64 *p, em_i64 v) { return (em_i64)atomicAdd((em_u64 *)p, (em_u64)v); }
EM_DEV em_u64 em_atomic_add_uint64(em_u64 *p, em_u64 v) { return atomicAdd(p, v); }
EM_DEV em_f32 em_atomic_add_float32(em_f32 *p, em_f32 v) { return atomicAdd(p, v); }
EM_DEV em_f64 em_atomic_add_float64(em_f64 *p, em_f64 v) { return atomicAdd(p, v); }
EM_DEV em_i32 em_atomic_sub_int32(em_i32 *p, em_i32 v) { return atomicSub(p, v); }
EM_DEV em_u32 em_atomic_sub_uint32(em_u32 *p, em_u32 v) { return atomicSub(p, v); }
EM_DEV em_i64 em_atomic_sub_int64(em_i64 *p, em_i64 v) { return (em_i64)atomicAdd((em_u64 *)p, 0 - (em_u64)v); }
EM_DEV em_u64 em_atomic_sub_uint64(em_u64 *p, em_u64 v) { return atomicAdd(p, 0 - v); }
EM_DEV em_f32 em_atomic_sub_float32(em_f32 *p, em_f32 v) { return atomicAdd(p, -v); }
EM_DEV em_f64 em_atomic_sub_float64(em_f64 *p, em_f64 v) { return atomicAdd(p, -v); }
EM_DEV em_i32 em_atomic_max_int32(em_i32 *p, em_i32 v) { return atomicMax(p, v); }
EM_DEV em_u32 em_atomic_max_uint32(em_u32 *p, em_u32 v) { return atomicMax(p, v); }
EM_DEV em_i64 em_atomic_max_int64(em_i64 *p, em_i64 v) { return atomicMax(p, v); }
EM_DEV em_u64 em_atomic_max_uint64(em_u64 *p, em_u64 v) { return atomicMax(p, v); }
EM_DEV em_i32 em_atomic_min_int32(em_i32 *p, em_i32 v) { return atomicMin(p, v); }
EM_DEV em_u32 em_atomic_min_uint32(em_u32 *p, em_u32 v) { return atomicMin(p, v); }
EM_DEV em_i64 em_atomic_min_int64(em_i64 *p, em_i64 v) { return atomicMin(p, v); }
EM_DEV em_u64 em_atomic_min_uint64(em_u64 *p, em_u64 v) { return atomicMin(p, v); }
EM_DEV em_i32 em_atomic_exch_int32(em_i32 *p, em_i32 v) { return atomicExch(p, v); }
EM_DEV em_u32 em_atomic_exch_uint32(em_u32 *p, em_u32 v) { return atomicExch(p, v); }
EM_DEV em_i64 em_atomic_exch_int64(em_i64 *p, em_i64 v) { return (em_i64)atomicExch((em_u64 *)p, (em_u64)v); }
EM_DEV em_u64 em_atomic_exch_uint64(em_u64 *p, em_u64 v) { return atomicExch(p, v); }
EM_DEV em_f32 em_atomic_exch_float32(em_f32 *p, em_f32 v) { return atomicExch(p, v); }
EM_DEV em_f64 em_atomic_exch_float64(em_f64 *p, em_f64 v) { return __longlong_as_double((long long)atomicExch((em_u64 *)p, (em_u64)__double_as_longlong(v))); }
EM_DEV em_i32 em_atomic_cas_int32(em_i32 *p, em_i32 o, em_i32 v) { return atomicCAS(p, o, v); }
EM_DEV em_u32 em_atomic_cas_uint32(em_u32 *p, em_u32 o, em_u32 v) { return atomicCAS(p, o, v); }
EM_DEV em_i64 em_atomic_cas_int64(em_i64 *p, em_i64 o, em_i64 v) { return (em_i64)atomicCAS((em_u64 *)p, (em_u64)o, (em_u64)v); }
EM_DEV em_u64 em_atomic_cas_uint64(em_u64 *p, em_u64 o, em_u64 v) { return atomicCAS(p, o, v); }
EM_DEV em_f32 em_atomic_max_float32(em_f32 *p, em_f32 v) {
    em_u32 *q = (em_u32 *)p, old = *q, as;
    do { as = old; if (!(v > __uint_as_float(as))) break; old = atomicCAS(q, as, __float_as_uint(v)); } while (old != as);
    return __uint_as_float(old);
}
EM_DEV em_f32 em_atomic_min_float32(em_f32 *p, em_f32 v) {
    em_u32 *q = (em_u32 *)p, old = *q, as;
    do { as = old; if (!(v < __uint_as_float(as))) break; old = atomicCAS(q, as, __float_as_uint(v)); } while (old != as);
    return __uint_as_float(old);
}
EM_DEV em_f64 em_atomic_max_float64(em_f64 *p, em_f64 v) {
    em_u64 *q = (em_u64 *)p, old = *q, as;
    do { as = old; if (!(v > __longlong_as_double((long long)as))) break; old = atomicCAS(q, as, (em_u64)__double_as_longlong(v)); } while (old != as);
    return __longlong_as_double((long long)old);
}
EM_DEV em_f64 em_atomic_min_float64(em_f64 *p, em_f64 v) {
    em_u64 *q = (em_u64 *)p, old = *q, as;
    do { as = old; if (!(v < __longlong_as_double((long long)as))) break; old = atomicCAS(q, as, (em_u64)__double_as_longlong(v)); } while (old != as);
    return __longlong_as_double((long long)old);
}
