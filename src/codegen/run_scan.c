/* Inclusive scans (cumsum, cumprod) over a backend's primitives.
 *
 * The scan runs along lines (codegen/render_scan.h: nlines lines of len
 * elements; a flattened scan is one line in C order over the input), in one
 * of three forms (em_run_scan_choose):
 *
 *  'L' one thread per line, sequential: NumPy's order exactly.  For short
 *      lines, for many lines that lie interleaved in memory (neighbouring
 *      threads read neighbouring addresses), and for float16, whose every
 *      partial sum NumPy rounds to float16 -- an order-dependent result no
 *      parallel scan reproduces.
 *  'T' tiles, for long lines.  Each line is cut into tiles of EM_SCAN_TILE
 *      elements, one block per tile.  (1) Each block scans its tile and
 *      writes the tile's total T[k] to a scratch array from the pool;
 *      (2) one block per line scans that line's totals in place, so
 *      P[k] = T[0] (+) ... (+) T[k]; (3) each block rescans its tile k
 *      starting from P[k - 1] and writes out.  Element j of tile k is then
 *      P[k - 1] (+) x[start of tile k] (+) ... (+) x[j], which is the
 *      inclusive scan because (+) is associative; the launches are ordered
 *      on one stream, so (2) sees all of (1) and (3) all of (2).  Inside a
 *      block (em_tile_scan in the renderer) thread i folds its 8
 *      consecutive elements, a Hillis-Steele scan over the 256 thread totals
 *      (two barriers per step: all reads before any write) gives each thread
 *      its prefix, and each thread rescans its elements from it.  Only
 *      threads holding elements combine, always with lower threads' values,
 *      so no identity element is used (0 + x turns -0.0 into +0.0,
 *      (1+0j) * x breaks infinities).  Every barrier sits in loops over
 *      block-uniform values.  One tile per line: step (3) alone.
 *      Integer (wrapping) and bool results are exact whatever the grouping;
 *      float and complex results differ from NumPy's sequential order only
 *      by rounding: each element passes through at most about 70 + tiles /
 *      2048 additions on its way to any output (tests/python/test_scans.py
 *      bounds the error by that depth * eps * the running sum of |x|).
 *  'H' few long float16 lines along an axis: copied to the host and scanned
 *      there (one GPU thread per long line is slower than the copies).
 *      em_scan flattens before calling here, so a long flattened float16
 *      line (axis < 0, direct callers only) stays on 'L'.
 *
 *  'T' on CUDA, several tiles: one launch instead of (1)-(3) (EM_SCAN_ONE):
 *      blocks take tiles in ticket order; each scans its tile, publishes the
 *      tile's total, folds its predecessors' totals back to the nearest
 *      published prefix (decoupled look-back), publishes its own prefix and
 *      writes out: n elements read and n written, where (1)-(3) read 2n.
 *      Opt-in (EMBER_SCAN_ONEPASS=1): its first H100 run (session 12) took
 *      0.46 ms for cumsum of 2^24 float32 against (1)-(3)'s 0.13, and a
 *      float64 cumprod whose partial products leave the normal range came
 *      out 0.0625 where NumPy's sequential product is 0; to tune before it
 *      becomes the default.  Session 14 (H100, warp look-back): 0.160 ms
 *      against (1)-(3)'s 0.100 in the same process -- still slower.
 *      Session 15 (H100, one process, two rounds): with a 4-byte
 *      accumulator each tile's flag and value share one 64-bit word
 *      (em_scan_packed: no fences), 0.105 / 0.102 ms against the unpacked
 *      0.160 / 0.160 and (1)-(3)'s 0.106 / 0.103 (PyTorch 0.099): the fences
 *      were the single pass's cost, but it only ties the three kernels, so it
 *      stays opt-in (EMBER_SCAN_PACK=0: the unpacked form).
 *
 *  'T' on CUDA, several tiles, a 4-byte accumulator (cumsum of float32 or
 *      int32, integer cumprod into 4 bytes): the default since session 16 is
 *      the single pass with the tile in registers (em_scan_spec.regs,
 *      render_scan.c's em__regs_text): 512 threads x 16 elements (64 bytes of
 *      accumulators a thread), 16-byte loads and stores where every line is
 *      contiguous and aligned (em__vec_ok), no shared-memory copy of the tile,
 *      a block per tile, and a look-back over one window of 32 tiles a round
 *      trip (EM_SCAN_LBQ; EMBER_SCAN_TUNE's fourth number sets it).  H100 (session 16, one process, median of 25
 *      single calls / 50 back to back, ms), cumsum of 2^24 float32 with one
 *      window a round trip: 0.0912 / 0.0765 against the three kernels'
 *      0.0996 / 0.0897, PyTorch 0.0862 / 0.0696, CuPy 0.160 / 0.143, a copy
 *      of the same bytes 0.058 / 0.048; ncu: 70 us at 1.65 TB/s, 4 blocks an
 *      SM (64 registers) -- the inclusive prefixes advanced a window a round
 *      trip.  Four windows a round trip did not help: the final call read
 *      0.0974 / 0.0803 with 4, 0.0958 / 0.0782 with 1, three kernels
 *      0.1022 / 0.0901, PyTorch 0.0919 / 0.0701 (same process).
 *      Session 17 (H100, one process, best of 3 rounds): the status words kept
 *      between calls (em__cached_launch: no memset launch) 0.0865 / 0.0757 ms
 *      against a buffer and a memset a call 0.0919 / 0.0781 (the switch that
 *      chose the latter, EMBER_SCAN_CACHE=0, went in session 18),
 *      and 512 threads a block (EM_SCAN_REGS_BLOCK) 0.0854 / 0.0724; PyTorch
 *      0.0894 / 0.0711, a copy of the same bytes 0.0584 / 0.0480.
 *      float64 and int64 sums stay on the three kernels: 0.271 ms in one pass
 *      (the unpacked status's fences) against 0.171.
 *
 *  CUDA's tile kernels scan a block by warp shuffles (em_scan_spec.warp,
 *  render_scan.c's em__warp_text) for cumsum and integer cumprod: cumsum of
 *  2^24 float32 0.122 -> 0.100 ms on the H100 (ncu: up 33 us, mid 10 us,
 *  down 53 us; PyTorch 0.092).
 *
 * The choice is a heuristic (H100-sized guesses, to be tuned by timing);
 * every form gives correct results for every shape.
 *
 * Index math is 64-bit throughout; tile-local indices (< EM_SCAN_TILE) are int.
 */
