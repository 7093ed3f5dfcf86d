/* The CUDA backend's host side against a fake driver (fake_libcuda.c,
 * compiled here into a shared library and loaded through EMBER_LIBCUDA):
 * device properties, the caching pool (reuse, retry after freeing the
 * cache, limits, messages), host copies, kernel argument packing and launch
 * configuration, launch-limit and fault errors, streams and events, and the
 * staged host copies (sizes, streams, pinned memory, failures).
 * Kernels do not run.  Skips when no C compiler or NVRTC is available. */
#include "backend/cuda/cuda_internal.h"
#include "codegen/run.h"
#include "ctest.h"

#include <dlfcn.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

static const em_device gpu = {EM_CUDA, 0};
static void *fake;
static unsigned *last_grid, *last_block;
static unsigned char *last_params;
static int (*fake_allocs)(void);
static size_t (*fake_used)(void);
static void (*fake_set)(int, size_t);
static void (*fake_fail_next_sync)(int);
static void (*fake_sticky_fault)(int);
static void (*fake_sticky_for_good)(int);
static int *fake_resets;

static void test_props(void) {
    int n = 0;
    CHECK(em_device_count(EM_CUDA, &n) == EM_OK && n == 1);
    em_device_props p;
    CHECK(em_device_props_get(gpu, &p) == EM_OK);
    CHECK(!strcmp(p.name, "Fake GPU") && p.compute_capability[0] == 9 &&
          p.multiprocessor_count == 4);
    CHECK(p.max_grid_dim[0] == 0x7fffffff && p.shared_memory_per_block == 48 * 1024);
    size_t fr, tot;
    CHECK(em_device_mem_info(gpu, &fr, &tot) == EM_OK && tot == (1u << 20));
}

static void test_pool_reuse(void) {
    int64_t sh[1] = {1000};
    em_array a;
    size_t used, total;
    int before = fake_allocs();
    CHECK(em_array_empty(&a, EM_FLOAT32, 1, sh, gpu) == EM_OK);
    em_cuda_pool_stats(0, &used, &total);
    CHECK(used == 4096 && total == 4096 && fake_allocs() == before + 1);
    em_array_release(&a);
    em_cuda_pool_stats(0, &used, &total);
    CHECK(used == 0 && total == 4096);
    CHECK(em_array_empty(&a, EM_FLOAT32, 1, sh, gpu) == EM_OK);
    CHECK(fake_allocs() == before + 1); /* the cached block came back */
    em_array_release(&a);
    em_cuda_pool_free_all(0);
    em_cuda_pool_stats(0, &used, &total);
    CHECK(total == 0 && fake_used() == 0);
}

static void test_pool_retry_and_oom(void) {
    int64_t s600[1] = {600 * 1024}, s700[1] = {700 * 1024};
    em_array a, b, c;
    CHECK(em_array_empty(&a, EM_UINT8, 1, s600, gpu) == EM_OK);
    em_array_release(&a); /* cached: 600 KiB held */
    /* 700 KiB does not fit beside the cached block: the cache is freed and the allocation retried. */
    CHECK(em_array_empty(&b, EM_UINT8, 1, s700, gpu) == EM_OK);
    CHECK(em_array_empty(&c, EM_UINT8, 1, s700, gpu) == EM_ENOMEM);
    CHECK(strstr(em_last_error(), "out of memory allocating 716800 bytes on cuda:0") != NULL);
    CHECK(strstr(em_last_error(), "bytes free") != NULL);
    em_array_release(&b);
    em_cuda_pool_set_limit(0, 8192);
    int64_t s16k[1] = {16384};
    CHECK(em_array_empty(&c, EM_UINT8, 1, s16k, gpu) == EM_ENOMEM);
    CHECK(strstr(em_last_error(), "pool limit is 8192 bytes") != NULL);
    em_cuda_pool_set_limit(0, 0);
    CHECK(em_array_empty(&c, EM_UINT8, 1, s16k, gpu) == EM_OK);
    em_array_release(&c);
    em_cuda_pool_free_all(0);
}

static void test_host_round_trip(void) {
    int64_t sh[2] = {3, 4};
    double host[12], back[12] = {0};
    for (int i = 0; i < 12; i++) host[i] = i * 1.5;
    em_array a;
    CHECK(em_array_empty(&a, EM_FLOAT64, 2, sh, gpu) == EM_OK);
    CHECK(em_array_write(&a, host, sizeof host) == EM_OK);
    CHECK(em_array_read(&a, back, sizeof back) == EM_OK && !memcmp(host, back, sizeof host));
    em_array_release(&a);
}

