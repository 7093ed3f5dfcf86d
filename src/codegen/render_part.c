/* The partition kernels (render_part.h): one template (codegen/tmpl.h) for
 * CUDA and OpenCL. */
#include "codegen/render_part.h"
#include "codegen/render_select.h"
#include "codegen/tmpl.h"

static int em__pfields(em_tfield *f) {
    static const char *const ptrs[] = {"a", "kv", "part", "out"};
    int n = 0;
    for (int i = 0; i < 4; i++) f[n++] = (em_tfield){'p', ptrs[i], 0, 0, NULL};
    f[n++] = (em_tfield){'i', "n", 0, 0, NULL};
    f[n++] = (em_tfield){'i', "ntile", 0, 0, NULL};
    f[n++] = (em_tfield){'i', "m", 0, 0, NULL};
    return n;
}

/* A tile's head: thread tid's EM_PT_ITEMS elements from j0 counted per
 * bucket into c[] (packed; the word loop unrolls, so c stays in registers). */
#define EM__PT_HEAD                                                              \
    "    ${shared} ${ull} sh[256];\n"                                            \
    "    ${global}const em_t *xs = (${global}const em_t *)p.a;\n"                \
    "    for (${ll} t = ${bid}; t < p.ntile; t += ${gdim}) {\n"                  \
    "        const ${ll} j0 = t * EM_PT_TILE + (${ll})${tid} * EM_PT_ITEMS;\n"   \
    "        ${ull} c[EM_PT_NW];\n"                                              \
    "        for (int w = 0; w < EM_PT_NW; w++) c[w] = 0;\n"                     \
    "        for (int i = 0; i < EM_PT_ITEMS && j0 + i < p.n; i++) {\n"          \
    "            const int b = em_pt_bucket(kv, m, xs[j0 + i]);\n"               \
    "            for (int w = 0; w < EM_PT_NW; w++)\n"                           \
    "                c[w] += (b >> 2) == w ? (${ull})1 << (16 * (b & 3)) : 0;\n" \
    "        }\n"

static void em__pbody(const em_pt_spec *k, em_sbuf *s) {
    switch (k->mode) {
    case EM_PT_COUNT:
        em_sbuf_printf(
            s, EM__PT_HEAD
            "        for (int w = 0; w < nw; w++) {\n"
            "            sh[${tid}] = c[w];\n            ${sync};\n"
            "            for (int h = 128; h > 0; h >>= 1) {\n"
            "                if ((int)${tid} < h) sh[${tid}] += sh[${tid} + h];\n"
            "                ${sync};\n            }\n"
            "            if (${tid} == 0)\n"
            "                for (int q = 0; q < 4 && 4 * w + q < 2 * m + 1; q++)\n"
            "                    ((${global}${ll} *)p.part)[(4 * w + q) * p.ntile + t] =\n"
            "                        (${ll})((sh[0] >> (16 * q)) & 0xffff);\n"
            "            ${sync};\n        }\n    }\n");
        break;
    case EM_PT_PREFIX: /* one block of 256 threads over B * ntile counts */
        em_sbuf_printf(
            s, "    ${shared} ${ll} sh[256];\n"
               "    ${global}${ll} *c = (${global}${ll} *)p.part;\n"
               "    const ${ll} tot = (2 * p.m + 1) * p.ntile, per = (tot + 255) / 256;\n"
               "    const ${ll} b0 = ${tid} * per;\n"
               "    ${ll} mine = 0;\n"
               "    for (${ll} i = b0; i < b0 + per && i < tot; i++) mine += c[i];\n"
               "    sh[${tid}] = mine;\n    ${sync};\n"
               "    for (int w = 1; w < 256; w <<= 1) {\n"
               "        const ${ll} v = (int)${tid} >= w ? sh[${tid} - w] : 0;\n"
               "        ${sync};\n        sh[${tid}] += v;\n        ${sync};\n    }\n"
               "    ${ll} run = sh[${tid}] - mine;\n"
               "    for (${ll} i = b0; i < b0 + per && i < tot; i++) {\n"
               "        const ${ll} v = c[i];\n        c[i] = run;\n        run += v;\n    }\n");
        break;
    default: /* EM_PT_WRITE */
        em_sbuf_printf(
            s, EM__PT_HEAD
            /* c[w] becomes the thread's packed exclusive offsets within the tile */
            "        for (int w = 0; w < nw; w++) {\n"
            "            sh[${tid}] = c[w];\n            ${sync};\n"
            "            for (int h = 1; h < 256; h <<= 1) {\n"
            "                const ${ull} v = (int)${tid} >= h ? sh[${tid} - h] : 0;\n"
            "                ${sync};\n                sh[${tid}] += v;\n                ${sync};\n"
            "            }\n"
            "            c[w] = sh[${tid}] - c[w];\n            ${sync};\n        }\n"
            "        ${global}const ${ll} *base = (${global}const ${ll} *)p.part;\n"
            "        for (int i = 0; i < EM_PT_ITEMS && j0 + i < p.n; i++) {\n"
            "            const em_t x = xs[j0 + i];\n"
            "            const int b = em_pt_bucket(kv, m, x);\n"
            "            ${ll} off = base[b * p.ntile + t];\n"
            "            for (int w = 0; w < EM_PT_NW; w++)\n"
            "                if ((b >> 2) == w) {\n"
            "                    off += (${ll})((c[w] >> (16 * (b & 3))) & 0xffff);\n"
            "                    c[w] += (${ull})1 << (16 * (b & 3));\n"
            "                }\n"
            "#if EM_PT_ARG\n"
            "            ((${global}${ll} *)p.out)[off] = j0 + i;\n"
            "#else\n"
            "            ((${global}em_t *)p.out)[off] = x;\n"
            "#endif\n"
            "        }\n    }\n");
    }
    em_sbuf_printf(s, "}\n");
}

