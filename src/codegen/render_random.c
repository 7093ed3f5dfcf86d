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
#include "codegen/rand_dist.h"
#include "codegen/tmpl.h"

#include <stdlib.h>
#include <string.h>

static const char em__philox_src[] = EM_PHILOX_SRC;
static const char em__dist_src[] = EM_DIST_SRC;

/* em_random_dist's kernel, after rand_dist.h's samplers: one thread per
 * element (grid-stride), the rejection loop inside it, the parameters read
 * at element i * stride (stride 0: one value for all). */
static const char em__dist_kernel[] =
    "${kernel(256)} " EM_KNAME "(${params}) {\n${prologue}"
    "    for (${ull} i = ${bid} * (${ull})${bdim} + ${tid}; i < p.n;"
    " i += (${ull})${bdim} * ${gdim}) {\n"
    "        em_rs s;\n"
    "        em_rs_init(&s, p.key, p.counter + i);\n"
    "        const double a = ((const ${global}double *)p.p0)[i * p.s0];\n"
    "        const double q = ((const ${global}double *)p.p1)[i * p.s1];\n"
    "        ((${global}EM_T *)p.out)[i] = EM_DRAW;\n"
    "    }\n"
    "}\n";

/* em_random_dist's BINOMIAL kernel: em_rs_binomial element for element,
 * the lane's loop flattened to one BTPE proposal a turn.  In the per-element
 * loop a warp's turn over its 32 elements lasted as long as its unluckiest
 * lane's rejections (the others idle); here a lane that accepts stores and
 * starts its next element while the others draw again, so a warp's time is
 * its lanes' most proposals in all, not the sum of each round's most.  The
 * setup (em_btpe_setup: a root, a floor, five divisions) is made once a
 * thread where n and p are one for all (s0 = s1 = 0), as the CPU does.
 * Each element's sub-stream and arithmetic are the text's: the same bits. */
static const char em__binom_kernel[] =
    " " EM_KNAME "(${params}) {\n${prologue}"
    "    const ${ull} step = (${ull})${bdim} * ${gdim};\n"
    "    ${ull} i = ${bid} * (${ull})${bdim} + ${tid};\n"
    "    if (i >= p.n) return;\n"
    "    em_rs s;\n"
    "    em_btpe b;\n"
    "    em_i64 nn = 0;\n"
    "    double pp = 0.0, r = 0.0;\n"
    "    int mode = 0, first = 1, fresh = 1;\n" /* 0: the value 0, 1: inversion, 2: BTPE */
    "    for (;;) {\n"
    "        if (fresh) {\n"
    "            if (first || p.s0 || p.s1) {\n"
    "                nn = (em_i64)((const ${global}double *)p.p0)[i * p.s0];\n"
    "                pp = ((const ${global}double *)p.p1)[i * p.s1];\n"
    "                r = pp > 0.5 ? 1.0 - pp : pp;\n"
    "                mode = nn <= 0 || !(pp > 0.0) ? 0 : (double)nn * r <= 30.0 ? 1 : 2;\n"
    "                if (mode == 2) em_btpe_setup(&b, nn, r);\n"
    "                first = 0;\n"
    "            }\n"
    "            em_rs_init(&s, p.key, p.counter + i);\n"
    "            fresh = 0;\n"
    "        }\n"
    "        const em_i64 y = mode == 2 ? em_rs_btpe_step(&s, &b, nn, r)\n"
    "                         : mode ? em_rs_binv(&s, nn, r) : 0;\n"
    "        if (y >= 0) {\n"
    "            ((${global}em_i64 *)p.out)[i] = mode && pp > 0.5 ? nn - y : y;\n"
    "            i += step;\n"
    "            if (i >= p.n) return;\n"
    "            fresh = 1;\n"
    "        }\n"
    "    }\n"
    "}\n";

/* em__geom_note: why em_geom's float32 answer is the float64 one.  The
 * H100 runs float64 at half float32's rate and log1p is dozens of
 * operations, so the float64 quotient t = log1p(-v) / pa cost more than the
 * int64 store.  In float32, x is log1p of (float)v below v = 1/2 (the
 * function's condition number there is at most 1.45) and log of the exact
 * 1 - v rounded to float above (condition at most 1.45 again), each within
 * a few ulps (CUDA 1, OpenCL 2 and 3); with the float pa and the division
 * t32 is within 2^-20 of t relative.  So when t32 (1 -/+ 2^-16) round up to
 * the same integer, ceil(t) is that integer, as the float64 path computes
 * it; else (about one element in 10^4 at p = 0.2, and every element once
 * t32 passes 2^22 or is not finite: tiny p) the float64 path runs.  The
 * values are those of the float64 expression, element for element. */