static void test_eval_launch(void) {
    if (em_nvrtc_init() != EM_OK) {
        printf("skip: %s\n", em_last_error());
        return;
    }
    int64_t sh[1] = {1000};
    em_array a, b, out = {0};
    CHECK(em_array_empty(&a, EM_FLOAT32, 1, sh, gpu) == EM_OK &&
          em_array_empty(&b, EM_FLOAT32, 1, sh, gpu) == EM_OK);
    const em_array *in[2] = {&a, &b};
    CHECK(em_ufunc(EM_OP_ADD, 2, in, EM_NDTYPES, &out) == EM_OK);
    CHECK(*last_block == 256 &&
          *last_grid == 1); /* the wide loop: 4 floats a thread, 250 threads */
    char *ptrs[3];
    long long n;
    memcpy(ptrs, last_params, sizeof ptrs), memcpy(&n, last_params + 24, 8);
    CHECK(ptrs[0] == out.data && ptrs[1] == a.data && ptrs[2] == b.data && n == 1000);
    /* A strided view: shape and byte strides follow n in the argument. */
    em_index_item it = {EM_IX_SLICE, 0, INT64_MAX, 3};
    em_array v, out2 = {0};
    CHECK(em_view_index(&a, 1, &it, &v) == EM_OK);
    const em_array *in2[1] = {&v};
    CHECK(em_ufunc(EM_OP_NEGATIVE, 1, in2, EM_NDTYPES, &out2) == EM_OK);
    long long f[4];
    memcpy(f, last_params + 16, sizeof f);
    CHECK(f[0] == 334 && f[1] == 334 && f[2] == 4 &&
          f[3] == 12); /* n, shape, out stride, in stride */
    /* A fault reported at the next synchronisation names the kernel. */
    fake_fail_next_sync(700);
    CHECK(em_device_synchronize(gpu) == EM_EDEVICE);
    CHECK(strstr(em_last_error(), "CUDA_ERROR_ILLEGAL_ADDRESS") &&
          strstr(em_last_error(), "negative_float32"));
    CHECK(em_device_synchronize(gpu) == EM_OK);
    em_array_release(&v), em_array_release(&out2);
    em_array_release(&a), em_array_release(&b), em_array_release(&out);
}

/* A faulting kernel leaves the context sticky (every call fails); the next
 * use of the device resets it (reset.c): arrays of before raise "lost",
 * their memory is never freed into the new pool, and new work runs. */
static void test_fault_recovery(void) {
    if (em_nvrtc_init() != EM_OK) return;
    em_cuda_pool_free_all(0);
    int64_t sh[1] = {256};
    float host[256], back[256];
    for (int i = 0; i < 256; i++) host[i] = (float)i;
    em_array a, b, c, out = {0};
    CHECK(em_array_empty(&a, EM_FLOAT32, 1, sh, gpu) == EM_OK);
    CHECK(em_array_write(&a, host, sizeof host) == EM_OK);
    CHECK(em_array_empty(&b, EM_FLOAT32, 1, sh, gpu) == EM_OK);
    em_array_release(&b); /* a cached block of the old context */
    int resets = *fake_resets;
    fake_sticky_fault(700);
    const em_array *in[1] = {&a};
    CHECK(em_ufunc(EM_OP_NEGATIVE, 1, in, EM_NDTYPES, &out) != EM_OK);
    CHECK(strstr(em_last_error(), "CUDA_ERROR_ILLEGAL_ADDRESS") != NULL);
    CHECK(*fake_resets == resets); /* not inside the failing call */
    /* The next use resets the device and works. */
    CHECK(em_device_synchronize(gpu) == EM_OK);
    CHECK(*fake_resets == resets + 1);
    size_t used, total;
    em_cuda_pool_stats(0, &used, &total);
    CHECK(used == 0 && total == 0); /* the cached block was forgotten, not freed */
    /* The array of before: a clear error, never a read of lost memory. */
    CHECK(em_array_read(&a, back, sizeof back) == EM_EDEVICE);
    CHECK(strstr(em_last_error(), "memory was lost when the device cuda:0 was reset") != NULL);
    CHECK(em_ufunc(EM_OP_NEGATIVE, 1, in, EM_NDTYPES, &out) == EM_EDEVICE);
    em_array_release(&a); /* not given to the new pool: its address may be reused */
    em_cuda_pool_stats(0, &used, &total);
    CHECK(used == 0 && total == 0);
    /* New arrays and kernels work (the kernel is loaded again into the new context). */
    CHECK(em_array_empty(&c, EM_FLOAT32, 1, sh, gpu) == EM_OK);
    CHECK(em_array_write(&c, host, sizeof host) == EM_OK);
    CHECK(em_array_read(&c, back, sizeof back) == EM_OK && !memcmp(host, back, sizeof host));
    in[0] = &c;
    CHECK(em_ufunc(EM_OP_NEGATIVE, 1, in, EM_NDTYPES, &out) == EM_OK);
    CHECK(em_device_synchronize(gpu) == EM_OK && *fake_resets == resets + 1);
    em_array_release(&out), em_array_release(&c);
    em_cuda_pool_stats(0, &used, &total);
    CHECK(used == 0 && total > 0);
    em_cuda_pool_free_all(0);
    /* A stream set before a reset reads as the default stream after it. */
    void *st = NULL;
    CHECK(em_stream_create(gpu, false, &st) == EM_OK);
    CHECK(em_stream_set(gpu, st) == EM_OK);
    void *cur = NULL;
    CHECK(em_stream_get(gpu, &cur) == EM_OK && cur == st);
    fake_sticky_fault(719);
    CHECK(em_device_synchronize(gpu) == EM_EDEVICE);
    CHECK(em_device_synchronize(gpu) == EM_OK && *fake_resets == resets + 2);
    CHECK(em_cu_stream() == NULL);
    CHECK(em_stream_set(gpu, NULL) == EM_OK);
    (void)em_stream_destroy(gpu, st); /* frees the fake's; a real driver refuses it */
}

