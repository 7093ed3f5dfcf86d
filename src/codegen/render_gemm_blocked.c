/* The register-blocked real matrix product for OpenCL (render_gemm.h):
 * float32 and float64 products, where the generic kernel of render_gemm.c
 * (4 x 4 blocks, scalar local reads, mul then add) ran at a quarter of
 * cuBLAS on the H100.  Each of the 256 items of a work-group keeps an
 * EM_TM x EM_TN block of the result in registers; the group's tile is
 * (16 EM_TM) x (16 EM_TN) and k advances EM_BK at a time through two
 * local-memory buffers per operand: while the items multiply out of one,
 * their loads of the next step are in flight into registers, and go to the
 * other buffer after, so one barrier a step suffices.  Local reads are
 * vectors (float4 / double2: one wide load feeds EM_VW rows or columns),
 * and the item's rows are strided by 16 vectors so that the 16 items of a
 * row of the group read 16 consecutive vectors of B (no bank conflicts)
 * and one vector of A (a broadcast).  Products accumulate with fma: half
 * the instructions of a multiply and an add (FP_CONTRACT is off in every
 * Ember kernel, so a * b + c would not fuse), as BLAS libraries do.
 *
 * The barriers fence local memory alone (the dialect's ${sync} fences global
 * memory too, which a step's exchange does not need).
 *
 * Operands are read through element strides held in 32-bit ints (the host
 * checks that every offset fits), the batch offset in 64 bits.  Loads past
 * the edges read zeros; stores test.  The argument is render_gemm.c's. */
#include "codegen/render_gemm.h"
#include "codegen/tmpl.h"

#include <stdio.h>

/* Setup, the first step's loads, the k loop around the multiply text that
 * the renderer writes (EM_MICRO), and the stores. */
static const char em__blk_head[] =
    "${kernel(256)} " EM_KNAME "(${params}) {\n${prologue}"
    "    ${shared} em_v As[2][EM_BK][EM_AW];\n"
    "    ${shared} em_v Bs[2][EM_BK][EM_BW];\n"
    "    ${local}em_t *as = (${local}em_t *)As, *bs = (${local}em_t *)Bs;\n"
    "    const int t = (int)${tid}, tx = t % 16, ty = t / 16;\n"
    "    const int M = (int)p.m, N = (int)p.n, K = (int)p.k;\n"
    "    const int sa0 = (int)p.sa0, sa1 = (int)p.sa1, sb0 = (int)p.sb0, sb1 = (int)p.sb1;\n"
    "    const ${ll} tn = (p.n + EM_BN - 1) / EM_BN, tm = (p.m + EM_BM - 1) / EM_BM;\n"
    "    for (${ll} g0 = ${bid}; g0 < p.ntiles; g0 += ${gdim}) {\n"
    "        ${ll} g = g0;\n"
    "        const int bj = (int)(g % tn) * EM_BN; g /= tn;\n"
    "        const int bi = (int)(g % tm) * EM_BM; g /= tm;\n"
    "        ${ll} ao = 0, bo = 0, r = g;\n"
    "        for (int d = EM_NB - 1; d >= 0; d--) {\n"
    "            const ${ll} c = r % p.bshape[d]; r /= p.bshape[d];\n"
    "            ao += c * p.bsa[d]; bo += c * p.bsb[d];\n"
    "        }\n"
    "        ${global}const em_t *A = (${global}const em_t *)p.a + ao;\n"
    "        ${global}const em_t *B = (${global}const em_t *)p.b + bo;\n"
    "        ${global}em_t *C = (${global}em_t *)p.out + g * p.m * p.n;\n"
    "        em_t ra[EM_LA], rb[EM_LB];\n"
    "        EM_DECL_ACC\n"
    "        EM_FETCH(0);\n"
    "        EM_PUT(0);\n"
    "        barrier(CLK_LOCAL_MEM_FENCE);\n"
    "        int buf = 0;\n"
    "        for (int k0 = 0; k0 < K; k0 += EM_BK) {\n"
    "            const int more = k0 + EM_BK < K;\n"
    "            if (more) EM_FETCH(k0 + EM_BK);\n"
    "#pragma unroll\n"
    "            for (int kk = 0; kk < EM_BK; kk++) {\n";

