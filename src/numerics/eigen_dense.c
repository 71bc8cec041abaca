/* Dense generalized symmetric eigensolver for small problems (LAPACK
 * dsygvx on the expanded banded matrices).
 *
 * Dense symmetric eigensolvers are accurate to eps ||A|| in absolute terms,
 * so solving K x = lambda M x directly would give the lowest frequencies of
 * a fine beam mesh only to eps lambda_max / lambda_1 (1e-8 relative already
 * at 40 Euler-Bernoulli elements). We solve the inverted, shifted problem
 *   M x = mu (K - sigma M) x,   mu = 1 / (lambda - sigma),  sigma < 0,
 * whose largest mu are the lowest lambda, computed to full relative accuracy
 * (the same transformation as the shift-invert Lanczos solver). */
#include <lapacke.h>
#include <math.h>
#include <stdlib.h>

#include "kedyn/modes.h"

kd_status kd_eigen_dense(const kd_band* K, const kd_band* M, int count, double sigma, kd_modes* out,
                         kd_error* err) {
    const int n = K->n;
    const size_t nn = (size_t)n * (size_t)n;
    double* a = malloc(sizeof(double) * nn);
    double* b = malloc(sizeof(double) * nn);
    double* w = malloc(sizeof(double) * (size_t)n);
    lapack_int* ifail = malloc(sizeof(lapack_int) * (size_t)n);
    kd_status st = KD_OK;
    if (!a || !b || !w || !ifail) {
        st = kd_error_set(err, KD_ERR_NOMEM, "", KD_LOC_NONE, "out of memory in the dense eigensolver");
        goto done;
    }
    kd_band_to_dense(M, a);
    kd_band_to_dense(K, b);
    for (size_t i = 0; i < nn; i++) b[i] -= sigma * a[i];
    lapack_int found = 0;
    const lapack_int info = LAPACKE_dsygvx(LAPACK_COL_MAJOR, 1, 'V', 'I', 'U', n, a, n, b, n, 0.0, 0.0,
                                           n - count + 1, n, 0.0, &found, w, out->shape, n, ifail);
    if (info != 0 || found != count) {
        st = kd_error_set(err, KD_ERR_NUMERIC, "", KD_LOC_NONE,
                          info > n ? "K - sigma M is not positive definite at sigma = %g (LAPACK dsygvx info %d)"
                                   : "the dense eigensolver failed at sigma = %g (LAPACK dsygvx info %d)",
                          sigma, (int)info);
        goto done;
    }
    /* Back to lambda, and from (K - sigma M)-normalised to mass-normalised
     * vectors: x^T M x = mu x^T (K - sigma M) x = mu. */
    for (int k = 0; k < count; k++) {
        const double mu = w[k];
        double* x = out->shape + (size_t)k * (size_t)n;
        out->lambda[k] = sigma + 1.0 / mu;
        const double s = 1.0 / sqrt(mu);
        for (int i = 0; i < n; i++) x[i] *= s;
    }
done:
    free(a);
    free(b);
    free(w);
    free(ifail);
    return st;
}
