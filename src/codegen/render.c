/* The elementwise renderer (see render.h for the data model). */
#include "codegen/render.h"
#include "codegen/dialect.h"
#include "core/core.h"

#include <ctype.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- string builder ------------------------------------------------------ */

/* Grow b to at least cap bytes (a caller's buffer moves to the heap). */
static bool em__sbuf_grow(em_sbuf *b, size_t cap) {
    char *s = b->fixed ? malloc(cap) : realloc(b->s, cap);
    if (!s) {
        b->oom = true;
        return false;
    }
    if (b->fixed && b->len) memcpy(s, b->s, b->len + 1);
    b->s = s, b->cap = cap, b->fixed = false;
    return true;
}

void em_sbuf_printf(em_sbuf *b, const char *fmt, ...) {
    if (b->oom) return;
    for (;;) {
        va_list ap;
        va_start(ap, fmt);
        size_t room = b->cap - b->len;
        int n = vsnprintf(b->s ? b->s + b->len : NULL, room, fmt, ap);
        va_end(ap);
        if (n < 0) {
            b->oom = true;
            return;
        }
        if ((size_t)n < room) {
            b->len += (size_t)n;
            return;
        }
        size_t cap = b->cap ? b->cap * 2 : 1024;
        while (cap - b->len <= (size_t)n) cap *= 2;
        if (!em__sbuf_grow(b, cap)) return;
    }
}

void em_sbuf_put(em_sbuf *b, const char *s, size_t n) {
    if (b->oom) return;
    if (b->len + n + 1 > b->cap) {
        size_t cap = b->cap ? b->cap * 2 : 256;
        while (cap < b->len + n + 1) cap *= 2;
        if (!em__sbuf_grow(b, cap)) return;
    }
    memcpy(b->s + b->len, s, n);
    b->len += n;
    b->s[b->len] = 0;
}

void em_sbuf_free(em_sbuf *b) {
    if (!b->fixed) free(b->s);
    memset(b, 0, sizeof *b);
}

const char *em_render_prelude(void) { return em_dialect_cuda.prelude; }

const char *em_render_ctype(em_dtype dt) {
    static const char *const names[EM_NDTYPES] = {"bool",  "em_i8",  "em_i16", "em_i32", "em_i64",
                                                  "em_u8", "em_u16", "em_u32", "em_u64", "em_f16",
                                                  "float", "double", "em_c64", "em_c128"};
    return (unsigned)dt < EM_NDTYPES ? names[dt] : "void";
}

/* ---- planning ------------------------------------------------------------ */

static em_status em__add_leaf(em_kplan *p, const em_node *nd, int *nnodes) {
    if (++*nnodes > EM_KMAXNODES)
        return em_error(EM_EUNSUPPORTED, "expression has more than %d nodes", EM_KMAXNODES);
    if (nd->nin > 0) {
        for (int i = 0; i < nd->nin; i++) EM_CHECK(em__add_leaf(p, nd->in[i], nnodes));
        return EM_OK;
    }
    for (int k = 1; k < p->nops; k++)
        if (p->leaves[k] == nd) return EM_OK;
    if (p->nops == EM_KMAXOPS)
        return em_error(EM_EUNSUPPORTED, "expression reads more than %d arrays", EM_KMAXOPS - 1);
    p->leaves[p->nops++] = nd;
    return EM_OK;
}

/* Drop size-1 dims; merge neighbours contiguous for every operand. */
static void em__coalesce(em_kplan *p) {
    int nd = 0;
    for (int i = 0; i < p->ndim; i++) {
        if (p->shape[i] == 1) continue;
        bool merge = nd > 0;
        for (int k = 0; k < p->nops && merge; k++)
            merge = p->strides[k][nd - 1] == p->strides[k][i] * p->shape[i];
        if (merge) {
            p->shape[nd - 1] *= p->shape[i];
            for (int k = 0; k < p->nops; k++) p->strides[k][nd - 1] = p->strides[k][i];
            continue;
        }
        p->shape[nd] = p->shape[i];
        for (int k = 0; k < p->nops; k++) p->strides[k][nd] = p->strides[k][i];
        nd++;
    }
    p->ndim = nd;
}

/* Layout class of operand k and whether its byte extent fits 31 bits. */
static char em__classify(const em_kplan *p, int k, bool *fits) {
    int64_t isz = EM_DTYPE_SIZE(p->dtypes[k]), expect = isz, span = 0;
    bool contig = true, scalar = true;
    for (int i = p->ndim - 1; i >= 0; i--) {
        int64_t st = p->strides[k][i];
        contig = contig && st == expect;
        scalar = scalar && st == 0;
        expect *= p->shape[i];
        span += (p->shape[i] - 1) * (st < 0 ? -st : st);
    }
    *fits = span + isz < ((int64_t)1 << 31);
    return scalar ? 'S' : contig ? 'C' : 'N';
}

