/* Gather and scatter on CUDA: out = a.ravel()[idx], a.ravel()[idx] = values.
 *
 * One rendered kernel per (op, dtypes, ndims): a flat position is mapped to
 * a's memory through a's shape and strides, so a need not be contiguous;
 * idx and values are read through their own strides (values broadcast to
 * idx's shape).  Negative indices wrap; an index out of range sets an error
 * word (the first bad index wins), read back after the kernel, so a bad
 * index is EM_EINDEX, as on the CPU (the index named is one of the bad ones).
 */
#include "backend/cuda/cuda_internal.h"
#include "codegen/render.h"

#include <stdio.h>
#include <string.h>

typedef struct em__ix {
    bool put;
    const em_array *a, *idx, *v, *out;
    int na, ni;
    int64_t vst[EM_MAXDIMS];
} em__ix;

static em_status em__ix_render(const void *ctx, void *sb) {
    const em__ix *x = ctx;
    em_sbuf *s = sb;
    const char *T = em_render_ctype(x->a->dtype);
    em_sbuf_printf(s, "%s\nstruct em_args {\n    char *a, *idx, *v, *out;\n    long long *err;\n"
                      "    long long n, size;\n    long long ashape[%d], ast[%d], ishape[%d], ist[%d], vst[%d];\n};\n",
                   em_render_prelude(), x->na, x->na, x->ni, x->ni, x->ni);
    em_sbuf_printf(s, "extern \"C\" __global__ void __launch_bounds__(256) %s(const em_args p) {\n"
                      "    for (long long j = blockIdx.x * (long long)blockDim.x + threadIdx.x; j < p.n;"
                      " j += (long long)blockDim.x * gridDim.x) {\n"
                      "        long long r = j, io = 0, vo = 0;\n"
                      "        for (int d = %d; d >= 0; d--) { const long long c = r %% p.ishape[d]; r /= p.ishape[d];"
                      " io += c * p.ist[d]; vo += c * p.vst[d]; }\n"
                      "        long long k = *(const long long *)(p.idx + io);\n"
                      "        if (k < 0) k += p.size;\n"
                      "        if (k < 0 || k >= p.size) { atomicCAS((unsigned long long *)p.err, 0ull, 1ull);"
                      " p.err[1] = *(const long long *)(p.idx + io); continue; }\n"
                      "        long long ao = 0;\n"
                      "        for (int d = %d; d >= 0; d--) { ao += (k %% p.ashape[d]) * p.ast[d]; k /= p.ashape[d]; }\n",
                   EM_KNAME, x->ni - 1, x->na - 1);
    if (x->put) {
        const char *V = em_render_ctype(x->v->dtype);
        char src[64];
        snprintf(src, sizeof src, "(*(const %s *)(p.v + vo))", V);
        em_sbuf_printf(s, "        *(%s *)(p.a + ao) = ", T);
        em__render_conv(s, x->v->dtype, x->a->dtype, src);
        em_sbuf_printf(s, ";\n");
    } else {
        em_sbuf_printf(s, "        ((%s *)p.out)[j] = *(const %s *)(p.a + ao);\n", T, T);
    }
    em_sbuf_printf(s, "    }\n}\n");
    return s->oom ? em_error(EM_ENOMEM, "out of host memory rendering a kernel") : EM_OK;
}

em_status em_cuda_render_index(bool put, const em_array *a, const em_array *idx, const em_array *v,
                               void *src) {
    em__ix x = {.put = put, .a = a, .idx = idx, .v = v, .na = a->ndim ? a->ndim : 1,
                .ni = idx->ndim ? idx->ndim : 1};
    return em__ix_render(&x, src);
}

/* Pack the argument; a 0-d array counts as one dimension of size 1. */
static size_t em__ix_args(const em__ix *x, char *err, int64_t n, int64_t size, unsigned char *b) {
    const char *ptrs[5] = {x->a->data, x->idx->data, x->v ? x->v->data : NULL, x->out ? x->out->data : NULL, err};
    int64_t one = 1, zero = 0;
    size_t o = 0;
    memcpy(b, ptrs, sizeof ptrs), o += sizeof ptrs;
    memcpy(b + o, &n, 8), o += 8;
    memcpy(b + o, &size, 8), o += 8;
    const em_array *arrs[2] = {x->a, x->idx};
    for (int t = 0; t < 2; t++) {
        const em_array *m = arrs[t];
        memcpy(b + o, m->ndim ? m->shape : &one, 8 * (size_t)(m->ndim ? m->ndim : 1)), o += 8 * (size_t)(m->ndim ? m->ndim : 1);
        memcpy(b + o, m->ndim ? m->strides : &zero, 8 * (size_t)(m->ndim ? m->ndim : 1)), o += 8 * (size_t)(m->ndim ? m->ndim : 1);
    }
    memcpy(b + o, x->vst, 8 * (size_t)x->ni), o += 8 * (size_t)x->ni;
    return o;
}

