/* The scan renderer (render_scan.h).  The rendered text names its types
 * and the op through a few typedefs and functions (em_scan_in/acc/out,
 * em_load, em_op, em_store, em_src, em_dst), so the kernels are the same
 * text for every dtype and layout. */
#include "codegen/render_scan.h"

#include <string.h>
#include "codegen/tmpl.h"

#include <stdio.h>

em_dtype em_scan_acc(em_dtype out) { return out == EM_FLOAT16 ? EM_FLOAT32 : out; }

bool em_scan_packed(const em_scan_spec *c) {
    return c->onepass && c->warp && !c->unpacked && em_dtype_get(em_scan_acc(c->out))->size == 4;
}

static int em__lbq(const em_scan_spec *c) {
    return c->lbq > 0 && c->lbq <= 16 ? c->lbq : c->regs ? EM_SCAN_LBQ : 1;
}

void em_scan_key(const em_scan_spec *c, em_sbuf *key) {
    em_sbuf_printf(key, "SCAN%d|%d|%d|%d|%d|%c%s%s", (int)c->op, (int)c->in, (int)c->out, c->nd,
                   c->axis < 0 ? -1 : c->axis,
                   c->onepass ? 'O'
                   : c->tiles ? 'T'
                              : 'L',
                   c->tiles && c->warp ? "W" : "", em_scan_packed(c) ? "P" : "");
    if (c->onepass) em_sbuf_printf(key, "|Q%d", em__lbq(c));
    if (c->onepass && c->regs) {
        int b, v, k;
        em_scan_regs_shape(c, &b, &v, &k);
        em_sbuf_printf(key, "|R%d,%d,%d%s%s%s", b, v, k, c->vin ? "i" : "", c->vout ? "o" : "",
                       c->byblock ? "b" : "");
    }
}

void em_scan_regs_shape(const em_scan_spec *c, int *block, int *vec, int *items) {
    const size_t isz = em_dtype_get(c->in)->size, osz = em_dtype_get(c->out)->size,
                 asz = em_dtype_get(em_scan_acc(c->out))->size;
    const size_t wide = isz > osz ? isz : osz;
    int v = wide >= 16 ? 1 : (int)(16 / wide);
    /* 64 bytes of accumulators a thread by default: float32 16 elements (4 loads
     * of 16 bytes in flight), float64 8, complex128 4. */
    int k = c->items > 0 ? c->items : (int)(64 / asz);
    if (k < v) k = v;
    k -= k % v;
    *block =
        c->block >= 32 && c->block <= 1024 && c->block % 32 == 0 ? c->block : EM_SCAN_REGS_BLOCK;
    *vec = v, *items = k;
}

/* The argument's fields (run_scan.c packs them), for the em_kargs form. */
static int em__scan_fields(const em_scan_spec *c, em_tfield *f) {
    int n = 0;
    f[n++] = (em_tfield){'p', "in", 0, 0, NULL};
    f[n++] = (em_tfield){'p', "out", 0, 0, NULL};
    f[n++] = (em_tfield){'p', "part", 0, 0, NULL};
    f[n++] = (em_tfield){'i', "nlines", 0, 0, NULL};
    f[n++] = (em_tfield){'i', "len", 0, 0, NULL};
    f[n++] = (em_tfield){'i', "ntiles", 0, 0, NULL};
    f[n++] = (em_tfield){'i', "epoch", 0, 0, NULL};
    f[n++] = (em_tfield){'i', "shape", c->nd, 0, NULL};
    f[n++] = (em_tfield){'i', "ist", c->nd, 0, NULL};
    f[n++] = (em_tfield){'i', "ost", c->nd, 0, NULL};
    return n;
}

/* Types, the op, conversions and addressing. */
static void em__scan_defs(const em_dialect *d, const em_scan_spec *c, em_sbuf *s) {
    const em_dtype acc = em_scan_acc(c->out);
    char op[32];
    snprintf(op, sizeof op, "%s_%s", c->op == EM_RED_CUMPROD ? "em_multiply" : "em_add",
             em_scalar_suffix(acc));
    em_sbuf_printf(s, "typedef %s em_scan_in;\ntypedef %s em_scan_acc;\ntypedef %s em_scan_out;\n",
                   em_tmpl_stype(d, c->in), em_tmpl_stype(d, acc), em_tmpl_stype(d, c->out));
    int bk[3] = {EM_SCAN_BLOCK, 1, EM_SCAN_ITEMS};
    if (c->onepass && c->regs) em_scan_regs_shape(c, &bk[0], &bk[1], &bk[2]);
    /* The host emulation test (tests/c/scan_emul.h) shrinks the tile: EM_B, EM_K overridable. */
    em_sbuf_printf(
        s,
        "#define EM_ND %d\n#define EM_AX %d\n#ifndef EM_B\n#define EM_B %d\n#define EM_K %d\n#endif\n"
        "#define EM_T (EM_B * EM_K)\n",
        c->nd, c->axis < 0 ? -1 : c->axis, bk[0], bk[2]);
    if (d->args_struct) {
        em_sbuf_printf(
            s, "struct em_args { char *in, *out, *part; long long nlines, len, ntiles, epoch,"
               " shape[EM_ND], ist[EM_ND], ost[EM_ND]; };\n");
    } else {
        em_tfield f[10];
        em_tmpl_args_types(d, f, em__scan_fields(c, f), s);
        em_sbuf_printf(s,
                       "EM_D em_scan_acc em_scan_zero(void) { em_scan_acc z = {0}; return z; }\n");
    }
    /* The input is cast to out's dtype first (NumPy casts, then accumulates). */
    em_sbuf_printf(s, "EM_D em_scan_acc em_load(em_scan_in x) { return ");
    if (c->out == EM_FLOAT16) {
        em_sbuf_printf(s, "em_h2f(");
        em__render_conv_d(d, s, c->in, EM_FLOAT16, "x");
        em_sbuf_printf(s, ")");
    } else {
        em__render_conv_d(d, s, c->in, acc, "x");
    }
    if (c->out == EM_FLOAT16) /* every partial rounded to float16, as NumPy */
        em_sbuf_printf(
            s,
            "; }\nEM_D em_scan_acc em_op(em_scan_acc a, em_scan_acc b) { return em_h2f(em_f2h(%s(a, b))); }\n",
            op);
    else
        em_sbuf_printf(
            s, "; }\nEM_D em_scan_acc em_op(em_scan_acc a, em_scan_acc b) { return %s(a, b); }\n",
            op);
    em_sbuf_printf(s, "EM_D em_scan_out em_store(em_scan_acc a) { return ");
    em__render_conv_d(d, s, acc, c->out, "a");
    em_sbuf_printf(s, "; }\n");
    if (c->axis >= 0)
        em_sbuf_printf(
            s,
            "// Byte offset of line l's first element (strides st): l over the dims but the axis, C order.\n"
            "EM_D ${ll} em_base(const em_args ${ref}p, ${ll} l, const ${ll} *st) {\n"
            "    ${ll} b = 0;\n"
            "    for (int d = EM_ND - 1; d >= 0; d--) {\n"
            "        if (d == EM_AX) continue;\n"
            "        b += (l %% p.shape[d]) * st[d];\n"
            "        l /= p.shape[d];\n"
            "    }\n"
            "    return b;\n"
            "}\n"
            "EM_D ${global}const em_scan_in *em_src(const em_args ${ref}p, ${ll} b, ${ll} t) {\n"
            "    return (${global}const em_scan_in *)(p.in + b + t * p.ist[EM_AX]);\n"
            "}\n"
            "EM_D ${global}em_scan_out *em_dst(const em_args ${ref}p, ${ll} b, ${ll} t) {\n"
            "    return (${global}em_scan_out *)(p.out + b + t * p.ost[EM_AX]);\n"
            "}\n");
    else
        em_sbuf_printf(
            s,
            "// Flattened: one line; element t is the t-th in C order; out is contiguous.\n"
            "EM_D ${ll} em_base(const em_args ${ref}p, ${ll} l, const ${ll} *st) { return 0; }\n"
            "EM_D ${global}const em_scan_in *em_src(const em_args ${ref}p, ${ll} b, ${ll} t) {\n"
            "    ${ll} o = 0;\n"
            "    for (int d = EM_ND - 1; d > 0; d--) {\n"
            "        o += (t %% p.shape[d]) * p.ist[d];\n"
            "        t /= p.shape[d];\n"
            "    }\n"
            "    // t < shape[0] now: no 64-bit modulo for the outermost dim (a 1-d line's only one)\n"
            "    return (${global}const em_scan_in *)(p.in + o + t * p.ist[0]);\n"
            "}\n"
            "EM_D ${global}em_scan_out *em_dst(const em_args ${ref}p, ${ll} b, ${ll} t) { return (${global}em_scan_out *)p.out + t; }\n");
}

