/* Natural frequencies of an elastic link along the rigid motion of its
 * mechanism, followed by the modal assurance criterion (kedyn/ked.h). */
#include <cblas.h>
#include <complex.h>
#include <lapacke.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kedyn/ked.h"
#include "kedyn/modes.h"
#include "kedyn/system.h"

void kd_ked_modes_free(kd_ked_modes* m) {
    if (!m) return;
    free(m->t);
    free(m->omega);
    memset(m, 0, sizeof(*m));
}

/* Upper band storage of the symmetric part of a general band matrix:
 * S(kd + i - j, j) = (A(i, j) + A(j, i)) / 2 for j - kd <= i <= j, ld = kd + 1
 * (LAPACK's dsbgvx layout). */
static void band_to_sym(const kd_gband* B, int kd, double* S) {
    const int n = B->n, ld = B->kl + B->ku + 1;
    for (int j = 0; j < n; j++)
        for (int i = j - kd > 0 ? j - kd : 0; i <= j; i++)
            S[kd + i - j + (size_t)j * (kd + 1)] =
                0.5 * (B->ab[B->ku + i - j + (size_t)j * ld] + B->ab[B->ku + j - i + (size_t)i * ld]);
}

/* Dense symmetric part (column-major n x n, upper triangle) of a general band matrix. */
static void band_to_dense(const kd_gband* B, double* A) {
    const int n = B->n, ld = B->kl + B->ku + 1;
    memset(A, 0, sizeof(double) * (size_t)n * (size_t)n);
    for (int j = 0; j < n; j++)
        for (int i = j - B->ku > 0 ? j - B->ku : 0; i <= j; i++)
            A[i + (size_t)j * n] = 0.5 * (B->ab[B->ku + i - j + (size_t)j * ld] + B->ab[B->ku + j - i + (size_t)i * ld]);
}

/* Links of up to this many equations take the dense route: M = U^T U factored
 * once, then per instant the standard problem U^-T K U^-1 y = lambda y by
 * LAPACK's MRRR on the index range (dsytrd, dstemr, dormtr) and z = U^-1 y
 * (fewer operations than the banded reduction at these sizes); larger links
 * the banded dsbgvx, whose cost grows linearly with the link. */
#define KED_DENSE_MAX 200

kd_status kd_ked_modes_along_motion(kd_ked* k, int link, int count, kd_ked_modes* out, kd_error* err) {
    return kd_ked_modes_along_motion_opt(k, link, count, KD_KED_GYRO_REFINE, out, err);
}

/* Is the instant's problem symmetric (no gyroscopic or damping matrix, K
 * symmetric: omega = eps = 0 and no damping)? Then the symmetric solvers
 * below give its frequencies exactly. */
static int instant_is_symmetric(const kd_gband* C, const kd_gband* K) {
    const int n = K->n, ld = K->kl + K->ku + 1, ldc = C->kl + C->ku + 1;
    for (int j = 0; j < n; j++)
        for (int i = j - C->ku > 0 ? j - C->ku : 0; i <= j + C->kl && i < n; i++)
            if (C->ab[C->ku + i - j + (size_t)j * ldc] != 0.0) return 0;
    for (int j = 0; j < n; j++)
        for (int i = j - K->ku > 0 ? j - K->ku : 0; i < j; i++)
            if (K->ab[K->ku + i - j + (size_t)j * ld] != K->ab[K->ku + j - i + (size_t)i * ld]) return 0;
    return 1;
}

/* Refinement of the symmetric modes into those of the quadratic problem
 * T(s) x = (s^2 M + s C + K) x = 0 (theory.md sec. 3, [c] and [k(eps)]) by
 * Newton's method on (T(s) x = 0, v^T x = 1), i.e. inverse iteration for
 * the nonlinear eigenproblem (Ruhe 1973, SIAM J. Numer. Anal. 10:674):
 *     u = T(s)^-1 T'(s) x,  s <- s - (v^T x) / (v^T u),  x <- u / (v^T u),
 * T'(s) = 2 s M + C, from s = i omega_sym and x = v = the symmetric mode.
 * It converges quadratically (one step on the pump example); each step is one complex band LU of the link
 * (linear in its size), against the O((2n)^3) of the dense state-space
 * solver, which remains the fallback (and gyroscopic: dense). */
