/* The reduction renderer (see render_reduce.h). */
#include "codegen/render_reduce.h"
#include "core/core.h"

#include <stdio.h>
#include <string.h>

static em_status em__split_axes(const em_array *a, int naxes, const int *axes, em_rplan *p) {
    bool red[EM_MAXDIMS] = {false};
    for (int i = 0; i < (naxes < 0 ? a->ndim : naxes); i++) {
        int ax = naxes < 0 ? i : axes[i];
        if (ax < 0 || ax >= a->ndim || red[ax])
            return em_error(EM_EVALUE, "bad or repeated reduction axis %d for an array of %d dimensions", ax, a->ndim);
        red[ax] = true;
    }
    p->nout = p->m = 1;
    for (int i = 0; i < a->ndim; i++) {
        if (a->shape[i] == 1) continue;
        if (red[i]) p->ishape[p->ni] = a->shape[i], p->ist[p->ni++] = a->strides[i], p->m *= a->shape[i];
        else p->oshape[p->no] = a->shape[i], p->ost[p->no++] = a->strides[i], p->nout *= a->shape[i];
    }
    if (!p->no) p->oshape[p->no++] = 1; /* keep the arrays non-empty */
    if (!p->ni) p->ishape[p->ni++] = 1;
    return EM_OK;
}

em_status em_rplan_make(em_reduce_op op, const em_array *a, int naxes, const int *axes,
                        em_dtype acc, double ddof, const em_array *out, em_rplan *p) {
    memset(p, 0, sizeof *p);
    if (op >= EM_RED_CUMSUM || (unsigned)op >= EM_NREDUCE)
        return em_error(EM_EVALUE, "reduction %d is not a full reduction", (int)op);
    if (!em_array_is_c_contiguous(out))
        return em_error(EM_EVALUE, "the reduction output must be C-contiguous");
    EM_CHECK(em__split_axes(a, naxes, axes, p));
    if (em_array_size(out) != (p->nout ? p->nout : 0) && em_array_size(a) != 0)
        return em_error(EM_ESHAPE, "reduction output has %lld elements, expected %lld",
                        (long long)em_array_size(out), (long long)p->nout);
    if ((op == EM_RED_VAR || op == EM_RED_STD) && em_dtype_get(a->dtype)->kind == 'c')
        return em_error(EM_EUNSUPPORTED, "var/std of complex arrays is not implemented on CUDA");
    p->op = op;
    p->in = a->dtype;
    p->out = out->dtype;
    p->acc = acc == EM_NDTYPES ? out->dtype : acc;
    if (op == EM_RED_MIN || op == EM_RED_MAX || op == EM_RED_ARGMIN || op == EM_RED_ARGMAX)
        p->acc = a->dtype;
    if (p->acc == EM_FLOAT16) p->acc = EM_FLOAT32; /* computed in float, as elementwise */
    p->data = a->data;
    p->outp = out->data;
    p->ddof = ddof;
    p->nsplit = 1;
    p->chunk = p->m;
    return EM_OK;
}

em_status em_rplan_fuse(em_rplan *p, const em_node *root, const em_array *a, int naxes,
                        const int *axes, const em_array *out) {
    if (root->dtype != a->dtype || !em_array_is_c_contiguous(a))
        return em_error(EM_EVALUE, "a fused reduction reads a C-contiguous array of its producer's dtype");
    EM_CHECK(em_kplan_tree(root, out, &p->tree));
    bool red[EM_MAXDIMS] = {false};
    for (int i = 0; i < (naxes < 0 ? a->ndim : naxes); i++) red[naxes < 0 ? i : axes[i]] = true;
    for (int k = 1; k < p->tree.nops; k++) {
        int64_t st[EM_MAXDIMS];
        EM_CHECK(em__broadcast_strides(p->tree.leaves[k]->leaf, a, st));
        int no = 0, ni = 0;
        for (int i = 0; i < a->ndim; i++) { /* the dims em__split_axes keeps, in its order */
            if (a->shape[i] == 1) continue;
            if (red[i]) p->list[k][ni++] = st[i];
            else p->lost[k][no++] = st[i];
        }
        if (!no) p->lost[k][0] = 0;
        if (!ni) p->list[k][0] = 0;
    }
    p->root = root;
    return EM_OK;
}

