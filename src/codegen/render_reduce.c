/* The reduction renderer (see render_reduce.h). */
#include "codegen/render_reduce.h"
#include "codegen/tmpl.h"
#include "core/core.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* EMBER_REDUCE_TUNE selects variants of the kernels, for measuring them on
 * a GPU (tools/probe_seed64_ember.py): comma-separated, read once per
 * process.  "u<N>": N groups in flight per lane in warp mode (1..32; 0:
 * the block mode's rule); "i64": 64-bit loop indices even where 32-bit
 * ones fit ("i32": the default); "r<N>": groups a lane loads before it
 * combines them in OpenCL's warp units (1..8, default 1: em__reduce_seg_kernel);
 * "b1": block units only on OpenCL (no warp units).  The source depends on
 * them and the key does not: one variant a process. */
static struct {
    int u;
    bool i64;
    int r;
    bool blocks;
} em__tune = {-1, false, 1, false};
static pthread_once_t em__tune_once = PTHREAD_ONCE_INIT;

static void em__tune_read(void) {
    const char *t = getenv("EMBER_REDUCE_TUNE");
    for (; t && *t; t += strcspn(t, ","), t += *t == ',') {
        int n = atoi(t + 1);
        if (*t == 'u') em__tune.u = n < 0 ? 0 : n > 32 ? 32 : n;
        if (*t == 'i') em__tune.i64 = n == 64;
        if (*t == 'r') em__tune.r = n < 1 ? 1 : n > 8 ? 8 : n;
        if (*t == 'b') em__tune.blocks = n == 1;
    }
}

bool em_rplan_tune_blocks(void) {
    pthread_once(&em__tune_once, em__tune_read);
    return em__tune.blocks;
}

/* Elements per group: 16 bytes of input (at least one element). */
static int em__group_elems(em_dtype in) {
    int sz = em_dtype_get(in)->size;
    return sz >= 16 ? 1 : 16 / sz;
}

/* Groups in flight per lane in the wide loop.  A block's unit: 16
 * elements, at most 8 groups -- every element is a copy of the combine
 * (and of the producer) in the unrolled loop, and NVRTC's time grows with
 * them.  A warp's unit of 8-byte elements: 16 groups, so a lane loads its
 * part of a 1000-element row (seed 004) in one round trip; a hand-written
 * kernel of that shape ran 4 % faster on the H100 with 16 than with 8. */
/* Whether every operand read steps one element along the innermost reduced
 * dim (or not at all), so that the wide loop can run. */
static bool em__inner_contiguous(const em_rplan *p) {
    if (!p->root) return p->ist[p->ni - 1] == em_dtype_get(p->in)->size;
    for (int k = 1; k < p->tree.nops; k++) {
        int64_t st = p->list[k][p->ni - 1];
        if (p->tree.cls[k] != 'P' && st != 0 && st != em_dtype_get(p->tree.dtypes[k])->size)
            return false;
    }
    return true;
}

bool em_rplan_columns(const em_rplan *p) {
    if (p->m <= 1) return false;
    /* Fused: by the logical layout, which is what the C-contiguous input of
     * the unfused reduction has (the kernel addresses any strides; the
     * leaves may keep dims apart that the temporary's merge). */
    if (p->root) return p->lastrun >= 8;
    int64_t esz = em_dtype_get(p->in)->size;
    return p->oshape[p->no - 1] >= 8 && p->ost[p->no - 1] == esz && p->ist[p->ni - 1] != esz;
}

/* Only where the wide loop can run: its registers count for the whole
 * kernel, and a strided warp row (sum over axis 0 of seed 004's array,
 * H100) ran 0.64 ms with 16 groups (98 registers) against 0.43 with 8. */
static int em__groups_in_flight(const em_rplan *p) {
    pthread_once(&em__tune_once, em__tune_read);
    int v = em__group_elems(p->in);
    if (p->warp && em__tune.u > 0) return em__tune.u;
    if (p->warp && em__tune.u < 0 && em_dtype_get(p->in)->size == 8 && em__inner_contiguous(p))
        return 16;
    return 16 / v < 8 ? 16 / v : 8;
}

/* 32-bit loop indices (em_ix: units, groups, elements of a unit, and byte
 * offsets within one unit's run; the units' base offsets stay 64-bit):
 * 32-bit division and compares are a few instructions where 64-bit ones
 * are tens.  Every value the loops reach must fit with room: the last
 * group a lane looks at is below G + 2 * EM_U * gs (EM_FAST_DONE's test),
 * and a group is at most EM_V elements of the widest operand. */
static bool em__idx32(const em_rplan *p) {
    pthread_once(&em__tune_once, em__tune_read);
    const int64_t lim = (int64_t)1 << 30, v = em__group_elems(p->in);
    int64_t esz = em_dtype_get(p->in)->size;
    for (int k = 1; p->root && k < p->tree.nops; k++)
        if (em_dtype_get(p->tree.dtypes[k])->size > esz)
            esz = em_dtype_get(p->tree.dtypes[k])->size;
    int64_t u = em__groups_in_flight(p), r = p->warp ? em__tune.r : 0; /* r: OpenCL's warp loop */
    int64_t gs = (p->warp ? 32 : 256) * p->nsplit,
            top = (p->m + v - 1) / v + 2 * (u > r ? u : r) * gs;
    return !em__tune.i64 && p->nout <= lim / p->nsplit && top <= lim / (v * esz);
}

/* Which of a's axes are reduced (naxes < 0: all of them). */
static em_status em__reduced(const em_array *a, int naxes, const int *axes, bool *red) {
    memset(red, 0, sizeof(bool) * EM_MAXDIMS);
    for (int i = 0; i < (naxes < 0 ? a->ndim : naxes); i++) {
        int ax = naxes < 0 ? i : axes[i];
        if (ax < 0 || ax >= a->ndim || red[ax])
            return em_error(EM_EVALUE,
                            "bad or repeated reduction axis %d for an array of %d dimensions", ax,
                            a->ndim);
        red[ax] = true;
    }
    return EM_OK;
}

/* The kept and reduced extents, in a's order, size-1 dims dropped (one
 * dim of 1 where there is none, so the arrays are never empty). */
static void em__split_shape(const em_array *a, const bool *red, em_rplan *p) {
    p->no = p->ni = 0;
    p->nout = p->m = 1;
    for (int i = 0; i < a->ndim; i++) {
        if (a->shape[i] == 1) continue;
        if (red[i])
            p->ishape[p->ni++] = a->shape[i], p->m *= a->shape[i];
        else
            p->oshape[p->no++] = a->shape[i], p->nout *= a->shape[i];
    }
    if (!p->no) p->oshape[p->no++] = 1;
    if (!p->ni) p->ishape[p->ni++] = 1;
}

/* One operand's byte strides over a's dims, split as em__split_shape does. */
static void em__split_strides(const em_array *a, const bool *red, const int64_t *st, int64_t *ost,
                              int64_t *ist) {
    int no = 0, ni = 0;
    for (int i = 0; i < a->ndim; i++) {
        if (a->shape[i] == 1) continue;
        if (red[i])
            ist[ni++] = st[i];
        else
            ost[no++] = st[i];
    }
    if (!no) ost[0] = 0;
    if (!ni) ist[0] = 0;
}

/* Merge neighbours among n dims (all kept or all reduced) where every
 * operand steps over the inner one whole: st[i] == shape[i+1] * st[i+1]
 * (a broadcast 0 with a 0).  The flat index over them -- the output index,
 * or the reduced index k whose order is each lane's combination order --
 * then names the same elements, so results stay bit for bit; the kernel
 * does a division less per dim merged, and fewer kernels exist (the key
 * has no and ni). */
static int em__merge_dims(int n, int64_t *shape, int nst, int64_t *const *st) {
    int w = 0;
    for (int i = 1; i < n; i++) {
        bool merge = true;
        for (int k = 0; k < nst && merge; k++) merge = st[k][w] == shape[i] * st[k][i];
        if (merge)
            shape[w] *= shape[i];
        else
            shape[++w] = shape[i];
        for (int k = 0; k < nst; k++) st[k][w] = st[k][i];
    }
    return w + 1;
}

/* Coalesce the kept and the reduced dims over every operand the kernel
 * reads: the input, or a fused plan's leaves (never its placeholder input,
 * whose strides are then zeroed: nothing reads them). */
static void em__coalesce(em_rplan *p) {
    int64_t *ost[EM_KMAXOPS], *ist[EM_KMAXOPS];
    int n = 0;
    if (!p->root) ost[n] = p->ost, ist[n++] = p->ist;
    for (int k = 1; p->root && k < p->tree.nops; k++) ost[n] = p->lost[k], ist[n++] = p->list[k];
    p->no = em__merge_dims(p->no, p->oshape, n, ost);
    p->ni = em__merge_dims(p->ni, p->ishape, n, ist);
    if (p->root) memset(p->ost, 0, sizeof p->ost), memset(p->ist, 0, sizeof p->ist);
}

em_status em_rplan_make(em_reduce_op op, const em_array *a, int naxes, const int *axes,
                        em_dtype acc, double ddof, const em_array *out, em_rplan *p) {
    /* The fields before the fused tree: the tree and its leaves' strides
     * (12 KB) are set by em_rplan_fuse and read only when root is. */
    memset(p, 0, offsetof(em_rplan, tree));
    if (op >= EM_RED_CUMSUM || (unsigned)op >= EM_NREDUCE)
        return em_error(EM_EVALUE, "reduction %d is not a full reduction", (int)op);
    if (!em_array_is_c_contiguous(out))
        return em_error(EM_EVALUE, "the reduction output must be C-contiguous");
    bool red[EM_MAXDIMS];
    EM_CHECK(em__reduced(a, naxes, axes, red));
    em__split_shape(a, red, p);
    em__split_strides(a, red, a->strides, p->ost, p->ist);
    em__coalesce(p);
    p->lastrun = 0;
    for (int d = a->ndim - 1; d >= 0 && !red[d]; d--)
        p->lastrun = (p->lastrun ? p->lastrun : 1) * a->shape[d];
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
    return EM_OK;
}

em_status em_rplan_fuse(em_rplan *p, const em_node *root, const em_array *a, int naxes,
                        const int *axes, const em_array *out) {
    if (root->dtype != a->dtype || !em_array_is_c_contiguous(a))
        return em_error(EM_EVALUE,
                        "a fused reduction reads a C-contiguous array of its producer's dtype");
    EM_CHECK(em_kplan_tree(root, out, &p->tree));
    bool red[EM_MAXDIMS];
    EM_CHECK(em__reduced(a, naxes, axes, red));
    em__split_shape(a, red, p); /* again, unmerged: which dims merge depends on the leaves */
    for (int k = 1; k < p->tree.nops; k++) {
        int64_t st[EM_MAXDIMS];
        EM_CHECK(em__broadcast_strides(p->tree.leaves[k]->leaf, a, st));
        em__split_strides(a, red, st, p->lost[k], p->list[k]);
    }
    p->root = root;
    em__coalesce(p);
    return EM_OK;
}

/* v >= 0 in decimal at b; returns the end. */
static char *em__dec(char *b, int v) {
    char t[12];
    int n = 0;
    do t[n++] = (char)('0' + v % 10), v /= 10;
    while (v > 0);
    while (n) *b++ = t[--n];
    return b;
}

/* "R<op>|<in>|<acc>|<out>|<no>|<ni>[|W][|I]|U<groups>[|F<tree key>]", built
 * per launch: no printf (it was a fifth of a small sum's host time). */
void em_rplan_key(const em_rplan *p, em_sbuf *key) {
    char buf[96], *b = buf;
    int f[6] = {(int)p->op, (int)p->in, (int)p->acc, (int)p->out, p->no, p->ni};
    *b++ = 'R';
    for (int i = 0; i < 6; i++) {
        if (i) *b++ = '|';
        b = em__dec(b, f[i] < 0 ? 0 : f[i]);
    }
    if (p->warp) *b++ = '|', *b++ = 'W';
    if (p->col) *b++ = '|', *b++ = 'C';
    if (em__idx32(p)) *b++ = '|', *b++ = 'I';
    *b++ = '|', *b++ = 'U';
    b = em__dec(b, em__groups_in_flight(p));
    if (p->root) *b++ = '|', *b++ = 'F';
    em_sbuf_put(key, buf, (size_t)(b - buf));
    if (p->root) em_kplan_tree_key(&p->tree, key);
}

/* The fused tail of the argument: leaf pointers (or values), their strides. */
static void em__fused_args(const em_rplan *p, char *b) {
    int nl = p->tree.nops;
    for (int k = 0; k < nl; k++, b += 8) {
        memset(b, 0, 8);
        if (k == 0) continue;
        if (p->tree.cls[k] == 'P')
            memcpy(b, p->tree.data[k], (size_t)em_dtype_get(p->tree.dtypes[k])->size);
        else
            memcpy(b, &p->tree.data[k], 8);
    }
    for (int k = 0; k < nl; k++, b += 8 * (size_t)p->no) memcpy(b, p->lost[k], 8 * (size_t)p->no);
    for (int k = 0; k < nl; k++, b += 8 * (size_t)p->ni) memcpy(b, p->list[k], 8 * (size_t)p->ni);
}

size_t em_rplan_args(const em_rplan *p, void *buf, size_t cap) {
    size_t base = 8 * (3 + 3 + 1 + 2 * (size_t)p->no + 2 * (size_t)p->ni), need = base;
    if (p->root) need += 8 * (size_t)p->tree.nops * (1 + (size_t)p->no + (size_t)p->ni);
    if (need > cap) return 0;
    if (p->root) em__fused_args(p, (char *)buf + base);
    char *b = buf;
    int64_t v[3] = {p->nout, p->m, p->nsplit};
    memcpy(b, &p->data, 8), memcpy(b + 8, &p->outp, 8), memcpy(b + 16, &p->part, 8);
    memcpy(b + 24, v, 24);
    memcpy(b + 48, &p->ddof, 8);
    b += 56;
    memcpy(b, p->oshape, 8 * (size_t)p->no), b += 8 * (size_t)p->no;
    memcpy(b, p->ost, 8 * (size_t)p->no), b += 8 * (size_t)p->no;
    memcpy(b, p->ishape, 8 * (size_t)p->ni), b += 8 * (size_t)p->ni;
    memcpy(b, p->ist, 8 * (size_t)p->ni);
    return need;
}

/* The identity value of the accumulator for MIN/MAX. */
static const char *em__extreme(const em_dialect *d, em_dtype dt, bool max) {
    static _Thread_local char buf[64];
    switch (em_dtype_get(dt)->kind) {
    case 'b': return max ? "false" : "true";
    case 'f':
        snprintf(buf, sizeof buf, "%s%s(0x7f800000)", max ? "-" : "", d->int_as_float);
        return buf;
    default: break;
    }
    int bits = em_dtype_get(dt)->size * 8;
    bool sgn = em_dtype_get(dt)->kind == 'i';
    const char *T = em_render_ctype(dt);
    if (!sgn)
        snprintf(buf, sizeof buf, max ? "(%s)0" : "(%s)~(em_u64)0", T);
    else
        snprintf(buf, sizeof buf, max ? "(%s)((em_u64)1 << %d)" : "(%s)~((em_u64)1 << %d)", T,
                 bits - 1);
    return buf;
}

/* What every op's state functions need: type names and the conversions
 * of an input to the accumulator and of the accumulator to the output.
 * The text is a template (codegen/tmpl.h: ${ll} ...); the scalar
 * library's functions are called by their per-type names (em_add_f32). */
typedef struct em__rs {
    const em_dialect *d;
    const em_rplan *p;
    em_sbuf *s;
    const char *A, *I, *O, *R; /* acc, input, output, acc's real component */
    const char *sfx;           /* the accumulator's scalar-library suffix */
    char mk[48];               /* a complex accumulator from its parts */
    char load[160], fin[200];  /* conv(x: in -> acc), conv(s: acc -> out) */
    bool cxx;                  /* C++ (CUDA): a struct names its type */
} em__rs;

static void em__conv_into(const em_dialect *d, char *buf, size_t len, em_dtype from, em_dtype to,
                          const char *x) {
    em_sbuf c = {0};
    em__render_conv_d(d, &c, from, to, x);
    snprintf(buf, len, "%s", c.s ? c.s : x);
    em_sbuf_free(&c);
}

/* "struct em_state { F };" in C++, "typedef struct { F } em_state;" in C. */
static void em__state_struct(const em__rs *r, const char *fields) {
    if (r->cxx)
        em_sbuf_printf(r->s, "struct em_state { %s };\n", fields);
    else
        em_sbuf_printf(r->s, "typedef struct { %s } em_state;\n", fields);
}

/* SUM, PROD, MEAN: the accumulator is the value. */
static void em__fns_sum(const em__rs *r) {
    em_reduce_op op = r->p->op;
    bool prod = op == EM_RED_PROD, cplx = em_dtype_get(r->p->acc)->kind == 'c';
    em_sbuf *s = r->s;
    em_sbuf_printf(s, "typedef %s em_state;\n", r->A);
    if (cplx)
        em_sbuf_printf(s, "EM_D em_state em_ident() { return %s(%d, 0); }\n", r->mk, prod);
    else
        em_sbuf_printf(s, "EM_D em_state em_ident() { return (%s)%d; }\n", r->A, prod);
    em_sbuf_printf(s, "EM_D em_state em_load(%s x, ${ll} k) { return %s; }\n", r->I, r->load);
    em_sbuf_printf(s, "EM_D em_state em_comb(em_state a, em_state b) { return %s_%s(a, b); }\n",
                   prod ? "em_multiply" : "em_add", r->sfx);
    if (op != EM_RED_MEAN)
        em_sbuf_printf(s, "EM_D %s em_final(em_state s, ${ll} m, ${fd} ddof) { return %s; }\n",
                       r->O, r->fin);
    else if (!cplx)
        em_sbuf_printf(
            s,
            "EM_D %s em_final(em_state v, ${ll} m, ${fd} ddof) { const %s s = v / (%s)m; return %s; }\n",
            r->O, r->A, r->A, r->fin);
    else
        em_sbuf_printf(
            s,
            "EM_D %s em_final(em_state v, ${ll} m, ${fd} ddof) { const %s s = %s(v.re / m, v.im / m); return %s; }\n",
            r->O, r->A, r->mk, r->fin);
}

/* MIN, MAX: NaN-propagating, starting from the extreme of the type. */
static void em__fns_minmax(const em__rs *r) {
    bool max = r->p->op == EM_RED_MAX, cplx = em_dtype_get(r->p->acc)->kind == 'c';
    em_sbuf *s = r->s;
    em_sbuf_printf(s, "typedef %s em_state;\n", r->A);
    if (cplx)
        em_sbuf_printf(s, "EM_D em_state em_ident() { const %s e = %s; return %s(e, e); }\n", r->R,
                       em__extreme(r->d, EM_FLOAT32, max), r->mk);
    else
        em_sbuf_printf(s, "EM_D em_state em_ident() { return %s; }\n",
                       em__extreme(r->d, r->p->acc, max));
    em_sbuf_printf(s, "EM_D em_state em_load(%s x, ${ll} k) { return %s; }\n", r->I, r->load);
    em_sbuf_printf(
        s,
        "EM_D em_state em_comb(em_state a, em_state b) { return em_isnan_%s(b) ? b : %s_%s(a, b); }\n",
        r->sfx, max ? "em_maximum" : "em_minimum", r->sfx);
    em_sbuf_printf(s, "EM_D %s em_final(em_state s, ${ll} m, ${fd} ddof) { return %s; }\n", r->O,
                   r->fin);
}

/* ARGMIN, ARGMAX: (value, index); the first NaN wins, ties take the lower index. */
static void em__fns_arg(const em__rs *r) {
    em_sbuf *s = r->s;
    char fields[64];
    snprintf(fields, sizeof fields, "%s v; ${ll} i;", r->A);
    em__state_struct(r, fields);
    em_sbuf_printf(s, "EM_D em_state em_ident() { em_state s; s.i = -1; return s; }\n");
    em_sbuf_printf(
        s, "EM_D em_state em_load(%s x, ${ll} k) { em_state s; s.v = %s; s.i = k; return s; }\n",
        r->I, r->load);
    em_sbuf_printf(s,
                   "EM_D em_state em_comb(em_state a, em_state b) {\n"
                   "    if (a.i < 0) return b;\n    if (b.i < 0) return a;\n"
                   "    const bool an = em_isnan_%s(a.v), bn = em_isnan_%s(b.v);\n"
                   "    if (an || bn) return (an && (!bn || a.i < b.i)) ? a : b;\n"
                   "    if (em_equal_%s(a.v, b.v)) return a.i < b.i ? a : b;\n"
                   "    return %s_%s(a.v, b.v) ? a : b;\n}\n",
                   r->sfx, r->sfx, r->sfx, r->p->op == EM_RED_ARGMAX ? "em_greater" : "em_less",
                   r->sfx);
    em_sbuf_printf(s, "EM_D %s em_final(em_state s, ${ll} m, ${fd} ddof) { return (%s)s.i; }\n",
                   r->O, r->O);
}

/* ANY, ALL, COUNT_NONZERO: on the truth of each element. */
static void em__fns_bool(const em__rs *r) {
    char nz[160];
    em__conv_into(r->d, nz, sizeof nz, r->p->in, EM_BOOL, "x");
    bool cnt = r->p->op == EM_RED_COUNT_NONZERO, all = r->p->op == EM_RED_ALL;
    em_sbuf *s = r->s;
    em_sbuf_printf(s, "typedef %s em_state;\n", cnt ? "${ll}" : "bool");
    em_sbuf_printf(s, "EM_D em_state em_ident() { return %s; }\n",
                   all   ? "true"
                   : cnt ? "0"
                         : "false");
    em_sbuf_printf(s, "EM_D em_state em_load(%s x, ${ll} k) { return %s; }\n", r->I, nz);
    em_sbuf_printf(s, "EM_D em_state em_comb(em_state a, em_state b) { return %s; }\n",
                   cnt   ? "a + b"
                   : all ? "a && b"
                         : "a || b");
    em_sbuf_printf(s, "EM_D %s em_final(em_state s, ${ll} m, ${fd} ddof) { return (%s)s; }\n", r->O,
                   r->O);
}

/* The bitwise ops, LOGICAL_XOR (XOR of the truth: the accumulator is
 * bool, em_load's conversion), GCD and LCM: the scalar library's binary op
 * from the ufunc's identity (LCM's 1 is no identity -- lcm(1, x) is |x| --
 * but the core never reduces one element with it). */
static void em__fns_bits(const em__rs *r) {
    em_reduce_op op = r->p->op;
    em_sbuf *s = r->s;
    const char *fn = op == EM_RED_BITWISE_AND  ? "em_bitwise_and"
                     : op == EM_RED_BITWISE_OR ? "em_bitwise_or"
                     : op == EM_RED_GCD        ? "em_gcd"
                     : op == EM_RED_LCM        ? "em_lcm"
                                               : "em_bitwise_xor";
    const char *id = op == EM_RED_BITWISE_AND ? "~(em_u64)0" : op == EM_RED_LCM ? "1" : "0";
    em_sbuf_printf(s, "typedef %s em_state;\n", r->A);
    if (r->p->acc == EM_BOOL)
        em_sbuf_printf(s, "EM_D em_state em_ident() { return %s; }\n",
                       op == EM_RED_BITWISE_AND ? "true" : "false");
    else
        em_sbuf_printf(s, "EM_D em_state em_ident() { return (%s)%s; }\n", r->A, id);
    em_sbuf_printf(s, "EM_D em_state em_load(%s x, ${ll} k) { return %s; }\n", r->I, r->load);
    em_sbuf_printf(s, "EM_D em_state em_comb(em_state a, em_state b) { return %s_%s(a, b); }\n", fn,
                   r->sfx);
    em_sbuf_printf(s, "EM_D %s em_final(em_state s, ${ll} m, ${fd} ddof) { return %s; }\n", r->O,
                   r->fin);
}

/* VAR, STD: Chan et al.'s pairwise combination of (n, mean, M2). */
static void em__fns_var(const em__rs *r) {
    em_sbuf *s = r->s;
    const char *A = r->A;
    char fields[64];
    snprintf(fields, sizeof fields, "${fd} n; %s mean, m2;", A);
    em__state_struct(r, fields);
    em_sbuf_printf(
        s, "EM_D em_state em_ident() { em_state s; s.n = 0; s.mean = 0; s.m2 = 0; return s; }\n");
    em_sbuf_printf(
        s,
        "EM_D em_state em_load(%s x, ${ll} k) { em_state s; s.n = 1; s.mean = %s; s.m2 = 0; return s; }\n",
        r->I, r->load);
    em_sbuf_printf(
        s,
        "EM_D em_state em_comb(em_state a, em_state b) {\n"
        "    if (a.n == 0) return b;\n    if (b.n == 0) return a;\n"
        "    em_state r; r.n = a.n + b.n;\n    const %s d = b.mean - a.mean, f = (%s)(b.n / r.n);\n"
        "    r.mean = a.mean + d * f;\n    r.m2 = a.m2 + b.m2 + d * d * (%s)(a.n * f);\n    return r;\n}\n",
        A, A, A);
    const char *root = r->p->op != EM_RED_STD ? "" : r->p->acc == EM_FLOAT64 ? "sqrt" : "sqrtf";
    em_sbuf_printf(
        s,
        "EM_D %s em_final(em_state v, ${ll} m, ${fd} ddof) { const %s s = %s(v.m2 / (%s)(v.n - ddof)); return %s; }\n",
        r->O, A, root, A, r->fin);
}

/* State, identity, load, combine and final for the plan's op. */
static void em__state_fns(const em_dialect *d, const em_rplan *p, em_sbuf *s) {
    em__rs r = {.d = d,
                .p = p,
                .s = s,
                .A = em_render_ctype(p->acc),
                .I = em_render_ctype(p->in),
                .O = em_render_ctype(p->out),
                .R = p->acc == EM_COMPLEX64 || p->acc == EM_FLOAT32 ? "float" : "double",
                .sfx = em_scalar_suffix(p->acc),
                .cxx = d->id == EM_DIALECT_CUDA};
    if (r.cxx)
        snprintf(r.mk, sizeof r.mk, "em_mk<%s, %s>", r.A, r.R);
    else
        snprintf(r.mk, sizeof r.mk, "em_mk_%s", r.sfx);
    em__conv_into(d, r.load, sizeof r.load, p->in, p->acc, "x");
    em__conv_into(d, r.fin, sizeof r.fin, p->acc, p->out, "s");
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
    case EM_RED_BITWISE_AND:
    case EM_RED_BITWISE_OR:
    case EM_RED_BITWISE_XOR:
    case EM_RED_LOGICAL_XOR:
    case EM_RED_GCD:
    case EM_RED_LCM: em__fns_bits(&r); break;
    default: em__fns_var(&r); break;
    }
}

