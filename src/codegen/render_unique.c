/* The unique kernels (render_unique.h): one template (codegen/tmpl.h) for
 * CUDA and OpenCL. */
#include "codegen/render_unique.h"
#include "codegen/tmpl.h"

static int em__ufields(em_tfield *f) {
    static const char *const ptrs[] = {"s", "vals", "first", "perm", "idx", "inv", "cnt", "part"};
    int n = 0;
    for (int i = 0; i < 8; i++) f[n++] = (em_tfield){'p', ptrs[i], 0, 0, NULL};
    f[n++] = (em_tfield){'i', "n", 0, 0, NULL};
    f[n++] = (em_tfield){'i', "nu", 0, 0, NULL};
    f[n++] = (em_tfield){'i', "ntile", 0, 0, NULL};
    return n;
}

/* em_uq_eq(a, b): equal in NumPy's unique's sense (EM_EQN: NaNs equal). */
static void em__eq(em_dtype dt, em_sbuf *t) {
    switch (dt) {
    case EM_FLOAT16:
        em_sbuf_printf(t, "EM_D bool em_uq_eq(em_t a_, em_t b_) {\n"
                          "    const float a = em_h2f(a_), b = em_h2f(b_);\n"
                          "    return a == b || (EM_EQN && a != a && b != b);\n}\n");
        return;
    case EM_FLOAT32:
    case EM_FLOAT64:
    case EM_COMPLEX64:
    case EM_COMPLEX128: {
        const char *sx = em_scalar_suffix(dt);
        em_sbuf_printf(t, "EM_D bool em_uq_eq(em_t a, em_t b) {\n    return em_equal_%s(a, b) || ",
                       sx);
        em_sbuf_printf(t, "(EM_EQN && em_isnan_%s(a) && em_isnan_%s(b))", sx, sx);
        em_sbuf_printf(t, ";\n}\n");
        return;
    }
    default: /* integers and bool (stored as bytes 0 / 1) */
        em_sbuf_printf(t, "EM_D bool em_uq_eq(em_t a, em_t b) { return a == b; }\n");
    }
}

/* A tile's loop head: thread tid's EM_UQ_ITEMS consecutive elements from j0;
 * c = its flags, counted. */
#define EM__TILE_HEAD                                                          \
    "    ${shared} ${ll} sh[256];\n"                                           \
    "    for (${ll} t = ${bid}; t < p.ntile; t += ${gdim}) {\n"                \
    "        const ${ll} j0 = t * EM_UQ_TILE + (${ll})${tid} * EM_UQ_ITEMS;\n" \
    "        ${ll} c = 0;\n"                                                   \
    "        for (int i = 0; i < EM_UQ_ITEMS && j0 + i < p.n; i++) c += em_uq_new(p.s, j0 + i);\n"

/* sh[i] = the counts of threads 0..i (an inclusive block scan). */
#define EM__BLOCK_SCAN(IND)                                                                     \
    IND "for (int w = 1; w < 256; w <<= 1) {\n" IND                                             \
        "    const ${ll} v = (int)${tid} >= w ? sh[${tid} - w] : 0;\n" IND "    ${sync};\n" IND \
        "    sh[${tid}] += v;\n" IND "    ${sync};\n" IND "}\n"

