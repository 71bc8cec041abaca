/* Symmetric banded matrices (kedyn/band.h). */
#include <cblas.h>
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

void kd_band_to_dense(const kd_band* a, double* dense) {
    for (int j = 0; j < a->n; j++)
        for (int i = 0; i < a->n; i++) dense[i + (size_t)j * (size_t)a->n] = kd_band_get(a, i, j);
}