/* EM_RW threads work on one unit: the whole block (256), or one warp (32)
 * with 8 units per block at a time.  The unit's elements come in groups of
 * EM_V consecutive ones (one 16-byte load where the layout allows it); lane
 * l of split s takes groups s*EM_RW + l, then every EM_RW*nsplit-th: the
 * splits interleave, so all blocks read one window of memory at a time
 * (contiguous chunks per block measured 2100 GB/s on the H100, interleaved
 * 2970).  Where every operand is contiguous along the reduced axis and
 * aligned (em_wide), em_fast loads EM_U groups, 16 bytes each, before it
 * combines any, so that many loads are in flight; the loop after it takes
 * the rest (or everything) a group at a time.  Both combine a lane's
 * elements in increasing order, so which of them runs never changes the
 * result, and the plain and fused kernels agree bit for bit.
 * em_unit_end combines the unit's threads: a shared-memory tree with
 * barriers, or warp shuffles (no barrier: warps of a block run different
 * numbers of units).  A dialect without shuffles meets a warp's units in
 * local memory instead (em__reduce_seg_kernel), and its em_fast is the
 * plain loop's (em_wide false). */
static const char em__reduce_tree[] =
    "\n#define EM_RBLOCK 256\n"
    "#define EM_UPB (EM_RBLOCK / EM_RW)\n"
    "#define EM_LANE ((int)${tid} % EM_RW)\n"
    "#define EM_U0 ((em_ix)${bid} * EM_UPB + (em_ix)${tid} / EM_RW)\n"
    "#define EM_USTEP ((em_ix)${gdim} * EM_UPB)\n"
    "EM_D void em_tree(${local}em_state *sh) {\n"
    "    ${sync};\n"
    "    for (int w = EM_RBLOCK / 2; w > 0; w >>= 1) {\n"
    "        if ((int)${tid} < w) sh[${tid}] = em_comb(sh[${tid}], sh[${tid} + w]);\n"
    "        ${sync};\n"
    "    }\n"
    "}\n";