#include "codegen/run_scan.h"
#include "codegen/render_scan.h"
#include "core/core.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

em_scan_plan em_run_scan_choose(int64_t nlines, int64_t len, bool interleaved, em_dtype out,
                                int sms) {
    em_scan_plan p = {'L', nlines, len, 1};
    if (out == EM_FLOAT16) {
        /* One thread per line costs ~len dependent steps; the host path
         * ~n element copies: the host wins for few long lines. */
        if (len > 1024 && nlines < 32) p.mode = 'H';
        return p;
    }
    if (len <= 16 || (interleaved && nlines >= (int64_t)sms * 256)) return p;
    p.mode = 'T';
    p.ntiles = (len + EM_SCAN_TILE - 1) / EM_SCAN_TILE;
    return p;
}

typedef struct em__sctx {
    const em_backend *be;
    const em_scan_spec *c;
} em__sctx;

static em_status em__render(const void *ctx, void *src) {
    const em__sctx *x = ctx;
    const em_dialect *d;
    EM_CHECK(em_run_dialect(x->be, &d));
    return em_render_scan(d, x->c, src);
}

static em_status em__launch(const em_backend *be, int id, const em_scan_spec *c, const char *fname,
                            int64_t units, int64_t per_sm, int block, const void *args) {
    /* The argument's size: its fields up to the three nd-long arrays. */
    size_t size = 8 * (7 + 3 * (size_t)c->nd);
    int slots[3];
    const em_device_props *pr;
    EM_CHECK(be->props_ref(id, &pr));
    em_sbuf key = {0};
    em_scan_key(c, &key);
    em_sbuf_printf(&key, "|%s", fname);
    char name[64];
    snprintf(name, sizeof name, "%s_%s%s", c->op == EM_RED_CUMSUM ? "cumsum" : "cumprod",
             em_dtype_get(c->in)->name, c->tiles ? fname + 7 : ""); /* "cumsum_float32_up" */
    const em_kfn *f = NULL;
    em__sctx x = {be, c};
    em_status s = key.oom ? em_error(EM_ENOMEM, "out of host memory")
                          : em_run_kernel(be, id, key.s, name, fname, em__render, &x, &f);
    em_sbuf_free(&key);
    int64_t g = units, cap = (int64_t)pr->multiprocessor_count * per_sm;
    if (g > cap) g = cap;
    if (g > pr->max_grid_dim[0]) g = pr->max_grid_dim[0];
    if (s == EM_OK)
        s = em_run_launch(be, id, f, (unsigned)(g < 1 ? 1 : g), (unsigned)block, 0, (void *)args,
                          size, slots, em_run_slots(slots, 0, 3));
    return s;
}

