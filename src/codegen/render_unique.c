/* The unique kernels (render_unique.h): one template (codegen/tmpl.h) for
 * CUDA and OpenCL. */
#include "codegen/render_unique.h"
#include "codegen/render_scan.h"
#include "codegen/tmpl.h"

#include <stdio.h>

int em_uq_one_items(em_dtype dt, int bytes) {
    bytes = bytes > 0 ? bytes : EM_UQ_ONE_BYTES;
    bytes = bytes < 32 ? 32 : bytes > 128 ? 128 : bytes;
    const int k = bytes / (int)em_dtype_get(dt)->size;
    return k > 32 ? 32 : k < 4 ? 4 : k;
}

static int em__ufields(em_tfield *f) {
    static const char *const ptrs[] = {"s",   "vals", "first", "perm", "idx",
                                       "inv", "cnt",  "part",  "o"};
    int n = 0;
    for (int i = 0; i < 9; i++) f[n++] = (em_tfield){'p', ptrs[i], 0, 0, NULL};
    f[n++] = (em_tfield){'i', "n", 0, 0, NULL};
    f[n++] = (em_tfield){'i', "nu", 0, 0, NULL};
    f[n++] = (em_tfield){'i', "ntile", 0, 0, NULL};
    f[n++] = (em_tfield){'i', "no", 0, 0, NULL};
    /* render_scan.c's look-back (EM_STATUS) reads p.epoch: 0 here, as the
     * status words are zeroed before each call (no kept area) */
    f[n++] = (em_tfield){'i', "epoch", 0, 0, NULL};
    return n;
}

/* em_uq_eq0(a, b): == in dt (a NaN equals nothing); em_uq_nan(a): a is a
 * NaN (a complex one with a NaN part); em_uq_eq(a, b): equal in NumPy's
 * unique's sense (EM_EQN: NaNs equal). */
static void em__eq(em_dtype dt, em_sbuf *t) {
    switch (dt) {
    case EM_FLOAT16:
        em_sbuf_printf(
            t, "EM_D bool em_uq_eq0(em_t a, em_t b) { return em_h2f(a) == em_h2f(b); }\n"
               "EM_D bool em_uq_nan(em_t a) { const float f = em_h2f(a); return f != f; }\n");
        break;
    case EM_FLOAT32:
    case EM_FLOAT64:
    case EM_COMPLEX64:
    case EM_COMPLEX128: {
        const char *sx = em_scalar_suffix(dt);
        em_sbuf_printf(t, "EM_D bool em_uq_eq0(em_t a, em_t b) { return em_equal_%s(a, b); }\n",
                       sx);
        em_sbuf_printf(t, "EM_D bool em_uq_nan(em_t a) { return em_isnan_%s(a); }\n", sx);
        break;
    }
    default: /* integers and bool (stored as bytes 0 / 1) */
        em_sbuf_printf(t, "EM_D bool em_uq_eq0(em_t a, em_t b) { return a == b; }\n"
                          "EM_D bool em_uq_nan(em_t a) { return false; }\n");
    }
    em_sbuf_printf(t,
                   "EM_D bool em_uq_eq(em_t a, em_t b) {\n"
                   "    return em_uq_eq0(a, b) || (EM_EQN && em_uq_nan(a) && em_uq_nan(b));\n}\n");
}

/* The set operations' order and search (real dtypes): em_uq_lt(a, b) is
 * a < b in NumPy's sort order (NaNs last, -0.0 equal to 0.0);
 * em_uq_seek below searches the sorted o; em_uq_in(o, no, v): v == some
 * element of o. */
