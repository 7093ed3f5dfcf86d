/* The stable LSD radix sort and the binary search over a backend's
 * primitives (kernels: codegen/render_sort.[ch]).
 *
 * The sort orders the rows of a (any layout, its elements taken in C order,
 * every len consecutive ones a row: len = the last dimension sorts along it,
 * len = the size sorts the flattened array) into a C-contiguous out of the
 * same size: the values (em_run_sort) or, for argsort, each
 * element's index within its row (int64).
 *
 * Keys.  Each element maps to unsigned bits in NumPy's order (render_sort.h).
 * A sort by several words runs from the least significant word up, each word
 * a full radix sort of (word, permutation) pairs that carries the order so
 * far (LSD over words: every pass is stable).  Words, least first:
 *   - the key (complex128: its imaginary word, then its real word);
 *   - the row, when there are several: in the high half of a 64-bit key
 *     when the key has at most 32 bits (no extra word), else its own word.
 *
 * One word: KEYS writes the keys (and the identity permutation) into
 * contiguous scratch and the OR and AND of all keys (ORAND); the host reads
 * those two numbers (a synchronisation) and skips every 4-bit digit in which
 * they agree -- the same in every key, so the pass would not move anything:
 * a bool or int8 sort in 32-bit keys runs 2 passes, not 8, and data of a
 * small range likewise.  Each remaining pass, digit d at bits 4p..4p+3:
 *   COUNT   counts[d][tile] = keys of digit d in each tile of 4096;
 *   SCAN    each digit's row scanned: the keys of d in earlier tiles;
 *   SCATTER the key with digit d at rank j among its tile's keys of d goes
 *           to (keys of smaller digits) + (keys of d in earlier tiles) + j.
 *           The rank is stable because thread t ranks its 16 consecutive
 *           keys in order and the per-thread counters are scanned in
 *           (digit, thread) order; so each pass is a stable counting sort of
 *           the keys by d, and after all passes the keys are in order
 *           (LSD radix sort), equal keys in their original order.
 * Out: decoded keys (sort, one word, no permutation needed), else elements
 * gathered through the permutation, or the permutation mod the row length
 * (argsort).  The launches are queued on one stream: each sees the last.
 *
 * Sizes: counts are 32-bit, so n < 2^31 elements (a larger sort is refused).
 */
#include "codegen/run_sort.h"
#include "codegen/render_sort.h"
#include "core/core.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Whether a haystack too long for shared memory is searched through
 * samples there by default (EMBER_SEARCH_SAMPLE overrides): no -- on the
 * H100, 2^24 float32 needles into 2^24 keys take 2.09 ms so and 2.05 ms by
 * the plain search (bench/tune_sort.py, 2026-11-26): the upper levels the
 * samples replace are cache hits already, and the shared memory costs
 * cache. */
#define EM__SEARCH_SAMPLE 0

typedef struct em__sortctx {
    const em_backend *be;
    const em_sort_spec *c;
} em__sortctx;

static em_status em__render(const void *ctx, void *src) {
    const em__sortctx *x = ctx;
    const em_dialect *d;
    EM_CHECK(em_run_dialect(x->be, &d));
    return em_render_sort(d, x->c, src);
}

/* The argument: buffers, then the numbers (render_sort.h).  All 8 bytes. */
typedef struct em__sargs {
    void *b[EM_SORT_NBUF];
    int64_t n, len, nb, shift, mode, word, hasvals, hst;
    int64_t v[2 * EM_MAXDIMS]; /* shape[nd], then st[nd] */
} em__sargs;

typedef struct em__sorter {
    const em_backend *be;
    const em_dialect *d;
    int id;
    em_sort_spec c;
    em__sargs a;
} em__sorter;