/* A driver that keeps the sticky error (NVIDIA's: the process must exit):
 * the one reset fails, and from then on every use of the device raises the
 * same error, naming the fault and the restart, without calling the driver
 * again (no cascade); the CPU keeps working.  Run last: the device stays
 * dead for this process. */
static void test_fault_dead_device(void) {
    if (em_nvrtc_init() != EM_OK) return;
    int64_t sh[1] = {64};
    float host[64], back[64];
    for (int i = 0; i < 64; i++) host[i] = (float)i;
    em_array a, out = {0}, h, hout = {0};
    CHECK(em_array_empty(&a, EM_FLOAT32, 1, sh, gpu) == EM_OK);
    CHECK(em_array_write(&a, host, sizeof host) == EM_OK);
    int resets = *fake_resets;
    fake_sticky_for_good(1);
    fake_sticky_fault(700);
    const em_array *in[1] = {&a};
    CHECK(em_ufunc(EM_OP_NEGATIVE, 1, in, EM_NDTYPES, &out) != EM_OK);
    CHECK(strstr(em_last_error(), "CUDA_ERROR_ILLEGAL_ADDRESS") != NULL);
    CHECK(!em_cu_dead(0));
    CHECK(em_device_synchronize(gpu) == EM_EDEVICE); /* the reset is tried, and fails */
    CHECK(em_cu_dead(0) && *fake_resets == resets + 1);
    for (int k = 0; k < 3; k++) { /* then every call: the same one error */
        em_array c;
        em_status st = k == 0   ? em_device_synchronize(gpu)
                       : k == 1 ? em_array_empty(&c, EM_FLOAT32, 1, sh, gpu)
                                : em_ufunc(EM_OP_NEGATIVE, 1, in, EM_NDTYPES, &out);
        CHECK(st == EM_EDEVICE);
        const char *e = em_last_error();
        CHECK(strstr(e, "cuda:0 is unusable for the rest of this process") != NULL);
        CHECK(strstr(e, "CUDA_ERROR_ILLEGAL_ADDRESS") != NULL);
        CHECK(strstr(e, "restart the process") != NULL);
    }
    CHECK(*fake_resets == resets + 1); /* no reset tried again */
    /* The CPU keeps working. */
    CHECK(em_array_empty(&h, EM_FLOAT32, 1, sh, (em_device){EM_CPU, 0}) == EM_OK);
    CHECK(em_array_write(&h, host, sizeof host) == EM_OK);
    in[0] = &h;
    CHECK(em_ufunc(EM_OP_NEGATIVE, 1, in, EM_NDTYPES, &hout) == EM_OK);
    CHECK(em_array_read(&hout, back, sizeof back) == EM_OK && back[5] == -5.0f);
    em_array_release(&h), em_array_release(&hout), em_array_release(&a);
    fake_sticky_for_good(0);
}

static void test_reduce_launches(void) {
    if (em_nvrtc_init() != EM_OK) return;
    fake_set(1024, (size_t)64 << 20); /* room for 4 MB */
    int64_t sh[1] = {1000000}, s0[1] = {1};
    em_array a, out;
    CHECK(em_array_empty(&a, EM_FLOAT32, 1, sh, gpu) == EM_OK &&
          em_array_empty(&out, EM_FLOAT32, 0, s0, gpu) == EM_OK);
    size_t used0, used1, total;
    em_cuda_pool_stats(0, &used0, &total);
    CHECK(em_run_reduce(&em_cuda_backend, EM_RED_SUM, &a, -1, NULL, EM_NDTYPES, 0, NULL, &out) ==
          EM_OK);
    em_cuda_pool_stats(0, &used1, &total);
    CHECK(used1 == used0); /* the partials went back to the pool */
    /* The last launch is pass 2: 4 SMs want 32 units, so 32 interleaved splits. */
    long long v[3];
    char *ptrs[3];
    memcpy(ptrs, last_params, sizeof ptrs), memcpy(v, last_params + 24, sizeof v);
    CHECK(ptrs[0] == a.data && ptrs[1] == out.data && ptrs[2] != NULL);
    CHECK(v[0] == 1 && v[1] == 1000000 && v[2] == 32 && *last_grid == 1);
    /* Per-axis: 100 outputs need no split: one pass, one block per output. */
    int64_t s2[2] = {100, 1000}, so[1] = {100};
    em_array b, o2;
    int axis = 1;
    CHECK(em_array_empty(&b, EM_INT16, 2, s2, gpu) == EM_OK &&
          em_array_empty(&o2, EM_INT64, 1, so, gpu) == EM_OK);
    CHECK(em_run_reduce(&em_cuda_backend, EM_RED_ARGMAX, &b, 1, &axis, EM_NDTYPES, 0, NULL, &o2) ==
          EM_OK);
    memcpy(v, last_params + 24, sizeof v);
    CHECK(v[0] == 100 && v[1] == 1000 && v[2] == 1 && *last_grid == 100);
    CHECK(em_run_reduce(&em_cuda_backend, EM_RED_MIN, &b, 0, &axis, EM_NDTYPES, 0, NULL, &o2) ==
          EM_ESHAPE);
    int bad = 2;
    CHECK(em_run_reduce(&em_cuda_backend, EM_RED_SUM, &b, 1, &bad, EM_NDTYPES, 0, NULL, &o2) ==
          EM_EVALUE);
    CHECK(strstr(em_last_error(), "axis 2") != NULL);
    em_array_release(&a), em_array_release(&out), em_array_release(&b), em_array_release(&o2);
    em_cuda_pool_free_all(0);
    fake_set(1024, (size_t)1 << 20);
}