void em_rplan_key(const em_rplan *p, em_sbuf *key) {
    em_sbuf_printf(key, "R%d|%d|%d|%d|%d|%d%s", (int)p->op, (int)p->in, (int)p->acc, (int)p->out, p->no, p->ni,
                   p->warp ? "|W" : "");
    if (p->root) {
        em_sbuf_printf(key, "|F");
        em_kplan_tree_key(&p->tree, key);
    }
}

/* The fused tail of the argument: leaf pointers (or values), their strides. */
static void em__fused_args(const em_rplan *p, char *b) {
    int nl = p->tree.nops;
    for (int k = 0; k < nl; k++, b += 8) {
        memset(b, 0, 8);
        if (k == 0) continue;
        if (p->tree.cls[k] == 'P') memcpy(b, p->tree.data[k], (size_t)em_dtype_get(p->tree.dtypes[k])->size);
        else memcpy(b, &p->tree.data[k], 8);
    }
    for (int k = 0; k < nl; k++, b += 8 * (size_t)p->no) memcpy(b, p->lost[k], 8 * (size_t)p->no);
    for (int k = 0; k < nl; k++, b += 8 * (size_t)p->ni) memcpy(b, p->list[k], 8 * (size_t)p->ni);
}

size_t em_rplan_args(const em_rplan *p, void *buf, size_t cap) {
    size_t base = 8 * (3 + 4 + 1 + 2 * (size_t)p->no + 2 * (size_t)p->ni), need = base;
    if (p->root) need += 8 * (size_t)p->tree.nops * (1 + (size_t)p->no + (size_t)p->ni);
    if (need > cap) return 0;
    if (p->root) em__fused_args(p, (char *)buf + base);
    char *b = buf;
    int64_t v[4] = {p->nout, p->m, p->nsplit, p->chunk};
    memcpy(b, &p->data, 8), memcpy(b + 8, &p->outp, 8), memcpy(b + 16, &p->part, 8);
    memcpy(b + 24, v, 32);
    memcpy(b + 56, &p->ddof, 8);
    b += 64;
    memcpy(b, p->oshape, 8 * (size_t)p->no), b += 8 * (size_t)p->no;
    memcpy(b, p->ost, 8 * (size_t)p->no), b += 8 * (size_t)p->no;
    memcpy(b, p->ishape, 8 * (size_t)p->ni), b += 8 * (size_t)p->ni;
    memcpy(b, p->ist, 8 * (size_t)p->ni);
    return need;
}


/* The identity value of the accumulator for MIN/MAX. */
static const char *em__extreme(em_dtype dt, bool max) {
    switch (em_dtype_get(dt)->kind) {
    case 'b': return max ? "false" : "true";
    case 'f': return max ? "-__int_as_float(0x7f800000)" : "__int_as_float(0x7f800000)";
    default: break;
    }
    static char buf[64];
    int bits = em_dtype_get(dt)->size * 8;
    bool sgn = em_dtype_get(dt)->kind == 'i';
    const char *T = em_render_ctype(dt);
    if (!sgn) snprintf(buf, sizeof buf, max ? "(%s)0" : "(%s)~(em_u64)0", T);
    else snprintf(buf, sizeof buf, max ? "(%s)((em_u64)1 << %d)" : "(%s)~((em_u64)1 << %d)", T, bits - 1);
    return buf;
}

/* What every op's state functions need: type names and the conversions
 * of an input to the accumulator and of the accumulator to the output. */
typedef struct em__rs {
    const em_rplan *p;
    em_sbuf *s;
    const char *A, *I, *O, *R; /* acc, input, output, acc's real component */
    char load[160], fin[200];   /* conv(x: in -> acc), conv(s: acc -> out) */
} em__rs;

static void em__conv_into(char *buf, size_t len, em_dtype from, em_dtype to, const char *x) {
    em_sbuf c = {0};
    em__render_conv(&c, from, to, x);
    snprintf(buf, len, "%s", c.s ? c.s : x);
    em_sbuf_free(&c);
}

