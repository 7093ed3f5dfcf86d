/* Integer division by zero in CPU kernels (src/host/fpe_guard.h): a SIGFPE
 * raised by the CPU inside em_fpe_run returns to it; launches of faulting
 * kernels (hand-written entry points) end in EM_EZERODIV on any thread,
 * and the @em.jit divz flag does too.  A failure here kills the test
 * binary, which ctest reports. */
#define _GNU_SOURCE /* feenableexcept */
#include "ctest.h"
#include "ember/kernel.h"
#include "host/fpe_guard.h"

#include <fenv.h>
#include <limits.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>

/* volatile: the compiler must emit the division, and cannot prove it UB.
 * UBSan (tools/dev.sh asan) must let these divisions reach the CPU. */
#define EM_RAW_DIV __attribute__((no_sanitize("undefined")))
static volatile int64_t g_divisor;
static volatile int64_t g_sink;

EM_RAW_DIV static void divide(void *arg) {
    volatile int64_t *x = arg; /* volatile: the store stays after the division */
    g_sink = *x / g_divisor;
    *x = -1; /* not reached after a fault */
}

static void nested(void *arg) {
    int64_t x = 10;
    int *inner = arg;
    *inner = em_fpe_run(divide, &x); /* the inner point catches it */
    g_sink = 1;                      /* and this outer one goes on */
}

static void test_run_returns_the_fault(void) {
    int64_t x = 7;
    g_divisor = 2;
    CHECK(em_fpe_run(divide, &x) == 0 && x == -1);
    x = 7, g_divisor = 0;
    CHECK(em_fpe_run(divide, &x) == FPE_INTDIV && x == 7);
    x = INT64_MIN, g_divisor = -1; /* x86 traps this too */
    CHECK(em_fpe_run(divide, &x) != 0 && x == INT64_MIN);
    int inner = 0;
    g_divisor = 0, g_sink = 0;
    CHECK(em_fpe_run(nested, &inner) == 0 && inner == FPE_INTDIV && g_sink == 1);
    CHECK(em_fpe_error(FPE_INTDIV, "kk") == EM_EZERODIV);
    CHECK(strstr(em_last_error(),
                 "integer division or modulo by zero (or INT_MIN / -1) in kernel 'kk'"));
}

/* A kernel that turns on FP traps (feenableexcept) and divides by 0.0. */
static volatile double g_fzero;

static void float_trap(void *arg) {
    volatile double *x = arg;
    feenableexcept(FE_DIVBYZERO);
    *x = 1.0 / g_fzero;
    fedisableexcept(FE_DIVBYZERO); /* not reached */
}

static void test_float_trap(void) {
    volatile double x = 0;
    int code = em_fpe_run(float_trap, (void *)&x);
    fedisableexcept(FE_ALL_EXCEPT); /* the jump left the trap on */
    feclearexcept(FE_ALL_EXCEPT);
    CHECK(code == FPE_FLTDIV && x == 0);
    CHECK(em_fpe_error(code, "fk") == EM_EZERODIV);
    char want[128];
    snprintf(
        want, sizeof want,
        "floating-point exception (SIGFPE, si_code %d: the kernel enabled FP traps) in kernel 'fk'",
        FPE_FLTDIV);
    CHECK(strstr(em_last_error(), want));
    CHECK(1.0 / g_fzero > 0); /* traps are off again: inf, no signal */
}

/* range entry: block `args[1]` divides by zero; every block counts itself. */
EM_RAW_DIV static void faulting_range(em_jit_ctx *c, const int64_t *args, int64_t b0, int64_t b1) {
    atomic_llong *count = (atomic_llong *)(intptr_t)args[0];
    (void)c;
    for (int64_t b = b0; b < b1; b++) {
        atomic_fetch_add(count, 1);
        if (b == args[1]) g_sink = b / g_divisor;
    }
}

