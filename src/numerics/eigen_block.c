/* Block shift-invert Lanczos for the lowest modes of large sparse models (eigen_internal.h).
 *
 * The operator is OP = (K - sigma M)^-1 M, self-adjoint in the M inner product, with eigenvalues
 * theta = 1 / (lambda - sigma) (sigma below the spectrum: the lowest lambda are the largest theta).
 * A block of p vectors advances per step, so each pass over the Cholesky factor (the dominant cost:
 * a factor of a 216 543-DOF plate holds 212 MB) serves p right-hand sides with level-3 BLAS, against
 * one vector per pass for ARPACK's dsaupd. Block Lanczos (Golub & Underwood 1977; Grimes, Lewis &
 * Simon 1994, the shift-invert block Lanczos of MSC/NASTRAN):
 *
 *   W = OP V_j,  W -= V H (H = V^T M W: first over the last two blocks, the three-term
 *   recurrence, then once more over every block, full reorthogonalisation),
 *   W = V_{j+1} B_j (M-orthonormal: Cholesky QR twice),
 *
 * so that OP V = V T + V_{j+1} B_j E_j^T with T = V^T M OP V block tridiagonal. The Ritz pairs
 * (theta, V s) of T have the M-norm residual ||OP V s - theta V s||_M = ||B_j s_j|| (s_j: the last
 * p entries of s), the convergence test. The full pass keeps V M-orthonormal to ~2e-15 (measured
 * on the 216 543-DOF plate). When the basis is full, the best count + p Ritz vectors stay
 * (thick restart). The eigenvectors are M-normalised (V is M-orthonormal,
 * ||s|| = 1). */
#include <cblas.h>
#include <lapacke.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "numerics/eigen_internal.h"

/* Relative residual ||OP x - theta x||_M <= TOL theta for a converged pair: the eigenvector's error
 * is then about TOL theta / gap, the eigenvalue's TOL^2 theta / gap (below the factorisation's
 * round-off; the modes at rest are recomputed as Rayleigh quotients in any case). The residual
 * falls about 40 times per block step on the 300 x 240 plates (at rest and at 1 000 rad/s): 1e-7
 * takes 10 block steps where 1e-8 took 11 (1e-10: 13), eigenvalues equal to ARPACK's to
 * 8e-12 and eigenvectors to 1 - |cos| < 5e-15 on the plates of tests/eigen_block_test.c. */
#define BLOCK_TOL 1e-7

/* Block size: 8 vectors per pass over the factor cost about 2.5 single-vector solves (the pass
 * becomes flop-bound); the lowest 15 modes of the 216 543-DOF plate converge in 11 steps (88
 * vectors) against ARPACK's 62 single solves; blocks of 4, 12 and 16 cost the same or 10 to 25 %
 * more (docs/performance.md). */
#define BLOCK_P 8

/* Deterministic pseudo-random start (reproducible runs). */
static double lcg(unsigned long long* s) {
    *s = *s * 6364136223846793005ULL + 1442695040888963407ULL;
    return (double)(*s >> 11) / 9007199254740992.0 - 0.5;
}

typedef struct block_ws {
    int n, p, mmax;
    double *V, *MV;     /* basis and M times basis, n x mmax each */
    double *W, *Z;      /* the new block and M W, n x p */
    double *H, *G, *R;  /* coefficients (mmax x p), Gram and triangular (p x p) */
    eigen_block_mass mass;
    const void* mass_ctx;
} block_ws;

/* W -= V H, H = V^T M W over the basis vectors first..m-1; accumulates H into rows first..m-1
 * of acc (m x p) when given. */
static void project_range(block_ws* w, int first, int m, double* acc) {
    const int n = w->n, p = w->p, k = m - first;
    if (k <= 0) return;
    const double *V = w->V + (size_t)first * n, *MV = w->MV + (size_t)first * n;
    cblas_dgemm(CblasColMajor, CblasTrans, CblasNoTrans, k, p, n, 1.0, MV, n, w->W, n, 0.0, w->H, k);
    cblas_dgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, n, p, k, -1.0, V, n, w->H, k, 1.0, w->W, n);
    if (acc)
        for (int c = 0; c < p; c++)
            for (int r = 0; r < k; r++) acc[(size_t)c * m + first + r] += w->H[(size_t)c * k + r];
}

static void project_out(block_ws* w, int m, double* acc) { project_range(w, 0, m, acc); }

/* M-orthonormalise W in place (W = Q Rout, Q^T M Q = I) by Cholesky QR twice, Z = M Q; Rout
 * (p x p, upper, column-major) when given. Returns -1 if W is (numerically) rank deficient. */