/* SUM, PROD, MEAN: the accumulator is the value. */
static void em__fns_sum(const em__rs *r) {
    em_reduce_op op = r->p->op;
    bool prod = op == EM_RED_PROD, cplx = em_dtype_get(r->p->acc)->kind == 'c';
    em_sbuf *s = r->s;
    em_sbuf_printf(s, "typedef %s em_state;\n", r->A);
    if (cplx) em_sbuf_printf(s, "EM_D em_state em_ident() { return em_mk<%s, %s>(%d, 0); }\n", r->A, r->R, prod);
    else em_sbuf_printf(s, "EM_D em_state em_ident() { return (%s)%d; }\n", r->A, prod);
    em_sbuf_printf(s, "EM_D em_state em_load(%s x, long long k) { return %s; }\n", r->I, r->load);
    em_sbuf_printf(s, "EM_D em_state em_comb(em_state a, em_state b) { return %s(a, b); }\n",
                   prod ? "em_multiply" : "em_add");
    if (op != EM_RED_MEAN)
        em_sbuf_printf(s, "EM_D %s em_final(em_state s, long long m, double ddof) { return %s; }\n", r->O, r->fin);
    else if (!cplx)
        em_sbuf_printf(s, "EM_D %s em_final(em_state v, long long m, double ddof) { const %s s = v / (%s)m; return %s; }\n",
                       r->O, r->A, r->A, r->fin);
    else
        em_sbuf_printf(s, "EM_D %s em_final(em_state v, long long m, double ddof) { const %s s = em_mk<%s, %s>(v.re / m, v.im / m); return %s; }\n",
                       r->O, r->A, r->A, r->R, r->fin);
}

/* MIN, MAX: NaN-propagating, starting from the extreme of the type. */
static void em__fns_minmax(const em__rs *r) {
    bool max = r->p->op == EM_RED_MAX, cplx = em_dtype_get(r->p->acc)->kind == 'c';
    em_sbuf *s = r->s;
    em_sbuf_printf(s, "typedef %s em_state;\n", r->A);
    if (cplx)
        em_sbuf_printf(s, "EM_D em_state em_ident() { const %s e = %s; return em_mk<%s, %s>(e, e); }\n", r->R,
                       em__extreme(EM_FLOAT32, max), r->A, r->R);
    else em_sbuf_printf(s, "EM_D em_state em_ident() { return %s; }\n", em__extreme(r->p->acc, max));
    em_sbuf_printf(s, "EM_D em_state em_load(%s x, long long k) { return %s; }\n", r->I, r->load);
    em_sbuf_printf(s, "EM_D em_state em_comb(em_state a, em_state b) { return em_isnan(b) ? b : %s(a, b); }\n",
                   max ? "em_maximum" : "em_minimum");
    em_sbuf_printf(s, "EM_D %s em_final(em_state s, long long m, double ddof) { return %s; }\n", r->O, r->fin);
}

/* ARGMIN, ARGMAX: (value, index); the first NaN wins, ties take the lower index. */
static void em__fns_arg(const em__rs *r) {
    em_sbuf *s = r->s;
    em_sbuf_printf(s, "struct em_state { %s v; long long i; };\n", r->A);
    em_sbuf_printf(s, "EM_D em_state em_ident() { em_state s; s.i = -1; return s; }\n");
    em_sbuf_printf(s, "EM_D em_state em_load(%s x, long long k) { em_state s; s.v = %s; s.i = k; return s; }\n",
                   r->I, r->load);
    em_sbuf_printf(s, "EM_D em_state em_comb(em_state a, em_state b) {\n"
                      "    if (a.i < 0) return b;\n    if (b.i < 0) return a;\n"
                      "    const bool an = em_isnan(a.v), bn = em_isnan(b.v);\n"
                      "    if (an || bn) return (an && (!bn || a.i < b.i)) ? a : b;\n"
                      "    if (em_equal(a.v, b.v)) return a.i < b.i ? a : b;\n"
                      "    return %s(a.v, b.v) ? a : b;\n}\n", r->p->op == EM_RED_ARGMAX ? "em_greater" : "em_less");
    em_sbuf_printf(s, "EM_D %s em_final(em_state s, long long m, double ddof) { return (%s)s.i; }\n", r->O, r->O);
}