/* A host scalar read by a device kernel travels by value in the argument
 * (class 'P'): Python scalars need no device copy, and the key does not
 * depend on their values. */
static bool em__by_value(const em_array *leaf, const em_array *out) {
    return leaf->buf && out->buf && leaf->buf->device.kind == EM_CPU &&
           out->buf->device.kind != EM_CPU && em_array_size(leaf) == 1 &&
           EM_DTYPE_SIZE(leaf->dtype) <= 8;
}

em_status em_kplan_make(const em_node *root, const em_array *out, em_kplan *p) {
    /* Every field read later is set below for operands < nops and dims <
     * ndim: no memset of the 4.7 KB plan, which is made per launch. */
    p->leaves[0] = NULL;
    p->root = root;
    p->nops = 1;
    int nnodes = 0;
    EM_CHECK(em__add_leaf(p, root, &nnodes));
    EM_CHECK(em_shape_size(out->ndim, out->shape, &p->n));
    p->ndim = out->ndim;
    memcpy(p->shape, out->shape, sizeof(int64_t) * (size_t)out->ndim);
    memcpy(p->strides[0], out->strides, sizeof(int64_t) * (size_t)out->ndim);
    p->dtypes[0] = out->dtype;
    p->data[0] = out->data;
    for (int k = 1; k < p->nops; k++) {
        EM_CHECK(em__broadcast_strides(p->leaves[k]->leaf, out, p->strides[k]));
        p->dtypes[k] = p->leaves[k]->leaf->dtype;
        p->data[k] = p->leaves[k]->leaf->data;
    }
    em__coalesce(p);
    p->contig = true;
    p->idx32 = p->n <= ((int64_t)1 << 30);
    for (int k = 0; k < p->nops; k++) {
        bool fits;
        p->cls[k] = em__classify(p, k, &fits);
        /* The output is written per element even if its strides are all 0. */
        if (k == 0 && p->cls[0] == 'S' && p->n > 1) p->cls[0] = 'N';
        if (k > 0 && em__by_value(p->leaves[k]->leaf, out)) p->cls[k] = 'P';
        p->contig = p->contig && p->cls[k] != 'N';
        p->idx32 = p->idx32 && fits;
    }
    return EM_OK;
}

em_status em_kplan_tree(const em_node *root, const em_array *out, em_kplan *p) {
    memset(p, 0, sizeof *p);
    p->root = root;
    p->nops = 1;
    int nnodes = 0;
    EM_CHECK(em__add_leaf(p, root, &nnodes));
    p->dtypes[0] = root->dtype;
    p->cls[0] = 'N';
    for (int k = 1; k < p->nops; k++) {
        p->dtypes[k] = p->leaves[k]->leaf->dtype;
        p->data[k] = p->leaves[k]->leaf->data;
        p->cls[k] = em__by_value(p->leaves[k]->leaf, out) ? 'P' : 'N';
    }
    return EM_OK;
}

/* ---- key and arguments ---------------------------------------------------- */

/* Append one character (without printf). */
void em_sbuf_putc(em_sbuf *b, char c) {
    if (b->oom) return;
    if (b->len + 2 > b->cap && !em__sbuf_grow(b, b->cap ? b->cap * 2 : 256)) return;
    b->s[b->len++] = c;
    b->s[b->len] = 0;
}

_Static_assert(EM_NDTYPES < 78 && EM_MAXDIMS < 78 && EM_KMAXOPS < 78 && EM_NOPS < 78 * 78,
               "key fields must fit one printable character (ops: two)");

/* The key writer: a character past cap is counted, not written, so that
 * one pass tells a big tree's length (keys are built per launch: no
 * per-character function call, no printf). */
typedef struct {
    char *buf;
    size_t cap, at;
} em__kw;

static inline void em__kput(em__kw *w, char c) {
    if (w->at < w->cap) w->buf[w->at] = c;
    w->at++;
}

/* A small number (< 78: dtype, operand, ndim) as one printable character. */
static inline void em__kc(em__kw *w, int v) { em__kput(w, (char)('0' + v)); }

/* An op (< 78 * 78) as two printable characters. */
static inline void em__kop(em__kw *w, int v) { em__kc(w, v / 78), em__kc(w, v % 78); }

static void em__key_node(const em_kplan *p, const em_node *nd, em__kw *w) {
    if (nd->nin == 0) {
        for (int k = 1; k < p->nops; k++)
            if (p->leaves[k] == nd) em__kput(w, 'L'), em__kc(w, k);
        return;
    }
    em__kput(w, '('), em__kop(w, (int)nd->op), em__kc(w, (int)nd->loop);
    for (int i = 0; i < nd->nin; i++) em__key_node(p, nd->in[i], w);
    em__kput(w, ')');
}

/* The tree part, then (full) the launch shape, then each operand. */
static void em__key(const em_kplan *p, bool full, em__kw *w) {
    em__key_node(p, p->root, w);
    em__kput(w, '|');
    if (full) em__kc(w, p->contig ? 0 : p->ndim), em__kc(w, p->idx32);
    for (int k = 0; k < p->nops; k++) em__kc(w, (int)p->dtypes[k]), em__kput(w, p->cls[k]);
}