static void test_random_scan_take_launches(void) {
    if (em_nvrtc_init() != EM_OK) return;
    int64_t sh[1] = {1001};
    em_array a, c, idx;
    CHECK(em_array_empty(&a, EM_FLOAT32, 1, sh, gpu) == EM_OK);
    CHECK(em_run_random(&em_cuda_backend, &a, &(em_random_req){EM_RAND_UNIFORM, 42, 7, 0, 0}) ==
          EM_OK);
    unsigned long long r[3];
    memcpy(r, last_params + 8, sizeof r);
    CHECK(r[0] == 1001 && r[1] == 42 && r[2] == 7 &&
          *last_grid == 1); /* 251 blocks of 4: one CUDA block */
    CHECK(em_run_random(&em_cuda_backend, &a, &(em_random_req){EM_RAND_BITS, 1, 0, 0, 0}) ==
          EM_ETYPE);
    CHECK(em_array_empty(&c, EM_FLOAT32, 1, sh, gpu) == EM_OK);
    CHECK(em_run_scan(&em_cuda_backend, EM_RED_CUMSUM, &a, 0, &c) == EM_OK);
    long long l[3];
    memcpy(l, last_params + 24, sizeof l);
    CHECK(l[0] == 1 && l[1] == 1001 && l[2] == 1); /* one line of 1001: one tile */
    int64_t ish[1] = {5};
    CHECK(em_array_empty(&idx, EM_INT64, 1, ish, gpu) == EM_OK);
    em_array t;
    CHECK(em_array_empty(&t, EM_FLOAT32, 1, ish, gpu) == EM_OK);
    CHECK(em_run_take_flat(&em_cuda_backend, &a, &idx, &t) ==
          EM_OK); /* the fake runs no kernel: no bad index seen */
    CHECK(em_run_take_flat(&em_cuda_backend, &a, &t, &t) == EM_ETYPE &&
          strstr(em_last_error(), "indices must be int64"));
    em_array_release(&a), em_array_release(&c), em_array_release(&idx), em_array_release(&t);
}

/* The tile scan's three launches (the last one seen here), its scratch
 * taken from the pool and given back, and the one-thread-per-line form. */
