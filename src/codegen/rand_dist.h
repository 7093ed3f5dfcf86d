/* The rejection samplers of em_random_dist (gamma, poisson, binomial), one
 * thread per element with the whole rejection loop inside the thread.
 *
 * Why: written as rounds of array operations (draw for the pending
 * elements, compact them, sync on "any left?") a draw cost dozens of
 * launches and host round trips for its tail of rounds.  Philox is counter
 * based, so each element can own a sub-stream and draw as many numbers as
 * it needs: element i of a draw at stream counter c reads the Philox blocks
 *   counter {lo32(c + i), hi32(c + i), j, 0x44495354 ("DIST")}, j = 0, 1, ...
 * each giving two float64 uniforms ((w0 | w1 << 32) >> 11) * 2^-53 and then
 * (w2 | w3 << 32).  Word 3 is never 0 here and always 0 in em_random_fill's
 * blocks, so the two kinds of stream never overlap; the draw advances the
 * generator's counter by the element count.
 *
 * Methods (NumPy's where it has one):
 *   normal   Box-Muller: r = sqrt(-2 log(1 - u1)), r cos(2 pi u2), then
 *            r sin(2 pi u2) on the element's next normal
 *   gamma    Marsaglia-Tsang; k < 1 draws gamma(k + 1) * U^(1/k); k = 0 is 0
 *   poisson  inversion of one uniform below lam = 10 (NumPy multiplies lam + 1
 *            uniforms: five times the Philox work), Hormann's PTRS at and
 *            above (NumPy's random_poisson_ptrs, its loggam series)
 *   binomial NumPy's: with r = min(p, 1 - p) (the count mirrored where
 *            p > 1/2), inversion for n r <= 30, BTPE above.
 *   beta     gamma(a) / (gamma(a) + gamma(b)), both from the element's stream.
 *
 * The text is written once, as the macro EM__DIST_TEXT in the C subset
 * CUDA C and OpenCL C accept (as codegen/philox.h does): the CPU backend
 * expands it (backend/cpu/random.c) and render_random.c pastes its
 * stringified tokens into device source, after em_philox, with em_u32,
 * em_u64 and em_i64 defined.  FN is the helper qualifier. */
#ifndef EM_RAND_DIST_H
#define EM_RAND_DIST_H