/* Long float16 lines: scanned on the host (see 'H' above). */
static em_status em__on_host(em_reduce_op op, const em_array *a, int axis, em_array *out) {
    em_device cpu = {EM_CPU, 0};
    em_array ha = {0}, hout = {0};
    em_status s = em_to_device(a, cpu, &ha);
    if (s == EM_OK) s = em_array_empty(&hout, out->dtype, out->ndim, out->shape, cpu);
    if (s == EM_OK) s = em_algo_scan(&em_cpu_backend, op, &ha, axis, &hout);
    if (s == EM_OK) /* em_scan's results are C-contiguous: one host-to-device copy */
        s = em_array_is_c_contiguous(out) ? em_array_write(out, hout.data, em_array_nbytes(&hout))
                                          : em_copy_into(out, &hout);
    em_array_release(&ha), em_array_release(&hout);
    return s;
}

/* Neighbouring lines closer than a line's neighbouring elements: the last
 * dimension other than the axis with extent > 1 has the smaller stride. */
static bool em__interleaved(const em_array *a, int axis) {
    for (int d = a->ndim - 1; d >= 0; d--)
        if (d != axis && a->shape[d] > 1) return llabs(a->strides[d]) < llabs(a->strides[axis]);
    return false;
}

/* Whether every line of x (along axis; flattened: x is C-contiguous when contig) is
 * contiguous and starts v elements aligned, so that the regs form's 16-byte
 * loads or stores of a full tile are aligned. */
static bool em__vec_ok(const em_array *x, int axis, int v, bool contig) {
    const int64_t isz = (int64_t)em_dtype_get(x->dtype)->size, vb = isz * v;
    if ((uintptr_t)x->data % (uintptr_t)vb) return false;
    if (axis < 0) return contig;
    if (x->strides[axis] != isz) return false;
    for (int d = 0; d < x->ndim; d++)
        if (d != axis && x->shape[d] > 1 && x->strides[d] % vb) return false;
    return true;
}

/* The packed single pass's status words (a ticket counter and one 64-bit word a
 * tile) kept per device between calls on the legacy default stream, which
 * orders every call's kernel after the last: no memset launch a call (two
 * launches were one kernel's 2-3 us).  A call's words carry its epoch (the
 * flag is 4 epoch + 1 or 2; an earlier call's or a zeroed word reads as "not
 * yet", em_fl in render_scan.c) and the kernel zeroes the counter when its
 * last ticket is taken (em_ticket), so nothing is reset between calls; the
 * buffer is zeroed when it is made or grown, every 2^29 calls (the epoch's
 * room in the flag's 32 bits), and after a failed launch.  Other streams
 * (which may run beside the default one) take a buffer of their own a call.
 * The lock is held over the launch so that a call that grows the buffer never
 * frees one another thread's queued kernel is about to be given. */
#define EM__STS_DEVS 64
#define EM__EPOCH_MAX (1u << 29)
typedef struct em__stslot {
    void *p;
    size_t bytes;
    uint32_t epoch, gen;
} em__stslot;
static em__stslot em__sts[EM__STS_DEVS];
static pthread_mutex_t em__sts_lock = PTHREAD_MUTEX_INITIALIZER;

/* *done false where the cache does not serve (another stream, a device past
 * the table): the caller then takes a buffer of its own. */