static const char em__blk_tail[] = "            }\n"
                                   "            if (more) EM_PUT(buf ^ 1);\n"
                                   "            barrier(CLK_LOCAL_MEM_FENCE);\n"
                                   "            buf ^= 1;\n"
                                   "        }\n"
                                   "        EM_STORE_ACC\n"
                                   "    }\n"
                                   "}\n";

/* One step's loads into registers (zeros past the edges) and their stores
 * into buffer b_ of the local tiles; l is the item's element of the tile. */
static const char em__blk_moves[] =
    "#define EM_FETCH(k0_) do { \\\n"
    "    for (int j = 0; j < EM_LA; j++) { \\\n"
    "        const int l = t + 256 * j, i = bi + EM_AI, kq = (k0_) + EM_AK; \\\n"
    "        ra[j] = i < M && kq < K ? A[i * sa0 + kq * sa1] : (em_t)0; \\\n"
    "    } \\\n"
    "    for (int j = 0; j < EM_LB; j++) { \\\n"
    "        const int l = t + 256 * j, i = bj + EM_BJ, kq = (k0_) + EM_BK_; \\\n"
    "        rb[j] = i < N && kq < K ? B[kq * sb0 + i * sb1] : (em_t)0; \\\n"
    "    } \\\n"
    "} while (0)\n"
    "#define EM_PUT(b_) do { \\\n"
    "    for (int j = 0; j < EM_LA; j++) { \\\n"
    "        const int l = t + 256 * j; \\\n"
    "        as[((b_) * EM_BK + EM_AK) * EM_AW * EM_VW + EM_AI] = ra[j]; \\\n"
    "    } \\\n"
    "    for (int j = 0; j < EM_LB; j++) { \\\n"
    "        const int l = t + 256 * j; \\\n"
    "        bs[((b_) * EM_BK + EM_BK_) * EM_BW * EM_VW + EM_BJ] = rb[j]; \\\n"
    "    } \\\n"
    "} while (0)\n";

bool em_gemm_blocked_ok(const em_gemm_tile *tl) {
    const int vw = tl->vw;
    return (vw == 2 || vw == 4) && tl->tm >= vw && tl->tm <= 8 && tl->tm % vw == 0 &&
           tl->tn >= vw && tl->tn <= 8 && tl->tn % vw == 0 && tl->bk >= 4 && tl->bk <= 32 &&
           (tl->tm * tl->bk) % 16 == 0 && (tl->tn * tl->bk) % 16 == 0;
}

size_t em_gemm_blocked_local(const em_gemm_tile *tl, size_t elsize) {
    /* Two buffers of EM_BK rows of 16 EM_TM (+ one vector of padding) per operand. */
    return 2 * (size_t)tl->bk * (size_t)(16 * tl->tm + 16 * tl->tn + 2 * tl->vw) * elsize;
}