/* Launch kernel fname with grid blocks (capped by the device) on a->b. */
static em_status em__go(em__sorter *s, const char *fname, int64_t grid) {
    const em_device_props *pr;
    EM_CHECK(s->be->props_ref(s->id, &pr));
    em_sbuf key = {0};
    em_sort_key(&s->c, &key);
    em_sbuf_printf(&key, "|%s", fname);
    char name[64];
    snprintf(name, sizeof name, "%s_%s", fname + 3, em_dtype_get(s->c.dtype)->name);
    const em_kfn *f = NULL;
    em__sortctx x = {s->be, &s->c};
    em_status st = key.oom ? em_error(EM_ENOMEM, "out of host memory")
                           : em_run_kernel(s->be, s->id, key.s, name, fname, em__render, &x, &f);
    em_sbuf_free(&key);
    EM_CHECK(st);
    if (grid > pr->max_grid_dim[0]) grid = pr->max_grid_dim[0];
    if (grid < 1) grid = 1;
    /* A buffer slot the kernel does not use still gets a valid pointer
     * (an OpenCL runtime maps each to its buffer). */
    void *any = NULL;
    for (int k = 0; k < EM_SORT_NBUF && !any; k++) any = s->a.b[k];
    for (int k = 0; k < EM_SORT_NBUF; k++)
        if (!s->a.b[k]) s->a.b[k] = any;
    /* The argument as the template lays it out (tmpl.h): the buffers' slots,
     * the numbers, shape[nd] and st[nd]. */
    static const int slots[EM_SORT_NBUF] = {0, 1, 2, 3, 4, 5, 6, 7};
    const size_t size = 8 * (size_t)(EM_SORT_NBUF + 8 + 2 * s->c.nd);
    /* The pass kernel's block is its spec's (em__os_shape); the others' EM_SORT_B. */
    const unsigned block =
        !strcmp(fname, EM_SORT_ONESWEEP) && s->c.ob ? (unsigned)s->c.ob : EM_SORT_B;
    return em_run_launch(s->be, s->id, f, (unsigned)grid, block, 0, &s->a, size, slots,
                         EM_SORT_NBUF);
}

static void em__bufs(em__sorter *s, void *b0, void *b1, void *b2, void *b3, void *b4, void *b5,
                     void *b6) {
    void *b[7] = {b0, b1, b2, b3, b4, b5, b6};
    memcpy(s->a.b, b, sizeof b); /* b7 (the argsort's sorted values) stays */
}

/* The number of dimensions a is addressed by: 1 when its elements lie in
 * C order one after another (em_off then multiplies, no 64-bit division). */
static int em__nd(const em_array *a) {
    return a->ndim <= 1 || em_array_is_c_contiguous(a) ? 1 : a->ndim;
}

/* The address data of a: shape and byte strides into the argument. */
static void em__addr(em__sorter *s, const em_array *a) {
    const int nd = em__nd(a);
    if (nd == 1 && a->ndim != 1) { /* 0-d, or C-contiguous: one run of elements */
        s->a.v[0] = em_array_size(a);
        s->a.v[1] = (int64_t)em_dtype_get(a->dtype)->size;
        return;
    }
    for (int d = 0; d < nd; d++) {
        s->a.v[d] = a->ndim ? a->shape[d] : 1;
        s->a.v[nd + d] = a->ndim ? a->strides[d] : 0;
    }
}

typedef struct em__scratch {
    void *keys[2], *vals[2], *counts, *part, *meta;
    size_t kbytes, vbytes, cbytes, pbytes, mbytes;
} em__scratch;

static void em__scratch_free(const em_backend *be, int id, em__scratch *m) {
    /* One stream: the pool may hand a block out again once queued work is ordered after. */
    for (int k = 0; k < 2; k++) {
        if (m->keys[k]) be->free(id, m->keys[k], m->kbytes);
        if (m->vals[k]) be->free(id, m->vals[k], m->vbytes);
    }
    if (m->counts) be->free(id, m->counts, m->cbytes);
    if (m->part) be->free(id, m->part, m->pbytes);
    if (m->meta) be->free(id, m->meta, m->mbytes);
}

/* Sort the current keys (and permutation) by every digit that varies. */
static em_status em__passes(em__sorter *s, em__scratch *m, int *cur, bool vals) {
    const int64_t nb = s->a.nb;
    uint64_t orand[2];
    EM_CHECK(em__go(s, EM_SORT_ORAND, 1));
    EM_CHECK(s->be->to_host(s->id, orand, (char *)m->part + 16 * nb, sizeof orand));
    const uint64_t vary = orand[0] ^ orand[1];
    for (int shift = 0; shift < s->c.keybits; shift += 4) {
        if (!((vary >> shift) & 15u)) continue;
        const int k = *cur;
        s->a.shift = shift;
        em__bufs(s, NULL, m->keys[k], m->keys[1 - k], vals ? m->vals[k] : NULL,
                 vals ? m->vals[1 - k] : NULL, m->counts, NULL);
        EM_CHECK(em__go(s, EM_SORT_COUNT, nb));
        EM_CHECK(em__go(s, EM_SORT_SCAN, EM_SORT_RADIX));
        EM_CHECK(em__go(s, EM_SORT_SCATTER, nb));
        *cur = 1 - k;
    }
    return EM_OK;
}