static void em__ubody(const em_uq_spec *k, em_sbuf *s) {
    switch (k->mode) {
    case EM_UQ_COUNT:
        em_sbuf_printf(s, EM__TILE_HEAD
                       "        sh[${tid}] = c;\n        ${sync};\n"
                       "        for (int w = 128; w > 0; w >>= 1) {\n"
                       "            if ((int)${tid} < w) sh[${tid}] += sh[${tid} + w];\n"
                       "            ${sync};\n        }\n"
                       "        if (${tid} == 0) ((${global}${ll} *)p.part)[t] = sh[0];\n"
                       "        ${sync};\n    }\n");
        break;
    case EM_UQ_PREFIX: /* one block of 256 threads over the tile counts */
        em_sbuf_printf(
            s,
            "    ${shared} ${ll} sh[256];\n"
            "    ${global}${ll} *c = (${global}${ll} *)p.part;\n"
            "    const ${ll} per = (p.ntile + 255) / 256, b0 = ${tid} * per;\n"
            "    ${ll} mine = 0;\n"
            "    for (${ll} i = b0; i < b0 + per && i < p.ntile; i++) mine += c[i];\n"
            "    sh[${tid}] = mine;\n    ${sync};\n" EM__BLOCK_SCAN(
                "    ") "    ${ll} run = sh[${tid}] - mine;\n"
                        "    for (${ll} i = b0; i < b0 + per && i < p.ntile; i++) {\n"
                        "        const ${ll} v = c[i];\n        c[i] = run;\n        run += v;\n    }\n"
                        "    if (${tid} == 255) c[p.ntile] = sh[255];\n");
        break;
    case EM_UQ_WRITE:
        em_sbuf_printf(
            s,
            EM__TILE_HEAD "        sh[${tid}] = c;\n        ${sync};\n" EM__BLOCK_SCAN("        ")
            /* k: the rank of the value element j0 belongs to, + 1 once it is flagged */
            "        ${ll} k = ((${global}const ${ll} *)p.part)[t] + sh[${tid}] - c;\n"
            "        for (int i = 0; i < EM_UQ_ITEMS && j0 + i < p.n; i++) {\n"
            "            const ${ll} j = j0 + i;\n"
            "            if (em_uq_new(p.s, j)) {\n"
            "                ((${global}em_t *)p.vals)[k] = ((${global}const em_t *)p.s)[j];\n"
            "#if EM_UQ_FIRST\n"
            "                ((${global}${ll} *)p.first)[k] = j;\n"
            "#endif\n"
            "#if EM_UQ_IDX\n"
            "                ((${global}${ll} *)p.idx)[k] ="
            " ((${global}const ${ll} *)p.perm)[j];\n"
            "#endif\n"
            "                k++;\n            }\n"
            "#if EM_UQ_INV\n"
            "            ((${global}${ll} *)p.inv)[((${global}const ${ll} *)p.perm)[j]] = k - 1;\n"
            "#endif\n"
            "        }\n        ${sync};\n    }\n");
        break;
    default: /* EM_UQ_COUNTS */
        em_sbuf_printf(
            s, "    ${global}const ${ll} *f = (${global}const ${ll} *)p.first;\n"
               "    for (${ll} k = ${bid} * (${ll})${bdim} + ${tid}; k < p.nu;"
               " k += (${ll})${bdim} * ${gdim})\n"
               "        ((${global}${ll} *)p.cnt)[k] = (k + 1 < p.nu ? f[k + 1] : p.n) - f[k];\n");
    }
    em_sbuf_printf(s, "}\n");
}

em_status em_render_unique(const em_dialect *d, const em_uq_spec *k, em_sbuf *out) {
    if (!d->kernel || !d->bounds || d->id == EM_DIALECT_C)
        return em_error(EM_EUNSUPPORTED, "the unique kernels are not rendered for %s", d->name);
    em_sbuf t = {0}; /* the template, expanded into out */
    em_tfield f[11];
    int nf = em__ufields(f);
    em_sbuf_printf(out, "%s\n", d->prelude);
    em_sbuf_printf(&t,
                   "typedef %s em_t;\n#define EM_EQN %d\n#define EM_UQ_FIRST %d\n"
                   "#define EM_UQ_IDX %d\n#define EM_UQ_INV %d\n#define EM_UQ_ITEMS %d\n"
                   "#define EM_UQ_TILE %d\n",
                   em_tmpl_stype(d, k->dtype), k->equal_nan, k->first, k->idx, k->inv, EM_UQ_ITEMS,
                   EM_UQ_TILE);
    if (d->args_struct)
        em_sbuf_printf(&t, "struct em_args {\n    char *s, *vals, *first, *perm, *idx, *inv, *cnt,"
                           " *part;\n    long long n, nu, ntile;\n};\n");
    else
        em_tmpl_args_types(d, f, nf, &t);
    em__eq(k->dtype, &t);
    /* Whether element i starts a new value. */
    em_sbuf_printf(&t, "EM_D ${ll} em_uq_new(${global}const char *s_, ${ll} i) {\n"
                       "    ${global}const em_t *s = (${global}const em_t *)s_;\n"
                       "    return i == 0 || !em_uq_eq(s[i - 1], s[i]);\n}\n"
                       "${kernel(256)} " EM_KNAME "(${params}) {\n${prologue}");
    em__ubody(k, &t);
    return em_tmpl_finish(d, f, nf, &t, NULL, out);
}
