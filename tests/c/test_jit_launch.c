/* The CPU kernel launcher (ember/kernel.h) with hand-written entry
 * points (no compiler needed): launch limits, every block run once over the
 * thread pool, barriers through coroutines, print order, bounds flags. */
#include "ctest.h"
#include "ember/kernel.h"

#include <stdatomic.h>
#include <stdlib.h>

/* range entry: out[linear thread id] = block id * 1000 + thread id. */
static void fill_range(em_jit_ctx *c, const int64_t *args, int64_t b0, int64_t b1) {
    int64_t *out = (int64_t *)(intptr_t)args[0];
    int64_t nt = c->bdim[0] * c->bdim[1] * c->bdim[2];
    for (int64_t b = b0; b < b1; b++)
        for (int64_t t = 0; t < nt; t++) out[b * nt + t] = b * 1000 + t;
}

static void test_limits(void) {
    int64_t g[3] = {1, 1, 1}, b[3] = {1, 1, 1};
    CHECK(em_jit_check_launch("k", g, b, 0) == EM_OK);
    g[0] = (int64_t)1 << 50;
    CHECK(em_jit_check_launch("k", g, b, 0) == EM_ELAUNCH);
    CHECK(
        strstr(em_last_error(),
               "grid dimension x = 1125899906842624 is out of range: it must be 1 to 2147483647"));
    g[0] = 1, b[0] = 32, b[1] = 64;
    CHECK(em_jit_check_launch("k", g, b, 0) == EM_ELAUNCH);
    CHECK(
        strstr(em_last_error(), "2048 threads per block (32 x 64 x 1) exceeds the limit of 1024"));
    b[1] = 1, b[2] = 65;
    CHECK(em_jit_check_launch("k", g, b, 0) == EM_ELAUNCH);
    b[2] = 1;
    CHECK(em_jit_check_launch("k", g, b, 49153) == EM_ELAUNCH);
    CHECK(strstr(em_last_error(), "49153 bytes of shared memory"));
    g[1] = 0;
    CHECK(em_jit_check_launch("k", g, b, 0) == EM_ELAUNCH);
}

static void test_every_block_once(void) {
    enum { NB = 5000, NT = 3 };
    int64_t *out = calloc(NB * NT, sizeof *out);
    int64_t args[1] = {(int64_t)(intptr_t)out};
    em_jit_launch L = {
        .grid = {NB, 1, 1}, .block = {NT, 1, 1}, .range = fill_range, .args = args, .name = "fill"};
    char *text = NULL;
    size_t len = 99;
    int oob = 1;
    CHECK(em_jit_cpu_launch(&L, &text, &len, &oob) == EM_OK);
    CHECK(text == NULL && len == 0 && oob == 0);
    int bad = 0;
    for (int64_t i = 0; i < NB * NT; i++) bad += out[i] != (i / NT) * 1000 + i % NT;
    CHECK(bad == 0);
    free(out);
    L.shared_dyn = -1;
    CHECK(em_jit_cpu_launch(&L, &text, &len, &oob) == EM_ELAUNCH);
    L.shared_dyn = (int64_t)1 << 62;
    CHECK(em_jit_cpu_launch(&L, &text, &len, &oob) == EM_ELAUNCH);
    L.shared_dyn = 0, L.range = NULL;
    CHECK(em_jit_cpu_launch(&L, &text, &len, &oob) == EM_EVALUE);
}

/* thread entry: each thread stores its id in shared memory, waits at a
 * barrier, then reads its neighbour's (wrong without the barrier), prints. */
static void neighbour_thread(em_jit_ctx *c, const int64_t *args) {
    int64_t *out = (int64_t *)(intptr_t)args[0];
    int64_t *sh = (int64_t *)c->shared;
    int64_t n = c->bdim[0], t = c->tid[0];
    sh[t] = c->bid[0] * 100 + t;
    c->print(c, "b%lld t%lld before\n", (long long)c->bid[0], (long long)t);
    c->sync(c);
    out[c->bid[0] * n + t] = sh[(t + 1) % n];
    c->print(c, "b%lld t%lld after\n", (long long)c->bid[0], (long long)t);
    if (t == 0 && c->bid[0] == 1) c->oob = 1;
}

static void test_barriers_and_print_order(void) {
    enum { NB = 4, NT = 8 };
    int64_t out[NB * NT] = {0};
    int64_t args[1] = {(int64_t)(intptr_t)out};
    em_jit_launch L = {.grid = {NB, 1, 1},
                       .block = {NT, 1, 1},
                       .shared_static = NT * 8,
                       .thread = neighbour_thread,
                       .args = args,
                       .name = "neighbour"};
    char *text = NULL;
    size_t len = 0;
    int oob = 0;
    CHECK(em_jit_cpu_launch(&L, &text, &len, &oob) == EM_OK);
    for (int b = 0; b < NB; b++)
        for (int t = 0; t < NT; t++) CHECK(out[b * NT + t] == b * 100 + (t + 1) % NT);
    CHECK(oob == 1);
    /* (block, thread) order; each thread's lines together */
    char want[4096] = "";
    for (int b = 0; b < NB; b++)
        for (int t = 0; t < NT; t++) {
            char line[64];
            snprintf(line, sizeof line, "b%d t%d before\nb%d t%d after\n", b, t, b, t);
            strcat(want, line);
        }
    CHECK(text && len == strlen(want) && strcmp(text, want) == 0);
    free(text);
}

int main(void) {
    RUN(test_limits);
    RUN(test_every_block_once);
    RUN(test_barriers_and_print_order);
    return ctest_summary();
}