typedef struct refine_ws {
    int n, kd, ldab;
    double complex *T, *x, *u;
    lapack_int* ipiv;
} refine_ws;

static void refine_free(refine_ws* r) {
    free(r->T);
    free(r->x);
    free(r->u);
    free(r->ipiv);
    memset(r, 0, sizeof(*r));
}

static kd_status refine_init(refine_ws* r, int n, int kd) {
    r->n = n, r->kd = kd, r->ldab = 3 * kd + 1;
    r->T = malloc(sizeof(double complex) * (size_t)r->ldab * (size_t)n);
    r->x = malloc(sizeof(double complex) * (size_t)n);
    r->u = malloc(sizeof(double complex) * (size_t)n);
    r->ipiv = malloc(sizeof(lapack_int) * (size_t)n);
    if (!r->T || !r->x || !r->u || !r->ipiv) {
        refine_free(r);
        return KD_ERR_NOMEM;
    }
    return KD_OK;
}

/* One mode: s and x (r->x) in and out, v^T x = 1 the normalisation. 1 when converged. */
static int refine_one(refine_ws* r, const kd_gband* M, const kd_gband* C, const kd_gband* K, const double* v,
                      double complex* s_io) {
    const int n = r->n, kd = r->kd, ld = r->ldab;
    double complex s = *s_io, *x = r->x, *u = r->u, *T = r->T;
    for (int it = 0; it < 30; it++) {
        /* T(s) in LAPACK's zgbtrf layout, and u = T'(s) x, column by column
         * (M, C, K share the band layout: kl = ku = kd) */
        const int ldg = 2 * kd + 1;
        const double complex s2 = s * s, ds2 = 2.0 * s;
        memset(u, 0, sizeof(double complex) * (size_t)n);
        for (int j = 0; j < n; j++) {
            const int i0 = j - kd > 0 ? j - kd : 0, i1 = j + kd < n - 1 ? j + kd : n - 1;
            const size_t o = (size_t)kd - (size_t)j + (size_t)j * ldg;  /* + i: entry (i, j) */
            const double *m = M->ab + o, *c = C->ab + o, *kk = K->ab + o;
            double complex* col = T + (size_t)2 * kd - (size_t)j + (size_t)j * ld;
            const double complex xj = x[j];
            for (int i = i0; i <= i1; i++) {
                col[i] = s2 * m[i] + s * c[i] + kk[i];
                u[i] += (ds2 * m[i] + c[i]) * xj;
            }
        }
        if (LAPACKE_zgbtrf_work(LAPACK_COL_MAJOR, n, n, kd, kd, T, ld, r->ipiv) != 0) return 0;
        if (LAPACKE_zgbtrs_work(LAPACK_COL_MAJOR, 'N', n, kd, kd, 1, T, ld, r->ipiv, u, n) != 0) return 0;
        double complex vx = 0.0, vu = 0.0;
        for (int i = 0; i < n; i++) vx += v[i] * x[i], vu += v[i] * u[i];
        if (vu == 0.0 || !isfinite(creal(vu)) || !isfinite(cimag(vu))) return 0;
        const double complex ds = vx / vu;
        s -= ds;
        const double complex inv_vu = 1.0 / vu;  /* one complex division, not n */
        for (int i = 0; i < n; i++) x[i] = u[i] * inv_vu;
        /* quadratic convergence: the error left after a step of |ds| is of
         * order |ds|^2 / |s|, about 1e-14 |s| once |ds| < 1e-7 |s| (a test near
         * round-off stalls on the nearly singular T(s)) */
        if (cabs(ds) <= 1e-7 * cabs(s)) {
            *s_io = s;
            return 1;
        }
    }
    return 0;
}

/* x^H M x = 1 for x = xr + i xi; M xr, M xi into mr, mi. */
static void normalise_shape(const kd_gband* M, double* xr, double* xi, double* mr, double* mi) {
    const int n = M->n;
    kd_gband_matvec(M, xr, mr);
    kd_gband_matvec(M, xi, mi);
    double nrm = 0.0;
    for (int r = 0; r < n; r++) nrm += xr[r] * mr[r] + xi[r] * mi[r];
    nrm = nrm > 0 ? 1.0 / sqrt(nrm) : 1.0;
    for (int r = 0; r < n; r++) xr[r] *= nrm, xi[r] *= nrm, mr[r] *= nrm, mi[r] *= nrm;
}

