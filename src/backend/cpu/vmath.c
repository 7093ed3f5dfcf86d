/* SIMD transcendental loops from glibc's libmvec, when the machine has it.
 *
 * The scalar loops call libm once per element; NumPy's own loops use SIMD
 * polynomials and were 1.3-4x faster on exp.  glibc ships vector versions
 * of the same functions (libmvec, the x86-64 vector function ABI:
 * _ZGVeN8v_exp takes and returns 8 doubles in a zmm register), accurate to
 * a few ulp with IEEE special values.  At load time libmvec is opened with
 * dlopen -- never linked, so a system without it (musl, other
 * architectures, old glibc) keeps the scalar loops -- and the widest
 * variant the CPU runs (AVX-512, else AVX2) replaces the float32/float64
 * loops of each op below.  EMBER_NO_VMATH=1 keeps the scalar loops
 * everywhere (to compare, or to rule libmvec out).  The same loops run
 * fused and unfused, so fusion stays bit-identical.
 */
/* clang-format 14 rewrites this file's macro bodies differently on each pass (it is not
 * idempotent there), so the file keeps its own layout. */
// clang-format off
#include "backend/cpu/loops.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#include <immintrin.h>

/* op, libmvec base name (the float32 variant adds 'f') */
#define EM_VMATH_OPS(X)                                                                            \
    X(EXP, exp) X(EXP2, exp2) X(EXPM1, expm1) X(LOG, log) X(LOG2, log2) X(LOG10, log10)            \
    X(LOG1P, log1p) X(SIN, sin) X(COS, cos) X(TAN, tan) X(SINH, sinh) X(COSH, cosh)                 \
    X(TANH, tanh) X(ARCSIN, asin) X(ARCCOS, acos) X(ARCTAN, atan) X(ARCSINH, asinh)                 \
    X(ARCCOSH, acosh) X(ARCTANH, atanh) X(CBRT, cbrt)

enum { EM_VW_NONE, EM_VW_AVX2, EM_VW_AVX512 };
static int em__vwidth;
static void *em__vfn[EM_NOPS][2];        /* [op][0: float32, 1: float64] */

/* Full vectors straight from memory; the tail through a zero-padded buffer
 * (exceptions are masked: log(0) in the padding is harmless). */
#define EM_VRUN(NAME, T, VT, W, LOAD, STORE, TARGET)                                               \
    __attribute__((target(TARGET))) static void NAME(void *f, int64_t n, T *o, const T *a) {      \
        VT (*fn)(VT) = (VT(*)(VT))f;                                                               \
        int64_t i = 0;                                                                             \
        for (; i + W <= n; i += W) STORE(o + i, fn(LOAD(a + i)));                                  \
        if (i < n) {                                                                               \
            T buf[W];                                                                              \
            memset(buf, 0, sizeof buf);                                                            \
            memcpy(buf, a + i, (size_t)(n - i) * sizeof(T));                                       \
            STORE(buf, fn(LOAD(buf)));                                                             \
            memcpy(o + i, buf, (size_t)(n - i) * sizeof(T));                                       \
        }                                                                                          \
    }
EM_VRUN(em__run_d8, double, __m512d, 8, _mm512_loadu_pd, _mm512_storeu_pd, "avx512f")
EM_VRUN(em__run_f16, float, __m512, 16, _mm512_loadu_ps, _mm512_storeu_ps, "avx512f")
EM_VRUN(em__run_d4, double, __m256d, 4, _mm256_loadu_pd, _mm256_storeu_pd, "avx2")
EM_VRUN(em__run_f8, float, __m256, 8, _mm256_loadu_ps, _mm256_storeu_ps, "avx2")

static void em__vrun(void *f, int k, int64_t n, void *out, const void *in) {
    if (em__vwidth == EM_VW_AVX512) k ? em__run_d8(f, n, out, in) : em__run_f16(f, n, out, in);
    else k ? em__run_d4(f, n, out, in) : em__run_f8(f, n, out, in);
}

/* A broadcast input (step 0) is computed once by the same vector function,
 * so a value never depends on how it reached the loop (fused or not). */
static void em__vloop(em_op op, int k, int64_t n, void *out, const void *const *in, const int64_t *st) {
    void *f = em__vfn[op][k];
    if (st[0]) {
        em__vrun(f, k, n, out, in[0]);
        return;
    }
    if (n <= 0) return;
    em__vrun(f, k, 1, out, in[0]);
    size_t w = k ? sizeof(double) : sizeof(float);
    for (int64_t i = 1; i < n; i++) memcpy((char *)out + i * (int64_t)w, out, w);
}

#define EM_VWRAP(OP, base)                                                                         \
    static void em__v_##OP##_f(int64_t n, void *o, const void *const *in, const int64_t *st) {   \
        em__vloop(EM_OP_##OP, 0, n, o, in, st);                                                    \
    }                                                                                              \
    static void em__v_##OP##_d(int64_t n, void *o, const void *const *in, const int64_t *st) {   \
        em__vloop(EM_OP_##OP, 1, n, o, in, st);                                                    \
    }
EM_VMATH_OPS(EM_VWRAP)

/* Bind op's two variants; keep the scalar loops unless both are there. */
static void em__bind(void *h, em_op op, const char *base, em_loop_fn vf, em_loop_fn vd) {
    char sf[48], sd[48];
    const char *pre = em__vwidth == EM_VW_AVX512 ? "_ZGVeN" : "_ZGVdN";
    int wf = em__vwidth == EM_VW_AVX512 ? 16 : 8, wd = wf / 2;
    snprintf(sf, sizeof sf, "%s%dv_%sf", pre, wf, base);
    snprintf(sd, sizeof sd, "%s%dv_%s", pre, wd, base);
    void *f = dlsym(h, sf), *d = dlsym(h, sd);
    if (!f || !d || !em_cpu_loops[op][EM_FLOAT32] || !em_cpu_loops[op][EM_FLOAT64]) return;
    em__vfn[op][0] = f, em__vfn[op][1] = d;
    em_cpu_loops[op][EM_FLOAT32] = vf, em_cpu_loops[op][EM_FLOAT64] = vd;
}

void em_cpu_loops_init_vmath(void) {
    const char *off = getenv("EMBER_NO_VMATH");
    if (off && *off && strcmp(off, "0")) return;
    __builtin_cpu_init();
    em__vwidth = __builtin_cpu_supports("avx512f") ? EM_VW_AVX512
                 : __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") ? EM_VW_AVX2 : EM_VW_NONE;
    if (em__vwidth == EM_VW_NONE) return;
    void *h = dlopen("libmvec.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!h) return; /* kept open for the process: the loops point into it */
#define EM_VBIND(OP, base) em__bind(h, EM_OP_##OP, #base, em__v_##OP##_f, em__v_##OP##_d);
    EM_VMATH_OPS(EM_VBIND)
#undef EM_VBIND
}

#else
void em_cpu_loops_init_vmath(void) {}
#endif
// clang-format on