static void test_scan_launches(void) {
    if (em_nvrtc_init() != EM_OK) return;
    int64_t sh[1] = {2 * 2048 * 4 + 1}, sh2[2] = {4, 2 * 2048 + 1}, sh3[2] = {20, 2000};
    em_array a, c, b, d;
    size_t used0, total0, used, total;
    em_cuda_pool_free_all(0); /* no cached block the scratch could reuse */
    CHECK(em_array_empty(&a, EM_FLOAT64, 1, sh, gpu) == EM_OK &&
          em_array_empty(&c, EM_FLOAT64, 1, sh, gpu) == EM_OK);
    em_cuda_pool_stats(0, &used0, &total0);
    CHECK(em_run_scan(&em_cuda_backend, EM_RED_CUMSUM, &a, 0, &c) == EM_OK);
    em_cuda_pool_stats(0, &used, &total);
    CHECK(used == used0 && total == total0 + 512); /* 9 tile totals: one 512-byte block, freed */
    long long v[3];
    void *part = NULL;
    memcpy(&part, last_params + 16, sizeof part);
    memcpy(v, last_params + 24, sizeof v);
    CHECK(part != NULL && v[0] == 1 && v[1] == sh[0] && v[2] == 9 && *last_grid == 9 &&
          *last_block == 256);
    /* Few long rows along axis 1: 4 lines of 3 tiles, 12 blocks (the fake has 4 SMs: at most 64). */
    CHECK(em_array_empty(&b, EM_COMPLEX128, 2, sh2, gpu) == EM_OK &&
          em_array_empty(&d, EM_COMPLEX128, 2, sh2, gpu) == EM_OK);
    CHECK(em_run_scan(&em_cuda_backend, EM_RED_CUMPROD, &b, 1, &d) == EM_OK);
    memcpy(v, last_params + 24, sizeof v);
    CHECK(v[0] == 4 && v[1] == sh2[1] && v[2] == 3 && *last_grid == 12);
    /* The scratch cannot be had: the error comes back and nothing is launched after. */
    em_cuda_pool_free_all(0);
    em_cuda_pool_stats(0, &used, &total);
    em_cuda_pool_set_limit(0, used);
    CHECK(em_run_scan(&em_cuda_backend, EM_RED_CUMPROD, &b, 1, &d) == EM_ENOMEM);
    em_cuda_pool_set_limit(0, 0);
    em_cuda_pool_stats(0, &used, &total);
    CHECK(used == total);
    em_array_release(&b), em_array_release(&d);
    /* 2000 interleaved columns of 20 (>= 256 per SM): one thread each; 20 rows of 2000: a block per row. */
    CHECK(em_array_empty(&b, EM_INT32, 2, sh3, gpu) == EM_OK &&
          em_array_empty(&d, EM_INT64, 2, sh3, gpu) == EM_OK);
    CHECK(em_run_scan(&em_cuda_backend, EM_RED_CUMSUM, &b, 0, &d) == EM_OK);
    memcpy(v, last_params + 24, sizeof v);
    CHECK(v[0] == 2000 && v[1] == 20 && v[2] == 1 && *last_grid == 8);
    CHECK(em_run_scan(&em_cuda_backend, EM_RED_CUMSUM, &b, 1, &d) == EM_OK);
    memcpy(v, last_params + 24, sizeof v);
    CHECK(v[0] == 20 && v[1] == 2000 && v[2] == 1 && *last_grid == 20);
    CHECK(em_run_scan(&em_cuda_backend, EM_RED_SUM, &b, 1, &d) == EM_EVALUE &&
          strstr(em_last_error(), "cumsum and cumprod"));
    em_array_release(&a), em_array_release(&c), em_array_release(&b), em_array_release(&d);
    /* Two float16 rows of 3000: scanned on the host (the fake driver's memory is host memory). */
    int64_t sh4[2] = {2, 3000};
    static uint16_t h[6000], r[6000];
    for (int i = 0; i < 6000; i++) h[i] = 0x3c00; /* 1.0 */
    unsigned grid0 = *last_grid;
    CHECK(em_array_empty(&a, EM_FLOAT16, 2, sh4, gpu) == EM_OK &&
          em_array_empty(&c, EM_FLOAT16, 2, sh4, gpu) == EM_OK);
    CHECK(em_array_write(&a, h, sizeof h) == EM_OK);
    CHECK(em_run_scan(&em_cuda_backend, EM_RED_CUMSUM, &a, 1, &c) == EM_OK &&
          em_array_read(&c, r, sizeof r) == EM_OK);
    CHECK(r[0] == 0x3c00 && r[1] == 0x4000 && r[2999] == 0x6800 &&
          r[3000] == 0x3c00);   /* 1, 2, 2048 (rounded) */
    CHECK(*last_grid == grid0); /* nothing launched */
    em_array_release(&a), em_array_release(&c);
    em_cuda_pool_free_all(0);
}

static void test_streams_events(void) {
    em_device cuda = {EM_CUDA, 0}, nodev = {EM_CUDA, 5};
    void *s = NULL, *e1 = NULL, *e2 = NULL, *cur = (void *)1;
    float ms = 0;
    bool done = false;
    CHECK(em_stream_create(cuda, true, &s) == EM_OK);
    CHECK(em_stream_set(cuda, s) == EM_OK && em_stream_get(cuda, &cur) == EM_OK && cur == s);
    CHECK(em_event_create(cuda, true, &e1) == EM_OK && em_event_create(cuda, true, &e2) == EM_OK);
    CHECK(em_event_record(cuda, e1, s) == EM_OK && em_event_record(cuda, e2, s) == EM_OK);
    CHECK(em_event_elapsed(cuda, e1, e2, &ms) == EM_OK && ms == 1.5f);
    CHECK(em_event_query(cuda, e2, &done) == EM_OK && done); /* nothing queued before it */
    CHECK(em_event_synchronize(cuda, e2) == EM_OK && em_stream_synchronize(cuda, s) == EM_OK);
    CHECK(em_stream_create(nodev, false, &cur) == EM_EDEVICE);
    CHECK(strstr(em_last_error(), "no device cuda:5") != NULL);
    /* Cross-stream ordering goes through one stream wait; the same stream
     * needs none.  The runtime's own (raw launches) also takes DLPack's 1
     * for the legacy default stream. */
    int *waits = dlsym(fake, "fake_stream_waits");
    CHECK(waits != NULL);
    int w0 = waits ? *waits : 0;
    CHECK(em_stream_wait(cuda, NULL, s) == EM_OK && waits && *waits == w0 + 1);
    CHECK(em_stream_wait(cuda, s, s) == EM_OK && waits && *waits == w0 + 1);
    CHECK(em_cu_order(0, (void *)1, NULL) == EM_OK && waits && *waits == w0 + 1);
    CHECK(em_cu_order(0, (void *)1, s) == EM_OK && waits && *waits == w0 + 2);
    CHECK(em_stream_destroy(cuda, s) == EM_OK);
    CHECK(em_stream_get(cuda, &cur) == EM_OK && cur == NULL); /* it was current */
    CHECK(em_event_destroy(cuda, e1) == EM_OK && em_event_destroy(cuda, e2) == EM_OK);
}

/* ---- host copies: the staged pipeline (staging.c) ---- */

