/* The C compiler JIT (ember/kernel.h): compile, load, cache, errors.
 * Skips (passes with a note) when the machine has no C compiler. */
#include "ctest.h"
#include "ember/kernel.h"

#include <stdlib.h>

static void test_load_and_call(void) {
    em_cc_lib *lib = NULL, *again = NULL;
    const char *src = "long em_t_add(long a, long b) { return a + b; }\n";
    CHECK(em_cc_load(src, "add", &lib) == EM_OK);
    CHECK(lib != NULL);
    long (*f)(long, long) = (long (*)(long, long))em_cc_sym(lib, "em_t_add");
    CHECK(f && f(40, 2) == 42);
    CHECK(em_cc_sym(lib, "no_such_symbol") == NULL);
    /* The same source again is the same object (the in-memory cache). */
    CHECK(em_cc_load(src, "add", &again) == EM_OK && again == lib);
}

static void test_flags(void) {
    /* -fwrapv: signed overflow wraps; -ffp-contract=off: a*b+c is rounded twice. */
    const char *src = "int em_t_wrap(int a) { return a + 1; }\n"
                      "double em_t_fma(double a, double b, double c) { return a * b + c; }\n";
    em_cc_lib *lib = NULL;
    CHECK(em_cc_load(src, "flags", &lib) == EM_OK);
    int (*w)(int) = (int (*)(int))em_cc_sym(lib, "em_t_wrap");
    double (*m)(double, double, double) =
        (double (*)(double, double, double))em_cc_sym(lib, "em_t_fma");
    CHECK(w && w(2147483647) == -2147483647 - 1);
    double a = 1.0 + 0x1p-30, c = -(1.0 + 0x1p-29);
    CHECK(m && m(a, a, c) == 0.0); /* a fused multiply-add would give 2^-60 */
}

static void test_compile_error(void) {
    em_cc_lib *lib = NULL;
    em_status s = em_cc_load("int f(void) {\n  return undefined_name;\n}\n", "broken", &lib);
    CHECK(s == EM_ECOMPILE);
    CHECK(lib == NULL);
    const char *msg = em_last_error();
    CHECK(strstr(msg, "could not compile 'broken'") != NULL);
    CHECK(strstr(msg, "undefined_name") != NULL);
    CHECK(strstr(msg, "   2    return undefined_name;") != NULL); /* numbered source */
}

/* EMBER_CC may carry arguments: it is split on blanks (main sets "cc -DEM_T_FROM_CC=5"). */
static void test_command_with_arguments(void) {
    if (strcmp(em_cc_command(), "cc -DEM_T_FROM_CC=5") != 0) return; /* no plain cc here */
    em_cc_lib *lib = NULL;
    CHECK(em_cc_load("int em_t_from_cc(void) { return EM_T_FROM_CC; }\n", "args", &lib) == EM_OK);
    int (*f)(void) = (int (*)(void))em_cc_sym(lib, "em_t_from_cc");
    CHECK(f && f() == 5);
}

static void test_bad_args(void) {
    em_cc_lib *lib = NULL;
    CHECK(em_cc_load(NULL, "x", &lib) == EM_EVALUE);
    CHECK(em_cc_load("int x;", "x", NULL) == EM_EVALUE);
    CHECK(em_cc_sym(NULL, "x") == NULL);
}

int main(void) {
    char dir[] = "/tmp/ember-test-cc-XXXXXX";
    if (!mkdtemp(dir)) return 1;
    setenv("EMBER_CACHE_DIR", dir, 1); /* a fresh cache: the first load compiles */
    if (!getenv("EMBER_CC") && system("cc --version >/dev/null 2>&1") == 0)
        setenv("EMBER_CC", "cc -DEM_T_FROM_CC=5", 1);
    if (!em_cc_available()) {
        printf("skipped: %s\n", em_last_error());
        return 0;
    }
    RUN(test_load_and_call);
    RUN(test_flags);
    RUN(test_compile_error);
    RUN(test_command_with_arguments);
    RUN(test_bad_args);
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    if (system(cmd) != 0) fprintf(stderr, "could not remove %s\n", dir);
    return ctest_summary();
}