/* em__geom_int_note: CUDA's em_geom2, from the stream's 53-bit integer k
 * (v = k 2^-53).  __logf is two instructions (MUFU.LG2 and a multiply):
 * absolute error at most 2^-21.41 on [0.5, 2], 3 ulp elsewhere (CUDA's
 * programming guide), where em_geom's accurate log1pf/logf pair cost about a
 * hundred instructions an element and diverged at random on v < 1/2.
 * 1 - v = (2^53 - k) 2^-53 exactly, so (float)(2^53 - k) times 2^-53 (a power
 * of two: exact) is the float 1 - v, within 2^-24 relative: x is within
 * 2^-21 absolute plus 2^-22 relative of log1p(-v), t = x / pa32 within
 * 2^-21 / |pa32| absolute plus 2^-20 relative of the exact quotient, and the
 * margin d (2^-16 relative plus 2^-19 / |pa32| absolute) covers both with
 * room.  With hi = ceil(t + d), ceil(t - d) == hi exactly when t - d > hi - 1
 * (hi - 1 is exact below 2^24): then hi is ceil of the exact quotient, as the
 * float64 path computes it; elsewhere (about one element in 10^4 at p = 0.2,
 * every element once t passes 2^22 or is not finite: tiny p) the float64 path
 * runs, so the values are the float64 expression's, element for element.
 * 1 < hi <= 2^22 + 1 is an integer whose float bits after adding 2^23 are
 * 0x4B000000 + hi: one conversion an element where the float form spent five
 * (u64 to double, double to float, two ceilings, float to int64).  1 / pa32
 * and the margin's absolute part are computed once a thread (EM_HOIST).
 * H100, one process, 2^24 draws (session 17, best of 3 rounds of median of
 * 25 single calls / 50 back to back): 0.0671 / 0.0535 ms, the float form
 * 0.0715 / 0.0580, em_geom's accurate logs 0.1008 / 0.0875, PyTorch's float32
 * geometric_ 0.0888 / 0.0443, an int64 fill of the same bytes 0.0507 / 0.0435.
 * Two or four Philox blocks a thread a grid stride apart, or a grid of 8 or
 * 16 blocks an SM in place of 32, were slower (0.0678-0.0738 single).
 * Four values a block (v = w 2^-32 of the 32-bit words, half the Philox
 * calls; session 18) stored 32 bytes a thread as two 16-byte stores, each
 * a warp's half-filled 32-byte sectors: 0.0823 / 0.0714 against this form's
 * 0.0692 / 0.0542 in one call (PyTorch 0.0575-0.0627 / 0.0438).  Staging a
 * warp's 1 KiB through shared memory so each store is contiguous is the
 * untried next step. */

/* em__norm_pi_note: CUDA's normals take sin and cos of 2 pi u2 as
 * sincospi(2 u2) (2 u2 is exact): no multiply by a rounded 2 pi, no range
 * reduction, one call for both.  The values move by an ulp or so (the
 * CPU's were already a few ulps away: ember.h).  H100, 2^24, one process,
 * best of 3 rounds of median of 25 single calls / 50 back to back
 * (session 18, tools/probe_geo.py): standard_normal float32 0.0500 / 0.0403
 * ms against sin and cos 0.0539 / 0.0444 (PyTorch randn 0.0552 / 0.0424),
 * float64 0.0973 / 0.0873 against 0.1051 / 0.0952 (PyTorch 0.1228 / 0.1043). */

/* The helpers after em_philox: EM_FN is the dialect's helper qualifier,
 * em_umulhi64 its 64-bit high product.  The argument struct comes first
 * (CUDA's; codegen/tmpl.h writes the em_kargs form). */