static void test_launch_fault_on_any_thread(void) {
    enum { NB = 100000 };
    static atomic_llong count;
    g_divisor = 0;
    /* The fault in the first, the middle or the last block: the launching thread or a worker. */
    const int64_t where[3] = {0, NB / 2, NB - 1};
    for (int k = 0; k < 3; k++) {
        atomic_store(&count, 0);
        int64_t args[2] = {(int64_t)(intptr_t)&count, where[k]};
        em_jit_launch L = {.grid = {NB, 1, 1},
                           .block = {1, 1, 1},
                           .range = faulting_range,
                           .args = args,
                           .name = "faulty"};
        char *text = NULL;
        size_t len = 0;
        int oob = 0;
        CHECK(em_jit_cpu_launch(&L, &text, &len, &oob) == EM_EZERODIV);
        CHECK(strstr(em_last_error(),
                     "in kernel 'faulty': the CPU raised SIGFPE and the launch was stopped"));
        CHECK(text == NULL);
        CHECK(atomic_load(&count) <= NB);
    }
    /* The process goes on, and a launch that does not fault runs every block. */
    atomic_store(&count, 0);
    int64_t args[2] = {(int64_t)(intptr_t)&count, -1};
    em_jit_launch L = {.grid = {NB, 1, 1},
                       .block = {1, 1, 1},
                       .range = faulting_range,
                       .args = args,
                       .name = "ok"};
    char *text = NULL;
    size_t len = 0;
    int oob = 0;
    CHECK(em_jit_cpu_launch(&L, &text, &len, &oob) == EM_OK && atomic_load(&count) == NB);
}

/* thread entry (coroutines): thread 3 of block 1 divides by zero after a barrier. */
EM_RAW_DIV static void faulting_thread(em_jit_ctx *c, const int64_t *args) {
    (void)args;
    c->sync(c);
    if (c->bid[0] == 1 && c->tid[0] == 3) g_sink = c->tid[0] / g_divisor;
    c->sync(c);
}

static void test_coroutine_fault(void) {
    g_divisor = 0;
    em_jit_launch L = {
        .grid = {4, 1, 1}, .block = {8, 1, 1}, .thread = faulting_thread, .name = "co"};
    char *text = NULL;
    size_t len = 0;
    int oob = 0;
    CHECK(em_jit_cpu_launch(&L, &text, &len, &oob) == EM_EZERODIV);
    g_divisor = 1;
    CHECK(em_jit_cpu_launch(&L, &text, &len, &oob) == EM_OK);
}

/* range entry of an @em.jit kernel whose // met a zero divisor. */
static void divz_range(em_jit_ctx *c, const int64_t *args, int64_t b0, int64_t b1) {
    (void)args;
    if (b0 <= 3 && 3 < b1) c->divz = 1;
}

static void test_divz_flag(void) {
    em_jit_launch L = {.grid = {10, 1, 1}, .block = {32, 1, 1}, .range = divz_range, .name = "jk"};
    char *text = NULL;
    size_t len = 0;
    int oob = 0;
    CHECK(em_jit_cpu_launch(&L, &text, &len, &oob) == EM_EZERODIV);
    CHECK(!strcmp(em_last_error(), "integer division or modulo by zero in kernel 'jk'"));
}

/* An expression kernel: out[i] = 100 / in[i]; the call with lo = -1 records the fault. */
EM_RAW_DIV static void xk_div(long long lo, long long hi, long long n1, char *const *p,
                              const long long *shape, const long long *st, const void *const *sc) {
    (void)n1, (void)shape, (void)st;
    if (lo < 0) {
        *(int *)sc[0] = 1;
        return;
    }
    const int *in = (const int *)p[0];
    int *out = (int *)p[1];
    for (long long i = lo; i < hi; i++) out[i] = 100 / in[i];
}

static void test_xkernel_fault(void) {
    enum { N = 1 << 20 };
    int *in = malloc(N * sizeof *in), *out = malloc(N * sizeof *out);
    int cell = 0;
    const void *sc[1] = {&cell};
    for (int i = 0; i < N; i++) in[i] = 1 + i % 7;
    char *p[2] = {(char *)in, (char *)out};
    CHECK(em_xkernel_run(xk_div, N, N, 1, p, NULL, NULL, sc) == EM_OK && cell == 0 &&
          out[N - 1] == 100 / in[N - 1]);
    in[N - 10] = 0;
    CHECK(em_xkernel_run(xk_div, N, N, 1, p, NULL, NULL, sc) == EM_EZERODIV && cell == 1);
    cell = 0;
    CHECK(em_xkernel_run(xk_div, 100, 100, 1, p, NULL, NULL, sc) == EM_OK && cell == 0);
    in[5] = 0;
    CHECK(em_xkernel_run(xk_div, 100, 100, 1, p, NULL, NULL, sc) == EM_EZERODIV && cell == 1);
    free(in);
    free(out);
}

int main(void) {
    RUN(test_run_returns_the_fault);
    RUN(test_float_trap);
    RUN(test_launch_fault_on_any_thread);
    RUN(test_coroutine_fault);
    RUN(test_divz_flag);
    RUN(test_xkernel_fault);
    return ctest_summary();
}
