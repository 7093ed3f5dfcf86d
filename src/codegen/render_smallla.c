/* The small-matrix LU kernel (render_smallla.h): one template (codegen/tmpl.h)
 * for CUDA and OpenCL. */
#include "codegen/render_smallla.h"
#include "codegen/tmpl.h"

/* Static shared memory the kernel keeps under (48 KiB is CUDA's static
 * limit and NVIDIA OpenCL's local memory; a little is left for the ints). */
#define EM__SLA_SHARED (44 * 1024)

int em_sla_maxn(em_dtype dtype) {
    switch (dtype) {
    case EM_FLOAT32:
    case EM_FLOAT64:
    case EM_COMPLEX64: return 64;
    case EM_COMPLEX128: return 32; /* 64 x 65 x 16 bytes is past the limit */
    default: return 0;
    }
}

int em_sla_cap(int n) { return n <= 8 ? 8 : n <= 16 ? 16 : n <= 32 ? 32 : 64; }

int em_sla_threads(int cap) { return cap <= 16 ? 64 : cap == 32 ? 128 : 256; }

static int em__fields(em_tfield *f) {
    static const char *const ptrs[] = {"a", "b", "x", "info"};
    int n = 0;
    for (int i = 0; i < 4; i++) f[n++] = (em_tfield){'p', ptrs[i], 0, 0, NULL};
    f[n++] = (em_tfield){'i', "n", 0, 0, NULL};
    f[n++] = (em_tfield){'i', "k", 0, 0, NULL};
    f[n++] = (em_tfield){'i', "batch", 0, 0, NULL};
    f[n++] = (em_tfield){'i', "mode", 0, 0, NULL};
    return n;
}

/* The arithmetic on em_t (the storage type) with em_r its real part. */
const char em_sla_real_ops[] = "EM_D em_t la_re(em_r v) { return v; }\n"
                               "EM_D em_r la_real(em_t a) { return a; }\n"
                               "EM_D em_t la_conj(em_t a) { return a; }\n"
                               "EM_D em_r la_abs(em_t a) { return a < 0 ? -a : a; }\n"
                               "EM_D em_t la_scale(em_r s, em_t a) { return s * a; }\n"
                               "EM_D em_t la_sub(em_t a, em_t b) { return a - b; }\n"
                               "EM_D em_t la_add(em_t a, em_t b) { return a + b; }\n"
                               "EM_D em_t la_neg(em_t a) { return -a; }\n"
                               "EM_D em_t la_mul(em_t a, em_t b) { return a * b; }\n"
                               "EM_D em_t la_div(em_t a, em_t b) { return a / b; }\n"
                               "EM_D em_t la_fms(em_t c, em_t a, em_t b) { return c - a * b; }\n"
                               "EM_D em_r la_abs1(em_t a) { return a < 0 ? -a : a; }\n"
                               "EM_D int la_iszero(em_t a) { return a == 0; }\n";

/* Complex: |re| + |im| is LAPACK's pivot measure (i?amax's cabs1); the
 * division is Smith's (no overflow of |b|^2 for large b). */