/* One thread per line: the sequential scan, NumPy's order exactly. */
static const char em__line_kernel[] =
    "${kernel(EM_B)} " EM_KNAME "(${params}) {\n${prologue}"
    "    for (${ll} l = ${bid} * (${ll})${bdim} + ${tid}; l < p.nlines;\n"
    "         l += (${ll})${bdim} * ${gdim}) {\n"
    "        const ${ll} bi = em_base(p, l, p.ist), bo = em_base(p, l, p.ost);\n"
    "        em_scan_acc acc = em_load(*em_src(p, bi, 0));\n"
    "        *em_dst(p, bo, 0) = em_store(acc);\n"
    "        for (${ll} t = 1; t < p.len; t++) {\n"
    "            acc = em_op(acc, em_load(*em_src(p, bi, t)));\n"
    "            *em_dst(p, bo, t) = em_store(acc);\n"
    "        }\n"
    "    }\n"
    "}\n";

/* The block-wide scan of one tile and the three tile kernels.  Every
 * __syncthreads() is reached by all threads of the block: the loops around
 * them run over block-uniform values (b, t0, m, nv, off). */
static const char em__tile_scan_generic[] =
    "// s[0..m) (1 <= m <= EM_T, the same m in every thread) holds a tile, filled by\n"
    "// the block before the call.  On return s[j] = c (+) s[0] (+) ... (+) s[j] (c\n"
    "// only when has), and every thread gets s[m - 1].  Thread i owns s[iK, iK+K):\n"
    "// it folds its elements, a Hillis-Steele scan over the owners' totals gives\n"
    "// each owner its prefix, and each owner rescans its elements from it.  Only\n"
    "// owners (i < nv) take part, reading only lower owners: no identity is needed,\n"
    "// so signed zeros, infinities and NaNs come out as in a sequential scan.\n"
    "// s is padded (EM_P: a word skipped every 32) so that the owners' strided\n"
    "// reads of their EM_K consecutive elements fall in different banks.\n"
    "#define EM_P(j) ((j) + ((j) >> 5))\n"
    "// (full: false asks for the total alone; this form scans s all the same.)\n"
    "EM_D em_scan_acc em_tile_scan(${local}em_scan_acc *s, ${local}em_scan_acc *tot, int m, bool has, em_scan_acc c, bool full) {\n"
    "    const int i = ${tid}, lo = i * EM_K, hi = lo + EM_K < m ? lo + EM_K : m;\n"
    "    const int nv = (m + EM_K - 1) / EM_K;\n"
    "    ${sync}; // s is filled\n"
    "    if (lo < hi) {\n"
    "        em_scan_acc r = s[EM_P(lo)];\n"
    "        for (int j = lo + 1; j < hi; j++) r = em_op(r, s[EM_P(j)]);\n"
    "        tot[i] = r;\n"
    "    }\n"
    "    ${sync};\n"
    "    for (int off = 1; off < nv; off <<= 1) {\n"
    "        // invariant: tot[i] folds owners max(0, i - off + 1) .. i\n"
    "        const bool act = i < nv && i >= off;\n"
    "        const em_scan_acc v = act ? em_op(tot[i - off], tot[i]) : ${zero};\n"
    "        ${sync}; // every read of this step before any write\n"
    "        if (act) tot[i] = v;\n"
    "        ${sync};\n"
    "    }\n"
    "    if (lo < hi) {\n"
    "        em_scan_acc r = s[EM_P(lo)];\n"
    "        if (i > 0) r = em_op(has ? em_op(c, tot[i - 1]) : tot[i - 1], r);\n"
    "        else if (has) r = em_op(c, r);\n"
    "        s[EM_P(lo)] = r;\n"
    "        for (int j = lo + 1; j < hi; j++) s[EM_P(j)] = r = em_op(r, s[EM_P(j)]);\n"
    "    }\n"
    "    ${sync}; // s is scanned\n"
    "    return s[EM_P(m - 1)];\n"
    "}\n"
    "EM_D void em_tile_load(${local}em_scan_acc *s, const em_args ${ref}p, ${ll} bi, ${ll} t0, int m) {\n"
    "    for (int j = ${tid}; j < m; j += EM_B) s[EM_P(j)] = em_load(*em_src(p, bi, t0 + j));\n"
    "}\n";

