/* The flat-position gather over a backend's primitives: out = a.ravel()[idx].
 *
 * One rendered kernel per (op, dtypes, ndims): a flat position is mapped to
 * a's memory through a's shape and strides, so a need not be contiguous;
 * idx and values are read through their own strides (values broadcast to
 * idx's shape).  Negative indices wrap; an index out of range sets an error
 * word (the first bad index wins), read back after the kernel, so a bad
 * index is EM_EINDEX, as on the CPU (the index named is one of the bad ones).
 */
#include "codegen/render_index.h"
#include "codegen/run.h"
#include "core/core.h"

#include <stdio.h>
#include <string.h>

typedef struct em__ix {
    const em_backend *be;
    bool put; /* the scatter form (rendered and compiled by the tests; em_run_put scatters
               * through run_gather.c, whose last write wins) */
    const em_array *a, *idx, *v, *out;
    int na, ni;
    int64_t vst[EM_MAXDIMS];
} em__ix;

static em_status em__ix_render(const void *ctx, void *sb) {
    const em__ix *x = ctx;
    const em_dialect *d;
    EM_CHECK(em_run_dialect(x->be, &d));
    return em_render_index(d, x->put, x->a->dtype, x->v ? x->v->dtype : x->a->dtype, x->na, x->ni,
                           sb);
}

/* Pack the argument; a 0-d array counts as one dimension of size 1. */
static size_t em__ix_args(const em__ix *x, char *err, int64_t n, int64_t size, unsigned char *b) {
    const char *ptrs[5] = {x->a->data, x->idx->data, x->v ? x->v->data : NULL,
                           x->out ? x->out->data : NULL, err};
    int64_t one = 1, zero = 0;
    size_t o = 0;
    memcpy(b, ptrs, sizeof ptrs), o += sizeof ptrs;
    memcpy(b + o, &n, 8), o += 8;
    memcpy(b + o, &size, 8), o += 8;
    const em_array *arrs[2] = {x->a, x->idx};
    for (int t = 0; t < 2; t++) {
        const em_array *m = arrs[t];
        memcpy(b + o, m->ndim ? m->shape : &one, 8 * (size_t)(m->ndim ? m->ndim : 1)),
            o += 8 * (size_t)(m->ndim ? m->ndim : 1);
        memcpy(b + o, m->ndim ? m->strides : &zero, 8 * (size_t)(m->ndim ? m->ndim : 1)),
            o += 8 * (size_t)(m->ndim ? m->ndim : 1);
    }
    memcpy(b + o, x->vst, 8 * (size_t)x->ni), o += 8 * (size_t)x->ni;
    return o;
}

static em_status em__ix_run(em__ix *x) {
    int id = em_array_device(x->a).id;
    if (x->idx->dtype != EM_INT64)
        return em_error(EM_ETYPE, "indices must be int64, got %s",
                        em_dtype_get(x->idx->dtype)->name);
    int64_t n = em_array_size(x->idx), size = em_array_size(x->a);
    if (n == 0) return EM_OK;
    x->na = x->a->ndim ? x->a->ndim : 1;
    x->ni = x->idx->ndim ? x->idx->ndim : 1;
    char key[160], name[64];
    snprintf(key, sizeof key, "IX%d|%d|%d|%d|%d", x->put, (int)x->a->dtype,
             x->v ? (int)x->v->dtype : -1, x->na, x->ni);
    snprintf(name, sizeof name, "%s_%s", x->put ? "put" : "take", em_dtype_get(x->a->dtype)->name);
    const em_backend *be = x->be;
    const em_kfn *f;
    EM_CHECK(em_run_kernel(be, id, key, name, EM_KNAME, em__ix_render, x, &f));
    const em_device_props *pr;
    EM_CHECK(be->props_ref(id, &pr));
    void *err = NULL;
    int64_t zero[2] = {0, 0}, got[2] = {0, 0};
    EM_CHECK(be->alloc(id, sizeof zero, &err));
    unsigned char args[1024];
    size_t nargs = em__ix_args(x, err, n, size, args);
    int slots[5]; /* a, idx, v, out, err */
    int64_t g = (n + 255) / 256, cap = (int64_t)pr->multiprocessor_count * 32;
    em_status s = be->from_host(id, err, zero, sizeof zero);
    if (s == EM_OK)
        s = em_run_launch(be, id, f, (unsigned)(g < cap ? g : cap), 256, 0, args, nargs, slots,
                          em_run_slots(slots, 0, 5));
    if (s == EM_OK) s = be->to_host(id, got, err, sizeof got);
    be->free(id, err, sizeof zero);
    if (s == EM_OK && got[0])
        s = em_error(EM_EINDEX, "index %lld is out of bounds for axis 0 with size %lld",
                     (long long)got[1], (long long)size);
    return s;
}

em_status em_run_take_flat(const em_backend *be, const em_array *a, const em_array *idx,
                           em_array *out) {
    if (!em_array_is_c_contiguous(out) || out->dtype != a->dtype ||
        em_array_size(out) != em_array_size(idx))
        return em_error(EM_EVALUE, "take: out must be C-contiguous, of a's dtype and idx's size");
    em__ix x = {.be = be, .put = false, .a = a, .idx = idx, .out = out};
    return em__ix_run(&x);
}