const char em_sla_complex_ops[] =
    "EM_D em_t la_mk(em_r re, em_r im) { em_t z; z.re = re; z.im = im; return z; }\n"
    "EM_D em_t la_re(em_r v) { return la_mk(v, 0); }\n"
    "EM_D em_r la_real(em_t a) { return a.re; }\n"
    "EM_D em_t la_conj(em_t a) { return la_mk(a.re, -a.im); }\n"
    "EM_D em_r la_abs(em_t a) { return hypot(a.re, a.im); }\n"
    "EM_D em_t la_scale(em_r s, em_t a) { return la_mk(s * a.re, s * a.im); }\n"
    "EM_D em_t la_sub(em_t a, em_t b) { return la_mk(a.re - b.re, a.im - b.im); }\n"
    "EM_D em_t la_add(em_t a, em_t b) { return la_mk(a.re + b.re, a.im + b.im); }\n"
    "EM_D em_t la_neg(em_t a) { return la_mk(-a.re, -a.im); }\n"
    "EM_D em_t la_mul(em_t a, em_t b) {\n"
    "    return la_mk(a.re * b.re - a.im * b.im, a.re * b.im + a.im * b.re);\n}\n"
    "EM_D em_t la_div(em_t a, em_t b) {\n"
    "    const em_r ar = b.re < 0 ? -b.re : b.re, ai = b.im < 0 ? -b.im : b.im;\n"
    "    if (ar >= ai) {\n"
    "        const em_r r = b.im / b.re, d = b.re + b.im * r;\n"
    "        return la_mk((a.re + a.im * r) / d, (a.im - a.re * r) / d);\n"
    "    }\n"
    "    const em_r r = b.re / b.im, d = b.im + b.re * r;\n"
    "    return la_mk((a.re * r + a.im) / d, (a.im * r - a.re) / d);\n}\n"
    "EM_D em_t la_fms(em_t c, em_t a, em_t b) {\n"
    "    const em_t t = la_mul(a, b);\n    return la_mk(c.re - t.re, c.im - t.im);\n}\n"
    "EM_D em_r la_abs1(em_t a) {\n"
    "    return (a.re < 0 ? -a.re : a.re) + (a.im < 0 ? -a.im : a.im);\n}\n"
    "EM_D int la_iszero(em_t a) { return a.re == 0 && a.im == 0; }\n";

/* The pivot of column j: the first largest la_abs1 of rows j..n-1, into
 * s_piv (and ipiv[j], info), by the EM_NS threads below EM_NS, which then
 * do EM_SLA_ROWP(bi) (inv: copy the pivot row; LU: nothing). */
static const char em__pivot_warp[] =
    "            if (tid < 32) {\n"
    "                em_r bv = -1;\n                int bi = j;\n"
    "                for (int i = j + tid; i < n; i += 32) {\n"
    "                    const em_r v = la_abs1(A[i * EM_LD + j]);\n"
    "                    if (v > bv) { bv = v; bi = i; }\n"
    "                }\n"
    "                for (int o = 16; o > 0; o >>= 1) {\n"
    "                    const em_r ov = __shfl_xor_sync(0xffffffffu, bv, o);\n"
    "                    const int oi = __shfl_xor_sync(0xffffffffu, bi, o);\n"
    "                    if (ov > bv || (ov == bv && oi < bi)) { bv = ov; bi = oi; }\n"
    "                }\n"
    "                if (tid == 0) EM_SLA_PIVOT(bi);\n"
    "                EM_SLA_ROWP(bi);\n"
    "            }\n";

static const char em__pivot_serial[] =
    "            if (tid == 0) {\n"
    "                em_r bv = -1;\n                int bi = j;\n"
    "                for (int i = j; i < n; i++) {\n"
    "                    const em_r v = la_abs1(A[i * EM_LD + j]);\n"
    "                    if (v > bv) { bv = v; bi = i; }\n"
    "                }\n"
    "                EM_SLA_PIVOT(bi);\n"
    "                EM_SLA_ROWP(bi);\n"
    "            }\n";

static const char em__lu_head[] =
    "${kernel(EM_NT)} " EM_KNAME "(${params}) {\n${prologue}"
    "    ${shared} em_t A[EM_CAP * EM_LD];\n"
    "    ${shared} em_t X[EM_CAP * EM_KS];\n"
    "    ${shared} int ipiv[EM_CAP], perm[EM_CAP];\n"
    "    ${shared} int s_piv, s_info;\n"
    "    const int n = (int)p.n, tid = (int)${tid};\n"
    /* a thread a column (tc) and every EM_NR-th row from tr: EM_CAP and EM_NT are
     * powers of two, so no runtime division indexes an element (e / n, e % n
     * cost more than the update's arithmetic) */
    "    const int tc = tid % EM_CAP, tr = tid / EM_CAP;\n"
    "    const ${ll} k = p.k;\n"
    "    const int mode = EM_SLA_MODE;\n"
    "    (void)X, (void)perm, (void)k, (void)mode;\n"
    "#define EM_SLA_PIVOT(bi) do { s_piv = (bi); ipiv[j] = (bi); \\\n"
    "        if (la_iszero(A[(bi) * EM_LD + j]) && !s_info) s_info = j + 1; } while (0)\n"
    "    for (${ll} mat = ${bid}; mat < p.batch; mat += ${gdim}) {\n"
    "        ${global}const em_t *a = (${global}const em_t *)p.a + mat * n * n;\n"
    "        if (tc < n)\n"
    "            for (int i = tr; i < n; i += EM_NR) A[i * EM_LD + tc] = a[i * n + tc];\n"
    "        if (tid == 0) s_info = 0;\n"
    "        ${sync};\n";

