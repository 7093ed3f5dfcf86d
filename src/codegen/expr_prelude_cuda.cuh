// The prelude of expression kernels (em.ElementwiseKernel,
// em.ReductionKernel) compiled as CUDA C by NVRTC: abs of unsigned and bool
// values (ambiguous among CUDA's overloads), float16 conversions and a
// complex type with NumPy's layout (NVRTC needs no headers: no cuda_fp16.h
// or thrust); python/ember/_expr.py puts it before every kernel.
// Embedded by cmake/embed_text.cmake, which drops these leading // lines.

static __device__ __forceinline__ bool abs(bool v) { return v; }
static __device__ __forceinline__ unsigned char abs(unsigned char v) { return v; }
static __device__ __forceinline__ unsigned short abs(unsigned short v) { return v; }
static __device__ __forceinline__ unsigned int abs(unsigned int v) { return v; }
static __device__ __forceinline__ unsigned long long abs(unsigned long long v) { return v; }
static __device__ __forceinline__ float em__h2f(unsigned short h) {
  float f; asm("cvt.f32.f16 %0, %1;" : "=f"(f) : "h"(h)); return f; }
static __device__ __forceinline__ unsigned short em__f2h(float f) {
  unsigned short h; asm("cvt.rn.f16.f32 %0, %1;" : "=h"(h) : "f"(f)); return h; }
// complex64 / complex128 for expression kernels: NumPy's layout {re, im},
// arithmetic with real numbers and with each other (promoting to the wider),
// and the usual functions.
template <bool B, class X = void> struct em__if {};
template <class X> struct em__if<true, X> { typedef X type; };
template <class R> struct em_complex {
  R re, im;
  em_complex() = default;
  __device__ __forceinline__ em_complex(R r, R i = R(0)) : re(r), im(i) {}
  template <class S, typename em__if<(sizeof(S) <= sizeof(R)), int>::type = 0>
  __device__ __forceinline__ em_complex(const em_complex<S> &o) : re(o.re), im(o.im) {}
  template <class S, typename em__if<(sizeof(S) > sizeof(R)), int>::type = 0>
  __device__ __forceinline__ explicit em_complex(const em_complex<S> &o) : re((R)o.re), im((R)o.im) {}
  friend __device__ __forceinline__ em_complex operator+(em_complex a, em_complex b) { return em_complex(a.re + b.re, a.im + b.im); }
  friend __device__ __forceinline__ em_complex operator-(em_complex a, em_complex b) { return em_complex(a.re - b.re, a.im - b.im); }
  friend __device__ __forceinline__ em_complex operator*(em_complex a, em_complex b) {
    return em_complex(a.re * b.re - a.im * b.im, a.re * b.im + a.im * b.re); }
  friend __device__ __forceinline__ em_complex operator/(em_complex a, em_complex b) {  // Smith's method, as NumPy
    R abr = b.re < 0 ? -b.re : b.re, abi = b.im < 0 ? -b.im : b.im;
    if (abr >= abi) {
      if (abr == 0 && abi == 0) return em_complex(a.re / abr, a.im / abi);
      R rat = b.im / b.re, scl = R(1) / (b.re + b.im * rat);
      return em_complex((a.re + a.im * rat) * scl, (a.im - a.re * rat) * scl);
    }
    R rat = b.re / b.im, scl = R(1) / (b.im + b.re * rat);
    return em_complex((a.re * rat + a.im) * scl, (a.im * rat - a.re) * scl);
  }
  friend __device__ __forceinline__ em_complex operator-(em_complex a) { return em_complex(-a.re, -a.im); }
  friend __device__ __forceinline__ em_complex operator+(em_complex a) { return a; }
  friend __device__ __forceinline__ bool operator==(em_complex a, em_complex b) { return a.re == b.re && a.im == b.im; }
  friend __device__ __forceinline__ bool operator!=(em_complex a, em_complex b) { return !(a == b); }
  __device__ __forceinline__ em_complex &operator+=(em_complex b) { return *this = *this + b; }
  __device__ __forceinline__ em_complex &operator-=(em_complex b) { return *this = *this - b; }
  __device__ __forceinline__ em_complex &operator*=(em_complex b) { return *this = *this * b; }
  __device__ __forceinline__ em_complex &operator/=(em_complex b) { return *this = *this / b; }
  friend __device__ __forceinline__ R real(em_complex a) { return a.re; }
  friend __device__ __forceinline__ R imag(em_complex a) { return a.im; }
  friend __device__ __forceinline__ em_complex conj(em_complex a) { return em_complex(a.re, -a.im); }
  friend __device__ __forceinline__ R abs(em_complex a) { return hypot(a.re, a.im); }
  friend __device__ __forceinline__ R arg(em_complex a) { return atan2(a.im, a.re); }
  friend __device__ __forceinline__ em_complex exp(em_complex a) { R e = exp(a.re); return em_complex(e * cos(a.im), e * sin(a.im)); }
  friend __device__ __forceinline__ em_complex log(em_complex a) { return em_complex(log(abs(a)), arg(a)); }
  friend __device__ __forceinline__ em_complex sqrt(em_complex a) {  // principal root, as C's csqrt
    if (a.re == 0 && a.im == 0) return em_complex(0, a.im);
    R t = sqrt((fabs(a.re) + abs(a)) / 2);
    return a.re >= 0 ? em_complex(t, a.im / (2 * t)) : em_complex(fabs(a.im) / (2 * t), a.im < 0 ? -t : t);
  }
  friend __device__ __forceinline__ em_complex sin(em_complex a) { return em_complex(sin(a.re) * cosh(a.im), cos(a.re) * sinh(a.im)); }
  friend __device__ __forceinline__ em_complex cos(em_complex a) { return em_complex(cos(a.re) * cosh(a.im), -sin(a.re) * sinh(a.im)); }
};
static __device__ __forceinline__ float real(float x) { return x; }
static __device__ __forceinline__ double real(double x) { return x; }
static __device__ __forceinline__ float imag(float) { return 0; }
static __device__ __forceinline__ double imag(double) { return 0; }
