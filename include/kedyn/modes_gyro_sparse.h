/* Gyroscopic modes of large models (theory.md sec. 14.5): the quadratic eigenproblem
 * (s^2 M + s C + K) x = 0 of a moving system, C = G (Coriolis, skew) + Rayleigh damping, by
 * ARPACK-ng's Arnoldi (dnaupd/dneupd) in shift-invert mode on the state-space form, with
 * K + sigma C + sigma^2 M factored once in compressed columns (CHOLMOD's Cholesky of K at
 * sigma = 0 when K is positive definite, KLU's LU otherwise). kd_modes_state_space
 * (kedyn/modes.h) takes this route for large models (kd_gyro_sparse_route). */
#ifndef KEDYN_MODES_GYRO_SPARSE_H
#define KEDYN_MODES_GYRO_SPARSE_H

#include "kedyn/band.h"
#include "kedyn/frame.h"
#include "kedyn/modes.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The `nev` eigenvalues s of (s^2 M + s C + K) x = 0 nearest the real shift the solver chooses
 * (0, or slightly below 0 when K is singular), with their displacement parts. K and M: upper
 * triangles (kd_csc of kedyn/band.h); C: both triangles (a general matrix in the same struct;
 * NULL: none). A complex pair is one entry k with im[k] > 0 and shape columns (vre, vim) of the
 * eigenvector of s = re + i im; a real s is an entry with im = 0 and vim = 0. */
typedef struct kd_gyro_sparse {
    int n, nconv;
    double *re, *im;          /* (nconv) eigenvalues s (im >= 0: one entry per pair) */
    double *vre, *vim;        /* (nconv x n) displacement parts, one row per entry */
    double* tol;              /* (nconv) round-off bound on s (1/s) */
    double sigma;             /* the shift used */
    int lu;                   /* 1: K + sigma C + sigma^2 M factored by KLU, 0: Cholesky of K */
} kd_gyro_sparse;
kd_status kd_eigen_gyro_sparse(const kd_csc* K, const kd_csc* M, const kd_csc* C, int nev, kd_gyro_sparse* out,
                               kd_error* err);
/* The same with K general (both triangles stored: the skew k(eps) of an angular acceleration
 * makes it unsymmetric); P is then always factored by KLU's LU. */
kd_status kd_eigen_gyro_sparse_general(const kd_csc* K, const kd_csc* M, const kd_csc* C, int nev,
                                       kd_gyro_sparse* out, kd_error* err);
void kd_gyro_sparse_free(kd_gyro_sparse* r);

/* C = the gyroscopic [c] of every element at time t plus each body's Rayleigh damping
 * alpha m + beta k, in compressed columns with both triangles on the pattern of K (the upper
 * triangle of kd_system_stiffness_csc, kedyn/modes_speed.h); NULL arrays of C when nothing
 * couples (*nonzero = 0). Elements with their own axes (elem_rot) are not supported. */
kd_status kd_system_damping_csc(const kd_model* m, double t, const kd_csc* K, kd_csc* C, int* nonzero, kd_error* err);

/* The sparse route's size: models of at least this many equations (the environment variable
 * KEDYN_GYRO_SPARSE_MIN_DOF when set, else KD_GYRO_SPARSE_DOF) when fewer than a quarter of
 * their modes are wanted (kd_gyro_sparse_route); above KD_GYRO_MAX always. The sparse solver
 * was faster than the dense one at every size measured (180 equations: 0.03 s against 0.11 s;
 * docs/performance.md); below this size the dense one gives the whole spectrum at little cost. */
#define KD_GYRO_SPARSE_DOF 500
int kd_gyro_sparse_min_dof(void);
/* 1 when `count` modes of a system of n equations take the sparse route. */
int kd_gyro_sparse_route(int n, int count);

/* kd_modes_state_space on the sparse route: the modes of model m at time t with body b's frame
 * following motion[b] (motion NULL, or an entry NULL: the body's own motion). */
kd_status kd_modes_state_space_sparse(const kd_model* m, const kd_motion* const* motion, double t, int count,
                                      kd_modes* out, kd_error* err);

/* The entries of r as the dense solver's (kd_gyro_ws.ent, kedyn/modes.h): one per complex pair
 * (omega = Im s > 0), the real s paired in descending order (an entry of omega 0 and the larger
 * growth), ascending in omega; index the column of r's vectors. ent holds r->nconv + 1 entries;
 * returns their number. */
int kd_gyro_sparse_entries(const kd_gyro_sparse* r, kd_gyro_eig* ent);

/* The phase of a complex shape (vre, vim) rotated so that its largest entry is real and
 * positive and scaled to 1, into (x, y) (kd_modes.shape / shape_im). */
void kd_modes_phase_normalise(const double* vre, const double* vim, int n, double* x, double* y);

#ifdef __cplusplus
}
#endif
#endif