em_status em_render_gemm_blocked(const em_dialect *d, em_dtype dt, int nb, bool a_kfast,
                                 bool b_nfast, const em_gemm_tile *tl, em_sbuf *out) {
    if (d->id != EM_DIALECT_OPENCL || (dt != EM_FLOAT32 && dt != EM_FLOAT64) ||
        !em_gemm_blocked_ok(tl))
        return em_error(EM_EUNSUPPORTED, "the blocked matmul is OpenCL's, float32/64 alone");
    const int tm = tl->tm, tn = tl->tn, bk = tl->bk, vw = tl->vw;
    const char *ct = dt == EM_FLOAT32 ? "float" : "double";
    em_tfield f[EM_GEMM_NFIELDS];
    em_gemm_fields(f, nb);
    const int nf = EM_GEMM_NFIELDS;
    em_sbuf t = {0}; /* the template, expanded into out */
    em_sbuf_printf(out, "%s\n", d->prelude);
    em_tmpl_args_types(d, f, nf, &t);
    em_sbuf_printf(&t, "typedef %s em_t;\ntypedef %s%d em_v;\n", ct, ct, vw);
    em_sbuf_printf(&t,
                   "#define EM_TM %d\n#define EM_TN %d\n#define EM_BK %d\n#define EM_VW %d\n"
                   "#define EM_NB %d\n#define EM_BM (16 * EM_TM)\n#define EM_BN (16 * EM_TN)\n"
                   "#define EM_AW (EM_BM / EM_VW + 1)\n#define EM_BW (EM_BN / EM_VW + 1)\n"
                   "#define EM_LA (EM_BM * EM_BK / 256)\n#define EM_LB (EM_BN * EM_BK / 256)\n",
                   tm, tn, bk, vw, nb);
    /* Element l of a tile load: neighbouring items take neighbouring
     * addresses of the operand's smaller stride (coalesced reads). */
    em_sbuf_printf(&t, "#define EM_AI %s\n#define EM_AK %s\n",
                   a_kfast ? "(l / EM_BK)" : "(l % EM_BM)",
                   a_kfast ? "(l % EM_BK)" : "(l / EM_BM)");
    em_sbuf_printf(&t, "#define EM_BJ %s\n#define EM_BK_ %s\n",
                   b_nfast ? "(l % EM_BN)" : "(l / EM_BK)",
                   b_nfast ? "(l / EM_BN)" : "(l % EM_BK)");
    em_sbuf_printf(&t, "%s", em__blk_moves);
    /* The accumulators c<i>_<w>: row i of the item's block, column vector w;
     * item rows (ty + 16 v) EM_VW + c for vector v, component c (columns alike). */
    const char *comp = "0123";
    em_sbuf_printf(&t, "#define EM_DECL_ACC");
    for (int i = 0; i < tm; i++)
        for (int w = 0; w < tn / vw; w++) em_sbuf_printf(&t, " em_v c%d_%d = (em_v)0;", i, w);
    em_sbuf_printf(&t, "\n#define EM_STORE_ACC");
    for (int i = 0; i < tm; i++) {
        em_sbuf_printf(&t, " { const int gi = bi + (ty + %d) * %d + %d; if (gi < M) {",
                       16 * (i / vw), vw, i % vw);
        for (int w = 0; w < tn / vw; w++)
            for (int c = 0; c < vw; c++)
                em_sbuf_printf(&t,
                               " { const int gj = bj + (tx + %d) * %d + %d;"
                               " if (gj < N) C[(${ll})gi * N + gj] = c%d_%d.s%c; }",
                               16 * w, vw, c, i, w, comp[c]);
        em_sbuf_printf(&t, " } }");
    }
    em_sbuf_printf(&t, "\n%s", em__blk_head);
    /* One kk: the item's vectors of A and B, then its tm x tn fmas. */
    for (int v = 0; v < tm / vw; v++)
        em_sbuf_printf(&t, "                const em_v a%d = As[buf][kk][ty + %d];\n", v, 16 * v);
    for (int w = 0; w < tn / vw; w++)
        em_sbuf_printf(&t, "                const em_v b%d = Bs[buf][kk][tx + %d];\n", w, 16 * w);
    for (int i = 0; i < tm; i++)
        for (int w = 0; w < tn / vw; w++)
            em_sbuf_printf(&t, "                c%d_%d = fma((em_v)(a%d.s%c), b%d, c%d_%d);\n", i,
                           w, i / vw, comp[i % vw], w, i, w);
    em_sbuf_printf(&t, "%s", em__blk_tail);
    return em_tmpl_finish(d, f, nf, &t, NULL, out);
}