/* Append the key to an sbuf: written in place when it fits, else measured,
 * grown and written again. */
static void em__key_sbuf(const em_kplan *p, bool full, em_sbuf *key) {
    if (key->oom) return;
    em__kw w = {key->s ? key->s + key->len : NULL, key->cap > key->len ? key->cap - key->len : 0,
                0};
    em__key(p, full, &w);
    if (w.at >= w.cap) {
        if (!em__sbuf_grow(key, key->len + w.at + 1)) return;
        w = (em__kw){key->s + key->len, key->cap - key->len, 0};
        em__key(p, full, &w);
    }
    key->len += w.at;
    key->s[key->len] = 0;
}

void em_kplan_tree_key(const em_kplan *p, em_sbuf *key) { em__key_sbuf(p, false, key); }

void em_kplan_key(const em_kplan *p, em_sbuf *key) { em__key_sbuf(p, true, key); }

size_t em_kplan_key_into(const em_kplan *p, char *buf, size_t cap) {
    em__kw w = {buf, cap, 0};
    em__key(p, true, &w);
    if (w.at < cap) buf[w.at] = 0;
    return w.at;
}

/* 8 bytes at a time (a key is hashed per launch; FNV-1a's byte loop was a
 * tenth of a small op's instructions).  Only in-memory tables use it. */
uint64_t em_key_hash(const void *data, size_t n) {
    const unsigned char *s = data;
    uint64_t h = 0x9e3779b97f4a7c15ULL ^ n;
    for (; n >= 8; s += 8, n -= 8) {
        uint64_t v;
        memcpy(&v, s, 8);
        h = (h ^ v) * 0xff51afd7ed558ccdULL;
        h ^= h >> 32;
    }
    uint64_t v = 0;
    memcpy(&v, s, n);
    h = (h ^ v) * 0xc4ceb9fe1a85ec53ULL;
    return h ^ (h >> 29);
}

size_t em_kplan_args(const em_kplan *p, void *buf, size_t cap) {
    int nd = p->contig ? 0 : p->ndim;
    size_t need = 8 * ((size_t)p->nops + 1 + (size_t)nd + (size_t)p->nops * (size_t)nd);
    if (need > cap) return 0;
    char *b = buf;
    memcpy(b, p->data, 8 * (size_t)p->nops);
    for (int k = 1; k < p->nops; k++)
        if (p->cls[k] == 'P') { /* the value's bytes in the pointer's slot */
            memset(b + 8 * k, 0, 8);
            memcpy(b + 8 * k, p->data[k], (size_t)EM_DTYPE_SIZE(p->dtypes[k]));
        }
    b += 8 * (size_t)p->nops;
    memcpy(b, &p->n, 8);
    b += 8;
    if (nd) {
        memcpy(b, p->shape, 8 * (size_t)nd);
        b += 8 * (size_t)nd;
        for (int k = 0; k < p->nops; k++, b += 8 * (size_t)nd)
            memcpy(b, p->strides[k], 8 * (size_t)nd);
    }
    return need;
}

size_t em_kplan_kargs(const em_kplan *p, em_kargs *ka, void *blob, size_t cap) {
    int nd = p->contig ? 0 : p->ndim, np = 0;
    for (int k = 1; k < p->nops; k++) np += p->cls[k] == 'P';
    size_t need = 8 * (1 + (size_t)np + (size_t)nd + (size_t)p->nops * (size_t)nd);
    if (need > cap || p->nops > EM_KARGS_MAXBUF) return 0;
    char *b = blob;
    ka->nbuf = 0;
    memcpy(b, &p->n, 8);
    b += 8;
    for (int k = 0; k < p->nops; k++)
        if (p->cls[k] == 'P') { /* the value's bytes, zero-padded, in its field */
            memset(b, 0, 8);
            memcpy(b, p->data[k], (size_t)EM_DTYPE_SIZE(p->dtypes[k]));
            b += 8;
        } else {
            ka->buf[ka->nbuf++] = p->data[k];
        }
    if (nd) {
        memcpy(b, p->shape, 8 * (size_t)nd);
        b += 8 * (size_t)nd;
        for (int k = 0; k < p->nops; k++, b += 8 * (size_t)nd)
            memcpy(b, p->strides[k], 8 * (size_t)nd);
    }
    ka->blob = blob;
    ka->blob_size = need;
    return need;
}

/* Copy src at buf + at (room for len bytes in all); returns the new end. */
static size_t em__cat(char *buf, size_t len, size_t at, const char *src) {
    while (*src && at + 1 < len) buf[at++] = *src++;
    if (at < len) buf[at] = 0;
    return at;
}

