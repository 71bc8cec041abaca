/* Symmetric banded matrices (kedyn/band.h). */
#include <cblas.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "kedyn/band.h"

kd_status kd_band_init(kd_band* a, int n, int kd) {
    a->n = n;
    a->kd = kd;
    a->ab = calloc((size_t)(kd + 1) * (size_t)n, sizeof(double));
    return a->ab ? KD_OK : KD_ERR_NOMEM;
}

void kd_band_free(kd_band* a) {
    free(a->ab);
    a->ab = NULL;
}

void kd_band_zero(kd_band* a) { memset(a->ab, 0, sizeof(double) * (size_t)(a->kd + 1) * (size_t)a->n); }

double kd_band_get(const kd_band* a, int i, int j) {
    if (i > j) {
        const int t = i;
        i = j;
        j = t;
    }
    if (j - i > a->kd) return 0.0;
    return a->ab[a->kd + i - j + (size_t)j * (size_t)(a->kd + 1)];
}

void kd_band_matvec(const kd_band* a, const double* x, double* y) {
    cblas_dsbmv(CblasColMajor, CblasUpper, a->n, a->kd, 1.0, a->ab, a->kd + 1, x, 1, 0.0, y, 1);
}

int kd_band_cholesky_definite(kd_band* a) {
    const int n = a->n, kd = a->kd, ld = kd + 1;
    double* ab = a->ab;
    for (int j = 0; j < n; j++) {
        double* dj = ab + kd + (size_t)j * ld;  /* U(j, j) */
        if (!(*dj > 0)) return 0;                /* also NaN */
        const double ujj = sqrt(*dj);
        *dj = ujj;
        const int kn = kd < n - 1 - j ? kd : n - 1 - j;
        const double rjj = 1.0 / ujj;
        /* row j of U right of the diagonal: U(j, j + c) at ab[kd - c + (j + c) ld] */
        for (int c = 1; c <= kn; c++) ab[kd - c + (size_t)(j + c) * ld] *= rjj;
        /* the trailing block: A(j + r, j + c) -= U(j, j + r) U(j, j + c), r <= c */
        for (int c = 1; c <= kn; c++) {
            const double ujc = ab[kd - c + (size_t)(j + c) * ld];
            double* col = ab + (size_t)(j + c) * ld + kd - c;  /* A(j + r, j + c) = col[r] */
            for (int r = 1; r <= c; r++) col[r] -= ab[kd - r + (size_t)(j + r) * ld] * ujc;
        }
    }
    return 1;
}

void kd_band_to_dense(const kd_band* a, double* dense) {
    for (int j = 0; j < a->n; j++)
        for (int i = 0; i < a->n; i++) dense[i + (size_t)j * (size_t)a->n] = kd_band_get(a, i, j);
}
