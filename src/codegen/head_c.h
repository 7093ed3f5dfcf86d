/* The C head of the scalar library (scalar.h): what it needs, in C11 for
 * the CPU.  The CPU loops include it, and the C dialect's prelude is this
 * file followed by scalar.h and scalar_complex.h.  C's <complex.h> is here,
 * so the complex transcendental functions are libm's (EM_LIBM_COMPLEX). */
#ifndef EM_CODEGEN_HEAD_C_H
#define EM_CODEGEN_HEAD_C_H

#include <complex.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#define EM_FN static inline
typedef int8_t em_i8;
typedef int16_t em_i16;
typedef int32_t em_i32;
typedef int64_t em_i64;
typedef uint8_t em_u8;
typedef uint16_t em_u16;
typedef uint32_t em_u32;
typedef uint64_t em_u64;
typedef float em_f32;
typedef double em_f64;
typedef struct em_f16 {
    unsigned short x;
} em_f16;
/* The layout of float _Complex / double _Complex (C11 6.2.5p13). */
typedef struct em_c64 {
    float re, im;
} em_c64;
typedef struct em_c128 {
    double re, im;
} em_c128;

#define EM_ISLESS(a, b) isless(a, b)
#define EM_ISGREATER(a, b) isgreater(a, b)
#define EM_NANF NAN
#define EM_NAN ((double)NAN)

/* float16 storage through the compiler's _Float16 (round to nearest even). */
EM_FN float em_h2f(em_f16 h) {
    _Float16 f;
    memcpy(&f, &h.x, 2);
    return (float)f;
}
EM_FN em_f16 em_f2h(float v) {
    _Float16 f = (_Float16)v;
    em_f16 h;
    memcpy(&h.x, &f, 2);
    return h;
}

/* EM_OPAQUE(x): x is what it is (an empty asm that may have changed it), so
 * a product stored in x is rounded on its own and never fused into a later
 * sum.  -ffp-contract=off does not stop GCC 12's vectoriser from turning the
 * plain complex product into vfmaddsub in the AVX2 clones of the loops, and
 * a value would then depend on where in a loop it fell (fused != unfused). */
#if defined(__x86_64__) || defined(__i386__)
#define EM_OPAQUE(x) __asm__("" : "+x"(x))
#elif defined(__aarch64__)
#define EM_OPAQUE(x) __asm__("" : "+w"(x))
#else
#define EM_OPAQUE(x) __asm__("" : "+m"(x))
#endif

#define EM_LIBM_COMPLEX 1
EM_FN float _Complex em_z_c64(em_c64 a) { return __builtin_complex(a.re, a.im); }
EM_FN double _Complex em_z_c128(em_c128 a) { return __builtin_complex(a.re, a.im); }
EM_FN em_c64 em_c_c64(float _Complex z) {
    em_c64 c = {crealf(z), cimagf(z)};
    return c;
}
EM_FN em_c128 em_c_c128(double _Complex z) {
    em_c128 c = {creal(z), cimag(z)};
    return c;
}

#endif