/* Built per launch: no printf. */
void em_kplan_name(const em_kplan *p, char *buf, size_t len) {
    const em_node *r = p->root;
    if (!len) return;
    size_t at = em__cat(buf, len, 0, r->nin ? em_op_get(r->op)->name : "copy");
    at = em__cat(buf, len, at, "_");
    em__cat(buf, len, at, em_dtype_get(p->dtypes[0])->name);
}

/* ---- source ---------------------------------------------------------------- */

/* expr converted from dtype `from` to `to`, with the CPU backend's rules,
 * in dialect d (the same text in CUDA and OpenCL C today; d is for a
 * spelling that differs). */
void em__render_conv_d(const em_dialect *d, em_sbuf *s, em_dtype from, em_dtype to, const char *x) {
    char fk = em_dtype_get(from)->kind, tk = em_dtype_get(to)->kind;
    const char *T = em_render_ctype(to);
    if (from == to)
        em_sbuf_printf(s, "%s", x);
    else if (from == EM_FLOAT16) {
        char inner[96];
        snprintf(inner, sizeof inner, "em_h2f(%s)", x);
        em__render_conv_d(d, s, EM_FLOAT32, to, inner);
    } else if (fk == 'c' && tk == 'c') {
        /* em_mk_c64 / em_mk_c128: in every prelude (OpenCL has no templates). */
        const char *R = to == EM_COMPLEX64 ? "float" : "double";
        em_sbuf_printf(s, "em_mk_%s((%s)%s.re, (%s)%s.im)", em_scalar_suffix(to), R, x, R, x);
    } else if (fk == 'c' && tk == 'b')
        em_sbuf_printf(s, "(%s.re != 0 || %s.im != 0)", x, x);
    else if (fk == 'c') {
        char inner[96];
        snprintf(inner, sizeof inner, "%s.re", x);
        em__render_conv_d(d, s, from == EM_COMPLEX64 ? EM_FLOAT32 : EM_FLOAT64, to, inner);
    } else if (tk == 'c') {
        const char *R = to == EM_COMPLEX64 ? "float" : "double";
        em_sbuf_printf(s, "em_mk_%s((%s)%s, (%s)0)", em_scalar_suffix(to), R, x, R);
    } else if (to == EM_FLOAT16)
        em_sbuf_printf(s, from == EM_FLOAT32 ? "em_f2h(%s)" : "em_d2h((double)%s)", x);
    else if (tk == 'b')
        em_sbuf_printf(s, "(%s != 0)", x);
    else if (fk == 'f' && tk != 'f' && (em_dtype_get(to)->size <= 2 || to == EM_INT32))
        em_sbuf_printf(s, "(%s)em_f2i32(%s)", T, x); /* as the CPU: via int32, NumPy on x86 */
    else if (fk == 'f' && tk != 'f')
        em_sbuf_printf(s, "(%s)em_f2u(%s)", T, x);
    else
        em_sbuf_printf(s, "(%s)%s", T, x);
}

void em__render_conv(em_sbuf *s, em_dtype from, em_dtype to, const char *x) {
    em__render_conv_d(&em_dialect_cuda, s, from, to, x);
}

/* The dtype an op's spelling computes in (float16 ops compute in float32). */
static em_dtype em__computes(const em_node *nd) {
    switch (em_op_get(nd->op)->resolver) {
    case EM_RES_CMP:
    case EM_RES_BOOL:
    case EM_RES_PRED: return EM_BOOL;
    case EM_RES_REAL: return em_real_for(nd->loop);
    default: return nd->loop;
    }
}

/* The dtype of a node's value in the kernel: its own dtype, so a float16
 * node is rounded to float16 before the next op reads it, as when the
 * eager op stores it (fused == unfused). */
static em_dtype em__natural(const em_node *nd) {
    return nd->nin == 0 ? nd->leaf->dtype : nd->dtype;
}

/* The op's spelling with the operands a, b, c replaced by names and each
 * function called given the loop dtype's suffix: em_add(a, b) becomes
 * em_add_f32(x1, x2), the scalar library's per-type name. */
static void em__spell(em_sbuf *s, const char *spell, char names[][96], em_dtype loop) {
    for (const char *c = spell; *c; c++) {
        bool word = (c == spell || !(isalnum((unsigned char)c[-1]) || c[-1] == '_')) &&
                    !(isalnum((unsigned char)c[1]) || c[1] == '_');
        if (word && *c >= 'a' && *c <= 'c')
            em_sbuf_printf(s, "%s", names[*c - 'a']);
        else if (*c == '(' && c > spell && (isalnum((unsigned char)c[-1]) || c[-1] == '_'))
            em_sbuf_printf(s, "_%s(", em_scalar_suffix(loop));
        else
            em_sbuf_printf(s, "%c", *c);
    }
}

typedef struct em__emit {
    const em_dialect *d; /* NULL: CUDA */
    const em_kplan *p;
    em_sbuf *s;
    int ntemps;
    const em_node *done[EM_KMAXNODES];
} em__emit;

