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

/* A tile's head: thread tid's EM_PT_ITEMS elements tid, tid + 256, ... of
 * the tile (striped: each warp load covers 32 consecutive elements; 16
 * consecutive a thread touched 16 cache lines a warp load), their buckets
 * in bk[] (-1 past n) and counted per bucket into c[] (packed; the word loop
 * unrolls, so c stays in registers).  Every load of the tile is issued
 * before any bucket is computed (a bucket's search between two loads kept
 * one load in flight a thread), and the selected keys are in registers
 * (kk[], em_pt_bucket): both together took the H100's partition of 2^24
 * float32 from 0.592 to 0.437 ms (session 16). */
#define EM__PT_HEAD                                                                 \
    "    ${global}const em_t *xs = (${global}const em_t *)p.a;\n"                   \
    "    for (${ll} t = ${bid}; t < p.ntile; t += ${gdim}) {\n"                     \
    "        const ${ll} t0 = t * EM_PT_TILE + ${tid};\n"                           \
    "        ${ull} c[EM_PT_NW];\n"                                                 \
    "        int bk[EM_PT_ITEMS];\n"                                                \
    "        em_t xv[EM_PT_ITEMS];\n"                                               \
    "        for (int w = 0; w < EM_PT_NW; w++) c[w] = 0;\n"                        \
    "        if (t0 + (EM_PT_ITEMS - 1) * 256 < p.n) {\n"                           \
    "            for (int i = 0; i < EM_PT_ITEMS; i++) xv[i] = xs[t0 + i * 256];\n" \
    "        } else {\n"                                                            \
    "            for (int i = 0; i < EM_PT_ITEMS; i++)\n"                           \
    "                if (t0 + i * 256 < p.n) xv[i] = xs[t0 + i * 256];\n"           \
    "        }\n"                                                                   \
    "        for (int i = 0; i < EM_PT_ITEMS; i++) {\n"                             \
    "            bk[i] = -1;\n"                                                     \
    "            if (t0 + i * 256 >= p.n) continue;\n"                              \
    "            const int b = bk[i] = em_pt_bucket(kk, m, em_key(xv[i]));\n"       \
    "            for (int w = 0; w < EM_PT_NW; w++)\n"                              \
    "                c[w] += (b >> 2) == w ? (${ull})1 << (16 * (b & 3)) : 0;\n"    \
    "        }\n"

/* The word loops run to EM_PT_NW, the most words, and break at nw: with
 * nw as their bound they did not unroll, c[] went to local memory and each
 * element's count cost 5 read-modify-writes of it. */