/* ANY, ALL, COUNT_NONZERO: on the truth of each element. */
static void em__fns_bool(const em__rs *r) {
    char nz[160];
    em__conv_into(nz, sizeof nz, r->p->in, EM_BOOL, "x");
    bool cnt = r->p->op == EM_RED_COUNT_NONZERO, all = r->p->op == EM_RED_ALL;
    em_sbuf *s = r->s;
    em_sbuf_printf(s, "typedef %s em_state;\n", cnt ? "long long" : "bool");
    em_sbuf_printf(s, "EM_D em_state em_ident() { return %s; }\n", all ? "true" : cnt ? "0" : "false");
    em_sbuf_printf(s, "EM_D em_state em_load(%s x, long long k) { return %s; }\n", r->I, nz);
    em_sbuf_printf(s, "EM_D em_state em_comb(em_state a, em_state b) { return %s; }\n",
                   cnt ? "a + b" : all ? "a && b" : "a || b");
    em_sbuf_printf(s, "EM_D %s em_final(em_state s, long long m, double ddof) { return (%s)s; }\n", r->O, r->O);
}

/* VAR, STD: Chan et al.'s pairwise combination of (n, mean, M2). */
static void em__fns_var(const em__rs *r) {
    em_sbuf *s = r->s;
    const char *A = r->A;
    em_sbuf_printf(s, "struct em_state { double n; %s mean, m2; };\n", A);
    em_sbuf_printf(s, "EM_D em_state em_ident() { em_state s; s.n = 0; s.mean = 0; s.m2 = 0; return s; }\n");
    em_sbuf_printf(s, "EM_D em_state em_load(%s x, long long k) { em_state s; s.n = 1; s.mean = %s; s.m2 = 0; return s; }\n",
                   r->I, r->load);
    em_sbuf_printf(s, "EM_D em_state em_comb(em_state a, em_state b) {\n"
                      "    if (a.n == 0) return b;\n    if (b.n == 0) return a;\n"
                      "    em_state r; r.n = a.n + b.n;\n    const %s d = b.mean - a.mean, f = (%s)(b.n / r.n);\n"
                      "    r.mean = a.mean + d * f;\n    r.m2 = a.m2 + b.m2 + d * d * (%s)(a.n * f);\n    return r;\n}\n",
                   A, A, A);
    const char *root = r->p->op != EM_RED_STD ? "" : r->p->acc == EM_FLOAT64 ? "sqrt" : "sqrtf";
    em_sbuf_printf(s, "EM_D %s em_final(em_state v, long long m, double ddof) { const %s s = %s(v.m2 / (%s)(v.n - ddof)); return %s; }\n",
                   r->O, A, root, A, r->fin);
}

/* State, identity, load, combine and final for the plan's op. */
static void em__state_fns(const em_rplan *p, em_sbuf *s) {
    em__rs r = {.p = p, .s = s, .A = em_render_ctype(p->acc), .I = em_render_ctype(p->in),
                .O = em_render_ctype(p->out),
                .R = p->acc == EM_COMPLEX64 || p->acc == EM_FLOAT32 ? "float" : "double"};
    em__conv_into(r.load, sizeof r.load, p->in, p->acc, "x");
    em__conv_into(r.fin, sizeof r.fin, p->acc, p->out, "s");
    em_sbuf_printf(s, "\n// reduction %d: %s -> %s via %s\n", (int)p->op, r.I, r.O, r.A);
    switch (p->op) {
    case EM_RED_SUM:
    case EM_RED_PROD:
    case EM_RED_MEAN: em__fns_sum(&r); break;
    case EM_RED_MIN:
    case EM_RED_MAX: em__fns_minmax(&r); break;
    case EM_RED_ARGMIN:
    case EM_RED_ARGMAX: em__fns_arg(&r); break;
    case EM_RED_ANY:
    case EM_RED_ALL:
    case EM_RED_COUNT_NONZERO: em__fns_bool(&r); break;
    default: em__fns_var(&r); break;
    }
}