/* The tile kernels, after em_tile_scan and em_tile_load (either form). */
static const char em__tile_kernels[] =
    "// The tile (line l, tile k) for block index b = l * ntiles + k: first element t0, m elements.\n"
    "#define EM_TILE(b)                                                    \\\n"
    "    const ${ll} l = (b) / p.ntiles, t0 = ((b) - l * p.ntiles) * EM_T; \\\n"
    "    const int m = p.len - t0 < EM_T ? (int)(p.len - t0) : EM_T;       \\\n"
    "    const ${ll} bi = em_base(p, l, p.ist);                         \\\n"
    "    ${sync}; /* the last tile's readers of s are done */       \\\n"
    "    em_tile_load(s, p, bi, t0, m);\n"
    "// Phase 1: part[b] = the total of tile b, a reduction: thread i folds elements\n"
    "// i, i + EM_B, ... (each step one coalesced load per warp, EM_K in flight), then\n"
    "// a tree over the threads holding elements (a prefix of them: no identity).\n"
    "${kernel(EM_B)} " EM_SCAN_UP "(${params}) {\n${prologue}"
    "#if EM_UP_TREE\n"
    "    ${shared} em_scan_acc tot[EM_B];\n"
    "    const int i = ${tid};\n"
    "    for (${ll} b = ${bid}; b < p.nlines * p.ntiles; b += ${gdim}) {\n"
    "        const ${ll} l = b / p.ntiles, t0 = (b - l * p.ntiles) * EM_T;\n"
    "        const int m = p.len - t0 < EM_T ? (int)(p.len - t0) : EM_T;\n"
    "        const ${ll} bi = em_base(p, l, p.ist);\n"
    "        ${sync}; // the last tile's readers of tot are done\n"
    "        if (i < m) {\n"
    "            em_scan_in x[EM_K];\n"
    "#pragma unroll\n"
    "            for (int e = 0; e < EM_K; e++)\n"
    "                if (i + e * EM_B < m) x[e] = *em_src(p, bi, t0 + i + e * EM_B);\n"
    "            em_scan_acc r = em_load(x[0]);\n"
    "#pragma unroll\n"
    "            for (int e = 1; e < EM_K; e++)\n"
    "                if (i + e * EM_B < m) r = em_op(r, em_load(x[e]));\n"
    "            tot[i] = r;\n"
    "        }\n"
    "        int n = m < EM_B ? m : EM_B;\n"
    "        for (int w = EM_B / 2; w > 0; w >>= 1) {\n"
    "            ${sync};\n"
    "            if (i < w && i + w < n) tot[i] = em_op(tot[i], tot[i + w]);\n"
    "            if (n > w) n = w;\n"
    "        }\n"
    "        ${sync};\n"
    "        if (i == 0) ((${global}em_scan_acc *)p.part)[b] = tot[0];\n"
    "    }\n"
    "#else\n"
    "    // Floating point: the owners' consecutive runs, then their totals scanned, as\n"
    "    // phase 3 does.  A tree over strided folds groups elements far apart, whose\n"
    "    // product (or sum) can overflow where every running value of the scan is in\n"
    "    // range (inf * 0 = nan: the H200 found it in a cumprod of +-1, 2 and 0.5s).\n"
    "    ${shared} em_scan_acc s[EM_P(EM_T)], tot[EM_B];\n"
    "    for (${ll} b = ${bid}; b < p.nlines * p.ntiles; b += ${gdim}) {\n"
    "        EM_TILE(b)\n"
    "        const em_scan_acc r = em_tile_scan(s, tot, m, false, ${zero}, false);\n"
    "        if (${tid} == 0) ((${global}em_scan_acc *)p.part)[b] = r;\n"
    "    }\n"
    "#endif\n"
    "}\n"
    "// Phase 2: each line's ntiles totals scanned in place, EM_T at a time, one block per line.\n"
    "${kernel(EM_B)} " EM_SCAN_MID "(${params}) {\n${prologue}"
    "    ${shared} em_scan_acc s[EM_P(EM_T)], tot[EM_B];\n"
    "    for (${ll} l = ${bid}; l < p.nlines; l += ${gdim}) {\n"
    "        ${global}em_scan_acc *q = (${global}em_scan_acc *)p.part + l * p.ntiles;\n"
    "        em_scan_acc c = ${zero};\n"
    "        for (${ll} t0 = 0; t0 < p.ntiles; t0 += EM_T) {\n"
    "            const int m = p.ntiles - t0 < EM_T ? (int)(p.ntiles - t0) : EM_T;\n"
    "            ${sync}; // the last chunk's readers of s are done\n"
    "            for (int j = ${tid}; j < m; j += EM_B) s[EM_P(j)] = q[t0 + j];\n"
    "            c = em_tile_scan(s, tot, m, t0 > 0, c, true);\n"
    "            for (int j = ${tid}; j < m; j += EM_B) q[t0 + j] = s[EM_P(j)];\n"
    "        }\n"
    "    }\n"
    "}\n"
    "// Phase 3: tile b rescanned from part[b - 1] (the line's tiles before it), written out.\n"
    "${kernel(EM_B)} " EM_SCAN_DOWN "(${params}) {\n${prologue}"
    "    ${shared} em_scan_acc s[EM_P(EM_T)], tot[EM_B];\n"
    "    for (${ll} b = ${bid}; b < p.nlines * p.ntiles; b += ${gdim}) {\n"
    "        EM_TILE(b)\n"
    "        const bool has = t0 > 0;\n"
    "        const em_scan_acc c = has ? ((${global}const em_scan_acc *)p.part)[b - 1] : ${zero};\n"
    "        em_tile_scan(s, tot, m, has, c, true);\n"
    "        const ${ll} bo = em_base(p, l, p.ost);\n"
    "        for (int j = ${tid}; j < m; j += EM_B) *em_dst(p, bo, t0 + j) = em_store(s[EM_P(j)]);\n"
    "    }\n"
    "}\n";

/* CUDA's block scan and tile loads (em_scan_spec.warp), in place of
 * em__tile_scan_generic: the same contract.  The owners' totals are scanned
 * by shuffles inside each warp (no barrier; the generic form spends two per
 * step of a Hillis-Steele scan over 256 values in shared memory), the warps'
 * totals folded from shared memory after one barrier; a full tile's loads
 * are issued together (EM_K independent loads a thread, not one at a time).
 * Only owners combine, and only with lower owners' values, so no identity is
 * used, as in the generic form; every grouping is of consecutive elements. */