em_status em_render_part(const em_dialect *d, const em_pt_spec *k, em_sbuf *out) {
    if (!d->kernel || !d->bounds || d->id == EM_DIALECT_C)
        return em_error(EM_EUNSUPPORTED, "the partition kernels are not rendered for %s", d->name);
    if (!em_sel_dtype_ok(k->dtype))
        return em_error(EM_EUNSUPPORTED, "no partition of %s", em_dtype_get(k->dtype)->name);
    em_sbuf t = {0}; /* the template, expanded into out */
    em_tfield f[7];
    int nf = em__pfields(f);
    em_sbuf_printf(out, "%s\n", d->prelude);
    em_sbuf_printf(&t,
                   "typedef %s em_t;\ntypedef %s EM_K;\n#define EM_PT_NW %d\n"
                   "#define EM_PT_ITEMS %d\n#define EM_PT_TILE %d\n#define EM_PT_ARG %d\n",
                   em_tmpl_stype(d, k->dtype),
                   em_dtype_get(k->dtype)->size == 8 ? "${ull}" : "unsigned int",
                   (2 * EM_PT_MAXK + 1 + 3) / 4, EM_PT_ITEMS, EM_PT_TILE, k->arg);
    if (d->args_struct)
        em_sbuf_printf(&t, "struct em_args {\n    char *a, *kv, *part, *out;\n"
                           "    long long n, ntile, m;\n};\n");
    else
        em_tmpl_args_types(d, f, nf, &t);
    em_render_sel_keys(d, k->dtype, &t);
    /* x's bucket: kv ascending, so the kv below x are a prefix of it */
    em_sbuf_printf(&t,
                   "EM_D int em_pt_bucket(${global}const em_t *kv, int m, em_t x) {\n"
                   "    const EM_K kx = em_key(x);\n    int c = 0;\n"
                   "    while (c < m && em_key(kv[c]) < kx) c++;\n"
                   "    return 2 * c + (c < m && em_key(kv[c]) == kx);\n}\n"
                   "${kernel(256)} " EM_KNAME "(${params}) {\n${prologue}"
                   "    ${global}const em_t *kv = (${global}const em_t *)p.kv;\n"
                   "    const int m = (int)p.m, nw = (2 * m + 4) / 4; /* the words in use */\n");
    em__pbody(k, &t);
    return em_tmpl_finish(d, f, nf, &t, NULL, out);
}