/* EM_RW threads work on one unit: the whole block (256), or one warp (32)
 * with 8 units per block at a time.  em_unit_end combines the unit's
 * threads: a shared-memory tree with barriers, or warp shuffles (no
 * barrier: warps of a block run different numbers of units). */
static const char em__reduce_kernels[] =
    "\n#define EM_RBLOCK 256\n"
    "#define EM_UPB (EM_RBLOCK / EM_RW)\n"
    "#define EM_LANE ((int)threadIdx.x % EM_RW)\n"
    "#define EM_U0 ((long long)blockIdx.x * EM_UPB + (long long)threadIdx.x / EM_RW)\n"
    "#define EM_USTEP ((long long)gridDim.x * EM_UPB)\n"
    "EM_D void em_tree(em_state *sh) {\n"
    "    __syncthreads();\n"
    "    for (int w = EM_RBLOCK / 2; w > 0; w >>= 1) {\n"
    "        if ((int)threadIdx.x < w) sh[threadIdx.x] = em_comb(sh[threadIdx.x], sh[threadIdx.x + w]);\n"
    "        __syncthreads();\n"
    "    }\n"
    "}\n"
    "template <class T> EM_D T em_shfl_down(const T &v, int d) {\n"
    "    unsigned w[(sizeof(T) + 3) / 4];\n"
    "    memcpy(w, &v, sizeof(T));\n"
    "    for (int i = 0; i < (int)((sizeof(T) + 3) / 4); i++) w[i] = __shfl_down_sync(0xffffffffu, w[i], d);\n"
    "    T r;\n    memcpy(&r, w, sizeof(T));\n    return r;\n"
    "}\n"
    "#if EM_RW == EM_RBLOCK\n"
    "#define EM_UNIT_DECL __shared__ em_state sh[EM_RBLOCK];\n"
    "#define EM_UNIT_END(acc) (sh[threadIdx.x] = (acc), em_tree(sh), sh[0])\n"
    "#define EM_UNIT_NEXT() __syncthreads()\n"
    "#else\n"
    "#define EM_UNIT_DECL\n"
    "EM_D em_state em_warp_end(em_state acc) {\n"
    "    for (int d = 16; d > 0; d >>= 1) acc = em_comb(acc, em_shfl_down(acc, d));\n"
    "    return acc;\n"
    "}\n"
    "#define EM_UNIT_END(acc) em_warp_end(acc)\n"
    "#define EM_UNIT_NEXT() ((void)0)\n"
    "#endif\n"
    "/* The unit's result: the final value, or a partial state for pass 2. */\n"
    "#define EM_UNIT_STORE(acc) { \\\n"
    "    const em_state tot = EM_UNIT_END(acc); \\\n"
    "    if (EM_LANE == 0) { \\\n"
    "        if (p.nsplit == 1) ((em_out *)p.out)[o] = em_final(tot, p.m, p.ddof); \\\n"
    "        else ((em_state *)p.part)[u] = tot; \\\n"
    "    } \\\n"
    "    EM_UNIT_NEXT(); }\n\n"
    "extern \"C\" __global__ void __launch_bounds__(EM_RBLOCK) em_kernel(const em_args p) {\n"
    "    EM_UNIT_DECL\n"
    "    for (long long u = EM_U0; u < p.nout * p.nsplit; u += EM_USTEP) {\n"
    "        const long long o = u / p.nsplit, s = u % p.nsplit;\n"
    "        long long base = 0, r = o;\n"
    "        for (int d = EM_NO - 1; d >= 0; d--) { base += (d ? r % p.oshape[d] : r) * p.ost[d]; r /= p.oshape[d]; }\n"
    "        const long long k0 = s * p.chunk, k1 = k0 + p.chunk < p.m ? k0 + p.chunk : p.m;\n"
    "        em_state acc = em_ident();\n"
    "        long long k = k0 + EM_LANE;\n"
    "        if (EM_NI == 1) { /* four loads in flight per thread: bandwidth needs them */\n"
    "            for (; k + 3 * EM_RW < k1; k += 4 * EM_RW) {\n"
    "                const char *a = p.in + base + k * p.ist[0];\n"
    "                const long long st = EM_RW * p.ist[0];\n"
    "                const em_in v0 = *(const em_in *)a, v1 = *(const em_in *)(a + st);\n"
    "                const em_in v2 = *(const em_in *)(a + 2 * st), v3 = *(const em_in *)(a + 3 * st);\n"
    "                acc = em_comb(acc, em_load(v0, k));\n"
    "                acc = em_comb(acc, em_load(v1, k + EM_RW));\n"
    "                acc = em_comb(acc, em_load(v2, k + 2 * EM_RW));\n"
    "                acc = em_comb(acc, em_load(v3, k + 3 * EM_RW));\n"
    "            }\n"
    "        }\n"
    "        for (; k < k1; k += EM_RW) {\n"
    "            long long off = base, q = k;\n"
    "            for (int d = EM_NI - 1; d > 0; d--) { off += (q % p.ishape[d]) * p.ist[d]; q /= p.ishape[d]; }\n"
    "            off += q * p.ist[0]; /* q < ishape[0]: no division for the outermost */\n"
    "            acc = em_comb(acc, em_load(*(const em_in *)(p.in + off), k));\n"
    "        }\n"
    "        EM_UNIT_STORE(acc);\n"
    "    }\n"
    "}\n\n"
    "extern \"C\" __global__ void __launch_bounds__(EM_RBLOCK) em_kernel2(const em_args p) {\n"
    "    __shared__ em_state sh[EM_RBLOCK];\n"
    "    for (long long o = blockIdx.x; o < p.nout; o += gridDim.x) {\n"
    "        em_state acc = em_ident();\n"
    "        for (long long s = threadIdx.x; s < p.nsplit; s += EM_RBLOCK)\n"
    "            acc = em_comb(acc, ((const em_state *)p.part)[o * p.nsplit + s]);\n"
    "        sh[threadIdx.x] = acc;\n"
    "        em_tree(sh);\n"
    "        if (threadIdx.x == 0) ((em_out *)p.out)[o] = em_final(sh[0], p.m, p.ddof);\n"
    "        __syncthreads();\n"
    "    }\n"
    "}\n";

