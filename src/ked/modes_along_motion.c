/* Natural frequencies of an elastic link along the rigid motion of its
 * mechanism, followed by the modal assurance criterion (kedyn/ked.h). */
#include <cblas.h>
#include <lapacke.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "kedyn/ked.h"
#include "kedyn/system.h"
#include "ked_blas.h"

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
 * LAPACK's MRRR (dsyevr) and z = U^-1 y (fewer operations than the banded
 * reduction at these sizes); larger links the banded dsbgvx, whose cost grows
 * linearly with the link. */
#define KED_DENSE_MAX 200

kd_status kd_ked_modes_along_motion(kd_ked* k, int link, int count, kd_ked_modes* out, kd_error* err) {
    memset(out, 0, sizeof(*out));
    kd_ked_link* L = &k->link[link];
    kd_system s;
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
        /* workspace of dsyevr, asked once */
        double wq;
        lapack_int iq, mq;
        LAPACKE_dsyevr_work(LAPACK_COL_MAJOR, 'V', 'I', 'U', n, Ud, n, 0.0, 0.0, 1, nev, 0.0, &mq, NULL, NULL, n, NULL,
                            &wq, -1, &iq, -1);
        lwork_d = (lapack_int)wq, liwork_d = iq;
        work_d = malloc(sizeof(double) * (size_t)(lwork_d + 1));
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
    const int blas_threads = dense ? ked_blas_single() : 0;  /* small dense problems (ked_blas.h) */
    int* perm = calloc((size_t)nev, sizeof(int));
    int* used = calloc((size_t)(nev + count), sizeof(int));  /* new modes taken, then followed modes served */
    if (!st && (!perm || !used)) st = KD_ERR_NOMEM;
    if (st == KD_ERR_NOMEM) kd_error_set(err, st, "", KD_LOC_NONE, "out of memory");
    for (int i = 0; i < ns && !st; i++) {
        const double t = k->rigid.t[i];
        double N, dN, d2N;
        kd_law_eval(&L->preload, t, &N, &dN, &d2N);
        L->model->body[0].preload = N;
        kd_system_invalidate(&s);
        int changed;
        kd_system_matrices(&s, t, &C, &K, &changed);
        lapack_int info;
        if (dense) {
            double* Kd = Ud + nn;
            band_to_dense(&K, Kd);
            for (int c = 0; c < n; c++)  /* both triangles */
                for (int r = c + 1; r < n; r++) Kd[r + (size_t)c * n] = Kd[c + (size_t)r * n];
            /* U^-T K U^-1 by two triangular solves (level 3) */
            cblas_dtrsm(CblasColMajor, CblasLeft, CblasUpper, CblasTrans, CblasNonUnit, n, n, 1.0, Ud, n, Kd, n);
            cblas_dtrsm(CblasColMajor, CblasRight, CblasUpper, CblasNoTrans, CblasNonUnit, n, n, 1.0, Ud, n, Kd, n);
            info = 0;
            if (info == 0)
                info = LAPACKE_dsyevr_work(LAPACK_COL_MAJOR, 'V', 'I', 'U', n, Kd, n, 0.0, 0.0, 1, nev, 0.0, &m_found, w, Z,
                                           n, iwork + 10 * (size_t)n, work_d, lwork_d, iwork, liwork_d);
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
        out->t[i] = t;
        if (i == 0) {
            for (int c = 0; c < nev; c++) perm[c] = c;
        } else {
            /* MAC of the followed shapes against the new ones: G = prev^T M Z (mass-normalised) */
            for (int c = 0; c < nev; c++) kd_gband_matvec(&s.M, Z + (size_t)c * n, MZ + (size_t)c * n);
            for (int p = 0; p < count; p++)
                for (int c = 0; c < nev; c++) {
                    double sum = 0.0;
                    for (int r = 0; r < n; r++) sum += prev[r + (size_t)p * n] * MZ[r + (size_t)c * n];
                    G[p + (size_t)c * count] = sum;
                }
            /* greedy assignment: the best remaining pair first */
            memset(used, 0, sizeof(int) * (size_t)(nev + count));
            int* assigned = used + nev;
            for (int step = 0; step < count; step++) {
                double best = -1.0;
                int bp = 0, bc = 0;
                for (int p = 0; p < count; p++) {
                    if (assigned[p]) continue;
                    for (int c = 0; c < nev; c++) {
                        const double mac = G[p + (size_t)c * count] * G[p + (size_t)c * count];
                        if (!used[c] && mac > best) best = mac, bp = p, bc = c;
                    }
                }
                assigned[bp] = 1;
                used[bc] = 1;
                perm[bp] = bc;
                if (best < out->mac_min) out->mac_min = best;
            }
            int swapped = 0;
            for (int p = 0; p < count; p++) swapped |= perm[p] != p;
            out->swaps += swapped;
        }
        /* keep the followed shapes, signs aligned with the previous instant */
        for (int p = 0; p < count; p++) {
            const int c = perm[p];
            const double sg = (i > 0 && G[p + (size_t)c * count] < 0) ? -1.0 : 1.0;
            for (int r = 0; r < n; r++) prev[r + (size_t)p * n] = sg * Z[r + (size_t)c * n];
            out->omega[(size_t)i * count + p] = sqrt(fmax(w[c], 0.0));
        }
    }
    ked_blas_restore(blas_threads);
    free(perm);
    free(used);
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
