/* kedyn: a rank-revealing sparse QR of Phi_q^T (SuiteSparseQR) for spatial mechanisms whose Phi_q
 * is not square: undriven degrees of freedom (nc < n) and redundant rows (theory.md sec. 11.4).
 * The columns of Phi_q^T are taken in the order of the dense route's Gram-Schmidt pass
 * (normalisation rows, joint rows, driver rows) with SuiteSparseQR's fixed ordering, so that a
 * row is found dependent exactly when it depends on the rows before it in that order: its
 * rank and redundant rows are the dense route's. Solves by the corrected semi-normal equations
 * with the triangular factor R (no Q kept): minimum-norm Phi_q x = b, least-squares
 * Phi_q^T lambda = r with zero multipliers on the redundant rows. SuiteSparseQR allocates inside
 * each factorisation; the solves do not allocate. */
#ifndef KEDYN_SMECH_QR_H
#define KEDYN_SMECH_QR_H

#include "kedyn/smech.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct kd_smech_qr kd_smech_qr;

#define KD_SMECH_QR_TOL 1e-7      /* a row is dependent when its distance from the span of the
                                     rows before it is below this fraction of the largest row norm */

/* rank_tol: KD_SMECH_QR_TOL, or another relative tolerance. KD_ERR_NOMEM. */
kd_status kd_smech_qr_new(const kd_smech* m, double rank_tol, kd_smech_qr** out, kd_error* err);
void kd_smech_qr_free(kd_smech_qr** qr);
/* Factorise Phi_q^T given as the CSR values jac (kd_smech_jacobian) of Phi_q. Returns 0, or 1 when
 * SuiteSparseQR fails (no memory). */
int kd_smech_qr_factor(kd_smech_qr* qr, const double* jac);
/* After a factorisation: the rank of the rows [0, nc_mech) (joints and normalisation) and of all
 * rows; the dependent rows (Phi_q row indices, in the pass order) into dead[0 .. min(*ndead,
 * maxdead)). Any pointer may be NULL. */
void kd_smech_qr_rank(const kd_smech_qr* qr, int* rank_mech, int* rank, int* dead, int maxdead, int* ndead);
/* The 2-norm condition number of the independent rows, estimated from below by power and inverse
 * iteration (8 steps each) with the factor. */
double kd_smech_qr_cond(kd_smech_qr* qr);
/* Minimum-norm x (n) of the independent rows of Phi_q x = b (b: nc). */
void kd_smech_qr_solve(kd_smech_qr* qr, const double* b, double* x);
/* Least-squares lambda (nc) of Phi_q^T lambda = r (r: n), zero on the dependent rows. */
void kd_smech_qr_tsolve(kd_smech_qr* qr, const double* r, double* lambda);

#ifdef __cplusplus
}
#endif
#endif