/* Mode c of T(s) from symmetric mode c (w = omega^2 of the nev symmetric
 * modes, Z[c] mass-normalised): frequency Im s, growth Re s, shape
 * normalised to x^H M x = 1 (Z[c], Zi[c]) with M x (MZ[c], MZi[c]). 0 when
 * it does not converge or does not stay the continuation of its symmetric
 * mode (Im s > 0, closer to i omega_c than half the gap to its
 * neighbours): the caller then takes the dense state-space solver. */
static int refine_mode(refine_ws* r, int c, int nev, const kd_gband* M, const kd_gband* C, const kd_gband* K,
                       const double* w, double* Z, double* Zi, double* MZ, double* MZi, double* omega, double* growth) {
    const int n = r->n;
    const double w0 = sqrt(fmax(w[c], 0.0));
    const double below = c > 0 ? w0 - sqrt(fmax(w[c - 1], 0.0)) : w0;
    const double above = c + 1 < nev ? sqrt(fmax(w[c + 1], 0.0)) - w0 : below;
    const double gap = fmin(below, above);
    if (!(w0 > 0) || !(gap > 0)) return 0;
    double *zr = Z + (size_t)c * n, *zi = Zi + (size_t)c * n, *mr = MZ + (size_t)c * n, *mi = MZi + (size_t)c * n;
    for (int i = 0; i < n; i++) r->x[i] = zr[i];
    double complex sc = I * w0;
    if (!refine_one(r, M, C, K, mr, &sc) || !(cimag(sc) > 0) || cabs(sc - I * w0) >= 0.5 * gap) return 0;
    for (int i = 0; i < n; i++) zr[i] = creal(r->x[i]), zi[i] = cimag(r->x[i]);
    normalise_shape(M, zr, zi, mr, mi);
    omega[c] = cimag(sc);
    growth[c] = creal(sc);
    return 1;
}

/* g = p^H M z (complex) from p = pr + i pi and M z = mr + i mi. */
static void overlap(int n, const double* pr, const double* pi, const double* mr, const double* mi, double* gr,
                    double* gi) {
    double re = 0.0, im = 0.0;
    for (int r = 0; r < n; r++) {
        re += pr[r] * mr[r] + pi[r] * mi[r];
        im += pr[r] * mi[r] - pi[r] * mr[r];
    }
    *gr = re, *gi = im;
}

/* The followed shapes (prev, previ: count of them) against the instant's
 * (M z in MZ, MZi: nev of them): the overlaps G + i Gi = prev^H M Z
 * (shapes normalised to x^H M x = 1; MAC = |G|^2), then the greedy
 * assignment, best remaining pair first: followed mode p is new mode perm[p]. */
static void follow_modes(int n, int count, int nev, const double* prev, const double* previ, const double* MZ,
                         const double* MZi, double* G, double* Gi, int* used, int* perm) {
    for (int p = 0; p < count; p++)
        for (int c = 0; c < nev; c++)
            overlap(n, prev + (size_t)p * n, previ + (size_t)p * n, MZ + (size_t)c * n, MZi + (size_t)c * n,
                    &G[p + (size_t)c * count], &Gi[p + (size_t)c * count]);
    memset(used, 0, sizeof(int) * (size_t)(nev + count));
    int* assigned = used + nev;  /* new modes taken, then followed modes served */
    for (int step = 0; step < count; step++) {
        double best = -1.0;
        int bp = 0, bc = 0;
        for (int p = 0; p < count; p++) {
            if (assigned[p]) continue;
            for (int c = 0; c < nev; c++) {
                const double mac = G[p + (size_t)c * count] * G[p + (size_t)c * count] +
                                   Gi[p + (size_t)c * count] * Gi[p + (size_t)c * count];
                if (!used[c] && mac > best) best = mac, bp = p, bc = c;
            }
        }
        assigned[bp] = 1;
        used[bc] = 1;
        perm[bp] = bc;
    }
}

