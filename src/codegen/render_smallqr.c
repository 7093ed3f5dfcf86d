/* The small-matrix QR kernel (render_smallqr.h): one template (codegen/tmpl.h)
 * for CUDA and OpenCL. */
#include "codegen/render_smallqr.h"
#include "codegen/render_smallla.h"
#include "codegen/tmpl.h"

/* Static shared memory a block keeps under (as render_smallla.c's). */
#define EM__SQR_SHARED (44 * 1024)
/* The threads a block aims at: a thread a column, so 8 x 8 matrices go
 * eight a block. */
#define EM__SQR_THREADS 64

static int em__sqr_isz(em_dtype dt) {
    switch (dt) {
    case EM_FLOAT32: return 4;
    case EM_FLOAT64:
    case EM_COMPLEX64: return 8;
    case EM_COMPLEX128: return 16;
    default: return 0;
    }
}

int em_sqr_per_block(const em_sqr_spec *k) {
    const int cap = k->cap, one = (2 * cap * cap + cap) * em__sqr_isz(k->dtype);
    int per = EM__SQR_THREADS / cap;
    while (per > 1 && per * one > EM__SQR_SHARED) per /= 2;
    return per < 1 ? 1 : per;
}

static int em__fields(em_tfield *f) {
    static const char *const ptrs[] = {"a", "q", "r", "tau"};
    int n = 0;
    for (int i = 0; i < 4; i++) f[n++] = (em_tfield){'p', ptrs[i], 0, 0, NULL};
    static const char *const ints[] = {"m", "n", "batch", "mode"};
    for (int i = 0; i < 4; i++) f[n++] = (em_tfield){'i', ints[i], 0, 0, NULL};
    return n;
}

/* larfg for column j (rows j..m-1) by the thread that owns it: |x| scaled
 * by its largest component as nrm2 does (no overflow of the squares; a NaN
 * propagates through the scale), tau = 0 where x is zero and a_jj real. */
static const char em__reflect[] =
    "#if EM_SQR_CPLX\n"
    "EM_D em_r qr_im(em_t a) { return a.im; }\n"
    "EM_D em_t qr_cx(em_r re, em_r im) { return la_mk(re, im); }\n"
    "EM_D em_r qr_amax(em_t a) {\n"
    "    const em_r r = a.re < 0 ? -a.re : a.re, i = a.im < 0 ? -a.im : a.im;\n"
    "    return r < i ? i : r;\n}\n"
    "EM_D em_r qr_abs2(em_t a) { return a.re * a.re + a.im * a.im; }\n"
    "#else\n"
    "EM_D em_r qr_im(em_t a) { return 0; }\n"
    "EM_D em_t qr_cx(em_r re, em_r im) { return re; }\n"
    "EM_D em_r qr_amax(em_t a) { return a < 0 ? -a : a; }\n"
    "EM_D em_r qr_abs2(em_t a) { return a * a; }\n"
    "#endif\n"
    "EM_D void qr_reflect(${local}em_t *A, ${local}em_t *T, int j, int m) {\n"
    "    const em_t al = A[j * EM_CAP + j];\n"
    "    em_r sc = 0;\n"
    "    for (int i = j + 1; i < m; i++) {\n"
    "        const em_r u = qr_amax(A[i * EM_CAP + j]);\n"
    "        if (!(u <= sc)) sc = u;\n"
    "    }\n"
    "    em_r xn = 0;\n"
    "    if (sc != 0) {\n"
    "        em_r s = 0;\n"
    "        const em_r inv = 1 / sc;\n"
    "        for (int i = j + 1; i < m; i++) s += qr_abs2(la_scale(inv, A[i * EM_CAP + j]));\n"
    "        xn = sc * sqrt(s);\n"
    "    }\n"
    "    const em_r ar = la_real(al), ai = qr_im(al);\n"
    "    if (xn == 0 && ai == 0) {\n"
    "        T[j] = la_re(0);\n"
    "        return;\n"
    "    }\n"
    "    const em_r beta = -copysign(hypot(hypot(ar, ai), xn), ar);\n"
    "    T[j] = qr_cx((beta - ar) / beta, -ai / beta);\n"
    "    const em_t s = la_div(la_re(1), la_sub(al, la_re(beta)));\n"
    "    for (int i = j + 1; i < m; i++) A[i * EM_CAP + j] = la_mul(s, A[i * EM_CAP + j]);\n"
    "    A[j * EM_CAP + j] = la_re(beta);\n"
    "}\n";

/* EM_P matrices a block, EM_CAP threads each (thread c owns column c of A,
 * then of Q).  A team past the stack's end still meets every barrier. */