static int (*fake_calls)(const char *);
static int (*fake_fail_call)(const char *, int, int, int);
static int (*fake_pending)(void);
static void **last_copy_stream;

/* Bytes that differ at every offset a misplaced chunk could land on. */
static void fill(unsigned char *p, size_t n, unsigned seed) {
    for (size_t i = 0; i < n; i++) p[i] = (unsigned char)(((i + seed * 977) * 2654435761u) >> 13);
}

static uint64_t staged(void) {
    em_copy_stats st;
    em_copy_stats_get(&st);
    return st.staged;
}

/* Write two arrays of n distinct bytes, read both back and compare every
 * byte.  Each copy follows one of the other array, so a copy that passed on
 * bytes left in a staging buffer (not yet replaced by its own DMA) fails. */
static bool round_trip(size_t n) {
    unsigned char *ha = malloc(n), *hb = malloc(n), *back = malloc(n);
    int64_t sh[1] = {(int64_t)n};
    em_array a = {0}, b = {0};
    bool ok = ha && hb && back && em_array_empty(&a, EM_UINT8, 1, sh, gpu) == EM_OK &&
              em_array_empty(&b, EM_UINT8, 1, sh, gpu) == EM_OK;
    if (ok) fill(ha, n, 1), fill(hb, n, 2), memset(back, 0xee, n);
    ok = ok && em_array_write(&a, ha, n) == EM_OK && em_array_write(&b, hb, n) == EM_OK;
    ok = ok && em_array_read(&a, back, n) == EM_OK && !memcmp(back, ha, n);
    if (ok) memset(back, 0xee, n);
    ok = ok && em_array_read(&b, back, n) == EM_OK && !memcmp(back, hb, n);
    if (!ok) fprintf(stderr, "round trip of %zu bytes failed: %s\n", n, em_last_error());
    if (a.data) em_array_release(&a);
    if (b.data) em_array_release(&b);
    free(ha), free(hb), free(back);
    return ok;
}

/* Sizes around the threshold, the chunk size and the buffer count, every
 * byte checked; then small chunks, so that copies wrap around the four
 * buffers many times.  Only copies from EM_STAGE_MIN on are staged. */
static void test_staged_sizes(void) {
    const size_t M = (size_t)1 << 20, c = 3 * 4096;
    const size_t big[] = {4 * M - 1, 4 * M,  4 * M + 1,  8 * M - 1,
                          8 * M + 1, 32 * M, 32 * M + 1, 41 * M + 3};
    const size_t small[] = {1, 999, 1000, c - 1, c, c + 1, 4 * c, 4 * c + 1, 10 * c - 7, M + 3};
    /* the team's four shared buffers (EMBER_STAGE_BUF_KIB=0; lanes, the default
     * since session 17, are test_auto.py's test_staging_lanes_under_the_fake_driver) */
    setenv("EMBER_STAGE_BUF_KIB", "0", 1);
    fake_set(1024, (size_t)256 << 20);
    int sync0 = fake_calls("cuMemcpyHtoD");
    for (size_t i = 0; i < sizeof big / sizeof *big; i++) {
        uint64_t s0 = staged();
        CHECK(round_trip(big[i]));
        CHECK(staged() - s0 == (big[i] >= 4 * M ? 4u : 0u));
    }
    CHECK(fake_calls("cuMemcpyHtoD") - sync0 == 2); /* 4 MiB - 1 only */
    em_copy_tune(1000, c);
    for (size_t i = 0; i < sizeof small / sizeof *small; i++) {
        uint64_t s0 = staged();
        CHECK(round_trip(small[i]));
        CHECK(staged() - s0 == (small[i] >= 1000 ? 4u : 0u));
    }
    em_copy_tune(0, 0);
    CHECK(fake_calls("async_pageable") == 0); /* every DMA from or to pinned buffers */
    CHECK(fake_calls("cuMemHostAlloc") == 4); /* allocated once */
    CHECK(fake_pending() == 0);
    em_cuda_pool_free_all(0);
    fake_set(1024, (size_t)1 << 20);
    unsetenv("EMBER_STAGE_BUF_KIB");
}

/* The DMAs go on the legacy default stream, where the synchronous copy
 * ran, whatever the current stream (which the copy waited for first). */
static void test_staged_stream(void) {
    void *s = NULL;
    em_copy_tune(1000, 4096);
    em_device cuda = {EM_CUDA, 0};
    CHECK(em_stream_create(cuda, true, &s) == EM_OK && em_stream_set(cuda, s) == EM_OK);
    *last_copy_stream = (void *)1;
    int w0 = fake_calls("cuStreamSynchronize");
    CHECK(round_trip(20000) && *last_copy_stream == NULL);
    CHECK(fake_calls("cuStreamSynchronize") - w0 == 4); /* each copy waited for s */
    CHECK(em_stream_set(cuda, NULL) == EM_OK);
    *last_copy_stream = (void *)1;
    CHECK(round_trip(20000) && *last_copy_stream == NULL);
    CHECK(em_stream_destroy(cuda, s) == EM_OK);
    em_copy_tune(0, 0);
}

