/* The radix-sort kernels (render_sort.h).  The kernel text below is one
 * template for every dialect (codegen/tmpl.h): ${...} placeholders spell
 * what differs (${global}, ${shared}, ${local}, ${tid}, ${sync}, the
 * kernel's head and argument), and the text uses only what CUDA C and
 * OpenCL C share: no references, templates, unions of pointers or long long
 * (em_i64 / em_u64 from the prelude), locals in shared memory declared at a
 * kernel's outermost scope.  ${bufs} names the argument's buffers b0..b6 in
 * every kernel. */
#include "codegen/render_sort.h"
#include "codegen/tmpl.h"

#include <stdio.h>

int em_sort_key_bits(em_dtype dt) {
    switch (dt) {
    case EM_BOOL:
    case EM_INT8:
    case EM_UINT8: return 8;
    case EM_INT16:
    case EM_UINT16:
    case EM_FLOAT16: return 16;
    case EM_INT32:
    case EM_UINT32:
    case EM_FLOAT32: return 32;
    default: return 64;
    }
}

void em_sort_key(const em_sort_spec *c, em_sbuf *key) {
    em_sbuf_printf(key, "SORT%d|%d|%d|%d|%d|%d|%d|%d|%d|%d|%d|%d|%d%s%s", (int)c->dtype, c->keybits,
                   c->descending, c->canon, c->seghi, c->nd, EM_SORT_ITEMS, c->ob, c->oi, c->om,
                   c->ov, c->omatch, c->ovar, c->sold ? "|S0" : "", c->okeys ? "|K" : "");
}

/* render_onesweep.c's pass kernel: the tile's keys (the values, 32-bit,
 * pass through the same words) or the counters of every warp and digit,
 * whichever is larger -- both with keys alone under variant 2; with values
 * a digit a key; 2 x 256 words, a few. */
int em_sort_os_smem(int ob, int oi, int keybits, bool ov, int ovar) {
    const int tile = ob * oi, keys = tile * (keybits / 8), ctr = (ob / 32) * 256 * 4;
    const int both = (ovar & 2) && !ov ? keys + ctr : keys > ctr ? keys : ctr;
    return both + (ov ? tile : 0) + 2 * 256 * 4 + 64;
}

/* A float's key from its bits r (fb bits), and back: named em_fk<fb>, em_fu<fb>. */
static void em__float_fns(em_sbuf *s, int fb, const char *inf, const char *qnan) {
    em_sbuf_printf(s,
                   "EM_FN em_u64 em_fk%d(em_u64 r) {\n"
                   "    const em_u64 sg = (em_u64)1 << %d, m = sg | (sg - (em_u64)1);\n"
                   "    const em_u64 mag = r & (sg - (em_u64)1);\n"
                   "    if (mag > (em_u64)%s) return m; // every NaN last, all equal\n"
                   "    if (EM_CANON && mag == 0) r = 0; // -0.0 == 0.0: ties keep their order\n"
                   "    return (r & sg) ? (~r & m) : (r | sg);\n"
                   "}\n"
                   "EM_FN em_u64 em_fu%d(em_u64 k) {\n"
                   "    const em_u64 sg = (em_u64)1 << %d, m = sg | (sg - (em_u64)1);\n"
                   "    if (k == m) return (em_u64)%s;\n"
                   "    return (k & sg) ? (k & ~sg) : (~k & m);\n"
                   "}\n",
                   fb, fb - 1, inf, fb, fb - 1, qnan);
}

/* A complex key from its parts' keys re, im (N: the key of every NaN).
 * NumPy orders complex values in four classes, each after the one before:
 * both parts numbers (by real, then imaginary), the imaginary part NaN (by
 * real), the real part NaN (by imaginary), both NaN -- so 2+0j comes
 * before 1+nanj, which a plain (real key, imaginary key) pair gets wrong.
 * The high word of a number is at most the key of +inf, below N - 1: the
 * high words N - 1 (imaginary NaN) and N (real NaN) place the two NaN
 * classes above every number, and the low word orders inside them. */
static const char em__complex_key[] =
    "EM_FN em_u64 em_ck(em_u64 re, em_u64 im, em_u64 N, em_u64 *lo) {\n"
    "    if (re == N) { *lo = im; return N; }      // real NaN: by imaginary (NaN last)\n"
    "    if (im == N) { *lo = re; return N - 1; }  // imaginary NaN: by real\n"
    "    *lo = im;\n"
    "    return re;\n"
    "}\n";

/* em_kw(e, w): the key word w (0 or 1) of the element at e, before the
 * descending flip; em_unkey(k, o): its bits stored at o (one-word dtypes). */