static const char em__qr[] =
    "#define EM_MS (2 * EM_CAP * EM_CAP + EM_CAP)\n"
    "${kernel(EM_NT)} " EM_KNAME "(${params}) {\n${prologue}"
    "    ${shared} em_t S[EM_P * EM_MS];\n"
    "    const int m = (int)p.m, n = (int)p.n, mode = (int)p.mode, k = m < n ? m : n;\n"
    "    const int tid = (int)${tid}, c = tid % EM_CAP, team = tid / EM_CAP;\n"
    "    ${local}em_t *A = S + team * EM_MS;\n"
    "    ${local}em_t *Q = A + EM_CAP * EM_CAP;\n"
    "    ${local}em_t *T = Q + EM_CAP * EM_CAP;\n"
    "    for (${ll} g = ${bid}; g * EM_P < p.batch; g += ${gdim}) {\n"
    "        const ${ll} mat = g * EM_P + team;\n"
    "        const int live = mat < p.batch;\n"
    "        if (live && c < n) {\n"
    "            ${global}const em_t *a = (${global}const em_t *)p.a + mat * m * n;\n"
    "            for (int i = 0; i < m; i++) A[i * EM_CAP + c] = a[i * n + c];\n"
    "            if (c == 0) qr_reflect(A, T, 0, m);\n"
    "        }\n"
    "        ${sync};\n"
    "        for (int j = 0; j < k; j++) {\n"
    "            if (live && c > j && c < n) {\n"
    "                em_t w = A[j * EM_CAP + c];\n"
    "                for (int i = j + 1; i < m; i++)\n"
    "                    w = la_add(w, la_mul(la_conj(A[i * EM_CAP + j]), A[i * EM_CAP + c]));\n"
    "                const em_t f = la_mul(la_conj(T[j]), w);\n"
    "                A[j * EM_CAP + c] = la_sub(A[j * EM_CAP + c], f);\n"
    "                for (int i = j + 1; i < m; i++)\n"
    "                    A[i * EM_CAP + c] = la_fms(A[i * EM_CAP + c], A[i * EM_CAP + j], f);\n"
    "                if (c == j + 1 && c < k) qr_reflect(A, T, c, m);\n"
    "            }\n"
    "            ${sync};\n"
    "        }\n"
    "        if (live && mode == EM_SQR_RAW) {\n"
    "            ${global}em_t *h = (${global}em_t *)p.q + mat * n * m;\n"
    "            if (c < m)\n"
    "                for (int j = 0; j < n; j++) h[j * m + c] = A[c * EM_CAP + j];\n"
    "            if (c < k) ((${global}em_t *)p.tau)[mat * k + c] = T[c];\n"
    "        } else if (live) {\n"
    "            const int rr = mode == EM_SQR_COMPLETE ? m : k;\n"
    "            ${global}em_t *r = (${global}em_t *)p.r + mat * rr * n;\n"
    "            if (c < n)\n"
    "                for (int i = 0; i < rr; i++) r[i * n + c] = i <= c ? A[i * EM_CAP + c] : la_re(0);\n"
    /* Q's column c is e_c until H_c reaches it (H_j touches rows j.. only) */
    "            const int nc = mode == EM_SQR_COMPLETE ? m : k;\n"
    "            if (mode != EM_SQR_R && c < nc) {\n"
    "                for (int i = 0; i < m; i++) Q[i * EM_CAP + c] = la_re(i == c ? 1 : 0);\n"
    "                for (int j = c < k ? c : k - 1; j >= 0; j--) {\n"
    "                    em_t w = Q[j * EM_CAP + c];\n"
    "                    for (int i = j + 1; i < m; i++)\n"
    "                        w = la_add(w, la_mul(la_conj(A[i * EM_CAP + j]), Q[i * EM_CAP + c]));\n"
    "                    const em_t f = la_mul(T[j], w);\n"
    "                    Q[j * EM_CAP + c] = la_sub(Q[j * EM_CAP + c], f);\n"
    "                    for (int i = j + 1; i < m; i++)\n"
    "                        Q[i * EM_CAP + c] = la_fms(Q[i * EM_CAP + c], A[i * EM_CAP + j], f);\n"
    "                }\n"
    "                ${global}em_t *q = (${global}em_t *)p.q + mat * m * nc;\n"
    "                for (int i = 0; i < m; i++) q[i * nc + c] = Q[i * EM_CAP + c];\n"
    "            }\n"
    "        }\n"
    "        ${sync};\n"
    "    }\n}\n";

em_status em_render_smallqr(const em_dialect *d, const em_sqr_spec *k, em_sbuf *out) {
    if (!d->kernel || d->id == EM_DIALECT_C)
        return em_error(EM_EUNSUPPORTED, "the small qr kernel is not rendered for %s", d->name);
    const bool cplx = k->dtype == EM_COMPLEX64 || k->dtype == EM_COMPLEX128;
    const bool f64 = k->dtype == EM_FLOAT64 || k->dtype == EM_COMPLEX128;
    if (!em__sqr_isz(k->dtype) || (k->cap != 8 && k->cap != 16 && k->cap != 32) ||
        (f64 && !d->has_fp64))
        return em_error(EM_EUNSUPPORTED, "no small qr kernel for %s at m, n <= %d",
                        em_dtype_get(k->dtype)->name, k->cap);
    const int per = em_sqr_per_block(k);
    em_sbuf t = {0};
    em_tfield f[8];
    int nf = em__fields(f);
    em_sbuf_printf(out, "%s\n", d->prelude);
    em_sbuf_printf(&t,
                   "typedef %s em_t;\ntypedef %s em_r;\n#define EM_CAP %d\n#define EM_P %d\n"
                   "#define EM_NT %d\n#define EM_SQR_CPLX %d\n#define EM_SQR_COMPLETE %d\n"
                   "#define EM_SQR_R %d\n#define EM_SQR_RAW %d\n",
                   em_tmpl_stype(d, k->dtype), f64 ? "double" : "float", k->cap, per, per * k->cap,
                   cplx ? 1 : 0, EM_SQR_COMPLETE, EM_SQR_R, EM_SQR_RAW);
    if (d->args_struct)
        em_sbuf_printf(&t, "struct em_args {\n    char *a, *q, *r, *tau;\n"
                           "    long long m, n, batch, mode;\n};\n");
    else
        em_tmpl_args_types(d, f, nf, &t);
    em_sbuf_printf(&t, "%s%s%s", cplx ? em_sla_complex_ops : em_sla_real_ops, em__reflect, em__qr);
    return em_tmpl_finish(d, f, nf, &t, NULL, out);
}