/* inv by Gauss-Jordan in place (the inverse overwrites A, so no right-hand
 * side needs shared memory: 64 x 64 float64 fits whole), LAPACK's pivots,
 * two barriers a column: the pivot threads find row pv and copy it (rowp)
 * while the others copy column j (col) and row j (rowj); then each thread
 * writes its column's elements of every EM_NR-th row at once from those
 * copies: row j becomes row pv scaled by the pivot's reciprocal (a_jj
 * 1 / pivot), row pv becomes old row j less its multiple of the new row j,
 * every other row less its own (a_ij becoming -col_i / pivot), so no swap
 * and no scaling needs a barrier of its own.  The row swaps of
 * (P A)^-1 = A^-1 P^-1 are undone as column swaps, last first, on the way
 * out. */
static const char em__gj_head[] =
    "        if (mode == EM_SLA_INV) {\n"
    "        ${local}em_t *col = X, *rowp = X + EM_CAP, *rowj = X + 2 * EM_CAP;\n"
    "#define EM_SLA_ROWP(bi) for (int c = tid; c < n; c += EM_NS) rowp[c] = A[(bi) * EM_LD + c]\n"
    "        for (int j = 0; j < n; j++) {\n";

static const char em__gj_tail[] =
    "            for (int i = tid - EM_NS; i >= 0 && i < n; i += EM_NT - EM_NS) {\n"
    "                col[i] = A[i * EM_LD + j];\n"
    "                rowj[i] = A[j * EM_LD + i];\n"
    "            }\n"
    "            ${sync};\n"
    "            const int pv = s_piv;\n"
    "            const em_t r = la_iszero(col[pv]) ? la_re(1) : la_div(la_re(1), col[pv]);\n"
    /* tc < n tested in the loop, not around it: an if holding the loop
     * miscompiled on PoCL (no row updated at all) */
    "            {\n"
    "                const int cc = tc < n ? tc : 0;\n"
    "                const em_t nj = la_mul(cc == j ? la_re(1) : rowp[cc], r), oj = rowj[cc];\n"
    "                for (int i = tr; tc < n && i < n; i += EM_NR) {\n"
    "                    if (i == j) {\n"
    "                        A[i * EM_LD + tc] = nj;\n"
    "                    } else {\n"
    "                        const em_t old = i == pv ? oj : A[i * EM_LD + tc];\n"
    "                        A[i * EM_LD + tc] = la_fms(tc == j ? la_re(0) : old, col[i == pv ? j : i], nj);\n"
    "                    }\n"
    "                }\n"
    "            }\n"
    "            ${sync};\n"
    "        }\n"
    "#undef EM_SLA_ROWP\n"
    "#define EM_SLA_ROWP(bi) (void)0\n"
    "        if (tid == 0) {\n"
    "            for (int c = 0; c < n; c++) perm[c] = c;\n"
    "            for (int j = n - 1; j >= 0; j--) {\n"
    "                const int q = ipiv[j], t = perm[j];\n"
    "                perm[j] = perm[q], perm[q] = t;\n"
    "            }\n"
    "            ((${global}int *)p.info)[mat] = s_info;\n"
    "        }\n"
    "        ${sync};\n"
    "        if (tc < n) {\n"
    "            const int pc = perm[tc];\n"
    "            for (int i = tr; i < n; i += EM_NR)\n"
    "                ((${global}em_t *)p.x)[mat * n * n + i * n + tc] = A[i * EM_LD + pc];\n"
    "        }\n"
    "        ${sync};\n"
    "        continue;\n"
    "        }\n"
    "        for (int j = 0; j < n; j++) {\n";

