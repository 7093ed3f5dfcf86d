/* unique over a backend's primitives: the distinct values of an array the
 * device sort has sorted (em_unique_sorted, ember.h), with the first
 * indices, the inverse and the counts, in one flag-and-compact pass.
 *
 * Before, Python composed it: an adjacent != (one kernel and a bool array),
 * a concatenate, the mask's compaction (three kernels and a read-back),
 * nonzero of the mask (three more and a second read-back), a cumsum and a
 * scatter for the inverse.  Here the flags are never stored: the count
 * kernel computes them from the sorted values tile by tile, one block
 * scans the tile counts, and the write kernel computes them again, ranks
 * them within its tile and writes every output at once; the number of
 * distinct values is the one value read back (the outputs' length), and
 * the counts are first[k + 1] - first[k] over the nu values.  The sorted
 * values are read twice (count, write), which costs less than storing and
 * re-reading a flag array and needs no look-back between blocks.
 *
 * On CUDA plain unique (no filter, n < 2^31) is one launch instead
 * (EM_UQ_ONE, render_unique.c): each tile counts its flags, takes its first
 * rank from the tiles before it by decoupled look-back (the scan's status
 * words and em_lookback), and writes every output: the sorted values are
 * read once, n in and nu out, after a fill that zeroes the tiles' words.
 * The three kernels read them twice and launch three times: unique of 2^24
 * float32 measured 0.157 ms for its pass (H100, session 16) against a floor
 * of ~0.045 for 64 MB in and out.  OpenCL keeps the three kernels (no
 * promise that a spinning work-group lets another progress), and so do the
 * filtered set operations (their galloping search wants each thread's
 * elements adjacent).  EMBER_UNIQUE_PASS=3 selects the three on CUDA too.
 * H100, session 17 (one process, median of 9, 2^24 float32 sorted): the
 * pass 0.118 ms between events against the three kernels' 0.162 (two
 * rounds each); ncu (base clocks) 94.9 us for the one kernel against count
 * 43.7 + prefix 13.1 + write 91.6: 37 % occupancy, DRAM 35 % of peak, a
 * tile's steps (ticket, loads, scan, look-back, staging) one after another.
 * Session 18: the tile is staged before the look-back and the next tile's
 * ticket and loads fly during it, tiles of 128 bytes a thread at 4 blocks
 * an SM for float32 (em__tune): ncu 70.1 us (DRAM 44 %), 0.093 ms between
 * events against the session-17 kernel's 0.107-0.109 in the same call.
 * unique inverse+counts read 2.45-2.48 ms on the three kernels against
 * 2.48-2.53 on the single pass (within the noise, PyTorch 2.55), so
 * EMBER_UNIQUE_PASS=3 stays for that A/B. */
#include "codegen/render_unique.h"
#include "codegen/run_unique.h"
#include "core/core.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct em__uq {
    const em_backend *be;
    em_uq_spec k;
} em__uq;

static em_status em__uq_render(const void *ctx, void *sb) {
    const em__uq *u = ctx;
    const em_dialect *d;
    EM_CHECK(em_run_dialect(u->be, &d));
    return em_render_unique(d, &u->k, sb);
}

/* The packed argument: 9 pointers, n, nu, ntile, no, epoch (0: the
 * single pass's status words are zeroed before each call). */
typedef struct em__uqargs {
    void *p[9]; /* s, vals, first, perm, idx, inv, cnt, part, o */
    int64_t n, nu, ntile, no, epoch;
} em__uqargs;

