/* The eigh kernels' text (render_smallla.h), cyclic Jacobi: session 18's
 * block a matrix (real, n <= 32) and warp a matrix (real and complex,
 * n <= 16), the default; a 2 x 2 block a thread (EMBER_SMALLEIG=pair,
 * real n <= 32, complex n <= 16), not yet timed on a GPU. */
#include "codegen/render_smallla.h"

#include <stdlib.h>
#include <string.h>

/* The eigenvalues' rank and the stores, one text for every eigh kernel:
 * the threads i0, i0 + step, ... each place the diagonal's A[i][i] at its
 * rank (ascending, NaNs last, ties by index, so equal values keep their
 * order as LAPACK's sort does) in w, and V's column i at the same column
 * of x.  w is of the real dtype (em_r); mat, n, vec and p are the
 * caller's. */
static const char em__eig_store[] =
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
    "                        const em_t g = app * aqq < 0 ? -app * aqq : app * aqq;\n"
    "                        const em_t ab = apq < 0 ? -apq : apq;\n"
    "                        if (ab > eps * sqrt(g) && ab > EM_SLA_TINY) {\n"
    "                            const em_t tau = (aqq - app) / (2 * apq);\n"
    "                            const em_t at = tau < 0 ? -tau : tau;\n"
    "                            const em_t tt = (tau < 0 ? -1 : 1) / (at + sqrt(1 + tau * tau));\n"
    "                            c = 1 / sqrt(1 + tt * tt);\n"
    "                            sv = tt * c;\n"
    "                            s_rot = 1;\n"
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
    "                        const em_r g = app * aqq < 0 ? -app * aqq : app * aqq;\n"
    "                        const em_r ab = la_abs(apq);\n"
    "                        if (ab > eps * sqrt(g) && ab > EM_SLA_TINY) {\n"
    "                            const em_r tau = (aqq - app) / (2 * ab);\n"
    "                            const em_r at = tau < 0 ? -tau : tau;\n"
    "                            const em_r tt = (tau < 0 ? -1 : 1) / (at + sqrt(1 + tau * tau));\n"
    "                            c = 1 / sqrt(1 + tt * tt);\n"
    "                            s = tt * c;\n"
    "                            e = la_scale(1 / ab, apq);\n"
    "                            s_rot = 1, s_mrot[w] = 1;\n"
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

/* eigh of stacks of Hermitian matrices (real n <= 32, complex n <= 16) by
 * the same cyclic Jacobi, a 2 x 2 block a thread: for a round's pairs a
 * (rows P_a, Q_a) and b (columns P_b, Q_b), thread (a, b) applies both
 * rotations to its block of A at once (J_a^H X J_b) and the column rotation
 * to V's rows P_a, Q_a at columns P_b, Q_b, in place, since no other thread
 * touches those elements in the round.  Each thread works out the two
 * rotations it needs itself (from the pivots' 3 values), so a round is one
 * barrier: the session-18 kernels spent a barrier on the rotations, one on
 * the rows and one on the columns (1000 x 16^2 float64: 0.325 ms a warp a
 * matrix against syevjBatched's 0.182).  The pivots a round reads (a_pp,
 * a_qq, a_pq) are overwritten in that round by their block's owner, so
 * they are read from a copy each round's owners write for the next round
 * (pd: the diagonal, po: a_pq at P), two copies taking turns.  A rotated
 * pivot block is set to its exact Schur form (a_pq = 0, a_pp - t |a_pq|,
 * a_qq + t |a_pq|).  EM_W matrices a block of EM_W * EM_H^2 threads; the
 * sweeps go on while any of them rotated, the flag of sweep s cleared
 * during sweep s - 2 (three flags, no barrier of its own). */
