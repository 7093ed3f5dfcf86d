/* The eigh kernels' text (render_smallla.h), cyclic Jacobi: a block a
 * matrix (real, n <= 32) and a warp a matrix (real and complex, n <= 16).
 * (A third, a 2 x 2 block a thread with one barrier a round, lost on the
 * H100 to what the default takes at every shape and was removed in
 * session 21: 1000 x 16 x 16 float64 0.333 ms, the warp kernel 0.343,
 * syevjBatched 0.179.) */
#include "codegen/render_smallla.h"

/* The text every eigh kernel shares: the rotation's helpers (EM_EIG_GM,
 * EM_EIG_ROT), then the eigenvalues' rank and the stores:
 * the threads i0, i0 + step, ... each place the diagonal's A[i][i] at its
 * rank (ascending, NaNs last, ties by index, so equal values keep their
 * order as LAPACK's sort does) in w, and V's column i at the same column
 * of x.  w is of the real dtype (em_r); mat, n, vec and p are the
 * caller's. */
static const char em__eig_common[] =
    /* sqrt(|a_pp a_qq|) as a product of roots: the product itself overflows
     * past 1e154 (float32 1e19), which stopped every rotation of a matrix of
     * large entries and returned it unconverged as converged. */
    "#define EM_EIG_GM(x, y) (sqrt((x) < 0 ? -(x) : (x)) * sqrt((y) < 0 ? -(y) : (y)))\n"
    /* The rotation's tangent t = sign(tau) / (|tau| + sqrt(1 + tau^2)), as
     * 1 / (2 tau) once |tau| passes 1 / sqrt(eps) (where the two agree to
     * the last bit and tau^2 may overflow: t was 0, the sweeps never ended);
     * c and s from it.  A rotation whose s rounds to 0 changes nothing and
     * is not counted as one (a_pq is then below rounding of a_qq - a_pp). */
    "#define EM_EIG_ROT(tau, c, s) { \\\n"
    "        const em_r at_ = (tau) < 0 ? -(tau) : (tau); \\\n"
    "        const em_r tt_ = ((tau) < 0 ? -1 : 1) / \\\n"
    "            (at_ > EM_SLA_RSQEPS ? 2 * at_ : at_ + sqrt(1 + (tau) * (tau))); \\\n"
    "        c = 1 / sqrt(1 + tt_ * tt_); \\\n"
    "        s = tt_ * c; }\n"
    "EM_D int eig_rank(${local}const em_t *A, int n, int i) {\n"
    "    const em_r wi = la_real(A[i * EM_LD + i]);\n"
    "    const int ni = wi != wi;\n"
    "    int rank = 0;\n"
    "    for (int j = 0; j < n; j++) {\n"
    "        const em_r wj = la_real(A[j * EM_LD + j]);\n"
    "        const int nj = wj != wj;\n"
    "        rank += (!nj && (ni || wj < wi)) || ((nj == ni) && !(wj < wi) && !(wi < wj) && j < i);\n"
    "    }\n"
    "    return rank;\n"
    "}\n"
    "#define EM_EIG_STORE(A, V, i0, step) \\\n"
    "    for (int i = (i0); i < n; i += (step)) { \\\n"
    "        const int rank = eig_rank(A, n, i); \\\n"
    "        ((${global}em_r *)p.b)[mat * n + rank] = la_real(A[i * EM_LD + i]); \\\n"
    "        if (vec) \\\n"
    "            for (int r = 0; r < n; r++) \\\n"
    "                ((${global}em_t *)p.x)[(mat * n + r) * n + rank] = V[r * EM_LD + i]; \\\n"
    "    }\n";

/* eigh of a real symmetric matrix by cyclic Jacobi (EM_SLA_EIGH): the m/2
 * disjoint pairs of a round-robin round rotated at once (phase 0 their
 * rotations, 1 the rows, 2 the columns and V's), m - 1 rounds a sweep,
 * until a sweep rotates nothing (every |a_pq| at most eps sqrt(|a_pp a_qq|))
 * or EM_SLA_SWEEPS sweeps (info 1: not converged).  Then each eigenvalue's
 * rank (ascending, NaNs last, ties by index) places it and its vector. */
