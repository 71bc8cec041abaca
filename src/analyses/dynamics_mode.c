/* The initial mode shape of the dynamics analysis, shared by its band route (dynamics.c) and its
 * sparse route (dynamics_sparse.c): a file of its own so that neither calls the other's. */
#include <math.h>

#include "analyses/dynamics_sparse.h"

kd_status dynamics_add_scaled_mode(const kd_model* m, kd_modes* r, int k, double amplitude, double* q0, int n,
                                   kd_error* err) {
    kd_status st = KD_OK;
    if (r->count < k) {
        st = kd_error_set(err, KD_ERR_INPUT, "", KD_LOC_NONE, "initial mode %d: the model has only %d modes", k, r->count);
    } else {
        const double* x = r->shape + (size_t)(k - 1) * (size_t)n;
        double big = 0.0;
        for (int i = 0; i < m->ndof_all; i++) {
            const int e = m->dof_eq[i];
            const kd_dof_name dn = m->dof_name[i];
            if (e >= 0 && (dn == KD_DOF_U || dn == KD_DOF_V || dn == KD_DOF_W) && fabs(x[e]) > fabs(big)) big = x[e];
        }
        if (big == 0.0)
            st = kd_error_set(err, KD_ERR_INPUT, "", KD_LOC_NONE, "initial mode %d has no translation to scale", k);
        else
            for (int i = 0; i < n; i++) q0[i] += amplitude * x[i] / big;
    }
    kd_modes_free(r);
    return st;
}