/* Whether every leaf under nd is one value for the whole kernel (a broadcast
 * scalar 'S' or a host scalar 'P'): NumPy's loop would see it with stride 0. */
static bool em__uniform(const em_kplan *p, const em_node *nd) {
    if (nd->nin == 0) {
        for (int k = 1; k < p->nops; k++)
            if (p->leaves[k] == nd) return p->cls[k] == 'S' || p->cls[k] == 'P';
        return false;
    }
    for (int i = 0; i < nd->nin; i++)
        if (!em__uniform(p, nd->in[i])) return false;
    return true;
}

/* NumPy's float32/float64 power loops take sqrt for an exponent of 0.5 seen
 * with stride 0 (so (-inf) ** 0.5 is nan and (-0.0) ** 0.5 is -0.0, where
 * pow gives inf and 0.0); a full array of 0.5 keeps pow.  The host does it
 * for a scalar it can read (python/_ember/ufunc.c); a device scalar is
 * tested here, in the kernel, so no read-back is needed. */
static bool em__power_half(const em__emit *e, const em_node *nd) {
    em_dtype t = em__natural(nd);
    return nd->op == EM_OP_POWER && (t == EM_FLOAT32 || t == EM_FLOAT64) && nd->loop == t &&
           em__uniform(e->p, nd->in[1]);
}

/* Emit the statements computing nd; returns its temp name in name. */
static void em__emit_node(em__emit *e, const em_node *nd, char *name, size_t len) {
    if (nd->nin == 0) {
        for (int k = 1; k < e->p->nops; k++)
            if (e->p->leaves[k] == nd) snprintf(name, len, "x%d", k);
        return;
    }
    for (int i = 0; i < e->ntemps; i++)
        if (e->done[i] == nd) {
            snprintf(name, len, "t%d", i);
            return;
        }
    char args[EM_NODE_MAXIN][96];
    char conv[EM_NODE_MAXIN][96];
    for (int i = 0; i < nd->nin; i++) {
        em__emit_node(e, nd->in[i], args[i], sizeof args[i]);
        em_dtype want = (nd->op == EM_OP_WHERE && i == 0) ? EM_BOOL : nd->loop;
        em_sbuf c = {0};
        em__render_conv_d(e->d ? e->d : &em_dialect_cuda, &c, em__natural(nd->in[i]), want,
                          args[i]);
        snprintf(conv[i], sizeof conv[i], "%s", c.s ? c.s : "");
        em_sbuf_free(&c);
    }
    int t = e->ntemps++;
    e->done[t] = nd;
    em_sbuf_printf(e->s, "        const %s t%d = ", em_render_ctype(em__natural(nd)), t);
    if (em__power_half(e, nd)) {
        const char *sfx = em_scalar_suffix(nd->loop);
        const char *half = nd->loop == EM_FLOAT32 ? "0.5f" : "0.5";
        em_sbuf_printf(e->s, "(%s) == %s ? em_sqrt_%s(%s) : em_power_%s(%s, %s)", conv[1], half,
                       sfx, conv[0], sfx, conv[0], conv[1]);
    } else if (em__computes(nd) == em__natural(nd)) {
        em__spell(e->s, em_op_get(nd->op)->spelling, conv, nd->loop);
    } else {
        em_sbuf ex = {0};
        em_sbuf_printf(&ex, "(");
        em__spell(&ex, em_op_get(nd->op)->spelling, conv, nd->loop);
        em_sbuf_printf(&ex, ")");
        em__render_conv_d(e->d ? e->d : &em_dialect_cuda, e->s, em__computes(nd), em__natural(nd),
                          ex.s ? ex.s : "");
        if (ex.oom) e->s->oom = true;
        em_sbuf_free(&ex);
    }
    em_sbuf_printf(e->s, ";\n");
    snprintf(name, len, "t%d", t);
}

/* Operand k's pointer: a field of the argument struct, or (OpenCL, whose
 * kernel arguments hold no pointers) a kernel argument of its own. */
static void em__dptr(const em_dialect *d, int k, char *buf, size_t len) {
    if (d->args_struct)
        snprintf(buf, len, "p.d[%d]", k);
    else
        snprintf(buf, len, "d%d", k);
}

/* The type an element is stored as: bool as the dialect's bool_storage
 * (OpenCL's bool has no defined size, so buffers hold uchar; loads and
 * stores convert by C's rules: nonzero is true, true is 1). */
static const char *em__stype(const em_dialect *d, em_dtype dt) {
    return dt == EM_BOOL ? d->bool_storage : em_render_ctype(dt);
}

/* The cast prefix of a device pointer ("__global " in OpenCL, else ""). */
static const char *em__gq(const em_dialect *d) { return d->global[0] ? "__global " : ""; }

/* The kernel's signature and argument struct (CUDA's is C++, the others
 * typedef it), then the scalar operands and the loop bounds. */