static int chol_qr(block_ws* w, double* Rout) {
    const int n = w->n, p = w->p;
    if (Rout) {
        memset(Rout, 0, sizeof(double) * (size_t)p * p);
        for (int i = 0; i < p; i++) Rout[(size_t)i * p + i] = 1;
    }
    w->mass(w->mass_ctx, p, w->W, w->Z);
    for (int pass = 0; pass < 2; pass++) {
        cblas_dgemm(CblasColMajor, CblasTrans, CblasNoTrans, p, p, n, 1.0, w->W, n, w->Z, n, 0.0, w->G, p);
        double gmax = 0;
        for (int i = 0; i < p; i++) gmax = fmax(gmax, w->G[(size_t)i * p + i]);
        if (LAPACKE_dpotrf(LAPACK_COL_MAJOR, 'U', p, w->G, p) != 0) return -1;
        for (int i = 0; i < p; i++)
            if (!(w->G[(size_t)i * p + i] > 1e-7 * sqrt(gmax))) return -1;
        cblas_dtrsm(CblasColMajor, CblasRight, CblasUpper, CblasNoTrans, CblasNonUnit, n, p, 1.0, w->G, p, w->W, n);
        cblas_dtrsm(CblasColMajor, CblasRight, CblasUpper, CblasNoTrans, CblasNonUnit, n, p, 1.0, w->G, p, w->Z, n);
        if (Rout) cblas_dtrmm(CblasColMajor, CblasLeft, CblasUpper, CblasNoTrans, CblasNonUnit, p, p, 1.0, w->G, p, Rout, p);
    }
    return 0;
}

/* A fresh M-orthonormal block orthogonal to the m basis vectors (start, or a breakdown). */
static int random_block(block_ws* w, int m, unsigned long long* seed) {
    for (int attempt = 0; attempt < 3; attempt++) {
        for (size_t i = 0; i < (size_t)w->n * w->p; i++) w->W[i] = lcg(seed);
        project_out(w, m, NULL);
        project_out(w, m, NULL);
        if (chol_qr(w, NULL) == 0) return 0;
    }
    return -1;
}

