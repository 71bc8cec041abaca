/* kedyn: symmetric banded matrices.
 *
 * Global matrices of the reduced (supported) system are symmetric and banded
 * because nodes are numbered along each beam (kedyn/model.h, which also assembles them). They are kept in
 * LAPACK's upper band storage, so banded LAPACK (dpbtrf, dsbmv) works on them
 * directly and memory grows linearly with the model: (bandwidth + 1) x neq.
 *
 * Ownership: kd_band_init allocates ab; kd_band_free releases it.
 */
#ifndef KEDYN_BAND_H
#define KEDYN_BAND_H

#include <stddef.h>

#include "kedyn/status.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct kd_band {
    int n;         /* order */
    int kd;        /* half-bandwidth */
    double* ab;    /* ((kd + 1) x n) column-major: A(i, j), j - kd <= i <= j, at ab[kd + i - j + j (kd + 1)] */
} kd_band;

kd_status kd_band_init(kd_band* a, int n, int kd);
void kd_band_free(kd_band* a);
void kd_band_zero(kd_band* a);

/* A(i, j) for any i, j (zero outside the band). */
double kd_band_get(const kd_band* a, int i, int j);

/* y = A x. */
void kd_band_matvec(const kd_band* a, const double* x, double* y);

/* Whether A is positive definite: the Cholesky factorisation A = U^T U of LAPACK's unblocked
 * dpbtf2 done in place (ab then holds U) with plain loops, returning 1 when every pivot is
 * positive, else 0 (ab then partly factorised). For the many small factorisations of a study's
 * threads: OpenBLAS's dsyr, which dpbtf2 calls once per column, takes a process-wide lock for its
 * buffer, so two threads testing narrow bands spent a third of their time waiting on it
 * (docs/performance.md, "The stability map on two threads"). */
int kd_band_cholesky_definite(kd_band* a);

/* Copy into a dense column-major n x n array (both triangles). */
void kd_band_to_dense(const kd_band* a, double* dense);

/* A sparse matrix as (row, column, value) triplets, duplicates summed: the
 * square-root factors A (A^T A = K) and C (C^T C = M) of the modal solver
 * (kedyn/modes.h, kd_eigen_sqrt). kd_triplet_add grows the arrays. */
typedef struct kd_triplet {
    int nrow, ncol;
    size_t nnz, cap;
    int *i, *j;
    double* x;
} kd_triplet;
kd_status kd_triplet_add(kd_triplet* t, int i, int j, double x);
void kd_triplet_free(kd_triplet* t);

/* A symmetric sparse matrix by its upper triangle in compressed columns: column j's entries
 * are x[p[j] .. p[j + 1]), at rows i[k] <= j, ascending. The global K and M of plate models
 * (kd_assemble_stiffness_mass_csc, kedyn/model.h), whose band would be wide (about 3 ny on an
 * nx x ny mesh). kd_csc_free releases p, i and x. */
typedef struct kd_csc {
    int n;
    int *p, *i;
    double* x;
} kd_csc;
void kd_csc_free(kd_csc* a);
/* y = A x (both triangles from the stored upper one). */
void kd_csc_matvec(const kd_csc* a, const double* x, double* y);
/* A += the element matrix ke (row-major n x n) at equations eqs (< 0: fixed), upper triangle;
 * every entry must be in A's pattern. */
void kd_csc_add_element(kd_csc* a, const double* ke, const int* eqs, int n);
/* The n x n symmetric matrix of the triplets t (each entry (i, j) taken as the upper one
 * (min, max); duplicates summed) in compressed columns. KD_ERR_NOMEM on failure. */
kd_status kd_csc_from_triplet(const kd_triplet* t, int n, kd_csc* out);
/* B = A^-1 B for nrhs columns (n x nrhs, column-major) by CHOLMOD's sparse Cholesky factor of the
 * symmetric positive definite A (ordered by AMD on the graph of the nodes: the equations of a node
 * consecutive, src/numerics/csc_order.c). KD_ERR_NUMERIC when A is not
 * positive definite, KD_ERR_NOMEM when out of memory. */
kd_status kd_csc_solve_spd(const kd_csc* a, int nrhs, double* b);

/* Implicit Newmark steps (parameters b = beta_N, gamma) of M a + C v + K q = f with constant K, M
 * (kd_csc, kept by reference) and Rayleigh damping C = alpha M + beta K: the iteration matrix
 * M + gamma h C + b h^2 K factored once by CHOLMOD at init, one solve and two sparse products per
 * step, no allocation in a step (theory.md sec. 13.4). */
typedef struct kd_newmark_csc kd_newmark_csc;
kd_status kd_newmark_csc_init(const kd_csc* K, const kd_csc* M, double alpha, double beta, double h, double b,
                              double gamma, kd_newmark_csc** out);
/* The generalized-alpha family on the same factorisation (step_alpha.c): the equation at
 * t_{n+1-af}, M a_{n+1-am} + C v_{n+1-af} + K q_{n+1-af} = f, so kd_newmark_csc_step then takes f at
 * t_{n+1} - af h; HHT-alpha: am = 0; Newmark: am = af = 0 (kd_newmark_csc_init). */
kd_status kd_newmark_csc_init_alpha(const kd_csc* K, const kd_csc* M, double alpha, double beta, double h, double b,
                                    double gamma, double am, double af, kd_newmark_csc** out);
/* (q, v, a) at t_n -> t_n + h in place, f = the load at t_n + h. Nonzero on failure. */
int kd_newmark_csc_step(kd_newmark_csc* w, const double* f, double* q, double* v, double* a);
void kd_newmark_csc_free(kd_newmark_csc** w);


#ifdef __cplusplus
}
#endif
#endif
