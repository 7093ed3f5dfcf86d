/* The checked copy (render_copycheck.h): one template (codegen/tmpl.h) for
 * CUDA and OpenCL. */
#include "codegen/render_copycheck.h"
#include "codegen/render.h"
#include "codegen/tmpl.h"

static int em__ccfields(em_tfield *f) {
    static const char *const ints[] = {"d1", "d2", "total", "s0", "s1", "s2"};
    int n = 0;
    f[n++] = (em_tfield){'p', "a", 0, 0, NULL};
    f[n++] = (em_tfield){'p', "out", 0, 0, NULL};
    f[n++] = (em_tfield){'p', "flag", 0, 0, NULL};
    for (int i = 0; i < 6; i++) f[n++] = (em_tfield){'i', ints[i], 0, 0, NULL};
    f[n++] = (em_tfield){'u', "bound", 0, 0, NULL};
    return n;
}

em_status em_render_copycheck(const em_dialect *d, const em_copycheck_spec *k, em_sbuf *out) {
    if (!d->kernel || d->id == EM_DIALECT_C)
        return em_error(EM_EUNSUPPORTED, "the checked copy is not rendered for %s", d->name);
    if ((k->wbytes != 4 && k->wbytes != 8) || k->words < 1 || k->words > 2)
        return em_error(EM_EVALUE, "no checked copy of %d words of %d bytes", k->words, k->wbytes);
    em_sbuf t = {0}; /* the template, expanded into out */
    em_tfield f[10];
    int nf = em__ccfields(f);
    em_sbuf_printf(out, "%s\n", d->prelude);
    em_sbuf_printf(&t, "typedef %s em_w;\n#define EM_NW %d\n",
                   k->wbytes == 8 ? "${ull}" : "unsigned int", k->words);
    if (d->args_struct)
        em_sbuf_printf(&t, "struct em_args {\n    char *a, *out, *flag;\n"
                           "    long long d1, d2, total, s0, s1, s2;\n"
                           "    unsigned long long bound;\n};\n");
    else
        em_tmpl_args_types(d, f, nf, &t);
    em_sbuf_printf(&t, "${kernel(256)} " EM_KNAME "(${params}) {\n${prologue}"
                       "    ${global}em_w *w = (${global}em_w *)p.out;\n"
                       "    const em_w bound = (em_w)p.bound, mag = ~(em_w)0 >> 1;\n"
                       "    int bad = 0;\n"
                       "    const ${ll} step = (${ll})${gdim} * ${bdim};\n"
                       "    for (${ll} e = (${ll})${bid} * ${bdim} + ${tid}; e < p.total; "
                       "e += step) {\n"
                       "        const ${ll} i2 = e %% p.d2, r = e / p.d2;\n"
                       "        const ${ll} i1 = r %% p.d1, i0 = r / p.d1;\n"
                       "        const ${global}em_w *s = (const ${global}em_w *)"
                       "(p.a + i0 * p.s0 + i1 * p.s1 + i2 * p.s2);\n"
                       "        for (int k = 0; k < EM_NW; k++) {\n"
                       "            const em_w v = s[k];\n"
                       "            w[e * EM_NW + k] = v;\n"
                       "            bad |= (v & mag) >= bound;\n"
                       "        }\n"
                       "    }\n"
                       "    if (bad) *(${global}int *)p.flag = 1;\n"
                       "}\n");
    return em_tmpl_finish(d, f, nf, &t, NULL, out);
}