static const char em__warp_text[] =
    "#define EM_P(j) ((j) + ((j) >> 5))\n"
    "#define EM_WARP_LB 1\n"
    "// v of the lane d below (its own below d), for any value type: by 32-bit words.\n"
    "EM_D em_scan_acc em_shup(em_scan_acc v, int d) {\n"
    "    unsigned u[(sizeof(em_scan_acc) + 3) / 4] = {};\n"
    "    unsigned char *ub = (unsigned char *)u, *vb = (unsigned char *)&v;\n"
    "#pragma unroll\n"
    "    for (int k = 0; k < (int)sizeof v; k++) ub[k] = vb[k];\n"
    "#pragma unroll\n"
    "    for (int k = 0; k < (int)(sizeof u / 4); k++) u[k] = __shfl_up_sync(0xffffffffu, u[k], d);\n"
    "#pragma unroll\n"
    "    for (int k = 0; k < (int)sizeof v; k++) vb[k] = ub[k];\n"
    "    return v;\n"
    "}\n"
    "EM_D em_scan_acc em_tile_scan(em_scan_acc *s, em_scan_acc *tot, int m, bool has, em_scan_acc c, bool full) {\n"
    "    const int i = ${tid}, lo = i * EM_K, hi = lo + EM_K < m ? lo + EM_K : m;\n"
    "    const int nv = (m + EM_K - 1) / EM_K, lane = i & 31, w = i >> 5, nw = (nv + 31) >> 5;\n"
    "    ${sync}; // s is filled\n"
    "    em_scan_acc r = ${zero};\n"
    "    if (lo < hi) {\n"
    "        r = s[EM_P(lo)];\n"
    "        for (int j = lo + 1; j < hi; j++) r = em_op(r, s[EM_P(j)]);\n"
    "    }\n"
    "    // r becomes the fold of owners 32w .. i (owners take only from owners below)\n"
    "#pragma unroll\n"
    "    for (int off = 1; off < 32; off <<= 1) {\n"
    "        const em_scan_acc v = em_shup(r, off);\n"
    "        if (lane >= off && i < nv) r = em_op(v, r);\n"
    "    }\n"
    "    const em_scan_acc e = em_shup(r, 1); // owners 32w .. i - 1, for lane > 0\n"
    "    if (i < nv && (lane == 31 || i == nv - 1)) tot[w] = r;\n"
    "    ${sync};\n"
    "    if (!full) { // the tile's total; the next tile writes tot after two barriers\n"
    "        em_scan_acc t = tot[0];\n"
    "        for (int q = 1; q < nw; q++) t = em_op(t, tot[q]);\n"
    "        return t;\n"
    "    }\n"
    "    if (lo < hi) {\n"
    "        bool got = has;\n"
    "        em_scan_acc pre = c;\n"
    "        for (int q = 0; q < w; q++) {\n"
    "            pre = got ? em_op(pre, tot[q]) : tot[q];\n"
    "            got = true;\n"
    "        }\n"
    "        if (lane > 0) pre = got ? em_op(pre, e) : e, got = true;\n"
    "        em_scan_acc x = s[EM_P(lo)];\n"
    "        if (got) x = em_op(pre, x);\n"
    "        s[EM_P(lo)] = x;\n"
    "        for (int j = lo + 1; j < hi; j++) s[EM_P(j)] = x = em_op(x, s[EM_P(j)]);\n"
    "    }\n"
    "    ${sync}; // s is scanned\n"
    "    return s[EM_P(m - 1)];\n"
    "}\n"
    "EM_D void em_tile_load(em_scan_acc *s, const em_args &p, ${ll} bi, ${ll} t0, int m) {\n"
    "    if (m == EM_T) {\n"
    "        em_scan_in x[EM_K];\n"
    "#pragma unroll\n"
    "        for (int e = 0; e < EM_K; e++) x[e] = *em_src(p, bi, t0 + ${tid} + e * EM_B);\n"
    "#pragma unroll\n"
    "        for (int e = 0; e < EM_K; e++) s[EM_P(${tid} + e * EM_B)] = em_load(x[e]);\n"
    "    } else {\n"
    "        for (int j = ${tid}; j < m; j += EM_B) s[EM_P(j)] = em_load(*em_src(p, bi, t0 + j));\n"
    "    }\n"
    "}\n";

/* The single pass's status words and look-back, one text for both layouts.
 * Packed (em_scan_packed): each tile's flag (high word) and value (low word)
 * in one 64-bit word st[j], written and read whole (an aligned 8-byte access
 * is single-copy atomic), so a reader that sees the flag sees its value: no
 * fence on either side.  Unpacked: flag[j], agg[j] (the tile's total) and
 * inc[j] (the line's inclusive prefix through the tile), a fence after each
 * value's write and after each read of flags.  EM_PUB(b, f, v) publishes;
 * em_lookback by one warp (CUDA's warp form): lane k reads tiles
 * b - 1 - k - 32q for q < EM_LBQ at once (tiles of the line, from ls), waits
 * until every tile nearer than the nearest inclusive prefix has published, and
 * the values up to it are folded, the farther first, in the lane and then by
 * shuffles, into c = T[j] (+) ... (+) T[b - 1]: 32 * EM_LBQ tiles a round trip
 * to L2.  With 32 a round trip (EM_LBQ 1) the H100 ran cumsum of 2^24 float32
 * in 70 us (ncu) at half the memory's rate: the inclusive prefixes advanced 32
 * tiles a round trip while ~500 tiles were in flight, so a tile walked back
 * many windows one after another.  Returned in lane 0. */