static void em__search(em_dtype dt, em_sbuf *t) {
    if (dt == EM_COMPLEX64 || dt == EM_COMPLEX128) return; /* the driver refuses them */
    if (dt == EM_FLOAT16)
        em_sbuf_printf(t, "EM_D bool em_uq_lt(em_t a_, em_t b_) {\n"
                          "    const float a = em_h2f(a_), b = em_h2f(b_);\n"
                          "    return a < b || (b != b && a == a);\n}\n");
    else if (dt == EM_FLOAT32 || dt == EM_FLOAT64)
        em_sbuf_printf(t, "EM_D bool em_uq_lt(em_t a, em_t b) {\n"
                          "    return a < b || (em_uq_nan(b) && !em_uq_nan(a));\n}\n");
    else
        em_sbuf_printf(t, "EM_D bool em_uq_lt(em_t a, em_t b) { return a < b; }\n");
    /* em_uq_seek(o, no, v, from, ub): #{o < v} (ub: #{o <= v}); from >= 0
     * promises the answer is at least from (the previous answer for an
     * ascending v): it gallops from there, O(log distance) reads, where a
     * full search of 2^24 values is 24 dependent reads per element. */
    em_sbuf_printf(
        t, "EM_D bool em_uq_before(em_t x, em_t v, int ub) {\n"
           "    return ub ? !em_uq_lt(v, x) : em_uq_lt(x, v);\n}\n"
           "EM_D ${ll} em_uq_seek(${global}const char *o_, ${ll} no, em_t v, ${ll} from,"
           " int ub) {\n"
           "    ${global}const em_t *o = (${global}const em_t *)o_;\n"
           "    ${ll} lo = 0, hi = no;\n"
           "    if (from >= 0) {\n"
           "        ${ll} step = 1;\n        lo = hi = from;\n"
           "        while (hi < no && em_uq_before(o[hi], v, ub)) {\n"
           "            lo = hi + 1;\n            hi += step;\n            step <<= 1;\n        }\n"
           "        if (hi > no) hi = no;\n    }\n"
           "    while (lo < hi) {\n"
           "        const ${ll} m = lo + ((hi - lo) >> 1);\n"
           "        if (em_uq_before(o[m], v, ub)) lo = m + 1; else hi = m;\n    }\n"
           "    return lo;\n}\n"
           "EM_D bool em_uq_in(${global}const char *o_, ${ll} no, em_t v) {\n"
           "    const ${ll} i = em_uq_seek(o_, no, v, -1, 0);\n"
           "    return i < no && em_uq_eq0(((${global}const em_t *)o_)[i], v);\n}\n");
    /* em_uq_path(a, na, b, nb, d): how many of the first d outputs of the
     * stable merge of a and b (a's first among equals) come from a; the
     * same over shared memory (OpenCL's address spaces differ). */
    static const char *const sp[2] = {"${global}", "${local}"};
    static const char *const nm[2] = {"em_uq_path", "em_uq_path_sh"};
    for (int w = 0; w < 2; w++)
        em_sbuf_printf(t,
                       "EM_D ${ll} %s(%sconst em_t *a, ${ll} na, %sconst em_t *b, ${ll} nb,"
                       " ${ll} d) {\n"
                       "    ${ll} lo = d > nb ? d - nb : 0, hi = d < na ? d : na;\n"
                       "    while (lo < hi) {\n"
                       "        const ${ll} m = lo + ((hi - lo) >> 1);\n"
                       "        if (!em_uq_lt(b[d - 1 - m], a[m])) lo = m + 1; else hi = m;\n"
                       "    }\n    return lo;\n}\n",
                       nm[w], sp[w], sp[w]);
}

/* A tile's loop head: thread tid's EM_UQ_ITEMS consecutive elements from j0;
 * c = its flags, counted. */
#define EM__TILE_HEAD                                                          \
    "    ${shared} ${ll} sh[256];\n"                                           \
    "    for (${ll} t = ${bid}; t < p.ntile; t += ${gdim}) {\n"                \
    "        const ${ll} j0 = t * EM_UQ_TILE + (${ll})${tid} * EM_UQ_ITEMS;\n" \
    "        ${ll} c = 0, at = -1;\n"                                          \
    "        for (int i = 0; i < EM_UQ_ITEMS && j0 + i < p.n; i++)\n"          \
    "            c += em_uq_new(p.s, j0 + i, p.o, p.no, &at);\n"

/* sh[i] = the counts of threads 0..i (an inclusive block scan). */
#define EM__BLOCK_SCAN(IND)                                                                     \
    IND "for (int w = 1; w < 256; w <<= 1) {\n" IND                                             \
        "    const ${ll} v = (int)${tid} >= w ? sh[${tid} - w] : 0;\n" IND "    ${sync};\n" IND \
        "    sh[${tid}] += v;\n" IND "    ${sync};\n" IND "}\n"

/* COUNT and WRITE without filt: thread tid's items are the tile's elements
 * tid, tid + 256, .. (striped), so that each load and each store of a warp
 * covers 32 consecutive elements: the blocked layout above (16 consecutive
 * per thread) has every warp access touch 16 cache lines, which bounded
 * these passes by L1 wavefronts, not memory.  The ranks follow the
 * elements' order, item-major: per item row i, an inclusive block scan
 * over the threads of the flags, 4 rows of 16-bit counts packed in each
 * of 4 words (a row holds at most 256), and the rows before i's totals.
 * filt 1 and 2 keep the blocked layout: their galloping search wants each
 * thread's elements adjacent (filt 3, SINGLE, searches nothing). */
static const char em__count_striped[] =
    "    ${shared} ${ll} sh[256];\n"
    "    for (${ll} t = ${bid}; t < p.ntile; t += ${gdim}) {\n"
    "        const ${ll} t0 = t * EM_UQ_TILE + ${tid};\n"
    "        ${ll} c = 0, at = -1;\n"
    "        for (int i = 0; i < EM_UQ_ITEMS; i++)\n"
    "            if (t0 + i * 256 < p.n) c += em_uq_new(p.s, t0 + i * 256, p.o, p.no, &at);\n"
    "        sh[${tid}] = c;\n        ${sync};\n"
    "        for (int w = 128; w > 0; w >>= 1) {\n"
    "            if ((int)${tid} < w) sh[${tid}] += sh[${tid} + w];\n"
    "            ${sync};\n        }\n"
    "        if (${tid} == 0) ((${global}${ll} *)p.part)[t] = sh[0];\n"
    "        ${sync};\n    }\n";

