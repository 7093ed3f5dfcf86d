// Ember CUDA prelude: storage types and the em_* functions that op
// spellings (include/ember/ops.def) call, with NumPy semantics.  Ints use
// the templates; float, double, complex and bool have their own overloads
// (an exact non-template match wins).  No headers: NVRTC's built-in math.
// Generated into prelude_cuda.h by tools/embed_prelude.py.
typedef signed char em_i8;
typedef short em_i16;
typedef int em_i32;
typedef long long em_i64;
typedef unsigned char em_u8;
typedef unsigned short em_u16;
typedef unsigned int em_u32;
typedef unsigned long long em_u64;
struct em_f16 { unsigned short x; };
struct em_c64 { float re, im; };
struct em_c128 { double re, im; };
#define EM_D __device__ __forceinline__
#define EM_T template <class T> EM_D

// ---- float16 storage (computed in float, rounded once on store) ----
#ifdef __CUDACC_RTC__
EM_D float em_h2f(em_f16 h) { float f; asm("cvt.f32.f16 %0, %1;" : "=f"(f) : "h"(h.x)); return f; }
EM_D em_f16 em_d2h(double d) { em_f16 h; asm("cvt.rn.f16.f64 %0, %1;" : "=h"(h.x) : "d"(d)); return h; }
EM_D em_f16 em_f2h(float f) { em_f16 h; asm("cvt.rn.f16.f32 %0, %1;" : "=h"(h.x) : "f"(f)); return h; }
#else  // host C++: tests/python/test_cuda_prelude.py checks these functions on the CPU
EM_D float em_h2f(em_f16 h) { _Float16 f; __builtin_memcpy(&f, &h.x, 2); return (float)f; }
EM_D em_f16 em_d2h(double d) { _Float16 f = (_Float16)d; em_f16 h; __builtin_memcpy(&h.x, &f, 2); return h; }
EM_D em_f16 em_f2h(float v) { _Float16 f = (_Float16)v; em_f16 h; __builtin_memcpy(&h.x, &f, 2); return h; }
#endif
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

