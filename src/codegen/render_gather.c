/* The gather, scatter and nonzero kernels (render_gather.h): one template
 * (codegen/tmpl.h) for CUDA and OpenCL. */
#include "codegen/render_gather.h"
#include "codegen/tmpl.h"

static const char *em__copy_type(const em_dialect *d, int size) {
    switch (size) {
    case 1: return "unsigned char";
    case 2: return "unsigned short";
    case 4: return "unsigned int";
    case 8: return d->u64;
    default: return "em_b16";
    }
}

/* The argument's fields (run_gather.c packs them), for the em_kargs form. */
static int em__gfields(const em_gather_spec *k, em_tfield *f) {
    int n = 0;
    f[n++] = (em_tfield){'p', "a", 0, 0, NULL};
    f[n++] = (em_tfield){'p', "buf", 0, 0, NULL};
    f[n++] = (em_tfield){'p', "ix", k->nidx, 0, "const ${ll}"};
    f[n++] = (em_tfield){'p', "err", 0, 0, "${ll}"};
    f[n++] = (em_tfield){'p', "win", 0, 0, "int"};
    f[n++] = (em_tfield){'p', "keep", 0, 0, "unsigned char"};
    f[n++] = (em_tfield){'i', "nb", 0, 0, NULL};
    f[n++] = (em_tfield){'i', "inner", 0, 0, NULL};
    f[n++] = (em_tfield){'i', "total", 0, 0, NULL};
    f[n++] = (em_tfield){'i', "ashape", k->m, 0, NULL};
    f[n++] = (em_tfield){'i', "ast", k->m, 0, NULL};
    f[n++] = (em_tfield){'i', "rshape", k->r, 0, NULL};
    f[n++] = (em_tfield){'i', "rst", k->r, 0, NULL};
    return n;
}

/* Position b -> flat target in a's first m dims and its byte offset; a bad
 * index claims the error word (the first one wins) and says where. */
static const char em__pos[] =
    "EM_D bool em_pos(const em_args ${ref}p, ${ll} b, ${ll} *flat, ${ll} *off) {\n"
    "    ${ll} f = 0, o = 0;\n"
    "    if (EM_NIDX == 1 && EM_M > 1) {\n"
    "        ${ll} v = p.ix[0][b];\n        if (v < 0) v += p.total;\n"
    "        if (v < 0 || v >= p.total) {\n"
    "            if (${claim(p.err)}) {"
    " p.err[1] = p.ix[0][b]; p.err[2] = 0; p.err[3] = p.total; }\n"
    "            return false;\n        }\n        f = v;\n"
    "        for (int d = EM_M - 1; d >= 0; d--) { o += (v % p.ashape[d]) * p.ast[d]; v /= p.ashape[d]; }\n"
    "    } else {\n"
    "        for (int d = 0; d < EM_M; d++) {\n"
    "            ${ll} v = p.ix[EM_NIDX == 1 ? 0 : d][b], n = p.ashape[d];\n"
    "            if (v < 0) v += n;\n"
    "            if (v < 0 || v >= n) {\n"
    "                if (${claim(p.err)}) {"
    " p.err[1] = p.ix[EM_NIDX == 1 ? 0 : d][b]; p.err[2] = d; p.err[3] = n; }\n"
    "                return false;\n            }\n"
    "            o += v * p.ast[d];\n            f = f * n + v;\n        }\n    }\n"
    "    *flat = f;\n    *off = o;\n    return true;\n}\n"
    "EM_D ${ll} em_rest(const em_args ${ref}p, ${ll} r) {\n"
    "    ${ll} o = 0;\n"
    "    for (int d = EM_R - 1; d >= 0; d--) { o += (r % p.rshape[d]) * p.rst[d]; r /= p.rshape[d]; }\n"
    "    return o;\n}\n"
    "${kernel(256)} " EM_KNAME "(${params}) {\n${prologue}"
    "    const ${ll} step = (${ll})${bdim} * ${gdim};\n";

