/* The tiled matrix product (render_gemm.h): one template (codegen/tmpl.h)
 * for every dialect that compiles kernels. */
#include "codegen/render_gemm.h"
#include "codegen/tmpl.h"

#include <stdio.h>

int em_gemm_rblock(em_dtype dt) { return dt == EM_COMPLEX128 ? 2 : 4; }

/* Tiles As[k][i] and Bs[k][j], padded by one against bank conflicts.  The
 * tile loads zero-fill past the edges, so the inner loop has no tests; the
 * stores test.  The group loop strides by the grid, so any batch fits. */
static const char em__gemm_body[] =
    "${kernel(256)} " EM_KNAME "(${params}) {\n${prologue}"
    "    ${shared} em_t As[16][EM_GT + 1];\n"
    "    ${shared} em_t Bs[16][EM_GT + 1];\n"
    "    const int t = (int)${tid}, tx = t % 16, ty = t / 16;\n"
    "    const ${ll} tn = (p.n + EM_GT - 1) / EM_GT, tm = (p.m + EM_GT - 1) / EM_GT;\n"
    "    for (${ll} g0 = ${bid}; g0 < p.ntiles; g0 += ${gdim}) {\n"
    "        ${ll} g = g0;\n"
    "        const ${ll} bj = g % tn; g /= tn;\n"
    "        const ${ll} bi = g % tm; g /= tm;\n"
    "        ${ll} ao = 0, bo = 0, r = g;\n"
    "        for (int d = EM_NB - 1; d >= 0; d--) {\n"
    "            const ${ll} c = r % p.bshape[d]; r /= p.bshape[d];\n"
    "            ao += c * p.bsa[d]; bo += c * p.bsb[d];\n"
    "        }\n"
    "        ${global}const char *A = p.a + ao;\n"
    "        ${global}const char *B = p.b + bo;\n"
    "        ${global}em_st *C = (${global}em_st *)p.out + g * p.m * p.n;\n"
    "        em_t acc[EM_R][EM_R];\n"
    "        for (int i = 0; i < EM_R; i++)\n"
    "            for (int j = 0; j < EM_R; j++) acc[i][j] = EM_ZERO;\n"
    "        for (${ll} k0 = 0; k0 < p.k; k0 += 16) {\n"
    "            for (int l = t; l < 16 * EM_GT; l += 256) {\n"
    "                const int i = EM_AI, kk = EM_AK;\n"
    "                const ${ll} gi = bi * EM_GT + i, gk = k0 + kk;\n"
    "                As[kk][i] = gi < p.m && gk < p.k ?"
    " EM_LOAD(A + gi * p.sa0 + gk * p.sa1) : EM_ZERO;\n"
    "            }\n"
    "            for (int l = t; l < 16 * EM_GT; l += 256) {\n"
    "                const int j = EM_BJ, kk = EM_BK;\n"
    "                const ${ll} gj = bj * EM_GT + j, gk = k0 + kk;\n"
    "                Bs[kk][j] = gj < p.n && gk < p.k ?"
    " EM_LOAD(B + gk * p.sb0 + gj * p.sb1) : EM_ZERO;\n"
    "            }\n"
    "            ${sync};\n"
    "            for (int kk = 0; kk < 16; kk++) {\n"
    "                em_t av[EM_R], bv[EM_R];\n"
    "                for (int i = 0; i < EM_R; i++) av[i] = As[kk][ty + 16 * i];\n"
    "                for (int j = 0; j < EM_R; j++) bv[j] = Bs[kk][tx + 16 * j];\n"
    "                for (int i = 0; i < EM_R; i++)\n"
    "                    for (int j = 0; j < EM_R; j++)\n"
    "                        acc[i][j] = EM_ADD(acc[i][j], EM_MUL(av[i], bv[j]));\n"
    "            }\n"
    "            ${sync};\n"
    "        }\n"
    "        for (int i = 0; i < EM_R; i++)\n"
    "            for (int j = 0; j < EM_R; j++) {\n"
    "                const ${ll} gi = bi * EM_GT + ty + 16 * i, gj = bj * EM_GT + tx + 16 * j;\n"
    "                if (gi < p.m && gj < p.n) C[gi * p.n + gj] = EM_STORE(acc[i][j]);\n"
    "            }\n"
    "    }\n"
    "}\n";

