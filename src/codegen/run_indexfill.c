/* em_index_fill (ember.h): the index fills of render_indexfill.h on a
 * device that compiles kernels, a loop on the CPU.  Queued on the current
 * stream, nothing read back: the CUDA libraries' epilogues (cudalib's
 * batched.c and epilogue.c) call it on the success path of a solve. */
#include "codegen/render_indexfill.h"
#include "codegen/run.h"
#include "core/core.h"

#include <stdio.h>
#include <string.h>

typedef struct em__ifx {
    const em_backend *be;
    em_ifill_spec k;
} em__ifx;

static em_status em__if_render(const void *ctx, void *sb) {
    const em__ifx *x = ctx;
    const em_dialect *d;
    EM_CHECK(em_run_dialect(x->be, &d));
    return em_render_indexfill(d, &x->k, sb);
}

typedef struct em__ifargs {
    void *a;
    int64_t n, total;
    uint64_t b0, d;
} em__ifargs;

/* The bits of 1 in word 0 of an element (the words little-endian, as every
 * device Ember runs on). */
static uint64_t em__one(em_dtype dt) {
    const em_dtype_info *t = em_dtype_get(dt);
    if (t->kind == 'f' || t->kind == 'c') {
        if ((t->kind == 'f' ? t->size : t->size / 2) == 4) {
            float f = 1.0f;
            uint32_t u;
            memcpy(&u, &f, 4);
            return u;
        }
        double f = 1.0;
        uint64_t u;
        memcpy(&u, &f, 8);
        return u;
    }
    return 1;
}

static void em__cpu_fill(const em_ifill_spec *k, const em__ifargs *g) {
    const int64_t n = g->n, nn = n * n;
    for (int64_t e = 0; e < g->total; e++) {
        const int64_t q = nn ? e % nn : 0;
        if ((k->kind == EM_IFILL_TRIL && q % n <= q / n) ||
            (k->kind == EM_IFILL_TRIU && q % n >= q / n))
            continue;
        uint64_t w0 = k->kind == EM_IFILL_STEP                    ? g->b0 + (uint64_t)e * g->d
                      : k->kind == EM_IFILL_EYE && q / n == q % n ? g->b0
                                                                  : 0;
        char *p = (char *)g->a + e * k->words * k->wbytes;
        memset(p, 0, (size_t)k->words * k->wbytes);
        if (k->wbytes == 4) {
            uint32_t w = (uint32_t)w0;
            memcpy(p, &w, 4);
        } else
            memcpy(p, &w0, 8);
    }
}

em_status em_index_fill(em_array *a, em_index_fill_kind kind, uint64_t b0, uint64_t d) {
    if (!a->buf) return em_error(EM_EVALUE, "index_fill: no array");
    const em_dtype_info *t = em_dtype_get(a->dtype);
    const bool cplx = t->kind == 'c', step = kind == EM_IFILL_STEP;
    if ((unsigned)kind > EM_IFILL_STEP) return em_error(EM_EVALUE, "index_fill: no kind %d", kind);
    if (!em_array_is_c_contiguous(a))
        return em_error(EM_EVALUE, "index_fill: a C-contiguous array");
    if (!strchr(step ? "iu" : "iufc", t->kind) || (t->size != 4 && t->size != 8 && !cplx))
        return em_error(EM_ETYPE, "index_fill: no %s fill of %s", step ? "step" : "matrix",
                        t->name);
    if (step ? a->ndim != 1 : a->ndim < 2 || a->shape[a->ndim - 1] != a->shape[a->ndim - 2])
        return em_error(EM_EVALUE, "index_fill: %s",
                        step ? "a 1-d array" : "a stack of square matrices");
    em__ifx x = {.k = {kind, cplx ? (int)t->size / 2 : (int)t->size, cplx ? 2 : 1}};
    em__ifargs g = {.a = a->data,
                    .n = step ? 0 : a->shape[a->ndim - 1],
                    .total = em_array_size(a),
                    .b0 = kind == EM_IFILL_EYE ? em__one(a->dtype) : b0,
                    .d = d};
    if (!g.total) return EM_OK;
    const em_device dev = em_array_device(a);
    const em_backend *be = x.be = em__backend(dev.kind);
    if (!be) return em_error(EM_EDEVICE, "no backend for %s", em_device_kind_name(dev.kind));
    if (!be->module_build) {
        if (dev.kind != EM_CPU)
            return em_error(EM_EUNSUPPORTED, "the %s backend compiles no kernels", be->name);
        em__cpu_fill(&x.k, &g);
        return EM_OK;
    }
    char key[32], name[48];
    snprintf(key, sizeof key, "IF%d|%d|%d", x.k.kind, x.k.wbytes, x.k.words);
    static const char *const names[] = {"eye", "tril", "triu", "step"};
    snprintf(name, sizeof name, "index_fill_%s_%s", names[kind], t->name);
    const em_kfn *f;
    EM_CHECK(em_run_kernel(be, dev.id, key, name, EM_KNAME, em__if_render, &x, &f));
    const em_device_props *pr;
    EM_CHECK(be->props_ref(dev.id, &pr));
    int64_t blocks = (g.total + 255) / 256, cap = (int64_t)pr->multiprocessor_count * 32;
    unsigned char blob[sizeof g];
    memcpy(blob, &g, sizeof g);
    int slots[1];
    return em_run_launch(be, dev.id, f, (unsigned)(blocks < cap ? blocks : cap), 256, 0, blob,
                         sizeof blob, slots, em_run_slots(slots, 0, 1));
}