/* nonzero: the truth of element j of a tile, and the block's scan of the
 * threads' counts (sh[i] = counts of threads 0..i). */
/* The truths of elements j0 .. j0 + 15 (those below nb) as the bits of a word:
 * CUDA reads the 16 bytes in one load where aligned (a thread's 16 byte loads
 * were 16 instructions, each touching 32 sectors a warp); a byte that is not
 * 0 is true, so the count is the bits' (a bool's storage is one byte). */
static const char em__truth16_head[] =
    "EM_D unsigned em_truth16(const em_args ${ref}p, ${ll} j0) {\n"
    "    ${global}const unsigned char *t = (${global}const unsigned char *)p.a + j0;\n"
    "    unsigned m = 0;\n";
static const char em__truth16_vec[] = /* CUDA's text alone */
    "    if (j0 + 16 <= p.nb && ((unsigned long long)t & 15) == 0) {\n"
    "        const uint4 w = *(const uint4 *)t;\n"
    "        const unsigned v[4] = {w.x, w.y, w.z, w.w};\n"
    "#pragma unroll\n"
    "        for (int q = 0; q < 16; q++)\n"
    "            m |= (unsigned)(((v[q >> 2] >> (8 * (q & 3))) & 255u) != 0) << q;\n"
    "        return m;\n"
    "    }\n";
static const char em__truth16_tail[] =
    "    for (int q = 0; q < 16 && j0 + q < p.nb; q++) m |= (unsigned)(t[q] != 0) << q;\n"
    "    return m;\n"
    "}\n";
_Static_assert(EM_NZ_ITEMS == 16, "em_truth16 holds a thread's 16 truths");
#define EM__BLOCK_SCAN(IND)                                                                     \
    IND "for (int w = 1; w < 256; w <<= 1) {\n" IND                                             \
        "    const ${ll} v = (int)${tid} >= w ? sh[${tid} - w] : 0;\n" IND "    ${sync};\n" IND \
        "    sh[${tid}] += v;\n" IND "    ${sync};\n" IND "}\n"

/* The head of the unstaged SELECT and COORDS passes: tile t's truths of
 * this thread (tm, c of them) scanned over the block, k the output row of
 * its first.  Format arguments: EM_NZ_TILE, EM_NZ_TILE, EM_NZ_ITEMS. */
#define EM__NZ_HEAD                                               \
    "    ${shared} ${ll} sh[256];\n"                              \
    "    for (${ll} t = ${bid}; t * %d < p.nb; t += ${gdim}) {\n" \
    "        const ${ll} j0 = t * %d + ${tid} * %d;\n"            \
    "        const unsigned tm = em_truth16(p, j0);\n"            \
    "        const ${ll} c = EM_POPC(tm);\n"                      \
    "        sh[${tid}] = c;\n        ${sync};\n" EM__BLOCK_SCAN( \
        "        ") "        ${ll} k = ((${global}const ${ll} *)p.buf)[t] + sh[${tid}] - c;\n"

/* The staged nonzero passes (em_gather_spec.stage, CUDA): a tile's counts
 * scanned by warp shuffles (one barrier, where EM__BLOCK_SCAN spends sixteen)
 * and, in COORDS of a 1-d array and SELECT of values up to 8 bytes, the
 * tile's selected values compacted in shared memory first and then written
 * by consecutive threads to consecutive places: the unstaged pass has each
 * thread write its own run, 32 scattered 8-byte stores a warp instruction. */