static em_status em__cached_launch(const em_backend *be, int id, uint32_t gen,
                                   const em_scan_spec *c, int64_t units, int blk, size_t bytes,
                                   void **part, int64_t *epoch, const void *args, bool *done) {
    *done = false;
    if (id < 0 || id >= EM__STS_DEVS || !be->stream_get || !be->fill || be->stream_get(id) != NULL)
        return EM_OK;
    *done = true;
    pthread_mutex_lock(&em__sts_lock);
    em__stslot *sl = &em__sts[id];
    if (sl->gen != gen) /* a device reset: the old context's memory is gone */
        sl->p = NULL, sl->bytes = 0, sl->gen = gen;
    em_status s = EM_OK;
    if (sl->bytes < bytes) {
        size_t nb = 4096;
        while (nb < bytes) nb *= 2;
        void *np = NULL;
        s = be->alloc(id, nb, &np);
        if (s == EM_OK) {
            if (sl->p) be->free(id, sl->p, sl->bytes);
            sl->p = np, sl->bytes = nb, sl->epoch = EM__EPOCH_MAX;
        }
    }
    if (s == EM_OK && sl->epoch >= EM__EPOCH_MAX - 1) {
        s = be->fill(id, sl->p, sl->bytes / 4, 4, 0);
        if (s == EM_OK) sl->epoch = 0;
    }
    if (s == EM_OK) {
        *part = sl->p, *epoch = ++sl->epoch;
        s = em__launch(be, id, c, EM_SCAN_ONE, units, c->regs ? units : 16, blk, args);
        if (s != EM_OK) sl->epoch = EM__EPOCH_MAX; /* the counter may be left set: zero first */
    }
    pthread_mutex_unlock(&em__sts_lock);
    return s;
}

