/* The index fills (render_indexfill.h): one template (codegen/tmpl.h) for
 * CUDA and OpenCL. */
#include "codegen/render_indexfill.h"
#include "codegen/render.h"
#include "codegen/tmpl.h"

static int em__ifields(em_tfield *f) {
    int n = 0;
    f[n++] = (em_tfield){'p', "a", 0, 0, NULL};
    f[n++] = (em_tfield){'i', "n", 0, 0, NULL};
    f[n++] = (em_tfield){'i', "total", 0, 0, NULL};
    f[n++] = (em_tfield){'u', "b0", 0, 0, NULL};
    f[n++] = (em_tfield){'u', "d", 0, 0, NULL};
    return n;
}

em_status em_render_indexfill(const em_dialect *d, const em_ifill_spec *k, em_sbuf *out) {
    if (!d->kernel || d->id == EM_DIALECT_C)
        return em_error(EM_EUNSUPPORTED, "the index fills are not rendered for %s", d->name);
    if ((k->wbytes != 4 && k->wbytes != 8) || k->words < 1 || k->words > 4 ||
        (k->kind == EM_IFILL_STEP && k->words != 1))
        return em_error(EM_EVALUE, "no index fill of %d words of %d bytes", k->words, k->wbytes);
    em_sbuf t = {0}; /* the template, expanded into out */
    em_tfield f[5];
    int nf = em__ifields(f);
    em_sbuf_printf(out, "%s\n", d->prelude);
    em_sbuf_printf(&t, "typedef %s em_w;\n#define EM_NW %d\n",
                   k->wbytes == 8 ? "${ull}" : "unsigned int", k->words);
    if (d->args_struct)
        em_sbuf_printf(&t, "struct em_args {\n    char *a;\n    long long n, total;\n"
                           "    unsigned long long b0, d;\n};\n");
    else
        em_tmpl_args_types(d, f, nf, &t);
    em_sbuf_printf(&t, "${kernel(256)} " EM_KNAME "(${params}) {\n${prologue}"
                       "    ${global}em_w *w = (${global}em_w *)p.a;\n"
                       "    const ${ll} n = p.n, nn = p.n * p.n;\n    (void)n, (void)nn;\n"
                       "    const ${ll} step = (${ll})${gdim} * ${bdim};\n"
                       "    for (${ll} e = (${ll})${bid} * ${bdim} + ${tid}; e < p.total; "
                       "e += step) {\n");
    switch (k->kind) {
    case EM_IFILL_STEP:
        em_sbuf_printf(&t, "        w[e] = (em_w)(p.b0 + (${ull})e * p.d);\n");
        break;
    case EM_IFILL_EYE:
        em_sbuf_printf(&t, "        const ${ll} q = e %% nn;\n"
                           "        w[e * EM_NW] = q / n == q %% n ? (em_w)p.b0 : (em_w)0;\n"
                           "        for (int r = 1; r < EM_NW; r++) w[e * EM_NW + r] = 0;\n");
        break;
    default: /* TRIL: zero where the column passes the row; TRIU: the other side */
        em_sbuf_printf(&t,
                       "        const ${ll} q = e %% nn;\n"
                       "        if (q %% n %s q / n)\n"
                       "            for (int r = 0; r < EM_NW; r++) w[e * EM_NW + r] = 0;\n",
                       k->kind == EM_IFILL_TRIL ? ">" : "<");
    }
    em_sbuf_printf(&t, "    }\n}\n");
    return em_tmpl_finish(d, f, nf, &t, NULL, out);
}