static void em__pbody(const em_pt_spec *k, em_sbuf *s) {
    switch (k->mode) {
    case EM_PT_COUNT:
        em_sbuf_printf(
            s,
            "    ${shared} ${ull} sh[256];\n%s        (void)xv;\n"
            "        for (int w = 0; w < EM_PT_NW; w++) {\n"
            "            if (w >= nw) break;\n"
            "            sh[${tid}] = c[w];\n            ${sync};\n"
            "            for (int h = 128; h > 0; h >>= 1) {\n"
            "                if ((int)${tid} < h) sh[${tid}] += sh[${tid} + h];\n"
            "                ${sync};\n            }\n"
            "            if (${tid} == 0)\n"
            "                for (int q = 0; q < 4 && 4 * w + q < 2 * m + 1; q++)\n"
            "                    ((${global}${ll} *)p.part)[(4 * w + q) * p.ntile + t] =\n"
            "                        (${ll})((sh[0] >> (16 * q)) & 0xffff);\n"
            "            ${sync};\n        }\n    }\n",
            EM__PT_HEAD);
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
        /* The tile is ordered by bucket in shared memory (st), then each
         * bucket's run goes out with coalesced stores.  Within a bucket the
         * order is thread-major, not the input's: NumPy promises none. */
        em_sbuf_printf(
            s,
            "    ${shared} ${ull} sh[256];\n"
            "    ${shared} EM_PT_OUT st[EM_PT_TILE];\n"
            "    ${shared} ${ll} bs[4 * EM_PT_NW + 1], gb[4 * EM_PT_NW];\n%s"
            /* c[w] becomes the thread's packed exclusive offsets within the tile */
            "        for (int w = 0; w < EM_PT_NW; w++) {\n"
            "            if (w >= nw) break;\n"
            "            sh[${tid}] = c[w];\n            ${sync};\n"
            "            for (int h = 1; h < 256; h <<= 1) {\n"
            "                const ${ull} v = (int)${tid} >= h ? sh[${tid} - h] : 0;\n"
            "                ${sync};\n                sh[${tid}] += v;\n                ${sync};\n"
            "            }\n"
            "            c[w] = sh[${tid}] - c[w];\n"
            "            if (${tid} == 255)\n"
            "                for (int q = 0; q < 4; q++)\n"
            "                    bs[4 * w + q + 1] = (${ll})((sh[255] >> (16 * q)) & 0xffff);\n"
            "            ${sync};\n        }\n"
            "        if (${tid} == 0) { // the buckets' starts in the tile, and in out\n"
            "            bs[0] = 0;\n"
            "            for (int b = 1; b <= 2 * m + 1; b++) bs[b] += bs[b - 1];\n"
            "            for (int b = 0; b < 2 * m + 1; b++)\n"
            "                gb[b] = ((${global}const ${ll} *)p.part)[b * p.ntile + t];\n"
            "        }\n"
            "        ${sync};\n"
            "        for (int i = 0; i < EM_PT_ITEMS; i++) {\n"
            "            const int b = bk[i];\n"
            "            if (b < 0) continue;\n"
            "            ${ll} off = bs[b];\n"
            "            for (int w = 0; w < EM_PT_NW; w++)\n"
            "                if ((b >> 2) == w) {\n"
            "                    off += (${ll})((c[w] >> (16 * (b & 3))) & 0xffff);\n"
            "                    c[w] += (${ull})1 << (16 * (b & 3));\n"
            "                }\n"
            "#if EM_PT_ARG\n"
            "            st[off] = t0 + i * 256;\n"
            "#else\n"
            "            st[off] = xv[i];\n"
            "#endif\n"
            "        }\n"
            "        ${sync};\n"
            "        const int len = (int)bs[2 * m + 1];\n"
            "        for (int q = (int)${tid}; q < len; q += 256) {\n"
            "            int b = 0;\n"
            "            while (bs[b + 1] <= q) b++;\n"
            "            ((${global}EM_PT_OUT *)p.out)[gb[b] + q - bs[b]] = st[q];\n"
            "        }\n"
            "        ${sync}; // st, bs and gb are read before the next tile writes them\n"
            "    }\n",
            EM__PT_HEAD);
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
    em_sbuf_printf(
        &t,
        "typedef %s em_t;\ntypedef %s EM_K;\n#define EM_PT_NW %d\n"
        "#define EM_PT_ITEMS %d\n#define EM_PT_MAXK %d\n#define EM_PT_TILE %d\n#define EM_PT_ARG %d\n"
        "#define EM_PT_OUT %s\n",
        em_tmpl_stype(d, k->dtype), em_dtype_get(k->dtype)->size == 8 ? "${ull}" : "unsigned int",
        (2 * EM_PT_MAXK + 1 + 3) / 4, EM_PT_ITEMS, EM_PT_MAXK, EM_PT_TILE, k->arg,
        k->arg ? "${ll}" : "em_t");
    if (d->args_struct)
        em_sbuf_printf(&t, "struct em_args {\n    char *a, *kv, *part, *out;\n"
                           "    long long n, ntile, m;\n};\n");
    else
        em_tmpl_args_types(d, f, nf, &t);
    em_render_sel_keys(d, k->dtype, &t);
    /* x's bucket from the selected keys in registers, kk[0 .. m) ascending */
    em_sbuf_printf(&t, "EM_D int em_pt_bucket(const EM_K *kk, int m, EM_K kx) {\n"
                       "    int c = 0, eq = 0;\n"
                       "    for (int j = 0; j < EM_PT_MAXK && j < m; j++) {\n"
                       "        c += kk[j] < kx;\n        eq |= kk[j] == kx;\n    }\n"
                       "    return 2 * c + eq;\n}\n"
                       "${kernel(256)} " EM_KNAME "(${params}) {\n${prologue}"
                       "    ${global}const em_t *kv = (${global}const em_t *)p.kv;\n"
                       "    const int m = (int)p.m, nw = (2 * m + 4) / 4; /* the words in use */\n"
                       "    (void)nw;\n");
    if (k->mode != EM_PT_PREFIX) /* the prefix's kv is not of its dtype */
        em_sbuf_printf(&t, "    EM_K kk[EM_PT_MAXK];\n"
                           "    for (int j = 0; j < EM_PT_MAXK; j++) kk[j] = j < m ? "
                           "em_key(kv[j]) : 0;\n");
    em__pbody(k, &t);
    return em_tmpl_finish(d, f, nf, &t, NULL, out);
}
