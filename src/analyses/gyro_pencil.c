/* The quadratic eigenproblem (s^2 M + s C + K) x = 0 of a moving system by a
 * scaled, shift-inverted linearisation (kedyn/modes.h; theory.md sec. 3 and
 * "Gyroscopic modes: the scaled shift-invert pencil").
 *
 * With D = diag(M)^-1/2, a reference frequency w_r and the state
 * z = [D^-1 x; D^-1 x' / w_r] the pencil reads A z = s^ B z in s^ = s / w_r,
 *     A = [[0, I], [-K^, -C^]],  B = [[I, 0], [0, M~]],
 *     K^ = D K D / w_r^2,  C^ = D C D / w_r,  M~ = D M D (unit diagonal),
 * and its eigenvalues are those of T = (A + B)^-1 B (shift s^ = -1), with
 * mu = 1 / (s^ + 1). Writing Q = K^ + M~ - C^ (x^T Q x = x^T (K^ + M~) x > 0
 * for a gyroscopic C^ when w_r^2 exceeds minus the lowest eigenvalue of
 * (K, M)),
 *     T = [[I - Q^-1 K^, -Q^-1 M~], [Q^-1 K^, Q^-1 M~]].
 * LAPACK dgeev resolves mu to eps |T| in absolute terms, so s to
 * eps |T| |s + w_r|^2 / w_r: every eigenvalue between w_r / 1e4 and 1e4 w_r
 * to ~1e-12 relative, however far the transverse shear modes of a thin plate
 * stretch the spectrum. The unscaled pencil [[0, I], [-K, -C]], [[I, 0],
 * [0, M]] by QZ (dggev) made growth rates of round-off size, relative to the
 * largest |s| (1e7 rad/s for a 1 mm MITC4 plate), that a fixed threshold
 * could not tell from instability. */
#include <lapacke.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "kedyn/modes.h"
#include "kedyn/system.h"

_Static_assert(sizeof(lapack_int) == sizeof(int), "kd_gyro_ws.ipiv holds LAPACK pivots");

/* Entry (i, j) of a compact general band (0 outside). */
static double gb_at(const kd_gband* a, int i, int j) {
    if (i - j > a->kl || j - i > a->ku) return 0.0;
    return a->ab[a->ku + i - j + (size_t)j * (size_t)(a->kl + a->ku + 1)];
}

static int by_omega(const void* a, const void* b) {
    const kd_gyro_eig *x = a, *y = b;
    return (x->omega > y->omega) - (x->omega < y->omega);
}

void kd_gyro_free(kd_gyro_ws* w) {
    if (!w) return;
    free(w->A);
    free(w->B);
    free(w->ar);
    free(w->ai);
    free(w->be);
    free(w->vr);
    free(w->work);
    free(w->ent);
    free(w->ipiv);
    free(w->dsc);
    memset(w, 0, sizeof(*w));
}

kd_status kd_gyro_init(kd_gyro_ws* w, int n, kd_error* err) {
    memset(w, 0, sizeof(*w));
    const int n2 = 2 * n;
    const size_t nn = (size_t)n2 * (size_t)n2;
    w->n = n;
    w->A = malloc(sizeof(double) * nn);
    w->B = malloc(sizeof(double) * nn);
    w->ar = malloc(sizeof(double) * (size_t)n2);
    w->ai = malloc(sizeof(double) * (size_t)n2);
    w->be = malloc(sizeof(double) * (size_t)n2);
    w->vr = malloc(sizeof(double) * nn);
    w->ipiv = malloc(sizeof(lapack_int) * (size_t)(n + 1));
    w->dsc = malloc(sizeof(double) * (size_t)(n + 1));
    w->ent = malloc(sizeof(kd_gyro_eig) * (size_t)(3 * n + 1)); /* pairs below n, reals from n */
    double wq = 0;
    if (w->A && w->B && w->ar && w->ai && w->be && w->vr && w->ent && w->ipiv && w->dsc &&
        LAPACKE_dgeev_work(LAPACK_COL_MAJOR, 'N', 'V', n2, w->A, n2, w->ar, w->ai, NULL, n2, w->vr, n2, &wq, -1) == 0) {
        w->lwork = (int)wq;
        w->work = malloc(sizeof(double) * (size_t)(w->lwork + 1));
    }
    if (!w->work) {
        kd_gyro_free(w);
        return kd_error_set(err, KD_ERR_NOMEM, "", KD_LOC_NONE, "out of memory for the state-space eigenproblem");
    }
    return KD_OK;
}

