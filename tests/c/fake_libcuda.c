/* A fake CUDA driver for testing the CUDA backend's host side without a GPU
 * (built by test_cuda_fake.c into a shared library and loaded through
 * EMBER_LIBCUDA).  Device memory is host memory with a capacity
 * (FAKE_CUDA_MEM bytes; FAKE_CUDA_DEVICES=n devices share it); kernels do
 * not run: launches are recorded.  The
 * test drives it through fake_* functions found with dlsym.
 *
 * Asynchronous host copies (cuMemcpyHtoDAsync / DtoHAsync) are deferred, as
 * a DMA engine would run them: they wait in one queue (a valid order for
 * every stream) and run when an event recorded after them, a stream or the
 * context is synchronised, or a synchronous copy starts.  A caller that
 * reuses a staging buffer before its copy finished then sees wrong bytes.
 * Entry points of interest are counted and can be made to fail
 * (fake_calls, fake_fail_call).  fake_sticky_fault makes the context sticky, as a
 * faulting kernel does: every call that works in the context returns the code
 * until cuDevicePrimaryCtxReset, which frees all device memory (fake_resets counts). */
#include <pthread.h> /* in libc since glibc 2.34; else the process has it */
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef int CUresult;
static size_t cap = 1 << 20, used;
static int max_threads = 1024, fail_sync, allocs;
unsigned fake_last_grid, fake_last_block;
unsigned fake_last_cfg[7]; /* grid x y z, block x y z, dynamic shared bytes */
void *fake_last_stream;
int fake_func_attr[16]; /* what cuFuncGetAttribute reports (set by cuFuncSetAttribute) */
unsigned char fake_last_params[4096];

void fake_set(int threads, size_t mem) { max_threads = threads, cap = mem; }
static atomic_int sticky;
int fake_resets;
void fake_sticky_fault(int code) { atomic_store(&sticky, code); }
/* A driver that keeps the sticky error for the process (as NVIDIA's did on
 * the H200): the reset answers with it and clears nothing. */
static atomic_int sticky_for_good;
void fake_sticky_for_good(int on) { atomic_store(&sticky_for_good, on); }
/* The sticky error, if any: the first thing each context call checks. */
#define STICKY()                          \
    do {                                  \
        int code_ = atomic_load(&sticky); \
        if (code_) return code_;          \
    } while (0)
void fake_fail_next_sync(int code) { fail_sync = code; }
int fake_allocs(void) { return allocs; }
size_t fake_used(void) { return used; }

/* Counted entry points ("async_pageable": an async copy whose host side
 * was not from cuMemHostAlloc, which a real driver would run synchronously). */
enum {
    F_HTOD,
    F_DTOH,
    F_HTOD_ASYNC,
    F_DTOH_ASYNC,
    F_EVENT_RECORD,
    F_EVENT_SYNC,
    F_HOST_ALLOC,
    F_FREE_HOST,
    F_PTR_ATTR,
    F_STREAM_SYNC,
    F_ASYNC_PAGEABLE,
    F_MEMSET,
    F_HOST_REGISTER,
    F_HOST_UNREGISTER,
    F_N
};
static const char *const fnames[F_N] = {
    "cuMemcpyHtoD",          "cuMemcpyDtoH",        "cuMemcpyHtoDAsync", "cuMemcpyDtoHAsync",
    "cuEventRecord",         "cuEventSynchronize",  "cuMemHostAlloc",    "cuMemFreeHost",
    "cuPointerGetAttribute", "cuStreamSynchronize", "async_pageable",    "cuMemset",
    "cuMemHostRegister",     "cuMemHostUnregister"};
static atomic_int calls[F_N], fail_in[F_N], fail_times[F_N], fail_code[F_N];

static int fidx(const char *name) {
    for (int i = 0; i < F_N; i++)
        if (!strcmp(name, fnames[i])) return i;
    return -1;
}
/* Calls of name so far (-1: not counted). */
int fake_calls(const char *name) {
    int i = fidx(name);
    return i < 0 ? -1 : atomic_load(&calls[i]);
}
/* Calls nth to nth + times - 1 of name from now (1: the next) return code
 * (one thread at a time; times 0 clears). */