static void em__emit_head(const em_dialect *d, const em_kplan *p, em_sbuf *s) {
    int nd = p->contig ? 0 : p->ndim;
    const char *L = d->i64;
    bool cxx = d->id == EM_DIALECT_CUDA;
    em_sbuf_printf(s, "\n// %s\n%s {\n", "elementwise", cxx ? "struct em_args" : "typedef struct");
    if (d->args_struct) em_sbuf_printf(s, "    char *d[%d];\n", p->nops);
    em_sbuf_printf(s, "    %s n;\n", L);
    /* Without args_struct (OpenCL) a host scalar's 8-byte slot is a field. */
    if (!d->args_struct)
        for (int k = 1; k < p->nops; k++)
            if (p->cls[k] == 'P') em_sbuf_printf(s, "    ulong v%d;\n", k);
    if (nd) em_sbuf_printf(s, "    %s shape[%d];\n    %s st[%d][%d];\n", L, nd, L, p->nops, nd);
    char bounds[64], ptr[32];
    em_dialect_bounds(d, 256, bounds, sizeof bounds);
    em_sbuf_printf(s, "}%s;\n\n%s %s%s%s(", cxx ? "" : " em_args", d->kernel, bounds,
                   bounds[0] ? " " : "", EM_KNAME);
    /* The em_kargs form (backend.h): each buffer then the byte offset of
     * the view into it (OpenCL buffers are handles, not addresses), added on
     * entry; host scalars are in the struct. */
    if (!d->args_struct)
        for (int k = 0; k < p->nops; k++)
            if (p->cls[k] != 'P') em_sbuf_printf(s, "__global char *d%d, ulong o%d, ", k, k);
    em_sbuf_printf(s, "const em_args p) {\n");
    if (!d->args_struct)
        for (int k = 0; k < p->nops; k++)
            if (p->cls[k] != 'P') em_sbuf_printf(s, "    d%d += o%d;\n", k, k);
    em_sbuf_printf(s, "    typedef %s em_idx;\n", p->idx32 ? "int" : L);
    for (int k = 1; k < p->nops; k++) {
        const char *T = em_render_ctype(p->dtypes[k]), *ST = em__stype(d, p->dtypes[k]);
        em__dptr(d, k, ptr, sizeof ptr);
        if (p->cls[k] == 'S')
            em_sbuf_printf(s, "    const %s x%d = *(%sconst %s *)%s;\n", T, k, em__gq(d), ST, ptr);
        else if (p->cls[k] == 'P' && d->args_struct)
            em_sbuf_printf(s, "    const %s x%d = *(const %s *)&%s;\n", T, k, ST, ptr);
        else if (p->cls[k] == 'P')
            em_sbuf_printf(s, "    const %s x%d = *(const %s *)&p.v%d;\n", T, k, ST, k);
    }
    char bdim[32], gdim[32];
    em_dialect_reg(d->local_size, 0, bdim, sizeof bdim);
    em_dialect_reg(d->num_groups, 0, gdim, sizeof gdim);
    em_sbuf_printf(s,
                   "    const em_idx n = (em_idx)p.n, step = (em_idx)%s * %s;\n"
                   "    em_idx i0 = 0;\n",
                   bdim, gdim);
}

/* Offsets of the non-scalar operands for element i (strided form). */
static void em__emit_offsets(const em_kplan *p, em_sbuf *s) {
    em_sbuf_printf(s, "        em_idx r = i");
    for (int k = 0; k < p->nops; k++)
        if (p->cls[k] != 'S' && p->cls[k] != 'P') em_sbuf_printf(s, ", o%d = 0", k);
    em_sbuf_printf(s, ";\n");
    for (int d = p->ndim - 1; d >= 0; d--) {
        if (d > 0)
            em_sbuf_printf(
                s, "        { const em_idx c = r %% (em_idx)p.shape[%d]; r /= (em_idx)p.shape[%d];",
                d, d);
        else
            em_sbuf_printf(s, "        { const em_idx c = r;");
        for (int k = 0; k < p->nops; k++)
            if (p->cls[k] != 'S' && p->cls[k] != 'P')
                em_sbuf_printf(s, " o%d += c * (em_idx)p.st[%d][%d];", k, k, d);
        em_sbuf_printf(s, " }\n");
    }
}

/* Address expression of operand k for element i. */
static void em__addr(const em_dialect *d, const em_kplan *p, int k, char *buf, size_t len,
                     bool out) {
    const char *T = em__stype(d, p->dtypes[k]), *q = out ? "" : "const ";
    char ptr[32];
    em__dptr(d, k, ptr, sizeof ptr);
    if (p->contig)
        snprintf(buf, len, "((%s%s%s *)%s)[i]", em__gq(d), q, T, ptr);
    else
        snprintf(buf, len, "*(%s%s%s *)(%s + o%d)", em__gq(d), q, T, ptr, k);
}