/* Whether the onesweep kernels sort (render_onesweep.c): on CUDA, for
 * fewer than 2^30 keys (a status word's count), unless
 * EMBER_SORT_ONESWEEP=0 asks for the reduce-then-scan kernels (to compare
 * them, or to test them on the emulated CUDA backend). */
static bool em__use_onesweep(const em__sorter *s, int64_t n) {
    if (s->d->id != EM_DIALECT_CUDA || n >= ((int64_t)1 << 30)) return false;
    const char *e = getenv("EMBER_SORT_ONESWEEP");
    return !(e && e[0] == '0');
}

/* The pass kernel's shape (render_onesweep.c).  Tiles of 384 x 24 keys
 * for 32-bit keys, alone or with their 32-bit values (argsort), and 384 x
 * 14 (13 with values) for 64-bit keys -- the largest that fit 48 KiB of
 * static shared memory now that the warps' counters share the tile's
 * words -- at 2 blocks an SM (the register bound: 80 registers).  CUB's
 * sm_90 tuning is 384 x 23.  bench/tune_sort.py --args on the H100
 * (2026-11-26, ms, 2^24 keys; sort f32 / sort i32 / argsort f32 / sort
 * f64): 384 x 22 (the old 32-bit shape; old 64-bit 256 x 16 x 0 blocks)
 * 0.720 / 0.718 / 1.080 / 1.845, 384 x 24 0.701 / 0.704 / 1.058, 384 x
 * 26 0.711 / 0.705, 384 x 20 0.723 / 0.735 / 1.060, 384 x 14 0.798 /
 * 0.790 / 1.101 / 1.559, 256 x 16 x 3 0.796 / 0.755 / 1.068 / 1.612.
 * A second run: 384 x 24 0.697 / 0.701 / 1.052 / 1.563 (384 x 14), 384 x
 * 22 0.718 / 0.722 / 1.024; ranking by __match_any_sync instead of 8
 * ballots 0.839 / 0.894 / 1.219 / 1.763.  EMBER_SORT_OS="threads,items,
 * blocks" overrides it where the shape is valid and fits (for tuning);
 * EMBER_SORT_MATCH=1 ranks by the match instruction.
 *
 * The variants (spec.ovar bits, render_onesweep.c; EMBER_SORT_VAR
 * overrides, 0 the kernel and the shapes above): on the H100 (2026-11-26,
 * bench/tune_sort.py, ms, 2^24; sort f32 / sort i32 / argsort f32 / sort
 * f64) 384 x 24 x 2 0.705 / 0.716, with whole tiles untested (1) 0.689 /
 * 0.695; keys moved while ranked (2, counters of their own) let 32-bit
 * keys run 3 blocks an SM: 384 x 22 x 3 (1 + 2) 0.637 / 0.627, 256 x 32 x
 * 4 0.660 / 0.654, 384 x 22 x 2 0.693 / 0.689, 512 x 14 x 2 0.688 /
 * 0.707; values and 64-bit keys at 256 x 16 x 4: argsort f32 0.907
 * (against 1.050), sort f64 1.460 (1 + 2; 1.550).
 *
 * Session 15 (H100, ncu --clock-control none, 2^24 float32, us): with 3,
 * CLEAR 5, UPSWEEP 62, the first pass 173, the others 129 each; CUB's
 * (CuPy) histogram 49, its passes 95 each at the same 384 threads, 56
 * registers and 3 blocks an SM.  Our pass issued 1.64x CUB's instructions
 * (62 % of issue slots busy, the ALU pipe the busiest): it is bound by
 * instructions, not memory (1.06 TB/s).  The first pass keyed each
 * element as it arrived, so its 22 loads went one after another (the
 * SASS: each LDG's result tested before the next LDG); UPSWEEP likewise
 * had one load in flight a thread.  4 (loads first: every variant, any
 * stride) and 32 (UPSWEEP's 16-byte vectors: 62 -> 40 us) fix those; 16
 * (CUB's PTX vote in em_match8: 75 -> 53 instructions a key's ranking)
 * cuts the pass's instructions.  tune_sort.py, same call, ms (sort f32 /
 * i32 / argsort f32 / sort f64): 3 0.638 / 0.636 / 0.919 / 1.473, 3+4
 * 0.623 / 0.603 / 0.921 / 1.511, 3+32 0.617 / 0.624 / 0.893, 3+4+32
 * 0.605 / 0.583 / 0.893 / 1.476; CuPy 0.564 / 0.549 / 0.997.  Bit 8
 * (EM_UI) stays off: it keyed each load as it came too.  A block taking
 * its next tile while it works on this one (tried as 16 before the vote)
 * slowed every pass by 13 us: not kept.  Then the vote (16) and the tile's
 * end tested as j * 32 < lim (every variant; the spills 100 -> 16 bytes),
 * a second call: 3+4+16+32 0.510 and 0.492 / 0.469 and 0.468 / 0.849 /
 * 1.263, 3 0.613 / 0.626 and 0.605 / 0.910 / 1.457, 3+4+32 0.573 / 0.564
 * / 0.885 / 1.432, 3+16+32 0.503 / 0.495 / 0.854 / 1.313; CuPy 0.548 /
 * 0.528 / 0.975, PyTorch 0.947 / 0.961 / 0.949.  ncu: UPSWEEP 39 us, the
 * first pass 110-120, the others 100-104 (CUB's 90-96). */
