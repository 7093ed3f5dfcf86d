/* The cache of freed device blocks that CUDA's and OpenCL's pools share
 * (src/backend/blockcache.h): rounding, best fit between half and the
 * whole of a block's size, reuse only on the stream a block was freed on,
 * draining with and without releasing.  (test_cuda_fake.c and
 * test_opencl_runtime.c drive it through the pools.) */
#include "backend/blockcache.h"
#include "ctest.h"

#include <stdlib.h>

static int released;
static size_t released_bytes;

static void count(void *ctx, uint64_t handle, size_t size) {
    CHECK(ctx == (void *)&released && handle != 0);
    released++;
    released_bytes += size;
}

static void test_round(void) {
    CHECK(em_block_round(0) == 512 && em_block_round(1) == 512 && em_block_round(512) == 512);
    CHECK(em_block_round(513) == 1024 && em_block_round(4096) == 4096);
}

/* The spare nodes a cache keeps (one allocation each), freed for LeakSanitizer. */
static void free_nodes(em_block_cache *c) {
    while (c->nodes) {
        em_block *b = c->nodes;
        c->nodes = b->next;
        free(b);
    }
}

static void test_best_fit_per_stream(void) {
    em_block_cache c = {0};
    int s1, s2; /* two streams: only their addresses matter */
    CHECK(em_block_keep(&c, 0x1000, 4096, &s1));
    CHECK(em_block_keep(&c, 0x2000, 2048, &s1));
    CHECK(em_block_keep(&c, 0x3000, 1024, &s2));
    CHECK(c.bytes == 7168);
    CHECK(em_block_take(&c, 1000, &s1) == 0);      /* each is more than twice 1000 */
    CHECK(em_block_take(&c, 1024, &s1) == 0x2000); /* 2048 is twice 1024: it fits */
    CHECK(em_block_take(&c, 1024, &s2) == 0x3000); /* exact, on its own stream */
    CHECK(em_block_take(&c, 1024, &s2) == 0);      /* taken already */
    CHECK(em_block_take(&c, 8192, &s1) == 0);      /* none large enough */
    CHECK(c.bytes == 4096 && c.nodes != NULL);     /* taken nodes are kept for reuse */
    CHECK(em_block_keep(&c, 0x4000, 3000, &s1));
    CHECK(em_block_take(&c, 2500, &s1) == 0x4000); /* 3000 fits better than 4096 */
    CHECK(em_block_take(&c, 2048, &s1) == 0x1000);
    CHECK(c.bytes == 0 && c.list == NULL);
    free_nodes(&c);
}

static void test_drain(void) {
    em_block_cache c = {0};
    int s;
    CHECK(em_block_keep(&c, 0x10, 512, &s) && em_block_keep(&c, 0x20, 1024, &s));
    released = 0, released_bytes = 0;
    em_block_drain(&c, count, &released);
    CHECK(released == 2 && released_bytes == 1536 && c.bytes == 0 && !c.list);
    /* Forgetting (a device reset) releases nothing. */
    CHECK(em_block_keep(&c, 0x30, 512, &s));
    em_block_drain(&c, NULL, NULL);
    CHECK(released == 2 && c.bytes == 0 && !c.list && em_block_take(&c, 512, &s) == 0);
}

int main(void) {
    RUN(test_round);
    RUN(test_best_fit_per_stream);
    RUN(test_drain);
    return ctest_summary();
}