void em_render_tree(const em_kplan *p, em_sbuf *s, char *name, size_t len) {
    em_render_tree_d(&em_dialect_cuda, p, s, name, len);
}

void em_render_tree_d(const em_dialect *d, const em_kplan *p, em_sbuf *s, char *name, size_t len) {
    em__emit e = {.d = d, .p = p, .s = s};
    em__emit_node(&e, p->root, name, len);
}

em_dtype em_render_natural(const em_node *nd) { return em__natural(nd); }

int em_kplan_group(const em_kplan *p) {
    if (!p->contig) return 1;
    int w = 1;
    for (int k = 0; k < p->nops; k++)
        if (k == 0 || (p->cls[k] != 'S' && p->cls[k] != 'P'))
            if (EM_DTYPE_SIZE(p->dtypes[k]) > w) w = EM_DTYPE_SIZE(p->dtypes[k]);
    return w >= 16 ? 1 : 16 / w;
}

/* The contiguous form's wide loop: when every array operand is 16-byte
 * aligned, each thread takes EM_V consecutive elements per step in one
 * load per operand and one store (the H100 moved 2690 GB/s with 4-byte
 * accesses and 2940 with 16-byte ones on a + b); the scalar loop after it
 * does the tail, or everything when an operand is not aligned. */
static void em__emit_wide(const em_kplan *p, em_sbuf *s) {
    em_sbuf_printf(s, "#define EM_V %d\n    if (((unsigned long long)p.d[0]", em_kplan_group(p));
    for (int k = 1; k < p->nops; k++)
        if (p->cls[k] != 'S' && p->cls[k] != 'P')
            em_sbuf_printf(s, " | (unsigned long long)p.d[%d]", k);
    em_sbuf_printf(
        s,
        ") %% 16 == 0) {\n"
        "        const em_idx G = n / EM_V;\n"
        "        for (em_idx g = (em_idx)blockIdx.x * blockDim.x + threadIdx.x; g < G; g += step) {\n");
    for (int k = 1; k < p->nops; k++) {
        if (p->cls[k] == 'S' || p->cls[k] == 'P') continue;
        const char *T = em_render_ctype(p->dtypes[k]);
        em_sbuf_printf(
            s,
            "        %s x%dv[EM_V];\n        em_ldg<%s, EM_V>(x%dv, p.d[%d] + (long long)g * (EM_V * sizeof(%s)), sizeof(%s));\n",
            T, k, T, k, k, T, T);
    }
    const char *O = em_render_ctype(p->dtypes[0]);
    em_sbuf_printf(
        s, "        %s ov[EM_V];\n#pragma unroll\n        for (int e = 0; e < EM_V; e++) {\n", O);
    for (int k = 1; k < p->nops; k++)
        if (p->cls[k] != 'S' && p->cls[k] != 'P')
            em_sbuf_printf(s, "        const %s x%d = x%dv[e];\n", em_render_ctype(p->dtypes[k]), k,
                           k);
    char name[96];
    em__emit e = {.p = p, .s = s};
    em__emit_node(&e, p->root, name, sizeof name);
    em_sbuf_printf(s, "        ov[e] = ");
    em__render_conv(s, em__natural(p->root), p->dtypes[0], name);
    em_sbuf_printf(
        s,
        ";\n        }\n        em_stv<%s, EM_V>(p.d[0] + (long long)g * (EM_V * sizeof(%s)), ov);\n"
        "        }\n        i0 = G * EM_V;\n    }\n",
        O, O);
}

/* OpenCL C's built-in scalar type an element of dt is stored as (the one
 * its vector types, as uint4, are made of), or NULL. */
static const char *em__cl_scalar(em_dtype dt) {
    static const char *const names[EM_NDTYPES] = {
        [EM_BOOL] = "uchar",   [EM_INT8] = "char",     [EM_INT16] = "short",   [EM_INT32] = "int",
        [EM_INT64] = "long",   [EM_UINT8] = "uchar",   [EM_UINT16] = "ushort", [EM_UINT32] = "uint",
        [EM_UINT64] = "ulong", [EM_FLOAT32] = "float", [EM_FLOAT64] = "double"};
    return (unsigned)dt < EM_NDTYPES ? names[dt] : NULL;
}

static bool em__cl_narrow;
static pthread_once_t em__cl_narrow_once = PTHREAD_ONCE_INIT;
static void em__cl_narrow_read(void) {
    const char *v = getenv("EMBER_OPENCL_NARROW");
    em__cl_narrow = v && *v && strcmp(v, "0") != 0;
}

bool em_render_ew_wide(const em_dialect *d, const em_kplan *p) {
    if (!p->contig) return false;
    if (d->id == EM_DIALECT_CUDA) return true;
    if (d->id != EM_DIALECT_OPENCL || em_kplan_group(p) < 2) return false;
    pthread_once(&em__cl_narrow_once, em__cl_narrow_read);
    if (em__cl_narrow) return false;
    for (int k = 0; k < p->nops; k++)
        if ((k == 0 || (p->cls[k] != 'S' && p->cls[k] != 'P')) && !em__cl_scalar(p->dtypes[k]))
            return false;
    return true;
}

