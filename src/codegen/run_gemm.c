/* The tiled matrix product over a backend's primitives (render_gemm.h):
 * out = a @ b for stacks of matrices of one batch shape, read through
 * their strides (a transposed or broadcast operand is not copied).  One
 * kernel per (dtype, batch dimensions, load order; tile for the blocked
 * one).  float32 and float64 on OpenCL take the register-blocked kernel
 * (render_gemm_blocked.c) where the operands allow it, the rest the
 * generic one (render_gemm.c). */
#include "codegen/render_gemm.h"
#include "codegen/run.h"
#include "core/core.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct em__gm {
    const em_backend *be;
    em_dtype dt;
    int nb;
    bool a_kfast, b_nfast;
    bool blocked;
    em_gemm_tile tile;
} em__gm;

static em_status em__gm_render(const void *ctx, void *sb) {
    const em__gm *x = ctx;
    const em_dialect *d;
    EM_CHECK(em_run_dialect(x->be, &d));
    if (x->blocked)
        return em_render_gemm_blocked(d, x->dt, x->nb, x->a_kfast, x->b_nfast, &x->tile, sb);
    return em_render_gemm(d, x->dt, x->nb, x->a_kfast, x->b_nfast, sb);
}

static int64_t em__abs64(int64_t v) { return v < 0 ? -v : v; }

/* The blocked kernel's tile for dt: EMBER_OPENCL_GEMM=TMxTNxBK where set
 * (for tuning; "generic" takes the generic kernel), else the table:
 * 8 x 8 blocks with k steps of 16 for float32 (the classic SGEMM shape),
 * 4 x 4 by 16 for float64 (half the registers of 8 x 8 doubles).  Not yet
 * measured on a GPU (bench/tune_opencl_gemm.py times the candidates); on
 * PoCL both beat the generic kernel (512^2 float32: 0.09 s against 0.24).
 * k steps are halved until the tile's local memory fits the device's.
 * False: the generic kernel. */
static em_status em__gm_tile(const em_backend *be, int id, em_dtype dt, em_gemm_tile *tl,
                             bool *ok) {
    const size_t es = em_dtype_get(dt)->size;
    *tl = dt == EM_FLOAT32 ? (em_gemm_tile){8, 8, 16, 4} : (em_gemm_tile){4, 4, 16, 2};
    const char *env = getenv("EMBER_OPENCL_GEMM");
    *ok = false;
    if (env && env[0]) {
        if (!strcmp(env, "generic")) return EM_OK;
        int tm = 0, tn = 0, bk = 0;
        char end = 0;
        em_gemm_tile want = {0, 0, 0, tl->vw};
        if (sscanf(env, "%dx%dx%d%c", &tm, &tn, &bk, &end) == 3)
            want.tm = tm, want.tn = tn, want.bk = bk;
        if (!em_gemm_blocked_ok(&want))
            return em_error(EM_EVALUE,
                            "EMBER_OPENCL_GEMM='%s': expected 'generic' or TMxTNxBK (blocks "
                            "of %d to 8, multiples of %d; TM*BK and TN*BK multiples of 16)",
                            env, tl->vw, tl->vw);
        *tl = want;
    }
    const em_device_props *pr;
    EM_CHECK(be->props_ref(id, &pr));
    while (em_gemm_blocked_local(tl, es) > pr->shared_memory_per_block && tl->bk > 4) {
        tl->bk /= 2;
        if (!em_gemm_blocked_ok(tl)) return EM_OK;
    }
    *ok = em_gemm_blocked_local(tl, es) <= pr->shared_memory_per_block;
    return EM_OK;
}

/* Whether x's operands suit the blocked kernel: aligned elements, element
 * strides, every offset inside a matrix below 2^31 elements (its index
 * arithmetic is 32-bit; the batch offset is 64-bit). */
static bool em__gm_fits(const em_array *a, const em_array *b, int64_t m, int64_t n, int64_t k) {
    const int nd = a->ndim;
    const int64_t es = (int64_t)em_dtype_get(a->dtype)->size, lim = INT32_MAX;
    if ((uintptr_t)a->data % (uintptr_t)es || (uintptr_t)b->data % (uintptr_t)es) return false;
    for (int i = 0; i < nd; i++)
        if (a->strides[i] % es || b->strides[i] % es) return false;
    if (m >= lim - 1024 || n >= lim - 1024 || k >= lim - 1024) return false; /* + a tile */
    const int64_t ra =
        (m - 1) * em__abs64(a->strides[nd - 2] / es) + (k - 1) * em__abs64(a->strides[nd - 1] / es);
    const int64_t rb =
        (k - 1) * em__abs64(b->strides[nd - 2] / es) + (n - 1) * em__abs64(b->strides[nd - 1] / es);
    return ra < lim && rb < lim;
}

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
    int id = em_array_device(a).id;
    const em_dialect *d;
    EM_CHECK(em_run_dialect(be, &d));
    if (d->id == EM_DIALECT_OPENCL && (x.dt == EM_FLOAT32 || x.dt == EM_FLOAT64) &&
        em__gm_fits(a, b, m, n, k))
        EM_CHECK(em__gm_tile(be, id, x.dt, &x.tile, &x.blocked));
    /* The blocked kernel takes element strides, the generic one bytes. */
    const int64_t es = x.blocked ? (int64_t)em_dtype_get(x.dt)->size : 1;
    const int64_t gm = x.blocked ? 16 * x.tile.tm : 16 * em_gemm_rblock(x.dt);
    const int64_t gn = x.blocked ? 16 * x.tile.tn : gm;
    const int64_t ntiles = batch * ((m + gm - 1) / gm) * ((n + gn - 1) / gn);
    char key[96], name[64];
    snprintf(key, sizeof key, "GEMM%d|%d|%d|%d|%d|%d|%d|%d", (int)x.dt, x.nb, x.a_kfast, x.b_nfast,
             x.blocked ? x.tile.tm : 0, x.tile.tn, x.tile.bk, x.tile.vw);
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
                       a->strides[nd - 2] / es,
                       a->strides[nd - 1] / es,
                       b->strides[nd - 2] / es,
                       b->strides[nd - 1] / es};
    size_t o = 0;
    memcpy(args, ptrs, sizeof ptrs), o += sizeof ptrs;
    memcpy(args + o, nums, sizeof nums), o += sizeof nums;
    int64_t one = 1, zero = 0;
    for (int t = 0; t < 3; t++)
        for (int i = 0; i < x.nb; i++) {
            const int64_t v = nd <= 2  ? (t ? zero : one)
                              : t == 0 ? a->shape[i]
                              : t == 1 ? a->strides[i] / es
                                       : b->strides[i] / es;
            memcpy(args + o, &v, 8), o += 8;
        }
    int slots[3];
    const int64_t cap = 1 << 20; /* groups stride over the tiles past it */
    return em_run_launch(be, id, f, (unsigned)(ntiles < cap ? ntiles : cap), EM_GEMM_BLOCK, 0, args,
                         o, slots, em_run_slots(slots, 0, 3));
}
