/* A pass-through libcuda for timing: loaded as EMBER_LIBCUDA, it defines
 * cuLaunchKernel (timed, then the real one) and leaves every other symbol
 * to the real driver, which it links (dlsym on this library's handle also
 * searches its dependencies).  At exit it prints the launches and the host
 * time spent inside the driver's cuLaunchKernel, so that a small op's host
 * time splits into Ember's part and the driver's.
 *   cc -O2 -shared -fPIC -o /tmp/shim.so tools/probe_shim.c -Wl,--no-as-needed \
 *      "$(ldconfig -p | awk '/libcuda.so.1 /{print $NF; exit}')" -ldl
 *   EMBER_LIBCUDA=/tmp/shim.so python3 tools/probe_host.py */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <time.h>

typedef int (*launch_t)(void *, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned,
                        unsigned, void *, void **, void **);
static launch_t real;
static double spent;
static long count;

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec * 1e-9;
}

int cuLaunchKernel(void *f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by,
                   unsigned bz, unsigned sh, void *st, void **params, void **extra) {
    if (!real) real = (launch_t)dlsym(RTLD_NEXT, "cuLaunchKernel");
    double t0 = now();
    int r = real(f, gx, gy, gz, bx, by, bz, sh, st, params, extra);
    spent += now() - t0;
    count++;
    return r;
}

/* For probes: reset and read the counters (found with dlsym). */
void shim_reset(void) { spent = 0, count = 0; }
double shim_us_per_launch(void) { return count ? spent / count * 1e6 : 0; }
long shim_launches(void) { return count; }

__attribute__((destructor)) static void report(void) {
    if (count)
        fprintf(stderr, "shim: %ld launches, %.2f us each inside cuLaunchKernel\n", count,
                spent / count * 1e6);
}