int fake_fail_call(const char *name, int nth, int times, int code) {
    int i = fidx(name);
    if (i < 0) return -1;
    atomic_store(&fail_code[i], code);
    atomic_store(&fail_times[i], times);
    atomic_store(&fail_in[i], times > 0 ? nth : 0);
    return 0;
}
/* Count a call; the injected failure's code when its turn has come. */
static CUresult enter(int f) {
    atomic_fetch_add(&calls[f], 1);
    if (atomic_load(&fail_in[f]) <= 0) return 0;
    if (atomic_load(&fail_in[f]) > 1) {
        atomic_fetch_sub(&fail_in[f], 1);
        return 0;
    }
    if (atomic_fetch_sub(&fail_times[f], 1) == 1) atomic_store(&fail_in[f], 0);
    return atomic_load(&fail_code[f]);
}

/* Pinned ranges (cuMemHostAlloc), for cuPointerGetAttribute. */
static pthread_mutex_t lk = PTHREAD_MUTEX_INITIALIZER;
static struct {
    char *p;
    size_t n;
} pinned[256];
/* Registered ranges (cuMemHostRegister), known as pinned memory is. */
static struct {
    char *p;
    size_t n;
} registered[1024];
static int is_pinned(const void *p) {
    int r = 0;
    pthread_mutex_lock(&lk);
    for (int i = 0; i < 256 && !r; i++)
        r = pinned[i].p && (const char *)p >= pinned[i].p &&
            (const char *)p < pinned[i].p + pinned[i].n;
    for (int i = 0; i < 1024 && !r; i++)
        r = registered[i].p && (const char *)p >= registered[i].p &&
            (const char *)p < registered[i].p + registered[i].n;
    pthread_mutex_unlock(&lk);
    return r;
}

/* The deferred copies: a ring of (dst, src, n), run in order. */
#define QN 4096
static struct {
    void *d;
    const void *s;
    size_t n;
} q[QN];
static uint64_t qhead, qtail;
static void run_to(uint64_t pos) {
    pthread_mutex_lock(&lk);
    if (pos > qtail) pos = qtail;
    for (; qhead < pos; qhead++) memcpy(q[qhead % QN].d, q[qhead % QN].s, q[qhead % QN].n);
    pthread_mutex_unlock(&lk);
}
static void run_all(void) { run_to(UINT64_MAX); }
void *fake_last_copy_stream; /* the stream of the last async host copy */
static void enqueue(void *d, const void *s, size_t n) {
    pthread_mutex_lock(&lk);
    if (qtail - qhead == QN) memcpy(q[qhead % QN].d, q[qhead % QN].s, q[qhead % QN].n), qhead++;
    q[qtail % QN].d = d, q[qtail % QN].s = s, q[qtail % QN].n = n;
    qtail++;
    pthread_mutex_unlock(&lk);
}
/* Copies queued and not yet run. */
int fake_pending(void) {
    pthread_mutex_lock(&lk);
    int n = (int)(qtail - qhead);
    pthread_mutex_unlock(&lk);
    return n;
}

CUresult cuInit(unsigned f) { return 0; }
CUresult cuDriverGetVersion(int *v) {
    *v = 13000;
    return 0;
}
CUresult cuGetErrorName(CUresult e, const char **s) {
    *s = e == 1     ? "CUDA_ERROR_INVALID_VALUE"
         : e == 2   ? "CUDA_ERROR_OUT_OF_MEMORY"
         : e == 700 ? "CUDA_ERROR_ILLEGAL_ADDRESS"
                    : "CUDA_ERROR_UNKNOWN";
    return 0;
}
CUresult cuGetErrorString(CUresult e, const char **s) {
    *s = "fake error";
    return 0;
}
/* FAKE_CUDA_DEVICES=n exposes n devices (default 1), for the code that
 * spreads work over several GPUs; they share the one memory capacity. */