/* Warp shuffles of any state (CUDA: a template over the state's type). */
static const char em__reduce_shfl[] =
    "template <class T> EM_D T em_shfl_down(const T &v, int d) {\n"
    "    unsigned w[(sizeof(T) + 3) / 4];\n"
    "    memcpy(w, &v, sizeof(T));\n"
    "    for (int i = 0; i < (int)((sizeof(T) + 3) / 4); i++) w[i] = __shfl_down_sync(0xffffffffu, w[i], d);\n"
    "    T r;\n    memcpy(&r, w, sizeof(T));\n    return r;\n"
    "}\n";

/* A unit's last groups, one at a time (the wide and unrolled loops before
 * it stop short of G), at indent IND: the block and segmented kernels'. */
#define EM__GROUP_TAIL(IND)                                                    \
    IND "for (; g < G; g += gs) {\n" IND "    const em_ix k = g * EM_V;\n" IND \
        "    em_in v[EM_V];\n" IND "    em_group(p, lb, k, v);\n"              \
        "#pragma unroll\n" IND "    for (int e = 0; e < EM_V; e++)\n" IND      \
        "        if (k + e < p.m) acc = em_comb(acc, em_load(v[e], k + e));\n" IND "}\n"

static const char em__reduce_kernels[] =
    "#if EM_RW == EM_RBLOCK\n"
    "#define EM_UNIT_DECL ${shared} em_state sh[EM_RBLOCK];\n"
    "#define EM_UNIT_END(acc) (sh[${tid}] = (acc), em_tree(sh), sh[0])\n"
    "#define EM_UNIT_NEXT() ${sync}\n"
    "#else\n"
    "#define EM_UNIT_DECL\n"
    "EM_D em_state em_warp_end(em_state acc) {\n"
    "    for (int d = 16; d > 0; d >>= 1) acc = em_comb(acc, em_shfl_down(acc, d));\n"
    "    return acc;\n"
    "}\n"
    "#define EM_UNIT_END(acc) em_warp_end(acc)\n"
    "#define EM_UNIT_NEXT() ((void)0)\n"
    "#endif\n\n"
    "${kernel(EM_RBLOCK)} em_kernel(${params}) {\n${prologue}"
    "    EM_UNIT_DECL\n"
    "    const em_ix G = (em_ix)((p.m + EM_V - 1) / EM_V), ns = (em_ix)p.nsplit, gs = EM_RW * ns;\n"
    "    const em_ix units = (em_ix)(p.nout * p.nsplit);\n"
    "    for (em_ix u = EM_U0; u < units; u += EM_USTEP) {\n"
    "        const em_ix o = ns == 1 ? u : u / ns, s = u - o * ns;\n"
    "        ${ll} lb[EM_NB];\n"
    "        em_bases(p, o, lb);\n"
    "        em_state acc = em_ident();\n"
    "        em_ix g = s * EM_RW + EM_LANE;\n"
    "        if (em_wide(p, lb)) g = em_fast(p, lb, g, gs, acc);\n" EM__GROUP_TAIL(
        "        ") "        /* The unit's result: the final value, or a partial state for pass 2. */\n"
                    "        const em_state tot = EM_UNIT_END(acc);\n"
                    "        if (EM_LANE == 0) {\n"
                    "            if (p.nsplit == 1) ((${global}em_out *)p.out)[o] = em_final(tot, p.m, p.ddof);\n"
                    "            else ((${global}em_state *)p.part)[u] = tot;\n"
                    "        }\n"
                    "        EM_UNIT_NEXT();\n"
                    "    }\n"
                    "}\n";