static const char em__rand_helpers[] =
    "EM_FN float em_u24(unsigned w) { return (float)(w >> 8) * (1.0f / 16777216.0f); }\n"
    "#ifndef EM_NO_FP64\n" /* OpenCL without cl_khr_fp64: no double */
    "EM_FN double em_u53(unsigned lo, unsigned hi) {\n"
    "    return (double)((((${ull})hi << 32) | lo) >> 11) * (1.0 / 9007199254740992.0);\n"
    "}\n"
    "#endif\n"
    "EM_FN float em_n24(const unsigned *w, int j) {\n"
    "    const int k = j & ~1;\n"
    "    const float r = sqrtf(-2.0f * logf(1.0f - em_u24(w[k]))), t = 6.2831853071795864f * em_u24(w[k + 1]);\n"
    "    return (j & 1) ? r * sinf(t) : r * cosf(t);\n"
    "}\n"
    "#ifndef EM_NO_FP64\n"
    "EM_FN double em_n53(const unsigned *w, int j) {\n"
    "    const double r = sqrt(-2.0 * log(1.0 - em_u53(w[0], w[1]))), t = 6.283185307179586477 * em_u53(w[2], w[3]);\n"
    "    return j ? r * sin(t) : r * cos(t);\n"
    "}\n"
    "EM_FN void em_n53x2(const unsigned *w, double *v) {\n"
    "#if EM_NORM_PI\n" /* em__norm_pi_note */
    "    const double r = sqrt(-2.0 * log(1.0 - em_u53(w[0], w[1])));\n"
    "    double s, c;\n"
    "    sincospi(2.0 * em_u53(w[2], w[3]), &s, &c);\n"
    "    v[0] = r * c;\n"
    "    v[1] = r * s;\n"
    "#else\n"
    "    const double r = sqrt(-2.0 * log(1.0 - em_u53(w[0], w[1]))), t = 6.283185307179586477 * em_u53(w[2], w[3]);\n"
    "    v[0] = r * cos(t);\n"
    "    v[1] = r * sin(t);\n"
    "#endif\n"
    "}\n"
    "// GEOMETRIC: max(ceil(log1p(-v) / pa), 1), decided in float32 where that\n"
    "// is safe; float64's log1p was the kernel's cost (see em__geom_note).\n"
    "EM_FN ${ll} em_geom(double v, double pa, float pa32) {\n"
    "    const float x = v < 0.5 ? em_log1p_f32(-(float)v) : em_log_f32((float)(1.0 - v));\n"
    "    const float t = x / pa32;\n"
    "    if (t < 4194304.0f) {\n"
    "        const float d = t * (1.0f / 65536.0f);\n"
    "        const float lo = em_ceil_f32(t - d), hi = em_ceil_f32(t + d);\n"
    "        if (lo == hi) return lo > 1.0f ? (${ll})lo : (${ll})1;\n"
    "    }\n"
    "    return (${ll})em_f2u(em_maximum_f64(em_ceil_f64(em_log1p_f64(-v) / pa), 1.0));\n"
    "}\n"
    "#if EM_GEOM_INT\n"
    "// CUDA (em__geom_int_note): the hardware log from the stream's 53-bit integer k;\n"
    "// ipa = 1 / pa32 and dab = 2^-19 / |pa32| once a thread (EM_HOIST).\n"
    "EM_FN ${ll} em_geom2(${ull} k, double pa, float ipa, float dab) {\n"
    "    const float x = __logf((float)(9007199254740992ULL - k) * 1.1102230246251565e-16f);\n"
    "    const float t = x * ipa;\n"
    "    if (t < 4194304.0f) {\n"
    "        const float d = t * (1.0f / 65536.0f) + dab;\n"
    "        const float hi = ceilf(t + d);\n"
    "        if (t - d > hi - 1.0f) // ceil(t - d) == hi\n"
    "            return hi > 1.0f ? (${ll})(__float_as_int(hi + 8388608.0f) - 0x4B000000) : (${ll})1;\n"
    "    }\n"
    "    // undecided: the float64 answer\n"
    "    const double v = (double)k * (1.0 / 9007199254740992.0);\n"
    "    return (${ll})em_f2u(em_maximum_f64(em_ceil_f64(em_log1p_f64(-v) / pa), 1.0));\n"
    "}\n"
    "#endif\n"
    "#endif\n"
    "// A whole block's normals at once: each Box-Muller pair's radius and angle\n"
    "// once for both of its values (em_n24 / em_n53 per element computed them twice).\n"
    "EM_FN void em_n24x4(const unsigned *w, float *v) {\n"
    "#if EM_NORM_PI\n"
    "    for (int k = 0; k < 4; k += 2) {\n"
    "        const float r = sqrtf(-2.0f * logf(1.0f - em_u24(w[k])));\n"
    "        float s, c;\n"
    "        sincospif(2.0f * em_u24(w[k + 1]), &s, &c);\n"
    "        v[k] = r * c;\n"
    "        v[k + 1] = r * s;\n"
    "    }\n"
    "    return;\n"
    "#endif\n"
    "    for (int k = 0; k < 4; k += 2) {\n"
    "        const float r = sqrtf(-2.0f * logf(1.0f - em_u24(w[k]))), t = 6.2831853071795864f * em_u24(w[k + 1]);\n"
    "        v[k] = r * cosf(t);\n"
    "        v[k + 1] = r * sinf(t);\n"
    "    }\n"
    "}\n"
    "EM_FN ${ull} em_rint(const unsigned *w, int j, ${ull} low, ${ull} range) {\n"
    "    const ${ull} b = ((${ull})w[2 * j + 1] << 32) | w[2 * j];\n"
    "    return range ? low + em_umulhi64(b, range) : low + b;\n"
    "}\n";

