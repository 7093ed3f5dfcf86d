/* The random-fill kernel (render_random.h).  The stream mapping, which the
 * CPU backend (backend/cpu/random.c) follows too:
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
 * A device's log/sin/cos may differ from the CPU's by a few ulps; everything
 * else is exact.  The Philox function is codegen/philox.h's, pasted in. */
#include "codegen/render_random.h"
#include "codegen/philox.h"

#include <string.h>

static const char em__philox_src[] = EM_PHILOX_SRC;

/* The helpers after em_philox: EM_FN is the dialect's helper qualifier,
 * em_umulhi64 its 64-bit high product. */
static const char em__rand_helpers[] =
    "\nstruct em_args { char *out; unsigned long long n, key, counter, low, range; };\n"
    "EM_FN float em_u24(unsigned w) { return (float)(w >> 8) * (1.0f / 16777216.0f); }\n"
    "EM_FN double em_u53(unsigned lo, unsigned hi) {\n"
    "    return (double)((((unsigned long long)hi << 32) | lo) >> 11) * (1.0 / 9007199254740992.0);\n"
    "}\n"
    "EM_FN float em_n24(const unsigned *w, int j) {\n"
    "    const int k = j & ~1;\n"
    "    const float r = sqrtf(-2.0f * logf(1.0f - em_u24(w[k]))), t = 6.2831853071795864f * em_u24(w[k + 1]);\n"
    "    return (j & 1) ? r * sinf(t) : r * cosf(t);\n"
    "}\n"
    "EM_FN double em_n53(const unsigned *w, int j) {\n"
    "    const double r = sqrt(-2.0 * log(1.0 - em_u53(w[0], w[1]))), t = 6.283185307179586477 * em_u53(w[2], w[3]);\n"
    "    return j ? r * sin(t) : r * cos(t);\n"
    "}\n"
    "EM_FN unsigned long long em_rint(const unsigned *w, int j, unsigned long long low, unsigned long long range) {\n"
    "    const unsigned long long b = ((unsigned long long)w[2 * j + 1] << 32) | w[2 * j];\n"
    "    return range ? low + em_umulhi64(b, range) : low + b;\n"
    "}\n";

/* The kernel body after its signature; the index registers are its %s. */
#define EM__RAND_BODY                                                           \
    "    const unsigned long long nb = (p.n + EM_PER - 1) / EM_PER;\n"          \
    "    for (unsigned long long b = %s * (unsigned long long)%s + %s; b < nb;" \
    " b += (unsigned long long)%s * %s) {\n"                                    \
    "        const unsigned long long ctr = p.counter + b;\n"                   \
    "        unsigned w[4] = {(unsigned)ctr, (unsigned)(ctr >> 32), 0u, 0u};\n" \
    "        em_philox(w, (unsigned)p.key, (unsigned)(p.key >> 32));\n"         \
    "        for (int j = 0; j < EM_PER && b * EM_PER + j < p.n; j++) {\n"      \
    "            const unsigned long long i = b * EM_PER + j;\n"                \
    "            ((EM_T *)p.out)[i] = EM_VALUE;\n"                              \
    "        }\n"                                                               \
    "    }\n"                                                                   \
    "}\n"

/* Elements per Philox block and the value expression, per kind and dtype. */
static em_status em__rand_shape(em_random_kind kind, em_dtype dt, int *per, const char **value) {
    bool f32 = dt == EM_FLOAT32, f64 = dt == EM_FLOAT64;
    if (kind == EM_RAND_BITS && dt == EM_UINT32)
        *per = 4, *value = "w[j]";
    else if (kind == EM_RAND_BITS && dt == EM_UINT64)
        *per = 2, *value = "((unsigned long long)w[2 * j + 1] << 32) | w[2 * j]";
    else if (kind == EM_RAND_UNIFORM && f32)
        *per = 4, *value = "em_u24(w[j])";
    else if (kind == EM_RAND_UNIFORM && f64)
        *per = 2, *value = "em_u53(w[2 * j], w[2 * j + 1])";
    else if (kind == EM_RAND_NORMAL && f32)
        *per = 4, *value = "em_n24(w, j)";
    else if (kind == EM_RAND_NORMAL && f64)
        *per = 2, *value = "em_n53(w, j)";
    else if (kind == EM_RAND_INTEGERS && strchr("biu", em_dtype_get(dt)->kind))
        *per = 2, *value = "(EM_T)em_rint(w, j, p.low, p.range)";
    else
        return em_error(EM_ETYPE,
                        "random kind %d cannot fill %s: uniform/normal need float32 or float64, "
                        "bits need uint32 or uint64",
                        (int)kind, em_dtype_get(dt)->name);
    return EM_OK;
}

em_status em_random_per_block(em_random_kind kind, em_dtype dt, int *per) {
    const char *value;
    return em__rand_shape(kind, dt, per, &value);
}

em_status em_render_random(const em_dialect *d, em_random_kind kind, em_dtype dt, em_sbuf *s) {
    int per = 0;
    const char *value = NULL;
    em_status st = em__rand_shape(kind, dt, &per, &value);
    if (st != EM_OK) return st;
    /* CUDA only so far: OpenCL needs the buffer as its own argument, C a
     * launcher contract for struct arguments (issue 16 renders both). */
    if (d->id != EM_DIALECT_CUDA || !d->umulhi32 || !d->umulhi64)
        return em_error(EM_EUNSUPPORTED, "the random kernel is not rendered for %s yet", d->name);
    em_sbuf_printf(s, "%s\n#define EM_PER %d\n#define EM_T %s\n#define EM_VALUE (%s)\n", d->prelude,
                   per, em_render_ctype(dt), value);
    em_sbuf_printf(s, "#define EM_PHILOX_FN %s\n#define EM_FN %s\n", d->device_fn, d->device_fn);
    em_sbuf_printf(s, "#define em_mulhi32(a, b) %s(a, b)\n#define em_umulhi64(a, b) %s(a, b)\n",
                   d->umulhi32, d->umulhi64);
    em_sbuf_printf(s, "%s%s", em__philox_src, em__rand_helpers);
    char bid[32], bdim[32], tid[32], gdim[32], bounds[64];
    em_dialect_bounds(d, 256, bounds, sizeof bounds);
    em_dialect_reg(d->group_id, 0, bid, sizeof bid);
    em_dialect_reg(d->local_size, 0, bdim, sizeof bdim);
    em_dialect_reg(d->local_id, 0, tid, sizeof tid);
    em_dialect_reg(d->num_groups, 0, gdim, sizeof gdim);
    em_sbuf_printf(s, "%s %s %s(const em_args p) {\n", d->kernel, bounds, EM_KNAME);
    em_sbuf_printf(s, EM__RAND_BODY, bid, bdim, tid, bdim, gdim);
    return s->oom ? em_error(EM_ENOMEM, "out of host memory rendering a kernel") : EM_OK;
}