static const char em__write_striped[] =
    "    ${shared} ${ll} sh[4 * 256];\n"
    "    for (${ll} t = ${bid}; t < p.ntile; t += ${gdim}) {\n"
    "        const ${ll} t0 = t * EM_UQ_TILE + ${tid};\n"
    "        ${ll} pk[4] = {0, 0, 0, 0}, at = -1;\n"
    "        int f = 0; // bit i: item i is flagged\n"
    "        for (int i = 0; i < EM_UQ_ITEMS; i++)\n"
    "            if (t0 + i * 256 < p.n && em_uq_new(p.s, t0 + i * 256, p.o, p.no, &at)) {\n"
    "                f |= 1 << i;\n"
    "                pk[i >> 2] += (${ll})1 << (16 * (i & 3));\n"
    "            }\n"
    "        for (int w = 0; w < 4; w++) sh[w * 256 + ${tid}] = pk[w];\n"
    "        ${sync};\n"
    "        for (int d = 1; d < 256; d <<= 1) {\n"
    "            ${ll} v[4];\n"
    "            for (int w = 0; w < 4; w++)\n"
    "                v[w] = (int)${tid} >= d ? sh[w * 256 + ${tid} - d] : 0;\n"
    "            ${sync};\n"
    "            for (int w = 0; w < 4; w++) sh[w * 256 + ${tid}] += v[w];\n"
    "            ${sync};\n"
    "        }\n"
    "        // k: the flags before row i of the tile, from the tile's first rank\n"
    "        ${ll} k = ((${global}const ${ll} *)p.part)[t];\n"
    "        for (int i = 0; i < EM_UQ_ITEMS; i++) {\n"
    "            const int w = i >> 2, sft = 16 * (i & 3);\n"
    "            const ${ll} j = t0 + i * 256;\n"
    "            // the rank of j's value: the flags up to j, less one\n"
    "            const ${ll} r = k + ((sh[w * 256 + ${tid}] >> sft) & 0xffff) - 1;\n"
    "            k += (sh[w * 256 + 255] >> sft) & 0xffff;\n"
    "            if (j >= p.n) continue;\n"
    "            if ((f >> i) & 1) {\n"
    "                ((${global}em_t *)p.vals)[r] = ((${global}const em_t *)p.s)[j];\n"
    "#if EM_UQ_FIRST\n"
    "                ((${global}${ll} *)p.first)[r] = j;\n"
    "#endif\n"
    "#if EM_UQ_IDX\n"
    "                ((${global}${ll} *)p.idx)[r] = ((${global}const ${ll} *)p.perm)[j];\n"
    "#endif\n"
    "            }\n"
    "#if EM_UQ_INV\n"
    "            ((${global}${ll} *)p.inv)[((${global}const ${ll} *)p.perm)[j]] = r;\n"
    "#endif\n"
    "        }\n"
    "        (void)at;\n"
    "        ${sync}; // sh is read before the next tile writes it\n"
    "    }\n";

/* EM_UQ_ONE (CUDA): COUNT, PREFIX and WRITE in one launch.  Thread (warp w,
 * lane) holds EM_UQ_R rows of EM_UQ_V consecutive elements (one 16-byte
 * load each: row r's starts at element w * 32 * EM_UQ_K + r * 32 * EM_UQ_V
 * + lane * EM_UQ_V of the tile, so a warp's row is one coalesced run), all
 * loaded before any is used.  An element's left neighbour is the thread's
 * own, else lane - 1's by a shuffle, else (lane 0) lane 31's previous row by
 * a shuffle; only lane 0's first row reads it from memory.  The flags' counts
 * per row, EM_UQ_FW bits a row in one 64-bit word, are scanned over the warp
 * by shuffles, the warps' totals through shared memory, and the tile's
 * distinct values are staged in shared memory at their ranks within the
 * tile.  Only then does the tile take its first rank from the decoupled
 * look-back (render_scan.c's em_lookback: tiles in ticket order, each tile's
 * total and then its inclusive prefix published in one 64-bit word), and
 * the values go out coalesced.  With EM_UQ_PF the block takes its next
 * ticket at the top of a tile and issues the next tile's loads once this
 * tile is staged (x is dead then), so they are in flight while warp 0
 * looks back and the block stores: the look-back and the stores no longer
 * leave the block's loads idle.  The last tile writes nu after its 8-byte
 * word (part + 16 + 8 * ntile). */
#define EM__UQ_LOAD(B)                                                                        \
    "        if (" B " < p.ntile) {\n"                                                        \
    "            t0 = " B " * EM_UQ_T1;\n"                                                    \
    "            m = p.n - t0 < EM_UQ_T1 ? (int)(p.n - t0) : EM_UQ_T1;\n"                     \
    "            if (EM_UQ_VIN && m == EM_UQ_T1) {\n"                                         \
    "                em_uqv u[EM_UQ_R];\n"                                                    \
    "#pragma unroll\n"                                                                        \
    "                for (int r = 0; r < EM_UQ_R; r++)\n"                                     \
    "                    u[r].w = *(const uint4 *)(s + t0 + e0 + r * EM_UQ_RT);\n"            \
    "#pragma unroll\n"                                                                        \
    "                for (int r = 0; r < EM_UQ_R; r++)\n"                                     \
    "#pragma unroll\n"                                                                        \
    "                    for (int v = 0; v < EM_UQ_V; v++) x[r * EM_UQ_V + v] = u[r].v[v];\n" \
    "            } else {\n"                                                                  \
    "#pragma unroll\n"                                                                        \
    "                for (int r = 0; r < EM_UQ_R; r++)\n"                                     \
    "#pragma unroll\n"                                                                        \
    "                    for (int v = 0; v < EM_UQ_V; v++) {\n"                               \
    "                        const int e = e0 + r * EM_UQ_RT + v;\n"                          \
    "                        x[r * EM_UQ_V + v] = s[e < m ? t0 + e : 0];\n"                   \
    "                    }\n"                                                                 \
    "            }\n"                                                                         \
    "            // lane 0's first left neighbour: the element before the warp's run\n"       \
    "            const long long jw = t0 + w * 32 * EM_UQ_K;\n"                               \
    "            left = x[0];\n"                                                              \
    "            if (lane == 0 && jw > 0 && jw - t0 < m) left = s[jw - 1];\n"                 \
    "        }\n"

