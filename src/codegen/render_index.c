/* The flat-position gather and scatter kernel (render_index.h): one
 * template (codegen/tmpl.h) for CUDA and OpenCL. */
#include "codegen/render_index.h"
#include "codegen/tmpl.h"

#include <stdio.h>

em_status em_render_index(const em_dialect *d, bool put, em_dtype a, em_dtype v, int na, int ni,
                          em_sbuf *out) {
    if (!d->kernel || !d->bounds || d->id == EM_DIALECT_C)
        return em_error(EM_EUNSUPPORTED, "the index kernels are not rendered for %s", d->name);
    const char *T = em_tmpl_stype(d, a);
    em_tfield f[] = {
        {'p', "a", 0, 0, NULL},       {'p', "idx", 0, 0, NULL},     {'p', "v", 0, 0, NULL},
        {'p', "out", 0, 0, NULL},     {'p', "err", 0, 0, "${ll}"},  {'i', "n", 0, 0, NULL},
        {'i', "size", 0, 0, NULL},    {'i', "ashape", na, 0, NULL}, {'i', "ast", na, 0, NULL},
        {'i', "ishape", ni, 0, NULL}, {'i', "ist", ni, 0, NULL},    {'i', "vst", ni, 0, NULL}};
    int nf = (int)(sizeof f / sizeof *f);
    em_sbuf t = {0}; /* the template, expanded into out */
    em_sbuf_printf(out, "%s\n", d->prelude);
    if (d->args_struct)
        em_sbuf_printf(&t,
                       "struct em_args {\n    char *a, *idx, *v, *out;\n    long long *err;\n"
                       "    long long n, size;\n    long long ashape[%d], ast[%d], ishape[%d], "
                       "ist[%d], vst[%d];\n};\n",
                       na, na, ni, ni, ni);
    else
        em_tmpl_args_types(d, f, nf, &t);
    /* A bad index claims the error word; the first claimer names itself. */
    em_sbuf_printf(
        &t,
        "${kernel(256)} " EM_KNAME "(${params}) {\n${prologue}"
        "    for (${ll} j = ${bid} * (${ll})${bdim} + ${tid}; j < p.n;"
        " j += (${ll})${bdim} * ${gdim}) {\n"
        "        ${ll} r = j, io = 0, vo = 0;\n"
        "        for (int d = %d; d >= 0; d--) { const ${ll} c = r %% p.ishape[d]; r /= p.ishape[d];"
        " io += c * p.ist[d]; vo += c * p.vst[d]; }\n"
        "        ${ll} k = *(${global}const ${ll} *)(p.idx + io);\n"
        "        if (k < 0) k += p.size;\n"
        "        if (k < 0 || k >= p.size) { if (${claim(p.err)})"
        " p.err[1] = *(${global}const ${ll} *)(p.idx + io); continue; }\n"
        "        ${ll} ao = 0;\n"
        "        for (int d = %d; d >= 0; d--) { ao += (k %% p.ashape[d]) * p.ast[d]; k /= p.ashape[d]; }\n",
        ni - 1, na - 1);
    if (put) {
        char src[80];
        snprintf(src, sizeof src, "(*(${global}const %s *)(p.v + vo))", em_tmpl_stype(d, v));
        em_sbuf_printf(&t, "        *(${global}%s *)(p.a + ao) = ", T);
        em__render_conv_d(d, &t, v, a, src);
        em_sbuf_printf(&t, ";\n");
    } else {
        em_sbuf_printf(
            &t, "        ((${global}%s *)p.out)[j] = *(${global}const %s *)(p.a + ao);\n", T, T);
    }
    em_sbuf_printf(&t, "    }\n}\n");
    return em_tmpl_finish(d, f, nf, &t, NULL, out);
}