static em_status em__uq_launch(const em_backend *be, int id, em_uq_spec k, em__uqargs *a,
                               int64_t blocks) {
    if (blocks <= 0) return EM_OK;
    char key[64], name[48];
    snprintf(key, sizeof key, "UQ%d|%d|%d|%d%d%d|%d|%d|%d|%d,%d,%d", k.mode, (int)k.dtype,
             k.equal_nan, k.first, k.idx, k.inv, k.filt, k.vin, k.minb, k.bytes, k.lbq, k.pf);
    static const char *const names[] = {"unique_count",  "unique_prefix", "unique_write",
                                        "unique_counts", "unique_isin",   "unique_merge",
                                        "unique_cuts",   "unique_one"};
    snprintf(name, sizeof name, "%s_%s", names[k.mode], em_dtype_get(k.dtype)->name);
    em__uq u = {be, k};
    const em_kfn *f;
    EM_CHECK(em_run_kernel(be, id, key, name, EM_KNAME, em__uq_render, &u, &f));
    const em_device_props *pr;
    EM_CHECK(be->props_ref(id, &pr));
    /* ISIN: each block loads o's chunk heads once, so fewer blocks that
     * stride further (8 of 256 threads still fill a multiprocessor) */
    int64_t cap = (int64_t)pr->multiprocessor_count * (k.mode == EM_UQ_ISIN ? 8 : 32);
    unsigned char blob[sizeof *a];
    memcpy(blob, a, sizeof *a);
    int slots[9];
    return em_run_launch(be, id, f, (unsigned)(blocks < cap ? blocks : cap), 256, 0, blob,
                         sizeof blob, slots, em_run_slots(slots, 0, 9));
}

/* The outputs of nu of n elements, written at n (the bound) before nu was
 * known, cut to nu: a view of the first nu while at least half is used,
 * else a copy (a few distinct values of many must not hold n-element
 * buffers alive). */
static em_status em__uq_cut(const em_backend *be, em_array *a, int64_t nu, int64_t n) {
    if (!a->buf) return EM_OK;
    if (2 * nu >= n) {
        a->shape[0] = nu;
        return EM_OK;
    }
    em_array c = {0};
    EM_CHECK(em_array_empty(&c, a->dtype, 1, &nu, em_array_device(a)));
    const size_t bytes = (size_t)nu * em_dtype_get(a->dtype)->size;
    em_status st = bytes ? be->copy(em_array_device(a).id, c.data, a->data, bytes) : EM_OK;
    if (st != EM_OK) {
        em_array_release(&c);
        return st;
    }
    em_array_release(a);
    *a = c;
    return EM_OK;
}

/* Whether unique's pass is EM_UQ_ONE's single launch: CUDA (where resident
 * blocks progress, so a look-back's wait ends; render_scan.c says why not
 * OpenCL), plain unique (filt 0), counts within its 32-bit words.
 * EMBER_UNIQUE_PASS=3: the three kernels, for A/B. */
static bool em__one(const em_backend *be, int filt, int64_t n) {
    const em_dialect *d;
    if (filt || !be->fill || n >= ((int64_t)1 << 31) || em_run_dialect(be, &d) != EM_OK ||
        d->id != EM_DIALECT_CUDA)
        return false;
    const char *e = getenv("EMBER_UNIQUE_PASS");
    return !(e && !strcmp(e, "3"));
}

/* The single pass's form for k's dtype: a thread's bytes of the tile, the
 * next tile's loads during the look-back (pf), __launch_bounds__' blocks an
 * SM (minb).  H100 (session 18, one process, 2^24 float32 sorted; ncu at
 * base clocks / the pass between events): 128 bytes, pf, 4 blocks (64
 * registers, no spill) 70.1 us / 0.093 ms against the session-17 form's
 * 94.9 us / 0.107-0.109 (64 bytes, no pf, 2-3 blocks), 64 bytes 79.5 us,
 * 128 bytes with 2 blocks (111 registers) 91.7 us, 3 blocks 77.0 us; two
 * or four look-back windows a round trip no faster (0.100, 0.101).  Where
 * 64 registers spill (ptxas 13.0, the local NVRTC): int32 / uint32 (208+
 * bytes of frame at 128 bytes, none at 64), 8- and 16-byte dtypes (a few
 * at 4 blocks, none at 3) and the 1- and 2-byte ones (their 32 elements a
 * thread, the old form), each takes the largest form that does not.
 * EMBER_UNIQUE_TUNE="bytes,lbq,pf,minb" overrides it (A/B). */
static void em__tune(em_uq_spec *k) {
    const em_dtype_info *di = em_dtype_get(k->dtype);
    int v[4] = {128, 1, 1, 4}; /* float32 */
    if (di->size <= 2)
        v[0] = 64, v[2] = 0, v[3] = 0;
    else if (di->size == 4 && k->dtype != EM_FLOAT32)
        v[0] = 64, v[3] = 0;
    else if (di->size >= 8)
        v[3] = 3;
    const char *e = getenv("EMBER_UNIQUE_TUNE");
    if (e && *e) sscanf(e, "%d,%d,%d,%d", &v[0], &v[1], &v[2], &v[3]);
    k->bytes = v[0] >= 32 && v[0] <= 128 ? v[0] : 0;
    k->lbq = v[1] > 0 && v[1] <= 8 ? v[1] : 0;
    k->pf = v[2] != 0;
    k->minb = v[3] > 0 && v[3] <= 8 ? v[3] : 0;
}