static const char em__one_text[] =
    "#ifndef EM_LB_HOLD\n#define EM_LB_HOLD(b) 0\n#endif\n"
    "#define EM_UQ_R (EM_UQ_K / EM_UQ_V)\n"
    "#define EM_UQ_RT (32 * EM_UQ_V) // a warp's row\n"
    "#define EM_UQ_T1 (256 * EM_UQ_K)\n"
    "// pk's bits a row: a row's count over the warp is at most 32 * V < 2^FW\n"
    "#define EM_UQ_FW (64 / EM_UQ_R)\n"
    "#define EM_UQ_FM ((1ull << EM_UQ_FW) - 1)\n"
    "union em_uqv { uint4 w; em_t v[EM_UQ_V]; };\n"
    "// v of lane k (up: of lane - 1, own on lane 0), any size, by 32-bit words\n"
    "EM_D em_t em_uq_shfl(em_t v, int k, bool up) {\n"
    "    unsigned u[(sizeof(em_t) + 3) / 4] = {};\n"
    "    unsigned char *ub = (unsigned char *)u, *vb = (unsigned char *)&v;\n"
    "#pragma unroll\n"
    "    for (int q = 0; q < (int)sizeof v; q++) ub[q] = vb[q];\n"
    "#pragma unroll\n"
    "    for (int q = 0; q < (int)(sizeof u / 4); q++)\n"
    "        u[q] = up ? __shfl_up_sync(0xffffffffu, u[q], 1) : __shfl_sync(0xffffffffu, u[q], k);\n"
    "#pragma unroll\n"
    "    for (int q = 0; q < (int)sizeof v; q++) vb[q] = ub[q];\n"
    "    return v;\n"
    "}\n"
    "EM_D unsigned long long em_uq_shup64(unsigned long long v, int d) {\n"
    "    const unsigned lo = __shfl_up_sync(0xffffffffu, (unsigned)v, d);\n"
    "    const unsigned hi = __shfl_up_sync(0xffffffffu, (unsigned)(v >> 32), d);\n"
    "    return ((unsigned long long)hi << 32) | lo;\n"
    "}\n"
    "${kernel(EM_UQ_LB)} " EM_KNAME "(${params}) {\n${prologue}"
    "    ${shared} em_t sv[EM_UQ_T1];\n"
    "    ${shared} unsigned wt[8];\n"
    "    ${shared} long long tk0, tk;\n"
    "    ${shared} unsigned carry;\n"
    "    const int i = ${tid}, lane = i & 31, w = i >> 5, e0 = w * 32 * EM_UQ_K + lane * EM_UQ_V;\n"
    "    const em_t *s = (const em_t *)p.s;\n"
    "    unsigned long long *ctr = (unsigned long long *)p.part;\n"
    "    EM_STATUS;\n"
    "    if (i == 0) tk0 = (long long)atomicAdd(ctr, 1ULL);\n"
    "    ${sync};\n"
    "    long long b = tk0, t0 = 0; // the tile, its first element\n"
    "    int m = 0;                 // its length\n"
    "    em_t x[EM_UQ_K], left;\n" EM__UQ_LOAD(
        "b") "    while (b < p.ntile) { // b is block-uniform: every barrier below is reached by all\n"
             "        const long long tc = t0;\n"
             "        const int mc = m;\n"
             "#if EM_UQ_PF\n"
             "        // the next tile's ticket (tk is read after the barrier below, and\n"
             "        // was last read before the previous tile's last barrier)\n"
             "        if (i == 0) tk = (long long)atomicAdd(ctr, 1ULL);\n"
             "#endif\n"
             "        // fl bit r * V + v: that element starts a value; pk: FW bits a row, its count\n"
             "        unsigned fl = 0;\n"
             "        unsigned long long pk = 0;\n"
             "#pragma unroll\n"
             "        for (int r = 0; r < EM_UQ_R; r++) {\n"
             "            const em_t up = em_uq_shfl(x[r * EM_UQ_V + EM_UQ_V - 1], 0, true);\n"
             "            const em_t lst = em_uq_shfl(x[(r > 0 ? r - 1 : 0) * EM_UQ_V + EM_UQ_V - 1], 31, false);\n"
             "            em_t pv = lane > 0 ? up : r > 0 ? lst : left;\n"
             "            unsigned rf = 0;\n"
             "#pragma unroll\n"
             "            for (int v = 0; v < EM_UQ_V; v++) {\n"
             "                const int e = e0 + r * EM_UQ_RT + v;\n"
             "                if (e < mc && (tc + e == 0 || !em_uq_eq(pv, x[r * EM_UQ_V + v]))) rf |= 1u << v;\n"
             "                pv = x[r * EM_UQ_V + v];\n"
             "            }\n"
             "            fl |= rf << (r * EM_UQ_V);\n"
             "            pk |= (unsigned long long)__popc(rf) << (EM_UQ_FW * r);\n"
             "        }\n"
             "        // inclusive scan of pk over the warp's lanes (no field passes 32 * V)\n"
             "        unsigned long long inc = pk;\n"
             "#pragma unroll\n"
             "        for (int d = 1; d < 32; d <<= 1) {\n"
             "            const unsigned long long o = em_uq_shup64(inc, d);\n"
             "            if (lane >= d) inc += o;\n"
             "        }\n"
             "        const unsigned long long rt = ((unsigned long long)__shfl_sync(0xffffffffu, (unsigned)(inc >> 32), 31) << 32)\n"
             "                                    | __shfl_sync(0xffffffffu, (unsigned)inc, 31);\n"
             "        const unsigned long long ex = inc - pk;\n"
             "        unsigned wtot = 0;\n"
             "#pragma unroll\n"
             "        for (int r = 0; r < EM_UQ_R; r++) wtot += (unsigned)((rt >> (EM_UQ_FW * r)) & EM_UQ_FM);\n"
             "        if (lane == 0) wt[w] = wtot;\n"
             "        ${sync}; // wt (and tk) are written; the previous tile's sv is read\n"
             "        unsigned wp = 0, tot = 0;\n"
             "#pragma unroll\n"
             "        for (int q = 0; q < 8; q++) {\n"
             "            if (q < w) wp += wt[q];\n"
             "            tot += wt[q];\n"
             "        }\n"
             "        const bool has = b > 0;\n"
             "        // Publish first (the total, or the first tile's prefix) so that later\n"
             "        // tiles can pass this one while it looks back.\n"
             "        if (i == 0) EM_PUB(b, has ? 1 : 2, tot);\n"
             "        // the tile's distinct values at their ranks within the tile\n"
             "        unsigned rp = wp; // flags of the tile before this thread's row r\n"
             "#pragma unroll\n"
             "        for (int r = 0; r < EM_UQ_R; r++) {\n"
             "            unsigned q = rp + (unsigned)((ex >> (EM_UQ_FW * r)) & EM_UQ_FM);\n"
             "            rp += (unsigned)((rt >> (EM_UQ_FW * r)) & EM_UQ_FM);\n"
             "#pragma unroll\n"
             "            for (int v = 0; v < EM_UQ_V; v++) {\n"
             "                const bool f = (fl >> (r * EM_UQ_V + v)) & 1u;\n"
             "                if (f) sv[q] = x[r * EM_UQ_V + v];\n"
             "                q += f;\n"
             "            }\n"
             "        }\n"
             "#if EM_UQ_PF\n"
             "        const long long nb = tk;\n" EM__UQ_LOAD(
                 "nb") "#endif\n"
                       "        unsigned c = 0;\n"
                       "        if (has && w == 0) c = em_lookback(b, 0, EM_ST);\n"
                       "        if (i == 0) {\n"
                       "            // EM_LB_HOLD: the host emulation (tests/c/scan_emul.h) leaves some tiles\n"
                       "            // at their total, so that later tiles walk back over several.\n"
                       "            if (has && !EM_LB_HOLD(b)) EM_PUB(b, 2, c + tot);\n"
                       "            carry = c;\n"
                       "            if (b == p.ntile - 1) *(long long *)(p.part + 16 + 8 * p.ntile) = (long long)(c + tot);\n"
                       "        }\n"
                       "        ${sync}; // carry and sv are written\n"
                       "        const long long k0 = carry;\n"
                       "        for (int q = i; q < (int)tot; q += 256) ((em_t *)p.vals)[k0 + q] = sv[q];\n"
                       "#if EM_UQ_FIRST || EM_UQ_IDX || EM_UQ_INV\n"
                       "        // (a row at a time: unrolled, the compiler hoisted every row's perm\n"
                       "        // loads, 126 registers for float32 with the inverse)\n"
                       "        rp = wp;\n"
                       "#pragma unroll 1\n"
                       "        for (int r = 0; r < EM_UQ_R; r++) {\n"
                       "            unsigned q = rp + (unsigned)((ex >> (EM_UQ_FW * r)) & EM_UQ_FM);\n"
                       "            rp += (unsigned)((rt >> (EM_UQ_FW * r)) & EM_UQ_FM);\n"
                       "#pragma unroll\n"
                       "            for (int v = 0; v < EM_UQ_V; v++) {\n"
                       "                const int e = e0 + r * EM_UQ_RT + v;\n"
                       "                const bool f = (fl >> (r * EM_UQ_V + v)) & 1u;\n"
                       "                q += f;\n"
                       "                if (e < mc) {\n"
                       "                    const long long j = tc + e, k = k0 + q - 1; // the rank of j's value\n"
                       "#if EM_UQ_FIRST\n"
                       "                    if (f) ((long long *)p.first)[k] = j;\n"
                       "#endif\n"
                       "#if EM_UQ_IDX\n"
                       "                    if (f) ((long long *)p.idx)[k] = ((const long long *)p.perm)[j];\n"
                       "#endif\n"
                       "#if EM_UQ_INV\n"
                       "                    ((long long *)p.inv)[((const long long *)p.perm)[j]] = k;\n"
                       "#endif\n"
                       "                }\n"
                       "            }\n"
                       "        }\n"
                       "#endif\n"
                       "#if EM_UQ_PF\n"
                       "        b = nb;\n"
                       "#else\n"
                       "        if (i == 0) tk = (long long)atomicAdd(ctr, 1ULL);\n"
                       "        ${sync}; // tk is written\n"
                       "        b = tk;\n" EM__UQ_LOAD("b") "#endif\n"
                                                            "    }\n"
                                                            "}\n";