#define EM__SORT_VAR (3 | 4 | 16 | 32)
static void em__os_shape(em_sort_spec *c, bool vals) {
    int var = EM__SORT_VAR, x, y, z;
    const char *v = getenv("EMBER_SORT_VAR");
    if (v && sscanf(v, "%d", &x) == 1 && x >= 0 && x <= 63) var = x;
    int b = 384, it = c->keybits == 32 ? 24 : vals ? 13 : 14, mb = 2;
    if (var && c->keybits == 32 && !vals)
        it = 22, mb = 3; /* 2 fits 22 keys a thread beside the counters */
    else if (var && (c->keybits == 32 || !vals))
        b = 256, it = 16, mb = 4;
    const char *e = getenv("EMBER_SORT_OS");
    if (e && sscanf(e, "%d,%d,%d", &x, &y, &z) == 3 && x % 32 == 0 && x >= 256 && x <= 1024 &&
        y >= 1 && y <= 32 && z >= 0 && z <= 8 &&
        em_sort_os_smem(x, y, c->keybits, vals, var) <= 48 * 1024)
        b = x, it = y, mb = z;
    /* A shape too large for the counters' own words keeps the union. */
    if (em_sort_os_smem(b, it, c->keybits, vals, var) > 48 * 1024) var &= ~2;
    c->ob = b, c->oi = it, c->om = mb, c->ov = vals, c->ovar = var;
    const char *mt = getenv("EMBER_SORT_MATCH");
    c->omatch = mt && mt[0] == '1';
}

/* One word by the onesweep kernels: every byte's histogram in one read
 * (and the keys, unless fused), then one pass per byte that varies.
 *
 * Fused (out set: one key word, the output the sorted values or the
 * indices): UPSWEEP only counts, and each byte's pass is launched without
 * a look at HIST -- the pass itself skips a byte whose histogram has one
 * digit holding every key, the first pass that runs reads the array, the
 * last writes out (render_onesweep.c): no host synchronisation, no keys
 * or output pass.  Bytes above the dtype's key bits are zero in every key
 * and not launched (but with the row in the key's high half).
 *
 * Else the host reads HIST (a synchronisation: it must know which buffer
 * ends with the keys) and launches only the bytes that vary. */