// ---- complex helpers ----
template <class C, class R> EM_D C em_mk(R re, R im) { C c; c.re = re; c.im = im; return c; }
#define EM_CPLX(C, R, SQRT, HYPOT, EXP, LOG, SIN, COS, SINH, COSH, ATAN2)                      \
  EM_D C em_add(C a, C b) { return em_mk<C, R>(a.re + b.re, a.im + b.im); }                    \
  EM_D C em_subtract(C a, C b) { return em_mk<C, R>(a.re - b.re, a.im - b.im); }               \
  EM_D C em_multiply(C a, C b) { return em_mk<C, R>(a.re * b.re - a.im * b.im, a.re * b.im + a.im * b.re); } \
  EM_D C em_divide(C a, C b) {                                                                 \
    R abr = b.re < 0 ? -b.re : b.re, abi = b.im < 0 ? -b.im : b.im;                            \
    if (abr >= abi) {                                                                          \
      if (abr == 0 && abi == 0) return em_mk<C, R>(a.re / abr, a.im / abi);                    \
      R rat = b.im / b.re, scl = (R)1 / (b.re + b.im * rat);                                   \
      return em_mk<C, R>((a.re + a.im * rat) * scl, (a.im - a.re * rat) * scl);                \
    }                                                                                          \
    R rat = b.re / b.im, scl = (R)1 / (b.im + b.re * rat);                                     \
    return em_mk<C, R>((a.re * rat + a.im) * scl, (a.im * rat - a.re) * scl);                  \
  }                                                                                            \
  EM_D C em_negative(C a) { return em_mk<C, R>(-a.re, -a.im); }                                \
  EM_D C em_conj(C a) { return em_mk<C, R>(a.re, -a.im); }                                     \
  EM_D R em_absolute(C a) { return HYPOT(a.re, a.im); }                                        \
  EM_D R em_real(C a) { return a.re; }                                                         \
  EM_D R em_imag(C a) { return a.im; }                                                         \
  EM_D bool em_equal(C a, C b) { return a.re == b.re && a.im == b.im; }                        \
  EM_D bool em_not_equal(C a, C b) { return !(a.re == b.re && a.im == b.im); }                 \
  EM_D bool em_less(C a, C b) { return a.re < b.re || (a.re == b.re && a.im < b.im); }        \
  EM_D bool em_less_equal(C a, C b) { return a.re < b.re || (a.re == b.re && a.im <= b.im); }  \
  EM_D bool em_greater(C a, C b) { return em_less(b, a); }                                     \
  EM_D bool em_greater_equal(C a, C b) { return em_less_equal(b, a); }                         \
  EM_D bool em_isnan(C a) { return a.re != a.re || a.im != a.im; }                             \
  EM_D bool em_isinf(C a) { return isinf(a.re) || isinf(a.im); }                               \
  EM_D bool em_isfinite(C a) { return isfinite(a.re) && isfinite(a.im); }                      \
  EM_D C em_maximum(C a, C b) { return (em_isnan(a) || em_greater_equal(a, b)) ? a : b; }      \
  EM_D C em_minimum(C a, C b) { return (em_isnan(a) || em_less_equal(a, b)) ? a : b; }         \
  EM_D C em_fmax(C a, C b) { return (em_isnan(b) || em_greater_equal(a, b)) ? a : b; }         \
  EM_D C em_fmin(C a, C b) { return (em_isnan(b) || em_less_equal(a, b)) ? a : b; }            \
  EM_D C em_reciprocal(C a) { return em_divide(em_mk<C, R>(1, 0), a); }                        \
  EM_D C em_rint(C a) { return em_mk<C, R>(rint(a.re), rint(a.im)); }                          \
  EM_D C em_sign(C a) {                                                                        \
    R m = HYPOT(a.re, a.im);                                                                   \
    if (m == 0) return em_mk<C, R>(0, 0);                                                      \
    if (em_isnan(a)) return em_mk<C, R>(a.re + a.im, a.re + a.im);                            \
    return em_mk<C, R>(a.re / m, a.im / m);                                                    \
  }                                                                                            \
  EM_D C em_exp(C a) { R e = EXP(a.re); return em_mk<C, R>(e * COS(a.im), e * SIN(a.im)); }    \
  EM_D C em_log(C a) { return em_mk<C, R>(LOG(HYPOT(a.re, a.im)), ATAN2(a.im, a.re)); }        \
  EM_D C em_sqrt(C a) {                                                                        \
    if (a.re == 0 && a.im == 0) return em_mk<C, R>(0, a.im);                                   \
    R t = SQRT((a.re < 0 ? -a.re : a.re) / 2 + HYPOT(a.re, a.im) / 2);                         \
    if (a.re >= 0) return em_mk<C, R>(t, a.im / (2 * t));                                      \
    return em_mk<C, R>((a.im < 0 ? -a.im : a.im) / (2 * t), a.im < 0 ? -t : t);                \
  }                                                                                            \
  EM_D C em_power(C a, C b) {                                                                  \
    if (b.re == 0 && b.im == 0) return em_mk<C, R>(1, 0);                                      \
    if (a.re == 0 && a.im == 0) /* NumPy 2: 0 for re(b) > 0, else NaN */                     \
      return b.re > 0 ? em_mk<C, R>(0, 0) : em_mk<C, R>(nan(""), nan(""));                     \
    return em_exp(em_multiply(b, em_log(a)));                                                  \
  }                                                                                            \
  EM_D C em_exp2(C a) { return em_exp(em_multiply(a, em_mk<C, R>((R)0.693147180559945309417232121458176568, 0))); } \
  EM_D C em_expm1(C a) { return em_subtract(em_exp(a), em_mk<C, R>(1, 0)); }                   \
  EM_D C em_log1p(C a) { return em_log(em_add(a, em_mk<C, R>(1, 0))); }                       \
  EM_D C em_log2(C a) { C l = em_log(a); R k = (R)1.44269504088896340735992468100189214; return em_mk<C, R>(l.re * k, l.im * k); } \
  EM_D C em_log10(C a) { C l = em_log(a); R k = (R)0.434294481903251827651128918916605082; return em_mk<C, R>(l.re * k, l.im * k); } \
  EM_D C em_sin(C a) { return em_mk<C, R>(SIN(a.re) * COSH(a.im), COS(a.re) * SINH(a.im)); }  \
  EM_D C em_cos(C a) { return em_mk<C, R>(COS(a.re) * COSH(a.im), -SIN(a.re) * SINH(a.im)); } \
  EM_D C em_sinh(C a) { return em_mk<C, R>(SINH(a.re) * COS(a.im), COSH(a.re) * SIN(a.im)); } \
  EM_D C em_cosh(C a) { return em_mk<C, R>(COSH(a.re) * COS(a.im), SINH(a.re) * SIN(a.im)); } \
  EM_D C em_tan(C a) { return em_divide(em_sin(a), em_cos(a)); }                              \
  EM_D C em_tanh(C a) { return em_divide(em_sinh(a), em_cosh(a)); }                           \
  EM_D C em_arcsinh(C a) { return em_log(em_add(a, em_sqrt(em_add(em_multiply(a, a), em_mk<C, R>(1, 0))))); } \
  EM_D C em_arccosh(C a) { return em_log(em_add(a, em_multiply(em_sqrt(em_add(a, em_mk<C, R>(1, 0))), em_sqrt(em_subtract(a, em_mk<C, R>(1, 0)))))); } \
  EM_D C em_arctanh(C a) { C l = em_subtract(em_log1p(a), em_log1p(em_negative(a))); return em_mk<C, R>(l.re / 2, l.im / 2); } \
  EM_D C em_arcsin(C a) { C r = em_arcsinh(em_mk<C, R>(-a.im, a.re)); return em_mk<C, R>(r.im, -r.re); } \
  EM_D C em_arccos(C a) { C s = em_arcsin(a); return em_mk<C, R>((R)1.57079632679489661923132169163975144 - s.re, -s.im); } \
  EM_D C em_arctan(C a) { C r = em_arctanh(em_mk<C, R>(-a.im, a.re)); return em_mk<C, R>(r.im, -r.re); }