/* The kernel, after the helpers.  A thread's block of EM_PER values is
 * computed whole (EM_FILL), then stored as one 16-byte store where the
 * block is full and the values fill 16 bytes (EM_VEC: 4 x 32 or 2 x 64
 * bits), else element by element. */
static const char em__rand_kernel[] =
    "${kernel(256)} " EM_KNAME "(${params}) {\n${prologue}"
    "    const ${ull} nb = (p.n + EM_PER - 1) / EM_PER;\n"
    "    const bool vec = EM_VEC && ((${ull})p.out & 15) == 0;\n"
    "    EM_HOIST\n"
    "    for (${ull} b = ${bid} * (${ull})${bdim} + ${tid}; b < nb;"
    " b += (${ull})${bdim} * ${gdim}) {\n"
    "        const ${ull} ctr = p.counter + b;\n"
    "        unsigned w[4] = {(unsigned)ctr, (unsigned)(ctr >> 32), 0u, 0u};\n"
    "        em_philox(w, (unsigned)p.key, (unsigned)(p.key >> 32));\n"
    "        EM_T0 v0[EM_PER];\n"
    "        EM_FILL(w, v0);\n"
    "        em_vec q;\n"
    "        for (int j = 0; j < EM_PER; j++) q.v[j] = EM_POST(v0[j]);\n"
    "        if (vec && b * EM_PER + EM_PER <= p.n) {\n"
    "            ((${global}em_vec *)p.out)[b] = q;\n"
    "            continue;\n"
    "        }\n"
    "        for (int j = 0; j < EM_PER && b * EM_PER + j < p.n; j++)\n"
    "            ((${global}EM_T *)p.out)[b * EM_PER + j] = q.v[j];\n"
    "    }\n"
    "}\n";

/* Elements per Philox block and the value expression, per kind and dtype. */
static em_status em__rand_shape(em_random_kind kind, em_dtype dt, int *per, const char **value) {
    bool f32 = dt == EM_FLOAT32, f64 = dt == EM_FLOAT64;
    if (kind == EM_RAND_BITS && dt == EM_UINT32)
        *per = 4, *value = "w[j]";
    else if (kind == EM_RAND_BITS && dt == EM_UINT64)
        *per = 2, *value = "((${ull})w[2 * j + 1] << 32) | w[2 * j]";
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
    else if (kind == EM_RAND_GAMMA && f64)
        *per = 1, *value = "em_rs_gamma(&s, a)";
    else if (kind == EM_RAND_POISSON && dt == EM_INT64)
        *per = 1, *value = "em_rs_poisson(&s, a)";
    else if (kind == EM_RAND_BINOMIAL && dt == EM_INT64)
        *per = 1, *value = "em_rs_binomial(&s, (em_i64)a, q)";
    else if (kind == EM_RAND_BETA && f64)
        *per = 1, *value = "em_rs_beta(&s, a, q)";
    else
        return em_error(EM_ETYPE,
                        "random kind %d cannot fill %s: uniform/normal need float32 or float64, "
                        "bits need uint32 or uint64, gamma/beta float64, poisson/binomial int64",
                        (int)kind, em_dtype_get(dt)->name);
    return EM_OK;
}

