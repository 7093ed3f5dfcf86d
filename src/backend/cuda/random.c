/* Random numbers on CUDA: Philox4x32-10, counter based, so element n of a
 * stream is the same on every device and whatever the launch shape.
 *
 * The stream mapping (the CPU backend must use the same):
 *   key (64 bit)      -> Philox key {lo32(key), hi32(key)}
 *   block b           -> Philox counter {lo32(counter + b), hi32(counter + b), 0, 0}
 *                        giving four 32-bit words w0..w3
 *   32-bit outputs (BITS uint32, UNIFORM float32):
 *       element i = word i % 4 of block i / 4
 *   64-bit outputs (BITS uint64, UNIFORM float64):
 *       element i = w[2j] | w[2j+1] << 32 with j = i % 2, of block i / 2
 *   UNIFORM float32 = (u32 >> 8) * 2^-24,  float64 = (u64 >> 11) * 2^-53
 *   NORMAL float32: element i uses block i / 4, j = i % 4, k = j & ~1:
 *       u1 = (w[k] >> 8) * 2^-24, u2 = (w[k+1] >> 8) * 2^-24, r = sqrt(-2 log(1 - u1)),
 *       z = r cos(2 pi u2) for even j, r sin(2 pi u2) for odd j
 *   NORMAL float64: element i uses block i / 2, j = i % 2:
 *       u1 from w0 | w1 << 32, u2 from w2 | w3 << 32 (as UNIFORM float64),
 *       z = r cos(2 pi u2) for j = 0, r sin(2 pi u2) for j = 1
 *   INTEGERS (any integer or bool dtype): element i = low + floor(b * range / 2^64)
 *       with b the 64-bit word j = i % 2 of block i / 2 (range 0 means 2^64)
 * This is the CPU backend's mapping (src/backend/cpu/random.c); the GPU's
 * log/sin/cos may differ from the CPU's by a few ulps, everything else is exact.
 * The Philox round follows Random123 (philox4x32 with 10 rounds, key bumped
 * by 0x9E3779B9, 0xBB67AE85 between rounds); the C tests check its
 * known-answer vectors on the host copy below.
 */
#include "backend/cuda/cuda_internal.h"
#include "codegen/render.h"

#include <stdio.h>
#include <string.h>

static const char em__philox_src[] =
    "extern \"C\" __device__ __forceinline__ void em_philox(unsigned c[4], unsigned k0, unsigned k1) {\n"
    "    for (int r = 0; r < 10; r++) {\n"
    "        if (r) { k0 += 0x9E3779B9u; k1 += 0xBB67AE85u; }\n"
    "        const unsigned hi0 = __umulhi(0xD2511F53u, c[0]), lo0 = 0xD2511F53u * c[0];\n"
    "        const unsigned hi1 = __umulhi(0xCD9E8D57u, c[2]), lo1 = 0xCD9E8D57u * c[2];\n"
    "        const unsigned n0 = hi1 ^ c[1] ^ k0, n2 = hi0 ^ c[3] ^ k1;\n"
    "        c[0] = n0; c[1] = lo1; c[2] = n2; c[3] = lo0;\n"
    "    }\n"
    "}\n"
    "struct em_args { char *out; unsigned long long n, key, counter, low, range; };\n"
    "EM_D float em_u24(unsigned w) { return (float)(w >> 8) * (1.0f / 16777216.0f); }\n"
    "EM_D double em_u53(unsigned lo, unsigned hi) {\n"
    "    return (double)((((unsigned long long)hi << 32) | lo) >> 11) * (1.0 / 9007199254740992.0);\n"
    "}\n"
    "EM_D float em_n24(const unsigned *w, int j) {\n"
    "    const int k = j & ~1;\n"
    "    const float r = sqrtf(-2.0f * logf(1.0f - em_u24(w[k]))), t = 6.2831853071795864f * em_u24(w[k + 1]);\n"
    "    return (j & 1) ? r * sinf(t) : r * cosf(t);\n"
    "}\n"
    "EM_D double em_n53(const unsigned *w, int j) {\n"
    "    const double r = sqrt(-2.0 * log(1.0 - em_u53(w[0], w[1]))), t = 6.283185307179586477 * em_u53(w[2], w[3]);\n"
    "    return j ? r * sin(t) : r * cos(t);\n"
    "}\n"
    "EM_D unsigned long long em_rint(const unsigned *w, int j, unsigned long long low, unsigned long long range) {\n"
    "    const unsigned long long b = ((unsigned long long)w[2 * j + 1] << 32) | w[2 * j];\n"
    "    return range ? low + __umul64hi(b, range) : low + b;\n"
    "}\n"
    "extern \"C\" __global__ void __launch_bounds__(256) em_kernel(const em_args p) {\n"
    "    const unsigned long long nb = (p.n + EM_PER - 1) / EM_PER;\n"
    "    for (unsigned long long b = blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x; b < nb;"
    " b += (unsigned long long)blockDim.x * gridDim.x) {\n"
    "        const unsigned long long ctr = p.counter + b;\n"
    "        unsigned w[4] = {(unsigned)ctr, (unsigned)(ctr >> 32), 0u, 0u};\n"
    "        em_philox(w, (unsigned)p.key, (unsigned)(p.key >> 32));\n"
    "        for (int j = 0; j < EM_PER && b * EM_PER + j < p.n; j++) {\n"
    "            const unsigned long long i = b * EM_PER + j;\n"
    "            ((EM_T *)p.out)[i] = EM_VALUE;\n"
    "        }\n"
    "    }\n"
    "}\n";