/* Pinned memory (Ember's or anyone's: the driver knows it) keeps the
 * driver's direct copy, a DMA at the bus's rate, a view into it too. */
static void test_pinned_direct(void) {
    const size_t n = (size_t)6 << 20;
    fake_set(1024, (size_t)64 << 20);
    unsigned char *p = NULL, *h = malloc(n);
    int64_t sh[1] = {(int64_t)n}, sh2[1] = {(int64_t)n - 8192};
    em_array a, b;
    em_copy_stats s0, s1;
    CHECK(h && em_pinned_alloc(gpu, n, (void **)&p) == EM_OK);
    CHECK(em_array_empty(&a, EM_UINT8, 1, sh, gpu) == EM_OK &&
          em_array_empty(&b, EM_UINT8, 1, sh2, gpu) == EM_OK);
    fill(p, n, 3), memcpy(h, p, n);
    em_copy_stats_get(&s0);
    int d0 = fake_calls("cuMemcpyHtoD") + fake_calls("cuMemcpyDtoH");
    int a0 = fake_calls("cuMemcpyHtoDAsync") + fake_calls("cuMemcpyDtoHAsync");
    CHECK(em_array_write(&a, p, n) == EM_OK);
    memset(p, 0, n);
    CHECK(em_array_read(&a, p, n) == EM_OK && !memcmp(p, h, n));
    CHECK(em_array_write(&b, p + 4096, n - 8192) == EM_OK &&
          em_array_read(&b, p + 4096, n - 8192) == EM_OK);
    em_copy_stats_get(&s1);
    CHECK(s1.known - s0.known == 4 && s1.staged == s0.staged);
    CHECK(fake_calls("cuMemcpyHtoD") + fake_calls("cuMemcpyDtoH") - d0 == 4);
    CHECK(fake_calls("cuMemcpyHtoDAsync") + fake_calls("cuMemcpyDtoHAsync") == a0);
    em_array_release(&a), em_array_release(&b);
    CHECK(em_pinned_free(gpu, p) == EM_OK);
    free(h);
    em_cuda_pool_free_all(0);
    fake_set(1024, (size_t)1 << 20);
}

/* A driver call failing mid-pipeline: the copy's error as the synchronous
 * copy reported it, nothing left queued, and the next copy staged again. */
static void fail_once(const char *call, int nth, bool h2d, const char *what) {
    const size_t n = 11 * 4096 + 5;
    unsigned char *h = malloc(n);
    int64_t sh[1] = {(int64_t)n};
    em_array a;
    CHECK(h && em_array_empty(&a, EM_UINT8, 1, sh, gpu) == EM_OK);
    fill(h, n, 4);
    CHECK(h2d || em_array_write(&a, h, n) == EM_OK);
    fake_fail_call(call, nth, 1, 1);
    CHECK((h2d ? em_array_write(&a, h, n) : em_array_read(&a, h, n)) == EM_EDEVICE);
    CHECK(strstr(em_last_error(), what) && strstr(em_last_error(), "CUDA_ERROR_INVALID_VALUE"));
    CHECK(fake_pending() == 0);
    uint64_t s0 = staged();
    CHECK(round_trip(n) && staged() - s0 == 4);
    em_array_release(&a);
    free(h);
}

static void test_staged_failures(void) {
    em_copy_tune(1000, 4096); /* 12 chunks */
    /* The message: which copy, then which call failed and the driver's error. */
    fail_once("cuMemcpyHtoDAsync", 3, true,
              "a host-to-device copy failed: CUDA error during "
              "cuMemcpyHtoDAsync");
    fail_once("cuMemcpyHtoDAsync", 1, true, "a host-to-device copy failed");
    fail_once("cuMemcpyDtoHAsync", 6, false,
              "a device-to-host copy failed: CUDA error during cuMemcpyDtoHAsync"); /* a refill */
    fail_once("cuEventSynchronize", 2, false,
              "a device-to-host copy failed: CUDA error during cuEventSynchronize");
    /* A DMA queued without its event: still waited for (the stream). */
    fail_once("cuEventRecord", 2, true,
              "a host-to-device copy failed: CUDA error during "
              "cuEventRecord");
    fail_once("cuEventRecord", 5, false, "a device-to-host copy failed");
    em_copy_tune(0, 0);
}

/* In a child (it turns staging off for the process): when even waiting
 * fails (a broken context), whether a DMA still reads a buffer is unknown,
 * so the buffers are dropped and later copies take the driver's path. */