/* Warp mode where the dialect has no shuffles (OpenCL): the 8 units of 32
 * lanes of a work-group meet in local memory, each in its own segment of
 * sh, 5 barrier steps for 8 units where block mode takes 8 for one.  A
 * barrier must be reached by every work-item of the group, so the loop
 * runs over the group's batches of 8 units (the same trip count for all)
 * and a lane past the last unit carries the identity.  Lane l takes lane
 * l + d's state for d = 16 .. 1, the shuffles' order: lane 0's result is
 * the CUDA kernel's combination.  No barrier after the write: a lane only
 * ever writes its own slot before the next batch's first barrier.  There is
 * no wide loop (em_fast); EM_UR groups loaded before any is combined (same
 * order, same bits) is EMBER_REDUCE_TUNE's r<N>, 1 by default: NVIDIA's
 * OpenCL on the H200 ran seed 004 in 0.122 ms with 1, 0.196 with 4 and
 * 0.44 with 8 (CUDA's kernel 0.103; block units 0.209). */
static const char em__reduce_seg_kernel[] =
    "${kernel(EM_RBLOCK)} em_kernel(${params}) {\n${prologue}"
    "    ${shared} em_state sh[EM_RBLOCK];\n"
    "    const em_ix G = (em_ix)((p.m + EM_V - 1) / EM_V), ns = (em_ix)p.nsplit, gs = EM_RW * ns;\n"
    "    const em_ix units = (em_ix)(p.nout * p.nsplit);\n"
    "    for (em_ix ub = (em_ix)${bid} * EM_UPB; ub < units; ub += EM_USTEP) {\n"
    "        const em_ix u = ub + (em_ix)${tid} / EM_RW, o = ns == 1 ? u : u / ns, s = u - o * ns;\n"
    "        em_state acc = em_ident();\n"
    "        if (u < units) {\n"
    "            ${ll} lb[EM_NB];\n"
    "            em_bases(p, o, lb);\n"
    "            em_ix g = s * EM_RW + EM_LANE;\n"
    "            for (; g + (EM_UR - 1) * gs < G; g += EM_UR * gs) {\n"
    "                em_in v[EM_UR][EM_V];\n"
    "#pragma unroll\n"
    "                for (int j = 0; j < EM_UR; j++) em_group(p, lb, (g + j * gs) * EM_V, v[j]);\n"
    "#pragma unroll\n"
    "                for (int j = 0; j < EM_UR; j++)\n"
    "#pragma unroll\n"
    "                    for (int e = 0; e < EM_V; e++) {\n"
    "                        const em_ix k = (g + j * gs) * EM_V + e;\n"
    "                        if (k < p.m) acc = em_comb(acc, em_load(v[j][e], k));\n"
    "                    }\n"
    "            }\n" EM__GROUP_TAIL(
        "            ") "        }\n"
                        "        sh[${tid}] = acc;\n"
                        "        ${sync};\n"
                        "        for (int w = EM_RW / 2; w > 0; w >>= 1) {\n"
                        "            if (EM_LANE < w) sh[${tid}] = em_comb(sh[${tid}], sh[${tid} + w]);\n"
                        "            ${sync};\n"
                        "        }\n"
                        "        if (EM_LANE == 0 && u < units) {\n"
                        "            if (p.nsplit == 1) ((${global}em_out *)p.out)[o] = em_final(sh[${tid}], p.m, p.ddof);\n"
                        "            else ((${global}em_state *)p.part)[u] = sh[${tid}];\n"
                        "        }\n"
                        "    }\n"
                        "}\n";