/* T = (A + B)^-1 B of the scaled pencil (header comment) into w->A; returns
 * the LU's info, |T|_1 in *tnorm. */
static lapack_int form_shift_invert(kd_gyro_ws* w, const kd_gband* M, const kd_gband* C, const kd_gband* K, double wr,
                                    double* tnorm) {
    const int n = w->n, n2 = 2 * n;
    const double* d = w->dsc;
    double *T = w->A, *Q = w->B, *R = w->B + (size_t)n * n; /* Q (n x n), then R = [K^ | M~] (n x 2n) */
    for (int j = 0; j < n; j++)
        for (int i = 0; i < n; i++) {
            const double dd = d[i] * d[j], k = gb_at(K, i, j) * dd / (wr * wr), m = gb_at(M, i, j) * dd;
            Q[i + (size_t)j * n] = k + m - gb_at(C, i, j) * dd / wr;
            R[i + (size_t)j * n] = k;
            R[i + (size_t)(n + j) * n] = m;
        }
    lapack_int info = LAPACKE_dgesv_work(LAPACK_COL_MAJOR, n, n2, Q, n, (lapack_int*)w->ipiv, R, n); /* R = Q^-1 [K^ | M~] */
    if (info != 0) return info;
    double best = 0;
    for (int j = 0; j < n2; j++) {
        double col = 0;
        for (int i = 0; i < n; i++) {
            const double y = R[i + (size_t)j * n];
            const double top = (j < n ? (i == j) : 0.0) - y; /* [I | 0] - Q^-1 [K^ | M~] */
            T[i + (size_t)j * n2] = top;
            T[n + i + (size_t)j * n2] = y;
            col += fabs(top) + fabs(y);
        }
        best = fmax(best, col);
    }
    *tnorm = best;
    return 0;
}