static em_status em__ix_run(em__ix *x) {
    int id = em_array_device(x->a).id;
    if (x->idx->dtype != EM_INT64) return em_error(EM_ETYPE, "indices must be int64, got %s", em_dtype_get(x->idx->dtype)->name);
    int64_t n = em_array_size(x->idx), size = em_array_size(x->a);
    if (n == 0) return EM_OK;
    x->na = x->a->ndim ? x->a->ndim : 1;
    x->ni = x->idx->ndim ? x->idx->ndim : 1;
    char key[160], name[64];
    snprintf(key, sizeof key, "IX%d|%d|%d|%d|%d", x->put, (int)x->a->dtype, x->v ? (int)x->v->dtype : -1, x->na, x->ni);
    snprintf(name, sizeof name, "%s_%s", x->put ? "put" : "take", em_dtype_get(x->a->dtype)->name);
    CUfunction f;
    EM_CHECK(em_cu_kernel(id, key, name, EM_KNAME, em__ix_render, x, &f));
    const em_device_props *pr;
    EM_CHECK(em_cu_props(id, &pr));
    void *err = NULL;
    int64_t zero[2] = {0, 0}, got[2] = {0, 0};
    EM_CHECK(em_cu_pool_alloc(id, sizeof zero, &err));
    unsigned char args[1024];
    em__ix_args(x, err, n, size, args);
    int64_t g = (n + 255) / 256, cap = (int64_t)pr->multiprocessor_count * 32;
    em_status s = em_cuda_backend.from_host(id, err, zero, sizeof zero);
    if (s == EM_OK) s = em_cu_launch(id, f, name, (unsigned)(g < cap ? g : cap), 256, 0, args);
    if (s == EM_OK) s = em_cuda_backend.to_host(id, got, err, sizeof got);
    em_cu_pool_free(id, err, sizeof zero);
    if (s == EM_OK && got[0])
        s = em_error(EM_EINDEX, "index %lld is out of bounds for axis 0 with size %lld", (long long)got[1], (long long)size);
    return s;
}

em_status em_cuda_take(const em_array *a, const em_array *idx, em_array *out) {
    if (!em_array_is_c_contiguous(out) || out->dtype != a->dtype || em_array_size(out) != em_array_size(idx))
        return em_error(EM_EVALUE, "take: out must be C-contiguous, of a's dtype and idx's size");
    em__ix x = {.put = false, .a = a, .idx = idx, .out = out};
    return em__ix_run(&x);
}

em_status em_cuda_put(em_array *a, const em_array *idx, const em_array *values) {
    em__ix x = {.put = true, .a = a, .idx = idx, .v = values};
    int off = idx->ndim - values->ndim;
    if (off < 0) return em_error(EM_ESHAPE, "put: values have more dimensions than the indices");
    for (int i = 0; i < idx->ndim; i++) {
        int64_t d = i < off ? 1 : values->shape[i - off];
        if (d != 1 && d != idx->shape[i])
            return em_error(EM_ESHAPE, "put: values of dimension %d (size %lld) do not broadcast to %lld", i,
                            (long long)d, (long long)idx->shape[i]);
        x.vst[i] = d == 1 ? 0 : values->strides[i - off];
    }
    return em__ix_run(&x);
}

/* ---- the vtable's gather / scatter / nonzero ----------------------------- */

/* Flat positions over the whole array keep index.c's kernel (any layout of
 * a); the other forms, scatter and nonzero are gather.c's. */
em_status em_cuda_take_v(const em_array *a, int m, int nidx, const em_array *idx, em_array *out) {
    if (nidx == 1 && m == a->ndim) return em_cuda_take(a, &idx[0], out);
    return em_cuda_gather(a, m, nidx, idx, out);
}

em_status em_cuda_put_v(em_array *a, int m, int nidx, const em_array *idx, const em_array *values) {
    return em_cuda_scatter(a, m, nidx, idx, values);
}

em_status em_cuda_nonzero(const em_array *a, em_array *out) { return em_cuda_nonzero_dev(a, out); }