kd_status eigen_block_shift_invert(int n, int count, double sigma, eigen_block_mass mass, const void* mass_ctx,
                                   eigen_block_solve solve, void* ctx, kd_modes* out, kd_error* err) {
    block_ws w = {0};
    w.n = n, w.mass = mass, w.mass_ctx = mass_ctx;
    w.p = BLOCK_P;
    w.mmax = BLOCK_P * (2 * count + 4 * BLOCK_P > 14 * BLOCK_P ? (2 * count + 5 * BLOCK_P - 1) / BLOCK_P : 14);
    if (w.mmax > n / 2) return kd_error_set(err, KD_ERR_USAGE, "", KD_LOC_NONE, "block Lanczos: model too small");
    const int p = w.p, mmax = w.mmax;
    kd_status st = KD_OK;
    w.V = malloc(sizeof(double) * (size_t)n * mmax);
    w.MV = malloc(sizeof(double) * (size_t)n * mmax);
    w.W = malloc(sizeof(double) * (size_t)n * p);
    w.Z = malloc(sizeof(double) * (size_t)n * p);
    w.H = malloc(sizeof(double) * (size_t)mmax * p);
    w.G = malloc(sizeof(double) * (size_t)p * p);
    w.R = malloc(sizeof(double) * (size_t)p * p);
    double* T = malloc(sizeof(double) * (size_t)mmax * mmax);   /* V^T M OP V */
    double* S = malloc(sizeof(double) * (size_t)mmax * mmax);   /* its eigenvectors */
    double* theta = malloc(sizeof(double) * (size_t)mmax);
    double* acc = malloc(sizeof(double) * (size_t)(mmax * p > 256 * mmax ? mmax * p : 256 * mmax));
    if (!w.V || !w.MV || !w.W || !w.Z || !w.H || !w.G || !w.R || !T || !S || !theta || !acc) {
        st = kd_error_set(err, KD_ERR_NOMEM, "", KD_LOC_NONE, "out of memory in the block Lanczos eigensolver");
        goto done;
    }
    unsigned long long seed = 0x9e3779b97f4a7c15ULL;
    if (random_block(&w, 0, &seed)) {
        st = kd_error_set(err, KD_ERR_NUMERIC, "", KD_LOC_NONE, "block Lanczos: no starting block");
        goto done;
    }
    int m = 0, converged = 0;
    memset(T, 0, sizeof(double) * (size_t)mmax * mmax);
    for (int restart = 0; restart < 50 && !converged; restart++) {
        /* the current block W (M W in Z) extends the basis */
        for (;;) {
            memcpy(w.V + (size_t)m * n, w.W, sizeof(double) * (size_t)n * p);
            memcpy(w.MV + (size_t)m * n, w.Z, sizeof(double) * (size_t)n * p);
            m += p;
            /* W = OP V_j = (K - sigma M)^-1 (M V_j) */
            memcpy(w.W, w.Z, sizeof(double) * (size_t)n * p);
            if (solve(ctx, p, w.W)) {
                st = kd_error_set(err, KD_ERR_NOMEM, "", KD_LOC_NONE, "block Lanczos: the shifted solve failed");
                goto done;
            }
            memset(acc, 0, sizeof(double) * (size_t)m * p);
            /* the Lanczos step (the last two blocks), then one full reorthogonalisation */
            project_range(&w, m > 2 * p ? m - 2 * p : 0, m, acc);
            project_out(&w, m, acc);
            for (int c = 0; c < p; c++)   /* column block j of T (its upper part: T symmetric) */
                for (int r = 0; r < m; r++) T[(size_t)(m - p + c) * mmax + r] = acc[(size_t)c * m + r];
            const int breakdown = chol_qr(&w, w.R) != 0;
            if (breakdown) {  /* an invariant subspace: any new direction continues (B_j = 0) */
                memset(w.R, 0, sizeof(double) * (size_t)p * p);
                if (random_block(&w, m, &seed)) {
                    st = kd_error_set(err, KD_ERR_NUMERIC, "", KD_LOC_NONE, "block Lanczos: breakdown");
                    goto done;
                }
            }
            /* Ritz pairs of the symmetric T (upper triangle, m x m) */
            for (int c = 0; c < m; c++)
                for (int r = 0; r < m; r++) S[(size_t)c * m + r] = r <= c ? T[(size_t)c * mmax + r] : T[(size_t)r * mmax + c];
            if (LAPACKE_dsyev(LAPACK_COL_MAJOR, 'V', 'U', m, S, m, theta) != 0) {
                st = kd_error_set(err, KD_ERR_NUMERIC, "", KD_LOC_NONE, "block Lanczos: Ritz values failed");
                goto done;
            }
            /* theta ascending: the wanted ones are the last count; residual ||B_j s_j|| */
            converged = m >= 2 * p;
            for (int k = 0; k < count && converged; k++) {
                const int c = m - 1 - k;
                double res2 = 0;
                for (int i = 0; i < p; i++) {
                    double r = 0;
                    for (int l = i; l < p; l++) r += w.R[(size_t)l * p + i] * S[(size_t)c * m + m - p + l];
                    res2 += r * r;
                }
                converged = sqrt(res2) <= BLOCK_TOL * fabs(theta[c]);
            }
            if (converged || m + p > mmax) break;
        }
        if (converged) break;
        /* thick restart (Wu & Simon 2000): the kk best Ritz vectors Y = V S_kk (and M Y) stay, with
         * T = diag(theta) on them; OP Y = Y Theta + V_{j+1} B_j S_last keeps the Krylov relation,
         * so the next block, V_{j+1} (in W, Z), continues and the projection fills its coupling */
        const int kk = count + p < m - p ? count + p : m - p;
        const double* Sk = S + (size_t)(m - kk) * m;
        for (int pass = 0; pass < 2; pass++) {
            double* A = pass ? w.MV : w.V;
            for (int r0 = 0; r0 < n; r0 += 256) {  /* in place, by rows: A(rows, 0:kk) = A(rows, 0:m) S_kk */
                const int nr = n - r0 < 256 ? n - r0 : 256;
                cblas_dgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, nr, kk, m, 1.0, A + r0, n, Sk, m, 0.0, acc, nr);
                for (int c = 0; c < kk; c++) memcpy(A + (size_t)c * n + r0, acc + (size_t)c * nr, sizeof(double) * (size_t)nr);
            }
        }
        memset(T, 0, sizeof(double) * (size_t)mmax * mmax);
        for (int i = 0; i < kk; i++) T[(size_t)i * mmax + i] = theta[m - kk + i];
        m = kk;
    }
    if (!converged) {
        st = kd_error_set(err, KD_ERR_NUMERIC, "", KD_LOC_NONE, "the block Lanczos eigensolver did not converge");
        goto done;
    }
    /* eigenpairs ascending in lambda = sigma + 1/theta: theta descending */
    for (int k = 0; k < count; k++) {
        const int c = m - 1 - k;
        out->lambda[k] = sigma + 1.0 / theta[c];
        memcpy(T + (size_t)k * m, S + (size_t)c * m, sizeof(double) * (size_t)m);
    }
    cblas_dgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, n, count, m, 1.0, w.V, n, T, m, 0.0, out->shape, n);
done:
    free(w.V);
    free(w.MV);
    free(w.W);
    free(w.Z);
    free(w.H);
    free(w.G);
    free(w.R);
    free(T);
    free(S);
    free(theta);
    free(acc);
    return st;
}