em_status em_random_per_block(em_random_kind kind, em_dtype dt, int *per) {
    const char *value;
    return em__rand_shape(kind, dt, per, &value);
}

/* The kernel of em_random_dist: value (em__rand_shape's) the draw. */
static em_status em__render_dist(const em_dialect *d, const char *value, em_dtype dt,
                                 em_sbuf *out) {
    static const em_tfield f[] = {{'p', "out", 0, 0, NULL}, {'p', "p0", 0, 0, NULL},
                                  {'p', "p1", 0, 0, NULL},  {'u', "n", 0, 0, NULL},
                                  {'u', "key", 0, 0, NULL}, {'u', "counter", 0, 0, NULL},
                                  {'u', "s0", 0, 0, NULL},  {'u', "s1", 0, 0, NULL}};
    const int nf = (int)(sizeof f / sizeof *f);
    em_sbuf t = {0};
    em_sbuf_printf(&t, "%s\n#define EM_T %s\n#define EM_DRAW (%s)\n", d->prelude,
                   em_tmpl_stype(d, dt), value);
    em_sbuf_printf(&t, "#define EM_PHILOX_FN %s\n#define em_mulhi32(a, b) %s(a, b)\n", d->device_fn,
                   d->umulhi32);
    em_sbuf_printf(&t, "#define em_u64 ${ull}\n#define em_i64 ${ll}\n%s\n%s\n", em__philox_src,
                   em__dist_src);
    if (d->args_struct)
        em_sbuf_printf(&t, "struct em_args { char *out, *p0, *p1; unsigned long long n, key, "
                           "counter, s0, s1; };\n");
    else
        em_tmpl_args_types(d, f, nf, &t);
    bool stepped = !strcmp(value, "em_rs_binomial(&s, (em_i64)a, q)") && em_random_binom_stepped();
    int minb = em_random_binom_minb();
    if (stepped && minb > 0 && d->id == EM_DIALECT_CUDA)
        em_sbuf_printf(&t, "extern \"C\" __global__ void __launch_bounds__(256, %d)", minb);
    else if (stepped)
        em_sbuf_printf(&t, "${kernel(256)}");
    em_sbuf_printf(&t, "%s", stepped ? em__binom_kernel : em__dist_kernel);
    return em_tmpl_finish(d, f, nf, &t, NULL, out);
}

bool em_random_binom_stepped(void) {
    const char *st = getenv("EMBER_BINOM_STEP");
    return !(st && !strcmp(st, "0"));
}

/* CUDA's launch bounds ask for 4 blocks of 256 an SM (64 registers a thread,
 * against 80 unbounded): binomial(1000, 0.3) of 2^24 2.93 ms against 3.13 on
 * the H100 (session 20, tools/probe_rand3.py). */
int em_random_binom_minb(void) {
    const char *mb = getenv("EMBER_BINOM_MINB");
    return mb ? atoi(mb) : 4;
}

em_status em_render_random(const em_dialect *d, em_random_kind kind, em_dtype dt, em_sbuf *out) {
    return em_render_random_post(d, kind, dt, EM_RPOST_NONE, out);
}

/* The store's expression of a value v of the base type (post's), with the
 * scalar library's functions, as the elementwise chain it replaces. */
static const char *em__post_expr(em_random_kind kind, em_dtype dt, em_random_post post) {
    bool f64 = dt == EM_FLOAT64, unif = kind == EM_RAND_UNIFORM;
    switch (post) {
    case EM_RPOST_NONE: return "(v)";
    case EM_RPOST_AFFINE:
        return f64 && (unif || kind == EM_RAND_NORMAL) ? "(v) * p.pa + p.pb" : NULL;
    /* log(1 - v), not log1p(-v): the same number (1 - v is exact for the
     * stream's multiples of 2^-53 or 2^-24) at a cheaper function */
    case EM_RPOST_EXPONENTIAL:
        return !unif              ? NULL
               : f64              ? "-em_log_f64(1.0 - (v)) * p.pa"
               : dt == EM_FLOAT32 ? "-em_log_f32(1.0f - (v)) * (float)p.pa"
                                  : NULL;
    case EM_RPOST_GEOMETRIC: return unif && f64 ? "em_geom(v, p.pa, (float)p.pa)" : NULL;
    default: return NULL;
    }
}