/* Pass 1 with a fused producer: em_at computes the input element k of
 * output o (leaf bases lb) from the tree.  The combination order per thread
 * is the unfused kernel's (k, k + EM_RBLOCK, ...), so results are equal bit
 * for bit; four elements are computed before they are combined so that four
 * loads are in flight. */
static const char em__fused_kernel[] =
    "\nextern \"C\" __global__ void __launch_bounds__(EM_RBLOCK) em_kernel(const em_args p) {\n"
    "    EM_UNIT_DECL\n"
    "    for (long long u = EM_U0; u < p.nout * p.nsplit; u += EM_USTEP) {\n"
    "        const long long o = u / p.nsplit, s = u % p.nsplit;\n"
    "        long long lb[EM_NL], r = o;\n"
    "        for (int j = 0; j < EM_NL; j++) lb[j] = 0;\n"
    "        for (int d = EM_NO - 1; d >= 0; d--) {\n"
    "            const long long c = d ? r % p.oshape[d] : r;\n"
    "            r /= p.oshape[d];\n"
    "            for (int j = 1; j < EM_NL; j++) lb[j] += c * p.lost[j][d];\n"
    "        }\n"
    "        const long long k0 = s * p.chunk, k1 = k0 + p.chunk < p.m ? k0 + p.chunk : p.m;\n"
    "        em_state acc = em_ident();\n"
    "        long long k = k0 + EM_LANE;\n"
    "        for (; k + 3 * EM_RW < k1; k += 4 * EM_RW) {\n"
    "            const em_in v0 = em_at(p, lb, k), v1 = em_at(p, lb, k + EM_RW);\n"
    "            const em_in v2 = em_at(p, lb, k + 2 * EM_RW), v3 = em_at(p, lb, k + 3 * EM_RW);\n"
    "            acc = em_comb(acc, em_load(v0, k));\n"
    "            acc = em_comb(acc, em_load(v1, k + EM_RW));\n"
    "            acc = em_comb(acc, em_load(v2, k + 2 * EM_RW));\n"
    "            acc = em_comb(acc, em_load(v3, k + 3 * EM_RW));\n"
    "        }\n"
    "        for (; k < k1; k += EM_RW) acc = em_comb(acc, em_load(em_at(p, lb, k), k));\n"
    "        EM_UNIT_STORE(acc);\n"
    "    }\n"
    "}\n";

