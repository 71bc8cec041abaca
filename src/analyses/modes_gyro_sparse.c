/* Modes of a large moving system (kedyn/modes_gyro_sparse.h; theory.md sec. 14.5): K, M
 * (src/fe/system_sparse.c) and C = G + Rayleigh damping (src/fe/system_damping_csc.c) in
 * compressed columns, the eigenvalues nearest 0 by the sparse shift-invert Arnoldi
 * (src/numerics/eigen_gyro_sparse.c), reported as kd_modes_state_space reports the dense
 * solver's (src/analyses/modes_gyro.c). */
#include <complex.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "kedyn/modes_gyro_sparse.h"
#include "kedyn/modes_speed.h"

int kd_gyro_sparse_min_dof(void) {
    const char* env = getenv("KEDYN_GYRO_SPARSE_MIN_DOF");
    const long v = env && *env ? strtol(env, NULL, 10) : KD_GYRO_SPARSE_DOF;
    return v < 1 ? 1 : v > 1000000000L ? 1000000000 : (int)v;
}

int kd_gyro_sparse_route(int n, int count) {
    return n > KD_GYRO_MAX || (n >= kd_gyro_sparse_min_dof() && 4 * count < n);
}

void kd_modes_phase_normalise(const double* vre, const double* vim, int n, double* x, double* y) {
    double best = 0, pr = 1, pi = 0;
    for (int i = 0; i < n; i++) {
        const double mag = hypot(vre[i], vim[i]);
        if (mag > best) best = mag, pr = vre[i], pi = vim[i];
    }
    /* rotate the phase so the largest entry is real and positive */
    const double complex rot = best > 0 ? conj(pr + I * pi) / best : 1.0;
    for (int i = 0; i < n; i++) {
        const double complex z = (vre[i] + I * vim[i]) * rot / (best > 0 ? best : 1.0);
        x[i] = creal(z), y[i] = cimag(z);
    }
}

static int by_omega(const void* a, const void* b) {
    const kd_gyro_eig *x = a, *y = b;
    return (x->omega > y->omega) - (x->omega < y->omega);
}

int kd_gyro_sparse_entries(const kd_gyro_sparse* r, kd_gyro_eig* ent) {
    /* one per complex pair (omega = Im s > 0), real s paired in descending order, each pair an
     * entry of omega 0 and the larger growth (as the dense solver's, gyro_pencil.c) */
    int ne = 0, nreal = 0;
    for (int k = 0; k < r->nconv; k++)
        if (r->im[k] > 0) ent[ne++] = (kd_gyro_eig){r->im[k], r->re[k], k, r->tol[k]};
    kd_gyro_eig* reals = ent + ne;
    for (int k = 0; k < r->nconv; k++)
        if (r->im[k] == 0.0) reals[nreal++] = (kd_gyro_eig){0.0, r->re[k], k, r->tol[k]};
    for (int i = 0; i < nreal; i++) /* descending real part */
        for (int j = i + 1; j < nreal; j++)
            if (reals[j].growth > reals[i].growth) {
                const kd_gyro_eig tmp = reals[i];
                reals[i] = reals[j], reals[j] = tmp;
            }
    for (int i = 0; i < nreal; i += 2) ent[ne++] = reals[i];
    qsort(ent, (size_t)ne, sizeof(*ent), by_omega);
    return ne;
}

kd_status kd_modes_state_space_sparse(const kd_model* m, const kd_motion* const* motion, double t, int count,
                                      kd_modes* out, kd_error* err) {
    memset(out, 0, sizeof(*out));
    const int n = m->neq;
    if (count > n) count = n;
    if (count < 1) return kd_error_set(err, KD_ERR_USAGE, "", KD_LOC_NONE, "no modes requested");
    /* a shallow copy of the model whose bodies follow the given motions */
    kd_model mc = *m;
    kd_body* bodies = malloc(sizeof(kd_body) * (size_t)(m->nbody ? m->nbody : 1));
    if (!bodies) return kd_error_set(err, KD_ERR_NOMEM, "", KD_LOC_NONE, "out of memory for the modes");
    memcpy(bodies, m->body, sizeof(kd_body) * (size_t)m->nbody);
    for (int b = 0; b < m->nbody && motion; b++)
        if (motion[b]) bodies[b].motion = *motion[b];
    mc.body = bodies;
    kd_csc K = {0}, M = {0}, C = {0};
    kd_gyro_sparse r = {0};
    kd_gyro_eig* ent = NULL;
    int gyroscopic = 0, coupled = 0;
    kd_status st = kd_system_stiffness_csc(&mc, t, &K, &M, &gyroscopic, err);
    if (!st) st = kd_system_damping_csc(&mc, t, &K, &C, &coupled, err);
    /* 2 count eigenvalues for count pairs, and room for a real pair or two */
    if (!st) st = kd_eigen_gyro_sparse(&K, &M, coupled ? &C : NULL, 2 * count + 4, &r, err);
    if (st) goto done;
    ent = malloc(sizeof(*ent) * (size_t)(r.nconv + 1));
    if (!ent) {
        st = kd_error_set(err, KD_ERR_NOMEM, "", KD_LOC_NONE, "out of memory for the modes");
        goto done;
    }
    const int ne = kd_gyro_sparse_entries(&r, ent);
    if (count > ne) count = ne;
    out->neq = n;
    out->count = count;
    out->solver = KD_EIGEN_LANCZOS;
    out->factor = KD_FACTOR_CHOLESKY;
    out->sparse = 1;
    out->lambda = malloc(sizeof(double) * (size_t)(count + 1));
    out->omega = malloc(sizeof(double) * (size_t)(count + 1));
    out->growth = malloc(sizeof(double) * (size_t)(count + 1));
    out->shape = malloc(sizeof(double) * (size_t)(count + 1) * (size_t)n);
    out->shape_im = malloc(sizeof(double) * (size_t)(count + 1) * (size_t)n);
    if (!out->lambda || !out->omega || !out->growth || !out->shape || !out->shape_im) {
        st = kd_error_set(err, KD_ERR_NOMEM, "", KD_LOC_NONE, "out of memory for the modes");
        goto done;
    }
    /* unstable: a growth rate beyond the round-off bound of its eigenvalue (as modes_gyro.c) */
    for (int k = 0; k < ne; k++)
        if (ent[k].growth > ent[k].tol) out->unstable = 1;
    for (int k = 0; k < count; k++) {
        const int c = ent[k].index;
        out->omega[k] = ent[k].omega;
        out->lambda[k] = ent[k].omega * ent[k].omega;
        out->growth[k] = ent[k].growth;
        kd_modes_phase_normalise(r.vre + (size_t)c * n, r.vim + (size_t)c * n, n, out->shape + (size_t)k * n,
                                 out->shape_im + (size_t)k * n);
    }
done:
    if (st) kd_modes_free(out);
    free(ent);
    kd_gyro_sparse_free(&r);
    kd_csc_free(&K), kd_csc_free(&M), kd_csc_free(&C);
    free(bodies);
    return st;
}
