/* The atomic histogram (render_histogram.h): one template for CUDA and
 * OpenCL.  Counts accumulate as 32-bit integers in shared memory (a block
 * sees far fewer than 2^32 samples: the driver checks) and as 64-bit ones
 * in out; weights in their own real type, a complex weight as its two
 * parts.  Atomics: CUDA's atomicAdd on every type (double's from sm_60,
 * else a compare-and-swap loop); OpenCL's atomic_add on 32-bit and atom_add
 * on 64-bit integers (cl_khr_int64_base_atomics), compare-and-swap loops on
 * the bits of a float or double, in the address space they update. */
#include "codegen/render_histogram.h"
#include "codegen/tmpl.h"

#include <stdio.h>

static bool em__int(em_dtype t) {
    char k = em_dtype_get(t)->kind;
    return k == 'i' || k == 'u';
}

bool em_hist_dtypes_ok(em_dtype x, em_dtype c, em_dtype w) {
    bool xok = (unsigned)x < EM_NDTYPES && (em__int(x) || x == EM_FLOAT32 || x == EM_FLOAT64);
    bool cok = c == EM_FLOAT32 || c == EM_FLOAT64 || c == EM_INT64 || c == EM_UINT64;
    bool wok = w == EM_NDTYPES || w == EM_FLOAT32 || w == EM_FLOAT64 || w == EM_COMPLEX64 ||
               w == EM_COMPLEX128;
    return xok && cok && wok;
}

/* The add helpers: em_sadd on the shared accumulators, em_gadd on out. */
static void em__adds(const em_dialect *d, em_dtype w, em_sbuf *t) {
    bool cuda = d->id == EM_DIALECT_CUDA;
    if (w == EM_NDTYPES) {
        em_sbuf_printf(t, "typedef unsigned int EM_S;\ntypedef ${ull} EM_G;\n");
        if (cuda)
            em_sbuf_printf(t, "EM_D void em_sadd(EM_S *q, EM_S v) { atomicAdd(q, v); }\n"
                              "EM_D void em_gadd(EM_G *q, EM_G v) { atomicAdd(q, v); }\n");
        else
            em_sbuf_printf(t, "EM_D void em_sadd(__local EM_S *q, EM_S v) {\n"
                              "    atomic_add((volatile __local uint *)q, v);\n}\n"
                              "EM_D void em_gadd(__global EM_G *q, EM_G v) {\n"
                              "    atom_add((volatile __global ulong *)q, v);\n}\n");
        return;
    }
    bool f64 = w == EM_FLOAT64 || w == EM_COMPLEX128;
    const char *T = f64 ? "double" : "float";
    em_sbuf_printf(t, "typedef %s EM_S;\ntypedef %s EM_G;\n", T, T);
    if (cuda) {
        em_sbuf_printf(t, "EM_D void em_add_any(EM_S *q, EM_S v) {\n");
        if (f64)
            em_sbuf_printf(t, "#if __CUDA_ARCH__ >= 600\n    atomicAdd(q, v);\n#else\n"
                              "    unsigned long long *b = (unsigned long long *)q, old = *b, "
                              "seen;\n    do {\n        seen = old;\n"
                              "        old = atomicCAS(b, seen, (unsigned long long)"
                              "__double_as_longlong(__longlong_as_double(seen) + v));\n"
                              "    } while (old != seen);\n#endif\n}\n");
        else
            em_sbuf_printf(t, "    atomicAdd(q, v);\n}\n");
        em_sbuf_printf(t, "EM_D void em_sadd(EM_S *q, EM_S v) { em_add_any(q, v); }\n"
                          "EM_D void em_gadd(EM_G *q, EM_G v) { em_add_any(q, v); }\n");
        return;
    }
    /* OpenCL: a compare-and-swap loop per address space */
    const char *B = f64 ? "ulong" : "uint", *cas = f64 ? "atom_cmpxchg" : "atomic_cmpxchg";
    const char *tb = f64 ? "as_ulong" : "as_uint", *fb = f64 ? "as_double" : "as_float";
    const char *sp[2] = {"__local", "__global"}, *nm[2] = {"em_sadd", "em_gadd"};
    for (int i = 0; i < 2; i++)
        em_sbuf_printf(t,
                       "EM_D void %s(%s EM_S *q, EM_S v) {\n"
                       "    volatile %s %s *b = (volatile %s %s *)q;\n"
                       "    %s old = *b, seen;\n    do {\n        seen = old;\n"
                       "        old = %s(b, seen, %s(%s(seen) + v));\n"
                       "    } while (old != seen);\n}\n",
                       nm[i], sp[i], sp[i], B, sp[i], B, B, cas, tb, fb);
}