static const char em__status_text[] =
    "#if EM_PACK\n"
    "EM_D unsigned long long em_pk(unsigned f, em_scan_acc v) {\n"
    "    unsigned u;\n"
    "    unsigned char *ub = (unsigned char *)&u, *vb = (unsigned char *)&v;\n"
    "#pragma unroll\n"
    "    for (int k = 0; k < 4; k++) ub[k] = vb[k];\n"
    "    return ((unsigned long long)f << 32) | u;\n"
    "}\n"
    "EM_D em_scan_acc em_unpk(unsigned long long w) {\n"
    "    unsigned u = (unsigned)w;\n"
    "    em_scan_acc v;\n"
    "    unsigned char *ub = (unsigned char *)&u, *vb = (unsigned char *)&v;\n"
    "#pragma unroll\n"
    "    for (int k = 0; k < 4; k++) vb[k] = ub[k];\n"
    "    return v;\n"
    "}\n"
    "#define EM_STATUS                                                                  \\\n"
    "    volatile unsigned long long *st = (volatile unsigned long long *)(p.part + 16); \\\n"
    "    const unsigned eb = (unsigned)p.epoch << 2\n"
    "#define EM_ST st, eb\n"
    "#define EM_ST_ARGS volatile unsigned long long *st, unsigned eb\n"
    "#define EM_PUB(b, f, v) (st[b] = em_pk(eb + (f), (v)))\n"
    "#else\n"
    "#define EM_STATUS                                                                  \\\n"
    "    volatile int *flag = (volatile int *)(p.part + 16);                             \\\n"
    "    em_scan_acc *agg = (em_scan_acc *)(p.part + 16 + ((units * 4 + 15) & ~15LL));    \\\n"
    "    em_scan_acc *inc = agg + units;                                                   \\\n"
    "    const unsigned eb = (unsigned)p.epoch << 2\n"
    "#define EM_ST flag, agg, inc, eb\n"
    "#define EM_ST_ARGS volatile int *flag, em_scan_acc *agg, em_scan_acc *inc, unsigned eb\n"
    "#define EM_PUB(b, f, v) ((f) == 2 ? inc : agg)[b] = (v), __threadfence(), flag[b] = (int)(eb + (f))\n"
    "#endif\n"
    "// A flag word's state in this call (epoch e, eb = 4 e): 1 or 2 where the word was\n"
    "// written by this call, 0 for a zeroed word or an earlier call's (eb - 4 or less,\n"
    "// so the difference wraps far above 2)\n"
    "EM_D int em_fl(unsigned f, unsigned eb) { return f - eb <= 2u ? (int)(f - eb) : 0; }\n"
    "#if EM_WARP_LB\n"
    "EM_D em_scan_acc em_shdn(em_scan_acc v, int d) {\n"
    "    unsigned u[(sizeof(em_scan_acc) + 3) / 4] = {};\n"
    "    unsigned char *ub = (unsigned char *)u, *vb = (unsigned char *)&v;\n"
    "#pragma unroll\n"
    "    for (int k = 0; k < (int)sizeof v; k++) ub[k] = vb[k];\n"
    "#pragma unroll\n"
    "    for (int k = 0; k < (int)(sizeof u / 4); k++) u[k] = __shfl_down_sync(0xffffffffu, u[k], d);\n"
    "#pragma unroll\n"
    "    for (int k = 0; k < (int)sizeof v; k++) vb[k] = ub[k];\n"
    "    return v;\n"
    "}\n"
    "#ifndef EM_LBQ\n#define EM_LBQ 1\n#endif\n"
    "EM_D em_scan_acc em_lookback(long long b, long long ls, EM_ST_ARGS) {\n"
    "    const int lane = ${tid} & 31;\n"
    "    em_scan_acc c = ${zero};\n"
    "    bool got = false;\n"
    "    for (long long j0 = b - 1 - lane;; j0 -= 32 * EM_LBQ) {\n"
    "        // lane k reads tiles j0 - 32q (window q): EM_LBQ loads in flight\n"
    "        int f[EM_LBQ], q2;\n"
    "        unsigned two;\n"
    "#if EM_PACK\n"
    "        unsigned long long w[EM_LBQ];\n"
    "#endif\n"
    "        for (;;) {\n"
    "#pragma unroll\n"
    "            for (int q = 0; q < EM_LBQ; q++) {\n"
    "                const long long j = j0 - 32 * q;\n"
    "#if EM_PACK\n"
    "                w[q] = j >= ls ? st[j] : 0ULL; // before the line: never reached\n"
    "                f[q] = j >= ls ? em_fl((unsigned)(w[q] >> 32), eb) : 2;\n"
    "#else\n"
    "                f[q] = j >= ls ? em_fl((unsigned)flag[j], eb) : 2; // before the line: never reached (ls holds 2)\n"
    "#endif\n"
    "            }\n"
    "            // The nearest inclusive prefix: window q2, lane __ffs(two) - 1 (q2 == EM_LBQ:\n"
    "            // none); every tile nearer than it must have published its total.\n"
    "            bool wait = false;\n"
    "            q2 = EM_LBQ, two = 0;\n"
    "#pragma unroll\n"
    "            for (int q = 0; q < EM_LBQ; q++) {\n"
    "                const unsigned t2 = __ballot_sync(0xffffffffu, f[q] == 2);\n"
    "                const unsigned z = __ballot_sync(0xffffffffu, f[q] == 0);\n"
    "                if (q < q2) {\n"
    "                    if (z & (t2 ? (t2 & (0u - t2)) - 1 : 0xffffffffu)) wait = true;\n"
    "                    if (t2) q2 = q, two = t2;\n"
    "                }\n"
    "            }\n"
    "            if (!wait) break;\n"
    "        }\n"
    "#if !EM_PACK\n"
    "        __threadfence(); // the values after their flags\n"
    "#endif\n"
    "        // This lane's tiles up to the inclusive one, the farther first; the lanes\n"
    "        // holding any are 0 .. nl - 1.\n"
    "        const int cnt = two ? __ffs(two) : 32, nl = q2 > 0 ? 32 : cnt;\n"
    "        em_scan_acc v = ${zero};\n"
    "        bool g = false;\n"
    "#pragma unroll\n"
    "        for (int q = EM_LBQ - 1; q >= 0; q--)\n"
    "            if (q < q2 || (q == q2 && lane < cnt)) {\n"
    "#if EM_PACK\n"
    "                const em_scan_acc x = em_unpk(w[q]);\n"
    "#else\n"
    "                const em_scan_acc x = em_vld(f[q] == 2 ? inc + (j0 - 32 * q) : agg + (j0 - 32 * q));\n"
    "#endif\n"
    "                v = g ? em_op(v, x) : x, g = true;\n"
    "            }\n"
    "        // lane k folds lanes k .. nl - 1, the higher (earlier tiles) first\n"
    "#pragma unroll\n"
    "        for (int off = 1; off < 32; off <<= 1) {\n"
    "            const em_scan_acc o = em_shdn(v, off);\n"
    "            if (lane + off < nl) v = em_op(o, v);\n"
    "        }\n"
    "        c = got ? em_op(v, c) : v;\n"
    "        got = true;\n"
    "        if (q2 < EM_LBQ) break;\n"
    "    }\n"
    "    return c;\n"
    "}\n"
    "#endif\n";