static const char em__nz_scan_cuda[] =
    "// The inclusive sum of c over the block's threads (ic) and the tile's total.\n"
    "EM_D int em_bscan(int c, int *ws, int *total) {\n"
    "    const int lane = ${tid} & 31, w = ${tid} >> 5;\n"
    "    int v = c;\n"
    "#pragma unroll\n"
    "    for (int off = 1; off < 32; off <<= 1) {\n"
    "        const int t = __shfl_up_sync(0xffffffffu, v, off);\n"
    "        if (lane >= off) v += t;\n"
    "    }\n"
    "    if (lane == 31) ws[w] = v;\n"
    "    ${sync};\n"
    "    int pre = 0, tot = 0;\n"
    "#pragma unroll\n"
    "    for (int q = 0; q < 8; q++) {\n"
    "        pre += q < w ? ws[q] : 0;\n"
    "        tot += ws[q];\n"
    "    }\n"
    "    *total = tot;\n"
    "    return v + pre;\n"
    "}\n";

static void em__staged_body(const em_gather_spec *k, em_sbuf *s) {
    if (k->mode == EM_G_COUNT) {
        em_sbuf_printf(
            s,
            "    __shared__ int ws[8];\n"
            "    for (${ll} t = ${bid}; t * %d < p.nb; t += ${gdim}) {\n"
            "        int c = EM_POPC(em_truth16(p, t * %d + ${tid} * %d));\n"
            "#pragma unroll\n"
            "        for (int off = 16; off > 0; off >>= 1) c += __shfl_down_sync(0xffffffffu, c, off);\n"
            "        if ((${tid} & 31) == 0) ws[${tid} >> 5] = c;\n"
            "        ${sync};\n"
            "        if (${tid} == 0) {\n"
            "            int tot = 0;\n"
            "            for (int q = 0; q < 8; q++) tot += ws[q];\n"
            "            ((${global}${ll} *)p.buf)[t] = tot;\n"
            "        }\n"
            "        ${sync};\n    }\n}\n",
            EM_NZ_TILE, EM_NZ_TILE, EM_NZ_ITEMS);
        return;
    }
    const bool coords = k->mode == EM_G_COORDS;
    em_sbuf_printf(
        s,
        "    __shared__ int ws[8];\n"
        "    __shared__ %s st[%d];\n"
        "    for (${ll} t = ${bid}; t * %d < p.nb; t += ${gdim}) {\n"
        "        const ${ll} j0 = t * %d + ${tid} * %d;\n"
        "        const unsigned tm = em_truth16(p, j0);\n"
        "        const int c = EM_POPC(tm);\n"
        "        int tot;\n"
        "        int q = em_bscan(c, ws, &tot) - c; // this thread's first place in st\n"
        "        for (int i = 0; i < %d; i++)\n"
        "            if ((tm >> i) & 1u) st[q++] = %s;\n"
        "        ${sync};\n"
        "        const ${ll} k0 = ((${global}const ${ll} *)p.buf)[t];\n"
        "        for (int i = ${tid}; i < tot; i += ${bdim}) ((${global}%s *)p.ix[0])[k0 + i] = st[i];\n"
        "        ${sync}; // st and ws read before the next tile writes them\n"
        "    }\n}\n",
        coords ? "${ll}" : "em_t", EM_NZ_TILE, EM_NZ_TILE, EM_NZ_TILE, EM_NZ_ITEMS, EM_NZ_ITEMS,
        coords ? "j0 + i" : "((${global}const em_t *)p.ix[1])[j0 + i]", coords ? "${ll}" : "em_t");
}

/* Whether k takes the staged form (em__staged_body covers it). */
static bool em__staged(const em_dialect *d, const em_gather_spec *k) {
    return k->stage && d->id == EM_DIALECT_CUDA &&
           (k->mode == EM_G_COUNT || (k->mode == EM_G_COORDS && k->m == 1) ||
            (k->mode == EM_G_SELECT && k->size <= 8));
}

