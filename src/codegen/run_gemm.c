/* The tiled matrix product over a backend's primitives (render_gemm.h):
 * out = a @ b for stacks of matrices of one batch shape, read through
 * their strides (a transposed or broadcast operand is not copied).  One
 * kernel per (dtype, batch dimensions, load order). */
#include "codegen/render_gemm.h"
#include "codegen/run.h"
#include "core/core.h"

#include <stdio.h>
#include <string.h>

typedef struct em__gm {
    const em_backend *be;
    em_dtype dt;
    int nb;
    bool a_kfast, b_nfast;
} em__gm;

static em_status em__gm_render(const void *ctx, void *sb) {
    const em__gm *x = ctx;
    const em_dialect *d;
    EM_CHECK(em_run_dialect(x->be, &d));
    return em_render_gemm(d, x->dt, x->nb, x->a_kfast, x->b_nfast, sb);
}

static int64_t em__abs64(int64_t v) { return v < 0 ? -v : v; }

em_status em_run_matmul(const em_backend *be, const em_array *a, const em_array *b, em_array *out) {
    const int nd = a->ndim;
    const int64_t m = a->shape[nd - 2], k = a->shape[nd - 1], n = b->shape[nd - 1];
    int64_t batch = 1;
    for (int i = 0; i < nd - 2; i++) batch *= a->shape[i];
    if (!batch || !m || !n) return EM_OK;
    /* The batch dimensions (one of size 1 where there are none). */
    em__gm x = {.be = be, .dt = a->dtype, .nb = nd > 2 ? nd - 2 : 1};
    x.a_kfast = em__abs64(a->strides[nd - 1]) <= em__abs64(a->strides[nd - 2]);
    x.b_nfast = em__abs64(b->strides[nd - 1]) <= em__abs64(b->strides[nd - 2]);
    const int64_t gt = 16 * em_gemm_rblock(x.dt);
    const int64_t ntiles = batch * ((m + gt - 1) / gt) * ((n + gt - 1) / gt);
    int id = em_array_device(a).id;
    char key[96], name[64];
    snprintf(key, sizeof key, "GEMM%d|%d|%d|%d", (int)x.dt, x.nb, x.a_kfast, x.b_nfast);
    snprintf(name, sizeof name, "matmul_%s", em_dtype_get(x.dt)->name);
    const em_kfn *f;
    EM_CHECK(em_run_kernel(be, id, key, name, EM_KNAME, em__gm_render, &x, &f));
    /* The argument: 3 pointers, 9 numbers, then the batch shape and strides. */
    unsigned char args[64 + 3 * 8 * EM_MAXDIMS];
    const char *ptrs[3] = {a->data, b->data, out->data};
    int64_t nums[9] = {m,
                       n,
                       k,
                       batch,
                       ntiles,
                       a->strides[nd - 2],
                       a->strides[nd - 1],
                       b->strides[nd - 2],
                       b->strides[nd - 1]};
    size_t o = 0;
    memcpy(args, ptrs, sizeof ptrs), o += sizeof ptrs;
    memcpy(args + o, nums, sizeof nums), o += sizeof nums;
    int64_t one = 1, zero = 0;
    for (int t = 0; t < 3; t++)
        for (int i = 0; i < x.nb; i++) {
            const int64_t *v = nd <= 2  ? (t ? &zero : &one)
                               : t == 0 ? &a->shape[i]
                               : t == 1 ? &a->strides[i]
                                        : &b->strides[i];
            memcpy(args + o, v, 8), o += 8;
        }
    int slots[3];
    const int64_t cap = 1 << 20; /* groups stride over the tiles past it */
    return em_run_launch(be, id, f, (unsigned)(ntiles < cap ? ntiles : cap), EM_GEMM_BLOCK, 0, args,
                         o, slots, em_run_slots(slots, 0, 3));
}
