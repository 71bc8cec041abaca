/* Least-squares frequency-domain (LSFD) fit of the residues of given poles, with lower and
 * upper residuals, by linear least squares (docs/theory.md, "LSFD"). */
#include <complex.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <lapacke.h>

#include "kedyn/signal.h"

#define KD_PI 3.14159265358979323846

kd_status kd_lsfd(const double* f, const double* frf, int nf, int nchan, double fmin, double fmax,
                  kd_frf_quantity quantity, const double* pole_f, const double* pole_zeta,
                  int nmodes, double* shape, kd_error* err)
{
    if (nmodes < 1 || nchan < 1 || nf < 1)
        return kd_error_set(err, KD_ERR_USAGE, "", KD_LOC_NONE, "LSFD needs at least one pole and one FRF");
    for (int r = 0; r < nmodes; r++)
        if (!(pole_f[r] > 0.0) || !(pole_zeta[r] >= 0.0 && pole_zeta[r] < 1.0))
            return kd_error_set(err, KD_ERR_USAGE, "", KD_LOC_NONE,
                                "LSFD: pole %d has f = %g Hz, zeta = %g (need f > 0, 0 <= zeta < 1)", r + 1,
                                pole_f[r], pole_zeta[r]);
    /* the band's lines, f > 0 (the lower residual is singular at 0) */
    int lo = 0, hi = nf - 1;
    while (lo < nf && (f[lo] < fmin || !(f[lo] > 0.0)))
        lo++;
    if (fmax > 0.0)
        while (hi >= 0 && f[hi] > fmax)
            hi--;
    int nl = hi - lo + 1, ncol = 2 * nmodes + 2, rows = 2 * nl;
    if (nl < ncol)
        return kd_error_set(err, KD_ERR_USAGE, "", KD_LOC_NONE,
                            "LSFD: %d lines in the band for %d unknowns per channel", nl < 0 ? 0 : nl, ncol);
    double* A = malloc(sizeof(double) * (size_t)rows * (size_t)ncol);
    double* B = malloc(sizeof(double) * (size_t)rows * (size_t)nchan);
    double* scale = malloc(sizeof(double) * (size_t)ncol);
    double complex* lam = malloc(sizeof(double complex) * (size_t)nmodes);
    if (!A || !B || !scale || !lam) {
        free(A);
        free(B);
        free(scale);
        free(lam);
        return KD_ERR_NOMEM;
    }
    for (int r = 0; r < nmodes; r++) {
        double wn = 2.0 * KD_PI * pole_f[r], z = pole_zeta[r];
        lam[r] = -z * wn + I * wn * sqrt(z < 1.0 ? 1.0 - z * z : 0.0);
    }
    /* H(w) = (iw)^q [ sum_r A_r/(iw - l_r) + conj(A_r)/(iw - conj(l_r)) + LR/(iw)^2 + UR ]:
     * real unknowns Re A_r, Im A_r, LR, UR; rows Re and Im of each line (column-major) */
    for (int l = 0; l < nl; l++) {
        double w = 2.0 * KD_PI * f[lo + l];
        double complex s = I * w, sq;
        if (quantity == KD_FRF_DISPLACEMENT)
            sq = 1.0;
        else if (quantity == KD_FRF_VELOCITY)
            sq = s;
        else
            sq = s * s;
        for (int r = 0; r < nmodes; r++) {
            double complex a = 1.0 / (s - lam[r]), b = 1.0 / (s - conj(lam[r]));
            double complex gre = sq * (a + b), gim = sq * (I * a - I * b);
            A[(size_t)(2 * r) * rows + l] = creal(gre);
            A[(size_t)(2 * r) * rows + nl + l] = cimag(gre);
            A[(size_t)(2 * r + 1) * rows + l] = creal(gim);
            A[(size_t)(2 * r + 1) * rows + nl + l] = cimag(gim);
        }
        double complex glr = sq / (s * s), gur = sq;
        A[(size_t)(ncol - 2) * rows + l] = creal(glr);
        A[(size_t)(ncol - 2) * rows + nl + l] = cimag(glr);
        A[(size_t)(ncol - 1) * rows + l] = creal(gur);
        A[(size_t)(ncol - 1) * rows + nl + l] = cimag(gur);
        for (int c = 0; c < nchan; c++) {
            B[(size_t)c * rows + l] = frf[2 * ((size_t)c * nf + (size_t)(lo + l))];
            B[(size_t)c * rows + nl + l] = frf[2 * ((size_t)c * nf + (size_t)(lo + l)) + 1];
        }
    }
    /* columns scaled to unit norm (the residual columns differ from the modal ones by orders of
     * magnitude), then dgels, then unscaled */
    for (int j = 0; j < ncol; j++) {
        double s = 0.0;
        for (int i = 0; i < rows; i++)
            s += A[(size_t)j * rows + i] * A[(size_t)j * rows + i];
        scale[j] = s > 0.0 ? 1.0 / sqrt(s) : 1.0;
        for (int i = 0; i < rows; i++)
            A[(size_t)j * rows + i] *= scale[j];
    }
    kd_status st = KD_OK;
    if (LAPACKE_dgels(LAPACK_COL_MAJOR, 'N', rows, ncol, nchan, A, rows, B, rows) != 0)
        st = kd_error_set(err, KD_ERR_NUMERIC, "", KD_LOC_NONE, "LSFD: the least-squares problem is rank deficient");
    else
        for (int r = 0; r < nmodes; r++)
            for (int c = 0; c < nchan; c++) {
                shape[2 * ((size_t)r * nchan + c)] = B[(size_t)c * rows + 2 * r] * scale[2 * r];
                shape[2 * ((size_t)r * nchan + c) + 1] = B[(size_t)c * rows + 2 * r + 1] * scale[2 * r + 1];
            }
    free(A);
    free(B);
    free(scale);
    free(lam);
    return st;
}

void kd_shape_realize(const double* v, int n, double* real)
{
    /* rotate by the phase of the largest component, take the real part, scale to max |.| = 1 */
    int kmax = 0;
    double amax = -1.0;
    for (int k = 0; k < n; k++) {
        double a = hypot(v[2 * k], v[2 * k + 1]);
        if (a > amax) {
            amax = a;
            kmax = k;
        }
    }
    if (!(amax > 0.0)) {
        for (int k = 0; k < n; k++)
            real[k] = 0.0;
        return;
    }
    double c = v[2 * kmax] / amax, s = -v[2 * kmax + 1] / amax; /* exp(-i phase) */
    double big = 0.0;
    for (int k = 0; k < n; k++) {
        real[k] = v[2 * k] * c - v[2 * k + 1] * s;
        if (fabs(real[k]) > big)
            big = fabs(real[k]);
    }
    for (int k = 0; k < n; k++)
        real[k] /= big;
}