static void em__key_fns(const em_dialect *d, const em_sort_spec *c, em_sbuf *s) {
    const char *g = d->global;
    const em_dtype dt = c->dtype;
    const int kb = em_sort_key_bits(dt);
    const char *raw = kb == 8 ? "em_u8" : kb == 16 ? "em_u16" : kb == 32 ? "em_u32" : "em_u64";
    if (dt == EM_FLOAT16) em__float_fns(s, 16, "0x7c00", "0x7e00");
    if (dt == EM_FLOAT32 || dt == EM_COMPLEX64) em__float_fns(s, 32, "0x7f800000", "0x7fc00000");
    if (dt == EM_FLOAT64 || dt == EM_COMPLEX128)
        em__float_fns(s, 64, "0x7ff0000000000000UL", "0x7ff8000000000000UL");
    if (dt == EM_COMPLEX64 || dt == EM_COMPLEX128) em_sbuf_printf(s, "%s", em__complex_key);
    em_sbuf_printf(s, "EM_FN em_u64 em_kw(%s const char *e, int w) {\n", g);
    switch (dt) {
    case EM_BOOL: em_sbuf_printf(s, "    return *(%s const em_u8 *)e != 0;\n", g); break;
    case EM_UINT8:
    case EM_UINT16:
    case EM_UINT32:
    case EM_UINT64: em_sbuf_printf(s, "    return *(%s const %s *)e;\n", g, raw); break;
    case EM_INT8:
    case EM_INT16:
    case EM_INT32:
    case EM_INT64:
        em_sbuf_printf(s, "    return (em_u64)(*(%s const %s *)e ^ ((%s)1 << %d));\n", g, raw, raw,
                       kb - 1);
        break;
    case EM_FLOAT16:
    case EM_FLOAT32:
    case EM_FLOAT64:
        em_sbuf_printf(s, "    return em_fk%d(*(%s const %s *)e);\n", kb, g, raw);
        break;
    case EM_COMPLEX64: /* (high word, low word) of em_ck below in one key */
        em_sbuf_printf(s,
                       "    %s const em_u32 *q = (%s const em_u32 *)e;\n"
                       "    em_u64 lo;\n"
                       "    const em_u64 hi = em_ck(em_fk32(q[0]), em_fk32(q[1]),"
                       " 0xffffffffUL, &lo);\n"
                       "    return hi << 32 | lo;\n",
                       g, g);
        break;
    default: /* complex128: word 1 em_ck's high word, word 0 its low */
        em_sbuf_printf(s,
                       "    %s const em_u64 *q = (%s const em_u64 *)e;\n"
                       "    em_u64 lo;\n"
                       "    const em_u64 hi = em_ck(em_fk64(q[0]), em_fk64(q[1]),"
                       " ~(em_u64)0, &lo);\n"
                       "    return w == 1 ? hi : lo;\n",
                       g, g);
        break;
    }
    em_sbuf_printf(s, "}\nEM_FN void em_unkey(em_u64 k, %s char *o) {\n", g);
    switch (dt) {
    case EM_BOOL:
    case EM_UINT8:
    case EM_UINT16:
    case EM_UINT32:
    case EM_UINT64: em_sbuf_printf(s, "    *(%s %s *)o = (%s)k;\n", g, raw, raw); break;
    case EM_INT8:
    case EM_INT16:
    case EM_INT32:
    case EM_INT64:
        em_sbuf_printf(s, "    *(%s %s *)o = (%s)(k ^ ((em_u64)1 << %d));\n", g, raw, raw, kb - 1);
        break;
    case EM_FLOAT16:
    case EM_FLOAT32:
    case EM_FLOAT64:
        em_sbuf_printf(s, "    *(%s %s *)o = (%s)em_fu%d(k);\n", g, raw, raw, kb);
        break;
    case EM_COMPLEX64:
        em_sbuf_printf(s,
                       "    %s em_u32 *q = (%s em_u32 *)o;\n"
                       "    const em_u64 hi = k >> 32, lo = k & 0xffffffffUL;\n"
                       "    const bool inan = hi == 0xfffffffeUL; // em_ck's imaginary-NaN class\n"
                       "    q[0] = (em_u32)em_fu32(inan ? lo : hi);\n"
                       "    q[1] = (em_u32)em_fu32(inan ? 0xffffffffUL : lo);\n",
                       g, g);
        break;
    default: em_sbuf_printf(s, "    (void)k, (void)o; // complex128 is never decoded\n"); break;
    }
    em_sbuf_printf(s, "}\n");
    /* An element's bytes copied (the gather through the permutation). */
    em_sbuf_printf(s, "EM_FN void em_copy_el(%s char *o, %s const char *e) {\n", g, g);
    if (dt == EM_COMPLEX128)
        em_sbuf_printf(s,
                       "    ((%s em_u64 *)o)[0] = ((%s const em_u64 *)e)[0];\n"
                       "    ((%s em_u64 *)o)[1] = ((%s const em_u64 *)e)[1];\n",
                       g, g, g, g);
    else
        em_sbuf_printf(s, "    *(%s %s *)o = *(%s const %s *)e;\n", g,
                       dt == EM_COMPLEX64 ? "em_u64" : raw, g, dt == EM_COMPLEX64 ? "em_u64" : raw);
    em_sbuf_printf(s, "}\n");
}

