/* Modes of a moving system: the quadratic eigenproblem with gyroscopic and
 * damping matrices in state-space form (kedyn/modes.h; theory.md sec. 3),
 * solved by the scaled shift-invert pencil of src/analyses/gyro_pencil.c, or from
 * kd_gyro_sparse_min_dof() equations on by the sparse route (src/analyses/modes_gyro_sparse.c). */
#include <lapacke.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "kedyn/modes.h"
#include "kedyn/modes_gyro_sparse.h"
#include "kedyn/system.h"

kd_status kd_modes_state_space(kd_system* s, double t, int count, kd_modes* out, kd_error* err) {
    memset(out, 0, sizeof(*out));
    const int n = s->n;
    if (kd_gyro_sparse_route(n, count)) return kd_modes_state_space_sparse(s->m, s->motion, t, count, out, err);
    if (count > n) count = n;
    kd_gband C = {0}, K = {0};
    kd_gyro_ws w = {0};
    double* xri = malloc(sizeof(double) * 2 * (size_t)n);
    kd_status st = kd_gband_init(&C, n, s->kd, s->kd);
    if (!st) st = kd_gband_init(&K, n, s->kd, s->kd);
    if (st || !xri) {
        st = kd_error_set(err, KD_ERR_NOMEM, "", KD_LOC_NONE, "out of memory for the state-space eigenproblem");
        goto done;
    }
    if ((st = kd_gyro_init(&w, n, err))) goto done;
    int changed;
    kd_system_matrices(s, t, &C, &K, &changed);
    if ((st = kd_gyro_solve(&w, &s->M, &C, &K, t, err))) goto done;
    const int ne = w.nent;
    const kd_gyro_eig* ent = w.ent;
    if (count > ne) count = ne;
    out->neq = n;
    out->count = count;
    out->solver = KD_EIGEN_DENSE;
    out->lambda = malloc(sizeof(double) * (size_t)count);
    out->omega = malloc(sizeof(double) * (size_t)count);
    out->growth = malloc(sizeof(double) * (size_t)count);
    out->shape = malloc(sizeof(double) * (size_t)count * (size_t)n);
    out->shape_im = malloc(sizeof(double) * (size_t)count * (size_t)n);
    if (!out->lambda || !out->omega || !out->growth || !out->shape || !out->shape_im) {
        st = kd_error_set(err, KD_ERR_NOMEM, "", KD_LOC_NONE, "out of memory for the modes");
        goto done;
    }
    /* Unstable: a growth rate resolved from zero, beyond the round-off
     * bound of its eigenvalue (gyro_pencil.c; theory.md "Gyroscopic modes:
     * the scaled shift-invert pencil") */
    for (int k = 0; k < ne; k++)
        if (ent[k].growth > ent[k].tol) out->unstable = 1;
    for (int k = 0; k < count; k++) {
        out->omega[k] = ent[k].omega;
        out->lambda[k] = ent[k].omega * ent[k].omega;
        out->growth[k] = ent[k].growth;
        double *vre = xri, *vim = xri + n;
        kd_gyro_shape(&w, k, vre, vim);
        kd_modes_phase_normalise(vre, vim, n, out->shape + (size_t)k * n, out->shape_im + (size_t)k * n);
    }
done:
    if (st) kd_modes_free(out);
    kd_gband_free(&C);
    kd_gband_free(&K);
    kd_gyro_free(&w);
    free(xri);
    return st;
}