static void test_staged_wait_failure(void) {
    pid_t pid = fork();
    if (pid == 0) {
        const size_t n = 20000;
        unsigned char h[20000];
        int64_t sh[1] = {(int64_t)n};
        em_array a;
        em_copy_stats s0, s1;
        setenv("EMBER_STAGE_BUF_KIB", "0", 1); /* the shared buffers' wait */
        em_copy_tune(1000, 4096);
        fill(h, n, 5);
        bool ok = em_array_empty(&a, EM_UINT8, 1, sh, gpu) == EM_OK;
        /* Not a sticky fault (that would reset the device: test_fault_recovery): the
         * staging buffers are given up while their DMA may still run. */
        fake_fail_call("cuEventSynchronize", 1, 1000, 999);
        ok = ok && em_array_write(&a, h, n) == EM_EDEVICE &&
             strstr(em_last_error(), "host-to-device copy failed: CUDA error during "
                                     "cuEventSynchronize: CUDA_ERROR_UNKNOWN");
        fake_fail_call("cuEventSynchronize", 0, 0, 0);
        em_copy_stats_get(&s0);
        ok = ok && round_trip(n);
        em_copy_stats_get(&s1);
        ok = ok && s1.staged == s0.staged && s1.unstaged - s0.unstaged == 4;
        if (!ok) fprintf(stderr, "child: %s\n", em_last_error());
        _exit(ok ? 0 : 1);
    }
    int st = 0;
    CHECK(pid > 0 && waitpid(pid, &st, 0) == pid && WIFEXITED(st) && WEXITSTATUS(st) == 0);
}

/* In a child process (the device limits are read once per process): a
 * device allowing only 128 threads per block rejects the 256-thread launch. */
static void test_launch_limit(void) {
    if (em_nvrtc_init() != EM_OK) return;
    pid_t pid = fork();
    if (pid == 0) {
        fake_set(128, 1 << 20);
        int64_t sh[1] = {10};
        em_array a, out = {0};
        const em_array *in[1] = {&a};
        int ok = em_array_empty(&a, EM_INT32, 1, sh, gpu) == EM_OK &&
                 em_ufunc(EM_OP_NEGATIVE, 1, in, EM_NDTYPES, &out) == EM_ELAUNCH &&
                 strstr(em_last_error(), "= 256 threads exceeds the device limit of 128") != NULL;
        if (!ok) fprintf(stderr, "child: %s\n", em_last_error());
        _exit(ok ? 0 : 1);
    }
    int st = 0;
    CHECK(pid > 0 && waitpid(pid, &st, 0) == pid && WIFEXITED(st) && WEXITSTATUS(st) == 0);
}

static bool load_fake(const char *dir) {
    char src[4096], lib[600], cmd[5000];
    const char *f = __FILE__, *slash = strrchr(f, '/');
    snprintf(src, sizeof src, "%.*s/fake_libcuda.c", (int)(slash ? slash - f : 1), slash ? f : ".");
    snprintf(lib, sizeof lib, "%s/libfakecuda.so", dir);
    snprintf(cmd, sizeof cmd, "cc -shared -fPIC -O1 -o %s %s", lib, src);
    if (system(cmd) != 0 || !(fake = dlopen(lib, RTLD_NOW | RTLD_GLOBAL))) return false;
    setenv("EMBER_LIBCUDA", lib, 1);
    last_grid = dlsym(fake, "fake_last_grid"), last_block = dlsym(fake, "fake_last_block");
    last_params = dlsym(fake, "fake_last_params");
    *(void **)&fake_allocs = dlsym(fake, "fake_allocs"),
           *(void **)&fake_used = dlsym(fake, "fake_used");
    *(void **)&fake_set = dlsym(fake, "fake_set");
    *(void **)&fake_fail_next_sync = dlsym(fake, "fake_fail_next_sync");
    *(void **)&fake_sticky_fault = dlsym(fake, "fake_sticky_fault");
    *(void **)&fake_sticky_for_good = dlsym(fake, "fake_sticky_for_good");
    fake_resets = dlsym(fake, "fake_resets");
    *(void **)&fake_calls = dlsym(fake, "fake_calls"),
           *(void **)&fake_fail_call = dlsym(fake, "fake_fail_call");
    *(void **)&fake_pending = dlsym(fake, "fake_pending");
    last_copy_stream = dlsym(fake, "fake_last_copy_stream");
    return last_grid && last_block && last_params && fake_allocs && fake_used && fake_set &&
           fake_fail_next_sync && fake_sticky_fault && fake_sticky_for_good && fake_resets &&
           fake_calls && fake_fail_call && fake_pending && last_copy_stream;
}

int main(void) {
    char dir[] = "/tmp/ember_fake_cuda_XXXXXX", cmd[200];
    if (!mkdtemp(dir)) return 1;
    setenv("EMBER_CACHE_DIR", dir, 1);
    int rc = 0;
    if (!load_fake(dir)) {
        printf("skip: could not build the fake driver with cc\n");
    } else {
        RUN(test_launch_limit);
        RUN(test_props);
        RUN(test_pool_reuse);
        RUN(test_pool_retry_and_oom);
        RUN(test_host_round_trip);
        RUN(test_eval_launch);
        RUN(test_fault_recovery);
        RUN(test_reduce_launches);
        RUN(test_random_scan_take_launches);
        RUN(test_scan_launches);
        RUN(test_streams_events);
        RUN(test_staged_sizes);
        RUN(test_staged_stream);
        RUN(test_pinned_direct);
        RUN(test_staged_failures);
        RUN(test_staged_wait_failure);
        RUN(test_fault_dead_device); /* last: the device stays dead */
        rc = ctest_summary();
    }
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    if (system(cmd) != 0) fprintf(stderr, "could not remove %s\n", dir);
    return rc;
}