/* The kernels: one text for every dialect (see the file comment). */
static const char em__sort_kernels[] =
    "// Byte offset of the element with C-order index i over shape/st.\n"
    "EM_FN em_i64 em_off(const em_args *p, em_i64 i) {\n"
    "    if (EM_ND == 1) return i * p->st[0]; // i < shape[0]: no division\n"
    "    em_i64 o = 0;\n"
    "    for (int d = EM_ND - 1; d >= 0; d--) {\n"
    "        o += (i % p->shape[d]) * p->st[d];\n"
    "        i /= p->shape[d];\n"
    "    }\n"
    "    return o;\n"
    "}\n"
    "// The key the sort orders element src by: word w (2: the segment), flipped\n"
    "// when descending, the segment in the high half with EM_SEGHI.\n"
    "EM_FN em_u64 em_key_of(const em_args *p, ${global}const char *a, em_i64 src, int w) {\n"
    "    if (w == 2) return (em_u64)(src / p->len);\n"
    "    em_u64 k = em_kw(a + em_off(p, src), w) ^ (EM_DESC ? EM_KMASK : (em_u64)0);\n"
    "    if (EM_SEGHI) k |= (em_u64)(src / p->len) << 32;\n"
    "    return k;\n"
    "}\n"
    "EM_FN em_u32 em_digit(em_key_t k, em_i64 shift) { return (em_u32)(k >> shift) & 15u; }\n"
    "// The OR and the AND of every thread's o and an into s_or[0], s_and[0]\n"
    "// (a tree; every thread of the block calls it).\n"
    "EM_FN void em_orand_tree(${local}em_u64 *s_or, ${local}em_u64 *s_and, int t, em_u64 o,\n"
    "                         em_u64 an) {\n"
    "    s_or[t] = o;\n"
    "    s_and[t] = an;\n"
    "    ${sync};\n"
    "    for (int h = EM_B / 2; h > 0; h >>= 1) {\n"
    "        if (t < h) {\n"
    "            s_or[t] |= s_or[t + h];\n"
    "            s_and[t] &= s_and[t + h];\n"
    "        }\n"
    "        ${sync};\n"
    "    }\n"
    "}\n"
    "\n"
    "${kernel(EM_B)} " EM_SORT_KEYS "(${params}) {\n${prologue}"
    "    ${shared} em_u64 s_or[EM_B], s_and[EM_B];\n"
    "    ${bufs}\n"
    "    ${global}em_key_t *keys = (${global}em_key_t *)b1;\n"
    "    ${global}em_i64 *vin = (${global}em_i64 *)b3, *vout = (${global}em_i64 *)b4;\n"
    "    ${global}em_u64 *part = (${global}em_u64 *)b5;\n"
    "    const int t = (int)((em_i64)${tid});\n"
    "    for (em_i64 blk = ((em_i64)${bid}); blk < p.nb; blk += ((em_i64)${gdim})) {\n"
    "        em_u64 o = 0, an = ~(em_u64)0;\n"
    "        for (int j = 0; j < EM_ITEMS; j++) {\n"
    "            const em_i64 i = blk * EM_TILE + (em_i64)j * EM_B + t;\n"
    "            if (i >= p.n) break;\n"
    "            em_i64 src = i;\n"
    "            if (p.mode == 1) src = vin[i];\n"
    "            else if (p.hasvals) vout[i] = i;\n"
    "            const em_key_t k = (em_key_t)em_key_of(&p, b0, src, (int)p.word);\n"
    "            keys[i] = k;\n"
    "            o |= k;\n"
    "            an &= k;\n"
    "        }\n"
    "        em_orand_tree(s_or, s_and, t, o, an);\n"
    "        if (t == 0) {\n"
    "            part[2 * blk] = s_or[0];\n"
    "            part[2 * blk + 1] = s_and[0];\n"
    "        }\n"
    "        ${sync}; // s_or is read before the next tile writes it\n"
    "    }\n"
    "}\n"
    "\n"
    "// One block: part[2 nb], part[2 nb + 1] = the OR and AND over every tile.\n"
    "${kernel(EM_B)} " EM_SORT_ORAND "(${params}) {\n${prologue}"
    "    ${shared} em_u64 s_or[EM_B], s_and[EM_B];\n"
    "    ${bufs}\n"
    "    ${global}em_u64 *part = (${global}em_u64 *)b5;\n"
    "    const int t = (int)((em_i64)${tid});\n"
    "    em_u64 o = 0, an = ~(em_u64)0;\n"
    "    for (em_i64 b = t; b < p.nb; b += EM_B) {\n"
    "        o |= part[2 * b];\n"
    "        an &= part[2 * b + 1];\n"
    "    }\n"
    "    em_orand_tree(s_or, s_and, t, o, an);\n"
    "    if (t == 0 && ((em_i64)${bid}) == 0) {\n"
    "        part[2 * p.nb] = s_or[0];\n"
    "        part[2 * p.nb + 1] = s_and[0];\n"
    "    }\n"
    "}\n"
    "\n"
    "// counts[digit * nb + tile]: per-thread counters cnt[digit][thread] (no\n"
    "// atomics), summed by 256 threads over 16 each, then by 16 over 16 each.\n"
    "${kernel(EM_B)} " EM_SORT_COUNT "(${params}) {\n${prologue}"
    "    ${shared} em_u32 cnt[EM_RADIX * EM_B];\n"
    "    ${shared} em_u32 sum[EM_B];\n"
    "    ${bufs}\n"
    "    ${global}const em_key_t *keys = (${global}const em_key_t *)b1;\n"
    "    ${global}em_u32 *counts = (${global}em_u32 *)b5;\n"
    "    const int t = (int)((em_i64)${tid});\n"
    "    for (em_i64 blk = ((em_i64)${bid}); blk < p.nb; blk += ((em_i64)${gdim})) {\n"
    "        for (int d = 0; d < EM_RADIX; d++) cnt[d * EM_B + t] = 0;\n"
    "        for (int j = 0; j < EM_ITEMS; j++) {\n"
    "            const em_i64 i = blk * EM_TILE + (em_i64)j * EM_B + t;\n"
    "            if (i >= p.n) break;\n"
    "            cnt[em_digit(keys[i], p.shift) * EM_B + t]++;\n"
    "        }\n"
    "        ${sync};\n"
    "        {\n"
    "            const int d = t / 16, q = (t % 16) * 16;\n"
    "            em_u32 r = 0;\n"
    "            for (int j = 0; j < 16; j++) r += cnt[d * EM_B + q + j];\n"
    "            sum[t] = r;\n"
    "        }\n"
    "        ${sync};\n"
    "        if (t < EM_RADIX) {\n"
    "            em_u32 r = 0;\n"
    "            for (int j = 0; j < 16; j++) r += sum[t * 16 + j];\n"
    "            counts[t * p.nb + blk] = r;\n"
    "        }\n"
    "        ${sync}; // cnt and sum are read before the next tile clears them\n"
    "    }\n"
    "}\n"
    "\n"
    "// Block-wide inclusive scan of s[0..EM_B) (Hillis-Steele: every read of a\n"
    "// step before any write).  Called by every thread of the block, each\n"
    "// having just written its s[t].\n"
    "EM_FN void em_block_scan(${local}em_u32 *s, int t) {\n"
    "    ${sync}; // every s[t] is written\n"
    "    for (int off = 1; off < EM_B; off <<= 1) {\n"
    "        const em_u32 v = t >= off ? s[t - off] : 0u;\n"
    "        ${sync};\n"
    "        s[t] += v;\n"
    "        ${sync};\n"
    "    }\n"
    "}\n"
    "\n"
    "// One block per digit: its row of counts scanned exclusively in place.\n"
    "${kernel(EM_B)} " EM_SORT_SCAN "(${params}) {\n${prologue}"
    "    ${shared} em_u32 s[EM_B];\n"
    "    ${bufs}\n"
    "    ${global}em_u32 *counts = (${global}em_u32 *)b5;\n"
    "    const int t = (int)((em_i64)${tid});\n"
    "    for (em_i64 d = ((em_i64)${bid}); d < EM_RADIX; d += ((em_i64)${gdim})) {\n"
    "        ${global}em_u32 *row = counts + d * p.nb;\n"
    "        em_u32 carry = 0;\n"
    "        for (em_i64 c0 = 0; c0 < p.nb; c0 += EM_B) {\n"
    "            const em_i64 i = c0 + t;\n"
    "            const em_u32 v = i < p.nb ? row[i] : 0u;\n"
    "            s[t] = v;\n"
    "            em_block_scan(s, t);\n"
    "            if (i < p.nb) row[i] = carry + s[t] - v;\n"
    "            carry += s[EM_B - 1];\n"
    "            ${sync}; // s[EM_B - 1] is read before the next chunk writes s\n"
    "        }\n"
    "        if (t == 0) counts[EM_RADIX * p.nb + d] = carry;\n"
    "    }\n"
    "}\n"
    "\n"
    "// Thread t owns the tile's keys t * EM_ITEMS .. + EM_ITEMS - 1, so counting\n"
    "// them in order into cnt[digit][t] and scanning cnt in digit-major order\n"
    "// ranks every key stably: cnt[d][t] - cnt[d][0] keys of digit d lie in\n"
    "// earlier threads, r[j] in this one before key j.\n"
    "${kernel(EM_B)} " EM_SORT_SCATTER "(${params}) {\n${prologue}"
    "    ${shared} em_u32 cnt[EM_RADIX * EM_B];\n"
    "    ${shared} em_u32 tot[EM_B];\n"
    "    ${shared} em_u32 gs[EM_RADIX];\n"
    "    ${bufs}\n"
    "    ${global}const em_key_t *kin = (${global}const em_key_t *)b1;\n"
    "    ${global}em_key_t *kout = (${global}em_key_t *)b2;\n"
    "    ${global}const em_i64 *vin = (${global}const em_i64 *)b3;\n"
    "    ${global}em_i64 *vout = (${global}em_i64 *)b4;\n"
    "    ${global}const em_u32 *counts = (${global}const em_u32 *)b5;\n"
    "    const int t = (int)((em_i64)${tid});\n"
    "    for (em_i64 blk = ((em_i64)${bid}); blk < p.nb; blk += ((em_i64)${gdim})) {\n"
    "        for (int d = 0; d < EM_RADIX; d++) cnt[d * EM_B + t] = 0;\n"
    "        if (t < EM_RADIX) { // the digit's start: the digits below it, the tiles before\n"
    "            em_u32 base = 0;\n"
    "            for (int d = 0; d < t; d++) base += counts[EM_RADIX * p.nb + d];\n"
    "            gs[t] = base + counts[t * p.nb + blk];\n"
    "        }\n"
    "        em_key_t k[EM_ITEMS];\n"
    "        em_u32 r[EM_ITEMS];\n"
    "        const em_i64 i0 = blk * EM_TILE + (em_i64)t * EM_ITEMS;\n"
    "        for (int j = 0; j < EM_ITEMS; j++) {\n"
    "            k[j] = 0;\n"
    "            r[j] = 0;\n"
    "            if (i0 + j < p.n) {\n"
    "                k[j] = kin[i0 + j];\n"
    "                const em_u32 d = em_digit(k[j], p.shift);\n"
    "                r[j] = cnt[d * EM_B + t];\n"
    "                cnt[d * EM_B + t] = r[j] + 1u;\n"
    "            }\n"
    "        }\n"
    "        ${sync};\n"
    "        em_u32 mine = 0;\n"
    "        for (int j = 0; j < 16; j++) mine += cnt[t * 16 + j];\n"
    "        tot[t] = mine;\n"
    "        em_block_scan(tot, t);\n"
    "        {\n"
    "            em_u32 run = tot[t] - mine;\n"
    "            for (int j = 0; j < 16; j++) {\n"
    "                const em_u32 v = cnt[t * 16 + j];\n"
    "                cnt[t * 16 + j] = run;\n"
    "                run += v;\n"
    "            }\n"
    "        }\n"
    "        ${sync};\n"
    "        for (int j = 0; j < EM_ITEMS; j++) {\n"
    "            if (i0 + j < p.n) {\n"
    "                const em_u32 d = em_digit(k[j], p.shift);\n"
    "                const em_i64 at = (em_i64)gs[d] + cnt[d * EM_B + t] - cnt[d * EM_B] + r[j];\n"
    "                kout[at] = k[j];\n"
    "                if (p.hasvals) vout[at] = vin[i0 + j];\n"
    "            }\n"
    "        }\n"
    "        ${sync}; // cnt and gs are read before the next tile writes them\n"
    "    }\n"
    "}\n"
    "\n"
    "${kernel(EM_B)} " EM_SORT_OUT "(${params}) {\n${prologue}"
    "    ${bufs}\n"
    "    ${global}const em_key_t *keys = (${global}const em_key_t *)b1;\n"
    "    ${global}const em_val_t *vals = (${global}const em_val_t *)b3;\n"
    "    const em_i64 step = ((em_i64)${gdim}) * EM_B;\n"
    "    for (em_i64 i = ((em_i64)${bid}) * EM_B + ((em_i64)${tid}); i < p.n; i += step) {\n"
    "        if (p.mode == 0)\n"
    "            em_unkey(((em_u64)keys[i] & EM_KMASK) ^ (EM_DESC ? EM_KMASK : (em_u64)0),\n"
    "                     b5 + i * EM_SIZE);\n"
    "        else if (p.mode == 1)\n"
    "            em_copy_el(b5 + i * EM_SIZE, b0 + em_off(&p, (em_i64)vals[i]));\n"
    "        else\n"
    "            ((${global}em_i64 *)b5)[i] = (em_i64)vals[i] % p.len;\n"
    "    }\n"
    "}\n"
    "\n"
    "// Element j of the haystack (through the sorter when there is one).\n"
    "EM_FN ${global}const char *em_hay(const em_args *p, ${global}const char *h,\n"
    "                                  ${global}const em_i64 *so,\n"
    "                              em_i64 j) {\n"
    "    return h + (p->hasvals ? so[j] : j) * p->hst;\n"
    "}\n"
    "// Whether key (hi, lo) of x comes before (strict) or not after y's.\n"
    "EM_FN bool em_before(em_u64 xh, em_u64 xl, em_u64 yh, em_u64 yl, bool strict) {\n"
    "    if (xh != yh) return xh < yh;\n"
    "    return strict ? xl < yl : xl <= yl;\n"
    "}\n"
    "// The global binary search of needle i's key (vh, vl) over haystack\n"
    "// elements [lo, hi): the number of them before it (side: p.mode).\n"
    "EM_FN em_i64 em_search_in(const em_args *p, ${global}const char *b0,\n"
    "                          ${global}const em_i64 *so, em_u64 vh, em_u64 vl, em_i64 lo,\n"
    "                          em_i64 hi) {\n"
    "    while (lo < hi) {\n"
    "        const em_i64 mid = lo + (hi - lo) / 2;\n"
    "        ${global}const char *m = em_hay(p, b0, so, mid);\n"
    "        const em_u64 mh = EM_TWO ? em_kw(m, 1) : 0, ml = em_kw(m, 0);\n"
    "        // left: count the keys < v; right: the keys <= v\n"
    "        if (em_before(mh, ml, vh, vl, p->mode == 0)) lo = mid + 1;\n"
    "        else hi = mid;\n"
    "    }\n"
    "    return lo;\n"
    "}\n"
    "// The plain search: no shared memory, so that the cache keeps its size\n"
    "// for the haystack's upper levels (one kernel that also declared the\n"
    "// shared keys took 2.26 ms for 2^24 float32 needles in 2^24 keys on the\n"
    "// H100, this one 2.05).\n"
    "${kernel(EM_B)} " EM_SORT_SEARCH "(${params}) {\n${prologue}"
    "    ${bufs}\n"
    "    ${global}const em_i64 *so = (${global}const em_i64 *)b3;\n"
    "    ${global}em_i64 *out = (${global}em_i64 *)b5;\n"
    "    const em_i64 step = ((em_i64)${gdim}) * EM_B;\n"
    "    for (em_i64 i = ((em_i64)${bid}) * EM_B + ((em_i64)${tid}); i < p.n; i += step) {\n"
    "        ${global}const char *e = b1 + em_off(&p, i);\n"
    "        const em_u64 vh = EM_TWO ? em_kw(e, 1) : 0, vl = em_kw(e, 0);\n"
    "        out[i] = em_search_in(&p, b0, so, vh, vl, 0, p.len);\n"
    "    }\n"
    "}\n"
    "// One key word, haystack keys in shared memory, made once per block\n"
    "// (run_sort.c launches few blocks, each taking many needles): a haystack\n"
    "// of at most EM_SH elements whole, each step one shared read and a\n"
    "// compare; a longer one by EM_SH samples, s_h[j] the key of element\n"
    "// j * len / EM_SH: the samples before the needle (c of them) bound its\n"
    "// answer to (pos(c - 1), pos(c)], which the global search finishes\n"
    "// (len / EM_SH elements: 11 fewer global steps of 24 for 2^24).\n"
    "// Key j sits at EM_SHP(j), a word skipped every 32: a search of 2^k keys\n"
    "// reads at multiples of 2^k / 2, 2^k / 4, ..., which unpadded all fall in\n"
    "// one bank (up to 16-way conflicts for 1024 keys).  The search runs the\n"
    "// same steps in every thread (ns alone sets them): no divergence.  digitize\n"
    "// of 2^24 float32 in 1024 bins, H100: 0.229-0.260 ms, the old form 0.273-0.285.\n"
    "#if EM_SOLD\n"
    "#define EM_SHP(j) (j)\n"
    "#else\n"
    "#define EM_SHP(j) ((j) + ((j) >> 5))\n"
    "#endif\n"
    "${kernel(EM_B)} " EM_SORT_SEARCH_SH "(${params}) {\n${prologue}"
    "    ${shared} em_key_t s_h[EM_SHP(EM_SH - 1) + 1];\n"
    "    ${bufs}\n"
    "    ${global}const em_i64 *so = (${global}const em_i64 *)b3;\n"
    "    ${global}em_i64 *out = (${global}em_i64 *)b5;\n"
    "    const int t = (int)((em_i64)${tid});\n"
    "    const bool whole = p.len <= EM_SH; // the same in every thread\n"
    "    const int ns = whole ? (int)p.len : EM_SH;\n"
    "    for (int j = t; j < ns; j += EM_B) {\n"
    "        const em_i64 at = whole ? j : (em_i64)j * p.len / EM_SH;\n"
    "        s_h[EM_SHP(j)] = (em_key_t)em_kw(em_hay(&p, b0, so, at), 0);\n"
    "    }\n"
    "    ${sync};\n"
    "    const em_i64 step = ((em_i64)${gdim}) * EM_B;\n"
    "    for (em_i64 i = ((em_i64)${bid}) * EM_B + t; i < p.n; i += step) {\n"
    "        const em_key_t v = (em_key_t)em_kw(b1 + em_off(&p, i), 0);\n"
    "        // lo = the keys before v (left: keys < v; right: keys <= v)\n"
    "#if EM_SOLD\n"
    "        int lo = 0, hi = ns;\n"
    "        while (lo < hi) {\n"
    "            const int mid = (lo + hi) >> 1;\n"
    "            const em_key_t mk = s_h[mid];\n"
    "            if (p.mode == 0 ? mk < v : mk <= v) lo = mid + 1;\n"
    "            else hi = mid;\n"
    "        }\n"
    "#else\n"
    "        // the answer lies in [lo, lo + w], keys 0 .. lo - 1 before v\n"
    "        int lo = 0;\n"
    "        for (int w = ns; w > 1;) {\n"
    "            const int h = w >> 1;\n"
    "            const em_key_t mk = s_h[EM_SHP(lo + h)];\n"
    "            lo += (p.mode == 0 ? mk < v : mk <= v) ? h : 0;\n"
    "            w -= h;\n"
    "        }\n"
    "        if (ns > 0) {\n"
    "            const em_key_t mk = s_h[EM_SHP(lo)];\n"
    "            lo += (p.mode == 0 ? mk < v : mk <= v) ? 1 : 0;\n"
    "        }\n"
    "#endif\n"
    "        if (whole) {\n"
    "            out[i] = lo;\n"
    "            continue;\n"
    "        }\n"
    "        // samples 0 .. lo - 1 are before v, lo .. not (sample 0 is element 0)\n"
    "        const em_i64 a = lo > 0 ? (em_i64)(lo - 1) * p.len / EM_SH + 1 : 0;\n"
    "        const em_i64 b = lo < EM_SH ? (em_i64)lo * p.len / EM_SH : p.len;\n"
    "        out[i] = em_search_in(&p, b0, so, 0, (em_u64)v, a, b);\n"
    "    }\n"
    "}\n";