em_status em_render_random_post(const em_dialect *d, em_random_kind kind, em_dtype dt,
                                em_random_post post, em_sbuf *out) {
    int per = 0;
    const char *value = NULL;
    em_status st = em__rand_shape(kind, dt, &per, &value);
    if (st != EM_OK) return st;
    if (!d->kernel || !d->bounds || !d->umulhi32 || !d->umulhi64 || d->id == EM_DIALECT_C)
        return em_error(EM_EUNSUPPORTED, "the random kernel is not rendered for %s", d->name);
    const char *pexpr = em__post_expr(kind, dt, post);
    if (!pexpr || (post != EM_RPOST_NONE && kind >= EM_RAND_GAMMA))
        return em_error(EM_ETYPE, "no random transform %d of kind %d in %s", (int)post, (int)kind,
                        em_dtype_get(dt)->name);
    if (kind >= EM_RAND_GAMMA) return em__render_dist(d, value, dt, out);
    static const em_tfield f[] = {{'p', "out", 0, 0, NULL}, {'u', "n", 0, 0, NULL},
                                  {'u', "key", 0, 0, NULL}, {'u', "counter", 0, 0, NULL},
                                  {'u', "low", 0, 0, NULL}, {'u', "range", 0, 0, NULL},
                                  {'d', "pa", 0, 0, NULL},  {'d', "pb", 0, 0, NULL}};
    const int nf = (int)(sizeof f / sizeof *f);
    em_sbuf t = {0};                                           /* the template, expanded into out */
    em_dtype odt = post == EM_RPOST_GEOMETRIC ? EM_INT64 : dt; /* what is stored */
    em_sbuf_printf(&t, "%s\n#define EM_PER %d\n#define EM_T %s\n#define EM_VALUE (%s)\n",
                   d->prelude, per, em_tmpl_stype(d, odt), value);
    const bool gint = d->id == EM_DIALECT_CUDA; /* em__geom_int_note: the integer k */
    if (post == EM_RPOST_GEOMETRIC && gint)
        em_sbuf_printf(
            &t,
            "#define EM_T0 ${ull}\n#define EM_POST(v) (em_geom2(v, p.pa, ipa, dab))\n"
            "#define EM_HOIST const float ipa = 1.0f / (float)p.pa, dab = 1.9073486e-6f * "
            "fabsf(ipa);\n"
            "#undef EM_VALUE\n#define EM_VALUE ((((${ull})w[2 * j + 1] << 32) | w[2 * j]) >> 11)\n");
    else
        em_sbuf_printf(&t, "#define EM_T0 %s\n#define EM_POST(v) (%s)\n", em_tmpl_stype(d, dt),
                       pexpr);
    em_sbuf_printf(&t, "#define EM_PHILOX_FN %s\n#define EM_FN %s\n", d->device_fn, d->device_fn);
    em_sbuf_printf(&t, "#define em_mulhi32(a, b) %s(a, b)\n#define em_umulhi64(a, b) %s(a, b)\n",
                   d->umulhi32, d->umulhi64);
    em_sbuf_printf(&t, "%s\n", em__philox_src);
    if (d->args_struct)
        em_sbuf_printf(&t, "struct em_args { char *out; unsigned long long n, key, counter, low, "
                           "range; double pa, pb; };\n");
    else
        em_tmpl_args_types(d, f, nf, &t);
    bool vec = per * em_dtype_get(odt)->size == 16;
    em_sbuf_printf(&t, "#define EM_NORM_PI %d\n", gint); /* em__norm_pi_note: CUDA's */
    em_sbuf_printf(&t, "#ifndef EM_HOIST\n#define EM_HOIST\n#endif\n#define EM_GEOM_INT %d\n%s",
                   gint, em__rand_helpers);
    em_sbuf_printf(&t, "#define EM_VEC %d\ntypedef struct %s { EM_T v[EM_PER]; } em_vec;\n", vec,
                   !vec                       ? ""
                   : d->id == EM_DIALECT_CUDA ? "__align__(16)"
                                              : "__attribute__((aligned(16)))");
    if (kind == EM_RAND_NORMAL)
        em_sbuf_printf(&t, "#define EM_FILL(w, v) %s(w, v)\n", per == 4 ? "em_n24x4" : "em_n53x2");
    else
        em_sbuf_printf(
            &t, "#define EM_FILL(w, v) for (int j = 0; j < EM_PER; j++) (v)[j] = EM_VALUE\n");
    em_sbuf_printf(&t, "%s", em__rand_kernel);
    return em_tmpl_finish(d, f, nf, &t, NULL, out);
}