void em_gemm_fields(em_tfield f[EM_GEMM_NFIELDS], int nb) {
    const em_tfield all[EM_GEMM_NFIELDS] = {
        {'p', "a", 0, 0, NULL},       {'p', "b", 0, 0, NULL},      {'p', "out", 0, 0, NULL},
        {'i', "m", 0, 0, NULL},       {'i', "n", 0, 0, NULL},      {'i', "k", 0, 0, NULL},
        {'i', "batch", 0, 0, NULL},   {'i', "ntiles", 0, 0, NULL}, {'i', "sa0", 0, 0, NULL},
        {'i', "sa1", 0, 0, NULL},     {'i', "sb0", 0, 0, NULL},    {'i', "sb1", 0, 0, NULL},
        {'i', "bshape", nb, 0, NULL}, {'i', "bsa", nb, 0, NULL},   {'i', "bsb", nb, 0, NULL}};
    for (int i = 0; i < EM_GEMM_NFIELDS; i++) f[i] = all[i];
}

em_status em_render_gemm(const em_dialect *d, em_dtype dt, int nb, bool a_kfast, bool b_nfast,
                         em_sbuf *out) {
    if (!d->kernel || !d->bounds || d->id == EM_DIALECT_C)
        return em_error(EM_EUNSUPPORTED, "matmul is not rendered for %s", d->name);
    if (dt == EM_FLOAT16) return em_error(EM_EUNSUPPORTED, "matmul has no float16 kernel");
    const char *sfx = em_scalar_suffix(dt), *ct = em_render_ctype(dt);
    const char kind = em_dtype_get(dt)->kind;
    const int r = em_gemm_rblock(dt);
    em_tfield f[EM_GEMM_NFIELDS];
    em_gemm_fields(f, nb);
    const int nf = EM_GEMM_NFIELDS;
    em_sbuf t = {0}; /* the template, expanded into out */
    em_sbuf_printf(out, "%s\n", d->prelude);
    if (d->args_struct)
        em_sbuf_printf(&t,
                       "struct em_args {\n    char *a, *b, *out;\n"
                       "    long long m, n, k, batch, ntiles, sa0, sa1, sb0, sb1;\n"
                       "    long long bshape[%d], bsa[%d], bsb[%d];\n};\n",
                       nb, nb, nb);
    else
        em_tmpl_args_types(d, f, nf, &t);
    /* Storage and compute types: bool is stored as the dialect's byte. */
    em_sbuf_printf(&t, "typedef %s em_st;\ntypedef %s em_t;\n", em_tmpl_stype(d, dt), ct);
    if (kind == 'c')
        em_sbuf_printf(&t, "#define EM_ZERO em_mk_%s(0, 0)\n", sfx);
    else
        em_sbuf_printf(&t, "#define EM_ZERO ((em_t)0)\n");
    /* No casts between equal struct types (C has none): only bool converts. */
    const char *cv = dt == EM_BOOL ? "(bool)" : "";
    em_sbuf_printf(&t, "#define EM_LOAD(p_) (%s*(${global}const em_st *)(p_))\n", cv);
    em_sbuf_printf(&t, "#define EM_STORE(v_) (%s(v_))\n", dt == EM_BOOL ? "(em_st)" : "");
    em_sbuf_printf(&t,
                   "#define EM_ADD em_add_%s\n#define EM_MUL em_multiply_%s\n"
                   "#define EM_R %d\n#define EM_GT %d\n#define EM_NB %d\n",
                   sfx, sfx, r, 16 * r, nb);
    /* Item l of a tile load: k fastest (a row-major a) or i fastest. */
    em_sbuf_printf(&t, "#define EM_AI %s\n#define EM_AK %s\n", a_kfast ? "(l / 16)" : "(l % EM_GT)",
                   a_kfast ? "(l % 16)" : "(l / EM_GT)");
    em_sbuf_printf(&t, "#define EM_BJ %s\n#define EM_BK %s\n", b_nfast ? "(l % EM_GT)" : "(l / 16)",
                   b_nfast ? "(l / EM_GT)" : "(l % 16)");
    em_sbuf_printf(&t, "%s", em__gemm_body);
    return em_tmpl_finish(d, f, nf, &t, NULL, out);
}
