/* Compiled CPU expression kernels over the thread pool (ember/kernel.h). */
#include "ember/kernel.h"
#include "host/fpe_guard.h"
#include "host/threadpool.h"

#include <stdatomic.h>

/* Element steps per thread below which splitting costs more than it gains
 * (waking a worker is tens of microseconds; see threadpool.c).  It is also
 * the work per em_fpe_run call, so a fault stops the others soon. */
#define EM_XK_GRAIN_STEPS 65536

typedef struct {
    em_xkernel_fn fn;
    long long n1;
    char *const *p;
    const long long *shape, *st;
    const void *const *sc;
    int64_t grain;    /* items per em_fpe_run call */
    atomic_int fault; /* si_code of the first SIGFPE, 0 if none */
} em__xk;

typedef struct {
    const em__xk *x;
    int64_t lo, hi;
} em__xk_piece;

static void em__xk_call(void *arg) {
    const em__xk_piece *c = arg;
    const em__xk *x = c->x;
    x->fn(c->lo, c->hi, x->n1, x->p, x->shape, x->st, x->sc);
}

/* Items [begin, end) in pieces of x->grain, each under a recovery point;
 * none starts once a piece anywhere has faulted. */
static void em__xk_range(void *ctx, int64_t begin, int64_t end, int worker) {
    em__xk *x = ctx;
    (void)worker;
    for (int64_t lo = begin; lo < end && !atomic_load_explicit(&x->fault, memory_order_relaxed);) {
        em__xk_piece c = {x, lo, end - lo > x->grain ? lo + x->grain : end};
        int code = em_fpe_run(em__xk_call, &c);
        if (code) {
            int none = 0;
            atomic_compare_exchange_strong(&x->fault, &none, code);
        }
        lo = c.hi;
    }
}

em_status em_xkernel_run(em_xkernel_fn fn, int64_t n0, int64_t n1, int64_t cost, char *const *p,
                         const long long *shape, const long long *st, const void *const *sc) {
    if (n0 <= 0) return EM_OK;
    if (cost < 1) cost = 1;
    int64_t grain = EM_XK_GRAIN_STEPS / cost;
    if (grain < 1) grain = 1;
    em__xk x = {.fn = fn, .n1 = n1, .p = p, .shape = shape, .st = st, .sc = sc, .grain = grain};
    atomic_init(&x.fault, 0);
    if (n0 <= grain)
        em__xk_range(&x, 0, n0, 0);
    else
        em_parallel_for(n0, grain, em__xk_range, &x);
    int code = atomic_load(&x.fault);
    if (!code) return EM_OK;
    fn(-1, -1, n1, p, shape, st, sc); /* the kernel records the fault (ember/kernel.h) */
    return em_fpe_error(code, "expression kernel");
}