static const char em__eigh_pair[] =
    "#define EM_SLA_SWEEPS 30\n"
    "#define EM_H (EM_CAP / 2)\n"
    "#define EM_PM (EM_H * EM_H)\n"
    "EM_D int eig_partner(int i, int r, int m) {\n"
    "    const int k = m - 1;\n"
    "    if (i == 0) return (r + k - 1) % k + 1;\n"
    "    const int u = (2 * r - 2 - (i - 1) + 2 * k) % k;\n"
    "    return u == i - 1 ? 0 : u + 1;\n"
    "}\n"
    /* the rotation of (P, Q): c, s, the phase e = a_pq / |a_pq| and t */
    "EM_D int eig_rot(em_r app, em_r aqq, em_t apq, em_r *c, em_r *s, em_t *e, em_r *t) {\n"
    "    const em_r ab = la_abs(apq);\n"
    "    const em_r g = sqrt(app < 0 ? -app : app) * sqrt(aqq < 0 ? -aqq : aqq);\n"
    "    *c = 1, *s = 0, *e = la_re(1), *t = 0;\n"
    "    if (!(ab > EM_SLA_EPS * g && ab > EM_SLA_TINY)) return 0;\n"
    "    const em_r tau = (aqq - app) / (2 * ab);\n"
    "    const em_r at = tau < 0 ? -tau : tau;\n"
    /* 1 + tau^2 overflows past 1e154: t = 1 / (2 |tau|) there, not 0 */
    "    const em_r ia = 1 / at;\n"
    "    em_r tt = at > 1 ? ia / (1 + sqrt(1 + ia * ia)) : 1 / (at + sqrt(1 + at * at));\n"
    "    if (tau < 0) tt = -tt;\n"
    "    *c = 1 / sqrt(1 + tt * tt), *s = tt * *c, *e = la_scale(1 / ab, apq), *t = tt;\n"
    "    return 1;\n"
    "}\n"
    "${kernel(EM_NT)} " EM_KNAME "(${params}) {\n${prologue}"
    "    ${shared} em_t A[EM_W * EM_CAP * EM_LD];\n"
    "    ${shared} em_t V[EM_W * EM_CAP * EM_LD];\n"
    "    ${shared} em_r pd[2 * EM_W * EM_CAP];\n"
    "    ${shared} em_t po[2 * EM_W * EM_CAP];\n"
    "    ${shared} int s_rot[3], s_mrot[3 * EM_W], s_bad[EM_W];\n"
    "    const int n = (int)p.n, tid = (int)${tid}, w = tid / EM_PM, l = tid % EM_PM;\n"
    "    const int ta = l / EM_H, tb = l % EM_H;\n"
    "    const int m = n + (n & 1), h = m / 2;\n"
    "    const int vec = (int)(p.k & 1), up = (int)((p.k >> 1) & 1);\n"
    "    ${local}em_t *Aw = A + w * EM_CAP * EM_LD;\n"
    "    ${local}em_t *Vw = V + w * EM_CAP * EM_LD;\n"
    "    ${local}em_r *pd0 = pd + w * EM_CAP;\n"
    "    ${local}em_t *po0 = po + w * EM_CAP;\n"
    "    for (${ll} base = (${ll})${bid} * EM_W; base < p.batch; base += (${ll})${gdim} * EM_W) {\n"
    "        const ${ll} mat = base + w;\n"
    "        const int live = mat < p.batch, act = ta < h && tb < h;\n"
    "        if (tid < 3) s_rot[tid] = 0;\n"
    "        if (tid < 3 * EM_W) s_mrot[tid] = 0;\n"
    "        if (l == 0) s_bad[w] = 0;\n"
    "        ${sync};\n"
    "        { /* a block's matrices past the stack rerun its last (no barrier under a branch) */\n"
    "            ${global}const em_t *a = (${global}const em_t *)p.a + (live ? mat : p.batch - 1) * n * n;\n"
    "            int bad = 0; /* NaN read: LAPACK's heevd does not converge, nor does this */\n"
    "            for (int e = l; e < n * n; e += EM_PM) {\n"
    "                const int i = e / n, j = e % n;\n"
    "                const int lo = up ? i <= j : i >= j; /* the triangle NumPy reads */\n"
    "                em_t x = lo ? a[e] : la_conj(a[j * n + i]);\n"
    "                if (i == j) x = la_re(la_real(x)), pd0[i] = la_real(x);\n"
    "                else if (i < j && eig_partner(i, 0, m) == j) po0[i] = x;\n"
    "                bad |= la_abs1(x) != la_abs1(x);\n"
    "                Aw[i * EM_LD + j] = x;\n"
    "                Vw[i * EM_LD + j] = la_re(i == j ? 1 : 0);\n"
    "            }\n"
    "            if (bad) s_bad[w] = 1;\n"
    "        }\n"
    "        ${sync};\n"
    "        int sweep = 0, it = 0;\n"
    "        for (; sweep < EM_SLA_SWEEPS; sweep++) {\n"
    "            if (tid == 0) s_rot[(sweep + 1) % 3] = 0;\n"
    "            if (tid < EM_W) s_mrot[((sweep + 1) % 3) * EM_W + tid] = 0;\n"
    "            for (int r = 0; r < m - 1; r++, it++) {\n"
    "                if (act) {\n"
    "                    const int cur = (it & 1) * EM_W * EM_CAP, nxt = EM_W * EM_CAP - cur;\n"
    "                    const int rn = r + 2 == m ? 0 : r + 1;\n"
    "                    int i0 = ta == 0 ? 0 : (ta - 1 + r) % (m - 1) + 1;\n"
    "                    int i1 = (m - 2 - ta + r) % (m - 1) + 1;\n"
    "                    const int P = i0 < i1 ? i0 : i1, Q = i0 < i1 ? i1 : i0;\n"
    "                    i0 = tb == 0 ? 0 : (tb - 1 + r) % (m - 1) + 1;\n"
    "                    i1 = (m - 2 - tb + r) % (m - 1) + 1;\n"
    "                    const int R = i0 < i1 ? i0 : i1, S = i0 < i1 ? i1 : i0;\n"
    "                    const int qa = Q < n, qb = S < n;\n"
    "                    em_r ca = 1, sa = 0, ta_ = 0, cb, sb, tb_;\n"
    "                    em_t ea = la_re(1), eb;\n"
    "                    int ra = qa && eig_rot(pd[cur + w * EM_CAP + P], pd[cur + w * EM_CAP + Q],\n"
    "                                                 po[cur + w * EM_CAP + P], &ca, &sa, &ea, &ta_);\n"
    "                    int rb = ra;\n"
    "                    cb = ca, sb = sa, eb = ea, tb_ = ta_;\n"
    "                    if (ta != tb)\n"
    "                        rb = qb && eig_rot(pd[cur + w * EM_CAP + R], pd[cur + w * EM_CAP + S],\n"
    "                                           po[cur + w * EM_CAP + R], &cb, &sb, &eb, &tb_);\n"
    "                    if (!qb) rb = 0, cb = 1, sb = 0, eb = la_re(1);\n"
    "                    em_t x00 = Aw[P * EM_LD + R], x01 = qb ? Aw[P * EM_LD + S] : la_re(0);\n"
    "                    em_t x10 = qa ? Aw[Q * EM_LD + R] : la_re(0);\n"
    "                    em_t x11 = qa && qb ? Aw[Q * EM_LD + S] : la_re(0);\n"
    "                    if (ra) { /* rows: J_a^H X */\n"
    "                        const em_t y0 = la_mul(ea, x10), y1 = la_mul(ea, x11);\n"
    "                        const em_t z0 = la_sub(la_scale(ca, x00), la_scale(sa, y0));\n"
    "                        const em_t z1 = la_sub(la_scale(ca, x01), la_scale(sa, y1));\n"
    "                        x10 = la_add(la_scale(sa, x00), la_scale(ca, y0));\n"
    "                        x11 = la_add(la_scale(sa, x01), la_scale(ca, y1));\n"
    "                        x00 = z0, x01 = z1;\n"
    "                    }\n"
    "                    if (rb) { /* columns: X J_b */\n"
    "                        const em_t f = la_conj(eb);\n"
    "                        const em_t y0 = la_mul(f, x01), y1 = la_mul(f, x11);\n"
    "                        const em_t z0 = la_sub(la_scale(cb, x00), la_scale(sb, y0));\n"
    "                        const em_t z1 = la_sub(la_scale(cb, x10), la_scale(sb, y1));\n"
    "                        x01 = la_add(la_scale(sb, x00), la_scale(cb, y0));\n"
    "                        x11 = la_add(la_scale(sb, x10), la_scale(cb, y1));\n"
    "                        x00 = z0, x10 = z1;\n"
    "                        for (int k = 0; k < 2; k++) { /* V J_b, V's rows P, Q */\n"
    "                            const int row = k ? Q : P;\n"
    "                            if (k && !qa) break;\n"
    "                            const em_t u = Vw[row * EM_LD + R];\n"
    "                            const em_t v = la_mul(f, Vw[row * EM_LD + S]);\n"
    "                            Vw[row * EM_LD + R] = la_sub(la_scale(cb, u), la_scale(sb, v));\n"
    "                            Vw[row * EM_LD + S] = la_add(la_scale(sb, u), la_scale(cb, v));\n"
    "                        }\n"
    "                    }\n"
    "                    if (ta == tb && ra) { /* the pivot block's exact Schur form */\n"
    "                        const em_r ab = la_abs(po[cur + w * EM_CAP + P]);\n"
    "                        x00 = la_re(pd[cur + w * EM_CAP + P] - ta_ * ab);\n"
    "                        x11 = la_re(pd[cur + w * EM_CAP + Q] + ta_ * ab);\n"
    "                        x01 = x10 = la_re(0);\n"
    "                        s_rot[sweep % 3] = 1, s_mrot[(sweep % 3) * EM_W + w] = 1;\n"
    "                    }\n"
    "                    if (ra || rb) {\n"
    "                        Aw[P * EM_LD + R] = x00;\n"
    "                        if (qb) Aw[P * EM_LD + S] = x01;\n"
    "                        if (qa) Aw[Q * EM_LD + R] = x10;\n"
    "                        if (qa && qb) Aw[Q * EM_LD + S] = x11;\n"
    "                    }\n"
    /* the next round's pivots among this block's elements */
    "                    if (ta == tb) {\n"
    "                        pd[nxt + w * EM_CAP + P] = la_real(x00);\n"
    "                        if (qa) pd[nxt + w * EM_CAP + Q] = la_real(x11);\n"
    "                    }\n"
    "                    const int pP = eig_partner(P, rn, m), pQ = eig_partner(Q, rn, m);\n"
    "                    if (P < R && pP == R) po[nxt + w * EM_CAP + P] = x00;\n"
    "                    if (qb && P < S && pP == S) po[nxt + w * EM_CAP + P] = x01;\n"
    "                    if (qa && Q < R && pQ == R) po[nxt + w * EM_CAP + Q] = x10;\n"
    "                    if (qa && qb && Q < S && pQ == S) po[nxt + w * EM_CAP + Q] = x11;\n"
    "                }\n"
    "                ${sync};\n"
    "            }\n"
    "            if (!s_rot[sweep % 3]) break;\n"
    "        }\n"
    "        if (live && l == 0)\n"
    "            ((${global}int *)p.info)[mat] =\n"
    "                s_bad[w] | (sweep == EM_SLA_SWEEPS && s_mrot[((EM_SLA_SWEEPS - 1) % 3) * EM_W + w]);\n"
    "        if (live) { EM_EIG_STORE(Aw, Vw, l, EM_PM) }\n"
    "        ${sync};\n"
    "    }\n}\n";