static void em__body(const em_gather_spec *k, em_sbuf *s) {
    switch (k->mode) {
    case EM_G_TAKE:
    case EM_G_PUT:
        em_sbuf_printf(
            s,
            "    for (${ll} j = ${bid} * (${ll})${bdim} + ${tid}; j < p.nb * p.inner; j += step) {\n"
            "        const ${ll} b = j / p.inner;\n        ${ll} f, o;\n");
        if (k->mode == EM_G_PUT) em_sbuf_printf(s, "        if (!p.keep[b]) continue;\n");
        em_sbuf_printf(
            s,
            "        if (!em_pos(p, b, &f, &o)) continue;\n        o += em_rest(p, j - b * p.inner);\n");
        em_sbuf_printf(
            s, k->mode == EM_G_TAKE
                   ? "        ((${global}em_t *)p.buf)[j] = *(${global}const em_t *)(p.a + o);\n"
                   : "        *(${global}em_t *)(p.a + o) = ((${global}const em_t *)p.buf)[j];\n");
        em_sbuf_printf(s, "    }\n");
        break;
    case EM_G_WIN:
    case EM_G_KEEP:
    case EM_G_DUPS:
        em_sbuf_printf(
            s, "    for (${ll} b = ${bid} * (${ll})${bdim} + ${tid}; b < p.nb; b += step) {\n"
               "        ${ll} f, o;\n        if (!em_pos(p, b, &f, &o)) continue;\n");
        if (k->mode == EM_G_WIN)
            em_sbuf_printf(s, "        ${amax(p.win + f, (int)b)};\n");
        else if (k->mode == EM_G_KEEP)
            em_sbuf_printf(s, "        p.keep[b] = p.win[f] == (int)b;\n");
        else
            em_sbuf_printf(
                s,
                "        unsigned char last = 1;\n"
                "        for (${ll} c = b + 1; c < p.nb && last; c++) {\n"
                "            ${ll} f2, o2;\n            if (em_pos(p, c, &f2, &o2) && f2 == f) last = 0;\n"
                "        }\n        p.keep[b] = last;\n");
        em_sbuf_printf(s, "    }\n");
        break;
    case EM_G_COUNT: /* a: truth (bool, C order); buf: one int64 count per tile */
        em_sbuf_printf(
            s,
            "    ${shared} ${ll} sh[256];\n"
            "    for (${ll} t = ${bid}; t * %d < p.nb; t += ${gdim}) {\n"
            "        const ${ll} j0 = t * %d + ${tid} * %d;\n"
            "        sh[${tid}] = EM_POPC(em_truth16(p, j0));\n        ${sync};\n"
            "        for (int w = 128; w > 0; w >>= 1) { if ((int)${tid} < w) sh[${tid}] += sh[${tid} + w]; ${sync}; }\n"
            "        if (${tid} == 0) ((${global}${ll} *)p.buf)[t] = sh[0];\n        ${sync};\n    }\n",
            EM_NZ_TILE, EM_NZ_TILE, EM_NZ_ITEMS);
        break;
    case EM_G_PREFIX: /* one block: buf[0..nb) counts -> exclusive prefixes, buf[nb] = total */
        em_sbuf_printf(
            s,
            "    ${shared} ${ll} sh[256];\n"
            "    ${global}${ll} *c = (${global}${ll} *)p.buf;\n"
            "    const ${ll} per = (p.nb + 255) / 256, b0 = ${tid} * per;\n"
            "    ${ll} mine = 0;\n"
            "    for (${ll} i = b0; i < b0 + per && i < p.nb; i++) mine += c[i];\n"
            "    sh[${tid}] = mine;\n    ${sync};\n" EM__BLOCK_SCAN(
                "    ") "    ${ll} run = sh[${tid}] - mine;\n"
                        "    for (${ll} i = b0; i < b0 + per && i < p.nb; i++) { const ${ll} v = c[i]; c[i] = run; run += v; }\n"
                        "    if (${tid} == 255) c[p.nb] = sh[255];\n");
        break;
    case EM_G_SELECT: /* a truth, buf tile prefixes; ix[0] the output, ix[1] the values (C order) */
        em_sbuf_printf(
            s,
            EM__NZ_HEAD
            "        for (int i = 0; i < %d && j0 + i < p.nb; i++)\n"
            "            if ((tm >> i) & 1u)\n"
            "                ((${global}em_t *)p.ix[0])[k++] = ((${global}const em_t *)p.ix[1])[j0 + i];\n"
            "        ${sync};\n    }\n",
            EM_NZ_TILE, EM_NZ_TILE, EM_NZ_ITEMS, EM_NZ_ITEMS);
        break;
    default: /* EM_G_COORDS: a truth, buf tile prefixes, ix[0] the (nnz, m) output; C order kept */
        em_sbuf_printf(
            s,
            EM__NZ_HEAD
            "        // The coordinates of j0 once, then stepped in C order: no 64-bit\n"
            "        // division per element (none at all for a 1-d array).\n"
            "        ${ll} cd[EM_M], r = j0;\n"
            "        for (int d = EM_M - 1; d > 0; d--) { cd[d] = r %% p.ashape[d]; r /= p.ashape[d]; }\n"
            "        cd[0] = r;\n"
            "        for (int i = 0; i < %d && j0 + i < p.nb; i++) {\n"
            "            if ((tm >> i) & 1u) {\n"
            "                ${global}${ll} *row = (${global}${ll} *)p.ix[0] + (k++) * EM_M;\n"
            "                for (int d = 0; d < EM_M; d++) row[d] = cd[d];\n"
            "            }\n"
            "            for (int d = EM_M - 1; d >= 0; d--) {\n"
            "                if (++cd[d] < p.ashape[d] || d == 0) break;\n"
            "                cd[d] = 0;\n"
            "            }\n"
            "        }\n        ${sync};\n    }\n",
            EM_NZ_TILE, EM_NZ_TILE, EM_NZ_ITEMS, EM_NZ_ITEMS);
    }
    em_sbuf_printf(s, "}\n");
}

