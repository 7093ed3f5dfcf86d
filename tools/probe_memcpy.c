/* The host half of a staged copy (src/backend/cuda/staging.c), without a
 * GPU: GB/s of copying a 256 MiB pageable array chunk by chunk into a ring
 * of four pre-touched buffers, with one thread (memcpy) and split over the
 * CPU pool as staging.c splits it, for several chunk sizes; and the
 * per-chunk cost of handing the split out.  A staged copy cannot beat the
 * pool's rate, and pays off where that rate is well above the driver's own
 * pageable copy (8-14 GB/s on the H100).
 *   cc -O2 -Iinclude -Isrc tools/probe_memcpy.c build/libember_static.a -lm -ldl -pthread -o /tmp/pm
 *   /tmp/pm */
#include "host/threadpool.h"
#include "ember/ember.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define MIB ((size_t)1 << 20)

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec * 1e-9;
}

typedef struct {
    char *d;
    const char *s;
    size_t n;
} mc;

/* As staging.c: whole pages, at least 256 KiB a thread. */
static void part(void *ctx, int64_t b, int64_t e, int w) {
    (void)w;
    const mc *m = ctx;
    size_t lo = (size_t)b * 4096, hi = (size_t)e * 4096;
    memcpy(m->d + lo, m->s + lo, (hi < m->n ? hi : m->n) - lo);
}

static void pcopy(void *d, const void *s, size_t n) {
    mc m = {d, s, n};
    em_parallel_for((int64_t)((n + 4095) / 4096), 64, part, &m);
}

/* Best of five: GB/s of moving n bytes from src through the ring in chunks. */
static double rate(char *src, size_t n, char **ring, size_t chunk, int par) {
    double best = 1e9;
    for (int r = 0; r < 5; r++) {
        double t0 = now();
        for (size_t off = 0, k = 0; off < n; off += chunk, k++) {
            size_t len = n - off < chunk ? n - off : chunk;
            if (par)
                pcopy(ring[k % 4], src + off, len);
            else
                memcpy(ring[k % 4], src + off, len);
        }
        double t = now() - t0;
        if (t < best) best = t;
    }
    return n / best / 1e9;
}

int main(void) {
    const size_t n = 256 * MIB;
    char *src = malloc(n), *ring[4];
    memset(src, 1, n);
    for (int i = 0; i < 4; i++) memset(ring[i] = malloc(8 * MIB), 0, 8 * MIB);
    printf("threads %d; 256 MiB pageable -> ring of 4 buffers, GB/s (best of 5)\n",
           em_get_num_threads());
    printf("%10s %10s %10s\n", "chunk MiB", "memcpy", "pool");
    for (size_t c = MIB; c <= 8 * MIB; c *= 2)
        printf("%10zu %10.1f %10.1f\n", c / MIB, rate(src, n, ring, c, 0),
               rate(src, n, ring, c, 1));
    /* The pool's cost per chunk: a 64 KiB chunk, where copying is cheap. */
    double t0 = now();
    for (int i = 0; i < 2000; i++) pcopy(ring[i % 4], src + (size_t)i * 65536, 65536 * 2);
    printf("pool hand-out of a 128 KiB chunk: %.1f us\n", (now() - t0) / 2000 * 1e6);
    return 0;
}
