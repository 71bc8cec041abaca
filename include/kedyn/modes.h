/* kedyn: natural frequencies and mode shapes of the supported structure.
 *
 * Solves K x = lambda M x (lambda = omega^2) for the lowest modes of the
 * reduced system, with K and M assembled in banded storage (kedyn/band.h):
 *   - dense LAPACK (dsygvx) for small problems, and
 *   - ARPACK-ng shift-invert Lanczos for large ones, on a sparse QR of the
 *     square-root factors of K - sigma M (kd_eigen_factor; a banded Cholesky
 *     factorisation of the assembled matrices where the square root does not
 *     apply), sigma = 0 or < 0 so that free bodies with rigid-body modes are
 *     handled; cost and memory grow linearly with the model (beams: the band
 *     is narrow). Models with a plate body instead assemble K and M in
 *     compressed columns and factor K - sigma M by CHOLMOD (sparse Cholesky,
 *     fill-reducing ordering; kd_eigen_cholmod): their band is wide. The
 *     eigenvalues are then the long-double Rayleigh quotients of the shapes.
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

/* How the shift-invert Lanczos solver factors K - sigma M:
 *   - KD_FACTOR_CHOLESKY: banded Cholesky of the assembled matrices. Round-off
 *     perturbs lambda_k by about eps lambda_max, i.e. omega_k by
 *     eps lambda_max / lambda_k relative: (L/h)^4 eps for a bending beam;
 *   - KD_FACTOR_QR: sparse QR of the square-root factors [A; sqrt(-sigma) C]
 *     (A^T A = K, C^T C = M, kd_assemble_square_roots) without forming K:
 *     about eps sqrt(lambda_max / lambda_k), (L/h)^2 eps (theory.md sec. 3.6). Needs
 *     every element's k + k_g positive semidefinite (no axial compression),
 *     else the Cholesky factorisation is used;
 *   - KD_FACTOR_AUTO: QR where it applies, Cholesky otherwise.
 * The dense solver always works on the assembled matrices.
 * Each eigenvalue is then replaced by the Rayleigh quotient of its mode shape
 * summed element by element in long double on the elements' deformations
 * (kd_model_rest_rayleigh): its error is the square of the shape's, so the
 * QR factorisation's eps sqrt(lambda_max / lambda) becomes ~eps.
 * KD_FACTOR_NO_RAYLEIGH, or-ed into the factor, keeps the solver's values
 * (for measurements). */
typedef enum kd_eigen_factor {
    KD_FACTOR_AUTO = 0,
    KD_FACTOR_CHOLESKY,
    KD_FACTOR_QR,
    KD_FACTOR_NO_RAYLEIGH = 16
} kd_eigen_factor;

typedef struct kd_modes {
    int neq;                  /* equations of the reduced system */
    int count;                /* modes computed */
    kd_eigen_solver solver;   /* the solver actually used */
    kd_eigen_factor factor;   /* the factorisation actually used (symmetric solvers; the dense
                                 one counts as KD_FACTOR_CHOLESKY) */
    int rayleigh;             /* 1: lambda are the long-double Rayleigh quotients of the shapes */
    int sparse;               /* 1: K - sigma M factored as a sparse matrix (CHOLMOD, plate
                                 models), 0: banded (Cholesky) or by its square root (QR) */
    double* error_estimate;   /* (count) a-priori relative round-off error of each omega
                                 (kd_modes_roundoff); NULL for the state-space solver */
    double* lambda;           /* (count) omega^2, ascending; tiny negative round-off kept */
    double* omega;            /* (count) rad/s, sqrt(max(lambda, 0)) */
    double* shape;            /* (count x neq) mass-normalised mode shapes, one row per mode
                                 (state-space solver: real part of the complex shape,
                                 phase chosen so the largest entry is real, max |entry| = 1) */
    double* growth;           /* (count) state-space solver: real part of the eigenvalue, 1/s
                                 (> 0 grows); NULL for the symmetric solvers */
    int unstable;             /* state-space solver: 1 when an eigenvalue has a positive
                                 real part beyond its round-off bound (divergence or
                                 flutter; theory.md sec. 14.1) */
    double* shape_im;         /* (count x neq) state-space solver: imaginary part of the complex
                                 shape (same phase and scale as `shape`; a Coriolis-coupled DOF
                                 in quadrature lives here only); NULL for the symmetric solvers */
} kd_modes;

/* Lowest `count` modes of K x = lambda M x. `count` is reduced to neq when
 * larger. Returns KD_ERR_NUMERIC (err says why) when the solver fails. */
kd_status kd_eigen_solve(const kd_band* K, const kd_band* M, int count, kd_eigen_solver solver, double sigma,
                         kd_modes* out, kd_error* err);

