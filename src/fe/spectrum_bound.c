/* An upper bound of the model's largest eigenvalue (kedyn/model.h, kd_model_lambda_max), for the
 * round-off estimate of the modal solvers (theory.md sec. 3.6) and the model's warning. */
#include <lapacke.h>
#include <math.h>
#include <string.h>

#include "kedyn/model.h"

double kd_model_lambda_max(const kd_model* m) {
    /* x^T K x / x^T M x = sum_e x_e^T k_e x_e / sum_e x_e^T m_e x_e <= max_e lambda_max(k_e, m_e) */
    double lmax = 0;
    for (int p = 0; p < m->nprop; p++) {
        const int n = m->prop[p].ndof;
        double k[KD_ELEM_DOF_MAX * KD_ELEM_DOF_MAX], me[KD_ELEM_DOF_MAX * KD_ELEM_DOF_MAX], w[KD_ELEM_DOF_MAX];
        memcpy(k, m->prop[p].k, sizeof(double) * (size_t)(n * n));
        kd_element_mass(&m->prop[p], me);
        if (LAPACKE_dsygv(LAPACK_ROW_MAJOR, 1, 'N', 'U', n, k, n, me, n, w) == 0) lmax = fmax(lmax, w[n - 1]);
    }
    return lmax;
}