/* OpenCL's wide loop, as CUDA's (em__emit_wide): where every array operand
 * is 16-byte aligned, a work-item takes EM_V consecutive elements per step,
 * each operand read as one vector (a float4 for float32: the vector type's
 * alignment lets the compiler issue one 16-byte load, where vload4 may
 * only assume the scalar's), taken apart through a union (OpenCL C's
 * sanctioned type pun), and the results written as one vector. */
static void em__emit_wide_cl(const em_dialect *d, const em_kplan *p, em_sbuf *s) {
    int v = em_kplan_group(p);
    em_sbuf_printf(s, "#define EM_V %d\n    if (((ulong)d0", v);
    for (int k = 1; k < p->nops; k++)
        if (p->cls[k] != 'S' && p->cls[k] != 'P') em_sbuf_printf(s, " | (ulong)d%d", k);
    em_sbuf_printf(s, ") %% 16 == 0) {\n        const em_idx G = n / EM_V;\n"
                      "        for (em_idx g = (em_idx)get_group_id(0) * get_local_size(0) + "
                      "get_local_id(0); g < G; g += step) {\n");
    for (int k = 1; k < p->nops; k++) {
        if (p->cls[k] == 'S' || p->cls[k] == 'P') continue;
        const char *T = em__cl_scalar(p->dtypes[k]);
        em_sbuf_printf(s,
                       "            union { %s%d v; %s s[EM_V]; } u%d;\n"
                       "            u%d.v = ((__global const %s%d *)d%d)[g];\n",
                       T, v, T, k, k, T, v, k);
    }
    const char *O = em__cl_scalar(p->dtypes[0]);
    em_sbuf_printf(s,
                   "            union { %s%d v; %s s[EM_V]; } uo;\n"
                   "#pragma unroll\n            for (int e = 0; e < EM_V; e++) {\n",
                   O, v, O);
    for (int k = 1; k < p->nops; k++)
        if (p->cls[k] != 'S' && p->cls[k] != 'P')
            em_sbuf_printf(s, "                const %s x%d = u%d.s[e];\n",
                           em_render_ctype(p->dtypes[k]), k, k);
    char name[96];
    em__emit e = {.d = d, .p = p, .s = s};
    em__emit_node(&e, p->root, name, sizeof name);
    em_sbuf_printf(s, "                uo.s[e] = ");
    em__render_conv_d(d, s, em__natural(p->root), p->dtypes[0], name);
    em_sbuf_printf(s,
                   ";\n            }\n            ((__global %s%d *)d0)[g] = uo.v;\n"
                   "        }\n        i0 = G * EM_V;\n    }\n",
                   O, v);
}

em_status em_render_ew(const em_dialect *d, const em_kplan *p, em_sbuf *s) {
    em__emit_head(d, p, s);
    /* The wide loop (CUDA's em_ldg / em_stv templates, OpenCL's vector
     * types) where em_render_ew_wide says; elsewhere each thread takes one
     * element per step (the loop is grid-strided, so any grid is correct). */
    if (em_render_ew_wide(d, p))
        d->id == EM_DIALECT_CUDA ? em__emit_wide(p, s) : em__emit_wide_cl(d, p, s);
    char bid[32], bdim[32], tid[32];
    em_dialect_reg(d->group_id, 0, bid, sizeof bid);
    em_dialect_reg(d->local_size, 0, bdim, sizeof bdim);
    em_dialect_reg(d->local_id, 0, tid, sizeof tid);
    em_sbuf_printf(s, "    for (em_idx i = i0 + (em_idx)%s * %s + %s; i < n; i += step) {\n", bid,
                   bdim, tid);
    if (!p->contig) em__emit_offsets(p, s);
    char addr[128], name[96];
    for (int k = 1; k < p->nops; k++) {
        if (p->cls[k] == 'S' || p->cls[k] == 'P') continue;
        em__addr(d, p, k, addr, sizeof addr, false);
        em_sbuf_printf(s, "        const %s x%d = %s;\n", em_render_ctype(p->dtypes[k]), k, addr);
    }
    em__emit e = {.d = d, .p = p, .s = s};
    em__emit_node(&e, p->root, name, sizeof name);
    em__addr(d, p, 0, addr, sizeof addr, true);
    em_sbuf_printf(s, "        %s = ", addr);
    em__render_conv_d(d, s, em__natural(p->root), p->dtypes[0], name);
    em_sbuf_printf(s, ";\n    }\n}\n");
    return s->oom ? em_error(EM_ENOMEM, "out of host memory rendering a kernel") : EM_OK;
}

em_status em_render_full(const em_dialect *d, const em_kplan *p, em_sbuf *s) {
    em_sbuf_printf(s, "%s", d->prelude);
    return em_render_ew(d, p, s);
}
