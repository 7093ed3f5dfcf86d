/* A fake CUDA driver for testing the CUDA backend's host side without a GPU
 * (built by test_cuda_fake.c into a shared library and loaded through
 * EMBER_LIBCUDA).  Device memory is host memory with a capacity
 * (FAKE_CUDA_MEM bytes); kernels do not run: launches are recorded.  The
 * test drives it through fake_* functions found with dlsym. */
#include <stdint.h>
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
void fake_fail_next_sync(int code) { fail_sync = code; }
int fake_allocs(void) { return allocs; }
size_t fake_used(void) { return used; }

CUresult cuInit(unsigned f) { return 0; }
CUresult cuDriverGetVersion(int *v) { *v = 13000; return 0; }
CUresult cuGetErrorName(CUresult e, const char **s) {
    *s = e == 2 ? "CUDA_ERROR_OUT_OF_MEMORY" : e == 700 ? "CUDA_ERROR_ILLEGAL_ADDRESS" : "CUDA_ERROR_UNKNOWN";
    return 0;
}
CUresult cuGetErrorString(CUresult e, const char **s) { *s = "fake error"; return 0; }
CUresult cuDeviceGetCount(int *n) { *n = 1; return 0; }
CUresult cuDeviceGet(int *d, int i) { *d = i; return 0; }
CUresult cuDeviceGetName(char *n, int len, int d) { strncpy(n, "Fake GPU", (size_t)len); return 0; }
CUresult cuDeviceGetAttribute(int *v, int a, int d) {
    switch (a) {
    case 1: *v = max_threads; break;
    case 2: case 3: *v = 1024; break;
    case 4: *v = 64; break;
    case 5: *v = 0x7fffffff; break;
    case 6: case 7: *v = 65535; break;
    case 8: *v = 48 * 1024; break;
    case 16: *v = 4; break;
    case 75: *v = 9; break;
    case 76: *v = 0; break;
    default: *v = 0;
    }
    return 0;
}
CUresult cuDeviceTotalMem_v2(size_t *b, int d) { *b = cap; return 0; }
CUresult cuDevicePrimaryCtxRetain(void **c, int d) { static int ctx; *c = &ctx; return 0; }
CUresult cuCtxSetCurrent(void *c) { return 0; }
CUresult cuCtxSynchronize(void) { int r = fail_sync; fail_sync = 0; return r; }
CUresult cuMemGetInfo_v2(size_t *f, size_t *t) { *f = cap - used, *t = cap; return 0; }
CUresult cuMemAlloc_v2(unsigned long long *p, size_t n) {
    if (used + n > cap) return 2;
    size_t *b = malloc(n + 16);
    if (!b) return 2;
    b[0] = n, used += n, allocs++;
    *p = (unsigned long long)(uintptr_t)(b + 2);
    return 0;
}
CUresult cuMemFree_v2(unsigned long long p) {
    size_t *b = (size_t *)(uintptr_t)p - 2;
    used -= b[0];
    free(b);
    return 0;
}
CUresult cuMemcpyHtoD_v2(unsigned long long d, const void *s, size_t n) { memcpy((void *)(uintptr_t)d, s, n); return 0; }
CUresult cuMemcpyDtoH_v2(void *d, unsigned long long s, size_t n) { memcpy(d, (void *)(uintptr_t)s, n); return 0; }
CUresult cuMemcpyDtoDAsync_v2(unsigned long long d, unsigned long long s, size_t n, void *st) {
    memmove((void *)(uintptr_t)d, (void *)(uintptr_t)s, n);
    return 0;
}
CUresult cuModuleLoadData(void **m, const void *img) { static int mod; *m = &mod; return 0; }
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
CUresult cuLaunchKernel(void *f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by, unsigned bz,
                        unsigned sh, void *st, void **params, void **extra) {
    fake_last_grid = gx, fake_last_block = bx;
    unsigned cfg[7] = {gx, gy, gz, bx, by, bz, sh};
    memcpy(fake_last_cfg, cfg, sizeof cfg);
    fake_last_stream = st;
    memcpy(fake_last_params, params[0], sizeof fake_last_params);
    return 0;
}
CUresult cuStreamCreate(void **s, unsigned f) { *s = malloc(1); return 0; }
CUresult cuStreamDestroy_v2(void *s) { free(s); return 0; }
CUresult cuStreamSynchronize(void *s) { return 0; }
CUresult cuEventCreate(void **e, unsigned f) { *e = malloc(1); return 0; }
CUresult cuEventDestroy_v2(void *e) { free(e); return 0; }
CUresult cuEventRecord(void *e, void *s) { return 0; }
CUresult cuEventSynchronize(void *e) { return 0; }
CUresult cuEventElapsedTime(float *ms, void *a, void *b) { *ms = 1.5f; return 0; }
int fake_stream_waits;
CUresult cuStreamWaitEvent(void *s, void *e, unsigned f) { fake_stream_waits++; return 0; }
/* Pinned host memory: plain malloc, so the binding and its owner type can
 * be tested without a GPU. */
CUresult cuMemHostAlloc(void **p, size_t n, unsigned flags) {
    (void)flags;
    *p = malloc(n);
    return *p ? 0 : 2;
}
CUresult cuMemFreeHost(void *p) { free(p); return 0; }
