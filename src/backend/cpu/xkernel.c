/* Compiled CPU expression kernels over the thread pool (see xkernel.h). */
#include "backend/cpu/xkernel.h"
#include "backend/cpu/threadpool.h"

/* Element steps per thread below which splitting costs more than it gains
 * (waking a worker is tens of microseconds; see threadpool.c). */
#define EM_XK_GRAIN_STEPS 65536

typedef struct {
    em_xkernel_fn fn;
    long long n1;
    char *const *p;
    const long long *shape, *st;
    const void *const *sc;
} em__xk;

static void em__xk_range(void *ctx, int64_t begin, int64_t end, int worker) {
    const em__xk *x = ctx;
    (void)worker;
    x->fn(begin, end, x->n1, x->p, x->shape, x->st, x->sc);
}

void em_xkernel_run(em_xkernel_fn fn, int64_t n0, int64_t n1, int64_t cost, char *const *p,
                    const long long *shape, const long long *st, const void *const *sc) {
    if (n0 <= 0) return;
    if (cost < 1) cost = 1;
    int64_t grain = EM_XK_GRAIN_STEPS / cost;
    if (grain < 1) grain = 1;
    if (n0 <= grain) {
        fn(0, n0, n1, p, shape, st, sc);
        return;
    }
    em__xk x = {fn, n1, p, shape, st, sc};
    em_parallel_for(n0, grain, em__xk_range, &x);
}