EM_CPLX(em_c64, float, sqrtf, hypotf, expf, logf, sinf, cosf, sinhf, coshf, atan2f)
EM_CPLX(em_c128, double, sqrt, hypot, exp, log, sin, cos, sinh, cosh, atan2)

// ---- integers and bool (templates); float and double below override ----
EM_T T em_add(T a, T b) { return (T)(a + b); }
EM_T T em_subtract(T a, T b) { return (T)(a - b); }
EM_T T em_multiply(T a, T b) { return (T)(a * b); }
EM_D bool em_add(bool a, bool b) { return a || b; }
EM_D bool em_multiply(bool a, bool b) { return a && b; }
EM_T bool em_signed() { return (T)-1 < (T)0; }
// Integer // and % without branches: the special divisors select a safe
// one (1) and the result, and the sign fix is a select.  With early
// returns, a fused chain of them (x = abs(x) % 1000; x = x // 2 + 3 ...)
// made NVRTC's compile time explode (25 int64 ops never finished).
EM_T T em_floor_divide(T a, T b) {
  const bool z = b == 0, m1 = em_signed<T>() && b == (T)-1;
  const T d = (z || m1) ? (T)1 : b;
  const T q = (T)(a / d), r = (T)(a % d);
  const bool fix = em_signed<T>() && r != 0 && ((r < 0) != (d < 0));
  const T f = fix ? (T)(q - 1) : q;
  return z ? (T)0 : m1 ? (T)(0 - (em_u64)a) : f;  // MIN // -1 wraps
}
EM_T T em_remainder(T a, T b) {
  const bool z = b == 0 || (em_signed<T>() && b == (T)-1);
  const T d = z ? (T)1 : b;
  const T r = (T)(a % d);
  const bool fix = em_signed<T>() && r != 0 && ((r < 0) != (d < 0));
  const T f = fix ? (T)(r + d) : r;
  return z ? (T)0 : f;
}
EM_T T em_power(T a, T b) {
  if (em_signed<T>() && b < 0) return a == 1 ? (T)1 : a == (T)-1 ? (T)((b & 1) ? -1 : 1) : (T)0;
  em_u64 r = 1, x = (em_u64)a, e = (em_u64)b;
  for (; e; e >>= 1, x *= x)
    if (e & 1) r *= x;
  return (T)r;
}
EM_D bool em_power(bool a, bool b) { return a || !b; }
EM_T T em_negative(T a) { return (T)(0 - a); }
EM_T T em_absolute(T a) { return (em_signed<T>() && a < 0) ? (T)(0 - a) : a; }
EM_D bool em_absolute(bool a) { return a; }
EM_T bool em_equal(T a, T b) { return a == b; }
EM_T bool em_not_equal(T a, T b) { return a != b; }
EM_T bool em_less(T a, T b) { return a < b; }
EM_T bool em_less_equal(T a, T b) { return a <= b; }
EM_T bool em_greater(T a, T b) { return a > b; }
EM_T bool em_greater_equal(T a, T b) { return a >= b; }
EM_T T em_invert(T a) { return (T)~a; }
EM_D bool em_invert(bool a) { return !a; }
EM_T T em_left_shift(T a, T b) {
  if ((em_signed<T>() && b < 0) || (em_u64)b >= sizeof(T) * 8) return 0;
  return (T)((em_u64)a << b);
}
EM_T T em_right_shift(T a, T b) {
  if ((em_signed<T>() && b < 0) || (em_u64)b >= sizeof(T) * 8) return (em_signed<T>() && a < 0) ? (T)-1 : (T)0;
  return (T)(a >> b);
}
EM_T T em_reciprocal(T a) { return a == 0 ? (T)0 : (T)(1 / a); }
EM_T T em_floor(T a) { return a; }
EM_T T em_ceil(T a) { return a; }
EM_T T em_trunc(T a) { return a; }
EM_T T em_rint(T a) { return a; }
EM_T T em_sign(T a) { return (T)((a > 0) - (em_signed<T>() ? (a < 0) : 0)); }
EM_T T em_maximum(T a, T b) { return a >= b ? a : b; }
EM_T T em_minimum(T a, T b) { return a <= b ? a : b; }
EM_T T em_fmax(T a, T b) { return a >= b ? a : b; }
EM_T T em_fmin(T a, T b) { return a <= b ? a : b; }
EM_T bool em_isnan(T a) { return false; }
EM_T bool em_isinf(T a) { return false; }
EM_T bool em_isfinite(T a) { return true; }
EM_T T em_real(T a) { return a; }
EM_T T em_imag(T a) { return 0; }
EM_T T em_conj(T a) { return a; }
// logical ops: the BOOL resolver gives them bool operands
EM_T bool em_logical_and(T a, T b) { return a && b; }
EM_T bool em_logical_or(T a, T b) { return a || b; }
EM_T bool em_logical_xor(T a, T b) { return (bool)a != (bool)b; }
EM_T bool em_logical_not(T a) { return !a; }
EM_T T em_bitwise_and(T a, T b) { return (T)(a & b); }
EM_T T em_bitwise_or(T a, T b) { return (T)(a | b); }
EM_T T em_bitwise_xor(T a, T b) { return (T)(a ^ b); }
EM_T bool em_signbit(T a) { return em_signed<T>() && a < (T)0; }
// C fmod on integers: the dividend's sign; by 0 (and MIN % -1) gives 0
EM_T T em_fmod(T a, T b) { return (T)((b == 0 || (em_signed<T>() && b == (T)-1)) ? 0 : a % b); }
// gcd by Euclid on magnitudes (|MIN| wraps, as in NumPy); lcm from it
EM_T T em_gcd(T a, T b) {
  em_u64 x = (em_signed<T>() && a < 0) ? (em_u64)0 - (em_u64)(em_i64)a : (em_u64)a;
  em_u64 y = (em_signed<T>() && b < 0) ? (em_u64)0 - (em_u64)(em_i64)b : (em_u64)b;
  while (y) { em_u64 t = x % y; x = y; y = t; }
  return (T)x;
}
EM_T T em_lcm(T a, T b) {
  T g = em_gcd(a, b);
  em_u64 x = (em_signed<T>() && a < 0) ? (em_u64)0 - (em_u64)(em_i64)a : (em_u64)a;
  em_u64 y = (em_signed<T>() && b < 0) ? (em_u64)0 - (em_u64)(em_i64)b : (em_u64)b;
  return (T)(g ? x / (em_u64)(T)g * y : 0);
}
// float16 nextafter steps in float16's own units (its loop is float16)
EM_D em_f16 em_nextafter(em_f16 a, em_f16 b) {
  float fa = em_h2f(a), fb = em_h2f(b);
  if (fa != fa || fb != fb) return em_f2h(fa + fb);
  if (fa == fb) return b;
  em_f16 r = a;
  if (fa == 0) r.x = fb > 0 ? 1 : 0x8001;
  else r.x = (unsigned short)((fa < fb) == (fa > 0) ? a.x + 1 : a.x - 1);
  return r;
}