/* EMBER_SMALLEIG=pair runs the 2 x 2 block kernel (pair64 / pair256: 64 or
 * 256 threads a block), read at each call so that bench/probe_smalleig.py
 * times it beside session 18's in one process.  Not the default until it
 * is timed on a GPU (written in session 19 without a device call; checked
 * against NumPy on PoCL only, where a block's work-items run one after
 * another, so a missing barrier would not show there). */
int em_sla_eigh_alg(void) {
    const char *v = getenv("EMBER_SMALLEIG");
    if (!v) return 0;
    return !strcmp(v, "pair") ? 1 : !strcmp(v, "pair64") ? 2 : !strcmp(v, "pair256") ? 3 : 0;
}

static int em_sla_eigh_pair(const em_sla_spec *k) { return k->alg != 0; }

void em_sla_eigh_geometry(const em_sla_spec *k, int *threads, int *per) {
    if (em_sla_eigh_pair(k)) {
        /* about 128 threads a block (pair64 / pair256: 64 or 256) */
        int nt = k->alg == 2 ? 64 : k->alg == 3 ? 256 : 128;
        int pm = (k->cap / 2) * (k->cap / 2), w = pm >= nt ? 1 : nt / pm;
        *threads = pm * w, *per = w;
    } else if (k->cap <= EM_SLA_EIGHW_MAXN) {
        *threads = 32 * EM_SLA_EIGHW_WARPS, *per = EM_SLA_EIGHW_WARPS;
    } else {
        *threads = em_sla_threads(k->cap), *per = 1;
    }
}

void em_sla_eigh_text(const em_sla_spec *k, em_sbuf *t) {
    em_sbuf_printf(t, "%s%s", em__eig_store,
                   em_sla_eigh_pair(k)           ? em__eigh_pair
                   : k->cap <= EM_SLA_EIGHW_MAXN ? em_sla_eigh_warp
                                                 : em_sla_eigh_block);
}