static void em__ubody(const em_uq_spec *k, em_sbuf *s) {
    if (k->mode == EM_UQ_ONE) {
        em_sbuf_printf(s, "%s", em__one_text);
        return;
    }
    if ((!k->filt || k->filt == 3) && (k->mode == EM_UQ_COUNT || k->mode == EM_UQ_WRITE)) {
        em_sbuf_printf(s, "%s}\n", k->mode == EM_UQ_COUNT ? em__count_striped : em__write_striped);
        return;
    }
    switch (k->mode) {
    case EM_UQ_COUNT:
        em_sbuf_printf(s, EM__TILE_HEAD
                       "        sh[${tid}] = c;\n        ${sync};\n"
                       "        for (int w = 128; w > 0; w >>= 1) {\n"
                       "            if ((int)${tid} < w) sh[${tid}] += sh[${tid} + w];\n"
                       "            ${sync};\n        }\n"
                       "        if (${tid} == 0) ((${global}${ll} *)p.part)[t] = sh[0];\n"
                       "        ${sync};\n    }\n");
        break;
    case EM_UQ_PREFIX: /* one block of 256 threads over the tile counts */
        em_sbuf_printf(
            s,
            "    ${shared} ${ll} sh[256];\n"
            "    ${global}${ll} *c = (${global}${ll} *)p.part;\n"
            "    const ${ll} per = (p.ntile + 255) / 256, b0 = ${tid} * per;\n"
            "    ${ll} mine = 0;\n"
            "    for (${ll} i = b0; i < b0 + per && i < p.ntile; i++) mine += c[i];\n"
            "    sh[${tid}] = mine;\n    ${sync};\n" EM__BLOCK_SCAN(
                "    ") "    ${ll} run = sh[${tid}] - mine;\n"
                        "    for (${ll} i = b0; i < b0 + per && i < p.ntile; i++) {\n"
                        "        const ${ll} v = c[i];\n        c[i] = run;\n        run += v;\n    }\n"
                        "    if (${tid} == 255) c[p.ntile] = sh[255];\n");
        break;
    case EM_UQ_WRITE:
        em_sbuf_printf(
            s,
            EM__TILE_HEAD "        sh[${tid}] = c;\n        ${sync};\n" EM__BLOCK_SCAN("        ")
            /* k: the rank of the value element j0 belongs to, + 1 once it is flagged */
            "        ${ll} k = ((${global}const ${ll} *)p.part)[t] + sh[${tid}] - c;\n"
            "        at = -1;\n"
            "        for (int i = 0; i < EM_UQ_ITEMS && j0 + i < p.n; i++) {\n"
            "            const ${ll} j = j0 + i;\n"
            "            if (em_uq_new(p.s, j, p.o, p.no, &at)) {\n"
            "                ((${global}em_t *)p.vals)[k] = ((${global}const em_t *)p.s)[j];\n"
            "#if EM_UQ_FIRST\n"
            "                ((${global}${ll} *)p.first)[k] = j;\n"
            "#endif\n"
            "#if EM_UQ_IDX\n"
            "                ((${global}${ll} *)p.idx)[k] ="
            " ((${global}const ${ll} *)p.perm)[j];\n"
            "#endif\n"
            "                k++;\n            }\n"
            "#if EM_UQ_INV\n"
            "            ((${global}${ll} *)p.inv)[((${global}const ${ll} *)p.perm)[j]] = k - 1;\n"
            "#endif\n"
            "        }\n        ${sync};\n    }\n");
        break;
    case EM_UQ_ISIN: /* EM_UQ_FILT: invert */
        /* Two levels: the first element of each of EM_UQ_SPL chunks of o
         * sits in shared memory (loaded once a block),
         * searched there; then a search of the one chunk that can hold v in
         * o (at 2^16 values 64 elements: two cache lines).  A search of all
         * of o took log2(no) dependent reads of L2 an element. */
        em_sbuf_printf(
            s,
            "    ${shared} em_t sp[EM_UQ_SPL];\n"
            "    ${global}const em_t *o = (${global}const em_t *)p.o;\n"
            "    // a chunk's length (1 for no = 0: no chunks)\n"
            "    const ${ll} st = p.no > EM_UQ_SPL ? (p.no + EM_UQ_SPL - 1) / EM_UQ_SPL : 1;\n"
            "    const int ns = (int)((p.no + st - 1) / st);\n"
            "    for (int i = (int)${tid}; i < ns; i += (int)${bdim}) sp[i] = o[i * st];\n"
            "    ${sync};\n"
            "    for (${ll} i = ${bid} * (${ll})${bdim} + ${tid}; i < p.n;"
            " i += (${ll})${bdim} * ${gdim}) {\n"
            "        const em_t v = ((${global}const em_t *)p.s)[i];\n"
            "        int lo = 0, hi = ns; // lo: the chunks whose first is <= v\n"
            "        while (lo < hi) {\n"
            "            const int m = (lo + hi) >> 1;\n"
            "            if (em_uq_lt(v, sp[m])) hi = m; else lo = m + 1;\n"
            "        }\n"
            "        bool hit = false;\n"
            "        if (lo > 0) { // every element equal to v is in chunk lo - 1\n"
            "            ${ll} a = (lo - 1) * st, b = a + st < p.no ? a + st : p.no;\n"
            "            while (a < b) {\n"
            "                const ${ll} m = a + ((b - a) >> 1);\n"
            "                if (em_uq_lt(o[m], v)) a = m + 1; else b = m;\n"
            "            }\n"
            "            hit = a < p.no && em_uq_eq0(o[a], v);\n"
            "        }\n"
            "        ((${global}unsigned char *)p.vals)[i] = (unsigned char)(hit != EM_UQ_FILT);\n"
            "    }\n");
        break;
    case EM_UQ_MERGE: /* stable: s's elements before o's equal ones */
        /* Merge path: a tile of EM_UQ_TILE outputs takes where its diagonal
         * crosses the two lists (CUTS found them), loads both ranges into
         * shared memory with coalesced reads, each thread finds its own
         * EM_UQ_ITEMS-output diagonal there and merges them, and the tile
         * goes out coalesced through shared memory.  A search of the other
         * list for every element (galloping, 16 to a thread) read scattered
         * global memory: setxor1d's merge of 2 x 2^24. */
        em_sbuf_printf(
            s,
            "    ${shared} em_t sh[EM_UQ_TILE];\n"
            "    ${global}const ${ll} *cut = (${global}const ${ll} *)p.part;\n"
            "    ${global}const em_t *xa = (${global}const em_t *)p.s;\n"
            "    ${global}const em_t *xb = (${global}const em_t *)p.o;\n"
            "    const ${ll} tot = p.n + p.no;\n"
            "    for (${ll} t = ${bid}; t * EM_UQ_TILE < tot; t += ${gdim}) {\n"
            "        const ${ll} d0 = t * EM_UQ_TILE, a0 = cut[t], a1 = cut[t + 1];\n"
            "        const ${ll} b0 = d0 - a0, na = a1 - a0;\n"
            "        const ${ll} len = (d0 + EM_UQ_TILE < tot ? EM_UQ_TILE : tot - d0);\n"
            "        const ${ll} nb = len - na;\n"
            "        for (${ll} i = ${tid}; i < len; i += ${bdim})\n"
            "            sh[i] = i < na ? xa[a0 + i] : xb[b0 + i - na];\n"
            "        ${sync};\n"
            "        em_t r[EM_UQ_ITEMS];\n"
            "        const ${ll} dd = (${ll})${tid} * EM_UQ_ITEMS;\n"
            "        if (dd < len) {\n"
            "            ${ll} i = em_uq_path_sh(sh, na, sh + na, nb, dd), j = dd - i;\n"
            "            for (int q = 0; q < EM_UQ_ITEMS; q++) {\n"
            "                if (dd + q >= len) break;\n"
            "                // s's element first unless o's is smaller\n"
            "                const bool ta = j >= nb || (i < na && !em_uq_lt(sh[na + j], sh[i]));\n"
            "                r[q] = ta ? sh[i] : sh[na + j];\n"
            "                if (ta) i++; else j++;\n"
            "            }\n"
            "        }\n"
            "        ${sync};\n"
            "        for (int q = 0; q < EM_UQ_ITEMS; q++)\n"
            "            if (dd + q < len) sh[dd + q] = r[q];\n"
            "        ${sync};\n"
            "        for (${ll} i = ${tid}; i < len; i += ${bdim})\n"
            "            ((${global}em_t *)p.vals)[d0 + i] = sh[i];\n"
            "        ${sync}; // sh is read before the next tile writes it\n"
            "    }\n");
        break;
    case EM_UQ_CUTS:
        em_sbuf_printf(s,
                       "    const ${ll} tot = p.n + p.no;\n"
                       "    for (${ll} t = ${bid} * (${ll})${bdim} + ${tid}; t <= p.ntile;"
                       " t += (${ll})${bdim} * ${gdim}) {\n"
                       "        const ${ll} d = t * EM_UQ_TILE < tot ? t * EM_UQ_TILE : tot;\n"
                       "        ((${global}${ll} *)p.part)[t] = em_uq_path((${global}const em_t *)"
                       "p.s, p.n, (${global}const em_t *)p.o, p.no, d);\n"
                       "    }\n");
        break;
    default: /* EM_UQ_COUNTS */
        em_sbuf_printf(
            s, "    ${global}const ${ll} *f = (${global}const ${ll} *)p.first;\n"
               "    const ${ll} nu = ((${global}const ${ll} *)p.part)[p.ntile]; // PREFIX's\n"
               "    for (${ll} k = ${bid} * (${ll})${bdim} + ${tid}; k < nu;"
               " k += (${ll})${bdim} * ${gdim})\n"
               "        ((${global}${ll} *)p.cnt)[k] = (k + 1 < nu ? f[k + 1] : p.n) - f[k];\n");
    }
    em_sbuf_printf(s, "}\n");
}