/* Pass 2, only where a unit can be split: block mode (a warp's units are
 * many, never split).  NVRTC spent 22 of seed 004's 125 ms on it. */
static const char em__reduce_kernel2[] =
    "\n${kernel(EM_RBLOCK)} em_kernel2(${params}) {\n${prologue}"
    "    ${shared} em_state sh[EM_RBLOCK];\n"
    "    for (${ll} o = ${bid}; o < p.nout; o += ${gdim}) {\n"
    "        em_state acc = em_ident();\n"
    "        for (${ll} s = ${tid}; s < p.nsplit; s += EM_RBLOCK)\n"
    "            acc = em_comb(acc, ((${global}const em_state *)p.part)[o * p.nsplit + s]);\n"
    "        sh[${tid}] = acc;\n"
    "        em_tree(sh);\n"
    "        if (${tid} == 0) ((${global}em_out *)p.out)[o] = em_final(sh[0], p.m, p.ddof);\n"
    "        ${sync};\n"
    "    }\n"
    "}\n";

/* The column form (em_rplan.col): a block takes 32 neighbouring outputs
 * (EM_CW, lane cx) and one chunk of rows (split s); its EM_CR row lanes
 * (ry) take every EM_CR-th row of the chunk, EM_CU rows loaded before any
 * is combined so that many loads are in flight.  A warp then reads 32
 * consecutive outputs' elements of one row: one coalesced load, where the
 * block form's lanes of one output read a stride apart.  The row lanes'
 * states meet in shared memory, combined in row-lane order by lane ry 0.
 * Pass 2: a thread per output folds its nsplit states (split-major, so
 * neighbouring threads read neighbouring states). */
