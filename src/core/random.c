/* Counter-based random numbers: validation and the stream bookkeeping; the
 * backend of the array's device generates (see ember.h for the stream). */
#include "backend/backend.h"
#include "codegen/run.h"
#include "core/core.h"

#include <math.h>

/* Elements one Philox block (128 bits) yields for this kind and dtype. */
static int64_t em__per_block(em_random_kind kind, em_dtype dt) {
    if (kind >= EM_RAND_GAMMA) return 1; /* a sub-stream (one counter) per element */
    return kind != EM_RAND_INTEGERS && EM_DTYPE_SIZE(dt) == 4 ? 4 : 2;
}

static em_status em__check_kind(em_random_kind kind, em_dtype dt) {
    const char *name = em_dtype_get(dt)->name;
    switch (kind) {
    case EM_RAND_UNIFORM:
    case EM_RAND_NORMAL:
        if (dt == EM_FLOAT32 || dt == EM_FLOAT64) return EM_OK;
        return em_error(EM_ETYPE, "random %s floats must be float32 or float64, not %s",
                        kind == EM_RAND_UNIFORM ? "uniform" : "normal", name);
    case EM_RAND_BITS:
        if (dt == EM_UINT32 || dt == EM_UINT64) return EM_OK;
        return em_error(EM_ETYPE, "random bits must be uint32 or uint64, not %s", name);
    case EM_RAND_INTEGERS:
        if (em_dtype_kindbit(dt) & (EM_KB | EM_KI | EM_KU)) return EM_OK;
        return em_error(EM_ETYPE, "random integers need an integer or bool dtype, not %s", name);
    case EM_RAND_GAMMA:
    case EM_RAND_BETA:
        if (dt == EM_FLOAT64) return EM_OK;
        return em_error(EM_ETYPE, "random gamma/beta variates are float64, not %s", name);
    case EM_RAND_POISSON:
    case EM_RAND_BINOMIAL:
        if (dt == EM_INT64) return EM_OK;
        return em_error(EM_ETYPE, "random poisson/binomial variates are int64, not %s", name);
    default: return em_error(EM_EVALUE, "unknown random kind %d", (int)kind);
    }
}

/* Whether low + [0, range) (range 0: 2^64) lies inside dt's values. */
static em_status em__check_range(em_dtype dt, uint64_t low, uint64_t range) {
    const em_dtype_info *info = em_dtype_get(dt);
    int bits = info->kind == 'b' ? 1 : 8 * info->size;
    __int128 lo = info->kind == 'i' ? (__int128)(int64_t)low : (__int128)low;
    __int128 hi = lo + (range ? (__int128)range : (__int128)1 << 64) - 1;
    __int128 min = info->kind == 'i' ? -((__int128)1 << (bits - 1)) : 0;
    __int128 max = info->kind == 'i' ? ((__int128)1 << (bits - 1)) - 1 : ((__int128)1 << bits) - 1;
    if (lo < min || hi > max)
        return em_error(EM_EVALUE, "random integers in [low, low + range) do not fit %s",
                        info->name);
    return EM_OK;
}

/* Run req on a through its backend; a non-contiguous a is filled through a
 * contiguous temporary, so the stream order is always C order. */
static em_status em__random_run(em_array *a, const em_random_req *req, uint64_t *next) {
    if (!a || !a->buf) return em_error(EM_EVALUE, "random fill needs an allocated array");
    if (!(a->flags & EM_WRITEABLE))
        return em_error(EM_EVALUE, "assignment destination is read-only");
    /* GEOMETRIC stores int64 from the float64 stream, one value a value */
    em_dtype base = req->post == EM_RPOST_GEOMETRIC ? EM_FLOAT64 : a->dtype;
    EM_CHECK(em__check_kind(req->kind, base));
    const em_backend *be = em__backend(em_array_device(a).kind);
    if (!be || (be->ops ? !be->ops->random : !be->launch))
        return em_error(EM_EUNSUPPORTED, "random numbers are not supported on %s",
                        em_device_kind_name(em_array_device(a).kind));
    int64_t n = em_array_size(a), per = em__per_block(req->kind, base);
    em_status s;
    if (em_array_is_c_contiguous(a)) {
        s = em_algo_random(be, a, req);
    } else {
        em_array tmp = {0};
        s = em_array_empty(&tmp, a->dtype, a->ndim, a->shape, em_array_device(a));
        if (s == EM_OK) s = em_algo_random(be, &tmp, req);
        if (s == EM_OK) s = em_copy_into(a, &tmp);
        em_array_release(&tmp);
    }
    if (s == EM_OK) *next = req->counter + (uint64_t)((n + per - 1) / per);
    return s;
}

