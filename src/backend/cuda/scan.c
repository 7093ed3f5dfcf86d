/* Inclusive scans (cumsum, cumprod) on CUDA.
 *
 * One thread per line along the axis, each accumulating sequentially, so
 * results are exactly the sequential ones (and equal the CPU's).  Lines are
 * spread over the grid.  A flattened scan (axis < 0) is one line in C order
 * over the whole array: correct but serial -- a block-parallel scan is the
 * next step.  Arguments: char *in, *out; long long nlines, len, ndim;
 * shape[ND], ist[ND], ost[ND] (ost are out's strides for the same shape,
 * or 0 with out contiguous 1-d for the flattened form).
 */
#include "backend/cuda/cuda_internal.h"
#include "codegen/render.h"

#include <stdio.h>
#include <string.h>

typedef struct em__scan {
    em_reduce_op op;
    em_dtype in, acc, out;
    int nd, axis; /* axis < 0: flattened */
} em__scan;

static em_status em__scan_render(const void *ctx, void *sb) {
    const em__scan *c = ctx;
    em_sbuf *s = sb;
    const char *I = em_render_ctype(c->in), *A = em_render_ctype(c->acc), *O = em_render_ctype(c->out);
    em_sbuf_printf(s, "%s\nstruct em_args { char *in, *out; long long nlines, len, shape[%d], ist[%d], ost[%d]; };\n",
                   em_render_prelude(), c->nd, c->nd, c->nd);
    em_sbuf_printf(s, "extern \"C\" __global__ void __launch_bounds__(256) %s(const em_args p) {\n"
                      "    for (long long l = blockIdx.x * (long long)blockDim.x + threadIdx.x; l < p.nlines;"
                      " l += (long long)blockDim.x * gridDim.x) {\n"
                      "        long long bi = 0, bo = 0, r = l;\n", EM_KNAME);
    if (c->axis >= 0)
        em_sbuf_printf(s, "        for (int d = %d; d >= 0; d--) { if (d == %d) continue; const long long q = r %% p.shape[d];"
                          " r /= p.shape[d]; bi += q * p.ist[d]; bo += q * p.ost[d]; }\n", c->nd - 1, c->axis);
    em_sbuf_printf(s, "        %s acc = (%s)%d;\n        for (long long t = 0; t < p.len; t++) {\n", A, A,
                   c->op == EM_RED_CUMPROD);
    if (c->axis >= 0)
        em_sbuf_printf(s, "            const %s x = *(const %s *)(p.in + bi + t * p.ist[%d]);\n", I, I, c->axis);
    else
        em_sbuf_printf(s, "            long long off = 0, q = t;\n"
                          "            for (int d = %d; d >= 0; d--) { off += (q %% p.shape[d]) * p.ist[d]; q /= p.shape[d]; }\n"
                          "            const %s x = *(const %s *)(p.in + off);\n", c->nd - 1, I, I);
    em_sbuf_printf(s, "            acc = %s(acc, ", c->op == EM_RED_CUMPROD ? "em_multiply" : "em_add");
    em__render_conv(s, c->in, c->acc, "x");
    if (c->axis >= 0) em_sbuf_printf(s, ");\n            *(%s *)(p.out + bo + t * p.ost[%d]) = ", O, c->axis);
    else em_sbuf_printf(s, ");\n            ((%s *)p.out)[t] = ", O);
    em__render_conv(s, c->acc, c->out, "acc");
    em_sbuf_printf(s, ";\n        }\n    }\n}\n");
    return s->oom ? em_error(EM_ENOMEM, "out of host memory rendering a kernel") : EM_OK;
}

em_status em_cuda_render_scan(em_reduce_op op, em_dtype in, em_dtype out, int nd, int axis, void *src) {
    em__scan c = {op, in, out == EM_FLOAT16 ? EM_FLOAT32 : out, out, nd, axis};
    if (em_dtype_get(c.acc)->kind == 'c') return em_error(EM_EUNSUPPORTED, "complex scans are not implemented on CUDA");
    return em__scan_render(&c, src);
}

em_status em_cuda_scan(em_reduce_op op, const em_array *a, int axis, em_array *out) {
    if (op != EM_RED_CUMSUM && op != EM_RED_CUMPROD)
        return em_error(EM_EVALUE, "scan supports cumsum and cumprod, got reduction %d", (int)op);
    if (axis >= a->ndim) return em_error(EM_EVALUE, "scan axis %d out of range for %d dimensions", axis, a->ndim);
    int64_t n = em_array_size(a);
    if (n == 0) return EM_OK;
    if (em_array_size(out) != n) return em_error(EM_ESHAPE, "scan output has the wrong size");
    if (axis >= 0 && (out->ndim != a->ndim || memcmp(out->shape, a->shape, sizeof(int64_t) * (size_t)a->ndim)))
        return em_error(EM_ESHAPE, "scan output must have the input's shape");
    if (axis < 0 && !em_array_is_c_contiguous(out))
        return em_error(EM_EVALUE, "a flattened scan needs a C-contiguous output");
    int nd = a->ndim ? a->ndim : 1;
    em__scan c = {op, a->dtype, out->dtype == EM_FLOAT16 ? EM_FLOAT32 : out->dtype, out->dtype, nd, a->ndim ? axis : -1};
    if (em_dtype_get(c.acc)->kind == 'c') return em_error(EM_EUNSUPPORTED, "complex scans are not implemented on CUDA");
    struct { char *in, *out; int64_t nlines, len, v[3 * EM_MAXDIMS]; } args = {a->data, out->data, 1, n, {0}};
    for (int d = 0; d < a->ndim; d++)
        args.v[d] = a->shape[d], args.v[nd + d] = a->strides[d], args.v[2 * nd + d] = axis >= 0 ? out->strides[d] : 0;
    if (!a->ndim) args.v[0] = 1;
    if (c.axis >= 0) args.len = a->shape[axis], args.nlines = n / a->shape[axis];
    int id = em_array_device(a).id;
    char key[64], name[48];
    snprintf(key, sizeof key, "SCAN%d|%d|%d|%d|%d", (int)op, (int)c.in, (int)c.out, nd, c.axis);
    snprintf(name, sizeof name, "%s_%s", op == EM_RED_CUMSUM ? "cumsum" : "cumprod", em_dtype_get(a->dtype)->name);
    CUfunction f;
    EM_CHECK(em_cu_kernel(id, key, name, EM_KNAME, em__scan_render, &c, &f));
    const em_device_props *pr;
    EM_CHECK(em_cu_props(id, &pr));
    int64_t g = (args.nlines + 255) / 256, cap = (int64_t)pr->multiprocessor_count * 32;
    return em_cu_launch(id, f, name, (unsigned)(g < cap ? g : cap), 256, 0, &args);
}
