/* Symmetric sparse matrices in compressed columns, upper triangle (kedyn/band.h). */
#include <stdlib.h>
#include <string.h>

#include "kedyn/band.h"

void kd_csc_free(kd_csc* a) {
    free(a->p);
    free(a->i);
    free(a->x);
    memset(a, 0, sizeof(*a));
}

void kd_csc_matvec(const kd_csc* a, const double* x, double* y) {
    memset(y, 0, sizeof(double) * (size_t)a->n);
    for (int j = 0; j < a->n; j++) {
        const double xj = x[j];
        double yj = 0;
        for (int k = a->p[j]; k < a->p[j + 1]; k++) {
            const int i = a->i[k];
            y[i] += a->x[k] * xj;
            if (i != j) yj += a->x[k] * x[i];
        }
        y[j] += yj;
    }
}