/* The statements finding dimension dd's bin of sample i into bin (or
 * continuing the sample loop when it falls outside). */
static void em__dim(const em_hist_kernel *k, int dd, em_sbuf *t) {
    em_sbuf_printf(t, "        {\n            const ${ll} nb = p.nb[%d];\n", dd);
#define EM__XI "xv[u][%d]"
    if (k->mode[dd] == EM_HIST_COUNT) {
        em_sbuf_printf(t, "            const ${ll} b = (${ll})" EM__XI ";\n", dd);
        em_sbuf_printf(t, "            if (b < 0 || b >= nb) continue;\n"
                          "            bin = bin * nb + b;\n        }\n");
        return;
    }
    em_sbuf_printf(t, "            const EM_C v = (EM_C)" EM__XI ";\n", dd);
    em_sbuf_printf(t,
                   "            EM_E const EM_C *e = EM_EB + p.eoff[%d];\n"
                   "            if (!(v >= e[0] && v <= e[nb])) continue;\n",
                   dd);
    if (k->mode[dd] == EM_HIST_UNIFORM) {
        /* the estimate, clamped before any conversion, then walked to the
         * exact bin: e[b] <= v < e[b + 1], the last bin closed */
        em_sbuf_printf(t,
                       "            const EM_F f = ((EM_F)v - (EM_F)p.lo[%d]) *\n"
                       "                           (EM_F)p.scale[%d];\n"
                       "            ${ll} b = f < (EM_F)1 ? 0 : f >= (EM_F)nb ? nb - 1 : "
                       "(${ll})f;\n"
                       "            while (b > 0 && v < e[b]) b--;\n"
                       "            while (b < nb - 1 && v >= e[b + 1]) b++;\n",
                       dd, dd);
    } else {
        /* the last b in [0, nb) with e[b] <= v: e[b] <= v holds and the
         * answer is in [b, b + len), branch-free */
        em_sbuf_printf(t, "            ${ll} b = 0;\n"
                          "            for (${ll} len = nb; len > 1;) {\n"
                          "                const ${ll} h = len >> 1;\n"
                          "                b = e[b + h] <= v ? b + h : b;\n"
                          "                len -= h;\n"
                          "            }\n");
    }
    em_sbuf_printf(t, "            bin = bin * nb + b;\n        }\n");
}

/* The one-dimension count kernel's statements for one sample X: its bin
 * in 32-bit arithmetic (the bins fit in shared memory), the range's ends
 * held in registers, then one shared atomic. */
