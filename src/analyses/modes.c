/* Modal analysis: assembly, choice of eigensolver, ordering of the results
 * (kedyn/modes.h). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "kedyn/modes.h"

void kd_modes_free(kd_modes* r) {
    if (!r) return;
    free(r->lambda);
    free(r->omega);
    free(r->shape);
    free(r->growth);
    memset(r, 0, sizeof(*r));
}

/* Order modes by ascending lambda (insertion sort: count is small). */
static void sort_modes(kd_modes* r, double* scratch) {
    const size_t row = sizeof(double) * (size_t)r->neq;
    for (int k = 1; k < r->count; k++) {
        const double lam = r->lambda[k];
        memcpy(scratch, r->shape + (size_t)k * r->neq, row);
        int j = k - 1;
        for (; j >= 0 && r->lambda[j] > lam; j--) {
            r->lambda[j + 1] = r->lambda[j];
            memcpy(r->shape + (size_t)(j + 1) * r->neq, r->shape + (size_t)j * r->neq, row);
        }
        r->lambda[j + 1] = lam;
        memcpy(r->shape + (size_t)(j + 1) * r->neq, scratch, row);
    }
}

kd_status kd_eigen_solve(const kd_band* K, const kd_band* M, int count, kd_eigen_solver solver, double sigma,
                         kd_modes* out, kd_error* err) {
    memset(out, 0, sizeof(*out));
    const int n = K->n;
    if (count > n) count = n;
    if (count < 1) return kd_error_set(err, KD_ERR_USAGE, "", KD_LOC_NONE, "no modes requested");
    /* The Lanczos solver needs count < ncv <= n; dense is also the better
     * choice for small problems and for most of the spectrum. */
    if (solver == KD_EIGEN_AUTO) solver = (n <= KD_EIGEN_DENSE_MAX || 2 * count > n) ? KD_EIGEN_DENSE : KD_EIGEN_LANCZOS;
    if (solver == KD_EIGEN_LANCZOS && count >= n - 1) solver = KD_EIGEN_DENSE;
    out->neq = n;
    out->count = count;
    out->solver = solver;
    out->lambda = malloc(sizeof(double) * (size_t)count);
    out->omega = malloc(sizeof(double) * (size_t)count);
    out->shape = malloc(sizeof(double) * (size_t)count * (size_t)n);
    double* scratch = malloc(sizeof(double) * (size_t)n);
    kd_status st = KD_OK;
    if (!out->lambda || !out->omega || !out->shape || !scratch)
        st = kd_error_set(err, KD_ERR_NOMEM, "", KD_LOC_NONE, "out of memory for %d modes", count);
    else if (solver == KD_EIGEN_DENSE)
        st = kd_eigen_dense(K, M, count, sigma, out, err);
    else
        st = kd_eigen_lanczos(K, M, count, sigma, out, err);
    if (st == KD_OK) {
        sort_modes(out, scratch);
        for (int k = 0; k < count; k++) out->omega[k] = sqrt(fmax(out->lambda[k], 0.0));
    } else {
        kd_modes_free(out);
    }
    free(scratch);
    return st;
}

kd_status kd_modes_solve(const kd_model* m, int count, kd_eigen_solver solver, kd_modes* out, kd_error* err) {
    kd_band K = {0}, M = {0};
    kd_status st = kd_band_init(&K, m->neq, m->bandwidth);
    if (!st) st = kd_band_init(&M, m->neq, m->bandwidth);
    if (st) {
        kd_band_free(&K);
        return kd_error_set(err, st, "", KD_LOC_NONE, "out of memory for the global matrices");
    }
    kd_assemble_stiffness_mass(m, &K, &M);
    /* Shift below the lowest elastic eigenvalue estimate of any body. */
    double hint = INFINITY;
    for (int b = 0; b < m->nbody; b++)
        if (m->body[b].type == KD_BODY_BEAM || m->body[b].type == KD_BODY_PLATE) hint = fmin(hint, m->body[b].lambda_hint);
    st = kd_eigen_solve(&K, &M, count, solver, -0.1 * hint, out, err);
    kd_band_free(&K);
    kd_band_free(&M);
    return st;
}