/* After the pivot: the other threads scale column j - 1 below its pivot
 * (its multipliers, the same products the update of step j - 1 used), then
 * the swap, then the trailing update with l = a_ij / a_jj. */
static const char em__lu_tail[] =
    "            if (j > 0 && tid >= EM_NS) {\n"
    "                const em_t d = A[(j - 1) * EM_LD + j - 1];\n"
    "                if (!la_iszero(d)) {\n"
    "                    const em_t r = la_div(la_re(1), d);\n"
    "                    for (int i = j + tid - EM_NS; i < n; i += EM_NT - EM_NS)\n"
    "                        A[i * EM_LD + j - 1] = la_mul(A[i * EM_LD + j - 1], r);\n"
    "                }\n"
    "            }\n"
    "            ${sync};\n"
    "            const int pv = s_piv;\n"
    "            if (pv != j)\n"
    "                for (int c = tid; c < n; c += EM_NT) {\n"
    "                    const em_t t = A[j * EM_LD + c];\n"
    "                    A[j * EM_LD + c] = A[pv * EM_LD + c];\n"
    "                    A[pv * EM_LD + c] = t;\n"
    "                }\n"
    "            ${sync};\n"
    "            {\n"
    "                const em_t d = A[j * EM_LD + j];\n"
    /* a zero pivot leaves its column unscaled (getf2), so l is a_ij */
    "                const em_t r = la_iszero(d) ? la_re(1) : la_div(la_re(1), d);\n"
    "                const int m = n - j - 1;\n"
    "                for (int e = tid; e < m * m; e += EM_NT) {\n"
    "                    const int i = j + 1 + e / m, c = j + 1 + e % m;\n"
    "                    const em_t l = la_mul(A[i * EM_LD + j], r);\n"
    "                    A[i * EM_LD + c] = la_fms(A[i * EM_LD + c], l, A[j * EM_LD + c]);\n"
    "                }\n"
    "            }\n"
    "            ${sync};\n"
    "        }\n";

/* Complex: NumPy's det is sign * exp(logdet) (umath_linalg), zero where
 * getrf reported a zero pivot, so a product past the range is inf there,
 * where the plain product's inf - inf gave NaN. */
static const char em__det[] =
    "        if (mode == EM_SLA_DET) {\n"
    "        if (tid == 0) {\n"
    "            em_t d = la_re(1);\n            int neg = 0;\n"
    "            for (int i = 0; i < n; i++) neg ^= ipiv[i] != i;\n"
    "#if EM_SLA_CPLX\n"
    "            em_r lg = 0;\n"
    "            for (int i = 0; i < n; i++) {\n"
    "                const em_t u = A[i * EM_LD + i];\n"
    "                const em_r au = la_abs(u);\n"
    "                d = la_mul(d, la_scale(1 / au, u));\n"
    "                lg += log(au);\n"
    "            }\n"
    "            d = s_info ? la_re(0) : la_mul(d, la_re(exp(lg)));\n"
    "#else\n"
    "            for (int i = 0; i < n; i++) d = la_mul(d, A[i * EM_LD + i]);\n"
    "#endif\n"
    "            ((${global}em_t *)p.x)[mat] = neg ? la_neg(d) : d;\n"
    "            ((${global}int *)p.info)[mat] = s_info;\n"
    "        }\n"
    "        ${sync};\n"
    "        continue;\n"
    "        }\n";

/* The right-hand sides EM_KS columns at a time: P b (or P's columns of the
 * identity), forward through the unit L, back through U with each row's
 * division made one step late (a step reads row j as b_j / u_jj and writes
 * only rows above it and row j + 1's final value), then stored. */