em_status em_random_fill(em_array *a, em_random_kind kind, uint64_t key, uint64_t counter,
                         uint64_t *next) {
    if (kind == EM_RAND_INTEGERS)
        return em_error(EM_EVALUE, "integers need low and range: use em_random_integers");
    em_random_req req = {kind, key, counter, 0, 0};
    return em__random_run(a, &req, next);
}

/* em_random_fill_post's transform of n values of t (base dtype dt) into
 * dst (a's dtype), in place where they are one buffer: the CPU's, with
 * libm (the devices render the scalar library's functions). */
static void em__post_loop(em_random_post post, double pa, double pb, em_dtype dt, const void *t,
                          void *dst, int64_t n) {
    if (dt == EM_FLOAT32) { /* EXPONENTIAL only */
        const float *v = t;
        float *o = dst;
        for (int64_t i = 0; i < n; i++) o[i] = -logf(1.0f - v[i]) * (float)pa;
        return;
    }
    const double *v = t;
    for (int64_t i = 0; i < n; i++) {
        double x = v[i];
        if (post == EM_RPOST_AFFINE)
            ((double *)dst)[i] = x * pa + pb;
        else
            ((double *)dst)[i] = -log(1.0 - x) * pa; /* 1 - x is exact */
    }
}

em_status em_random_fill_post(em_array *a, em_random_kind kind, em_random_post post, double pa,
                              double pb, uint64_t key, uint64_t counter, uint64_t *next) {
    if (post == EM_RPOST_NONE) return em_random_fill(a, kind, key, counter, next);
    if (!a || !a->buf) return em_error(EM_EVALUE, "random fill needs an allocated array");
    bool ok = post == EM_RPOST_AFFINE
                  ? a->dtype == EM_FLOAT64 && (kind == EM_RAND_UNIFORM || kind == EM_RAND_NORMAL)
              : post == EM_RPOST_EXPONENTIAL
                  ? kind == EM_RAND_UNIFORM && (a->dtype == EM_FLOAT32 || a->dtype == EM_FLOAT64)
              : post == EM_RPOST_GEOMETRIC ? kind == EM_RAND_UNIFORM && a->dtype == EM_INT64
                                           : false;
    if (!ok)
        return em_error(EM_ETYPE, "no random transform %d of kind %d into %s", (int)post, (int)kind,
                        em_dtype_get(a->dtype)->name);
    em_random_req req = {
        .kind = kind, .key = key, .counter = counter, .post = post, .pa = pa, .pb = pb};
    /* GEOMETRIC on every backend, the CPU's included (backend/cpu/random.c
     * converts the float64 uniforms as it makes them, in threads) */
    const em_backend *be = em__backend(em_array_device(a).kind);
    if (!be || !be->ops || post == EM_RPOST_GEOMETRIC) return em__random_run(a, &req, next);
    /* the CPU: the plain fill into a contiguous array, then the loop */
    em_array t = {0};
    EM_CHECK(em_array_empty(&t, a->dtype, a->ndim, a->shape, em_array_device(a)));
    em_status s = em_random_fill(&t, kind, key, counter, next);
    if (s == EM_OK) {
        em__post_loop(post, pa, pb, a->dtype, t.data, t.data, em_array_size(&t));
        s = em_copy_into(a, &t);
    }
    em_array_release(&t);
    return s;
}

/* A parameter array: float64, C-contiguous, on a's device, one element or
 * as many as a; *stride 0 for one (it serves every element), else 1. */
