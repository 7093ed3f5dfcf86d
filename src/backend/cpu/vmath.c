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
 * loops of each op below.  EMBER_VMATH=avx512|avx2|off picks a variant
 * (one the CPU lacks falls back to the next narrower one), EMBER_NO_VMATH=1
 * is EMBER_VMATH=off; em_cpu_vmath_select does the same at run time, so
 * tests/c/test_vmath.c runs every variant this machine has.  The same loops
 * run fused and unfused, so fusion stays bit-identical.
 */
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

static int em__vwidth;                   /* EM_VMATH_OFF, _AVX2 or _AVX512 */
static void *em__vfn[EM_NOPS][2];        /* [op][0: float32, 1: float64] */
static em_loop_fn em__scalar[EM_NOPS][2]; /* the loops vmath replaced, to put back */
static void *em__mvec;                   /* libmvec's handle (kept open for the process) */

/* The runners below are not instrumented by ASan: under ASan the frame that
 * calls libmvec with a zmm argument gets redzones (or a fake stack when
 * detect_stack_use_after_return is on) and over-aligned spills of 512-bit
 * registers in such frames are a known source of misaligned vmovaps
 * (a SIGSEGV on AVX-512 hosts only: llvm-project#91565 is the clang form).
 * Without instrumentation the frame is a plain realigned one.  The ASan
 * build instead checks every vector's memory itself (em__vcheck), so an
 * overrun of the caller's buffers is still reported. */
#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/asan_interface.h>
static void em__vcheck(const void *p, size_t bytes, int is_write) {
    void *bad = __asan_region_is_poisoned((void *)(uintptr_t)p, bytes);
    if (bad)
        __asan_report_error(__builtin_return_address(0), __builtin_frame_address(0),
                            __builtin_frame_address(0), bad, is_write, bytes);
}
#define EM_VNOASAN __attribute__((no_sanitize_address))
#else
#define em__vcheck(p, bytes, is_write) ((void)0)
#define EM_VNOASAN
#endif

/* Full vectors straight from memory (unaligned loads and stores); the tail
 * through a zero-padded, 64-byte aligned stack buffer, so no access ever
 * reaches past element n-1 of a or o (exceptions are masked: log(0) in the
 * padding is harmless). */
#define EM_VRUN(NAME, T, VT, W, LOAD, STORE, TARGET)                                               \
    __attribute__((target(TARGET))) EM_VNOASAN static void NAME(void *f, int64_t n, T *o,       \
                                                                const T *a) {                   \
        VT (*fn)(VT) = (VT(*)(VT))f;                                                               \
        int64_t i = 0;                                                                             \
        for (; i + W <= n; i += W) {                                                               \
            em__vcheck(a + i, W * sizeof(T), 0);                                                   \
            em__vcheck(o + i, W * sizeof(T), 1);                                                   \
            STORE(o + i, fn(LOAD(a + i)));                                                         \
        }                                                                                          \
        if (i < n) {                                                                               \
            _Alignas(64) T buf[W];                                                                 \
            size_t rest = (size_t)(n - i) * sizeof(T);                                             \
            em__vcheck(a + i, rest, 0);                                                            \
            em__vcheck(o + i, rest, 1);                                                            \
            memset(buf, 0, sizeof buf);                                                            \
            memcpy(buf, a + i, rest);                                                              \
            STORE(buf, fn(LOAD(buf)));                                                             \
            memcpy(o + i, buf, rest);                                                              \
        }                                                                                          \
    }
EM_VRUN(em__run_d8, double, __m512d, 8, _mm512_loadu_pd, _mm512_storeu_pd, "avx512f")
EM_VRUN(em__run_f16, float, __m512, 16, _mm512_loadu_ps, _mm512_storeu_ps, "avx512f")
EM_VRUN(em__run_d4, double, __m256d, 4, _mm256_loadu_pd, _mm256_storeu_pd, "avx2")
EM_VRUN(em__run_f8, float, __m256, 8, _mm256_loadu_ps, _mm256_storeu_ps, "avx2")