static const char em__solve[] =
    "        if (tid == 0) {\n"
    "            for (int i = 0; i < n; i++) perm[i] = i;\n"
    "            for (int i = 0; i < n; i++) {\n"
    "                const int q = ipiv[i], t = perm[i];\n"
    "                perm[i] = perm[q], perm[q] = t;\n"
    "            }\n"
    "            ((${global}int *)p.info)[mat] = s_info;\n"
    "        }\n"
    "        ${sync};\n"
    "        for (${ll} c0 = 0; c0 < k; c0 += EM_KS) {\n"
    "            const int kc = (int)(k - c0 < EM_KS ? k - c0 : EM_KS);\n"
    "            for (int e = tid; e < n * kc; e += EM_NT) {\n"
    "                const int i = e / kc, c = e % kc;\n"
    "                X[i * EM_KS + c] =\n"
    "((${global}const em_t *)p.b)[(mat * n + perm[i]) * k + c0 + c];\n"
    "            }\n"
    "            ${sync};\n"
    "            for (int j = 0; j + 1 < n; j++) {\n"
    "                const int m = n - j - 1;\n"
    "                for (int e = tid; e < m * kc; e += EM_NT) {\n"
    "                    const int i = j + 1 + e / kc, c = e % kc;\n"
    "                    X[i * EM_KS + c] =\n"
    "                        la_fms(X[i * EM_KS + c], A[i * EM_LD + j], X[j * EM_KS + c]);\n"
    "                }\n"
    "                ${sync};\n"
    "            }\n"
    "            for (int j = n - 1; j >= 0; j--) {\n"
    "                const int rows = j + 1 < n ? j + 2 : j + 1;\n"
    "                for (int e = tid; e < rows * kc; e += EM_NT) {\n"
    "                    const int i = e / kc, c = e % kc;\n"
    "                    if (i < j)\n"
    "                        X[i * EM_KS + c] = la_fms(X[i * EM_KS + c], A[i * EM_LD + j],\n"
    "                                                  la_div(X[j * EM_KS + c], A[j * EM_LD + j]));\n"
    "                    else if (i == j + 1)\n"
    "                        X[i * EM_KS + c] = la_div(X[i * EM_KS + c], A[i * EM_LD + i]);\n"
    "                }\n"
    "                ${sync};\n"
    "            }\n"
    "            for (int c = tid; c < kc; c += EM_NT) X[c] = la_div(X[c], A[0]);\n"
    "            ${sync};\n"
    "            for (int e = tid; e < n * kc; e += EM_NT) {\n"
    "                const int i = e / kc, c = e % kc;\n"
    "                ((${global}em_t *)p.x)[(mat * n + i) * k + c0 + c] = X[i * EM_KS + c];\n"
    "            }\n"
    "            ${sync};\n"
    "        }\n"
    "    }\n}\n";