static em_status em__onesweep(em__sorter *s, em__scratch *m, const em_array *a, int *cur, bool vals,
                              em_array *out) {
    const em_device_props *pr;
    EM_CHECK(s->be->props_ref(s->id, &pr));
    const int64_t n = s->a.n, nb = s->a.nb, kbytes = s->c.keybits / 8;
    const int64_t words = EM_SORT_META_WORDS + kbytes * nb * 256;
    int64_t cw = (words + EM_SORT_B - 1) / EM_SORT_B;
    em__bufs(s, a->data, m->keys[*cur], NULL, vals ? m->vals[*cur] : NULL,
             vals ? m->vals[*cur] : NULL, m->meta, NULL);
    EM_CHECK(em__go(s, EM_SORT_CLEAR, cw < 4096 ? cw : 4096));
    const int64_t up = (int64_t)(pr->multiprocessor_count > 0 ? pr->multiprocessor_count : 1) * 8;
    const int64_t mode = s->a.mode;
    if (out) s->a.mode = 2;
    EM_CHECK(em__go(s, EM_SORT_UPSWEEP, nb < up ? nb : up));
    if (out) {
        const int64_t nbytes = s->c.seghi ? kbytes : em_sort_key_bits(s->c.dtype) / 8;
        s->a.mode = 4;
        em__bufs(s, a->data, m->keys[0], m->keys[1], vals ? m->vals[0] : NULL,
                 vals ? m->vals[1] : NULL, m->meta, out->data);
        for (int q = 0; q < nbytes; q++) {
            s->a.shift = 8 * q;
            EM_CHECK(em__go(s, EM_SORT_ONESWEEP, nb));
        }
        s->a.mode = mode;
        return EM_OK;
    }
    s->a.mode = mode;
    uint32_t hist[8 * 256];
    EM_CHECK(s->be->to_host(s->id, hist, m->meta, (size_t)kbytes * 256 * 4));
    /* The first word's permutation is the identity: its first pass makes
     * it (p.mode 3: each value its index) instead of UPSWEEP writing it and
     * the pass reading it; with no byte to sort, byte 0 runs for that. */
    bool ident = vals && s->a.mode == 0;
    for (int q = 0; q < kbytes; q++) {
        bool one = false;
        for (int d = 0; d < 256 && !one; d++) one = hist[q * 256 + d] == (uint64_t)n;
        if (one && !(ident && q == kbytes - 1)) continue;
        if (ident) s->a.mode = 3;
        ident = false;
        const int k = *cur;
        s->a.shift = 8 * q;
        em__bufs(s, NULL, m->keys[k], m->keys[1 - k], vals ? m->vals[k] : NULL,
                 vals ? m->vals[1 - k] : NULL, m->meta, NULL);
        EM_CHECK(em__go(s, EM_SORT_ONESWEEP, nb));
        s->a.mode = 0;
        *cur = 1 - k;
    }
    return EM_OK;
}

/* Whether each row sorts inside one block (ROWS): on CUDA as onesweep,
 * several rows of EM_SORT_ROWS_MIN .. EM_SORT_TILE elements, one key word
 * (complex128 has two: it sorts as segments). */
static bool em__use_rows(const em__sorter *s, const em_array *a, int64_t n, int64_t len) {
    return em__use_onesweep(s, n) && n / len > 1 && len >= EM_SORT_ROWS_MIN &&
           len <= EM_SORT_TILE && a->dtype != EM_COMPLEX128;
}

/* em_run_sort; keys (argsort of one row only): where the fused onesweep
 * passes sort, the last also writes the sorted values there and *done is
 * set, else keys is not touched. */