kd_status kd_gyro_solve(kd_gyro_ws* w, const kd_gband* M, const kd_gband* C, const kd_gband* K, double t,
                        kd_error* err) {
    const int n = w->n, n2 = 2 * n;
    double *ar = w->ar, *ai = w->ai, *d = w->dsc;
    /* D = diag(M)^-1/2 (a massless DOF: diag(K)^-1/2), and a first guess of
     * w_r: the geometric mean of the extreme diagonal ratios |K_ii| / M_ii
     * (between the lowest and the highest frequencies of the mesh). */
    double rlo = HUGE_VAL, rhi = 0;
    for (int i = 0; i < n; i++) {
        const double m = gb_at(M, i, i), k = fabs(gb_at(K, i, i));
        d[i] = m > 0 ? 1.0 / sqrt(m) : k > 0 ? 1.0 / sqrt(k) : 1.0;
        if (m > 0 && k > 0) rlo = fmin(rlo, k / m), rhi = fmax(rhi, k / m);
    }
    double wr = rhi > 0 ? pow(rlo * rhi, 0.25) : 1.0, tnorm = 0;
    lapack_int info = 0;
    /* Two passes: the eigenvalues alone at this first guess, then the
     * eigenvectors with w_r = 16 times the lowest nonzero |s| (the wanted
     * band is the lowest part of the spectrum; the error bound below is
     * smallest for |s| near w_r). Q singular or nearly so (an eigenvalue of
     * (K, M) at -w_r^2, or a damping C that cancels it): move the shift. */
    for (int pass = 0; pass < 2 && info == 0; pass++) {
        for (int attempt = 0; attempt < 6; attempt++, wr *= 3.7) {
            info = form_shift_invert(w, M, C, K, wr, &tnorm);
            if (info == 0 && tnorm < 1e8) break;
        }
        if (info == 0)
            info = LAPACKE_dgeev_work(LAPACK_COL_MAJOR, 'N', pass ? 'V' : 'N', n2, w->A, n2, ar, ai, NULL, n2, w->vr,
                                      n2, w->work, w->lwork);
        if (info != 0 || pass) break;
        double slo = HUGE_VAL;
        const double mu_inf = 2.220446049250313e-16 * tnorm * n2;
        for (int k = 0; k < n2; k++) {
            const double m2 = ar[k] * ar[k] + ai[k] * ai[k];
            if (sqrt(m2) <= mu_inf) continue;
            const double s = wr * hypot(ar[k] / m2 - 1.0, ai[k] / m2);
            if (s > 1e-8 * wr) slo = fmin(slo, s);
        }
        if (slo < HUGE_VAL) wr = 16.0 * slo;
    }
    if (info != 0)
        return kd_error_set(err, KD_ERR_NUMERIC, "", KD_LOC_NONE,
                            "at t = %g s: the state-space eigensolver failed (LAPACK info %d)", t, (int)info);
    /* Back to s = w_r (1 / mu - 1) and x = D x~; a complex pair's column
     * stored first (Im mu > 0) belongs to Im s < 0: keep its conjugate, the
     * vector re - i im, so entry k's shape is (col c, col c + 1) as before.
     * Round-off: dgeev's mu are exact for T + E, |E| ~ eps |T|; a double,
     * defective eigenvalue (a rigid translation in a spinning frame, a
     * divergence onset) splits as the square root of that perturbation
     * times its Jordan coupling. The bound |d mu| <= 1e-5 |T| covers the
     * split measured on the free body of tests/rotating_test.c (1.8e-7 |T|)
     * 50 times over; |d s| <= 1e-5 |T| |s + w_r|^2 / w_r. A mu below
     * eps |T| n is the image of an infinite s (a massless DOF). */
    const double eps = 2.220446049250313e-16, tol_mu = 1e-5 * tnorm, mu_inf = eps * tnorm * n2;
    double smax = 0;
    int ne = 0, nreal = 0;
    kd_gyro_eig* ent = w->ent;
    kd_gyro_eig* reals = ent + n; /* pair entries stay below n: ne_c + nreal / 2 = n */
    for (int k = 0; k < n2; k++) {
        double* v = w->vr + (size_t)k * n2;
        if (ai[k] < 0) continue; /* second column of a pair: handled with the first */
        const double mr = ar[k], mi = ai[k], m2 = mr * mr + mi * mi;
        if (sqrt(m2) <= mu_inf) continue;
        const double sr = wr * (mr / m2 - 1.0), si = wr * mi / m2; /* = -Im s of this column */
        const double tol = tol_mu * ((sr + wr) * (sr + wr) + si * si) / wr;
        for (int i = 0; i < n; i++) v[i] *= d[i];
        if (mi > 0) {
            double* vi = v + n2;
            for (int i = 0; i < n; i++) vi[i] *= -d[i];
            ar[k] = sr, ai[k] = si, ar[k + 1] = sr, ai[k + 1] = -si;
        } else
            ar[k] = sr, ai[k] = 0.0;
        smax = fmax(smax, hypot(sr, si));
        /* real: dgeev's real Schur form gives Im mu = 0 exactly (a double
         * real eigenvalue split into a close complex pair is listed with
         * its small omega and a growth within tol) */
        if (mi == 0.0) reals[nreal++] = (kd_gyro_eig){0.0, sr, k, tol};
        else ent[ne++] = (kd_gyro_eig){si, sr, k, tol};
    }
    for (int i = 0; i < nreal; i++) /* descending real part */
        for (int j = i + 1; j < nreal; j++)
            if (reals[j].growth > reals[i].growth) {
                const kd_gyro_eig tmp = reals[i];
                reals[i] = reals[j], reals[j] = tmp;
            }
    for (int i = 0; i < nreal; i += 2) ent[ne++] = reals[i];
    qsort(ent, (size_t)ne, sizeof(*ent), by_omega);
    w->nent = ne;
    w->smax = smax;
    w->wref = wr;
    w->tnorm = tnorm;
    return KD_OK;
}

void kd_gyro_shape(const kd_gyro_ws* w, int k, double* xr, double* xi) {
    /* Displacement part of the eigenvector: a complex pair as columns
     * (re, im) at its first index (kd_gyro_solve stored the member with
     * Im s > 0 there). */
    const int n = w->n, n2 = 2 * n, c = w->ent[k].index;
    const int cplx = w->ai[c] != 0.0;
    const double* vre = w->vr + (size_t)c * n2;
    for (int i = 0; i < n; i++) {
        xr[i] = vre[i];
        xi[i] = cplx ? vre[(size_t)n2 + i] : 0.0;
    }
}