static em_status em__check_param(const em_array *a, const em_array *p, uint64_t *stride) {
    if (!p || !p->buf) return em_error(EM_EVALUE, "random parameter array missing");
    if (p->dtype != EM_FLOAT64 || !em_array_is_c_contiguous(p))
        return em_error(EM_ETYPE, "random parameters must be C-contiguous float64");
    em_device da = em_array_device(a), dp = em_array_device(p);
    if (da.kind != dp.kind || da.id != dp.id)
        return em_error(EM_EVALUE, "random parameters must be on the output's device");
    int64_t n = em_array_size(p);
    if (n != 1 && n != em_array_size(a))
        return em_error(EM_EVALUE, "random parameters must have 1 or %lld elements, not %lld",
                        (long long)em_array_size(a), (long long)n);
    *stride = n == 1 && em_array_size(a) != 1 ? 0 : 1;
    return EM_OK;
}

em_status em_random_dist(em_array *a, em_random_kind kind, const em_array *p0, const em_array *p1,
                         uint64_t key, uint64_t counter, uint64_t *next) {
    if (!a || !a->buf) return em_error(EM_EVALUE, "random fill needs an allocated array");
    if (kind < EM_RAND_GAMMA || kind > EM_RAND_BETA)
        return em_error(EM_EVALUE,
                        "em_random_dist draws gamma, poisson, binomial or beta variates");
    if (kind == EM_RAND_BINOMIAL && !p1)
        return em_error(EM_EVALUE, "binomial variates need n and p");
    if (kind == EM_RAND_BETA && !p1) return em_error(EM_EVALUE, "beta variates need a and b");
    em_random_req req = {.kind = kind, .key = key, .counter = counter, .p0 = p0};
    req.p1 = p1 ? p1 : p0;
    EM_CHECK(em__check_param(a, req.p0, &req.s0));
    EM_CHECK(em__check_param(a, req.p1, &req.s1));
    return em__random_run(a, &req, next);
}

em_status em_random_integers(em_array *a, uint64_t low, uint64_t range, uint64_t key,
                             uint64_t counter, uint64_t *next) {
    if (!a || !a->buf) return em_error(EM_EVALUE, "random fill needs an allocated array");
    EM_CHECK(em__check_kind(EM_RAND_INTEGERS, a->dtype));
    EM_CHECK(em__check_range(a->dtype, low, range));
    em_random_req req = {EM_RAND_INTEGERS, key, counter, low, range};
    return em__random_run(a, &req, next);
}

/* The CPU (a backend with ops) has no gather in its random code: the index
 * fill into a temporary, then its take; the same values as the kernel. */
em_status em_random_choice(em_array *out, const em_array *pop, uint64_t key, uint64_t counter,
                           uint64_t *next) {
    if (!out || !out->buf || !pop || !pop->buf)
        return em_error(EM_EVALUE, "random choice needs allocated arrays");
    if (!(out->flags & EM_WRITEABLE))
        return em_error(EM_EVALUE, "assignment destination is read-only");
    if (pop->ndim != 1 || pop->shape[0] == 0)
        return em_error(EM_EVALUE, "random choice draws from a non-empty 1-d population");
    if (out->dtype != pop->dtype || !em_array_is_c_contiguous(out))
        return em_error(EM_EVALUE, "random choice fills a C-contiguous array of pop's dtype");
    em_device dv = em_array_device(out), dp = em_array_device(pop);
    if (dv.kind != dp.kind || dv.id != dp.id)
        return em_error(EM_EDEVICE, "random choice: the population is on another device");
    EM_CHECK(em_array_live(pop));
    const em_backend *be = em__backend(dv.kind);
    int64_t n = em_array_size(out);
    em_random_req req = {EM_RAND_INTEGERS, key, counter, 0, (uint64_t)pop->shape[0]};
    if (!be || (be->ops ? !be->ops->random || !be->ops->take : !be->launch))
        return em_error(EM_EUNSUPPORTED, "random numbers are not supported on %s",
                        em_device_kind_name(dv.kind));
    em_status s = EM_OK;
    if (!be->ops) {
        req.src = pop;
        if (n) s = em_run_random(be, out, &req);
    } else if (n) {
        em_array idx = {0};
        s = em_array_empty(&idx, EM_INT64, 1, &n, dv);
        if (s == EM_OK) s = em_algo_random(be, &idx, &req);
        if (s == EM_OK) s = em_algo_take(be, pop, 1, 1, &idx, out);
        em_array_release(&idx);
    }
    if (s == EM_OK) *next = counter + (uint64_t)((n + 1) / 2);
    return s;
}