/* em_random_choice's kernel (render_random.h): the integer fill's Philox
 * block per thread, its two indices (em_rint with low 0) used at once to
 * read the population, no index array and no bounds check (every j is in
 * [0, range)).  Where the fill and a take were two launches, an int64
 * array written and read, and the take's error word zeroed, read back and
 * waited for (a host round trip per call). */
static const char em__choice_kernel[] =
    "${kernel(256)} " EM_KNAME "(${params}) {\n${prologue}"
    "    const ${ull} nb = (p.n + 1) / 2;\n"
    "    for (${ull} b = ${bid} * (${ull})${bdim} + ${tid}; b < nb;"
    " b += (${ull})${bdim} * ${gdim}) {\n"
    "        const ${ull} ctr = p.counter + b;\n"
    "        unsigned w[4] = {(unsigned)ctr, (unsigned)(ctr >> 32), 0u, 0u};\n"
    "        em_philox(w, (unsigned)p.key, (unsigned)(p.key >> 32));\n"
    "        for (int j = 0; j < 2 && 2 * b + j < p.n; j++) {\n"
    "            const ${ull} bits = ((${ull})w[2 * j + 1] << 32) | w[2 * j];\n"
    "            const ${ll} k = (${ll})em_umulhi64(bits, p.range);\n"
    "            ((${global}em_t *)p.out)[2 * b + j] ="
    " *(const ${global}em_t *)(p.src + k * p.stride);\n"
    "        }\n"
    "    }\n"
    "}\n";

em_status em_render_random_choice(const em_dialect *d, int size, em_sbuf *out) {
    if (!d->kernel || !d->umulhi32 || !d->umulhi64 || d->id == EM_DIALECT_C)
        return em_error(EM_EUNSUPPORTED, "the random kernel is not rendered for %s", d->name);
    if (size != 1 && size != 2 && size != 4 && size != 8 && size != 16)
        return em_error(EM_ETYPE, "random choice of %d-byte elements", size);
    static const em_tfield f[] = {{'p', "out", 0, 0, NULL},     {'p', "src", 0, 0, NULL},
                                  {'u', "n", 0, 0, NULL},       {'u', "key", 0, 0, NULL},
                                  {'u', "counter", 0, 0, NULL}, {'u', "range", 0, 0, NULL},
                                  {'i', "stride", 0, 0, NULL}};
    const int nf = (int)(sizeof f / sizeof *f);
    const bool cxx = d->id == EM_DIALECT_CUDA;
    static const char *const ty[] = {"unsigned char", "unsigned short", "unsigned int"};
    em_sbuf t = {0};
    em_sbuf_printf(&t, "%s\n", d->prelude);
    if (size == 16)
        em_sbuf_printf(&t, "%s",
                       cxx ? "typedef struct __align__(8) { unsigned long long lo, hi; } em_t;\n"
                           : "typedef struct { ulong lo, hi; } em_t;\n");
    else
        em_sbuf_printf(&t, "typedef %s em_t;\n", size == 8 ? d->u64 : ty[size == 4 ? 2 : size - 1]);
    em_sbuf_printf(&t, "#define EM_PHILOX_FN %s\n#define em_mulhi32(a, b) %s(a, b)\n", d->device_fn,
                   d->umulhi32);
    em_sbuf_printf(&t, "#define em_umulhi64(a, b) %s(a, b)\n%s\n", d->umulhi64, em__philox_src);
    if (d->args_struct)
        em_sbuf_printf(&t, "struct em_args { char *out, *src; unsigned long long n, key, counter, "
                           "range; long long stride; };\n");
    else
        em_tmpl_args_types(d, f, nf, &t);
    em_sbuf_printf(&t, "%s", em__choice_kernel);
    return em_tmpl_finish(d, f, nf, &t, NULL, out);
}
