/* The radix select kernels (render_select.h): one template (codegen/tmpl.h)
 * for CUDA and OpenCL. */
#include "codegen/render_select.h"
#include "codegen/tmpl.h"

bool em_sel_dtype_ok(em_dtype dt) {
    return (unsigned)dt < EM_NDTYPES && dt != EM_COMPLEX64 && dt != EM_COMPLEX128;
}

static int em__sfields(em_tfield *f) {
    f[0] = (em_tfield){'p', "a", 0, 0, NULL};
    f[1] = (em_tfield){'p', "st", 0, 0, NULL};
    f[2] = (em_tfield){'p', "out", 0, 0, NULL};
    f[3] = (em_tfield){'i', "n", 0, 0, NULL};
    f[4] = (em_tfield){'i', "shift", 0, 0, NULL};
    f[5] = (em_tfield){'u', "hmask", 0, 0, NULL};
    return 6;
}

/* em_key / em_unkey: the order-keeping key of a value and back (the value
 * of a NaN's key is a NaN); render_select.h. */
void em_render_sel_keys(const em_dialect *d, em_dtype dt, em_sbuf *t) {
    bool cuda = d->id == EM_DIALECT_CUDA;
    const int bits = 8 * em_dtype_get(dt)->size;
    char kind = em_dtype_get(dt)->kind;
    if (dt == EM_FLOAT16) {
        em_sbuf_printf(t,
                       "EM_D EM_K em_key(em_t h) {\n    const EM_K u = h.x;\n"
                       "    if ((u & 0x7fffu) > 0x7c00u) return 0xffffu;\n"
                       "    return (u >> 15) ? (~u & 0xffffu) : (u | 0x8000u);\n}\n"
                       "EM_D em_t em_unkey(EM_K k) {\n    em_t h;\n"
                       "    h.x = (unsigned short)((k >> 15) ? (k ^ 0x8000u) : (~k & 0xffffu));\n"
                       "    return h;\n}\n");
    } else if (kind == 'f') {
        bool f64 = bits == 64;
        const char *tobits = cuda ? (f64 ? "(EM_K)__double_as_longlong" : "__float_as_uint")
                                  : (f64 ? "as_ulong" : "as_uint");
        const char *frombits = cuda
                                   ? (f64 ? "__longlong_as_double((long long)" : "__uint_as_float(")
                                   : (f64 ? "as_double(" : "as_float(");
        em_sbuf_printf(
            t,
            "#define EM_TOP ((EM_K)1 << %d)\n"
            "EM_D EM_K em_key(em_t x) {\n    if (x != x) return ~(EM_K)0;\n"
            "    const EM_K u = %s(x);\n    return (u & EM_TOP) ? ~u : (u | EM_TOP);\n}\n"
            "EM_D em_t em_unkey(EM_K k) {\n"
            "    return %s(k & EM_TOP) ? (k ^ EM_TOP) : ~k);\n}\n",
            bits - 1, tobits, frombits);
    } else if (kind == 'i') {
        static const char *const ut[] = {
            "", "unsigned char", "unsigned short", "", "unsigned int", "", "", "", "${ull}"};
        em_sbuf_printf(t,
                       "#define EM_TOP ((EM_K)1 << %d)\n"
                       "EM_D EM_K em_key(em_t x) { return (EM_K)(%s)x ^ EM_TOP; }\n"
                       "EM_D em_t em_unkey(EM_K k) { return (em_t)(%s)(k ^ EM_TOP); }\n",
                       bits - 1, ut[bits / 8], ut[bits / 8]);
    } else { /* unsigned and bool (0 / 1) */
        em_sbuf_printf(t, "EM_D EM_K em_key(em_t x) { return (EM_K)x; }\n"
                          "EM_D em_t em_unkey(EM_K k) { return (em_t)k; }\n");
    }
}