em_status em_render_smallla(const em_dialect *d, const em_sla_spec *k, em_sbuf *out) {
    if (!d->kernel || d->id == EM_DIALECT_C)
        return em_error(EM_EUNSUPPORTED, "the small linalg kernel is not rendered for %s", d->name);
    bool eigh = k->mode == EM_SLA_EIGH;
    bool cplx = k->dtype == EM_COMPLEX64 || k->dtype == EM_COMPLEX128;
    bool f64 = k->dtype == EM_FLOAT64 || k->dtype == EM_COMPLEX128;
    int maxn = !eigh  ? em_sla_maxn(k->dtype)
               : cplx ? (em_sla_maxn(k->dtype) ? EM_SLA_EIGHW_MAXN : 0)
                      : (em_sla_maxn(k->dtype) ? EM_SLA_EIGH_MAXN : 0);
    if (!maxn || k->cap > maxn || k->cap != em_sla_cap(k->cap) || (f64 && !d->has_fp64) ||
        k->mode < EM_SLA_ANY || k->mode > EM_SLA_EIGH)
        return em_error(EM_EUNSUPPORTED, "no small linalg kernel for %s at n <= %d",
                        em_dtype_get(k->dtype)->name, k->cap);
    int isz = (int)em_dtype_get(k->dtype)->size, cap = k->cap, ld = cap + 1;
    int nt = em_sla_threads(cap), per = 1; /* per: EM_W, eigh's matrices a block */
    if (eigh)
        em_sla_eigh_geometry(k, &nt, &per);
    else if (k->nt)
        nt = k->nt;
    if (!eigh && (nt < 64 || nt > 1024 || (nt & (nt - 1)) || nt < cap))
        return em_error(EM_EUNSUPPORTED, "small linalg: %d threads a block", nt);
    int ks = (EM__SLA_SHARED - cap * ld * isz) / (cap * isz);
    if (ks > cap) ks = cap;
    if (ks < 1) ks = 1;
    if (k->mode == EM_SLA_DET) ks = 1;
    if (k->mode == EM_SLA_INV) ks = 3; /* X: INV's column j, rows j and pv */
    bool warp = d->id == EM_DIALECT_CUDA && d->has_shuffle;
    em_sbuf t = {0};
    em_tfield f[8];
    int nf = em__fields(f);
    em_sbuf_printf(out, "%s\n", d->prelude);
    em_sbuf_printf(&t,
                   "typedef %s em_t;\ntypedef %s em_r;\n#define EM_CAP %d\n#define EM_LD %d\n"
                   "#define EM_KS %d\n#define EM_NT %d\n#define EM_NS %d\n#define EM_W %d\n"
                   "#define EM_SLA_CPLX %d\n#define EM_NR (EM_NT / EM_CAP)\n",
                   em_tmpl_stype(d, k->dtype), f64 ? "double" : "float", cap, ld, ks, nt,
                   warp ? 32 : 1, per, cplx ? 1 : 0);
    if (d->args_struct)
        em_sbuf_printf(&t, "struct em_args {\n    char *a, *b, *x, *info;\n"
                           "    long long n, k, batch, mode;\n};\n");
    else
        em_tmpl_args_types(d, f, nf, &t);
    if (eigh) {
        em_sbuf_printf(&t,
                       "%s#define EM_SLA_EPS %s\n#define EM_SLA_TINY %s\n"
                       "#define EM_SLA_RSQEPS %s\n",
                       cplx ? em_sla_complex_ops : em_sla_real_ops,
                       f64 ? "2.220446049250313e-16" : "1.1920929e-07f",
                       f64 ? "2.2250738585072014e-308" : "1.17549435e-38f",
                       f64 ? "67108864.0" : "4096.0f");
        em_sla_eigh_text(k, &t);
        return em_tmpl_finish(d, f, nf, &t, NULL, out);
    }
    em_sbuf_printf(&t, "%s", cplx ? em_sla_complex_ops : em_sla_real_ops);
    /* mode: compiled in (CUDA: its dead branches go), or the argument's, one
     * kernel a dtype for every mode and n (OpenCL: PoCL takes seconds a build) */
    em_sbuf_printf(&t, "#define EM_SLA_DET %d\n#define EM_SLA_INV %d\n#define EM_SLA_MODE %s\n",
                   EM_SLA_DET, EM_SLA_INV,
                   k->mode < 0    ? "(int)p.mode"
                   : k->mode == 0 ? "0"
                   : k->mode == 1 ? "1"
                                  : "2");
    const char *pivot = warp ? em__pivot_warp : em__pivot_serial;
    em_sbuf_printf(&t, "%s", em__lu_head);
    if (k->mode == EM_SLA_INV || k->mode == EM_SLA_ANY)
        em_sbuf_printf(&t, "%s%s%s", em__gj_head, pivot, em__gj_tail);
    else
        em_sbuf_printf(&t,
                       "#define EM_SLA_ROWP(bi) (void)0\n        for (int j = 0; j < n; j++) {\n");
    em_sbuf_printf(&t, "%s%s%s%s", pivot, em__lu_tail, em__det, em__solve);
    return em_tmpl_finish(d, f, nf, &t, NULL, out);
}