/* Elements per Philox block and the value expression, per kind and dtype. */
static em_status em__rand_shape(em_random_kind kind, em_dtype dt, int *per, const char **value) {
    bool f32 = dt == EM_FLOAT32, f64 = dt == EM_FLOAT64;
    if (kind == EM_RAND_BITS && dt == EM_UINT32) *per = 4, *value = "w[j]";
    else if (kind == EM_RAND_BITS && dt == EM_UINT64)
        *per = 2, *value = "((unsigned long long)w[2 * j + 1] << 32) | w[2 * j]";
    else if (kind == EM_RAND_UNIFORM && f32) *per = 4, *value = "em_u24(w[j])";
    else if (kind == EM_RAND_UNIFORM && f64) *per = 2, *value = "em_u53(w[2 * j], w[2 * j + 1])";
    else if (kind == EM_RAND_NORMAL && f32) *per = 4, *value = "em_n24(w, j)";
    else if (kind == EM_RAND_NORMAL && f64) *per = 2, *value = "em_n53(w, j)";
    else if (kind == EM_RAND_INTEGERS && strchr("biu", em_dtype_get(dt)->kind))
        *per = 2, *value = "(EM_T)em_rint(w, j, p.low, p.range)";
    else
        return em_error(EM_ETYPE, "random kind %d cannot fill %s: uniform/normal need float32 or float64, "
                        "bits need uint32 or uint64", (int)kind, em_dtype_get(dt)->name);
    return EM_OK;
}

typedef struct em__rctx {
    int per;
    const char *value;
    em_dtype dt;
} em__rctx;

static em_status em__rand_render(const void *ctx, void *sb) {
    const em__rctx *r = ctx;
    em_sbuf *s = sb;
    em_sbuf_printf(s, "%s\n#define EM_PER %d\n#define EM_T %s\n#define EM_VALUE (%s)\n%s", em_render_prelude(),
                   r->per, em_render_ctype(r->dt), r->value, em__philox_src);
    return s->oom ? em_error(EM_ENOMEM, "out of host memory rendering a kernel") : EM_OK;
}

em_status em_cuda_render_random(em_random_kind kind, em_dtype dt, void *src) {
    em__rctx r = {.dt = dt};
    EM_CHECK(em__rand_shape(kind, dt, &r.per, &r.value));
    return em__rand_render(&r, src);
}

em_status em_cuda_random(em_array *a, const em_random_req *req) {
    em_random_kind kind = req->kind;
    int id = em_array_device(a).id;
    em__rctx r = {.dt = a->dtype};
    EM_CHECK(em__rand_shape(kind, a->dtype, &r.per, &r.value));
    if (!em_array_is_c_contiguous(a)) return em_error(EM_EVALUE, "random fill needs a C-contiguous array");
    uint64_t n = (uint64_t)em_array_size(a);
    if (n == 0) return EM_OK;
    char key_s[32], name[48];
    snprintf(key_s, sizeof key_s, "RND%d|%d", (int)kind, (int)a->dtype);
    snprintf(name, sizeof name, "philox_%s", em_dtype_get(a->dtype)->name);
    CUfunction f;
    EM_CHECK(em_cu_kernel(id, key_s, name, EM_KNAME, em__rand_render, &r, &f));
    const em_device_props *pr;
    EM_CHECK(em_cu_props(id, &pr));
    struct { char *out; uint64_t n, key, counter, low, range; } args = {a->data, n, req->key, req->counter,
                                                                         req->low, req->range};
    uint64_t blocks = (n + (uint64_t)r.per - 1) / (uint64_t)r.per, g = (blocks + 255) / 256,
             cap = (uint64_t)pr->multiprocessor_count * 32;
    return em_cu_launch(id, f, name, (unsigned)(g < cap ? g : cap), 256, 0, &args);
}

/* The same Philox4x32-10 on the host, for the known-answer tests. */
void em_philox4x32_10(uint32_t c[4], uint32_t k0, uint32_t k1) {
    for (int r = 0; r < 10; r++) {
        if (r) k0 += 0x9E3779B9u, k1 += 0xBB67AE85u;
        uint64_t p0 = (uint64_t)0xD2511F53u * c[0], p1 = (uint64_t)0xCD9E8D57u * c[2];
        uint32_t n0 = (uint32_t)(p1 >> 32) ^ c[1] ^ k0, n2 = (uint32_t)(p0 >> 32) ^ c[3] ^ k1;
        c[0] = n0, c[1] = (uint32_t)p1, c[2] = n2, c[3] = (uint32_t)p0;
    }
}
