/* kedyn: a sparse LU of the square constraint Jacobian Phi_q of a spatial mechanism (KLU), for
 * fully driven mechanisms without redundant rows (nc = n): kinematics, multipliers and the rigid
 * cycle of the one-way links (theory.md sec. 11.3). The pattern is the mechanism's (kd_smech
 * jac_rowptr / jac_col); a refactorisation keeps the pivot order of the last factorisation and
 * factorises anew with pivoting when a pivot has shrunk (the diagonal ratio of U below a tenth
 * of its value at that factorisation). No allocation after kd_smech_lu_new except inside a new
 * factorisation with pivoting. */
#ifndef KEDYN_SMECH_LU_H
#define KEDYN_SMECH_LU_H

#include "kedyn/smech.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct kd_smech_lu kd_smech_lu;  /* struct kd_smech_lu: kedyn/smech.h */

/* KD_ERR_INPUT when nc != n; KD_ERR_NOMEM. */
kd_status kd_smech_lu_new(const kd_smech* m, kd_smech_lu** out, kd_error* err);
void kd_smech_lu_free(kd_smech_lu** lu);
/* Factorise Phi_q given as the CSR values jac (kd_smech_jacobian); cond (may be NULL): the 1-norm
 * condition number estimate (Hager-Higham, klu_condest; while the ratio of the smallest to the
 * largest pivot stays within a factor 2 of its value at the last such estimate, that estimate
 * scaled by the ratio's change). Returns 0, or 1 when singular. */
int kd_smech_lu_factor(kd_smech_lu* lu, const double* jac, double* cond);
/* Phi_q x = b (trans = 0) or Phi_q^T x = b (trans = 1), in place. Returns 0 or 1. */
int kd_smech_lu_solve(kd_smech_lu* lu, int trans, double* x);

#ifdef __cplusplus
}
#endif
#endif