const char em_sla_eigh_block[] =
    "#define EM_SLA_SWEEPS 30\n"
    "${kernel(EM_NT)} " EM_KNAME "(${params}) {\n${prologue}"
    "    ${shared} em_t A[EM_CAP * EM_LD];\n"
    "    ${shared} em_t V[EM_CAP * EM_LD];\n"
    "    ${shared} em_t cs[EM_CAP / 2], sn[EM_CAP / 2];\n"
    "    ${shared} int pp[EM_CAP / 2], qq[EM_CAP / 2];\n"
    "    ${shared} int s_rot;\n"
    "    const int n = (int)p.n, tid = (int)${tid}, m = n + (n & 1), h = m / 2;\n"
    "    const int vec = (int)(p.k & 1), up = (int)((p.k >> 1) & 1);\n"
    "    const em_t eps = EM_SLA_EPS;\n"
    "    for (${ll} mat = ${bid}; mat < p.batch; mat += ${gdim}) {\n"
    "        ${global}const em_t *a = (${global}const em_t *)p.a + mat * n * n;\n"
    "        for (int e = tid; e < n * n; e += EM_NT) {\n"
    "            const int i = e / n, j = e % n;\n"
    "            const int lo = up ? i <= j : i >= j; /* the triangle NumPy reads */\n"
    "            A[i * EM_LD + j] = lo ? a[e] : a[j * n + i];\n"
    "            V[i * EM_LD + j] = i == j ? 1 : 0;\n"
    "        }\n"
    "        ${sync};\n"
    "        int sweep = 0;\n"
    "        for (; sweep < EM_SLA_SWEEPS; sweep++) {\n"
    "            if (tid == 0) s_rot = 0;\n"
    "            ${sync};\n"
    "            for (int r = 0; r < m - 1; r++) {\n"
    "                for (int t = tid; t < h; t += EM_NT) {\n"
    "                    const int i0 = t == 0 ? 0 : (t - 1 + r) % (m - 1) + 1;\n"
    "                    const int i1 = (m - 2 - t + r) % (m - 1) + 1;\n"
    "                    const int P = i0 < i1 ? i0 : i1, Q = i0 < i1 ? i1 : i0;\n"
    "                    em_t c = 1, sv = 0;\n"
    "                    if (Q < n) {\n"
    "                        const em_t apq = A[P * EM_LD + Q], app = A[P * EM_LD + P],\n"
    "                                   aqq = A[Q * EM_LD + Q];\n"
    "                        const em_t ab = apq < 0 ? -apq : apq;\n"
    "                        if (ab > eps * EM_EIG_GM(app, aqq) && ab > EM_SLA_TINY) {\n"
    "                            const em_t tau = (aqq - app) / (2 * apq);\n"
    "                            EM_EIG_ROT(tau, c, sv)\n"
    "                            if (sv != 0) s_rot = 1;\n"
    "                        }\n"
    "                    }\n"
    "                    cs[t] = c, sn[t] = sv, pp[t] = P, qq[t] = Q < n ? Q : -1;\n"
    "                }\n"
    "                ${sync};\n"
    "                for (int e = tid; e < h * n; e += EM_NT) { /* rows: J^T A */\n"
    "                    const int t = e / n, col = e % n, P = pp[t], Q = qq[t];\n"
    "                    if (Q < 0 || sn[t] == 0) continue;\n"
    "                    const em_t x = A[P * EM_LD + col], y = A[Q * EM_LD + col];\n"
    "                    A[P * EM_LD + col] = cs[t] * x - sn[t] * y;\n"
    "                    A[Q * EM_LD + col] = sn[t] * x + cs[t] * y;\n"
    "                }\n"
    "                ${sync};\n"
    "                for (int e = tid; e < h * n; e += EM_NT) { /* columns: (J^T A) J, V J */\n"
    "                    const int t = e / n, row = e % n, P = pp[t], Q = qq[t];\n"
    "                    if (Q < 0 || sn[t] == 0) continue;\n"
    "                    const em_t x = A[row * EM_LD + P], y = A[row * EM_LD + Q];\n"
    "                    A[row * EM_LD + P] = cs[t] * x - sn[t] * y;\n"
    "                    A[row * EM_LD + Q] = sn[t] * x + cs[t] * y;\n"
    "                    const em_t u = V[row * EM_LD + P], v = V[row * EM_LD + Q];\n"
    "                    V[row * EM_LD + P] = cs[t] * u - sn[t] * v;\n"
    "                    V[row * EM_LD + Q] = sn[t] * u + cs[t] * v;\n"
    "                }\n"
    "                ${sync};\n"
    "            }\n"
    "            if (!s_rot) break;\n"
    "            ${sync}; /* s_rot is read by all before thread 0 clears it */\n"
    "        }\n"
    "        if (tid == 0) ((${global}int *)p.info)[mat] = sweep == EM_SLA_SWEEPS;\n"
    "        EM_EIG_STORE(A, V, tid, EM_NT)\n"
    "        ${sync};\n"
    "    }\n}\n";