/* em_at: the producer's value at reduced index k, from the leaves' bases. */
static void em__render_at(const em_rplan *p, em_sbuf *s) {
    const em_kplan *t = &p->tree;
    em_sbuf_printf(s, "EM_D em_in em_at(const em_args &p, const long long *lb, long long k) {\n"
                      "    long long q = k");
    for (int j = 1; j < t->nops; j++)
        if (t->cls[j] != 'P') em_sbuf_printf(s, ", o%d = lb[%d]", j, j);
    em_sbuf_printf(s, ";\n    for (int d = EM_NI - 1; d > 0; d--) {\n"
                      "        const long long c = q %% p.ishape[d];\n        q /= p.ishape[d];\n");
    for (int j = 1; j < t->nops; j++)
        if (t->cls[j] != 'P') em_sbuf_printf(s, "        o%d += c * p.list[%d][d];\n", j, j);
    em_sbuf_printf(s, "    }\n");
    for (int j = 1; j < t->nops; j++) {
        const char *T = em_render_ctype(t->dtypes[j]);
        if (t->cls[j] == 'P') em_sbuf_printf(s, "    const %s x%d = *(const %s *)&p.ld[%d];\n", T, j, T, j);
        else em_sbuf_printf(s, "    const %s x%d = *(const %s *)(p.ld[%d] + o%d + q * p.list[%d][0]);\n",
                            T, j, T, j, j, j);
    }
    char name[96];
    em_render_tree(t, s, name, sizeof name);
    em_sbuf_printf(s, "    return ");
    em__render_conv(s, em_render_natural(t->root), p->in, name);
    em_sbuf_printf(s, ";\n}\n");
}

em_status em_render_reduce(const em_rplan *p, em_sbuf *s) {
    em_sbuf_printf(s, "%s", em_render_prelude());
    em__state_fns(p, s);
    em_sbuf_printf(s, "typedef %s em_in;\ntypedef %s em_out;\n#define EM_NO %d\n#define EM_NI %d\n#define EM_RW %d\n",
                   em_render_ctype(p->in), em_render_ctype(p->out), p->no, p->ni, p->warp ? 32 : 256);
    if (p->root) em_sbuf_printf(s, "#define EM_NL %d\n", p->tree.nops);
    em_sbuf_printf(s, "struct em_args {\n    char *in, *out, *part;\n    long long nout, m, nsplit, chunk;\n"
                      "    double ddof;\n    long long oshape[EM_NO], ost[EM_NO], ishape[EM_NI], ist[EM_NI];\n");
    if (p->root) em_sbuf_printf(s, "    char *ld[EM_NL];\n    long long lost[EM_NL][EM_NO], list[EM_NL][EM_NI];\n");
    em_sbuf_printf(s, "};\n");
    if (!p->root) {
        em_sbuf_printf(s, "%s", em__reduce_kernels);
    } else {
        /* em_tree and pass 2 are the plain kernels' (up to the first pass). */
        const char *k1 = strstr(em__reduce_kernels, "extern \"C\" __global__ void __launch_bounds__(EM_RBLOCK) em_kernel(");
        const char *k2 = strstr(em__reduce_kernels, "extern \"C\" __global__ void __launch_bounds__(EM_RBLOCK) em_kernel2(");
        em_sbuf_printf(s, "%.*s", (int)(k1 - em__reduce_kernels), em__reduce_kernels);
        em__render_at(p, s);
        em_sbuf_printf(s, "%s\n%s", em__fused_kernel, k2);
    }
    return s->oom ? em_error(EM_ENOMEM, "out of host memory rendering a kernel") : EM_OK;
}