kd_status kd_ked_modes_along_motion_opt(kd_ked* k, int link, int count, int gyroscopic, kd_ked_modes* out,
                                        kd_error* err) {
    memset(out, 0, sizeof(*out));
    kd_ked_link* L = &k->link[link];
    kd_system s;
    if (gyroscopic && L->model->neq > KD_GYRO_MAX)
        return kd_error_set(err, KD_ERR_USAGE, "", KD_LOC_NONE,
                            "link '%s': the gyroscopic modes use a dense state-space solver limited to %d equations "
                            "(the link has %d; gyroscopic: false takes the symmetric problem)",
                            L->name, KD_GYRO_MAX, L->model->neq);
    kd_status st = kd_system_init(&s, L->model, err);
    if (st) return st;
    const int n = s.n, ns = k->rigid.nsamples;
    if (count > n) count = n;
    const int nev = count + 2 < n ? count + 2 : n;  /* two more, so a mode entering from above is followed */
    const int kd = s.kd;
    const size_t nb = (size_t)(kd + 1) * (size_t)n, nn = (size_t)n * (size_t)n;
    kd_gband C = {0}, K = {0};
    double* buf = malloc(sizeof(double) * (3 * nb + nn + 7 * (size_t)n + (size_t)n * (3 * (size_t)nev + 1) +
                                           (size_t)(count * nev) + 1));
    lapack_int* iwork = malloc(sizeof(lapack_int) * 12 * (size_t)n);
    const int dense = n <= KED_DENSE_MAX;
    double* Ud = dense ? malloc(sizeof(double) * 2 * nn) : NULL;  /* U (factor of M), then the reduced K */
    lapack_int lwork_d = 0, liwork_d = 0;
    double* work_d = NULL;
    if (dense && Ud) {
        /* workspaces of dsytrd, dstemr and dormtr, asked once */
        double wq[3];
        lapack_int iq = 0, mq = 0, tz = 0;
        LAPACKE_dsytrd_work(LAPACK_COL_MAJOR, 'U', n, Ud, n, NULL, NULL, NULL, &wq[0], -1);
        LAPACKE_dstemr_work(LAPACK_COL_MAJOR, 'V', 'I', n, NULL, NULL, 0.0, 0.0, 1, nev, &mq, NULL, NULL, n, nev, NULL,
                            &tz, &wq[1], -1, &iq, -1);
        LAPACKE_dormtr_work(LAPACK_COL_MAJOR, 'L', 'U', 'N', n, nev, Ud, n, NULL, NULL, n, &wq[2], -1);
        lwork_d = (lapack_int)fmax(wq[0], fmax(wq[1], wq[2])), liwork_d = iq;
        /* + the tridiagonal (d, e) and the reflectors' tau */
        work_d = malloc(sizeof(double) * ((size_t)lwork_d + 3 * (size_t)n + 1));
        if (liwork_d > 10 * n) liwork_d = 10 * n;
    }
    out->t = malloc(sizeof(double) * (size_t)ns);
    out->omega = malloc(sizeof(double) * (size_t)ns * (size_t)count);
    if (!st) st = kd_gband_init(&C, n, s.kd, s.kd);
    if (!st) st = kd_gband_init(&K, n, s.kd, s.kd);
    if (!st && (!buf || !iwork || !out->t || !out->omega)) st = KD_ERR_NOMEM;
    /* banded throughout: the cost of an instant grows linearly with the link's size */
    double *A = buf, *B = A + nb, *M = B + nb, *Q = M + nb, *work = Q + nn, *w = work + 7 * (size_t)n, *Z = w + n,
           *MZ = Z + (size_t)n * nev, *prev = MZ + (size_t)n * nev, *G = prev + (size_t)n * nev;
    lapack_int *ifail = iwork + 5 * (size_t)n, m_found = 0;
    if (!st && dense && (!Ud || !work_d)) st = KD_ERR_NOMEM;
    if (!st && dense) {
        band_to_dense(&s.M, Ud);
        if (LAPACKE_dpotrf_work(LAPACK_COL_MAJOR, 'U', n, Ud, n) != 0)
            st = kd_error_set(err, KD_ERR_NUMERIC, "", KD_LOC_NONE, "link '%s': the mass matrix is not positive definite",
                              L->name);
    }
    if (!st) {
        band_to_sym(&s.M, kd, M);
        out->nsamples = ns, out->count = count;
        out->mac_min = 1.0;
    }
    int* perm = calloc((size_t)nev, sizeof(int));
    int* used = calloc((size_t)(nev + count), sizeof(int));
    /* complex shapes of the state-space route (theory.md sec. 3, [c] and
     * [k(eps)]): real and imaginary parts of the new and followed shapes */
    double* cx = malloc(sizeof(double) * (size_t)n * (4 * (size_t)nev + 2 * (size_t)count + 2));
    double *Zi = cx, *MZi = Zi + (size_t)n * nev, *previ = MZi + (size_t)n * nev, *Gi = previ + (size_t)n * nev,
           *wgyro = Gi + (size_t)count * nev, *wgrowth = wgyro + nev;
    kd_gyro_ws gw = {0};
    if (!st && gyroscopic) st = kd_gyro_init(&gw, n, err);
    refine_ws rf = {0};
    if (!st && gyroscopic) st = refine_init(&rf, n, kd);
    if (!st && (!perm || !used || !cx)) st = KD_ERR_NOMEM;
    if (st == KD_ERR_NOMEM) kd_error_set(err, st, "", KD_LOC_NONE, "out of memory");
    for (int i = 0; i < ns && !st; i++) {
        const double t = k->rigid.t[i];
        double N, dN, d2N;
        kd_law_eval(&L->preload, t, &N, &dN, &d2N);
        L->model->body[0].preload = N;
        kd_system_invalidate(&s);
        int changed;
        kd_system_matrices(&s, t, &C, &K, &changed);
        lapack_int info = 0;
        const int gyro = gyroscopic && !instant_is_symmetric(&C, &K);
        if (dense) {
            double* Kd = Ud + nn;
            band_to_dense(&K, Kd);
            for (int c = 0; c < n; c++)  /* both triangles */
                for (int r = c + 1; r < n; r++) Kd[r + (size_t)c * n] = Kd[c + (size_t)r * n];
            /* U^-T K U^-1 by two triangular solves (level 3) */
            cblas_dtrsm(CblasColMajor, CblasLeft, CblasUpper, CblasTrans, CblasNonUnit, n, n, 1.0, Ud, n, Kd, n);
            cblas_dtrsm(CblasColMajor, CblasRight, CblasUpper, CblasNoTrans, CblasNonUnit, n, n, 1.0, Ud, n, Kd, n);
            /* lowest nev eigenpairs of the reduced K: Householder tridiagonal
             * form (dsytrd), MRRR on the index range (dstemr; dsyevr would take
             * bisection and inverse iteration for a subset), back-transformation
             * of the nev vectors only (dormtr) */
            double *d = work_d + lwork_d, *e = d + n, *tau = e + n;
            lapack_int tryrac = 1;
            info = LAPACKE_dsytrd_work(LAPACK_COL_MAJOR, 'U', n, Kd, n, d, e, tau, work_d, lwork_d);
            if (info == 0)
                info = LAPACKE_dstemr_work(LAPACK_COL_MAJOR, 'V', 'I', n, d, e, 0.0, 0.0, 1, nev, &m_found, w, Z, n, nev,
                                           iwork + 10 * (size_t)n, &tryrac, work_d, lwork_d, iwork, liwork_d);
            if (info == 0)
                info = LAPACKE_dormtr_work(LAPACK_COL_MAJOR, 'L', 'U', 'N', n, nev, Kd, n, tau, Z, n, work_d, lwork_d);
            if (info == 0)  /* z = U^-1 y: mass-normalised */
                cblas_dtrsm(CblasColMajor, CblasLeft, CblasUpper, CblasNoTrans, CblasNonUnit, n, nev, 1.0, Ud, n, Z, n);
        } else {
            band_to_sym(&K, kd, A);
            memcpy(B, M, sizeof(double) * nb);
            info = LAPACKE_dsbgvx_work(LAPACK_COL_MAJOR, 'V', 'I', 'U', n, kd, kd, A, kd + 1, B, kd + 1, Q, n, 0.0, 0.0, 1,
                                       nev, 0.0, &m_found, w, Z, n, work, iwork, ifail);
        }
        if (info != 0 || m_found < nev) {
            st = kd_error_set(err, KD_ERR_NUMERIC, "", KD_LOC_NONE,
                              "modes of link '%s' at t = %g s: the eigensolver failed (LAPACK info %d)", L->name,
                              t, (int)info);
            break;
        }
        if (gyro) out->state_space++;
        /* the symmetric route's shapes: real, M x for the MAC */
        memset(Zi, 0, sizeof(double) * (size_t)n * nev);
        memset(MZi, 0, sizeof(double) * (size_t)n * nev);
        for (int c = 0; c < nev; c++) kd_gband_matvec(&s.M, Z + (size_t)c * n, MZ + (size_t)c * n);
        int dense_ss = gyro && gyroscopic == KD_KED_GYRO_DENSE;
        for (int pass = 0; pass < 2; pass++) {
            if (dense_ss) {
                /* (s^2 M + s C + K) x = 0 in state-space form (kedyn/modes.h) */
                if ((st = kd_gyro_solve(&gw, &s.M, &C, &K, t, err))) {
                    char why[sizeof(err->msg)];
                    snprintf(why, sizeof(why), "%s", err->msg);
                    kd_error_set(err, st, "", KD_LOC_NONE, "modes of link '%s': %s", L->name, why);
                    break;
                }
                if (gw.nent < nev) {
                    st = kd_error_set(err, KD_ERR_NUMERIC, "", KD_LOC_NONE,
                                      "modes of link '%s' at t = %g s: %d eigenvalue pairs, %d wanted", L->name, t,
                                      gw.nent, nev);
                    break;
                }
                out->dense_instants++;
                for (int c = 0; c < nev; c++) {
                    double *zr = Z + (size_t)c * n, *zi = Zi + (size_t)c * n;
                    kd_gyro_shape(&gw, c, zr, zi);
                    normalise_shape(&s.M, zr, zi, MZ + (size_t)c * n, MZi + (size_t)c * n);
                    wgyro[c] = gw.ent[c].omega;
                    wgrowth[c] = gw.ent[c].growth;
                }
            }
            if (i == 0)
                for (int c = 0; c < nev; c++) perm[c] = c;
            else
                follow_modes(n, count, nev, prev, previ, MZ, MZi, G, Gi, used, perm);
            if (!gyro || dense_ss) break;
            /* the followed modes of the symmetric route, refined into the
             * quadratic problem's; the dense solver where that fails */
            int ok = 1;
            for (int p = 0; p < count && ok; p++)
                ok = refine_mode(&rf, perm[p], nev, &s.M, &C, &K, w, Z, Zi, MZ, MZi, wgyro, wgrowth);
            if (ok) {
                for (int p = 0; p < count && i > 0; p++) {  /* overlaps of the refined shapes */
                    const size_t o = (size_t)perm[p] * n;
                    overlap(n, prev + (size_t)p * n, previ + (size_t)p * n, MZ + o, MZi + o,
                            &G[p + (size_t)perm[p] * count], &Gi[p + (size_t)perm[p] * count]);
                }
                break;
            }
            dense_ss = 1;
        }
        if (st) break;
        out->t[i] = t;
        if (i > 0) {
            int swapped = 0;
            for (int p = 0; p < count; p++) {
                const double gr = G[p + (size_t)perm[p] * count], gi = Gi[p + (size_t)perm[p] * count];
                if (gr * gr + gi * gi < out->mac_min) out->mac_min = gr * gr + gi * gi;
                swapped |= perm[p] != p;
            }
            out->swaps += swapped;
        }
        /* keep the followed shapes, phase (sign) aligned with the previous
         * instant: multiplied by conj(G) / |G| */
        for (int p = 0; p < count; p++) {
            const int c = perm[p];
            double cr = 1.0, ci = 0.0;
            if (i > 0) {
                const double gr = G[p + (size_t)c * count], gi = Gi[p + (size_t)c * count], ga = hypot(gr, gi);
                if (ga > 0) cr = gr / ga, ci = -gi / ga;
            }
            const double *zr = Z + (size_t)c * n, *zi = Zi + (size_t)c * n;
            double *pr = prev + (size_t)p * n, *pi = previ + (size_t)p * n;
            for (int r = 0; r < n; r++) {
                const double xi = zi[r];
                pr[r] = cr * zr[r] - ci * xi;
                pi[r] = cr * xi + ci * zr[r];
            }
            out->omega[(size_t)i * count + p] = gyro ? wgyro[c] : sqrt(fmax(w[c], 0.0));
            if (gyro && wgrowth[c] > out->growth_max) out->growth_max = wgrowth[c];
        }
    }
    free(perm);
    free(used);
    free(cx);
    kd_gyro_free(&gw);
    refine_free(&rf);
    free(buf);
    free(iwork);
    free(Ud);
    free(work_d);
    kd_gband_free(&C);
    kd_gband_free(&K);
    kd_system_free(&s);
    if (st) kd_ked_modes_free(out);
    return st;
}