// ---- float and double ----
#define EM_REAL(R, S)                                                                          \
  EM_D R em_add(R a, R b) { return a + b; }                                                    \
  EM_D R em_subtract(R a, R b) { return a - b; }                                               \
  EM_D R em_multiply(R a, R b) { return a * b; }                                               \
  EM_D R em_divide(R a, R b) { return a / b; }                                                 \
  EM_D R em_remainder(R a, R b) {                                                              \
    if (b == 0) return fmod##S(a, b);                                                          \
    R mod = fmod##S(a, b);                                                                     \
    if (mod != 0) { if ((b < 0) != (mod < 0)) mod += b; }                                      \
    else mod = copysign##S((R)0, b);                                                           \
    return mod;                                                                                \
  }                                                                                            \
  EM_D R em_floor_divide(R a, R b) {                                                           \
    if (b == 0) return a / b;                                                                  \
    R mod = fmod##S(a, b), div = (a - mod) / b;                                                \
    if (mod != 0 && (b < 0) != (mod < 0)) div -= 1;                                            \
    if (div == 0) return copysign##S((R)0, a / b);                                             \
    R fl = floor##S(div);                                                                      \
    return div - fl > (R)0.5 ? fl + 1 : fl;                                                    \
  }                                                                                            \
  EM_D R em_power(R a, R b) { return pow##S(a, b); }                                           \
  EM_D R em_negative(R a) { return -a; }                                                       \
  EM_D R em_absolute(R a) { return fabs##S(a); }                                               \
  EM_D R em_reciprocal(R a) { return (R)1 / a; }                                               \
  EM_D R em_sqrt(R a) { return sqrt##S(a); }                                                   \
  EM_D R em_exp(R a) { return exp##S(a); }                                                     \
  EM_D R em_exp2(R a) { return exp2##S(a); }                                                   \
  EM_D R em_expm1(R a) { return expm1##S(a); }                                                 \
  EM_D R em_log(R a) { return log##S(a); }                                                     \
  EM_D R em_log1p(R a) { return log1p##S(a); }                                                 \
  EM_D R em_log2(R a) { return log2##S(a); }                                                   \
  EM_D R em_log10(R a) { return log10##S(a); }                                                 \
  EM_D R em_sin(R a) { return sin##S(a); }                                                     \
  EM_D R em_cos(R a) { return cos##S(a); }                                                     \
  EM_D R em_tan(R a) { return tan##S(a); }                                                     \
  EM_D R em_arcsin(R a) { return asin##S(a); }                                                 \
  EM_D R em_arccos(R a) { return acos##S(a); }                                                 \
  EM_D R em_arctan(R a) { return atan##S(a); }                                                 \
  EM_D R em_sinh(R a) { return sinh##S(a); }                                                   \
  EM_D R em_cosh(R a) { return cosh##S(a); }                                                   \
  EM_D R em_tanh(R a) { return tanh##S(a); }                                                   \
  EM_D R em_arcsinh(R a) { return asinh##S(a); }                                               \
  EM_D R em_arccosh(R a) { return acosh##S(a); }                                               \
  EM_D R em_arctanh(R a) { return atanh##S(a); }                                               \
  EM_D R em_arctan2(R a, R b) { return atan2##S(a, b); }                                       \
  EM_D R em_hypot(R a, R b) { return hypot##S(a, b); }                                         \
  EM_D R em_copysign(R a, R b) { return copysign##S(a, b); }                                   \
  EM_D R em_nextafter(R a, R b) { return nextafter##S(a, b); }                                 \
  EM_D R em_logaddexp(R a, R b) {                                                              \
    if (a == b) return a + (R)0.693147180559945309417232121458176568;                          \
    R t = a - b;                                                                               \
    if (t > 0) return a + log1p##S(exp##S(-t));                                                \
    if (t <= 0) return b + log1p##S(exp##S(t));                                                \
    return t;                                                                                  \
  }                                                                                            \
  EM_D R em_floor(R a) { return floor##S(a); }                                                 \
  EM_D R em_ceil(R a) { return ceil##S(a); }                                                   \
  EM_D R em_trunc(R a) { return trunc##S(a); }                                                 \
  EM_D R em_rint(R a) { return rint##S(a); }                                                   \
  EM_D R em_sign(R a) { return a != a ? a : (R)((a > 0) - (a < 0)); }                          \
  EM_D bool em_signbit(R a) { return signbit(a); }                                             \
  EM_D R em_maximum(R a, R b) { return (a != a || a >= b) ? a : b; }                           \
  EM_D R em_minimum(R a, R b) { return (a != a || a <= b) ? a : b; }                           \
  EM_D R em_fmax(R a, R b) { return fmax##S(a, b); }                                           \
  EM_D R em_fmin(R a, R b) { return fmin##S(a, b); }                                           \
  EM_D bool em_isnan(R a) { return a != a; }                                                   \
  EM_D bool em_isinf(R a) { return isinf(a); }                                                 \
  EM_D bool em_isfinite(R a) { return isfinite(a); }                                           \
  EM_D R em_fmod(R a, R b) { return fmod##S(a, b); }                                           \
  EM_D R em_cbrt(R a) { return cbrt##S(a); }                                                   \
  EM_D R em_deg2rad(R a) { return a * (R)(3.141592653589793238462643383279502884 / 180); }      \
  EM_D R em_rad2deg(R a) { return a * (R)(180 / 3.141592653589793238462643383279502884); }      \
  EM_D R em_heaviside(R a, R b) { return a != a ? a : a == 0 ? b : a < 0 ? (R)0 : (R)1; }      \
  EM_D R em_logaddexp2(R a, R b) {                                                             \
    const R log2e = (R)1.442695040888963407359924681001892137;                                \
    if (a == b) return a + 1;                                                                  \
    R d = a - b;                                                                               \
    if (d > 0) return a + log2e * log1p##S(exp2##S(-d));                                        \
    if (d <= 0) return b + log2e * log1p##S(exp2##S(d));                                        \
    return d;                                                                                  \
  }
EM_REAL(float, f)
EM_REAL(double, )
// ---- end of Ember's prelude ----