static void em__one(const em_hist_kernel *k, const char *X, em_sbuf *t) {
    if (k->mode[0] == EM_HIST_COUNT) {
        em_sbuf_printf(t,
                       "            { const ${ll} b = (${ll})(%s);\n"
                       "              if (b >= 0 && b < nb) em_sadd(hs + (int)b, 1); }\n",
                       X);
        return;
    }
    em_sbuf_printf(t,
                   "            { const EM_C v = (EM_C)(%s);\n"
                   "              if (v >= e0 && v <= eN) {\n",
                   X);
    if (k->mode[0] == EM_HIST_UNIFORM)
        em_sbuf_printf(
            t, "                const EM_F f = ((EM_F)v - lo) * sc;\n"
               "                int b = f < (EM_F)1 ? 0 : f >= (EM_F)nb ? nb - 1 : (int)f;\n"
               "                while (b > 0 && v < EM_EB[b]) b--;\n"
               "                while (b < nb - 1 && v >= EM_EB[b + 1]) b++;\n");
    else
        em_sbuf_printf(t, "                int b = 0;\n"
                          "                for (int len = nb; len > 1;) {\n"
                          "                    const int h = len >> 1;\n"
                          "                    b = EM_EB[b + h] <= v ? b + h : b;\n"
                          "                    len -= h;\n"
                          "                }\n");
    em_sbuf_printf(t, "                em_sadd(hs + b, 1);\n              } }\n");
}

/* The one-dimension count kernel's sample loops: on CUDA, where x is
 * 16-byte aligned, EM_U vectors of 16 bytes a thread, all loaded before
 * any is binned (so they are in flight together); then (the tail, or all
 * of x elsewhere) EM_U scalars a thread, loaded first likewise. */
static void em__fast(const em_dialect *d, const em_hist_kernel *k, em_sbuf *t) {
    em_sbuf_printf(t, "    const int nb = (int)p.nb[0];\n");
    if (k->mode[0] != EM_HIST_COUNT)
        em_sbuf_printf(t, "    const EM_C e0 = EM_EB[0], eN = EM_EB[nb];\n");
    if (k->mode[0] == EM_HIST_UNIFORM)
        em_sbuf_printf(t, "    const EM_F lo = (EM_F)p.lo[0], sc = (EM_F)p.scale[0];\n");
    em_sbuf_printf(t, "#define EM_U 4\n"
                      "    const ${ll} step = (${ll})${bdim} * ${gdim} * EM_U;\n"
                      "    ${ll} nv = 0; /* 16-byte vectors taken by the vector loop */\n");
    if (d->id == EM_DIALECT_CUDA) {
        em_sbuf_printf(t, "#define EM_V (16 / (int)sizeof(EM_X))\n"
                          "    if (((unsigned long long)p.x & 15) == 0) nv = p.n / EM_V;\n"
                          "    const uint4 *xq = (const uint4 *)p.x;\n"
                          "    for (${ll} j0 = ${bid} * (${ll})${bdim} * EM_U + ${tid}; j0 < nv;"
                          " j0 += step) {\n"
                          "        uint4 q[EM_U];\n"
                          "#pragma unroll\n"
                          "        for (int u = 0; u < EM_U; u++) {\n"
                          "            const ${ll} j = j0 + (${ll})u * ${bdim};\n"
                          "            q[u] = j < nv ? xq[j] : make_uint4(0u, 0u, 0u, 0u);\n"
                          "        }\n"
                          "#pragma unroll\n"
                          "        for (int u = 0; u < EM_U; u++) {\n"
                          "            if (j0 + (${ll})u * ${bdim} >= nv) break;\n"
                          "            union { uint4 q; EM_X v[EM_V]; } c;\n"
                          "            c.q = q[u];\n"
                          "#pragma unroll\n"
                          "            for (int s = 0; s < EM_V; s++)\n");
        em__one(k, "c.v[s]", t);
        em_sbuf_printf(t, "        }\n    }\n    nv *= EM_V;\n");
    }
    em_sbuf_printf(t, "    ${global}const EM_X *xs = (${global}const EM_X *)p.x;\n"
                      "    for (${ll} i0 = nv + ${bid} * (${ll})${bdim} * EM_U + ${tid}; i0 < p.n;"
                      " i0 += step) {\n"
                      "        EM_X xv[EM_U];\n"
                      "        for (int u = 0; u < EM_U; u++) {\n"
                      "            const ${ll} i = i0 + (${ll})u * ${bdim};\n"
                      "            if (i < p.n) xv[u] = xs[i];\n"
                      "        }\n"
                      "        for (int u = 0; u < EM_U; u++) {\n"
                      "            if (i0 + (${ll})u * ${bdim} >= p.n) break;\n");
    em__one(k, "xv[u]", t);
    em_sbuf_printf(t, "        }\n    }\n");
}