em_status em_render_unique(const em_dialect *d, const em_uq_spec *k, em_sbuf *out) {
    if (!d->kernel || !d->bounds || d->id == EM_DIALECT_C)
        return em_error(EM_EUNSUPPORTED, "the unique kernels are not rendered for %s", d->name);
    const bool cplx = k->dtype == EM_COMPLEX64 || k->dtype == EM_COMPLEX128;
    if (k->mode == EM_UQ_ONE && (d->id != EM_DIALECT_CUDA || k->filt))
        return em_error(EM_EUNSUPPORTED, "the single-pass unique is CUDA's, without a filter");
    if (cplx &&
        ((k->filt && k->mode != EM_UQ_COUNTS) || (k->mode >= EM_UQ_ISIN && k->mode != EM_UQ_ONE)))
        return em_error(EM_EUNSUPPORTED, "no set operation kernels for %s (no order)",
                        em_dtype_get(k->dtype)->name);
    em_sbuf t = {0}; /* the template, expanded into out */
    em_tfield f[14];
    int nf = em__ufields(f);
    em_sbuf_printf(out, "%s\n", d->prelude);
    em_sbuf_printf(&t,
                   "typedef %s em_t;\n#define EM_EQN %d\n#define EM_UQ_FIRST %d\n"
                   "#define EM_UQ_IDX %d\n#define EM_UQ_INV %d\n#define EM_UQ_ITEMS %d\n"
                   "#define EM_UQ_TILE %d\n#define EM_UQ_FILT %d\n#define EM_UQ_SPL %d\n",
                   em_tmpl_stype(d, k->dtype), k->equal_nan, k->first, k->idx, k->inv, EM_UQ_ITEMS,
                   EM_UQ_TILE, k->filt, EM_UQ_SPL);
    if (d->args_struct)
        em_sbuf_printf(&t, "struct em_args {\n    char *s, *vals, *first, *perm, *idx, *inv, *cnt,"
                           " *part, *o;\n    long long n, nu, ntile, no, epoch;\n};\n");
    else
        em_tmpl_args_types(d, f, nf, &t);
    em__eq(k->dtype, &t);
    em__search(k->dtype, &t);
    if (k->mode == EM_UQ_ONE) {
        const int items = em_uq_one_items(k->dtype, k->bytes),
                  sz = (int)em_dtype_get(k->dtype)->size;
        /* __launch_bounds__: 256 threads, and with minb that many blocks an SM */
        char lb[32] = "256";
        if (k->minb > 0) snprintf(lb, sizeof lb, "256, %d", k->minb);
        em_sbuf_printf(&t,
                       "#define EM_UQ_V %d\n#define EM_UQ_K %d\n#define EM_UQ_VIN %d\n"
                       "#define EM_UQ_LB %s\n#define EM_UQ_PF %d\n"
                       "typedef unsigned em_scan_acc;\n"
                       "EM_D em_scan_acc em_op(em_scan_acc a, em_scan_acc b) { return a + b; }\n",
                       16 / sz, items, k->vin, lb, k->pf);
        em_scan_lookback_text(&t, k->lbq);
    }
    /* Whether element i starts a new value (with EM_UQ_FILT, one kept). */
    /* (*at: the thread's last search's answer, -1 before its first) */
    em_sbuf_printf(&t, "EM_D ${ll} em_uq_new(${global}const char *s_, ${ll} i,"
                       " ${global}const char *o, ${ll} no, ${ll} *at) {\n"
                       "    ${global}const em_t *s = (${global}const em_t *)s_;\n"
                       "    if (i != 0 && em_uq_eq(s[i - 1], s[i])) return 0;\n"
                       "#if EM_UQ_FILT == 3 // SINGLE: o is s, no its length\n"
                       "    return i + 1 >= no || !em_uq_eq(s[i], s[i + 1]);\n"
                       "#elif EM_UQ_FILT\n"
                       "    *at = em_uq_seek(o, no, s[i], *at, 0);\n"
                       "    const bool hit = *at < no &&"
                       " em_uq_eq0(((${global}const em_t *)o)[*at], s[i]);\n"
                       "    return hit == (EM_UQ_FILT == 1);\n"
                       "#else\n    return 1;\n#endif\n}\n");
    if (k->mode != EM_UQ_ONE) /* (its own text opens its kernel after its helpers) */
        em_sbuf_printf(&t, "${kernel(256)} " EM_KNAME "(${params}) {\n${prologue}");
    em__ubody(k, &t);
    const char *const extra[] = {"zero", "0u", NULL};
    return em_tmpl_finish(d, f, nf, &t, extra, out);
}
