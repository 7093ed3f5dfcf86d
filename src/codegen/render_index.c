/* The flat-position gather and scatter kernel (render_index.h). */
#include "codegen/render_index.h"

#include <stdio.h>

em_status em_render_index(const em_dialect *d, bool put, em_dtype a, em_dtype v, int na, int ni,
                          em_sbuf *s) {
    /* The text uses CUDA's atomics and C++ casts as spelled; other dialects
     * wait for issue 16. */
    if (d->id != EM_DIALECT_CUDA)
        return em_error(EM_EUNSUPPORTED, "the index kernels are not rendered for %s yet", d->name);
    const char *T = em_render_ctype(a);
    em_sbuf_printf(
        s,
        "%s\nstruct em_args {\n    char *a, *idx, *v, *out;\n    long long *err;\n"
        "    long long n, size;\n    long long ashape[%d], ast[%d], ishape[%d], ist[%d], vst[%d];\n};\n",
        d->prelude, na, na, ni, ni, ni);
    char bounds[64];
    em_sbuf_printf(
        s,
        "%s %s %s(const em_args p) {\n"
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
        d->kernel, em_dialect_bounds(d, 256, bounds, sizeof bounds), EM_KNAME, ni - 1, na - 1);
    if (put) {
        const char *V = em_render_ctype(v);
        char src[64];
        snprintf(src, sizeof src, "(*(const %s *)(p.v + vo))", V);
        em_sbuf_printf(s, "        *(%s *)(p.a + ao) = ", T);
        em__render_conv(s, v, a, src);
        em_sbuf_printf(s, ";\n");
    } else {
        em_sbuf_printf(s, "        ((%s *)p.out)[j] = *(const %s *)(p.a + ao);\n", T, T);
    }
    em_sbuf_printf(s, "    }\n}\n");
    return s->oom ? em_error(EM_ENOMEM, "out of host memory rendering a kernel") : EM_OK;
}