em_status em_render_histogram(const em_dialect *d, const em_hist_kernel *k, em_sbuf *out) {
    if (d->id != EM_DIALECT_CUDA && d->id != EM_DIALECT_OPENCL)
        return em_error(EM_EUNSUPPORTED, "the histogram kernels are not rendered for %s", d->name);
    if (!em_hist_dtypes_ok(k->x, k->c, k->w) || k->ndim < 1 || k->ndim > EM_HIST_MAXDIM)
        return em_error(EM_EUNSUPPORTED, "no histogram kernel of %s samples in %s",
                        em_dtype_get(k->x)->name, em_dtype_get(k->c)->name);
    bool edges = false;
    for (int i = 0; i < k->ndim; i++) {
        if (k->mode[i] > EM_HIST_EDGES)
            return em_error(EM_EUNSUPPORTED, "histogram: unknown bin mode %d", k->mode[i]);
        if (k->mode[i] == EM_HIST_COUNT && !em__int(k->x))
            return em_error(EM_EUNSUPPORTED, "histogram: counting bins of %s values",
                            em_dtype_get(k->x)->name);
        edges |= k->mode[i] != EM_HIST_COUNT;
    }
    if (k->fast && (k->ndim != 1 || k->w != EM_NDTYPES || k->cap <= 0))
        return em_error(EM_EUNSUPPORTED, "histogram: the fast kernel counts one dimension "
                                         "into shared bins");
    int nc = k->w == EM_COMPLEX64 || k->w == EM_COMPLEX128 ? 2 : 1;
    enum { M = EM_HIST_MAXDIM };
    em_tfield f[10] = {{'p', "out", 0, 0, NULL}, {'p', "x", 0, 0, NULL},
                       {'p', "e", 0, 0, NULL},   {'p', "w", 0, 0, NULL},
                       {'i', "n", 0, 0, NULL},   {'i', "nbin", 0, 0, NULL},
                       {'i', "nb", M, 0, NULL},  {'i', "eoff", M, 0, NULL},
                       {'d', "lo", M, 0, NULL},  {'d', "scale", M, 0, NULL}};
    em_sbuf t = {0};
    em_sbuf_printf(out, "%s\n", d->prelude);
    if (d->id == EM_DIALECT_OPENCL)
        em_sbuf_printf(&t, "#pragma OPENCL EXTENSION cl_khr_int64_base_atomics : enable\n");
    em_sbuf_printf(&t, "typedef %s EM_X;\ntypedef %s EM_C;\n#define EM_ND %d\n#define EM_NC %d\n",
                   em_tmpl_stype(d, k->x), em_tmpl_stype(d, k->c), k->ndim, nc);
    /* the estimate's arithmetic: float for float32 edges, else double (OpenCL: em_fd) */
    em_sbuf_printf(&t, "typedef %s EM_F;\n", k->c == EM_FLOAT32 ? "float" : "${fd}");
    em__adds(d, k->w, &t);
    if (d->id == EM_DIALECT_CUDA) {
        em_sbuf_printf(&t,
                       "struct em_args {\n    char *out;\n    const char *x, *e, *w;\n"
                       "    long long n, nbin;\n    long long nb[%d], eoff[%d];\n"
                       "    double lo[%d], scale[%d];\n};\n",
                       M, M, M, M);
    } else {
        em_tmpl_args_types(d, f, 10, &t);
    }
    em_sbuf_printf(&t, "${kernel(256)} " EM_KNAME "(${params}) {\n${prologue}");
    bool sh = k->cap > 0;
    if (sh) {
        em_sbuf_printf(&t,
                       "    ${shared} EM_S sh[%lld];\n"
                       "    for (int i = ${tid}; i < %lld; i += ${bdim}) sh[i] = 0;\n"
                       "    ${local}EM_S *hs = sh + (${tid} / 32 %% %d) * %lld;\n",
                       (long long)(k->cap * k->reps * nc), (long long)(k->cap * k->reps * nc),
                       k->reps, (long long)(k->cap * nc));
    }
    if (edges && k->ecap > 0) {
        em_sbuf_printf(&t,
                       "    ${shared} EM_C se[%lld];\n"
                       "    for (int i = ${tid}; i < %lld; i += ${bdim})\n"
                       "        se[i] = ((${global}const EM_C *)p.e)[i];\n"
                       "#define EM_E ${local}\n#define EM_EB se\n",
                       (long long)k->ecap, (long long)k->ecap);
    } else if (edges) {
        em_sbuf_printf(&t, "#define EM_E ${global}\n#define EM_EB ((${global}const EM_C *)p.e)\n");
    }
    if (sh || (edges && k->ecap > 0)) em_sbuf_printf(&t, "    ${sync};\n");
    /* EM_U samples a thread: their loads first, each coalesced across the
     * block, so that several are in flight before the atomics */
    if (k->fast) {
        em__fast(d, k, &t);
    } else {
        em_sbuf_printf(
            &t, "#define EM_U 4\n"
                "    const ${ll} step = (${ll})${bdim} * ${gdim} * EM_U;\n"
                "    for (${ll} i0 = ${bid} * (${ll})${bdim} * EM_U + ${tid}; i0 < p.n;"
                " i0 += step) {\n"
                "        EM_X xv[EM_U][EM_ND];\n"
                "        for (int u = 0; u < EM_U; u++) {\n"
                "            const ${ll} i = i0 + (${ll})u * ${bdim};\n"
                "            if (i < p.n)\n"
                "                for (int dd = 0; dd < EM_ND; dd++)\n"
                "                    xv[u][dd] = ((${global}const EM_X *)p.x)[i * EM_ND + dd];\n"
                "        }\n"
                "        for (int u = 0; u < EM_U; u++) {\n"
                "        const ${ll} i = i0 + (${ll})u * ${bdim};\n"
                "        if (i >= p.n) break;\n"
                "        ${ll} bin = 0;\n");
        for (int i = 0; i < k->ndim; i++) em__dim(k, i, &t);
        const char *acc = sh ? "em_sadd(hs + " : "em_gadd((${global}EM_G *)p.out + ";
        if (k->w == EM_NDTYPES) {
            em_sbuf_printf(&t, "        %sbin, 1);\n", acc);
        } else {
            em_sbuf_printf(
                &t,
                "        ${global}const EM_S *wv = (${global}const EM_S *)p.w + i * EM_NC;\n"
                "        for (int c = 0; c < EM_NC; c++) %sbin * EM_NC + c, wv[c]);\n",
                acc);
        }
        em_sbuf_printf(&t, "        }\n    }\n");
    }
    if (sh) {
        /* the replicas summed in a fixed order, one global atomic per bin */
        em_sbuf_printf(&t,
                       "    ${sync};\n"
                       "    for (${ll} i = ${tid}; i < p.nbin * EM_NC; i += ${bdim}) {\n"
                       "        EM_S s = sh[i];\n"
                       "        for (int r = 1; r < %d; r++) s += sh[r * %lld + i];\n"
                       "        if (s != 0) em_gadd((${global}EM_G *)p.out + i, (EM_G)s);\n"
                       "    }\n",
                       k->reps, (long long)(k->cap * nc));
    }
    em_sbuf_printf(&t, "}\n");
    return em_tmpl_finish(d, f, 10, &t, NULL, out);
}