static const char em__col_kernels[] =
    "\n#define EM_RBLOCK 256\n#define EM_CW 32\n#define EM_CR (EM_RBLOCK / EM_CW)\n"
    "${kernel(EM_RBLOCK)} em_kernel(${params}) {\n${prologue}"
    "    ${shared} em_state sh[EM_RBLOCK];\n"
    "    const em_ix ns = (em_ix)p.nsplit, tiles = (em_ix)((p.nout + EM_CW - 1) / EM_CW);\n"
    "    const em_ix chunk = (em_ix)((p.m + ns - 1) / ns);\n"
    "    const int cx = (int)${tid} % EM_CW, ry = (int)${tid} / EM_CW;\n"
    "    for (em_ix u = ${bid}; u < tiles * ns; u += ${gdim}) {\n"
    "        const em_ix s = u / tiles, o = (u - s * tiles) * EM_CW + cx;\n"
    "        const em_ix k1 = (s + 1) * chunk < (em_ix)p.m ? (s + 1) * chunk : (em_ix)p.m;\n"
    "        em_state acc = em_ident();\n"
    "        if (o < (em_ix)p.nout) {\n"
    "            ${ll} lb[EM_NB];\n"
    "            em_bases(p, o, lb);\n"
    "            em_ix k = s * chunk + ry;\n"
    "            for (; k + (EM_CU - 1) * EM_CR < k1; k += EM_CU * EM_CR) {\n"
    "                em_in v[EM_CU];\n"
    "#pragma unroll\n"
    "                for (int j = 0; j < EM_CU; j++) v[j] = em_elem(p, lb, k + j * EM_CR);\n"
    "#pragma unroll\n"
    "                for (int j = 0; j < EM_CU; j++) acc = em_comb(acc, em_load(v[j], k + j * EM_CR));\n"
    "            }\n"
    "            for (; k < k1; k += EM_CR) acc = em_comb(acc, em_load(em_elem(p, lb, k), k));\n"
    "        }\n"
    "        sh[${tid}] = acc;\n"
    "        ${sync};\n"
    "        if (ry == 0 && o < (em_ix)p.nout) {\n"
    "            for (int r = 1; r < EM_CR; r++) acc = em_comb(acc, sh[r * EM_CW + cx]);\n"
    "            if (ns == 1) ((${global}em_out *)p.out)[o] = em_final(acc, p.m, p.ddof);\n"
    "            else ((${global}em_state *)p.part)[(${ll})s * p.nout + o] = acc;\n"
    "        }\n"
    "        ${sync};\n"
    "    }\n"
    "}\n"
    "${kernel(EM_RBLOCK)} em_kernel2(${params}) {\n${prologue}"
    "    for (${ll} o = (${ll})${bid} * EM_RBLOCK + ${tid}; o < p.nout; o += (${ll})${gdim} * EM_RBLOCK) {\n"
    "        em_state acc = ((${global}const em_state *)p.part)[o];\n"
    "        for (${ll} s = 1; s < p.nsplit; s++)\n"
    "            acc = em_comb(acc, ((${global}const em_state *)p.part)[s * p.nout + o]);\n"
    "        ((${global}em_out *)p.out)[o] = em_final(acc, p.m, p.ddof);\n"
    "    }\n"
    "}\n";

/* em_fast's batches are predicated: a lane's last groups are loaded with
 * its others, not one round trip each after it.  After the last batch the
 * lane goes on at its first group past the full ones (a partial group). */
static const char em__fast_done[] =
    "#define EM_FAST_DONE(g, gs, Gf) \\\n"
    "    if ((g) + EM_U * (gs) >= (Gf)) { em_ix n_ = (g); while (n_ < (Gf)) n_ += (gs); return n_; }\n";

/* Elements from k to the end of its innermost reduced run.  A 64-bit
 * modulo costs tens of instructions: with one reduced dimension (seed 004's
 * rows) there is none, which the H100 showed to matter (0.18 -> 0.2 ms). */
static const char em__run[] =
    "EM_D em_ix em_run(const em_args ${ref}p, em_ix k) {\n"
    "    return EM_NI == 1 ? (em_ix)p.m - k : (em_ix)p.ishape[EM_NI - 1] - k % (em_ix)p.ishape[EM_NI - 1];\n"
    "}\n";

/* Where the dialect has no wide loads (no em_ldg / em_pack templates): one
 * element at a time, and no fast loop. */
static const char em__no_fast[] = "#define em_wide(p, lb) false\n"
                                  "#define em_fast(p, lb, g, gs, acc) (g)\n";

/* A plain reduction reads its input: one base offset per output; a group
 * is one wide load when its elements are consecutive in the innermost
 * reduced dimension (em_ldg checks the stride and the alignment). */
static const char em__plain_input[] =
    "#define EM_NB 1\n"
    "EM_D void em_bases(const em_args ${ref}p, em_ix o, ${ll} *lb) {\n"
    "    ${ll} base = 0;\n"
    "    em_ix r = o;\n"
    "    for (int d = EM_NO - 1; d > 0; d--) { base += (r % (em_ix)p.oshape[d]) * p.ost[d]; r /= (em_ix)p.oshape[d]; }\n"
    "    lb[0] = base + r * p.ost[0]; /* r < oshape[0]: no division for the outermost */\n"
    "}\n"
    "EM_D ${ll} em_off(const em_args ${ref}p, em_ix k) {\n"
    "    ${ll} off = 0;\n"
    "    em_ix q = k;\n"
    "    for (int d = EM_NI - 1; d > 0; d--) { off += (q % (em_ix)p.ishape[d]) * p.ist[d]; q /= (em_ix)p.ishape[d]; }\n"
    "    return off + q * p.ist[0]; /* q < ishape[0]: no division for the outermost */\n"
    "}\n";

static const char em__plain_wide[] =
    "EM_D void em_group(const em_args &p, const long long *lb, em_ix k, em_in *v) {\n"
    "    if (em_run(p, k) >= EM_V)\n"
    "        em_ldg<em_in, EM_V>(v, p.in + lb[0] + em_off(p, k), p.ist[EM_NI - 1]);\n"
    "    else\n"
    "        for (int e = 0; e < EM_V; e++)\n"
    "            if (k + e < p.m) v[e] = *(const em_in *)(p.in + lb[0] + em_off(p, k + e));\n"
    "}\n"
    "EM_D bool em_wide(const em_args &p, const long long *lb) {\n"
    "    return EM_NI == 1 && p.ist[0] == (long long)sizeof(em_in) && em_packable<em_in, EM_V>(p.in + lb[0]);\n"
    "}\n"
    "EM_D em_ix em_fast(const em_args &p, const long long *lb, em_ix g, em_ix gs, em_state &acc) {\n"
    "    typedef em_pack<em_in, EM_V> P;\n"
    "    const em_ix Gf = (em_ix)(p.m / EM_V);\n"
    "    for (; g < Gf; g += EM_U * gs) {\n"
    "        P w[EM_U];\n"
    "#pragma unroll\n"
    "        for (int j = 0; j < EM_U; j++)\n"
    "            if (g + j * gs < Gf) w[j] = *(const P *)(p.in + lb[0] + (g + j * gs) * (em_ix)sizeof(P));\n"
    "#pragma unroll\n"
    "        for (int j = 0; j < EM_U; j++)\n"
    "#pragma unroll\n"
    "            for (int e = 0; e < EM_V; e++)\n"
    "                if (g + j * gs < Gf) acc = em_comb(acc, em_load(w[j].v[e], (g + j * gs) * EM_V + e));\n"
    "        EM_FAST_DONE(g, gs, Gf);\n"
    "    }\n"
    "    return g;\n"
    "}\n";