/* The single pass (CUDA only, run_scan.c's 'T' with onepass): decoupled look-back.
 * part holds a ticket counter (16 bytes), one flag per tile (int, 0 = nothing yet,
 * 1 = the tile's total in agg, 2 = the line's inclusive prefix through the tile in
 * inc), then agg[units] and inc[units]; the host zeroes counter and flags (packed:
 * the counter, then st[units], one word a tile, em__status_text), or keeps a
 * packed area between calls (run_scan.c's em__cached_launch): flags carry the
 * call's epoch (em_fl) and the last ticket's block zeroes the counter.  Tiles
 * are taken in ticket order (an atomic counter, not blockIdx), so a block waits only
 * on tiles whose blocks already run and never wait on later ones: CUDA's resident
 * blocks make progress, so the wait ends.  OpenCL keeps the three kernels: neither
 * OpenCL 1.2 nor PoCL promises that one work-group progresses while another spins
 * (OpenCL 2.x leaves independent forward progress optional), so a spin may hang. */
static const char em__vld_text[] =
    "// A value another block wrote after a fence: through L2 (__ldcg), never a stale\n"
    "// L1 line (a neighbour in the same line may have been read before it was written).\n"
    "EM_D em_scan_acc em_vld(const em_scan_acc *q) {\n"
    "    em_scan_acc r;\n"
    "    if (sizeof(r) % 8 == 0)\n"
    "        for (unsigned k = 0; k < sizeof(r) / 8; k++)\n"
    "            ((unsigned long long *)&r)[k] = __ldcg((const unsigned long long *)q + k);\n"
    "    else if (sizeof(r) == 4) *(unsigned *)&r = __ldcg((const unsigned *)q);\n"
    "    else if (sizeof(r) == 2) *(unsigned short *)&r = __ldcg((const unsigned short *)q);\n"
    "    else *(unsigned char *)&r = __ldcg((const unsigned char *)q);\n"
    "    return r;\n"
    "}\n"
    "// The next tile's ticket.  Every block takes tickets until one passes the last\n"
    "// tile, so the grid takes units + gdim in all; the block that takes the last one\n"
    "// zeroes the counter for the next call (no block touches it after that).\n"
    "EM_D long long em_ticket(unsigned long long *ctr, long long units) {\n"
    "    const unsigned long long t = atomicAdd(ctr, 1ULL);\n"
    "    if (t == (unsigned long long)units + ${gdim} - 1) *ctr = 0;\n"
    "    return (long long)t;\n"
    "}\n";

void em_scan_lookback_text(em_sbuf *t, int lbq) {
    em_sbuf_printf(t, "#define EM_WARP_LB 1\n#define EM_LBQ %d\n#define EM_PACK 1\n%s%s",
                   lbq > 0 && lbq <= 16 ? lbq : EM_SCAN_LBQ, em__vld_text, em__status_text);
}

static const char em__onepass_kernel[] =
    "#ifndef EM_LB_HOLD\n#define EM_LB_HOLD(b) 0\n#endif\n"
    "${kernel(EM_B)} " EM_SCAN_ONE "(${params}) {\n${prologue}"
    "    ${shared} em_scan_acc s[EM_P(EM_T)], tot[EM_B];\n"
    "    ${shared} long long tk;\n"
    "    ${shared} em_scan_acc carry;\n"
    "    const long long units = p.nlines * p.ntiles;\n"
    "    unsigned long long *ctr = (unsigned long long *)p.part;\n"
    "    EM_STATUS;\n"
    "    for (;;) {\n"
    "        if (${tid} == 0) tk = em_ticket(ctr, units);\n"
    "        ${sync};\n"
    "        const long long b = tk; // block-uniform: every barrier below is reached by all\n"
    "        if (b >= units) break;\n"
    "        EM_TILE(b)\n"
    "        const em_scan_acc r = em_tile_scan(s, tot, m, false, ${zero}, true);\n"
    "        const bool has = t0 > 0;\n"
    "        // Publish first (the total, or the prefix for a line's first tile) so that\n"
    "        // later tiles can pass this one while it looks back.\n"
    "        if (${tid} == 0) EM_PUB(b, has ? 1 : 2, r);\n"
    "        // c = T[j] (+) ... (+) T[b - 1], folded from the nearest tile back until one\n"
    "        // holds its inclusive prefix (the line's first tile does); thread 0 gets it.\n"
    "        em_scan_acc c = ${zero};\n"
    "#if EM_WARP_LB\n"
    "        // Warp 0 looks back over 32 tiles at a time (em_lookback).\n"
    "        if (has && ${tid} < 32) c = em_lookback(b, l * p.ntiles, EM_ST);\n"
    "#else\n"
    "        if (has && ${tid} == 0) {\n"
    "            bool got = false;\n"
    "            for (long long j = b - 1;; j--) {\n"
    "                int f;\n"
    "                while ((f = em_fl((unsigned)flag[j], eb)) == 0) {\n"
    "                }\n"
    "                __threadfence(); // the value after its flag\n"
    "                const em_scan_acc v = em_vld(f == 2 ? inc + j : agg + j);\n"
    "                c = got ? em_op(v, c) : v;\n"
    "                got = true;\n"
    "                if (f == 2) break;\n"
    "            }\n"
    "        }\n"
    "#endif\n"
    "        if (has && ${tid} == 0) {\n"
    "            // EM_LB_HOLD: the host emulation (tests/c/scan_emul.h) leaves some tiles\n"
    "            // at their total, so that later tiles walk back over several.\n"
    "            if (!EM_LB_HOLD(b)) EM_PUB(b, 2, em_op(c, r));\n"
    "            carry = c;\n"
    "        }\n"
    "        ${sync}; // carry is set\n"
    "        const ${ll} bo = em_base(p, l, p.ost);\n"
    "        if (has) {\n"
    "            const em_scan_acc k = carry;\n"
    "            for (int j = ${tid}; j < m; j += EM_B)\n"
    "                *em_dst(p, bo, t0 + j) = em_store(em_op(k, s[EM_P(j)]));\n"
    "        } else {\n"
    "            for (int j = ${tid}; j < m; j += EM_B) *em_dst(p, bo, t0 + j) = em_store(s[EM_P(j)]);\n"
    "        }\n"
    "    }\n"
    "}\n";