CUresult cuDeviceGetCount(int *n) {
    const char *e = getenv("FAKE_CUDA_DEVICES");
    *n = e && atoi(e) > 0 ? atoi(e) : 1;
    return 0;
}
CUresult cuDeviceGet(int *d, int i) {
    *d = i;
    return 0;
}
CUresult cuDeviceGetName(char *n, int len, int d) {
    strncpy(n, "Fake GPU", (size_t)len);
    return 0;
}
CUresult cuDeviceGetAttribute(int *v, int a, int d) {
    switch (a) {
    case 1: *v = max_threads; break;
    case 2:
    case 3: *v = 1024; break;
    case 4: *v = 64; break;
    case 5: *v = 0x7fffffff; break;
    case 6:
    case 7: *v = 65535; break;
    case 8: *v = 48 * 1024; break;
    case 16: *v = 4; break;
    case 75: *v = 9; break;
    case 76: *v = 0; break;
    default: *v = 0;
    }
    return 0;
}
CUresult cuDeviceTotalMem_v2(size_t *b, int d) {
    *b = cap;
    return 0;
}
CUresult cuDevicePrimaryCtxRetain(void **c, int d) {
    static int ctx;
    *c = &ctx;
    return 0;
}
CUresult cuCtxSetCurrent(void *c) { return 0; }
CUresult cuCtxSynchronize(void) {
    STICKY();
    int r = fail_sync;
    fail_sync = 0;
    run_all();
    return r;
}
CUresult cuMemGetInfo_v2(size_t *f, size_t *t) {
    *f = cap - used, *t = cap;
    return 0;
}
/* Live device blocks, listed through their headers (size, next) for a reset. */
static size_t *blocks;
CUresult cuMemAlloc_v2(unsigned long long *p, size_t n) {
    STICKY();
    if (used + n > cap) return 2;
    size_t *b = malloc(n + 16);
    if (!b) return 2;
    pthread_mutex_lock(&lk);
    b[0] = n, b[1] = (size_t)(uintptr_t)blocks, blocks = b;
    used += n, allocs++;
    pthread_mutex_unlock(&lk);
    *p = (unsigned long long)(uintptr_t)(b + 2);
    return 0;
}
CUresult cuMemFree_v2(unsigned long long p) {
    size_t *b = (size_t *)(uintptr_t)p - 2;
    pthread_mutex_lock(&lk);
    for (size_t **l = &blocks; *l; l = (size_t **)(void *)&(*l)[1])
        if (*l == b) {
            *l = (size_t *)(uintptr_t)b[1];
            break;
        }
    used -= b[0];
    pthread_mutex_unlock(&lk);
    free(b);
    return 0;
}
/* A reset frees every device block and drops queued copies; pinned host
 * memory is left (the caller's, in the fake) and the sticky error cleared. */
CUresult cuDevicePrimaryCtxReset_v2(int d) {
    (void)d;
    if (atomic_load(&sticky_for_good)) {
        fake_resets++;
        STICKY();
    }
    pthread_mutex_lock(&lk);
    while (blocks) {
        size_t *b = blocks;
        blocks = (size_t *)(uintptr_t)b[1];
        used -= b[0];
        free(b);
    }
    qhead = qtail;
    pthread_mutex_unlock(&lk);
    atomic_store(&sticky, 0);
    fake_resets++;
    return 0;
}
/* Synchronous copies run on the legacy stream: after everything queued. */
CUresult cuMemcpyHtoD_v2(unsigned long long d, const void *s, size_t n) {
    STICKY();
    CUresult r = enter(F_HTOD);
    if (r) return r;
    run_all();
    memcpy((void *)(uintptr_t)d, s, n);
    return 0;
}
CUresult cuMemcpyDtoH_v2(void *d, unsigned long long s, size_t n) {
    STICKY();
    CUresult r = enter(F_DTOH);
    if (r) return r;
    run_all();
    memcpy(d, (void *)(uintptr_t)s, n);
    return 0;
}
/* FAKE_CUDA_CHECK_PTRS=1: an async copy's device end must lie in one block
 * from cuMemAlloc, else CUDA_ERROR_INVALID_VALUE, as the driver answers a
 * host address given for a device one (the fake's device memory is host
 * memory: without the check such a copy would run, and its mistake pass). */
static int bad_devptr(const void *p, size_t n) {
    const char *e = getenv("FAKE_CUDA_CHECK_PTRS");
    if (!e || *e != '1') return 0;
    int ok = 0;
    pthread_mutex_lock(&lk);
    for (size_t *b = blocks; b && !ok; b = (size_t *)(uintptr_t)b[1]) {
        const char *lo = (const char *)(b + 2);
        ok = (const char *)p >= lo && (const char *)p + n <= lo + b[0];
    }
    pthread_mutex_unlock(&lk);
    return !ok;
}
CUresult cuMemcpyHtoDAsync_v2(unsigned long long d, const void *s, size_t n, void *st) {
    STICKY();
    CUresult r = enter(F_HTOD_ASYNC);
    if (r) return r;
    if (bad_devptr((void *)(uintptr_t)d, n)) return 1;
    if (!is_pinned(s) || !is_pinned((const char *)s + n - 1))
        atomic_fetch_add(&calls[F_ASYNC_PAGEABLE], 1);
    fake_last_copy_stream = st;
    enqueue((void *)(uintptr_t)d, s, n);
    return 0;
}
CUresult cuMemcpyDtoHAsync_v2(void *d, unsigned long long s, size_t n, void *st) {
    STICKY();
    CUresult r = enter(F_DTOH_ASYNC);
    if (r) return r;
    if (bad_devptr((const void *)(uintptr_t)s, n)) return 1;
    if (!is_pinned(d) || !is_pinned((char *)d + n - 1))
        atomic_fetch_add(&calls[F_ASYNC_PAGEABLE], 1);
    fake_last_copy_stream = st;
    enqueue(d, (const void *)(uintptr_t)s, n);
    return 0;
}
/* CU_POINTER_ATTRIBUTE_MEMORY_TYPE (2) is HOST (1) for pinned memory;
 * other host memory is unknown to the driver: CUDA_ERROR_INVALID_VALUE. */
