/* General band matrices (kedyn/integrate.h). */
#include <cblas.h>
#include <stdlib.h>
#include <string.h>

#include "kedyn/integrate.h"

kd_status kd_gband_init(kd_gband* a, int n, int kl, int ku) {
    a->n = n, a->kl = kl, a->ku = ku;
    a->ab = calloc((size_t)(kl + ku + 1) * (size_t)n, sizeof(double));
    return a->ab ? KD_OK : KD_ERR_NOMEM;
}

void kd_gband_free(kd_gband* a) {
    free(a->ab);
    a->ab = NULL;
}

void kd_gband_zero(kd_gband* a) { memset(a->ab, 0, sizeof(double) * (size_t)(a->kl + a->ku + 1) * (size_t)a->n); }

void kd_gband_matvec(const kd_gband* a, const double* x, double* y) {
    cblas_dgbmv(CblasColMajor, CblasNoTrans, a->n, a->n, a->kl, a->ku, 1.0, a->ab, a->kl + a->ku + 1, x, 1, 0.0, y, 1);
}