static void em__vrun(void *f, int k, int64_t n, void *out, const void *in) {
    if (em__vwidth == EM_VMATH_AVX512) k ? em__run_d8(f, n, out, in) : em__run_f16(f, n, out, in);
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

/* Bind op's two variants of the current width; keep the scalar loops unless
 * both are there. */
static void em__bind(em_op op, const char *base, em_loop_fn vf, em_loop_fn vd) {
    char sf[48], sd[48];
    const char *pre = em__vwidth == EM_VMATH_AVX512 ? "_ZGVeN" : "_ZGVdN";
    int wf = em__vwidth == EM_VMATH_AVX512 ? 16 : 8, wd = wf / 2;
    snprintf(sf, sizeof sf, "%s%dv_%sf", pre, wf, base);
    snprintf(sd, sizeof sd, "%s%dv_%s", pre, wd, base);
    void *f = dlsym(em__mvec, sf), *d = dlsym(em__mvec, sd);
    if (!f || !d || !em__scalar[op][0] || !em__scalar[op][1]) return;
    em__vfn[op][0] = f, em__vfn[op][1] = d;
    em_cpu_loops[op][EM_FLOAT32] = vf, em_cpu_loops[op][EM_FLOAT64] = vd;
}

/* The widest variant at most `want` that this CPU runs. */
static int em__supported(int want) {
    __builtin_cpu_init();
    if (want >= EM_VMATH_AVX512 && __builtin_cpu_supports("avx512f")) return EM_VMATH_AVX512;
    if (want >= EM_VMATH_AVX2 && __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"))
        return EM_VMATH_AVX2;
    return EM_VMATH_OFF;
}

int em_cpu_vmath_select(int want) {
    static int saved;
    if (!saved) { /* the scalar loops, once: before any is replaced */
#define EM_VSAVE(OP, base)                                                                         \
    em__scalar[EM_OP_##OP][0] = em_cpu_loops[EM_OP_##OP][EM_FLOAT32];                            \
    em__scalar[EM_OP_##OP][1] = em_cpu_loops[EM_OP_##OP][EM_FLOAT64];
        EM_VMATH_OPS(EM_VSAVE)
#undef EM_VSAVE
        saved = 1;
    }
#define EM_VRESTORE(OP, base)                                                                      \
    em_cpu_loops[EM_OP_##OP][EM_FLOAT32] = em__scalar[EM_OP_##OP][0];                            \
    em_cpu_loops[EM_OP_##OP][EM_FLOAT64] = em__scalar[EM_OP_##OP][1];
    EM_VMATH_OPS(EM_VRESTORE)
#undef EM_VRESTORE
    em__vwidth = em__supported(want);
    if (em__vwidth != EM_VMATH_OFF && !em__mvec)
        em__mvec = dlopen("libmvec.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!em__mvec) em__vwidth = EM_VMATH_OFF;
    if (em__vwidth == EM_VMATH_OFF) return EM_VMATH_OFF;
#define EM_VBIND(OP, base) em__bind(EM_OP_##OP, #base, em__v_##OP##_f, em__v_##OP##_d);
    EM_VMATH_OPS(EM_VBIND)
#undef EM_VBIND
    return em__vwidth;
}

int em_cpu_vmath_isa(void) { return em__vwidth; }

void em_cpu_loops_init_vmath(void) {
    int want = EM_VMATH_AVX512;
    const char *off = getenv("EMBER_NO_VMATH"), *pick = getenv("EMBER_VMATH");
    if (pick && !strcmp(pick, "avx2")) want = EM_VMATH_AVX2;
    else if (pick && (!strcmp(pick, "off") || !strcmp(pick, "0") || !strcmp(pick, "none")))
        want = EM_VMATH_OFF;
    if (off && *off && strcmp(off, "0")) want = EM_VMATH_OFF;
    em_cpu_vmath_select(want);
}

#else
void em_cpu_loops_init_vmath(void) {}
int em_cpu_vmath_select(int want) { return EM_VMATH_OFF; }
int em_cpu_vmath_isa(void) { return EM_VMATH_OFF; }
#endif
// clang-format on