em_status em_render_gather(const em_dialect *d, const em_gather_spec *k, em_sbuf *out) {
    if (!d->kernel || !d->bounds || !d->atomic_max_i32 || d->id == EM_DIALECT_C)
        return em_error(EM_EUNSUPPORTED, "the gather kernels are not rendered for %s", d->name);
    bool cxx = d->id == EM_DIALECT_CUDA;
    em_sbuf t = {0}; /* the template, expanded into out */
    em_tfield f[13];
    int nf = em__gfields(k, f);
    em_sbuf_printf(out, "%s\n", d->prelude);
    em_sbuf_printf(&t, "%s",
                   cxx ? "struct __align__(8) em_b16 { unsigned long long lo, hi; };\n"
                       : "typedef struct { ulong lo, hi; } em_b16;\n");
    em_sbuf_printf(&t, "typedef %s em_t;\n#define EM_M %d\n#define EM_NIDX %d\n#define EM_R %d\n",
                   em__copy_type(d, k->size), k->m, k->nidx, k->r);
    if (cxx)
        em_sbuf_printf(
            &t,
            "struct em_args {\n    char *a, *buf;\n    const long long *ix[EM_NIDX];\n"
            "    long long *err;\n    int *win;\n    unsigned char *keep;\n"
            "    long long nb, inner, total;\n    long long ashape[EM_M], ast[EM_M], rshape[EM_R], rst[EM_R];\n};\n");
    else
        em_tmpl_args_types(d, f, nf, &t);
    em_sbuf_printf(&t, "%s%s%s%s",
                   cxx ? "#define EM_POPC(m) __popc(m)\n" : "#define EM_POPC(m) popcount(m)\n",
                   em__truth16_head, cxx ? em__truth16_vec : "", em__truth16_tail);
    const bool staged = em__staged(d, k);
    if (staged) em_sbuf_printf(&t, "%s", em__nz_scan_cuda);
    em_sbuf_printf(&t, "%s", em__pos); /* ends with the kernel's head */
    if (staged)
        em__staged_body(k, &t);
    else
        em__body(k, &t);
    const char *const extra[] = {"bool", d->bool_storage, NULL};
    return em_tmpl_finish(d, f, nf, &t, extra, out);
}
