/* The CPU's stable sort and argsort (em_sort, em_argsort): an LSD radix
 * sort of order-preserving unsigned keys, 8 bits a pass, carrying 32-bit
 * positions.  NumPy's stable sort of 32/64-bit values is a timsort (10-25x
 * slower on random data here); random permutations (argsorts of random
 * 32-bit keys) were 3x NumPy's Fisher-Yates through it.
 *
 * Keys: unsigned as they are, signed with the sign bit flipped, floats
 * with the sign bit set on positives and every bit flipped on negatives,
 * -0.0 as +0.0 (NumPy's sort compares them equal: ties keep their order)
 * and every NaN as all ones (last); descending flips every bit, so ties
 * still keep their order and NaNs come first, as em_run_sort's contract
 * says.  A pass whose digit is the same in every key is skipped.  The
 * values a sort returns are gathered through the final positions, so they
 * keep their own bits (NaN payloads, -0.0).
 *
 * One row of at least EM__RS_PAR elements runs each pass over thread
 * chunks (a histogram per chunk, then each chunk scatters to its own
 * offsets: stable); many rows run one per worker. */
#include "backend/cpu/cpu.h"
#include "core/core.h"
#include "host/threadpool.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

enum { EM__RS_PAR = 1 << 16, EM__RS_CHUNKS = 64 };

/* One row's pass: keys ks and positions is (NULL: the identity) move by
 * the digit at shift into kd and id, over nch chunks with counts h. */
typedef struct em__rs_pass {
    const uint64_t *ks;
    const uint32_t *is;
    uint64_t *kd;
    uint32_t *id;
    int64_t n, step;
    int shift, nch;
    int64_t (*h)[256];
} em__rs_pass;

/* The whole sort: rows of len elements of the C-contiguous a into out. */
typedef struct em__rs {
    const em_array *a;
    int64_t len;
    int nbytes; /* key bytes: the passes */
    bool desc, arg;
    em_array *out;
    volatile bool failed;
} em__rs;

/* The key of element i of the row at p (dtype dt) as a 64-bit word. */
static inline uint64_t em__rs_key(const char *p, em_dtype dt, int64_t i) {
    switch (dt) {
    case EM_BOOL:
    case EM_UINT8: return ((const uint8_t *)p)[i];
    case EM_INT8: return (uint8_t)(((const uint8_t *)p)[i] ^ 0x80u);
    case EM_UINT16: return ((const uint16_t *)p)[i];
    case EM_INT16: return (uint16_t)(((const uint16_t *)p)[i] ^ 0x8000u);
    case EM_UINT32: return ((const uint32_t *)p)[i];
    case EM_INT32: return ((const uint32_t *)p)[i] ^ 0x80000000u;
    case EM_UINT64: return ((const uint64_t *)p)[i];
    case EM_INT64: return ((const uint64_t *)p)[i] ^ (UINT64_C(1) << 63);
    case EM_FLOAT16: {
        uint16_t b = ((const uint16_t *)p)[i];
        if ((b & 0x7fffu) > 0x7c00u) return 0xffffu; /* NaN */
        if (b == 0x8000u) b = 0;
        return b & 0x8000u ? (uint16_t)~b : (uint16_t)(b | 0x8000u);
    }
    case EM_FLOAT32: {
        uint32_t b;
        memcpy(&b, p + 4 * i, 4);
        if ((b & 0x7fffffffu) > 0x7f800000u) return 0xffffffffu;
        if (b == 0x80000000u) b = 0;
        return b & 0x80000000u ? ~b : b | 0x80000000u;
    }
    default: { /* EM_FLOAT64 */
        uint64_t b, s = UINT64_C(1) << 63;
        memcpy(&b, p + 8 * i, 8);
        if ((b & ~s) > UINT64_C(0x7ff0000000000000)) return ~UINT64_C(0);
        if (b == s) b = 0;
        return b & s ? ~b : b | s;
    }
    }
}

static void em__rs_hist(void *ctx, int64_t begin, int64_t end, int worker) {
    EM_UNUSED(worker);
    em__rs_pass *p = ctx;
    for (int64_t c = begin; c < end; c++) {
        int64_t lo = c * p->step, hi = lo + p->step < p->n ? lo + p->step : p->n;
        int64_t *h = p->h[c];
        memset(h, 0, sizeof(int64_t) * 256);
        for (int64_t i = lo; i < hi; i++) h[(p->ks[i] >> p->shift) & 255]++;
    }
}

static void em__rs_scatter(void *ctx, int64_t begin, int64_t end, int worker) {
    EM_UNUSED(worker);
    em__rs_pass *p = ctx;
    for (int64_t c = begin; c < end; c++) {
        int64_t lo = c * p->step, hi = lo + p->step < p->n ? lo + p->step : p->n;
        int64_t *o = p->h[c];
        for (int64_t i = lo; i < hi; i++) {
            int64_t at = o[(p->ks[i] >> p->shift) & 255]++;
            p->kd[at] = p->ks[i];
            p->id[at] = p->is ? p->is[i] : (uint32_t)i;
        }
    }
}