/* eigh of stacks of small Hermitian matrices (n <= EM_SLA_EIGHW_MAXN), a
 * warp a matrix and EM_W of them a block (EM_SLA_EIGH with cap <= 16): the
 * block-a-matrix kernel above ran 64 threads and three block barriers a
 * round for 8 x 8, where a round's rotations of an 8 x 8 are 4 x 8 element
 * pairs, one a lane.  Same cyclic Jacobi, in complex form: the rotation of
 * (p, q) is J = diag(1, conj(e)) R with e = a_pq / |a_pq| (1 or -1 when
 * real), so J^H A J zeroes a_pq: rows p, q <- c x - s e y, s x + c e y;
 * columns (and V's) <- c x - s conj(e) y, s x + c conj(e) y.  The block
 * barrier, not the warp's, keeps the text one for CUDA and OpenCL; the
 * sweeps go on while any matrix of the block rotated (a converged one
 * rotates nothing), and info is 1 for those still rotating in the last.  The diagonal's imaginary part is dropped on load, as
 * LAPACK's heevd does; w is real. */
const char em_sla_eigh_warp[] =
    "#define EM_SLA_SWEEPS 30\n"
    "#define EM_H (EM_CAP / 2)\n"
    "${kernel(EM_NT)} " EM_KNAME "(${params}) {\n${prologue}"
    "    ${shared} em_t A[EM_W * EM_CAP * EM_LD];\n"
    "    ${shared} em_t V[EM_W * EM_CAP * EM_LD];\n"
    "    ${shared} em_t ph[EM_W * EM_H];\n"
    "    ${shared} em_r cs[EM_W * EM_H], sn[EM_W * EM_H];\n"
    "    ${shared} int pq[EM_W * EM_CAP];\n"
    "    ${shared} int s_rot, s_mrot[EM_W];\n"
    "    const int n = (int)p.n, tid = (int)${tid}, lane = tid % 32, w = tid / 32;\n"
    "    const int m = n + (n & 1), h = m / 2;\n"
    "    const int vec = (int)(p.k & 1), up = (int)((p.k >> 1) & 1);\n"
    "    const em_r eps = EM_SLA_EPS;\n"
    "    ${local}em_t *Aw = A + w * EM_CAP * EM_LD;\n"
    "    ${local}em_t *Vw = V + w * EM_CAP * EM_LD;\n"
    "    for (${ll} base = (${ll})${bid} * EM_W; base < p.batch; base += (${ll})${gdim} * EM_W) {\n"
    "        const ${ll} mat = base + w;\n"
    "        const int live = mat < p.batch;\n"
    "        int bad = 0; /* NaN read: LAPACK's heevd does not converge, nor does this */\n"
    "        if (live) {\n"
    "            ${global}const em_t *a = (${global}const em_t *)p.a + mat * n * n;\n"
    "            for (int e = lane; e < n * n; e += 32) {\n"
    "                const int i = e / n, j = e % n;\n"
    "                const int lo = up ? i <= j : i >= j; /* the triangle NumPy reads */\n"
    "                em_t x = lo ? a[e] : la_conj(a[j * n + i]);\n"
    "                if (i == j) x = la_re(la_real(x));\n"
    "                bad |= la_abs1(x) != la_abs1(x);\n"
    "                Aw[i * EM_LD + j] = x;\n"
    "                Vw[i * EM_LD + j] = la_re(i == j ? 1 : 0);\n"
    "            }\n"
    "        }\n"
    "        int sweep = 0;\n"
    "        for (; sweep < EM_SLA_SWEEPS; sweep++) {\n"
    "            if (tid < EM_W) s_mrot[tid] = 0;\n"
    "            if (tid == 0) s_rot = 0;\n"
    "            ${sync};\n"
    "            if (bad) s_mrot[w] = 1;\n"
    "            for (int r = 0; r < m - 1; r++) {\n"
    "                if (lane < h) {\n"
    "                    const int t = lane;\n"
    "                    const int i0 = t == 0 ? 0 : (t - 1 + r) % (m - 1) + 1;\n"
    "                    const int i1 = (m - 2 - t + r) % (m - 1) + 1;\n"
    "                    const int P = i0 < i1 ? i0 : i1, Q = i0 < i1 ? i1 : i0;\n"
    "                    em_r c = 1, s = 0;\n"
    "                    em_t e = la_re(1);\n"
    "                    if (live && Q < n) {\n"
    "                        const em_t apq = Aw[P * EM_LD + Q];\n"
    "                        const em_r app = la_real(Aw[P * EM_LD + P]), aqq = la_real(Aw[Q * EM_LD + Q]);\n"
    "                        const em_r ab = la_abs(apq);\n"
    "                        if (ab > eps * EM_EIG_GM(app, aqq) && ab > EM_SLA_TINY) {\n"
    "                            const em_r tau = (aqq - app) / (2 * ab);\n"
    "                            EM_EIG_ROT(tau, c, s)\n"
    "                            e = la_scale(1 / ab, apq);\n"
    "                            if (s != 0) s_rot = 1, s_mrot[w] = 1;\n"
    "                        }\n"
    "                    }\n"
    "                    cs[w * EM_H + t] = c, sn[w * EM_H + t] = s, ph[w * EM_H + t] = e;\n"
    "                    pq[w * EM_CAP + 2 * t] = P, pq[w * EM_CAP + 2 * t + 1] = Q < n ? Q : -1;\n"
    "                }\n"
    "                ${sync};\n"
    "                if (live)\n"
    "                    for (int k = lane; k < h * n; k += 32) { /* rows: J^H A */\n"
    "                        const int t = k / n, col = k % n, T = w * EM_H + t;\n"
    "                        const int P = pq[w * EM_CAP + 2 * t], Q = pq[w * EM_CAP + 2 * t + 1];\n"
    "                        if (Q < 0 || sn[T] == 0) continue;\n"
    "                        const em_t x = Aw[P * EM_LD + col];\n"
    "                        const em_t y = la_mul(ph[T], Aw[Q * EM_LD + col]);\n"
    "                        Aw[P * EM_LD + col] = la_sub(la_scale(cs[T], x), la_scale(sn[T], y));\n"
    "                        Aw[Q * EM_LD + col] = la_add(la_scale(sn[T], x), la_scale(cs[T], y));\n"
    "                    }\n"
    "                ${sync};\n"
    "                if (live)\n"
    "                    for (int k = lane; k < h * n; k += 32) { /* columns: (J^H A) J, V J */\n"
    "                        const int t = k / n, row = k % n, T = w * EM_H + t;\n"
    "                        const int P = pq[w * EM_CAP + 2 * t], Q = pq[w * EM_CAP + 2 * t + 1];\n"
    "                        if (Q < 0 || sn[T] == 0) continue;\n"
    "                        const em_t f = la_conj(ph[T]);\n"
    "                        const em_t x = Aw[row * EM_LD + P];\n"
    "                        const em_t y = la_mul(f, Aw[row * EM_LD + Q]);\n"
    "                        Aw[row * EM_LD + P] = la_sub(la_scale(cs[T], x), la_scale(sn[T], y));\n"
    "                        Aw[row * EM_LD + Q] = la_add(la_scale(sn[T], x), la_scale(cs[T], y));\n"
    "                        const em_t u = Vw[row * EM_LD + P];\n"
    "                        const em_t v = la_mul(f, Vw[row * EM_LD + Q]);\n"
    "                        Vw[row * EM_LD + P] = la_sub(la_scale(cs[T], u), la_scale(sn[T], v));\n"
    "                        Vw[row * EM_LD + Q] = la_add(la_scale(sn[T], u), la_scale(cs[T], v));\n"
    "                    }\n"
    "                ${sync};\n"
    "            }\n"
    "            if (!s_rot) break;\n"
    "            ${sync}; /* s_rot is read by all before thread 0 clears it */\n"
    "        }\n"
    "        if (live) {\n"
    /* a matrix of the block that converged earlier rotated nothing since */
    "            if (lane == 0) ((${global}int *)p.info)[mat] = s_mrot[w];\n"
    "            EM_EIG_STORE(Aw, Vw, lane, 32)\n"
    "        }\n"
    "        ${sync};\n"
    "    }\n}\n";

void em_sla_eigh_geometry(const em_sla_spec *k, int *threads, int *per) {
    if (k->cap <= EM_SLA_EIGHW_MAXN) {
        *threads = 32 * EM_SLA_EIGHW_WARPS, *per = EM_SLA_EIGHW_WARPS;
    } else {
        *threads = em_sla_threads(k->cap), *per = 1;
    }
}

void em_sla_eigh_text(const em_sla_spec *k, em_sbuf *t) {
    em_sbuf_printf(t, "%s%s", em__eig_common,
                   k->cap <= EM_SLA_EIGHW_MAXN ? em_sla_eigh_warp : em_sla_eigh_block);
}
