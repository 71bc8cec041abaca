/* Modal analysis: assembly, choice of eigensolver, ordering of the results
 * (kedyn/modes.h). */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <stdio.h>
#include <time.h>

#include "kedyn/modes.h"

void kd_modes_free(kd_modes* r) {
    if (!r) return;
    free(r->lambda);
    free(r->omega);
    free(r->shape);
    free(r->growth);
    free(r->error_estimate);
    free(r->shape_im);
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

/* The solver a request resolves to: dense for small problems and for most of the spectrum (the
 * Lanczos solver needs count < ncv <= n). */
static kd_eigen_solver resolve_solver(kd_eigen_solver solver, int n, int count) {
    if (solver == KD_EIGEN_AUTO) solver = (n <= KD_EIGEN_DENSE_MAX || 2 * count > n) ? KD_EIGEN_DENSE : KD_EIGEN_LANCZOS;
    if (solver == KD_EIGEN_LANCZOS && count >= n - 1) solver = KD_EIGEN_DENSE;
    return solver;
}

static kd_status alloc_modes(kd_modes* out, int n, int count, kd_eigen_solver solver, kd_error* err) {
    out->neq = n;
    out->count = count;
    out->solver = solver;
    out->lambda = malloc(sizeof(double) * (size_t)count);
    out->omega = malloc(sizeof(double) * (size_t)count);
    out->shape = malloc(sizeof(double) * (size_t)count * (size_t)n);
    if (!out->lambda || !out->omega || !out->shape) {
        kd_modes_free(out);
        return kd_error_set(err, KD_ERR_NOMEM, "", KD_LOC_NONE, "out of memory for %d modes", count);
    }
    return KD_OK;
}

/* Ascending order and omega of a solver's result (freed on failure). */
static kd_status finish_modes(kd_modes* out, kd_status st, kd_error* err) {
    double* scratch = st == KD_OK ? malloc(sizeof(double) * (size_t)out->neq) : NULL;
    if (st == KD_OK && !scratch) st = kd_error_set(err, KD_ERR_NOMEM, "", KD_LOC_NONE, "out of memory for the modes");
    if (st == KD_OK) {
        sort_modes(out, scratch);
        for (int k = 0; k < out->count; k++) out->omega[k] = sqrt(fmax(out->lambda[k], 0.0));
    } else {
        kd_modes_free(out);
    }
    free(scratch);
    return st;
}

kd_status kd_eigen_solve(const kd_band* K, const kd_band* M, int count, kd_eigen_solver solver, double sigma,
                         kd_modes* out, kd_error* err) {
    memset(out, 0, sizeof(*out));
    const int n = K->n;
    if (count > n) count = n;
    if (count < 1) return kd_error_set(err, KD_ERR_USAGE, "", KD_LOC_NONE, "no modes requested");
    solver = resolve_solver(solver, n, count);
    kd_status st = alloc_modes(out, n, count, solver, err);
    if (st) return st;
    out->factor = KD_FACTOR_CHOLESKY;
    st = solver == KD_EIGEN_DENSE ? kd_eigen_dense(K, M, count, sigma, out, err)
                                  : kd_eigen_lanczos(K, M, count, sigma, out, err);
    return finish_modes(out, st, err);
}

/* The square-root path: kd_eigen_sqrt on the element factors, first at sigma = 0 on A alone
 * (K nonsingular: a supported structure), else at the given sigma < 0 on A and C. An
 * indefinite element matrix (compression) leaves *applies = 0 and returns KD_OK. */
static kd_status solve_square_root(const kd_model* m, int count, double sigma, kd_modes* out, int* applies,
                                   kd_error* err) {
    kd_band M = {0};
    kd_status st = kd_band_init(&M, m->neq, m->bandwidth);
    if (st) return kd_error_set(err, st, "", KD_LOC_NONE, "out of memory for the mass matrix");
    kd_assemble_mass(m, &M);
    int singular = 0;
    for (int pass = 0; pass < 2 && (pass == 0 || singular); pass++) {
        kd_triplet A, C;
        kd_error ferr;
        st = kd_assemble_square_roots(m, &A, pass ? &C : NULL, &ferr);
        *applies = st == KD_OK;
        if (st) {
            st = ferr.status == KD_ERR_NOMEM ? kd_error_set(err, KD_ERR_NOMEM, "", KD_LOC_NONE, "%s", ferr.msg) : KD_OK;
            break;
        }
        st = kd_eigen_sqrt(&A, pass ? &C : NULL, &M, count, pass ? sigma : 0.0, out, &singular, err);
    }
    kd_band_free(&M);
    return st;
}

/* The sparse path (plate models): K and M in compressed columns, CHOLMOD's factor of K - sigma M. */
static kd_status solve_sparse_cholesky(const kd_model* m, int count, double sigma, kd_modes* out, kd_error* err) {
    kd_csc K, M;
    kd_status st = kd_assemble_stiffness_mass_csc(m, &K, &M, err);
    if (st) return st;
    st = alloc_modes(out, m->neq, count, KD_EIGEN_LANCZOS, err);
    if (!st) {
        out->factor = KD_FACTOR_CHOLESKY;
        out->sparse = 1;
        st = finish_modes(out, kd_eigen_cholmod(&K, &M, count, sigma, out, err), err);
    }
    kd_csc_free(&K);
    kd_csc_free(&M);
    return st;
}

/* A plate body's band is wide (about 3 ny on an nx x ny mesh: the band factor costs n b^2),
 * a beam's narrow (nodes numbered along it): plate models take the sparse path. */
static int has_plate(const kd_model* m) {
    for (int b = 0; b < m->nbody; b++)
        if (m->body[b].type == KD_BODY_PLATE) return 1;
    return 0;
}

static kd_status solve_factor(const kd_model* m, int count, kd_eigen_solver solver, kd_eigen_factor factor,
                              kd_modes* out, kd_error* err);

/* Plates and shells under gravity at rest: the modes of a shallow copy of the model that carries
 * their membrane pre-stress (kd_model_rest_prestress; theory.md sec. 14.2). */
kd_status kd_modes_solve_factor(const kd_model* m, int count, kd_eigen_solver solver, kd_eigen_factor factor,
                                kd_modes* out, kd_error* err) {
    memset(out, 0, sizeof(*out));
    if (m->rest_adr || (m->gravity[0] == 0.0 && m->gravity[1] == 0.0 && m->gravity[2] == 0.0))
        return solve_factor(m, count, solver, factor, out, err);
    kd_model mr = *m;
    kd_status st = kd_model_rest_prestress(&mr, err);
    if (!st) st = solve_factor(&mr, count, solver, factor, out, err);
    free(mr.rest_adr);
    free(mr.rest_S);
    return st;
}

static kd_status solve_factor(const kd_model* m, int count, kd_eigen_solver solver, kd_eigen_factor factor,
                              kd_modes* out, kd_error* err) {
    memset(out, 0, sizeof(*out));
    const int n = m->neq;
    if (count > n) count = n;
    if (count < 1) return kd_error_set(err, KD_ERR_USAGE, "", KD_LOC_NONE, "no modes requested");
    /* Shift below the lowest elastic eigenvalue estimate of any body. */
    double hint = INFINITY;
    for (int b = 0; b < m->nbody; b++)
        if (m->body[b].type == KD_BODY_BEAM || m->body[b].type == KD_BODY_PLATE) hint = fmin(hint, m->body[b].lambda_hint);
    const double sigma = -0.1 * hint;
    const int rayleigh = !(factor & KD_FACTOR_NO_RAYLEIGH);
    factor = (kd_eigen_factor)(factor & ~KD_FACTOR_NO_RAYLEIGH);
    solver = resolve_solver(solver, n, count);
    kd_status st;
    int done = 0;
    if (solver == KD_EIGEN_LANCZOS && factor != KD_FACTOR_QR && has_plate(m)) {
        st = solve_sparse_cholesky(m, count, sigma, out, err);
        if (st) return st;
        done = 1;
    }
    if (!done && solver == KD_EIGEN_LANCZOS && factor != KD_FACTOR_CHOLESKY) {
        st = alloc_modes(out, n, count, solver, err);
        if (st) return st;
        out->factor = KD_FACTOR_QR;
        st = solve_square_root(m, count, sigma, out, &done, err);
        if (done || st) {
            st = finish_modes(out, st, err);
            if (st) return st;
        } else {
            kd_modes_free(out);
        }
    }
    if (!done) {
        kd_band K = {0}, M = {0};
        st = kd_band_init(&K, n, m->bandwidth);
        if (!st) st = kd_band_init(&M, n, m->bandwidth);
        if (st) {
            kd_band_free(&K);
            return kd_error_set(err, st, "", KD_LOC_NONE, "out of memory for the global matrices");
        }
        kd_assemble_stiffness_mass(m, &K, &M);
        st = kd_eigen_solve(&K, &M, count, solver, sigma, out, err);
        kd_band_free(&K);
        kd_band_free(&M);
        if (st) return st;
    }
    /* the Rayleigh quotients of the shapes, accurate to ~eps (kd_model_rest_rayleigh) */
    out->rayleigh = rayleigh && kd_model_rest_rayleigh(m, out->shape, out->count, out->lambda) == 0;
    out->error_estimate = malloc(sizeof(double) * (size_t)out->count);
    double* scratch = malloc(sizeof(double) * (size_t)n);
    if (!out->error_estimate || !scratch) {
        free(scratch);
        kd_modes_free(out);
        return kd_error_set(err, KD_ERR_NOMEM, "", KD_LOC_NONE, "out of memory for the modes");
    }
    if (out->rayleigh) {  /* ascending again (the quotients move values by their round-off only) */
        sort_modes(out, scratch);
        for (int k = 0; k < out->count; k++) out->omega[k] = sqrt(fmax(out->lambda[k], 0.0));
    }
    free(scratch);
    const double lmax = kd_model_lambda_max(m);
    for (int k = 0; k < out->count; k++)
        out->error_estimate[k] = kd_modes_roundoff(out->factor, out->rayleigh, n, lmax, out->lambda[k]);
    return KD_OK;
}

kd_status kd_modes_solve(const kd_model* m, int count, kd_eigen_solver solver, kd_modes* out, kd_error* err) {
    return kd_modes_solve_factor(m, count, solver, KD_FACTOR_AUTO, out, err);
}
