/* General band matrices (kedyn/integrate.h). */
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

/* y = A x by columns. A plain loop rather than BLAS dgbmv: the bands here
 * are at most 33 wide, and OpenBLAS's threading of dgbmv cost more than the
 * product itself on them (measured: 30 % of a time step of a small model). */
void kd_gband_matvec(const kd_gband* a, const double* x, double* y) {
    const int n = a->n, kl = a->kl, ku = a->ku, ld = kl + ku + 1;
    memset(y, 0, sizeof(double) * (size_t)n);
    for (int j = 0; j < n; j++) {
        const double xj = x[j];
        if (xj == 0.0) continue;
        const int i0 = j - ku > 0 ? j - ku : 0, i1 = j + kl < n - 1 ? j + kl : n - 1;
        const double* col = a->ab + (size_t)j * (size_t)ld + ku - j;
        for (int i = i0; i <= i1; i++) y[i] += col[i] * xj;
    }
}

void kd_gband_combine_lu(kd_gband* S, double cm, const kd_gband* M, double cc, const kd_gband* C, double ck,
                         const kd_gband* K) {
    const int n = M->n, kl = M->kl, ku = M->ku, ld = kl + ku + 1, lds = 2 * kl + ku + 1;
    memset(S->ab, 0, sizeof(double) * (size_t)lds * (size_t)n);
    for (int j = 0; j < n; j++)
        for (int r = 0; r < ld; r++) {
            const size_t c = (size_t)r + (size_t)j * ld;
            S->ab[(size_t)(kl + r) + (size_t)j * lds] = cm * M->ab[c] + cc * C->ab[c] + ck * K->ab[c];
        }
}