static const char em__plain_narrow[] =
    "EM_D void em_group(const em_args p, const ${ll} *lb, em_ix k, em_in *v) {\n"
    "    for (int e = 0; e < EM_V; e++)\n"
    "        if (k + e < p.m) v[e] = *(${global}const em_in *)(p.in + lb[0] + em_off(p, k + e));\n"
    "}\n";

/* The fused producer's leaves' offsets for reduced element k, from their
 * bases lb (o<j> = lb[j] + the reduced dims' part; q: the outermost index). */
static void em__render_leaf_offsets(const em_kplan *t, em_sbuf *s) {
    em_sbuf_printf(s, "    em_ix q = k;\n");
    for (int j = 1; j < t->nops; j++) /* byte offsets: 64-bit whatever em_ix is */
        if (t->cls[j] != 'P') em_sbuf_printf(s, "    ${ll} o%d = lb[%d];\n", j, j);
    em_sbuf_printf(
        s, "    for (int d = EM_NI - 1; d > 0; d--) {\n"
           "        const em_ix c = q %% (em_ix)p.ishape[d];\n        q /= (em_ix)p.ishape[d];\n");
    for (int j = 1; j < t->nops; j++)
        if (t->cls[j] != 'P') em_sbuf_printf(s, "        o%d += c * p.list[%d][d];\n", j, j);
    em_sbuf_printf(s, "    }\n");
}

/* The fused producer's value from its leaves' values (em_f), element k
 * from memory (em_at), a group (em_group), and -- CUDA -- the wide loop: a
 * leaf that is contiguous along the reduced axis is one 16-byte load per
 * group, one broadcast along it (stride 0) one load per unit. */
static void em__render_fused_input(const em_dialect *d, const em_rplan *p, em_sbuf *s) {
    const em_kplan *t = &p->tree;
    bool cxx = d->id == EM_DIALECT_CUDA;
    char name[96], params[EM_KMAXOPS * 40] = "";
    for (int j = 1; j < t->nops; j++) {
        if (t->cls[j] == 'P') continue;
        size_t n = strlen(params);
        snprintf(params + n, sizeof params - n, ", const %s x%d", em_render_ctype(t->dtypes[j]), j);
    }
    em_sbuf_printf(s, "EM_D em_in em_f(const em_args ${ref}p%s) {\n", params);
    /* A host scalar's bytes sit in its pointer's slot (p.ld_v: the raw
     * slots where the dialect rebuilds the pointers). */
    for (int j = 1; j < t->nops; j++)
        if (t->cls[j] == 'P')
            em_sbuf_printf(s, "    const %s x%d = *(const %s *)&p.ld%s[%d];\n",
                           em_render_ctype(t->dtypes[j]), j, em_tmpl_stype(d, t->dtypes[j]),
                           d->args_struct ? "" : "_v", j);
    em_render_tree_d(d, t, s, name, sizeof name);
    em_sbuf_printf(s, "    return ");
    em__render_conv_d(d, s, em_render_natural(t->root), p->in, name);
    em_sbuf_printf(s, ";\n}\n");
    em_sbuf_printf(
        s,
        "#define EM_NB EM_NL\n"
        "EM_D void em_bases(const em_args ${ref}p, em_ix o, ${ll} *lb) {\n"
        "    em_ix r = o;\n"
        "    for (int j = 0; j < EM_NL; j++) lb[j] = 0;\n"
        "    for (int d = EM_NO - 1; d > 0; d--) {\n"
        "        const em_ix c = r %% (em_ix)p.oshape[d];\n"
        "        r /= (em_ix)p.oshape[d];\n"
        "        for (int j = 1; j < EM_NL; j++) lb[j] += c * p.lost[j][d];\n"
        "    }\n"
        "    for (int j = 1; j < EM_NL; j++) lb[j] += r * p.lost[j][0]; /* r < oshape[0] */\n}\n");
    em_sbuf_printf(s, "%s", em__run);
    em_sbuf_printf(s, "EM_D em_in em_at(const em_args ${ref}p, const ${ll} *lb, em_ix k) {\n");
    em__render_leaf_offsets(t, s);
    em_sbuf_printf(s, "    return em_f(p");
    for (int j = 1; j < t->nops; j++)
        if (t->cls[j] != 'P')
            em_sbuf_printf(s, ", *(${global}const %s *)(p.ld[%d] + o%d + q * p.list[%d][0])",
                           em_tmpl_stype(d, t->dtypes[j]), j, j, j);
    em_sbuf_printf(s, ");\n}\n");
    if (!cxx) {
        em_sbuf_printf(s,
                       "EM_D void em_group(const em_args p, const ${ll} *lb, em_ix k, em_in *v) {\n"
                       "    for (int e = 0; e < EM_V; e++)\n"
                       "        if (k + e < p.m) v[e] = em_at(p, lb, k + e);\n}\n%s",
                       em__no_fast);
        return;
    }
    em_sbuf_printf(
        s, "EM_D void em_group(const em_args &p, const long long *lb, em_ix k, em_in *v) {\n"
           "    if (em_run(p, k) < EM_V) {\n"
           "        for (int e = 0; e < EM_V; e++)\n"
           "            if (k + e < p.m) v[e] = em_at(p, lb, k + e);\n"
           "        return;\n    }\n");
    em__render_leaf_offsets(t, s);
    for (int j = 1; j < t->nops; j++)
        if (t->cls[j] != 'P')
            em_sbuf_printf(
                s,
                "    %s x%dv[EM_V];\n    em_ldg<%s, EM_V>(x%dv, p.ld[%d] + o%d + q * p.list[%d][0], "
                "p.list[%d][EM_NI - 1]);\n",
                em_render_ctype(t->dtypes[j]), j, em_render_ctype(t->dtypes[j]), j, j, j, j, j);
    em_sbuf_printf(s, "#pragma unroll\n    for (int e = 0; e < EM_V; e++) v[e] = em_f(p");
    for (int j = 1; j < t->nops; j++)
        if (t->cls[j] != 'P') em_sbuf_printf(s, ", x%dv[e]", j);
    em_sbuf_printf(s, ");\n}\n");
    em_sbuf_printf(
        s, "EM_D bool em_wide(const em_args &p, const long long *lb) {\n    return EM_NI == 1");
    for (int j = 1; j < t->nops; j++)
        if (t->cls[j] != 'P')
            em_sbuf_printf(
                s,
                " &&\n        (p.list[%d][0] == 0 || (p.list[%d][0] == (long long)sizeof(%s) && "
                "em_packable<%s, EM_V>(p.ld[%d] + lb[%d])))",
                j, j, em_render_ctype(t->dtypes[j]), em_render_ctype(t->dtypes[j]), j, j);
    em_sbuf_printf(s, ";\n}\n");
    em_sbuf_printf(
        s,
        "EM_D em_ix em_fast(const em_args &p, const long long *lb, em_ix g, em_ix gs, em_state &acc) {\n");
    for (int j = 1; j < t->nops; j++) {
        if (t->cls[j] == 'P') continue;
        const char *T = em_render_ctype(t->dtypes[j]);
        em_sbuf_printf(
            s,
            "    typedef em_pack<%s, EM_V> P%d;\n    P%d b%d = {};\n    if (!p.list[%d][0])\n"
            "        for (int e = 0; e < EM_V; e++) b%d.v[e] = *(const %s *)(p.ld[%d] + lb[%d]);\n",
            T, j, j, j, j, j, T, j, j);
    }
    em_sbuf_printf(
        s, "    const em_ix Gf = (em_ix)(p.m / EM_V);\n    for (; g < Gf; g += EM_U * gs) {\n");
    for (int j = 1; j < t->nops; j++)
        if (t->cls[j] != 'P')
            em_sbuf_printf(
                s,
                "        P%d w%d[EM_U];\n#pragma unroll\n        for (int j = 0; j < EM_U; j++)\n"
                "            if (g + j * gs < Gf)\n"
                "                w%d[j] = p.list[%d][0] ? *(const P%d *)(p.ld[%d] + lb[%d] + (g + j * gs) * (em_ix)sizeof(P%d)) : b%d;\n",
                j, j, j, j, j, j, j, j, j);
    em_sbuf_printf(s, "#pragma unroll\n        for (int j = 0; j < EM_U; j++)\n#pragma unroll\n"
                      "            for (int e = 0; e < EM_V; e++)\n"
                      "                if (g + j * gs < Gf) acc = em_comb(acc, em_load(em_f(p");
    for (int j = 1; j < t->nops; j++)
        if (t->cls[j] != 'P') em_sbuf_printf(s, ", w%d[j].v[e]", j);
    em_sbuf_printf(
        s,
        "), (g + j * gs) * EM_V + e));\n        EM_FAST_DONE(g, gs, Gf);\n    }\n    return g;\n}\n");
}

