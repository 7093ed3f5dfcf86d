/* The texts the build assembles for more than one prelude are in each of
 * them once: C's float-suffixed math names on OpenCL (src/codegen/
 * opencl_mathf.inc) in the scalar library's OpenCL prelude (after
 * head_opencl.cl, by tools/gen_scalar.c) and at the start of the OpenCL
 * @em.jit prelude (cmake/embed_text.cmake).  test_codegen_text.py checks the
 * jit preludes against their source files. */
#include "codegen/dialect.h"
#include "ctest.h"
#include "ember/kernel.h"

#include <string.h>

static int count(const char *text, const char *what) {
    int n = 0;
    for (const char *p = text; (p = strstr(p, what)); p++) n++;
    return n;
}

static void test_opencl_math_names_once_in_both(void) {
    const char *jit = em_jit_prelude("opencl"), *lib = em_dialect_opencl.prelude;
    CHECK(jit && lib);
    if (!jit || !lib) return;
    /* The jit prelude opens with the shared block: its #define lines. */
    const char *end = jit;
    while (!strncmp(end, "#define ", 8)) end += strcspn(end, "\n") + 1;
    size_t n = (size_t)(end - jit);
    char block[4096];
    CHECK(n < sizeof block);
    if (n >= sizeof block) return;
    memcpy(block, jit, n);
    block[n] = 0;
    CHECK(count(block, "#define ") >= 38); /* every name, not the first few */
    CHECK(count(jit, block) == 1 && count(lib, block) == 1);
    CHECK(count(lib, "#define sqrtf sqrt\n") == 1 && count(jit, "#define roundf round\n") == 1);
    /* Before the library, which spells the names by pasting: sqrt##M. */
    const char *at = strstr(lib, block), *use = strstr(lib, "sqrt##M(");
    CHECK(at && use && at < use);
}

int main(void) {
    RUN(test_opencl_math_names_once_in_both);
    return ctest_summary();
}