CUresult cuPointerGetAttribute(void *data, int attr, unsigned long long p) {
    CUresult r = enter(F_PTR_ATTR);
    if (r) return r;
    if (attr != 2 || !is_pinned((const void *)(uintptr_t)p)) return 1;
    *(unsigned *)data = 1;
    return 0;
}
/* Memsets run at once (the fake's device memory is host memory) and are counted. */
CUresult cuMemsetD8Async(unsigned long long d, unsigned char v, size_t n, void *st) {
    STICKY();
    CUresult r = enter(F_MEMSET);
    if (!r) memset((void *)(uintptr_t)d, v, n);
    return r;
}
CUresult cuMemsetD16Async(unsigned long long d, unsigned short v, size_t n, void *st) {
    STICKY();
    CUresult r = enter(F_MEMSET);
    for (size_t i = 0; !r && i < n; i++) ((unsigned short *)(uintptr_t)d)[i] = v;
    return r;
}
CUresult cuMemsetD32Async(unsigned long long d, unsigned v, size_t n, void *st) {
    STICKY();
    CUresult r = enter(F_MEMSET);
    for (size_t i = 0; !r && i < n; i++) ((unsigned *)(uintptr_t)d)[i] = v;
    return r;
}
CUresult cuMemcpyDtoDAsync_v2(unsigned long long d, unsigned long long s, size_t n, void *st) {
    STICKY();
    memmove((void *)(uintptr_t)d, (void *)(uintptr_t)s, n);
    return 0;
}
CUresult cuModuleLoadData(void **m, const void *img) {
    STICKY();
    static int mod;
    *m = &mod;
    return 0;
}
CUresult cuModuleGetFunction(void **f, void *m, const char *name) {
    static int fn;
    if (!strncmp(name, "no_such", 7)) return 500; /* CUDA_ERROR_NOT_FOUND */
    *f = &fn;
    return 0;
}
CUresult cuFuncGetAttribute(int *v, int attr, void *f) {
    if (attr < 0 || attr >= 16) return 1;
    *v = fake_func_attr[attr];
    return 0;
}
CUresult cuFuncSetAttribute(void *f, int attr, int v) {
    if (attr < 0 || attr >= 16) return 1;
    fake_func_attr[attr] = v;
    return 0;
}
CUresult cuLaunchKernel(void *f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by,
                        unsigned bz, unsigned sh, void *st, void **params, void **extra) {
    STICKY();
    fake_last_grid = gx, fake_last_block = bx;
    unsigned cfg[7] = {gx, gy, gz, bx, by, bz, sh};
    memcpy(fake_last_cfg, cfg, sizeof cfg);
    fake_last_stream = st;
    memcpy(fake_last_params, params[0], sizeof fake_last_params);
    return 0;
}
CUresult cuStreamCreate(void **s, unsigned f) {
    *s = malloc(1);
    return 0;
}
CUresult cuStreamDestroy_v2(void *s) {
    free(s);
    return 0;
}
CUresult cuStreamSynchronize(void *s) {
    STICKY();
    CUresult r = enter(F_STREAM_SYNC);
    if (r) return r;
    run_all();
    return 0;
}
/* An event is the queue position it was recorded at. */
CUresult cuEventCreate(void **e, unsigned f) {
    *e = calloc(1, sizeof(uint64_t));
    return 0;
}
CUresult cuEventDestroy_v2(void *e) {
    free(e);
    return 0;
}
CUresult cuEventRecord(void *e, void *s) {
    STICKY();
    CUresult r = enter(F_EVENT_RECORD);
    if (r) return r;
    pthread_mutex_lock(&lk);
    *(uint64_t *)e = qtail;
    pthread_mutex_unlock(&lk);
    return 0;
}
CUresult cuEventSynchronize(void *e) {
    STICKY();
    CUresult r = enter(F_EVENT_SYNC);
    if (r) return r;
    run_to(*(uint64_t *)e);
    return 0;
}
/* Done once the copies queued before it ran (600: CUDA_ERROR_NOT_READY). */
CUresult cuEventQuery(void *e) {
    pthread_mutex_lock(&lk);
    int done = qhead >= *(uint64_t *)e;
    pthread_mutex_unlock(&lk);
    return done ? 0 : 600;
}
CUresult cuEventElapsedTime(float *ms, void *a, void *b) {
    *ms = 1.5f;
    return 0;
}
int fake_stream_waits;
CUresult cuStreamWaitEvent(void *s, void *e, unsigned f) {
    fake_stream_waits++;
    return 0;
}
/* Pinned host memory: plain malloc, so the binding and its owner type can
 * be tested without a GPU. */