static void em__sbody(const em_sel_spec *k, em_sbuf *s) {
    em_sbuf_printf(
        s, "    ${global}${ull} *q = (${global}${ull} *)p.st;\n"
           "    ${global}unsigned int *h = (${global}unsigned int *)(p.st + 16 * EM_SEL_N);\n");
    switch (k->mode) {
    case EM_SEL_HIST:
        em_sbuf_printf(
            s, "    ${shared} unsigned int sh[EM_SEL_N * 256];\n"
               "    for (int i = (int)${tid}; i < EM_SEL_N * 256; i += (int)${bdim}) sh[i] = 0;\n"
               "    ${sync};\n"
               "    EM_K pre[EM_SEL_N];\n"
               "    for (int s = 0; s < EM_SEL_N; s++) pre[s] = (EM_K)q[2 * s];\n"
               "    unsigned int own = 0; // bit s: s is the first selection with its prefix\n"
               "    for (int s = 0; s < EM_SEL_N; s++) {\n"
               "        bool first = true;\n"
               "        for (int r = 0; r < s; r++) first = first && pre[r] != pre[s];\n"
               "        own |= (unsigned int)first << s;\n    }\n"
               "    const EM_K hm = (EM_K)p.hmask;\n    const int sft = (int)p.shift;\n"
               "    ${global}const em_t *xs = (${global}const em_t *)p.a;\n"
               "    for (${ll} i = ${bid} * (${ll})${bdim} + ${tid}; i < p.n;"
               " i += (${ll})${bdim} * ${gdim}) {\n"
               "        const EM_K key = em_key(xs[i]);\n"
               "        const int dg = (int)((key >> sft) & 255u);\n"
               "        for (int s = 0; s < EM_SEL_N; s++)\n"
               "            if (((own >> s) & 1u) && ((key ^ pre[s]) & hm) == 0)\n"
               "                em_sadd(&sh[s * 256 + dg]);\n"
               "    }\n    ${sync};\n"
               "    for (int i = (int)${tid}; i < EM_SEL_N * 256; i += (int)${bdim})\n"
               "        if (sh[i]) em_gadd(&h[i], sh[i]);\n");
        break;
    case EM_SEL_PICK: /* one block; thread s owns selection s */
        /* s reads the histogram of the first selection with its prefix (the
         * only one HIST counted), so every thread reads before any clears */
        em_sbuf_printf(
            s, "    const int s = (int)${tid};\n"
               "    ${ull} k = 0;\n    int b = 0;\n"
               "    if (s < EM_SEL_N) {\n"
               "        int src = s;\n"
               "        for (int r = s - 1; r >= 0; r--)\n"
               "            if (q[2 * r] == q[2 * s]) src = r;\n"
               "        ${global}const unsigned int *hs = h + src * 256;\n"
               "        k = q[2 * s + 1];\n"
               "        for (; b < 255; b++) {\n"
               "            if (k < hs[b]) break;\n            k -= hs[b];\n        }\n"
               "    }\n    ${sync};\n"
               "    if (s < EM_SEL_N) {\n"
               "        q[2 * s] |= ((${ull})b) << (int)p.shift;\n        q[2 * s + 1] = k;\n"
               "        for (int i = 0; i < 256; i++) h[s * 256 + i] = 0;\n    }\n");
        break;
    default: /* EM_SEL_OUT */
        em_sbuf_printf(
            s, "    const int s = (int)${tid};\n"
               "    if (s < EM_SEL_N) ((${global}em_t *)p.out)[s] = em_unkey((EM_K)q[2 * s]);\n");
    }
    em_sbuf_printf(s, "}\n");
}

em_status em_render_select(const em_dialect *d, const em_sel_spec *k, em_sbuf *out) {
    if (!d->kernel || !d->bounds || d->id == EM_DIALECT_C)
        return em_error(EM_EUNSUPPORTED, "the select kernels are not rendered for %s", d->name);
    if (!em_sel_dtype_ok(k->dtype) || k->nsel < 1 || k->nsel > EM_SEL_MAXN)
        return em_error(EM_EUNSUPPORTED, "no radix select of %d %s selections", k->nsel,
                        em_dtype_get(k->dtype)->name);
    bool cuda = d->id == EM_DIALECT_CUDA;
    em_sbuf t = {0}; /* the template, expanded into out */
    em_tfield f[6];
    int nf = em__sfields(f);
    em_sbuf_printf(out, "%s\n", d->prelude);
    em_sbuf_printf(&t, "typedef %s em_t;\ntypedef %s EM_K;\n#define EM_SEL_N %d\n",
                   em_tmpl_stype(d, k->dtype),
                   em_dtype_get(k->dtype)->size == 8 ? "${ull}" : "unsigned int", k->nsel);
    if (cuda)
        em_sbuf_printf(&t,
                       "struct em_args {\n    char *a, *st, *out;\n    long long n, shift;\n"
                       "    unsigned long long hmask;\n};\n"
                       "EM_D void em_sadd(unsigned int *q) { atomicAdd(q, 1u); }\n"
                       "EM_D void em_gadd(unsigned int *q, unsigned int v) { atomicAdd(q, v); }\n");
    else
        em_tmpl_args_types(d, f, nf, &t),
            em_sbuf_printf(&t, "EM_D void em_sadd(__local unsigned int *q) {\n"
                               "    atomic_inc((volatile __local uint *)q);\n}\n"
                               "EM_D void em_gadd(__global unsigned int *q, unsigned int v) {\n"
                               "    atomic_add((volatile __global uint *)q, v);\n}\n");
    em_render_sel_keys(d, k->dtype, &t);
    em_sbuf_printf(&t, "${kernel(256)} " EM_KNAME "(${params}) {\n${prologue}");
    em__sbody(k, &t);
    return em_tmpl_finish(d, f, nf, &t, NULL, out);
}