static em_status em__run_sort(const em_backend *be, const em_array *a, int64_t len, bool descending,
                              bool arg, em_array *out, em_array *keys, bool *done) {
    const int64_t n = em_array_size(a);
    if (done) *done = n == 0;
    if (n == 0) return EM_OK;
    if (len < 1 || n % len)
        return em_error(EM_EVALUE, "sort: rows of %lld do not tile %lld elements", (long long)len,
                        (long long)n);
    if (n >= ((int64_t)1 << 31))
        return em_error(EM_EVALUE, "the device sort takes fewer than 2^31 elements, got %lld",
                        (long long)n);
    if (em_array_size(out) != n || !em_array_is_c_contiguous(out) ||
        out->dtype != (arg ? EM_INT64 : a->dtype))
        return em_error(EM_EVALUE, "sort: out must be C-contiguous, %s, of the input's size",
                        arg ? "int64" : "the input's dtype");
    em__sorter s = {.be = be, .id = em_array_device(a).id};
    EM_CHECK(em_run_dialect(be, &s.d));
    const int64_t nseg = n / len;
    if (em__use_rows(&s, a, n, len)) {
        /* Keys decoded for a sort: -0.0 keeps its key (canon off) but in
         * complex64, whose imaginary part decides between real parts. */
        const int rb = em_sort_key_bits(a->dtype) == 64 ? 64 : 32;
        s.c = (em_sort_spec){a->dtype, rb,       descending, arg || a->dtype == EM_COMPLEX64,
                             false,    em__nd(a)};
        s.a.n = n, s.a.len = len, s.a.nb = nseg, s.a.mode = arg ? 2 : 0;
        em__addr(&s, a);
        em__bufs(&s, a->data, NULL, NULL, NULL, NULL, out->data, NULL);
        return em__go(&s, EM_SORT_ROWS, nseg);
    }
    const int kb = em_sort_key_bits(a->dtype);
    const bool two = a->dtype == EM_COMPLEX128;
    const bool seghi = nseg > 1 && kb <= 32;
    const bool segword = nseg > 1 && !seghi;
    const int nwords = (two ? 2 : 1) + segword;
    const bool vals = arg || nwords > 1;
    /* -0.0 keyed as +0.0 wherever the order of equal keys shows: in the
     * permutation, and inside a complex64 key, whose imaginary part must
     * decide between real parts -0.0 and 0.0.  A decoded real float keeps
     * its -0.0 (before 0.0: equal values, NumPy's ties differ unseen). */
    const bool canon = vals || a->dtype == EM_COMPLEX64;
    s.c =
        (em_sort_spec){a->dtype, kb == 64 || seghi ? 64 : 32, descending, canon, seghi, em__nd(a)};
    const bool one = em__use_onesweep(&s, n);
    if (one) em__os_shape(&s.c, vals);
    /* The values decoded from the keys, a few floats' copied (EM_OKEYS). */
    if (keys && one && arg && nwords == 1 && a->dtype != EM_COMPLEX64) {
        s.c.okeys = true;
        s.a.b[7] = keys->data;
        *done = true;
    }
    const int64_t tile = one ? (int64_t)s.c.ob * s.c.oi : EM_SORT_TILE;
    const int64_t nb = (n + tile - 1) / tile;
    s.a.n = n, s.a.len = len, s.a.nb = nb, s.a.hasvals = vals;
    em__addr(&s, a);
    em__scratch m = {.kbytes = (size_t)n * (size_t)(s.c.keybits / 8),
                     .vbytes = (size_t)n * (s.c.ov ? 4 : 8), /* onesweep's are 32-bit */
                     .cbytes = (size_t)(EM_SORT_RADIX * nb + EM_SORT_RADIX) * 4,
                     .pbytes = (size_t)(2 * nb + 2) * 8};
    em_status st = EM_OK;
    for (int k = 0; k < 2 && st == EM_OK; k++) {
        st = be->alloc(s.id, m.kbytes, &m.keys[k]);
        if (st == EM_OK && vals) st = be->alloc(s.id, m.vbytes, &m.vals[k]);
    }
    if (one) m.mbytes = (size_t)(EM_SORT_META_WORDS + (int64_t)(s.c.keybits / 8) * nb * 256) * 4;
    if (st == EM_OK && one) st = be->alloc(s.id, m.mbytes, &m.meta);
    if (st == EM_OK && !one) st = be->alloc(s.id, m.cbytes, &m.counts);
    if (st == EM_OK && !one) st = be->alloc(s.id, m.pbytes, &m.part);
    /* One key word and no gather through the permutation: the onesweep
     * passes write out themselves. */
    const bool fused = one && nwords == 1;
    int cur = 0;
    for (int w = 0; w < nwords && st == EM_OK; w++) {
        /* Word w of the key (2: the row); after the first, gathered through
         * the permutation so far, which stays where it is. */
        s.a.word = w < (two ? 2 : 1) ? w : 2;
        s.a.mode = w > 0;
        if (one) {
            st = em__onesweep(&s, &m, a, &cur, vals, fused ? out : NULL);
            continue;
        }
        em__bufs(&s, a->data, m.keys[cur], NULL, vals ? m.vals[cur] : NULL,
                 vals ? m.vals[cur] : NULL, m.part, NULL);
        st = em__go(&s, EM_SORT_KEYS, nb);
        if (st == EM_OK) st = em__passes(&s, &m, &cur, vals);
    }
    if (st == EM_OK && !fused) {
        s.a.mode = arg ? 2 : vals ? 1 : 0;
        em__bufs(&s, a->data, m.keys[cur], NULL, vals ? m.vals[cur] : NULL, NULL, out->data, NULL);
        st = em__go(&s, EM_SORT_OUT, (n + EM_SORT_B - 1) / EM_SORT_B);
    }
    em__scratch_free(be, s.id, &m);
    return st;
}

