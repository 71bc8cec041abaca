/* Sparse generalized symmetric eigensolver for the lowest modes of large
 * models: ARPACK-ng implicitly restarted Lanczos in shift-invert mode
 * (dsaupd mode 3, B = M) with a banded Cholesky factorisation of K - sigma M
 * (LAPACK dpbtrf/dpbtrs). Each iteration costs O(neq x bandwidth).
 *
 * sigma < 0 keeps K - sigma M positive definite even when K is singular
 * (free bodies), and the eigenvalues nearest sigma, the lowest ones, converge
 * first: OP = (K - sigma M)^-1 M has eigenvalues 1 / (lambda - sigma). */
#include <pthread.h>
#include <arpack/arpack.h>
#include <lapacke.h>
#include <stdlib.h>
#include <string.h>

#include "numerics/eigen_internal.h"

/* y = (K - sigma M)^-1 x with the banded Cholesky factor in ctx. */
pthread_mutex_t eigen_arpack_lock = PTHREAD_MUTEX_INITIALIZER;

static void solve_shifted(void* ctx, const double* x, double* y) {
    const kd_band* fac = ctx;
    memcpy(y, x, sizeof(double) * (size_t)fac->n);
    LAPACKE_dpbtrs(LAPACK_COL_MAJOR, 'U', fac->n, fac->kd, 1, fac->ab, fac->kd + 1, y, fac->n);
}

void eigen_band_matvec(const void* band, const double* x, double* y) { kd_band_matvec(band, x, y); }

kd_status eigen_arpack_shift_invert(int n, int count, double sigma, eigen_mass_product mass, const void* mass_ctx,
                                    eigen_shifted_solve solve, void* ctx, kd_modes* out, kd_error* err) {
    const int ncv = count * 2 + 1 > 20 ? (count * 2 + 1 < n ? count * 2 + 1 : n) : (20 < n ? 20 : n);
    const int lworkl = ncv * (ncv + 8);
    kd_status st = KD_OK;
    double* resid = malloc(sizeof(double) * (size_t)n);
    double* v = malloc(sizeof(double) * (size_t)n * (size_t)ncv);
    double* workd = malloc(sizeof(double) * 3 * (size_t)n);
    double* workl = malloc(sizeof(double) * (size_t)lworkl);
    double* d = malloc(sizeof(double) * (size_t)ncv);
    double* tmp = malloc(sizeof(double) * (size_t)n);
    a_int* select = calloc((size_t)ncv, sizeof(a_int));
    if (!resid || !v || !workd || !workl || !d || !tmp || !select) {
        st = kd_error_set(err, KD_ERR_NOMEM, "", KD_LOC_NONE, "out of memory in the Lanczos eigensolver");
        goto done;
    }
    /* Reverse-communication loop. A fixed starting vector keeps runs
     * reproducible (64-bit product: i * 7919 overflows an int past 271 183). */
    a_int ido = 0, ainfo = 1, iparam[11] = {0}, ipntr[14] = {0};
    for (int i = 0; i < n; i++) resid[i] = 1.0 + 0.1 * (double)(((long long)i * 7919) % 97) / 97.0;
    iparam[0] = 1;       /* exact shifts */
    iparam[2] = 10 * n;  /* maximum restarts */
    iparam[3] = 1;
    iparam[6] = 3;       /* mode 3: shift-invert, generalized */
    /* ARPACK keeps its state between calls in SAVE'd Fortran variables: one solve at a time in
     * the process (the threads of a parallel study wait here). */
    pthread_mutex_lock(&eigen_arpack_lock);
    for (;;) {
        dsaupd_c(&ido, "G", n, "LM", count, 0.0, resid, ncv, v, n, iparam, ipntr, workd, workl, lworkl, &ainfo);
        double* x = workd + ipntr[0] - 1;
        double* y = workd + ipntr[1] - 1;
        if (ido == -1) {            /* y = OP x = (K - sigma M)^-1 M x */
            mass(mass_ctx, x, tmp);
            solve(ctx, tmp, y);
        } else if (ido == 1) {      /* y = (K - sigma M)^-1 (M x), M x given */
            solve(ctx, workd + ipntr[2] - 1, y);
        } else if (ido == 2) {      /* y = M x */
            mass(mass_ctx, x, y);
        } else {
            break;
        }
    }
    if (ainfo < 0 || ainfo == 1 || iparam[4] < count) {
        pthread_mutex_unlock(&eigen_arpack_lock);
        st = kd_error_set(err, KD_ERR_NUMERIC, "", KD_LOC_NONE,
                          "the Lanczos eigensolver did not converge (ARPACK dsaupd info %d, %d of %d modes)",
                          (int)ainfo, (int)iparam[4], count);
        goto done;
    }
    dseupd_c(1, "A", select, d, out->shape, n, sigma, "G", n, "LM", count, 0.0, resid, ncv, v, n, iparam, ipntr,
             workd, workl, lworkl, &ainfo);
    pthread_mutex_unlock(&eigen_arpack_lock);
    if (ainfo != 0) {
        st = kd_error_set(err, KD_ERR_NUMERIC, "", KD_LOC_NONE,
                          "the Lanczos eigensolver failed to extract the modes (ARPACK dseupd info %d)", (int)ainfo);
        goto done;
    }
    /* dseupd returns the eigenvalues ascending with their vectors. */
    for (int k = 0; k < count; k++) out->lambda[k] = d[k];
done:
    free(resid);
    free(v);
    free(workd);
    free(workl);
    free(d);
    free(tmp);
    free(select);
    return st;
}

kd_status kd_eigen_lanczos(const kd_band* K, const kd_band* M, int count, double sigma, kd_modes* out,
                           kd_error* err) {
    const int n = K->n;
    kd_band fac = {0};
    if (kd_band_init(&fac, n, K->kd))
        return kd_error_set(err, KD_ERR_NOMEM, "", KD_LOC_NONE, "out of memory in the Lanczos eigensolver");
    /* Factor K - sigma M (same band layout). */
    const size_t nab = (size_t)(K->kd + 1) * (size_t)n;
    for (size_t i = 0; i < nab; i++) fac.ab[i] = K->ab[i] - sigma * M->ab[i];
    const lapack_int info = LAPACKE_dpbtrf(LAPACK_COL_MAJOR, 'U', n, fac.kd, fac.ab, fac.kd + 1);
    kd_status st;
    if (info != 0)
        st = kd_error_set(err, KD_ERR_NUMERIC, "", KD_LOC_NONE,
                          "K - sigma M is not positive definite at sigma = %g (pivot %d): is the mass matrix "
                          "singular?",
                          sigma, (int)info);
    else
        st = eigen_arpack_shift_invert(n, count, sigma, eigen_band_matvec, M, solve_shifted, &fac, out, err);
    kd_band_free(&fac);
    return st;
}
