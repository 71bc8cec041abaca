/* Modes at speed of large bodies without gyroscopic coupling (kedyn/modes_speed.h): the
 * symmetric K + k(eps) + k(omega) + k_g and M in compressed columns (src/fe/system_sparse.c),
 * CHOLMOD's shift-invert Lanczos (kd_eigen_cholmod). */
#include "kedyn/modes_speed.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

kd_status kd_modes_speed_sparse(const kd_model* m, double t, int count, kd_modes* out, kd_error* err) {
    memset(out, 0, sizeof(*out));
    const int n = m->neq;
    if (count > n - 1) count = n - 1;
    if (count < 1) return kd_error_set(err, KD_ERR_USAGE, "", KD_LOC_NONE, "no modes requested");
    kd_csc K, M;
    int gyroscopic;
    kd_status st = kd_system_stiffness_csc(m, t, &K, &M, &gyroscopic, err);
    if (st) return st;
    if (gyroscopic) {
        kd_csc_free(&K);
        kd_csc_free(&M);
        return kd_error_set(err, KD_ERR_USAGE, "", KD_LOC_NONE,
                            "the sparse modes at speed need a model without gyroscopic coupling (the state-space "
                            "solver takes it, up to %d DOF)",
                            KD_GYRO_MAX);
    }
    /* shift below the lowest eigenvalue at rest (kd_modes_solve's), the softening lowers it */
    double hint = INFINITY;
    for (int b = 0; b < m->nbody; b++)
        if (m->body[b].type == KD_BODY_BEAM || m->body[b].type == KD_BODY_PLATE) hint = fmin(hint, m->body[b].lambda_hint);
    const double sigma = -0.1 * hint;
    out->neq = n;
    out->count = count;
    out->solver = KD_EIGEN_LANCZOS;
    out->factor = KD_FACTOR_CHOLESKY;
    out->sparse = 1;
    out->lambda = malloc(sizeof(double) * (size_t)count);
    out->omega = malloc(sizeof(double) * (size_t)count);
    out->shape = malloc(sizeof(double) * (size_t)count * (size_t)n);
    if (!out->lambda || !out->omega || !out->shape)
        st = kd_error_set(err, KD_ERR_NOMEM, "", KD_LOC_NONE, "out of memory for the modes");
    if (!st) st = kd_eigen_cholmod(&K, &M, count, sigma, out, err);
    /* ascending lambda (the eigensolvers return them so); omega = sqrt(lambda) */
    for (int k = 0; k < count && !st; k++) out->omega[k] = sqrt(fmax(out->lambda[k], 0.0));
    kd_csc_free(&K);
    kd_csc_free(&M);
    if (st) kd_modes_free(out);
    return st;
}