em_status em_run_scan(const em_backend *be, em_reduce_op op, const em_array *a, int axis,
                      em_array *out) {
    if (op != EM_RED_CUMSUM && op != EM_RED_CUMPROD)
        return em_error(EM_EVALUE, "scan supports cumsum and cumprod, got reduction %d", (int)op);
    if (axis >= a->ndim)
        return em_error(EM_EVALUE, "scan axis %d out of range for %d dimensions", axis, a->ndim);
    int64_t n = em_array_size(a);
    if (n == 0) return EM_OK;
    if (em_array_size(out) != n) return em_error(EM_ESHAPE, "scan output has the wrong size");
    if (axis >= 0 &&
        (out->ndim != a->ndim || memcmp(out->shape, a->shape, sizeof(int64_t) * (size_t)a->ndim)))
        return em_error(EM_ESHAPE, "scan output must have the input's shape");
    if (axis < 0 && !em_array_is_c_contiguous(out))
        return em_error(EM_EVALUE, "a flattened scan needs a C-contiguous output");
    int nd = a->ndim ? a->ndim : 1, id = em_array_device(a).id;
    /* A flattened scan of a C-contiguous input is a 1-d one (no C-order walk per element). */
    const bool flat1 = axis < 0 && a->ndim > 1 && em_array_is_c_contiguous(a);
    if (flat1) nd = 1;
    em_scan_spec c = {op, a->dtype, out->dtype, nd, a->ndim ? axis : -1, false};
    const em_device_props *pr;
    EM_CHECK(be->props_ref(id, &pr));
    int64_t len = c.axis >= 0 ? a->shape[axis] : n;
    em_scan_plan p = em_run_scan_choose(n / len, len, c.axis >= 0 && em__interleaved(a, axis),
                                        out->dtype, pr->multiprocessor_count);
    /* The host scans along an axis only; em_scan flattens before calling
     * here, so a long flattened float16 line comes only from direct callers. */
    if (p.mode == 'H' && c.axis < 0) p.mode = 'L';
    if (p.mode == 'H') return em__on_host(op, a, axis, out);
    struct {
        char *in, *out, *part;
        int64_t nlines, len, ntiles, epoch, v[3 * EM_MAXDIMS];
    } args = {a->data, out->data, NULL, p.nlines, p.len, p.ntiles, 0, {0}};
    for (int d = 0; d < a->ndim; d++)
        args.v[d] = a->shape[d], args.v[nd + d] = a->strides[d],
        args.v[2 * nd + d] = c.axis >= 0 ? out->strides[d] : 0;
    if (!a->ndim) args.v[0] = 1;
    if (flat1) args.v[0] = n, args.v[1] = (int64_t)em_dtype_get(a->dtype)->size, args.v[2] = 0;
    if (p.mode == 'L')
        return em__launch(be, id, &c, EM_KNAME, (p.nlines + EM_SCAN_BLOCK - 1) / EM_SCAN_BLOCK, 32,
                          EM_SCAN_BLOCK, &args);
    c.tiles = true;
    int64_t units = p.nlines * p.ntiles;
    const em_dialect *dl;
    EM_CHECK(em_run_dialect(be, &dl));
    const size_t asz = em_dtype_get(em_scan_acc(c.out))->size;
    /* CUDA: one pass with decoupled look-back (render_scan.c says why not OpenCL), opt-in.
     * The warp-shuffle block scan (EMBER_SCAN_WARP=0: the generic one, for A/B; =1 for
     * every op) for sums and for integer products, whose wrapping is exact in any
     * grouping; a float product keeps the generic grouping: on the H100 (2026-11-26) a
     * float64 cumprod of +-1, 2 and 0.5 whose running product leaves the double range
     * came out nonzero where NumPy's sequential product had underflowed to 0 with the
     * warp form (tools/probe_scan_check.py), a grouping question not yet settled. */
    const char *one = getenv("EMBER_SCAN_ONEPASS"), *wp = getenv("EMBER_SCAN_WARP"),
               *pk = getenv("EMBER_SCAN_PACK");
    const bool exact = op == EM_RED_CUMSUM || strchr("iub", em_dtype_get(c.out)->kind);
    c.onepass = dl->id == EM_DIALECT_CUDA && be->fill && one && *one && strcmp(one, "0") != 0;
    c.warp = dl->id == EM_DIALECT_CUDA && !(wp && strcmp(wp, "0") == 0) &&
             (exact || (wp && strcmp(wp, "1") == 0));
    c.unpacked = pk && strcmp(pk, "0") == 0; /* EMBER_SCAN_PACK=0: flags apart, for A/B */
    if (p.ntiles == 1) {
        c.onepass = false;
        return em__launch(be, id, &c, EM_SCAN_DOWN, units, 16, EM_SCAN_BLOCK, &args);
    }
    /* The default on CUDA where the warp form is and the accumulator has 4 bytes (each
     * tile's status one 64-bit word): the single pass over tiles in registers.  With 8- or
     * 16-byte accumulators the status needs fences and the three kernels stay (H100,
     * 2026-11-27: cumsum of 2^24 float64 0.271 ms in one pass, 0.171 in three).
     * EMBER_SCAN_ONEPASS=0: the three kernels, =1: the single pass through shared memory,
     * =2: the one in registers for any accumulator, for A/B; EMBER_SCAN_TUNE=block,items,
     * byblock,windows for tuning. */
    c.regs = c.warp && be->fill && (one && *one ? !strcmp(one, "2") : asz == 4 && !c.unpacked);
    int blk = EM_SCAN_BLOCK;
    if (c.regs) {
        const char *tu = getenv("EMBER_SCAN_TUNE");
        if (tu) {
            int tb = 0, tk = 0, tby = 0, tq = 0;
            if (sscanf(tu, "%d,%d,%d,%d", &tb, &tk, &tby, &tq) >= 1)
                c.block = tb, c.items = tk, c.byblock = tby != 0, c.lbq = tq;
        }
        c.onepass = true;
        int v, k;
        em_scan_regs_shape(&c, &blk, &v, &k);
        c.vin = em__vec_ok(a, c.axis, v, c.axis < 0 && em_array_is_c_contiguous(a));
        c.vout = em__vec_ok(out, c.axis, v, true);
        p.ntiles = (p.len + (int64_t)blk * k - 1) / ((int64_t)blk * k);
        args.ntiles = p.ntiles;
        units = p.nlines * p.ntiles;
    }
    /* units <= n: no overflow.  One pass: counter, flags, totals and prefixes. */
    const bool packed = em_scan_packed(&c);
    const size_t head =
        16 + (packed ? (size_t)units * 8 : (((size_t)units * 4 + 15) & ~(size_t)15));
    size_t bytes = packed ? head : c.onepass ? head + 2 * (size_t)units * asz : (size_t)units * asz;
    if (packed) {
        bool done;
        em_status s = em__cached_launch(be, id, em_device_generation(em_array_device(a)), &c, units,
                                        blk, bytes, (void **)&args.part, &args.epoch, &args, &done);
        if (done) return s;
    }
    void *part = NULL;
    em_status s = be->alloc(id, bytes, &part);
    args.part = part;
    if (c.onepass) {
        if (s == EM_OK) s = be->fill(id, part, head / 4, 4, 0);
        if (s == EM_OK)
            s = em__launch(be, id, &c, EM_SCAN_ONE, units, c.regs ? units : 16, blk, &args);
    } else {
        if (s == EM_OK) s = em__launch(be, id, &c, EM_SCAN_UP, units, 16, blk, &args);
        if (s == EM_OK) s = em__launch(be, id, &c, EM_SCAN_MID, p.nlines, 16, blk, &args);
        if (s == EM_OK) s = em__launch(be, id, &c, EM_SCAN_DOWN, units, 16, blk, &args);
    }
    /* One stream: the pool may hand the block out again once queued work is ordered after. */
    if (part) be->free(id, part, bytes);
    return s;
}
