/* A minimal test harness: CHECK records failures, RUN runs a test function,
 * ctest_summary prints "N passed, N failed" and gives the exit status. */
#ifndef EM_CTEST_H
#define EM_CTEST_H

#include "ember/ember.h"
#include <stdio.h>
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

static inline int ctest_summary(void) {
    printf("%d passed, %d failed\n", ctest_tests - ctest_failed_tests, ctest_failed_tests);
    return ctest_failed_tests != 0;
}

#endif