/* One pass; false (nothing moved) where every key has the same digit. */
static bool em__rs_run_pass(em__rs_pass *p) {
    p->step = (p->n + p->nch - 1) / p->nch;
    if (p->nch > 1)
        em_parallel_for(p->nch, 1, em__rs_hist, p);
    else
        em__rs_hist(p, 0, 1, 0);
    int64_t run = 0;
    for (int d = 0; d < 256; d++) {
        int64_t t = 0;
        for (int c = 0; c < p->nch; c++) t += p->h[c][d];
        if (t == p->n) return false;
    }
    for (int d = 0; d < 256; d++)
        for (int c = 0; c < p->nch; c++) {
            int64_t k = p->h[c][d];
            p->h[c][d] = run, run += k;
        }
    if (p->nch > 1)
        em_parallel_for(p->nch, 1, em__rs_scatter, p);
    else
        em__rs_scatter(p, 0, 1, 0);
    return true;
}

#define EM__RS_GATHER(T) \
    for (int64_t i = 0; i < n; i++) ((T *)o)[i] = ((const T *)row)[is[i]]

/* Sorts row r; nch > 1 runs its passes over that many thread chunks. */
static void em__rs_row(em__rs *z, int64_t r, int nch) {
    int64_t n = z->len;
    size_t sz = (size_t)EM_DTYPE_SIZE(z->a->dtype);
    const char *row = z->a->data + (size_t)(r * n) * sz;
    uint64_t *k0 = malloc(sizeof(uint64_t) * (size_t)n * 2);
    uint32_t *i0 = malloc(sizeof(uint32_t) * (size_t)n * 2);
    int64_t(*h)[256] = malloc(sizeof(int64_t) * 256 * (size_t)nch);
    if (!k0 || !i0 || !h) {
        z->failed = true;
        free(k0), free(i0), free(h);
        return;
    }
    uint64_t flip = z->desc ? ~UINT64_C(0) : 0;
    em_dtype dt = z->a->dtype;
    for (int64_t i = 0; i < n; i++) k0[i] = em__rs_key(row, dt, i) ^ flip;
    uint64_t *ks = k0, *kd = k0 + n;
    uint32_t *is = NULL, *id = i0; /* NULL: still in the original order */
    for (int b = 0; b < z->nbytes; b++) {
        em__rs_pass p = {
            .ks = ks, .is = is, .kd = kd, .id = id, .n = n, .shift = 8 * b, .nch = nch, .h = h};
        if (!em__rs_run_pass(&p)) continue;
        uint64_t *kt = ks;
        ks = kd, kd = kt;
        uint32_t *it = is ? is : i0 + n;
        is = id, id = it;
    }
    char *o = z->out->data + (size_t)(r * n) * (z->arg ? 8 : sz);
    if (z->arg) {
        int64_t *oi = (int64_t *)o;
        for (int64_t i = 0; i < n; i++) oi[i] = is ? is[i] : i;
    } else if (!is) {
        memcpy(o, row, (size_t)n * sz);
    } else { /* a gather by the element's width (memcpy of a variable size is a call each) */
        switch (sz) {
        case 1: EM__RS_GATHER(uint8_t); break;
        case 2: EM__RS_GATHER(uint16_t); break;
        case 4: EM__RS_GATHER(uint32_t); break;
        default: EM__RS_GATHER(uint64_t); break;
        }
    }
    free(k0), free(i0), free(h);
}

static void em__rs_rows(void *ctx, int64_t begin, int64_t end, int worker) {
    EM_UNUSED(worker);
    for (int64_t r = begin; r < end; r++) em__rs_row(ctx, r, 1);
}

bool em_cpu_sort_supported(em_dtype dt) {
    return dt != EM_COMPLEX64 && dt != EM_COMPLEX128 && dt < EM_NDTYPES;
}

em_status em_cpu_sort(const em_array *a, int64_t len, bool descending, bool arg, em_array *out) {
    if (!em_cpu_sort_supported(a->dtype))
        return em_error(EM_EUNSUPPORTED, "the CPU radix sort takes real dtypes, not %s",
                        em_dtype_get(a->dtype)->name);
    if (!em_array_is_c_contiguous(a))
        return em_error(EM_EVALUE, "the CPU radix sort takes a C-contiguous array");
    if (len > (int64_t)UINT32_MAX)
        return em_error(EM_EUNSUPPORTED, "the CPU radix sort takes rows below 2^32 elements");
    int64_t size = em_array_size(a), rows = len ? size / len : 0;
    em__rs z = {.a = a,
                .len = len,
                .nbytes = EM_DTYPE_SIZE(a->dtype),
                .desc = descending,
                .arg = arg,
                .out = out};
    if (rows == 0 || len == 0) return EM_OK;
    int nw = em_pool_workers();
    if (rows == 1) {
        int nch = len >= EM__RS_PAR && nw > 1 ? EM__RS_CHUNKS : 1;
        em__rs_row(&z, 0, nch);
    } else {
        em_parallel_for(rows, len >= 4096 ? 1 : 4096 / len + 1, em__rs_rows, &z);
    }
    return z.failed ? em_error(EM_ENOMEM, "out of memory in sort") : EM_OK;
}
