/* A minimal test harness: CHECK records failures, RUN runs a test function,
 * ctest_summary prints "N passed, N failed" and gives the exit status. */
#ifndef EM_CTEST_H
#define EM_CTEST_H

#include "ember/ember.h"
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int ctest_checks, ctest_failures, ctest_tests, ctest_failed_tests;

#define CHECK(cond)                                                                           \
    do {                                                                                      \
        ctest_checks++;                                                                       \
        if (!(cond)) {                                                                        \
            ctest_failures++;                                                                 \
            fprintf(stderr, "%s:%d: CHECK failed: %s (last error: %s)\n", __FILE__, __LINE__, \
                    #cond, em_last_error());                                                  \
        }                                                                                     \
    } while (0)

#define RUN(fn)                                                             \
    do {                                                                    \
        int before = ctest_failures;                                        \
        fn();                                                               \
        ctest_tests++;                                                      \
        if (ctest_failures != before) ctest_failed_tests++;                 \
        printf("%s %s\n", ctest_failures == before ? "ok  " : "FAIL", #fn); \
    } while (0)

/* EMBER_TEST_RENDER_ONLY=1 (tools/dev.sh asan sets it): kernels are rendered
 * and their text checked, but NVRTC, the OpenCL platform's compiler and the
 * host's C++ compiler (the CUDA emulation) are not run.  Those are other
 * programs' code, compiled and run by the plain pass; under the sanitizer they
 * were most of the C tests' time and check nothing of Ember's memory. */
static inline bool ctest_compilers_off(void) {
    const char *v = getenv("EMBER_TEST_RENDER_ONLY");
    return v && *v && strcmp(v, "0") != 0;
}

/* The host's C++ compiler for the CUDA emulation tests. */
static inline bool ctest_have_cxx(void) {
    return !ctest_compilers_off() && system("c++ --version > /dev/null 2>&1") == 0;
}

static inline int ctest_summary(void) {
    printf("%d passed, %d failed\n", ctest_tests - ctest_failed_tests, ctest_failed_tests);
    return ctest_failed_tests != 0;
}

#endif