/* The single pass with the tile in registers (em_scan_spec.regs), in place of
 * em__onepass_kernel: no shared-memory copy of the tile.  Thread (warp w,
 * lane) holds EM_R rows of EM_V consecutive elements: row r's vector starts
 * at element w * 32 * EM_K + r * 32 * EM_V + lane * EM_V of the tile, so a
 * warp's row is 32 * EM_V consecutive elements and one 16-byte load a thread
 * (EM_VIN: every line contiguous and every tile aligned, checked by the host)
 * fetches it coalesced; all EM_K elements are loaded before the first is
 * used.  A row is scanned in the thread, then over the warp by shuffles; the
 * rows' totals carry down the warp's rows, the warps' totals through shared
 * memory after one barrier, the tile's prefix from the look-back
 * (em_lookback).  As in the other forms only lower elements' values are
 * combined into an element, and no identity: elements past the tile's end
 * hold zero, but they are its last, so no kept value folds them.  The tile is
 * the ticket counter's (EM_BYBLOCK: the block index, CUB's way, which relies
 * on blocks starting in index order; for A/B only). */
static const char em__regs_text[] =
    "#ifndef EM_LB_HOLD\n#define EM_LB_HOLD(b) 0\n#endif\n"
    "#define EM_R (EM_K / EM_V)\n"
    "#define EM_RT (32 * EM_V) // a warp's row\n"
    "// A vector moves as one word of its size (a struct of float16s loaded whole\n"
    "// stops NVCC's code generator), its elements read through the union.\n"
    "union em_vin { EM_VIW w; em_scan_in v[EM_V]; };\n"
    "union em_vout { EM_VOW w; em_scan_out v[EM_V]; };\n"
    "EM_D em_scan_acc em_shix(em_scan_acc v, int k) {\n"
    "    unsigned u[(sizeof(em_scan_acc) + 3) / 4] = {};\n"
    "    unsigned char *ub = (unsigned char *)u, *vb = (unsigned char *)&v;\n"
    "#pragma unroll\n"
    "    for (int q = 0; q < (int)sizeof v; q++) ub[q] = vb[q];\n"
    "#pragma unroll\n"
    "    for (int q = 0; q < (int)(sizeof u / 4); q++) u[q] = __shfl_sync(0xffffffffu, u[q], k);\n"
    "#pragma unroll\n"
    "    for (int q = 0; q < (int)sizeof v; q++) vb[q] = ub[q];\n"
    "    return v;\n"
    "}\n"
    "${kernel(EM_B)} " EM_SCAN_ONE "(${params}) {\n${prologue}"
    "    ${shared} em_scan_acc wt[EM_B / 32];\n"
    "    ${shared} long long tk;\n"
    "    ${shared} em_scan_acc carry;\n"
    "    const int i = ${tid}, lane = i & 31, w = i >> 5, e0 = w * 32 * EM_K + lane * EM_V;\n"
    "    const long long units = p.nlines * p.ntiles;\n"
    "    unsigned long long *ctr = (unsigned long long *)p.part;\n"
    "    EM_STATUS;\n"
    "    for (long long bb = ${bid};; bb += ${gdim}) {\n"
    "#if EM_BYBLOCK\n"
    "        const long long b = bb;\n"
    "#else\n"
    "        if (i == 0) tk = em_ticket(ctr, units);\n"
    "        ${sync};\n"
    "        const long long b = tk; // block-uniform: every barrier below is reached by all\n"
    "#endif\n"
    "        if (b >= units) break;\n"
    "        const ${ll} l = b / p.ntiles, t0 = (b - l * p.ntiles) * EM_T;\n"
    "        const int m = p.len - t0 < EM_T ? (int)(p.len - t0) : EM_T;\n"
    "        const ${ll} bi = em_base(p, l, p.ist);\n"
    "        em_scan_acc x[EM_K];\n"
    "        if (EM_VIN && m == EM_T) {\n"
    "            em_vin u[EM_R];\n"
    "#pragma unroll\n"
    "            for (int r = 0; r < EM_R; r++)\n"
    "                u[r].w = *(const EM_VIW *)em_src(p, bi, t0 + e0 + r * EM_RT);\n"
    "#pragma unroll\n"
    "            for (int r = 0; r < EM_R; r++)\n"
    "#pragma unroll\n"
    "                for (int v = 0; v < EM_V; v++) x[r * EM_V + v] = em_load(u[r].v[v]);\n"
    "        } else {\n"
    "            em_scan_in u[EM_K];\n"
    "#pragma unroll\n"
    "            for (int r = 0; r < EM_R; r++)\n"
    "#pragma unroll\n"
    "                for (int v = 0; v < EM_V; v++)\n"
    "                    if (e0 + r * EM_RT + v < m) u[r * EM_V + v] = *em_src(p, bi, t0 + e0 + r * EM_RT + v);\n"
    "#pragma unroll\n"
    "            for (int r = 0; r < EM_R; r++)\n"
    "#pragma unroll\n"
    "                for (int v = 0; v < EM_V; v++)\n"
    "                    x[r * EM_V + v] = e0 + r * EM_RT + v < m ? em_load(u[r * EM_V + v]) : ${zero};\n"
    "        }\n"
    "        // pre[r] (when gp[r]): the fold of the warp's elements before this thread's row r\n"
    "        em_scan_acc pre[EM_R], run = ${zero};\n"
    "        bool gp[EM_R], got = false;\n"
    "#pragma unroll\n"
    "        for (int r = 0; r < EM_R; r++) {\n"
    "#pragma unroll\n"
    "            for (int v = 1; v < EM_V; v++) x[r * EM_V + v] = em_op(x[r * EM_V + v - 1], x[r * EM_V + v]);\n"
    "            em_scan_acc t = x[r * EM_V + EM_V - 1];\n"
    "#pragma unroll\n"
    "            for (int off = 1; off < 32; off <<= 1) {\n"
    "                const em_scan_acc o = em_shup(t, off);\n"
    "                if (lane >= off) t = em_op(o, t);\n"
    "            }\n"
    "            const em_scan_acc ex = em_shup(t, 1), rt = em_shix(t, 31);\n"
    "            pre[r] = lane > 0 ? (got ? em_op(run, ex) : ex) : run;\n"
    "            gp[r] = lane > 0 || got;\n"
    "            run = got ? em_op(run, rt) : rt;\n"
    "            got = true;\n"
    "        }\n"
    "        if (lane == 0) wt[w] = run;\n"
    "        ${sync}; // wt is written\n"
    "        em_scan_acc wp = ${zero}; // warps before this one\n"
    "        bool gw = false;\n"
    "        for (int q = 0; q < w; q++) wp = gw ? em_op(wp, wt[q]) : wt[q], gw = true;\n"
    "        const bool has = t0 > 0;\n"
    "        em_scan_acc tot = wt[0];\n"
    "        if (i == 0) {\n"
    "            for (int q = 1; q < EM_B / 32; q++) tot = em_op(tot, wt[q]);\n"
    "            // Publish first (the total, or the prefix for a line's first tile) so that\n"
    "            // later tiles can pass this one while it looks back.\n"
    "            EM_PUB(b, has ? 1 : 2, tot);\n"
    "        }\n"
    "        em_scan_acc c = ${zero};\n"
    "        if (has && w == 0) c = em_lookback(b, l * p.ntiles, EM_ST);\n"
    "        if (has && i == 0) {\n"
    "            if (!EM_LB_HOLD(b)) EM_PUB(b, 2, em_op(c, tot));\n"
    "            carry = c;\n"
    "        }\n"
    "        ${sync}; // carry is set; wt is read\n"
    "        em_scan_acc tp = ${zero};\n"
    "        bool gt = has;\n"
    "        if (has) tp = carry;\n"
    "        if (gw) tp = gt ? em_op(tp, wp) : wp, gt = true;\n"
    "        const ${ll} bo = em_base(p, l, p.ost);\n"
    "#pragma unroll\n"
    "        for (int r = 0; r < EM_R; r++) {\n"
    "            em_scan_acc q = tp;\n"
    "            bool g = gt;\n"
    "            if (gp[r]) q = g ? em_op(q, pre[r]) : pre[r], g = true;\n"
    "            if (g)\n"
    "#pragma unroll\n"
    "                for (int v = 0; v < EM_V; v++) x[r * EM_V + v] = em_op(q, x[r * EM_V + v]);\n"
    "        }\n"
    "        if (EM_VOUT && m == EM_T) {\n"
    "#pragma unroll\n"
    "            for (int r = 0; r < EM_R; r++) {\n"
    "                em_vout o;\n"
    "#pragma unroll\n"
    "                for (int v = 0; v < EM_V; v++) o.v[v] = em_store(x[r * EM_V + v]);\n"
    "                *(EM_VOW *)em_dst(p, bo, t0 + e0 + r * EM_RT) = o.w;\n"
    "            }\n"
    "        } else {\n"
    "#pragma unroll\n"
    "            for (int r = 0; r < EM_R; r++)\n"
    "#pragma unroll\n"
    "                for (int v = 0; v < EM_V; v++)\n"
    "                    if (e0 + r * EM_RT + v < m) *em_dst(p, bo, t0 + e0 + r * EM_RT + v) = em_store(x[r * EM_V + v]);\n"
    "        }\n"
    "    }\n"
    "}\n";