CUresult cuMemHostAlloc(void **p, size_t n, unsigned flags) {
    (void)flags;
    CUresult r = enter(F_HOST_ALLOC);
    if (r) return r;
    if (!(*p = malloc(n))) return 2;
    pthread_mutex_lock(&lk);
    for (int i = 0; i < 256; i++)
        if (!pinned[i].p) {
            pinned[i].p = *p, pinned[i].n = n;
            break;
        }
    pthread_mutex_unlock(&lk);
    return 0;
}
CUresult cuMemFreeHost(void *p) {
    atomic_fetch_add(&calls[F_FREE_HOST], 1);
    pthread_mutex_lock(&lk);
    for (int i = 0; i < 256; i++)
        if (pinned[i].p == p) pinned[i].p = NULL;
    pthread_mutex_unlock(&lk);
    free(p);
    return 0;
}

/* Registered host memory (cuMemHostRegister_v2 / cuMemHostUnregister), as
 * a real driver checks it: whole pages (CUDA_ERROR_INVALID_VALUE, 1,
 * else), writable ones (a read-only mapping: 1; /proc/self/maps says),
 * and no page registered or pinned twice
 * (CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED, 712).  Unregistering a range
 * that a queued copy still reads is counted (fake_unregistered_in_use): a
 * real DMA would read unlocked pages.  fake_registered: ranges registered
 * now; fake_registered_peak: the most at once. */
int fake_unregistered_in_use, fake_registered_peak;
static int n_registered;
int fake_registered(void) { return n_registered; }
static int writable(const char *p, size_t n) {
    FILE *f = fopen("/proc/self/maps", "r");
    if (!f) return 1;
    char line[512];
    uintptr_t at = (uintptr_t)p, end = at + n;
    int ok = 0;
    while (fgets(line, sizeof line, f) && at < end) {
        unsigned long lo, hi;
        char perm[5];
        if (sscanf(line, "%lx-%lx %4s", &lo, &hi, perm) != 3 || hi <= at || lo > at) continue;
        if (perm[1] != 'w') break;
        at = hi; /* the mappings are listed in order */
    }
    ok = at >= end;
    fclose(f);
    return ok;
}
static int overlaps(const char *p, size_t n) {
    for (int i = 0; i < 1024; i++)
        if (registered[i].p && registered[i].p < p + n && p < registered[i].p + registered[i].n)
            return 1;
    for (int i = 0; i < 256; i++)
        if (pinned[i].p && pinned[i].p < p + n && p < pinned[i].p + pinned[i].n) return 1;
    return 0;
}
CUresult cuMemHostRegister_v2(void *p, size_t n, unsigned flags) {
    (void)flags;
    CUresult r = enter(F_HOST_REGISTER);
    if (r) return r;
    if (!n || (uintptr_t)p % 4096 || n % 4096 || !writable(p, n)) return 1;
    pthread_mutex_lock(&lk);
    r = overlaps(p, n) ? 712 : 2;
    for (int i = 0; i < 1024 && r == 2; i++)
        if (!registered[i].p) {
            registered[i].p = p, registered[i].n = n, r = 0;
            if (++n_registered > fake_registered_peak) fake_registered_peak = n_registered;
        }
    pthread_mutex_unlock(&lk);
    return r;
}
CUresult cuMemHostUnregister(void *p) {
    CUresult r = enter(F_HOST_UNREGISTER);
    if (r) return r;
    pthread_mutex_lock(&lk);
    r = 713; /* CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED */
    for (int i = 0; i < 1024 && r; i++)
        if (registered[i].p == p) {
            for (uint64_t k = qhead; k < qtail; k++) {
                const char *s = q[k % QN].s;
                if (s < registered[i].p + registered[i].n && registered[i].p < s + q[k % QN].n)
                    fake_unregistered_in_use++;
            }
            registered[i].p = NULL, n_registered--, r = 0;
        }
    pthread_mutex_unlock(&lk);
    return r;
}