/* The argument's fields (em_rplan_args' layout), for the em_kargs form. */
static int em__rfields(const em_rplan *p, em_tfield *f) {
    int n = 0;
    f[n++] = (em_tfield){'p', "in", 0, 0, NULL};
    f[n++] = (em_tfield){'p', "out", 0, 0, NULL};
    f[n++] = (em_tfield){'p', "part", 0, 0, NULL};
    f[n++] = (em_tfield){'i', "nout", 0, 0, NULL};
    f[n++] = (em_tfield){'i', "m", 0, 0, NULL};
    f[n++] = (em_tfield){'i', "nsplit", 0, 0, NULL};
    f[n++] = (em_tfield){'d', "ddof", 0, 0, NULL};
    f[n++] = (em_tfield){'i', "oshape", p->no, 0, NULL};
    f[n++] = (em_tfield){'i', "ost", p->no, 0, NULL};
    f[n++] = (em_tfield){'i', "ishape", p->ni, 0, NULL};
    f[n++] = (em_tfield){'i', "ist", p->ni, 0, NULL};
    if (p->root) {
        f[n++] = (em_tfield){'q', "ld", p->tree.nops, 0, NULL};
        f[n++] = (em_tfield){'i', "lost", p->tree.nops, p->no, NULL};
        f[n++] = (em_tfield){'i', "list", p->tree.nops, p->ni, NULL};
    }
    return n;
}

int em_rplan_buffers(const em_rplan *p, int *slots) {
    int n = 0;
    for (int k = 0; k < 3; k++) slots[n++] = k;
    if (!p->root) return n;
    int base = 7 + 2 * p->no + 2 * p->ni; /* the 8-byte slot of ld[0] */
    for (int k = 0; k < p->tree.nops; k++) slots[n++] = k && p->tree.cls[k] != 'P' ? base + k : -1;
    return n;
}

em_status em_render_reduce(const em_dialect *d, const em_rplan *p, em_sbuf *out) {
    if (!d->kernel || !d->bounds || !d->int_as_float || d->id == EM_DIALECT_C)
        return em_error(EM_EUNSUPPORTED, "reductions are not rendered for %s", d->name);
    bool cxx = d->id == EM_DIALECT_CUDA;
    em_sbuf t = {0}, *s = &t; /* the template, expanded into out at the end */
    em_tfield f[16];
    int nf = em__rfields(p, f);
    em_sbuf_printf(out, "%s", d->prelude);
    em__state_fns(d, p, s);
    em_sbuf_printf(
        s,
        "typedef %s em_in;\ntypedef %s em_out;\ntypedef %s em_ix;\n"
        "#define EM_NO %d\n#define EM_NI %d\n#define EM_RW %d\n#define EM_V %d\n#define EM_U %d\n",
        em_tmpl_stype(d, p->in), em_tmpl_stype(d, p->out), em__idx32(p) ? "int" : "${ll}", p->no,
        p->ni, p->warp ? 32 : 256, em__group_elems(p->in), em__groups_in_flight(p));
    if (p->root) em_sbuf_printf(s, "#define EM_NL %d\n", p->tree.nops);
    if (p->warp && !d->has_shuffle) {
        pthread_once(&em__tune_once, em__tune_read);
        em_sbuf_printf(s, "#define EM_UR %d\n", em__tune.r);
    }
    if (cxx) {
        em_sbuf_printf(
            s,
            "struct em_args {\n    char *in, *out, *part;\n    long long nout, m, nsplit;\n"
            "    double ddof;\n    long long oshape[EM_NO], ost[EM_NO], ishape[EM_NI], ist[EM_NI];\n");
        if (p->root)
            em_sbuf_printf(
                s, "    char *ld[EM_NL];\n    long long lost[EM_NL][EM_NO], list[EM_NL][EM_NI];\n");
        em_sbuf_printf(s, "};\n");
    } else {
        em_tmpl_args_types(d, f, nf, s);
    }
    em_sbuf_printf(s, "%s", em__fast_done);
    if (p->root)
        em__render_fused_input(d, p, s);
    else
        em_sbuf_printf(s, "%s%s%s", em__run, em__plain_input, cxx ? em__plain_wide : "");
    if (!p->root && !cxx) em_sbuf_printf(s, "%s%s", em__plain_narrow, em__no_fast);
    if (p->col) {
        em_sbuf_printf(s, "#define EM_CU %d\n", em_dtype_get(p->in)->size <= 4 ? 8 : 4);
        em_sbuf_printf(s, p->root ? "#define em_elem(p, lb, k) em_at(p, lb, k)\n"
                                  : "#define em_elem(p, lb, k) "
                                    "(*(${global}const em_in *)(p.in + (lb)[0] + em_off(p, k)))\n");
        em_sbuf_printf(s, "%s", em__col_kernels);
    } else {
        em_sbuf_printf(s, "%s%s%s", em__reduce_tree, d->has_shuffle ? em__reduce_shfl : "",
                       p->warp && !d->has_shuffle ? em__reduce_seg_kernel : em__reduce_kernels);
        if (!p->warp) em_sbuf_printf(s, "%s", em__reduce_kernel2);
    }
    return em_tmpl_finish(d, f, nf, &t, NULL, out);
}