/* Assemble the model and compute its lowest `count` modes of the structure
 * at rest: K includes the geometric stiffness of the preload and of gravity
 * (kd_assemble_stiffness_mass). kd_modes_solve is kd_modes_solve_factor
 * with KD_FACTOR_AUTO. */
kd_status kd_modes_solve(const kd_model* m, int count, kd_eigen_solver solver, kd_modes* out, kd_error* err);
kd_status kd_modes_solve_factor(const kd_model* m, int count, kd_eigen_solver solver, kd_eigen_factor factor,
                                kd_modes* out, kd_error* err);

/* The a-priori relative round-off error of omega = sqrt(lambda) of a model
 * with neq equations whose largest eigenvalue is lambda_max
 * (kd_model_lambda_max), computed with the given factorisation, with
 * (rayleigh = 1) or without the Rayleigh quotient: with kappa^2 =
 * lambda_max / lambda, 1e-3 eps kappa^2 (Cholesky; an upper bound with the
 * Rayleigh quotient), 0.3 eps kappa (QR), 4e-6 neq (eps kappa)^2 (QR and
 * Rayleigh quotient), at least 2 eps; the constants measured on cantilevers
 * of 10^3 to 10^5 elements (docs/validation.md, "Round-off in the lowest
 * modes"; theory.md sec. 3.6). */
double kd_modes_roundoff(kd_eigen_factor factor, int rayleigh, int neq, double lambda_max, double lambda);

/* Modes of a moving system at time t (kedyn/system.h): the quadratic
 * eigenproblem (s^2 M + s C + K) x = 0 with the gyroscopic and damping
 * matrices, solved in state-space form [[0, I], [-K, -C]] z = s [[I, 0],
 * [0, M]] z by the dense scaled pencil (kd_gyro_solve below) up to
 * KD_GYRO_MAX equations, or by the sparse shift-invert Arnoldi
 * (kedyn/modes_gyro_sparse.h) for large models (kd_gyro_sparse_route).
 * Frequencies are |Im s| of the eigenvalue pairs, ascending; real pairs
 * (rigid-body or divergent) count as 0. */
#define KD_GYRO_MAX 1500
struct kd_system;
kd_status kd_modes_state_space(struct kd_system* s, double t, int count, kd_modes* out, kd_error* err);

/* The state-space eigensolver of kd_modes_state_space on caller-owned
 * workspace, for repeated solves without allocation (kedyn/ked.h solves it
 * at every instant of a mechanism's motion). kd_gyro_solve scales the
 * state-space form [[0, I], [-K, -C]] z = s [[I, 0], [0, M]] z by diag(M)
 * and a reference frequency wref, shifts it to s = -wref, inverts it and
 * solves the standard eigenproblem by LAPACK dgeev (src/analyses/gyro_pencil.c,
 * theory.md "Gyroscopic modes: the scaled shift-invert pencil"); ent[0..nent)
 * are the eigenvalue pairs, ascending in omega = Im s > 0 (real pairs:
 * omega 0, growth the larger real part), growth = Re s, tol the round-off
 * bound on s (a growth below it is not resolved from 0); kd_gyro_shape gives
 * entry k's displacement part (real and imaginary). */
typedef struct kd_gyro_eig {
    double omega, growth;
    int index;                    /* column of the eigenvector */
    double tol;                   /* round-off bound on s, 1/s */
} kd_gyro_eig;
typedef struct kd_gyro_ws {
    int n, nent, lwork;
    double *A, *B, *ar, *ai, *be, *vr, *work;
    kd_gyro_eig* ent;
    double smax;                  /* largest |s| of the last solve */
    int* ipiv;                    /* LU pivots of the shifted pencil */
    double* dsc;                  /* diag(M)^-1/2 */
    double wref, tnorm;           /* reference frequency and |T|_1 of the last solve */
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
/* The square-root solver (src/numerics/eigen_sqrt.c): A^T A = K, C^T C = M
 * as triplets (kedyn/band.h), sigma <= 0; sigma = 0 factors A alone (C may
 * be NULL). A and C are freed as they are copied into the QR's storage. When
 * K - sigma M is singular (a rigid-body motion at sigma = 0), *singular is
 * set and KD_ERR_NUMERIC returned. */
kd_status kd_eigen_sqrt(kd_triplet* A, kd_triplet* C, const kd_band* M, int count, double sigma, kd_modes* out,
                        int* singular, kd_error* err);
/* The sparse Cholesky solver (src/numerics/eigen_cholmod.c): K and M in compressed columns
 * (kedyn/band.h, kd_csc), K - sigma M factored by CHOLMOD with a fill-reducing ordering, then
 * the shift-invert Lanczos of kd_eigen_lanczos. Same contract as kd_eigen_lanczos. */
kd_status kd_eigen_cholmod(const kd_csc* K, const kd_csc* M, int count, double sigma, kd_modes* out,
                           kd_error* err);

#ifdef __cplusplus
}
#endif
#endif