#define EM__DIST_TEXT(FN, U32, U64, I64)                                                        \
    typedef struct em_rs {                                                                      \
        U32 c0, c1, k0, k1, j, pos;                                                             \
        U32 w[4];                                                                               \
        int has; /* whether spare holds the sine half of a Box-Muller pair */                   \
        double spare;                                                                           \
    } em_rs;                                                                                    \
    FN void em_rs_init(em_rs *s, U64 key, U64 ctr) {                                            \
        s->c0 = (U32)ctr;                                                                       \
        s->c1 = (U32)(ctr >> 32);                                                               \
        s->k0 = (U32)key;                                                                       \
        s->k1 = (U32)(key >> 32);                                                               \
        s->j = 0;                                                                               \
        s->pos = 2;                                                                             \
        s->has = 0;                                                                             \
        s->spare = 0.0;                                                                         \
    }                                                                                           \
    /* The next float64 uniform in [0, 1) of the element's sub-stream. */                       \
    FN double em_rs_u(em_rs *s) {                                                               \
        if (s->pos == 2) {                                                                      \
            /* a private array: OpenCL 2+ makes s->w a generic pointer, which a */              \
            /* private-array parameter does not take (newer PoCL refuses it)   */               \
            U32 w[4] = {s->c0, s->c1, s->j++, 0x44495354u};                                     \
            em_philox(w, s->k0, s->k1);                                                         \
            s->w[0] = w[0], s->w[1] = w[1], s->w[2] = w[2], s->w[3] = w[3];                     \
            s->pos = 0;                                                                         \
        }                                                                                       \
        /* a select, not w[2 * pos]: a dynamic index would put w in local memory on a GPU */    \
        const U64 b = s->pos ? ((U64)s->w[3] << 32) | s->w[2] : ((U64)s->w[1] << 32) | s->w[0]; \
        s->pos++;                                                                               \
        return (double)(b >> 11) * (1.0 / 9007199254740992.0);                                  \
    }                                                                                           \
    /* Both halves of each pair are used (the sine one on the next call): one \
     * uniform, a third of a log and a root per normal on average. */                 \
    FN double em_rs_n(em_rs *s) {                                                               \
        if (s->has) {                                                                           \
            s->has = 0;                                                                         \
            return s->spare;                                                                    \
        }                                                                                       \
        const double u1 = em_rs_u(s);                                                           \
        const double u2 = em_rs_u(s);                                                           \
        const double r = sqrt(-2.0 * log(1.0 - u1)), t = 6.283185307179586477 * u2;             \
        s->spare = r * sin(t);                                                                  \
        s->has = 1;                                                                             \
        return r * cos(t);                                                                      \
    }                                                                                           \
    FN double em_rs_gamma(em_rs *s, double k) {                                                 \
        if (!(k > 0.0)) return k == 0.0 ? 0.0 : k; /* 0, and NaN passed on */                   \
        const double d = (k < 1.0 ? k + 1.0 : k) - 1.0 / 3.0, c = 1.0 / sqrt(9.0 * d);          \
        double x, v, u;                                                                         \
        for (;;) {                                                                              \
            do {                                                                                \
                x = em_rs_n(s);                                                                 \
                v = 1.0 + c * x;                                                                \
            } while (v <= 0.0);                                                                 \
            v = v * v * v;                                                                      \
            u = em_rs_u(s);                                                                     \
            if (u < 1.0 - 0.0331 * (x * x) * (x * x)) break;                                    \
            if (log(u) < 0.5 * x * x + d * (1.0 - v + log(v))) break;                           \
        }                                                                                       \
        return k < 1.0 ? d * v * pow(em_rs_u(s), 1.0 / k) : d * v;                              \
    }                                                                                           \
    /* log(gamma(x)) for x >= 1: NumPy's random_loggam (Stirling at x >= 7). */                 \
    FN double em_loggam(double x) {                                                             \
        if (x == 1.0 || x == 2.0) return 0.0;                                                   \
        const int n = x < 7.0 ? (int)(7.0 - x) : 0;                                             \
        double x0 = x + n;                                                                      \
        const double x2 = 1.0 / (x0 * x0);                                                      \
        double g = -1.39243221690590e+00;                                                       \
        g = g * x2 + 1.796443723688307e-01;                                                     \
        g = g * x2 - 2.955065359477124e-02;                                                     \
        g = g * x2 + 6.410256410256410e-03;                                                     \
        g = g * x2 - 1.917526917526918e-03;                                                     \
        g = g * x2 + 8.417508417508418e-04;                                                     \
        g = g * x2 - 5.952380952380952e-04;                                                     \
        g = g * x2 + 7.936507936507937e-04;                                                     \
        g = g * x2 - 2.777777777777778e-03;                                                     \
        g = g * x2 + 8.333333333333333e-02;                                                     \
        double gl = g / x0 + 0.91893853320467274178 + (x0 - 0.5) * log(x0) - x0;                \
        for (int k = 1; k <= n; k++) {                                                          \
            gl -= log(x0 - 1.0);                                                                \
            x0 -= 1.0;                                                                          \
        }                                                                                       \
        return gl;                                                                              \
    }                                                                                           \
    FN I64 em_rs_poisson(em_rs *s, double lam) {                                                \
        if (lam >= 10.0) {                                                                      \
            const double slam = sqrt(lam), loglam = log(lam), b = 0.931 + 2.53 * slam;          \
            const double a = -0.059 + 0.02483 * b, invalpha = 1.1239 + 1.1328 / (b - 3.4);      \
            const double vr = 0.9277 - 3.6224 / (b - 2.0);                                      \
            for (;;) {                                                                          \
                const double U = em_rs_u(s) - 0.5;                                              \
                const double V = em_rs_u(s);                                                    \
                const double us = 0.5 - fabs(U);                                                \
                const I64 k = (I64)floor((2.0 * a / us + b) * U + lam + 0.43);                  \
                if (us >= 0.07 && V <= vr) return k;                                            \
                if (k < 0 || (us < 0.013 && V > us)) continue;                                  \
                if (log(V) + log(invalpha) - log(a / (us * us) + b) <=                          \
                    -lam + (double)k * loglam - em_loggam((double)k + 1.0))                     \
                    return k;                                                                   \
            }                                                                                   \
        }                                                                                       \
        if (!(lam > 0.0)) return 0;                                                             \
        /* Inversion: one uniform against the running CDF (lam + 1 uniforms   \
         * of the multiplication method were the kernel's cost: a Philox   \
         * block per two).  A u the rounded CDF never reaches (within 1e-15 of \
         * 1) draws again after 200 terms, far past lam < 10's mass. */                 \
        const double enlam = exp(-lam);                                                         \
        for (;;) {                                                                              \
            const double u = em_rs_u(s);                                                        \
            double p = enlam, cdf = enlam;                                                      \
            I64 x = 0;                                                                          \
            while (u > cdf && x < 200) {                                                        \
                x++;                                                                            \
                p *= lam / (double)x;                                                           \
                cdf += p;                                                                       \
            }                                                                                   \
            if (u <= cdf) return x;                                                             \
        }                                                                                       \
    }                                                                                           \
    /* NumPy's random_binomial_inversion, p <= 1/2 and n p <= 30. */                            \
    FN I64 em_rs_binv(em_rs *s, I64 n, double p) {                                              \
        const double q = 1.0 - p, qn = exp((double)n * log(q)), np = (double)n * p;             \
        const double bound = fmin((double)n, np + 10.0 * sqrt(np * q + 1.0));                   \
        I64 x = 0;                                                                              \
        double px = qn, u = em_rs_u(s);                                                         \
        while (u > px) {                                                                        \
            x++;                                                                                \
            if ((double)x > bound) {                                                            \
                x = 0;                                                                          \
                px = qn;                                                                        \
                u = em_rs_u(s);                                                                 \
            } else {                                                                            \
                u -= px;                                                                        \
                px = ((double)(n - x + 1) * p * px) / ((double)x * q);                          \
            }                                                                                   \
        }                                                                                       \
        return x;                                                                               \
    }                                                                                           \
    /* Stirling's correction of log x! past its leading terms, BTPE's (x >= 1). */              \
    FN double em_stirling(double x) {                                                           \
        const double x2 = x * x;                                                                \
        return (13680. - (462. - (132. - (99. - 140. / x2) / x2) / x2) / x2) / x / 166320.;     \
    }                                                                                           \
    /* NumPy's random_binomial_btpe (Kachitvichyanukul and Schmeiser), p <= 1/2, \
     * n p > 30: its setup, which depends on n and r only (the CPU makes it \
     * once per draw when n and p are one for all), then em_rs_btpe_run. */              \
    typedef struct em_btpe {                                                                    \
        I64 m;                                                                                  \
        double q, nrq, p1, xm, xl, xr, c, laml, lamr, p2, p3, p4;                               \
    } em_btpe;                                                                                  \
    FN void em_btpe_setup(em_btpe *b, I64 n, double r) {                                        \
        const double q = 1.0 - r, fm = (double)n * r + r, nrq = (double)n * r * q;              \
        const I64 m = (I64)floor(fm);                                                           \
        const double p1 = floor(2.195 * sqrt(nrq) - 4.6 * q) + 0.5, xm = (double)m + 0.5;       \
        const double xl = xm - p1, xr = xm + p1, c = 0.134 + 20.5 / (15.3 + (double)m);         \
        double a = (fm - xl) / (fm - xl * r);                                                   \
        const double laml = a * (1.0 + a / 2.0);                                                \
        a = (xr - fm) / (xr * q);                                                               \
        const double lamr = a * (1.0 + a / 2.0);                                                \
        const double p2 = p1 * (1.0 + 2.0 * c), p3 = p2 + c / laml, p4 = p3 + c / lamr;         \
        b->m = m, b->q = q, b->nrq = nrq, b->p1 = p1, b->xm = xm, b->xl = xl, b->xr = xr;       \
        b->c = c, b->laml = laml, b->lamr = lamr, b->p2 = p2, b->p3 = p3, b->p4 = p4;           \
    }                                                                                           \
    /* One proposal of its gotos' loop (continue: reject, return: accept): \
     * y >= 0 where accepted, -1 where not.  A step, so that a GPU lane \
     * that accepts goes on to its next element while its warp's others \
     * draw again (render_random.c's em__binom_kernel). */                    \
    FN I64 em_rs_btpe_step(em_rs *s, const em_btpe *b, I64 n, double r) {                       \
        const I64 m = b->m;                                                                     \
        const double q = b->q, nrq = b->nrq, p1 = b->p1, xm = b->xm, xl = b->xl, xr = b->xr;    \
        const double c = b->c, laml = b->laml, lamr = b->lamr, p2 = b->p2, p3 = b->p3;          \
        const double p4 = b->p4;                                                                \
        const double u = em_rs_u(s) * p4;                                                       \
        double v = em_rs_u(s);                                                                  \
        I64 y;                                                                                  \
        if (u <= p1) {                                                                          \
            return (I64)floor(xm - p1 * v + u);                                                 \
        }                                                                                       \
        if (u <= p2) {                                                                          \
            const double x = xl + (u - p1) / c;                                                 \
            v = v * c + 1.0 - fabs((double)m - x + 0.5) / p1;                                   \
            if (v > 1.0) return -1;                                                             \
            y = (I64)floor(x);                                                                  \
        } else if (u <= p3) {                                                                   \
            if (v == 0.0) return -1;                                                            \
            y = (I64)floor(xl + log(v) / laml);                                                 \
            if (y < 0) return -1;                                                               \
            v = v * (u - p2) * laml;                                                            \
        } else {                                                                                \
            if (v == 0.0) return -1;                                                            \
            y = (I64)floor(xr - log(v) / lamr);                                                 \
            if (y > n) return -1;                                                               \
            v = v * (u - p3) * lamr;                                                            \
        }                                                                                       \
        const double k = (double)(y > m ? y - m : m - y);                                       \
        if (!(k > 20.0 && k < nrq / 2.0 - 1.0)) { /* the ratio f(y) / f(m) exactly */           \
            const double sr = r / q, as = sr * (double)(n + 1);                                 \
            double F = 1.0;                                                                     \
            for (I64 i = m + 1; i <= y; i++) F *= as / (double)i - sr;                          \
            for (I64 i = y + 1; i <= m; i++) F /= as / (double)i - sr;                          \
            if (v > F) return -1;                                                               \
            return y;                                                                           \
        }                                                                                       \
        const double rho =                                                                      \
            (k / nrq) * ((k * (k / 3.0 + 0.625) + 0.16666666666666666) / nrq + 0.5);            \
        const double t = -k * k / (2.0 * nrq), A = log(v);                                      \
        if (A < t - rho) {                                                                      \
            return y;                                                                           \
        }                                                                                       \
        if (A > t + rho) return -1;                                                             \
        const double x1 = (double)y + 1.0, f1 = (double)m + 1.0, z = (double)(n + 1 - m);       \
        const double w = (double)(n - y + 1);                                                   \
        const double bound = xm * log(f1 / x1) + ((double)(n - m) + 0.5) * log(z / w) +         \
                             (double)(y - m) * log(w * r / (x1 * q)) + em_stirling(f1) +        \
                             em_stirling(z) + em_stirling(x1) + em_stirling(w);                 \
        if (A > bound) return -1;                                                               \
        return y;                                                                               \
    }                                                                                           \
    FN I64 em_rs_btpe_run(em_rs *s, const em_btpe *b, I64 n, double r) {                        \
        I64 y;                                                                                  \
        while ((y = em_rs_btpe_step(s, b, n, r)) < 0) {}                                        \
        return y;                                                                               \
    }                                                                                           \
    FN I64 em_rs_btpe(em_rs *s, I64 n, double r) {                                              \
        em_btpe b;                                                                              \
        em_btpe_setup(&b, n, r);                                                                \
        return em_rs_btpe_run(s, &b, n, r);                                                     \
    }                                                                                           \
    /* X / (X + Y), X ~ gamma(a), Y ~ gamma(b) from one sub-stream: one kernel \
     * and one store where two gamma draws and their ratio were three passes. */                \
    FN double em_rs_beta(em_rs *s, double a, double b) {                                        \
        const double x = em_rs_gamma(s, a);                                                     \
        return x / (x + em_rs_gamma(s, b));                                                     \
    }                                                                                           \
    /* p > 1/2 mirrored (n - Binomial(n, 1 - p)), as NumPy. */                                  \
    FN I64 em_rs_binomial(em_rs *s, I64 n, double p) {                                          \
        if (n <= 0 || !(p > 0.0)) return 0;                                                     \
        const double r = p > 0.5 ? 1.0 - p : p;                                                 \
        const I64 y = (double)n * r <= 30.0 ? em_rs_binv(s, n, r) : em_rs_btpe(s, n, r);        \
        return p > 0.5 ? n - y : y;                                                             \
    }

#define EM__DIST_STR(...) #__VA_ARGS__
#define EM__DIST_XSTR(...) EM__DIST_STR(__VA_ARGS__)
/* The device text: one line, after em_philox and the three type names. */
#define EM_DIST_SRC EM__DIST_XSTR(EM__DIST_TEXT(EM_PHILOX_FN, em_u32, em_u64, em_i64))

#endif
