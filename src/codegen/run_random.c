/* Random fills over a backend's primitives: Philox4x32-10, counter based,
 * so element n of a stream is the same on every device and whatever the
 * launch shape (render_random.c gives the stream mapping and the kernel). */
#include "codegen/render_random.h"
#include "codegen/run.h"
#include "core/core.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct em__rctx {
    const em_backend *be;
    em_random_kind kind;
    em_dtype dt; /* the stream's (float64 where GEOMETRIC stores int64) */
    em_random_post post;
} em__rctx;

static em_status em__render(const void *ctx, void *sb) {
    const em__rctx *r = ctx;
    const em_dialect *d;
    EM_CHECK(em_run_dialect(r->be, &d));
    return em_render_random_post(d, r->kind, r->dt, r->post, sb);
}

static em_status em__render_choice(const void *ctx, void *sb) {
    const em__rctx *r = ctx;
    const em_dialect *d;
    EM_CHECK(em_run_dialect(r->be, &d));
    return em_render_random_choice(d, em_dtype_get(r->dt)->size, sb);
}

/* em_random_choice on a device: one launch, a thread a Philox block (two
 * elements), as the integer fill's grid. */
static em_status em__run_choice(const em_backend *be, em_array *a, const em_random_req *req) {
    const em_array *src = req->src;
    int id = em_array_device(a).id, size = em_dtype_get(a->dtype)->size;
    if (!em_array_is_c_contiguous(a) || src->ndim != 1 || src->dtype != a->dtype || !req->range)
        return em_error(EM_EVALUE, "random choice: a C-contiguous out of a 1-d population's dtype");
    uint64_t n = (uint64_t)em_array_size(a);
    if (n == 0) return EM_OK;
    em__rctx r = {.be = be, .kind = EM_RAND_INTEGERS, .dt = a->dtype};
    char key_s[32], name[48];
    snprintf(key_s, sizeof key_s, "RNDC|%d", size);
    snprintf(name, sizeof name, "philox_choice_%dB", size);
    const em_kfn *f;
    EM_CHECK(em_run_kernel(be, id, key_s, name, EM_KNAME, em__render_choice, &r, &f));
    const em_device_props *pr;
    EM_CHECK(be->props_ref(id, &pr));
    struct {
        char *out, *src;
        uint64_t n, key, counter, range;
        int64_t stride;
    } args = {a->data, src->data, n, req->key, req->counter, req->range, src->strides[0]};
    uint64_t g = ((n + 1) / 2 + 255) / 256, cap = (uint64_t)pr->multiprocessor_count * 32;
    int slots[2] = {0, 1};
    return em_run_launch(be, id, f, (unsigned)(g < cap ? g : cap), 256, 0, &args, sizeof args,
                         slots, 2);
}

em_status em_run_random(const em_backend *be, em_array *a, const em_random_req *req) {
    if (req->src) return em__run_choice(be, a, req);
    em_random_kind kind = req->kind;
    int id = em_array_device(a).id, per;
    em_dtype base = req->post == EM_RPOST_GEOMETRIC ? EM_FLOAT64 : a->dtype;
    em__rctx r = {.be = be, .kind = kind, .dt = base, .post = req->post};
    EM_CHECK(em_random_per_block(kind, base, &per));
    if (!em_array_is_c_contiguous(a))
        return em_error(EM_EVALUE, "random fill needs a C-contiguous array");
    uint64_t n = (uint64_t)em_array_size(a);
    if (n == 0) return EM_OK;
    char key_s[32], name[48];
    const bool binom = kind == EM_RAND_BINOMIAL; /* render_random.c's A/B switches */
    snprintf(key_s, sizeof key_s, "RND%d|%d|%d|%d|%d", (int)kind, (int)a->dtype, (int)req->post,
             binom ? em_random_binom_stepped() : 1, binom ? em_random_binom_minb() : 0);
    snprintf(name, sizeof name, "philox_%s", em_dtype_get(a->dtype)->name);
    const em_kfn *f;
    EM_CHECK(em_run_kernel(be, id, key_s, name, EM_KNAME, em__render, &r, &f));
    const em_device_props *pr;
    EM_CHECK(be->props_ref(id, &pr));
    if (kind >= EM_RAND_GAMMA) { /* em_random_dist: one thread per element */
        struct {
            char *out, *p0, *p1;
            uint64_t n, key, counter, s0, s1;
        } da = {a->data, req->p0->data, req->p1->data, n, req->key, req->counter, req->s0, req->s1};
        /* EMBER_BINOM_GRID: binomial's blocks an SM, for A/B on a device */
        const char *bg = kind == EM_RAND_BINOMIAL ? getenv("EMBER_BINOM_GRID") : NULL;
        uint64_t per_sm = bg && atoi(bg) > 0 ? (uint64_t)atoi(bg) : 32;
        uint64_t g = (n + 255) / 256, cap = (uint64_t)pr->multiprocessor_count * per_sm;
        int slots[3] = {0, 1, 2};
        return em_run_launch(be, id, f, (unsigned)(g < cap ? g : cap), 256, 0, &da, sizeof da,
                             slots, 3);
    }
    struct {
        char *out;
        uint64_t n, key, counter, low, range;
        double pa, pb;
    } args = {a->data, n, req->key, req->counter, req->low, req->range, req->pa, req->pb};
    uint64_t blocks = (n + (uint64_t)per - 1) / (uint64_t)per, g = (blocks + 255) / 256,
             cap = (uint64_t)pr->multiprocessor_count * 32;
    int slot = 0; /* out */
    return em_run_launch(be, id, f, (unsigned)(g < cap ? g : cap), 256, 0, &args, sizeof args,
                         &slot, 1);
}
