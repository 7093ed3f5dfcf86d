/* The gather, scatter and nonzero kernels (render_gather.h). */
#include "codegen/render_gather.h"

static const char *em__copy_type(int size) {
    switch (size) {
    case 1: return "unsigned char";
    case 2: return "unsigned short";
    case 4: return "unsigned int";
    case 8: return "unsigned long long";
    default: return "em_b16";
    }
}

em_status em_render_gather(const em_dialect *d, const em_gather_spec *k, em_sbuf *s) {
    /* The text uses CUDA's references, atomics and warp-free barriers as
     * spelled; other dialects wait for issue 16. */
    if (d->id != EM_DIALECT_CUDA)
        return em_error(EM_EUNSUPPORTED, "the gather kernels are not rendered for %s yet", d->name);
    em_sbuf_printf(s,
                   "%s\nstruct __align__(8) em_b16 { unsigned long long lo, hi; };\n"
                   "typedef %s em_t;\n#define EM_M %d\n#define EM_NIDX %d\n#define EM_R %d\n",
                   d->prelude, em__copy_type(k->size), k->m, k->nidx, k->r);
    em_sbuf_printf(
        s,
        "struct em_args {\n    char *a, *buf;\n    const long long *ix[EM_NIDX];\n"
        "    long long *err;\n    int *win;\n    unsigned char *keep;\n"
        "    long long nb, inner, total;\n    long long ashape[EM_M], ast[EM_M], rshape[EM_R], rst[EM_R];\n};\n");
    /* Position b -> flat target in a's first m dims and its byte offset. */
    em_sbuf_printf(
        s,
        "EM_D bool em_pos(const em_args &p, long long b, long long *flat, long long *off) {\n"
        "    long long f = 0, o = 0;\n"
        "    if (EM_NIDX == 1 && EM_M > 1) {\n"
        "        long long v = p.ix[0][b];\n        if (v < 0) v += p.total;\n"
        "        if (v < 0 || v >= p.total) {\n"
        "            if (atomicCAS((unsigned long long *)p.err, 0ull, 1ull) == 0ull) {"
        " p.err[1] = p.ix[0][b]; p.err[2] = 0; p.err[3] = p.total; }\n"
        "            return false;\n        }\n        f = v;\n"
        "        for (int d = EM_M - 1; d >= 0; d--) { o += (v %% p.ashape[d]) * p.ast[d]; v /= p.ashape[d]; }\n"
        "    } else {\n"
        "        for (int d = 0; d < EM_M; d++) {\n"
        "            long long v = p.ix[EM_NIDX == 1 ? 0 : d][b], n = p.ashape[d];\n"
        "            if (v < 0) v += n;\n"
        "            if (v < 0 || v >= n) {\n"
        "                if (atomicCAS((unsigned long long *)p.err, 0ull, 1ull) == 0ull) {"
        " p.err[1] = p.ix[EM_NIDX == 1 ? 0 : d][b]; p.err[2] = d; p.err[3] = n; }\n"
        "                return false;\n            }\n"
        "            o += v * p.ast[d];\n            f = f * n + v;\n        }\n    }\n"
        "    *flat = f;\n    *off = o;\n    return true;\n}\n");
    em_sbuf_printf(
        s,
        "EM_D long long em_rest(const em_args &p, long long r) {\n"
        "    long long o = 0;\n"
        "    for (int d = EM_R - 1; d >= 0; d--) { o += (r %% p.rshape[d]) * p.rst[d]; r /= p.rshape[d]; }\n"
        "    return o;\n}\n");
    char bounds[64];
    em_sbuf_printf(s,
                   "%s %s %s(const em_args p) {\n"
                   "    const long long step = (long long)blockDim.x * gridDim.x;\n",
                   d->kernel, em_dialect_bounds(d, 256, bounds, sizeof bounds), EM_KNAME);
    switch (k->mode) {
    case EM_G_TAKE:
    case EM_G_PUT:
        em_sbuf_printf(
            s,
            "    for (long long j = blockIdx.x * (long long)blockDim.x + threadIdx.x; j < p.nb * p.inner; j += step) {\n"
            "        const long long b = j / p.inner;\n        long long f, o;\n");
        if (k->mode == EM_G_PUT) em_sbuf_printf(s, "        if (!p.keep[b]) continue;\n");
        em_sbuf_printf(
            s,
            "        if (!em_pos(p, b, &f, &o)) continue;\n        o += em_rest(p, j - b * p.inner);\n");
        em_sbuf_printf(s, k->mode == EM_G_TAKE
                              ? "        ((em_t *)p.buf)[j] = *(const em_t *)(p.a + o);\n"
                              : "        *(em_t *)(p.a + o) = ((const em_t *)p.buf)[j];\n");
        em_sbuf_printf(s, "    }\n");
        break;
    case EM_G_WIN:
    case EM_G_KEEP:
    case EM_G_DUPS:
        em_sbuf_printf(
            s,
            "    for (long long b = blockIdx.x * (long long)blockDim.x + threadIdx.x; b < p.nb; b += step) {\n"
            "        long long f, o;\n        if (!em_pos(p, b, &f, &o)) continue;\n");
        if (k->mode == EM_G_WIN)
            em_sbuf_printf(s, "        atomicMax(p.win + f, (int)b);\n");
        else if (k->mode == EM_G_KEEP)
            em_sbuf_printf(s, "        p.keep[b] = p.win[f] == (int)b;\n");
        else
            em_sbuf_printf(
                s,
                "        unsigned char last = 1;\n"
                "        for (long long c = b + 1; c < p.nb && last; c++) {\n"
                "            long long f2, o2;\n            if (em_pos(p, c, &f2, &o2) && f2 == f) last = 0;\n"
                "        }\n        p.keep[b] = last;\n");
        em_sbuf_printf(s, "    }\n");
        break;
    case EM_G_COUNT: /* a: truth (bool, C order); buf: one int64 count per tile */
        em_sbuf_printf(
            s,
            "    __shared__ long long sh[256];\n"
            "    for (long long t = blockIdx.x; t * %d < p.nb; t += gridDim.x) {\n"
            "        const long long j0 = t * %d + threadIdx.x * %d;\n        long long c = 0;\n"
            "        for (int i = 0; i < %d && j0 + i < p.nb; i++) c += ((const bool *)p.a)[j0 + i];\n"
            "        sh[threadIdx.x] = c;\n        __syncthreads();\n"
            "        for (int w = 128; w > 0; w >>= 1) { if ((int)threadIdx.x < w) sh[threadIdx.x] += sh[threadIdx.x + w]; __syncthreads(); }\n"
            "        if (threadIdx.x == 0) ((long long *)p.buf)[t] = sh[0];\n        __syncthreads();\n    }\n",
            EM_NZ_TILE, EM_NZ_TILE, EM_NZ_ITEMS, EM_NZ_ITEMS);
        break;
    case EM_G_PREFIX: /* one block: buf[0..nb) counts -> exclusive prefixes, buf[nb] = total */
        em_sbuf_printf(
            s,
            "    __shared__ long long sh[256];\n"
            "    long long *c = (long long *)p.buf;\n"
            "    const long long per = (p.nb + 255) / 256, b0 = threadIdx.x * per;\n"
            "    long long mine = 0;\n"
            "    for (long long i = b0; i < b0 + per && i < p.nb; i++) mine += c[i];\n"
            "    sh[threadIdx.x] = mine;\n    __syncthreads();\n"
            "    for (int w = 1; w < 256; w <<= 1) {\n"
            "        const long long v = (int)threadIdx.x >= w ? sh[threadIdx.x - w] : 0;\n"
            "        __syncthreads();\n        sh[threadIdx.x] += v;\n        __syncthreads();\n    }\n"
            "    long long run = sh[threadIdx.x] - mine;\n"
            "    for (long long i = b0; i < b0 + per && i < p.nb; i++) { const long long v = c[i]; c[i] = run; run += v; }\n"
            "    if (threadIdx.x == 255) c[p.nb] = sh[255];\n");
        break;
    default: /* EM_G_COORDS: a truth, buf tile prefixes, ix[0] the (nnz, m) output; C order kept */
        em_sbuf_printf(
            s,
            "    __shared__ long long sh[256];\n"
            "    for (long long t = blockIdx.x; t * %d < p.nb; t += gridDim.x) {\n"
            "        const long long j0 = t * %d + threadIdx.x * %d;\n        long long c = 0;\n"
            "        for (int i = 0; i < %d && j0 + i < p.nb; i++) c += ((const bool *)p.a)[j0 + i];\n"
            "        sh[threadIdx.x] = c;\n        __syncthreads();\n"
            "        for (int w = 1; w < 256; w <<= 1) {\n"
            "            const long long v = (int)threadIdx.x >= w ? sh[threadIdx.x - w] : 0;\n"
            "            __syncthreads();\n            sh[threadIdx.x] += v;\n            __syncthreads();\n        }\n"
            "        long long k = ((const long long *)p.buf)[t] + sh[threadIdx.x] - c;\n"
            "        for (int i = 0; i < %d && j0 + i < p.nb; i++) {\n"
            "            if (!((const bool *)p.a)[j0 + i]) continue;\n"
            "            long long *row = (long long *)p.ix[0] + (k++) * EM_M, r = j0 + i;\n"
            "            for (int d = EM_M - 1; d >= 0; d--) { row[d] = r %% p.ashape[d]; r /= p.ashape[d]; }\n"
            "        }\n        __syncthreads();\n    }\n",
            EM_NZ_TILE, EM_NZ_TILE, EM_NZ_ITEMS, EM_NZ_ITEMS, EM_NZ_ITEMS);
    }
    em_sbuf_printf(s, "}\n");
    return s->oom ? em_error(EM_ENOMEM, "out of host memory rendering a kernel") : EM_OK;
}