/* unique, or with filt the set operations' filtered unique against the
 * sorted o.  Every kernel is queued before the one read-back (nu): the
 * outputs are made at n elements and cut to nu after (em__uq_cut), so the
 * device does not wait, idle, for the host to learn nu and launch the
 * write. */
static em_status em__unique(const em_backend *be, const em_array *s, const em_array *perm,
                            bool equal_nan, bool index, bool inverse, bool counts, int filt,
                            const em_array *o, em_array out[4]) {
    const em_device dev = em_array_device(s);
    const int id = dev.id;
    const int64_t n = em_array_size(s), ntile = (n + EM_UQ_TILE - 1) / EM_UQ_TILE;
    int64_t nu = 0, nt1 = ntile + 1;
    em_array part = {0}, first = {0};
    memset(out, 0, 4 * sizeof *out);
    em_uq_spec k = {.dtype = s->dtype, .equal_nan = equal_nan, .filt = filt};
    em__uqargs a = {.p = {s->data, NULL, NULL, perm ? perm->data : NULL}, .n = n, .ntile = ntile};
    if (o) a.p[8] = o->data, a.no = em_array_size(o);
    /* the single pass: tiles of t1, part its ticket counter, a word a tile, nu */
    const bool one = n && em__one(be, filt, n);
    if (one) em__tune(&k);
    const int64_t t1 = 256 * (int64_t)em_uq_one_items(s->dtype, k.bytes), nt = (n + t1 - 1) / t1;
    if (one) nt1 = 3 + nt;
    em_status st = em_array_empty(&part, EM_INT64, 1, &nt1, dev);
    a.p[7] = part.data;
    int64_t m = n; /* the outputs' length until nu is known */
    if (st == EM_OK) st = em_array_empty(&out[0], s->dtype, 1, &m, dev);
    if (st == EM_OK && (index || counts)) st = em_array_empty(&first, EM_INT64, 1, &m, dev);
    if (st == EM_OK && index) st = em_array_empty(&out[1], EM_INT64, 1, &m, dev);
    if (st == EM_OK && inverse) st = em_array_empty(&out[2], EM_INT64, 1, &n, dev);
    if (st == EM_OK && counts) st = em_array_empty(&out[3], EM_INT64, 1, &m, dev);
    if (st == EM_OK && one) {
        const size_t head = 16 + 8 * (size_t)nt; /* zeroed; nu after it */
        st = be->fill(id, part.data, head / 4, 4, 0);
        a.p[1] = out[0].data, a.p[2] = first.data, a.p[4] = out[1].data, a.p[5] = out[2].data;
        a.p[6] = out[3].data, a.p[7] = part.data, a.ntile = nt;
        k.mode = EM_UQ_ONE, k.first = index || counts, k.idx = index, k.inv = inverse;
        k.vin = (uintptr_t)s->data % 16 == 0;
        if (st == EM_OK) st = em__uq_launch(be, id, k, &a, nt);
        /* COUNTS reads nu at ((int64_t *)part)[ntile]: part + 16 + 8 * nt */
        k.first = k.idx = k.inv = k.vin = k.pf = false, k.minb = k.bytes = k.lbq = 0;
        k.mode = EM_UQ_COUNTS;
        a.p[7] = (char *)part.data + 16;
        if (st == EM_OK && counts) st = em__uq_launch(be, id, k, &a, (n + 255) / 256);
        /* the one read-back: the outputs' length */
        if (st == EM_OK) st = be->to_host(id, &nu, (char *)part.data + head, 8);
    } else if (st == EM_OK && n) {
        k.mode = EM_UQ_COUNT;
        st = em__uq_launch(be, id, k, &a, ntile);
        k.mode = EM_UQ_PREFIX;
        if (st == EM_OK) st = em__uq_launch(be, id, k, &a, 1);
        a.p[1] = out[0].data, a.p[2] = first.data, a.p[4] = out[1].data, a.p[5] = out[2].data;
        a.p[6] = out[3].data;
        k.mode = EM_UQ_WRITE, k.first = index || counts, k.idx = index, k.inv = inverse;
        if (st == EM_OK) st = em__uq_launch(be, id, k, &a, ntile);
        k.first = k.idx = k.inv = false;
        k.mode = EM_UQ_COUNTS, k.filt = 0;
        if (st == EM_OK && counts) st = em__uq_launch(be, id, k, &a, (n + 255) / 256);
        /* the one read-back: the outputs' length */
        if (st == EM_OK) st = be->to_host(id, &nu, (char *)part.data + ntile * 8, 8);
    }
    if (st == EM_OK) st = em__uq_cut(be, &out[0], nu, n);
    if (st == EM_OK) st = em__uq_cut(be, &out[1], nu, n);
    if (st == EM_OK) st = em__uq_cut(be, &out[3], nu, n);
    /* part and first go back to the pool behind the queued kernels (one stream) */
    em_array_release(&part), em_array_release(&first);
    if (st != EM_OK)
        for (int i = 0; i < 4; i++) em_array_release(&out[i]);
    return st;
}

