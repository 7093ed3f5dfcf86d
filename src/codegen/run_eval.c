/* Elementwise eval over a backend's primitives: plan the tree, look the
 * kernel up by its structural key, launch.  This is a small op's whole
 * device path (a + b), tuned to a few microseconds of host time: the plan
 * and the packed argument live in thread-local room, the key in a stack
 * buffer, the cache lookup takes no lock; nothing is allocated or
 * formatted unless the kernel is new (or the tree's key is long). */
#include "codegen/render.h"
#include "codegen/run.h"
#include "core/core.h"

#include <stdlib.h>

#define EM_RUN_ARGMAX 8192

/* Blocks for a plan: a thread per group of the wide loop (the H100 ran a + b
 * 3 % faster so than with 32 blocks per SM looping), a thread per element
 * where the kernel has no wide loop (OpenCL's scalar loop: a grid sized for
 * groups left each work-item looping over 4 float32 elements, a quarter of
 * the work-items in flight); the strided form's per-element index math
 * does better on 32 blocks per SM. */
static unsigned em__grid(const em_device_props *p, const em_kplan *plan, bool wide) {
    int64_t v = wide ? em_kplan_group(plan) : 1, n = (plan->n + v - 1) / v;
    int64_t g = (n + EM_RUN_BLOCK - 1) / EM_RUN_BLOCK, cap = (int64_t)p->multiprocessor_count * 32;
    if (!plan->contig && g > cap) g = cap;
    if (g > p->max_grid_dim[0]) g = p->max_grid_dim[0];
    return g < 1 ? 1 : (unsigned)g;
}

/* The kernel's source: the backend's dialect, prelude first. */
typedef struct em__ewctx {
    const em_backend *be;
    const em_kplan *plan;
} em__ewctx;

static em_status em__render(const void *ctx, void *src) {
    const em__ewctx *c = ctx;
    const em_dialect *d;
    EM_CHECK(em_run_dialect(c->be, &d));
    return em_render_full(d, c->plan, src);
}

/* Per-thread room for a launch: one TLS lookup for all. */
static _Thread_local struct {
    em_kplan plan;
    unsigned char args[EM_RUN_ARGMAX];
    em_kargs kargs;
    const em_backend *be; /* the backend whose dialect `flat` and `d` are */
    const em_dialect *d;
    bool flat; /* its dialect has no args_struct: launch with kargs */
} em__ew;

/* Whether be's kernels take an em_kargs (remembered per thread: the small
 * op's path does no string compare). */
static em_status em__flat(const em_backend *be, bool *flat) {
    if (em__ew.be != be) {
        const em_dialect *d;
        EM_CHECK(em_run_dialect(be, &d));
        em__ew.flat = !d->args_struct;
        em__ew.d = d;
        em__ew.be = be;
    }
    *flat = em__ew.flat;
    return EM_OK;
}

em_status em_run_eval(const em_backend *be, const em_node *root, em_array *out, uint64_t *keyhash) {
    em_kplan *plan = &em__ew.plan;
    unsigned char *args = em__ew.args;
    int id = em_array_device(out).id;
    if (!be->module_build)
        return em_error(EM_EUNSUPPORTED, "the %s backend compiles no kernels", be->name);
    EM_CHECK(em_kplan_make(root, out, plan));
    if (plan->n == 0) return EM_OK;
    bool flat;
    EM_CHECK(em__flat(be, &flat));
    void *launch_arg = flat ? (void *)&em__ew.kargs : (void *)args;
    size_t nargs = flat ? em_kplan_kargs(plan, &em__ew.kargs, args, EM_RUN_ARGMAX)
                        : em_kplan_args(plan, args, EM_RUN_ARGMAX);
    if (!nargs)
        return em_error(EM_EUNSUPPORTED,
                        "expression too large for one kernel (%d arrays, %d dimensions)",
                        plan->nops, plan->ndim);
    const em_device_props *p;
    EM_CHECK(be->props_ref(id, &p));
    char keybuf[512], *key = keybuf; /* a key of a big tree moves to the heap */
    size_t klen = em_kplan_key_into(plan, keybuf, sizeof keybuf);
    if (klen >= sizeof keybuf) {
        if (!(key = malloc(klen + 1))) return em_error(EM_ENOMEM, "out of host memory");
        em_kplan_key_into(plan, key, klen + 1);
    }
    uint64_t h = em_key_hash(key, klen);
    if (keyhash) *keyhash = h;
    em_status s = EM_OK;
    const em_kfn *k = em_run_find(be, id, key, klen, h);
    if (!k) { /* the name only for a kernel not loaded yet */
        char name[48];
        em_kplan_name(plan, name, sizeof name);
        em__ewctx c = {be, plan};
        s = em_run_get(be, id, key, klen, h, name, EM_KNAME, em__render, &c, &k);
    }
    if (key != keybuf) free(key);
    if (s != EM_OK) return s;
    return em_run_launch1(be, id, k, em__grid(p, plan, em_render_ew_wide(em__ew.d, plan)),
                          EM_RUN_BLOCK, 0, launch_arg, flat);
}
