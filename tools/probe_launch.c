/* The CUDA driver's own launch cost, without Ember or Python: an empty
 * kernel launched N times in a loop, host microseconds per launch, on the
 * legacy default stream, a created stream and the per-thread stream; and
 * the device's time per back-to-back launch (events).  Tells how much of a
 * small op's host time is the driver's.  On the device machine:
 *   cc -O2 -o /tmp/pl tools/probe_launch.c -ldl && /tmp/pl */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

typedef int (*fn_t)();
static void *lib;
static fn_t get(const char *n) {
    fn_t f = (fn_t)dlsym(lib, n);
    if (!f) {
        fprintf(stderr, "no %s\n", n);
        exit(1);
    }
    return f;
}
static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec * 1e-9;
}
#define CK(x)                                    \
    do {                                         \
        int r_ = (x);                            \
        if (r_) {                                \
            fprintf(stderr, "%s: %d\n", #x, r_); \
            exit(1);                             \
        }                                        \
    } while (0)

static const char *ptx = ".version 8.0\n.target sm_90\n.address_size 64\n"
                         ".visible .entry k(.param .u64 p) { ret; }\n";

int main(void) {
    lib = dlopen("libcuda.so.1", RTLD_NOW);
    if (!lib) {
        fprintf(stderr, "no libcuda\n");
        return 1;
    }
    void *ctx, *mod, *f, *st, *e0, *e1;
    int dev;
    CK(get("cuInit")(0));
    CK(get("cuDeviceGet")(&dev, 0));
    CK(get("cuDevicePrimaryCtxRetain")(&ctx, dev));
    CK(get("cuCtxSetCurrent")(ctx));
    CK(get("cuModuleLoadData")(&mod, ptx));
    CK(get("cuModuleGetFunction")(&f, mod, "k"));
    CK(get("cuStreamCreate")(&st, 1));
    CK(get("cuEventCreate")(&e0, 0));
    CK(get("cuEventCreate")(&e1, 0));
    fn_t launch = get("cuLaunchKernel"), sync = get("cuCtxSynchronize"),
         setc = get("cuCtxSetCurrent");
    fn_t rec = get("cuEventRecord"), esync = get("cuEventSynchronize"),
         el = get("cuEventElapsedTime");
    unsigned long long arg = 0;
    void *params[] = {&arg};
    void *streams[3] = {NULL, st, (void *)0x2};
    const char *names[3] = {"legacy default", "created non-blocking", "per-thread default"};
    int ns[4] = {100, 1000, 5000, 20000};
    for (int s = 0; s < 3; s++)
        for (int k = 0; k < 4; k++) {
            int n = ns[k];
            for (int i = 0; i < 100; i++)
                CK(launch(f, 1, 1, 1, 32, 1, 1, 0, streams[s], params, NULL));
            CK(sync());
            CK(rec(e0, streams[s]));
            double t0 = now();
            for (int i = 0; i < n; i++)
                CK(launch(f, 1, 1, 1, 32, 1, 1, 0, streams[s], params, NULL));
            double t1 = now();
            CK(rec(e1, streams[s]));
            CK(esync(e1));
            double t2 = now();
            float ms;
            CK(el(&ms, e0, e1));
            printf(
                "%-22s n=%6d  host %.2f us/launch, until done %.2f us/launch, device %.2f us/launch\n",
                names[s], n, (t1 - t0) / n * 1e6, (t2 - t0) / n * 1e6, ms * 1e3 / n);
        }
    /* The same empty kernel launched as Ember launches its own (256
     * threads, one packed argument passed through kernelParams), and with
     * the argument buffer given by CU_LAUNCH_PARAM_BUFFER_POINTER instead. */
    static const char *ptx2 = ".version 8.0\n.target sm_90\n.address_size 64\n"
                              ".visible .entry k2(.param .align 8 .b8 p[64]) { ret; }\n";
    void *mod2, *f2;
    CK(get("cuModuleLoadData")(&mod2, ptx2));
    CK(get("cuModuleGetFunction")(&f2, mod2, "k2"));
    unsigned char packed[64] = {0};
    size_t psize = sizeof packed;
    void *kp[] = {packed};
    void *extra[] = {(void *)1, packed, (void *)2, &psize, (void *)0};
    int n = 20000;
    for (int form = 0; form < 4; form++) {
        unsigned bx = form & 1 ? 256 : 32;
        for (int i = 0; i < 100; i++)
            CK(form < 2 ? launch(f2, 1, 1, 1, bx, 1, 1, 0, NULL, kp, NULL)
                        : launch(f2, 1, 1, 1, bx, 1, 1, 0, NULL, NULL, extra));
        CK(sync());
        double t0 = now();
        for (int i = 0; i < n; i++)
            CK(form < 2 ? launch(f2, 1, 1, 1, bx, 1, 1, 0, NULL, kp, NULL)
                        : launch(f2, 1, 1, 1, bx, 1, 1, 0, NULL, NULL, extra));
        double t1 = now();
        CK(sync());
        printf("64-byte argument, %3u threads, %-12s host %.2f us/launch\n", bx,
               form < 2 ? "kernelParams" : "extra", (t1 - t0) / n * 1e6);
    }
    double t0 = now();
    for (int i = 0; i < n; i++) CK(setc(ctx));
    printf("cuCtxSetCurrent %.3f us\n", (now() - t0) / n * 1e6);
    t0 = now();
    for (int i = 0; i < n; i++) {
        CK(launch(f, 1, 1, 1, 32, 1, 1, 0, NULL, params, NULL));
        CK(sync());
    }
    printf("launch + cuCtxSynchronize %.2f us\n", (now() - t0) / n * 1e6);
    return 0;
}