em_status em_run_sort(const em_backend *be, const em_array *a, int64_t len, bool descending,
                      bool arg, em_array *out) {
    return em__run_sort(be, a, len, descending, arg, out, NULL, NULL);
}

em_status em_run_argsort_keys(const em_backend *be, const em_array *a, bool descending,
                              em_array *idx, em_array *keys, bool *done) {
    *done = false;
    if (em_array_size(keys) != em_array_size(a) || !em_array_is_c_contiguous(keys) ||
        keys->dtype != a->dtype)
        return em_error(EM_EVALUE, "argsort_keys: keys must be C-contiguous, a's dtype and size");
    return em__run_sort(be, a, em_array_size(a) ? em_array_size(a) : 1, descending, true, idx, keys,
                        done);
}

em_status em_run_searchsorted(const em_backend *be, const em_array *hay, const em_array *sorter,
                              const em_array *v, bool right, em_array *out) {
    const int64_t n = em_array_size(v);
    if (n == 0) return EM_OK;
    if (hay->ndim != 1 || hay->dtype != v->dtype || out->dtype != EM_INT64 ||
        em_array_size(out) != n || !em_array_is_c_contiguous(out) ||
        (sorter && (sorter->dtype != EM_INT64 || sorter->ndim != 1 ||
                    sorter->shape[0] != hay->shape[0] || !em_array_is_c_contiguous(sorter))))
        return em_error(EM_EVALUE, "searchsorted: bad arguments");
    em__sorter s = {.be = be, .id = em_array_device(v).id};
    EM_CHECK(em_run_dialect(be, &s.d));
    s.c = (em_sort_spec){v->dtype, em_sort_key_bits(v->dtype) == 64 ? 64 : 32, false, true, false,
                         em__nd(v)};
    s.a.n = n, s.a.len = hay->shape[0], s.a.mode = right, s.a.hasvals = sorter != NULL;
    s.a.hst = hay->strides[0];
    em__addr(&s, v);
    /* An empty haystack: every answer is 0, no element is read. */
    em__bufs(&s, hay->data, v->data, NULL, sorter ? sorter->data : NULL, NULL, out->data, NULL);
    /* SEARCH_SH (render_sort.c) makes its shared haystack keys once per
     * block: as many blocks as keep the device busy, no more.  It takes
     * every haystack of one key word that fits there whole, and a longer
     * one by samples when EMBER_SEARCH_SAMPLE=1 (EM__SEARCH_SAMPLE). */
    int64_t grid = (n + EM_SORT_B - 1) / EM_SORT_B;
    const em_device_props *pr;
    EM_CHECK(be->props_ref(s.id, &pr));
    const int64_t sms = pr->multiprocessor_count > 0 ? pr->multiprocessor_count : 1;
    const int64_t busy = sms * 16;
    const char *e = getenv("EMBER_SEARCH_SAMPLE");
    const bool sample = e ? e[0] == '1' : EM__SEARCH_SAMPLE;
    const bool sh = v->dtype != EM_COMPLEX128 && (hay->shape[0] <= EM_SORT_SEARCH_KEYS || sample);
    const char *so = getenv("EMBER_SEARCH_OLD"); /* the old SEARCH_SH, for A/B timing */
    s.c.sold = so && so[0] == '1';
    if (sh && grid > busy) grid = busy;
    return em__go(&s, sh ? EM_SORT_SEARCH_SH : EM_SORT_SEARCH, grid);
}
