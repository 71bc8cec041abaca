/* kedyn: natural frequencies and mode shapes of the supported structure.
 *
 * Solves K x = lambda M x (lambda = omega^2) for the lowest modes of the
 * reduced system, with K and M assembled in banded storage (kedyn/band.h):
 *   - dense LAPACK (dsygvx) for small problems, and
 *   - ARPACK-ng shift-invert Lanczos with a banded Cholesky factorisation of
 *     K - sigma M (sigma < 0, so free bodies with rigid-body modes are
 *     handled) for large ones; cost and memory grow linearly with the model.
 */
#ifndef KEDYN_MODES_H
#define KEDYN_MODES_H

#include "kedyn/band.h"
#include "kedyn/model.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Problems up to this many equations go to dense LAPACK under KD_EIGEN_AUTO. */
#define KD_EIGEN_DENSE_MAX 200

typedef struct kd_modes {
    int neq;                  /* equations of the reduced system */
    int count;                /* modes computed */
    kd_eigen_solver solver;   /* the solver actually used */
    double* lambda;           /* (count) omega^2, ascending; tiny negative round-off kept */
    double* omega;            /* (count) rad/s, sqrt(max(lambda, 0)) */
    double* shape;            /* (count x neq) mass-normalised mode shapes, one row per mode
                                 (state-space solver: real part of the complex shape,
                                 phase chosen so the largest entry is real, max |entry| = 1) */
    double* growth;           /* (count) state-space solver: real part of the eigenvalue, 1/s
                                 (> 0 grows); NULL for the symmetric solvers */
    int unstable;             /* state-space solver: 1 when an eigenvalue has a positive
                                 real part (divergence or flutter) */
} kd_modes;

/* Lowest `count` modes of K x = lambda M x. `count` is reduced to neq when
 * larger. Returns KD_ERR_NUMERIC (err says why) when the solver fails. */
kd_status kd_eigen_solve(const kd_band* K, const kd_band* M, int count, kd_eigen_solver solver, double sigma,
                         kd_modes* out, kd_error* err);

/* Assemble the model and compute its lowest `count` modes. */
kd_status kd_modes_solve(const kd_model* m, int count, kd_eigen_solver solver, kd_modes* out, kd_error* err);

/* Modes of a moving system at time t (kedyn/system.h): the quadratic
 * eigenproblem (s^2 M + s C + K) x = 0 with the gyroscopic and damping
 * matrices, solved in state-space form [[0, I], [-K, -C]] z = s [[I, 0],
 * [0, M]] z by dense LAPACK dggev. Frequencies are |Im s| of the eigenvalue
 * pairs, ascending; real pairs (rigid-body or divergent) count as 0.
 * Limited to KD_GYRO_MAX equations. */
#define KD_GYRO_MAX 1500
struct kd_system;
kd_status kd_modes_state_space(struct kd_system* s, double t, int count, kd_modes* out, kd_error* err);

/* The state-space eigensolver of kd_modes_state_space on caller-owned
 * workspace, for repeated solves without allocation (kedyn/ked.h solves it
 * at every instant of a mechanism's motion). kd_gyro_solve forms
 * [[0, I], [-K, -C]] z = s [[I, 0], [0, M]] z from the general bands and
 * solves it by LAPACK dggev; ent[0..nent) are the eigenvalue pairs, ascending
 * in omega = Im s > 0 (real pairs: omega 0, growth the larger real part),
 * growth = Re s; kd_gyro_shape gives entry k's displacement part (real and
 * imaginary, as LAPACK normalises it). */
typedef struct kd_gyro_eig {
    double omega, growth;
    int index;                    /* column of the eigenvector */
} kd_gyro_eig;
typedef struct kd_gyro_ws {
    int n, nent, lwork;
    double *A, *B, *ar, *ai, *be, *vr, *work;
    kd_gyro_eig* ent;
    double smax;                  /* largest |s| of the last solve */
} kd_gyro_ws;
struct kd_gband;
kd_status kd_gyro_init(kd_gyro_ws* w, int n, kd_error* err);
kd_status kd_gyro_solve(kd_gyro_ws* w, const struct kd_gband* M, const struct kd_gband* C, const struct kd_gband* K,
                        double t, kd_error* err);
void kd_gyro_shape(const kd_gyro_ws* w, int k, double* xr, double* xi);
void kd_gyro_free(kd_gyro_ws* w);

/* Free the arrays of a result (the struct itself is the caller's). */
void kd_modes_free(kd_modes* r);

/* Internal entry points of the two solvers (same contract as kd_eigen_solve
 * with out->lambda and out->shape already allocated for `count` modes). */
kd_status kd_eigen_dense(const kd_band* K, const kd_band* M, int count, double sigma, kd_modes* out,
                         kd_error* err);
kd_status kd_eigen_lanczos(const kd_band* K, const kd_band* M, int count, double sigma, kd_modes* out,
                           kd_error* err);

#ifdef __cplusplus
}
#endif
#endif
