/* Reductions over a backend's primitives: plan, split the work across the
 * device, launch pass 1 and, when outputs were split, pass 2 (see
 * codegen/render_reduce.h). */
#include "codegen/render_reduce.h"
#include "codegen/run.h"
#include "core/core.h"

#include <stdio.h>
#include <string.h>

#define EM_RB 256

typedef struct em__rctx {
    const em_backend *be;
    const em_rplan *p;
} em__rctx;

static em_status em__render(const void *ctx, void *src) {
    const em__rctx *c = ctx;
    const em_dialect *d;
    EM_CHECK(em_run_dialect(c->be, &d));
    return em_render_reduce(d, c->p, src);
}

/* Split each output's m elements into interleaved parts so that about 8
 * blocks per SM work, each thread on at least 16 elements. */
static void em__split(em_rplan *p, int sms) {
    int64_t want = (int64_t)sms * 8;
    /* Outputs side by side in memory, rows apart (mean(axis=0) of a
     * matrix): the column form, with the rows split in chunks of at least
     * 16 per row lane until about 8 blocks per SM work. */
    if (em_rplan_columns(p)) {
        int64_t tiles = (p->nout + 31) / 32, by_work = (p->m + 8 * 16 - 1) / (8 * 16),
                by_dev = (want + tiles - 1) / tiles;
        p->col = 1;
        p->nsplit = tiles >= want ? 1 : by_work < by_dev ? by_work : by_dev;
        return;
    }
    /* Many short reductions (seed 004's sum over 1000 of 100 000 rows): a
     * warp per output keeps every thread loading instead of waiting at a
     * block-wide tree once per output. */
    p->warp = p->nout >= want * 8 && p->m <= 8192;
    if (p->nout >= want || p->m <= EM_RB * 16)
        return; /* so a warp's units are never split: no pass 2 */
    int64_t by_work = (p->m + EM_RB * 16 - 1) / (EM_RB * 16),
            by_dev = (want + p->nout - 1) / p->nout;
    p->nsplit = by_work < by_dev ? by_work : by_dev;
}

static em_status em__launch(const em_backend *be, int id, const em_rplan *p, const char *fname,
                            int64_t units, const em_device_props *pr) {
    unsigned char args[2048];
    size_t n = em_rplan_args(p, args, sizeof args);
    if (!n) return em_error(EM_EUNSUPPORTED, "reduction of too many dimensions for one kernel");
    char keybuf[512]; /* per launch: no heap unless a fused tree's key is long */
    em_sbuf key = em_sbuf_on(keybuf, sizeof keybuf);
    em_rplan_key(p, &key);
    em_sbuf_put(&key, "|", 1);
    em_sbuf_put(&key, fname, strlen(fname));
    em_status s = EM_OK;
    const em_kfn *k = NULL;
    if (key.oom)
        s = em_error(EM_ENOMEM, "out of host memory");
    else {
        uint64_t h = em_key_hash(key.s, key.len);
        if (!(k = em_run_find(be, id, key.s, key.len, h))) { /* the name only for a new kernel */
            char name[64];
            snprintf(name, sizeof name, "reduce%d_%s", (int)p->op, em_dtype_get(p->in)->name);
            em__rctx c = {be, p};
            s = em_run_get(be, id, key.s, key.len, h, name, fname, em__render, &c, &k);
        }
    }
    em_sbuf_free(&key);
    if (p->col) /* pass 1: a block per (32 outputs, chunk); pass 2: a thread per output */
        units = !strcmp(fname, EM_KNAME) ? (p->nout + 31) / 32 * p->nsplit : (p->nout + 255) / 256;
    if (p->warp && !strcmp(fname, EM_KNAME))
        units = (units + EM_RB / 32 - 1) / (EM_RB / 32); /* 8 per block */
    /* A block per unit: the H100 ran the seed 004 rows 4 % faster with one
     * row per warp than with 8 blocks per SM looping over them. */
    int64_t g = units < pr->max_grid_dim[0] ? units : pr->max_grid_dim[0];
    int slots[3 + EM_KMAXOPS], ns = em_rplan_buffers(p, slots);
    if (s == EM_OK)
        s = em_run_launch(be, id, k, (unsigned)(g < 1 ? 1 : g), EM_RB, 0, args, n, slots, ns);
    return s;
}

static em_status em__reduce(const em_backend *be, em_reduce_op op, const em_array *a, int naxes,
                            const int *axes, em_dtype dt, double ddof, const em_node *fused,
                            em_array *out) {
    static _Thread_local em_rplan p;
    int id = em_array_device(out).id;
    if (!be->module_build)
        return em_error(EM_EUNSUPPORTED, "the %s backend compiles no kernels", be->name);
    EM_CHECK(em_rplan_make(op, a, naxes, axes, dt, ddof, out, &p));
    if (fused) /* a's values come from a tree */
        EM_CHECK(em_rplan_fuse(&p, fused, a, naxes, axes, out));
    if (p.nout == 0 || em_array_size(out) == 0) return EM_OK;
    if (p.m == 0 &&
        (op == EM_RED_MIN || op == EM_RED_MAX || op == EM_RED_ARGMIN || op == EM_RED_ARGMAX))
        return em_error(EM_EVALUE,
                        "zero-size array to reduction operation %s which has no identity",
                        op == EM_RED_MIN      ? "minimum"
                        : op == EM_RED_MAX    ? "maximum"
                        : op == EM_RED_ARGMIN ? "argmin"
                                              : "argmax");
    const em_device_props *pr;
    EM_CHECK(be->props_ref(id, &pr));
    em__split(&p, pr->multiprocessor_count);
    if (p.warp && em_rplan_tune_blocks()) {
        const em_dialect *d;
        EM_CHECK(em_run_dialect(be, &d));
        if (!d->has_shuffle) p.warp = 0; /* a warp's units were never split */
    }
    void *part = NULL;
    size_t pbytes = 0;
    em_status s = EM_OK;
    if (p.nsplit > 1) {
        pbytes = (size_t)(p.nout * p.nsplit) * EM_RSTATE_MAX;
        s = be->alloc(id, pbytes, &part);
        p.part = part;
    }
    if (s == EM_OK) s = em__launch(be, id, &p, EM_KNAME, p.nout * p.nsplit, pr);
    if (s == EM_OK && p.nsplit > 1) s = em__launch(be, id, &p, EM_KNAME "2", p.nout, pr);
    /* One stream: the pool may hand the block out again once queued work is ordered after. */
    if (part) be->free(id, part, pbytes);
    return s;
}

/* ANY and ALL reach here as MAX and MIN in bool: the values must be made
 * truth values first (max of [-3, 0] is 0, but any() is true). */
em_status em_run_reduce(const em_backend *be, em_reduce_op op, const em_array *a, int naxes,
                        const int *axes, em_dtype dt, double ddof, const em_node *fused,
                        em_array *out) {
    if (!((op == EM_RED_MIN || op == EM_RED_MAX) && dt == EM_BOOL && a->dtype != EM_BOOL))
        return em__reduce(be, op, a, naxes, axes, dt, ddof, fused, out);
    em_array b;
    EM_CHECK(em_astype(a, EM_BOOL, &b));
    em_status s = em__reduce(be, op, &b, naxes, axes, dt, ddof, NULL, out);
    em_array_release(&b);
    return s;
}
