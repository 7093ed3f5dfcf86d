/* Run-time loading (src/backend/dynlib.h): the first name that loads wins and
 * leaves why empty (cudalib/blas.c reads an empty why as "loaded": a stale
 * "could not load" there made cuBLAS unavailable on a GPU that had it); a
 * failure names every library tried; an $env path is final. */
#include "backend/dynlib.h"
#include "ctest.h"

#include <stdlib.h>
#include <string.h>

static void test_first_that_loads(void) {
    static const char *const names[] = {"libember-not-there.so.9", "libc.so.6", NULL};
    char why[128] = "stale text";
    void *h = em_dl_open(NULL, names, why, sizeof why);
    CHECK(h != NULL);
    CHECK(why[0] == '\0');
    if (h) dlclose(h);
}

static void test_none_loads(void) {
    static const char *const names[] = {"libember-a.so.1", "libember-b.so", NULL};
    char why[128] = "";
    CHECK(em_dl_open(NULL, names, why, sizeof why) == NULL);
    CHECK(strcmp(why, "could not load libember-a.so.1 libember-b.so") == 0);
}

static void test_env_path_is_final(void) {
    static const char *const names[] = {"libc.so.6", NULL};
    char why[256] = "";
    setenv("EMBER_TEST_DYNLIB", "/nonexistent/libx.so", 1);
    CHECK(em_dl_open("EMBER_TEST_DYNLIB", names, why, sizeof why) == NULL);
    CHECK(strstr(why, "EMBER_TEST_DYNLIB=/nonexistent/libx.so") != NULL);
    unsetenv("EMBER_TEST_DYNLIB");
}

int main(void) {
    RUN(test_first_that_loads);
    RUN(test_none_loads);
    RUN(test_env_path_is_final);
    return ctest_summary();
}