/* The argument's fields (render_sort.h): the buffers, then the numbers. */
static int em__fields(const em_sort_spec *c, em_tfield *f) {
    static const char *const bufs[EM_SORT_NBUF] = {"b0", "b1", "b2", "b3", "b4", "b5", "b6", "b7"};
    static const char *const nums[] = {"n", "len", "nb", "shift", "mode", "word", "hasvals", "hst"};
    int n = 0;
    for (int k = 0; k < EM_SORT_NBUF; k++) f[n++] = (em_tfield){'p', bufs[k], 0, 0, NULL};
    for (size_t k = 0; k < sizeof nums / sizeof *nums; k++)
        f[n++] = (em_tfield){'i', nums[k], 0, 0, NULL};
    f[n++] = (em_tfield){'i', "shape", c->nd, 0, NULL};
    f[n++] = (em_tfield){'i', "st", c->nd, 0, NULL};
    return n;
}

em_status em_render_sort(const em_dialect *d, const em_sort_spec *c, em_sbuf *src) {
    if (!d || !c || (unsigned)c->dtype >= EM_NDTYPES || (c->keybits != 32 && c->keybits != 64) ||
        c->nd < 1 || c->nd > EM_MAXDIMS)
        return em_error(EM_EVALUE, "em_render_sort: bad dialect or spec");
    if (d->id == EM_DIALECT_C)
        return em_error(EM_EUNSUPPORTED,
                        "the radix sort is not rendered for C: the CPU sorts with NumPy");
    if (!d->has_int64)
        return em_error(EM_EUNSUPPORTED, "the radix sort needs 64-bit integers on %s", d->name);
    const int kb = em_sort_key_bits(c->dtype);
    if (kb > c->keybits || (c->seghi && c->keybits != 64))
        return em_error(EM_EVALUE, "em_render_sort: %d-bit keys in a %d-bit buffer", kb,
                        c->keybits);
    const int ob = c->ob ? c->ob : EM_SORT_OS_B, oi = c->oi ? c->oi : EM_SORT_OS_ITEMS;
    const int om = c->ob ? c->om : c->keybits == 32 ? 3 : 0;
    if (ob % 32 || ob < 256 || ob > 1024 || oi < 1 || oi > 32 || om < 0 || c->ovar < 0 ||
        c->ovar > 63 || em_sort_os_smem(ob, oi, c->keybits, c->ov, c->ovar) > 48 * 1024) {
        return em_error(EM_EVALUE, "em_render_sort: a pass kernel of %d x %d does not fit", ob, oi);
    }
    em_sbuf_printf(src, "%s\n// radix sort of %s, %d-bit keys%s%s, %s\n", d->prelude,
                   em_dtype_get(c->dtype)->name, c->keybits, c->descending ? ", descending" : "",
                   c->seghi ? ", segmented" : "", d->name);
    em_sbuf t = {0}; /* the template: expanded for d at the end */
    em_sbuf_printf(
        &t,
        "#define EM_B %d\n#define EM_ITEMS %d\n#define EM_TILE %d\n#define EM_RADIX %d\n"
        "#define EM_ND %d\n#define EM_DESC %d\n#define EM_CANON %d\n#define EM_SEGHI %d\n"
        "#define EM_TWO %d\n#define EM_SIZE %d\n#define EM_KBYTES %d\n#define EM_SH %d\n"
        "#define EM_SOLD %d\n",
        EM_SORT_B, EM_SORT_ITEMS, EM_SORT_TILE, EM_SORT_RADIX, c->nd, c->descending, c->canon,
        c->seghi, c->dtype == EM_COMPLEX128, (int)em_dtype_get(c->dtype)->size, c->keybits / 8,
        EM_SORT_SEARCH_KEYS, (int)c->sold);
    em_sbuf_printf(
        &t,
        "#define EM_OB %d\n#define EM_OI %d\n#define EM_OM %d\n#define EM_OV %d\n"
        "#define EM_OMATCH %d\n#define EM_OVAR %d\n#define EM_OKEYS %d\n#define EM_OFLT %d\n",
        ob, oi, om, (int)c->ov, (int)c->omatch, c->ovar, (int)c->okeys,
        /* EM_OKEYS: a real float's keys may stand for several values */
        c->dtype == EM_FLOAT16 || c->dtype == EM_FLOAT32 || c->dtype == EM_FLOAT64);
    em_sbuf_printf(&t, "#define EM_KMASK ((em_u64)%s)\n",
                   kb == 64   ? "~(em_u64)0"
                   : kb == 32 ? "0xffffffffUL"
                   : kb == 16 ? "0xffffUL"
                              : "0xffUL");
    em_sbuf_printf(&t, "typedef %s em_key_t;\n", c->keybits == 64 ? "em_u64" : "em_u32");
    /* The permutation's scratch: 32-bit under the onesweep kernels (fewer
     * than 2^30 keys; half the values' traffic), 64-bit in the others. */
    em_sbuf_printf(&t, "typedef %s em_val_t;\n", c->ov ? "em_u32" : "em_i64");
    em_tfield f[EM_SORT_NBUF + 10];
    const int nf = em__fields(c, f);
    if (d->args_struct)
        em_sbuf_printf(
            &t, "typedef struct em_args {\n    char *b0, *b1, *b2, *b3, *b4, *b5, *b6, *b7;\n"
                "    em_i64 n, len, nb, shift, mode, word, hasvals, hst;\n"
                "    em_i64 shape[EM_ND], st[EM_ND];\n} em_args;\n");
    else
        em_tmpl_args_types(d, f, nf, &t);
    em__key_fns(d, c, &t);
    em_sbuf_printf(&t, "%s", em__sort_kernels);
    em_render_sort_onesweep(d, &t);
    /* Every kernel names its buffers b0..b7 (the ones it does not use too). */
    em_sbuf bufs = {0};
    em_sbuf_printf(&bufs,
                   "    %s char *b0 = p.b0, *b1 = p.b1, *b2 = p.b2, *b3 = p.b3, *b4 = p.b4,"
                   " *b5 = p.b5, *b6 = p.b6, *b7 = p.b7;\n"
                   "    (void)b0, (void)b1, (void)b2, (void)b3, (void)b4, (void)b6, (void)b7;",
                   d->global);
    if (bufs.oom) t.oom = true; /* em_tmpl_finish reports it (and frees t) */
    const char *const extra[] = {"bufs", bufs.s ? bufs.s : "", NULL};
    em_status st = em_tmpl_finish(d, f, nf, &t, extra, src);
    em_sbuf_free(&bufs);
    return st;
}