em_status em_render_scan(const em_dialect *d, const em_scan_spec *c, em_sbuf *src) {
    if (!d->kernel || !d->bounds || d->id == EM_DIALECT_C)
        return em_error(EM_EUNSUPPORTED, "scans are not rendered for %s", d->name);
    if (c->op != EM_RED_CUMSUM && c->op != EM_RED_CUMPROD)
        return em_error(EM_EVALUE, "scan supports cumsum and cumprod, got reduction %d",
                        (int)c->op);
    if (c->nd < 1 || c->nd > EM_MAXDIMS || c->axis >= c->nd)
        return em_error(
            EM_EVALUE,
            "scan of %d dimensions along axis %d: need 1 <= dimensions <= %d and axis < dimensions",
            c->nd, c->axis, EM_MAXDIMS);
    if ((unsigned)c->in >= EM_NDTYPES || (unsigned)c->out >= EM_NDTYPES)
        return em_error(EM_ETYPE, "invalid dtype for a scan");
    if (c->onepass && (!c->tiles || d->id != EM_DIALECT_CUDA))
        return em_error(EM_EUNSUPPORTED, "the single-pass scan is CUDA's (tile kernels only)");
    if (c->regs && c->onepass && !c->warp)
        return em_error(EM_EUNSUPPORTED, "the registers' single pass needs the warp form");
    if (c->warp && (!c->tiles || d->id != EM_DIALECT_CUDA))
        return em_error(EM_EUNSUPPORTED, "the warp-shuffle scan is CUDA's (tile kernels only)");
    if (c->tiles && c->out == EM_FLOAT16)
        return em_error(EM_EUNSUPPORTED,
                        "float16 scans round every partial sum (NumPy's order): no tile kernels");
    em_sbuf t = {0}; /* the template, expanded into src */
    em_sbuf_printf(src, "%s\n// %s of %s -> %s, %s\n", d->prelude,
                   c->op == EM_RED_CUMPROD ? "cumprod" : "cumsum", em_dtype_get(c->in)->name,
                   em_dtype_get(c->out)->name, c->tiles ? "tiles" : "one thread per line");
    em__scan_defs(d, c, &t);
    /* Phase 1's tree only where the op is exact in any order (integers wrap). */
    if (c->tiles)
        em_sbuf_printf(&t, "#define EM_UP_TREE %d\n",
                       strchr("iub", em_dtype_get(c->out)->kind) != NULL);
    const bool warp = c->tiles && c->warp, regs = c->onepass && c->regs;
    if (c->tiles)
        em_sbuf_printf(&t, "%s%s", warp ? em__warp_text : em__tile_scan_generic,
                       regs ? "" : em__tile_kernels);
    else
        em_sbuf_printf(&t, "%s", em__line_kernel);
    if (regs) {
        int b, v, k;
        em_scan_regs_shape(c, &b, &v, &k);
        static const char *const word[17] = {[1] = "unsigned char",
                                             [2] = "unsigned short",
                                             [4] = "unsigned",
                                             [8] = "uint2",
                                             [16] = "uint4"};
        em_sbuf_printf(&t, "#define EM_V %d\n#define EM_VIW %s\n#define EM_VOW %s\n", v,
                       word[v * em_dtype_get(c->in)->size], word[v * em_dtype_get(c->out)->size]);
        em_sbuf_printf(&t, "#define EM_VIN %d\n#define EM_VOUT %d\n#define EM_BYBLOCK %d\n", c->vin,
                       c->vout, c->byblock);
    }
    if (c->onepass)
        em_sbuf_printf(&t, "#define EM_LBQ %d\n#define EM_PACK %d\n%s%s%s", em__lbq(c),
                       em_scan_packed(c), em__vld_text, em__status_text,
                       regs ? em__regs_text : em__onepass_kernel);
    em_tfield f[10];
    int nf = em__scan_fields(c, f);
    const char *const extra[] = {
        "zero", d->id == EM_DIALECT_CUDA ? "em_scan_acc()" : "em_scan_zero()", NULL};
    return em_tmpl_finish(d, f, nf, &t, extra, src);
}