em_status em_run_unique(const em_backend *be, const em_array *s, const em_array *perm,
                        bool equal_nan, bool index, bool inverse, bool counts, em_array out[4]) {
    return em__unique(be, s, perm, equal_nan, index, inverse, counts, 0, NULL, out);
}

/* The set operations (em_setop_sorted, ember.h).  IN / NOTIN are unique's
 * two kernels with the membership test folded into the flag, so
 * intersect1d and setdiff1d cost one pass over each sorted input beyond the
 * sorts; ISIN (a two-level binary search per element) and MERGE (merge
 * path) are one kernel each with no read-back. */
em_status em_run_setop(const em_backend *be, const em_array *s, const em_array *o, int mode,
                       em_array *out) {
    const em_device dev = em_array_device(s);
    memset(out, 0, sizeof *out);
    if (mode == EM_SETOP_IN || mode == EM_SETOP_NOTIN || mode == EM_SETOP_SINGLE) {
        /* SINGLE: unique's pass with its own flag (filt 3, o = s); NaNs differ */
        const bool one = mode == EM_SETOP_SINGLE;
        int filt = mode == EM_SETOP_IN ? 1 : 2;
        if (one) filt = 3;
        em_array r[4];
        EM_CHECK(em__unique(be, s, NULL, !one, false, false, false, filt, one ? s : o, r));
        *out = r[0];
        return EM_OK;
    }
    const int64_t n = em_array_size(s), no = em_array_size(o);
    em_uq_spec k = {.dtype = s->dtype};
    em__uqargs a = {.p = {s->data}, .n = n, .no = no};
    a.p[8] = o->data;
    em_status st;
    int64_t len;
    if (mode == EM_SETOP_MERGE) {
        len = n + no;
        st = em_array_empty(out, s->dtype, 1, &len, dev);
        k.mode = EM_UQ_MERGE;
    } else { /* ISIN / ISNOTIN: s's shape */
        st = em_array_empty(out, EM_BOOL, s->ndim, s->shape, dev);
        len = n;
        k.mode = EM_UQ_ISIN, k.filt = mode == EM_SETOP_ISNOTIN;
    }
    a.p[1] = out->data;
    /* MERGE: EM_UQ_TILE outputs per block, the tiles' cuts found first (one
     * thread a tile, all at once: in the merge kernel two threads searched
     * while the block waited, 25 dependent reads a tile at 2^25) */
    const int64_t per = k.mode == EM_UQ_MERGE ? EM_UQ_TILE : 256;
    const int64_t blocks = (len + per - 1) / per;
    em_array cut = {0};
    if (st == EM_OK && k.mode == EM_UQ_MERGE && len) {
        int64_t nc = blocks + 1;
        st = em_array_empty(&cut, EM_INT64, 1, &nc, dev);
        a.p[7] = cut.data, a.ntile = blocks;
        em_uq_spec c = k;
        c.mode = EM_UQ_CUTS;
        if (st == EM_OK) st = em__uq_launch(be, dev.id, c, &a, (nc + 255) / 256);
    }
    if (st == EM_OK) st = em__uq_launch(be, dev.id, k, &a, blocks);
    em_array_release(&cut); /* back to the pool behind the queued kernels (one stream) */
    if (st != EM_OK) em_array_release(out);
    return st;
}
