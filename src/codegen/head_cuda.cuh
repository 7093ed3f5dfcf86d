// The CUDA head of the scalar library (scalar.h): storage types, the
// function qualifier, float16 conversions, the float -> int conversions and
// the wide loads/stores the renderers use.  The build makes the CUDA
// prelude from this file, scalar.h, scalar_complex.h and a generated list
// of C++ overloads (em_add(a, b) for em_add_f32 ...) that the reduction and
// scan renderers still spell.  No headers: NVRTC's built-in math.
typedef signed char em_i8;
typedef short em_i16;
typedef int em_i32;
typedef long long em_i64;
typedef unsigned char em_u8;
typedef unsigned short em_u16;
typedef unsigned int em_u32;
typedef unsigned long long em_u64;
typedef float em_f32;
typedef double em_f64;
typedef struct em_f16 { unsigned short x; } em_f16;
typedef struct em_c64 { float re, im; } em_c64;
typedef struct em_c128 { double re, im; } em_c128;
#define EM_D __device__ __forceinline__
#define EM_FN __device__ __forceinline__
/* No barrier needed here (see head_c.h's EM_OPAQUE). */
#define EM_OPAQUE(x) ((void)0)
#define EM_ISLESS(a, b) ((a) < (b))
#define EM_ISGREATER(a, b) ((a) > (b))

// ---- float16 storage (computed in float, rounded once on store) ----
#ifdef __CUDACC_RTC__
#define EM_NANF __int_as_float(0x7fc00000)
#define EM_NAN __longlong_as_double(0x7ff8000000000000LL)
EM_D float em_h2f(em_f16 h) { float f; asm("cvt.f32.f16 %0, %1;" : "=f"(f) : "h"(h.x)); return f; }
EM_D em_f16 em_d2h(double d) { em_f16 h; asm("cvt.rn.f16.f64 %0, %1;" : "=h"(h.x) : "d"(d)); return h; }
EM_D em_f16 em_f2h(float f) { em_f16 h; asm("cvt.rn.f16.f32 %0, %1;" : "=h"(h.x) : "f"(f)); return h; }
#else  // host C++: tests/python/test_cuda_prelude.py checks these functions on the CPU
#define EM_NANF __builtin_nanf("")
#define EM_NAN __builtin_nan("")
EM_D float em_h2f(em_f16 h) { _Float16 f; __builtin_memcpy(&f, &h.x, 2); return (float)f; }
EM_D em_f16 em_d2h(double d) { _Float16 f = (_Float16)d; em_f16 h; __builtin_memcpy(&h.x, &f, 2); return h; }
EM_D em_f16 em_f2h(float v) { _Float16 f = (_Float16)v; em_f16 h; __builtin_memcpy(&h.x, &f, 2); return h; }
#endif

// Narrow signed integer results that may wrap (scalar.h's EM_WRAP32/64).  The PTX
// NVVM makes for them is right (neg.s16, abs.s32 ...), but the GPU ran it wrong
// where it wraps: -x % 7 at INT16_MIN gave 1 (32768 % 7) and abs(x) % 1000 at
// INT32_MIN gave 648, as if the value had stayed wide (the H200 run of
// 2026-11-26).  Computed in a wider unsigned type and passed through an empty asm
// that NVVM cannot see into, the value is narrowed by an explicit conversion in
// the PTX instead of by the 16-bit op or the abs.
#ifdef __CUDACC_RTC__
EM_D em_u32 em_opaque32(em_u32 x) { asm("" : "+r"(x)); return x; }
EM_D em_u64 em_opaque64(em_u64 x) { asm("" : "+l"(x)); return x; }
#else
EM_D em_u32 em_opaque32(em_u32 x) { return x; }
EM_D em_u64 em_opaque64(em_u64 x) { return x; }
#endif
#define EM_WRAP32(x) em_opaque32(x)
#define EM_WRAP64(x) em_opaque64(x)
// float -> int8/16/32, uint8/16 as the CPU backend (NumPy on x86): through
// int32, out-of-range values and NaN giving INT32_MIN, then the low bits.
EM_D em_i32 em_f2i32(double v) {
  return (v >= -2147483648.0 && v < 2147483648.0) ? (em_i32)v : (em_i32)(-2147483647 - 1);
}
// float -> integer bits as the CPU backend does it (no UB, no saturation).
EM_D em_u64 em_f2u(double v) {
  if (v >= -9223372036854775808.0 && v < 9223372036854775808.0) return (em_u64)(em_i64)v;
  if (v >= 9223372036854775808.0 && v < 18446744073709551616.0) return (em_u64)v;
  return (em_u64)1 << 63;
}

// ---- N consecutive elements, in one wide load or store where allowed ----
// The pack's alignment is its size up to 16 bytes (N and sizeof(T) are
// powers of two): a 16-byte-aligned run of floats is one 128-bit access.
#define EM_PACK_ALIGN(T, N) (sizeof(T) * (N) < 16 ? sizeof(T) * (N) : 16)
template <class T, int N> struct alignas(EM_PACK_ALIGN(T, N)) em_pack { T v[N]; };
template <class T, int N> EM_D bool em_packable(const char *a) {
  return (unsigned long long)a % EM_PACK_ALIGN(T, N) == 0;
}
// N elements at a, st bytes apart.
template <class T, int N> EM_D void em_ldg(T *v, const char *a, long long st) {
  if (st == (long long)sizeof(T) && em_packable<T, N>(a)) {
    const em_pack<T, N> t = *(const em_pack<T, N> *)a;
    for (int i = 0; i < N; i++) v[i] = t.v[i];
  } else {
    for (int i = 0; i < N; i++) v[i] = *(const T *)(a + i * st);
  }
}
// v into N consecutive elements at a (aligned: em_packable said so).
template <class T, int N> EM_D void em_stv(char *a, const T *v) {
  em_pack<T, N> t;
  for (int i = 0; i < N; i++) t.v[i] = v[i];
  *(em_pack<T, N> *)a = t;
}
// A complex value from its parts (the renderers' conversions).
template <class C, class R> EM_D C em_mk(R re, R im) { C c; c.re = re; c.im = im; return c; }
