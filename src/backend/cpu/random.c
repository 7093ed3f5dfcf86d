/* Philox4x32-10 streams on the CPU, over the thread pool.
 *
 * The work is split by Philox block: block j of the stream fills elements
 * [j*E, (j+1)*E) (E = 4 for 32-bit outputs, 2 for 64-bit ones, see ember.h),
 * so a range of blocks is independent of every other range and the result
 * does not depend on the number of threads. */
#include "backend/cpu/cpu.h"
#include "backend/cpu/threadpool.h"
#include "backend/philox.h"
#include "core/core.h"

#include <math.h>
#include <string.h>

#define EM__TWO_PI 6.283185307179586476925286766559

typedef struct em__rand_ctx em__rand_ctx;
/* Fill the elements of one block j into v (at most 4), as the kind defines. */
typedef void (*em__rand_gen)(const em__rand_ctx *c, uint64_t j, void *v);

struct em__rand_ctx {
    char *data;
    int64_t n;     /* elements */
    int per_block; /* elements per Philox block */
    int itemsize;
    em__rand_gen gen;
    const em_random_req *req;
};

static inline uint64_t em__b64(const uint32_t w[4], int k) {
    return (uint64_t)w[2 * k] | (uint64_t)w[2 * k + 1] << 32;
}

static inline double em__u53(uint64_t b) { return (double)(b >> 11) * 0x1p-53; }
static inline float em__u24(uint32_t w) { return (float)(w >> 8) * 0x1p-24f; }

static void em__gen_bits32(const em__rand_ctx *c, uint64_t j, void *v) {
    em_philox_block(c->req->key, c->req->counter, j, v);
}

static void em__gen_bits64(const em__rand_ctx *c, uint64_t j, void *v) {
    uint32_t w[4];
    em_philox_block(c->req->key, c->req->counter, j, w);
    uint64_t *o = v;
    o[0] = em__b64(w, 0), o[1] = em__b64(w, 1);
}

static void em__gen_unif32(const em__rand_ctx *c, uint64_t j, void *v) {
    uint32_t w[4];
    em_philox_block(c->req->key, c->req->counter, j, w);
    float *o = v;
    for (int k = 0; k < 4; k++) o[k] = em__u24(w[k]);
}

static void em__gen_unif64(const em__rand_ctx *c, uint64_t j, void *v) {
    uint32_t w[4];
    em_philox_block(c->req->key, c->req->counter, j, w);
    double *o = v;
    o[0] = em__u53(em__b64(w, 0)), o[1] = em__u53(em__b64(w, 1));
}

/* Box-Muller: 1 - u1 is in (0, 1], so the log is finite. */
static inline void em__box_muller(double u1, double u2, double *z0, double *z1) {
    double r = sqrt(-2.0 * log(1.0 - u1)), t = EM__TWO_PI * u2;
    *z0 = r * cos(t);
    *z1 = r * sin(t);
}

static void em__gen_norm32(const em__rand_ctx *c, uint64_t j, void *v) {
    uint32_t w[4];
    em_philox_block(c->req->key, c->req->counter, j, w);
    float *o = v;
    for (int k = 0; k < 4; k += 2) {
        double z0, z1;
        em__box_muller(em__u24(w[k]), em__u24(w[k + 1]), &z0, &z1);
        o[k] = (float)z0, o[k + 1] = (float)z1;
    }
}

static void em__gen_norm64(const em__rand_ctx *c, uint64_t j, void *v) {
    uint32_t w[4];
    em_philox_block(c->req->key, c->req->counter, j, w);
    double *o = v, z0, z1;
    em__box_muller(em__u53(em__b64(w, 0)), em__u53(em__b64(w, 1)), &z0, &z1);
    o[0] = z0, o[1] = z1;
}

/* low + floor(b * range / 2^64) (range 0: 2^64), wrapping in 64 bits; the
 * caller checked that every result fits the dtype, so truncating is exact. */
static inline uint64_t em__scale(uint64_t b, uint64_t low, uint64_t range) {
    if (!range) return low + b;
    return low + (uint64_t)(((unsigned __int128)b * range) >> 64);
}

static void em__gen_int(const em__rand_ctx *c, uint64_t j, void *v) {
    uint32_t w[4];
    em_philox_block(c->req->key, c->req->counter, j, w);
    uint64_t r[2];
    for (int k = 0; k < 2; k++) r[k] = em__scale(em__b64(w, k), c->req->low, c->req->range);
    for (int k = 0; k < 2; k++) switch (c->itemsize) {
        case 1: ((uint8_t *)v)[k] = (uint8_t)r[k]; break;
        case 2: ((uint16_t *)v)[k] = (uint16_t)r[k]; break;
        case 4: ((uint32_t *)v)[k] = (uint32_t)r[k]; break;
        default: ((uint64_t *)v)[k] = r[k]; break;
        }
}

/* Blocks [b, e): full blocks straight into place, a partial last block
 * through a scratch buffer. */
static void em__rand_range(void *ctx, int64_t b, int64_t e, int worker) {
    EM_UNUSED(worker);
    const em__rand_ctx *c = ctx;
    int64_t bytes = (int64_t)c->per_block * c->itemsize;
    for (int64_t j = b; j < e; j++) {
        char *dst = c->data + j * bytes;
        int64_t left = c->n - j * c->per_block;
        if (left >= c->per_block) {
            c->gen(c, (uint64_t)j, dst);
        } else {
            uint64_t tmp[4];
            c->gen(c, (uint64_t)j, tmp);
            memcpy(dst, tmp, (size_t)(left * c->itemsize));
        }
    }
}

static em__rand_gen em__pick(em_random_kind kind, int itemsize) {
    switch (kind) {
    case EM_RAND_UNIFORM: return itemsize == 4 ? em__gen_unif32 : em__gen_unif64;
    case EM_RAND_NORMAL: return itemsize == 4 ? em__gen_norm32 : em__gen_norm64;
    case EM_RAND_BITS: return itemsize == 4 ? em__gen_bits32 : em__gen_bits64;
    default: return em__gen_int;
    }
}

/* a is C-contiguous and writeable, its dtype checked by the core. */
em_status em_cpu_random(em_array *a, const em_random_req *req) {
    em__rand_ctx c = {.data = a->data, .n = em_array_size(a), .req = req};
    c.itemsize = EM_DTYPE_SIZE(a->dtype);
    c.per_block = req->kind != EM_RAND_INTEGERS && c.itemsize == 4 ? 4 : 2;
    c.gen = em__pick(req->kind, c.itemsize);
    int64_t blocks = (c.n + c.per_block - 1) / c.per_block;
    em_parallel_for(blocks, 2048, em__rand_range, &c);
    return EM_OK;
}
